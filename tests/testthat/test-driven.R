# driven_brownian(): the driven Stewart-McCumber model of paper 001 on the
# CPU.  Small sizes (CI has two cores); the engine contract (chunks, seeds,
# threads, bad input, interrupts) is in test-contract.R.

drv <- function(n, ..., seed = 1, backend = "cpu", progress = FALSE) {
  driven_brownian(n, ..., seed = seed, backend = backend, progress = progress)
}

# One path integrated in R from its Philox stream (sp_streams.h: purpose 6 for
# the steps, 7 for the start; the raw offset of purpose q is q 2^58 draws).
replay_path <- function(seed, cond, replica, a, omega, f, gamma, D0, spp, K,
                        method = "srk2") {
  stream <- (cond - 1) * 2^40 + (replica - 1)
  x <- philox_uniform(1, seed = seed, stream = stream, offset = 7 * 2^58, backend = "cpu")
  v <- 0
  z <- philox_normal(K, seed = seed, stream = stream, offset = 6 * 2^58, backend = "cpu")
  dt <- 2 * pi / omega / spp
  sig <- sqrt(2 * gamma * D0 * dt)
  acc <- function(x, v, d) d - gamma * v - 2 * pi * cos(2 * pi * (x - round(x)))
  drive <- cos(2 * pi * (0:spp) / spp)
  for (k in 0:(K - 1)) {
    j <- k %% spp
    d0 <- a * drive[j + 1] + f
    d1 <- a * drive[j + 2] + f
    dW <- sig * z[k + 1]
    a0 <- acc(x, v, d0)
    if (method == "srk2") {
      xp <- x + dt * v
      vp <- v + dt * a0 + dW
      a1 <- acc(xp, vp, d1)
      x <- x + dt / 2 * (v + vp)
      v <- v + dt / 2 * (a0 + a1) + dW
    } else {
      x <- x + dt * v
      v <- v + dt * a0 + dW
    }
  }
  c(x = x, v = v)
}

test_that("a path is its Philox stream integrated by SRK2 (or Euler), start uniform on a period", {
  for (m in c("srk2", "euler")) {
    # coarse on purpose (Euler is unstable in the well at this step: it warns)
    x <- without_step_warnings(
      drv(5, a = c(1.5, 4.2), omega = 4.9, f = 0.1, beta = 0.9, theta = 0.05,
          periods = 6, steps_per_period = 50, transient = 0, seed = 77,
          first_replica = 3, method = m, precision = "double"))
    p <- attr(x, "paths")
    # condition 2, replica 6 (the fourth path of the call)
    i <- which(p$condition == 2 & p$replica == 6)
    ref <- replay_path(77, 2, 6, a = 4.2, omega = 4.9, f = 0.1, gamma = 0.9, D0 = 0.05,
                       spp = 50, K = 300, method = m)
    # the engine's polynomial cosine and fused multiply-adds differ from R's
    # in the last bits; 300 steps do not amplify that past 1e-9
    expect_equal(c(x = p$x[i], v = p$v[i]), ref, tolerance = 1e-9)
    # transient = 0: the average starts at the start, which is uniform on (0, 1)
    expect_true(all(p$x_tr > 0 & p$x_tr < 1))
    expect_equal(p$v_bar, (p$x - p$x_tr) / (300 * 2 * pi / 4.9 / 50))
  }
})

test_that("thermal equilibrium: <v^2> = D0 at a = f = 0 (equipartition, D0 the temperature)", {
  # z-score of v2_mean against D0 with the standard error over paths (paths
  # are independent); |z| < 4 at these fixed seeds.  The SRK2 bias in <v^2>
  # is O(dt^2): at dt * 2 pi = 0.016 here, -1e-3 relative for the linearised
  # dynamics at the bottom of the well (escape_linear_step()), a seventh of
  # the standard error (0.7 per cent).
  for (prec in c("double", "single")) {
    x <- drv(400, a = 0, omega = 1, f = 0, beta = 1, theta = c(0.5, 2), periods = 20,
             steps_per_period = 400, seed = 2, precision = prec)
    z <- (x$v2_mean - x$theta) / x$v2_se
    expect_true(all(abs(z) < 4), info = paste(prec, paste(format(z), collapse = " ")))
    # no drift without bias or drive: <v> = 0 within 4 standard errors
    expect_true(all(abs(x$v_mean / x$v_se) < 4))
  }
})

test_that("high-force limit: <v> -> f / gamma with the second-order correction of the potential", {
  # deterministic (D0 = 0): x = u t + small oscillation; to second order in
  # the potential, f - gamma u - (2 pi)^3 gamma / (2 Omega (Omega^2 + gamma^2))
  # = 0 with Omega = 2 pi u (the mean of -V''(u t) times the first-order
  # oscillation, 2 pi cos(Omega t) / (Omega^2 - i gamma Omega)).  The
  # third-order term is (2 pi / Omega)^2 ~ 1e-2 of the 5e-4 correction:
  # below 1e-5; tolerance 2e-5.  Single precision keeps it: the position is
  # whole periods plus y in [-1/2, 1/2], so a step of 0.02 is rounded to
  # 3e-8, not to the 7.6e-6 of a float x of 200 (which would bias <v> by
  # some 1e-4).
  f <- 20
  gamma <- 2
  u <- f / gamma
  Om <- 2 * pi * u
  theory <- u - (2 * pi)^3 / (2 * Om * (Om^2 + gamma^2))
  expect_gt(u - theory, 4e-4) # the correction is resolved
  for (prec in c("double", "single")) {
    x <- drv(32, a = 0, omega = 4 * pi, f = f, beta = gamma, theta = 0, periods = 40,
             steps_per_period = 250, transient = 0.5, seed = 3, precision = prec)
    expect_lt(abs(x$v_mean - theory), 2e-5)
  }
  # with noise the running particle diffuses freely: D_eff -> D0 / gamma
  # (|z| < 4 with the standard error of the variance)
  y <- drv(400, a = 0, omega = 4 * pi, f = f, beta = gamma, theta = 0.2, periods = 100,
           steps_per_period = 250, transient = 0.2, seed = 2, precision = "double")
  expect_lt(abs((y$D_eff - 0.2 / gamma) / y$D_eff_se), 4)
  expect_lt(abs((y$v_mean - theory) / y$v_se), 4)
})

test_that("a start at the bottom of the potential stays there without noise and force", {
  # V = sin(2 pi x) has its minimum at x = 3/4; init = list(x, v) sets the start
  x <- drv(3, a = 0, omega = 1, f = 0, beta = 1, theta = 0, periods = 5,
           steps_per_period = 400, init = list(x = 0.75, v = 0), precision = "double")
  p <- attr(x, "paths")
  expect_equal(p$x, rep(0.75, 3), tolerance = 1e-12)
  expect_equal(p$v, rep(0, 3), tolerance = 1e-12)
  # per-replica starts, and a kick over the barrier: energy v^2 / 2 = 8 > 2
  y <- drv(2, a = 0, omega = 1, f = 0, beta = 0.1, theta = 0, periods = 1,
           steps_per_period = 200, init = list(x = c(0.75, 0.75), v = c(0, 4)), keep = 2,
           transient = 0, precision = "double")
  tr <- attr(y, "trajectories")
  expect_identical(tr$x[tr$period == 0], c(0.75, 0.75))
  expect_identical(tr$v[tr$period == 0], c(0, 4))
  expect_gt(attr(y, "paths")$x[2], 1.75)
})

test_that("a path's dynamics does not depend on how far it has run (whole periods counted apart)", {
  # x = m + y: a start shifted by 10^6 periods gives the same y, so in
  # single precision the same paths shifted exactly
  near <- drv(20, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.01, periods = 20,
              init = list(x = 0.3), seed = 4)
  far <- drv(20, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.01, periods = 20,
             init = list(x = 1e6 + 0.3), seed = 4)
  expect_identical(attr(far, "paths")$x - 1e6, attr(near, "paths")$x)
  expect_identical(far$v_mean, near$v_mean)
  expect_identical(far$D_eff, near$D_eff)
})

test_that("kept trajectories start at x(0) and end at the final state; histograms count every path", {
  x <- drv(50, a = 4.2, omega = 4.9, f = c(0.1, 0.5), beta = 0.9, theta = 0.01, periods = 12,
           steps_per_period = 60, keep = 3, output = "histogram", bins = 30)
  p <- attr(x, "paths")
  tr <- attr(x, "trajectories")
  expect_identical(nrow(tr), 2L * 3L * 13L)
  last <- tr[tr$period == 12, ]
  first <- p[p$replica <= 3, ]
  expect_identical(last$x, first$x)
  expect_identical(last$v, first$v)
  expect_true(all(tr$x[tr$period == 0] > 0 & tr$x[tr$period == 0] < 1))
  expect_equal(tr$t[tr$period == 12], rep(12 * 2 * pi / 4.9, 6))
  h <- attr(x, "histogram")
  for (c in 1:2) {
    pos <- h$position[h$position$condition == c, ]
    vel <- h$velocity[h$velocity$condition == c, ]
    expect_identical(nrow(pos), 30L)
    expect_true(all(pos$x_hi - pos$x_lo == 1)) # one bin per potential period
    expect_identical(sum(pos$count) + pos$outside[1], 50L)
    expect_identical(sum(vel$count), 50L)
    # the bins hold the paths whose floor(x) they cover
    xs <- p$x[p$condition == c]
    expect_identical(pos$count, vapply(pos$x_lo, function(l) sum(floor(xs) == l), 1L))
  }
  # the density over time: every path counted at every period (inside the
  # window or below / above it), the last period's counts those of the end
  # positions, the first those of the starts (uniform on (0, 1): bin 0)
  d <- h$density
  o <- h$outside
  expect_identical(sort(unique(d$x_lo)), as.double(-15:14)) # 30 bins centred on 0
  tot <- tapply(d$count, list(d$condition, d$period), sum) +
    tapply(o$below, list(o$condition, o$period), sum) +
    tapply(o$above, list(o$condition, o$period), sum)
  expect_true(all(tot == 50))
  expect_identical(d$count[d$period == 0 & d$x_lo == 0], c(50, 50))
  for (c in 1:2) {
    xs <- p$x[p$condition == c]
    e <- d[d$period == 12 & d$condition == c, ]
    expect_identical(e$count, vapply(e$x_lo, function(l) as.double(sum(floor(xs) == l)), 1))
    oc <- o[o$period == 12 & o$condition == c, ]
    expect_identical(c(oc$below, oc$above), c(sum(xs < -15), sum(xs >= 15)) + 0)
  }
  expect_identical(attr(drv(5, a = 1, omega = 6, f = 0, beta = 1, theta = 0, periods = 2,
                            output = "histogram", window = c(3, 7)), "histogram")$density$x_lo,
                   rep(3:6 + 0, 3))
  # the summary follows from the paths
  y <- p[p$condition == 2, ]
  expect_equal(x$v_mean[2], mean(y$v_bar))
  expect_equal(x$D_eff[2], var(y$x - y$x_tr) / (2 * x$t_obs[2]))
  expect_equal(x$v2_mean[2], mean(y$v2_bar))
})

test_that("chunks with histograms and trajectories combine into the one-call result", {
  run <- function(n, first) {
    drv(n, a = 2, omega = 3, f = c(0, 1), beta = 1, theta = 0.05, periods = 8,
        steps_per_period = 120, output = "histogram", first_replica = first, seed = 5)
  }
  whole <- run(30, 1)
  parts <- rbind(run(12, 1), run(18, 13))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_identical(attr(parts, "paths"), attr(whole, "paths"))
  expect_identical(attr(parts, "histogram"), attr(whole, "histogram")) # the density's counts add
  expect_error(rbind(run(12, 1), run(12, 1)), "overlap", class = "statphysgpu_error")
  other <- drv(10, a = 2, omega = 3, f = c(0, 1), beta = 1, theta = 0.05, periods = 9,
               steps_per_period = 120, output = "histogram", first_replica = 13, seed = 5)
  expect_error(rbind(run(12, 1), other), "chunks of one simulation",
               class = "statphysgpu_error")
})

test_that("bad input: clear errors naming the argument; coarse steps warn", {
  ok <- list(replicas = 4, a = 1, omega = 6, f = 0, beta = 1, theta = 0.1, periods = 2,
             backend = "cpu", progress = FALSE, seed = 1)
  bad <- function(...) do.call(driven_brownian, modifyList(ok, list(...)))
  expect_error(bad(replicas = 2.5), "`replicas` must be a single whole number", class = "statphysgpu_error")
  expect_error(bad(a = NA), "`a` must be", class = "statphysgpu_error")
  expect_error(bad(f = Inf), "`f` must be", class = "statphysgpu_error")
  expect_error(bad(omega = 0), "`omega` must be", class = "statphysgpu_error")
  expect_error(bad(beta = -1), "`beta` must be", class = "statphysgpu_error")
  expect_error(bad(theta = -0.1), "`theta` must be", class = "statphysgpu_error")
  expect_error(bad(theta = NaN), "`theta` must be", class = "statphysgpu_error")
  expect_error(bad(periods = 0), "`periods` must be", class = "statphysgpu_error")
  expect_error(bad(steps_per_period = 0), "`steps_per_period` must be",
               class = "statphysgpu_error")
  expect_error(bad(transient = 1), "`transient` must be", class = "statphysgpu_error")
  expect_error(bad(method = "rk4"), "`method` must be one of", class = "statphysgpu_error")
  expect_error(bad(output = "all"), "`output` must be one of", class = "statphysgpu_error")
  expect_error(bad(bins = 0), "`bins` must be", class = "statphysgpu_error")
  expect_error(bad(keep = -1), "`keep` must be", class = "statphysgpu_error")
  expect_error(bad(keep = 1.5), "`keep` must be", class = "statphysgpu_error")
  expect_error(bad(init = list(x = 1:3)), "`init\\$x` must be NULL", class = "statphysgpu_error")
  expect_error(bad(init = list(x = 2^31)), "`init\\$x` must be NULL", class = "statphysgpu_error")
  expect_error(bad(output = "histogram", window = c(2, 1)), "`window` must be",
               class = "statphysgpu_error")
  expect_error(bad(output = "histogram", window = c(0, 2^20), periods = 2^12),
               "the density over time has", class = "statphysgpu_error")
  expect_error(bad(init = list(v = NA_real_)), "`init\\$v` must be NULL", class = "statphysgpu_error")
  expect_error(bad(a = seq_len(2^12), f = seq_len(2^12 + 1)),
               "16,781,312 conditions; at most 2\\^24", class = "statphysgpu_error")
  expect_error(bad(replicas = 2^30, a = 1:3), "would have 3,221,225,472 rows",
               class = "statphysgpu_error")
  expect_error(bad(keep = 4, periods = 2^33), "samples \\(about", class = "statphysgpu_error")
  b <- sp_backends()
  if (!b$available[b$backend == "gpu"]) {
    expect_error(bad(backend = "gpu"), "the GPU backend is unavailable: .+",
                 class = "statphysgpu_no_gpu")
  }
  # coarse: dt * 2 pi = (2 pi)^2 / 60 > 0.25 (and the thermal bias is 47 per cent)
  expect_warning(expect_warning(bad(steps_per_period = 10), "the step is coarse for the dynamics",
                                class = "statphysgpu_step_warning"),
                 "biases the thermal fluctuations", class = "statphysgpu_step_warning")
  expect_no_warning(bad(steps_per_period = 300))
})

test_that("the step warning fires where SRK2 biases <v^2> by more than 0.1 per cent", {
  # gamma = 3, omega = 1, 200 steps a period: dt = 0.0314, where the audit
  # measured <v^2> 0.6 per cent low (z = -5); the linearised SRK2 step gives
  # -0.78 per cent.  The old time-scale criterion, dt max(2 pi, gamma) =
  # 0.197 < 0.25, let it pass.
  args <- list(replicas = 2, a = 0, omega = 1, f = 0, beta = 3, theta = 0.5, periods = 1,
               backend = "cpu", progress = FALSE, seed = 1)
  run <- function(...) do.call(driven_brownian, modifyList(args, list(...)))
  expect_warning(run(steps_per_period = 200), "srk2 step dt = 0.0314 biases the thermal",
                 class = "statphysgpu_step_warning")
  # ten times finer: the bias is -1.1e-4
  expect_no_warning(run(steps_per_period = 2000))
  lin <- statphysgpu:::escape_linear_step("srk2", 2 * pi / 2000, 3, 4 * pi^2)
  expect_lt(abs(lin$T_v - 1), 2e-4)
  # without noise the thermal bias does not apply
  expect_no_warning(run(steps_per_period = 200, theta = 0))
  # Euler's bias is first order, about 4 pi^2 dt / gamma: 4.8 per cent even
  # at 2000 steps a period
  expect_warning(run(steps_per_period = 2000, method = "euler"), "euler step .* biases",
                 class = "statphysgpu_step_warning")
})

test_that("the linearised SRK2 bias of <v^2> is the one the engine shows", {
  # at the bottom of the potential with small D0 the dynamics is the
  # linearised one: gamma = 3, D0 = 0.002 (the barrier is 1000 D0: no
  # hops), omega = 1 and 100 or 50 steps a period (dt = 0.063, 0.126).
  # Predicted <v^2> / D0 = 0.9871 and 1.1090; 1000 paths of 24 periods after
  # the transient give a standard error of 0.2 per cent: |z| < 4 against
  # the prediction, |z| > 4 against no bias (5.5 and 45 at these seeds).
  for (spp in c(100, 50)) {
    lin <- statphysgpu:::escape_linear_step("srk2", 2 * pi / spp, 3, 4 * pi^2)
    x <- without_step_warnings(
      drv(1000, a = 0, omega = 1, f = 0, beta = 3, theta = 0.002, periods = 30,
          steps_per_period = spp, init = list(x = 0.75), transient = 0.2, seed = 5,
          precision = "double"))
    expect_lt(abs((x$v2_mean - lin$T_v * 0.002) / x$v2_se), 4)
    expect_gt(abs((x$v2_mean - 0.002) / x$v2_se), 4)
  }
})

test_that("kept trajectories are those of replicas 1..keep; chunks combine into the one call", {
  run <- function(first, m, keep = 5, ...) {
    drv(m, a = 2, omega = 3, f = c(0, 1), beta = 1, theta = 0.05, periods = 4,
        steps_per_period = 150, keep = keep, first_replica = first, seed = 6, ...)
  }
  whole <- run(1, 12)
  tr <- attr(whole, "trajectories")
  expect_identical(sort(unique(tr$replica)), as.double(1:5))
  ch <- replica_chunks(12, size = 3) # keeps 3, 2, 0 and 0 paths
  parts <- do.call(rbind, Map(run, ch$first_replica, ch$replicas))
  expect_identical(attr(parts, "trajectories"), tr)
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_null(attr(run(7, 3), "trajectories"))
  # keep beyond the replicas of a call keeps all of them
  expect_identical(sort(unique(attr(run(1, 3), "trajectories")$replica)), as.double(1:3))
  # output = "trajectories" keeps replicas 1..10 the same way
  w10 <- run(1, 12, output = "trajectories", keep = 0)
  p10 <- rbind(run(1, 8, output = "trajectories", keep = 0),
               run(9, 4, output = "trajectories", keep = 0))
  expect_identical(sort(unique(attr(w10, "trajectories")$replica)), as.double(1:10))
  expect_identical(attr(p10, "trajectories"), attr(w10, "trajectories"))
})

test_that("the rows of each condition: ranges when sorted, indices when not, NULL for all", {
  cr <- statphysgpu:::condition_rows
  expect_identical(cr(rep(1L, 5), 1), list(NULL))
  expect_identical(cr(c(1L, 1L, 3L, 3L, 3L), 3), list(1:2, integer(), 3:5))
  expect_identical(cr(c(2L, 1L, 2L, 1L), 2), list(c(2L, 4L), c(1L, 3L)))
  expect_identical(cr(c(2L, 2L), 2), list(integer(), NULL))
  # the per-condition table of a result does not depend on the order of its paths
  x <- driven_brownian(30, a = 1, omega = 2, f = c(0, 0.5, 1), beta = 1, theta = 0.1,
                       periods = 4, steps_per_period = 400, seed = 3, backend = "cpu")
  p <- attr(x, "paths")
  o <- rev(seq_len(nrow(p)))
  meta <- lapply(c(conditions = "conditions", dt = "dt", periods = "periods",
                   steps_per_period = "steps_per_period",
                   transient_periods = "transient_periods", steps = "steps",
                   method = "method", output = "output", bins = "bins"),
                 function(a) attr(x, a))
  y <- statphysgpu:::driven_assemble(p[o, ], NULL, meta)
  class(y) <- class(x)
  expect_equal(as.data.frame(y), as.data.frame(x), tolerance = 1e-14)
})

test_that("print, summary, plot and autoplot work", {
  x <- drv(20, a = 4.2, omega = 4.9, f = c(0, 0.5), beta = 0.9, theta = 0.01, periods = 6,
           steps_per_period = 50, keep = 2, output = "histogram")
  expect_output(print(x), "<driven_paths> 40 paths, 2 conditions")
  s <- summary(x)
  expect_s3_class(s, "summary.driven_paths")
  expect_output(print(s), "D_eff")
  expect_identical(as.data.frame(x, paths = TRUE), attr(x, "paths"))
  pdf(NULL)
  on.exit(dev.off())
  for (ty in c("velocity", "histogram", "trajectories")) expect_invisible(plot(x, type = ty))
  expect_error(plot(drv(4, a = 1, omega = 6, f = 0, beta = 1, theta = 0, periods = 1),
                    type = "histogram"), "output = \"histogram\"",
               class = "statphysgpu_error")
  skip_if_not_installed("ggplot2")
  for (ty in c("velocity", "histogram", "trajectories")) {
    expect_s3_class(ggplot2::autoplot(x, type = ty), "ggplot")
  }
})

# ---- continuation: init = a previous result --------------------------------

test_that("init = a result continued by b periods is one run of a + b periods", {
  run <- function(periods, transient, ...) {
    driven_brownian(40, a = 4.2, omega = 4.9, f = c(0, 0.5), beta = 0.9, theta = 0.01,
                    periods = periods, transient = transient, steps_per_period = 50,
                    seed = 1, backend = "cpu", progress = FALSE, ...)
  }
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    a <- without_step_warnings(run(10, 0.1, precision = prec, method = m))
    b <- without_step_warnings(driven_brownian(init = a, periods = 10, backend = "cpu",
                                               progress = FALSE))
    # the transient of the first run (1 period) stays: one run of 20
    # periods with that transient
    w <- without_step_warnings(run(20, 0.05, precision = prec, method = m))
    expect_identical(attr(w, "transient_periods"), attr(a, "transient_periods"))
    expect_identical(as.data.frame(b), as.data.frame(w))
    expect_identical(attr(b, "paths"), attr(w, "paths"))
    expect_identical(attr(b, "state"), attr(w, "state"))
    expect_identical(attr(b, "periods"), 20)
    expect_identical(attr(b, "steps"), attr(w, "steps"))
  }
  # kept trajectories and the density over time continue too
  a <- run(10, 0.1, output = "histogram", keep = 3, window = c(-5, 15))
  b <- driven_brownian(init = a, periods = 7, backend = "cpu", progress = FALSE)
  w <- run(17, 1 / 17, output = "histogram", keep = 3, window = c(-5, 15))
  expect_identical(as.data.frame(b), as.data.frame(w))
  expect_identical(attr(b, "trajectories"), attr(w, "trajectories"))
  expect_identical(attr(b, "histogram"), attr(w, "histogram"))
  # nothing more to run: the result itself
  expect_identical(driven_brownian(init = b, periods = 0, backend = "cpu"), b)
})

test_that("continuation and rbind() of chunks commute", {
  run <- function(n, first = 1, periods = 10, transient = 0.1) {
    driven_brownian(n, a = 4.2, omega = 4.9, f = 0.5, beta = 0.9, theta = 0.01,
                    periods = periods, transient = transient, steps_per_period = 50,
                    seed = 2, first_replica = first, keep = 35, backend = "cpu",
                    progress = FALSE)
  }
  cont <- function(x) driven_brownian(init = x, periods = 5, backend = "cpu", progress = FALSE)
  whole <- run(50, periods = 15, transient = 1 / 15)
  ab <- rbind(cont(run(30)), cont(run(20, first = 31)))
  expect_identical(as.data.frame(ab), as.data.frame(whole))
  expect_identical(attr(ab, "paths"), attr(whole, "paths"))
  expect_identical(attr(ab, "state"), attr(whole, "state"))
  expect_identical(attr(ab, "trajectories"), attr(whole, "trajectories"))
  ab2 <- cont(rbind(run(30), run(20, first = 31)))
  expect_identical(as.data.frame(ab2), as.data.frame(whole))
  expect_identical(attr(ab2, "paths"), attr(whole, "paths"))
})

test_that("an interrupted run continues to the uninterrupted result, mid-period", {
  skip_on_os("windows")
  run <- function(periods, transient) {
    driven_brownian(8000, a = 4.2, omega = 4.9, f = 0.5, beta = 0.9, theta = 0.01,
                    periods = periods, transient = transient, steps_per_period = 100,
                    output = "histogram", keep = 2, seed = 1, backend = "cpu",
                    progress = FALSE)
  }
  # one thread: the run lasts well past the interrupt on any machine
  job <- interrupt_after(0.5)
  expect_warning(x <- with_threads(1, run(300, 0.1)), class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_lt(attr(x, "steps"), 300 * 100)
  y <- driven_brownian(init = x, periods = 100, backend = "cpu", progress = FALSE)
  w <- run(400, 30.5 / 400) # the transient of x: 30 periods
  expect_identical(as.data.frame(y), as.data.frame(w))
  expect_identical(attr(y, "paths"), attr(w, "paths"))
  expect_identical(attr(y, "trajectories"), attr(w, "trajectories"))
  expect_identical(attr(y, "histogram"), attr(w, "histogram"))
  expect_false(attr(y, "interrupted"))
})

test_that("continuing: a modified or mismatched result is refused clearly", {
  x <- driven_brownian(20, a = 4.2, omega = 4.9, f = 0.5, beta = 0.9, theta = 0.01,
                       periods = 5, steps_per_period = 50, seed = 1, backend = "cpu")
  go <- function(...) driven_brownian(init = x, backend = "cpu", progress = FALSE, ...)
  expect_error(go(), "give `periods` to continue `init`", class = "statphysgpu_error")
  expect_error(go(periods = 5, transient = 0.2), "`transient` cannot be given when continuing",
               class = "statphysgpu_error")
  expect_error(go(periods = 5, seed = 2), "`init` was run with seed = ", class = "statphysgpu_error")
  expect_error(go(periods = 5, f = 0.4), "`init` was run with f = 0.5, this call has 0.4",
               class = "statphysgpu_error")
  expect_error(go(periods = 5, steps_per_period = 60),
               "`init` was run with steps_per_period = 50", class = "statphysgpu_error")
  expect_error(go(periods = 5, precision = "double"), "`init` was run with precision = single",
               class = "statphysgpu_error")
  expect_error(go(periods = 5, output = "histogram"), "`init` was run with output = summary",
               class = "statphysgpu_error")
  # a modified result is refused by its seal, naming what changed; sealed
  # again (as if made so), by the checks of what the continuation reads
  y <- x
  attr(y, "state") <- NULL
  expect_error(driven_brownian(init = y, periods = 5), "modified after it was run: its attribute `state`",
               class = "statphysgpu_modified_result")
  expect_error(driven_brownian(init = reseal(y), periods = 5), "has no end state",
               class = "statphysgpu_error")
  y <- x
  attr(y, "state")$m[2] <- 0.5
  expect_error(driven_brownian(init = y, periods = 5), "its attribute `state`",
               class = "statphysgpu_modified_result")
  expect_error(driven_brownian(init = reseal(y), periods = 5),
               "no usable end state of its paths: replica 2 of condition 1",
               class = "statphysgpu_error")
  y <- x
  attr(y, "steps") <- 1e9
  expect_error(driven_brownian(init = y, periods = 5), "its attribute `steps`",
               class = "statphysgpu_modified_result")
  expect_error(driven_brownian(init = reseal(y), periods = 5), "its step count",
               class = "statphysgpu_error")
})
