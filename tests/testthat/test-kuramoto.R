# kuramoto(): the noisy Kuramoto model (paper 001) on the CPU.  Small sizes:
# the whole file runs in seconds on two cores.

kur <- function(...) kuramoto(..., backend = "cpu", progress = FALSE)

test_that("pairs, matrix (A all ones) and mean field agree to rounding on the same seed", {
  args <- list(n = 70, K = c(1, 3), omega = kuramoto_normal(0.4), T = 0.2, dt = 0.02,
               steps = 60, replicas = 2, record_every = 3, seed = 5, precision = "double")
  mf <- do.call(kur, args)
  pairs <- do.call(kur, c(args, coupling = "pairs"))
  dense <- do.call(kur, c(args, list(A = matrix(1, 70, 70))))
  # the same sums in another order: differences of a few units of 2^-52,
  # grown by at most the coupling's Lyapunov factor exp(K t) ~ 30 here
  for (o in list(pairs, dense)) {
    expect_equal(o$r, mf$r, tolerance = 1e-12)
    expect_equal(attr(o, "theta"), attr(mf, "theta"), tolerance = 1e-12)
  }
  expect_identical(mf[c("condition", "replica", "step")], pairs[c("condition", "replica", "step")])
  # single precision: the same up to float rounding (2^-24 ~ 6e-8 per step)
  s_mf <- do.call(kur, modifyList(args, list(precision = "single")))
  s_pairs <- do.call(kur, modifyList(args, list(precision = "single", coupling = "pairs")))
  expect_lt(max(abs(s_pairs$r - s_mf$r)), 1e-4)
  expect_lt(max(abs(s_mf$r - mf$r)), 1e-3)
})

test_that("a sparse matrix gives the dense matrix's result", {
  skip_if_not_installed("Matrix")
  set.seed(2)
  n <- 90
  A <- matrix(stats::rbinom(n * n, 1, 0.15) * stats::runif(n * n, 0.5, 1.5), n, n)
  args <- list(n = n, K = 2.5, omega = stats::rnorm(n, 0, 0.3), T = 0.05, dt = 0.02,
               steps = 80, seed = 7, precision = "double", record_every = 4)
  dense <- do.call(kur, c(args, list(A = A)))
  sparse <- do.call(kur, c(args, list(A = Matrix::Matrix(A, sparse = TRUE))))
  expect_equal(sparse$r, dense$r, tolerance = 1e-12)
  expect_equal(attr(sparse, "theta"), attr(dense, "theta"), tolerance = 1e-12)
  expect_identical(attr(sparse, "params")$matrix, "sparse")
  # the coupling acts: an asymmetric A is not the mean field
  mf <- do.call(kur, args)
  expect_gt(max(abs(mf$r - dense$r)), 1e-3)
})

test_that("K = 0, T = 0: every phase advances at omega_i / gamma exactly", {
  n <- 37
  w <- seq(-2, 2, length.out = n)
  th0 <- seq(-3, 3, length.out = n)
  x <- kur(n = n, K = 0, omega = w, gamma = 2, dt = 0.01, steps = 500, theta0 = th0,
           seed = 1, precision = "double")
  # SRK2 is exact for a constant drift: theta = theta0 + t omega / gamma, to
  # the rounding of 500 additions
  expect_equal(as.vector(attr(x, "theta")), th0 + 5 * w / 2, tolerance = 1e-12)
  z <- exp(1i * (th0 + outer(w / 2, x$time))) # n x records
  expect_equal(x$r, Mod(colMeans(z)), tolerance = 1e-12)
})

test_that("identical frequencies, K > 0, T = 0: the oscillators synchronise (r -> 1)", {
  x <- kur(n = 120, K = 1.5, omega = 0.7, dt = 0.05, steps = 1200, record_every = 100,
           seed = 3, precision = "double")
  expect_lt(x$r[1], 0.3)           # uniform start: r ~ n^-1/2
  expect_gt(x$r[nrow(x)], 1 - 1e-9) # r -> 1 as exp(-K t): t = 60
  # the synchronised cluster turns at omega
  psi <- x$psi[nrow(x) - 0:1]
  expect_equal(((psi[1] - psi[2]) + pi) %% (2 * pi) - pi,
               (0.7 * 100 * 0.05 + pi) %% (2 * pi) - pi, tolerance = 1e-6)
})

test_that("K = 0, T > 0: the phases diffuse with variance 2 T t / gamma", {
  n <- 4000
  gamma <- 2; T <- 0.5; dt <- 0.01; steps <- 200
  x <- kur(n = n, K = 0, gamma = gamma, T = T, dt = dt, steps = steps, theta0 = rep(0, n),
           seed = 11, precision = "double")
  th <- as.vector(attr(x, "theta"))
  v <- 2 * T * steps * dt / gamma # 1
  # n independent normals N(0, v): the sample variance has sd v sqrt(2/(n-1)),
  # the mean sd sqrt(v/n); |z| < 4 (a 6e-5 chance of a false alarm)
  z_var <- (stats::var(th) - v) / (v * sqrt(2 / (n - 1)))
  z_mean <- mean(th) / sqrt(v / n)
  expect_lt(abs(z_var), 4)
  expect_lt(abs(z_mean), 4)
  # and they are normal (Kolmogorov-Smirnov at the fixed seed)
  expect_gt(stats::ks.test(th / sqrt(v), "pnorm")$p.value, 1e-3)
})

test_that("r(K) follows the Lorentzian theory sqrt(1 - 2w/K) at moderate n", {
  n <- 2000
  x <- kur(n = n, K = c(0.5, 1.5, 3), omega = kuramoto_lorentz(0.5), dt = 0.05, steps = 1500,
           record_every = 10, seed = 1, precision = "double")
  s <- summary(x)
  expect_equal(s$theory, c(0, sqrt(1 - 1 / 1.5), sqrt(1 - 1 / 3)))
  # finite n: the incoherent part of r e^{i psi} = n^-1 sum_j e^{i x_j} has
  # rms n^-1/2 (0.022 here), the scale of r's finite-size deviations;
  # tolerance 3 n^-1/2 (the regular frequency sample keeps the observed
  # deviations well inside it)
  expect_true(all(abs(s$r - s$theory) < 3 / sqrt(n)))
  expect_gt(s$r[3], s$r[2])
  expect_gt(s$r[2], 10 / sqrt(n)) # synchronised above K_c = 1, not below
})

test_that("identical frequencies with noise follow r = I1(Kr/T) / I0(Kr/T) (Fig. 4's parameters)", {
  n <- 1000
  x <- kur(n = n, K = c(1, 4), T = 1, dt = 0.01, steps = 1500, record_every = 10,
           seed = 4, precision = "double")
  s <- summary(x)
  th <- kuramoto_r_theory(c(1, 4), T = 1)
  expect_equal(th[1], 0)
  expect_equal(th[2], besselI(4 * th[2], 1) / besselI(4 * th[2], 0), tolerance = 1e-10)
  # finite-n scale n^-1/2 as above, plus the time average's own error
  err <- sqrt(1 / n + ifelse(is.na(s$se), s$se_naive, s$se)^2)
  expect_true(all(abs(s$r - th) < 3 * err))
})

test_that("single precision keeps the phases reduced and agrees with double in distribution", {
  n <- 1000
  args <- list(n = n, K = 4, T = 1, omega = 3, dt = 0.01, steps = 1200, record_every = 10,
               seed = 8)
  d <- do.call(kur, c(args, precision = "double"))
  f <- do.call(kur, c(args, precision = "single"))
  expect_true(all(abs(attr(f, "theta")) <= pi + 1e-6))
  expect_gt(max(abs(attr(d, "theta"))), 30) # turned at omega = 3 for t = 12
  sd_ <- summary(d); sf <- summary(f)
  se <- sqrt(sd_$se_naive^2 + sf$se_naive^2 + 2 / n)
  expect_lt(abs(sd_$r - sf$r), 4 * se)
})

test_that("chunks of replicas and thread counts give the one-call result", {
  args <- list(n = 50, K = c(0.5, 2), omega = kuramoto_normal(0.5), T = 0.3, dt = 0.02,
               steps = 40, record_every = 2, seed = 9)
  whole <- do.call(kur, c(args, replicas = 5))
  parts <- rbind(do.call(kur, c(args, replicas = 2)),
                 do.call(kur, c(args, replicas = 3, first_replica = 3)))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_identical(attr(parts, "theta"), attr(whole, "theta"))
  expect_identical(attr(parts, "systems"), attr(whole, "systems"))
  one <- with_threads(1, do.call(kur, c(args, replicas = 5, coupling = "pairs")))
  two <- with_threads(2, do.call(kur, c(args, replicas = 5, coupling = "pairs")))
  expect_identical(as.data.frame(two), as.data.frame(one))
  # a system of several tiles (1024 oscillators each)
  big <- list(n = 5000, K = 2, T = 0.5, dt = 0.02, steps = 10, seed = 2)
  expect_identical(attr(with_threads(1, do.call(kur, big)), "theta"),
                   attr(with_threads(2, do.call(kur, big)), "theta"))
  expect_error(rbind(whole, whole), "in two parts")
})

test_that("phase histograms count every oscillator at every record", {
  x <- kur(n = 64, K = 3, T = 0.5, dt = 0.02, steps = 30, record_every = 10, bins = 16, seed = 1)
  h <- attr(x, "hist")
  expect_identical(dim(h), c(16L, 4L, 1L))
  expect_true(all(colSums(h[, , 1]) == 64))
  th <- attr(x, "theta")[, 1]
  expect_equal(h[, 4, 1], tabulate(floor((th %% (2 * pi)) / (2 * pi) * 16) + 1, 16))
  f <- tempfile(fileext = ".pdf")
  grDevices::pdf(f)
  plot(x); plot(x, which = "K"); plot(x, which = "density")
  grDevices::dev.off()
  unlink(f)
  expect_output(print(x), "kuramoto_run")
  expect_output(print(summary(x)), "Stationary r")
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    expect_s3_class(ggplot2::autoplot(x), "ggplot")
    expect_s3_class(ggplot2::autoplot(x, which = "K"), "ggplot")
  }
})

test_that("bad input gets a clear error naming the argument", {
  e <- function(..., msg) expect_error(kur(...), msg, class = "statphysgpu_error")
  e(n = 0, K = 1, dt = 0.1, steps = 5, msg = "`n` must be")
  e(n = 2.5, K = 1, dt = 0.1, steps = 5, msg = "`n` must be")
  e(n = 10, K = NA, dt = 0.1, steps = 5, msg = "`K` must be")
  e(n = 10, K = 1, steps = 5, msg = "`dt`")
  e(n = 10, K = 1, dt = -1, steps = 5, msg = "`dt` must be")
  e(n = 10, K = 1, dt = 0.1, msg = "`steps` must be given")
  e(n = 10, K = 1, dt = 0.1, steps = 0, msg = "`steps` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, gamma = 0, msg = "`gamma` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, T = -1, msg = "`T` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, T = Inf, msg = "`T` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, omega = 1:3, msg = "`omega` must be .* length n \\(10\\)")
  e(n = 10, K = 1, dt = 0.1, steps = 5, omega = function(n) 1:3, msg = "a function returning")
  e(n = 10, K = 1, dt = 0.1, steps = 5, omega = c(1:9, NaN), msg = "`omega` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, coupling = "matrix", msg = "needs the coupling matrix")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix(1, 9, 9), msg = "`A` must be a numeric 10 x 10")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix("a", 10, 10), msg = "`A` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix(NA_real_, 10, 10), msg = "non-finite")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix(1, 10, 10), coupling = "pairs",
    msg = "`A` is used with coupling = \"matrix\" only")
  e(n = 10, K = 1, dt = 0.1, steps = 5, theta0 = 1:3, msg = "`theta0` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, theta0 = matrix(0, 10, 3), replicas = 2,
    msg = "`theta0` must be .* 10 x 3 matrix")
  e(n = 10, K = 1, dt = 0.1, steps = 5, record_every = 6, msg = "`record_every` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, coupling = "ring", msg = "`coupling` must be one of")
  e(n = 10, K = 1, dt = 0.1, steps = 5, precision = "half", msg = "`precision` must be one of")
  e(n = 10, K = 1, dt = 0.1, steps = 5, replicas = 0, msg = "`replicas` must be")
  e(n = 2^30, K = 1, dt = 0.1, steps = 5, replicas = 2^20, msg = "need about [0-9.]+ GiB")
  expect_error(kuramoto_r_theory(1, width = 1, T = 1), "closed cases")
  expect_error(kuramoto_lorentz(-1), "`width` must be")
})

test_that("a result too large says what helps: chunks split replicas, never a system", {
  # 2^31 records of two conditions: one system per condition is already too
  # many rows, which chunks (first_replica) cannot change (the message used
  # to suggest them)
  e <- tryCatch(kur(n = 10, K = 1:2, dt = 0.01, steps = 2^31, seed = 1), error = identity)
  expect_s3_class(e, "statphysgpu_error")
  expect_match(conditionMessage(e), "one system per condition is already too large")
  expect_match(conditionMessage(e), "use fewer oscillators \\(`n`\\), fewer records")
  expect_no_match(conditionMessage(e), "split the job")
  # many replicas of a system that fits: at most 2^31 - 1 rows a call, so
  # chunks of fewer replicas
  expect_error(kur(n = 10, K = 1, dt = 0.01, steps = 2^20, replicas = 4096, seed = 1),
               "4,096 replicas give 4,294,971,392 rows .* run at most [0-9,]+ replicas per call, as chunks with `first_replica`",
               class = "statphysgpu_error")
})

test_that("summary: se from the spread of the replicas where reblocking has too few records", {
  # 4 replicas x 101 records after the first half: too few for the
  # optimal-block criterion, so se was NA; now sd(replica means) / sqrt(4)
  x <- kur(n = 50, K = 2, T = 0.5, dt = 0.02, steps = 200, replicas = 4, seed = 3)
  s <- summary(x)
  d <- as.data.frame(x)
  d <- d[d$time >= 0.5 * max(d$time), ]
  means <- tapply(d$r, d$replica, mean)
  expect_identical(s$se_method, "replicas")
  expect_equal(s$se, sd(means) / 2, tolerance = 1e-14)
  expect_equal(s$r, mean(d$r), tolerance = 1e-14)
  expect_output(print(s), "spread of the replicas' means")
  # one replica: no spread to use, se NA as before
  one <- summary(kur(n = 50, K = 2, T = 0.5, dt = 0.02, steps = 200, seed = 3))
  expect_true(is.na(one$se) && is.na(one$se_method))
  # enough records: reblocking over time, as before
  long <- summary(kur(n = 50, K = 2, T = 0.5, dt = 0.02, steps = 4000, replicas = 2,
                      seed = 3))
  expect_identical(long$se_method, "blocking")
  expect_false(is.na(long$se))
})

test_that("a coarse dt warns and says the criterion", {
  expect_warning(kur(n = 10, K = 20, dt = 0.1, steps = 2, seed = 1),
                 "dt \\(\\|K\\| a \\+ median \\|omega\\|\\) / gamma = 2 rad",
                 class = "statphysgpu_coarse_dt")
  expect_warning(kur(n = 10, K = 1, T = 10, dt = 0.1, steps = 2, seed = 1),
                 "sqrt\\(2 T dt / gamma\\) = 1.41", class = "statphysgpu_coarse_dt")
  expect_no_warning(kur(n = 10, K = 1, T = 0.1, dt = 0.01, steps = 2, seed = 1))
})

test_that("the GPU variant option is checked", {
  old <- options(statphysgpu.kuramoto_variant = NULL)
  on.exit(options(old))
  expect_identical(statphysgpu:::kuramoto_variant("single"), "single")
  expect_identical(statphysgpu:::kuramoto_variant("double"), "double")
  options(statphysgpu.kuramoto_variant = "_np")
  expect_identical(statphysgpu:::kuramoto_variant("single"), "single_np")
  expect_identical(statphysgpu:::kuramoto_variant("double"), "double")
  options(statphysgpu.kuramoto_variant = "_fast")
  expect_error(statphysgpu:::kuramoto_variant("single"), "statphysgpu.kuramoto_variant")
  # every variant named by the option is in the kernel registry
  reg <- names(statphysgpu:::gpu_kernel_registry()$kuramoto$variants)
  expect_true(all(c("single", "single_np", "single_lb6", "single_lb2", "double") %in% reg))
})
