# lrmd() on the GPU against the CPU (skipped without a GPU), on the
# declared many-body engine (its one engine since issue 50), and the
# multi-device code: on one GPU through several slices of the system on
# streams of their own (the engine's option statphysgpu.mb_slices), on
# several GPUs where the host has them.

lr_gpu_cases <- function() {
  list(list(model = "hmf", init = hmf_waterbag(300000, 0.7, 0.6, seed = 1), dt = 0.1, steps = 20),
       list(model = "hmf", init = hmf_waterbag(1000, 1, 0.69, seed = 2), dt = 0.1, steps = 50),
       list(model = "ring", init = ring_uniform(3000, p0 = 0.3, seed = 1), dt = 0.05, steps = 20),
       list(model = "ring", init = ring_uniform(77, p0 = 0.3, seed = 1), dt = 0.05, steps = 20),
       list(model = "gravity2d", init = gravity2d_shell(2500, 0.5, 1, seed = 1), dt = 0.01,
            steps = 30))
}

test_that("CPU double equals GPU double to rounding for every model", {
  skip_if_no_gpu()
  for (cs in lr_gpu_cases()) {
    args <- list(model = cs$model, init = cs$init, dt = cs$dt, steps = cs$steps,
                 record_every = 5, snapshots = cs$dt * 10, precision = "double",
                 progress = FALSE)
    cpu <- do.call(lrmd, c(args, backend = "cpu"))
    gpu <- do.call(lrmd, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu")
    expect_identical(gpu$step, cpu$step)
    # the same operations; the sums over particles run in another order and
    # the GPU's sine, cosine and log round differently: 1e-9
    for (col in setdiff(names(cpu), c("step", "time"))) {
      expect_lt(max(abs(gpu[[col]] - cpu[[col]])), 1e-9 * max(1, abs(cpu[[col]])))
    }
    expect_lt(max(abs(as.matrix(attr(gpu, "state")) - as.matrix(attr(cpu, "state")))), 1e-9)
    expect_length(attr(gpu, "snapshots"), 1)
    expect_lt(max(abs(as.matrix(attr(gpu, "snapshots")[[1]]) -
                      as.matrix(attr(cpu, "snapshots")[[1]]))), 1e-9)
  }
})

test_that("GPU mixed precision follows the CPU's mixed precision and double", {
  skip_if_no_gpu()
  for (cs in lr_gpu_cases()) {
    args <- list(model = cs$model, init = cs$init, dt = cs$dt, steps = cs$steps,
                 record_every = 5, progress = FALSE)
    cpu <- do.call(lrmd, c(args, backend = "cpu", precision = "mixed"))
    gpu <- do.call(lrmd, c(args, backend = "gpu", precision = "mixed"))
    # single-precision states, sines and pair terms (the GPU's own): the
    # energy kept to the single precision's drift (1e-6 relative a hundred
    # steps, bound 1e-4), the CPU's total to the same
    expect_lt(max(abs(gpu$total - cpu$total)), 1e-4 * max(1, abs(cpu$total)))
    expect_lt(max(abs(gpu$energy_error)), 1e-4)
  }
})

test_that("a continued GPU run equals one long GPU run exactly", {
  skip_if_no_gpu()
  w <- hmf_waterbag(5000, 1, 0.69, seed = 1)
  long <- lrmd(init = w, dt = 0.1, steps = 40, record_every = 10, backend = "gpu",
               progress = FALSE)
  a <- lrmd(init = w, dt = 0.1, steps = 20, record_every = 10, backend = "gpu", progress = FALSE)
  b <- lrmd(init = a, dt = 0.1, steps = 20, record_every = 10, backend = "gpu", progress = FALSE)
  joined <- rbind(as.data.frame(a), as.data.frame(b)[-1, ])
  rownames(joined) <- NULL
  expect_identical(joined, as.data.frame(long))
  expect_identical(attr(b, "state"), attr(long, "state"))
})

test_that("an interrupt on the GPU returns the records so far; nothing leaks", {
  skip_if_no_gpu()
  skip_on_os("windows")
  live <- gpu_live_allocations()
  job <- interrupt_after(1.5)
  expect_warning(x <- lrmd("ring", init = ring_uniform(2^17, seed = 1), dt = 0.01, steps = 1e7,
                           backend = "gpu", progress = FALSE),
                 "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_true(attr(x, "interrupted"))
  expect_false(anyNA(as.data.frame(x)))
  expect_true(all(is.finite(as.matrix(attr(x, "state")))))
  expect_identical(gpu_live_allocations(), live)
})

test_that("a GPU job that does not fit fails with its size and frees everything", {
  skip_if_no_gpu()
  small <- function() lrmd("hmf", init = hmf_waterbag(1000, 1, 0.7, seed = 1), dt = 0.1,
                           steps = 10, backend = "gpu", progress = FALSE)
  ref <- small()
  live <- gpu_live_allocations()
  before <- .Call(statphysgpu:::C_sp_r_gpu_mem_info, 0L)[1]
  hold <- .Call(statphysgpu:::C_sp_r_gpu_reserve_test, 0L, before - 2^29)
  # 2^25 particles: 1 GiB of positions and momenta, more than the 512 MiB left
  expect_error(lrmd("hmf", init = matrix(0, 2^25, 2), dt = 0.1, steps = 1, backend = "gpu",
                    devices = 0, progress = FALSE),
               "needs [0-9.]+ GiB of device memory, but [0-9.]+ GiB of")
  expect_identical(gpu_live_allocations(), live + 1)
  .Call(statphysgpu:::C_sp_r_gpu_release_test, hold)
  expect_identical(gpu_live_allocations(), live)
  expect_identical(as.data.frame(small()), as.data.frame(ref))
})

# the same run on k slices (one device, k streams, or k devices) against one
lr_sliced <- function(cs, prec, devices = NULL, slices = 1) {
  withr::local_options(statphysgpu.mb_slices = slices)
  lrmd(cs$model, init = cs$init, dt = cs$dt, steps = cs$steps, record_every = 5,
       snapshots = cs$dt * 10, backend = "gpu", devices = devices, precision = prec,
       progress = FALSE)
}
lr_expect_close <- function(x, ref) {
  # the sums over slices run in another order: rounding, 1e-9
  for (col in setdiff(names(ref), c("step", "time"))) {
    expect_lt(max(abs(x[[col]] - ref[[col]])), 1e-9 * max(1, abs(ref[[col]])))
  }
  expect_lt(max(abs(as.matrix(attr(x, "state")) - as.matrix(attr(ref, "state")))), 1e-9)
  expect_lt(max(abs(as.matrix(attr(x, "snapshots")[[1]]) -
                    as.matrix(attr(ref, "snapshots")[[1]]))), 1e-9)
}

test_that("a system in slices on one GPU's streams equals one slice", {
  skip_if_no_gpu()
  for (cs in lr_gpu_cases()) {
    for (prec in c("mixed", "double")) {
      one <- lr_sliced(cs, prec)
      for (k in c(2, 3)) {
        lr_expect_close(lr_sliced(cs, prec, slices = k), one)
      }
    }
  }
})

test_that("several GPUs equal one GPU to rounding", {
  skip_if_no_gpu()
  skip_if(nrow(gpu_devices()) < 2, "one GPU")
  for (cs in lr_gpu_cases()) {
    for (prec in c("mixed", "double")) {
      lr_expect_close(lr_sliced(cs, prec, devices = "all"), lr_sliced(cs, prec))
    }
  }
})

# ---- starts the GPU engine draws itself ---------------------------------------------

# the start as a plain data frame of its numbers (drawn on the CPU)
lr_plain <- function(x) {
  df <- lapply(x, function(v) v + 0)
  structure(df, class = "data.frame", row.names = c(NA_integer_, -length(df[[1]])))
}
lr_lazy_starts <- function(n) {
  list(waterbag = function() hmf_waterbag(n, 0.6, 0.69, seed = 4),
       waterbag_rest = function() hmf_waterbag(n, 1, 0.69, seed = 4),
       equilibrium = function() hmf_equilibrium(n, 0.3, seed = 4),
       equilibrium_hot = function() hmf_equilibrium(n, 0.8, seed = 4),
       ring = function() ring_uniform(n, p0 = 0.3, seed = 4),
       ring_rest = function() ring_uniform(n, seed = 4),
       shell = function() gravity2d_shell(n, 0.5, 1, seed = 4))
}
# the start the engine drew: its snapshot at time 0
lr_drawn <- function(start, backend, slices = 1) {
  withr::local_options(statphysgpu.mb_slices = slices)
  x <- lrmd(attr(start, "model"), init = start, dt = 1e-4, steps = 1, snapshots = 0,
            backend = backend, precision = "double", progress = FALSE)
  s <- attr(x, "snapshots")[[1]]
  attributes(s)[c("time", "step")] <- NULL
  s
}

test_that("the GPU draws a start as the CPU does: angles bit for bit, the rest to rounding", {
  skip_if_no_gpu()
  # 300001 particles: 293 tiles of 1024, the last partial, n not a multiple
  # of 4; the all-pairs models 20001 (20 tiles, the last partial): their CPU
  # run of one step at 300001 took over a minute on the GPU host's 16 cores
  for (nm in names(lr_lazy_starts(1))) {
    f <- lr_lazy_starts(if (nm %in% c("ring", "ring_rest", "shell")) 20001 else 300001)[[nm]]
    cpu <- lr_plain(f())
    gpu <- lr_drawn(f(), "gpu")
    expect_identical(names(gpu), names(cpu))
    if (nm != "shell") {
      # d (2u - 1), pi (2u - 1), the von Mises table's interpolation: no sums
      expect_identical(gpu$theta, cpu$theta, info = nm)
    }
    # the shifts and the scale are sums in another order, the shell's sine
    # and cosine CUDA's: 1e-12 of the scale of the coordinates
    for (j in names(cpu)) {
      expect_lt(max(abs(gpu[[j]] - cpu[[j]])), 1e-12 * max(1, abs(cpu[[j]])))
    }
    # the CPU engine draws exactly what R reads
    expect_identical(lr_drawn(f(), "cpu"), cpu, info = nm)
  }
})

test_that("every slice draws the same start; a drawn start runs as the same start given", {
  skip_if_no_gpu()
  f <- lr_lazy_starts(70001)
  for (nm in c("waterbag", "equilibrium", "shell")) {
    one <- lr_drawn(f[[nm]](), "gpu")
    expect_identical(lr_drawn(f[[nm]](), "gpu", slices = 3), one, info = nm)
  }
  for (nm in c("waterbag", "ring", "shell")) {
    s <- if (nm == "waterbag") f[[nm]]() else lr_lazy_starts(3001)[[nm]]()
    model <- attr(s, "model")
    drawn <- lrmd(model, init = s, dt = 0.01, steps = 10, record_every = 5, backend = "gpu",
                  precision = "double", progress = FALSE)
    given <- lrmd(model, init = lr_plain(s), dt = 0.01, steps = 10, record_every = 5,
                  backend = "gpu", precision = "double", progress = FALSE)
    for (col in setdiff(names(given), c("step", "time"))) {
      expect_lt(max(abs(drawn[[col]] - given[[col]])), 1e-9 * max(1, abs(given[[col]])))
    }
  }
})

test_that("a start the GPU cannot draw is refused; its coarse dt warns after the run", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  expect_error(lrmd(init = hmf_waterbag(1000, 0.6, 0.3201, seed = 1), dt = 0.1, steps = 1,
                    backend = "gpu", progress = FALSE),
               "`U` = 0.3201 is below the potential energy", class = "statphysgpu_error")
  expect_identical(gpu_live_allocations(), live)
  rp <- ring_uniform(3000, p0 = 5, seed = 1)
  r <- max(abs(rp$p)) / sqrt(0.02)
  run <- function(dt) lrmd(init = ring_uniform(3000, p0 = 5, seed = 1), dt = dt, steps = 1,
                           backend = "gpu", progress = FALSE)
  expect_warning(run(1.01 / r), "is coarse for the", class = "statphysgpu_coarse_dt")
  expect_no_warning(run(0.99 / r))
})

# ---- replicas and sweeps (issue 23) -------------------------------------------------

test_that("GPU replicas draw their own starts as the CPU does (angles bit for bit)", {
  skip_if_no_gpu()
  for (nm in names(lr_lazy_starts(1))) {
    f <- lr_lazy_starts(if (nm %in% c("ring", "ring_rest", "shell")) 5001 else 100001)[[nm]]
    drawn <- function(backend) {
      x <- lrmd(init = f(), dt = 1e-4, steps = 1, snapshots = 0, backend = backend,
                precision = "double", progress = FALSE, replicas = 2, first_replica = 3)
      lapply(attr(x, "snapshots"), function(s) s[[1]])
    }
    cpu <- drawn("cpu")
    gpu <- drawn("gpu")
    for (r in 1:2) {
      if (nm != "shell") expect_identical(gpu[[r]]$theta, cpu[[r]]$theta, info = nm)
      for (col in names(cpu[[r]])) {
        expect_lt(max(abs(gpu[[r]][[col]] - cpu[[r]][[col]])), 1e-12 * max(1, abs(cpu[[r]][[col]])))
      }
    }
    # the replicas' starts differ (in some column: waterbag_rest's angles are
    # all 0 with M0 = 1, ring_rest's momenta all 0)
    expect_false(identical(cpu[[1]], cpu[[2]]), info = nm)
  }
})

test_that("GPU ensembles and sweeps equal the CPU's system by system; chunks combine", {
  skip_if_no_gpu()
  cases <- list(
    list(init = hmf_waterbag(20000, c(0.8, 1), c(0.6, 0.69), seed = 1), dt = 0.1,
         softening = 0.01),
    list(init = ring_uniform(3000, p0 = c(0, 0.3), seed = 1), dt = 0.02,
         softening = c(0.01, 0.05)),
    list(init = gravity2d_shell(2500, 0.5, c(1, 1.5), seed = 1), dt = 0.005, softening = 0.02))
  for (cs in cases) {
    run <- function(backend, first = 1, m = 3) {
      lrmd(init = cs$init, dt = cs$dt, softening = cs$softening, steps = 20, record_every = 5,
           snapshots = cs$dt * 10, replicas = m, first_replica = first, backend = backend,
           precision = "double", progress = FALSE)
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    expect_identical(attr(gpu, "backend"), "gpu")
    expect_identical(attr(gpu, "systems")[c("condition", "replica")],
                     attr(cpu, "systems")[c("condition", "replica")])
    lead <- c("condition", names(attr(cpu, "conditions")), "replica", "step")
    expect_identical(as.data.frame(gpu)[lead], as.data.frame(cpu)[lead])
    # as for one system (the first test): sums in another order, 1e-9
    for (col in setdiff(names(cpu), c(lead, "time"))) {
      expect_lt(max(abs(gpu[[col]] - cpu[[col]])), 1e-9 * max(1, abs(cpu[[col]])), label = col)
    }
    for (i in seq_along(attr(cpu, "state"))) {
      expect_lt(max(abs(as.matrix(attr(gpu, "state")[[i]]) -
                        as.matrix(attr(cpu, "state")[[i]]))), 1e-9)
    }
    # chunks on the GPU combine to the one call bit for bit
    joined <- rbind(run("gpu", 1, 1), run("gpu", 2, 2))
    expect_identical(as.data.frame(joined), as.data.frame(gpu))
    expect_identical(attr(joined, "state"), attr(gpu, "state"))
  }
})

test_that("a GPU ensemble continues every system exactly", {
  skip_if_no_gpu()
  st <- hmf_waterbag(50000, 1, c(0.6, 0.69), seed = 3)
  long <- lrmd(init = st, dt = 0.1, steps = 40, record_every = 5, replicas = 2,
               backend = "gpu", progress = FALSE)
  a <- lrmd(init = st, dt = 0.1, steps = 17, record_every = 5, replicas = 2, backend = "gpu",
            progress = FALSE)
  b <- lrmd(init = a, dt = 0.1, steps = 23, record_every = 5, backend = "gpu", progress = FALSE)
  joined <- rbind(as.data.frame(a), as.data.frame(b))
  joined <- joined[order(joined$condition, joined$replica, joined$step), ]
  rownames(joined) <- NULL
  expect_identical(joined, as.data.frame(long))
  expect_identical(attr(b, "state"), attr(long, "state"))
})

# ---- HMF systems side by side: one set of launches (lrmd_batched()) --------------------

# lrmd() on the GPU, and the number of systems of each job it sent
lr_gpu_jobs <- function(...) with_lrmd_jobs(lrmd(..., backend = "gpu", progress = FALSE))
# the rows of system (condition c, replica r) of an ensemble, without the
# condition's columns, as a run of that system alone has them
lr_system_rows <- function(x, c, r) {
  d <- as.data.frame(x)
  keep <- d$replica == r & (if (is.null(d$condition)) TRUE else d$condition == c)
  d <- d[keep, setdiff(names(d), c("condition", names(attr(x, "conditions")))), drop = FALSE]
  rownames(d) <- NULL
  d
}
# the rows of a run and of its continuation off the record grid, as one
# run's: system by system in step order, a step that both parts recorded
# once
lr_joined <- function(a, b) {
  d <- rbind(as.data.frame(a), as.data.frame(b))
  d <- d[order(d$condition, d$replica, d$step), ]
  d <- d[!duplicated(d[c("condition", "replica", "step")]), ]
  rownames(d) <- NULL
  d
}
lr_system_index <- function(x, c, r) {
  sy <- attr(x, "systems")
  which(sy$replica == r & (if (is.null(sy$condition)) TRUE else sy$condition == c))
}

test_that("GPU batches: each system bit for bit as run alone on the GPU, and the CPU to rounding", {
  skip_if_no_gpu()
  # n = 1001 (4 blocks a system, n not a multiple of 32: padded arrays);
  # n = 300001 (the HMF pass's grid stride: more blocks than 8 an SM)
  for (n in c(1001, 300001)) {
    U <- c(0.6, 0.69)
    start <- function(u) hmf_waterbag(n, M0 = 1, U = u, seed = 5)
    for (prec in c("double", "mixed")) {
      args <- list(dt = 0.1, steps = 23, record_every = 5, snapshots = c(1, 2.3),
                   precision = prec)
      live <- gpu_live_allocations()
      b <- do.call(lr_gpu_jobs, c(list(init = start(U), replicas = 3), args))
      expect_identical(gpu_live_allocations(), live)
      expect_identical(attr(b, "jobs"), 6L) # 2 conditions x 3 replicas, one job
      # one system a launch (option statphysgpu.lrmd_batch = FALSE): the same
      seq1 <- withr::with_options(list(statphysgpu.lrmd_batch = FALSE),
                                  do.call(lr_gpu_jobs, c(list(init = start(U), replicas = 3),
                                                         args)))
      expect_identical(attr(seq1, "jobs"), rep(1L, 6))
      expect_identical(as.data.frame(b), as.data.frame(seq1))
      expect_identical(attr(b, "state"), attr(seq1, "state"))
      expect_identical(attr(b, "snapshots"), attr(seq1, "snapshots"))
      # each system as a call of its own (its condition's start, first_replica = r)
      for (c in 1:2) {
        for (r in 1:3) {
          alone <- do.call(lr_gpu_jobs, c(list(init = start(U[c]), first_replica = r), args))
          expect_identical(attr(alone, "jobs"), 1L)
          i <- lr_system_index(b, c, r)
          expect_identical(lr_system_rows(b, c, r), lr_system_rows(alone, 1, r))
          expect_identical(attr(b, "state")[[i]], attr(alone, "state"))
          expect_identical(attr(b, "snapshots")[[i]], attr(alone, "snapshots"))
          expect_identical(attr(b, "e0")[i], attr(alone, "e0"))
        }
      }
      # the CPU: the tolerances of one system (double: 1e-9, every column;
      # mixed, the GPU's single-precision sines: the total energy to 1e-5)
      cpu <- do.call(lrmd, c(list(init = start(U), replicas = 3, backend = "cpu",
                                  progress = FALSE), args))
      cols <- if (prec == "double") c("kinetic", "potential", "total", "Mx", "My", "M") else "total"
      for (col in cols) {
        tol <- if (prec == "double") 1e-9 else 1e-5
        expect_lt(max(abs(b[[col]] - cpu[[col]])), tol * max(1, abs(cpu[[col]])), label = col)
      }
      if (prec == "double") {
        for (i in seq_along(attr(cpu, "state"))) {
          expect_lt(max(abs(as.matrix(attr(b, "state")[[i]]) -
                            as.matrix(attr(cpu, "state")[[i]]))), 1e-9)
        }
      }
    }
  }
})

test_that("GPU batches: a start given as numbers and equilibrium starts; chunks combine", {
  skip_if_no_gpu()
  m <- as.matrix(lr_plain(hmf_waterbag(2000, 0.8, 0.69, seed = 2)))
  e <- hmf_equilibrium(5000, T = c(0.3, 0.6), seed = 3) # two tables of the von Mises law
  for (init in list(m, e)) {
    run <- function(first, k, batch = TRUE) {
      withr::with_options(list(statphysgpu.lrmd_batch = batch),
                          lr_gpu_jobs(init = init, dt = 0.1, steps = 12, record_every = 4,
                                      snapshots = 0.8, replicas = k, first_replica = first,
                                      seed = 5, precision = "double"))
    }
    whole <- run(1, 4)
    expect_identical(sum(attr(whole, "jobs")), NROW(attr(whole, "systems")))
    expect_length(attr(whole, "jobs"), 1)
    ref <- run(1, 4, batch = FALSE)
    expect_identical(as.data.frame(whole), as.data.frame(ref))
    expect_identical(attr(whole, "state"), attr(ref, "state"))
    expect_identical(attr(whole, "snapshots"), attr(ref, "snapshots"))
    ch <- replica_chunks(4, chunks = 2)
    joined <- do.call(rbind, Map(run, ch$first_replica, ch$replicas))
    expect_identical(as.data.frame(joined), as.data.frame(whole))
    expect_identical(attr(joined, "state"), attr(whole, "state"))
    expect_identical(attr(joined, "systems"), attr(whole, "systems"))
  }
})

test_that("an interrupted GPU batch (HMF, gravity2d) stops every system at one step and continues exactly", {
  skip_if_no_gpu()
  skip_on_os("windows")
  # 6 systems each: HMF of 1e5 particles (some 30 us a step, 30 s
  # uninterrupted), gravity2d of 2e4 (some 1 ms a step, 1000 s)
  cases <- list(list(st = hmf_waterbag(100000, 1, c(0.6, 0.69), seed = 7), dt = 0.1),
                list(st = gravity2d_shell(20000, c(0.3, 0.5), 1, seed = 7), dt = 0.001))
  for (cs in cases) {
    st <- cs$st
    live <- gpu_live_allocations()
    job <- interrupt_after(1.5)
    expect_warning(x <- lr_gpu_jobs(init = st, dt = cs$dt, steps = 1e6, record_every = 10,
                                    replicas = 3),
                   "interrupted", class = "statphysgpu_interrupted")
    parallel::mccollect(job)
    expect_identical(gpu_live_allocations(), live)
    expect_identical(attr(x, "jobs"), 6L)
    sy <- attr(x, "systems")
    k <- sy$steps_done[1]
    expect_gt(k, 0)
    expect_identical(sy$steps_done, rep(k, 6)) # every system at the step reached
    expect_false(anyNA(as.data.frame(x)))
    # continued by 13 steps (off the record grid unless k is on it): the
    # records and states of one run of k + 13 steps
    y <- lr_gpu_jobs(init = x, dt = cs$dt, steps = 13)
    long <- lr_gpu_jobs(init = st, dt = cs$dt, steps = k + 13, record_every = 10, replicas = 3)
    joined <- lr_joined(x, y)
    expect_identical(joined, as.data.frame(long))
    expect_identical(attr(y, "state"), attr(long, "state"))
  }
})

test_that("a failure in a GPU batch names the replica and condition of its system; nothing leaks", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  expect_error(lrmd(init = hmf_waterbag(1000, 0.6, c(0.69, 0.3201), seed = 1), dt = 0.1,
                    steps = 2, replicas = 2, backend = "gpu", progress = FALSE),
               "^replica 1 of condition 2: `U` = 0.3201 is below the potential energy",
               class = "statphysgpu_start_error")
  expect_identical(gpu_live_allocations(), live)
})

# ---- ring and gravity2d systems side by side (issue 34 item 4) ------------------------

lr_pair_start <- function(model, n, v) {
  if (model == "ring") ring_uniform(n, p0 = v, seed = 5) else
    gravity2d_shell(n, r_in = v, r_out = 1, seed = 5)
}
lr_pair_sweep <- function(model) if (model == "ring") c(0.2, 0.4) else c(0.3, 0.5)

test_that("GPU batches of ring and gravity2d: each system bit for bit as run alone", {
  skip_if_no_gpu()
  # n = 1001: arrays padded (not a multiple of 32), 4 tiles of targets, the
  # sources in parts; n = 20000: 79 tiles, fewer and longer parts
  for (model in c("ring", "gravity2d")) for (n in c(1001, 20000)) {
    V <- lr_pair_sweep(model)
    for (prec in c("mixed", "double")) {
      what <- sprintf("%s n = %d, %s", model, n, prec)
      args <- list(dt = 0.01, steps = 13, record_every = 5, snapshots = c(0.03, 0.1),
                   precision = prec)
      live <- gpu_live_allocations()
      b <- do.call(lr_gpu_jobs, c(list(init = lr_pair_start(model, n, V), replicas = 3), args))
      expect_identical(gpu_live_allocations(), live)
      expect_identical(attr(b, "jobs"), 6L, info = what) # 2 conditions x 3 replicas, one job
      seq1 <- withr::with_options(list(statphysgpu.lrmd_batch = FALSE),
                                  do.call(lr_gpu_jobs, c(list(init = lr_pair_start(model, n, V),
                                                              replicas = 3), args)))
      expect_identical(attr(seq1, "jobs"), rep(1L, 6))
      expect_identical(as.data.frame(b), as.data.frame(seq1), info = what)
      expect_identical(attr(b, "state"), attr(seq1, "state"), info = what)
      expect_identical(attr(b, "snapshots"), attr(seq1, "snapshots"), info = what)
      # each system as a call of its own (its condition's start, first_replica = r)
      for (c in 1:2) for (r in 1:3) {
        alone <- do.call(lr_gpu_jobs, c(list(init = lr_pair_start(model, n, V[c]),
                                             first_replica = r), args))
        expect_identical(attr(alone, "jobs"), 1L)
        i <- lr_system_index(b, c, r)
        expect_identical(lr_system_rows(b, c, r), lr_system_rows(alone, 1, r), info = what)
        expect_identical(attr(b, "state")[[i]], attr(alone, "state"), info = what)
        expect_identical(attr(b, "snapshots")[[i]], attr(alone, "snapshots"), info = what)
        expect_identical(attr(b, "e0")[i], attr(alone, "e0"), info = what)
      }
      # the CPU to the tolerances of one system (double, n = 1001)
      if (prec == "double" && n == 1001) {
        cpu <- do.call(lrmd, c(list(init = lr_pair_start(model, n, V), replicas = 3,
                                    backend = "cpu", progress = FALSE), args))
        for (col in c("kinetic", "potential", "total")) {
          expect_lt(max(abs(b[[col]] - cpu[[col]])), 1e-9 * max(1, abs(cpu[[col]])),
                    label = paste(what, col))
        }
        for (i in seq_along(attr(cpu, "state"))) {
          expect_lt(max(abs(as.matrix(attr(b, "state")[[i]]) -
                            as.matrix(attr(cpu, "state")[[i]]))), 1e-9)
        }
      }
    }
  }
})

test_that("GPU batches of ring and gravity2d: starts given as numbers, other parts, chunks, continuation", {
  skip_if_no_gpu()
  for (model in c("ring", "gravity2d")) {
    # a start given as numbers: every system its columns (all replicas the same)
    m <- as.matrix(lr_plain(lr_pair_start(model, 3000, 0.3)))
    run <- function(init, first, k, batch = TRUE, ...) {
      withr::with_options(list(statphysgpu.lrmd_batch = batch),
                          lr_gpu_jobs(model, init = init, dt = 0.01, steps = 12, record_every = 4,
                                      snapshots = 0.08, replicas = k, first_replica = first,
                                      seed = 5, ...))
    }
    for (init in list(m, lr_pair_start(model, 3000, lr_pair_sweep(model)))) {
      whole <- run(init, 1, 4)
      expect_length(attr(whole, "jobs"), 1)
      ref <- run(init, 1, 4, batch = FALSE)
      expect_identical(as.data.frame(whole), as.data.frame(ref))
      expect_identical(attr(whole, "state"), attr(ref, "state"))
      expect_identical(attr(whole, "snapshots"), attr(ref, "snapshots"))
      ch <- replica_chunks(4, chunks = 2)
      joined <- do.call(rbind, Map(function(f, k) run(init, f, k), ch$first_replica, ch$replicas))
      expect_identical(as.data.frame(joined), as.data.frame(whole))
      expect_identical(attr(joined, "state"), attr(whole, "state"))
      expect_identical(attr(joined, "systems"), attr(whole, "systems"))
    }
    # continued off the record grid (two parts, the second from the first's
    # states side by side): the batch as one system a launch, and as one run
    st <- lr_pair_start(model, 2000, lr_pair_sweep(model))
    long <- lr_gpu_jobs(init = st, dt = 0.01, steps = 20, record_every = 5, replicas = 2)
    a <- lr_gpu_jobs(init = st, dt = 0.01, steps = 7, record_every = 5, replicas = 2)
    y <- lr_gpu_jobs(init = a, dt = 0.01, steps = 13)
    expect_identical(attr(y, "jobs"), c(4L, 4L))
    joined <- lr_joined(a, y)
    expect_identical(joined, as.data.frame(long))
    expect_identical(attr(y, "state"), attr(long, "state"))
  }
})

