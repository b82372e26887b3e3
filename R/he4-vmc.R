#' Variational Monte Carlo of liquid helium-4: Metropolis energy blocks
#'
#' Runs `replicas` independent Metropolis chains (the paper's "walkers") that sample
#' \eqn{|\psi|^2} for \eqn{N} helium-4 atoms in a cubic periodic box, with the
#' McMillan-Jastrow trial function \eqn{\psi = \exp(\sum_{i<j} u(r_{ij}))},
#' \eqn{u(r) = -\frac12 (b/r)^5} ([jastrow_mcmillan()]), and the Aziz HFD-B(HE)
#' potential ([aziz_potential()]), as the QL code of Lutsyshyn (2015)
#' does, and hands back the energy blocks of every walker for the
#' error analysis of [summary.vmc_blocks()] ([reblock()], [tau_int()],
#' [time_to_error()]).
#'
#' **Names.** The package's names (one vocabulary for every simulator, see
#' [statphysgpu]) beside the paper's: `n` is the number of atoms \eqn{N},
#' `density` \eqn{\rho}, `b` McMillan's \eqn{b}, `replicas` the walkers
#' (independent chains; the result's column `replica` numbers them),
#' `first_replica` the first walker of a chunk, `displacement` the rms
#' trial displacement of a Metropolis move (a distance, not a time step),
#' `init` the start (a previous result to continue). The old names
#' `n_atoms`, `walkers`, `step`, `start` and `first_walker` still work, with
#' a warning of class `statphysgpu_deprecated`.
#'
#' The box has side \eqn{L = (N/\rho)^{1/3}}; pair terms are cut at \eqn{L/2}
#' (minimum image). With `jastrow = "symmetrized"` the pair exponent is
#' \eqn{u(r) + u(L-r) - 2u(L/2)} inside \eqn{L/2}, so that it and its slope
#' vanish there and the two kinetic estimators agree in expectation; with
#' `"truncated"` it is cut at \eqn{L/2} as it is, and they do not.
#'
#' Walkers start from an fcc lattice when \eqn{N = 4k^3}; otherwise from the
#' smallest fcc lattice with at least \eqn{N} sites, with vacancies drawn from
#' the walker's own random stream. Then `equilibration` sweeps are run and not
#' recorded; with `displacement = "auto"` the displacement is tuned during
#' them, every 10 sweeps, towards the acceptance `acceptance` (30% by
#' default), and at most \eqn{L/2} (a dilute system that cannot reach it
#' stops there; each walker its own; the final displacements are in the
#' result). A sweep is \eqn{N} single-atom
#' trial moves, atoms in order, each a Gaussian displacement of rms
#' `displacement` per coordinate. Every
#' `measure_every` sweeps the local energy is measured; a block averages the
#' measurements of `block_sweeps` sweeps.
#'
#' Walker \eqn{w} (counting from `first_replica`) draws from Philox stream
#' \eqn{w - 1}, so its chain is the same whatever the number of threads or
#' chunks: walkers run elsewhere with their own `first_replica` combine with
#' [rbind()]. `init = x` continues the walkers of a previous result `x`
#' (positions, displacements and random-stream positions are kept in it), exactly as
#' one longer run would have: a long study runs as a chain of calls.
#'
#' @section Sweeps: `density` and `b` may be vectors: every combination
#'   (`density` varying fastest) is a condition, listed in `attr(x,
#'   "conditions")`, and each runs `replicas` walkers, all in one call (on
#'   the GPU one launch a round per device over the walkers of every
#'   condition, each finding its condition's pair parameters in a table on
#'   the device, so a sweep of small conditions fills the GPU). Each condition
#'   has its own box, \eqn{L = (N/\rho)^{1/3}}, and start lattice; walker
#'   \eqn{w} of condition \eqn{c} draws from Philox stream
#'   \eqn{(c-1)\,2^{40} + w - 1}, so condition 1 gives exactly the walkers of
#'   a call with its values alone, and a condition's chains depend only on
#'   the seed, its number and its values. The result's columns `condition`,
#'   `density` and `b` give each block's condition; `summary()` reports
#'   each condition (its rows start with `condition`, `density`, `b`),
#'   `plot()` and `autoplot()` draw one (`condition =`), `as.mcmc.list()`
#'   and `as_draws()` convert one (`condition =`, required for a sweep),
#'   g(r) is one table per condition (column `condition`), and the tail
#'   correction one value per condition.
#' @section Continuing: `init = x` continues every walker of every condition
#'   of `x` exactly (the conditions of `x` are used when `density` and `b`
#'   are not given); chunks of a sweep (`first_replica`) combine with
#'   [rbind()], and a combined result of consecutive walkers continues too.
#'   What a continuation reads of `x` (of `he4_vmc()` or of [he4_dmc()]) --
#'   its attributes `params`, `state` and `precision` -- is sealed when `x`
#'   is made (attribute `sealed`, a digest of each): a result in which any
#'   of them was changed afterwards, or that has no seal, is refused with an
#'   error of class `statphysgpu_modified_result` naming it.
#' @section Frozen walkers: When fewer than 1 per cent of the proposed
#'   moves are accepted (the mean of the blocks' `acceptance`, per
#'   condition) a warning of class `statphysgpu_frozen_walkers` says that
#'   the walkers are frozen, the result's attribute `frozen` (one flag per
#'   condition) is `TRUE`, and `print()` and `summary()` say so. An atom
#'   then moves less than once in a hundred sweeps: the blocks repeat the
#'   energy of the walkers' start (the lattice, or `init`) instead of
#'   sampling \eqn{|\psi|^2}, and their spread -- the standard error --
#'   means nothing (a displacement of \eqn{10^{12}} Å accepts no move at
#'   all). A tuned run accepts 30 per cent (`acceptance`); use
#'   `displacement = "auto"` or a smaller displacement. [he4_dmc()] does
#'   the same for its walkers' moves.
#' @section Interrupts: Ctrl-C stops the run after the sweeps in flight, with
#'   a warning; the blocks finished so far are returned, and the walkers'
#'   state is that after their last finished block, so `init =` the result
#'   continues each chain exactly.
#' @section Efficiency: The cost of an error is \eqn{t\sigma^2}: the time
#'   of a run times the squared standard error of \eqn{E/N} it gives (from
#'   the spread of the walkers' means). It depends on the displacement
#'   (through the acceptance) and on `measure_every`, hardly on the number
#'   of walkers once they fill the GPU. Measured at \eqn{N = 512} on an NVIDIA H200 (8448 walkers,
#'   400 sweeps after an equilibration, `bench/he4-step.R`), in s mK^2, with
#'   a statistical uncertainty of about 1.5 per cent each:
#'
#'   | acceptance | `measure_every = 1` | 2 | 4 |
#'   |---|---|---|---|
#'   | 0.45 | 1.02 | 0.94 | 1.17 |
#'   | 0.37 | 0.95 | 0.86 | 1.11 |
#'   | 0.30 | 0.92 | **0.82** | 1.02 |
#'   | 0.25 | 0.95 | 0.86 | 1.03 |
#'   | 0.21 | 1.02 | 0.87 | 1.03 |
#'
#'   A measurement costs about as much as a sweep's moves, and consecutive
#'   sweeps are strongly correlated, so measuring every second sweep is
#'   best; below about 0.3 the longer moves no longer make up for the
#'   rejected ones. At \eqn{N = 256} and 1024 (`measure_every = 2`) 0.3 is
#'   within the noise of the best as well, 9 and 6 per cent below 0.45. The
#'   equilibration (200 sweeps by default) is not counted here;
#'   for a short study count it, or continue equilibrated walkers (`init`).
#' @param n Number of atoms \eqn{N} (at least 2).
#' @param density Number density \eqn{\rho} in \eqn{\text{\AA}^{-3}}
#'   (vector allowed: one condition per value, see "Sweeps")
#'   (0.02186 is the experimental equilibrium density of the liquid), in
#'   \eqn{[10^{-4}, 0.1]}: from a dilute vapour (1/200 of the liquid's
#'   density; the saturated vapour at 4.2 K has 0.0025) to several times
#'   the density of the solid at melting (0.0287), beyond which a pair
#'   potential no longer describes helium.
#' @param b McMillan parameter in \eqn{\text{\AA}} (vector allowed: one
#'   condition per value, see "Sweeps").
#' @param replicas Number of walkers (independent chains) per condition, or `"auto"`: the
#'   number of CPU threads ([sp_threads()]) on the CPU, 16 per
#'   multiprocessor on the GPU.
#' @param blocks Blocks per walker.
#' @param block_sweeps Sweeps per block (a multiple of `measure_every`).
#' @param measure_every Sweeps between measurements.
#' @param equilibration Sweeps before the first block, not recorded.
#' @param displacement Rms displacement per coordinate of a trial move, in
#'   \eqn{\text{\AA}}, or `"auto"` (tuned during equilibration, starting from
#'   0.3 \eqn{\text{\AA}}; with `init`, the displacements of `init`).
#' @param jastrow `"symmetrized"` (default) or `"truncated"`.
#' @param init `NULL` (walkers start from a lattice) or a previous result
#'   of `he4_vmc()` whose walkers to continue
#'   (same `n`, `density`, `b`, `jastrow` and seed -- `density` and `b`
#'   default to those of `init`; its walkers, in every condition). Its
#'   state (attribute `state`) is checked as a whole before it is used:
#'   consecutive walker numbers, finite coordinates inside the box, no two
#'   atoms of a walker closer than \eqn{\min(0.01\,\text{\AA}, b/4)}
#'   (minimum image; the trial function gives such a pair a weight below
#'   \eqn{e^{-1000}}, so no chain reaches it, and coincident atoms have no
#'   finite energy), finite positive displacements, whole move and block
#'   counts. The state keeps a fingerprint of its coordinates (field
#'   `fingerprint`): a state that still matches it, as he4_vmc() or
#'   [rbind()] made it, skips the search for close atoms (the rest is
#'   checked as ever), and any change of a coordinate makes the search run.
#'   These checks come after the seal's (see Continuing), which refuses a
#'   result changed after its run, and one of an earlier version (it has no
#'   seal).
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#'   With `init`, the seed of `init`.
#' @param first_replica Number of the first walker of this call (chunks).
#' @param backend `"auto"`, `"cpu"` or `"gpu"` (see [sp_backends()]);
#'   `"auto"` takes the GPU from about \eqn{10^{10}} pair evaluations. On the
#'   GPU a walker is one thread block with its coordinates in shared memory
#'   (up to 4074 atoms in mixed precision, 2037 in double).
#' @param devices GPU ids, see [gpu_devices()].
#' @param precision `"mixed"` (coordinates and pair terms in single
#'   precision, every sum in double; on the GPU the pair terms use the
#'   hardware's approximate reciprocal, inverse square root and exponential,
#'   within 2 units in the last place) or `"double"` (on the GPU the CPU's
#'   chains to rounding); with `init`, the precision of `init` unless
#'   given. Option `statphysgpu.he4_variant` picks the GPU kernel variant (a
#'   suffix: `"_fast_u4_usum"` by default, which keeps each atom's sum of
#'   the Jastrow terms so that a trial move evaluates its new terms only
#'   (mixed precision, up to 2444 atoms: 20 bytes of shared memory an atom;
#'   beyond, and in double precision, the variant without it);
#'   `"_fast_u4"` evaluates the old and new terms of every move; `""` the
#'   exact-division kernels of earlier versions.  In double precision they
#'   give the CPU's chains; in mixed precision they differ in the roundings
#'   of ln psi' - ln psi, so a chain may part from another variant's where a
#'   decision falls within about 1e-6, with the same distribution.
#' @param pair_distribution Also accumulate the pair distribution
#'   \eqn{g(r)} over the recorded measurements (100 bins over \eqn{[0, L/2)}).
#' @param progress Show a progress bar.
#' @param acceptance The acceptance that `displacement = "auto"` tunes
#'   towards, in (0, 1) (unused with a numeric `displacement` and with
#'   `init`, whose walkers keep their displacements). The default, 0.3, gives
#'   the smallest error for a given time at \eqn{N = 512} on the GPU, where
#'   a rejected move costs about half an accepted one: 12 per cent less
#'   \eqn{t\sigma^2} than 0.45, the default of earlier versions, with
#'   `measure_every = 2`, and about 5 per cent less variance for the same
#'   sweeps on any engine (see "Efficiency").
#' @param n_atoms,walkers,step,start,first_walker Deprecated names of `n`,
#'   `replicas`, `displacement`, `init` and `first_replica` (they work,
#'   with a warning of class `statphysgpu_deprecated`).
#' @return An object of class `vmc_blocks`: a data frame with one row per
#'   finished (walker, block) and columns `replica` (the walker), `block`,
#'   `condition`, `density`, `b` (its condition and the condition's values), `energy`
#'   (\eqn{E/N} in K, Pandharipande-Bethe kinetic term), `potential`,
#'   `kinetic_pb`, `kinetic_jf` (Jackson-Feenberg) and `acceptance`; with
#'   attributes `params`, `conditions` (the grid of `density` and `b`),
#'   `tail_correction` (per atom and condition, in K: \eqn{2\pi\rho
#'   \int_{L/2}^\infty r^2 V(r)\,dr}, reported separately, never added),
#'   `seed`, `backend`, `devices`, `precision`, `seconds`, `interrupted`,
#'   `state` (the walkers, for `init`), `displacement` (final displacement
#'   per walker), `replicas`, `first_replica`, `init` (`"lattice"` or
#'   `"continued"`), `frozen` (per condition, `TRUE` when the walkers
#'   hardly moved: see Frozen walkers), `sealed` (see Continuing) and,
#'   with `pair_distribution = TRUE`, `pair_distribution`. The names of
#'   earlier versions are deprecated (they go in the next release) but still
#'   read: `x$walker` and `as.data.frame(x)$walker` give the column
#'   `replica` with a warning of class `statphysgpu_deprecated`, and the
#'   attributes `step` and `walkers` hold `displacement` and `replicas`.
#' @references Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU.
#'   *Computer Physics Communications* 187, 162-174.
#'   \doi{10.1016/j.cpc.2014.10.016}; arXiv:1312.1282 (the QL code for the
#'   variational Monte Carlo of liquid helium-4). McMillan, W. L. (1965) Ground state of liquid
#'   He4. *Physical Review* 138, A442-A451. Aziz, R. A., McCourt, F. R. W.
#'   and Wong, C. C. K. (1987) *Molecular Physics* 61, 1487-1511 \doi{10.1080/00268978700101941}.
#' @seealso [summary.vmc_blocks()], [reblock()], [aziz_potential()].
#' @examples
#' x <- he4_vmc(32, replicas = 2, blocks = 4, block_sweeps = 10,
#'              equilibration = 20, seed = 1, backend = "cpu")
#' x
#' summary(x)
#' # continue the same chains for four more blocks
#' y <- he4_vmc(32, blocks = 4, block_sweeps = 10, equilibration = 0,
#'              init = x, backend = "cpu")
#' # a sweep: two densities x two values of b, one call
#' s <- he4_vmc(32, density = c(0.02186, 0.024), b = c(3.0, 3.07), replicas = 1,
#'              blocks = 2, block_sweeps = 5, equilibration = 10, seed = 1,
#'              backend = "cpu")
#' attr(s, "conditions")
#' summary(s)[c("condition", "density", "b", "observable", "mean")]
#' @export
he4_vmc <- function(n = 512, density = 0.02186, b = 3.07, replicas = "auto",
                    blocks = 20, block_sweeps = 100, measure_every = 1,
                    equilibration = 200, displacement = "auto",
                    jastrow = c("symmetrized", "truncated"), init = NULL, seed = NULL,
                    first_replica = 1, backend = "auto", devices = NULL,
                    precision = c("mixed", "double"), pair_distribution = FALSE,
                    progress = interactive(), acceptance = 0.3, n_atoms, walkers, step,
                    start, first_walker) {
  call <- sys.call()
  sp_renamed_args(c(n_atoms = "n", walkers = "replicas", step = "displacement",
                    start = "init", first_walker = "first_replica"), "he4_vmc")
  n_atoms <- check_whole(n, "n", lo = 2, hi = 2^20, call = call)
  # a continuation reads only a result as he4_vmc() made it
  if (inherits(init, "vmc_blocks")) sp_check_seal(init, "he4_vmc()", call, VMC_SEALED)
  # a continuation runs the conditions of `init` unless they are given
  if (!is.null(init) && inherits(init, "vmc_blocks") && !is.null(vmc_params(init))) {
    if (missing(density)) density <- vmc_params(init)$density
    if (missing(b)) b <- vmc_params(init)$b
  }
  density <- check_positive(density, "density", call = call)
  for (d in density) he4_check_density(d, call)
  b <- check_positive(b, "b", call = call)
  # the grid of conditions: every (density, b), density varying fastest
  grid <- sim_grid(list(density = density, b = b), call)
  ncond <- nrow(grid)
  jastrow <- check_choice(jastrow, c("symmetrized", "truncated"), "jastrow", call = call)
  blocks <- check_whole(blocks, "blocks", lo = 1, hi = 2^31 - 1, call = call)
  block_sweeps <- check_whole(block_sweeps, "block_sweeps", lo = 1, hi = 2^40, call = call)
  measure_every <- check_whole(measure_every, "measure_every", lo = 1, hi = 2^40, call = call)
  equilibration <- check_whole(equilibration, "equilibration", lo = 0, hi = 2^40, call = call)
  pair_distribution <- check_flag(pair_distribution, "pair_distribution", call = call)
  acceptance <- check_range(acceptance, "acceptance", lo = 0, hi = 1, lo_open = TRUE,
                            hi_open = TRUE, len = 1, call = call)
  if (block_sweeps %% measure_every != 0) {
    sp_abort(sprintf(paste0(
      "`block_sweeps` (%s) must be a multiple of `measure_every` (%s), so that ",
      "every block averages the same number of measurements."),
      fmt_num(block_sweeps), fmt_num(measure_every)), call = call)
  }
  L <- (n_atoms / grid$density)^(1 / 3) # one box per condition
  if (min(L) / 2 <= HE4_CORE) {
    sp_abort(sprintf(paste0(
      "the box is too small: side L = (n / density)^(1/3) = %.4g A, and ",
      "the pair terms are cut at L/2 = %.4g A, inside the repulsive core of ",
      "the potential (V = 0 at %.4g A). Use more atoms or a lower density."),
      min(L), min(L) / 2, HE4_CORE), call = call)
  }
  prev <- NULL
  if (!is.null(init)) {
    prev <- vmc_check_start(init, n_atoms, density, b, jastrow, seed, replicas, grid, call)
    seed <- prev$seed
    # a continued chain keeps its precision unless the caller says otherwise
    if (missing(precision)) precision <- attr(init, "precision")
    walkers <- length(prev$walker) / ncond
    first_walker <- prev$walker[1]
  } else {
    walkers <- replicas
    first_walker <- first_replica
  }
  step <- displacement
  tune <- identical(step, "auto")
  if (!tune) step <- check_positive(step, "displacement", len = 1, call = call)
  # checked before the backend plan, whose work estimate multiplies by it
  if (!identical(walkers, "auto")) {
    walkers <- check_whole(walkers, "replicas", lo = 1, hi = 2^31 - 1, call = call)
  }
  # the backend first: walkers = "auto" depends on it.  Work in pair
  # evaluations; the GPU pays off from about 1e10.
  sweeps_total <- equilibration + blocks * block_sweeps
  plan <- resolve_backend(backend, devices,
                          work = n_atoms^2 * sweeps_total * ncond *
                            (if (identical(walkers, "auto")) sp_threads() else as.numeric(walkers)),
                          auto_threshold = 1e10, call = call)
  if (identical(walkers, "auto")) {
    walkers <- if (plan$backend == "gpu") {
      d <- gpu_devices(free = FALSE)
      # one warp per walker: 16 walkers per multiprocessor hide the
      # latency of the moves (bench/RESULTS.md, helium run 2), few enough
      # to keep equilibration cheap
      16 * sum(d$multiprocessors[match(plan$devices, d$id)])
    } else sp_threads()
  }
  walkers <- check_whole(walkers, "replicas", lo = 1, hi = 2^31 - 1, call = call)
  if (walkers * ncond > 2^31 - 1) {
    sp_abort(sprintf(paste0(
      "%s walkers in each of %s conditions make %s walkers, more than one call runs ",
      "(2^31 - 1); split the walkers with `first_replica` or the conditions."),
      fmt_count(walkers), fmt_count(ncond), fmt_count(walkers * ncond)), call = call)
  }
  if (plan$backend == "gpu") {
    prec <- check_precision(precision, c("mixed", "double"), call = call)
    shmem <- 3 * n_atoms * if (prec == "mixed") 4 else 8
    if (shmem > VMC_SHMEM_MAX) {
      sp_abort(sprintf(paste0(
        "on the GPU a walker keeps its coordinates in shared memory: %s atoms ",
        "need %s, more than the 48 KiB a kernel gets without opting in (at most ",
        "%s atoms in %s precision); use precision = \"mixed\", fewer atoms or ",
        "backend = \"cpu\"."), fmt_count(n_atoms), fmt_bytes(shmem),
        fmt_count(floor(VMC_SHMEM_MAX / (3 * if (prec == "mixed") 4 else 8))), prec),
        call = call)
    }
  }
  row_bytes <- 7 * 8 + (3 * 8 * n_atoms + if (pair_distribution) 800 else 0) / blocks
  fr <- sim_frame(call, n = walkers, first = first_walker, seed = seed,
                  backend = plan$backend, devices = if (plan$backend == "gpu") plan$devices,
                  precision = precision,
                  precisions = c("mixed", "double"), progress = progress,
                  groups = blocks * ncond, row_bytes = row_bytes)
  walker_ids <- fr$first - 1 + seq_len(fr$n)
  nw <- fr$n * ncond # walkers of the call, condition-major
  if (is.null(prev)) {
    # each condition's lattice in its box, from its walkers' streams
    coords <- .Call(C_sp_r_vmc_lattice, as.integer(n_atoms), as.double(L), fr$seed,
                    check_u64(fr$first - 1, "first_replica", call = call),
                    as.integer(fr$n))
    steps <- rep(if (tune) 0.3 else step, nw)
    moves <- rep(0, nw)
    blocks_before <- rep(0, nw)
  } else {
    coords <- prev$coords # a double array, checked (vmc_check_state())
    steps <- if (tune) prev$step else rep(step, nw)
    tune <- FALSE # a continued chain keeps its step
    moves <- prev$moves
    blocks_before <- prev$blocks
  }
  nbins <- if (pair_distribution) 100L else 0L
  form <- if (jastrow == "symmetrized") 2 else 1 # SP_HE4_JASTROW_* (he4_args.h)
  variant <- he4_kernel_variant(fr$precision, n_atoms)
  usum <- plan$backend == "gpu" &&
    "SP_VMC_USUM=1" %in% gpu_kernel_registry()$he4_vmc$variants[[variant]]$defines
  res <- sim_run(fr, "vmc",
                 conds = list(b = as.double(grid$b), L = as.double(L), form = rep(form, ncond)),
                 n = as.integer(n_atoms), nwalkers = fr$n,
                 walker0 = check_u64(fr$first - 1, "first_replica", call = call),
                 seed = fr$seed, equilibration = equilibration, blocks = blocks,
                 block_sweeps = block_sweeps, measure_every = measure_every, tune = tune,
                 target = acceptance,
                 single = fr$precision == "mixed", nbins = nbins, usum = as.integer(usum),
                 coords0 = coords,
                 step0 = as.double(steps), moves0 = as.double(moves),
                 kernel = "he4_vmc", variant = variant)
  cond_of <- rep(seq_len(ncond), each = fr$n)
  out <- vmc_blocks_frame(res, rep(walker_ids, ncond), cond_of, grid, blocks, blocks_before)
  attr(out, "params") <- list(n = n_atoms, density = density, b = b,
                              L = (n_atoms / density)^(1 / 3),
                              jastrow = jastrow, block_sweeps = block_sweeps,
                              measure_every = measure_every, equilibration = equilibration,
                              # the tuning's target; NA when not tuned (a
                              # numeric displacement, a continuation)
                              acceptance = if (tune) acceptance else NA_real_)
  attr(out, "conditions") <- grid
  attr(out, "tail_correction") <- he4_tail_correction(grid$density, L)
  attr(out, "state") <- list(replica = rep(walker_ids, ncond), condition = as.double(cond_of),
                             coords = res$coords, # 3 x n x walkers (src/models/vmc.c)
                             displacement = res$step, moves = res$moves,
                             blocks = blocks_before + res$done,
                             seed_hex = u64_to_hex(fr$seed),
                             fingerprint = vmc_fingerprint(res$coords, n_atoms, L, grid$b,
                                                           cond_of))
  attr(out, "displacement") <- res$step
  attr(out, "replicas") <- fr$n
  attr(out, "first_replica") <- fr$first
  attr(out, "init") <- if (is.null(prev)) "lattice" else "continued"
  if (pair_distribution) {
    h <- matrix(res$hist, nrow = nbins)
    nmeas <- res$done * block_sweeps / measure_every
    attr(out, "pair_distribution") <- vmc_pair_distributions(
      lapply(seq_len(ncond), function(c) rowSums(h[, cond_of == c, drop = FALSE])),
      grid, L, n_atoms, vapply(seq_len(ncond), function(c) sum(nmeas[cond_of == c]), 0))
  }
  # walkers that hardly move make no estimate (see Frozen walkers)
  frozen <- he4_acceptance(out$acceptance, out$condition, ncond)
  attr(out, "frozen") <- frozen$frozen
  nfin <- sum(res$done)
  out <- sim_result(out, fr, res, class = c("vmc_blocks", "data.frame"),
             unfinished = sprintf(paste0(
               "%s of %s blocks finished and are returned; each walker's state is ",
               "that after its last finished block, so `init = ` this result ",
               "continues every chain exactly"),
               fmt_count(nfin), fmt_count(nw * blocks)))
  he4_warn_frozen(frozen, paste0(
    "use a smaller `displacement` (\"auto\" tunes it towards `acceptance`)"), call)
  # sealed (what a continuation reads), and the attributes step and walkers
  # of earlier versions
  sp_old_attrs(sp_seal(out, VMC_SEALED))
}

# The fields of a he4_vmc() result that a continuation (of he4_vmc() or
# he4_dmc()) reads, sealed when the result is made (see sp_seal()): a result
# modified afterwards is refused.
VMC_SEALED <- c("params", "state", "precision")

# ---- frozen walkers (issue 48) --------------------------------------------------
#
# The mean acceptance below which he4_vmc() and he4_dmc() say that their
# walkers are frozen (see ?he4_vmc, Frozen walkers): below 1 per cent of
# the proposed moves accepted, a configuration changes less than once in a
# hundred proposals (VMC: an atom, once a sweep; DMC: a walker, all its
# atoms at once, once a generation). A block of the usual tens to hundreds
# of sweeps or generations then holds a few moves at most, or none: its
# energy is that of the walkers' start (the lattice, `init`) rather than a
# sample of the distribution, and the spread of such blocks, which the
# standard errors are made of, says nothing about the error (a displacement
# of 1e12 A accepts none: an energy with an error bar, and no sampling).
# Healthy runs are far above: VMC tunes to 0.3 (`acceptance`), and DMC
# should accept 0.9 or more (?he4_dmc, Time step: 0.97 to 0.84 at N = 32
# and dt = 0.0005 to 0.002); measured at N = 16, dt = 0.02 accepts 0.006
# to 0.03 of the moves and its E/N is already 1.5 K below that at dt =
# 0.005, dt = 0.05 accepts 1e-7 to 6e-4, and at N = 64 the issue's dt =
# 0.05 accepts 1e-17. The threshold is fixed, not scaled with the run's
# length: a long run of frozen walkers only repeats its start more often.
HE4_FROZEN_ACCEPTANCE <- 0.01

# The mean acceptance of the blocks of each of the conditions 1..ncond
# (`acc` the blocks' acceptance, `cond` their conditions): a data frame
# (condition, acceptance, frozen); a condition without blocks is not frozen.
he4_acceptance <- function(acc, cond, ncond) {
  m <- vapply(seq_len(ncond), function(c) {
    a <- acc[cond == c]
    if (length(a)) mean(a) else NA_real_
  }, 0)
  data.frame(condition = seq_len(ncond), acceptance = m,
             frozen = !is.na(m) & m < HE4_FROZEN_ACCEPTANCE)
}

# The warning (class statphysgpu_frozen_walkers) of a run whose walkers are
# frozen (he4_acceptance()'s table `tab`); `fix`: what to change.
he4_warn_frozen <- function(tab, fix, call) {
  f <- tab[tab$frozen, , drop = FALSE]
  if (!nrow(f)) return(invisible(FALSE))
  where <- if (nrow(tab) == 1) "" else sprintf(" (condition%s %s)", if (nrow(f) == 1) "" else "s",
                                               paste(f$condition, collapse = ", "))
  sp_warn(sprintf(paste0(
    "the walkers are frozen: %s of the proposed moves were accepted%s, below %s, so the ",
    "walkers hardly left their start; the energies are those of the start, not estimates, ",
    "and their standard errors mean nothing (the result's attribute `frozen` says so); %s."),
    paste(format(f$acceptance, digits = 2), collapse = ", "), where,
    format(HE4_FROZEN_ACCEPTANCE), fix), call = call, class = "statphysgpu_frozen_walkers")
  invisible(TRUE)
}

# The line print() and summary() show for frozen walkers (NULL when none
# are): `acc` the mean acceptance of each condition.
he4_frozen_line <- function(acc) {
  frozen <- !is.na(acc) & acc < HE4_FROZEN_ACCEPTANCE
  if (!any(frozen)) return(NULL)
  sprintf(paste0("FROZEN WALKERS: acceptance %s%s, below %s: the walkers hardly moved, so the ",
                 "energies are those of their start, not estimates, and se means nothing\n"),
          paste(format(acc[frozen], digits = 2), collapse = ", "),
          if (length(acc) > 1) sprintf(" (condition %s)", paste(which(frozen), collapse = ", "))
          else "", format(HE4_FROZEN_ACCEPTANCE))
}

# The he4_vmc kernel variant (R/gpu.R) for a precision and n atoms: the
# precision with the suffix of option statphysgpu.he4_variant (the fastest
# on an H100 or H200 in bench/RESULTS.md by default; "" the kernels before
# it); in double precision the longest variant that exists of the suffix
# with "_u4", "_lb32" or "_usum" parts dropped ("double_fast"), else
# "double".  A "_usum" variant needs 20 bytes of shared memory an atom:
# beyond the 48 KiB a kernel gets without opting in, the variant without
# "_usum" runs (the same distribution; 12 bytes an atom).
he4_kernel_variant <- function(precision, n = 2) {
  suffix <- sp_tuning("he4_variant")
  v <- paste0(precision, suffix)
  reg <- names(gpu_kernel_registry()$he4_vmc$variants)
  if (precision == "double") {
    if (!v %in% reg) v <- paste0("double", gsub("_u4|_lb32|_usum", "", suffix))
    if (!v %in% reg) v <- "double"
  } else if (grepl("_usum", v) && 20 * n > VMC_SHMEM_MAX) {
    v <- gsub("_usum", "", v)
  }
  v
}

# The dynamic shared memory a he4_vmc kernel gets without opting in: 48 KiB
# less 256 bytes of static shared memory for the sums.
VMC_SHMEM_MAX <- 48 * 1024 - 256

# Where the Aziz potential changes sign (A): pair cuts inside it are refused.
HE4_CORE <- 2.63692

VMC_COLUMNS <- c("energy", "potential", "kinetic_pb", "kinetic_jf", "acceptance")

# The blocks table: walker-major rows (walker, block) of the finished blocks;
# walkers `walker_ids` of conditions `cond_of` (one per walker of the call)
# of the grid `grid`, whose parameters are columns.
vmc_blocks_frame <- function(res, walker_ids, cond_of, grid, blocks, blocks_before) {
  nw <- length(walker_ids)
  # res$block: rows of 5 observables, walker-major, block; the rows kept
  w <- rep(seq_len(nw), each = blocks)
  k <- rep(seq_len(blocks), times = nw)
  keep <- k <= res$done[w]
  every <- all(keep)
  at <- 5L * (if (every) seq_along(w) else which(keep)) - 5L
  if (!every) {
    w <- w[keep]
    k <- k[keep]
  }
  c <- cond_of[w]
  cols <- list(replica = walker_ids[w], block = blocks_before[w] + k, condition = c,
               density = grid$density[c], b = grid$b[c])
  for (j in seq_along(VMC_COLUMNS)) cols[[VMC_COLUMNS[j]]] <- res$block[at + j]
  new_df(cols) # a call's frame has a few million cells at most: no data.frame() checks
}

# g(r) of one condition from its pair counts over `nmeas` measurements of
# all its walkers.
vmc_pair_distribution <- function(total, nbins, L, n, density, nmeas) {
  dr <- (L / 2) / nbins
  r <- (seq_len(nbins) - 0.5) * dr
  shell <- 4 / 3 * pi * ((r + dr / 2)^3 - (r - dr / 2)^3)
  # pairs per measurement in a shell for an ideal gas: (n / 2) density shell
  g <- if (nmeas > 0) total / (nmeas * (n / 2) * density * shell) else rep(NA_real_, nbins)
  data.frame(r = r, g = g, counts = total)
}

# g(r) of every condition of `grid` (boxes L), stacked, with the condition's
# number and parameters as columns: counts a list of the conditions' pair
# counts, nmeas their measurements.
vmc_pair_distributions <- function(counts, grid, L, n, nmeas) {
  out <- do.call(rbind, lapply(seq_along(counts), function(c) {
    g <- vmc_pair_distribution(counts[[c]], length(counts[[c]]), L[c], n, grid$density[c],
                               nmeas[c])
    cbind(condition = c, density = grid$density[c], b = grid$b[c], g)
  }))
  rownames(out) <- NULL
  out
}

vmc_check_start <- function(start, n_atoms, density, b, jastrow, seed, walkers, grid, call) {
  if (!inherits(start, "vmc_blocks") || is.null(attr(start, "state"))) {
    sp_abort(paste0("`init` must be NULL or a result of he4_vmc(), not ", describe(start), "."),
             call = call)
  }
  p <- vmc_params(start)
  same <- isTRUE(all.equal(p$n, n_atoms)) && isTRUE(all.equal(p$density, density)) &&
    isTRUE(all.equal(p$b, b)) && identical(p$jastrow, jastrow)
  if (!same) {
    vals <- function(x) paste(vapply(x, fmt_num, ""), collapse = ", ")
    sp_abort(sprintf(paste0(
      "`init` was run with n = %s, density = %s, b = %s, jastrow = \"%s\"; ",
      "continue it with the same values (here %s, %s, %s, \"%s\")."),
      fmt_num(p$n), vals(p$density), vals(p$b), p$jastrow,
      fmt_num(n_atoms), vals(density), vals(b), jastrow), call = call)
  }
  ncond <- nrow(grid)
  st <- vmc_check_state(attr(start, "state"), n_atoms, (n_atoms / grid$density)^(1 / 3),
                        grid$b, call)
  if (!is.null(seed) && !identical(resolve_seed(seed, call = call),
                                   resolve_seed(st$seed_hex, call = call))) {
    sp_abort("`seed` differs from the seed of `init`; leave it NULL to continue the chains.",
             call = call)
  }
  k <- length(st$walker) / ncond # walkers per condition
  if (!identical(walkers, "auto") && !isTRUE(walkers == k)) {
    sp_abort(sprintf("`init` holds %s walkers%s; leave `replicas = \"auto\"` to continue them.",
                     fmt_num(k), if (ncond > 1) " per condition" else ""), call = call)
  }
  # condition-major, each condition the same consecutive walkers (one chunk)
  ok <- k == floor(k) && k >= 1 &&
    identical(as.double(st$condition), as.double(rep(seq_len(ncond), each = k))) &&
    all(st$walker == rep(st$walker[1] - 1 + seq_len(k), ncond))
  if (!ok) {
    sp_abort(paste0("`init` must hold consecutive walkers (one chunk)",
                    if (ncond > 1) ", the same in every condition" else "",
                    "; continue each chunk on its own."), call = call)
  }
  list(seed = st$seed_hex, walker = st$walker, coords = st$coords, step = st$step,
       moves = st$moves, blocks = st$blocks)
}

# The parameters of a result (attribute `params`; `n_atoms` in earlier
# versions is `n`).
vmc_params <- function(x) {
  p <- attr(x, "params")
  if (!is.null(p) && !"n" %in% names(p)) names(p)[names(p) == "n_atoms"] <- "n"
  p
}

# A walkers' state with the field names of the vocabulary of issue 23
# (`replica`, `displacement`; `walker`, `step` in earlier versions).
vmc_state <- function(st) {
  if (!is.list(st)) return(st)
  old <- c(walker = "replica", step = "displacement")
  hit <- names(st) %in% names(old) & !(old[names(st)] %in% names(st))
  names(st)[hit] <- old[names(st)[hit]]
  st
}

# The density range of he4_vmc(), in atoms per cubic angstrom (see ?he4_vmc).
HE4_DENSITY_RANGE <- c(1e-4, 0.1)

he4_check_density <- function(density, call) {
  r <- HE4_DENSITY_RANGE
  if (density < r[1] || density > r[2]) {
    nm <- density >= 1 && density / 1000 >= r[1] && density / 1000 <= r[2]
    sp_abort(sprintf(paste0(
      "`density` must lie in [%s, %s] atoms per cubic angstrom (from a dilute ",
      "vapour, 1/200 of the liquid's 0.02186, to several times the density of ",
      "solid helium, 0.0287 at melting), not %s%s."), format(r[1]), format(r[2]),
      format(density),
      if (nm) sprintf("; was it given per cubic nanometre (%s A^-3)?", format(density / 1000))
      else ""), call = call)
  }
  invisible(density)
}

# The walkers' state of a result (attribute `state`), checked field by field
# as the engine reads it (src/models/vmc.c): every failure names `init`.  L
# and b: one per condition (the boxes and McMillan parameters of the grid);
# the state's field `condition` gives each walker's (1 when absent: results
# before sweeps).  A state of an earlier version (fields `walker`, `step`) is
# read too.
vmc_check_state <- function(st, n_atoms, L, b, call) {
  bad <- function(what) {
    sp_abort(sprintf(paste0(
      "`init` holds no usable walkers' state: %s. Continue from an unmodified ",
      "result of he4_vmc()."), what), call = call)
  }
  st <- vmc_state(st)
  fields <- c("replica", "coords", "displacement", "moves", "blocks", "seed_hex")
  if (!is.list(st) || !all(fields %in% names(st))) {
    bad(sprintf("attr(init, \"state\") must be a list with elements %s, not %s",
                paste0("`", fields, "`", collapse = ", "), describe(st)))
  }
  w <- st$replica
  if (!is.numeric(w) || length(w) < 1 || anyNA(w) || any(!is.finite(w)) ||
      any(w != floor(w)) || any(w < 1) || max(w) > 2^40) {
    bad(sprintf("its walker numbers must be whole numbers from 1 to 2^40, not %s",
                describe(w)))
  }
  nw <- length(w)
  cond <- st$condition %||% rep(1, nw)
  if (!is.numeric(cond) || length(cond) != nw || anyNA(cond) || any(!cond %in% seq_along(L))) {
    bad(sprintf("its walkers' conditions must be %d numbers among 1 to %d, not %s", nw,
                length(L), describe(cond)))
  }
  per_walker <- function(x, name, what, ok) {
    fine <- is.numeric(x) && length(x) == nw
    if (fine) {
      good <- !is.na(x) & is.finite(x)
      good[good] <- ok(x[good])
      fine <- all(good)
    }
    if (!fine) {
      bad(sprintf("its %s must be %d %s, one per walker, not %s", name, nw, what,
                  if (is.numeric(x) && length(x) == nw) describe(x[which(!good)[1]])
                  else describe(x)))
    }
    as.double(x)
  }
  step <- per_walker(st$displacement, "displacements", "finite positive numbers (in A)",
                     function(x) x > 0)
  moves <- per_walker(st$moves, "move counts", "whole numbers in [0, 2^53]",
                      function(x) x >= 0 & x <= 2^53 & x == floor(x))
  blocks <- per_walker(st$blocks, "block counts", "whole numbers >= 0",
                       function(x) x >= 0 & x == floor(x))
  seed_ok <- is.character(st$seed_hex) && length(st$seed_hex) == 1 &&
    !inherits(tryCatch(resolve_seed(st$seed_hex, call = call), error = function(e) e), "error")
  if (!seed_ok) bad(sprintf("its seed must be a hexadecimal seed, not %s", describe(st$seed_hex)))
  x <- st$coords
  if (!is.numeric(x) || length(x) != 3 * n_atoms * nw) {
    bad(sprintf(paste0("its coordinates must be 3 x n x walkers = 3 x %s x %d ",
                       "numbers, not %s"), fmt_count(n_atoms), nw, describe(x)))
  }
  # the state's own array when it is one (a copy of 3 n walkers doubles
  # only for another shape)
  if (!is.double(x) || !identical(dim(x), as.integer(c(3, n_atoms, nw))) ||
      !identical(names(attributes(x)), "dim")) {
    x <- array(as.double(x), c(3, n_atoms, nw))
  }
  # one pass in C per condition (linear time): the engine wraps coordinates
  # into [0, L) in its precision, so allow the rounding of L to single
  # precision; then the first walker with two atoms within d.  A state
  # whose fingerprint is the one he4_vmc() gave it with these boxes, b and
  # conditions is unchanged since the engine made it: no search.
  fp <- st$fingerprint
  unchanged <- is.character(fp) && length(fp) == 1 && nzchar(fp) &&
    identical(fp, vmc_fingerprint(x, n_atoms, L, b, cond))
  for (c in if (unchanged) NULL else unique(cond)) {
    idx <- which(cond == c)
    xc <- if (length(idx) == nw) x else x[, , idx, drop = FALSE]
    d <- min(0.01, b[c] / 4)
    chk <- vmc_check_coords(xc, L[c], L[c] * (1 + 2^-20), d)
    if (chk[1] > 0) {
      bad(sprintf("its coordinates must be finite and inside the box [0, %s] (A), not %s",
                  format(L[c], digits = 6), describe(xc[chk[1]])))
    }
    k <- chk[2]
    if (k > 0) {
      bad(sprintf(paste0("walker %s%s has two atoms closer than %s A (minimum image), ",
                         "which no chain reaches and which give no finite energy"),
                  fmt_num(w[idx[k]]),
                  if (length(L) > 1) sprintf(" of condition %s", fmt_num(c)) else "",
                  format(d)))
    }
  }
  list(walker = as.double(w), condition = as.double(cond), coords = x, step = step,
       moves = moves, blocks = blocks, seed_hex = st$seed_hex)
}

# The checks of the coordinates (3 x n x walkers doubles) in a box of side
# L, in C (sp_vmc_coords_outside(), sp_vmc_close_pair()): c(i, w), i the
# first coordinate that is not a number in [0, hi] (else 0), and then w the
# first walker with two atoms closer than d, minimum image (else 0).  Each
# walker's atoms are bucketed into slabs of x at least d wide and each atom
# compared with its slab and the next, so the check takes time linear in
# the atoms (2112 walkers of 512 atoms: 0.75 s by sorted neighbours in R
# before, a few milliseconds here).
vmc_check_coords <- function(coords, L, hi, d) {
  .Call(C_sp_r_vmc_check_coords, if (is.double(coords)) coords else as.double(coords),
        as.integer(dim(coords)[2]), as.double(L), as.double(hi), as.double(d))
}

# The fingerprint of a walkers' state (coordinates 3 x n x walkers, in C,
# sp_vmc_fingerprint()) with the boxes L and McMillan parameters b of its
# conditions and each walker's condition: 16 hexadecimal digits.  he4_vmc()
# keeps it in the state it hands back, and vmc_check_state() skips the
# close-pair search of a state whose fingerprint still matches (one pass
# over the coordinates instead of a search: a continuation's fixed cost,
# bench/he4-fixed.R).
vmc_fingerprint <- function(coords, n, L, b, cond) {
  .Call(C_sp_r_vmc_fingerprint, if (is.double(coords)) coords else as.double(coords),
        as.integer(n), as.double(c(n, length(L), L, b, cond)))
}

# The first walker with two atoms closer than d (coordinates in [0, L]), or 0.
vmc_close_pair <- function(coords, L, d) {
  as.integer(vmc_check_coords(coords, L, Inf, d)[2])
}
