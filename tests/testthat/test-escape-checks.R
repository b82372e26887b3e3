# Escape engine: stability and precision checks, thresholds, thermal starts,
# the step-size check (issue "Escape engine defects found by an audit").

test_that("an unstable step is refused, for each scheme, with the reason", {
  # the audit's case: beta h = 2.5 "escaped" half the paths before t = 1
  expect_error(
    escape_times(4000, gamma = 0.2, V0 = 1, beta = 50, theta = 0.4706, dt = 0.05,
                 t_max = 1e7, precision = "double", seed = 1, backend = "cpu"),
    "srk2 scheme is unstable at dt = 0.05 .*beta dt = 2.5 is not below 2")
  expect_error(
    escape_times(10, gamma = 0.2, V0 = 1, beta = 50, theta = 0.47, dt = 0.05,
                 t_max = 100, method = "euler", seed = 1, backend = "cpu"),
    "euler scheme is unstable")
  # Euler's anti-damping h omega0^2 > beta at weak damping: refused; SRK2 is
  # stable there
  expect_error(
    escape_times(10, gamma = 0.5, V0 = 1, beta = 0.01, theta = 0.2, dt = 0.05,
                 t_max = 100, method = "euler", seed = 1, backend = "cpu"),
    "anti-damping dt omega0\\^2 = 0.0433 is not below beta = 0.01.*method = \"srk2\"")
  expect_silent(
    escape_times(10, gamma = 0.5, V0 = 1, beta = 0.01, theta = 0.2, dt = 0.05,
                 t_max = 100, method = "srk2", seed = 1, backend = "cpu",
                 progress = FALSE))
  # switching currents too (the well of gamma0)
  expect_error(
    switching_currents(10, ramp = 1e-3, V0 = 1, beta = 50, theta = 0.3, dt = 0.05,
                       seed = 1, backend = "cpu"),
    "unstable")
})

test_that("the stationary temperatures of the linear step have their closed forms", {
  # velocity alone (omega0 -> 0), z = beta h: Euler 2 / (2 - z), SRK2
  # (2 - z) / (2 - z + z^2 / 2); both schemes keep the position's
  # temperature at small h; unstable beyond z = 2
  z <- c(0.01, 0.4, 1, 1.9)
  lin <- function(m, h, w2 = 1e-14) statphysgpu:::escape_linear_step(m, h, 1, w2)
  expect_equal(lin("euler", z)$T_v, 2 / (2 - z), tolerance = 1e-9)
  expect_equal(lin("srk2", z)$T_v, (2 - z) / (2 - z + z^2 / 2), tolerance = 1e-9)
  expect_false(any(lin("euler", c(2.01, 3))$stable))
  expect_false(any(lin("srk2", c(2.01, 3))$stable))
  # stability against the eigenvalues of the step matrix, on a grid
  for (m in c("euler", "srk2")) for (h in c(0.01, 0.5, 1.5, 1.99, 2.01)) for (w2 in c(0.01, 1, 10)) {
    J <- matrix(c(0, -w2, 1, -1), 2)
    A <- if (m == "euler") diag(2) + h * J else diag(2) + h * J + h^2 * J %*% J / 2
    expect_identical(statphysgpu:::escape_linear_step(m, h, 1, w2)$stable,
                     max(Mod(eigen(A)$values)) < 1, info = paste(m, h, w2))
  }
  # a well, small step: both close to the continuous temperature
  w <- statphysgpu:::escape_linear_step("srk2", 1e-3, 0.5, 1)
  expect_equal(c(w$T_phi, w$T_v), c(1, 1), tolerance = 1e-3)
  # and the formula against a direct iteration of the linear recursion
  set.seed(1)
  A <- matrix(c(1, -0.05 * 0.8, 0.05, 1 - 0.05 * 0.7), 2) # Euler, h = 0.05, w2 = 0.8, beta = 0.7
  x <- c(0, 0); s <- matrix(0, 2, 2); m <- 4e5
  z2 <- rnorm(m) * sqrt(2 * 0.7 * 0.05)
  acc <- c(0, 0)
  for (k in seq_len(m)) { x <- drop(A %*% x) + c(0, z2[k]); if (k > 1000) acc <- acc + x^2 }
  emp <- acc / (m - 1000) * c(0.8, 1)
  th <- statphysgpu:::escape_linear_step("euler", 0.05, 0.7, 0.8)
  # correlation time ~ 1/(beta h) = 30 steps: 4e5 steps are ~13,000
  # independent samples, a relative standard error sqrt(2 / 13000) = 1.2% of
  # a mean square; accept 4 of them (5%)
  expect_equal(emp, c(th$T_phi, th$T_v), tolerance = 0.05)
})

test_that("a step that heats the well warns with its temperature", {
  expect_warning(
    escape_times(10, gamma = 0.5, V0 = 1, beta = 24, theta = 0.3, dt = 0.05,
                 t_max = 100, seed = 1, backend = "cpu", progress = FALSE),
    "srk2 step dt = 0.05 heats or cools the well: .* 0.52[0-9] theta in its velocity",
    class = "statphysgpu_step_warning")
})

test_that("values that overflow the working precision are refused", {
  ok <- list(replicas = 10, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
             t_max = 100, seed = 1, backend = "cpu", progress = FALSE)
  bad <- function(...) do.call(escape_times, modifyList(ok, list(...)))
  # the audit's cases: V0 = 1e300 censored everything, theta = 1e300
  # escaped at t = 0
  expect_error(bad(V0 = 1e300), "V0 = 1e\\+300 does not fit single precision")
  expect_error(bad(theta = 1e300), "noise amplitude .* does not fit single precision")
  expect_error(bad(theta = 1e305, precision = "double"), "does not fit double precision")
  expect_error(bad(V0 = 1e35, dt = 1e-20, t_max = 1e-18), "V0 = 1e\\+35 does not fit single")
  # tiny single-precision steps: said
  expect_warning(bad(dt = 1e-7, t_max = 1e-4, theta = 0.1),
                 "steps too small for single precision", class = "statphysgpu_step_warning")
  expect_silent(bad(dt = 1e-7, t_max = 1e-4, theta = 0.1, precision = "double"))
})

test_that("a ramp faster than the junction can follow is said", {
  expect_warning(
    x <- switching_currents(20, ramp = 1e3, V0 = 1, beta = 1, theta = 0.1, dt = 0.02,
                            seed = 1, backend = "cpu", progress = FALSE),
    "sweeps from gamma0 = 0 to gamma_max = 1 in t = 0.001, less than one plasma period")
  expect_true(all(!x$escaped))
})

test_that("thresholds: next well after saddle path by path; offsets in between", {
  args <- list(replicas = 200, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
               t_max = 1e5, seed = 4, backend = "cpu", progress = FALSE,
               precision = "double")
  run <- function(th) do.call(escape_times, c(args, threshold = list(th)))
  s <- run("saddle")
  w <- run("next_well")
  o <- run(0.8)
  expect_identical(run(0)$value, s$value)
  # the same trajectories: a path passes the saddle before any point beyond it
  expect_true(all(s$value <= o$value & o$value <= w$value))
  expect_identical(attr(w, "threshold"), "next_well")
  expect_error(run("top"), "`threshold` must be \"saddle\", \"next_well\" or a single number >= 0")
  expect_error(run(-1), "`threshold` must be")
  expect_error(rbind(s, w), "threshold")
})

test_that("escapes to the next well follow Kramers' rate; saddle crossings come earlier", {
  # moderate damping (Q = omega0 / beta = 1.9), Delta U / theta = 5, 8000
  # paths, the tail beyond the median (exp_tail_rate()).
  # * next-well escapes against Kramers: |log(rate / Kramers)| below 4
  #   standard errors (1 / sqrt(events)) plus 0.10 for the formula's own
  #   finite-barrier error, of order theta / Delta U = 0.2 times a
  #   coefficient below 1/2 (measured here: rate 0.95 Kramers);
  # * saddle crossings are faster in the tail than escapes from the well:
  #   z = (rate_s - rate_w) / sqrt(se_s^2 + se_w^2) > 3 (one-sided p =
  #   0.0013; the two samples share their paths, which only makes the z
  #   conservative).  Measured: 9% faster, z about 4.
  g <- 0.5; V0 <- 1; beta <- 0.5; theta <- barrier_height(g, V0) / 5
  run <- function(th) escape_times(8000, gamma = g, V0 = V0, beta = beta, theta = theta,
                                   dt = 0.02, t_max = 1e7, seed = 3, backend = "cpu",
                                   progress = FALSE, threshold = th)
  K <- escape_rate(g, V0, beta, theta, "kramers")
  w <- exp_tail_rate(run("next_well")$value, NULL)
  expect_lt(abs(log(w$rate / K)), 4 / sqrt(w$events) + 0.10)
  s <- exp_tail_rate(run("saddle")$value, NULL)
  z <- (s$rate - w$rate) / sqrt(s$rate^2 / s$events + w$rate^2 / w$events)
  expect_gt(z, 3)
})

test_that("thermal starts are drawn from the Boltzmann law of the well", {
  # the sampler the CPU engine and the kernel use (escape.h), against the
  # CDF of exp(-U / theta) integrated here on the well between the saddles,
  # and v against N(0, theta): Kolmogorov-Smirnov, accept p > 0.001
  starts <- function(g, V0, theta, m) {
    grid <- data.frame(condition = 1, gamma = g, V0 = V0, beta = 1, theta = theta)
    ec <- statphysgpu:::escape_conditions(grid, g0 = g, dg = 0, h = 0.01,
                                          th = pi - asin(g), vcens = 1, kmax = 100,
                                          start = "thermal", call = NULL)
    .Call(statphysgpu:::C_sp_r_escape_starts, ec$conds, ec$tables,
          statphysgpu:::check_u64(7, "seed"), as.double(0:(m - 1)))
  }
  for (case in list(c(0.5, 1, 0.2), c(0.5, 1, 0.02), c(0.9, 4, 0.05))) {
    g <- case[1]; V0 <- case[2]; theta <- case[3]
    x <- starts(g, V0, theta, 20000)
    phi0 <- asin(g); phis <- pi - asin(g)
    U <- function(p) -V0 * (cos(p) + g * p) + V0 * (cos(phi0) + g * phi0)
    dens <- function(p) exp(-U(p) / theta)
    lo <- phis - 2 * pi
    Z <- integrate(dens, lo, phis, rel.tol = 1e-10, subdivisions = 1000)$value
    cdf <- function(q) vapply(q, function(v) integrate(dens, lo, v, rel.tol = 1e-9,
                                                      subdivisions = 1000)$value / Z, 0)
    expect_true(all(x[, 1] > lo & x[, 1] < phis))
    p_phi <- suppressWarnings(ks.test(x[, 1], cdf)$p.value)
    expect_gt(p_phi, 0.001)
    p_v <- ks.test(x[, 2], "pnorm", sd = sqrt(theta))$p.value
    expect_gt(p_v, 0.001)
    # ... and the test has power: a Gaussian of the harmonic well is refused
    # where the cubic term matters (gamma = 0.9)
    if (g == 0.9) {
      w2 <- V0 * sqrt(1 - g^2)
      expect_lt(ks.test(x[, 1], "pnorm", mean = phi0, sd = sqrt(theta / w2))$p.value, 0.001)
    }
  }
  # rest starts are the bottom of the well
  grid <- data.frame(condition = 1, gamma = 0.5, V0 = 1, beta = 1, theta = 0.2)
  ec <- statphysgpu:::escape_conditions(grid, 0.5, 0, 0.01, 2, 1, 100, "rest", NULL)
  r <- .Call(statphysgpu:::C_sp_r_escape_starts, ec$conds, ec$tables,
             statphysgpu:::check_u64(7, "seed"), c(0, 1))
  expect_equal(r[, 1], rep(asin(0.5), 2))
  expect_equal(r[, 2], c(0, 0))
})

test_that("thermal starts remove the relaxation transient", {
  # from rest, a path needs about 1/beta to reach the thermal spread of the
  # well, so few escape early; from the Boltzmann law the survival decays at
  # the escape rate from t = 0.  With Delta U / theta = 3 and beta = 0.5:
  # the fraction escaped by t = 5 (2.5 relaxation times) is larger for
  # thermal starts (one-sided two-proportion z > 3.1, p = 0.001).
  args <- list(replicas = 3000, gamma = 0.5, V0 = 1, beta = 0.5, theta = barrier_height(0.5, 1) / 3,
               dt = 0.02, t_max = 5, seed = 9, backend = "cpu", progress = FALSE)
  rest <- do.call(escape_times, args)
  therm <- do.call(escape_times, c(args, init = "thermal"))
  p1 <- mean(therm$escaped); p0 <- mean(rest$escaped)
  pp <- (p1 + p0) / 2
  expect_gt((p1 - p0) / sqrt(2 * pp * (1 - pp) / 3000), 3.1)
  expect_identical(attr(therm, "init"), "thermal")
  # chunks and threads: still exact
  a <- do.call(escape_times, modifyList(c(args, init = "thermal"), list(replicas = 1000)))
  b <- rbind(do.call(escape_times, modifyList(c(args, init = "thermal"), list(replicas = 400))),
             do.call(escape_times, modifyList(c(args, init = "thermal"),
                                              list(replicas = 600, first_replica = 401))))
  expect_identical(as.data.frame(b), as.data.frame(a))
  expect_error(do.call(escape_times, c(args, init = "hot")), "`init` must be one of")
})

test_that("h_check() resolves Euler's step bias and not SRK2's at a fine step", {
  # Euler at h = 0.1 (h sqrt(V0) = 0.1): the mean escape time is 11% short
  # (measured), a z of about -5 with 4000 paths: accept z < -3.  SRK2 at
  # h = 0.02: a bias far below the noise, accept |z| < 3 (two-sided p = 0.003).
  e <- suppressWarnings(escape_times(4000, gamma = 0.5, V0 = 1, beta = 0.5,
                                     theta = 0.25, dt = 0.1, t_max = 1e4, seed = 1,
                                     backend = "cpu", method = "euler", progress = FALSE))
  ce <- suppressWarnings(h_check(e, progress = FALSE))
  expect_s3_class(ce, "sp_h_check")
  expect_lt(ce$z, -3)
  expect_equal(ce$bias_h, 2 * ce$difference)
  expect_equal(attr(attr(ce, "rerun"), "dt"), 0.05)
  expect_identical(attr(attr(ce, "rerun"), "seed_hex"), attr(e, "seed_hex"))
  expect_output(print(ce), "step bias is resolved")
  s <- escape_times(1000, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.25, dt = 0.02,
                    t_max = 1e4, seed = 1, backend = "cpu", progress = FALSE)
  cs <- h_check(s, progress = FALSE)
  expect_lt(abs(cs$z), 3)
  expect_equal(cs$bias_h, cs$difference / 0.75)
  expect_error(h_check(data.frame(value = 1)), "`x` must be a result")
  expect_error(h_check(s, dt = 0.01), "`dt` cannot be changed")
  expect_error(h_check(s, 5), "must be named")
})
