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
    sde_ams(m, ~ x, A = 0.15, init = list(x = 0), dt = 0.01, particles = 100, replicas = n,
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
    x <- sde_ams(m, ~ x, A = 0.1, init = list(x = 0), dt = dt, params = list(theta = theta),
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
  s <- sde_ams(m, ~ x, A = ~ asin(gamma) + 0.5, B = NULL,
               init = list(x = ~ asin(gamma), v = 0), dt = 0.01, particles = 200,
               replicas = 128, seed = 9, backend = "gpu", progress = FALSE)
  expect_lt(abs(s$mfpt - w$mfpt) / sqrt(s$mfpt_se^2 + w$mfpt_se^2), 4)
})
