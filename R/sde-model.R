#' Your own model: a stochastic differential equation written in R
#'
#' Describes a system of stochastic differential equations with diagonal
#' noise,
#' \deqn{dx_i = a_i(t, x)\,dt + b_i(t, x)\,dW_i,}
#' by its right-hand sides written as R expressions. [sde_run()] translates
#' the model once to C (one physics header, shown by `sde_code()`), compiles
#' it with NVRTC for the GPU present and with R's own C toolchain for the
#' CPU (both cached by the model's hash beside the kernel cache,
#' [gpu_cache_dir()]), and runs ensembles of independent paths with the
#' package's Philox streams: the same numbers on both backends.
#'
#' @section Right-hand sides:
#' Each right-hand side is a one-sided formula (`~ -beta * v`), a quoted
#' call (`quote(-beta * v)`), a string (`"-beta * v"`) or a number, over the
#' state variables, the parameters, the time `t`, `pi` and numbers, with
#' `+ - * / ^`, comparisons, `&`, `|`, `!`, `ifelse()`, `exp`, `log`,
#' `sqrt`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`, `sinh`,
#' `cosh`, `tanh`, `abs`, `pmin`, `pmax`, `floor` and `sign`. Everything is
#' checked here, before anything compiles: an unknown function or variable
#' is named with the list of what is allowed. `x^k` with a whole `k` of at
#' most 64 is written as products (repeated squares); comparisons are 1 or 0
#' in arithmetic, as in R.
#'
#' Names defined in `define` (`define = list(u = ~ x^2 - 1)`) may be used in
#' every right-hand side, observable and pair term, and in each other's
#' definitions (no cycles): each use is the definition's expression in
#' parentheses (checked once, inlined where used: the model is the one
#' written out, with the same C). A definition that holds a pair quantity --
#' `x[j]`, `j`, or with positions `dx`, `dy`, `dz`, `r`, or an edge's weight
#' `a` -- may be used only inside `pairs()` or `edges()`, which is checked
#' with a message naming it.
#' The parts of an expression that depend on the time `t` and the
#' parameters only (`cos(omega * t)`) are computed in double precision and
#' rounded once, so that `t` is exact in single-precision runs too (see
#' [sde_run()]).
#'
#' @section Calculus:
#' `noise` is diagonal: entry `v = ~ b` adds \eqn{b\,dW_v} to state `v`,
#' one independent Wiener process per entry. With multiplicative noise (`b`
#' depends on its own state) the Ito and Stratonovich readings differ by the
#' drift \eqn{\tfrac12 b\,\partial b/\partial x}; the model declares which
#' one it means (`calculus`), and the package derives that term
#' symbolically ([stats::D()]) and adds it where needed, so that both
#' methods of [sde_run()] solve the declared equation: Euler-Maruyama
#' (`"euler"`) integrates the Ito form, the stochastic Heun scheme
#' (`"srk2"`) the Stratonovich form. Additive noise needs no correction.
#' Where the derivative cannot be formed -- a function [stats::D()] does
#' not know, or, in a many-body model, a noise that reads the states
#' through `pairs()`, `mean()`, `sum()` or lattice neighbours -- the model
#' keeps the method of its own calculus only (`"euler"` for Ito), which its
#' print says; asking for the other is an error naming that method.
#'
#' @section Systems of many elements:
#' A model whose right-hand sides use what only systems have is run by
#' [sde_run()] as `replicas` systems of `n` coupled elements (`sde_run(n =
#' )`); each state is then a state of every element:
#' * a bare state name is the element's own value; `i` is its number (1 to
#'   `n`) and `n` the size of the system, both numbers in expressions;
#' * `mean(e)` and `sum(e)` reduce an expression `e` of the element over the
#'   elements of its system, at the current stage's state (the mean-field
#'   Kuramoto drift is `K * (mean(sin(theta)) * cos(theta) -
#'   mean(cos(theta)) * sin(theta))`); a reduction cannot hold a reduction;
#' * `pairs(e)` is the sum over the other elements \eqn{j \ne i} of `e`, in
#'   which `x[j]` is the partner's value of state `x` (and `w[j]` of an
#'   element parameter `w`), `j` its number: all pairs, \eqn{O(n^2)}
#'   (`K / n * pairs(sin(theta[j] - theta))`); `x[j]` and `j` exist only
#'   there;
#' * `x[i + 1]`, `x[i - 1]` (any whole offset) are lattice neighbours, with
#'   `lattice = "ring"` (periodic) or `"chain"` (free ends: a missing
#'   neighbour reads as the element's own value);
#' * parameters given as formulas in `params` are parameters per element,
#'   drawn for each element of each system from that system's Philox stream
#'   by `runif(min, max)`, `rnorm(mean, sd)` or `rcauchy(location, scale)`
#'   (odin's convention: no count), or computed from `i`, `n` and the
#'   parameters (`params = list(K = 2, w = ~ rcauchy(0, gamma))`: quenched
#'   Lorentzian frequencies); a constant formula (`w = ~ 0`) declares one
#'   that is that number in every element unless [sde_run()] gives its
#'   values. [sde_run()] may replace them (a
#'   formula, one number, or `n` numbers: the same in every system, element
#'   by element); they are not swept, and a data frame of conditions cannot
#'   hold them. With `n =
#'   1` such a parameter is a random parameter per replica. A draw with
#'   invalid arguments (`runif(0, -1)`: `max` below `min`; a negative `sd`
#'   or scale) is an error naming the parameter. The values every system ran
#'   with come back with the result ([sde_element_params()]).
#'
#' * `edges(e)` is the sum of `e` over the element's in-neighbours `j` on a
#'   graph given to [sde_run()] (`graph = A`: `A[i, j]` the weight with which
#'   `j` acts on `i`), in which `x[j]` is the neighbour's value and `a` the
#'   edge's weight: Kuramoto oscillators on a network are `K * edges(a *
#'   sin(theta[j] - theta))`. On the complete graph of unit weights it is
#'   `pairs()`. One graph for every system of a run, stored as compressed
#'   rows on both backends (each element's in-neighbours read together).
#'
#' @section Particles in a box:
#' `positions = c("x", "y")` (one to three states) declares a particle's
#' coordinates in a periodic box whose sides [sde_run()] takes (`box = `).
#' The engines keep them in \[0, L) (wrapped after every stage of a step, as
#' periodic angles are kept in \[-pi, pi\], and at the start). Inside
#' `pairs()` (and `edges()`) of such a model, `dx`, `dy`, `dz` are the
#' minimum-image separation from the element to its partner (`x[j] - x`
#' brought into \[-L/2, L/2\]) and `r` its length; `x[j]` is the partner's raw
#' coordinate. `pairs(e, cutoff = rc)` sums over the partners at a distance `r` below `rc`
#' only (`rc` a number or an expression of the parameters, at most half the
#' box's smallest side), found in O(n): cell lists rebuilt on the device for
#' every pass on the GPU, Verlet lists (a skin of 0.12 rc, rebuilt when an
#' element has moved half of it) on the CPU, with the same sum as every pair
#' within the cut-off: bit for bit on the CPU (each element's partners in
#' ascending order), to rounding on the GPU. Even powers of `r` are computed
#' from `r^2` (no square root). A Lennard-Jones fluid, truncated and shifted
#' at 2.5:
#' ```
#' sde_model(drift = list(x = ~ vx, ..., vx = ~ pairs(f * dx, cutoff = 2.5) - g * vx, ...),
#'           define = list(ir2 = ~ 1 / r^2, ir6 = ~ ir2^3, f = ~ -24 * ir6 * (2 * ir6 - 1) * ir2),
#'           positions = c("x", "y", "z"), ...)
#' ```
#' Pair terms in observables: `sum(pairs(e, cutoff = rc))` (or `mean()`) of
#' a pair expression -- the potential energy `sum(pairs(u, cutoff = rc)) /
#' 2`, the virial `sum(pairs(-f * r^2, cutoff = rc)) / 2` -- evaluated at
#' the records only. The radial distribution function g(r) is an output of
#' [sde_run()] (`output = "rdf"`).
#'
#' Observables and the `stop` event of such a model are system-level: the
#' reductions and functions of them, of the parameters and of `t` (the order parameter
#' `~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)`); `stop` then ends a
#' system at its first passage (checked after each step). Everything is
#' checked here, before anything compiles: `x[j]` outside `pairs()`, a
#' reduction inside a reduction, `x[i + 1]` without a lattice, a state
#' outside a reduction in an observable are errors naming the expression.
#'
#' Besides `"euler"` and `"srk2"`, a many-body model whose states come in
#' (position, momentum) pairs -- a position's drift a function of its
#' element's momenta alone (`q = ~ p`), a momentum's drift a force of the
#' positions (any coupling) -- admits the symplectic `"verlet"` and
#' `"yoshida4"` (Yoshida's fourth-order composition, Rocha Filho's (2014)
#' integrator) when it has no noise and no friction, and `"baoab"`
#' (Leimkuhler and Matthews' splitting, as OpenMM's LangevinMiddleIntegrator)
#' when a momentum's drift is a force less a friction linear in it (`-g *
#' p`) and its noise additive (`sqrt(2 * g * T)`). The model's print says
#' which methods it admits and why the others are refused.
#'
#' @section What reaches the compiler:
#' The model's C is generated in this session from its checked equations
#' (a model object's stored code is never used: an object read with
#' [readRDS()] or edited by hand is rebuilt from its equations, with a
#' warning). No text a user chose reaches that C as code: names of states,
#' parameters, element parameters and observables must be syntactic R names
#' without dots of at most 64 characters, and the columns of a noise matrix
#' identifiers (a letter, then letters, digits or `_`); in the C they are
#' replaced by array slots (`x[0]`, `p[1]`, ...). Expressions reach it only
#' through the translator's whitelist of functions and variables. Comments
#' of the generated header show names and expressions with every character
#' outside plain printable ASCII, every backslash, quote, `?` and `#`
#' replaced by `_` and no comment mark left; the model's `name` is shown only
#' when it is short plain text (letters, digits, space and `_ . , : = + ( )
#' -`), else as the first 16 hex digits of its SHA-256. Before anything is
#' compiled (by R's C compiler or NVRTC), the generated text is checked once
#' more: printable ASCII, no backslash (no line splice), no trigraph,
#' comments that close where the generator closed them, no quote and no
#' preprocessor line but the generator's own `#define` and `#undef`;
#' anything else is an internal error and nothing compiles. Compiled files
#' are keyed by the SHA-256 of every byte compiled and checked before they
#' are loaded (see [gpu_cache_dir()], "Safety").
#'
#' @param drift A named list of right-hand sides, one per state variable
#'   (the names are the states).
#' @param noise A named list of noise amplitudes, each for a state of
#'   `drift` (diagonal noise); `NULL` or an empty list: an ordinary
#'   differential equation for ensembles of starts.
#' @param params A named numeric vector (or list) of parameter defaults,
#'   finite; [sde_run()] may override them or sweep them. In a list, a
#'   formula is a parameter per element (see "Systems of many elements"),
#'   also a constant one (`~ 0`), and so is a string; a number is a scalar
#'   parameter's default.
#' @param stop `NULL`, or an event (a right-hand side that is true or false)
#'   whose first occurrence ends a path in `output = "passage"`: a
#'   comparison (`x > 1`, `<`, `>=`, `<=`, `==`, `!=`), `&`, `|` or `!` of
#'   events, or an `ifelse()` choosing between events (or `TRUE`/`FALSE`);
#'   anything else (`x - 1`, a number that C would read as true wherever it
#'   is not 0) is refused. A comparison whose two sides differ by a
#'   quantity with noise gets the Brownian-bridge correction of
#'   [sde_run()].
#' @param observe A named list of observables (right-hand sides), recorded
#'   with the states by the fixed-length outputs.
#' @param calculus `"ito"` (default) or `"stratonovich"`: how the noise is
#'   to be read.
#' @param name A name for the model (printing and messages; in the generated
#'   C only as a comment, and there only when it is plain text: see "What
#'   reaches the compiler").
#' @param lattice `"none"`, `"chain"` (free ends) or `"ring"` (periodic): the
#'   neighbours `x[i + 1]`, `x[i - 1]` of a many-body model; or `"square"`:
#'   a periodic L1 x L2 lattice (a torus; `sde_run(n = c(L1, L2))`) whose
#'   elements are `x[i, j]` (row `i`, column `j`, numbers in expressions)
#'   and neighbours `x[i + a, j + b]`; the elements are numbered row by row,
#'   element \eqn{(i - 1) L_2 + j} (the order of results' `element` and of
#'   starts given as `n` numbers; a start given as an L1 x L2 matrix is read
#'   as `x[i, j] = M[i, j]`).
#' @param positions `NULL`, or the names of one to three states that are a
#'   particle's coordinates in a periodic box (see "Particles in a box"); the
#'   box is given to [sde_run()] (`box = `).
#' @param define `NULL`, or a named list of local definitions (right-hand
#'   sides), usable by name in every expression of the model (see
#'   "Right-hand sides").
#' @param periodic `NULL`, or the names of states that are angles (period
#'   2 pi): the engines keep them in \[-pi, pi\] (wrapped after every stage
#'   of a step, and at the start), as `kuramoto()` keeps its phases and for
#'   the same reasons -- a phase's resolution in single precision does not
#'   decay as it winds, and on the GPU the sine and cosine of a wrapped state
#'   need no reduction (the hardware's, within 2^-21.4 absolute on \[-pi,
#'   pi\]), so a phase model runs at the hand-written kernels' speed.  The
#'   model must depend on such a state only through `sin()` and `cos()` of
#'   arguments in which it (or its neighbours' or partners' values) appears
#'   with whole-number coefficients -- `sin(theta)`, `cos(2 * theta)`,
#'   `sin(theta[j] - theta + alpha)` -- which `sde_model()` checks
#'   (`sin(theta / 2)` or `theta` alone are refused).  Results report the
#'   wrapped values (final states, trajectories).  Declaring states periodic
#'   makes the model a many-body one (it runs on that engine, also with `n =
#'   1`); the splitting methods need them to be positions.
#' @return An object of class `sde_model`: the checked expressions, their C
#'   translation (`sde_code()`) and the model's hash.
#' @seealso [sde_run()], [sde_code()]
#' @references
#' Rocha Filho, T. M. (2014) Molecular dynamics for long-range interacting
#'   systems on graphic processing units. *Computer Physics Communications*
#'   185, 1364-1369. \doi{10.1016/j.cpc.2014.01.008} (the Yoshida-4 scheme)
#' @examples
#' m <- sde_model(
#'   drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
#'   noise = list(v = ~ sqrt(2 * beta * theta)),
#'   params = c(beta = 1, V0 = 1, gamma = 0.5, theta = 0.2),
#'   stop = ~ x > pi - asin(gamma),
#'   observe = list(energy = ~ v^2 / 2 - V0 * (cos(x) + gamma * x)),
#'   name = "washboard")
#' m
#' cat(sde_code(m))
#' # a system of n coupled oscillators (sde_run(n = )): Kuramoto's mean field
#' kur <- sde_model(
#'   drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) -
#'                                       mean(cos(theta)) * sin(theta))),
#'   noise = list(theta = ~ sqrt(2 * D)),
#'   params = c(omega = 0, K = 4, D = 1),
#'   observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
#'   name = "kuramoto-mf")
#' kur
#' @export
sde_model <- function(drift, noise = NULL, params = NULL, stop = NULL, observe = NULL,
                      calculus = c("ito", "stratonovich"), name = "model",
                      lattice = c("none", "chain", "ring", "square"), periodic = NULL,
                      positions = NULL, define = NULL) {
  call <- sys.call()
  calculus <- check_choice(calculus, c("ito", "stratonovich"), "calculus", call = call)
  lattice <- check_choice(lattice, SDE_MB_LATTICES, "lattice", call = call)
  if (!is.character(name) || length(name) != 1 || is.na(name) || !nzchar(name)) {
    sp_abort(sprintf("`name` must be one non-empty string, not %s.", describe(name)),
             call = call)
  }
  sde_check_names(drift, "drift", call, need = TRUE)
  states <- names(drift)
  if (length(states) > 255) {
    sp_abort(sprintf("`drift` has %d states; a model has at most 255.", length(states)),
             call = call)
  }
  # parameters: numbers (scalars, one per condition), or formulas: element
  # parameters, one value per element (random draws allowed)
  elements <- list()
  if (is.null(params)) params <- numeric()
  if (is.list(params) && length(params)) {
    if (is.null(names(params)) || any(!nzchar(names(params)))) {
      sp_abort("every entry of `params` must be named.", call = call)
    }
    is_el <- vapply(params, function(v) {
      inherits(v, "formula") || is.call(v) || is.name(v) || is.character(v)
    }, TRUE)
    one <- vapply(params, function(v) is.numeric(v) && length(v) == 1, TRUE)
    if (any(!is_el & !one)) {
      p <- names(params)[!is_el & !one][1]
      v <- params[[p]]
      bad <- if (is.numeric(v)) sde_bad_numbers(v)
      sp_abort(sprintf(paste0("`params$%s` %s; it must be one number (a parameter's default: ",
                              "sweeps are given to sde_run(params = )) or a formula (a ",
                              "parameter per element, e.g. ~ rcauchy(0, 0.5))."), p,
                       if (!is.null(bad)) bad else if (is.numeric(v) && length(v) > 1)
                         sprintf("has %s values", fmt_count(length(v)))
                       else sprintf("is %s", describe(v))), call = call)
    }
    elements <- params[is_el]
    params <- unlist(params[!is_el])
    if (is.null(params)) params <- numeric()
  } else if (is.list(params)) {
    params <- numeric()
  }
  if (length(params) && (!is.numeric(params) || is.null(names(params)))) {
    sp_abort(sprintf("`params` must be a named numeric vector of defaults, not %s.",
                     describe(params)), call = call)
  }
  params <- stats::setNames(as.double(params), names(params))
  if (length(params)) sde_check_names(as.list(params), "params", call)
  if (length(elements)) sde_check_names(elements, "params", call)
  bad <- !is.finite(params)
  if (any(bad)) {
    sp_abort(sprintf("the default of parameter `%s` is %s; defaults must be finite numbers.",
                     names(params)[bad][1], format(params[bad][1])), call = call)
  }
  clash <- intersect(states, c(names(params), names(elements)))
  if (length(clash)) {
    sp_abort(sprintf("`%s` is both a state (in `drift`) and a parameter (in `params`).",
                     clash[1]), call = call)
  }
  el_names <- names(elements)
  elements <- lapply(el_names, function(e) {
    what <- sprintf("the element parameter `%s`", e)
    x <- sde_rhs(elements[[e]], what, call)
    sde_check_draws(x, names(params), what, call)
    x
  })
  names(elements) <- el_names
  vars <- c(states, names(params), "t")
  if (is.null(noise)) noise <- list()
  noise_decl <- NULL
  if (!is.null(dim(noise))) {
    noise_decl <- noise
  } else if (length(noise)) {
    sde_check_names(noise, "noise", call)
  }
  if (is.null(observe)) observe <- list()
  if (length(observe)) sde_check_names(observe, "observe", call)
  rhs <- function(x, what) sde_rhs(x, what, call)
  drift_e <- lapply(states, function(s) {
    if (is.null(drift[[s]])) {
      sp_abort(sprintf("the state `%s` has no drift (NULL); give one (~ 0 for none).", s),
               call = call)
    }
    rhs(drift[[s]], sprintf("the drift of `%s`", s))
  })
  names(drift_e) <- states
  if (is.null(noise_decl)) {
    unknown <- setdiff(names(noise), states)
    if (length(unknown)) {
      sp_abort(sprintf(paste0("`noise` has an entry for `%s`, which is not a state; the states ",
                              "(names of `drift`) are %s."), unknown[1],
                       paste0("`", states, "`", collapse = ", ")), call = call)
    }
    noise_e <- lapply(names(noise), function(s) rhs(noise[[s]], sprintf("the noise on `%s`", s)))
    names(noise_e) <- names(noise)
    noise_k <- seq_along(noise_e)
    noise_w <- names(noise_e)
  } else {
    nm <- sde_noise_matrix(noise_decl, states, call)
    noise_e <- nm$e
    noise_k <- nm$k
    noise_w <- nm$wiener
    noise_decl <- nm$decl
  }
  stop_e <- if (!is.null(stop)) rhs(stop, "`stop`")
  clash <- intersect(names(observe), c(states, names(params), names(elements)))
  if (length(clash)) {
    sp_abort(sprintf("the observable `%s` has the name of a state or parameter.", clash[1]),
             call = call)
  }
  observe_e <- lapply(names(observe), function(s) rhs(observe[[s]], sprintf("the observable `%s`", s)))
  names(observe_e) <- names(observe)
  # positions in a periodic box, and local definitions (R/sde-define.R):
  # the definitions are inlined into every expression here, the declared
  # forms kept for printing and for rebuilding the model
  positions <- sde_check_positions(positions, states, periodic, call)
  if (length(positions)) {
    geo <- intersect(c(states, names(params), names(elements)), SDE_PAIR_GEOMETRY)
    if (length(geo)) {
      sp_abort(sprintf(paste0("the model has positions, and inside pairs() `%s` is the pair's ",
                              "%s; rename the state or parameter `%s`."), geo[1],
                       if (geo[1] == "r") "distance" else "separation", geo[1]), call = call)
    }
  }
  defs <- sde_define_parse(define, c(states, names(params), names(elements), names(observe)), call)
  source <- NULL
  if (length(defs)) {
    source <- list(drift = drift_e, noise = noise_e, stop = stop_e, observe = observe_e,
                   define = defs)
    defx <- sde_define_expand(defs, call)
    pair_defs <- sde_define_pair_level(defx, positions, names(params))
    chk <- function(e, what) sde_define_check_use(e, pair_defs, what, call)
    for (s in states) chk(drift_e[[s]], sprintf("the drift of `%s`", s))
    for (j in seq_along(noise_e)) chk(noise_e[[j]], sprintf("noise entry %d", j))
    for (s in names(observe_e)) chk(observe_e[[s]], sprintf("the observable `%s`", s))
    chk(stop_e, "`stop`")
    drift_e <- lapply(drift_e, sde_define_apply, defs = defx)
    noise_e <- lapply(noise_e, sde_define_apply, defs = defx)
    observe_e <- lapply(observe_e, sde_define_apply, defs = defx)
    stop_e <- sde_define_apply(stop_e, defx)
  }
  if (!is.null(stop_e)) sde_check_event(stop_e, call)
  periodic <- sde_check_periodic(periodic, states,
                                 c(stats::setNames(drift_e, sprintf("the drift of `%s`", states)),
                                   stats::setNames(noise_e, sprintf("noise entry %d", seq_along(noise_e))),
                                   stats::setNames(observe_e, sprintf("the observable `%s`",
                                                                      names(observe_e))),
                                   if (!is.null(stop_e)) list("`stop`" = stop_e)), call)
  many <- lattice != "none" || length(elements) > 0 || length(periodic) > 0 ||
    length(positions) > 0 ||
    any(vapply(c(drift_e, noise_e, observe_e, list(stop_e)), sde_mb_uses, TRUE))
  if (!many) {
    for (s in states) sde_check_expr(drift_e[[s]], vars, sprintf("the drift of `%s`", s), call)
    for (s in names(noise_e)) sde_check_expr(noise_e[[s]], vars, sprintf("the noise on `%s`", s), call)
    if (!is.null(stop_e)) sde_check_expr(stop_e, vars, "`stop`", call)
    for (s in names(observe_e)) {
      sde_check_expr(observe_e[[s]], vars, sprintf("the observable `%s`", s), call)
    }
  }
  corr <- sde_noise_corrections(noise_e, noise_k, states)
  # a correction that cannot be formed only takes away the other calculus
  # (the methods that integrate it), never the model
  bad <- vapply(corr, inherits, TRUE, "error")
  other <- setdiff(c("ito", "stratonovich"), calculus)
  forms <- c(ito = TRUE, stratonovich = TRUE)
  if (any(bad)) forms[[other]] <- FALSE
  m <- structure(list(name = name, states = states, params = params, drift = drift_e,
                      noise = noise_e, noise_k = noise_k, noise_w = noise_w,
                      noise_decl = noise_decl, stop = stop_e, observe = observe_e,
                      calculus = calculus, correction = corr[!bad], forms = forms,
                      forms_why = if (any(bad)) sp_cnd_text(corr[bad][[1]]),
                      uncorrectable = names(corr)[bad],
                      version = as.character(utils::packageVersion("statphysgpu"))),
                 class = "sde_model")
  if (length(defs)) {
    m$define <- defs
    m$source <- source
  }
  if (many) {
    m$many <- TRUE
    m$lattice <- lattice
    if (length(periodic)) m$periodic <- periodic
    if (length(positions)) m$positions <- positions
    m$elements <- elements
    m$mb <- sde_mb_analyse(m, call)
    m$mb$split <- sde_mb_split(m, m$mb)
    code <- sde_mb_header(m)
    sde_code_check(code$text, sprintf("the model \"%s\"", sde_c_name(name)))
    m$code <- code$text
    m$lines <- code$lines
    m$derived <- code$derived
    m$nu <- code$nu
    m$hash <- sp_sha256(c("sde-mb-1", code$text))
    return(m)
  }
  code <- sde_header(m)
  sde_code_check(code$text, sprintf("the model \"%s\"", sde_c_name(name)))
  m$code <- code$text
  m$lines <- code$lines
  m$derived <- code$derived
  m$hash <- sp_sha256(c("sde-model-1", code$text))
  m
}

# Names a state, parameter or observable may not have: the columns of
# results (a parameter `condition` would be the condition number, a
# parameter `mean` a column beside the ensemble mean), the numbers and
# functions of expressions, and names the package keeps for systems of
# many elements (`i`, `j`, `n`, `sum`, `pairs`) and random draws.
SDE_RESERVED <- c("t", "pi", "dt", "i", "j", "n", "Inf", "NaN",
                  "condition", "replica", "replicas", "value", "escaped", "time", "variable",
                  "mean", "sd", "se", "lo", "hi", "count", "rec", "status", "seed",
                  "sum", "pairs", "edges", "runif", "rnorm", "rcauchy")

# Every reserved name: SDE_RESERVED and the functions of right-hand sides.
sde_reserved <- function() {
  unique(c(SDE_RESERVED, setdiff(SDE_FUNCTIONS, c("+", "-", "*", "/", "^", "(", "<", ">",
                                                  "<=", ">=", "==", "!=", "&", "|", "!"))))
}

# Names of a list of right-hand sides: all present, unique, syntactic, not
# reserved.
sde_check_names <- function(x, arg, call, need = FALSE) {
  if (!is.list(x) || (need && !length(x))) {
    sp_abort(sprintf("`%s` must be a named list of right-hand sides%s, not %s.", arg,
                     if (need) " (one per state)" else "", describe(x)), call = call)
  }
  nm <- names(x)
  if (length(x) && (is.null(nm) || any(!nzchar(nm)) || anyNA(nm))) {
    sp_abort(sprintf("every entry of `%s` must be named.", arg), call = call)
  }
  long <- nm[nchar(nm, type = "bytes") > 64]
  if (length(long)) {
    sp_abort(sprintf("`%s` has a name of %s characters; names have at most 64.", arg,
                     fmt_count(nchar(long[1]))), call = call, class = "statphysgpu_bad_name")
  }
  if (anyDuplicated(nm)) {
    sp_abort(sprintf("`%s` names `%s` twice.", arg, nm[anyDuplicated(nm)]), call = call)
  }
  bad <- nm[nm != make.names(nm) | grepl(".", nm, fixed = TRUE)]
  if (length(bad)) {
    sp_abort(sprintf("`%s` has the name `%s`; names must be syntactic R names without dots.",
                     arg, bad[1]), call = call)
  }
  res <- sde_reserved()
  bad <- nm[nm %in% res]
  if (length(bad)) {
    sp_abort(sprintf(paste0("`%s` has the name `%s`, which the package reserves (a column of ",
                            "results, a number or a function of expressions); choose another. ",
                            "Reserved: %s."), arg, bad[1], paste(res, collapse = ", ")),
             call = call, class = "statphysgpu_reserved_name")
  }
  invisible(nm)
}

# The model to run: rebuilt in this session by sde_model() from the
# object's equations (a model object's stored code, hash and sizes are
# never trusted: an object read with readRDS() or edited by hand could hold
# any C), memoised by the SHA-256 of the equations.  Where the object's own
# fields differ from the rebuilt ones, a warning says so (once per model); a
# model whose equations fail sde_model()'s checks is refused.
sde_model_trusted <- function(m, call = NULL) {
  if (!inherits(m, "sde_model") || !is.list(m)) {
    sp_abort(sprintf("`m` must be a model made by sde_model(), not %s.", describe(m)),
             call = call)
  }
  src <- m$source
  # element parameters go back as formulas: a constant one (`w = ~ 0`) is
  # stored as its number, which in `params` would be a scalar's default
  el <- lapply(m$elements, function(e) structure(call("~", e), class = "formula"))
  decl <- list(drift = src$drift %||% m$drift,
               noise = m$noise_decl %||% src$noise %||% m$noise,
               params = if (length(el)) c(as.list(m$params), el) else m$params,
               stop = if (!is.null(src)) src$stop else m$stop,
               observe = if (!is.null(src)) src$observe else m$observe,
               calculus = m$calculus, name = m$name,
               lattice = m$lattice %||% "none")
  if (length(m$periodic)) decl$periodic <- m$periodic
  if (length(m$positions)) decl$positions <- m$positions
  if (length(src$define)) decl$define <- src$define
  key <- rlang::hash(decl) # (a key within this session)
  hit <- .sp_sde$models[[key]]
  if (is.null(hit)) {
    hit <- tryCatch(do.call(sde_model, decl, quote = TRUE), error = function(e) e)
    if (inherits(hit, "error")) {
      sp_abort(sprintf(paste0("`m` is not a valid model: its equations fail sde_model()'s ",
                              "checks (%s). Make it with sde_model()."),
                       sp_cnd_text(hit)), call = call, class = "statphysgpu_model_invalid")
    }
    .sp_sde$models[[key]] <- hit
  }
  fields <- c("states", "code", "hash", "derived", "correction", "lines", "forms", "mb",
              "periodic")
  differ <- fields[!vapply(fields, function(f) identical(m[[f]], hit[[f]]), TRUE)]
  if (length(differ)) {
    cache_warn_once(paste0("rebuilt:", key), sprintf(paste0(
      "the model object \"%s\" differs from what sde_model() makes of its equations (%s): ",
      "it was changed by hand or made by another version of statphysgpu. What runs is ",
      "rebuilt from its equations (print(m) shows them); make the object again with ",
      "sde_model() to silence this."), hit$name,
      paste0("`", differ, "`", collapse = ", ")), class = "statphysgpu_model_rebuilt")
  }
  hit
}

# The generated physics header: its text and, for each line that holds a
# model expression, what it came from (for compile errors).
sde_header <- function(m) {
  nx <- length(m$states)
  np <- length(m$params)
  hoist <- new.env(parent = emptyenv())
  hoist$keys <- character()
  hoist$exprs <- list()
  # the time terms (R/sde-events.R, sde_time_lift()): .tK, read as tt[K - 1]
  tterm <- new.env(parent = emptyenv())
  tterm$keys <- character()
  tterm$exprs <- list()
  H <- function(e) {
    sde_time_lift(sde_hoist(sde_mark_time(e, names(m$params)), names(m$params), hoist), tterm)
  }
  # the expressions as they are computed, parameter-only parts hoisted
  drift <- list()
  for (form in c("ito", "stratonovich")) {
    drift[[form]] <- lapply(m$states, function(s) {
      e <- m$drift[[s]]
      corr <- m$correction[[s]]
      if (!m$forms[[form]] && s %in% m$uncorrectable) return(e)
      if (!is.null(corr) && form != m$calculus) {
        # Ito = Stratonovich + b db/dx / 2
        e <- call(if (form == "ito") "+" else "-", e, corr)
      }
      H(e)
    })
  }
  noise <- lapply(m$noise, H)
  gap <- if (!is.null(m$stop)) sde_event_gap(m$stop)
  stop_h <- if (!is.null(m$stop)) H(m$stop)
  gap_h <- if (!is.null(gap)) H(gap)
  gvar <- sde_gap_variance(m, gap) # the Brownian bridge's sigma^2 (R/sde-events.R)
  gvar_h <- if (!is.null(gvar)) H(gvar)
  observe <- lapply(m$observe, H)
  nd <- length(hoist$keys)
  nt <- length(tterm$keys)
  map <- c(stats::setNames(sprintf("x[%d]", seq_len(nx) - 1L), m$states),
           stats::setNames(sprintf("p[%d]", seq_len(np + nd) - 1L),
                           c(names(m$params), if (nd) paste0(".d", seq_len(nd)))),
           stats::setNames(sprintf("tt[%d]", seq_len(nt) - 1L),
                           if (nt) paste0(".t", seq_len(nt)) else character()),
           t = "t")
  L <- character()
  what <- character()
  add <- function(line, from = "") {
    L[length(L) + 1] <<- line
    what[length(what) + 1] <<- from
  }
  dep <- function(e) gsub("\\s+", " ", paste(deparse(e, width.cutoff = 500L), collapse = " "))
  cmt <- sde_c_comment
  # a large model's functions are compiled out of line (sde_prelude.h)
  # (its nodes, a sine or cosine counting as 30: inlined, each is a
  # reduction and a polynomial)
  size <- sum(vapply(c(m$drift, m$noise, m$observe, list(m$stop)), function(e) {
    if (is.null(e)) return(0)
    a <- all.names(e)
    length(a) + 29 * sum(a %in% c("sin", "cos"))
  }, 0))
  qual <- if (size > sp_tuning("sde_outline_size")) "SP_FN_OUTLINE" else "SP_FN"
  fn <- function(name, ret = "void", out = "f") {
    add(sprintf(paste0("%s %s SP_PREC(%s)(double t, const SP_REAL *tt, const SP_REAL *x, ",
                       "const SP_REAL *p, const double *pd%s) {"),
                qual, ret, name, if (ret == "void") paste0(", SP_REAL *", out) else ""))
    add("  (void)t; (void)tt; (void)x; (void)p; (void)pd;")
  }
  add(sprintf("/* SDE model \"%s\": generated by statphysgpu's sde_model(); do not edit.",
              sde_c_name(m$name)))
  add(paste0(" * ", cmt(sprintf("states %s | parameters %s | noise on %s | calculus %s",
              paste(m$states, collapse = ", "),
              if (np) paste(names(m$params), collapse = ", ") else "none",
              if (length(m$noise)) paste(names(m$noise), collapse = ", ") else "none",
              m$calculus))))
  for (j in seq_len(nd)) {
    add(sprintf(" * p[%d] = %s (per condition, computed once in double)", np + j - 1,
                cmt(hoist$keys[j])))
  }
  add(" */")
  if (qual == "SP_FN_OUTLINE") {
    add("#define SP_SDE_OUTLINED 1 /* no copy for the fast macro-steps (sde.cu) */")
    add("#undef SP_SIN")
    add("#undef SP_COS")
    add("#define SP_SIN SP_PREC(sp_sde_sin_out)")
    add("#define SP_COS SP_PREC(sp_sde_cos_out)")
  }
  add(sprintf("#define SP_SDE_NX %d", nx))
  add(sprintf("#define SP_SDE_NP %d", np + nd))
  add(sprintf("#define SP_SDE_NW %d", length(m$noise_w)))
  add(sprintf("#define SP_SDE_NB %d", length(m$noise)))
  add(sprintf("#define SP_SDE_NO %d", length(m$observe)))
  add(sprintf("#define SP_SDE_HAS_STOP %d", as.integer(!is.null(m$stop))))
  add(sprintf("#define SP_SDE_STOP_GAP %d", as.integer(!is.null(gap))))
  add(sprintf("#define SP_SDE_BRIDGE %d", as.integer(!is.null(gvar))))
  # the time terms: subexpressions of t and the parameters only, in double,
  # rounded once; the engine computes them once per step time (or reads
  # them from its table) and passes them to the functions below as tt
  add(sprintf("#define SP_SDE_NT %d", nt))
  if (nt) {
    add(sprintf("%s void SP_PREC(sde_time_terms)(double t, const double *pd, SP_REAL *tt) {",
                qual))
    add("  (void)t; (void)pd;")
    for (j in seq_len(nt)) {
      add(sprintf("  tt[%d] = %s; /* %s */", j - 1, sde_time_c(tterm$exprs[[j]], map),
                  cmt(sprintf("time term: %s", tterm$keys[j]))),
          sprintf("the time term %s", tterm$keys[j]))
    }
    add("}")
  }
  for (form in c("ito", "stratonovich")) {
    fn(if (form == "ito") "sde_drift_ito" else "sde_drift_strat")
    for (i in seq_len(nx)) {
      s <- m$states[i]
      if (!m$forms[[form]] && s %in% m$uncorrectable) {
        # this calculus is not available (sde_run() refuses its method)
        add(sprintf("  f[%d] = SP_R(0.0) / SP_R(0.0); /* drift of %s: no %s form */", i - 1,
                    cmt(s), form), sprintf("the drift of `%s`", s))
        next
      }
      corr <- !is.null(m$correction[[s]]) && form != m$calculus
      add(sprintf("  f[%d] = %s; /* %s */", i - 1,
                  sde_to_c(drift[[form]][[i]], map),
                  cmt(sprintf("drift of %s: %s%s", s, dep(m$drift[[s]]),
                              if (corr) sprintf(" %s b db/d%s / 2", if (form == "ito") "+" else "-", s)
                              else ""))),
          sprintf("the drift of `%s`, %s", s, dep(m$drift[[s]])))
    }
    add("}")
  }
  fn("sde_noise", out = "b")
  for (j in seq_along(m$noise)) {
    s <- names(m$noise)[j]
    on <- sde_noise_label(m, j)
    add(sprintf("  b[%d] = %s; /* %s */", j - 1, sde_to_c(noise[[j]], map),
                cmt(sprintf("noise on %s: %s", on, dep(m$noise[[j]])))),
        sprintf("the noise on `%s`, %s", on, dep(m$noise[[j]])))
  }
  if (!length(m$noise)) add("  b[0] = SP_R(0.0);")
  add("}")
  add("SP_FN void SP_PREC(sde_apply_noise)(SP_REAL *y, const SP_REAL *b, const SP_REAL *dw) {")
  add("  (void)y; (void)b; (void)dw;")
  for (j in seq_along(m$noise)) {
    add(sprintf("  y[%d] += b[%d] * dw[%d];", match(names(m$noise)[j], m$states) - 1, j - 1,
                m$noise_k[j] - 1))
  }
  add("}")
  if (!is.null(m$stop)) {
    fn("sde_stop", ret = "int")
    add(sprintf("  return %s != 0; /* stop: %s */", sde_to_c(stop_h, map), cmt(dep(m$stop))),
        sprintf("the event `stop`, %s", dep(m$stop)))
    add("}")
    if (!is.null(gap)) {
      fn("sde_gap", ret = "SP_REAL")
      add(sprintf("  return %s; /* the event's gap: %s */", sde_to_c(gap_h, map), cmt(dep(gap))),
          sprintf("the event `stop`, %s", dep(m$stop)))
      add("}")
    }
    if (!is.null(gvar)) {
      fn("sde_gap_var", ret = "SP_REAL")
      add(sprintf("  return %s; /* the gap's noise variance: %s */", sde_to_c(gvar_h, map),
                  cmt(dep(gvar))),
          sprintf("the event `stop`, %s (its noise, for the Brownian bridge)", dep(m$stop)))
      add("}")
    }
  }
  if (length(m$observe)) {
    fn("sde_observe", out = "o")
    for (j in seq_along(m$observe)) {
      s <- names(m$observe)[j]
      add(sprintf("  o[%d] = %s; /* %s */", j - 1,
                  sde_to_c(observe[[j]], map), cmt(sprintf("observable %s: %s", s, dep(m$observe[[j]])))),
          sprintf("the observable `%s`, %s", s, dep(m$observe[[j]])))
    }
    add("}")
  }
  # a model with sin or cos of a state (not the periodic states' own):
  # the GPU's passage kernel compiles a copy with the bare hardware sine
  # (sde.cu, SP_SDE_GPU_BARE)
  if (any(grepl("SP_(SIN|COS)\\(", L))) add("#define SP_SDE_TRIG 1")
  # noise of the parameters alone (no state, not t): the same at both ends
  # of a step (the engine's SRK2 skips its second evaluation and the
  # average, which gives it back exactly: sde_engine.h)
  if (length(m$noise) &&
      all(vapply(m$noise, function(e) {
        all(all.vars(e) %in% c(names(m$params), names(m$elements), "pi"))
      }, TRUE)))
    add("#define SP_SDE_NOISE_CONST 1")
  list(text = paste0(paste(L, collapse = "\n"), "\n"),
       lines = data.frame(line = seq_along(L), what = what, stringsAsFactors = FALSE),
       derived = hoist$exprs)
}

# The calculus a method integrates, and whether the model has it.
sde_method_form <- function(method) if (method == "euler") "ito" else "stratonovich"

sde_check_method <- function(m, method, call) {
  form <- sde_method_form(method)
  if (!isTRUE(m$forms[[form]])) {
    sp_abort(sprintf(paste0(
      "method = \"%s\" integrates the %s form of the model, which it does not have: %s. ",
      "Use method = \"%s\", which integrates the model's own (%s) form."), method,
      if (form == "ito") "Ito" else "Stratonovich", m$forms_why,
      if (method == "euler") "srk2" else "euler", m$calculus), call = call,
      class = "statphysgpu_method_refused")
  }
  invisible(TRUE)
}

# The methods a model admits, with the calculus each integrates.
sde_methods_admitted <- function(m) {
  c(if (isTRUE(m$forms[["ito"]])) "euler (Ito)",
    if (isTRUE(m$forms[["stratonovich"]])) "srk2 (Stratonovich)")
}

#' @rdname sde_model
#' @param m An `sde_model`.
#' @return `sde_code()`: the generated C header, one string (print it with
#'   [cat()]).
#' @export
sde_code <- function(m) {
  if (!inherits(m, "sde_model")) {
    sp_abort(sprintf("`m` must be a model made by sde_model(), not %s.", describe(m)),
             call = sys.call())
  }
  sde_model_trusted(m, sys.call())$code
}

#' @export
print.sde_model <- function(x, ...) {
  dep <- function(e) paste(deparse(e, width.cutoff = 500L), collapse = " ")
  many <- isTRUE(x$many)
  src <- x$source # the declared forms (definitions not inlined)
  if (!is.null(src)) {
    x$drift <- src$drift
    x$observe <- src$observe
    x$stop <- src$stop
    if (is.null(x$noise_decl)) x$noise <- src$noise
  }
  cat(sprintf("<sde_model> \"%s\": %d state%s%s, %s calculus\n", x$name, length(x$states),
              if (length(x$states) == 1) "" else "s",
              if (many) sprintf(" per element (systems of n elements%s)",
                                if (!identical(x$lattice, "none")) sprintf(" on a %s", x$lattice)
                                else "") else "",
              x$calculus))
  diag_noise <- is.null(x$noise_decl)
  for (s in x$states) {
    js <- which(names(x$noise) == s)
    nz <- paste(vapply(js, function(j) {
      sprintf(" + (%s) dW_%s", dep(x$noise[[j]]),
              if (diag_noise) s else (x$noise_w %||% names(x$noise))[x$noise_k[j]])
    }, ""), collapse = "")
    cat(sprintf("  d%s = (%s) dt%s\n", s, dep(x$drift[[s]]), nz))
  }
  if (length(x$params)) {
    cat("parameters: ", paste(sprintf("%s = %s", names(x$params), format(x$params)),
                              collapse = ", "), "\n", sep = "")
  }
  cat(sprintf("noise: %s\n", if (!length(x$noise)) "none (an ordinary differential equation)"
              else sprintf("%s, %s", if (diag_noise)
                             sprintf("diagonal on %s", paste(names(x$noise), collapse = ", "))
                           else sprintf("%d Wiener processes (%s) on %s", length(x$noise_w),
                                        paste(x$noise_w, collapse = ", "),
                                        paste(unique(names(x$noise)), collapse = ", ")),
                           sde_noise_kind(x))))
  if (length(x$elements)) {
    cat("element parameters: ", paste(sprintf("%s = %s", names(x$elements),
                                               vapply(x$elements, dep, "")), collapse = ", "),
        "\n", sep = "")
  }
  if (length(x$periodic)) {
    cat(sprintf("periodic (angles kept in [-pi, pi]): %s\n", paste(x$periodic, collapse = ", ")))
  }
  if (length(x$positions)) {
    cat(sprintf("positions (in a periodic box, sde_run(box = )): %s\n",
                paste(x$positions, collapse = ", ")))
  }
  if (length(src$define)) {
    cat("definitions: ", paste(sprintf("%s = %s", names(src$define),
                                        vapply(src$define, dep, "")), collapse = ", "),
        "\n", sep = "")
  }
  if (many) {
    ms <- sde_mb_methods(x)
    cat(sprintf("methods: %s\n", paste(names(ms)[!nzchar(ms)], collapse = ", ")))
    for (k in names(ms)[nzchar(ms)]) cat(sprintf("  not %s: %s\n", k, ms[[k]]))
    if (isTRUE(x$mb$split$ok)) {
      cat(sprintf("positions %s, momenta %s\n", paste(x$mb$split$q, collapse = ", "),
                  paste(x$mb$split$p, collapse = ", ")))
    }
  } else {
    cat(sprintf("methods: %s\n", paste(sde_methods_admitted(x), collapse = ", ")))
  }
  if (!is.null(x$stop)) cat(sprintf("event (stop): %s%s\n", dep(x$stop),
                                    if (many) " (a system's first passage, at the end of the step)"
                                    else sde_event_note(x)))
  if (length(x$observe)) {
    cat("observables: ", paste(sprintf("%s = %s", names(x$observe),
                                       vapply(x$observe, dep, "")), collapse = ", "),
        "\n", sep = "")
  }
  invisible(x)
}
