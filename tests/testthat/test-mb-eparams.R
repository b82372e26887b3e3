# Run-time values of parameters (issue 49, "drawn per-element parameters"):
# a parameter per element declared as a constant formula (`w = ~ 0`) was
# read back as a scalar when sde_run() rebuilt the model from its
# equations (a spurious "differs" warning; `params = list(w = 1:4)` then
# swept a scalar and every element moved alike); whole numbers and TRUE as
# right-hand sides made the rebuilt model differ too.  CPU, small sizes.

# Heavy: models compiled by the C compiler. Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

# x' = w + a: w per element, declared 0 (a constant formula), a a scalar (a
# reduction that adds 0: the model stays one of many elements when w is
# lost, as in the report, where every element then moved alike).
eparams_model <- function() {
  if (is.null(.mb_models$eparams)) {
    .mb_models$eparams <- sde_model(drift = list(x = ~ w + a + 0 * mean(x)), params = list(a = 0, w = ~ 0),
                                    name = "eparams-const")
  }
  .mb_models$eparams
}

# x(1) of every element of 2 systems a condition (Euler, dt = 0.5: exact in
# double): the kept trajectories' last records (condition 1), with the final
# states of every system (attribute "x": elements, then systems by
# condition and replica) and the conditions
eparams_end <- function(m, ...) {
  r <- sde_run(m, 2, n = 4, init = list(x = 0), dt = 0.5, t_max = 1, method = "euler",
               output = "trajectories", keep = 2, record_every = 2, seed = 3,
               backend = "cpu", precision = "double", ...)
  end <- r[r$time == 1, ]
  attr(end, "x") <- as.vector(attr(r, "final"))
  attr(end, "ncond") <- nrow(attr(r, "conditions"))
  end
}

test_that("a parameter per element declared as a constant formula stays one, with no 'differs' warning", {
  skip_if_no_cc()
  m <- eparams_model()
  expect_identical(names(m$elements), "w")
  expect_no_warning(sde_code(m), class = "statphysgpu_model_rebuilt")
  end <- expect_no_warning(eparams_end(m), class = "statphysgpu_model_rebuilt")
  expect_identical(end$x, rep(0, 8))
  expect_identical(unique(end$condition), 1L)
  expect_identical(sde_element_params(end)$w, rep(0, 8))
  # a string and a whole number are constant formulas too
  for (w in list("0", ~ 2L)) {
    mw <- sde_model(drift = list(x = ~ w + a), params = list(a = 0, w = w), name = "eparams-const2")
    expect_identical(names(mw$elements), "w")
    expect_no_warning(sde_code(mw), class = "statphysgpu_model_rebuilt")
  }
})

test_that("a run-time vector of n values for a per-element parameter is used, element by element", {
  skip_if_no_cc()
  m <- eparams_model()
  end <- expect_no_warning(eparams_end(m, params = list(w = c(1, 2, 3, 4))),
                           class = "statphysgpu_model_rebuilt")
  expect_identical(nrow(end), 8L) # one condition: w is not swept
  expect_identical(end$x, rep(c(1, 2, 3, 4), 2))
  expect_identical(sde_element_params(end)$w, rep(c(1, 2, 3, 4), 2))
  # one number: every element; a formula of i
  expect_identical(eparams_end(m, params = list(w = 5))$x, rep(5, 8))
  expect_identical(eparams_end(m, params = list(w = ~ 2 * i))$x, rep(c(2, 4, 6, 8), 2))
  # with a scalar swept beside it
  both <- eparams_end(m, params = list(w = c(1, 2, 3, 4), a = c(0, 10)))
  expect_identical(attr(both, "ncond"), 2L)
  expect_identical(attr(both, "x"), c(rep(c(1, 2, 3, 4), 2), rep(c(11, 12, 13, 14), 2)))
})

test_that("a run-time value for a scalar parameter still works; wrong per-element values are errors naming params", {
  skip_if_no_cc()
  m <- eparams_model()
  end <- eparams_end(m, params = list(a = 2))
  expect_identical(end$x, rep(2, 8))
  sw <- eparams_end(m, params = list(a = c(1, 3)))
  expect_identical(attr(sw, "ncond"), 2L)
  expect_identical(attr(sw, "x"), rep(c(1, 3), each = 8))
  go <- function(p) eparams_end(m, params = p)
  expect_error(go(list(w = c(1, 2, 3))),
               "`params\\$w` \\(a parameter per element\\) must be 1 or n = 4 finite numbers, or a formula")
  expect_error(go(list(w = TRUE)),
               "`params\\$w` \\(a parameter per element\\) is .*; give 1 or n = 4 finite numbers, or a formula")
  expect_error(go(list(w = list(1, 2, 3, 4))), "`params\\$w` \\(a parameter per element\\)")
  # a data frame's rows are conditions: it holds no parameter per element
  expect_error(go(data.frame(a = c(1, 2, 3, 4), w = c(1, 2, 3, 4))),
               "`params` is a data frame, whose rows are conditions, and `w` is a parameter per element")
  expect_error(go(data.frame(w = c(1, 2, 3, 4))), "give `params` as a list")
})

test_that("single-particle models: whole numbers and TRUE as right-hand sides run as declared", {
  skip_if_no_cc()
  # before: `~ 1L` made sde_run() warn that the model differs, `~ TRUE` was
  # refused as "not a valid model" though sde_model() had made it
  m <- sde_model(drift = list(x = ~ a, y = ~ 2L, z = ~ TRUE), noise = list(x = ~ 0),
                 params = c(a = 1), name = "eparams-single")
  expect_no_warning(sde_code(m), class = "statphysgpu_model_rebuilt")
  r <- expect_no_warning(
    sde_run(m, 1, init = list(x = 0, y = 0, z = 0), dt = 0.5, t_max = 1, method = "euler",
            output = "trajectories", keep = 1, record_every = 2, seed = 1, backend = "cpu",
            precision = "double", params = list(a = c(3, 4))),
    class = "statphysgpu_model_rebuilt")
  end <- r[r$time == 1, ]
  expect_identical(end$a, c(3, 4))
  expect_identical(end$x, c(3, 4))
  expect_identical(end$y, c(2, 2))
  expect_identical(end$z, c(1, 1))
})

test_that("a continuation with other values per element is an error; with the same, it goes on", {
  skip_if_no_cc()
  m <- eparams_model()
  run <- function(w, init = list(x = 0)) {
    sde_run(m, 2, n = 4, init = init, dt = 0.5, t_max = 1, method = "euler",
            output = "trajectories", record_every = 2, params = list(w = w), seed = 3,
            backend = "cpu", precision = "double")
  }
  a <- run(c(1, 2, 3, 4))
  b <- run(c(1, 2, 3, 4), init = a)
  expect_identical(as.vector(attr(b, "final")), rep(2 * c(1, 2, 3, 4), 2))
  expect_error(run(c(4, 3, 2, 1), init = a), "ran other values of the parameters per element")
  expect_error(sde_run(m, 2, n = 4, init = a, dt = 0.5, t_max = 1, method = "euler",
                       output = "trajectories", record_every = 2, seed = 3, backend = "cpu",
                       precision = "double"),
               "ran other values of the parameters per element")
})
