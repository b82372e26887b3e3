# Methods for the results of escape_times() and switching_currents()
# (class "sp_paths": one row per path, columns value and escaped).

path_type <- function(x) {
  if (inherits(x, "switching_currents")) "switching_currents"
  else if (inherits(x, "sde_passage")) "passage"
  else "escape_times"
}

# The axis of the values, with their normalised unit (jj_units(): bias
# gamma = I_b / I_c, time unit t0 = hbar / E_C); a user model's passage
# times are in the model's own time unit.
value_label <- function(x) {
  switch(path_type(x),
         switching_currents = "bias at switching, gamma = I / Ic",
         passage = sprintf("passage time t (the time unit of model \"%s\")",
                           attr(x, "model") %||% "?"),
         "escape time t (units of t0 = hbar / E_C)")
}

# What the values are, for titles: "Escape times", "Switching currents",
# "Passage times".
paths_what <- function(type) {
  switch(type, switching_currents = "Switching currents", passage = "Passage times",
         "Escape times")
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

condition_label <- function(row, cols, digits = 4) {
  paste(sprintf("%s = %s", cols,
                vapply(cols, function(p) format(row[[p]], digits = digits), "")),
        collapse = ", ")
}

# Legend labels of groups: `params` holds a group's parameters in each row
# (rows may repeat); a label names only the parameters that vary across the
# rows, with enough digits to tell the groups apart, and the parameters
# that do not vary are given once, in `constant` (for a subtitle).  Returns
# list(labels (one per row, "" when nothing varies), varying (names),
# constant (one string, "" when every parameter varies)).
vary_labels <- function(params) {
  params <- as.data.frame(params, stringsAsFactors = FALSE)
  cols <- names(params)
  n <- nrow(params)
  varies <- vapply(cols, function(p) length(unique(params[[p]])) > 1, TRUE)
  vary <- cols[varies]
  labels <- rep("", n)
  if (length(vary)) {
    groups <- nrow(unique(params[vary]))
    for (digits in c(4, 6, 8, 15)) {
      labels <- vapply(seq_len(n), function(i)
        condition_label(params[i, , drop = FALSE], vary, digits), "")
      if (length(unique(labels)) == groups) break
    }
  }
  const <- cols[!varies]
  list(labels = labels, varying = vary,
       constant = if (length(const) && n) condition_label(params[1, , drop = FALSE], const)
                  else "")
}

# The corner of the current plot where a legend (the arguments of legend(),
# `...`, without its position) covers the fewest of the points (x, y), so
# that it hides as little data as it can (ties: top left, top right, bottom
# left, bottom right).
legend_corner <- function(x, y, ...) {
  usr <- graphics::par("usr")
  if (graphics::par("xlog")) x <- suppressWarnings(log10(x))
  if (graphics::par("ylog")) y <- suppressWarnings(log10(y))
  ok <- is.finite(x) & is.finite(y)
  x <- x[ok]
  y <- y[ok]
  corners <- c("topleft", "topright", "bottomleft", "bottomright")
  covered <- vapply(corners, function(pos) {
    r <- graphics::legend(pos, ..., plot = FALSE)$rect
    sum(x >= r$left & x <= r$left + r$w & y <= r$top & y >= r$top - r$h)
  }, 0)
  corners[which.min(covered)]
}

# legend() in the corner that legend_corner() picks for the points (x, y).
place_legend <- function(x, y, ...) {
  graphics::legend(legend_corner(x, y, ...), ...)
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
#' @return A data frame of class `summary.sp_paths`, one row per condition:
#'   the condition's parameters, `replicas` (the paths), `censored`,
#'   `unfinished`, the censoring-aware `mean` with `se` and its interval,
#'   the quartiles and the tail rate with its interval. (`s$n`, the name of
#'   `replicas` in earlier versions, still gives it, with a warning of class
#'   `statphysgpu_deprecated`; the old name goes in the next release.)
#' @examples
#' x <- escape_times(300, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   dt = 0.02, t_max = 300, seed = 2, backend = "cpu")
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
                  error = function(err) list(estimate = NA_real_, se = NA_real_,
                                             lower = NA_real_, upper = NA_real_))
    tr <- tryCatch(exp_tail_rate(v, e, level = level),
                   error = function(err) list(rate = NA_real_, lower = NA_real_,
                                              upper = NA_real_))
    q <- if (length(v)) km_quantile(v, e, c(0.25, 0.5, 0.75)) else rep(NA_real_, 3)
    data.frame(replicas = nrow(d), censored = sum(!e), unfinished = n_unf,
               mean = m$estimate, se = m$se, mean_lower = m$lower, mean_upper = m$upper,
               q25 = q[1], median = q[2], q75 = q[3],
               tail_rate = tr$rate, tail_rate_lower = tr$lower,
               tail_rate_upper = tr$upper)
  })
  out <- cbind(conds, do.call(rbind, rows))
  attr(out, "level") <- level
  attr(out, "type") <- path_type(object)
  if (path_type(object) == "passage") attr(out, "model") <- attr(object, "model")
  attr(out, "start_bound") <- attr(object, "start_bound")
  attr(out, "replicas") <- attr(object, "replicas")
  attr(out, "init") <- attr(object, "init")
  attr(out, "sp_renamed") <- "summary.sp_paths" # x$n: the old name of `replicas`
  class(out) <- c("summary.sp_paths", "sp_renamed_df", "data.frame")
  out
}

#' @export
print.summary.sp_paths <- function(x, digits = 4, ...) {
  lvl <- attr(x, "level")
  cat(sprintf("%s%s by condition (%g%% intervals; mean and tail rate account for censoring)\n",
              paths_what(attr(x, "type") %||% "escape_times"),
              if (!is.null(attr(x, "model"))) sprintf(" of model \"%s\"", attr(x, "model"))
              else "", 100 * lvl))
  y <- as.data.frame(unclass(x))
  if (all(y$unfinished == 0)) y$unfinished <- NULL
  print(y, digits = digits, row.names = FALSE)
  start_bound_line(attr(x, "start_bound"), attr(x, "replicas"), attr(x, "init"))
  invisible(x)
}

# The line that states where a ramp started and the bound on the switches
# it left out (attribute start_bound of switching_currents()): nothing for
# a start at gamma0 = 0.
start_bound_line <- function(b, replicas, init) {
  if (is.null(b) || !nrow(b) || b$gamma0[1] == 0) return(invisible())
  p <- max(b$p)
  eps <- attr(b, "eps")
  cat(sprintf(paste0(
    "start: gamma0 = %s (%s%s): P(switch before gamma0) <= %s a path ",
    "(Fulton-Dunkleberger, Kramers rate), %s expected in %s paths%s\n"),
    format(b$gamma0[1], digits = 6), if (isTRUE(attr(b, "auto"))) "auto, " else "",
    if (is.character(init)) init else "continued", format(p, digits = 3),
    format(p * replicas, digits = 3), fmt_count(replicas),
    if (is.finite(eps)) sprintf(" (eps = 0.01 / replicas = %s)", format(eps, digits = 3))
    else ""))
  invisible()
}

#' @export
print.sp_paths <- function(x, ...) {
  n <- nrow(x)
  conds <- conditions_of(x)
  cli::cat_line(sprintf("<%s> %s paths, %d condition%s", class(x)[1],
                        format(n, big.mark = ","), nrow(conds),
                        if (nrow(conds) == 1) "" else "s"),
                if (!is.null(attr(x, "method")))
                  sprintf(" | %s, %s precision, dt = %s", attr(x, "method"),
                          attr(x, "precision"), format(step_of(x)))
                else "")
  if (!is.null(attr(x, "backend"))) {
    cat(sprintf("backend: %s [%s] | seed %s | %.3g s", attr(x, "backend"),
                paste(attr(x, "devices"), collapse = ", "),
                attr(x, "seed_hex") %||% fmt_num(attr(x, "seed")), attr(x, "seconds")))
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
  start_bound_line(attr(x, "start_bound"), attr(x, "replicas"), attr(x, "init"))
  s <- summary(x)
  cols <- c(names(conds), "replicas", "censored", "mean", "median")
  print(fmt_whole_cols(as.data.frame(unclass(s))[, cols, drop = FALSE]), digits = 4,
        row.names = FALSE)
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
#' `survival::Surv(sweeps, solved)`: runs cut by a timeout, `max_sweeps` or
#' an interrupt are censored at the sweeps they had run.  Sweeps are exact
#' and do not depend on the machine; `unit = "seconds"` gives
#' `Surv(seconds, solved)`, the sweeps times the device's measured pace
#' (see [xorsat_qg()]).
#'
#' @param x A result of [escape_times()], [switching_currents()] or
#'   [xorsat_qg()].
#' @param unit For [xorsat_qg()] results: `"sweeps"` (the default) or
#'   `"seconds"`; ignored for escape times and switching currents.
#' @return A `Surv` object with one element per path (or run).
#' @examples
#' if (requireNamespace("survival", quietly = TRUE)) {
#'   x <- escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                     dt = 0.02, t_max = 100, seed = 3, backend = "cpu")
#'   s <- as_surv(x)
#'   survival::survfit(s ~ 1)
#' }
#' @export
as_surv <- function(x, unit = c("sweeps", "seconds")) {
  unit <- check_choice(unit, c("sweeps", "seconds"), "unit", call = sys.call())
  if (!inherits(x, c("sp_paths", "xorsat_tts"))) {
    sp_abort("`x` must be a result of escape_times(), switching_currents() or xorsat_qg().")
  }
  if (!requireNamespace("survival", quietly = TRUE)) {
    sp_abort("as_surv() needs the survival package: install.packages(\"survival\").")
  }
  if (inherits(x, "xorsat_tts")) return(survival::Surv(x[[unit]], x$solved))
  survival::Surv(x$value, x$escaped)
}

#' Combine chunks of one simulation
#'
#' Chunks made with the same seed and parameters but different
#' `first_replica` (for example on several cluster workers) combine into the
#' result of one call: rows are ordered by condition and replica, and a
#' replica present twice is an error.
#'
#' Parts of other simulations are refused with an error of class
#' `statphysgpu_rbind_error` that names the setting that differs: the seed,
#' the parameters, method, precision, step `dt`, threshold, start `init`,
#' and the end (`t_max` of [escape_times()]; `gamma0` and `gamma_max` of
#' [switching_currents()]; for [sde_run()] passage times also the model).
#' The combination of unmodified chunks can be continued (`init = `) as
#' one result.
#'
#' @param ... Results of [escape_times()] (or of [switching_currents()]).
#' @param deparse.level Unused.
#' @return One result object.
#' @examples
#' a <- escape_times(50, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   dt = 0.02, t_max = 300, seed = 9, backend = "cpu")
#' b <- escape_times(50, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   dt = 0.02, t_max = 300, seed = 9, backend = "cpu",
#'                   first_replica = 51)
#' whole <- escape_times(100, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                       dt = 0.02, t_max = 300, seed = 9, backend = "cpu")
#' all.equal(as.data.frame(rbind(a, b)), as.data.frame(whole))
#' @export
rbind.sp_paths <- function(..., deparse.level = 1) {
  parts <- rbind_parts(...)
  first <- parts[[1]]
  what <- paste0(class(first)[1], "()")
  rbind_same(parts, what, paste0(
    "chunks of one simulation: the same seed, parameters, method, precision, step, ",
    "threshold, start and end (other replicas: `first_replica`)"),
    list(seed = "seed_hex", `the model` = function(p) attr(p, "model_hash"),
         method = "method", precision = "precision", dt = step_of, threshold = "threshold",
         init = "init", `the conditions (parameters)` = "conditions", t_max = "t_max",
         gamma0 = "gamma0", gamma_max = "gamma_max",
         `the conditions' streams (attribute cond0)` = "cond0"))
  df <- do.call(rbind, lapply(parts, as.data.frame.sp_paths))
  key <- paste(df$condition, fmt_count(df$replica))
  if (anyDuplicated(key)) {
    d <- which(duplicated(key))[1]
    rbind_abort(sprintf(paste0(
      "the chunks overlap: replica %s of condition %s appears twice (check ",
      "`first_replica`; rbind() of %s results needs disjoint replicas)."),
      fmt_count(df$replica[d]), df$condition[d], what))
  }
  o <- order(df$condition, df$replica)
  out <- df[o, , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(first)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(first, a)
  attr(out, "replicas") <- as.double(length(unique(df$replica)))
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
  if (!is.null(attr(first, "state"))) { # the end states of the paths not escaped
    st <- lapply(parts, function(p) attr(p, "state"))
    if (any(vapply(st, is.null, TRUE))) {
      attr(out, "state") <- NULL
    } else {
      st <- do.call(rbind, st)
      st <- st[order(st$condition, st$replica), , drop = FALSE]
      rownames(st) <- NULL
      attr(out, "state") <- st
    }
  }
  if (!is.null(attr(first, "sde_runs"))) { # the declared engine's runs of every part
    runs <- lapply(parts, function(p) attr(p, "sde_runs"))
    attr(out, "sde_runs") <- if (any(vapply(runs, is.null, TRUE))) NULL else do.call(c, runs)
  }
  if (!is.null(attr(first, "args"))) {
    a <- attr(first, "args")
    a$replicas <- attr(out, "replicas")
    a$first_replica <- attr(out, "first_replica")
    attr(out, "args") <- a
  }
  class(out) <- class(first)
  attr(out, "sealed") <- NULL
  # a combination of intact results continues as they would (a part
  # modified after its run leaves the combination unsealed: refused by a
  # continuation)
  out <- sp_reseal(out, parts)
  sp_old_attrs(out)
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
  if (path_type(x) == "passage") {
    sp_abort(sprintf(paste0("theory = \"%s\" is a theory of the washboard of escape_times(); ",
                            "a user model's passage times have none: use theory = \"none\"."),
                     theory), call = call)
  }
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
      "the ", THEORY_NAMES[[theory]], " rate describes escape out of the well; ",
      "these are first passages at the saddle (threshold = \"saddle\"), which come earlier ",
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


# Views of a distribution (plot(x, type = )), and the proper names of the
# theories for titles and legends.
PATH_PLOT_TYPES <- c("cdf", "survival", "gumbel")
THEORY_NAMES <- c(kramers = "Kramers", bhl = "Buttiker-Harris-Landauer",
                  mm = "Mel'nikov-Meshkov", smoluchowski = "Smoluchowski")

# The plotted coordinate of a CDF value p in [0, 1]: p itself, the survival
# 1 - p (drawn on a logarithmic axis), or the Gumbel coordinate
# log(-log(1 - p)), -Inf at p = 0 and Inf at p = 1.  Monotone, so a band on
# the CDF maps to a band (reversed for the survival).
paths_y <- function(p, type) {
  switch(type,
         cdf = p,
         survival = 1 - p,
         gumbel = log(-log1p(-p)))
}

# Can a coordinate be drawn (0 has no place on a logarithmic axis, +-Inf none
# on a Gumbel plot)?
paths_y_shown <- function(y, type) {
  if (type == "survival") is.finite(y) & y > 0 else is.finite(y)
}

# The steps of one estimate (an ecdf_band() table) in the coordinates of
# `type`: from x0 to x1 the estimate y with its band [lo, hi] (where the band
# is undefined, the estimate).  Steps whose estimate cannot be drawn (S = 0
# on a survival or Gumbel plot, F = 0 on a Gumbel plot) are left out; the
# last step runs on to `right` (paths survive it, or F stays 1).  Band
# bounds that cannot be drawn stay (0, +-Inf): clip them to the plot.
band_steps <- function(b, type, right = NA_real_) {
  n <- nrow(b)
  lo <- ifelse(is.na(b$lower), b$cdf, b$lower)
  hi <- ifelse(is.na(b$upper), b$cdf, b$upper)
  if (type == "survival") {
    tmp <- lo
    lo <- hi
    hi <- tmp
  }
  out <- data.frame(x0 = b$x, x1 = c(b$x[-1], max(right, b$x[n], na.rm = TRUE)),
                    y = paths_y(b$cdf, type), lo = paths_y(lo, type),
                    hi = paths_y(hi, type))
  out <- out[paths_y_shown(out$y, type), , drop = FALSE]
  rownames(out) <- NULL
  out
}

# The vertical range of a plot: [0, 1] for the CDF; for the survival, up to
# 1 and down to the lowest band (at most a factor 3 below the smallest
# estimate: the band of the last few paths reaches 0); the range of the
# Gumbel estimates.
paths_ylim <- function(steps, type) {
  y <- unlist(lapply(steps, `[[`, "y"))
  lo <- unlist(lapply(steps, `[[`, "lo"))
  switch(type,
         cdf = c(0, 1),
         survival = c(max(min(lo[lo > 0], min(y)), min(y) / 3), 1),
         gumbel = range(y))
}

# Legend texts of the estimate and of the theory.
sim_legend <- function(pd, level) {
  bands <- unique(vapply(pd, function(p) attr(p$band, "band"), ""))
  kind <- ifelse(bands == "simultaneous", "simultaneous (DKW)", "pointwise")
  km <- any(vapply(pd, function(p) attr(p$band, "n_censored") > 0, TRUE))
  sprintf("simulation%s, %g%% %s band", if (km) " (Kaplan-Meier)" else "", 100 * level,
          paste(kind, collapse = " / "))
}

theory_legend <- function(x, theory) {
  if (path_type(x) == "switching_currents") {
    sprintf("theory: Fulton-Dunkleberger, %s rate", THEORY_NAMES[[theory]])
  } else if (theory == "smoluchowski") {
    "theory: 1 - exp(-t / tau), Smoluchowski tau"
  } else {
    sprintf("theory: 1 - exp(-Gamma t), %s rate", THEORY_NAMES[[theory]])
  }
}

paths_title <- function(x, type) {
  sprintf("%s%s, %s", paths_what(path_type(x)),
          if (path_type(x) == "passage") sprintf(" of model \"%s\"", attr(x, "model") %||% "?")
          else "",
          switch(type, cdf = "cumulative distribution",
                 survival = "survival probability", gumbel = "Gumbel plot"))
}

paths_ylab <- function(type) {
  switch(type, cdf = "cumulative probability F", survival = "survival 1 - F (log scale)",
         gumbel = "log(-log(1 - F))")
}

# The second (physical) axis from jj_units(): bias current I = gamma Ic, or
# time t t0.  NULL without units.
physical_axis <- function(x, units, call) {
  if (is.null(units)) return(NULL)
  if (!inherits(units, "jj_units")) {
    sp_abort(sprintf("`units` must be NULL or a result of jj_units(), not %s.",
                     describe(units)), call = call)
  }
  if (path_type(x) == "passage") {
    sp_abort(paste0("`units` (jj_units()) are a Josephson junction's; a user model's ",
                    "passage times are in the model's own time unit."), call = call)
  }
  sw <- path_type(x) == "switching_currents"
  if (length(unique(units$Ic)) != 1 || length(unique(units$t0)) != 1) {
    sp_abort(paste0("`units` must describe one junction (one Ic and one C; rows may ",
                    "differ in T, R or sweep_rate), not ", nrow(units), " junctions."),
             call = call)
  }
  V0 <- unique(conditions_of(x)$V0)
  if (any(abs(V0 / units$V0[1] - 1) > 1e-3)) {
    sp_abort(sprintf(paste0(
      "`units` is not the junction of `x`: its V0 is %s, the conditions of `x` have ",
      "V0 = %s."), format(units$V0[1], digits = 4),
      paste(format(V0, digits = 4), collapse = ", ")), call = call)
  }
  # a current in the prefix of Ic (uA for a junction of 0.75 uA), a time in
  # that of the times shown
  list(factor = if (sw) units$Ic[1] else units$t0[1], unit = if (sw) "A" else "s",
       name = if (sw) "bias current at switching" else "escape time",
       scale = if (sw) units$Ic[1] else NA_real_)
}

# An SI prefix in which v is at least `lowest` (and below 1000 * lowest):
# c(name = factor).
si_prefix <- function(v, lowest = 1) {
  p <- c(1, 1e-3, 1e-6, 1e-9, 1e-12, 1e-15)
  names(p) <- c("", "m", "u", "n", "p", "f")
  k <- which(v / p >= lowest)[1]
  p[if (is.na(k)) length(p) else k]
}

# Tick marks of the physical axis over the normalised range `lim`: where
# they go (normalised), their labels and the axis title.
physical_ticks <- function(pa, lim, log_x) {
  phys <- lim * pa$factor
  pre <- if (is.na(pa$scale)) si_prefix(max(abs(phys))) else si_prefix(pa$scale, 0.1)
  shown <- phys / pre
  at <- if (log_x) grDevices::axisTicks(log10(shown), log = TRUE) else pretty(shown)
  at <- at[at >= min(shown) & at <= max(shown)]
  list(at = at * pre / pa$factor, labels = format(at, trim = TRUE),
       title = sprintf("%s (%s%s)", pa$name, names(pre), pa$unit))
}

# ECDF bands of every condition (pointwise ones for the tail views), their
# legend labels, and the theory in the coordinates of `type`.
paths_plot_data <- function(x, level, theory, type = "cdf") {
  conds <- conditions_of(x)
  lab <- vary_labels(conds[setdiff(names(conds), "condition")])
  out <- lapply(seq_len(nrow(conds)), function(i) {
    cond <- conds[i, , drop = FALSE]
    d <- x[x$condition == cond$condition & !is.na(x$escaped), , drop = FALSE]
    b <- ecdf_band(d$value, level = level, escaped = d$escaped,
                   band = if (type == "cdf") "auto" else "pointwise")
    th <- NULL
    if (theory != "none") {
      grid <- seq(min(d$value), max(d$value), length.out = 400)
      th <- data.frame(x = grid, y = paths_y(theory_cdf(x, cond, grid, theory), type))
      th <- th[paths_y_shown(th$y, type), , drop = FALSE]
    }
    list(label = lab$labels[i], band = b, theory = th)
  })
  attr(out, "constant") <- lab$constant
  out
}

#' Plot the distribution of simulated escape times or switching currents
#'
#' Draws, per condition, the empirical distribution (Kaplan-Meier when paths
#' are censored) with its confidence band ([ecdf_band()]), and optionally the
#' theoretical one: \eqn{1 - e^{-\Gamma t}} with the Kramers,
#' Buttiker-Harris-Landauer or Mel'nikov-Meshkov rate ([escape_rate()]) for
#' escape times, the Fulton-Dunkleberger distribution
#' ([switching_distribution()]) for switching currents, or \eqn{1 -
#' e^{-t/\tau}} with the Smoluchowski mean first-passage time \eqn{\tau}
#' ([mfpt_smoluchowski()]). The legend tells the simulation (solid, with its
#' band) from the theory (dashed) and names only the parameters that differ
#' between the conditions; those they share are written under the plot.
#'
#' @section Views:
#' * `type = "cdf"`: the cumulative distribution \eqn{F} on a linear axis,
#'   with the band of [ecdf_band()] (simultaneous without censoring).
#' * `type = "survival"`: \eqn{1 - F} on a logarithmic axis, which shows the
#'   late tail: for escape times at fixed bias, \eqn{e^{-\Gamma t}} is a
#'   straight line of slope \eqn{-\Gamma}.
#' * `type = "gumbel"`: \eqn{\ln(-\ln(1 - F))}, which shows both tails: the
#'   Fulton-Dunkleberger distribution of switching currents is nearly a
#'   straight line there (a Gumbel distribution, as \eqn{\ln\Gamma} is nearly
#'   linear in the bias), and for escape times \eqn{\ln\Gamma + \ln t}, a
#'   line of slope 1 against \eqn{\ln t} (the default axis for escape times
#'   in this view is logarithmic).
#'
#' The tail views draw the pointwise (Greenwood, log-log) band
#' (`ecdf_band(band = "pointwise")`): a simultaneous band's constant width
#' says nothing about a tail.
#'
#' @section Units:
#' Values are in the normalised units of [jj_units()]: the bias \eqn{\gamma
#' = I/I_c}, time in units of \eqn{t_0 = \hbar/E_C} (not of the inverse
#' plasma frequency, which is \eqn{t_0/\sqrt{V_0}}). With `units =
#' jj_units(...)` of the simulated junction, a second axis at the top shows
#' the bias current (\eqn{\gamma I_c}) or the time (\eqn{t\,t_0}) in SI
#' units with a fitting prefix (uA, ns, ...).
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
#' @param log Passed to [plot()] (e.g. `"x"` for a logarithmic time axis);
#'   `NULL` (default): `"y"` for `type = "survival"`, `"x"` for escape times
#'   with `type = "gumbel"`, none otherwise.
#' @param xlim Range of the horizontal axis (default: the data's).
#' @param type The view: `"cdf"` (default), `"survival"` or `"gumbel"` (see
#'   "Views").
#' @param units `NULL`, or the [jj_units()] of the junction simulated (one
#'   junction: rows may differ in temperature, resistance or sweep rate),
#'   for a second axis in SI units.
#' @param ... Passed to [plot()].
#' @return `x`, invisibly.
#' @examples
#' x <- escape_times(300, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
#'                   dt = 0.02, t_max = 1000, seed = 2, backend = "cpu",
#'                   threshold = "next_well")
#' plot(x, theory = "kramers")
#' plot(x, theory = "kramers", type = "survival")
#' @export
plot.sp_paths <- function(x, theory = c("none", "kramers", "bhl", "mm", "smoluchowski"),
                          level = 0.95, log = NULL, xlim = NULL,
                          type = c("cdf", "survival", "gumbel"), units = NULL, ...) {
  call <- sys.call()
  theory <- check_choice(theory, PATH_THEORIES, "theory", call = call)
  level <- check_level(level, call = call)
  type <- check_choice(type, PATH_PLOT_TYPES, "type", call = call)
  pa <- physical_axis(x, units, call)
  check_theory_fits(x, theory, call)
  if (is.null(log)) log <- paths_default_log(x, type)
  if (type == "survival" && !grepl("y", log)) log <- paste0(log, "y")
  pd <- paths_plot_data(x, level, theory, type)
  xr <- range(unlist(lapply(pd, function(p) p$band$x)), finite = TRUE)
  if (grepl("x", log)) xr[1] <- max(xr[1], min(x$value[x$value > 0], na.rm = TRUE))
  if (!is.null(xlim)) xr <- xlim
  steps <- lapply(pd, function(p) band_steps(p$band, type, right = xr[2]))
  multi <- length(pd) > 1
  cols <- if (multi) grDevices::hcl.colors(length(pd), "Dark 3") else "#1b6ca8"
  graphics::plot(NA, xlim = xr, ylim = paths_ylim(steps, type), log = log,
                 xlab = value_label(x), ylab = paths_ylab(type), main = "",
                 sub = attr(pd, "constant"), cex.sub = 0.8, ...)
  if (is.null(pa)) {
    graphics::title(main = paths_title(x, type))
  } else {
    usr <- graphics::par("usr")
    tk <- physical_ticks(pa, if (grepl("x", log)) 10^usr[1:2] else usr[1:2], grepl("x", log))
    graphics::axis(3, at = tk$at, labels = tk$labels, mgp = c(3, 0.5, 0), tcl = -0.3,
                   cex.axis = 0.8)
    graphics::mtext(tk$title, side = 3, line = 1.5, cex = 0.8)
    graphics::title(main = paths_title(x, type), line = 2.8)
  }
  usr <- graphics::par("usr")[3:4]
  if (grepl("y", log)) usr <- 10^usr
  for (i in seq_along(pd)) {
    s <- steps[[i]]
    if (!nrow(s)) next
    lo <- pmin(pmax(s$lo, usr[1]), usr[2])
    hi <- pmin(pmax(s$hi, usr[1]), usr[2])
    xx <- as.vector(rbind(s$x0, s$x1))
    graphics::polygon(c(xx, rev(xx)), c(rep(lo, each = 2), rev(rep(hi, each = 2))),
                      col = grDevices::adjustcolor(cols[i], 0.25), border = NA)
    graphics::lines(c(s$x0, s$x1[nrow(s)]), c(s$y, s$y[nrow(s)]), type = "s",
                    col = cols[i], lwd = 1.5)
    if (!is.null(pd[[i]]$theory)) {
      graphics::lines(pd[[i]]$theory$x, pd[[i]]$theory$y, col = cols[i], lty = 2, lwd = 1.5)
    }
  }
  key <- if (multi) "grey30" else cols[1]
  leg <- c(if (multi) vapply(pd, `[[`, "", "label"), sim_legend(pd, level),
           if (theory != "none") theory_legend(x, theory))
  n_c <- if (multi) length(pd) else 0
  drawn <- do.call(rbind, c(lapply(steps, function(s) {
    data.frame(x = rep(c(s$x0, s$x1), 3), y = c(s$y, s$y, s$lo, s$lo, s$hi, s$hi))
  }), lapply(pd, function(p) p$theory)))
  place_legend(drawn$x, pmin(pmax(drawn$y, usr[1]), usr[2]), legend = leg,
               col = c(if (multi) cols, key, if (theory != "none") key),
               lty = c(rep(1, n_c), 1, if (theory != "none") 2), lwd = 1.5,
               pch = c(rep(NA, n_c), 22, if (theory != "none") NA), pt.cex = 1.6,
               pt.bg = grDevices::adjustcolor(key, 0.25), bty = "o", box.col = NA,
               bg = grDevices::adjustcolor("white", 0.8), cex = 0.8, inset = 0.01)
  invisible(x)
}

paths_default_log <- function(x, type) {
  switch(type, cdf = "", survival = "y",
         gumbel = if (path_type(x) %in% c("escape_times", "passage")) "x" else "")
}

#' @rdname plot.sp_paths
#' @param object A result of [escape_times()] or [switching_currents()].
#' @exportS3Method ggplot2::autoplot
autoplot.sp_paths <- function(object, theory = c("none", "kramers", "bhl", "mm", "smoluchowski"),
                              level = 0.95, type = c("cdf", "survival", "gumbel"),
                              units = NULL, ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  theory <- check_choice(theory, PATH_THEORIES, "theory", call = call)
  level <- check_level(level, call = call)
  type <- check_choice(type, PATH_PLOT_TYPES, "type", call = call)
  pa <- physical_axis(object, units, call)
  check_theory_fits(object, theory, call)
  pd <- paths_plot_data(object, level, theory, type)
  right <- max(unlist(lapply(pd, function(p) p$band$x)))
  st <- lapply(pd, function(p) band_steps(p$band, type, right = right))
  yl <- paths_ylim(st, type)
  steps <- do.call(rbind, lapply(seq_along(pd), function(i) {
    data.frame(condition = rep(pd[[i]]$label, nrow(st[[i]])), st[[i]])
  }))
  steps$lo <- pmin(pmax(steps$lo, yl[1]), yl[2])
  steps$hi <- pmin(pmax(steps$hi, yl[1]), yl[2])
  ends <- do.call(rbind, lapply(seq_along(pd), function(i) {
    s <- st[[i]]
    data.frame(condition = pd[[i]]$label, x = c(s$x0, s$x1[nrow(s)]),
               y = c(s$y, s$y[nrow(s)]))
  }))
  sim <- sim_legend(pd, level)
  ends$what <- sim
  g <- ggplot2::ggplot(steps) +
    ggplot2::geom_rect(ggplot2::aes(xmin = .data$x0, xmax = .data$x1, ymin = .data$lo,
                                    ymax = .data$hi, fill = .data$condition),
                       alpha = 0.25, colour = NA) +
    ggplot2::geom_step(data = ends, ggplot2::aes(x = .data$x, y = .data$y,
                                                 colour = .data$condition,
                                                 linetype = .data$what))
  lt <- stats::setNames("solid", sim)
  th <- do.call(rbind, lapply(pd, function(p) {
    if (is.null(p$theory) || !nrow(p$theory)) NULL
    else data.frame(condition = p$label, p$theory)
  }))
  if (!is.null(th)) {
    th$what <- theory_legend(object, theory)
    lt <- c(lt, stats::setNames("dashed", th$what[1]))
    g <- g + ggplot2::geom_line(data = th, ggplot2::aes(x = .data$x, y = .data$y,
                                                        colour = .data$condition,
                                                        linetype = .data$what))
  }
  const <- attr(pd, "constant")
  g <- g + ggplot2::scale_linetype_manual(values = lt, name = NULL) +
    ggplot2::labs(x = value_label(object), y = paths_ylab(type),
                  title = paths_title(object, type),
                  subtitle = if (nzchar(const)) const, colour = NULL, fill = NULL)
  if (length(pd) == 1) g <- g + ggplot2::guides(colour = "none", fill = "none")
  log_x <- grepl("x", paths_default_log(object, type))
  sec <- if (is.null(pa)) ggplot2::waiver() else {
    tk <- physical_ticks(pa, range(steps$x0, steps$x1), log_x)
    ggplot2::sec_axis(~ ., name = tk$title, breaks = tk$at, labels = tk$labels)
  }
  g <- g + if (log_x) ggplot2::scale_x_log10(sec.axis = sec) else
    ggplot2::scale_x_continuous(sec.axis = sec)
  if (type == "survival") g <- g + ggplot2::scale_y_log10()
  g + ggplot2::theme(legend.position = "bottom", legend.box = "vertical")
}
utils::globalVariables(".data")
