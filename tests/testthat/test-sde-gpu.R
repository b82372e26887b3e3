# A user's SDE model on the GPU: the same paths as the CPU (double), the
# fixed-length outputs, chunks, non-finite paths, the compile cache, and
# the physics at sizes the CPU tests cannot afford.

sde_lorenz <- function() {
  sde_model(drift = list(x = ~ sigma * (y - x), y = ~ x * (rho - z) - y, z = ~ x * y - b * z),
            noise = list(x = ~ eps, y = ~ eps, z = ~ eps),
            params = c(sigma = 10, rho = 28, b = 8 / 3, eps = 0.5),
            observe = list(r2 = ~ x^2 + y^2 + z^2), name = "lorenz")
}

test_that("GPU and CPU agree path by path in double precision: passage times and the state there", {
  skip_if_no_gpu()
  for (method in c("srk2", "euler")) {
    args <- list(model = sde_washboard(), replicas = 3000, init = list(x = ~ asin(gamma), v = 0),
                 dt = 0.02, t_max = 2000, params = list(gamma = c(0.5, 0.6)), method = method,
                 seed = 77, precision = "double", at_passage = TRUE, progress = FALSE)
    cpu <- do.call(sde_run, c(args, backend = "cpu"))
    gpu <- do.call(sde_run, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu")
    # the same normals and operations; sin and fused multiply-adds round
    # differently in the last bits, so a path grazing the event may stop a
    # step apart: 99% within 1e-9, the flags equal but for 0.5%
    rel <- abs(gpu$value - cpu$value) / pmax(cpu$value, 1e-12)
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_gt(mean(gpu$escaped == cpu$escaped), 0.995)
    ok <- rel < 1e-9
    expect_equal(attr(gpu, "at_passage")$x[ok], attr(cpu, "at_passage")$x[ok], tolerance = 1e-7)
  }
})

test_that("GPU passage: the first step past the event, at every step of a macro-step", {
  skip_if_no_gpu()
  # the passage kernel's chunks of whole macro-steps without tests between
  # the steps, the one where the event holds redone step by step; also with
  # the registers capped (statphysgpu.sde_blocks_per_sm) and the polynomial sine
  for (precision in c("double", "single")) for (method in c("euler", "srk2"))
    expect_passage_at_first_crossing("gpu", precision, method, n = 2000)
  for (opt in list(list(statphysgpu.sde_blocks_per_sm = 10),
                   list(statphysgpu.sde_fast_math = FALSE))) {
    old <- options(opt)
    expect_passage_at_first_crossing("gpu", "single", "euler", n = 2000)
    options(old)
  }
})

# The passage kernel's states at passage against the trajectories of the
# fixed-length kernel (the scalar copy of the model at every step), for the
# model m from x0 up to its level lev (params: the others).
expect_passage_state_as_scalar <- function(m, x0, lev, params, ulp) {
  n <- 1000; dt <- 0.01; t_max <- 3; kmax <- round(t_max / dt)
  for (method in c("euler", "srk2")) {
    args <- list(model = m, replicas = n, init = list(x = x0), dt = dt, t_max = t_max, seed = 4,
                 params = params, method = method, precision = "single", backend = "gpu",
                 progress = FALSE)
    p <- do.call(sde_run, c(args, at_passage = TRUE, bridge = FALSE))
    tr <- as.data.frame(do.call(sde_run, c(args, output = "trajectories", keep = n,
                                           record_every = 1)))
    tr <- tr[order(tr$replica, tr$time), ]
    x <- matrix(tr$x, nrow = kmax + 1) # column: a replica, row k + 1: step k
    first <- apply(x > lev, 2, function(h) if (any(h)) which(h)[1] - 1 else NA)
    expect_identical(p$escaped, !is.na(first))
    e <- which(!is.na(first))
    expect_gt(length(e), 0.9 * n)
    # the state at the end of the step of the passage: the trajectory's
    # there, to the last bits (the two kernels' copies may contract into
    # fused multiply-adds differently)
    expect_lt(max(abs(attr(p, "at_passage")$x[e] - x[cbind(first[e] + 1, e)])), 4 * ulp)
  }
}

test_that("GPU passage in single: the fast macro-steps' copy of the model gives the scalar copy's numbers, a sine beyond its range redone", {
  skip_if_no_gpu()
  # the passage kernel's usual macro-steps run a copy of the model whose sin
  # and cos skip their range test (|argument| <= 8192), marking a larger
  # argument; such a macro-step is redone by the scalar copy (the library's
  # sine beyond 8192), which the fixed-length kernel runs at every step.
  # Paths from 8100 drift up to the level 8160; the sine's argument k x
  # lies below 8192 (k = 1e-3) or far beyond (k = 1e5: there the fast
  # reduction is wrong by O(1), and so would be the drift, 5 sin(k x), and
  # every step by some 0.05 against an ulp of 2^-11)
  m <- sde_model(drift = list(x = ~ w + a * sin(k * x) + a * cos(k * x)), noise = list(x = ~ s),
                 params = c(w = 40, a = 5, s = 1, k = 1e-3, lev = 8160),
                 stop = ~ x > lev, name = "sinrange")
  for (k in c(1e-3, 1e5)) expect_passage_state_as_scalar(m, 8100, 8160, list(k = k), 2^-11)
  # the second copy, with the bare hardware sine, runs while the arguments
  # stay within [-pi, pi]: paths from c - 1 drift up to a level c + 2.5,
  # whose sine arguments x - c stay below pi (that copy all along), or c +
  # 5, past pi (from the macro-step whose argument passed pi, the first
  # copy, as for the rest of the path).  At x near c = 8100 an increment
  # (about 0.04) keeps its bits in x + d as at 8160 above, so the copies
  # agree to the last bits; near 0 they would part by roundings of x + d
  # (a few ulp over 100 steps)
  w <- sde_model(drift = list(x = ~ w + a * sin(x - c) + a * cos(x - c)), noise = list(x = ~ s),
                 params = c(w = 4, a = 1, s = 0.5, c = 8100, lev = 8102.5), stop = ~ x > lev,
                 name = "sinwell")
  expect_match(sde_code(w), "#define SP_SDE_TRIG 1", fixed = TRUE)
  for (lev in c(8102.5, 8105))
    expect_passage_state_as_scalar(w, 8099, lev, list(lev = lev), 2^-11)
})

test_that("moments, histograms and trajectories: GPU = CPU in double", {
  skip_if_no_gpu()
  args <- list(model = sde_lorenz(), replicas = 3000, init = list(x = 1, y = 1, z = ~ rho - 1),
               dt = 0.001, t_max = 0.5, record_every = 50, seed = 5,
               precision = "double", progress = FALSE)
  extra <- list(moments = list(),
                histogram = list(bins = list(x = seq(-30, 30, by = 2), r2 = c(0, 100, 400, 900, 1600))),
                trajectories = list(keep = 7))
  for (output in c("moments", "histogram", "trajectories")) {
    a <- c(args, extra[[output]], output = output)
    cpu <- as.data.frame(do.call(sde_run, c(a, backend = "cpu")))
    gpu <- as.data.frame(do.call(sde_run, c(a, backend = "gpu")))
    expect_identical(names(gpu), names(cpu))
    if (output == "moments") {
      # the same paths, tiles reduced in another order: rounding only
      expect_equal(gpu$mean, cpu$mean, tolerance = 1e-9)
      expect_equal(gpu$sd, cpu$sd, tolerance = 1e-9)
      expect_identical(gpu$replicas, cpu$replicas)
    } else if (output == "histogram") {
      # a value on a bin edge may fall either side: at most a few counts move
      expect_lte(sum(abs(gpu$count - cpu$count)), 4)
      expect_identical(sum(gpu$count), sum(cpu$count))
    } else {
      expect_equal(gpu$x, cpu$x, tolerance = 1e-9)
      expect_equal(gpu$r2, cpu$r2, tolerance = 1e-9)
      expect_identical(gpu$replica, cpu$replica)
    }
  }
})

test_that("GPU chunks combine into the one-call result; the device does not change the paths", {
  skip_if_no_gpu()
  run <- function(n, first = 1) {
    sde_run(sde_washboard(), n, init = list(x = ~ asin(gamma), v = 0), dt = 0.02, t_max = 500,
            params = list(theta = c(0.2, 0.3)), seed = 3, first_replica = first,
            backend = "gpu", progress = FALSE)
  }
  whole <- run(5000)
  parts <- rbind(run(1234), run(5000 - 1234, first = 1235))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_identical(as.data.frame(run(5000)), as.data.frame(whole))
  # trajectories of a fixed-length run: chunks keep replicas 1..keep
  traj <- function(n, first = 1) {
    sde_run(sde_lorenz(), n, init = list(x = 1, y = 1, z = 1), dt = 0.001, t_max = 0.2,
            output = "trajectories", keep = 10, record_every = 20, seed = 8,
            first_replica = first, backend = "gpu", progress = FALSE)
  }
  expect_identical(as.data.frame(rbind(traj(4), traj(496, first = 5))),
                   as.data.frame(traj(500)))
})

test_that("a non-finite path on the GPU gives the CPU's error", {
  skip_if_no_gpu()
  for (output in c("passage", "moments")) {
    m <- sde_model(drift = list(y = ~ 0, x = ~ x^2), stop = ~ y > 1, name = "blow")
    run <- function(backend) {
      tryCatch(sde_run(m, 5000, init = list(y = 0, x = c(2, rep(0.1, 4999))), dt = 0.001,
                       t_max = 5, output = output, backend = backend, seed = 1,
                       precision = "double", method = "euler", progress = FALSE),
               statphysgpu_not_finite = function(e) conditionMessage(e))
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    expect_match(gpu, "`x` of replica 1 \\(condition 1\\)")
    expect_identical(gpu, cpu)
  }
})

test_that("single precision on the GPU: the washboard has escape_times()'s law at 2^18 paths", {
  skip_if_no_gpu()
  n <- 2^18
  s <- sde_run(sde_washboard(), n, init = list(x = ~ asin(gamma), v = 0), dt = 0.01, t_max = 1e5,
               params = list(gamma = 0.6, theta = 0.25), method = "euler", seed = 21,
               backend = "gpu", progress = FALSE)
  e <- suppressWarnings(escape_times(n, gamma = 0.6, V0 = 1, beta = 1, theta = 0.25, dt = 0.01,
                                     t_max = 1e5, method = "euler", seed = 22, backend = "gpu",
                                     progress = FALSE))
  expect_true(all(s$escaped))
  # two-sample KS of independent samples: p > 0.001
  expect_gt(stats::ks.test(s$value, e$value)$p.value, 1e-3)
})

test_that("OU moments at 2^20 replicas on the GPU match the exact discrete law", {
  skip_if_no_gpu()
  ou <- sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s), params = c(k = 1, s = 0.8))
  n <- 2^20; dt <- 0.02
  for (prec in c("single", "double")) {
    d <- as.data.frame(sde_run(ou, n, init = list(x = 1), dt = dt, t_max = 2,
                               output = "moments", record_every = 25, method = "euler",
                               seed = 4, backend = "gpu", precision = prec, progress = FALSE))
    steps <- round(d$time / dt)
    a <- 1 - dt
    mean_ex <- a^steps
    var_ex <- 0.64 * dt * (1 - a^(2 * steps)) / (1 - a^2)
    ok <- steps > 0
    # z < 4.5 for 9 records (false alarm ~ 1e-4)
    expect_true(all(abs(d$mean[ok] - mean_ex[ok]) < 4.5 * sqrt(var_ex[ok] / n)))
    expect_true(all(abs(d$sd[ok]^2 - var_ex[ok]) < 4.5 * var_ex[ok] * sqrt(2 / (n - 1))))
  }
})

test_that("the model is compiled once and then read from the cache", {
  skip_if_no_gpu()
  local_kernel_cache()
  m <- sde_model(drift = list(x = ~ -x + 0.123456), noise = list(x = ~ 1), name = "cachetest")
  before <- statphysgpu:::sde_compile_stats()$compiles
  run <- function() sde_run(m, 1000, init = list(x = 0), dt = 0.01, t_max = 1,
                            output = "moments", backend = "gpu", seed = 1, progress = FALSE)
  a <- run()
  b <- run()
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, before + 1L)
  expect_identical(as.data.frame(a), as.data.frame(b))
  expect_true(length(list.files(file.path(gpu_cache_dir(), "sde"), recursive = TRUE,
                                pattern = "cubin|ptx$")) >= 1)
})

test_that("a model's sin and cos in single precision on the GPU: the CPU's polynomial, about 2 ulp", {
  skip_if_no_gpu()
  old <- options(statphysgpu.sde_fast_math = FALSE)
  on.exit(options(old))
  g <- sde_sincos_probe("gpu")
  expect_identical(g$x, g$x_in)
  # the CPU's bounds (test-sde.R) with half a unit more, as NVRTC contracts
  # the reduction and the polynomial into fused multiply-adds (one rounding
  # where the CPU has two; 2.10 units measured with gcc -mfma on 1e7
  # points); beyond 8192, CUDA's sinf and cosf (2 ulp)
  expect_sincos_accuracy(g, abs_u = 2.5, rel_u = 3, lib_u = 2)
  if (sde_cpu_available()) {
    cpu <- sde_sincos_probe("cpu")
    # one source on both backends: the values agree to those roundings
    expect_lt(max(abs(g$s - cpu$s)), 3 * 2^-24)
    expect_lt(max(abs(g$c - cpu$c)), 3 * 2^-24)
  }
})

test_that("a model's sin and cos in single precision on the GPU by default: the hardware's after reduction", {
  skip_if_no_gpu()
  g <- sde_sincos_probe("gpu")
  expect_identical(g$x, g$x_in)
  u <- 2^-24
  poly <- abs(g$x) <= 8192
  for (f in c("s", "c")) {
    err <- abs(g[[f]] - g[[paste0(f, "_exact")]])
    # __sinf / __cosf within 2^-21.41 absolute on [-pi, pi] (6.03 units),
    # alone there; beyond pi plus the reduction's one rounding of r
    # (|r| <= pi / 2: half an ulp of a number below 2, 1 unit): 7.1 units
    expect_lt(max(err[poly]), 7.1 * u)
    # beyond 8192 CUDA's sinf and cosf (2 ulp)
    expect_lt(max(err[!poly]), 2 * u)
  }
  # it is the default: other numbers than the polynomial's
  old <- options(statphysgpu.sde_fast_math = FALSE)
  on.exit(options(old))
  p <- sde_sincos_probe("gpu")
  expect_false(identical(g$s, p$s))
})

test_that("GPU numerics (issue 32): time exact in single, stalled states stop the run, the bridge's passages equal the CPU's", {
  skip_if_no_gpu()
  # t ~ 1e6 in single precision: cos(omega t) of the double t, rounded
  # once (test-sde-numerics.R has the CPU's)
  drive <- sde_model(drift = list(y = ~ cos(omega * t)), params = c(omega = 2.3),
                     observe = list(c = ~ cos(omega * t)), name = "drive")
  g <- as.data.frame(sde_run(drive, 32, init = list(y = 0), dt = 0.1, t_max = 1e6 + 100,
                             output = "trajectories", keep = 1, record_every = 1000, seed = 1,
                             backend = "gpu", precision = "single", method = "euler",
                             progress = FALSE))
  g <- utils::tail(g, 2)
  expect_lt(max(abs(g$c - cos(2.3 * g$time))), 2^-25)
  k <- 1e7:(1e7 + 999)
  expect_lt(abs(diff(g$y) - sum(cos(2.3 * k * 0.1)) * 0.1), 1000 * 2^-25)
  # an accumulating state: the GPU's engine stops it as the CPU's does,
  # passage lanes and fixed-length paths alike
  acc <- sde_model(drift = list(c = ~ 1), stop = ~ c > 1e5, name = "acc")
  for (output in c("passage", "moments")) {
    err <- expect_error(sde_run(acc, 64, init = list(c = 0), dt = 0.01, t_max = 2e5,
                                output = output, seed = 1,
                                record_every = if (output == "passage") NULL else 1e6,
                                backend = "gpu", method = "euler", progress = FALSE),
                        class = "statphysgpu_resolution")
    expect_match(conditionMessage(err), "`c` of replica 1 \\(condition 1\\)")
    t <- as.numeric(sub(".*up to t = ([0-9.e+-]+).*", "\\1", conditionMessage(err)))
    expect_gt(t, 5243 + 655 - 200)
    expect_lt(t, 5243 + 655 + 200)
  }
  # the stall in the 59th of many records: the host enqueues up to 256
  # records' launches between its reads, and the launches after the one
  # that stalls leave the paths as they are: the CPU's message
  stall <- function(backend) {
    tryCatch(sde_run(acc, 64, init = list(c = 0), dt = 0.01, t_max = 2e4, output = "moments",
                     record_every = 100, seed = 1, backend = backend, method = "euler",
                     progress = FALSE),
             statphysgpu_resolution = function(e) conditionMessage(e))
  }
  g <- stall("gpu")
  expect_match(g, "`c` of replica 1 \\(condition 1\\)")
  expect_identical(g, stall("cpu"))
  # the Brownian bridge: the same tests with the same uniforms (purpose 17)
  # on both backends; double precision: the same paths to rounding, a
  # passage near a decision's edge may move a step (99% within 1e-9)
  bm <- sde_model(drift = list(x = ~ mu), noise = list(x = ~ s), params = c(mu = 1, s = 1),
                  stop = ~ x > 1, name = "bm")
  for (method in c("euler", "srk2")) {
    args <- list(model = bm, replicas = 20000, init = list(x = 0), dt = 0.01, t_max = 50,
                 seed = 7, precision = "double", method = method, progress = FALSE)
    cpu <- do.call(sde_run, c(args, backend = "cpu"))
    gpu <- do.call(sde_run, c(args, backend = "gpu"))
    expect_true(attr(gpu, "bridge"))
    rel <- abs(gpu$value - cpu$value) / pmax(cpu$value, 1e-12)
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_identical(gpu$escaped, cpu$escaped)
  }
})

test_that("GPU: a passage run continued to 2T agrees with the run to 2T, and with the CPU's", {
  skip_if_no_gpu()
  wb <- sde_washboard()
  args <- list(model = wb, replicas = 3000, init = list(x = ~ asin(gamma), v = 0), dt = 0.05,
               params = list(gamma = c(0.5, 0.6)), seed = 21, precision = "double",
               at_passage = TRUE, progress = FALSE, backend = "gpu")
  for (method in c("srk2", "euler")) {
    one <- do.call(sde_run, c(args, t_max = 100.01, method = method))
    a <- do.call(sde_run, c(args, t_max = 50.003, method = method))
    b <- sde_run(wb, 3000, init = a, t_max = 100.01, backend = "gpu", progress = FALSE)
    expect_identical(attr(b, "backend"), "gpu")
    # the same steps and normals on the same device: to rounding (the fast
    # and the per-step copies of a chunk round alike; a grazing path may differ)
    rel <- abs(b$value - one$value) / pmax(one$value, 1e-12)
    expect_gt(mean(rel < 1e-9), 0.99)
    expect_gt(mean(b$escaped == one$escaped), 0.995)
    # a GPU result continued on the CPU: the same paths to rounding
    c1 <- sde_run(wb, 3000, init = a, t_max = 100.01, backend = "cpu", progress = FALSE)
    rel <- abs(c1$value - one$value) / pmax(one$value, 1e-12)
    expect_gt(mean(rel < 1e-9), 0.99)
    h <- attr(b, "state")
    expect_identical(nrow(h$states), sum(!b$escaped))
  }
})

test_that("passage on several devices (one GPU listed 2 and 3 times): the one device's result", {
  skip_if_no_gpu()
  # statphysgpu.devices_repeat lets a GPU id repeat in `devices`: each entry
  # its own stream, buffers and path counter, so the split of the paths in
  # blocks of 32 (SP_SDE_DEV_BLOCK) and the collection in the call's order
  # run as on several GPUs.  A path's numbers depend on its stream alone, so
  # the results are identical to the one device's.
  withr::local_options(statphysgpu.devices_repeat = TRUE)
  dev <- gpu_devices()$id[1]
  wb <- sde_washboard()
  # 3 x 1000 paths: 94 blocks, the last one short; t_max leaves paths censored
  args <- list(model = wb, replicas = 1000, init = list(x = ~ asin(gamma), v = 0), dt = 0.05,
               params = list(gamma = c(0.5, 0.6, 0.7)), seed = 5, at_passage = TRUE,
               progress = FALSE, backend = "gpu")
  for (precision in c("double", "single")) for (method in c("srk2", "euler")) {
    a <- c(args, list(precision = precision, method = method))
    one <- do.call(sde_run, c(a, t_max = 40, devices = dev))
    expect_true(any(one$escaped) && any(!one$escaped))
    for (nd in 2:3) {
      sev <- do.call(sde_run, c(a, list(t_max = 40, devices = rep(dev, nd))))
      expect_identical(sev$value, one$value)
      expect_identical(sev$escaped, one$escaped)
      expect_identical(attr(sev, "at_passage"), attr(one, "at_passage"))
      expect_identical(attr(sev, "state"), attr(one, "state"))
    }
    # a continuation: on two "devices" as on one
    c1 <- sde_run(wb, 1000, init = one, t_max = 80, backend = "gpu", devices = dev,
                  progress = FALSE)
    c2 <- sde_run(wb, 1000, init = one, t_max = 80, backend = "gpu", devices = rep(dev, 2),
                  progress = FALSE)
    expect_identical(c2$value, c1$value)
    expect_identical(attr(c2, "state"), attr(c1, "state"))
  }
  # fewer blocks than devices: the others idle
  a <- c(args, list(precision = "double", method = "srk2", t_max = 40))
  a$replicas <- 20
  a$params <- list(gamma = 0.6)
  one <- do.call(sde_run, c(a, devices = dev))
  expect_identical(do.call(sde_run, c(a, list(devices = rep(dev, 3))))$value, one$value)
  # the escape front-ends' GPU engines (built-in and declared) split their
  # paths over devices: the one device's numbers
  for (engine in c("builtin", "declared")) {
    withr::local_options(statphysgpu.escape_engine = engine)
    e <- list(700, gamma = c(0.6, 0.7), V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
              t_max = 60, seed = 3, backend = "gpu", progress = FALSE)
    e1 <- do.call(escape_times, c(e, devices = dev))
    e2 <- do.call(escape_times, c(e, list(devices = rep(dev, 2))))
    expect_true(any(e1$escaped) && any(!e1$escaped))
    expect_identical(e2$value, e1$value)
    expect_identical(e2$escaped, e1$escaped)
  }
})
