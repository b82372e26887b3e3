# Initial conditions of lrmd(): objects of class "lrmd_init", a data frame
# of positions and momenta (theta, p for HMF and ring; x, y, px, py for
# gravity2d) with attributes model, params and seed.  Random numbers: Philox
# purpose 11 (SP_PURPOSE_LRMD_INIT of inst/cuda/sp_streams.h), stream 0 for
# the first position coordinate, 1 the second, 2 the momenta; draw i from
# block floor(i / 4).

lrmd_draws <- function(seed, stream, kind, n) {
  .Call(C_sp_r_lrmd_draws, seed, check_u64(stream, "stream"), if (kind == "uniform") 0L else 1L, n)
}

lrmd_init_object <- function(df, model, params, seed) {
  structure(df, model = model, params = params, seed = u64_to_double(seed),
            class = c("lrmd_init", "data.frame"))
}

# `n`, checked, and the memory drawing the start needs against the memory
# available, before anything is allocated: 128 B a particle for every start
# (peaks measured as for lrmd_bytes(): 28-71 B a particle at n = 1e6 and 1e7,
# up to 111 B at n = 3e4, where R collects less of the temporaries).
lrmd_check_n <- function(n, start, call) {
  if (missing(n)) sp_abort("`n` (the number of particles) must be given.", call = call)
  n <- check_whole(n, "n", lo = 2, hi = 2^31 - 1, call = call)
  per <- 128
  avail <- available_memory()
  if (n * per > avail) {
    sp_abort(sprintf(paste0(
      "`n` = %s particles would need about %s of memory to draw the start (%s(): %d B a ",
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
#'   [hmf_magnetization()]`(T)`, momenta normal with variance \eqn{T},
#'   shifted to a total momentum of zero.
#' * `ring_uniform(n, p0)`: the ring model's homogeneous start: angles
#'   uniform on \eqn{(-\pi, \pi)}, momenta uniform on \eqn{[-p_0, p_0]}
#'   (shifted to zero total momentum; `p0 = 0`: at rest, as in paper 004).
#' * `gravity2d_shell(n, r_in, r_out)`: the 2D self-gravitating system at
#'   rest, uniform on the annulus \eqn{r_{in} \le r \le r_{out}} (paper
#'   004), shifted so that the centre of mass is at the origin.
#'
#' Each function checks, before it allocates anything, the memory drawing
#' the start needs (128 bytes a particle, measured) against the memory
#' available, and refuses an energy `U`, temperature `T` or width `p0` whose
#' momenta would overflow double precision (their squares, summed over the
#' particles, must stay below a quarter of the largest double: for example
#' \eqn{U \le 2.2 \times 10^{307} / n}{U <= 2.2e307 / n}).
#'
#' @param n Number of particles (at least 2).
#' @param M0 Magnetisation of the waterbag, in \eqn{[0, 1]}.
#' @param U Energy per particle.
#' @param T Temperature \eqn{T > 0}.
#' @param p0 Half width of the uniform momenta (0: at rest).
#' @param r_in,r_out Inner and outer radius of the annulus, \eqn{0 \le
#'   r_{in} < r_{out}}.
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#' @return An object of class `lrmd_init`: a data frame with columns
#'   `theta`, `p` (HMF, ring) or `x`, `y`, `px`, `py` (gravity2d), and
#'   attributes `model`, `params`, `seed`; pass it as `init` to [lrmd()].
#' @seealso [lrmd()], [hmf_caloric()].
#' @examples
#' w <- hmf_waterbag(1000, M0 = 1, U = 0.69, seed = 1)
#' head(w)
#' e <- hmf_equilibrium(1000, T = 0.4, seed = 1)
#' sqrt(mean(cos(e$theta))^2 + mean(sin(e$theta))^2) # about hmf_magnetization(0.4)
#' g <- gravity2d_shell(500, 0.5, 1, seed = 1)
#' @export
hmf_waterbag <- function(n, M0, U, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "hmf_waterbag", call)
  M0 <- check_range(M0, "M0", 0, 1, len = 1, call = call)
  U <- check_range(U, "U", len = 1, call = call)
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
  seed <- resolve_seed(seed, call = call)
  # half width of the angles: sin(d) / d = M0
  d <- if (M0 >= 1) 0 else if (M0 <= 0) pi else
    stats::uniroot(function(d) sin(d) / d - M0, c(1e-12, pi), tol = 1e-15)$root
  theta <- d * (2 * lrmd_draws(seed, 0, "uniform", n) - 1)
  p <- 2 * lrmd_draws(seed, 2, "uniform", n) - 1
  p <- p - mean(p)
  M2 <- mean(cos(theta))^2 + mean(sin(theta))^2
  kin <- U - (1 - M2) / 2 # kinetic energy per particle of the sample
  if (kin < 0) {
    sp_abort(sprintf(paste0(
      "`U` = %s is below the potential energy per particle of the drawn angles (%s): ",
      "with M0 = %s, U must exceed (1 - M0^2)/2 = %s by the sampling fluctuation; ",
      "raise U or n."), format(U), format((1 - M2) / 2), format(M0), format(umin)),
      call = call)
  }
  p <- p * sqrt(2 * kin / mean(p^2))
  lrmd_init_object(data.frame(theta = theta, p = p), "hmf",
                   list(n = n, M0 = M0, U = U, width = d), seed)
}

#' @rdname hmf_waterbag
#' @export
hmf_equilibrium <- function(n, T, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "hmf_equilibrium", call)
  T <- check_positive(T, "T", len = 1, call = call)
  # momenta sqrt(T) z, z a normal draw of Box-Muller from 32-bit uniforms: z^2
  # <= 2 log(2^32) < 44.4, so their squares sum to less than 44.4 n T
  lrmd_check_momenta(T, "T", .Machine$double.xmax / (4 * 44.4 * n),
                     sprintf("the momenta of %s particles at this temperature", fmt_count(n)),
                     call)
  seed <- resolve_seed(seed, call = call)
  M <- hmf_magnetization(T)
  kappa <- M / T
  u <- lrmd_draws(seed, 0, "uniform", n)
  theta <- if (kappa == 0) pi * (2 * u - 1) else {
    # inverse of the von Mises distribution function, tabulated on a fine
    # grid (2^16 intervals: the interpolation error is far below 1e-6)
    g <- seq(-pi, pi, length.out = 2^16 + 1)
    f <- exp(kappa * (cos(g) - 1))
    cdf <- c(0, cumsum((f[-1] + f[-length(f)]) / 2))
    stats::approx(cdf / cdf[length(cdf)], g, xout = u, ties = "ordered")$y
  }
  p <- sqrt(T) * lrmd_draws(seed, 2, "normal", n)
  p <- p - mean(p)
  lrmd_init_object(data.frame(theta = theta, p = p), "hmf", list(n = n, T = T, M = M), seed)
}

#' @rdname hmf_waterbag
#' @export
ring_uniform <- function(n, p0 = 0, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "ring_uniform", call)
  p0 <- check_positive(p0, "p0", len = 1, allow_zero = TRUE, call = call)
  # momenta within [-2 p0, 2 p0] after the shift: squares summing to at most 4 n p0^2
  lrmd_check_momenta(p0, "p0", sqrt(.Machine$double.xmax / (16 * n)),
                     sprintf("the momenta of %s particles", fmt_count(n)), call)
  seed <- resolve_seed(seed, call = call)
  theta <- pi * (2 * lrmd_draws(seed, 0, "uniform", n) - 1)
  p <- if (p0 > 0) {
    v <- p0 * (2 * lrmd_draws(seed, 2, "uniform", n) - 1)
    v - mean(v)
  } else double(n)
  lrmd_init_object(data.frame(theta = theta, p = p), "ring", list(n = n, p0 = p0), seed)
}

#' @rdname hmf_waterbag
#' @export
gravity2d_shell <- function(n, r_in, r_out, seed = NULL) {
  call <- sys.call()
  n <- lrmd_check_n(n, "gravity2d_shell", call)
  r_in <- check_positive(r_in, "r_in", len = 1, allow_zero = TRUE, call = call)
  r_out <- check_positive(r_out, "r_out", len = 1, call = call)
  if (r_out <= r_in) {
    sp_abort(sprintf("`r_out` (%s) must be larger than `r_in` (%s).", format(r_out),
                     format(r_in)), call = call)
  }
  seed <- resolve_seed(seed, call = call)
  r <- sqrt(r_in^2 + (r_out^2 - r_in^2) * lrmd_draws(seed, 0, "uniform", n))
  phi <- 2 * pi * lrmd_draws(seed, 1, "uniform", n)
  x <- r * cos(phi)
  y <- r * sin(phi)
  lrmd_init_object(data.frame(x = x - mean(x), y = y - mean(y), px = double(n), py = double(n)),
                   "gravity2d", list(n = n, r_in = r_in, r_out = r_out), seed)
}

#' @export
print.lrmd_init <- function(x, n = 6, ...) {
  p <- attr(x, "params")
  cli::cat_line(sprintf("<lrmd_init> %s start of %s particles (%s)", attr(x, "model"),
                        fmt_count(nrow(x)),
                        paste(names(p)[-1], vapply(p[-1], format, ""), sep = " = ",
                              collapse = ", ")))
  print(utils::head(structure(x, class = "data.frame"), n), digits = 5, ...)
  invisible(x)
}
