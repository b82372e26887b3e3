#' Equilibrium of the Hamiltonian mean-field (HMF) model
#'
#' The canonical (and, for the HMF model, microcanonical) equilibrium of
#' the HMF model of [lrmd()], \eqn{H = \sum_i p_i^2/2 + (1/2N) \sum_{ij} [1 -
#' \cos(\theta_i - \theta_j)]}, for \eqn{N \to \infty}: the magnetisation
#' \eqn{M} solves the self-consistency \eqn{M = I_1(M/T) / I_0(M/T)}
#' (\eqn{I_k} the modified Bessel functions; the angles follow the von Mises
#' law \eqn{\propto \exp((M/T) \cos\theta)}), with \eqn{M > 0} below the
#' critical temperature \eqn{T_c = 1/2}, and the energy per particle is
#' \eqn{U = T/2 + (1 - M^2)/2}; the critical energy is \eqn{U_c = 3/4}.
#'
#' `hmf_magnetization(T)` gives \eqn{M(T)}; `hmf_caloric(U)` the caloric
#' curve: \eqn{T} and \eqn{M} at energy per particle \eqn{U} (\eqn{T = 2U -
#' 1}, \eqn{M = 0} above \eqn{U_c}). The roots are found by [stats::uniroot()]
#' to about 1e-12.
#'
#' @param T Temperatures \eqn{T \ge 0} (a vector).
#' @param U Energies per particle (a vector), at least 0, the minimum
#'   energy of the model (all angles equal, at rest).
#' @return `hmf_magnetization()`: a numeric vector of \eqn{M}.
#'   `hmf_caloric()`: a data frame with columns `U`, `T`, `M`.
#' @references Antoni, M. and Ruffo, S. (1995) Clustering and relaxation in
#'   Hamiltonian long-range dynamics. *Physical Review E* 52, 2361 \doi{10.1103/PhysRevE.52.2361}; Rocha
#'   Filho, T. M. (2014) Molecular dynamics for long-range interacting
#'   systems on graphic processing units. *Computer Physics Communications*
#'   185, 1364-1369 \doi{10.1016/j.cpc.2014.01.008}.
#' @seealso [lrmd()], [hmf_equilibrium()].
#' @examples
#' hmf_magnetization(c(0.1, 0.3, 0.45, 0.5, 1))
#' hmf_caloric(c(0.2, 0.69, 0.75, 1))
#' @export
hmf_magnetization <- function(T) {
  call <- sys.call()
  T <- check_positive(T, "T", allow_zero = TRUE, call = call)
  vapply(T, hmf_m_of_t, 0)
}

#' @rdname hmf_magnetization
#' @export
hmf_caloric <- function(U) {
  call <- sys.call()
  U <- check_finite(U, "U", call = call)
  if (any(U < 0)) {
    sp_abort(sprintf(paste0("`U` must be at least 0, the minimum energy per particle of the ",
                            "HMF model (all angles equal, at rest); %s is below it."),
                     format(U[U < 0][1])), call = call)
  }
  res <- lapply(U, function(u) {
    if (u >= 0.75) return(c(2 * u - 1, 0))
    if (u == 0) return(c(0, 1))
    # along the curve parametrised by x = M / T: M = I1(x) / I0(x), U
    # falls from 3/4 (x -> 0) to 0 (x -> Inf)
    f <- function(lx) hmf_u_of_x(exp(lx)) - u
    x <- exp(stats::uniroot(f, c(-20, 30), tol = 1e-13, extendInt = "downX")$root)
    m <- hmf_bessel_ratio(x)
    c(m / x, m)
  })
  m <- matrix(unlist(res), nrow = 2)
  data.frame(U = U, T = m[1, ], M = m[2, ])
}

# I1(x) / I0(x): scaled Bessel functions, and beyond x = 1e4 (where R's
# besselI() gives up near 1e6) the asymptotic series 1 - 1/(2x) - 1/(8x^2)
# - 1/(8x^3), exact to rounding there.
hmf_bessel_ratio <- function(x) {
  if (x > 1e4) return(1 - 1 / (2 * x) - 1 / (8 * x^2) - 1 / (8 * x^3))
  besselI(x, 1, TRUE) / besselI(x, 0, TRUE)
}

# M(T): the positive root of M = I1(M/T) / I0(M/T) below T = 1/2, else 0.
hmf_m_of_t <- function(t) {
  if (t >= 0.5) return(0)
  if (t == 0) return(1)
  f <- function(m) hmf_bessel_ratio(m / t) - m
  stats::uniroot(f, c(1e-9, 1), tol = 1e-14)$root
}

# U on the equilibrium curve at x = M / T.
hmf_u_of_x <- function(x) {
  m <- hmf_bessel_ratio(x)
  m / (2 * x) + (1 - m^2) / 2
}
