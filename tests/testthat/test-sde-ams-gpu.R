# Adaptive multilevel splitting for a user's SDE model on the GPU
# (sde_ams()).  Sizes are for an H100; each test is well under a minute
# there (the first run of a model compiles its kernels: a few seconds).

test_that("GPU sde_ams: every replica equals the CPU's in double precision", {
  skip_if_no_gpu()
  skip_if_no_cc()
  # one state and one noise entry (macro-steps of 4), two states with noise
  # on one (the washboard), two noise entries (macro-steps of 2)
  wash <- sde_ams_washboard()
  two <- sde_ams_two()
  cases <- list(
    list(m = sde_cubic(), score = ~ x, A = 0.15, B = NULL, init = list(x = 0), dt = 0.01,
         params = list(theta = c(0.05, 0.06))),
    list(m = wash, score = ~ x, A = ~ asin(gamma) + 0.5, B = ~ pi - asin(gamma),
         init = list(x = ~ asin(gamma), v = 0), dt = 0.05, params = list(theta = c(0.3, 0.35))),
    list(m = two, score = ~ x + c * y, A = 0.15, B = NULL, init = list(x = 0, y = 0),
         dt = 0.01, params = list()))
  for (cs in cases) {
    run <- function(backend) {
      sde_ams(cs$m, cs$score, cs$A, cs$B, init = cs$init, dt = cs$dt, params = cs$params,
              particles = 200, replicas = 8, k = 3, seed = 21, first_replica = 5,
              backend = backend, precision = "double", progress = FALSE)
    }
    cpu <- attr(run("cpu"), "replicas_table")
    gpu <- run("gpu")
    expect_identical(attr(gpu, "backend"), "gpu")
    expect_ams_replicas_equal(attr(gpu, "replicas_table"), cpu, cs$m$name)
  }
})

test_that("GPU sde_ams: results do not depend on devices or chunks", {
  skip_if_no_gpu()
  m <- sde_cubic()
  run <- function(first = 1, n = 12, devices = NULL) {
    sde_ams(m, ~ x, start_edge = 0.15, init = list(x = 0), dt = 0.01, particles = 100, replicas = n,
            k = 5, seed = 22, first_replica = first, backend = "gpu", devices = devices,
            progress = FALSE)
  }
  whole <- run()
  parts <- rbind(run(1, 5), run(6, 7))
  expect_identical(attr(parts, "replicas_table"), attr(whole, "replicas_table"))
  if (nrow(gpu_devices()) > 1) {
    all <- run(devices = "all")
    expect_identical(attr(all, "replicas_table"), attr(whole, "replicas_table"))
  }
})

test_that("GPU sde_ams: the cubic well against the exact integral where brute force cannot go", {
  skip_if_no_gpu()
  m <- sde_cubic()
  dt <- 0.01
  # Delta U / theta = 6.7, 13.3 and 20 (tau up to ~1e8): single precision,
  # k = 1 (every replay must reach its level), 256 replicas of 200
  # particles; |z| < 4 with the jackknife error (the integral is exact)
  for (theta in c(0.025, 0.0125, 1 / 120)) {
    x <- sde_ams(m, ~ x, start_edge = 0.1, init = list(x = 0), dt = dt, params = list(theta = theta),
                 particles = 200, replicas = 256, k = 1, seed = 7, backend = "gpu",
                 precision = "single", progress = FALSE)
    t <- attr(x, "replicas_table")
    expect_true(all(t$status == "done"))
    tex <- cubic_mfpt(theta, dt)
    expect_lt(abs(x$mfpt - tex) / x$mfpt_se, 4, label = sprintf("theta = %g", theta))
    expect_lt(x$mfpt_se / x$mfpt, 0.05)
  }
})

test_that("GPU sde_ams: the washboard as a model agrees with escape_rate_ams() (overdamped)", {
  skip_if_no_gpu()
  g <- 0.2; V0 <- 1; beta <- 40
  theta <- barrier_height(g, V0) / 12 # Delta U / theta = 12
  m <- sde_ams_washboard(beta, V0, g, theta)
  w <- escape_rate_ams(g, V0, beta, theta, 0.01, particles = 200, replicas = 128, seed = 8,
                       phi_A = 0.5, backend = "gpu", progress = FALSE)
  s <- sde_ams(m, ~ x, start_edge = ~ asin(gamma) + 0.5, B = NULL,
               init = list(x = ~ asin(gamma), v = 0), dt = 0.01, particles = 200,
               replicas = 128, seed = 9, backend = "gpu", progress = FALSE)
  expect_lt(abs(s$mfpt - w$mfpt) / sqrt(s$mfpt_se^2 + w$mfpt_se^2), 4)
})

test_that("GPU sde_ams: drawn starts and equilibration equal the CPU's replica by replica", {
  skip_if_no_gpu()
  skip_if_no_cc()
  # start 0 is drawn on the host; the restarts (after the long trajectory
  # reached B, or after an equilibration that reached B) by the kernel: the
  # drift model restarts after every exit, the washboard at Delta U / theta
  # = 1.4 often
  wash <- sde_ams_washboard()
  cases <- list(
    list(m = sde_cubic(), score = ~ x, A = 0.15, B = NULL,
         init = list(x = ~ rnorm(0, sqrt(theta))), dt = 0.01, eq = 2,
         params = list(theta = c(0.05, 0.06)), particles = 200),
    list(m = wash, score = ~ x, A = ~ asin(gamma) + 0.5, B = ~ pi - asin(gamma),
         init = list(x = ~ rnorm(asin(gamma), sqrt(theta / (V0 * cos(asin(gamma))))),
                     v = ~ rnorm(0, sqrt(theta))),
         dt = 0.05, eq = 1, params = list(theta = c(0.3, 0.35)), particles = 200),
    list(m = sde_ams_drift(), score = ~ x, A = 0.5, B = 0.55,
         init = list(x = ~ runif(-0.3, 0)), dt = 0.01, eq = 0.6, params = list(),
         particles = 4))
  for (cs in cases) {
    run <- function(backend) {
      sde_ams(cs$m, cs$score, cs$A, cs$B, init = cs$init, dt = cs$dt, params = cs$params,
              particles = cs$particles, replicas = 8, k = if (cs$particles < 10) 1 else 3,
              seed = 10, first_replica = 2, equilibration = cs$eq, backend = backend,
              precision = "double", progress = FALSE)
    }
    cpu <- attr(run("cpu"), "replicas_table")
    gpu <- attr(run("gpu"), "replicas_table")
    expect_ams_replicas_equal(gpu, cpu, cs$m$name)
    expect_identical(gpu$n_direct, cpu$n_direct, info = cs$m$name)
    expect_equal(gpu$t_direct, cpu$t_direct, tolerance = 1e-9, info = cs$m$name)
    expect_gt(sum(cpu$n_lt_react + cpu$n_direct), 0) # restarts ran in the kernel
  }
})

test_that("GPU sde_ams: continuing a result equals one call; thermal starts as escape_rate_ams()'s", {
  skip_if_no_gpu()
  m <- sde_cubic()
  run <- function(n, init = list(x = ~ rnorm(0, sqrt(theta)))) {
    sde_ams(m, ~ x, start_edge = 0.15, init = init, dt = 0.01, particles = 100, replicas = n, k = 5,
            seed = 23, equilibration = 2, backend = "gpu", progress = FALSE)
  }
  whole <- run(12)
  cont <- sde_ams(m, init = run(5), replicas = 7, backend = "gpu", progress = FALSE)
  expect_identical(attr(cont, "replicas_table"), attr(whole, "replicas_table"))
  # the washboard from escape_times()'s thermal law (the well's Boltzmann
  # law) and from its harmonic approximation drawn by sde_ams(): the mean
  # first-passage times differ by far less than the errors; |z| < 4
  g <- 0.2; V0 <- 1; beta <- 1
  theta <- barrier_height(g, V0) / 8
  wm <- sde_ams_washboard(beta, V0, g, theta)
  w <- escape_rate_ams(g, V0, beta, theta, 0.02, particles = 200, replicas = 128, seed = 8,
                       phi_A = 0.5, init = "thermal", backend = "gpu", progress = FALSE)
  s <- sde_ams(wm, ~ x, start_edge = ~ asin(gamma) + 0.5, B = ~ pi - asin(gamma),
               init = list(x = ~ rnorm(asin(gamma), sqrt(theta / (V0 * cos(asin(gamma))))),
                           v = ~ rnorm(0, sqrt(theta))),
               dt = 0.02, particles = 200, replicas = 128, seed = 9, backend = "gpu",
               progress = FALSE)
  expect_lt(abs(s$mfpt - w$mfpt) / sqrt(s$mfpt_se^2 + w$mfpt_se^2), 4)
})
