#' Arrhenius and Kramers fits of mean escape times
#'
#' Fits \deqn{\log(\theta^p\langle\tau\rangle) = c + \Delta U/\theta}
#' to mean escape times \eqn{\langle\tau\rangle} measured (or simulated) at
#' temperatures \eqn{\theta}, which is Eq. (12) of Pierro et al. (2018) for
#' `prefactor_power = 0` (pure Arrhenius) and Eq. (13)-(14) for
#' `prefactor_power = 1` (a Kramers-like prefactor proportional to
#' \eqn{\theta}, so that \eqn{\langle\tau\rangle \propto \theta^{-1}
#' e^{\Delta U/\theta}}). The slope is the barrier \eqn{\Delta U} (same units
#' as \eqn{\theta}).
#'
#' With `tau_se` the fit is weighted least squares with weights
#' \eqn{(\tau/\tau_{se})^2}, the inverse variances of \eqn{\log\tau} to first
#' order, and the standard errors are those implied by the given errors (not
#' rescaled by the residual scatter); `chisq` and `p_value` then test whether
#' the model and the errors agree (a small p-value says that either the
#' model misses, e.g. the prefactor power is wrong, or the errors are too
#' small). Without `tau_se` the fit is ordinary least squares and the
#' standard errors come from the residual variance on `df` degrees of
#' freedom.
#'
#' @param theta Temperatures (positive), at least 3 of them, not all equal.
#' @param tau Mean escape times at `theta` (positive).
#' @param prefactor_power The power \eqn{p} (a single finite number): 0 for
#'   Arrhenius, 1 for the Kramers-like fit of Eq. (13).
#' @param tau_se `NULL`, or the standard errors of `tau` (positive), e.g.
#'   `sd / sqrt(n)` of each sample.
#' @return An object of class `arrhenius_fit`: a list with `barrier`,
#'   `barrier_se`, `intercept` (\eqn{c}), `intercept_se`, `df` (points
#'   minus 2), `residuals` (of \eqn{\log(\theta^p\tau)}), `chisq` and
#'   `p_value` (`NA` without `tau_se`), `vcov`, `weighted`, the data, and
#'   `fit`, the [stats::lm()] fit of \eqn{\log(\theta^p\tau)} on
#'   \eqn{1/\theta} (with `weights`) that gives these numbers.
#'   Methods: `print()`, `coef()`, `vcov()`, `confint()` (normal quantiles
#'   with `tau_se`, Student t on `df` without), and `predict()`, which
#'   returns \eqn{\langle\tau\rangle} at new temperatures.
#' @references Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' theta <- c(0.004, 0.005, 0.006, 0.008, 0.010)
#' tau <- 30 / theta * exp(0.0342 / theta) # a Kramers-like law
#' fit <- arrhenius_fit(theta, tau, prefactor_power = 1,
#'                      tau_se = 0.02 * tau)
#' fit
#' confint(fit)
#' arrhenius_fit(theta, tau)$barrier # pure Arrhenius: biased
#' @export
arrhenius_fit <- function(theta, tau, prefactor_power = 0, tau_se = NULL) {
  call <- sys.call()
  theta <- check_positive(theta, "theta", call = call)
  n <- length(theta)
  if (n < 3) {
    sp_abort(sprintf(
      "`theta` must have at least 3 points for a fit with an error estimate, not %d.",
      n), call = call)
  }
  tau <- check_positive(tau, "tau", len = n, call = call)
  p <- check_number(prefactor_power, "prefactor_power", call = call)
  if (!is.null(tau_se)) {
    tau_se <- check_positive(tau_se, "tau_se", len = n, call = call)
  }
  if (length(unique(theta)) < 2) {
    sp_abort("`theta` must hold at least 2 distinct temperatures.",
             call = call)
  }
  x <- 1 / theta
  y <- p * log(theta) + log(tau)
  w <- if (is.null(tau_se)) rep(1, n) else (tau / tau_se)^2
  # weighted least squares by stats::lm(); with known errors (tau_se) the
  # covariance is the unscaled one (not rescaled by the residual scatter)
  fit <- stats::lm(y ~ x, weights = w)
  beta <- stats::coef(fit)
  names(beta) <- c("intercept", "barrier")
  # summary.lm()'s unscaled covariance, without its warning on a perfect fit
  cov_unscaled <- chol2inv(fit$qr$qr[1:2, 1:2, drop = FALSE])
  dimnames(cov_unscaled) <- list(names(beta), names(beta))
  fitted <- unname(stats::fitted(fit))
  res <- y - fitted
  df <- n - 2
  if (is.null(tau_se)) {
    V <- sum(res^2) / df * cov_unscaled # = vcov(fit)
    chisq <- NA_real_
    p_value <- NA_real_
  } else {
    V <- cov_unscaled
    chisq <- sum(w * res^2)
    p_value <- stats::pchisq(chisq, df, lower.tail = FALSE)
  }
  out <- list(barrier = unname(beta[2]), barrier_se = sqrt(V[2, 2]),
              intercept = unname(beta[1]), intercept_se = sqrt(V[1, 1]),
              df = df, residuals = res, chisq = chisq, p_value = p_value,
              vcov = V, weighted = !is.null(tau_se), fitted = fitted,
              theta = theta, tau = tau, tau_se = tau_se,
              prefactor_power = p, fit = fit)
  class(out) <- "arrhenius_fit"
  out
}

#' @export
print.arrhenius_fit <- function(x, digits = 4, ...) {
  cat(sprintf("<arrhenius_fit: log(theta^%s <tau>) = c + DeltaU / theta, %d points>\n",
              format(x$prefactor_power), length(x$theta)))
  cat(if (x$weighted) {
    "Weighted least squares, errors of log tau from tau_se (not rescaled).\n"
  } else {
    "Ordinary least squares, errors from the residual scatter.\n"
  })
  tab <- data.frame(estimate = c(x$barrier, x$intercept),
                    std.error = c(x$barrier_se, x$intercept_se),
                    row.names = c("barrier DeltaU", "intercept c"))
  print(signif(tab, digits))
  if (x$weighted) {
    cat(sprintf("chi-square = %s on %d df (p = %s)\n",
                format(signif(x$chisq, digits)), x$df,
                format(signif(x$p_value, 3))))
  } else {
    cat(sprintf("residual sd = %s on %d df\n",
                format(signif(sqrt(sum(x$residuals^2) / x$df), digits)), x$df))
  }
  invisible(x)
}

#' @export
coef.arrhenius_fit <- function(object, ...) {
  c(intercept = object$intercept, barrier = object$barrier)
}

#' @export
vcov.arrhenius_fit <- function(object, ...) object$vcov

#' @export
confint.arrhenius_fit <- function(object, parm, level = 0.95, ...) {
  call <- sys.call()
  level <- check_level(level, call = call)
  cf <- stats::coef(object)
  if (missing(parm)) {
    parm <- names(cf)
  } else if (!is.character(parm) || length(parm) == 0 || anyNA(parm) ||
             !all(parm %in% names(cf))) {
    sp_abort(sprintf('`parm` must name coefficients among "intercept", "barrier", not %s.',
                     describe(parm)), call = call)
  }
  a <- (1 - level) / 2
  q <- if (object$weighted) stats::qnorm(1 - a) else stats::qt(1 - a, object$df)
  se <- sqrt(diag(object$vcov))[parm]
  ci <- cbind(cf[parm] - q * se, cf[parm] + q * se)
  dimnames(ci) <- list(parm, sprintf("%g %%", 100 * c(a, 1 - a)))
  ci
}

#' @export
predict.arrhenius_fit <- function(object, theta = object$theta, ...) {
  theta <- check_positive(theta, "theta", call = sys.call())
  exp(object$intercept + object$barrier / theta) / theta^object$prefactor_power
}
