# Methods for the results of sde_run().  Passage times are "sp_paths" (the
# methods of escape_times() results apply: summary, plot, as_surv, rbind);
# here what the SDE results add.

# Chunks of one sde_run(): the same model (its hash: the code it was
# compiled from), output, seed, method, precision, step, end, records,
# histogram bins, kept trajectories, start and conditions; and disjoint
# replicas.  Returns the merged replica ranges of the parts.
sde_same_run <- function(parts) {
  model <- function(p) attr(p, "model_hash") %||% attr(p, "model")
  settings <- list(
    `the model (another model, or one of the same name with other code)` = model,
    `the model's name` = "model", `the output` = "output", seed = "seed_hex",
    method = "method", precision = "precision", dt = "dt", t_max = "t_max",
    record_every = "record_every", bins = "bins", keep = "keep", init = "init",
    `the conditions (params)` = "conditions")
  rbind_same(parts, "sde_run()", paste0(
    "chunks of one run: the same model, seed, method, precision, dt, t_max, records, ",
    "bins, keep, init and parameters (other replicas: `first_replica`)"), settings)
  rbind_disjoint(parts, "sde_run()")
}

# The results given to rbind(), checked to be chunks of one run; attribute
# `ranges`: the replica ranges of the combination.
sde_chunks <- function(...) {
  parts <- rbind_parts(...)
  attr(parts, "ranges") <- sde_same_run(parts)
  parts
}

# The attributes of the first chunk on the combined result.
sde_keep_attrs <- function(out, parts, drop = character()) {
  first <- parts[[1]]
  keep <- setdiff(names(attributes(first)), c("names", "row.names", "class", drop))
  for (a in keep) attr(out, a) <- attr(first, a)
  attr(out, "seconds") <- sum(vapply(parts, function(p) attr(p, "seconds") %||% 0, 0))
  attr(out, "replicas") <- sum(vapply(parts, function(p) attr(p, "replicas") %||% 0, 0))
  attr(out, "first_replica") <- min(vapply(parts, function(p) attr(p, "first_replica"), 0))
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")), TRUE))
  out <- rbind_ranges_attrs(out, parts, attr(parts, "ranges"))
  class(out) <- class(first)
  sp_old_attrs(out)
}

sde_plain_df <- function(x) {
  out <- as.data.frame(unclass(x)[names(x)], stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}

#' Methods for sde_run() results
#'
#' Passage times (`sde_passage`) are also `sp_paths`: [summary.sp_paths()],
#' [plot.sp_paths()], [ecdf_band()], [as_surv()] and [rbind.sp_paths()]
#' apply. Moments, histograms and trajectories print, plot, convert to data
#' frames and combine chunks of one run (`rbind()`: replicas
#' `first_replica = k + 1, ...` of the same seed; moments are pooled, which
#' equals the one-call result to rounding, histograms summed, trajectories
#' stacked).
#'
#' `rbind()` refuses, with an error of class `statphysgpu_rbind_error` that
#' names what differs, parts that are not chunks of one run -- another model
#' (compared by the hash of its code, so two models of one name differ),
#' output, seed, method, precision, `dt`, `t_max`, `record_every`, `bins`,
#' `keep`, start (`init`; a state given per replica is each chunk's own) or
#' parameters -- and parts that hold the same replica (from their replica
#' ranges, also where no row shows it: moments, histograms, trajectories
#' past `keep`), which would count it twice. A combination records the
#' ranges it holds (attribute `replica_ranges` when there are several).
#' `as.data.frame()` of moments reads the column's old name `n` as
#' `replicas`, with a warning of class `statphysgpu_deprecated`.
#'
#' @param x A result of [sde_run()].
#' @param at_passage For passage times: add the columns of the state (and
#'   observables) at passage, if the run kept them.
#' @param variable Variables to draw (default: all).
#' @param ... Results of [sde_run()] (for `rbind()`), or passed on.
#' @param deparse.level Unused.
#' @return `as.data.frame()`: a data frame; `rbind()`: one result; `plot()`
#'   and `print()`: `x`, invisibly.
#' @name sde_methods
#' @examples
#' # the model of ?sde_run's example (compiled once a session)
#' ou <- sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s),
#'                 params = c(k = 1, s = 1), stop = ~ x > 1.5, name = "ou")
#' if (sde_cpu_available()) {
#'   a <- sde_run(ou, 100, init = list(x = 1), dt = 0.01, t_max = 2, output = "moments",
#'                record_every = 20, seed = 4, backend = "cpu")
#'   b <- sde_run(ou, 100, init = list(x = 1), dt = 0.01, t_max = 2, output = "moments",
#'                record_every = 20, seed = 4, backend = "cpu", first_replica = 101)
#'   both <- rbind(a, b)
#'   plot(both)
#' }
NULL

#' @rdname sde_methods
#' @export
as.data.frame.sde_passage <- function(x, ..., at_passage = FALSE) {
  out <- as.data.frame.sp_paths(x)
  ap <- attr(x, "at_passage")
  if (isTRUE(at_passage) && !is.null(ap)) out <- cbind(out, ap)
  out
}

#' @rdname sde_methods
#' @export
rbind.sde_passage <- function(..., deparse.level = 1) {
  parts <- sde_chunks(...)
  ranges <- attr(parts, "ranges")
  ap <- lapply(parts, function(p) attr(p, "at_passage"))
  keys <- unlist(lapply(parts, function(p) paste(p$condition, p$replica)))
  mb <- inherits(parts[[1]], "sde_mb_result")
  stripped <- lapply(parts, function(p) {
    attr(p, "at_passage") <- NULL
    if (!mb) attr(p, "state") <- NULL # (a single particle's: not combined, below)
    p
  })
  out <- do.call(rbind.sp_paths, stripped)
  out <- rbind_ranges_attrs(out, parts, ranges)
  if (all(!vapply(ap, is.null, TRUE))) {
    all_ap <- do.call(rbind, ap)
    all_ap <- all_ap[match(paste(out$condition, out$replica), keys), , drop = FALSE]
    rownames(all_ap) <- NULL
    attr(out, "at_passage") <- all_ap
  }
  if (inherits(parts[[1]], "sde_mb_result")) {
    out <- sde_mb_rbind_state(out, parts)
  } else { # (chunks of a single particle's passages are not continued)
    attr(out, "state") <- NULL
    attr(out, "sealed") <- NULL
  }
  out
}

#' @rdname sde_methods
#' @export
as.data.frame.sde_moments <- function(x, ...) sp_renamed_df(sde_plain_df(x), "sde_moments")

# The column `n` of earlier versions (now `replicas`): read with a warning.
#' @export
`$.sde_moments` <- function(x, name) {
  name <- sp_old_column(x, name, SP_OLD_COLUMNS$sde_moments, "sde_run()")
  NextMethod()
}

#' @export
`[[.sde_moments` <- function(x, i, ..., exact = TRUE) {
  if (missing(...)) i <- sp_old_column(x, i, SP_OLD_COLUMNS$sde_moments, "sde_run()")
  NextMethod()
}

#' @rdname sde_methods
#' @export
as.data.frame.sde_histogram <- function(x, ...) sde_plain_df(x)

#' @rdname sde_methods
#' @export
as.data.frame.sde_trajectories <- function(x, ...) sde_plain_df(x)

sde_print_head <- function(x, what) {
  cat(sprintf("<%s> model \"%s\": %s | %s, %s precision, dt = %s, t_max = %s\n", class(x)[1],
              attr(x, "model"), what, attr(x, "method"), attr(x, "precision"),
              format(attr(x, "dt")), format(attr(x, "t_max"))))
  if (!is.null(attr(x, "backend"))) {
    cat(sprintf("backend: %s [%s] | seed %s | %.3g s\n", attr(x, "backend"),
                paste(attr(x, "devices"), collapse = ", "), attr(x, "seed_hex"),
                attr(x, "seconds")))
  }
}

#' @rdname sde_methods
#' @export
print.sde_moments <- function(x, ...) {
  sde_print_head(x, sprintf("moments of %s at %d times, %s replicas",
                            paste(unique(x$variable), collapse = ", "),
                            length(unique(x$time)), fmt_count(attr(x, "replicas"))))
  d <- sde_plain_df(x)
  print(fmt_whole_cols(utils::head(d, 12)), digits = 4, row.names = FALSE)
  if (nrow(d) > 12) cat(sprintf("... %s more rows (as.data.frame() for all)\n",
                                fmt_count(nrow(d) - 12)))
  invisible(x)
}

#' @rdname sde_methods
#' @export
print.sde_histogram <- function(x, ...) {
  sde_print_head(x, sprintf("histograms of %s at %d times",
                            paste(unique(x$variable), collapse = ", "),
                            length(unique(x$time))))
  d <- sde_plain_df(x)
  print(fmt_whole_cols(utils::head(d, 12)), digits = 4, row.names = FALSE)
  if (nrow(d) > 12) cat(sprintf("... %s more rows\n", fmt_count(nrow(d) - 12)))
  invisible(x)
}

#' @rdname sde_methods
#' @export
print.sde_trajectories <- function(x, ...) {
  sde_print_head(x, sprintf("%s trajectories at %d times",
                            fmt_count(length(unique(paste(x$condition, x$replica)))),
                            length(unique(x$time))))
  d <- sde_plain_df(x)
  print(fmt_whole_cols(utils::head(d, 12)), digits = 4, row.names = FALSE)
  if (nrow(d) > 12) cat(sprintf("... %s more rows\n", fmt_count(nrow(d) - 12)))
  invisible(x)
}

#' @rdname sde_methods
#' @export
rbind.sde_moments <- function(..., deparse.level = 1) {
  parts <- sde_chunks(...)
  d <- do.call(rbind, lapply(parts, sde_plain_df))
  key <- paste(d$condition, d$time, d$variable, sep = "\r")
  ord <- unique(key)
  g <- match(key, ord)
  n <- mean <- m2 <- numeric(length(ord))
  for (i in seq_len(nrow(d))) { # pooled (Chan et al.), in the order of the chunks
    j <- g[i]
    nb <- d$replicas[i]
    if (!(nb > 0)) next
    nn <- n[j] + nb
    dl <- d$mean[i] - mean[j]
    mb2 <- if (nb > 1) d$sd[i]^2 * (nb - 1) else 0
    mean[j] <- mean[j] + dl * nb / nn
    m2[j] <- m2[j] + mb2 + dl^2 * n[j] * nb / nn
    n[j] <- nn
  }
  first <- !duplicated(key)
  out <- d[first, , drop = FALSE]
  out$replicas <- n
  out$mean <- mean
  out$sd <- ifelse(n > 1, sqrt(m2 / pmax(n - 1, 1)), NA_real_)
  out$se <- out$sd / sqrt(n)
  rownames(out) <- NULL
  out <- sde_keep_attrs(out, parts)
  if (inherits(parts[[1]], "sde_mb_result")) {
    out <- sde_mb_rbind_state(out, parts)
  } else { # (chunks of a single particle's passages are not continued)
    attr(out, "state") <- NULL
    attr(out, "sealed") <- NULL
  }
  out
}

#' @rdname sde_methods
#' @export
rbind.sde_histogram <- function(..., deparse.level = 1) {
  parts <- sde_chunks(...)
  d <- do.call(rbind, lapply(parts, sde_plain_df))
  key <- paste(d$condition, d$time, d$variable, d$lo, sep = "\r")
  first <- !duplicated(key)
  cnt <- tapply(d$count, factor(key, levels = unique(key)), sum)
  out <- d[first, , drop = FALSE]
  out$count <- as.vector(cnt)
  rownames(out) <- NULL
  sde_keep_attrs(out, parts)
}

#' @rdname sde_methods
#' @export
rbind.sde_trajectories <- function(..., deparse.level = 1) {
  parts <- sde_chunks(...)
  d <- do.call(rbind, lapply(parts, sde_plain_df))
  if (anyDuplicated(paste(d$condition, fmt_count(d$replica), d$time))) {
    rbind_abort("the chunks overlap: some replicas appear twice (check `first_replica`).")
  }
  out <- d[order(d$condition, d$replica, d$time), , drop = FALSE]
  rownames(out) <- NULL
  sde_keep_attrs(out, parts)
}

#' @rdname sde_methods
#' @export
plot.sde_moments <- function(x, variable = NULL, ...) {
  vars <- unique(x$variable)
  if (!is.null(variable)) {
    bad <- setdiff(variable, vars)
    if (length(bad)) {
      sp_abort(sprintf("`variable` names `%s`, which the result does not hold (%s).", bad[1],
                       paste0("`", vars, "`", collapse = ", ")), call = sys.call())
    }
    vars <- variable
  }
  conds <- sort(unique(x$condition))
  cols <- if (length(conds) > 1) grDevices::hcl.colors(length(conds), "Dark 3") else "#1b6ca8"
  op <- graphics::par(mfrow = c(1, length(vars)))
  on.exit(graphics::par(op))
  for (v in vars) {
    d <- x[x$variable == v, , drop = FALSE]
    lo <- d$mean - d$sd
    hi <- d$mean + d$sd
    graphics::plot(NA, xlim = range(d$time), ylim = range(c(lo, hi), na.rm = TRUE),
                   xlab = "time t", ylab = v, main = sprintf("%s: mean +- sd", v), ...)
    for (i in seq_along(conds)) {
      e <- d[d$condition == conds[i], , drop = FALSE]
      ok <- is.finite(e$sd)
      if (any(ok)) {
        graphics::polygon(c(e$time[ok], rev(e$time[ok])),
                          c(e$mean[ok] - e$sd[ok], rev(e$mean[ok] + e$sd[ok])),
                          col = grDevices::adjustcolor(cols[i], 0.2), border = NA)
      }
      graphics::lines(e$time, e$mean, col = cols[i], lwd = 1.5)
    }
    conds_tab <- attr(x, "conditions")
    if (length(conds) > 1 && !is.null(conds_tab)) {
      lab <- vary_labels(conds_tab[setdiff(names(conds_tab), "condition")])$labels
      graphics::legend("topright", lab[conds], col = cols, lwd = 1.5, bty = "n", cex = 0.8)
    }
  }
  invisible(x)
}

#' @rdname sde_methods
#' @export
plot.sde_trajectories <- function(x, variable = NULL, ...) {
  skip <- c("condition", "replica", "time", attr(x, "swept") %||% character())
  vars <- setdiff(names(x), c(skip, names(attr(x, "conditions"))))
  if (!is.null(variable)) vars <- variable
  op <- graphics::par(mfrow = c(1, length(vars)))
  on.exit(graphics::par(op))
  ids <- unique(paste(x$condition, x$replica))
  cols <- grDevices::hcl.colors(max(2, length(ids)), "Dark 3")
  for (v in vars) {
    graphics::plot(NA, xlim = range(x$time), ylim = range(x[[v]], finite = TRUE),
                   xlab = "time t", ylab = v, main = v, ...)
    for (i in seq_along(ids)) {
      e <- x[paste(x$condition, x$replica) == ids[i], , drop = FALSE]
      graphics::lines(e$time, e[[v]], col = cols[i])
    }
  }
  invisible(x)
}
