# lrmd() on the declared many-body engine (R/lrmd-declared.R), its one
# engine since the built-in was deleted (issue 50), on the CPU.  The
# dynamics is deterministic given the start: in double precision the
# records and states agree with a base-R integration of the same Yoshida
# composition of the same forces (lrmd_ref(), below) to rounding (the sums
# run in other orders: about 1e-16 a step, 1e-14 after the 60 steps here;
# the bound 1e-10 leaves the chaotic growth of these short runs room).  The
# declared models (HMF and ring, periodic or not; gravity2d) are compiled
# once a session.

skip_on_cran()

ld <- function(...) lrmd(..., backend = "cpu", progress = FALSE)

# Base R: `steps` steps of Yoshida's fourth-order composition (drift c1,
# kick d1, drift c2, kick d2, drift c2, kick d1, drift c1) of lrmd()'s
# model from the state `st` (theta, p or x, y, px, py), in double; the
# kinetic energy per particle and (HMF, ring) the magnetisation at every
# `every` steps, and the final state.
lrmd_ref <- function(model, st, dt, steps, every, eps = 0.01) {
  w1 <- 1 / (2 - 2^(1 / 3))
  w0 <- -2^(1 / 3) * w1
  cs <- c(w1 / 2, (w0 + w1) / 2, (w0 + w1) / 2, w1 / 2)
  ds <- c(w1, w0, w1)
  n <- nrow(st)
  two <- model == "gravity2d"
  q <- if (two) cbind(st$x, st$y) else st$theta
  p <- if (two) cbind(st$px, st$py) else st$p
  force <- function(q) switch(model,
    hmf = -mean(cos(q)) * sin(q) + mean(sin(q)) * cos(q),
    ring = {
      d <- outer(q, q, "-")
      -rowSums(sin(d) * (1 + eps - cos(d))^(-3 / 2)) / (2 * sqrt(2) * n)
    },
    gravity2d = {
      dx <- outer(q[, 1], q[, 1], "-")
      dy <- outer(q[, 2], q[, 2], "-")
      r <- 1 / (dx^2 + (dy^2 + eps^2))
      -cbind(rowSums(dx * r), rowSums(dy * r)) / n
    })
  rec <- function() {
    k <- if (two) mean(rowSums(p^2)) / 2 else mean(p^2) / 2
    if (two) c(kinetic = k) else c(kinetic = k, Mx = mean(cos(q)), My = mean(sin(q)))
  }
  recs <- list(rec())
  for (k in seq_len(steps)) {
    for (j in 1:3) {
      q <- q + cs[j] * dt * p
      p <- p + ds[j] * dt * force(q)
    }
    q <- q + cs[4] * dt * p
    if (k %% every == 0) recs[[length(recs) + 1]] <- rec()
  }
  state <- if (two) list(x = q[, 1], y = q[, 2], px = p[, 1], py = p[, 2]) else
    list(theta = q, p = p)
  list(rec = do.call(rbind, recs), state = state)
}
# x (a run of one system from `st`) against lrmd_ref() to `tol`
expect_ref <- function(x, model, st, dt, steps, every, eps = 0.01, tol = 1e-10) {
  r <- lrmd_ref(model, as.data.frame(st), dt, steps, every, eps)
  for (v in colnames(r$rec)) expect_lt(max(abs(x[[v]] - r$rec[, v])), tol, label = v)
  for (v in names(r$state))
    expect_lt(max(abs(attr(x, "state")[[v]] - r$state[[v]])), tol, label = v)
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

test_that("HMF and ring: base R's Yoshida integration's records, state and snapshots in double", {
  skip_if_no_cc()
  for (model in c("hmf", "ring")) {
    init <- if (model == "hmf") hmf_waterbag(120, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(80, p0 = 0.3, seed = 2)
    args <- list(model, init = init, dt = 0.05, steps = 60, record_every = 10,
                 snapshots = c(0, 0.5, 1.25, 3), precision = "double")
    b <- do.call(ld, args)
    expect_ref(b, model, init, 0.05, 60, 10)
    expect_length(attr(b, "snapshots"), 4)
    # a snapshot is the state of a run that ends there
    r <- lrmd_ref(model, as.data.frame(init), 0.05, 25, 25)
    expect_lt(max(abs(unlist(attr(b, "snapshots")[[3]]) - unlist(r$state))), 1e-10)
    expect_lt(max(abs(unlist(attr(b, "snapshots")[[1]]) - unlist(as.data.frame(init)))), 1e-15)
    # the energy is conserved: HMF to 1e-6, the ring (a softening of 0.01:
    # its clumps are fast at this dt) to 1e-3
    expect_lt(max(abs(b$energy_error)), if (model == "hmf") 1e-6 else 1e-3)
    # and a start given as numbers (the state of the run) continues alike
    b2 <- ld(model, init = attr(b, "state"), dt = 0.05, steps = 7, record_every = 3,
             precision = "double", seed = 1)
    expect_ref(b2, model, attr(b, "state"), 0.05, 7, 3)
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

test_that("a continuation off the record grid, and a sweep of systems side by side, as one by one", {
  skip_if_no_cc()
  # a run of 13 steps continued by 11 (the second call runs to the grid
  # first): the chain's records and state are base R's 24 steps'
  init <- hmf_waterbag(90, M0 = 1, U = 0.69, seed = 3)
  b <- ld("hmf", init = init, dt = 0.1, steps = 13, record_every = 5, precision = "double")
  b2 <- ld(init = b, steps = 11, precision = "double")
  expect_identical(b2$step, c(15, 20)) # (the chain's grid)
  r <- lrmd_ref("hmf", as.data.frame(init), 0.1, 24, 5)
  expect_lt(max(abs(b2$kinetic - r$rec[4:5, "kinetic"])), 1e-10)
  expect_lt(max(abs(unlist(attr(b2, "state")) - unlist(r$state))), 1e-10)
  # conditions x replicas side by side in one engine call (lrmd_batch =
  # "cpu": the batches of the GPU), the ring's softening swept: each
  # system's numbers those of it run alone (lrmd_batch = FALSE)
  args <- list("ring", init = ring_uniform(40, p0 = c(0.2, 0.4), seed = 5), dt = 0.05,
               steps = 20, record_every = 5, softening = c(0.01, 0.05), replicas = 2,
               snapshots = 0.5, precision = "double")
  a <- withr::with_options(list(statphysgpu.lrmd_batch = FALSE), do.call(ld, args))
  b <- withr::with_options(list(statphysgpu.lrmd_batch = "cpu"), do.call(ld, args))
  expect_identical(nrow(attr(b, "systems")), 8L)
  expect_same_run(a, b, 1e-12)
  # system 8 (softening 0.05, p0 = 0.4, replica 2): base R from its start
  st8 <- attr(b, "state")[[8]]
  x8 <- ld("ring", init = attr(b, "snapshots")[[8]][[1]], dt = 0.05, steps = 10,
           record_every = 5, softening = 0.05, precision = "double", seed = 1)
  expect_ref(x8, "ring", attr(b, "snapshots")[[8]][[1]], 0.05, 10, 5, eps = 0.05)
  expect_lt(max(abs(unlist(attr(x8, "state")) - unlist(st8))), 1e-12)
})

test_that("mixed precision: single-precision model, energy kept, angles in [-pi, pi]", {
  skip_if_no_cc()
  for (model in c("hmf", "ring")) {
    init <- if (model == "hmf") hmf_waterbag(200, M0 = 1, U = 0.69, seed = 1) else
      ring_uniform(100, p0 = 0.3, seed = 1)
    a <- ld(model, init = init, dt = 0.05, steps = 100, record_every = 20, precision = "double")
    b <- ld(model, init = init, dt = 0.05, steps = 100, record_every = 20)
    expect_identical(dim(b), dim(a))
    expect_identical(names(b), names(a))
    # single-precision states: the energy error of 100 steps of rounding
    # (2^-24 relative a step, about 1e-7 sqrt(100) = 1e-6) well within 1e-4
    expect_lt(max(abs(b$energy_error)), 1e-4)
    # the same physics: M agrees with double's to the single precision's drift (1e-3)
    expect_lt(max(abs(a$M - b$M)), 1e-3)
    th <- attr(b, "state")$theta
    expect_true(all(th >= -pi & th <= pi))
  }
})

test_that("errors and warnings; the retired engine option is ignored, warned once", {
  skip_if_no_cc()
  ns <- asNamespace("statphysgpu")
  once <- ns$.sp_retired # (the session's flags)
  once$lrmd_engine <- FALSE
  withr::defer(once$lrmd_engine <- FALSE)
  args <- list("hmf", init = hmf_waterbag(20, M0 = 1, U = 0.69, seed = 1), dt = 0.1, steps = 4,
               precision = "double")
  ref <- do.call(ld, args)
  withr::local_options(statphysgpu.lrmd_engine = "builtin")
  expect_warning(x <- do.call(ld, args), "built-in lrmd engine was removed",
                 class = "statphysgpu_deprecated")
  expect_identical(as.data.frame(x), as.data.frame(ref))
  expect_identical(attr(x, "state"), attr(ref, "state"))
  expect_no_warning(do.call(ld, args)) # once a session
  once$lrmd_engine <- FALSE
  withr::local_options(statphysgpu.lrmd_engine = "declared")
  expect_no_warning(do.call(ld, args))
  withr::local_options(statphysgpu.lrmd_engine = NULL)
  for (o in c("lrmd_engine", "lrmd_variant", "lrmd_fused", "lrmd_slices", "lrmd_blocks_per_sm"))
    expect_null(ns$SP_TUNING[[o]])
  # the built-in engine is gone: no kernel, no model of the generic entry
  expect_null(ns$gpu_kernel_registry()$lrmd)
  expect_false(file.exists(system.file("cuda", "lrmd.cu", package = "statphysgpu")))
  expect_error(.Call(ns$C_sp_r_model_run, "lrmd", list(), "", integer(), FALSE),
               "no model 'lrmd'")
  # a start whose momenta overflow single precision: the particle and the
  # step (the single-precision states overflow at once)
  p <- c(1e150, -1e150, rep(0, 8))
  expect_error(suppressWarnings(ld("hmf", init = data.frame(theta = 0, p = p), dt = 0.01,
                                   steps = 3, record_every = 1)),
               "the (momentum|position) of particle [12] became non-finite in step [123] of the run",
               class = "statphysgpu_not_finite")
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
# measured: 9.5e-7 up to t = 1, 5.1e-5 up to t = 1.5.
test_that("gravity2d: base R's records, state, snapshots and continuation in double", {
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
  b <- with_internal("lrmd_declared_sim", counted, do.call(ld, args))
  expect_gt(used, 0) # (the declared engine ran it)
  expect_ref(b, "gravity2d", g, 0.01, 150, 15, eps = 0.02)
  r <- lrmd_ref("gravity2d", as.data.frame(g), 0.01, 55, 55, eps = 0.02)
  expect_lt(max(abs(unlist(attr(b, "snapshots")[[2]]) - unlist(r$state))), 1e-10)
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
  b2 <- ld(init = b, steps = 23, precision = "double")
  expect_identical(b2$step, c(150, 165))
  r2 <- lrmd_ref("gravity2d", attr(b, "state"), 0.01, 23, 23, eps = 0.02)
  expect_lt(max(abs(unlist(attr(b2, "state")) - unlist(r2$state))), 1e-10)
  b3 <- ld("gravity2d", init = attr(b, "state"), dt = 0.01, steps = 7, record_every = 3,
           softening = 0.05, precision = "double", seed = 1)
  expect_ref(b3, "gravity2d", attr(b, "state"), 0.01, 7, 3, eps = 0.05)
})

test_that("declared gravity2d: systems side by side, records in several calls, calls at the records", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.lrmd_batch = "cpu")
  args <- list("gravity2d", init = gravity2d_shell(64, 0.5, c(1, 1.2), seed = 2), dt = 0.01,
               steps = 40, record_every = 10, softening = c(0.01, 0.05), replicas = 2,
               snapshots = 0.25, precision = "double")
  a <- withr::with_options(list(statphysgpu.lrmd_batch = FALSE), do.call(ld, args))
  b <- do.call(ld, args)
  expect_identical(nrow(attr(b, "systems")), 8L)
  expect_same_run(a, b, 1e-12)
  # the states kept at the records of at most two records a call (the
  # engine's calls cut, each repeating its first record), and no states
  # kept, the calls ending at every record (one system on several GPUs):
  # the same records
  c1 <- with_internal("lrmd_declared_kept", function() 64 * 4 * 8 * 2, do.call(ld, args))
  expect_same_run(b, c1, 1e-12)
  one <- list("gravity2d", init = gravity2d_shell(64, 0.5, 1, seed = 3), dt = 0.01, steps = 25,
              record_every = 10, snapshots = 0.13, precision = "double")
  c2 <- with_internal("lrmd_declared_keeps", function(fr, nsys) FALSE, do.call(ld, one))
  expect_same_run(do.call(ld, one), c2, 1e-12)
  r <- lrmd_ref("gravity2d", as.data.frame(one$init), 0.01, 25, 10)
  expect_lt(max(abs(c2$kinetic - r$rec[, "kinetic"])), 1e-10)
})

test_that("gravity2d in mixed precision: single-precision states, double's physics", {
  skip_if_no_cc()
  g <- gravity2d_shell(200, 0.5, 1, seed = 1)
  a <- ld("gravity2d", init = g, dt = 0.01, steps = 100, record_every = 20, precision = "double")
  b <- ld("gravity2d", init = g, dt = 0.01, steps = 100, record_every = 20)
  expect_identical(dim(b), dim(a))
  expect_identical(names(b), names(a))
  # the engine's states are single precision
  st <- unlist(attr(b, "state"), use.names = FALSE)
  expect_identical(readBin(writeBin(st, raw(), size = 4), "double", length(st), size = 4), st)
  # single-precision rounding, 100 steps: about 1e-6 relative, within 1e-4
  expect_lt(max(abs(b$energy_error)), 1e-4)
  expect_lt(max(abs(a$r_half - b$r_half)), 1e-4)
  expect_lt(max(abs(a$virial_ratio - b$virial_ratio)), 1e-4)
})

test_that("gravity2d: a non-finite state named: particle, step, time and the fix", {
  skip_if_no_cc()
  st <- data.frame(x = c(0, 1, 0, 1), y = c(0, 0, 1, 1), px = c(1e10, 0, 0, 0), py = 0)
  expect_error(suppressWarnings(ld("gravity2d", init = st, dt = 1e300, steps = 3,
                                   record_every = 1, precision = "double")),
               paste0("the (momentum|position) of particle [1-4] became non-finite in step ",
                      "1 of the run \\(t = 1e\\+300 from its start\\); use a smaller `dt` ",
                      "or a larger `softening`"),
               class = "statphysgpu_not_finite")
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
  # each replica's start read in R (its recipe's columns), run alone: the same
  starts <- lapply(1:3, function(r) {
    st <- statphysgpu:::lrmd_recipe_replica(
      statphysgpu:::lrmd_recipe(ring_uniform(100, 0.3, seed = 5))$recipe, r)
    v <- .Call(statphysgpu:::C_sp_r_lrmd_start_flat, st)
    data.frame(theta = v[1:100], p = v[101:200])
  })
  for (r in 1:3) {
    b <- ld("ring", init = starts[[r]], dt = 0.01, steps = 4, precision = "double", seed = 1)
    expect_equal(attr(a, "state")[[r]], attr(b, "state"), tolerance = 1e-12, ignore_attr = TRUE)
    expect_ref(b, "ring", starts[[r]], 0.01, 4, 4)
  }
})
