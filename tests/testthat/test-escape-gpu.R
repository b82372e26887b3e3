# Escape times and switching currents on the GPU: the same paths as the CPU.

test_that("GPU and CPU agree path by path in double precision", {
  skip_if_no_gpu()
  for (m in c("euler", "srk2")) {
    args <- list(replicas = 3000, gamma = c(0.5, 0.6), V0 = 1, beta = 0.3, theta = 0.2,
                 dt = 0.02, t_max = 4000, method = m, seed = 77,
                 precision = "double", progress = FALSE)
    # Euler at h = 0.02 heats this well by 6% (warned): a comparison of the
    # backends, not of the physics
    cpu <- without_step_warnings(do.call(escape_times, c(args, backend = "cpu")))
    gpu <- without_step_warnings(do.call(escape_times, c(args, backend = "gpu")))
    expect_identical(attr(gpu, "backend"), "gpu")
    # same normals, same operations; sin, log and the fused multiply-adds
    # round differently in the last bits.  A path whose trajectory grazes the
    # threshold may cross one step apart on the two backends; all others agree
    # to ~1e-12.  Accept: 99% of paths within 1e-9 relative, all flags but
    # 0.5% equal.
    rel <- abs(gpu$value - cpu$value) / cpu$value
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_gt(mean(gpu$escaped == cpu$escaped), 0.995)
  }
})

test_that("GPU single precision has the distribution of the CPU's", {
  skip_if_no_gpu()
  # different seeds: two independent samples of one law; two-sample KS,
  # accept p > 0.001 per condition
  args <- list(replicas = 20000, gamma = c(0.5, 0.7), V0 = 1, beta = 0.3, theta = 0.15,
               dt = 0.02, t_max = 1e6, progress = FALSE)
  cpu <- do.call(escape_times, c(args, backend = "cpu", seed = 1))
  gpu <- do.call(escape_times, c(args, backend = "gpu", seed = 2))
  for (c in 1:2) {
    p <- stats::ks.test(cpu$value[cpu$condition == c], gpu$value[gpu$condition == c])$p.value
    expect_gt(p, 0.001)
  }
  # same seed: the same paths up to the rounding of single precision (most
  # paths agree closely; escape is chaotic near the barrier top, so a few
  # differ more)
  gpu1 <- do.call(escape_times, c(args, backend = "gpu", seed = 1))
  expect_gt(mean(abs(gpu1$value - cpu$value) / cpu$value < 1e-2), 0.9)
})

test_that("several devices give the one-device result, and chunks combine", {
  skip_if_no_gpu()
  args <- list(gamma = 0.5, V0 = 1, beta = 0.3, theta = 0.2, dt = 0.02,
               t_max = 4000, seed = 5, backend = "gpu", progress = FALSE)
  one <- do.call(escape_times, c(args, replicas = 5000, devices = 0))
  all <- do.call(escape_times, c(args, replicas = 5000, devices = "all"))
  expect_identical(as.data.frame(all), as.data.frame(one))
  parts <- rbind(do.call(escape_times, c(args, replicas = 2000)),
                 do.call(escape_times, c(args, replicas = 3000, first_replica = 2001)))
  expect_identical(as.data.frame(parts), as.data.frame(one))
})

test_that("strongly damped on the GPU: 40000 paths against the Smoluchowski MFPT", {
  skip_if_no_gpu()
  # as the CPU test (beta = 120 omega_b, expected bias +0.68%), with 10x the
  # paths: standard error 0.5%; accept |z| < 4
  g <- 0.5
  wb <- (1 - g^2)^0.25
  beta <- 120 * wb
  theta <- barrier_height(g, 1)
  x <- escape_times(40000, gamma = g, V0 = 1, beta = beta, theta = theta,
                    dt = 0.4 / beta, t_max = 1e9, seed = 2027, backend = "gpu",
                    progress = FALSE)
  tau <- mfpt_smoluchowski(g, 1, beta, theta)
  se <- stats::sd(x$value) / sqrt(nrow(x))
  expect_lt(abs(mean(x$value) - tau) / se, 4)
})

test_that("switching currents on the GPU follow Fulton-Dunkleberger at DU/theta ~ 10.5", {
  skip_if_no_gpu()
  # The CPU test's device with a slower ramp: the median switching bias has
  # Delta U / theta = 10.5.  20000 paths: the 99% KS band is 1.628/sqrt(n) =
  # 0.0115, widened by 0.02 for the theory's own error.
  V0 <- 20
  beta <- sqrt(V0) * (1 - 0.6^2)^0.25 / 3
  theta <- 0.5
  g <- seq(0.4, 0.99, by = 0.0005)
  find_ramp <- function(target) {
    f <- function(lv) {
      s <- switching_distribution(g, exp(lv), V0, beta, theta, "kramers")
      barrier_height(g[which(s$cdf >= 0.5)[1]], V0) / theta - target
    }
    exp(stats::uniroot(f, c(log(1e-9), log(1e-4)))$root)
  }
  ramp <- find_ramp(10.5)
  s <- switching_distribution(g, ramp, V0, beta, theta, "kramers")
  gamma0 <- g[which(s$cdf >= 1e-4)[1]]
  gmax <- g[which(s$cdf >= 0.9999)[1]]
  n <- 20000
  x <- switching_currents(n, ramp = ramp, V0 = V0, beta = beta, theta = theta,
                          dt = 0.05 / sqrt(V0), gamma0 = gamma0, gamma_max = gmax,
                          seed = 3, backend = "gpu", progress = FALSE)
  th <- switching_distribution(sort(x$value), ramp, V0, beta, theta, "kramers",
                               gamma0 = gamma0)$cdf
  e <- seq_len(n) / n
  expect_lt(max(abs(c(e - th, e - 1 / n - th))), 1.628 / sqrt(n) + 0.02)
})

test_that("an interrupted GPU run returns its finished paths; the session goes on", {
  skip_if_no_gpu()
  skip_on_os("windows")
  live <- gpu_live_allocations()
  job <- interrupt_after(1.5)
  expect_warning(
    x <- escape_times(1e6, gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.08,
                      dt = 0.01, t_max = 1e9, seed = 1, backend = "gpu",
                      progress = FALSE),
    "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  # every path is an observation: the unfinished are censored where they were
  expect_false(anyNA(x$value) || anyNA(x$escaped))
  unf <- attr(x, "unfinished")
  expect_gt(nrow(unf), 0)
  iu <- match(paste(unf$condition, unf$replica), paste(x$condition, x$replica))
  expect_false(any(x$escaped[iu]))
  expect_true(all(x$value[iu] >= 0 & x$value[iu] < 1e9))
  # a finished path is the one an uninterrupted GPU run of that replica gives
  done <- which(x$escaped)[1]
  y <- escape_times(1, gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.08, dt = 0.01,
                    t_max = 1e9, seed = 1, backend = "gpu", progress = FALSE,
                    first_replica = x$replica[done])
  expect_identical(y$value, x$value[done])
  y <- escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
                    t_max = 100, seed = 1, backend = "gpu", progress = FALSE)
  expect_equal(nrow(y), 100)
  expect_identical(gpu_live_allocations(), live) # nothing leaked
})

test_that("a GPU run that does not fit fails with the estimate, frees all, and the next run works", {
  skip_if_no_gpu()
  small <- function() {
    escape_times(200, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
                 t_max = 100, seed = 1, backend = "gpu", progress = FALSE)
  }
  ref <- small() # kernels compiled and loaded before memory runs short
  before <- .Call(statphysgpu:::C_sp_r_gpu_mem_info, 0L)[1]
  live <- gpu_live_allocations()
  # hold all but 512 MiB of the free memory, then ask for 2^25 paths (60
  # bytes a path on the device -- value, status and the end state: 1.9 GiB,
  # plus the allocator's 256 MiB margin)
  hold <- .Call(statphysgpu:::C_sp_r_gpu_reserve_test, 0L, before - 2^29)
  expect_error(
    escape_times(2^25, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
                 t_max = 1, seed = 1, backend = "gpu", progress = FALSE),
    "needs [0-9.]+ GiB of device memory, but [0-9.]+ GiB of [0-9.]+ GiB")
  # everything the failed run allocated before the failing request is freed
  expect_identical(gpu_live_allocations(), live + 1) # only the held buffer
  .Call(statphysgpu:::C_sp_r_gpu_release_test, hold)
  expect_identical(gpu_live_allocations(), live)
  expect_identical(as.data.frame(small()), as.data.frame(ref))
})

test_that("continuation on the GPU: the CPU's continuation, and the GPU's one call", {
  skip_if_no_gpu()
  live <- gpu_live_allocations()
  for (prec in c("double", "single")) for (ramp in c(FALSE, TRUE)) {
    run <- function(limit, backend) {
      if (ramp) {
        switching_currents(4000, ramp = 1e-3, V0 = 2, beta = 0.5, theta = c(0.3, 0.5),
                           dt = 0.02, gamma0 = 0.3, gamma_max = limit, seed = 5,
                           precision = prec, backend = backend, progress = FALSE)
      } else {
        escape_times(4000, gamma = c(0.5, 0.6), V0 = 1, beta = 0.3, theta = 0.2, dt = 0.02,
                     t_max = limit, seed = 77, init = "thermal", precision = prec,
                     backend = backend, progress = FALSE)
      }
    }
    lim <- if (ramp) c(0.55, 0.9) else c(50.01, 2000)
    cont <- function(x, backend) {
      if (ramp) switching_currents(init = x, gamma_max = lim[2], backend = backend,
                                   progress = FALSE)
      else escape_times(init = x, t_max = lim[2], backend = backend, progress = FALSE)
    }
    a_gpu <- run(lim[1], "gpu")
    expect_gt(sum(!a_gpu$escaped), 1000)
    b_gpu <- cont(a_gpu, "gpu") # the resume kernel
    w_gpu <- run(lim[2], "gpu")
    # the GPU's continuation is its one call: the same normals and the same
    # steps, compiled in another kernel variant (fused multiply-adds may be
    # placed differently): values to 1e-9 relative, flags but 0.5%
    rel <- abs(b_gpu$value - w_gpu$value) / abs(w_gpu$value)
    expect_gt(mean(rel < 1e-9), if (prec == "double") 0.99 else 0.95)
    expect_gt(mean(b_gpu$escaped == w_gpu$escaped), 0.995)
    expect_identical(attr(b_gpu, "backend"), "gpu")
    if (prec == "double") {
      # the end state the GPU wrote continues on the CPU as the CPU's own,
      # and the CPU's continues on the GPU (to rounding, as run on one backend)
      a_cpu <- run(lim[1], "cpu")
      st_c <- attr(a_cpu, "state")
      st_g <- attr(a_gpu, "state")
      same <- match(paste(st_c$condition, st_c$replica), paste(st_g$condition, st_g$replica))
      ok <- !is.na(same)
      expect_gt(mean(ok), 0.99)
      expect_gt(mean(st_g$step[same[ok]] == st_c$step[ok]), 0.99)
      expect_gt(mean(abs(st_g$phi[same[ok]] - st_c$phi[ok]) < 1e-9), 0.99)
      b_mix <- cont(a_cpu, "gpu")
      b_cpu <- cont(a_cpu, "cpu")
      rel <- abs(b_mix$value - b_cpu$value) / abs(b_cpu$value)
      expect_gt(mean(rel < 1e-9), 0.99)
      expect_gt(mean(b_mix$escaped == b_cpu$escaped), 0.995)
    }
  }
  expect_identical(gpu_live_allocations(), live) # nothing leaked
})

test_that("an interrupted GPU run continues on the GPU to its one call", {
  skip_if_no_gpu()
  skip_on_os("windows")
  args <- list(replicas = 2e5, gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.1, dt = 0.01,
               t_max = 2e4, seed = 1, precision = "double", backend = "gpu",
               progress = FALSE)
  job <- interrupt_after(1.5)
  expect_warning(x <- do.call(escape_times, args), class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  unf <- attr(x, "unfinished")
  expect_gt(nrow(unf), 0)
  st <- attr(x, "state")
  iu <- match(paste(unf$condition, unf$replica), paste(st$condition, st$replica))
  expect_true(all(st$step[iu] < 2e4 / 0.01))
  y <- escape_times(init = x, t_max = 2e4, backend = "gpu", progress = FALSE)
  w <- do.call(escape_times, args)
  expect_identical(nrow(attr(y, "unfinished")), 0L)
  rel <- abs(y$value - w$value) / abs(w$value)
  expect_gt(mean(rel < 1e-9), 0.99)
  expect_gt(mean(y$escaped == w$escaped), 0.995)
})
