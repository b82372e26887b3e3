# Helium VMC on the GPU: the CPU's chains, block by block.

vmc_small <- function(backend, precision = "double", ...) {
  he4_vmc(32, replicas = 4, blocks = 3, block_sweeps = 5, equilibration = 20, seed = 11,
          backend = backend, precision = precision, progress = FALSE, ...)
}

# Two runs of independent walkers with the same law: the energy means
# differ by a normal variable of sd sqrt(se_a^2 + se_b^2), each from the
# spread of the walkers' means, and so do the mean acceptances; accept
# |z| < 4 for both.
vmc_expect_same_law <- function(a, b) {
  means <- function(x, col) vapply(split(x[[col]], x$replica), mean, 0)
  for (col in c("energy", "acceptance")) {
    ma <- means(a, col)
    mb <- means(b, col)
    z <- (mean(mb) - mean(ma)) / sqrt(stats::var(ma) / length(ma) + stats::var(mb) / length(mb))
    expect_lt(abs(z), 4)
  }
}

test_that("GPU double follows the CPU's chains block by block", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  cpu <- vmc_small("cpu")
  gpu <- vmc_small("gpu")
  expect_identical(attr(gpu, "backend"), "gpu")
  expect_identical(gpu[c("replica", "block")], cpu[c("replica", "block")])
  # same draws, same decisions: the pair sums are added in another order, so
  # the observables agree to rounding (a decision that flipped on rounding
  # would show as a difference of order 1)
  for (v in c("energy", "potential", "kinetic_pb", "kinetic_jf"))
    expect_equal(gpu[[v]], cpu[[v]], tolerance = 1e-9)
  expect_identical(gpu$acceptance, cpu$acceptance)
  expect_equal(attr(gpu, "state")$coords, attr(cpu, "state")$coords, tolerance = 1e-10)
  expect_identical(attr(gpu, "state")$moves, attr(cpu, "state")$moves)
  expect_identical(attr(gpu, "displacement"), attr(cpu, "displacement"))
  # a walker alone (chunk) is the same chain; continuing it is one longer run
  one <- he4_vmc(32, replicas = 1, first_replica = 3, blocks = 3, block_sweeps = 5,
                 equilibration = 20, seed = 11, backend = "gpu", precision = "double",
                 progress = FALSE)
  expect_identical(one$energy, gpu$energy[gpu$replica == 3])
  more <- he4_vmc(32, blocks = 2, block_sweeps = 5, equilibration = 0, init = gpu,
                  backend = "gpu", progress = FALSE) # keeps the precision of `init`
  expect_identical(attr(more, "precision"), "double")
  long <- he4_vmc(32, replicas = 4, blocks = 5, block_sweeps = 5, equilibration = 20,
                  seed = 11, backend = "gpu", precision = "double", progress = FALSE)
  expect_identical(more$energy, long$energy[long$block > 3])
  expect_identical(gpu_live_allocations(), live)
})

test_that("GPU g(r) counts equal the CPU's in double precision", {
  skip_if_no_gpu()
  cpu <- vmc_small("cpu", pair_distribution = TRUE)
  gpu <- vmc_small("gpu", pair_distribution = TRUE)
  expect_identical(attr(gpu, "pair_distribution")$counts,
                   attr(cpu, "pair_distribution")$counts)
})

test_that("mixed precision on the GPU has the CPU's energy in distribution", {
  skip_if_no_gpu()
  args <- list(64, replicas = 32, blocks = 8, block_sweeps = 20, equilibration = 100,
               seed = 5, precision = "mixed", progress = FALSE)
  vmc_expect_same_law(do.call(he4_vmc, c(args, backend = "cpu")),
                      do.call(he4_vmc, c(args, backend = "gpu")))
})

test_that("an interrupted GPU run returns its finished blocks and continues exactly", {
  skip_if_no_gpu()
  skip_on_os("windows")
  live <- gpu_live_allocations()
  args <- list(256, replicas = 264, blocks = 2000, block_sweeps = 10, equilibration = 10,
               seed = 2, backend = "gpu", progress = FALSE)
  job <- interrupt_after(2)
  expect_warning(x <- do.call(he4_vmc, args), "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_true(attr(x, "interrupted"))
  expect_gt(nrow(x), 0)
  expect_lt(nrow(x), 264 * 2000)
  expect_false(anyNA(x$energy))
  expect_identical(gpu_live_allocations(), live)
})

test_that("kernel variant _fast: double follows the CPU's chains, mixed its distribution", {
  skip_if_no_gpu()
  old <- options(statphysgpu.he4_variant = "_fast")
  on.exit(options(old))
  # 40 atoms: two tiles of the measurement, the second partial
  args <- list(40, replicas = 4, blocks = 3, block_sweeps = 5, equilibration = 20, seed = 11,
               precision = "double", progress = FALSE)
  cpu <- do.call(he4_vmc, c(args, backend = "cpu"))
  gpu <- do.call(he4_vmc, c(args, backend = "gpu"))
  for (v in c("energy", "potential", "kinetic_pb", "kinetic_jf"))
    expect_equal(gpu[[v]], cpu[[v]], tolerance = 1e-9)
  expect_identical(gpu$acceptance, cpu$acceptance)
  expect_equal(attr(gpu, "state")$coords, attr(cpu, "state")$coords, tolerance = 1e-10)
  expect_identical(attr(gpu, "displacement"), attr(cpu, "displacement"))
  # the same run twice: the same numbers (the measurement's order is fixed)
  again <- do.call(he4_vmc, c(args, backend = "gpu"))
  expect_identical(again$energy, gpu$energy)
  # continuing across launches (the gradient scratch is the coordinate copy)
  more <- he4_vmc(40, blocks = 2, block_sweeps = 5, equilibration = 0, init = gpu,
                  backend = "gpu", progress = FALSE)
  long <- he4_vmc(40, replicas = 4, blocks = 5, block_sweeps = 5, equilibration = 20,
                  seed = 11, backend = "gpu", precision = "double", progress = FALSE)
  expect_identical(more$energy, long$energy[long$block > 3])
  # the truncated Jastrow form too
  cpu <- do.call(he4_vmc, c(args, backend = "cpu", jastrow = "truncated"))
  gpu <- do.call(he4_vmc, c(args, backend = "gpu", jastrow = "truncated"))
  expect_equal(gpu$energy, cpu$energy, tolerance = 1e-9)
  expect_identical(gpu$acceptance, cpu$acceptance)
  # mixed precision: the CPU's energy and acceptance in distribution
  args <- list(64, replicas = 32, blocks = 8, block_sweeps = 20, equilibration = 100,
               seed = 5, precision = "mixed", progress = FALSE)
  vmc_expect_same_law(do.call(he4_vmc, c(args, backend = "cpu")),
                      do.call(he4_vmc, c(args, backend = "gpu")))
})

test_that("kernel variant _fast_u4_usum (sums of u kept): the chains of _fast_u4, continued exactly", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  old <- options(statphysgpu.he4_variant = "_fast_u4")
  on.exit(options(old))
  # 40 atoms: two tiles, the second partial.  The two variants make the
  # same draws and compute ln psi' - ln psi from the same single-precision
  # terms, summed differently (new sum minus the kept sum against the sum
  # of differences; the kept sum carries the roundings of its updates since
  # it was last computed afresh, a few hundred here, about 2e-6 at most):
  # their decisions differ only where 2 (ln psi' - ln psi) and ln of the
  # uniform are that close, a chance of a few 1e-6 a move, so for these 4
  # walkers x 40 atoms x 35 sweeps (5600 moves) every decision is the same
  # with probability about 0.99 (this seed's result is fixed: it either
  # holds or shows at once), and then every measurement is the same
  # computation on the same coordinates: identical.  A wrong sum (a missed
  # update, a stale sum after a block or a launch) would change decisions
  # within a few moves.
  args <- list(40, replicas = 4, blocks = 3, block_sweeps = 5, equilibration = 20, seed = 11,
               precision = "mixed", backend = "gpu", progress = FALSE)
  fast <- do.call(he4_vmc, args)
  options(statphysgpu.he4_variant = "_fast_u4_usum")
  usum <- do.call(he4_vmc, args)
  expect_identical(usum$acceptance, fast$acceptance)
  expect_identical(usum$energy, fast$energy)
  expect_identical(attr(usum, "state")$coords, attr(fast, "state")$coords)
  # continuing: one longer call exactly (the sums are computed afresh at a
  # call's start and after every block, so the chain depends on its blocks
  # only, not on the launches)
  more <- he4_vmc(40, blocks = 2, block_sweeps = 5, equilibration = 0, init = usum,
                  backend = "gpu", progress = FALSE)
  long <- do.call(he4_vmc, modifyList(args, list(blocks = 5)))
  expect_identical(more$energy, long$energy[long$block > 3])
  expect_identical(attr(more, "state")$coords, attr(long, "state")$coords)
  # 64 atoms, the default run's shape: again the same decisions
  args <- list(64, replicas = 8, blocks = 2, block_sweeps = 10, equilibration = 20, seed = 3,
               measure_every = 2, precision = "mixed", backend = "gpu", progress = FALSE)
  usum <- do.call(he4_vmc, args)
  options(statphysgpu.he4_variant = "_fast_u4")
  fast <- do.call(he4_vmc, args)
  expect_identical(usum$energy, fast$energy)
  # the CPU's energy and acceptance in distribution
  options(statphysgpu.he4_variant = "_fast_u4_usum")
  args <- list(64, replicas = 32, blocks = 8, block_sweeps = 20, equilibration = 100,
               seed = 5, precision = "mixed", progress = FALSE)
  vmc_expect_same_law(do.call(he4_vmc, c(args, backend = "cpu")),
                      do.call(he4_vmc, c(args, backend = "gpu")))
  expect_identical(gpu_live_allocations(), live)
})

test_that("GPU double: a sweep over density and b follows the CPU's chains condition by condition", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  sw <- function(backend, blocks = 3, replicas = 3, ...) {
    he4_vmc(32, density = c(0.02186, 0.024, 0.026), b = c(3.07, 2.9), replicas = replicas,
            blocks = blocks, block_sweeps = 5, equilibration = 20, seed = 12,
            backend = backend, precision = "double", progress = FALSE, ...)
  }
  cpu <- sw("cpu", pair_distribution = TRUE)
  gpu <- sw("gpu", pair_distribution = TRUE)
  key <- c("condition", "density", "b", "replica", "block")
  expect_identical(as.data.frame(gpu)[key], as.data.frame(cpu)[key])
  # same draws, same decisions, each walker in its condition's box with its
  # condition's b (a wrong pair table would change every block)
  for (v in c("energy", "potential", "kinetic_pb", "kinetic_jf"))
    expect_equal(gpu[[v]], cpu[[v]], tolerance = 1e-9)
  expect_identical(gpu$acceptance, cpu$acceptance)
  expect_equal(attr(gpu, "state")$coords, attr(cpu, "state")$coords, tolerance = 1e-10)
  expect_identical(attr(gpu, "state")$moves, attr(cpu, "state")$moves)
  expect_identical(attr(gpu, "pair_distribution")$counts, attr(cpu, "pair_distribution")$counts)
  # condition 1 is the one-condition GPU call
  one <- he4_vmc(32, replicas = 3, blocks = 3, block_sweeps = 5, equilibration = 20, seed = 12,
                 backend = "gpu", precision = "double", progress = FALSE)
  expect_identical(gpu$energy[gpu$condition == 1], one$energy)
  # continuing the sweep on the GPU: one longer run
  more <- he4_vmc(32, blocks = 2, block_sweeps = 5, equilibration = 0, init = gpu,
                  backend = "gpu", progress = FALSE)
  long <- sw("gpu", blocks = 5)
  expect_identical(as.data.frame(more), as.data.frame(long)[long$block > 3, ], ignore_attr = TRUE)
  # chunks by first_replica on the GPU combine to the one call
  a <- sw("gpu", replicas = 1)
  b <- sw("gpu", replicas = 2, first_replica = 2)
  key <- names(as.data.frame(a))
  expect_identical(as.data.frame(rbind(a, b))[key], as.data.frame(gpu)[key])
  # walkers of a device split over several conditions (two devices when present)
  if (nrow(gpu_devices()) > 1) {
    two <- sw("gpu", devices = gpu_devices()$id[1:2])
    expect_identical(as.data.frame(two), as.data.frame(gpu))
  }
  expect_identical(gpu_live_allocations(), live)
})

test_that("GPU: one launch for every condition of a sweep is each condition's own launch, walker by walker", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  old <- options(statphysgpu.he4_variant = getOption("statphysgpu.he4_variant"))
  on.exit(options(old))
  # 6 conditions of 5 walkers: a launch's thread blocks span every condition
  # (and a device's part of them begins inside a condition when there are
  # several devices); each condition's one-condition call (its own launch
  # per round, its streams) must give the same numbers bit for bit: each
  # walker is its own computation, with its condition's pair parameters
  # and its stream
  args <- list(32, replicas = 5, blocks = 3, block_sweeps = 5, equilibration = 20, seed = 21,
               backend = "gpu", progress = FALSE, pair_distribution = TRUE)
  grid <- list(density = c(0.02186, 0.024, 0.026), b = c(3.07, 2.9))
  key <- c("block", "energy", "potential", "kinetic_pb", "kinetic_jf", "acceptance")
  # the default variants (pair parameters in shared memory) and the first
  # kernels (in registers), in both precisions
  for (variant in c("_fast_u4", "_fast_u4_usum", "")) {
    options(statphysgpu.he4_variant = variant)
    for (precision in c("double", "mixed")) {
      x <- do.call(he4_vmc, c(args, grid, precision = precision))
      g <- attr(x, "conditions")
      st <- attr(x, "state")
      pd <- attr(x, "pair_distribution")
      for (c in seq_len(nrow(g))) {
        one <- do.call(vmc_as_condition, c(list(c), args, precision = precision,
                                           density = g$density[c], b = g$b[c]))
        expect_identical(as.data.frame(one)[key], as.data.frame(x)[x$condition == c, key],
                         ignore_attr = TRUE)
        expect_identical(attr(one, "state")$coords, st$coords[, , st$condition == c])
        expect_identical(attr(one, "state")$displacement, st$displacement[st$condition == c])
        expect_identical(attr(one, "pair_distribution")$counts, pd$counts[pd$condition == c])
      }
      if (precision == "double") {
        # and the CPU's chains, to the rounding of the pair sums' order (the
        # tolerance of the tests above)
        cpu <- do.call(he4_vmc, c(modifyList(args, list(backend = "cpu")), grid,
                                  precision = "double"))
        for (v in c("energy", "potential", "kinetic_pb", "kinetic_jf"))
          expect_equal(x[[v]], cpu[[v]], tolerance = 1e-9)
        expect_identical(x$acceptance, cpu$acceptance)
      }
    }
  }
  expect_identical(gpu_live_allocations(), live)
})
