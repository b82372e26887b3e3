# ecdf_band(): DKW band without censoring, Kaplan-Meier + Greenwood with it.

# Does the band (a right-continuous step function between the distinct
# values, [0, eps] below the first one) contain the continuous increasing
# CDF F everywhere?  On [x_i, x_{i+1}) F runs from F(x_i) to F(x_{i+1}-).
band_covers <- function(b, F) {
  Fx <- F(b$x)
  F_next <- c(Fx[-1], 1)
  Fx[1] <= attr(b, "epsilon") && all(b$lower <= Fx) && all(F_next <= b$upper)
}

test_that("the DKW band has the right half-width and shape", {
  x <- c(3, 1, 2, 2, 5)
  b <- ecdf_band(x, level = 0.9)
  eps <- sqrt(log(2 / 0.1) / (2 * 5))
  expect_s3_class(b, "sp_ecdf_band")
  expect_s3_class(b, "data.frame")
  expect_identical(names(b)[1:4], c("x", "cdf", "lower", "upper"))
  expect_equal(b$x, c(1, 2, 3, 5))
  expect_equal(b$cdf, c(1, 3, 4, 5) / 5)
  expect_equal(b$lower, pmax(b$cdf - eps, 0))
  expect_equal(b$upper, pmin(b$cdf + eps, 1))
  expect_equal(attr(b, "epsilon"), eps)
  expect_identical(attr(b, "method"), "DKW")
  expect_identical(attr(b, "level"), 0.9)
  expect_identical(attr(b, "n"), 5L)
  expect_identical(attr(b, "n_censored"), 0L)
  # escaped all TRUE is the same as NULL
  expect_equal(ecdf_band(x, 0.9, escaped = rep(TRUE, 5)), b)
  expect_equal(b$cdf, ecdf(x)(b$x))
})

test_that("the DKW band covers the true CDF at least at the nominal rate", {
  # 400 samples of n = 50 from Exp(1).  The band covers F iff the
  # Kolmogorov distance D_n <= eps (checked per sample against a direct
  # computation of D_n).  The exact coverage P(D_50 <= eps = 0.19206) is
  # 0.95668 (Marsaglia-Tsang-Wang, as computed by ks.test(exact = TRUE)), so
  # the count of covering samples is Binomial(400, 0.95668): mean 382.7,
  # sd 4.07.  We accept [qbinom(5e-4), qbinom(1 - 5e-4)] = [368, 394]
  # (z = 3.3 either side; a false alarm 1 time in 1000); a band at the
  # nominal 0.95 exactly would still pass with probability 0.996.  A band
  # with the one-sided eps = sqrt(log(1/alpha)/(2n)) (exact coverage 0.912)
  # fails with probability 0.69, narrower bands almost surely.
  set.seed(20240601)
  n <- 50
  covered <- logical(400)
  for (r in seq_along(covered)) {
    x <- rexp(n)
    b <- ecdf_band(x)
    covered[r] <- band_covers(b, pexp)
    u <- pexp(sort(x))
    D <- max(seq_len(n) / n - u, u - (seq_len(n) - 1) / n)
    expect_identical(covered[r], D <= attr(b, "epsilon"))
  }
  p0 <- 0.95668
  expect_gte(sum(covered), qbinom(5e-4, 400, p0))
  expect_lte(sum(covered), qbinom(1 - 5e-4, 400, p0))
})

test_that("Kaplan-Meier and Greenwood match survival::survfit to 1e-10", {
  skip_if_not_installed("survival")
  set.seed(7)
  n <- 120
  t <- round(rexp(n, 0.2), 1) # ties
  cens <- round(runif(n, 0, 15), 1)
  v <- pmin(t, cens)
  e <- t <= cens
  for (level in c(0.95, 0.8)) {
    b <- ecdf_band(v, level = level, escaped = e)
    f <- survival::survfit(survival::Surv(v, e) ~ 1, conf.type = "log-log",
                           conf.int = level)
    expect_identical(attr(b, "method"), "Kaplan-Meier (Greenwood)")
    expect_identical(attr(b, "n_censored"), sum(!e))
    expect_equal(b$x, f$time, tolerance = 1e-10)
    expect_equal(b$n_risk, f$n.risk)
    expect_equal(b$n_event, f$n.event)
    expect_equal(b$n_censor, f$n.censor)
    expect_equal(1 - b$cdf, f$surv, tolerance = 1e-10)
    ok <- f$surv > 0
    expect_equal(b$se[ok], (f$surv * f$std.err)[ok], tolerance = 1e-10)
    expect_equal(b$lower, 1 - f$upper, tolerance = 1e-10)
    expect_equal(b$upper, 1 - f$lower, tolerance = 1e-10)
  }
  # last value an escape: S = 0 and the band is undefined (NA), as survfit
  v2 <- c(1, 2, 2, 3, 4, 5, 6); e2 <- c(TRUE, FALSE, TRUE, TRUE, FALSE, TRUE, TRUE)
  b2 <- ecdf_band(v2, escaped = e2)
  f2 <- survival::survfit(survival::Surv(v2, e2) ~ 1, conf.type = "log-log")
  expect_equal(1 - b2$cdf, f2$surv, tolerance = 1e-10)
  expect_equal(b2$lower, 1 - f2$upper, tolerance = 1e-10)
  expect_true(is.na(b2$upper[nrow(b2)]) && b2$cdf[nrow(b2)] == 1)
})

test_that("the Greenwood SE reduces to the binomial SE without censoring", {
  x <- c(0.3, 1.2, 1.2, 2.5, 4, 7.5)
  b <- ecdf_band(x)
  expect_equal(b$se, sqrt(b$cdf * (1 - b$cdf) / 6))
  km <- statphysgpu:::km_table(x, rep(TRUE, 6))
  S <- km$surv
  expect_equal(ifelse(S > 0, S * sqrt(km$greenwood), 0), b$se)
})

test_that("data frames with value/escaped (and one condition) are accepted", {
  set.seed(3)
  t <- rexp(40)
  df <- data.frame(condition = "g=0.5", value = pmin(t, 1.5), escaped = t <= 1.5,
                   theta = 0.1)
  b <- ecdf_band(df)
  expect_equal(b, ecdf_band(df$value, escaped = df$escaped))
  expect_error(ecdf_band(rbind(df, transform(df, condition = "g=0.6"))),
               "holds 2 conditions .* subset it to one condition first",
               class = "statphysgpu_error")
  expect_error(ecdf_band(df, escaped = df$escaped), "`escaped` must be NULL when `x` is a data frame")
  expect_error(ecdf_band(data.frame(v = 1:3)), "without a column `value`")
  df_na <- df; df_na$value[2] <- NA
  expect_error(ecdf_band(df_na), "`x\\$value` must be")
  df_bad <- df; df_bad$escaped[3] <- NA
  expect_error(ecdf_band(df_bad), "`x\\$escaped` must be a logical vector without NA")
  # without an escaped column every value is an escape
  expect_equal(ecdf_band(data.frame(value = c(2, 1, 3)))$cdf, c(1, 2, 3) / 3)
})

test_that("ecdf_band() validates its arguments and prints", {
  expect_error(ecdf_band(c(1, NA)), "`x` must be a numeric vector of finite numbers", class = "statphysgpu_error")
  expect_error(ecdf_band(c(1, Inf)), "`x` must be .* not Inf")
  expect_error(ecdf_band(numeric(0)), "`x` must be")
  expect_error(ecdf_band("a"), "`x` must be")
  expect_error(ecdf_band(1:3, level = 1), "`level` must be a single finite number in \\(0, 1\\), not 1")
  expect_error(ecdf_band(1:3, level = 0), "`level` must be")
  expect_error(ecdf_band(1:3, level = c(0.9, 0.95)), "`level` must be a single")
  expect_error(ecdf_band(1:3, level = NA), "`level` must be")
  expect_error(ecdf_band(1:3, escaped = c(TRUE, FALSE)), "`escaped` must be a logical vector without NA of length 3")
  # 1 and 0 stand for TRUE and FALSE; other numbers are refused by name
  expect_identical(ecdf_band(1:3, escaped = c(1, 0, 1)),
                   ecdf_band(1:3, escaped = c(TRUE, FALSE, TRUE)))
  expect_error(ecdf_band(1:3, escaped = c(2, 0, 1)),
               "`escaped` must be a logical vector .*1 and 0 are accepted.* not numbers other than 0 and 1 \\(2\\)")
  # an unbounded range is not printed as an interval
  e <- tryCatch(ecdf_band(c(1, NA)), error = conditionMessage)
  expect_false(grepl("Inf", e))
  expect_match(e, "`x` must be a numeric vector of finite numbers, not NA")
  expect_error(ecdf_band(1:3, escaped = c(TRUE, NA, TRUE)), "`escaped` must be .* without NA")
  out <- capture.output(print(ecdf_band(1:20)))
  expect_match(out[1], "DKW, simultaneous band at level 0.95")
  expect_match(paste(out, collapse = "\n"), "10 more rows")
  out <- capture.output(print(ecdf_band(1:5, escaped = c(TRUE, TRUE, FALSE, TRUE, TRUE))))
  expect_match(out[1], "Kaplan-Meier \\(Greenwood\\), pointwise, log-log")
})

test_that("the Kaplan-Meier band of a large censored sample has no integer overflow", {
  # n_risk * (n_risk - n_event) passes 2^31 once ~46,000 paths are at risk:
  # the band was NA with "NAs produced by integer overflow" at 100,000 paths
  set.seed(11)
  t <- rexp(1e5)
  b <- expect_silent(ecdf_band(pmin(t, 2), escaped = t <= 2))
  expect_false(anyNA(b$lower[b$cdf > 0 & b$cdf < 1]))
  # Greenwood's variance in doubles at the first event: 1 / (n (n - 1))
  expect_equal(b$se[1], (1 - b$cdf[1]) * sqrt(1 / (1e5 * (1e5 - 1))))
  skip_if_not_installed("survival")
  f <- survival::survfit(survival::Surv(pmin(t, 2), t <= 2) ~ 1, conf.type = "log-log")
  i <- which(b$x %in% f$time)[c(10, 1000, 50000)]
  j <- match(b$x[i], f$time)
  expect_equal(b$lower[i], 1 - f$upper[j], tolerance = 1e-10)
  expect_equal(b$upper[i], 1 - f$lower[j], tolerance = 1e-10)
})
