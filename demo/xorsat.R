# Time to solution of 3-regular 3-XORSAT (paper 003) with the quasi-greedy
# solver on the challenge instances shipped with the package (n = 2N =
# 16 to 128 spins of the 2-body form): the exponential distribution of the
# times to solution, the Bayesian mean TTS of each instance, and the
# scaling fit log10 TTS = a n + b against the paper's V100 fit.  Writes
# xorsat-tts.png (into the working directory, or STATPHYSGPU_DEMO_DIR).
# About half a minute on two CPU cores.
library(statphysgpu)

dir <- system.file("extdata", "3r3x", package = "statphysgpu")
files <- list.files(dir, "_n(16|32|64|128)_s[0-9]+[.]txt$", full.names = TRUE)
runs <- list()
for (f in files) {
  inst <- read_xorsat(f)
  x <- xorsat_qg(inst, runs = 200, clones = 256, seed = 2021, backend = "cpu",
                 progress = interactive())
  runs[[inst$name]] <- x
  e <- tts_estimate(x)
  cat(sprintf("%-22s N = %3d: %3d of %d runs solved, mean TTS %.3g s [%.3g, %.3g], TTS99 %.3g s\n",
              inst$name, inst$n, sum(x$solved), nrow(x), e$tau_median, e$tau_lower,
              e$tau_upper, e$tts))
}

n2 <- vapply(runs, function(x) 2 * attr(x, "n"), 0) # the 2-body size of the fit
tau <- vapply(runs, function(x) tts_estimate(x)$tau_median, 0)
fit <- tts_scaling(n2, tau)
cat("\n")
print(fit)
cat(sprintf("paper 003 (V100, n = 200..640): log10(TTS / s) = 0.0171 n - 5.9\n"))
cat("(four sizes of small instances on one CPU core: an illustration of the fit,\n",
    "not a measurement of the slope; see bench/RESULTS.md)\n")

out <- Sys.getenv("STATPHYSGPU_DEMO_DIR", ".")
png(file.path(out, "xorsat-tts.png"), width = 900, height = 450)
op <- par(mfrow = c(1, 2))
plot(runs[[which.max(n2)]], main = sprintf("%s: runs not yet solved", names(runs)[which.max(n2)]))
plot(n2, tau, log = "y", pch = 19, xlab = "n (2-body spins)", ylab = "mean TTS (s)",
     main = "time to solution against size")
nn <- seq(min(n2), max(n2), length.out = 50)
lines(nn, predict(fit, nn), col = "firebrick")
par(op)
invisible(dev.off())
cat(sprintf("\nwrote %s\n", file.path(out, "xorsat-tts.png")))
