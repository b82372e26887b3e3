# Methods for the results of lrmd() (class "lrmd_run": one row per record,
# columns step, time, kinetic, potential, total, energy_error, then Mx, My,
# M or virial_ratio, r_half, and temperature; the final phase space in
# attribute state, snapshots in attribute snapshots).

lrmd_header <- function(x) {
  p <- attr(x, "params")
  sprintf("%s, N = %s particles, dt = %s%s", attr(x, "model"), fmt_count(p$n), format(p$dt),
          if (attr(x, "model") == "hmf") "" else sprintf(", softening = %s", format(p$softening)))
}

#' @rdname summary.lrmd_run
#' @param x A result of [lrmd()] (`print()`), or its summary.
#' @param n Rows to show.
#' @export
print.lrmd_run <- function(x, n = 6, ...) {
  p <- attr(x, "params")
  cli::cat_line(sprintf("<lrmd_run> %s records, %s", fmt_count(nrow(x)), lrmd_header(x)))
  cat(sprintf("steps %s to %s (%s of %s made), recorded every %s | %s precision\n",
              fmt_count(p$step_start), fmt_count(p$step_end), fmt_count(attr(x, "steps_done")),
              fmt_count(p$steps), fmt_count(p$record_every), attr(x, "precision") %||% "?"))
  cat(sprintf("backend: %s [%s] | %.3g s | %d snapshot%s\n", attr(x, "backend"),
              paste(attr(x, "devices"), collapse = ", "), attr(x, "seconds") %||% NA_real_,
              length(attr(x, "snapshots")), if (length(attr(x, "snapshots")) == 1) "" else "s"))
  if (isTRUE(attr(x, "interrupted"))) cat("interrupted: the records up to the step reached\n")
  if (nrow(x) > 0) print(utils::head(as.data.frame.lrmd_run(x), n), digits = 5, ...)
  if (nrow(x) > n) cat(sprintf("... %s more rows\n", fmt_count(nrow(x) - n)))
  invisible(x)
}

#' Summary of a long-range MD run
#'
#' The largest relative energy error of the run, and the means of the
#' order parameters and the temperature over the records from the
#' fraction `from` of the run on; for an HMF run, the equilibrium values of
#' [hmf_caloric()] at the run's energy per particle beside them (a
#' quasi-stationary state stays away from them for a time that grows with
#' \eqn{N}).
#'
#' @param object A result of [lrmd()].
#' @param from Fraction of the records skipped before the means.
#' @param ... Unused.
#' @return A one-row data frame of class `summary.lrmd_run`.
#' @examples
#' x <- lrmd("hmf", init = hmf_waterbag(1000, 1, 0.69, seed = 1), dt = 0.1,
#'           steps = 300, backend = "cpu")
#' summary(x)
#' @export
summary.lrmd_run <- function(object, from = 0.5, ...) {
  call <- sys.call()
  from <- check_range(from, "from", 0, 1, hi_open = TRUE, len = 1, call = call)
  d <- as.data.frame.lrmd_run(object)
  late <- d[seq_len(nrow(d)) > floor(from * nrow(d)), , drop = FALSE]
  model <- attr(object, "model")
  out <- data.frame(model = model, n = attr(object, "params")$n, t_end = max(d$time),
                    energy = attr(object, "e0"), max_energy_error = max(abs(d$energy_error)),
                    temperature = mean(late$temperature))
  if (model == "gravity2d") {
    out$virial_ratio <- mean(late$virial_ratio)
    out$r_half <- mean(late$r_half)
  } else {
    out$M <- mean(late$M)
    if (model == "hmf") {
      eq <- hmf_caloric(max(0, attr(object, "e0")))
      out$M_equilibrium <- eq$M
      out$T_equilibrium <- eq$T
    }
  }
  structure(out, class = c("summary.lrmd_run", "data.frame"), from = from,
            header = lrmd_header(object))
}

#' @rdname summary.lrmd_run
#' @param digits Significant digits.
#' @export
print.summary.lrmd_run <- function(x, digits = 4, ...) {
  cat(attr(x, "header"), "\n", sep = "")
  cat(sprintf("means over the records from %s per cent of the run on\n",
              format(100 * attr(x, "from"))))
  print(structure(x, class = "data.frame"), digits = digits, row.names = FALSE, ...)
  invisible(x)
}

#' @export
as.data.frame.lrmd_run <- function(x, ...) {
  out <- as.data.frame(unclass(x)[names(x)], stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}

# The phase-space coordinates of a snapshot (or the final state) to
# histogram: (theta, p) or (x, y).
lrmd_phase <- function(x, snapshot, call) {
  snaps <- attr(x, "snapshots")
  if (is.null(snapshot)) {
    s <- attr(x, "state")
    t <- attr(x, "time_end")
  } else {
    snapshot <- check_whole(snapshot, "snapshot", lo = 1, hi = max(1, length(snaps)), call = call)
    if (length(snaps) < snapshot) sp_abort("the run has no snapshots.", call = call)
    s <- snaps[[snapshot]]
    t <- attr(s, "time")
  }
  if (attr(x, "model") == "gravity2d") {
    list(u = s$x, v = s$y, xlab = "x", ylab = "y", time = t)
  } else {
    th <- s$theta - 2 * pi * round(s$theta / (2 * pi))
    list(u = th, v = s$p, xlab = "theta", ylab = "p", time = t)
  }
}

#' Plots of a long-range MD run
#'
#' `which = "order"`: the magnetisation \eqn{M(t)} (HMF, ring; for HMF with
#' the equilibrium value of [hmf_caloric()] at the run's energy, dashed) or
#' the virial ratio (gravity2d); `"energy"`: kinetic and potential energy
#' per particle, and the relative energy error on a second panel;
#' `"phase"`: the phase-space density of a snapshot (or of the final state)
#' as a 2D histogram, \eqn{(\theta, p)} or \eqn{(x, y)}.
#'
#' @param x,object A result of [lrmd()].
#' @param which `"order"`, `"energy"` or `"phase"`.
#' @param snapshot Number of the snapshot for `"phase"` (`NULL`: the final
#'   state).
#' @param bins Bins per axis of the 2D histogram.
#' @param ... Passed to [graphics::plot()] (`plot()`).
#' @return `plot()`: `x`, invisibly; `autoplot()`: a ggplot.
#' @examples
#' x <- lrmd("hmf", init = hmf_waterbag(2000, 1, 0.69, seed = 1), dt = 0.1,
#'           steps = 400, snapshots = 20, backend = "cpu")
#' plot(x)
#' plot(x, "phase", snapshot = 1)
#' @export
plot.lrmd_run <- function(x, which = c("order", "energy", "phase"), snapshot = NULL,
                          bins = 64, ...) {
  call <- sys.call()
  which <- check_choice(which, c("order", "energy", "phase"), "which", call = call)
  bins <- check_whole(bins, "bins", lo = 2, hi = 4096, call = call)
  d <- as.data.frame.lrmd_run(x)
  model <- attr(x, "model")
  if (which == "order") {
    if (model == "gravity2d") {
      graphics::plot(d$time, d$virial_ratio, type = "l", xlab = "t", ylab = "virial ratio 2K/W",
                     main = "Virial ratio", ...)
      graphics::abline(h = 1, lty = 2, col = "grey40")
    } else {
      graphics::plot(d$time, d$M, type = "l", ylim = c(0, 1), xlab = "t", ylab = "M",
                     main = "Magnetisation", ...)
      if (model == "hmf") {
        graphics::abline(h = hmf_caloric(max(0, attr(x, "e0")))$M, lty = 2, col = "grey40")
      }
    }
  } else if (which == "energy") {
    op <- graphics::par(mfrow = c(2, 1), mar = c(4, 4, 2, 1))
    on.exit(graphics::par(op))
    graphics::matplot(d$time, cbind(d$kinetic, d$potential), type = "l", lty = 1,
                      col = c("firebrick", "steelblue"), xlab = "t", ylab = "energy per particle",
                      main = "Kinetic and potential energy", ...)
    graphics::legend("right", c("kinetic", "potential"), col = c("firebrick", "steelblue"),
                     lty = 1, bty = "n")
    graphics::plot(d$time, d$energy_error, type = "l", xlab = "t",
                   ylab = "(E - E0) / |E0|", main = "Relative energy error")
  } else {
    ph <- lrmd_phase(x, snapshot, call)
    bu <- seq(min(ph$u), max(ph$u) + 1e-12, length.out = bins + 1)
    bv <- seq(min(ph$v), max(ph$v) + 1e-12, length.out = bins + 1)
    h <- table(cut(ph$u, bu, include.lowest = TRUE), cut(ph$v, bv, include.lowest = TRUE))
    graphics::image(bu[-1] - diff(bu) / 2, bv[-1] - diff(bv) / 2, matrix(h, bins, bins),
                    col = grDevices::hcl.colors(64, "viridis"), xlab = ph$xlab, ylab = ph$ylab,
                    main = sprintf("Phase space at t = %s", format(ph$time, digits = 4)), ...)
  }
  invisible(x)
}

#' @rdname plot.lrmd_run
#' @exportS3Method ggplot2::autoplot
autoplot.lrmd_run <- function(object, which = c("order", "energy", "phase"), snapshot = NULL,
                              bins = 64, ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.", call = call)
  }
  which <- check_choice(which, c("order", "energy", "phase"), "which", call = call)
  bins <- check_whole(bins, "bins", lo = 2, hi = 4096, call = call)
  d <- as.data.frame.lrmd_run(object)
  model <- attr(object, "model")
  if (which == "order") {
    y <- if (model == "gravity2d") "virial_ratio" else "M"
    p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$time, y = .data[[y]])) +
      ggplot2::geom_line() + ggplot2::labs(x = "t", y = y)
    if (model == "hmf") {
      p <- p + ggplot2::geom_hline(yintercept = hmf_caloric(max(0, attr(object, "e0")))$M,
                                   linetype = 2)
    }
    return(p)
  }
  if (which == "energy") {
    long <- data.frame(time = rep(d$time, 2), energy = c(d$kinetic, d$potential),
                       part = rep(c("kinetic", "potential"), each = nrow(d)))
    return(ggplot2::ggplot(long, ggplot2::aes(x = .data$time, y = .data$energy,
                                              colour = .data$part)) +
             ggplot2::geom_line() + ggplot2::labs(x = "t", y = "energy per particle"))
  }
  ph <- lrmd_phase(object, snapshot, call)
  ggplot2::ggplot(data.frame(u = ph$u, v = ph$v), ggplot2::aes(x = .data$u, y = .data$v)) +
    ggplot2::geom_bin2d(bins = bins) +
    ggplot2::labs(x = ph$xlab, y = ph$ylab,
                  title = sprintf("Phase space at t = %s", format(ph$time, digits = 4)))
}
