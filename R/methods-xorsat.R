# Methods for the results of xorsat_qg() (class "xorsat_tts": one row per
# run, columns condition, p1, replica, sweeps, seconds, solved, clone;
# results made before sweeps have no condition and p1 columns, and those
# before the vocabulary of issue 23 `run` for `replica`).  A result of a
# sweep over p1 is summarised, estimated and drawn condition by condition.

# The conditions of a result (attribute `conditions`: condition, p1), one
# row from attribute p1 for results made before sweeps.
xorsat_conditions <- function(x) {
  attr(x, "conditions") %||% data.frame(condition = 1L, p1 = attr(x, "p1") %||% NA_real_)
}

# Condition c of a result as a one-condition result (its rows and p1).
xorsat_condition_part <- function(x, c) {
  g <- xorsat_conditions(x)
  if (nrow(g) == 1) return(x)
  out <- xorsat_df(x)[x$condition == c, , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(x)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(x, a)
  attr(out, "p1") <- g$p1[c]
  attr(out, "conditions") <- g[c, , drop = FALSE]
  class(out) <- class(x)
  out
}

#' Summarise, plot and combine time-to-solution samples
#'
#' `summary()` gives the runs, how many solved, the sample mean and median
#' time to solution, TTS99 = mean \eqn{\times \ln 100}, and the Bayesian
#' estimate of [tts_estimate()], which also uses the runs cut by
#' `max_sweeps` or a timeout; all in sweeps, with the mean and TTS99 also in
#' seconds at the measured pace (see "Sweeps and seconds" in
#' [xorsat_qg()]). `plot()` draws the empirical survival function of the
#' TTS on a log scale with the exponential of the estimated mean (Bernaschi et al. 2021,
#' Fig. 2), in sweeps by default. `rbind()` combines chunks of one study
#' (runs `first_replica..` run elsewhere with the same seed, instance, clones
#' and `p1`); their sweeps are exact, and their seconds are converted
#' again at the pace of the first chunk, so that one sample has one pace.
#' Chunks of other studies (another seed, instance, clones, `p1`,
#' `independent_clones`, `timeout`, `max_sweeps` or precision) are refused
#' with an error of class `statphysgpu_rbind_error` that names the setting that differs, and so are runs present twice.
#'
#' **Sweeps over p1.** A result of several values of `p1` is summarised
#' condition by condition: `summary()` then holds a table `conditions`, one
#' row per value of `p1` (runs, solved, sample mean and median, and the
#' posterior median and credible interval of the mean TTS \eqn{\tau} and
#' of TTS99), its optimum marked in the printout (the optimal-p1 study of
#' Bernaschi et al. (2021)); `plot()` and `autoplot()` draw one survival curve per value.
#'
#' @param object,x A result of [xorsat_qg()].
#' @param success Success probability of the TTS, as in [tts_estimate()]
#'   (0.99: TTS99).
#' @param level Deprecated: the old name of `success` (it works, with a
#'   warning of class `statphysgpu_deprecated`).
#' @param unit `"sweeps"` (exact, machine-independent) or `"seconds"` (the
#'   sweeps times the pace) for the time axis of `plot()` and `autoplot()`.
#' @param ... Passed to [tts_estimate()] (summary) or [plot()].
#' @return `summary()`: a list of class `summary.xorsat_tts` (of a sweep,
#'   `success` holds the success probability; its field `level` of earlier
#'   versions is kept, deprecated, for one release).
#' @references
#' Bernaschi, M., Bisson, M., Fatica, M., Marinari, E., Martin-Mayor, V.,
#'   Parisi, G. and Ricci-Tersenghi, F. (2021) How we are leading a 3-XORSAT
#'   challenge: from the energy landscape to the algorithm and its efficient
#'   implementation on GPUs. *EPL* 133, 60005.
#'   \doi{10.1209/0295-5075/133/60005}
#' @examples
#' x <- xorsat_qg(xorsat_random(48, seed = 1), replicas = 30, clones = 64,
#'                seed = 1, backend = "cpu")
#' summary(x)
#' plot(x)
#' @export
summary.xorsat_tts <- function(object, success = 0.99, ..., level) {
  sp_renamed_args(c(level = "success"), "summary")
  g <- xorsat_conditions(object)
  if (nrow(g) > 1) {
    parts <- lapply(seq_len(nrow(g)), function(c) {
      summary.xorsat_tts(xorsat_condition_part(object, c), success = success, ...)
    })
    tab <- data.frame(condition = g$condition, p1 = g$p1,
                      replicas = vapply(parts, `[[`, 0, "replicas"),
                      solved = vapply(parts, `[[`, 0, "solved"),
                      mean_sweeps = vapply(parts, `[[`, 0, "mean_sweeps"),
                      median_sweeps = vapply(parts, `[[`, 0, "median_sweeps"),
                      tau_median = vapply(parts, function(p) p$estimate$tau_median, 0),
                      tau_lower = vapply(parts, function(p) p$estimate$tau_lower, 0),
                      tau_upper = vapply(parts, function(p) p$estimate$tau_upper, 0),
                      tts = vapply(parts, function(p) p$estimate$tts, 0),
                      tts_lower = vapply(parts, function(p) p$estimate$tts_lower, 0),
                      tts_upper = vapply(parts, function(p) p$estimate$tts_upper, 0))
    first <- parts[[1]]
    return(structure(list(instance = first$instance, n = first$n, clones = first$clones,
                          p1 = g$p1, replicas = sum(tab$replicas), solved = sum(tab$solved),
                          success = success, level = success, conditions = tab,
                          best = tab$condition[which.min(tab$tau_median)],
                          seconds_per_sweep = first$seconds_per_sweep, pace = first$pace,
                          parts = parts), class = "summary.xorsat_tts"))
  }
  s <- object$solved
  est <- tts_estimate(xorsat_df(object)[c("sweeps", "solved")], success = success,
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
  if (!is.null(x$conditions)) { # a sweep over p1: one row per value
    cat(sprintf("Quasi-greedy runs on %s (N = %d), %s clones a run, %d values of p1\n",
                x$instance, x$n, fmt_count(x$clones), nrow(x$conditions)))
    cat(sprintf("  %s runs, %s solved; times in sweeps; tau: the mean TTS (posterior median and %g%% credible interval), tts: TTS%s\n",
                fmt_count(x$replicas), fmt_count(x$solved),
                100 * x$parts[[1]]$estimate$credible, format(100 * (x$success %||% x$level))))
    tab <- x$conditions
    tab$best <- ifelse(tab$condition == x$best, "<-", "")
    print(tab[setdiff(names(tab), "condition")], digits = 4, row.names = FALSE)
    if (is.finite(x$seconds_per_sweep)) {
      cat(sprintf("  pace %.3g s per sweep (%s): the best p1 (%s) has a mean TTS of %.4g s\n",
                  x$seconds_per_sweep, x$pace$device %||% "unknown device",
                  format(tab$p1[tab$condition == x$best]),
                  tab$tau_median[tab$condition == x$best] * x$seconds_per_sweep))
    }
    return(invisible(x))
  }
  cat(sprintf("Quasi-greedy runs on %s (N = %d), %s clones a run, p1 = %s\n",
              x$instance, x$n, fmt_count(x$clones), format(x$p1)))
  cat(sprintf("  %s runs, %s solved\n", fmt_count(x$replicas %||% x$runs), fmt_count(x$solved)))
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
              paste(format(attr(x, "p1")), collapse = ", "),
              if (isTRUE(attr(x, "independent_clones"))) " (per clone)" else "",
              sum(x$solved)))
  if (isTRUE(attr(x, "interrupted"))) cat("(interrupted: a partial sample)\n")
  pace <- attr(x, "pace")
  if (!is.null(pace)) {
    cat(sprintf("(seconds = sweeps x %.3g s, the pace of one run on %s)\n",
                pace$seconds_per_sweep, pace$device))
  }
  print(fmt_whole_cols(utils::head(xorsat_df(x), 10)), ...)
  if (nrow(x) > 10) cat(sprintf("... %d more runs\n", nrow(x) - 10))
  invisible(x)
}

#' @rdname summary.xorsat_tts
#' @export
plot.xorsat_tts <- function(x, unit = c("sweeps", "seconds"), ...) {
  unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = sys.call())
  g <- xorsat_conditions(x)
  if (nrow(g) > 1) { # one survival curve (and its exponential) per p1
    ds <- lapply(seq_len(nrow(g)), function(c) xorsat_surv_data(xorsat_condition_part(x, c), unit))
    cols <- grDevices::hcl.colors(max(nrow(g), 2), "Dark 3")[seq_len(nrow(g))]
    t <- unlist(lapply(ds, function(d) d$runs$time))
    s <- unlist(lapply(ds, function(d) d$runs$surv))
    plot(NA, xlim = range(c(0, t, 1)), ylim = range(c(s, 1)), log = "y",
         xlab = sprintf("time to solution (%s)", tts_unit_label(unit)),
         ylab = "fraction of runs not solved", ...)
    for (c in seq_along(ds)) {
      graphics::points(ds[[c]]$runs$time, ds[[c]]$runs$surv, pch = 19, cex = 0.5, col = cols[c])
      graphics::lines(ds[[c]]$fit$time, exp(-ds[[c]]$fit$time / ds[[c]]$fit$tau), col = cols[c])
    }
    graphics::legend("topright", paste("p1 =", format(g$p1)), col = cols, pch = 19, lty = 1,
                     bty = "n", cex = 0.8)
    return(invisible(x))
  }
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
  est <- tts_estimate(xorsat_df(x)[c(unit, "solved")], unit = unit)
  t <- sort(x[[unit]][x$solved])
  surv <- 1 - seq_along(t) / nrow(x)
  keep <- surv > 0
  list(runs = data.frame(time = t[keep], surv = surv[keep]),
       fit = data.frame(time = seq(0, if (length(t)) max(t) else 1, length.out = 200),
                        tau = est$tau_median))
}

#' @rdname summary.xorsat_tts
#' @return `autoplot()`: a ggplot object (the survival function of the time
#'   to solution on a log scale with the fitted exponential, as Bernaschi et al.'s (2021)
#'   Fig. 2).
#' @exportS3Method ggplot2::autoplot
autoplot.xorsat_tts <- function(object, unit = c("sweeps", "seconds"), ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = sys.call())
  g <- xorsat_conditions(object)
  if (nrow(g) > 1) { # one survival curve (and its exponential) per p1
    ds <- lapply(seq_len(nrow(g)), function(c) {
      d <- xorsat_surv_data(xorsat_condition_part(object, c), unit)
      d$fit$surv <- exp(-d$fit$time / d$fit$tau)
      d$runs$p1 <- d$fit$p1 <- format(g$p1[c])
      d
    })
    runs <- do.call(rbind, lapply(ds, `[[`, "runs"))
    fit <- do.call(rbind, lapply(ds, `[[`, "fit"))
    return(ggplot2::ggplot(runs, ggplot2::aes(x = .data$time, y = .data$surv,
                                              colour = .data$p1)) +
      ggplot2::geom_point(size = 1) +
      ggplot2::geom_line(data = fit) +
      ggplot2::scale_y_log10() +
      ggplot2::labs(x = sprintf("time to solution (%s)", tts_unit_label(unit)),
                    y = "fraction of runs not solved", colour = "p1",
                    title = sprintf("%s (N = %d)", attr(object, "instance"), attr(object, "n")),
                    subtitle = sprintf("%d runs of %s clones; lines: exponentials of the posterior median mean",
                                       nrow(object), fmt_count(attr(object, "clones")))) +
      ggplot2::theme(legend.position = "bottom"))
  }
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
  sp_renamed_df(xorsat_df(x), "xorsat_tts")
}

# The column `run` of earlier versions (now `replica`): read with a warning.
#' @export
`$.xorsat_tts` <- function(x, name) {
  name <- sp_old_column(x, name, SP_OLD_COLUMNS$xorsat_tts, "xorsat_qg()")
  NextMethod()
}

#' @export
`[[.xorsat_tts` <- function(x, i, ..., exact = TRUE) {
  if (missing(...)) i <- sp_old_column(x, i, SP_OLD_COLUMNS$xorsat_tts, "xorsat_qg()")
  NextMethod()
}

# The runs as a plain data frame.
xorsat_df <- function(x) {
  # `run` in results of versions before the vocabulary of issue 23; no
  # condition and p1 before sweeps
  out <- data.frame(condition = x[["condition"]] %||% rep(1L, nrow(x)),
                    p1 = x[["p1"]] %||% rep(attr(x, "p1") %||% NA_real_, nrow(x)),
                    replica = x[["replica"]] %||% x[["run"]], sweeps = x$sweeps,
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
  rbind_same(parts, "xorsat_qg()", paste0(
    "chunks of one study: the same seed, instance, clones, p1, independent_clones, ",
    "timeout, max_sweeps and precision (other runs: `first_replica`)"),
    list(seed = "seed_hex", instance = "instance", `the instance's size n` = "n",
         clones = "clones", p1 = "p1",
         independent_clones = function(a) isTRUE(attr(a, "independent_clones")),
         timeout = "timeout", max_sweeps = "max_sweeps", precision = "precision"))
  df <- do.call(rbind, lapply(parts, xorsat_df))
  if (anyDuplicated(df[c("condition", "replica")])) {
    rbind_abort("the chunks overlap: some runs appear twice (check `first_replica`).")
  }
  o <- order(df$condition, df$replica)
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
  attr(out, "replicas") <- as.double(length(unique(out$replica)))
  attr(out, "first_replica") <- if (nrow(out)) min(out$replica) else attr(first, "first_replica")
  class(out) <- class(first)
  out
}
