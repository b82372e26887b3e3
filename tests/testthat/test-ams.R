# Rare escapes by adaptive multilevel splitting, on the CPU (escape_rate_ams()).

# escape_times() from `init`, whichever name its start argument has (`start`
# today, `init` after the vocabulary change); the first seven arguments by
# position.
brute_times <- function(n, g, V0, beta, theta, dt, t_max, init = "rest", seed = 1) {
  st <- if ("init" %in% names(formals(escape_times))) list(init = init) else list(start = init)
  do.call(escape_times, c(list(n, g, V0, beta, theta, dt, t_max, seed = seed,
                               backend = "cpu", precision = "double", progress = FALSE), st))
}

ams <- function(..., seed = 1) {
  escape_rate_ams(..., seed = seed, backend = "cpu", precision = "double", progress = FALSE)
}

# z of AMS against brute force, with both standard errors.
z_brute <- function(x, e) {
  m <- mean(e$value)
  se <- stats::sd(e$value) / sqrt(nrow(e))
  (x$mfpt - m) / sqrt(x$mfpt_se^2 + se^2)
}

test_that("overdamped (beta = 40): the AMS mean first-passage time is the brute-force mean", {
  g <- 0.2; V0 <- 10; beta <- 40
  theta <- barrier_height(g, V0) / 4 # Delta U / theta = 4
  x <- ams(g, V0, beta, theta, 0.01, particles = 100, replicas = 20, seed = 3)
  e <- brute_times(1000, g, V0, beta, theta, 0.01, 1e6, seed = 4)
  expect_true(all(e$escaped))
  expect_lt(abs(z_brute(x, e)), 4) # |z| < 4 with both errors
  # the errors are errors of about the right size: brute force 1000 paths
  # (~3%), AMS 20 x 100 particles at p ~ 0.007 (a few per cent)
  expect_lt(x$mfpt_se / x$mfpt, 0.1)
  expect_equal(x$rate, 1 / x$mfpt)
})

test_that("moderately damped (beta = 1): AMS agrees with brute force from rest and thermal starts", {
  # velocities on Sigma matter here: they come from the dynamics
  # (Delta U / theta = 7 from rest, 5 from a thermal start)
  g <- 0.2; V0 <- 1; beta <- 1
  for (init in c("rest", "thermal")) {
    theta <- barrier_height(g, V0) / if (init == "rest") 7 else 5
    x <- ams(g, V0, beta, theta, 0.05, particles = 200, replicas = 24, init = init, seed = 5)
    e <- brute_times(1000, g, V0, beta, theta, 0.05, 1e7, init = init, seed = 6)
    expect_true(all(e$escaped))
    expect_lt(abs(z_brute(x, e)), 4)
    expect_identical(attr(x, "init"), init)
  }
})

test_that("p agrees with the fraction of the long trajectory's excursions that reach B", {
  # A high in the well (p ~ 0.1): the long trajectory's own excursions, a
  # direct Monte Carlo estimate of the same p, are many enough to compare
  g <- 0.2; V0 <- 1; beta <- 1
  theta <- barrier_height(g, V0) / 3
  x <- ams(g, V0, beta, theta, 0.05, particles = 400, replicas = 20, phi_A = 1.3, seed = 7)
  t <- attr(x, "replicas_table")
  s <- sum(t$n_lt_react)
  f <- sum(t$n_cycle)
  pd <- s / (s + f)
  # binomial error of the direct estimate (excursions of one trajectory are
  # nearly independent: it returns to A in between), jackknife of AMS
  se <- sqrt(pd * (1 - pd) / (s + f))
  expect_gt(s, 400)
  expect_lt(abs(x$p - pd) / sqrt(se^2 + x$p_se^2), 4)
})

test_that("the mean first-passage time does not depend on phi_A, k or the score beyond its error", {
  g <- 0.2; V0 <- 1; beta <- 1
  theta <- barrier_height(g, V0) / 5
  a <- ams(g, V0, beta, theta, 0.05, particles = 100, replicas = 20, seed = 8)
  b <- ams(g, V0, beta, theta, 0.05, particles = 100, replicas = 20, seed = 9, phi_A = 0.5)
  c <- ams(g, V0, beta, theta, 0.05, particles = 100, replicas = 20, seed = 10, k = 10)
  d <- ams(g, V0, beta, theta, 0.05, particles = 100, replicas = 20, seed = 17,
           score = "energy")
  expect_identical(attr(d, "score"), "energy")
  for (o in list(b, c, d)) {
    expect_lt(abs(a$mfpt - o$mfpt) / sqrt(a$mfpt_se^2 + o$mfpt_se^2), 4)
  }
  # p is the probability from Sigma, so it does depend on A: lower A, smaller p
  expect_lt(b$p, a$p)
  # A is where it was asked to be; the default is theta above the bottom
  expect_equal(attr(b, "phi_A"), asin(g) + 0.5)
  pa <- attr(a, "phi_A")
  U <- function(p) -V0 * (cos(p) + g * p)
  expect_equal(U(pa) - U(asin(g)), theta, tolerance = 1e-8)
})

test_that("single precision agrees with double within the errors", {
  g <- 0.2; V0 <- 10; beta <- 40
  theta <- barrier_height(g, V0) / 4
  d <- ams(g, V0, beta, theta, 0.01, particles = 100, replicas = 16, seed = 11)
  s <- escape_rate_ams(g, V0, beta, theta, 0.01, particles = 100, replicas = 16, seed = 12,
                       backend = "cpu", precision = "single", progress = FALSE)
  expect_identical(attr(s, "precision"), "single")
  expect_lt(abs(d$mfpt - s$mfpt) / sqrt(d$mfpt_se^2 + s$mfpt_se^2), 4)
})

test_that("k = 1 in single precision, ties killed together: every replay reaches its level", {
  # the case that failed on the GPU (issue 25: a replay that rounded a step
  # differently from its first run missed its level), overdamped, at a
  # smaller barrier; a replay that misses is an error, so finishing is the
  # check, and the levels that killed more than one particle (ties) exist
  run <- function(first, n) {
    escape_rate_ams(0.2, 1, 40, barrier_height(0.2, 1) / 8, 0.01, particles = 100,
                    replicas = n, first_replica = first, k = 1, seed = 4, backend = "cpu",
                    precision = "single", progress = FALSE)
  }
  x <- run(1, 4)
  t <- attr(x, "replicas_table")
  expect_true(all(t$status == "done"))
  expect_gt(sum(t$branches), sum(t$iterations))
  # a replica's levels depend on nothing but its own numbers
  u <- t[3:4, ]
  rownames(u) <- NULL
  expect_identical(attr(run(3, 2), "replicas_table"), u)
})

test_that("a grid of conditions: one row each, with its parameters; rows are independent", {
  x <- ams(gamma = c(0.3, 0.4), V0 = 1, beta = 1, theta = c(0.25, 0.3), dt = 0.05,
           particles = 30, replicas = 3, seed = 13)
  df <- as.data.frame(x)
  expect_s3_class(df, "data.frame")
  expect_false(inherits(df, "escape_rate_ams"))
  expect_identical(nrow(df), 4L)
  expect_true(all(c("gamma", "V0", "beta", "theta", "p", "p_se", "mfpt", "mfpt_se", "rate",
                    "rate_se") %in% names(df)))
  expect_equal(df$gamma, c(0.3, 0.4, 0.3, 0.4))
  expect_equal(df$theta, c(0.25, 0.25, 0.3, 0.3))
  expect_true(all(df$p > 0 & df$p < 1))
  # condition 4 alone is the same numbers as in the grid (its stream is its
  # condition number's): compare the replica tables
  t <- attr(x, "replicas_table")
  expect_identical(nrow(t), 12L)
  expect_true(all(t$status == "done"))
  # hotter: faster
  expect_lt(df$mfpt[3], df$mfpt[1])
})

test_that("print, summary and the replica table", {
  x <- ams(0.3, 1, 1, 0.3, 0.05, particles = 30, replicas = 4, seed = 14)
  expect_output(print(x), "AMS with 30 particles")
  s <- summary(x)
  expect_s3_class(s, "summary.escape_rate_ams")
  expect_true(all(c("t_loop", "t_react", "levels", "rel_var", "rel_var_ideal") %in% names(s)))
  expect_output(print(s), "jackknife")
  t <- attr(x, "replicas_table")
  expect_identical(t$replica, as.double(1:4))
  # the decomposition, by hand from the replica table
  P <- mean(t$p)
  tau <- sum(t$t_start) / sum(t$n_start) + (1 / P - 1) * sum(t$t_cycle) / sum(t$n_cycle) +
    mean(t$p * t$react) / P
  expect_equal(x$mfpt, tau)
  # a replica that collected N exits ran its long trajectory until then
  expect_true(all(t$n_cycle + t$n_lt_react == 30 - 1))
})

engine_contract_tests(list(
  name = "escape_rate_ams",
  n = 6,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    do.call(escape_rate_ams, modifyList(list(
      gamma = c(0.3, 0.4), V0 = 1, beta = 1, theta = 0.3, dt = 0.05, particles = 20,
      replicas = n, first_replica = first, seed = seed, backend = backend,
      progress = FALSE), list(...)))
  },
  key = function(x) list(as.data.frame(x), attr(x, "replicas_table")),
  bad = list(
    list(args = list(n = 0), error = "`replicas` must be a single whole number"),
    list(args = list(n = 2, first = 0), error = "`first_replica` must be"),
    list(args = list(n = 2, particles = 1), error = "`particles` must be a single whole number"),
    list(args = list(n = 2, k = 20), error = "`k` \\(20\\) must be smaller than `particles`"),
    list(args = list(n = 2, k = 0), error = "`k` must be a single whole number"),
    list(args = list(n = 2, score = function(phi, v) phi), error = "`score` must be NULL"),
    list(args = list(n = 2, score = "momentum"), error = "`score` must be NULL"),
    list(args = list(n = 2, phi_A = 3), error = "`phi_A` \\(3\\) must lie below the saddle"),
    list(args = list(n = 2, phi_A = -1), error = "`phi_A` must be"),
    list(args = list(n = 2, dt = -0.1), error = "`dt` must be"),
    list(args = list(n = 2, dt = 5), error = "unstable"),
    list(args = list(n = 2, init = "hot"), error = "`init` must be one of"),
    list(args = list(n = 2, threshold = "far"), error = "`threshold` must be"),
    list(args = list(n = 2, gamma = 1), error = "`gamma` must be"),
    list(args = list(n = 2, seed = NULL, first = 3), error = "`seed` is NULL"),
    list(args = list(n = 2, precision = "mixed"), error = "no precision \"mixed\""),
    list(args = list(n = 2, backend = "tpu"), error = "`backend` must be one of")),
  long = function(backend) {
    # several seconds on either backend: a high barrier, many replicas (on
    # the CPU about 0.1 s a replica on one thread, so 64 replicas a thread,
    # however many threads; on the GPU one round a level, a few ms each,
    # and some 12000 levels with k = 1)
    escape_rate_ams(0.2, 1, 1, barrier_height(0.2, 1) / 25, 0.05, particles = 500,
                    replicas = if (backend == "gpu") 4096 else 64 * max(2, sp_threads()),
                    seed = 1, backend = backend, progress = FALSE)
  },
  # the long call's kernel compiled and loaded before the interrupt's clock
  # starts (a Ctrl-C during the compilation interrupts R itself)
  warm = function(backend) {
    escape_rate_ams(0.2, 1, 1, 0.3, 0.05, particles = 10, replicas = 1, seed = 1,
                    backend = backend, progress = FALSE)
  },
  partial = function(x, backend) {
    expect_true(attr(x, "interrupted"))
    t <- attr(x, "replicas_table")
    # the finished replicas are kept, the others listed to rerun
    expect_false(any(t$status == "unfinished"))
    expect_gt(sum(attr(x, "rerun")$replicas), 0)
    expect_identical(x$replicas, nrow(t))
  }))

test_that("rbind() refuses chunks of different estimates and overlapping chunks", {
  f <- function(first, n, seed = 2, k = 1) {
    escape_rate_ams(0.3, 1, 1, 0.3, 0.05, particles = 20, replicas = n, k = k,
                    first_replica = first, seed = seed, backend = "cpu", progress = FALSE)
  }
  a <- f(1, 2)
  expect_error(rbind(a, f(3, 2, seed = 3)), "chunks of one estimate")
  expect_error(rbind(a, f(3, 2, k = 2)), "chunks of one estimate")
  expect_error(rbind(a, f(2, 2)), "overlap")
  w <- rbind(f(3, 2), a)
  expect_identical(attr(w, "replicas_table")$replica, as.double(1:4))
  expect_identical(as.data.frame(w), as.data.frame(f(1, 4)))
})

test_that("plot() draws AMS, the matching theory and brute force, and returns the points", {
  x <- ams(0.5, 1, 10, c(0.07, 0.1), dt = 0.02, particles = 30, replicas = 3, seed = 15)
  e <- brute_times(100, 0.5, 1, 10, 0.1, 0.02, 1e7, seed = 16)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  p <- plot(x, brute = e)
  expect_identical(p$source, c("AMS", "AMS", "brute force"))
  expect_equal(p$barrier, barrier_height(0.5, 1) / c(0.07, 0.1, 0.1))
  expect_equal(p$mfpt[3], mean(e$value))
  # a rate theory on saddle crossings compares unlike things
  expect_warning(plot(x, theory = "kramers"), class = "statphysgpu_theory_mismatch")
  expect_error(plot(x, brute = data.frame(theta = 1)), "`brute` must be")
  expect_silent(plot(x, theory = "none"))
})

test_that("the Milne factor reproduces the shifts of REFERENCES.md section 2", {
  # gamma = 0.2, V0 = 1, Delta U / theta = 3: +3.7% at beta = 20, +1.8% at 40
  f <- statphysgpu:::ams_milne_factor(0.2, 1, c(20, 40), barrier_height(0.2, 1) / 3)
  expect_equal(f - 1, c(0.037, 0.018), tolerance = 0.05)
})
