# Session 18: which part of escape_rate_ams()'s declared engine differs
# between CPU and GPU in double (test-ams-declared-gpu.R: thermal + energy
# failed; rest + position passed): the four combinations, the built-in as
# a control.  Rscript bench/s18-ams-gpu-check.R
suppressPackageStartupMessages(library(statphysgpu))
options(statphysgpu.cache_dir = tempfile("amschk"))
cat(sprintf("# s18-ams-gpu-check.R: %s, commit %s, %s\n", gpu_devices()$name[1],
            Sys.getenv("SP_COMMIT", "?"), format(Sys.time())))
run <- function(engine, backend, score, init) {
  options(statphysgpu.ams_engine = engine)
  attr(escape_rate_ams(gamma = c(0.2, 0.3), V0 = 1, beta = 1, theta = c(0.2, 0.25), dt = 0.05,
                       particles = 200, replicas = 8, k = 3, seed = 21, first_replica = 5,
                       score = score, init = init, backend = backend, precision = "double",
                       progress = FALSE), "replicas_table")
}
for (engine in c("declared", "builtin")) for (score in c("position", "energy"))
  for (init in c("rest", "thermal")) {
    sc <- if (score == "position") NULL else score
    a <- run(engine, "cpu", sc, init)
    b <- run(engine, "gpu", sc, init)
    cat(sprintf("%-8s %-8s %-7s: iterations differ in %2d of %d, n_B in %2d, n_lt_react %2d, t_start rel %.2g\n",
                engine, score, init, sum(a$iterations != b$iterations), nrow(a),
                sum(a$n_B != b$n_B), sum(a$n_lt_react != b$n_lt_react),
                max(abs(a$t_start - b$t_start) / pmax(abs(a$t_start), 1e-300))))
  }
