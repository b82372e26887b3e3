# reblock(), blocking_se(), tau_int(), time_to_error(): error analysis of
# correlated series.
#
# Statistical checks compare against exact values with tolerances of z = 4
# standard errors (a false alarm about 1 time in 16,000 per check); the
# errors are the ones the functions state (se_error, Sokal's variance) or
# their exact counterparts.  A simulation of 300 AR(1) and 300 white-noise
# series (n = 2^16) gave z-scores with sd 0.9-1.13 and |z| < 3.4 for every
# check below.

# Stationary AR(1), x_t = phi x_{t-1} + e_t with unit innovations (x_1 drawn
# from the stationary law, variance 1 / (1 - phi^2)).
ar1 <- function(n, phi) {
  e <- rnorm(n)
  e[1] <- e[1] / sqrt(1 - phi^2)
  as.numeric(stats::filter(e, phi, method = "recursive"))
}

# Exact variance of the mean of B consecutive values of that AR(1).
ar1_var_mean <- function(B, phi) {
  1 / (1 - phi^2) / B *
    ((1 + phi) / (1 - phi) - 2 * phi * (1 - phi^B) / (B * (1 - phi)^2))
}

# Exact expectation of the squared blocked standard error of a series of
# length n at block size B (n / B blocks): the sum of squares of the block
# means about their mean has expectation nb (Var_B - Var_n), divided by
# nb - 1 and nb (ddof = 1, reblock) or by nb^2 (ddof = 0, Jonsson).
ar1_se2 <- function(n, B, phi, ddof = 1) {
  nb <- n / B
  (ar1_var_mean(B, phi) - ar1_var_mean(n, phi)) / (nb - ddof)
}

jonsson_data <- function() {
  path <- system.file("extdata", "blocking-jonsson2018.txt", package = "statphysgpu")
  scan(path, quiet = TRUE)
}

test_that("reblock's table: level 0, halving, the blocks themselves, se_error", {
  set.seed(11)
  x <- rnorm(1000) + 3
  r <- reblock(x)
  expect_s3_class(r, "sp_reblock")
  expect_s3_class(r, "data.frame")
  expect_identical(names(r), c("level", "blocks", "mean", "se", "se_error", "optimal"))
  # 1000, 500, 250, 125, 62, 31, 15, 7, 3: an odd count drops its last block
  expect_equal(r$blocks, floor(1000 / 2^(0:8)))
  expect_identical(r$level, 0:8)
  expect_equal(r$se[1], sd(x) / sqrt(1000))
  expect_equal(r$mean[1], mean(x))
  expect_equal(r$se_error, r$se / sqrt(2 * (r$blocks - 1)))
  expect_equal(attr(r, "dropped"), 1000 - r$blocks * 2^r$level)
  expect_identical(attr(r, "n"), 1000L)
  expect_identical(attr(r, "chains"), 1L)
  # level k = the means of consecutive blocks of 2^k values of the start
  for (k in 0:8) {
    B <- 2^k
    nb <- r$blocks[k + 1]
    b <- colMeans(matrix(x[seq_len(nb * B)], nrow = B))
    expect_equal(r$mean[k + 1], mean(b))
    expect_equal(r$se[k + 1], sd(b) / sqrt(nb))
  }
  # the optimal level is the first that meets Lee et al.'s criterion
  meets <- 2^(3 * r$level) > 2 * 1000 * (r$se / r$se[1])^4
  expect_identical(r$optimal, seq_along(meets) == which(meets)[1])
  expect_equal(sum(r$optimal), 1)
  # a power-of-two length keeps the mean at every level
  y <- rnorm(256)
  expect_equal(reblock(y)$mean, rep(mean(y), 8), tolerance = 1e-13)
  expect_true(all(attr(reblock(y), "dropped") == 0))
  # integers are numbers
  expect_equal(reblock(1:16)$se, reblock(as.double(1:16))$se)
})

test_that("white noise: SE = sd/sqrt(n) at every level; the optimal level is 6, not 0", {
  set.seed(12)
  n <- 2^16
  x <- rnorm(n)
  r <- reblock(x)
  expect_equal(r$se[1], sd(x) / sqrt(n))
  # Lee et al.'s criterion 2^(3k) > 2 n (SE_k/SE_0)^4 never holds at k = 0
  # (1 < 2n); for white noise SE_k/SE_0 ~ 1 +- 2% at level 6, so it first
  # holds at 2^(3k) > 2^17: k = 6 (k = 5 would need SE_5/SE_0 < 0.71, a
  # 30-sigma fluctuation; k = 6 fails only if SE_6/SE_0 > 1.19, 8 sigma)
  expect_identical(r$level[r$optimal], 6L)
  o <- blocking_se(x)
  expect_identical(attr(o, "level"), 6L)
  expect_lt(abs(o - 1 / sqrt(n)), 4 * attr(o, "se_error"))
  # every level estimates the same sigma / sqrt(n) (z = 4 at each)
  expect_true(all(abs(r$se - 1 / sqrt(n)) < 4 * r$se_error))
  # Jonsson: its level is 0 to ~d/2 on white noise (see ?blocking_se); the
  # estimate has relative error 1/sqrt(2 n_k) (ddof 0: expectation
  # (1 - 1/n_k) sigma^2 / n)
  j <- blocking_se(x, "jonsson")
  nk <- n / 2^attr(j, "level")
  expect_lt(abs(j - sqrt((1 - 1 / nk) / n)), 4 * sqrt(1 / n) / sqrt(2 * nk))
  # tau_int = 1 within Sokal's error sqrt(2 (2M + 1) / n)
  t <- tau_int(x)
  expect_lt(abs(t - 1), 4 * sqrt(2 * (2 * attr(t, "window") + 1) / n))
  expect_gte(attr(t, "window"), 5L)
})

test_that("AR(1), phi = 0.9: tau_int and both blocking SEs match the exact values", {
  set.seed(13)
  n <- 2^16
  phi <- 0.9
  x <- ar1(n, phi)
  tau_true <- (1 + phi) / (1 - phi) # 19
  se_true <- sqrt(ar1_var_mean(n, phi)) # sqrt(var / n * tau) up to O(1/n)
  expect_equal(se_true, sqrt(1 / (1 - phi^2) / n * tau_true), tolerance = 2e-4)

  # tau_int within z = 4 of Sokal's sd tau sqrt(2 (2M + 1) / n) (7.6% here);
  # its window M ~ 5 tau
  t <- tau_int(x)
  M <- attr(t, "window")
  expect_equal(attr(t, "se"), as.numeric(t) * sqrt(2 * (2 * M + 1) / n))
  expect_lt(abs(t - tau_true), 4 * tau_true * sqrt(2 * (2 * M + 1) / n))
  expect_gte(M, 5 * t)
  expect_lt(M, 5 * t + 5)

  # optimal level: 2^(3k) > 2 n tau^2 = 4.7e7 first at k = 9 (k = 8 would
  # need an estimated tau below 11.3, k = 9 fails only above 32)
  o <- blocking_se(x)
  k <- attr(o, "level")
  expect_identical(k, 9L)
  # against the exact expectation at level 9, and against the truth: the
  # bias of blocks of 512 is 0.9% of SE, far below 4 se_error (25%)
  nk <- n / 2^k
  E <- sqrt(ar1_se2(n, 2^k, phi))
  expect_lt(abs(E / se_true - 1), 0.01)
  expect_lt(abs(o - E), 4 * E / sqrt(2 * (nk - 1)))
  expect_lt(abs(o - se_true), 4 * attr(o, "se_error"))
  expect_equal(attr(o, "mean"), mean(x))

  # Jonsson: within z = 4 of the exact expectation at the level it picks
  # (its error: 1/sqrt(2 n_k) relative).  It stops as soon as the lag-1
  # correlations of the blocks are undetectable, which for n = 2^16 and
  # tau = 19 is level 6 or 7, where blocking still underestimates SE by
  # 3.5-8% (bias relative to the truth, about 3 of its own sigmas); we
  # check the bias at its level is below 10% and the estimate within
  # bias + 4 sigma of the truth.
  j <- blocking_se(x, "jonsson")
  kj <- attr(j, "level")
  nj <- n / 2^kj
  Ej <- sqrt(ar1_se2(n, 2^kj, phi, ddof = 0))
  expect_lt(abs(j - Ej), 4 * Ej / sqrt(2 * nj))
  expect_lt(1 - Ej / se_true, 0.10)
  expect_lt(abs(j / se_true - 1), (1 - Ej / se_true) + 4 / sqrt(2 * nj))
  expect_identical(attr(j, "blocks"), nj)
})

test_that("Jonsson's data: the published mean and standard error", {
  x <- jonsson_data()
  expect_length(x, 65536)
  j <- blocking_se(x, "jonsson")
  # published: mean 2.97804, SE 0.00392796, variance 1.54289e-05; we get
  # 0.003927962877 (level 10, 64 blocks): within half a unit of the last
  # published digit
  expect_lt(abs(j - 0.00392796), 5e-9)
  expect_lt(abs(j^2 - 1.54289e-05), 5e-11)
  expect_lt(abs(attr(j, "mean") - 2.97804), 5e-6)
  expect_identical(attr(j, "level"), 10L)
  expect_identical(attr(j, "method"), "jonsson")
  expect_identical(attr(j, "n"), 65536)
  # the code's table of 0.99 chi-squared quantiles is qchisq() rounded
  q_code <- c(6.634897, 9.210340, 11.344867, 13.276704, 15.086272, 16.811894,
              18.475307, 20.090235, 21.665994, 23.209251, 24.724970, 26.216967,
              27.688250, 29.141238, 30.577914, 31.999927, 33.408664, 34.805306,
              36.190869, 37.566235, 38.932173, 40.289360, 41.638398, 42.979820,
              44.314105, 45.641683, 46.962942, 48.278236, 49.587884, 50.892181)
  expect_equal(round(qchisq(0.99, 1:30), 6), q_code)
  # the optimal level (12, 16 blocks) gives 0.0049913 +- 0.00091: 1.17 of
  # its se_error above the published value; we accept z = 3 (tau_int ~ 570
  # here, so the series holds only ~115 independent samples)
  o <- blocking_se(x)
  expect_identical(attr(o, "level"), 12L)
  expect_lt(abs(o - 0.00392796), 3 * attr(o, "se_error"))
  expect_lt(abs(attr(o, "mean") - 2.97804), 5e-6)
})

test_that("Jonsson on a length that is not a power of two uses its first 2^d values", {
  x <- jonsson_data()[1:50000]
  expect_message(j <- blocking_se(x, "jonsson"), "first 32,768 of 50,000",
                 class = "statphysgpu_blocking_truncated")
  expect_identical(j, blocking_se(x[1:32768], "jonsson"))
  expect_silent(blocking_se(x[1:32768], "jonsson"))
})

test_that("several chains: combined as independent estimates of one grand mean", {
  set.seed(14)
  n <- 2^14
  phi <- 0.9
  X <- vapply(1:4, function(i) ar1(n, phi), numeric(n))
  r <- reblock(X)
  per <- lapply(1:4, function(j) reblock(X[, j]))
  K <- nrow(r)
  expect_identical(K, 14L)
  se_j <- vapply(per, function(p) p$se[seq_len(K)], numeric(K))
  nb_j <- vapply(per, function(p) p$blocks[seq_len(K)], numeric(K))
  # equal lengths: SE_k = sqrt(sum_j SE_kj^2) / m, and the propagated error
  expect_equal(r$se, sqrt(rowSums(se_j^2)) / 4)
  expect_equal(r$se_error,
               sqrt(rowSums(se_j^4 * 2 / (nb_j - 1))) / 4^2 / (2 * r$se))
  expect_equal(r$blocks, rowSums(nb_j))
  expect_equal(r$mean, rep(mean(X), K), tolerance = 1e-12)
  expect_identical(attr(r, "chains"), 4L)
  expect_identical(attr(r, "n"), 65536L)
  # a list of the columns, and a one-column matrix / one-element list
  expect_identical(reblock(lapply(1:4, function(j) X[, j])), r)
  expect_identical(reblock(X[, 1, drop = FALSE]), per[[1]])
  expect_identical(reblock(list(X[, 1])), per[[1]])
  # against the truth: Var(grand mean) = Var(chain mean) / 4 (z = 4)
  se_true <- sqrt(ar1_var_mean(n, phi) / 4)
  o <- blocking_se(X)
  expect_lt(abs(o - se_true), 4 * attr(o, "se_error"))
  # Jonsson per chain, combined the same way
  j <- blocking_se(X, "jonsson")
  j_each <- vapply(1:4, function(i) blocking_se(X[, i], "jonsson"), 0)
  expect_equal(as.numeric(j), sqrt(sum(j_each^2)) / 4)
  expect_length(attr(j, "level"), 4)
  expect_equal(attr(j, "mean"), mean(X))
  # tau_int averages the chains' autocorrelation functions: identical chains
  # give the single-chain value; four chains give 19 within Sokal's error
  # with n = all 2^16 values
  t1 <- tau_int(X[, 1])
  t2 <- tau_int(cbind(X[, 1], X[, 1]))
  expect_identical(as.numeric(t2), as.numeric(t1))
  expect_identical(attr(t2, "window"), attr(t1, "window"))
  t <- tau_int(X)
  expect_lt(abs(t - 19), 4 * 19 * sqrt(2 * (2 * attr(t, "window") + 1) / (4 * n)))
})

test_that("chains of different lengths: weights by the values covered, no block straddles", {
  set.seed(15)
  a <- rnorm(101)
  b <- rnorm(60) + 1
  r <- reblock(list(a, b))
  w <- c(101, 60) / 161
  expect_equal(r$mean[1], mean(c(a, b)))
  expect_equal(r$se[1], sqrt(w[1]^2 * var(a) / 101 + w[2]^2 * var(b) / 60))
  # level 1: 50 pairs of a (its last value dropped) and 30 of b
  expect_identical(r$blocks[1:2], c(161, 80))
  a1 <- (a[seq(1, 99, 2)] + a[seq(2, 100, 2)]) / 2
  b1 <- (b[seq(1, 59, 2)] + b[seq(2, 60, 2)]) / 2
  w1 <- c(50, 30) / 80
  expect_equal(r$se[2], sqrt(w1[1]^2 * var(a1) / 50 + w1[2]^2 * var(b1) / 30))
  expect_equal(r$mean[2], sum(w1 * c(mean(a1), mean(b1))))
  # levels stop where the shorter chain has 2 blocks left (60 -> 2 at k = 4)
  expect_identical(max(r$level), 4L)
  expect_identical(attr(r, "dropped")[2], 1)
})

test_that("tau_int: the FFT autocorrelation, the window, and the convention", {
  set.seed(16)
  x <- ar1(5000, 0.7)
  rho <- statphysgpu:::acf_fft(x)
  expect_equal(rho[1:101], as.numeric(acf(x, lag.max = 100, plot = FALSE)$acf),
               tolerance = 1e-10)
  t <- tau_int(x)
  M <- attr(t, "window")
  taus <- 1 + 2 * cumsum(rho[-1])        # tau(M) for M = 1, 2, ...
  expect_equal(as.numeric(t), taus[M])
  expect_identical(M, which(seq_along(taus) >= 5 * taus)[1])
  # a wider window constant cuts later
  t10 <- tau_int(x, window = 10)
  expect_gt(attr(t10, "window"), M)
  expect_lt(abs(t10 - t), 4 * attr(t10, "se"))
  # paper 002's m_c is (tau_int - 1) / 2: for AR(1) phi / (1 - phi) = 2.33
  expect_lt(abs((t - 1) / 2 - 0.7 / 0.3), 4 * attr(t, "se") / 2)
  # a short chain: emcee's 50-tau warning
  expect_warning(tau_int(ar1(300, 0.9)), "shorter than 50 tau_int",
                 class = "statphysgpu_blocking_warning")
})

test_that("too short for its correlation: no optimal level, NA with a warning", {
  r <- reblock(1:64)
  expect_false(any(r$optimal))
  expect_output(print(r), "No level meets")
  expect_warning(o <- blocking_se(1:64), "no blocking level",
                 class = "statphysgpu_blocking_warning")
  expect_true(is.na(o))
  expect_identical(attr(o, "method"), "optimal")
})

test_that("values near the ends of the double range: scaled, the same answers", {
  # reblock() near 1e308 used to give Inf/NaN (its sums overflowed), and
  # tau_int(c(0, 0, 0, 1e-320)) failed ("missing value where TRUE/FALSE
  # needed": the variance underflowed to 0).  Scaling by a power of two is
  # exact, so the tables are those of the scaled data, times the power.
  set.seed(21)
  x <- ar1(1000, 0.5)
  big <- 1e308 + 1e307 * x / max(abs(x)) # in [9e307, 1.1e308]
  s <- 2^1000
  r <- reblock(big)
  r0 <- reblock(big / s)
  expect_true(all(is.finite(r$mean) & is.finite(r$se) & is.finite(r$se_error)))
  expect_identical(r$mean, r0$mean * s)
  expect_identical(r$se, r0$se * s)
  expect_identical(r$se_error, r0$se_error * s)
  expect_identical(r$optimal, r0$optimal)
  expect_identical(as.numeric(blocking_se(big)), as.numeric(blocking_se(big / s)) * s)
  expect_identical(as.numeric(blocking_se(big[1:512], "jonsson")),
                   as.numeric(blocking_se(big[1:512] / s, "jonsson")) * s)
  expect_equal(tau_int(big), tau_int(big / s), tolerance = 1e-12)
  # tiny values, whose squares vanish
  tiny <- x * 1e-300
  expect_equal(tau_int(tiny), tau_int(x), tolerance = 1e-12)
  expect_equal(reblock(tiny)$se, reblock(x)$se * 1e-300, tolerance = 1e-12)
  # and the series of the report: four values, one of them subnormal, is
  # c(0, 0, 0, 1) up to scale; too short to mean anything, and it says so
  expect_warning(t <- tau_int(c(0, 0, 0, 1e-320)), "not positive",
                 class = "statphysgpu_blocking_warning")
  expect_warning(t1 <- tau_int(c(0, 0, 0, 1)), "not positive",
                 class = "statphysgpu_blocking_warning")
  expect_equal(as.numeric(t), as.numeric(t1), tolerance = 1e-12)
  expect_true(is.finite(t) && attr(t, "se") >= 0)
})

test_that("print and plot", {
  set.seed(17)
  r <- reblock(ar1(1000, 0.5))
  expect_output(print(r), "sp_reblock: 1,000 values in 1 chain")
  expect_output(print(r), "Optimal level")
  expect_output(print(r), "Odd block counts")
  expect_output(expect_invisible(print(r)))
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(r))
})

test_that("time_to_error: t sigma^2 and the time for a target error", {
  # paper 002: 1 mK in 130 s on a K20 is 130 s mK^2
  expect_equal(time_to_error(130, 1), 130)
  expect_equal(time_to_error(130, 1, target = 0.5), 520)
  expect_equal(time_to_error(130, 1e-3), 1.3e-4)             # s K^2
  expect_equal(time_to_error(130, 1e-3, target = 0.5e-3), 520) # units cancel
  expect_equal(time_to_error(c(10, 20), c(2, 1)), c(40, 20))
  expect_equal(time_to_error(100, 1, target = c(1, 2, 0.1)), c(100, 25, 10000))
  expect_error(time_to_error(0, 1), "`seconds` must be", class = "statphysgpu_error")
  expect_error(time_to_error(1, -2), "`se` must be", class = "statphysgpu_error")
  expect_error(time_to_error(1, NA), "`se` must be", class = "statphysgpu_error")
  expect_error(time_to_error("1", 1), "`seconds` must be", class = "statphysgpu_error")
  expect_error(time_to_error(1, 1, target = 0), "`target` must be",
               class = "statphysgpu_error")
  expect_error(time_to_error(1:2, 1:3), "cannot be recycled", class = "statphysgpu_error")
})

test_that("bad input gives clear errors", {
  err <- function(code, pattern) {
    expect_error(code, pattern, class = "statphysgpu_error")
  }
  err(reblock("a"), "`x` must be a numeric vector")
  err(reblock(c(TRUE, FALSE, TRUE, TRUE)), "not a logical vector")
  err(reblock(c(1, NA, 3, 4, 5)), "`x` must be a numeric vector of finite numbers, not NA")
  err(reblock(c(1, Inf, 3, 4, 5)), "finite")
  err(reblock(1:3), "at least 4 values; it has 3")
  err(reblock(rep(2, 10)), "constant")
  err(reblock(list()), "empty list")
  err(reblock(list(rnorm(10), "a")), "`x\\[\\[2\\]\\]` must be a numeric vector")
  err(reblock(list(rnorm(10), rnorm(3))), "`x\\[\\[2\\]\\]` must hold at least 4")
  err(reblock(matrix(letters[1:8], 4)), "numeric matrix")
  err(reblock(cbind(rnorm(10), c(1:9, NA))), "`x\\[, 2\\]`")
  err(reblock(array(rnorm(8), c(2, 2, 2))), "array of dimensions 2 x 2 x 2")
  err(blocking_se(rnorm(10), "foo"), "`method` must be one of")
  err(blocking_se("a"), "`x` must be")
  err(blocking_se(c(1, NA, 2, 3), "jonsson"), "finite")
  err(tau_int(rnorm(10), window = 0), "`window` must be a single positive")
  err(tau_int(rnorm(10), window = -1), "`window`")
  err(tau_int(rnorm(10), window = NA), "`window`")
  err(tau_int(rnorm(10), window = c(1, 2)), "`window`")
  err(tau_int(rnorm(10), window = "5"), "`window`")
  err(tau_int(1:2), "at least 4")
  err(tau_int(NULL), "`x` must be")
})
