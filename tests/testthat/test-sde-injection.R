# Issue 48, items 1 and 2: no text a user chose reaches generated C but as
# identifiers that passed the name checks and expressions that went through
# the translator.  A corpus of hostile strings goes into every argument that
# can carry text into sde_code(); each is refused (an error of the package)
# or appears in the code only as a sanitised comment, and the code passes
# the guard every compile goes through (sde_code_check()).

hostile_corpus <- function() {
  c(comment_end = "a */ b",
    comment_open = "a /* b",
    splice = paste0("ou*\\", "\n", "/"),
    splice_cr = paste0("x\\", "\r\n", "y"),
    backslash = "a\\b",
    trigraph = "??/",
    trigraph_hash = "??=define X 1",
    hash_line = "\n#define SP_R(x) 0\n",
    include = "\n#include <stdlib.h>\n",
    dquote = "a\"b",
    squote = "a'b",
    newline = "a\nb",
    tab = "a\tb",
    formfeed = "a\fb",
    nonascii = "\u03b8",
    accent = "caf\u00e9",
    rtl = "a\u202eb",
    long = strrep("x", 1e5),
    payload = paste("w */ { extern int system(const char*); static int d;",
                    "if(!d){d=1; system(\"id > pwned2\");} } /*"))
}

# Is `s` harmless in generated C as plain comment text?  Only letters,
# digits and _ (the strings of the corpus never are).
plain <- function(s) grepl("^[A-Za-z0-9_]*$", s)

# The model that `arg` = s makes, or the error it gives.
injection_try <- function(arg, s) {
  base <- list(drift = list(x = ~ -k * x), noise = list(x = ~ s0), params = c(k = 1, s0 = 1),
               observe = list(o = ~ x^2), name = "ou")
  rename <- function(v, old) {
    names(v)[names(v) == old] <- s
    v
  }
  d <- switch(arg,
    name = modifyList(base, list(name = s)),
    state = {
      b <- base
      b$drift <- stats::setNames(list(~ -k * 1), s)
      b$noise <- stats::setNames(list(~ s0), s)
      b$observe <- NULL
      b
    },
    parameter = modifyList(base, list(params = rename(base$params, "k"))),
    observable = modifyList(base, list(observe = stats::setNames(list(~ x^2), s))),
    noise_column = {
      b <- base
      b$noise <- matrix(list(~ s0), 1, 1, dimnames = list("x", s))
      b
    },
    noise_row = {
      b <- base
      b$noise <- matrix(list(~ s0), 1, 1, dimnames = list(s, "w1"))
      b
    },
    element_parameter = {
      b <- base
      b$params <- c(list(k = 1, s0 = 1), stats::setNames(list(~ runif(0, 1)), s))
      b$drift <- list(x = ~ -k * x + mean(x))
      b$observe <- list(o = ~ mean(x^2))
      b
    })
  tryCatch(do.call(sde_model, d, quote = TRUE), error = function(e) e)
}

test_that("hostile text in every argument is refused or reaches the C only as a sanitised comment", {
  corpus <- hostile_corpus()
  args <- c("name", "state", "parameter", "observable", "noise_column", "noise_row",
            "element_parameter")
  outcomes <- character()
  for (arg in args) for (k in names(corpus)) {
    s <- corpus[[k]]
    m <- injection_try(arg, s)
    label <- sprintf("%s = <%s>", arg, k)
    if (inherits(m, "error")) {
      # refused by the package's own checks, with its error class
      expect_s3_class(m, "statphysgpu_error")
      expect_false(inherits(m, "statphysgpu_unsafe_code"), label = label)
      outcomes[label] <- "refused"
      next
    }
    outcomes[label] <- "built"
    code <- sde_code(m)
    expect_silent(statphysgpu:::sde_code_check(code, label))
    if (!plain(s)) {
      expect_false(grepl(s, code, fixed = TRUE), label = label)
    }
    # every line holds printable ASCII alone, and a comment opened on a line
    # closes on it or on a line of the generator's own
    expect_false(grepl("[^\n\x20-\x7e]", code, useBytes = TRUE, perl = TRUE), label = label)
  }
  # names of states, parameters, observables and Wiener processes are
  # syntactic R names: every hostile one is refused but letters of other
  # alphabets (a state `theta` in Greek is a name R knows; it becomes x[0]
  # in the C and `_` in comments); a model's name is shown or hashed
  letters_ok <- grepl("<(nonascii|accent)>$", names(outcomes))
  named <- startsWith(names(outcomes), "name =")
  expect_true(all(outcomes[!named & !letters_ok] == "refused"))
  expect_true(all(outcomes[startsWith(names(outcomes), "name =")] == "built"))
})

test_that("a model's name is shown in its C only when it is plain text, else as its hash", {
  m <- sde_model(drift = list(x = ~ -x), name = "Ornstein-Uhlenbeck (k = 1)")
  expect_match(sde_code(m), "SDE model \"Ornstein-Uhlenbeck (k = 1)\"", fixed = TRUE)
  m2 <- sde_model(drift = list(x = ~ -x), name = "ou */ int x; /*")
  expect_match(sde_code(m2), "<name not shown: sha256 [0-9a-f]{16}>")
  # the name is still the model's name in R
  expect_identical(m2$name, "ou */ int x; /*")
})

test_that("the guard refuses generated text that is not plain C of the generator", {
  ok <- "/* a comment */\n#define SP_X 1\nSP_FN void f(void) { }\n"
  expect_silent(statphysgpu:::sde_code_check(ok, "test"))
  for (bad in c("/* a */ */", "/* open", "int x = 1; \\\n", "??/", "#include <stdio.h>\n",
                "#ifndef E1\n", "char *s = \"x\";", "x = 'a';", "/* \u00e9 */",
                "static int a; # define")) {
    expect_error(statphysgpu:::sde_code_check(bad, "test"), class = "statphysgpu_unsafe_code",
                 label = bad)
  }
})

test_that("the payloads of issue 48 never run, from sde_model() or from an edited saved model", {
  skip_if_not(statphysgpu::sde_cpu_available(), "no C compiler")
  dir <- withr::local_tempdir("inject")
  withr::local_dir(dir)
  nm <- paste("ou*\\", "/", "#ifndef E1", "#define E1", "extern int system(const char *);",
              "__attribute__((constructor)) static void e(void){system(\"id > pwned\");}",
              "#endif", "/*", sep = "\n")
  run <- function(m) {
    sde_run(m, replicas = 4, init = list(x = 0), dt = .01, t_max = .1, output = "moments",
            backend = "cpu", progress = FALSE)
  }
  m <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), observe = list(x2 = ~ x^2),
                 name = nm)
  expect_s3_class(run(m), "sde_moments")
  expect_false(file.exists(file.path(dir, "pwned")))
  # the noise matrix's column name: refused
  N <- matrix(list(~1), 1, 1, dimnames = list("x", paste(
    "w */ { extern int system(const char*); static int d; if(!d){d=1;",
    "system(\"id > pwned2\");} } /*")))
  expect_error(sde_model(drift = list(x = ~ -x), noise = N), class = "statphysgpu_bad_name")
  # a saved model whose name was edited and read back: rebuilt, the name
  # hashed in the C, nothing runs
  ok <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), observe = list(x2 = ~ x^2),
                  name = "ou")
  f <- tempfile(fileext = ".rds")
  saveRDS(ok, f)
  ed <- readRDS(f)
  ed$name <- nm
  ed$code <- sub("ou", nm, ed$code, fixed = TRUE)
  expect_warning(res <- run(ed), class = "statphysgpu_model_rebuilt")
  expect_s3_class(res, "sde_moments")
  expect_false(file.exists(file.path(dir, "pwned")))
  # and a many-body model with the same name
  mb <- sde_model(drift = list(x = ~ -x + mean(x)), noise = list(x = ~ 1),
                  observe = list(m = ~ mean(x)), name = nm)
  r <- sde_run(mb, replicas = 2, n = 3, init = list(x = 0), dt = .01, t_max = .05,
               output = "records", backend = "cpu", progress = FALSE)
  expect_s3_class(r, "sde_records")
  expect_false(file.exists(file.path(dir, "pwned")))
})

test_that("NVRTC compiles a model with a hostile name without running anything of it", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  local_kernel_cache()
  nm <- paste0("ou*\\", "\n", "/ __global__ void k(){} /*")
  m <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), name = nm)
  img <- statphysgpu:::sde_nvrtc_image(m, "sm_90", "single", "euler")
  expect_true(is.raw(img) && length(img) > 1000)
  # the name reached NVRTC's input only as its hash
  expect_false(grepl("__global__ void k", sde_code(m), fixed = TRUE))
})
