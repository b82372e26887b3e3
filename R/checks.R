# Argument checks shared by every exported function.  Each check names the
# argument and the allowed range, and reports the error against the
# user-facing call (not the helper).

# Errors and warnings go through cli (cli_abort / cli_warn): the message is
# text, never cli markup (braces are escaped), its first line the headline and
# any further lines ("\n") indented below it, as compiler logs are shown.
# Classes: "statphysgpu_error" / "statphysgpu_warning" before rlang's.
sp_cli_text <- function(message) {
  esc <- function(x) gsub("}", "}}", gsub("{", "{{", x, fixed = TRUE), fixed = TRUE)
  lines <- strsplit(paste(as.character(message), collapse = ""), "\n", fixed = TRUE)[[1]]
  if (!length(lines)) lines <- ""
  rest <- lines[-1]
  c(esc(lines[1]), stats::setNames(esc(rest), rep(" ", length(rest))))
}

sp_abort <- function(message, call = NULL, class = NULL) {
  cli::cli_abort(sp_cli_text(message), class = c(class, "statphysgpu_error"),
                 call = call, .envir = emptyenv())
}

sp_warn <- function(message, call = NULL, class = NULL) {
  cli::cli_warn(sp_cli_text(message), class = c(class, "statphysgpu_warning"),
                call = call, .envir = emptyenv())
}

# The message of a condition as one line of text (no cli wrapping), to be
# quoted inside another message.
sp_cnd_text <- function(e) {
  if (inherits(e, "rlang_error") || inherits(e, "rlang_warning")) {
    paste(c(e$message, e$body), collapse = " ")
  } else {
    conditionMessage(e)
  }
}

# The call of the exported function that called a check helper.
caller_call <- function(n = 2) {
  call <- sys.call(-n)
  if (is.null(call)) return(NULL)
  call
}

describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (length(x) == 0) return(paste0("an empty ", class(x)[1], " vector"))
  if (length(x) > 1) return(paste0("a vector of length ", length(x)))
  if (is.character(x)) return(paste0('"', x, '"'))
  if (is.numeric(x) || is.logical(x)) return(format(x, digits = 15))
  paste0("an object of class ", class(x)[1])
}

TWO64 <- 18446744073709551616 # 2^64, exact as a double

# A single whole number in [lo, hi] (both inclusive), returned as a double.
check_whole <- function(x, name, lo = 0, hi = 2^52, call = caller_call()) {
  ok <- is.numeric(x) && length(x) == 1 && !is.na(x) && is.finite(x) &&
    x == floor(x) && x >= lo && x <= hi
  if (!ok) {
    range <- if (is.infinite(hi)) sprintf(">= %s", fmt_num(lo))
             else sprintf("between %s and %s", fmt_num(lo), fmt_num(hi))
    sp_abort(sprintf("`%s` must be a single whole number %s, not %s.",
                     name, range, describe(x)), call = call)
  }
  as.double(x)
}

# A 64-bit unsigned integer given as a whole number in [0, 2^64) or as a
# string of up to 16 hexadecimal digits ("0x..."), for values past 2^53 that
# a double cannot hold.  Returned as c(lo, hi), two whole doubles in
# [0, 2^32), which is how the .Call glue receives 64-bit values.
check_u64 <- function(x, name, call = caller_call()) {
  bad <- function() {
    sp_abort(sprintf(paste0(
      "`%s` must be a single whole number in [0, 2^64) or a hexadecimal ",
      "string such as \"0x1f\", not %s."), name, describe(x)), call = call)
  }
  if (is.character(x)) {
    if (length(x) != 1 || is.na(x) ||
        !grepl("^0[xX][0-9a-fA-F]{1,16}$", x)) bad()
    digits <- substring(x, 3)
    digits <- formatC(digits, width = 16, flag = "0")
    digits <- gsub(" ", "0", digits, fixed = TRUE)
    quads <- strtoi(substring(digits, seq(1, 13, 4), seq(4, 16, 4)), 16L)
    return(c(quads[3] * 65536 + quads[4], quads[1] * 65536 + quads[2]))
  }
  ok <- is.numeric(x) && length(x) == 1 && !is.na(x) && is.finite(x) &&
    x == floor(x) && x >= 0 && x < TWO64
  if (!ok) bad()
  x <- as.double(x)
  hi <- floor(x / 2^32)
  c(x - hi * 2^32, hi)
}

u64_to_double <- function(p) p[2] * 2^32 + p[1]

# "0x..." form of a c(lo, hi) pair, exact for every 64-bit value.
u64_to_hex <- function(p) sprintf("0x%08x%08x", as.integer(p[2] - (p[2] >= 2^31) * 2^32),
                                  as.integer(p[1] - (p[1] >= 2^31) * 2^32))

# TRUE when the 64-bit value p plus n (a whole double <= 2^52) passes 2^64.
u64_add_overflows <- function(p, n) {
  lo <- p[1] + n
  hi <- p[2] + floor(lo / 2^32)
  lo <- lo - floor(lo / 2^32) * 2^32
  hi > 2^32 || (hi == 2^32 && lo > 0)
}

check_count <- function(x, name, min = 0, call = caller_call()) {
  check_whole(x, name, lo = min, hi = 2^52, call = call)
}

check_flag <- function(x, name, call = caller_call()) {
  if (!is.logical(x) || length(x) != 1 || is.na(x)) {
    sp_abort(sprintf("`%s` must be TRUE or FALSE, not %s.", name, describe(x)),
             call = call)
  }
  x
}

# match.arg with a message that names the argument.
check_choice <- function(x, choices, name, call = caller_call()) {
  if (identical(x, choices)) return(choices[1])
  if (!is.character(x) || length(x) != 1 || is.na(x) || !(x %in% choices)) {
    sp_abort(sprintf("`%s` must be one of %s, not %s.", name,
                     paste0('"', choices, '"', collapse = ", "), describe(x)),
             call = call)
  }
  x
}

# Positive finite numbers (a vector when len is NULL, else that length).
check_positive <- function(x, name, len = NULL, allow_zero = FALSE,
                           call = caller_call()) {
  bad_type <- !is.numeric(x) || length(x) == 0 ||
    (!is.null(len) && length(x) != len)
  if (!bad_type) {
    bad <- is.na(x) | !is.finite(x) | (if (allow_zero) x < 0 else x <= 0)
  }
  if (bad_type || any(bad)) {
    what <- if (allow_zero) "non-negative" else "positive"
    shape <- if (is.null(len)) "a numeric vector of" else
      if (len == 1) "a single" else sprintf("a numeric vector of length %d of", len)
    shown <- if (bad_type) describe(x) else describe(x[which(bad)[1]])
    sp_abort(sprintf("`%s` must be %s %s finite number%s, not %s.", name, shape,
                     what, if (identical(len, 1)) "" else "s", shown),
             call = call)
  }
  as.double(x)
}

fmt_num <- function(x) {
  if (x == 2^52) return("2^52")
  if (x == TWO64) return("2^64")
  format(x, scientific = abs(x) >= 1e15, digits = 15)
}

# A seed for Philox: NULL draws one from R's RNG (so set.seed() reproduces
# runs); otherwise a whole number in [0, 2^64) or a hexadecimal string.
# Returned as c(lo, hi).
resolve_seed <- function(seed, call = caller_call()) {
  if (is.null(seed)) seed <- sp_seed()
  check_u64(seed, "seed", call = call)
}

#' Draw a seed from R's random number generator
#'
#' Functions of statphysgpu called with `seed = NULL` take their 64-bit
#' Philox key from R's random number generator through this function, so
#' that `set.seed()` makes their results reproducible. The seed is a whole
#' number in \eqn{[0, 2^{53})}, exactly representable as a double, so it can
#' be printed, stored and passed back as `seed`.
#'
#' @return A single whole number (double).
#' @examples
#' set.seed(1)
#' s <- sp_seed()
#' s
#' identical(philox_uniform(3, seed = s),
#'           {set.seed(1); philox_uniform(3)})
#' @export
sp_seed <- function() {
  hi <- floor(stats::runif(1) * 2^21)
  lo <- floor(stats::runif(1) * 2^32)
  hi * 2^32 + lo
}
