# Adaptive Gauss-Kronrod (7/15 point) quadrature of positive integrands given
# on the log scale, vectorised over many intervals at once.  Used by the
# Fulton-Dunkleberger switching distribution and the Smoluchowski mean
# first-passage time, whose integrands span hundreds of orders of magnitude:
# each subinterval is scaled by the largest value at its nodes, so nothing
# overflows or underflows before the final exp().

GK15_X <- c(0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
            0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
            0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
            0.207784955007898467600689403773245, 0)
GK15_WK <- c(0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
             0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
             0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
             0.204432940075298892414161999234649, 0.209482141084727828012999174891714)
GK15_WG <- c(0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
             0.381830050505118944950369775488975, 0.417959183673469387755102040816327)

GK_NODES <- c(-GK15_X[1:7], 0, rev(GK15_X[1:7]))
GK_WK <- c(GK15_WK[1:7], GK15_WK[8], rev(GK15_WK[1:7]))
GK_WG <- c(0, GK15_WG[1], 0, GK15_WG[2], 0, GK15_WG[3], 0, GK15_WG[4],
           0, GK15_WG[3], 0, GK15_WG[2], 0, GK15_WG[1], 0)

# log of sum(exp(x)) within groups `g` (a factor or integer codes 1..n).
group_logsumexp <- function(x, g, n) {
  out <- rep(-Inf, n)
  if (length(x) == 0) return(out)
  m <- rep(-Inf, n)
  mx <- tapply(x, g, max)
  idx <- as.integer(names(mx))
  m[idx] <- mx
  fin <- is.finite(m)
  s <- numeric(n)
  shift <- ifelse(is.finite(m[g]), x - m[g], -Inf)
  s_part <- tapply(exp(shift), g, sum)
  s[as.integer(names(s_part))] <- s_part
  out[fin] <- m[fin] + log(s[fin])
  out
}

# log of the integrals of exp(logf(x)) over [a[i], b[i]] (a <= b), each to
# relative accuracy rtol as judged by the Gauss-Kronrod difference |K - G|
# (a pessimistic estimate of the error of K).  logf must be vectorised and
# may return -Inf.  `pieces` splits every interval into that many equal
# parts first.  With `indexed = TRUE`, logf is called as logf(x, i), i the
# index (into a and b) of the interval each node belongs to, so that one call
# integrates a family of integrands (one per interval) at once.  Returns a
# list: value (log integrals), converged (logical).
gk_log_integrate <- function(logf, a, b, rtol = 1e-11, pieces = 1L,
                             max_rounds = 60L, indexed = FALSE) {
  n <- length(a)
  stopifnot(length(b) == n, all(b >= a))
  width <- (b - a) / pieces
  lo <- as.vector(outer(seq_len(pieces) - 1, width) + rep(a, each = pieces))
  hi <- as.vector(outer(seq_len(pieces), width) + rep(a, each = pieces))
  hi[seq(pieces, by = pieces, length.out = n)] <- b # exact right ends
  id <- rep(seq_len(n), each = pieces)
  keep <- hi > lo
  lo <- lo[keep]; hi <- hi[keep]; id <- id[keep]
  acc_val <- vector("list", max_rounds)
  acc_id <- vector("list", max_rounds)
  converged <- rep(TRUE, n)
  round <- 0L
  while (length(lo) > 0) {
    round <- round + 1L
    cen <- (lo + hi) / 2
    hw <- (hi - lo) / 2
    x <- outer(GK_NODES, hw) + rep(cen, each = 15L)
    lf <- if (indexed) logf(as.vector(x), rep(id, each = 15L)) else logf(as.vector(x))
    lf <- matrix(lf, nrow = 15L)
    lf[is.nan(lf)] <- -Inf
    m <- lf[1L, ]
    for (r in 2:15) m <- pmax(m, lf[r, ])
    mm <- ifelse(is.finite(m), m, 0)
    e <- exp(lf - rep(mm, each = 15L))
    K <- colSums(GK_WK * e)
    G <- colSums(GK_WG * e)
    err <- abs(K - G)
    tiny <- hw <= 4 * .Machine$double.eps * pmax(abs(cen), 1e-300)
    conv <- err <= rtol * K | K == 0 | !is.finite(m) | tiny
    ok <- conv | round >= max_rounds
    if (!all(conv[ok])) converged[unique(id[ok & !conv])] <- FALSE
    val <- ifelse(K > 0 & is.finite(m), mm + log(K * hw), -Inf)
    acc_val[[round]] <- val[ok]
    acc_id[[round]] <- id[ok]
    if (all(ok)) break
    lo_r <- lo[!ok]; hi_r <- hi[!ok]; cen_r <- cen[!ok]; id_r <- id[!ok]
    lo <- c(lo_r, cen_r)
    hi <- c(cen_r, hi_r)
    id <- c(id_r, id_r)
  }
  vals <- unlist(acc_val, use.names = FALSE)
  ids <- unlist(acc_id, use.names = FALSE)
  list(value = group_logsumexp(vals, ids, n), converged = converged)
}

# log(sum(exp(x))) over a vector.
logsumexp <- function(x) {
  m <- max(x)
  if (!is.finite(m)) return(m)
  m + log(sum(exp(x - m)))
}

# Running log(cumsum(exp(x))).
cum_logsumexp <- function(x) {
  out <- numeric(length(x))
  acc <- -Inf
  for (i in seq_along(x)) {
    xi <- x[i]
    if (xi > acc) acc <- xi + log1p(exp(acc - xi))
    else if (is.finite(acc)) acc <- acc + log1p(exp(xi - acc))
    out[i] <- acc
  }
  out
}
