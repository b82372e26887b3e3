#' Escape times over a tilted washboard
#'
#' Simulates `replicas` paths of the noisy, damped pendulum of a current-biased
#' Josephson junction (the RCSJ model of Pierro et al. 2018)
#' for every combination of the parameters, and returns the time at which each
#' path first crosses a threshold beyond the barrier top:
#' \deqn{\ddot\varphi + \beta\dot\varphi = V_0(\gamma - \sin\varphi) +
#'   \sqrt{2D}\,\xi(t),\qquad D = \beta\theta,}
#' in the normalised units of [jj_units()] (time unit \eqn{\hbar/E_C}). Each
#' path starts at rest at the bottom of the well, \eqn{\varphi_0 =
#' \arcsin\gamma} (or from the thermal distribution of the well, `init =
#' "thermal"`), and escapes when \eqn{\varphi} passes the threshold.
#'
#' @section Methods:
#' * `"euler"` is Algorithm 1 of the paper exactly (an explicit Euler step of
#'   \eqn{(\varphi, \dot\varphi)} with one normal per step, noise
#'   \eqn{\sqrt{2Dh}}); its bias in the mean escape time shrinks like
#'   \eqn{h}.
#' * `"srk2"` is the stochastic Heun (second-order Runge-Kutta) scheme of
#'   Januszewski and Kostur applied to \eqn{(\varphi, \dot\varphi)}, also one
#'   normal per step; its bias shrinks like \eqn{h^2}.
#'
#' The reported time is the crossing time interpolated linearly inside the
#' step where \eqn{\varphi} passes the threshold. A path that has not crossed
#' by `t_max` is censored: its `value` is `t_max` and `escaped` is `FALSE`
#' (use [summary()], [ecdf_band()] or [as_surv()], which account for it).
#'
#' @section Threshold, and which theory it matches:
#' * `"saddle"` (default): the barrier top \eqn{\pi - \arcsin\gamma},
#'   Algorithm 1 of the paper. A path that reaches the saddle goes on or
#'   falls back with comparable odds, so this first-passage time is shorter
#'   than the time to leave the well: in the overdamped limit its mean is the
#'   Smoluchowski mean first-passage time [mfpt_smoluchowski()], about half
#'   of \eqn{1/\Gamma}; at moderate damping it is 0.84-0.87 of the Kramers
#'   time \eqn{1/\Gamma} and does not approach it as the barrier grows.
#' * `"next_well"`: the bottom of the next well, \eqn{2\pi + \arcsin\gamma}:
#'   the path has left its well for good (into the running state, or
#'   retrapped one well on). Its escape times follow the rate theories of
#'   [escape_rate()] (Kramers, Buttiker-Harris-Landauer, Mel'nikov-Meshkov),
#'   up to the short transit time.
#' * a number \eqn{d \ge 0}: the point \eqn{d} past the saddle.
#'
#' `plot(x, theory = )` compares like with like: the rate theories with
#' `"next_well"` (or a threshold past the saddle), the Smoluchowski time with
#' `"saddle"` in the overdamped regime; it warns when asked for a rate theory
#' on saddle crossings.
#'
#' @section Steps, stability and precision:
#' The call is refused when the scheme is unstable for the dynamics in the
#' well (an eigenvalue of one step of the dynamics linearised at the bottom
#' of the well, frequency \eqn{\omega_0 = \sqrt{V_0}(1-\gamma^2)^{1/4}},
#' reaches the unit circle):
#' both schemes need \eqn{\beta h < 2}, and Euler also
#' \eqn{h\omega_0^2 < \beta} (its numerical anti-damping, which pumps energy
#' into the well otherwise). Such runs produce escapes that are artefacts of
#' the step. It warns when the scheme is stable but heats or cools the well:
#' when the stationary temperature of the linearised discrete dynamics,
#' \eqn{\omega_0^2\langle\varphi^2\rangle} or \eqn{\langle\dot\varphi^2\rangle},
#' is off \eqn{\theta} by more than 5 per cent (an escape rate \eqn{\propto
#' e^{-\Delta U/\theta}} is then off by about \eqn{\Delta U/\theta} times
#' that), when \eqn{h\sqrt{V_0} > 0.1} (fewer than about 60 steps per plasma
#' period), when single-precision steps are too small to move \eqn{\varphi}
#' (\eqn{h\sqrt\theta < 4\times10^{-6}}: use `precision = "double"`), and
#' refuses parameters whose working-precision values overflow (\eqn{V_0},
#' \eqn{\beta} or the noise amplitude beyond \eqn{10^{30}} in single
#' precision, \eqn{10^{150}} in double). [h_check()] measures the step bias
#' by a rerun at \eqn{h/2}.
#'
#' @section Random numbers and chunking:
#' Replica \eqn{r} of condition \eqn{c} (numbered from 1 in the order of the
#' `conditions` attribute) draws from Philox stream \eqn{(c-1)\,2^{40} + r -
#' 1}; step \eqn{k} uses normal \eqn{k-1} of that stream (a thermal start
#' draws from a separate purpose of the same stream, see `?philox`). A path's
#' result depends only on the seed, its condition and its replica number, so
#' `escape_times(replicas = m, first_replica = k + 1, ...)` returns replicas
#' \eqn{k+1, \dots, k+m} of the same seed: chunks run anywhere (other threads,
#' GPUs, cluster workers) combine with `rbind()` into the one-machine result.
#' On the CPU results are bit-identical for any thread count and chunking;
#' CPU and GPU agree path by path in double precision up to rounding.
#' [replica_chunks()] lays out the chunks of a large study. (Bit identity holds
#' for one build on one kind of CPU: the engine picks AVX-512, AVX2 or
#' baseline code at load time, and fused multiply-adds round differently, so
#' different CPUs agree to rounding, which can move a crossing by one step.)
#'
#' @section Interrupts:
#' An interrupt (Ctrl-C) stops the run after the launch in flight and returns
#' every path: the finished ones as they are, the unfinished ones censored at
#' the time (or bias) they had reached (`escaped = FALSE`; a path that had
#' not started is censored at its start), which is a valid right-censored
#' observation, so `summary()`, [ecdf_band()] and [as_surv()] stay correct.
#' They are listed in `attr(x, "unfinished")` (condition and replica), and a
#' warning says how many there are; rerun those replicas (same seed,
#' `first_replica`) to complete the sample. A time limit (`setTimeLimit()`)
#' or another error is not an interrupt: it raises as an error.
#'
#' @section Engines:
#' With the option `statphysgpu.escape_engine = "declared"` (default
#' `"builtin"`) a fresh run of `escape_times()` or `switching_currents()` is
#' the same SDE declared with [sde_model()] (the bias \eqn{\gamma_0 +
#' \text{ramp}\,t} a term of the exact time) and run by [sde_run()] to the
#' first passage of the threshold: the same arguments, result, attributes and
#' methods, and the same laws. What differs: the random streams are
#' [sde_run()]'s; a thermal start is drawn on the host from the same
#' tabulated law (Philox purpose 13 of the path's stream, R's generator
#' untouched) and given to [sde_run()] per path; where the conditions need
#' their own end (several ramps) each condition is one [sde_run()] call
#' that draws the streams of condition \eqn{c} (those one call of all the
#' conditions would draw);
#' `state` holds `hit = 0` and `frac = 0` (the engine stops a path at its
#' crossing, also one past `t_max`), and the issued steps are the useful
#' ones. The [sde_run()] results are kept in `attr(x, "sde_runs")` (sealed):
#' such a result given as `init` continues them (`sde_run(init = <run>,
#' t_max = ...)`), on the CPU path by path the one call with the larger
#' `t_max` (`gamma_max`), under either option, as a result of the built-in
#' engine continues on the built-in engine.
#'
#' @section Continuing:
#' `escape_times(init = x, t_max = )` continues the result `x` of an earlier
#' call to a larger `t_max` (at least `x`'s): its censored paths go on from
#' the state where they stopped (\eqn{\varphi}, \eqn{\dot\varphi} and the
#' step reached, kept in `attr(x, "state")`), its escaped paths are kept as
#' they are, and the paths an interrupt left unfinished (`attr(x,
#' "unfinished")`) go on from where they stopped too (or start, if they had
#' not). Step \eqn{k} of a path still uses normal \eqn{k-1} of its stream, so
#' the result is that of one call with the larger `t_max`, path by path: bit
#' for bit on the CPU (the step counts of `attr(, "steps")` too), to rounding
#' on the GPU. The other arguments are taken from `x` (`replicas`, the
#' parameters, `dt`, `method`, `seed`, `first_replica`, `precision`,
#' `threshold`); given ones must equal `x`'s, and a result whose state does
#' not match its paths (modified, subset) is refused. What a continuation
#' reads of `x` -- its seed (`seed_hex`), `precision`, `dt`, `method`,
#' `threshold`, `init`, `replicas`, `first_replica`, `conditions`, `t_max`
#' (`gamma0`, `gamma_max`), `state`, `steps`, `args` and its columns, the
#' paths it carries into its result -- is sealed when `x` is made
#' (attribute `sealed`, a digest of each): a result in which any of them was
#' changed afterwards is refused (an error of class
#' `statphysgpu_modified_result` naming it), since its paths would not be
#' those it was run with. Continuing and
#' `rbind()` of chunks commute: continue each chunk and combine, or combine
#' and continue. `switching_currents(init = x, gamma_max = )` continues a ramp
#' to a higher `gamma_max` in the same way.
#'
#' @param replicas Paths per condition, a whole number \eqn{\ge 1}.
#' @param gamma Bias current \eqn{I_b/I_c}, in \eqn{[0, 1)}; a vector gives
#'   one condition per value.
#' @param V0 \eqn{E_J/E_C}, positive (vector allowed).
#' @param beta Damping \eqn{\hbar/((2e)^2R)}, positive (vector allowed).
#' @param theta Temperature \eqn{k_BT/E_C}, positive (vector allowed).
#' @param dt Time step \eqn{h} (normalised units), positive; see "Steps, stability
#'   and precision".
#' @param t_max Censoring time, positive and finite; at most \eqn{2^{53}}
#'   steps per path. Continuing a result (`init = `), at least its `t_max`.
#' @param method `"srk2"` (default) or `"euler"`.
#' @param seed Philox key: a whole number in \eqn{[0, 2^{64})}, a hexadecimal
#'   string, or `NULL` to draw one from R's random number generator
#'   ([sp_seed()]), so `set.seed()` makes the call reproducible.
#' @param first_replica Number of the first replica of this call (chunking).
#' @param backend `"auto"` (the GPU when usable and there are at least 10,000
#'   paths), `"cpu"` or `"gpu"`.
#' @param devices GPU ids, `"all"`, or `NULL` (the first GPU). With several
#'   GPUs, paths are handed out in chunks as each device needs them, so a
#'   slow condition does not leave a device idle.
#' @param precision `"single"` (default; the fast path on GPUs) or
#'   `"double"`.
#' @param progress Show a progress bar (updated between launches, about every
#'   0.1 s).
#' @param threshold `"saddle"` (default), `"next_well"`, or a number
#'   \eqn{\ge 0} of radians past the saddle; see "Threshold".
#' @param init `"rest"` (default: \eqn{\varphi_0 = \arcsin\gamma},
#'   \eqn{\dot\varphi = 0}), a previous result of the same simulator to
#'   continue (see "Continuing"), or `"thermal"`: \eqn{\varphi} drawn from the
#'   Boltzmann law \eqn{\propto e^{-U(\varphi)/\theta}} of the well (between
#'   the neighbouring saddles, where it is above \eqn{e^{-30}} of its peak;
#'   tabulated on 1025 knots and inverted exactly between them) and
#'   \eqn{\dot\varphi} normal with variance \eqn{\theta}, so that the escape
#'   times have no relaxation transient.
#' @param n,h,start Deprecated names of `replicas`, `dt` and `init` (they
#'   work, with a warning of class `statphysgpu_deprecated`).
#' @return An object of class `escape_times`: a data frame with one row per
#'   path and columns `condition`, `gamma`, `V0`, `beta`, `theta`, `replica`,
#'   `value` (escape time) and `escaped`; attributes `conditions` (the
#'   parameter grid), `seed`, `backend`, `devices`, `precision`, `method`,
#'   `dt`, `t_max`, `threshold`, `init`, `replicas`, `first_replica`, `steps` (useful and
#'   issued integration steps), `seconds`, `interrupted`, `unfinished`,
#'   `state` (the paths not escaped, where they stopped: `condition`,
#'   `replica`, `phi`, `v`, `step`, and `hit`, `frac` for a crossing found
#'   past `t_max` in the last steps run; for `init = `) and
#'   `args` (the call's arguments, for [h_check()]), `sealed` (see
#'   Continuing). The attributes `h`, `start` and `n`, the names of `dt`,
#'   `init` and `replicas` in earlier versions, are still set (deprecated:
#'   they go in the next release). Methods: `print`,
#'   `summary`, `plot`, `autoplot` (ggplot2), `as.data.frame`, [as_surv()],
#'   `rbind` of chunks.
#' @seealso [switching_currents()] for a bias ramp, [escape_rate()] and
#'   [mfpt_smoluchowski()] for theory, [arrhenius_fit()], [h_check()].
#' @references Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' x <- escape_times(200, gamma = 0.5, V0 = 1, beta = 0.5, theta = c(0.15, 0.2),
#'                   dt = 0.02, t_max = 2000, seed = 1, backend = "cpu",
#'                   threshold = "next_well")
#' x
#' summary(x)
#' plot(x, theory = "kramers")
#' # continue the censored paths to a later t_max (= one call with it)
#' y <- escape_times(init = x, t_max = 4000, backend = "cpu")
#' c(sum(!x$escaped), sum(!y$escaped))
#' @export
escape_times <- function(replicas, gamma, V0, beta, theta, dt, t_max,
                         method = c("srk2", "euler"), seed = NULL,
                         first_replica = 1, backend = "auto", devices = NULL,
                         precision = c("single", "double"),
                         progress = interactive(), threshold = "saddle",
                         init = c("rest", "thermal"), n, h, start) {
  call <- sys.call()
  sp_renamed_args(c(n = "replicas", h = "dt", start = "init"), "escape_times")
  prev <- NULL
  if (is.data.frame(init)) { # a previous result: its arguments fill the missing ones
    prev <- escape_prev(init, "escape_times", c("gamma", "V0", "beta", "theta"),
                        environment(), "t_max", call)
    init <- attr(prev, "init")
  }
  args <- list(replicas = replicas, gamma = gamma, V0 = V0, beta = beta, theta = theta,
               dt = dt, t_max = t_max, method = method, seed = seed,
               first_replica = first_replica, backend = backend, devices = devices,
               precision = precision, threshold = threshold, init = init)
  gamma <- check_range(gamma, "gamma", 0, 1, hi_open = TRUE, call = call)
  h <- check_positive(dt, "dt", len = 1, call = call)
  t_max <- check_positive(t_max, "t_max", len = 1, call = call)
  if (t_max < h) {
    sp_abort(sprintf("`t_max` (%s) must be at least one step `dt` (%s).",
                     format(t_max), format(h)), call = call)
  }
  grid <- escape_grid(list(gamma = gamma, V0 = V0, beta = beta, theta = theta), call)
  kmax <- steps_upto(t_max / h)
  if (!isTRUE(kmax <= 2^53)) { # NaN when t_max / h overflows
    sp_abort(sprintf(paste0(
      "`t_max / dt` = %s steps per path is more than 2^53 (about 9e15), the ",
      "most a path can count exactly; use a larger `dt` or a smaller `t_max`."),
      format(t_max / h, digits = 3)), call = call)
  }
  escape_run("escape_times", grid, g0 = grid$gamma, dg = 0, vcens = t_max,
             kmax = kmax, n = replicas, h = h, method = method, seed = seed,
             first_replica = first_replica, backend = backend, devices = devices,
             precision = precision, progress = progress, threshold = threshold,
             start = init, extra = list(t_max = t_max), args = args, call = call,
             prev = prev, kmax_prev = if (!is.null(prev)) steps_upto(attr(prev, "t_max") / h))
}

#' Switching currents under a bias ramp
#'
#' Algorithm 3 of Pierro et al. (2018): the bias rises linearly, \eqn{\gamma(t) =
#' \gamma_0 + \text{ramp}\; t}, from `gamma0` with the junction at rest in
#' its well, and each path reports the bias at which it switches (crosses
#' \eqn{\pi - \arcsin\gamma_0}, the saddle of the starting bias, as in the
#' paper; or the other thresholds of [escape_times()]). The bias of step
#' \eqn{k} is \eqn{\gamma_k = \gamma_0 + k\,h\,\text{ramp}}, formed from the
#' 64-bit step count in double precision, never as a running sum (which
#' stops moving in single precision once the step falls below half an ulp of
#' \eqn{\gamma}). The reported bias is interpolated inside the crossing step.
#' Paths that have not switched when the bias reaches `gamma_max` are
#' censored there (`escaped = FALSE`). A ramp that sweeps from `gamma0` to
#' `gamma_max` within one plasma period gives a warning: the junction cannot
#' follow it, and paths are censored rather than switched.
#'
#' Compare with the adiabatic Fulton-Dunkleberger distribution,
#' [switching_distribution()]; `plot(x, theory = "kramers")` overlays it, and
#' [switching_rate()] turns the sample back into an escape rate.
#'
#' @section Starting where switching is negligible:
#' At a laboratory's slow ramps a path spends most of its steps on the
#' approach, where it hardly ever switches. `gamma0 = "auto"` starts the
#' ramp at the largest bias \eqn{\gamma_0} where the probability that a
#' path swept from \eqn{\gamma = 0} would already have switched,
#' \eqn{1 - \exp(-\int_0^{\gamma_0}\Gamma(g)\,dg/\text{ramp})} with the
#' Kramers rate (the law of [switching_distribution()]), is at most
#' \eqn{\varepsilon = 0.01/}`replicas`: the run's expected number of
#' paths that would have switched before \eqn{\gamma_0} is at most 0.01,
#' so no statistic of the sample can tell it from a run from
#' \eqn{\gamma = 0} with an advantage above 0.01. The paths start in
#' thermal equilibrium in the well of \eqn{\gamma_0} (`init =
#' "thermal"`), which is where a slowly swept path is; where the ramp is
#' too fast for that (see [switching_start()], "Quasi-equilibrium") the
#' call is refused. The result's attribute `start_bound` holds, per
#' condition, `gamma0` and `p`, the probability of a switch before it (0
#' for `gamma0 = 0`; also set for a numeric `gamma0`, for which a thermal
#' start that is not quasi-static gives a warning), with attribute `eps`;
#' `print()` and `summary()` state it. For another tolerance give
#' `gamma0 = switching_start(..., eps = )$gamma0`. The reported CDF is then
#' that of the switches above \eqn{\gamma_0}; compare it with
#' `switching_distribution(..., gamma0 = 0)`, which differs from the
#' conditional law by at most `p`. The threshold `"saddle"` is the saddle
#' of \eqn{\gamma_0} (as in the paper), which a path passes a fraction of
#' a plasma period after the saddle of a later bias.
#'
#' @section Laboratory ramps from escape rates (`method = "rates"`):
#' At slow sweeps the junction is quasi-static, and the switching
#' distribution is the Fulton-Dunkleberger integral of the escape rate along
#' the ramp, \eqn{F(\gamma) = 1 - \exp(-\int_{\gamma_0}^{\gamma}\Gamma(g)\,
#' dg/v)}. `method = "rates"` simulates \eqn{\Gamma} at fixed biases instead
#' of sweeping paths (which at a laboratory's 200 Hz take some
#' \eqn{10^{11}} steps each), with no rate formula assumed:
#' 1. *Bias grid*: `rates$points` biases evenly over the window where the
#'    Kramers law ([switching_distribution()]) puts all but `rates$eps` of
#'    the switches: from [switching_start()]`(eps = rates$eps)` (or a larger
#'    numeric `gamma0`) to its `1 - rates$eps` quantile (or `gamma_max`).
#'    The theory only places the points and sizes the runs.
#' 2. *Rates*: at each bias, from thermal equilibrium in the well
#'    (`init = "thermal"`), with the threshold of the ramp (the saddle of
#'    `gamma0`, or of the grid's lower end with `"auto"`: the same point
#'    \eqn{\varphi} at every bias, so that the event is the brute force's).
#'    The precision wanted at a bias is `rates$target` divided by the
#'    sensitivity of the CDF to its rate there, \eqn{(1-F)(-\ln(1-F))}
#'    (at most 0.5 in the log); that many escapes, at the planned rate,
#'    give the exposure. Where `replicas` paths can gather it within
#'    `rates$steps` steps (default `"auto"`: \eqn{10^{13}} on a GPU, about
#'    30-40 s of one H100, \eqn{10^9} on the CPU) [escape_times()] runs
#'    them, censored at the
#'    time that collects it (escape is rare on each path, but the exposure
#'    of many short paths adds up), and \eqn{\Gamma} is the censored
#'    maximum-likelihood rate ([exp_tail_rate()], escapes counted after
#'    five relaxation times of the well), with error \eqn{1/\sqrt{d}} in
#'    \eqn{\ln\Gamma} for \eqn{d} escapes; elsewhere
#'    [escape_rate_ams()] (`rates$particles`, `rates$score`: `"auto"` takes
#'    the energy in an underdamped well, the position otherwise) gives
#'    \eqn{1/\tau} with its jackknife error, sized to the same precision:
#'    a first batch of `rates$ams_replicas` replicas (`"auto"`: as
#'    [escape_rate_ams()] takes it, 16 on the CPU, about 65,536 particles a
#'    GPU), then batches that bring the replicas to
#'    \eqn{1.2\,(se/se_{wanted})^2} times those before (at least 1.25
#'    times), from the error measured so far, until the error in
#'    \eqn{\ln\Gamma} reaches the precision wanted (`se_wanted` in the
#'    rate table), the replicas' steps would pass `rates$steps`, the
#'    replicas `rates$ams_max_replicas` (`"auto"`: 64 times the first
#'    batch), or after 4 batches. Where AMS's estimates are far more
#'    variable than its ideal (a poor score: the device of Fig. 11(b),
#'    \eqn{Q \approx 3.5}, had 100-1500 times the ideal relative variance
#'    with either score) the caps stop it short of `se_wanted`, and the
#'    larger error is what the fit and the bands carry; `rate_se` of such
#'    skewed estimates can itself be low, so prefer brute force (a larger
#'    `rates$steps`) where it is affordable. Each run draws from Philox
#'    streams of its own (replica numbers that follow on from the previous
#'    run's), so the estimates are independent; a batch's size depends only
#'    on the results before it, so the result is the same for a seed,
#'    whatever the timing.
#' 3. *Fit*: \eqn{\ln\Gamma} by maximum likelihood on a polynomial of
#'    degree `rates$degree` (3) in the bias: a brute-force bias is a Poisson
#'    count (\eqn{d} escapes in its exposure: weight the escapes the fit
#'    expects there, so a bias with few escapes does not pull the fit up,
#'    and one with none still counts), an AMS bias normal in
#'    \eqn{\ln\Gamma} with its error; the covariance scaled by
#'    \eqn{\chi^2/df} (Pearson's) where the points scatter more than their
#'    errors.
#' 4. *Distribution*: the integral on 4001 points of the window (the
#'    switches between `gamma0` and the window, at most about `eps`, by the
#'    fit's exponential continuation), the CDF, density, quantiles, mean
#'    and standard deviation (switches past the window counted at its top;
#'    `top_cdf` says how many that is). Errors by the delta method over the
#'    fit's coefficients (central differences): deterministic, no random
#'    numbers; the CDF's band is formed on \eqn{\ln\int\Gamma}, so it stays
#'    in \[0, 1\].
#'
#' The result, of class `c("switching_rates", "switching_currents",
#' "data.frame")`, has one row per point of the window and condition:
#' `condition`, `ramp`, `V0`, `beta`, `theta`, `gamma`, `cdf`, `cdf_lower`,
#' `cdf_upper`, `density`, `density_lower`, `density_upper`, `rate` (the
#' fitted \eqn{\Gamma}) and `rate_se_log`; attribute `rates` is the rate
#' table (per bias: `gamma`, `t_max`, `estimator`, `rate`, `se_log`,
#' `events`, `exposure`, `runs` (paths or AMS replicas), `seconds`,
#' `se_wanted` (the plan's precision in \eqn{\ln\Gamma}),
#' `kramers_rate` (the plan's), `threshold` (radians past that bias's
#' saddle), `fit_log_rate`, `fit_se_log`), attribute `stats` the mean,
#' standard deviation and quantiles (1, 10, 25, 50, 75, 90, 99 per cent)
#' with standard errors, the window and the fit's \eqn{\chi^2}; `fits`,
#' `settings`, `seed`, `backend`, `seconds`. Methods: `print()`,
#' `summary()` (intervals at `rates$level`), `plot()` and `autoplot()`
#' ([plot.switching_rates()]: the CDF, density, Gumbel view or the rates,
#' with theory and a brute-force sample to compare). Checks (tests): at
#' ramps that brute force can run, the two agree by Kolmogorov-Smirnov and
#' in mean and width within errors; in the Kramers regime the rates agree
#' with [escape_rate()]. `bench/switching-rates.R` (source repository) runs
#' the device of Fig. 11(b) of Pierro et al. at 200 Hz.
#'
#' @inheritParams escape_times
#' @inheritSection escape_times Interrupts
#' @inheritSection escape_times Continuing
#' @inheritSection escape_times Engines
#' @param method `"srk2"` (default) or `"euler"`: brute force, every path
#'   swept with that scheme (as for [escape_times()]); or `"rates"`: the
#'   distribution from escape rates simulated at fixed bias (see
#'   "Laboratory ramps from escape rates"), with the scheme `rates$scheme`.
#' @param rates Settings of `method = "rates"`, a named list: `points`
#'   (biases, default 12), `eps` (the window, 1e-3), `target` (CDF error a
#'   bias's rate may contribute, 0.005), `steps` (step budget of a bias's
#'   runs, brute force or AMS, `"auto"`), `scheme` (`"srk2"`), `particles` (1000),
#'   `ams_replicas` (AMS's first batch, `"auto"`), `ams_max_replicas` (cap
#'   of AMS replicas a bias, `"auto"`), `score` (`"auto"`), `degree` (3),
#'   `level` (0.95). With `method = "rates"`, `replicas` is the number of paths of
#'   each brute-force rate, `init` must be `"thermal"` (or left out) and
#'   `first_replica` 1.
#' @param ramp Bias increase per unit of normalised time (see [jj_units()],
#'   which converts a sweep rate in A/s), positive; a vector gives one
#'   condition per value.
#' @param gamma0 Starting bias, in \eqn{[0, 1)}, or `"auto"`: the largest
#'   bias below which a path swept from \eqn{\gamma = 0} switches with
#'   probability at most `0.01 / replicas` by the Fulton-Dunkleberger law
#'   (the smallest over the conditions; [switching_start()], which also
#'   takes another tolerance), with the paths started there in thermal
#'   equilibrium (`init = "thermal"`, the default with `"auto"`); refused
#'   where the ramp is too fast for the well to follow it. See "Starting
#'   where switching is negligible".
#' @param gamma_max Bias at which paths are censored, in
#'   \eqn{(\gamma_0, 1]}; continuing a result (`init = `), at least its
#'   `gamma_max`.
#' @param threshold As for [escape_times()], at the starting bias `gamma0`.
#' @param init As for [escape_times()], in the well of `gamma0`; or a
#'   previous result of `switching_currents()` to continue to a higher
#'   `gamma_max`.
#' @return An object of class `switching_currents`, laid out as for
#'   [escape_times()] with columns `condition`, `ramp`, `V0`, `beta`,
#'   `theta`, `replica`, `value` (bias at switching) and `escaped` (switched
#'   before `gamma_max`); attribute `start_bound` (see "Starting where
#'   switching is negligible"), and `gamma0` the bias the ramp started at.
#'   With `method = "rates"`, an object of class `switching_rates` (a
#'   subclass; see "Laboratory ramps from escape rates").
#' @references
#' Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' # started where switching is negligible (gamma0 = "auto"): half a second
#' # of CPU time
#' x <- switching_currents(200, ramp = 1e-4, V0 = 4, beta = 0.3, theta = 0.2,
#'                         dt = 0.02, gamma0 = "auto", seed = 1, backend = "cpu")
#' summary(x)
#' plot(x, theory = "kramers")
#' # the same junction and ramp from escape rates simulated at fixed bias
#' r <- switching_currents(400, ramp = 2e-5, V0 = 4, beta = 0.3, theta = 0.2,
#'                         dt = 0.02, seed = 1, backend = "cpu", method = "rates",
#'                         gamma0 = "auto", rates = list(points = 6, target = 0.05))
#' summary(r)
#' plot(r, theory = "kramers", paths = x)
#' @export
switching_currents <- function(replicas, ramp, V0, beta, theta, dt, gamma0 = 0,
                               gamma_max = 1, method = c("srk2", "euler", "rates"),
                               seed = NULL, first_replica = 1, backend = "auto",
                               devices = NULL, precision = c("single", "double"),
                               progress = interactive(), threshold = "saddle",
                               init = c("rest", "thermal"), n, h, start, rates = list()) {
  call <- sys.call()
  sp_renamed_args(c(n = "replicas", h = "dt", start = "init"), "switching_currents")
  if (identical(method, "rates")) {
    return(switching_rates_call(replicas, ramp, V0, beta, theta, dt, gamma0, gamma_max,
                                seed, first_replica, backend, devices, precision, progress,
                                threshold, if (missing(init)) NULL else init, rates, call))
  }
  if (!missing(rates)) {
    sp_abort("`rates` (settings of method = \"rates\") is given, but `method` is not \"rates\".",
             call = call)
  }
  method <- check_choice(method, c("srk2", "euler", "rates"), "method", call = call)
  prev <- NULL
  if (inherits(init, "switching_rates")) {
    sp_abort(paste0("`init` is a result of method = \"rates\", which has no paths to ",
                    "continue: rerun it with another `gamma_max`."), call = call)
  }
  if (is.data.frame(init)) { # a previous result: its arguments fill the missing ones
    prev <- escape_prev(init, "switching_currents", c("ramp", "V0", "beta", "theta"),
                        environment(), "gamma_max", call,
                        more = list(gamma0 = attr(init, "gamma0")))
    init <- attr(prev, "init")
  }
  args <- list(replicas = replicas, ramp = ramp, V0 = V0, beta = beta, theta = theta,
               dt = dt, gamma0 = gamma0, gamma_max = gamma_max, method = method,
               seed = seed, first_replica = first_replica, backend = backend,
               devices = devices, precision = precision, threshold = threshold,
               init = init)
  h <- check_positive(dt, "dt", len = 1, call = call)
  auto <- identical(gamma0, "auto")
  if (is.character(gamma0) && !auto) {
    sp_abort(sprintf(paste0("`gamma0` must be a single finite number in [0, 1) or ",
                            "\"auto\", not %s."), describe(gamma0)), call = call)
  }
  if (!auto) gamma0 <- check_range(gamma0, "gamma0", 0, 1, hi_open = TRUE, len = 1, call = call)
  grid <- escape_grid(list(ramp = ramp, V0 = V0, beta = beta, theta = theta), call)
  if (auto && is.null(prev)) {
    if (missing(init)) init <- "thermal"
    if (!identical(init, "thermal")) {
      sp_abort(sprintf(paste0(
        "gamma0 = \"auto\" starts the paths in thermal equilibrium at gamma0: use ",
        "init = \"thermal\" (the default with \"auto\"), not %s, or give `gamma0` ",
        "as a number."), describe(init)), call = call)
    }
  }
  bound <- switching_bound(grid, gamma0, replicas, auto,
                           thermal = is.null(prev) && identical(init, "thermal"), call)
  gamma0 <- attr(bound, "gamma0")
  gamma_max <- check_range(gamma_max, "gamma_max", gamma0, 1, lo_open = TRUE,
                           len = 1, call = call)
  dg <- grid$ramp * h
  kmax <- steps_upto((gamma_max - gamma0) / dg)
  if (any(!(kmax <= 2^53))) {
    sp_abort("the ramp is too slow for `gamma_max`: more than 2^53 steps per path.",
             call = call)
  }
  # a sweep shorter than a plasma period of the starting bias: the junction
  # cannot follow it
  sweep <- (gamma_max - gamma0) / grid$ramp
  period <- 2 * pi / (sqrt(grid$V0) * (1 - gamma0^2)^0.25)
  fast <- sweep < period
  if (any(fast)) {
    i <- which(fast)[1]
    sp_warn(sprintf(paste0(
      "the ramp sweeps from gamma0 = %s to gamma_max = %s in t = %s, less ",
      "than one plasma period (2 pi / omega0 = %s, ramp = %s): the junction ",
      "cannot follow, and paths end censored at gamma_max rather than ",
      "switched."), format(gamma0), format(gamma_max), format(sweep[i], digits = 3),
      format(period[i], digits = 3), format(grid$ramp[i])), call = call)
  }
  escape_run("switching_currents", grid, g0 = gamma0, dg = dg, vcens = gamma_max,
             kmax = kmax, n = replicas, h = h, method = method, seed = seed,
             first_replica = first_replica, backend = backend, devices = devices,
             precision = precision, progress = progress, threshold = threshold,
             start = init, extra = list(gamma0 = gamma0, gamma_max = gamma_max),
             args = args, call = call, prev = prev,
             kmax_prev = if (!is.null(prev)) steps_upto((attr(prev, "gamma_max") - gamma0) / dg),
             start_bound = bound)
}

# The bound of a ramp's start (attribute start_bound of the result): for
# each condition of `grid`, the probability p that a path swept from
# gamma = 0 switches before gamma0 (switching_distribution(), Kramers rate),
# and, for a thermal start at gamma0 > 0, the quasi-equilibrium parameters
# of switching_start() (a warning where they fail).  gamma0 =
# "auto" (auto): the smallest of the conditions' switching_start() with the
# default eps = 0.01 / replicas, refused where the ramp is not quasi-static;
# attribute gamma0 holds the start.  gamma0 = 0: p = 0 and no check.
switching_bound <- function(grid, gamma0, replicas, auto, thermal, call) {
  eps <- NA_real_
  if (auto) {
    replicas <- check_count(replicas, "replicas", min = 1, call = call)
    eps <- 0.01 / replicas
    st <- switching_start_grid(grid, eps, "kramers", call)
    if (!all(st$quasi_static)) {
      sp_abort(switching_start_fast(st, which(!st$quasi_static)[1]), call = call)
    }
    gamma0 <- min(st$gamma0)
  }
  n <- nrow(grid)
  p <- numeric(n)
  lag <- adia <- rep(NA_real_, n)
  if (gamma0 > 0) {
    for (i in seq_len(n)) {
      a <- grid[i, ]
      cdf <- function(g) switching_distribution(g, a$ramp, a$V0, a$beta, a$theta)$cdf
      p[i] <- cdf(gamma0)
      if (thermal) {
        q <- switching_quantile(cdf, gamma0, 1 - 1e-6)
        qs <- switching_quasi_static(gamma0, max(q, gamma0), a, "kramers")
        lag[i] <- qs[["lag"]]
        adia[i] <- qs[["adiabatic"]]
      }
    }
  }
  out <- data.frame(condition = grid$condition, gamma0 = rep(gamma0, n), p = p, lag = lag,
                    adiabatic = adia)
  slow <- !(out$lag > SWITCHING_QS_LIMIT | out$adiabatic > SWITCHING_QS_LIMIT)
  if (!auto && any(!slow, na.rm = TRUE)) {
    i <- which(!slow)[1]
    sp_warn(paste(switching_start_fast(cbind(grid, out[, c("gamma0", "lag", "adiabatic")]), i),
                  "The thermal start is not what a path swept to gamma0 would be."),
            call = call)
  }
  attr(out, "eps") <- eps
  attr(out, "auto") <- auto
  attr(out, "gamma0") <- gamma0
  out
}

# ---- the escape engine's frame ----------------------------------------------

# Steps that cover x step lengths (censoring itself is exact: a crossing
# interpolated past t_max or gamma_max inside the last step is censored).
steps_upto <- function(x) {
  k <- ceiling(x - 1e-9 * pmax(1, x))
  pmax(k, 1)
}

# Every combination of the parameters, in expand.grid order (first varies
# fastest), with a condition number.
escape_grid <- function(args, call) {
  nm <- names(args)
  for (a in nm[-1]) check_positive(args[[a]], a, call = call)
  if (nm[1] == "ramp") check_positive(args[[1]], "ramp", call = call)
  sim_grid(lapply(args, as.double), call)
}

# Threshold of escape for each starting bias g0, from `threshold`.
escape_threshold <- function(threshold, g0, call) {
  saddle <- pi - asin(g0)
  if (identical(threshold, "saddle")) return(saddle)
  if (identical(threshold, "next_well")) return(2 * pi + asin(g0))
  if (is.numeric(threshold) && length(threshold) == 1 && !is.na(threshold) &&
      is.finite(threshold) && threshold >= 0) {
    return(saddle + threshold)
  }
  sp_abort(sprintf(paste0(
    "`threshold` must be \"saddle\", \"next_well\" or a single number >= 0 ",
    "(radians past the saddle), not %s."), describe(threshold)), call = call)
}

describe_threshold <- function(threshold) {
  if (is.character(threshold)) threshold else sprintf("saddle + %s", format(threshold))
}

# The linearised dynamics at the bottom of the well, one step of `method`:
# whether it is stable, and the stationary temperatures of the discrete
# dynamics, omega0^2 <phi^2> / theta and <v^2> / theta (1 for the continuous
# dynamics), vectorised.  With J = [[0, 1], [-w2, -beta]], Euler's step is
# A = I + h J with the noise on v, SRK2's A = I + h J + h^2 J^2 / 2 with the
# noise sigma (h/2, 1 - h beta / 2); the stationary covariance solves
# S = A S A' + sigma^2 b b'.  Closed forms (solved symbolically), written
# without cancellation so that they hold for small steps and soft wells;
# stable (both eigenvalues inside the unit circle, Jury's test) exactly when
# the factors d1, d2 and m are positive.
escape_linear_step <- function(method, h, beta, w2) {
  z <- beta * h
  q <- h^2 * w2
  m <- 4 - 2 * z + q # 4 (1 + det + tr) for Euler, in the margin of SRK2
  if (method == "euler") {
    d1 <- beta - h * w2        # (1 - det) / h
    d2 <- m
    T_phi <- 2 * beta * (2 - z + q) / (d1 * d2)
    T_v <- 4 * beta / (d1 * d2)
  } else {
    d1 <- 4 * beta - 2 * beta * z + 2 * beta * q - h * q * w2  # 4 (1 - det) / h
    d2 <- 16 - 8 * z + 4 * z^2 - 4 * q - 2 * z * q + q^2      # 4 (1 + det + tr)
    T_phi <- 2 * beta * (32 - 32 * z + 16 * z^2 - 4 * z^3 - 4 * z * q + 6 * z^2 * q -
                           4 * z * q^2 + q^3) / (d1 * d2)
    T_v <- 16 * beta * (2 - z)^2 / (d1 * d2)
  }
  stable <- d1 > 0 & d2 > 0 & m > 0 & q > 0
  list(stable = stable, T_phi = ifelse(stable, T_phi, NA_real_),
       T_v = ifelse(stable, T_v, NA_real_))
}

# Refuse what the scheme or the precision cannot do; warn where the step
# biases the statistics.  c0: the condition table (g0, V0, beta, theta, h).
escape_check_steps <- function(c0, method, precision, call) {
  # working-precision values that overflow (or vanish)
  limit <- if (precision == "single") 1e30 else 1e150
  sigma <- sqrt(2 * c0$beta * c0$theta * c0$h)
  vals <- list(V0 = c0$V0, beta = c0$beta, `noise amplitude sqrt(2 beta theta h)` = sigma,
               h = c0$h, `V0 h` = c0$V0 * c0$h)
  for (nm in names(vals)) {
    v <- vals[[nm]]
    out <- v > limit | v < 1 / limit
    if (any(out)) {
      sp_abort(sprintf(paste0(
        "%s = %s does not fit %s precision (its values must lie within ",
        "%g..%g); rescale the problem%s."), nm, format(v[which(out)[1]], digits = 3),
        precision, 1 / limit, limit,
        if (precision == "single") " or use precision = \"double\"" else ""), call = call)
    }
  }
  w2 <- c0$V0 * sqrt((1 - c0$g0) * (1 + c0$g0))
  lin <- escape_linear_step(method, c0$h, c0$beta, w2)
  bad <- !lin$stable
  if (any(bad)) {
    i <- which(bad)[1]
    why <- if (c0$beta[i] * c0$h[i] >= 2) {
      sprintf("beta dt = %s is not below 2, where the damping of a step overshoots",
              format(c0$beta[i] * c0$h[i], digits = 3))
    } else if (method == "euler") {
      sprintf(paste0("Euler's numerical anti-damping dt omega0^2 = %s is not below ",
                     "beta = %s, so each step pumps energy into the well"),
              format(c0$h[i] * w2[i], digits = 3), format(c0$beta[i], digits = 3))
    } else {
      sprintf("dt omega0 = %s is too large", format(c0$h[i] * sqrt(w2[i]), digits = 3))
    }
    sp_abort(sprintf(paste0(
      "the %s scheme is unstable at dt = %s for the dynamics in the well ",
      "(condition %d: gamma = %s, V0 = %s, beta = %s): %s. Escapes would be ",
      "artefacts of the step; use a smaller `dt`%s."), method, format(c0$h[i]), i,
      format(c0$g0[i]), format(c0$V0[i]), format(c0$beta[i]), why,
      if (method == "euler") " or method = \"srk2\"" else ""), call = call)
  }
  dev <- pmax(abs(lin$T_phi - 1), abs(lin$T_v - 1))
  hot <- dev > 0.05
  if (any(hot)) {
    i <- which.max(dev)
    sp_warn(sprintf(paste0(
      "the %s step dt = %s heats or cools the well: the linearised discrete ",
      "dynamics is stationary at temperature %s theta in phi and %s theta in ",
      "its velocity (condition %d, beta dt = %s, dt omega0 = %s); escape rates, ",
      "~ exp(-Delta U / theta), are biased accordingly. Use a smaller `dt`%s ",
      "(h_check() measures the bias)."), method, format(c0$h[i]),
      format(lin$T_phi[i], digits = 3), format(lin$T_v[i], digits = 3), i,
      format(c0$beta[i] * c0$h[i], digits = 3), format(c0$h[i] * sqrt(w2[i]), digits = 3),
      if (method == "euler") " or method = \"srk2\"" else ""), call = call,
      class = "statphysgpu_step_warning")
  }
  coarse <- c0$h * sqrt(c0$V0) > 0.1
  if (any(coarse)) {
    sp_warn(sprintf(paste0(
      "`dt` is coarse for the dynamics: dt * sqrt(V0) = %s > 0.1 (fewer than ",
      "about 60 steps per plasma period); the escape statistics carry a ",
      "step-size bias."), format(max(c0$h * sqrt(c0$V0)), digits = 3)), call = call,
      class = "statphysgpu_step_warning")
  }
  if (precision == "single") {
    tiny <- c0$h * sqrt(c0$theta) < 4e-6
    if (any(tiny)) {
      sp_warn(sprintf(paste0(
        "steps too small for single precision: the thermal displacement per step, ",
        "dt sqrt(theta) = %s, is within 10 units of the last place of phi; ",
        "rounding biases the paths. Use precision = \"double\"."),
        format(min(c0$h * sqrt(c0$theta)), digits = 3)), call = call,
        class = "statphysgpu_step_warning")
    }
  }
  invisible(lin)
}

# ---- continuing a result (init = <a result>) --------------------------------

# The resume table of a fresh run: no rows (escape_args.h, sp_escape_state).
ESCAPE_NO_RESUME <- list(path = numeric(), phi = numeric(), v = numeric(), frac = numeric(),
                         step = numeric(), hit = numeric())

# The state attribute of a result: the paths not escaped, where the run left
# them (sp_escape_state of escape_args.h) -- their condition and replica,
# phi and v (values of the run's precision), the step reached, and a
# crossing pending in the last macro-step (hit 1..4 and its interpolation
# fraction; 0: none), which a continuation with a larger t_max or gamma_max
# reports; step -1: not started.  res: the engine's outputs, its item i the
# result's row rows[i] (NULL: item i is row i).
escape_state <- function(out, rows, res) {
  it <- which(res$status != 1L) # SP_ESCAPE_ESCAPED
  all <- length(it) == length(res$status)
  # (hit and frac: one number for every path where the engine has none)
  pick <- function(x) if (length(x) == 1) rep.int(x, length(it)) else if (all) x else x[it]
  r <- if (is.null(rows)) it else rows[it]
  new_df(list(condition = if (all && is.null(rows)) out$condition else out$condition[r],
              replica = if (all && is.null(rows)) out$replica else out$replica[r],
              phi = pick(res$end_phi), v = pick(res$end_v), step = pick(res$end_step),
              hit = pick(res$end_hit), frac = pick(res$end_frac)))
}

# `init` is a previous result to continue: check its class and that it has
# a state, and fill the arguments the caller left out (in `env`, the
# simulator's frame) from it: replicas, dt, method, seed, first_replica,
# precision, threshold, the swept parameters `sweep` and those in `more`.
# `limit` (t_max or gamma_max) must be given.  The values given are checked
# against the result's later (escape_resume()).
escape_prev <- function(init, type, sweep, env, limit, call, more = NULL) {
  if (!inherits(init, type)) {
    sp_abort(sprintf(paste0(
      "`init` must be \"rest\", \"thermal\" or a result of %s() to continue, not %s."),
      type, describe(init)), call = call)
  }
  # what the continuation reads must be what init was run with (checked
  # before anything is read of it)
  sp_check_seal(init, paste0(type, "()"), call, ESCAPE_SEALED)
  if (is.null(attr(init, "state"))) {
    sp_abort(sprintf(paste0(
      "`init` has no end state of its paths (attribute \"state\"): it is a modified ",
      "result or one of an earlier version; continue an unmodified result of %s()."),
      type), call = call)
  }
  fill <- list(replicas = attr(init, "replicas"), dt = step_of(init),
               method = attr(init, "method"), seed = attr(init, "seed_hex"),
               first_replica = attr(init, "first_replica"),
               precision = attr(init, "precision"), threshold = attr(init, "threshold"))
  given <- attr(init, "args")
  for (p in sweep) fill[[p]] <- given[[p]] %||% unique(attr(init, "conditions")[[p]])
  fill <- c(fill, more)
  for (nm in names(fill)) {
    if (eval(call("missing", as.name(nm)), env)) assign(nm, fill[[nm]], envir = env)
  }
  if (eval(call("missing", as.name(limit)), env)) {
    sp_abort(sprintf(paste0(
      "give `%s` to continue `init`: the new %s, at least its %s = %s (the same %s ",
      "completes the paths an interrupt left unfinished)."), limit,
      if (limit == "t_max") "censoring time" else "bias where paths are censored", limit,
      fmt_num(attr(init, limit)), limit), call = call)
  }
  init
}

# The resume table (the job's `resume`, sp_escape_state) of the paths of
# `prev` that are not escaped, after checking that prev is a run of this
# call's simulation (the same conditions, seed, method, precision, step,
# threshold, replicas) with a larger or equal t_max (gamma_max), and that
# its state is the engine's.  Also `counted`: the steps prev counted as
# useful for those paths (steps to a crossing within kmax_prev, or
# kmax_prev, for a censored path; 0 for an unfinished one).
escape_resume <- function(prev, type, grid, fr, method, h, threshold, extra, kmax_prev,
                          call) {
  limit <- if (type == "escape_times") "t_max" else "gamma_max"
  was <- list(method = attr(prev, "method"), precision = attr(prev, "precision"),
              dt = step_of(prev), threshold = describe_threshold(attr(prev, "threshold")),
              replicas = attr(prev, "replicas"), first_replica = attr(prev, "first_replica"))
  now <- list(method = method, precision = fr$precision, dt = h,
              threshold = describe_threshold(threshold), replicas = fr$n,
              first_replica = fr$first)
  if (type == "switching_currents") {
    was$gamma0 <- attr(prev, "gamma0")
    now$gamma0 <- extra$gamma0
  }
  continue_check(prev, grid, fr, was, now, call)
  if (!(extra[[limit]] >= attr(prev, limit))) {
    sp_abort(sprintf(paste0(
      "`%s` = %s is below the %s = %s of `init`: a continuation only extends the ",
      "paths (give at least %s)."), limit, fmt_num(extra[[limit]]), limit,
      fmt_num(attr(prev, limit)), fmt_num(attr(prev, limit))), call = call)
  }
  # a result of the declared engine continues on it (R/escape-declared.R),
  # once the arguments are those of `prev`: its sde_run() results continued
  if (!is.null(attr(prev, "sde_runs"))) return(escape_declared_continue(prev, type, call))
  escape_check_state(prev, type, nrow(grid), fr, kmax_prev, call)
}

# The checks of a continuation that every simulator makes: `prev` ran the
# conditions `grid` with the seed of frame `fr`, and its values `was` equal
# this call's `now` (named lists; numbers compared by value); else an error
# naming the first argument that differs.
continue_check <- function(prev, grid, fr, was, now, call) {
  differ <- function(what, was, now) {
    sp_abort(sprintf(paste0(
      "`init` was run with %s = %s, this call has %s: a continuation runs the same ",
      "paths, so give the value of `init` (or leave `%s` out to take it from `init`)."),
      what, was, now, what), call = call)
  }
  conds <- attr(prev, "conditions")
  if (!identical(conds, grid)) {
    # the parameter whose values differ (a sweep's values, in order: a grid
    # of another length repeats the others' values), else the first whose
    # column differs (the same values in another combination)
    p <- setdiff(names(grid), "condition")
    vals <- function(g, q) if (is.data.frame(g)) unique(g[[q]])
    bad <- p[!vapply(p, function(q) identical(vals(conds, q), vals(grid, q)), TRUE)]
    if (!length(bad) && is.data.frame(conds))
      bad <- p[!vapply(p, function(q) identical(conds[[q]], grid[[q]]), TRUE)]
    if (!length(bad)) bad <- p[1]
    show <- function(v) {
      if (!is.numeric(v) || !length(v)) return("?")
      paste(vapply(v, fmt_num, ""), collapse = ", ")
    }
    differ(bad[1], show(vals(conds, bad[1])), show(vals(grid, bad[1])))
  }
  if (!identical(attr(prev, "seed_hex"), u64_to_hex(fr$seed))) {
    differ("seed", attr(prev, "seed_hex"), u64_to_hex(fr$seed))
  }
  for (nm in names(was)) {
    a <- was[[nm]]
    b <- now[[nm]]
    same <- length(a) == 1 && length(b) == 1 &&
      (if (is.numeric(a) && is.numeric(b)) isTRUE(a == b) else identical(a, b))
    if (!same) differ(nm, if (length(a)) format(a) else "?", format(b))
  }
  invisible()
}

# The state of `prev` as the engine left it, or an error that says what is
# wrong (a modified result): see escape_resume().
escape_check_state <- function(prev, type, ncond, fr, kmax_prev, call) {
  bad <- function(why) {
    sp_abort(sprintf(paste0(
      "`init` holds no usable end state of its paths: %s. Continue an unmodified ",
      "result of %s() (rbind() of its chunks is one)."), why, type), call = call)
  }
  st <- attr(prev, "state")
  cols <- c("condition", "replica", "phi", "v", "step", "hit", "frac")
  if (!is.list(st) || !all(cols %in% names(st)) ||
      !all(vapply(st[cols], is.numeric, TRUE)) ||
      length(unique(lengths(st[cols]))) != 1) {
    bad("attr(init, \"state\") must be a table of numeric columns condition, replica, phi, v, step, hit, frac")
  }
  n <- fr$n
  m <- length(st$step)
  if (nrow(prev) != ncond * n || !identical(as.double(prev$condition),
                                             as.double(rep.int(seq_len(ncond),
                                                               rep.int(n, ncond)))) ||
      !identical(as.double(prev$replica), as.double(rep(fr$first - 1 + seq_len(n),
                                                         times = ncond)))) {
    bad(sprintf(paste0("its rows must be replicas %s to %s of each of its %s conditions, ",
                       "in order"), fmt_count(fr$first), fmt_count(fr$first + n - 1),
                fmt_count(ncond)))
  }
  path <- (st$condition - 1) * n + (st$replica - fr$first)
  if (anyNA(path) || !identical(as.double(path + 1), as.double(which(!prev$escaped)))) {
    bad("its rows must be exactly the paths not escaped")
  }
  if (m == 0) return(c(ESCAPE_NO_RESUME, list(counted = numeric())))
  ok_step <- !is.na(st$step) & st$step >= -1 & st$step <= 2^53 &
    (st$step == -1 | st$step %% 4 == 0)
  ok_hit <- !is.na(st$hit) & st$hit %in% 0:4 & (st$hit == 0 | st$step >= 4) &
    !is.na(st$frac) & st$frac >= 0 & st$frac <= 1 & (st$hit > 0 | st$frac == 0)
  ok_state <- st$step == -1 | (is.finite(st$phi) & is.finite(st$v))
  if (!all(ok_step & ok_hit & ok_state)) {
    i <- which(!(ok_step & ok_hit & ok_state))[1]
    bad(sprintf(paste0("replica %s of condition %s has step = %s, hit = %s, frac = %s, ",
                       "phi = %s, v = %s"), fmt_count(st$replica[i]), st$condition[i],
                format(st$step[i]), format(st$hit[i]), format(st$frac[i]),
                format(st$phi[i]), format(st$v[i])))
  }
  kp <- rep_len(kmax_prev, ncond)[st$condition]
  censored <- st$step >= kp
  vcens <- attr(prev, if (type == "escape_times") "t_max" else "gamma_max")
  if (any(censored & prev$value[path + 1] != vcens)) {
    bad("a path censored where it reached its last step must have the censoring value")
  }
  kc <- st$step - 4 + st$hit
  counted <- ifelse(!censored, 0, ifelse(st$hit > 0 & kc <= kp, kc, kp))
  list(path = as.double(path), phi = as.double(st$phi), v = as.double(st$v),
       frac = as.double(st$frac), step = as.double(st$step), hit = as.double(st$hit),
       counted = counted)
}

# The continued result: prev with the continued paths' values and end
# states replaced by the engine's (items: resume$path + 1), the new limit
# and arguments, and the step counts of one call (the useful steps prev
# counted for the continued paths replaced by their whole paths').
escape_continued_result <- function(prev, res, resume, extra, args) {
  out <- prev
  for (e in names(extra)) attr(out, e) <- extra[[e]]
  a <- args
  a$init <- attr(prev, "init")
  attr(out, "args") <- a
  if (is.null(res)) return(out)
  rows <- resume$path + 1
  out$value[rows] <- res$value
  out$escaped[rows] <- res$status == 1L
  attr(out, "state") <- escape_state(out, rows, res)
  steps <- attr(prev, "steps")
  if (!is.numeric(steps) || !all(c("useful", "issued") %in% names(steps)) ||
      !all(is.finite(steps[c("useful", "issued")]))) {
    sp_abort(paste0("`init`'s step counts (attribute `steps`, not sealed: they depend on the ",
                    "chunking) are damaged; continue the result as the run returned it."))
  }
  attr(out, "steps") <- c(useful = steps[["useful"]] - sum(resume$counted) + res$useful_steps,
                          issued = steps[["issued"]] + res$issued_steps)
  out
}

# Thermal-start tables (escape_args.h): for each condition, the CDF and the
# log density of phi ~ exp(-U(phi) / theta) on SP_ESCAPE_KNOTS knots over
# the well (between the neighbouring saddles, cut where the density falls
# below exp(-30) of its peak: a uniform draw, (x + 1/2) 2^-32, cannot reach
# beyond), one column of 2 K values per condition.
ESCAPE_KNOTS <- 1025L

escape_start_tables <- function(g0, V0, theta) {
  K <- ESCAPE_KNOTS
  n <- length(g0)
  phi0 <- asin(g0)
  phis <- pi - asin(g0)
  dU <- function(phi) V0 * ((cos(phi0) - cos(phi)) + g0 * (phi0 - phi)) # U(phi) - U(phi0)
  cut <- 30 * theta
  # where dU reaches `cut` between a and b (dU increasing from a to b), or b
  reach <- function(a, b) {
    hit <- dU(b) > cut
    lo <- a; hi <- b
    for (it in 1:80) {
      mid <- (lo + hi) / 2
      up <- dU(mid) > cut
      hi <- ifelse(up, mid, hi)
      lo <- ifelse(up, lo, mid)
    }
    ifelse(hit, hi, b)
  }
  left <- reach(phi0, phis - 2 * pi)
  right <- reach(phi0, phis)
  step <- (right - left) / (K - 1)
  i <- 0:(K - 1)
  knots <- outer(i, step) + rep(left, each = K) # K x n
  j <- col(knots)
  logd <- -matrix(V0[j] * ((cos(phi0[j]) - cos(knots)) + g0[j] * (phi0[j] - knots)), K) /
    rep(theta, each = K)
  # exact mass of each knot interval for a log density linear in it
  s <- (logd[-1, , drop = FALSE] - logd[-K, , drop = FALSE])
  rel <- ifelse(abs(s) < 1e-12, 1, expm1(s) / s)
  mass <- exp(logd[-K, , drop = FALSE]) * rel * rep(step, each = K - 1)
  cdf <- apply(mass, 2, function(m) c(0, cumsum(m)) / sum(m))
  cdf[K, ] <- 1
  list(tables = as.vector(rbind(cdf, logd)), lo = left, step = step,
       offset = (seq_len(n) - 1) * 2 * K)
}

# The condition table of the engine (the fields of sp_escape_cond in
# escape_args.h, by name) and the thermal-start tables.
escape_conditions <- function(grid, g0, dg, h, th, vcens, kmax, start, call) {
  ncond <- nrow(grid)
  conds <- list(
    g0 = rep_len(g0, ncond), dg = rep_len(dg, ncond), V0 = grid$V0,
    beta = grid$beta, h = rep_len(h, ncond),
    sigma = sqrt(2 * grid$beta * grid$theta * h),
    phi0 = rep_len(asin(g0), ncond), th = rep_len(th, ncond),
    vcens = rep_len(vcens, ncond), kmax = rep_len(kmax, ncond),
    stream0 = (grid$condition - 1) * 2^40,
    start_table = rep(-1, ncond), start_lo = rep(0, ncond),
    start_step = rep(0, ncond), start_vsd = rep(0, ncond))
  tables <- numeric()
  if (start == "thermal") {
    if (ncond * 2 * ESCAPE_KNOTS > 2^25) {
      sp_abort(sprintf(paste0(
        "init = \"thermal\" tabulates %d values per condition; %s conditions ",
        "are too many (at most %s)."), 2L * ESCAPE_KNOTS, fmt_count(ncond),
        fmt_count(floor(2^25 / (2 * ESCAPE_KNOTS)))), call = call)
    }
    tb <- escape_start_tables(conds$g0, conds$V0, grid$theta)
    tables <- tb$tables
    conds$start_table <- tb$offset
    conds$start_lo <- tb$lo
    conds$start_step <- tb$step
    conds$start_vsd <- sqrt(grid$theta)
  }
  list(conds = lapply(conds, as.double), tables = tables)
}

# Everything after the model's own checks: the frame, the condition table,
# the engine, the result.  prev: the result continued (escape_prev()), or
# NULL.
escape_run <- function(type, grid, g0, dg, vcens, kmax, n, h, method, seed,
                       first_replica, backend, devices, precision, progress,
                       threshold, start, extra, args, call, prev = NULL,
                       kmax_prev = NULL, start_bound = NULL) {
  method <- check_choice(method, c("srk2", "euler"), "method", call = call)
  start <- check_choice(start, c("rest", "thermal"), "init", call = call)
  ncond <- nrow(grid)
  th <- escape_threshold(threshold, g0, call)
  # the engine's outputs: value, status and the end state, 36 bytes a path;
  # the result's columns and state
  fr <- sim_frame(call, n = n, first = first_replica, seed = seed,
                  backend = backend, devices = devices, precision = precision,
                  precisions = c("single", "double"), progress = progress,
                  groups = ncond, row_bytes = 8 + 4 + 4 + 8 + 4 * 8 + 36 + 7 * 8,
                  auto_threshold = 1e4)
  c0 <- data.frame(g0 = g0, V0 = grid$V0, beta = grid$beta, theta = grid$theta, h = h)
  escape_check_steps(c0, method, fr$precision, call)
  ec <- escape_conditions(grid, g0 = g0, dg = dg, h = h, th = th, vcens = vcens,
                          kmax = kmax, start = start, call = call)
  resume <- ESCAPE_NO_RESUME
  if (!is.null(prev)) {
    resume <- escape_resume(prev, type, grid, fr, method, h, threshold, extra, kmax_prev,
                            call)
    if (!isTRUE(resume$declared) && !length(resume$path)) {
      return(escape_finish(escape_continued_result(prev, NULL, resume, extra, args)))
    }
  }
  # a continuation of a declared result: its runs continued, the result
  # made as a fresh one's (every path), with the continued call's arguments
  declared_prev <- isTRUE(resume$declared)
  variant <- paste(c(fr$precision, method,
                     if (type == "switching_currents") "ramp" else "fixed",
                     if (!is.null(prev)) "resume" else if (start == "thermal") "thermal"),
                   collapse = "_")
  # a fresh run on the declared engine when the option asks for it
  # (R/escape-declared.R: the same fields as the built-in's); a
  # continuation of a built-in result on the built-in engine
  res <- if (declared_prev) {
    escape_declared_run(type, fr, grid, ec, method, attr(prev, "init"), call, prev = prev,
                        kmax_prev = kmax_prev)
  } else if (is.null(prev) && identical(sp_tuning("escape_engine", call), "declared")) {
    escape_declared_run(type, fr, grid, ec, method, start, call)
  } else {
    sim_run(fr, "escape", conds = ec$conds, tables = ec$tables, n = fr$n,
            replica0 = check_u64(fr$first - 1, "first_replica", call = call),
            heun = method == "srk2", single = fr$precision == "single", seed = fr$seed,
            resume = resume[names(ESCAPE_NO_RESUME)], kernel = "escape", variant = variant)
  }
  if (!is.null(prev) && !declared_prev) {
    out <- escape_continued_result(prev, res, resume, extra, args)
  } else {
    if (declared_prev) { # as escape_continued_result() records them
      start <- attr(prev, "init")
      start_bound <- attr(prev, "start_bound")
      args$init <- start
    }
    each <- rep.int(fr$n, ncond) # rep.int(x, each): rep(x, each = n) in half the time
    # one list of columns, the engine's vectors as they are (no data-frame
    # method copies a column); a parameter's column repeats its condition's
    # value; the declared engine's run may hand its own condition and
    # replica columns (the same numbers)
    cols <- list(condition = res$condition %||% rep.int(seq_len(ncond), each))
    for (p in setdiff(names(grid), "condition")) cols[[p]] <- rep.int(grid[[p]], each)
    cols$replica <- res$replica %||% rep(fr$first - 1 + seq_len(fr$n), times = ncond)
    cols$value <- res$value
    cols$escaped <- res$status == 1L # SP_ESCAPE_ESCAPED (escape_args.h)
    out <- new_df(cols)
    attr(out, "conditions") <- grid
    attr(out, "method") <- method
    attr(out, "dt") <- h
    for (e in names(extra)) attr(out, e) <- extra[[e]]
    attr(out, "threshold") <- threshold
    attr(out, "init") <- start
    attr(out, "replicas") <- fr$n
    attr(out, "first_replica") <- fr$first
    attr(out, "steps") <- c(useful = res$useful_steps, issued = res$issued_steps)
    attr(out, "args") <- args
    attr(out, "state") <- escape_state(out, NULL, res)
    attr(out, "start_bound") <- start_bound
    attr(out, "sde_runs") <- res$sde_runs # the declared engine's runs (NULL: the built-in's)
  }
  unf <- which(res$status < 0L)    # unstarted or partial: interrupted
  if (!is.null(prev) && !declared_prev) unf <- resume$path[unf] + 1
  attr(out, "unfinished") <- data.frame(condition = out$condition[unf],
                                        replica = out$replica[unf])
  out <- sim_result(out, fr, res, class = c(type, "sp_paths", "data.frame"),
             unfinished = sprintf(paste0(
               "%s of %s paths finished; the %s unfinished are censored at the ",
               "%s they had reached (escaped = FALSE; listed in ",
               "attr(x, \"unfinished\")), so the estimators stay valid. Rerun ",
               "those replicas with the same seed to complete the sample"),
               fmt_count(fr$rows - length(unf)), fmt_count(fr$rows),
               fmt_count(length(unf)),
               if (type == "switching_currents") "bias" else "time"))
  escape_finish(out)
}

# What a continuation reads of a result (escape_prev(), escape_resume()):
# sealed when the result is made (see sp_seal()).
ESCAPE_SEALED <- c("seed_hex", "precision", "dt", "method", "threshold", "init", "replicas",
                   "first_replica", "conditions", "state", "t_max", "gamma0", "gamma_max")

# A result as it is returned: its settings sealed, and the rest a
# continuation reads and carries into its result (the paths' columns, the
# arguments: a seal made before they were sealed is checked without them),
# the deprecated names of its attributes set.  Not the step counts: their
# issued steps depend on how the paths were chunked (a combination of
# chunks and one call differ there alone), and a continuation only adds
# to them.
escape_finish <- function(out) {
  # (sde_runs: the declared engine's runs, which its continuation reads)
  sp_old_attrs(sp_seal(out, c(ESCAPE_SEALED, "args", "sde_runs", "names",
                              paste0("$", names(out)))))
}
