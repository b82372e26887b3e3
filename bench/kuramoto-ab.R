# Same-machine comparison of two builds of the Kuramoto mean-field engine
# (issue 23: bench/kuramoto.R measured 1.405e11 oscillator-steps/s at
# f5e5073 on 2026-11-23 and 1.215e11 at f209840 on 2026-11-25, on two
# H100 machines; is the loss the code or the host?).
#
#   SP_LIB=<library holding the build> SP_LABEL=<name> Rscript bench/kuramoto-ab.R
#
# Loads statphysgpu from SP_LIB (the build to time), then measures the
# steady-state rate of bench/kuramoto.R exactly (n = 2^24, K = 4, theta =
# 1, dt = 0.01, Lorentz frequencies of width 0.5, seed 1; two runs of s and
# 2 s steps, rate = n s / (t(2 s) - t(s)), so that set-up and the final copy
# cancel whatever `seconds` covers in that build) SP_AB_REPS times (default
# 3) for SRK2 in single precision, and once in double.  The old argument
# names (T, omega) are used: both builds take them (the new one warns).
# Run the builds alternately, several processes each, on one machine
# (bench/device.sh stage ab:kuramoto-ab.R:<commit>:<k>); one row a measurement.
bench_dir <- local({ # this script's folder, where ab-common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
ab_reps <- 3
source(file.path(bench_dir, "ab-common.R"))
n <- 2^24
timed <- function(...) {
  x <- suppressWarnings(kuramoto(..., progress = FALSE))
  attr(x, "seconds")
}
steady <- function(steps, prec) {
  a <- list(K = 4, omega = kuramoto_lorentz(0.5), T = 1, dt = 0.01, seed = 1,
            backend = "gpu", precision = prec)
  t1 <- do.call(timed, c(list(n, steps = steps, record_every = steps), a))
  t2 <- do.call(timed, c(list(n, steps = 2 * steps, record_every = 2 * steps), a))
  c(rate = n * steps / (t2 - t1), t1 = t1, t2 = t2)
}
for (prec in c("single", "double")) {
  invisible(suppressWarnings(kuramoto(n, K = 4, T = 1, dt = 0.01, steps = 2, seed = 1,
                                      backend = "gpu", precision = prec, progress = FALSE)))
  steps <- if (prec == "single") 2000 else 1000
  for (i in seq_len(if (prec == "single") reps else 1)) {
    r <- steady(steps, prec)
    ab_row("%-6s srk2 rep %d: %.4g oscillator-steps/s (%d and %d steps: %.4f, %.4f s)", prec, i,
           r[["rate"]], steps, 2 * steps, r[["t1"]], r[["t2"]])
  }
}
