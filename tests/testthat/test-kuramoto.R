# kuramoto(): the noisy Kuramoto model (paper 001) on the CPU.  Small sizes:
# the whole file runs in seconds on two cores.

kur <- function(...) kuramoto(..., backend = "cpu", progress = FALSE)

test_that("pairs, matrix (A all ones) and mean field agree to rounding on the same seed", {
  args <- list(n = 70, K = c(1, 3), frequencies = kuramoto_normal(0.4), theta = 0.2, dt = 0.02,
               steps = 60, replicas = 2, record_every = 3, seed = 5, precision = "double")
  for (m in c("euler", "srk2")) { # (mf, pairs: SRK2's after the loop)
    mf <- do.call(kur, c(args, method = m))
    pairs <- do.call(kur, c(args, coupling = "pairs", method = m))
    dense <- do.call(kur, c(args, list(A = matrix(1, 70, 70), method = m)))
    # the same sums in another order: differences of a few units of 2^-52,
    # grown by at most the coupling's Lyapunov factor exp(K t) ~ 30 here
    for (o in list(pairs, dense)) {
      expect_equal(o$r, mf$r, tolerance = 1e-12)
      expect_equal(attr(o, "phases"), attr(mf, "phases"), tolerance = 1e-12)
    }
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
  args <- list(n = n, K = 2.5, frequencies = stats::rnorm(n, 0, 0.3), theta = 0.05, dt = 0.02,
               steps = 80, seed = 7, precision = "double", record_every = 4)
  dense <- do.call(kur, c(args, list(A = A)))
  sparse <- do.call(kur, c(args, list(A = Matrix::Matrix(A, sparse = TRUE))))
  expect_equal(sparse$r, dense$r, tolerance = 1e-12)
  expect_equal(attr(sparse, "phases"), attr(dense, "phases"), tolerance = 1e-12)
  expect_identical(attr(sparse, "params")$matrix, "sparse")
  # the coupling acts: an asymmetric A is not the mean field
  mf <- do.call(kur, args)
  expect_gt(max(abs(mf$r - dense$r)), 1e-3)
})

test_that("K = 0, T = 0: every phase advances at omega_i / gamma exactly", {
  n <- 37
  w <- seq(-2, 2, length.out = n)
  th0 <- seq(-3, 3, length.out = n)
  x <- kur(n = n, K = 0, frequencies = w, beta = 2, dt = 0.01, steps = 500, init = th0,
           seed = 1, precision = "double")
  # SRK2 is exact for a constant drift: theta = theta0 + t omega / gamma, to
  # the rounding of 500 additions
  expect_equal(as.vector(attr(x, "phases")), th0 + 5 * w / 2, tolerance = 1e-12)
  z <- exp(1i * (th0 + outer(w / 2, x$time))) # n x records
  expect_equal(x$r, Mod(colMeans(z)), tolerance = 1e-12)
})

test_that("identical frequencies, K > 0, T = 0: the oscillators synchronise (r -> 1)", {
  x <- kur(n = 120, K = 1.5, frequencies = 0.7, dt = 0.05, steps = 1200, record_every = 100,
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
  x <- kur(n = n, K = 0, beta = gamma, theta = T, dt = dt, steps = steps, init = rep(0, n),
           seed = 11, precision = "double")
  th <- as.vector(attr(x, "phases"))
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
  x <- kur(n = n, K = c(0.5, 1.5, 3), frequencies = kuramoto_lorentz(0.5), dt = 0.05, steps = 1500,
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
  x <- kur(n = n, K = c(1, 4), theta = 1, dt = 0.01, steps = 1500, record_every = 10,
           seed = 4, precision = "double")
  s <- summary(x)
  th <- kuramoto_r_theory(c(1, 4), theta = 1)
  expect_equal(th[1], 0)
  expect_equal(th[2], besselI(4 * th[2], 1) / besselI(4 * th[2], 0), tolerance = 1e-10)
  # finite-n scale n^-1/2 as above, plus the time average's own error
  err <- sqrt(1 / n + ifelse(is.na(s$se), s$se_naive, s$se)^2)
  expect_true(all(abs(s$r - th) < 3 * err))
})

test_that("single precision keeps the phases reduced and agrees with double in distribution", {
  n <- 1000
  args <- list(n = n, K = 4, theta = 1, frequencies = 3, dt = 0.01, steps = 1200, record_every = 10,
               seed = 8)
  d <- do.call(kur, c(args, precision = "double"))
  f <- do.call(kur, c(args, precision = "single"))
  expect_true(all(abs(attr(f, "phases")) <= pi + 1e-6))
  expect_gt(max(abs(attr(d, "phases"))), 30) # turned at omega = 3 for t = 12
  sd_ <- summary(d); sf <- summary(f)
  se <- sqrt(sd_$se_naive^2 + sf$se_naive^2 + 2 / n)
  expect_lt(abs(sd_$r - sf$r), 4 * se)
})

test_that("chunks of replicas and thread counts give the one-call result", {
  args <- list(n = 50, K = c(0.5, 2), frequencies = kuramoto_normal(0.5), theta = 0.3, dt = 0.02,
               steps = 40, record_every = 2, seed = 9)
  whole <- do.call(kur, c(args, replicas = 5))
  parts <- rbind(do.call(kur, c(args, replicas = 2)),
                 do.call(kur, c(args, replicas = 3, first_replica = 3)))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_identical(attr(parts, "phases"), attr(whole, "phases"))
  expect_identical(attr(parts, "systems"), attr(whole, "systems"))
  one <- with_threads(1, do.call(kur, c(args, replicas = 5, coupling = "pairs")))
  two <- with_threads(2, do.call(kur, c(args, replicas = 5, coupling = "pairs")))
  expect_identical(as.data.frame(two), as.data.frame(one))
  # a system of 5000 oscillators (the CPU's vector loop over its elements)
  big <- list(n = 5000, K = 2, theta = 0.5, dt = 0.02, steps = 10, seed = 2)
  expect_identical(attr(with_threads(1, do.call(kur, big)), "phases"),
                   attr(with_threads(2, do.call(kur, big)), "phases"))
  expect_error(rbind(whole, whole), "in two parts")
})

test_that("phase histograms count every oscillator at every record", {
  x <- kur(n = 64, K = 3, theta = 0.5, dt = 0.02, steps = 30, record_every = 10, bins = 16, seed = 1)
  h <- attr(x, "hist")
  expect_identical(dim(h), c(16L, 4L, 1L))
  expect_true(all(colSums(h[, , 1]) == 64))
  th <- attr(x, "phases")[, 1]
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
  e(n = 10, K = 1, dt = 0.1, steps = 5, beta = 0, msg = "`beta` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, theta = -1, msg = "`theta` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, theta = Inf, msg = "`theta` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, frequencies = 1:3, msg = "`frequencies` must be .* length n \\(10\\)")
  e(n = 10, K = 1, dt = 0.1, steps = 5, frequencies = function(n) 1:3, msg = "a function returning")
  e(n = 10, K = 1, dt = 0.1, steps = 5, frequencies = c(1:9, NaN), msg = "`frequencies` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, coupling = "matrix", msg = "needs the coupling matrix")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix(1, 9, 9), msg = "`A` must be a numeric 10 x 10")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix("a", 10, 10), msg = "`A` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix(NA_real_, 10, 10), msg = "non-finite")
  e(n = 10, K = 1, dt = 0.1, steps = 5, A = matrix(1, 10, 10), coupling = "pairs",
    msg = "`A` is used with coupling = \"matrix\" only")
  e(n = 10, K = 1, dt = 0.1, steps = 5, init = 1:3, msg = "`init` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, init = matrix(0, 10, 3), replicas = 2,
    msg = "`init` must be .* 10 x 3 matrix")
  e(n = 10, K = 1, dt = 0.1, steps = 5, record_every = 6, msg = "`record_every` must be")
  e(n = 10, K = 1, dt = 0.1, steps = 5, coupling = "ring", msg = "`coupling` must be one of")
  e(n = 10, K = 1, dt = 0.1, steps = 5, precision = "half", msg = "`precision` must be one of")
  e(n = 10, K = 1, dt = 0.1, steps = 5, replicas = 0, msg = "`replicas` must be")
  e(n = 2^30, K = 1, dt = 0.1, steps = 5, replicas = 2^20, msg = "need about [0-9.]+ GiB")
  expect_error(kuramoto_r_theory(1, width = 1, theta = 1), "closed cases")
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
  x <- kur(n = 50, K = 2, theta = 0.5, dt = 0.02, steps = 200, replicas = 4, seed = 3)
  s <- summary(x)
  d <- as.data.frame(x)
  d <- d[d$time >= 0.5 * max(d$time), ]
  means <- tapply(d$r, d$replica, mean)
  expect_identical(s$se_method, "replicas")
  expect_equal(s$se, sd(means) / 2, tolerance = 1e-14)
  expect_equal(s$r, mean(d$r), tolerance = 1e-14)
  expect_output(print(s), "spread of the replicas' means")
  # one replica: no spread to use, se NA as before
  one <- summary(kur(n = 50, K = 2, theta = 0.5, dt = 0.02, steps = 200, seed = 3))
  expect_true(is.na(one$se) && is.na(one$se_method))
  # enough records: reblocking over time, as before
  long <- summary(kur(n = 50, K = 2, theta = 0.5, dt = 0.02, steps = 4000, replicas = 2,
                      seed = 3))
  expect_identical(long$se_method, "blocking")
  expect_false(is.na(long$se))
})

test_that("a coarse dt warns and says the criterion", {
  expect_warning(kur(n = 10, K = 20, dt = 0.1, steps = 2, seed = 1),
                 "dt \\(\\|K\\| a \\+ median \\|frequencies\\|\\) / beta = 2 rad",
                 class = "statphysgpu_coarse_dt")
  expect_warning(kur(n = 10, K = 1, theta = 10, dt = 0.1, steps = 2, seed = 1),
                 "sqrt\\(2 theta dt / beta\\) = 1.41", class = "statphysgpu_coarse_dt")
  expect_no_warning(kur(n = 10, K = 1, theta = 0.1, dt = 0.01, steps = 2, seed = 1))
})

test_that("one engine: the built-in engine's option is ignored, with one warning a session", {
  # kuramoto() runs on the declared many-body engine alone (issue 50): the
  # option that chose the built-in engine changes nothing and says so once
  ns <- asNamespace("statphysgpu")
  once <- ns$.sp_retired # (the session's flags)
  once$kuramoto_engine <- FALSE
  withr::defer(once$kuramoto_engine <- FALSE)
  args <- list(n = 20, K = 2, theta = 0.3, dt = 0.02, steps = 10, seed = 4)
  ref <- do.call(kur, args)
  withr::local_options(statphysgpu.kuramoto_engine = "builtin")
  expect_warning(x <- do.call(kur, args), "built-in Kuramoto engine was removed",
                 class = "statphysgpu_deprecated")
  expect_identical(attr(x, "phases"), attr(ref, "phases"))
  expect_identical(as.data.frame(x), as.data.frame(ref))
  expect_no_warning(do.call(kur, args)) # once a session
  # "declared" (the one engine) is no warning; the tuning options have neither
  once$kuramoto_engine <- FALSE
  withr::local_options(statphysgpu.kuramoto_engine = "declared")
  expect_no_warning(do.call(kur, args))
  expect_null(ns$SP_TUNING$kuramoto_engine)
  expect_null(ns$SP_TUNING$kuramoto_variant)
  # the built-in engine is gone: no kernel, no model of the generic entry
  expect_null(ns$gpu_kernel_registry()$kuramoto)
  expect_false(file.exists(system.file("cuda", "kuramoto.cu", package = "statphysgpu")))
  expect_false(exists("C_sp_r_kuramoto_start", envir = ns))
})

# ---- Euler-Maruyama, and the start and frequencies made by the engine ---------

test_that("Euler with a constant drift (K = 0) gives SRK2's numbers, noise included", {
  # dt (F + F) / 2 = dt F exactly, and both draw the same normals
  w <- seq(-1, 1, length.out = 33)
  for (prec in c("double", "single")) {
    args <- list(n = 33, K = 0, frequencies = w, beta = 1.5, theta = 0.4, dt = 0.01, steps = 50,
                 replicas = 2, record_every = 10, seed = 6, precision = prec)
    e <- do.call(kur, c(args, method = "euler"))
    s <- do.call(kur, args)
    expect_identical(attr(e, "phases"), attr(s, "phases"))
    expect_identical(as.data.frame(e), as.data.frame(s))
    expect_identical(attr(e, "params")$method, "euler")
  }
  expect_output(print(e), "Euler-Maruyama")
  expect_no_match(capture.output(print(s)), "Euler")
  # rbind() keeps the methods apart
  expect_error(rbind(e, s), "same seed, parameters")
})

test_that("Euler: the phases diffuse with variance 2 T t / gamma", {
  n <- 4000
  gamma <- 2; T <- 0.5; dt <- 0.01; steps <- 200
  x <- kur(n = n, K = 0, beta = gamma, theta = T, dt = dt, steps = steps, init = rep(0, n),
           seed = 12, precision = "double", method = "euler")
  th <- as.vector(attr(x, "phases"))
  v <- 2 * T * steps * dt / gamma # 1
  # as for SRK2: sd of the sample variance v sqrt(2/(n-1)), of the mean
  # sqrt(v/n); |z| < 4 (a 6e-5 chance of a false alarm each)
  expect_lt(abs((stats::var(th) - v) / (v * sqrt(2 / (n - 1)))), 4)
  expect_lt(abs(mean(th) / sqrt(v / n)), 4)
  expect_gt(stats::ks.test(th / sqrt(v), "pnorm")$p.value, 1e-3)
})

test_that("Euler is first order in dt, SRK2 second (deterministic, T = 0)", {
  n <- 40
  run <- function(m, dt) {
    steps <- round(2 / dt)
    as.vector(attr(kur(n = n, K = 3, frequencies = kuramoto_lorentz(0.5), dt = dt, steps = steps,
                       record_every = steps, seed = 2, precision = "double", method = m),
                   "phases"))
  }
  ref <- run("srk2", 0.02 / 64) # SRK2's own error there: some 1e-7
  err <- function(m) vapply(c(0.02, 0.01, 0.005), function(dt) max(abs(run(m, dt) - ref)), 0)
  e <- err("euler")
  s <- err("srk2")
  # observed orders log2(err(dt) / err(dt / 2)): 0.99 and 2.04 at this seed
  expect_true(all(abs(log2(e[1:2] / e[2:3]) - 1) < 0.2))
  expect_true(all(abs(log2(s[1:2] / s[2:3]) - 2) < 0.3))
  expect_gt(e[1], 0.02) # O(dt): 0.11 at dt = 0.02, where SRK2's is 0.0016
  expect_gt(e[1] / s[1], 20)
})

test_that("Euler: sparse = dense, not SRK2 with coupling; chunks and threads", {
  # (pairs and dense A = 1 against the mean field: the first test above)
  args <- list(n = 70, K = c(1, 3), frequencies = kuramoto_normal(0.4), theta = 0.2, dt = 0.02,
               steps = 60, replicas = 2, record_every = 3, seed = 5, precision = "double",
               method = "euler")
  mf <- do.call(kur, args)
  # Euler is not SRK2 when the coupling acts
  srk2 <- do.call(kur, modifyList(args, list(method = "srk2")))
  expect_gt(max(abs(attr(srk2, "phases") - attr(mf, "phases"))), 1e-4)
  if (requireNamespace("Matrix", quietly = TRUE)) {
    set.seed(3)
    A <- matrix(stats::rbinom(70^2, 1, 0.2) * stats::runif(70^2), 70, 70)
    d <- do.call(kur, c(args, list(A = A)))
    sp <- do.call(kur, c(args, list(A = Matrix::Matrix(A, sparse = TRUE))))
    expect_equal(attr(sp, "phases"), attr(d, "phases"), tolerance = 1e-12)
  }
  # chunks and threads: identical
  single <- modifyList(args, list(precision = "single", replicas = NULL))
  whole <- do.call(kur, c(single, replicas = 5))
  parts <- rbind(do.call(kur, c(single, replicas = 2)),
                 do.call(kur, c(single, replicas = 3, first_replica = 3)))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  expect_identical(attr(parts, "phases"), attr(whole, "phases"))
  big <- list(n = 5000, K = 2, theta = 0.5, dt = 0.02, steps = 10, seed = 2, method = "euler",
              bins = 8)
  one <- with_threads(1, do.call(kur, big))
  two <- with_threads(2, do.call(kur, big))
  expect_identical(attr(one, "phases"), attr(two, "phases"))
  expect_identical(attr(one, "hist"), attr(two, "hist"))
  p1 <- with_threads(1, do.call(kur, c(args, coupling = "pairs")))
  p2 <- with_threads(2, do.call(kur, c(args, coupling = "pairs")))
  expect_identical(as.data.frame(p1), as.data.frame(p2))
})

test_that("Euler with noise follows r = I1(Kr/T) / I0(Kr/T)", {
  n <- 1000
  x <- kur(n = n, K = c(1, 4), theta = 1, dt = 0.01, steps = 1500, record_every = 10,
           seed = 4, precision = "double", method = "euler")
  s <- summary(x)
  th <- kuramoto_r_theory(c(1, 4), theta = 1)
  # as for SRK2, plus Euler's O(dt) bias of the stationary law: the phases'
  # spread about psi grows by about K r dt / 2 (1.7 per cent at K = 4), so r
  # falls by some 0.003 (0.0034 below SRK2's at this seed); allowance 0.01
  err <- sqrt(1 / n + ifelse(is.na(s$se), s$se_naive, s$se)^2)
  expect_true(all(abs(s$r - th) < 3 * err + 0.01))
})

test_that("the engine draws uniform start phases from the systems' streams", {
  n <- 37
  # the drawn start, read back from a run that does not move the phases (K =
  # 0, theta = 0, frequencies 0: every step adds an exact 0)
  start <- function(prec, replicas, first = 1) {
    attr(kur(n = n, K = 0, dt = 0.02, steps = 1, replicas = replicas, first_replica = first,
             seed = 9, precision = prec), "phases")
  }
  for (prec in c("double", "single")) {
    th0 <- start(prec, 2, first = 3)
    # each system's own stream: replicas 3 and 4 of a call of four
    expect_identical(th0, start(prec, 4)[, 3:4])
    expect_false(identical(th0[, 1], th0[, 2]))
    # the start drawn by the engine is the start given, and the steps' noise
    # does not depend on how the start came
    args <- list(n = n, K = 2, theta = 0.3, dt = 0.02, steps = 5, replicas = 2, first_replica = 3,
                 seed = 9, precision = prec)
    drawn <- do.call(kur, args)
    given <- do.call(kur, c(args, list(init = th0)))
    expect_identical(as.data.frame(drawn), as.data.frame(given))
    expect_identical(attr(drawn, "phases"), attr(given, "phases"))
  }
  # step 0's record is the start's order parameter
  x <- kur(n = n, K = 2, dt = 0.02, steps = 1, replicas = 2, first_replica = 3, seed = 9,
           precision = "double")
  expect_equal(x$r[x$step == 0], Mod(colMeans(exp(1i * start("double", 2, first = 3)))),
               tolerance = 1e-14)
  # the law: uniform on (-pi, pi); 4000 phases (20 systems of 200), KS at a
  # fixed seed, p > 1e-4
  u <- as.vector(attr(kur(n = 200, K = 0, dt = 0.02, steps = 1, replicas = 20, seed = 2,
                          precision = "double"), "phases"))
  expect_true(all(abs(u) < pi))
  expect_gt(stats::ks.test(u, "punif", -pi, pi)$p.value, 1e-4)
  # theta0 given as one vector (integers too) for every system and condition
  v <- kur(n = 5, K = c(1, 2), dt = 0.01, steps = 1, replicas = 2, init = 1:5, seed = 1,
           precision = "double")
  expect_equal(v$r[v$step == 0], rep(Mod(mean(exp(1i * (1:5)))), 4), tolerance = 1e-15)
})

test_that("the engine's frequencies of a law are those of kuramoto_lorentz() and kuramoto_normal()", {
  # one step of K = 0, T = 0 from theta = 0 with dt = 2^-10 gives omega 2^-10
  # exactly (SRK2 is exact for a constant drift; a power of two scales exactly)
  freq <- function(omega, n) {
    x <- kur(n = n, K = 0, frequencies = omega, dt = 2^-10, steps = 1, init = rep(0, n),
             seed = 1, precision = "double")
    as.vector(attr(x, "phases")) * 2^10
  }
  for (n in c(1, 2, 999, 4096)) {
    l <- kuramoto_lorentz(0.5, centre = -1)
    expect_equal(freq(l, n), l(n), tolerance = 1e-15)
    g <- kuramoto_normal(1.3, centre = 0.2)
    # Wichura's AS 241, as R's qnorm(): within a few units of 2^-52
    expect_equal(freq(g, n), g(n), tolerance = 1e-14)
  }
  expect_equal(freq(0.7, 3), rep(0.7, 3))
  # one number for all (a parameter of the declared model, no array) runs
  # the same systems as the vector of it (an element parameter), bit for
  # bit, every precision and method
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    args <- list(n = 203, K = c(1, 2.5), theta = 0.3, dt = 0.02, steps = 6, replicas = 2,
                 record_every = 3, bins = 4, seed = 7, precision = prec, method = m)
    one <- do.call(kur, c(args, frequencies = 0.4))
    vec <- do.call(kur, c(args, list(frequencies = rep(0.4, 203))))
    expect_identical(as.data.frame(one), as.data.frame(vec))
    expect_identical(attr(one, "phases"), attr(vec, "phases"))
    expect_identical(attr(one, "hist"), attr(vec, "hist"))
  }
  # a law, and its vector given, run the same systems (to rounding)
  args <- list(n = 300, K = 2, theta = 0.2, dt = 0.02, steps = 30, seed = 3, precision = "double")
  a <- do.call(kur, c(args, list(frequencies = kuramoto_normal(0.5))))
  b <- do.call(kur, c(args, list(frequencies = kuramoto_normal(0.5)(300))))
  expect_equal(attr(a, "phases"), attr(b, "phases"), tolerance = 1e-12)
  # the result keeps the law, not a vector of n
  p <- attr(a, "params")
  expect_null(p$frequencies)
  expect_identical(p$frequencies_dist$law, "normal")
  expect_identical(attr(b, "params")$frequencies, kuramoto_normal(0.5)(300))
  expect_identical(attr(kur(n = 10, K = 1, frequencies = 0.5, dt = 0.01, steps = 2, seed = 1),
                        "params")$frequencies, 0.5)
  expect_output(print(a), "normal frequencies \\(sd 0.5\\)")
  expect_output(print(summary(kur(n = 10, K = 1, frequencies = 0.5, theta = 0.1, dt = 0.01, steps = 2,
                                  seed = 1))), "frequencies = 0.5")
  # chunks made with laws built in separate calls combine
  l1 <- kur(n = 20, K = 2, frequencies = kuramoto_lorentz(0.5), dt = 0.01, steps = 3, seed = 2)
  l2 <- kur(n = 20, K = 2, frequencies = kuramoto_lorentz(0.5), dt = 0.01, steps = 3, seed = 2,
            first_replica = 2)
  expect_s3_class(rbind(l1, l2), "kuramoto_run")
})

test_that("the coarse-dt check's typical frequency", {
  ns <- asNamespace("statphysgpu")
  # a law: the median of |omega| under it
  expect_equal(ns$kuramoto_median_abs_law("lorentz", 0, 0.5), 0.5, tolerance = 1e-8)
  expect_equal(ns$kuramoto_median_abs_law("normal", 0, 2), 2 * stats::qnorm(0.75),
               tolerance = 1e-8)
  l <- kuramoto_lorentz(0.4, centre = 1)(1e4)
  expect_equal(ns$kuramoto_median_abs_law("lorentz", 1, 0.4), stats::median(abs(l)),
               tolerance = 1e-3)
  # a long vector: a regular sample of 2^16 (the median to some 2e-5 here)
  v <- seq(-1, 3, length.out = 2^18 + 7)
  expect_equal(ns$kuramoto_median_abs(v), stats::median(abs(v)), tolerance = 1e-4)
  expect_identical(ns$kuramoto_median_abs(c(-3, 1, 2)), 2)
  # the warning names the method
  expect_warning(kur(n = 10, K = 20, dt = 0.1, steps = 2, seed = 1, method = "euler"),
                 "coarse for Euler", class = "statphysgpu_coarse_dt")
  expect_warning(kur(n = 10, K = 1, frequencies = kuramoto_lorentz(10), dt = 0.1, steps = 2,
                     seed = 1), "median \\|frequencies\\|\\) / beta = 1.1 rad",
                 class = "statphysgpu_coarse_dt")
  expect_error(kur(n = 10, K = 1, dt = 0.1, steps = 5, method = "rk4"),
               "`method` must be one of", class = "statphysgpu_error")
  expect_error(kur(n = 10, K = 1, dt = 0.1, steps = 5, frequencies = c(1:9, Inf)),
               "`frequencies` must be", class = "statphysgpu_error")
  expect_error(kur(n = 10, K = 1, dt = 0.1, steps = 5, init = c(1:9, -Inf)),
               "`init` must be", class = "statphysgpu_error")
})

test_that("Euler: phases that overflow are an error naming replica, condition and step", {
  # K = 1e300, dt = 1e10: x + dt F overflows in step 1 (as for SRK2 in
  # test-nonfinite.R)
  for (cp in c("mean_field", "pairs")) {
    expect_error(suppressWarnings(
      kur(n = 8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, coupling = cp,
          precision = "double", seed = 1, method = "euler")),
      class = "statphysgpu_not_finite",
      "^the phases of replica 1 of condition 2 \\(K = 1e\\+300\\) became non-finite at step 1 ")
  }
  expect_error(suppressWarnings(
    kur(n = 8, K = c(1, 1e300), replicas = 2, dt = 0.01, steps = 5, precision = "single",
        seed = 1, first_replica = 5, method = "euler")),
    class = "statphysgpu_not_finite", "replica 5 of condition 2 .* at step 1 \\(t = 0.01\\)")
})

# ---- sweeps over K, beta, theta, and continuation -----------------------------

test_that("a sweep over K, beta, theta: the grid in expand.grid order, each condition on its stream", {
  args <- list(n = 24, frequencies = kuramoto_normal(0.3), dt = 0.02, steps = 12, replicas = 2,
               record_every = 4, seed = 5, precision = "double")
  K <- c(1, 2.5); beta <- c(0.7, 1.6); theta <- c(0.1, 0.6)
  x <- do.call(kur, c(args, list(K = K, beta = beta, theta = theta)))
  g <- attr(x, "conditions")
  expect_identical(g, cbind(condition = 1:8, expand.grid(K = K, beta = beta, theta = theta,
                                                        KEEP.OUT.ATTRS = FALSE)))
  expect_identical(names(x), c("condition", "K", "beta", "theta", "replica", "step", "time",
                               "r", "psi"))
  for (a in c("K", "beta", "theta")) {
    expect_identical(x[[a]], g[[a]][x$condition])
    expect_identical(attr(x, "systems")[[a]], g[[a]][attr(x, "systems")$condition])
  }
  expect_identical(attr(x, "params")[c("K", "beta", "theta")], list(K = K, beta = beta, theta = theta))
  # condition c draws from stream (c - 1) 2^40 + replica - 1: it is condition
  # c of a K sweep with that condition's beta and theta, whatever the
  # conditions before it (K = 0 here); condition 1 is the one-condition call
  for (c in 1:8) {
    one <- do.call(kur, c(args, list(K = c(rep(0, c - 1), g$K[c]), beta = g$beta[c],
                                     theta = g$theta[c])))
    mine <- x[x$condition == c, c("replica", "step", "r", "psi")]
    theirs <- one[one$condition == c, c("replica", "step", "r", "psi")]
    rownames(mine) <- rownames(theirs) <- NULL
    expect_identical(mine, theirs)
    expect_identical(attr(x, "phases")[, 2 * c - 1:0], attr(one, "phases")[, 2 * c - 1:0])
  }
  expect_output(print(x), "beta = c\\(0.7, 1.6\\), theta = c\\(0.1, 0.6\\)")
  # chunks of replicas of a sweep combine with rbind() to the one call
  parts <- rbind(do.call(kur, c(modifyList(args, list(replicas = 1)),
                                list(K = K, beta = beta, theta = theta))),
                 do.call(kur, c(modifyList(args, list(replicas = 1)),
                                list(K = K, beta = beta, theta = theta, first_replica = 2))))
  expect_identical(as.data.frame(parts), as.data.frame(x))
  expect_identical(attr(parts, "phases"), attr(x, "phases"))
  expect_identical(attr(parts, "systems"), attr(x, "systems"))
  # bad values in a sweep name the argument
  expect_error(kur(n = 10, K = 1, beta = c(1, 0), dt = 0.1, steps = 5), "`beta` must be",
               class = "statphysgpu_error")
  expect_error(kur(n = 10, K = 1, theta = c(0.1, NA), dt = 0.1, steps = 5), "`theta` must be",
               class = "statphysgpu_error")
})

test_that("a sweep of beta and theta: each condition diffuses with 2 theta t / beta (K = 0)", {
  n <- 1000
  beta <- c(0.5, 2); theta <- c(0.25, 1)
  x <- kur(n = n, K = 0, beta = beta, theta = theta, dt = 0.01, steps = 100, init = rep(0, n),
           seed = 13, precision = "double")
  g <- attr(x, "conditions")
  ph <- attr(x, "phases")
  for (c in 1:4) {
    v <- 2 * g$theta[c] * 1 / g$beta[c] # t = 1
    th <- ph[, c]
    # n independent normals N(0, v): the sample variance's sd is v sqrt(2 / (n - 1));
    # |z| < 4 (a 6e-5 chance of a false alarm each)
    expect_lt(abs((stats::var(th) - v) / (v * sqrt(2 / (n - 1)))), 4)
  }
  # the temperature, not the friction, sets the stationary r: summary's theory per
  # condition's theta
  s <- summary(kur(n = 50, K = 3, theta = c(0.5, 2), dt = 0.02, steps = 40, seed = 2))
  expect_identical(s$theta, c(0.5, 2))
  expect_equal(s$theory, kuramoto_r_theory(3, theta = 0.5) * c(1, 0))
  f <- tempfile(fileext = ".pdf")
  grDevices::pdf(f)
  plot(x); plot(x, which = "K")
  grDevices::dev.off()
  unlink(f)
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    expect_s3_class(ggplot2::autoplot(x, which = "K"), "ggplot")
    expect_s3_class(ggplot2::autoplot(x), "ggplot")
  }
})

test_that("a run continued is one run: a + b steps, bit for bit, every system", {
  base <- list(n = 30, K = c(1, 3), beta = c(1, 1.5), theta = c(0, 0.4),
               frequencies = kuramoto_lorentz(0.3), dt = 0.02, replicas = 2, record_every = 4,
               seed = 17)
  for (prec in c("double", "single")) for (m in c("srk2", "euler")) {
    cp <- if (m == "srk2") "mean_field" else "pairs"
    args <- c(base, list(precision = prec, method = m, coupling = cp, bins = 6))
    whole <- do.call(kur, c(args, steps = 23))
    a <- do.call(kur, c(args, steps = 9)) # 9: between two records
    b <- kur(init = a, steps = 14)
    expect_identical(attr(b, "phases"), attr(whole, "phases"))
    expect_identical(attr(b, "systems"), attr(whole, "systems"))
    # the records after the first run's last: those of the whole run after step 9
    after <- as.data.frame(whole)[whole$step > 9, ]
    rownames(after) <- NULL
    expect_identical(as.data.frame(b), after)
    expect_identical(attr(b, "hist"), attr(whole, "hist")[, 4:6, , drop = FALSE])
    expect_identical(attr(b, "clock"), list(step = 23, t = 23 * 0.02))
    expect_identical(attr(b, "params")$step0, 9)
    expect_identical(attr(b, "init"), "continued")
    # and a continuation of the continuation, from a record step
    c1 <- kur(init = do.call(kur, c(args, steps = 12)), steps = 4)
    c2 <- kur(init = c1, steps = 7)
    expect_identical(attr(c2, "phases"), attr(whole, "phases"))
    expect_identical(c2$step, rep(20, 16))
  }
  # a short continuation between two records has none, and goes on
  a <- do.call(kur, c(base, steps = 5))
  short <- kur(init = a, steps = 2)
  expect_identical(nrow(short), 0L)
  expect_identical(attr(kur(init = short, steps = 16), "phases"),
                   attr(do.call(kur, c(base, steps = 23)), "phases"))
  expect_output(print(short), "a continuation from step 5")
  # chunks of a run continue chunk by chunk (their replicas' streams)
  one <- do.call(kur, c(modifyList(base, list(replicas = 1)), steps = 9))
  two <- do.call(kur, c(modifyList(base, list(replicas = 1)), steps = 9, first_replica = 2))
  both <- rbind(kur(init = one, steps = 14), kur(init = two, steps = 14))
  expect_identical(attr(both, "phases"), attr(do.call(kur, c(base, steps = 23)), "phases"))
})

test_that("a continued matrix run takes A again; a mismatched or modified run is refused", {
  n <- 12
  A <- matrix(seq(0, 1, length.out = n^2), n, n)
  a <- kur(n = n, K = 2, A = A, theta = 0.2, dt = 0.02, steps = 6, seed = 3, precision = "double")
  whole <- kur(n = n, K = 2, A = A, theta = 0.2, dt = 0.02, steps = 10, seed = 3,
               precision = "double")
  expect_identical(attr(kur(init = a, A = A, steps = 4), "phases"), attr(whole, "phases"))
  e <- function(..., msg) expect_error(kur(...), msg, class = "statphysgpu_error")
  e(init = a, steps = 4, msg = "needs the coupling matrix `A`")
  B <- A
  B[2, 3] <- 0
  e(init = a, A = B, steps = 4, msg = "`A` is not the coupling matrix of the run")
  x <- kur(n = 10, K = c(1, 2), theta = 0.1, dt = 0.02, steps = 6, replicas = 2, seed = 4)
  # parameters given must be the run's
  expect_identical(attr(kur(init = x, n = 10, K = c(1, 2), seed = 4, steps = 2), "phases"),
                   attr(kur(init = x, steps = 2), "phases"))
  e(init = x, K = 3, steps = 2, msg = "`K` differs from that of the run given as `init`")
  e(init = x, theta = 0.2, steps = 2, msg = "`theta` differs")
  e(init = x, dt = 0.01, steps = 2, msg = "`dt` differs")
  e(init = x, n = 11, steps = 2, msg = "`n` differs")
  e(init = x, seed = 5, steps = 2, msg = "`seed` differs .* the run's seed")
  e(init = x, precision = "double", steps = 2, msg = "`precision` differs")
  e(init = x, method = "euler", steps = 2, msg = "`method` differs")
  e(init = x, frequencies = 0.5, steps = 2, msg = "`frequencies` differs")
  e(init = x, replicas = 3, steps = 2, msg = "`replicas` and `first_replica` cannot be given")
  e(init = x, msg = "`steps` must be given")
  # a modified result: refused by its seal, naming what changed; sealed
  # again (as if made so), by the checks of what the continuation reads
  mod <- function(f) {
    y <- f(x)
    expect_error(kur(init = y, steps = 2), "`init` was modified after it was run: its attribute",
                 class = "statphysgpu_modified_result")
    reseal(y)
  }
  e(init = mod(function(y) { attr(y, "phases")[1, 1] <- NA; y }), steps = 2,
    msg = "attribute `phases` is missing or damaged")
  e(init = mod(function(y) { attr(y, "phases") <- attr(y, "phases")[, 1:3]; y }), steps = 2,
    msg = "attribute `phases`")
  e(init = mod(function(y) { attr(y, "params")$K <- c(1, 2, 3); y }), steps = 2,
    msg = "attribute `systems` is missing or damaged")
  e(init = mod(function(y) { attr(y, "params")$dt <- -1; y }), steps = 2,
    msg = "attribute `params` is missing or damaged")
  e(init = mod(function(y) { attr(y, "systems")$replica <- c(1, 3, 1, 3); y }), steps = 2,
    msg = "attribute `systems`")
  e(init = mod(function(y) { attr(y, "steps_done") <- 7; y }), steps = 2,
    msg = "attribute `steps_done`")
  e(init = mod(function(y) { attr(y, "clock")$step <- 5; y }), steps = 2,
    msg = "attribute `clock`")
  e(init = mod(function(y) { attr(y, "seed_hex") <- "1"; y }), steps = 2,
    msg = "attribute `seed_hex`")
  e(init = mod(function(y) { attr(y, "precision") <- "mixed"; y }), steps = 2,
    msg = "attribute `precision`")
})
