# tts_estimate() and tts_scaling(): Bayesian time to solution and its
# exponential scaling with the size.

test_that("tts_estimate() gives the inverse-gamma posterior of the mean TTS", {
  t <- c(0.3, 1.2, 0.7, 2, 2, 0.1)
  ok <- c(TRUE, TRUE, TRUE, FALSE, FALSE, TRUE) # two runs timed out at 2 s
  e <- tts_estimate(t, solved = ok)
  expect_s3_class(e, c("tts_estimate", "data.frame"))
  expect_equal(nrow(e), 1)
  k <- 4; T <- sum(t)
  expect_equal(c(e$runs, e$solved, e$total_seconds), c(6, k, T))
  expect_equal(c(e$shape, e$rate), c(0.5 + k, T))
  expect_equal(e$tau_mean, T / (k - 0.5))
  expect_equal(e$tau_median, 1 / qgamma(0.5, k + 0.5, T))
  expect_equal(c(e$tau_lower, e$tau_upper), 1 / qgamma(c(0.975, 0.025), k + 0.5, T))
  expect_equal(c(e$tts, e$tts_mean, e$tts_lower, e$tts_upper),
               log(100) * c(e$tau_median, e$tau_mean, e$tau_lower, e$tau_upper))
  expect_identical(e$prior, "jeffreys")
  # the posterior probabilities of the interval ends, through pinvgamma
  expect_equal(pgamma(1 / e$tau_lower, k + 0.5, T, lower.tail = FALSE), 0.025)
  # uniform prior, another success probability and credibility
  u <- tts_estimate(t, solved = ok, prior = "uniform", success = 0.9, credible = 0.8)
  expect_equal(u$shape, 1 + k)
  expect_equal(u$tau_mean, T / k)
  expect_equal(c(u$tau_lower, u$tau_upper), 1 / qgamma(c(0.9, 0.1), k + 1, T))
  expect_equal(u$tts, log(10) * u$tau_median)
  # all solved by default; the mean is undefined for shape <= 1
  a <- tts_estimate(c(1, 2, 3))
  expect_equal(a$shape, 3.5)
  z <- tts_estimate(c(5, 5), solved = c(FALSE, FALSE))
  expect_equal(z$shape, 0.5)
  expect_true(is.na(z$tau_mean) && is.na(z$tts_mean))
  expect_equal(z$tau_upper, 10 / qgamma(0.025, 0.5))
  expect_output(print(z), "mean undefined")
  expect_output(print(e), "4 of 6 runs solved")
  expect_output(print(e), "TTS99")
})

test_that("tts_estimate() reads the solver's result table", {
  runs <- data.frame(run = 1:5, sweeps = c(10, 20, 5, 40, 40),
                     seconds = c(0.1, 0.2, 0.05, 0.4, 0.4),
                     solved = c(TRUE, TRUE, TRUE, FALSE, FALSE), clone = c(3, 0, 17, NA, NA))
  class(runs) <- c("xorsat_tts", "data.frame")
  # sweeps by default when the table has them (issue 21, item 5), seconds on request
  expect_equal(tts_estimate(runs), tts_estimate(runs$sweeps, solved = runs$solved, unit = "sweeps"))
  expect_identical(tts_estimate(runs)$unit, "sweeps")
  expect_equal(tts_estimate(runs, unit = "seconds"),
               tts_estimate(runs$seconds, solved = runs$solved))
  expect_equal(tts_estimate(runs, unit = "seconds")$tau_median,
               tts_estimate(runs)$tau_median / 100) # 100 sweeps a second here
  expect_output(print(tts_estimate(runs)), "total time 115 sweeps")
  expect_output(print(tts_estimate(runs, unit = "seconds")), "total time 1.15 s")
  # a table with seconds only (code written before `unit`) still works
  old <- data.frame(seconds = runs$seconds, solved = runs$solved)
  expect_equal(tts_estimate(old), tts_estimate(runs, unit = "seconds"))
  expect_equal(tts_estimate(old)$total_seconds, 1.15)
  expect_error(tts_estimate(old, unit = "sweeps"), "must have columns `sweeps` and `solved` .*; it lacks `sweeps`")
  expect_error(tts_estimate(runs, unit = "minutes"), "`unit` must be one of \"sweeps\", \"seconds\"")
  expect_error(tts_estimate(runs, solved = runs$solved), "`solved` must be NULL when `x` is a data frame",
               class = "statphysgpu_error")
  expect_error(tts_estimate(runs[, c("run", "seconds")]), "lacks `solved`")
})

test_that("timed-out runs lower the estimated rate by their exposure", {
  t <- c(0.5, 1, 1.5, 2)
  base <- tts_estimate(t)
  more <- tts_estimate(c(t, 3, 3), solved = c(rep(TRUE, 4), FALSE, FALSE))
  expect_equal(more$solved, base$solved)
  expect_equal(more$rate, base$rate + 6) # the timeouts add to T, not to k
  expect_equal(more$shape, base$shape)
  expect_gt(more$tau_median, base$tau_median)
  expect_equal(more$tau_median / base$tau_median, (sum(t) + 6) / sum(t))
  # dropping the timed-out runs instead would bias the TTS low
  expect_lt(tts_estimate(t)$tau_upper, more$tau_upper)
})

test_that("the credible interval covers the true mean TTS at about the nominal rate", {
  # 400 samples of 30 runs, exponential with mean 2, timeout 3 (about 22%
  # of the runs time out).  Coverage counts are about Binomial(400, 0.95)
  # (exactly so for a frequentist-matching interval; Jeffreys' interval of
  # an exponential rate is close to it): mean 380, sd 4.36.  Accepted:
  # |z| < 3.5 (z = (hits - 380) / 4.36), i.e. 365..395.
  set.seed(303)
  tau <- 2; timeout <- 3; R <- 400
  hit <- logical(R); hit_u <- logical(R); cens <- numeric(R)
  for (r in seq_len(R)) {
    t <- rexp(30, 1 / tau)
    ok <- t <= timeout
    cens[r] <- mean(!ok)
    e <- tts_estimate(pmin(t, timeout), solved = ok)
    hit[r] <- e$tau_lower <= tau && tau <= e$tau_upper
    u <- tts_estimate(pmin(t, timeout), solved = ok, prior = "uniform")
    hit_u[r] <- u$tau_lower <= tau && tau <= u$tau_upper
  }
  expect_gt(mean(cens), 0.15); expect_lt(mean(cens), 0.3)
  z <- (sum(hit) - R * 0.95) / sqrt(R * 0.95 * 0.05)
  expect_lt(abs(z), 3.5)
  z_u <- (sum(hit_u) - R * 0.95) / sqrt(R * 0.95 * 0.05)
  expect_lt(abs(z_u), 3.5)
})

test_that("tts_estimate() validates its arguments", {
  expect_error(tts_estimate(c(1, -2)), "`x` must be a numeric vector of non-negative",
               class = "statphysgpu_error")
  expect_error(tts_estimate(c(1, NA)), "`x` must be .* not NA")
  expect_error(tts_estimate(numeric(0)), "`x` must be a non-empty numeric vector")
  expect_error(tts_estimate("a"), "`x` must be a non-empty numeric vector")
  expect_error(tts_estimate(c(0, 0)), "total time .* must be positive")
  expect_error(tts_estimate(c(1, 2), solved = TRUE), "`solved` must be a logical vector without NA of length 2")
  expect_error(tts_estimate(c(1, 2), success = 1), "`success` must be a single finite number in \\(0, 1\\)")
  expect_error(tts_estimate(c(1, 2), credible = 0), "`credible` must be a single finite number in \\(0, 1\\)")
  expect_error(tts_estimate(c(1, 2), prior = "flat"), "`prior` must be one of \"jeffreys\", \"uniform\"")
  expect_error(tts_estimate(data.frame(seconds = c(1, -1), solved = TRUE)),
               "`x\\$seconds` must be")
  expect_error(tts_estimate(data.frame(sweeps = c(1, NA), solved = TRUE)),
               "`x\\$sweeps` must be")
})

test_that("tts_scaling() recovers a known slope within its standard error", {
  set.seed(11)
  a <- 0.0171; b <- -5.9
  n <- rep(seq(64, 384, by = 32), each = 9)
  # lognormal instance-to-instance spread: the median instance follows the line
  tts <- 10^(a * n + b + rnorm(length(n), sd = 0.3))
  s <- tts_scaling(n, tts)
  expect_s3_class(s, "tts_scaling")
  expect_named(coef(s), c("slope", "intercept"))
  expect_equal(nrow(s$data), 11)
  expect_equal(s$data$count, rep(9L, 11))
  expect_equal(s$data$median_tts, as.numeric(tapply(tts, n, median)))
  expect_lt(abs(coef(s)[["slope"]] - a) / s$se[["slope"]], 4)
  expect_lt(abs(coef(s)[["intercept"]] - b) / s$se[["intercept"]], 4)
  expect_lt(s$se[["slope"]], 0.002)
  # the same as lm on the medians
  m <- lm(log10(s$data$median_tts) ~ s$data$n)
  expect_equal(unname(coef(s)), unname(coef(m))[2:1])
  expect_equal(unname(s$se), unname(sqrt(diag(vcov(m))))[2:1])
  expect_equal(unname(diag(vcov(s))), unname(s$se^2))
  # predictions: 10^(a n + b)
  expect_equal(predict(s, c(100, 500)), 10^(coef(s)[["slope"]] * c(100, 500) + coef(s)[["intercept"]]))
  p <- predict(s, 256, interval = "confidence")
  expect_equal(colnames(p), c("fit", "lwr", "upr"))
  expect_true(p[, "lwr"] < p[, "fit"] && p[, "fit"] < p[, "upr"])
  expect_output(print(s), "fit to the median TTS of 11 sizes")
  expect_output(print(tts_scaling(n, tts, unit = "sweeps")), "log10 TTS \\(in sweeps\\)")
  expect_error(tts_scaling(n, tts, unit = "s"), "`unit` must be one of")
  # one value per size: no medians, and weights act per size
  s1 <- tts_scaling(c(10, 20, 30, 40), 10^(0.05 * c(10, 20, 30, 40) + c(0, 0.01, -0.01, 0)),
                    weights = c(1, 2, 2, 1))
  expect_equal(coef(s1)[["slope"]], 0.05, tolerance = 0.01)
})

test_that("tts_scaling() validates its arguments", {
  expect_error(tts_scaling(c(1, 2, 3), c(1, 0, 2)), "`tts` must be a numeric vector of length 3 of positive",
               class = "statphysgpu_error")
  expect_error(tts_scaling(c(1, 2, 3), c(1, 2)), "`tts` must be a numeric vector of length 3")
  expect_error(tts_scaling(c(1, 2, 2), c(1, 2, 3)), "at least 3 distinct sizes .*; it has 2")
  expect_error(tts_scaling(1:4, 1:4, weights = c(1, 1)), "`weights` must be a numeric vector of length 4")
  expect_error(tts_scaling(1:4, 1:4, weights = c(1, 1, 0, 0)), "positive for at least 3 sizes")
  s <- tts_scaling(1:4, c(1, 3, 9, 30))
  expect_error(predict(s, NA), "`n` must be")
  expect_error(predict(s, 5, interval = "prediction"), "`interval` must be one of")
})
