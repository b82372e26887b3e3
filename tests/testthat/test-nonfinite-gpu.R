# The GPU engines report a non-finite state as the CPU engines do: the same
# error (class statphysgpu_not_finite) with the same message -- the same
# replica, quantity and step -- for the inputs of test-nonfinite.R, whose
# blow-up is plain overflow (no trigonometry of huge arguments, where the
# CPU's polynomial and the GPU's library differ), and nothing leaks.

# The messages of `run(backend)` on the CPU and the GPU, and the GPU's
# allocations before and after.
nf_both <- function(run) {
  cpu <- nf_message(run("cpu"))
  run_gpu <- function() nf_message(run("gpu"))
  run_gpu() # kernels compiled and loaded (their module is not a leak)
  live <- gpu_live_allocations()
  gpu <- run_gpu()
  list(cpu = cpu, gpu = gpu, leaked = gpu_live_allocations() - live)
}

expect_same_failure <- function(run, pattern) {
  r <- nf_both(run)
  expect_match(r$cpu, pattern)
  expect_identical(r$gpu, r$cpu)
  expect_identical(r$leaked, 0)
}

test_that("GPU escape: the same replica, quantity and step as the CPU", {
  skip_if_no_gpu()
  conds <- nf_escape_conds(beta = c(1, 1e150), h = c(0.01, 1))
  expect_same_failure(function(b) nf_escape(conds, n = 64, backend = b),
                      "velocity v of replica 1 of condition 2 became non-finite at step 3 ")
  expect_same_failure(function(b) nf_escape(nf_escape_conds(beta = 1e30, h = 1), n = 64,
                                            precision = "single", backend = b),
                      "velocity v of replica 1 of condition 1 became non-finite at step 2 ")
  expect_same_failure(function(b) nf_escape(nf_escape_conds(beta = 1e150, h = 1, dg = 0.001),
                                            backend = b),
                      "at step 3 \\(t = 3, bias gamma = 0.503\\)")
})

test_that("GPU driven_brownian: the same replica, quantity and step as the CPU", {
  skip_if_no_gpu()
  for (prec in c("double", "single")) for (method in c("euler", "srk2")) {
    run <- function(b) suppressWarnings(
      driven_brownian(50, a = 0, omega = 1, f = c(0, 1e308), beta = 1, theta = 0.1, periods = 4,
                      steps_per_period = 1, method = method, precision = prec, seed = 1,
                      backend = b))
    expect_same_failure(run, "of replica 1 of condition 2 became non-finite at step 1 ")
  }
})

test_that("GPU kuramoto: the same system and step as the CPU, every coupling", {
  skip_if_no_gpu()
  msg <- "phases of replica 1 of condition 2 \\(K = 1e\\+300\\) became non-finite at step 1 "
  for (coupling in c("mean_field", "pairs")) {
    expect_same_failure(function(b) suppressWarnings(
      kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, coupling = coupling,
               precision = "double", seed = 1, backend = b)), msg)
  }
  expect_same_failure(function(b) suppressWarnings(
    kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, A = matrix(1, 8, 8),
             precision = "double", seed = 1, backend = b)), msg)
  if (requireNamespace("Matrix", quietly = TRUE)) {
    ring <- Matrix::sparseMatrix(i = 1:8, j = c(2:8, 1), x = 1, dims = c(8, 8))
    expect_same_failure(function(b) suppressWarnings(
      kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, A = ring,
               precision = "double", seed = 1, backend = b)), msg)
  }
  expect_same_failure(function(b) suppressWarnings(
    kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 0.01, steps = 5, precision = "single",
             seed = 1, backend = b)), "replica 1 of condition 2 .* at step 1 ")
})

test_that("GPU lrmd: the same particle, quantity and step as the CPU", {
  skip_if_no_gpu()
  # lrmd() on the declared many-body engine (the one engine since issue 50):
  # a gravity2d start whose first step overflows, in double, and an HMF
  # start whose momenta overflow single precision at once
  st <- data.frame(x = c(0, 1, 0, 1), y = c(0, 0, 1, 1), px = c(1e10, 0, 0, 0), py = 0)
  expect_same_failure(function(b) suppressWarnings(
    lrmd("gravity2d", init = st, dt = 1e300, steps = 3, record_every = 1, backend = b,
         progress = FALSE, precision = "double")),
    "the (momentum|position) of particle [1-4] became non-finite in step 1 of the run")
  expect_same_failure(function(b) suppressWarnings(
    lrmd("hmf", init = data.frame(theta = 0, p = c(1e150, -1e150, rep(0, 8))), dt = 0.01,
         steps = 3, record_every = 1, backend = b, progress = FALSE)),
    "the (momentum|position) of particle [12] became non-finite in step [123] of the run")
})

test_that("GPU he4_vmc: the same walker, quantity and sweep as the CPU", {
  skip_if_no_gpu()
  for (prec in c("mixed", "double")) {
    expect_same_failure(function(b) he4_vmc(32, b = 1e100, replicas = 4, blocks = 2,
                                            block_sweeps = 2, equilibration = 0, displacement = 0.3,
                                            seed = 1, backend = b, precision = prec),
                        "kinetic energy of walker 1 became non-finite at the measurement after sweep 1 ")
  }
  expect_same_failure(function(b) he4_vmc(32, replicas = 4, blocks = 2, block_sweeps = 2,
                                          equilibration = 3, displacement = 1e300, seed = 1,
                                          backend = b, precision = "mixed"),
                      "coordinates of atom 1 of walker 1 became non-finite in sweep 1 ")
})
