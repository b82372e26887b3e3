# switching_rate(): the escape rate inverted from switching currents
# (Fulton-Dunkleberger, REFERENCES.md Sec. 2).

# A switching_currents() result made from given values (condition columns,
# attributes and class as escape_run() lays them out).
fake_switching <- function(value, escaped, ramp, V0 = 2, beta = 1, theta = 0.25,
                           gamma0 = 0, gamma_max = 1, condition = 1L) {
  n <- length(value)
  x <- data.frame(condition = condition, ramp = ramp, V0 = V0, beta = beta,
                  theta = theta, replica = seq_len(n), value = value,
                  escaped = escaped)
  attr(x, "gamma0") <- gamma0
  attr(x, "gamma_max") <- gamma_max
  attr(x, "threshold") <- "next_well"
  class(x) <- c("switching_currents", "sp_paths", "data.frame")
  x
}

# Exact draws of the switching bias for the hazard Gamma(g) / v with
# Gamma(g) = G0 exp(k (g - g0)): the cumulative hazard
# J(g) = G0 (e^(k (g - g0)) - 1) / (v k) equals an Exp(1) variable E at the
# switch, so g = g0 + log1p(v k E / G0) / k.  Censored at gmax, and a
# fraction `drop` of the paths independently censored at a uniform bias
# (as an interrupted run leaves them).
draw_exp_hazard <- function(n, G0, k, v, g0, gmax, drop = 0) {
  E <- stats::rexp(n)
  g <- g0 + log1p(v * k * E / G0) / k
  esc <- g <= gmax
  val <- pmin(g, gmax)
  cut <- stats::runif(n) < drop
  cut_at <- stats::runif(n, g0, gmax)
  early <- cut & cut_at < val
  val[early] <- cut_at[early]
  esc[early] <- FALSE
  list(value = val, escaped = esc)
}

# Standardised residuals of log rates against the truth, with the sd the
# interval implies (it is symmetric on the log scale).
std_resid <- function(r, truth) {
  sd_log <- log(r$upper / r$rate) / stats::qnorm(1 - (1 - attr(r, "level")) / 2)
  log(r$rate / truth) / sd_log
}

test_that("switching_rate() recovers a known exponential hazard within its intervals", {
  set.seed(20240611)
  G0 <- 2e-5; k <- 20; v <- 3e-4; g0 <- 0.3; gmax <- 0.62
  truth <- function(g) G0 * exp(k * (g - g0))
  d <- draw_exp_hazard(20000, G0, k, v, g0, gmax, drop = 0.05)
  x <- fake_switching(d$value, d$escaped, ramp = v, gamma0 = g0, gamma_max = gmax)
  expect_gt(sum(!d$escaped), 2000) # censoring at gmax and inside the range
  r <- switching_rate(x)
  K <- nrow(r)
  expect_gt(K, 20)
  z <- std_resid(r, truth(r$gamma))
  # Bin estimates are asymptotically independent (the conditional binomials
  # of a life table), so the number of intervals covering the truth is about
  # Binomial(K, 0.95): accept down to 3 sd below its mean.
  covered <- sum(r$lower <= truth(r$gamma) & truth(r$gamma) <= r$upper)
  expect_gte(covered, 0.95 * K - 3 * sqrt(K * 0.95 * 0.05))
  # sum of squared standardised residuals ~ chi^2_K; the precision-weighted
  # mean residual is N(0, 1/K) in z units
  expect_lt(sum(z^2), stats::qchisq(0.999, K))
  expect_lt(abs(mean(z)) * sqrt(K), 3)
  # kappa is the log-slope of the hazard
  expect_lt(abs(attr(r, "kappa")[["1"]] - k), 3)
})

test_that("wide bins: the rate is reported where exp(kappa g) equals its bin average", {
  # With x = kappa dg ~ 1.6 the bin average of the hazard exceeds its value
  # at the centre by (e^x - 1) / (x e^(x/2)) = 1.11; at the reported point it
  # matches.  Exact hazard, 40,000 draws, 5 bins.
  set.seed(7)
  G0 <- 2e-5; k <- 20; v <- 3e-4; g0 <- 0.3; gmax <- 0.7
  truth <- function(g) G0 * exp(k * (g - g0))
  d <- draw_exp_hazard(40000, G0, k, v, g0, gmax)
  x <- fake_switching(d$value, d$escaped, ramp = v, gamma0 = g0, gamma_max = gmax)
  r <- switching_rate(x, bins = 5)
  b <- attr(r, "breaks")[["1"]]
  dg <- diff(b)[1]
  expect_equal(attr(r, "width")[["1"]], dg)
  expect_gt(k * dg, 1.5)
  z <- std_resid(r, truth(r$gamma))
  expect_lt(max(abs(z)), 3.5)
  lo <- b[findInterval(r$gamma, b)]
  centre <- lo + dg / 2
  # the centre would be off by far more than the intervals allow
  zc <- std_resid(r, truth(centre))
  expect_gt(abs(mean(zc)) * sqrt(nrow(r)), 5)
  expect_true(all(r$gamma > centre)) # centre + kappa dg^2 / 24 > centre
})

test_that("switching_rate() recovers the Kramers rate sampled through switching_distribution()", {
  # Inverse-CDF sampling: J(g) = -log(1 - F(g)) on a fine grid, inverted by
  # linear interpolation (relative error of J below 1e-6 per cell); two
  # conditions in one result give two blocks.
  set.seed(99)
  V0 <- 2; beta <- 1; v <- 3e-4; g0 <- 0.3
  blocks <- lapply(1:2, function(i) {
    theta <- c(0.25, 0.3)[i]
    grid <- seq(g0, 0.95, length.out = 4001)
    J <- -log1p(-switching_distribution(grid, v, V0, beta, theta, gamma0 = g0)$cdf)
    E <- stats::rexp(6000)
    g <- stats::approx(J, grid, xout = E, rule = 2, ties = "ordered")$y
    fake_switching(g, rep(TRUE, length(g)), ramp = v, theta = theta, gamma0 = g0,
                   condition = i)
  })
  x <- rbind(as.data.frame(blocks[[1]]), as.data.frame(blocks[[2]]))
  attributes(x)[c("gamma0", "gamma_max", "threshold")] <- list(g0, 1, "next_well")
  class(x) <- class(blocks[[1]])
  r <- switching_rate(x)
  expect_identical(sort(unique(r$condition)), 1:2)
  for (i in 1:2) {
    ri <- r[r$condition == i, ]
    attr(ri, "level") <- attr(r, "level")
    th <- escape_rate(ri$gamma, V0, beta, ri$theta[1])
    z <- std_resid(ri, th)
    K <- nrow(ri)
    expect_lt(sum(z^2), stats::qchisq(0.999, K))
    expect_lt(abs(mean(z)) * sqrt(K), 3)
  }
  # without censoring the last bin (every path left switches) is dropped
  expect_true(all(attr(r, "dropped") >= 1))
})

test_that("a small switching_currents() run inverts to the Kramers rate", {
  # V0 = 2, beta = 1, theta = 0.25, ramp 3e-4 from gamma0 = 0.3 (thermal
  # start, threshold at the next well): 90 % of the switches between gamma =
  # 0.45 and 0.70, where Delta U / theta runs from 6.3 down to 2.5.  4,000
  # paths, 0.6 s on two cores (1.1 s CPU).  Bins where Delta U / theta >= 2.5
  # (Kramers' domain: gamma <= 0.70, 31 bins) are compared.
  # Kramers' rate takes the well as harmonic; the exact population of the
  # well, Z = int exp(-(U - U_min) / theta) over it, is larger, by 5-7 % at
  # these barriers (the leading finite-barrier correction, of relative order
  # theta / Delta U).  Measured over seeds 1-6: ln(simulated / Kramers) =
  # -0.04 .. -0.075 (statistical sd 0.017), and -0.022 .. +0.015 against
  # Kramers with the exact well population.  So: against Kramers corrected
  # by Z_harmonic / Z_exact the weighted mean residual must be within 3
  # statistical sd; against plain Kramers within 3 combined sd, the
  # statistical one and the size of that correction added in quadrature.
  # Measured (seed 2): ln(simulated / Kramers) = -0.065, sd 0.017 statistical
  # and 0.054 systematic, z = -1.16; against corrected Kramers -0.011,
  # z = -0.69; chi^2 = 27.4 for 31 bins.
  V0 <- 2; beta <- 1; theta <- 0.25
  x <- switching_currents(4000, ramp = 3e-4, V0 = V0, beta = beta, theta = theta,
                          dt = 0.02, gamma0 = 0.3, seed = 2, backend = "cpu",
                          threshold = "next_well", init = "thermal")
  r <- switching_rate(x)
  r <- r[barrier_height(r$gamma, V0) / theta >= 2.5, ]
  attr(r, "level") <- 0.95
  expect_gt(nrow(r), 20)
  z_harm_over_exact <- vapply(r$gamma, function(g) {
    p0 <- asin(g); pb <- pi - p0
    Z <- integrate(function(p) exp(V0 * ((cos(p) - cos(p0)) + g * (p - p0)) / theta),
                   pb - 2 * pi, pb, rel.tol = 1e-10)$value
    sqrt(2 * pi * theta) / (sqrt(V0) * (1 - g^2)^0.25) / Z
  }, numeric(1))
  kr <- escape_rate(r$gamma, V0, beta, theta)
  sd_log <- log(r$upper / r$rate) / stats::qnorm(0.975)
  w <- 1 / sd_log^2
  se <- 1 / sqrt(sum(w))
  m_plain <- sum(w * log(r$rate / kr)) / sum(w)
  m_corr <- sum(w * log(r$rate / (kr * z_harm_over_exact))) / sum(w)
  sys <- sum(w * abs(log(z_harm_over_exact))) / sum(w)
  expect_lt(abs(m_corr) / se, 3)
  expect_lt(abs(m_plain) / sqrt(se^2 + sys^2), 3)
  expect_lt(sum(w * log(r$rate / (kr * z_harm_over_exact))^2),
            stats::qchisq(0.999, nrow(r)))
})

test_that("switching_rate() counts paths at risk, switches and censoring as documented", {
  # 21 paths, ramp 0.01, breaks 0, 0.1, 0.2, 0.3: switches at 0.05 (x4),
  # 0.15 (x4), 0.25 (x2); censored at 0.12 and 0.18 (inside bin 2) and at
  # 0.3 (the end: survived every bin, x9).
  v <- 0.01
  val <- c(rep(0.05, 4), rep(0.15, 4), rep(0.25, 2), 0.12, 0.18, rep(0.3, 9))
  esc <- c(rep(TRUE, 10), FALSE, FALSE, rep(FALSE, 9))
  x <- fake_switching(val, esc, ramp = v, gamma_max = 0.3)
  r <- switching_rate(x, bins = c(0, 0.1, 0.2, 0.3), level = 0.9)
  expect_s3_class(r, c("sp_switching_rate", "data.frame"))
  expect_identical(names(r), c("condition", "ramp", "V0", "beta", "theta", "gamma",
                               "rate", "lower", "upper", "n_risk", "n_switch"))
  expect_equal(r$n_switch, c(4, 4, 2))
  expect_equal(r$n_risk, c(21, 17 - 2 / 2, 9 + 2))
  L <- log(r$n_risk / (r$n_risk - r$n_switch))
  expect_equal(r$rate, v / 0.1 * L)
  se <- sqrt(r$n_switch / (r$n_risk * (r$n_risk - r$n_switch))) / L
  expect_equal(r$upper, r$rate * exp(stats::qnorm(0.95) * se))
  expect_equal(r$lower, r$rate * exp(-stats::qnorm(0.95) * se))
  expect_true(all(r$gamma > c(0, 0.1, 0.2) & r$gamma < c(0.1, 0.2, 0.3)))
  expect_identical(attr(r, "level"), 0.9)
  expect_equal(attr(r, "width")[["1"]], 0.1)
  expect_equal(attr(r, "dropped")[["1"]], 0)
  # a bin without switches is dropped, and so is one where all at risk switch
  r2 <- switching_rate(fake_switching(c(rep(0.05, 10), rep(0.25, 5)), rep(TRUE, 15),
                                      ramp = v), bins = c(0, 0.1, 0.2, 0.3))
  expect_equal(nrow(r2), 1)
  expect_equal(attr(r2, "dropped")[["1"]], 2)
})

test_that("print() and plot() of switching_rate() work, with theory overlays", {
  set.seed(3)
  d <- draw_exp_hazard(3000, 2e-5, 20, 3e-4, 0.3, 0.7)
  r <- switching_rate(fake_switching(d$value, d$escaped, ramp = 3e-4, gamma0 = 0.3))
  expect_output(print(r), "Fulton-Dunkleberger")
  expect_output(print(r, n = 3), "more rows")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (th in c("none", "kramers", "bhl", "mm")) {
    expect_identical(plot(r, theory = th), r)
  }
  expect_error(plot(r, theory = "smoluchowski"),
               '`theory` must be one of "none", "kramers", "bhl", "mm"',
               class = "statphysgpu_error")
})

test_that("switching_rate() refuses what it cannot invert, with clear errors", {
  e <- escape_times(20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
                    t_max = 100, seed = 1, backend = "cpu")
  expect_error(switching_rate(e), "must be a result of switching_currents\\(\\).*exp_tail_rate",
               class = "statphysgpu_error")
  expect_error(switching_rate(data.frame(value = 1)), "must be a result of switching_currents")
  expect_error(switching_rate(1:3), "must be a result of switching_currents")
  set.seed(1)
  d <- draw_exp_hazard(200, 2e-5, 20, 3e-4, 0.3, 0.7)
  x <- fake_switching(d$value, d$escaped, ramp = 3e-4)
  for (b in list(0, -2, 2.5, c(0.5, 0.4), "a", NA, c(0.3, NA))) {
    expect_error(switching_rate(x, bins = b), "`bins` must be NULL, a single whole number")
  }
  expect_error(switching_rate(x, level = 1), "`level` must be")
  few <- fake_switching(c(0.4, 0.5, 0.6, rep(1, 20)), c(TRUE, TRUE, TRUE, rep(FALSE, 20)),
                        ramp = 1e-3)
  expect_error(switching_rate(few), "condition 1 .* has 3 switches; switching_rate\\(\\) needs at least 10")
  err <- tryCatch(switching_rate(few), error = identity)
  expect_identical(conditionCall(err)[[1]], as.name("switching_rate"))
  # breaks that miss every switch
  expect_error(switching_rate(x, bins = c(0.8, 0.9)), "no bin has both a switch")
})
