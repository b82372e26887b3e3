# Pair physics of liquid 4He (Lutsyshyn 2015): the Aziz HFD-B(HE) potential,
# McMillan's Jastrow factor in a periodic box, the tail correction of the
# potential energy and (internal) the local energy of one configuration.
# The potential, the Jastrow factor and the local energy are evaluated by
# the C code the engines use (inst/cuda/he4.h, src/core/sp_he4_energy.c).

# hbar^2 / m(4He), K A^2 (REFERENCES.md section 4; SP_HE4_HB2M in he4.h)
HE4_HB2M <- 12.119296
# The zero of the Aziz potential (A): the core a box must hold.
HE4_CORE <- 2.63692
# x = D, where the damping of the dispersion ends (D r_m, A)
HE4_DAMP_END <- 1.4826 * 2.963

#' Aziz HFD-B(HE) helium pair potential
#'
#' The helium-helium interaction of Aziz, McCourt and Wong (1987), HFD-B(HE),
#' used by the variational Monte Carlo of liquid \eqn{^4}He (Lutsyshyn 2015,
#' "Aziz II"). With \eqn{x = r/r_m},
#' \deqn{V(r) = \epsilon\,[A e^{-\alpha x + \beta x^2} - F(x)(C_6/x^6 +
#'   C_8/x^8 + C_{10}/x^{10})],}
#' \eqn{F(x) = \exp(-(D/x - 1)^2)} for \eqn{x < D}, else 1, with
#' \eqn{\epsilon/k_B = 10.948} K, \eqn{r_m = 2.963} Å,
#' \eqn{A = 1.8443101\times10^5}, \eqn{\alpha = 10.43329537},
#' \eqn{\beta = -2.27965105}, \eqn{C_6 = 1.36745214},
#' \eqn{C_8 = 0.42123807}, \eqn{C_{10} = 0.17473318}, \eqn{D = 1.4826}.
#' (\eqn{r_m = 2.9673} Å belongs to the older HFDHE2 potential of 1979.)
#'
#' The values come from the same C function the simulation engines use on
#' the CPU and, compiled by NVRTC, on the GPU (`inst/cuda/he4.h`), in double
#' precision. \eqn{V} vanishes at 2.63692 Å and has its minimum,
#' \eqn{-10.948} K, at \eqn{r_m}.
#'
#' @param r Distances in ångström: a numeric vector (or array) of positive
#'   finite numbers.
#' @return \eqn{V(r)} in kelvin, with the names and dimensions of `r`.
#' @references Aziz, R. A., McCourt, F. R. W. and Wong, C. C. K. (1987) A new
#'   determination of the ground state interatomic potential for He2.
#'   *Molecular Physics* 61, 1487-1511 \doi{10.1080/00268978700101941}.
#'
#'   Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer
#'   Physics Communications* 187, 162-174 \doi{10.1016/j.cpc.2014.10.016};
#'   arXiv:1312.1282.
#' @seealso [jastrow_mcmillan()], [he4_tail_correction()].
#' @examples
#' aziz_potential(c(2.5, 2.963, 3.5, 5))
#' curve(aziz_potential(x), 2.4, 8, ylim = c(-11, 10),
#'       xlab = "r (angstrom)", ylab = "V (K)")
#' @export
aziz_potential <- function(r) {
  x <- check_positive(r, "r")
  keep_shape(.Call(C_sp_r_he4_aziz, x, FALSE), r)
}

#' McMillan's Jastrow exponent in a periodic box
#'
#' The pair exponent of the trial function
#' \eqn{\psi = \exp(\sum_{i<j} u(r_{ij}))} of McMillan (1965),
#' \deqn{u(r) = -\frac12 (b/r)^5,}
#' or its first or second radial derivative. Without a box (`L = Inf`) this
#' is \eqn{u} itself. In a cubic periodic box of side `L` the pair sums stop
#' at \eqn{L/2}, and \eqn{u} is either
#' * `"symmetrized"`: \eqn{u_s(r) = u(r) + u(L - r) - 2u(L/2)} for
#'   \eqn{r \le L/2}, 0 beyond, so that \eqn{u_s} and \eqn{u_s'} vanish at
#'   \eqn{L/2} (\eqn{u_s'' = u''(r) + u''(L - r)} does not); or
#' * `"truncated"`: \eqn{u(r)} for \eqn{r \le L/2}, 0 beyond; \eqn{u} and
#'   \eqn{u'} jump at \eqn{L/2}.
#'
#' With the symmetrised form the Pandharipande-Bethe (Laplacian) and
#' Jackson-Feenberg kinetic-energy estimators agree in expectation; with the
#' truncated one they do not. At \eqn{r = L/2} the value returned is the
#' limit from below.
#'
#' The values come from the C function the simulation engines use
#' (`inst/cuda/he4.h`), in double precision.
#'
#' @param r Distances in ångström: a numeric vector of positive finite
#'   numbers.
#' @param b McMillan's parameter in ångström (3.07 Å for liquid
#'   \eqn{^4}He at equilibrium density, Lutsyshyn 2015).
#' @param L Side of the cubic periodic box in ångström, or `Inf` for no box.
#' @param form `"symmetrized"` or `"truncated"` (ignored when `L = Inf`).
#' @param deriv 0 for \eqn{u}, 1 for \eqn{du/dr}, 2 for \eqn{d^2u/dr^2}.
#' @return Numeric vector like `r` (per ångström to the power `deriv`).
#' @references McMillan, W. L. (1965) Ground state of liquid He4.
#'   *Physical Review* 138, A442-A451 \doi{10.1103/PhysRev.138.A442}.
#'
#'   Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer
#'   Physics Communications* 187, 162-174 \doi{10.1016/j.cpc.2014.10.016};
#'   arXiv:1312.1282.
#' @seealso [aziz_potential()].
#' @examples
#' r <- seq(2, 6, by = 0.5)
#' jastrow_mcmillan(r, b = 3.07)
#' jastrow_mcmillan(r, b = 3.07, L = 12)               # symmetrised
#' jastrow_mcmillan(r, b = 3.07, L = 12, deriv = 1)    # 0 at L/2 = 6
#' jastrow_mcmillan(6, b = 3.07, L = 12, form = "truncated", deriv = 1)
#' @export
jastrow_mcmillan <- function(r, b, L = Inf, form = c("symmetrized", "truncated"),
                             deriv = 0) {
  call <- sys.call()
  x <- check_positive(r, "r", call = call)
  b <- check_positive(b, "b", len = 1, call = call)
  L <- check_box_side(L, "L", allow_inf = TRUE, core = FALSE, call = call)
  form <- check_choice(form, c("symmetrized", "truncated"), "form", call = call)
  deriv <- check_whole(deriv, "deriv", lo = 0, hi = 2, call = call)
  keep_shape(.Call(C_sp_r_he4_jastrow, x, b, L, he4_form_code(form, L), deriv, FALSE), r)
}

#' Tail correction of the helium potential energy
#'
#' The potential energy per atom of liquid \eqn{^4}He left out when pairs
#' are counted only up to half the box side, under the usual assumption
#' that the pair distribution is 1 beyond:
#' \deqn{\Delta V/N = 2\pi\rho \int_{L/2}^\infty r^2 V(r)\,dr,}
#' with \eqn{V} the Aziz HFD-B(HE) potential ([aziz_potential()]). It is
#' reported apart from the simulated energy, which it is added to.
#'
#' The integral is computed by adaptive quadrature ([stats::integrate()],
#' to relative tolerance `rel.tol`, split where the damping of the
#' dispersion ends, at \eqn{D r_m = 4.393} Å); beyond that point it has a
#' closed form (error functions and inverse powers), which the package's
#' tests check it against.
#'
#' @param density Number density in atoms per cubic ångström (the
#'   equilibrium density of liquid \eqn{^4}He is 0.02186 Å\eqn{^{-3}} =
#'   21.86 nm\eqn{^{-3}}).
#' @param L Side of the cubic box in ångström; \eqn{L/2} must lie outside
#'   the core of the potential (\eqn{L > 2 \times 2.63692} Å).
#' @param rel.tol Relative tolerance of the quadrature.
#' @return The tail correction per atom in kelvin (negative), one per element
#'   of the recycled `density` and `L`.
#' @references Aziz, R. A., McCourt, F. R. W. and Wong, C. C. K. (1987)
#'   *Molecular Physics* 61, 1487-1511 \doi{10.1080/00268978700101941}.
#'
#'   Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer
#'   Physics Communications* 187, 162-174 \doi{10.1016/j.cpc.2014.10.016};
#'   arXiv:1312.1282.
#' @examples
#' # N = 64 atoms at the equilibrium density
#' rho <- 0.02186
#' he4_tail_correction(rho, L = (64 / rho)^(1/3))
#' @export
he4_tail_correction <- function(density, L, rel.tol = 1e-10) {
  call <- sys.call()
  density <- check_positive(density, "density", call = call)
  L <- check_box_side(L, "L", len = NULL, call = call)
  rel.tol <- check_range(rel.tol, "rel.tol", lo = 1e-14, hi = 1e-2, len = 1, call = call)
  if (any(density > 0.1)) {
    sp_warn(sprintf(paste0(
      "`density` = %s atoms per cubic angstrom is several times that of solid ",
      "helium; was it given per cubic nanometre (%s A^-3)?"),
      format(max(density)), format(max(density) / 1000)), call = call)
  }
  args <- recycle_args(list(density = density, L = L), call = call)
  integrand <- function(r) r^2 * .Call(C_sp_r_he4_aziz, r, FALSE)
  quad <- function(lo, hi) {
    res <- stats::integrate(integrand, lo, hi, rel.tol = rel.tol, abs.tol = 0,
                            subdivisions = 1000L, stop.on.error = FALSE)
    if (!identical(res$message, "OK")) {
      sp_abort(sprintf("the tail integral from %s A did not converge: %s",
                       format(lo), res$message), call = call)
    }
    res$value
  }
  rc <- args$L / 2
  integral <- vapply(rc, function(a) {
    mid <- max(a, HE4_DAMP_END)
    (if (mid > a) quad(a, mid) else 0) + quad(mid, Inf)
  }, numeric(1))
  2 * pi * args$density * integral
}

# The local energy per atom of one configuration (the CPU reference of the
# VMC engine's energy kernel, src/core/sp_he4_energy.c): coords an N x 3
# matrix (A), L the box side, b McMillan's parameter, pairs counted for
# r < L/2 (minimum image).  Returns c(potential, kinetic_pb, kinetic_jf,
# kinetic_grad) in K per atom:
#   kinetic_pb   = -(hbar^2/2m)(1/N) sum_i [lap_i U + |grad_i U|^2]
#   kinetic_jf   = -(hbar^2/4m)(1/N) sum_i lap_i U
#   kinetic_grad =  (hbar^2/2m)(1/N) sum_i |grad_i U|^2
# (U = ln psi), so that kinetic_pb = 2 kinetic_jf - kinetic_grad for every
# configuration.  No tail correction.
he4_local_energy <- function(coords, L, b, form = c("symmetrized", "truncated")) {
  call <- sys.call()
  if (!is.matrix(coords) || !is.numeric(coords) || ncol(coords) != 3 ||
      nrow(coords) < 2 || !all(is.finite(coords))) {
    shown <- if (is.matrix(coords)) sprintf("a %d x %d %s matrix", nrow(coords),
                                            ncol(coords), typeof(coords))
             else describe(coords)
    if (is.matrix(coords) && is.numeric(coords) && !all(is.finite(coords)))
      shown <- "a matrix with non-finite values"
    sp_abort(sprintf(paste0(
      "`coords` must be a numeric N x 3 matrix (x, y, z of N >= 2 atoms in ",
      "angstrom) of finite numbers, not %s."), shown), call = call)
  }
  L <- check_box_side(L, "L", call = call)
  b <- check_positive(b, "b", len = 1, call = call)
  form <- check_choice(form, c("symmetrized", "truncated"), "form", call = call)
  storage.mode(coords) <- "double"
  .Call(C_sp_r_he4_local_energy, coords, L, b, he4_form_code(form, L))
}

# SP_HE4_JASTROW_* of he4_args.h
he4_form_code <- function(form, L) {
  if (is.infinite(L)) return(0L)
  if (form == "truncated") 1L else 2L
}

# A box side in A: positive (or Inf where allowed); with `core`, finite
# sides must put L/2 outside the core of the potential.
check_box_side <- function(L, name, len = 1, allow_inf = FALSE, core = TRUE,
                           call = caller_call()) {
  bad_type <- !is.numeric(L) || length(L) == 0 || (!is.null(len) && length(L) != len)
  if (!bad_type) bad <- is.na(L) | !(L > 0) | (!allow_inf & !is.finite(L))
  if (bad_type || any(bad)) {
    shape <- if (identical(len, 1)) "a single positive number" else
      "a numeric vector of positive numbers"
    shown <- if (bad_type) describe(L) else describe(L[which(bad)[1]])
    sp_abort(sprintf("`%s` (the box side in angstrom) must be %s%s, not %s.",
                     name, shape, if (allow_inf) " or Inf" else " (finite)", shown),
             call = call)
  }
  small <- is.finite(L) & L / 2 <= HE4_CORE
  if (core && any(small)) {
    sp_abort(sprintf(paste0(
      "The box side `%s` = %s A is too small: half of it, %s A, lies inside ",
      "the core of the helium potential (V = 0 at %s A); the box side must ",
      "exceed %s A."), name, format(L[small][1]), format(L[small][1] / 2),
      format(HE4_CORE), format(2 * HE4_CORE)), call = call)
  }
  as.double(L)
}

# The names and dimensions of x on the result.
keep_shape <- function(out, x) {
  if (!is.null(dim(x))) {
    dim(out) <- dim(x)
    dimnames(out) <- dimnames(x)
  } else {
    names(out) <- names(x)
  }
  out
}
