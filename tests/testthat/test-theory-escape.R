# Barrier, escape rates, Fulton-Dunkleberger switching distribution and the
# Smoluchowski mean first-passage time (REFERENCES.md Sec. 2).

# Straight transcription of the rate formulas of REFERENCES.md Sec. 2, on the
# log scale (used as the independent reference below).
log_rate_ref <- function(g, V0, beta, theta, prefactor = "kramers") {
  dU <- 2 * V0 * (sqrt(1 - g^2) - g * acos(g))
  w0 <- sqrt(V0) * (1 - g^2)^(1 / 4)
  a <- if (prefactor == "kramers") {
    sqrt(1 + (beta / (2 * w0))^2) - beta / (2 * w0)
  } else {
    4 / (sqrt(1 + (w0 / beta) * theta / (1.8 * dU)) + 1)^2
  }
  log(a) + log(w0 / (2 * pi)) - dU / theta
}

# The device of Fig. 11(b) of Pierro et al. (2018), swept at "200 Hz".
paper <- list(V0 = 210.979, beta = 4.108236, theta = 14.19928, ramp = 1.807624e-8)

test_that("barrier_height() matches the Fig. 10 anchor and the limits", {
  # 0.0342 as quoted (half a unit of the last digit)
  expect_lte(abs(barrier_height(0.5, 0.05) - 0.0342), 0.00005)
  expect_equal(barrier_height(c(0, 1), 3), c(6, 0))
  expect_equal(barrier_height(0.3, c(1, 2, 4)), barrier_height(0.3, 1) * c(1, 2, 4))
})

test_that("barrier_height() keeps its relative accuracy as gamma -> 1", {
  # Independent: Delta U = V0 * int_{phi0}^{phi*} (sin(phi) - gamma) dphi, with
  # sin(phi) - sin(phi0) = 2 cos((phi + phi0)/2) sin((phi - phi0)/2), which
  # has no cancellation, integrated to 1e-13 relative.
  ref <- function(g, V0) {
    p0 <- asin(g)
    f <- function(p) 2 * cos((p + p0) / 2) * sin((p - p0) / 2)
    V0 * integrate(f, p0, pi - p0, rel.tol = 1e-13)$value
  }
  for (g in c(0.1, 0.5, 0.96, 0.97, 0.99, 1 - 1e-4, 1 - 1e-6, 1 - 1e-9)) {
    expect_equal(barrier_height(g, 2), ref(g, 2), tolerance = 1e-11)
  }
  # leading term (4 sqrt(2) / 3) V0 eps^(3/2), relative correction O(eps)
  eps <- 1e-10
  expect_equal(barrier_height(1 - eps, 1), 4 * sqrt(2) / 3 * eps^1.5,
               tolerance = 1e-9)
})

test_that("barrier_height() validates its arguments", {
  expect_error(barrier_height(1.2, 1),
               "`gamma` must be a numeric vector of finite numbers in \\[0, 1\\], not 1.2",
               class = "statphysgpu_error")
  expect_error(barrier_height(-0.1, 1), "`gamma` must be .* not -0.1")
  expect_error(barrier_height(NA, 1), "`gamma` must be .* not NA")
  expect_error(barrier_height(0.5, 0), "`V0` must be .* positive")
  expect_error(barrier_height(0.5, c(1, NaN)), "`V0` must be")
  expect_error(barrier_height(c(0.1, 0.2), c(1, 2, 3)), "cannot be recycled")
})

test_that("escape_rate() equals the formulas of REFERENCES.md", {
  g <- c(0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99)
  for (pf in c("kramers", "bhl")) {
    r <- escape_rate(g, V0 = 211, beta = 4.1, theta = 14.2, prefactor = pf)
    expect_equal(log(r), log_rate_ref(g, 211, 4.1, 14.2, pf), tolerance = 1e-12)
  }
  # recycling over all four arguments
  r <- escape_rate(0.4, V0 = c(10, 20), beta = c(0.1, 1, 10, 100), theta = 2)
  expect_equal(log(r), log_rate_ref(0.4, c(10, 20, 10, 20), c(0.1, 1, 10, 100), 2),
               tolerance = 1e-12)
  expect_equal(escape_rate(0.4, 10, 1, 2), escape_rate(0.4, 10, 1, 2, "kramers"))
})

test_that("the Kramers prefactor has the right damping limits", {
  # weak damping: a -> 1 (transition state theory); strong: a -> omega_b / beta
  g <- 0.5; V0 <- 4; theta <- 0.1
  w0 <- sqrt(V0) * (1 - g^2)^0.25
  tst <- w0 / (2 * pi) * exp(-barrier_height(g, V0) / theta)
  expect_equal(escape_rate(g, V0, 1e-8, theta) / tst, 1, tolerance = 1e-8)
  # a = omega_b / beta (1 - (omega_b/beta)^2 + ...): relative O(1e-12) at beta = 1e6
  expect_equal(escape_rate(g, V0, 1e6, theta) / (tst * w0 / 1e6), 1, tolerance = 1e-10)
  # no cancellation at huge beta (the naive formula returns 0 there)
  expect_gt(escape_rate(g, V0, 1e12, theta), 0)
})

test_that("escape_rate() stays finite and positive up to gamma -> 1", {
  g <- 1 - 10^-(1:12)
  for (pf in c("kramers", "bhl")) {
    r <- escape_rate(g, 100, 1, 1, pf)
    expect_true(all(is.finite(r) & r > 0))
  }
})

test_that("escape_rate() validates its arguments", {
  expect_error(escape_rate(1, 1, 1, 1),
               "`gamma` must be a numeric vector of finite numbers in \\[0, 1\\), not 1",
               class = "statphysgpu_error")
  expect_error(escape_rate(-1, 1, 1, 1), "`gamma` must be .* \\[0, 1\\)")
  expect_error(escape_rate(0.5, -1, 1, 1), "`V0` must be .* positive")
  expect_error(escape_rate(0.5, 1, 0, 1), "`beta` must be .* positive")
  expect_error(escape_rate(0.5, 1, 1, Inf), "`theta` must be .* not Inf")
  expect_error(escape_rate(0.5, 1, 1, NA), "`theta` must be .* not NA")
  expect_error(escape_rate(0.5, 1, 1, 1, prefactor = "foo"),
               '`prefactor` must be one of "kramers", "bhl", "mm", not "foo"')
  expect_error(escape_rate(c(0.1, 0.2), 1, 1:3, 1), "cannot be recycled")
  e <- tryCatch(escape_rate(2, 1, 1, 1), error = identity)
  expect_identical(conditionCall(e)[[1]], as.name("escape_rate"))
})

# (1/v) int_{g0}^{g} Gamma from a switching_distribution() row, recovered
# without loss of precision: from the CDF while it is below 1/2, from the
# density (which carries exp(-J) on the log scale) beyond.
J_from <- function(sd, log_rate_over_v) {
  ifelse(sd$cdf < 0.5, -log1p(-sd$cdf), log_rate_over_v - log(sd$density))
}

test_that("switching_distribution() integrates the rate to 1e-6 relative (paper's device)", {
  p <- paper
  g <- c(0.1, 0.2, 0.3, 0.33, 0.35, 0.37, 0.4, 0.45)
  for (pf in c("kramers", "bhl")) {
    sd <- switching_distribution(g, p$ramp, p$V0, p$beta, p$theta, prefactor = pf)
    J <- J_from(sd, log_rate_ref(g, p$V0, p$beta, p$theta, pf) - log(p$ramp))
    # independent: integrate() of escape_rate() at 1e-12 relative tolerance
    J_ref <- vapply(g, function(gi) integrate(function(x)
      escape_rate(x, p$V0, p$beta, p$theta, pf) / p$ramp, 0, gi,
      rel.tol = 1e-12, subdivisions = 1000L)$value, numeric(1))
    expect_lt(max(abs(J / J_ref - 1)), 1e-6)
  }
})

test_that("switching_distribution() is accurate when the rate spans 600 decades", {
  # V0 / theta = 500: Gamma(0) ~ e^-1000 (below the smallest double) and
  # Gamma(0.999) ~ e^-0.1.  Reference: the log of sum_k int over a fine
  # partition, each piece scaled by its right end, by integrate() on the
  # transcribed log-rate.
  V0 <- 1000; beta <- 0.5; theta <- 2; v <- 1e-9
  g <- c(0.05, 0.3, 0.6, 0.8, 0.9, 0.92, 0.95, 0.97)
  sd <- switching_distribution(g, v, V0, beta, theta)
  lr <- function(x) log_rate_ref(x, V0, beta, theta) - log(v)
  edges <- sort(unique(c(0, seq(0, 0.97, by = 0.01), g)))
  piece <- vapply(seq_len(length(edges) - 1), function(k) {
    a <- edges[k]; b <- edges[k + 1]
    lr(b) + log(integrate(function(x) exp(lr(x) - lr(b)), a, b,
                          rel.tol = 1e-12)$value)
  }, numeric(1))
  cum <- cumsum(exp(piece - max(piece))) # log scale shifted
  logJ_ref <- log(cum) + max(piece)
  logJ_ref <- logJ_ref[match(g, edges[-1])]
  # J spans e^-900 .. e^+900: compare J wherever it and exp(-J) are
  # representable doubles; beyond, the CDF must be exactly 0 or 1.
  J <- exp(logJ_ref)
  small <- J < 1e-300
  large <- J > 700
  expect_true(any(small) && any(large))
  expect_true(all(sd$cdf[small] == 0))
  expect_true(all(sd$cdf[large] == 1 & sd$density[large] < 1e-300))
  ok <- !small & !large
  expect_gte(sum(ok), 5)
  expect_lt(max(abs(J_from(sd[ok, ], lr(g[ok])) / J[ok] - 1)), 1e-6)
})

test_that("switching_distribution() is accurate next to gamma = 1", {
  # a fast ramp keeps the CDF below 1 up to gamma -> 1
  V0 <- 50; beta <- 1; theta <- 0.5; v <- 1
  g <- c(0.9, 0.99, 0.999, 0.99999, 1 - 1e-8)
  sd <- switching_distribution(g, v, V0, beta, theta)
  J_ref <- vapply(g, function(gi) integrate(function(x)
    escape_rate(x, V0, beta, theta) / v, 0, gi, rel.tol = 1e-12,
    subdivisions = 1000L)$value, numeric(1))
  J <- J_from(sd, log_rate_ref(g, V0, beta, theta) - log(v))
  expect_lt(max(abs(J / J_ref - 1)), 1e-6)
  expect_true(all(sd$cdf < 1))
})

test_that("the density integrates to the CDF difference", {
  p <- paper
  dens <- function(x) switching_distribution(x, p$ramp, p$V0, p$beta, p$theta)$density
  for (ab in list(c(0.25, 0.35), c(0.34, 0.42), c(0, 0.6))) {
    sd <- switching_distribution(ab, p$ramp, p$V0, p$beta, p$theta)
    q <- integrate(dens, ab[1], ab[2], rel.tol = 1e-10, subdivisions = 500L)$value
    expect_equal(q, diff(sd$cdf), tolerance = 1e-8)
  }
})

test_that("the CDF is monotone in [0, 1], respects gamma0 and keeps the input order", {
  p <- paper
  g <- seq(0, 0.999, by = 0.001)
  sd <- switching_distribution(g, p$ramp, p$V0, p$beta, p$theta)
  expect_identical(names(sd), c("gamma", "density", "cdf"))
  expect_true(all(diff(sd$cdf) >= 0))
  expect_true(all(sd$cdf >= 0 & sd$cdf <= 1 & sd$density >= 0))
  expect_equal(sd$cdf[1], 0)
  expect_equal(sd$cdf[length(g)], 1)
  set.seed(1)
  o <- sample(length(g))
  sd2 <- switching_distribution(g[o], p$ramp, p$V0, p$beta, p$theta)
  expect_identical(sd2$gamma, g[o])
  expect_equal(sd2$cdf, sd$cdf[o], tolerance = 1e-12)
  expect_equal(attr(sd, "ramp"), p$ramp)
  expect_identical(attr(sd, "prefactor"), "kramers")
  # starting the ramp at gamma0: zero below, and conditional above, since
  # J_{g0}(g) = J_0(g) - J_0(g0)
  g0 <- 0.3
  s0 <- switching_distribution(c(0.2, 0.3, 0.32, 0.35), p$ramp, p$V0, p$beta,
                               p$theta, gamma0 = g0)
  expect_equal(s0$cdf[1:2], c(0, 0))
  expect_equal(s0$density[1], 0)
  full <- switching_distribution(c(g0, 0.32, 0.35), p$ramp, p$V0, p$beta, p$theta)
  expect_equal(1 - s0$cdf[3:4], (1 - full$cdf[2:3]) / (1 - full$cdf[1]),
               tolerance = 1e-9)
})

test_that("the paper's device switches where Gamma / v = kappa ln 2", {
  # With L = ln Gamma and kappa = L', L2 = L'', L3 = L''' at g, expanding L
  # about g gives int_{-Inf}^g Gamma = Gamma(g)/kappa (1 + L2/kappa^2
  # - L3/kappa^3 + 3 L2^2/kappa^4 + ...), the lower limit gamma0 = 0 adding
  # only Gamma(0)/Gamma(g_med) ~ 1e-8 relative.  At the median the integral
  # is v ln 2, so Gamma(g_med) / v = kappa ln 2 / (1 + L2/kappa^2 + ...):
  # the switching current sits where Gamma / v is of order kappa (~36 here,
  # "Gamma / v ~ 1" on a log scale).  Check: ratio (1 + L2/kappa^2) - 1 is
  # below twice the size of the next two terms.
  p <- paper
  cdf <- function(x) switching_distribution(x, p$ramp, p$V0, p$beta, p$theta)$cdf
  g_med <- uniroot(function(x) cdf(x) - 0.5, c(0.2, 0.5), tol = 1e-13)$root
  L <- function(x) log_rate_ref(x, p$V0, p$beta, p$theta)
  h <- 1e-3
  kappa <- (L(g_med + h) - L(g_med - h)) / (2 * h)
  L2 <- (L(g_med + h) - 2 * L(g_med) + L(g_med - h)) / h^2
  L3 <- (L(g_med + 2 * h) - 2 * L(g_med + h) + 2 * L(g_med - h) -
           L(g_med - 2 * h)) / (2 * h^3)
  ratio <- exp(L(g_med)) / p$ramp / (kappa * log(2))
  expect_lt(abs(L2) / kappa^2, 0.05) # the expansion parameter is small
  expect_lt(abs(ratio * (1 + L2 / kappa^2) - 1),
            2 * (3 * (L2 / kappa^2)^2 + abs(L3) / kappa^3))
  # and without the correction the ratio is off by about |L2|/kappa^2 = 2.5%
  expect_gt(abs(ratio - 1), 0.5 * abs(L2) / kappa^2)
  expect_gt(g_med, 0.3)
  expect_lt(g_med, 0.4)
})

test_that("switching_distribution() validates its arguments", {
  p <- paper
  expect_error(switching_distribution(1.2, 1e-8, 211, 4, 14),
               "`gamma` must be a numeric vector of finite numbers in \\[0, 1\\), not 1.2",
               class = "statphysgpu_error")
  expect_error(switching_distribution(c(0.1, NA), 1e-8, 211, 4, 14), "`gamma` must be .* not NA")
  expect_error(switching_distribution(0.5, 0, 211, 4, 14), "`ramp` must be a single positive finite number, not 0")
  expect_error(switching_distribution(0.5, -1, 211, 4, 14), "`ramp` must be")
  expect_error(switching_distribution(0.5, c(1, 2), 211, 4, 14), "`ramp` must be a single")
  expect_error(switching_distribution(0.5, NA_real_, 211, 4, 14), "`ramp` must be")
  expect_error(switching_distribution(0.5, 1e-8, 0, 4, 14), "`V0` must be a single positive")
  expect_error(switching_distribution(0.5, 1e-8, 211, -4, 14), "`beta` must be a single positive")
  expect_error(switching_distribution(0.5, 1e-8, 211, 4, Inf), "`theta` must be a single positive")
  expect_error(switching_distribution(0.5, 1e-8, 211, 4, 14, prefactor = "x"), "`prefactor` must be one of")
  expect_error(switching_distribution(0.5, 1e-8, 211, 4, 14, gamma0 = 1),
               "`gamma0` must be a single finite number in \\[0, 1\\), not 1")
  expect_error(switching_distribution(0.5, 1e-8, 211, 4, 14, gamma0 = c(0, 0.1)), "`gamma0` must be a single")
  e <- tryCatch(switching_distribution(0.5, 0, 211, 4, 14), error = identity)
  expect_identical(conditionCall(e)[[1]], as.name("switching_distribution"))
})

# Brute force for the Smoluchowski MFPT: a fine uniform grid from far below
# the well (where exp(-U/theta) is below 1e-16 of its peak) to the saddle,
# a cumulative trapezoid for the inner integral and a trapezoid for the
# outer, with the exponents combined (U(y) - U(phi*) and U(phi0) - U(z) are
# both <= 0, and Delta U / theta is added on the log scale).  Richardson
# extrapolation of grid steps h and h/2 removes the O(h^2) error.
mfpt_brute <- function(g, V0, beta, theta, n = 4000) {
  phi0 <- asin(g); phis <- pi - phi0
  U <- function(x) -V0 * (cos(x) + g * x)
  c2 <- 2 * pi * V0 * g / theta
  periods <- ceiling(40 / c2) + 1 # e^-40 of the well left out
  est <- function(n) {
    h <- (phis - phi0) / n
    m <- ceiling(2 * pi * periods / h)
    x <- phi0 + h * (-m:n) # phi0 and phis are grid points
    lf <- -(U(x) - U(phi0)) / theta
    f <- exp(lf)
    inner <- c(0, cumsum((f[-1] + f[-length(f)]) / 2) * h)
    y <- x >= phi0 - h / 2
    go <- exp((U(x[y]) - U(phis)) / theta) * inner[y]
    outer <- h * (sum(go) - (go[1] + go[length(go)]) / 2)
    log(beta / theta) + 2 * (V0 * (sqrt(1 - g^2) - g * acos(g))) / theta + log(outer)
  }
  a <- est(n); b <- est(2 * n)
  exp(b + (b - a) / 3) # Richardson on the log (same error expansion to O(h^4))
}

test_that("mfpt_smoluchowski() agrees with a brute-force double sum to 1e-6", {
  cases <- rbind(c(0.5, 1, 10, 0.1),     # Delta U / theta = 6.8
                 c(0.5, 1, 2, 0.01),     # Delta U / theta = 68
                 c(0.1, 1, 1, 0.3),      # weak tilt: 3 earlier wells matter
                 c(0.95, 4, 5, 0.02),    # near the critical current
                 c(0.3, 50, 1, 2))       # large V0
  for (i in seq_len(nrow(cases))) {
    cs <- cases[i, ]
    tau <- mfpt_smoluchowski(cs[1], cs[2], cs[3], cs[4])
    ref <- mfpt_brute(cs[1], cs[2], cs[3], cs[4])
    expect_lt(abs(tau / ref - 1), 1e-6)
  }
})

test_that("mfpt_smoluchowski() tends to 1/(2 Gamma_S) with the predicted corrections", {
  # With the threshold at the saddle, Laplace's method gives (see ?mfpt_smoluchowski)
  #   2 tau Gamma_S = 1 + c1 sqrt(theta/V0) + c2 theta/V0 + O((theta/V0)^1.5),
  #   c1 = gamma sqrt(2/pi) / (3 s^1.5),  c2 = 1/(4 s) + 5 gamma^2 / (12 s^3),
  # s = sqrt(1 - gamma^2): c1 from the cubic term of U at the saddle, which
  # the half-Gaussian there does not cancel; c2 from the quartic term and the
  # squared cubic term at the well and at the saddle.  So tau Gamma_S -> 1/2,
  # not 1, and the error is O(sqrt(theta / Delta U)).
  for (g in c(0.2, 0.5, 0.8)) {
    V0 <- 1; beta <- 10; s <- sqrt(1 - g^2)
    dU <- barrier_height(g, V0)
    k <- c(10, 40, 160, 640) # Delta U / theta
    theta <- dU / k
    tau <- mfpt_smoluchowski(g, V0, beta, theta)
    rate_S <- V0 * s / (2 * pi * beta) * exp(-dU / theta) # omega0 omega_b / (2 pi beta)
    r <- 2 * tau * rate_S - 1
    c1 <- g * sqrt(2 / pi) / (3 * s^1.5)
    c2 <- 1 / (4 * s) + 5 * g^2 / (12 * s^3)
    expect_true(all(diff(abs(r)) < 0)) # tau Gamma_S -> 1/2 monotonically
    expect_true(all(r > 0 & r < 3 * sqrt(theta / dU)))
    # after the sqrt term, the remainder is below theta / Delta U ...
    rem1 <- r - c1 * sqrt(theta / V0)
    expect_true(all(abs(rem1) < theta / dU))
    # ... and after the theta term, below (theta / Delta U)^1.5 (observed
    # coefficients 0.1-0.3; a wrong c2 would grow like sqrt(Delta U/theta))
    rem2 <- rem1 - c2 * theta / V0
    expect_true(all(abs(rem2) < (theta / dU)^1.5))
  }
})

test_that("mfpt_smoluchowski() is vectorised, overflows to Inf with a warning", {
  v <- mfpt_smoluchowski(c(0.3, 0.6), V0 = 1, beta = c(1, 2, 3, 4), theta = 0.1)
  one <- c(mfpt_smoluchowski(0.3, 1, 1, 0.1), mfpt_smoluchowski(0.6, 1, 2, 0.1),
           mfpt_smoluchowski(0.3, 1, 3, 0.1), mfpt_smoluchowski(0.6, 1, 4, 0.1))
  expect_equal(v, one)
  # tau is proportional to beta
  expect_equal(v[3] / v[1], 3)
  # Delta U / theta = 1370: tau ~ e^1370 overflows
  expect_warning(tau <- mfpt_smoluchowski(0.5, 1, 1, 5e-4), "exceed the largest double")
  expect_equal(tau, Inf)
})

test_that("mfpt_smoluchowski() validates its arguments", {
  expect_error(mfpt_smoluchowski(0, 1, 1, 1), "infinite", class = "statphysgpu_error")
  expect_error(mfpt_smoluchowski(c(0.5, 0), 1, 1, 1), "`gamma` must be in \\(0, 1\\), not 0.*infinite")
  expect_error(mfpt_smoluchowski(1, 1, 1, 1), "`gamma` must be .* in \\(0, 1\\), not 1")
  expect_error(mfpt_smoluchowski(-0.2, 1, 1, 1), "`gamma` must be .* \\(0, 1\\)")
  expect_error(mfpt_smoluchowski(NA, 1, 1, 1), "`gamma` must be .* not NA")
  expect_error(mfpt_smoluchowski(0.5, 0, 1, 1), "`V0` must be")
  expect_error(mfpt_smoluchowski(0.5, 1, -1, 1), "`beta` must be")
  expect_error(mfpt_smoluchowski(0.5, 1, 1, 0), "`theta` must be")
  expect_error(mfpt_smoluchowski(c(0.1, 0.2), 1, 1, c(1, 2, 3)), "cannot be recycled")
})
