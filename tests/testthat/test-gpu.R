# GPU host tests: GPU against CPU on the same streams, cuRAND, cache, faults.

test_that("GPU draws equal CPU draws: uint32 and uniforms bit for bit", {
  skip_if_no_gpu()
  ids <- gpu_devices()$id
  devsets <- unique(list(ids[1], ids))
  for (devs in devsets) {
    for (cs in list(list(seed = 0, stream = 0, offset = 0, n = 1e6 + 3),
                    list(seed = 20261121, stream = 7, offset = 5, n = 999),
                    list(seed = "0x299f31d0a4093822", stream = 2^40, offset = 4 * 2^33 + 2, n = 12345))) {
      for (f in list(philox_uint32, philox_uniform)) {
        cpu <- f(cs$n, seed = cs$seed, stream = cs$stream, offset = cs$offset, backend = "cpu")
        gpu <- f(cs$n, seed = cs$seed, stream = cs$stream, offset = cs$offset,
                 backend = "gpu", devices = devs)
        expect_identical(gpu, cpu)
      }
      u1 <- philox_uniform(cs$n, seed = cs$seed, stream = cs$stream, offset = cs$offset,
                           precision = "single", backend = "cpu")
      u2 <- philox_uniform(cs$n, seed = cs$seed, stream = cs$stream, offset = cs$offset,
                           precision = "single", backend = "gpu", devices = devs)
      expect_identical(u2, u1)
    }
  }
})

test_that("GPU normals equal CPU normals to the rounding of log, sin and cos", {
  skip_if_no_gpu()
  ids <- gpu_devices()$id
  for (devs in unique(list(ids[1], ids))) {
    for (o in c(0, 3)) {
      n <- 1e6 + 2
      cpu <- philox_normal(n, seed = 99, stream = 5, offset = o, backend = "cpu")
      gpu <- philox_normal(n, seed = 99, stream = 5, offset = o, backend = "gpu", devices = devs)
      # double: CUDA's log, sincos and sqrt are within 2 ulp, the CPU's
      # polynomials within a few: |dz| <= ~16 ulp of max(1, |z|) = 3.6e-15.
      expect_lt(max(abs(gpu - cpu) / pmax(1, abs(cpu))), 4e-15)
      cpu <- philox_normal(n, seed = 99, stream = 5, offset = o, precision = "single", backend = "cpu")
      gpu <- philox_normal(n, seed = 99, stream = 5, offset = o, precision = "single",
                           backend = "gpu", devices = devs)
      # single: the GPU's sine and cosine are the hardware ones, within
      # 2^-21.41 absolute on (-pi, pi), times r <= 5.77: 2.2e-6; logf, sqrtf
      # and the CPU's polynomials add a few ulp of max(1, |z|) (8 * 2^-24).
      expect_true(all(abs(gpu - cpu) <= 5.77 * 2^-21.41 + 8 * 2^-24 * pmax(1, abs(cpu))))
    }
  }
})

test_that("the GPU stream is cuRAND's curand_init(seed, subsequence, offset) + curand4", {
  skip_if_no_gpu()
  for (cs in list(list(seed = 0, s = 0:7, offset = 0),
                  list(seed = 1234567, s = 100:131, offset = 8),
                  list(seed = 2^52 + 17, s = 2^33 + 0:3, offset = 6))) {
    ref <- statphysgpu:::gpu_curand_stream(cs$seed, cs$s, cs$offset, nquads = 4)
    for (i in seq_along(cs$s)) {
      ours_gpu <- philox_uint32(16, seed = cs$seed, stream = cs$s[i], offset = cs$offset,
                                backend = "gpu")
      ours_cpu <- philox_uint32(16, seed = cs$seed, stream = cs$s[i], offset = cs$offset,
                                backend = "cpu")
      expect_identical(ours_gpu, ref[i, ])
      expect_identical(ours_cpu, ref[i, ])
    }
  }
})

test_that("1e9 GPU normals have N(0, 1) mean and variance within 5 standard errors", {
  skip_if_no_gpu()
  n <- 2^30
  for (p in c("single", "double")) {
    m <- statphysgpu:::gpu_normal_moments(n, seed = 42, precision = p)
    expect_lt(abs(m$mean) / sqrt(1 / n), 5)
    expect_lt(abs(m$var - 1) / sqrt(2 / n), 5)
  }
})

test_that("a second session loads kernels from the cache without compiling", {
  skip_if_no_gpu()
  dir <- local_kernel_cache()
  script <- tempfile(fileext = ".R")
  writeLines(c(
    sprintf("options(statphysgpu.cache_dir = '%s')", dir),
    "library(statphysgpu)",
    "x <- philox_uint32(8, seed = 1, backend = 'gpu')",
    "s <- statphysgpu:::gpu_kernel_stats()",
    "cat('STATS', s$compiles, s$cache_hits, '\\n')"), script)
  run <- function() {
    out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = TRUE)
    line <- grep("^STATS", out, value = TRUE)
    expect_length(line, 1)
    as.numeric(strsplit(line, " ")[[1]][2:3])
  }
  first <- run()
  expect_identical(first, c(1, 0)) # compiled once, nothing cached yet
  expect_length(list.files(dir, "\\.cubin$|\\.ptx$"), 1)
  second <- run()
  expect_identical(second, c(0, 1)) # loaded from the cache
})

test_that("an out-of-memory request fails cleanly with the estimate; the next call works", {
  skip_if_no_gpu()
  d <- gpu_devices()
  live <- gpu_live_allocations()
  too_much <- d$total_memory[1] + 2^30
  expect_error(.Call(statphysgpu:::C_sp_r_gpu_alloc_test, 0L, too_much),
               "needs [0-9.]+ GiB of device memory, but [0-9.]+ GiB of [0-9.]+ GiB is free")
  expect_true(.Call(statphysgpu:::C_sp_r_gpu_alloc_test, 0L, 2^20))
  expect_identical(philox_uint32(5, seed = 3, backend = "gpu"),
                   philox_uint32(5, seed = 3, backend = "cpu"))
  # neither the failed request nor the calls after it kept a buffer
  expect_identical(gpu_live_allocations(), live)
})

test_that("an interrupt during a long GPU loop stops it and leaves the session usable", {
  skip_if_no_gpu()
  skip_on_os("windows")
  live <- gpu_live_allocations()
  job <- interrupt_after(0.3)
  t0 <- proc.time()[["elapsed"]]
  # 2e9 values in short rounds: far longer than 0.3 s.  One interrupt rule
  # for every engine: the drawn prefix comes back, flagged, with a warning.
  expect_warning(u <- philox_uniform(2e9, seed = 1, backend = "gpu"), "interrupted",
                 class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_lt(proc.time()[["elapsed"]] - t0, 60)
  k <- sum(!is.na(u))
  expect_true(k > 0 && k < 2e9)
  expect_identical(as.vector(u[k - 1:0]),
                   philox_uniform(2, seed = 1, offset = k - 2, backend = "cpu"))
  rm(u)
  expect_identical(philox_uint32(5, seed = 3, backend = "gpu"),
                   philox_uint32(5, seed = 3, backend = "cpu"))
  expect_identical(gpu_live_allocations(), live) # the interrupted run freed its buffers
})

test_that("gpu_devices() describes each GPU and sp_backends() lists them", {
  skip_if_no_gpu()
  d <- gpu_devices()
  expect_gte(nrow(d), 1)
  expect_true(all(d$total_memory > 0 & d$free_memory > 0 & d$free_memory <= d$total_memory))
  expect_match(d$compute_capability, "^[0-9]+\\.[0-9]$")
  expect_true(all(d$multiprocessors > 0))
  b <- sp_backends()
  expect_equal(sum(b$backend == "gpu" & b$available), nrow(d))
  expect_error(philox_uint32(4, seed = 1, backend = "gpu", devices = nrow(d) + 5),
               "`devices` must be")
})

test_that("the session's caches: a repeated call loads and compiles nothing; after gpu_cache_clear() the next one loads again", {
  skip_if_no_gpu()
  local_kernel_cache()
  f <- function() {
    escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02, t_max = 10,
                 seed = 1, backend = "gpu", progress = FALSE)
  }
  a <- f()
  s1 <- statphysgpu:::gpu_kernel_stats()
  b <- f()
  expect_identical(statphysgpu:::gpu_kernel_stats(), s1)
  expect_identical(b$value, a$value)
  gpu_cache_clear() # unloads the modules and empties the (temporary) disk cache
  d <- f()
  expect_identical(statphysgpu:::gpu_kernel_stats()$compiles, s1$compiles + 1L)
  expect_identical(d$value, a$value)
  # the device table of a session is read once; the free memory is not cached
  expect_identical(gpu_devices(free = FALSE), gpu_devices(free = FALSE))
  expect_false(anyNA(gpu_devices()$free_memory))
})
