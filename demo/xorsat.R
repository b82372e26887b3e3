# Time to solution of 3-regular 3-XORSAT (Bernaschi et al. 2021) with the quasi-greedy
# solver on the challenge instances shipped with the package: the
# exponential distribution of the times to solution, the Bayesian mean TTS
# of each instance, and the scaling fit log10 TTS = a n + b.
#
# Sizes: an instance has N logical spins and N equations (the 3-spin form
# that the solver runs); the challenge's files and its fits count the
# n = 2N spins of the 2-body form (one ancilla per equation), as in the file
# names (_n16 .. _n128: N = 8 .. 64).  The fit below is in n, as the paper's.
#
# Times: sweeps (exact, the same on every machine); seconds are sweeps
# times the measured pace of one run on one core (see ?xorsat_qg).
# Writes xorsat-tts.png (into the working directory, or
# STATPHYSGPU_DEMO_DIR).  A few seconds on one or two CPU cores.
library(statphysgpu)

dir <- system.file("extdata", "3r3x", package = "statphysgpu")
files <- list.files(dir, "_n(16|32|64|128)_s[0-9]+[.]txt$", full.names = TRUE)
runs <- list()
for (f in files) {
  inst <- read_xorsat(f)
  x <- xorsat_qg(inst, replicas = 200, clones = 256, seed = 2021, backend = "cpu",
                 progress = interactive())
  runs[[inst$name]] <- x
  e <- tts_estimate(x) # in sweeps
  cat(sprintf(paste0("%-20s N = %2d (n = 2N = %3d): %3d of %d runs solved, mean TTS %6.1f ",
                     "sweeps [%6.1f, %6.1f], TTS99 %6.0f sweeps = %.3g s\n"),
              inst$name, inst$n, 2 * inst$n, sum(x$solved), nrow(x), e$tau_median,
              e$tau_lower, e$tau_upper, e$tts, e$tts * attr(x, "seconds_per_sweep")))
}
pace <- attr(runs[[1]], "pace")
cat(sprintf("(seconds: sweeps x the pace of one run on %s)\n", pace$device))

n2 <- vapply(runs, function(x) 2 * attr(x, "n"), 0) # the 2-body size of the fit
tau <- vapply(runs, function(x) tts_estimate(x)$tau_median, 0)
fit <- tts_scaling(n2, tau, unit = "sweeps")
cat("\n")
print(fit)
cat("Bernaschi et al. 2021 (V100, n = 200..640): log10(TTS / s) = 0.0171 n - 5.9, in seconds: its\n",
    "slope holds about 0.001 from the time per sweep, which grows with n\n")
cat("(four sizes of small instances on one CPU core: an illustration of the fit,\n",
    "not a measurement of the slope; the GPU measurements are in vignette(\"xorsat-tts\"))\n")

out <- Sys.getenv("STATPHYSGPU_DEMO_DIR", ".")
png(file.path(out, "xorsat-tts.png"), width = 10, height = 4.5, units = "in", res = 150)
op <- par(mfrow = c(1, 2), mar = c(4.2, 4.2, 3, 1))
big <- which.max(n2)
plot(runs[[big]], main = sprintf("%s (N = %d): runs not yet solved",
                                 names(runs)[big], attr(runs[[big]], "n")),
     cex.main = 0.95)
plot(n2, tau, log = "y", pch = 19, xlab = "n = 2N (spins of the 2-body form)",
     ylab = "mean TTS (sweeps, posterior median)",
     main = "mean time to solution against size", cex.main = 0.95)
nn <- seq(min(n2), max(n2), length.out = 50)
lines(nn, predict(fit, nn), col = "firebrick")
legend("topleft", c("instances, 200 runs of 256 clones",
                    sprintf("fit: log10 TTS = %.4f n %s %.2f", coef(fit)[["slope"]],
                            if (coef(fit)[["intercept"]] < 0) "-" else "+",
                            abs(coef(fit)[["intercept"]]))),
       pch = c(19, NA), lty = c(NA, 1), col = c(1, "firebrick"), bty = "n", cex = 0.85)
par(op)
invisible(dev.off())
cat(sprintf("\nwrote %s\n", file.path(out, "xorsat-tts.png")))
