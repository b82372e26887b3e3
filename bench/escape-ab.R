# Same-machine comparison of two builds of the escape engine where one
# path's step latency is the cost (issue 34 item 2: Fig. 11(b) of paper 000,
# 30,000 paths under a 200 Hz ramp at h = 1e-4, latency-bound).
#
#   SP_LIB=<library holding the build> SP_LABEL=<name> Rscript bench/escape-ab.R
#
# The workload of bench/escape.R fig11's timed run (the Fig. 11(b) junction,
# 30,000 paths from gamma0 = "auto", thermal), cut to about SP_AB_SECS
# seconds (default 20) a measurement, SP_AB_REPS times (default 2), and the
# same in the fixed-bias escape variant of bench/escape.R (one path's pace,
# 30,000 paths at Delta U / theta = 30: none escapes in the run): the steps
# a second of one path, each build's own numbers (the same paths, so the
# same steps).  Run the builds alternately (bench/device.sh stage
# ab:escape-ab.R:<commit>:<k>); one row a measurement.
bench_dir <- local({ # this script's folder, where ab-common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
ab_reps <- 2
source(file.path(bench_dir, "ab-common.R"))
secs <- as.numeric(Sys.getenv("SP_AB_SECS", 20))
n <- 30000
u <- jj_units(250, 88e-15, 0.748e-6, 1.2, sweep_rate = 200 * 0.748e-6)
hh <- 1e-4
dg <- u$ramp * hh
g0 <- switching_start(u$ramp, u$V0, u$beta, u$theta, replicas = n)$gamma0
pace0 <- 8e6 # steps/s of one path expected (RESULTS: 2.4e11 useful steps/s / 30,000)
sc <- function(gmax) {
  x <- switching_currents(replicas = n, ramp = u$ramp, V0 = u$V0, beta = u$beta,
                          theta = u$theta, dt = hh, seed = 1, gamma0 = "auto",
                          gamma_max = gmax, backend = "gpu", progress = FALSE)
  attr(x, "steps")[["useful"]] / attr(x, "seconds") / n
}
et <- function(tmax) {
  DU <- barrier_height(0.5, 1)
  x <- escape_times(n, gamma = 0.5, V0 = 1, beta = 0.2, theta = DU / 30, dt = 0.01,
                    t_max = tmax, seed = 1, backend = "gpu", progress = FALSE)
  attr(x, "steps")[["useful"]] / attr(x, "seconds") / n
}
invisible(sc(g0 + 1e4 * dg))
invisible(et(100))
for (i in seq_len(reps)) {
  ab_row("fig11 rep %d: %.4g steps/s of one path (ramp, srk2, single, thermal)", i,
         sc(g0 + secs * pace0 * dg))
  ab_row("escape rep %d: %.4g steps/s of one path (fixed bias, srk2, single)", i,
         et(secs * pace0 * 0.01))
}
