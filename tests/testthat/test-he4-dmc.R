# he4_dmc() on the CPU: the walk against an R-level reference generation by
# generation (drift, diffusion, the Green's functions' accept/reject step,
# weights, trial energy, branching in slot order), threads and chunks,
# continuation, population control, DMC below VMC, the extrapolation, bad
# input.  Statistical checks at fixed seeds with stated z-scores; the large
# ones (CPU = GPU, the equilibrium energy) are in test-he4-dmc-gpu.R and
# bench/he4-dmc.R.

HB2M <- 12.119296 # hbar^2 / m(4He), K A^2 (he4.h)

# ln psi and its gradient (n x 3) of a configuration X (n x 3), from
# jastrow_mcmillan() pair by pair (minimum image, pairs inside L/2); the
# local energy with the Aziz potential, or with `lj` = c(epsilon, sigma)
# the Lennard-Jones one (pair by pair here).
dmc_ref_lnpsi <- function(X, L, b, lj = NULL) {
  n <- nrow(X)
  g <- matrix(0, n, 3)
  U <- 0
  V <- 0
  for (i in 1:(n - 1)) for (j in (i + 1):n) {
    d <- X[i, ] - X[j, ]
    d <- d - L * round(d / L)
    r <- sqrt(sum(d^2))
    if (r < L / 2) {
      U <- U + jastrow_mcmillan(r, b, L)
      du <- jastrow_mcmillan(r, b, L, deriv = 1)
      g[i, ] <- g[i, ] + du * d / r
      g[j, ] <- g[j, ] - du * d / r
      if (!is.null(lj)) V <- V + 4 * lj[1] * ((lj[2] / r)^12 - (lj[2] / r)^6)
    }
  }
  le <- statphysgpu:::he4_local_energy(X, L, b)
  list(U = U, g = g, e = if (is.null(lj)) sum(le[1:2]) else V / n + le[2])
}

# One generation of every walker of population 1 of a result's state, in R:
# the next state's coordinates, weights, trial energy, the block's energy.
dmc_ref_generation <- function(d) {
  p <- attr(d, "params")
  st <- attr(d, "state")
  n <- p$n
  L <- p$L
  a <- HB2M * p$dt
  seed <- statphysgpu:::check_u64(st$seed_hex, "seed")
  P <- st$size[1]
  # the weights' time step: the walk's effective one, from the history's sums
  tau_of <- function(ra, rp) if (isTRUE(p$effective_step) && rp > 0) p$dt * ra / rp else p$dt
  tau <- tau_of(st$r2_accepted[1], st$r2_proposed[1])
  # the limit on the energies in the weights (he4_dmc.h, sp_dmc_cut)
  sE <- n * sqrt(st$sigma2[1])
  cut <- if (p$energy_cut > 0 && sE > 0) p$energy_cut * sqrt(sE / tau) / n else Inf
  clip <- function(e) min(max(e, st$e_ref[1] - cut), st$e_ref[1] + cut)
  lj <- if (identical(p$potential, "lennard-jones")) c(p$lj_epsilon, p$lj_sigma)
  out <- vector("list", P)
  for (k in seq_len(P)) {
    X <- t(st$coords[[1]][, , k])
    ev <- dmc_ref_lnpsi(X, L, p$b, lj)
    dr <- .Call(statphysgpu:::C_sp_r_dmc_draws, seed,
                statphysgpu:::check_u64(k - 1, "stream"),
                statphysgpu:::check_u64(st$gen[1], "gen"), as.integer(n))
    fac <- function(g) { # the drift limit of each atom (he4_dmc.h)
      x <- p$drift_limit * a * rowSums(g^2)
      ifelse(x < 1e-6, 1 - x / 2 + x^2 / 2, (sqrt(1 + 2 * x) - 1) / x)
    }
    scaled <- function(e, g) {
      f <- fac(g)
      st$e_ref[1] - (st$e_ref[1] - e) * sqrt(sum(f^2 * rowSums(g^2)) / sum(g^2))
    }
    Dold <- a * fac(ev$g) * ev$g
    D <- Dold + sqrt(a) * dr$normals
    Xn <- X + D
    Xn <- Xn - L * floor(Xn / L)
    evn <- dmc_ref_lnpsi(Xn, L, p$b, lj)
    Dnew <- a * fac(evn$g) * evn$g
    green <- sum((D - Dold)^2 - (D + Dnew)^2)
    pa <- if (p$accept) min(1, exp(2 * (evn$U - ev$U) + green / (2 * a))) else 1
    acc <- dr$uniforms[1] < pa
    ep <- pa * evn$e + (1 - pa) * ev$e
    s0 <- scaled(ev$e, ev$g)
    s1 <- pa * scaled(evn$e, evn$g) + (1 - pa) * s0
    W <- st$weight[[1]][k] * exp(-n * tau * ((clip(s0) + clip(s1)) / 2 - st$e_trial[1]))
    copies <- if (p$branching) min(8, floor(W + dr$uniforms[2])) else 1
    z2 <- sum(dr$normals^2)
    out[[k]] <- list(X = if (acc) Xn else X, W = W, ep = ep, acc = acc, copies = copies,
                     pz2 = pa * z2, z2 = z2, s = clip(s1))
  }
  W <- vapply(out, `[[`, 0, "W")
  est <- sum(W * vapply(out, `[[`, 0, "ep")) / sum(W)
  s1 <- vapply(out, `[[`, 0, "s")
  keep <- rep(seq_len(P), vapply(out, `[[`, 0, "copies"))
  pm <- if (p$branching) length(keep) else sum(W)
  # E_ref and the spread relax with the feedback time; e_T follows ln P
  # over it (a production generation)
  rate <- 1 - exp(-tau / p$feedback_time)
  e_ref <- st$e_ref[1] + rate * (est - st$e_ref[1])
  v <- sum(W * s1^2) / sum(W) - (sum(W * s1) / sum(W))^2
  sigma2 <- st$sigma2[1] + rate * (v - st$sigma2[1])
  # the reweighting's sums over the last T_p generations (here all of them)
  e_best <- if (is.nan(st$e_best[1])) st$e_ref[1] else st$e_best[1]
  ra <- st$r2_accepted[1] + sum(vapply(out, `[[`, 0, "pz2"))
  rp <- st$r2_proposed[1] + sum(vapply(out, `[[`, 0, "z2"))
  list(X = lapply(out[keep], `[[`, "X"), W = if (p$branching) rep(1, length(keep)) else W,
       acc = vapply(out, `[[`, TRUE, "acc"), energy = est, e_ref = e_ref,
       r2_accepted = ra, r2_proposed = rp, sigma2 = sigma2, e_best = e_best,
       rw_a = st$rw_a[1] + n * tau * st$e_trial[1], rw_b = st$rw_b[1] + n * tau,
       e_trial = e_ref - log(pm / p$target_population) / (n * p$feedback_time))
}

dmc_next <- function(d) {
  he4_dmc(blocks = 1, block_steps = 1, equilibration = 0, init = d, backend = "cpu")
}

test_that("a generation equals the R reference, weights only and branching", {
  v <- he4_vmc(8, replicas = 4, blocks = 1, block_sweeps = 10, equilibration = 50,
               seed = 1, backend = "cpu", precision = "double")
  # weights only and branching over the effective time step, and branching
  # over dt (effective_step = FALSE)
  # (dt = 0.03 rejects most moves, so that both branches of the accept/reject
  # step are taken: generations of frozen walkers, which he4_dmc() names)
  frozen_ok <- function(e) suppressWarnings(e, classes = "statphysgpu_frozen_walkers")
  for (cfg in list(c(FALSE, TRUE), c(TRUE, TRUE), c(TRUE, FALSE))) {
    branching <- cfg[1]
    d <- frozen_ok(he4_dmc(dt = 0.03, walkers = 6, target_population = 6, blocks = 1,
                           block_steps = 1, equilibration = 0, branching = branching,
                           effective_step = cfg[2], feedback = 0.3, init = v, seed = 11,
                           backend = "cpu"))
    accs <- logical()
    sizes <- numeric()
    for (g in 1:3) {
      ref <- dmc_ref_generation(d)
      d <- frozen_ok(dmc_next(d))
      st <- attr(d, "state")
      expect_equal(st$size[1], length(ref$X))
      for (k in seq_along(ref$X)) {
        expect_equal(t(st$coords[[1]][, , k]), ref$X[[k]], tolerance = 1e-10)
      }
      expect_equal(st$weight[[1]], ref$W, tolerance = 1e-10)
      expect_equal(d$energy, ref$energy, tolerance = 1e-10)
      expect_equal(st$e_ref[1], ref$e_ref, tolerance = 1e-10)
      expect_equal(st$e_trial[1], ref$e_trial, tolerance = 1e-10)
      expect_equal(st$r2_accepted[1], ref$r2_accepted, tolerance = 1e-10)
      expect_equal(st$r2_proposed[1], ref$r2_proposed, tolerance = 1e-10)
      expect_equal(st$sigma2[1], ref$sigma2, tolerance = 1e-10)
      expect_equal(st$e_best[1], ref$e_best, tolerance = 1e-10)
      expect_equal(c(st$rw_a[1], st$rw_b[1]), c(ref$rw_a, ref$rw_b), tolerance = 1e-10)
      accs <- c(accs, ref$acc)
      sizes <- c(sizes, st$size[1])
    }
    # with branching, walkers were born or killed (the copies in slot order)
    if (branching) expect_true(any(sizes != 6))
    # both branches of the accept/reject step were taken
    expect_true(any(accs) && any(!accs))
  }
})

test_that("the Lennard-Jones potential: a generation equals the R reference", {
  v <- he4_vmc(8, replicas = 4, blocks = 1, block_sweeps = 10, equilibration = 50,
               seed = 1, backend = "cpu", precision = "double")
  # the Lennard-Jones helium of de Boer and Michels (the defaults), and
  # another epsilon and sigma (McMillan's guide: the reference has no other)
  for (cfg in list(c(10.22, 2.556), c(8, 2.7))) {
    d <- he4_dmc(dt = 0.002, walkers = 6, target_population = 6, blocks = 1,
                 block_steps = 1, equilibration = 0, feedback_time = 0.02, init = v,
                 seed = 12, backend = "cpu", potential = "lennard-jones",
                 lj_epsilon = cfg[1], lj_sigma = cfg[2])
    p <- attr(d, "params")
    expect_identical(p$potential, "lennard-jones")
    expect_equal(c(p$lj_epsilon, p$lj_sigma), cfg)
    for (g in 1:3) {
      ref <- dmc_ref_generation(d)
      d <- dmc_next(d) # continues with the potential of `init`
      st <- attr(d, "state")
      expect_identical(attr(d, "params")$potential, "lennard-jones")
      expect_equal(st$size[1], length(ref$X))
      for (k in seq_along(ref$X)) {
        expect_equal(t(st$coords[[1]][, , k]), ref$X[[k]], tolerance = 1e-10)
      }
      expect_equal(st$weight[[1]], ref$W, tolerance = 1e-10)
      expect_equal(d$energy, ref$energy, tolerance = 1e-10)
      expect_equal(st$e_trial[1], ref$e_trial, tolerance = 1e-10)
    }
  }
  # the same walk with the Aziz potential has another energy (the reference
  # above is not the Aziz one): the walkers' local energies differ
  X <- t(attr(d, "state")$coords[[1]][, , 1])
  L <- attr(d, "params")$L
  expect_gt(abs(dmc_ref_lnpsi(X, L, 3.07)$e - dmc_ref_lnpsi(X, L, 3.07, c(10.22, 2.556))$e),
            0.01)
})

test_that("the Lennard-Jones tail correction is the integral beyond L/2", {
  v <- he4_vmc(8, replicas = 2, blocks = 1, block_sweeps = 2, equilibration = 2,
               seed = 1, backend = "cpu", precision = "double")
  d <- he4_dmc(dt = 0.002, walkers = 2, blocks = 1, block_steps = 1, equilibration = 0,
               init = v, seed = 3, backend = "cpu", potential = "lennard-jones")
  p <- attr(d, "params")
  lj <- function(r) 4 * 10.22 * ((2.556 / r)^12 - (2.556 / r)^6)
  tail <- 2 * pi * p$density * integrate(function(r) r^2 * lj(r), p$L / 2, Inf,
                                         rel.tol = 1e-12)$value
  expect_equal(attr(d, "tail_correction"), tail, tolerance = 1e-9)
  expect_false(isTRUE(all.equal(tail, he4_tail_correction(p$density, p$L))))
  # the Aziz default is unchanged
  d0 <- he4_dmc(dt = 0.002, walkers = 2, blocks = 1, block_steps = 1, equilibration = 0,
                init = v, seed = 3, backend = "cpu")
  expect_identical(attr(d0, "params")$potential, "aziz")
  expect_equal(attr(d0, "tail_correction"), he4_tail_correction(p$density, p$L))
  # a continuation keeps its potential; another one is refused
  expect_error(he4_dmc(blocks = 1, block_steps = 1, equilibration = 0, init = d,
                       potential = "aziz", backend = "cpu"),
               "`init` was run with potential = \"lennard-jones\"")
  expect_error(he4_dmc(blocks = 1, block_steps = 1, equilibration = 0, init = d,
                       lj_sigma = 2.6, backend = "cpu"), "same potential")
  expect_error(he4_dmc(init = v, potential = "coulomb", backend = "cpu"), "`potential`")
  expect_error(he4_dmc(init = v, potential = "lennard-jones", lj_sigma = -1,
                       backend = "cpu"), "`lj_sigma`")
  expect_error(he4_dmc(init = v, potential = "lennard-jones", lj_epsilon = NA,
                       backend = "cpu"), "`lj_epsilon`")
})

test_that("NVRTC compiles the DMC kernel (with the Lennard-Jones potential)", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  reg <- statphysgpu:::gpu_kernel_registry()$he4_dmc
  file <- file.path(system.file("cuda", package = "statphysgpu"), reg$file)
  for (v in names(reg$variants)) {
    res <- statphysgpu:::nvrtc_compile(
      file, statphysgpu:::nvrtc_options("sm_90", reg$variants[[v]], FALSE))
    expect_true(res$ok, info = paste(v, res$error, res$log))
  }
})

test_that("the effective time step's sums continue, and start afresh from an older state", {
  d <- he4_dmc(8, dt = 0.03, walkers = 6, blocks = 1, block_steps = 3, equilibration = 0,
               seed = 12, backend = "cpu")
  st <- attr(d, "state")
  # 3 generations of 6 walkers with 3 n normals each: sum |xi|^2 near 3 * 6 * 24
  expect_gt(st$r2_proposed, 0.5 * 432)
  expect_lt(st$r2_accepted, st$r2_proposed)
  expect_gt(st$r2_accepted, 0)
  s <- summary(d)
  expect_equal(attr(s, "effective_dt"), 0.03 * st$r2_accepted / st$r2_proposed)
  d2 <- dmc_next(d)
  before <- st$r2_proposed
  expect_gt(attr(d2, "state")$r2_proposed, before)
  # a state saved without the sums (older versions) continues with fresh
  # ones: the generation's moves are the same (the weights do not move the
  # walkers), so its sum is exactly what d2 added to d's
  # (a result of an earlier version has no seal, and is refused: the state
  # is sealed again here to reach the checks behind the seal)
  old <- d
  st$r2_accepted <- st$r2_proposed <- NULL
  attr(old, "state") <- st
  expect_error(dmc_next(old), "its attribute `state`", class = "statphysgpu_modified_result")
  d3 <- dmc_next(reseal(old))
  expect_equal(attr(d3, "state")$r2_proposed, attr(d2, "state")$r2_proposed - before,
               tolerance = 1e-12)
  st$r2_accepted <- -1
  st$r2_proposed <- 1
  attr(old, "state") <- st
  expect_error(dmc_next(reseal(old)), "r2_accepted", class = "statphysgpu_error")
})

test_that("the plain algorithm accepts every move", {
  d <- he4_dmc(8, dt = 0.01, walkers = 4, blocks = 1, block_steps = 1, equilibration = 0,
               accept = FALSE, drift_limit = 0, seed = 3, backend = "cpu")
  ref <- dmc_ref_generation(d)
  d2 <- dmc_next(d)
  expect_true(all(ref$acc))
  expect_equal(d2$acceptance, 1)
  for (k in seq_along(ref$X)) {
    expect_equal(t(attr(d2, "state")$coords[[1]][, , k]), ref$X[[k]], tolerance = 1e-10)
  }
})

dmc_df <- function(x, keep = TRUE) {
  out <- as.data.frame(x)[keep, , drop = FALSE]
  rownames(out) <- NULL
  out
}

test_that("the number of threads does not change the populations", {
  # N = 64 and 128 walkers: enough pair terms a generation for two threads
  # (the engine takes one thread per 2.5e5)
  args <- list(64, dt = 0.001, walkers = 128, blocks = 2, block_steps = 2, equilibration = 1,
               populations = 2, seed = 4, backend = "cpu")
  old <- sp_threads()
  on.exit(sp_threads(old))
  sp_threads(1)
  one <- do.call(he4_dmc, args)
  sp_threads(2)
  two <- do.call(he4_dmc, args)
  expect_identical(dmc_df(one), dmc_df(two))
  expect_identical(attr(one, "state")$coords, attr(two, "state")$coords)
})

test_that("chunks and continuation do not change the populations", {
  args <- list(16, dt = 0.002, walkers = 20, blocks = 4, block_steps = 5, equilibration = 5,
               seed = 5, backend = "cpu")
  one <- do.call(he4_dmc, c(args, populations = 2))
  # population 2 alone, as a chunk, and the chunks combined
  c2 <- do.call(he4_dmc, c(args, first_population = 2))
  c1 <- do.call(he4_dmc, args)
  expect_identical(dmc_df(c2)[-1], dmc_df(one, one$replica == 2)[-1])
  both <- rbind(c1, c2)
  expect_identical(dmc_df(both), dmc_df(one))
  expect_identical(attr(both, "state")$coords, attr(one, "state")$coords)
  # two blocks, then two more, equal four
  args$blocks <- 2
  a <- do.call(he4_dmc, c(args, populations = 2))
  b <- he4_dmc(blocks = 2, block_steps = 5, equilibration = 0, init = a, backend = "cpu")
  expect_identical(dmc_df(b)[-2], dmc_df(one, one$block > 2)[-2])
  expect_identical(b$block, one$block[one$block > 2])
  expect_identical(attr(b, "state")$coords, attr(one, "state")$coords)
})

test_that("population control holds the population near its target", {
  d <- he4_dmc(16, dt = 0.002, walkers = 40, target_population = 80, blocks = 12,
               block_steps = 10, equilibration = 50, feedback = 0.2, seed = 7,
               backend = "cpu")
  # the population relaxes within some 1/feedback generations from 40; its
  # block means fluctuate by a few sqrt(P) around the target, and the lag of
  # e_ref (which follows the falling mixed estimate over some 64 generations)
  # holds it some 10 per cent off while the projection goes on
  expect_lt(abs(mean(d$population) / 80 - 1), 0.2)
  expect_true(all(d$population > 40 & d$population < 160))
  expect_equal(sum(attr(d, "state")$overflow), 0)
})

test_that("the DMC energy lies below the VMC energy of its guide", {
  v <- he4_vmc(16, replicas = 8, blocks = 16, block_sweeps = 20, equilibration = 100,
               seed = 8, backend = "cpu", precision = "double")
  d <- he4_dmc(dt = 0.002, walkers = 60, blocks = 12, block_steps = 15, equilibration = 40,
               init = v, seed = 9, backend = "cpu")
  sv <- summary(v)
  sd <- summary(d)
  se <- function(s) if (is.finite(s$se[1])) s$se[1] else 2 * attr(s, "se_blocks")[[1]]
  z <- (sv$mean[1] - sd$mean[1]) / sqrt(se(sv)^2 + se(sd)^2)
  # the gap is some 1.3 K per atom at N = 16 (z = 7.5 at these seeds)
  expect_gt(z, 3)
  expect_identical(attr(sd, "extrapolations"), "none")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_invisible(plot(d))
  expect_invisible(plot(d, "trace", observable = "population"))
  expect_output(print(sd), "extrapolations: none")
})

test_that("two atoms in a box: DMC reaches the exact ground state (its guide 83 mK above)", {
  # The known answer: E/N = -0.3168004 K for two atoms in a periodic box of
  # side 10 A (the Aziz pair inside L/2), by Fourier-Galerkin with exact
  # potential coefficients (inst/scripts/he4-two-atoms-exact.R, error 1e-8
  # K).  The guide's VMC energy is -0.2334 K (83 mK above; test-he4-vmc.R).
  # At dt = 0.001 the walk's time-step error is +4.9 +- 0.7 mK (bench/
  # he4-dmc.R cases on a GPU, P = 20000: bench/RESULTS.md, DMC run 11).  At
  # this test's P = 1000 on the CPU the walk lies higher: seeds 12-21 give
  # +9.2 +- 1.3 mK (sd 4.1, their mean se 3.4; at 6813887, before issue
  # 52's equilibration and error changes, +8.0 +- 1.5, sd 4.8, mean se
  # 2.4): 4.3 +- 1.5 mK above the GPU's figure, which was measured before
  # the branching's energy cut (issue 52): with energy_cut = 0 the same
  # seeds give +4.8 +- 1.1 mK, so the difference is the cut's time-step
  # bias at dt = 0.001 (it vanishes with dt); not the population: P = 250
  # (12 seeds) +6.7 +- 2.7, P = 4000 (6 seeds) +8.3 +- 0.7 mK.  So the window is [-3.29 se,
  # 9.2 mK + 3.29 sqrt(se^2 + 1.3^2)] (p = 0.001 each side) around what
  # this configuration gives: a walk that missed any sizeable part of the
  # 83 mK would fail it.
  # the same engine code as the main build's (5 s): once in CI's two builds
  skip_if_second_build("the known answer is checked in the main build's tests")
  exact <- -0.3168004
  L <- 10
  d <- he4_dmc(2, density = 2 / L^3, dt = 0.001, walkers = 1000, blocks = 20,
               block_steps = 500, equilibration = 1000, seed = 12, backend = "cpu")
  s <- summary(d)
  se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[[1]]
  expect_gt(s$mean[1] - exact, -3.29 * se)
  expect_lt(s$mean[1] - exact, 0.0092 + 3.29 * sqrt(se^2 + 0.0013^2))
  expect_lt(se, 0.006) # the window stays narrow against the 83 mK
})

test_that("he4_dmc_extrapolate() recovers E0 from runs with a known bias", {
  fake <- function(dt, P, seed, c1 = 0) {
    set.seed(seed)
    e <- -7 + c1 * dt + 30 * dt^2 + 2 / P + rnorm(40, sd = 0.05)
    x <- data.frame(replica = 1, block = 1:40, energy = e, potential = e, kinetic = 0,
                    population = P, trial_energy = e, acceptance = 0.9, weight = P)
    attr(x, "params") <- list(n = 64, density = 0.02186, b = 3.07, jastrow = "symmetrized",
                              dt = dt, target_population = P, accept = TRUE)
    attr(x, "tail_correction") <- -1
    class(x) <- c("dmc_blocks", "data.frame")
    x
  }
  mk <- function(c1) {
    list(fake(0.001, 200, 1, c1), fake(0.002, 200, 2, c1), fake(0.004, 200, 3, c1),
         fake(0.002, 50, 4, c1), fake(0.004, 100, 5, c1))
  }
  runs <- mk(0)
  # quadratic alone, as the energies were made
  ex <- he4_dmc_extrapolate(runs, dt_order = "2")
  expect_s3_class(ex, "dmc_extrapolation")
  expect_identical(ex$extrapolations, c("time step (quadratic in dt)",
                                        "population (linear in 1/P)"))
  expect_lt(abs(ex$energy + 7) / ex$se, 4)
  expect_equal(ex$energy_corrected, ex$energy - 1)
  expect_output(print(summary(ex)), "quadratic in dt")
  # (the runs' 2 / P term left out of the fit: it says the fit misses)
  expect_warning(ex1 <- he4_dmc_extrapolate(runs, dt_order = 1, population = FALSE),
                 "does not describe the runs", class = "statphysgpu_warning")
  expect_identical(ex1$extrapolations, "time step (linear in dt)")
  # a first-order walk: the default fits both terms at three time steps and
  # recovers E0 (|z| < 4); the quadratic term alone cannot (a linear term of
  # 0.2-0.8 K against errors of 0.008 K) and warns
  runs <- mk(200)
  exa <- he4_dmc_extrapolate(runs)
  expect_identical(exa$extrapolations[1], "time step (linear and quadratic in dt)")
  expect_lt(abs(exa$energy + 7) / exa$se, 4)
  expect_warning(he4_dmc_extrapolate(runs, dt_order = "2"), "does not describe the runs",
                 class = "statphysgpu_warning")
  expect_error(he4_dmc_extrapolate(runs[c(1, 2, 4)], dt_order = "1+2"), "three time steps")
})

test_that("bad input is refused with a message naming the argument", {
  expect_error(he4_dmc(16, dt = -1, backend = "cpu"), "`dt`")
  expect_error(he4_dmc(16, walkers = 0, backend = "cpu"), "`walkers`")
  expect_error(he4_dmc(16, feedback = -1, backend = "cpu"), "`feedback`")
  expect_error(he4_dmc(16, energy_cut = NA, backend = "cpu"), "`energy_cut`")
  expect_error(he4_dmc(16, init = 3, backend = "cpu"), "`init`")
  expect_error(he4_dmc(2, backend = "cpu"), "too small")
  expect_error(he4_dmc_extrapolate(list(1)), "`runs`")
  d <- he4_dmc(16, dt = 0.002, walkers = 4, blocks = 1, block_steps = 1, equilibration = 0,
               seed = 1, backend = "cpu")
  expect_error(he4_dmc(density = 0.02, init = d, backend = "cpu"), "continue it")
  expect_error(he4_dmc(init = d, seed = 2, backend = "cpu"), "`seed` differs")
  v <- he4_vmc(16, replicas = 2, blocks = 1, block_sweeps = 1, equilibration = 0, seed = 1,
               backend = "cpu")
  expect_error(he4_dmc(16, b = 3, init = v, backend = "cpu"),
               "`init` \\(a he4_vmc\\(\\) result\\) has n = 16, .*b = 3.07.*start the DMC with the same")
})

# The engine contract (helper-engine.R): the replicas are populations
# (first_population the chunks' first), a tiny box, few generations.
dmc_run <- function(n, first = 1, seed = 1, backend = "cpu", ...) {
  do.call(he4_dmc, modifyList(list(
    n = 16, dt = 0.002, walkers = 10, blocks = 2, block_steps = 3, equilibration = 2,
    populations = n, first_population = first, seed = seed, backend = backend,
    progress = FALSE), list(...)))
}

# blocks of the interrupted run: on the GPU (some 0.1 ms a generation) enough
# to run well past the interrupt at 1.5 s
dmc_long_blocks <- function(backend) if (backend == "gpu") 50000 else 4000

engine_contract_tests(list(
  name = "he4_dmc",
  n = 6,
  run = dmc_run,
  key = function(x) list(dmc_df(x), attr(x, "state")),
  bad = list(
    list(args = list(n = 0), error = "`populations` must be a single whole number"),
    list(args = list(n = 2, first = 0), error = "`first_population` must be"),
    list(args = list(n = 2, first = 2^24), error = "must not pass 2\\^24"),
    list(args = list(n = 2, seed = -1), error = "`seed` must be"),
    list(args = list(n = 2, backend = "tpu"), error = "`backend` must be one of"),
    list(args = list(n = 2, progress = NA), error = "`progress` must be TRUE or FALSE")),
  long = function(backend) {
    # N = 64, 200 walkers: some 10 ms a generation on a CPU thread, so that
    # 4000 blocks of 5 run for minutes; the GPU finishes blocks within the
    # 1.5 s too
    he4_dmc(64, dt = 0.001, walkers = 200, blocks = dmc_long_blocks(backend), block_steps = 5,
            equilibration = 2, populations = 2, seed = 1, backend = backend, progress = FALSE)
  },
  warm = function(backend) {
    he4_dmc(16, dt = 0.002, walkers = 8, blocks = 1, block_steps = 1, equilibration = 0,
            seed = 1, backend = backend, progress = FALSE)
  },
  # the first block (a warm start, two generations of equilibration, five
  # of the block, two populations) took over 1 s on a 2-core machine under
  # a load of 6: no block finished, and the continuation check has nothing
  # to continue
  interrupt_s = 3,
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    st <- attr(x, "state")
    expect_gt(nrow(x), 0)
    expect_lt(nrow(x), 2 * dmc_long_blocks(backend))
    expect_false(anyNA(dmc_df(x)))
    # each population's finished blocks are 1, 2, ..., done, and its state
    # is that after them: continuing gives the next block of one longer run
    done <- tabulate(match(x$replica, st$population), 2)
    expect_identical(as.numeric(done), st$blocks)
    q <- which.min(done)
    nxt <- he4_dmc(blocks = 1, block_steps = 5, equilibration = 0, init = x,
                   backend = backend, progress = FALSE)
    fresh <- he4_dmc(64, dt = 0.001, walkers = 200, blocks = done[q] + 1, block_steps = 5,
                     equilibration = 2, first_population = q, seed = attr(x, "seed_hex"),
                     backend = backend, progress = FALSE)
    expect_equal(nxt$energy[nxt$replica == q], fresh$energy[done[q] + 1],
                 tolerance = if (backend == "gpu") 1e-9 else 0)
  }))
