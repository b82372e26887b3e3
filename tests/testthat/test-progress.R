# Progress bars: what an interactive user gets by default (progress =
# interactive()).  testthat itself loads cli, so the in-process tests cannot
# see a missing cli namespace; the first test runs a fresh, vanilla R that
# believes it is interactive, as a user's console does.

r_binary <- function() file.path(R.home("bin"), "R")

# Run `code` (a character vector of R lines) in `R --vanilla --interactive`
# fed from a pipe, with this session's library paths; returns its output.
run_interactive_r <- function(code) {
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  script <- tempfile(fileext = ".R")
  writeLines(code, script)
  on.exit(unlink(script))
  wd <- withr::local_tempdir() # example() may open a file device here
  withr::local_dir(wd)
  out <- suppressWarnings(system2(
    r_binary(), c("--vanilla", "--interactive", "--no-echo"),
    stdin = script, stdout = TRUE, stderr = TRUE,
    env = c(paste0("R_LIBS=", lib), "R_LIBS_USER=NULL", "R_LIBS_SITE=NULL")))
  out
}

test_that("a simulation runs in a fresh interactive session (progress bar on by default)", {
  skip_on_os("windows")
  out <- run_interactive_r(c(
    'stopifnot(interactive(), !"cli" %in% loadedNamespaces())',
    'suppressPackageStartupMessages(library(statphysgpu))',
    'x <- escape_times(10, 0.5, 1, 1, 0.2, 0.05, 100, seed = 1, backend = "cpu")',
    's <- switching_currents(10, ramp = 1e-3, V0 = 1, beta = 0.5, theta = 0.2, h = 0.02, seed = 1, backend = "cpu")',
    'p <- philox_normal(10, seed = 1, backend = "cpu")',
    'cat("RESULT", nrow(x), nrow(s), length(p), "\\n")'))
  expect_true(any(grepl("RESULT 10 10 10", out, fixed = TRUE)),
              info = paste(out, collapse = "\n"))
  expect_false(any(grepl("Error", out)), info = paste(out, collapse = "\n"))
})

test_that("example(escape_times) runs in a fresh interactive session", {
  skip_on_os("windows")
  out <- run_interactive_r(c(
    'suppressPackageStartupMessages(library(statphysgpu))',
    'grDevices::pdf(NULL)',
    'example("escape_times", package = "statphysgpu", ask = FALSE, echo = FALSE, local = new.env())',
    'cat("EXAMPLE", "DONE\\n")'))
  expect_true(any(grepl("EXAMPLE DONE", out, fixed = TRUE)),
              info = paste(out, collapse = "\n"))
})

test_that("progress = TRUE shows a bar and does not change the result", {
  withr::local_options(cli.progress_show_after = 0, cli.dynamic = FALSE,
                       cli.progress_handlers_only = "cli")
  args <- list(n = 200, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, h = 0.02,
               t_max = 500, seed = 4, backend = "cpu")
  quiet <- do.call(escape_times, c(args, progress = FALSE))
  msgs <- character()
  loud <- withCallingHandlers(
    do.call(escape_times, c(args, progress = TRUE)),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  expect_identical(as.data.frame(loud), as.data.frame(quiet))
  expect_true(any(grepl("Simulating paths", msgs)))
})
