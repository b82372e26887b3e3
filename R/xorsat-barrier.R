#' Free-energy barrier of the p-spin model on a k-regular random graph
#'
#' The cavity-method (Bethe) estimate of Bernaschi et al. (2021), section 8, of the
#' free-energy barrier between the paramagnet and the ground state of
#' k-regular p-XORSAT (3-regular 3-XORSAT by default), whose height
#' predicts how fast the time to solution grows with the size: a local
#' dynamics at temperature T crosses it in a time \eqn{\tau \propto
#' \exp(N \Delta\phi / T)}{tau ~ exp(N dphi / T)}.
#'
#' In the gauge where the planted solution is all spins up, every
#' interaction is \eqn{-s_1 \cdots s_p}{-s_1 ... s_p}, and a field \eqn{H}
#' fixes the magnetisation \eqn{m}. On the locally tree-like graph all
#' spins are equivalent: a cavity field \eqn{h} (spin to interaction) and a
#' field \eqn{u} (interaction to spin) with
#' \deqn{\tanh(\beta u) = \tanh\beta \tanh^{p-1}(\beta h), \quad h = H + (k-1) u,
#'   \quad m = \tanh(\beta (h + u)),}{tanh(b u) = tanh(b) tanh(b h)^(p-1), h = H + (k-1) u, m = tanh(b (h + u)),}
#' and the Bethe free energy per spin \eqn{-\beta f(H) = (k/p) \ln Z_a +
#' \ln Z_i - k \ln Z_{ia}}{-b f(H) = (k/p) ln Za + ln Zi - k ln Zia} with
#' \eqn{Z_a = \cosh\beta\,(1 + \tanh\beta \tanh^p \beta h)}{Za = cosh(b) (1 + tanh(b) tanh(b h)^p)},
#' \eqn{Z_i = 2\cosh(\beta(H + k u)) / (2 \cosh \beta u)^k}{Zi = 2 cosh(b (H + k u)) / (2 cosh(b u))^k},
#' \eqn{Z_{ia} = (1 + \tanh \beta h \tanh \beta u) / 2}{Zia = (1 + tanh(b h) tanh(b u)) / 2}.
#' The free energy at fixed magnetisation is the Legendre transform
#' \eqn{\phi(m) = f(H) + H m}{phi(m) = f(H) + H m} (so that
#' \eqn{d\phi/dm = H}{d phi / dm = H}), traced by sweeping \eqn{h}. The
#' barrier is the highest \eqn{\phi} between the paramagnet (\eqn{m = 0})
#' and the ferromagnetic minimum, less \eqn{\phi(0)}; above the spinodal
#' temperature there is no ferromagnetic minimum and the barrier is that of
#' the ground state itself, \eqn{\phi(1) - \phi(0) = -k/p - \phi(0)}.
#'
#' The quasi-greedy algorithm has no temperature; as in Bernaschi et al. (2021) it is
#' given the one at which Metropolis accepts its p1 move (a spin with one
#' unsatisfied equation of three: the energy rises by 2) with probability
#' p1: \eqn{p_1 = e^{-2/T}}{p1 = exp(-2/T)}. The predicted growth of the
#' time to solution, in the units of [tts_scaling()] (the challenge's
#' 2-body size n = 2N), is \eqn{a = \Delta\phi / (2 T \ln 10)}{a = dphi /
#' (2 T ln 10)} decades per unit of n.
#'
#' @param k Interactions per spin (the graph's degree), a whole number >= 2.
#' @param p Spins per interaction, a whole number >= 3 (for p = 2 there is
#'   no barrier of this kind).
#' @param T Temperatures (positive); `NULL`: from `p1`.
#' @param p1 Quasi-greedy p1 values in (0, 1), turned into temperatures
#'   \eqn{T = 2 / \ln(1/p_1)}{T = 2 / ln(1 / p1)} when `T` is `NULL`.
#' @return An object of class `xorsat_barrier`: a data frame with one row
#'   per temperature and columns `T`, `p1` (the equivalent p1), `barrier`
#'   (\eqn{\Delta\phi}{dphi} per spin), `m_top` (the magnetisation at the
#'   top), `ferro` (whether a ferromagnetic minimum exists), `a` (predicted
#'   decades of TTS per unit of n = 2N) and `a_logical` (per logical spin);
#'   attributes `k`, `p`, `T_spinodal` (above it no ferromagnetic minimum)
#'   and `curves` (per temperature a data frame of `m`, `H`, `phi` for
#'   [plot()]).
#' @references Bernaschi, M. et al. (2021) How we are leading a 3-XORSAT
#'   challenge. *EPL* 133, 60005 \doi{10.1209/0295-5075/133/60005}, section 8.
#' @examples
#' b <- xorsat_barrier(p1 = c(0.05, 0.08, 0.12))
#' b
#' plot(b)
#' @export
xorsat_barrier <- function(k = 3, p = 3, T = NULL, p1 = 0.08) {
  call <- sys.call()
  k <- check_whole(k, "k", lo = 2, hi = 1000, call = call)
  p <- check_whole(p, "p", lo = 3, hi = 1000, call = call)
  if (is.null(T)) {
    if (!is.numeric(p1) || !length(p1) || anyNA(p1) || any(p1 <= 0 | p1 >= 1)) {
      sp_abort(sprintf("`p1` must be numbers in (0, 1), not %s.", describe(p1)), call = call)
    }
    T <- 2 / log(1 / p1)
  } else {
    T <- check_positive(T, "T", call = call)
    p1 <- exp(-2 / T)
  }
  rows <- lapply(T, function(t) xorsat_barrier_one(t, k, p))
  out <- data.frame(T = T, p1 = p1,
                    barrier = vapply(rows, `[[`, 0, "barrier"),
                    m_top = vapply(rows, `[[`, 0, "m_top"),
                    ferro = vapply(rows, `[[`, TRUE, "ferro"))
  out$a_logical <- out$barrier / (out$T * log(10))
  out$a <- out$a_logical / 2
  attr(out, "k") <- k
  attr(out, "p") <- p
  attr(out, "T_spinodal") <- xorsat_spinodal(k, p)
  attr(out, "curves") <- lapply(rows, `[[`, "curve")
  class(out) <- c("xorsat_barrier", "data.frame")
  out
}

# phi(m) along the cavity field h (a fine grid up to m = 1 - 1e-12).
xorsat_phi_curve <- function(T, k, p, npts = 20001) {
  hs <- seq(0, 14 * T, length.out = npts)
  d <- xorsat_phi_curve_h(hs, T, k, p)
  data.frame(h = hs, m = d$m, H = d$H, phi = d$phi)
}

# Does phi(m) fall again after a maximum (a ferromagnetic minimum below
# m = 1)?  The maximum is where H = d phi / dm changes sign from + to -.
xorsat_barrier_one <- function(T, k, p) {
  d <- xorsat_phi_curve(T, k, p)
  phi0 <- d$phi[1]
  # H > 0 on the way up; a ferromagnetic minimum needs H < 0 somewhere
  # (the interior maximum is where H crosses zero downwards)
  down <- which(d$H[-1] < 0 & d$H[-nrow(d)] >= 0)
  down <- down[d$m[down] > 1e-6]
  if (length(down)) {
    i <- down[1]
    # refine: H(h) = 0 between the grid points
    f <- function(h) {
      b <- 1 / T
      h - (k - 1) * atanh(tanh(b) * tanh(b * h)^(p - 1)) / b
    }
    hz <- stats::uniroot(f, c(d$h[i], d$h[i + 1]), tol = 1e-14)$root
    top <- xorsat_phi_curve_h(hz, T, k, p)
    list(barrier = top$phi - phi0, m_top = top$m, ferro = TRUE, curve = d[c("m", "H", "phi")])
  } else {
    list(barrier = -k / p - phi0, m_top = 1, ferro = FALSE, curve = d[c("m", "H", "phi")])
  }
}

# m, H and phi(m) at cavity fields hs (the equations above).
xorsat_phi_curve_h <- function(hs, T, k, p) {
  b <- 1 / T
  t <- tanh(b * hs)
  u <- atanh(tanh(b) * t^(p - 1)) / b
  H <- hs - (k - 1) * u
  m <- tanh(b * (hs + u))
  la <- log(cosh(b)) + log1p(tanh(b) * t^p)
  li <- log(2 * cosh(b * (H + k * u))) - k * log(2 * cosh(b * u))
  lia <- log1p(t * tanh(b * u)) - log(2)
  list(m = m, H = H, phi = -T * ((k / p) * la + li - k * lia) + H * m)
}

# The spinodal temperature: the highest T with a ferromagnetic minimum
# (bisection on its existence).
xorsat_spinodal <- function(k, p) {
  has <- function(T) xorsat_barrier_one(T, k, p)$ferro
  lo <- 0.05
  hi <- 0.5
  while (has(hi) && hi < 100) hi <- 2 * hi
  if (!has(lo)) return(NA_real_)
  for (i in 1:40) {
    mid <- (lo + hi) / 2
    if (has(mid)) lo <- mid else hi <- mid
  }
  (lo + hi) / 2
}

#' @rdname xorsat_barrier
#' @param x A result of `xorsat_barrier()`.
#' @param ... Passed to [print.data.frame()] or [plot()].
#' @export
print.xorsat_barrier <- function(x, ...) {
  cat(sprintf(paste0("Cavity free-energy barrier of %d-regular %d-XORSAT (spinodal T = %.4f)\n",
                     "  barrier per spin; a = predicted decades of TTS per unit of n = 2N\n"),
              attr(x, "k"), attr(x, "p"), attr(x, "T_spinodal")))
  print(as.data.frame(unclass(x)[c("T", "p1", "barrier", "m_top", "ferro", "a")]), ...)
  invisible(x)
}

#' @rdname xorsat_barrier
#' @export
plot.xorsat_barrier <- function(x, ...) {
  cv <- attr(x, "curves")
  rel <- lapply(cv, function(d) d$phi - d$phi[1])
  ylim <- range(0, unlist(lapply(seq_along(cv), function(i) rel[[i]][cv[[i]]$m <= 0.9999])))
  plot(NA, xlim = c(0, 1), ylim = ylim, xlab = "magnetisation m",
       ylab = expression(phi(m) - phi(0)), ...)
  cols <- grDevices::hcl.colors(length(cv), "Dark 3")
  for (i in seq_along(cv)) {
    graphics::lines(cv[[i]]$m, rel[[i]], col = cols[i])
    graphics::points(x$m_top[i], x$barrier[i], col = cols[i], pch = 19)
  }
  graphics::legend("topleft", sprintf("T = %.3f (p1 = %.3g)", x$T, x$p1), col = cols,
                   lty = 1, bty = "n", cex = 0.8)
  invisible(x)
}
