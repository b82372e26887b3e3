# Driven Brownian particle in a periodic potential, Januszewski and Kostur
# (2010), Fig. 2: the anomalous transport regime of the Stewart-McCumber
# model, a = 4.2, beta = 0.9, omega = 4.9, theta = 0.001, f = 0.1 (the
# paper's gamma = 0.9 and D0 = 0.001), where the
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
  x <- driven_brownian(n, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001,
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
n_sweep <- if (use_gpu) 2^16 else 1024
sweep <- driven_brownian(n_sweep, a = 4.2, omega = 4.9,
                         f = seq(0, 1, by = 0.05), beta = 0.9, theta = 0.001,
                         periods = if (use_gpu) 1000 else 200, seed = 2011,
                         backend = backend, progress = interactive())

# D_eff = var(x(t_end) - x(t_tr)) / (2 t_obs) comes with D_eff_se, the
# standard error from the fourth moment of the displacements over the
# independent paths (delta method). A check of it: the spread of D_eff
# between 16 independent blocks of replicas, sd / sqrt(16).
paths <- as.data.frame(sweep, paths = TRUE)
blocks <- 16
sweep_tab <- as.data.frame(sweep)
sweep_tab$D_eff_se_blocks <- vapply(seq_len(nrow(sweep)), function(c) {
  q <- paths[paths$condition == c, , drop = FALSE]
  d_blk <- tapply(q$x - q$x_tr, (q$replica - 1) %% blocks, stats::var) /
    (2 * sweep$t_obs[c])
  stats::sd(d_blk) / sqrt(blocks)
}, 0)
print(sweep_tab[c("f", "v_mean", "v_se", "D_eff", "D_eff_se", "D_eff_se_blocks")],
      row.names = FALSE, digits = 3)

out_dir <- Sys.getenv("STATPHYSGPU_DEMO_DIR", getwd())
if (file.access(out_dir, 2) != 0) out_dir <- tempdir()
png_file <- file.path(out_dir, "driven-fig2.png")
grDevices::png(png_file, width = 1300, height = 900, res = 110)
op <- graphics::par(mfrow = c(2, 2))
# Fig. 2, right: the coarse-grained position density at the end (one bin per
# potential period), single against double precision
h1 <- attr(fig2[[1]], "histogram")$position
h2 <- attr(fig2[[2]], "histogram")$position
occupied <- range(c(h1$x_lo[h1$count > 0], h2$x_lo[h2$count > 0]))
graphics::plot(h1$x_lo, h1$density, type = "s", col = "steelblue", lwd = 1.5,
               xlim = occupied + c(-5, 6), xlab = "x (potential periods)",
               ylab = "P(x), one bin per potential period",
               main = sprintf("Fig. 2 (right): positions at t = %d drive periods", periods),
               sub = sprintf("a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001; %s paths",
                             format(n, big.mark = ",")), cex.sub = 0.8)
graphics::lines(h2$x_lo, h2$density, type = "s", col = "firebrick", lty = 2)
graphics::legend("topright", c("single precision", "double precision"),
                 col = c("steelblue", "firebrick"), lty = 1:2, bty = "n", cex = 0.8)
# Fig. 2, left: the coarse-grained density over time (accumulated by the
# engine as the paths run; each drive period scaled to its largest bin, see
# the key) with the kept trajectories, time in drive periods as in the paper
plot(fig2[[1]], type = "density",
     main = sprintf("Fig. 2 (left): density over time, %d trajectories",
                    length(unique(attr(fig2[[1]], "trajectories")$replica))))
# <v> against f, bars of two standard errors over paths (where a bar is not
# seen it is shorter than the point)
plot(sweep)
graphics::abline(h = 0, lty = 3)
graphics::mtext(sprintf("%s paths, %d drive periods", format(n_sweep, big.mark = ","),
                        attr(sweep, "periods")), side = 3, line = 0.3, cex = 0.7)
# D_eff against f, bars of two D_eff_se (fourth moment over paths)
lo <- pmax(sweep$D_eff - 2 * sweep$D_eff_se, min(sweep$D_eff) / 10)
graphics::plot(sweep$f, sweep$D_eff, type = "o", pch = 19, cex = 0.6, log = "y",
               ylim = range(c(lo, sweep$D_eff + 2 * sweep$D_eff_se)), xlab = "f",
               ylab = "D_eff", main = "Effective diffusion (bars: 2 standard errors)",
               sub = "standard error from the fourth moment of the displacements over paths",
               cex.sub = 0.8)
graphics::arrows(sweep$f, lo, sweep$f, sweep$D_eff + 2 * sweep$D_eff_se, angle = 90,
                 code = 3, length = 0.02)
graphics::par(op)
grDevices::dev.off()
cat("Wrote", png_file, "\n")
