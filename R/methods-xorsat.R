# Methods for the results of xorsat_qg() (class "xorsat_tts": one row per run).

#' Summarise, plot and combine time-to-solution samples
#'
#' `summary()` gives the runs, how many solved, the sample mean and median
#' time to solution, TTS99 = mean \eqn{\times \ln 100}, and the Bayesian
#' estimate of [tts_estimate()], which also uses the runs cut by
#' `max_sweeps` or a timeout; all in sweeps, with the mean and TTS99 also in
#' seconds at the measured pace (see "Sweeps and seconds" in
#' [xorsat_qg()]). `plot()` draws the empirical survival function of the
#' TTS on a log scale with the exponential of the estimated mean (paper 003,
#' Fig. 2), in sweeps by default. `rbind()` combines chunks of one study
#' (runs `first_replica..` run elsewhere with the same seed, instance, clones
#' and `p1`); their sweeps are exact, and their seconds are converted
#' again at the pace of the first chunk, so that one sample has one pace.
#'
#' @param object,x A result of [xorsat_qg()].
#' @param level TTS level for [tts_estimate()].
#' @param unit `"sweeps"` (exact, machine-independent) or `"seconds"` (the
#'   sweeps times the pace) for the time axis of `plot()` and `autoplot()`.
#' @param ... Passed to [tts_estimate()] (summary) or [plot()].
#' @return `summary()`: a list of class `summary.xorsat_tts`.
#' @examples
#' x <- xorsat_qg(xorsat_random(48, seed = 1), replicas = 30, clones = 64,
#'                seed = 1, backend = "cpu")
#' summary(x)
#' plot(x)
#' @export
summary.xorsat_tts <- function(object, level = 0.99, ...) {
  s <- object$solved
  est <- tts_estimate(as.data.frame(object)[c("sweeps", "solved")], level = level,
                      unit = "sweeps", ...)
  pace <- attr(object, "seconds_per_sweep") %||% NA_real_
  all_solved <- all(s)
  structure(list(instance = attr(object, "instance"), n = attr(object, "n"),
                 clones = attr(object, "clones"), p1 = attr(object, "p1"),
                 replicas = nrow(object), solved = sum(s),
                 mean_sweeps = if (all_solved) mean(object$sweeps) else NA_real_,
                 median_sweeps = if (all_solved) stats::median(object$sweeps) else NA_real_,
                 tts99_sweeps = if (all_solved) mean(object$sweeps) * log(100) else NA_real_,
                 mean_seconds = if (all_solved) mean(object$sweeps) * pace else NA_real_,
                 median_seconds = if (all_solved) stats::median(object$sweeps) * pace else NA_real_,
                 tts99 = if (all_solved) mean(object$sweeps) * log(100) * pace else NA_real_,
                 seconds_per_sweep = pace, pace = attr(object, "pace"),
                 estimate = est), class = "summary.xorsat_tts")
}

#' @rdname summary.xorsat_tts
#' @export
print.summary.xorsat_tts <- function(x, ...) {
  cat(sprintf("Quasi-greedy runs on %s (N = %d), %s clones a run, p1 = %s\n",
              x$instance, x$n, fmt_count(x$clones), format(x$p1)))
  cat(sprintf("  %d runs, %d solved\n", x$replicas %||% x$runs, x$solved))
  if (!is.na(x$mean_sweeps)) {
    cat(sprintf("  sample: mean TTS %.4g sweeps, median %.4g, TTS99 %.4g sweeps\n",
                x$mean_sweeps, x$median_sweeps, x$tts99_sweeps))
  } else {
    cat("  sample: some runs were cut; see the estimate, which counts their sweeps\n")
  }
  if (is.finite(x$seconds_per_sweep)) {
    cat(sprintf("  pace %.3g s per sweep (%s)%s\n", x$seconds_per_sweep,
                x$pace$device %||% "unknown device",
                if (!is.na(x$mean_seconds))
                  sprintf(": mean TTS %.4g s, TTS99 %.4g s", x$mean_seconds, x$tts99)
                else sprintf(": posterior median mean TTS %.4g s",
                             x$estimate$tau_median * x$seconds_per_sweep)))
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
  pace <- attr(x, "pace")
  if (!is.null(pace)) {
    cat(sprintf("(seconds = sweeps x %.3g s, the pace of one run on %s)\n",
                pace$seconds_per_sweep, pace$device))
  }
  print(utils::head(as.data.frame(x), 10), ...)
  if (nrow(x) > 10) cat(sprintf("... %d more runs\n", nrow(x) - 10))
  invisible(x)
}

#' @rdname summary.xorsat_tts
#' @export
plot.xorsat_tts <- function(x, unit = c("sweeps", "seconds"), ...) {
  unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = sys.call())
  d <- xorsat_surv_data(x, unit)
  plot(d$runs$time, d$runs$surv, log = "y", pch = 19, cex = 0.6,
       xlab = sprintf("time to solution (%s)", tts_unit_label(unit)),
       ylab = "fraction of runs not solved", ...)
  graphics::lines(d$fit$time, exp(-d$fit$time / d$fit$tau), col = "firebrick")
  graphics::legend("topright", c("runs", "exponential, posterior median mean"),
                   pch = c(19, NA), lty = c(NA, 1), col = c(1, "firebrick"), bty = "n")
  invisible(x)
}

# The survival function of the sample (solved runs; cut runs count in the
# denominator) and the fitted exponential, in `unit`, for plot() and
# autoplot().
xorsat_surv_data <- function(x, unit = "sweeps") {
  est <- tts_estimate(as.data.frame(x)[c(unit, "solved")], unit = unit)
  t <- sort(x[[unit]][x$solved])
  surv <- 1 - seq_along(t) / nrow(x)
  keep <- surv > 0
  list(runs = data.frame(time = t[keep], surv = surv[keep]),
       fit = data.frame(time = seq(0, if (length(t)) max(t) else 1, length.out = 200),
                        tau = est$tau_median))
}

#' @rdname summary.xorsat_tts
#' @return `autoplot()`: a ggplot object (the survival function of the time
#'   to solution on a log scale with the fitted exponential, as paper 003's
#'   Fig. 2).
#' @exportS3Method ggplot2::autoplot
autoplot.xorsat_tts <- function(object, unit = c("sweeps", "seconds"), ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = sys.call())
  d <- xorsat_surv_data(object, unit)
  d$fit$surv <- exp(-d$fit$time / d$fit$tau)
  d$runs$what <- "runs"
  d$fit$what <- "exponential, posterior median mean"
  ggplot2::ggplot(d$runs, ggplot2::aes(x = .data$time, y = .data$surv, colour = .data$what)) +
    ggplot2::geom_point(size = 1) +
    ggplot2::geom_line(data = d$fit) +
    ggplot2::scale_y_log10() +
    ggplot2::scale_colour_manual(
      values = c("runs" = "black", "exponential, posterior median mean" = "firebrick"),
      breaks = c("runs", "exponential, posterior median mean"), name = NULL,
      guide = ggplot2::guide_legend(override.aes = list(linetype = c(0, 1),
                                                        shape = c(16, NA)))) +
    ggplot2::labs(x = sprintf("time to solution (%s)", tts_unit_label(unit)),
                  y = "fraction of runs not solved",
                  title = sprintf("%s (N = %d)", attr(object, "instance"), attr(object, "n")),
                  subtitle = sprintf("%d runs of %s clones, p1 = %s", nrow(object),
                                     fmt_count(attr(object, "clones")),
                                     format(attr(object, "p1")))) +
    ggplot2::theme(legend.position = "bottom")
}

#' @rdname summary.xorsat_tts
#' @param row.names,optional Unused.
#' @export
as.data.frame.xorsat_tts <- function(x, row.names = NULL, optional = FALSE, ...) {
  # `run` in results of versions before the vocabulary of issue 23
  out <- data.frame(replica = x[["replica"]] %||% x[["run"]], sweeps = x$sweeps,
                    seconds = x$seconds,
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
  if (anyDuplicated(df$replica)) {
    sp_abort("the chunks overlap: some runs appear twice (check `first_replica`).")
  }
  o <- order(df$replica)
  out <- df[o, , drop = FALSE]
  rownames(out) <- NULL
  # one sample, one pace: the first chunk's (sweeps are the same everywhere)
  out$seconds <- out$sweeps * attr(first, "seconds_per_sweep")
  keep <- setdiff(names(attributes(first)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(first, a)
  attr(out, "solutions") <- do.call(c, lapply(parts, attr, "solutions"))
  attr(out, "seconds") <- sum(vapply(parts, function(p) attr(p, "seconds") %||% 0, 0))
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")), TRUE))
  attr(out, "unfinished") <- do.call(rbind, lapply(parts, attr, "unfinished"))
  attr(out, "replicas") <- nrow(out)
  attr(out, "first_replica") <- if (nrow(out)) min(out$replica) else attr(first, "first_replica")
  class(out) <- class(first)
  out
}
