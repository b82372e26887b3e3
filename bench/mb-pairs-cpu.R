# Kuramoto all pairs on the CPU: the declared model (sde_model() with
# pairs(), run by sde_run(): the many-body CPU engine, inst/cuda/mb_cpu.h)
# against kuramoto(coupling = "pairs") on the same case (issue 50's CPU
# target: the declared whole call at least 0.97 of the built-in's).
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/mb-pairs-cpu.R [n] [steps] [threads] [reps]
#
# Defaults: n = 8192 oscillators, 20 steps, 1 thread, best of 3.  The case:
# dtheta_i = omega_i + K / n sum_j sin(theta_j - theta_i) + sqrt(2 T) dW,
# K = 2, T = 0.5, omega = 0, single precision, SRK2 and Euler, one record at
# the end; the declared model with the phases periodic (kept in [-pi, pi]
# as kuramoto() keeps them).  Each call is warmed first (compile, load);
# then the best of `reps` whole calls, by wall time and by the R process's
# CPU time (user + system: on a shared machine what the process's cores
# gave it).  The declared model runs with the default options (long runs
# take the vector object, mb_lanes.h) and with
# options(statphysgpu.sde_cpu_vector = FALSE) (the scalar object).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
n <- as.integer(bench_arg("8192", 1))
steps <- as.integer(bench_arg("20", 2))
threads <- as.integer(bench_arg("1", 3))
reps <- as.integer(bench_arg("3", 4))
old <- sp_threads(threads)
dev <- cpu_device()
echo <- "%-60s %12.4g %s"

kp <- sde_model(drift = list(theta = ~ omega + K / n * pairs(sin(theta[j] - theta))),
                noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 2, D = 0.5),
                observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
                periodic = "theta", name = "kuramoto-pairs-periodic")

# best of reps: c(wall, cpu) of evaluating f()
best <- function(f) {
  f() # warm
  t <- vapply(seq_len(reps), function(r) {
    invisible(gc())
    t0 <- proc.time()
    f()
    t <- proc.time() - t0
    c(wall = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
  }, c(wall = 0, cpu = 0))
  apply(t, 1, min)
}
for (method in c("srk2", "euler")) {
  bi <- best(function() {
    suppressWarnings(kuramoto(n, K = 2, theta = 0.5, dt = 0.01, steps = steps, coupling = "pairs",
                              record_every = steps, method = method, backend = "cpu",
                              precision = "single", progress = FALSE, seed = 1))
  })
  md <- function(vector) {
    best(function() {
      withr::with_options(list(statphysgpu.sde_cpu_vector = if (vector) "auto" else FALSE),
        sde_run(kp, 1, n = n, init = list(theta = ~ runif(-pi, pi)), dt = 0.01,
                t_max = 0.01 * steps, method = method, output = "records", record_every = steps,
                backend = "cpu", precision = "single", progress = FALSE, seed = 1))
    })
  }
  mv <- md(TRUE)
  ms <- md(FALSE)
  terms <- as.double(n) * n * steps * (if (method == "srk2") 2 else 1)
  lab <- sprintf("Kuramoto pairs n = %d, %d steps, %s single", n, steps, method)
  add(paste(lab, "kuramoto()"), terms / bi[["wall"]], "pair-terms/s",
      note = sprintf("  (wall %.3f s, cpu %.3f s)", bi[["wall"]], bi[["cpu"]]))
  add(paste(lab, "declared"), terms / mv[["wall"]], "pair-terms/s",
      note = sprintf("  (wall %.3f s, cpu %.3f s)", mv[["wall"]], mv[["cpu"]]))
  add(paste(lab, "declared, scalar object"), terms / ms[["wall"]], "pair-terms/s",
      note = sprintf("  (wall %.3f s, cpu %.3f s)", ms[["wall"]], ms[["cpu"]]))
  add(paste(lab, "declared / kuramoto()"), bi[["wall"]] / mv[["wall"]], "x",
      note = sprintf("  (by cpu time %.3f; scalar object %.3f)", bi[["cpu"]] / mv[["cpu"]],
                     bi[["cpu"]] / ms[["cpu"]]))
}
sp_threads(old)
bench_print(sprintf("mb-pairs-cpu (load %s)", paste(round(as.numeric(
  strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3]), 2), collapse = " ")))
