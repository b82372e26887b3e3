# kuramoto() on the GPU against the CPU (skipped without a GPU): the
# front-end on the declared many-body engine (its one engine since issue
# 50), CPU double = GPU double to rounding (relative 1e-9, as
# test-kuramoto-declared-gpu.R and test-mb-gpu.R: the same normals and
# operations, fused multiply-adds and the sums' order aside).

kur_gpu_args <- list(n = 300, K = c(0.8, 2.5), frequencies = kuramoto_normal(0.5), theta = 0.2,
                     dt = 0.02, steps = 60, replicas = 3, record_every = 5, bins = 16,
                     seed = 21, progress = FALSE)

# Every coupling (mean field, pairs, dense and sparse A) and method: CPU
# double = GPU double to rounding for the arguments `base` (a histogram may
# differ by `hist_tol` counts: a phase within rounding of a bin edge may fall
# either side).
kur_expect_cpu_gpu <- function(base, hist_tol) {
  A <- matrix(stats::rbinom(base$n^2, 1, 0.2), base$n, base$n)
  extra <- list(list(coupling = "mean_field"), list(coupling = "pairs"), list(A = A))
  if (requireNamespace("Matrix", quietly = TRUE))
    extra <- c(extra, list(list(A = Matrix::Matrix(A, sparse = TRUE))))
  for (e in extra) for (m in c("srk2", "euler")) {
    args <- c(base, e, precision = "double", method = m)
    cpu <- do.call(kuramoto, c(args, backend = "cpu"))
    gpu <- do.call(kuramoto, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu")
    cols <- c("condition", "K", "beta", "theta", "replica", "step")
    expect_identical(gpu[cols], cpu[cols])
    expect_identical(attr(gpu, "systems"), attr(cpu, "systems"))
    # the same normals and operations; sums in another order: 1e-9
    expect_equal(gpu$r, cpu$r, tolerance = 1e-9)
    expect_equal(attr(gpu, "phases"), attr(cpu, "phases"), tolerance = 1e-9)
    expect_lte(sum(abs(attr(gpu, "hist") - attr(cpu, "hist"))), hist_tol)
  }
}

test_that("CPU double equals GPU double to rounding for every coupling", {
  skip_if_no_gpu()
  kur_expect_cpu_gpu(kur_gpu_args, 4)
})

test_that("a system over many blocks (the GPU plan's mode B) agrees with the CPU", {
  skip_if_no_gpu()
  args <- list(n = 300000, K = 3, theta = 0.5, dt = 0.01, steps = 20, seed = 3,
               precision = "double", progress = FALSE)
  for (m in c("srk2", "euler")) {
    cpu <- do.call(kuramoto, c(args, backend = "cpu", method = m))
    gpu <- do.call(kuramoto, c(args, backend = "gpu", method = m))
    expect_equal(gpu$r, cpu$r, tolerance = 1e-9)
    expect_equal(attr(gpu, "phases"), attr(cpu, "phases"), tolerance = 1e-9)
  }
})

test_that("the device draws the CPU's start phases; every form of the frequencies", {
  skip_if_no_gpu()
  # K = 0, T = 0, omega = 0: one step leaves every phase where it started
  # (F = 0 exactly), so the phases are the start, drawn on each backend (in
  # single precision the draw rounded to float)
  for (prec in c("single", "double")) {
    args <- list(n = 1001, K = 0, dt = 0.01, steps = 1, replicas = 3, first_replica = 5,
                 seed = 8, precision = prec, progress = FALSE)
    cpu <- do.call(kuramoto, c(args, backend = "cpu"))
    gpu <- do.call(kuramoto, c(args, backend = "gpu"))
    expect_equal(attr(gpu, "phases"), attr(cpu, "phases"),
                 tolerance = if (prec == "double") 1e-12 else 1e-6)
  }
  # the frequencies: one step of K = 0, T = 0 from 0 with dt = 2^-10 is
  # omega 2^-10 (exact but for the GPU's fused operations)
  freq <- function(omega, backend, n = 5003) {
    x <- kuramoto(n, K = 0, frequencies = omega, dt = 2^-10, steps = 1, init = rep(0, n),
                  seed = 1, precision = "double", backend = backend, progress = FALSE)
    as.vector(attr(x, "phases")) * 2^10
  }
  w <- stats::rnorm(5003)
  for (om in list(kuramoto_lorentz(0.5, centre = 0.3), kuramoto_normal(1.2, centre = -1), w)) {
    expect_equal(freq(om, "gpu"), freq(om, "cpu"), tolerance = 1e-14)
  }
  expect_equal(freq(0.25, "gpu"), rep(0.25, 5003), tolerance = 1e-15)
  # every form of the frequencies and init, every coupling, both methods: CPU double
  # = GPU double
  th <- matrix(stats::runif(200 * 2, -3, 3), 200, 2)
  forms <- list(list(frequencies = 0.4), list(frequencies = w[1:200]),
                list(frequencies = kuramoto_lorentz(0.3)),
                list(frequencies = kuramoto_normal(0.3), init = th[, 1]),
                list(frequencies = function(n) seq(-1, 1, length.out = n), init = th))
  for (f in forms) for (cp in c("mean_field", "pairs")) for (m in c("srk2", "euler")) {
    args <- c(list(n = 200, K = c(1, 2.5), theta = 0.1, dt = 0.02, steps = 25, replicas = 2,
                   record_every = 5, seed = 4, precision = "double", coupling = cp,
                   method = m, progress = FALSE), f)
    cpu <- do.call(kuramoto, c(args, backend = "cpu"))
    gpu <- do.call(kuramoto, c(args, backend = "gpu"))
    expect_equal(gpu$r, cpu$r, tolerance = 1e-9)
    expect_equal(attr(gpu, "phases"), attr(cpu, "phases"), tolerance = 1e-9)
  }
})

test_that("GPU single agrees with double in distribution (stationary r)", {
  skip_if_no_gpu()
  n <- 2^16
  args <- list(n = n, K = c(1, 4), theta = 1, dt = 0.01, steps = 2000, record_every = 20,
               seed = 5, backend = "gpu", progress = FALSE)
  d <- summary(do.call(kuramoto, c(args, precision = "double")))
  f <- summary(do.call(kuramoto, c(args, precision = "single")))
  # both estimate the same stationary r; finite-n scale n^-1/2 per run
  se <- sqrt(d$se_naive^2 + f$se_naive^2 + 2 / n)
  expect_true(all(abs(d$r - f$r) < 4 * se))
  expect_true(all(abs(f$r - kuramoto_r_theory(c(1, 4), theta = 1)) < 4 * sqrt(1 / n + f$se_naive^2) + 0.01))
  # pairs in single (the hardware sine) against the mean field in single
  p <- do.call(kuramoto, modifyList(args, list(n = 4096, K = 4, steps = 500,
                                               coupling = "pairs", precision = "single")))
  m <- do.call(kuramoto, modifyList(args, list(n = 4096, K = 4, steps = 500,
                                               precision = "single")))
  expect_lt(abs(summary(p)$r - summary(m)$r), 4 * sqrt(2 / 4096))
})

test_that("chunks on the GPU give the one-call result", {
  skip_if_no_gpu()
  for (m in c("srk2", "euler")) for (cp in c("mean_field", "pairs")) {
    args <- c(kur_gpu_args, method = m, coupling = cp)
    whole <- do.call(kuramoto, c(args, backend = "gpu"))
    a <- do.call(kuramoto, modifyList(args, list(replicas = 1, backend = "gpu")))
    b <- do.call(kuramoto, modifyList(args, list(replicas = 2, first_replica = 2,
                                                 backend = "gpu")))
    # each system's numbers are its own, and the order of its sums does not
    # depend on the systems a launch holds (test-mb-gpu.R): identical
    parts <- rbind(a, b)
    expect_identical(as.data.frame(parts), as.data.frame(whole))
    expect_identical(attr(parts, "phases"), attr(whole, "phases"))
    expect_identical(attr(parts, "hist"), attr(whole, "hist"))
  }
})

test_that("Euler on the GPU: phases that overflow are the CPU's error", {
  skip_if_no_gpu()
  for (cp in c("mean_field", "pairs")) {
    args <- list(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, coupling = cp,
                 precision = "double", seed = 1, method = "euler", progress = FALSE)
    cpu <- tryCatch(suppressWarnings(do.call(kuramoto, c(args, backend = "cpu"))),
                    error = conditionMessage)
    gpu <- tryCatch(suppressWarnings(do.call(kuramoto, c(args, backend = "gpu"))),
                    error = conditionMessage)
    expect_match(gpu, "replica 1 of condition 2 .* at step 1 ")
    expect_identical(gpu, cpu)
  }
})

# ---- sweeps over K, beta, theta, and continuation -----------------------------

kur_sweep_args <- list(n = 300, K = c(0.8, 2.5), beta = c(0.7, 1.6), theta = c(0, 0.3),
                       frequencies = kuramoto_normal(0.5), dt = 0.02, steps = 40, replicas = 2,
                       record_every = 5, bins = 16, seed = 23, progress = FALSE)

test_that("a sweep over K, beta, theta: CPU double = GPU double, every coupling and method", {
  skip_if_no_gpu()
  # 8 conditions x 2 replicas: twice the systems of the test above
  kur_expect_cpu_gpu(kur_sweep_args, 8)
})

test_that("GPU sweeps: each condition on its stream, identical to a K sweep ending in it", {
  skip_if_no_gpu()
  for (prec in c("single", "double")) {
    args <- c(kur_sweep_args, precision = prec, backend = "gpu")
    x <- do.call(kuramoto, args)
    g <- attr(x, "conditions")
    for (c in c(1, 4, 8)) {
      one <- do.call(kuramoto, modifyList(args, list(K = c(rep(0, c - 1), g$K[c]),
                                                     beta = g$beta[c], theta = g$theta[c])))
      mine <- x[x$condition == c, c("replica", "step", "r", "psi")]
      theirs <- one[one$condition == c, c("replica", "step", "r", "psi")]
      rownames(mine) <- rownames(theirs) <- NULL
      expect_identical(mine, theirs)
      expect_identical(attr(x, "phases")[, 2 * c - 1:0], attr(one, "phases")[, 2 * c - 1:0])
    }
  }
})

test_that("a GPU run continued is the GPU's one run and the CPU's, to rounding (double)", {
  skip_if_no_gpu()
  for (m in c("srk2", "euler")) for (cp in c("mean_field", "pairs")) {
    args <- c(kur_sweep_args, precision = "double", method = m, coupling = cp)
    args$steps <- NULL
    whole <- do.call(kuramoto, c(args, steps = 37, backend = "gpu"))
    a <- do.call(kuramoto, c(args, steps = 13, backend = "gpu"))
    b <- kuramoto(init = a, steps = 24, backend = "gpu", progress = FALSE)
    expect_equal(attr(b, "phases"), attr(whole, "phases"), tolerance = 1e-9)
    after <- as.data.frame(whole)[whole$step > 13, ]
    rownames(after) <- NULL
    expect_identical(b[c("condition", "replica", "step")], after[c("condition", "replica", "step")])
    expect_equal(b$r, after$r, tolerance = 1e-9)
    expect_identical(dim(attr(b, "hist")), dim(attr(whole, "hist")[, 4:8, , drop = FALSE]))
    # a continuation with no record (between two), then on
    s <- kuramoto(init = a, steps = 1, backend = "gpu", progress = FALSE)
    expect_identical(nrow(s), 0L)
    expect_equal(attr(kuramoto(init = s, steps = 23, backend = "gpu", progress = FALSE),
                      "phases"), attr(whole, "phases"), tolerance = 1e-9)
    # the CPU's continuation of the same run, and a CPU run continued on the GPU
    cpu <- kuramoto(init = a, steps = 24, backend = "cpu", progress = FALSE)
    expect_equal(attr(cpu, "phases"), attr(b, "phases"), tolerance = 1e-9)
    expect_equal(cpu$r, b$r, tolerance = 1e-9)
    ca <- do.call(kuramoto, c(args, steps = 13, backend = "cpu"))
    cb <- kuramoto(init = ca, steps = 24, backend = "gpu", progress = FALSE)
    expect_equal(attr(cb, "phases"), attr(whole, "phases"), tolerance = 1e-9)
  }
  # a system over many blocks (mode B), continued, against the CPU's one run
  big <- list(n = 300000, K = 3, theta = c(0.2, 0.5), dt = 0.01, seed = 3, record_every = 4,
              precision = "double", progress = FALSE)
  w <- do.call(kuramoto, c(big, steps = 10, backend = "cpu"))
  c2 <- kuramoto(init = do.call(kuramoto, c(big, steps = 6, backend = "gpu")), steps = 4,
                 backend = "gpu", progress = FALSE)
  expect_equal(attr(c2, "phases"), attr(w, "phases"), tolerance = 1e-9)
  expect_equal(c2$r, w$r[w$step > 6], tolerance = 1e-9)
})
