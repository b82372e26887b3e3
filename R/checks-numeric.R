# Numeric argument checks for the theory and statistics functions, in the
# style of checks.R: each names the argument and the allowed range, and
# reports against the user-facing call.

fmt_bound <- function(x) {
  if (is.infinite(x)) return(if (x > 0) "Inf" else "-Inf")
  format(x, digits = 15)
}

# Finite numbers in an interval; `lo_open`/`hi_open` make an end open.
# len = NULL: a non-empty vector; len = 1: a single number.
check_range <- function(x, name, lo = -Inf, hi = Inf, lo_open = FALSE,
                        hi_open = FALSE, len = NULL, call = caller_call()) {
  bad_type <- !is.numeric(x) || length(x) == 0 ||
    (!is.null(len) && length(x) != len)
  if (!bad_type) {
    bad <- is.na(x) | !is.finite(x) |
      (if (lo_open) x <= lo else x < lo) | (if (hi_open) x >= hi else x > hi)
  }
  if (bad_type || any(bad)) {
    interval <- if (is.infinite(lo) && is.infinite(hi)) "" else
      sprintf(" in %s%s, %s%s", if (lo_open) "(" else "[", fmt_bound(lo),
              fmt_bound(hi), if (hi_open) ")" else "]")
    shape <- if (is.null(len)) "a numeric vector of finite numbers" else
      if (len == 1) "a single finite number" else
        sprintf("a numeric vector of length %d of finite numbers", len)
    shown <- if (bad_type) describe(x) else describe(x[which(bad)[1]])
    sp_abort(sprintf("`%s` must be %s%s, not %s.", name, shape, interval,
                     shown), call = call)
  }
  as.double(x)
}

check_level <- function(level, call = caller_call()) {
  check_range(level, "level", 0, 1, lo_open = TRUE, hi_open = TRUE, len = 1,
              call = call)
}

# A single finite number (any sign).
check_number <- function(x, name, call = caller_call()) {
  check_range(x, name, len = 1, call = call)
}

# Recycle named vectors to a common length as data.frame() does: every
# length must divide the longest.  Returns the list of recycled vectors.
recycle_args <- function(args, call = caller_call()) {
  lens <- lengths(args)
  n <- max(lens)
  if (any(n %% lens != 0)) {
    shown <- paste0("`", names(args), "` (length ", lens, ")", collapse = ", ")
    sp_abort(sprintf(paste0(
      "Arguments %s cannot be recycled to a common length: each length must ",
      "divide the longest (%d)."), shown, n), call = call)
  }
  lapply(args, rep_len, length.out = n)
}

# A logical vector without NA, of length n; numbers 0 and 1 are accepted
# for FALSE and TRUE.  Returned as logical.
check_logical_vector <- function(x, name, n, call = caller_call()) {
  zero_one <- is.numeric(x) && !anyNA(x) && all(x == 0 | x == 1)
  if (!(is.logical(x) || zero_one) || length(x) != n || anyNA(x)) {
    what <- if (is.numeric(x) && !anyNA(x) && !zero_one) {
      sprintf("numbers other than 0 and 1 (%s)", describe(x[x != 0 & x != 1][1]))
    } else if (!is.logical(x) && !is.numeric(x)) {
      describe(x)
    } else if (length(x) != n) {
      sprintf("a vector of length %d", length(x))
    } else "a vector containing NA"
    sp_abort(sprintf(paste0(
      "`%s` must be a logical vector without NA of length %d (one per value; ",
      "1 and 0 are accepted for TRUE and FALSE), not %s."), name, n, what),
      call = call)
  }
  as.logical(x)
}

# Finite numbers, any sign; a non-empty vector.
check_finite <- function(x, name, call = caller_call()) {
  check_range(x, name, call = call)
}
