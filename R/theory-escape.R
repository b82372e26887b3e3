# Thermal escape over the tilted washboard U(phi) = -V0 (cos phi + gamma phi)
# in the normalised units of jj_units().  Internally the bias enters as
# omx = 1 - gamma, so that every quantity stays accurate as gamma -> 1.

# Delta U / (2 V0) = sin(a) - a cos(a) with a = acos(gamma), by its Taylor
# series sum_k (-1)^(k+1) 2k a^(2k+1) / (2k+1)! where the closed form
# cancels (small a, i.e. gamma near 1).
barrier_omx <- function(omx, V0) {
  a <- 2 * asin(sqrt(omx / 2)) # acos(1 - omx), accurate for small omx
  out <- sin(a) - a * cos(a)
  small <- a < 0.25
  if (any(small)) {
    as <- a[small]
    a2 <- as * as
    k <- 8:1
    coef <- (-1)^(k + 1) * 2 * k / factorial(2 * k + 1)
    poly <- numeric(length(as))
    for (ck in coef) poly <- poly * a2 + ck
    out[small] <- as^3 * poly
  }
  2 * V0 * out
}

# Well (and saddle) frequency sqrt(V0) (1 - gamma^2)^(1/4).
omega0_omx <- function(omx, V0) sqrt(V0) * (omx * (2 - omx))^0.25

# The prefactors of escape_rate() and switching_distribution().
RATE_PREFACTORS <- c("kramers", "bhl", "mm")

# log of the escape rate; all arguments recycled by the caller.
log_rate_omx <- function(omx, V0, beta, theta, prefactor) {
  dU <- barrier_omx(omx, V0)
  w0 <- omega0_omx(omx, V0)
  log_a <- if (prefactor == "bhl") {
    Q <- w0 / beta
    log(4) - 2 * log1p(sqrt(1 + Q * theta / (1.8 * dU)))
  } else {
    # sqrt(1 + x^2) - x = exp(-asinh(x)), without cancellation at large x
    kr <- -asinh(beta / (2 * w0))
    if (prefactor == "mm") {
      # Mel'nikov-Meshkov: A(Delta) times Kramers, Delta = beta S / theta
      kr + mm_log_depopulation(beta * separatrix_action_omx(omx, V0) / theta)
    } else kr
  }
  log_a + log(w0) - log(2 * pi) - dU / theta
}

#' Barrier height of the tilted washboard
#'
#' The height of the barrier that the phase of a current-biased Josephson
#' junction must cross to escape from a well of the tilted washboard
#' \eqn{U(\varphi) = -V_0(\cos\varphi + \gamma\varphi)}:
#' \deqn{\Delta U(\gamma) = 2V_0\left[\sqrt{1-\gamma^2} -
#'   \gamma\arccos\gamma\right],}
#' in units of \eqn{E_C} (see [jj_units()]). Near \eqn{\gamma = 1}, where the
#' two terms cancel, a Taylor series in \eqn{\arccos\gamma} keeps full
#' relative accuracy; \eqn{\Delta U \approx (4\sqrt2/3) V_0 (1-\gamma)^{3/2}}.
#'
#' @param gamma Normalised bias current \eqn{I_b/I_c}, in \[0, 1\].
#' @param V0 Washboard amplitude \eqn{E_J/E_C} (positive).
#' @return A numeric vector, the arguments recycled to a common length.
#' @references Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' barrier_height(0.5, V0 = 0.05) # 0.0342, Fig. 10 of Pierro et al. (2018)
#' barrier_height(c(0, 0.5, 0.9, 1), V0 = 211)
#' @export
barrier_height <- function(gamma, V0) {
  a <- washboard_args(gamma, V0, sys.call())
  barrier_omx(1 - a$gamma, a$V0)
}

# gamma in [0, 1] and V0 > 0, recycled: the arguments of the functions of
# the washboard alone (barrier_height(), separatrix_action()).
washboard_args <- function(gamma, V0, call) {
  gamma <- check_range(gamma, "gamma", 0, 1, call = call)
  V0 <- check_positive(V0, "V0", call = call)
  recycle_args(list(gamma = gamma, V0 = V0), call = call)
}

#' Thermal escape rate over the washboard barrier
#'
#' Rate of thermally activated escape from a well of the tilted washboard,
#' per normalised time unit \eqn{t_0 = \hbar/E_C} (see [jj_units()]):
#' \deqn{\Gamma = a\,\frac{\omega_0}{2\pi}\,e^{-\Delta U/\theta},\qquad
#'   \omega_0 = \sqrt{V_0}\,(1-\gamma^2)^{1/4},}
#' with \eqn{\Delta U} from [barrier_height()] and the prefactor
#' * `"kramers"` (moderate to strong damping), with the barrier frequency
#'   \eqn{\omega_b = \omega_0}:
#'   \eqn{a = \sqrt{1 + (\beta/2\omega_b)^2} - \beta/2\omega_b};
#' * `"bhl"` (Büttiker, Harris and Landauer 1983, weak to moderate damping,
#'   in the form of Martinis, Devoret and Clarke 1987), with
#'   \eqn{Q = \omega_0/\beta}:
#'   \eqn{a = 4/[\sqrt{1 + Q\theta/(1.8\,\Delta U)} + 1]^2};
#' * `"mm"` (Mel'nikov and Meshkov 1986, the turnover between weak and
#'   moderate damping), the Kramers prefactor times the depopulation factor
#'   \deqn{A(\Delta) = \exp\left[\frac{1}{2\pi}\int_{-\infty}^{\infty}
#'   \frac{\ln\left(1 - e^{-\Delta(x^2 + 1/4)}\right)}{x^2 + 1/4}\,dx
#'   \right],\qquad \Delta = \frac{\beta S}{\theta},}
#'   where \eqn{\beta S} is the energy a path loses in one round trip along
#'   the separatrix ([separatrix_action()]). \eqn{A \le 1}; \eqn{A \to 1}
#'   (the Kramers rate) for \eqn{\Delta \gg 1}, and \eqn{A \to \Delta}
#'   for \eqn{\Delta \ll 1}, the energy-diffusion rate \eqn{(\beta
#'   S/\theta)\,(\omega_0/2\pi)\,e^{-\Delta U/\theta}} of Kramers' weak
#'   damping limit. (Some texts print the prefactor of the integral as
#'   \eqn{1/\pi} with the integral over \eqn{x > 0} only, which is the
#'   same.) The integral is computed by adaptive quadrature, to about
#'   \eqn{10^{-11}} relative in \eqn{\ln A}, for any \eqn{\Delta > 0}.
#'
#' The formulas assume \eqn{\Delta U \gg \theta}; they are evaluated for
#' any \eqn{\gamma < 1} but mean little once the barrier is comparable to
#' the temperature. In the overdamped limit \eqn{\beta \gg \omega_0} the
#' Kramers rate tends to \eqn{\omega_0\omega_b/(2\pi\beta)e^{-\Delta
#' U/\theta}}, the escape rate of the Smoluchowski equation (see
#' [mfpt_smoluchowski()]).
#'
#' @param gamma Normalised bias current, in \[0, 1).
#' @param V0 Washboard amplitude \eqn{E_J/E_C} (positive).
#' @param beta Damping \eqn{\hbar/((2e)^2R)} (positive).
#' @param theta Temperature \eqn{k_BT/E_C} (positive).
#' @param prefactor `"kramers"` (default), `"bhl"` or `"mm"`.
#' @return A numeric vector of rates per time unit \eqn{t_0}, the four
#'   numeric arguments recycled to a common length (as by [data.frame()]).
#' @references
#' Kramers, H. A. (1940) Brownian motion in a field of force and the
#'   diffusion model of chemical reactions. *Physica* 7, 284-304 \doi{10.1016/S0031-8914(40)90098-2}.
#'
#' Büttiker, M., Harris, E. P. and Landauer, R. (1983) Thermal activation in
#'   extremely underdamped Josephson-junction circuits. *Physical Review B*
#'   28, 1268-1275 \doi{10.1103/PhysRevB.28.1268}.
#'
#' Martinis, J. M., Devoret, M. H. and Clarke, J. (1987) Experimental tests
#'   for the quantum behavior of a macroscopic degree of freedom: the phase
#'   difference across a Josephson junction. *Physical Review B* 35,
#'   4682-4698 \doi{10.1103/PhysRevB.35.4682}.
#'
#' Mel'nikov, V. I. and Meshkov, S. V. (1986) Theory of activated rate
#'   processes: exact solution of the Kramers problem. *Journal of Chemical
#'   Physics* 85, 1018-1027 \doi{10.1063/1.451844}.
#'
#' Hänggi, P., Talkner, P. and Borkovec, M. (1990) Reaction-rate theory:
#'   fifty years after Kramers. *Reviews of Modern Physics* 62, 251-341 \doi{10.1103/RevModPhys.62.251}.
#' @examples
#' u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2)
#' g <- c(0.2, 0.4, 0.6)
#' escape_rate(g, u$V0, u$beta, u$theta)
#' escape_rate(g, u$V0, u$beta, u$theta, prefactor = "bhl")
#' escape_rate(g, u$V0, u$beta, u$theta, prefactor = "mm")
#' # the turnover: Mel'nikov-Meshkov / Kramers from weak to strong damping
#' beta <- 10^(-4:0)
#' escape_rate(0.5, 1, beta, 0.1, "mm") / escape_rate(0.5, 1, beta, 0.1)
#' # mean escape time in seconds at gamma = 0.4
#' u$t0 / escape_rate(0.4, u$V0, u$beta, u$theta)
#' @export
escape_rate <- function(gamma, V0, beta, theta,
                        prefactor = c("kramers", "bhl", "mm")) {
  call <- sys.call()
  gamma <- check_range(gamma, "gamma", 0, 1, hi_open = TRUE, call = call)
  V0 <- check_positive(V0, "V0", call = call)
  beta <- check_positive(beta, "beta", call = call)
  theta <- check_positive(theta, "theta", call = call)
  prefactor <- check_choice(prefactor, RATE_PREFACTORS, "prefactor",
                            call = call)
  a <- recycle_args(list(gamma = gamma, V0 = V0, beta = beta, theta = theta),
                    call = call)
  exp(log_rate_omx(1 - a$gamma, a$V0, a$beta, a$theta, prefactor))
}

#' Switching-current distribution under a linear bias ramp
#'
#' The Fulton-Dunkleberger (adiabatic) distribution of the bias at which a
#' junction switches when the bias grows linearly,
#' \eqn{\gamma(t) = \gamma_0 + v t}, and the escape rate \eqn{\Gamma} of
#' [escape_rate()] follows the bias:
#' \deqn{F(\gamma) = 1 - \exp\left(-\frac1v\int_{\gamma_0}^{\gamma}
#'   \Gamma(x)\,dx\right),\qquad
#'   p(\gamma) = \frac{\Gamma(\gamma)}{v}\,[1 - F(\gamma)].}
#' Most switches happen where \eqn{\Gamma(\gamma)/v \approx \kappa\ln 2} with
#' \eqn{\kappa = d\ln\Gamma/d\gamma}: the mean escape time \eqn{1/\Gamma}
#' equals the time the ramp needs to raise \eqn{\ln\Gamma} by about one.
#'
#' The integral is computed by adaptive Gauss-Kronrod quadrature of
#' \eqn{\ln\Gamma} in the variable \eqn{s = (1-x)^{1/4}}, in which the rate is
#' smooth up to \eqn{x = 1}; each piece is scaled by its largest value, so
#' rates spanning hundreds of orders of magnitude neither overflow nor lose
#' relative accuracy (about \eqn{10^{-11}}, relative, for the integral at
#' every point).
#'
#' The distribution is that of escapes before \eqn{\gamma} reaches 1;
#' \eqn{1 - F(\gamma \to 1)} is the probability of reaching the critical
#' current without a thermal escape (where the barrier vanishes and a
#' simulated path switches at once).
#'
#' @param gamma Points at which to evaluate the distribution, in \[0, 1), in
#'   any order; points below `gamma0` have `cdf` and `density` 0.
#' @param ramp The ramp \eqn{v = d\gamma/dt} per normalised time unit
#'   (single positive number; `jj_units(..., sweep_rate =)$ramp`).
#' @param V0,beta,theta Single positive numbers: see [escape_rate()].
#' @param prefactor `"kramers"` (default), `"bhl"` or `"mm"`, see
#'   [escape_rate()].
#' @param gamma0 The bias at which the ramp starts, a single number in
#'   \[0, 1).
#' @return A data frame with columns `gamma`, `density` (per unit of
#'   \eqn{\gamma}) and `cdf`, in the order of the input, with attributes
#'   `ramp`, `V0`, `beta`, `theta`, `prefactor` and `gamma0`.
#' @references
#' Fulton, T. A. and Dunkleberger, L. N. (1974) Lifetime of the zero-voltage
#'   state in Josephson tunnel junctions. *Physical Review B* 9, 4760-4768 \doi{10.1103/PhysRevB.9.4760}.
#'
#' Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' # The device of Fig. 11(b) of Pierro et al. (2018), swept at "200 Hz".
#' u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2,
#'               sweep_rate = 200 * 0.748e-6)
#' g <- seq(0.30, 0.50, by = 0.01)
#' sd <- switching_distribution(g, u$ramp, u$V0, u$beta, u$theta)
#' head(sd)
#' g[which.max(sd$density)]
#' @export
switching_distribution <- function(gamma, ramp, V0, beta, theta,
                                   prefactor = c("kramers", "bhl", "mm"),
                                   gamma0 = 0) {
  call <- sys.call()
  gamma <- check_range(gamma, "gamma", 0, 1, hi_open = TRUE, call = call)
  ramp <- check_positive(ramp, "ramp", len = 1, call = call)
  V0 <- check_positive(V0, "V0", len = 1, call = call)
  beta <- check_positive(beta, "beta", len = 1, call = call)
  theta <- check_positive(theta, "theta", len = 1, call = call)
  prefactor <- check_choice(prefactor, RATE_PREFACTORS, "prefactor",
                            call = call)
  gamma0 <- check_range(gamma0, "gamma0", 0, 1, hi_open = TRUE, len = 1,
                        call = call)
  log_v <- log(ramp)
  # log of Gamma(x)/v, x = 1 - s^4, times the Jacobian dx/ds = -4 s^3.
  log_integrand <- function(s) {
    log_rate_omx(s^4, V0, beta, theta, prefactor) - log_v + log(4) + 3 * log(s)
  }
  above <- gamma > gamma0
  pts <- sort(unique(gamma[above]))
  logJ <- rep(-Inf, length(gamma))
  if (length(pts) > 0) {
    edges <- c(gamma0, pts)
    s_edges <- (1 - edges)^0.25
    np <- length(pts)
    # pieces in s run from s(right) to s(left)
    q <- gk_log_integrate(log_integrand, s_edges[-1], s_edges[-(np + 1)],
                          rtol = 1e-11, pieces = 2L)
    if (!all(q$converged)) {
      sp_warn("switching_distribution(): the quadrature did not reach its tolerance everywhere.",
              call = call)
    }
    cum <- cum_logsumexp(q$value)
    logJ[above] <- cum[match(gamma[above], pts)]
  }
  J <- exp(logJ)
  cdf <- -expm1(-J)
  log_dens <- log_rate_omx(1 - gamma, V0, beta, theta, prefactor) - log_v - J
  density <- ifelse(above, exp(log_dens), 0)
  out <- data.frame(gamma = gamma, density = density, cdf = cdf)
  attr(out, "ramp") <- ramp
  attr(out, "V0") <- V0
  attr(out, "beta") <- beta
  attr(out, "theta") <- theta
  attr(out, "prefactor") <- prefactor
  attr(out, "gamma0") <- gamma0
  out
}

#' Mean first-passage time of the overdamped (Smoluchowski) washboard
#'
#' In the overdamped limit (\eqn{\beta^2 \gg V_0}) the phase obeys
#' \eqn{\beta\dot\varphi = -U'(\varphi) + \sqrt{2\beta\theta}\,\xi(t)}, and
#' the mean time to first reach the saddle \eqn{\varphi^* = \pi -
#' \arcsin\gamma} from the bottom of the well \eqn{\varphi_0 =
#' \arcsin\gamma} is
#' \deqn{\tau = \frac\beta\theta\int_{\varphi_0}^{\varphi^*}dy\,
#'   e^{U(y)/\theta}\int_{-\infty}^{y}dz\,e^{-U(z)/\theta}.}
#' The inner integral is reduced to one period with the periodicity
#' \eqn{U(z - 2\pi) = U(z) + 2\pi V_0\gamma} (a geometric series, which is
#' why \eqn{\gamma = 0}, with no tilt, gives an infinite time), the
#' exponents are combined so that they never exceed zero before the final
#' factor \eqn{e^{\Delta U/\theta}}, and the integrals are done by adaptive
#' Gauss-Kronrod quadrature with break points graded geometrically around the
#' well and the saddle (relative accuracy about \eqn{10^{-9}}).
#'
#' Because the absorbing point is the saddle itself, from which an
#' overdamped path goes back into the well half of the time, the
#' high-barrier limit is \eqn{\tau \to 1/(2\Gamma_S)} with the
#' Smoluchowski rate \eqn{\Gamma_S = \omega_0\omega_b/(2\pi\beta)
#' e^{-\Delta U/\theta}}, not \eqn{1/\Gamma_S}; the leading correction is
#' \eqn{2\tau\Gamma_S - 1 \approx \gamma\sqrt{2\theta/(\pi V_0)} /
#' (3(1-\gamma^2)^{3/4})}, of order \eqn{\sqrt{\theta/\Delta U}}, from the
#' cubic term of the potential at the saddle. Simulated escape times with the
#' threshold at the saddle (Algorithm 1 of Pierro et al. 2018) in the
#' overdamped regime should be compared with \eqn{\tau}, not with
#' \eqn{1/\Gamma}.
#'
#' @param gamma Normalised bias, in (0, 1).
#' @param V0,beta,theta Positive numbers: see [escape_rate()].
#' @return A numeric vector of mean first-passage times in units of
#'   \eqn{t_0}, the arguments recycled to a common length. Times beyond the
#'   largest double (\eqn{\Delta U/\theta} above about 700) are `Inf`, with
#'   a warning.
#' @references
#' Risken, H. (1984) *The Fokker-Planck Equation*. Springer, Berlin,
#'   Sec. 5.10.
#'
#' Hänggi, P., Talkner, P. and Borkovec, M. (1990) Reaction-rate theory:
#'   fifty years after Kramers. *Reviews of Modern Physics* 62, 251-341 \doi{10.1103/RevModPhys.62.251}.
#' @examples
#' mfpt_smoluchowski(0.5, V0 = 1, beta = 10, theta = c(0.2, 0.1, 0.05))
#' # compare with the overdamped Kramers (Smoluchowski) rate
#' g <- 0.5; V0 <- 1; beta <- 10; theta <- 0.05
#' w0 <- sqrt(V0) * (1 - g^2)^0.25
#' rate_S <- w0^2 / (2 * pi * beta) * exp(-barrier_height(g, V0) / theta)
#' 2 * mfpt_smoluchowski(g, V0, beta, theta) * rate_S
#' @export
mfpt_smoluchowski <- function(gamma, V0, beta, theta) {
  call <- sys.call()
  if (is.numeric(gamma) && length(gamma) > 0 && !anyNA(gamma) &&
      any(gamma == 0)) {
    sp_abort(paste0(
      "`gamma` must be in (0, 1), not 0: without tilt the mean first-passage ",
      "time is infinite (the path may wander to -Inf for as long as it likes)."),
      call = call)
  }
  gamma <- check_range(gamma, "gamma", 0, 1, lo_open = TRUE, hi_open = TRUE,
                       call = call)
  V0 <- check_positive(V0, "V0", call = call)
  beta <- check_positive(beta, "beta", call = call)
  theta <- check_positive(theta, "theta", call = call)
  a <- recycle_args(list(gamma = gamma, V0 = V0, beta = beta, theta = theta),
                    call = call)
  log_tau <- vapply(seq_along(a$gamma), function(i) {
    mfpt_log_one(a$gamma[i], a$V0[i], a$beta[i], a$theta[i])
  }, numeric(1))
  tau <- exp(log_tau)
  if (any(is.infinite(tau))) {
    sp_warn(paste0("mfpt_smoluchowski(): some mean first-passage times exceed ",
                   "the largest double and are returned as Inf."), call = call)
  }
  tau
}

# Geometric grid of break points around p (spacing w 2^k), inside (lo, hi).
grid_around <- function(p, w, lo, hi) {
  d <- w * 2^(-3:60)
  d <- d[d < (hi - lo)]
  b <- c(p - d, p, p + d)
  b[b > lo & b < hi]
}

# Pieces between sorted unique break points (with the ends).
with_breaks <- function(lo, hi, breaks) {
  sort(unique(c(lo, breaks[breaks > lo & breaks < hi], hi)))
}

mfpt_log_one <- function(gamma, V0, beta, theta, rtol = 1e-11) {
  phi0 <- asin(gamma)
  phis <- pi - phi0
  s <- sqrt((1 - gamma) * (1 + gamma)) # cos(phi0) = -cos(phis)
  dU <- barrier_omx(1 - gamma, V0)
  c2 <- 2 * pi * V0 * gamma / theta
  # log f(z) = -(U(z) - U(phi0)) / theta  (<= 0 on [phis - 2 pi, phis])
  lf <- function(z) V0 * ((cos(z) - s) + gamma * (z - phi0)) / theta
  # log g(y) = (U(y) - U(phis)) / theta  (<= 0 on [phi0, phis])
  lg <- function(y) -V0 * ((cos(y) + s) + gamma * (y - phis)) / theta
  w <- sqrt(theta / (V0 * s)) # width of the well and of the saddle
  lo <- phis - 2 * pi
  brk <- c(grid_around(phi0, w, lo, phis), grid_around(phis, w, lo, phis))
  integ <- function(logf, a, b) {
    pts <- with_breaks(a, b, brk)
    q <- gk_log_integrate(logf, pts[-length(pts)], pts[-1], rtol = rtol)
    logsumexp(q$value)
  }
  logC <- integ(lf, lo, phi0)    # from the previous saddle down to the well
  logT <- integ(lf, phi0, phis)  # from the well up to the saddle
  # sum over all earlier periods: (C + e^-c T) / (1 - e^-c)
  logK1 <- logsumexp(c(logC, logT - c2)) - log(-expm1(-c2))
  # B(y) = int_phi0^y f, at a vector of points y in [phi0, phis]
  logB <- function(y) {
    pts <- sort(unique(c(phi0, y, brk[brk > phi0 & brk < phis])))
    q <- gk_log_integrate(lf, pts[-length(pts)], pts[-1], rtol = rtol)
    cum <- c(-Inf, cum_logsumexp(q$value))
    cum[match(y, pts)]
  }
  outer_log <- function(y) {
    lb <- logB(y)
    m <- pmax(logK1, lb)
    lg(y) + m + log1p(exp(pmin(logK1, lb) - m))
  }
  logI <- integ(outer_log, phi0, phis)
  log(beta / theta) + dU / theta + logI
}

#' Where to start a bias ramp: the bias below which switching is negligible
#'
#' The largest bias \eqn{\gamma_0} below which a junction swept from
#' \eqn{\gamma = 0} at `ramp` switches with probability at most `eps`,
#' by the adiabatic Fulton-Dunkleberger law of [switching_distribution()]:
#' \deqn{P(\gamma_s < \gamma_0) = 1 - \exp\Bigl(-\frac1v\int_0^{\gamma_0}
#'   \Gamma(g)\,dg\Bigr) \le \varepsilon,}
#' with the same escape rate \eqn{\Gamma} and the same quadrature (relative
#' accuracy about \eqn{10^{-11}}). [switching_currents()] with `gamma0 =
#' "auto"` starts there, in thermal equilibrium in the well of
#' \eqn{\gamma_0} (`init = "thermal"`), instead of simulating the long
#' approach from \eqn{\gamma = 0} in which hardly any path switches.
#'
#' @section The tolerance:
#' The default `eps = 0.01 / replicas` bounds the expected number of the
#' run's paths that would have switched before \eqn{\gamma_0} by 0.01. A
#' run of `replicas` paths from \eqn{\gamma_0} then differs from one from
#' \eqn{\gamma = 0} only in the event (probability at most 0.01) that one of
#' its paths would have switched early: no statistic of the sample, at any
#' resolution, can tell the two apart with an advantage above 0.01 (their
#' total-variation distance is at most `replicas * eps`), and the CDF is
#' biased by at most `eps`, a hundredth of the ECDF's smallest step. The
#' probability falls like \eqn{e^{-\kappa(\gamma_0 - \gamma)}} below
#' \eqn{\gamma_0} (\eqn{\kappa = d\ln\Gamma/d\gamma}), so a ten times
#' smaller `eps` costs only \eqn{\ln 10/\kappa} of bias. A looser `eps`
#' suits an analysis at a coarser resolution: the absolute CDF error is at
#' most `eps` (for example `eps = 1e-4` against the 1.5 per cent of Pierro
#' et al.'s comparison).
#'
#' @section Quasi-equilibrium:
#' Starting in equilibrium at \eqn{\gamma_0} reproduces a path swept from
#' \eqn{\gamma = 0} only if the well follows the ramp, as the
#' Fulton-Dunkleberger law assumes too. With \eqn{\lambda} the slowest
#' relaxation rate of the linearised well, \eqn{(\beta - \sqrt{\max(\beta^2
#' - 4\omega_0^2, 0)})/2} (\eqn{\beta/2} when underdamped), two numbers are
#' reported, each the largest over the biases from \eqn{\gamma_0} to the
#' `1 - eps` quantile of the distribution (at most 0.999): `lag`, how far the bottom of the
#' well moves in one relaxation time, in thermal widths
#' \eqn{\sqrt\theta/\omega_0} (\eqn{\text{ramp}\,\omega_0/(\lambda
#' \sqrt{\theta(1-\gamma^2)})}), and `adiabatic`, how much the log escape rate
#' rises in one relaxation time (\eqn{\text{ramp}\,\kappa/\lambda}). Where
#' either exceeds 0.1 the column `quasi_static` is `FALSE`, with a warning,
#' and `switching_currents(gamma0 = "auto")` refuses to start there: start
#' at \eqn{\gamma_0 = 0}. (Both are estimates from the linearised well; the
#' device of Fig. 11(b) of Pierro et al. at 200 Hz has about \eqn{10^{-7}}.)
#'
#' @param ramp,V0,beta,theta Positive numbers, as for [switching_currents()];
#'   vectors give one row per combination (in the order of
#'   [switching_currents()]'s conditions).
#' @param replicas Paths per condition of the run (sets the default of
#'   `eps`).
#' @param eps Largest probability, per path, of a switch before
#'   \eqn{\gamma_0}: a single number in (0, 1); default `0.01 / replicas`.
#' @param prefactor The rate law, as for [switching_distribution()].
#' @return A data frame of class `switching_start`, one row per condition:
#'   `condition`, `ramp`, `V0`, `beta`, `theta`, `gamma0`, `p` (the
#'   probability of a switch before `gamma0`, per path: at most `eps`),
#'   `expected` (`replicas * p`, the paths of the run expected to switch
#'   before `gamma0`; `NA` without `replicas`), `lag`, `adiabatic` and
#'   `quasi_static`; attributes `eps` and `prefactor`.
#' @seealso [switching_currents()], [switching_distribution()].
#' @references
#' Fulton, T. A. and Dunkleberger, L. N. (1974) Lifetime of the zero-voltage
#'   state in Josephson tunnel junctions. *Physical Review B* 9, 4760-4768
#'   \doi{10.1103/PhysRevB.9.4760}.
#' @examples
#' # the device of Fig. 11(b) of Pierro et al. (2018) at 200 Hz, 30,000 paths
#' u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2,
#'               sweep_rate = 200 * 0.748e-6)
#' switching_start(u$ramp, u$V0, u$beta, u$theta, replicas = 30000)
#' # a tolerance on the scale of a 1.5 per cent comparison of CDFs
#' switching_start(u$ramp, u$V0, u$beta, u$theta, eps = 1e-4)$gamma0
#' @export
switching_start <- function(ramp, V0, beta, theta, replicas, eps = 0.01 / replicas,
                            prefactor = c("kramers", "bhl", "mm")) {
  call <- sys.call()
  grid <- escape_grid(list(ramp = ramp, V0 = V0, beta = beta, theta = theta), call)
  if (!missing(replicas)) replicas <- check_count(replicas, "replicas", min = 1, call = call)
  if (missing(eps) && missing(replicas)) {
    sp_abort("give `replicas` (the default `eps` is 0.01 / replicas) or `eps`.", call = call)
  }
  eps <- check_range(eps, "eps", 0, 1, lo_open = TRUE, hi_open = TRUE, len = 1, call = call)
  prefactor <- check_choice(prefactor, RATE_PREFACTORS, "prefactor", call = call)
  out <- switching_start_grid(grid, eps, prefactor, call)
  out$expected <- if (missing(replicas)) NA_real_ else replicas * out$p
  out <- out[, c(names(grid), "gamma0", "p", "expected", "lag", "adiabatic",
                 "quasi_static")]
  if (!all(out$quasi_static)) {
    sp_warn(switching_start_fast(out, which(!out$quasi_static)[1]), call = call)
  }
  attr(out, "eps") <- eps
  attr(out, "prefactor") <- prefactor
  class(out) <- c("switching_start", "data.frame")
  out
}

# Largest quasi-equilibrium parameter allowed for a start in equilibrium.
SWITCHING_QS_LIMIT <- 0.1

# The start of each condition of `grid` (ramp, V0, beta, theta): gamma0,
# its probability p, lag and adiabatic (see switching_start()).
switching_start_grid <- function(grid, eps, prefactor, call) {
  n <- nrow(grid)
  g0 <- p <- lag <- adia <- numeric(n)
  for (i in seq_len(n)) {
    a <- grid[i, ]
    cdf <- function(g) {
      switching_distribution(g, a$ramp, a$V0, a$beta, a$theta, prefactor)$cdf
    }
    top <- 1 - 1e-12
    if (cdf(top) <= eps) {
      sp_abort(sprintf(paste0(
        "condition %d (ramp = %s, V0 = %s, beta = %s, theta = %s): the probability of ",
        "a switch before the critical current is only %s, not above eps = %s; the ramp ",
        "outruns thermal switching, so there is no bias below which switching is ",
        "negligible that the paths do not reach first. Give `gamma0` as a number."),
        i, format(a$ramp), format(a$V0), format(a$beta), format(a$theta),
        format(cdf(top), digits = 3), format(eps)), call = call)
    }
    # largest g with cdf(g) <= eps (the CDF rises monotonically from 0)
    lo <- 0
    hi <- top
    for (it in 1:60) {
      mid <- (lo + hi) / 2
      if (cdf(mid) <= eps) lo <- mid else hi <- mid
    }
    g0[i] <- lo
    p[i] <- cdf(lo)
    qs <- switching_quasi_static(lo, switching_quantile(cdf, lo, 1 - eps), a, prefactor)
    lag[i] <- qs[["lag"]]
    adia[i] <- qs[["adiabatic"]]
  }
  out <- grid
  out$gamma0 <- g0
  out$p <- p
  out$lag <- lag
  out$adiabatic <- adia
  out$quasi_static <- lag <= SWITCHING_QS_LIMIT & adia <= SWITCHING_QS_LIMIT
  out
}

# The bias at which cdf() reaches q, above `lo` (bisection; 1 if never).
switching_quantile <- function(cdf, lo, q) {
  hi <- 1 - 1e-12
  if (cdf(hi) < q) return(hi)
  for (it in 1:30) { # to 1e-9: the end of a grid
    mid <- (lo + hi) / 2
    if (cdf(mid) < q) lo <- mid else hi <- mid
  }
  hi
}

# The quasi-equilibrium parameters (see switching_start()), the largest
# over the biases from g_lo to g_hi of condition `a`.
switching_quasi_static <- function(g_lo, g_hi, a, prefactor) {
  g <- seq(g_lo, max(g_lo, min(g_hi, 0.999)), length.out = 201)
  w0 <- omega0_omx(1 - g, a$V0)
  lambda <- (a$beta - sqrt(pmax(a$beta^2 - 4 * w0^2, 0))) / 2
  lag <- a$ramp * w0 / (lambda * sqrt(a$theta * (1 - g) * (1 + g)))
  d <- 1e-6
  kappa <- (log_rate_omx(pmax(1 - g - d, 1e-12), a$V0, a$beta, a$theta, prefactor) -
              log_rate_omx(1 - g + d, a$V0, a$beta, a$theta, prefactor)) / (2 * d)
  adia <- a$ramp * kappa / lambda
  c(lag = max(lag), adiabatic = max(adia))
}

# The message for condition i of `st` (a start table) that is not quasi-static.
switching_start_fast <- function(st, i) {
  sprintf(paste0(
    "the ramp is too fast for a start in quasi-equilibrium (condition %d: ramp = %s, ",
    "V0 = %s, beta = %s, theta = %s): in one relaxation time of the well the bottom ",
    "moves by %s thermal widths and the log escape rate rises by %s (each must be ",
    "at most %s), so a path swept from gamma = 0 is not in equilibrium at gamma0 = %s ",
    "and the Fulton-Dunkleberger bound does not hold. Start at gamma0 = 0."),
    i, format(st$ramp[i]), format(st$V0[i]), format(st$beta[i]), format(st$theta[i]),
    format(st$lag[i], digits = 3), format(st$adiabatic[i], digits = 3),
    format(SWITCHING_QS_LIMIT), format(st$gamma0[i], digits = 6))
}

#' @export
print.switching_start <- function(x, ...) {
  eps <- attr(x, "eps")
  cat(sprintf(paste0(
    "<switching_start> start of the ramp where P(switch before gamma0) <= eps = %s a ",
    "path (Fulton-Dunkleberger, %s rate)\n"), format(eps, digits = 3), attr(x, "prefactor")))
  y <- as.data.frame(unclass(x))
  print(y, digits = 4, row.names = FALSE)
  invisible(x)
}
