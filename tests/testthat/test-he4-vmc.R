# he4_vmc() on the CPU: continuation, the engine's measurement against the
# reference local energy, physics (kinetic estimators, energy, acceptance,
# g(r)), bad input and the methods of its result.  The engine contract
# (chunks, seeds, threads, interrupts, CPU = GPU) is in test-contract.R.
# Small boxes (N = 32..64) and short chains: a few seconds on two cores.

vmc <- function(...) he4_vmc(..., backend = "cpu", progress = FALSE)

rho <- 0.02186
b_mcm <- 3.07

test_that("a continuation (start = x) gives the blocks of one longer call", {
  for (args in list(list(precision = "mixed", jastrow = "symmetrized"),
                    list(precision = "double", jastrow = "truncated", displacement = 0.4))) {
    common <- c(list(32, replicas = 3, block_sweeps = 4, measure_every = 2), args)
    x <- do.call(vmc, c(common, list(blocks = 3, equilibration = 12, seed = 5)))
    y <- do.call(vmc, c(common, list(blocks = 4, equilibration = 0, init = x)))
    whole <- do.call(vmc, c(common, list(blocks = 7, equilibration = 12, seed = 5)))
    expect_identical(y$block, rep(4:7, 3) + 0)
    expect_identical(y$energy, whole$energy[whole$block > 3])
    expect_identical(as.data.frame(rbind(x, y)), as.data.frame(whole))
    expect_identical(attr(rbind(x, y), "state"), attr(whole, "state"))
    expect_identical(attr(y, "state"), attr(whole, "state"))
  }
})

test_that("chunks of consecutive walkers combine and continue as one; others do not", {
  a <- vmc(32, replicas = 2, blocks = 2, block_sweeps = 3, equilibration = 6, seed = 8)
  b <- vmc(32, replicas = 2, blocks = 2, block_sweeps = 3, equilibration = 6, seed = 8,
           first_replica = 3)
  c5 <- vmc(32, replicas = 1, blocks = 2, block_sweeps = 3, equilibration = 6, seed = 8,
            first_replica = 6)
  whole <- vmc(32, replicas = 4, blocks = 2, block_sweeps = 3, equilibration = 6, seed = 8)
  more <- vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0, init = whole)
  expect_identical(as.data.frame(vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0,
                                     init = rbind(b, a))),
                   as.data.frame(more))
  expect_error(vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0, init = rbind(a, c5)),
               "consecutive walkers", class = "statphysgpu_error")
})

test_that("the engine measures the reference local energy of its configuration", {
  # a block of one sweep with one measurement: the walker's state after it
  # is the configuration measured, and he4_local_energy() (the CPU reference
  # of sp_he4_energy.c) gives the same potential and kinetic terms
  for (form in c("symmetrized", "truncated")) {
    for (prec in c("double", "mixed")) {
      x <- vmc(32, replicas = 3, blocks = 1, block_sweeps = 2, measure_every = 2,
               equilibration = 7, seed = 4, jastrow = form, precision = prec)
      st <- attr(x, "state")
      L <- attr(x, "params")$L
      ref <- t(vapply(seq_along(st$replica), function(w) {
        statphysgpu:::he4_local_energy(t(st$coords[, , w]), L, b_mcm, form)
      }, numeric(4)))
      # double: the same sums in another order; mixed: pair terms in single
      tol <- if (prec == "double") 1e-12 else 1e-5
      expect_equal(x$potential, unname(ref[, "potential"]), tolerance = tol)
      expect_equal(x$kinetic_pb, unname(ref[, "kinetic_pb"]), tolerance = tol)
      expect_equal(x$kinetic_jf, unname(ref[, "kinetic_jf"]), tolerance = tol)
      expect_equal(x$energy, x$potential + x$kinetic_pb, tolerance = 1e-14)
      # and the reference's identity T_PB = 2 T_JF - T_grad, configuration by
      # configuration
      expect_equal(unname(ref[, "kinetic_pb"]),
                   unname(2 * ref[, "kinetic_jf"] - ref[, "kinetic_grad"]),
                   tolerance = 1e-12)
    }
  }
})

# z of the mean of kinetic_pb - kinetic_jf: block differences of each walker
# a chain, reblocked (optimal level) and combined over the walkers
kinetic_z <- function(x) {
  d <- split(x$kinetic_pb - x$kinetic_jf, x$replica)
  se <- blocking_se(d)
  c(diff = mean(unlist(d)), se = as.numeric(se), z = mean(unlist(d)) / as.numeric(se))
}

test_that("symmetrised Jastrow: the two kinetic estimators agree; truncated: they do not", {
  # Integrating by parts, <lap U> = -2 <|grad U|^2> when u and u' are
  # continuous, so T_PB = T_JF in expectation.  Truncated at L/2, u' jumps
  # by u'(L/2) there and the surface term gives, to leading order,
  # T_PB - T_JF = -pi lambda rho (L/2)^2 u'(L/2) g(L/2), about -0.5 K at
  # N = 32 (measured -0.35 to -0.57 K in four seeds, z -4.1 to -4.8 with 4
  # walkers; here 8 walkers).
  s <- vmc(32, replicas = 4, blocks = 256, block_sweeps = 10, equilibration = 200, seed = 21)
  zs <- kinetic_z(s)
  expect_lt(abs(zs[["z"]]), 4)
  tr <- vmc(32, replicas = 8, blocks = 256, block_sweeps = 10, equilibration = 200, seed = 21,
            jastrow = "truncated")
  zt <- kinetic_z(tr)
  expect_lt(zt[["z"]], -4)
  expect_gt(zt[["diff"]], -1.2)
  expect_lt(zt[["diff"]], -0.2)
})

test_that("N = 64: energy in the physical range, acceptance near 0.3, g(r)", {
  n <- 64
  x <- vmc(n, replicas = 4, blocks = 32, block_sweeps = 10, equilibration = 200, seed = 7,
           pair_distribution = TRUE)
  s <- summary(x)
  e <- attr(s, "energy_corrected")
  # A sanity band, not a precision test: VMC with McMillan's b = 3.07 A and
  # the Aziz potential at 0.02186 A^-3 gives about -5.7 to -6.0 K per atom
  # (finite-size effects of a few 0.1 K at N = 64 included); this run's error
  # is about 0.15 K.
  expect_gt(e, -6.6)
  expect_lt(e, -5.3)
  expect_equal(attr(s, "tail_correction"), he4_tail_correction(rho, (n / rho)^(1 / 3)))
  expect_lt(attr(s, "tail_correction"), 0)
  # The step is tuned every 10 sweeps of equilibration by acceptance / 0.3
  # (the default `acceptance`); the last tuning period's acceptance (10 n
  # binomial moves) sets the final step, so a walker's acceptance afterwards
  # is 0.3 within a few of that period's binomial standard deviations.
  acc <- tapply(x$acceptance, x$replica, mean)
  sd_tune <- sqrt(0.3 * 0.7 / (10 * n))
  expect_true(all(abs(acc - 0.3) < 4 * sd_tune))
  expect_identical(attr(x, "params")$acceptance, 0.3)
  expect_identical(attr(x, "displacement"), attr(x, "state")$displacement)
  # g(r): nothing inside the core, about 1 at the largest distances (the
  # normalisation by the ideal gas of n atoms gives (n - 1)/n for g = 1)
  g <- attr(x, "pair_distribution")
  expect_identical(nrow(g), 100L)
  expect_true(all(g$g[g$r < 2] < 0.01))
  far <- g$r > max(g$r) - 1.5
  expect_lt(abs(mean(g$g[far]) - 1), 0.1)
  expect_gt(max(g$g), 1.1) # the first shell
  expect_true(all(g$counts == round(g$counts)))
  expect_lte(sum(g$counts), nrow(x) * 10 * n * (n - 1) / 2)
  # accumulating g(r) does not change the chains
  y <- vmc(n, replicas = 4, blocks = 2, block_sweeps = 10, equilibration = 200, seed = 7)
  expect_identical(y$energy, x$energy[x$block <= 2])
})

test_that("`acceptance` sets the target of the tuning, on both precisions", {
  # as above: within 4 binomial standard deviations of the last tuning
  # period (10 n moves) of the target; 0.6 is 7 of them from the default 0.3
  n <- 32
  for (prec in c("mixed", "double")) {
    x <- vmc(n, replicas = 2, blocks = 2, block_sweeps = 10, equilibration = 80, seed = 4,
             acceptance = 0.6, precision = prec)
    acc <- tapply(x$acceptance, x$replica, mean)
    expect_true(all(abs(acc - 0.6) < 4 * sqrt(0.6 * 0.4 / (10 * n))))
    expect_identical(attr(x, "params")$acceptance, 0.6)
  }
  # a numeric displacement is not tuned: the same chains whatever the target
  y1 <- vmc(n, replicas = 2, blocks = 2, block_sweeps = 5, equilibration = 20, seed = 4,
            displacement = 0.5, acceptance = 0.2)
  y2 <- vmc(n, replicas = 2, blocks = 2, block_sweeps = 5, equilibration = 20, seed = 4,
            displacement = 0.5)
  expect_identical(y1$energy, y2$energy)
})

test_that("two atoms in a box: the tuned step stops at L/2 and the energy is the quadrature's", {
  # A dilute system never reaches the target acceptance: the tuning used
  # to double the step every period (to 1e13 A after 2000 sweeps, where
  # x + step z loses the position to rounding and a walker stands still).
  # The step now stops at the cut L/2, and the chain samples psi^2.
  L <- 10
  b <- 3.07
  x <- he4_vmc(2, density = 2 / L^3, b = b, replicas = 16, blocks = 20, block_sweeps = 500,
               equilibration = 500, seed = 3, backend = "cpu", precision = "double")
  expect_equal(attr(x, "displacement"), rep(L / 2, 16), tolerance = 1e-12) # L from density
  # <psi|H|psi> / <psi|psi> of the symmetrised McMillan pair on the torus of
  # the relative coordinate (a pair inside L/2), by the midpoint rule on a
  # 100^3 grid: -0.23339 K per atom (200^3: -0.23340, 60^3: -0.23339)
  ng <- 100
  g <- (seq_len(ng) - 0.5) * L / ng - L / 2
  r <- sqrt(outer(outer(g^2, g^2, "+"), g^2, "+"))
  r <- r[r < L / 2]
  u <- jastrow_mcmillan(r, b, L)
  el <- aziz_potential(r) - 12.119296 * (jastrow_mcmillan(r, b, L, deriv = 2) +
                                        2 * jastrow_mcmillan(r, b, L, deriv = 1) / r +
                                        jastrow_mcmillan(r, b, L, deriv = 1)^2)
  # pairs beyond L/2 have psi = 1 and E_L = 0
  exact <- sum(exp(2 * u) * el) / (sum(exp(2 * u)) + (ng^3 - length(r))) / 2
  s <- summary(x)
  se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[[1]]
  # about 3 mK at these seeds; z within 3.29 (p = 0.001, two-sided)
  expect_lt(abs(s$mean[1] - exact) / se, 3.29)
})

test_that("bad input gets a clear error naming the argument", {
  bad <- function(..., error) {
    expect_error(vmc(..., blocks = 2, block_sweeps = 2, equilibration = 2), error,
                 class = "statphysgpu_error")
  }
  bad(1, error = "`n` must be a single whole number between 2")
  bad(32.5, error = "`n` must be a single whole number")
  bad("32", error = "`n` must be a single whole number")
  for (d in list(0, -0.02, Inf, NA, "dense")) {
    bad(32, density = d, error = "`density` must be a numeric vector of positive finite numbers")
  }
  bad(32, density = c(0.02, NA), error = "`density` must be a numeric vector .*, not NA")
  bad(32, density = numeric(), error = "`density` must be a numeric vector")
  for (v in list(0, -3, Inf, NaN, c(3, -1))) {
    bad(32, b = v, error = "`b` must be a numeric vector of positive")
  }
  for (v in list(0, -0.1, Inf, "fast")) {
    bad(32, displacement = v, error = "`displacement` must be a single positive finite number")
  }
  for (v in list(0, 1, -0.3, NA, "high", c(0.3, 0.4))) {
    bad(32, acceptance = v, error = "`acceptance` must be a single finite number in \\(0, 1\\)")
  }
  # L/2 inside the core of the potential: the message names the box side
  bad(2, error = "box is too small: side L = .* = 4.506 A.*L/2 = 2.253 A")
  bad(6, density = 0.05, error = "box is too small: side L")
  # densities outside [1e-4, 0.1] A^-3 are refused with a message naming
  # `density` (1e-30 used to fail in the tail integral)
  bad(32, density = 1e-30, error = "`density` must lie in \\[1e-04, 0.1\\] atoms per cubic angstrom")
  bad(32, density = 0.2, error = "`density` must lie in .*, not 0.2\\.")
  bad(32, density = 21.86, error = "was it given per cubic nanometre \\(0.02186 A\\^-3\\)")
  for (v in list(0, 1.5, -2, "many", c(1, 2))) {
    bad(32, replicas = v, error = "`replicas` must be a single whole number")
  }
  expect_error(vmc(32, blocks = 0), "`blocks` must be a single whole number",
               class = "statphysgpu_error")
  expect_error(vmc(32, blocks = 2.5), "`blocks` must be", class = "statphysgpu_error")
  expect_error(vmc(32, block_sweeps = 0), "`block_sweeps` must be a single whole number",
               class = "statphysgpu_error")
  expect_error(vmc(32, block_sweeps = 2.5), "`block_sweeps` must be",
               class = "statphysgpu_error")
  expect_error(vmc(32, measure_every = 0), "`measure_every` must be a single whole number",
               class = "statphysgpu_error")
  expect_error(vmc(32, equilibration = -1), "`equilibration` must be a single whole number",
               class = "statphysgpu_error")
  expect_error(vmc(32, equilibration = 1.5), "`equilibration` must be",
               class = "statphysgpu_error")
  expect_error(vmc(32, block_sweeps = 10, measure_every = 3),
               "`block_sweeps` \\(10\\) must be a multiple of `measure_every` \\(3\\)",
               class = "statphysgpu_error")
  bad(32, jastrow = "exact", error = "`jastrow` must be one of")
  bad(32, pair_distribution = NA, error = "`pair_distribution` must be TRUE or FALSE")
  x <- vmc(32, replicas = 2, blocks = 2, block_sweeps = 2, equilibration = 2, seed = 1)
  bad(32, init = data.frame(a = 1), error = "`init` must be NULL or a result of he4_vmc\\(\\)")
  bad(32, init = as.data.frame(x), error = "`init` must be NULL or a result of he4_vmc\\(\\)")
  bad(64, init = x, error = "`init` was run with n = 32, density = 0.02186")
  bad(32, density = 0.022, init = x, error = "`init` was run with n = 32")
  bad(32, b = 3, init = x, error = "continue it with the same values")
  bad(32, jastrow = "truncated", init = x, error = "jastrow = \"symmetrized\"")
  bad(32, init = x, seed = 2, error = "`seed` differs from the seed of `init`")
  bad(32, init = x, replicas = 3, error = "`init` holds 2 walkers")
})

test_that("the walkers' state of `init` is checked as a whole before it is used", {
  x <- vmc(32, replicas = 2, blocks = 2, block_sweeps = 2, equilibration = 2, seed = 1)
  st <- attr(x, "state")
  with_state <- function(...) {
    y <- x
    attr(y, "state") <- utils::modifyList(st, list(...))
    y
  }
  # a modified state is refused by the seal; sealed again (as if made so),
  # by the checks of the state
  bad <- function(y, error) {
    expect_error(vmc(32, blocks = 2, block_sweeps = 2, equilibration = 0, init = y),
                 "`init` was modified after it was run: its attribute `state`",
                 class = "statphysgpu_modified_result")
    expect_error(vmc(32, blocks = 2, block_sweeps = 2, equilibration = 0, init = reseal(y)),
                 paste0("`init` holds no usable walkers' state: ", error),
                 class = "statphysgpu_error")
  }
  # displacements c(NA, -1) used to run, giving blocks of energy 0, acceptance 1 and
  # NaN coordinates; all-zero coordinates gave NaN energies
  bad(with_state(displacement = c(NA, -1)), "its displacements must be 2 finite positive numbers.*not NA")
  bad(with_state(displacement = c(0.3, -1)), "its displacements .* not -1")
  bad(with_state(displacement = c(0.3, Inf)), "its displacements")
  bad(with_state(displacement = 0.3), "its displacements must be 2 .* not 0.3")
  zero <- st$coords
  zero[] <- 0
  bad(with_state(coords = zero), "walker 1 has two atoms closer than 0.01 A")
  # one atom of walker 2 on another, across the periodic boundary (x = 0
  # and x = L are the same plane)
  L <- attr(x, "params")$L
  near <- st$coords
  near[, 2, 2] <- near[, 1, 2]
  near[1, 1, 2] <- 0
  near[1, 2, 2] <- L * (1 - 1e-9)
  bad(with_state(coords = near), "walker 2 has two atoms closer than")
  nan <- st$coords
  nan[2, 5, 1] <- NaN
  bad(with_state(coords = nan), "its coordinates must be finite and inside the box .*not NaN")
  out <- st$coords
  out[3, 7, 2] <- L + 1
  bad(with_state(coords = out), "its coordinates .*inside the box \\[0, 11.35")
  out[3, 7, 2] <- -0.5
  bad(with_state(coords = out), "its coordinates .*inside the box .* not -0.5")
  bad(with_state(coords = st$coords[, , 1]), "its coordinates must be 3 x n x walkers")
  bad(with_state(coords = as.character(st$coords)), "its coordinates must be")
  bad(with_state(moves = c(1.5, 2)), "its move counts must be 2 whole numbers .* not 1.5")
  bad(with_state(moves = c(-1, 2)), "its move counts")
  bad(with_state(blocks = c(NA, 2)), "its block counts")
  bad(with_state(replica = c(0, 1)), "its walker numbers must be whole numbers")
  bad(with_state(replica = c(1.5, 2.5)), "its walker numbers")
  bad(with_state(seed_hex = "0xzz"), "its seed must be a hexadecimal seed")
  y <- x
  attr(y, "state") <- st[c("replica", "coords")]
  bad(y, "attr\\(init, \"state\"\\) must be a list with elements")
  # the unmodified state continues, and atoms that are merely close (but
  # farther than min(0.01 A, b / 4)) are accepted
  expect_s3_class(vmc(32, blocks = 1, block_sweeps = 2, equilibration = 0, init = x),
                  "vmc_blocks")
  ok <- st$coords
  ok[, 2, 1] <- ok[, 1, 1] + c(0.011, 0, 0)
  expect_true(all(is.finite(vmc(32, blocks = 1, block_sweeps = 1, equilibration = 0,
                                init = reseal(with_state(coords = ok)))$energy)))
})

test_that("an unchanged state skips the close-pair search by its fingerprint; a changed one does not", {
  x <- vmc(32, replicas = 2, blocks = 2, block_sweeps = 2, equilibration = 2, seed = 1)
  st <- attr(x, "state")
  L <- attr(x, "params")$L
  fp <- function(coords, Lb = L, b = 3.07, cond = c(1, 1)) {
    statphysgpu:::vmc_fingerprint(coords, 32, Lb, b, cond)
  }
  expect_match(st$fingerprint, "^[0-9a-f]{16}$")
  expect_identical(st$fingerprint, fp(st$coords))
  # the same whatever the threads
  old <- sp_threads(1)
  one <- fp(st$coords)
  sp_threads(old)
  expect_identical(one, st$fingerprint)
  # any change of a coordinate (one unit in the last place, the sign of a
  # zero), of the box, b or the conditions it was checked against changes it
  c1 <- st$coords
  c1[2, 17, 2] <- c1[2, 17, 2] * (1 + .Machine$double.eps)
  expect_false(identical(fp(c1), st$fingerprint))
  z <- array(0, dim(st$coords))
  expect_false(identical(fp(z), fp(-z)))
  expect_false(identical(fp(st$coords, Lb = L * (1 + 1e-15)), st$fingerprint))
  expect_false(identical(fp(st$coords, b = 3.0), st$fingerprint))
  expect_false(identical(fp(st$coords, cond = c(1, 2)), st$fingerprint))
  # a changed state with the old fingerprint is searched: a pair at 0.005 A
  # (as the state test above, but with the fingerprint left in place)
  y <- x
  near <- st$coords
  near[, 2, 1] <- near[, 1, 1] + c(0.005, 0, 0)
  attr(y, "state")$coords <- near
  expect_identical(attr(y, "state")$fingerprint, st$fingerprint)
  # (sealed again: the seal refuses any change before the state's checks)
  expect_error(vmc(32, blocks = 1, block_sweeps = 2, equilibration = 0, init = y),
               "its attribute `state`", class = "statphysgpu_modified_result")
  expect_error(vmc(32, blocks = 1, block_sweeps = 2, equilibration = 0, init = reseal(y)),
               "walker 1 has two atoms closer than", class = "statphysgpu_error")
  # the coordinate check is what a matching fingerprint skips: a
  # coordinate just past the wall is refused without one and taken with a
  # fingerprint made for it (a forged one: the fingerprint tells an
  # unchanged state from a changed one, it is no signature)
  out <- st$coords
  out[1, 3, 2] <- L * (1 + 1e-3)
  attr(y, "state")$coords <- out
  expect_error(vmc(32, blocks = 1, block_sweeps = 2, equilibration = 0, init = reseal(y)),
               "inside the box", class = "statphysgpu_error")
  attr(y, "state")$fingerprint <- fp(out)
  expect_s3_class(vmc(32, blocks = 1, block_sweeps = 2, equilibration = 0, init = reseal(y)),
                  "vmc_blocks")
  # an unchanged state continues (the chain of one longer call, test above)
  # and its continuation has its own fingerprint
  more <- vmc(32, blocks = 1, block_sweeps = 2, equilibration = 0, init = x)
  expect_identical(attr(more, "state")$fingerprint, fp(attr(more, "state")$coords))
  # rbind: a fingerprint when every part's matches, none otherwise
  a <- vmc(32, replicas = 1, blocks = 2, block_sweeps = 2, equilibration = 2, seed = 1)
  b <- vmc(32, replicas = 1, first_replica = 2, blocks = 2, block_sweeps = 2,
           equilibration = 2, seed = 1)
  expect_identical(attr(rbind(a, b), "state")$fingerprint, st$fingerprint)
  attr(b, "state")$coords[1, 1, 1] <- attr(b, "state")$coords[1, 1, 1] / 2
  expect_null(attr(rbind(a, b), "state")$fingerprint)
})

test_that("the close-pair search of the state check finds every pair within d, minimum image", {
  # against all pairs in R: random boxes with some pairs planted near each
  # other, across the walls too
  old <- sp_threads()
  on.exit(sp_threads(old), add = TRUE)
  # 3 threads split 3 walkers their own way; where the machine has fewer
  # processors (or no OpenMP) sp_threads() says so with the warning expected here
  info <- statphysgpu:::threads_info()
  set_threads <- function(th) {
    if (th > 1 && !info$openmp) {
      expect_warning(sp_threads(th), "without OpenMP")
    } else if (th > info$procs && th <= info$limit) {
      expect_warning(sp_threads(th), "oversubscribed")
    } else if (th > info$limit) {
      expect_warning(sp_threads(th), "thread limit")
    } else {
      sp_threads(th)
    }
  }
  set.seed(3)
  L <- 10
  for (trial in 1:20) {
    n <- 30
    w <- 3
    co <- array(runif(3 * n * w, 0, L), c(3, n, w))
    for (k in 1:2) {
      j <- sample(w, 1); a <- sample(n, 2)
      co[, a[2], j] <- (co[, a[1], j] + runif(3, -0.3, 0.3)) %% L
    }
    d <- 0.25
    ref <- 0L
    for (j in seq_len(w)) {
      dd <- outer(1:n, 1:n, Vectorize(function(p, q) {
        u <- co[, p, j] - co[, q, j]
        u <- u - L * round(u / L)
        sqrt(sum(u^2))
      }))
      diag(dd) <- Inf
      if (any(dd < d)) { ref <- j; break }
    }
    # the first such walker whatever the threads that search the walkers
    for (th in 1:3) {
      set_threads(th)
      expect_identical(statphysgpu:::vmc_close_pair(co, L, d), ref)
    }
  }
})

test_that("the close-pair check is exact for lattices, walls, coordinates at L and coarse grids", {
  # against all pairs (minimum image), with pairs planted at every offset
  # of the column grid the C check uses (sqrt(2 n) columns an axis, at
  # least d wide), across the walls in x and y, atoms at x = L, and d so
  # large that fewer than three columns fit (all pairs)
  ref_close <- function(co, L, d) {
    for (j in seq_len(dim(co)[3])) {
      p <- t(co[, , j])
      for (a in seq_len(nrow(p) - 1)) {
        u <- sweep(p[-seq_len(a), , drop = FALSE], 2, p[a, ])
        u <- u - L * round(u / L)
        if (any(rowSums(u^2) < d^2)) return(j)
      }
    }
    0L
  }
  set.seed(11)
  L <- 6
  for (trial in 1:40) {
    n <- sample(c(8, 27, 50), 1)
    w <- 4
    d <- sample(c(0.05, 0.4, 1.9, 2.5), 1) # 1.9: three columns an axis
    if (trial %% 4 == 0) { # a simple cubic lattice, shaken a little
      k <- ceiling(n^(1 / 3))
      g <- as.matrix(expand.grid(0:(k - 1), 0:(k - 1), 0:(k - 1)))[seq_len(n), ] * (L / k)
      co <- array(rep(t(g), w) + runif(3 * n * w, 0, 0.01), c(3, n, w)) %% L
    } else {
      co <- array(runif(3 * n * w, 0, L), c(3, n, w))
    }
    j <- sample(w, 1)
    a <- sample(n, 2)
    off <- runif(3, -1, 1) * d * sample(c(0.7, 1.3), 1)
    co[, a[2], j] <- (co[, a[1], j] + off) %% L
    if (trial %% 5 == 0) co[1, a[1], j] <- L # on the wall
    expect_identical(statphysgpu:::vmc_close_pair(co, L, d), ref_close(co, L, d))
  }
})

test_that("print, summary, plot, autoplot and as.data.frame of the blocks", {
  x <- vmc(32, replicas = 3, blocks = 16, block_sweeps = 5, equilibration = 20, seed = 2,
           pair_distribution = TRUE)
  d <- as.data.frame(x)
  expect_true(is.data.frame(d)) # (a data frame that reads the old column name walker)
  expect_false(inherits(d, "vmc_blocks"))
  expect_identical(names(d), c("replica", "block", "condition", "density", "b", "energy",
                               "potential", "kinetic_pb", "kinetic_jf", "acceptance"))
  expect_identical(unique(d[c("condition", "density", "b")]),
                   data.frame(condition = 1L, density = rho, b = b_mcm))
  expect_null(attr(d, "state"))
  expect_output(print(x), "<vmc_blocks> 48 blocks: 3 walkers, 16 blocks each")
  expect_output(print(x), "N = 32 atoms of 4He")
  s <- summary(x)
  expect_s3_class(s, "summary.vmc_blocks")
  expect_identical(s$observable, c("energy", "potential", "kinetic_pb", "kinetic_jf"))
  expect_equal(s$mean, unname(colMeans(d[c("energy", "potential", "kinetic_pb", "kinetic_jf")])))
  expect_identical(s$n_blocks, rep(48L, 4))
  expect_equal(attr(s, "energy_corrected"), s$mean[1] + attr(x, "tail_correction"))
  expect_equal(attr(s, "acceptance"), mean(x$acceptance))
  # the standard error is that of blocking_se() on the walkers' chains
  se <- suppressWarnings(blocking_se(split(x$energy, x$replica)))
  expect_equal(s$se[1], as.numeric(se))
  if (!is.na(se)) {
    expect_equal(attr(s, "time_to_error"), attr(x, "seconds") * (1000 * s$se[1])^2)
  }
  expect_output(print(s), "Energy with the tail correction")
  expect_output(print(s), "Acceptance")
  sj <- summary(x, method = "jonsson")
  expect_true(all(is.na(sj$se_error)))
  # short runs: NA where the error analysis cannot be done, and no error
  tiny <- vmc(32, replicas = 2, blocks = 3, block_sweeps = 2, equilibration = 2, seed = 1)
  st <- summary(tiny)
  expect_true(all(is.na(st$se)) && all(is.na(st$tau_int)))
  expect_output(print(st), "se is NA")
  expect_output(print(tiny), "3 blocks each")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(x), x)
  expect_silent(plot(x, which = c("trace", "reblock", "pair_distribution"),
                     observable = "kinetic_jf"))
  expect_error(plot(tiny, which = "reblock"), "at least 4 blocks",
               class = "statphysgpu_error")
  expect_error(plot(tiny, which = "pair_distribution"), "pair_distribution = TRUE",
               class = "statphysgpu_error")
  expect_error(plot(x, which = "histogram"), "`which` must be", class = "statphysgpu_error")
  skip_if_not_installed("ggplot2")
  for (w in c("trace", "reblock", "pair_distribution")) {
    expect_s3_class(ggplot2::autoplot(x, which = w), "ggplot")
  }
})

test_that("rbind() combines chunks and continuations, and refuses parts of other runs", {
  args <- list(32, blocks = 3, block_sweeps = 3, equilibration = 6, seed = 3,
               pair_distribution = TRUE)
  a <- do.call(vmc, c(args, list(replicas = 2)))
  b <- do.call(vmc, c(args, list(replicas = 3, first_replica = 3)))
  whole <- do.call(vmc, c(args, list(replicas = 5)))
  ab <- rbind(b, a)
  expect_s3_class(ab, "vmc_blocks")
  expect_identical(as.data.frame(ab), as.data.frame(whole))
  expect_identical(attr(ab, "state"), attr(whole, "state"))
  expect_equal(attr(ab, "pair_distribution"), attr(whole, "pair_distribution"))
  expect_equal(attr(ab, "seconds"), attr(a, "seconds") + attr(b, "seconds"))
  expect_error(rbind(a, a), "walker 1, block 1 appears twice", class = "statphysgpu_error")
  other <- do.call(vmc, modifyList(args, list(replicas = 2, first_replica = 3, seed = 4)))
  expect_error(rbind(a, other), "the same seed", class = "statphysgpu_error")
  # fresh chunks tuned towards another acceptance are other chains
  tuned <- do.call(vmc, c(args, list(replicas = 2, first_replica = 3, acceptance = 0.5)))
  expect_error(rbind(a, tuned), "argument 2 differs from argument 1 in acceptance \\(0.5",
               class = "statphysgpu_error")
  mixed <- do.call(vmc, c(args, list(replicas = 2, first_replica = 3, precision = "double")))
  expect_error(rbind(a, mixed), "precision", class = "statphysgpu_error")
  expect_error(rbind(a, as.data.frame(b)), "argument 2 is a data frame",
               class = "statphysgpu_error")
  no_g <- vmc(32, replicas = 2, blocks = 3, block_sweeps = 3, equilibration = 6, seed = 3,
              first_replica = 3)
  expect_warning(m <- rbind(a, no_g), "pair distribution")
  expect_null(attr(m, "pair_distribution"))
})

test_that("as.mcmc.list() gives one coda chain per walker", {
  skip_if_not_installed("coda")
  x <- vmc(32, replicas = 3, blocks = 6, block_sweeps = 3, equilibration = 6, seed = 3)
  m <- coda::as.mcmc.list(x)
  expect_s3_class(m, "mcmc.list")
  expect_identical(coda::nchain(m), 3L)
  expect_identical(coda::niter(m), 6L)
  expect_identical(unname(as.matrix(m[[2]])[, "energy"]), x$energy[x$replica == 2])
  y <- vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0, init = x)
  expect_identical(stats::start(coda::as.mcmc.list(y)), 7)
})

test_that("the GPU kernel variant follows option statphysgpu.he4_variant", {
  v <- statphysgpu:::he4_kernel_variant
  reg <- names(statphysgpu:::gpu_kernel_registry()$he4_vmc$variants)
  old <- options(statphysgpu.he4_variant = NULL)
  on.exit(options(old))
  expect_identical(c(v("mixed"), v("double")), c("mixed_fast_u4_usum", "double_fast"))
  options(statphysgpu.he4_variant = "")
  expect_identical(c(v("mixed"), v("double")), c("mixed", "double"))
  options(statphysgpu.he4_variant = "_fast")
  expect_identical(c(v("mixed"), v("double")), c("mixed_fast", "double_fast"))
  options(statphysgpu.he4_variant = "_lb32") # no double variant: the default one
  expect_identical(c(v("mixed"), v("double")), c("mixed_lb32", "double"))
  # the sums of u: single precision only; beyond 48 KiB of shared memory
  # (20 bytes an atom) the variant without them
  options(statphysgpu.he4_variant = "_fast_u4_usum")
  expect_identical(c(v("mixed", 512), v("double", 512)), c("mixed_fast_u4_usum", "double_fast"))
  expect_identical(v("mixed", 2444), "mixed_fast_u4_usum")
  expect_identical(v("mixed", 2445), "mixed_fast_u4")
  expect_true(all(c("mixed", "mixed_fast", "mixed_fast_u4", "mixed_fast_u4_usum", "double",
                    "double_fast") %in% reg))
})

test_that("a sweep over density and b: condition 1 is the one-condition call, each condition its own streams", {
  sw <- function(density, b, ...) {
    vmc(32, density = density, b = b, replicas = 2, blocks = 3, block_sweeps = 3,
        equilibration = 6, seed = 4, ...)
  }
  x <- sw(c(0.02186, 0.024), c(3.07, 2.9), pair_distribution = TRUE)
  g <- attr(x, "conditions")
  # the grid, density varying fastest; every row carries its condition's values
  expect_identical(g, data.frame(condition = 1:4, density = rep(c(0.02186, 0.024), 2),
                                 b = rep(c(3.07, 2.9), each = 2)))
  expect_identical(x$density, g$density[x$condition])
  expect_identical(x$b, g$b[x$condition])
  expect_identical(as.vector(table(x$condition)), rep(6L, 4))
  # condition 1 draws from the streams of a call without a sweep: its walkers
  # are exactly those of the one-condition call (blocks and state)
  one <- vmc(32, replicas = 2, blocks = 3, block_sweeps = 3, equilibration = 6, seed = 4,
             pair_distribution = TRUE)
  key <- c("replica", "block", "energy", "potential", "kinetic_pb", "kinetic_jf", "acceptance")
  expect_identical(as.data.frame(x)[x$condition == 1, key], as.data.frame(one)[key])
  st <- attr(x, "state")
  expect_identical(st$condition, rep(1:4, each = 2) + 0)
  expect_identical(st$coords[, , 1:2], attr(one, "state")$coords)
  expect_identical(attr(x, "tail_correction")[1], attr(one, "tail_correction"))
  # a condition's chains depend on its number and parameters only, not on the
  # other conditions: condition 2 (0.024, 3.07) of a smaller grid is the same
  y <- sw(c(0.02186, 0.024), 3.07)
  expect_identical(as.data.frame(y)[y$condition == 2, key],
                   as.data.frame(x)[x$condition == 2, key])
  # equal parameters in two conditions: other streams, other chains
  z <- sw(c(0.02186, 0.02186), 3.07)
  expect_false(identical(z$energy[z$condition == 2], z$energy[z$condition == 1]))
  # each condition's walkers start in its own box (coordinates inside [0, L])
  for (c in 1:4) {
    L <- (32 / g$density[c])^(1 / 3)
    co <- st$coords[, , st$condition == c]
    expect_true(all(co >= 0 & co <= L))
  }
  # the starts: each condition's fcc lattice (2 cells a side for 32 atoms) in
  # its own box, from its walkers' streams: the farthest site at 7/8 of L
  L <- (32 / g$density)^(1 / 3)
  st0 <- array(.Call(statphysgpu:::C_sp_r_vmc_lattice, 32L, L,
                     statphysgpu:::check_u64(4, "seed"), statphysgpu:::check_u64(0, "w"), 2L),
               c(3, 32, 8))
  expect_equal(apply(st0, 3, max), rep(0.875 * L, each = 2))
  # g(r): one table per condition over its own [0, L/2)
  pd <- attr(x, "pair_distribution")
  expect_identical(nrow(pd), 400L)
  expect_equal(tapply(pd$r, pd$condition, max),
               ((32 / g$density)^(1 / 3) / 2) * (1 - 0.5 / 100), ignore_attr = TRUE)
  expect_identical(pd$counts[pd$condition == 1], attr(one, "pair_distribution")$counts)
})

test_that("a sweep's condition c is the one-condition call with condition c's streams", {
  # each walker is its own computation: its condition's pair parameters and
  # its stream, whatever the other conditions of the call (the GPU engine
  # runs them all in one launch; test-he4-vmc-gpu.R checks it there)
  args <- list(32, replicas = 2, blocks = 2, block_sweeps = 3, equilibration = 6, seed = 9,
               backend = "cpu", precision = "double", progress = FALSE)
  x <- do.call(he4_vmc, c(args, list(density = c(0.02186, 0.024, 0.026), b = c(3.07, 2.9))))
  g <- attr(x, "conditions")
  key <- c("block", "energy", "potential", "kinetic_pb", "kinetic_jf", "acceptance")
  for (c in c(2, 6)) {
    one <- do.call(vmc_as_condition, c(list(c), args, list(density = g$density[c], b = g$b[c])))
    expect_identical(as.data.frame(one)[key], as.data.frame(x)[x$condition == c, key],
                     ignore_attr = TRUE)
    st <- attr(x, "state")
    expect_identical(attr(one, "state")$coords, st$coords[, , st$condition == c])
  }
  # the streams matter (a plain call with condition 2's values has other
  # chains), and the helper is undone after its call
  plain <- do.call(he4_vmc, c(args, list(density = g$density[2], b = g$b[2])))
  expect_false(isTRUE(all.equal(plain$energy, x$energy[x$condition == 2])))
})

test_that("a sweep: chunks by first_replica combine, and it continues exactly", {
  sw <- function(...) vmc(32, density = c(0.02186, 0.024), b = c(3.07, 2.9), block_sweeps = 3,
                          seed = 6, ...)
  whole <- sw(replicas = 3, blocks = 4, equilibration = 6, pair_distribution = TRUE)
  a <- sw(replicas = 1, blocks = 4, equilibration = 6, pair_distribution = TRUE)
  b <- sw(replicas = 2, first_replica = 2, blocks = 4, equilibration = 6,
          pair_distribution = TRUE)
  ab <- rbind(b, a)
  expect_identical(as.data.frame(ab), as.data.frame(whole))
  expect_identical(attr(ab, "state"), attr(whole, "state"))
  expect_equal(attr(ab, "pair_distribution"), attr(whole, "pair_distribution"))
  # continuation: a + b blocks = one run of a + b blocks, bit for bit; the
  # conditions of `init` are taken when density and b are not given
  first <- sw(replicas = 3, blocks = 2, equilibration = 6)
  more <- vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0, init = first)
  expect_identical(attr(more, "conditions"), attr(first, "conditions"))
  expect_identical(as.data.frame(rbind(first, more)), as.data.frame(sw(replicas = 3, blocks = 4,
                                                                        equilibration = 6)))
  expect_identical(attr(more, "state"), attr(whole, "state"))
  # a continuation of the chunks of a sweep, combined
  expect_identical(as.data.frame(vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0,
                                     init = rbind(a, b))),
                   as.data.frame(vmc(32, blocks = 2, block_sweeps = 3, equilibration = 0,
                                     init = whole)))
  # other conditions than those of `init` are refused
  expect_error(vmc(32, density = 0.024, blocks = 2, block_sweeps = 3, equilibration = 0,
                   init = first), "`init` was run with n = 32, density = 0.02186, 0.024",
               class = "statphysgpu_error")
  # a damaged state is refused (by the seal; sealed again, naming the condition)
  bad <- first
  st <- attr(bad, "state")
  st$coords[, 2, 4] <- st$coords[, 1, 4]
  attr(bad, "state") <- st
  expect_error(vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, init = bad),
               "its attribute `state`", class = "statphysgpu_modified_result")
  expect_error(vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, init = reseal(bad)),
               "walker 1 of condition 2 has two atoms closer", class = "statphysgpu_error")
})

test_that("a sweep: summary, print, plots and coda per condition", {
  x <- vmc(32, density = c(0.02186, 0.024), replicas = 2, blocks = 8, block_sweeps = 3,
           equilibration = 6, seed = 2, pair_distribution = TRUE)
  s <- summary(x)
  expect_identical(names(s)[1:4], c("condition", "density", "b", "observable"))
  expect_identical(s$condition, rep(1:2, each = 4))
  for (c in 1:2) {
    sc <- summary(statphysgpu:::vmc_condition_part(x, c))
    expect_equal(s$mean[s$condition == c], sc$mean)
    expect_equal(s$se[s$condition == c], sc$se)
    expect_equal(s$mean[s$condition == c & s$observable == "energy"],
                 mean(x$energy[x$condition == c]))
    expect_equal(attr(s, "energy_corrected")[c],
                 sc$mean[1] + attr(x, "tail_correction")[c])
  }
  expect_output(print(s), "-- condition 2: density 0.024 A\\^-3, b = 3.07 A --")
  expect_output(print(x), "2 conditions: density 0.02186, 0.02400 A\\^-3")
  expect_output(print(x), "4 walkers, 8 blocks each")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(x, which = c("trace", "pair_distribution"), condition = 2), x)
  expect_error(plot(x, condition = 3), "`condition` must be one of the result's conditions \\(1, 2\\)",
               class = "statphysgpu_error")
  skip_if_not_installed("coda")
  m <- coda::as.mcmc.list(x, condition = 2)
  expect_identical(coda::nchain(m), 2L)
  expect_identical(unname(as.matrix(m[[1]])[, "energy"]),
                   x$energy[x$condition == 2 & x$replica == 1])
})

test_that("columns of a summary print as a data frame (its attributes are gone)", {
  s <- he4_vmc(16, density = c(0.02186, 0.024), replicas = 1, blocks = 2, block_sweeps = 2,
               equilibration = 2, seed = 1, backend = "cpu", progress = FALSE)
  out <- capture.output(print(summary(s)[c("condition", "density", "observable", "mean")]))
  expect_true(any(grepl("condition", out)))
})
