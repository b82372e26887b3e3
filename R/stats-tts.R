# Time to solution (TTS) of heuristic solvers: the Bayesian estimate of the
# mean time to solution from runs with timeouts, and the exponential scaling
# of TTS with the problem size.

# The sample of tts_estimate(): times, solved flags and their unit, checked.
# A data frame gives its column `sweeps` or `seconds` (unit NULL: sweeps
# when it has them); a numeric vector is in `unit` (seconds when NULL).
tts_sample <- function(x, solved, unit, call) {
  if (!is.null(unit)) unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = call)
  if (is.data.frame(x)) {
    if (!is.null(solved)) {
      sp_abort(paste0("`solved` must be NULL when `x` is a data frame: the ",
                      "solved flags are its column `solved`."), call = call)
    }
    if (is.null(unit)) unit <- if ("sweeps" %in% names(x)) "sweeps" else "seconds"
    miss <- setdiff(c(unit, "solved"), names(x))
    if (length(miss)) {
      sp_abort(sprintf(paste0(
        "`x` must have columns `%s` and `solved` (one row per run, as ",
        "the \"xorsat_tts\" results); it lacks %s."), unit,
        paste0("`", miss, "`", collapse = " and ")), call = call)
    }
    times <- x[[unit]]
    solved <- x$solved
    sname <- paste0("x$", unit); fname <- "x$solved"
  } else {
    if (is.null(unit)) unit <- "seconds"
    times <- x
    sname <- "x"; fname <- "solved"
  }
  if (!is.numeric(times) || length(times) == 0) {
    sp_abort(sprintf(paste0(
      "`%s` must be a non-empty numeric vector of run times (or a data frame ",
      "with columns `sweeps` or `seconds`, and `solved`), not %s."), sname,
      describe(times)), call = call)
  }
  times <- check_positive(times, sname, allow_zero = TRUE, call = call)
  solved <- if (is.null(solved)) rep(TRUE, length(times)) else
    check_logical_vector(solved, fname, length(times), call = call)
  if (sum(times) <= 0) {
    sp_abort(sprintf("The total time of the runs (`%s`) must be positive, not 0.",
                     sname), call = call)
  }
  list(times = times, solved = solved, unit = unit)
}

#' Bayesian estimate of the time to solution
#'
#' Estimates the mean time to solution (TTS) \eqn{\tau} of a solver whose
#' runs end at an exponentially distributed time (as the first of many
#' clones of the quasi-greedy solver to reach the ground state, see
#' [xorsat_qg()]), from runs of which some may have timed out.
#'
#' The time is in sweeps or in seconds (`unit`). Sweeps, the default for
#' the results of [xorsat_qg()], are exact and the same on every machine;
#' their seconds are sweeps times a measured pace (see [xorsat_qg()]), so
#' an estimate in seconds is the one in sweeps times the pace. (Wall-clock
#' times of runs on a machine shared with other work are not a sample of
#' one distribution at all.)
#'
#' With rate \eqn{\lambda = 1/\tau}, \eqn{k} solved runs and total time
#' \eqn{T} of all runs (a timed-out run contributes its timeout), the
#' likelihood is \eqn{\lambda^k e^{-\lambda T}}; a
#' \eqn{\mathrm{Gamma}(a, b)} prior (shape \eqn{a}, rate \eqn{b}) gives the
#' posterior
#' \deqn{\lambda \mid \text{data} \sim \mathrm{Gamma}(a + k,\ b + T),}
#' with \eqn{a = 1/2, b = 0} for Jeffreys' prior
#' (\eqn{\pi(\lambda) \propto \lambda^{-1/2}}) and \eqn{a = 1, b = 0} for a
#' uniform prior on \eqn{\lambda}. So \eqn{\tau = 1/\lambda} is
#' inverse-gamma with shape \eqn{\alpha = a + k} and scale
#' \eqn{\beta = b + T}: posterior mean \eqn{\beta / (\alpha - 1)} (finite
#' only when \eqn{\alpha > 1}, else `NA`), median \eqn{1 / q_{0.5}} and
#' equal-tailed credible interval
#' \eqn{[1/q_{1 - \gamma/2},\ 1/q_{\gamma/2}]}, \eqn{q_p} the quantiles of
#' the gamma posterior of \eqn{\lambda} and \eqn{\gamma = 1 - }`credible`.
#' Both priors give a proper posterior whenever \eqn{T > 0}, even with no
#' solved run; the interval is then set by the prior and \eqn{T} alone, and
#' very wide (with Jeffreys' prior and `credible = 0.95` its upper end is
#' about \eqn{2000\,T}).
#'
#' The TTS at a success probability `success` \eqn{p} (TTS99 for
#' \eqn{p = 0.99}) is the time after which the solver has succeeded with
#' probability \eqn{p}, \eqn{\tau \ln(1/(1 - p))} (\eqn{\tau \ln 100} for
#' TTS99), a monotone transform: its median and interval are those of
#' \eqn{\tau} times \eqn{\ln(1/(1-p))}.
#'
#' @param x Either a data frame with one row per run, a column of times
#'   (`sweeps` or `seconds`: the run's time, its cut when it was not
#'   solved) and `solved` (logical), such as the `"xorsat_tts"` results of
#'   the solver (columns `replica`, `sweeps`, `seconds`, `solved`, `clone`); or
#'   a numeric vector of run times (non-negative).
#' @param success Success probability of the reported TTS, in (0, 1)
#'   (0.99: TTS99). Called `level` in earlier versions, a name the package
#'   keeps for confidence levels: `level` still works, with a warning of
#'   class `statphysgpu_deprecated`.
#' @param prior `"jeffreys"` (\eqn{a = 1/2}) or `"uniform"` (\eqn{a = 1});
#'   \eqn{b = 0} for both.
#' @param credible Probability of the equal-tailed credible intervals, in
#'   (0, 1).
#' @param solved With a numeric `x`: a logical vector as long as `x`,
#'   `FALSE` for the runs that timed out (1 and 0 are accepted); `NULL`
#'   means all solved. Must be `NULL` when `x` is a data frame.
#' @param unit `"sweeps"` or `"seconds"`: which column of a data frame `x`
#'   to use, or the unit of a numeric `x`. `NULL` (the default): `sweeps`
#'   when the data frame has that column, else `seconds`; seconds for a
#'   numeric vector.
#' @return A data frame of class `"tts_estimate"`, one row (one per
#'   condition when `x` is a table with several values in a column
#'   `condition`, as a sweep of [xorsat_qg()] over `p1`: then its first
#'   columns are `condition` and the columns constant within each condition,
#'   such as `p1`), with columns
#'   `runs`, `solved` (\eqn{k}), `total` (\eqn{T}, in `unit`),
#'   `total_seconds` (\eqn{T} when the unit is seconds, else `NA`; kept
#'   for code written before `unit`), `shape` and `rate` (of the gamma
#'   posterior of \eqn{\lambda}), `tau_mean` (`NA` when \eqn{\alpha \le
#'   1}), `tau_median`, `tau_lower`, `tau_upper` (mean TTS \eqn{\tau}),
#'   `success`, `tts` (the posterior median of the TTS at `success`),
#'   `tts_mean`, `tts_lower`, `tts_upper`, `credible`, `prior` and `unit`;
#'   every time in `unit`. (The column `success` was called `level`:
#'   `x$level` still reads it, with a warning of class
#'   `statphysgpu_deprecated`.)
#' @param level Deprecated: the old name of `success`.
#' @references
#' Jeffreys, H. (1961) *Theory of Probability*, 3rd ed. Oxford, Sec. 3.3
#'   (the prior \eqn{\lambda^{-1/2}} of a Poisson rate).
#'
#' Bernaschi, M., Bisson, M., Fatica, M., Marinari, E., Martin-Mayor, V.,
#'   Parisi, G. and Ricci-Tersenghi, F. (2021) How we are leading a
#'   3-XORSAT challenge: from the energy landscape to the algorithm and its
#'   efficient implementation on GPUs. *EPL* 133, 60005 \doi{10.1209/0295-5075/133/60005}.
#' @seealso [tts_scaling()] for the growth of TTS with the size,
#'   [exp_tail_rate()] for the frequentist rate of a censored exponential
#'   sample.
#' @examples
#' set.seed(1)
#' t <- rexp(40, rate = 1 / 200) # mean TTS 200 sweeps
#' cut <- 500
#' tts_estimate(pmin(t, cut), solved = t <= cut, unit = "sweeps")
#' # the same from a result table
#' runs <- data.frame(replica = 1:40, sweeps = pmin(t, cut), solved = t <= cut)
#' tts_estimate(runs, prior = "uniform")
#' # from the solver: in sweeps, and in seconds at the measured pace
#' x <- xorsat_qg(xorsat_random(48, seed = 1), replicas = 30, clones = 64,
#'                seed = 1, backend = "cpu")
#' tts_estimate(x)
#' tts_estimate(x, unit = "seconds")
#' @export
tts_estimate <- function(x, success = 0.99, prior = c("jeffreys", "uniform"),
                         credible = 0.95, solved = NULL, unit = NULL, level) {
  call <- sys.call()
  sp_renamed_args(c(level = "success"), "tts_estimate")
  if (is.data.frame(x) && is.null(solved) && length(unique(x[["condition"]])) > 1) {
    return(tts_estimate_conditions(as.data.frame(x), success, prior, credible, unit, call))
  }
  d <- tts_sample(x, solved, unit, call)
  success <- check_range(success, "success", 0, 1, lo_open = TRUE, hi_open = TRUE, len = 1,
                         call = call)
  prior <- check_choice(prior, c("jeffreys", "uniform"), "prior", call = call)
  credible <- check_range(credible, "credible", 0, 1, lo_open = TRUE,
                          hi_open = TRUE, len = 1, call = call)
  a <- if (prior == "jeffreys") 0.5 else 1
  b <- 0
  k <- sum(d$solved)
  total <- sum(d$times)
  shape <- a + k
  rate <- b + total
  g <- (1 - credible) / 2
  q <- stats::qgamma(c(1 - g, 0.5, g), shape = shape, rate = rate)
  tau <- 1 / q # lower, median, upper
  tau_mean <- if (shape > 1) rate / (shape - 1) else NA_real_
  factor <- log(1 / (1 - success))
  out <- data.frame(runs = length(d$times), solved = k, total = total,
                    total_seconds = if (d$unit == "seconds") total else NA_real_,
                    shape = shape, rate = rate, tau_mean = tau_mean,
                    tau_median = tau[2], tau_lower = tau[1], tau_upper = tau[3],
                    success = success, tts = factor * tau[2],
                    tts_mean = factor * tau_mean, tts_lower = factor * tau[1],
                    tts_upper = factor * tau[3], credible = credible,
                    prior = prior, unit = d$unit)
  tts_estimate_class(out)
}

# A tts_estimate() table: its column `success` is still read as `level`
# (the old name), with a warning (R/results-integrity.R).
tts_estimate_class <- function(out) {
  attr(out, "sp_renamed") <- "tts_estimate"
  class(out) <- c("tts_estimate", "sp_renamed_df", "data.frame")
  out
}

# tts_estimate() of each condition of a table with a column `condition`
# (a sweep, as xorsat_qg() over p1): one row per condition, in the order of
# the condition numbers, with the condition and the columns constant within
# each (its parameters: p1) first.
tts_estimate_conditions <- function(x, success, prior, credible, unit, call) {
  conds <- sort(unique(x$condition))
  per_run <- c("condition", "replica", "run", "sweeps", "seconds", "solved", "clone")
  params <- Filter(function(nm) {
    !nm %in% per_run &&
      all(vapply(split(x[[nm]], x$condition), function(v) length(unique(v)) == 1, TRUE))
  }, names(x))
  rows <- lapply(conds, function(c) {
    y <- x[x$condition == c, setdiff(names(x), "condition"), drop = FALSE]
    e <- tryCatch(tts_estimate(y, success = success, prior = prior, credible = credible,
                               unit = unit),
                  error = function(e) {
                    sp_abort(sprintf("condition %s: %s", format(c), sp_cnd_text(e)),
                             call = call)
                  })
    cbind(data.frame(condition = c), y[1, params, drop = FALSE], unclass(e))
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  attr(out, "sp_renamed") <- NULL
  tts_estimate_class(out)
}

#' @export
print.tts_estimate <- function(x, digits = 4, ...) {
  f <- function(v) format(signif(v, digits))
  pcols <- if ("condition" %in% names(x)) {
    names(x)[seq_len(match("runs", names(x)) - 1)]
  }
  for (r in seq_len(nrow(x))) {
    y <- x[r, , drop = FALSE]
    if (length(pcols)) {
      pp <- setdiff(pcols, "condition")
      cat(sprintf("Condition %s%s:\n", format(y$condition),
                  if (length(pp)) sprintf(" (%s)", paste(pp, "=", vapply(pp, function(p)
                    format(y[[p]]), ""), collapse = ", ")) else ""))
    }
    u <- tts_unit_label(y$unit)
    cat(sprintf("Time to solution (%s prior): %s of %s runs solved, total time %s %s\n",
                if (y$prior == "jeffreys") "Jeffreys" else "uniform",
                fmt_count(y$solved), fmt_count(y$runs), f(y$total %||% y$total_seconds), u))
    cat(sprintf("  posterior of the rate: Gamma(shape %s, rate %s)\n", f(y$shape),
                f(y$rate)))
    cat(sprintf("  mean TTS tau: median %s %s, mean %s, %g%% credible [%s, %s] %s\n",
                f(y$tau_median), u,
                if (is.na(y$tau_mean)) "undefined" else paste(f(y$tau_mean), u),
                100 * y$credible, f(y$tau_lower), f(y$tau_upper), u))
    cat(sprintf("  TTS%s (tau ln(1/(1 - %g))): median %s %s, %g%% credible [%s, %s] %s\n",
                format(100 * y$success), y$success, f(y$tts), u, 100 * y$credible,
                f(y$tts_lower), f(y$tts_upper), u))
  }
  invisible(x)
}

# How a unit of time is printed.
tts_unit_label <- function(unit) {
  if (identical(unit, "seconds")) "s" else if (is.character(unit) && length(unit) == 1) unit else ""
}

#' Exponential scaling of the time to solution with the problem size
#'
#' Fits \eqn{\log_{10} \mathrm{TTS} = a\,n + b} by least squares
#' ([stats::lm()]) to the median TTS of each size: when several TTS values
#' (instances) share a size \eqn{n}, their median is taken first, as the
#' median-instance fits of the 3-XORSAT challenge do, so one hard instance
#' does not pull the fit. The standard errors of \eqn{a} (slope) and \eqn{b}
#' (intercept) are those of the regression on the medians (their scatter
#' about the line), so at least three distinct sizes are needed.
#'
#' Fit the TTS in sweeps (`unit = "sweeps"`), which are exact and the same
#' on every machine. The seconds of [xorsat_qg()] are sweeps times a pace
#' that grows about in proportion to the number of spins at a fixed number
#' of clones, so a slope fitted in seconds is the slope in sweeps plus
#' about \eqn{\log_{10}(n_2/n_1)/(n_2 - n_1)} from the pace (0.0011 per
#' unit of \eqn{n} between \eqn{n} = 200 and 640), and the intercept holds
#' the device's speed.
#'
#' For comparison, the quasi-greedy code of Bernaschi et al. (2021) on a
#' V100 GPU gave, for the median instance of the challenge,
#' \eqn{\log_{10}(\mathrm{TTS}/\mathrm{s}) = 0.0171\,n - 5.9} for
#' \eqn{n = 200} to 640 (about 0.03 s at \eqn{n = 256}), with \eqn{n} the
#' number of spins of the challenge's 2-body form (\eqn{n = 2N}, as in the
#' file names, see [read_xorsat()]); the other solvers of the challenge
#' (Kowalsky et al. 2022) scaled worse, e.g. Fujitsu's digital annealer as
#' \eqn{0.0185\,n - 3.56} and D-Wave as \eqn{0.08\,n - 6}. Pass `n` on the
#' same scale when comparing slopes; that fit is in seconds on a V100.
#'
#' @param n Problem sizes (positive numbers), one per TTS value.
#' @param tts Times to solution (positive numbers, e.g. `tts` or
#'   `tau_median` of [tts_estimate()]), as long as `n`.
#' @param weights `NULL` (every size weighs the same) or non-negative
#'   weights, one per distinct size in increasing order of size, passed to
#'   [stats::lm()] (e.g. the inverse variances of the log10 medians).
#' @param unit The unit of `tts`, for the printout and `predict()`: `NULL`
#'   (not stated), `"sweeps"` or `"seconds"`.
#' @return An object of class `"tts_scaling"`: a list with `coefficients`
#'   (`slope` \eqn{a}, `intercept` \eqn{b}), `se` (their standard errors),
#'   `vcov`, `df` (residual degrees of freedom), `sigma` (residual standard
#'   deviation of log10 TTS), `data` (a data frame of the sizes: `n`,
#'   `median_tts`, `count` of values, `weight`) and `fit` (the [stats::lm()]
#'   fit of `y ~ n`, `y` the log10 of the medians) and `unit`. Methods:
#'   `print()`, `coef()`, `vcov()` and `predict()`.
#' @references
#' Bernaschi, M. et al. (2021) *EPL* 133, 60005 \doi{10.1209/0295-5075/133/60005} (see [tts_estimate()]).
#'
#' Kowalsky, M., Albash, T., Hen, I. and Lidar, D. A. (2022) *Quantum
#'   Science and Technology* 7, 025008 \doi{10.1088/2058-9565/ac4d1b}.
#' @examples
#' set.seed(2)
#' n <- rep(c(64, 96, 128, 160, 192), each = 5)
#' sweeps <- 10^(0.0171 * n + 0.5 + rnorm(length(n), sd = 0.2))
#' s <- tts_scaling(n, sweeps, unit = "sweeps")
#' s
#' coef(s)
#' predict(s, c(256, 384), interval = "confidence")
#' @export
tts_scaling <- function(n, tts, weights = NULL, unit = NULL) {
  call <- sys.call()
  if (!is.null(unit)) unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = call)
  n <- check_positive(n, "n", call = call)
  tts <- check_positive(tts, "tts", len = length(n), call = call)
  sizes <- sort(unique(n))
  m <- length(sizes)
  if (m < 3) {
    sp_abort(sprintf(paste0(
      "`n` must hold at least 3 distinct sizes for a slope with a standard ",
      "error; it has %d."), m), call = call)
  }
  med <- as.numeric(tapply(tts, factor(n, levels = sizes), stats::median))
  count <- as.integer(table(factor(n, levels = sizes)))
  if (is.null(weights)) {
    w <- rep(1, m)
  } else {
    w <- check_positive(weights, "weights", len = m, allow_zero = TRUE, call = call)
    if (sum(w > 0) < 3) {
      sp_abort("`weights` must be positive for at least 3 sizes.", call = call)
    }
  }
  data <- data.frame(n = sizes, median_tts = med, count = count, weight = w)
  y <- log10(med)
  n <- sizes
  fit <- stats::lm(y ~ n, weights = w)
  cf <- stats::coef(fit)
  v <- stats::vcov(fit)
  names(cf) <- c("intercept", "slope")
  dimnames(v) <- list(names(cf), names(cf))
  ord <- c("slope", "intercept")
  structure(list(coefficients = cf[ord], se = sqrt(diag(v))[ord],
                 vcov = v[ord, ord], df = fit$df.residual,
                 sigma = summary(fit)$sigma, data = data, fit = fit, unit = unit),
            class = "tts_scaling")
}

#' @export
print.tts_scaling <- function(x, digits = 4, ...) {
  f <- function(v) format(signif(v, digits))
  cat(sprintf("Scaling of the time to solution: log10 TTS%s = a n + b, fit to the median TTS of %d sizes (n = %s..%s)\n",
              if (is.null(x$unit)) "" else sprintf(" (in %s)", x$unit),
              nrow(x$data), f(min(x$data$n)), f(max(x$data$n))))
  cat(sprintf("  a = %s +- %s (TTS x %s per unit of n; x10 every %s)\n",
              f(x$coefficients[["slope"]]), f(x$se[["slope"]]),
              f(10^x$coefficients[["slope"]]), f(1 / x$coefficients[["slope"]])))
  cat(sprintf("  b = %s +- %s\n", f(x$coefficients[["intercept"]]),
              f(x$se[["intercept"]])))
  cat(sprintf("  residual sd of log10 TTS %s on %d degrees of freedom\n",
              f(x$sigma), as.integer(x$df)))
  invisible(x)
}

#' @export
coef.tts_scaling <- function(object, ...) object$coefficients

#' @export
vcov.tts_scaling <- function(object, ...) object$vcov

#' @param object A `"tts_scaling"` fit.
#' @param n New sizes at which to predict the TTS.
#' @param interval `"none"` for the predicted TTS; `"confidence"` for a
#'   matrix with columns `fit`, `lwr` and `upr` (the confidence interval of
#'   the fitted line, transformed from the log10 scale).
#' @param level Confidence level of the interval, in (0, 1).
#' @param ... Unused.
#' @return `predict()`: the TTS \eqn{10^{a n + b}} at `n` (in the unit of
#'   `tts`), or with `interval = "confidence"` a matrix.
#' @rdname tts_scaling
#' @export
predict.tts_scaling <- function(object, n, interval = c("none", "confidence"),
                                level = 0.95, ...) {
  call <- sys.call()
  n <- check_finite(n, "n", call = call)
  interval <- check_choice(interval, c("none", "confidence"), "interval", call = call)
  level <- check_level(level, call = call)
  p <- stats::predict(object$fit, newdata = data.frame(n = n),
                      interval = interval, level = level)
  if (interval == "none") return(as.numeric(10^p))
  p <- 10^p
  rownames(p) <- NULL
  p
}
