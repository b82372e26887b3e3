# broom's tidy() and glance() for the package's fits and estimates (those
# of summaries, h_check() and censored_mean() in R/tidiers-results.R), and
# posterior's as_draws() for helium VMC blocks.  The generics live in the
# packages `generics` and `posterior` (both in Suggests); the methods are
# registered when those packages are loaded (`S3method(generics::tidy, ...)`
# in NAMESPACE, R's delayed registration), so neither is needed to load
# statphysgpu.

# A two-sided interval for estimates with standard errors: normal quantiles,
# or Student t on `df` degrees of freedom when `df` is finite.
tidy_interval <- function(est, se, level, df = Inf) {
  q <- if (is.finite(df)) stats::qt((1 + level) / 2, df) else stats::qnorm((1 + level) / 2)
  data.frame(conf.low = est - q * se, conf.high = est + q * se)
}

tidy_check_level <- function(conf.level) {
  check_range(conf.level, "conf.level", 0, 1, lo_open = TRUE, hi_open = TRUE, len = 1,
              call = sys.call(-1))
}

#' Tidy summaries of fits and estimates (broom)
#'
#' Methods for the generics `tidy()` and `glance()` of the generics package
#' (re-exported by broom), registered when that package is loaded. `tidy()`
#' gives one row per estimated quantity (`term`, `estimate`, `std.error`
#' and, where asked, a confidence or credible interval); `glance()` gives
#' one row describing the whole fit.
#'
#' * [arrhenius_fit()]: terms `intercept` and `barrier`; with `tau_se` the
#'   statistic and p-value use the normal distribution (known errors),
#'   without it Student t on `df`; `glance()` gives the points, `df`,
#'   `chisq` and `p.value` of the goodness of fit (`NA` without `tau_se`),
#'   `sigma` (the residual scale) and whether the fit was weighted.
#' * [tts_estimate()]: per condition, terms `tts` (the time to solution at
#'   the success probability `success`) and `tau` (the mean time to a solution), each its posterior
#'   median with `conf.low`, `conf.high` the credible interval and `mean`
#'   the posterior mean; `glance()` the conditions, runs, solved runs and
#'   the settings.
#' * [tts_scaling()]: terms `slope` and `intercept` of
#'   \eqn{\log_{10}} TTS against size; `glance()` the sizes, `sigma`,
#'   `df.residual` and `r.squared` of the fit.
#' * [reblock()]: one row per blocking level (`estimate` the mean,
#'   `std.error` its standard error at that level); `glance()` the values,
#'   chains and the optimal level with its mean and standard error.
#' * [escape_rate_ams()] and [sde_ams()]: per condition (the grid's
#'   columns first), terms `p`, `mfpt` and `rate` with their jackknife
#'   standard errors; `glance()` the conditions and replicas.
#'
#' * [censored_mean()]: term `mean` with `std.error`, its interval and the
#'   method; `glance()` the values, censored values and the tail's start and
#'   rate.
#' * [h_check()]: per condition, terms `mean_h`, `mean_h2` (the mean at `dt`
#'   and at `dt/2` with their standard errors), `difference` and `bias_h`
#'   with the z statistic and its two-sided normal p-value; `glance()` the
#'   conditions, `dt`, the method, its order and the largest \eqn{|z|}.
#' * Summaries: `summary()` of escape and passage times (terms `mean`,
#'   `median`, `tail_rate` per condition), of [he4_vmc()] and [he4_dmc()]
#'   (one row per observable, the reblocked standard error), of
#'   [escape_rate_ams()] and [sde_ams()] (as the result), of
#'   [xorsat_qg()] (the [tts_estimate()] terms, per value of `p1`), of
#'   [driven_brownian()] (terms `v`, `D_eff`, `v2`), of [kuramoto()] (term
#'   `r`) and of [lrmd()] (its table, one row per replica); `glance()` one
#'   row of counts and settings each.
#'
#' @param x A result of one of the functions above.
#' @param conf.int Whether to add `conf.low` and `conf.high`.
#' @param conf.level The level of the interval.
#' @param ... Unused.
#' @return A tibble, as broom's tidiers return, where the tibble package is
#'   installed (it is in Suggests; wherever broom is, tibble is), else a
#'   data frame with the same columns. `tidy()` of an empty result
#'   (`x[0, ]`) has no rows and the columns of any other; `glance()` of it is
#'   its one row (as broom's always is), with no conditions and no replicas.
#' @name tidiers
#' @examples
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   theta <- c(0.004, 0.005, 0.006, 0.008, 0.010)
#'   tau <- 30 / theta * exp(0.0342 / theta)
#'   fit <- arrhenius_fit(theta, tau, prefactor_power = 1, tau_se = 0.02 * tau)
#'   generics::tidy(fit, conf.int = TRUE)
#'   generics::glance(fit)
#'   e <- tts_estimate(c(120, 340, 95, 800), solved = c(TRUE, TRUE, TRUE, FALSE))
#'   generics::tidy(e)
#' }
NULL

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.arrhenius_fit <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  est <- c(intercept = x$intercept, barrier = x$barrier)
  se <- c(x$intercept_se, x$barrier_se)
  stat <- est / se
  df <- if (isTRUE(x$weighted)) Inf else x$df
  p <- if (is.finite(df)) 2 * stats::pt(-abs(stat), df) else 2 * stats::pnorm(-abs(stat))
  out <- data.frame(term = names(est), estimate = unname(est), std.error = se,
                    statistic = unname(stat), p.value = unname(p))
  if (isTRUE(conf.int)) {
    out <- cbind(out, tidy_interval(out$estimate, se, tidy_check_level(conf.level), df))
  }
  sp_tibble(out)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.arrhenius_fit <- function(x, ...) {
  sp_tibble(data.frame(nobs = length(x$theta), df = x$df,
                       sigma = sqrt(sum(x$residuals^2) / x$df), chisq = x$chisq,
                       p.value = x$p_value, weighted = isTRUE(x$weighted),
                       prefactor_power = x$prefactor_power))
}

# The columns of a tts_estimate() table that describe its conditions.
tts_condition_columns <- function(x) {
  own <- c("runs", "solved", "total", "total_seconds", "shape", "rate", "tau_mean",
           "tau_median", "tau_lower", "tau_upper", "success", "level", "tts", "tts_mean",
           "tts_lower", "tts_upper", "credible", "prior", "unit")
  setdiff(names(x), own)
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.tts_estimate <- function(x, conf.int = TRUE, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  cond <- d[tts_condition_columns(d)]
  one <- function(term, med, mean, lo, hi) {
    out <- data.frame(term = rep(term, nrow(d)), estimate = med, mean = mean,
                      stringsAsFactors = FALSE) # (an empty table: no rows)
    if (isTRUE(conf.int)) {
      out$conf.low <- lo
      out$conf.high <- hi
      out$conf.level <- d$credible
    }
    out$unit <- d$unit
    if (ncol(cond)) cbind(cond, out) else out
  }
  out <- rbind(one("tts", d$tts, d$tts_mean, d$tts_lower, d$tts_upper),
               one("tau", d$tau_median, d$tau_mean, d$tau_lower, d$tau_upper))
  if ("condition" %in% names(out)) out <- out[order(out$condition), , drop = FALSE]
  sp_tibble(out)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.tts_estimate <- function(x, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  sp_tibble(data.frame(conditions = nrow(d), runs = sum(d$runs), solved = sum(d$solved),
                       success = d$success[1], credible = d$credible[1], prior = d$prior[1],
                       unit = d$unit[1], stringsAsFactors = FALSE))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.tts_scaling <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  est <- x$coefficients
  se <- x$se
  stat <- est / se
  out <- data.frame(term = names(est), estimate = unname(est), std.error = unname(se),
                    statistic = unname(stat),
                    p.value = unname(2 * stats::pt(-abs(stat), x$df)))
  if (isTRUE(conf.int)) {
    out <- cbind(out, tidy_interval(out$estimate, out$std.error,
                                    tidy_check_level(conf.level), x$df))
  }
  sp_tibble(out)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.tts_scaling <- function(x, ...) {
  y <- log10(x$data$median_tts)
  w <- x$data$weight
  r <- stats::residuals(x$fit)
  yw <- sum(w * y) / sum(w)
  sp_tibble(data.frame(nobs = nrow(x$data), df.residual = x$df, sigma = x$sigma,
                       r.squared = 1 - sum(w * r^2) / sum(w * (y - yw)^2),
                       unit = if (is.null(x$unit)) NA_character_ else x$unit,
                       stringsAsFactors = FALSE))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.sp_reblock <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  out <- data.frame(level = x$level, blocks = x$blocks, estimate = x$mean,
                    std.error = x$se, se_error = x$se_error, optimal = x$optimal)
  if (isTRUE(conf.int)) {
    out <- cbind(out, tidy_interval(out$estimate, out$std.error,
                                    tidy_check_level(conf.level)))
  }
  sp_tibble(out)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.sp_reblock <- function(x, ...) {
  k <- which(x$optimal)
  sp_tibble(data.frame(nobs = attr(x, "n", exact = TRUE),
                       chains = attr(x, "chains", exact = TRUE), levels = nrow(x),
                       optimal_level = if (length(k)) x$level[k] else NA_integer_,
                       estimate = if (length(k)) x$mean[k] else NA_real_,
                       std.error = if (length(k)) x$se[k] else NA_real_))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.escape_rate_ams <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  d <- as.data.frame(x)
  own <- c("p", "p_se", "mfpt", "mfpt_se", "rate", "rate_se", "replicas")
  grid <- d[setdiff(names(d), own)]
  rows <- lapply(c("p", "mfpt", "rate"), function(term) {
    out <- data.frame(term = rep(term, nrow(d)), estimate = d[[term]],
                      std.error = d[[paste0(term, "_se")]], replicas = d$replicas,
                      stringsAsFactors = FALSE) # (an empty result: no rows)
    if (isTRUE(conf.int)) {
      out <- cbind(out, tidy_interval(out$estimate, out$std.error,
                                      tidy_check_level(conf.level)))
    }
    if (ncol(grid)) cbind(grid, out) else out
  })
  sp_tibble(do.call(rbind, rows))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.escape_rate_ams <- function(x, ...) {
  d <- as.data.frame(x)
  sp_tibble(data.frame(conditions = nrow(d), replicas = sum(d$replicas)))
}
