# Methods for the results of lrmd() (class "lrmd_run": one row per record,
# columns step, time, kinetic, potential, total, energy_error, then Mx, My,
# M or virial_ratio, r_half, and temperature; the final phase space in
# attribute state, snapshots in attribute snapshots).

lrmd_header <- function(x) {
  p <- attr(x, "params")
  sy <- lrmd_systems_table(x)
  nc <- NROW(attr(x, "conditions"))
  sprintf("%s, N = %s particles, dt = %s%s%s", attr(x, "model"), fmt_count(p$n), format(p$dt),
          if (attr(x, "model") == "hmf") "" else
            sprintf(", softening = %s", paste(format(p$softening), collapse = ", ")),
          if (nrow(sy) == 1) "" else
            sprintf("; %s systems (%s replicas%s)", fmt_count(nrow(sy)),
                    fmt_count(length(unique(sy$replica))),
                    if (nc > 1) sprintf(" x %s conditions", fmt_count(nc)) else ""))
}

# The systems of a result, one row each (condition, the swept parameters,
# replica, softening, e0, ...), in the order of its states; a result of one
# system made before replicas existed: replica 1.
lrmd_systems_table <- function(x) {
  sy <- attr(x, "systems")
  if (is.data.frame(sy)) return(sy)
  data.frame(replica = 1, softening = attr(x, "params")$softening, e0 = attr(x, "e0"))
}

# The rows of each system in the records: a list (the systems' order).
lrmd_system_rows <- function(x) {
  sy <- lrmd_systems_table(x)
  key <- function(d) paste(if (is.null(d$condition)) 1 else d$condition, d$replica)
  unname(split(seq_len(nrow(x)), factor(key(x), levels = key(sy))))
}

#' @rdname summary.lrmd_run
#' @param x A result of [lrmd()] (`print()`), or its summary.
#' @param n Rows to show.
#' @export
print.lrmd_run <- function(x, n = 6, ...) {
  p <- attr(x, "params")
  cli::cat_line(sprintf("<lrmd_run> %s records, %s", fmt_count(nrow(x)), lrmd_header(x)))
  done <- attr(x, "steps_done")
  nsys <- length(lrmd_states(x))
  nsnap <- if (nsys == 1) length(attr(x, "snapshots")) else length(attr(x, "snapshots")[[1]])
  cat(sprintf("steps %s to %s (%s of %s made%s), recorded every %s | %s precision\n",
              fmt_count(p$step_start), fmt_count(p$step_end), fmt_count(min(done)),
              fmt_count(p$steps), if (nsys > 1) " by every system" else "",
              fmt_count(p$record_every), attr(x, "precision") %||% "?"))
  cat(sprintf("backend: %s [%s] | %.3g s | %d snapshot%s%s\n", attr(x, "backend"),
              paste(attr(x, "devices"), collapse = ", "), attr(x, "seconds") %||% NA_real_,
              nsnap, if (nsnap == 1) "" else "s", if (nsys > 1) " a system" else ""))
  if (isTRUE(attr(x, "interrupted"))) cat("interrupted: the records up to the step reached\n")
  if (nrow(x) > 0) print(fmt_whole_cols(utils::head(as.data.frame.lrmd_run(x), n)),
                         digits = 5, ...)
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
#' \eqn{N}). One row per system: a run of several replicas or conditions
#' (see [lrmd()], Replicas and sweeps) is summarised system by system, with
#' the columns `condition`, the swept parameters and `replica` first; pool
#' them with [aggregate()] or `tapply()` (the replicas of a condition are
#' independent samples).
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
  dd <- as.data.frame.lrmd_run(object)
  sy <- lrmd_systems_table(object)
  model <- attr(object, "model")
  lead <- intersect(names(dd), c(names(attr(object, "conditions")), "replica"))
  rows <- lrmd_system_rows(object)
  out <- lapply(seq_along(rows), function(i) {
    d <- dd[rows[[i]], , drop = FALSE]
    late <- d[seq_len(nrow(d)) > floor(from * nrow(d)), , drop = FALSE]
    e0 <- sy$e0[i]
    o <- data.frame(sy[i, lead, drop = FALSE], model = model, n = attr(object, "params")$n,
                    t_end = if (nrow(d)) max(d$time) else NA_real_, energy = e0,
                    max_energy_error = if (nrow(d)) max(abs(d$energy_error)) else NA_real_,
                    temperature = mean(late$temperature))
    if (model == "gravity2d") {
      o$virial_ratio <- mean(late$virial_ratio)
      o$r_half <- mean(late$r_half)
    } else {
      o$M <- mean(late$M)
      if (model == "hmf") {
        eq <- hmf_caloric(max(0, if (is.finite(e0)) e0 else 0))
        o$M_equilibrium <- if (is.finite(e0)) eq$M else NA_real_
        o$T_equilibrium <- if (is.finite(e0)) eq$T else NA_real_
      }
    }
    o
  })
  out <- do.call(rbind, out)
  rownames(out) <- NULL
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
  print(fmt_whole_cols(structure(x, class = "data.frame")), digits = digits, row.names = FALSE,
        ...)
  invisible(x)
}

#' @export
as.data.frame.lrmd_run <- function(x, ...) {
  out <- as.data.frame(unclass(x)[names(x)], stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}

#' Combine chunks of an lrmd() run
#'
#' Results of [lrmd()] with the same arguments and seed but other replicas
#' (`first_replica`, `replicas`; see [replica_chunks()]) combine into the
#' result of one call with all the replicas: the records ordered by
#' condition, replica and step, and the systems' states, snapshots and
#' energies in the same order. Chunks of other runs (another model, `n`,
#' `dt`, `steps`, `record_every`, softening, start step, conditions,
#' precision or seed) are refused with an error of class `statphysgpu_rbind_error` that names the setting that differs, and so is a replica given twice.
#' The combination of unmodified chunks is sealed as a result of [lrmd()]
#' is (`init = ` continues it); one with a chunk modified after its run is
#' not, and a continuation refuses it.
#'
#' @param ... Results of [lrmd()].
#' @param deparse.level Unused.
#' @return An object of class `lrmd_run`.
#' @examples
#' w <- hmf_waterbag(300, 1, 0.69, seed = 1)
#' run <- function(first, m) {
#'   lrmd(init = w, dt = 0.1, steps = 20, replicas = m, first_replica = first,
#'        backend = "cpu")
#' }
#' x <- rbind(run(1, 2), run(3, 1))
#' identical(as.data.frame(x), as.data.frame(run(1, 3)))
#' @export
rbind.lrmd_run <- function(..., deparse.level = 1) {
  parts <- list(...)
  parts <- parts[!vapply(parts, is.null, TRUE)]
  first <- parts[[1]]
  p0 <- attr(first, "params")
  param <- function(f) function(a) attr(a, "params")[[f]]
  rbind_same(parts, "lrmd()", paste0(
    "chunks of one run: the same model, `n`, `dt`, `steps`, `record_every`, softening, ",
    "start step, conditions, precision and seed (other replicas: `first_replica`)"),
    list(`the model` = "model", n = param("n"), dt = param("dt"), steps = param("steps"),
         record_every = param("record_every"), softening = param("softening"),
         `the step the run started at` = param("step_start"),
         `the conditions` = "conditions", precision = "precision", seed = "seed_hex"))
  sy <- do.call(rbind, lapply(parts, lrmd_systems_table))
  states <- do.call(c, lapply(parts, lrmd_states))
  snaps <- do.call(c, lapply(parts, function(a) {
    if (nrow(lrmd_systems_table(a)) == 1) list(attr(a, "snapshots")) else attr(a, "snapshots")
  }))
  cond <- if (is.null(sy$condition)) rep(1, nrow(sy)) else sy$condition
  if (anyDuplicated(paste(cond, sy$replica))) {
    rbind_abort("rbind() of lrmd() results: a replica is in more than one chunk.")
  }
  o <- order(cond, sy$replica)
  sy <- sy[o, , drop = FALSE]
  rownames(sy) <- NULL
  recs <- lapply(parts, as.data.frame.lrmd_run)
  d <- do.call(rbind, recs)
  dc <- if (is.null(d$condition)) rep(1, nrow(d)) else d$condition
  d <- d[order(dc, d$replica, d$step), , drop = FALSE]
  out <- new_df(as.list(d))
  one <- nrow(sy) == 1
  keep <- c("model", "clock", "seed", "seed_hex", "backend", "devices", "precision",
            "conditions")
  for (a in keep) attr(out, a) <- attr(first, a)
  p <- p0
  p$softening <- unique(sy$softening)
  p$step_start <- min(sy$step_start)
  p$step_end <- max(sy$step_end)
  attr(out, "params") <- p
  attr(out, "state") <- if (one) states[[o]] else states[o]
  attr(out, "snapshots") <- if (one) snaps[[o]] else snaps[o]
  attr(out, "e0") <- sy$e0
  attr(out, "time_end") <- sy$time_end
  attr(out, "steps_done") <- sy$steps_done
  attr(out, "systems") <- sy
  attr(out, "seconds") <- rbind_seconds(parts)
  attr(out, "interrupted") <- any(vapply(parts, function(a) isTRUE(attr(a, "interrupted")), TRUE))
  class(out) <- class(first)
  # a combination of unmodified chunks continues as one run (a chunk
  # modified after its run leaves it unsealed: refused by a continuation)
  sp_reseal(out, parts, LRMD_SEALED)
}

# The phase-space coordinates of a snapshot (or the final state) to
# histogram: (theta, p) or (x, y).
lrmd_phase <- function(x, snapshot, call, system = 1) {
  states <- lrmd_states(x)
  system <- check_whole(system, "system", lo = 1, hi = length(states), call = call)
  snaps <- if (length(states) == 1) attr(x, "snapshots") else attr(x, "snapshots")[[system]]
  if (is.null(snapshot)) {
    s <- states[[system]]
    t <- attr(x, "time_end")[system]
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
#' as a 2D histogram, \eqn{(\theta, p)} or \eqn{(x, y)}. A run of several
#' systems (replicas, conditions) draws one line per system; `"phase"`
#' shows the system `system` (its row of `attr(x, "systems")`).
#'
#' @param x,object A result of [lrmd()].
#' @param which `"order"`, `"energy"` or `"phase"`.
#' @param snapshot Number of the snapshot for `"phase"` (`NULL`: the final
#'   state).
#' @param bins Bins per axis of the 2D histogram.
#' @param system The system of `"phase"` (a row number of `attr(x,
#'   "systems")`; 1 for a run of one system).
#' @param ... Passed to [graphics::plot()] (`plot()`).
#' @return `plot()`: `x`, invisibly; `autoplot()`: a ggplot.
#' @examples
#' x <- lrmd("hmf", init = hmf_waterbag(2000, 1, 0.69, seed = 1), dt = 0.1,
#'           steps = 400, snapshots = 20, backend = "cpu")
#' plot(x)
#' plot(x, "phase", snapshot = 1)
#' @export
plot.lrmd_run <- function(x, which = c("order", "energy", "phase"), snapshot = NULL,
                          bins = 64, system = 1, ...) {
  call <- sys.call()
  which <- check_choice(which, c("order", "energy", "phase"), "which", call = call)
  bins <- check_whole(bins, "bins", lo = 2, hi = 4096, call = call)
  d <- as.data.frame.lrmd_run(x)
  model <- attr(x, "model")
  rows <- lrmd_system_rows(x)
  # one line per system: y (a column) against time; with several conditions
  # (a sweep) a colour per condition and a legend of the parameters that vary
  cond_of <- lrmd_systems_table(x)$condition %||% rep(1, length(rows))
  conds <- attr(x, "conditions")
  ncond <- if (is.null(conds)) 1 else nrow(conds)
  cond_cols <- if (ncond > 1) grDevices::hcl.colors(ncond, "Dark 3") else "black"
  lines_of <- function(y, col = NULL, ...) {
    for (i in seq_along(rows)) {
      graphics::lines(d$time[rows[[i]]], d[[y]][rows[[i]]], col = col %||% cond_cols[cond_of[i]],
                      ...)
    }
  }
  cond_legend <- function() {
    if (ncond > 1) {
      lab <- vary_labels(conds[setdiff(names(conds), "condition")])$labels
      graphics::legend("topleft", lab, col = cond_cols, lty = 1, bty = "n", cex = 0.8)
    }
  }
  frame <- function(y, ylim = range(d[[y]], finite = TRUE), ...) {
    graphics::plot(range(d$time), ylim, type = "n", xlab = "t", ...)
  }
  if (which == "order") {
    if (model == "gravity2d") {
      frame("virial_ratio", ylab = "virial ratio 2K/W", main = "Virial ratio", ...)
      lines_of("virial_ratio")
      graphics::abline(h = 1, lty = 2, col = "grey40")
      cond_legend()
    } else {
      frame("M", ylim = c(0, 1), ylab = "M", main = "Magnetisation", ...)
      lines_of("M")
      cond_legend()
      if (model == "hmf") {
        e0 <- unique(lrmd_systems_table(x)$e0)
        graphics::abline(h = hmf_caloric(pmax(0, e0[is.finite(e0)]))$M, lty = 2, col = "grey40")
      }
    }
  } else if (which == "energy") {
    op <- graphics::par(mfrow = c(2, 1), mar = c(4, 4, 2, 1))
    on.exit(graphics::par(op))
    frame("kinetic", ylim = range(d$kinetic, d$potential, finite = TRUE),
          ylab = "energy per particle", main = "Kinetic and potential energy", ...)
    lines_of("kinetic", col = "firebrick")
    lines_of("potential", col = "steelblue")
    graphics::legend("right", c("kinetic", "potential"), col = c("firebrick", "steelblue"),
                     lty = 1, bty = "n")
    frame("energy_error", ylab = "(E - E0) / |E0|", main = "Relative energy error")
    lines_of("energy_error")
    cond_legend()
  } else {
    ph <- lrmd_phase(x, snapshot, call, system)
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
                              bins = 64, system = 1, ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.", call = call)
  }
  which <- check_choice(which, c("order", "energy", "phase"), "which", call = call)
  bins <- check_whole(bins, "bins", lo = 2, hi = 4096, call = call)
  d <- as.data.frame.lrmd_run(object)
  model <- attr(object, "model")
  # the system of each record (one line each)
  d$system_ <- rep(seq_along(rows <- lrmd_system_rows(object)), lengths(rows))[
    order(unlist(rows))]
  if (which == "order") {
    y <- if (model == "gravity2d") "virial_ratio" else "M"
    p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$time, y = .data[[y]],
                                         group = .data$system_)) +
      ggplot2::geom_line() + ggplot2::labs(x = "t", y = y)
    if (model == "hmf") {
      e0 <- unique(lrmd_systems_table(object)$e0)
      p <- p + ggplot2::geom_hline(yintercept = hmf_caloric(pmax(0, e0[is.finite(e0)]))$M,
                                   linetype = 2)
    }
    return(p)
  }
  if (which == "energy") {
    long <- data.frame(time = rep(d$time, 2), energy = c(d$kinetic, d$potential),
                       part = rep(c("kinetic", "potential"), each = nrow(d)),
                       system = rep(d$system_, 2))
    return(ggplot2::ggplot(long, ggplot2::aes(x = .data$time, y = .data$energy,
                                              colour = .data$part,
                                              group = interaction(.data$part, .data$system))) +
             ggplot2::geom_line() + ggplot2::labs(x = "t", y = "energy per particle"))
  }
  ph <- lrmd_phase(object, snapshot, call, system)
  ggplot2::ggplot(data.frame(u = ph$u, v = ph$v), ggplot2::aes(x = .data$u, y = .data$v)) +
    ggplot2::geom_bin2d(bins = bins) +
    ggplot2::labs(x = ph$xlab, y = ph$ylab,
                  title = sprintf("Phase space at t = %s", format(ph$time, digits = 4)))
}
