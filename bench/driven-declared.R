# driven_brownian() on the declared single-particle engine (issue 50: the
# option statphysgpu.driven_engine = "declared", R/driven-declared.R)
# against the built-in engine, whole calls in one process.  Each case: a
# warm-up call of each (compiles, caches), then the built-in and the
# declared call alternated, `reps` times each (SP_BENCH_REPS, 3); the
# medians of the wall seconds and their ratio built-in / declared (the
# declared path's speed over the built-in's: the target is >= 0.97 before
# the built-in engine may go).
#
#   Rscript bench/driven-declared.R gpu   # the headline case of bench/whole-call.R
#                                         # (driven_case): 2^20 paths x 2000 periods of
#                                         # 100 steps (2e5 steps), srk2, single; and the
#                                         # sweep of bench/driven.R: 100 amplitudes x 2^15
#                                         # paths x 500 periods, srk2, single
#   Rscript bench/driven-declared.R cpu [n] [periods] [threads] [amplitudes]
#                                         # n = 2^16 paths, 20 periods of 100 steps,
#                                         # two threads, srk2 and euler, single;
#                                         # amplitudes > 1: a sweep of that many
#                                         # amplitudes (0.1 .. 10) of n paths each
#
# Each case also gives the seconds outside the engine (the whole call less
# the engine's `seconds`: R, copies, the records; issue 50), the least of
# the reps for each engine.
#
# The paper's Fig. 2 parameters (a = 4.2, omega = 4.9, f = 0.1, beta = 0.9,
# theta = 0.001).  Prints device, commit, date and a row per case.  (SP_COMMIT
# names the commit where the checkout has no git.)
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))

mode <- bench_arg("gpu", 1)
if (!mode %in% c("gpu", "cpu")) stop("usage: Rscript bench/driven-declared.R gpu|cpu [n] [periods] [threads]")
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", "3"))

if (mode == "gpu") {
  dev <- gpu_first()$name[1]
  backend <- "gpu"
  cases <- list(
    list(case = "2^20 paths, 2e5 steps", n = 2^20, a = 4.2, periods = 2000, methods = "srk2"),
    list(case = "sweep 100 amplitudes x 2^15 paths, 5e4 steps", n = 2^15,
         a = seq(0.1, 10, length.out = 100), periods = 500, methods = "srk2"))
} else {
  n <- as.numeric(bench_arg(2^16, 2))
  periods <- as.numeric(bench_arg(20, 3))
  threads <- as.integer(bench_arg(2, 4))
  na <- as.integer(bench_arg(1, 5))
  sp_threads(threads)
  dev <- cpu_device()
  backend <- "cpu"
  cases <- list(list(case = sprintf("%s%s paths, %s steps",
                                    if (na > 1) sprintf("sweep %d amplitudes x ", na) else "",
                                    format(n), format(periods * 100)),
                     n = n, a = if (na > 1) seq(0.1, 10, length.out = na) else 4.2,
                     periods = periods, methods = c("srk2", "euler")))
}

call_once <- function(engine, cs, method, periods, n = cs$n) {
  old <- options(statphysgpu.driven_engine = engine)
  on.exit(options(old))
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  x <- suppressWarnings(driven_brownian(n, a = cs$a, omega = 4.9, f = 0.1, beta = 0.9,
                                        theta = 0.001, periods = periods,
                                        steps_per_period = 100, method = method,
                                        precision = "single", seed = 1, backend = backend,
                                        progress = FALSE))
  c(wall = proc.time()[["elapsed"]] - t0, engine = attr(x, "seconds"))
}

cat(sprintf("driven_brownian() built-in against declared | device %s | commit %s | %s | reps %d\n",
            dev, commit, date, reps))
for (cs in cases) for (method in cs$methods) {
  call_once("builtin", cs, method, 2, 1024) # warm: compile, load
  call_once("declared", cs, method, 2, 1024)
  tb <- td <- NULL
  for (r in seq_len(reps)) { # alternated: a shared machine's drift hits both
    tb <- rbind(tb, call_once("builtin", cs, method, cs$periods))
    td <- rbind(td, call_once("declared", cs, method, cs$periods))
  }
  b <- apply(tb, 2, stats::median)
  dd <- apply(td, 2, stats::median)
  work <- cs$n * length(cs$a) * cs$periods * 100
  lab <- sprintf("%s, %s", cs$case, method)
  add(sprintf("%s: built-in whole call", lab), b[["wall"]], "s",
      note = sprintf("%.4g path-steps/s", work / b[["wall"]]))
  add(sprintf("%s: declared whole call", lab), dd[["wall"]], "s",
      note = sprintf("%.4g path-steps/s", work / dd[["wall"]]))
  add(sprintf("%s: built-in / declared (whole call)", lab), b[["wall"]] / dd[["wall"]], "x",
      note = sprintf("engine seconds: %.3f / %.3f = %.3f", b[["engine"]], dd[["engine"]],
                     b[["engine"]] / dd[["engine"]]))
  add(sprintf("%s: built-in outside the engine (least)", lab), min(tb[, 1] - tb[, 2]), "s",
      note = "whole call less engine seconds")
  add(sprintf("%s: declared outside the engine (least)", lab), min(td[, 1] - td[, 2]), "s",
      note = "whole call less engine seconds")
}
bench_print()
