# switching_start() and switching_currents(gamma0 = "auto"): the start of a
# ramp where switching is negligible, its bound, and that a run from there
# in thermal equilibrium has the distribution of a run from gamma = 0.

# P(switch before g) for a ramp from 0, computed independently of
# switching_distribution(): stats::integrate() of escape_rate() / ramp,
# scaled by the rate at g (the integrand's largest value) so that rates of
# 1e-13 keep their relative accuracy.
p_before <- function(g, ramp, V0, beta, theta) {
  r_g <- escape_rate(g, V0, beta, theta, "kramers")
  f <- function(x) escape_rate(x, V0, beta, theta, "kramers") / r_g
  J <- stats::integrate(f, 0, g, rel.tol = 1e-11, abs.tol = 0, subdivisions = 1000L)$value *
    r_g / ramp
  -expm1(-J)
}

test_that("the auto gamma0 is the largest bias with P(switch before it) <= eps", {
  fig11 <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2,
                    sweep_rate = 200 * 0.748e-6)
  cases <- list(
    list(ramp = 2e-4, V0 = 2, beta = 0.5, theta = 0.1, replicas = 600),
    list(ramp = fig11$ramp, V0 = fig11$V0, beta = fig11$beta, theta = fig11$theta,
         replicas = 30000))
  for (a in cases) {
    st <- switching_start(a$ramp, a$V0, a$beta, a$theta, replicas = a$replicas)
    eps <- 0.01 / a$replicas
    expect_equal(attr(st, "eps"), eps)
    g0 <- st$gamma0
    expect_gt(g0, 0)
    p <- p_before(g0, a$ramp, a$V0, a$beta, a$theta)
    # the bound holds and is attained: the CDF at gamma0 is eps to the
    # bisection's 1e-15 relative and integrate()'s 1e-11 (switching above
    # gamma0 by 1e-8 of gamma would raise it by kappa 1e-8 ~ 4e-7)
    expect_equal(p, eps, tolerance = 1e-8)
    expect_equal(st$p, p, tolerance = 1e-8)
    expect_lte(st$p, eps)
    expect_equal(st$expected, a$replicas * st$p)
    expect_true(st$quasi_static)
  }
  # another tolerance gives the bias of that CDF value
  st <- switching_start(2e-4, 2, 0.5, 0.1, eps = 1e-3)
  expect_equal(p_before(st$gamma0, 2e-4, 2, 0.5, 0.1), 1e-3, tolerance = 1e-8)
  expect_true(is.na(st$expected))
  # one row per condition, in switching_currents()' order
  st2 <- switching_start(c(1e-4, 2e-4), 2, 0.5, 0.1, replicas = 100)
  expect_equal(st2$condition, 1:2)
  expect_equal(st2$ramp, c(1e-4, 2e-4))
  for (i in 1:2) {
    expect_equal(p_before(st2$gamma0[i], st2$ramp[i], 2, 0.5, st2$theta[i]), 1e-4,
                 tolerance = 1e-8)
  }
  expect_output(print(st), "P\\(switch before gamma0\\) <= eps = 0.001 a path")
})

test_that("a run from the auto gamma0, thermal, switches as one from gamma = 0 at rest", {
  # V0 = 2, theta = 0.1, beta = 0.5, ramp = 2e-4: the median switch at
  # Delta U / theta ~ 4; gamma0 = "auto" (eps = 0.01 / 600) starts at ~0.49,
  # half of the way.  Two-sample Kolmogorov-Smirnov test of the switching
  # biases, fixed seeds: accept p >= 0.01.  Its power: the same test
  # rejects (p < 0.01) a run started too late, at the bias where 20 per cent
  # of the paths have switched (D ~ 0.2 against a 1% critical value of
  # 1.63 sqrt(2 / 600) = 0.094).
  pars <- list(replicas = 600, ramp = 2e-4, V0 = 2, beta = 0.5, theta = 0.1,
               dt = 0.05 / sqrt(2), backend = "cpu", progress = FALSE)
  run <- function(...) do.call(switching_currents, c(pars, list(...)))
  ref <- run(gamma0 = 0, init = "rest", seed = 1)
  auto <- run(gamma0 = "auto", seed = 2)
  st <- switching_start(2e-4, 2, 0.5, 0.1, replicas = 600)
  expect_equal(attr(auto, "gamma0"), st$gamma0)
  expect_identical(attr(auto, "init"), "thermal")
  b <- attr(auto, "start_bound")
  expect_equal(b$gamma0, st$gamma0)
  expect_equal(b$p, st$p)
  expect_equal(attr(b, "eps"), 0.01 / 600)
  expect_true(all(ref$escaped) && all(auto$escaped))
  expect_gt(min(auto$value), st$gamma0)
  expect_gte(stats::ks.test(ref$value, auto$value)$p.value, 0.01)
  # and the test can fail: a start past 20 per cent of the switches
  g <- seq(0.4, 0.9, by = 1e-3)
  g20 <- g[which(switching_distribution(g, 2e-4, 2, 0.5, 0.1)$cdf >= 0.2)[1]]
  late <- run(gamma0 = g20, init = "thermal", seed = 3)
  expect_lt(stats::ks.test(ref$value, late$value)$p.value, 0.01)
  # the bound is printed and summarised; a start at 0 has none
  expect_output(print(auto), "start: gamma0 = 0\\.4[0-9]* \\(auto, thermal\\): P\\(switch before gamma0\\) <= ")
  expect_output(print(summary(auto)), "expected in 600 paths \\(eps = 0.01 / replicas")
  expect_equal(attr(ref, "start_bound")$p, 0)
  expect_false(any(grepl("^start:", capture.output(print(ref)))))
  # a numeric gamma0 carries its probability too
  expect_equal(attr(late, "start_bound")$p, switching_distribution(g20, 2e-4, 2, 0.5, 0.1)$cdf)
})

test_that("bad input to switching_start() and gamma0 = \"auto\" is refused", {
  sbad <- function(...) do.call(switching_currents, modifyList(
    list(replicas = 10, ramp = 2e-4, V0 = 2, beta = 0.5, theta = 0.1, dt = 0.03,
         seed = 1, backend = "cpu", progress = FALSE), list(...)))
  expect_error(sbad(gamma0 = "automatic"),
               "`gamma0` must be a single finite number in \\[0, 1\\) or \"auto\", not \"automatic\"",
               class = "statphysgpu_error")
  expect_error(sbad(gamma0 = c("auto", "auto")), "`gamma0` must be a single finite number")
  expect_error(sbad(gamma0 = "auto", init = "rest"),
               "gamma0 = \"auto\" starts the paths in thermal equilibrium at gamma0: use init = \"thermal\"",
               class = "statphysgpu_error")
  # a ramp the well cannot follow: refused with auto, a warning with a
  # thermal start at a numeric gamma0
  expect_error(sbad(gamma0 = "auto", ramp = 0.02),
               "the ramp is too fast for a start in quasi-equilibrium .*Start at gamma0 = 0",
               class = "statphysgpu_error")
  expect_warning(sbad(gamma0 = 0.3, ramp = 0.02, init = "thermal", replicas = 2),
                 "the ramp is too fast .*The thermal start is not what a path swept",
                 class = "statphysgpu_warning")
  expect_warning(switching_start(0.02, 2, 0.5, 0.1, replicas = 10), "too fast")
  expect_error(sbad(gamma0 = "auto", gamma_max = 0.3),
               "`gamma_max` must be a single finite number in \\(0\\.59")
  expect_error(switching_start(2e-4, 2, 0.5, 0.1), "give `replicas`")
  expect_error(switching_start(2e-4, 2, 0.5, 0.1, eps = 0), "`eps` must be a single finite number in \\(0, 1\\)")
  expect_error(switching_start(2e-4, 2, 0.5, 0.1, eps = c(1e-3, 1e-4)), "`eps` must be")
  expect_error(switching_start(2e-4, 2, 0.5, 0.1, replicas = 0), "`replicas` must be")
  expect_error(switching_start(-1, 2, 0.5, 0.1, replicas = 10), "`ramp` must be")
  expect_error(switching_start(2e-4, 2, 0.5, 0.1, replicas = 10, prefactor = "x"), "`prefactor` must be")
  # a ramp that outruns switching: no bias below which it is negligible
  expect_error(switching_start(10, 2, 0.5, 0.001, eps = 1e-3), "the ramp outruns thermal switching")
})

test_that("init = \"thermal\" at gamma0 > 0 samples the tilted well's Boltzmann law", {
  # 4000 paths stopped after 4 steps of dt = 1e-4 (they move by ~1e-4, a
  # sixtieth of the standard error of the mean): their phi against the
  # moments of exp(-U / theta) over the well (the left side cut at 30 theta,
  # the right at the saddle, as the start tables are), v against N(0, theta).
  # Accept |z| < 4 for each of four statistics (two-sided p = 6e-5 each).
  # Power: the tilt moves the mean 0.066 (10 s.e.) past asin(gamma0) and the
  # variance is 1.26 times the harmonic well's, so a Gaussian start fails.
  g <- 0.6; V0 <- 1; theta <- 0.1; n <- 4000
  phi0 <- asin(g); phis <- pi - asin(g)
  dU <- function(p) V0 * ((cos(phi0) - cos(p)) + g * (phi0 - p))
  w <- function(p) exp(-dU(p) / theta)
  lo <- stats::uniroot(function(p) dU(p) - 30 * theta, c(phis - 2 * pi, phi0), tol = 1e-12)$root
  mom <- function(f) stats::integrate(function(p) f(p) * w(p), lo, phis, rel.tol = 1e-10)$value
  Z <- mom(function(p) 1)
  m1 <- mom(identity) / Z
  m2 <- mom(function(p) (p - m1)^2) / Z
  m4 <- mom(function(p) (p - m1)^4) / Z
  expect_gt((m1 - phi0) / sqrt(m2 / n), 8)
  # (a sweep this short warns twice: shorter than a plasma period, and too
  # fast for a quasi-equilibrium start -- this test samples the start alone)
  expect_warning(expect_warning(
    x <- switching_currents(n, ramp = 1e-3, V0 = V0, beta = 0.5, theta = theta,
                            dt = 1e-4, gamma0 = g, gamma_max = g + 4e-7,
                            init = "thermal", seed = 7, backend = "cpu",
                            precision = "double", progress = FALSE),
    "less than one plasma period"), "too fast for a start in quasi-equilibrium")
  st <- attr(x, "state")
  expect_equal(nrow(st), n)
  expect_true(all(st$step == 4))
  expect_lt(abs((mean(st$phi) - m1) / sqrt(m2 / n)), 4)
  expect_lt(abs((stats::var(st$phi) - m2) / sqrt((m4 - m2^2) / n)), 4)
  expect_lt(abs(mean(st$v) / sqrt(theta / n)), 4)
  expect_lt(abs((stats::var(st$v) / theta - 1) / sqrt(2 / n)), 4)
})
