# broom methods (tidy, glance), posterior draws, the thread default that
# follows the job's allocation, and the package's metadata.

test_that("tidy() and glance() of arrhenius_fit give the fit's numbers", {
  skip_if_not_installed("generics")
  theta <- c(0.004, 0.005, 0.006, 0.008, 0.010)
  set.seed(5)
  tau <- 30 / theta * exp(0.0342 / theta) * exp(rnorm(5, sd = 0.02))
  fit <- arrhenius_fit(theta, tau, prefactor_power = 1, tau_se = 0.02 * tau)
  td <- generics::tidy(fit, conf.int = TRUE, conf.level = 0.9)
  expect_identical(td$term, c("intercept", "barrier"))
  expect_equal(td$estimate, unname(coef(fit)))
  expect_equal(td$std.error, c(fit$intercept_se, fit$barrier_se))
  expect_equal(unname(as.matrix(td[c("conf.low", "conf.high")])),
               unname(confint(fit, level = 0.9)))
  gl <- generics::glance(fit)
  expect_equal(nrow(gl), 1)
  expect_equal(gl$chisq, fit$chisq)
  expect_equal(gl$p.value, fit$p_value)
  # without errors: Student t on df, as confint()
  fit0 <- arrhenius_fit(theta, tau)
  td0 <- generics::tidy(fit0, conf.int = TRUE)
  expect_equal(unname(as.matrix(td0[c("conf.low", "conf.high")])), unname(confint(fit0)))
  expect_equal(td0$p.value, unname(summary(fit0$fit)$coefficients[, 4]))
})

test_that("tidy() and glance() of tts_estimate and tts_scaling", {
  skip_if_not_installed("generics")
  e <- tts_estimate(c(120, 340, 95, 800), solved = c(TRUE, TRUE, TRUE, FALSE))
  td <- generics::tidy(e)
  expect_identical(td$term, c("tts", "tau"))
  expect_equal(td$estimate, c(e$tts, e$tau_median))
  expect_equal(td$conf.high, c(e$tts_upper, e$tau_upper))
  gl <- generics::glance(e)
  expect_equal(c(gl$runs, gl$solved), c(4, 3))
  s <- tts_scaling(c(16, 32, 64, 128), c(10, 30, 95, 290))
  ts <- generics::tidy(s, conf.int = TRUE)
  expect_identical(ts$term, c("slope", "intercept"))
  expect_equal(ts$estimate, unname(coef(s)))
  expect_equal(ts$std.error, unname(s$se))
  expect_equal(generics::glance(s)$r.squared, summary(s$fit)$r.squared)
})

test_that("tidy() and glance() of reblock and AMS estimates", {
  skip_if_not_installed("generics")
  set.seed(3)
  y <- as.numeric(stats::filter(rnorm(2048), 0.6, method = "recursive"))
  r <- reblock(y)
  td <- generics::tidy(r)
  expect_equal(td$estimate, r$mean)
  expect_equal(td$std.error, r$se)
  gl <- generics::glance(r)
  expect_equal(gl$std.error, r$se[r$optimal])
  a <- structure(data.frame(theta = c(0.1, 0.2), p = c(1e-3, 1e-2), p_se = c(1e-4, 1e-3),
                            mfpt = c(50, 5), mfpt_se = c(5, 0.5), rate = c(0.02, 0.2),
                            rate_se = c(0.002, 0.02), replicas = c(8L, 8L)),
                 class = c("escape_rate_ams", "data.frame"))
  ta <- generics::tidy(a)
  expect_identical(ta$term, rep(c("p", "mfpt", "rate"), each = 2))
  expect_equal(ta$theta, rep(c(0.1, 0.2), 3))
  expect_equal(ta$std.error[ta$term == "mfpt"], c(5, 0.5))
  expect_equal(generics::glance(a)$replicas, 16)
})

test_that("the thread default follows the cores the job was given, never more", {
  skip_if_not(statphysgpu:::threads_info()$openmp, "built without OpenMP")
  old <- sp_threads()
  on.exit(suppressWarnings(sp_threads(old)), add = TRUE)
  withr::local_envvar(STATPHYSGPU_NUM_THREADS = NA)
  suppressWarnings(sp_threads(2))
  expect_identical(statphysgpu:::threads_follow_allocation(function() 1L), 1L)
  expect_identical(sp_threads(), 1L)
  sp_threads(1)
  expect_identical(statphysgpu:::threads_follow_allocation(function() 64L), 1L) # not raised
  expect_identical(statphysgpu:::threads_follow_allocation(function() stop("no")), 1L)
  suppressWarnings(sp_threads(2))
  withr::local_envvar(STATPHYSGPU_NUM_THREADS = "2") # the user's count is kept
  expect_identical(statphysgpu:::threads_follow_allocation(function() 1L), sp_threads())
  if (requireNamespace("parallelly", quietly = TRUE)) {
    withr::local_envvar(STATPHYSGPU_NUM_THREADS = NA)
    expect_lte(statphysgpu:::threads_follow_allocation(), parallelly::availableCores())
  }
})

test_that("DESCRIPTION states the platform and the optional run-time CUDA", {
  d <- utils::packageDescription("statphysgpu")
  expect_identical(d$OS_type, "unix")
  expect_match(d$SystemRequirements, "NVRTC", fixed = TRUE)
  expect_match(d$SystemRequirements, "[Oo]ptional")
  expect_match(d$Suggests, "parallelly", fixed = TRUE)
  expect_match(d$Suggests, "future", fixed = TRUE)
})

test_that("posterior::as_draws() of VMC blocks: one chain per walker", {
  skip_if_not_installed("posterior")
  x <- he4_vmc(16, replicas = 2, blocks = 4, block_sweeps = 2, equilibration = 2,
               backend = "cpu", seed = 1, progress = FALSE)
  d <- posterior::as_draws(x, observables = c("energy", "acceptance"))
  expect_s3_class(d, "draws_array")
  expect_identical(posterior::nchains(d), 2L)
  expect_identical(posterior::niterations(d), 4L)
  expect_identical(posterior::variables(d), c("energy", "acceptance"))
  b <- as.data.frame(x)
  expect_equal(as.numeric(d[, 2, "energy"]), b$energy[b$replica == 2])
})

test_that("without /proc the memory check falls back to no limit", {
  none <- tempfile()
  expect_identical(statphysgpu:::available_memory(none, none, none), Inf)
})

test_that("a summary's column `n`, now `replicas`, is still read by [ and $", {
  x <- escape_times(20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.05,
                    t_max = 50, seed = 1, backend = "cpu", progress = FALSE)
  s <- summary(x)
  expect_warning(v <- s[, c("gamma", "n")], class = "statphysgpu_deprecated")
  expect_identical(names(v), c("gamma", "replicas"))
  expect_warning(expect_identical(s[["n"]], 20L), class = "statphysgpu_deprecated")
})
