# Issue 51, item 3: no simulator touches R's random numbers when it is
# given a seed (the package's numbers are Philox streams; `seed = NULL`
# draws the seed from R's RNG, as ?statphysgpu says).  Each call runs
# between two runif() after set.seed(): the pair must be the one that
# set.seed() alone gives, and RNGkind() must be unchanged.  The first sde_run()
# compiles a model into an empty cache (its temporary file names once came
# from sample()).

i51_rng_untouched <- function(what, f) {
  kind <- RNGkind()
  set.seed(51)
  a <- stats::runif(1)
  f()
  b <- stats::runif(1)
  set.seed(51)
  expect_identical(c(a, b), stats::runif(2), info = what)
  expect_identical(RNGkind(), kind, info = what)
}

test_that("item 3: simulators given a seed leave R's random numbers alone (CPU)", {
  old <- sp_threads(1)
  withr::defer(sp_threads(old))
  x <- NULL
  i51_rng_untouched("escape_times", function() {
    x <<- escape_times(4, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02, t_max = 20,
                       seed = 1, backend = "cpu", progress = FALSE)
  })
  i51_rng_untouched("h_check", function() h_check(x, progress = FALSE))
  i51_rng_untouched("switching_currents", function() {
    switching_currents(4, ramp = 1e-2, V0 = 1, beta = 1, theta = 0.1, dt = 0.02, seed = 1,
                       backend = "cpu", progress = FALSE)
  })
  i51_rng_untouched("escape_rate_ams", function() {
    escape_rate_ams(0.5, 1, 1, 0.3, 0.05, particles = 10, replicas = 2, k = 2, seed = 1,
                    backend = "cpu", progress = FALSE)
  })
  i51_rng_untouched("driven_brownian", function() {
    driven_brownian(4, a = 1, omega = 2, f = 0.5, beta = 1, theta = 0.1, periods = 1,
                    steps_per_period = 400,
                    seed = 1, backend = "cpu", progress = FALSE)
  })
  i51_rng_untouched("kuramoto", function() {
    kuramoto(6, K = 1, theta = 0.1, dt = 0.02, steps = 4, seed = 1, backend = "cpu",
             progress = FALSE)
  })
  i51_rng_untouched("he4_vmc", function() {
    he4_vmc(8, replicas = 2, blocks = 1, block_sweeps = 2, equilibration = 0, seed = 1,
            backend = "cpu", precision = "double", progress = FALSE)
  })
  i51_rng_untouched("he4_dmc", function() {
    he4_dmc(8, dt = 0.01, blocks = 1, block_steps = 1, equilibration = 0, seed = 1,
            backend = "cpu", progress = FALSE)
  })
  i51_rng_untouched("xorsat_random, xorsat_qg", function() {
    inst <- xorsat_random(16, seed = 1)
    xorsat_qg(inst, replicas = 2, max_sweeps = 50, seed = 1, backend = "cpu", progress = FALSE)
  })
  i51_rng_untouched("lrmd", function() {
    lrmd("hmf", init = hmf_waterbag(12, 1, 0.69, seed = 1), dt = 0.1, steps = 2,
         record_every = 1, seed = 1, backend = "cpu", progress = FALSE)
  })
})

test_that("item 3: the first sde_run() of a model compiles into an empty cache, R's RNG untouched", {
  skip_if_no_cc()
  withr::local_envvar(STATPHYSGPU_CACHE_DIR = withr::local_tempdir("sp51rng"))
  withr::local_options(statphysgpu.cache_dir = NULL)
  # a model of its own (its name and constant), so that nothing compiled
  # it before in this session
  m <- sde_model(drift = list(x = ~ -5.1 * x), noise = list(x = ~ 0.3),
                 stop = ~ x > 0.2, name = "rng51")
  i51_rng_untouched("sde_run, first (compiling) call", function() {
    suppressMessages(sde_run(m, 4, init = list(x = 0), dt = 0.01, t_max = 1, seed = 1,
                             backend = "cpu", progress = FALSE))
  })
  expect_true(length(list.files(Sys.getenv("STATPHYSGPU_CACHE_DIR"), recursive = TRUE)) > 0)
  i51_rng_untouched("sde_run, cached", function() {
    sde_run(m, 4, init = list(x = 0), dt = 0.01, t_max = 1, seed = 1, backend = "cpu",
            progress = FALSE)
  })
  i51_rng_untouched("sde_ams", function() {
    sde_ams(m, ~ x, 0.05, init = list(x = 0), dt = 0.05, particles = 5, replicas = 2, k = 1,
            seed = 1, backend = "cpu", progress = FALSE)
  })
})
