# The independent base-R Lennard-Jones reference (tests/testthat/
# helper-lj-reference.R) against the NIST values of bench/lj-reference.md,
# and the reference values at the issue's state point (issue 49: LJ
# truncated and shifted at rc = 2.5, density 0.8, T = 1.5).  No package
# engine is used; statphysgpu::blocking_se() gives the error bars.
#
#   Rscript bench/lj-reference-check.R        (about 3-4 min on this 2-core machine)
#   LJREF_SCALE=0.5 Rscript bench/lj-reference-check.R     (half the steps)
#   LJREF_SCALE=4 LJREF_EXTRA=1 Rscript bench/lj-reference-check.R
#       (half the error bars, and the extra runs: 1(b) at N = 180 and 1(a)
#       at N = 500 for the finite-size effect)
#
# Parts:
#  1. NIST SRSW NVT Monte Carlo (mc.htm: LJ truncated at 3 sigma plus the
#     analytic tail correction, N = 500) at T = 0.9, rho = 0.776.  (a) The
#     potential truncated and shifted at 3.0, N = 180: NIST's value minus
#     its own tail correction is the average of the truncated potential
#     over the truncated potential's ensemble, which a run of the shifted
#     potential gives after reweighting by exp(-u(3) (nc - <nc>) / T) --
#     exact, so this checks the reference engine itself (up to N = 180
#     against 500).  (b) NIST converted to the issue's potential (truncated
#     and shifted at 2.5) with the configurations of (a); with LJREF_EXTRA,
#     against a run of that potential at the same N (the conversion's
#     error: the structure's change with the cut-off).
#  2. The issue's state point, N = 108 (the smallest fcc number whose box
#     is >= 2 rc = 5 at density 0.8; N = 32..64 would need rc <= L / 2 =
#     2.15): BAOAB at two steps, overdamped Euler-Maruyama at two steps from
#     BAOAB's equilibrated configuration (its O(dt) bias shown and
#     extrapolated), g(r), and the same configurations as the
#     linear-force-shifted potential of NIST's LAMMPS-MD table and as the
#     full potential (first order), against a run of the linear-force-
#     shifted potential itself.
#  3. NIST SRSW EOS-TMMC at T = 1.5 (the densest canonical point of its
#     file, N = 370 in V = 512, rho = 0.7227; rc = 3 plus tail correction)
#     converted to the truncated-and-shifted potential at 2.5 with the
#     configurations of a run of that potential (N = 160), against that run.
bench_dir <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
source(file.path(bench_dir, "..", "tests", "testthat", "helper-lj-reference.R"))
scale <- as.numeric(Sys.getenv("LJREF_SCALE", "1"))
extra <- nzchar(Sys.getenv("LJREF_EXTRA"))
st <- function(k) max(1000, round(k * scale / 10) * 10)
cat(sprintf("lj-reference-check: commit %s, %s, LJREF_SCALE = %g\n", commit, date, scale))
t_all <- proc.time()[3]

se <- function(x) as.numeric(suppressWarnings(blocking_se(x)))
line <- function(what, x, sx, ref = NA, sref = NA) {
  if (is.na(ref)) {
    cat(sprintf("  %-44s %9.4f +- %.4f\n", what, x, sx))
  } else {
    z <- (x - ref) / sqrt(sx^2 + sref^2)
    cat(sprintf("  %-44s %9.4f +- %.4f   ref %9.4f +- %.4f   diff %+.4f  z %+.1f\n",
                what, x, sx, ref, sref, x - ref, z))
  }
}
# weighted mean with weights w (reweighting), its SE from blocking of the
# ratio's linearisation w (x - m) / mean(w)
wmean <- function(x, w) {
  m <- sum(w * x) / sum(w)
  c(m, se(w * (x - m) / mean(w)))
}
timed <- function(expr) {
  t0 <- proc.time()[3]
  r <- expr
  cat(sprintf("    (%.0f s)\n", proc.time()[3] - t0))
  r
}

## 1. NIST MC, T = 0.9, rho = 0.776 ------------------------------------------
nist1 <- c(T = 0.9, rho = 0.776, U = -5.4689, sU = 4.20e-4, P = 2.4056e-01, sP = 2.74e-3)
cat("\n1. NIST SRSW NVT MC (rc = 3 + tail correction, N = 500), T = 0.9, rho = 0.776:",
    "U/N = -5.4689 +- 0.00042, P = 0.24056 +- 0.00274\n")
cat("  (a) shifted at rc = 3.0, N = 180, BAOAB dt = 0.005, gamma = 1\n")
a <- timed(ljref_run(180, 0.776, 0.9, rc = 3.0, dt = 0.005, steps = st(10000), burn = 3000,
                     rc_extra = 2.5, seed = 101))
w <- exp(-ljref_u(3.0) * (a$nc - mean(a$nc)) / 0.9)
uT <- a$u + ljref_u(3.0) * a$nc / a$n
u_ref <- nist1[["U"]] - ljref_u_tail(0.776, 3.0)
p_ref <- nist1[["P"]] - ljref_p_tail(0.776, 3.0)
cat(sprintf("  NIST minus its tail correction (u_tail %.4f, p_tail %.4f):\n",
            ljref_u_tail(0.776, 3.0), ljref_p_tail(0.776, 3.0)))
r_u <- wmean(uT, w)
r_p <- wmean(a$p, w)
line("U_trunc(3)/N, reweighted to NIST's ensemble", r_u[1], r_u[2], u_ref, nist1[["sU"]])
line("P_virial(r < 3), reweighted", r_p[1], r_p[2], p_ref, nist1[["sP"]])
cat(sprintf("  (reweighting moved U/N by %+.4f and P by %+.4f)\n",
            r_u[1] - mean(uT), r_p[1] - mean(a$p)))
# NIST converted to the truncated-and-shifted potential at 2.5 with these
# configurations: minus the pairs' energy and virial between the cut-offs
e <- a$extra[[1]]
du <- uT - e$u # U_trunc(3)/N - U_TS(2.5)/N, configuration by configuration
dp <- a$p - e$p # P_vir(r < 3) - P_vir(r < 2.5)
conv_u <- c(u_ref - mean(du), sqrt(nist1[["sU"]]^2 + se(du)^2))
conv_p <- c(p_ref - mean(dp), sqrt(nist1[["sP"]]^2 + se(dp)^2))
cat("  (b) NIST converted to shifted at 2.5 (pairs 2.5 < r < 3 and the shifts, from (a)):\n")
cat(sprintf("      U_TS(2.5)/N = %.4f +- %.4f, P_TS(2.5) = %.4f +- %.4f\n",
            conv_u[1], conv_u[2], conv_p[1], conv_p[2]))
cat(sprintf("      (g = 1 beyond 2.5 instead: U/N %.4f, P %.4f)\n",
            nist1[["U"]] - ljref_u_tail(0.776, 2.5) - ljref_u(2.5) * mean(e$nc) / a$n,
            nist1[["P"]] - ljref_p_tail(0.776, 2.5)))
if (extra) {
  cat("      against a run of the shifted potential at 2.5, N = 180, BAOAB dt = 0.005:\n")
  b <- timed(ljref_run(180, 0.776, 0.9, rc = 2.5, dt = 0.005, steps = st(10000), burn = 3000,
                       seed = 102))
  line("U_TS(2.5)/N", mean(b$u), se(b$u), conv_u[1], conv_u[2])
  line("P_TS(2.5)", mean(b$p), se(b$p), conv_p[1], conv_p[2])
  cat("  (a) at N = 500 (the finite-size effect of N = 180):\n")
  a5 <- timed(ljref_run(500, 0.776, 0.9, rc = 3.0, dt = 0.005, steps = st(3000), burn = 3000,
                        seed = 103))
  w5 <- exp(-ljref_u(3.0) * (a5$nc - mean(a5$nc)) / 0.9)
  r5u <- wmean(a5$u + ljref_u(3.0) * a5$nc / a5$n, w5)
  r5p <- wmean(a5$p, w5)
  line("U_trunc(3)/N, N = 500, reweighted", r5u[1], r5u[2], u_ref, nist1[["sU"]])
  line("P_virial(r < 3), N = 500, reweighted", r5p[1], r5p[2], p_ref, nist1[["sP"]])
}

## 2. The issue's state point ------------------------------------------------
cat("\n2. Shifted at rc = 2.5, rho = 0.8, T = 1.5, N = 108 (L = 5.13), gamma = 1\n")
runs <- list(
  list("BAOAB dt = 0.005", "baoab", 0.005, st(15000), 3000, 201),
  list("BAOAB dt = 0.01", "baoab", 0.01, st(8000), 1000, 202),
  list("Euler dt = 2e-4", "euler", 2e-4, st(10000), 0, 203),
  list("Euler dt = 5e-5", "euler", 5e-5, st(30000), 0, 204))
res <- list()
for (k in seq_along(runs)) {
  q <- runs[[k]]
  cat(sprintf("  %s, %d steps%s\n", q[[1]], q[[4]],
              if (q[[2]] == "euler") " from the first run's last configuration" else ""))
  # Brownian dynamics covers 25-100 times less time a step: it starts from
  # BAOAB's equilibrated configuration
  res[[k]] <- timed(ljref_run(108, 0.8, 1.5, rc = 2.5, method = q[[2]], dt = q[[3]],
                              steps = q[[4]], burn = q[[5]], seed = q[[6]],
                              x0 = if (q[[2]] == "euler") res[[1]]$x,
                              gr_bins = if (k == 1) 100 else 0))
}
tab <- data.frame(run = vapply(runs, `[[`, "", 1), dt = vapply(runs, `[[`, 0, 3),
                  time = vapply(runs, function(q) q[[3]] * q[[4]], 0),
                  u = vapply(res, function(r) mean(r$u), 0), su = vapply(res, function(r) se(r$u), 0),
                  p = vapply(res, function(r) mean(r$p), 0), sp = vapply(res, function(r) se(r$p), 0))
print(format(tab, digits = 4), row.names = FALSE)
# Euler-Maruyama's O(dt) bias: the line through its two steps, at dt = 0
ex <- function(y, s) c((4 * y[4] - y[3]) / 3, sqrt(16 * s[4]^2 + s[3]^2) / 3)
eu <- ex(tab$u, tab$su)
ep <- ex(tab$p, tab$sp)
cat("  Euler extrapolated linearly to dt = 0 (4/3 y(5e-5) - 1/3 y(2e-4)) against BAOAB dt = 0.005:\n")
line("U/N", eu[1], eu[2], tab$u[1], tab$su[1])
line("P", ep[1], ep[2], tab$p[1], tab$sp[1])
cat(sprintf("  Euler's bias (against BAOAB 0.005) at dt = 2e-4: U/N %+.4f +- %.4f, P %+.3f +- %.3f;\n",
            tab$u[3] - tab$u[1], sqrt(tab$su[3]^2 + tab$su[1]^2),
            tab$p[3] - tab$p[1], sqrt(tab$sp[3]^2 + tab$sp[1]^2)))
cat(sprintf("                                      at dt = 5e-5: U/N %+.4f +- %.4f, P %+.3f +- %.3f\n",
            tab$u[4] - tab$u[1], sqrt(tab$su[4]^2 + tab$su[1]^2),
            tab$p[4] - tab$p[1], sqrt(tab$sp[4]^2 + tab$sp[1]^2)))
r1 <- res[[1]]
g <- r1$gr
k1 <- which.max(g$g)
cat(sprintf("  g(r): first peak %.3f at r = %.3f; g = %.3f at r = %.2f (bin %.3f wide, %d frames)\n",
            g$g[k1], g$r[k1], g$g[nrow(g)], g$r[nrow(g)], diff(g$r[1:2]), length(r1$u)))
lfs <- ljref_as_lfs(r1)
full <- ljref_as_full(r1)
cat("  the same configurations (BAOAB 0.005) as other truncations (exact a configuration;\n",
    "  the ensemble stays the shifted potential's, so first order):\n")
line("linear-force shifted at 2.5: U/N", mean(lfs$u), se(lfs$u))
line("linear-force shifted at 2.5: P", mean(lfs$p), se(lfs$p))
line("full LJ (shift back + tail, g = 1): U/N", mean(full$u), se(full$u))
line("full LJ: P", mean(full$p), se(full$p))
cat("  a run of the linear-force-shifted potential itself (NIST's LAMMPS-MD model), BAOAB 0.005:\n")
l2 <- timed(ljref_run(108, 0.8, 1.5, rc = 2.5, kind = "lfs", dt = 0.005, steps = st(10000),
                      burn = 1000, seed = 205, x0 = r1$x, v0 = r1$v))
line("LFS run: U/N (against the converted)", mean(l2$u), se(l2$u), mean(lfs$u), se(lfs$u))
line("LFS run: P", mean(l2$p), se(l2$p), mean(lfs$p), se(lfs$p))
cat("  (compare the LFS run with the rho = 0.8 row of NIST's LAMMPS-MD table at kT/eps = 1.50,\n",
    "  N = 10000: bench/lj-reference.md)\n")

## 3. NIST EOS-TMMC at T = 1.5 ------------------------------------------------
rho3 <- 370 / 512
u3 <- -0.17426193e4 / 370
cat(sprintf("\n3. NIST SRSW EOS-TMMC, T = 1.5, N = 370 in V = 512 (rho = %.5f), rc = 3 + tail:", rho3),
    sprintf("U/N = %.5f (no uncertainty in the file)\n", u3))
cat("  shifted at 2.5, N = 160 (L = 6.05), BAOAB dt = 0.005, with rc_extra = 3\n")
c3 <- timed(ljref_run(160, rho3, 1.5, rc = 2.5, dt = 0.005, steps = st(10000), burn = 3000,
                      rc_extra = 3.0, seed = 301))
e3 <- c3$extra[[1]]
du3 <- (e3$u + ljref_u(3.0) * e3$nc / c3$n) - c3$u # U_trunc(3)/N - U_TS(2.5)/N
conv3 <- u3 - ljref_u_tail(rho3, 3.0) - mean(du3)
line("U_TS(2.5)/N against NIST converted", mean(c3$u), se(c3$u), conv3, se(du3))
cat(sprintf("  (the run's own full-LJ estimate, g = 1 beyond 2.5: %.4f; NIST %.4f)\n",
            mean(ljref_as_full(c3)$u), u3))
cat(sprintf("\nlj-reference-check: %.0f s in all\n", proc.time()[3] - t_all))
