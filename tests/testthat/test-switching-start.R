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
