#!/bin/sh
# On a GPU machine (issue 34 item 3, "profile first"): where a whole
# he4_vmc() continuation call at N = 512 spends its time -- the wall time
# against the engine's `seconds`, an R profile (Rprof) of the call -- and an
# Nsight Compute profile of one launch of its kernel, when ncu is there.
# The package must be installed.  Writes $OUT/he4-profile.txt, $OUT/he4-ncu.txt
# (SP_NO_NCU=1: no Nsight run).
#   sh bench/he4-profile.sh   (SP_HE4_VARIANT=_fast_u4: that kernel variant)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
cat > /tmp/he4-prof.R <<'RS'
library(statphysgpu)
if (nzchar(Sys.getenv("SP_HE4_VARIANT")))
  options(statphysgpu.he4_variant = Sys.getenv("SP_HE4_VARIANT"))
x0 <- he4_vmc(512, replicas = "auto", blocks = 1, block_sweeps = 4, equilibration = 100,
              seed = 2, backend = "gpu", progress = FALSE)
w <- length(attr(x0, "state")$replica)
cat(sprintf("walkers %d, equilibration call: engine %.3f s\n", w, attr(x0, "seconds")))
one <- function() he4_vmc(512, blocks = 10, block_sweeps = 20, measure_every = 2,
                          equilibration = 0, init = x0, backend = "gpu", progress = FALSE)
invisible(one())
for (i in 1:3) {
  wall <- system.time(x <- one())[["elapsed"]]
  se <- sd(vapply(split(x$energy, x$replica), mean, 0)) / sqrt(w)
  r <- tryCatch(statphysgpu:::sp_last_run(), error = function(e) NULL) # absent before 2026-11-29
  cat(sprintf("continuation %d: wall %.3f s, engine %.3f s, se %.3f mK, t sigma^2 wall %.3f, engine %.3f s mK^2%s\n",
              i, wall, attr(x, "seconds"), se * 1e3, wall * (se * 1e3)^2,
              attr(x, "seconds") * (se * 1e3)^2,
              if (is.null(r) || !"setup" %in% names(r)) "" else
                sprintf(" (C set-up %.1f ms, collect %.1f ms, R side %.1f ms)", 1e3 * r[["setup"]],
                        1e3 * r[["collect"]],
                        1e3 * (wall - attr(x, "seconds") - r[["setup"]] - r[["collect"]]))))
}
if (!nzchar(Sys.getenv("SP_NCU"))) {
  Rprof("/tmp/he4.Rprof", interval = 0.002)
  x <- one()
  Rprof(NULL)
  s <- summaryRprof("/tmp/he4.Rprof")
  print(head(s$by.total, 30))
  print(head(s$by.self, 15))
}
RS
TAG=${SP_PROF_TAG:-}
Rscript /tmp/he4-prof.R > "$OUT/he4-profile$TAG.txt" 2>&1
cat "$OUT/he4-profile$TAG.txt"
if [ -z "${SP_NO_NCU:-}" ] && command -v ncu > /dev/null 2>&1; then
  SP_NCU=1 ncu --kernel-name sp_vmc_kernel --launch-skip 6 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section SchedulerStats --section WarpStateStats --section InstructionStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --print-summary none \
    Rscript /tmp/he4-prof.R > "$OUT/he4-ncu$TAG.txt" 2>&1
  grep -v "^    OPT\|^          " "$OUT/he4-ncu$TAG.txt" | tail -90
fi
