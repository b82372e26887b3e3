#' Long-range molecular dynamics: HMF, ring and 2D self-gravitating systems
#'
#' Integrates Hamilton's equations of \eqn{N} particles with long-range
#' interactions (Rocha Filho 2014) by Yoshida's 4th-order symplectic scheme, on
#' the CPU (OpenMP over particles) or a GPU, and records the energies and
#' the order parameters along the way. The models (unit masses; the sums
#' run over all \eqn{i, j}, including \eqn{i = j}, a constant):
#' * `"hmf"`, the Hamiltonian mean-field model, \eqn{H = \sum_i p_i^2/2 +
#'   (1/2N) \sum_{ij} [1 - \cos(\theta_i - \theta_j)]}: the force is
#'   \eqn{-M_x \sin\theta_i + M_y \cos\theta_i} with the magnetisation
#'   \eqn{\mathbf{M} = N^{-1} \sum_j (\cos\theta_j, \sin\theta_j)}, an
#'   \eqn{O(N)} reduction per force evaluation;
#' * `"ring"`, the ring model, \eqn{H = \sum_i p_i^2/2 - (1/2N) \sum_{ij} 1
#'   / (\sqrt{2} \sqrt{1 - \cos(\theta_i - \theta_j) + \epsilon})}, all
#'   pairs (\eqn{O(N^2)});
#' * `"gravity2d"`, particles in the plane with the softened 2D Newtonian
#'   potential, \eqn{H = \sum_i |\mathbf{p}_i|^2/2 + (1/4N) \sum_{ij} \ln(|
#'   \mathbf{r}_i - \mathbf{r}_j|^2 + \epsilon^2)}, all pairs.
#'
#' \eqn{\epsilon} is `softening` (not used by HMF).
#'
#' **Integrator.** Yoshida's step is drift \eqn{c_1}, kick \eqn{d_1}, drift
#' \eqn{c_2}, kick \eqn{d_2}, drift \eqn{c_3}, kick \eqn{d_3}, drift
#' \eqn{c_4} (\eqn{c_1 = c_4 = w_1/2}, \eqn{c_2 = c_3 = (w_0 + w_1)/2},
#' \eqn{d_1 = d_3 = w_1}, \eqn{d_2 = w_0}, \eqn{w_1 = 1/(2 - 2^{1/3})},
#' \eqn{w_0 = -2^{1/3} w_1}): three force evaluations per step; the
#' relative energy error is bounded and scales as \eqn{dt^4}.
#'
#' **Precision.** Positions and momenta are always double, and so are the
#' drifts, the kicks and every sum over particles. `"mixed"` (Rocha Filho's (2014)
#' choice) computes what the force evaluation reads of each particle (the
#' sine and cosine of its angle, or its coordinates) and each pair term in
#' single precision, and adds the pair terms into double accumulators;
#' `"double"` does all in double. The relative energy error of `"mixed"`
#' cannot go below about 1e-7; use `"double"` to study the integrator's
#' error at small `dt`.
#'
#' **Records.** At step 0 and every `record_every` steps: the kinetic,
#' potential and total energy per particle, the relative energy error
#' \eqn{(E - E_0)/|E_0|} (\eqn{E_0} the energy at the start of the first
#' run of a continued chain), the magnetisation \eqn{(M_x, M_y)} and its
#' modulus \eqn{M} (HMF, ring) or the virial ratio \eqn{2K/W} (\eqn{W =
#' \sum_i \mathbf{r}_i \cdot \nabla_i V}, 1 in a virialised state) and the
#' radius about the centre of mass that holds half the particles
#' (gravity2d), and the kinetic temperature \eqn{2K/(N d)} (\eqn{d} the
#' dimension).
#'
#' **Continuing.** `init = ` a previous result continues that run from its
#' final state (attribute `state`): the steps and times go on, and the
#' energy error stays relative to the first run's \eqn{E_0}. Records stay on
#' the grid of the chain's steps (the multiples of `record_every` counted
#' from the first run's start): a continuation that starts between two
#' records runs to the next one first, then the rest, so that a run of
#' \eqn{a} steps continued by \eqn{b} steps gives exactly the records and
#' state of one run of \eqn{a + b} steps, whatever \eqn{a} (the
#' continuation's first record repeats the previous run's last when
#' \eqn{a} is a multiple of `record_every`). A continuation takes `dt` and
#' `record_every` from the previous result unless they are given (its
#' `record_every`, or `steps` if fewer). Another `dt` is allowed, with a
#' warning of class `statphysgpu_continuation_dt`: the clock goes on (the
#' times from the time reached, the new step each step), but the chain is
#' then no longer one run, and its records and state are those of no single
#' run. What a continuation reads of the previous result -- its
#' attributes `model`, `params`, `clock`, `e0`, `state`, `systems`,
#' `conditions` and `seed_hex` -- is sealed when the result is made
#' (attribute `sealed`, a digest of each): a result in which any of them was
#' changed afterwards (scaled momenta, a shifted `e0`, ...), or that has no
#' seal, is refused with an error of class `statphysgpu_modified_result`
#' naming it. Its records, snapshots and other attributes may be changed
#' (subset, annotated): the continuation does not read them. [rbind()] of
#' unmodified chunks is sealed too.
#'
#' **Coarse steps.** A warning (class `statphysgpu_coarse_dt`, and
#' `statphysgpu_step_warning`) is given when `dt` times the fastest rate of
#' the start exceeds 1 (radian a step): there Yoshida's relative energy
#' error passes about \eqn{10^{-3}}, and from 1.57 the step is unstable
#' for an oscillation. The rate is the larger of the frequency of the
#' deepest well the model allows and the rate at which the fastest particle
#' of the start (\eqn{p_{max}}{p_max}, its largest momentum component) crosses that
#' well: HMF, \eqn{\max(1, p_{max})}{max(1, p_max)} (the mean field's well
#' has frequency \eqn{\sqrt{M} \le 1}{sqrt(M) <= 1}, and is a radian wide);
#' ring, \eqn{\max(8^{-1/4} \epsilon^{-3/4}, p_{max} /
#' \sqrt{2\epsilon})}{max(8^(-1/4) eps^(-3/4), p_max / sqrt(2 eps))} (all
#' particles in one clump narrower than \eqn{\sqrt{2\epsilon}}{sqrt(2
#' eps)}); gravity2d, \eqn{\max(1, p_{max}) / \epsilon}{max(1, p_max) /
#' eps} (all particles within \eqn{\epsilon}).  For a start the engine
#' draws itself (one of [hmf_waterbag()] ... none of whose columns was read)
#' the warning comes after the run: the engine reports the fastest particle
#' it drew.
#'
#' **Starts the engine draws.** A start of [hmf_waterbag()],
#' [hmf_equilibrium()], [ring_uniform()] or [gravity2d_shell()] (or
#' `lrmd()`'s own, when `init` is missing) is drawn by the engine, on the
#' CPU or on the GPU, when none of its columns was read: R makes no data
#' frame of it and nothing is copied to the GPU. The state the engine
#' returns (attribute `state`) and the snapshots are columns the engine
#' wrote once, where R keeps them; a start given as numbers is read in
#' place and copied once, by the engine.
#'
#' **Memory and failures.** Before anything is allocated the memory the run
#' needs (measured: 64 bytes a particle, 112 for gravity2d; 24 (gravity2d:
#' 40) a particle of each snapshot, 400 a record) is checked against the
#' memory available
#' (and the process's address-space limit), with the size in the error. A
#' record, snapshot or final state that is not finite (the integration broke
#' down: `dt` too coarse, a start whose energy overflows) is an error (class
#' `statphysgpu_not_finite`) naming the step and the quantity, never data.
#'
#' **The engine.** Every model runs as a declared model ([sde_model()]: the
#' HMF mean field through `mean()`, the ring and gravity2d through
#' `pairs()`, gravity2d's particles as plain states x, y, px, py in the open
#' plane) on [sde_run()]'s many-body engine with its `"yoshida4"`, the same
#' composition as before (drift, kick, drift, kick, drift, kick, drift).
#' This is the package's one SDE engine since the built-in lrmd engine was
#' removed (issue 50, when the declared one had passed its speed in every
#' headline case); option `statphysgpu.lrmd_engine`, which chose between
#' them, is ignored with a warning once a session. The laws are those of
#' the built-in engine and a start is drawn with the same numbers (the
#' draws of `lrmd_start.h`, on the device where the run is), but runs need
#' not repeat earlier versions' numbers: the sums run in other orders and
#' `"mixed"` means single-precision states now (see Precision). gravity2d's
#' half-mass radius, the median distance from the centre of mass, is
#' computed in R from the positions at each record, which the engine keeps
#' (at most \eqn{2^{25}} numbers a call: longer runs record in several
#' calls); one gravity2d system on several GPUs instead ends an engine call
#' at every record (so that it keeps its slices, one a device). A snapshot
#' ends one engine call and starts the next from its state.
#'
#' **Backends.** The CPU engine runs on [sp_threads()] threads; its result
#' does not depend on the thread count (bitwise). The GPU engine gives the
#' CPU's numbers to rounding in double precision. `backend = "auto"` takes
#' the GPU from \eqn{10^5} particles a launch for HMF and 2000 for ring and
#' gravity2d (counting every system of the call: on one GPU they run side
#' by side, see Replicas and sweeps; below, a step is a few microseconds of
#' kernel launches).
#'
#' **Several GPUs.** `devices = c(0, 1)` or `"all"` cuts the particles of a
#' system into one slice per device (the many-body engine's slices); each
#' device updates its slice and the devices exchange what the next force
#' evaluation needs. The result equals one device's to rounding (the sums
#' over slices run in another order).
#'
#' **Precision.** `"double"` does everything in double, the angles not
#' reduced. `"mixed"` runs the declared model in single precision, states
#' included (positions and momenta are single-precision numbers; the
#' engine's sums over particles are double), the HMF and ring angles
#' declared periodic (kept in \eqn{[-\pi, \pi]}, and so reported in the state
#' and snapshots): the energy is kept to single precision's rounding
#' (about \eqn{10^{-6}} relative over a hundred steps) and the total
#' momentum to about \eqn{10^{-8}} of its scale. In mixed precision the
#' softening must be at least \eqn{10^{-4}} for the ring model (the
#' single-precision \eqn{1 - \cos} of a particle with itself or a close
#' neighbour carries rounding of \eqn{10^{-7}}, which moves the energy by
#' about \eqn{5 \times 10^{-7}} there) and \eqn{10^{-18}} for gravity2d (its
#' square a normal single-precision number, so that the force of two
#' particles at distance 0 is finite); use `"double"` below. `"double"` has
#' the same bounds for its rounding: a softening of at least
#' \eqn{10^{-11}} for the ring model (\eqn{1 - \cos} rounded by about
#' \eqn{10^{-16}} moves the energy by the same \eqn{5 \times 10^{-7}}
#' there) and \eqn{10^{-153}} for gravity2d (its square, \eqn{10^{-306}}, a
#' normal double).
#'
#' **Replicas and sweeps.** `replicas` independent systems of `n`
#' particles run in one call, each from its own start: replica \eqn{r}
#' (global, numbered from `first_replica`) of a start of [hmf_waterbag()]
#' ... draws its particles from its own Philox streams (purpose 16, stream
#' \eqn{c \cdot 2^{40} + r - 1} for coordinate \eqn{c}), except replica 1,
#' which is the start itself (purpose 11: the numbers of one start, so that
#' a run of one replica is what it was before replicas existed). A start
#' given as numbers (a data frame or matrix, or a start changed after it
#' was made) is the same for every replica: the dynamics is deterministic,
#' so its replicas are identical. Any parameter of a start (`U`, `M0`, `T`,
#' `p0`, `r_in`, `r_out`) and `softening` (ring, gravity2d) may be a vector:
#' the conditions are their grid (the start's parameters first, in
#' [expand.grid()] order, the first varying fastest; then the softening), and
#' every condition runs `replicas` systems. The records carry the columns
#' `condition` and one per swept parameter, named after it, holding its
#' value (none when nothing is swept), then `replica`; rows are ordered by
#' condition, replica and step. The streams of a replica do not depend on
#' the condition, so each condition's systems are those of a call with its
#' values alone (common random numbers across the grid). Chunks of the
#' replicas (`first_replica`, the same start and seed: see
#' [replica_chunks()]) combine with [rbind()][rbind.lrmd_run()] into the
#' result of one call, bit for bit on the CPU.
#'
#' **Systems side by side.** On one GPU the systems of a call run side by
#' side: every pass of a step is one launch over all of them (the many-body
#' engine's systems), so that a study of many small
#' systems (the quasi-stationary states' lifetime against \eqn{n}, an
#' ensemble of collapses) fills the device that one small system leaves
#' idle: one HMF system of \eqn{10^6} particles, or one ring or gravity2d
#' system of \eqn{10^4} (a single wave of blocks on an H100), does not.
#' Each system's records, state and snapshots are bit for bit those of a
#' run of that system alone on the GPU (the same operations in the same
#' order, sums included). The
#' systems of a launch are those that share their step, clock and softening
#' (all of a fresh run without a sweep of the softening; each softening of
#' a sweep makes its own launches), at most \eqn{2^{24}} particles of them
#' for HMF and \eqn{2^{20}} for ring and gravity2d (more make several
#' launches, one after another; ring and gravity2d systems of more than
#' \eqn{2^{19}} particles run one a launch); one progress bar a launch. Option `statphysgpu.lrmd_batch = FALSE` runs one system a
#' launch instead, with the same numbers. On the CPU or on several GPUs the
#' systems run one after another: on the CPU every system already uses all
#' threads.
#'
#' @section Interrupts: Ctrl-C stops the run after the steps in flight, with
#'   a warning of class `statphysgpu_interrupted`; the records up to the
#'   step reached and the state there are returned (`init = ` the result
#'   continues it). The systems of a launch side by side (see Replicas and
#'   sweeps) all stop at the step reached; systems run one after another,
#'   or in later launches, that had not started keep their starts (still
#'   not drawn), and a continuation starts them (in launches of the
#'   systems at one step).
#' @param model `"hmf"`, `"ring"` or `"gravity2d"` (taken from `init` when
#'   that is an initial condition or a run).
#' @param n Number of particles (taken from `init` when missing).
#' @param init The start: an object of [hmf_waterbag()],
#'   [hmf_equilibrium()], [ring_uniform()], [gravity2d_shell()] (one start,
#'   or a grid of them when a parameter is a vector: see Replicas and
#'   sweeps); a previous result of `lrmd()` (to continue every system of
#'   it); or a data frame or matrix of `n` rows with columns (theta, p) for
#'   HMF and ring or (x, y, px, py) for gravity2d (the same for every
#'   replica). Missing: `hmf_waterbag(n, 1, 0.69)`, `ring_uniform(n)` or
#'   `gravity2d_shell(n, 0.5, 1)` drawn with `seed` (by the engine: see
#'   Starts the engine draws).
#' @param dt Time step (a warning says when it is coarse: see Coarse steps).
#'   Continuing a run (`init = ` a result), its `dt` unless given.
#' @param steps Number of steps.
#' @param record_every Steps between records (by default 10, or `steps` if
#'   fewer; continuing a run, its `record_every`, or `steps` if fewer); the
#'   records are at the multiples of `record_every` counted from
#'   the start of the first run of a chain (see Continuing).
#' @param softening \eqn{\epsilon > 0} of the ring and gravity2d potentials
#'   (when continuing a run, its softening unless given; a run that swept
#'   it keeps its values); at least what the precision resolves (see
#'   Precision). Several values: a sweep (see Replicas and sweeps).
#' @param snapshots Times at which to keep the whole phase space (rounded
#'   to the nearest step; the times of a continued run go on from the
#'   previous one's end).
#' @param seed Seed of the default `init` (see [philox]); the dynamics is
#'   deterministic. A start of [hmf_waterbag()] ... has its own seed, which
#'   its replicas draw from and the result carries (`seed` is then unused).
#' @param backend `"auto"` (see Backends), `"cpu"` or `"gpu"`.
#' @param devices GPU ids (several: the particles are split over them, see
#'   Several GPUs), `"all"`, or `NULL` for the first; see [gpu_devices()].
#' @param precision `"mixed"` or `"double"` (see Precision).
#' @param progress Show a progress bar (one a launch: the systems side by
#'   side on one GPU, else one a system).
#' @param replicas Number of independent systems per condition (see
#'   Replicas and sweeps).
#' @param first_replica Global number of the first replica (chunks of a
#'   study; [replica_chunks()]). With the default start, give the chunks'
#'   shared `seed`.
#' @return An object of class `lrmd_run`: a data frame with one row per
#'   record of each system and columns `condition` and the swept
#'   parameters (a sweep only), `replica`, `step`, `time`, `kinetic`,
#'   `potential`, `total` (per particle), `energy_error`, then `Mx`, `My`,
#'   `M` (HMF, ring) or `virial_ratio`, `r_half` (gravity2d), and
#'   `temperature`; attributes `model`, `params`, `state` (the final phase
#'   space, a data frame like `init`'s), `snapshots` (a list of such data
#'   frames, each with its `time`), `e0`, `steps_done`, `time_end`,
#'   `systems` (one row per system: `condition` and the swept parameters,
#'   `replica`, `softening`, `e0`, the steps where it started and ended, its
#'   clock), `conditions` (the grid, or `NULL`), `sealed` (see
#'   Continuing), `seed`, `seed_hex`,
#'   `backend`, `devices`, `precision`, `seconds`, `interrupted`. With
#'   several systems, `state` is a list of data frames and `snapshots` a
#'   list of lists, one per system in the order of `systems`, and `e0`,
#'   `steps_done`, `time_end` have one value per system.
#' @references Rocha Filho, T. M. (2014) Molecular dynamics for long-range
#'   interacting systems on graphic processing units. *Computer Physics
#'   Communications* 185, 1364-1369 \doi{10.1016/j.cpc.2014.01.008}; Yoshida, H. (1990)
#'   Construction of higher order symplectic integrators. *Physics Letters
#'   A* 150, 262-268 \doi{10.1016/0375-9601(90)90092-3}.
#' @seealso [hmf_waterbag()], [hmf_caloric()], [plot.lrmd_run()].
#' @examples
#' x <- lrmd("hmf", init = hmf_waterbag(2000, M0 = 1, U = 0.69, seed = 1),
#'           dt = 0.1, steps = 500, record_every = 10, backend = "cpu")
#' x
#' summary(x)
#' hmf_caloric(0.69) # the equilibrium M the quasi-stationary state avoids
#' y <- lrmd(init = x, dt = 0.1, steps = 100, backend = "cpu") # continue
#' # an ensemble over a sweep: 2 energies x 3 replicas in one call
#' e <- lrmd("hmf", init = hmf_waterbag(500, M0 = 1, U = c(0.6, 0.69), seed = 1),
#'           dt = 0.1, steps = 100, record_every = 20, replicas = 3, backend = "cpu")
#' summary(e)
#' aggregate(M ~ U, data = summary(e), FUN = mean)
#' g <- lrmd("gravity2d", init = gravity2d_shell(300, 0.5, 1, seed = 1), dt = 0.01,
#'           steps = 200, record_every = 20, snapshots = 2, backend = "cpu")
#' summary(g)
#' @export
lrmd <- function(model = c("hmf", "ring", "gravity2d"), n, init, dt, steps,
                 record_every = 10, softening = 0.01, snapshots = NULL, seed = NULL,
                 backend = "auto", devices = NULL, precision = c("mixed", "double"),
                 progress = interactive(), replicas = 1, first_replica = 1) {
  call <- sys.call()
  has_init <- !missing(init)
  if (has_init && inherits(init, "lrmd_run")) sp_check_seal(init, "lrmd()", call, LRMD_SEALED)
  prev <- if (has_init && inherits(init, "lrmd_run")) lrmd_check_run(init, call)
  from <- if (has_init && inherits(init, c("lrmd_init", "lrmd_starts", "lrmd_run"))) {
    lrmd_init_model(init, call)
  }
  if (missing(model) && !is.null(from)) model <- from
  model <- check_choice(model, c("hmf", "ring", "gravity2d"), "model", call = call)
  if (!is.null(from) && from != model) {
    sp_abort(sprintf("`init` is a %s %s, not one of model \"%s\".", from,
                     if (is.null(prev)) "start" else "run", model), call = call)
  }
  if (!missing(n)) n <- check_whole(n, "n", lo = 2, hi = 2^31 - 1, call = call)
  # a continuation steps and records as the run it continues unless told
  # otherwise (a dt of its own is allowed, with a warning: see Continuing)
  default_every <- missing(record_every)
  if (!is.null(prev)) {
    was_dt <- attr(prev, "clock")$dt
    if (missing(dt)) dt <- was_dt
    if (default_every) record_every <- attr(prev, "params")$record_every
  }
  if (missing(dt)) sp_abort("`dt` (the time step) must be given.", call = call)
  dt <- check_positive(dt, "dt", len = 1, call = call)
  if (!is.null(prev) && dt != was_dt) {
    sp_warn(sprintf(paste0(
      "`init` was run with dt = %s and this continuation steps with dt = %s: the clock goes ",
      "on (times from the time reached, %s a step), but the chain is no longer one run of ",
      "one step, so its records and state are not those of any single run; leave `dt` out ",
      "to continue with `init`'s."), fmt_num(was_dt), fmt_num(dt), fmt_num(dt)),
      call = call, class = "statphysgpu_continuation_dt")
  }
  if (missing(steps)) sp_abort("`steps` must be given.", call = call)
  steps <- check_whole(steps, "steps", lo = 1, hi = 2^52, call = call)
  if (default_every) record_every <- min(record_every, steps)
  record_every <- check_whole(record_every, "record_every", lo = 1, hi = steps, call = call)
  if (!is.null(prev) && (!missing(replicas) || !missing(first_replica))) {
    sp_abort(paste0("`replicas` and `first_replica` cannot be given when `init` is a previous ",
                    "run: every system of that run (its replicas and conditions) continues."),
             call = call)
  }
  replicas <- check_whole(replicas, "replicas", lo = 1, hi = 2^40, call = call)
  first_replica <- check_whole(first_replica, "first_replica", lo = 1, hi = 2^40, call = call)
  nsnap <- if (is.null(snapshots)) 0 else length(snapshots)
  cols <- lrmd_columns(model)
  # the systems: a previous run's, or the conditions (the starts' grid x the
  # softenings) x the replicas
  if (!is.null(prev)) {
    sy <- lrmd_systems(prev)
    if (!missing(softening)) {
      softening <- check_positive(softening, "softening", len = 1, call = call)
      if ("softening" %in% names(attr(prev, "conditions"))) {
        sp_abort(paste0("`softening` was swept in the run given as `init`: its systems keep ",
                        "their softening; leave `softening` out."), call = call)
      }
      sy$softening <- softening
    }
    conds <- attr(prev, "conditions")
    n_est <- attr(prev, "params")$n
  } else {
    softening <- check_positive(softening, "softening", call = call)
    if (model == "hmf" && length(softening) > 1) {
      sp_abort(sprintf(paste0("`softening` is not used by the HMF model: give one value, not %d ",
                              "(a sweep over it would run the same systems)."),
                       length(softening)), call = call)
    }
    n_est <- if (!missing(n)) n else if (!has_init) 2 else lrmd_init_rows(init)
  }
  # the seed: the start's own (its replicas' streams), a run's, or `seed`
  seed_own <- if (!is.null(prev)) attr(prev, "seed_hex") else if (has_init) lrmd_init_seed(init)
  if (!is.null(seed_own)) seed <- seed_own
  ncond0 <- if (!is.null(prev)) max(1, NROW(conds)) else
    (if (has_init && inherits(init, "lrmd_starts")) nrow(init$grid) else 1) * length(softening)
  # backend = "auto": the GPU from lrmd_gpu_from() particles a launch (see Backends)
  if (identical(backend, "auto") && is.null(devices) &&
      lrmd_launch_particles(model, n_est, if (is.null(prev)) replicas * ncond0 else nrow(sy)) <
        lrmd_gpu_from(model)) {
    backend <- "cpu"
  }
  # the memory is checked below, with the bytes lrmd_bytes() measured
  fr <- sim_frame(call, n = if (is.null(prev)) replicas else nrow(sy),
                  first = if (is.null(prev)) first_replica else 1, seed = seed, backend = backend,
                  devices = devices, precision = precision, precisions = c("mixed", "double"),
                  progress = progress, groups = if (is.null(prev)) ncond0 else 1,
                  n_name = "replicas", auto_threshold = 1, row_bytes = 0)
  soft_min <- lrmd_softening_min(model, fr$precision)
  for (s in unique(if (is.null(prev)) softening else sy$softening)) {
    if (s < soft_min) {
      sp_abort(sprintf(paste0("`softening` = %g is below %.0e, the least the %s model allows in ",
                              "%s precision (%s); %s."),
                       s, soft_min, model, fr$precision,
                       if (fr$precision == "mixed") "single-precision pair terms" else
                         "double-precision pair terms",
                       if (fr$precision == "mixed") "use precision = \"double\"" else
                         "use a larger softening"), call = call)
    }
  }
  if (fr$plan$backend == "gpu") {
    if (length(fr$plan$devices) > n_est) {
      sp_abort(sprintf("%s particles cannot be split over %d devices.", fmt_count(n_est),
                       length(fr$plan$devices)), call = call)
    }
  }
  nsys0 <- if (is.null(prev)) replicas * ncond0 else nrow(sy)
  lrmd_check_memory(model, n_est, nsnap, steps %/% record_every + 2, call, systems = nsys0,
                    batch = if (lrmd_batched(model, fr$plan, call)) {
                      min(nsys0, max(1, floor(lrmd_batch_particles(model) / n_est)))
                    } else 1)
  if (is.null(prev)) {
    if (!has_init) {
      if (missing(n)) sp_abort("`n` or `init` must be given.", call = call)
      init <- switch(model,
                     hmf = hmf_waterbag(n, 1, 0.69, seed = u64_to_hex(fr$seed)),
                     ring = ring_uniform(n, seed = u64_to_hex(fr$seed)),
                     gravity2d = gravity2d_shell(n, 0.5, 1, seed = u64_to_hex(fr$seed)))
    }
    # the starts of the conditions: each the recipe the engine draws, or the
    # columns it reads (not copied here: the engine copies them once, into
    # the state it returns)
    starts <- if (inherits(init, "lrmd_starts")) init$starts else list(init)
    specs <- lapply(starts, lrmd_start_spec, model = model, call = call)
    n_init <- specs[[1]]$n
    if (missing(n)) n <- n_init
    if (n_init != n) {
      sp_abort(sprintf("`init` has %s rows (particles) but `n` is %s.", fmt_count(n_init),
                       fmt_count(n)), call = call)
    }
    # the conditions: the starts' grid (first, varying fastest), then the softenings
    sg <- if (inherits(init, "lrmd_starts")) init$grid else data.frame(row.names = 1L)
    ci <- expand.grid(start = seq_along(specs), soft = seq_along(softening))
    conds <- sg[ci$start, , drop = FALSE]
    if (length(softening) > 1) conds$softening <- softening[ci$soft]
    rownames(conds) <- NULL
    conds <- if (ncol(conds)) cbind(condition = seq_len(nrow(ci)), conds) else NULL
    sy <- data.frame(condition = rep(seq_len(nrow(ci)), each = replicas),
                     replica = rep(first_replica - 1 + seq_len(replicas), nrow(ci)),
                     softening = rep(softening[ci$soft], each = replicas),
                     e0 = NA_real_, step_end = 0, clock_t = 0, clock_step = 0)
    sy_start <- rep(ci$start, each = replicas)
    # each system's start: replica 1 of a start R has read, its columns;
    # the other replicas of a start, its recipe for their streams; a start
    # given as numbers, the same for every replica
    sy_state <- lapply(seq_len(nrow(sy)), function(i) {
      sp <- specs[[sy_start[i]]]
      if (!is.null(sp$recipe) && (is.null(sp$cols) || sy$replica[i] != 1)) {
        list(state = lrmd_recipe_replica(sp$recipe, sy$replica[i]), lazy = TRUE, pmax = NA)
      } else list(state = sp$cols, lazy = FALSE, pmax = sp$pmax)
    })
  } else {
    n <- n_est
    # (the state of a system an interrupt left unstarted is its start)
    sy_state <- lapply(lrmd_states(prev), function(s) {
      sp <- lrmd_start_spec(s, model, call, run = TRUE)
      if (is.null(sp$cols)) list(state = sp$recipe, lazy = TRUE, pmax = NA) else
        list(state = sp$cols, lazy = FALSE, pmax = sp$pmax)
    })
  }
  nsys <- nrow(sy)
  # the coarse-step warning: now, or for starts the engine draws, once it
  # has drawn them (after the run: the engine reports their fastest particle)
  given <- !vapply(sy_state, `[[`, TRUE, "lazy")
  if (any(given)) {
    lrmd_check_dt(model, dt, sy$softening[given],
                  vapply(sy_state[given], `[[`, 1, "pmax"), call)
  }
  # the clocks of the chains of runs: time = t_base + (step_base + k) dt_base
  p_dt <- if (!is.null(prev)) attr(prev, "clock")$dt else dt
  if (p_dt != dt) {
    sy$clock_t <- sy$clock_t + (sy$step_end - sy$clock_step) * p_dt
    sy$clock_step <- sy$step_end
  }
  two_d <- model == "gravity2d"
  # the declared many-body engine (R/lrmd-declared.R), the one engine
  sp_tuning_retired("lrmd_engine", call)
  # the snapshots' steps, each system's (checked before any system runs)
  snap_steps <- lapply(seq_len(nsys), function(i) {
    if (nsnap == 0) return(double())
    snapshots <- check_finite(snapshots, "snapshots", call = call)
    t0 <- sy$clock_t[i] + (sy$step_end[i] - sy$clock_step[i]) * dt
    ks <- round((snapshots - t0) / dt)
    if (any(ks < 0 | ks > steps)) {
      sp_abort(sprintf("`snapshots` must be times between %s and %s (this run), not %s.",
                       format(t0), format(t0 + steps * dt),
                       format(snapshots[ks < 0 | ks > steps][1])), call = call)
    }
    sort(unique(ks))
  })
  step_start <- sy$step_end
  runs <- vector("list", nsys)
  run <- c(seconds = 0, rounds = 0, interrupted = 0)
  # the launches: systems side by side (see Replicas and sweeps) or one a run
  for (idx in lrmd_batches(sy, n, lrmd_batched(model, fr$plan, call),
                           lrmd_batch_particles(model))) {
    i1 <- idx[1] # (the systems of a batch share their clock and step)
    steps0 <- sy$step_end[i1]
    time_of <- local({
      ct <- sy$clock_t[i1]
      cs <- sy$clock_step[i1]
      s0 <- steps0
      function(k) ct + (s0 + k - cs) * dt
    })
    labels <- sprintf("replica %s%s", fmt_count(sy$replica[idx]),
                      if (is.null(conds)) "" else sprintf(" of condition %d", sy$condition[idx]))
    one <- lrmd_one(fr, model, n, dt, sy$softening[i1], steps, record_every, steps0,
                    lapply(sy_state[idx], `[[`, "state"), snap_steps[[i1]], time_of, call, labels)
    for (j in seq_along(idx)) {
      i <- idx[j]
      if (sy_state[[i]]$lazy) sy_state[[i]]$pmax <- one$pmax[j]
      e0 <- if (!is.na(sy$e0[i])) sy$e0[i] else one$rec[[j]][1, 1] + one$rec[[j]][2, 1]
      rec <- one$rec[[j]]
      kin <- rec[1, ]
      pot <- rec[2, ]
      tot <- kin + pot
      d <- list()
      if (!is.null(conds)) for (nm in names(conds)) d[[nm]] <- rep(conds[[nm]][sy$condition[i]], length(kin))
      d$replica <- rep(sy$replica[i], length(kin))
      d$step <- steps0 + one$k
      d$time <- time_of(one$k)
      d$kinetic <- kin
      d$potential <- pot
      d$total <- tot
      d$energy_error <- (tot - e0) / (if (e0 != 0) abs(e0) else 1)
      if (two_d) {
        d$virial_ratio <- 2 * kin / rec[3, ]
        d$r_half <- rec[4, ]
        d$temperature <- kin
      } else {
        d$Mx <- rec[3, ]
        d$My <- rec[4, ]
        d$M <- sqrt(d$Mx^2 + d$My^2)
        d$temperature <- 2 * kin
      }
      # the engine's columns as data frames (no copies for one system)
      snaps <- lapply(one$snaps[[j]], function(s) {
        f <- lrmd_frame(s$cols, cols, n)
        attr(f, "time") <- time_of(s$k)
        attr(f, "step") <- steps0 + s$k
        f
      })
      runs[[i]] <- list(rec = new_df(d), state = lrmd_frame(one$state[[j]], cols, n),
                        snaps = snaps)
      sy$e0[i] <- e0
      sy$step_end[i] <- steps0 + one$steps_done
      sy$steps_done[i] <- one$steps_done
      sy$time_end[i] <- time_of(one$steps_done)
    }
    run <- c(seconds = run[["seconds"]] + one$run[["seconds"]],
             rounds = run[["rounds"]] + one$run[["rounds"]],
             interrupted = one$run[["interrupted"]])
    if (run[["interrupted"]] == 1) break
  }
  # the systems an interrupt left unstarted: their starts, as they came
  ran <- !vapply(runs, is.null, TRUE)
  for (i in which(!ran)) {
    st <- sy_state[[i]]
    st <- if (st$lazy) .Call(C_sp_r_lrmd_start_columns, st$state) else st$state
    runs[[i]] <- list(rec = NULL, state = lrmd_frame(st, cols, n),
                      snaps = list())
    sy$steps_done[i] <- 0
    sy$time_end[i] <- sy$clock_t[i] + (sy$step_end[i] - sy$clock_step[i]) * dt
  }
  lazy_sys <- vapply(sy_state, `[[`, TRUE, "lazy") & ran
  if (any(lazy_sys)) {
    lrmd_check_dt(model, dt, sy$softening[lazy_sys], vapply(sy_state[lazy_sys], `[[`, 1, "pmax"),
                  call)
  }
  out <- if (nsys == 1) runs[[1]]$rec else lrmd_bind(lapply(runs, `[[`, "rec"))
  sy$step_start <- step_start
  systems <- sy
  if (!is.null(conds)) {
    systems <- cbind(conds[sy$condition, , drop = FALSE], sy[setdiff(names(sy), "condition")])
    rownames(systems) <- NULL
  }
  lrmd_result(out, fr, run, model = model, n = n, dt = dt, steps = steps,
              record_every = record_every, systems = systems, conditions = conds,
              states = lapply(runs, `[[`, "state"), snaps = lapply(runs, `[[`, "snaps"))
}

# Whether lrmd() runs its systems side by side in one set of launches: on
# one GPU (see ?lrmd, Replicas and sweeps), unless option
# statphysgpu.lrmd_batch = FALSE (one system a run, for comparison); "cpu"
# (tests) hands the CPU engine the same batches, which it runs one system
# after another (src/core/sp_lrmd_systems.c): R's side of a batch without
# a GPU.  (`model`: every model batches; kept for the callers.)
lrmd_batched <- function(model, plan, call) {
  b <- sp_tuning("lrmd_batch", call)
  if (identical(b, "cpu")) plan$backend == "cpu" else
    isTRUE(b) && plan$backend == "gpu" && length(plan$devices) == 1
}

# Particles of the systems of one launch at most. HMF: enough to fill a
# GPU's bandwidth many times over (a pass over 2^24 HMF particles moves 400
# MB), few enough for the working copies of their states in memory.
LRMD_BATCH_PARTICLES <- 2^24
# Ring and gravity2d: from about 10^6 particles one system fills an H100
# (85-90 per cent of the pair ceilings) and runs alone; 2^20 particles are
# 104 systems of 10^4 (about 100 waves of the device's resident blocks a
# pass) or 10 of 10^5, and their parts' force sums (at most 1 KB a
# particle) at most 1 GB.
LRMD_BATCH_PAIR_PARTICLES <- 2^20
lrmd_batch_particles <- function(model) {
  if (model == "hmf") LRMD_BATCH_PARTICLES else LRMD_BATCH_PAIR_PARTICLES
}

# The launches of a run: a list of the systems (rows of `sy`) of each, in
# order. Batched, the systems that share their clock, step and softening
# (all of a fresh run without a sweep of the softening; a run continued
# after an interrupt of a run one system a launch may have several groups),
# in batches of at most `max_particles` particles (at least one system;
# lrmd_batch_particles()); else one system a launch.
lrmd_batches <- function(sy, n, batched, max_particles = LRMD_BATCH_PARTICLES) {
  if (!batched || nrow(sy) == 1) return(as.list(seq_len(nrow(sy))))
  key <- sprintf("%.17g %.17g %.17g %.17g", sy$step_end, sy$clock_t, sy$clock_step, sy$softening)
  size <- max(1, floor(max_particles / n))
  out <- list()
  for (g in split(seq_len(nrow(sy)), factor(key, levels = unique(key)))) {
    out <- c(out, unname(split(g, (seq_along(g) - 1) %/% size)))
  }
  out
}

# Systems (one, or several side by side: see lrmd_batched()) from their
# states at step steps0 of their chains, run in parts (see ?lrmd,
# Continuing): `states` a list, each system's columns or a recipe the
# engine draws; `labels` names each system in an engine's error. Returns
# list(k (the steps of the records kept, counted in this run), rec (per
# system: 4 x records), state (per system: columns), snaps (per system: a
# list of list(k, cols)), steps_done, run, pmax (per system: a drawn
# start's fastest particle)).
lrmd_one <- function(fr, model, n, dt, softening, steps, record_every, steps0, states,
                     snap_steps, time_of, call, labels) {
  # Records lie on the grid of the chain's steps: the multiples of
  # record_every. A continuation that starts off the grid runs to the next
  # grid step first (its records there), then the rest: the state at every
  # step and the records are those of one long run.
  head <- (-steps0) %% record_every
  parts <- if (head == 0) list(c(0, steps, record_every)) else if (head >= steps) {
    list(c(0, steps, steps))
  } else list(c(0, head, head), c(head, steps - head, record_every))
  nsys <- length(states)
  res <- list(steps_done = 0, run = c(seconds = 0, rounds = 0, interrupted = 0),
              pmax = rep(NA_real_, nsys))
  recs <- list()
  snaps <- list()
  joined <- NULL # after a part: the systems' states, side by side
  for (p in parts) {
    k0 <- p[1]
    mine <- snap_steps[snap_steps >= k0 & snap_steps <= k0 + p[2] &
                         !(k0 > 0 & snap_steps == k0)] - k0
    r <- withCallingHandlers(
      # the declared many-body engine (R/lrmd-declared.R)
      lrmd_declared_sim(fr, model, n, dt, softening, p[2], p[3], states, mine, joined, call),
      error = function(e) {
        msg <- sp_cnd_text(e)
        # systems side by side: the engine names the system of a failure
        m <- regmatches(msg, regexec("^system ([0-9]+): ", msg))[[1]]
        if (nsys > 1 && length(m) == 2) {
          e$message <- paste0(labels[as.integer(m[2])], ": ", substring(msg, nchar(m[1]) + 1))
        }
        # the engine counts the steps of this part: say where it began
        if (k0 > 0 && inherits(e, "statphysgpu_not_finite")) {
          e$message <- sprintf(paste0(
            "%s (steps counted from step %s of the chain, where the second part of this ",
            "run began: it ran to the record grid first, see ?lrmd, Continuing)"),
            sp_cnd_text(e), fmt_count(steps0 + k0))
        }
        if (!identical(msg, e$message)) stop(e)
      })
    joined <- r$state # the columns of the states: the next part's start
    if (k0 == 0) res$pmax <- if (nsys == 1) r$start_pmax else r$pmax
    # the records and snapshots reached, their steps in this run
    ks <- seq(0, r$steps_done, by = p[3])
    rec <- matrix(r$rec, nrow = 4)
    nrec <- ncol(rec) / nsys
    recs[[length(recs) + 1]] <- list(k = k0 + ks, rec = lapply(seq_len(nsys), function(s) {
      rec[, (s - 1) * nrec + seq_along(ks), drop = FALSE]
    }))
    for (i in which(mine <= r$steps_done)) {
      snaps[[length(snaps) + 1]] <- list(k = k0 + mine[i], cols = r$snap[[i]])
    }
    res$steps_done <- res$steps_done + r$steps_done
    res$run <- c(seconds = res$run[["seconds"]] + r$run[["seconds"]],
                 rounds = res$run[["rounds"]] + r$run[["rounds"]],
                 interrupted = r$run[["interrupted"]])
    rm(r)
    if (res$run[["interrupted"]] == 1) break
  }
  k <- unlist(lapply(recs, `[[`, "k"))
  keep <- (steps0 + k) %% record_every == 0 & !duplicated(k)
  # each system's share of the columns side by side (one system: as they are)
  own <- function(cols, s) if (nsys == 1) cols else lapply(cols, function(v) v[(s - 1) * n + seq_len(n)])
  per <- lapply(seq_len(nsys), function(s) {
    sr <- lapply(recs, function(r) list(k = r$k, rec = r$rec[[s]]))
    lrmd_check_finite(model, sr, steps0, time_of, call)
    list(rec = do.call(cbind, lapply(sr, `[[`, "rec"))[, keep, drop = FALSE],
         state = own(joined, s),
         snaps = lapply(snaps, function(x) list(k = x$k, cols = own(x$cols, s))))
  })
  c(res, list(k = k[keep], rec = lapply(per, `[[`, "rec"), state = lapply(per, `[[`, "state"),
              snaps = lapply(per, `[[`, "snaps")))
}

# The records of several systems, one data frame (their columns joined).
lrmd_bind <- function(recs) {
  recs <- recs[!vapply(recs, is.null, TRUE)]
  nm <- names(recs[[1]])
  new_df(stats::setNames(lapply(nm, function(v) unlist(lapply(recs, `[[`, v), use.names = FALSE)),
                         nm))
}

# The result of lrmd(): records `out`, and the attributes (see ?lrmd,
# Value); one system keeps the shapes of a single run (state a data frame,
# e0 a number, snapshots a list of data frames).
lrmd_result <- function(out, fr, run, model, n, dt, steps, record_every, systems, conditions,
                        states, snaps) {
  one <- nrow(systems) == 1
  soft <- unique(systems$softening)
  attr(out, "model") <- model
  attr(out, "params") <- list(n = n, dt = dt, steps = steps, record_every = record_every,
                              softening = soft, step_start = min(systems$step_start),
                              step_end = max(systems$step_end))
  attr(out, "state") <- if (one) states[[1]] else states
  attr(out, "snapshots") <- if (one) snaps[[1]] else snaps
  # (per system, in the order of `systems`)
  attr(out, "e0") <- systems$e0
  attr(out, "clock") <- list(t = systems$clock_t[1], step = systems$clock_step[1], dt = dt)
  attr(out, "time_end") <- systems$time_end
  attr(out, "steps_done") <- systems$steps_done
  attr(out, "systems") <- systems
  attr(out, "conditions") <- conditions
  done <- sum(systems$steps_done)
  out <- sim_result(out, fr, list(run = run), class = c("lrmd_run", "data.frame"),
             unfinished = if (one) sprintf(paste0(
               "%s of %s steps made; the records up to step %s and the state there are ",
               "returned (init = the result continues the run)"),
               fmt_count(done), fmt_count(steps), fmt_count(systems$step_end)) else
                 sprintf(paste0(
                   "%s of %s system-steps made (%s systems of %s steps); the records reached ",
                   "and each system's state are returned (init = the result continues every ",
                   "system)"), fmt_count(done), fmt_count(steps * nrow(systems)),
                   fmt_count(nrow(systems)), fmt_count(steps)))
  sp_seal(out, LRMD_SEALED)
}

# The fields of an lrmd() result that a continuation reads (lrmd_check_run(),
# lrmd_systems(), lrmd_states()), sealed when the result is made (see
# sp_seal()): a result modified afterwards is refused.
LRMD_SEALED <- c("model", "params", "clock", "e0", "state", "systems", "conditions",
                 "seed_hex")

# The systems of a run given as `init` (checked by lrmd_check_run()): its
# attribute `systems`, or for a run of one system (also one made before
# replicas existed) the table of its attributes params, clock and e0.
lrmd_systems <- function(x) {
  s <- attr(x, "systems")
  if (is.data.frame(s) && nrow(s) > 1) {
    return(data.frame(condition = if (is.null(s$condition)) 1 else s$condition,
                      replica = s$replica, softening = s$softening, e0 = s$e0,
                      step_end = s$step_end, clock_t = s$clock_t, clock_step = s$clock_step))
  }
  p <- attr(x, "params")
  ck <- attr(x, "clock")
  data.frame(condition = 1, replica = if (is.data.frame(s)) s$replica else 1,
             softening = p$softening, e0 = attr(x, "e0"), step_end = p$step_end,
             clock_t = ck$t, clock_step = ck$step)
}

# The final states of a run's systems, a list of data frames.
lrmd_states <- function(x) {
  s <- attr(x, "state")
  if (is.data.frame(s)) list(s) else s
}

# The particles of `init` (a start, a grid of starts, or numbers), for the
# choice of backend before the start is read: 2 when it has no rows.
lrmd_init_rows <- function(init) {
  if (inherits(init, "lrmd_starts")) return(attr(init, "n"))
  r <- lrmd_recipe(init)
  if (!is.null(r)) r$recipe[2] else if (!is.null(nrow(init))) nrow(init) else 2
}

# The seed of a start or grid of starts ("0x..."), whose replicas lrmd()
# draws from its streams; NULL for a start given as numbers.
lrmd_init_seed <- function(init) {
  if (inherits(init, c("lrmd_init", "lrmd_starts"))) attr(init, "seed_hex")
}

# The start of a condition (or of a continued system): list(recipe (the
# recipe of its lazy start, or NULL: a start given as numbers or changed
# since it was made), cols (its columns when R read them, else NULL), pmax,
# n).
lrmd_start_spec <- function(init, model, call, run = FALSE) {
  rc <- lrmd_recipe(init)
  if (!is.null(rc) && length(init) != length(lrmd_columns(model))) rc <- NULL # refused below
  if (!is.null(rc) && !rc$drawn) return(list(recipe = rc$recipe, cols = NULL, n = rc$recipe[2]))
  st <- lrmd_state(init, model, call, run = run)
  list(recipe = rc$recipe, cols = st$cols, pmax = st$pmax, n = st$n)
}

# The model of an initial condition or a run given as `init`.
lrmd_init_model <- function(init, call) {
  m <- attr(init, "model")
  if (!is.character(m) || length(m) != 1 || !m %in% c("hmf", "ring", "gravity2d")) {
    sp_abort(sprintf(paste0("`init` is an %s whose attribute `model` is %s, not one of \"hmf\", ",
                            "\"ring\", \"gravity2d\"; pass an unmodified result of %s."),
                     if (inherits(init, "lrmd_run")) "lrmd() run" else "initial condition",
                     describe(m),
                     if (inherits(init, "lrmd_run")) "lrmd()" else "hmf_waterbag() ..."),
             call = call)
  }
  m
}

# A previous run given as `init` (a continuation): every attribute the
# continuation reads, checked; errors name `init` and the attribute.
lrmd_check_run <- function(x, call) {
  damaged <- function(what, detail = "") {
    sp_abort(sprintf(paste0("`init` is an lrmd() run whose attribute `%s` is missing or ",
                            "damaged%s; continue from an unmodified result of lrmd()."),
                     what, detail),
             call = call)
  }
  one <- function(v) is.numeric(v) && length(v) == 1 && !is.na(v) && is.finite(v)
  whole <- function(v, lo) one(v) && v == floor(v) && v >= lo
  model <- lrmd_init_model(x, call)
  p <- attr(x, "params")
  soft <- p$softening
  if (!is.list(p) || !whole(p$n, 2) || !one(p$dt) || p$dt <= 0 || !is.numeric(soft) ||
      !length(soft) || anyNA(soft) || any(!is.finite(soft) | soft <= 0) ||
      !whole(p$step_end, 0)) {
    damaged("params", " (n >= 2, dt > 0, softening > 0, step_end >= 0)")
  }
  ck <- attr(x, "clock")
  if (!is.list(ck) || !one(ck$t) || !whole(ck$step, 0) || ck$step > p$step_end ||
      !one(ck$dt) || ck$dt <= 0) {
    damaged("clock", " (t, step <= the run's last step, dt > 0)")
  }
  sy <- attr(x, "systems")
  multi <- is.data.frame(sy) && nrow(sy) > 1
  state_ok <- function(s) {
    is.data.frame(s) && length(s) == length(lrmd_columns(model)) && nrow(s) == p$n &&
      all(vapply(s, function(v) is.numeric(v) && length(v) == p$n, TRUE))
  }
  if (!multi) {
    if (!one(attr(x, "e0"))) damaged("e0", " (the energy per particle at the start of the chain)")
    if (!state_ok(attr(x, "state"))) lrmd_damaged_state(model, p$n, call)
    return(x)
  }
  # several systems: one row of `systems` each, and a state each
  num <- function(v, lo = -Inf) is.numeric(v) && length(v) == nrow(sy) && all(is.finite(v) & v >= lo)
  if (!num(sy$replica, 1) || !num(sy$softening, 0) || !num(sy$step_end, 0) ||
      !num(sy$clock_t) || !num(sy$clock_step, 0) || !is.numeric(sy$e0) ||
      length(sy$e0) != nrow(sy) || any(!is.finite(sy$e0) & sy$step_end > 0) ||
      !identical(unname(attr(x, "e0")), unname(sy$e0)) ||
      (!is.null(attr(x, "conditions")) && !num(sy$condition, 1))) {
    damaged("systems", paste0(" (one row per system: replica, softening, e0, step_end, ",
                              "clock_t, clock_step, as attribute e0)"))
  }
  s <- attr(x, "state")
  if (!is.list(s) || is.data.frame(s) || length(s) != nrow(sy) || !all(vapply(s, state_ok, TRUE))) {
    lrmd_damaged_state(model, p$n, call)
  }
  x
}

# The error of a run given as `init` whose final state is damaged (its
# finiteness is checked by lrmd_state()'s scan).
lrmd_damaged_state <- function(model, n, call) {
  cols <- lrmd_columns(model)
  sp_abort(sprintf(paste0("`init` is an lrmd() run whose attribute `state` is missing or ",
                          "damaged (its final phase space: %s rows, one per particle, and the ",
                          "%d columns (%s) of model \"%s\", finite numbers); continue from an ",
                          "unmodified result of lrmd()."),
                   fmt_count(n), length(cols), paste(cols, collapse = ", "), model), call = call)
}

# The least softening a model's pair terms resolve in a precision: ring, 1
# - cos(theta_i - theta_j) of a particle with itself or a close neighbour
# carries rounding of about 1e-7 in single and 1e-16 in double precision,
# which moves the energy by about 5e-7 (relative) at a softening of 1e-4 in
# single and 1e-11 in double precision (the self terms' rounding, measured
# at dt -> 0); gravity2d, the softening's square must be a normal number of
# the precision (1e-36 > 1.2e-38 in single, 1e-306 > 2.2e-308 in double),
# so that the reciprocal of a pair at distance 0 is finite.
lrmd_softening_min <- function(model, precision) {
  if (precision == "mixed") c(hmf = 0, ring = 1e-4, gravity2d = 1e-18)[[model]]
  else c(hmf = 0, ring = 1e-11, gravity2d = 1e-153)[[model]]
}

# The fastest rate of a start (1/time), and the coarse-step warning (class
# statphysgpu_coarse_dt, as kuramoto()'s, and statphysgpu_step_warning, as
# escape_times()' and driven_brownian()'s): dt times the rate above 1 rad a
# step. The rates (see ?lrmd, Coarse steps): the oscillation in the deepest
# well the model allows -- HMF, the mean field's sqrt(M) <= 1; ring, all
# particles in one clump narrower than sqrt(2 eps), 8^(-1/4) eps^(-3/4);
# gravity2d, the same, 1/eps -- and the fastest particle of the start
# crossing that well's width (1 rad, sqrt(2 eps), eps).
lrmd_rate <- function(model, softening, pmax) {
  switch(model,
         hmf = max(1, pmax),
         ring = max(8^(-1 / 4) * softening^(-3 / 4), pmax / sqrt(2 * softening)),
         gravity2d = max(1, pmax) / softening)
}

# Several starts (systems): one warning, for the fastest.
lrmd_check_dt <- function(model, dt, softening, pmax, call) {
  rates <- mapply(lrmd_rate, softening, pmax, MoreArgs = list(model = model))
  rate <- max(rates)
  h <- dt * rate
  if (h > 1) {
    what <- switch(model, hmf = "max(1, max |p|)",
                   ring = "max(8^(-1/4) softening^(-3/4), max |p| / sqrt(2 softening))",
                   gravity2d = "max(1, max |p|) / softening")
    sp_warn(sprintf(paste0(
      "`dt` = %s is coarse for the %s model: dt times the fastest rate of %s, ",
      "%s = %s, is %s rad a step (above 1 Yoshida's energy error passes about 1e-3, and from ",
      "1.57 the step is unstable); use a smaller `dt` (at most %s)."),
      format(dt), model, if (length(rates) > 1) "these starts" else "this start", what,
      format(rate, digits = 3), format(h, digits = 3),
      format(1 / rate, digits = 3)), call = call,
      class = c("statphysgpu_coarse_dt", "statphysgpu_step_warning"))
  }
  invisible(h)
}

# Bytes of memory a run needs beyond the start the caller holds, from
# measured peaks (VmHWM of /proc/self/status reset before the run, glibc's
# mmap threshold fixed at 64 KiB so that every vector is mapped and unmapped
# as at large n; `Rscript bench/lrmd.R memory`, CPU): per particle 24-32 B
# (HMF at 1e6 and 1e7, mixed and double, a start drawn by the engine or
# given), 40-48 B (an HMF continuation off the record grid, whose two parts
# each return a state), 17-23 B (ring at 2e4), 49-63 B (gravity2d at 2e4):
# 64 B, 112 B for gravity2d (its continuation, by the same count); per
# particle of a snapshot 16 B (HMF, ring) and 32 B (gravity2d): 24 and 40 B;
# per record 371 B (1e5 records): 400 B.  A start the engine draws is drawn
# into the state it returns: nothing more.
lrmd_bytes <- function(model) {
  two_d <- model == "gravity2d"
  list(particle = if (two_d) 112 else 64, snapshot = if (two_d) 40 else 24, record = 400)
}

# Several systems: each keeps its final state (the state's columns, 16 B a
# particle, 32 for gravity2d), snapshots and records; the working memory of
# a launch is that of its `batch` systems (side by side: lrmd_batches()).
lrmd_check_memory <- function(model, n, nsnap, nrec, call, systems = 1, batch = 1) {
  b <- lrmd_bytes(model)
  state <- if (model == "gravity2d") 32 else 16
  need <- batch * n * b$particle + (systems - batch) * n * state +
    systems * (n * nsnap * b$snapshot + nrec * b$record)
  avail <- available_memory()
  if (need > avail) {
    sp_abort(sprintf(paste0(
      "the run would need about %s of memory (%s particles at %d B, %s snapshot%s at %d B a ",
      "particle, %s records at %d B%s), more than the %s available; use fewer particles (`n`) ",
      "or `snapshots`, %sor a larger `record_every`."),
      fmt_bytes(need), fmt_count(n), b$particle, fmt_count(nsnap), if (nsnap == 1) "" else "s",
      b$snapshot, fmt_count(nrec), b$record,
      if (systems > 1) sprintf(", for each of %s systems, whose final states take %d B a particle",
                               fmt_count(systems), state) else "",
      fmt_bytes(avail), if (systems > 1) "fewer replicas or conditions (chunks: `first_replica`), "
      else ""), call = call)
  }
  invisible(need)
}

# The first non-finite number of the records reached: an error naming the
# step and the quantity (the run broke down; nothing is dropped or hidden).
# The engines check the state (every step) and each record themselves; this
# is the R side's check of what it returns.  The state and the snapshots,
# copies of states the engine checked, are not scanned again.
lrmd_check_finite <- function(model, recs, steps0, time_of, call) {
  what <- c("kinetic energy", "potential energy",
            if (model == "gravity2d") c("virial", "half-mass radius") else
              c("magnetisation Mx", "magnetisation My"))
  for (r in recs) {
    bad <- which(!is.finite(r$rec), arr.ind = TRUE)
    if (length(bad)) {
      j <- min(bad[, 2])
      k <- r$k[j]
      sp_abort(sprintf(paste0(
        "the run broke down: the %s is not a finite number at step %s (time %s). Non-finite ",
        "numbers come from a step too coarse for the forces (`dt`), a softening too small for ",
        "the precision (`softening`), or a start whose energy overflows (`init`)."),
        what[min(bad[bad[, 2] == j, 1])], fmt_count(steps0 + k), format(time_of(k))),
        call = call, class = "statphysgpu_not_finite")
    }
  }
  invisible(TRUE)
}

# The start given as data: list(cols, n, pmax), its columns (the model's
# order) the caller's own where they are doubles already (no copies), after
# one pass (C) that checks them finite and the momenta's squares summable,
# and finds the largest |momentum component| for the coarse-step warning.
lrmd_state <- function(init, model, call, run = FALSE) {
  cols <- lrmd_columns(model)
  ok <- (is.data.frame(init) || is.matrix(init)) && ncol(init) == length(cols) &&
    nrow(init) >= 2 && (!is.matrix(init) || is.numeric(init))
  column <- function(j) if (is.matrix(init)) init[, j] else init[[j]]
  if (ok) ok <- all(vapply(seq_along(cols), function(j) is.numeric(column(j)), TRUE))
  bad <- function(finite) {
    if (run) lrmd_damaged_state(model, nrow(init), call)
    what <- if (is.data.frame(init) || is.matrix(init)) {
      sprintf("a %s with %s rows and %s columns%s", if (is.matrix(init)) "matrix" else "data frame",
              fmt_count(nrow(init)), fmt_count(ncol(init)),
              if (ncol(init) == length(cols)) " (with values that are not finite numbers)" else "")
    } else describe(init)
    sp_abort(sprintf(paste0("`init` must be an initial condition (hmf_waterbag() ...), a ",
                            "previous lrmd() run, or a data frame or matrix of finite numbers ",
                            "with n >= 2 rows and the %d columns (%s) of model \"%s\", not %s."),
                     length(cols), paste(cols, collapse = ", "), model, what), call = call)
  }
  if (!ok) bad()
  df <- lapply(seq_along(cols), function(j) {
    v <- column(j)
    if (is.double(v) && is.null(attributes(v))) v else as.vector(v, "double")
  })
  scan <- .Call(C_sp_r_lrmd_scan, df, if (model == "gravity2d") 2L else 1L)
  if (scan[1] != 1) bad()
  if (!is.finite(scan[2])) {
    sp_abort(sprintf(paste0("`init` has momenta too large: the sum of their squares (twice the ",
                            "kinetic energy) overflows double precision.")), call = call)
  }
  list(cols = df, n = length(df[[1]]), pmax = scan[3])
}

# Particles a launch from which backend = "auto" takes the GPU: below, a
# step is a few microseconds of kernel launches on the GPU and no longer on
# the CPU.
lrmd_gpu_from <- function(model) if (model == "hmf") 1e5 else 2000

# The particles of a launch on one GPU: those of all the call's systems,
# side by side (up to lrmd_batch_particles()).
lrmd_launch_particles <- function(model, n, systems) {
  min(n * systems, max(n, lrmd_batch_particles(model)))
}
