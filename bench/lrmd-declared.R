# lrmd() on the declared many-body engine (issue 50; R/lrmd-declared.R),
# whole calls on the issue's headline cases (as bench/lrmd.R "whole"
# defined them).  Until the built-in engine was deleted (issue 50, when
# every headline case had passed 0.97 of it: H100 whole calls built-in /
# declared HMF 5e7 1.30, ring 1e5 1.05, gravity2d 1e4 1.09, 1e5 1.16,
# records every 10 1.31; CPU, two threads, 1.21-4.30; bench/RESULTS.md)
# this script timed both engines alternately; it now times the front-end
# alone: a warm-up call (compiles, caches), then `reps` calls
# (SP_BENCH_REPS, default 3), the medians of the wall seconds and of the
# engine's seconds, and the rates.  A comparison with the built-in engine
# needs a build before its deletion (bench/ab-common.R times two builds of
# the package).  Precision "mixed" (lrmd()'s default: the declared model in
# single precision); on the CPU also "double".
#
#   Rscript bench/lrmd-declared.R gpu    # HMF n = 5e7 from hmf_waterbag(1, 0.69), dt = 0.05,
#                                        # 1000 steps; ring n = 1e5 from ring_uniform(p0 = 0.3),
#                                        # dt = 0.01, 100 steps; gravity2d n = 1e4 (1000 steps)
#                                        # and 1e5 (100 steps) from gravity2d_shell(0.5, 1),
#                                        # dt = 0.01; records at the start and end; and
#                                        # gravity2d n = 1e4 with records every 10 steps
#                                        # (lrmd()'s default: the declared path keeps the
#                                        # states there for the half-mass radius)
#   Rscript bench/lrmd-declared.R cpu [n_hmf] [steps_hmf] [n_ring] [steps_ring] [threads]
#                                     [n_grav] [steps_grav]
#                                        # defaults HMF 1e6 x 100, ring 4000 x 20, two threads,
#                                        # gravity2d 3000 x 20 (and with records every 10 steps)
#   SP_BENCH_MODELS=gravity2d (a comma-separated list) runs only those models' cases.
#   SP_BENCH_ONECHUNK=1 also times the call with one source chunk
#                      (option statphysgpu.mb_pair_chunks = FALSE: the pair passes as
#                      before session 16's chunks), alternated with the others.
#
# Prints device, commit, date and a row per case.  (SP_COMMIT names the
# commit where the checkout has no git.)
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))

mode <- bench_arg("gpu", 1)
if (!mode %in% c("gpu", "cpu")) {
  stop(paste("usage: Rscript bench/lrmd-declared.R gpu|cpu [n_hmf] [steps_hmf] [n_ring]",
             "[steps_ring] [threads] [n_grav] [steps_grav]"))
}
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", "3"))

if (mode == "gpu") {
  d <- gpu_first()
  dev <- d$name[1]
  backend <- "gpu"
  cases <- list(list(model = "hmf", n = 5e7, steps = 1000, dt = 0.05),
                list(model = "ring", n = 1e5, steps = 100, dt = 0.01),
                list(model = "gravity2d", n = 1e4, steps = 1000, dt = 0.01),
                list(model = "gravity2d", n = 1e5, steps = 100, dt = 0.01),
                list(model = "gravity2d", n = 1e4, steps = 1000, dt = 0.01, every = 10))
} else {
  threads <- as.integer(bench_arg(2, 6))
  sp_threads(threads)
  dev <- cpu_device()
  backend <- "cpu"
  cases <- list(list(model = "hmf", n = as.numeric(bench_arg(1e6, 2)),
                     steps = as.numeric(bench_arg(100, 3)), dt = 0.05),
                list(model = "ring", n = as.numeric(bench_arg(4000, 4)),
                     steps = as.numeric(bench_arg(20, 5)), dt = 0.01),
                list(model = "gravity2d", n = as.numeric(bench_arg(3000, 7)),
                     steps = as.numeric(bench_arg(20, 8)), dt = 0.01),
                list(model = "gravity2d", n = as.numeric(bench_arg(3000, 7)),
                     steps = as.numeric(bench_arg(20, 8)), dt = 0.01, every = 10))
}
only <- Sys.getenv("SP_BENCH_MODELS")
if (nzchar(only)) {
  cases <- Filter(function(cs) cs$model %in% strsplit(only, ",")[[1]], cases)
}

make_init <- function(cs) {
  switch(cs$model, hmf = hmf_waterbag(cs$n, 1, 0.69, seed = 1),
         ring = ring_uniform(cs$n, p0 = 0.3, seed = 1),
         gravity2d = gravity2d_shell(cs$n, 0.5, 1, seed = 1))
}
precisions <- if (mode == "gpu") "mixed" else c("mixed", "double")
onechunk <- Sys.getenv("SP_BENCH_ONECHUNK") == "1"
call_once <- function(cs, steps, precision, chunks = TRUE) {
  old <- options(statphysgpu.mb_pair_chunks = chunks)
  on.exit(options(old))
  init <- make_init(cs) # (a lazy start: each engine draws it where it runs, the GPU included)
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  x <- lrmd(cs$model, init = init, dt = cs$dt, steps = steps,
            record_every = min(steps, if (is.null(cs$every)) steps else cs$every),
            backend = backend, precision = precision, progress = FALSE)
  c(wall = proc.time()[["elapsed"]] - t0, engine = attr(x, "seconds"))
}

cat(sprintf("lrmd() (the declared engine) | device %s | commit %s | %s | reps %d\n",
            dev, commit, date, reps))
for (cs in cases) for (prec in precisions) {
  call_once(cs, 2, prec) # warm: compile, load
  if (onechunk) call_once(cs, 2, prec, chunks = FALSE)
  td <- t1 <- NULL
  for (r in seq_len(reps)) { # alternated: a shared machine's drift hits both
    td <- rbind(td, call_once(cs, cs$steps, prec))
    if (onechunk) t1 <- rbind(t1, call_once(cs, cs$steps, prec, chunks = FALSE))
  }
  dd <- apply(td, 2, stats::median)
  work <- if (cs$model == "hmf") cs$n * cs$steps else 3 * cs$n^2 * cs$steps
  unit <- if (cs$model == "hmf") "particle-steps/s" else "pair-terms/s"
  lab <- sprintf("%s n = %s, yoshida4, %s steps%s, %s", cs$model, format(cs$n),
                 format(cs$steps), if (is.null(cs$every)) "" else
                   sprintf(" (records every %d)", cs$every), prec)
  add(sprintf("%s: whole call", lab), dd[["wall"]], "s",
      note = sprintf("%.4g %s; engine %.3f s (%.4g %s)", work / dd[["wall"]], unit,
                     dd[["engine"]], work / dd[["engine"]], unit))
  if (onechunk) {
    d1 <- apply(t1, 2, stats::median)
    add(sprintf("%s: one chunk / chunks (whole call)", lab), d1[["wall"]] / dd[["wall"]], "x",
        note = sprintf("engine seconds: %.3f / %.3f", d1[["engine"]], dd[["engine"]]))
  }
}
bench_print()
