# kuramoto() on the declared many-body engine (issue 50: its one engine
# since the built-in one was deleted; R/kuramoto-declared.R) against
# base-R integrations of the same equations, and the engine's histograms of
# a state (sde_run(hist = )), on the CPU.  The declared models are compiled
# once a session (about a second each); sizes are small, the tolerances
# derived with each test.

skip_on_cran()

kd <- function(...) kuramoto(..., backend = "cpu", progress = FALSE)

# The reference: kuramoto()'s SDE integrated in base R, system by system,
#   x' = x + F(x) dt + sqrt(2 theta dt / beta) z                       (Euler)
#   x~ = x + F(x) dt + s z, x' = x + (F(x) + F(x~)) dt / 2 + s z         (SRK2)
# with F(x)_i = (omega_i + (K / n) sum_j A_ij sin(x_j - x_i)) / beta (A = 1:
# all to all) and z from `noise(k)` (an n x systems matrix for step k; none:
# zero).  The systems are kuramoto()'s: conditions expand.grid(K, beta,
# theta), K fastest, `replicas` each, from th0 (n x replicas) in every
# condition.  Returns the phases at steps 0, record_every, ... (a list of
# n x systems matrices).
ref_kuramoto <- function(th0, K, beta, theta, omega, A = NULL, dt, steps, record_every,
                         method = "srk2", noise = NULL) {
  n <- nrow(th0)
  g <- expand.grid(K = K, beta = beta, theta = theta)
  nrep <- ncol(th0)
  sys_c <- rep(seq_len(nrow(g)), each = nrep)
  x <- th0[, rep(seq_len(nrep), nrow(g)), drop = FALSE]
  if (is.null(A)) A <- matrix(1, n, n)
  A <- as.matrix(A)
  Kc <- matrix(g$K[sys_c], n, length(sys_c), byrow = TRUE)
  bc <- matrix(g$beta[sys_c], n, length(sys_c), byrow = TRUE)
  sc <- matrix(sqrt(2 * g$theta[sys_c] * dt / g$beta[sys_c]), n, length(sys_c), byrow = TRUE)
  om <- matrix(omega, n, length(sys_c))
  F <- function(x) (om + Kc / n * (cos(x) * (A %*% sin(x)) - sin(x) * (A %*% cos(x)))) / bc
  out <- list(x)
  for (k in seq_len(steps)) {
    dw <- if (is.null(noise)) 0 else sc * noise(k)
    f1 <- F(x)
    x <- if (method == "euler") x + f1 * dt + dw else {
      xt <- x + f1 * dt + dw
      x + (f1 + F(xt)) * dt / 2 + dw
    }
    if (k %% record_every == 0) out[[length(out) + 1]] <- x
  }
  out
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

test_that("without noise: the ODE integrated in base R, every coupling, both methods (double)", {
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
    b <- do.call(kd, args)
    om <- if (is.function(cs$frequencies)) cs$frequencies(n) else rep(cs$frequencies, length.out = n)
    ref <- ref_kuramoto(th0, K = c(0.5, 2), beta = cs$beta, theta = 0, omega = om, A = cs$A,
                        dt = 0.02, steps = 30, record_every = 10, method = meth)
    lab <- paste(cs$coupling, class(cs$A)[1], meth, length(cs$beta), "beta")
    nsys <- 4 * length(cs$beta)
    # the shape: class, columns, attributes, the grid and the systems
    expect_identical(class(b), c("kuramoto_run", "data.frame"))
    expect_identical(names(b), c("condition", "K", "beta", "theta", "replica", "step", "time",
                                 "r", "psi"))
    expect_true(all(c("phases", "systems", "conditions", "hist", "params", "dt", "init",
                      "replicas", "first_replica", "steps_done", "clock", "seed", "seed_hex",
                      "backend", "devices", "precision", "seconds", "interrupted", "sealed") %in%
                      names(attributes(b))), label = lab)
    expect_identical(dim(attr(b, "phases")), c(as.integer(n), as.integer(nsys)))
    expect_identical(dim(attr(b, "hist")), c(6L, 4L, as.integer(nsys)))
    expect_identical(b$step, rep(c(0, 10, 20, 30), nsys))
    expect_identical(attr(b, "clock"), list(step = 30, t = 30 * 0.02))
    expect_identical(attr(b, "init"), "given")
    # theta = 0: no noise, the ODE from the same start; the sums are added
    # in another order (differences of a few 2^-52, 30 steps of a coupling
    # of Lyapunov factor exp(K t) < 4): 1e-12.  The histograms: base R's
    # bins of the reference's phases (the same unless a phase lies within
    # rounding of an edge: not at these seeds).
    expect_equal(attr(b, "phases"), ref[[4]], tolerance = 1e-12, label = lab)
    z <- vapply(ref, function(x) colMeans(exp(1i * x)), complex(nsys)) # systems x records
    expect_equal(b$r, as.vector(t(Mod(z))), tolerance = 1e-12, label = lab)
    expect_equal(b$psi, as.vector(t(Arg(z))), tolerance = 1e-12, label = lab)
    for (s in seq_len(nsys)) for (j in 1:4) {
      expect_identical(attr(b, "hist")[, j, s], hist_counts(ref[[j]][, s], 6), label = lab)
    }
  }
  # summary(), print() and plot() work on it
  expect_s3_class(summary(b), "summary.kuramoto_run")
  expect_output(print(b), "kuramoto_run")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_no_error(plot(b))
})

test_that("single precision: the phases kept in [-pi, pi], the ODE to float rounding", {
  skip_if_no_cc()
  n <- 40
  th0 <- withr::with_seed(4, runif(n, -pi, pi))
  b <- kd(n = n, K = 1.5, frequencies = 2, dt = 0.05, steps = 60, record_every = 20,
          init = th0, seed = 1, precision = "single")
  ref <- ref_kuramoto(matrix(th0), K = 1.5, beta = 1, theta = 0, omega = rep(2, n), dt = 0.05,
                      steps = 60, record_every = 20)
  expect_true(all(abs(attr(b, "phases")) <= pi + 1e-6))
  # 60 steps turn the phases by 6 rad: wrapped in single precision, not in
  # the reference; float rounding (6e-8 a step, grown by exp(K t) < 100): 1e-4
  d <- attr(b, "phases") - ref[[4]]
  expect_lt(max(abs(d - 2 * pi * round(d / (2 * pi)))), 1e-4)
  expect_lt(max(abs(b$r - vapply(ref, function(x) Mod(mean(exp(1i * x))), 0))), 1e-4)
})

test_that("with noise: the laws (phase diffusion; the order parameter against base R, z-tests)", {
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
  # n = 50 against 40 systems of the same scheme in base R with R's normals
  # (independent samples), from the same uniform starts' law; two-sample z
  # of the means with the systems' standard deviations: |z| < 4 at every
  # record (a 6e-5 chance of a false alarm each)
  for (meth in c("srk2", "euler")) {
    b <- kd(50, K = 3, theta = 1, dt = 0.02, steps = 200, record_every = 50, replicas = 40,
            seed = 11, precision = "single", method = meth)
    ref <- withr::with_seed(12, {
      th <- matrix(runif(50 * 40, -pi, pi), 50, 40)
      ref_kuramoto(th, K = 3, beta = 1, theta = 1, omega = rep(0, 50), dt = 0.02, steps = 200,
                   record_every = 50, method = meth, noise = function(k) matrix(rnorm(2000), 50))
    })
    for (j in 2:5) {
      st <- (j - 1) * 50
      ra <- Mod(colMeans(exp(1i * ref[[j]])))
      rb <- b$r[b$step == st]
      z <- (mean(rb) - mean(ra)) / sqrt(var(ra) / length(ra) + var(rb) / length(rb))
      expect_lt(abs(z), 4, label = sprintf("%s: z at step %d", meth, st))
    }
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

test_that("errors name the argument; phases that overflow name replica, condition and step", {
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
})
