# lrmd() on the declared many-body engine (its one engine since issue 50)
# on the GPU: GPU = CPU in double, in both modes of the GPU plan (mode A: n
# <= 2048, a system a block; mode B: over blocks), HMF, ring and gravity2d.
# The dynamics is deterministic; tolerance 1e-9 (absolute, on numbers of
# order 1: rounding only -- fused multiply-adds, the sums' order -- grown by
# the short runs' chaos, 1e-14 measured on the CPU against the deleted
# built-in engine).

skip_on_cran()

test_that("lrmd(): GPU = CPU in double, HMF and ring", {
  skip_if_no_gpu()
  cases <- list(list("hmf", 300), list("hmf", 5000), list("ring", 300), list("ring", 3000))
  for (cs in cases) {
    model <- cs[[1]]
    n <- cs[[2]]
    init <- if (model == "hmf") hmf_waterbag(n, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(n, p0 = 0.3, seed = 1)
    run <- function(b) {
      lrmd(model, init = init, dt = 0.05, steps = 20, record_every = 5, snapshots = 0.5,
           replicas = 2, precision = "double", backend = b, progress = FALSE)
    }
    a <- run("cpu")
    g <- run("gpu")
    lab <- paste(model, n)
    num <- c("kinetic", "potential", "total", "Mx", "My")
    expect_equal(as.matrix(g[num]), as.matrix(a[num]), tolerance = 1e-9, label = lab)
    for (s in 1:2) {
      expect_equal(as.matrix(attr(g, "state")[[s]]), as.matrix(attr(a, "state")[[s]]),
                   tolerance = 1e-9, label = lab)
      expect_equal(as.matrix(attr(g, "snapshots")[[s]][[1]]),
                   as.matrix(attr(a, "snapshots")[[s]][[1]]), tolerance = 1e-9, label = lab)
    }
  }
})

test_that("lrmd() in mixed precision on the GPU: the energy kept, double's M", {
  skip_if_no_gpu()
  for (model in c("hmf", "ring")) {
    init <- if (model == "hmf") hmf_waterbag(20000, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(4000, p0 = 0.3, seed = 1)
    run <- function(prec) {
      lrmd(model, init = init, dt = 0.05, steps = 100, record_every = 20, backend = "gpu",
           precision = prec, progress = FALSE)
    }
    d <- run("mixed")
    b <- run("double")
    # single-precision states: 100 steps of rounding, about 1e-6 relative
    expect_lt(max(abs(d$energy_error)), 1e-4)
    expect_lt(max(abs(d$M - b$M)), 1e-3)
  }
})

test_that("lrmd(): GPU = CPU in double, gravity2d", {
  skip_if_no_gpu()
  # a cold shell to t = 0.3 (its fall begun, no close passes yet); mode A
  # (n = 300) and mode B (n = 3000), two replicas side by side, then one
  # system on the GPU in two slices (option statphysgpu.mb_slices: the
  # several-GPU code on one) with its calls ending at every record (as one
  # system on several GPUs runs)
  for (n in c(300, 3000)) {
    init <- gravity2d_shell(n, 0.5, 1, seed = 1)
    run <- function(b, replicas = 2) {
      lrmd("gravity2d", init = init, dt = 0.01, steps = 30, record_every = 10,
           snapshots = 0.15, replicas = replicas, softening = 0.02, precision = "double",
           backend = b, progress = FALSE)
    }
    a <- run("cpu")
    g <- run("gpu")
    lab <- paste("gravity2d", n)
    num <- c("kinetic", "potential", "total", "virial_ratio", "r_half")
    expect_equal(as.matrix(g[num]), as.matrix(a[num]), tolerance = 1e-9, label = lab)
    for (s in 1:2) {
      expect_equal(as.matrix(attr(g, "state")[[s]]), as.matrix(attr(a, "state")[[s]]),
                   tolerance = 1e-9, label = lab)
      expect_equal(as.matrix(attr(g, "snapshots")[[s]][[1]]),
                   as.matrix(attr(a, "snapshots")[[s]][[1]]), tolerance = 1e-9, label = lab)
    }
    ns <- asNamespace("statphysgpu")
    real <- get("lrmd_declared_keeps", envir = ns)
    utils::assignInNamespace("lrmd_declared_keeps", function(fr, nsys) FALSE, ns)
    sl <- withr::with_options(list(statphysgpu.mb_slices = 2), run("gpu", 1))
    utils::assignInNamespace("lrmd_declared_keeps", real, ns)
    one <- run("cpu", 1)
    expect_equal(as.matrix(sl[num]), as.matrix(one[num]), tolerance = 1e-9, label = lab)
    expect_equal(as.matrix(attr(sl, "state")), as.matrix(attr(one, "state")), tolerance = 1e-9,
                 label = lab)
  }
})

test_that("lrmd() gravity2d in mixed precision on the GPU: the energy, double's r_half", {
  skip_if_no_gpu()
  init <- gravity2d_shell(4000, 0.5, 1, seed = 1)
  run <- function(prec) {
    lrmd("gravity2d", init = init, dt = 0.01, steps = 100, record_every = 20,
         softening = 0.02, backend = "gpu", precision = prec, progress = FALSE)
  }
  d <- run("mixed")
  b <- run("double")
  # single-precision states: 100 steps of rounding, about 1e-6 relative
  expect_lt(max(abs(d$energy_error)), 1e-4)
  expect_lt(max(abs(d$r_half - b$r_half)), 1e-3)
  expect_lt(max(abs(d$virial_ratio - b$virial_ratio)), 1e-3)
})

# Issue 50 item 4: starts given as recipes are drawn by the many-body engine
# on the device (mb_recipe.cu, src/gpu/sp_gpu_mb_recipe.c) with the passes
# of lrmd_start.h: the angles are the CPU's bits, the momenta and the
# shell's coordinates the CPU's to rounding (the sums and the GPU's sine
# and cosine in another order: a few ulps), in both modes of the plan and
# for several systems on one device.
test_that("the GPU draws a recipe start as the CPU: angles the same bits, momenta to rounding", {
  skip_if_no_gpu()
  hmf <- sde_model(drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
                   observe = list(K = ~ mean(p^2) / 2), name = "hmf-user")
  g2 <- sde_model(drift = list(x = ~ px, y = ~ py, px = ~ -mean(x), py = ~ -mean(y)),
                  observe = list(K = ~ mean(px^2 + py^2) / 2), name = "g2-user")
  starts <- function(n) list(list(hmf, hmf_waterbag(n, 0.5, 0.69, seed = 1)),
                             list(hmf, hmf_equilibrium(n, 0.4, seed = 2)),
                             list(hmf, ring_uniform(n, 0.3, seed = 3)),
                             list(g2, gravity2d_shell(n, 0.5, 1, seed = 4)))
  for (n in c(300, 100000)) for (cs in starts(n)) for (prec in c("double", "single")) {
    run <- function(b) {
      sde_run(cs[[1]], replicas = 3, n = n, init = cs[[2]], dt = 0.01, t_max = 0.01,
              method = "yoshida4", output = "trajectories", keep = 3, precision = prec,
              backend = b, progress = FALSE, seed = 1)
    }
    a <- as.data.frame(run("cpu"))
    g <- run("gpu")
    lab <- paste(cs[[1]]$name, n, prec)
    gd <- as.data.frame(g)
    a0 <- a[a$time == 0, ]
    g0 <- gd[gd$time == 0, ]
    # (in single precision the GPU's states are the draw rounded to float;
    # the CPU engine's record at time 0 is the start as drawn, in double)
    f32 <- function(x) {
      if (prec == "double") return(x)
      readBin(writeBin(x, raw(), size = 4), "double", size = 4, n = length(x))
    }
    if (cs[[1]]$name == "hmf-user") {
      expect_identical(g0$q, f32(a0$q), label = lab)
      expect_equal(g0$p, a0$p, tolerance = if (prec == "double") 1e-13 else 1e-6, label = lab)
    } else {
      for (v in c("x", "y"))
        expect_equal(g0[[v]], f32(a0[[v]]), tolerance = if (prec == "double") 1e-13 else 1e-6,
                     label = lab)
      expect_identical(c(g0$px, g0$py), double(2 * 3 * n), label = lab)
    }
    expect_equal(attr(g, "start_pmax"), attr(run("cpu"), "start_pmax"), tolerance = 1e-13,
                 label = lab)
  }
})

test_that("HMF on the GPU from a waterbag drawn there: the energy per particle is U", {
  skip_if_no_gpu()
  r <- lrmd("hmf", init = hmf_waterbag(1e5, 0.5, 0.69, seed = 1), dt = 0.05, steps = 2,
            record_every = 1, precision = "double", backend = "gpu", progress = FALSE)
  # (the sample's energy is U exactly but for the rounding of its sums)
  expect_equal(r$total[1], 0.69, tolerance = 1e-12)
  c1 <- lrmd("hmf", init = hmf_waterbag(1e5, 0.5, 0.69, seed = 1), dt = 0.05, steps = 2,
             record_every = 1, precision = "double", backend = "cpu", progress = FALSE)
  expect_equal(r$kinetic, c1$kinetic, tolerance = 1e-12)
  expect_equal(r$M, c1$M, tolerance = 1e-12)
})
