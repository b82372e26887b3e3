# Means and tail rates of escape times with right censoring (paths that had
# not escaped when the simulation stopped).  Used by the summary() methods
# of the result objects, and exported for analysts.

# Shared checks: finite values (non-negative when `times`), escaped logical
# (NULL = all escaped), level.
check_censored_sample <- function(value, escaped, call, times = FALSE) {
  value <- if (times) {
    check_positive(value, "value", allow_zero = TRUE, call = call)
  } else {
    check_finite(value, "value", call = call)
  }
  if (is.null(escaped)) {
    escaped <- rep(TRUE, length(value))
  } else {
    escaped <- check_logical_vector(escaped, "escaped", length(value),
                                    call = call)
  }
  list(value = value, escaped = escaped)
}

# Default start of the exponential tail, the same everywhere (exp_tail_rate(),
# censored_mean(), summary() of simulation results): the lower median of the
# escaped values -- an order statistic, so that for exponential tails the
# excesses beyond it are again exponential (Renyi's representation), and
# before the censoring time however heavy the censoring is, so that escapes
# remain beyond it.  Without censoring it is the lower sample median.  With
# no escape at all: 0 (or the smallest value if negative), so that the whole
# exposure counts towards an upper limit of the rate.
default_tail_start <- function(value, escaped) {
  v <- value[escaped]
  if (length(v)) return(sort(v)[ceiling(length(v) / 2)])
  min(0, value)
}

#' Rate of the exponential tail of escape times
#'
#' Escape times over a barrier are exponentially distributed after a short
#' transient: \eqn{P(T > t) \propto e^{-\lambda t}} for \eqn{t} beyond some
#' \eqn{t_1} (`from`). The maximum-likelihood estimate of \eqn{\lambda} from
#' right-censored data is the number of escapes after \eqn{t_1} divided by
#' the total time at risk after \eqn{t_1},
#' \deqn{\hat\lambda = \frac{d}{E},\qquad d = \#\{i: T_i > t_1,
#'   \text{escaped}\},\qquad E = \sum_{i: T_i > t_1} (T_i - t_1).}
#'
#' The confidence interval is exact in the chi-square (gamma) sense:
#' without censoring after `from`, \eqn{2\lambda E} is exactly
#' \eqn{\chi^2_{2d}} (the excesses are independent exponentials), giving
#' \eqn{[\chi^2_{2d,\alpha/2}, \chi^2_{2d,1-\alpha/2}]/(2E)}; with censoring,
#' \eqn{d} is treated as Poisson with mean \eqn{\lambda E} (Garwood's
#' interval, \eqn{[\chi^2_{2d,\alpha/2}, \chi^2_{2d+2,1-\alpha/2}]/(2E)}),
#' the usual conservative interval for censored exponential data. With
#' \eqn{d = 0} the estimate is 0 and the lower limit is 0.
#'
#' @param value Escape times (finite numbers), censored or not.
#' @param escaped Logical vector as long as `value`: `FALSE` marks a
#'   censored time (the path had not escaped by then). `NULL` means all
#'   escaped.
#' @param from Start \eqn{t_1} of the exponential tail, a single finite
#'   number, or `NULL` for the lower median of the escaped values,
#'   `sort(v)[ceiling(d / 2)]` with `v` the \eqn{d} escaped values: without
#'   censoring the lower sample median; with censoring, however heavy, a point
#'   with half of the escapes beyond it (with no escape at all, 0). The same
#'   default is used by [censored_mean()] and by `summary()` of simulation
#'   results. Values equal to `from` do not count as in the tail.
#' @param level Confidence level, in (0, 1).
#' @return A list with `rate`, `lower`, `upper`, `from`, `events` (\eqn{d}),
#'   `exposure` (\eqn{E}), `n_tail` (number of values beyond `from`),
#'   `level` and `method`.
#' @references
#' Cox, D. R. and Oakes, D. (1984) *Analysis of Survival Data*. Chapman and
#'   Hall, Sec. 3.2.
#'
#' Garwood, F. (1936) Fiducial limits for the Poisson distribution.
#'   *Biometrika* 28, 437-442 \doi{10.1093/biomet/28.3-4.437}.
#' @examples
#' set.seed(2)
#' t <- 1 + rexp(500, rate = 0.2) # a transient of 1, then rate 0.2
#' stop_at <- 12
#' exp_tail_rate(pmin(t, stop_at), escaped = t <= stop_at)
#' @export
exp_tail_rate <- function(value, escaped, from = NULL, level = 0.95) {
  call <- sys.call()
  d <- check_censored_sample(value, escaped, call = call)
  level <- check_level(level, call = call)
  if (is.null(from)) {
    from <- default_tail_start(d$value, d$escaped)
  } else {
    from <- check_number(from, "from", call = call)
  }
  exp_tail_core(d$value, d$escaped, from, level, call)
}

exp_tail_core <- function(value, escaped, from, level, call) {
  tail <- value > from
  n_tail <- sum(tail)
  if (n_tail == 0) {
    sp_abort(sprintf(paste0(
      "No values lie beyond `from` = %s (the largest is %s), so the tail ",
      "rate cannot be estimated; choose a smaller `from`."),
      format(from, digits = 6), format(max(value), digits = 6)), call = call)
  }
  events <- sum(escaped[tail])
  exposure <- sum(value[tail] - from)
  a <- (1 - level) / 2
  censored_tail <- any(!escaped[tail])
  lower <- if (events > 0) stats::qchisq(a, 2 * events) / (2 * exposure) else 0
  upper_df <- if (censored_tail || events == 0) 2 * events + 2 else 2 * events
  upper <- stats::qchisq(1 - a, upper_df) / (2 * exposure)
  list(rate = events / exposure, lower = lower, upper = upper, from = from,
       events = events, exposure = exposure, n_tail = n_tail, level = level,
       method = if (censored_tail || events == 0) {
         "MLE events/exposure, Garwood (Poisson) chi-square interval"
       } else {
         "MLE events/exposure, exact chi-square interval"
       })
}

#' Mean escape time from a censored sample
#'
#' Estimates the mean of escape times when some paths had not escaped when
#' the simulation stopped (right censoring), with a confidence interval.
#'
#' * Without censoring: the sample mean with the normal (central limit)
#'   interval \eqn{\bar T \pm z\,s/\sqrt n}.
#' * With censoring: escape times have an exponential tail beyond a short
#'   transient, so the mean is split at \eqn{t_1} (`from`) into the
#'   Kaplan-Meier restricted mean and an exponential tail,
#'   \deqn{\hat\mu = \int_0^{t_1}\hat S(t)\,dt + \hat S(t_1)/\hat\lambda,}
#'   with \eqn{\hat\lambda} the censored-data MLE of the tail rate (see
#'   [exp_tail_rate()]). Its variance is by the delta method: the
#'   Kaplan-Meier part contributes Greenwood's
#'   \eqn{\sum_{t_j\le t_1} A_j^2\,d_j/(n_j(n_j-d_j))} with
#'   \eqn{A_j = \int_{t_j}^{\infty}\hat S} (the tail included), and the rate
#'   \eqn{(\hat S(t_1)/\hat\lambda)^2/d}, \eqn{d} being the number of
#'   escapes after \eqn{t_1} (the two parts are asymptotically independent,
#'   being built from disjoint time ranges). The interval is formed on the
#'   log scale, \eqn{\hat\mu\exp(\pm z\,se/\hat\mu)}, which suits the
#'   right-skewed estimator. It relies on the tail being exponential beyond
#'   \eqn{t_1}; the default \eqn{t_1}, the lower median of the escaped
#'   values, leaves half of the escapes to the tail and is beyond the
#'   transient whenever the transient is short compared with the mean.
#'   At least one escape must lie beyond \eqn{t_1} (so at least two escapes
#'   with the default).
#'
#' @inheritParams exp_tail_rate
#' @param value Escape times (non-negative finite numbers).
#' @param from Start \eqn{t_1} of the exponential tail (only used with
#'   censoring); `NULL` for the lower median of the escaped values (see
#'   [exp_tail_rate()]), which leaves half of the escapes to the tail however
#'   heavy the censoring. It must not be beyond the largest value.
#' @return A list of class `censored_mean` (a bare list in earlier
#'   versions; the fields are the same) with `estimate`, `lower`, `upper`,
#'   `se`, `method`, `level`, `n`, `n_censored`, and, with censoring, `from`
#'   and `tail_rate` (\eqn{\hat\lambda}); these two are `NA` without
#'   censoring. It has a `print()` method, and `tidy()` and `glance()`
#'   methods (see [tidiers]).
#' @references
#' Klein, J. P. and Moeschberger, M. L. (2003) *Survival Analysis:
#'   Techniques for Censored and Truncated Data*, 2nd ed. Springer, Sec. 4.5
#'   (restricted mean and its variance).
#' @examples
#' set.seed(3)
#' t <- 0.5 + rexp(300, rate = 0.1) # true mean 10.5
#' stop_at <- 20
#' censored_mean(pmin(t, stop_at), escaped = t <= stop_at)
#' censored_mean(t, escaped = NULL) # no censoring
#' @export
censored_mean <- function(value, escaped, level = 0.95, from = NULL) {
  call <- sys.call()
  d <- check_censored_sample(value, escaped, call = call, times = TRUE)
  level <- check_level(level, call = call)
  if (!is.null(from)) from <- check_number(from, "from", call = call)
  value <- d$value
  escaped <- d$escaped
  n <- length(value)
  n_cens <- sum(!escaped)
  z <- stats::qnorm(1 - (1 - level) / 2)
  if (n_cens == 0) {
    if (n < 2) {
      sp_abort("`value` must hold at least 2 values for an interval.",
               call = call)
    }
    m <- mean(value)
    se <- stats::sd(value) / sqrt(n)
    return(censored_mean_result(estimate = m, lower = m - z * se, upper = m + z * se,
                se = se, method = "sample mean, normal (CLT) interval",
                level = level, n = n, n_censored = 0L,
                from = NA_real_, tail_rate = NA_real_))
  }
  if (is.null(from)) from <- default_tail_start(value, escaped)
  if (from < 0) {
    sp_abort(sprintf("`from` must be non-negative, not %s.", describe(from)),
             call = call)
  }
  tail <- exp_tail_core(value, escaped, from, level, call)
  if (tail$events == 0) {
    sp_abort(sprintf(paste0(
      "No escapes lie beyond `from` = %s, so the exponential tail of the ",
      "escape times cannot be estimated; choose a smaller `from` or run the ",
      "simulation longer."), format(from, digits = 6)), call = call)
  }
  lambda <- tail$rate
  km <- km_table(value, escaped)
  # Kaplan-Meier on [0, from]: S is right-continuous and drops at km$time.
  k <- km$time <= from
  t_j <- km$time[k]
  S_j <- km$surv[k]
  S_before <- c(1, S_j[-length(S_j)]) # S just before t_j
  S_from <- if (any(k)) S_j[length(S_j)] else 1
  # integral of S over [0, from]: pieces [t_{j-1}, t_j) at S_before, then
  # [t_last, from] at S_from.
  edges <- c(0, t_j)
  rmst <- sum(S_before * diff(edges)) + S_from * (from - edges[length(edges)])
  tail_mean <- S_from / lambda
  est <- rmst + tail_mean
  # A_j = int_{t_j}^{Inf} S = (int_{t_j}^{from} S) + S_from / lambda
  int_after <- rev(cumsum(rev(S_j * diff(c(t_j, from))))) # int_{t_j}^{from} S
  A <- int_after + tail_mean
  dj <- km$n_event[k]
  nj <- km$n_risk[k]
  gw <- ifelse(dj > 0, dj / (nj * (nj - dj)), 0)
  var_km <- sum(A^2 * gw)
  var_tail <- tail_mean^2 / tail$events
  se <- sqrt(var_km + var_tail)
  censored_mean_result(estimate = est, lower = est * exp(-z * se / est),
       upper = est * exp(z * se / est), se = se,
       method = paste0("Kaplan-Meier restricted mean + exponential tail ",
                       "(censored MLE rate), delta-method log-scale interval"),
       level = level, n = n, n_censored = n_cens, from = from,
       tail_rate = lambda)
}
