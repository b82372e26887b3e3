# Driven Brownian particle in a periodic potential, Januszewski and Kostur
# (paper 001), Fig. 2: the anomalous transport regime of the Stewart-McCumber
# model, a = 4.2, gamma = 0.9, omega = 4.9, D0 = 0.001, f = 0.1, where the
# particles run against the bias (absolute negative mobility), and a sweep of
# the mean velocity <v> over the bias f in one call.
#
# On a GPU: the paper's 2^19 paths for 2000 drive periods (100 steps a
# period), single and double precision.  On the CPU: 4096 paths for 500
# periods (seconds on two cores).
library(statphysgpu)

b <- sp_backends()
use_gpu <- any(b$backend == "gpu" & b$available)
backend <- if (use_gpu) "gpu" else "cpu"
n <- if (use_gpu) 2^19 else 4096
periods <- if (use_gpu) 2000 else 500
cat(sprintf("\nBackend: %s, %s paths, %d drive periods\n",
            if (use_gpu) "GPU" else sprintf("CPU (%d threads)", sp_threads()),
            format(n, big.mark = ","), periods))

fig2 <- lapply(c("single", "double"), function(prec) {
  x <- driven_brownian(n, a = 4.2, omega = 4.9, f = 0.1, gamma = 0.9, D0 = 0.001,
                       periods = periods, steps_per_period = 100, output = "histogram",
                       keep = 8, seed = 2010, backend = backend, precision = prec,
                       progress = interactive())
  cat(sprintf("\n%s precision: %.1f s (%.3g steps/s)\n", prec, attr(x, "seconds"),
              n * periods * 100 / attr(x, "seconds")))
  print(x)
  x
})
cat(sprintf(paste0("\n<v> single - double = %.2g (combined standard error %.2g): the ",
                   "precisions agree to the statistics, as Sec. 5 of the paper says\n"),
            fig2[[1]]$v_mean - fig2[[2]]$v_mean,
            sqrt(fig2[[1]]$v_se^2 + fig2[[2]]$v_se^2)))

# <v> against the bias: every f a condition, all in one launch
sweep <- driven_brownian(if (use_gpu) 2^16 else 1024, a = 4.2, omega = 4.9,
                         f = seq(0, 1, by = 0.05), gamma = 0.9, D0 = 0.001,
                         periods = if (use_gpu) 1000 else 200, seed = 2011,
                         backend = backend, progress = interactive())
print(sweep[c("f", "v_mean", "v_se", "D_eff")], row.names = FALSE)

out_dir <- Sys.getenv("STATPHYSGPU_DEMO_DIR", getwd())
if (file.access(out_dir, 2) != 0) out_dir <- tempdir()
png_file <- file.path(out_dir, "driven-fig2.png")
grDevices::png(png_file, width = 1200, height = 800, res = 110)
op <- graphics::par(mfrow = c(2, 2))
# the coarse-grained position density at the end, single against double
h1 <- attr(fig2[[1]], "histogram")$position
h2 <- attr(fig2[[2]], "histogram")$position
graphics::plot(h1$x_lo, h1$density, type = "s", col = "steelblue", lwd = 1.5,
               xlab = "x (potential periods)", ylab = "P(x), one bin per period",
               main = sprintf("Fig. 2: positions at t = %d periods", periods))
graphics::lines(h2$x_lo, h2$density, type = "s", col = "firebrick", lty = 2)
graphics::legend("topright", c("single", "double"), col = c("steelblue", "firebrick"),
                 lty = 1:2, bty = "n")
# the coarse-grained density over time (accumulated by the engine as the
# paths run) with sample trajectories, as the left panel of Fig. 2
d <- attr(fig2[[1]], "histogram")$density
ts <- sort(unique(d$t))
xs <- sort(unique(d$x_lo))
z <- t(matrix(d$count, nrow = length(xs)))
tr <- attr(fig2[[1]], "trajectories")
# (each period scaled to its largest bin, so that the spreading cloud stays visible)
graphics::image(ts, xs + 0.5, z / pmax(1, apply(z, 1, max)), col = grDevices::hcl.colors(64, "YlOrRd", rev = TRUE),
                ylim = range(c(tr$x, -40, 20)), xlab = "t", ylab = "x",
                main = "Density over time, sample trajectories")
for (r in unique(tr$replica)) {
  q <- tr[tr$replica == r, ]
  graphics::lines(q$t, q$x, col = "grey20")
}
graphics::plot(sweep$f, sweep$v_mean, type = "o", pch = 19, xlab = "f", ylab = "<v>",
               main = "Mean velocity against the bias")
graphics::segments(sweep$f, sweep$v_mean - 2 * sweep$v_se, sweep$f,
                   sweep$v_mean + 2 * sweep$v_se)
graphics::abline(h = 0, lty = 3)
graphics::plot(sweep$f, sweep$D_eff, type = "o", pch = 19, log = "y", xlab = "f",
               ylab = "D_eff", main = "Effective diffusion")
graphics::par(op)
grDevices::dev.off()
cat("Wrote", png_file, "\n")
