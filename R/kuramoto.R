#' Noisy Kuramoto oscillators: order parameter and phases (Januszewski and Kostur 2010)
#'
#' Integrates \eqn{N} globally coupled noisy phase oscillators (Januszewski and Kostur 2010,
#' Eq. (2), the model of its PROG2 and PROG3),
#' \deqn{\gamma \dot x_i = \omega_i + \frac{K}{N} \sum_{j=1}^N A_{ij}
#'   \sin(x_j - x_i) + \sqrt{2\gamma T}\,\xi_i(t),}
#' with \eqn{A_{ij} = 1} unless `A` is given, by the stochastic Heun scheme
#' SRK2 (Algorithm 2 of the paper) or by Euler-Maruyama (`method =
#' "euler"`), for `replicas` independent systems per condition, the
#' conditions a grid of `K`, `beta` and `theta` (any of them a vector), all
#' in one launch.
#'
#' **Names.** The package's names (one vocabulary for every simulator, see
#' [statphysgpu]) beside the paper's symbols: `n` is \eqn{N}, `frequencies`
#' the natural frequencies \eqn{\omega_i}, `beta` the friction
#' \eqn{\gamma}, `theta` the temperature \eqn{T}, `init` the start phases
#' \eqn{x_i(0)}, `dt` the step; the phases \eqn{x_i} are returned as the
#' attribute `phases`. The old names `omega`, `gamma`, `T` and `theta0`
#' still work, with a warning of class `statphysgpu_deprecated`.
#'
#' **Methods.** SRK2 (the default) is \eqn{F_1 = F(x)}, \eqn{\tilde x = x +
#' F_1 dt + \sqrt{2 D dt}\, z}, \eqn{x' = x + (F_1 + F(\tilde x)) dt / 2 +
#' \sqrt{2 D dt}\, z} (\eqn{D = T / \gamma}, \eqn{F} the drift): second order
#' in the drift, two passes over a system per step. Euler-Maruyama is the
#' predictor alone, \eqn{x' = x + F(x) dt + \sqrt{2 D dt}\, z}: first order,
#' one pass per step (about half the time of an SRK2 step), with the same
#' normals \eqn{z} as SRK2 on the same seed (with \eqn{K = 0}, a constant
#' drift, both give the same numbers).
#'
#' **The 1/N convention.** The coupling is \eqn{K/N} times \eqn{A}: the
#' paper's \eqn{K_{ij}} is \eqn{K A_{ij} / N} here. With \eqn{A = 1} the
#' threshold of synchronisation does not depend on \eqn{N}: \eqn{K_c = 2
#' (w + T)} for Lorentzian frequencies of half width \eqn{w}
#' ([kuramoto_r_theory()]). Fig. 4 of Januszewski and Kostur (2010) ("\eqn{K_{ij} = 4}", after
#' Fig. 10 of Acebron et al.'s review, which uses \eqn{K/N}) is `K = 4`,
#' `frequencies = 0`, `theta = 1`.
#'
#' **Couplings.** `"mean_field"` uses \eqn{\sum_j \sin(x_j - x_i) = \cos x_i
#' S - \sin x_i C} with \eqn{S = \sum_j \sin x_j}, \eqn{C = \sum_j \cos
#' x_j} (Januszewski and Kostur 2010, Eq. (3)): an \eqn{O(N)} reduction per SRK2 stage
#' (PROG3). `"pairs"` sums the \eqn{N^2} terms \eqn{\sin(x_j - x_i)}
#' directly, tile by tile (PROG2); it gives the mean-field result to
#' rounding (it is the same sum) and is there as the paper's all-pairs
#' algorithm and benchmark. `"matrix"` uses `A`, a dense numeric matrix or
#' a sparse `Matrix` (`dgCMatrix` or any sparse class; converted to CSR),
#' through \eqn{\sum_j A_{ij} \sin(x_j - x_i) = \cos x_i (A s)_i - \sin x_i
#' (A c)_i} with \eqn{s_j = \sin x_j}, \eqn{c_j = \cos x_j}.
#'
#' **Sweeps.** `K`, `beta` and `theta` may each be a vector: the conditions
#' are every combination of their values, in [expand.grid()] order (`K`
#' varying fastest, then `beta`, then `theta`; at most \eqn{2^{24}}), all
#' run in one launch, `replicas` systems each. The records and the
#' attribute `systems` carry one column per parameter of the grid (`K`,
#' `beta`, `theta`) holding its value, with the condition's number in
#' `condition`; the attribute `conditions` is the grid. A one-condition call
#' gives the numbers it gave before sweeps (condition 1 is stream 0).
#'
#' **Continuing.** `init = ` a previous result continues every system of
#' it (all its conditions and replicas) from its final phases (attribute
#' `phases`) at the step it reached (attribute `clock`: the chain's step
#' and time): the random numbers of a step depend on the chain's step, so
#' a run of \eqn{a} steps continued by \eqn{b} steps gives exactly (on
#' the CPU bit for bit; on the GPU to the rounding of the sums) the final
#' phases of one run of \eqn{a + b} steps and its records after step
#' \eqn{a} -- the records stay on the chain's grid (the multiples of
#' `record_every` counted from the first run's start), and the
#' continuation's first record is the first after its start (a short
#' continuation may have none). Steps and times go on from the run's. The
#' parameters, `frequencies`, `coupling`, `method`, `precision` and `seed`
#' are the run's: those given must be equal to them (`A`, which a result
#' does not keep, must be given again and is checked against the sums the
#' result keeps); `replicas` and `first_replica` cannot be given;
#' `record_every` and `bins` are the run's unless given. The previous
#' result is checked (its attributes `params`, `systems`, `phases`,
#' `steps_done`, `clock`, `seed_hex`, `precision`), and these are sealed when
#' it is made (attribute `sealed`, a digest of each): a result in which any
#' of them was changed afterwards, or that has no seal, is refused with an
#' error of class `statphysgpu_modified_result` naming it. An interrupted run continues from the step it
#' reached.
#'
#' **Records.** At step 0 and every `record_every` steps, the order
#' parameter \eqn{r e^{i\psi} = N^{-1} \sum_j e^{i x_j}} of every system
#' (and, with `bins > 0`, a histogram of its phases on \eqn{[0, 2\pi)},
#' the density \eqn{P(x; t)} of the paper's Fig. 4).
#'
#' **Engine.** `kuramoto()` builds its model with [sde_model()] (the drift
#' through `mean()`, `pairs()` or the graph of `edges()`, one noise per
#' oscillator, the phases declared periodic in single precision) and runs
#' it on the many-body engine of [sde_run()], on the CPU or the GPU; the
#' model is compiled once (cached across sessions, about a second the
#' first time). The hand-written engine of earlier versions was removed
#' (issue 50): this engine was as fast or faster on the GPU (whole calls
#' 1.16-1.60 times its speed on an H100) and 3.8-4.8 times as fast on the
#' CPU. The random streams differ from those versions' (the start phases
#' in particular): the same laws, other paths for a given `seed`. The
#' option `statphysgpu.kuramoto_engine` that chose between the two is
#' ignored, with a warning.
#'
#' **Random numbers.** System (condition \eqn{c}, replica \eqn{r}) draws
#' from Philox stream \eqn{(c - 1) 2^{40} + r - 1}; oscillator \eqn{i} at
#' step \eqn{k} (0-based, counted from the start of the chain of continued
#' runs) uses one output of block \eqn{k \lceil N/4 \rceil +
#' \lfloor (i-1)/4 \rfloor} (four oscillators share a block; the many-body
#' engine's layout, `sp_streams.h`). The result
#' does not depend on threads, devices, chunks (`first_replica`) or the
#' backend (CPU and GPU agree to rounding in double precision: the sums are
#' added in another order). Without `init` the start phases are uniform
#' on \eqn{(-\pi, \pi)}, from the system's stream, drawn by the engine (on
#' the GPU by the device: the CPU's numbers to rounding).
#'
#' **Frequencies.** `frequencies` as one number is a parameter of the
#' model; [kuramoto_lorentz()] or [kuramoto_normal()] give the quantiles of
#' the law, passed to the engine as a frequency per oscillator, and none is
#' kept in the result (`params` holds the number, or the law in
#' `frequencies_dist`). A vector, or another function of \eqn{n}, is used
#' as given.
#'
#' **Precision.** In single precision the phases are kept reduced to
#' \eqn{[-\pi, \pi]} after each stage (Januszewski and Kostur 2010, section 5: the periodic
#' terms' arguments stay small) and the final phases are returned reduced;
#' in double precision they are not reduced. The order of the sums over
#' oscillators depends on `n` only, so a system gives the same result in
#' any chunk or launch on a given kind of GPU.
#'
#' **Coarse steps.** A warning (class `statphysgpu_coarse_dt`) is given
#' when \eqn{dt (|K| a + m) / \gamma > 0.5}, with \eqn{a} the largest row
#' sum of \eqn{|A|/N} (1 for all to all) and \eqn{m} the median of
#' \eqn{|\omega_i|} (the phase turned per step by the coupling and a typical
#' frequency, in radians; for a law, the median of \eqn{|\omega|} under the
#' law; for a vector of more than \eqn{2^{16}} values, the median of a
#' regular sample of \eqn{2^{16}} of them), or when the noise's rms step
#' \eqn{\sqrt{2 T dt / \gamma} > 0.5} rad.
#'
#' @section Interrupts: Ctrl-C stops the run after the steps in flight, with
#'   a warning of class `statphysgpu_interrupted`; the records up to the
#'   step reached and the phases at that step are returned (attribute
#'   `steps_done`). The engine takes Ctrl-C between its rounds, which are
#'   whole steps of every system: on the CPU a step of `coupling =
#'   "pairs"` at \eqn{n = 2 \times 10^5} (\eqn{4 \times 10^{10}} pair
#'   terms a stage) takes some 30-60 s on one thread (a call of one system
#'   shares its pair passes over the threads), so an interrupt may wait as
#'   long (the built-in engine of earlier versions split such a step into
#'   rounds).
#'   An \eqn{O(n^2)} coupling (`"pairs"`, a dense `A`) whose pair terms
#'   would take the CPU more than about 10 minutes (at some \eqn{10^9} a
#'   second a thread) is told up front with a warning of
#'   class `statphysgpu_cost_warning`.
#' @param n Number of oscillators \eqn{N} per system.
#' @param K Coupling strength \eqn{K} (vector allowed: a sweep).
#' @param frequencies Natural frequencies \eqn{\omega_i}: one number (all equal), a vector of
#'   length `n`, [kuramoto_lorentz()] or [kuramoto_normal()] (the result
#'   keeps the law), or another function of `n` returning a vector of length `n`.
#'   The same frequencies are used in every system.
#' @param beta Friction \eqn{\gamma > 0} of the paper (vector allowed: a
#'   sweep).
#' @param theta Temperature \eqn{T \ge 0} of the paper (noise intensity
#'   \eqn{D = T/\gamma}; vector allowed: a sweep).
#' @param dt Time step.
#' @param steps Number of steps (of this run; of the continuation when
#'   `init` is a previous run).
#' @param coupling `"mean_field"`, `"pairs"` or `"matrix"` (the default when
#'   `A` is given).
#' @param A Coupling matrix for `coupling = "matrix"`: an `n` x `n` numeric
#'   matrix, or a sparse matrix of the Matrix package.
#' @param replicas Independent systems per condition.
#' @param record_every Steps between records of \eqn{r} and \eqn{\psi} (a
#'   continuation: the run's unless given).
#' @param init Start phases: `NULL` (uniform), a vector of length `n`
#'   (every system) or an `n` x `replicas` matrix (replica by replica, for
#'   every condition); or a previous result of `kuramoto()`, which continues
#'   every system of that run (see Continuing; `n`, `K` and the other
#'   parameters are then the run's).
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#' @param first_replica Number of the first replica of this call (chunks
#'   combine with [rbind()]).
#' @param backend `"auto"`, `"cpu"` or `"gpu"` (see [sp_backends()]);
#'   `"auto"` takes the GPU from about \eqn{10^{10}} oscillator steps (pair
#'   terms for `"pairs"` and dense `"matrix"`).
#' @param devices GPU ids, see [gpu_devices()].
#' @param precision `"single"` or `"double"`.
#' @param progress Show a progress bar.
#' @param bins Bins of the phase histograms at record times (0: none).
#' @param method `"srk2"` (default) or `"euler"` (Euler-Maruyama).
#' @param omega,gamma,T,theta0 Deprecated names of `frequencies`, `beta`,
#'   `theta` and `init` (they work, with a warning of class
#'   `statphysgpu_deprecated`).
#' @return An object of class `kuramoto_run`: a data frame with one row per
#'   (condition, replica, record) and columns `condition`, `K`, `beta`,
#'   `theta`, `replica`, `step`, `time`, `r`, `psi` (`step` and `time`
#'   counted from the chain's start); attributes `phases` (the final phases,
#'   an `n` x systems matrix, systems in the order of the rows), `systems`
#'   (condition, K, beta, theta and replica of each column), `conditions`
#'   (the grid: condition, K, beta, theta), `hist` (with `bins > 0`: an
#'   array bins x records x systems of counts), `params` (the parameters
#'   `n`, `K`, `beta`, `theta` (the values of the grid), `dt`, `steps`,
#'   `step0` (the chain's step at this run's start, 0 unless continued), ...;
#'   `frequencies` is the frequencies as given, a number or a vector of
#'   length `n`, or `NULL` for [kuramoto_lorentz()] and [kuramoto_normal()],
#'   whose law is `frequencies_dist`), `dt`, `init` (`"uniform"`, `"given"`
#'   or `"continued"`), `replicas`, `first_replica`, `steps_done`, `clock`
#'   (list: `step`, the chain's step of the phases, and `t`, its time),
#'   `seed`, `backend`, `devices`, `precision`, `seconds`, `interrupted`.
#'   The attribute `theta`, the name of `phases` in earlier versions, is
#'   still set to the same matrix (deprecated: it goes in the next release;
#'   read `phases`, as `theta` is the temperature in the package's names).
#' @references Januszewski, M. and Kostur, M. (2010) Accelerating numerical
#'   solution of stochastic differential equations with CUDA. *Computer
#'   Physics Communications* 181, 183-188 \doi{10.1016/j.cpc.2009.09.009}; Acebron, J. A. et
#'   al. (2005) The Kuramoto model. *Reviews of Modern Physics* 77, 137 \doi{10.1103/RevModPhys.77.137}.
#' @seealso [summary.kuramoto_run()], [plot.kuramoto_run()],
#'   [kuramoto_r_theory()].
#' @examples
#' # Fig. 4's parameters on a small scale: identical oscillators, noise
#' x <- kuramoto(500, K = 4, theta = 1, dt = 0.01, steps = 1000, record_every = 10,
#'               seed = 1, backend = "cpu")
#' x
#' summary(x)
#' kuramoto_r_theory(4, theta = 1)
#' # a phase diagram in one call, Lorentzian frequencies at theta = 0
#' y <- kuramoto(400, K = c(0.5, 1.5, 3), frequencies = kuramoto_lorentz(0.5),
#'               dt = 0.05, steps = 400, record_every = 10, seed = 1,
#'               backend = "cpu")
#' summary(y)
#' # Euler-Maruyama: one pass a step, first order in dt
#' z <- kuramoto(500, K = 4, theta = 1, dt = 0.01, steps = 1000, record_every = 10,
#'               seed = 1, backend = "cpu", method = "euler")
#' summary(z)
#' # a sweep: every combination of K and theta, in one launch
#' s <- kuramoto(200, K = c(1, 3), theta = c(0.2, 1), dt = 0.05, steps = 400,
#'               record_every = 10, seed = 1, backend = "cpu")
#' summary(s)
#' # continuing: 400 steps, then 200 more, are one run of 600 steps
#' more <- kuramoto(init = s, steps = 200, backend = "cpu")
#' whole <- kuramoto(200, K = c(1, 3), theta = c(0.2, 1), dt = 0.05, steps = 600,
#'                   record_every = 10, seed = 1, backend = "cpu")
#' identical(attr(more, "phases"), attr(whole, "phases"))
#' @export
kuramoto <- function(n, K, frequencies = 0, beta = 1, theta = 0, dt, steps,
                     coupling = c("mean_field", "pairs", "matrix"), A = NULL,
                     replicas = 1, record_every = 1, init = NULL, seed = NULL,
                     first_replica = 1, backend = "auto", devices = NULL,
                     precision = c("single", "double"), progress = interactive(),
                     bins = 0, method = c("srk2", "euler"), omega, gamma, T, theta0) {
  call <- sys.call()
  sp_renamed_args(c(omega = "frequencies", gamma = "beta", T = "theta", theta0 = "init"),
                  "kuramoto")
  prev <- NULL
  if (inherits(init, "kuramoto_run")) {
    # a continuation: every system of the run goes on with the run's
    # parameters (those given must be the run's)
    env <- environment()
    given <- function(a) !eval(call("missing", as.name(a)), env)
    sp_check_seal(init, "kuramoto()", call, KURAMOTO_SEALED)
    prev <- kuramoto_check_run(init, call)
    kuramoto_continue_args(prev, env, given, call)
  }
  if (missing(n)) sp_abort("`n` (oscillators per system) must be given.", call = call)
  n <- check_whole(n, "n", lo = 1, hi = 2^31 - 2, call = call)
  if (missing(K)) sp_abort("`K` (the coupling strength) must be given.", call = call)
  K <- check_finite(K, "K", call = call)
  beta <- check_positive(beta, "beta", call = call)
  theta <- check_positive(theta, "theta", allow_zero = TRUE, call = call)
  # the conditions: every combination, K varying fastest (escape_times()'s order)
  grid <- sim_grid(list(K = as.double(K), beta = as.double(beta), theta = as.double(theta)),
                   call)
  if (missing(dt)) sp_abort("`dt` (the time step) must be given.", call = call)
  dt <- check_positive(dt, "dt", len = 1, call = call)
  if (missing(steps)) sp_abort("`steps` must be given.", call = call)
  steps <- check_whole(steps, "steps", lo = 1, hi = 2^52, call = call)
  step0 <- if (is.null(prev)) 0 else prev$step_end
  if (!is.null(A) && missing(coupling)) coupling <- "matrix"
  coupling <- check_choice(coupling, c("mean_field", "pairs", "matrix"), "coupling", call = call)
  method <- check_choice(method, c("srk2", "euler"), "method", call = call)
  replicas <- check_whole(replicas, "replicas", lo = 1, hi = 2^40, call = call)
  # a continuation's records stay on the grid of its chain, which may have
  # none in a short run
  record_every <- check_whole(record_every, "record_every", lo = 1,
                              hi = if (is.null(prev)) steps else 2^52, call = call)
  bins <- check_whole(bins, "bins", lo = 0, hi = 2^20, call = call)
  ng <- ceiling(n / 4)
  if ((step0 + steps) * ng >= 2^56) {
    sp_abort(sprintf(paste0("`steps` x ceil(n / 4) must stay below 2^56 (the random ",
                            "numbers of a system); %s x %s is more."),
                     fmt_num(step0 + steps), fmt_num(ng)), call = call)
  }
  ncond <- nrow(grid)
  recs <- kuramoto_records(step0, steps, record_every)
  nrec <- recs$nrec
  dense <- coupling == "pairs" || (coupling == "matrix" && !inherits(A, "sparseMatrix"))
  work <- ncond * replicas * steps * (if (dense) n^2 else n)
  plan <- resolve_backend(backend, devices, work = work, auto_threshold = 1e10, call = call)
  if (plan$backend == "cpu" && dense) {
    kuramoto_check_cost(n, ncond * replicas, steps, method, coupling, call)
  }
  rb <- if (identical(precision, "double")) 8 else 4
  # per system: records (r, psi and the data frame's 7 other columns), final
  # phases, histograms, the engine's arrays (states and stages, about 9 n
  # numbers; the memory is checked before any array of n is made)
  row_bytes <- 8 * (9 * nrec + n + bins * nrec) + 9 * 4 * ng * rb
  kuramoto_check_size(n, ncond, replicas, nrec, bins, row_bytes, call)
  fr <- sim_frame(call, n = replicas, first = first_replica, seed = seed,
                  backend = plan$backend, devices = if (plan$backend == "gpu") plan$devices,
                  precision = precision, precisions = c("single", "double"),
                  progress = progress, groups = ncond, row_bytes = row_bytes)
  om <- kuramoto_check_omega(frequencies, n, call)
  mat <- kuramoto_check_A(A, n, coupling, call)
  if (!is.null(prev)) kuramoto_check_same_A(prev, mat, call)
  kuramoto_check_dt(dt, grid, om$median_abs, mat$row_max, call, method)
  start <- if (is.null(prev)) kuramoto_start(init, fr, n, call) else
    list(kind = 3L, theta0 = prev$phases)
  # the declared many-body engine (R/kuramoto-declared.R): the model as an
  # sde_model(), run by sde_run()'s engine
  sp_tuning_retired("kuramoto_engine", call)
  res <- kuramoto_declared_run(fr, n, grid, list(K = K, beta = beta, theta = theta), om, A,
                               coupling, method, start, dt, step0, steps, record_every, bins,
                               recs, call)
  replica_ids <- fr$first - 1 + seq_len(fr$n)
  out <- kuramoto_frame(res$rec, grid, replica_ids, recs, record_every, dt)
  sys_cond <- rep(seq_len(ncond), each = fr$n)
  systems <- new_df(c(list(condition = sys_cond),
                      lapply(grid[c("K", "beta", "theta")], function(v) v[sys_cond]),
                      list(replica = rep(replica_ids, ncond))))
  attr(out, "phases") <- res$theta # n x systems, made so by the engine's glue
  attr(out, "systems") <- systems
  attr(out, "conditions") <- grid
  if (bins > 0) attr(out, "hist") <- array(res$hist, c(bins, nrec, ncond * fr$n))
  attr(out, "params") <- list(n = n, K = K, beta = beta, theta = theta, dt = dt,
                              steps = steps, record_every = record_every,
                              coupling = coupling,
                              matrix = if (coupling == "matrix") mat$kind,
                              matrix_sums = if (coupling == "matrix") mat$sums,
                              frequencies = om$given, frequencies_dist = om$dist,
                              bins = bins, method = method, step0 = step0)
  attr(out, "dt") <- dt
  attr(out, "init") <- if (!is.null(prev)) "continued" else
    if (start$kind == 0L) "uniform" else "given"
  attr(out, "replicas") <- fr$n
  attr(out, "first_replica") <- fr$first
  attr(out, "steps_done") <- res$steps_done
  attr(out, "clock") <- list(step = step0 + res$steps_done, t = (step0 + res$steps_done) * dt)
  out <- sim_result(out, fr, res, class = c("kuramoto_run", "data.frame"),
             unfinished = sprintf(paste0(
               "%s of %s steps made; the records up to step %s and the phases there ",
               "are returned (init = the result continues the run)"),
               fmt_count(res$steps_done), fmt_count(steps),
               fmt_count(step0 + res$steps_done)))
  # sealed (what a continuation reads), and the attribute theta (the phases)
  # of earlier versions
  sp_old_attrs(sp_seal(out, KURAMOTO_SEALED))
}

# The cost of an O(n^2) coupling on the CPU, told before a run that would
# take long: its pair terms (n^2 a stage, SRK2 two stages a step) at the
# pace of about 1e9 a second a thread (all pairs on the declared engine's
# vector loop, one system: 1.6e9 single, 1.2e9 double at n = 2e4 on the
# 2-core development machine, issue 50), on every thread for one system,
# a system a thread for several, a
# warning (class statphysgpu_cost_warning) when that passes 10 minutes.
# The run is interrupted between the engine's rounds, of whole steps.
KURAMOTO_CPU_PAIRS_PER_SECOND <- 1e9

kuramoto_check_cost <- function(n, nsys, steps, method, coupling, call) {
  stages <- if (method == "srk2") 2 else 1
  terms <- nsys * steps * stages * n^2
  # (a call of one system shares its passes over the threads: sp_mb.c's
  # team, from 2^20 pair terms; several systems run a system a thread)
  threads <- if (nsys == 1) sp_threads() else min(sp_threads(), nsys)
  secs <- terms / (KURAMOTO_CPU_PAIRS_PER_SECOND * threads)
  if (secs <= 600) return(invisible(secs))
  when <- if (secs < 3 * 3600) sprintf("%.0f minutes", secs / 60) else
    if (secs < 3 * 86400) sprintf("%.0f hours", secs / 3600) else
    sprintf("%s days", format(secs / 86400, digits = 2))
  sp_warn(sprintf(paste0(
    "this run makes about %s %s on the CPU (n^2 = %s a stage, %d stage%s a step, %s ",
    "step%s, %s system%s): at about %s a second a thread, some %s on %d thread%s. The GPU ",
    "(backend = \"gpu\") is faster by orders of magnitude; %sa smaller `n` or fewer `steps` ",
    "cost less. An interrupt (Ctrl-C) stops the run between steps, with the steps made."),
    format(terms, digits = 3), if (coupling == "pairs") "pair terms" else "matrix terms",
    format(n^2, digits = 3), stages, if (stages == 1) "" else "s", fmt_count(steps),
    if (steps == 1) "" else "s", fmt_count(nsys), if (nsys == 1) "" else "s",
    format(KURAMOTO_CPU_PAIRS_PER_SECOND, digits = 2), when, threads,
    if (threads == 1) "" else "s",
    if (coupling == "pairs") paste0("coupling = \"mean_field\" (the same all-to-all ",
                                    "coupling, summed in O(n) a step), ") else ""),
    call = call, class = "statphysgpu_cost_warning")
  invisible(secs)
}

# The records of a run of `steps` from the chain's step `step0`: the steps on
# the grid of record_every in (step0, step0 + steps], and step 0 of a fresh
# start: the first, rec0
# (record rec0 is step rec0 record_every), and how many.
kuramoto_records <- function(step0, steps, record_every) {
  rec0 <- if (step0 == 0) 0 else floor(step0 / record_every) + 1
  list(rec0 = rec0, nrec = floor((step0 + steps) / record_every) - rec0 + 1)
}

# The size of the result (nrec rows a system, row_bytes of memory a
# system), checked before sim_frame() so that the message says what helps:
# chunks (`first_replica`) split the replicas, never a system.
kuramoto_check_size <- function(n, ncond, replicas, nrec, bins, row_bytes, call) {
  avail <- available_memory()
  rows1 <- ncond * nrec     # one replica of every condition
  bytes1 <- ncond * row_bytes
  if (rows1 > .Machine$integer.max || bytes1 > avail) {
    sp_abort(sprintf(paste0(
      "one system per condition is already too large: %s oscillator%s in %s ",
      "condition%s with %s records each%s give %s rows and need about %s of ",
      "memory (a data frame holds 2^31 - 1 rows; %s available). Chunks ",
      "(`first_replica`) split the replicas, not a system: use fewer oscillators ",
      "(`n`), fewer records (a larger `record_every`)%s or fewer conditions (values of `K`, ",
      "`beta`, `theta`)."),
      fmt_count(n), if (n == 1) "" else "s", fmt_count(ncond), if (ncond == 1) "" else "s",
      fmt_count(nrec), if (bins > 0) sprintf(" and %s histogram bins", fmt_count(bins)) else "",
      fmt_count(rows1), fmt_bytes(bytes1), fmt_bytes(avail),
      if (bins > 0) ", fewer `bins`" else ""), call = call)
  }
  fit <- floor(min(.Machine$integer.max / rows1, avail / bytes1))
  if (replicas > fit) {
    sp_abort(sprintf(paste0(
      "%s replicas give %s rows and need about %s of memory (a data frame holds ",
      "2^31 - 1 rows; %s available): run at most %s replicas per call, as chunks ",
      "with `first_replica` and the same `seed` (they combine with rbind()), or ",
      "fewer oscillators or records."), fmt_count(replicas), fmt_count(rows1 * replicas),
      fmt_bytes(bytes1 * replicas), fmt_bytes(avail), fmt_count(fit)), call = call)
  }
  invisible(NULL)
}

kuramoto_frame <- function(rec, grid, replica_ids, recs, record_every, dt) {
  nrep <- length(replica_ids)
  nrec <- recs$nrec
  nsys <- nrow(grid) * nrep
  m <- matrix(rec, nrow = 2)
  sys <- rep(seq_len(nsys), each = nrec)
  k <- rep(recs$rec0 + seq_len(nrec) - 1, nsys) * record_every
  cond <- (sys - 1) %/% nrep + 1
  keep <- !is.na(m[1, ])
  ck <- cond[keep]
  cols <- c(list(condition = ck), lapply(grid[c("K", "beta", "theta")], function(v) v[ck]),
            list(replica = replica_ids[(sys[keep] - 1) %% nrep + 1], step = k[keep],
                 time = k[keep] * dt, r = m[1, keep], psi = m[2, keep]))
  out <- as.data.frame(cols)
  rownames(out) <- NULL
  out
}

# The natural frequencies checked: law (0 a vector, 1 a constant, 2
# Lorentz, 3 normal), the vector (law 0, else empty), centre (the constant)
# and scale of a law; `given` (for params: the number or the vector, NULL
# for a law), `dist` (the law, for the methods) and the median of |omega|
# (the coarse-dt check).  A law's quantiles are made by
# kuramoto_declared_run(), as the engine's element parameters.
kuramoto_check_omega <- function(omega, n, call) {
  bad <- function(what) {
    sp_abort(sprintf(paste0(
      "`frequencies` must be a single finite number, a numeric vector of length n (%s) ",
      "or a function of n returning one (such as kuramoto_lorentz(0.5)), not %s."),
      fmt_count(n), what), call = call)
  }
  law <- attr(omega, "kuramoto_omega")
  if (is.function(omega) && is.list(law) && !is.null(law$law) &&
      law$law %in% c("lorentz", "normal")) {
    scale <- if (law$law == "lorentz") law$width else law$sd
    return(list(law = if (law$law == "lorentz") 2L else 3L, vector = double(),
                centre = law$centre, scale = scale, given = NULL, dist = law,
                median_abs = kuramoto_median_abs_law(law$law, law$centre, scale)))
  }
  if (is.function(omega)) {
    v <- tryCatch(omega(n), error = function(e) {
      sp_abort(paste0("`frequencies(n)` failed: ", sp_cnd_text(e)), call = call)
    })
    if (!is.numeric(v) || length(v) != n || !kuramoto_all_finite(v)) {
      bad(paste0("a function returning ", describe(v)))
    }
    omega <- v
  } else if (!is.numeric(omega) || !(length(omega) %in% c(1, n)) ||
             !kuramoto_all_finite(omega)) {
    bad(describe(if (is.numeric(omega) && length(omega) %in% c(1, n))
      omega[!is.finite(omega)][1] else omega))
  }
  if (length(omega) == 1) {
    v <- as.double(omega)
    return(list(law = 1L, vector = double(), centre = v, scale = 0, given = v, dist = NULL,
                median_abs = abs(v)))
  }
  v <- if (is.double(omega)) omega else as.double(omega) # a double vector is not copied
  list(law = 0L, vector = v, centre = 0, scale = 0, given = v, dist = NULL,
       median_abs = kuramoto_median_abs(v))
}

# All values finite: min() and max() are a pass each with no copy (NA and
# NaN make them NA); is.finite() of 2^24 values, or range(), costs 0.1 s.
kuramoto_all_finite <- function(v) is.finite(min(v)) && is.finite(max(v))

# median(|omega|), over a regular sample of 2^16 values for longer vectors
# (a sort of 2^24 values costs half a second; the coarse-dt warning needs a
# typical frequency, not the exact median).
kuramoto_median_abs <- function(v) {
  m <- 2^16
  if (length(v) > m) v <- v[floor(seq(1, length(v), length.out = m))]
  stats::median(abs(v))
}

# median(|omega|) under a law: m with P(|X| <= m) = 1/2, X Cauchy or normal
# about `centre` (the n quantiles' median up to O(1/n)).
kuramoto_median_abs_law <- function(law, centre, scale) {
  p <- if (law == "lorentz") stats::pcauchy else stats::pnorm
  f <- function(m) p(m, centre, scale) - p(-m, centre, scale) - 0.5
  hi <- abs(centre) + scale
  while (f(hi) < 0) hi <- 2 * hi
  stats::uniroot(f, c(0, hi), tol = 1e-10 * hi)$root
}

# The coupling matrix checked: its kind ("none", "dense" or "sparse"; the
# engine takes A itself as the graph of edges(), R/kuramoto-declared.R), the
# largest row sum of |A| / n (the coarse-dt check) and `sums`, the sum of A
# and of its rows and columns weighted by their index (a result keeps them,
# not A: a continuation checks that A is the run's).
kuramoto_check_A <- function(A, n, coupling, call) {
  none <- list(kind = "none", row_max = 1)
  if (coupling != "matrix") {
    if (!is.null(A)) {
      sp_abort(sprintf('`A` is used with coupling = "matrix" only, not "%s".', coupling),
               call = call)
    }
    return(none)
  }
  if (is.null(A)) sp_abort('coupling = "matrix" needs the coupling matrix `A`.', call = call)
  shape_msg <- function(what) {
    sp_abort(sprintf(paste0("`A` must be a numeric %s x %s matrix (dense, or a sparse ",
                            "matrix of the Matrix package), not %s."),
                     fmt_count(n), fmt_count(n), what), call = call)
  }
  if (inherits(A, "sparseMatrix")) {
    if (!all(dim(A) == n)) shape_msg(paste0("a ", paste(dim(A), collapse = " x "), " matrix"))
    At <- tryCatch(methods::as(methods::as(methods::as(Matrix::t(A), "CsparseMatrix"),
                                           "generalMatrix"), "dMatrix"),
                   error = function(e) shape_msg(paste0("a ", class(A)[1], " (", sp_cnd_text(e), ")")))
    if (any(!is.finite(At@x))) shape_msg("a matrix with non-finite entries")
    if (length(At@x) >= 2^31) sp_abort("`A` has too many non-zero entries (2^31 at most).", call = call)
    row <- rep(seq_len(n), diff(At@p))
    rs <- if (length(At@x)) max(tapply(abs(At@x), row, sum)) else 0
    return(list(kind = "sparse", row_max = rs / n,
                sums = c(sum(At@x), sum(At@x * row), sum(At@x * (At@i + 1)))))
  }
  if (inherits(A, "Matrix")) A <- as.matrix(A)
  if (!is.matrix(A) || !(is.numeric(A) || is.logical(A))) shape_msg(describe(A))
  if (!all(dim(A) == n)) shape_msg(paste0("a ", paste(dim(A), collapse = " x "), " matrix"))
  if (anyNA(A) || any(!is.finite(A))) shape_msg("a matrix with non-finite entries")
  storage.mode(A) <- "double"
  idx <- seq_len(n)
  list(kind = "dense", row_max = max(rowSums(abs(A))) / n,
       sums = c(sum(A), sum(rowSums(A) * idx), sum(colSums(A) * idx)))
}

# The coarse-step warning over the conditions: the largest turn and kick of
# any condition of the grid.
kuramoto_check_dt <- function(dt, grid, median_abs, row_max, call, method = "srk2") {
  turn <- max(dt * (abs(grid$K) * row_max + median_abs) / grid$beta)
  kick <- max(sqrt(2 * grid$theta * dt / grid$beta))
  if (turn > 0.5 || kick > 0.5) {
    sp_warn(sprintf(paste0(
      "`dt` = %s is coarse for these dynamics: the coupling and a typical frequency ",
      "turn a phase by dt (|K| a + median |frequencies|) / beta = %.3g rad per step and the ",
      "noise by sqrt(2 theta dt / beta) = %.3g rad (either above 0.5 is coarse for %s%s); ",
      "use a smaller `dt`."), format(dt), turn, kick, if (method == "euler") "Euler" else "SRK2",
      if (nrow(grid) > 1) "; the largest over the conditions" else ""),
      call = call, class = "statphysgpu_coarse_dt")
  }
}

# Start phases as the engine takes them: kind 0 (none given: the engine
# draws them from the systems' streams), 1 (one vector of n for every
# system) or 2 (an n x replicas matrix, replica by replica for every
# condition), and the phases as a double vector (not copied when it is one).
kuramoto_start <- function(theta0, fr, n, call) {
  if (is.null(theta0)) return(list(kind = 0L, theta0 = double()))
  ok <- is.numeric(theta0) && length(theta0) > 0 && kuramoto_all_finite(theta0)
  if (ok && is.matrix(theta0)) {
    ok <- nrow(theta0) == n && ncol(theta0) == fr$n
  } else if (ok) ok <- length(theta0) == n
  if (!ok) {
    sp_abort(sprintf(paste0("`init` must be NULL, a numeric vector of length n (%s) ",
                            "or an n x replicas (%s x %s) matrix of finite phases, not %s."),
                     fmt_count(n), fmt_count(n), fmt_count(fr$n),
                     if (is.matrix(theta0)) paste0("a ", paste(dim(theta0), collapse = " x "),
                                                   " matrix") else describe(theta0)),
             call = call)
  }
  kind <- if (is.matrix(theta0)) 2L else 1L
  if (!is.double(theta0)) theta0 <- as.double(theta0)
  list(kind = kind, theta0 = theta0)
}

# A previous run given as `init` (a continuation): every attribute the
# continuation reads, checked; errors name `init` and the attribute.
# Returns list(params, phases, step_end (the chain's step of the phases),
# replica0, nrep, seed_hex, precision, frequencies (as an argument)).
kuramoto_check_run <- function(x, call) {
  damaged <- function(what, detail) {
    sp_abort(sprintf(paste0("`init` is a kuramoto() run whose attribute `%s` is missing or ",
                            "damaged (%s); continue from an unmodified result of kuramoto()."),
                     what, detail), call = call)
  }
  one <- function(v) is.numeric(v) && length(v) == 1 && !is.na(v) && is.finite(v)
  whole <- function(v, lo) one(v) && v == floor(v) && v >= lo
  axis <- function(v, lo, open = FALSE) {
    is.numeric(v) && length(v) >= 1 && all(is.finite(v)) && all(if (open) v > lo else v >= lo)
  }
  p <- kuramoto_params(x)
  if (!is.list(p)) damaged("params", "a list")
  p$method <- p$method %||% "srk2" # results before Euler
  p$step0 <- p$step0 %||% 0        # results before continuations
  dist <- p$frequencies_dist
  freq_ok <- if (!is.null(dist)) {
    is.list(dist) && identical(dist$law, "lorentz") && one(dist$width) && dist$width > 0 &&
      one(dist$centre) || is.list(dist) && identical(dist$law, "normal") && one(dist$sd) &&
      dist$sd > 0 && one(dist$centre)
  } else is.numeric(p$frequencies) && length(p$frequencies) %in% c(1, p$n) &&
    kuramoto_all_finite(p$frequencies)
  if (!whole(p$n, 1) || !axis(p$K, -Inf) || !axis(p$beta, 0, open = TRUE) ||
      !axis(p$theta, 0) || !one(p$dt) || p$dt <= 0 || !whole(p$steps, 1) ||
      !whole(p$record_every, 1) || !whole(p$bins, 0) || !whole(p$step0, 0) ||
      !(identical(p$coupling, "mean_field") || identical(p$coupling, "pairs") ||
        identical(p$coupling, "matrix")) ||
      !(identical(p$method, "srk2") || identical(p$method, "euler")) || !freq_ok) {
    damaged("params", paste0("n, K, beta, theta, frequencies, dt, steps, record_every, ",
                             "coupling, method, bins, step0"))
  }
  done <- attr(x, "steps_done")
  if (!whole(done, 0) || done > p$steps) damaged("steps_done", "the steps the run made")
  ck <- attr(x, "clock")
  if (!is.null(ck) && (!is.list(ck) || !identical(ck$step, p$step0 + done))) {
    damaged("clock", "the chain's step at the run's end, step0 + steps_done")
  }
  seed <- attr(x, "seed_hex")
  if (!is.character(seed) || length(seed) != 1 || !grepl("^0x[0-9a-f]{16}$", seed)) {
    damaged("seed_hex", "the run's seed")
  }
  prec <- attr(x, "precision")
  if (!(identical(prec, "single") || identical(prec, "double"))) {
    damaged("precision", "\"single\" or \"double\"")
  }
  grid <- sim_grid(list(K = as.double(p$K), beta = as.double(p$beta),
                        theta = as.double(p$theta)), call)
  sy <- attr(x, "systems")
  nsys <- if (is.data.frame(sy)) nrow(sy) else 0
  ok <- nsys > 0 && nsys %% nrow(grid) == 0 && is.numeric(sy$condition) &&
    is.numeric(sy$replica) && all(is.finite(sy$replica))
  if (ok) { # condition-major, every condition with the same consecutive replicas
    nrep <- nsys / nrow(grid)
    r0 <- sy$replica[1] - 1
    cond <- rep(seq_len(nrow(grid)), each = nrep)
    ok <- r0 >= 0 && r0 == floor(r0) && identical(as.double(sy$condition), as.double(cond)) &&
      identical(as.double(sy$replica), rep(r0 + seq_len(nrep), nrow(grid))) &&
      all(vapply(c("K", "beta", "theta"), function(a) {
        is.null(sy[[a]]) && a != "K" || identical(as.double(sy[[a]]), grid[[a]][cond])
      }, TRUE))
  }
  if (!ok) {
    damaged("systems", paste0("one row per system: its condition of the grid of K, beta, ",
                              "theta in `params` and its replica, every condition with the ",
                              "same consecutive replicas"))
  }
  ph <- kuramoto_phases(x)
  if (!is.matrix(ph) || !is.double(ph) || nrow(ph) != p$n || ncol(ph) != nsys ||
      !kuramoto_all_finite(ph)) {
    damaged("phases", sprintf("the final phases, a %s x %s matrix of finite numbers",
                              fmt_count(p$n), fmt_count(nsys)))
  }
  freq <- if (is.null(dist)) p$frequencies else if (dist$law == "lorentz") {
    kuramoto_lorentz(dist$width, dist$centre)
  } else kuramoto_normal(dist$sd, dist$centre)
  list(params = p, phases = ph, step_end = p$step0 + done, replica0 = r0, nrep = nrep,
       seed_hex = seed, precision = prec, frequencies = freq)
}

# The arguments of a continuation, set in kuramoto()'s frame `env`: the
# run's parameters where not given (`given(name)`), those given checked
# against them; its systems (replicas), seed and precision.
kuramoto_continue_args <- function(prev, env, given, call) {
  p <- prev$params
  if (given("replicas") || given("first_replica")) {
    sp_abort(paste0("`replicas` and `first_replica` cannot be given when `init` is a previous ",
                    "run: every system of that run (its replicas and conditions) continues."),
             call = call)
  }
  runs <- list(n = p$n, K = p$K, beta = p$beta, theta = p$theta, dt = p$dt,
               frequencies = prev$frequencies, coupling = p$coupling, method = p$method,
               precision = prev$precision, seed = prev$seed_hex)
  norm <- function(a, v) { # a value given, as the run keeps it (NULL: not valid)
    tryCatch(switch(a,
      frequencies = {
        om <- kuramoto_check_omega(v, p$n, call)
        list(om$given, om$dist)
      },
      seed = u64_to_hex(check_u64(v, "seed", call = call)),
      coupling = , method = , precision = if (is.character(v) && length(v) == 1) v,
      if (is.numeric(v)) as.double(v)), error = function(e) NULL)
  }
  for (a in names(runs)) {
    if (!given(a)) {
      assign(a, runs[[a]], envir = env)
      next
    }
    if (!identical(norm(a, get(a, envir = env)), norm(a, runs[[a]]))) {
      sp_abort(sprintf(paste0(
        "`%s` differs from that of the run given as `init`: a continuation goes on with ",
        "the run's %s (leave `%s` out)."), a,
        if (a == "seed") "seed" else if (a == "precision") "precision" else "parameters", a),
        call = call)
    }
  }
  # the records stay on the run's grid, with its histograms, unless given
  if (!given("record_every")) assign("record_every", p$record_every, envir = env)
  if (!given("bins")) assign("bins", p$bins, envir = env)
  assign("replicas", prev$nrep, envir = env)
  assign("first_replica", prev$replica0 + 1, envir = env)
  invisible()
}

# A continued run with coupling = "matrix" uses the run's A: the sums that
# the result keeps (kuramoto_check_A) must be those of the A given (to
# rounding: a dense A may continue as a sparse one).
kuramoto_check_same_A <- function(prev, mat, call) {
  s <- prev$params$matrix_sums
  if (mat$kind == "none") return(invisible())
  if (!is.numeric(s) || length(s) != 3 ||
      !isTRUE(all.equal(mat$sums, s, tolerance = 1e-12, scale = max(1, abs(s))))) {
    sp_abort(paste0("`A` is not the coupling matrix of the run given as `init` (the sums ",
                    "of its entries, rows and columns differ): a continuation goes on with ",
                    "the run's matrix."), call = call)
  }
  invisible()
}

#' Natural frequencies for kuramoto()
#'
#' Functions of \eqn{n} that give the natural frequencies of
#' [kuramoto()]'s oscillators as the \eqn{n} quantiles \eqn{F^{-1}((i -
#' 1/2)/n)} of a Lorentzian (Cauchy) law of half width `width` or of a
#' normal law of standard deviation `sd`, centred on `centre`: a regular
#' sample with the law's shape and no sampling noise, so that finite-\eqn{n}
#' results approach the \eqn{n \to \infty} theory fast (for random
#' frequencies pass a function such as `function(n) rcauchy(n, 0, 0.5)`).
#' The Lorentzian's extreme quantiles are large (about \eqn{2 n w / \pi});
#' those oscillators rotate fast and stay unlocked.
#'
#' @param width Half width at half maximum \eqn{w > 0} of the Lorentzian.
#' @param sd Standard deviation of the normal law.
#' @param centre Centre of the law (the mean frequency).
#' @return A function of `n` returning `n` frequencies, with attribute
#'   `kuramoto_omega` (the law and its parameters, used by
#'   [summary.kuramoto_run()] for the theory).
#' @examples
#' kuramoto_lorentz(0.5)(8)
#' kuramoto_normal(1)(8)
#' @export
kuramoto_lorentz <- function(width, centre = 0) {
  width <- check_positive(width, "width", len = 1)
  centre <- check_number(centre, "centre")
  structure(function(n) centre + width * tan(pi * ((seq_len(n) - 0.5) / n - 0.5)),
            kuramoto_omega = list(law = "lorentz", width = width, centre = centre))
}

#' @rdname kuramoto_lorentz
#' @export
kuramoto_normal <- function(sd, centre = 0) {
  sd <- check_positive(sd, "sd", len = 1)
  centre <- check_number(centre, "centre")
  structure(function(n) centre + sd * stats::qnorm((seq_len(n) - 0.5) / n),
            kuramoto_omega = list(law = "normal", sd = sd, centre = centre))
}

#' Stationary order parameter of the Kuramoto model (infinite N)
#'
#' The stationary \eqn{r(K)} of [kuramoto()]'s model for \eqn{N \to
#' \infty} in two cases with a closed self-consistency:
#' * noiseless Lorentzian frequencies of half width \eqn{w} (`theta = 0`):
#'   \eqn{r = \sqrt{1 - 2w/K}} above \eqn{K_c = 2w}, 0 below (Kuramoto);
#' * identical frequencies with noise (`width = 0`): \eqn{r} solves \eqn{r =
#'   I_1(Kr/T) / I_0(Kr/T)} (the stationary density is \eqn{\propto
#'   \exp((Kr/T) \cos(x - \psi))}), \eqn{r > 0} above \eqn{K_c = 2T}.
#'
#' The friction (`beta`, the paper's \eqn{\gamma}) sets the time scale only
#' and does not enter. `theta` is the paper's temperature \eqn{T}.
#'
#' @param K Coupling strengths (the 1/N convention of [kuramoto()]).
#' @param width Half width \eqn{w \ge 0} of the Lorentzian frequencies.
#' @param theta Temperature \eqn{T \ge 0}.
#' @param T Deprecated name of `theta` (it works, with a warning of class
#'   `statphysgpu_deprecated`).
#' @return A numeric vector, \eqn{r} for each `K` (0 at and below
#'   \eqn{K_c}).
#' @examples
#' kuramoto_r_theory(c(0.5, 1, 2, 4), width = 0.5)
#' kuramoto_r_theory(4, theta = 1)
#' @export
kuramoto_r_theory <- function(K, width = 0, theta = 0, T) {
  call <- sys.call()
  sp_renamed_args(c(T = "theta"), "kuramoto_r_theory")
  K <- check_finite(K, "K", call = call)
  width <- check_positive(width, "width", len = 1, allow_zero = TRUE, call = call)
  theta <- check_positive(theta, "theta", len = 1, allow_zero = TRUE, call = call)
  if (width > 0 && theta > 0) {
    sp_abort(paste0("kuramoto_r_theory() has the closed cases theta = 0 (Lorentzian ",
                    "frequencies) and width = 0 (identical frequencies with noise), ",
                    "not both width and theta positive."), call = call)
  }
  if (theta == 0) {
    if (width == 0) return(ifelse(K > 0, 1, 0))
    return(ifelse(K > 2 * width, sqrt(pmax(0, 1 - 2 * width / K)), 0))
  }
  vapply(K, function(k) {
    if (k <= 2 * theta) return(0)
    f <- function(r) besselI(k * r / theta, 1, TRUE) / besselI(k * r / theta, 0, TRUE) - r
    stats::uniroot(f, c(1e-9, 1), tol = 1e-13)$root
  }, 0)
}
