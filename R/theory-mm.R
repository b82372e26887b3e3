# Mel'nikov-Meshkov turnover: the action of the separatrix of the tilted
# washboard and the depopulation factor A(Delta).  Like the rest of the
# theory code, the bias enters as omx = 1 - gamma.
#
# Coordinates: a = acos(gamma) (half the distance from the well to the
# saddle), t = phi_b - phi >= 0 measured from the saddle phi_b = pi - asin(gamma)
# towards the well.  In units of V0 the energy below the saddle is
#   f(t) = (U(phi_b) - U(phi_b - t)) / V0
#        = 2 sin(a) sin^2(t/2) - cos(a) (t - sin t),
# a form without cancellation for small a (both terms are O(a^3) where t is
# O(a)).  The turning point T is the root of f in (0, 2 pi]: 3a as a -> 0
# (the cubic potential), 2 pi at gamma = 0 (the pendulum's previous saddle).

# x - sin(x), accurate for small x (Taylor series below 1).
x_minus_sin <- function(x) {
  out <- x - sin(x)
  small <- abs(x) < 1
  if (any(small)) {
    xs <- x[small]
    x2 <- xs * xs
    k <- 11:1 # x^3/3! - x^5/5! + ..., to x^23 (error < 1e-22 relative)
    coef <- (-1)^(k + 1) / factorial(2 * k + 1)
    poly <- numeric(length(xs))
    for (ck in coef) poly <- poly * x2 + ck
    out[small] <- xs^3 * poly
  }
  out
}

# f(t) of the header for a (sin a, cos a given) and any t.
separatrix_f <- function(t, sin_a, cos_a) {
  2 * sin_a * sin(t / 2)^2 - cos_a * x_minus_sin(t)
}

# f(T - d) given f(T) = 0, written without the cancellation of f near its
# root: f(T - d) - f(T) = -2 sin(a) sin(T - d/2) sin(d/2)
#   + cos(a) [2 (d/2 - sin(d/2)) + 4 sin(d/2) sin^2((T - d/2)/2)].
separatrix_f_near <- function(d, Tt, sin_a, cos_a) {
  h <- d / 2
  c_ <- Tt - h
  -2 * sin_a * sin(c_) * sin(h) +
    cos_a * (2 * x_minus_sin(h) + 4 * sin(h) * sin(c_ / 2)^2)
}

# Turning point T(a), vectorised: f > 0 at 2.5 a and f <= 0 at
# min(4.2 a, 2 pi) for every a in (0, pi/2] (T/a rises from 3 to 4).
# Bisection to 2^-30 of the bracket, then Newton steps (f'(t) = sin(a) sin(t)
# - 2 cos(a) sin^2(t/2)) kept inside the bracket: near gamma = 0, where T
# tends to a double root (the previous saddle) and f' to 0, a step that
# would leave the bracket is not taken.
separatrix_turning <- function(a, sin_a, cos_a) {
  lo <- 2.5 * a
  hi <- pmin(4.2 * a, 2 * pi)
  for (it in 1:30) {
    mid <- (lo + hi) / 2
    pos <- separatrix_f(mid, sin_a, cos_a) > 0
    lo <- ifelse(pos, mid, lo)
    hi <- ifelse(pos, hi, mid)
  }
  Tt <- (lo + hi) / 2
  for (it in 1:3) {
    fp <- sin_a * sin(Tt) - 2 * cos_a * sin(Tt / 2)^2
    step <- separatrix_f(Tt, sin_a, cos_a) / fp
    nt <- Tt - step
    ok <- is.finite(nt) & nt >= lo & nt <= hi
    Tt[ok] <- nt[ok]
  }
  Tt[cos_a == 0] <- 2 * pi # gamma = 0: the double root at the previous saddle
  Tt
}

# Closed-orbit action of the separatrix,
#   S = 2 int_{phi_t}^{phi_b} sqrt(2 (U(phi_b) - U(phi))) dphi
#     = 2 sqrt(2 V0) int_0^T sqrt(f(t)) dt,
# with t = T (1 - u^2) (dt = 2 T u du), which removes the square-root
# singularity at the turning point: the integrand 2 T u sqrt(f(T u^2 away))
# is smooth in u on [0, 1].  Adaptive Gauss-Kronrod on the log scale,
# vectorised over the distinct values of omx; rtol bounds |K - G|, the error
# of the 7-point rule, so the 15-point result is good to about 1e-11 or
# better (3e-12 against rtol = 1e-13 over 30,000 points up to gamma -> 1).
separatrix_action_omx <- function(omx, V0, rtol = 1e-10) {
  out <- numeric(length(omx))
  u_omx <- unique(omx[omx > 0])
  if (length(u_omx) > 0) {
    a <- 2 * asin(sqrt(u_omx / 2))          # acos(1 - omx), accurate for small omx
    sin_a <- sqrt(u_omx * (2 - u_omx))
    cos_a <- 1 - u_omx
    Tt <- separatrix_turning(a, sin_a, cos_a)
    logf <- function(u, i) {
      Ti <- Tt[i]
      fv <- separatrix_f_near(Ti * u * u, Ti, sin_a[i], cos_a[i])
      lf <- ifelse(fv > 0, 0.5 * log(pmax(fv, 0)), -Inf)
      log(2 * Ti) + log(u) + lf
    }
    n <- length(u_omx)
    q <- gk_log_integrate(logf, rep(0, n), rep(1, n), rtol = rtol, pieces = 2L,
                          indexed = TRUE)
    # the factor 2 sqrt(2) of S / sqrt(V0)
    s1 <- 2 * sqrt(2) * exp(q$value)
    out[omx > 0] <- s1[match(omx[omx > 0], u_omx)]
  }
  out * sqrt(V0)
}

# Riemann zeta at s > 1, and at s = 1/2, by Euler-Maclaurin summation
# (N = 30 terms and seven Bernoulli corrections: full double precision).
zeta_em <- function(s, N = 30) {
  B <- c(1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
  tot <- sum((1:(N - 1))^-s) + N^(1 - s) / (s - 1) + N^(-s) / 2
  for (j in seq_along(B)) {
    tot <- tot + B[j] / factorial(2 * j) * prod(s + 0:(2 * j - 2)) * N^(-s - 2 * j + 1)
  }
  tot
}

# Coefficients c_n of the small-Delta series of ln A (see mm_log_depopulation):
#   c_n = (-1)^n zeta(1/2 - n) / (4^(n + 1/2) n! (n + 1/2) sqrt(pi)),
# zeta(1/2 - n) from zeta(n + 1/2) by the functional equation
#   zeta(1/2 - n) = 2 (2 pi)^-(n + 1/2) cos(pi (n + 1/2) / 2) Gamma(n + 1/2) zeta(n + 1/2).
mm_series_coef <- function(nmax = 30) {
  n <- 0:nmax
  z <- vapply(n, function(k) {
    if (k == 0) return(zeta_em(0.5))
    s <- k + 0.5
    2 * (2 * pi)^(-s) * cospi(s / 2) * gamma(s) * zeta_em(s)
  }, numeric(1))
  (-1)^n * z / (4^(n + 0.5) * factorial(n) * (n + 0.5) * sqrt(pi))
}
MM_SERIES <- mm_series_coef()

# log of the Mel'nikov-Meshkov depopulation factor,
#   ln A(Delta) = (1/(2 pi)) int_{-Inf}^{Inf} ln(1 - exp(-Delta (x^2 + 1/4)))
#                 / (x^2 + 1/4) dx,
# in closed forms.  Expanding ln(1 - e^-y) = -sum_k e^(-k y) / k and using
#   int e^(-b (x^2 + a^2)) / (x^2 + a^2) dx = (pi / a) erfc(a sqrt(b)),
#   ln A = -sum_{k >= 1} erfc(sqrt(k Delta) / 2) / k,
# which converges fast for Delta > 2 (terms below 1e-17 of the first past
# k = 150 / Delta).  For Delta <= 2, the Mellin transform of that sum (poles
# of zeta(1 + s) at 0 and of Gamma(s + 1/2) at -1/2 - n) gives
#   ln A = ln Delta + sum_{n >= 0} c_n Delta^(n + 1/2),
#   c_0 = zeta(1/2) / sqrt(pi), c_1 = -zeta(-1/2) / (12 sqrt(pi)), ...,
# convergent for Delta < 8 pi (ratio of terms ~ Delta / (8 pi) <= 0.08 here).
# So A -> Delta (1 + zeta(1/2) sqrt(Delta / pi)) as Delta -> 0 and
# ln A -> -2 exp(-Delta/4) / sqrt(pi Delta) as Delta -> Inf.  Vectorised;
# ln A(0) = -Inf.
mm_log_depopulation <- function(Delta) {
  out <- rep(-Inf, length(Delta))
  small <- Delta > 0 & Delta <= 2
  if (any(small)) {
    D <- Delta[small]
    w <- sqrt(D)
    acc <- numeric(length(D))
    for (cn in rev(MM_SERIES)) acc <- acc * D + cn # Horner in Delta
    out[small] <- log(D) + w * acc
  }
  big <- Delta > 2
  if (any(big)) {
    D <- Delta[big]
    K <- ceiling(150 / min(D))
    acc <- numeric(length(D))
    for (k in K:1) { # smallest terms first
      acc <- acc + 2 * stats::pnorm(sqrt(k * D / 2), lower.tail = FALSE) / k
    }
    out[big] <- -acc
  }
  out
}

#' Action of the separatrix of the tilted washboard
#'
#' The action of the closed orbit that runs along the separatrix of the well
#' of \eqn{U(\varphi) = -V_0(\cos\varphi + \gamma\varphi)} (unit mass, the
#' units of [jj_units()]): from the saddle \eqn{\varphi_b = \pi -
#' \arcsin\gamma} down through the well to the turning point \eqn{\varphi_t <
#' \arcsin\gamma} where \eqn{U(\varphi_t) = U(\varphi_b)}, and back,
#' \deqn{S(\gamma) = 2\int_{\varphi_t}^{\varphi_b}
#'   \sqrt{2\,[U(\varphi_b) - U(\varphi)]}\;d\varphi.}
#' A path that runs once around the well at the barrier energy loses
#' \eqn{\beta S} to the damping; \eqn{\Delta = \beta S/\theta} is the
#' parameter of the Mel'nikov-Meshkov rate (`prefactor = "mm"` of
#' [escape_rate()]).
#'
#' At \eqn{\gamma = 0} (the pendulum) \eqn{S = 16\sqrt{V_0}}. As
#' \eqn{\gamma \to 1} the well becomes the cubic potential with barrier
#' \eqn{\Delta U} and frequency \eqn{\omega_0}, for which \eqn{S =
#' 36\,\Delta U/(5\,\omega_0)}; with \eqn{\epsilon = 1-\gamma},
#' \eqn{S \approx (48/5)\,2^{1/4}\sqrt{V_0}\,\epsilon^{5/4}}, both with a
#' relative error \eqn{O(\epsilon)}.
#'
#' The turning point is found by bisection and the integral, in the variable
#' \eqn{u} with \eqn{\varphi = \varphi_t + (\varphi_b - \varphi_t)u^2}
#' (which removes the square-root singularity at the turning point), by
#' adaptive Gauss-Kronrod quadrature; the energy below the saddle is written
#' in a form without cancellation, so the result keeps a relative accuracy of
#' about \eqn{10^{-11}} up to \eqn{\gamma \to 1}.
#'
#' @param gamma Normalised bias current, in \[0, 1\] (\eqn{S = 0} at 1).
#' @param V0 Washboard amplitude \eqn{E_J/E_C} (positive).
#' @return A numeric vector, the arguments recycled to a common length.
#' @references
#' Mel'nikov, V. I. and Meshkov, S. V. (1986) Theory of activated rate
#'   processes: exact solution of the Kramers problem. *Journal of Chemical
#'   Physics* 85, 1018-1027 \doi{10.1063/1.451844}.
#' @seealso [escape_rate()] with `prefactor = "mm"`.
#' @examples
#' separatrix_action(0, V0 = 1) # 16
#' separatrix_action(c(0.5, 0.9, 0.99), V0 = 211)
#' # the cubic limit: S / (36 Delta U / (5 omega0)) -> 1
#' g <- 1 - 1e-4
#' w0 <- (1 - g^2)^0.25
#' separatrix_action(g, 1) / (36 * barrier_height(g, 1) / (5 * w0))
#' @export
separatrix_action <- function(gamma, V0) {
  a <- washboard_args(gamma, V0, sys.call())
  separatrix_action_omx(1 - a$gamma, a$V0)
}
