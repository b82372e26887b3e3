# Methods for the results of he4_vmc() (class "vmc_blocks": one row per
# finished (walker, block), columns replica (the walker), block, condition,
# density, b, energy, potential, kinetic_pb, kinetic_jf, acceptance; results
# of versions before the vocabulary of issue 23 have `walker` for `replica`,
# those before sweeps no condition, density and b).  A result of several
# conditions (a sweep over density and b) is analysed condition by
# condition: vmc_condition_part() cuts out one as a one-condition result.

# The walker (replica) numbers of the rows.
vmc_replica_ids <- function(x) x[["replica"]] %||% x[["walker"]]

VMC_OBSERVABLES <- c("energy", "potential", "kinetic_pb", "kinetic_jf")

# Fewest blocks per walker for which summary() reports tau_int.
VMC_TAU_MIN_BLOCKS <- 8

VMC_LABELS <- c(energy = "E/N (K)", potential = "V/N (K)",
                kinetic_pb = "T/N, Pandharipande-Bethe (K)",
                kinetic_jf = "T/N, Jackson-Feenberg (K)", acceptance = "acceptance")

# The blocks of one column as chains: one numeric vector per walker, blocks
# in order (a named list, names the walker numbers).
vmc_chains <- function(x, column) {
  d <- vmc_df(x)
  d <- d[order(d$replica, d$block), , drop = FALSE]
  split(d[[column]], factor(d$replica, levels = unique(d$replica)))
}

# The chains that reblock() and tau_int() can analyse: at least
# BLOCKING_MIN_LEN finite values, not constant.
vmc_usable_chains <- function(chains) {
  ok <- vapply(chains, function(y) {
    length(y) >= BLOCKING_MIN_LEN && all(is.finite(y)) && any(y != y[1])
  }, TRUE)
  chains[ok]
}

# A key of each row's walker: its condition and number.
vmc_walker_keys <- function(x) vmc_condition_ids(x) * 2^41 + vmc_replica_ids(x)

# Blocks per walker, in words: "4" or "3 to 4".
vmc_blocks_per_walker <- function(x) {
  w <- vmc_walker_keys(x)
  k <- tabulate(match(w, unique(w)))
  if (length(k) == 0) return("0")
  if (min(k) == max(k)) fmt_count(k[1]) else
    sprintf("%s to %s", fmt_count(min(k)), fmt_count(max(k)))
}

vmc_header <- function(x) {
  p <- vmc_params(x)
  if (is.null(p)) return(NULL)
  if (length(p$density) * length(p$b) > 1) {
    return(sprintf(paste0("N = %s atoms of 4He, %d conditions: density %s A^-3 ",
                          "x McMillan b %s A, %s Jastrow"),
                   fmt_count(p$n), length(p$density) * length(p$b),
                   paste(format(p$density), collapse = ", "),
                   paste(format(p$b), collapse = ", "), p$jastrow))
  }
  sprintf(paste0("N = %s atoms of 4He at density %s A^-3 (box side L = %.4g A), ",
                 "McMillan b = %s A, %s Jastrow"),
          fmt_count(p$n), format(p$density), p$L, format(p$b), p$jastrow)
}

# The conditions of a result (attribute `conditions`: condition, density,
# b), one row from its parameters for results made before sweeps.
vmc_conditions <- function(x) {
  g <- attr(x, "conditions")
  if (!is.null(g)) return(g)
  p <- vmc_params(x)
  data.frame(condition = 1L, density = p$density %||% NA_real_, b = p$b %||% NA_real_)
}

# The condition of each row (1 for results made before sweeps).
vmc_condition_ids <- function(x) x[["condition"]] %||% rep(1L, nrow(x))

# Condition c of a result as a one-condition result: its rows, parameters,
# tail correction, walkers' state and g(r); the run time split evenly
# between the conditions (they do the same work).  A one-condition result
# is itself.
vmc_condition_part <- function(x, c) {
  g <- vmc_conditions(x)
  if (nrow(g) == 1) return(x)
  out <- vmc_df(x)[vmc_condition_ids(x) == c, , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(x)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(x, a)
  p <- vmc_params(x)
  p$density <- g$density[c]
  p$b <- g$b[c]
  p$L <- (p$n / p$density)^(1 / 3)
  attr(out, "params") <- p
  attr(out, "conditions") <- g[c, , drop = FALSE]
  attr(out, "tail_correction") <- attr(x, "tail_correction")[c]
  st <- vmc_state(attr(x, "state"))
  i <- which((st$condition %||% rep(1, length(st$replica))) == c)
  for (f in c("replica", "condition", "displacement", "moves", "blocks")) st[[f]] <- st[[f]][i]
  st$coords <- st$coords[, , i, drop = FALSE]
  attr(out, "state") <- st
  attr(out, "displacement") <- st$displacement
  attr(out, "replicas") <- as.double(length(i))
  attr(out, "seconds") <- attr(x, "seconds") / nrow(g)
  pd <- attr(x, "pair_distribution")
  if (!is.null(pd)) {
    pd <- pd[pd$condition == c, , drop = FALSE]
    rownames(pd) <- NULL
    attr(out, "pair_distribution") <- pd
  }
  class(out) <- class(x)
  out
}

# The mean acceptance of each condition's blocks, and whether its walkers
# are frozen (he4_acceptance(), see ?he4_vmc, Frozen walkers).
vmc_acceptance <- function(x) {
  he4_acceptance(x[["acceptance"]], vmc_condition_ids(x), nrow(vmc_conditions(x)))
}

# The condition a plot or a coda conversion shows: `condition` (a number
# among the result's conditions) as a one-condition result.
vmc_pick_condition <- function(x, condition, call) {
  g <- vmc_conditions(x)
  if (!is.numeric(condition) || length(condition) != 1 || is.na(condition) ||
      !condition %in% g$condition) {
    sp_abort(sprintf("`condition` must be one of the result's conditions (%s), not %s.",
                     paste(g$condition, collapse = ", "), describe(condition)), call = call)
  }
  vmc_condition_part(x, condition)
}

#' @rdname summary.vmc_blocks
#' @param x A result of [he4_vmc()] (`print()`), or its summary.
#' @param n Rows to show.
#' @export
print.vmc_blocks <- function(x, n = 6, ...) {
  p <- attr(x, "params")
  nw <- length(unique(vmc_walker_keys(x)))
  cli::cat_line(sprintf("<vmc_blocks> %s blocks: %s walker%s, %s block%s each",
                        fmt_count(nrow(x)), fmt_count(nw), if (nw == 1) "" else "s",
                        vmc_blocks_per_walker(x),
                        if (identical(vmc_blocks_per_walker(x), "1")) "" else "s"))
  h <- vmc_header(x)
  if (!is.null(h)) cat(h, "\n", sep = "")
  if (!is.null(p)) {
    cat(sprintf("blocks of %s sweeps, measured every %s | %s precision\n",
                fmt_count(p$block_sweeps), fmt_count(p$measure_every),
                attr(x, "precision") %||% "?"))
  }
  if (!is.null(attr(x, "backend"))) {
    cat(sprintf("backend: %s [%s] | seed %s | %.3g s\n",
                paste(attr(x, "backend"), collapse = " + "),
                paste(attr(x, "devices"), collapse = ", "), attr(x, "seed_hex") %||% "?",
                attr(x, "seconds") %||% NA_real_))
  }
  if (isTRUE(attr(x, "interrupted"))) {
    cat("interrupted: the finished blocks are returned; `init = ` continues every chain\n")
  }
  cat(he4_frozen_line(vmc_acceptance(x)$acceptance))
  if (nrow(x) > 0) print(fmt_whole_cols(utils::head(vmc_df(x), n)), digits = 5, ...)
  if (nrow(x) > n) cat(sprintf("... %s more rows\n", fmt_count(nrow(x) - n)))
  cat("Use summary() for means, reblocked errors and tau_int; plot() for traces and the reblocking curve.\n")
  invisible(x)
}

#' Summarise and print the energy blocks of a helium VMC run
#'
#' Means and standard errors of the energy per atom and its parts, with the
#' error analysis of correlated series: the block means of each walker form
#' one Markov chain, and the chains of the walkers are independent.
#'
#' **Several walkers.** Each walker's chain is reblocked on its own (a block
#' never straddles two walkers) and the walkers are combined level by level
#' as [reblock()] does: the mean is the mean of all blocks, and
#' \eqn{SE_k = \sqrt{\sum_j w_j^2 SE_{k,j}^2}} with \eqn{w_j} the walkers'
#' shares of the blocks. The standard error is \eqn{SE_k} at the optimal
#' level (`method = "optimal"`, see [blocking_se()]; its own error is
#' `se_error`), or Jonsson's automatic blocking per walker combined the
#' same way (`method = "jonsson"`; `se_error` is then `NA`). `tau_int` is
#' the integrated autocorrelation time of [tau_int()], in blocks, in
#' emcee's convention \eqn{\tau_{int} = 1 + 2\sum_{k\ge1}\rho(k)}
#' (\eqn{\tau_{int} = 1} for independent blocks; Lutsyshyn's (2015) \eqn{m_c}
#' is \eqn{(\tau_{int} - 1)/2}), from the walkers' autocorrelation
#' functions averaged. A value below 1 means anti-correlated blocks, or,
#' for nearly independent blocks, the estimate's own noise (about
#' \eqn{\sqrt{2(2M+1)/n}} for a window of \eqn{M} lags over \eqn{n}
#' blocks) and its small downward bias (each walker's blocks are centred on
#' their own mean): blocks as long as the correlation time give
#' \eqn{\tau_{int}} near 1, which is what blocks are made for.
#'
#' **Short runs.** Walkers with fewer than 4 blocks are left out of the
#' error analysis (not of the mean). When no blocking level meets the
#' optimal-block criterion, which needs at least about 8 blocks per walker
#' and more the more correlated they are, `se` is `NA` and the printout
#' gives the standard error of independent blocks (level 0), a lower bound;
#' `tau_int` is `NA` when the shortest of those walkers has fewer than 8
#' blocks, and unreliable (the printout says so) when the chains are
#' shorter than \eqn{50\tau_{int}}.
#'
#' **Tail correction and time to error.** The tail-corrected energy is the
#' mean energy plus the attribute `tail_correction` of the result (a
#' constant: same standard error). The time-to-error invariant
#' \eqn{t\sigma^2} ([time_to_error()]) is the run time (attribute
#' `seconds`, summed over [rbind()]-ed parts) times the square of the
#' energy's standard error in mK: the run time, on the same machine, that a
#' 1 mK error on \eqn{E/N} would take, in seconds.
#'
#' @param object A result of [he4_vmc()].
#' @param method `"optimal"` or `"jonsson"`, see [blocking_se()].
#' @param ... Unused (`summary()`); passed to [print.data.frame()] (`print()`).
#' @return A data frame of class `summary.vmc_blocks`, one row per
#'   observable (`energy`, `potential`, `kinetic_pb`, `kinetic_jf`, in K per
#'   atom) with columns `observable`, `mean`, `se`, `se_error`, `tau_int`
#'   and `n_blocks`; attributes `acceptance` (mean acceptance), `frozen`
#'   (`TRUE` when it is below 0.01: the walkers hardly moved, and the
#'   energies are not estimates; see [he4_vmc()], Frozen walkers), `tail_correction`,
#'   `energy_corrected` (mean energy plus tail correction), `seconds`,
#'   `time_to_error` (\eqn{t\sigma^2} of the energy in s mK\eqn{^2}),
#'   `se_blocks` (per observable, the standard error of independent blocks),
#'   `replicas` (walkers), `method` and `params`.
#' @seealso [he4_vmc()], [reblock()], [plot.vmc_blocks()].
#' @references
#' Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer
#'   Physics Communications* 187, 162-174. \doi{10.1016/j.cpc.2014.10.016}
#' @examples
#' x <- he4_vmc(32, replicas = 2, blocks = 16, block_sweeps = 10,
#'              equilibration = 20, backend = "cpu", seed = 1)
#' s <- summary(x)
#' s
#' attr(s, "energy_corrected")
#' @export
summary.vmc_blocks <- function(object, method = c("optimal", "jonsson"), ...) {
  call <- sys.call()
  method <- check_choice(method, c("optimal", "jonsson"), "method", call = call)
  g <- vmc_conditions(object)
  # each condition's summary, its condition and parameters as first columns
  parts <- lapply(seq_len(nrow(g)), function(c) {
    s <- vmc_summary1(vmc_condition_part(object, c), method)
    at <- attributes(s)
    k <- nrow(s)
    out <- new_df(c(list(condition = rep(g$condition[c], k), density = rep(g$density[c], k),
                         b = rep(g$b[c], k)), unclass(s)[names(s)]))
    extra <- setdiff(names(at), c("names", "row.names", "class"))
    attributes(out)[extra] <- at[extra]
    class(out) <- at$class
    out
  })
  if (length(parts) == 1) return(parts[[1]])
  out <- do.call(rbind, lapply(parts, function(s) as.data.frame(unclass(s))[names(s)]))
  rownames(out) <- NULL
  for (a in c("acceptance", "tail_correction", "energy_corrected", "seconds",
              "time_to_error")) {
    attr(out, a) <- vapply(parts, function(s) attr(s, a), 0)
  }
  attr(out, "frozen") <- vapply(parts, function(s) attr(s, "frozen"), TRUE)
  attr(out, "replicas") <- attr(parts[[1]], "replicas")
  attr(out, "method") <- method
  attr(out, "params") <- vmc_params(object)
  attr(out, "conditions") <- g
  attr(out, "devices") <- attr(object, "devices")
  attr(out, "parts") <- parts
  class(out) <- c("summary.vmc_blocks", "data.frame")
  out
}

# The summary of a one-condition result.
# One observable's row of a summary from its chains (one numeric vector of
# block means per independent chain: a VMC walker, a DMC population): the
# mean of all blocks, the reblocked standard error (blocking_se()), its
# error, tau_int and the number of blocks; se0 the level-0 error, short
# whether tau_int warned that the chains are short.
reblocked_row <- function(chains, obs, method) {
  all_values <- unlist(chains, use.names = FALSE)
  ok <- vmc_usable_chains(chains)
  se <- se_err <- tau <- NA_real_
  se0 <- NA_real_
  short <- FALSE
  if (length(ok)) {
    tab <- reblock_table(ok)
    se0 <- tab$se[1]
    b <- tryCatch(withCallingHandlers(
      blocking_se(ok, method = method),
      statphysgpu_blocking_warning = function(w) invokeRestart("muffleWarning"),
      message = function(m) invokeRestart("muffleMessage")),
      error = function(e) NA_real_)
    se <- as.numeric(b)
    se_err <- if (method == "optimal") attr(b, "se_error") %||% NA_real_ else NA_real_
    tt <- tryCatch(withCallingHandlers(
      tau_int(ok),
      statphysgpu_blocking_warning = function(w) {
        short <<- TRUE
        invokeRestart("muffleWarning")
      }), error = function(e) NA_real_)
    # a few blocks give no usable autocorrelation function
    tau <- if (min(lengths(ok)) >= VMC_TAU_MIN_BLOCKS) as.numeric(tt) else NA_real_
  }
  list(row = data.frame(observable = obs, mean = mean(all_values), se = se,
                        se_error = se_err, tau_int = tau,
                        n_blocks = length(all_values)),
       se0 = se0, short = short)
}

vmc_summary1 <- function(object, method) {
  rows <- lapply(VMC_OBSERVABLES, function(obs) {
    reblocked_row(vmc_chains(object, obs), obs, method)
  })
  out <- do.call(rbind, lapply(rows, `[[`, "row"))
  rownames(out) <- NULL
  tail <- attr(object, "tail_correction") %||% NA_real_
  secs <- attr(object, "seconds") %||% NA_real_
  se_e <- out$se[1]
  attr(out, "acceptance") <- if (nrow(object)) mean(object$acceptance) else NA_real_
  attr(out, "frozen") <- isTRUE(attr(out, "acceptance") < HE4_FROZEN_ACCEPTANCE)
  attr(out, "tail_correction") <- tail
  attr(out, "energy_corrected") <- out$mean[1] + tail
  attr(out, "seconds") <- secs
  attr(out, "time_to_error") <- if (is.finite(se_e) && se_e > 0 && is.finite(secs) && secs > 0)
    time_to_error(secs, 1000 * se_e) else NA_real_
  attr(out, "se_blocks") <- stats::setNames(vapply(rows, `[[`, 0, "se0"), VMC_OBSERVABLES)
  attr(out, "tau_short") <- VMC_OBSERVABLES[vapply(rows, `[[`, TRUE, "short")]
  attr(out, "replicas") <- as.double(length(unique(vmc_replica_ids(object))))
  attr(out, "method") <- method
  attr(out, "params") <- vmc_params(object)
  attr(out, "devices") <- attr(object, "devices")
  class(out) <- c("summary.vmc_blocks", "data.frame")
  out
}

#' @rdname summary.vmc_blocks
#' @param digits Significant digits to print.
#' @export
print.summary.vmc_blocks <- function(x, digits = 4, ...) {
  if (is.null(attr(x, "method"))) { # rows or columns of a summary: its attributes are gone
    print(as.data.frame(unclass(x)), digits = digits, row.names = FALSE)
    return(invisible(x))
  }
  parts <- attr(x, "parts")
  if (!is.null(parts)) { # several conditions: one after another
    cat(vmc_header(structure(list(), params = vmc_params(x))), "\n", sep = "")
    for (s in parts) {
      cat(sprintf("\n-- condition %s: density %s A^-3, b = %s A --\n", s$condition[1],
                  format(s$density[1]), format(s$b[1])))
      vmc_print_summary1(s, digits, legend = FALSE)
    }
    cat("\n")
    vmc_print_legend()
    return(invisible(x))
  }
  vmc_print_summary1(x, digits, legend = TRUE)
  invisible(x)
}

vmc_print_legend <- function() {
  cat(paste0(
    "se: one standard error of the mean; se_error: the standard error of se itself.\n",
    "tau_int: integrated autocorrelation time of the block means, in blocks, ",
    "1 + 2 sum_k rho(k)\n  (1 for independent blocks; below 1: anti-correlated ",
    "blocks, or independent ones seen through the\n  estimate's noise, which is ",
    "about sqrt(2 (2M + 1) / n) for a window of M lags over n blocks)\n"))
}

# The summary of one condition (the legend of the columns after its table
# when `legend`).
vmc_print_summary1 <- function(x, digits, legend) {
  p <- vmc_params(x)
  h <- vmc_header(structure(list(), params = p))
  nw <- attr(x, "replicas") %||% attr(x, "walkers")
  if (!is.null(h)) cat(h, "\n", sep = "")
  cat(sprintf(paste0("Per atom, in K: %s blocks from %s walker%s; standard errors by ",
                     "reblocking each walker's blocks and combining the walkers (%s level)\n"),
              fmt_count(x$n_blocks[1]), fmt_count(nw), if (nw == 1) "" else "s",
              if (attr(x, "method") == "optimal") "optimal" else "Jonsson's"))
  y <- as.data.frame(unclass(x))
  y <- y[setdiff(names(y), c("condition", "density", "b"))] # in the header
  print(y, digits = digits, row.names = FALSE)
  if (legend) vmc_print_legend()
  if (anyNA(x$se)) {
    miss <- x$observable[is.na(x$se)]
    cat(sprintf(paste0(
      "se is NA for %s: no blocking level meets the optimal-block criterion (too ",
      "few blocks per walker for their correlation); run more blocks. Independent ",
      "blocks would give %s (a lower bound).\n"),
      paste(miss, collapse = ", "),
      paste(format(attr(x, "se_blocks")[miss], digits = 2), collapse = ", ")))
  }
  if (length(attr(x, "tau_short")) && !all(is.na(x$tau_int))) {
    cat("tau_int is unreliable: the chains are shorter than 50 tau_int (emcee's criterion).\n")
  }
  cat(sprintf("Acceptance: %s\n", format(attr(x, "acceptance"), digits = 3)))
  cat(he4_frozen_line(attr(x, "acceptance")))
  se_e <- x$se[1]
  cat(sprintf("Energy with the tail correction (%s K): E/N = %s%s\n",
              format(attr(x, "tail_correction"), digits = digits),
              format(attr(x, "energy_corrected"), digits = 6),
              if (is.finite(se_e)) paste0(" +/- ", format(se_e, digits = 2),
                                          " K (1 standard error)") else " K"))
  tte <- attr(x, "time_to_error")
  if (is.finite(tte)) {
    cat(sprintf(paste0("Time to error: t sigma^2 = %s s mK^2 (%s s of run time; ",
                       "1 mK on E/N would take %s s on %s)\n"),
                format(tte, digits = 3), format(attr(x, "seconds"), digits = 3),
                format(tte, digits = 3), paste(attr(x, "devices") %||% "this machine",
                                               collapse = ", ")))
  }
  invisible(x)
}

#' Plot the blocks of a helium VMC run
#'
#' `which = "trace"` draws the block means of one observable against the
#' block number, one line per walker, with the overall mean; `"reblock"`
#' the reblocking curve of that observable (standard error of the mean
#' against blocking level, the walkers combined as in
#' [summary.vmc_blocks()], see [reblock()]; error bars of plus and minus
#' the standard error of each level's estimate, the optimal level marked); `"pair_distribution"` the pair distribution \eqn{g(r)} of a
#' run with `pair_distribution = TRUE`. Several values of `which` draw side
#' by side.
#'
#' @param x,object A result of [he4_vmc()].
#' @param which What to draw: one or more of `"trace"`, `"reblock"`,
#'   `"pair_distribution"` (`autoplot()`: one).
#' @param observable Column to draw: `"energy"`, `"potential"`,
#'   `"kinetic_pb"`, `"kinetic_jf"` or `"acceptance"`.
#' @param condition The condition to draw (a number of `attr(x,
#'   "conditions")`: a result of a sweep over `density` and `b` holds
#'   several); the first by default.
#' @param ... Passed to [plot()] (base graphics; with one `which`).
#' @return `plot()`: `x`, invisibly; `autoplot()`: a ggplot object.
#' @seealso [summary.vmc_blocks()], [plot.sp_reblock()].
#' @examples
#' x <- he4_vmc(32, replicas = 2, blocks = 16, block_sweeps = 5,
#'              equilibration = 20, backend = "cpu", seed = 1,
#'              pair_distribution = TRUE)
#' plot(x)
#' plot(x, which = "pair_distribution")
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   ggplot2::autoplot(x, which = "reblock")
#' }
#' @export
plot.vmc_blocks <- function(x, which = c("trace", "reblock"), observable = "energy",
                            condition = vmc_conditions(x)$condition[1], ...) {
  call <- sys.call()
  whole <- x
  x <- vmc_pick_condition(x, condition, call)
  which <- vmc_check_which(which, several = TRUE, call = call)
  observable <- check_choice(observable, c(VMC_OBSERVABLES, "acceptance"), "observable",
                             call = call)
  if (length(which) > 1) {
    old <- graphics::par(mfrow = c(1, length(which)))
    on.exit(graphics::par(old))
  }
  for (w in which) {
    switch(w,
      trace = vmc_plot_trace(x, observable, ...),
      reblock = {
        r <- reblock_table(vmc_reblock_chains(x, observable, call))
        plot.sp_reblock(r, ..., xlab = vmc_level_label(x),
                        ylab = sprintf("standard error of %s", VMC_LABELS[[observable]]))
        graphics::mtext(sprintf("%s, %s walker%s combined", VMC_LABELS[[observable]],
                                fmt_count(length(unique(vmc_replica_ids(x)))),
                                if (length(unique(vmc_replica_ids(x))) == 1) "" else "s"),
                        side = 3, line = 0.3, cex = 0.8)
      },
      pair_distribution = {
        g <- vmc_pair_data(x, call)
        graphics::plot(g$r, g$g, type = "l", lwd = 1.5, xlab = "r (angstrom)", ylab = "g(r)",
                       main = "Pair distribution", ...)
        graphics::abline(h = 1, lty = 3)
      })
  }
  invisible(whole)
}

# The x label of a reblocking curve: what a value of level 0 is.
vmc_level_label <- function(x) {
  p <- attr(x, "params")
  sprintf("blocking level k (means of 2^k blocks%s)",
          if (is.null(p)) "" else sprintf(" of %s sweeps", fmt_count(p$block_sweeps)))
}

vmc_check_which <- function(which, several, call) {
  choices <- c("trace", "reblock", "pair_distribution")
  if (!is.character(which) || length(which) == 0 || anyNA(which) ||
      !all(which %in% choices) || (!several && length(which) != 1)) {
    sp_abort(sprintf("`which` must be %s of %s, not %s.",
                     if (several) "one or more" else "one",
                     paste0('"', choices, '"', collapse = ", "), describe(which)),
             call = call)
  }
  unique(which)
}

vmc_reblock_chains <- function(x, observable, call) {
  ok <- vmc_usable_chains(vmc_chains(x, observable))
  if (length(ok) == 0) {
    sp_abort(sprintf(paste0(
      "the reblocking curve needs a walker with at least %d blocks (and not all ",
      "equal) of `%s`; this result has %s blocks per walker."), BLOCKING_MIN_LEN,
      observable, vmc_blocks_per_walker(x)), call = call)
  }
  ok
}

vmc_pair_data <- function(x, call) {
  g <- attr(x, "pair_distribution")
  if (is.null(g)) {
    sp_abort(paste0("this result has no pair distribution: run he4_vmc(..., ",
                    "pair_distribution = TRUE)."), call = call)
  }
  g
}

vmc_plot_trace <- function(x, observable, ...) {
  chains <- split(vmc_df(x), vmc_replica_ids(x))
  nw <- length(chains)
  cols <- if (nw <= 8) grDevices::hcl.colors(max(nw, 2), "Dark 3")[seq_len(nw)] else
    rep(grDevices::adjustcolor("grey30", 0.3), nw)
  p <- attr(x, "params")
  graphics::plot(NA, xlim = range(x$block), ylim = range(x[[observable]]),
                 xlab = if (is.null(p)) "block" else
                   sprintf("block (%s sweeps each)", fmt_count(p$block_sweeps)),
                 ylab = VMC_LABELS[[observable]],
                 main = sprintf("Block means, %s walker%s", fmt_count(nw),
                                if (nw == 1) "" else "s"), ...)
  for (i in seq_len(nw)) {
    d <- chains[[i]][order(chains[[i]]$block), , drop = FALSE]
    graphics::lines(d$block, d[[observable]], col = cols[i], type = "o", pch = 20,
                    cex = 0.5)
  }
  graphics::abline(h = mean(x[[observable]]), lty = 2)
  if (nw > 1 && nw <= 8) {
    graphics::legend("topright", legend = c(paste("walker", names(chains)), "mean of all"),
                     col = c(cols, "black"), lwd = 1, lty = c(rep(1, nw), 2), bty = "n",
                     cex = 0.7)
  } else {
    graphics::legend("topright", legend = "mean of all", lty = 2, bty = "n", cex = 0.7)
  }
}

#' @rdname plot.vmc_blocks
#' @exportS3Method ggplot2::autoplot
autoplot.vmc_blocks <- function(object, which = c("trace", "reblock", "pair_distribution"),
                                observable = "energy",
                                condition = vmc_conditions(object)$condition[1], ...) {
  call <- sys.call()
  object <- vmc_pick_condition(object, condition, call)
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  which <- vmc_check_which(which[1], several = FALSE, call = call)
  observable <- check_choice(observable, c(VMC_OBSERVABLES, "acceptance"), "observable",
                             call = call)
  if (which == "trace") {
    d <- vmc_df(object)
    d$value <- d[[observable]]
    nw <- length(unique(d$replica))
    d$walker <- factor(d$replica)
    g <- ggplot2::ggplot(d, ggplot2::aes(x = .data$block, y = .data$value,
                                         group = .data$walker)) +
      ggplot2::geom_hline(yintercept = mean(d$value), linetype = 2) +
      ggplot2::labs(x = "block", y = VMC_LABELS[[observable]])
    g <- if (nw <= 8) {
      g + ggplot2::geom_line(ggplot2::aes(colour = .data$walker))
    } else {
      g + ggplot2::geom_line(alpha = 0.3)
    }
    return(g)
  }
  if (which == "reblock") {
    r <- as.data.frame(unclass(reblock_table(vmc_reblock_chains(object, observable, call))))
    return(ggplot2::ggplot(r, ggplot2::aes(x = .data$level, y = .data$se)) +
      ggplot2::geom_pointrange(ggplot2::aes(ymin = .data$se - .data$se_error,
                                            ymax = .data$se + .data$se_error)) +
      ggplot2::geom_point(data = r[r$optimal, , drop = FALSE], colour = "red", size = 4,
                          shape = 21, stroke = 1.2) +
      ggplot2::labs(x = vmc_level_label(object),
                    y = sprintf("standard error of %s", VMC_LABELS[[observable]]),
                    caption = "bars: SE_k +/- its standard error; red: the optimal level"))
  }
  g <- vmc_pair_data(object, call)
  ggplot2::ggplot(g, ggplot2::aes(x = .data$r, y = .data$g)) +
    ggplot2::geom_hline(yintercept = 1, linetype = 3) +
    ggplot2::geom_line() +
    ggplot2::labs(x = "r (angstrom)", y = "g(r)")
}

#' @rdname rbind.vmc_blocks
#' @param x A result of [he4_vmc()].
#' @export
as.data.frame.vmc_blocks <- function(x, ...) sp_renamed_df(vmc_df(x), "vmc_blocks")

# The blocks as a plain data frame (as.data.frame() reads the old column
# name `walker` too, with a warning).
vmc_df <- function(x) {
  out <- as.data.frame(unclass(x)[names(x)], stringsAsFactors = FALSE)
  names(out)[names(out) == "walker"] <- "replica" # results of earlier versions
  rownames(out) <- NULL
  out
}

# The column `walker` of earlier versions (now `replica`): read with a warning.
#' @export
`$.vmc_blocks` <- function(x, name) {
  name <- sp_old_column(x, name, SP_OLD_COLUMNS$vmc_blocks, "he4_vmc()")
  NextMethod()
}

#' @export
`[[.vmc_blocks` <- function(x, i, ..., exact = TRUE) {
  if (missing(...)) i <- sp_old_column(x, i, SP_OLD_COLUMNS$vmc_blocks, "he4_vmc()")
  NextMethod()
}

#' Combine parts of one helium VMC study
#'
#' Results of [he4_vmc()] with the same seed, physics (`n`,
#' `density`, `b`, `jastrow`), `block_sweeps`, `measure_every` and
#' precision combine into one result: chunks of walkers run elsewhere
#' (`first_replica`), which give exactly the result of one call, and
#' continuations (`init = x`), whose blocks follow those of `x`. Rows are
#' ordered by walker (`replica`) and block; a (walker, block) present twice
#' is an error. Parts of other studies are refused with an error of class `statphysgpu_rbind_error` that names the setting that differs (walkers started
#' afresh must also share their `equilibration`).
#'
#' The walkers' state (attribute `state`, for `init =`) is, for each
#' walker, that of the part holding its latest block, in walker order; a
#' combined result continues with `init =` when its walkers are
#' consecutive (one chunk). `seconds` is the sum of the parts'; the
#' parameters are those of the first part (a continuation's
#' `equilibration`, usually 0, may differ); the pair distributions, when
#' every part has one, are added up.
#'
#' `as.data.frame()` drops the attributes: the blocks as a plain data
#' frame.
#'
#' @param ... Results of [he4_vmc()] (`rbind()`); unused (`as.data.frame()`).
#' @param deparse.level Unused.
#' @return `rbind()`: one `vmc_blocks` result; `as.data.frame()`: a data
#'   frame.
#' @examples
#' a <- he4_vmc(32, replicas = 2, blocks = 4, block_sweeps = 10,
#'              equilibration = 20, backend = "cpu", seed = 1)
#' b <- he4_vmc(32, replicas = 2, blocks = 4, block_sweeps = 10,
#'              equilibration = 20, backend = "cpu", seed = 1, first_replica = 3)
#' whole <- he4_vmc(32, replicas = 4, blocks = 4, block_sweeps = 10,
#'                  equilibration = 20, backend = "cpu", seed = 1)
#' all.equal(as.data.frame(rbind(a, b)), as.data.frame(whole))
#' # a continuation appends the following blocks
#' more <- he4_vmc(32, blocks = 4, block_sweeps = 10, equilibration = 0,
#'                 init = whole, backend = "cpu")
#' nrow(rbind(whole, more))
#' @export
rbind.vmc_blocks <- function(..., deparse.level = 1) {
  parts <- list(...)
  parts <- parts[!vapply(parts, is.null, TRUE)]
  bad <- !vapply(parts, function(p) inherits(p, "vmc_blocks") && !is.null(attr(p, "state")) &&
                   !is.null(attr(p, "params")), TRUE)
  if (any(bad)) {
    sp_abort(sprintf(paste0("rbind() of he4_vmc() results needs results of he4_vmc() ",
                            "with their attributes; argument %d is %s."),
                     which(bad)[1], describe_vmc_part(parts[[which(bad)[1]]])))
  }
  first <- parts[[1]]
  keys <- c("n", "density", "b", "L", "jastrow", "block_sweeps", "measure_every")
  lead <- paste0("parts of one study: the same seed, n, density, b, jastrow, block_sweeps, ",
                 "measure_every and precision, and the same equilibration and tuning ",
                 "(`acceptance`) for fresh starts ",
                 "(other walkers: `first_replica`; or a continuation, `init = `)")
  param <- function(k) function(p) vmc_params(p)[[k]]
  rbind_same(parts, "he4_vmc()", lead,
             c(list(seed = "seed_hex", precision = "precision"),
               stats::setNames(lapply(keys, param), keys)))
  # walkers started afresh (not continued) went through one equilibration,
  # its displacement tuned towards one acceptance (NA: not tuned, or a
  # result of a version before `acceptance`)
  fresh <- which(vapply(parts, function(p) identical(attr(p, "init"), "lattice"), TRUE))
  if (length(fresh) > 1) {
    for (k in c("equilibration", "acceptance")) {
      v <- vapply(parts[fresh], function(p) vmc_params(p)[[k]] %||% NA_real_, 0)
      bad <- which(!vapply(v, identical, TRUE, v[1]))
      if (length(bad)) {
        rbind_abort(sprintf(paste0(
          "rbind() of he4_vmc() results needs %s: argument %d differs from argument %d in ",
          "%s%s."), lead, fresh[bad[1]], fresh[1], k, rbind_show(v[bad[1]], v[1])))
      }
    }
  }
  df <- do.call(rbind, lapply(parts, function(p) {
    d <- vmc_df(p)
    d$condition <- vmc_condition_ids(p) # (results made before sweeps: 1)
    d
  }))
  dup <- duplicated(df[c("condition", "replica", "block")])
  if (any(dup)) {
    rbind_abort(sprintf(paste0(
      "the parts overlap: walker %s, block %s appears twice (chunks need disjoint ",
      "walkers, see `first_replica`; a continuation made with `init =` holds only ",
      "the blocks after those of its start)."),
      fmt_num(df$replica[dup][1]), fmt_num(df$block[dup][1])))
  }
  out <- df[order(df$condition, df$replica, df$block), , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(first)), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(first, a)
  # the state of every walker (condition, number) from the part that holds
  # its latest block
  st <- lapply(parts, function(p) {
    s <- vmc_state(attr(p, "state"))
    s$condition <- s$condition %||% rep(1, length(s$replica))
    s$key <- s$condition * 2^41 + s$replica
    s
  })
  keys <- sort(unique(unlist(lapply(st, `[[`, "key"))))
  pick <- lapply(keys, function(w) {
    best <- NULL
    for (i in seq_along(st)) {
      j <- match(w, st[[i]]$key)
      if (!is.na(j) && (is.null(best) || st[[i]]$blocks[j] > st[[best[1]]]$blocks[best[2]])) {
        best <- c(i, j)
      }
    }
    best
  })
  field <- function(f) vapply(pick, function(b) as.double(st[[b[1]]][[f]][b[2]]), 0)
  n <- vmc_params(first)$n
  state <- list(replica = field("replica"), condition = field("condition"),
                coords = array(unlist(lapply(pick, function(b) st[[b[1]]]$coords[, , b[2]])),
                               c(3, n, length(keys))),
                displacement = field("displacement"), moves = field("moves"),
                blocks = field("blocks"), seed_hex = st[[1]]$seed_hex)
  # a fingerprint (vmc_fingerprint()) only when every part's still matches:
  # the combined state is then made of states the engine made
  g <- vmc_conditions(first)
  Lc <- (n / g$density)^(1 / 3)
  same_fp <- function(s) {
    is.character(s$fingerprint) && length(s$fingerprint) == 1 &&
      identical(s$fingerprint, vmc_fingerprint(s$coords, n, Lc, g$b, s$condition))
  }
  if (all(vapply(st, same_fp, TRUE))) {
    state$fingerprint <- vmc_fingerprint(state$coords, n, Lc, g$b, state$condition)
  }
  attr(out, "state") <- state
  attr(out, "step") <- NULL # results of earlier versions
  attr(out, "displacement") <- state$displacement
  attr(out, "params") <- vmc_params(first)
  attr(out, "replicas") <- as.double(length(unique(state$replica)))
  attr(out, "first_replica") <- min(state$replica)
  attr(out, "seconds") <- rbind_seconds(parts)
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")), TRUE))
  for (a in c("backend", "devices")) {
    attr(out, a) <- unique(unlist(lapply(parts, function(p) attr(p, a))))
  }
  has_g <- vapply(parts, function(p) !is.null(attr(p, "pair_distribution")), TRUE)
  if (any(has_g)) {
    if (!all(has_g)) {
      sp_warn(paste0("only some parts have a pair distribution: the combined result ",
                     "has none."), class = "statphysgpu_vmc_warning")
      attr(out, "pair_distribution") <- NULL
    } else {
      # each condition's pair counts added up over the parts
      p <- vmc_params(first)
      g <- vmc_conditions(first)
      pd <- lapply(parts, function(q) {
        d <- attr(q, "pair_distribution")
        d$condition <- d$condition %||% rep(1, nrow(d))
        d
      })
      counts <- lapply(g$condition, function(c) {
        Reduce(`+`, lapply(pd, function(d) d$counts[d$condition == c]))
      })
      nmeas <- vapply(g$condition, function(c) sum(out$condition == c), 0) *
        p$block_sweeps / p$measure_every
      attr(out, "pair_distribution") <- vmc_pair_distributions(
        counts, g, (p$n / g$density)^(1 / 3), p$n, nmeas)
    }
  }
  attr(out, "frozen") <- vmc_acceptance(out)$frozen
  class(out) <- class(first)
  # a combination of unmodified parts is sealed (a part modified after its
  # run leaves it unsealed: refused by a continuation)
  sp_old_attrs(sp_reseal(out, parts, VMC_SEALED))
}

describe_vmc_part <- function(p) {
  if (inherits(p, "vmc_blocks")) return("a vmc_blocks result without its attributes (a subset?)")
  if (is.data.frame(p)) return("a data frame")
  describe(p)
}

#' Convert helium VMC blocks to posterior draws
#'
#' A `posterior::draws_array` with one chain per walker, its iterations the
#' blocks all walkers hold (as for [as.mcmc.list.vmc_blocks()]), its
#' variables the observables; for posterior's summaries and diagnostics
#' (`summarise_draws()`, `rhat()`, `ess_bulk()`, ...). A sweep is
#' converted one condition at a time (`condition` required, as for
#' [as.mcmc.list.vmc_blocks()]). The method is registered when posterior is
#' loaded.
#'
#' @inheritParams as.mcmc.list.vmc_blocks
#' @return A `posterior::draws_array`.
#' @examples
#' if (requireNamespace("posterior", quietly = TRUE)) {
#'   x <- he4_vmc(32, replicas = 2, blocks = 8, block_sweeps = 10,
#'                equilibration = 20, backend = "cpu", seed = 1)
#'   d <- posterior::as_draws(x)
#'   posterior::summarise_draws(d)
#' }
#' @exportS3Method posterior::as_draws
as_draws.vmc_blocks <- function(x, observables = c(VMC_OBSERVABLES, "acceptance"),
                                condition = NULL, ...) {
  call <- sys.call()
  if (!requireNamespace("posterior", quietly = TRUE)) {
    sp_abort("as_draws() needs the posterior package.", call = call)
  }
  a <- vmc_aligned_chains(x, observables, condition, "as_draws()", "posterior", call)
  iters <- a$hi - a$lo + 1
  arr <- array(unlist(a$chains, use.names = FALSE),
               dim = c(iters, length(observables), length(a$chains)))
  arr <- aperm(arr, c(1, 3, 2)) # iterations x chains x variables
  dimnames(arr) <- list(NULL, NULL, observables)
  posterior::as_draws_array(arr)
}
