# sin() and cos() of a user model in the CPU's vector loop over paths
# (sde_lanes.h), double against single precision (issue 50: the double
# sine and cosine of sp_math.h choose their quadrant by bits, so that GCC
# vectorises a model's loop that calls them).  One thread, the option
# statphysgpu.sde_cpu_vector = TRUE, 2^14 paths x 2000 SRK2 steps (dt
# 0.01), moments recorded at the end: engine seconds, the best of `reps`
# (SP_BENCH_REPS, 3; a shared machine), and ns a path-step.  Then
# driven_brownian() in double precision, built-in against declared
# (statphysgpu.driven_engine), 2^14 paths x 20 periods of 100 SRK2 steps,
# one thread, engine seconds, best of `reps`.
#
#   Rscript bench/sde-sincos-cpu.R [paths] [steps]
#
# To compare two builds, install each into its own library and run the
# script with R_LIBS=<library> for each, alternating (bench/RESULTS.md).
# Prints device, commit, date and a row per case.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))

n <- as.numeric(bench_arg(2^14, 1))
steps <- as.numeric(bench_arg(2000, 2))
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", "3"))
sp_threads(1)
dev <- cpu_device()
cat(sprintf("model sin/cos in the CPU's vector loop | device %s | commit %s | %s | %s | best of %d\n",
            dev, commit, date, find.package("statphysgpu"), reps))

wb <- function(f) {
  sde_model(drift = list(x = ~ v, v = stats::as.formula(call("~", call("-", quote(f - beta * v), f)))),
            noise = list(v = ~ 0.3), params = c(f = 0.5, beta = 0.9),
            name = paste0("sincos-bench-", deparse(f)))
}
cases <- list(list(f = quote(sin(x)), prec = "double"), list(f = quote(cos(x)), prec = "double"),
              list(f = quote(sin(x)), prec = "single"), list(f = quote(cos(x)), prec = "single"))
best <- function(run) {
  invisible(run()) # compile, load, warm
  min(vapply(seq_len(reps), function(i) {
    invisible(gc())
    attr(run(), "seconds")
  }, 0))
}
withr_opt <- function(opts, expr) {
  old <- options(opts)
  on.exit(options(old))
  expr
}
for (cs in cases) {
  m <- wb(cs$f)
  s <- withr_opt(list(statphysgpu.sde_cpu_vector = TRUE), best(function() {
    sde_run(m, n, init = list(x = 0, v = 0), dt = 0.01, t_max = steps * 0.01, output = "moments",
            record_every = steps, method = "srk2", precision = cs$prec, seed = 1, backend = "cpu",
            progress = FALSE)
  }))
  add(sprintf("v' = f - beta v - %s, %s, srk2, engine", deparse(cs$f), cs$prec), s, "s",
      note = sprintf("  %.1f ns a path-step", 1e9 * s / (n * steps)))
}
for (engine in c("builtin", "declared")) {
  s <- withr_opt(list(statphysgpu.driven_engine = engine), best(function() {
    suppressWarnings(driven_brownian(n, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001,
                                     periods = 20, steps_per_period = 100, method = "srk2",
                                     precision = "double", seed = 1, backend = "cpu",
                                     progress = FALSE))
  }))
  add(sprintf("driven_brownian() double, srk2, %s, engine", engine), s, "s",
      note = sprintf("  %.1f ns a path-step", 1e9 * s / (n * 2000)))
}
bench_print(brief = TRUE)
