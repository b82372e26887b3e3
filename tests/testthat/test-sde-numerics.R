# The numerics of a user's model on the CPU (issue 32, item 3): time exact
# in single precision, increments below a state's resolution, events that
# are not logical, the Brownian-bridge correction of passage times,
# h_check() of passage results, the labels and plots of the results, t_max
# not a whole number of steps.  The models are made once (compiled once).

# Heavy: user models compiled, convergence orders measured (10 s). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

drive <- sde_model(drift = list(y = ~ cos(omega * t)), params = c(omega = 2.3),
                   observe = list(c = ~ cos(omega * t)), name = "drive")
acc <- sde_model(drift = list(c = ~ 1), stop = ~ c > 1e5, name = "acc")
bm1 <- sde_bm_level() # (helper-sde.R) drift mu, noise s, stop x > 1, name "bm"

test_that("time is exact in single precision: a drive at t ~ 1e6 is computed in double", {
  skip_if_no_cc()
  # t = k dt in double; cos(omega * t) of t and the parameters only is
  # evaluated in double and rounded once (it was float t, rounded by up to
  # 1/32 at 1e6, and a float product omega t: the drive's phase off by up
  # to 0.3 rad, the integral below by 29 per cent)
  code <- sde_code(drive)
  expect_match(code, "((SP_REAL)SP_D_COS((pd[0] * t)))", fixed = TRUE)
  # parameter-only parts inside stay hoisted (computed once per condition)
  two <- sde_model(drift = list(x = ~ -x + a * cos(2 * pi * f * t)), params = c(a = 1, f = 2))
  expect_match(sde_code(two), "p[2] = 2 * pi * f", fixed = TRUE)
  expect_match(sde_code(two), "SP_D_COS((pd[2] * t))", fixed = TRUE)
  dt <- 0.1
  t_end <- 1e6 + 100
  run <- function(precision) {
    r <- as.data.frame(sde_run(drive, 1, init = list(y = 0), dt = dt, t_max = t_end,
                               output = "trajectories", keep = 1, record_every = 1000,
                               seed = 1, backend = "cpu", precision = precision,
                               method = "euler"))
    utils::tail(r, 2)
  }
  s <- run("single")
  d <- run("double")
  expect_equal(s$time, c(1e6, t_end))
  # the observable: cos(2.3 t) of the double t, rounded once to float:
  # within half a unit of the last place, 2^-25 for |c| < 1
  expect_lt(max(abs(s$c - cos(2.3 * s$time))), 2^-25)
  # the integral of the last 100 time units, the left Riemann sum of Euler
  # (-0.469; -0.607 before): the float accumulation of y (|y| < 1, ulp
  # 2^-24 at most) rounds each of the 1000 steps by at most 2^-25
  k <- round(1e6 / dt):(round(t_end / dt) - 1)
  ref <- sum(cos(2.3 * k * dt)) * dt
  expect_lt(abs(diff(s$y) - ref), 1000 * 2^-25)
  expect_lt(abs(diff(d$y) - ref), 1e-9)
})

test_that("a state whose increments fall below its resolution stops the run; ordinary ones do not", {
  skip_if_no_cc()
  # c = t in single precision: its increments of 0.01 keep fewer than 5 bits
  # (2^-19 c) from c = 0.01 2^19 = 5243 on; 65536 steps later (655 time
  # units, at t ~ 5900: c runs 2.3% slow there, 0.01 rounding to 20 units
  # of 2^-11) the run stops, naming the state, the replica and the time
  err <- expect_error(sde_run(acc, 2, init = list(c = c(0, 1e5 - 1)), dt = 0.01, t_max = 2e5,
                              seed = 1, backend = "cpu", method = "euler"),
                      class = "statphysgpu_resolution")
  expect_match(conditionMessage(err), "`c` of replica 1 \\(condition 1\\)")
  expect_match(conditionMessage(err), "precision = \"double\"")
  t <- as.numeric(sub(".*up to t = ([0-9.e+-]+).*", "\\1", conditionMessage(err)))
  expect_gt(t, 5243 + 655 - 200)
  expect_lt(t, 5243 + 655 + 200)
  # the fixed-length outputs too (the issue: to t = 1e6 it returned 2^18)
  expect_error(sde_run(acc, 1, init = list(c = 0), dt = 0.01, t_max = 1e6, output = "moments",
                       record_every = 1e5, seed = 1, backend = "cpu", method = "euler"),
               class = "statphysgpu_resolution")
  # with a noise term (one normal a step: macro-steps of four steps, the
  # coarse test at each fourth step) the same stall is found as soon: the
  # noise (1e-8 a step) leaves the increments coarse
  accn <- sde_model(drift = list(c = ~ 1), noise = list(c = ~ 1e-7), stop = ~ c > 1e5,
                    name = "acc_noise")
  err <- expect_error(sde_run(accn, 2, init = list(c = c(0, 1e5 - 1)), dt = 0.01, t_max = 2e5,
                              seed = 1, backend = "cpu", method = "euler"),
                      class = "statphysgpu_resolution")
  expect_match(conditionMessage(err), "`c` of replica 1 \\(condition 1\\)")
  tn <- as.numeric(sub(".*up to t = ([0-9.e+-]+).*", "\\1", conditionMessage(err)))
  expect_lt(abs(tn - t), 0.04 + 1e-9) # within a macro-step (4 steps of 0.01)
  # in double precision the passage at 1e5 is on time
  r <- sde_run(acc, 1, init = list(c = 0), dt = 0.01, t_max = 2e5, seed = 1, backend = "cpu",
               method = "euler", precision = "double")
  expect_true(r$escaped)
  expect_equal(r$value, 1e5, tolerance = 1e-9)
  # a noise-free relaxation rounded to rest near its fixed point (1/3, 50
  # units of the last place away at lambda dt = 0.01), and a damped
  # pendulum come to rest (the washboard without noise), in single
  # precision for 2e5 steps, three times the run that is examined: at rest
  # near a zero of the drift, not stalled
  ode <- sde_model(drift = list(x = ~ -(x - 1 / 3)), name = "relax")
  r <- sde_run(ode, 3, init = list(x = c(0, 1, -5)), dt = 0.01, t_max = 2000,
               output = "moments", record_every = 2e5, seed = 1, backend = "cpu",
               method = "euler")
  last <- as.data.frame(r)
  expect_lt(abs(last$mean[nrow(last)] - 1 / 3), 100 * 2^-25)
  pend <- sde_model(drift = list(x = ~ v, v = ~ -v + 0.3 - sin(x)), name = "pendulum")
  expect_error(sde_run(pend, 2, init = list(x = 0, v = c(0.1, 1)), dt = 0.01, t_max = 2000,
                       output = "moments", record_every = 2e5, seed = 1, backend = "cpu"), NA)
  # and noise: an Ornstein-Uhlenbeck process about 3, 32 paths of 2e5 steps
  ou3 <- sde_model(drift = list(x = ~ -(x - 3)), noise = list(x = ~ 0.5), name = "ou3")
  expect_error(sde_run(ou3, 32, init = list(x = 3), dt = 0.01, t_max = 2000,
                       output = "moments", record_every = 2e5, seed = 1, backend = "cpu",
                       method = "euler"), NA)
})

test_that("a stop event that is not true or false is refused in sde_model()", {
  mk <- function(stop) sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), stop = stop)
  for (bad in list(~ x - 1, ~ x, ~ abs(x) - 1, ~ (x - 1), ~ ifelse(x > 0, 1, 0), ~ TRUE, 1)) {
    expect_error(mk(bad), "is not an event.*comparison", class = "statphysgpu_error")
  }
  for (ok in list(~ x > 1, ~ (x > 1), ~ !(x <= 1), ~ x > 1 | x < -1, ~ x > 1 & t > 2,
                  ~ ifelse(x > 0, x > 1, x < -1), ~ ifelse(t > 1, TRUE, x > 2), ~ x == 2)) {
    expect_s3_class(mk(ok), "sde_model")
  }
})

test_that("Brownian bridge: passage times of Brownian motion with drift follow the inverse Gaussian law at the level itself", {
  skip_if_no_cc()
  # dx = mu dt + s dW from 0 to the level 1: T ~ IG(mean 1 / mu, shape
  # 1 / s^2), the law of sde_run()'s passage with bridge = TRUE exactly
  # (Euler is exact at the steps, the path between them a Brownian
  # bridge); checked once a step (bridge = FALSE) the level moves up by
  # 0.5826 s sqrt(dt), the mean by 5.8% at dt = 0.01 (8 standard errors)
  pig <- function(t) {
    stats::pnorm(sqrt(1 / t) * (t - 1)) + exp(2) * stats::pnorm(-sqrt(1 / t) * (t + 1))
  }
  n <- 20000
  run <- function(bridge) {
    sde_run(bm1, n, init = list(x = 0), dt = 0.01, t_max = 50, seed = 7, backend = "cpu",
            precision = "double", method = "euler", bridge = bridge)
  }
  on <- run(TRUE)
  off <- run(FALSE)
  expect_true(attr(on, "bridge"))
  expect_false(attr(off, "bridge"))
  expect_true(all(on$escaped) && all(off$escaped))
  # Kolmogorov-Smirnov against the continuous law: D < 1.63 / sqrt(n), the
  # 1% critical value; and the mean (sd of IG(1, 1): 1): |z| < 4
  D <- function(v) max(abs(stats::ecdf(v)(sort(v)) - pig(sort(v))),
                       abs(stats::ecdf(v)(sort(v)) - 1 / n - pig(sort(v))))
  expect_lt(D(on$value), 1.63 / sqrt(n))
  expect_lt(abs(mean(on$value) - 1) / (stats::sd(on$value) / sqrt(n)), 4)
  expect_gt(D(off$value), 1.63 / sqrt(n))
  expect_gt((mean(off$value) - 1) / (stats::sd(off$value) / sqrt(n)), 4)
  # single precision and Heun: the same law
  s <- sde_run(bm1, n, init = list(x = 0), dt = 0.01, t_max = 50, seed = 8, backend = "cpu",
               precision = "single", method = "srk2")
  expect_lt(D(s$value), 1.63 / sqrt(n))
  # an event on a state without noise (the washboard's position) has no bridge
  expect_false(statphysgpu:::sde_bridge_available(sde_washboard()))
  expect_match(sde_code(bm1), "#define SP_SDE_BRIDGE 1", fixed = TRUE)
})

test_that("Brownian bridge: each step is tested with its own uniform, the passage placed inside it", {
  skip_if_no_cc()
  # the decisions replayed in R from the trajectories (the same streams)
  # and the bridge's Philox numbers (purpose 17, block k for step k + 1)
  n <- 60
  dt <- 0.01
  kmax <- 250
  args <- list(model = bm1, replicas = n, init = list(x = 0), dt = dt, t_max = kmax * dt, seed = 9,
               backend = "cpu", precision = "double", method = "euler", progress = FALSE)
  p <- do.call(sde_run, args)
  tr <- as.data.frame(do.call(sde_run, c(args, output = "trajectories", keep = n,
                                         record_every = 1)))
  tr <- tr[order(tr$replica, tr$time), ]
  x <- matrix(tr$x, nrow = kmax + 1)
  u01 <- function(w) (w + 0.5) * 2^-32
  first <- vapply(seq_len(n), function(r) {
    g0 <- x[1:kmax, r] - 1
    g1 <- x[2:(kmax + 1), r] - 1
    arg <- 2 * g0 * g1 / dt # s = 1
    near <- which(g0 < 0 & g1 <= 0 & arg < 24) - 1 # the steps k the bridge tests
    u <- rep(1, kmax)
    if (length(near)) { # word x of blocks min(near) .. max(near), one call
      w <- philox_uint32(4 * (max(near) - min(near) + 1), seed = 9, stream = r - 1,
                         offset = sprintf("0x44%014x", 4 * min(near)), backend = "cpu")
      u[near + 1] <- u01(w[4 * (near - min(near)) + 1])
    }
    hit <- which(g1 > 0 | (g0 < 0 & g1 <= 0 & arg < 24 & u < exp(-arg)))
    if (length(hit)) hit[1] - 1 else NA_real_
  }, 0)
  expect_identical(p$escaped, !is.na(first))
  e <- which(!is.na(first))
  expect_true(all(p$value[e] >= first[e] * dt & p$value[e] <= (first[e] + 1) * dt))
  # some passages found by the bridge alone (the path short of the level at
  # both ends of its step)
  below <- x[cbind(first[e] + 2, e)] <= 1
  expect_gt(sum(below), 0)
})

test_that("h_check() reruns a passage result of sde_run() at dt / 2 with its model", {
  skip_if_no_cc()
  r <- sde_run(bm1, 2000, init = list(x = 0), dt = 0.02, t_max = 30, seed = 3, backend = "cpu",
               precision = "double", method = "euler")
  h <- h_check(r, progress = FALSE)
  expect_s3_class(h, "sp_h_check")
  expect_identical(attr(h, "order"), 1)
  y <- attr(h, "rerun")
  expect_identical(attr(y, "dt"), 0.01)
  expect_identical(attr(y, "model"), "bm")
  expect_identical(attr(y, "seed_hex"), attr(r, "seed_hex"))
  # with the bridge, Brownian motion with drift has no step bias: two
  # independent estimates of one mean, |z| < 4
  expect_lt(abs(h$z), 4)
  # checked once a step, the order of the monitoring is 1/2
  r0 <- sde_run(bm1, 200, init = list(x = 0), dt = 0.02, t_max = 30, seed = 3, backend = "cpu",
                precision = "double", bridge = FALSE)
  expect_identical(attr(h_check(r0, progress = FALSE), "order"), 0.5)
  expect_output(print(h), "order 1")
  expect_error(h_check(data.frame(value = 1)), "sde_run\\(output = \"passage\"\\)")
  expect_false(grepl("0\\.2", tryCatch(h_check(1), error = conditionMessage)))
})

test_that("passage plots and summaries of a user model say passage times in its units; histograms plot", {
  skip_if_no_cc()
  r <- sde_run(bm1, 200, init = list(x = 0), dt = 0.02, t_max = 30, seed = 3, backend = "cpu")
  expect_identical(statphysgpu:::paths_title(r, "cdf"),
                   "Passage times of model \"bm\", cumulative distribution")
  expect_match(statphysgpu:::value_label(r), "passage time t \\(the time unit of model \"bm\"\\)")
  expect_false(grepl("hbar", statphysgpu:::value_label(r)))
  expect_output(print(summary(r)), "Passage times of model \"bm\" by condition")
  expect_error(plot(r, theory = "kramers"), "washboard")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(r))
  h <- sde_run(bm1, 300, init = list(x = 0), dt = 0.02, t_max = 1, output = "histogram",
               record_every = 10, seed = 3, backend = "cpu",
               bins = list(x = seq(-2, 3, by = 0.25)))
  expect_identical(plot(h), h)
  expect_silent(plot(h, times = c(0.2, 1)))
  expect_error(plot(h, variable = "v"), "does not hold")
  expect_error(plot(h, times = 0.33), "record times")
})

test_that("t_max past the last whole step: the fixed-length outputs end at the last whole step and say so", {
  skip_if_no_cc()
  expect_warning(
    m <- sde_run(bm1, 10, init = list(x = 0), dt = 0.3, t_max = 1, output = "moments",
                 record_every = 1, seed = 1, backend = "cpu"),
    "not a whole number of steps.*to t = 0.9", class = "statphysgpu_t_max_warning")
  d <- as.data.frame(m)
  expect_equal(sort(unique(d$time)), c(0, 0.3, 0.6, 0.9))
  expect_equal(attr(m, "t_max"), 0.9)
  # a whole number of steps (to rounding) runs to t_max, silently
  expect_silent(sde_run(bm1, 10, init = list(x = 0), dt = 0.1, t_max = 0.3, output = "moments",
                        seed = 1, backend = "cpu"))
  # passage times: censored at t_max itself
  p <- sde_run(bm1, 50, init = list(x = -5), dt = 0.3, t_max = 1, seed = 1, backend = "cpu")
  expect_true(all(p$value <= 1))
})

test_that("the kernels of these paths compile with NVRTC (no GPU needed)", {
  skip_if_no_nvrtc()
  skip_if_second_build() # the same sources and R code in both builds
  local_kernel_cache()
  # the bridge (an event on a noisy state, multiplicative noise), time in
  # double (pd), both precisions; the AMS kernels with the model's new
  # signatures
  gbm <- sde_model(drift = list(x = ~ mu * x + cos(omega * t)), noise = list(x = ~ sigma * x),
                   params = c(mu = 0.5, sigma = 0.5, omega = 2), stop = ~ x > 2 * cos(t),
                   observe = list(o = ~ x * sin(t)), name = "gbm_t")
  for (prec in c("single", "double")) {
    img <- statphysgpu:::sde_nvrtc_image(gbm, "sm_90", prec, if (prec == "single") "srk2" else "euler")
    expect_true(is.raw(img) && length(img) > 1000)
  }
  cubic <- sde_model(drift = list(x = ~ -x + x^2), noise = list(x = ~ sqrt(2 * theta)),
                     params = c(theta = 0.05), stop = ~ x > 1, name = "cubic")
  img <- statphysgpu:::sde_nvrtc_image(
    cubic, "sm_90", "single", "srk2", source = "ams.cu",
    defines = c("SP_AMS_SDE=1", "SP_AMS_HEUN=1"),
    headers = list(sde_ams_score.h = statphysgpu:::sde_score_header(cubic, quote(x))))
  expect_true(is.raw(img) && length(img) > 1000)
})

test_that("noise as a matrix: correlated Wiener processes and the general calculus correction", {
  skip_if_no_cc()
  # 2D Ornstein-Uhlenbeck, dX = -k X dt + B dW with B = (s1, 0; rho s2,
  # sqrt(1 - rho^2) s2): stationary covariance B B^T / (2 k), so E[x y] =
  # rho s1 s2 / (2 k).  4000 paths, the mean of x y at t = 6 (relaxed to
  # exp(-12)); accepted |z| < 4 with its standard error.
  B <- matrix(list(~ s1, 0, ~ rho * s2, ~ sqrt(1 - rho^2) * s2), 2, 2, byrow = TRUE,
              dimnames = list(c("x", "y"), c("a", "b")))
  ou2 <- sde_model(drift = list(x = ~ -k * x, y = ~ -k * y), noise = B,
                   params = c(k = 1, s1 = 1, s2 = 2, rho = 0.6),
                   observe = list(xy = ~ x * y), name = "ou2")
  expect_output(print(ou2), "2 Wiener processes \\(a, b\\) on x, y")
  expect_output(print(ou2), "dy = \\(-k \\* y\\) dt \\+ \\(rho \\* s2\\) dW_a \\+ \\(sqrt\\(1 - rho\\^2\\) \\* s2\\) dW_b")
  r <- sde_run(ou2, 4000, init = list(x = 0, y = 0), dt = 0.01, t_max = 6, output = "moments",
               record_every = 600, seed = 1, backend = "cpu", precision = "double")
  end <- r[r$time == 6, ]
  xy <- end[end$variable == "xy", ]
  expect_lt(abs((xy$mean - 0.6 * 2 / 2) / xy$se), 4)
  sx <- end$sd[end$variable == "x"]
  expect_lt(abs(sx^2 - 0.5), 4 * sqrt(2 / 4000) * 0.5)
  # the general correction: dx = y o dW, dy = s o dW (one process, Stratonovich):
  # Ito drift of x = (1/2) b_y d(b_x)/dy = s / 2, so E x(t) = s t / 2 exactly
  # (and E x(t) = 0 read as Ito); both methods solve the declared equation
  m <- sde_model(drift = list(x = ~ 0, y = ~ 0),
                 noise = matrix(list(~ y, ~ s), 2, 1, dimnames = list(c("x", "y"), "w")),
                 params = c(s = 0.8), calculus = "stratonovich", observe = list(), name = "strat2")
  for (meth in c("euler", "srk2")) {
    r <- sde_run(m, 20000, init = list(x = 0, y = 0), dt = 0.01, t_max = 1, output = "moments",
                 record_every = 100, method = meth, seed = 2, backend = "cpu", precision = "double")
    x1 <- r[r$variable == "x" & r$time == 1, ]
    # sd of x(1) is about s sqrt(t^2 / 2): z-score accepted |z| < 4
    expect_lt(abs((x1$mean - 0.4) / x1$se), 4, label = meth)
  }
  mi <- sde_model(drift = list(x = ~ 0, y = ~ 0),
                  noise = matrix(list(~ y, ~ s), 2, 1, dimnames = list(c("x", "y"), "w")),
                  params = c(s = 0.8), name = "ito2")
  r <- sde_run(mi, 20000, init = list(x = 0, y = 0), dt = 0.01, t_max = 1, output = "moments",
               record_every = 100, method = "srk2", seed = 2, backend = "cpu", precision = "double")
  x1 <- r[r$variable == "x" & r$time == 1, ]
  expect_lt(abs(x1$mean / x1$se), 4)
  expect_error(sde_model(drift = list(x = ~ 0), noise = matrix(list(0, 0), 1, 2)),
               "the noise matrix is zero")
  expect_error(sde_model(drift = list(x = ~ 0), noise = matrix(list(~ 1), 1, 1,
                                                               dimnames = list("z", NULL))),
               "`z` is not a state")
})
