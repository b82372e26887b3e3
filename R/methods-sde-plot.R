# plot() of sde_run()'s histograms (the other plot methods of the SDE
# results are in R/methods-sde.R).

#' @rdname sde_methods
#' @param condition For histograms: the conditions to draw (default: all),
#'   one row of panels each.
#' @param times For histograms: the record times to draw, one step line
#'   each (default: up to 6, spread over the run, the first and the last
#'   among them).
#' @details `plot()` of a histogram draws one panel per variable (and per
#'   condition), the density of each record time as a step line over the
#'   bins (count over replicas times the bin's width), coloured from the
#'   first time to the last; counts below the first or above the last break
#'   are not drawn, and their share is written under the panel.
#' @export
plot.sde_histogram <- function(x, variable = NULL, condition = NULL, times = NULL, ...) {
  call <- sys.call()
  d <- sde_plain_df(x)
  vars <- unique(d$variable)
  if (!is.null(variable)) {
    bad <- setdiff(variable, vars)
    if (length(bad)) {
      sp_abort(sprintf("`variable` names `%s`, which the result does not hold (%s).", bad[1],
                       paste0("`", vars, "`", collapse = ", ")), call = call)
    }
    vars <- variable
  }
  conds <- sort(unique(d$condition))
  if (!is.null(condition)) {
    bad <- setdiff(condition, conds)
    if (length(bad)) {
      sp_abort(sprintf("`condition` %s is not in the result (conditions %s).",
                       format(bad[1]), paste(conds, collapse = ", ")), call = call)
    }
    conds <- condition
  }
  all_t <- sort(unique(d$time))
  times <- sde_pick_times(all_t, times, call)
  cols <- if (length(times) > 1) grDevices::hcl.colors(length(times), "viridis", rev = TRUE)
          else "#1b6ca8"
  labs <- NULL
  conds_tab <- attr(x, "conditions")
  if (length(conds) > 1 && !is.null(conds_tab)) {
    labs <- vary_labels(conds_tab[setdiff(names(conds_tab), "condition")])$labels
  }
  op <- graphics::par(mfrow = c(length(conds), length(vars)))
  on.exit(graphics::par(op))
  for (ci in conds) for (v in vars) {
    e <- d[d$condition == ci & d$variable == v, , drop = FALSE]
    inner <- is.finite(e$lo) & is.finite(e$hi)
    br <- sort(unique(c(e$lo[inner], e$hi[inner])))
    dens <- lapply(times, function(t) {
      s <- e[abs(e$time - t) <= 1e-9 * max(1, abs(t)), , drop = FALSE]
      n <- sum(s$count)
      s <- s[is.finite(s$lo) & is.finite(s$hi), , drop = FALSE]
      s <- s[order(s$lo), , drop = FALSE]
      list(lo = s$lo, hi = s$hi, y = if (n > 0) s$count / (n * (s$hi - s$lo)) else s$count * 0,
           out = if (n > 0) 1 - sum(s$count) / n else 0)
    })
    top <- max(c(0, unlist(lapply(dens, `[[`, "y"))), na.rm = TRUE)
    main <- if (length(conds) > 1) {
      sprintf("%s, %s", v, if (!is.null(labs)) labs[ci] else sprintf("condition %s", ci))
    } else v
    out <- max(vapply(dens, `[[`, 0, "out"))
    graphics::plot(NA, xlim = range(br), ylim = c(0, if (top > 0) top * 1.05 else 1),
                   xlab = v, ylab = "density", main = main,
                   sub = if (out > 0) sprintf("outside the breaks: up to %.3g%% of the replicas",
                                              100 * out),
                   cex.sub = 0.8, ...)
    for (i in seq_along(times)) {
      g <- dens[[i]]
      if (!length(g$lo)) next
      graphics::lines(c(g$lo, g$hi[length(g$hi)]), c(g$y, g$y[length(g$y)]), type = "s",
                      col = cols[i], lwd = 1.5)
    }
    graphics::legend("topright", legend = sprintf("t = %s", format(times, digits = 4)),
                     col = cols, lwd = 1.5, bty = "n", cex = 0.8)
  }
  invisible(x)
}

# The record times to draw: `times` (each matched to a record time within
# 1e-9 relative, else an error listing them), or up to six spread over the
# records.
sde_pick_times <- function(all_t, times, call) {
  if (is.null(times)) {
    return(if (length(all_t) <= 6) all_t
           else all_t[unique(round(seq(1, length(all_t), length.out = 6)))])
  }
  hit <- vapply(times, function(t) any(abs(all_t - t) <= 1e-9 * max(1, abs(t))), TRUE)
  if (!is.numeric(times) || !all(hit)) {
    sp_abort(sprintf("`times` must be record times of the result (%s%s).",
                     paste(format(utils::head(all_t, 6)), collapse = ", "),
                     if (length(all_t) > 6) ", ..." else ""), call = call)
  }
  all_t[vapply(times, function(t) which.min(abs(all_t - t)), 1L)]
}
