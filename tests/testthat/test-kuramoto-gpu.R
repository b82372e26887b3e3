# kuramoto() on the GPU against the CPU (skipped without a GPU).

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
    expect_lt(max(abs(gpu$r - cpu$r)), 1e-9)
    expect_lt(max(abs(attr(gpu, "phases") - attr(cpu, "phases"))), 1e-9)
    expect_lt(sum(abs(attr(gpu, "hist") - attr(cpu, "hist"))), hist_tol)
  }
}

test_that("CPU double equals GPU double to rounding for every coupling", {
  skip_if_no_gpu()
  kur_expect_cpu_gpu(kur_gpu_args, 4)
})

test_that("a system larger than one block per reduction agrees with the CPU", {
  skip_if_no_gpu()
  args <- list(n = 300000, K = 3, theta = 0.5, dt = 0.01, steps = 20, seed = 3,
               precision = "double", progress = FALSE)
  for (m in c("srk2", "euler")) {
    cpu <- do.call(kuramoto, c(args, backend = "cpu", method = m))
    gpu <- do.call(kuramoto, c(args, backend = "gpu", method = m))
    expect_lt(max(abs(gpu$r - cpu$r)), 1e-9)
    expect_lt(max(abs(attr(gpu, "phases") - attr(cpu, "phases"))), 1e-9)
  }
})

test_that("the device draws the CPU's start phases and makes its frequencies", {
  skip_if_no_gpu()
  # K = 0, T = 0, omega = 0: one step leaves every phase where it started
  # (F = 0 exactly), so theta is the start, drawn on each backend
  for (prec in c("single", "double")) {
    args <- list(n = 1001, K = 0, dt = 0.01, steps = 1, replicas = 3, first_replica = 5,
                 seed = 8, precision = prec, progress = FALSE)
    cpu <- do.call(kuramoto, c(args, backend = "cpu"))
    gpu <- do.call(kuramoto, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "phases"), attr(cpu, "phases"))
  }
  # the frequencies: one step of K = 0, T = 0 from 0 with dt = 2^-10 is
  # omega 2^-10 exactly; a law's quantiles (tan, AS 241 in double) to rounding
  freq <- function(omega, backend, n = 5003) {
    x <- kuramoto(n, K = 0, frequencies = omega, dt = 2^-10, steps = 1, init = rep(0, n),
                  seed = 1, precision = "double", backend = backend, progress = FALSE)
    as.vector(attr(x, "phases")) * 2^10
  }
  for (om in list(kuramoto_lorentz(0.5, centre = 0.3), kuramoto_normal(1.2, centre = -1))) {
    expect_equal(freq(om, "gpu"), freq(om, "cpu"), tolerance = 1e-14)
    expect_equal(freq(om, "gpu"), om(5003), tolerance = 1e-14)
  }
  expect_identical(freq(0.25, "gpu"), rep(0.25, 5003))
  w <- stats::rnorm(5003)
  expect_identical(freq(w, "gpu"), freq(w, "cpu"))
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
    expect_lt(max(abs(gpu$r - cpu$r)), 1e-9)
    expect_lt(max(abs(attr(gpu, "phases") - attr(cpu, "phases"))), 1e-9)
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
    # each system's numbers are its own, and the order of its sums depends on
    # n only (not on the systems per launch): identical
    parts <- rbind(a, b)
    expect_identical(as.data.frame(parts), as.data.frame(whole))
    expect_identical(attr(parts, "phases"), attr(whole, "phases"))
    expect_identical(attr(parts, "hist"), attr(whole, "hist"))
  }
})

test_that("the mean-field variants give identical results, also for n past one block", {
  skip_if_no_gpu()
  old <- options(statphysgpu.kuramoto_variant = "")
  on.exit(options(old))
  # n = 2^21 + 3: 2 groups of four a thread (gpt), 1025 blocks, the last one
  # with one group, and that group partial
  args <- list(n = 2^21 + 3, K = 3, frequencies = kuramoto_normal(0.5), theta = 0.5, dt = 0.01,
               steps = 6, record_every = 3, bins = 8, seed = 4, backend = "gpu",
               progress = FALSE)
  ref <- do.call(kuramoto, args)
  ref_e <- do.call(kuramoto, c(args, method = "euler"))
  for (v in c("_np", "_lb6", "_lb2")) {
    options(statphysgpu.kuramoto_variant = v)
    x <- do.call(kuramoto, args)
    expect_identical(as.data.frame(x), as.data.frame(ref))
    expect_identical(attr(x, "phases"), attr(ref, "phases"))
    expect_identical(attr(x, "hist"), attr(ref, "hist"))
    e <- do.call(kuramoto, c(args, method = "euler"))
    expect_identical(as.data.frame(e), as.data.frame(ref_e))
    expect_identical(attr(e, "phases"), attr(ref_e, "phases"))
    expect_identical(attr(e, "hist"), attr(ref_e, "hist"))
  }
  options(statphysgpu.kuramoto_variant = "")
  # and single agrees with double: the same normals and start; a phase's
  # single-precision rounding (some 1e-6 rad after 6 steps) moves r by at
  # most as much
  d <- do.call(kuramoto, modifyList(args, list(precision = "double")))
  expect_lt(max(abs(d$r - ref$r)), 1e-4)
})

test_that("one frequency for all (the _const mean-field kernels) is the same vector's run", {
  skip_if_no_gpu()
  # frequencies = 0.4 runs the kernels without a frequency array
  # (sp_kur_mf_const_kernel, sp_kur_mf_euler_const_kernel), rep(0.4, n) the
  # array kernels: the same numbers bit for bit, every precision and method
  n <- 5003
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    args <- list(n = n, K = c(1, 2.5), theta = 0.3, dt = 0.02, steps = 12, replicas = 2,
                 record_every = 4, bins = 8, seed = 7, precision = prec, method = m,
                 backend = "gpu", progress = FALSE)
    one <- do.call(kuramoto, c(args, frequencies = 0.4))
    vec <- do.call(kuramoto, c(args, list(frequencies = rep(0.4, n))))
    expect_identical(as.data.frame(one), as.data.frame(vec))
    expect_identical(attr(one, "phases"), attr(vec, "phases"))
    expect_identical(attr(one, "hist"), attr(vec, "hist"))
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

test_that("a GPU run continued is the GPU's one run, and the CPU's to rounding", {
  skip_if_no_gpu()
  for (prec in c("single", "double")) for (m in c("srk2", "euler"))
    for (cp in c("mean_field", "pairs")) {
      args <- c(kur_sweep_args, precision = prec, method = m, coupling = cp)
      args$steps <- NULL
      whole <- do.call(kuramoto, c(args, steps = 37, backend = "gpu"))
      a <- do.call(kuramoto, c(args, steps = 13, backend = "gpu"))
      b <- kuramoto(init = a, steps = 24, backend = "gpu", progress = FALSE)
      # each system's sums are added in an order that depends on n only
      expect_identical(attr(b, "phases"), attr(whole, "phases"))
      after <- as.data.frame(whole)[whole$step > 13, ]
      rownames(after) <- NULL
      expect_identical(as.data.frame(b), after)
      expect_identical(attr(b, "hist"), attr(whole, "hist")[, 4:8, , drop = FALSE])
      # a continuation with no record (between two), then on
      s <- kuramoto(init = a, steps = 1, backend = "gpu", progress = FALSE)
      expect_identical(nrow(s), 0L)
      expect_identical(attr(kuramoto(init = s, steps = 23, backend = "gpu", progress = FALSE),
                            "phases"), attr(whole, "phases"))
      if (prec == "double") {
        # the CPU's continuation of the same run, and a CPU run continued on the GPU
        cpu <- kuramoto(init = a, steps = 24, backend = "cpu", progress = FALSE)
        expect_lt(max(abs(attr(cpu, "phases") - attr(b, "phases"))), 1e-9)
        expect_lt(max(abs(cpu$r - b$r)), 1e-9)
        ca <- do.call(kuramoto, c(args, steps = 13, backend = "cpu"))
        cb <- kuramoto(init = ca, steps = 24, backend = "gpu", progress = FALSE)
        expect_lt(max(abs(attr(cb, "phases") - attr(whole, "phases"))), 1e-9)
      }
    }
  # a system larger than one block per reduction, continued
  big <- list(n = 300000, K = 3, theta = c(0.2, 0.5), dt = 0.01, seed = 3, record_every = 4,
              precision = "single", backend = "gpu", progress = FALSE)
  w <- do.call(kuramoto, c(big, steps = 10))
  c2 <- kuramoto(init = do.call(kuramoto, c(big, steps = 6)), steps = 4, backend = "gpu",
                 progress = FALSE)
  expect_identical(attr(c2, "phases"), attr(w, "phases"))
  expect_identical(c2$r, w$r[w$step > 6])
})
