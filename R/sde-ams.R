#' Rare transitions of your own model by adaptive multilevel splitting
#'
#' [escape_rate_ams()] for a user's [sde_model()]: estimates the
#' probability \eqn{p} that a path leaving the region \eqn{A = \{\xi \le
#' A\}} reaches the target \eqn{B} before it returns to \eqn{A}, and the
#' mean first-passage time from the start state `init` to \eqn{B}, for a
#' reaction coordinate (score) \eqn{\xi(x)} written as an R expression --
#' where brute force ([sde_run()] with `output = "passage"`) cannot go.
#'
#' @section The estimator:
#' Exactly that of [escape_rate_ams()] (see there), with the model's step
#' and the user's score: each replica runs one long trajectory from `init`
#' that collects `particles` first entrances into \eqn{\Sigma}, the
#' boundary of \eqn{A} (the first state outside \eqn{A} after one inside),
#' and the durations of the start segment and of the failed cycles (from an
#' exit, back into \eqn{A}, to the next exit); then AMS on those states,
#' with the levels taken in the score (ties killed together, a branch
#' replaying its survivor's path to the level). \eqn{\tau = (1/p - 1)
#' E[T_{loop}] + E[T_{react}]}, with \eqn{p}, \eqn{E[T_{loop}]} and
#' \eqn{E[T_{react}]} averaged over the replicas first; jackknife standard
#' errors over the replicas. The same code (`inst/cuda/ams.h`) runs the
#' washboard of [escape_rate_ams()] and your model: only the state, the
#' step, the score and the regions differ.
#'
#' @section Score, A and B:
#' `score` is an expression over the model's states and parameters (the
#' grammar of the right-hand sides of [sde_model()], translated by the same
#' translator; not the time: the model and the score must not depend on
#' `t`, as the decomposition needs a time-homogeneous process). It must
#' increase from the start toward \eqn{B}: the start `init` must lie in
#' \eqn{A} (its score at most `start_edge`), and every state of \eqn{B}
#' must have a score above `start_edge`.
#' * `B` a number: \eqn{B = \{\xi \ge B\}}, the crossing time interpolated
#'   linearly in the score inside the step; the model's `stop` is not used.
#' * `B = NULL`: \eqn{B} is the model's `stop` event, the target of
#'   [sde_run()]'s passage times (its crossing interpolated as there), so
#'   that the mean first-passage time is the mean of what [sde_run()]
#'   samples. The score then only orders the levels.
#' * `start_coordinate` given: \eqn{A = \{\eta(x) \le \xi_A\}} (\eqn{\xi_A} =
#'   `start_edge`) on a coordinate \eqn{\eta} of its own, the levels still in the score (the
#'   energy as the score with \eqn{A} a region of the position, as
#'   [escape_rate_ams()]`(score = "energy")`).
#' AMS is unbiased for any score that increases toward \eqn{B}; a score
#' close to the committor gives a smaller variance (`summary()` reports
#' the relative variance of one replica's \eqn{\hat p} against the ideal
#' \eqn{-\log(p)/N}). `start_edge` should be reached often from the start (an
#' exit every few relaxation times): place it a little above the score of
#' the bottom of the well, about one `theta` of the potential. The result
#' does not depend on `start_edge` or `k` beyond its error; \eqn{p} does (it is the
#' probability from \eqn{\Sigma}).
#'
#' @section Compilation, random numbers, backends:
#' The model and score are compiled at run time as [sde_run()] compiles a
#' model: for the CPU, the AMS pieces of a particle (its run to \eqn{A} or
#' \eqn{B}, the replay to a level, a piece of the long trajectory) with the
#' model into a shared object of the cache, called by the package's AMS
#' engine once per piece (never per step); for the GPU, the AMS kernels
#' with the model by NVRTC. Replica \eqn{r} of condition \eqn{c} uses the
#' Philox stream \eqn{(c-1)2^{40} + r - 1} under the AMS purposes of
#' [escape_rate_ams()] (the model's \eqn{W} noise entries take \eqn{W}
#' normals a step). A replica's result depends only on the seed, its
#' condition and its number: chunks by `first_replica` combine with
#' `rbind()` into the one-call result, for any thread count, and CPU and
#' GPU agree replica by replica in double precision.
#'
#' @section Starts:
#' Each replica's long trajectory starts from `init`, and starts again from
#' it after each time it reaches \eqn{B}. A start may be drawn, as
#' [escape_rate_ams()]`(init = "thermal")` draws the washboard's: a state
#' given as `~ rnorm(mean, sd)`, `~ runif(min, max)` or `~ rcauchy(location,
#' scale)` (arguments over the parameters; one draw a state, independent
#' states) is drawn afresh at every start, from the replica's own Philox
#' stream, purpose 13 of [sde_run()]'s many-body starts: start \eqn{j} (0
#' the first) takes block \eqn{jD + d} for the \eqn{d}-th of the
#' \eqn{D} drawn states, so a replica's starts depend only on the seed, its
#' condition and its number, on both backends (the first is drawn on the
#' host; the restarts by the engine, in double precision: CPU and GPU agree
#' to rounding). The harmonic (Gaussian) law of a well is the usual
#' thermal start: for \eqn{dx = -U'(x)dt + \sqrt{2\theta}dW} at a bottom
#' \eqn{x_0} of curvature \eqn{\kappa = U''(x_0)}, `x = ~ rnorm(x0,
#' sqrt(theta / kappa))`; for a Langevin
#' particle also `v = ~ rnorm(0, sqrt(theta))`. The checks of the start
#' (in \eqn{A}, outside \eqn{B}, the step) are made at the centre of the
#' law (its mean, location or middle). A start drawn outside \eqn{A} that
#' reaches \eqn{B} before it first leaves \eqn{A} is a direct escape, as
#' in [escape_rate_ams()].
#'
#' `equilibration` relaxes every start (fixed or drawn) by running the model
#' for that time before the long trajectory begins: the time is not
#' counted, and a run that reaches \eqn{B} meanwhile is dropped for the
#' next start (a start conditioned on staying in the well). A few
#' relaxation times of the well give its quasi-stationary law, the start
#' from which the mean first-passage time is exactly the inverse of the
#' escape rate, for any model and without a law to write down.
#'
#' @section Continuing:
#' `sde_ams(model, init = x, replicas = n)` runs `n` more replicas of the
#' estimate `x` (an unmodified result of `sde_ams()`, or `rbind()` of its
#' chunks), numbered after the last replica it holds, with its seed and
#' settings (the other arguments are taken from `x`; those given must equal
#' them), and returns them combined with `x`: the result of one call with all
#' the replicas, replica by replica (the streams are keyed by the replica's
#' number). Replicas an interrupt left unfinished in `x` are run first. Use
#' it to add replicas until the error is small enough.
#'
#' @section Noise:
#' Rare transitions need noise: a model without noise is refused, and so is
#' a condition whose noise is zero through its parameters (`params =
#' c(theta = 0)`: every path deterministic), or a fixed start `init` where
#' the drift and every noise entry vanish (a resting point). A long
#' trajectory that comes to rest later, where a state-dependent noise
#' vanishes (its state unchanged by \eqn{2^{20}} steps in a row), stops
#' the run with an error that names the replica and the step, never a run
#' that goes on forever. The engine takes an interrupt (Ctrl-C) between
#' rounds of a bounded number of steps, also in the middle of a particle's
#' path (paused and resumed where it stopped, the same numbers).
#'
#' @param model An [sde_model()] with noise, not depending on `t`.
#' @param score The reaction coordinate: a one-sided formula, quoted call
#'   or string over the model's states and parameters.
#' @param start_edge The edge of the start region \eqn{A = \{\xi \le
#'   \xi_A\}}, \eqn{\xi_A}: a level of the score, a number or a one-sided
#'   formula over the parameters evaluated per condition (the counterpart of
#'   `phi_A` of [escape_rate_ams()]). Called `A` in earlier versions, a name
#'   that is an adjacency matrix in [kuramoto()]: `A` still works, with a
#'   warning of class `statphysgpu_deprecated`. The result keeps it in its
#'   attribute `A`.
#' @param B The target: a level of the score (a number or a formula over
#'   the parameters), above `start_edge`; or `NULL` for the model's `stop`
#'   event.
#' @param A Deprecated: the old name of `start_edge`.
#' @param start_coordinate `NULL` (default: A is a region of the score), or
#'   the coordinate A is a region of, \eqn{A = \{\eta(x) \le \eta_A\}}
#'   with \eqn{\eta_A} = `start_edge`: an expression over the states and
#'   parameters (as `score`). The levels are still taken in the score: e.g.
#'   the energy as the score with A a region of the position, as
#'   [escape_rate_ams()]`(score = "energy")` does. The start must lie in A
#'   and its score below `B`.
#' @param init The start of every replica's long trajectory (and of its
#'   restarts): a named list with one entry per state, each a number, a
#'   formula over the parameters (`~ asin(gamma)`), or one draw
#'   `runif(min, max)`, `rnorm(mean, sd)` or `rcauchy(location, scale)`
#'   whose arguments are formulas over the parameters (`~ rnorm(0,
#'   sqrt(theta))`); see "Starts". Or an earlier `sde_ams()` result, to
#'   continue it with `replicas` more replicas (see "Continuing").
#' @param equilibration Time (rounded to whole steps of `dt`) the model runs
#'   after every start before the long trajectory begins to count, \eqn{\ge
#'   0} (default 0); see "Starts".
#' @param dt The time step, positive. At the start `init` the drift is
#'   linearised (its Jacobian, by differences): a step past the stability
#'   limit of the method for a relaxation rate \eqn{\lambda} of the model
#'   there (\eqn{|R(\lambda\,dt)| \ge 1}, \eqn{R(z) = 1 + z} Euler, \eqn{1 +
#'   z + z^2/2} Heun; \eqn{dt \ge 2/|\lambda|} for a real rate), where the
#'   discrete paths diverge or oscillate and AMS would estimate an artefact
#'   (`dt = 100` gave \eqn{p = 1}), is refused (class
#'   `statphysgpu_step_error`); a warning (class `statphysgpu_step_warning`)
#'   says when the step biases the variance of the fluctuations in the well
#'   by more than 10 per cent (\eqn{|\lambda| dt/2} Euler, \eqn{(\lambda
#'   dt)^2/4} Heun, exact for the Ornstein-Uhlenbeck process), or when the
#'   score's noise moves the discretely monitored levels, by \eqn{0.5826
#'   \sigma_\xi \sqrt{dt}}, by more than a tenth of `B - start_edge`. AMS checks the
#'   levels and \eqn{B} once a step (no Brownian bridge): compare it with
#'   [sde_run()]`(bridge = FALSE)`.
#' @param params Overrides of the model's parameter defaults, as in
#'   [sde_run()]: vectors form a grid of conditions (every combination), one
#'   column per swept parameter in the result.
#' @param method `"srk2"` (stochastic Heun) or `"euler"` (Euler-Maruyama),
#'   as in [sde_run()].
#' @param particles \eqn{N}, the AMS population of one estimate, a whole
#'   number \eqn{\ge 2}.
#' @param replicas Independent AMS estimates per condition (standard errors
#'   need 2; 10 or more for trustworthy errors), or `"auto"` (default): as
#'   in [escape_rate_ams()], enough to fill the GPUs (about 65,536 particles
#'   a device, at least 16), 16 on the CPU.
#' @param k Particles killed at least per level, \eqn{1 \le k < N}, or
#'   `"auto"` (default): \eqn{N/20} rounded, at least 1 (1 in the
#'   development versions). See "Cost and error" in [escape_rate_ams()].
#' @param seed Philox key, or `NULL` to draw one from R's generator.
#' @param first_replica Number of the first replica of this call (chunks).
#' @param backend `"auto"` (the GPU when usable and conditions x replicas x
#'   particles is at least 10,000), `"cpu"` or `"gpu"`.
#' @param devices GPU ids, `"all"`, or `NULL` (the first GPU).
#' @param precision `"single"` or `"double"`.
#' @param progress Show a progress bar.
#' @return An object of class `sde_ams` (also `escape_rate_ams`): a data
#'   frame with one row per condition and columns `condition`, one per
#'   swept parameter, `p`, `p_se`, `mfpt`, `mfpt_se`, `rate`, `rate_se`,
#'   `replicas`; attributes as [escape_rate_ams()]'s (`replicas_table`,
#'   `conditions`, `particles`, `k`, `method`, `dt`, `seed`, `backend`,
#'   ...) and `model` (the model's hash), `model_name`, `score`, `A`, `B`
#'   (per condition; `NULL`: the stop event), `init` (the start per
#'   condition and state; the centre of a drawn one), `init_laws` (each
#'   state's start as text), `equilibration`, `args` (the settings a
#'   continuation reads). Methods: `print`, `summary`,
#'   `plot` (with a reference, e.g. brute force), `as.data.frame`, `rbind`
#'   of chunks.
#' @seealso [escape_rate_ams()], [sde_model()], [sde_run()]
#' @examples
#' # overdamped escape from x = 0 over the cubic barrier of U = x^2/2 - x^3/3
#' m <- sde_model(drift = list(x = ~ -x + x^2), noise = list(x = ~ sqrt(2 * theta)),
#'                params = c(theta = 0.05), name = "cubic")
#' \donttest{
#' if (sde_cpu_available()) {
#'   x <- sde_ams(m, score = ~ x, start_edge = 0.2, B = 1, init = list(x = 0), dt = 0.01,
#'                particles = 50, replicas = 4, seed = 1, backend = "cpu")
#'   x
#'   summary(x)
#'   # a thermal start (the harmonic law of the well, U''(0) = 1), relaxed
#'   # for 2 time units; then 4 more replicas of the same estimate
#'   y <- sde_ams(m, score = ~ x, start_edge = 0.2, B = 1, init = list(x = ~ rnorm(0, sqrt(theta))),
#'                dt = 0.01, particles = 50, replicas = 4, seed = 1, equilibration = 2,
#'                backend = "cpu")
#'   y <- sde_ams(m, init = y, replicas = 4, backend = "cpu")
#'   y
#' }
#' }
#' @export
sde_ams <- function(model, score, start_edge, B = NULL, init, dt, params = NULL,
                    method = c("srk2", "euler"), particles = 1000, replicas = "auto", k = "auto",
                    seed = NULL, first_replica = 1, backend = "auto", devices = NULL,
                    precision = c("single", "double"), progress = interactive(),
                    equilibration = 0, A, start_coordinate = NULL) {
  call <- sys.call()
  sp_renamed_args(c(A = "start_edge"), "sde_ams")
  if (!missing(init) && inherits(init, "escape_rate_ams")) {
    return(sde_ams_continue(model, init, replicas, backend, devices, progress,
                            sde_ams_given(environment()), call))
  }
  if (!inherits(model, "sde_model")) {
    sp_abort(sprintf("`model` must be a model made by sde_model(), not %s.", describe(model)),
             call = call)
  }
  m <- sde_model_trusted(model, call)
  if (isTRUE(m$many)) {
    why <- if (length(m$periodic)) sprintf("it declares periodic states (%s)",
                                           paste0("`", m$periodic, "`", collapse = ", "))
           else "it couples elements (mean(), sum(), pairs(), a lattice or element parameters)"
    sp_abort(sprintf(paste0("sde_ams() runs models of one particle, and \"%s\" is a many-body ",
                            "model: %s. Use sde_run() for it, or declare the model without ",
                            "that."), m$name, why), call = call)
  }
  if (!length(m$noise)) {
    sp_abort(sprintf(paste0("the model \"%s\" has no noise: rare transitions need a ",
                            "stochastic model (give sde_model(noise = ...))."), m$name),
             call = call)
  }
  timed <- c(vapply(m$drift, function(e) "t" %in% all.vars(e), TRUE),
             vapply(m$noise, function(e) "t" %in% all.vars(e), TRUE),
             stop = !is.null(m$stop) && "t" %in% all.vars(m$stop))
  if (any(timed)) {
    sp_abort(sprintf(paste0("the model \"%s\" depends on the time `t` (in %s); sde_ams() ",
                            "needs a time-homogeneous model (the loops and reactive paths ",
                            "of the estimator must not depend on when they start)."),
                     m$name, names(timed)[timed][1]), call = call)
  }
  score_e <- sde_rhs(score, "`score`", call)
  sde_check_expr(score_e, c(m$states, names(m$params), "t"), "`score`", call)
  if ("t" %in% all.vars(score_e)) {
    sp_abort("`score` must not depend on the time `t`; write it over the states and parameters.",
             call = call)
  }
  if (!length(intersect(all.vars(score_e), m$states))) {
    sp_abort(sprintf("`score`, %s, uses no state of the model (%s): it must be a function of the state.",
                     deparse1(score_e), paste0("`", m$states, "`", collapse = ", ")),
             call = call)
  }
  edge_e <- NULL
  if (!is.null(start_coordinate)) {
    edge_e <- sde_rhs(start_coordinate, "`start_coordinate`", call)
    sde_check_expr(edge_e, c(m$states, names(m$params), "t"), "`start_coordinate`", call)
    if ("t" %in% all.vars(edge_e) || !length(intersect(all.vars(edge_e), m$states))) {
      sp_abort(sprintf(paste0("`start_coordinate`, %s, must be a function of the state (the ",
                              "states and parameters, not the time `t`)."), deparse1(edge_e)),
               call = call)
    }
  }
  if (is.null(B) && is.null(m$stop)) {
    sp_abort(paste0("`B` is NULL, so the target is the model's stop event, but the model ",
                    "has no `stop`; give `B` (a level of the score) or ",
                    "sde_model(stop = ~ ...)."), call = call)
  }
  dt <- check_positive(dt, "dt", len = 1, call = call)
  method <- check_choice(method, c("srk2", "euler"), "method", call = call)
  sde_check_method(m, method, call)
  pk <- ams_check_particles(particles, k, call)
  particles <- pk$particles
  k <- pk$k
  grid <- sde_grid(m, params, call)
  ncond <- nrow(grid)
  swept <- attr(grid, "swept")
  clash <- intersect(swept, SDE_AMS_COLUMNS)
  if (length(clash)) {
    sp_abort(sprintf(paste0("the swept parameter `%s` has the name of a column of sde_ams()'s ",
                            "results (%s); rename it in the model, or run its values one ",
                            "call each."), clash[1], paste(SDE_AMS_COLUMNS, collapse = ", ")),
             call = call, class = "statphysgpu_reserved_name")
  }
  st <- sde_ams_init(m, init, grid, call)
  x0 <- st$x0
  equilibration <- check_range(equilibration, "equilibration", lo = 0, len = 1, call = call)
  burn <- round(equilibration / dt)
  if (burn >= 2^40) {
    sp_abort(sprintf("`equilibration` (%s) is %s steps of `dt`: at most 2^40.",
                     format(equilibration), format(burn)), call = call)
  }
  zA <- sde_ams_level(start_edge, "start_edge", m, grid, call)
  zB <- if (is.null(B)) rep(Inf, ncond) else sde_ams_level(B, "B", m, grid, call)
  s0 <- sde_ams_eval(score_e, m, grid, x0)
  # A's coordinate at the start: the score's, or start_coordinate's
  a0 <- if (is.null(edge_e)) s0 else sde_ams_eval(edge_e, m, grid, x0)
  for (c in seq_len(ncond)) {
    where <- if (ncond > 1) sprintf(" at condition %d", c) else ""
    if (!is.finite(s0[c])) {
      sp_abort(sprintf("`score` is %s at the start `init`%s; it must be finite.",
                       format(s0[c]), where), call = call)
    }
    if (!is.finite(a0[c])) {
      sp_abort(sprintf("`start_coordinate` is %s at the start `init`%s; it must be finite.",
                       format(a0[c]), where), call = call)
    }
    if (!is.null(B) && (if (is.null(edge_e)) zA[c] else s0[c]) >= zB[c]) {
      if (!is.null(edge_e)) {
        sp_abort(sprintf(paste0("the score at the start `init` (%s) must be below `B` (%s)%s: ",
                                "B = {score >= B}."), format(s0[c]), format(zB[c]), where),
                 call = call)
      }
      sp_abort(sprintf(paste0("`start_edge` (%s) must be below `B` (%s)%s: A = {score <= ",
                              "start_edge}, B = {score >= B}."),
                       format(zA[c]), format(zB[c]), where), call = call)
    }
    centre <- if (st$drawn) " (the centre of its law)" else ""
    if (a0[c] > zA[c]) {
      what <- if (is.null(edge_e)) "score" else "start_coordinate"
      sp_abort(sprintf(paste0(
        "the start `init`%s lies outside A%s: its %s is %s, above `start_edge` = %s. The ",
        "score must increase from the start toward B, and the start lie in A = {%s <= ",
        "start_edge}."),
        centre, where, what, format(a0[c]), format(zA[c]), what), call = call)
    }
    if (is.null(B) && isTRUE(as.logical(sde_ams_eval(m$stop, m, grid[c, , drop = FALSE],
                                                       x0[c, , drop = FALSE])))) {
      sp_abort(sprintf("the model's stop event (B) holds at the start `init`%s%s.", centre,
                       where), call = call)
    }
  }
  sde_ams_check_noise(m, grid, x0, st$drawn, call)
  sde_ams_check_step(m, method, dt, grid, x0, score_e, if (is.null(edge_e)) zA else s0,
                     if (!is.null(B)) zB, call)
  replicas <- ams_auto_replicas(replicas, particles, ncond, backend, devices, call)
  fr <- sim_frame(call, n = replicas, n_name = "replicas", first = first_replica,
                  seed = seed, backend = backend, devices = devices,
                  precision = precision, precisions = c("single", "double"),
                  progress = progress, groups = ncond, row_bytes = 200,
                  auto_threshold = 1e4 / particles)
  res <- sde_ams_engine(m, score_e, fr, grid, method, dt, particles, k, zA,
                        if (!is.null(B)) zB, st$laws, burn, call, edge_e = edge_e)
  g <- grid[c("condition", swept)]
  score_txt <- paste(deparse(score_e, width.cutoff = 500L), collapse = " ")
  out <- ams_finish(res, g, fr, list(
    model = m$hash, model_name = m$name, score = score_txt,
    A = as.double(zA), B = if (is.null(B)) NULL else as.double(zB),
    particles = particles, k = k, method = method, dt = dt, init = x0,
    init_laws = st$text, equilibration = burn * dt,
    parameters = grid,
    start_coordinate = if (!is.null(edge_e)) paste(deparse(edge_e, width.cutoff = 500L),
                                                   collapse = " "),
    args = list(score = score_txt, A = sde_ams_arg_text(start_edge), B = sde_ams_arg_text(B),
                init = lapply(init, sde_ams_arg_text), dt = dt, params = params,
                method = method, particles = particles, k = k, precision = fr$precision,
                equilibration = equilibration,
                start_coordinate = sde_ams_arg_text(start_coordinate))),
    class = c("sde_ams", "escape_rate_ams", "data.frame"))
  sp_seal(out, SDE_AMS_SEALED)
}

# The run of sde_ams() after its checks (also the declared engine of
# escape_rate_ams(), R/ams-declared.R): model m with score score_e (and A's
# coordinate edge_e, NULL: the score) on the frame fr, one condition a row
# of `grid` (the model's parameters by name); zA, zB the levels per
# condition (zB NULL: B is the model's stop event); laws: the starts (ncond
# x 3 nx: kind, a, b per state, as sde_ams_init() makes them; a start of
# kind 3, SP_AMS_START_TABLE of ams_args.h, a draw from the density
# tabulated at offset a of `start_tables`); burn: steps of equilibration.
# Interrupts are held until the caller (`envir`) returns.  Returns the
# engine's result (the list of sim_run()).
sde_ams_engine <- function(m, score_e, fr, grid, method, dt, particles, k, zA, zB, laws,
                           burn, call, edge_e = NULL, start_tables = numeric(),
                           envir = parent.frame()) {
  ncond <- nrow(grid)
  par <- cbind(as.matrix(grid[names(m$params)]), sde_derived_values(m, grid, call))
  np <- ncol(par)
  nx <- length(m$states)
  row <- np + 3 * nx
  tab <- which(laws[, 3 * seq_len(nx) - 2, drop = FALSE] == 3, arr.ind = TRUE)
  if (nrow(tab)) { # tabulated starts: offsets into `start_tables`, after the rows
    a <- cbind(tab[, 1], 3 * (tab[, 2] - 1) + 2)
    laws[a] <- laws[a] + ncond * row
  }
  tables <- c(as.double(t(cbind(par, laws))), as.double(start_tables))
  sconds <- list(h = rep(dt, ncond), zA = as.double(zA),
                 zB = if (is.null(zB)) rep(0, ncond) else as.double(zB),
                 stream0 = (seq_len(ncond) - 1) * 2^40,
                 par0 = (seq_len(ncond) - 1) * row, init0 = (seq_len(ncond) - 1) * row + np,
                 use_stop = rep(as.double(is.null(zB)), ncond), burn = rep(burn, ncond))
  job <- list(sconds = sconds, tables = tables, nx = nx, replicas = fr$n,
              replica0 = check_u64(fr$first - 1, "first_replica", call = call),
              particles = particles, k = k, seed = fr$seed, heun = method == "srk2",
              single = fr$precision == "single",
              round_steps = as.double(sp_tuning("ams_round_steps", call = call)))
  job["entry_long"] <- list(NULL)
  job["entry_branch"] <- list(NULL)
  headers <- sde_ams_headers(m, score_e, edge_e)
  key <- ""
  if (fr$plan$backend == "gpu") {
    key <- sde_gpu_load(m, fr$plan$devices, fr$precision, method, call, source = "ams.cu",
                        defines = c("SP_AMS_SDE=1",
                                    sprintf("SP_AMS_HEUN=%d", as.integer(method == "srk2"))),
                        headers = headers, progress = fr$progress)
  } else {
    lib <- sde_ams_cpu_load(m, headers, call, fr$progress)
    sfx <- if (fr$precision == "single") "_f" else "_d"
    job$entry_long <- lib[[paste0("long", sfx)]]
    job$entry_branch <- lib[[paste0("branch", sfx)]]
  }
  sim_hold_interrupts(fr$call, envir)
  res <- .Call(C_sp_r_model_run, "sde_ams", job, key, as.integer(fr$plan$devices), fr$progress)
  .sp_last_run$run <- res$run
  res
}

# The generated headers of an AMS run: the score, and A's own coordinate
# where it has one (sde_ams(start_coordinate =); SP_AMS_SDE_EDGE of
# ams_sde.h).
sde_ams_headers <- function(m, score_e, edge_e = NULL) {
  list(sde_ams_score.h = paste0(
    sde_score_header(m, score_e),
    if (!is.null(edge_e)) paste0("#define SP_AMS_SDE_EDGE 1\n",
                                 sde_score_header(m, edge_e, fn = "sde_ams_edge"))))
}

# The settings of an sde_ams() result that a continuation reads, sealed when
# the result is made (see sp_seal()).
SDE_AMS_SEALED <- c("model", "seed_hex", "precision", "dt", "method", "score", "A", "B",
                    "init", "init_laws", "equilibration", "particles", "k", "parameters",
                    "args", "replicas_table", "replica_ranges", "rerun")

# An argument as a result records it (attribute `args`): a number as it is,
# an expression (formula, call, name or string) as its text, NULL as NULL.
sde_ams_arg_text <- function(x) {
  if (is.null(x) || is.numeric(x)) return(x)
  if (inherits(x, "formula")) x <- x[[length(x)]]
  if (is.character(x)) return(x)
  paste(deparse(x, width.cutoff = 500L), collapse = " ")
}

# The start of the long trajectories, per condition and state: a constant
# (a number, or a formula over the parameters) or one draw runif(min, max),
# rnorm(mean, sd), rcauchy(location, scale) whose arguments are numbers or
# formulas over the parameters, drawn by the engine from the replica's own
# stream at every start.  list(laws: ncond x 3 nx (kind, a, b per state;
# kind -1 a constant a), x0: ncond x nx, the constant or the centre of the
# law (the mean, the location, the middle of the interval), drawn: any
# state drawn, text: each state's start as text).
sde_ams_init <- function(m, init, grid, call) {
  sde_check_init_states(m, init, "or an sde_ams() result to continue, ", call)
  ncond <- nrow(grid)
  nx <- length(m$states)
  laws <- matrix(0, ncond, 3 * nx)
  x0 <- matrix(0, ncond, nx, dimnames = list(NULL, m$states))
  text <- stats::setNames(character(nx), m$states)
  pars <- names(m$params)
  at <- function(e, what) { # an expression over the parameters, per condition
    sde_check_expr(e, pars, what, call)
    v <- sde_ams_eval(e, m, grid, NULL)
    bad <- !is.finite(v)
    if (any(bad)) {
      sp_abort(sprintf("%s, %s, is not finite for condition %d.", what, deparse1(e),
                       which(bad)[1]), call = call)
    }
    v
  }
  for (i in seq_len(nx)) {
    s <- m$states[i]
    v <- init[[s]]
    what <- sprintf("`init$%s`", s)
    cols <- 3 * (i - 1) + 1:3
    if (is.numeric(v) && length(v) == 1 && is.finite(v)) {
      laws[, cols] <- rep(c(-1, v, 0), each = ncond)
      x0[, i] <- v
      text[i] <- format(v, digits = 15)
      next
    }
    if (!(inherits(v, "formula") || is.call(v) || is.name(v) ||
          (is.character(v) && length(v) == 1))) {
      sp_abort(sprintf(paste0(
        "%s must be one number, a formula over the parameters, or one draw ",
        "runif(min, max), rnorm(mean, sd) or rcauchy(location, scale) (a formula, e.g. ",
        "~ rnorm(0, sqrt(theta))), not %s: every start of a replica is a number or a draw ",
        "of one law."), what, describe(v)), call = call)
    }
    e <- sde_rhs(v, what, call)
    text[i] <- paste(deparse(e, width.cutoff = 500L), collapse = " ")
    ds <- sde_draw_sites(e)
    if (!is.null(ds$error)) sp_abort(sprintf("%s: %s.", what, ds$error), call = call)
    if (ds$sites == 0) {
      x <- at(e, sprintf("%s (a start: a formula over the parameters and pi, not the states or t)",
                         what))
      laws[, cols] <- cbind(-1, x, 0)
      x0[, i] <- x
      next
    }
    y <- ds$e
    if (ds$sites > 1 || !is.call(y) || !identical(y[[1]], as.name(".draw"))) {
      sp_abort(sprintf(paste0(
        "%s, %s, must be one draw runif(min, max), rnorm(mean, sd) or rcauchy(location, ",
        "scale) whose arguments are formulas over the parameters (e.g. ~ rnorm(0, ",
        "sqrt(theta))), or a formula without draws: the engine draws each start of a ",
        "replica from one law per state."), what, deparse1(e)), call = call)
    }
    kind <- y[[2]]
    law <- SDE_MB_DRAWS[kind + 1L]
    a <- at(y[[4]], sprintf("the first argument of %s's %s()", what, law))
    b <- at(y[[5]], sprintf("the second argument of %s's %s()", what, law))
    bad <- if (kind == 0) b < a else b < 0
    if (any(bad)) {
      c <- which(bad)[1]
      sp_abort(sprintf("%s, %s: %s at condition %d (%s, %s).", what, deparse1(e),
                       switch(law, runif = "`min` must not exceed `max`",
                              rnorm = "`sd` must not be negative",
                              rcauchy = "`scale` must not be negative"),
                       c, format(a[c]), format(b[c])), call = call)
    }
    laws[, cols] <- cbind(kind, a, b)
    x0[, i] <- if (kind == 0) (a + b) / 2 else a
  }
  list(laws = laws, x0 = x0, drawn = any(laws[, 3 * seq_len(nx) - 2] >= 0), text = text)
}

# The arguments of sde_ams() the caller gave (not left to their defaults),
# read in its frame `env`: a named list (`start_edge` under its name in the
# result's `args`, "A").
sde_ams_given <- function(env) {
  nm <- c("score", "start_edge", "B", "dt", "params", "method", "particles", "k", "seed",
          "first_replica", "precision", "equilibration", "start_coordinate")
  given <- list()
  for (n in nm) {
    if (!eval(call("missing", as.name(n)), env)) {
      given[if (n == "start_edge") "A" else n] <- list(get(n, envir = env))
    }
  }
  given
}

# sde_ams(init = <a result>): `replicas` more replicas of the estimate
# `prev` (numbered after the last it holds; first those an interrupt left
# unfinished), with its seed and settings, combined with it by rbind(): the
# result of one call with all the replicas.
sde_ams_continue <- function(model, prev, replicas, backend, devices, progress, given, call) {
  if (!inherits(prev, "sde_ams")) {
    sp_abort(sprintf(paste0("`init` must be a named list of starts or an sde_ams() result ",
                            "to continue, not an escape_rate_ams() result.")), call = call)
  }
  sp_check_seal(prev, "sde_ams()", call, SDE_AMS_SEALED)
  if (!inherits(model, "sde_model")) {
    sp_abort(sprintf("`model` must be a model made by sde_model(), not %s.", describe(model)),
             call = call)
  }
  m <- sde_model_trusted(model, call)
  if (!identical(m$hash, attr(prev, "model"))) {
    sp_abort(sprintf(paste0("`init` is an estimate for the model \"%s\", and `model` is ",
                            "\"%s\", another model (or another version of it): a ",
                            "continuation runs the same model."),
                     attr(prev, "model_name"), m$name), call = call)
  }
  args <- attr(prev, "args")
  if ("first_replica" %in% names(given)) {
    sp_abort(paste0("`first_replica` cannot be given when continuing `init`: the new ",
                    "replicas are numbered after the last one it holds."), call = call)
  }
  was <- c(args[setdiff(names(args), "init")], list(seed = attr(prev, "seed_hex")))
  for (n in names(given)) {
    a <- was[[n]]
    b <- given[[n]]
    if (n == "seed") {
      if (is.null(b)) next
      b <- u64_to_hex(resolve_seed(b, call))
    }
    if (n == "k" && identical(b, "auto")) b <- ams_auto_k(was$particles)
    same <- if (n %in% c("score", "A", "B", "start_coordinate")) identical(a, sde_ams_arg_text(b))
            else if (n %in% c("method", "precision")) identical(a, b[1])
            else if (n == "params") identical(sp_digest_text(a), sp_digest_text(b))
            else identical(sp_digest_text(a), sp_digest_text(b)) ||
              (is.numeric(a) && is.numeric(b) && length(a) == 1 && length(b) == 1 && a == b)
    if (!same) {
      show <- function(x) if (is.null(x)) "NULL" else paste(format(x), collapse = ", ")
      shown <- if (n == "A") "start_edge" else n
      sp_abort(sprintf(paste0(
        "`init` was run with %s = %s, this call has %s: a continuation runs more replicas ",
        "of the same estimate, so give the value of `init` (or leave `%s` out to take it ",
        "from `init`)."), shown, show(a), show(sde_ams_arg_text(b)), shown), call = call)
    }
  }
  held <- ams_held_ranges(prev)
  rerun <- attr(prev, "rerun")
  last <- max(0, held$first_replica + held$replicas - 1,
              rerun$first_replica + rerun$replicas - 1)
  names(args)[names(args) == "A"] <- "start_edge" # (recorded under the edge's old name)
  run <- function(first, n) {
    do.call(sde_ams, c(list(model), args, list(
      replicas = n, first_replica = first, seed = attr(prev, "seed_hex"), backend = backend,
      devices = devices, progress = progress)))
  }
  parts <- list(prev)
  for (j in seq_len(NROW(rerun))) parts[[length(parts) + 1]] <- run(rerun$first_replica[j],
                                                                    rerun$replicas[j])
  if (!identical(replicas, 0) && !identical(replicas, 0L)) {
    parts[[length(parts) + 1]] <- run(last + 1, replicas)
  }
  do.call(rbind, parts)
}

# The columns of sde_ams() results and of their replica table, which a
# swept parameter (a column of both) must not be named as.
SDE_AMS_COLUMNS <- c("p", "p_se", "mfpt", "mfpt_se", "rate", "rate_se", "react", "n_B",
                     "t_start", "n_start", "t_cycle", "n_cycle", "t_direct", "n_direct",
                     "n_lt_react", "iterations", "branches", "steps", "t_loop", "t_react",
                     "levels", "extinct", "rel_var", "rel_var_ideal")

# A level (A or B) per condition: a finite number, or a formula over the
# parameters evaluated per condition.
sde_ams_level <- function(x, what, m, grid, call) {
  if (is.numeric(x) && length(x) == 1 && is.finite(x)) return(rep(as.double(x), nrow(grid)))
  if (inherits(x, "formula") || is.call(x) || is.character(x)) {
    e <- sde_rhs(x, sprintf("`%s`", what), call)
    sde_check_expr(e, names(m$params), sprintf("`%s`", what), call)
    v <- sde_ams_eval(e, m, grid, NULL)
    bad <- !is.finite(v)
    if (any(bad)) {
      sp_abort(sprintf("`%s`, %s, is not finite for condition %d.", what, deparse1(e),
                       which(bad)[1]), call = call)
    }
    return(v)
  }
  sp_abort(sprintf(paste0("`%s` must be one finite number or a formula over the parameters, ",
                          "not %s."), what, describe(x)), call = call)
}

# An expression over parameters (and states: rows of x, one per condition
# of grid) evaluated in R, per condition.
sde_ams_eval <- function(e, m, grid, x) {
  vapply(seq_len(nrow(grid)), function(c) {
    vals <- as.list(grid[c, names(m$params), drop = FALSE])
    if (!is.null(x)) vals <- c(vals, as.list(x[c, ]))
    r <- suppressWarnings(as.double(eval(e, list2env(vals, parent = baseenv()))))
    if (length(r) != 1) NA_real_ else r
  }, 0)
}

# The noise of every condition must move the paths: a condition whose noise
# is zero through its parameters (`params = c(theta = 0)`) makes every path
# deterministic -- the long trajectory from a start at rest never leaves A,
# and AMS has no noise to split -- and is refused; so is a start at a
# resting point of the drift (a fixed start, zero drift) where every noise
# entry, some depending on the state, is zero.  A path that comes to rest
# later, where a state-dependent noise vanishes, is stopped by the engine
# (the long trajectory stuck for 2^20 steps: an error, not a hang).
sde_ams_check_noise <- function(m, grid, x0, drawn, call) {
  on_state <- vapply(m$noise, function(e) any(all.vars(e) %in% m$states), TRUE)
  amp <- vapply(m$noise, function(e) { # NA where R cannot evaluate it: not refused
    tryCatch(sde_ams_eval(e, m, grid, x0), error = function(err) rep(NA_real_, nrow(grid)))
  }, numeric(nrow(grid)))
  amp <- matrix(amp, nrow(grid))
  for (c in seq_len(nrow(grid))) {
    if (any(is.na(amp[c, ]) | amp[c, ] != 0)) next
    where <- if (nrow(grid) > 1) sprintf(" at condition %d", c) else ""
    pars <- names(m$params)
    used <- intersect(pars, unlist(lapply(m$noise, all.vars)))
    vals <- if (length(used)) {
      paste0(" (", paste(sprintf("%s = %s", used, vapply(used, function(p) format(grid[[p]][c]), "")),
                         collapse = ", "), ")")
    } else ""
    if (!any(on_state)) {
      sp_abort(sprintf(paste0(
        "the noise of the model \"%s\" is zero%s%s: every path is deterministic, so the ",
        "long trajectory never leaves A by chance and AMS has no noise to split on. Give ",
        "the noise a positive amplitude (`params`, or the model's parameter defaults)."),
        m$name, where, vals), call = call)
    }
    if (drawn) next
    env <- list2env(c(as.list(grid[c, pars, drop = FALSE]), as.list(x0[c, ]), list(t = 0)),
                    parent = baseenv())
    drift <- vapply(m$drift, function(e) {
      r <- suppressWarnings(tryCatch(as.double(eval(e, env)), error = function(err) NA_real_))
      if (length(r) != 1) NA_real_ else r
    }, 0)
    if (all(!is.na(drift) & drift == 0)) {
      sp_abort(sprintf(paste0(
        "the start `init`%s is a resting point of the model \"%s\"%s: its drift and every ",
        "noise entry are zero there, so the long trajectory never moves and never leaves A. ",
        "Start where the noise is positive (`init`), or give the noise a positive ",
        "amplitude there (`params`)."), where, m$name, vals), call = call)
    }
  }
  invisible()
}

# The CPU object of a model and score: ams.h's pieces with the model
# (ams_sde.h), both precisions, their entries exported (ams_cpu.h); scalar
# code, a path at a time, compiled without SLP vectorisation
# (sde_cc_scalar()).
sde_ams_cpu_load <- function(m, headers, call, progress = FALSE) {
  src <- sde_cpu_c_file(c("/* generated by statphysgpu's sde_ams(): the model's AMS entries */",
                          "#define SP_AMS_SDE 1", "#define SP_AMS_ENTRY", "#include \"sde_args.h\""),
                        c("sde_prelude.h", "sde_model.h", "sde_engine.h", "sde_ams_score.h",
                          "ams.h", "ams_cpu.h"))
  sde_cpu_object(m, call, source = src, headers = headers,
                 symbols = c(long_f = "sp_ams_entry_long_f", long_d = "sp_ams_entry_long_d",
                             branch_f = "sp_ams_entry_branch_f",
                             branch_d = "sp_ams_entry_branch_d"),
                 progress = progress, flags = sde_cc_scalar())
}

#' @export
print.sde_ams <- function(x, digits = 4, ...) {
  B <- attr(x, "B")
  cat(sprintf(paste0(
    "<sde_ams> model \"%s\", %d condition%s: AMS with %s particles, k = %s, %s replica%s ",
    "each\nscore %s; A = {%s <= %s}, B = %s; %s, dt = %s\n"),
    attr(x, "model_name"), nrow(x), if (nrow(x) == 1) "" else "s",
    fmt_count(attr(x, "particles")), fmt_num(attr(x, "k")), fmt_count(max(x$replicas)),
    if (max(x$replicas) == 1) "" else "s", attr(x, "score"),
    attr(x, "start_coordinate") %||% "score", paste(format(unique(attr(x, "A"))), collapse = ", "),
    if (is.null(B)) "the model's stop event"
    else sprintf("{score >= %s}", paste(format(unique(B)), collapse = ", ")),
    attr(x, "method"), format(attr(x, "dt"))))
  laws <- attr(x, "init_laws")
  eq <- attr(x, "equilibration") %||% 0
  drawn <- !is.null(laws) && any(grepl("^(runif|rnorm|rcauchy)\\(", laws))
  if (drawn || eq > 0) {
    cat(sprintf("start %s%s\n", paste(names(laws), "=", laws, collapse = ", "),
                if (eq > 0) sprintf(", equilibration %s", format(eq)) else ""))
  }
  ams_print_body(x, digits)
}

#' Plot an AMS estimate of a user's model against a reference
#'
#' The mean first-passage times of an [sde_ams()] result with bars of two
#' standard errors, on a logarithmic axis, against the condition (or the
#' swept parameter, when one parameter is swept); a reference where given
#' -- brute force from [sde_run()], or values of your own (there is no
#' closed-form theory for a user's model).
#'
#' @param x An [sde_ams()] result.
#' @param reference `NULL`; an [sde_run()] passage result (every path
#'   stopped; its per-condition means and standard errors); or a data frame
#'   with one row per condition of `x` (in its order) and columns `mfpt` and,
#'   optionally, `mfpt_se`.
#' @param ... Passed to [plot()].
#' @return Invisibly, the plotted points: a data frame with columns
#'   `source` ("AMS" or "reference"), `condition`, `at` (the abscissa),
#'   `mfpt`, `mfpt_se`.
#' @examples
#' m <- sde_model(drift = list(x = ~ -x + x^2), noise = list(x = ~ sqrt(2 * theta)),
#'                params = c(theta = 0.05), name = "cubic")
#' \donttest{
#' if (sde_cpu_available()) {
#'   x <- sde_ams(m, ~ x, start_edge = 0.2, B = 1, init = list(x = 0), dt = 0.01,
#'                params = list(theta = c(0.05, 0.07)), particles = 30, replicas = 3,
#'                seed = 1, backend = "cpu")
#'   # the exact mean first-passage times (the Smoluchowski double integral
#'   # with the level shifted by 0.5826 sqrt(2 theta dt))
#'   plot(x, reference = data.frame(mfpt = c(115.6, 45.3)))
#' }
#' }
#' @export
plot.sde_ams <- function(x, reference = NULL, ...) {
  call <- sys.call()
  g <- attr(x, "conditions")
  sw <- setdiff(names(g), "condition")
  # each row's condition (the rows may be a subset of the conditions)
  at <- if (length(sw) == 1) g[[sw]][match(x$condition, g$condition)] else x$condition
  pts <- data.frame(source = "AMS", condition = x$condition, at = at, mfpt = x$mfpt,
                    mfpt_se = x$mfpt_se)
  if (!is.null(reference)) pts <- rbind(pts, sde_ams_reference(reference, x, at, call))
  ok <- is.finite(pts$mfpt) & pts$mfpt > 0
  se <- ifelse(is.na(pts$mfpt_se), 0, pts$mfpt_se)
  lo <- pmax(pts$mfpt - 2 * se, pts$mfpt / 10)
  hi <- pts$mfpt + 2 * se
  # the reference beside the AMS point of its condition, not on it
  span <- diff(range(pts$at[ok]))
  scale <- if (span > 0) span else if (any(pts$at[ok] != 0)) max(abs(pts$at[ok])) else 1
  dx <- 0.012 * scale
  pts$at[pts$source == "reference"] <- pts$at[pts$source == "reference"] + dx
  args <- list(pts$at[ok], pts$mfpt[ok], log = "y", type = "n",
               ylim = range(c(lo[ok], hi[ok])), xlab = if (length(sw) == 1) sw else "condition",
               ylab = "mean first-passage time",
               main = sprintf("AMS, model \"%s\"", attr(x, "model_name")))
  if (span == 0) args$xlim <- pts$at[ok][1] + c(-20, 20) * dx # one condition: centred
  do.call(graphics::plot, utils::modifyList(args, list(...))) # the caller's arguments win
  for (src in c("AMS", "reference")) {
    s <- which(pts$source == src & ok)
    if (!length(s)) next
    graphics::points(pts$at[s], pts$mfpt[s], pch = if (src == "AMS") 19 else 1)
    bar <- s[hi[s] > lo[s]]
    if (length(bar)) {
      graphics::arrows(pts$at[bar], lo[bar], pts$at[bar], hi[bar], angle = 90, code = 3,
                       length = 0.03)
    }
  }
  # the legend in the upper corner away from the largest times
  top <- which.max(ifelse(ok, hi, -Inf))
  corner <- if (pts$at[top] <= mean(range(pts$at[ok]))) "topright" else "topleft"
  graphics::legend(corner, legend = c("AMS", if (!is.null(reference)) "reference",
                                      "bars: 2 standard errors"),
                   pch = c(19, if (!is.null(reference)) 1, NA), bty = "n")
  invisible(pts)
}

# A reference for plot.sde_ams: per-condition means from an sde_run()
# passage result, or a data frame (mfpt, optional mfpt_se), one row per
# condition of x.
sde_ams_reference <- function(reference, x, at, call) {
  n <- nrow(x)
  if (inherits(reference, "sde_passage")) {
    if (!all(reference$escaped)) {
      sp_abort(paste0("`reference` has censored paths: their mean is not the mean ",
                      "first-passage time; rerun sde_run() with a larger `t_max`."),
               call = call)
    }
    s <- split(reference$value, factor(reference$condition, levels = x$condition))
    mf <- vapply(s, function(v) if (length(v)) mean(v) else NA_real_, 0)
    se <- vapply(s, function(v) if (length(v) > 1) stats::sd(v) / sqrt(length(v)) else NA_real_, 0)
  } else if (is.data.frame(reference) && "mfpt" %in% names(reference) && nrow(reference) == n) {
    mf <- as.double(reference$mfpt)
    se <- if ("mfpt_se" %in% names(reference)) as.double(reference$mfpt_se) else rep(NA_real_, n)
  } else {
    sp_abort(sprintf(paste0("`reference` must be NULL, an sde_run() passage result, or a data ",
                            "frame with %d row%s (one per condition) and a column `mfpt` ",
                            "(and optionally `mfpt_se`)."), n, if (n == 1) "" else "s"),
             call = call)
  }
  data.frame(source = "reference", condition = x$condition, at = at, mfpt = mf, mfpt_se = se)
}
