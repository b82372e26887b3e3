# Variational Monte Carlo of liquid 4He (Lutsyshyn 2015): N atoms at the
# equilibrium density 0.02186 A^-3 with McMillan's Jastrow factor
# (b = 3.07 A, symmetrised at half the box) and the Aziz HFD-B(HE)
# potential.  Prints the summary (energy per atom with its reblocked error,
# the tail correction, the time-to-error invariant) and writes a PNG of the
# block means of the energy and of its reblocking curve.
#
# On the CPU: N = 256, two walkers per thread, about a minute on two cores.
# On a GPU: N = 512 with 16 walkers per multiprocessor (replicas = "auto").
library(statphysgpu)

b <- sp_backends()
use_gpu <- any(b$backend == "gpu" & b$available)
n <- if (use_gpu) 512 else 256
replicas <- if (use_gpu) "auto" else 2 * sp_threads()
cat(sprintf("Backend: %s, N = %d atoms\n", if (use_gpu) "GPU" else
            sprintf("CPU (%d threads)", sp_threads()), n))

# 500 sweeps of equilibration (the displacement tuned towards 30% acceptance), then
# 64 blocks of 100 sweeps per walker, the energy measured every 5 sweeps
t0 <- proc.time()[["elapsed"]]
x <- he4_vmc(n, replicas = replicas, blocks = 64, block_sweeps = 100,
             measure_every = 5, equilibration = 500, seed = 2015,
             backend = if (use_gpu) "gpu" else "cpu", progress = interactive())
cat(sprintf("Ran %s walker sweeps in %.1f s\n\n",
            format(length(unique(x$replica)) * (500 + 64 * 100), big.mark = ","),
            proc.time()[["elapsed"]] - t0))
print(x)
cat("\n")
s <- summary(x)
print(s)

# What the columns are.  `se` is one standard error of the mean (68 per cent
# of a normal law), from the block means of each walker reblocked at the
# optimal level (Flyvbjerg-Petersen; Wolff's criterion), the walkers
# combined as independent chains; `se_error` is the standard error of that
# estimate.  `tau_int` is the integrated autocorrelation time of the block
# means, in blocks, in the convention tau_int = 1 + 2 sum_k rho(k) (emcee,
# Sokal): 1 for independent blocks; Lutsyshyn's (2015) m_c is (tau_int - 1) / 2.
# Blocks of 100 sweeps are longer than the correlation time of the
# measurements, so tau_int comes out near 1.  Values below 1 (the potential
# and kinetic terms, on the CPU) do not mean anti-correlated blocks here:
# for nearly independent blocks the estimate scatters about 1 by about
# sqrt(2 (2M + 1) / n) (0.27 for a window of M = 4 lags over n = 256
# blocks), and centring each walker's blocks on their own mean pulls it
# down by about 2M / (blocks per walker), 0.12 here.
e <- s[s$observable == "energy", ]
tau <- suppressWarnings(tau_int(split(x$energy, x$replica)))
cat(sprintf(paste0(
  "\nE/N = %.4f +/- %.4f K (1 standard error; %.4f K with the tail correction);\n",
  "tau_int of the energy blocks: %.2f +/- %.2f (Sokal's error; 1 = independent ",
  "blocks)\n"),
  e$mean, e$se, attr(s, "energy_corrected"), tau, attr(tau, "se")))

# Lutsyshyn (2015) (a K20 GPU, N = 512): t sigma^2 = 130 s mK^2, i.e. 1 mK in about
# two minutes.  The invariant of this run, on this machine:
tte <- attr(s, "time_to_error")
if (is.finite(tte)) {
  cat(sprintf("\nTime to a 1 mK error on E/N here: %.3g s (%.3g h)\n", tte, tte / 3600))
}

out_dir <- Sys.getenv("STATPHYSGPU_DEMO_DIR", getwd())
if (file.access(out_dir, 2) != 0) out_dir <- tempdir()
png_file <- file.path(out_dir, "helium-reblocking.png")
grDevices::png(png_file, width = 1400, height = 600, res = 110)
# left: the block means of E/N of every walker (K), the dashed line their
# mean; right: the standard error of the mean against the blocking level,
# with error bars of +/- the standard error of each level's estimate, and
# the optimal level (the se printed above) in red
plot(x, which = c("trace", "reblock"))
grDevices::dev.off()
cat("Wrote", png_file, "\n")
