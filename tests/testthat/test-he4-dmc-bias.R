# he4_dmc() after issue 52: the reweighting of Umrigar, Nightingale and Runge
# (exact, generation by generation), the energy at a fixed dt independent of
# the population and the feedback, the bounded branching (no walker dropped
# with the defaults; a dropped walker warns), the bounded guide (C2 join,
# the same energy).  N = 32 at most; the large checks are in
# bench/he4-dmc-bias.R.

# The mean energy and its standard error of a result (reblocked; the naive
# error where the reblocking has too few blocks).
dmc_mean_se <- function(d) {
  s <- summary(d)
  se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[["energy"]]
  c(mean = s$mean[1], se = se, overflow = attr(s, "overflow"))
}

test_that("a block's energy is its generations' estimates weighted by the last T_p trial-energy factors", {
  # T_p = 3 generations; six generations one call each (a continuation is the
  # same walk as one call: test-he4-dmc.R), then the same six as one block
  args <- list(8, dt = 0.01, walkers = 20, equilibration = 5, reweight_time = 0.03,
               feedback_time = 0.02, seed = 21, backend = "cpu")
  whole <- do.call(he4_dmc, c(args, blocks = 1, block_steps = 6))
  d <- do.call(he4_dmc, c(args, blocks = 1, block_steps = 1))
  e <- W <- lnpi <- numeric()
  for (g in 1:6) {
    if (g > 1) d <- he4_dmc(blocks = 1, block_steps = 1, equilibration = 0, init = d,
                            backend = "cpu")
    st <- attr(d, "state")
    expect_identical(st$reweight, 3)
    e <- c(e, d$energy_raw)
    W <- c(W, d$weight)
    # Pi_g = exp(-(sum of N tau e_T - e_best sum of N tau)) over the window
    lnpi <- c(lnpi, -(st$rw_a - st$e_best * st$rw_b))
    # the window's sums are those of its ring
    expect_equal(st$rw_a, sum(st$hist[[1]][1:3]), tolerance = 1e-12)
    expect_equal(st$rw_b, sum(st$hist[[1]][4:6]), tolerance = 1e-12)
    # N tau of the last three generations: at most 3 N dt (tau the
    # effective step, dt times the accepted share)
    expect_lt(st$rw_b, 3 * 8 * 0.01 + 1e-12)
    expect_gt(st$rw_b, 8 * 0.01)
  }
  # a one-generation block carries no reweighting
  expect_equal(d$energy, d$energy_raw, tolerance = 1e-12)
  expect_equal(whole$energy_raw, sum(W * e) / sum(W), tolerance = 1e-10)
  expect_equal(whole$energy, sum(exp(lnpi) * W * e) / sum(exp(lnpi) * W), tolerance = 1e-10)
  expect_false(isTRUE(all.equal(whole$energy, whole$energy_raw, tolerance = 1e-8)))
  # a continuation with another window keeps the last generations' factors
  d2 <- he4_dmc(blocks = 1, block_steps = 1, equilibration = 0, init = d,
                reweight_time = 0.02, backend = "cpu")
  expect_identical(attr(d2, "state")$reweight, 2)
})

test_that("the feedback time is a time: the trial energy follows ln P over it, whatever dt", {
  d <- he4_dmc(8, dt = 0.005, walkers = 10, target_population = 20, blocks = 1,
               block_steps = 1, equilibration = 0, feedback_time = 0.04, seed = 22,
               backend = "cpu")
  st <- attr(d, "state")
  expect_equal(st$e_trial, st$e_ref - log(st$size / 20) / (8 * 0.04), tolerance = 1e-12)
  # the older `feedback` (per generation) is feedback_time = dt / feedback
  d1 <- he4_dmc(8, dt = 0.005, walkers = 10, target_population = 20, blocks = 1,
                block_steps = 1, equilibration = 0, feedback = 0.125, seed = 22,
                backend = "cpu")
  expect_equal(attr(d1, "params")$feedback_time, 0.04, tolerance = 1e-15)
  expect_equal(as.data.frame(d1), as.data.frame(d), tolerance = 1e-12)
  expect_error(he4_dmc(8, feedback_time = -1, backend = "cpu"), "`feedback_time`")
  expect_error(he4_dmc(8, reweight_time = NA, backend = "cpu"), "`reweight_time`")
  expect_error(he4_dmc(8, guide = "pade", backend = "cpu"), "`guide`")
  expect_error(he4_dmc(8, b = 5, guide = "bounded", backend = "cpu"),
               "bounded guide's core")
})

test_that("at a fixed dt the reweighted energy does not depend on the population or the feedback", {
  skip_on_cran()
  v <- he4_vmc(32, replicas = 16, blocks = 2, block_sweeps = 20, equilibration = 200,
               seed = 1, backend = "cpu")
  run <- function(P, tf, pops, seed) {
    he4_dmc(32, dt = 0.002, walkers = P, blocks = 16, block_steps = 40, equilibration = 200,
            populations = pops, feedback_time = tf, init = v, seed = seed, backend = "cpu")
  }
  # smaller populations with a stronger feedback (5 generations), against a
  # larger one with the default (0.02 K^-1); the errors from the blocks of
  # independent populations.  (At P = 24 the energy lies some 0.1 K high,
  # about 3 se, with or without the reweighting: see NEWS, issue 52.)
  small <- dmc_mean_se(run(48, 0.02 / 2, 2, 31))
  large <- dmc_mean_se(run(96, 0.02, 1, 32))
  expect_equal(unname(small["overflow"] + large["overflow"]), 0)
  z <- (small[["mean"]] - large[["mean"]]) / sqrt(small[["se"]]^2 + large[["se"]]^2)
  expect_lt(abs(z), 3.5)
  # both far below the guide's VMC energy (some 1.4 K above at N = 32)
  expect_lt(large[["mean"]], -4.3)
})

test_that("with the defaults no walker is dropped; without the limits walkers are, with a warning", {
  # default limits at N = 32, dt = 0.002 (the runs above): overflow 0; here
  # the plain walk without drift or energy limits at dt = 0.005: a walker near
  # contact multiplies until the capacity cuts it, and says so
  expect_warning(
    d <- he4_dmc(16, dt = 0.005, walkers = 20, blocks = 2, block_steps = 20,
                 equilibration = 20, accept = FALSE, energy_cut = 0, drift_limit = 0,
                 seed = 1, backend = "cpu"),
    "dropped at a population's capacity", class = "statphysgpu_dmc_overflow")
  expect_gt(sum(attr(d, "state")$overflow), 0)
  # the same walk with the default limits keeps its walkers
  d <- he4_dmc(16, dt = 0.002, walkers = 20, blocks = 2, block_steps = 20,
               equilibration = 20, seed = 1, backend = "cpu")
  expect_equal(sum(attr(d, "state")$overflow), 0)
})

test_that("the bounded guide joins McMillan's smoothly and gives the same energy", {
  skip_on_cran()
  # the core's value, slope and curvature meet McMillan's at r_j
  b <- 3.07
  rj <- statphysgpu:::HE4_GUIDE_JOIN * b
  k <- statphysgpu:::he4_guide_core(b, rj)
  u <- function(r) k[2] + k[3] * r^2 + k[4] * r^4
  expect_equal(u(rj), -0.5 * (b / rj)^5, tolerance = 1e-12)
  expect_equal(2 * k[3] * rj + 4 * k[4] * rj^3, 2.5 * b^5 / rj^6, tolerance = 1e-12)
  expect_equal(2 * k[3] + 12 * k[4] * rj^2, -15 * b^5 / rj^7, tolerance = 1e-12)
  # and the two-body part of the local energy stays bounded inside: V plus
  # the kinetic term -(hbar^2/m)(u'' + 2 u'/r + u'^2) above -1000 K, where
  # McMillan's falls below -3e4 K at 1.5 A
  pair_e <- function(r, u1, u2) aziz_potential(r) - 12.119296 * (u2 + 2 * u1 / r + u1^2)
  r <- seq(0.05, rj, length.out = 400)
  core <- pair_e(r, 2 * k[3] * r + 4 * k[4] * r^3, 2 * k[3] + 12 * k[4] * r^2)
  expect_true(all(is.finite(core)))
  expect_gt(min(core), -1000)
  expect_lt(pair_e(1.5, 2.5 * b^5 / 1.5^6, -15 * b^5 / 1.5^7), -3e4)
  v <- he4_vmc(32, replicas = 16, blocks = 2, block_sweeps = 20, equilibration = 200,
               seed = 1, backend = "cpu")
  run <- function(guide, seed) {
    he4_dmc(32, dt = 0.001, walkers = 48, blocks = 12, block_steps = 60, equilibration = 300,
            populations = 2, guide = guide, init = v, seed = seed, backend = "cpu")
  }
  m <- dmc_mean_se(run("mcmillan", 41))
  bd <- dmc_mean_se(run("bounded", 42))
  expect_equal(unname(m["overflow"] + bd["overflow"]), 0)
  z <- (m[["mean"]] - bd[["mean"]]) / sqrt(m[["se"]]^2 + bd[["se"]]^2)
  expect_lt(abs(z), 3.5)
})
