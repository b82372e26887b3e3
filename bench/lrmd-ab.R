# Same-machine comparison of two builds of the HMF engine (issue 23:
# bench/lrmd.R measured HMF n = 1e6 in double at 2.45-2.48e10
# particle-steps/s in runs 2, 3 and 10 and 2.38e10 on 2026-11-27, on other
# H100 machines; is the -3 per cent the code or the host?).
#
#   SP_LIB=<library holding the build> SP_LABEL=<name> Rscript bench/lrmd-ab.R
#
# bench/lrmd.R's steady-state rate exactly (hmf_waterbag(n, 1, 0.69, seed =
# 1), dt = 0.01, records at the start and the end, option lrmd_variant
# "mixed"; the time of 3 s steps minus that of s steps, s = 2e10 / n) for n
# = 1e6 in double and mixed, SP_AB_REPS times (default 2).  Run the builds
# alternately (bench/device.sh stage ab:lrmd-ab.R:<commit>:<k>).
bench_dir <- local({ # this script's folder, where ab-common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
ab_reps <- 2
source(file.path(bench_dir, "ab-common.R"))
timed <- function(init, steps, precision) {
  x <- withr::with_options(list(statphysgpu.lrmd_variant = "mixed", statphysgpu.lrmd_fused = FALSE),
                           lrmd("hmf", init = init, dt = 0.01, steps = steps, record_every = steps,
                                backend = "gpu", precision = precision, progress = FALSE))
  attr(x, "seconds")
}
n <- 1e6
w <- hmf_waterbag(n, 1, 0.69, seed = 1)
s <- max(20, round(2e10 / n))
for (prec in c("double", "mixed")) {
  invisible(timed(hmf_waterbag(1000, 1, 0.69, seed = 1), 1, prec))
  for (i in seq_len(reps)) {
    rate <- n * 2 * s / (timed(w, 3 * s, prec) - timed(w, s, prec))
    ab_row("hmf n = 1e6 %-6s rep %d: %.4g particle-steps/s", prec, i, rate)
  }
}
