# A few Lennard-Jones BAOAB steps on the GPU for a profiler (bench/issue49-
# profile.sh): the model and lattice of bench/mb-space.R, one system of
# 1,000,188 particles (mode B, cells) or 10,000 of 256 (mode A): a warm-up
# call of 2 steps, then one of SP_STEPS (default 20).
#   Rscript bench/lj-steps.R [big|small]
library(statphysgpu)
src <- parse("bench/mb-space.R")
def <- vapply(src, function(e) is.call(e) && identical(e[[1]], as.name("<-")) &&
                as.character(e[[2]]) %in% c("lj_model", "fcc"), TRUE)
for (e in src[def]) eval(e)
small <- identical(commandArgs(TRUE)[1], "small")
f <- if (small) fcc(4, 0.8) else fcc(63, 0.8)
reps <- if (small) 10000 else 1
lj <- lj_model()
run <- function(k) {
  sde_run(lj, replicas = reps, n = f$n, init = list(x = f$x, y = f$y, z = f$z, vx = 0, vy = 0, vz = 0),
          dt = 0.004, t_max = k * 0.004, method = "baoab", box = f$L, output = "records",
          record_every = k, backend = "gpu", seed = 1, progress = FALSE)
}
invisible(run(2))
k <- as.integer(Sys.getenv("SP_STEPS", 20))
x <- run(k)
cat(sprintf("%d steps of %s x %s particles: engine %.4f s (%.3g particle-steps/s)\n", k,
            format(f$n, big.mark = ","), format(reps, big.mark = ","), attr(x, "seconds"),
            f$n * reps * k / attr(x, "seconds")))
