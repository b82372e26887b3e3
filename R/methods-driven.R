# Methods for the results of driven_brownian() (class "driven_paths": one
# row per condition, the paths in attr(x, "paths")).

DRIVEN_PARAMS <- c("a", "omega", "f", "beta", "theta")

# The parameter columns of a result: DRIVEN_PARAMS, or the names results
# had before the vocabulary of issue 23 (gamma, D0).
driven_params <- function(x) {
  if (all(DRIVEN_PARAMS %in% names(x))) DRIVEN_PARAMS else c("a", "omega", "f", "gamma", "D0")
}

# The swept parameters (more than one value), or "f" when none is.
driven_swept <- function(x) {
  g <- attr(x, "conditions")
  pn <- driven_params(g)
  s <- pn[vapply(pn, function(p) length(unique(g[[p]])) > 1, TRUE)]
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
  y <- driven_df(x)
  y$replicas <- NULL
  y$n <- NULL # results of earlier versions
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
#' histograms and trajectories are recomputed from them. Parts of other
#' simulations (another seed, parameters, periods, steps, transient, method,
#' precision, output, bins, window, `init` or `keep`) are refused with an error of class `statphysgpu_rbind_error` that names the setting that differs, and
#' so are paths present twice.
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
#' run <- function(m, first) {
#'   driven_brownian(m, a = 1, omega = 2, f = c(0.5, 1), beta = 1, theta = 0.1,
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
  out <- driven_df(object)
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
  sp_renamed_df(driven_df(x), "driven_paths")
}

# The table as a plain data frame.
driven_df <- function(x) {
  y <- x
  attributes(y) <- NULL
  as.data.frame(stats::setNames(y, names(x)), stringsAsFactors = FALSE)
}

# The columns `n`, `gamma` and `D0` of earlier versions (now `replicas`,
# `beta`, `theta`): read with a warning.
#' @export
`$.driven_paths` <- function(x, name) {
  name <- sp_old_column(x, name, SP_OLD_COLUMNS$driven_paths, "driven_brownian()")
  NextMethod()
}

#' @export
`[[.driven_paths` <- function(x, i, ..., exact = TRUE) {
  if (missing(...)) i <- sp_old_column(x, i, SP_OLD_COLUMNS$driven_paths, "driven_brownian()")
  NextMethod()
}

#' @rdname summary.driven_paths
#' @export
rbind.driven_paths <- function(..., deparse.level = 1) {
  parts <- rbind_parts(...)
  first <- parts[[1]]
  fields <- c(seed = "seed_hex", method = "method", precision = "precision",
              `the conditions (parameters)` = "conditions", periods = "periods",
              steps_per_period = "steps_per_period", transient = "transient_periods",
              output = "output", bins = "bins", window = "window", init = "init",
              keep = "keep")
  rbind_same(parts, "driven_brownian()", paste0(
    "chunks of one simulation: the same seed, parameters, periods, steps, transient, ",
    "method, precision, output, init and keep (other replicas: `first_replica`)"),
    as.list(fields))
  steps <- vapply(parts, function(p) attr(p, "steps"), 0)
  if (any(steps != steps[1])) {
    rbind_abort(paste0("the chunks ran different numbers of steps (an interrupted chunk?): ",
                       paste(fmt_count(unique(steps)), collapse = ", "),
                       "; rerun it to combine them."))
  }
  paths <- do.call(rbind, lapply(parts, function(p) attr(p, "paths")))
  if (anyDuplicated(paste(paths$condition, fmt_count(paths$replica)))) {
    rbind_abort("the chunks overlap: some replicas appear twice (check `first_replica`).")
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
               bins = attr(first, "bins"), window = attr(first, "window"),
               init = attr(first, "init"), keep = attr(first, "keep"))
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
  st <- lapply(parts, function(p) attr(p, "state")) # the paths' end states, to continue
  if (!any(vapply(st, is.null, TRUE))) {
    st <- do.call(rbind, st)
    st <- st[order(st$condition, st$replica), , drop = FALSE]
    rownames(st) <- NULL
    attr(out, "state") <- st
  }
  for (a in c("seed", "seed_hex", "backend", "devices", "precision")) {
    attr(out, a) <- attr(first, a)
  }
  reps <- unique(paths$replica)
  attr(out, "replicas") <- as.double(length(reps))
  attr(out, "first_replica") <- min(reps)
  attr(out, "seconds") <- rbind_seconds(parts)
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")),
                                         TRUE))
  class(out) <- class(first)
  # a combination of unmodified chunks continues as one run (a chunk
  # modified after its run leaves it unsealed: refused by a continuation)
  sp_reseal(out, parts, DRIVEN_SEALED)
}

#' Plot driven Brownian ensembles
#'
#' `type = "velocity"`: the mean velocity \eqn{\langle v\rangle} against the
#' swept parameter (the first parameter with several values; one line per
#' combination of the others) with error bars of two standard errors over
#' paths. `type = "histogram"`: the coarse-grained density over time of one
#' condition (as `"density"`), the position histogram at the end (one bin per
#' potential period) and the velocity histogram (results of `output =
#' "histogram"`). `type = "density"`: the coarse-grained density over time
#' of one condition, the background of Fig. 2 (left) of the paper, each
#' drive period scaled to its largest bin (the colour key, in the right
#' margin, says so), with the kept trajectories of that condition drawn over
#' it; the vertical range holds every occupied bin of the density window
#' and every trajectory (a trajectory outside the window runs over white).
#' `type = "trajectories"`: the kept trajectories, once per drive period
#' (results with `keep > 0`). Time is in drive periods \eqn{2\pi/\omega} (the
#' axis of the paper's Fig. 2), positions in potential periods. Legends name
#' only the parameters that differ between the conditions shown; those they
#' share are written under the plot (`plot()`) or as the subtitle
#' (`autoplot()`).
#'
#' @param x,object Results of [driven_brownian()].
#' @param type `"velocity"` (default), `"histogram"`, `"trajectories"` or
#'   `"density"`.
#' @param condition The condition (row of the table) whose density over time
#'   `"histogram"` and `"density"` draw.
#' @param ... Passed to [plot()] (base graphics).
#' @return `plot()`: `x`, invisibly; `autoplot()`: a ggplot.
#' @examples
#' x <- driven_brownian(100, a = 4.2, omega = 4.9, f = c(0, 0.3, 0.6, 0.9),
#'                      beta = 0.9, theta = 0.01, periods = 30,
#'                      steps_per_period = 70, keep = 3, output = "histogram",
#'                      seed = 1, backend = "cpu")
#' plot(x)
#' plot(x, type = "histogram")
#' plot(x, type = "density", condition = 2)
#' plot(x, type = "trajectories")
#' @export
plot.driven_paths <- function(x, type = c("velocity", "histogram", "trajectories", "density"),
                              condition = 1, ...) {
  call <- sys.call()
  type <- check_choice(type, DRIVEN_PLOT_TYPES, "type", call = call)
  condition <- check_whole(condition, "condition", lo = 1, hi = nrow(x), call = call)
  pd <- driven_plot_data(x, type, call)
  lab <- driven_labels(x)
  if (type == "velocity") {
    groups <- split(pd, factor(pd$group, levels = unique(pd$group)))
    cols <- driven_colours(length(groups))
    yr <- range(c(pd$lower, pd$upper), finite = TRUE)
    graphics::plot(NA, xlim = range(pd$x), ylim = yr, xlab = pd$xname[1],
                   ylab = "<v>", main = "Mean velocity (bars: 2 standard errors)",
                   sub = attr(pd, "constant"), cex.sub = 0.8, ...)
    for (i in seq_along(groups)) {
      g <- groups[[i]]
      graphics::lines(g$x, g$v, type = "o", pch = 19, cex = 0.6, col = cols[i])
      error_bars(g$x, g$lower, g$upper, col = cols[i])
    }
    if (length(groups) > 1) {
      along <- do.call(rbind, lapply(groups, function(g) {
        if (nrow(g) > 1) as.data.frame(stats::approx(g$x, g$v, n = 200)) else
          data.frame(x = g$x, y = g$v)
      }))
      place_legend(c(pd$x, pd$x, along$x), c(pd$lower, pd$upper, along$y),
                   legend = names(groups), col = cols, lwd = 1, pch = 19,
                   bty = "o", box.col = NA, bg = grDevices::adjustcolor("white", 0.8),
                   cex = 0.8)
    }
  } else if (type == "histogram") {
    old <- graphics::par(mfrow = c(1, 3))
    on.exit(graphics::par(old))
    driven_density_panel(x, condition, main = "Density over time")
    h <- attr(x, "histogram")
    cols <- driven_colours(nrow(x))
    pos <- h$position
    graphics::plot(NA, xlim = range(c(pos$x_lo, pos$x_hi)), ylim = c(0, max(pos$density)),
                   xlab = "x (potential periods)", ylab = "P(x), one bin per period",
                   main = "Position at the end", sub = lab$constant, cex.sub = 0.8, ...)
    for (c in unique(pos$condition)) {
      q <- pos[pos$condition == c, ]
      graphics::lines(c(q$x_lo, q$x_hi[nrow(q)]), c(q$density, q$density[nrow(q)]),
                      type = "s", col = cols[c])
    }
    if (nrow(x) > 1) {
      place_legend(pos$x_lo, pos$density, legend = lab$labels,
                   col = cols, lwd = 1, bty = "n", cex = 0.7)
    }
    vel <- h$velocity
    graphics::plot(NA, xlim = range(c(vel$v_lo, vel$v_hi)), ylim = c(0, max(vel$density)),
                   xlab = "v", ylab = "density", main = "Velocity at the end", ...)
    for (c in unique(vel$condition)) {
      q <- vel[vel$condition == c, ]
      graphics::lines(c(q$v_lo, q$v_hi[nrow(q)]), c(q$density, q$density[nrow(q)]),
                      type = "s", col = cols[c])
    }
  } else if (type == "density") {
    driven_density_panel(x, condition, ...)
  } else {
    ids <- unique(pd$id)
    multi <- nrow(x) > 1
    cols <- if (multi) driven_colours(nrow(x)) else driven_colours(length(ids))
    graphics::plot(NA, xlim = range(pd$period), ylim = range(pd$x),
                   xlab = DRIVEN_TIME_LABEL, ylab = "x (potential periods)",
                   main = "Trajectories, once per drive period", sub = lab$constant,
                   cex.sub = 0.8, ...)
    for (i in seq_along(ids)) {
      q <- pd[pd$id == ids[i], ]
      graphics::lines(q$period, q$x, col = if (multi) cols[q$condition[1]] else cols[i])
    }
    if (multi) {
      place_legend(pd$period, pd$x, legend = lab$labels, col = cols,
                   lwd = 1, bty = "o", box.col = NA,
                   bg = grDevices::adjustcolor("white", 0.8), cex = 0.8)
    }
  }
  invisible(x)
}

DRIVEN_PLOT_TYPES <- c("velocity", "histogram", "trajectories", "density")
DRIVEN_TIME_LABEL <- "t (drive periods 2 pi / omega)"
DRIVEN_DENSITY_KEY <- "density / largest bin of the period"

# Vertical error bars with caps, leaving out those too short to draw (which
# arrows() would warn about).
error_bars <- function(x, lower, upper, ...) {
  len <- abs(graphics::grconvertY(upper, "user", "inches") -
               graphics::grconvertY(lower, "user", "inches"))
  ok <- is.finite(len) & len > 0.005
  if (any(ok)) {
    graphics::arrows(x[ok], lower[ok], x[ok], upper[ok], angle = 90, code = 3,
                     length = 0.02, ...)
  }
  invisible(NULL)
}

driven_colours <- function(n) {
  if (n == 1) "#1b6ca8" else grDevices::hcl.colors(n, "Dark 3")
}

# Legend labels of the conditions: the parameters that vary between them
# (see vary_labels()).
driven_labels <- function(x) {
  vary_labels(driven_df(x)[driven_params(x)])
}

# The density over time of one condition as a matrix (periods x bins), each
# period scaled to its largest bin, with the kept trajectories of that
# condition and the vertical range that holds both.
driven_density_data <- function(x, condition, call) {
  h <- attr(x, "histogram")
  if (is.null(h$density)) {
    sp_abort("no density over time in this result: run driven_brownian() with output = \"histogram\".",
             call = call)
  }
  d <- h$density[h$density$condition == condition, , drop = FALSE]
  ps <- sort(unique(d$period))
  xs <- sort(unique(d$x_lo))
  z <- t(matrix(d$count, nrow = length(xs)))
  z <- z / pmax(1, apply(z, 1, max))
  tr <- attr(x, "trajectories")
  if (!is.null(tr)) tr <- tr[tr$condition == condition, , drop = FALSE]
  occupied <- xs[colSums(z) > 0]
  if (!length(occupied)) occupied <- xs
  yr <- range(c(occupied, max(occupied) + 1, tr$x))
  list(period = ps, x = xs + 0.5, z = z, trajectories = tr,
       ylim = yr + c(-1, 1) * 0.03 * diff(yr))
}

# The density panel: image, trajectories, and the colour key in the right
# margin (widened for it while the panel is drawn).
driven_density_panel <- function(x, condition, main = "Density over time, kept trajectories",
                                 ...) {
  dd <- driven_density_data(x, condition, sys.call(-1))
  mar <- graphics::par("mar")
  op <- graphics::par(mar = c(mar[1:3], max(mar[4], 5.5)))
  on.exit(graphics::par(op))
  pal <- grDevices::hcl.colors(64, "YlOrRd", rev = TRUE)
  lab <- driven_labels(x)
  graphics::image(dd$period, dd$x, dd$z, col = pal, zlim = c(0, 1), ylim = dd$ylim,
                  xlab = DRIVEN_TIME_LABEL, ylab = "x (potential periods)", main = main,
                  sub = condition_label(driven_df(x)[condition, , drop = FALSE],
                                        driven_params(x)), cex.sub = 0.8, ...)
  tr <- dd$trajectories
  for (r in unique(tr$replica)) {
    q <- tr[tr$replica == r, , drop = FALSE]
    graphics::lines(q$period, q$x, col = "grey15", lwd = 0.8)
  }
  graphics::box()
  # the key: a bar just right of the plot, its scale and title in the margin
  usr <- graphics::par("usr")
  dx <- diff(usr[1:2])
  x0 <- usr[2] + 0.03 * dx
  x1 <- usr[2] + 0.07 * dx
  yb <- seq(usr[3], usr[4], length.out = length(pal) + 1)
  graphics::rect(x0, yb[-length(yb)], x1, yb[-1], col = pal, border = NA, xpd = NA)
  graphics::rect(x0, usr[3], x1, usr[4], border = "grey30", xpd = NA)
  ticks <- c(0, 0.5, 1)
  graphics::text(x1, usr[3] + ticks * diff(usr[3:4]), format(ticks), pos = 4, cex = 0.75,
                 xpd = NA)
  graphics::mtext(DRIVEN_DENSITY_KEY, side = 4, line = 3.8, cex = 0.7)
  invisible(NULL)
}

#' @rdname plot.driven_paths
#' @exportS3Method ggplot2::autoplot
autoplot.driven_paths <- function(object,
                                  type = c("velocity", "histogram", "trajectories", "density"),
                                  condition = 1, ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  type <- check_choice(type, DRIVEN_PLOT_TYPES, "type", call = call)
  condition <- check_whole(condition, "condition", lo = 1, hi = nrow(object), call = call)
  pd <- driven_plot_data(object, type, call)
  lab <- driven_labels(object)
  const <- if (nzchar(lab$constant)) lab$constant
  one <- nrow(object) == 1
  if (type == "velocity") {
    g <- ggplot2::ggplot(pd, ggplot2::aes(x = .data$x, y = .data$v, colour = .data$group)) +
      ggplot2::geom_line() + ggplot2::geom_point() +
      ggplot2::geom_errorbar(ggplot2::aes(ymin = .data$lower, ymax = .data$upper),
                             width = 0) +
      ggplot2::labs(x = pd$xname[1], y = "<v>", colour = NULL,
                    title = "Mean velocity (bars: 2 standard errors)",
                    subtitle = if (nzchar(attr(pd, "constant"))) attr(pd, "constant"))
    if (length(unique(pd$group)) == 1) g <- g + ggplot2::guides(colour = "none")
    return(g)
  }
  if (type == "histogram") {
    h <- attr(object, "histogram")
    cl <- function(c) factor(lab$labels[c], levels = unique(lab$labels))
    d <- rbind(data.frame(panel = "position (one bin per potential period)",
                          condition = cl(h$position$condition),
                          lo = h$position$x_lo, density = h$position$density),
               data.frame(panel = "velocity", condition = cl(h$velocity$condition),
                          lo = h$velocity$v_lo, density = h$velocity$density))
    g <- ggplot2::ggplot(d, ggplot2::aes(x = .data$lo, y = .data$density,
                                         colour = .data$condition)) +
      ggplot2::geom_step() +
      ggplot2::facet_wrap(~panel, scales = "free") +
      ggplot2::labs(x = NULL, y = "density", colour = NULL, subtitle = const)
    if (one) g <- g + ggplot2::guides(colour = "none")
    return(g)
  }
  if (type == "density") {
    dd <- driven_density_data(object, condition, call)
    img <- data.frame(period = rep(dd$period, times = length(dd$x)),
                      x = rep(dd$x, each = length(dd$period)), density = as.vector(dd$z))
    g <- ggplot2::ggplot(img, ggplot2::aes(x = .data$period, y = .data$x)) +
      ggplot2::geom_raster(ggplot2::aes(fill = .data$density)) +
      ggplot2::scale_fill_gradientn(colours = grDevices::hcl.colors(64, "YlOrRd", rev = TRUE),
                                    limits = c(0, 1), name = "density /\nlargest bin\nof the period") +
      ggplot2::coord_cartesian(ylim = dd$ylim, expand = FALSE) +
      ggplot2::labs(x = DRIVEN_TIME_LABEL, y = "x (potential periods)",
                    title = "Density over time, kept trajectories",
                    subtitle = condition_label(driven_df(object)[condition, , drop = FALSE],
                                               driven_params(object)))
    tr <- dd$trajectories
    if (!is.null(tr) && nrow(tr)) {
      g <- g + ggplot2::geom_path(data = tr, ggplot2::aes(x = .data$period, y = .data$x,
                                                          group = .data$replica),
                                  colour = "grey15")
    }
    return(g)
  }
  pd$label <- factor(lab$labels[pd$condition], levels = unique(lab$labels))
  g <- ggplot2::ggplot(pd, ggplot2::aes(x = .data$period, y = .data$x, group = .data$id,
                                        colour = .data$label)) +
    ggplot2::geom_line() +
    ggplot2::labs(x = DRIVEN_TIME_LABEL, y = "x (potential periods)", colour = NULL,
                  title = "Trajectories, once per drive period", subtitle = const)
  if (one) g <- g + ggplot2::guides(colour = "none")
  g
}

driven_plot_data <- function(x, type, call) {
  if (type == "velocity") {
    s <- driven_swept(x)[1]
    others <- setdiff(driven_params(x), s)
    y <- driven_df(x)
    lab <- vary_labels(y[others])
    d <- data.frame(x = y[[s]], v = y$v_mean, lower = y$v_mean - 2 * y$v_se,
                    upper = y$v_mean + 2 * y$v_se, group = lab$labels, xname = s)
    d <- d[order(match(d$group, unique(d$group)), d$x), , drop = FALSE]
    attr(d, "constant") <- lab$constant
    return(d)
  }
  if (type %in% c("histogram", "density")) {
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
