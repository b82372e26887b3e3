# ggplot2's autoplot() of the results whose plot() had no ggplot2
# counterpart (issue 51, item 6): sde_run()'s moments, trajectories and
# histograms, escape_rate_ams() and sde_ams(), reblock(), he4_dmc()'s
# blocks and switching_rate(); plot() of ecdf_band(); summary() of
# sde_run()'s moments.  Registered with ggplot2 when it is loaded
# (`S3method(ggplot2::autoplot, ...)`), as those of the other results.

autoplot_needs_ggplot2 <- function(call) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package (install.packages(\"ggplot2\")).",
             call = call)
  }
}

# The variables of an SDE result that `variable` picks (all by default).
sde_pick_variables <- function(vars, variable, call) {
  if (is.null(variable)) return(vars)
  bad <- setdiff(variable, vars)
  if (!is.character(variable) || length(bad)) {
    sp_abort(sprintf("`variable` names `%s`, which the result does not hold (%s).",
                     format(bad[1] %||% variable[1]), paste0("`", vars, "`", collapse = ", ")),
             call = call)
  }
  variable
}

# The conditions of a result as a factor labelled by the parameters that
# vary between them (R/methods-escape.R's vary_labels()).
sde_condition_factor <- function(x, cond) {
  tab <- attr(x, "conditions")
  ids <- sort(unique(cond))
  labs <- as.character(ids)
  if (length(ids) > 1 && is.data.frame(tab) && "condition" %in% names(tab)) {
    pars <- tab[setdiff(names(tab), "condition")]
    if (ncol(pars)) {
      l <- vary_labels(pars)$labels
      labs <- l[match(ids, tab$condition)]
      labs[is.na(labs) | !nzchar(labs)] <- as.character(ids)[is.na(labs) | !nzchar(labs)]
    }
  }
  factor(cond, levels = ids, labels = make.unique(labs))
}

#' ggplot2 plots of the package's results
#'
#' `autoplot()` methods (registered when ggplot2 is loaded) that build the
#' ggplot counterpart of `plot()` for the results below; each returns a
#' `ggplot` object to print or extend. (The results of [escape_times()],
#' [switching_currents()], [driven_brownian()], [kuramoto()], [he4_vmc()],
#' [xorsat_qg()], [lrmd()] and `sde_run(output = "rdf")` have theirs on
#' their own help pages.)
#'
#' * [sde_run()] `output = "moments"`: the mean of each variable against
#'   time with a band of one standard deviation, one colour per condition,
#'   one panel per variable.
#' * `output = "trajectories"`: the kept paths, one line per replica, one
#'   panel per variable.
#' * `output = "histogram"`: the density at the record times (`times`: up
#'   to 6 by default) as step lines, one panel per variable and condition.
#' * [escape_rate_ams()] and [sde_ams()]: the rate (or `p`, `mfpt`) of each
#'   condition with two standard errors, on a logarithmic axis, against the
#'   parameter that varies (the condition number when none or several do).
#' * [reblock()]: the standard error against the blocking level, with its
#'   own error, the optimal level marked.
#' * [he4_dmc()]: `"trace"` (block means per population) or `"reblock"`.
#' * [switching_rate()]: the escape rate against the bias with its
#'   confidence interval, one colour per condition, logarithmic.
#'
#' @param object The result.
#' @param variable Variables to draw (`NULL`: all).
#' @param times For histograms: record times to draw (`NULL`: up to 6,
#'   spread over the run).
#' @param what For AMS estimates: `"rate"` (default), `"p"` or `"mfpt"`.
#' @param which For DMC blocks: `"trace"` or `"reblock"`.
#' @param observable For DMC blocks: a column of the result (`"energy"`).
#' @param ... Unused.
#' @return A `ggplot` object.
#' @examples
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   r <- reblock(as.numeric(arima.sim(list(ar = 0.8), 4096)))
#'   ggplot2::autoplot(r)
#' }
#' @name autoplot_methods
NULL

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.sde_moments <- function(object, variable = NULL, ...) {
  call <- sys.call()
  autoplot_needs_ggplot2(call)
  d <- sde_plain_df(object)
  d <- d[d$variable %in% sde_pick_variables(unique(d$variable), variable, call), , drop = FALSE]
  d$condition <- sde_condition_factor(object, d$condition)
  d$lo <- d$mean - d$sd
  d$hi <- d$mean + d$sd
  ggplot2::ggplot(d, ggplot2::aes(x = .data$time, y = .data$mean, colour = .data$condition,
                                  fill = .data$condition)) +
    ggplot2::geom_ribbon(ggplot2::aes(ymin = .data$lo, ymax = .data$hi), alpha = 0.2,
                         colour = NA, na.rm = TRUE) +
    ggplot2::geom_line() +
    ggplot2::facet_wrap(~variable, scales = "free_y") +
    ggplot2::labs(x = "time t", y = "mean +- sd", colour = "condition", fill = "condition",
                  title = sprintf("moments, model \"%s\", %s replicas", attr(object, "model"),
                                  fmt_count(attr(object, "replicas") %||% NA)))
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.sde_trajectories <- function(object, variable = NULL, ...) {
  call <- sys.call()
  autoplot_needs_ggplot2(call)
  d <- sde_plain_df(object)
  skip <- c("condition", "replica", "time", attr(object, "swept") %||% character(),
            names(attr(object, "conditions")))
  vars <- sde_pick_variables(setdiff(names(d), skip), variable, call)
  long <- do.call(rbind, lapply(vars, function(v) {
    data.frame(condition = d$condition, replica = d$replica, time = d$time, variable = v,
               value = d[[v]], stringsAsFactors = FALSE)
  }))
  long$path <- factor(paste(long$condition, long$replica))
  long$condition <- sde_condition_factor(object, long$condition)
  ggplot2::ggplot(long, ggplot2::aes(x = .data$time, y = .data$value, group = .data$path,
                                     colour = .data$condition)) +
    ggplot2::geom_line(alpha = 0.7) +
    ggplot2::facet_wrap(~variable, scales = "free_y") +
    ggplot2::labs(x = "time t", y = NULL, colour = "condition",
                  title = sprintf("trajectories, model \"%s\"", attr(object, "model")))
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.sde_histogram <- function(object, variable = NULL, times = NULL, ...) {
  call <- sys.call()
  autoplot_needs_ggplot2(call)
  d <- sde_plain_df(object)
  d <- d[d$variable %in% sde_pick_variables(unique(d$variable), variable, call), , drop = FALSE]
  all_t <- sort(unique(d$time))
  times <- sde_pick_times(all_t, times, call)
  d <- d[d$time %in% times, , drop = FALSE]
  key <- paste(d$condition, d$time, d$variable, sep = "\r")
  d$total <- stats::ave(as.numeric(d$count), key, FUN = sum) # every replica's value
  d <- d[is.finite(d$lo) & is.finite(d$hi), , drop = FALSE] # the bins (not the outliers)
  d$density <- d$count / (d$total * (d$hi - d$lo))
  d$time_f <- factor(format(d$time), levels = unique(format(sort(times))))
  d$condition <- sde_condition_factor(object, d$condition)
  ggplot2::ggplot(d, ggplot2::aes(x = .data$lo, y = .data$density, colour = .data$time_f)) +
    ggplot2::geom_step(direction = "hv") +
    ggplot2::facet_grid(condition ~ variable, scales = "free") +
    ggplot2::labs(x = NULL, y = "density", colour = "time",
                  title = sprintf("histograms, model \"%s\"", attr(object, "model")))
}

# The AMS estimates of a result, with the parameter to plot them against.
ams_plot_data <- function(object, what, call) {
  what <- check_choice(what, c("rate", "p", "mfpt"), "what", call = call)
  d <- as.data.frame(object)
  own <- c("condition", "p", "p_se", "mfpt", "mfpt_se", "rate", "rate_se", "replicas")
  grid <- setdiff(names(d), own)
  varying <- grid[vapply(grid, function(g) length(unique(d[[g]])) > 1, TRUE)]
  xcol <- if (length(varying) == 1 && is.numeric(d[[varying]])) varying else "condition"
  d$x <- if (xcol == "condition") d$condition %||% seq_len(nrow(d)) else d[[xcol]]
  d$y <- d[[what]]
  se <- d[[paste0(what, "_se")]]
  d$lo <- pmax(d$y - 2 * se, d$y / 100)
  d$hi <- d$y + 2 * se
  list(d = d, x = xcol, what = what)
}

autoplot_ams <- function(object, what, title, call) {
  autoplot_needs_ggplot2(call)
  a <- ams_plot_data(object, what, call)
  ylab <- switch(a$what, rate = "escape rate", p = "p (reaching B before A)",
                 mfpt = "mean first-passage time")
  ggplot2::ggplot(a$d, ggplot2::aes(x = .data$x, y = .data$y)) +
    ggplot2::geom_pointrange(ggplot2::aes(ymin = .data$lo, ymax = .data$hi), na.rm = TRUE) +
    ggplot2::scale_y_log10() +
    ggplot2::labs(x = a$x, y = ylab, title = title,
                  caption = "bars: two standard errors (jackknife over the replicas)")
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.escape_rate_ams <- function(object, what = c("rate", "p", "mfpt"), ...) {
  autoplot_ams(object, what, "adaptive multilevel splitting, washboard", sys.call())
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.sde_ams <- function(object, what = c("rate", "p", "mfpt"), ...) {
  autoplot_ams(object, what, sprintf("adaptive multilevel splitting, model \"%s\"",
                                     attr(object, "model_name") %||% "?"), sys.call())
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.sp_reblock <- function(object, ...) {
  autoplot_needs_ggplot2(sys.call())
  r <- as.data.frame(unclass(object))
  ggplot2::ggplot(r, ggplot2::aes(x = .data$level, y = .data$se)) +
    ggplot2::geom_pointrange(ggplot2::aes(ymin = .data$se - .data$se_error,
                                          ymax = .data$se + .data$se_error)) +
    ggplot2::geom_point(data = r[r$optimal, , drop = FALSE], colour = "red", size = 4,
                        shape = 21, stroke = 1.2) +
    ggplot2::labs(x = "blocking level k (blocks of 2^k values)",
                  y = "standard error of the mean",
                  caption = "bars: SE_k +/- its standard error; red: the optimal level")
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.dmc_blocks <- function(object, which = c("trace", "reblock"), observable = "energy",
                                ...) {
  call <- sys.call()
  autoplot_needs_ggplot2(call)
  which <- check_choice(which, c("trace", "reblock"), "which", call = call)
  observable <- check_choice(observable, names(DMC_LABELS), "observable", call = call)
  if (which == "reblock") {
    ok <- vmc_usable_chains(dmc_chains(object, observable))
    if (!length(ok)) {
      sp_abort(sprintf(paste0("the reblocking curve needs a population with at least %d ",
                              "blocks (not all equal) of `%s`."), BLOCKING_MIN_LEN,
                       observable), call = call)
    }
    p <- attr(object, "params")
    return(autoplot.sp_reblock(reblock_table(ok)) +
      ggplot2::labs(x = sprintf("blocking level (blocks of %s generations x 2^level)",
                                fmt_count(p$block_steps)),
                    y = sprintf("standard error of %s", DMC_LABELS[[observable]])))
  }
  d <- as.data.frame.dmc_blocks(object)
  d$value <- d[[observable]]
  d$population <- factor(d$replica)
  d <- d[order(d$replica, d$block), , drop = FALSE]
  ggplot2::ggplot(d, ggplot2::aes(x = .data$block, y = .data$value,
                                  colour = .data$population)) +
    ggplot2::geom_hline(yintercept = mean(d$value), linetype = 2) +
    ggplot2::geom_line() +
    ggplot2::labs(x = "block", y = DMC_LABELS[[observable]], colour = "population",
                  title = "DMC block means")
}

#' @rdname autoplot_methods
#' @exportS3Method ggplot2::autoplot
autoplot.sp_switching_rate <- function(object, ...) {
  autoplot_needs_ggplot2(sys.call())
  y <- as.data.frame(unclass(object))
  y$condition <- factor(y$condition)
  ggplot2::ggplot(y, ggplot2::aes(x = .data$gamma, y = .data$rate, colour = .data$condition)) +
    ggplot2::geom_pointrange(ggplot2::aes(ymin = .data$lower, ymax = .data$upper),
                             size = 0.2, na.rm = TRUE) +
    ggplot2::scale_y_log10() +
    ggplot2::labs(x = "bias gamma = I / Ic", y = "escape rate (per t0 = hbar / E_C)",
                  colour = "condition", title = "Escape rate from switching currents")
}

# ---- plot() of ecdf_band(), summary() of sde_run()'s moments ------------------------

#' @rdname ecdf_band
#' @param main,xlab,ylab Passed to [plot()].
#' @details `plot()` draws the estimated CDF as a right-continuous step
#'   function with its band (`lower`, `upper`) shaded, and returns `x`
#'   invisibly.
#' @export
plot.sp_ecdf_band <- function(x, ..., main = NULL, xlab = "x", ylab = "CDF") {
  d <- as.data.frame(unclass(x))
  if (!nrow(d)) sp_abort("`x` has no values to draw.", call = sys.call())
  main <- main %||% sprintf("%s, %s band at level %s", attr(x, "method"), attr(x, "band"),
                            format(attr(x, "level")))
  # the steps hold from each x to the next; the last to the plot's right edge
  span <- diff(range(d$x))
  right <- max(d$x) + if (span > 0) 0.04 * span else 1
  xs <- c(rep(d$x, each = 2)[-1], right)
  step <- function(v) rep(v, each = 2)
  lo <- ifelse(is.na(d$lower), d$cdf, d$lower)
  hi <- ifelse(is.na(d$upper), d$cdf, d$upper)
  graphics::plot(NA, xlim = range(c(d$x, right)), ylim = c(0, 1), xlab = xlab, ylab = ylab,
                 main = main, ...)
  graphics::polygon(c(xs, rev(xs)), c(step(lo), rev(step(hi))),
                    col = grDevices::adjustcolor("#1b6ca8", 0.25), border = NA)
  graphics::lines(xs, step(d$cdf), col = "#1b6ca8", lwd = 1.5)
  invisible(x)
}

#' @rdname sde_methods
#' @param object A result of [sde_run()] with `output = "moments"`.
#' @details `summary()` of moments: one row per condition and variable, the
#'   moments at the last record time (`t_end`: `replicas`, `mean`, `sd`,
#'   `se`) and the range of the mean over the records (`mean_min`,
#'   `mean_max`), a data frame of class `summary.sde_moments`.
#' @export
summary.sde_moments <- function(object, ...) {
  d <- sde_plain_df(object)
  key <- paste(d$condition, d$variable, sep = "\r")
  groups <- split(seq_len(nrow(d)), factor(key, levels = unique(key)))
  rows <- lapply(groups, function(i) {
    e <- d[i, , drop = FALSE]
    last <- e[which.max(e$time), , drop = FALSE]
    pars <- setdiff(names(e), c("time", "variable", "replicas", "mean", "sd", "se"))
    cbind(last[pars], data.frame(variable = last$variable, t_end = last$time,
                                 replicas = last$replicas, mean = last$mean, sd = last$sd,
                                 se = last$se, mean_min = min(e$mean), mean_max = max(e$mean),
                                 records = nrow(e), stringsAsFactors = FALSE))
  })
  out <- if (length(rows)) do.call(rbind, rows) else
    data.frame(condition = integer(), variable = character(), t_end = numeric(),
               replicas = numeric(), mean = numeric(), sd = numeric(), se = numeric(),
               mean_min = numeric(), mean_max = numeric(), records = integer())
  rownames(out) <- NULL
  attr(out, "model") <- attr(object, "model")
  attr(out, "dt") <- attr(object, "dt")
  attr(out, "method") <- attr(object, "method")
  class(out) <- c("summary.sde_moments", "data.frame")
  out
}

#' @rdname sde_methods
#' @export
print.summary.sde_moments <- function(x, ...) {
  cat(sprintf(paste0("Moments of model \"%s\" (%s, dt = %s): the last record (t_end), ",
                     "and the range of the mean over the records\n"),
              attr(x, "model") %||% "?", attr(x, "method") %||% "?",
              format(attr(x, "dt") %||% NA)))
  print(fmt_whole_cols(as.data.frame(unclass(x))), digits = 4, row.names = FALSE)
  invisible(x)
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.sde_moments <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  grid <- d[sp_grid_columns(d, "variable")]
  out <- data.frame(term = d$variable, estimate = d$mean, std.error = d$se, sd = d$sd,
                    t_end = d$t_end, replicas = d$replicas, stringsAsFactors = FALSE)
  if (isTRUE(conf.int)) {
    out <- cbind(out, tidy_interval(out$estimate, out$std.error, tidy_check_level(conf.level)))
  }
  sp_tibble(if (ncol(grid)) cbind(grid, out) else out)
}
