# Methods for the results of xorsat_qg() (class "xorsat_tts": one row per run).

#' Summarise, plot and combine time-to-solution samples
#'
#' `summary()` gives the runs, how many solved, the sample mean and median
#' time to solution (seconds and sweeps), TTS99 = mean \eqn{\times \ln 100},
#' and the Bayesian estimate of [tts_estimate()], which also uses the runs
#' cut by a timeout. `plot()` draws the empirical survival function of the
#' TTS on a log scale with the exponential of the estimated mean (paper 003,
#' Fig. 2). `rbind()` combines chunks of one study (runs `first_run..` run
#' elsewhere with the same seed, instance, clones and `p1`).
#'
#' @param object,x A result of [xorsat_qg()].
#' @param level TTS level for [tts_estimate()].
#' @param ... Passed to [tts_estimate()] (summary) or [plot()].
#' @return `summary()`: a list of class `summary.xorsat_tts`.
#' @examples
#' x <- xorsat_qg(xorsat_random(48, seed = 1), runs = 30, clones = 64,
#'                seed = 1, backend = "cpu")
#' summary(x)
#' plot(x)
#' @export
summary.xorsat_tts <- function(object, level = 0.99, ...) {
  s <- object$solved
  est <- tts_estimate(as.data.frame(object)[c("seconds", "solved")], level = level, ...)
  structure(list(instance = attr(object, "instance"), n = attr(object, "n"),
                 clones = attr(object, "clones"), p1 = attr(object, "p1"),
                 runs = nrow(object), solved = sum(s),
                 mean_seconds = if (all(s)) mean(object$seconds) else NA_real_,
                 median_seconds = if (all(s)) stats::median(object$seconds) else NA_real_,
                 mean_sweeps = if (all(s)) mean(object$sweeps) else NA_real_,
                 tts99 = if (all(s)) mean(object$seconds) * log(100) else NA_real_,
                 seconds_per_sweep = attr(object, "seconds_per_sweep"),
                 estimate = est), class = "summary.xorsat_tts")
}

#' @rdname summary.xorsat_tts
#' @export
print.summary.xorsat_tts <- function(x, ...) {
  cat(sprintf("Quasi-greedy runs on %s (N = %d), %s clones a run, p1 = %s\n",
              x$instance, x$n, fmt_count(x$clones), format(x$p1)))
  cat(sprintf("  %d runs, %d solved; %.3g s per sweep of a run\n", x$runs, x$solved,
              x$seconds_per_sweep))
  if (!is.na(x$mean_seconds)) {
    cat(sprintf("  sample: mean TTS %.4g s (%.4g sweeps), median %.4g s, TTS99 %.4g s\n",
                x$mean_seconds, x$mean_sweeps, x$median_seconds, x$tts99))
  } else {
    cat("  sample: some runs were cut; see the estimate, which counts their time\n")
  }
  print(x$estimate)
  invisible(x)
}

#' @rdname summary.xorsat_tts
#' @export
print.xorsat_tts <- function(x, ...) {
  cat(sprintf("Time to solution of %s (N = %d): %d runs of %s clones, p1 = %s%s, %d solved\n",
              attr(x, "instance"), attr(x, "n"), nrow(x), fmt_count(attr(x, "clones")),
              format(attr(x, "p1")),
              if (isTRUE(attr(x, "independent_clones"))) " (per clone)" else "",
              sum(x$solved)))
  if (isTRUE(attr(x, "interrupted"))) cat("(interrupted: a partial sample)\n")
  print(utils::head(as.data.frame(x), 10), ...)
  if (nrow(x) > 10) cat(sprintf("... %d more runs\n", nrow(x) - 10))
  invisible(x)
}

#' @rdname summary.xorsat_tts
#' @export
plot.xorsat_tts <- function(x, ...) {
  d <- xorsat_surv_data(x)
  plot(d$runs$seconds, d$runs$surv, log = "y", pch = 19, cex = 0.6,
       xlab = "time to solution (s)", ylab = "fraction of runs not solved", ...)
  graphics::lines(d$fit$seconds, exp(-d$fit$seconds / d$fit$tau), col = "firebrick")
  graphics::legend("topright", c("runs", "exponential, posterior median mean"),
                   pch = c(19, NA), lty = c(NA, 1), col = c(1, "firebrick"), bty = "n")
  invisible(x)
}

# The survival function of the sample (solved runs; cut runs count in the
# denominator) and the fitted exponential, for plot() and autoplot().
xorsat_surv_data <- function(x) {
  est <- tts_estimate(as.data.frame(x)[c("seconds", "solved")])
  t <- sort(x$seconds[x$solved])
  surv <- 1 - seq_along(t) / nrow(x)
  keep <- surv > 0
  list(runs = data.frame(seconds = t[keep], surv = surv[keep]),
       fit = data.frame(seconds = seq(0, if (length(t)) max(t) else 1, length.out = 200),
                        tau = est$tau_median))
}

#' @rdname summary.xorsat_tts
#' @return `autoplot()`: a ggplot object (the survival function of the time
#'   to solution on a log scale with the fitted exponential, as paper 003's
#'   Fig. 2).
#' @exportS3Method ggplot2::autoplot
autoplot.xorsat_tts <- function(object, ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  d <- xorsat_surv_data(object)
  d$fit$surv <- exp(-d$fit$seconds / d$fit$tau)
  ggplot2::ggplot(d$runs, ggplot2::aes(x = .data$seconds, y = .data$surv)) +
    ggplot2::geom_point(size = 1) +
    ggplot2::geom_line(data = d$fit, colour = "firebrick") +
    ggplot2::scale_y_log10() +
    ggplot2::labs(x = "time to solution (s)", y = "fraction of runs not solved",
                  title = sprintf("%s: exponential with the posterior median mean TTS",
                                  attr(object, "instance")))
}

#' @rdname summary.xorsat_tts
#' @param row.names,optional Unused.
#' @export
as.data.frame.xorsat_tts <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- data.frame(run = x$run, sweeps = x$sweeps, seconds = x$seconds,
                    solved = x$solved, clone = x$clone)
  out
}

#' @rdname summary.xorsat_tts
#' @param deparse.level Unused.
#' @export
rbind.xorsat_tts <- function(..., deparse.level = 1) {
  parts <- Filter(Negate(is.null), list(...))
  first <- parts[[1]]
  same <- function(a) inherits(a, "xorsat_tts") &&
    identical(attr(a, "seed_hex"), attr(first, "seed_hex")) &&
    identical(attr(a, "instance"), attr(first, "instance")) &&
    identical(attr(a, "clones"), attr(first, "clones")) &&
    identical(attr(a, "p1"), attr(first, "p1")) &&
    identical(isTRUE(attr(a, "independent_clones")), isTRUE(attr(first, "independent_clones")))
  if (!all(vapply(parts, same, TRUE))) {
    sp_abort(paste0("rbind() of time-to-solution samples needs chunks of one study: ",
                    "the same seed, instance, clones, p1 and independent_clones."))
  }
  df <- do.call(rbind, lapply(parts, as.data.frame.xorsat_tts))
  if (anyDuplicated(df$run)) {
    sp_abort("the chunks overlap: some runs appear twice (check `first_run`).")
  }
  o <- order(df$run)
  out <- df[o, , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(first)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(first, a)
  attr(out, "solutions") <- do.call(c, lapply(parts, attr, "solutions"))
  attr(out, "seconds") <- sum(vapply(parts, function(p) attr(p, "seconds") %||% 0, 0))
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")), TRUE))
  attr(out, "unfinished") <- do.call(rbind, lapply(parts, attr, "unfinished"))
  attr(out, "seconds_per_sweep") <- if (sum(out$sweeps) > 0) sum(out$seconds) / sum(out$sweeps) else NA_real_
  class(out) <- class(first)
  out
}
