#' Diffusion Monte Carlo of liquid helium-4: the exact bosonic ground state
#'
#' Importance-sampled diffusion Monte Carlo (DMC) of \eqn{N} helium-4 atoms
#' in a cubic periodic box with the Aziz HFD-B(HE) potential
#' ([aziz_potential()]), guided by the McMillan-Jastrow trial function of
#' [he4_vmc()], \eqn{\psi = \exp(U)}, \eqn{U = \sum_{i<j} u(r_{ij})} (or
#' its bounded variant, `guide = "bounded"`: see Guides). Its
#' energy converges to the exact ground-state energy as the time step and
#' the population bias go to zero (the mixed estimator of \eqn{H} is exact),
#' some 2 K per atom below the variational energy of [he4_vmc()].
#'
#' **The walk.** A population of walkers (configurations \eqn{R} of the
#' \eqn{N} atoms) is advanced in imaginary time by `dt` (in K\eqn{^{-1}})
#' per generation. Every atom of a walker moves at once by the drift and a
#' diffusion, \eqn{R' = R + a\nabla U(R) + \sqrt{a}\,\xi} with \eqn{a =
#' (\hbar^2/m)\,dt = 2D\,dt} (\eqn{D\,dt\,F} with the quantum force \eqn{F =
#' 2\nabla\ln\psi}) and \eqn{\xi} standard normals. With `accept = TRUE`
#' (default) the move is accepted with the Metropolis probability of the
#' short-time Green's functions, \eqn{p = \min(1, \psi(R')^2 G(R \leftarrow
#' R') / (\psi(R)^2 G(R' \leftarrow R)))}, \eqn{G(R' \leftarrow R) \propto
#' \exp(-|R' - R - a\nabla U(R)|^2 / (2a))} (Reynolds et al. 1982; Umrigar,
#' Nightingale and Runge 1993), which makes the walk sample \eqn{\psi^2}
#' exactly when the branching is off and reduces the time-step error;
#' `accept = FALSE` is the plain algorithm (\eqn{p = 1}). The walker's
#' weight is multiplied by \eqn{w = \exp(-N\,\tau\,((e + e_p)/2 - e_T))}, with
#' \eqn{e} and \eqn{e'} the local energies per atom before and after the
#' move, \eqn{e_p = p e' + (1-p) e} (the expected energy after the move, as
#' Umrigar et al. take it) and \eqn{e_T} the trial energy per atom; with
#' `drift_limit` (default) the drifts are limited and the energies in the
#' weight scaled as Umrigar et al. do (see the argument), and with
#' `energy_cut` (default) they are limited to \eqn{e_{ref} \pm \kappa
#' \sqrt{\sigma_E/\tau}/N} (see the argument), so that no walker near a
#' contact multiplies without bound. The weights' time
#' step \eqn{\tau} is the effective time step of the accept/reject walk
#' (`effective_step = TRUE`, default; Umrigar et al.'s \eqn{\tau_{eff}}):
#' `dt` times the accepted share of the diffusion's squared displacement,
#' \eqn{\sum p|\xi|^2 / \sum |\xi|^2} over the population's moves so far
#' (\eqn{\xi} a move's \eqn{3N} normals). A rejected move of every atom
#' diffuses by nothing, so the walk projects by about \eqn{p\,dt} a
#' generation; weights over `dt` instead would weigh the local energy's
#' fluctuations by \eqn{dt/\tau > 1} and give an energy too low, by a bias
#' that grows as the rejections do (about \eqn{dt^{3/2}}) and that a
#' quadratic extrapolation in `dt` does not remove. The state's
#' `r2_accepted` and `r2_proposed` hold the sums (continued with the
#' population).
#'
#' **Branching and population control.** With `branching = TRUE` each
#' walker of weight \eqn{W} is replaced, every generation, by
#' \eqn{\lfloor W + u \rfloor} copies of weight 1 (\eqn{u} uniform, at most
#' 8 copies), the copies of walker \eqn{k} taking the next free places in
#' walker order (a prefix sum), so that the walkers' order, and hence their
#' random numbers, follow from the branching history alone. The trial
#' energy holds the population \eqn{P} near `target_population`:
#' \eqn{e_T = e_{ref} - \ln(P / P_{target}) / (N\,t_f)}, where \eqn{t_f} is
#' `feedback_time` (in K\eqn{^{-1}}: the population relaxes to its target
#' over that imaginary time, whatever `dt`), and \eqn{e_{ref}} follows the
#' generations' energy estimates: during `equilibration` it is each
#' generation's weighted mean of the energies that the weights use (limited
#' by `drift_limit` and `energy_cut`), then it relaxes towards the
#' estimates with time constant \eqn{t_f}. (Before issue 52's fix it relaxed
#' in the equilibration too: the walkers' energy falls there from the VMC
#' value by some 1.2-2 K per atom in about 0.05 K\eqn{^{-1}}, and the lag
#' of \eqn{e_{ref}} raised \eqn{\ln(P/P_{target})} by about \eqn{N t_f}
#' times it, past \eqn{\ln 2} at \eqn{N \ge 108}: walkers were dropped in
#' every default run there.) A population holds at most
#' \eqn{\max(2P_{target}, P_{target} + 64)} walkers (and at least
#' `walkers`); copies past that are dropped, counted (the state's
#' `overflow`) and reported by a warning of class
#' `statphysgpu_dmc_overflow`. With `branching = FALSE` no walker is born or killed: the
#' weights accumulate (the trial energy then holds their sum near the
#' target) -- the walk of each walker is then fixed by its own random
#' numbers, which is how the tests compare engines walker by walker.
#'
#' **Estimator, and no population-control bias.** A generation's mixed
#' estimate is \eqn{\sum_k W_k e_{p,k} / \sum_k W_k} over the walkers, with
#' the weights after the move. The trial energy that holds the population
#' follows the population's own fluctuations, and that feedback biases the
#' plain estimate (by about \eqn{1/P}, more at larger \eqn{N}). Umrigar,
#' Nightingale and Runge (1993) undo it: generation \eqn{g} is weighted by
#' \eqn{\Pi_g = \prod_{i=0}^{T_p-1} \exp(-N\tau_{g-i}(e_T(g-i) -
#' e_{best}))}, the product of the trial energy's factors over the last
#' \eqn{T_p} generations (\eqn{e_{best}} a constant, the reference energy at
#' the start of the records), and a block's energy is \eqn{\sum_g \Pi_g
#' \sum_k W_k e_{p,k} / \sum_g \Pi_g \sum_k W_k} over its `block_steps`
#' generations (column `energy`; `energy_raw` is the plain estimate). The
#' run's energy is the same ratio over all its generations: the blocks
#' weighted by their reweighted weight (column `rw_weight`, the mean of
#' \eqn{\Pi_g \sum_k W_k}), not their plain mean -- \eqn{\Pi_g} varies
#' over the window, mostly longer than a block, and a plain mean of the
#' blocks undoes most of the reweighting. [summary.dmc_blocks()] pools the
#' populations into one ratio (column `rw_time`, the window's \eqn{N \sum
#' \tau}, puts their factors on one \eqn{e_{best}}) and takes its error
#' from the ratio's linearisation, or, where larger, from the blocks' spread
#' and their weights' effective number (see [summary.dmc_blocks()]). The population-control bias left falls
#' as the window \eqn{T_p\,dt} = `reweight_time` grows past the correlation
#' time of the population's energy and the feedback time; the weights'
#' spread grows with it (as the window over the population), and with it
#' the bias of the ratio itself, of order the correction over the number of
#' independent windows of all populations: at \eqn{N = 32}, `dt` = 0.002,
#' 24 walkers, 16 populations of 1.3 K\eqn{^{-1}}, the energy with a
#' window of 0.2 K\eqn{^{-1}} agrees with that of 200 walkers (the
#' unweighted one lies 0.1 K above), with 0.5 K\eqn{^{-1}} it lies some
#' 0.03 K above. With small populations take a shorter window, more
#' populations or longer runs. The window starts empty at the first
#' recorded generation (the equilibration's trial energy, which follows
#' each generation's estimate, would weight the first records by that
#' estimate's noise) and its factors continue with the population (the
#' state's `hist`). The potential and kinetic parts are
#' reweighted mixed estimates too (biased: they do not commute with
#' \eqn{H}); the energy is not.
#'
#' **Guides.** `guide = "mcmillan"` (default) is the trial function of
#' [he4_vmc()]; its local energy is unbounded below where two atoms meet
#' (the kinetic term goes as \eqn{-r^{-12}}, the Aziz core stays finite).
#' `guide = "bounded"` replaces McMillan's \eqn{u(r) = -(b/r)^5/2} inside
#' \eqn{r_j = 0.72\,b} (2.2 Å at \eqn{b = 3.07} Å) by the even quartic
#' \eqn{c_0 + c_1 r^2 + c_2 r^4} that meets it with value, slope and
#' curvature at \eqn{r_j}: \eqn{\psi}, the drift and the local energy stay
#' continuous, and the local energy bounded (\eqn{u'(0) = 0}); the image
#' term of the symmetrised form is McMillan's in both. (This is a smooth
#' regularisation of McMillan's core, not the two-body solution joined at
#' short range.) For bosons any positive guide gives the same ground-state
#' energy; the bounded one changes the variance and the walkers' visits to
#' short distances, not the answer.
#'
#' **Random numbers, populations and chunks.** The walker in place \eqn{k}
#' of population \eqn{q} at generation \eqn{g} draws from Philox stream
#' \eqn{(q - 1) 2^{40} + k - 1} (purpose `SP_PURPOSE_DMC_MOVE`), so a
#' population's history depends only on the seed and its number, never on
#' threads, devices or chunks: `populations` independent populations run in
#' one call, and populations run elsewhere with their own
#' `first_population` (and the same seed) combine with [rbind()].
#'
#' **Biases.** The energy has a time-step bias (linear in `dt`, smaller
#' with the accept/reject step) and, without the reweighting, a
#' population-control bias (about \eqn{1/P}, growing with \eqn{N}; before
#' issue 52 the feedback was applied per generation, so that it grew
#' stronger per unit imaginary time as `dt` shrank, and E/N at \eqn{N = 64}
#' kept falling with `dt`, to \eqn{-7.34} K with the tail). With the
#' reweighting the energy at a fixed `dt` does not depend on the population
#' or on `feedback_time` within its errors (tests at \eqn{N = 32};
#' `bench/he4-dmc-bias.R` at \eqn{N} = 64 to 256); [he4_dmc_extrapolate()]
#' takes the limit \eqn{dt \to 0} from several runs (with `population =
#' FALSE`, as nothing is left to extrapolate in \eqn{1/P}).
#'
#' **A known answer.** Two atoms in a periodic box have a ground state that
#' a three-dimensional eigenproblem gives exactly (the script
#' `system.file("scripts", "he4-two-atoms-exact.R", package = "statphysgpu")`:
#' \eqn{E/N = -0.1944873} K at \eqn{L = 8} Å, \eqn{-0.3168004} K at 10 Å).
#' The walk reaches it from above within 1 to 2.5 mK per atom at `dt` =
#' 0.000125 (the guide's VMC energy is 66 to 83 mK above).
#'
#' @section Time step: Every atom moves at once, so the acceptance of a move
#'   falls with \eqn{N} (its rejections grow as about \eqn{N\,dt^{3/2}}).
#'   Measured at the equilibrium density with \eqn{b = 3.07} Å: at \eqn{N =
#'   32}, acceptance 0.97, 0.93 and 0.84 at `dt` = 0.0005, 0.001 and 0.002
#'   K\eqn{^{-1}}; from about 0.004 K\eqn{^{-1}} (\eqn{N = 32}) walkers
#'   reach the pairs at short distance where the guide's local energy
#'   diverges (the drift limit delays, but does not stop, the population's
#'   blow-up there: the summary then reports walkers dropped at the
#'   capacity). Choose `dt` for an acceptance of 0.9 or more (at \eqn{N =
#'   256} about 0.0003 K\eqn{^{-1}}) and extrapolate over a factor of four
#'   in `dt`. The imaginary time of a run is `dt` times its generations;
#'   give the projection at least 0.5 K\eqn{^{-1}} of `equilibration`.
#'   Below an acceptance of 0.01 (at \eqn{N = 64} from about `dt` = 0.05,
#'   where it falls to \eqn{10^{-17}}) a walker moves less than once in a
#'   hundred generations: the energies are those of the walkers' start, not
#'   estimates, and a warning of class `statphysgpu_frozen_walkers`, the
#'   result's attribute `frozen` and `print()` and `summary()` say so (see
#'   [he4_vmc()], Frozen walkers).
#' @param n Number of atoms \eqn{N} (at least 2).
#' @param density Number density in \eqn{\text{\AA}^{-3}} (0.02186: the
#'   equilibrium density of the liquid).
#' @param b McMillan parameter of the guide in \eqn{\text{\AA}}.
#' @param dt Imaginary time step in K\eqn{^{-1}}.
#' @param walkers The walkers' starting population (per population): the
#'   branching walkers of one population, not independent replicas (the
#'   independent copies are `populations`). Called `replicas` in earlier
#'   versions: `replicas` still works, with a warning of class
#'   `statphysgpu_deprecated`.
#' @param replicas Deprecated: the old name of `walkers`.
#' @param blocks Blocks per population.
#' @param block_steps Generations per block.
#' @param target_population The population that population control aims at
#'   (by default `walkers`), at most \eqn{2^{30} - 32} (a population holds
#'   up to twice its target). The memory the walkers need (about \eqn{240 n}
#'   bytes a walker on the CPU, \eqn{96 n} on the GPU's host side, for twice
#'   the target or `walkers`, whichever is larger) is checked before
#'   anything is allocated: a run that cannot fit fails with the estimate and
#'   the argument to change.
#' @param equilibration Generations before the first block, not recorded.
#' @param populations Independent populations of this call.
#' @param feedback The older, per-generation form of `feedback_time`: when
#'   given (and `feedback_time` is not), `feedback_time = dt / feedback`
#'   (`feedback = 0`: `Inf`, no feedback). A feedback per generation grows
#'   stronger per unit imaginary time as `dt` shrinks; give `feedback_time`.
#' @param drift_limit \eqn{A} of Umrigar, Nightingale and Runge's limit on
#'   the drift of each atom: its drift \eqn{a\nabla_i U} is multiplied by
#'   \eqn{f = (\sqrt{1 + 2x} - 1)/x}, \eqn{x = A\,a|\nabla_i U|^2} (the
#'   drift's square in units of the diffusion's variance \eqn{a}: it stays
#'   below \eqn{\sqrt{2/A}} diffusion lengths), and the local energy in the weights is scaled,
#'   \eqn{E_{ref} - (E_{ref} - E_L)|\bar v|/|v|} (\eqn{|\bar v|/|v|} the
#'   ratio of the limited to the full drift over all atoms); both tend to
#'   the unlimited walk as `dt` goes to 0. 0: no limit. The McMillan
#'   guide's local energy is unbounded below where two atoms meet (its
#'   kinetic term goes as \eqn{-r^{-12}}, the Aziz core stays finite) and
#'   its drift diverges there: without the limit a walker that comes close
#'   multiplies without bound at any usable time step.
#' @param energy_cut \eqn{\kappa} of the limit on the (drift-scaled) local
#'   energies in the branching weight, as Umrigar, Nightingale and Runge
#'   bound them: \eqn{|E - E_{ref}| \le \kappa\sqrt{\sigma_E/\tau}} for the
#'   walker's energy \eqn{E} (K), with \eqn{\sigma_E} the spread of the
#'   walkers' local energy (a running estimate, relaxing as \eqn{e_{ref}}
#'   does) and \eqn{\tau} the weights' time step: a multiple
#'   \eqn{\kappa/\sqrt{\sigma_E\tau}} of the spread, which grows without
#'   bound as `dt` goes to 0 (no bias left), while a generation's weight
#'   factor stays below \eqn{\exp(\kappa\sqrt{\sigma_E\tau})}. Default 2
#'   (at \eqn{N = 32}, `dt` = 0.002: some 6 \eqn{\sigma_E}). `0` or `Inf`:
#'   no limit. (Before issue 52: \eqn{\alpha} of \eqn{\alpha\sqrt{N/dt}},
#'   default none.)
#' @param accept Use the Metropolis accept/reject step.
#' @param effective_step Weigh (and control the population) over the
#'   effective time step of the walk, `dt` times the accepted share of the
#'   squared diffusion (see Details); `FALSE`: over `dt` (as the development
#'   versions before this argument did; biased low where moves are
#'   rejected).
#' @param branching Branch (births and deaths); `FALSE`: weights only.
#' @param jastrow `"symmetrized"` (default) or `"truncated"`, as in
#'   [he4_vmc()].
#' @param init `NULL` (walkers start from an fcc lattice; give them
#'   `equilibration`), a result of [he4_vmc()] (one condition) whose final
#'   walkers start the populations (walker \eqn{j} of population \eqn{q} is
#'   VMC walker \eqn{((q - 1) r + j - 1) \bmod W + 1} of the \eqn{W}, with
#'   \eqn{r} = `walkers`; `n`, `density`, `b` and `jastrow` default to
#'   its), or a previous result of `he4_dmc()`, which continues every
#'   population exactly (its seed, and its parameters unless given). What
#'   is read of either -- its attributes `params` and `state` (and
#'   `precision` of a VMC result) -- is sealed when it is made: a result in
#'   which any of them was changed afterwards, or that has no seal, is
#'   refused with an error of class `statphysgpu_modified_result`.
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#' @param first_population Number of the first population of this call
#'   (chunks).
#' @param backend `"auto"`, `"cpu"` or `"gpu"` (see [sp_backends()]);
#'   `"auto"` takes the GPU from about \eqn{10^{10}} pair evaluations. On the
#'   GPU a walker is a warp with its proposal in shared memory (at most 682
#'   atoms); a generation is five launches (moves; the population's sums,
#'   prefix sums of the copies and trial energy; copies; buffer switch;
#'   saves) with no copy to the host between generations.
#' @param devices GPU ids, see [gpu_devices()]. Devices share the
#'   populations (equal contiguous parts): several devices need as many
#'   populations.
#' @param progress Show a progress bar.
#' @param feedback_time The population control's time constant \eqn{t_f}
#'   in K\eqn{^{-1}} (imaginary time; see Details); `Inf`: no feedback on
#'   the population (it drifts freely; \eqn{e_{ref}} still follows the
#'   estimates, with time constant 0.02).
#' @param reweight_time The window \eqn{T_p\,dt} (K\eqn{^{-1}}) of the
#'   reweighting that removes the population-control bias: the product of
#'   the trial energy's factors over the last \eqn{T_p} = `ceiling(reweight_time
#'   / dt)` generations (see Details; 0: one generation). Choose it some
#'   times the autocorrelation time of the energy (the summary's `tau_int`
#'   of the energy times `block_steps` times `dt`; `print(summary())` shows
#'   both) and of `feedback_time`.
#' @param guide `"mcmillan"` (default) or `"bounded"`: see Guides.
#' @param potential The pair potential: `"aziz"` (default; HFD-B(HE),
#'   [aziz_potential()]) or `"lennard-jones"`, \eqn{V(r) = 4\epsilon
#'   ((\sigma/r)^{12} - (\sigma/r)^6)} with `lj_epsilon` and `lj_sigma`
#'   (the de Boer-Michels helium of McMillan (1965) and of the Green's
#'   function Monte Carlo of Kalos, Lee, Whitlock and Chester (1981)): a
#'   simpler Hamiltonian with published exact energies, to separate the
#'   engine from the reference (issue 52). The guide and everything else
#'   are the same; the attribute `tail_correction` is then the
#'   Lennard-Jones one, \eqn{8\pi\rho\epsilon\sigma^3 (x^9/9 - x^3/3)},
#'   \eqn{x = 2\sigma/L}. The local energy of either guide is unbounded
#'   below at contact with it (the \eqn{r^{-12}} core; `guide = "bounded"`
#'   bounds only the kinetic part).
#' @param lj_epsilon,lj_sigma \eqn{\epsilon} (K) and \eqn{\sigma} (Å)
#'   of `potential = "lennard-jones"` (default 10.22 K and 2.556 Å, de Boer
#'   and Michels); ignored for `"aziz"`.
#' @return An object of class `dmc_blocks`: a data frame with one row per
#'   finished (population, block) and columns `replica` (the population),
#'   `block`, `energy` (\eqn{E/N} in K, mixed estimator, reweighted),
#'   `potential`, `kinetic` (reweighted), `population` (mean over the
#'   block's generations), `trial_energy`, `acceptance`, `weight` (mean
#'   total weight), `energy_raw` (the estimate without the reweighting),
#'   `rw_weight` (the block's reweighted weight: the mean over its
#'   generations of \eqn{\Pi_g \sum_k W_k}) and `rw_time` (the mean of the
#'   window's \eqn{N \sum \tau}); with
#'   attributes `params` (the settings; `walkers` the starting population,
#'   also under its old name `replicas`, deprecated, for one release),
#'   `tail_correction` (per atom, reported apart, as
#'   for [he4_vmc()]), `state` (the populations, for `init`), `frozen`
#'   (`TRUE` when the mean acceptance is below 0.01: see Time step),
#'   `sealed`, `seed`, `seed_hex`, `backend`, `devices`, `seconds` and
#'   `interrupted`.
#' @references Reynolds, P. J., Ceperley, D. M., Alder, B. J. and Lester,
#'   W. A. (1982) *J. Chem. Phys.* 77, 5593. Kalos, M. H., Lee, M. A.,
#'   Whitlock, P. A. and Chester, G. V. (1981) *Phys. Rev. B* 24, 115. Umrigar, C. J., Nightingale,
#'   M. P. and Runge, K. J. (1993) *J. Chem. Phys.* 99, 2865. Boronat, J.
#'   and Casulleras, J. (1994) *Phys. Rev. B* 49, 8920.
#' @seealso [he4_vmc()], [summary.dmc_blocks()], [he4_dmc_extrapolate()].
#' @examples
#' v <- he4_vmc(32, replicas = 4, blocks = 2, block_sweeps = 20,
#'              equilibration = 50, seed = 1, backend = "cpu")
#' d <- he4_dmc(dt = 0.002, walkers = 40, blocks = 4, block_steps = 10,
#'              equilibration = 10, init = v, seed = 2, backend = "cpu")
#' summary(d)
#' # continue the same populations
#' d2 <- he4_dmc(blocks = 2, block_steps = 10, equilibration = 0, init = d,
#'               backend = "cpu")
#' @export
he4_dmc <- function(n = 64, density = 0.02186, b = 3.07, dt = 0.001, walkers = 256,
                    blocks = 20, block_steps = 50, target_population = walkers,
                    equilibration = 100, populations = 1, feedback = 0.1, drift_limit = 0.5,
                    energy_cut = 2,
                    accept = TRUE, effective_step = TRUE,
                    branching = TRUE, jastrow = c("symmetrized", "truncated"), init = NULL,
                    seed = NULL, first_population = 1, backend = "auto", devices = NULL,
                    progress = interactive(), feedback_time = 0.02, reweight_time = 0.5,
                    guide = c("mcmillan", "bounded"),
                    potential = c("aziz", "lennard-jones"), lj_epsilon = 10.22,
                    lj_sigma = 2.556, replicas) {
  call <- sys.call()
  sp_renamed_args(c(replicas = "walkers"), "he4_dmc")
  replicas <- walkers # (the engine's name for them below)
  target_default <- missing(target_population)
  # `feedback` (per generation) is the older form of `feedback_time`
  if (!missing(feedback) && missing(feedback_time)) {
    feedback <- check_range(feedback, "feedback", lo = 0, hi = 10, len = 1, call = call)
    dt0 <- if (missing(dt) && inherits(init, "dmc_blocks")) attr(init, "params")$dt else dt
    feedback_time <- if (feedback > 0) check_positive(dt0, "dt", len = 1, call = call) / feedback
                     else Inf
  }
  cont <- NULL
  from_vmc <- NULL
  if (!is.null(init)) {
    if (inherits(init, "dmc_blocks")) {
      sp_check_seal(init, "he4_dmc()", call, DMC_SEALED)
      cont <- attr(init, "state")
      p <- attr(init, "params")
      if (is.null(cont) || is.null(p)) {
        sp_abort("`init` holds no populations' state; continue an unmodified result.",
                 call = call)
      }
      if (is.null(p$feedback_time) && !is.null(p$feedback)) { # a result of an older version
        p$feedback_time <- if (p$feedback > 0) p$dt / p$feedback else Inf
      }
      dmc_defaults_from(p, c("n", "density", "b", "jastrow", "dt", "target_population",
                             "feedback_time", "reweight_time", "guide", "energy_cut",
                             "drift_limit", "accept", "branching", "effective_step",
                             "potential", "lj_epsilon", "lj_sigma"))
    } else if (inherits(init, "vmc_blocks")) {
      sp_check_seal(init, "he4_vmc()", call, VMC_SEALED)
      p <- vmc_params(init)
      if (length(p$density) * length(p$b) != 1) {
        sp_abort("`init` must be a he4_vmc() result of one condition (one density and b).",
                 call = call)
      }
      dmc_defaults_from(p, c("n", "density", "b", "jastrow"))
      from_vmc <- p
    } else {
      sp_abort(paste0("`init` must be NULL, a result of he4_vmc() or of he4_dmc(), not ",
                      describe(init), "."), call = call)
    }
  }
  n <- check_whole(n, "n", lo = 2, hi = 2^20, call = call)
  density <- check_positive(density, "density", len = 1, call = call)
  he4_check_density(density, call)
  b <- check_positive(b, "b", len = 1, call = call)
  jastrow <- check_choice(jastrow, c("symmetrized", "truncated"), "jastrow", call = call)
  dt <- check_positive(dt, "dt", len = 1, call = call)
  blocks <- check_whole(blocks, "blocks", lo = 1, hi = 2^31 - 1, call = call)
  block_steps <- check_whole(block_steps, "block_steps", lo = 1, hi = 2^40, call = call)
  equilibration <- check_whole(equilibration, "equilibration", lo = 0, hi = 2^40, call = call)
  feedback <- check_range(feedback, "feedback", lo = 0, hi = 10, len = 1, call = call)
  if (!identical(feedback_time, Inf)) {
    feedback_time <- check_positive(feedback_time, "feedback_time", len = 1, call = call)
  }
  reweight_time <- check_range(reweight_time, "reweight_time", lo = 0, len = 1, call = call)
  guide <- check_choice(guide, c("mcmillan", "bounded"), "guide", call = call)
  potential <- check_choice(potential, c("aziz", "lennard-jones"), "potential", call = call)
  lj_epsilon <- check_positive(lj_epsilon, "lj_epsilon", len = 1, call = call)
  lj_sigma <- check_positive(lj_sigma, "lj_sigma", len = 1, call = call)
  reweight <- max(1, ceiling(reweight_time / dt - 1e-9))
  if (reweight > 2^24) {
    sp_abort(sprintf(paste0(
      "`reweight_time` / `dt` = %s generations is more than the reweighting keeps (2^24); ",
      "use a shorter `reweight_time` or a larger `dt`."), fmt_count(reweight)), call = call)
  }
  drift_limit <- check_range(drift_limit, "drift_limit", lo = 0, len = 1, call = call)
  if (!identical(energy_cut, Inf)) {
    energy_cut <- check_range(energy_cut, "energy_cut", lo = 0, len = 1, call = call)
  }
  accept <- check_flag(accept, "accept", call = call)
  branching <- check_flag(branching, "branching", call = call)
  effective_step <- check_flag(effective_step, "effective_step", call = call)
  # `init` (a VMC result or a DMC state) describes the same system
  same_system <- function(q, lead, what) {
    if (!isTRUE(all.equal(c(q$n, q$density, q$b), c(n, density, b))) ||
        !identical(q$jastrow, jastrow)) {
      sp_abort(sprintf("`init` %s n = %s, density = %s, b = %s, jastrow = \"%s\"; %s", lead,
                       fmt_num(q$n), format(q$density), format(q$b), q$jastrow, what),
               call = call)
    }
  }
  if (!is.null(from_vmc)) {
    same_system(from_vmc, "(a he4_vmc() result) has", "start the DMC with the same values.")
  }
  L <- (n / density)^(1 / 3)
  if (L / 2 <= HE4_CORE) {
    sp_abort(sprintf(paste0(
      "the box is too small: side L = %.4g A puts the cut L/2 inside the core of ",
      "the potential; use more atoms or a lower density."), L), call = call)
  }
  if (guide == "bounded" && HE4_GUIDE_JOIN * b >= L / 2) {
    sp_abort(sprintf(paste0(
      "the bounded guide's core (r < %.3g A) reaches the cut L/2 = %.4g A; use more atoms, ",
      "a lower density or `guide = \"mcmillan\"`."), HE4_GUIDE_JOIN * b, L / 2), call = call)
  }
  if (!is.null(cont)) {
    same_system(attr(init, "params"), "was run with",
                "continue it with the same values (leave them out).")
    q <- attr(init, "params")
    q_pot <- c(if (is.null(q$potential)) "aziz" else q$potential,
               if (is.null(q$lj_epsilon)) 10.22 else q$lj_epsilon,
               if (is.null(q$lj_sigma)) 2.556 else q$lj_sigma)
    if (!identical(q_pot[1], potential) ||
        (potential == "lennard-jones" &&
         !isTRUE(all.equal(as.numeric(q_pot[2:3]), c(lj_epsilon, lj_sigma))))) {
      sp_abort(sprintf(paste0(
        "`init` was run with potential = \"%s\" (lj_epsilon = %s, lj_sigma = %s); continue ",
        "it with the same potential (leave `potential`, `lj_epsilon` and `lj_sigma` out)."),
        q_pot[1], q_pot[2], q_pot[3]), call = call)
    }
    cont <- dmc_check_state(cont, n, L, call)
    if (!is.null(seed) && !identical(resolve_seed(seed, call = call),
                                     resolve_seed(cont$seed_hex, call = call))) {
      sp_abort("`seed` differs from the seed of `init`; leave it NULL to continue.",
               call = call)
    }
    seed <- cont$seed_hex
    populations <- length(cont$population)
    first_population <- cont$population[1]
    replicas <- max(cont$size)
  }
  replicas <- check_whole(replicas, "walkers", lo = 1, hi = 2^30, call = call)
  target_population <- check_positive(target_population, "target_population", len = 1,
                                      call = call)
  if (target_population > 2^30 - 32) {
    sp_abort(sprintf(paste0(
      "`target_population` (%s) must be at most 2^30 - 32 = %s: a population holds up to ",
      "twice its target, and its walkers are counted in 31 bits; use a smaller ",
      "`target_population` (and more `populations` for more walkers in all)."),
      format(target_population), fmt_count(2^30 - 32)), call = call)
  }
  populations <- check_whole(populations, "populations", lo = 1, hi = 2^24, call = call)
  cap <- dmc_capacity(target_population, replicas)
  if (populations * cap > 2^31 - 1) {
    sp_abort("`populations` x the capacity of a population passes 2^31 - 1 walkers.",
             call = call)
  }
  steps <- equilibration + blocks * block_steps
  plan <- resolve_backend(backend, devices,
                          work = n^2 * target_population * populations * steps,
                          auto_threshold = 1e10, call = call)
  if (plan$backend == "gpu" && 72 * n > 48 * 1024) {
    sp_abort(sprintf(paste0(
      "on the GPU a walker keeps its proposal (coordinates, displacements, drift: 9 n ",
      "doubles) in shared memory: at most 682 atoms, not %s; use backend = \"cpu\"."),
      fmt_count(n)), call = call)
  }
  fr <- sim_frame(call, n = populations, first = first_population, seed = seed,
                  backend = plan$backend, devices = if (plan$backend == "gpu") plan$devices,
                  progress = progress, groups = blocks, row_bytes = 13 * 8,
                  n_name = "populations", first_name = "first_population",
                  max_replicas = 2^24)
  npop <- fr$n
  slots <- npop * cap
  dmc_check_memory(n, npop, cap, replicas, target_population, target_default && is.null(cont),
                   fr$plan$backend, call)
  coords <- array(0, c(3, n, slots))
  weight <- rep(0, slots)
  pop <- matrix(0, SP_DMC_POPVARS, npop) # e_trial, e_ref, gen, size, overflow, r2 sums,
                                         # e_best, sigma2, rw_a, rw_b
  hist <- matrix(0, 2 * reweight, npop)  # the reweighting's rings
  blocks_before <- rep(0, npop)
  overflow_before <- 0
  if (!is.null(cont)) {
    for (q in seq_len(npop)) {
      k <- seq_len(cont$size[q])
      coords[, , (q - 1) * cap + k] <- cont$coords[[q]]
      weight[(q - 1) * cap + k] <- cont$weight[[q]]
      ring <- dmc_ring(cont$hist[[q]], cont$reweight, cont$gen[q], reweight)
      hist[, q] <- ring
      pop[, q] <- c(cont$e_trial[q], cont$e_ref[q], cont$gen[q], cont$size[q],
                    cont$overflow[q], cont$r2_accepted[q], cont$r2_proposed[q],
                    cont$e_best[q], cont$sigma2[q], sum(ring[seq_len(reweight)]),
                    sum(ring[reweight + seq_len(reweight)]))
      if (identical(as.numeric(reweight), as.numeric(cont$reweight))) pop[10:11, q] <- c(cont$rw_a[q], cont$rw_b[q])
    }
    blocks_before <- cont$blocks
    overflow_before <- sum(cont$overflow)
  } else {
    w0 <- (fr$first - 1) * replicas
    if (is.null(from_vmc)) {
      start <- array(.Call(C_sp_r_vmc_lattice, as.integer(n), as.double(L), fr$seed,
                           check_u64(w0, "first_population", call = call),
                           as.integer(npop * replicas)), c(3, n, npop * replicas))
      pick <- seq_len(npop * replicas)
    } else {
      start <- vmc_state(attr(init, "state"))$coords
      nw <- dim(start)[3]
      pick <- ((w0 + seq_len(npop * replicas) - 1) %% nw) + 1
    }
    for (q in seq_len(npop)) {
      k <- seq_len(replicas)
      coords[, , (q - 1) * cap + k] <- start[, , pick[(q - 1) * replicas + k]]
      weight[(q - 1) * cap + k] <- 1
      pop[, q] <- c(NaN, NaN, 0, replicas, 0, 0, 0, NaN, NaN, 0, 0)
    }
  }
  form <- if (jastrow == "symmetrized") 2 else 1 # SP_HE4_JASTROW_* (he4_args.h)
  core <- if (guide == "bounded") he4_guide_core(b, HE4_GUIDE_JOIN * b) else c(0, 0, 0, 0)
  res <- sim_run(fr, "dmc", b = b, L = L, form = form, n = as.integer(n),
                 npop = as.integer(npop), cap = as.integer(cap),
                 pop0 = check_u64(fr$first - 1, "first_population", call = call),
                 seed = fr$seed, dt = dt, target = target_population,
                 feedback = if (is.finite(feedback_time)) 1 / feedback_time else 0,
                 ref_time = if (is.finite(feedback_time)) feedback_time else 0.02,
                 equilibration = equilibration, blocks = blocks, block_steps = block_steps,
                 branching = as.integer(branching), accept = as.integer(accept),
                 energy_cut = if (is.finite(energy_cut)) energy_cut else 0,
                 drift_limit = drift_limit, effective_step = as.integer(effective_step),
                 reweight = as.integer(reweight), guide = as.integer(guide == "bounded"),
                 guide_rj2 = core[1], guide_c0 = core[2], guide_c1 = core[3],
                 guide_c2 = core[4], potential = as.integer(potential == "lennard-jones"),
                 lj_eps = lj_epsilon, lj_sigma = lj_sigma,
                 coords0 = coords, weight0 = weight, pop_state0 = as.double(pop),
                 hist0 = as.double(hist), kernel = "he4_dmc", variant = "double")
  ids <- fr$first - 1 + seq_len(npop)
  out <- dmc_blocks_frame(res, ids, blocks, blocks_before)
  attr(out, "params") <- list(n = n, density = density, b = b, L = L, jastrow = jastrow,
                              dt = dt, target_population = target_population,
                              feedback = if (is.finite(feedback_time)) dt / feedback_time else 0,
                              feedback_time = feedback_time, reweight_time = reweight_time,
                              reweight = reweight, guide = guide, energy_cut = energy_cut,
                              potential = potential, lj_epsilon = lj_epsilon,
                              lj_sigma = lj_sigma,
                              drift_limit = drift_limit, accept = accept,
                              branching = branching, effective_step = effective_step,
                              block_steps = block_steps, equilibration = equilibration,
                              walkers = replicas, replicas = replicas)
  attr(out, "tail_correction") <- if (potential == "aziz") he4_tail_correction(density, L)
                                  else lj_tail_correction(density, L, lj_epsilon, lj_sigma)
  attr(out, "state") <- dmc_state_list(res, ids, cap, n, blocks_before, fr$seed, reweight)
  attr(out, "init") <- if (!is.null(cont)) "continued" else if (!is.null(from_vmc)) "vmc"
                       else "lattice"
  # walkers that hardly move make no estimate (see ?he4_vmc, Frozen walkers)
  frozen <- he4_acceptance(out$acceptance, rep(1, nrow(out)), 1)
  attr(out, "frozen") <- frozen$frozen
  out <- sim_result(out, fr, res, class = c("dmc_blocks", "data.frame"),
             unfinished = paste0(
               "the finished blocks are returned; each population's state is that after ",
               "its last finished block, so `init = ` this result continues it exactly"))
  dropped <- sum(attr(out, "state")$overflow) - overflow_before
  if (dropped > 0) {
    sp_warn(sprintf(paste0(
      "%s walker%s dropped at a population's capacity (%s walkers): the population grew ",
      "past twice its target, and the energy is biased; use a smaller `dt`, a shorter ",
      "`feedback_time`, the limits `energy_cut` and `drift_limit`, or `guide = \"bounded\"`."),
      fmt_count(dropped), if (dropped == 1) " was" else "s were", fmt_count(cap)),
      call = call, class = "statphysgpu_dmc_overflow")
  }
  he4_warn_frozen(frozen, paste0(
    "use a smaller `dt` (a walker moves all its atoms at once, and the larger `dt` and ",
    "`n`, the less often such a move is accepted)"), call)
  sp_seal(out, DMC_SEALED)
}

# The tail correction per atom (K) of the Lennard-Jones potential 4 eps
# ((s/r)^12 - (s/r)^6) cut at rc = L/2, with g(r) = 1 beyond:
# 2 pi rho int_rc^Inf r^2 V(r) dr = 8 pi rho eps s^3 ((s/rc)^9 / 9 - (s/rc)^3 / 3).
lj_tail_correction <- function(density, L, epsilon, sigma) {
  x <- sigma / (L / 2)
  8 * pi * density * epsilon * sigma^3 * (x^9 / 9 - x^3 / 3)
}

# The fields of a he4_dmc() result that a continuation reads, sealed when
# the result is made (see sp_seal()): a result modified afterwards is refused.
DMC_SEALED <- c("params", "state")

# The arguments `args` that the caller of he4_dmc() left out, from the
# parameters `p` of its `init`.
dmc_defaults_from <- function(p, args, env = parent.frame()) {
  for (a in args) {
    if (eval(call("missing", as.name(a)), env) && !is.null(p[[a]])) assign(a, p[[a]], envir = env)
  }
  invisible()
}

# Entries of a population's state vector (sp_dmc.h SP_DMC_POPVARS).
SP_DMC_POPVARS <- 11
DMC_COLUMNS <- c("energy", "potential", "kinetic", "population", "trial_energy",
                 "acceptance", "weight", "energy_raw", "rw_weight", "rw_time")

# The bounded guide's join, r_j = HE4_GUIDE_JOIN b (2.2 A at b = 3.07 A).
HE4_GUIDE_JOIN <- 0.72

# The coefficients of the bounded guide's core (he4_dmc.h, sp_dmc_pair_terms):
# c(r_j^2, c0, c1, c2) of u = c0 + c1 r^2 + c2 r^4 for r < r_j, meeting
# McMillan's u = -(1/2)(b/r)^5 with its value, slope and curvature at r_j.
he4_guide_core <- function(b, rj) {
  s5 <- (b / rj)^5
  u0 <- -0.5 * s5
  u1 <- 2.5 * s5 / rj
  u2 <- -15 * s5 / rj^2
  c2 <- (u2 - u1 / rj) / (8 * rj^2)
  c1 <- (u1 / rj - 4 * c2 * rj^2) / 2
  c0 <- u0 - c1 * rj^2 - c2 * rj^4
  c(rj^2, c0, c1, c2)
}

# A population's reweighting ring (2 T_p values: N tau e_T, then N tau, of
# generation g at g mod T_p) of `old` T_p, after `gen` generations, laid
# out for `new` T_p: the last min(old, new) generations kept, older ones 0.
dmc_ring <- function(ring, old, gen, new) {
  if (is.null(ring) || is.null(old)) return(rep(0, 2 * new))
  if (old == new) return(ring)
  out <- rep(0, 2 * new)
  g <- gen - seq_len(min(old, new, gen))
  out[g %% new + 1] <- ring[g %% old + 1]
  out[new + g %% new + 1] <- ring[old + g %% old + 1]
  out
}

# The walkers a population can hold (he4_dmc()'s documentation).
dmc_capacity <- function(target, replicas) {
  as.integer(max(ceiling(2 * target), ceiling(target) + 64, replicas))
}

# The host memory of a run, checked before anything of its size is made: per
# walker slot (npop x cap of them) the coordinates in R (the job's, the
# engine's output, the result's state: 3 x 3n doubles) and the engine's
# host arrays: on the CPU 7 x 3n doubles and 18 more (src/core/sp_dmc.c), on
# the GPU the upload's 3n + 5 (src/gpu/sp_gpu_dmc.c); the
# starts (3n doubles a starting walker).  A run that cannot fit fails naming
# what makes it large: `walkers` (also the default target), or
# `target_population`.
dmc_check_memory <- function(n, npop, cap, replicas, target, target_default, backend, call) {
  slot <- 8 * (9 * n + 3) + if (backend == "cpu") 8 * (21 * n + 18) + 4 else 8 * (3 * n + 5)
  start <- 24 * n # a starting walker's coordinates
  need <- npop * cap * slot + npop * replicas * start
  avail <- available_memory()
  if (need <= avail) return(invisible(need))
  by_replicas <- !target_default && replicas >= 2 * target
  if (by_replicas) {
    what <- "`walkers`"
    fit <- sprintf("at most about %s fit", fmt_count(floor(avail / (npop * (slot + start)))))
  } else {
    what <- if (target_default) "`walkers` (and `target_population`, which defaults to it)"
            else "`target_population`"
    fit <- sprintf("a target of at most about %s fits",
                   fmt_count(floor(avail / (npop * (2 * slot + start)))))
  }
  sp_abort(sprintf(paste0(
    "%s population%s of up to %s walkers each (%s) of %s atoms would need up to about %s of ",
    "memory (%s bytes a walker%s), more than the %s available: use a smaller %s (%s), ",
    "fewer `populations` a call (chunks with `first_population` combine with rbind()), or ",
    "fewer atoms."),
    fmt_count(npop), if (npop == 1) "" else "s", fmt_count(cap),
    if (by_replicas) "`walkers`" else "twice the target population",
    fmt_count(n), fmt_bytes(need), fmt_count(slot),
    if (backend == "cpu") " on the CPU" else " on the host",
    fmt_bytes(avail), what, fit), call = call)
}

# The blocks table: population-major rows (population, block).
dmc_blocks_frame <- function(res, ids, blocks, blocks_before) {
  npop <- length(ids)
  m <- matrix(res$block, ncol = length(DMC_COLUMNS), byrow = TRUE)
  q <- rep(seq_len(npop), each = blocks)
  k <- rep(seq_len(blocks), times = npop)
  keep <- k <= res$done[q]
  out <- data.frame(replica = ids[q][keep], block = (blocks_before[q] + k)[keep])
  for (j in seq_along(DMC_COLUMNS)) out[[DMC_COLUMNS[j]]] <- m[keep, j]
  rownames(out) <- NULL
  out
}

# The populations' state after a run: per population its live walkers.
dmc_state_list <- function(res, ids, cap, n, blocks_before, seed, reweight) {
  npop <- length(ids)
  pop <- matrix(res$pop, nrow = SP_DMC_POPVARS)
  size <- pop[4, ]
  crd <- res$coords
  list(population = as.double(ids),
       coords = lapply(seq_len(npop), function(q) {
         crd[, , (q - 1) * cap + seq_len(size[q]), drop = FALSE]
       }),
       weight = lapply(seq_len(npop), function(q) res$weight[(q - 1) * cap + seq_len(size[q])]),
       size = size, e_trial = pop[1, ], e_ref = pop[2, ], gen = pop[3, ], overflow = pop[5, ],
       r2_accepted = pop[6, ], r2_proposed = pop[7, ], e_best = pop[8, ], sigma2 = pop[9, ],
       rw_a = pop[10, ], rw_b = pop[11, ], reweight = reweight,
       hist = lapply(seq_len(npop), function(q) res$hist[(q - 1) * 2 * reweight +
                                                          seq_len(2 * reweight)]),
       blocks = blocks_before + res$done, seed_hex = u64_to_hex(seed))
}

# A DMC state handed back by the user: checked before the engine reads it.
dmc_check_state <- function(st, n, L, call) {
  bad <- function(what) {
    sp_abort(sprintf(paste0("`init` holds no usable populations' state: %s. Continue from ",
                            "an unmodified result of he4_dmc()."), what), call = call)
  }
  f <- c("population", "coords", "weight", "size", "e_trial", "e_ref", "gen", "overflow",
         "blocks", "seed_hex")
  if (!is.list(st) || !all(f %in% names(st))) bad("fields are missing")
  np <- length(st$population)
  if (np < 1 || any(diff(st$population) != 1)) bad("its populations must be consecutive")
  if (!is.list(st$coords) || length(st$coords) != np || length(st$weight) != np) {
    bad("one walkers' array per population is needed")
  }
  for (q in seq_len(np)) {
    x <- st$coords[[q]]
    if (!is.double(x) || !identical(dim(x)[1:2], as.integer(c(3, n))) ||
        dim(x)[3] != st$size[q] || length(st$weight[[q]]) != st$size[q]) {
      bad(sprintf("population %s's walkers must be a 3 x %s x size array", q, fmt_num(n)))
    }
    chk <- vmc_check_coords(x, L, L * (1 + 2^-40), min(0.01, 0.25))
    if (chk[1] > 0) bad("coordinates must be finite and inside the box")
    if (any(!is.finite(st$weight[[q]])) || any(st$weight[[q]] < 0)) {
      bad("weights must be finite and non-negative")
    }
  }
  if (any(st$size < 1)) bad("every population needs a walker")
  # a state saved before the effective time step existed has no sums: the
  # effective step starts afresh
  for (f in c("r2_accepted", "r2_proposed")) {
    if (is.null(st[[f]])) st[[f]] <- rep(0, np)
    if (length(st[[f]]) != np || any(!is.finite(st[[f]])) || any(st[[f]] < 0)) {
      bad(sprintf("`%s` must be one finite non-negative number per population", f))
    }
  }
  if (any(st$r2_accepted > st$r2_proposed)) bad("`r2_accepted` exceeds `r2_proposed`")
  # a state saved before the reweighting existed: it starts afresh
  for (f in c("e_best", "sigma2")) if (is.null(st[[f]])) st[[f]] <- rep(NaN, np)
  for (f in c("rw_a", "rw_b")) if (is.null(st[[f]])) st[[f]] <- rep(0, np)
  if (is.null(st$hist) || is.null(st$reweight)) {
    st$hist <- NULL
    st$reweight <- NULL
  } else if (length(st$hist) != np ||
             any(vapply(st$hist, length, 0) != 2 * st$reweight) ||
             any(!vapply(st$hist, function(h) all(is.finite(h)), TRUE))) {
    bad("`hist` must hold 2 T_p finite numbers per population")
  }
  st
}
