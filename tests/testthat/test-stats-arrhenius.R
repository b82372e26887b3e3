# arrhenius_fit(): log(theta^p <tau>) = c + Delta U / theta (Eqs. 12-14 of
# Pierro et al. 2018), ordinary or weighted least squares.

theta <- c(0.004, 0.005, 0.006, 0.007, 0.008, 0.010)
dU <- 0.0342
c0 <- 3.2

test_that("noiseless data are recovered exactly, for any prefactor power", {
  for (p in c(0, 1, 0.5, -1)) {
    tau <- exp(c0 + dU / theta) / theta^p
    for (se in list(NULL, 0.03 * tau)) {
      fit <- arrhenius_fit(theta, tau, prefactor_power = p, tau_se = se)
      expect_s3_class(fit, "arrhenius_fit")
      expect_equal(fit$barrier, dU, tolerance = 1e-10)
      expect_equal(fit$intercept, c0, tolerance = 1e-10)
      expect_lt(max(abs(fit$residuals)), 1e-10)
      expect_equal(fit$df, 4)
      expect_equal(predict(fit), tau, tolerance = 1e-10)
      expect_equal(unname(coef(fit)), c(c0, dU), tolerance = 1e-10)
    }
  }
  # the wrong prefactor power biases the barrier (the point of Eq. 13):
  # fitting theta^-1 e^(dU/theta) without the prefactor gives dU + <theta>-ish
  tau <- exp(c0 + dU / theta) / theta
  expect_gt(arrhenius_fit(theta, tau, 0)$barrier, dU * 1.05)
})

test_that("the WLS estimate is within 3 standard errors at a fixed seed", {
  set.seed(101)
  sig <- c(0.02, 0.03, 0.03, 0.04, 0.05, 0.08) # SE of log tau
  tau <- exp(c0 + dU / theta + rnorm(6, sd = sig)) / theta
  fit <- arrhenius_fit(theta, tau, prefactor_power = 1, tau_se = sig * tau)
  z_b <- (fit$barrier - dU) / fit$barrier_se
  z_c <- (fit$intercept - c0) / fit$intercept_se
  expect_lt(abs(z_b), 3)
  expect_lt(abs(z_c), 3)
  expect_true(fit$weighted)
  # chi-square of 4 df: p-value in (0.001, 0.999) unless the errors are wrong
  expect_gt(fit$p_value, 0.001)
  expect_lt(fit$p_value, 0.999)
  ci <- confint(fit, level = 0.99)
  expect_equal(ci["barrier", 2] - ci["barrier", 1], 2 * qnorm(0.995) * fit$barrier_se)
})

test_that("the realistic case, tau from samples of exponential escape times, passes at z < 3", {
  # <tau> = mean of N escape times drawn from Exp(1/tau_true); tau_se = sd/sqrt(N)
  set.seed(202)
  N <- 400
  tau_true <- exp(c0 + dU / theta) / theta
  samples <- lapply(tau_true, function(m) rexp(N, 1 / m))
  tau <- vapply(samples, mean, 0)
  tau_se <- vapply(samples, sd, 0) / sqrt(N)
  fit <- arrhenius_fit(theta, tau, 1, tau_se)
  expect_lt(abs((fit$barrier - dU) / fit$barrier_se), 3)
})

test_that("the standard errors agree with the spread over repetitions", {
  set.seed(303)
  R <- 500
  sig <- rep(0.05, 6)
  # WLS with known errors: the SE is fixed by the design, and the estimates
  # are exactly normal with that SD, so (R-1) s^2 / SE^2 ~ chi-square(R-1).
  # Accept between its 0.05% and 99.95% points (false alarm 1 in 1000; an
  # SE 15% too small or 20% too large fails with probability > 0.97).
  est <- numeric(R); se <- numeric(R)
  for (r in seq_len(R)) {
    tau <- exp(c0 + dU / theta + rnorm(6, sd = sig))
    f <- arrhenius_fit(theta, tau, 0, tau_se = sig * tau)
    est[r] <- f$barrier; se[r] <- f$barrier_se
  }
  expect_lt(diff(range(se)) / mean(se), 1e-12)
  stat <- (R - 1) * var(est) / se[1]^2
  expect_gt(stat, qchisq(5e-4, R - 1))
  expect_lt(stat, qchisq(1 - 5e-4, R - 1))
  # and the mean is unbiased: |z| of the average below 3.3
  expect_lt(abs(mean(est) - dU) / (se[1] / sqrt(R)), 3.3)

  # OLS: (estimate - truth)/se is exactly Student t on 4 df, so the count of
  # |t| < qt(0.975, 4) is Binomial(R, 0.95): accept qbinom(5e-4)..qbinom(1-5e-4)
  inside <- logical(R)
  for (r in seq_len(R)) {
    tau <- exp(c0 + dU / theta + rnorm(6, sd = 0.05))
    f <- arrhenius_fit(theta, tau)
    inside[r] <- abs(f$barrier - dU) / f$barrier_se < qt(0.975, 4)
  }
  expect_gte(sum(inside), qbinom(5e-4, R, 0.95))
  expect_lte(sum(inside), qbinom(1 - 5e-4, R, 0.95))
})

test_that("methods: print, coef, vcov, confint", {
  tau <- exp(c0 + dU / theta + c(0.01, -0.02, 0.015, 0, -0.01, 0.02))
  fit <- arrhenius_fit(theta, tau)
  expect_false(fit$weighted)
  expect_true(is.na(fit$chisq))
  # OLS agrees with lm()
  m <- lm(log(tau) ~ I(1 / theta))
  expect_equal(unname(coef(fit)), unname(coef(m)), tolerance = 1e-8)
  expect_equal(unname(vcov(fit)), unname(vcov(m)), tolerance = 1e-8)
  expect_equal(unname(confint(fit)), unname(confint(m)), tolerance = 1e-8)
  expect_equal(rownames(confint(fit, "barrier")), "barrier")
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, "barrier DeltaU")
  expect_match(out, "Ordinary least squares")
  fitw <- arrhenius_fit(theta, tau, tau_se = 0.02 * tau)
  expect_match(paste(capture.output(print(fitw)), collapse = "\n"), "chi-square = .* on 4 df")
  expect_error(confint(fit, "slope"), "`parm` must name coefficients")
  expect_error(confint(fit, level = 2), "`level` must be")
})

test_that("arrhenius_fit() validates its arguments", {
  tau <- exp(c0 + dU / theta)
  expect_error(arrhenius_fit(theta[1:2], tau[1:2]), "`theta` must have at least 3 points",
               class = "statphysgpu_error")
  expect_error(arrhenius_fit(c(-1, theta[-1]), tau), "`theta` must be .* positive")
  expect_error(arrhenius_fit(theta, tau[-1]), "`tau` must be a numeric vector of length 6")
  expect_error(arrhenius_fit(theta, c(NA, tau[-1])), "`tau` must be .* not NA")
  expect_error(arrhenius_fit(theta, c(0, tau[-1])), "`tau` must be .* not 0")
  expect_error(arrhenius_fit(theta, tau, prefactor_power = NA), "`prefactor_power` must be a single finite number")
  expect_error(arrhenius_fit(theta, tau, prefactor_power = 1:2), "`prefactor_power` must be a single")
  expect_error(arrhenius_fit(theta, tau, tau_se = rep(-1, 6)), "`tau_se` must be")
  expect_error(arrhenius_fit(theta, tau, tau_se = 1), "`tau_se` must be a numeric vector of length 6")
  expect_error(arrhenius_fit(rep(0.01, 4), rep(1, 4)), "at least 2 distinct temperatures")
})

test_that("the fit is lm(weights = ) and gives the numbers of the hand-written weighted fit", {
  set.seed(11)
  tau <- exp(c0 + dU / theta + rnorm(6, sd = 0.05)) / theta
  for (se in list(NULL, 0.05 * tau * (1 + seq_along(tau) / 6))) {
    fit <- arrhenius_fit(theta, tau, prefactor_power = 1, tau_se = se)
    expect_s3_class(fit$fit, "lm")
    # the weighted least squares of earlier versions, by hand (QR of sqrt(w) X)
    y <- log(theta) + log(tau)
    w <- if (is.null(se)) rep(1, 6) else (tau / se)^2
    X <- cbind(1, 1 / theta)
    q <- qr(X * sqrt(w))
    b <- qr.coef(q, y * sqrt(w))
    Ri <- backsolve(qr.R(q), diag(2))
    cu <- Ri %*% t(Ri)
    r <- y - drop(X %*% b)
    V <- if (is.null(se)) sum(r^2) / 4 * cu else cu
    expect_equal(c(fit$intercept, fit$barrier), unname(b), tolerance = 1e-12)
    expect_equal(unname(fit$vcov), V, tolerance = 1e-10)
    expect_equal(fit$residuals, r, tolerance = 1e-10)
    if (!is.null(se)) expect_equal(fit$chisq, sum(w * r^2), tolerance = 1e-10)
    if (is.null(se)) expect_equal(unname(fit$vcov), unname(vcov(fit$fit)), tolerance = 1e-10)
  }
})
