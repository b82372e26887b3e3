# Benchmark: the quasi-greedy 3-XORSAT solver (paper 003).
#
#   SP_COMMIT=<commit> Rscript bench/xorsat.R          # CPU engine, shipped instances
#   SP_COMMIT=<commit> Rscript bench/xorsat.R gpu DIR  # GPU engine, DIR = the shared
#                                                      # data/3r3x (n = 144..224, 384)
#
# Prints one table (metric, value, unit, device, commit, date).  Times in
# seconds are sweeps times the pace of one run alone on the device (see
# ?xorsat_qg), and clone-updates/s are that pace's.  Reference
# (REFERENCES.md s. 6): the paper's V100 code, median-instance fit
# log10(TTS / s) = 0.0171 n - 5.9 (n = 2N, the challenge's 2-body size).
# Limit of the CPU engine: a clone-update is a handful of 32-bit logic
# operations shared by 32 clones (about 20 instructions for a word: three
# equation masks, the majority, the p1 mask, one Philox number per word
# and spin), so one core at ~3e9 instructions/s allows ~5e9 clone-updates/s.
# Limit of the GPU engine (REFERENCES.md s. 8): a warp updates 32 words'
# worth of spins per step of a set; per word-update about 9 shared-memory
# accesses (one 128-bit list, seven spins, one store) and ~30 integer
# instructions; the H100's shared memory serves one warp-wide access per
# SM per clock: 132 x 1.98e9 / 9 x 32 lanes x 32 clones = 2.9e13
# clone-updates/s, and the integer pipes (64/SM/clock) about 1.8e13.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
gpu <- bench_arg("cpu") == "gpu"
dev <- if (gpu) {
  d <- gpu_first(free = FALSE)
  sprintf("%s (%d SMs)", d$name[1], d$multiprocessors[1])
} else cpu_device()
if (gpu) {
  dir <- bench_arg("../shared/data/3r3x", 2)
  sizes <- as.numeric(strsplit(Sys.getenv("SP_SIZES", "144,160,176,192,208,224,384"), ",")[[1]])
  nmax <- as.numeric(Sys.getenv("SP_INSTANCES", "25"))
  runs <- as.numeric(Sys.getenv("SP_RUNS", "40"))
  # throughput: one run with every warp of the device, cut at 2000 sweeps,
  # for each register cap of the kernel; the fastest is used below
  best <- 0
  variant <- "default"
  scan <- Sys.getenv("SP_XS_SCAN", "1") == "1" # the kernel variants and the p1 scan
  for (v in if (scan) c("default", "lb6", "lb8") else character()) {
    options(statphysgpu.xorsat_variant = v)
    for (f in c("3r3x_2body_n224_s1.txt", "3r3x_2body_n384_s1.txt")) {
      inst <- read_xorsat(file.path(dir, f))
      x <- xorsat_qg(inst, replicas = 1, max_sweeps = 2000, seed = 1, p1 = 0, backend = "gpu")
      ups <- inst$n * attr(x, "clones") / attr(x, "seconds_per_sweep")
      add(sprintf("%s, kernel %s, clones = %d: clone-updates/s (p1 = 0, 2000 sweeps)",
                  inst$name, v, attr(x, "clones")), ups, "1/s")
      if (f == "3r3x_2body_n384_s1.txt" && ups > best) {
        best <- ups
        variant <- v
      }
    }
  }
  options(statphysgpu.xorsat_variant = variant)
  message("kernel variant used below: ", variant)
  # p1 at n = 384 (the default 0.12 was chosen at n = 128 on the CPU):
  # the timeout method, 3 instances x 6 runs, timeout 2 s
  if (scan && 384 %in% sizes) for (p in c(0.05, 0.08, 0.12, 0.16)) {
    med <- numeric()
    for (s in 1:3) {
      inst <- read_xorsat(file.path(dir, sprintf("3r3x_2body_n384_s%d.txt", s)))
      x <- xorsat_qg(inst, replicas = 6, seed = 2, p1 = p, timeout = 2, backend = "gpu")
      med <- c(med, tts_estimate(x, unit = "seconds")$tau_median)
    }
    add(sprintf("n = 384, p1 = %.2f: median over 3 instances of the mean TTS (6 runs, timeout 2 s)",
                p), stats::median(med), "s")
  }
  # SP_XS_INDEP=1: also per-clone p1 decisions (independent_clones = TRUE)
  indeps <- if (Sys.getenv("SP_XS_INDEP", "0") == "1") c(FALSE, TRUE) else FALSE
  for (ind in indeps) for (nn in sizes) {
    tag <- if (ind) " [per-clone p1]" else ""
    files <- list.files(dir, sprintf("_n%d_s[0-9]+[.]txt$", nn), full.names = TRUE)
    files <- head(files[order(as.numeric(sub(".*_s([0-9]+)[.]txt$", "\\1", files)))], nmax)
    med <- numeric()
    med_sw <- numeric()
    fit <- 10^(0.0171 * nn - 5.9)
    t0 <- proc.time()[["elapsed"]]
    for (f in files) {
      inst <- read_xorsat(f)
      # the timeout method: runs cut at twice the V100 fit's mean
      x <- xorsat_qg(inst, replicas = if (nn >= 384) 6 else runs, seed = 1, timeout = 2 * fit,
                     backend = "gpu", independent_clones = ind)
      if (ind && f == files[1]) {
        add(sprintf("%s%s: clone-updates/s", inst$name, tag),
            inst$n * attr(x, "clones") / attr(x, "seconds_per_sweep"), "1/s")
      }
      med <- c(med, tts_estimate(x, unit = "seconds")$tau_median)
      med_sw <- c(med_sw, tts_estimate(x)$tau_median)
    }
    add(sprintf("n = %d%s: median over %d instances of the mean TTS (%d runs each, timeout %.3g s)",
                nn, tag, length(files), if (nn >= 384) 6 else runs, 2 * fit),
        stats::median(med), "s")
    add(sprintf("n = %d%s: the same in sweeps", nn, tag), stats::median(med_sw), "sweeps")
    add(sprintf("n = %d%s: quartiles of the instances' mean TTS", nn, tag),
        stats::quantile(med, 0.25), "s")
    add(sprintf("n = %d%s: ", nn, tag), stats::quantile(med, 0.75), "s")
    add(sprintf("n = %d%s: paper's V100 fit 10^(0.0171 n - 5.9); speed-up over it", nn, tag),
        fit / stats::median(med), "x")
    add(sprintf("n = %d%s: wall time of this size", nn, tag), proc.time()[["elapsed"]] - t0, "s")
  }
  bench_print(brief = TRUE)
  quit(save = "no")
}
dir <- system.file("extdata", "3r3x", package = "statphysgpu")
for (nn in c(64, 128)) {
  files <- list.files(dir, sprintf("_n%d_s[0-9]+[.]txt$", nn), full.names = TRUE)
  med <- numeric()
  for (f in files) {
    inst <- read_xorsat(f)
    x <- xorsat_qg(inst, replicas = 200, clones = 256, seed = 1, backend = "cpu")
    ups <- inst$n * attr(x, "clones") / attr(x, "seconds_per_sweep")
    add(sprintf("%s: clone-updates/s per run (one thread a run)", inst$name), ups, "1/s")
    e <- tts_estimate(x, unit = "seconds")
    add(sprintf("%s: mean TTS (posterior median), 256 clones", inst$name), e$tau_median, "s")
    med <- c(med, e$tau_median)
  }
  add(sprintf("n = %d: median over %d instances of the mean TTS", nn, length(files)),
      stats::median(med), "s")
  add(sprintf("n = %d: paper's V100 fit 10^(0.0171 n - 5.9)", nn), 10^(0.0171 * nn - 5.9), "s")
}
bench_print(brief = TRUE)
