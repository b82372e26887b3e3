# CODATA 2018 exact values of the SI defining constants.
SP_E_CHARGE <- 1.602176634e-19 # C
SP_HBAR <- 1.054571817e-34     # J s
SP_KB <- 1.380649e-23          # J / K

#' Normalised units of a Josephson junction
#'
#' Converts the physical parameters of a resistively and capacitively shunted
#' Josephson junction (RCSJ model) to the normalised parameters used by the
#' escape-time and switching-current engines and by the theory functions of
#' this package (Pierro et al. 2018, Eqs. (1)-(11)):
#' \deqn{\ddot\varphi + \beta\dot\varphi = V_0(\gamma - \sin\varphi) +
#'   \sqrt{2D}\,\xi(t),\qquad D = \beta\theta,}
#' with time measured in units of \eqn{t_0 = \hbar/E_C}.
#'
#' With \eqn{E_C = (2e)^2/C} and \eqn{E_J = \hbar I_c/(2e)}:
#' * `V0` \eqn{= E_J/E_C}, the washboard amplitude;
#' * `beta` \eqn{= \hbar/((2e)^2 R)}, the damping;
#' * `theta` \eqn{= k_B T/E_C}, the temperature;
#' * `D` \eqn{= \beta\theta}, the noise intensity;
#' * `t0` \eqn{= \hbar/E_C} (seconds), the time unit;
#' * `omega_p` \eqn{= \sqrt{V_0}}, the plasma frequency at zero bias in
#'   units of \eqn{1/t_0};
#' * `Q` \eqn{= \sqrt{V_0}/\beta}, the quality factor at zero bias;
#' * `ramp` \eqn{= (dI/dt)\,t_0/I_c}, the bias ramp
#'   \eqn{d\gamma/dt} per normalised time unit (`NA` without `sweep_rate`);
#' * `E_C`, `E_J` (joules).
#'
#' The constants are the exact CODATA 2018 (SI 2019) values
#' \eqn{e = 1.602176634\times10^{-19}} C,
#' \eqn{\hbar = 1.054571817\times10^{-34}} J s and
#' \eqn{k_B = 1.380649\times10^{-23}} J/K.
#'
#' @section Sweep rate:
#' A sweep "at 200 Hz", as Pierro et al. (2018) write for the device of their
#' Fig. 11(b), means that the bias goes from 0 to \eqn{I_c} in 5 ms, i.e.
#' `sweep_rate = 200 * Ic` (A/s), which gives `ramp` \eqn{\approx 1.81\times
#' 10^{-8}} for that device.
#'
#' Arguments are in SI units; values outside the range of real junctions
#' (R 1e-4..1e8 Ohm, C 1 aF..1 uF, Ic 1 pA..1 A, T 10 uK..300 K) give a
#' warning that suggests the prefix probably meant (`C = 88` farads is
#' \eqn{V_0 \approx 2\times10^{17}}; `C = 88e-15` is the junction of the
#' example).
#'
#' @param R Shunt resistance in ohm.
#' @param C Capacitance in farad.
#' @param Ic Critical current in ampere.
#' @param T Temperature in kelvin.
#' @param sweep_rate Optional bias sweep rate \eqn{dI/dt} in A/s, or `NULL`.
#' @return A data frame of class `c("jj_units", "data.frame")`, one row per
#'   junction (the arguments are recycled as by [data.frame()]), with the
#'   inputs `R`, `C`, `Ic`, `T`, `sweep_rate` and the columns listed above.
#' @references Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' # The device of Fig. 11(b) of Pierro et al. (2018), swept at "200 Hz":
#' u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2,
#'               sweep_rate = 200 * 0.748e-6)
#' u
#' u$V0; u$ramp
#' # Vectorised: a temperature scan.
#' jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = c(0.3, 0.6, 1.2))
#' @export
jj_units <- function(R, C, Ic, T, sweep_rate = NULL) {
  call <- sys.call()
  args <- list(R = check_positive(R, "R", call = call),
               C = check_positive(C, "C", call = call),
               Ic = check_positive(Ic, "Ic", call = call),
               T = check_positive(T, "T", call = call))
  if (!is.null(sweep_rate)) {
    args$sweep_rate <- check_positive(sweep_rate, "sweep_rate", call = call)
  }
  args <- recycle_args(args, call = call)
  check_junction_plausible(args, call)
  if (is.null(args$sweep_rate)) args$sweep_rate <- rep(NA_real_, length(args$R))
  two_e <- 2 * SP_E_CHARGE
  E_C <- two_e^2 / args$C
  E_J <- SP_HBAR * args$Ic / two_e
  t0 <- SP_HBAR / E_C
  V0 <- E_J / E_C
  beta <- SP_HBAR / (two_e^2 * args$R)
  theta <- SP_KB * args$T / E_C
  out <- data.frame(R = args$R, C = args$C, Ic = args$Ic, T = args$T,
                    sweep_rate = args$sweep_rate,
                    V0 = V0, beta = beta, theta = theta, D = beta * theta,
                    t0 = t0, omega_p = sqrt(V0), Q = sqrt(V0) / beta,
                    ramp = args$sweep_rate * t0 / args$Ic,
                    E_C = E_C, E_J = E_J)
  class(out) <- c("jj_units", "data.frame")
  out
}

# Ranges that real Josephson junctions span (generously), in SI units, and
# the prefix a number outside them was most likely meant in.  A value outside
# gets a warning (not an error: the model is defined for any positive
# numbers), e.g. C = 88 (farads) for 88 fF.
JJ_PLAUSIBLE <- list(
  R = list(lo = 1e-4, hi = 1e8, unit = "Ohm", prefix = NULL),
  C = list(lo = 1e-18, hi = 1e-6, unit = "F", prefix = c(f = 1e-15)),
  Ic = list(lo = 1e-12, hi = 1, unit = "A", prefix = c(u = 1e-6)),
  T = list(lo = 1e-5, hi = 300, unit = "K", prefix = c(m = 1e-3)))

check_junction_plausible <- function(args, call) {
  bad <- character()
  for (nm in names(JJ_PLAUSIBLE)) {
    r <- JJ_PLAUSIBLE[[nm]]
    x <- args[[nm]]
    out <- x < r$lo | x > r$hi
    if (!any(out)) next
    v <- x[which(out)[1]]
    meant <- if (length(r$prefix)) v * r$prefix[[1]] else NA
    hint <- if (!is.na(meant) && meant >= r$lo && meant <= r$hi) {
      sprintf(" (if that is %s %s%s, give %s)", format(v, digits = 4),
              names(r$prefix), r$unit, format(meant, digits = 4))
    } else ""
    bad <- c(bad, sprintf("%s = %s %s%s", nm, format(v, digits = 4), r$unit, hint))
  }
  if (length(bad)) {
    rng <- vapply(JJ_PLAUSIBLE, function(r) sprintf("%g..%g %s", r$lo, r$hi, r$unit), "")
    sp_warn(sprintf(paste0(
      "jj_units() takes SI units: %s %s outside the range of real junctions ",
      "(%s)."), paste(bad, collapse = "; "), if (length(bad) == 1) "is" else "are",
      paste(names(rng), rng, collapse = ", ")), call = call)
  }
  invisible(TRUE)
}

#' @rdname jj_units
#' @param x A `jj_units` object.
#' @param digits Significant digits shown.
#' @param ... Ignored.
#' @export
print.jj_units <- function(x, digits = 4, ...) {
  df <- as.data.frame(unclass(x), stringsAsFactors = FALSE)
  n <- nrow(df)
  f <- function(v) formatC(signif(v, digits), digits = digits, format = "g")
  cat(sprintf("<jj_units: %d junction%s, RCSJ model in normalised units>\n",
              n, if (n == 1) "" else "s"))
  phys <- data.frame(`R [Ohm]` = f(df$R), `C [F]` = f(df$C),
                     `Ic [A]` = f(df$Ic), `T [K]` = f(df$T),
                     `dI/dt [A/s]` = ifelse(is.na(df$sweep_rate), "-",
                                            f(df$sweep_rate)),
                     check.names = FALSE)
  norm <- data.frame(V0 = f(df$V0), beta = f(df$beta), theta = f(df$theta),
                     `D = beta*theta` = f(df$D), `sqrt(V0)` = f(df$omega_p),
                     Q = f(df$Q), `t0 [s]` = f(df$t0),
                     `ramp [1/t0]` = ifelse(is.na(df$ramp), "-", f(df$ramp)),
                     check.names = FALSE)
  cat("Physical inputs:\n")
  print(phys, row.names = n > 1, right = TRUE)
  cat("Normalised (time unit t0 = hbar/E_C, energy unit E_C = (2e)^2/C):\n")
  print(norm, row.names = n > 1, right = TRUE)
  invisible(x)
}
