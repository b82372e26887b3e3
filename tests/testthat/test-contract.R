# The engine contract (helper-engine.R) for every engine of the package.

# Heavy: every engine through the shared contract (half a minute). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

escape_args <- list(gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.2,
                    dt = 0.02, t_max = 2000)

engine_contract_tests(list(
  name = "escape_times",
  n = 60,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    do.call(escape_times, modifyList(
      c(list(replicas = n, first_replica = first, seed = seed, backend = backend,
             progress = FALSE), escape_args), list(...)))
  },
  bad = list(
    list(args = list(n = 0), error = "`replicas` must be a single whole number"),
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
                 dt = 0.01, t_max = 1e9, seed = 1, backend = backend, progress = FALSE)
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
    escape_times(2^25, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
                 t_max = 1, seed = 1, backend = "gpu", progress = FALSE)
  },
  small = function(backend) {
    escape_times(200, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
                 t_max = 100, seed = 1, backend = backend, progress = FALSE)
  }))

engine_contract_tests(list(
  name = "switching_currents",
  n = 30,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    do.call(switching_currents, modifyList(list(
      replicas = n, ramp = c(1e-3, 2e-3), V0 = 1, beta = 0.5, theta = 0.1, dt = 0.02,
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
    # a prefix was drawn: the k values drawn are the first k (so the rest,
    # the other length(x) - k, are NA) -- the same test as
    # all(is.na(x[-seq_len(k)])) without copying the rest of the 1.6 GB
    # that the CPU's long call allocates (that copy took 27 s of CI's time)
    expect_false(anyNA(x[seq_len(k)]))
    # the last values drawn are those of a fresh call on the same backend (the
    # two backends differ in the last bits of log, sin and cos)
    expect_identical(as.vector(x[k - 3:0]),
                     philox_normal(4, seed = 1, offset = k - 4, backend = backend))
  },
  gpu_agree = function(cpu, gpu) {
    expect_equal(gpu, cpu, tolerance = 1e-12)
  }))

# he4_vmc: the replicas are walkers (Markov chains); a tiny box, few sweeps.
vmc_run <- function(n, first = 1, seed = 1, backend = "cpu", ...) {
  do.call(he4_vmc, modifyList(list(
    n = 32, replicas = n, blocks = 3, block_sweeps = 5, equilibration = 10,
    first_replica = first, seed = seed, backend = backend, progress = FALSE),
    list(...)))
}

vmc_long_sizes <- function(backend) {
  if (backend == "gpu") list(replicas = "auto", blocks = 2000, block_sweeps = 100)
  else list(replicas = 2 * max(2, sp_threads()), blocks = 200, block_sweeps = 10)
}

engine_contract_tests(list(
  name = "he4_vmc",
  n = 6,
  run = vmc_run,
  # the blocks and the walkers' state (what `init =` continues from)
  key = function(x) list(as.data.frame(x), attr(x, "state")),
  bad = list(
    list(args = list(n = 0), error = "`replicas` must be a single whole number"),
    list(args = list(n = 2, first = 0), error = "`first_replica` must be"),
    list(args = list(n = 2, first = 2^40), error = "must not pass 2\\^40"),
    list(args = list(n = 2, seed = -1), error = "`seed` must be"),
    list(args = list(n = 2, backend = "tpu"), error = "`backend` must be one of"),
    list(args = list(n = 2, precision = "half"), error = "`precision` must be one of"),
    list(args = list(n = 2, progress = NA), error = "`progress` must be TRUE or FALSE")),
  long = function(backend) {
    # N = 256: about 6 ms a sweep (with its measurement) of one walker on a
    # CPU thread, so 2 walkers per thread run for about 20 s; on the GPU, two
    # walkers per multiprocessor for 2 x 10^5 sweeps (blocks short enough to
    # finish some within the 1.5 s).  Double precision: the GPU
    # kernel is then already compiled by the CPU = GPU test, so the interrupt
    # does not fall into the compilation.
    v <- vmc_long_sizes(backend)
    he4_vmc(256, replicas = v$replicas, blocks = v$blocks, block_sweeps = v$block_sweeps,
            equilibration = 20, seed = 1, backend = backend, precision = "double",
            progress = FALSE)
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    p <- attr(x, "params")
    st <- attr(x, "state")
    nw <- length(st$replica)
    expect_gt(nrow(x), 0)
    expect_lt(nrow(x), nw * vmc_long_sizes(backend)$blocks)
    expect_false(anyNA(as.data.frame(x)))
    # every walker's finished blocks are 1, 2, ..., done, and its state is
    # that after them
    done <- tabulate(match(x$replica, st$replica), nw)
    expect_identical(as.numeric(done), st$blocks)
    for (w in unique(x$replica)) {
      expect_identical(x$block[x$replica == w], seq_len(done[st$replica == w]) + 0)
    }
    # the state continues the chain exactly: walker w's next block from
    # `init = x` is block done + 1 of a fresh call of that walker alone
    i <- which(done > 0)[which.min(done[done > 0])]
    w <- st$replica[i]
    nxt <- he4_vmc(256, blocks = 1, block_sweeps = p$block_sweeps, equilibration = 0,
                   init = x, backend = backend, precision = attr(x, "precision"),
                   progress = FALSE)
    fresh <- he4_vmc(256, replicas = 1, first_replica = w, blocks = done[i] + 1,
                     block_sweeps = p$block_sweeps, equilibration = p$equilibration,
                     seed = attr(x, "seed_hex"), backend = backend,
                     precision = attr(x, "precision"), progress = FALSE)
    expect_identical(as.data.frame(fresh)[seq_len(done[i]), ],
                     as.data.frame(x)[x$replica == w, , drop = FALSE], ignore_attr = TRUE)
    expect_identical(as.data.frame(nxt)[nxt$replica == w, ],
                     as.data.frame(fresh)[done[i] + 1, ], ignore_attr = TRUE)
  },
  gpu_agree = function(cpu, gpu) {
    # the same chains; the sums run in another order, and the GPU's normals
    # differ in the last bits, which may flip a rare Metropolis decision
    # (after which that walker's chain is another): 99% of the blocks agree
    # to 1e-9
    expect_identical(gpu$replica, cpu$replica)
    expect_identical(gpu$block, cpu$block)
    rel <- abs(gpu$energy - cpu$energy) / abs(cpu$energy)
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_gt(mean(gpu$acceptance == cpu$acceptance), 0.99)
  }))

xorsat_inst <- xorsat_random(48, seed = 3)

engine_contract_tests(list(
  name = "xorsat_qg",
  n = 12,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    do.call(xorsat_qg, modifyList(
      list(instance = xorsat_inst, replicas = n, clones = 64, first_replica = first, seed = seed,
           backend = backend, progress = FALSE), list(...)))
  },
  # seconds are the machine's; sweeps, outcome and clone are the runs'
  key = function(x) as.data.frame(x)[c("replica", "sweeps", "solved", "clone")],
  bad = list(
    list(args = list(n = 0), error = "`replicas` must be a single whole number"),
    list(args = list(n = 4, first = 0), error = "`first_replica` must be"),
    list(args = list(n = 4, clones = 48), error = "`clones` must be a positive multiple of 32"),
    list(args = list(n = 4, p1 = 1.5), error = "`p1` must be"),
    list(args = list(n = 4, timeout = -1), error = "`timeout` must be"),
    list(args = list(n = 4, max_sweeps = 0), error = "`max_sweeps` must be"),
    list(args = list(n = 4, seed = NA), error = "`seed` must be")),
  long = function(backend) {
    # a hard instance for p1 = 0.3: runs of seconds each
    xorsat_qg(xorsat_random(160, seed = 1), replicas = 50, clones = 64, p1 = 0.3,
              seed = 1, backend = backend, progress = FALSE)
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    unf <- attr(x, "unfinished")
    expect_gt(nrow(unf), 0)
    # runs in progress are returned cut where they were; unstarted ones left out
    expect_false(any(unf$replica[!unf$started] %in% x$replica))
    expect_true(all(!x$solved[x$replica %in% unf$replica[unf$started]]))
  }))

# kuramoto: the replicas are independent systems of n oscillators (their
# records and final phases must match); every system runs the same number
# of steps, so the interrupt leaves all at one step.
kuramoto_run_spec <- function(n, first = 1, seed = 1, backend = "cpu", ...) {
  do.call(kuramoto, modifyList(list(
    n = 24, K = c(1, 3), frequencies = kuramoto_normal(0.5), theta = 0.3, dt = 0.02, steps = 20,
    record_every = 2, replicas = n, first_replica = first, seed = seed, backend = backend,
    progress = FALSE), list(...)))
}

engine_contract_tests(list(
  name = "kuramoto",
  n = 6,
  run = kuramoto_run_spec,
  key = function(x) list(as.data.frame(x), attr(x, "phases"), attr(x, "systems")),
  bad = list(
    list(args = list(n = 0), error = "`replicas` must be a single whole number"),
    list(args = list(n = 2, first = 0), error = "`first_replica` must be"),
    list(args = list(n = 2, first = 2^40), error = "must not pass 2\\^40"),
    list(args = list(n = 2, seed = -1), error = "`seed` must be"),
    list(args = list(n = 2, backend = "tpu"), error = "`backend` must be one of"),
    list(args = list(n = 2, precision = "half"), error = "`precision` must be one of"),
    list(args = list(n = 2, progress = NA), error = "`progress` must be TRUE or FALSE")),
  # the objects `long` runs compiled and loaded before the interrupt's clock
  # starts (a Ctrl-C during a compile stops the call as R code does: an
  # interrupt, not the engine's partial result): on the CPU the vector
  # object (taken from 2^24 oscillator-steps), on the GPU mode B's kernels
  # (n > 2048)
  warm = function(backend) {
    kuramoto(if (backend == "gpu") 2^22 else 2^16, K = 2, theta = 0.5, dt = 0.01,
             steps = if (backend == "gpu") 2 else 256, seed = 1, backend = backend,
             precision = "double", progress = FALSE)
  },
  long = function(backend) {
    # mean field, 2^16 oscillators: about 2 ms a step on a CPU thread, so a
    # million steps run far longer than the interrupt; on the GPU 2^22
    # oscillators, 10^7 steps
    kuramoto(if (backend == "gpu") 2^22 else 2^16, K = 2, theta = 0.5, dt = 0.01, steps = 1e7,
             record_every = 100, seed = 1, backend = backend, precision = "double",
             progress = FALSE)
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    k <- attr(x, "steps_done")
    expect_gt(k, 0)
    expect_lt(k, 1e7)
    # the records up to the step reached, none after, all valid
    expect_identical(x$step, seq(0, k, by = 100))
    expect_false(anyNA(x$r))
    expect_true(all(is.finite(attr(x, "phases"))))
  },
  gpu_agree = function(cpu, gpu) {
    # the same normals and operations; the sums run in another order (and
    # the GPU's sine and cosine round differently): agreement to 1e-9
    expect_identical(gpu[c("condition", "replica", "step")], cpu[c("condition", "replica", "step")])
    expect_lt(max(abs(gpu$r - cpu$r)), 1e-9)
    expect_lt(max(abs(attr(gpu, "phases") - attr(cpu, "phases"))), 1e-9)
  },
  oom = function() {
    # 2^27 oscillators in single precision: 512 MiB of phases and 512 MiB of
    # frequencies, more than the 512 MiB left
    kuramoto(2^27, K = 1, dt = 0.01, steps = 1, seed = 1, backend = "gpu", progress = FALSE)
  },
  small = function(backend) {
    kuramoto(1000, K = 2, theta = 0.5, dt = 0.01, steps = 20, seed = 1, backend = backend,
             progress = FALSE)
  }))

# driven_brownian: fixed-length paths in lockstep; an interrupt stops every
# path at the same step.
driven_run <- function(n, first = 1, seed = 1, backend = "cpu", ...) {
  do.call(driven_brownian, modifyList(list(
    replicas = n, a = c(0.5, 1.5), omega = 4.9, f = 0.1, beta = 0.9, theta = 0.01, periods = 10,
    steps_per_period = 50, output = "histogram", first_replica = first, seed = seed,
    backend = backend, progress = FALSE), list(...)))
}

engine_contract_tests(list(
  name = "driven_brownian",
  n = 40,
  run = driven_run,
  key = function(x) list(as.data.frame(x), attr(x, "paths"), attr(x, "histogram")),
  bad = list(
    list(args = list(n = 0), error = "`replicas` must be a single whole number"),
    list(args = list(n = 4, first = 0), error = "`first_replica` must be"),
    list(args = list(n = 4, first = 2^40), error = "must not pass 2\\^40"),
    list(args = list(n = 4, seed = -1), error = "`seed` must be"),
    list(args = list(n = 4, backend = "tpu"), error = "`backend` must be one of"),
    list(args = list(n = 4, precision = "half"), error = "`precision` must be one of"),
    list(args = list(n = 4, progress = NA), error = "`progress` must be TRUE or FALSE"),
    list(args = list(n = 4, omega = -1), error = "`omega` must be")),
  long = function(backend) {
    # about 1e8 steps a second per CPU thread, 1e11 or more on a GPU: tens of
    # seconds on either
    if (backend == "gpu") {
      driven_brownian(2^20, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001,
                      periods = 1e5, seed = 1, backend = "gpu", precision = "double",
                      progress = FALSE)
    } else {
      driven_brownian(2000 * max(2, sp_threads()), a = 4.2, omega = 4.9, f = 0.1,
                      beta = 0.9, theta = 0.001, periods = 1e5, transient = 0, seed = 1,
                      backend = "cpu", progress = FALSE)
    }
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    steps <- attr(x, "steps")
    expect_gt(steps, 0)
    expect_lt(steps, 1e5 * 100)
    p <- attr(x, "paths")
    expect_false(anyNA(p$x) || anyNA(p$v))
    # the averages are over the time reached after the transient
    ktr <- attr(x, "transient_periods") * 100
    if (steps > ktr) {
      expect_equal(x$t_obs, (steps - ktr) * attr(x, "dt"))
      expect_false(anyNA(x$v_mean))
    } else {
      expect_true(all(is.na(x$v_mean)))
    }
  },
  gpu_agree = function(cpu, gpu) {
    # the same normals and operations; cos and fused multiply-adds round
    # differently in the last bits, which 500 steps of this regular motion
    # (a = 0.5, 1.5; a = 4.2 would be chaotic) do not amplify: 99% of the
    # paths within 1e-9
    pc <- attr(cpu, "paths")
    pg <- attr(gpu, "paths")
    expect_identical(pg$replica, pc$replica)
    expect_gt(mean(abs(pg$x - pc$x) < 1e-9 * pmax(1, abs(pc$x))), 0.99)
    expect_gt(mean(abs(pg$v - pc$v) < 1e-9 * pmax(1, abs(pc$v))), 0.99)
  },
  oom = function() {
    # 32 bytes a path on the device in single precision (the variant small()
    # loaded): 1 GiB
    driven_brownian(2^24, a = c(1, 2), omega = 6, f = 0, beta = 1, theta = 0.1,
                    periods = 1, seed = 1, backend = "gpu", progress = FALSE)
  },
  small = function(backend) {
    driven_run(200, backend = backend)
  }))
