# The HMF model's quasi-stationary state (Rocha Filho 2014): a
# waterbag with all angles equal (M0 = 1) at energy U = 0.69 per particle,
# below the critical U_c = 3/4, relaxes violently (M falls from 1 to about
# 0.05 by t = 2, then rises again by t ~ 50) to a quasi-stationary state
# whose magnetisation is not the equilibrium M of hmf_caloric(0.69), 0.309.
# What one realisation shows at these sizes is mostly chance: the late-time
# M of single realisations scatters by 0.05 to 0.13 (standard deviation over
# realisations). On the CPU below (five realisations per N, M averaged over
# t in [1000, 2000]) the realisations range over 0.10-0.40 at N = 500,
# 0.14-0.27 at N = 2000 and 0.02-0.22 at N = 8000; their mean, 0.24, 0.19
# and 0.12, falls as N grows, and from t ~ 100 on the mean of each N stays
# below the equilibrium value. The figure shows, for each N, the mean of the
# realisations (line) and their range (band) against the equilibrium value
# (dashed); the demo prints the numbers.
#
# CPU: N = 500, 2000, 8000, five realisations each, to t = 2000 (about 40 s
# on two cores: HMF runs one thread below 65,536 particles). GPU: N = 1e3 ..
# 1e6, five realisations each, to t = 1e4 (an H100 makes 2.6e10 HMF
# particle-steps a second). The first 100 steps are
# recorded every step (the violent relaxation), the rest every 25 steps (a
# continuation, lrmd(init = ...)).
#
# The figure, hmf-qss.png, is written to the working directory, or to the
# directory in STATPHYSGPU_DEMO_DIR (the temporary directory if neither is
# writable).
library(statphysgpu)

b <- sp_backends()
use_gpu <- any(b$backend == "gpu" & b$available)
backend <- if (use_gpu) "gpu" else "cpu"
ns <- if (use_gpu) c(1e3, 1e4, 1e5, 1e6) else c(500, 2000, 8000)
t_end <- if (use_gpu) 1e4 else 2000
seeds <- 1:5
dt <- 0.2
U <- 0.69
eq <- hmf_caloric(U)
cat(sprintf("\nEquilibrium at U = %.2f: T = %.4f, M = %.4f (critical U_c = 0.75)\n", U, eq$T, eq$M))
cat(sprintf("Backend: %s; N = %s; %d realisations each; t up to %g (dt = %g)\n",
            if (use_gpu) "GPU" else sprintf("CPU (%d threads)", sp_threads()),
            paste(format(ns, big.mark = ",", scientific = FALSE, trim = TRUE), collapse = ", "),
            length(seeds), t_end, dt))

t0 <- proc.time()[["elapsed"]]
runs <- lapply(ns, function(n) {
  time <- NULL
  m <- sapply(seeds, function(s) {
    a <- lrmd("hmf", init = hmf_waterbag(n, M0 = 1, U = U, seed = s), dt = dt, steps = 100,
              record_every = 1, backend = backend, progress = FALSE)
    b <- lrmd(init = a, dt = dt, steps = round(t_end / dt) - 100, record_every = 25,
              backend = backend, progress = interactive())
    time <<- c(a$time, b$time[-1]) # (b's first record repeats a's last)
    c(a$M, b$M[-1])
  })
  late <- colMeans(m[time >= t_end / 2, , drop = FALSE])
  cat(sprintf("N = %9s: mean M over t in [%g, %g] by realisation %s: mean %.3f, sd %.3f\n",
              format(n, big.mark = ",", scientific = FALSE), t_end / 2, t_end,
              paste(sprintf("%.3f", late), collapse = " "), mean(late), stats::sd(late)))
  list(time = time, M = m)
})
cat(sprintf("(%.0f s)\n", proc.time()[["elapsed"]] - t0))

out_dir <- Sys.getenv("STATPHYSGPU_DEMO_DIR", getwd())
if (file.access(out_dir, 2) != 0) out_dir <- tempdir()
png_file <- file.path(out_dir, "hmf-qss.png")
grDevices::png(png_file, width = 900, height = 600, res = 110)
cols <- grDevices::hcl.colors(length(ns), "Dark 3")
graphics::plot(NA, xlim = c(dt, t_end), ylim = c(0, 1), log = "x", xlab = "t", ylab = "M(t)",
               xaxt = "n", main = sprintf("HMF waterbag M0 = 1, U = %.2f: %d realisations per N",
                                          U, length(seeds)))
ticks <- 10^(-1:4)
graphics::axis(1, at = ticks, labels = format(ticks, scientific = FALSE, drop0trailing = TRUE))
for (k in seq_along(runs)) {
  r <- runs[[k]]
  keep <- r$time > 0
  lo <- apply(r$M[keep, , drop = FALSE], 1, min)
  hi <- apply(r$M[keep, , drop = FALSE], 1, max)
  graphics::polygon(c(r$time[keep], rev(r$time[keep])), c(lo, rev(hi)), border = NA,
                    col = grDevices::adjustcolor(cols[k], alpha.f = 0.25))
  graphics::lines(r$time[keep], rowMeans(r$M[keep, , drop = FALSE]), col = cols[k], lwd = 2)
}
graphics::abline(h = eq$M, lty = 2)
graphics::legend("topright", c(sprintf("N = %s: mean (line), range (band)",
                                       format(ns, big.mark = ",", scientific = FALSE)),
                               sprintf("equilibrium M = %.3f", eq$M)),
                 col = c(cols, "black"), lty = c(rep(1, length(ns)), 2),
                 lwd = c(rep(2, length(ns)), 1), bty = "n")
invisible(grDevices::dev.off())
cat("Wrote", png_file, "\n")
