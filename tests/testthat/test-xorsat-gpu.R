# 3-XORSAT on the GPU: the CPU's runs, sweep for sweep and clone for clone.

xs_key <- function(x) as.data.frame(x)[c("replica", "sweeps", "solved", "clone")]

test_that("GPU runs are the CPU's runs (sweeps, outcome, clone), any clones and check_every", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  inst <- list(xorsat_random(96, seed = 5),
               read_xorsat(system.file("extdata", "3r3x", "3r3x_2body_n128_s1.txt",
                                       package = "statphysgpu")))
  for (ins in inst) for (cl in c(32, 256, 2048)) for (ce in c(1, 7)) for (ind in c(FALSE, TRUE)) {
    args <- list(ins, replicas = 24, clones = cl, check_every = ce, seed = 3, progress = FALSE,
                 independent_clones = ind)
    cpu <- do.call(xorsat_qg, c(args, backend = "cpu"))
    gpu <- do.call(xorsat_qg, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu")
    expect_identical(attr(gpu, "clones"), cl)
    expect_identical(xs_key(gpu), xs_key(cpu), info = sprintf("n %d clones %d every %d indep %d",
                                                                 ins$n, cl, ce, ind))
    expect_identical(attr(gpu, "solutions"), attr(cpu, "solutions"))
  }
  expect_identical(gpu_live_allocations(), live)
})

test_that("GPU: max_sweeps cuts as on the CPU; chunks combine; other seeds differ", {
  skip_if_no_gpu()
  ins <- xorsat_random(128, seed = 2)
  args <- list(ins, replicas = 30, clones = 64, max_sweeps = 40, seed = 9, progress = FALSE)
  cpu <- do.call(xorsat_qg, c(args, backend = "cpu"))
  gpu <- do.call(xorsat_qg, c(args, backend = "gpu"))
  expect_true(any(!cpu$solved)) # the cut is exercised
  expect_identical(xs_key(gpu), xs_key(cpu))
  whole <- xorsat_qg(ins, replicas = 30, clones = 96, seed = 4, backend = "gpu", progress = FALSE)
  parts <- rbind(xorsat_qg(ins, replicas = 11, clones = 96, seed = 4, backend = "gpu",
                           progress = FALSE),
                 xorsat_qg(ins, replicas = 19, first_replica = 12, clones = 96, seed = 4,
                           backend = "gpu", progress = FALSE))
  expect_identical(xs_key(parts), xs_key(whole))
  other <- xorsat_qg(ins, replicas = 30, clones = 96, seed = 5, backend = "gpu", progress = FALSE)
  expect_false(identical(xs_key(other), xs_key(whole)))
})

test_that("GPU clones = 'auto' fill the device; timeouts cut at the timeout", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  ins <- read_xorsat(system.file("extdata", "3r3x", "3r3x_2body_n384_s1.txt",
                                 package = "statphysgpu"))
  x <- xorsat_qg(ins, replicas = 8, seed = 1, backend = "gpu", progress = FALSE)
  d <- gpu_devices(free = FALSE)
  # whole thread blocks of 8 warps (32 clones a warp) on every SM, at least one
  per_block_row <- 8 * 32 * d$multiprocessors[1]
  expect_gte(attr(x, "clones"), per_block_row)
  expect_identical(attr(x, "clones") %% per_block_row, 0)
  expect_true(all(x$solved))
  expect_true(all(x$seconds > 0))
  # seconds: sweeps times the pace of one run alone on the device
  pace <- attr(x, "pace")
  expect_true(pace$measured && pace$seconds_per_sweep > 0)
  expect_match(pace$device, d$name[1], fixed = TRUE)
  expect_identical(pace$clones, attr(x, "clones"))
  expect_identical(x$seconds, x$sweeps * pace$seconds_per_sweep)
  # a timeout far below the mean time cuts most runs at floor(timeout / pace)
  # sweeps, the same on every machine for that pace
  tmo <- mean(x$seconds) / 20
  y <- xorsat_qg(ins, replicas = 8, seed = 2, timeout = tmo, backend = "gpu", progress = FALSE)
  expect_true(any(!y$solved))
  cut <- floor(tmo / pace$seconds_per_sweep)
  expect_equal(y$sweeps[!y$solved], rep(cut, sum(!y$solved)))
  expect_true(all(y$seconds <= tmo))
  expect_identical(gpu_live_allocations(), live)
})

test_that("GPU: damaged tables and deterministic p1 are refused before a launch", {
  skip_if_no_gpu()
  ins <- xorsat_random(96, seed = 5)
  bad <- ins
  bad$eq[1, 1] <- 999L
  expect_error(xorsat_qg(bad, replicas = 2, backend = "gpu", progress = FALSE),
               "`instance\\$eq\\[1, 1\\]` is 999", class = "statphysgpu_error")
  expect_error(xorsat_qg(ins, replicas = 2, p1 = 0, backend = "gpu", progress = FALSE),
               "deterministic", class = "statphysgpu_error")
  # the tables that the host packs for the kernel are checked too: two spins
  # of one equation in one set would race on the GPU
  tab <- statphysgpu:::xorsat_tables(ins)
  tab$sets <- c(0L, 96L)
  key <- statphysgpu:::gpu_kernel_load("xorsat", 0L)
  job <- statphysgpu:::xorsat_job(tab, nwords = 1, nruns = 2, limit = 100, check_every = 1,
                                  p1 = 0.1, indep = FALSE, calibrate = FALSE, run0 = c(0, 0),
                                  seed = c(1, 0))
  expect_error(.Call(statphysgpu:::C_sp_r_model_run, "xorsat", job, key, 0L, FALSE),
               "in its independent set")
})

test_that("GPU: an instance beyond the kernel's limit gets a clear error", {
  skip_if_no_gpu()
  expect_error(xorsat_qg(xorsat_random(1600, seed = 1), replicas = 1, backend = "gpu",
                         progress = FALSE),
               "at most 1,536 spins", class = "statphysgpu_error")
})

test_that("GPU: a sweep over p1 gives the CPU's runs condition by condition", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  ins <- xorsat_random(96, seed = 5)
  for (ind in c(FALSE, TRUE)) {
    args <- list(ins, replicas = 20, clones = 64, p1 = c(0.06, 0.12, 0.25), check_every = 4,
                 seed = 8, max_sweeps = 3000, independent_clones = ind, progress = FALSE)
    cpu <- do.call(xorsat_qg, c(args, backend = "cpu"))
    gpu <- do.call(xorsat_qg, c(args, backend = "gpu"))
    key <- c("condition", "p1", "replica", "sweeps", "solved", "clone")
    expect_identical(as.data.frame(gpu)[key], as.data.frame(cpu)[key], info = sprintf("indep %d", ind))
    expect_identical(attr(gpu, "solutions"), attr(cpu, "solutions"))
    # condition 1 is the one-condition call
    one <- do.call(xorsat_qg, c(modifyList(args, list(p1 = 0.06)), backend = "gpu"))
    expect_identical(as.data.frame(gpu)[gpu$condition == 1, key[-(1:2)]],
                     as.data.frame(one)[key[-(1:2)]])
    # one pace for the device, whatever the conditions
    expect_identical(attr(gpu, "pace")$device, attr(one, "pace")$device)
  }
  # chunks of a sweep combine
  whole <- xorsat_qg(ins, replicas = 16, clones = 96, p1 = c(0.1, 0.2), seed = 4,
                     backend = "gpu", progress = FALSE)
  parts <- rbind(xorsat_qg(ins, replicas = 7, clones = 96, p1 = c(0.1, 0.2), seed = 4,
                           backend = "gpu", progress = FALSE),
                 xorsat_qg(ins, replicas = 9, first_replica = 8, clones = 96, p1 = c(0.1, 0.2),
                           seed = 4, backend = "gpu", progress = FALSE))
  expect_identical(xs_key(parts), xs_key(whole))
  expect_identical(parts$p1, whole$p1)
  expect_identical(gpu_live_allocations(), live)
})
