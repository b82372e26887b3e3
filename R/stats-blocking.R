# Error analysis of correlated series (Markov chains, molecular dynamics):
# Flyvbjerg-Petersen reblocking with the optimal level of Wolff / Lee et al.,
# Jonsson's automatic blocking, the integrated autocorrelation time with
# Sokal's window (emcee's convention), and the time-to-error invariant.

# Smallest number of values a chain must hold: two blocking levels (4 and 2
# blocks), and a few lags of the autocorrelation function.
BLOCKING_MIN_LEN <- 4

# The chains of x as a list of double vectors, checked: x is a numeric
# vector (one chain), a numeric matrix (one chain per column), or a list
# (or data frame) of numeric vectors.  Every chain must hold at least
# BLOCKING_MIN_LEN finite values and must not be constant.
blocking_chains <- function(x, call, name = "x") {
  if (is.data.frame(x)) x <- as.list(x)
  if (is.matrix(x)) {
    if (!is.numeric(x)) {
      sp_abort(sprintf("`%s` must be a numeric matrix (one chain per column), not a %s matrix.",
                       name, typeof(x)), call = call)
    }
    chains <- lapply(seq_len(ncol(x)), function(j) x[, j])
    labels <- if (ncol(x) == 1) name else sprintf("%s[, %d]", name, seq_len(ncol(x)))
  } else if (is.list(x)) {
    if (length(x) == 0) {
      sp_abort(sprintf("`%s` is an empty list: it needs at least one chain.", name),
               call = call)
    }
    chains <- x
    labels <- sprintf("%s[[%d]]", name, seq_along(x))
  } else {
    chains <- list(x)
    labels <- name
  }
  if (length(chains) == 0) {
    sp_abort(sprintf("`%s` must hold at least one chain (it has no columns).", name),
             call = call)
  }
  for (j in seq_along(chains)) {
    y <- chains[[j]]
    shaped <- !is.null(dim(y)) && sum(dim(y) > 1) > 1
    if (!is.numeric(y) || shaped) {
      what <- if (shaped) {
        sprintf("an array of dimensions %s", paste(dim(y), collapse = " x "))
      } else if (is.atomic(y) && length(y) > 1) {
        sprintf("a %s vector", typeof(y))
      } else describe(y)
      sp_abort(sprintf(paste0(
        "`%s` must be a numeric vector (one chain), a numeric matrix (one ",
        "chain per column) or a list of numeric vectors, not %s."), labels[j],
        what), call = call)
    }
    y <- check_finite(as.vector(y), labels[j], call = call)
    if (length(y) < BLOCKING_MIN_LEN) {
      sp_abort(sprintf("`%s` must hold at least %d values; it has %d.", labels[j],
                       BLOCKING_MIN_LEN, length(y)), call = call)
    }
    if (all(y == y[1])) {
      sp_abort(sprintf(paste0(
        "`%s` is constant (every value is %s): the standard error of its mean ",
        "is 0 and it has no autocorrelation to analyse."), labels[j],
        format(y[1], digits = 15)), call = call)
    }
    chains[[j]] <- y
  }
  chains
}

# A power of two near the largest magnitude in the chains.  Dividing the
# chains by it is exact (no rounding, short of values below 2^-1022 times
# it), and brings values near the ends of the double range (1e308, 1e-320)
# to where sums, variances and their squares neither overflow nor vanish;
# the results scale back exactly (standard errors by the same power, since
# variances scale by its square, a power of 4).
blocking_scale <- function(chains) {
  m <- max(vapply(chains, function(y) max(abs(y)), 0))
  if (!is.finite(m) || m <= 0) return(1)
  2^floor(log2(m))
}

# One blocking transformation: the means of neighbouring pairs; an odd last
# value is dropped.
block_pairs <- function(y) {
  m <- length(y) - length(y) %% 2
  0.5 * (y[seq.int(1, m, 2)] + y[seq.int(2, m, 2)])
}

# Levels 0, 1, ..., K of one chain, K the last level with at least 2 blocks:
# a matrix with columns blocks, mean, var (divisor blocks - 1).
reblock_chain <- function(y) {
  rows <- list()
  repeat {
    rows[[length(rows) + 1]] <- c(length(y), mean(y), stats::var(y))
    if (length(y) < 4) break
    y <- block_pairs(y)
  }
  out <- do.call(rbind, rows)
  colnames(out) <- c("blocks", "mean", "var")
  out
}

# The reblocking table of several independent chains (see reblock()),
# computed on the chains scaled by blocking_scale().
reblock_table <- function(chains) {
  s <- blocking_scale(chains)
  per <- lapply(chains, function(y) reblock_chain(y / s))
  K <- min(vapply(per, nrow, 1L))
  per <- lapply(per, function(p) p[seq_len(K), , drop = FALSE])
  nb <- vapply(per, function(p) p[, "blocks"], numeric(K))
  mu <- vapply(per, function(p) p[, "mean"], numeric(K))
  v <- vapply(per, function(p) p[, "var"], numeric(K))
  nb <- matrix(nb, nrow = K); mu <- matrix(mu, nrow = K); v <- matrix(v, nrow = K)
  w <- nb / rowSums(nb)                 # weight of each chain at each level
  se2_j <- v / nb                       # squared SE of each chain's mean
  se2 <- rowSums(w^2 * se2_j)
  se <- sqrt(se2)
  # var(SE_j^2) = 2 SE_j^4 / (n_j - 1); propagated to SE = sqrt(se2)
  # (0, not NaN, where every chain's blocks are equal: SE_k = 0 exactly)
  se_error <- ifelse(se > 0, sqrt(rowSums(w^4 * se2_j^2 * 2 / (nb - 1))) / (2 * se), 0)
  level <- seq_len(K) - 1
  n <- sum(lengths(chains))
  ratio <- se / se[1]
  meets <- !is.na(ratio) & 2^(3 * level) > 2 * n * ratio^4
  optimal <- rep(FALSE, K)
  if (any(meets)) optimal[which(meets)[1]] <- TRUE
  out <- data.frame(level = as.integer(level), blocks = rowSums(nb),
                    mean = s * rowSums(w * mu), se = s * se, se_error = s * se_error,
                    optimal = optimal)
  attr(out, "n") <- n
  attr(out, "chains") <- length(chains)
  attr(out, "dropped") <- n - rowSums(nb) * 2^level
  class(out) <- c("sp_reblock", "data.frame")
  out
}

#' Reblocking analysis of a correlated series (Flyvbjerg-Petersen)
#'
#' The standard error of the mean of a correlated series (a Markov chain, a
#' molecular-dynamics trajectory) by repeated blocking: level 0 is the
#' series itself, and level \eqn{k+1} holds the means of neighbouring pairs
#' of level \eqn{k}, so a block of level \eqn{k} is the mean of \eqn{2^k}
#' consecutive values. At level \eqn{k} with \eqn{n_k} blocks of sample
#' standard deviation \eqn{s_k} (divisor \eqn{n_k - 1}) the table gives
#' \deqn{SE_k = s_k / \sqrt{n_k}, \qquad \delta SE_k = SE_k / \sqrt{2 (n_k - 1)},}
#' the second being the standard error of \eqn{SE_k} itself (for
#' independent normal blocks). For correlated data \eqn{SE_0} is too small;
#' \eqn{SE_k} grows with \eqn{k} and levels off at the true standard error
#' once the blocks are longer than the correlation time, until the few
#' blocks left make it noisy.
#'
#' **Odd lengths.** When a level holds an odd number of blocks, its last
#' block is dropped before pairing (as in Flyvbjerg and Petersen and in
#' `pyblock`), so the deepest levels may leave out a few values at the end
#' of the series: the attribute `dropped` counts them per level and the
#' column `mean` is the mean of the values still covered (identical at
#' every level when the length is a power of two). Levels continue while at
#' least 2 blocks remain.
#'
#' **Optimal level.** The row marked `optimal` is the smallest level \eqn{k}
#' with
#' \deqn{2^{3k} > 2\, n\, (SE_k / SE_0)^4,}
#' the criterion of Lee et al. (2011, Eq. 14), after Wolff (2004, Eq. 47):
#' the block size \eqn{B = 2^k} must exceed \eqn{(2 n \tau^2)^{1/3}}, where
#' \eqn{n} is the length of the original series and \eqn{\tau \approx
#' (SE_k/SE_0)^2} the integrated autocorrelation time, which balances the
#' bias of short blocks (relative \eqn{\sim \tau/B}) against the noise of
#' few blocks (relative \eqn{\sim \sqrt{B/n}}). It is the convention of
#' `pyblock`'s `find_optimal_block()`. Since \eqn{2^0 = 1 < 2n}, level 0 is
#' never optimal, not even for white noise: there the criterion picks the
#' smallest \eqn{k} with \eqn{2^{3k} > 2n} (level 6 for \eqn{n = 2^{16}}),
#' whose \eqn{SE_k} estimates the same \eqn{\sigma/\sqrt n} with an error
#' of \eqn{1/\sqrt{2(n_k-1)}}. When no level meets the criterion (a chain
#' not much longer than its correlation time), no row is marked: collect
#' more data.
#'
#' **Several chains.** `x` may hold \eqn{m} independent chains (columns of
#' a matrix, or elements of a list, of possibly different lengths \eqn{n_j}).
#' Each chain is reblocked on its own (blocks never straddle two chains) up
#' to the deepest level that every chain reaches, and the levels are
#' combined for the grand mean of all values,
#' \eqn{\bar x = \sum_j w_j \bar x_j} with \eqn{w_j = n_{j,k} / \sum_i n_{i,k}}
#' (the share of the values that chain \eqn{j} covers at level \eqn{k};
#' \eqn{1/m} for chains of equal length). Since the chains are independent,
#' \eqn{Var(\bar x) = \sum_j w_j^2 Var(\bar x_j)}, so
#' \deqn{SE_k = \sqrt{\textstyle\sum_j w_j^2 SE_{k,j}^2}
#'   \quad (= \sqrt{\textstyle\sum_j SE_{k,j}^2} / m \textrm{ for equal lengths}),}
#' and, propagating \eqn{Var(SE_{k,j}^2) = 2 SE_{k,j}^4 / (n_{k,j} - 1)},
#' \deqn{\delta SE_k = \sqrt{\textstyle\sum_j w_j^4 SE_{k,j}^4 \cdot 2/(n_{k,j}-1)} \big/ (2 SE_k),}
#' which reduces to the single-chain formula for \eqn{m = 1}, and to
#' \eqn{SE_k/\sqrt{2 m (n_k - 1)}} for \eqn{m} alike chains (the pooled
#' degrees of freedom). The column `blocks` is the total over the chains,
#' and the optimal level uses \eqn{n} = the total number of values. Only
#' the spread within chains enters: chains that have not all reached
#' equilibrium (different means) are not detected; check them first.
#'
#' @param x A numeric vector (one chain), a numeric matrix with one chain
#'   per column, or a list of numeric vectors (independent chains). Values
#'   must be finite, of any magnitude (the chains are divided by a power of
#'   two near their largest magnitude before the sums, which is exact, so
#'   that values near 1e308 or 1e-320 neither overflow nor vanish); each
#'   chain needs at least 4 values and must not be constant.
#' @return A data frame of class `c("sp_reblock", "data.frame")`, one row
#'   per level, with columns `level` (\eqn{k}, blocks of \eqn{2^k} values),
#'   `blocks` (\eqn{n_k}), `mean`, `se` (\eqn{SE_k}), `se_error`
#'   (\eqn{\delta SE_k}) and `optimal` (logical, `TRUE` on at most one row);
#'   attributes `n` (values in all), `chains` and `dropped` (values left out
#'   at each level by odd lengths).
#' @seealso [blocking_se()] for the standard error alone (also by Jonsson's
#'   automatic method), [tau_int()] for the autocorrelation time.
#' @references
#' Flyvbjerg, H. and Petersen, H. G. (1989) Error estimates on averages of
#'   correlated data. *Journal of Chemical Physics* 91, 461-466 \doi{10.1063/1.457480}.
#'
#' Wolff, U. (2004) Monte Carlo errors with less errors. *Computer Physics
#'   Communications* 156, 143-153 \doi{10.1016/S0010-4655(03)00467-3}.
#'
#' Lee, R. M., Conduit, G. J., Nemec, N., Lopez Rios, P. and Drummond, N. D.
#'   (2011) Strategies for improving the efficiency of quantum Monte Carlo
#'   calculations. *Physical Review E* 83, 066706 \doi{10.1103/PhysRevE.83.066706}.
#' @examples
#' # an AR(1) chain with phi = 0.9: true SE of the mean is
#' # sqrt(var / n * (1 + phi) / (1 - phi))
#' set.seed(1)
#' n <- 2^16
#' x <- as.numeric(stats::filter(rnorm(n), 0.9, method = "recursive"))
#' r <- reblock(x)
#' r
#' sqrt(1 / (1 - 0.9^2) / n * 19)
#' plot(r)
#' # four independent chains, combined
#' reblock(matrix(stats::filter(rnorm(4 * 4096), 0.5, "recursive"), ncol = 4))
#' @export
reblock <- function(x) {
  call <- sys.call()
  reblock_table(blocking_chains(x, call = call))
}

#' @rdname reblock
#' @param digits Significant digits to print.
#' @param ... Passed to [print.data.frame()] (print) or [plot()] (plot).
#' @export
print.sp_reblock <- function(x, digits = 4, ...) {
  m <- attr(x, "chains")
  cat(sprintf("<sp_reblock: %s values in %d chain%s, %d levels>\n",
              format(attr(x, "n"), big.mark = ","), m, if (m == 1) "" else "s",
              nrow(x)))
  y <- as.data.frame(unclass(x))
  y$optimal <- ifelse(y$optimal, "<--", "")
  names(y)[names(y) == "optimal"] <- ""
  print(y, digits = digits, row.names = FALSE, ...)
  k <- which(x$optimal)
  if (length(k)) {
    cat(sprintf("Optimal level %d (blocks of %s values): SE = %s +/- %s\n",
                x$level[k], format(2^x$level[k], big.mark = ","),
                format(x$se[k], digits = digits), format(x$se_error[k], digits = 2)))
  } else {
    cat("No level meets the optimal-block criterion: the series is too short for its correlation time.\n")
  }
  dr <- attr(x, "dropped")
  if (any(dr > 0)) {
    cat(sprintf(paste0("Odd block counts: the last block was dropped, leaving out up to %d ",
                       "value%s at the end (at level %d).\n"),
                max(dr), if (max(dr) == 1) "" else "s", x$level[which.max(dr)]))
  }
  invisible(x)
}

#' @rdname reblock
#' @param xlab,ylab,main Axis labels and title of the plot (the values'
#'   name and unit belong in `ylab`, e.g. `"standard error of E/N (K)"`).
#' @details `plot()` draws \eqn{SE_k} against the level \eqn{k}, with error
#'   bars of \eqn{\pm\,\delta SE_k} (one standard error of \eqn{SE_k}
#'   itself), and marks the optimal level, whose \eqn{SE_k} is the
#'   standard error of the mean (dotted line).
#' @export
plot.sp_reblock <- function(x, ..., xlab = "blocking level k (blocks of 2^k values)",
                            ylab = "standard error of the mean",
                            main = "Reblocking (Flyvbjerg-Petersen)") {
  lo <- x$se - x$se_error
  hi <- x$se + x$se_error
  graphics::plot(x$level, x$se, ylim = range(c(lo, hi)), pch = 19, cex = 0.7,
                 xlab = xlab, ylab = ylab, main = main, ...)
  # bars shorter than the plot can show would warn (zero-length arrows)
  bars <- hi - lo > 1e-3 * diff(range(c(lo, hi)))
  if (any(bars)) {
    graphics::arrows(x$level[bars], lo[bars], x$level[bars], hi[bars], angle = 90,
                     code = 3, length = 0.03)
  }
  k <- which(x$optimal)
  leg <- "SE_k +/- its standard error"
  col <- "black"; pch <- 19; lty <- 1; ptc <- 0.7
  if (length(k)) {
    graphics::abline(h = x$se[k], lty = 3, col = "red")
    graphics::points(x$level[k], x$se[k], pch = 21, cex = 1.8, col = "red", lwd = 2)
    leg <- c(leg, sprintf("optimal level %d: SE of the mean = %s", x$level[k],
                          format(x$se[k], digits = 3)))
    col <- c(col, "red"); pch <- c(pch, 21); lty <- c(lty, 3); ptc <- c(ptc, 1.5)
  }
  graphics::legend("topleft", legend = leg, pch = pch, col = col, pt.cex = ptc, lty = lty,
                   bty = "n", cex = 0.85)
  invisible(x)
}

# Jonsson's automatic blocking for one chain of length 2^d (Jonsson 2018,
# following the paper's public code line by line): gamma_i is the lag-1
# autocovariance at level i (divisor n_i, about the overall mean), s_i the
# variance (divisor n_i), M_j = sum_{i >= j} n_i (gamma_i / s_i)^2, and the
# level is the first j with M_j < the 0.99 quantile of chi^2 at j + 1
# degrees of freedom.
jonsson_chain <- function(y) {
  d <- 0
  while (2^(d + 1) <= length(y)) d <- d + 1
  y <- y[seq_len(2^d)]
  mu <- mean(y)
  s <- gamma <- numeric(d)
  for (i in seq_len(d)) {
    n <- length(y)
    dy <- y - mu
    gamma[i] <- sum(dy[-n] * dy[-1]) / n
    s[i] <- mean((y - mean(y))^2)
    y <- block_pairs(y)
  }
  M <- rev(cumsum(rev((gamma / s)^2 * 2^(d:1))))
  q <- stats::qchisq(0.99, df = seq_len(d))
  # |gamma_i| <= s_i, so M_{d-2} <= 4 + 1/2 < q_{d-2}: the test always stops
  # by level d - 2, and the code's fallback to the last level ("Use more
  # data") is never reached; kept for safety.
  j <- which(M < q)[1]
  if (is.na(j)) j <- d
  list(se = sqrt(s[j] / 2^(d - j + 1)), level = j - 1L, d = d, mean = mu,
       n = 2^d)
}

#' Standard error of the mean of a correlated series
#'
#' The standard error of the mean of a correlated series by blocking, with
#' the level chosen automatically.
#'
#' * `"optimal"`: \eqn{SE_k} of [reblock()] at its optimal level (the
#'   criterion of Wolff and of Lee et al., see [reblock()]); its own error
#'   \eqn{SE_k/\sqrt{2(n_k-1)}} is the attribute `se_error`. When no level
#'   meets the criterion the result is `NA`, with a warning.
#' * `"jonsson"`: Jonsson's automatic blocking (2018), as in the paper's
#'   public code. The series must have length \eqn{n = 2^d}; otherwise its
#'   **first** \eqn{2^{\lfloor \log_2 n \rfloor}} values are used, as
#'   that code does, and a message says how many were left out (drop the
#'   start of the chain yourself if the end is more valuable). At each level
#'   \eqn{i = 0, \dots, d-1} (\eqn{n_i = 2^{d-i}} blocks) it estimates the
#'   variance \eqn{\hat\sigma_i^2} (divisor \eqn{n_i}) and the lag-1
#'   autocovariance \eqn{\hat\gamma_i = n_i^{-1} \sum_t (X_t - \bar X)(X_{t+1}
#'   - \bar X)}, forms
#'   \deqn{M_j = \sum_{i=j}^{d-1} n_i\, (\hat\gamma_i / \hat\sigma_i^2)^2,}
#'   and stops at the first level \eqn{j} with \eqn{M_j < q_j}, \eqn{q_j}
#'   the 0.99 quantile of \eqn{\chi^2} with \eqn{j + 1} degrees of freedom
#'   (the code's table 6.634897, 9.210340, ...; here from [qchisq()]); the
#'   result is \eqn{\sqrt{\hat\sigma_j^2 / n_j}}. The code falls back to
#'   the last level (2 blocks) with a warning to use more data when no level
#'   passes, but that cannot happen: \eqn{|\hat\gamma_i| \le \hat\sigma_i^2}
#'   bounds \eqn{M_{d-2} \le 4.5}, below every \eqn{q_j}, so the test
#'   stops by level \eqn{d-2} (4 blocks) at the latest. A short or strongly
#'   correlated series therefore gives no warning here: look at the
#'   attribute `blocks` (few blocks, few effective samples) and compare
#'   with [reblock()], whose `"optimal"` level returns `NA` in that case. Note
#'   that \eqn{M_j} sums \eqn{d - j} terms, each asymptotically
#'   \eqn{\chi^2_1} once the blocks are uncorrelated, while the code
#'   compares it with the quantile at \eqn{j + 1} degrees of freedom; we
#'   keep the code's rule, which produces the published numbers. One
#'   consequence: on white noise it stops at a level between 0 and about
#'   \eqn{d/2} rather than at 0, which costs precision but not accuracy.
#'
#' **Several chains** (a matrix with one chain per column, or a list):
#' `"optimal"` uses the combined table of [reblock()]; `"jonsson"` runs on
#' each chain (each cut to a power of two) and combines the chains as
#' [reblock()] does, \eqn{SE = \sqrt{\sum_j w_j^2 SE_j^2}} with \eqn{w_j}
#' the chains' shares of the values used; `level` is then one value per
#' chain.
#'
#' **Reference data.** `system.file("extdata", "blocking-jonsson2018.txt",
#' package = "statphysgpu")` holds the 65,536-value example series
#' distributed with Jonsson's public code (PRE 98, 043304 (2018), \doi{10.1103/PhysRevE.98.043304}); the
#' published answer is mean 2.97804 and standard error 0.00392796, which
#' `method = "jonsson"` reproduces (0.003927963 at level 10).
#'
#' @inheritParams reblock
#' @param method `"optimal"` (default) or `"jonsson"`.
#' @return A single number, the standard error of the mean, with attributes
#'   `level` (blocking level used, blocks of \eqn{2^{level}} values; one per
#'   chain for `"jonsson"`), `method`, `mean` (the mean it belongs to) and
#'   `n` (values used); for `"optimal"` also `se_error`, and for
#'   `"jonsson"` also `blocks` (blocks at that level, per chain).
#' @seealso [reblock()] for the whole table, [tau_int()],
#'   [time_to_error()].
#' @references
#' Jonsson, M. (2018) Standard error estimation by an automated blocking
#'   method. *Physical Review E* 98, 043304 \doi{10.1103/PhysRevE.98.043304}.
#'
#' Flyvbjerg, H. and Petersen, H. G. (1989) Error estimates on averages of
#'   correlated data. *Journal of Chemical Physics* 91, 461-466 \doi{10.1063/1.457480}.
#'
#' Lee, R. M., Conduit, G. J., Nemec, N., Lopez Rios, P. and Drummond, N. D.
#'   (2011) Strategies for improving the efficiency of quantum Monte Carlo
#'   calculations. *Physical Review E* 83, 066706 \doi{10.1103/PhysRevE.83.066706}.
#' @examples
#' x <- scan(system.file("extdata", "blocking-jonsson2018.txt",
#'                       package = "statphysgpu"), quiet = TRUE)
#' blocking_se(x, "jonsson")  # published: 0.00392796
#' blocking_se(x)             # optimal level of reblock()
#' @export
blocking_se <- function(x, method = c("optimal", "jonsson")) {
  call <- sys.call()
  method <- check_choice(method, c("optimal", "jonsson"), "method", call = call)
  chains <- blocking_chains(x, call = call)
  if (method == "optimal") {
    tab <- reblock_table(chains)
    k <- which(tab$optimal)
    if (length(k) == 0) {
      sp_warn(paste0(
        "blocking_se(): no blocking level meets the optimal-block criterion ",
        "2^(3k) > 2 n (SE_k/SE_0)^4; the series is too short for its ",
        "correlation time. Returning NA: collect more data, or see reblock()."),
        call = call, class = "statphysgpu_blocking_warning")
      return(structure(NA_real_, level = NA_integer_, method = "optimal",
                       mean = tab$mean[1], n = attr(tab, "n"),
                       se_error = NA_real_))
    }
    return(structure(tab$se[k], level = tab$level[k], method = "optimal",
                     mean = tab$mean[k], n = attr(tab, "n") - attr(tab, "dropped")[k],
                     se_error = tab$se_error[k]))
  }
  sc <- blocking_scale(chains)
  res <- lapply(chains, function(y) jonsson_chain(y / sc))
  used <- vapply(res, `[[`, 0, "n")
  lens <- lengths(chains)
  if (any(used < lens)) {
    cond <- structure(class = c("statphysgpu_blocking_truncated",
                                "statphysgpu_message", "message", "condition"),
      list(message = sprintf(paste0(
        "blocking_se(method = \"jonsson\") needs a power-of-two length: used ",
        "the first %s of %s values%s.\n"),
        paste(format(used[used < lens], big.mark = ","), collapse = ", "),
        paste(format(lens[used < lens], big.mark = ","), collapse = ", "),
        if (length(chains) > 1) sprintf(" (chain%s %s)",
                                        if (sum(used < lens) > 1) "s" else "",
                                        paste(which(used < lens), collapse = ", "))
        else ""), call = call))
    message(cond)
  }
  w <- used / sum(used)
  se <- sc * sqrt(sum(w^2 * vapply(res, `[[`, 0, "se")^2))
  level <- vapply(res, `[[`, 0L, "level")
  structure(se, level = level, method = "jonsson",
            mean = sc * sum(w * vapply(res, `[[`, 0, "mean")), n = sum(used),
            blocks = used / 2^level)
}

# Normalised autocorrelation function of one chain at lags 0..n-1, by FFT
# with zero padding to twice the next power of two (no wrap-around), with
# divisor n at every lag (the biased, positive-definite estimator).  The
# chain is scaled first (blocking_scale()): its products would overflow near
# 1e308 and vanish near 1e-320.
acf_fft <- function(y) {
  y <- y / blocking_scale(list(y))
  n <- length(y)
  n2 <- 2^ceiling(log2(n))
  f <- stats::fft(c(y - mean(y), numeric(2 * n2 - n)))
  a <- Re(stats::fft(f * Conj(f), inverse = TRUE))[seq_len(n)]
  a / a[1]
}

#' Integrated autocorrelation time with Sokal's automatic window
#'
#' The integrated autocorrelation time of a series, in the convention of
#' `emcee` (Foreman-Mackey et al. 2013) and Sokal (1997),
#' \deqn{\tau_{int} = 1 + 2 \sum_{k \ge 1} \rho(k),}
#' so that the variance of the mean of \eqn{n} values is \eqn{\tau_{int}
#' \sigma^2 / n} (\eqn{\tau_{int} = 1} for uncorrelated values, and
#' \eqn{(1+\phi)/(1-\phi)} for an AR(1) chain). Lutsyshyn (2015,
#' Eq. 10) uses instead \eqn{m_c = \sum_{k \ge 1} \rho(k) = (\tau_{int} -
#' 1)/2}; this function returns \eqn{\tau_{int}}.
#'
#' The autocorrelation function \eqn{\rho(k)} is estimated by FFT
#' ([stats::fft()], zero-padded to twice the next power of two so that it
#' does not wrap around), with the series' own mean and divisor \eqn{n} at
#' every lag. The sum is cut at Sokal's automatic window: the smallest
#' \eqn{M} with \eqn{M \ge c\, \tau(M)}, \eqn{\tau(M) = 1 + 2 \sum_{k=1}^M
#' \rho(k)} and \eqn{c} = `window` (5 is emcee's default; larger \eqn{c}
#' means less bias, more noise). If no \eqn{M} qualifies, the last lag is
#' used. Sokal's estimate of the statistical error, \eqn{Var(\hat\tau)
#' \approx 2(2M+1)\tau^2/n}, is returned as attribute `se`. Like emcee,
#' the function warns when the series is shorter than \eqn{50\,\hat\tau}:
#' the estimate is then unreliable. It also warns when the estimate is not
#' positive, which happens only for series too short for their
#' autocorrelation (the window then reaches the last lags, and the biased
#' autocorrelations of a series sum to 0 over all lags).
#'
#' **Values below 1.** \eqn{\tau_{int} < 1} means negatively correlated
#' values (the variance of the mean is smaller than for independent ones),
#' or, for nearly independent values, the estimate's own noise: a window of
#' \eqn{M} lags leaves \eqn{\hat\tau} an error of about \eqn{\sqrt{2(2M+1)/n}}
#' (the attribute `se`), so that independent values give estimates
#' scattered around 1 by that much.
#'
#' **Several chains** (a matrix with one chain per column, or a list): as in
#' emcee, the autocorrelation functions of the chains (each about its own
#' mean) are averaged with equal weights before the sum and the window; for
#' chains of different lengths the average runs over the lags they share
#' (up to the shortest length). The `se` attribute then uses \eqn{n} = the
#' total number of values, and the 50-\eqn{\tau} warning the shortest
#' chain.
#'
#' @inheritParams reblock
#' @param window Sokal's window constant \eqn{c}, a single positive number.
#' @return A single number, \eqn{\tau_{int}} (in steps of the series), with
#'   attributes `window` (the lag \eqn{M} where the sum was cut) and `se`
#'   (Sokal's error estimate).
#' @seealso [blocking_se()], [reblock()].
#' @references
#' Sokal, A. (1997) Monte Carlo methods in statistical mechanics:
#'   foundations and new algorithms. In *Functional Integration: Basics and
#'   Applications*, eds. DeWitt-Morette, C., Cartier, P. and Folacci, A.
#'   Plenum, New York, 131-192 \doi{10.1007/978-1-4899-0319-8_6}.
#'
#' Foreman-Mackey, D., Hogg, D. W., Lang, D. and Goodman, J. (2013) emcee:
#'   the MCMC hammer. *Publications of the Astronomical Society of the
#'   Pacific* 125, 306-312 \doi{10.1086/670067}.
#'
#' Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer Physics
#'   Communications* 187, 162-174 \doi{10.1016/j.cpc.2014.10.016}.
#' @examples
#' set.seed(1)
#' x <- as.numeric(stats::filter(rnorm(2^16), 0.9, method = "recursive"))
#' tau_int(x)   # true value (1 + 0.9) / (1 - 0.9) = 19
#' (tau_int(x) - 1) / 2   # m_c of Lutsyshyn (2015)
#' @export
tau_int <- function(x, window = 5) {
  call <- sys.call()
  window <- check_positive(window, "window", len = 1, call = call)
  chains <- blocking_chains(x, call = call)
  L <- min(lengths(chains))
  rho <- rowMeans(matrix(vapply(chains, function(y) acf_fft(y)[seq_len(L)],
                                numeric(L)), nrow = L))
  taus <- 2 * cumsum(rho) - 1
  lag <- seq_len(L) - 1
  stop_at <- which(lag >= window * taus)
  M <- if (length(stop_at)) lag[stop_at[1]] else L - 1
  tau <- taus[M + 1]
  what <- if (length(chains) == 1) "series" else "shortest chain"
  if (tau <= 0) {
    # the window ran over (nearly) the whole series, whose biased
    # autocorrelations sum to 0 over all lags
    sp_warn(sprintf(paste0(
      "tau_int(): the estimate, %s, is not positive: the %s (%d values) is ",
      "too short for its autocorrelation function; the estimate is ",
      "meaningless: use longer chains."), format(tau, digits = 3), what, L),
      call = call, class = "statphysgpu_blocking_warning")
  } else if (L < 50 * tau) {
    sp_warn(sprintf(paste0(
      "tau_int(): the %s (%d values) is shorter than 50 tau_int = %s; the ",
      "estimate is unreliable (emcee's criterion): use longer chains."),
      what, L, format(50 * tau, digits = 3)),
      call = call, class = "statphysgpu_blocking_warning")
  }
  structure(tau, window = as.integer(M),
            se = abs(tau) * sqrt(2 * (2 * M + 1) / sum(lengths(chains))))
}

#' Time-to-error invariant of a Monte Carlo run
#'
#' By the central limit theorem the run time \eqn{t} needed for a
#' statistical error \eqn{\sigma} scales as \eqn{\sigma^{-2}}, so
#' \eqn{t\sigma^2} is an invariant of a method, a code and a machine
#' (Lutsyshyn 2015, Sec. 7.3: \eqn{t\sigma^2 = 130} s mK\eqn{^2} for the
#' energy per atom of 512 \eqn{^4}He atoms on a K20 GPU). With `target`, the
#' run time needed to reach that error follows as \eqn{t\sigma^2 /
#' \mathrm{target}^2}.
#'
#' Units: `se` and `target` must be in the same unit (e.g. both in mK);
#' the invariant carries the time unit of `seconds` times the square of
#' that unit (s mK\eqn{^2} for seconds and mK), and the time needed has the
#' unit of `seconds`. The arguments are recycled to a common length.
#'
#' @param seconds Run times (positive; any time unit, seconds by default
#'   reading).
#' @param se Standard errors reached in those times (positive), e.g. from
#'   [blocking_se()].
#' @param target `NULL`, or the standard errors wanted (positive, in the
#'   unit of `se`).
#' @return Without `target`, the invariant \eqn{t\sigma^2}; with it, the run
#'   times needed for `target`, \eqn{t\sigma^2/\mathrm{target}^2}. A numeric
#'   vector.
#' @references
#' Lutsyshyn, Y. (2015) Fast quantum Monte Carlo on a GPU. *Computer Physics
#'   Communications* 187, 162-174 \doi{10.1016/j.cpc.2014.10.016}, Sec. 7.3.
#' @examples
#' # 1 mK after 130 s (the K20 anchor of Lutsyshyn 2015)
#' time_to_error(130, se = 1)                 # 130 s mK^2
#' time_to_error(130, se = 1, target = 0.5)   # 520 s for 0.5 mK
#' # the same in K: 1.3e-4 s K^2
#' time_to_error(130, se = 1e-3)
#' @export
time_to_error <- function(seconds, se, target = NULL) {
  call <- sys.call()
  seconds <- check_positive(seconds, "seconds", call = call)
  se <- check_positive(se, "se", call = call)
  if (is.null(target)) {
    a <- recycle_args(list(seconds = seconds, se = se), call = call)
    return(a$seconds * a$se^2)
  }
  target <- check_positive(target, "target", call = call)
  a <- recycle_args(list(seconds = seconds, se = se, target = target), call = call)
  a$seconds * a$se^2 / a$target^2
}
