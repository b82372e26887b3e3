# Empirical distribution functions of escape times and switching currents,
# with and without right censoring.

# Pull `value` and `escaped` out of x (a numeric vector or a data frame with
# columns value, escaped and maybe condition), checking everything.
sample_values <- function(x, escaped, call, x_name = "x") {
  if (is.data.frame(x)) {
    if (!is.null(escaped)) {
      sp_abort(sprintf(paste0(
        "`escaped` must be NULL when `%s` is a data frame: it is taken from ",
        "the column `escaped`."), x_name), call = call)
    }
    if (!"value" %in% names(x)) {
      sp_abort(sprintf(
        "`%s` is a data frame without a column `value`; it needs columns `value` and `escaped`.",
        x_name), call = call)
    }
    if ("condition" %in% names(x)) {
      conds <- unique(x$condition)
      if (length(conds) > 1) {
        sp_abort(sprintf(paste0(
          "`%s` holds %d conditions (column `condition`); subset it to one ",
          "condition first, e.g. %s[%s$condition == %s, ]."), x_name,
          length(conds), x_name, x_name,
          if (is.character(conds)) paste0('"', conds[1], '"') else format(conds[1])),
          call = call)
      }
    }
    escaped <- if ("escaped" %in% names(x)) x$escaped else NULL
    value <- x$value
    if (!is.numeric(value) || length(value) == 0 || anyNA(value) ||
        any(!is.finite(value))) {
      sp_abort(sprintf(
        "`%s$value` must be a non-empty numeric column of finite numbers.", x_name),
        call = call)
    }
    if (!is.null(escaped)) {
      escaped <- check_logical_vector(escaped, paste0(x_name, "$escaped"),
                                      length(value), call = call)
    }
  } else {
    value <- check_finite(x, x_name, call = call)
    if (!is.null(escaped)) {
      escaped <- check_logical_vector(escaped, "escaped", length(value),
                                      call = call)
    }
  }
  if (is.null(escaped)) escaped <- rep(TRUE, length(value))
  list(value = as.double(value), escaped = escaped)
}

# Kaplan-Meier table at the distinct values: time, n_risk, n_event,
# n_censor, surv, and the Greenwood sum v = sum d / (n (n - d)) (variance
# of log S), by survival::survfit() (its std.err is sqrt(v)); the values
# are taken as they are (timefix = FALSE: values a rounding apart stay
# apart, as in ecdf()).
km_table <- function(value, escaped) {
  f <- survival::survfit(survival::Surv(value, escaped) ~ 1, timefix = FALSE,
                         conf.type = "none")
  # doubles: n_risk * (n_risk - n_event) overflows R's integers past ~46,000
  data.frame(time = f$time, n_risk = as.double(f$n.risk), n_event = as.double(f$n.event),
             n_censor = as.double(f$n.censor), surv = f$surv, greenwood = f$std.err^2)
}

#' Empirical CDF with a confidence band, for censored or complete samples
#'
#' The empirical distribution function of a sample of escape times (or
#' switching currents), with a confidence band.
#'
#' * Without censoring (`escaped` `NULL` or all `TRUE`): the ordinary
#'   empirical CDF \eqn{F_n} with the Dvoretzky-Kiefer-Wolfowitz band
#'   \eqn{F_n \pm \varepsilon}, \eqn{\varepsilon = \sqrt{\log(2/\alpha)/(2n)}}
#'   (Massart's constant), clipped to \[0, 1\]. The band is
#'   **simultaneous**: it covers the whole true CDF with probability at least
#'   `level`, for every continuous distribution and every \eqn{n}.
#' * With censoring (some `escaped` `FALSE`: the path had not escaped by the
#'   recorded value, e.g. when a simulation stopped at its time limit): the
#'   Kaplan-Meier estimate \eqn{1 - \hat S} with a **pointwise** band from
#'   Greenwood's variance on the log-log scale,
#'   \eqn{\hat S^{\exp(\pm z\,\sigma/\log\hat S)}} with
#'   \eqn{\sigma^2 = \sum_{t_j \le t} d_j/(n_j(n_j - d_j))} (the
#'   `conf.type = "log-log"` band of [survival::survfit()]). Pointwise means
#'   each value of the CDF is covered with probability about `level`, not
#'   the whole curve at once. Where \eqn{\hat S} is 1 (before the first
#'   escape) or 0 the band is undefined and given as `NA`.
#'
#' `band = "pointwise"` gives the Greenwood log-log band for a complete
#' sample too (there \eqn{\sigma^2 = F_n/(n(1 - F_n))}: the delta-method
#' binomial interval on the log-log scale). It is narrower than the DKW band
#' in the tails, where the DKW band's constant half-width swamps a small
#' \eqn{F_n} or \eqn{1 - F_n}: the band to use on a logarithmic survival or
#' a Gumbel plot (`plot(x, type = "survival")`, see [plot.sp_paths()]).
#'
#' @param x Numeric vector of values, or a data frame with columns `value`
#'   and `escaped` (such as the escape-time and switching-current results of
#'   this package). A data frame with a column `condition` must hold a single
#'   condition.
#' @param level Confidence level, in (0, 1).
#' @param escaped `NULL` (every value is an escape), or a logical vector as
#'   long as `x`: `FALSE` marks a censored value. Must be `NULL` when `x` is a
#'   data frame.
#' @param band `"auto"` (default): simultaneous (DKW) without censoring,
#'   pointwise (Greenwood, log-log) with it; `"pointwise"`: the Greenwood
#'   log-log band in either case; `"simultaneous"`: the DKW band (only for a
#'   sample without censoring).
#' @return A data frame of class `c("sp_ecdf_band", "data.frame")`, one row
#'   per distinct value, with columns `x`, `cdf`, `lower`, `upper` (the band
#'   on the CDF), `se` (standard error of the CDF estimate: Greenwood's, which
#'   without censoring is \eqn{\sqrt{F_n(1-F_n)/n}}), `n_risk`, `n_event` and
#'   `n_censor`; attributes `method` (`"DKW"` or `"Kaplan-Meier
#'   (Greenwood)"`), `band` (`"simultaneous"` or `"pointwise, log-log"`),
#'   `level`, `n`, `n_censored` and, for DKW, `epsilon`. The CDF and band
#'   are right-continuous step functions that hold from each `x` to the next;
#'   below the smallest `x` the CDF is 0 (with the DKW band
#'   \eqn{[0, \varepsilon]}).
#' @references
#' Dvoretzky, A., Kiefer, J. and Wolfowitz, J. (1956) Asymptotic minimax
#'   character of the sample distribution function and of the classical
#'   multinomial estimator. *Annals of Mathematical Statistics* 27, 642-669 \doi{10.1214/aoms/1177728174}.
#'
#' Massart, P. (1990) The tight constant in the Dvoretzky-Kiefer-Wolfowitz
#'   inequality. *Annals of Probability* 18, 1269-1283 \doi{10.1214/aop/1176990746}.
#'
#' Kaplan, E. L. and Meier, P. (1958) Nonparametric estimation from
#'   incomplete observations. *Journal of the American Statistical
#'   Association* 53, 457-481 \doi{10.1080/01621459.1958.10501452}.
#'
#' Kalbfleisch, J. D. and Prentice, R. L. (2002) *The Statistical Analysis of
#'   Failure Time Data*, 2nd ed. Wiley (log-log Greenwood intervals).
#' @examples
#' set.seed(1)
#' t <- rexp(200, rate = 0.1)
#' b <- ecdf_band(t)
#' b
#' # the same sample, stopped at t = 15
#' cens <- pmin(t, 15)
#' ecdf_band(cens, escaped = t <= 15)
#' @export
ecdf_band <- function(x, level = 0.95, escaped = NULL,
                      band = c("auto", "pointwise", "simultaneous")) {
  call <- sys.call()
  level <- check_level(level, call = call)
  band <- check_choice(band, c("auto", "pointwise", "simultaneous"), "band", call = call)
  d <- sample_values(x, escaped, call = call)
  n <- length(d$value)
  n_cens <- sum(!d$escaped)
  if (band == "simultaneous" && n_cens > 0) {
    sp_abort(sprintf(paste0(
      "`band` = \"simultaneous\" (Dvoretzky-Kiefer-Wolfowitz) needs a sample ",
      "without censoring; this one has %d censored value%s: use \"auto\" or ",
      "\"pointwise\"."), n_cens, if (n_cens == 1) "" else "s"), call = call)
  }
  km <- km_table(d$value, d$escaped)
  alpha <- 1 - level
  if (n_cens == 0 && band != "pointwise") {
    cdf <- cumsum(km$n_event) / n # = 1 - km$surv without censoring
    eps <- sqrt(log(2 / alpha) / (2 * n))
    out <- data.frame(x = km$time, cdf = cdf, lower = pmax(cdf - eps, 0),
                      upper = pmin(cdf + eps, 1),
                      se = sqrt(cdf * (1 - cdf) / n))
    method <- "DKW"
    band <- "simultaneous"
    attr(out, "epsilon") <- eps
  } else {
    z <- stats::qnorm(1 - alpha / 2)
    S <- km$surv
    sig <- sqrt(km$greenwood)
    ok <- S > 0 & S < 1
    lS <- ifelse(ok, log(S), NA_real_)
    s_lower <- exp(-exp(log(-lS) - z * sig / lS))
    s_upper <- exp(-exp(log(-lS) + z * sig / lS))
    out <- data.frame(x = km$time, cdf = 1 - S, lower = 1 - s_upper,
                      upper = 1 - s_lower,
                      se = ifelse(S > 0, S * sig, NA_real_))
    method <- "Kaplan-Meier (Greenwood)"
    band <- "pointwise, log-log"
  }
  out$n_risk <- km$n_risk
  out$n_event <- km$n_event
  out$n_censor <- km$n_censor
  attr(out, "method") <- method
  attr(out, "band") <- band
  attr(out, "level") <- level
  attr(out, "n") <- n
  attr(out, "n_censored") <- n_cens
  class(out) <- c("sp_ecdf_band", "data.frame")
  out
}

#' @rdname ecdf_band
#' @param n Number of rows to show.
#' @param ... Passed to [print.data.frame()].
#' @export
print.sp_ecdf_band <- function(x, n = 10, ...) {
  cat(sprintf("<sp_ecdf_band: %s, %s band at level %s>\n",
              attr(x, "method"), attr(x, "band"), format(attr(x, "level"))))
  cat(sprintf("n = %d values, %d censored, %d distinct\n", attr(x, "n"),
              attr(x, "n_censored"), nrow(x)))
  df <- as.data.frame(unclass(x))[, c("x", "cdf", "lower", "upper")]
  n <- max(0, n)
  if (nrow(df) > n) {
    print(df[seq_len(n), , drop = FALSE], ...)
    cat(sprintf("... %d more rows\n", nrow(df) - n))
  } else {
    print(df, ...)
  }
  invisible(x)
}
