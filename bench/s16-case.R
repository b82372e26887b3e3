# One call of a front-end on the built-in or the declared engine, for a
# profiler (bench/s16-profile.sh: Nsight Compute over its kernels):
#   Rscript bench/s16-case.R <case> <engine> [steps]
# case: kur-mf-srk2, kur-mf-euler (n = 2^22, single), ring (1e5, mixed),
#       grav (gravity2d 1e4, mixed), hmf (5e6, mixed), driven (2^20 paths,
#       srk2, single); engine: builtin or declared.  A warm-up call of two
#       steps first (compile, load), then the profiled call.
suppressPackageStartupMessages(library(statphysgpu))
a <- commandArgs(trailingOnly = TRUE)
case <- a[1]
engine <- a[2]
steps <- if (length(a) >= 3) as.numeric(a[3]) else 20
opt <- switch(sub("-.*", "", case), kur = "statphysgpu.kuramoto_engine",
              driven = "statphysgpu.driven_engine", "statphysgpu.lrmd_engine")
options(structure(list(engine), names = opt))
one <- function(steps) {
  switch(case,
    "kur-mf-srk2" = , "kur-mf-euler" =
      kuramoto(2^22, K = 4, theta = 1, dt = 0.01, steps = steps, record_every = steps,
               coupling = "mean_field", method = sub("kur-mf-", "", case), backend = "gpu",
               precision = "single", progress = FALSE, seed = 1),
    ring = lrmd("ring", init = ring_uniform(1e5, p0 = 0.3, seed = 1), dt = 0.01, steps = steps,
                record_every = steps, backend = "gpu", progress = FALSE),
    grav = lrmd("gravity2d", init = gravity2d_shell(1e4, 0.5, 1, seed = 1), dt = 0.01,
                steps = steps, record_every = steps, backend = "gpu", progress = FALSE),
    hmf = lrmd("hmf", init = hmf_waterbag(5e6, 1, 0.69, seed = 1), dt = 0.05, steps = steps,
               record_every = steps, backend = "gpu", progress = FALSE),
    driven = suppressWarnings(driven_brownian(2^20, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9,
                                              theta = 0.001, periods = max(1, steps / 100),
                                              backend = "gpu", precision = "single",
                                              progress = FALSE, seed = 1)),
    stop("unknown case ", case))
}
invisible(one(2))
t0 <- proc.time()[["elapsed"]]
x <- one(steps)
cat(sprintf("%s %s steps %g: whole call %.3f s, engine %.3f s\n", case, engine, steps,
            proc.time()[["elapsed"]] - t0, attr(x, "seconds")))
