# censored_mean() and exp_tail_rate(): means and exponential-tail rates of
# right-censored escape times.

# Coverage counts over 300 repetitions are Binomial(300, 0.95) for an exact
# 95% interval: mean 285, sd 3.77.  Accept [qbinom(0.001), qbinom(0.999)] =
# [272, 295] (two-sided false alarm 0.0013; an interval with true coverage
# 0.90 fails with probability 0.95).
cover_lo <- qbinom(0.001, 300, 0.95)
cover_hi <- qbinom(0.999, 300, 0.95)

# Escape times with a transient: 2 + Exp(rate 0.1), mean 12.  Stopping the
# simulation at 2 + log(5) / 0.1 = 18.09 censors 20% of the paths.
lam <- 0.1; shift <- 2; mu <- shift + 1 / lam
stop_at <- shift + log(5) / lam

test_that("without censoring censored_mean() is the sample mean with a CLT interval", {
  x <- c(1.5, 2.5, 3, 7, 11)
  m <- censored_mean(x, escaped = NULL)
  se <- sd(x) / sqrt(5)
  expect_equal(m$estimate, mean(x))
  expect_equal(m$se, se)
  expect_equal(c(m$lower, m$upper), mean(x) + c(-1, 1) * qnorm(0.975) * se)
  expect_match(m$method, "sample mean")
  expect_equal(censored_mean(x, rep(TRUE, 5), level = 0.9)$upper,
               mean(x) + qnorm(0.95) * se)
})

test_that("with censoring only beyond `from` the estimate is RMST + S(from) / rate", {
  set.seed(8)
  t <- shift + rexp(100, lam)
  v <- pmin(t, stop_at); e <- t <= stop_at
  from <- 9
  m <- censored_mean(v, e, from = from)
  rate <- sum(e & v > from) / sum(pmax(v - from, 0))
  expect_equal(m$tail_rate, rate)
  expect_equal(m$estimate, mean(pmin(v, from)) + mean(v > from) / rate)
  expect_equal(m$from, from)
  expect_identical(m$n_censored, sum(!e))
  expect_equal(c(m$lower, m$upper), m$estimate * exp(c(-1, 1) * qnorm(0.975) * m$se / m$estimate))
})

test_that("censored_mean() covers the true mean at the nominal rate (20% censored)", {
  set.seed(4242)
  n <- 200
  hit <- logical(300); hit_full <- logical(300); cens <- numeric(300)
  for (r in seq_along(hit)) {
    t <- shift + rexp(n, lam)
    v <- pmin(t, stop_at); e <- t <= stop_at
    cens[r] <- mean(!e)
    m <- censored_mean(v, e)
    hit[r] <- m$lower <= mu && mu <= m$upper
    f <- censored_mean(t, NULL) # the same paths, run to the end
    hit_full[r] <- f$lower <= mu && mu <= f$upper
  }
  expect_gt(mean(cens), 0.1); expect_lt(mean(cens), 0.3)
  expect_gte(sum(hit), cover_lo)
  expect_lte(sum(hit), cover_hi)
  expect_gte(sum(hit_full), cover_lo)
  expect_lte(sum(hit_full), cover_hi)
})

test_that("exp_tail_rate() computes events / exposure with the stated intervals", {
  v <- c(1, 2, 3, 4, 5, 6)
  e <- c(TRUE, TRUE, TRUE, TRUE, FALSE, TRUE)
  r <- exp_tail_rate(v, e) # from = lower median = 3; tail 4, 5 (censored), 6
  expect_equal(r$from, 3)
  expect_equal(r$events, 2)
  expect_equal(r$exposure, 1 + 2 + 3)
  expect_equal(r$n_tail, 3)
  expect_equal(r$rate, 2 / 6)
  expect_equal(r$lower, qchisq(0.025, 4) / 12)
  expect_equal(r$upper, qchisq(0.975, 6) / 12) # Garwood: censoring in the tail
  expect_match(r$method, "Garwood")
  # no censoring in the tail: exact chi-square(2d) at both ends
  r2 <- exp_tail_rate(v, rep(TRUE, 6), from = 2.5, level = 0.9)
  expect_equal(r2$events, 4)
  expect_equal(r2$exposure, 0.5 + 1.5 + 2.5 + 3.5)
  expect_equal(c(r2$lower, r2$upper), qchisq(c(0.05, 0.95), 8) / (2 * 8))
  expect_match(r2$method, "exact")
  # no escapes beyond `from`: rate 0, lower 0, upper from chi-square(2)
  r3 <- exp_tail_rate(v, c(rep(TRUE, 4), FALSE, FALSE), from = 4)
  expect_equal(c(r3$rate, r3$lower), c(0, 0))
  expect_equal(r3$upper, qchisq(0.975, 2) / (2 * 3))
})

test_that("exp_tail_rate() intervals cover the true rate", {
  # Uncensored: beyond an order statistic the excesses are i.i.d.
  # exponential (Renyi), so the chi-square interval is exact: two-sided
  # binomial check.  Censored: Garwood's interval is conservative, so only
  # the lower end is checked.
  set.seed(77)
  hit <- logical(300); hit_c <- logical(300)
  for (r in seq_along(hit)) {
    t <- shift + rexp(150, lam)
    x <- exp_tail_rate(t, NULL)
    hit[r] <- x$lower <= lam && lam <= x$upper
    y <- exp_tail_rate(pmin(t, stop_at), t <= stop_at)
    hit_c[r] <- y$lower <= lam && lam <= y$upper
  }
  expect_gte(sum(hit), cover_lo)
  expect_lte(sum(hit), cover_hi)
  expect_gte(sum(hit_c), cover_lo)
})

test_that("censored_mean() and exp_tail_rate() validate their arguments", {
  v <- c(1, 2, 3, 4, 5, 6); e <- c(TRUE, TRUE, FALSE, TRUE, FALSE, TRUE)
  expect_error(censored_mean(c(-1, v), c(TRUE, e)), "`value` must be .* non-negative",
               class = "statphysgpu_error")
  expect_error(censored_mean(c(NA, v), c(TRUE, e)), "`value` must be .* not NA")
  expect_error(censored_mean(v, e[-1]), "`escaped` must be a logical vector without NA of length 6")
  expect_identical(censored_mean(v, as.numeric(e)), censored_mean(v, e)) # 1/0 accepted
  expect_error(censored_mean(v, as.numeric(e) + 1), "`escaped` must be a logical")
  expect_error(censored_mean(v, e, level = 1.5), "`level` must be a single finite number in \\(0, 1\\)")
  expect_error(censored_mean(v, e, from = NA), "`from` must be a single finite number")
  expect_error(censored_mean(v, e, from = 10), "No values lie beyond `from`")
  expect_error(censored_mean(v, c(rep(TRUE, 4), FALSE, FALSE), from = 4), "No escapes lie beyond `from`")
  expect_error(censored_mean(3, NULL), "at least 2 values")
  expect_error(exp_tail_rate(v, e, from = 6), "No values lie beyond `from` = 6")
  expect_error(exp_tail_rate(v, e, level = 0), "`level` must be")
  expect_error(exp_tail_rate(c(v, Inf), c(e, TRUE)), "`value` must be .* not Inf")
  expect_error(exp_tail_rate(v, e, from = c(1, 2)), "`from` must be a single")
  e1 <- tryCatch(censored_mean(v, e, level = 2), error = identity)
  expect_identical(conditionCall(e1)[[1]], as.name("censored_mean"))
})

test_that("one default tail start works under heavy censoring, everywhere", {
  # 70% of the paths censored at t = 12: the lower median of all values is
  # the censoring time itself, beyond which nothing lies; the default is the
  # lower median of the escaped values, in every function and in summary()
  set.seed(5)
  t <- 0.5 + rexp(400, rate = 0.03)
  stop_at <- 12
  v <- pmin(t, stop_at)
  e <- t <= stop_at
  expect_gt(mean(!e), 0.6)
  r <- exp_tail_rate(v, e)
  expect_equal(r$from, sort(v[e])[ceiling(sum(e) / 2)])
  # events / exposure beyond it, and the rate is within its interval of 0.03
  expect_lt(r$lower, 0.03)
  expect_gt(r$upper, 0.03)
  m <- censored_mean(v, e)
  expect_equal(m$from, r$from)
  # the true mean 0.5 + 1/0.03 = 33.8 inside the 95% interval (p = 0.05 at
  # this fixed seed)
  expect_lt(m$lower, 0.5 + 1 / 0.03)
  expect_gt(m$upper, 0.5 + 1 / 0.03)
  # no escape at all: the rate is 0 with an upper limit from the whole exposure
  r0 <- exp_tail_rate(rep(stop_at, 50), rep(FALSE, 50))
  expect_equal(c(r0$from, r0$rate, r0$exposure), c(0, 0, 50 * stop_at))
})
