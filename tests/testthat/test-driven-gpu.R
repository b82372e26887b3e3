# driven_brownian() on the GPU: the same paths as the CPU (double), the same
# distribution in single precision.  The contract tests (interrupt, memory,
# CPU = GPU) are in test-contract.R.

test_that("GPU and CPU agree path by path in double precision (srk2, euler, kept trajectories)", {
  skip_if_no_gpu()
  for (m in c("srk2", "euler")) {
    args <- list(replicas = 3000, a = c(1.5, 4.2), omega = 4.9, f = c(0, 0.1), beta = 0.9,
                 theta = 0.01, periods = 20, steps_per_period = 97, transient = 0.25,
                 keep = 4, output = "histogram", method = m, seed = 77,
                 precision = "double", progress = FALSE)
    # 97 steps a period and a transient of 5 periods: the launches start and
    # end inside Philox blocks, and the transient ends inside a launch
    cpu <- do.call(driven_brownian, c(args, backend = "cpu"))
    gpu <- do.call(driven_brownian, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu")
    pc <- attr(cpu, "paths")
    pg <- attr(gpu, "paths")
    expect_identical(pg[c("condition", "replica")], pc[c("condition", "replica")])
    # same normals and operations; cos and fused multiply-adds round
    # differently in the last bits.  At a = 1.5 the motion is regular and
    # the paths agree to 1e-12 after all 1940 steps; at a = 4.2 it is
    # chaotic and a host emulation of the kernel (CPU math, no FMA) against
    # the CPU engine showed 1e-16 grow past 1e-9 in 30-45 per cent of the
    # paths by the end, but in none by the end of the transient (485 steps).
    # Accept 99% within 1e-9: everything at a = 1.5, x after the transient
    # at a = 4.2.
    close <- function(a, b) mean(abs(a - b) < 1e-9 * pmax(1, abs(b)))
    reg <- pc$condition %in% cpu$condition[cpu$a == 1.5]
    expect_gt(close(pg$x[reg], pc$x[reg]), 0.99)
    expect_gt(close(pg$v[reg], pc$v[reg]), 0.99)
    expect_gt(close(pg$v2_bar[reg], pc$v2_bar[reg]), 0.99)
    expect_gt(close(pg$x_tr, pc$x_tr), 0.99)
    tc <- attr(cpu, "trajectories")
    tg <- attr(gpu, "trajectories")
    expect_identical(tg[c("condition", "replica", "period")], tc[c("condition", "replica", "period")])
    regt <- tc$condition %in% cpu$condition[cpu$a == 1.5]
    expect_gt(close(tg$x[regt], tc$x[regt]), 0.99)
  }
})

test_that("single precision on the GPU has the distribution of double precision (Fig. 2)", {
  skip_if_no_gpu()
  # the anomalous-transport case of Fig. 2 of paper 001, shorter: two
  # independent samples (different seeds); two-sample KS on the end
  # positions, accept p > 0.001; <v> within 4 combined standard errors
  args <- list(replicas = 20000, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001,
               periods = 200, backend = "gpu", progress = FALSE)
  s <- do.call(driven_brownian, c(args, precision = "single", seed = 1))
  d <- do.call(driven_brownian, c(args, precision = "double", seed = 2))
  p <- stats::ks.test(attr(s, "paths")$x, attr(d, "paths")$x)$p.value
  expect_gt(p, 0.001)
  z <- (s$v_mean - d$v_mean) / sqrt(s$v_se^2 + d$v_se^2)
  expect_lt(abs(z), 4)
})

test_that("equipartition on the GPU in single precision: <v^2> = theta", {
  skip_if_no_gpu()
  # as the CPU test, with 50x the paths (standard error about 0.1%); the
  # SRK2 bias in <v^2> at dt 2 pi = 0.016 is -0.1% for the linearised
  # dynamics at the bottom of the well (escape_linear_step(), curvature
  # (2 pi)^2) and less over the whole potential: accept |z| < 4 + that bias
  x <- driven_brownian(20000, a = 0, omega = 1, f = 0, beta = 1, theta = c(0.5, 2),
                       periods = 20, steps_per_period = 400, seed = 3, backend = "gpu",
                       progress = FALSE)
  z <- (x$v2_mean - x$theta) / x$v2_se
  bias <- 1e-3 * x$theta / x$v2_se
  expect_true(all(abs(z) < 4 + bias))
})

test_that("several devices give the one-device result, and chunks combine", {
  skip_if_no_gpu()
  args <- list(a = 4.2, omega = 4.9, f = c(0, 0.1), beta = 0.9, theta = 0.01, periods = 10,
               seed = 5, backend = "gpu", output = "histogram", progress = FALSE)
  one <- do.call(driven_brownian, c(args, replicas = 5000, devices = 0))
  all <- do.call(driven_brownian, c(args, replicas = 5000, devices = "all"))
  expect_identical(attr(all, "paths"), attr(one, "paths"))
  parts <- rbind(do.call(driven_brownian, c(args, replicas = 2000)),
                 do.call(driven_brownian, c(args, replicas = 3000, first_replica = 2001)))
  expect_identical(as.data.frame(parts), as.data.frame(one))
  expect_identical(attr(parts, "histogram"), attr(one, "histogram"))
})

test_that("the starts drawn on the device are the CPU's, bit for bit", {
  skip_if_no_gpu()
  # the kept trajectories' period 0 is the start (x, v) and, with no
  # transient, x_tr is the start in the working precision: both come from
  # sp_driven_init_kernel on the GPU and sp_driven_start() on the CPU
  starts <- list(NULL,
                 list(x = 0.25, v = -1.5),
                 list(x = 1e6 + seq(0.01, 0.9, length.out = 40), v = seq(-2, 2, length.out = 40)),
                 list(v = 0.5))
  for (st in starts) for (p in c("single", "double")) {
    args <- c(list(replicas = 40, a = c(1, 2), omega = 2, f = 0.1, beta = 1, theta = 0.1,
                   periods = 1, steps_per_period = 20, transient = 0, keep = 40,
                   first_replica = 11, seed = 12, precision = p, progress = FALSE),
              list(init = st))
    cpu <- do.call(driven_brownian, c(args, backend = "cpu"))
    gpu <- do.call(driven_brownian, c(args, backend = "gpu"))
    tc <- attr(cpu, "trajectories")
    tg <- attr(gpu, "trajectories")
    expect_identical(tg[tg$period == 0, ], tc[tc$period == 0, ])
    expect_identical(attr(gpu, "paths")$x_tr, attr(cpu, "paths")$x_tr)
  }
})

test_that("the register-capped kernels (the default) give the free kernels' numbers", {
  skip_if_no_gpu()
  args <- list(replicas = 3000, a = 4.2, omega = 4.9, f = c(0, 0.1), beta = 0.9, theta = 0.01,
               periods = 12, steps_per_period = 97, transient = 0.25, seed = 8,
               progress = FALSE, backend = "gpu")
  for (p in c("single", "double")) for (m in c("srk2", "euler")) {
    capped <- do.call(driven_brownian, c(args, precision = p, method = m))
    free <- withr::with_options(list(statphysgpu.driven_variant = "_free"),
                                do.call(driven_brownian, c(args, precision = p, method = m)))
    expect_identical(attr(free, "paths"), attr(capped, "paths"))
  }
})

test_that("continuation on the GPU: the CPU's continuation (double), and the GPU's one call", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  for (prec in c("double", "single")) {
    run <- function(periods, transient, backend) {
      driven_brownian(3000, a = 1.5, omega = 4.9, f = c(0, 0.1), beta = 0.9, theta = 0.01,
                      periods = periods, transient = transient, steps_per_period = 97,
                      keep = 4, output = "histogram", precision = prec, seed = 77,
                      backend = backend, progress = FALSE)
    }
    a <- run(10, 0.25, "gpu") # transient of 2 periods
    b <- driven_brownian(init = a, periods = 10, backend = "gpu", progress = FALSE)
    w <- run(20, 0.1, "gpu")
    expect_identical(attr(b, "backend"), "gpu")
    # the same kernel from the state in device memory, or from the state
    # uploaded: the same numbers
    expect_identical(attr(b, "paths"), attr(w, "paths"))
    expect_identical(attr(b, "trajectories"), attr(w, "trajectories"))
    expect_identical(attr(b, "histogram")$density, attr(w, "histogram")$density)
    if (prec == "double") {
      bc <- driven_brownian(init = run(10, 0.25, "cpu"), periods = 10, backend = "cpu",
                            progress = FALSE)
      pc <- attr(bc, "paths")
      pg <- attr(b, "paths")
      # regular motion (a = 1.5): the backends agree to 1e-12 (as in the
      # one-call test above); accept 99% within 1e-9
      close <- function(u, v) mean(abs(u - v) < 1e-9 * pmax(1, abs(v)))
      expect_gt(close(pg$x, pc$x), 0.99)
      expect_gt(close(pg$v2_bar, pc$v2_bar), 0.99)
      # the GPU continues the CPU's state
      bm <- driven_brownian(init = run(10, 0.25, "cpu"), periods = 10, backend = "gpu",
                            progress = FALSE)
      expect_gt(close(attr(bm, "paths")$x, pc$x), 0.99)
    }
  }
  expect_identical(gpu_live_allocations(), live)
})
