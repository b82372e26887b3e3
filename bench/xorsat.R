# Benchmark: the quasi-greedy 3-XORSAT solver (paper 003), CPU engine.
#
#   SP_COMMIT=<commit> Rscript bench/xorsat.R
#
# Prints one table (metric, value, unit, device, commit, date).  Reference
# (REFERENCES.md s. 6): the paper's V100 code, median-instance fit
# log10(TTS / s) = 0.0171 n - 5.9 (n = 2N, the challenge's 2-body size).
# Limit of the CPU engine: a clone-update is a handful of 32-bit logic
# operations shared by 32 clones (about 20 instructions for a word: three
# equation masks, the majority, the p1 mask, one Philox number per word
# and spin), so one core at ~3e9 instructions/s allows ~5e9 clone-updates/s.
suppressPackageStartupMessages(library(statphysgpu))
commit <- Sys.getenv("SP_COMMIT", "unknown")
date <- format(Sys.time(), "%Y-%m-%d %H:%M %Z")
dev <- sprintf("%s, %d threads",
               sub("^\\s+", "", system("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2",
                                       intern = TRUE)), sp_threads())
rows <- list()
add <- function(metric, value, unit) {
  rows[[length(rows) + 1]] <<- data.frame(metric = metric, value = signif(value, 4),
                                          unit = unit, device = dev, commit = commit,
                                          date = date)
  message(sprintf("%-72s %12.4g %s", metric, value, unit))
}
dir <- system.file("extdata", "3r3x", package = "statphysgpu")
for (nn in c(64, 128)) {
  files <- list.files(dir, sprintf("_n%d_s[0-9]+[.]txt$", nn), full.names = TRUE)
  med <- numeric()
  for (f in files) {
    inst <- read_xorsat(f)
    x <- xorsat_qg(inst, runs = 200, clones = 256, seed = 1, backend = "cpu")
    ups <- inst$n * attr(x, "clones") / attr(x, "seconds_per_sweep")
    add(sprintf("%s: clone-updates/s per run (one thread a run)", inst$name), ups, "1/s")
    e <- tts_estimate(x)
    add(sprintf("%s: mean TTS (posterior median), 256 clones", inst$name), e$tau_median, "s")
    med <- c(med, e$tau_median)
  }
  add(sprintf("n = %d: median over %d instances of the mean TTS", nn, length(files)),
      stats::median(med), "s")
  add(sprintf("n = %d: paper's V100 fit 10^(0.0171 n - 5.9)", nn), 10^(0.0171 * nn - 5.9), "s")
}
res <- do.call(rbind, rows)
print(res[, c("metric", "value", "unit")], row.names = FALSE, right = FALSE)
cat(sprintf("device %s, commit %s, %s\n", dev, commit, date))
