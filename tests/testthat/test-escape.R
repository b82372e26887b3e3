# Escape times and switching currents on the CPU (paper 000).

# Algorithm 1 (and 3 under a ramp) of paper 000, transcribed into plain R,
# driven by the package's own Philox normals of the path's stream.  Returns
# the interpolated crossing time (or bias), or NA if not crossed by kmax.
algorithm1_r <- function(seed, stream, gamma0, V0, beta, theta, h, kmax, dg = 0) {
  z <- philox_normal(kmax, seed = seed, stream = stream, precision = "double",
                     backend = "cpu")
  phi <- asin(gamma0)
  v <- 0
  th <- pi - asin(gamma0)
  sig <- sqrt(2 * beta * theta * h)
  for (k in seq_len(kmax)) {
    g <- gamma0 + k * dg
    phin <- phi + h * v
    v <- v + h * (-beta * v - V0 * sin(phi) + V0 * g) + sig * z[k]
    if (phin > th) {
      frac <- (th - phi) / (phin - phi)
      return(if (dg == 0) (k - 1 + frac) * h else gamma0 + (k - 1 + frac) * dg)
    }
    phi <- phin
  }
  NA_real_
}

test_that("the Euler engine reproduces a plain-R transcription of Algorithm 1", {
  e <- escape_times(4, gamma = c(0.5, 0.7), V0 = 1, beta = 0.5, theta = 0.25,
                    dt = 0.02, t_max = 5000, method = "euler", seed = 7,
                    backend = "cpu", precision = "double", progress = FALSE)
  for (i in seq_len(nrow(e))) {
    c <- e$condition[i]
    ref <- algorithm1_r(7, (c - 1) * 2^40 + e$replica[i] - 1, e$gamma[i], 1, 0.5,
                        0.25, 0.02, 250000)
    # same normals, same operations; sin() differs in the last bit at most,
    # and the dissipative dynamics damps such differences
    expect_equal(e$value[i], ref, tolerance = 1e-10)
  }
  expect_true(all(e$escaped))
})

test_that("the Euler engine reproduces Algorithm 3 under a ramp", {
  # the paper's own scheme at its own kind of step, which heats the well by
  # 8%: the warning says so
  expect_warning(
    s <- switching_currents(3, ramp = 1e-4, V0 = 2, beta = 0.5, theta = 0.3,
                            dt = 0.02, gamma0 = 0.3, method = "euler", seed = 12,
                            backend = "cpu", precision = "double", progress = FALSE),
    "euler step dt = 0.02 heats or cools the well: .* 1.08 theta in phi",
    class = "statphysgpu_step_warning")
  for (i in seq_len(nrow(s))) {
    ref <- algorithm1_r(12, s$replica[i] - 1, 0.3, 2, 0.5, 0.3, 0.02, 400000,
                        dg = 1e-4 * 0.02)
    expect_equal(s$value[i], ref, tolerance = 1e-10)
  }
})

test_that("results do not depend on threads or chunking, in both precisions", {
  args <- list(gamma = c(0.4, 0.6), V0 = 1, beta = 0.3, theta = 0.2, dt = 0.05,
               t_max = 3000, seed = 99, backend = "cpu", progress = FALSE)
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    run <- function(n, first = 1) {
      without_step_warnings(
        do.call(escape_times, c(list(replicas = n, first_replica = first, method = m,
                                     precision = prec), args)))
    }
    whole <- with_threads(1, run(60))
    two <- with_threads(2, run(60))
    expect_identical(as.data.frame(two), as.data.frame(whole))
    chunks <- with_threads(2, rbind(run(25), run(35, first = 26)))
    expect_identical(as.data.frame(chunks), as.data.frame(whole))
    # a chunk alone equals its rows of the whole
    part <- run(10, first = 31)
    expect_identical(as.data.frame(part)$value,
                     whole$value[whole$replica %in% 31:40])
  }
  a <- do.call(escape_times, c(list(replicas = 10), args))
  expect_error(rbind(a, a), "overlap")
  b <- do.call(escape_times, c(list(replicas = 10, first_replica = 11), modifyList(args, list(seed = 1))))
  expect_error(rbind(a, b), "one simulation")
})

test_that("replica_chunks() lays out chunks that cover the replicas once", {
  ch <- replica_chunks(10, size = 4)
  expect_identical(ch$first_replica, c(1, 5, 9))
  expect_identical(ch$replicas, c(4, 4, 2))
  expect_identical(ch$last_replica, c(4, 8, 10))
  for (k in c(1, 3, 7, 10)) {
    ch <- replica_chunks(10, chunks = k, first_replica = 101)
    expect_identical(nrow(ch), as.integer(k))
    expect_equal(unlist(Map(seq, ch$first_replica, ch$last_replica)), 101:110)
    expect_lte(max(ch$replicas) - min(ch$replicas), 1)
  }
  expect_error(replica_chunks(10), "exactly one of `size`")
  expect_error(replica_chunks(10, size = 2, chunks = 5), "exactly one of `size`")
  expect_error(replica_chunks(10, chunks = 11), "`chunks`.*between 1 and 10")
  expect_error(replica_chunks(0, size = 1), "`replicas`")
  expect_error(replica_chunks(10, size = 1.5), "`size`")
  expect_error(replica_chunks(2^40, size = 1), "1e7")
  expect_error(replica_chunks(10, size = 1, first_replica = 2^40), "pass 2\\^40")
})

test_that("chunks run by future.apply workers combine into the one-process result", {
  skip_if_not_installed("future.apply")
  args <- list(gamma = c(0.5, 0.6), V0 = 1, beta = 0.3, theta = 0.2, dt = 0.05,
               t_max = 2000, seed = 7, backend = "cpu", progress = FALSE)
  whole <- do.call(escape_times, c(list(replicas = 90), args))
  ch <- replica_chunks(90, chunks = 3)
  # two worker processes, each running its own chunks with its own threads
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(oplan), add = TRUE)
  parts <- future.apply::future_Map(function(first, m) {
    do.call(statphysgpu::escape_times, c(list(replicas = m, first_replica = first), args))
  }, ch$first_replica, ch$replicas)
  combined <- do.call(rbind, parts)
  expect_identical(as.data.frame(combined), as.data.frame(whole))
  expect_identical(attr(combined, "replicas"), 90)
  expect_identical(attr(combined, "first_replica"), 1)
})

test_that("censoring is exact at t_max and gamma_max", {
  long <- escape_times(400, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
                       dt = 0.02, t_max = 1e6, seed = 3, backend = "cpu",
                       precision = "double", progress = FALSE)
  expect_true(all(long$escaped))
  T <- stats::median(long$value) + 0.013 # not a multiple of h
  cut <- escape_times(400, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
                      dt = 0.02, t_max = T, seed = 3, backend = "cpu",
                      precision = "double", progress = FALSE)
  # the same trajectories: a path escaped by T has the same time; the others
  # are censored at exactly T
  early <- long$value <= T
  expect_identical(cut$escaped, early)
  expect_identical(cut$value[early], long$value[early])
  expect_true(all(cut$value[!early] == T))
  expect_equal(summary(cut)$censored, sum(!early))
  # switching currents censored at gamma_max
  sw <- switching_currents(200, ramp = 1e-3, V0 = 1, beta = 0.5, theta = 0.1,
                           dt = 0.02, gamma0 = 0.3, gamma_max = 0.55, seed = 4,
                           backend = "cpu", progress = FALSE)
  expect_true(all(sw$value[!sw$escaped] == 0.55))
  expect_true(all(sw$value[sw$escaped] <= 0.55 & sw$value[sw$escaped] > 0.3))
  expect_gt(sum(!sw$escaped), 0)
  expect_gt(sum(sw$escaped), 0)
})

test_that("strongly damped: the mean escape time is the Smoluchowski MFPT", {
  # beta^2 >> V0.  Corrections to the overdamped limit:
  #  * inertia at the absorbing point: Langevin paths are smooth, so the
  #    first crossing of phi* behaves like a diffusive absorbing point moved
  #    out by the Milne length 1.0326 sqrt(theta)/beta; with
  #    d log(tau)/d phi* = 0.892 at these parameters (quadrature of the
  #    MFPT integral) the mean is longer by 0.892 * 1.0326 sqrt(theta)/beta
  #    = 0.68% at beta = 120 omega_b (measured: +2.6% at 30 omega_b,
  #    +1.9% at 60, +0.7% at 120, each +-1.6%);
  #  * the rate's own finite-damping correction, O((omega_b/beta)^2) = 7e-5;
  #  * the step: SRK2 integrates the free velocity exactly in its position
  #    diffusion coefficient (theta/beta for any h beta); the force error is
  #    O((h omega_b)^2) ~ 1e-5 at h = 0.4/beta.
  # All below 1%, far below the standard error (1.6% with 4000 paths); the
  # test accepts |mean - tau| < 4 standard errors (two-sided p = 6e-5).
  # A low barrier (Delta U / theta = 1) keeps the paths short; the
  # Smoluchowski MFPT is exact at any barrier height.
  g <- 0.5
  V0 <- 1
  wb <- sqrt(V0) * (1 - g^2)^0.25
  beta <- 120 * wb
  theta <- barrier_height(g, V0)
  x <- escape_times(4000, gamma = g, V0 = V0, beta = beta, theta = theta,
                    dt = 0.4 / beta, t_max = 1e9, seed = 2026, backend = "cpu",
                    progress = FALSE)
  expect_true(all(x$escaped))
  tau <- mfpt_smoluchowski(g, V0, beta, theta)
  se <- stats::sd(x$value) / sqrt(nrow(x))
  expect_lt(abs(mean(x$value) - tau) / se, 4)
})

test_that("at low noise escape times are exponential beyond a short transient", {
  # Delta U / theta = 5, moderately damped: relaxation in the well takes a
  # few 1/beta = 2; escapes after t0 = 40 follow an exponential law.  The rate
  # is estimated on odd replicas and the KS test runs on even ones (so its
  # p-value is not biased by the fit); accept p > 0.001.
  x <- escape_times(3000, gamma = 0.5, V0 = 1, beta = 0.5,
                    theta = barrier_height(0.5, 1) / 5, dt = 0.02, t_max = 1e6,
                    seed = 5, backend = "cpu", progress = FALSE)
  t0 <- 40
  late <- x$value > t0
  fit <- x$value[late & x$replica %% 2 == 1] - t0
  chk <- x$value[late & x$replica %% 2 == 0] - t0
  rate <- 1 / mean(fit)
  p <- suppressWarnings(stats::ks.test(chk, "pexp", rate = rate)$p.value)
  expect_gt(p, 0.001)
  # ... and the test has power: an Erlang-2 law with the same mean fails
  p2 <- suppressWarnings(stats::ks.test(chk, "pgamma", shape = 2, rate = 2 * rate)$p.value)
  expect_lt(p2, 0.001)
})

test_that("the bias of the mean escape time is O(h) with Euler and O(h^2) with SRK2", {
  # 2e5 paths per step size, Delta U / theta = 2 (short paths), coarse steps
  # (h sqrt(V0) = 0.1 .. 0.4) so that the bias dominates the noise.  A joint
  # weighted fit with one common h -> 0 limit m0:
  #   Euler: m0 + a1 h + a2 h^2,   SRK2: m0 + b2 h^2  (no linear term).
  # Accept: chi-square p > 0.001; Euler's a1 and SRK2's b2 nonzero at |z| > 5;
  # and in the fit that frees a linear term b1 for SRK2, |z(b1)| < 3.
  hs <- c(0.4, 0.3, 0.2, 0.1)
  res <- do.call(rbind, lapply(c("euler", "srk2"), function(m) {
    do.call(rbind, lapply(hs, function(h) {
      x <- suppressWarnings(escape_times(
        2e5, gamma = 0.5, V0 = 1, beta = 0.5, theta = barrier_height(0.5, 1) / 2,
        dt = h, t_max = 1e6, method = m, seed = 5, backend = "cpu", progress = FALSE))
      data.frame(m = m, h = h, mean = mean(x$value),
                 se = stats::sd(x$value) / sqrt(nrow(x)))
    }))
  }))
  E <- res$m == "euler"
  S <- !E
  wls <- function(X) {
    W <- diag(1 / res$se^2)
    V <- solve(t(X) %*% W %*% X)
    b <- drop(V %*% t(X) %*% W %*% res$mean)
    list(b = b, se = sqrt(diag(V)), chi2 = sum((res$mean - X %*% b)^2 / res$se^2),
         df = nrow(X) - ncol(X))
  }
  f <- wls(cbind(m0 = 1, a1 = res$h * E, a2 = res$h^2 * E, b2 = res$h^2 * S))
  expect_gt(stats::pchisq(f$chi2, f$df, lower.tail = FALSE), 0.001)
  expect_gt(abs(f$b[["a1"]] / f$se[["a1"]]), 5)
  expect_gt(abs(f$b[["b2"]] / f$se[["b2"]]), 5)
  g <- wls(cbind(m0 = 1, a1 = res$h * E, a2 = res$h^2 * E, b1 = res$h * S,
                 b2 = res$h^2 * S))
  expect_lt(abs(g$b[["b1"]] / g$se[["b1"]]), 3)
})

test_that("switching currents follow Fulton-Dunkleberger with the Kramers rate", {
  # Moderate damping (Q = 3 at gamma 0.6), a ramp slow enough that the median
  # switching bias has Delta U / theta = 8.5 (adiabatic Kramers regime).
  # Accept: the ECDF stays within the 99% Kolmogorov-Smirnov band
  # (1.628 / sqrt(n)) of the theory CDF widened by 0.02 for the theory's own
  # error.  400 paths of ~5e6 steps fit in CI; a GPU-host test uses 20000.
  V0 <- 20
  beta <- sqrt(V0) * (1 - 0.6^2)^0.25 / 3
  theta <- 0.5
  ramp <- 2.447995e-06 # from switching_distribution(): median at DU/theta = 8.5
  gamma0 <- 0.6315     # theory CDF 1e-4
  gmax <- 0.817        # theory CDF 0.9999
  n <- 400
  x <- switching_currents(n, ramp = ramp, V0 = V0, beta = beta, theta = theta,
                          dt = 0.05 / sqrt(V0), gamma0 = gamma0, gamma_max = gmax,
                          seed = 3, backend = "cpu", progress = FALSE)
  th <- switching_distribution(sort(x$value), ramp, V0, beta, theta, "kramers",
                               gamma0 = gamma0)$cdf
  ecdf_hi <- seq_len(n) / n
  dev <- max(abs(c(ecdf_hi - th, ecdf_hi - 1 / n - th)))
  expect_lt(dev, 1.628 / sqrt(n) + 0.02)
  med <- stats::median(x$value)
  expect_gt(barrier_height(med, V0) / theta, 8)
})

test_that("summary, print, plot and conversions work", {
  x <- escape_times(300, gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.25,
                    dt = 0.02, t_max = 150, seed = 8, backend = "cpu", progress = FALSE)
  expect_true(any(!x$escaped)) # some censoring, so the censored paths are exercised
  s <- summary(x)
  expect_s3_class(s, "summary.sp_paths")
  expect_equal(nrow(s), 2)
  expect_equal(s$replicas, c(300, 300))
  # the column's old name is still read, deprecated
  expect_warning(expect_equal(s$n, c(300, 300)), class = "statphysgpu_deprecated")
  expect_equal(s$censored, c(sum(!x$escaped[x$condition == 1]),
                             sum(!x$escaped[x$condition == 2])))
  expect_true(all(s$mean_lower <= s$mean & s$mean <= s$mean_upper))
  expect_true(all(s$q25 <= s$median, na.rm = TRUE))
  # the mean and tail rate are censored_mean() and exp_tail_rate() with
  # their own defaults
  d1 <- x[x$condition == 1, ]
  expect_equal(s$mean[1], censored_mean(d1$value, d1$escaped)$estimate)
  expect_equal(s$tail_rate[1], exp_tail_rate(d1$value, d1$escaped)$rate)
  out <- capture.output(print(x))
  expect_match(out[1], "<escape_times> 600 paths, 2 conditions")
  expect_true(any(grepl("backend: cpu", out)))
  expect_output(print(s), "Escape times by condition")
  d <- as.data.frame(x)
  expect_identical(class(d), "data.frame")
  expect_named(d, c("condition", "gamma", "V0", "beta", "theta", "replica",
                    "value", "escaped"))
  f <- tempfile(fileext = ".pdf")
  grDevices::pdf(f)
  # a rate theory against saddle crossings compares unlike things: said
  expect_warning(expect_invisible(plot(x, theory = "kramers")), "like with like",
                 class = "statphysgpu_theory_mismatch")
  xn <- escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.25,
                     dt = 0.02, t_max = 150, seed = 8, backend = "cpu",
                     progress = FALSE, threshold = "next_well")
  expect_silent(plot(xn, theory = "kramers"))
  expect_silent(plot(x, theory = "smoluchowski"))
  expect_warning(plot(xn, theory = "smoluchowski"), "first passage at the saddle")
  grDevices::dev.off()
  unlink(f)
  skip_if_not_installed("ggplot2")
  expect_warning(g <- ggplot2::autoplot(x, theory = "bhl"), "like with like")
  expect_s3_class(g, "ggplot")
  expect_s3_class(ggplot2::autoplot(xn, theory = "bhl"), "ggplot")
  skip_if_not_installed("survival")
  sv <- as_surv(x)
  expect_s3_class(sv, "Surv")
  expect_equal(length(sv), 600)
})

test_that("an interrupt returns every path, the unfinished censored where they stopped", {
  skip_on_os("windows")
  args <- list(gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.15, dt = 0.01,
               t_max = 1e9, seed = 1, backend = "cpu", progress = FALSE)
  job <- interrupt_after(1)
  expect_warning(
    x <- do.call(escape_times, c(list(replicas = 2000), args)),
    "interrupted: .* of 2,000 paths finished; the .* unfinished are censored at the time",
    class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_true(attr(x, "interrupted"))
  # no NA: every path is an observation, escaped or censored
  expect_false(anyNA(x$value) || anyNA(x$escaped))
  unf <- attr(x, "unfinished")
  expect_gt(nrow(unf), 0)
  iu <- match(paste(unf$condition, unf$replica), paste(x$condition, x$replica))
  expect_false(any(x$escaped[iu]))
  s <- summary(x)
  expect_equal(s$unfinished, nrow(unf))
  expect_equal(s$censored, sum(!x$escaped))
  # finished paths are those of an uninterrupted run of those replicas
  done <- which(x$escaped)[1]
  y <- do.call(escape_times, c(list(replicas = 1, first_replica = x$replica[done]), args))
  expect_identical(y$value, x$value[done])
  # an unfinished path, run to its end, escapes after the time it had reached
  # (a path that had started: value > 0)
  started <- iu[x$value[iu] > 0][1]
  z <- do.call(escape_times, c(list(replicas = 1, first_replica = x$replica[started]), args))
  expect_true(z$escaped)
  expect_gt(z$value, x$value[started])
  expect_output(print(x), "interrupted: .* unfinished paths?, censored where")
  expect_equal(nrow(escape_times(5, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3,
                                 dt = 0.02, t_max = 100, seed = 1, backend = "cpu")), 5)
})

test_that("a time limit is an error, not an interrupt: try() sees it", {
  # setTimeLimit() raises through R_CheckUserInterrupt(); the engine stops,
  # frees what it holds, and the error continues to the caller
  f <- function() {
    setTimeLimit(elapsed = 0.5, transient = TRUE)
    on.exit(setTimeLimit(elapsed = Inf))
    escape_times(2000, gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.15, dt = 0.01,
                 t_max = 1e9, seed = 1, backend = "cpu", progress = FALSE)
  }
  r <- try(f(), silent = TRUE)
  expect_s3_class(r, "try-error")
  expect_match(conditionMessage(attr(r, "condition")), "time limit")
  # the session goes on
  expect_equal(nrow(escape_times(5, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3,
                                 dt = 0.02, t_max = 100, seed = 1, backend = "cpu",
                                 progress = FALSE)), 5)
})

test_that("bad input gives errors that name the argument", {
  ok <- list(replicas = 10, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
             t_max = 100, seed = 1, backend = "cpu", progress = FALSE)
  bad <- function(...) do.call(escape_times, modifyList(ok, list(...)))
  expect_error(bad(replicas = 0), "`replicas` must be a single whole number between 1")
  expect_error(bad(replicas = 2.5), "`replicas` must be")
  expect_error(bad(gamma = 1), "`gamma` must be .* in \\[0, 1\\), not 1")
  expect_error(bad(gamma = c(0.2, -0.1)), "`gamma` must be .* not -0.1")
  expect_error(bad(gamma = NA), "`gamma` must be")
  expect_error(bad(V0 = 0), "`V0` must be")
  expect_error(bad(beta = -1), "`beta` must be")
  expect_error(bad(theta = Inf), "`theta` must be")
  expect_error(bad(dt = 0), "`dt` must be")
  expect_error(bad(dt = c(0.1, 0.2)), "`dt` must be")
  expect_error(bad(t_max = Inf), "`t_max` must be")
  expect_error(bad(t_max = 0.001), "`t_max` .* must be at least one step")
  # more steps than a path can count: refused (t_max / h >= 2^64 wrapped the
  # 64-bit step count and censored every path at once)
  expect_error(bad(t_max = 1e18, dt = 0.05), "`t_max / dt` = 2e\\+19 steps per path is more than 2\\^53")
  expect_error(bad(t_max = 1e300, dt = 1e-300), "more than 2\\^53")
  expect_error(bad(t_max = 1e6, dt = 1e-12), "more than 2\\^53")
  expect_error(bad(method = "rk4"), "`method` must be one of \"srk2\", \"euler\"")
  expect_error(bad(precision = "half"), "`precision` must be one of")
  expect_error(bad(first_replica = 0), "`first_replica` must be")
  expect_error(bad(progress = NA), "`progress` must be TRUE or FALSE")
  expect_error(bad(seed = -1), "`seed` must be")
  expect_error(bad(replicas = 2^31), "result would have 2,147,483,648 rows")
  expect_error(bad(replicas = 2^30, gamma = c(0.1, 0.2, 0.3, 0.4)), "rows")
  big <- floor(statphysgpu:::available_memory() / 56 * 1.5)
  if (is.finite(big) && big < .Machine$integer.max) {
    expect_error(bad(replicas = big), "would need about .* of memory")
  }
  st <- .Call(statphysgpu:::C_sp_r_gpu_status)
  if (!st$available) {
    expect_error(bad(backend = "gpu"), "GPU backend is unavailable: ")
  }
  expect_warning(bad(dt = 0.2), "`dt` is coarse for the dynamics: dt \\* sqrt\\(V0\\) = 0.2 > 0.1")
  sbad <- function(...) do.call(switching_currents, modifyList(
    list(replicas = 10, ramp = 1e-3, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
         seed = 1, backend = "cpu", progress = FALSE), list(...)))
  expect_error(sbad(ramp = 0), "`ramp` must be")
  expect_error(sbad(ramp = -1e-3), "`ramp` must be")
  expect_error(sbad(gamma0 = 1), "`gamma0` must be a single finite number in \\[0, 1\\)")
  expect_error(sbad(gamma0 = 0.5, gamma_max = 0.4), "`gamma_max` must be a single finite number in \\(0.5, 1\\], not 0.4")
  expect_error(sbad(gamma_max = 1.2), "`gamma_max` must be")
  expect_error(as_surv(data.frame(value = 1)), "`x` must be a result")
})

# ---- continuation: init = a previous result --------------------------------

test_that("init = a result continues its censored paths: one call with the larger t_max", {
  args <- list(gamma = c(0.4, 0.6), V0 = 1, beta = 0.3, theta = 0.2, dt = 0.05, seed = 99,
               backend = "cpu", progress = FALSE)
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    run <- function(t_max) {
      without_step_warnings(do.call(escape_times, c(list(replicas = 100, t_max = t_max,
                                                         method = m, precision = prec), args)))
    }
    a <- run(30.03) # kmax = 601: the last macro-step runs 3 steps past it
    whole <- run(300.01)
    b <- without_step_warnings(escape_times(init = a, t_max = 300.01, backend = "cpu",
                                            progress = FALSE))
    expect_gt(sum(!a$escaped), sum(!whole$escaped)) # some censored paths escape later
    expect_gt(sum(!whole$escaped), 0)
    expect_identical(as.data.frame(b), as.data.frame(whole))
    expect_identical(attr(b, "state"), attr(whole, "state"))
    # the useful steps of one call (the steps of every finished path)
    expect_identical(attr(b, "steps")[["useful"]], attr(whole, "steps")[["useful"]])
    for (at in c("t_max", "conditions", "seed_hex", "precision", "method", "dt", "init"))
      expect_identical(attr(b, at), attr(whole, at))
    expect_identical(nrow(attr(b, "unfinished")), 0L)
  }
  # the end state: only the paths not escaped, where they stopped
  st <- attr(a, "state")
  expect_identical(paste(st$condition, st$replica),
                   paste(a$condition, a$replica)[!a$escaped])
  expect_true(all(st$step == 604))
})

test_that("a crossing pending past t_max is reported by the continuation, as by one call", {
  # t_max inside the bulk of the escape times: of 3000 paths some cross in
  # the steps of the last macro-step past kmax, or inside step kmax but past
  # t_max; continued to a t_max a step later, they escape there
  args <- list(replicas = 3000, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05,
               seed = 3, backend = "cpu", progress = FALSE, precision = "double",
               threshold = "next_well")
  a <- do.call(escape_times, c(args, t_max = 5.03))
  st <- attr(a, "state")
  expect_gt(sum(st$hit > 0), 0)
  expect_true(all(st$frac[st$hit == 0] == 0) && all(st$frac[st$hit > 0] > 0))
  for (tm in c(5.07, 50)) {
    w <- do.call(escape_times, c(args, t_max = tm))
    b <- escape_times(init = a, t_max = tm, backend = "cpu", progress = FALSE)
    expect_identical(as.data.frame(b), as.data.frame(w))
    expect_identical(attr(b, "state"), attr(w, "state"))
    expect_identical(attr(b, "steps")[["useful"]], attr(w, "steps")[["useful"]])
    a <- b # and again, from the continued result
  }
  # the same t_max: nothing to run, the same result
  expect_identical(as.data.frame(escape_times(init = b, t_max = 50, backend = "cpu")),
                   as.data.frame(b))
})

test_that("switching currents continue to a higher gamma_max", {
  run <- function(gmax) {
    switching_currents(300, ramp = 1e-3, V0 = 2, beta = 0.5, theta = c(0.3, 0.5), dt = 0.02,
                       gamma0 = 0.3, gamma_max = gmax, seed = 5, backend = "cpu",
                       progress = FALSE, precision = "double")
  }
  a <- run(0.55)
  w <- run(0.9)
  b <- switching_currents(init = a, gamma_max = 0.9, backend = "cpu", progress = FALSE)
  expect_gt(sum(!a$escaped), 100)
  expect_identical(as.data.frame(b), as.data.frame(w))
  expect_identical(attr(b, "state"), attr(w, "state"))
  expect_identical(attr(b, "gamma_max"), 0.9)
  expect_identical(attr(b, "steps")[["useful"]], attr(w, "steps")[["useful"]])
})

test_that("continuation and rbind() of chunks commute (thermal start)", {
  run <- function(n, first = 1, t_max) {
    escape_times(n, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05, t_max = t_max,
                 seed = 3, first_replica = first, init = "thermal", backend = "cpu",
                 progress = FALSE)
  }
  whole <- run(100, t_max = 20)
  cont <- function(x) escape_times(init = x, t_max = 20, backend = "cpu", progress = FALSE)
  a <- run(40, t_max = 2)
  b <- run(60, 41, t_max = 2)
  expect_gt(sum(!a$escaped), 10)
  # each chunk continued, then combined
  ab <- rbind(cont(a), cont(b))
  expect_identical(as.data.frame(ab), as.data.frame(whole))
  expect_identical(attr(ab, "state"), attr(whole, "state"))
  # combined, then continued
  ab2 <- cont(rbind(a, b))
  expect_identical(as.data.frame(ab2), as.data.frame(whole))
  expect_identical(attr(ab2, "state"), attr(whole, "state"))
  expect_identical(attr(ab2, "steps")[["useful"]], attr(whole, "steps")[["useful"]])
})

test_that("an interrupted run continues to the uninterrupted result", {
  skip_on_os("windows")
  args <- list(replicas = 1200, gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.15, dt = 0.01,
               t_max = 5000, seed = 1, init = "thermal", backend = "cpu", progress = FALSE)
  # one thread: the run lasts well past the interrupt on any machine
  job <- interrupt_after(0.5)
  expect_warning(x <- with_threads(1, do.call(escape_times, args)),
                 class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  st <- attr(x, "state")
  unf <- attr(x, "unfinished")
  expect_gt(nrow(unf), 0)
  # unfinished: started (a step reached) or not (step -1, started afresh)
  iu <- match(paste(unf$condition, unf$replica), paste(st$condition, st$replica))
  expect_true(all(st$step[iu] < 5000 / 0.01))
  y <- escape_times(init = x, t_max = 5000, backend = "cpu", progress = FALSE)
  whole <- do.call(escape_times, args)
  expect_identical(as.data.frame(y), as.data.frame(whole))
  expect_identical(attr(y, "state"), attr(whole, "state"))
  expect_false(attr(y, "interrupted"))
  expect_identical(nrow(attr(y, "unfinished")), 0L)
})

test_that("a modified or mismatched result is refused clearly", {
  x <- escape_times(50, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05, t_max = 2,
                    seed = 3, backend = "cpu", progress = FALSE)
  go <- function(...) escape_times(init = x, backend = "cpu", progress = FALSE, ...)
  expect_error(go(), "give `t_max` to continue `init`", class = "statphysgpu_error")
  expect_error(go(t_max = 1), "`t_max` = 1 is below the t_max = 2 of `init`",
               class = "statphysgpu_error")
  expect_error(go(t_max = 5, seed = 4), "`init` was run with seed = .*, this call has",
               class = "statphysgpu_error")
  expect_error(go(t_max = 5, gamma = 0.5), "`init` was run with gamma = 0.6, this call has 0.5",
               class = "statphysgpu_error")
  expect_error(go(t_max = 5, dt = 0.02), "`init` was run with dt = 0.05",
               class = "statphysgpu_error")
  expect_error(without_step_warnings(go(t_max = 5, method = "euler")),
               "`init` was run with method = srk2", class = "statphysgpu_error")
  expect_error(go(t_max = 5, precision = "double"), "`init` was run with precision = single",
               class = "statphysgpu_error")
  expect_error(go(t_max = 5, threshold = "next_well"), "`init` was run with threshold = saddle",
               class = "statphysgpu_error")
  expect_error(go(t_max = 5, replicas = 40), "`init` was run with replicas = 50",
               class = "statphysgpu_error")
  s <- switching_currents(20, ramp = 1e-3, V0 = 2, beta = 0.5, theta = 0.3, dt = 0.02,
                          gamma0 = 0.3, gamma_max = 0.5, seed = 5, backend = "cpu")
  expect_error(escape_times(init = s, t_max = 5), "a result of escape_times\\(\\) to continue",
               class = "statphysgpu_error")
  expect_error(switching_currents(init = s, gamma_max = 0.6, gamma0 = 0.2),
               "`init` was run with gamma0 = 0.3", class = "statphysgpu_error")
  # modified results: refused by the seal first (naming what changed), and
  # sealed again (as if made so) by the checks of what is read
  modified <- function(y, what, error) {
    expect_error(escape_times(init = y, t_max = 5),
                 paste0("`init` was modified after it was run: its ", what),
                 class = "statphysgpu_modified_result")
    expect_error(escape_times(init = reseal(y), t_max = 5), error, class = "statphysgpu_error")
  }
  y <- x
  attr(y, "state") <- NULL
  modified(y, "attribute `state`", "has no end state of its paths")
  y <- x
  y$value[which(!y$escaped)[1]] <- 1
  modified(y, "column `value`", "no usable end state.*censoring value")
  y <- x
  y$escaped[which(!y$escaped)[1]] <- TRUE
  modified(y, "column `escaped`", "exactly the paths not escaped")
  y <- x
  attr(y, "state")$step[1] <- 3
  modified(y, "attribute `state`", "has step = 3")
  y <- x
  attr(y, "state")$phi[1] <- NaN
  modified(y, "attribute `state`", "phi = NaN")
  modified(x[1:10, ], "column", "no end state|no usable end state")
})
