# kuramoto() on the declared many-body engine (issue 50: the option
# statphysgpu.kuramoto_engine = "declared", R/kuramoto-declared.R) against
# the built-in engine, whole calls in one process on the issue's headline
# cases.  Each case: a warm-up call of each (compiles, caches), then the
# built-in and the declared call alternated, `reps` times each; the medians
# of the wall seconds and their ratio built-in / declared (the declared
# path's speed over the built-in's: the target is >= 0.97 before the
# built-in engine may go).
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

call_once <- function(engine, cs, method, steps) {
  old <- options(statphysgpu.kuramoto_engine = engine)
  on.exit(options(old))
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  x <- kuramoto(cs$n, K = cs$K, theta = cs$theta, dt = 0.01, steps = steps,
                record_every = max(1, steps / 10), coupling = cs$coupling, method = method,
                backend = backend, precision = "single", progress = FALSE, seed = 1)
  c(wall = proc.time()[["elapsed"]] - t0, engine = attr(x, "seconds"))
}

cat(sprintf("kuramoto() built-in against declared | device %s | commit %s | %s | reps %d\n",
            dev, commit, date, reps))
for (cs in cases) for (method in methods) {
  call_once("builtin", cs, method, 2) # warm: compile, load
  call_once("declared", cs, method, 2)
  tb <- td <- NULL
  for (r in seq_len(reps)) { # alternated: a shared machine's drift hits both
    tb <- rbind(tb, call_once("builtin", cs, method, cs$steps))
    td <- rbind(td, call_once("declared", cs, method, cs$steps))
  }
  b <- apply(tb, 2, stats::median)
  dd <- apply(td, 2, stats::median)
  lab <- sprintf("%s, %s, %s steps", cs$case, method, format(cs$steps))
  add(sprintf("%s: built-in whole call", lab), b[["wall"]], "s", note = sprintf(
    "%.4g %s", cs$work(cs$steps) / b[["wall"]], cs$unit))
  add(sprintf("%s: declared whole call", lab), dd[["wall"]], "s", note = sprintf(
    "%.4g %s", cs$work(cs$steps) / dd[["wall"]], cs$unit))
  add(sprintf("%s: built-in / declared (whole call)", lab), b[["wall"]] / dd[["wall"]], "x",
      note = sprintf("engine seconds: %.3f / %.3f = %.3f", b[["engine"]], dd[["engine"]],
                     b[["engine"]] / dd[["engine"]]))
}
bench_print()
