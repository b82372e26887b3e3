# lrmd() on the declared many-body engine (issue 50: option
# statphysgpu.lrmd_engine = "declared", R/lrmd-declared.R), on the CPU.
# The dynamics is deterministic given the start, and both engines run the
# same Yoshida composition (coefficients equal to an ulp or two) of the same
# forces: in double precision the records, states and snapshots agree to
# rounding (the sums run in other orders: about 1e-16 a step, 1e-14 after
# the 60 steps here, measured; the bound 1e-10 leaves the chaotic growth of
# these short runs room).  The declared models (HMF and ring, periodic or
# not; gravity2d) are compiled once a session.

skip_on_cran()

ld <- function(...) {
  withr::local_options(statphysgpu.lrmd_engine = "declared")
  lrmd(..., backend = "cpu", progress = FALSE)
}
lb <- function(...) {
  withr::local_options(statphysgpu.lrmd_engine = "builtin")
  lrmd(..., backend = "cpu", progress = FALSE)
}
# the numbers of a result: its records, final states and snapshots
lrmd_numbers <- function(x) {
  st <- attr(x, "state")
  if (is.data.frame(st)) st <- list(st)
  sn <- attr(x, "snapshots")
  if (length(sn) && is.data.frame(sn[[1]])) sn <- list(sn)
  list(rec = as.matrix(as.data.frame(x)), state = lapply(st, as.matrix),
       snap = lapply(sn, function(s) lapply(s, as.matrix)))
}
# `code` with the package's internal function `name` replaced by `f`
with_internal <- function(name, f, code) {
  ns <- asNamespace("statphysgpu")
  real <- get(name, envir = ns)
  utils::assignInNamespace(name, f, ns)
  on.exit(utils::assignInNamespace(name, real, ns))
  code
}
expect_same_run <- function(a, b, tol) {
  expect_identical(class(b), class(a))
  expect_identical(names(b), names(a))
  expect_identical(dim(b), dim(a))
  skip <- c("seconds", "run", "sealed", "state", "snapshots")
  expect_identical(sort(names(attributes(b))), sort(names(attributes(a))))
  expect_equal(attributes(b)[setdiff(names(attributes(a)), skip)],
               attributes(a)[setdiff(names(attributes(a)), skip)], tolerance = tol)
  na <- lrmd_numbers(a)
  nb <- lrmd_numbers(b)
  expect_lt(max(abs(na$rec - nb$rec)), tol)
  expect_identical(lengths(nb$state), lengths(na$state))
  expect_lt(max(abs(unlist(na$state) - unlist(nb$state))), tol)
  expect_identical(lengths(nb$snap), lengths(na$snap))
  if (length(unlist(na$snap))) expect_lt(max(abs(unlist(na$snap) - unlist(nb$snap))), tol)
}

test_that("declared HMF and ring: the built-in's records, state and snapshots in double", {
  skip_if_no_cc()
  for (model in c("hmf", "ring")) {
    init <- if (model == "hmf") hmf_waterbag(120, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(80, p0 = 0.3, seed = 2)
    args <- list(model, init = init, dt = 0.05, steps = 60, record_every = 10,
                 snapshots = c(0, 0.5, 1.25, 3), precision = "double")
    a <- do.call(lb, args)
    b <- do.call(ld, args)
    expect_same_run(a, b, 1e-10)
    expect_length(attr(b, "snapshots"), 4)
    # the energy is conserved: HMF to 1e-6, the ring (a softening of 0.01:
    # its clumps are fast at this dt) to 1e-3
    expect_lt(max(abs(b$energy_error)), if (model == "hmf") 1e-6 else 1e-3)
    # and a start given as numbers (the state of the run) continues alike
    a2 <- lb(model, init = attr(a, "state"), dt = 0.05, steps = 7, record_every = 3,
             precision = "double", seed = 1)
    b2 <- ld(model, init = attr(a, "state"), dt = 0.05, steps = 7, record_every = 3,
             precision = "double", seed = 1)
    expect_same_run(a2, b2, 1e-10)
  }
})

test_that("declared: the energy error of Yoshida's scheme scales as dt^4", {
  skip_if_no_cc()
  # the ring from one start over the same time at dt and dt / 2: the
  # largest energy error falls by 2^4 = 16 (between 10 and 25: the error is
  # not yet exactly in its asymptotic regime at dt = 0.05: 13.5 measured)
  init <- ring_uniform(60, p0 = 0.3, seed = 4)
  err <- vapply(c(0.05, 0.025), function(dt) {
    x <- ld("ring", init = init, dt = dt, steps = 2 / dt, record_every = 0.25 / dt,
            precision = "double")
    max(abs(x$energy_error))
  }, 1)
  expect_gt(err[1] / err[2], 10)
  expect_lt(err[1] / err[2], 25)
})

test_that("declared: a continuation off the record grid and a sweep of systems as the built-in", {
  skip_if_no_cc()
  # a run of 13 steps continued by 11 (the second call runs to the grid
  # first): the chain's records and state equal the built-in's chain's
  init <- hmf_waterbag(90, M0 = 1, U = 0.69, seed = 3)
  a <- lb("hmf", init = init, dt = 0.1, steps = 13, record_every = 5, precision = "double")
  b <- ld("hmf", init = init, dt = 0.1, steps = 13, record_every = 5, precision = "double")
  a2 <- lb(init = a, steps = 11, precision = "double")
  b2 <- ld(init = b, steps = 11, precision = "double")
  expect_same_run(a2, b2, 1e-10)
  expect_identical(b2$step, c(15, 20)) # (the chain's grid)
  # conditions x replicas side by side in one engine call (lrmd_batch =
  # "cpu": the batches of the GPU), the ring's softening swept
  withr::local_options(statphysgpu.lrmd_batch = "cpu")
  args <- list("ring", init = ring_uniform(40, p0 = c(0.2, 0.4), seed = 5), dt = 0.05,
               steps = 20, record_every = 5, softening = c(0.01, 0.05), replicas = 2,
               snapshots = 0.5, precision = "double")
  a <- do.call(lb, args)
  b <- do.call(ld, args)
  expect_identical(nrow(attr(b, "systems")), 8L)
  expect_same_run(a, b, 1e-10)
})

test_that("declared mixed precision: single-precision model, energy kept, angles in [-pi, pi]", {
  skip_if_no_cc()
  for (model in c("hmf", "ring")) {
    init <- if (model == "hmf") hmf_waterbag(200, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(100, p0 = 0.3, seed = 1)
    a <- lb(model, init = init, dt = 0.05, steps = 100, record_every = 20)
    b <- ld(model, init = init, dt = 0.05, steps = 100, record_every = 20)
    expect_identical(dim(b), dim(a))
    expect_identical(names(b), names(a))
    # single-precision states: the energy error of 100 steps of rounding
    # (2^-24 relative a step, about 1e-7 sqrt(100) = 1e-6) well within 1e-4
    expect_lt(max(abs(b$energy_error)), 1e-4)
    # the same physics: M agrees to the single precision's drift (1e-3)
    expect_lt(max(abs(a$M - b$M)), 1e-3)
    th <- attr(b, "state")$theta
    expect_true(all(th >= -pi & th <= pi))
  }
})

test_that("declared: errors and warnings as the built-in's", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.lrmd_engine = "sideways")
  expect_error(lrmd("hmf", n = 10, dt = 0.1, steps = 2, backend = "cpu"),
               "statphysgpu.lrmd_engine", class = "statphysgpu_error")
  withr::local_options(statphysgpu.lrmd_engine = "declared")
  # a start whose momenta overflow single precision: the particle and the
  # step (the declared engine's single-precision states overflow at once,
  # the built-in's single-precision angles within a few steps)
  p <- c(1e150, -1e150, rep(0, 8))
  msg <- lapply(c("builtin", "declared"), function(eng) {
    withr::local_options(statphysgpu.lrmd_engine = eng)
    expect_error(suppressWarnings(lrmd("hmf", init = data.frame(theta = 0, p = p), dt = 0.01,
                                       steps = 3, record_every = 1, backend = "cpu",
                                       progress = FALSE)),
                 "the (momentum|position) of particle [12] became non-finite in step [123] of the run",
                 class = "statphysgpu_not_finite")
  })
  withr::local_options(statphysgpu.lrmd_engine = "declared")
  # a start that cannot be drawn, in a batch: the replica and condition named
  withr::with_options(list(statphysgpu.lrmd_batch = "cpu"), expect_error(
    ld(init = hmf_waterbag(1000, 0.6, c(0.69, 0.3201), seed = 1), dt = 0.1, steps = 2,
       replicas = 2),
    "^replica 1 of condition 2: `U` = 0.3201 is below the potential energy",
    class = "statphysgpu_error"))
  # argument errors come before any engine: unchanged
  expect_error(lrmd("ring", n = 10, dt = 0.1, steps = 2, softening = 1e-5, backend = "cpu"),
               "below 1e-04", class = "statphysgpu_error")
  expect_warning(ld("hmf", init = hmf_waterbag(20, M0 = 1, U = 0.69, seed = 1), dt = 2,
                    steps = 2, precision = "double"), class = "statphysgpu_coarse_dt")
})

# gravity2d: a cold shell (gravity2d_shell(n, 0.5, 1): at rest between radii
# 0.5 and 1) collapsing: at n = 100 and softening 0.02 its half-mass radius
# falls from 0.79 to 0.10 at t = 1.5, the deepest point of the collapse,
# where the virial ratio 2K/W is 3.8 (the close passes there are the
# chaotic growth's harshest test).  Yoshida's energy error at dt = 0.01,
# measured with the built-in: 9.5e-7 up to t = 1, 5.1e-5 up to t = 1.5.
test_that("declared gravity2d: the built-in's records, state, snapshots and continuation in double", {
  skip_if_no_cc()
  real <- statphysgpu:::lrmd_declared_sim
  used <- 0
  counted <- function(...) {
    used <<- used + 1
    real(...)
  }
  g <- gravity2d_shell(100, 0.5, 1, seed = 1)
  args <- list("gravity2d", init = g, dt = 0.01, steps = 150, record_every = 15,
               softening = 0.02, snapshots = c(0, 0.55, 1.5), precision = "double")
  a <- with_internal("lrmd_declared_sim", counted, do.call(lb, args))
  expect_identical(used, 0)
  b <- with_internal("lrmd_declared_sim", counted, do.call(ld, args))
  expect_gt(used, 0) # (the declared engine ran it)
  expect_same_run(a, b, 1e-10)
  expect_identical(names(b), c("replica", "step", "time", "kinetic", "potential", "total",
                               "energy_error", "virial_ratio", "r_half", "temperature"))
  expect_identical(names(attr(b, "state")), c("x", "y", "px", "py"))
  expect_length(attr(b, "snapshots"), 3)
  # the physics: the shell falls in (the half-mass radius shrinks, the
  # virial ratio grows from 0 past 1), the energy conserved to Yoshida's
  # error (the bounds twice and four times the errors measured)
  expect_lt(b$r_half[nrow(b)], 0.2 * b$r_half[1])
  expect_gt(b$virial_ratio[nrow(b)], 3)
  expect_lt(max(abs(b$energy_error[b$time <= 1])), 4e-6)
  expect_lt(max(abs(b$energy_error)), 1e-4)
  # a continuation off the record grid (to the grid first, then the rest),
  # and a start given as numbers
  a2 <- lb(init = a, steps = 23, precision = "double")
  b2 <- ld(init = b, steps = 23, precision = "double")
  expect_same_run(a2, b2, 1e-10)
  expect_identical(b2$step, c(150, 165))
  a3 <- lb("gravity2d", init = attr(a, "state"), dt = 0.01, steps = 7, record_every = 3,
           softening = 0.05, precision = "double", seed = 1)
  b3 <- ld("gravity2d", init = attr(a, "state"), dt = 0.01, steps = 7, record_every = 3,
           softening = 0.05, precision = "double", seed = 1)
  expect_same_run(a3, b3, 1e-10)
  # (the relative energy error, of order 1e-5, to 1e-15 absolute)
  expect_equal(summary(b3), summary(a3), tolerance = 1e-8)
})

test_that("declared gravity2d: systems side by side, records in several calls, calls at the records", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.lrmd_batch = "cpu")
  args <- list("gravity2d", init = gravity2d_shell(64, 0.5, c(1, 1.2), seed = 2), dt = 0.01,
               steps = 40, record_every = 10, softening = c(0.01, 0.05), replicas = 2,
               snapshots = 0.25, precision = "double")
  a <- do.call(lb, args)
  b <- do.call(ld, args)
  expect_identical(nrow(attr(b, "systems")), 8L)
  expect_same_run(a, b, 1e-10)
  # the states kept at the records of at most two records a call (the
  # engine's calls cut, each repeating its first record), and no states
  # kept, the calls ending at every record (one system on several GPUs):
  # the same records
  c1 <- with_internal("lrmd_declared_kept", function() 64 * 4 * 8 * 2, do.call(ld, args))
  expect_same_run(b, c1, 1e-12)
  one <- list("gravity2d", init = gravity2d_shell(64, 0.5, 1, seed = 3), dt = 0.01, steps = 25,
              record_every = 10, snapshots = 0.13, precision = "double")
  c2 <- with_internal("lrmd_declared_keeps", function(fr, nsys) FALSE, do.call(ld, one))
  expect_same_run(do.call(lb, one), c2, 1e-10)
})

test_that("declared gravity2d in mixed precision: single-precision states, the built-in's physics", {
  skip_if_no_cc()
  g <- gravity2d_shell(200, 0.5, 1, seed = 1)
  a <- lb("gravity2d", init = g, dt = 0.01, steps = 100, record_every = 20)
  b <- ld("gravity2d", init = g, dt = 0.01, steps = 100, record_every = 20)
  expect_identical(dim(b), dim(a))
  expect_identical(names(b), names(a))
  # the engine's states are single precision (the built-in's double)
  st <- unlist(attr(b, "state"), use.names = FALSE)
  expect_identical(readBin(writeBin(st, raw(), size = 4), "double", length(st), size = 4), st)
  # single-precision rounding, 100 steps: about 1e-6 relative, within 1e-4
  expect_lt(max(abs(b$energy_error)), 1e-4)
  expect_lt(max(abs(a$r_half - b$r_half)), 1e-4)
  expect_lt(max(abs(a$virial_ratio - b$virial_ratio)), 1e-4)
})

test_that("declared gravity2d: a non-finite state named as by the built-in", {
  skip_if_no_cc()
  st <- data.frame(x = c(0, 1, 0, 1), y = c(0, 0, 1, 1), px = c(1e10, 0, 0, 0), py = 0)
  for (eng in c("builtin", "declared")) {
    withr::local_options(statphysgpu.lrmd_engine = eng)
    expect_error(suppressWarnings(lrmd("gravity2d", init = st, dt = 1e300, steps = 3,
                                       record_every = 1, backend = "cpu", progress = FALSE,
                                       precision = "double")),
                 paste0("the (momentum|position) of particle [1-4] became non-finite in step ",
                        "1 of the run \\(t = 1e\\+300 from its start\\); use a smaller `dt` ",
                        "or a larger `softening`"),
                 class = "statphysgpu_not_finite")
  }
})

test_that("declared gravity2d: the GPU's kernels compile with NVRTC in both modes and precisions", {
  skip_if_no_nvrtc()
  local_kernel_cache()
  m <- statphysgpu:::lrmd_declared_model("gravity2d", FALSE)
  for (n in c(300, 5000)) for (prec in c("single", "double")) { # mode A and B
    plan <- statphysgpu:::sde_mb_gpu_plan(m, n, prec, "yoshida4")
    ptx <- rawToChar(statphysgpu:::sde_nvrtc_image(m, "compute_90", prec, "yoshida4",
                                                   cubin = FALSE, source = "mb.cu",
                                                   defines = plan$defines))
    # the states kept at the records (the half-mass radius), and the pass
    expect_match(ptx, ".entry sp_mb_keep_kernel", fixed = TRUE)
    expect_match(ptx, if (n < 2048) ".entry sp_mb_small_kernel" else ".entry sp_mb_split_kernel",
                 fixed = TRUE)
  }
})

# Issue 50 item 4: the engine draws a start given as a recipe (hmf_waterbag()
# ... unread) itself (sde_mb_run(start = list(recipes = )); on the CPU by
# sp_lrmd_start_draw(), the function that draws a start R reads): the run
# is bit for bit the run of the same start read first (drawn by R, given to
# the engine as numbers), in both precisions, its pmax (the dt warning's
# fastest particle) too.
test_that("declared: the engine draws the recipes itself, the numbers of the host's draw", {
  skip_if_no_cc()
  real <- statphysgpu:::sde_mb_run
  drawn <- 0
  counted <- function(...) {
    if (!is.null(list(...)$start$recipes)) drawn <<- drawn + 1
    real(...)
  }
  withr::local_options(statphysgpu.lrmd_batch = "cpu") # (replicas side by side: one call)
  for (model in c("hmf", "ring", "gravity2d")) for (prec in c("double", "mixed")) {
    mk <- function() switch(model, hmf = hmf_waterbag(300, 0.5, 0.69, seed = 1),
                            ring = ring_uniform(200, 0.3, seed = 2),
                            gravity2d = gravity2d_shell(100, 0.5, 1, seed = 3))
    args <- list(model, dt = 0.01, steps = 6, record_every = 2, precision = prec,
                 snapshots = 0.03)
    drawn <- 0
    a <- with_internal("sde_mb_run", counted, do.call(ld, c(args, list(init = mk()))))
    expect_identical(drawn, 1) # (the recipes went to the engine, in its first call)
    w <- mk()
    expect_true(is.finite(sum(w[[1]]))) # read: drawn by R, given as numbers
    drawn <- 0
    b <- with_internal("sde_mb_run", counted, do.call(ld, c(args, list(init = w))))
    expect_identical(drawn, 0)
    lab <- paste(model, prec)
    expect_identical(as.data.frame(a), as.data.frame(b), label = lab)
    expect_identical(attr(a, "state"), attr(b, "state"), label = lab)
    expect_identical(attr(a, "snapshots"), attr(b, "snapshots"), label = lab)
    # the start is the start itself (the engine's mean in its own order)
    if (model != "gravity2d" && prec == "double")
      expect_equal(a$kinetic[1], mean(w[[2]]^2) / 2, tolerance = 1e-14, label = lab)
  }
  # a snapshot at step 0 needs the start in R: drawn by R, the same numbers
  drawn <- 0
  s0 <- with_internal("sde_mb_run", counted,
                      ld("hmf", init = hmf_waterbag(200, 1, 0.69, seed = 4), dt = 0.05, steps = 2,
                         snapshots = 0, precision = "double"))
  expect_identical(drawn, 0)
  expect_identical(attr(s0, "snapshots")[[1]]$p, hmf_waterbag(200, 1, 0.69, seed = 4)$p)
  # replicas side by side in one engine call, each drawn from its streams
  drawn <- 0
  a <- with_internal("sde_mb_run", counted,
                     ld("ring", init = ring_uniform(100, 0.3, seed = 5), dt = 0.01, steps = 4,
                        replicas = 3, precision = "double"))
  expect_identical(drawn, 1)
  withr::local_options(statphysgpu.lrmd_engine = "builtin")
  b <- lrmd("ring", init = ring_uniform(100, 0.3, seed = 5), dt = 0.01, steps = 4, replicas = 3,
            precision = "double", backend = "cpu", progress = FALSE)
  num <- c("kinetic", "potential", "total", "Mx", "My")
  expect_equal(as.matrix(a[num]), as.matrix(b[num]), tolerance = 1e-12)
  expect_equal(attr(a, "state"), attr(b, "state"), tolerance = 1e-12)
})
