# Methods for the results of he4_dmc() (class "dmc_blocks": one row per
# finished (population, block), columns replica (the population), block,
# energy, potential, kinetic, population, trial_energy, acceptance, weight),
# and the extrapolation of a set of runs to dt -> 0 and 1/P -> 0.

DMC_OBSERVABLES <- c("energy", "potential", "kinetic", "trial_energy", "population")

# The blocks of one column as chains, one per population.
dmc_chains <- function(x, column) {
  d <- as.data.frame(unclass(x))[c("replica", "block", column)]
  d <- d[order(d$replica, d$block), , drop = FALSE]
  split(d[[column]], factor(d$replica, levels = unique(d$replica)))
}

# The reweighted estimators (energy, potential, kinetic) are ratios
# (Umrigar, Nightingale and Runge 1993):
#   R = sum_g Pi_g sum_k W_k x_k / sum_g Pi_g sum_k W_k
# over every recorded generation g of every population, Pi_g the product of
# the trial energy's factors over the window.  A block holds its ratio x_b
# and its weight w_b (column `rw_weight`, the mean of Pi_g sum_k W_k over
# its generations), so R = sum_b w_b x_b / sum_b w_b; the plain mean of the
# blocks' ratios is not R -- Pi_g varies over the window (mostly longer
# than a block), and the plain mean undoes most of the reweighting.  Each
# population's Pi_g is relative to its own constant e_best (the state's):
# exp((e0 - e_best) rw_time) (column `rw_time`: the window's N sum tau)
# puts them on one scale e0, so that the populations are pooled into one
# ratio -- a ratio per population, then averaged, carries a bias of order
# the reweighting's correction over the population's number of independent
# windows (at N = 32, P = 24 some 0.06 K over 5 K^-1).  The chains returned
# are the pooled ratio's linearisation (the delta method),
#   y_b = R + w_b (x_b - R) / mean(w),
# whose mean is R exactly and whose reblocked error is the ratio's, the
# numerator and the denominator blocked together.  Results without the
# columns (before issue 52's second part), or with weights that are not
# finite and positive, give the plain chains.
dmc_ratio_chains <- function(x, column) {
  xs <- dmc_chains(x, column)
  w <- dmc_block_weights(x)
  if (is.null(w)) return(xs)
  ws <- split(w, factor(x$replica[order(x$replica, x$block)], levels = names(xs)))
  v <- unlist(xs, use.names = FALSE)
  if (!all(is.finite(v))) return(xs)
  R <- sum(w * v) / sum(w)
  mw <- mean(w)
  Map(function(v, w) R + w * (v - R) / mw, xs, ws)
}

# The blocks' reweighted weights on one scale, in the order of dmc_chains()
# (population, block); NULL where a result has none.
dmc_block_weights <- function(x) {
  if (!all(c("rw_weight", "rw_time") %in% names(x)) || !nrow(x)) return(NULL)
  d <- as.data.frame(unclass(x))[c("replica", "block", "rw_weight", "rw_time")]
  d <- d[order(d$replica, d$block), , drop = FALSE]
  st <- attr(x, "state")
  eb <- st$e_best[match(d$replica, st$population)]
  if (!length(eb) || any(!is.finite(eb)) || any(!is.finite(d$rw_weight)) ||
      any(!(d$rw_weight > 0)) || any(!is.finite(d$rw_time))) return(NULL)
  lw <- log(d$rw_weight) + (mean(unique(eb)) - eb) * d$rw_time
  exp(lw - max(lw))
}

# The observables that are reweighted (ratio estimators).
DMC_REWEIGHTED <- c("energy", "potential", "kinetic")

# A reweighted observable's summary row (issue 52): `lin` the reblocked row
# of the ratio's linearisation (dmc_ratio_chains()), `plain` that of the
# blocks' own ratios x_b, n_eff = (sum w)^2 / sum w^2 the blocks' effective
# number under their weights w_b (Kish).  The linearisation's error is the
# ratio's when the weights are tame, but it vanishes where one block's
# weight dominates (the ratio is then that block's x_b, and every y_b lies
# near it): at N = 256 on an H100, 0.0004 K where independent runs scatter
# by 0.01 K, with a negative tau_int.  The error of a weighted mean of
# blocks with the spread of the x_b is their reblocked error times
# sqrt(n / n_eff) (the weights' design effect); the row takes the larger
# of the two (equal weights: the same), the level-0 error likewise, and
# tau_int (in blocks) from the blocks' own series x_b, not from the
# linearisation (whose correlations are the weights' over the window).
dmc_ratio_row <- function(lin, plain, n_eff) {
  if (!is.finite(n_eff) || !(n_eff > 0)) return(lin)
  f <- sqrt(plain$row$n_blocks / n_eff)
  row <- lin$row
  k <- plain$row$se * f
  if (is.finite(row$se) && is.finite(k) && k > row$se) {
    row$se <- k
    row$se_error <- plain$row$se_error * f
  }
  row$tau_int <- plain$row$tau_int
  if (is.finite(plain$se0 * f) && !isTRUE(lin$se0 >= plain$se0 * f)) lin$se0 <- plain$se0 * f
  lin$row <- row
  lin
}

dmc_header <- function(x) {
  p <- attr(x, "params")
  sprintf(paste0("N = %s atoms of 4He at density %s A^-3 (L = %.4g A), McMillan b = %s A ",
                 "(%s) | dt = %s K^-1, target population %s, feedback %s | %s%s"),
          fmt_count(p$n), format(p$density), p$L, format(p$b), p$jastrow, format(p$dt),
          format(p$target_population), format(p$feedback),
          if (isTRUE(p$accept)) "accept/reject" else "no accept/reject",
          if (isTRUE(p$branching)) ", branching" else ", weights only")
}

#' @rdname summary.dmc_blocks
#' @param x A result of [he4_dmc()] (`print()`), or its summary.
#' @param n Rows to show.
#' @export
print.dmc_blocks <- function(x, n = 6, ...) {
  np <- length(unique(x$replica))
  cli::cat_line(sprintf("<dmc_blocks> %s blocks: %s population%s", fmt_count(nrow(x)),
                        fmt_count(np), if (np == 1) "" else "s"))
  cat(dmc_header(x), "\n", sep = "")
  cat(sprintf("backend: %s [%s] | seed %s | %.3g s\n", attr(x, "backend"),
              paste(attr(x, "devices"), collapse = ", "), attr(x, "seed_hex") %||% "?",
              attr(x, "seconds") %||% NA_real_))
  cat(he4_frozen_line(dmc_acceptance(x)))
  if (nrow(x) > 0) print(utils::head(as.data.frame(unclass(x)), n), digits = 6, ...)
  if (nrow(x) > n) cat(sprintf("... %s more rows\n", fmt_count(nrow(x) - n)))
  invisible(x)
}

# The mean acceptance of a result's blocks (NA without blocks).
dmc_acceptance <- function(x) if (nrow(x)) mean(x[["acceptance"]]) else NA_real_

#' @export
as.data.frame.dmc_blocks <- function(x, ...) {
  out <- as.data.frame(unclass(x)[names(x)])
  rownames(out) <- NULL
  out
}

#' Summarise the energy blocks of a helium DMC run
#'
#' Means and reblocked standard errors of the mixed estimates, as
#' [summary.vmc_blocks()] does for VMC: each population's block series is
#' one Markov chain (consecutive blocks of a population are correlated),
#' reblocked on its own, and the independent populations are combined
#' level by level ([reblock()], [blocking_se()]). The reweighted estimates
#' (`energy`, `potential`, `kinetic`) are ratios (see [he4_dmc()],
#' Estimator): their mean is the ratio over every block of every population
#' (blocks weighted by `rw_weight`, the populations' factors on one scale
#' through `rw_time` and their `e_best`), and their error the reblocked
#' error of the ratio's linearisation \eqn{R + w_b (x_b - R)/\bar w}, the
#' numerator and the denominator blocked together, or, where larger, the
#' reblocked error of the blocks' own \eqn{x_b} times \eqn{\sqrt{n /
#' n_{eff}}}, \eqn{n_{eff} = (\sum w_b)^2 / \sum w_b^2} the blocks'
#' effective number under their weights (attribute `n_eff`): where one
#' block's weight dominates, the linearisation's error vanishes while the
#' ratio is that block's value (issue 52: 0.0004 K at \eqn{N = 256} where
#' independent runs scatter by 0.01 K); their `tau_int` is that of the
#' blocks' \eqn{x_b} (results made before these columns: the plain block
#' means). The energy is the DMC
#' energy at this run's time step and population; the summary says so
#' (attribute `extrapolations`: none), and [he4_dmc_extrapolate()] removes
#' both biases from several runs.
#'
#' @param object A result of [he4_dmc()].
#' @param method `"optimal"` or `"jonsson"`, see [blocking_se()].
#' @param ... Unused (`summary()`); passed to [print.data.frame()] (`print()`).
#' @return A data frame of class `summary.dmc_blocks`, one row per
#'   observable (`energy`, `potential`, `kinetic` in K per atom, mixed
#'   estimates; `trial_energy`; `population`) with columns `observable`,
#'   `mean`, `se`, `se_error`, `tau_int`, `n_blocks`; attributes
#'   `tail_correction`, `energy_corrected`, `acceptance`, `frozen` (`TRUE`
#'   when the acceptance is below 0.01: the walkers hardly moved, and the
#'   energies are not estimates; see [he4_dmc()], Time step), `seconds`,
#'   `time_to_error` (\eqn{t\sigma^2} in s mK\eqn{^2}), `se_blocks`,
#'   `overflow` (walkers dropped at the capacity), `n_eff` (the blocks'
#'   effective number under their reweighted weights; `print()` says when it
#'   is below half the blocks), `effective_dt` (the
#'   walk's effective time step, `dt` times the accepted share of the
#'   squared diffusion over the populations' histories; see [he4_dmc()]),
#'   `extrapolations`, `params`.
#' @seealso [he4_dmc()], [he4_dmc_extrapolate()].
#' @export
summary.dmc_blocks <- function(object, method = c("optimal", "jonsson"), ...) {
  call <- sys.call()
  method <- check_choice(method, c("optimal", "jonsson"), "method", call = call)
  w <- dmc_block_weights(object)
  n_eff <- if (is.null(w)) NA_real_ else sum(w)^2 / sum(w^2)
  rows <- lapply(DMC_OBSERVABLES, function(obs) {
    if (!(obs %in% DMC_REWEIGHTED)) return(reblocked_row(dmc_chains(object, obs), obs, method))
    dmc_ratio_row(reblocked_row(dmc_ratio_chains(object, obs), obs, method),
                  reblocked_row(dmc_chains(object, obs), obs, method), n_eff)
  })
  out <- do.call(rbind, lapply(rows, `[[`, "row"))
  rownames(out) <- NULL
  tail <- attr(object, "tail_correction") %||% NA_real_
  secs <- attr(object, "seconds") %||% NA_real_
  se_e <- out$se[1]
  attr(out, "tail_correction") <- tail
  attr(out, "energy_corrected") <- out$mean[1] + tail
  attr(out, "acceptance") <- dmc_acceptance(object)
  attr(out, "frozen") <- isTRUE(attr(out, "acceptance") < HE4_FROZEN_ACCEPTANCE)
  attr(out, "seconds") <- secs
  attr(out, "time_to_error") <- if (is.finite(se_e) && se_e > 0 && is.finite(secs) && secs > 0)
    time_to_error(secs, 1000 * se_e) else NA_real_
  attr(out, "se_blocks") <- stats::setNames(vapply(rows, `[[`, 0, "se0"), DMC_OBSERVABLES)
  attr(out, "overflow") <- sum(attr(object, "state")$overflow %||% 0)
  attr(out, "n_eff") <- n_eff
  attr(out, "effective_dt") <- dmc_effective_dt(object)
  attr(out, "extrapolations") <- "none"
  attr(out, "params") <- attr(object, "params")
  attr(out, "populations") <- length(unique(object$replica))
  class(out) <- c("summary.dmc_blocks", "data.frame")
  out
}

#' @rdname summary.dmc_blocks
#' @param digits Significant digits to print.
#' @export
print.summary.dmc_blocks <- function(x, digits = 4, ...) {
  p <- attr(x, "params")
  if (!is.null(p)) cat(dmc_header(structure(list(), params = p)), "\n", sep = "")
  print(as.data.frame(unclass(x)), digits = digits, row.names = FALSE, ...)
  se <- x$se[1]
  if (!is.finite(se)) se <- attr(x, "se_blocks")[["energy"]]
  cat(sprintf(paste0("E/N = %.5g +- %.2g K (mixed estimator); with the tail correction ",
                     "%.4g K: %.5g K\n"), x$mean[1], se, attr(x, "tail_correction"),
              attr(x, "energy_corrected")))
  cat(sprintf("acceptance %.4f | effective dt %.4g | %d population(s) | t sigma^2 = %.3g s mK^2\n",
              attr(x, "acceptance"), attr(x, "effective_dt") %||% NA_real_,
              attr(x, "populations") %||% NA_integer_, attr(x, "time_to_error")))
  cat(he4_frozen_line(attr(x, "acceptance")))
  if (isTRUE(attr(x, "overflow") > 0)) {
    cat(sprintf("%s walkers were dropped at a population's capacity: the energy is biased\n",
                fmt_count(attr(x, "overflow"))))
  }
  ne <- attr(x, "n_eff")
  if (isTRUE(ne < x$n_blocks[1] / 2)) {
    cat(sprintf(paste0("the reweighted blocks' weights vary: the %s blocks count as %.3g ",
                       "(the errors are scaled up accordingly); a shorter `reweight_time`, more ",
                       "`populations` or a longer run\n"), fmt_count(x$n_blocks[1]), ne))
  }
  cat(sprintf(paste0("extrapolations: %s (the energy carries its time-step and ",
                     "population-control biases; see he4_dmc_extrapolate())\n"),
              paste(attr(x, "extrapolations"), collapse = ", ")))
  invisible(x)
}

# The effective time step of a result's walk: dt times the pooled accepted
# share of the squared diffusion of its populations (NA without the sums).
dmc_effective_dt <- function(x) {
  st <- attr(x, "state")
  dt <- attr(x, "params")$dt
  if (is.null(st$r2_proposed) || is.null(dt) || !(sum(st$r2_proposed) > 0)) return(NA_real_)
  dt * sum(st$r2_accepted) / sum(st$r2_proposed)
}

#' @export
rbind.dmc_blocks <- function(..., deparse.level = 1) {
  parts <- list(...)
  p1 <- attr(parts[[1]], "params")
  for (x in parts) {
    if (!inherits(x, "dmc_blocks")) sp_abort("rbind() combines results of he4_dmc() only.")
    p <- attr(x, "params")
    keys <- c("n", "density", "b", "jastrow", "dt", "target_population", "feedback", "accept",
              "branching", "effective_step", "feedback_time", "reweight_time", "guide",
              "energy_cut", "potential", "lj_epsilon", "lj_sigma")
    if (!identical(p[keys], p1[keys]) ||
        !identical(attr(x, "seed_hex"), attr(parts[[1]], "seed_hex"))) {
      sp_abort("rbind() combines chunks of one study: the same parameters and seed.")
    }
  }
  out <- do.call(rbind, lapply(parts, as.data.frame.dmc_blocks))
  o <- order(out$replica, out$block)
  if (anyDuplicated(out[c("replica", "block")])) {
    sp_abort("rbind(): the chunks share populations; give each its own first_population.")
  }
  out <- out[o, , drop = FALSE]
  rownames(out) <- NULL
  keep <- setdiff(names(attributes(parts[[1]])), c("names", "row.names", "class"))
  for (a in keep) attr(out, a) <- attr(parts[[1]], a)
  attr(out, "seconds") <- rbind_seconds(parts)
  sts <- lapply(parts, attr, "state")
  st <- sts[[1]]
  one <- c("seed_hex", "reweight") # the same in every chunk
  for (f in setdiff(names(st), one)) {
    st[[f]] <- do.call(c, lapply(sts, `[[`, f))
  }
  ord <- order(st$population)
  for (f in setdiff(names(st), one)) st[[f]] <- st[[f]][ord]
  attr(out, "state") <- st
  attr(out, "frozen") <- isTRUE(dmc_acceptance(out) < HE4_FROZEN_ACCEPTANCE)
  class(out) <- class(parts[[1]])
  # a combination of unmodified chunks is sealed (a chunk modified after its
  # run leaves it unsealed: refused by a continuation)
  sp_reseal(out, parts, DMC_SEALED)
}

#' Extrapolate helium DMC energies to zero time step and infinite population
#'
#' Fits the energies per atom of several [he4_dmc()] runs (the same system:
#' `n`, `density`, `b`) to
#' \deqn{E(dt, P) = E_0 + c_1\,dt + c_2\,dt^2 + d / P}
#' by weighted least squares (weights \eqn{1/SE^2} from
#' [summary.dmc_blocks()]), with the time-step terms that `dt_order` names:
#' `"1"` the linear term, `"2"` the quadratic one alone, `"1+2"` both. The
#' walk of [he4_dmc()] is first order in `dt` with and without the
#' accept/reject step (the step reduces the linear term, it does not remove
#' it: Umrigar, Nightingale and Runge 1993), so `"auto"` fits both terms when
#' the runs have at least three time steps and the linear one with two;
#' `"2"` suits energies whose linear term is known to vanish. Measured at
#' the equilibrium density (N = 64 and 108, `dt` = 0.00025-0.001, the
#' effective time step): the quadratic term alone leaves \eqn{\chi^2} of 16
#' on 2 degrees of freedom. The time-step terms are fitted when the runs have
#' enough time steps, the population term (\eqn{P} the target population)
#' when they have at least two populations. \eqn{E_0} is the extrapolated
#' energy; its standard error is that of the fit. A fit whose \eqn{\chi^2}
#' has a p-value below 0.001 warns: its model does not describe the runs,
#' and its error understates the uncertainty of \eqn{E_0}.
#'
#' The fit takes the runs as independent. A run that repeats another (the
#' same seed, settings, populations and blocks: the same random numbers,
#' hence the same walk and energy) is counted once, with a warning of class
#' `statphysgpu_duplicate_runs` (counted twice it would shrink the standard
#' error by \eqn{\sqrt 2} with no new information). `dt_order` other than
#' `"auto"` needs runs at two time steps or more (an error otherwise);
#' `"auto"` makes no time-step extrapolation from runs at one time step,
#' and says so (`extrapolations`).
#'
#' @param runs A list of results of [he4_dmc()].
#' @param dt_order `"auto"`, `"1"` (linear in dt; at least two time
#'   steps), `"2"` (quadratic alone; at least two) or `"1+2"` (both; at
#'   least three).
#' @param population Also extrapolate in \eqn{1/P} when the runs have
#'   several target populations.
#' @return An object of class `dmc_extrapolation`: a list with `energy`
#'   (\eqn{E_0}, K per atom), `se`, `energy_corrected` (with the tail
#'   correction), `tail_correction`, `coefficients`, `vcov`, `chisq`, `df`,
#'   `extrapolations` (what was done, in words) and `data` (one row per run:
#'   dt, population, energy, se). `summary()` and `print()` say which
#'   extrapolations were made.
#' @export
he4_dmc_extrapolate <- function(runs, dt_order = c("auto", "1", "2", "1+2"), population = TRUE) {
  call <- sys.call()
  if (inherits(runs, "dmc_blocks")) runs <- list(runs)
  if (!is.list(runs) || !length(runs) || !all(vapply(runs, inherits, TRUE, "dmc_blocks"))) {
    sp_abort("`runs` must be a list of he4_dmc() results.", call = call)
  }
  dt_order <- check_choice(as.character(dt_order), c("auto", "1", "2", "1+2"), "dt_order",
                           call = call)
  population <- check_flag(population, "population", call = call)
  ps <- lapply(runs, attr, "params")
  same <- vapply(ps, function(p) isTRUE(all.equal(c(p$n, p$density, p$b),
                                                  c(ps[[1]]$n, ps[[1]]$density, ps[[1]]$b))),
                 TRUE)
  if (!all(same)) sp_abort("the runs must share n, density and b.", call = call)
  runs <- dmc_distinct_runs(runs, call)
  d <- do.call(rbind, lapply(runs, function(x) {
    s <- summary(x)
    se <- s$se[1]
    if (!is.finite(se)) se <- attr(s, "se_blocks")[["energy"]]
    p <- attr(x, "params")
    data.frame(dt = p$dt, population = p$target_population, accept = isTRUE(p$accept),
               energy = s$mean[1], se = se)
  }))
  if (any(!is.finite(d$se) | d$se <= 0)) {
    sp_abort("every run needs a finite standard error of its energy (more blocks).",
             call = call)
  }
  ndt <- length(unique(d$dt))
  if (dt_order != "auto" && ndt < 2) {
    sp_abort(sprintf(paste0(
      "`dt_order = \"%s\"` extrapolates to dt -> 0, which needs runs at two time steps or ",
      "more; these have one (dt = %s). Add runs at other `dt`, or leave `dt_order` out ",
      "(\"auto\" makes no time-step extrapolation from one time step)."),
      dt_order, format(d$dt[1])), call = call)
  }
  if (dt_order == "auto") dt_order <- if (ndt >= 3) "1+2" else "1"
  if (dt_order == "1+2" && ndt < 3) {
    sp_abort(sprintf("`dt_order = \"1+2\"` needs runs at three time steps or more, not %d.", ndt),
             call = call)
  }
  X <- matrix(1, nrow(d), 1, dimnames = list(NULL, "E0"))
  what <- character()
  if (ndt >= 2) {
    if (dt_order %in% c("1", "1+2")) X <- cbind(X, dt = d$dt)
    if (dt_order %in% c("2", "1+2")) X <- cbind(X, dt2 = d$dt^2)
    what <- c(what, sprintf("time step (%s in dt)", switch(dt_order, "1" = "linear",
                                                           "2" = "quadratic",
                                                           "1+2" = "linear and quadratic")))
  }
  if (population && length(unique(d$population)) >= 2) {
    X <- cbind(X, inv_population = 1 / d$population)
    what <- c(what, "population (linear in 1/P)")
  }
  if (nrow(d) < ncol(X)) sp_abort("too few runs for the fit.", call = call)
  w <- 1 / d$se^2
  A <- crossprod(X, w * X)
  V <- solve(A)
  beta <- drop(V %*% crossprod(X, w * d$energy))
  res <- d$energy - drop(X %*% beta)
  tail <- attr(runs[[1]], "tail_correction")
  chisq <- sum(w * res^2)
  df <- nrow(d) - ncol(X)
  if (df > 0 && stats::pchisq(chisq, df, lower.tail = FALSE) < 0.001) {
    sp_warn(sprintf(paste0("the fit does not describe the runs: chi^2 = %.3g on %d degrees of ",
                           "freedom (p = %.2g); its standard error understates E0's uncertainty. ",
                           "Try another `dt_order`, or more time steps."),
                    chisq, df, stats::pchisq(chisq, df, lower.tail = FALSE)), call = call)
  }
  out <- list(energy = unname(beta[1]), se = sqrt(V[1, 1]),
              energy_corrected = unname(beta[1]) + tail, tail_correction = tail,
              coefficients = beta, vcov = V, chisq = chisq,
              df = df, extrapolations = if (length(what)) what else "none",
              data = d, params = ps[[1]][c("n", "density", "b", "jastrow")])
  class(out) <- "dmc_extrapolation"
  out
}

# The runs of he4_dmc_extrapolate(), each counted once: a run that repeats
# an earlier one (the same seed, settings, populations and blocks: the same
# random numbers, so the same walk and the same energy) is dropped, with a
# warning of class statphysgpu_duplicate_runs; counted twice, it would
# shrink the fit's standard error by sqrt(2) with no new information.
dmc_distinct_runs <- function(runs, call) {
  key <- vapply(runs, function(x) {
    d <- as.data.frame(unclass(x))
    sp_digest("run", list(seed = attr(x, "seed_hex"), params = attr(x, "params"),
                          populations = attr(x, "state")$population,
                          blocks = d[c("replica", "block")]))
  }, "")
  first <- match(key, key)
  dup <- which(first != seq_along(runs))
  if (!length(dup)) return(runs)
  pairs <- vapply(dup, function(i) sprintf("run %d repeats run %d", i, first[i]), "")
  sp_warn(sprintf(paste0(
    "%s (the same seed, settings, populations and blocks: the same random numbers, so the ",
    "same walk, not an independent run): each is counted once. For independent runs give ",
    "each its own `seed` (or `first_population`)."), paste(pairs, collapse = ", ")),
    call = call, class = "statphysgpu_duplicate_runs")
  runs[-dup]
}

#' @export
print.dmc_extrapolation <- function(x, ...) {
  p <- x$params
  cat(sprintf("DMC energy of N = %s 4He atoms at density %s A^-3, b = %s A, extrapolated\n",
              fmt_count(p$n), format(p$density), format(p$b)))
  cat(sprintf("extrapolations: %s\n", paste(x$extrapolations, collapse = "; ")))
  cat(sprintf("E0/N = %.5f +- %.5f K; with the tail correction %.4f K: %.5f K\n",
              x$energy, x$se, x$tail_correction, x$energy_corrected))
  cat(sprintf("chi^2 = %.3g on %d degrees of freedom\n", x$chisq, x$df))
  print(x$data, row.names = FALSE, digits = 6)
  invisible(x)
}

#' @export
summary.dmc_extrapolation <- function(object, ...) object

DMC_LABELS <- c(energy = "E/N, mixed (K)", potential = "V/N, mixed (K)",
                kinetic = "T/N, mixed (K)", trial_energy = "E_T/N (K)",
                population = "population", acceptance = "acceptance", weight = "total weight")

#' Plot the blocks of a helium DMC run
#'
#' `"trace"`: the block means of an observable, one line per population;
#' `"reblock"`: the standard error of its mean against the blocking level,
#' the populations combined as in [summary.dmc_blocks()] ([reblock()]).
#'
#' @param x A result of [he4_dmc()].
#' @param which `"trace"`, `"reblock"` or both.
#' @param observable A column of the result: `"energy"` (default),
#'   `"potential"`, `"kinetic"`, `"trial_energy"`, `"population"`,
#'   `"acceptance"` or `"weight"`.
#' @param ... Passed to [plot()].
#' @return `x`, invisibly.
#' @export
plot.dmc_blocks <- function(x, which = c("trace", "reblock"), observable = "energy", ...) {
  call <- sys.call()
  if (!is.character(which) || !length(which) || !all(which %in% c("trace", "reblock"))) {
    sp_abort(sprintf("`which` must be \"trace\" and/or \"reblock\", not %s.", describe(which)),
             call = call)
  }
  which <- unique(which)
  observable <- check_choice(observable, names(DMC_LABELS), "observable", call = call)
  if (length(which) > 1) {
    old <- graphics::par(mfrow = c(1, length(which)))
    on.exit(graphics::par(old))
  }
  chains <- dmc_chains(x, observable)
  p <- attr(x, "params")
  for (w in which) {
    if (w == "trace") {
      cols <- grDevices::hcl.colors(max(length(chains), 2), "Dark 3")
      graphics::plot(NA, xlim = range(x$block), ylim = range(x[[observable]]),
                     xlab = sprintf("block (%s generations of dt = %s K^-1)",
                                    fmt_count(p$block_steps), format(p$dt)),
                     ylab = DMC_LABELS[[observable]],
                     main = sprintf("Block means, %d population%s", length(chains),
                                    if (length(chains) == 1) "" else "s"), ...)
      blocks <- split(x$block, factor(x$replica, levels = names(chains)))
      for (i in seq_along(chains)) {
        o <- order(blocks[[i]])
        graphics::lines(blocks[[i]][o], chains[[i]][o], col = cols[i], type = "o", pch = 20,
                        cex = 0.5)
      }
      graphics::abline(h = mean(x[[observable]]), lty = 2)
    } else {
      ok <- vmc_usable_chains(chains)
      if (!length(ok)) {
        sp_abort(sprintf(paste0("the reblocking curve needs a population with at least %d ",
                                "blocks (not all equal) of `%s`."), BLOCKING_MIN_LEN,
                         observable), call = call)
      }
      plot.sp_reblock(reblock_table(ok), ...,
                      xlab = sprintf("blocking level (blocks of %s generations x 2^level)",
                                     fmt_count(p$block_steps)),
                      ylab = sprintf("standard error of %s", DMC_LABELS[[observable]]))
    }
  }
  invisible(x)
}
