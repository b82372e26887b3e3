# lrmd(): long-range MD (paper 004) on the CPU, its initial conditions and
# the HMF equilibrium theory.  The engine contract of helper-engine.R
# (engine_contract_tests) is written for replica engines (chunks of
# replicas combine); lrmd() runs one system, so its contract is tested here
# in its own terms: a continued run equals one long run, the thread count
# does not change the result (bitwise), an interrupt returns the records so
# far with the state to continue from, and every bad input has a clear error.

# Heavy: long molecular-dynamics runs against theory (15 s). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

lr <- function(...) lrmd(..., backend = "cpu", progress = FALSE)

# ---- theory -------------------------------------------------------------------

test_that("hmf_magnetization() solves M = I1(M/T) / I0(M/T), 0 from T = 1/2 on", {
  T <- c(0.05, 0.2, 0.3, 0.4, 0.45, 0.49)
  M <- hmf_magnetization(T)
  expect_true(all(M > 0 & M < 1))
  expect_lt(max(abs(besselI(M / T, 1) / besselI(M / T, 0) - M)), 1e-10)
  expect_true(all(diff(M) < 0))
  expect_identical(hmf_magnetization(c(0.5, 0.7, 3)), c(0, 0, 0))
  expect_identical(hmf_magnetization(0), 1)
  # limits: M = 1 - T/2 + O(T^2) at low T; M^2 = 8 T^2 (1 - 2T) (1 + O(1 - 2T)) near T_c
  lo <- c(1e-3, 1e-2)
  expect_lt(max(abs(hmf_magnetization(lo) - (1 - lo / 2))), max(lo)^2)
  hi <- c(0.499, 0.4999)
  rel <- hmf_magnetization(hi)^2 / (8 * hi^2 * (1 - 2 * hi)) - 1
  expect_lt(max(abs(rel)), 10 * (1 - 2 * hi[1]))
  expect_error(hmf_magnetization(-1), "`T` must be", class = "statphysgpu_error")
})

test_that("hmf_caloric() is the curve U = T/2 + (1 - M^2)/2 with U_c = 3/4", {
  U <- c(0.05, 0.3, 0.6, 0.69, 0.74, 0.75, 0.9)
  cc <- hmf_caloric(U)
  expect_identical(cc$U, U)
  expect_lt(max(abs(cc$T / 2 + (1 - cc$M^2) / 2 - U)), 1e-10)
  expect_lt(max(abs(hmf_magnetization(cc$T) - cc$M)), 1e-8)
  above <- U >= 0.75
  expect_identical(cc$M[above], c(0, 0))
  expect_equal(cc$T[above], 2 * U[above] - 1)
  expect_true(all(cc$M[!above] > 0))
  # the standard point of the QSS literature (Latora, Rapisarda, Ruffo
  # 1998): U = 0.69, T_eq = 0.4757, M_eq = 0.3 (to the digits quoted there)
  expect_equal(hmf_caloric(0.69)$T, 0.4754, tolerance = 1e-3)
  expect_equal(hmf_caloric(0)$M, 1)
  expect_error(hmf_caloric(-0.1), "minimum energy per particle", class = "statphysgpu_error")
})

# ---- initial conditions ----------------------------------------------------------

test_that("the waterbag has energy U exactly, zero momentum and angles in [-d, d]", {
  for (M0 in c(1, 0.6, 0)) {
    w <- hmf_waterbag(3000, M0 = M0, U = 0.69, seed = 4)
    M2 <- mean(cos(w$theta))^2 + mean(sin(w$theta))^2
    expect_equal(mean(w$p^2) / 2 + (1 - M2) / 2, 0.69, tolerance = 1e-14)
    expect_lt(abs(sum(w$p)), 1e-10)
    d <- attr(w, "params")$width
    expect_true(all(abs(w$theta) <= d))
    if (M0 > 0 && M0 < 1) expect_equal(sin(d) / d, M0)
    # the sample's M about M0: sd of mean(cos) <= 1/sqrt(n); z = 5
    expect_lt(abs(sqrt(M2) - M0), 5 / sqrt(3000) + 1e-12)
    x <- lr("hmf", init = w, dt = 0.1, steps = 1, precision = "double")
    expect_equal(x$total[1], 0.69, tolerance = 1e-13)
    expect_identical(x$energy_error[1], 0)
  }
  expect_identical(hmf_waterbag(100, 0.5, 0.7, seed = 1), hmf_waterbag(100, 0.5, 0.7, seed = 1))
  expect_false(identical(hmf_waterbag(100, 0.5, 0.7, seed = 1)$p,
                         hmf_waterbag(100, 0.5, 0.7, seed = 2)$p))
})

test_that("an impossible energy is refused, with the minimum said", {
  expect_error(hmf_waterbag(100, M0 = 0.5, U = 0.3), "below the minimum energy.*0.375",
               class = "statphysgpu_error")
  expect_error(hmf_waterbag(100, M0 = 1, U = -0.1), "minimum energy is 0",
               class = "statphysgpu_error")
  expect_error(hmf_waterbag(100, M0 = 1.2, U = 1), "`M0` must be", class = "statphysgpu_error")
  expect_error(hmf_waterbag(1, M0 = 1, U = 1), "`n` must be", class = "statphysgpu_error")
  expect_error(hmf_equilibrium(100, T = 0), "`T` must be", class = "statphysgpu_error")
  expect_error(gravity2d_shell(100, 1, 0.5), "`r_out` .* larger", class = "statphysgpu_error")
})

test_that("hmf_equilibrium() samples the von Mises law of the self-consistent M", {
  n <- 20000
  for (T in c(0.2, 0.4, 0.8)) {
    e <- hmf_equilibrium(n, T, seed = 3)
    M <- hmf_magnetization(T)
    # mean(cos theta) of n independent angles: sd sqrt((1 - T - M^2 + ...)/n) <= 1/sqrt(n); z = 5
    expect_lt(abs(mean(cos(e$theta)) - M), 5 / sqrt(n))
    expect_lt(abs(mean(sin(e$theta))), 5 / sqrt(n))
    # momenta: variance T (relative sd sqrt(2/n)); z = 5
    expect_lt(abs(mean(e$p^2) / T - 1), 5 * sqrt(2 / n))
    expect_lt(abs(sum(e$p)), 1e-9)
  }
})

test_that("ring_uniform() and gravity2d_shell() are the homogeneous starts", {
  r <- ring_uniform(4000, seed = 2)
  expect_true(all(abs(r$theta) < pi) && all(r$p == 0))
  # uniform angles: KS at a fixed seed (p > 0.001)
  expect_gt(stats::ks.test((r$theta + pi) / (2 * pi), "punif")$p.value, 1e-3)
  rp <- ring_uniform(4000, p0 = 0.3, seed = 2)
  expect_identical(rp$theta, r$theta)
  expect_true(all(abs(rp$p) <= 0.6) && abs(sum(rp$p)) < 1e-10)
  g <- gravity2d_shell(4000, 0.5, 1, seed = 2)
  expect_true(all(g$px == 0 & g$py == 0))
  expect_lt(abs(mean(g$x)) + abs(mean(g$y)), 1e-12)
  # the centre of mass moved by about sqrt(<r^2>/n) <= 1/sqrt(n) per axis: z = 6
  r2 <- sqrt(g$x^2 + g$y^2)
  expect_true(all(r2 >= 0.5 - 6 / sqrt(4000) & r2 <= 1 + 6 / sqrt(4000)))
})

# ---- lazy starts: drawn when read, or by the engine ---------------------------------

lazy_starts <- function(n, seed = 1) {
  list(waterbag = hmf_waterbag(n, 0.6, 0.69, seed = seed),
       equilibrium = hmf_equilibrium(n, 0.3, seed = seed),
       ring = ring_uniform(n, p0 = 0.3, seed = seed),
       ring_rest = ring_uniform(n, seed = seed),
       shell = gravity2d_shell(n, 0.5, 1, seed = seed))
}
is_unread <- function(x) !is.null(statphysgpu:::lrmd_lazy(x))
# the start as a plain data frame of its numbers
plain <- function(x) {
  df <- lapply(x, function(v) v + 0)
  structure(df, class = "data.frame", row.names = c(NA_integer_, -length(df[[1]])))
}

test_that("a start is a small object, drawn when read, a data frame for every use", {
  w <- hmf_waterbag(5001, 0.6, 0.69, seed = 2)
  expect_true(is_unread(w))
  expect_s3_class(w, c("lrmd_init", "data.frame"))
  expect_identical(dim(w), c(5001L, 2L))
  expect_identical(names(w), c("theta", "p"))
  expect_lt(.row_names_info(w), 0) # compact row names
  p <- w$p # the column, not read
  expect_true(is_unread(w)) # none of the above read a column
  expect_true(is.finite(sum(p))) # a column read draws the whole start
  expect_false(is_unread(w))
  expect_identical(length(p), 5001L)
  expect_identical(p, hmf_waterbag(5001, 0.6, 0.69, seed = 2)$p)
  expect_identical(as.matrix(w), as.matrix(plain(hmf_waterbag(5001, 0.6, 0.69, seed = 2))))
  expect_identical(w[3:4, "theta"], w$theta[3:4])
  expect_output(print(hmf_waterbag(10, 0.6, 0.69, seed = 2)),
                "<lrmd_init> hmf start of 10 particles \\(M0 = 0.6, U = 0.69, width = ")
  # identical() draws both
  expect_identical(gravity2d_shell(99, 0.5, 1, seed = 3), gravity2d_shell(99, 0.5, 1, seed = 3))
  expect_false(identical(ring_uniform(99, 0.2, seed = 3)$p, ring_uniform(99, 0.2, seed = 4)$p))
})

test_that("the draw does not depend on the threads, and the engine's draw is the same bits", {
  # 5 tiles of 1024 (the last partial), n not a multiple of 4
  n <- 4099
  for (nm in names(lazy_starts(n))) {
    one <- with_threads(1, plain(lazy_starts(n)[[nm]]))
    two <- with_threads(2, plain(lazy_starts(n)[[nm]]))
    expect_identical(two, one, info = nm)
    s <- lazy_starts(n)[[nm]]
    model <- attr(s, "model")
    x <- with_threads(2, lr(model, init = s, dt = 0.001, steps = 2, snapshots = 0,
                            precision = "double"))
    expect_true(is_unread(s)) # the engine drew it: the start was not read
    snap <- attr(x, "snapshots")[[1]]
    attributes(snap)[c("time", "step")] <- NULL
    expect_identical(snap, one, info = nm)
    # and the run equals that of the start given as numbers, bit for bit
    y <- lr(model, init = one, dt = 0.001, steps = 2, precision = "double")
    expect_identical(attr(x, "state"), attr(y, "state"), info = nm)
    expect_identical(as.data.frame(x), as.data.frame(y), info = nm)
  }
  # lrmd()'s own default start is such a start
  x <- lr("ring", n = 300, dt = 0.01, steps = 1, snapshots = 0, seed = 5)
  expect_identical(unname(lapply(attr(x, "snapshots")[[1]], identity)),
                   unname(lapply(ring_uniform(300, seed = 5), identity)))
  # as.data.frame() keeps the start unread; lrmd() draws it just the same
  w <- hmf_waterbag(2000, 0.6, 0.69, seed = 1)
  d <- as.data.frame(w)
  expect_identical(class(d), "data.frame")
  expect_true(is_unread(d))
  expect_identical(attr(lr("hmf", init = d, dt = 0.1, steps = 3), "state"),
                   attr(lr("hmf", init = plain(w), dt = 0.1, steps = 3), "state"))
  # a start with a column replaced is run as the numbers it holds
  m <- hmf_waterbag(2000, 0.6, 0.69, seed = 1)
  m$p <- m$p * 0
  expect_false(is_unread(m))
  expect_identical(attr(lr("hmf", init = m, dt = 0.1, steps = 3), "state"),
                   attr(lr("hmf", init = data.frame(theta = w$theta, p = 0), dt = 0.1, steps = 3),
                        "state"))
})

test_that("a start's draws follow the recipe: Philox purpose 11, streams 0, 1, 2", {
  # draw i from block floor(i / 4) of stream s: the uniform (x + 1/2) 2^-32
  # of the 32-bit word; the ring's angles are pi (2 u - 1), the waterbag's
  # d (2 u - 1) for its half width d.  Purpose 11's draws are those of the
  # raw space (philox_uint32()) from offset 11 x 2^58 (sp_streams.h)
  r <- ring_uniform(10, seed = 7)
  u <- (philox_uint32(10, seed = 7, stream = 0, offset = 11 * 2^58) + 0.5) / 2^32
  expect_identical(r$theta, pi * (2 * u - 1))
  w <- hmf_waterbag(10, 0.5, 0.7, seed = 7)
  expect_identical(w$theta, attr(w, "params")$width * (2 * u - 1))
  v <- 2 * (philox_uint32(10, seed = 7, stream = 2, offset = 11 * 2^58) + 0.5) / 2^32 - 1
  rp <- ring_uniform(10, p0 = 0.3, seed = 7)
  expect_equal(rp$p, 0.3 * v - mean(0.3 * v), tolerance = 1e-14)
})

test_that("a start that cannot be drawn is refused when drawn, and saved small", {
  # U = (1 - M0^2)/2 + 1e-4 below the potential energy of these 1000 angles
  # (their M below 0.6 by more than the margin): refused where it is drawn
  w <- hmf_waterbag(1000, 0.6, 0.3201, seed = 1)
  expect_error(sum(w$p), "below the potential energy per particle of the drawn angles",
               class = "statphysgpu_error")
  expect_error(lr(init = hmf_waterbag(1000, 0.6, 0.3201, seed = 1), dt = 0.1, steps = 1),
               "`U` = 0.3201 is below the potential energy .* raise U or n",
               class = "statphysgpu_error")
  # serialised unread: the recipe (small), read back to the same numbers
  f <- withr::local_tempfile(fileext = ".rds")
  s <- gravity2d_shell(20000, 0.5, 1, seed = 9)
  saveRDS(s, f, compress = FALSE)
  expect_lt(file.size(f), 1e4)
  back <- readRDS(f)
  expect_true(is_unread(back))
  expect_identical(plain(back), plain(s))
  # read, it is saved as its numbers
  saveRDS(s, f, compress = FALSE)
  expect_gt(file.size(f), 20000 * 32)
  expect_identical(readRDS(f), s)
})

test_that("a start lrmd() draws warns of a coarse dt after the run, from its fastest particle", {
  rp <- ring_uniform(100, p0 = 5, seed = 1)
  r <- max(abs(rp$p)) / sqrt(0.02)
  expect_warning(lr(init = ring_uniform(100, p0 = 5, seed = 1), dt = 1.01 / r, steps = 1),
                 "is coarse for the", class = "statphysgpu_coarse_dt")
  expect_no_warning(lr(init = ring_uniform(100, p0 = 5, seed = 1), dt = 0.99 / r, steps = 1))
  w <- hmf_waterbag(300, 0.5, 3, seed = 1)
  r <- max(abs(w$p))
  expect_warning(lr(init = hmf_waterbag(300, 0.5, 3, seed = 1), dt = 1.001 / r, steps = 1),
                 "max\\(1, max \\|p\\|\\)", class = "statphysgpu_coarse_dt")
  expect_no_warning(lr(init = hmf_waterbag(300, 0.5, 3, seed = 1), dt = 0.999 / r, steps = 1))
  e <- hmf_equilibrium(300, 4, seed = 1)
  r <- max(abs(e$p))
  expect_warning(lr(init = hmf_equilibrium(300, 4, seed = 1), dt = 1.001 / r, steps = 1),
                 class = "statphysgpu_coarse_dt")
  expect_no_warning(lr(init = hmf_equilibrium(300, 4, seed = 1), dt = 0.999 / r, steps = 1))
})

# ---- the integrator -------------------------------------------------------------

test_that("the relative energy error scales as dt^4 for all three models", {
  # max |(E - E0)/E0| over a fixed time window at three dt halving: Yoshida's
  # error is C dt^4 (1 + O(dt^2)); at these dt the log-log slope is within
  # 0.5 of 4 (the O(dt^2) correction below 30 per cent), and the errors are
  # far above rounding (double precision, 1e-13)
  cases <- list(
    list(model = "hmf", init = hmf_waterbag(500, 0.5, 0.6, seed = 2), dt = c(0.2, 0.1, 0.05),
         t = 10),
    list(model = "ring", init = ring_uniform(300, p0 = 0.5, seed = 1), dt = c(0.08, 0.04, 0.02),
         t = 2, softening = 0.05),
    list(model = "gravity2d", init = gravity2d_shell(200, 0.5, 1, seed = 1),
         dt = c(0.04, 0.02, 0.01), t = 1, softening = 0.05))
  for (cs in cases) {
    err <- vapply(cs$dt, function(dt) {
      x <- lr(cs$model, init = cs$init, dt = dt, steps = round(cs$t / dt), record_every = 1,
              softening = cs$softening %||% 0.01, precision = "double")
      max(abs(x$energy_error))
    }, 0)
    expect_true(all(err > 1e-11), info = cs$model)
    slope <- unname(stats::coef(stats::lm(log(err) ~ log(cs$dt)))[2])
    expect_gt(slope, 3.5)
    expect_lt(slope, 4.5)
  }
})

test_that("the total momentum is conserved", {
  # every force is a sum of pair terms antisymmetric to the last bit (HMF:
  # sum_i (-Mx sin + My cos) = 0), so the total momentum changes by rounding
  # only: in double below 1e-11 of n times the momentum scale (measured
  # 6e-18); in "mixed" the states are single precision, each update rounded
  # to 2^-24 relative: a random walk of sqrt(steps / n) 2^-24 of the scale,
  # at most 3.5e-8 here (measured 4e-10 to 4.3e-8), bounded by 1e-6
  cases <- list(list("hmf", hmf_waterbag(2000, 0.8, 0.6, seed = 1), 0.1),
                list("ring", ring_uniform(600, p0 = 0.5, seed = 1), 0.05),
                list("gravity2d", gravity2d_shell(300, 0.5, 1, seed = 1), 0.01))
  for (cs in cases) for (prec in c("mixed", "double")) {
    x <- lr(cs[[1]], init = cs[[2]], dt = cs[[3]], steps = 200, precision = prec)
    s <- attr(x, "state")
    scale <- nrow(s) * sqrt(2 * max(x$kinetic)) * (if (prec == "double") 1e-11 else 1e-6)
    if (cs[[1]] == "gravity2d") {
      expect_lt(abs(sum(s$px)) + abs(sum(s$py)), scale)
    } else {
      expect_lt(abs(sum(s$p) - sum(cs[[2]]$p)), scale)
    }
  }
})

test_that("an HMF equilibrium start stays at hmf_magnetization(T)", {
  n <- 5000
  T <- 0.3
  M <- hmf_magnetization(T)
  x <- lr("hmf", init = hmf_equilibrium(n, T, seed = 7), dt = 0.1, steps = 1000,
          record_every = 10, precision = "double")
  late <- x[x$time >= 20, ]
  # instantaneous fluctuation of M along the field: variance (1 - T - M^2)/n
  # for independent angles, enhanced by the mean field's response by 1 / (1 -
  # (1 - T - M^2)/T); the time average fluctuates less.  z = 5 plus the O(1/n)
  # finite-size shift of M
  v <- (1 - T - M^2)
  sd <- sqrt(v / n / (1 - v / T))
  expect_lt(abs(mean(late$M) - M), 5 * sd + 1 / n)
  expect_lt(abs(mean(late$temperature) - T), 0.02)
  expect_lt(max(abs(x$energy_error)), 1e-6)
})

test_that("mixed precision follows double to its rounding", {
  w <- hmf_waterbag(1000, 0.8, 0.6, seed = 3)
  a <- lr("hmf", init = w, dt = 0.1, steps = 100, precision = "double")
  b <- lr("hmf", init = w, dt = 0.1, steps = 100, precision = "mixed")
  expect_lt(max(abs(b$energy_error)), 1e-5)
  expect_lt(max(abs(a$M - b$M)), 1e-3)
  g <- gravity2d_shell(300, 0.5, 1, seed = 1)
  a <- lr("gravity2d", init = g, dt = 0.01, steps = 50, precision = "double")
  b <- lr("gravity2d", init = g, dt = 0.01, steps = 50, precision = "mixed")
  expect_lt(max(abs(b$potential - a$potential)), 1e-5)
})

# ---- the contract ---------------------------------------------------------------

test_that("a continued run equals one long run exactly", {
  cases <- list(list("hmf", hmf_waterbag(1500, 1, 0.69, seed = 1), 0.1),
                list("ring", ring_uniform(700, p0 = 0.2, seed = 1), 0.05),
                list("gravity2d", gravity2d_shell(300, 0.5, 1, seed = 1), 0.005))
  for (cs in cases) {
    long <- lr(cs[[1]], init = cs[[2]], dt = cs[[3]], steps = 160, record_every = 20,
               snapshots = cs[[3]] * 130)
    a <- lr(cs[[1]], init = cs[[2]], dt = cs[[3]], steps = 100, record_every = 20)
    b <- lr(init = a, dt = cs[[3]], steps = 60, record_every = 20, snapshots = cs[[3]] * 130)
    expect_identical(attr(b, "model"), cs[[1]])
    joined <- rbind(as.data.frame(a), as.data.frame(b)[-1, ])
    rownames(joined) <- NULL
    expect_identical(joined, as.data.frame(long))
    expect_identical(attr(b, "state"), attr(long, "state"))
    expect_identical(attr(b, "snapshots"), attr(long, "snapshots"))
  }
})

test_that("a snapshot is the state of a run that ends there", {
  g <- gravity2d_shell(200, 0.5, 1, seed = 5)
  x <- lr("gravity2d", init = g, dt = 0.01, steps = 80, snapshots = c(0.3, 0), record_every = 40)
  y <- lr("gravity2d", init = g, dt = 0.01, steps = 30, record_every = 30)
  s <- attr(x, "snapshots")
  expect_length(s, 2)
  expect_identical(attr(s[[1]], "time"), 0)
  expect_identical(structure(s[[1]], time = NULL, step = NULL),
                   data.frame(x = g$x, y = g$y, px = g$px, py = g$py))
  expect_identical(structure(s[[2]], time = NULL, step = NULL), attr(y, "state"))
})

test_that("the thread count does not change the result (bitwise)", {
  # fixed tiles of 512 particles and a fixed order of every sum (sizes above
  # the engine's thresholds for a team of threads: 2^16 HMF particles, 2^20
  # pair terms)
  cases <- list(list("hmf", hmf_waterbag(70000, 0.7, 0.6, seed = 1), 0.1, 20),
                list("ring", ring_uniform(1300, p0 = 0.3, seed = 1), 0.05, 10),
                list("gravity2d", gravity2d_shell(1100, 0.5, 1, seed = 1), 0.01, 10))
  for (cs in cases) for (prec in c("mixed", "double")) {
    one <- with_threads(1, lr(cs[[1]], init = cs[[2]], dt = cs[[3]], steps = cs[[4]],
                              record_every = 5, precision = prec))
    two <- with_threads(2, lr(cs[[1]], init = cs[[2]], dt = cs[[3]], steps = cs[[4]],
                              record_every = 5, precision = prec))
    expect_identical(as.data.frame(two), as.data.frame(one))
    expect_identical(attr(two, "state"), attr(one, "state"))
  }
})

test_that("an interrupt returns the records so far and the state to continue from", {
  skip_on_os("windows")
  # the CPU's vector object, made by a warm-up before the interrupt's clock
  # starts (a Ctrl-C inside a compile is R's interrupt, by design)
  withr::local_options(statphysgpu.sde_cpu_vector = TRUE)
  lr("ring", init = ring_uniform(3000, p0 = 0.3, seed = 1), dt = 0.01, steps = 2, record_every = 2)
  job <- interrupt_after(1)
  expect_warning(x <- lr("ring", init = ring_uniform(3000, p0 = 0.3, seed = 1), dt = 0.01,
                         steps = 1e6, record_every = 2),
                 "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  k <- attr(x, "steps_done")
  expect_true(attr(x, "interrupted"))
  expect_gt(k, 0)
  expect_lt(k, 1e6)
  expect_identical(nrow(x), as.integer(floor(k / 2) + 1))
  expect_false(anyNA(as.data.frame(x)))
  expect_identical(attr(x, "params")$step_end, k)
  y <- lr(init = x, dt = 0.01, steps = 2, record_every = 1)
  expect_identical(y$step[1], k)
  expect_equal(y$total, rep(x$total[nrow(x)], 3), tolerance = 1e-6)
})

test_that("bad input gets a clear error naming the argument", {
  w <- hmf_waterbag(10, 1, 0.7, seed = 1)
  bad <- list(
    list(list(model = "3d", init = w, dt = 0.1, steps = 1), "`model` must be one of"),
    list(list(model = "hmf", n = 1, dt = 0.1, steps = 1), "`n` must be"),
    list(list(model = "hmf", n = 10.5, dt = 0.1, steps = 1), "`n` must be"),
    list(list(model = "hmf", n = 10, dt = 0, steps = 1), "`dt` must be"),
    list(list(model = "hmf", n = 10, dt = 0.1, steps = 0), "`steps` must be"),
    list(list(model = "hmf", n = 10, dt = 0.1), "`steps` must be given"),
    list(list(model = "ring", n = 10, dt = 0.1, steps = 1, softening = -1), "`softening` must be"),
    list(list(model = "ring", n = 10, dt = 0.1, steps = 1, softening = 0), "`softening` must be"),
    list(list(model = "hmf", init = matrix(0, 10, 3), dt = 0.1, steps = 1),
         "`init` must be .* 2 columns \\(theta, p\\)"),
    list(list(model = "gravity2d", init = matrix(0, 10, 2), dt = 0.1, steps = 1),
         "`init` must be .* 4 columns \\(x, y, px, py\\)"),
    list(list(model = "hmf", init = cbind(c(NA, 1:9), 0), dt = 0.1, steps = 1),
         "not finite numbers"),
    list(list(model = "hmf", init = cbind(c(Inf, 1:9), 0), dt = 0.1, steps = 1),
         "not finite numbers"),
    list(list(model = "hmf", init = "x", dt = 0.1, steps = 1), "`init` must be"),
    list(list(model = "ring", init = w, dt = 0.1, steps = 1), "`init` is a hmf start"),
    list(list(model = "hmf", n = 20, init = w, dt = 0.1, steps = 1), "`init` has 10 rows"),
    list(list(init = w, dt = 0.1, steps = 10, snapshots = 5), "`snapshots` must be times"),
    list(list(init = w, dt = 0.1, steps = 10, record_every = 20), "`record_every` must be"),
    list(list(init = w, dt = 0.1, steps = 10, precision = "half"), "`precision` must be one of"),
    list(list(init = w, dt = 0.1, steps = 10, backend = "tpu"), "`backend` must be one of"),
    list(list(init = w, dt = 0.1, steps = 10, backend = "cpu", devices = 0),
         "`devices` applies to the GPU backend only"))
  for (b in bad) {
    expect_error(do.call(lrmd, c(b[[1]], progress = FALSE)), b[[2]], class = "statphysgpu_error")
  }
})

test_that("print, summary and plots work", {
  x <- lr("hmf", init = hmf_waterbag(500, 1, 0.69, seed = 1), dt = 0.1, steps = 100,
          snapshots = 5)
  expect_output(print(x), "<lrmd_run> 11 records, hmf, N = 500")
  s <- summary(x)
  # (the energy of the start in single-precision states: U to about 1e-7)
  expect_equal(s$M_equilibrium, hmf_caloric(0.69)$M, tolerance = 1e-5)
  expect_output(print(s), "M_equilibrium")
  pdf(NULL)
  on.exit(dev.off())
  for (w in c("order", "energy", "phase")) expect_identical(plot(x, w), x)
  expect_identical(plot(x, "phase", snapshot = 1), x)
  g <- lr("gravity2d", init = gravity2d_shell(100, 0.5, 1, seed = 1), dt = 0.01, steps = 20)
  expect_identical(plot(g), g)
  expect_true(all(c("virial_ratio", "r_half") %in% names(g)))
  skip_if_not_installed("ggplot2")
  for (w in c("order", "energy", "phase")) expect_s3_class(ggplot2::autoplot(x, w), "ggplot")
})

test_that("backend = \"auto\" takes the GPU only from lrmd_gpu_from() particles", {
  from <- statphysgpu:::lrmd_gpu_from
  expect_identical(c(from("hmf"), from("ring"), from("gravity2d")), c(1e5, 2000, 2000))
  # the particles of a launch: every model's systems side by side
  lp <- statphysgpu:::lrmd_launch_particles
  expect_identical(c(lp("hmf", 1000, 64), lp("hmf", 1000, 1), lp("ring", 1000, 64)),
                   c(64000, 1000, 64000))
  expect_identical(c(lp("hmf", 1e6, 1e3), lp("gravity2d", 1e5, 1e3), lp("ring", 2e6, 4)),
                   c(2^24, 2^20, 2e6))
  skip_if(isTRUE(sp_backends()$available[sp_backends()$backend == "gpu"]), "GPU present")
  x <- lrmd("ring", init = ring_uniform(3000, seed = 1), dt = 0.01, steps = 1, progress = FALSE)
  expect_identical(attr(x, "backend"), "cpu")
})

test_that("mixed precision refuses softenings its pair terms cannot resolve", {
  expect_error(lrmd("ring", n = 10, dt = 0.1, steps = 1, softening = 1e-5, backend = "cpu",
                    progress = FALSE),
               "`softening` = 1e-05 is below 1e-04, the least the ring model allows in mixed")
  expect_error(lrmd("gravity2d", n = 10, dt = 0.1, steps = 1, softening = 1e-20,
                    backend = "cpu", progress = FALSE), "below 1e-18")
  x <- lrmd("ring", n = 10, dt = 1e-4, steps = 1, softening = 1e-5, backend = "cpu",
            precision = "double", progress = FALSE)
  expect_true(all(is.finite(x$total)))
  expect_s3_class(lrmd("hmf", n = 10, dt = 0.1, steps = 1, softening = 1e-30, backend = "cpu",
                       progress = FALSE), "lrmd_run")
})

# ---- what a precision resolves, failures, memory, continuations, coarse steps ----

test_that("double precision refuses softenings its pair terms cannot resolve", {
  lrd <- function(...) lr(..., precision = "double", seed = 1)
  # gravity2d: the softening's square must be a normal double (>= 2.2e-308)
  # for a finite force of two particles at distance 0: at least 1e-153
  # (square 1e-306); ring: at least 1e-11 (below, the rounding of 1 - cos
  # in double, about 1e-16, is more than 1e-5 of the softening)
  expect_error(lrd("gravity2d", n = 100, dt = 0.01, steps = 10, softening = 1e-160),
               "`softening` = 1e-160 is below 1e-153, the least the gravity2d model allows in",
               class = "statphysgpu_error")
  expect_error(lrd("ring", n = 100, dt = 0.01, steps = 10, softening = 1e-16),
               "`softening` = 1e-16 is below 1e-11, the least the ring model allows in double",
               class = "statphysgpu_error")
  # at the bounds: two particles on top of each other give finite records
  # (dt below 1 / the fastest rate, 1 / softening, as at any softening)
  g <- data.frame(x = c(0, 0, 0.5, -0.5), y = c(0, 0, 0.3, -0.3), px = 0, py = 0)
  x <- lrd("gravity2d", init = g, dt = 1e-154, steps = 3, record_every = 1, softening = 1e-153)
  expect_true(all(is.finite(as.matrix(as.data.frame(x)))))
  # ring at 1e-11, with dt so small that the integrator's error is nil: each
  # self term's d = 1 - cos(0) + softening carries a relative rounding of
  # at most 2 x 1.1e-16 / 1e-11 = 2.2e-5, and the self terms dominate the
  # potential there, so the energy moves by less than 2.2e-5 (relative)
  x <- lrd("ring", init = ring_uniform(200, p0 = 0.3, seed = 1), dt = 1e-9, steps = 20,
           record_every = 1, softening = 1e-11)
  expect_true(all(is.finite(x$total)))
  expect_lt(max(abs(x$energy_error)), 2.2e-5)
})

test_that("a record that is not finite is an error naming the step and the quantity", {
  # a coordinate of 1e160 (finite) overflows the pair terms at step 0 in
  # double; in "mixed" the single-precision state overflows at once (its
  # first step names the particle)
  g <- data.frame(x = c(1e160, 0, 1, 2), y = 0, px = 0, py = 0)
  expect_error(lr("gravity2d", init = g, dt = 0.001, steps = 3, record_every = 1,
                  precision = "double"),
               "(potential energy|virial).* at step 0\\b", class = "statphysgpu_not_finite")
  expect_error(lr("gravity2d", init = g, dt = 0.001, steps = 3, record_every = 1),
               "the position of particle 1 became non-finite in step 1 ",
               class = "statphysgpu_not_finite")
  # momenta of 1e150: the angles overflow single precision within a few
  # steps (a record used to be dropped without a word)
  p <- c(1e150, -1e150, rep(0, 8))
  expect_error(suppressWarnings(lr("hmf", init = data.frame(theta = 0, p = p), dt = 0.01,
                                   steps = 3, record_every = 1)),
               "step [123]\\b", class = "statphysgpu_not_finite")
  # the R side's own check of the records: the first non-finite number, with
  # the step of the chain and its time (the engines check the state every
  # step, test-nonfinite.R)
  chk <- function(recs = list()) {
    statphysgpu:::lrmd_check_finite("hmf", recs, steps0 = 100,
                                    time_of = function(k) 0.1 * (100 + k), call = NULL)
  }
  recs <- list(list(k = c(0, 10, 20), rec = rbind(c(1, 1, NaN), c(0, Inf, 0), 0, 0)))
  expect_error(chk(recs), "the potential energy is not a finite number at step 110 \\(time 11\\)",
               class = "statphysgpu_not_finite")
  expect_true(chk(recs = list(list(k = 0, rec = matrix(1, 4, 1)))))
})

# available_memory() answering `bytes` inside the package, for this test
local_available_memory <- function(bytes, env = parent.frame()) {
  ns <- asNamespace("statphysgpu")
  old <- get("available_memory", envir = ns)
  unlockBinding("available_memory", ns)
  assign("available_memory", function(...) bytes, envir = ns)
  withr::defer({
    assign("available_memory", old, envir = ns)
    lockBinding("available_memory", ns)
  }, envir = env)
}

test_that("available_memory() reads MemAvailable and the address-space limit", {
  d <- withr::local_tempdir()
  mi <- file.path(d, "meminfo")
  lim <- file.path(d, "limits")
  st <- file.path(d, "status")
  writeLines(c("MemTotal:       16000000 kB", "MemAvailable:    8000000 kB"), mi)
  head <- "Limit                     Soft Limit           Hard Limit           Units     "
  as_line <- function(soft) {
    sprintf("Max address space         %-20s unlimited            bytes     ", soft)
  }
  writeLines(c(head, as_line("unlimited")), lim)
  writeLines(c("VmPeak:\t  500000 kB", "VmSize:\t  400000 kB"), st)
  am <- statphysgpu:::available_memory
  expect_identical(am(mi, lim, st), 8000000 * 1024)
  # ulimit -v 2097152 (KiB): the soft limit less what the process maps
  writeLines(c(head, as_line("2147483648")), lim)
  expect_identical(am(mi, lim, st), 2147483648 - 400000 * 1024)
  expect_identical(am(file.path(d, "none"), lim, st), 2147483648 - 400000 * 1024)
  expect_identical(am(file.path(d, "none"), file.path(d, "none"), st), Inf)
})

test_that("starts and runs that do not fit in memory are refused before allocating", {
  local_available_memory(1e8)
  # a start, when it is made: the memory of its drawn columns, 16 B a
  # particle (32 for gravity2d), so 1e7 particles (153 MiB) or 4e6 of
  # gravity2d (122 MiB) do not fit in 95 MiB
  starts <- list(hmf_waterbag = function(n) hmf_waterbag(n, 1, 0.69, seed = 1),
                 hmf_equilibrium = function(n) hmf_equilibrium(n, 0.4, seed = 1),
                 ring_uniform = function(n) ring_uniform(n, seed = 1),
                 gravity2d_shell = function(n) gravity2d_shell(n, 0.5, 1, seed = 1))
  for (f in names(starts)) {
    two_d <- f == "gravity2d_shell"
    expect_error(starts[[f]](if (two_d) 4e6 else 1e7),
                 paste0("`n` = ", if (two_d) "4,000,000" else "10,000,000", " particles would ",
                        "need about ", if (two_d) "122.1" else "152.6", " MiB of memory once ",
                        "drawn \\(", f, "\\(\\): ", if (two_d) 32 else 16, " B a particle\\), ",
                        "more than the 95.4 MiB"),
                 class = "statphysgpu_error")
    expect_s3_class(starts[[f]](2e6), "lrmd_init") # 31 or 61 MiB
  }
  expect_error(hmf_waterbag(2^31 - 1, 1, 0.69, seed = 1), "2,147,483,647 particles .* 32.0 GiB",
               class = "statphysgpu_error")
  # a run: 64 B a particle (the start lrmd() draws is drawn into the state
  # it returns), 24 a particle of a snapshot, 400 a record; the message
  # names lrmd()'s arguments
  msg <- tryCatch(lr("hmf", n = 2e6, dt = 0.1, steps = 1), error = conditionMessage)
  expect_match(msg, "about 122.1 MiB of memory \\(2,000,000 particles at 64 B, 0 snapshots")
  expect_match(msg, "use fewer particles \\(`n`\\) or `snapshots`, or a larger `record_every`")
  expect_false(grepl("first_replica", msg))
  w <- hmf_waterbag(2e5, 1, 0.69, seed = 1)
  expect_error(lr(init = w, dt = 0.1, steps = 20, snapshots = seq(0, 2, by = 0.1)),
               "200,000 particles at 64 B, 21 snapshots at 24 B a particle",
               class = "statphysgpu_error")
  expect_error(lr(init = hmf_waterbag(100, 1, 0.69, seed = 1), dt = 0.1, steps = 3e5,
                  record_every = 1), "300,002 records at 400 B", class = "statphysgpu_error")
  expect_s3_class(lr(init = w, dt = 0.1, steps = 2), "lrmd_run")
})

test_that("a modified run is refused as init, naming init and what is wrong", {
  a <- lr("hmf", init = hmf_waterbag(50, 1, 0.69, seed = 1), dt = 0.1, steps = 5)
  set <- function(name, value) { x <- a; attr(x, name) <- value; x }
  setp <- function(name, value) { x <- a; attr(x, "params")[[name]] <- value; x }
  sets <- function(f) { x <- a; attr(x, "state") <- f(attr(x, "state")); x }
  bad <- list(
    list(set("clock", NULL), "clock"), list(set("clock", list(t = 0, step = 9, dt = 0.1)), "clock"),
    list(set("e0", NULL), "e0"), list(set("e0", NaN), "e0"),
    list(set("params", NULL), "params"), list(setp("step_end", -1), "params"),
    list(setp("softening", "a"), "params"), list(setp("n", 49), "(params|state)"),
    list(set("model", "3d"), "model"), list(set("model", NULL), "model"),
    list(set("state", NULL), "state"),
    list(sets(function(s) { s$theta[3] <- NaN; s }), "state"),
    list(sets(function(s) s[1:40, ]), "state"),
    list(sets(function(s) { s$p <- as.character(s$p); s }), "state"),
    list(sets(function(s) { s$extra <- 1; s }), "state"),
    list(sets(function(s) as.matrix(s)), "state"))
  for (b in bad) {
    # refused by its seal, naming what changed; sealed again (as if made
    # so), by the checks of what the continuation reads
    expect_error(lr(init = b[[1]], dt = 0.1, steps = 5),
                 paste0("`init` was modified after it was run: its attribute `", b[[2]], "`"),
                 class = "statphysgpu_modified_result")
    expect_error(lr(init = reseal(b[[1]]), dt = 0.1, steps = 5),
                 paste0("`init` is an lrmd\\(\\) run whose attribute `", b[[2]], "`"),
                 class = "statphysgpu_error")
  }
  expect_error(lr("ring", init = a, dt = 0.1, steps = 5), "`init` is a hmf run, not one of model")
  w <- hmf_waterbag(50, 1, 0.69, seed = 1)
  attr(w, "model") <- c("hmf", "ring")
  expect_error(lr(init = w, dt = 0.1, steps = 5),
               "`init` is an initial condition whose attribute `model` is a vector of length 2",
               class = "statphysgpu_error")
  expect_s3_class(lr(init = a, dt = 0.1, steps = 5), "lrmd_run")
})

test_that("a continuation off the record grid keeps the records of one long run", {
  # 17 steps, then 23, with record_every = 5: the records of one run of 40
  # steps at 0, 5, ..., 40 (not 17, 22, ...), bit for bit, and its state and
  # snapshots; then 17 + 2 + 21
  cases <- list(list("hmf", hmf_waterbag(300, 1, 0.69, seed = 1), 0.1),
                list("ring", ring_uniform(200, p0 = 0.2, seed = 1), 0.05),
                list("gravity2d", gravity2d_shell(150, 0.5, 1, seed = 1), 0.005))
  for (cs in cases) {
    dt <- cs[[3]]
    long <- lr(cs[[1]], init = cs[[2]], dt = dt, steps = 40, record_every = 5,
               snapshots = dt * c(3, 17, 18, 20, 40))
    a <- lr(cs[[1]], init = cs[[2]], dt = dt, steps = 17, record_every = 5, snapshots = dt * 3)
    b <- lr(init = a, dt = dt, steps = 23, record_every = 5, snapshots = dt * c(17, 18, 20, 40))
    expect_identical(a$step, c(0, 5, 10, 15))
    expect_identical(b$step, c(20, 25, 30, 35, 40))
    joined <- rbind(as.data.frame(a), as.data.frame(b))
    rownames(joined) <- NULL
    expect_identical(joined, as.data.frame(long))
    expect_identical(attr(b, "state"), attr(long, "state"))
    expect_identical(c(attr(a, "snapshots"), attr(b, "snapshots")), attr(long, "snapshots"))
    b1 <- lr(init = a, dt = dt, steps = 2, record_every = 2) # the grid of its record_every
    expect_identical(b1$step, 18)
    b2 <- lr(init = b1, dt = dt, steps = 21, record_every = 5)
    expect_identical(as.data.frame(b2), as.data.frame(long)[5:9, ], ignore_attr = TRUE)
    expect_identical(attr(b2, "state"), attr(long, "state"))
  }
})

test_that("starts whose momenta overflow double precision are refused", {
  big <- .Machine$double.xmax
  expect_error(hmf_waterbag(100, 1, 1e308), "`U` = 1e\\+308 is too large.*at most 2.25e\\+305",
               class = "statphysgpu_error")
  expect_error(hmf_equilibrium(100, 1e305), "`T` = 1e\\+305 is too large",
               class = "statphysgpu_error")
  expect_error(ring_uniform(100, p0 = 1e154), "`p0` = 1e\\+154 is too large",
               class = "statphysgpu_error")
  # at the largest values allowed the squared momenta sum to a finite number
  # (below a quarter of the largest double)
  # (to rounding: the squares of the waterbag's momenta sum to 2 n U, the
  # bound, up to a relative 1e-15)
  expect_lt(sum(hmf_waterbag(100, 1, big / 800, seed = 1)$p^2), big / 4 * (1 + 1e-12))
  expect_lt(sum(hmf_equilibrium(100, big / (4 * 44.4 * 100), seed = 1)$p^2), big / 4)
  expect_lt(sum(ring_uniform(100, p0 = sqrt(big / 1600), seed = 1)$p^2), big / 4)
  expect_error(lr("hmf", init = data.frame(theta = 0, p = c(1e200, -1e200)), dt = 0.1, steps = 1),
               "`init` has momenta too large", class = "statphysgpu_error")
})

test_that("a coarse dt warns, with each model's fastest rate", {
  coarse <- function(...) {
    expect_warning(lr(..., steps = 1), "is coarse for the", class = "statphysgpu_coarse_dt")
  }
  fine <- function(...) expect_no_warning(lr(..., steps = 1))
  # HMF: max(1, max |p|), the waterbag's fastest particle
  w <- hmf_waterbag(200, 1, 0.69, seed = 1)
  r <- max(1, abs(w$p))
  coarse(init = w, dt = 1.01 / r)
  fine(init = w, dt = 0.99 / r)
  expect_warning(lr("hmf", n = 100, dt = 1e6, steps = 1, seed = 1),
                 class = "statphysgpu_step_warning")
  # ring at rest: 8^(-1/4) softening^(-3/4), 18.8 at softening 0.01
  r <- 8^(-1 / 4) * 0.01^(-3 / 4)
  coarse(init = ring_uniform(100, seed = 1), dt = 1.01 / r)
  fine(init = ring_uniform(100, seed = 1), dt = 0.99 / r)
  # ring in motion: max |p| / sqrt(2 softening) when larger
  rp <- ring_uniform(100, p0 = 5, seed = 1)
  r <- max(abs(rp$p)) / sqrt(0.02)
  coarse(init = rp, dt = 1.01 / r)
  fine(init = rp, dt = 0.99 / r)
  # gravity2d at rest: 1 / softening
  g <- gravity2d_shell(100, 0.5, 1, seed = 1)
  coarse(init = g, dt = 0.0101)
  fine(init = g, dt = 0.0099, softening = 0.01)
  coarse(init = g, dt = 0.0201, softening = 0.02)
})

# ---- replicas, sweeps, chunks (issue 23) ------------------------------------------

# the records of a result without the columns of its conditions
recs <- function(x, drop = c("condition", "U", "M0", "T", "p0", "r_in", "r_out", "softening")) {
  d <- as.data.frame(x)
  d[setdiff(names(d), drop)]
}

test_that("replica 1 is the one start; replica r draws from purpose 16, stream coordinate 2^40 + r - 1", {
  # the engine's draw, seen in a snapshot at time 0 of each system; purpose
  # 16's draws are those of the raw space from offset 16 x 2^58, stream
  # sp_stream_replica(coordinate, r - 1) = coordinate 2^40 + r - 1 (sp_streams.h)
  u <- function(stream, purpose) {
    (philox_uint32(10, seed = 7, stream = stream, offset = purpose * 2^58) + 0.5) / 2^32
  }
  x <- lr(init = ring_uniform(10, p0 = 0.3, seed = 7), dt = 0.01, steps = 2, snapshots = 0,
          replicas = 3)
  s <- lapply(attr(x, "snapshots"), `[[`, 1)
  expect_identical(s[[1]]$theta, pi * (2 * u(0, 11) - 1))
  expect_identical(structure(s[[1]], time = NULL, step = NULL),
                   plain(ring_uniform(10, p0 = 0.3, seed = 7)))
  for (r in 2:3) {
    expect_identical(s[[r]]$theta, pi * (2 * u(r - 1, 16) - 1))
    v <- 0.3 * (2 * u(2 * 2^40 + r - 1, 16) - 1)
    expect_equal(s[[r]]$p, v - mean(v), tolerance = 1e-14)
  }
  # the shell's second coordinate: stream 2^40 + r - 1
  g <- lr(init = gravity2d_shell(12, 0.5, 1, seed = 7), dt = 0.001, steps = 1, snapshots = 0,
          replicas = 2, first_replica = 5)
  expect_identical(attr(g, "systems")$replica, c(5, 6))
  for (k in 1:2) {
    s <- attr(g, "snapshots")[[k]][[1]]
    r <- 4 + k # global replica 5, 6: streams coordinate 2^40 + r - 1
    u0 <- (philox_uint32(12, seed = 7, stream = r - 1, offset = 16 * 2^58) + 0.5) / 2^32
    u1 <- (philox_uint32(12, seed = 7, stream = 2^40 + r - 1, offset = 16 * 2^58) + 0.5) / 2^32
    rad <- sqrt(0.25 + 0.75 * u0)
    x <- rad * cos(2 * pi * u1)
    y <- rad * sin(2 * pi * u1)
    # (shifted to a centre of mass at 0)
    expect_equal(s$x, x - mean(x), tolerance = 1e-13)
    expect_equal(s$y, y - mean(y), tolerance = 1e-13)
  }
})

test_that("replica 1 of an ensemble is the single run, and starts read in R give the same", {
  for (st in lazy_starts(600)) {
    one <- lr(init = st, dt = 0.01, steps = 20, record_every = 5)
    many <- lr(init = st, dt = 0.01, steps = 20, record_every = 5, replicas = 3)
    expect_identical(as.data.frame(many)[many$replica == 1, ], as.data.frame(one))
    expect_identical(attr(many, "state")[[1]], attr(one, "state"))
    expect_identical(attr(many, "systems")$replica, c(1, 2, 3))
    # distinct replicas: other starts
    expect_false(identical(attr(many, "state")[[1]], attr(many, "state")[[2]]))
    # the start read in R first (replica 1 its columns, the others drawn by
    # the engine from the recipe): the same numbers bit for bit
    read <- st
    invisible(sum(read[[1]]))
    expect_false(is_unread(read))
    again <- lr(init = read, dt = 0.01, steps = 20, record_every = 5, replicas = 3)
    expect_identical(as.data.frame(again), as.data.frame(many))
    expect_identical(attr(again, "state"), attr(many, "state"))
  }
})

test_that("a start given as numbers is the same for every replica (the dynamics is deterministic)", {
  d <- plain(hmf_waterbag(300, 1, 0.69, seed = 3))
  x <- lr("hmf", init = d, dt = 0.1, steps = 10, replicas = 2)
  r1 <- as.data.frame(x)[x$replica == 1, -1]
  r2 <- as.data.frame(x)[x$replica == 2, -1]
  rownames(r1) <- rownames(r2) <- NULL
  expect_identical(r1, r2)
  # a start changed after it was made is numbers too
  w <- hmf_waterbag(300, 1, 0.69, seed = 3)
  w$p <- w$p * 1
  y <- lr(init = w, dt = 0.1, steps = 10, replicas = 2)
  expect_identical(attr(y, "state")[[1]], attr(y, "state")[[2]])
})

test_that("chunks by first_replica combine with rbind() to the one call", {
  cases <- list(list(hmf_waterbag(400, 1, c(0.6, 0.69), seed = 1), 0.1, 0.01),
                list(ring_uniform(150, p0 = 0.2, seed = 1), 0.02, c(0.01, 0.05)),
                list(gravity2d_shell(100, 0.5, 1, seed = 1), 0.002, 0.01))
  for (cs in cases) {
    run <- function(first, m) {
      lr(init = cs[[1]], dt = cs[[2]], softening = cs[[3]], steps = 12, record_every = 4,
         snapshots = cs[[2]] * 4, replicas = m, first_replica = first)
    }
    whole <- run(1, 5)
    ch <- replica_chunks(5, chunks = 2)
    joined <- do.call(rbind, Map(run, ch$first_replica, ch$replicas))
    expect_identical(as.data.frame(joined), as.data.frame(whole))
    expect_identical(attr(joined, "state"), attr(whole, "state"))
    expect_identical(attr(joined, "snapshots"), attr(whole, "snapshots"))
    expect_identical(attr(joined, "systems"), attr(whole, "systems"))
    expect_identical(attr(joined, "e0"), attr(whole, "e0"))
    # in any order of the chunks; and single replicas
    expect_identical(as.data.frame(rbind(run(4, 2), run(1, 3))), as.data.frame(whole))
    expect_identical(as.data.frame(do.call(rbind, lapply(1:5, run, m = 1))),
                     as.data.frame(whole))
    expect_error(rbind(run(1, 2), run(2, 2)), "a replica is in more than one chunk",
                 class = "statphysgpu_error")
  }
  a <- lr(init = hmf_waterbag(100, 1, 0.69, seed = 1), dt = 0.1, steps = 4)
  b <- lr(init = hmf_waterbag(100, 1, 0.69, seed = 2), dt = 0.1, steps = 4, first_replica = 2)
  expect_error(rbind(a, b), "needs chunks of one run", class = "statphysgpu_error")
  # the default start: chunks need the shared seed
  expect_error(lr("hmf", n = 100, dt = 0.1, steps = 4, first_replica = 2),
               "`seed` is NULL but `first_replica` is 2", class = "statphysgpu_error")
  d1 <- lr("hmf", n = 100, dt = 0.1, steps = 4, seed = 3, replicas = 2)
  d2 <- rbind(lr("hmf", n = 100, dt = 0.1, steps = 4, seed = 3),
              lr("hmf", n = 100, dt = 0.1, steps = 4, seed = 3, first_replica = 2))
  expect_identical(as.data.frame(d2), as.data.frame(d1))
})

test_that("a sweep runs the grid of conditions x replicas, a column per swept parameter", {
  n <- 300
  x <- lr(init = hmf_waterbag(n, c(0.8, 1), c(0.6, 0.69), seed = 2), dt = 0.1, steps = 10,
          record_every = 5, replicas = 2)
  expect_identical(names(x)[1:4], c("condition", "M0", "U", "replica"))
  sy <- attr(x, "systems")
  expect_identical(sy$M0, rep(c(0.8, 1, 0.8, 1), each = 2))
  expect_identical(sy$U, rep(c(0.6, 0.6, 0.69, 0.69), each = 2))
  expect_identical(attr(x, "conditions")$condition, 1:4)
  # the waterbag's energy is U, to the single-precision rounding (2^-24) of
  # the sines and cosines the mixed precision's magnetisation is summed from
  expect_equal(sy$e0, sy$U, tolerance = 1e-7)
  # each condition is its own call (its replicas' streams do not depend on the grid)
  for (c in 1:4) {
    one <- lr(init = hmf_waterbag(n, sy$M0[2 * c], sy$U[2 * c], seed = 2), dt = 0.1,
              steps = 10, record_every = 5, replicas = 2)
    got <- recs(x)[x$condition == c, ]
    rownames(got) <- NULL
    expect_identical(got, as.data.frame(one))
  }
  # ring: the start's p0 x the softening; the softening goes last (varies slowest)
  r <- lr(init = ring_uniform(120, p0 = c(0, 0.3), seed = 1), softening = c(0.01, 0.1),
          dt = 0.02, steps = 6, record_every = 3)
  expect_identical(names(r)[1:4], c("condition", "p0", "softening", "replica"))
  expect_identical(attr(r, "conditions")$p0, c(0, 0.3, 0, 0.3))
  expect_identical(attr(r, "conditions")$softening, c(0.01, 0.01, 0.1, 0.1))
  one <- lr(init = ring_uniform(120, p0 = 0.3, seed = 1), softening = 0.1, dt = 0.02, steps = 6,
            record_every = 3)
  got <- recs(r)[r$condition == 4, ]
  rownames(got) <- NULL
  expect_identical(got, as.data.frame(one))
  expect_identical(attr(r, "state")[[4]], attr(one, "state"))
  # the other starts sweep too
  e <- hmf_equilibrium(50, c(0.2, 0.4), seed = 1)
  expect_s3_class(e, "lrmd_starts")
  expect_output(print(e), "<lrmd_starts> hmf starts of 50 particles, 2 conditions of T")
  expect_identical(unique(lr(init = e, dt = 0.1, steps = 2)$T), c(0.2, 0.4))
  g <- lr(init = gravity2d_shell(40, 0.5, c(1, 2), seed = 1), dt = 0.001, steps = 2)
  expect_identical(unique(g$r_out), c(1, 2))
  # the summary: one row per system
  s <- summary(x)
  expect_identical(nrow(s), 8L)
  expect_identical(names(s)[1:4], c("condition", "M0", "U", "replica"))
  expect_output(print(x), "8 systems \\(2 replicas x 4 conditions\\)")
})

test_that("a run of several systems continues every system exactly", {
  # 17 steps, then 23, with record_every = 5 (off the record grid): the records,
  # states and snapshots of one run of 40 steps, system by system
  st <- ring_uniform(100, p0 = c(0.1, 0.3), seed = 4)
  long <- lr(init = st, softening = 0.05, dt = 0.02, steps = 40, record_every = 5,
             snapshots = 0.02 * c(3, 30), replicas = 2)
  a <- lr(init = st, softening = 0.05, dt = 0.02, steps = 17, record_every = 5,
          snapshots = 0.02 * 3, replicas = 2)
  b <- lr(init = a, dt = 0.02, steps = 23, record_every = 5, snapshots = 0.02 * 30)
  expect_identical(attr(b, "systems")$replica, attr(long, "systems")$replica)
  joined <- rbind(as.data.frame(a), as.data.frame(b))
  joined <- joined[order(joined$condition, joined$replica, joined$step), ]
  rownames(joined) <- NULL
  expect_identical(joined, as.data.frame(long))
  expect_identical(attr(b, "state"), attr(long, "state"))
  expect_identical(attr(b, "e0"), attr(long, "e0"))
  expect_identical(Map(c, attr(a, "snapshots"), attr(b, "snapshots")), attr(long, "snapshots"))
  # a continuation with another dt (with a warning): every system's clock goes on
  expect_warning(c2 <- lr(init = a, dt = 0.01, steps = 4, record_every = 1),
                 "was run with dt = 0.02", class = "statphysgpu_continuation_dt")
  expect_equal(c2$time[c2$step == 21], rep(17 * 0.02 + 4 * 0.01, 4), tolerance = 1e-15)
  # what a continuation cannot change
  expect_error(lr(init = a, dt = 0.02, steps = 2, replicas = 3),
               "`replicas` and `first_replica` cannot be given", class = "statphysgpu_error")
  sw <- lr(init = ring_uniform(50, seed = 1), softening = c(0.01, 0.1), dt = 0.01, steps = 2)
  expect_error(lr(init = sw, dt = 0.01, steps = 2, softening = 0.2),
               "`softening` was swept", class = "statphysgpu_error")
  # a damaged run of several systems is refused
  # (refused by its seal; sealed again, by the checks of what is read)
  bad <- a
  attr(bad, "systems")$step_end[2] <- -1
  expect_error(lr(init = bad, dt = 0.02, steps = 2), "its attribute `systems`",
               class = "statphysgpu_modified_result")
  expect_error(lr(init = reseal(bad), dt = 0.02, steps = 2),
               "attribute `systems` is missing or damaged", class = "statphysgpu_error")
  bad <- a
  attr(bad, "state")[[3]] <- attr(bad, "state")[[3]][1:10, ]
  expect_error(lr(init = bad, dt = 0.02, steps = 2), "its attribute `state`",
               class = "statphysgpu_modified_result")
  expect_error(lr(init = reseal(bad), dt = 0.02, steps = 2),
               "attribute `state` is missing or damaged", class = "statphysgpu_error")
})

test_that("an interrupt stops an ensemble after the system in flight; the rest start on", {
  skip_on_os("windows")
  # the CPU's vector object, made by a warm-up before the interrupt's clock
  # starts (a Ctrl-C inside a compile is R's interrupt, by design)
  withr::local_options(statphysgpu.sde_cpu_vector = TRUE)
  st <- ring_uniform(3000, p0 = 0.3, seed = 1)
  lr(init = st, dt = 0.01, steps = 2, record_every = 2, replicas = 3)
  job <- interrupt_after(1)
  expect_warning(x <- lr(init = st, dt = 0.01, steps = 1e6, record_every = 2, replicas = 3),
                 "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  sy <- attr(x, "systems")
  expect_gt(sy$steps_done[1], 0)
  expect_identical(sy$steps_done[2:3], c(0, 0))
  expect_identical(unique(x$replica), 1)
  # the unstarted systems keep their starts (not drawn yet), and continue from them
  expect_true(is_unread(attr(x, "state")[[2]]))
  y <- lr(init = x, dt = 0.01, steps = 2, record_every = 1)
  expect_identical(y$step[y$replica == 1][1], sy$steps_done[1])
  fresh <- lr(init = st, dt = 0.01, steps = 2, record_every = 1, replicas = 3)
  expect_identical(as.data.frame(y)[y$replica > 1, ], as.data.frame(fresh)[fresh$replica > 1, ])
  expect_identical(attr(y, "state")[2:3], attr(fresh, "state")[2:3])
})

test_that("replicas, first_replica, precision and a softening sweep are checked", {
  w <- hmf_waterbag(10, 1, 0.7, seed = 1)
  bad <- list(
    list(list(init = w, dt = 0.1, steps = 1, replicas = 0), "`replicas` must be a single whole"),
    list(list(init = w, dt = 0.1, steps = 1, replicas = 1.5), "`replicas` must be"),
    list(list(init = w, dt = 0.1, steps = 1, first_replica = 0), "`first_replica` must be"),
    list(list(init = w, dt = 0.1, steps = 1, replicas = 2^40, first_replica = 2),
         "`first_replica \\+ replicas - 1` must not pass 2\\^40"),
    list(list(init = w, dt = 0.1, steps = 1, softening = c(0.1, 0.2)),
         "`softening` is not used by the HMF model: give one value, not 2"),
    list(list(model = "ring", n = 10, dt = 0.1, steps = 1, softening = c(0.1, -1)),
         "`softening` must be a numeric vector of positive finite numbers, not -1"),
    list(list(init = w, dt = 0.1, steps = 1, precision = "single"),
         "no precision \"single\": `precision` must be \"mixed\" or \"double\""))
  for (b in bad) {
    expect_error(do.call(lrmd, c(b[[1]], backend = "cpu", progress = FALSE)), b[[2]],
                 class = "statphysgpu_error")
  }
  expect_error(hmf_waterbag(10, 0.5, c(0.7, 0.1)), "`U` = 0.1 is below the minimum energy",
               class = "statphysgpu_error")
  expect_error(gravity2d_shell(10, c(0.5, 2), 1), "`r_out` \\(1\\) must be larger than `r_in` \\(2\\)",
               class = "statphysgpu_error")
})

# ---- HMF systems side by side (the GPU's batches; option statphysgpu.lrmd_batch) -----

# R's side of a batch, the systems side by side in one engine call on the
# CPU (statphysgpu.lrmd_batch = "cpu"), against one system a run (FALSE, the
# CPU's default): the same numbers bit for bit, and the calls it made
lr_batch <- function(batch, ...) {
  with_lrmd_jobs(withr::with_options(list(statphysgpu.lrmd_batch = batch), lr("hmf", ...)))
}
lr_expect_same_run <- function(x, ref) {
  expect_identical(as.data.frame(x), as.data.frame(ref))
  for (a in c("state", "snapshots", "systems", "conditions", "e0", "steps_done", "time_end")) {
    expect_identical(attr(x, a), attr(ref, a), label = a)
  }
}

test_that("a batch of systems side by side gives one system a run's results bit for bit", {
  w <- hmf_waterbag(300, M0 = 1, U = c(0.6, 0.69), seed = 1)
  args <- list(init = w, dt = 0.1, steps = 23, record_every = 10, replicas = 3,
               snapshots = c(1, 2.3))
  one <- do.call(lr_batch, c(FALSE, args))
  b <- do.call(lr_batch, c("cpu", args))
  expect_identical(attr(one, "jobs"), rep(1L, 6))
  expect_identical(attr(b, "jobs"), 6L) # 2 conditions x 3 replicas in one job
  lr_expect_same_run(b, one)
  # continued off the record grid (two parts, the second from the first's
  # states side by side)
  c1 <- lr_batch(FALSE, init = one, dt = 0.1, steps = 30, snapshots = 4)
  cb <- lr_batch("cpu", init = b, dt = 0.1, steps = 30, snapshots = 4)
  expect_identical(attr(cb, "jobs"), c(6L, 6L))
  lr_expect_same_run(cb, c1)
  # chunks of a batch combine to the one call
  ch <- rbind(lr_batch("cpu", init = w, dt = 0.1, steps = 23, record_every = 10, replicas = 1,
                       snapshots = c(1, 2.3)),
              lr_batch("cpu", init = w, dt = 0.1, steps = 23, record_every = 10, replicas = 2,
                       first_replica = 2, snapshots = c(1, 2.3)))
  lr_expect_same_run(ch, b)
  # a start given as numbers (every system its columns), and equilibrium
  # starts (the von Mises table of each condition's temperature)
  m <- as.matrix(attr(one, "state")[[2]])
  lr_expect_same_run(lr_batch("cpu", init = m, dt = 0.1, steps = 12, record_every = 4,
                              replicas = 2),
                     lr_batch(FALSE, init = m, dt = 0.1, steps = 12, record_every = 4,
                              replicas = 2))
  e <- hmf_equilibrium(200, T = c(0.3, 0.6), seed = 3)
  lr_expect_same_run(lr_batch("cpu", init = e, dt = 0.1, steps = 12, record_every = 4,
                              replicas = 2, precision = "double"),
                     lr_batch(FALSE, init = e, dt = 0.1, steps = 12, record_every = 4,
                              replicas = 2, precision = "double"))
})

test_that("batches hold the systems that share their clock, up to a number of particles", {
  sy <- data.frame(step_end = c(0, 0, 5, 0, 5), clock_t = 0, clock_step = 0, softening = 0.01)
  b <- statphysgpu:::lrmd_batches
  expect_identical(b(sy, 100, TRUE), list(c(1L, 2L, 4L), c(3L, 5L)))
  expect_identical(b(sy, 100, TRUE, max_particles = 250), list(1:2, 4L, c(3L, 5L)))
  expect_identical(b(sy, 100, TRUE, max_particles = 50), as.list(c(1L, 2L, 4L, 3L, 5L)))
  expect_identical(b(sy, 100, FALSE), as.list(1:5))
  sy$clock_t[2] <- 1 # another chain's clock
  expect_identical(b(sy, 100, TRUE), list(c(1L, 4L), 2L, c(3L, 5L)))
  # one GPU, or the CPU's path for tests; every model
  gpu <- list(backend = "gpu", devices = 0)
  expect_true(statphysgpu:::lrmd_batched("hmf", gpu, NULL))
  expect_true(statphysgpu:::lrmd_batched("ring", gpu, NULL))
  expect_true(statphysgpu:::lrmd_batched("gravity2d", gpu, NULL))
  expect_false(statphysgpu:::lrmd_batched("hmf", list(backend = "gpu", devices = 0:1), NULL))
  expect_false(statphysgpu:::lrmd_batched("hmf", list(backend = "cpu", devices = NULL), NULL))
  withr::local_options(statphysgpu.lrmd_batch = FALSE)
  expect_false(statphysgpu:::lrmd_batched("hmf", gpu, NULL))
  withr::local_options(statphysgpu.lrmd_batch = "yes")
  expect_error(statphysgpu:::lrmd_batched("hmf", gpu, NULL),
               "option statphysgpu.lrmd_batch must be TRUE, FALSE or \"cpu\"")
})

test_that("ring and gravity2d batches give one system a run's results bit for bit", {
  # R's side of a batch of the pair models (the CPU runs it one system after
  # another): replicas x a sweep of a start's parameter, records, snapshots,
  # a continuation off the record grid; a sweep of the softening makes a
  # batch a softening
  for (model in c("ring", "gravity2d")) {
    init <- if (model == "ring") ring_uniform(40, p0 = c(0.2, 0.4), seed = 1) else
      gravity2d_shell(40, r_in = c(0.3, 0.5), r_out = 1, seed = 1)
    run <- function(batch, ...) {
      with_lrmd_jobs(withr::with_options(list(statphysgpu.lrmd_batch = batch),
                                         lr(model, ...)))
    }
    args <- list(init = init, dt = 0.01, steps = 7, record_every = 3, replicas = 2,
                 snapshots = 0.05)
    one <- do.call(run, c(FALSE, args))
    b <- do.call(run, c("cpu", args))
    expect_identical(attr(one, "jobs"), rep(1L, 4))
    expect_identical(attr(b, "jobs"), 4L)
    lr_expect_same_run(b, one)
    lr_expect_same_run(run("cpu", init = b, dt = 0.01, steps = 4),
                       run(FALSE, init = one, dt = 0.01, steps = 4))
    s <- run("cpu", init = init, dt = 0.01, steps = 3, replicas = 2, softening = c(0.05, 0.1))
    expect_identical(attr(s, "jobs"), c(4L, 4L))
  }
})

test_that("a run interrupted one system a run continues in batches of the systems at one step", {
  skip_on_os("windows")
  st <- hmf_waterbag(3000, 1, 0.69, seed = 1)
  # the CPU's vector object, made by a warm-up before the interrupt's clock
  # starts (a Ctrl-C inside a compile is R's interrupt, by design)
  withr::local_options(statphysgpu.sde_cpu_vector = TRUE)
  lr(init = st, dt = 0.1, steps = 5, record_every = 5, replicas = 3)
  job <- interrupt_after(1)
  # (3e9 particle-steps a system: tens of seconds uninterrupted)
  expect_warning(x <- lr(init = st, dt = 0.1, steps = 1e6, record_every = 5, replicas = 3),
                 "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  sy <- attr(x, "systems")
  expect_identical(sy$steps_done[2:3], c(0, 0))
  y1 <- lr_batch(FALSE, init = x, dt = 0.1, steps = 7)
  yb <- lr_batch("cpu", init = x, dt = 0.1, steps = 7)
  # system 1 alone (two parts, when it stopped off the record grid), then
  # systems 2 and 3 side by side
  expect_identical(tail(attr(yb, "jobs"), 1), 2L)
  lr_expect_same_run(yb, y1)
})

test_that("a failure in a batch names the replica and condition of its system", {
  withr::local_options(statphysgpu.lrmd_batch = "cpu")
  # the second condition's start cannot be drawn (U below the angles' potential energy)
  expect_error(lr(init = hmf_waterbag(1000, 0.6, c(0.69, 0.3201), seed = 1), dt = 0.1, steps = 2,
                  replicas = 2),
               "^replica 1 of condition 2: `U` = 0.3201 is below the potential energy",
               class = "statphysgpu_start_error")
})
