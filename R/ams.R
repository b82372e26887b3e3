#' Rare escapes by adaptive multilevel splitting
#'
#' Estimates, for the tilted washboard of [escape_times()], the probability
#' \eqn{p} that a path leaving the well's region \eqn{A} reaches the
#' threshold before it returns, and the mean first-passage time from the
#' start to the threshold -- the mean of what [escape_times()] samples --
#' where brute force cannot go: the cost of adaptive multilevel splitting
#' (AMS) grows like \eqn{\log(1/p)}, not like \eqn{1/p \sim
#' e^{\Delta U/\theta}}.
#'
#' @section The estimator:
#' The dynamics, steps, thresholds and starts are those of [escape_times()]
#' (\eqn{\ddot\varphi + \beta\dot\varphi = V_0(\gamma - \sin\varphi) +
#' \sqrt{2\beta\theta}\,\xi}). \eqn{A = \{\varphi \le \varphi_A\}} is a
#' region around the bottom of the well, \eqn{\Sigma} its boundary, \eqn{B
#' = \{\varphi > \varphi^*\}} the threshold.
#'
#' Each replica (one independent estimate) runs:
#' 1. *One long trajectory* from the start state (`init`: at rest at the
#'    bottom, or escape_times()'s thermal draw of the same replica). Each
#'    step that ends outside \eqn{A} after one that ended inside is an *exit*
#'    through \eqn{\Sigma}: its state \eqn{(\varphi, \dot\varphi)} is kept
#'    as an AMS starting state, until `particles` exits are collected. The
#'    trajectory gives the durations of the *start segment* (from the start
#'    to the first exit) and of the *failed cycles* (from an exit, back into
#'    \eqn{A}, to the next exit). Should the trajectory itself reach \eqn{B}
#'    (likely only when \eqn{p} is not small), that excursion is a sample like
#'    any other (its exit state is kept; it is no failed cycle), and the
#'    trajectory restarts from a fresh start state, the next start segment.
#'    A thermal start outside \eqn{A} that reaches \eqn{B} before any exit is
#'    a *direct* escape, counted with its time.
#' 2. *AMS* (Cerou and Guyader 2007; the unbiased version of Brehier et al.
#'    2016, ties killed together) on the \eqn{N} = `particles` exit states:
#'    each particle runs until it returns to \eqn{A} or reaches \eqn{B},
#'    keeping its largest score (by default the position). Repeat: the
#'    level \eqn{z} is the `k`-th smallest maximum; every particle whose
#'    maximum is \eqn{\le z} is killed (\eqn{K_q} of them) and restarts, with
#'    fresh noise, from the state of a uniformly picked survivor at that
#'    survivor's first step above \eqn{z}; until the level passes \eqn{B}
#'    (or every particle would be killed: \eqn{p = 0}, "extinct").
#'    \eqn{\hat p = \prod_q (1 - K_q/N)\, N_B/N}, unbiased for any \eqn{N},
#'    `k` and score. The branch state is not stored: a particle's path is a
#'    function of its origin state and its own Philox stream (counter-based),
#'    so the survivor's path is *replayed* up to the level -- a replay costs
#'    at most one path.
#'
#' The mean first-passage time follows from the reactive-path decomposition
#' (Cerou, Guyader, Lelievre and Pommier 2011):
#' \deqn{\tau = P_d\,T_d + (1 - P_d)\,\bigl(T_s + (1/p - 1)\,T_{loop} +
#' T_r\bigr),}
#' with \eqn{T_{loop}} the mean failed cycle, \eqn{T_s} the mean start
#' segment, \eqn{T_r} the mean duration (exit to \eqn{B}) of the AMS
#' particles in \eqn{B} at the end, weighted by each replica's \eqn{\hat p},
#' and \eqn{P_d}, \eqn{T_d} the fraction and mean time of direct escapes (0
#' at rest). \eqn{T_s + T_r} is the mean reactive path of the paper's
#' \eqn{\tau = (1/p - 1)E[T_{loop}] + E[T_{react}]}. \eqn{p},
#' \eqn{T_{loop}}, \eqn{T_r} (as \eqn{E[\hat p\,T_r]/E[\hat p]}), \eqn{T_s}
#' are averaged over the replicas first and \eqn{\tau} is formed from the
#' averages (an average of per-replica \eqn{1/\hat p} would be biased
#' upward); standard errors are jackknife errors over the replicas (at least
#' 2; 10 or more for trustworthy errors). The decomposition treats the
#' excursions from \eqn{\Sigma} as independent of the path before them; the
#' first excursion from a start at rest (colder than the rest) makes a small
#' difference of relative order \eqn{p}.
#'
#' @section Choice of A and of the score:
#' \eqn{\varphi_A} (`phi_A`, radians past the bottom of the well
#' \eqn{\arcsin\gamma}) defaults to the point where the potential is
#' \eqn{\min(\theta, \Delta U/2)} above the bottom: exits are frequent (the
#' long trajectory is short) and the paths from \eqn{\Sigma} carry the
#' velocity of the dynamics, never an assumed one. The result does not
#' depend on \eqn{\varphi_A} or \eqn{k} beyond its error (the tests compare
#' two choices); \eqn{p} does (it is the probability from \eqn{\Sigma}). The
#' score is the position \eqn{\varphi} by default; `score = "energy"` takes
#' the levels in the energy \eqn{\dot\varphi^2/2 + U(\varphi)}, which at
#' weak or moderate damping (where the committor is nearly a function of the
#' energy below the barrier) gives a smaller variance for the same cost. AMS
#' is unbiased for any score: the two agree within their errors (the tests
#' compare them). But a poor score makes one replica's \eqn{\hat p}
#' strongly skewed (most replicas underestimate \eqn{p}, a few overestimate
#' it a lot), so that an average over a few dozen replicas lands high in
#' \eqn{\tau} with wide errors: with the position at moderate damping
#' (\eqn{Q \approx 2}, \eqn{\Delta U/\theta = 20}) the package measured
#' 9 times the rate theory's time from 32 replicas of 200 particles, with the
#' energy 1.4 times (`vignette("rare-escapes")`). `summary()` reports the
#' relative variance against the ideal; far above it, use more replicas or
#' the other score. The engine's only model-specific pieces are the step and
#' the score (`inst/cuda/ams.h`): [sde_ams()] runs the same code on a user's
#' model with a reaction coordinate written as an expression.
#'
#' @section Cost and error:
#' One estimate \eqn{\hat p} from \eqn{N} particles has a relative variance
#' close to the ideal \eqn{-\log(p)/N} of the last-particle method (k = 1;
#' Cerou et al. 2011); the relative standard error of the mean over
#' \eqn{R} replicas is then about \eqn{\sqrt{-\log(p)/(N R)}}. The work is
#' about \eqn{N \log(1/p)} branch runs whatever `k` is, but the levels --
#' which run one after another -- number about \eqn{(N/k)\log(1/p)}: with
#' k = 1 a GPU runs one branch at a time per replica and waits on each, with
#' \eqn{k = N/20} it runs 20 times fewer levels of \eqn{k} branches side by
#' side. Replicas run side by side too, so on a GPU more replicas cost
#' little time until the device is full, and several devices (`devices =
#' "all"`) share them. Measured on one NVIDIA H100 (bench/ams.R of the
#' package's sources; overdamped washboard, \eqn{\gamma = 0.2}, \eqn{V_0 =
#' 1}, \eqn{\beta = 40}, `dt = 0.01`, SRK2, single precision, start at
#' rest):
#'
#' | \eqn{\Delta U/\theta} | N | k | replicas | seconds | rel. error of the mean first-passage time |
#' |---|---|---|---|---|---|
#' | 30 | 1000 | 1 | 16 | 137 | 0.043 |
#' | 30 | 1000 | 50 | 64 | 7.7-9.4 | 0.025-0.026 |
#' | 30 | 1000 | 50 (`"auto"`) | 66 (`"auto"`) | 9.1 (an H200) | 0.026 |
#' | 30 | 1000 | 50 (`"auto"`) | 132 (`"auto"`, 2 H200s) | 10.0 | 0.019 |
#' | 8 .. 30 | 500 | 25 | 256 | 3.8 .. 6.8 | relative variance 1.02-1.13 x the ideal |
#'
#' The defaults (`k = "auto"`, `replicas = "auto"`) are about the second
#' line's settings: a relative error of about 2.5 per cent at
#' \eqn{\Delta U/\theta = 30} in under 10 seconds on one GPU; two GPUs run
#' twice the replicas in about the same time. On the CPU the cost is the work
#' (about \eqn{N \log(1/p)} branches per replica, whatever `k`), 16
#' replicas by default.
#'
#' @section Random numbers, chunks, backends:
#' Replica \eqn{r} of condition \eqn{c} uses Philox stream \eqn{(c-1)2^{40}
#' + r - 1} under two purposes of its own (steps of every path, and the
#' branching decisions; see `inst/cuda/ams.h`); a branch takes a fresh
#' sub-stream numbered by its branch count. A replica's result depends only
#' on the seed, its condition and its number, so chunks by `first_replica`
#' combine with `rbind()` into the one-call result, for any thread count;
#' CPU and GPU agree replica by replica in double precision (the same
#' streams, the same decisions, up to rounding). An interrupt (Ctrl-C)
#' returns the replicas finished so far (the others are dropped, with a
#' warning that names the calls to rerun them: the replica numbers not
#' finished in every condition, also in attribute `rerun`); `rbind()` of the
#' result with those reruns is the one-call result (see
#' [rbind.escape_rate_ams()]). The engine takes an interrupt between rounds
#' of a bounded number of steps (about 0.1 s each), also in the middle of a
#' particle's path: a long path (a far threshold, a slow return to
#' \eqn{A}) is paused and resumed where it stopped, which changes no
#' number. A numeric `threshold` that a path can only reach after more than
#' \eqn{10^7} steps (running down the washboard at the largest speed the
#' force allows, \eqn{V_0(1 + \gamma)/\beta}, or by diffusion) is told
#' with a warning of class `statphysgpu_ams_far_threshold`; one past the
#' engine's \eqn{2^{34}} steps a path, or one that a single-precision step
#' can no longer move \eqn{\varphi} to (the spacing of floats there is
#' larger than the step), is refused.
#'
#' @section Engines:
#' With the option `statphysgpu.ams_engine = "declared"` (default
#' `"builtin"`) the washboard is an [sde_model()] (states `phi`, `v`;
#' \eqn{B} its stop event \eqn{\varphi > \varphi^*}) run by the engine of
#' [sde_ams()] -- the same algorithm (`inst/cuda/ams.h`), arguments, result,
#' attributes and methods, and the same laws: the score `"energy"` takes
#' its levels in the energy with \eqn{A} a region of \eqn{\varphi}
#' ([sde_ams()]`(start_coordinate = ~ phi)`), and `init = "thermal"` draws
#' \eqn{\varphi} from the same tabulated Boltzmann law of the well and
#' \eqn{\dot\varphi} from \eqn{N(0, \theta)}. The random streams differ:
#' the thermal starts come from [sde_ams()]'s purpose (its restarts too), so
#' thermal results differ replica by replica from the built-in engine's;
#' from rest the steps take the same normals, rounded by other code (often
#' the same numbers, not always). The model is compiled on first use (a
#' C compiler for the CPU, as [sde_ams()] needs).
#'
#' @inheritParams escape_times
#' @param dt Time step (normalised units), positive; checked as `dt` is in
#'   [escape_times()].
#' @param particles \eqn{N}, the AMS population of one estimate, a whole
#'   number \eqn{\ge 2}.
#' @param replicas Independent AMS estimates per condition, \eqn{\ge 1}
#'   (standard errors need 2), or `"auto"` (default): on the GPU enough for
#'   about 65,536 particles in flight on each device over the conditions (at
#'   least 16: 66 at \eqn{N = 1000}, twice that on two devices), on the CPU
#'   16. See "Cost and error".
#' @param k Particles killed at least per level, \eqn{1 \le k < N}, or
#'   `"auto"` (default): \eqn{N/20} rounded (at least 1); 1 in the
#'   development versions before 0.1.0. See "Cost and error".
#' @param score The score (reaction coordinate) the levels are taken in:
#'   `NULL` or `"position"` (\eqn{\varphi}), or `"energy"`
#'   (\eqn{\dot\varphi^2/2 + U(\varphi)}, closer to the committor at weak
#'   damping). Scores of your own (expressions of \eqn{\varphi} and
#'   \eqn{\dot\varphi}): write the washboard as an [sde_model()] and use
#'   [sde_ams()]; see "Choice of A and of the score".
#' @param first_replica Number of the first replica of this call (chunks).
#' @param backend `"auto"` (the GPU when usable and conditions x replicas x
#'   particles is at least 10,000), `"cpu"` or `"gpu"`.
#' @param devices GPU ids, `"all"`, or `NULL` (the first GPU); several GPUs
#'   share the replicas.
#' @param init Start of the long trajectory: `"rest"` (default) or
#'   `"thermal"`, as `init` of [escape_times()].
#' @param phi_A Edge of \eqn{A} in radians past the bottom of the well,
#'   below the saddle (one number for every condition), or `NULL` for the
#'   default (see "Choice of A").
#' @return An object of class `escape_rate_ams`: a data frame with one row
#'   per condition and columns `condition`, `gamma`, `V0`, `beta`, `theta`,
#'   `p`, `p_se`, `mfpt`, `mfpt_se`, `rate` (\eqn{1/\tau}), `rate_se`,
#'   `replicas` (the estimates used); attributes `replicas_table` (one row
#'   per replica: its \eqn{\hat p}, durations, counts and status),
#'   `conditions`, `phi_A` (absolute, per condition), `particles`, `k`,
#'   `method`, `dt`, `threshold`, `init`, `replica_ranges` (the replica
#'   numbers the result holds in every condition), `rerun` (those an
#'   interrupt left unfinished in some condition, as calls: `first_replica`,
#'   `replicas`) and the run's `seed`, `backend`,
#'   `devices`, `precision`, `seconds`, `interrupted`. Methods: `print`,
#'   `summary`, `plot`, `as.data.frame`, `rbind` of chunks.
#' @seealso [escape_times()] (brute force), [mfpt_smoluchowski()],
#'   [escape_rate()].
#' @references
#' Cerou, F. and Guyader, A. (2007) Adaptive multilevel splitting for rare
#'   event analysis. *Stochastic Analysis and Applications* 25, 417-443 \doi{10.1080/07362990601139628}.
#'
#' Cerou, F., Guyader, A., Lelievre, T. and Pommier, D. (2011) A multiple
#'   replica approach to simulate reactive trajectories. *Journal of
#'   Chemical Physics* 134, 054108 \doi{10.1063/1.3518708}.
#'
#' Brehier, C.-E., Gazeau, M., Goudenege, L., Lelievre, T. and Rousset, M.
#'   (2016) Unbiasedness of some generalized adaptive multilevel splitting
#'   algorithms. *Annals of Applied Probability* 26, 3559-3601 \doi{10.1214/16-AAP1185}.
#' @examples
#' x <- escape_rate_ams(gamma = 0.5, V0 = 1, beta = 1, theta = 0.1, dt = 0.05,
#'                      particles = 50, replicas = 4, seed = 1, backend = "cpu")
#' x
#' summary(x)
#' @export
escape_rate_ams <- function(gamma, V0, beta, theta, dt, threshold = "saddle",
                            method = c("srk2", "euler"), particles = 1000,
                            replicas = "auto", k = "auto", score = NULL, seed = NULL,
                            first_replica = 1, backend = "auto", devices = NULL,
                            precision = c("single", "double"),
                            progress = interactive(), init = c("rest", "thermal"),
                            phi_A = NULL) {
  call <- sys.call()
  args <- list(gamma = gamma, V0 = V0, beta = beta, theta = theta, dt = dt,
               threshold = threshold, method = method, particles = particles,
               replicas = replicas, k = k, seed = seed, first_replica = first_replica,
               precision = precision, init = init, phi_A = phi_A)
  score_kind <- ams_score(score, call)
  gamma <- check_range(gamma, "gamma", 0, 1, hi_open = TRUE, call = call)
  dt <- check_positive(dt, "dt", len = 1, call = call)
  method <- check_choice(method, c("srk2", "euler"), "method", call = call)
  init <- check_choice(init, c("rest", "thermal"), "init", call = call)
  pk <- ams_check_particles(particles, k, call)
  particles <- pk$particles
  k <- pk$k
  grid <- escape_grid(list(gamma = gamma, V0 = V0, beta = beta, theta = theta), call)
  ncond <- nrow(grid)
  th <- escape_threshold(threshold, grid$gamma, call)
  phiA <- ams_phi_A(phi_A, grid, call)
  replicas <- ams_auto_replicas(replicas, particles, ncond, backend, devices, call)
  args$k <- k # the numbers "auto" gave (attribute `args`: what the run was)
  args$replicas <- replicas
  fr <- sim_frame(call, n = replicas, n_name = "replicas", first = first_replica,
                  seed = seed, backend = backend, devices = devices,
                  precision = precision, precisions = c("single", "double"),
                  progress = progress, groups = ncond, row_bytes = 200,
                  auto_threshold = 1e4 / particles)
  c0 <- data.frame(g0 = grid$gamma, V0 = grid$V0, beta = grid$beta, theta = grid$theta,
                   h = dt)
  escape_check_steps(c0, method, fr$precision, call)
  ams_check_reach(threshold, th, phiA, grid, dt, particles, fr$precision, call)
  ec <- escape_conditions(grid, g0 = grid$gamma, dg = 0, h = dt, th = th, vcens = 0,
                          kmax = 1, start = init, call = call)
  # the declared engine (R/ams-declared.R): the washboard as an sde_model()
  # on sde_ams()'s engine, chosen by the tuning option
  res <- if (identical(sp_tuning("ams_engine", call), "declared")) {
    ams_declared_run(fr, grid, th, phiA, score_kind, init, dt, method, particles, k, call)
  } else sim_run(fr, "ams", conds = c(ec$conds, list(phiA = as.double(phiA),
                                                      score = rep(as.double(score_kind),
                                                                  length(phiA)))),
                 tables = ec$tables, replicas = fr$n,
                 replica0 = check_u64(fr$first - 1, "first_replica", call = call),
                 particles = particles, k = k, seed = fr$seed, heun = method == "srk2",
                 single = fr$precision == "single",
                 round_steps = as.double(sp_tuning("ams_round_steps", call = call)),
                 kernel = "ams", variant = paste(fr$precision, method, sep = "_"))
  ams_finish(res, grid, fr, list(
    phi_A = phiA, score = c("position", "energy")[score_kind + 1L], particles = particles,
    k = k, method = method, dt = dt,
    threshold = threshold, init = init, args = args),
    class = c("escape_rate_ams", "data.frame"))
}

# The result of a run (also sde_ams()'s): the finished replicas, the ranges
# of replica numbers finished in every condition (attribute
# `replica_ranges`) and those of the others (attribute `rerun`: an interrupt
# left them unfinished in some condition), and the interrupted-run warning
# that says what to rerun.
ams_finish <- function(res, grid, fr, extra, class) {
  tab <- ams_replicas_table(res$replicas, grid, fr)
  unf <- tab$status == "unfinished"
  rerun <- ranges_of(tab$replica[unf])
  n_done <- sum(!unf)
  tab <- tab[!unf, , drop = FALSE]
  rownames(tab) <- NULL
  out <- ams_object(tab, grid, extra)
  attr(out, "replica_ranges") <- ranges_setdiff(ranges_df(fr$first, fr$n), rerun)
  attr(out, "rerun") <- rerun
  sim_result(out, fr, res, class = class,
             unfinished = ams_unfinished(n_done, fr$n * nrow(grid), rerun, fr, nrow(grid)))
}

# The replica table of a run (one row per replica: condition, the grid's
# columns, replica, the engine's per-replica results, status) -- also
# sde_ams()'s.
ams_replicas_table <- function(reps, grid, fr) {
  ncond <- nrow(grid)
  cond_of <- rep(seq_len(ncond), each = fr$n)
  tab <- cbind(data.frame(condition = cond_of), grid[cond_of, -1, drop = FALSE],
               data.frame(replica = rep(fr$first - 1 + seq_len(fr$n), times = ncond)))
  for (nm in setdiff(names(reps), "status")) tab[[nm]] <- reps[[nm]]
  tab$status <- c("unfinished", "done", "extinct")[reps$status + 1L]
  rownames(tab) <- NULL
  tab
}

# The warning of an interrupted run: what finished, and the calls that
# complete it (the replica numbers unfinished in some condition, `rerun`,
# with the same seed; rbind() then gives the one-call result).
ams_unfinished <- function(n_done, n_all, rerun, fr, ncond) {
  if (!nrow(rerun)) return(NULL)
  calls <- sprintf("first_replica = %s, replicas = %s", fmt_count(rerun$first_replica),
                   fmt_count(rerun$replicas))
  more <- nrow(rerun) - 4
  if (more > 0) calls <- c(calls[1:4], sprintf("... (%s calls in all)", fmt_count(nrow(rerun))))
  sprintf(paste0(
    "%s of %s replicas finished; the estimates use those only. To complete the run, rerun ",
    "replica%s %s with seed = \"%s\" and the same arguments (%s) and rbind() the result%s ",
    "with this one%s; attr(x, \"rerun\") lists them"),
    fmt_count(n_done), fmt_count(n_all), if (sum(rerun$replicas) == 1) "" else "s",
    ranges_words(rerun), u64_to_hex(fr$seed), paste(calls, collapse = "; "),
    if (nrow(rerun) == 1) "" else "s",
    if (ncond > 1) paste0(" (a rerun runs every condition; the replicas that finished here ",
                          "in some conditions give way to its)") else "")
}

# `particles` (N >= 2) and `k` (1 <= k < N), checked (also sde_ams()'s).
ams_check_particles <- function(particles, k, call) {
  particles <- check_whole(particles, "particles", lo = 2, hi = 2^24 - 2, call = call)
  if (identical(k, "auto")) k <- ams_auto_k(particles)
  k <- check_whole(k, "k", lo = 1, hi = 2^24, call = call)
  if (k >= particles) {
    sp_abort(sprintf("`k` (%s) must be smaller than `particles` (%s).",
                     fmt_num(k), fmt_num(particles)), call = call)
  }
  list(particles = particles, k = k)
}

# k = "auto": a twentieth of the particles (at least 1).  Killing k > 1 a
# level makes the levels k times fewer (each level's branches run side by
# side: on a GPU the cost is the levels' count, not the particles'), and at k
# = N / 20 the relative variance of an estimate stayed within 2-13 per cent
# of the ideal -log(p) / N of k = 1 (bench/RESULTS.md, bench/ams.R: DU/theta
# 8-30, N = 500, k = 25).
ams_auto_k <- function(particles) max(1, round(particles / 20))

# replicas = "auto": on the GPU enough replicas per device for about 65,536
# particles a device in flight over the conditions (at least 16), so that the
# levels' short branch runs fill it (a replica's levels run one after
# another: more replicas cost little time there, and the error falls as
# 1/sqrt(replicas)); on the CPU 16.  Decided from the backend and devices
# the call will use (resolve_backend() with the work of 16 replicas, as
# sim_frame() decides "auto"; more replicas never turn a GPU plan into a CPU
# one).
ams_auto_replicas <- function(replicas, particles, ncond, backend, devices, call) {
  if (!identical(replicas, "auto")) return(replicas)
  if (!is.numeric(particles) || length(particles) != 1 || !is.finite(particles) || particles < 2)
    return(16) # particles' own check reports it
  plan <- resolve_backend(backend, devices, work = ncond * 16, auto_threshold = 1e4 / particles,
                          call = call)
  if (plan$backend != "gpu") return(16)
  max(16, ceiling(length(plan$devices) * 65536 / (particles * ncond)))
}

# The engine's score kind (SP_AMS_SCORE_* of ams_args.h) from `score`.
ams_score <- function(score, call) {
  if (is.null(score)) return(0L)
  if (is.character(score) && length(score) == 1 && score %in% c("position", "energy")) {
    return(match(score, c("position", "energy")) - 1L)
  }
  sp_abort(sprintf(paste0(
    "`score` must be NULL or \"position\" (the position phi) or \"energy\" ",
    "(v^2/2 + U(phi)), not %s; for a score of your own (an R expression), ",
    "write the washboard as an sde_model() and use sde_ams()."), describe(score)), call = call)
}

# The edge of A, absolute, per condition: phi_A radians past the bottom, or
# where U is min(theta, dU / 2) above the bottom.
ams_phi_A <- function(phi_A, grid, call) {
  phi0 <- asin(grid$gamma)
  span <- pi - 2 * phi0 # bottom to saddle
  if (!is.null(phi_A)) {
    phi_A <- check_positive(phi_A, "phi_A", len = 1, call = call)
    bad <- phi_A >= span
    if (any(bad)) {
      i <- which(bad)[1]
      sp_abort(sprintf(paste0(
        "`phi_A` (%s) must lie below the saddle, which is %s radians past the ",
        "bottom of the well at condition %d (gamma = %s)."), format(phi_A),
        format(span[i], digits = 4), i, format(grid$gamma[i])), call = call)
    }
    return(phi0 + phi_A)
  }
  V0 <- grid$V0
  g <- grid$gamma
  dU <- function(phi) V0 * ((cos(phi0) - cos(phi)) + g * (phi0 - phi))
  target <- pmin(grid$theta, barrier_height(g, V0) / 2)
  lo <- phi0
  hi <- pi - phi0
  for (it in 1:80) {
    mid <- (lo + hi) / 2
    up <- dU(mid) > target
    hi <- ifelse(up, mid, hi)
    lo <- ifelse(up, lo, mid)
  }
  (lo + hi) / 2
}

# A threshold far past the saddle (`threshold = 1e7` radians) is reached, if
# at all, only by a path that runs down the washboard: at the largest speed
# the force allows, v = V0 (1 + gamma) / beta, or by diffusion (D = theta /
# beta), whichever is faster -- at least S steps of `dt` a path from A, and
# each replica runs about `particles` such paths to its end.  Refused where
# S passes the engine's limit of 2^34 steps a path, or where, in single
# precision, a step (v dt plus a few thermal velocities) can no longer move
# phi at the threshold (less than half the spacing of floats there): such a
# run could only end in the engine's error, after hours.  A warning where S
# passes 10^7 (seconds a path, hours a run), with the cost.
ams_check_reach <- function(threshold, th, phiA, grid, dt, particles, precision, call) {
  if (is.character(threshold)) return(invisible())
  L <- th - phiA
  v <- grid$V0 * (1 + grid$gamma) / grid$beta
  D <- grid$theta / grid$beta
  t <- pmin(L / v, L^2 / (2 * D))
  S <- t / dt
  i <- which.max(S)
  where <- if (nrow(grid) > 1) sprintf(" (condition %d)", i) else ""
  what <- sprintf(paste0(
    "`threshold` (saddle + %s) lies %s radians past the edge of A%s: a path needs at least ",
    "about %s steps of `dt` to reach it (%s time units, at the largest speed the force ",
    "allows, V0 (1 + gamma) / beta = %s, or by diffusion, whichever is faster)"),
    format(threshold), format(L[i], digits = 3), where, format(S[i], digits = 3),
    format(t[i], digits = 3), format(v[i], digits = 3))
  if (S[i] > 2^34) {
    sp_abort(sprintf(paste0(
      "%s, more than the AMS engine's limit of 2^34 steps a path: the run could only end ",
      "in that error. Use a threshold nearer the saddle (\"saddle\", \"next_well\" or a few ",
      "radians) or a larger `dt`."), what), call = call)
  }
  if (precision == "single") {
    vmax <- v + 4 * sqrt(grid$theta)
    stuck <- vmax * dt < 2^(floor(log2(th)) - 24) # half the spacing at th
    if (any(stuck)) {
      j <- which(stuck)[1]
      sp_abort(sprintf(paste0(
        "`threshold` (saddle + %s) is out of reach in single precision%s: near phi = %s the ",
        "spacing of single-precision numbers is about %s, and a step of `dt` moves phi by ",
        "about %s at most, which rounds to no move at all, so no path reaches it. Use ",
        "precision = \"double\" or a threshold nearer the saddle."), format(threshold),
        if (nrow(grid) > 1) sprintf(" (condition %d)", j) else "", format(th[j], digits = 3),
        format(2^(floor(log2(th[j])) - 23), digits = 3), format(vmax[j] * dt, digits = 3)),
        call = call)
    }
  }
  if (S[i] > 1e7) {
    sp_warn(sprintf(paste0(
      "%s, and each replica runs about `particles` (%s) of them to its end: %s steps a ",
      "replica at least, hours on a CPU core. An interrupt (Ctrl-C) stops the run between ",
      "its rounds with the replicas finished; a threshold nearer the saddle costs far less."),
      what, fmt_count(particles), format(S[i] * particles, digits = 3)),
      call = call, class = "statphysgpu_ams_far_threshold")
  }
  invisible()
}

# The estimates of one condition from its finished replicas (rows of the
# replica table): p, the durations, tau; NA where undefined.
ams_estimate <- function(t) {
  P <- mean(t$p)
  pr <- mean(t$p * t$react)
  Tr <- if (P > 0) pr / P else NA_real_
  Ts <- sum(t$t_start) / sum(t$n_start)
  nc <- sum(t$n_cycle)
  Tl <- if (nc > 0) sum(t$t_cycle) / nc else 0
  nd <- sum(t$n_direct)
  Pd <- nd / (nd + sum(t$n_start))
  Td <- if (nd > 0) sum(t$t_direct) / nd else 0
  tau <- Pd * Td + (1 - Pd) * (Ts + (1 / P - 1) * Tl + Tr)
  if (!is.finite(tau)) tau <- if (P == 0) Inf else NA_real_
  c(p = P, mfpt = tau, rate = 1 / tau, t_loop = Tl, t_react = Ts + Tr, t_start = Ts,
    p_direct = Pd)
}

# Jackknife over replicas: the estimate and its standard error, per
# statistic (NA errors with fewer than 2 replicas).
ams_jackknife <- function(t) {
  est <- ams_estimate(t)
  n <- nrow(t)
  if (n < 2) return(list(est = est, se = est * NA_real_))
  loo <- vapply(seq_len(n), function(i) ams_estimate(t[-i, , drop = FALSE]),
                numeric(length(est)))
  se <- sqrt((n - 1) / n * rowSums((loo - rowMeans(loo))^2))
  se[!is.finite(est)] <- NA_real_
  list(est = est, se = se)
}

# The per-condition table from the replica table.
ams_table <- function(tab, grid) {
  rows <- lapply(seq_len(nrow(grid)), function(c) {
    t <- tab[tab$condition == c & tab$status != "unfinished", , drop = FALSE]
    if (nrow(t) == 0) {
      e <- list(est = c(p = NA, mfpt = NA, rate = NA), se = c(p = NA, mfpt = NA, rate = NA))
    } else {
      e <- ams_jackknife(t)
    }
    data.frame(p = e$est[["p"]], p_se = e$se[["p"]], mfpt = e$est[["mfpt"]],
               mfpt_se = e$se[["mfpt"]], rate = e$est[["rate"]], rate_se = e$se[["rate"]],
               replicas = nrow(t))
  })
  out <- cbind(grid, do.call(rbind, rows))
  rownames(out) <- NULL
  out
}

ams_object <- function(tab, grid, extra) {
  out <- ams_table(tab, grid)
  attr(out, "replicas_table") <- tab
  attr(out, "conditions") <- grid
  for (e in names(extra)) attr(out, e) <- extra[[e]]
  out
}

#' @export
as.data.frame.escape_rate_ams <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- x
  attributes(out) <- NULL
  out <- structure(out, names = names(x), class = "data.frame",
                   row.names = .set_row_names(nrow(x)))
  out
}

#' @export
print.escape_rate_ams <- function(x, digits = 4, ...) {
  cat(sprintf(paste0(
    "<escape_rate_ams> %d condition%s: AMS with %s particles, k = %s, %s ",
    "replica%s each; threshold %s, start %s, %s, dt = %s\n"),
    nrow(x), if (nrow(x) == 1) "" else "s", fmt_count(attr(x, "particles")),
    fmt_num(attr(x, "k")), fmt_count(max(x$replicas)), if (max(x$replicas) == 1) "" else "s",
    describe_threshold(attr(x, "threshold")), attr(x, "init"), attr(x, "method"),
    format(attr(x, "dt"))))
  ams_print_body(x, digits)
}

# What print() shows after the header line: precision, where and how long,
# extinct replicas, the table (also print.sde_ams()'s).
ams_print_body <- function(x, digits) {
  tab <- attr(x, "replicas_table")
  cat(sprintf("%s precision, %s, %.3g s\n", attr(x, "precision"), attr(x, "devices"),
              attr(x, "seconds")))
  ext <- sum(tab$status == "extinct")
  if (ext > 0) cat(sprintf("%d replica%s extinct (p = 0)\n", ext, if (ext == 1) "" else "s"))
  print(as.data.frame(x), digits = digits, row.names = FALSE)
  invisible(x)
}

#' Summary of an AMS estimate
#'
#' Per condition: the estimates with their jackknife errors, the parts of
#' the mean first-passage time (mean failed cycle `t_loop`, mean reactive
#' path `t_react`), the mean number of levels, and the relative variance of
#' one replica's \eqn{\hat p}, `rel_var` (\eqn{\mathrm{Var}\,\hat p/p^2}),
#' against the ideal \eqn{-\log(p)/N} of AMS with a perfect score
#' (`rel_var_ideal`): their ratio measures how far the score is from the
#' committor.
#'
#' @param object An [escape_rate_ams()] result.
#' @param ... Unused.
#' @return A data frame of class `summary.escape_rate_ams`.
#' @examples
#' x <- escape_rate_ams(0.5, 1, 1, 0.15, dt = 0.05, particles = 30, replicas = 4,
#'                      seed = 2, backend = "cpu")
#' summary(x)
#' @export
summary.escape_rate_ams <- function(object, ...) {
  tab <- attr(object, "replicas_table")
  N <- attr(object, "particles")
  out <- as.data.frame(object)
  extra <- lapply(seq_len(nrow(out)), function(c) {
    t <- tab[tab$condition == c & tab$status != "unfinished", , drop = FALSE]
    if (nrow(t) == 0) {
      return(data.frame(t_loop = NA, t_react = NA, levels = NA, extinct = 0L,
                        rel_var = NA, rel_var_ideal = NA))
    }
    e <- ams_estimate(t)
    P <- mean(t$p)
    data.frame(t_loop = e[["t_loop"]], t_react = e[["t_react"]],
               levels = mean(t$iterations), extinct = sum(t$status == "extinct"),
               rel_var = if (nrow(t) > 1 && P > 0) stats::var(t$p) / P^2 else NA_real_,
               rel_var_ideal = if (P > 0) -log(P) / N else NA_real_)
  })
  out <- cbind(out, do.call(rbind, extra))
  class(out) <- c("summary.escape_rate_ams", "data.frame")
  out
}

#' @export
print.summary.escape_rate_ams <- function(x, digits = 4, ...) {
  cat("AMS estimates (jackknife errors over replicas)\n")
  print(structure(unclass(x), class = "data.frame", row.names = .set_row_names(nrow(x))),
        digits = digits, row.names = FALSE)
  invisible(x)
}

#' Combine chunks of one AMS estimate
#'
#' Results of [escape_rate_ams()] (or of [sde_ams()]) with the same seed and
#' arguments but different `first_replica` combine into the result of one
#' call (the estimates are formed again from all replicas).
#'
#' Parts of other estimates are refused with an error of class
#' `statphysgpu_rbind_error` that names the setting that differs (the
#' model, seed, parameters, particles, k, score, method, precision, dt,
#' threshold, start, A or B), and so are parts that hold the same replica.
#'
#' An interrupted run keeps the replicas that finished; the replica numbers
#' that did not finish in every condition are listed in its attribute
#' `rerun` (a data frame of `first_replica` and `replicas`, one row per
#' call to make) and in its warning. Rerun those with the same seed and
#' arguments and `rbind()` the reruns with the interrupted result: that is
#' the one-call result. (A rerun runs its replicas in every condition; the
#' copies the interrupted run finished in some conditions give way to the
#' rerun's, the same replicas with the same numbers.) The combination is
#' flagged `interrupted` until no replica is missing.
#'
#' @param ... [escape_rate_ams()] results.
#' @param deparse.level Unused.
#' @return One `escape_rate_ams` object.
#' @examples
#' f <- function(first, n) escape_rate_ams(0.5, 1, 1, 0.15, 0.05, particles = 20,
#'   replicas = n, first_replica = first, seed = 3, backend = "cpu")
#' all.equal(rbind(f(1, 2), f(3, 2)), f(1, 4), check.attributes = FALSE)
#' @export
rbind.escape_rate_ams <- function(..., deparse.level = 1) {
  parts <- rbind_parts(...)
  first <- parts[[1]]
  what <- if (inherits(first, "sde_ams")) "sde_ams()" else "escape_rate_ams()"
  keys <- c("model", "seed_hex", "precision", "conditions", "parameters", "phi_A", "score",
            "particles", "k", "method", "dt", "threshold", "init", "init_laws",
            "equilibration", "A", "B", "start_coordinate")
  rbind_same(parts, what, paste0(
    "chunks of one estimate (the same model, seed, parameters, particles, k, score, ",
    "method, precision, dt, threshold, init, equilibration, A and B; other replicas)"),
    stats::setNames(as.list(keys), replace(keys, keys == "seed_hex", "seed")))
  # per part: the replica numbers it holds in every condition, and its rows
  # of the others (an interrupted run's; they give way to a part that holds
  # those numbers)
  held <- lapply(parts, ams_held_ranges)
  for (i in seq_along(parts)) attr(parts[[i]], "replica_ranges") <- held[[i]]
  all_held <- rbind_disjoint(parts, what) %||% ranges_df(numeric(), numeric())
  tabs <- lapply(seq_along(parts), function(i) {
    t <- attr(parts[[i]], "replicas_table")
    t <- t[t$status != "unfinished", , drop = FALSE]
    own <- ranges_contain(held[[i]], t$replica)
    t[own | !ranges_contain(all_held, t$replica), , drop = FALSE]
  })
  tab <- do.call(rbind, tabs)
  key <- paste(tab$condition, fmt_count(tab$replica))
  if (anyDuplicated(key)) {
    d <- which(duplicated(key))[1]
    rbind_abort(sprintf(paste0(
      "the chunks overlap: replica %s of condition %s is in two of them (check ",
      "`first_replica`; rbind() of %s results needs disjoint replicas)."),
      fmt_count(tab$replica[d]), tab$condition[d], what))
  }
  tab <- tab[order(tab$condition, tab$replica), , drop = FALSE]
  rownames(tab) <- NULL
  out <- ams_object(tab, attr(first, "conditions"), list())
  keep <- setdiff(names(attributes(first)),
                  c("names", "row.names", "class", "replicas_table"))
  for (a in keep) attr(out, a) <- attr(first, a)
  rerun <- do.call(rbind, lapply(parts, function(p) attr(p, "rerun")))
  rerun <- if (is.null(rerun)) ranges_df(numeric(), numeric()) else
    ranges_setdiff(rerun, all_held)
  attr(out, "replica_ranges") <- all_held
  attr(out, "rerun") <- rerun
  attr(out, "seconds") <- rbind_seconds(parts)
  attr(out, "interrupted") <- nrow(rerun) > 0
  class(out) <- class(first)
  # chunks as sde_ams() made them combine into a result that continues
  attr(out, "sealed") <- NULL
  if (inherits(out, "sde_ams") && all(vapply(parts, sp_seal_intact, TRUE))) {
    out <- sp_seal(out, SDE_AMS_SEALED)
  }
  out
}

# The replica numbers an AMS result holds in every condition: its
# `replica_ranges`, or (results of earlier versions) those of its table.
ams_held_ranges <- function(x) {
  r <- attr(x, "replica_ranges")
  if (!is.null(r)) return(r)
  t <- attr(x, "replicas_table")
  done <- t$replica[t$status != "unfinished"]
  ncond <- nrow(attr(x, "conditions"))
  counts <- table(done)
  ranges_of(as.double(names(counts))[counts == ncond])
}

# ams.cu in each precision and method ("single_srk2", ..., "double_euler"),
# for the GPU kernel registry (R/gpu.R).  Single precision uses the hardware
# sine, as escape.cu does.
ams_variants <- function() {
  v <- list()
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    v[[paste(prec, m, sep = "_")]] <- list(
      defines = c(if (prec == "single") c("SP_REAL=float", "SP_REAL_SINGLE=1", "SP_FAST_SIN=1")
                  else "SP_REAL=double",
                  sprintf("SP_AMS_HEUN=%d", as.integer(m == "srk2"))),
      fast_math = FALSE)
  }
  v
}

# The Milne factor of an overdamped saddle crossing: the Smoluchowski mean
# first-passage time to the saddle shifted out by the Milne extrapolation
# length 1.0327 sqrt(theta) / beta (REFERENCES.md section 2), over the plain
# one -- what mfpt_smoluchowski() is multiplied by to compare with simulated
# saddle crossings at finite damping.  Vectorised.
ams_milne_factor <- function(gamma, V0, beta, theta) {
  one <- function(g, V0, b, th) {
    phi0 <- asin(g)
    phis <- pi - phi0
    d <- -(-1.4603545088095868) / sqrt(2) * sqrt(th) / b # -zeta(1/2) / sqrt(2)
    U <- function(p) -V0 * (cos(p) + g * p)
    w <- sqrt(th / (V0 * sqrt(1 - g^2)))
    well <- function(y) { # int_{phis - 2 pi}^{y} exp(-(U - U(phi0)) / theta)
      f <- function(z) exp(-(U(z) - U(phi0)) / th)
      a <- stats::integrate(f, phis - 2 * pi, phi0 - 10 * w, rel.tol = 1e-10)$value +
        stats::integrate(f, phi0 - 10 * w, min(y, phi0 + 10 * w), rel.tol = 1e-10)$value
      if (y > phi0 + 10 * w) a <- a + stats::integrate(f, phi0 + 10 * w, y, rel.tol = 1e-10)$value
      a
    }
    f <- function(y) vapply(y, function(x) exp((U(x) - U(phis)) / th) * well(x), 0)
    lo <- max(phi0, phis - 40 * w)
    den <- stats::integrate(f, lo, phis, rel.tol = 1e-8)$value
    num <- stats::integrate(f, phis, phis + d, rel.tol = 1e-8)$value
    1 + num / den
  }
  a <- recycle_args(list(gamma = gamma, V0 = V0, beta = beta, theta = theta), call = NULL)
  vapply(seq_along(a$gamma), function(i) one(a$gamma[i], a$V0[i], a$beta[i], a$theta[i]), 0)
}

#' Arrhenius plot of AMS estimates, with theory and brute force
#'
#' Plots the mean first-passage times of an [escape_rate_ams()] result (with
#' bars of two standard errors) against \eqn{\Delta U/\theta} on a
#' logarithmic axis, one series per combination of `gamma`, `V0`, `beta`;
#' the theory that matches the threshold as a line (as the plots of
#' [escape_times()] do: [mfpt_smoluchowski()] for the saddle, the mean time
#' \eqn{1/\Gamma} of [escape_rate()] for the next well or a point past the
#' saddle), and brute-force means where given.
#'
#' @param x An [escape_rate_ams()] result.
#' @param theory `"auto"` (by the threshold, as above), `"none"`,
#'   `"smoluchowski"`, or a rate theory of [escape_rate()] (`"kramers"`,
#'   `"bhl"`, `"mm"`). A rate theory on saddle crossings, or Smoluchowski
#'   past the saddle, warns (unlike things).
#' @param brute `NULL`, an [escape_times()] result (every path escaped) or a
#'   data frame with columns `gamma`, `V0`, `beta`, `theta`, `mfpt` and
#'   `mfpt_se`: brute-force means, drawn as open circles with their bars.
#' @param ... Passed to [plot()].
#' @return Invisibly, the plotted points: a data frame with columns
#'   `source` ("AMS" or "brute force"), `gamma`, `V0`, `beta`, `theta`,
#'   `barrier` (\eqn{\Delta U/\theta}), `mfpt`, `mfpt_se`.
#' @examples
#' x <- escape_rate_ams(0.5, 1, 10, c(0.07, 0.1), dt = 0.02, particles = 30,
#'                      replicas = 3, seed = 1, backend = "cpu")
#' plot(x)
#' @export
plot.escape_rate_ams <- function(x, theory = c("auto", "none", "smoluchowski", "kramers",
                                               "bhl", "mm"), brute = NULL, ...) {
  call <- sys.call()
  theory <- check_choice(theory, c("auto", "none", "smoluchowski", "kramers", "bhl", "mm"),
                         "theory", call = call)
  threshold <- attr(x, "threshold")
  if (theory == "auto") theory <- if (identical(threshold, "saddle")) "smoluchowski" else "kramers"
  check_theory_fits(x, theory, call)
  pts <- data.frame(source = "AMS", gamma = x$gamma, V0 = x$V0, beta = x$beta,
                    theta = x$theta, mfpt = x$mfpt, mfpt_se = x$mfpt_se)
  if (!is.null(brute)) pts <- rbind(pts, ams_brute_points(brute, call))
  pts$barrier <- barrier_height(pts$gamma, pts$V0) / pts$theta
  key <- paste(pts$gamma, pts$V0, pts$beta)
  groups <- unique(key)
  col <- seq_along(groups)
  ok <- is.finite(pts$mfpt) & pts$mfpt > 0
  lo <- pmax(pts$mfpt - 2 * pts$mfpt_se, pts$mfpt / 10, na.rm = TRUE)
  hi <- pts$mfpt + 2 * ifelse(is.na(pts$mfpt_se), 0, pts$mfpt_se)
  xr <- range(pts$barrier[ok])
  tgrid <- NULL
  if (theory != "none") {
    tgrid <- lapply(groups, function(g) {
      r <- pts[key == g, ][1, ]
      b <- seq(xr[1], xr[2], length.out = 60)
      th <- barrier_height(r$gamma, r$V0) / b
      tau <- if (theory == "smoluchowski") mfpt_smoluchowski(r$gamma, r$V0, r$beta, th)
             else 1 / escape_rate(r$gamma, r$V0, r$beta, th, prefactor = theory)
      data.frame(barrier = b, tau = tau)
    })
  }
  yr <- range(c(lo[ok], hi[ok], unlist(lapply(tgrid, `[[`, "tau"))), finite = TRUE)
  graphics::plot(pts$barrier[ok], pts$mfpt[ok], log = "y", type = "n", xlim = xr, ylim = yr,
                 xlab = expression(Delta * U / theta),
                 ylab = "mean first-passage time (units of t0)",
                 main = sprintf("AMS escapes, threshold %s", describe_threshold(threshold)),
                 ...)
  for (i in seq_along(groups)) {
    if (!is.null(tgrid)) graphics::lines(tgrid[[i]]$barrier, tgrid[[i]]$tau, col = col[i], lty = 2)
    for (src in c("AMS", "brute force")) {
      s <- which(key == groups[i] & pts$source == src & ok)
      if (!length(s)) next
      graphics::points(pts$barrier[s], pts$mfpt[s], col = col[i],
                       pch = if (src == "AMS") 19 else 1)
      bar <- s[hi[s] > lo[s]]
      if (length(bar)) {
        graphics::arrows(pts$barrier[bar], lo[bar], pts$barrier[bar], hi[bar], angle = 90,
                         code = 3, length = 0.03, col = col[i])
      }
    }
  }
  leg <- c("AMS", if (!is.null(brute)) "brute force",
           if (theory != "none") THEORY_NAMES[[theory]])
  pch <- c(19, if (!is.null(brute)) 1, if (theory != "none") NA)
  if (theory != "none") {
    graphics::legend("topleft", legend = leg, pch = pch,
                     lty = c(NA, if (!is.null(brute)) NA, 2), bty = "n")
  } else {
    graphics::legend("topleft", legend = leg, pch = pch, bty = "n")
  }
  invisible(pts[, c("source", "gamma", "V0", "beta", "theta", "barrier", "mfpt", "mfpt_se")])
}

# Brute-force means per condition from an escape_times() result or a data
# frame (gamma, V0, beta, theta, mfpt, mfpt_se).
ams_brute_points <- function(brute, call) {
  if (inherits(brute, "escape_times")) {
    if (!all(brute$escaped)) {
      sp_abort(paste0("`brute` has censored paths: their mean escape time is not ",
                      "the mean first-passage time; rerun with a larger `t_max`."), call = call)
    }
    s <- split(brute$value, brute$condition)
    cond <- attr(brute, "conditions")
    cond <- cond[match(as.integer(names(s)), cond$condition), ]
    return(data.frame(source = "brute force", gamma = cond$gamma, V0 = cond$V0,
                      beta = cond$beta, theta = cond$theta,
                      mfpt = vapply(s, mean, 0),
                      mfpt_se = vapply(s, function(v) stats::sd(v) / sqrt(length(v)), 0)))
  }
  need <- c("gamma", "V0", "beta", "theta", "mfpt", "mfpt_se")
  if (!is.data.frame(brute) || !all(need %in% names(brute))) {
    sp_abort(paste0("`brute` must be NULL, an escape_times() result or a data frame ",
                    "with columns gamma, V0, beta, theta, mfpt and mfpt_se."), call = call)
  }
  data.frame(source = "brute force", brute[need])
}
