# Issue 48 on the GPU (item 3): the AMS engine's branch launches are bounded
# in steps a task; a task that needs more is paused and launched again.

test_that("GPU AMS results do not depend on the launches (paths paused mid-way)", {
  skip_if_no_gpu()
  run <- function(backend, ...) {
    attr(escape_rate_ams(gamma = 0.3, V0 = 1, beta = 2, theta = 0.12, dt = 0.05,
                         particles = 30, replicas = 3, seed = 7, backend = backend,
                         precision = "double", progress = FALSE, ...), "replicas_table")
  }
  whole <- run("gpu")
  cpu <- run("cpu")
  expect_ams_replicas_equal(whole, cpu)
  # 40 steps a launch: every particle's run and replay is cut into pieces
  withr::local_options(statphysgpu.ams_round_steps = 40)
  expect_identical(run("gpu"), whole)
  expect_ams_replicas_equal(run("gpu", score = "energy", k = 1),
                            run("cpu", score = "energy", k = 1))
})

test_that("GPU sde_ams() results do not depend on the launches", {
  skip_if_no_gpu()
  m <- sde_cubic()
  run <- function(backend) {
    attr(sde_ams(m, score = ~ x, start_edge = 0.15, B = 1, init = list(x = ~ rnorm(0, 0.1)),
                 dt = 0.01, particles = 30, replicas = 3, seed = 3, equilibration = 1,
                 backend = backend, precision = "double", progress = FALSE), "replicas_table")
  }
  whole <- run("gpu")
  withr::local_options(statphysgpu.ams_round_steps = 25)
  expect_identical(run("gpu"), whole)
  expect_ams_replicas_equal(whole, run("cpu"))
})

test_that("Ctrl-C stops a GPU AMS run whose paths to a far threshold are long", {
  skip_if_no_gpu()
  skip_on_os("windows")
  far <- function(particles) {
    withCallingHandlers(
      escape_rate_ams(gamma = 0.5, V0 = 1, beta = 1, theta = 0.1, dt = 0.05,
                      particles = particles, replicas = 2, backend = "gpu", threshold = 1e7,
                      precision = "double", seed = 1, progress = FALSE),
      statphysgpu_ams_far_threshold = function(w) invokeRestart("muffleWarning"))
  }
  escape_rate_ams(gamma = 0.5, V0 = 1, beta = 1, theta = 0.1, dt = 0.05, particles = 20,
                  replicas = 2, backend = "gpu", precision = "double", seed = 1,
                  progress = FALSE) # the kernel compiled and loaded first
  live <- gpu_live_allocations()
  job <- interrupt_after(2)
  t0 <- Sys.time()
  expect_warning(x <- far(20), "interrupted", class = "statphysgpu_interrupted")
  took <- as.double(Sys.time() - t0, units = "secs")
  parallel::mccollect(job)
  expect_true(attr(x, "interrupted"))
  expect_lt(took, 30) # before: a launch ran whole paths to 1e7 (1.3e8 steps each), minutes
  expect_identical(gpu_live_allocations(), live)
})
