# Session 17 (issue 50 item 2): escape_rate_ams() on its built-in engine
# against the declared one (options(statphysgpu.ams_engine = "declared"):
# the washboard as an sde_model() on sde_ams()'s engine), whole calls
# (elapsed seconds of the R call) and the engine's own seconds.
#
#   Rscript bench/ams-declared.R [gpu|cpu]
#
# Case: bench/ams.R's (gamma = 0.2, V0 = 1, beta = 40, dt = 0.01, SRK2,
# single precision, saddle, start at rest), Delta U / theta = SP_RATIO (10),
# N = 100 particles, k = 5, SP_REPLICAS replicas (CPU: 2 x threads; GPU:
# "auto"), seed 1; engines alternated, the first pair warms (compiles and
# loads), medians of SP_BENCH_REPS pairs.  Also the energy score and the
# thermal start (score = "energy", init = "thermal").  The engines' nanoseconds
# a step (engine seconds over the steps of all replicas) compare the same
# work where the two engines' paths differ (thermal starts).
suppressPackageStartupMessages(library(statphysgpu))
be <- commandArgs(TRUE)[1]
if (is.na(be)) be <- "gpu"
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", 5))
ratio <- as.numeric(Sys.getenv("SP_RATIO", 10))
nrep <- Sys.getenv("SP_REPLICAS", if (be == "gpu") "auto" else as.character(2 * sp_threads()))
nrep <- if (nrep == "auto") "auto" else as.numeric(nrep)
dev <- if (be == "gpu") gpu_devices()$name[1] else sprintf("cpu, %d threads", sp_threads())
cat(sprintf("# ams-declared.R %s: %s, commit %s, %s\n", be, dev, Sys.getenv("SP_COMMIT", "?"),
            format(Sys.time())))
g <- 0.2; V0 <- 1; beta <- 40; dt <- 0.01
theta <- barrier_height(g, V0) / ratio
one <- function(engine, ...) {
  options(statphysgpu.ams_engine = engine)
  t0 <- proc.time()[["elapsed"]]
  x <- escape_rate_ams(g, V0, beta, theta, dt, particles = 100, replicas = nrep, k = 5,
                       seed = 1, backend = be, precision = "single", progress = FALSE, ...)
  list(s = proc.time()[["elapsed"]] - t0, e = attr(x, "seconds"), x = x,
       n = sum(attr(x, "replicas_table")$steps))
}
for (cs in list(list(label = "rest, position"),
                list(label = "thermal, energy", score = "energy", init = "thermal"))) {
  args <- cs[setdiff(names(cs), "label")]
  b <- d <- list(s = numeric(), e = numeric(), ns = numeric())
  for (i in 0:reps) {
    wb <- do.call(one, c(list("builtin"), args))
    wd <- do.call(one, c(list("declared"), args))
    if (i == 0) next
    b$s <- c(b$s, wb$s); b$e <- c(b$e, wb$e); d$s <- c(d$s, wd$s); d$e <- c(d$e, wd$e)
    b$ns <- c(b$ns, 1e9 * wb$e / wb$n); d$ns <- c(d$ns, 1e9 * wd$e / wd$n)
  }
  m <- stats::median
  cat(sprintf(paste0("%-16s DU/theta %g, %s replicas: built-in %.3f s (engine %.3f)  declared ",
                     "%.3f s (engine %.3f)  built-in/declared whole %.3f engine %.3f  ",
                     "mfpt %.4g +- %.2g / %.4g +- %.2g\n"),
              cs$label, ratio, format(nrow(attr(wb$x, "replicas_table"))), m(b$s), m(b$e),
              m(d$s), m(d$e), m(b$s) / m(d$s), m(b$e) / m(d$e), wb$x$mfpt, wb$x$mfpt_se,
              wd$x$mfpt, wd$x$mfpt_se))
  # the thermal starts draw from other streams (R/ams-declared.R): the
  # engines then do different numbers of steps, equal in law; the engine's
  # nanoseconds a step compare the same work
  cat(sprintf(paste0("%-16s  engine ns a step (all threads' steps): built-in %.2f  declared %.2f  ",
                     "built-in/declared %.3f  (steps %.4g / %.4g)\n"), "", m(b$ns), m(d$ns),
              m(b$ns) / m(d$ns), wb$n, wd$n))
  cat(sprintf("%-16s  runs (s): built-in %s | declared %s\n", "",
              paste(format(b$s, digits = 3), collapse = " "),
              paste(format(d$s, digits = 3), collapse = " ")))
}
