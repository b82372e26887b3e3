# Methods for the results of escape_times() and switching_currents()
# (class "sp_paths": one row per path, columns value and escaped).

path_type <- function(x) {
  if (inherits(x, "switching_currents")) "switching_currents" else "escape_times"
}

value_label <- function(x) {
  if (path_type(x) == "switching_currents") "bias at switching" else "escape time"
}

# The parameter columns of a result (everything between condition and replica).
param_columns <- function(x) {
  setdiff(names(x), c("condition", "replica", "value", "escaped"))
}

# One row per condition with its parameters (works on subsets too).
conditions_of <- function(x) {
  cols <- c("condition", param_columns(x))
  u <- unique(as.data.frame(unclass(x)[cols], stringsAsFactors = FALSE))
  u <- u[order(u$condition), , drop = FALSE]
  rownames(u) <- NULL
  u
}

condition_label <- function(row, cols) {
  paste(sprintf("%s = %s", cols, vapply(cols, function(p) format(row[[p]], digits = 4), "")),
        collapse = ", ")
}

# Quantiles of the (Kaplan-Meier) distribution: the smallest value whose CDF
# reaches p; NA when the censored sample never reaches it.
km_quantile <- function(value, escaped, p) {
  b <- ecdf_band(value, escaped = escaped)
  vapply(p, function(q) {
    i <- which(b$cdf >= q - 1e-12)
    if (length(i)) b$x[i[1]] else NA_real_
  }, numeric(1))
}

#' Summarise simulated escape times or switching currents
#'
#' One row per condition: the number of paths, how many were censored (did
#' not cross by `t_max` or `gamma_max`, or were cut by an interrupt: those
#' are censored where they stopped and also counted as unfinished), the mean
#' with a confidence interval that accounts for censoring ([censored_mean()]:
#' the sample mean when nothing is censored; a Kaplan-Meier restricted mean
#' plus an exponential tail otherwise), the median and quartiles (of the
#' Kaplan-Meier estimate when there is censoring), and the rate of the
#' exponential tail ([exp_tail_rate()], the escape rate at fixed bias). The
#' tail starts where those functions start it by default, at the lower median
#' of the escaped values (so it works however heavy the censoring); a mean or
#' rate that cannot be estimated (fewer than two escapes) is `NA`.
#'
#' @param object A result of [escape_times()] or [switching_currents()].
#' @param level Confidence level of the intervals.
#' @param ... Unused.
#' @return A data frame of class `summary.sp_paths`.
#' @examples
#' x <- escape_times(300, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   h = 0.02, t_max = 300, seed = 2, backend = "cpu")
#' summary(x)
#' @export
summary.sp_paths <- function(object, level = 0.95, ...) {
  level <- check_level(level)
  conds <- conditions_of(object)
  unf <- attr(object, "unfinished")
  rows <- lapply(conds$condition, function(c) {
    d <- object[object$condition == c, , drop = FALSE]
    fin <- !is.na(d$escaped) # NA only in results of versions before 0.2
    v <- d$value[fin]
    e <- d$escaped[fin]
    n_unf <- sum(!fin) + if (is.null(unf)) 0 else sum(unf$condition == c)
    m <- tryCatch(censored_mean(v, e, level = level),
                  error = function(err) list(estimate = NA_real_, lower = NA_real_,
                                             upper = NA_real_))
    tr <- tryCatch(exp_tail_rate(v, e, level = level),
                   error = function(err) list(rate = NA_real_, lower = NA_real_,
                                              upper = NA_real_))
    q <- if (length(v)) km_quantile(v, e, c(0.25, 0.5, 0.75)) else rep(NA_real_, 3)
    data.frame(n = nrow(d), censored = sum(!e), unfinished = n_unf,
               mean = m$estimate, mean_lower = m$lower, mean_upper = m$upper,
               q25 = q[1], median = q[2], q75 = q[3],
               tail_rate = tr$rate, tail_rate_lower = tr$lower,
               tail_rate_upper = tr$upper)
  })
  out <- cbind(conds, do.call(rbind, rows))
  attr(out, "level") <- level
  attr(out, "type") <- path_type(object)
  class(out) <- c("summary.sp_paths", "data.frame")
  out
}

#' @export
print.summary.sp_paths <- function(x, digits = 4, ...) {
  lvl <- attr(x, "level")
  cat(sprintf("%s by condition (%g%% intervals; mean and tail rate account for censoring)\n",
              if (identical(attr(x, "type"), "switching_currents"))
                "Switching currents" else "Escape times", 100 * lvl))
  y <- as.data.frame(unclass(x))
  if (all(y$unfinished == 0)) y$unfinished <- NULL
  print(y, digits = digits, row.names = FALSE)
  invisible(x)
}

#' @export
print.sp_paths <- function(x, ...) {
  n <- nrow(x)
  conds <- conditions_of(x)
  cli::cat_line(sprintf("<%s> %s paths, %d condition%s", class(x)[1],
                        format(n, big.mark = ","), nrow(conds),
                        if (nrow(conds) == 1) "" else "s"),
                if (!is.null(attr(x, "method")))
                  sprintf(" | %s, %s precision, h = %s", attr(x, "method"),
                          attr(x, "precision"), format(attr(x, "h")))
                else "")
  if (!is.null(attr(x, "backend"))) {
    cat(sprintf("backend: %s [%s] | seed %s | %.3g s", attr(x, "backend"),
                paste(attr(x, "devices"), collapse = ", "),
                format(attr(x, "seed"), scientific = FALSE), attr(x, "seconds")))
    st <- attr(x, "steps")
    if (!is.null(st) && st[["issued"]] > 0) {
      cat(sprintf(" | %.3g steps/s", st[["useful"]] / max(attr(x, "seconds"), 1e-9)))
    }
    cat("\n")
  }
  if (isTRUE(attr(x, "interrupted"))) {
    nu <- NROW(attr(x, "unfinished"))
    cat(sprintf("interrupted: %s unfinished path%s, censored where %s stopped\n",
                fmt_count(nu), if (nu == 1) "" else "s", if (nu == 1) "it" else "they"))
  }
  s <- summary(x)
  cols <- c(names(conds), "n", "censored", "mean", "median")
  print(as.data.frame(unclass(s))[, cols, drop = FALSE], digits = 4, row.names = FALSE)
  cat("Use summary() for intervals and quantiles, plot() for the distributions.\n")
  invisible(x)
}

#' @export
as.data.frame.sp_paths <- function(x, ...) {
  out <- as.data.frame(unclass(x)[names(x)], stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}

#' Convert simulated paths to a survival object
#'
#' Returns `survival::Surv(value, escaped)`: escape times (or switching
#' biases) with right censoring at `t_max` (or `gamma_max`), for the
#' survival package's estimators (`survfit()`, `survreg()`, ...).
#' Unfinished paths of an interrupted run are censored where they stopped.
#'
#' For a time-to-solution sample of [xorsat_qg()] it is
#' `survival::Surv(seconds, solved)`: runs cut by a timeout, `max_sweeps` or
#' an interrupt are censored at the time they had run.
#'
#' @param x A result of [escape_times()], [switching_currents()] or
#'   [xorsat_qg()].
#' @return A `Surv` object with one element per path (or run).
#' @examples
#' if (requireNamespace("survival", quietly = TRUE)) {
#'   x <- escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                     h = 0.02, t_max = 100, seed = 3, backend = "cpu")
#'   s <- as_surv(x)
#'   survival::survfit(s ~ 1)
#' }
#' @export
as_surv <- function(x) {
  if (!inherits(x, c("sp_paths", "xorsat_tts"))) {
    sp_abort("`x` must be a result of escape_times(), switching_currents() or xorsat_qg().")
  }
  if (!requireNamespace("survival", quietly = TRUE)) {
    sp_abort("as_surv() needs the survival package: install.packages(\"survival\").")
  }
  if (inherits(x, "xorsat_tts")) return(survival::Surv(x$seconds, x$solved))
  survival::Surv(x$value, x$escaped)
}

#' Combine chunks of one simulation
#'
#' Chunks made with the same seed and parameters but different
#' `first_replica` (for example on several cluster workers) combine into the
#' result of one call: rows are ordered by condition and replica, and a
#' replica present twice is an error.
#'
#' @param ... Results of [escape_times()] (or of [switching_currents()]).
#' @param deparse.level Unused.
#' @return One result object.
#' @examples
#' a <- escape_times(50, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   h = 0.02, t_max = 300, seed = 9, backend = "cpu")
#' b <- escape_times(50, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   h = 0.02, t_max = 300, seed = 9, backend = "cpu",
#'                   first_replica = 51)
#' whole <- escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                       h = 0.02, t_max = 300, seed = 9, backend = "cpu")
#' all.equal(as.data.frame(rbind(a, b)), as.data.frame(whole))
#' @export
rbind.sp_paths <- function(..., deparse.level = 1) {
  parts <- list(...)
  parts <- parts[!vapply(parts, is.null, TRUE)]
  first <- parts[[1]]
  same <- function(a) identical(attr(a, "seed_hex"), attr(first, "seed_hex")) &&
    identical(class(a), class(first)) &&
    identical(attr(a, "method"), attr(first, "method")) &&
    identical(attr(a, "precision"), attr(first, "precision")) &&
    identical(attr(a, "h"), attr(first, "h")) &&
    identical(attr(a, "threshold"), attr(first, "threshold")) &&
    identical(attr(a, "start"), attr(first, "start")) &&
    identical(attr(a, "conditions"), attr(first, "conditions"))
  if (!all(vapply(parts, same, TRUE))) {
    sp_abort(paste0("rbind() of simulation results needs chunks of one simulation: ",
                    "the same seed, parameters, method, precision, step, threshold ",
                    "and start."))
  }
  df <- do.call(rbind, lapply(parts, as.data.frame.sp_paths))
  key <- paste(df$condition, df$replica)
  if (anyDuplicated(key)) {
    sp_abort("the chunks overlap: some replicas appear twice (check `first_replica`).")
  }
  o <- order(df$condition, df$replica)
  out <- df[o, , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(first)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(first, a)
  attr(out, "n") <- as.double(length(unique(df$replica)))
  attr(out, "first_replica") <- min(df$replica)
  attr(out, "seconds") <- sum(vapply(parts, function(p) attr(p, "seconds") %||% 0, 0))
  attr(out, "steps") <- Reduce(`+`, lapply(parts, function(p) attr(p, "steps") %||% c(useful = 0, issued = 0)))
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")), TRUE))
  if (!is.null(attr(first, "unfinished"))) {
    u <- do.call(rbind, lapply(parts, function(p) attr(p, "unfinished")))
    u <- u[order(u$condition, u$replica), , drop = FALSE]
    rownames(u) <- NULL
    attr(out, "unfinished") <- u
  }
  if (!is.null(attr(first, "args"))) {
    a <- attr(first, "args")
    a$n <- attr(out, "n")
    a$first_replica <- attr(out, "first_replica")
    attr(out, "args") <- a
  }
  class(out) <- class(first)
  out
}

# Theories a plot can draw: rate theories (escape out of the well) and the
# Smoluchowski mean first-passage time (to the saddle, overdamped).
PATH_THEORIES <- c("none", "kramers", "bhl", "mm", "smoluchowski")
RATE_THEORIES <- c("kramers", "bhl", "mm")

# Theory CDF at points v for one condition row of a result.
theory_cdf <- function(x, cond, v, theory) {
  if (path_type(x) == "switching_currents") {
    g0 <- attr(x, "gamma0") %||% 0
    switching_distribution(pmin(pmax(v, g0), 1 - 1e-12), cond$ramp, cond$V0,
                           cond$beta, cond$theta, prefactor = theory,
                           gamma0 = g0)$cdf
  } else if (theory == "smoluchowski") {
    tau <- mfpt_smoluchowski(cond$gamma, cond$V0, cond$beta, cond$theta)
    -expm1(-pmax(v, 0) / tau)
  } else {
    rate <- escape_rate(cond$gamma, cond$V0, cond$beta, cond$theta,
                        prefactor = theory)
    -expm1(-rate * pmax(v, 0))
  }
}

# Does `theory` describe the escapes of x?  Rate theories describe leaving
# the well (threshold "next_well" or past the saddle); the Smoluchowski time
# describes first passage at the saddle.  Refuses what cannot be drawn,
# warns when a plot would compare unlike things.
check_theory_fits <- function(x, theory, call) {
  if (theory == "none") return(invisible(TRUE))
  threshold <- attr(x, "threshold") %||% "saddle"
  if (path_type(x) == "switching_currents") {
    if (theory == "smoluchowski") {
      sp_abort(paste0("theory = \"smoluchowski\" (a mean first-passage time at ",
                      "fixed bias) has no switching-current distribution; use a ",
                      "rate theory."), call = call)
    }
    return(invisible(TRUE))
  }
  if (theory %in% RATE_THEORIES && identical(threshold, "saddle")) {
    sp_warn(paste0(
      "the ", theory, " rate describes escape out of the well; these are first ",
      "passages at the saddle (threshold = \"saddle\"), which come earlier ",
      "(0.84-0.87 of 1/rate at moderate damping, about half of it when ",
      "overdamped). Compare like with like: simulate with threshold = ",
      "\"next_well\", or use theory = \"smoluchowski\" when overdamped."),
      call = call, class = "statphysgpu_theory_mismatch")
  }
  if (theory == "smoluchowski" && !identical(threshold, "saddle")) {
    sp_warn(paste0(
      "the Smoluchowski time is the mean first passage at the saddle; these ",
      "escapes use threshold = ", describe_threshold(threshold), "."),
      call = call, class = "statphysgpu_theory_mismatch")
  }
  if (theory == "smoluchowski" && any(conditions_of(x)$gamma == 0)) {
    sp_abort("theory = \"smoluchowski\" needs gamma > 0 (no tilt: infinite time).",
             call = call)
  }
  invisible(TRUE)
}

# ECDF bands of every condition, with the theory CDF when asked.
paths_plot_data <- function(x, level, theory) {
  conds <- conditions_of(x)
  cols <- setdiff(names(conds), "condition")
  lapply(seq_len(nrow(conds)), function(i) {
    cond <- conds[i, , drop = FALSE]
    d <- x[x$condition == cond$condition & !is.na(x$escaped), , drop = FALSE]
    b <- ecdf_band(d$value, level = level, escaped = d$escaped)
    th <- NULL
    if (theory != "none") {
      grid <- seq(min(d$value), max(d$value), length.out = 400)
      th <- data.frame(x = grid, cdf = theory_cdf(x, cond, grid, theory))
    }
    list(label = condition_label(cond, cols), band = b, theory = th)
  })
}

#' Plot the distribution of simulated escape times or switching currents
#'
#' Draws, per condition, the empirical CDF (Kaplan-Meier when paths are
#' censored) with its confidence band ([ecdf_band()]), and optionally the
#' theoretical CDF: \eqn{1 - e^{-\Gamma t}} with the Kramers,
#' Buttiker-Harris-Landauer or Mel'nikov-Meshkov rate ([escape_rate()]) for
#' escape times, the
#' Fulton-Dunkleberger distribution ([switching_distribution()]) for
#' switching currents, or \eqn{1 - e^{-t/\tau}} with the Smoluchowski mean
#' first-passage time \eqn{\tau} ([mfpt_smoluchowski()]).
#'
#' Like is compared with like: the rates describe escape out of the well
#' (simulate with `threshold = "next_well"`), the Smoluchowski time first
#' passage at the saddle in the overdamped regime (`threshold = "saddle"`,
#' the default); a plot that mixes them warns (see "Threshold" in
#' [escape_times()]).
#'
#' @param x A result of [escape_times()] or [switching_currents()].
#' @param theory `"none"`, `"kramers"`, `"bhl"`, `"mm"` (the prefactors of
#'   [escape_rate()]) or `"smoluchowski"`.
#' @param level Confidence level of the band.
#' @param log Passed to [plot()] (e.g. `"x"` for a logarithmic time axis).
#' @param xlim Range of the horizontal axis (default: the data's).
#' @param ... Passed to [plot()].
#' @return `x`, invisibly.
#' @examples
#' x <- escape_times(300, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   h = 0.02, t_max = 1000, seed = 2, backend = "cpu",
#'                   threshold = "next_well")
#' plot(x, theory = "kramers")
#' @export
plot.sp_paths <- function(x, theory = c("none", "kramers", "bhl", "mm", "smoluchowski"), level = 0.95,
                          log = "", xlim = NULL, ...) {
  call <- sys.call()
  theory <- check_choice(theory, PATH_THEORIES, "theory", call = call)
  level <- check_level(level, call = call)
  check_theory_fits(x, theory, call)
  pd <- paths_plot_data(x, level, theory)
  xr <- range(unlist(lapply(pd, function(p) p$band$x)), finite = TRUE)
  if (grepl("x", log)) xr[1] <- max(xr[1], min(x$value[x$value > 0], na.rm = TRUE))
  if (!is.null(xlim)) xr <- xlim
  cols <- grDevices::hcl.colors(max(length(pd), 2), "Dark 3")[seq_along(pd)]
  graphics::plot(NA, xlim = xr, ylim = c(0, 1), log = log,
                 xlab = value_label(x), ylab = "cumulative probability",
                 main = sprintf("Empirical CDF, %g%% band%s", 100 * level,
                                if (theory != "none") sprintf(", %s theory dashed",
                                                              theory) else ""),
                 ...)
  for (i in seq_along(pd)) {
    b <- pd[[i]]$band
    xs <- c(b$x, max(xr[2], b$x[length(b$x)]))
    lo <- ifelse(is.na(b$lower), b$cdf, b$lower)
    hi <- ifelse(is.na(b$upper), b$cdf, b$upper)
    xx <- rep(xs, each = 2)
    xx <- xx[-c(1, length(xx))] # corners of the step function
    graphics::polygon(c(xx, rev(xx)), c(rep(lo, each = 2), rev(rep(hi, each = 2))),
                      col = grDevices::adjustcolor(cols[i], 0.25), border = NA)
    graphics::lines(xs, c(b$cdf, b$cdf[length(b$cdf)]), type = "s", col = cols[i], lwd = 1.5)
    if (!is.null(pd[[i]]$theory)) {
      graphics::lines(pd[[i]]$theory$x, pd[[i]]$theory$cdf, col = cols[i], lty = 2, lwd = 1.5)
    }
  }
  graphics::legend("bottomright", legend = vapply(pd, `[[`, "", "label"), col = cols,
                   lwd = 1.5, bty = "n", cex = 0.8)
  invisible(x)
}

#' @rdname plot.sp_paths
#' @param object A result of [escape_times()] or [switching_currents()].
#' @exportS3Method ggplot2::autoplot
autoplot.sp_paths <- function(object, theory = c("none", "kramers", "bhl", "mm", "smoluchowski"),
                              level = 0.95, ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  theory <- check_choice(theory, PATH_THEORIES, "theory", call = call)
  check_theory_fits(object, theory, call)
  pd <- paths_plot_data(object, check_level(level), theory)
  steps <- do.call(rbind, lapply(pd, function(p) {
    b <- p$band
    data.frame(condition = p$label, x = b$x, cdf = b$cdf,
               lower = ifelse(is.na(b$lower), b$cdf, b$lower),
               upper = ifelse(is.na(b$upper), b$cdf, b$upper))
  }))
  g <- ggplot2::ggplot(steps, ggplot2::aes(x = .data$x, y = .data$cdf,
                                           colour = .data$condition,
                                           fill = .data$condition)) +
    ggplot2::geom_rect(ggplot2::aes(xmin = .data$x,
                                    xmax = stats::ave(.data$x, .data$condition,
                                                      FUN = function(v) c(v[-1], v[length(v)])),
                                    ymin = .data$lower, ymax = .data$upper),
                       alpha = 0.25, colour = NA) +
    ggplot2::geom_step() +
    ggplot2::labs(x = value_label(object), y = "cumulative probability",
                  colour = NULL, fill = NULL)
  th <- do.call(rbind, lapply(pd, function(p) {
    if (is.null(p$theory)) NULL else data.frame(condition = p$label, p$theory)
  }))
  if (!is.null(th)) {
    g <- g + ggplot2::geom_line(data = th, linetype = 2,
                                ggplot2::aes(x = .data$x, y = .data$cdf,
                                             colour = .data$condition),
                                inherit.aes = FALSE)
  }
  g
}
utils::globalVariables(".data")
