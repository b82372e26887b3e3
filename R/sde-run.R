#' Run ensembles of a user's SDE model
#'
#' Integrates `replicas` independent paths of an [sde_model()] for every
#' combination of the parameters, on the GPU (the model compiled by NVRTC)
#' or the CPU (compiled by R's own C toolchain, OpenMP over paths), with the
#' same Philox streams, and returns first-passage times or ensemble
#' statistics.
#'
#' @section Outputs:
#' * `"passage"`: the first time the model's `stop` event holds, checked
#'   after every step (Algorithm 1 of Pierro et al. 2018), censored at `t_max`. When
#'   the event is a comparison (`lhs > rhs`, `<`, `>=`, `<=`), the crossing
#'   time is interpolated linearly in `lhs - rhs` inside the step, as
#'   [escape_times()] does for its threshold; any other event (`&`, `|`,
#'   ...) gives the end of the step. An event true at the start gives 0.
#'   Where the event's gap carries noise, the Brownian bridge (below) also
#'   finds the crossings inside a step and places them (the default).
#'   The result is accepted by `summary()`, `plot()`, [ecdf_band()],
#'   [censored_mean()] (with `x$value`, `x$escaped`), [as_surv()],
#'   [h_check()] and `rbind()` as [escape_times()] results are;
#'   `at_passage = TRUE` adds the state (and the observables) at passage or
#'   censoring.
#' * `"moments"`: mean, standard deviation and standard error over the
#'   replicas of each state and observable at every record time,
#'   accumulated by the engine: each tile of 256 consecutive replicas is
#'   reduced in a fixed order and the tiles combined in order, so the
#'   numbers do not depend on the threads.
#' * `"histogram"`: counts per record time in the bins given by `bins`
#'   (with the values below the first and above the last break counted
#'   apart).
#' * `"trajectories"`: the states and observables of the first `keep`
#'   replicas (10 unless `keep` says otherwise) at every record time.
#'
#' The fixed-length outputs run every path to `t_max` (`stop` is not used)
#' and record at steps \eqn{0, r, 2r, \dots} and the last, with \eqn{r =}
#' `record_every` (default: about 100 records). A `t_max` that is not a
#' whole number of steps (to 1e-9 relative) ends them at the last whole
#' step, \eqn{\lfloor t_{max}/dt \rfloor dt}, which the result reports as
#' its `t_max`, with a warning of class `statphysgpu_t_max_warning` (`t_max
#' = 1`, `dt = 0.3`: records at 0, 0.3, 0.6 and 0.9). Passage times run to
#' the step past `t_max` and censor every path not escaped by `t_max`
#' itself, at `t_max`.
#'
#' @section Passage times, the step bias and the Brownian bridge:
#' An event checked once a step misses the crossings inside a step where
#' the path went past the level and came back: where the event's variable
#' carries noise, the passage times are late by \eqn{O(\sqrt{dt})} -- as
#' if the level were moved out by \eqn{0.5826\,\sigma\sqrt{dt}} (Broadie,
#' Glasserman and Kou 1997): +5.8 per cent on the mean of Brownian motion
#' with drift to the level 1 at `dt = 0.01` (\eqn{\mu = \sigma = 1}), and
#' issue 32 found +6 per cent for the Maier-Stein escape at that step. With
#' `bridge = TRUE` (the default) `sde_run()`
#' removes that bias where it applies: for an event that is a comparison
#' `lhs > rhs` (or `<`, `>=`, `<=`) whose gap \eqn{g = lhs - rhs} depends
#' on a state with noise, the generator derives \eqn{\sigma^2 = \sum_i
#' (\partial g/\partial x_i\, b_i)^2} symbolically ([stats::D()]; the
#' bridge does not apply where the gap is not differentiable, e.g. with
#' `abs()`, `pmin()` or `ifelse()`, nor where no noisy state enters it), and
#' each step that starts at \eqn{g_0 < 0} and ends at \eqn{g_1 \le 0}
#' crossed the level inside with the probability of a Brownian bridge,
#' \eqn{\exp(-2 g_0 g_1 / (\sigma^2 dt))} (\eqn{\sigma^2} at the step's
#' start), tested with a uniform drawn for that step; the test is skipped
#' where that probability is below \eqn{e^{-24}}, under the uniform's
#' resolution. The time of a crossing inside a step, found by the test or
#' seen at its end, is the bridge's first passage time, sampled exactly:
#' by the reflection principle a bridge from \eqn{g_0} to \eqn{g_1 \le 0}
#' that touches 0 is, reflected there, a bridge to \eqn{|g_1|}, and with
#' the time change \eqn{s = t\,dt/(dt - t)} a bridge is a Brownian motion
#' with drift \eqn{|g_1|/dt}, whose passage time \eqn{S} is inverse
#' Gaussian (mean \eqn{-g_0 dt/|g_1|}, shape \eqn{g_0^2/\sigma^2}; drawn by
#' Michael, Schucany and Haas 1976): \eqn{t = S\,dt/(dt + S)}. For Brownian
#' motion with drift this is exact; in general the passage times keep the
#' scheme's \eqn{O(dt)} bias, which [h_check()] measures (order 1). Where
#' the event's variable has no noise (the washboard's position), the gap is
#' smooth in time and the linear interpolation leaves an \eqn{O(dt)} bias
#' (no bridge). With the bridge, the state at passage (`at_passage`) is the
#' state at the end of the step of the crossing, which may lie short of the
#' level. `bridge = FALSE` checks the event at the steps only (as
#' [sde_ams()] does); `attr(x, "bridge")` says whether the bridge ran.
#'
#' @section Random numbers, chunks and precision:
#' Replica \eqn{r} of condition \eqn{c} draws from Philox stream
#' \eqn{(c-1)2^{40} + r - 1}, purpose 12 of the stream registry; step
#' \eqn{k+1} uses normals \eqn{kW, \dots, kW + W - 1} of that stream for
#' the \eqn{W} noise entries. The Brownian bridge's test of step \eqn{k+1}
#' (drawn only where the step ends near the event's level) uses block
#' \eqn{k} of purpose 17 of the same stream: word 1 the test's uniform,
#' words 2 and 3 a normal (Box-Muller), word 4 a uniform for the passage
#' time inside the step. A path depends only on the seed, its condition
#' and its replica number: CPU and GPU give the same paths (to rounding, in
#' double precision), results do not depend on threads or devices, and
#' chunks (`first_replica`) combine with `rbind()` into the one-call result
#' (exactly for passage times and trajectories; moments to rounding, as their
#' tiles are cut at the chunk's first replica).
#'
#' In single precision on the GPU, `sin()` and `cos()` of a model are by
#' default the hardware's, as in the package's own single-precision kernels
#' ([escape_times()], [driven_brownian()], [kuramoto()]): alone for
#' \eqn{|x| \le \pi} (within \eqn{2^{-21.41}} absolute there, by CUDA's
#' guide), after an exact reduction of the argument by \eqn{\pi} beyond:
#' within 7.1 units of \eqn{2^{-24}} absolute for \eqn{|x| \le 8192} (not
#' relative near the zeros), CUDA's `sinf()` and `cosf()` beyond.  On the CPU, and on the GPU
#' with the option `statphysgpu.sde_fast_math = FALSE`, they are a reduction
#' by multiples of \eqn{\pi} and one odd polynomial of degree 9 (within 2.1
#' units of \eqn{2^{-24}}, absolute and relative; the C library's functions
#' beyond 8192), one source on both backends; the polynomial costs some 13
#' instructions a call on the GPU where the hardware sine takes about 10
#' with its reduction, and 2 in the passage kernel's copy of the model for
#' paths whose arguments stay within \eqn{[-\pi, \pi]} (the washboard runs
#' 0.7 times as fast with the polynomial, Euler, on an H100).
#' Likewise a negative half-integer power (`d^-1.5`, the ring model's pair
#' force) is made of the hardware's reciprocal square root
#' (`rsqrt.approx.ftz`: CUDA's `rsqrtf()` for every normal argument, +Inf
#' for a subnormal one, below 1.2e-38) by default, `rsqrtf()` with the
#' option off; in pair and edge terms a quotient is the hardware's
#' approximate one (`__fdividef()`), and a reciprocal (`1 / b`, `b^-1`,
#' `b^-2`, ...) the hardware's alone (`rcp.approx.ftz`, within 1 unit in the
#' last place: +-Inf for a subnormal `b`, 0 for `|b|` above \eqn{2^{126}}),
#' the quotient with the option off.
#' Single-precision paths of CPU and GPU therefore agree in law, not to the
#' last bit, as those of [escape_times()] do. In double precision the GPU
#' takes CUDA's functions, the CPU for `sin()` and `cos()` a reduction by
#' multiples of \eqn{\pi/2} and polynomials (within 2 units of
#' \eqn{2^{-53}} absolute for \eqn{|x| \le 50}; the C library's beyond
#' \eqn{2^{20}}), so that its loops over paths or elements vectorise, and
#' the C library's other functions: the same paths to rounding.
#'
#' The time is exact in both precisions: \eqn{t_k = k\,dt} is formed in
#' double from the step count, and the subexpressions of a model that
#' depend on \eqn{t} and the parameters only -- a drive's `cos(omega *
#' t)`, `exp(-t / tau)`, `t` itself -- are computed in double (the
#' parameters in double, the C library's functions) and rounded once to the
#' working precision, as the built-in kernels keep their drive's phase (a
#' float \eqn{t} is rounded by up to \eqn{1/32} at \eqn{t = 10^6});
#' `t` within an expression of the states (`x * t`) is that double time
#' rounded to the working precision, and so is a part of t mixed with the
#' states: in `sin(x - omega * t)` the phase `omega * t` is exact but
#' rounded to single precision before `x` is subtracted (a unit of its last
#' place is 0.06 at \eqn{10^6}); at large times write such terms with the
#' time apart, `sin(x) * cos(omega * t) - cos(x) * sin(omega * t)`.
#'
#' A path whose state turns NaN or infinite stops the run with an error of
#' class `statphysgpu_not_finite` naming the replica, the time and the
#' variable (the state is checked every few steps and the first non-finite
#' step found by redoing them; when several paths fail within one round of
#' the engine, the lowest replica is named).
#'
#' @section A state too large for its increments:
#' A state whose increments are small against its value loses them to
#' rounding: `drift = list(c = ~ 1)` with `dt = 0.01` in single precision
#' (24 bits) stalls at \eqn{2^{18} = 262144}, where 0.01 is below half a
#' unit of its last place, and from \eqn{c \approx 5000} on each step is
#' rounded by a few per cent (a passage to \eqn{c > 10^5} 5.5 per cent
#' late). The engines count, for each path, the steps in a row in which
#' some state moved by an increment \eqn{|d_i| < 2^{5-p}|x_i|} (fewer than
#' about 5 of its \eqn{p} bits kept; \eqn{p = 24} single, 53 double),
#' testing one step of each group of steps that share a block of random
#' numbers (every step of a model without noise or with a multiple of
#' four noise terms; every fourth step of a model with one or three noise
#' terms, every second with two) and counting the group's steps with it:
#' a state that stalls is coarse at every step. After 65,536 such steps,
#' the state whose drift increment is that small there stops the run with an error of class `statphysgpu_resolution`
#' naming the state, the replica and the time, unless the drift has a zero
#' within \eqn{2^{13-p}|x_i|} of it (about \eqn{2^{10}} units of its last
#' place: some component of the drift changes sign across \eqn{x_i \pm}
#' that), where the state comes to rest at a fixed point (a relaxation
#' rounded to rest is no stall; a relaxation slower than about
#' \eqn{6 \times 10^{-5}} per step, which ends rounded to rest further than
#' that from its fixed point, is). The check costs a compare a state at
#' each tested step; noise keeps increments large, so that diffusive models (an
#' Ornstein-Uhlenbeck process, the washboard) never meet it. What to do:
#' `precision = "double"` (the same state stalls 29 bits later), or measure
#' the state from a nearer origin (shift or rescale it). A state whose
#' increments are lost from its very start (a state of \eqn{10^4} with
#' increments of \eqn{10^{-5}}) does not move and is not reported.
#'
#' @section Systems of many elements:
#' A model of many elements (see [sde_model()]) runs `replicas` systems of
#' `n` elements per condition, many systems side by side; `n` must be given
#' (without it the call is an error of class `statphysgpu_n_missing`:
#' systems of one element are rarely what a model of coupled elements
#' means; `n = 1` given runs them). Its outputs:
#' * `"records"` (the default): one row per system and record time,
#'   columns `condition`, the swept parameters, `replica`, `time` and one
#'   per observable (class `sde_records`);
#' * `"moments"`: the mean, standard deviation and standard error of each
#'   observable over the systems of a condition at each record time;
#' * `"trajectories"`: the states of the first `keep` systems (1 unless
#'   `keep` says more) at the record times, one row per element (`element`;
#'   on a square lattice also its row `i` and column `j`);
#' * `"passage"`: the first time the model's `stop` event holds for a
#'   system (checked after every step; the time at the end of that step),
#'   censored at `t_max`: a result as single-particle passages are
#'   (`summary()`, [ecdf_band()], [as_surv()], `rbind()`).
#'
#' They end at `t_max` as the single-particle outputs do (see "Outputs"):
#' the fixed-length outputs at the last whole step, \eqn{\lfloor
#' t_{max}/dt \rfloor dt}, the result's `t_max`, with a warning of class
#' `statphysgpu_t_max_warning` where `t_max` is not a whole number of steps
#' (`dt = 0.3`, `t_max = 1`: records at 0, 0.3, 0.6 and 0.9); passages run
#' to that step too (the event is checked at the ends of the steps) and a
#' system not escaped by then is censored at `t_max`.
#' Every result carries the final state of every system (attribute `final`,
#' an array elements x states x systems, systems by condition then
#' replica); `init = result` continues every system of that run from there,
#' with the random numbers that follow (bit for bit on the CPU: a run of
#' \eqn{2T} and a run of \eqn{T} continued by \eqn{T} are identical).
#' A model with parameters per element returns the values each system ran
#' with (drawn or computed): attribute `element_params`, an array elements
#' x parameters x systems in the order of `final`, and as a data frame
#' [sde_element_params()] (to set an oscillator's natural frequency against
#' its effective one).
#' What the continuation reads of the result (its attributes `model_hash`,
#' `n`, `seed_hex`, `conditions`, `replicas`, `first_replica`,
#' `precision`, `method`, `final`, `k_end`, `t_end`) is sealed when it is
#' made: a result in which any was changed afterwards is refused with an
#' error of class `statphysgpu_modified_result`.
#'
#' A single particle's passages continue too: a result of `output =
#' "passage"` carries, for every path not stopped (censored at `t_max`,
#' left running or not started by an interrupt, or whose event held in the
#' last step past `t_max`), where it stopped: attribute `state`, a list of
#' columns by path (condition, then replica): `condition`, `replica`,
#' `step` (the step reached; 0: not started), `stop_time` (`NA`, or the
#' time of an event past `t_max`), `run` (its run of coarse steps) and
#' `states` (a data frame of the states by name).
#' `sde_run(model, replicas, init = result, t_max = T2)` with `T2` at
#' least the result's `t_max` runs those paths on from their steps and
#' states with the random numbers that follow (step \eqn{k} of a path draws
#' the same normals whether or not it was continued; its time is
#' \eqn{k\,dt}), keeps the stopped ones as they are, and equals one call
#' with `t_max = T2` path by path (bit for bit on the CPU, to rounding on
#' the GPU); a continued result continues again. The other arguments
#' (`dt`, `method`, `seed`, `precision`, `params`, `replicas`,
#' `first_replica`, `at_passage`, `bridge`) are the result's: given ones
#' must equal them (else an error of class
#' `statphysgpu_continuation_mismatch`); `t_max` before the result's, a
#' result of another model, and a modified result (class
#' `statphysgpu_modified_result`; its values, `state` and settings are
#' sealed) are refused, as are chunks combined by `rbind()`.
#'
#' Starts (`init`): per state a number, `n` numbers (per element, the same
#' in every system), an `n` x `replicas` matrix (per system: row \eqn{i}
#' element \eqn{i}, column \eqn{r} the \eqn{r}-th replica of this call;
#' the same starts in every condition, or, with \eqn{C > 1} conditions, an
#' `n` x (`replicas` \eqn{C}) matrix whose columns are the systems condition
#' by condition, in the order of `final`) or a formula over the parameters,
#' `i` and `n` that may
#' draw from the system's own streams (`~ runif(0, 2 * pi)`, `rnorm(mean,
#' sd)`, `rcauchy(location, scale)`; a draw whose arguments are invalid --
#' `runif(min, max)` with `max < min`, a negative `sd` or scale -- is an
#' error naming the start or parameter). On a square lattice (`n = c(L1,
#' L2)`) the elements are numbered row by row: element \eqn{(i - 1) L_2 +
#' j} is row \eqn{i}, column \eqn{j} (`x[i, j]` of the equations), and a
#' start may also be an \eqn{L_1 \times L_2} matrix, read as `x[i, j] =
#' M[i, j]`, or an \eqn{L_1 \times L_2 \times} `replicas` array (one
#' matrix a system). The draws of element \eqn{i} of the
#' system (condition \eqn{c}, replica \eqn{r}) come from Philox stream
#' \eqn{c 2^{40} + r - 1}, purpose 13 (starts) or 21 (element parameters),
#' block \eqn{i D + d} for draw site \eqn{d} of \eqn{D} per element; they
#' are made once on the host, so both backends start from the same
#' numbers.
#' A start of [lrmd()]'s -- [hmf_waterbag()], [hmf_equilibrium()],
#' [ring_uniform()] (columns `theta`, `p`) or [gravity2d_shell()] (`x`,
#' `y`, `px`, `py`), made with `n` particles and not a grid -- is drawn by
#' the engine itself, on the CPU or on the GPU where the run is (nothing of
#' \eqn{n} numbers is made in R or copied to the device): its columns
#' start the model's states in order (a model of as many states, no
#' positions in a box), replica \eqn{r} of the call draws the start's own
#' replica \eqn{r} (the streams of [lrmd()]'s replicas: replica 1 is the
#' start itself) and every condition starts alike. The numbers are those of
#' the start read in R, bit for bit on the CPU, on the GPU the angles the
#' same bits and the momenta to rounding (see [hmf_waterbag()]); a start
#' that cannot fit -- another `n`, another number of states -- is an
#' error naming `init`. For example `sde_run(hmf, n = 1e6, init =
#' hmf_waterbag(1e6, M0 = 1, U = 0.69), ...)` for a model of two states. The noise of step \eqn{k}, element \eqn{i} and noise entry
#' \eqn{w} is normal \eqn{i W + w} of that step (\eqn{W} entries an
#' element), Box-Muller on the words of block \eqn{k \lceil nW/4\rceil +
#' \lfloor (iW + w)/4 \rfloor} of purpose 8 -- with one entry an element,
#' exactly [kuramoto()]'s numbers: a Kuramoto model written with
#' [sde_model()] reproduces `kuramoto()` to rounding in double precision.
#' Sums over the elements (the reductions) are accumulated in double, in
#' element order on the CPU; pair sums in partner order. A system's numbers
#' depend only on its stream: results do not depend on threads, chunks or
#' the backend.
#'
#' On the CPU, runs of `"euler"` and `"srk2"` from \eqn{2^{20}}
#' element-steps (elements x systems x steps) advance a system's elements
#' side by side in the lanes of the processor's vector registers: an
#' object of the model compiled once for that precision (a few seconds,
#' then cached), with the same numbers as an element at a time (option
#' `statphysgpu.sde_cpu_vector`: `TRUE` always, `FALSE` never). A square
#' lattice of the XY model then costs some 5 ns a site-step with `"euler"`
#' in single precision and 11 in double on one core, twice that with
#' `"srk2"`: 7 to 80 times vectorised base R (`bench/mb-lattice-cpu.R` in
#' the sources). A model with `pairs()` takes that object for every method
#' from \eqn{2^{20}} element-steps (its element-steps counted
#' \eqn{\min(n, 64)} times): its pair sums go over several elements at
#' once, each summing its own partners in the same order (all pairs, or the
#' neighbour lists of a cut-off), so that the numbers are again the same;
#' Kuramoto all pairs then costs some 0.15 to 0.2 ns a pair term on one core in
#' single precision (`bench/mb-pairs-cpu.R`). The splitting methods
#' `"verlet"` and `"yoshida4"` of a model without lattice neighbours take it
#' too: each stage's force, kick and move of an element in one pass over the
#' elements. A call of one system (one condition, one replica) on several
#' threads ([sp_threads()]) splits that system's long passes among them
#' (from 65,536 elements, or \eqn{2^{20}} pair terms): each element and
#' each pair sum is computed as on one thread and the reductions are added
#' in element order, so the numbers are the same on any number of threads;
#' several systems run side by side, one a thread.
#' On the GPU a pair sum over all partners goes by tiles of 256 partners,
#' each tile summed in the working precision and the tiles in double; where
#' a system has at most 131,072 elements its partners are cut into chunks
#' of whole tiles (20 at \eqn{n = 10^4}, 2 at \eqn{10^5}), each a thread
#' block of its own so that small systems fill the device, and the chunks'
#' sums are added in order: n alone decides them, so the numbers do not
#' depend on the systems a launch holds or the devices.
#'
#' @param model An [sde_model()] (called `model` in [sde_ams()] too).
#' @param m Deprecated: the old name of `model` (it works, with a warning of
#'   class `statphysgpu_deprecated`).
#' @param replicas Paths per condition, a whole number \eqn{\ge 1}; for a
#'   many-body model, systems per condition.
#' @param init The start: a named list with one entry per state, each a
#'   number, a vector of one number per replica of this call (the same in
#'   every condition), a vector of one number per path (`replicas` \eqn{C}
#'   numbers for \eqn{C > 1} conditions, condition by condition: path
#'   \eqn{(c - 1)} `replicas` \eqn{+ r} starts replica \eqn{r} of this call
#'   in condition \eqn{c}), or a formula over the parameters (`~
#'   asin(gamma)`), evaluated per condition. For a
#'   many-body model see "Systems of many elements" (numbers per element,
#'   an `n` x `replicas` matrix per system, a lattice's matrix, draws, a
#'   start of [lrmd()] such as [hmf_waterbag()] that the engine draws
#'   itself), or a previous result of the model to continue.
#' @param dt The time step, positive.
#' @param t_max The end (and censoring) time, at least `dt`.
#' @param params Overrides of the model's parameter defaults: a named list
#'   or vector; vectors give one condition per value, and several of them
#'   every combination (the first varies fastest), with one column per
#'   swept parameter in the result; or a data frame, whose rows are the
#'   conditions (paired values). What a value may be depends on the kind of
#'   parameter:
#'   * a scalar parameter (declared as a number): finite numbers, one
#'     condition per value (a sweep);
#'   * a parameter per element of a many-body model (declared as a formula
#'     in `sde_model(params = )`, a constant one such as `~ 0` included):
#'     one number (every element), `n` numbers (element by element, the
#'     same in every system and condition: not a sweep), or a formula (a
#'     draw, or a function of `i`, `n` and the scalar parameters), given
#'     in a list, not as a column of a data frame (an error naming
#'     `params`).
#'
#'   Anything else -- a name that is not a parameter, a vector of a length
#'   other than 1 or `n` for a parameter per element, a missing value -- is
#'   an error naming `params` and the parameter.
#' @param method `"srk2"` (stochastic Heun) or `"euler"` (Euler-Maruyama);
#'   see "Calculus" in [sde_model()]. Many-body models with (position,
#'   momentum) pairs also admit `"verlet"`, `"yoshida4"` and `"baoab"` (see
#'   [sde_model()]).
#' @param output `"passage"`, `"moments"`, `"histogram"` or
#'   `"trajectories"`; for a many-body model `"records"` (its default),
#'   `"moments"`, `"trajectories"`, `"passage"` or, for a model with
#'   positions, `"rdf"`: the radial distribution function g(r), the pairs
#'   at distance r < `r_max` counted in `bins` bins at every record
#'   (`record_every`; the start included: continue an equilibrated run with
#'   `init = ` its result) against an ideal gas of the same density (N (N -
#'   1) / 2 pairs spread over the box's volume), averaged over the records
#'   and the systems of each condition, with its standard error across the
#'   systems (`NA` for one system): a data frame of class `sde_rdf` with
#'   columns `condition`, the swept parameters, `r` (the bin's middle),
#'   `r_lo`, `r_hi`, `g`, `se`, `pairs` (counted), with `print()`,
#'   `plot()` and `autoplot()`; the observables' records, if any, in
#'   `attr(, "records")`. Its cost is the pairs within `r_max` at each
#'   record (cell lists of side `r_max`).
#' @param record_every Steps between records of the fixed-length outputs,
#'   or `NULL`.
#' @param keep Replicas (of the whole study: a chunk keeps those among its
#'   own) whose trajectories are kept.
#' @param seed Philox key, or `NULL` to draw one from R's generator.
#' @param first_replica Number of the first replica of this call (chunks).
#' @param backend `"auto"` (the GPU when usable and there are at least
#'   10,000 paths), `"cpu"` or `"gpu"`.
#' @param devices GPU ids, `"all"`, or `NULL` (the first GPU). A
#'   single-particle model's passages (`output = "passage"`) are shared out
#'   over the devices in blocks of 32 paths taken in turn (every condition
#'   spread over all), with the numbers of one device; its fixed-length
#'   outputs run on the first device given. A many-body
#'   model's systems are shared out over the devices; one system (`replicas
#'   = 1`, one condition; n above 2048; not `output = "trajectories"`) is
#'   cut into slices of its elements, one a device, with the numbers of one
#'   device bit for bit: after each stage the devices exchange their sums
#'   of `mean()` and `sum()`, and the states the others read -- all of them
#'   with `pairs()`, the elements at the slices' edges on a lattice. With
#'   `pairs(cutoff = )` each device rebuilds the whole cell list and moves
#'   its share of the particles in the cells' order; pair observables and
#'   `output = "rdf"` are made from the whole state at each record.
#' @param precision `"single"` or `"double"`.
#' @param progress Show a progress bar.
#' @param bins With `output = "histogram"`: a named list of break vectors,
#'   one per state or observable to count; with `output = "rdf"`: the number
#'   of bins of \[0, `r_max`) (100).
#' @param box A many-body model with positions (`sde_model(positions = )`):
#'   the sides of its periodic box, one number (a cube, a square) or one a
#'   position; every cut-off at most half the smallest side.
#' @param graph A many-body model with `edges()`: the graph, an `n x n`
#'   weight matrix (base, or a sparse matrix of the Matrix package), `A[i,
#'   j]` the weight with which element `j` acts on `i` (zero: no edge), or
#'   an edge list, a data frame with columns `from`, `to` and optionally
#'   `weight` (1) -- an edge from `j` to `i`; each edge once. One graph for
#'   every system; at most 2^31 - 2 edges.
#' @param r_max With `output = "rdf"`: the largest distance (at most half
#'   the box's smallest side, its default).
#' @param hist A many-body model with `output = "records"` or
#'   `"trajectories"`: `list(state = , bins = )`, a histogram of one state's
#'   values in each system at each record, the values taken as angles
#'   modulo \eqn{2\pi} into `bins` equal bins of \eqn{[0, 2\pi)} (bin
#'   \eqn{b} holds \eqn{2\pi (b - 1) / bins \le x \bmod 2\pi < 2\pi b /
#'   bins}). `state` may be left out when the model has one periodic state
#'   (`sde_model(periodic = )`). The counts are the result's attribute
#'   `hist`, an array `bins` x records x systems (systems in the order of
#'   the rows: condition, then replica; 0 for a record not reached), made by
#'   the engine on either backend, so no element's state need be kept.
#' @param n The size of one system: its elements (many-body models, which
#'   need it; 1 for single-particle models); on a square lattice `c(L1, L2)`
#'   (rows, columns; or a square number for an L x L lattice), the elements
#'   numbered row by row (element \eqn{(i - 1) L_2 + j} is row \eqn{i},
#'   column \eqn{j}).
#' @param at_passage With `output = "passage"`: also return the state at
#'   passage (at the end of the step in which the event held, or in which
#'   the Brownian bridge found the crossing; at `t_max` for a censored
#'   path), in the working precision, and the observables there (evaluated
#'   in R, in double precision, at the passage time), in `attr(x,
#'   "at_passage")` and as columns of `as.data.frame(x, at_passage =
#'   TRUE)`.
#' @param bridge With `output = "passage"`: test each step for a crossing
#'   of the event inside it by the Brownian bridge, where the event's gap
#'   carries noise (see "Passage times, the step bias and the Brownian
#'   bridge"); `FALSE`: check the event at the steps only.
#' @return An object of class `sde_passage` (also `sp_paths`: one row per
#'   path, columns `condition`, the swept parameters, `replica`, `value`,
#'   `escaped`), `sde_moments` (columns `condition`, the swept parameters,
#'   `time`, `variable`, `replicas` (the replicas averaged), `mean`, `sd`,
#'   `se`; `x$n`, the column's name in earlier versions, still gives
#'   `replicas`, with a warning of class `statphysgpu_deprecated`), `sde_histogram`
#'   (`condition`, the swept parameters, `time`, `variable`, `lo`, `hi`,
#'   `count`) or `sde_trajectories` (`condition`, the swept parameters,
#'   `replica`, `time`, and one column per state and observable), with the
#'   attributes of the run (`model` (its name), `model_hash` (the hash of
#'   its code), `conditions`, `dt`, `t_max`, `init` (per condition and
#'   state; `NA` for a state given per replica), `record_every`, `bins`,
#'   `keep`, `seed`, `backend`, `precision`, `method`, `first_replica`,
#'   `replicas`, `seconds`, `bridge`, ...; `n`, the name of `replicas` in
#'   earlier versions, is deprecated) and `args` (the model and the arguments
#'   of the call, which [h_check()] reruns). `rbind()` combines chunks of one
#'   run only: see [sde_methods].
#' @seealso [sde_model()]
#' @examples
#' ou <- sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s),
#'                 params = c(k = 1, s = 1), stop = ~ x > 1.5, name = "ou")
#' if (sde_cpu_available()) {
#'   r <- sde_run(ou, replicas = 200, init = list(x = 0), dt = 0.01, t_max = 5,
#'                output = "moments", record_every = 100, seed = 1, backend = "cpu")
#'   r
#'   p <- sde_run(ou, replicas = 200, init = list(x = 0), dt = 0.01, t_max = 20,
#'                seed = 1, backend = "cpu")
#'   summary(p)
#' }
#' @export
sde_run <- function(model, replicas, init, dt, t_max, params = NULL,
                    method = c("srk2", "euler", "verlet", "yoshida4", "baoab"),
                    output = c("passage", "moments", "histogram", "trajectories", "records"),
                    record_every = NULL, keep = 0, seed = NULL, first_replica = 1,
                    backend = "auto", devices = NULL, precision = c("single", "double"),
                    progress = interactive(), bins = NULL, at_passage = FALSE,
                    bridge = TRUE, n = 1, box = NULL, graph = NULL, r_max = NULL, hist = NULL,
                    m) {
  call <- sys.call()
  sp_renamed_args(c(m = "model"), "sde_run")
  args <- sde_run_args(environment())
  m <- sde_model_trusted(model, call)
  if (!missing(init) && inherits(init, "sde_passage") && !inherits(init, "sde_mb_result")) {
    # a single particle's passage result: its paths not stopped continue
    if (missing(t_max)) {
      sp_abort("`t_max` is missing: a continuation (`init` = a passage result) needs the new end time.",
               call = call)
    }
    given <- args[intersect(names(args), c("replicas", "dt", "params", "method", "output",
                                           "seed", "first_replica", "precision", "at_passage",
                                           "bridge", "record_every", "keep", "bins"))]
    if (!missing(seed)) given["seed"] <- list(seed)
    return(sde_passage_continue(m, init, t_max, given, backend, devices, progress, call))
  }
  if (isTRUE(m$many) && missing(n)) sde_mb_need_n(m, call) # (R/sde-mb-inputs.R)
  shape <- NULL
  if (is.numeric(n) && length(n) == 2) {
    shape <- vapply(1:2, function(k) check_whole(n[k], "n", lo = 1, hi = 2^20, call = call), 0)
    n <- prod(shape)
  }
  n <- check_whole(n, "n", lo = 1, hi = 2^40, call = call)
  if (identical(m$lattice, "square") && is.null(shape)) {
    L <- round(sqrt(n))
    if (L * L != n) {
      sp_abort(sprintf(paste0("the model \"%s\" lives on a square lattice: give `n = c(L1, L2)` ",
                              "(rows, columns), or a square number, not %s."), m$name, format(n)),
               call = call)
    }
    shape <- c(L, L)
  }
  if (!is.null(shape) && !identical(m$lattice, "square")) {
    sp_abort(sprintf(paste0("`n` has two numbers (a lattice's rows and columns), but the model ",
                            "\"%s\" has no square lattice: give one number."), m$name), call = call)
  }
  if (isTRUE(m$many) || n > 1) {
    dt <- check_positive(dt, "dt", len = 1, call = call)
    t_max <- check_positive(t_max, "t_max", len = 1, call = call)
    if (!is.finite(t_max) || t_max < dt) {
      sp_abort(sprintf("`t_max` (%s) must be finite and at least one step `dt` (%s).",
                       format(t_max), format(dt)), call = call)
    }
    if (!isTRUE(steps_upto(t_max / dt) <= 2^53)) {
      sp_abort("`t_max / dt` is more than 2^53 steps per path; use a larger `dt`.", call = call)
    }
    method <- check_choice(method, SDE_MB_METHODS, "method", call = call)
    if (method %in% c("euler", "srk2")) sde_check_method(m, method, call) # names the other
    if (!is.null(shape)) init <- sde_mb_square_init(init, shape, call) # x[i, j] = M[i, j]
    output <- if (identical(output, eval(formals(sde_run)$output))) "records" else
      check_choice(output, SDE_MB_OUTPUTS, "output", call = call)
    if (!is.null(bins) && output != "rdf") {
      sp_warn(paste0("`bins` is ignored: a many-body model has no histogram output (bins are ",
                     "for output = \"rdf\")."), call = call,
              class = "statphysgpu_unused_argument")
    }
    if (!is.null(r_max) && output != "rdf") {
      sp_warn("`r_max` is ignored: it is the range of output = \"rdf\".", call = call,
              class = "statphysgpu_unused_argument")
    }
    if (isTRUE(at_passage)) {
      sp_warn("`at_passage` is ignored: a many-body result carries its final state (attr \"final\").",
              call = call, class = "statphysgpu_unused_argument")
    }
    return(sde_mb_run(m, replicas, n, init, dt, t_max, params, method, output, record_every,
                      keep, seed, first_replica, backend, devices, precision, progress, call,
                      shape = shape, box = box, graph = graph, bins = bins, r_max = r_max,
                      hist = hist))
  }
  # a single particle has no box, graph, pair distances or histograms of its elements
  for (a in c("box", "graph", "r_max", "hist")) {
    if (!is.null(get(a))) {
      sp_abort(sprintf(paste0("`%s` is for systems of many elements (a model with positions, ",
                              "edges(), g(r) or `hist`); the model \"%s\" is a single ",
                              "particle: drop ",
                              "`%s`."), a, m$name, a), call = call)
    }
  }
  sde_run_single(m, replicas, init, dt, t_max, params, method, output, record_every, keep,
                 seed, first_replica, backend, devices, precision, progress, bins, at_passage,
                 bridge, args, call)
}

# The single-particle run of sde_run() (its arguments, checked here; `args`:
# the call's arguments for the result).  With `states = TRUE` (an internal
# route, sde_run_states()) the run is output = "trajectories" and returns
# the kept states as the engine filled them (sde_states_result()), not the
# data frame.
sde_run_single <- function(m, replicas, init, dt, t_max, params, method, output, record_every,
                           keep, seed, first_replica, backend, devices, precision, progress,
                           bins, at_passage, bridge, args, call, states = FALSE,
                           slots = NULL, resume = NULL, cond0 = 0) {
  dt <- check_positive(dt, "dt", len = 1, call = call)
  t_max <- check_positive(t_max, "t_max", len = 1, call = call)
  if (!is.finite(t_max) || t_max < dt) {
    sp_abort(sprintf("`t_max` (%s) must be finite and at least one step `dt` (%s).",
                     format(t_max), format(dt)), call = call)
  }
  kmax <- steps_upto(t_max / dt)
  if (!isTRUE(kmax <= 2^53)) {
    sp_abort("`t_max / dt` is more than 2^53 steps per path; use a larger `dt`.", call = call)
  }
  method <- check_choice(method, SDE_MB_METHODS, "method", call = call)
  if (!(method %in% c("srk2", "euler"))) {
    sp_abort(sprintf(paste0("method = \"%s\" is for many-body models (states in (position, ",
                            "momentum) pairs coupled by mean(), sum(), pairs() or neighbours); ",
                            "the model \"%s\" is run with \"srk2\" or \"euler\"."), method, m$name),
             call = call, class = "statphysgpu_method_refused")
  }
  sde_check_method(m, method, call)
  if (identical(output, eval(formals(sde_run)$output))) output <- "passage"
  if (identical(output, "records")) {
    sp_abort(sprintf(paste0("output = \"records\" is for many-body models (system-level ",
                            "observables per replica); for the model \"%s\" use output = ",
                            "\"trajectories\"."), m$name), call = call)
  }
  output <- check_choice(output, c("passage", "moments", "histogram", "trajectories"),
                         "output", call = call)
  at_passage <- check_flag(at_passage, "at_passage", call = call)
  sde_check_unused(output, at_passage = at_passage, keep = keep, bins = bins,
                   record_every = record_every, call = call)
  bridge <- check_flag(bridge, "bridge", call = call)
  if (output != "passage") { # the last record at the last whole step (R/sde-records.R)
    kmax <- sde_fixed_steps(t_max, dt, call)
    t_max <- kmax * dt
  }
  if (output == "passage" && is.null(m$stop)) {
    sp_abort(paste0("output = \"passage\" needs an event: the model has no `stop` (give ",
                    "sde_model(stop = ~ ...)), or use output = \"moments\", \"histogram\" ",
                    "or \"trajectories\"."), call = call)
  }
  grid <- sde_grid(m, params, call)
  ncond <- nrow(grid)
  swept <- attr(grid, "swept")
  if (ncond + cond0 > 2^24) stop("internal error: `cond0` + the conditions pass 2^24")
  fr <- sim_frame(call, n = replicas, first = first_replica, seed = seed,
                  backend = backend, devices = devices, precision = precision,
                  precisions = c("single", "double"), progress = progress,
                  groups = if (output == "passage") ncond else 1,
                  row_bytes = if (output == "passage") 32 + 8 * length(m$states) else 8,
                  auto_threshold = 1e4, n_name = "replicas")
  if (is.null(resume)) {
    st <- sde_init(m, init, grid, fr$n, call)
  } else { # a continuation: every path from its own step and record (job$run_*)
    if (!identical(unname(as.matrix(attr(resume, "conditions")[names(m$params)])),
                   unname(as.matrix(grid[names(m$params)])))) {
      sp_abort("`init` ran other parameter values; a continuation runs the same conditions.",
               call = call)
    }
    st <- list(init = rep(0, ncond * length(m$states)), vec = rep(-1L, length(m$states)),
               vals = double())
  }
  vars <- c(m$states, names(m$observe))
  rec <- sde_records(record_every, kmax, output, call)
  keep <- check_whole(keep, "keep", lo = 0, hi = 2^40, call = call)
  if (output == "trajectories" && keep == 0) keep <- 10
  keep_here <- if (output == "passage") 0 else max(0, min(fr$n, keep - (fr$first - 1)))
  hist <- sde_bins(bins, output, vars, call)
  nvar <- length(vars)
  # each record's slot in a kept path's trajectory (1-based; 0: not kept):
  # one a record, or the caller's (sde_run_states(slots =))
  if (keep_here > 0 && output != "passage") {
    if (is.null(slots)) slots <- seq_len(rec$nrec)
    if (length(slots) != rec$nrec || anyNA(slots) || any(slots < 0) || all(slots == 0)) {
      stop("internal error: `slots` must give each of the ", rec$nrec, " records a slot")
    }
  } else {
    slots <- NULL
  }
  nslot <- max(0, slots)
  if (output != "passage") {
    need <- sde_memory_need(if (states) "states" else output, ncond, fr$n, length(m$states),
                            nvar, rec$nrec, sum(lengths(hist$breaks) + 1), keep_here,
                            length(swept), max(1, sp_threads()), nslot)
    if (need > available_memory()) {
      sp_abort(sprintf(paste0("the run would need about %s of memory; record less often ",
                              "(`record_every`), keep fewer trajectories or split the job ",
                              "with `first_replica`."), fmt_bytes(need)), call = call)
    }
  }
  job <- list(dt = dt, t_max = t_max, kmax = kmax, n = fr$n, replica0 = fr$first - 1,
              cond0 = cond0, ncond = ncond, nx = length(m$states), np = length(m$params) + length(m$derived),
              nw = length(m$noise_w), no = length(m$observe),
              heun = as.integer(method == "srk2"), single = as.integer(fr$precision == "single"),
              use_stop = as.integer(output == "passage"),
              output = match(output, c("passage", "moments", "histogram", "trajectories")) - 1,
              record_every = rec$every, nrec = rec$nrec, keep = keep_here,
              save_state = as.integer(at_passage && output == "passage"),
              nhist = length(hist$var), nbreaks = length(hist$all),
              bridge = as.integer(bridge && output == "passage" && sde_bridge_available(m)),
              ntraj = nslot, nrun = 0, hold = as.integer(output == "passage"))
  job <- lapply(job, as.double)
  job$run_path <- job$run_k <- job$run_x <- double()
  run <- if (!is.null(resume)) sde_resume_rows(resume, m, fr$n)
  if (!is.null(run)) {
    job$nrun <- as.double(length(run$path))
    job$run_path <- run$path
    job$run_k <- run$k
    job$run_x <- run$x
  }
  job$traj_slot <- as.double(slots - 1) # none without kept paths
  job$seed <- fr$seed
  job$par <- as.double(t(cbind(as.matrix(grid[names(m$params)]), sde_derived_values(m, grid, call))))
  job$init <- st$init
  job$init_vec <- st$vec
  job$init_vals <- st$vals
  job$hist_var <- hist$var
  job$hist_off <- hist$off
  job$breaks <- hist$all
  job$names <- vars
  job["advance"] <- list(NULL)
  job["observe"] <- list(NULL)
  job["lanes"] <- list(NULL)
  key <- ""
  if (fr$plan$backend == "gpu") {
    key <- sde_gpu_load(m, fr$plan$devices, fr$precision, method, call, progress = fr$progress)
  } else {
    lanes <- sde_cpu_lanes_wanted(m, fr$precision, ncond * fr$n * kmax)
    lib <- sde_cpu_load(m, call, progress = fr$progress, lanes = lanes)
    sfx <- if (fr$precision == "single") "_f" else "_d"
    job$advance <- lib[[paste0("advance", sfx)]]
    job$observe <- lib[[paste0("observe", sfx)]]
    job$lanes <- lib[[paste0("lanes", sfx)]]
  }
  # the one generic entry (sim_run()'s path; the kernel is the model's own)
  sim_hold_interrupts(fr$call, environment())
  res <- if (!is.null(run) && length(run$path) == 0) {
    sde_nothing_run() # every path of `init` stopped: nothing to run
  } else {
    .Call(C_sp_r_model_run, "sde", job, key, as.integer(fr$plan$devices), fr$progress)
  }
  .sp_last_run$run <- res$run # (sp_last_run(): the set-up and collect, for benchmarks)
  if (output == "passage") res <- sde_passage_merge(res, resume, run, m, fr, ncond, st, t_max)
  if (states) return(sde_states_result(res, vars, ncond, keep_here, rec, fr, slots))
  meta <- list(model = m$name, conditions = grid, method = method, dt = dt, h = dt,
               t_max = t_max, calculus = m$calculus, output = output,
               threshold = NULL, start = NULL)
  out <- switch(output,
    passage = sde_passage_result(res, m, grid, swept, fr, at_passage),
    moments = sde_moments_result(res, vars, grid, swept, rec, dt),
    histogram = sde_histogram_result(res, hist, vars, grid, swept, rec, dt),
    trajectories = sde_trajectories_result(res, vars, grid, swept, rec, dt, fr, keep_here))
  for (nm in names(meta)) attr(out, nm) <- meta[[nm]]
  attr(out, "model_hash") <- m$hash
  attr(out, "first_replica") <- fr$first
  attr(out, "replicas") <- fr$n
  attr(out, "bridge") <- job$bridge == 1
  attr(out, "args") <- args # to rerun (h_check()): the model and the arguments
  attr(out, "steps") <- c(useful = res$useful_steps, issued = res$useful_steps)
  attr(out, "model_hash") <- m$hash
  # the settings rbind() compares (chunks of one run)
  attr(out, "record_every") <- if (output != "passage") rec$every
  attr(out, "keep") <- if (output == "trajectories") keep
  attr(out, "bins") <- if (output == "histogram") hist$breaks
  attr(out, "init") <- if (is.null(resume)) sde_init_record(st, ncond, m$states) else
    attr(resume, "init")
  out <- sp_old_attrs(out)
  cls <- switch(output, passage = c("sde_passage", "sp_paths", "data.frame"),
                moments = c("sde_moments", "data.frame"),
                histogram = c("sde_histogram", "data.frame"),
                trajectories = c("sde_trajectories", "data.frame"))
  out <- sim_result(out, fr, res, class = cls,
             unfinished = if (output == "passage") {
               "the unfinished paths are censored at the time they had reached (escaped = FALSE; listed in attr(x, \"unfinished\"))"
             } else {
               sprintf("%s of %s records were reached; the result holds those",
                       fmt_count(res$records), fmt_count(rec$nrec))
             })
  # the streams' conditions cond0 + 1 .. (sde_run_streams()): kept, and
  # sealed, for a continuation to draw the same streams
  if (cond0 > 0) attr(out, "cond0") <- cond0
  if (output == "passage") { # what a continuation reads
    out <- sp_seal(out, c(SDE_PASSAGE_SEALED, if (cond0 > 0) "cond0"))
  }
  out
}

# sde_run() of a single particle (no continuation) whose conditions are, for
# the random streams only, conditions cond0 + 1, cond0 + 2, ... of a larger
# study: condition c of the call draws the streams (cond0 + c - 1) 2^40 +
# replica - 1 of the job's field `cond0` (inst/cuda/sde_args.h), so that
# one-condition calls (each with its own t_max) draw what one call of all
# the conditions would.  An internal route (R/escape-declared.R); the
# result carries (sealed) attribute `cond0`, which its continuation
# (sde_run(init = <it>)) keeps.  The arguments are sde_run()'s.
sde_run_streams <- function(cond0, model, replicas, init, dt, t_max, params = NULL,
                            method = c("srk2", "euler"), output = "passage",
                            record_every = NULL, keep = 0, seed = NULL, first_replica = 1,
                            backend = "auto", devices = NULL,
                            precision = c("single", "double"), progress = interactive(),
                            bins = NULL, at_passage = FALSE, bridge = TRUE,
                            call = sys.call()) {
  args <- sde_run_args(environment())
  m <- sde_model_trusted(model, call)
  if (isTRUE(m$many)) stop("internal error: sde_run_streams() runs single-particle models")
  if (!(is.numeric(cond0) && length(cond0) == 1 && isTRUE(cond0 >= 0) &&
        cond0 == round(cond0))) {
    stop("internal error: `cond0` must be a whole number >= 0")
  }
  sde_run_single(m, replicas, init, dt, t_max, params, method[1], output, record_every, keep,
                 seed, first_replica, backend, devices, precision, progress, bins,
                 at_passage, bridge, args, call, cond0 = as.double(cond0))
}

# ---- the pieces of a run ------------------------------------------------------

# Arguments that the output does not use, given anyway: an error naming
# them (a silently ignored argument is a wrong assumption waiting).
sde_check_unused <- function(output, at_passage, keep, bins, record_every, call) {
  unused <- c(at_passage = output != "passage" && isTRUE(at_passage),
              keep = output != "trajectories" && !identical(keep, 0) && !identical(keep, 0L),
              bins = output != "histogram" && !is.null(bins),
              record_every = output == "passage" && !is.null(record_every))
  if (any(unused)) {
    a <- names(unused)[unused][1]
    uses <- c(at_passage = "\"passage\"", keep = "\"trajectories\"",
              bins = "\"histogram\"",
              record_every = "\"moments\", \"histogram\" and \"trajectories\"")
    sp_warn(sprintf("`%s` is ignored: output = \"%s\" does not use it (only %s does).",
                    a, output, uses[[a]]), call = call, class = "statphysgpu_unused_argument")
  }
  invisible(TRUE)
}

# The conditions: the model's defaults with the overrides of `params`
# (vectors sweep, every combination); attr "swept": the parameters given as
# vectors of more than one value.
sde_grid <- function(m, params, call) {
  if (is.null(params)) params <- list()
  paired <- is.data.frame(params)
  if (is.numeric(params) && !is.null(names(params))) params <- as.list(params)
  if (!is.list(params) || (length(params) && is.null(names(params)))) {
    sp_abort(sprintf("`params` must be a named list of parameter values or a data frame, not %s.",
                     describe(params)), call = call)
  }
  nm <- names(params)
  if (length(params) && (anyNA(nm) || any(!nzchar(nm)))) {
    sp_abort("every entry of `params` must be named.", call = call)
  }
  if (anyDuplicated(nm)) {
    sp_abort(sprintf("`params` sets `%s` twice; give each parameter once.",
                     nm[anyDuplicated(nm)]), call = call)
  }
  unknown <- setdiff(nm, names(m$params))
  if (length(unknown)) {
    sp_abort(sprintf("`params` sets `%s`, which is not a parameter of the model; it has %s.",
                     unknown[1], if (length(m$params))
                       paste0("`", names(m$params), "`", collapse = ", ") else "none"),
             call = call)
  }
  vals <- as.list(m$params)
  for (p in nm) {
    v <- params[[p]]
    if (!is.numeric(v) || !length(v) || anyNA(v) || any(!is.finite(v))) {
      bad <- if (is.numeric(v)) sde_bad_numbers(v)
      sp_abort(if (!is.null(bad)) {
        sprintf("`params$%s` %s; give finite numbers (several values sweep the parameter).",
                p, bad)
      } else sprintf("`params$%s` must be finite numbers, not %s.", p, describe(v)),
      call = call)
    }
    vals[[p]] <- as.double(v)
  }
  if (paired) {
    # a data frame: its rows are the conditions (paired values, no grid)
    rows <- nrow(params)
    if (rows < 1) sp_abort("`params` is a data frame with no rows.", call = call)
    if (rows > 2^24) {
      sp_abort(sprintf("`params` has %s rows; at most 2^24 conditions are allowed.",
                       fmt_count(rows)), call = call)
    }
    cols <- lapply(vals, function(v) if (length(v) == 1) rep(v, rows) else v)
    swept <- nm[vapply(nm, function(p) length(unique(cols[[p]])) > 1, TRUE)]
    grid <- cbind(data.frame(condition = seq_len(rows)), as.data.frame(cols))
  } else {
    swept <- names(vals)[lengths(vals) > 1]
    grid <- if (length(vals)) sim_grid(vals, call) else data.frame(condition = 1L)
  }
  attr(grid, "swept") <- swept
  attr(grid, "paired") <- paired
  grid
}

# The starts: init (ncond x nx, by row), vec (nx: -1 or the column of vals;
# from SDE_PER_PATH: a column of one start per path), vals (columns of n
# values, one per replica, or, where a state is given per path -- ncond n
# values, condition by condition --, every column of ncond n values, a
# column of n repeated for each condition).
# `init` as a named list with one entry per state of model m (else an error
# naming what is wrong; `alt`: what else `init` may be, for the message).
sde_check_init_states <- function(m, init, alt, call) {
  if (!is.list(init) || is.null(names(init)) || any(!nzchar(names(init)))) {
    sp_abort(sprintf(paste0("`init` must be a named list with one entry per state (%s), ",
                            "%snot %s."), paste0("`", m$states, "`", collapse = ", "), alt,
                     describe(init)), call = call)
  }
  missing <- setdiff(m$states, names(init))
  extra <- setdiff(names(init), m$states)
  if (length(missing) || length(extra)) {
    sp_abort(sprintf("`init` %s; it needs one entry per state: %s.",
                     if (length(missing)) sprintf("has no entry for `%s`", missing[1])
                     else sprintf("has an entry for `%s`, which is not a state", extra[1]),
                     paste0("`", m$states, "`", collapse = ", ")), call = call)
  }
  invisible(init)
}

# init_vec from here: a column of one start per path (SP_SDE_PER_PATH of
# inst/cuda/sde_args.h)
SDE_PER_PATH <- 256L

sde_init <- function(m, init, grid, n, call) {
  sde_check_init_states(m, init, "", call)
  ncond <- nrow(grid)
  nx <- length(m$states)
  mat <- matrix(0, ncond, nx)
  vec <- rep(-1L, nx)
  cols <- list()
  for (i in seq_len(nx)) {
    s <- m$states[i]
    v <- init[[s]]
    what <- sprintf("`init$%s`", s)
    if (inherits(v, "formula") || is.call(v) || is.name(v) || is.character(v)) {
      e <- sde_rhs(v, what, call)
      sde_check_expr(e, names(m$params), sprintf(
        "%s (a start: a formula over the parameters and pi, not the states or t)", what), call)
      x <- vapply(seq_len(ncond), function(c) {
        env <- list2env(as.list(grid[c, names(m$params), drop = FALSE]), parent = baseenv())
        r <- eval(e, env)
        if (length(r) != 1) NA_real_ else as.double(r)
      }, 0)
      bad <- !is.finite(x)
      if (any(bad)) {
        sp_abort(sprintf("%s, %s, is not finite for condition %d.", what, deparse1(e),
                         which(bad)[1]), call = call)
      }
      mat[, i] <- x
    } else if (is.numeric(v) && length(v) %in% c(1, n, n * ncond) && all(is.finite(v))) {
      if (length(v) == 1 || n * ncond == 1) {
        mat[, i] <- v[1]
      } else {
        vec[i] <- length(cols)
        cols[[length(cols) + 1]] <- as.double(v)
      }
    } else {
      sp_abort(sprintf(paste0("%s must be a finite number, %s finite numbers (one per ",
                              "replica)%s or a formula over the parameters, not %s."), what,
                       fmt_count(n), if (ncond > 1) {
                         sprintf(", %s (one per path: %s conditions x %s replicas, condition by condition)",
                                 fmt_count(n * ncond), fmt_count(ncond), fmt_count(n))
                       } else "", describe(v)), call = call)
    }
  }
  if (length(cols) && ncond > 1 && any(lengths(cols) == n * ncond) && n * ncond != n) {
    # a column per path: every column so (the engine's columns are of one kind)
    cols <- lapply(cols, function(x) if (length(x) == n) rep.int(x, ncond) else x)
    vec[vec >= 0] <- vec[vec >= 0] + SDE_PER_PATH
  }
  vals <- unlist(cols, use.names = FALSE)
  list(init = as.double(t(mat)), vec = as.integer(vec), vals = as.double(vals))
}

# Bytes a fixed-length run needs at its peak: the engine's state of every
# path (and its per-path failure record), its tile sums and per-thread
# values, the outputs it fills, and the result R builds from them (its data
# frame and the vectors it is built from: three copies at most at once).
sde_memory_need <- function(output, ncond, n, nx, nvar, nrec, hcells, keep, nswept, threads,
                            nslot = nrec) {
  total <- ncond * n
  tiles <- ncond * ceiling(n / 256)
  engine <- total * (nx + 1) * 8 + 32 * tiles * nvar * 3 * 8 + threads * 32 * 256 * nvar * 8
  outputs <- ncond * nrec * 8 * (3 * nvar + hcells) + ncond * nslot * 8 * keep * nvar
  result <- switch(output,
    moments = ncond * nrec * nvar * (7 + nswept) * 8,
    histogram = ncond * nrec * hcells * (8 + nswept) * 8,
    trajectories = ncond * keep * nrec * (3 + nswept + nvar) * 8,
    # sde_run_states(): no data frame; a variable at every record, as
    # sde_states_paths() picks it
    states = ncond * keep * nslot * 8)
  engine + 2 * outputs + 3 * result
}

# The start as a result records it: per condition (row) and state
# (column), its value; NA for a state given per replica (each chunk gives
# its own replicas' values).
sde_init_record <- function(st, ncond, states) {
  x <- matrix(st$init, ncond, length(states), byrow = TRUE, dimnames = list(NULL, states))
  x[, st$vec >= 0] <- NA_real_
  x
}

# Records of the fixed-length outputs: every `every` steps and the last.
sde_records <- function(record_every, kmax, output, call) {
  if (output == "passage") return(list(every = kmax, nrec = 0, kmax = kmax))
  every <- if (is.null(record_every)) max(1, ceiling(kmax / 100)) else
    check_whole(record_every, "record_every", lo = 1, hi = 2^53, call = call)
  nrec <- floor(kmax / every) + 1 + (kmax %% every != 0)
  list(every = every, nrec = nrec, kmax = kmax)
}

# The times of records j (1-based).
sde_record_time <- function(rec, j, dt) pmin((j - 1) * rec$every, rec$kmax) * dt

# Histogram breaks: var (0-based variable), off (breaks offsets), all.
sde_bins <- function(bins, output, vars, call) {
  none <- list(var = integer(), off = 0, all = double(), breaks = list())
  if (output != "histogram") return(none)
  if (!is.list(bins) || !length(bins) || is.null(names(bins))) {
    sp_abort(sprintf(paste0("output = \"histogram\" needs `bins`: a named list of break ",
                            "vectors, one per variable to count (of %s), not %s."),
                     paste0("`", vars, "`", collapse = ", "), describe(bins)), call = call)
  }
  unknown <- setdiff(names(bins), vars)
  if (length(unknown)) {
    sp_abort(sprintf("`bins` names `%s`, which is not a state or observable (%s).",
                     unknown[1], paste0("`", vars, "`", collapse = ", ")), call = call)
  }
  for (v in names(bins)) {
    b <- bins[[v]]
    if (!is.numeric(b) || length(b) < 2 || any(!is.finite(b)) || is.unsorted(b, strictly = TRUE)) {
      sp_abort(sprintf("`bins$%s` must be at least 2 finite, increasing breaks, not %s.", v,
                       describe(b)), call = call)
    }
  }
  br <- lapply(bins, as.double)
  list(var = as.integer(match(names(bins), vars) - 1L),
       off = as.double(c(0, cumsum(lengths(br)))), all = unlist(br, use.names = FALSE),
       breaks = br)
}

# Columns of the swept parameters for rows of conditions `cond`.
sde_param_cols <- function(grid, swept, cond) {
  cols <- list()
  for (p in swept) cols[[p]] <- grid[[p]][cond]
  cols
}

sde_passage_result <- function(res, m, grid, swept, fr, at_passage) {
  ncond <- nrow(grid)
  cond_of <- rep.int(seq_len(ncond), rep.int(fr$n, ncond))
  status <- res$status
  cols <- c(list(condition = cond_of), sde_param_cols(grid, swept, cond_of),
            list(replica = rep(fr$first - 1 + seq_len(fr$n), times = ncond),
                 value = res$value, escaped = status == 1L))
  out <- new_df(cols)
  attr(out, "state") <- res$hold # the paths not stopped: where a continuation starts them
  unf <- which(status == -1L | status == 2L)
  attr(out, "unfinished") <- data.frame(condition = cond_of[unf], replica = out$replica[unf])
  if (at_passage) {
    st <- matrix(res$state, ncol = length(m$states), byrow = TRUE,
                 dimnames = list(NULL, m$states))
    ap <- as.data.frame(st)
    for (o in names(m$observe)) {
      ap[[o]] <- sde_eval_rows(m$observe[[o]], ap, grid[cond_of, , drop = FALSE], out$value)
    }
    attr(out, "at_passage") <- ap
  }
  out
}

# An observable evaluated in R on rows of states (the state at passage).
sde_eval_rows <- function(e, states, conds, t) {
  env <- list2env(c(as.list(states), as.list(conds), list(t = t)), parent = baseenv())
  env$ifelse <- base::ifelse
  r <- eval(e, env)
  rep_len(as.double(r), nrow(states))
}

sde_moments_result <- function(res, vars, grid, swept, rec, dt) {
  ncond <- nrow(grid)
  nvar <- length(vars)
  nr <- max(0, res$records)
  times <- sde_record_time(rec, seq_len(rec$nrec), dt)
  # index: variable fastest, then record, then condition
  v <- rep(seq_len(nvar), times = rec$nrec * ncond)
  r <- rep(rep(seq_len(rec$nrec), each = nvar), times = ncond)
  cond <- rep(seq_len(ncond), each = rec$nrec * nvar)
  n <- res$mom_n
  sd <- sqrt(res$mom_m2 / pmax(n - 1, 1))
  sd[n < 2] <- NA_real_
  keep <- r <= nr
  cols <- c(list(condition = cond), sde_param_cols(grid, swept, cond),
            list(time = times[r], variable = vars[v], replicas = n, mean = res$mom_mean, sd = sd,
                 se = sd / sqrt(n)))
  out <- new_df(lapply(cols, function(x) x[keep]))
  out
}

sde_histogram_result <- function(res, hist, vars, grid, swept, rec, dt) {
  ncond <- nrow(grid)
  nr <- max(0, res$records)
  cells <- sum(lengths(hist$breaks) + 1)
  h <- matrix(res$hist, nrow = cells)
  rows <- list()
  off <- 0
  for (j in seq_along(hist$breaks)) {
    b <- hist$breaks[[j]]
    nb <- length(b) + 1
    sub <- h[off + seq_len(nb), , drop = FALSE] # (below, bins, above) x (record, condition)
    col_r <- rep(seq_len(rec$nrec), times = ncond)
    col_c <- rep(seq_len(ncond), each = rec$nrec)
    rows[[j]] <- data.frame(
      condition = rep(col_c, each = nb), rec = rep(col_r, each = nb),
      variable = names(hist$breaks)[j],
      lo = rep(c(-Inf, b), times = length(col_r)), hi = rep(c(b, Inf), times = length(col_r)),
      count = as.vector(sub))
    off <- off + nb
  }
  d <- do.call(rbind, rows)
  d <- d[d$rec <= nr, , drop = FALSE]
  d$time <- sde_record_time(rec, d$rec, dt)
  d <- d[order(d$condition, d$rec, match(d$variable, vars)), , drop = FALSE]
  cols <- c(list(condition = d$condition), sde_param_cols(grid, swept, d$condition),
            list(time = d$time, variable = d$variable, lo = d$lo, hi = d$hi, count = d$count))
  new_df(cols)
}

sde_trajectories_result <- function(res, vars, grid, swept, rec, dt, fr, keep_here) {
  ncond <- nrow(grid)
  nvar <- length(vars)
  nr <- max(0, res$records)
  if (keep_here == 0) {
    cols <- c(list(condition = integer()), sde_param_cols(grid, swept, integer()),
              list(replica = numeric(), time = numeric()),
              stats::setNames(rep(list(numeric()), nvar), vars))
    return(new_df(cols))
  }
  r <- rep(rep(seq_len(rec$nrec), times = keep_here), times = ncond)
  rep_i <- rep(rep(seq_len(keep_here), each = rec$nrec), times = ncond)
  cond <- rep(seq_len(ncond), each = keep_here * rec$nrec)
  cols <- c(list(condition = cond), sde_param_cols(grid, swept, cond),
            list(replica = fr$first - 1 + rep_i,
                 time = sde_record_time(rec, seq_len(rec$nrec), dt)[r]))
  # each variable's column picked out of the buffer (variable fastest) in C
  vals <- .Call(C_sp_r_model_pick, res$traj, as.double(seq_len(nvar) - 1), nvar, length(r))
  for (j in seq_len(nvar)) cols[[vars[j]]] <- vals[[j]]
  if (nr < rec$nrec) { # an interrupted run: the records reached
    keep <- r <= nr
    cols <- lapply(cols, function(x) x[keep])
  }
  new_df(cols)
}

# ---- the kept states without the data frame (an internal route) ----------------
#
# sde_run(output = "trajectories") of a single-particle model builds a data
# frame of one row per kept path and record (condition, swept parameters,
# replica, time and a column per variable): a caller that wants the states
# of every path at a few records (driven_brownian()'s declared engine: 2^20
# paths) spends more on those rows than the engine on the run.
# sde_run_states() takes sde_run()'s arguments (output = "trajectories",
# the same checks, streams and engine) and returns the engine's buffer as
# it is: a list with
#   values: the states and observables, variable fastest, then slot, then
#           kept path (condition by condition, replicas first_replica ..
#           of each), NaN in a slot no record reached;
#   vars, nvar, nrec (records planned), records (reached), every, kmax,
#   slots (each record's slot, 1-based; 0: not kept), nslot,
#   paths (kept paths in all), keep (kept paths per condition),
#   seconds, interrupted.
# The slots: one a record by default; `slots` (a slot per planned record,
# 1-based, 0 for none) lets the engine keep fewer -- records that share a
# slot leave the last one reached there, so that a caller that reads every
# path at the end of a transient and at the end gives the records up to
# the transient's end slot 1 and the rest slot 2: 2 states a path kept in
# place of one a record, and an interrupted run's last record is still
# there (driven_brownian()'s declared engine: 2 of 6 records, issue 50).
# sde_states_paths() and sde_states_at() pick from it by record; the numbers are those of the data frame's
# columns (tests/testthat/test-sde-states.R).  No warning of an interrupted
# run (the caller reads `interrupted`).
sde_run_states <- function(model, replicas, init, dt, t_max, params = NULL,
                           method = c("srk2", "euler"), record_every = NULL, keep = 0,
                           seed = NULL, first_replica = 1, backend = "auto", devices = NULL,
                           precision = c("single", "double"), progress = FALSE, slots = NULL,
                           call = sys.call()) {
  m <- sde_model_trusted(model, call)
  if (isTRUE(m$many)) stop("internal error: sde_run_states() runs single-particle models")
  sde_run_single(m, replicas, init, dt, t_max, params, method[1], "trajectories", record_every,
                 keep, seed, first_replica, backend, devices, precision, progress, NULL, FALSE,
                 TRUE, args = NULL, call = call, states = TRUE, slots = slots)
}

# The engine's trajectories as sde_run_states() returns them.
sde_states_result <- function(res, vars, ncond, keep_here, rec, fr, slots) {
  run <- res$run
  list(values = res$traj, vars = vars, nvar = length(vars), nrec = rec$nrec,
       records = max(0, res$records), every = rec$every, kmax = rec$kmax,
       slots = slots, nslot = max(0, slots),
       paths = ncond * keep_here, keep = keep_here, seconds = run[["seconds"]],
       interrupted = isTRUE(run[["interrupted"]] == 1))
}

# The slots (1-based) of records `recs` of an sde_run_states() result: an
# error where a record's slot holds another (a later record reached that
# shares it, or a record not kept).
sde_states_slot <- function(s, recs) {
  sl <- s$slots[recs]
  last <- integer(s$nslot) # the last record reached in each slot (0: none)
  kept <- which(s$slots[seq_len(s$records)] > 0)
  last[s$slots[kept]] <- kept # (a repeated index: its last value)
  if (anyNA(sl) || any(sl == 0) || any(last[sl] != recs)) {
    stop("internal error: records ", paste(recs, collapse = ", "), " are not all kept")
  }
  sl
}

# Variable `var` (a name) of an sde_run_states() result at records `recs`
# (1-based) of every kept path: a list of one vector per record, the paths
# in order (picked in C at the buffer's stride: no index vectors).
sde_states_paths <- function(s, var, recs) {
  v <- match(var, s$vars)
  if (is.na(v)) stop("internal error: no variable ", var)
  .Call(C_sp_r_model_pick, s$values, as.double(v - 1 + (sde_states_slot(s, recs) - 1) * s$nvar),
        s$nvar * s$nslot, s$paths)
}

# Variable `var` of an sde_run_states() result at records `recs` of kept
# paths `cols` (1-based; a few paths): a matrix length(recs) x length(cols).
sde_states_at <- function(s, var, recs, cols) {
  v <- match(var, s$vars)
  if (is.na(v)) stop("internal error: no variable ", var)
  i <- outer(v + (sde_states_slot(s, recs) - 1) * s$nvar, (cols - 1) * (s$nvar * s$nslot), "+")
  matrix(s$values[i], length(recs))
}
