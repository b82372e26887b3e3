# Helium DMC on the GPU (he4_dmc.cu): the CPU's walk walker by walker in
# double precision -- with the branching off (weights only), where each
# walker's path is fixed by its own random numbers, and with it on, whose
# decisions (accept, copies) depend on continuous numbers that the two
# engines compute to rounding apart, so that a flipped decision has a
# probability of some 1e-12 per walker and generation -- then populations,
# devices, continuation, and the same law at other seeds.  Runs on a GPU
# host only (skip_if_no_gpu()).

dmc_small <- function(backend, ...) {
  he4_dmc(32, dt = 0.002, walkers = 48, target_population = 48, blocks = 3,
          block_steps = 4, equilibration = 4, seed = 21, backend = backend,
          progress = FALSE, ...)
}

dmc_df <- function(x) {
  out <- as.data.frame(x)
  rownames(out) <- NULL
  out
}

# The states of two results agree walker by walker.
dmc_expect_same_state <- function(gpu, cpu) {
  sg <- attr(gpu, "state")
  sc <- attr(cpu, "state")
  expect_identical(sg$size, sc$size)
  expect_identical(sg$gen, sc$gen)
  for (q in seq_along(sc$coords)) {
    expect_equal(sg$coords[[q]], sc$coords[[q]], tolerance = 1e-9)
    expect_equal(sg$weight[[q]], sc$weight[[q]], tolerance = 1e-9)
  }
  expect_equal(sg$e_trial, sc$e_trial, tolerance = 1e-9)
  expect_equal(sg$e_ref, sc$e_ref, tolerance = 1e-9)
  expect_identical(sg$overflow, sc$overflow)
}

dmc_expect_same_blocks <- function(gpu, cpu) {
  expect_identical(gpu$replica, cpu$replica)
  expect_identical(gpu$block, cpu$block)
  for (v in c("energy", "potential", "kinetic", "population", "trial_energy", "acceptance",
              "weight"))
    expect_equal(gpu[[v]], cpu[[v]], tolerance = 1e-9)
}

test_that("GPU = CPU walker by walker with the branching off (weights only)", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  cpu <- dmc_small("cpu", branching = FALSE)
  gpu <- dmc_small("gpu", branching = FALSE)
  expect_identical(attr(gpu, "backend"), "gpu")
  dmc_expect_same_blocks(gpu, cpu)
  dmc_expect_same_state(gpu, cpu)
  # the plain algorithm too
  cpu <- dmc_small("cpu", branching = FALSE, accept = FALSE)
  gpu <- dmc_small("gpu", branching = FALSE, accept = FALSE)
  dmc_expect_same_blocks(gpu, cpu)
  dmc_expect_same_state(gpu, cpu)
  expect_identical(gpu_live_allocations(), live)
})

test_that("GPU = CPU walker by walker with branching (births, deaths, prefix sums)", {
  skip_if_no_gpu()
  cpu <- dmc_small("cpu", populations = 2)
  gpu <- dmc_small("gpu", populations = 2)
  dmc_expect_same_blocks(gpu, cpu)
  dmc_expect_same_state(gpu, cpu)
  # walkers were born and killed: the populations moved off their start
  expect_true(any(attr(gpu, "state")$size != 48))
  # population 2 alone (a chunk) is the same population
  c2 <- dmc_small("gpu", first_population = 2)
  expect_equal(dmc_df(c2)[-1], dmc_df(gpu)[gpu$replica == 2, -1], tolerance = 1e-9,
               ignore_attr = TRUE)
  # continuing on the GPU is one longer run (the CPU's, here)
  a <- he4_dmc(32, dt = 0.002, walkers = 48, target_population = 48, blocks = 2,
               block_steps = 4, equilibration = 4, seed = 21, backend = "gpu",
               progress = FALSE, populations = 2)
  b <- he4_dmc(blocks = 1, block_steps = 4, equilibration = 0, init = a, backend = "gpu",
               progress = FALSE)
  expect_equal(b$energy, cpu$energy[cpu$block == 3], tolerance = 1e-9)
  dmc_expect_same_state(b, cpu)
})

test_that("two GPUs give the populations of one", {
  skip_if_no_gpu()
  d <- gpu_devices(free = FALSE)
  skip_if(nrow(d) < 2, "one GPU")
  one <- dmc_small("gpu", populations = 4, devices = d$id[1])
  two <- dmc_small("gpu", populations = 4, devices = d$id[1:2])
  expect_identical(dmc_df(two), dmc_df(one))
  expect_identical(attr(two, "state")$coords, attr(one, "state")$coords)
})

test_that("a GPU population run at other seeds has the CPU's law", {
  skip_if_no_gpu()
  # 4 populations of 150 walkers, 12 blocks of 20 generations after 100:
  # each population's mean block energy is one sample; the two means differ
  # by a normal variable of sd sqrt(var_a / 4 + var_b / 4) (the populations
  # are independent); accept |z| < 4
  run <- function(backend, seed) {
    he4_dmc(32, dt = 0.002, walkers = 150, blocks = 12, block_steps = 20,
            equilibration = 100, populations = 4, seed = seed, backend = backend,
            progress = FALSE)
  }
  cpu <- run("cpu", 1)
  gpu <- run("gpu", 2)
  m <- function(x) vapply(split(x$energy, x$replica), mean, 0)
  z <- (mean(m(gpu)) - mean(m(cpu))) / sqrt(var(m(gpu)) / 4 + var(m(cpu)) / 4)
  expect_lt(abs(z), 4)
  # and it lies below the VMC energy of its guide (some 1.3 K per atom at
  # N = 32, many standard errors)
  v <- he4_vmc(32, replicas = 64, blocks = 10, block_sweeps = 20, equilibration = 200,
               seed = 3, backend = "gpu", precision = "double", progress = FALSE)
  expect_lt(mean(gpu$energy), summary(v)$mean[1] - 0.5)
})
