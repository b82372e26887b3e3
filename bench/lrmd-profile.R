# A short lrmd run to profile (ncu; no nsys there) on the GPU host: the pair pass at
# small n, where a force evaluation loses 10-12 us against the large-n rate
# (bench/RESULTS.md, lrmd GPU run 3).
#   Rscript bench/lrmd-profile.R [model] [n] [steps]   (gravity2d 1e4 30)
#   ncu --clock-control none --kernel-name regex:sp_lrmd_pairs --launch-skip 30 --launch-count 3 \
#       --section SpeedOfLight --section Occupancy --section WarpStateStats \
#       Rscript bench/lrmd-profile.R
# SP_LRMD_FUSED=0: the separate passes (option statphysgpu.lrmd_fused);
# SP_LRMD_VARIANT=v: kernel variant v (option statphysgpu.lrmd_variant).
# The warm-up run takes 2 steps (6 pair passes) before the timed one.
suppressPackageStartupMessages(library(statphysgpu))
a <- commandArgs(TRUE)
model <- if (length(a) >= 1) a[1] else "gravity2d"
n <- if (length(a) >= 2) as.numeric(a[2]) else 1e4
steps <- if (length(a) >= 3) as.integer(a[3]) else 30L
init <- switch(model, ring = ring_uniform(n, p0 = 0.3, seed = 1),
               gravity2d = gravity2d_shell(n, 0.5, 1, seed = 1),
               hmf = hmf_waterbag(n, 1, 0.69, seed = 1))
options(statphysgpu.lrmd_fused = Sys.getenv("SP_LRMD_FUSED", "1") != "0")
if (nzchar(Sys.getenv("SP_LRMD_VARIANT")))
  options(statphysgpu.lrmd_variant = Sys.getenv("SP_LRMD_VARIANT"))
go <- function(k) lrmd(model, init = init, dt = 0.01, steps = k, record_every = k,
                       backend = "gpu", progress = FALSE)
invisible(go(2)) # compile, warm
x <- go(steps)
cat(sprintf("%s n = %g: %d steps in %.4g s, %.4g us a step\n", model, n, steps,
            attr(x, "seconds"), 1e6 * attr(x, "seconds") / steps))
