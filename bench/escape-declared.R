# Issue 50 item 2: escape_times() and switching_currents() on the built-in
# escape engine against the same calls on the declared engine
# (options(statphysgpu.escape_engine = "declared"), R/escape-declared.R),
# whole calls (elapsed seconds of the R call), alternated, medians.
#
#   Rscript bench/escape-declared.R [gpu|cpu]
#
# Cases (single precision, seed 1):
#  * escape: the washboard of bench/sde-ab.R (V0 = 1, beta = 0.2, gamma =
#    0.5, dt = 0.01, Delta U / theta = 6), every path escaping (t_max 1e9),
#    Euler and SRK2; 2^20 paths on the GPU, 2^11 on the CPU (SP_N);
#  * sweep: 16 biases gamma = 0.40 .. 0.55 at Delta U(0.5) / theta = 6,
#    SRK2; 2^16 paths a condition (GPU), 2^7 (CPU) (SP_NS);
#  * ramp: Fig. 11(b)'s junction (bench/escape-ab.R), 30,000 paths (GPU;
#    2,000 on the CPU, SP_NR) from gamma0 = "auto", thermal, h = 1e-4,
#    SRK2, to a gamma_max some SP_RAMP_SECS seconds away (GPU) or SP_STEPS
#    steps (CPU).
suppressPackageStartupMessages(library(statphysgpu))
be <- commandArgs(TRUE)[1]
if (is.na(be)) be <- "gpu"
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", 3))
options(statphysgpu.cache_dir = tempfile("escdecl"))
# SP_SDE_BPS: the passage kernel's registers capped for this many blocks an
# SM (option statphysgpu.sde_blocks_per_sm; 0 or unset: no cap)
bps <- as.integer(Sys.getenv("SP_SDE_BPS", "0"))
options(statphysgpu.sde_blocks_per_sm = bps)
dev <- if (be == "gpu") gpu_devices()$name[1] else sprintf("cpu, %d threads", sp_threads())
cat(sprintf("# escape-declared.R %s: %s, commit %s, %s, sde_blocks_per_sm %d\n", be, dev,
            Sys.getenv("SP_COMMIT", "?"), format(Sys.time()), bps))
engines <- c("builtin", "declared")
timed <- function(f) {
  out <- list()
  for (i in 0:reps) for (e in engines) { # i = 0 warms (compiles, loads)
    options(statphysgpu.escape_engine = e)
    t0 <- proc.time()[["elapsed"]]
    x <- suppressWarnings(f())
    s <- proc.time()[["elapsed"]] - t0
    if (i > 0) out[[e]] <- rbind(out[[e]], c(s = s, e = attr(x, "seconds"),
                                            r = attr(x, "steps")[["useful"]] / attr(x, "seconds"),
                                            m = mean(x$value), esc = mean(x$escaped)))
  }
  out
}
row <- function(case, o) {
  b <- apply(o$builtin, 2, stats::median); d <- apply(o$declared, 2, stats::median)
  cat(sprintf("%-30s built-in %.4f s (engine %.4f)  declared %.4f s (engine %.4f)  whole %.3f  engine %.3f  means %.6g / %.6g  escaped %.4f / %.4f\n",
              case, b[["s"]], b[["e"]], d[["s"]], d[["e"]], b[["s"]] / d[["s"]], b[["e"]] / d[["e"]],
              b[["m"]], d[["m"]], b[["esc"]], d[["esc"]]))
}
V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
n <- as.numeric(Sys.getenv("SP_N", if (be == "gpu") 2^20 else 2^11))
for (m in c("euler", "srk2")) {
  row(sprintf("escape %s %g", m, n), timed(function()
    escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h, t_max = 1e9,
                 method = m, precision = "single", seed = 1, backend = be, progress = FALSE)))
}
ns <- as.numeric(Sys.getenv("SP_NS", if (be == "gpu") 2^16 else 2^7))
row(sprintf("sweep srk2 16 x %g", ns), timed(function()
  escape_times(ns, gamma = seq(0.40, 0.55, by = 0.01), V0 = V0, beta = beta, theta = DU / 6,
               dt = h, t_max = 1e9, method = "srk2", precision = "single", seed = 1,
               backend = be, progress = FALSE)))
u <- jj_units(250, 88e-15, 0.748e-6, 1.2, sweep_rate = 200 * 0.748e-6)
hh <- 1e-4
nr <- as.numeric(Sys.getenv("SP_NR", if (be == "gpu") 30000 else 2000))
g0 <- switching_start(u$ramp, u$V0, u$beta, u$theta, replicas = nr)$gamma0
steps <- if (be == "gpu") as.numeric(Sys.getenv("SP_RAMP_SECS", 4)) * 8e6 else
  as.numeric(Sys.getenv("SP_STEPS", 2e6))
row(sprintf("ramp srk2 %g x %g steps", nr, steps), timed(function()
  switching_currents(replicas = nr, ramp = u$ramp, V0 = u$V0, beta = u$beta, theta = u$theta,
                     dt = hh, seed = 1, gamma0 = "auto", gamma_max = g0 + steps * u$ramp * hh,
                     init = "thermal", backend = be, progress = FALSE)))
