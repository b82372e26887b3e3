# Initial conditions of lrmd(): objects of class "lrmd_init", data frames of
# positions and momenta (theta, p for HMF and ring; x, y, px, py for
# gravity2d) with attributes model, params and seed -- lazy ones: a start is
# a recipe (its kind, n, its parameters, the seed; class "lrmd_draw") whose
# columns (ALTREP, src/r_lrmd.c) are drawn, all at once on the CPU, only
# when R reads one of them.  lrmd() given a start none of whose columns was
# read hands the recipe to its engine, which draws the particles itself on
# the CPU or the GPU (inst/cuda/lrmd_start.h: the same draws).  Random
# numbers: Philox purpose 11 (SP_PURPOSE_LRMD_INIT of inst/cuda/sp_streams.h),
# stream 0 for the first position coordinate, 1 the second, 2 the momenta;
# draw i from block floor(i / 4).

# The kinds of start (SP_LRMD_START_* of inst/cuda/lrmd_args.h) and the
# columns of a model's phase space.
lrmd_start_kinds <- c(waterbag = 1, equilibrium = 2, ring = 3, shell = 4)
lrmd_columns <- function(model) {
  if (model == "gravity2d") c("x", "y", "px", "py") else c("theta", "p")
}

# A data frame of the columns `cols` (a list of n doubles), named `names`,
# with compact row names (no copy of the columns, no row names of n).
lrmd_frame <- function(cols, names, n) {
  names(cols) <- names
  attr(cols, "row.names") <- c(NA_integer_, -as.integer(n))
  class(cols) <- "data.frame"
  cols
}

# A lazy start: the recipe c(kind, n, seed lo, seed hi, a, b, U, M0,
# replica) (the fields of sp_lrmd_start, src/core/sp_lrmd.h; a and b as
# lrmd_start.h reads them; replica 0, global and 0-based: lrmd()'s first
# replica, whose streams are those of a start before replicas existed) and
# its columns, not drawn.
lrmd_start_object <- function(kind, model, n, a, b, params, seed, U = 0, M0 = 0) {
  recipe <- structure(c(lrmd_start_kinds[[kind]], n, seed[1], seed[2], a, b, U, M0, 0),
                      class = "lrmd_draw")
  x <- lrmd_frame(.Call(C_sp_r_lrmd_start_columns, recipe), lrmd_columns(model), n)
  attr(x, "model") <- model
  attr(x, "params") <- params
  attr(x, "seed") <- u64_to_double(seed)
  attr(x, "seed_hex") <- u64_to_hex(seed)
  class(x) <- c("lrmd_init", "data.frame")
  x
}

# The recipe of replica r (global, 1-based) of a start: its streams
# (sp_philox_lrmd_init of inst/cuda/sp_streams.h).
lrmd_recipe_replica <- function(recipe, r) {
  recipe[9] <- r - 1
  recipe
}

# Starts over a grid of parameters (`pars`, a named list, any of them a
# vector; `make` makes the start of one value of each): the start itself
# when every parameter is one value, else an object of class "lrmd_starts":
# list(grid = the swept parameters' values, one row per condition, in
# expand.grid() order (the first varies fastest), starts = their starts),
# with attributes model, n, seed, seed_hex.
lrmd_start_grid <- function(pars, make, model, n, seed) {
  swept <- names(pars)[lengths(pars) > 1]
  if (!length(swept)) return(do.call(make, pars))
  g <- expand.grid(pars, KEEP.OUT.ATTRS = FALSE)
  starts <- lapply(seq_len(nrow(g)), function(i) do.call(make, as.list(g[i, , drop = FALSE])))
  structure(list(grid = g[swept], starts = starts), class = "lrmd_starts", model = model, n = n,
            seed = u64_to_double(seed), seed_hex = u64_to_hex(seed))
}

# The recipe of `x` when its columns are all those of one lazy start, none
# read yet (the engine then draws it); NULL otherwise.
lrmd_lazy <- function(x) {
  r <- lrmd_recipe(x)
  if (!is.null(r) && !r$drawn) r$recipe
}

# list(recipe, drawn) when the columns of `x` are all those of one start (R
# read them or not: drawn), else NULL (a start given as numbers, or changed).
lrmd_recipe <- function(x) {
  if (is.list(x)) {
    r <- .Call(C_sp_r_lrmd_lazy, x)
    if (!is.null(r)) list(recipe = r[[1]], drawn = r[[2]])
  }
}

# `n`, checked, and the memory of the drawn start (8 B a particle and
# coordinate: 16 B for HMF and ring, 32 for gravity2d) against the memory
# available, when the start is made (it is drawn later).
lrmd_check_n <- function(n, start, ncol, call) {
  if (missing(n)) sp_abort("`n` (the number of particles) must be given.", call = call)
  n <- check_whole(n, "n", lo = 2, hi = 2^31 - 1, call = call)
  per <- 8 * ncol
  avail <- available_memory()
  if (n * per > avail) {
    sp_abort(sprintf(paste0(
      "`n` = %s particles would need about %s of memory once drawn (%s(): %d B a ",
      "particle), more than the %s available; use fewer particles."),
      fmt_count(n), fmt_bytes(n * per), start, per, fmt_bytes(avail)), call = call)
  }
  n
}

# Momenta whose squares, summed over the n particles (twice the kinetic
# energy, as lrmd() records it), stay below a quarter of the largest double:
# `bound` is the largest value of the argument `name` that keeps them there.
lrmd_check_momenta <- function(x, name, bound, what, call) {
  if (x > bound) {
    sp_abort(sprintf(paste0(
      "`%s` = %s is too large: %s would overflow double precision (the sum of the squared ",
      "momenta must stay below %s); `%s` must be at most %s here."),
      name, format(x), what, format(.Machine$double.xmax / 4, digits = 3), name,
      format(bound, digits = 3)), call = call)
  }
}

#' Initial conditions for lrmd()
#'
#' Phase-space starts for the three models of [lrmd()], drawn from the
#' package's Philox streams (purpose 11), so that a `seed` gives the same
#' particles on every machine.
#'
#' * `hmf_waterbag(n, M0, U)`: the HMF waterbag. Angles uniform on
#'   \eqn{[-\Delta, \Delta]} with \eqn{\sin\Delta / \Delta = M_0} (so that
#'   the expected magnetisation is \eqn{M_0}; \eqn{M_0 = 1}: all angles 0),
#'   momenta uniform on \eqn{[-w, w]}, shifted to a total momentum of zero
#'   and scaled so that the energy per particle of the sample is exactly
#'   `U` (the potential energy \eqn{(1 - M^2)/2} of the drawn angles plus
#'   the kinetic energy). `U` must be at least \eqn{(1 - M_0^2)/2}, the
#'   energy of the waterbag at rest; the minimum energy of the model is 0
#'   (\eqn{M = 1}, at rest).
#' * `hmf_equilibrium(n, T)`: a sample of the HMF equilibrium at
#'   temperature \eqn{T}: angles from the von Mises law \eqn{\propto
#'   \exp((M/T) \cos\theta)} with the self-consistent \eqn{M =}
#'   [hmf_magnetization()]`(T)` (its distribution function tabulated on
#'   \eqn{2^{16}} intervals and interpolated linearly), momenta normal with
#'   variance \eqn{T}, shifted to a total momentum of zero.
#' * `ring_uniform(n, p0)`: the ring model's homogeneous start: angles
#'   uniform on \eqn{(-\pi, \pi)}, momenta uniform on \eqn{[-p_0, p_0]}
#'   (shifted to zero total momentum; `p0 = 0`: at rest, as in Rocha Filho 2014).
#' * `gravity2d_shell(n, r_in, r_out)`: the 2D self-gravitating system at
#'   rest, uniform on the annulus \eqn{r_{in} \le r \le r_{out}} (Rocha
#'   Filho 2014), shifted so that the centre of mass is at the origin.
#'
#' **Drawn when read.** A start is a small object: its model, `n`, its
#' parameters and its seed, whose particles are drawn only when they are
#' first read -- a column (`w$p`), a row, `print()`, `head()`,
#' `as.matrix()`, a plot -- all at once, on the CPU's threads (the package's
#' [sp_threads()]); it is a data frame for every use. [lrmd()] given a start
#' none of whose columns was read draws the particles itself, on the CPU or
#' on the GPU, where the run is: no data frame is made and nothing is copied
#' to the GPU. Both draws give the same numbers: bit for bit on the CPU
#' (for any number of threads); on the GPU the angles of `hmf_waterbag()`,
#' `hmf_equilibrium()` and `ring_uniform()` are the same bits, the momenta
#' and the shell's coordinates agree to rounding (the means and the scale
#' are sums formed in another order, and the GPU's sine and cosine round
#' differently). So making a start costs nothing at any `n`, and a
#' waterbag whose `U` is below the potential energy of its drawn angles
#' (possible only for `U` within the sampling fluctuation of
#' \eqn{(1 - M_0^2)/2}) is refused when it is drawn, not when it is made.
#'
#' **Grids.** Any parameter (`M0`, `U`, `T`, `p0`, `r_in`, `r_out`) may be a
#' vector: the result is then an object of class `lrmd_starts`, the starts
#' of every combination (element `grid`, one row per condition in
#' [expand.grid()] order, the first parameter varying fastest; element
#' `starts`, their starts, all with the one seed), which [lrmd()] runs as a
#' sweep, the records carrying a column per swept parameter. [lrmd()]'s
#' replicas of a start draw from streams of their own (see [lrmd()],
#' Replicas and sweeps); the start itself is replica 1.
#'
#' Each function checks, when it is called, the memory the drawn start
#' needs (16 bytes a particle, 32 for `gravity2d_shell()`) against the
#' memory available, and refuses an energy `U`, temperature `T` or width
#' `p0` whose momenta would overflow double precision (their squares,
#' summed over the particles, must stay below a quarter of the largest
#' double: for example \eqn{U \le 2.2 \times 10^{307} / n}{U <= 2.2e307 / n}).
#'
#' @param n Number of particles (at least 2).
#' @param M0 Magnetisation of the waterbag, in \eqn{[0, 1]} (a vector: a grid).
#' @param U Energy per particle (a vector: a grid).
#' @param T Temperature \eqn{T > 0} (a vector: a grid).
#' @param p0 Half width of the uniform momenta (0: at rest; a vector: a grid).
#' @param r_in,r_out Inner and outer radius of the annulus, \eqn{0 \le
#'   r_{in} < r_{out}}.
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#' @return An object of class `lrmd_init`: a data frame with columns
#'   `theta`, `p` (HMF, ring) or `x`, `y`, `px`, `py` (gravity2d), drawn
#'   when first read, and attributes `model`, `params`, `seed`, `seed_hex`;
#'   pass it as `init` to [lrmd()]. With a vector parameter, an object of
#'   class `lrmd_starts` (see Grids). A start (not a grid) is also the
#'   `init` of [sde_run()] for a many-body model of as many states, whose
#'   engine draws it the same way (see [sde_run()], Systems of many
#'   elements).
#' @seealso [lrmd()], [hmf_caloric()].
#' @references
#' Rocha Filho, T. M. (2014) Molecular dynamics for long-range interacting
#'   systems on graphic processing units. *Computer Physics Communications*
#'   185, 1364-1369. \doi{10.1016/j.cpc.2014.01.008}
#' @examples
#' w <- hmf_waterbag(1000, M0 = 1, U = 0.69, seed = 1)
#' head(w)
#' e <- hmf_equilibrium(1000, T = 0.4, seed = 1)
#' sqrt(mean(cos(e$theta))^2 + mean(sin(e$theta))^2) # about hmf_magnetization(0.4)
#' g <- gravity2d_shell(500, 0.5, 1, seed = 1)
#' # a large start costs nothing until it is read (lrmd() draws it itself)
#' big <- hmf_waterbag(1e7, M0 = 1, U = 0.69, seed = 1)
#' nrow(big)
#' # a grid of starts: lrmd() runs one condition each
#' hmf_waterbag(1000, M0 = 1, U = c(0.6, 0.69, 0.8), seed = 1)
#' @export
hmf_waterbag <- function(n, M0, U, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "hmf_waterbag", 2, call)
  M0 <- check_range(M0, "M0", 0, 1, call = call)
  U <- check_range(U, "U", call = call)
  seed <- resolve_seed(seed, call = call)
  lrmd_start_grid(list(M0 = M0, U = U), function(M0, U) {
    umin <- (1 - M0^2) / 2
    if (U < 0 || U < umin) {
      sp_abort(sprintf(paste0(
        "`U` = %s is below the minimum energy per particle of a waterbag with M0 = %s, ",
        "(1 - M0^2)/2 = %s (its particles at rest); the HMF model's minimum energy is 0 ",
        "(M = 1, at rest)."), format(U), format(M0), format(umin)), call = call)
    }
    # the squared momenta sum to 2 n (U - V) <= 2 n U
    lrmd_check_momenta(U, "U", .Machine$double.xmax / (8 * n),
                       sprintf("the momenta of %s particles at this energy", fmt_count(n)), call)
    # half width of the angles: sin(d) / d = M0
    d <- if (M0 >= 1) 0 else if (M0 <= 0) pi else
      stats::uniroot(function(d) sin(d) / d - M0, c(1e-12, pi), tol = 1e-15)$root
    lrmd_start_object("waterbag", "hmf", n, a = d, b = 0,
                      params = list(n = n, M0 = M0, U = U, width = d), seed = seed, U = U,
                      M0 = M0)
  }, "hmf", n, seed)
}

#' @rdname hmf_waterbag
#' @export
hmf_equilibrium <- function(n, T, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "hmf_equilibrium", 2, call)
  T <- check_positive(T, "T", call = call)
  seed <- resolve_seed(seed, call = call)
  lrmd_start_grid(list(T = T), function(T) {
    # momenta sqrt(T) z, z a normal draw of Box-Muller from 32-bit uniforms: z^2
    # <= 2 log(2^32) < 44.4, so their squares sum to less than 44.4 n T
    lrmd_check_momenta(T, "T", .Machine$double.xmax / (4 * 44.4 * n),
                       sprintf("the momenta of %s particles at this temperature", fmt_count(n)),
                       call)
    M <- hmf_magnetization(T)
    lrmd_start_object("equilibrium", "hmf", n, a = sqrt(T), b = M / T,
                      params = list(n = n, T = T, M = M), seed = seed)
  }, "hmf", n, seed)
}

#' @rdname hmf_waterbag
#' @export
ring_uniform <- function(n, p0 = 0, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "ring_uniform", 2, call)
  p0 <- check_positive(p0, "p0", allow_zero = TRUE, call = call)
  seed <- resolve_seed(seed, call = call)
  lrmd_start_grid(list(p0 = p0), function(p0) {
    # momenta within [-2 p0, 2 p0] after the shift: squares summing to at most 4 n p0^2
    lrmd_check_momenta(p0, "p0", sqrt(.Machine$double.xmax / (16 * n)),
                       sprintf("the momenta of %s particles", fmt_count(n)), call)
    lrmd_start_object("ring", "ring", n, a = p0, b = 0, params = list(n = n, p0 = p0),
                      seed = seed)
  }, "ring", n, seed)
}

#' @rdname hmf_waterbag
#' @export
gravity2d_shell <- function(n, r_in, r_out, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "gravity2d_shell", 4, call)
  r_in <- check_positive(r_in, "r_in", allow_zero = TRUE, call = call)
  r_out <- check_positive(r_out, "r_out", call = call)
  seed <- resolve_seed(seed, call = call)
  lrmd_start_grid(list(r_in = r_in, r_out = r_out), function(r_in, r_out) {
    if (r_out <= r_in) {
      sp_abort(sprintf("`r_out` (%s) must be larger than `r_in` (%s).", format(r_out),
                       format(r_in)), call = call)
    }
    lrmd_start_object("shell", "gravity2d", n, a = r_in^2, b = r_out^2 - r_in^2,
                      params = list(n = n, r_in = r_in, r_out = r_out), seed = seed)
  }, "gravity2d", n, seed)
}

#' @export
print.lrmd_starts <- function(x, ...) {
  g <- x$grid
  cli::cat_line(sprintf("<lrmd_starts> %s starts of %s particles, %d condition%s of %s",
                        attr(x, "model"), fmt_count(attr(x, "n")), nrow(g),
                        if (nrow(g) == 1) "" else "s", paste(names(g), collapse = ", ")))
  print(g, ...)
  invisible(x)
}

#' @export
print.lrmd_init <- function(x, n = 6, ...) {
  p <- attr(x, "params")
  cli::cat_line(sprintf("<lrmd_init> %s start of %s particles (%s)", attr(x, "model"),
                        fmt_count(nrow(x)),
                        paste(names(p)[-1], vapply(p[-1], format, ""), sep = " = ",
                              collapse = ", ")))
  y <- x
  class(y) <- "data.frame" # (structure() would expand the row names)
  print(utils::head(y, n), digits = 5, ...)
  invisible(x)
}
