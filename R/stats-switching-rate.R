# The escape rate Gamma(gamma) inverted from a sample of switching currents
# (Fulton-Dunkleberger), with print and plot methods.

# Break points of one condition: `bins` equal bins spanning the escaped
# values, by default as many as the Freedman-Diaconis width gives.
switching_breaks <- function(sw, bins) {
  if (is.numeric(bins) && length(bins) > 1) return(bins)
  lo <- min(sw)
  hi <- max(sw)
  k <- if (is.null(bins)) {
    m <- length(sw)
    w <- 2 * stats::IQR(sw) * m^(-1 / 3)
    k_fd <- if (w > 0) ceiling((hi - lo) / w) else ceiling(sqrt(m))
    min(max(k_fd, 5), 100)
  } else bins
  if (hi == lo) return(c(lo, lo + max(abs(lo), 1) * 1e-9)) # one repeated value
  seq(lo, hi, length.out = k + 1)
}

# Weighted least-squares slope of y on x (NA when it cannot be fitted).
wls_slope <- function(x, y, w) {
  if (length(x) < 3) return(NA_real_)
  xm <- sum(w * x) / sum(w)
  ym <- sum(w * y) / sum(w)
  sxx <- sum(w * (x - xm)^2)
  if (!(sxx > 0)) return(NA_real_)
  sum(w * (x - xm) * (y - ym)) / sxx
}

# Offset from the left edge of a bin of width dg at which exp(kappa g)
# equals its average over the bin: log(expm1(kappa dg) / (kappa dg)) / kappa,
# dg/2 + kappa dg^2/24 + ... (dg/2 when kappa is 0 or unknown).
bin_point_offset <- function(kappa, dg) {
  x <- kappa * dg
  ifelse(is.na(x) | abs(x) < 1e-6, dg / 2 + ifelse(is.na(x), 0, x * dg / 24),
         log(expm1(x) / x) / kappa)
}

#' Escape rate inverted from switching currents
#'
#' Turns a sample of switching currents under a linear ramp (a result of
#' [switching_currents()]) back into the escape rate \eqn{\Gamma(\gamma)} at
#' fixed bias, by the inversion of Fulton and Dunkleberger (1974). With the
#' escaped values of a condition binned into bins \eqn{k} of width
#' \eqn{\Delta\gamma},
#' \deqn{\hat\Gamma_k = \frac{v}{\Delta\gamma}\,
#'   \ln\frac{N_k}{N_k - n_k},}
#' where \eqn{v} is the ramp \eqn{d\gamma/dt} (the `ramp` column), \eqn{n_k}
#' the number of switches in bin \eqn{k} and \eqn{N_k} the number of paths
#' still at risk when the bias enters it (neither switched nor censored
#' before). Given \eqn{N_k}, a path survives the bin with probability
#' \eqn{\exp(-\frac1v\int_{\rm bin}\Gamma\,d\gamma)}, so \eqn{\hat\Gamma_k}
#' is the maximum-likelihood estimate of the average of \eqn{\Gamma} over the
#' bin, whatever the shape of the distribution elsewhere.
#'
#' @details
#' **Censoring.** Paths censored at `gamma_max`, or where an interrupted run
#' stopped them, count as at risk until their censoring value. A path
#' censored inside a bin was at risk for part of it; as in the actuarial life
#' table it counts as half a path there, \eqn{N_k = (\text{at risk at the
#' start}) - c_k/2} with \eqn{c_k} the paths censored inside bin \eqn{k} (so
#' `n_risk` need not be a whole number). Without such paths (the usual case,
#' all censored at `gamma_max` beyond the last switch) \eqn{N_k} is the plain
#' count.
#'
#' **Where the rate is reported.** \eqn{\Gamma} grows about exponentially
#' with the bias, \eqn{\Gamma \propto e^{\kappa\gamma}}, so its bin average
#' lies above its value at the bin centre, by a factor \eqn{1 +
#' (\kappa\Delta\gamma)^2/24 + \dots}. Each rate is therefore reported at the
#' point where \eqn{e^{\kappa\gamma}} equals its bin average, \eqn{\gamma_k =
#' \gamma_{\rm left} + \ln[(e^{\kappa\Delta\gamma} - 1)/(\kappa\Delta\gamma)]/\kappa}
#' (the centre plus \eqn{\kappa\Delta\gamma^2/24}), with \eqn{\kappa} the
#' weighted least-squares slope of \eqn{\ln\hat\Gamma_k} over the bins of the
#' condition (the centre when fewer than three bins are left). There
#' \eqn{\hat\Gamma_k} estimates \eqn{\Gamma(\gamma_k)} without that bias,
#' up to the curvature of \eqn{\ln\Gamma} within a bin.
#'
#' **Intervals.** With \eqn{L_k = \ln(N_k/(N_k - n_k))} and \eqn{n_k}
#' binomial given \eqn{N_k}, the delta method gives \eqn{\mathrm{var}(L_k)
#' \approx n_k/(N_k(N_k - n_k))}; the interval is symmetric on the log scale,
#' \eqn{\hat\Gamma_k \exp(\pm z\,\mathrm{sd}(L_k)/L_k)} with \eqn{z} the
#' normal quantile of `level` (about \eqn{\pm z/\sqrt{n_k}} for small
#' \eqn{n_k/N_k}). It is asymptotic: reliable where \eqn{n_k} and \eqn{N_k -
#' n_k} are both more than a few. Estimates of different bins are
#' asymptotically independent.
#'
#' **Dropped bins.** Bins without a switch (\eqn{n_k = 0}, no estimate) and
#' bins where every path at risk switches (\eqn{n_k = N_k}, an infinite
#' estimate: without censoring, always the last bin) are left out; their
#' number is in `attr(, "dropped")`.
#'
#' **Bins.** By default the escaped values of each condition are divided
#' into equal bins, as many as the Freedman-Diaconis width \eqn{2\,
#' \mathrm{IQR}\, m^{-1/3}} gives for \eqn{m} switches (at least 5 and at
#' most 100): about 30 bins for 2,000 switches of a typical distribution.
#' Wider bins give smaller intervals and more of the bias above; narrower
#' ones the reverse.
#'
#' The rate describes escapes as the simulation defined them: compare it
#' with [escape_rate()] for `threshold = "next_well"` (leaving the well), as
#' `plot(, theory = )` does.
#'
#' @param x A result of [switching_currents()], with one or more conditions.
#' @param bins `NULL` (default, see "Bins"), a single whole number of equal
#'   bins spanning the escaped values of each condition, or a numeric vector
#'   of at least two increasing break points used for every condition.
#' @param level Confidence level of the intervals.
#' @param ... Unused.
#' @return A data frame of class `sp_switching_rate`, one row per kept bin
#'   and condition: the condition columns of `x` (`condition`, `ramp`, `V0`,
#'   `beta`, `theta`), `gamma` (the point of the estimate, see above),
#'   `rate` (per time unit \eqn{t_0}, as [escape_rate()]), `lower` and
#'   `upper` (the interval), `n_risk` (\eqn{N_k}) and `n_switch`
#'   (\eqn{n_k}). Attributes: `width` (the bin width of each condition),
#'   `breaks` (a list, the break points of each condition), `kappa` (the
#'   slope used for the points), `dropped` (bins left out per condition),
#'   `level`, `gamma0`, `threshold`. Methods: `print`, `plot`.
#' @seealso [switching_distribution()] for the forward problem,
#'   [escape_rate()] for theory, [exp_tail_rate()] for escape times at fixed
#'   bias.
#' @references
#' Fulton, T. A. and Dunkleberger, L. N. (1974) Lifetime of the zero-voltage
#'   state in Josephson tunnel junctions. *Physical Review B* 9, 4760-4768 \doi{10.1103/PhysRevB.9.4760}.
#'
#' Cox, D. R. and Oakes, D. (1984) *Analysis of Survival Data*. Chapman and
#'   Hall, Sec. 4.3 (life tables).
#' @examples
#' x <- switching_currents(1000, ramp = 1e-3, V0 = 2, beta = 0.5,
#'                         theta = 0.25, dt = 0.02, gamma0 = 0.4, seed = 1,
#'                         backend = "cpu", threshold = "next_well",
#'                         init = "thermal")
#' r <- switching_rate(x)
#' r
#' plot(r, theory = "kramers")
#' @export
switching_rate <- function(x, bins = NULL, level = 0.95, ...) {
  call <- sys.call()
  if (inherits(x, "switching_rates")) {
    sp_abort(paste0("`x` is a result of switching_currents(method = \"rates\"), which holds ",
                    "its simulated rates already: see attr(x, \"rates\") and ",
                    "plot(x, what = \"rates\")."), call = call)
  }
  if (!inherits(x, "switching_currents")) {
    hint <- if (inherits(x, "escape_times")) {
      paste0(": escape times at fixed bias have a rate already, see ",
             "exp_tail_rate() and summary()")
    } else ""
    sp_abort(sprintf("`x` must be a result of switching_currents(), not %s%s.",
                     describe(x), hint), call = call)
  }
  need <- c("condition", "ramp", "value", "escaped")
  if (!all(need %in% names(x))) {
    sp_abort(sprintf("`x` lacks the column%s %s of a switching_currents() result.",
                     if (sum(!need %in% names(x)) > 1) "s" else "",
                     paste0("`", need[!need %in% names(x)], "`", collapse = ", ")),
             call = call)
  }
  level <- check_level(level, call = call)
  if (!is.null(bins)) {
    ok <- is.numeric(bins) && !anyNA(bins) && all(is.finite(bins)) &&
      ((length(bins) == 1 && bins >= 1 && bins == floor(bins) && bins <= 1e6) ||
         (length(bins) > 1 && all(diff(bins) > 0)))
    if (!ok) {
      sp_abort(sprintf(paste0(
        "`bins` must be NULL, a single whole number of bins (1 or more) or ",
        "a vector of increasing break points, not %s."), describe(bins)),
        call = call)
    }
  }
  z <- stats::qnorm(1 - (1 - level) / 2)
  conds <- conditions_of(x)
  min_switch <- 10
  blocks <- list()
  width <- kappa <- dropped <- numeric(nrow(conds))
  brk_all <- vector("list", nrow(conds))
  for (i in seq_len(nrow(conds))) {
    cond <- conds[i, , drop = FALSE]
    d <- x[x$condition == cond$condition & !is.na(x$escaped), , drop = FALSE]
    v <- d$value
    e <- as.logical(d$escaped)
    sw <- v[e]
    if (length(sw) < min_switch) {
      sp_abort(sprintf(paste0(
        "condition %d (%s) has %d switch%s; switching_rate() needs at least %d ",
        "per condition (simulate more paths or a larger `gamma_max`)."),
        cond$condition, condition_label(cond, setdiff(names(conds), "condition")),
        length(sw), if (length(sw) == 1) "" else "es", min_switch), call = call)
    }
    b <- switching_breaks(sw, bins)
    K <- length(b) - 1
    lo <- b[-(K + 1)]
    hi <- b[-1]
    # bin of every value (left-closed; the last bin also holds its right end
    # for switches, not for censored values, which survived it)
    k_sw <- findInterval(sw, b, rightmost.closed = TRUE)
    cens <- v[!e]
    k_c <- findInterval(cens, b) # censored at b[K + 1] or beyond: K + 1
    n_sw <- tabulate(k_sw[k_sw >= 1 & k_sw <= K], K)
    n_c <- tabulate(k_c[k_c >= 1 & k_c <= K], K)
    at_start <- vapply(lo, function(l) sum(v >= l), numeric(1))
    n_risk <- at_start - n_c / 2
    keep <- n_sw > 0 & n_sw < n_risk
    dropped[i] <- sum(!keep)
    brk_all[[i]] <- b
    width[i] <- if (length(unique(round(diff(b), 12))) == 1) diff(b)[1] else NA_real_
    if (!any(keep)) {
      kappa[i] <- NA_real_
      next
    }
    dg <- (hi - lo)[keep]
    N <- n_risk[keep]
    n <- n_sw[keep]
    L <- -log1p(-n / N)
    rate <- cond$ramp * L / dg
    se_log <- sqrt(n / (N * (N - n))) / L
    kappa[i] <- wls_slope(((lo + hi) / 2)[keep], log(rate), 1 / se_log^2)
    g <- lo[keep] + bin_point_offset(kappa[i], dg)
    blk <- cond[rep(1, length(g)), , drop = FALSE]
    blk$gamma <- g
    blk$rate <- rate
    blk$lower <- rate * exp(-z * se_log)
    blk$upper <- rate * exp(z * se_log)
    blk$n_risk <- N
    blk$n_switch <- n
    blocks[[length(blocks) + 1]] <- blk
  }
  if (!length(blocks)) {
    sp_abort(paste0("no bin has both a switch and a path left at risk after it; ",
                    "use fewer `bins`."), call = call)
  }
  out <- do.call(rbind, blocks)
  rownames(out) <- NULL
  names(width) <- names(kappa) <- names(dropped) <- conds$condition
  names(brk_all) <- conds$condition
  attr(out, "width") <- width
  attr(out, "breaks") <- brk_all
  attr(out, "kappa") <- kappa
  attr(out, "dropped") <- dropped
  attr(out, "level") <- level
  attr(out, "gamma0") <- attr(x, "gamma0") %||% 0
  attr(out, "threshold") <- attr(x, "threshold") %||% "saddle"
  class(out) <- c("sp_switching_rate", "data.frame")
  out
}

#' @export
print.sp_switching_rate <- function(x, digits = 4, n = 40, ...) {
  lvl <- attr(x, "level")
  nc <- length(unique(x$condition))
  w <- attr(x, "width")
  cat(sprintf(paste0("Escape rate from switching currents (Fulton-Dunkleberger ",
                     "inversion): %d bin%s, %d condition%s%s%s\n"),
              nrow(x), if (nrow(x) == 1) "" else "s", nc, if (nc == 1) "" else "s",
              if (!is.null(w) && all(!is.na(w)))
                sprintf(", bin width %s", paste(format(unique(signif(w, 3))), collapse = "/"))
              else "",
              if (!is.null(lvl)) sprintf(", %g%% intervals", 100 * lvl) else ""))
  dr <- attr(x, "dropped")
  if (!is.null(dr) && sum(dr) > 0) {
    cat(sprintf("(%d bin%s without a switch or with none left at risk after it left out)\n",
                sum(dr), if (sum(dr) == 1) "" else "s"))
  }
  y <- as.data.frame(unclass(x))
  if (nrow(y) > n) {
    print(utils::head(y, n), digits = digits, row.names = FALSE)
    cat(sprintf("... %d more rows\n", nrow(y) - n))
  } else {
    print(y, digits = digits, row.names = FALSE)
  }
  invisible(x)
}

#' Plot an escape rate inverted from switching currents
#'
#' Draws the rates of [switching_rate()] against the bias on a logarithmic
#' axis, with their confidence intervals as error bars, one colour per
#' condition, and optionally the theoretical rate [escape_rate()] of each
#' condition as a line.
#'
#' @param x A result of [switching_rate()].
#' @param theory `"none"` (default), or a prefactor of [escape_rate()]:
#'   `"kramers"`, `"bhl"` or `"mm"`.
#' @param log Passed to [plot()]; `"y"` (default) for a logarithmic rate axis.
#' @param ... Passed to [plot()].
#' @return `x`, invisibly.
#' @examples
#' x <- switching_currents(600, ramp = 1e-3, V0 = 2, beta = c(0.1, 0.5),
#'                         theta = 0.25, dt = 0.02, gamma0 = 0.4, seed = 1,
#'                         backend = "cpu", threshold = "next_well")
#' plot(switching_rate(x), theory = "mm")
#' @export
plot.sp_switching_rate <- function(x, theory = c("none", "kramers", "bhl", "mm"),
                                   log = "y", ...) {
  call <- sys.call()
  theory <- check_choice(theory, c("none", RATE_THEORIES), "theory", call = call)
  need <- c("condition", "gamma", "rate", "lower", "upper")
  if (!all(need %in% names(x))) {
    sp_abort("`x` must be a result of switching_rate().", call = call)
  }
  if (theory != "none" && !all(c("V0", "beta", "theta") %in% names(x))) {
    sp_abort(paste0("theory = \"", theory, "\" needs the columns V0, beta and ",
                    "theta of the conditions."), call = call)
  }
  y <- as.data.frame(unclass(x))
  ids <- sort(unique(y$condition))
  cols <- grDevices::hcl.colors(max(length(ids), 2), "Dark 3")[seq_along(ids)]
  par_cols <- setdiff(names(y), c("condition", "gamma", "rate", "lower", "upper",
                                  "n_risk", "n_switch"))
  th <- lapply(ids, function(id) {
    if (theory == "none") return(NULL)
    d <- y[y$condition == id, , drop = FALSE]
    gr <- seq(min(d$gamma), max(d$gamma), length.out = 200)
    data.frame(gamma = gr, rate = escape_rate(gr, d$V0[1], d$beta[1], d$theta[1],
                                              prefactor = theory))
  })
  yr <- range(c(y$lower, y$upper, unlist(lapply(th, `[[`, "rate"))), finite = TRUE)
  if (grepl("y", log)) yr[1] <- max(yr[1], min(y$rate[y$rate > 0]) / 100)
  # legend labels name only the parameters that differ between the
  # conditions; the others go under the plot
  first <- y[match(ids, y$condition), par_cols, drop = FALSE]
  lab <- if (length(par_cols)) vary_labels(first) else
    list(labels = rep("", length(ids)), constant = "")
  lvl <- attr(x, "level")
  graphics::plot(NA, xlim = range(y$gamma), ylim = yr, log = log,
                 xlab = "bias gamma = I / Ic",
                 ylab = "escape rate (per t0 = hbar / E_C)",
                 main = "Escape rate from switching currents", sub = lab$constant,
                 cex.sub = 0.8, ...)
  for (j in seq_along(ids)) {
    d <- y[y$condition == ids[j], , drop = FALSE]
    error_bars(d$gamma, d$lower, d$upper, col = cols[j])
    graphics::points(d$gamma, d$rate, pch = 19, cex = 0.6, col = cols[j])
    if (!is.null(th[[j]])) {
      graphics::lines(th[[j]]$gamma, th[[j]]$rate, col = cols[j], lty = 2, lwd = 1.5)
    }
  }
  multi <- length(ids) > 1
  key <- if (multi) "grey30" else cols[1]
  leg <- c(if (multi) lab$labels,
           sprintf("simulation (Fulton-Dunkleberger inversion)%s",
                   if (!is.null(lvl)) sprintf(", %g%% intervals", 100 * lvl) else ""),
           if (theory != "none") sprintf("theory: %s rate", THEORY_NAMES[[theory]]))
  n_c <- if (multi) length(ids) else 0
  thx <- unlist(lapply(th, `[[`, "gamma"))
  thy <- unlist(lapply(th, `[[`, "rate"))
  place_legend(c(y$gamma, y$gamma, y$gamma, thx), c(y$rate, y$lower, y$upper, thy),
               legend = leg,
               col = c(if (multi) cols, key, if (theory != "none") key),
               pch = c(rep(15, n_c), 19, if (theory != "none") NA),
               lty = c(rep(0, n_c), 0, if (theory != "none") 2), lwd = 1.5,
               bty = "o", box.col = NA, bg = grDevices::adjustcolor("white", 0.8),
               cex = 0.8)
  invisible(x)
}
