# The CPU's vector loop over a many-body system's elements (inst/cuda/
# mb_lanes.h, issue 49 item 7: a square lattice on one core): long runs of
# "euler" and "srk2" take an object with the model's vector copy, which
# must give the scalar copy's numbers bit for bit -- on square lattices
# (neighbour rows and columns wrapped at the edges), chains, rings, mean
# fields and pairs, with element parameters, multiplicative noise, time and
# indices in the right-hand sides, and sines whose argument leaves the
# vector copy's range (those elements redone by the scalar copy).

# Heavy: each model compiled three times by the C compiler. Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

# The vector object (option TRUE, one thread) and the scalar one (FALSE,
# two threads) give identical results: the records, and the final states.
mb_lanes_both <- function(f) {
  a <- withr::with_options(list(statphysgpu.sde_cpu_vector = TRUE), with_threads(1, f()))
  b <- withr::with_options(list(statphysgpu.sde_cpu_vector = FALSE), with_threads(2, f()))
  expect_identical(as.data.frame(a), as.data.frame(b))
  expect_identical(attr(a, "final"), attr(b, "final"))
  a
}

test_that("long lattice runs of euler and srk2 take the vector object; others do not", {
  xy <- sde_model(drift = list(theta = ~ K * (sin(theta[i + 1, j] - theta) + sin(theta[i, j - 1] - theta))),
                  noise = list(theta = ~ 0.5), params = c(K = 1), lattice = "square",
                  observe = list(c = ~ mean(cos(theta))), name = "xy-choice")
  want <- function(...) statphysgpu:::sde_mb_cpu_lanes_wanted(xy, ...)
  skip_if(!nzchar(statphysgpu:::sde_cc()$extra), "the compiler is not GCC or clang")
  expect_identical(want("single", "euler", 2^26), "single")
  expect_identical(want("double", "srk2", 2^26), "double")
  expect_null(want("single", "euler", 2^19)) # short: the object of both precisions
  expect_null(want("single", "verlet", 2^30)) # (lattice neighbours: the splitting methods' scalar loop)
  withr::with_options(list(statphysgpu.sde_cpu_vector = TRUE),
                      expect_identical(want("single", "euler", 10), "single"))
  withr::with_options(list(statphysgpu.sde_cpu_vector = FALSE),
                      expect_null(want("single", "euler", 2^30)))
  src <- statphysgpu:::sde_mb_cpu_source("double")
  expect_match(src, "#define SP_MB_CPU_LANES 1", fixed = TRUE)
  expect_match(src, "#define SP_SDE_CPU_POLY 1", fixed = TRUE)
  expect_no_match(statphysgpu:::sde_mb_cpu_source(), "SP_MB_CPU_LANES", fixed = TRUE)
})

test_that("the vector loop gives the scalar copy's numbers on a square lattice (the XY model)", {
  skip_if_no_cc()
  xy <- sde_model(drift = list(theta = ~ K * (sin(theta[i + 1, j] - theta) + sin(theta[i - 1, j] - theta) +
                                                sin(theta[i, j + 1] - theta) + sin(theta[i, j - 1] - theta))),
                  noise = list(theta = ~ sqrt(2 * T)), params = c(K = 1, T = 0.5), lattice = "square",
                  periodic = "theta",
                  observe = list(m = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2),
                                 e = ~ mean(cos(theta[i, j + 1] - theta))),
                  name = "xy-lanes")
  # 3 x 301: a row is three chunks of the loop (128 elements), the rows'
  # first normals in the middle of a Philox block, their first and last
  # columns wrap, as do the first and last rows
  for (p in c("single", "double")) for (meth in c("euler", "srk2")) {
    r <- mb_lanes_both(function() {
      sde_run(xy, 2, n = c(3, 301), init = list(theta = ~ runif(-pi, pi)), dt = 0.05,
              t_max = 0.5, method = meth, output = "records", record_every = 5, precision = p,
              seed = 11, backend = "cpu", progress = FALSE)
    })
    expect_true(all(is.finite(r$m)) && all(r$m < 0.2))
  }
})

test_that("the vector loop gives the scalar copy's numbers: reach 2, two states, drawn element parameters, multiplicative noise, t and i, sines out of range", {
  skip_if_no_cc()
  # a[i] up to 2e6: sin(a x) beyond the vector copy's range (8192 single,
  # 2^20 double) for some elements; cos(om t) beyond 2^20 from step 11 on
  # for every element; the noise on v depends on x (Ito and Stratonovich
  # drifts differ)
  m <- sde_model(
    drift = list(x = ~ v,
                 v = ~ k * (x[i + 2, j] + x[i, j - 2] + x[i - 1, j + 1] - 3 * x) - g * v +
                   1e-3 * sin(a * x) + 1e-3 * cos(om * t) + 1e-4 * i - 1e-4 * j + w),
    noise = list(v = ~ s * (1 + 0.5 * cos(x))),
    params = list(k = 0.7, g = 1, s = 0.4, om = 1e7, w = ~ rnorm(0, 0.1), a = ~ runif(0, 2e6)),
    lattice = "square", observe = list(x2 = ~ mean(x^2), c = ~ sum(cos(x[i, j + 1] - x))),
    name = "sq2-lanes")
  for (p in c("single", "double")) for (meth in c("euler", "srk2")) {
    r <- mb_lanes_both(function() {
      sde_run(m, 2, n = c(5, 141), init = list(x = ~ rnorm(0, 0.5), v = 0), dt = 0.01,
              t_max = 0.2, method = meth, output = "records", record_every = 4, precision = p,
              seed = 3, backend = "cpu", progress = FALSE)
    })
    expect_true(all(is.finite(r$x2)))
  }
})

test_that("the vector loop gives the scalar copy's numbers on chains, rings, mean fields and pairs", {
  skip_if_no_cc()
  # two Wiener processes an element, correlated and state-dependent (the
  # general Ito-Stratonovich correction), and a mean field in the drift
  mnoise <- sde_model(
    drift = list(q = ~ -q + c * mean(q), p = ~ -p),
    noise = matrix(list(~ s, 0, ~ rho * s * (1 + 0.1 * q^2), ~ s), 2, 2, byrow = TRUE,
                   dimnames = list(c("q", "p"), c("a", "b"))),
    params = c(c = 0.5, s = 0.7, rho = 0.4), observe = list(qp = ~ mean(q * p)),
    name = "mb-noise-matrix-lanes")
  run <- function(name, n, init, p, meth, ...) {
    mb_lanes_both(function() {
      sde_run(if (is.character(name)) mb_model(name) else name, 2, n = n, init = init, dt = 0.02,
              t_max = 0.4, method = meth,
              output = "records", record_every = 5, precision = p, seed = 8, backend = "cpu",
              progress = FALSE, ...)
    })
  }
  for (meth in c("euler", "srk2")) {
    run("jj_chain", 260, list(phi = ~ rnorm(0, 1), v = 0), "double", meth) # a chain's ends
    run("hring", 300, list(q = ~ rnorm(0, 1), p = 0), "single", meth)      # a ring's
    run(mnoise, 203, list(q = ~ rnorm(0, 1), p = 0), "single", meth)       # a noise matrix, sums
    run("kpairs", 40, list(theta = ~ runif(-pi, pi)), "double", meth)      # pair sums
  }
})

# The pair sums' vector loop over targets (mb_lanes.h, issues 49 and 50:
# the Lennard-Jones fluid and Kuramoto all pairs on one core): every target
# sums its own partners in the scalar copy's order, so the results are the
# scalar object's bit for bit -- all pairs (with the pair terms' sines, some
# beyond the vector copy's range: those targets redone by the scalar copy;
# with positions and the observables' pair sums) and the Verlet lists of
# cut-off models, for every method.

test_that("models with pair terms take the vector object for every method", {
  skip_if(!nzchar(statphysgpu:::sde_cc()$extra), "the compiler is not GCC or clang")
  lj <- space_model("lj3")
  want <- function(...) statphysgpu:::sde_mb_cpu_lanes_wanted(lj, ...)
  expect_identical(want("single", "baoab", 500 * 100, 500), "single")
  expect_identical(want("double", "verlet", 500 * 100, 500), "double")
  expect_identical(want("single", "yoshida4", 2^20), "single")
  expect_null(want("single", "baoab", 100 * 20, 100)) # short: the object of both precisions
  withr::with_options(list(statphysgpu.sde_cpu_vector = FALSE),
                      expect_null(want("single", "baoab", 2^30, 500)))
  kp <- space_model("kpairs1")
  expect_identical(statphysgpu:::sde_mb_cpu_lanes_wanted(kp, "double", "euler", 300 * 100, 300),
                   "double")
})

test_that("the pair sums' vector loop gives the scalar copy's numbers: all pairs, sines out of range, positions", {
  skip_if_no_cc()
  # sin(a (theta_j - theta)) with the target's a: beyond 8192 (single) or
  # 2^20 (double) for some pairs of some targets; 45 targets: a part block
  ka <- function(amax) {
    sde_model(drift = list(theta = ~ w + K * pairs(sin(a * (theta[j] - theta)) + cos(theta[j]))),
              noise = list(theta = ~ sqrt(2 * D)),
              params = list(K = 0.05, D = 0.1, w = ~ rnorm(0, 1),
                            a = stats::as.formula(sprintf("~ runif(0, %g)", amax))),
              observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
              # one name for both ranges: a's law is drawn at run time, so the
              # two models are one code and share the scalar copy's object
              name = "kuramoto-pairs-a")
  }
  for (p in c("single", "double")) for (meth in c("euler", "srk2")) {
    m <- ka(if (p == "single") 3000 else 4e5)
    mb_lanes_both(function() {
      sde_run(m, 2, n = 45, init = list(theta = ~ runif(-pi, pi)), dt = 0.01, t_max = 0.2,
              method = meth, output = "records", record_every = 5, precision = p, seed = 4,
              backend = "cpu", progress = FALSE)
    })
    mb_lanes_both(function() { # the sines and cosines of the elements (pair values)
      sde_run(space_model("kpairs1"), 2, n = 37, init = list(theta = ~ runif(-pi, pi)),
              dt = 0.01, t_max = 0.2, method = meth, output = "records", record_every = 5,
              precision = p, seed = 4, backend = "cpu", progress = FALSE)
    })
  }
  # positions without a cut-off: the minimum image, all pairs, the pair
  # observable sum(pairs(r^2))
  for (p in c("single", "double")) {
    r <- mb_lanes_both(function() {
      sde_run(space_model("bond3"), 2, n = 19, init = list(x = ~ runif(0, 3), y = ~ runif(0, 3),
                                                             z = ~ runif(0, 3)),
              box = 3, dt = 0.01, t_max = 0.2, method = "euler", output = "records",
              record_every = 5, precision = p, seed = 2, backend = "cpu", progress = FALSE)
    })
    expect_true(all(is.finite(r$d2)))
  }
})

test_that("the pair sums' vector loop gives the scalar copy's numbers: Verlet lists (Lennard-Jones), every method", {
  skip_if_no_cc()
  lj <- space_model("lj3")
  ljh <- sde_model(drift = list(x = ~ vx, y = ~ vy, z = ~ vz, vx = ~ pairs(f * dx, cutoff = rc),
                                vy = ~ pairs(f * dy, cutoff = rc), vz = ~ pairs(f * dz, cutoff = rc)),
                   params = c(rc = 2.5),
                   define = list(ir2 = ~ 1 / r^2, ir6 = ~ ir2^3, f = ~ -24 * ir6 * (2 * ir6 - 1) * ir2),
                   observe = list(K = ~ mean(vx^2 + vy^2 + vz^2) / 2),
                   positions = c("x", "y", "z"), name = "lj3-hamiltonian")
  f <- space_fcc(5, 0.8) # 500 particles, 3 cells of 2.85 a side (the lists' rc + skin)
  init <- f$init
  init$vx <- init$vy <- init$vz <- ~ rnorm(0, 1)
  runs <- list(list(lj, "baoab", 0.004, "single"), list(lj, "baoab", 0.004, "double"),
               list(lj, "euler", 2e-4, "single"), list(ljh, "verlet", 0.004, "single"),
               list(ljh, "yoshida4", 0.004, "double"))
  for (a in runs) {
    r <- mb_lanes_both(function() {
      sde_run(a[[1]], 2, n = f$n, init = init, box = f$L, dt = a[[3]], t_max = 30 * a[[3]],
              method = a[[2]], output = "records", record_every = 10, precision = a[[4]], seed = 6,
              backend = "cpu", progress = FALSE)
    })
    expect_true(all(is.finite(r$K)))
  }
  # the lists kept from one advance to the next (a record every step: an
  # advance a step) give the numbers of one advance for the whole run
  go <- function(every) {
    sde_run(lj, 2, n = f$n, init = init, box = f$L, dt = 0.004, t_max = 0.12, method = "baoab",
            output = "records", record_every = every, precision = "single", seed = 6,
            backend = "cpu", progress = FALSE)
  }
  a <- go(1)
  b <- go(30)
  expect_identical(attr(a, "final"), attr(b, "final"))
  expect_identical(tail(a$K, 1), tail(b$K, 1))
})

test_that("the pair sums' vector loop gives the scalar copy's numbers: Verlet lists empty, short and in a block of empty lists", {
  skip_if_no_cc()
  # a dilute gas: a simple cubic lattice of spacing 3 (> rc + skin: no
  # partners) in a box of 12, less its last 4 sites (60: the last block of
  # the lists part full in both precisions), four sites of its first layer
  # moved 2 along x (a partner each at 1, pushed apart): the interleaved lists padded
  # past short and empty lists, and blocks with no entry at all
  lj <- space_model("lj3")
  g <- expand.grid(i = 0:3, j = 0:3, k = 0:3)[1:60, ]
  x <- 3 * g$i + 0.5
  moved <- c(1, 6, 11, 16)
  x[moved] <- x[moved] + 2
  init <- list(x = x, y = 3 * g$j + 0.5, z = 3 * g$k + 0.5, vx = 0, vy = 0, vz = 0)
  for (p in c("single", "double")) {
    r <- mb_lanes_both(function() {
      sde_run(lj, 2, n = 60, init = init, box = 12, dt = 0.004, t_max = 0.12, method = "baoab",
              output = "records", record_every = 10, precision = p, seed = 3, backend = "cpu",
              progress = FALSE)
    })
    expect_true(all(is.finite(r$K)))
    # the four pairs' repulsion felt: their x-distance (minimum image)
    # grown from 1 by some 0.18 (the noise alone: sd 0.06 about 1)
    fin <- attr(r, "final")
    d <- fin[c(2, 7, 12, 13), "x", ] - fin[moved, "x", ]
    expect_true(all(d - 12 * round(d / 12) > 1.05))
  }
})

# Issue 50: the splitting methods' stages (verlet, yoshida4) of a model
# without lattice neighbours in the vector loop (each stage's force, kick
# and move of an element in one pass: sp_mb_step_split_lanes), and the
# passes of a call's one system on several threads (the elements and the
# pair sums' targets split among them, the sums in the elements' order):
# the scalar copy's numbers bit for bit, on any number of threads.

test_that("verlet and yoshida4 take the vector object where the model has no lattice neighbours", {
  skip_if(!nzchar(statphysgpu:::sde_cc()$extra), "the compiler is not GCC or clang")
  hmf <- statphysgpu:::lrmd_declared_model("hmf", TRUE)
  want <- function(...) statphysgpu:::sde_mb_cpu_lanes_wanted(hmf, ...)
  expect_identical(want("single", "yoshida4", 2^26), "single")
  expect_identical(want("double", "verlet", 2^26), "double")
  expect_null(want("single", "yoshida4", 2^19)) # short: the object of both precisions
})

test_that("the splitting methods' vector loop gives the scalar copy's numbers: a mean field, element parameters, sines out of range", {
  skip_if_no_cc()
  # sin(a q) with a up to 2e6: beyond the vector copy's range (8192 single,
  # 2^20 double) for some elements, which the scalar copy redoes
  m <- sde_model(drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q) +
                                1e-3 * sin(a * q) + 1e-4 * i),
                 params = list(a = ~ runif(0, 2e6)),
                 observe = list(K = ~ mean(p^2) / 2, M = ~ mean(cos(q))), name = "hmf-split-lanes")
  for (p in c("single", "double")) for (meth in c("verlet", "yoshida4")) {
    r <- mb_lanes_both(function() {
      sde_run(m, 2, n = 301, init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1)), dt = 0.05,
              t_max = 1, method = meth, output = "records", record_every = 5, precision = p,
              seed = 3, backend = "cpu", progress = FALSE)
    })
    expect_true(all(is.finite(r$K)) && all(abs(r$M) <= 1))
  }
})

test_that("one system's passes run on several threads with the numbers of one thread", {
  skip_if_no_cc()
  skip_if(!statphysgpu:::threads_info()$openmp, "no OpenMP")
  teams <- function() .Call(statphysgpu:::C_sp_r_mb_team_runs)
  go <- function(m, th, vec = TRUE, ...) {
    withr::with_options(list(statphysgpu.sde_cpu_vector = vec), with_threads(th, {
      c0 <- teams()
      r <- sde_run(m, 1, ..., output = "records", seed = 5, backend = "cpu", progress = FALSE)
      list(r = r, teams = teams() - c0)
    }))
  }
  same <- function(a, b) {
    expect_identical(as.data.frame(a$r), as.data.frame(b$r))
    expect_identical(attr(a$r, "final"), attr(b$r, "final"))
  }
  # a mean field of 70,000 elements (from 65,536 a pass takes the threads):
  # the reductions, the splitting methods' stages and euler's and srk2's
  hmf <- statphysgpu:::lrmd_declared_model("hmf", TRUE)
  for (p in c("single", "double")) for (meth in c("yoshida4", "euler", "srk2")) {
    run <- function(th, vec = TRUE) {
      go(hmf, th, vec, n = 70000, init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1)),
         dt = 0.05, t_max = 0.2, method = meth, record_every = 2, precision = p)
    }
    a <- run(1)
    b <- run(2)
    expect_identical(a$teams, 0)
    expect_gt(b$teams, 0)
    same(a, b)
    if (p == "single" && meth == "yoshida4") same(run(1, FALSE), b) # the scalar object's
  }
  # all pairs (gravity2d, 1100^2 pair terms a pass: the threads from 2^20),
  # the dynamics' and the observables' pair sums
  g <- statphysgpu:::lrmd_declared_model("gravity2d", FALSE)
  for (p in c("single", "double")) {
    run <- function(th) {
      go(g, th, n = 1100, init = list(x = ~ rnorm(0, 1), y = ~ rnorm(0, 1), px = 0, py = 0),
         params = list(eps = 0.05), dt = 0.01, t_max = 0.03, method = "yoshida4",
         record_every = 1, precision = p)
    }
    a <- run(1)
    b <- run(2)
    expect_identical(a$teams, 0)
    expect_gt(b$teams, 0)
    same(a, b)
    expect_true(all(is.finite(b$r$V)))
  }
})
