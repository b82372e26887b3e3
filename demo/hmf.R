# The HMF model's quasi-stationary state (paper 004, the HMF model): a
# waterbag with all angles equal (M0 = 1) at energy U = 0.69 per particle,
# below the critical U_c = 3/4, relaxes violently to a state of small
# magnetisation and stays there -- away from the equilibrium M of
# hmf_caloric(0.69) -- for a time that grows with N, before it relaxes to
# equilibrium.  M(t) for several N against the equilibrium value, as a PNG.
#
# CPU: N = 500 .. 10000 to t = 5000 (about half a minute on two cores).  GPU:
# N up to 1e6 to t = 1e4 (5e4 steps; an H100 makes 2.6e10 HMF
# particle-steps a second, bench/RESULTS.md).
library(statphysgpu)

b <- sp_backends()
use_gpu <- any(b$backend == "gpu" & b$available)
backend <- if (use_gpu) "gpu" else "cpu"
ns <- if (use_gpu) c(1e3, 1e4, 1e5, 1e6) else c(500, 2000, 10000)
t_end <- if (use_gpu) 1e4 else 5000
dt <- 0.2
U <- 0.69
eq <- hmf_caloric(U)
cat(sprintf("\nEquilibrium at U = %.2f: T = %.4f, M = %.4f (critical U_c = 0.75)\n", U, eq$T, eq$M))
cat(sprintf("Backend: %s; N = %s; t up to %g (dt = %g)\n",
            if (use_gpu) "GPU" else sprintf("CPU (%d threads)", sp_threads()),
            paste(format(ns, big.mark = ",", scientific = FALSE, trim = TRUE), collapse = ", "),
            t_end, dt))

runs <- lapply(ns, function(n) {
  x <- lrmd("hmf", init = hmf_waterbag(n, M0 = 1, U = U, seed = 2014), dt = dt,
            steps = round(t_end / dt), record_every = 25, backend = backend,
            progress = interactive())
  cat(sprintf("N = %7s: %.1f s, max |energy error| %.2g, M at the end %.3f\n",
              format(n, big.mark = ","), attr(x, "seconds"), max(abs(x$energy_error)),
              utils::tail(x$M, 1)))
  x
})

png_file <- file.path(tempdir(), "hmf-qss.png")
grDevices::png(png_file, width = 900, height = 600)
cols <- grDevices::hcl.colors(length(ns), "Dark 3")
graphics::plot(NA, xlim = c(1, t_end), ylim = c(0, 1), log = "x", xlab = "t", ylab = "M(t)",
               main = sprintf("HMF waterbag M0 = 1, U = %.2f: quasi-stationary states", U))
for (k in seq_along(runs)) {
  d <- runs[[k]][runs[[k]]$time > 0, ]
  graphics::lines(d$time, d$M, col = cols[k])
}
graphics::abline(h = eq$M, lty = 2)
graphics::legend("topright", c(sprintf("N = %s", format(ns, big.mark = ",")), "equilibrium"),
                 col = c(cols, "black"), lty = c(rep(1, length(ns)), 2), bty = "n")
grDevices::dev.off()
cat("Figure:", png_file, "\n")
