# The engine contract (helper-engine.R) for every engine of the package.

escape_args <- list(gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.2,
                    h = 0.02, t_max = 2000)

engine_contract_tests(list(
  name = "escape_times",
  n = 60,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    do.call(escape_times, modifyList(
      c(list(n = n, first_replica = first, seed = seed, backend = backend,
             progress = FALSE), escape_args), list(...)))
  },
  bad = list(
    list(args = list(n = 0), error = "`n` must be a single whole number"),
    list(args = list(n = 10, first = 0), error = "`first_replica` must be"),
    list(args = list(n = 10, first = 2^40), error = "must not pass 2\\^40"),
    list(args = list(n = 10, seed = -1), error = "`seed` must be"),
    list(args = list(n = 10, backend = "tpu"), error = "`backend` must be one of"),
    list(args = list(n = 10, precision = "half"), error = "`precision` must be one of"),
    list(args = list(n = 10, progress = NA), error = "`progress` must be TRUE or FALSE"),
    list(args = list(n = 2^31), error = "would have 4,294,967,296 rows")),
  long = function(backend) {
    # several seconds on either backend (the CPU's paths scale with its threads)
    escape_times(if (backend == "gpu") 1e6 else 1000 * max(2, sp_threads()), gamma = 0.3, V0 = 1,
                 beta = 0.1, theta = if (backend == "gpu") 0.08 else 0.15,
                 h = 0.01, t_max = 1e9, seed = 1, backend = backend, progress = FALSE)
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    expect_false(anyNA(x$value) || anyNA(x$escaped))
    expect_gt(nrow(attr(x, "unfinished")), 0)
  },
  gpu_agree = function(cpu, gpu) {
    # same normals, same operations; sin, log and fused multiply-adds round
    # differently in the last bits: 99% of paths within 1e-9 relative, and
    # all flags but 0.5% equal (a path grazing the threshold may cross one
    # step apart)
    rel <- abs(gpu$value - cpu$value) / cpu$value
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_gt(mean(gpu$escaped == cpu$escaped), 0.995)
  },
  oom = function() {
    # 12 bytes a path on the device: 384 MiB, plus the allocator's margin
    escape_times(2^25, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, h = 0.02,
                 t_max = 1, seed = 1, backend = "gpu", progress = FALSE)
  },
  small = function(backend) {
    escape_times(200, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, h = 0.02,
                 t_max = 100, seed = 1, backend = backend, progress = FALSE)
  }))

engine_contract_tests(list(
  name = "switching_currents",
  n = 30,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    do.call(switching_currents, modifyList(list(
      n = n, ramp = c(1e-3, 2e-3), V0 = 1, beta = 0.5, theta = 0.1, h = 0.02,
      gamma0 = 0.3, first_replica = first, seed = seed, backend = backend,
      progress = FALSE), list(...)))
  },
  bad = list(
    list(args = list(n = 10, first = 0.5), error = "`first_replica` must be"),
    list(args = list(n = 10, gamma0 = 1), error = "`gamma0` must be")),
  gpu_agree = function(cpu, gpu) {
    rel <- abs(gpu$value - cpu$value) / cpu$value
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_gt(mean(gpu$escaped == cpu$escaped), 0.995)
  }))

engine_contract_tests(list(
  name = "philox_normal",
  n = 1000,
  run = function(n, first = 1, seed = 1, backend = "cpu", precision = "double") {
    philox_normal(n, seed = seed, stream = 3, offset = first - 1,
                  precision = precision, backend = backend)
  },
  key = identity,
  combine = function(a, b) c(a, b),
  bad = list(
    list(args = list(n = -1), error = "`n` must be"),
    list(args = list(n = 4, seed = NA), error = "`seed` must be")),
  long = function(backend) {
    # about 2e8 values per second into R from the GPU, 4e7 per CPU thread
    if (backend == "gpu") philox_normal(2e9, seed = 1, backend = "gpu")
    else philox_normal(1e8 * max(2, sp_threads()), seed = 1, backend = "cpu")
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    k <- sum(!is.na(x))
    expect_gt(k, 0)
    expect_true(all(is.na(x[-seq_len(k)]))) # a prefix was drawn
    # the last values drawn are those of a fresh call on the same backend (the
    # two backends differ in the last bits of log, sin and cos)
    expect_identical(as.vector(x[k - 3:0]),
                     philox_normal(4, seed = 1, offset = k - 4, backend = backend))
  },
  gpu_agree = function(cpu, gpu) {
    expect_equal(gpu, cpu, tolerance = 1e-12)
  }))
