#' statphysgpu: stochastic statistical-physics ensembles on GPUs and CPUs
#'
#' Runs millions of stochastic replicas (escape times, switching currents,
#' and more) on NVIDIA GPUs through kernels compiled at run time with NVRTC,
#' or on CPU cores with the same model code and the same Philox random
#' streams, and returns samples with the statistics to analyse them.
#'
#' Start with [sp_backends()] to see what this machine offers, and
#' [philox_uniform()] for the random streams everything is built on.
#'
#' @section Vocabulary:
#' One name per concept in every simulator ([escape_times()],
#' [switching_currents()], [driven_brownian()], [kuramoto()], [he4_vmc()],
#' [xorsat_qg()], [lrmd()]), and no name with two meanings. Each
#' simulator's help page gives the paper's symbols beside these names. Old
#' names keep working for one release, with a warning of class
#' `statphysgpu_deprecated` that names the new one (giving both is an error).
#' So do the old names of result columns (`x$walker`, `x$run`, `x$n`,
#' `x$gamma` of [driven_brownian()], also in `as.data.frame(x)`); the old
#' names of result attributes (`h`, `start`, `n` of escape results, `theta`
#' of [kuramoto()], `step` and `walkers` of [he4_vmc()]) are still set to the
#' values of the new ones, deprecated (`attr()` cannot warn).
#'
#' | name | meaning | papers' symbols; old names |
#' |---|---|---|
#' | `replicas` | number of independent copies: paths, systems, walkers, runs | walkers, runs; old `n` (escape, switching, driven), `walkers` (he4_vmc), `runs` (xorsat_qg) |
#' | `first_replica` | global number of a call's first replica: chunks ([replica_chunks()]) combine with [rbind()] into the one-call result | old `first_walker`, `first_run` |
#' | `replica` | the result column that numbers the replicas | old `walker`, `run` |
#' | `n` | the size of one system only (oscillators, particles, atoms), never a count of copies | \eqn{N}; old `n_atoms` (he4_vmc) |
#' | `init` | the initial state: a named start (`"rest"`, `"thermal"`), a state, or a previous result, which it continues | \eqn{x(0)}, \eqn{\varphi_0}; old `start`, `theta0`, `x0` and `v0` |
#' | `dt` | the time step | \eqn{h}, \eqn{\Delta t}; old `h` |
#' | `displacement` | rms trial displacement of a Monte Carlo move (a distance, not a time) | old `step` (he4_vmc) |
#' | `theta` | the temperature (noise intensity) | \eqn{\theta = k_BT/E_C} (Pierro et al. 2018), \eqn{D_0} and \eqn{T} (Januszewski and Kostur 2010); old `D0`, `T` |
#' | `beta` | the friction (damping) | \eqn{\beta} (Pierro et al. 2018), \eqn{\gamma} (Januszewski and Kostur 2010); old `gamma` (driven, kuramoto) |
#' | `gamma` | the bias of the washboard, \eqn{I_b/I_c} (escape family only) | \eqn{\gamma} (Pierro et al. 2018) |
#' | `omega` | a drive's angular frequency only | \eqn{\omega} |
#' | `frequencies` | natural frequencies of oscillators | \eqn{\omega_i}; old `omega` (kuramoto) |
#' | `precision` | `"single"`, `"mixed"` or `"double"`; a model refuses those it lacks, saying which it has | |
#' | `method` | the integrator, `"srk2"` (stochastic Heun) or `"euler"` | Algorithm 2 of Januszewski and Kostur (2010); Euler-Maruyama |
#' | `seed` | the Philox key (64 bits); `NULL` draws one from R's generator | [xorsat_random()] too, which took a 31-bit Mersenne-Twister seed |
#' | `model` | the model a run integrates ([sde_run()], [sde_ams()]) | old `m` (sde_run) |
#' | `walkers` | the branching walkers of one DMC population ([he4_dmc()]; its independent copies are `populations`) | old `replicas` (he4_dmc) |
#' | `level` | a confidence level only | |
#' | `success` | the success probability of a time to solution ([tts_estimate()]) | old `level` (tts_estimate, summary of xorsat_qg) |
#' | `start_edge` | the edge of the start region \eqn{A} of [sde_ams()] (a level of the score) | old `A`; `A` is an adjacency matrix ([kuramoto()]) |
#' | `backend`, `devices`, `progress` | `"auto"`, `"cpu"` or `"gpu"`; GPU ids; a progress bar (`interactive()` by default) | |
#'
#' Results carry the run's settings under the same names (attributes
#' `replicas`, `first_replica`, `dt`, `init`, `precision`, ...); their
#' methods also read results made by earlier versions.
#'
#' @section Interrupts, errors and warnings:
#' Every simulator follows one rule for Ctrl-C: once its run has started,
#' an interrupt stops it after the round in flight and the call returns
#' what finished, flagged (`attr(x, "interrupted")`) with a warning of
#' class `statphysgpu_interrupted` -- never an error and never a lost
#' result, also when the key is pressed while the progress bar is drawn or
#' twice. A Ctrl-C after the last round (while the result is assembled)
#' leaves the complete result, with a warning of class
#' `statphysgpu_late_interrupt`. Before the run starts (argument checks,
#' kernel compilation) Ctrl-C interrupts as anywhere in R.
#'
#' Errors have class `statphysgpu_error`. A state that turns non-finite
#' (NaN or infinite: a step too large for the dynamics, parameters that
#' overflow) is an error of class `statphysgpu_not_finite` naming the
#' replica, the quantity and the step, on the CPU and the GPU alike: the
#' engines check their state at the end of every round and never return
#' non-finite values as data. Warnings about the time step have class
#' `statphysgpu_step_warning`. A time limit (`setTimeLimit()`) is an error.
#'
#' @section Timing:
#' `attr(x, "seconds")` of a result is the engine's own time: the wall time
#' of its rounds (kernel launches to their results on the GPU, the
#' threads' rounds on the CPU). It leaves out what every call pays once:
#' argument checks, kernel loading, device allocations, uploads, start
#' states drawn by the engine, the copy of the results into R and their
#' assembly. A call's fixed cost is measured as the intercept of the whole
#' call's time at two run lengths.
#'
#' @section Tuning options:
#' Options `statphysgpu.<name>` turn the engines' knobs -- kernel variants,
#' launch shapes, which engine a front-end runs -- never the physics: a run
#' gives the same law (mostly the same numbers) with any of them. Each is
#' checked where it is read; a bad value is an error that names the allowed
#' ones. The ones a user may want:
#'
#' | option | default | what |
#' |---|---|---|
#' | `statphysgpu.driven_engine` | `"builtin"` | `"declared"`: [driven_brownian()] runs its model on the engine of [sde_run()] (the same law, other random streams; slower for now) |
#' | `statphysgpu.ams_engine` | `"builtin"` | `"declared"`: [escape_rate_ams()] runs the washboard as an [sde_model()] on the engine of [sde_ams()] (the same laws, other random streams) |
#' | `statphysgpu.escape_engine` | `"builtin"` | `"declared"`: [escape_times()] and [switching_currents()] run the washboard on the engine of [sde_run()] (the same law, other random streams) |
#' | `statphysgpu.sde_fast_math` | `TRUE` | hardware sine, cosine and quotients in single-precision GPU kernels of [sde_run()] (`FALSE`: the CPU's polynomials) |
#' | `statphysgpu.sde_cpu_vector` | `"auto"` | the CPU's vector loop over paths or elements (`TRUE` always, `FALSE` never; the same numbers) |
#' | `statphysgpu.mb_cells` | `TRUE` | pair terms with a cut-off through cell lists (`FALSE`: every pair tested; the same sums to rounding) |
#' | `statphysgpu.mb_blocks_per_sm` | `"auto"` | registers of a many-body GPU pass capped for that many blocks an SM (`"auto"`: 6 for cut-off pairs) |
#' | `statphysgpu.sde_max_loaded` | 24 | compiled CPU model objects loaded at once |
#'
#' The others (kernel variants and the multi-device code on one GPU) are for
#' the package's benchmarks and tests; `R/tuning.R` lists them all.
#'
#' @references
#' The five papers the package is built from (`citation("statphysgpu")`):
#'
#' Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#'
#' Januszewski, M. and Kostur, M. (2010) Accelerating numerical
#'   solution of stochastic differential equations with CUDA. *Computer
#'   Physics Communications* 181, 183-188. \doi{10.1016/j.cpc.2009.09.009}
#'
#' Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer
#'   Physics Communications* 187, 162-174. \doi{10.1016/j.cpc.2014.10.016}
#'
#' Bernaschi, M., Bisson, M., Fatica, M., Marinari, E., Martin-Mayor, V.,
#'   Parisi, G. and Ricci-Tersenghi, F. (2021) How we are leading a 3-XORSAT
#'   challenge: from the energy landscape to the algorithm and its efficient
#'   implementation on GPUs. *EPL* 133, 60005.
#'   \doi{10.1209/0295-5075/133/60005}
#'
#' Rocha Filho, T. M. (2014) Molecular dynamics for long-range interacting
#'   systems on graphic processing units. *Computer Physics Communications*
#'   185, 1364-1369. \doi{10.1016/j.cpc.2014.01.008}
#'
#' @useDynLib statphysgpu, .registration = TRUE, .fixes = "C_"
#' @importFrom cli cli_progress_bar
#' @importFrom rlang abort
#' @keywords internal
"_PACKAGE"
