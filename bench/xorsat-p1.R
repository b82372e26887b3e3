# The p1 scan behind xorsat_qg()'s default: the mean time to solution
# (posterior median of tts_estimate(), 200 runs of 256 clones) against p1 on
# the shipped challenge instances of n = 64 and 128, CPU engine; each
# instance's scan is one call (a sweep over p1, one estimate per value).
#
#   Rscript bench/xorsat-p1.R
suppressPackageStartupMessages(library(statphysgpu))
dir <- system.file("extdata", "3r3x", package = "statphysgpu")
files <- list.files(dir, "_n(64|128)_s[0-9]+[.]txt$", full.names = TRUE)
p1 <- c(0.04, 0.06, 0.08, 0.1, 0.12, 0.16, 0.2)
res <- NULL
for (f in files) {
  inst <- read_xorsat(f)
  x <- xorsat_qg(inst, replicas = 200, clones = 256, p1 = p1, seed = 1, backend = "cpu")
  e <- tts_estimate(x, unit = "seconds") # sweeps x the pace of one run on one core
  res <- rbind(res, data.frame(inst = inst$name, p1 = e$p1, tau = e$tau_median,
                               lo = e$tau_lower, hi = e$tau_upper,
                               sweeps = as.vector(tapply(x$sweeps, x$condition, mean))))
}
res$n <- as.integer(sub(".*_n([0-9]+)_.*", "\\1", res$inst))
print(res)
agg <- aggregate(tau ~ n + p1, res, median)
print(agg[order(agg$n, agg$p1), ])
