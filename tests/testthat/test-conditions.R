# Errors and warnings are cli conditions (issue 36): the package's classes
# first, the text literal (braces are not cli markup), further lines of a
# message (compiler logs) indented under its headline, wrapped at the width
# cli is given.

test_that("errors are cli errors with the package's classes and literal text", {
  e <- tryCatch(sp_abort("a {brace} and `code`\nlog line 1\nlog line 2", class = "x_cls"),
                error = function(e) e)
  expect_s3_class(e, "x_cls")
  expect_identical(class(e)[1:3], c("x_cls", "statphysgpu_error", "rlang_error"))
  expect_identical(conditionMessage(e), "a {brace} and `code`\n  log line 1\n  log line 2")
  expect_identical(sp_cnd_text(e), "a {brace} and `code` log line 1 log line 2")
  w <- tryCatch(sp_warn("50% {x}", class = "y_cls"), warning = function(w) w)
  expect_identical(class(w)[1:3], c("y_cls", "statphysgpu_warning", "rlang_warning"))
  expect_identical(conditionMessage(w), "50% {x}")
})

test_that("a user's error names the call and wraps at cli's width", {
  e <- tryCatch(escape_times(replicas = -1, gamma = 0.5, V0 = 1, beta = 0.2, theta = 0.1,
                             dt = 0.01, t_max = 1), error = function(e) e)
  expect_s3_class(e, "statphysgpu_error")
  expect_identical(as.character(conditionCall(e)[[1]]), "escape_times")
  withr::local_options(cli.condition_width = 30)
  lines <- strsplit(conditionMessage(e), "\n", fixed = TRUE)[[1]]
  expect_gt(length(lines), 1)
  expect_true(all(nchar(lines) <= 30))
  expect_identical(paste(lines, collapse = " "),
                   "`replicas` must be a single whole number between 1 and 2^52, not -1.")
})
