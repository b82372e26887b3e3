# Methods for the results of driven_brownian() (class "driven_paths": one
# row per condition, the paths in attr(x, "paths")).

DRIVEN_PARAMS <- c("a", "omega", "f", "gamma", "D0")

# The swept parameters (more than one value), or "f" when none is.
driven_swept <- function(x) {
  g <- attr(x, "conditions")
  s <- DRIVEN_PARAMS[vapply(DRIVEN_PARAMS, function(p) length(unique(g[[p]])) > 1, TRUE)]
  if (length(s)) s else "f"
}

#' @export
print.driven_paths <- function(x, digits = 4, ...) {
  p <- attr(x, "paths")
  cli::cat_line(sprintf(paste0(
    "<driven_paths> %s paths, %d condition%s, %s periods (%s transient), %s steps a ",
    "period, %s, %s precision, %s%s"), fmt_count(nrow(p)), nrow(x),
    if (nrow(x) == 1) "" else "s", fmt_count(attr(x, "periods")),
    fmt_count(attr(x, "transient_periods")), fmt_count(attr(x, "steps_per_period")),
    attr(x, "method"), attr(x, "precision"), attr(x, "devices"),
    if (isTRUE(attr(x, "interrupted"))) ", INTERRUPTED" else ""))
  y <- as.data.frame(x)
  y$n <- NULL
  print(y, digits = digits, row.names = FALSE)
  invisible(x)
}

#' Summarise, convert and combine driven Brownian ensembles
#'
#' `summary()` and `as.data.frame()` give the table of [driven_brownian()]:
#' one row per condition with the mean velocity `v_mean` and its standard
#' error over paths, the effective diffusion coefficient `D_eff` and
#' \eqn{\langle v^2\rangle} (`v2_mean`), each with its standard error. With
#' `paths = TRUE`, `as.data.frame()` returns the per-path values instead.
#' `rbind()` combines chunks of one simulation (the same seed, parameters,
#' method and precision, different `first_replica`) into the result of one
#' call: the paths are ordered by condition and replica and the table,
#' histograms and trajectories are recomputed from them.
#'
#' @param object,x Results of [driven_brownian()].
#' @param paths `as.data.frame()`: the per-path values rather than the
#'   per-condition table.
#' @param row.names,optional Unused.
#' @param ... `rbind()`: results of [driven_brownian()]; otherwise unused.
#' @param deparse.level Unused.
#' @return `summary()`: a data frame of class `summary.driven_paths`;
#'   `as.data.frame()`: a data frame; `rbind()`: one `driven_paths` object.
#' @examples
#' run <- function(n, first) {
#'   driven_brownian(n, a = 1, omega = 2, f = c(0.5, 1), gamma = 1, D0 = 0.1,
#'                   periods = 20, steps_per_period = 40, seed = 3,
#'                   first_replica = first, backend = "cpu")
#' }
#' whole <- run(60, 1)
#' parts <- rbind(run(20, 1), run(40, 21))
#' identical(as.data.frame(parts), as.data.frame(whole))
#' summary(whole)
#' head(as.data.frame(whole, paths = TRUE))
#' @export
summary.driven_paths <- function(object, ...) {
  out <- as.data.frame(object)
  attr(out, "t_obs") <- object$t_obs
  class(out) <- c("summary.driven_paths", "data.frame")
  out
}

#' @export
print.summary.driven_paths <- function(x, digits = 4, ...) {
  cat("Driven Brownian ensembles by condition: <v> (time average after the transient,",
      "\nthen over paths), D_eff = var(x(t_end) - x(t_tr)) / (2 t_obs), <v^2>; se: standard",
      "\nerrors over paths\n")
  print(as.data.frame(unclass(x)), digits = digits, row.names = FALSE)
  invisible(x)
}

#' @rdname summary.driven_paths
#' @export
as.data.frame.driven_paths <- function(x, row.names = NULL, optional = FALSE, ...,
                                       paths = FALSE) {
  if (isTRUE(paths)) return(attr(x, "paths"))
  y <- x
  attributes(y) <- NULL
  y <- as.data.frame(stats::setNames(y, names(x)), stringsAsFactors = FALSE)
  y
}

#' @rdname summary.driven_paths
#' @export
rbind.driven_paths <- function(..., deparse.level = 1) {
  parts <- list(...)
  parts <- parts[!vapply(parts, is.null, TRUE)]
  first <- parts[[1]]
  fields <- c("seed_hex", "method", "precision", "conditions", "periods",
              "steps_per_period", "transient_periods", "output", "bins", "window")
  same <- function(a) inherits(a, "driven_paths") &&
    all(vapply(fields, function(f) identical(attr(a, f), attr(first, f)), TRUE))
  if (!all(vapply(parts, same, TRUE))) {
    sp_abort(paste0("rbind() of driven_brownian() results needs chunks of one simulation: ",
                    "the same seed, parameters, periods, steps, transient, method, ",
                    "precision and output."))
  }
  steps <- vapply(parts, function(p) attr(p, "steps"), 0)
  if (any(steps != steps[1])) {
    sp_abort(paste0("the chunks ran different numbers of steps (an interrupted chunk?): ",
                    paste(unique(steps), collapse = ", "), "; rerun it to combine them."))
  }
  paths <- do.call(rbind, lapply(parts, function(p) attr(p, "paths")))
  if (anyDuplicated(paste(paths$condition, paths$replica))) {
    sp_abort("the chunks overlap: some replicas appear twice (check `first_replica`).")
  }
  paths <- paths[order(paths$condition, paths$replica), , drop = FALSE]
  rownames(paths) <- NULL
  traj <- do.call(rbind, lapply(parts, function(p) attr(p, "trajectories")))
  if (!is.null(traj)) {
    traj <- traj[order(traj$condition, traj$replica, traj$period), , drop = FALSE]
    rownames(traj) <- NULL
  }
  meta <- list(conditions = attr(first, "conditions"), dt = attr(first, "dt"),
               periods = attr(first, "periods"),
               steps_per_period = attr(first, "steps_per_period"),
               transient_periods = attr(first, "transient_periods"), steps = steps[1],
               method = attr(first, "method"), output = attr(first, "output"),
               bins = attr(first, "bins"), window = attr(first, "window"))
  # the density's counts add (every chunk has the same window)
  density <- NULL
  h <- attr(first, "histogram")
  if (!is.null(h$density)) {
    density <- list(density = h$density, outside = h$outside)
    for (p in parts[-1]) {
      hp <- attr(p, "histogram")
      density$density$count <- density$density$count + hp$density$count
      density$outside$below <- density$outside$below + hp$outside$below
      density$outside$above <- density$outside$above + hp$outside$above
    }
  }
  out <- driven_assemble(paths, traj, meta, density)
  for (a in c("seed", "seed_hex", "backend", "devices", "precision")) {
    attr(out, a) <- attr(first, a)
  }
  attr(out, "seconds") <- sum(vapply(parts, function(p) attr(p, "seconds") %||% 0, 0))
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")),
                                         TRUE))
  class(out) <- class(first)
  out
}

#' Plot driven Brownian ensembles
#'
#' `type = "velocity"`: the mean velocity \eqn{\langle v\rangle} against the
#' swept parameter (the first parameter with several values; one line per
#' combination of the others) with error bars of two standard errors.
#' `type = "histogram"`: the coarse-grained density over time of the first
#' condition (the background of Fig. 2 of the paper), the position histogram
#' at the end (one bin per potential period) and the velocity histogram
#' (results of `output = "histogram"`). `type = "trajectories"`: the kept trajectories,
#' once per drive period (results with `keep > 0`).
#'
#' @param x,object Results of [driven_brownian()].
#' @param type `"velocity"` (default), `"histogram"` or `"trajectories"`.
#' @param ... Passed to [plot()] (base graphics).
#' @return `plot()`: `x`, invisibly; `autoplot()`: a ggplot.
#' @examples
#' x <- driven_brownian(100, a = 4.2, omega = 4.9, f = c(0, 0.3, 0.6, 0.9),
#'                      gamma = 0.9, D0 = 0.01, periods = 30,
#'                      steps_per_period = 50, keep = 3, output = "histogram",
#'                      seed = 1, backend = "cpu")
#' plot(x)
#' plot(x, type = "histogram")
#' plot(x, type = "trajectories")
#' @export
plot.driven_paths <- function(x, type = c("velocity", "histogram", "trajectories"), ...) {
  call <- sys.call()
  type <- check_choice(type, c("velocity", "histogram", "trajectories"), "type", call = call)
  pd <- driven_plot_data(x, type, call)
  if (type == "velocity") {
    groups <- split(pd, pd$group)
    cols <- grDevices::hcl.colors(max(length(groups), 2), "Dark 3")
    yr <- range(c(pd$lower, pd$upper), finite = TRUE)
    graphics::plot(NA, xlim = range(pd$x), ylim = yr, xlab = pd$xname[1],
                   ylab = "<v>", main = "Mean velocity (2 se bars)", ...)
    for (i in seq_along(groups)) {
      g <- groups[[i]]
      graphics::lines(g$x, g$v, type = "o", pch = 19, col = cols[i])
      graphics::segments(g$x, g$lower, g$x, g$upper, col = cols[i])
    }
    if (length(groups) > 1) {
      graphics::legend("topleft", legend = names(groups), col = cols[seq_along(groups)],
                       lwd = 1, bty = "n", cex = 0.8)
    }
  } else if (type == "histogram") {
    old <- graphics::par(mfrow = c(1, 3))
    on.exit(graphics::par(old))
    h <- attr(x, "histogram")
    # the density over time of the first condition (Fig. 2, left)
    d1 <- h$density[h$density$condition == 1, ]
    ts <- sort(unique(d1$t))
    xs <- sort(unique(d1$x_lo))
    z <- t(matrix(d1$count, nrow = length(xs)))
    # each period scaled to its largest bin, so that the spreading cloud shows
    graphics::image(ts, xs + 0.5, z / pmax(1, apply(z, 1, max)),
                    col = grDevices::hcl.colors(64, "YlOrRd", rev = TRUE),
                    xlab = "t", ylab = "x (periods)", main = "Density over time (condition 1)")
    cols <- grDevices::hcl.colors(max(nrow(x), 2), "Dark 3")
    pos <- h$position
    graphics::plot(NA, xlim = range(c(pos$x_lo, pos$x_hi)), ylim = c(0, max(pos$density)),
                   xlab = "x (periods)", ylab = "P(x), one bin per period",
                   main = "Position at the end", ...)
    for (c in unique(pos$condition)) {
      q <- pos[pos$condition == c, ]
      graphics::lines(c(q$x_lo, q$x_hi[nrow(q)]), c(q$density, q$density[nrow(q)]),
                      type = "s", col = cols[c])
    }
    vel <- h$velocity
    graphics::plot(NA, xlim = range(c(vel$v_lo, vel$v_hi)), ylim = c(0, max(vel$density)),
                   xlab = "v", ylab = "density", main = "Velocity at the end", ...)
    for (c in unique(vel$condition)) {
      q <- vel[vel$condition == c, ]
      graphics::lines(c(q$v_lo, q$v_hi[nrow(q)]), c(q$density, q$density[nrow(q)]),
                      type = "s", col = cols[c])
    }
  } else {
    ids <- unique(pd$id)
    cols <- grDevices::hcl.colors(max(length(ids), 2), "Dark 3")
    graphics::plot(NA, xlim = range(pd$t), ylim = range(pd$x), xlab = "t",
                   ylab = "x", main = "Trajectories, once per drive period", ...)
    for (i in seq_along(ids)) {
      q <- pd[pd$id == ids[i], ]
      graphics::lines(q$t, q$x, col = cols[i])
    }
  }
  invisible(x)
}

#' @rdname plot.driven_paths
#' @exportS3Method ggplot2::autoplot
autoplot.driven_paths <- function(object, type = c("velocity", "histogram", "trajectories"),
                                  ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  type <- check_choice(type, c("velocity", "histogram", "trajectories"), "type", call = call)
  pd <- driven_plot_data(object, type, call)
  if (type == "velocity") {
    ggplot2::ggplot(pd, ggplot2::aes(x = .data$x, y = .data$v, colour = .data$group)) +
      ggplot2::geom_line() + ggplot2::geom_point() +
      ggplot2::geom_errorbar(ggplot2::aes(ymin = .data$lower, ymax = .data$upper),
                             width = 0) +
      ggplot2::labs(x = pd$xname[1], y = "<v>", colour = NULL)
  } else if (type == "histogram") {
    h <- attr(object, "histogram")
    d <- rbind(data.frame(panel = "position (one bin per period)",
                          condition = factor(h$position$condition),
                          lo = h$position$x_lo, density = h$position$density),
               data.frame(panel = "velocity", condition = factor(h$velocity$condition),
                          lo = h$velocity$v_lo, density = h$velocity$density))
    ggplot2::ggplot(d, ggplot2::aes(x = .data$lo, y = .data$density,
                                    colour = .data$condition)) +
      ggplot2::geom_step() +
      ggplot2::facet_wrap(~panel, scales = "free") +
      ggplot2::labs(x = NULL, y = "density")
  } else {
    ggplot2::ggplot(pd, ggplot2::aes(x = .data$t, y = .data$x, group = .data$id,
                                     colour = factor(.data$condition))) +
      ggplot2::geom_line() + ggplot2::labs(colour = "condition")
  }
}

driven_plot_data <- function(x, type, call) {
  if (type == "velocity") {
    s <- driven_swept(x)[1]
    others <- setdiff(DRIVEN_PARAMS, s)
    y <- as.data.frame(x)
    group <- do.call(paste, c(lapply(others, function(o) paste(o, "=", format(y[[o]],
                                                                             digits = 3))),
                              sep = ", "))
    d <- data.frame(x = y[[s]], v = y$v_mean, lower = y$v_mean - 2 * y$v_se,
                    upper = y$v_mean + 2 * y$v_se, group = group, xname = s)
    return(d[order(d$group, d$x), , drop = FALSE])
  }
  if (type == "histogram") {
    if (is.null(attr(x, "histogram"))) {
      sp_abort("no histograms in this result: run driven_brownian() with output = \"histogram\".",
               call = call)
    }
    return(NULL)
  }
  tr <- attr(x, "trajectories")
  if (is.null(tr) || !nrow(tr)) {
    sp_abort("no trajectories in this result: run driven_brownian() with keep > 0.",
             call = call)
  }
  tr$id <- paste(tr$condition, tr$replica)
  tr
}
