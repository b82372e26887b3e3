# lrmd() on the declared many-body engine (issue 50: option
# statphysgpu.lrmd_engine = "declared") on the GPU: GPU = CPU in double,
# and = the built-in GPU engine, in both modes of the GPU plan (mode A: n
# <= 2048, a system a block; mode B: over blocks), HMF, ring and gravity2d.
# The dynamics is deterministic; tolerance 1e-9 (absolute, on numbers of order 1: rounding
# only -- fused multiply-adds, the sums' order -- grown by the short runs'
# chaos, 1e-14 measured on the CPU against the built-in).

skip_on_cran()

test_that("declared lrmd(): GPU = CPU = the built-in GPU engine in double, HMF and ring", {
  skip_if_no_gpu()
  cases <- list(list("hmf", 300), list("hmf", 5000), list("ring", 300), list("ring", 3000))
  for (cs in cases) {
    model <- cs[[1]]
    n <- cs[[2]]
    init <- if (model == "hmf") hmf_waterbag(n, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(n, p0 = 0.3, seed = 1)
    run <- function(b, eng) {
      withr::local_options(statphysgpu.lrmd_engine = eng)
      lrmd(model, init = init, dt = 0.05, steps = 20, record_every = 5, snapshots = 0.5,
           replicas = 2, precision = "double", backend = b, progress = FALSE)
    }
    a <- run("cpu", "declared")
    g <- run("gpu", "declared")
    h <- run("gpu", "builtin")
    lab <- paste(model, n)
    num <- c("kinetic", "potential", "total", "Mx", "My")
    expect_equal(as.matrix(g[num]), as.matrix(a[num]), tolerance = 1e-9, label = lab)
    expect_equal(as.matrix(g[num]), as.matrix(h[num]), tolerance = 1e-9, label = lab)
    for (s in 1:2) {
      expect_equal(as.matrix(attr(g, "state")[[s]]), as.matrix(attr(a, "state")[[s]]),
                   tolerance = 1e-9, label = lab)
      expect_equal(as.matrix(attr(g, "snapshots")[[s]][[1]]),
                   as.matrix(attr(h, "snapshots")[[s]][[1]]), tolerance = 1e-9, label = lab)
    }
  }
})

test_that("declared lrmd() in mixed precision on the GPU: the energy kept, the built-in's M", {
  skip_if_no_gpu()
  for (model in c("hmf", "ring")) {
    init <- if (model == "hmf") hmf_waterbag(20000, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(4000, p0 = 0.3, seed = 1)
    run <- function(eng) {
      withr::local_options(statphysgpu.lrmd_engine = eng)
      lrmd(model, init = init, dt = 0.05, steps = 100, record_every = 20, backend = "gpu",
           progress = FALSE)
    }
    d <- run("declared")
    b <- run("builtin")
    # single-precision states: 100 steps of rounding, about 1e-6 relative
    expect_lt(max(abs(d$energy_error)), 1e-4)
    expect_lt(max(abs(d$M - b$M)), 1e-3)
  }
})

test_that("declared lrmd(): GPU = CPU = the built-in GPU engine in double, gravity2d", {
  skip_if_no_gpu()
  # a cold shell to t = 0.3 (its fall begun, no close passes yet); mode A
  # (n = 300) and mode B (n = 3000), two replicas side by side, then one
  # system on the GPU in two slices (option statphysgpu.mb_slices: the
  # several-GPU code on one) with its calls ending at every record (as one
  # system on several GPUs runs)
  for (n in c(300, 3000)) {
    init <- gravity2d_shell(n, 0.5, 1, seed = 1)
    run <- function(b, eng, replicas = 2) {
      withr::local_options(statphysgpu.lrmd_engine = eng)
      lrmd("gravity2d", init = init, dt = 0.01, steps = 30, record_every = 10,
           snapshots = 0.15, replicas = replicas, softening = 0.02, precision = "double",
           backend = b, progress = FALSE)
    }
    a <- run("cpu", "declared")
    g <- run("gpu", "declared")
    h <- run("gpu", "builtin")
    lab <- paste("gravity2d", n)
    num <- c("kinetic", "potential", "total", "virial_ratio", "r_half")
    expect_equal(as.matrix(g[num]), as.matrix(a[num]), tolerance = 1e-9, label = lab)
    expect_equal(as.matrix(g[num]), as.matrix(h[num]), tolerance = 1e-9, label = lab)
    for (s in 1:2) {
      expect_equal(as.matrix(attr(g, "state")[[s]]), as.matrix(attr(a, "state")[[s]]),
                   tolerance = 1e-9, label = lab)
      expect_equal(as.matrix(attr(g, "snapshots")[[s]][[1]]),
                   as.matrix(attr(h, "snapshots")[[s]][[1]]), tolerance = 1e-9, label = lab)
    }
    ns <- asNamespace("statphysgpu")
    real <- get("lrmd_declared_keeps", envir = ns)
    utils::assignInNamespace("lrmd_declared_keeps", function(fr, nsys) FALSE, ns)
    sl <- withr::with_options(list(statphysgpu.mb_slices = 2), run("gpu", "declared", 1))
    utils::assignInNamespace("lrmd_declared_keeps", real, ns)
    one <- run("gpu", "builtin", 1)
    expect_equal(as.matrix(sl[num]), as.matrix(one[num]), tolerance = 1e-9, label = lab)
    expect_equal(as.matrix(attr(sl, "state")), as.matrix(attr(one, "state")), tolerance = 1e-9,
                 label = lab)
  }
})

test_that("declared lrmd() gravity2d in mixed precision on the GPU: the energy, the built-in's r_half", {
  skip_if_no_gpu()
  init <- gravity2d_shell(4000, 0.5, 1, seed = 1)
  run <- function(eng) {
    withr::local_options(statphysgpu.lrmd_engine = eng)
    lrmd("gravity2d", init = init, dt = 0.01, steps = 100, record_every = 20,
         softening = 0.02, backend = "gpu", progress = FALSE)
  }
  d <- run("declared")
  b <- run("builtin")
  # single-precision states: 100 steps of rounding, about 1e-6 relative
  expect_lt(max(abs(d$energy_error)), 1e-4)
  expect_lt(max(abs(d$r_half - b$r_half)), 1e-3)
  expect_lt(max(abs(d$virial_ratio - b$virial_ratio)), 1e-3)
})
