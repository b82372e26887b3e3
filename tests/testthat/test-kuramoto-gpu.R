# kuramoto() on the GPU against the CPU (skipped without a GPU).

kur_gpu_args <- list(n = 300, K = c(0.8, 2.5), omega = kuramoto_normal(0.5), T = 0.2,
                     dt = 0.02, steps = 60, replicas = 3, record_every = 5, bins = 16,
                     seed = 21, progress = FALSE)

test_that("CPU double equals GPU double to rounding for every coupling", {
  skip_if_no_gpu()
  A <- matrix(stats::rbinom(300^2, 1, 0.2), 300, 300)
  extra <- list(list(coupling = "mean_field"), list(coupling = "pairs"), list(A = A))
  if (requireNamespace("Matrix", quietly = TRUE))
    extra <- c(extra, list(list(A = Matrix::Matrix(A, sparse = TRUE))))
  for (e in extra) {
    args <- c(kur_gpu_args, e, precision = "double")
    cpu <- do.call(kuramoto, c(args, backend = "cpu"))
    gpu <- do.call(kuramoto, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu")
    expect_identical(gpu[c("condition", "replica", "step")], cpu[c("condition", "replica", "step")])
    # the same normals and operations; sums in another order: 1e-9
    expect_lt(max(abs(gpu$r - cpu$r)), 1e-9)
    expect_lt(max(abs(attr(gpu, "theta") - attr(cpu, "theta"))), 1e-9)
    # histograms: a phase within rounding of a bin edge may fall either side
    expect_lt(sum(abs(attr(gpu, "hist") - attr(cpu, "hist"))), 4)
  }
})

test_that("a system larger than one block per reduction agrees with the CPU", {
  skip_if_no_gpu()
  args <- list(n = 300000, K = 3, T = 0.5, dt = 0.01, steps = 20, seed = 3,
               precision = "double", progress = FALSE)
  cpu <- do.call(kuramoto, c(args, backend = "cpu"))
  gpu <- do.call(kuramoto, c(args, backend = "gpu"))
  expect_lt(max(abs(gpu$r - cpu$r)), 1e-9)
  expect_lt(max(abs(attr(gpu, "theta") - attr(cpu, "theta"))), 1e-9)
})

test_that("GPU single agrees with double in distribution (stationary r)", {
  skip_if_no_gpu()
  n <- 2^16
  args <- list(n = n, K = c(1, 4), T = 1, dt = 0.01, steps = 2000, record_every = 20,
               seed = 5, backend = "gpu", progress = FALSE)
  d <- summary(do.call(kuramoto, c(args, precision = "double")))
  f <- summary(do.call(kuramoto, c(args, precision = "single")))
  # both estimate the same stationary r; finite-n scale n^-1/2 per run
  se <- sqrt(d$se_naive^2 + f$se_naive^2 + 2 / n)
  expect_true(all(abs(d$r - f$r) < 4 * se))
  expect_true(all(abs(f$r - kuramoto_r_theory(c(1, 4), T = 1)) < 4 * sqrt(1 / n + f$se_naive^2) + 0.01))
  # pairs in single (the hardware sine) against the mean field in single
  p <- do.call(kuramoto, modifyList(args, list(n = 4096, K = 4, steps = 500,
                                               coupling = "pairs", precision = "single")))
  m <- do.call(kuramoto, modifyList(args, list(n = 4096, K = 4, steps = 500,
                                               precision = "single")))
  expect_lt(abs(summary(p)$r - summary(m)$r), 4 * sqrt(2 / 4096))
})

test_that("chunks on the GPU give the one-call result", {
  skip_if_no_gpu()
  whole <- do.call(kuramoto, c(kur_gpu_args, backend = "gpu"))
  a <- do.call(kuramoto, modifyList(kur_gpu_args, list(replicas = 1, backend = "gpu")))
  b <- do.call(kuramoto, modifyList(kur_gpu_args, list(replicas = 2, first_replica = 2,
                                                       backend = "gpu")))
  # each system's numbers are its own, and the order of its sums depends on
  # n only (not on the systems per launch): identical
  parts <- rbind(a, b)
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_identical(attr(parts, "theta"), attr(whole, "theta"))
  expect_identical(attr(parts, "hist"), attr(whole, "hist"))
})

test_that("the mean-field variants give identical results, also for n past one block", {
  skip_if_no_gpu()
  old <- options(statphysgpu.kuramoto_variant = "")
  on.exit(options(old))
  # n = 2^21 + 3: 2 groups of four a thread (gpt), 1025 blocks, the last one
  # with one group, and that group partial
  args <- list(n = 2^21 + 3, K = 3, omega = kuramoto_normal(0.5), T = 0.5, dt = 0.01,
               steps = 6, record_every = 3, bins = 8, seed = 4, backend = "gpu",
               progress = FALSE)
  ref <- do.call(kuramoto, args)
  for (v in c("_np", "_lb6", "_lb2")) {
    options(statphysgpu.kuramoto_variant = v)
    x <- do.call(kuramoto, args)
    expect_identical(as.data.frame(x), as.data.frame(ref))
    expect_identical(attr(x, "theta"), attr(ref, "theta"))
    expect_identical(attr(x, "hist"), attr(ref, "hist"))
  }
  # and single agrees with double: the same normals and start; a phase's
  # single-precision rounding (some 1e-6 rad after 6 steps) moves r by at
  # most as much
  d <- do.call(kuramoto, modifyList(args, list(precision = "double")))
  expect_lt(max(abs(d$r - ref$r)), 1e-4)
})
