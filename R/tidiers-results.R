# tidy() and glance() of the summaries, of h_check() and of censored_mean()
# (issue 51, item 5), and the tibbles every tidier returns.  Registered with
# the generics package as those of R/tidiers.R.

# broom's tidiers return tibbles: a data frame as a tibble where the tibble
# package is installed (it is wherever broom is), else the data frame.
sp_tibble <- function(d) {
  rownames(d) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(d) else d
}

# ---- censored_mean() ------------------------------------------------------------

# The result of censored_mean(): its list of fields, with a class.
censored_mean_result <- function(...) structure(list(...), class = "censored_mean")

#' @export
print.censored_mean <- function(x, digits = 4, ...) {
  f <- function(v) format(signif(v, digits))
  cat(sprintf("Censoring-aware mean: %s (se %s), %g%% interval [%s, %s]\n", f(x$estimate),
              f(x$se), 100 * x$level, f(x$lower), f(x$upper)))
  cat(sprintf("  %s values, %s censored; %s\n", fmt_count(x$n), fmt_count(x$n_censored),
              x$method))
  if (is.finite(x$from)) {
    cat(sprintf("  exponential tail from %s, rate %s\n", f(x$from), f(x$tail_rate)))
  }
  invisible(x)
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.censored_mean <- function(x, ...) {
  sp_tibble(data.frame(term = "mean", estimate = x$estimate, std.error = x$se,
                       conf.low = x$lower, conf.high = x$upper, conf.level = x$level,
                       method = x$method, stringsAsFactors = FALSE))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.censored_mean <- function(x, ...) {
  sp_tibble(data.frame(nobs = x$n, censored = x$n_censored, from = x$from,
                       tail_rate = x$tail_rate, level = x$level))
}

# ---- h_check() -----------------------------------------------------------------

# The columns of a table that describe its conditions (before `first`).
sp_grid_columns <- function(d, first) {
  k <- match(first, names(d))
  if (is.na(k) || k == 1) character() else names(d)[seq_len(k - 1)]
}

# Rows of `grid` each repeated once per term, beside `rows`.
sp_tidy_terms <- function(grid, rows) {
  out <- do.call(rbind, rows)
  if (ncol(grid)) out <- cbind(grid[rep(seq_len(nrow(grid)), length(rows)), , drop = FALSE], out)
  if ("condition" %in% names(out)) out <- out[order(out$condition), , drop = FALSE]
  out
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.sp_h_check <- function(x, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  grid <- d[sp_grid_columns(d, "mean_h")]
  se_d <- sqrt(d$se_h^2 + d$se_h2^2)
  term <- function(t, est, se, stat) {
    data.frame(term = rep(t, nrow(d)), estimate = est, std.error = se, statistic = stat,
               p.value = 2 * stats::pnorm(-abs(stat)), stringsAsFactors = FALSE)
  }
  sp_tibble(sp_tidy_terms(grid, list(
    term("mean_h", d$mean_h, d$se_h, rep(NA_real_, nrow(d))),
    term("mean_h2", d$mean_h2, d$se_h2, rep(NA_real_, nrow(d))),
    term("difference", d$difference, se_d, d$z),
    term("bias_h", d$bias_h, se_d / (1 - 2^-attr(x, "order")), d$z))))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.sp_h_check <- function(x, ...) {
  sp_tibble(data.frame(conditions = nrow(x), dt = attr(x, "dt"), method = attr(x, "method"),
                       order = attr(x, "order"),
                       max_abs_z = if (nrow(x)) max(abs(x$z)) else NA_real_,
                       stringsAsFactors = FALSE))
}

# ---- summaries --------------------------------------------------------------------

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.sp_paths <- function(x, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  grid <- d[sp_grid_columns(d, "replicas")]
  lvl <- attr(x, "level") %||% NA_real_
  term <- function(t, est, se, lo, hi) {
    data.frame(term = rep(t, nrow(d)), estimate = est, std.error = se, conf.low = lo,
               conf.high = hi, conf.level = rep(lvl, nrow(d)), replicas = d$replicas,
               censored = d$censored, stringsAsFactors = FALSE)
  }
  na <- rep(NA_real_, nrow(d))
  sp_tibble(sp_tidy_terms(grid, list(
    term("mean", d$mean, d$se, d$mean_lower, d$mean_upper),
    term("median", d$median, na, na, na),
    term("tail_rate", d$tail_rate, na, d$tail_rate_lower, d$tail_rate_upper))))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.sp_paths <- function(x, ...) {
  sp_tibble(data.frame(conditions = nrow(x), replicas = sum(x[["replicas"]]),
                       censored = sum(x[["censored"]]), unfinished = sum(x[["unfinished"]]),
                       level = attr(x, "level") %||% NA_real_,
                       type = attr(x, "type") %||% NA_character_, stringsAsFactors = FALSE))
}

# tidy() of a reblocked summary (VMC, DMC): one row per (condition,)
# observable.
tidy_reblocked <- function(x, conf.int, conf.level) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  grid <- d[sp_grid_columns(d, "observable")]
  out <- data.frame(term = d$observable, estimate = d$mean, std.error = d$se,
                    se_error = d$se_error, tau_int = d$tau_int, n_blocks = d$n_blocks,
                    stringsAsFactors = FALSE)
  if (isTRUE(conf.int)) {
    out <- cbind(out, tidy_interval(out$estimate, out$std.error, tidy_check_level(conf.level)))
  }
  sp_tibble(if (ncol(grid)) cbind(grid, out) else out)
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.vmc_blocks <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  tidy_reblocked(x, conf.int, conf.level)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.vmc_blocks <- function(x, ...) {
  conds <- if ("condition" %in% names(x)) length(unique(x$condition)) else 1L
  sp_tibble(data.frame(conditions = conds, replicas = attr(x, "replicas") %||% NA_real_,
                       acceptance = mean(attr(x, "acceptance") %||% NA_real_),
                       frozen = any(attr(x, "frozen") %||% FALSE),
                       seconds = attr(x, "seconds") %||% NA_real_))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.dmc_blocks <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  tidy_reblocked(x, conf.int, conf.level)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.dmc_blocks <- function(x, ...) {
  sp_tibble(data.frame(populations = attr(x, "populations") %||% NA_real_,
                       acceptance = attr(x, "acceptance") %||% NA_real_,
                       frozen = isTRUE(attr(x, "frozen")),
                       effective_dt = attr(x, "effective_dt") %||% NA_real_,
                       overflow = sum(attr(x, "overflow") %||% 0),
                       seconds = attr(x, "seconds") %||% NA_real_))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.escape_rate_ams <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  tidy.escape_rate_ams(x, conf.int = conf.int, conf.level = conf.level)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.escape_rate_ams <- function(x, ...) glance.escape_rate_ams(x)

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.xorsat_tts <- function(x, ...) {
  if (is.null(x$conditions)) return(tidy.tts_estimate(x$estimate))
  rows <- lapply(seq_along(x$parts), function(k) {
    t <- as.data.frame(tidy.tts_estimate(x$parts[[k]]$estimate))
    cbind(data.frame(condition = x$conditions$condition[k], p1 = x$conditions$p1[k]), t)
  })
  sp_tibble(do.call(rbind, rows))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.xorsat_tts <- function(x, ...) {
  sp_tibble(data.frame(instance = x$instance %||% NA_character_, n = x$n,
                       clones = x$clones, conditions = NROW(x$conditions %||% 1),
                       replicas = x$replicas, solved = x$solved,
                       success = x$success %||% x$estimate$success,
                       seconds_per_sweep = x$seconds_per_sweep, stringsAsFactors = FALSE))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.driven_paths <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  grid <- d[sp_grid_columns(d, "replicas")]
  term <- function(t, est, se) {
    out <- data.frame(term = rep(t, nrow(d)), estimate = est, std.error = se,
                      replicas = d$replicas, stringsAsFactors = FALSE)
    if (isTRUE(conf.int)) {
      out <- cbind(out, tidy_interval(est, se, tidy_check_level(conf.level)))
    }
    out
  }
  sp_tibble(sp_tidy_terms(grid, list(term("v", d$v_mean, d$v_se),
                                     term("D_eff", d$D_eff, d$D_eff_se),
                                     term("v2", d$v2_mean, d$v2_se))))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.driven_paths <- function(x, ...) {
  sp_tibble(data.frame(conditions = nrow(x), replicas = sum(x[["replicas"]]),
                       t_obs = attr(x, "t_obs") %||% NA_real_))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.kuramoto_run <- function(x, conf.int = FALSE, conf.level = 0.95, ...) {
  d <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  grid <- d[sp_grid_columns(d, "r")]
  out <- data.frame(term = rep("r", nrow(d)), estimate = d$r, std.error = d$se,
                    se_method = d$se_method, theory = d$theory, replicas = d$replicas,
                    records = d$records, stringsAsFactors = FALSE)
  if (isTRUE(conf.int)) {
    out <- cbind(out, tidy_interval(out$estimate, out$std.error, tidy_check_level(conf.level)))
  }
  sp_tibble(if (ncol(grid)) cbind(grid, out) else out)
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.kuramoto_run <- function(x, ...) {
  sp_tibble(data.frame(conditions = nrow(x), replicas = sum(x[["replicas"]]),
                       from = attr(x, "from") %||% NA_real_))
}

#' @rdname tidiers
#' @exportS3Method generics::tidy
tidy.summary.lrmd_run <- function(x, ...) {
  sp_tibble(as.data.frame(unclass(x), stringsAsFactors = FALSE))
}

#' @rdname tidiers
#' @exportS3Method generics::glance
glance.summary.lrmd_run <- function(x, ...) {
  sp_tibble(data.frame(replicas = nrow(x), model = x$model[1] %||% NA_character_,
                       n = x$n[1] %||% NA_real_, from = attr(x, "from") %||% NA_real_,
                       max_energy_error = if (nrow(x)) max(x$max_energy_error) else NA_real_,
                       stringsAsFactors = FALSE))
}
