#' Long-range molecular dynamics: HMF, ring and 2D self-gravitating systems
#'
#' Integrates Hamilton's equations of \eqn{N} particles with long-range
#' interactions (paper 004) by Yoshida's 4th-order symplectic scheme, on
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
#' drifts, the kicks and every sum over particles. `"mixed"` (paper 004's
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
#' energy error stays relative to the first run's \eqn{E_0}. A run of
#' \eqn{a} steps continued by \eqn{b} steps gives exactly the records and
#' state of one run of \eqn{a + b} steps.
#'
#' **Backends.** The CPU engine runs on [sp_threads()] threads; its result
#' does not depend on the thread count (bitwise: every sum runs over fixed
#' tiles in a fixed order). The GPU engine (kernels in `lrmd.cu`: per HMF
#' stage one fused pass of kick, drift, sincos and grid reduction, three a
#' step; tiled all-pairs forces for ring and gravity2d, the sources cut into
#' parts when there are too few particles to fill the device) gives the
#' CPU's numbers to rounding. `backend = "auto"` takes the GPU from
#' \eqn{10^5} particles for HMF and 2000 for ring and gravity2d (below, a
#' step is a few microseconds of kernel launches).
#'
#' The ring and gravity2d engine kicks and drifts inside the pair pass (one
#' launch a force evaluation instead of three: 1.1 times faster at
#' \eqn{10^4} particles on an H100, where launches cost); option
#' `statphysgpu.lrmd_fused = FALSE` runs separate passes, with the same
#' numbers bit for bit. When the targets alone cannot fill the GPU, the
#' sources are cut into parts: as many as fill one wave of resident
#' blocks at small n, enough to fill the last wave at large n; option
#' `statphysgpu.lrmd_blocks_per_sm = b` cuts them as if `b` blocks fit an SM
#' (fewer than fit: longer parts; more: shorter parts in several waves;
#' numbers equal to rounding; for tuning: on an H100 neither beat the
#' default, `bench/RESULTS.md`).
#'
#' **Several GPUs.** `devices = c(0, 1)` or `"all"` cuts the particles into
#' one slice per device; each device updates its slice and the devices
#' exchange, every stage, what the next force evaluation needs (HMF: each
#' slice's magnetisation sums, 16 bytes; ring and gravity2d: each slice's
#' sines and cosines or coordinates), peer to peer where the devices allow
#' it, ordered by events on the devices' streams (no host round trip). The
#' result equals one device's to rounding (the sums over slices run in
#' another order). On two H200s joined by NVLink the largest systems run
#' 1.8 (HMF, \eqn{5 \times 10^7} particles) and 2.0 times (ring and
#' gravity2d, \eqn{10^6}) as fast as on one.
#'
#' **Precision.** Positions, momenta, drifts, kicks and every sum over
#' particles are double in both precisions. `"mixed"` computes the sines and
#' cosines (or coordinates) the force reads and each pair term in single
#' precision; on the GPU sums of 8 consecutive pair terms are formed in
#' single precision and added into double accumulators, and the reciprocal
#' square root and reciprocal are the hardware's alone, without subnormal
#' handling (kernel variant `"mixed_ftz"`, the default of option
#' `statphysgpu.lrmd_variant`; `"mixed"` keeps the subnormal handling and
#' gives the same numbers bit for bit, 1.15-1.3 times slower;
#' `"mixed_ftz_pf"` double-buffers the source tiles, with the same numbers,
#' not yet timed on a GPU;
#' `"mixed_pair"` adds every pair term in double, the wording of paper 004,
#' with the same energy error to four digits and 1.3-2.1 times slower;
#' `bench/lrmd.R` compares them). In mixed precision the softening must be at least
#' \eqn{10^{-4}} for the ring model (the single-precision \eqn{1 - \cos} of
#' a particle with itself or a close neighbour carries rounding of
#' \eqn{10^{-7}}) and \eqn{10^{-18}} for gravity2d (its square a normal
#' single-precision number); use `"double"` below. `"double"` does
#' everything in double.
#'
#' @section Interrupts: Ctrl-C stops the run after the steps in flight, with
#'   a warning of class `statphysgpu_interrupted`; the records up to the
#'   step reached and the state there are returned (`init = ` the result
#'   continues it).
#' @param model `"hmf"`, `"ring"` or `"gravity2d"` (taken from `init` when
#'   that is an initial condition or a run).
#' @param n Number of particles (taken from `init` when missing).
#' @param init The start: an object of [hmf_waterbag()],
#'   [hmf_equilibrium()], [ring_uniform()], [gravity2d_shell()]; a previous
#'   result of `lrmd()` (to continue it); or a data frame or matrix of `n`
#'   rows with columns (theta, p) for HMF and ring or (x, y, px, py) for
#'   gravity2d. Missing: `hmf_waterbag(n, 1, 0.69)`, `ring_uniform(n)` or
#'   `gravity2d_shell(n, 0.5, 1)` drawn with `seed`.
#' @param dt Time step.
#' @param steps Number of steps.
#' @param record_every Steps between records (by default 10, or `steps` if fewer).
#' @param softening \eqn{\epsilon > 0} of the ring and gravity2d potentials
#'   (when continuing a run, its softening unless given).
#' @param snapshots Times at which to keep the whole phase space (rounded
#'   to the nearest step; the times of a continued run go on from the
#'   previous one's end).
#' @param seed Seed of the default `init` (see [philox]); the dynamics is
#'   deterministic.
#' @param backend `"auto"` (see Backends), `"cpu"` or `"gpu"`.
#' @param devices GPU ids (several: the particles are split over them, see
#'   Several GPUs), `"all"`, or `NULL` for the first; see [gpu_devices()].
#' @param precision `"mixed"` or `"double"` (see Precision).
#' @param progress Show a progress bar.
#' @return An object of class `lrmd_run`: a data frame with one row per
#'   record and columns `step`, `time`, `kinetic`, `potential`, `total`
#'   (per particle), `energy_error`, then `Mx`, `My`, `M` (HMF, ring) or
#'   `virial_ratio`, `r_half` (gravity2d), and `temperature`; attributes
#'   `model`, `params`, `state` (the final phase space, a data frame like
#'   `init`'s), `snapshots` (a list of such data frames, each with its
#'   `time`), `e0`, `steps_done`, `seed`, `backend`, `devices`,
#'   `precision`, `seconds`, `interrupted`.
#' @references Rocha Filho, T. M. (2014) Molecular dynamics for long-range
#'   interacting systems on graphic processing units. *Computer Physics
#'   Communications* 185, 1364-1369 (paper 004); Yoshida, H. (1990)
#'   Construction of higher order symplectic integrators. *Physics Letters
#'   A* 150, 262-268.
#' @seealso [hmf_waterbag()], [hmf_caloric()], [plot.lrmd_run()].
#' @examples
#' x <- lrmd("hmf", init = hmf_waterbag(2000, M0 = 1, U = 0.69, seed = 1),
#'           dt = 0.1, steps = 500, record_every = 10, backend = "cpu")
#' x
#' summary(x)
#' hmf_caloric(0.69) # the equilibrium M the quasi-stationary state avoids
#' y <- lrmd(init = x, dt = 0.1, steps = 100, backend = "cpu") # continue
#' g <- lrmd("gravity2d", init = gravity2d_shell(300, 0.5, 1, seed = 1), dt = 0.01,
#'           steps = 200, record_every = 20, snapshots = 2, backend = "cpu")
#' summary(g)
#' @export
lrmd <- function(model = c("hmf", "ring", "gravity2d"), n, init, dt, steps,
                 record_every = 10, softening = 0.01, snapshots = NULL, seed = NULL,
                 backend = "auto", devices = NULL, precision = c("mixed", "double"),
                 progress = interactive()) {
  call <- sys.call()
  prev <- if (!missing(init) && inherits(init, "lrmd_run")) init
  from <- if (!missing(init) && (inherits(init, c("lrmd_init", "lrmd_run")))) attr(init, "model")
  if (missing(model) && !is.null(from)) model <- from
  model <- check_choice(model, c("hmf", "ring", "gravity2d"), "model", call = call)
  if (!is.null(from) && from != model) {
    sp_abort(sprintf("`init` is a %s %s, not one of model \"%s\".", from,
                     if (is.null(prev)) "start" else "run", model), call = call)
  }
  if (!missing(n)) n <- check_whole(n, "n", lo = 2, hi = 2^31 - 1, call = call)
  if (missing(dt)) sp_abort("`dt` (the time step) must be given.", call = call)
  dt <- check_positive(dt, "dt", len = 1, call = call)
  if (missing(steps)) sp_abort("`steps` must be given.", call = call)
  steps <- check_whole(steps, "steps", lo = 1, hi = 2^52, call = call)
  if (missing(record_every)) record_every <- min(record_every, steps)
  record_every <- check_whole(record_every, "record_every", lo = 1, hi = steps, call = call)
  if (!is.null(prev) && missing(softening)) softening <- attr(prev, "params")$softening
  softening <- check_positive(softening, "softening", len = 1, call = call)
  nsnap <- if (is.null(snapshots)) 0 else length(snapshots)
  n_est <- if (!missing(n)) n else if (!is.null(prev)) nrow(attr(prev, "state")) else
    if (!missing(init) && !is.null(nrow(init))) nrow(init) else 2
  # backend = "auto": the GPU from lrmd_gpu_from() particles (see Backends)
  if (identical(backend, "auto") && is.null(devices) && n_est < lrmd_gpu_from(model)) {
    backend <- "cpu"
  }
  fr <- sim_frame(call, n = 1, seed = seed, backend = backend, devices = devices,
                  precision = precision, precisions = c("mixed", "double"),
                  progress = progress, n_name = "systems", auto_threshold = 1,
                  row_bytes = 8 * n_est * (8 + 4 * nsnap) + 64 * (steps / record_every + 1))
  soft_min <- c(hmf = 0, ring = 1e-4, gravity2d = 1e-18)[[model]]
  if (fr$precision == "mixed" && softening < soft_min) {
    sp_abort(sprintf(paste0("`softening` = %g is below %.0e, the least the %s model allows in ",
                            "mixed precision (single-precision pair terms); use ",
                            "precision = \"double\"."),
                     softening, soft_min, model), call = call)
  }
  if (fr$plan$backend == "gpu") {
    if (length(fr$plan$devices) > n_est) {
      sp_abort(sprintf("%s particles cannot be split over %d devices.", fmt_count(n_est),
                       length(fr$plan$devices)), call = call)
    }
    # testing: k slices on each device, on streams of their own (the
    # multi-device code on one GPU)
    k <- getOption("statphysgpu.lrmd_slices", 1L)
    if (!is.numeric(k) || length(k) != 1 || is.na(k) || k < 1 || k != floor(k)) {
      sp_abort(sprintf("option statphysgpu.lrmd_slices must be a whole number >= 1, not %s.",
                       describe(k)), call = call)
    }
    if (k > 1) fr$plan$devices <- rep(fr$plan$devices, each = k)
  }
  # tuning: the blocks an SM the pair pass's parts are cut for (0: as many
  # as fit, the default); fewer make longer parts, more shorter ones
  bps <- getOption("statphysgpu.lrmd_blocks_per_sm", 0L)
  if (!is.numeric(bps) || length(bps) != 1 || is.na(bps) || bps < 0 || bps > 1024 ||
      bps != floor(bps)) {
    sp_abort(sprintf(paste("option statphysgpu.lrmd_blocks_per_sm must be a whole number >= 0",
                           "(at most 1024), not %s."),
                     describe(bps)), call = call)
  }
  if (missing(init)) {
    if (missing(n)) sp_abort("`n` or `init` must be given.", call = call)
    init <- switch(model,
                   hmf = hmf_waterbag(n, 1, 0.69, seed = u64_to_hex(fr$seed)),
                   ring = ring_uniform(n, seed = u64_to_hex(fr$seed)),
                   gravity2d = gravity2d_shell(n, 0.5, 1, seed = u64_to_hex(fr$seed)))
  }
  st <- lrmd_state(init, model, call)
  if (missing(n)) n <- nrow(st)
  if (nrow(st) != n) {
    sp_abort(sprintf("`init` has %s rows (particles) but `n` is %s.", fmt_count(nrow(st)),
                     fmt_count(n)), call = call)
  }
  # the clock of a chain of runs: time = t_base + (step_base + k) dt_base
  clock <- if (!is.null(prev)) attr(prev, "clock") else list(t = 0, step = 0, dt = dt)
  steps0 <- if (!is.null(prev)) attr(prev, "params")$step_end else 0
  if (clock$dt != dt) {
    clock <- list(t = clock$t + (steps0 - clock$step) * clock$dt, step = steps0, dt = dt)
  }
  time_of <- function(k) clock$t + (steps0 + k - clock$step) * dt
  snap_steps <- double()
  if (nsnap > 0) {
    snapshots <- check_finite(snapshots, "snapshots", call = call)
    t0 <- time_of(0)
    ks <- round((snapshots - t0) / dt)
    if (any(ks < 0 | ks > steps)) {
      sp_abort(sprintf("`snapshots` must be times between %s and %s (this run), not %s.",
                       format(t0), format(time_of(steps)),
                       format(snapshots[ks < 0 | ks > steps][1])), call = call)
    }
    snap_steps <- sort(unique(ks))
  }
  code <- c(hmf = 0L, ring = 1L, gravity2d = 2L)[[model]]
  two_d <- model == "gravity2d"
  state <- c(st[[1]], if (two_d) st[[2]] else double(n), st[[if (two_d) 3 else 2]],
             if (two_d) st[[4]] else double(n))
  res <- sim_run(fr, C_sp_r_lrmd, code, n, c(dt, softening), c(steps, record_every),
                 as.integer(c(fr$precision == "mixed",
                              isTRUE(getOption("statphysgpu.lrmd_fused", TRUE)), bps)),
                 state, as.double(snap_steps),
                 kernel = "lrmd", variant = lrmd_variant(fr$precision))
  rec <- matrix(res$rec, nrow = 4)
  keep <- !is.na(rec[1, ])
  k <- (seq_len(ncol(rec)) - 1)[keep] * record_every
  e0 <- if (!is.null(prev)) attr(prev, "e0") else rec[1, 1] + rec[2, 1]
  kin <- rec[1, keep]
  pot <- rec[2, keep]
  tot <- kin + pot
  out <- data.frame(step = steps0 + k, time = time_of(k), kinetic = kin, potential = pot,
                    total = tot, energy_error = (tot - e0) / (if (e0 != 0) abs(e0) else 1))
  if (two_d) {
    out$virial_ratio <- 2 * kin / rec[3, keep]
    out$r_half <- rec[4, keep]
    out$temperature <- kin
  } else {
    out$Mx <- rec[3, keep]
    out$My <- rec[4, keep]
    out$M <- sqrt(out$Mx^2 + out$My^2)
    out$temperature <- 2 * kin
  }
  cols <- names(st)
  as_state <- function(v) {
    m <- matrix(v, nrow = n)
    df <- if (two_d) data.frame(m) else data.frame(m[, c(1, 3)])
    names(df) <- cols
    df
  }
  snaps <- lapply(seq_along(snap_steps), function(i) {
    v <- res$snap[(i - 1) * 4 * n + seq_len(4 * n)]
    if (anyNA(v)) return(NULL)
    structure(as_state(v), time = time_of(snap_steps[i]), step = steps0 + snap_steps[i])
  })
  snaps <- snaps[!vapply(snaps, is.null, TRUE)]
  attr(out, "model") <- model
  attr(out, "params") <- list(n = n, dt = dt, steps = steps, record_every = record_every,
                              softening = softening, step_start = steps0,
                              step_end = steps0 + res$steps_done)
  attr(out, "state") <- as_state(res$state)
  attr(out, "snapshots") <- snaps
  attr(out, "e0") <- e0
  attr(out, "clock") <- clock
  attr(out, "time_end") <- time_of(res$steps_done)
  attr(out, "steps_done") <- res$steps_done
  sim_result(out, fr, res, class = c("lrmd_run", "data.frame"),
             unfinished = sprintf(paste0(
               "%s of %s steps made; the records up to step %s and the state there are ",
               "returned (init = the result continues the run)"),
               fmt_count(res$steps_done), fmt_count(steps), fmt_count(res$steps_done)))
}

# The start as a data frame of n rows (theta, p) or (x, y, px, py).
lrmd_state <- function(init, model, call) {
  cols <- if (model == "gravity2d") c("x", "y", "px", "py") else c("theta", "p")
  if (inherits(init, "lrmd_run")) init <- attr(init, "state")
  ok <- (is.data.frame(init) || is.matrix(init)) && ncol(init) == length(cols) &&
    nrow(init) >= 2
  if (ok) {
    m <- as.matrix(init)
    ok <- is.numeric(m) && !anyNA(m) && all(is.finite(m))
  }
  if (!ok) {
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
  df <- as.data.frame(matrix(as.double(m), nrow = nrow(m)))
  names(df) <- cols
  df
}

# Particles from which backend = "auto" takes the GPU: below, a step is a
# few microseconds of kernel launches on the GPU and no longer on the CPU.
lrmd_gpu_from <- function(model) if (model == "hmf") 1e5 else 2000

# The kernel variant of lrmd.cu for a precision: by default "mixed_ftz"
# (sums of 8 pair terms in single precision, the hardware reciprocal (square
# root) without subnormal handling); option statphysgpu.lrmd_variant =
# "mixed" (the same numbers with the subnormal handling) or "mixed_pair"
# (every pair term added in double).
lrmd_variant <- function(precision) {
  if (precision == "double") return("double")
  v <- getOption("statphysgpu.lrmd_variant", "mixed_ftz")
  ok <- setdiff(names(gpu_kernel_registry()$lrmd$variants), "double")
  if (!is.character(v) || length(v) != 1 || !v %in% ok) {
    sp_abort(sprintf("option statphysgpu.lrmd_variant must be one of %s, not %s.",
                     paste0('"', ok, '"', collapse = ", "), describe(v)))
  }
  v
}
