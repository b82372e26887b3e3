#' Ensembles of driven Brownian particles in a periodic potential
#'
#' Integrates `replicas` paths of the driven Stewart-McCumber model (Eq. (1) of
#' Januszewski and Kostur 2010)
#' \deqn{\ddot x + \gamma\dot x = -V'(x) + a\cos(\omega t) + f +
#'   \sqrt{2\gamma D_0}\,\xi(t),\qquad V(x) = \sin(2\pi x),}
#' with \eqn{\langle\xi(t)\xi(s)\rangle = \delta(t-s)}, for every combination
#' of the parameters: any of `a`, `omega`, `f`, `beta` and `theta` may be a
#' vector, and all the conditions run in one launch (the parameter sweeps of
#' the paper).
#'
#' **Names.** The package's names (one vocabulary for every simulator, see
#' [statphysgpu]) beside the paper's symbols: `beta` is the friction
#' \eqn{\gamma}, `theta` the noise intensity (temperature) \eqn{D_0},
#' `replicas` the number of paths, `init` the start \eqn{(x(0), \dot
#' x(0))}, `dt` (an attribute of the result) the step \eqn{\Delta t}; `a`,
#' `omega` and `f` are the paper's \eqn{a}, \eqn{\omega} and \eqn{f}.
#' The old names `n`, `gamma`, `D0`, `x0` and `v0` still work, with a
#' warning of class `statphysgpu_deprecated`.
#'
#' \eqn{D_0} is the temperature \eqn{k_BT} (the particle's
#' mass is 1): at \eqn{a = f = 0} the stationary law is Boltzmann's with
#' \eqn{k_BT = D_0}, so \eqn{\langle v^2\rangle = D_0}, and the diffusion
#' constant of the free particle (no potential, no drive) is
#' \eqn{D_0/\gamma}, Einstein's \eqn{k_BT/\gamma}; the noise intensity
#' in the velocity equation is \eqn{\gamma D_0}. By default each path starts at rest,
#' \eqn{\dot x(0) = 0}, at a position \eqn{x(0)} drawn uniformly on one
#' period \eqn{(0, 1)} (its own Philox draw); `init` sets other starts.
#'
#' @section Steps and time:
#' The step is \eqn{\Delta t = (2\pi/\omega)/}`steps_per_period`, and each
#' path runs `periods` drive periods. Time is kept modulo the drive period as
#' the integer phase \eqn{j} of the step within the period (Sec. 5 of the
#' paper): \eqn{\omega t = 2\pi j/}`steps_per_period` exactly, and the drive
#' \eqn{\cos(\omega t)} is read from one table shared by all paths, so no
#' running time variable grows until \eqn{t + \Delta t = t} in single
#' precision. `"srk2"` is Algorithm 2 of the paper (the stochastic Heun
#' scheme on \eqn{(x, \dot x)}, one normal per step, weak order 2);
#' `"euler"` the Euler-Maruyama step. Step \eqn{k} of path \eqn{r} of
#' condition \eqn{c} uses normal \eqn{k - 1} of Philox stream
#' \eqn{s = (c-1)2^{40} + r - 1} in the space of the engine's steps (purpose
#' 6 of the package's stream registry), which is
#' `philox_normal(k, seed, stream = s, offset = 6 * 2^58)[k]`; the default
#' start is `philox_uniform(1, seed, stream = s, offset = 7 * 2^58)`. The
#' position is kept as a whole number of potential periods plus a part in
#' \eqn{[-1/2, 1/2]}, so single precision resolves a step however far a path
#' has run.
#'
#' A warning (class `statphysgpu_step_warning`) says when the step is coarse
#' for the dynamics, in two ways. First, when it biases the thermal
#' fluctuations by more than 0.1 per cent: the scheme's step, linearised at
#' the bottom of the potential (\eqn{\ddot x + \gamma\dot x + \omega_0^2 x
#' = \sqrt{2\gamma D_0}\,\xi}, \eqn{\omega_0^2 = V'' = 4\pi^2}, the
#' largest curvature of the potential), is a linear map whose stationary
#' covariance has a closed form; it gives \eqn{\langle v^2\rangle} and
#' \eqn{\omega_0^2\langle x^2\rangle} in units of \eqn{D_0} (1 for the
#' continuous dynamics), and the warning comes when either is off by more
#' than \eqn{10^{-3}} (with \eqn{D_0 > 0}), or when the step is unstable
#' there. For SRK2 the bias is \eqn{O(\Delta t^2)}: about \eqn{-8\times
#' 10^{-3}} at \eqn{\gamma = 3}, \eqn{\Delta t = 0.031} (\eqn{\omega = 1},
#' 200 steps a period), \eqn{-10^{-4}} at \eqn{\Delta t = 0.003}; for
#' Euler it is \eqn{O(\Delta t)}, \eqn{\approx \omega_0^2\Delta t/\gamma}
#' (4 per cent at \eqn{\gamma = 1}, \eqn{\Delta t = 10^{-3}}), so Euler
#' warns at any practical step. Second, when
#' \eqn{\Delta t\,\max(2\pi, \gamma, 2\pi u) > 0.25},
#' with \eqn{2\pi} the frequency of small oscillations at the bottom of the
#' potential, \eqn{\gamma} the damping rate and \eqn{u = |a|/\sqrt{\gamma^2 +
#' \omega^2} + |f|/\gamma + \sqrt{D_0}} a velocity scale of the running
#' state (the time to cross one period is \eqn{1/u}): fewer than about 25
#' steps per fastest time scale.
#'
#' @section What is measured:
#' The first `transient` fraction of the periods (rounded down to whole
#' periods) is discarded; over the remaining observation time
#' \eqn{T = t_{end} - t_{tr}}:
#' * `v_mean`, the mean velocity \eqn{\langle\langle v\rangle\rangle}: each
#'   path's time average \eqn{\bar v_i = (x_i(t_{end}) - x_i(t_{tr}))/T},
#'   averaged over the paths, with `v_se` its standard error over paths
#'   (\eqn{\mathrm{sd}(\bar v_i)/\sqrt n}).
#' * `D_eff`, the effective diffusion coefficient from the spread of the
#'   displacements \eqn{d_i = x_i(t_{end}) - x_i(t_{tr})}:
#'   \eqn{D_{eff} = \mathrm{var}(d_i)/(2T)} (the spread gained after the
#'   transient, so that the spread of the start and of the transient does not
#'   count), with `D_eff_se` from the fourth moment of the \eqn{d_i}.
#' * `v2_mean`, \eqn{\langle v^2\rangle}: each path's average of \eqn{v^2}
#'   over the steps after the transient, averaged over paths, with `v2_se`.
#'
#' With `output = "histogram"`: the coarse-grained position histogram at the
#' end (Fig. 2 of the paper), `bins` bins of width one potential period
#' centred on the median position (paths outside are counted in `outside`),
#' and the velocity histogram at the end, `bins` equal bins over the range
#' of the velocities. Both are tallied from the paths' end states, so that
#' chunks combine into the histogram of the whole. Also with `output =
#' "histogram"`, the coarse-grained density over time (the background of
#' Fig. 2): at every drive period, the paths of each condition counted in
#' bins of one potential period over `window` (default: `bins` periods
#' centred on 0, where the paths start), with the paths below and above it
#' counted apart; it is accumulated by the engine as the paths run (on the
#' GPU with warp-aggregated atomics), so no position of a path is stored.
#' With `keep = m` (or
#' `output = "trajectories"`, which keeps 10 unless `keep` says otherwise),
#' the positions and velocities of replicas 1 to `m` of each condition once
#' per drive period: a chunk (`first_replica = k + 1`) keeps those of its
#' replicas that are among them, so that chunks combine into the one-call
#' trajectories.
#'
#' @section Random numbers, chunks and interrupts:
#' A path's numbers depend only on the seed, its condition and its replica
#' number, so the result does not depend on the thread count, the devices
#' or chunking: `driven_brownian(replicas = m, first_replica = k + 1, ...)` returns
#' replicas \eqn{k+1, \dots, k+m}, and `rbind()` of chunks gives the
#' one-call result. On the CPU results are bit-identical for any thread
#' count; CPU and GPU agree path by path in double precision to rounding
#' until the chaos of the dynamics amplifies it. An interrupt (Ctrl-C)
#' stops every path at the same step: the result is that of a shorter run
#' (the observation time is what was reached, NA if still in the transient),
#' flagged in `attr(x, "interrupted")`, with a warning of class
#' `statphysgpu_interrupted`.
#'
#' @section Engines:
#' With the option `statphysgpu.driven_engine = "declared"` (default
#' `"builtin"`) a fresh run is an [sde_model()] of the same SDE (in the
#' drive's phase \eqn{\omega t}, so that every condition takes one step)
#' run by [sde_run()]: the same result, fields and methods, the same laws;
#' its streams are [sde_run()]'s, its default start of replica \eqn{r} is
#' the same in every condition, with SRK2 `v2_bar` is the trapezoid of
#' \eqn{v^2} (the built-in's sum to \eqn{O(dt^2)}), and the position is
#' not split into whole periods (single precision loses resolution far
#' from the origin). A continuation (`init = ` a result) runs on the
#' built-in engine. The built-in engine stays the default until the
#' declared one matches its speed (`bench/driven-declared.R`).
#'
#' @section Continuing:
#' `driven_brownian(init = x, periods = b)` continues the result `x` of a
#' run of \eqn{a} periods by \eqn{b} more: every path goes on from its end
#' state (kept in `attr(x, "state")`: the position as whole periods and the
#' part within one, the velocity, the sums of \eqn{v^2}, the position after
#' the transient) at the step `x` reached, with the same random numbers as
#' one run, so the result is that of one run of \eqn{a + b} periods: per-path
#' statistics, end states, kept trajectories and the density over time (the
#' samples up to the end of `x` are `x`'s, the later ones the
#' continuation's), bit for bit on the CPU, to rounding on the GPU. **The
#' transient is that of the first run**: `attr(x, "transient_periods")`
#' periods, which the averages of the continued run also discard, so it
#' equals one run of \eqn{a + b} periods whose `transient` gives the same
#' whole number of periods (`transient` cannot be given when continuing).
#' An interrupted `x` continues from the step it reached (mid-period too):
#' `periods = 0` completes it. The other arguments are taken from `x`; given
#' ones must equal `x`'s, and a result whose state does not match its paths
#' is refused. What a continuation reads of `x` -- its seed (`seed_hex`),
#' `precision`, `method`, `conditions`, `periods`, `steps_per_period`,
#' `transient_periods`, `steps`, `output`, `bins`, `window`, `keep`,
#' `init`, `replicas`, `first_replica`, `paths`, `state`, `trajectories`
#' and `histogram` -- is sealed when `x` is made (attribute `sealed`, a
#' digest of each): a result in which any of them was changed afterwards
#' (edited conditions, paths, state or steps), or that has no seal, is
#' refused with an error of class `statphysgpu_modified_result` naming it.
#' The per-condition table itself may be changed: a continuation computes
#' it again from the paths. Continuing and `rbind()` of chunks commute.
#'
#' @param replicas Paths per condition, a whole number \eqn{\ge 1}.
#' @param a Drive amplitude (finite; a vector gives one condition per value).
#' @param omega Drive angular frequency, positive (vector allowed).
#' @param f Constant bias force (finite; vector allowed).
#' @param beta Friction coefficient \eqn{\gamma} of the paper, positive
#'   (vector allowed).
#' @param theta Noise intensity \eqn{D_0} of the paper: the temperature
#'   \eqn{k_BT} in the units of the model (\eqn{\langle v^2\rangle =
#'   D_0} in equilibrium), so that the free particle's diffusion constant is
#'   \eqn{D_0/\gamma} (Einstein); non-negative (vector allowed; 0
#'   integrates the deterministic dynamics from random starts).
#' @param periods Drive periods to integrate, a whole number \eqn{\ge 1};
#'   continuing a result (`init = `), the periods to add (\eqn{\ge 0}).
#' @param steps_per_period Steps per drive period, a whole number in
#'   \eqn{[1, 2^{24}]}.
#' @param transient Fraction of the periods discarded before averaging, in
#'   \eqn{[0, 1)}.
#' @param method `"srk2"` (default) or `"euler"`.
#' @param output `"summary"` (default), `"histogram"` (also the position
#'   and velocity histograms at the end) or `"trajectories"` (also the kept
#'   trajectories).
#' @param bins Number of histogram bins, a whole number \eqn{\ge 1}.
#' @param keep Number of paths per condition whose trajectories are kept
#'   (sampled once per drive period): those of replicas 1 to `keep` of the
#'   whole study, of which a call keeps the ones it runs; a whole number
#'   \eqn{\ge 0} (more than the replicas run keeps them all).
#' @param seed Philox key: a whole number in \eqn{[0, 2^{64})}, a hexadecimal
#'   string, or `NULL` to draw one from R's random number generator.
#' @param first_replica Number of the first replica of this call (chunking).
#' @param backend `"auto"` (the GPU when usable and there are at least
#'   10,000 paths), `"cpu"` or `"gpu"`.
#' @param devices GPU ids, `"all"`, or `NULL` (the first GPU); the paths are
#'   split among them in contiguous ranges.
#' @param precision `"single"` (default) or `"double"`.
#' @param progress Show a progress bar.
#' @param init The start: `NULL` (the default start: at rest, at a
#'   uniform position in one period), a previous result of
#'   `driven_brownian()` to continue (see "Continuing"), or `list(x = , v = )`,
#'   start positions
#'   and velocities, each `NULL` (the default start), a number, or one per
#'   replica of this call (length `replicas`); positions of magnitude at most
#'   \eqn{2^{30}}.
#' @param window With `output = "histogram"`: the range of the density over
#'   time, two whole numbers `c(lo, hi)` of potential periods (`hi - lo`
#'   bins), or `NULL` for `bins` bins centred on 0. Checked with any output
#'   (an invalid value is an error); with another output it is unused, and
#'   a `window` given anyway warns (class `statphysgpu_unused_argument`), as
#'   [sde_run()] does for its arguments an output does not use.
#' @param n,gamma,D0,x0,v0 Deprecated names of `replicas`, `beta`, `theta`
#'   and `init` (`x0 = , v0 =` fill `init = list(x = , v = )`); they work,
#'   with a warning of class `statphysgpu_deprecated`.
#' @return An object of class `driven_paths`: a data frame with one row per
#'   condition and columns `condition`, `a`, `omega`, `f`, `beta`, `theta`,
#'   `replicas` (paths of the condition), `v_mean`, `v_se`, `D_eff`, `D_eff_se`, `v2_mean`, `v2_se`, `t_obs`
#'   (the observation time after the transient); attributes `paths` (one row
#'   per path: `condition`, `replica`, `v_bar`, `v2_bar`, `x`, `v`, `x_tr`),
#'   `histogram` (with `output = "histogram"`: a list of data frames
#'   `position` and `velocity` at the end, `density` (`condition`, `period`,
#'   `t`, `x_lo`, `count`: the density over time) and `outside` (the paths
#'   below and above the window at each period)), `trajectories` (with `keep > 0`: `condition`,
#'   `replica`, `period`, `t`, `x`, `v`), `conditions`, `dt`, `periods`,
#'   `transient_periods`, `steps` (steps done), `state` (each path's end
#'   state, for `init = `), `keep`, `replicas`, `first_replica`,
#'   `init` (`"default"` or `"given"`), `sealed` (see "Continuing"), `seed`,
#'   `backend`, `devices`,
#'   `precision`, `method`, `seconds`, `interrupted`. The columns' names of
#'   earlier versions, `n`, `gamma` and `D0`, are deprecated but still read
#'   (`x$gamma`, `as.data.frame(x)$gamma`, ...: the columns `replicas`,
#'   `beta` and `theta`, with a warning of class `statphysgpu_deprecated`).
#'   Methods: `print`,
#'   `summary`, `plot`, `autoplot` (ggplot2), `as.data.frame`, `rbind` of
#'   chunks.
#' @references Januszewski, M. and Kostur, M. (2010) Accelerating numerical
#'   solution of stochastic differential equations with CUDA. *Computer
#'   Physics Communications* 181, 183-188 \doi{10.1016/j.cpc.2009.09.009}.
#' @examples
#' # <v> against the bias force, 200 paths per value, on the CPU
#' x <- driven_brownian(200, a = 4.2, omega = 4.9, f = c(0, 0.5, 1), beta = 0.9,
#'                      theta = 0.01, periods = 40, steps_per_period = 100,
#'                      seed = 1, backend = "cpu")
#' x
#' plot(x)
#' # thermal equilibrium: <v^2> = theta (400 steps a period: the SRK2 bias of
#' # <v^2> is 0.1 per cent, below the statistical error)
#' eq <- driven_brownian(100, a = 0, omega = 1, f = 0, beta = 1, theta = 0.5,
#'                       periods = 10, steps_per_period = 400, seed = 2,
#'                       backend = "cpu")
#' c(eq$v2_mean, eq$v2_se)
#' # ten periods more: the same as one run of 20 periods with eq's transient
#' eq2 <- driven_brownian(init = eq, periods = 10, backend = "cpu")
#' attr(eq2, "periods")
#' @export
driven_brownian <- function(replicas, a, omega, f, beta, theta, periods, steps_per_period = 100,
                            transient = 0.1, method = c("srk2", "euler"),
                            output = c("summary", "histogram", "trajectories"),
                            bins = 200, keep = 0, seed = NULL, first_replica = 1,
                            backend = "auto", devices = NULL,
                            precision = c("single", "double"), progress = interactive(),
                            init = NULL, window = NULL, n, gamma, D0, x0, v0) {
  call <- sys.call()
  sp_renamed_args(c(n = "replicas", gamma = "beta", D0 = "theta"), "driven_brownian")
  init <- driven_init_alias(init, missing(init), if (!missing(x0)) list(x0),
                            if (!missing(v0)) list(v0), call)
  prev <- NULL
  if (inherits(init, "driven_paths")) { # continue: its arguments fill the missing ones
    prev <- driven_prev(init, environment(), call)
    init <- NULL
  }
  a <- check_finite(a, "a", call = call)
  omega <- check_positive(omega, "omega", call = call)
  f <- check_finite(f, "f", call = call)
  beta <- check_positive(beta, "beta", call = call)
  theta <- check_positive(theta, "theta", allow_zero = TRUE, call = call)
  periods <- check_whole(periods, "periods", lo = if (is.null(prev)) 1 else 0, hi = 2^40,
                         call = call)
  spp <- check_whole(steps_per_period, "steps_per_period", lo = 1, hi = 2^24, call = call)
  # a continuation runs from the step `init` reached to the end of its
  # periods and `periods` more
  k0 <- 0
  if (!is.null(prev)) {
    k0 <- attr(prev, "steps")
    periods <- attr(prev, "periods") + periods
  }
  if (periods * spp > 2^53) {
    sp_abort(sprintf("`periods * steps_per_period` = %s steps per path; at most 2^53.",
                     format(periods * spp)), call = call)
  }
  transient <- check_range(transient, "transient", 0, 1, hi_open = TRUE, len = 1,
                           call = call)
  method <- check_choice(method, c("srk2", "euler"), "method", call = call)
  output <- check_choice(output, c("summary", "histogram", "trajectories"), "output",
                         call = call)
  bins <- check_whole(bins, "bins", lo = 1, hi = 2^24, call = call)
  # `window` is checked whatever the output; only a histogram uses it
  if (!is.null(window)) {
    window <- driven_window(window, bins, call)
    if (output != "histogram") {
      sp_warn(sprintf(paste0("`window` is ignored: output = \"%s\" does not use it (only ",
                             "\"histogram\" does)."), output),
              call = call, class = "statphysgpu_unused_argument")
      window <- NULL
    }
  }
  grid <- sim_grid(list(a = a, omega = omega, f = f, beta = beta, theta = theta), call)
  ncond <- nrow(grid)
  fr <- sim_frame(call, n = replicas, first = first_replica, seed = seed, backend = backend,
                  devices = devices, precision = precision,
                  precisions = c("single", "double"), progress = progress,
                  groups = ncond, row_bytes = 7 * 8 + 9 * 8 + 40, auto_threshold = 1e4)
  keep <- check_whole(keep, "keep", lo = 0, hi = 2^40, call = call)
  if (output == "trajectories" && keep == 0) keep <- 10

  # replicas 1..keep of the whole study: this call keeps those it holds (its
  # first paths), so that chunks combine into the one-call trajectories
  keep_here <- max(0, min(fr$n, keep - (fr$first - 1)))
  nkeep <- ncond * keep_here * (periods + 1)
  if (nkeep > 0) {
    need <- nkeep * 8 * 2 * 4 # the engine's samples and the data frame
    if (nkeep > .Machine$integer.max || need > available_memory()) {
      sp_abort(sprintf(paste0(
        "`keep` = %s paths of %s periods in %s condition%s are %s samples (about %s); ",
        "keep fewer paths or run fewer periods."), fmt_count(keep_here), fmt_count(periods),
        fmt_count(ncond), if (ncond == 1) "" else "s", fmt_count(nkeep),
        fmt_bytes(need)), call = call)
    }
  }
  dens <- numeric()
  if (output == "histogram") {
    window <- driven_window(window, bins, call)
    nd <- ncond * (periods + 1) * (window[2] - window[1] + 2)
    need <- nd * 8 * 6 # the engine's counts and the data frame
    if (nd > .Machine$integer.max || need > available_memory()) {
      sp_abort(sprintf(paste0(
        "the density over time has %s counts (%s condition%s x %s periods x %s bins, ",
        "about %s); run fewer periods or narrow `window`."), fmt_count(nd),
        fmt_count(ncond), if (ncond == 1) "" else "s", fmt_count(periods + 1),
        fmt_count(window[2] - window[1]), fmt_bytes(need)), call = call)
    }
    dens <- c(window[1], window[2] - window[1])
  }
  if (!is.null(prev)) {
    resume <- driven_resume(prev, grid, fr, list(steps_per_period = spp, method = method,
                                                 output = output, bins = bins, keep = keep),
                            window, call)
    if (k0 >= periods * spp) return(prev) # nothing left to run
  }
  init <- driven_check_init(init, call)
  x0 <- driven_start_values(init$x, "init$x", fr$n, call)
  v0 <- driven_start_values(init$v, "init$v", fr$n, call)
  dt <- 2 * pi / grid$omega / spp
  driven_check_step(grid, dt, method, call)
  # the transient of the first run stays
  ntr <- if (is.null(prev)) floor(transient * periods) else attr(prev, "transient_periods")
  ktr <- ntr * spp
  # the engine's struct (driven_args.h) keeps the paper's field names
  conds <- list(a = grid$a, omega = grid$omega, f = grid$f, gamma = grid$beta,
                D0 = grid$theta, dt = dt, sigma = sqrt(2 * grid$beta * grid$theta * dt),
                stream0 = (grid$condition - 1) * 2^40)
  drive <- cos(2 * pi * (0:spp) / spp)
  # the declared engine (R/driven-declared.R) runs fresh runs; a
  # continuation goes on from the end states on the built-in engine
  res <- if (is.null(prev) && identical(sp_tuning("driven_engine", call), "declared")) {
    driven_declared_run(fr, grid, spp, periods, ktr, x0, v0, keep_here, dens, method, call)
  } else sim_run(fr, "driven", conds = lapply(conds, as.double), drive = drive, n = fr$n,
                 replica0 = check_u64(fr$first - 1, "first_replica", call = call),
                 seed = fr$seed, periods = periods, ktr = ktr, x0 = x0, v0 = v0,
                 keep_m = keep_here, dens_lo = if (length(dens)) dens[1] else 0,
                 dens_bins = if (length(dens)) dens[2] else 0, heun = method == "srk2",
                 single = fr$precision == "single", k0 = k0,
                 resume = if (is.null(prev)) DRIVEN_NO_RESUME else resume,
                 kernel = "driven", variant = driven_kernel_variant(fr$precision, method))
  cond_of <- rep.int(seq_len(ncond), rep.int(fr$n, ncond)) # rep(, each =), faster
  steps <- res$steps
  t_obs <- (steps - ktr) * dt
  reached <- steps > ktr
  npaths <- length(cond_of)
  # the per-path table built as one list: no data-frame method copies its
  # columns (the engine's vectors become columns as they are)
  paths <- new_df(list(
    condition = cond_of,
    replica = rep(fr$first - 1 + seq_len(fr$n), times = ncond),
    v_bar = if (!reached) rep(NA_real_, npaths)
            else (res$x - res$xtr) / (if (ncond == 1) t_obs else t_obs[cond_of]),
    v2_bar = if (reached) (res$acc2 + res$s2) / (steps - ktr) else rep(NA_real_, npaths),
    x = res$x, v = res$v, x_tr = res$xtr))
  traj <- NULL
  if (keep_here > 0) {
    np1 <- periods + 1
    traj <- data.frame(condition = rep(seq_len(ncond), each = keep_here * np1),
                       replica = rep(rep(fr$first - 1 + seq_len(keep_here), each = np1),
                                     times = ncond),
                       period = rep(0:periods, times = ncond * keep_here))
    traj$t <- traj$period * (2 * pi / grid$omega[traj$condition])
    traj$x <- res$keep_x
    traj$v <- res$keep_v
    traj <- traj[!is.na(traj$x), , drop = FALSE]
    rownames(traj) <- NULL
  }
  q0 <- k0 %/% spp # a continuation's samples up to period q0 are those of `init`
  if (!is.null(prev)) traj <- driven_join_samples(attr(prev, "trajectories"), traj, q0)
  meta <- list(conditions = grid, dt = dt, periods = periods, steps_per_period = spp,
               transient_periods = ntr, steps = steps, method = method, output = output,
               bins = bins, window = if (length(dens)) window,
               init = if (!is.null(prev)) attr(prev, "init")
                      else if (is.null(init$x) && is.null(init$v)) "default" else "given",
               keep = keep)
  density <- if (length(dens)) driven_density(res$density, grid, periods, window)
  if (!is.null(prev) && length(dens)) {
    density <- driven_join_density(attr(prev, "histogram"), density, q0)
  }
  out <- driven_assemble(paths, traj, meta, density)
  attr(out, "state") <- new_df(list(condition = paths$condition, replica = paths$replica,
                                    m = res$m, y = res$y, s2 = res$s2, acc2 = res$acc2))
  attr(out, "replicas") <- fr$n
  attr(out, "first_replica") <- fr$first
  out <- sim_result(out, fr, res, class = c("driven_paths", "data.frame"),
             unfinished = sprintf(paste0(
               "every path stopped at step %s of %s (t = %s periods); the averages ",
               "are over the time reached after the transient%s"),
               fmt_count(steps), fmt_count(periods * spp), format(steps / spp, digits = 4),
               if (reached) "" else " (none: still in the transient, so they are NA)"))
  sp_seal(out, DRIVEN_SEALED)
}

# The fields of a driven_brownian() result that a continuation reads
# (driven_prev(), driven_resume(), the samples it joins), sealed when the
# result is made (see sp_seal()): a result modified afterwards is refused.
DRIVEN_SEALED <- c("seed_hex", "precision", "method", "conditions", "periods",
                   "steps_per_period", "transient_periods", "steps", "output", "bins", "window",
                   "keep", "init", "replicas", "first_replica", "paths", "state",
                   "trajectories", "histogram")

# ---- continuing a result (init = <a result>) --------------------------------

# The resume table of a fresh run: no rows (driven_args.h, sp_driven_state).
DRIVEN_NO_RESUME <- list(m = numeric(), y = numeric(), v = numeric(), s2 = numeric(),
                         acc2 = numeric(), xtr = numeric())

# `init` is a previous result to continue: check that it has a state, and
# fill the arguments the caller left out (in `env`, driven_brownian()'s
# frame) from it; `periods` (the periods to add) must be given, `transient`
# must not (the transient of the first run stays).  The values given are
# checked against the result's in driven_resume().
driven_prev <- function(init, env, call) {
  sp_check_seal(init, "driven_brownian()", call, DRIVEN_SEALED)
  if (is.null(attr(init, "state"))) {
    sp_abort(paste0(
      "`init` has no end state of its paths (attribute \"state\"): it is a modified ",
      "result or one of an earlier version; continue an unmodified result of ",
      "driven_brownian()."), call = call)
  }
  if (!eval(quote(missing(transient)), env)) {
    sp_abort(sprintf(paste0(
      "`transient` cannot be given when continuing `init`: the continuation keeps the ",
      "transient of `init` (its first %s periods), so that the averages are those of ",
      "one run."), fmt_count(attr(init, "transient_periods"))), call = call)
  }
  if (eval(quote(missing(periods)), env)) {
    sp_abort(sprintf(paste0(
      "give `periods` to continue `init`: the drive periods to add to its %s (0 ",
      "completes an interrupted run)."), fmt_count(attr(init, "periods"))), call = call)
  }
  conds <- attr(init, "conditions")
  fill <- list(replicas = attr(init, "replicas"), a = unique(conds$a),
               omega = unique(conds$omega), f = unique(conds$f), beta = unique(conds$beta),
               theta = unique(conds$theta), steps_per_period = attr(init, "steps_per_period"),
               method = attr(init, "method"), output = attr(init, "output"),
               bins = attr(init, "bins"), keep = attr(init, "keep"),
               seed = attr(init, "seed_hex"), first_replica = attr(init, "first_replica"),
               precision = attr(init, "precision"), window = attr(init, "window"))
  for (nm in names(fill)) {
    if (eval(call("missing", as.name(nm)), env)) assign(nm, fill[[nm]], envir = env)
  }
  init
}

# The resume table (the job's `resume`, sp_driven_state, one row per path)
# of `prev`, after checking that prev is a run of this call's simulation
# (the same conditions, seed, method, precision, steps, replicas, output)
# and that its state is the engine's.  `given`: this call's values of the
# arguments that must agree.
driven_resume <- function(prev, grid, fr, given, window, call) {
  was <- list(steps_per_period = attr(prev, "steps_per_period"),
              method = attr(prev, "method"), output = attr(prev, "output"),
              bins = attr(prev, "bins"), keep = attr(prev, "keep"),
              precision = attr(prev, "precision"), replicas = attr(prev, "replicas"),
              first_replica = attr(prev, "first_replica"))
  now <- c(given, list(precision = fr$precision, replicas = fr$n, first_replica = fr$first))
  continue_check(prev, grid, fr, was, now, call)
  w <- attr(prev, "window")
  if (!identical(w, if (given$output == "histogram") window)) {
    continue_check(prev, grid, fr, list(window = paste(format(w), collapse = ", ")),
                   list(window = paste(format(window), collapse = ", ")), call)
  }
  bad <- function(why) {
    sp_abort(sprintf(paste0(
      "`init` holds no usable end state of its paths: %s. Continue an unmodified ",
      "result of driven_brownian() (rbind() of its chunks is one)."), why), call = call)
  }
  p <- attr(prev, "paths")
  st <- attr(prev, "state")
  n <- fr$n
  ncond <- nrow(grid)
  cols <- c("condition", "replica", "m", "y", "s2", "acc2")
  if (!is.list(st) || !all(cols %in% names(st)) || !is.list(p) ||
      !all(c("condition", "replica", "v", "x_tr") %in% names(p)) ||
      !all(vapply(c(st[cols], p[c("v", "x_tr")]), is.numeric, TRUE)) ||
      !all(lengths(c(st[cols], p[c("v", "x_tr")])) == ncond * n)) {
    bad(sprintf(paste0("attr(init, \"state\") must be a table of numeric columns %s, and ",
                       "attr(init, \"paths\") hold v and x_tr, one row for each of its %s ",
                       "paths"), paste(cols, collapse = ", "), fmt_count(ncond * n)))
  }
  cond_of <- as.double(rep.int(seq_len(ncond), rep.int(n, ncond)))
  rep_of <- as.double(rep(fr$first - 1 + seq_len(n), times = ncond))
  if (!identical(as.double(st$condition), cond_of) || !identical(as.double(st$replica), rep_of) ||
      !identical(as.double(p$condition), cond_of) || !identical(as.double(p$replica), rep_of)) {
    bad(sprintf("its rows must be replicas %s to %s of each of its %s conditions, in order",
                fmt_count(fr$first), fmt_count(fr$first + n - 1), fmt_count(ncond)))
  }
  steps <- attr(prev, "steps")
  ok <- is.numeric(steps) && length(steps) == 1 && !is.na(steps) && steps >= 0 &&
    steps <= attr(prev, "periods") * attr(prev, "steps_per_period")
  fin <- is.finite(st$m) & st$m == round(st$m) & abs(st$m) <= 2^31 - 1 &
    is.finite(st$y) & is.finite(p$v) & is.finite(st$s2) & is.finite(st$acc2) &
    (is.finite(p$x_tr) | is.na(p$x_tr))
  if (!ok || !all(fin)) {
    bad(if (!ok) "its step count is not one of its run" else
          sprintf("replica %s of condition %s has a non-finite or broken state",
                  fmt_count(st$replica[which(!fin)[1]]), st$condition[which(!fin)[1]]))
  }
  list(m = as.double(st$m), y = as.double(st$y), v = as.double(p$v),
       s2 = as.double(st$s2), acc2 = as.double(st$acc2), xtr = as.double(p$x_tr))
}

# Samples of a continuation: those of `init` up to period q0, the run's
# after it (kept trajectories: rows by condition, replica and period).
driven_join_samples <- function(old, new, q0) {
  if (is.null(old) && is.null(new)) return(NULL)
  out <- rbind(old[old$period <= q0, , drop = FALSE], new[new$period > q0, , drop = FALSE])
  out <- out[order(out$condition, out$replica, out$period), , drop = FALSE]
  rownames(out) <- NULL
  out
}

# The density over time of a continuation: the counts of `init` (its
# histogram attribute) up to period q0, the run's after it.
driven_join_density <- function(old, new, q0) {
  d <- new$density
  o <- new$outside
  d$count[d$period <= q0] <- old$density$count[old$density$period <= q0]
  o$below[o$period <= q0] <- old$outside$below[old$outside$period <= q0]
  o$above[o$period <= q0] <- old$outside$above[old$outside$period <= q0]
  list(density = d, outside = o)
}

# The largest relative bias of the stationary <x^2>, <v^2> of the scheme
# (linearised) that passes without a warning.
DRIVEN_BIAS_MAX <- 1e-3

# The kernel variants of driven.cu: precision x method.  Single precision
# uses the hardware cosine for the force (its argument is reduced to
# [-pi, pi] first, where it is accurate to 2^-21.4).  Registers are capped
# for the most blocks an SM that compile without spills (SP_DRV_MINBLOCKS,
# bench/registers.R): single 48 (10 blocks of 128), double SRK2 80 and
# Euler 72; the "_free" variants leave the allocation free (single SRK2 56,
# double SRK2 102).  Option statphysgpu.driven_variant: "" (the default) or
# "_free", a suffix (bench/whole-call.R compares them).
driven_variants <- function() {
  v <- list()
  cap <- c(single_srk2 = 10, single_euler = 10, double_srk2 = 6, double_euler = 7)
  for (prec in c("single", "double")) for (m in c("srk2", "euler")) {
    nm <- paste(prec, m, sep = "_")
    def <- c(if (prec == "single") c("SP_REAL=float", "SP_REAL_SINGLE=1", "SP_FAST_SIN=1")
             else "SP_REAL=double",
             sprintf("SP_DRV_HEUN=%d", as.integer(m == "srk2")))
    v[[nm]] <- list(defines = c(def, sprintf("SP_DRV_MINBLOCKS=%d", cap[[nm]])),
                    fast_math = FALSE)
    v[[paste0(nm, "_free")]] <- list(defines = def, fast_math = FALSE)
  }
  v
}

# The kernel variant of a precision and method, with the suffix of option
# statphysgpu.driven_variant ("" or "_free").
driven_kernel_variant <- function(precision, method) {
  v <- paste(precision, method, sep = "_")
  sfx <- sp_tuning("driven_variant")
  if (paste0(v, sfx) %in% names(driven_variants())) {
    v <- paste0(v, sfx)
  }
  v
}

# The deprecated x0 = , v0 = (each given as list(value), or NULL when
# missing) as init = list(x = , v = ); with `init` too, an error.
driven_init_alias <- function(init, init_missing, x0, v0, call) {
  old <- c(x0 = !is.null(x0), v0 = !is.null(v0))
  if (!any(old)) return(init)
  if (!init_missing) {
    sp_abort(sprintf("give `init` only: `%s` is its old form (deprecated).",
                     paste(names(old)[old], collapse = "` and `")),
             call = call, class = "statphysgpu_deprecated_error")
  }
  for (o in names(old)[old]) {
    sp_warn(sprintf(paste0("`%s` of driven_brownian() is deprecated: it is now ",
                           "`init = list(%s = )` (the old name goes in the next release)."),
                    o, substr(o, 1, 1)), call = call, class = "statphysgpu_deprecated")
  }
  list(x = x0[[1]], v = v0[[1]])
}

# The start: NULL or list(x = , v = ) (either may be missing or NULL).
driven_check_init <- function(init, call) {
  if (is.null(init)) return(list(x = NULL, v = NULL))
  if (!is.list(init) || is.data.frame(init) || length(init) > 2 ||
      (length(init) && (is.null(names(init)) || !all(names(init) %in% c("x", "v")) ||
                        anyDuplicated(names(init))))) {
    sp_abort(sprintf(paste0(
      "`init` must be NULL (the default start) or a list with elements `x` ",
      "(start positions) and/or `v` (start velocities), not %s."), describe(init)),
      call = call)
  }
  list(x = init$x, v = init$v)
}

# Start values: NULL, one number, or one per replica; positions within
# 2^30 periods (the engine counts whole periods in 32 bits).
driven_start_values <- function(x, name, n, call) {
  if (is.null(x)) return(numeric())
  if (!is.numeric(x) || !(length(x) %in% c(1, n)) || anyNA(x) || any(!is.finite(x)) ||
      any(abs(x) > 2^30)) {
    sp_abort(sprintf(paste0(
      "`%s` must be NULL, a finite number or %s finite numbers (one per replica) ",
      "of magnitude at most 2^30, not %s."), name, fmt_count(n), describe(x)), call = call)
  }
  as.double(x)
}

# Warn when the step is coarse for the dynamics (see ?driven_brownian):
# the time scales, and the stationary temperature of the scheme linearised
# at the bottom of the potential (escape_linear_step(): the same SRK2 and
# Euler steps on x'' + beta x' + w2 x = noise, w2 = V'' = 4 pi^2).
driven_check_step <- function(grid, dt, method, call) {
  lin <- escape_linear_step(method, dt, grid$beta, 4 * pi^2)
  dev <- pmax(abs(lin$T_phi - 1), abs(lin$T_v - 1))
  hot <- !lin$stable | (grid$theta > 0 & dev > DRIVEN_BIAS_MAX)
  if (any(hot)) {
    i <- if (any(!lin$stable)) which(!lin$stable)[1] else which.max(ifelse(hot, dev, -1))
    what <- if (!lin$stable[i]) {
      "is unstable at the bottom of the potential (oscillations there grow)"
    } else {
      sprintf(paste0(
        "biases the thermal fluctuations: linearised at the bottom of the ",
        "potential (V'' = 4 pi^2) the discrete dynamics is stationary at %s theta ",
        "in x and %s theta in v, off by more than %s per cent"),
        format(lin$T_phi[i], digits = 4), format(lin$T_v[i], digits = 4),
        format(100 * DRIVEN_BIAS_MAX))
    }
    sp_warn(sprintf(paste0(
      "the %s step dt = %s %s (condition %d: beta = %s, beta dt = %s, ",
      "2 pi dt = %s); raise `steps_per_period`%s."), method, format(dt[i], digits = 3),
      what, i, format(grid$beta[i]), format(grid$beta[i] * dt[i], digits = 3),
      format(2 * pi * dt[i], digits = 3),
      if (method == "euler") " or use method = \"srk2\"" else ""), call = call,
      class = "statphysgpu_step_warning")
  }
  u <- abs(grid$a) / sqrt(grid$beta^2 + grid$omega^2) + abs(grid$f) / grid$beta +
    sqrt(grid$theta)
  rate <- pmax(2 * pi, grid$beta, 2 * pi * u)
  h <- dt * rate
  if (any(h > 0.25)) {
    i <- which.max(h)
    sp_warn(sprintf(paste0(
      "the step is coarse for the dynamics: dt = %s times the fastest rate ",
      "max(2 pi, beta, 2 pi u) = %s is %s > 0.25 (condition %d; u = %s is the ",
      "velocity scale |a| / sqrt(beta^2 + omega^2) + |f| / beta + sqrt(theta)); ",
      "raise `steps_per_period`."), format(dt[i], digits = 3), format(rate[i], digits = 3),
      format(h[i], digits = 3), i, format(u[i], digits = 3)), call = call,
      class = "statphysgpu_step_warning")
  }
  invisible(h)
}

# The window of the density: c(lo, hi) in whole potential periods.
driven_window <- function(window, bins, call) {
  if (is.null(window)) {
    lo <- -floor(bins / 2)
    return(c(lo, lo + bins))
  }
  ok <- is.numeric(window) && length(window) == 2 && !anyNA(window) &&
    all(is.finite(window)) && all(window == floor(window)) && window[1] < window[2] &&
    all(abs(window) <= 2^30) && window[2] - window[1] <= 2^24
  if (!ok) {
    sp_abort(sprintf(paste0(
      "`window` must be NULL or two whole numbers lo < hi (potential periods, ",
      "|lo|, |hi| <= 2^30, at most 2^24 bins), not %s."), describe(window)), call = call)
  }
  as.double(window)
}

# The engine's density counts (sp_driven_kargs in driven_args.h) as data
# frames: `density` (condition, period, t, x_lo, count) and `outside`
# (condition, period, t, below, above).
driven_density <- function(counts, grid, periods, window) {
  nb <- window[2] - window[1]
  m <- matrix(counts, nrow = nb + 2)
  ncond <- nrow(grid)
  cond <- rep(seq_len(ncond), each = periods + 1)
  q <- rep(0:periods, times = ncond)
  t <- q * (2 * pi / grid$omega[cond])
  list(density = data.frame(condition = rep(cond, each = nb), period = rep(q, each = nb),
                            t = rep(t, each = nb),
                            x_lo = rep(window[1] + 0:(nb - 1), times = length(q)),
                            count = as.vector(m[2:(nb + 1), , drop = FALSE])),
       outside = data.frame(condition = cond, period = q, t = t, below = m[1, ],
                            above = m[nb + 2, ]))
}

# The per-condition table from the per-path values (also for rbind()).
# Column vectors and one index per condition (no data frame subset a
# condition): the same values, in the same order, as statistics of the
# condition's rows.
driven_assemble <- function(paths, traj, meta, density = NULL) {
  grid <- meta$conditions
  spp <- meta$steps_per_period
  ktr <- meta$transient_periods * spp
  t_obs <- (meta$steps - ktr) * meta$dt
  ncond <- nrow(grid)
  rows <- condition_rows(paths$condition, ncond)
  vb <- paths$v_bar
  v2 <- paths$v2_bar
  dd <- paths$x - paths$x_tr
  stat <- vapply(seq_len(ncond), function(c) {
    i <- rows[[c]]
    p_vb <- if (is.null(i)) vb else vb[i]
    p_v2 <- if (is.null(i)) v2 else v2[i]
    d <- if (is.null(i)) dd else dd[i]
    m <- length(d)
    dc2 <- (d - mean(d))^2
    m2 <- mean(dc2)
    c(replicas = m, v_mean = mean(p_vb), v_se = stats::sd(p_vb) / sqrt(m),
      D_eff = stats::var(d) / (2 * t_obs[c]),
      # the fourth moment as squares of squares (x^4 calls pow(): 5x slower)
      D_eff_se = sqrt(max(mean(dc2^2) - m2^2, 0) / m) / (2 * t_obs[c]),
      v2_mean = mean(p_v2), v2_se = stats::sd(p_v2) / sqrt(m))
  }, numeric(7))
  stat <- as.data.frame(t(stat))
  stat$replicas <- as.integer(stat$replicas)
  out <- cbind(grid, stat, t_obs = ifelse(t_obs > 0, t_obs, NA_real_))
  rownames(out) <- NULL
  attr(out, "paths") <- paths
  if (meta$output == "histogram") {
    attr(out, "histogram") <- c(driven_histograms(paths, meta$bins), density)
  }
  attr(out, "trajectories") <- traj
  for (nm in setdiff(names(meta), c("output", "bins"))) attr(out, nm) <- meta[[nm]]
  attr(out, "output") <- meta$output
  attr(out, "bins") <- meta$bins
  out
}

# Position histogram (bins of one potential period, `bins` of them centred
# on the median) and velocity histogram (`bins` equal bins over the range)
# of the end states, per condition.
driven_histograms <- function(paths, bins) {
  pos <- vel <- list()
  conds <- unique(paths$condition)
  rows <- condition_rows(paths$condition, max(conds, 0L))
  for (c in conds) {
    i <- rows[[c]]
    px <- if (is.null(i)) paths$x else paths$x[i]
    pv <- if (is.null(i)) paths$v else paths$v[i]
    ok <- !is.na(px)
    x <- px[ok]
    v <- pv[ok]
    if (!length(x)) next
    lo <- floor(stats::median(x)) - floor(bins / 2)
    cell <- floor(x) - lo
    inside <- cell >= 0 & cell < bins
    cnt <- tabulate(cell[inside] + 1, bins)
    pos[[length(pos) + 1]] <- data.frame(condition = c, x_lo = lo + 0:(bins - 1),
                                         x_hi = lo + 1:bins, count = cnt,
                                         density = cnt / length(x),
                                         outside = sum(!inside))
    r <- range(v)
    if (r[1] == r[2]) r <- r + c(-0.5, 0.5)
    br <- seq(r[1], r[2], length.out = bins + 1)
    vc <- tabulate(findInterval(v, br, rightmost.closed = TRUE, all.inside = TRUE), bins)
    vel[[length(vel) + 1]] <- data.frame(condition = c, v_lo = br[-(bins + 1)], v_hi = br[-1],
                                         count = vc,
                                         density = vc / (length(v) * diff(br)))
  }
  list(position = do.call(rbind, pos), velocity = do.call(rbind, vel))
}
