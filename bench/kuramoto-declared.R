# kuramoto() on the declared many-body engine (issue 50; R/kuramoto-declared.R),
# whole calls on the issue's headline cases.  Until the built-in engine was
# deleted (issue 50, when every headline case had passed 0.97 of it: H100
# mean field 2^24 1.16 (SRK2) and 1.39 (Euler), all pairs 65,536 1.60 and
# 1.45; CPU 2^18 mean field 3.8-4.8 times; bench/RESULTS.md) this script
# timed both engines alternately; it now times the front-end alone: a
# warm-up call (compiles, caches), then `reps` calls, the medians of the
# wall seconds and of the engine's seconds, and the rates.  A comparison
# with the built-in engine needs a build before its deletion (bench/ab-common.R
# times two builds of the package).
#
#   Rscript bench/kuramoto-declared.R gpu   # mean field n = 2^24, 5000 steps; all pairs
#                                           # n = 65,536, 100 steps; SRK2 and Euler;
#                                           # single precision (K = 4, theta = 1; pairs
#                                           # K = 2, theta = 0.5), records every steps / 10
#   Rscript bench/kuramoto-declared.R cpu [n] [steps] [threads]
#                                           # mean field n = 2^18, 1000 steps, two threads,
#                                           # Euler and SRK2, single precision
#
# Prints device, commit, date and a row per case.  (SP_COMMIT names the
# commit where the checkout has no git.)
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))

mode <- bench_arg("gpu", 1)
if (!mode %in% c("gpu", "cpu")) stop("usage: Rscript bench/kuramoto-declared.R gpu|cpu [n] [steps] [threads]")
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", "3"))

if (mode == "gpu") {
  d <- gpu_first()
  dev <- d$name[1]
  backend <- "gpu"
  cases <- list(
    list(case = "mean field 2^24", n = 2^24, K = 4, theta = 1, steps = 5000, coupling = "mean_field",
         unit = "oscillator-steps/s", work = function(s) 2^24 * s),
    list(case = "all pairs 65536", n = 65536, K = 2, theta = 0.5, steps = 100, coupling = "pairs",
         unit = "pair-terms/s", work = function(s) 65536^2 * s))
} else {
  n <- as.numeric(bench_arg(2^18, 2))
  steps <- as.numeric(bench_arg(1000, 3))
  threads <- as.integer(bench_arg(2, 4))
  sp_threads(threads)
  dev <- cpu_device()
  backend <- "cpu"
  cases <- list(list(case = sprintf("mean field n = %s", format(n)), n = n, K = 4, theta = 1,
                     steps = steps, coupling = "mean_field", unit = "oscillator-steps/s",
                     work = function(s) n * s))
}
methods <- c("srk2", "euler")
if (mode == "cpu") methods <- c("euler", "srk2")

call_once <- function(cs, method, steps) {
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  x <- kuramoto(cs$n, K = cs$K, theta = cs$theta, dt = 0.01, steps = steps,
                record_every = max(1, steps / 10), coupling = cs$coupling, method = method,
                backend = backend, precision = "single", progress = FALSE, seed = 1)
  c(wall = proc.time()[["elapsed"]] - t0, engine = attr(x, "seconds"))
}

cat(sprintf("kuramoto() (the declared engine) | device %s | commit %s | %s | reps %d\n",
            dev, commit, date, reps))
for (cs in cases) for (method in methods) {
  call_once(cs, method, 2) # warm: compile, load
  td <- NULL
  for (r in seq_len(reps)) td <- rbind(td, call_once(cs, method, cs$steps))
  dd <- apply(td, 2, stats::median)
  lab <- sprintf("%s, %s, %s steps", cs$case, method, format(cs$steps))
  add(sprintf("%s: whole call", lab), dd[["wall"]], "s", note = sprintf(
    "%.4g %s; engine %.3f s (%.4g %s)", cs$work(cs$steps) / dd[["wall"]], cs$unit,
    dd[["engine"]], cs$work(cs$steps) / dd[["engine"]], cs$unit))
}
bench_print()
