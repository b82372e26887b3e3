# Variational Monte Carlo of liquid 4He (paper 002): N atoms at the
# equilibrium density 0.02186 A^-3 with McMillan's Jastrow factor
# (b = 3.07 A, symmetrised at half the box) and the Aziz HFD-B(HE)
# potential.  Prints the summary (energy per atom with its reblocked error,
# the tail correction, the time-to-error invariant) and writes a PNG of the
# reblocking curve of the energy.
#
# On the CPU: N = 256, two walkers per thread, about a minute on two cores.
# On a GPU: N = 512 with eight walkers per multiprocessor (walkers = "auto").
library(statphysgpu)

b <- sp_backends()
use_gpu <- any(b$backend == "gpu" & b$available)
n_atoms <- if (use_gpu) 512 else 256
walkers <- if (use_gpu) "auto" else 2 * sp_threads()
cat(sprintf("Backend: %s, N = %d atoms\n", if (use_gpu) "GPU" else
            sprintf("CPU (%d threads)", sp_threads()), n_atoms))

# 500 sweeps of equilibration (the step tuned towards 45% acceptance), then
# 64 blocks of 100 sweeps per walker, the energy measured every 5 sweeps
t0 <- proc.time()[["elapsed"]]
x <- he4_vmc(n_atoms, walkers = walkers, blocks = 64, block_sweeps = 100,
             measure_every = 5, equilibration = 500, seed = 2015,
             backend = if (use_gpu) "gpu" else "cpu", progress = interactive())
cat(sprintf("Ran %s walker sweeps in %.1f s\n\n",
            format(length(unique(x$walker)) * (500 + 64 * 100), big.mark = ","),
            proc.time()[["elapsed"]] - t0))
print(x)
cat("\n")
s <- summary(x)
print(s)

# Paper 002 (a K20 GPU, N = 512): t sigma^2 = 130 s mK^2, i.e. 1 mK in about
# two minutes.  The invariant of this run, on this machine:
tte <- attr(s, "time_to_error")
if (is.finite(tte)) {
  cat(sprintf("\nTime to a 1 mK error on E/N here: %.3g s (%.3g h)\n", tte, tte / 3600))
}

out_dir <- Sys.getenv("STATPHYSGPU_DEMO_DIR", getwd())
if (file.access(out_dir, 2) != 0) out_dir <- tempdir()
png_file <- file.path(out_dir, "helium-reblocking.png")
grDevices::png(png_file, width = 900, height = 600, res = 110)
plot(x, which = "reblock")
grDevices::dev.off()
cat("Wrote", png_file, "\n")
