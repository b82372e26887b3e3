# Every bad-input path of the foundation names the argument and the range.

test_that("n must be a whole number >= 0", {
  expect_error(philox_uint32(-1, seed = 1), "`n` must be a single whole number between 0 and 2\\^52, not -1")
  expect_error(philox_uniform(2.5, seed = 1), "`n` must be .* not 2.5")
  expect_error(philox_normal(NA, seed = 1), "`n` must be .* not NA")
  expect_error(philox_normal(c(1, 2), seed = 1), "`n` .* a vector of length 2")
  expect_error(philox_normal("10", seed = 1), "`n` must be")
  expect_error(philox_normal(Inf, seed = 1), "`n` must be")
  expect_error(philox_normal(2^53, seed = 1), "`n` must be")
})

test_that("seed, stream and offset must be 64-bit whole numbers", {
  expect_error(philox_uint32(1, seed = NA), "`seed` must be a single whole number in \\[0, 2\\^64\\)")
  expect_error(philox_uint32(1, seed = NaN), "`seed` must be")
  expect_error(philox_uint32(1, seed = Inf), "`seed` must be")
  expect_error(philox_uint32(1, seed = -1), "`seed` must be")
  expect_error(philox_uint32(1, seed = 1.5), "`seed` must be")
  expect_error(philox_uint32(1, seed = 2^64), "`seed` must be")
  expect_error(philox_uint32(1, seed = "12"), "`seed` must be .* hexadecimal")
  expect_error(philox_uint32(1, seed = "0x12345678123456789"), "`seed` must be")
  expect_error(philox_uint32(1, seed = "0xzz"), "`seed` must be")
  expect_error(philox_uint32(1, seed = 1, stream = -2), "`stream` must be")
  expect_error(philox_uint32(1, seed = 1, stream = 0.5), "`stream` must be")
  expect_error(philox_uint32(1, seed = 1, stream = 1:2), "`stream` must be")
  expect_error(philox_uint32(1, seed = 1, offset = 2^64), "`offset` must be")
  expect_error(philox_uint32(1, seed = 1, offset = NA_real_), "`offset` must be")
  # The largest values are accepted ...
  expect_length(philox_uint32(1, seed = "0xffffffffffffffff",
                              stream = "0xffffffffffffffff",
                              offset = "0xfffffffffffffffe"), 1)
  # ... but a range may not run off the end of the stream.
  expect_error(philox_uint32(3, seed = 1, offset = "0xfffffffffffffffe"),
               "`offset \\+ n` must not pass 2\\^64")
})

test_that("precision, backend and devices are checked", {
  expect_error(philox_normal(1, seed = 1, precision = "half"),
               '`precision` must be one of "double", "single", not "half"')
  expect_error(philox_normal(1, seed = 1, backend = "tpu"),
               '`backend` must be one of "auto", "cpu", "gpu"')
  expect_error(philox_normal(1, seed = 1, backend = "cpu", devices = 0),
               "`devices` applies to the GPU backend only")
})

test_that("errors name the user's call, not an internal helper", {
  e <- tryCatch(philox_uniform(-1, seed = 1), error = identity)
  expect_s3_class(e, "statphysgpu_error")
  expect_identical(conditionCall(e)[[1]], as.name("philox_uniform"))
})

test_that("sp_threads() gets, sets and restores the thread count", {
  old <- sp_threads()
  expect_true(is.integer(old) && old >= 1)
  on.exit(sp_threads(old))
  prev <- withVisible(sp_threads(1))
  expect_false(prev$visible)
  expect_identical(prev$value, old)
  expect_identical(sp_threads(), 1L)
  if (statphysgpu:::threads_info()$openmp) {
    expect_identical(sp_threads(2), 1L)
    expect_identical(sp_threads(), min(2L, statphysgpu:::threads_info()$limit))
  } else {
    expect_warning(sp_threads(2), "without OpenMP")
    expect_identical(sp_threads(), 1L)
  }
  sp_threads(old)
  expect_identical(sp_threads(), old)
  expect_error(sp_threads(0), "`n` must be a single whole number between 1 and")
  expect_error(sp_threads(-3), "`n` must be")
  expect_error(sp_threads(1.5), "`n` must be")
  expect_error(sp_threads(NA), "`n` must be")
  expect_error(sp_threads("2"), "`n` must be")
  info <- statphysgpu:::threads_info()
  if (info$openmp) {
    # more threads than processors: allowed, and said
    many <- min(info$procs + 1, info$limit)
    if (many > info$procs) {
      expect_warning(sp_threads(many), sprintf(
        "this machine has %d logical processors?; %d threads share them", info$procs, many))
      expect_identical(sp_threads(), as.integer(many))
    }
    if (info$limit < .Machine$integer.max) {
      expect_warning(sp_threads(info$limit + 1), "thread limit")
    }
    sp_threads(old)
  }
})

test_that("a chunk needs the seed shared by the chunks: seed = NULL with a first replica > 1 is refused", {
  # every simulator (all of them go through sim_frame()); such a chunk used
  # to run with a seed of its own, whose replicas are not the one-call ones
  chunk_error <- function(code, first_name) {
    e <- tryCatch(code, error = identity)
    expect_s3_class(e, "statphysgpu_error")
    expect_match(conditionMessage(e), sprintf(
      "`seed` is NULL but `%s` is 3: .* Pass the seed shared by the chunks", first_name))
  }
  chunk_error(escape_times(2, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
                           t_max = 1, first_replica = 3, backend = "cpu", progress = FALSE),
              "first_replica")
  chunk_error(switching_currents(2, ramp = 1e-3, V0 = 1, beta = 0.5, theta = 0.1, dt = 0.02,
                                 first_replica = 3, backend = "cpu", progress = FALSE),
              "first_replica")
  chunk_error(driven_brownian(2, a = 0, omega = 1, f = 0, beta = 1, theta = 0.1, periods = 1,
                              steps_per_period = 400, first_replica = 3, backend = "cpu",
                              progress = FALSE), "first_replica")
  chunk_error(kuramoto(4, K = 1, dt = 0.1, steps = 2, first_replica = 3, backend = "cpu",
                       progress = FALSE), "first_replica")
  chunk_error(he4_vmc(32, replicas = 1, blocks = 1, block_sweeps = 1, equilibration = 0,
                      first_replica = 3, backend = "cpu", progress = FALSE), "first_replica")
  chunk_error(xorsat_qg(xorsat_random(12, seed = 1), replicas = 1, clones = 32, first_replica = 3,
                        backend = "cpu", progress = FALSE), "first_replica")
  # the first chunk may draw its seed (it is in the result: `seed_hex`), and
  # a later chunk with that seed continues it
  set.seed(5)
  a <- escape_times(2, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02, t_max = 50,
                    backend = "cpu", progress = FALSE)
  b <- escape_times(2, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02, t_max = 50,
                    seed = attr(a, "seed_hex"), first_replica = 3, backend = "cpu",
                    progress = FALSE)
  whole <- escape_times(4, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02, t_max = 50,
                        seed = attr(a, "seed_hex"), backend = "cpu", progress = FALSE)
  expect_identical(rbind(a, b)$value, whole$value)
})
