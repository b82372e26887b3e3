# An independent reference for the particle models of issue 49: Langevin
# dynamics of N particles in a periodic box (3D, or 2D) with the
# Lennard-Jones potential truncated at rc (shifted, or linear-force shifted,
# or the WCA special case), all pairs with the minimum image, in plain base R
# (no package code, only R's own random numbers from a seed passed in).
# Functions only; the comparison with the NIST reference values is
# bench/lj-reference-check.R, the values and their conversion
# bench/lj-reference.md.
#
# Units: sigma = epsilon = m = k_B = 1.
#
# Potentials (u(r) = 4 (r^-12 - r^-6), f(r) = -u'(r) = 24 (2 r^-13 - r^-7)):
#   "ts"  truncated and shifted: u_TS(r) = u(r) - u(rc) for r < rc, 0 beyond;
#         force f(r) for r < rc, 0 beyond (continuous potential, so no
#         impulsive term at rc in the virial).
#   "lfs" linear-force shifted (Toxvaerd & Dyre; LAMMPS lj/smooth/linear; the NIST
#         LAMMPS-MD tables): u_LFS(r) = u(r) - u(rc) + (r - rc) f(rc),
#         force f(r) - f(rc) for r < rc.
#   "wca" Weeks-Chandler-Andersen: "ts" with rc = 2^(1/6) (u_TS = u + 1).
#
# Observables, recorded every `every` steps (after the step):
#   u   potential energy per particle, U / N, of the simulated potential;
#   p   virial pressure P = rho T + (1 / (d V)) sum_{i<j} r_ij . F_ij, with
#       F_ij the force on i from j and r_ij = r_i - r_j (minimum image), so
#       r_ij . F_ij = r f(r); d = 3: P = rho T + W / (3 V), d = 2:
#       P = rho T + W / (2 V) (V the area).  The kinetic part uses the set
#       temperature T (exact for the canonical ensemble the thermostat
#       samples; BAOAB's kinetic temperature carries its own O(dt^2) error,
#       recorded separately as `tkin`, and Brownian dynamics has no
#       velocities);
#   w   the pair virial W = sum_{i<j} r f(r) (of the simulated force);
#   nc  the number of pairs with r < rc;
#   sr  the sum of r over those pairs (with nc, what converts the energy and
#       virial of one truncation into another, bench/lj-reference.md).
# g(r): pair distances r < r_max histogrammed every `every` steps after the
# burn-in, normalised with the ideal gas of N (N - 1) / 2 pairs:
#   g(r_k) = (V / (N (N - 1) / 2)) <pairs in shell k> / (shell volume),
# the shell volume 4 pi / 3 (r2^3 - r1^3) (3D) or pi (r2^2 - r1^2) (2D).
#
# The minimum image is exact only for rc <= L / 2: ljref_run() refuses a box
# smaller than 2 rc (at density 0.8 and rc = 2.5, N >= 100; 108 = 4 * 3^3
# is the smallest fcc number).

ljref_u <- function(r) 4 * (r^-12 - r^-6)
ljref_f <- function(r) 24 * (2 * r^-13 - r^-7)

# Tail corrections of the full potential beyond rc for g(r) = 1 (3D):
# energy per particle (rho / 2) int_rc^Inf 4 pi r^2 u(r) dr and pressure
# -(rho^2 / 6) int_rc^Inf 4 pi r^3 u'(r) dr.
ljref_u_tail <- function(rho, rc) 8 / 3 * pi * rho * (rc^-9 / 3 - rc^-3)
ljref_p_tail <- function(rho, rc) 16 / 3 * pi * rho^2 * (2 / 3 * rc^-9 - rc^-3)

# Initial positions: N of the ceiling(N^(1/d))^d sites of a simple cubic
# (square) lattice filling the box, taken evenly through the lattice (no
# empty slab when N is not a cube).
ljref_lattice <- function(n, L, d) {
  m <- ceiling(n^(1 / d))
  g <- as.matrix(expand.grid(rep(list(seq_len(m) - 0.5), d)))
  g[round(seq(1, m^d, length.out = n)), , drop = FALSE] * (L / m)
}

# Forces and pair sums of one configuration x (N x d) in a box of side L,
# over the N (N - 1) / 2 pairs i < j (pairs: ljref_pairs(N), made once).
ljref_pairs <- function(n) {
  ij <- which(upper.tri(matrix(FALSE, n, n)), arr.ind = TRUE)
  list(i = ij[, 1], j = ij[, 2], n = n)
}

ljref_forces <- function(x, L, rc, kind, r_max = 0, pairs = ljref_pairs(nrow(x)),
                         rc_extra = numeric(0)) {
  n <- nrow(x)
  d <- ncol(x)
  dx <- matrix(0, length(pairs$i), d)
  for (k in seq_len(d)) {
    a <- x[pairs$i, k] - x[pairs$j, k]       # x_i - x_j
    dx[, k] <- a - L * round(a / L)          # minimum image
  }
  r2 <- rowSums(dx * dx)
  inside <- which(r2 < rc * rc)
  s2 <- r2[inside]
  ir2 <- 1 / s2
  ir6 <- ir2 * ir2 * ir2
  fr <- 24 * ir2 * ir6 * (2 * ir6 - 1)       # f(r) / r
  u <- 4 * ir6 * (ir6 - 1) - ljref_u(rc)
  r <- sqrt(s2)
  if (kind == "lfs") {
    fc <- ljref_f(rc)
    fr <- fr - fc / r
    u <- u + (r - rc) * fc
  }
  fij <- fr * dx[inside, , drop = FALSE]     # force on i from j
  acc <- rowsum(rbind(fij, -fij), c(pairs$i[inside], pairs$j[inside]))
  f <- matrix(0, n, d)
  f[as.integer(rownames(acc)), ] <- acc
  out <- list(f = f, U = sum(u), W = sum(fr * s2), nc = length(inside), sr = sum(r))
  if (r_max > 0) out$r <- sqrt(r2[r2 < r_max * r_max])
  # the same configuration's sums for the plain LJ potential truncated and
  # shifted at other cut-offs (converting between truncations, per
  # configuration): U_TS(rce), W(rce), pairs within rce, sum of their r
  if (length(rc_extra)) {
    out$extra <- vapply(rc_extra, function(rce) {
      e2 <- r2[r2 < rce * rce]
      e6 <- 1 / (e2 * e2 * e2)
      c(U = sum(4 * e6 * (e6 - 1)) - length(e2) * ljref_u(rce),
        W = sum(24 * e6 * (2 * e6 - 1)), nc = length(e2), sr = sum(sqrt(e2)))
    }, numeric(4))
  }
  out
}

# One run.  method "baoab": underdamped Langevin, dq = p dt,
# dp = F dt - gamma p dt + sqrt(2 gamma T) dW, by BAOAB (Leimkuhler and
# Matthews 2013: half kick, half drift, the exact Ornstein-Uhlenbeck step
# p <- c1 p + sqrt((1 - c1^2) T) xi with c1 = exp(-gamma dt), half drift,
# new forces, half kick).  method "euler": overdamped Langevin (Brownian
# dynamics), dx = F / gamma dt + sqrt(2 T / gamma) dW, by Euler-Maruyama.
# steps after `burn` burn-in steps; every: steps between records.
# gr_bins > 0: g(r) on gr_bins bins of [0, gr_rmax] (default L / 2).
# x0, v0: a start (e.g. the $x, $v of an earlier run); else a lattice and
# Maxwell velocities.  rc_extra: other cut-offs at which the plain LJ
# potential, truncated and shifted there, is evaluated on the recorded
# configurations ($extra; each needs L >= 2 rc_extra).
ljref_run <- function(n, rho, T, rc = 2.5, kind = c("ts", "lfs", "wca"), d = 3,
                      method = c("baoab", "euler"), dt = 0.005, steps = 1e4, burn = 2e3,
                      gamma = 1, every = 10, gr_bins = 0, gr_rmax = NULL, seed = 1,
                      rc_extra = numeric(0), x0 = NULL, v0 = NULL) {
  kind <- match.arg(kind)
  method <- match.arg(method)
  if (kind == "wca") rc <- 2^(1 / 6)
  L <- (n / rho)^(1 / d)
  V <- L^d
  if (L < 2 * rc) {
    stop(sprintf("box side %.4g < 2 rc = %.4g: the minimum image misses pairs; use n >= %d",
                 L, 2 * rc, ceiling(rho * (2 * rc)^d)))
  }
  if (length(rc_extra) && max(rc_extra) > L / 2) {
    stop(sprintf("rc_extra up to %.4g needs a box side >= %.4g (it is %.4g)",
                 max(rc_extra), 2 * max(rc_extra), L))
  }
  if (is.null(gr_rmax)) gr_rmax <- L / 2
  # the caller's random-number state is left as it was
  old_kind <- RNGkind()
  had_seed <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  if (had_seed) old_seed <- get(".Random.seed", envir = globalenv())
  on.exit({
    RNGkind(old_kind[1], old_kind[2], old_kind[3])
    if (had_seed) assign(".Random.seed", old_seed, envir = globalenv())
    else rm(".Random.seed", envir = globalenv())
  })
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")

  x <- if (is.null(x0)) ljref_lattice(n, L, d) else x0
  v <- if (is.null(v0)) matrix(rnorm(n * d, sd = sqrt(T)), n, d) else v0
  pairs <- ljref_pairs(n)
  fs <- ljref_forces(x, L, rc, kind, pairs = pairs)
  nrec <- steps %/% every
  rec <- matrix(NA_real_, nrec, 6, dimnames = list(NULL, c("u", "p", "w", "nc", "sr", "tkin")))
  ext <- array(NA_real_, c(nrec, 4, length(rc_extra)))
  counts <- numeric(max(gr_bins, 1))
  ngr <- 0
  c1 <- exp(-gamma * dt)
  c2 <- sqrt((1 - c1 * c1) * T)
  sd_bd <- sqrt(2 * T * dt / gamma)
  total <- burn + steps
  j <- 0
  for (s in seq_len(total)) {
    if (method == "baoab") {
      v <- v + 0.5 * dt * fs$f
      x <- x + 0.5 * dt * v
      v <- c1 * v + c2 * matrix(rnorm(n * d), n, d)
      x <- x + 0.5 * dt * v
    } else {
      x <- x + (dt / gamma) * fs$f + sd_bd * matrix(rnorm(n * d), n, d)
    }
    x <- x - L * floor(x / L)
    rec_now <- s > burn && (s - burn) %% every == 0
    want_r <- rec_now && gr_bins > 0
    fs <- ljref_forces(x, L, rc, kind, r_max = if (want_r) gr_rmax else 0, pairs = pairs,
                       rc_extra = if (rec_now) rc_extra else numeric(0))
    if (method == "baoab") v <- v + 0.5 * dt * fs$f
    if (rec_now) {
      j <- j + 1
      rec[j, ] <- c(fs$U / n, rho * T + fs$W / (d * V), fs$W, fs$nc, fs$sr,
                    if (method == "baoab") sum(v * v) / (d * n) else NA_real_)
      if (length(rc_extra)) ext[j, , ] <- fs$extra
      if (want_r) {
        counts <- counts + tabulate(floor(fs$r / (gr_rmax / gr_bins)) + 1, gr_bins)
        ngr <- ngr + 1
      }
    }
  }
  out <- list(u = rec[, "u"], p = rec[, "p"], w = rec[, "w"], nc = rec[, "nc"],
              sr = rec[, "sr"], tkin = rec[, "tkin"],
              t = (burn + every * seq_len(nrec)) * dt,
              x = x, v = if (method == "baoab") v else NULL,
              n = n, rho = rho, T = T, rc = rc, kind = kind, d = d, L = L, V = V,
              method = method, dt = dt, gamma = gamma, seed = seed)
  if (gr_bins > 0) out$gr <- ljref_gr(counts, ngr, n, V, d, gr_rmax, gr_bins)
  # rc_extra: for each extra cut-off rce, the series of the plain LJ
  # potential truncated and shifted at rce evaluated on the same
  # configurations: u (U_TS(rce) / N), p (rho T + W(rce) / (d V)), nc, sr
  out$extra <- lapply(seq_along(rc_extra), function(k) {
    list(rc = rc_extra[k], u = ext[, 1, k] / n, p = rho * T + ext[, 2, k] / (d * V),
         nc = ext[, 3, k], sr = ext[, 4, k])
  })
  out
}

# g(r) from accumulated pair counts (ideal-gas normalisation, N (N - 1) / 2
# pairs).
ljref_gr <- function(counts, nframes, n, V, d, r_max, bins) {
  edges <- seq(0, r_max, length.out = bins + 1)
  shell <- if (d == 3) 4 / 3 * pi * diff(edges^3) else pi * diff(edges^2)
  g <- (V / (n * (n - 1) / 2)) * (counts / nframes) / shell
  data.frame(r = (edges[-1] + edges[-(bins + 1)]) / 2, g = g, counts = counts)
}

# Conversions of the series of a "ts" run (3D) to other truncations of the
# same configurations (exact configuration by configuration; the average is
# still over the ensemble of the simulated potential, which is the
# approximation, bench/lj-reference.md):
#   linear-force shifted at the same rc: U_LFS = U_TS + f(rc) sum (r - rc),
#     W_LFS = W_TS - f(rc) sum r (sums over pairs with r < rc);
#   truncated, not shifted: U_T = U_TS + u(rc) nc (W unchanged);
#   full LJ with the usual tail correction (g = 1 beyond rc):
#     U / N = U_T / N + u_tail(rho, rc), P = P_TS + p_tail(rho, rc).
ljref_as_lfs <- function(run) {
  fc <- ljref_f(run$rc)
  list(u = run$u + fc * (run$sr - run$rc * run$nc) / run$n,
       p = run$p - fc * run$sr / (run$d * run$V))
}
ljref_as_truncated <- function(run) {
  list(u = run$u + ljref_u(run$rc) * run$nc / run$n, p = run$p)
}
ljref_as_full <- function(run) {
  list(u = run$u + ljref_u(run$rc) * run$nc / run$n + ljref_u_tail(run$rho, run$rc),
       p = run$p + ljref_p_tail(run$rho, run$rc))
}
