#' Step-size check: rerun at half the step and compare
#'
#' Reruns a simulation of [escape_times()], [switching_currents()] or
#' [sde_run()] (passage times) with the step `h / 2` (same seed, model,
#' parameters, backend and everything else, unless changed in `...`) and
#' compares, condition by condition, the mean escape or passage time (or
#' switching bias) of the two runs, each estimated with [censored_mean()].
#'
#' The difference \eqn{\Delta = m_h - m_{h/2}} is the step's bias at
#' \eqn{h/2} plus noise; its standard error is taken as that of two
#' independent samples, \eqn{\sqrt{se_h^2 + se_{h/2}^2}} (the runs share the
#' seed but not their Brownian paths, since a step's normal is drawn per
#' step; any positive correlation only makes the z-score conservative). With
#' the scheme's order \eqn{p} (1 for `"euler"`, 2 for `"srk2"`) the bias of
#' the original run is estimated by Richardson extrapolation,
#' \eqn{\Delta / (1 - 2^{-p})}. For [sde_run()] passage times whose event
#' carries noise, the order is that of the monitoring: \eqn{p = 1/2} for an
#' event checked once a step (`bridge = FALSE`), \eqn{p = 1} with the
#' Brownian-bridge correction (the default); an event on a state without
#' noise keeps the scheme's order. The model is rebuilt from the
#' declarations the result carries (`attr(x, "args")$model`). A \eqn{|z| < 2} says that the step bias is
#' below what `n` paths resolve; a larger \eqn{|z|} says it is not, and
#' `bias_h` estimates it.
#'
#' @param x A result of [escape_times()], [switching_currents()] or
#'   [sde_run()] with `output = "passage"`.
#' @param ... Arguments of the simulator to change for the rerun (for
#'   example `progress`, or `backend`); `dt` is always `attr(x, "dt") / 2`.
#' @param level Confidence level of the intervals of the means.
#' @return A data frame of class `sp_h_check`, one row per condition: the
#'   parameters, `mean_h` and `se_h` (the original run), `mean_h2` and
#'   `se_h2` (at \eqn{h/2}), `difference`, `relative` (difference over
#'   `mean_h2`), `z`, and `bias_h` (the Richardson estimate of the original
#'   run's step bias); attributes `dt`, `method`, `order` and `rerun` (the
#'   result at \eqn{h/2}).
#' @examples
#' x <- escape_times(400, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.25,
#'                   dt = 0.05, t_max = 1e4, seed = 1, backend = "cpu",
#'                   method = "euler")
#' h_check(x)
#' @export
h_check <- function(x, ..., level = 0.95) {
  call <- sys.call()
  if (!inherits(x, "sp_paths") || is.null(attr(x, "args"))) {
    sp_abort(paste0("`x` must be a result of escape_times(), switching_currents() or ",
                    "sde_run(output = \"passage\") that records its arguments (results ",
                    "of earlier builds of statphysgpu do not: run them again)."),
             call = call)
  }
  level <- check_level(level, call = call)
  args <- attr(x, "args")
  args$seed <- attr(x, "seed_hex")
  args$backend <- attr(x, "backend")
  args$precision <- attr(x, "precision")
  args$method <- attr(x, "method")
  change <- list(...)
  if (length(change) && (is.null(names(change)) || any(!nzchar(names(change))))) {
    sp_abort("the arguments in `...` must be named (e.g. n = 1000).", call = call)
  }
  if (any(c("dt", "h") %in% names(change))) {
    sp_abort("`dt` cannot be changed: the rerun uses attr(x, \"dt\") / 2.", call = call)
  }
  # results of earlier versions recorded the old argument names
  old <- c(n = "replicas", h = "dt", start = "init")
  if (inherits(x, "sde_passage")) old <- c(m = "model") # (sde_run() has its own `n`)
  hit <- names(args) %in% names(old)
  names(args)[hit] <- old[names(args)[hit]]
  args[names(change)] <- change
  args$dt <- step_of(x) / 2
  sim <- if (inherits(x, "switching_currents")) switching_currents else escape_times
  if (inherits(x, "sde_passage")) {
    sim <- sde_run
    args$model <- sde_model_again(args$model) # R/sde-events.R
  }
  y <- do.call(sim, args)
  p <- if (inherits(x, "sde_passage")) sde_h_order(x) else
    if (identical(attr(x, "method"), "euler")) 1 else 2
  conds <- conditions_of(x)
  mean_of <- function(r, c) {
    d <- r[r$condition == c, , drop = FALSE]
    m <- tryCatch(censored_mean(d$value, d$escaped, level = level),
                  error = function(e) list(estimate = NA_real_, se = NA_real_))
    c(m$estimate, m$se)
  }
  a <- vapply(conds$condition, function(c) mean_of(x, c), numeric(2))
  b <- vapply(conds$condition, function(c) mean_of(y, c), numeric(2))
  out <- conds
  out$mean_h <- a[1, ]
  out$se_h <- a[2, ]
  out$mean_h2 <- b[1, ]
  out$se_h2 <- b[2, ]
  out$difference <- out$mean_h - out$mean_h2
  out$relative <- out$difference / out$mean_h2
  out$z <- out$difference / sqrt(out$se_h^2 + out$se_h2^2)
  out$bias_h <- out$difference / (1 - 2^-p)
  attr(out, "dt") <- step_of(x)
  attr(out, "method") <- attr(x, "method")
  attr(out, "order") <- p
  attr(out, "rerun") <- y
  class(out) <- c("sp_h_check", "data.frame")
  out
}

#' @export
print.sp_h_check <- function(x, digits = 4, ...) {
  cat(sprintf(paste0(
    "Step check: %s at dt = %s against dt/2 = %s (order %s; bias_h = difference ",
    "/ (1 - 2^-%s))\n"), attr(x, "method"), format(step_of(x)),
    format(step_of(x) / 2), format(attr(x, "order")), format(attr(x, "order"))))
  print(as.data.frame(unclass(x)), digits = digits, row.names = FALSE)
  big <- abs(x$z) >= 2 & !is.na(x$z)
  cat(if (any(big)) {
    sprintf("The step bias is resolved (|z| >= 2) in %d of %d conditions: use a smaller dt.\n",
            sum(big), nrow(x))
  } else {
    "No step bias resolved (|z| < 2 everywhere) at this sample size.\n"
  })
  invisible(x)
}

# The time step of a result (attribute `dt`; `h` before the vocabulary of
# issue 23).
step_of <- function(x) attr(x, "dt") %||% attr(x, "h")
