# kuramoto() on the declared many-body engine (issue 50: option
# statphysgpu.kuramoto_engine = "declared", R/kuramoto-declared.R) and the
# engine's histograms of a state (sde_run(hist = )), on the CPU.  The
# declared models are compiled once a session (about a second each; five
# here); sizes are small, the tolerances derived with each test.

skip_on_cran()

kd <- function(...) {
  withr::local_options(statphysgpu.kuramoto_engine = "declared")
  kuramoto(..., backend = "cpu", progress = FALSE)
}
kb <- function(...) {
  withr::local_options(statphysgpu.kuramoto_engine = "builtin")
  kuramoto(..., backend = "cpu", progress = FALSE)
}

# the bins of base R's hist() of angles x on [0, 2 pi): counts of `bins`
hist_counts <- function(x, bins) {
  as.double(graphics::hist(x %% (2 * pi), breaks = seq(0, 2 * pi, length.out = bins + 1),
                           right = FALSE, plot = FALSE)$counts)
}

test_that("sde_run(hist = ): each record's counts are base R's hist() of the recorded states", {
  skip_if_no_cc()
  for (per in c(TRUE, FALSE)) { # kept in [-pi, pi] (single), unreduced angles (double)
    m <- statphysgpu:::kuramoto_declared_model("mean_field", per, FALSE)
    x <- sde_run(m, 3, n = 37, init = list(x = ~ runif(-pi, pi)), dt = 0.05, t_max = 2,
                 params = list(K = 1, omega = 1.3, theta = 0.8), output = "trajectories",
                 keep = 3, record_every = 8, seed = 4, backend = "cpu",
                 precision = if (per) "single" else "double", hist = list(state = "x", bins = 12))
    h <- attr(x, "hist")
    tt <- sort(unique(x$time))
    expect_identical(dim(h), c(12L, length(tt), 3L))
    if (!per) expect_true(any(abs(x$x) > 2 * pi)) # (the angles did wind: modulo tested)
    for (s in 1:3) for (j in seq_along(tt)) {
      v <- x$x[x$replica == s & x$time == tt[j]]
      expect_identical(h[, j, s], hist_counts(v, 12), label = sprintf("system %d, record %d", s, j))
    }
  }
  # with records only (no state kept), and `state` found as the periodic one
  m <- statphysgpu:::kuramoto_declared_model("mean_field", TRUE, FALSE)
  r <- sde_run(m, 2, n = 37, init = list(x = ~ runif(-pi, pi)), dt = 0.05, t_max = 1,
               output = "records", record_every = 5, seed = 4, backend = "cpu",
               hist = list(bins = 7))
  expect_identical(dim(attr(r, "hist")), c(7L, 5L, 2L))
  expect_true(all(colSums(attr(r, "hist")) == 37))
})

test_that("sde_run(hist = ) is checked: names the argument and the fix", {
  m <- statphysgpu:::kuramoto_declared_model("mean_field", FALSE, FALSE)
  go <- function(...) sde_run(m, 2, n = 8, init = list(x = 0), dt = 0.1, t_max = 1,
                              backend = "cpu", ...)
  expect_error(go(hist = list(bins = 4)), "`hist\\$state` must be given", class = "statphysgpu_error")
  expect_error(go(hist = list(state = "y", bins = 4)), "`hist\\$state` must be the name",
               class = "statphysgpu_error")
  expect_error(go(hist = list(state = "x", bins = 0)), "hist\\$bins", class = "statphysgpu_error")
  expect_error(go(hist = list(state = "x")), "`hist\\$bins`.* must be given",
               class = "statphysgpu_error")
  expect_error(go(hist = 4), "`hist` must be NULL or list", class = "statphysgpu_error")
  expect_error(go(hist = list(state = "x", bins = 4), output = "moments"),
               "not output = \"moments\"", class = "statphysgpu_error")
  ou <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), name = "ou-hist")
  expect_error(sde_run(ou, 2, init = list(x = 0), dt = 0.1, t_max = 1, output = "trajectories",
                       backend = "cpu", hist = list(state = "x", bins = 4)),
               "`hist` is for systems of many elements", class = "statphysgpu_error")
})

test_that("the GPU's histogram kernel compiles with NVRTC in both modes", {
  skip_if_no_nvrtc()
  local_kernel_cache()
  m <- statphysgpu:::kuramoto_declared_model("mean_field", TRUE, FALSE)
  for (n in c(100, 5000)) { # mode A (a system a block) and B
    plan <- statphysgpu:::sde_mb_gpu_plan(m, n, "single", "euler")
    ptx <- statphysgpu:::sde_nvrtc_image(m, "compute_90", "single", "euler", cubin = FALSE,
                                         source = "mb.cu", defines = plan$defines)
    expect_match(rawToChar(ptx), ".entry sp_mb_hist_kernel", fixed = TRUE)
  }
})

test_that("declared and built-in: the same result shape, and without noise the same phases (double)", {
  skip_if_no_cc()
  skip_if_not_installed("Matrix")
  n <- 24
  th0 <- withr::with_seed(1, matrix(runif(n * 2, -pi, pi), n, 2))
  A <- withr::with_seed(2, matrix(rbinom(n * n, 1, 0.4) * runif(n * n, 0.5, 1.5), n, n))
  # one beta or two (a sweep of it), each coupling
  cases <- list(
    list(coupling = "mean_field", frequencies = kuramoto_lorentz(0.3), beta = 2.5),
    list(coupling = "mean_field", frequencies = 0.3, beta = c(1, 2.5)),
    list(coupling = "pairs", frequencies = seq(-0.5, 0.5, length.out = n), beta = 2.5),
    list(coupling = "matrix", A = A, frequencies = kuramoto_normal(0.4), beta = c(1, 2.5)),
    list(coupling = "matrix", A = Matrix::Matrix(A, sparse = TRUE), frequencies = 0.2, beta = 0.7))
  for (cs in cases) for (meth in c("srk2", "euler")) {
    args <- c(list(n = n, K = c(0.5, 2), dt = 0.02, steps = 30,
                   record_every = 10, replicas = 2, init = th0, seed = 3, precision = "double",
                   bins = 6, method = meth), cs)
    a <- do.call(kb, args)
    b <- do.call(kd, args)
    lab <- paste(cs$coupling, class(cs$A)[1], meth, length(cs$beta), "beta")
    # the shape: classes, columns, attributes (their names, the grid, the
    # systems, the parameters) as the built-in's
    expect_identical(class(b), class(a))
    expect_identical(names(attributes(b)), names(attributes(a)), label = lab)
    expect_identical(lapply(b, class), lapply(a, class))
    for (at in c("systems", "conditions", "params", "dt", "init", "replicas", "first_replica",
                 "steps_done", "clock", "seed_hex", "backend", "precision", "interrupted")) {
      expect_identical(attr(b, at), attr(a, at), label = paste(lab, at))
    }
    expect_identical(dim(attr(b, "hist")), dim(attr(a, "hist")))
    expect_identical(as.data.frame(b)[c("condition", "K", "beta", "theta", "replica", "step", "time")],
                     as.data.frame(a)[c("condition", "K", "beta", "theta", "replica", "step", "time")])
    # theta = 0: no noise, the same ODE from the same start; the sums are
    # added in another order (differences of a few 2^-52, 30 steps of a
    # coupling of Lyapunov factor exp(K t) < 4): 1e-12.  The histograms:
    # the same bins unless a phase lies within rounding of an edge.
    expect_equal(attr(b, "phases"), attr(a, "phases"), tolerance = 1e-12, label = lab)
    expect_equal(b$r, a$r, tolerance = 1e-12, label = lab)
    expect_equal(b$psi, a$psi, tolerance = 1e-12, label = lab)
    expect_identical(attr(b, "hist"), attr(a, "hist"), label = lab)
  }
  # summary(), print() and plot() work on it as on the built-in's
  expect_s3_class(summary(b), class(summary(a))[1])
  expect_output(print(b), "kuramoto_run")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_no_error(plot(b))
})

test_that("single precision: the phases kept in [-pi, pi], the built-in's ODE to float rounding", {
  skip_if_no_cc()
  n <- 40
  th0 <- withr::with_seed(4, runif(n, -pi, pi))
  args <- list(n = n, K = 1.5, frequencies = 2, dt = 0.05, steps = 60, record_every = 20,
               init = th0, seed = 1, precision = "single")
  a <- do.call(kb, args)
  b <- do.call(kd, args)
  expect_true(all(abs(attr(b, "phases")) <= pi + 1e-6))
  # 60 steps turn the phases by 6 rad: both wrapped; float rounding (6e-8 a
  # step, grown by exp(K t) < 100): 1e-4
  d <- attr(b, "phases") - attr(a, "phases")
  expect_lt(max(abs(d - 2 * pi * round(d / (2 * pi)))), 1e-4)
  expect_lt(max(abs(b$r - a$r)), 1e-4)
})

test_that("with noise: the built-in's laws (phase diffusion; the order parameter, z-tests)", {
  skip_if_no_cc()
  # K = 0, identical oscillators: x(t) - x(0) ~ N(0, 2 theta t / beta) with
  # theta = 0.6, beta = 1.5, t = 2: variance 1.6.  n = 100 oscillators x 4
  # systems = 400 independent phases: the sample variance has relative
  # standard error sqrt(2 / 399) = 0.071; accepted within 4 of them.
  th0 <- rep(0, 100)
  for (meth in c("srk2", "euler")) {
    x <- kd(100, K = 0, beta = 1.5, theta = 0.6, dt = 0.02, steps = 100, record_every = 100,
            replicas = 4, init = th0, seed = 7, precision = "double", method = meth)
    v <- mean(attr(x, "phases")^2)
    expect_lt(abs(v / 1.6 - 1), 4 * sqrt(2 / 399))
  }
  # K = 3, theta = 1 (above K_c = 2): r at t = 1, 2, 4 over 40 systems of
  # n = 50 of each engine (independent streams); two-sample z of the means
  # with the systems' standard deviations: |z| < 4 at every record
  args <- list(n = 50, K = 3, theta = 1, dt = 0.02, steps = 200, record_every = 50,
               replicas = 40, seed = 11, precision = "single")
  a <- do.call(kb, args)
  b <- do.call(kd, args)
  for (st in c(50, 100, 200)) {
    ra <- a$r[a$step == st]
    rb <- b$r[b$step == st]
    z <- (mean(rb) - mean(ra)) / sqrt(var(ra) / length(ra) + var(rb) / length(rb))
    expect_lt(abs(z), 4, label = sprintf("z at step %d", st))
  }
})

test_that("hist: the final record's counts are those of the final phases, and sum to n", {
  skip_if_no_cc()
  x <- kd(30, K = c(1, 4), theta = 0.5, dt = 0.05, steps = 40, record_every = 20, replicas = 2,
          seed = 2, precision = "double", bins = 9)
  h <- attr(x, "hist")
  expect_identical(dim(h), c(9L, 3L, 4L))
  expect_true(all(colSums(h) == 30))
  for (s in 1:4) expect_identical(h[, 3, s], hist_counts(attr(x, "phases")[, s], 9))
})

test_that("a continuation is one long run: phases and records (on and off the record grid)", {
  skip_if_no_cc()
  args <- list(n = 20, K = c(1, 3), theta = 0.4, dt = 0.05, record_every = 10, replicas = 2,
               seed = 6, bins = 5)
  for (prec in c("single", "double")) {
    whole <- do.call(kd, c(args, list(steps = 45, precision = prec)))
    for (first in c(20, 25)) { # on the grid; off it (two engine calls)
      a <- do.call(kd, c(args, list(steps = first, precision = prec)))
      b <- kd(init = a, steps = 45 - first)
      expect_identical(attr(b, "phases"), attr(whole, "phases"))
      w <- as.data.frame(whole)[whole$step > first, ]
      rownames(w) <- NULL
      expect_identical(as.data.frame(b), w)
      expect_identical(attr(b, "hist"), attr(whole, "hist")[, unique(whole$step) > first, ,
                                                            drop = FALSE])
      expect_identical(attr(b, "clock"), attr(whole, "clock"))
      expect_identical(attr(b, "init"), "continued")
    }
  }
})

test_that("chunks of replicas combine into the one call (rbind)", {
  skip_if_no_cc()
  args <- list(n = 16, K = 2, theta = 0.3, dt = 0.05, steps = 20, record_every = 10, seed = 8,
               precision = "double")
  one <- do.call(kd, c(args, replicas = 4))
  parts <- rbind(do.call(kd, c(args, replicas = 2)),
                 do.call(kd, c(args, replicas = 2, first_replica = 3)))
  expect_identical(attr(parts, "phases"), attr(one, "phases"))
  expect_identical(as.data.frame(parts)$r, as.data.frame(one)$r)
})

test_that("errors are the built-in's: bad input, and phases that overflow", {
  skip_if_no_cc()
  expect_error(kd(n = 10, K = 1, dt = 0.1, steps = 5, method = "rk4"), "`method` must be one of",
               class = "statphysgpu_error")
  expect_error(kd(n = 10, K = 1, dt = 0.1, steps = 5, coupling = "matrix"),
               "needs the coupling matrix `A`", class = "statphysgpu_error")
  expect_error(kd(n = 10, K = 1, dt = 0.1, steps = 5, init = c(1:9, -Inf)), "`init` must be",
               class = "statphysgpu_error")
  msg <- paste0("^the phases of replica 1 of condition 2 \\(K = 1e\\+300\\) became non-finite ",
                "at step 1 \\(t = 1e\\+10\\); use a smaller `dt`")
  expect_error(suppressWarnings(kd(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5,
                                   precision = "double", seed = 1, method = "euler")),
               msg, class = "statphysgpu_not_finite")
  expect_error(kd(10, K = 1, dt = 0.1, steps = 5, seed = 1),
               NA) # (the option's other value runs)
  withr::local_options(statphysgpu.kuramoto_engine = "hand")
  expect_error(kuramoto(10, K = 1, dt = 0.1, steps = 5, backend = "cpu"),
               "option statphysgpu.kuramoto_engine must be", class = "statphysgpu_error")
})
