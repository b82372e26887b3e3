# coda's chains of the helium Monte Carlo results (issue 51, item 5): one
# chain per walker (he4_vmc()) or population (he4_dmc()), its iterations
# the blocks, its variables the estimators only (never the bookkeeping
# columns replica, block, condition); a sweep is converted one condition
# at a time, named, never its first condition silently.  The methods are
# registered when coda is loaded (R's delayed registration); the chain
# assembly is shared with posterior's as_draws() (R/methods-vmc.R).

# The chains of the table `d` (columns replica, block and the observables),
# aligned over the blocks all of them hold: list(chains = one matrix per
# replica, blocks x observables, named by the replica; lo, hi).  `what`
# names the caller, `who` the package that needs aligned chains, `unit`
# what a chain is ("walker", "population").
sp_aligned_chains <- function(d, observables, allowed, what, who, unit, call) {
  if (!is.character(observables) || length(observables) == 0 ||
      !all(observables %in% allowed)) {
    sp_abort(sprintf("`observables` must be some of %s, not %s.",
                     paste0('"', allowed, '"', collapse = ", "), describe(observables)),
             call = call)
  }
  if (nrow(d) == 0) sp_abort("`x` has no finished blocks.", call = call)
  per <- split(d, d$replica)
  lo <- max(vapply(per, function(p) min(p$block), 0))
  hi <- min(vapply(per, function(p) max(p$block), 0))
  if (hi < lo) {
    sp_abort(sprintf("the %ss share no block numbers: %s needs chains over the same blocks.",
                     unit, who), call = call)
  }
  full <- vapply(per, function(p) all(lo:hi %in% p$block), TRUE)
  if (!all(full)) {
    sp_abort(sprintf("some %ss miss blocks between their first and last: cannot align them.",
                     unit), call = call)
  }
  if (any(vapply(per, function(p) min(p$block) < lo || max(p$block) > hi, TRUE))) {
    message(sprintf(paste0("%s: the %ss finished different blocks; kept ",
                           "blocks %s to %s, which all of them hold."), what, unit,
                    fmt_num(lo), fmt_num(hi)))
  }
  chains <- lapply(per, function(p) {
    p <- p[p$block >= lo & p$block <= hi, , drop = FALSE]
    p <- p[order(p$block), , drop = FALSE]
    m <- as.matrix(p[observables])
    rownames(m) <- NULL
    m
  })
  list(chains = chains, lo = lo, hi = hi)
}

# The one condition of `x` that a conversion (`what`) takes: `condition`
# when given, the only one when there is one; a sweep without `condition`
# is an error that names the argument and the conditions.
vmc_conversion_condition <- function(x, condition, what, call) {
  g <- vmc_conditions(x)
  if (is.null(condition)) {
    if (nrow(g) == 1) return(g$condition)
    sp_abort(sprintf(paste0(
      "`x` is a sweep of %d conditions (%s): %s converts one at a time; give `condition =` ",
      "one of them (see attr(x, \"conditions\"))."), nrow(g),
      paste(g$condition, collapse = ", "), what), call = call,
      class = "statphysgpu_condition_needed")
  }
  condition
}

# coda::mcmc() of one chain, its iterations the block numbers.
coda_chain <- function(m, lo, hi) coda::mcmc(m, start = lo, end = hi, thin = 1)

# One chain of a table `d` as coda::mcmc: the chain of `replica` (NULL: the
# only one there is).
coda_one_chain <- function(a, replica, unit, call) {
  ids <- names(a$chains)
  if (is.null(replica)) {
    if (length(ids) == 1) return(coda_chain(a$chains[[1]], a$lo, a$hi))
    sp_abort(sprintf(paste0(
      "`x` holds %d %ss, one chain each: use coda::as.mcmc.list(x) for all of them, or ",
      "give `replica =` (one of %s) for one."), length(ids), unit,
      paste(utils::head(ids, 10), collapse = ", ")), call = call)
  }
  if (!is.numeric(replica) || length(replica) != 1 || !as.character(replica) %in% ids) {
    sp_abort(sprintf("`replica` must be one of the %ss of `x` (%s), not %s.", unit,
                     paste(utils::head(ids, 10), collapse = ", "), describe(replica)),
             call = call)
  }
  coda_chain(a$chains[[as.character(replica)]], a$lo, a$hi)
}

coda_needed <- function(what, call) {
  if (!requireNamespace("coda", quietly = TRUE)) {
    sp_abort(sprintf("%s needs the coda package (install.packages(\"coda\")).", what),
             call = call)
  }
}

# The walkers' blocks of one condition of a he4_vmc() result as aligned
# chains (as.mcmc.list(), as.mcmc(), as_draws()).
vmc_aligned_chains <- function(x, observables, condition, what, who, call) {
  condition <- vmc_conversion_condition(x, condition, what, call)
  x <- vmc_pick_condition(x, condition, call)
  sp_aligned_chains(vmc_df(x), observables, c(VMC_OBSERVABLES, "acceptance"), what, who,
                    "walker", call)
}

# The populations' blocks of a he4_dmc() result as aligned chains.
dmc_aligned_chains <- function(x, observables, what, who, call) {
  d <- as.data.frame.dmc_blocks(x)
  sp_aligned_chains(d, observables, DMC_COLUMNS, what, who, "population", call)
}

#' Convert helium Monte Carlo blocks to coda chains
#'
#' `coda::as.mcmc.list()` gives one `coda::mcmc` chain per walker of a
#' [he4_vmc()] result, or per population of a [he4_dmc()] result, its
#' iterations the blocks (numbered as in the result, so a continuation
#' starts after its start's blocks), its variables the estimators only
#' (`observables`; never the bookkeeping columns `replica`, `block`,
#' `condition`); for coda's diagnostics (`gelman.diag()`,
#' `effectiveSize()`, ...). `coda::as.mcmc()` gives the one chain of a
#' result with one walker (population), or of `replica`; with several it is
#' an error that points to `as.mcmc.list()`. coda needs chains of equal
#' length: when the walkers finished different numbers of blocks (an
#' interrupted run), only the blocks all of them hold are kept, with a
#' message. The methods are registered when coda is loaded.
#'
#' A sweep of [he4_vmc()] (several densities or `b`) is converted one
#' condition at a time: `condition` is then required (an error of class
#' `statphysgpu_condition_needed` lists the conditions; earlier versions
#' converted the first condition silently).
#'
#' @param x A result of [he4_vmc()] or [he4_dmc()].
#' @param observables Columns to include: for VMC some of `energy`,
#'   `potential`, `kinetic_pb`, `kinetic_jf`, `acceptance`; for DMC some of
#'   `energy`, `potential`, `kinetic`, `population`, `trial_energy`,
#'   `acceptance`, `weight`.
#' @param condition The condition whose walkers to convert (a number of
#'   `attr(x, "conditions")`); `NULL` (default): the only one, and an error
#'   for a sweep.
#' @param replica For `as.mcmc()`: the walker (VMC) or population (DMC)
#'   whose chain to return; `NULL`: the only one.
#' @param ... Unused.
#' @return `as.mcmc.list()`: a `coda::mcmc.list`, its chains named by the
#'   replica (walker or population); `as.mcmc()`: a `coda::mcmc`.
#' @examples
#' if (requireNamespace("coda", quietly = TRUE)) {
#'   x <- he4_vmc(32, replicas = 2, blocks = 8, block_sweeps = 10,
#'                equilibration = 20, backend = "cpu", seed = 1)
#'   m <- coda::as.mcmc.list(x)
#'   summary(m)
#'   coda::as.mcmc(x, replica = 1)
#' }
#' @name as.mcmc.list.vmc_blocks
#' @exportS3Method coda::as.mcmc.list
as.mcmc.list.vmc_blocks <- function(x, observables = c(VMC_OBSERVABLES, "acceptance"),
                                    condition = NULL, ...) {
  call <- sys.call()
  coda_needed("as.mcmc.list()", call)
  a <- vmc_aligned_chains(x, observables, condition, "as.mcmc.list()", "coda", call)
  coda::mcmc.list(lapply(a$chains, coda_chain, lo = a$lo, hi = a$hi))
}

#' @rdname as.mcmc.list.vmc_blocks
#' @exportS3Method coda::as.mcmc
as.mcmc.vmc_blocks <- function(x, observables = c(VMC_OBSERVABLES, "acceptance"),
                               condition = NULL, replica = NULL, ...) {
  call <- sys.call()
  coda_needed("as.mcmc()", call)
  a <- vmc_aligned_chains(x, observables, condition, "as.mcmc()", "coda", call)
  coda_one_chain(a, replica, "walker", call)
}

#' @rdname as.mcmc.list.vmc_blocks
#' @exportS3Method coda::as.mcmc.list
as.mcmc.list.dmc_blocks <- function(x, observables = DMC_OBSERVABLES, ...) {
  call <- sys.call()
  coda_needed("as.mcmc.list()", call)
  a <- dmc_aligned_chains(x, observables, "as.mcmc.list()", "coda", call)
  coda::mcmc.list(lapply(a$chains, coda_chain, lo = a$lo, hi = a$hi))
}

#' @rdname as.mcmc.list.vmc_blocks
#' @exportS3Method coda::as.mcmc
as.mcmc.dmc_blocks <- function(x, observables = DMC_OBSERVABLES, replica = NULL, ...) {
  call <- sys.call()
  coda_needed("as.mcmc()", call)
  a <- dmc_aligned_chains(x, observables, "as.mcmc()", "coda", call)
  coda_one_chain(a, replica, "population", call)
}
