#!/bin/sh
# On a GPU machine (issue 34 item 5, profile first): Nsight Compute on one
# launch each of escape_times(method = "srk2") and of the same washboard as
# a user model (sde_run(), bench/common.R's bench_sde_washboard), 2^20
# paths, Delta U / theta = 6, single precision -- the two kernels whose
# ratio is 0.81 against the 0.9 target.  The package must be installed.
# Writes $OUT/sde-ncu-escape.txt and $OUT/sde-ncu-model.txt.
#   sh bench/sde-profile.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
cat > /tmp/sde-prof.R <<'RS'
bench_dir <- "bench"
source(file.path(bench_dir, "common.R"))
V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
which <- Sys.getenv("SP_WHICH", "escape")
if (which == "escape") {
  x <- escape_times(2^20, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h,
                    t_max = 1e9, method = "srk2", precision = "single", seed = 1,
                    backend = "gpu", progress = FALSE)
} else {
  washboard <- bench_sde_washboard(V0, beta, gamma, 6)
  x <- sde_run(washboard, 2^20, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 1e9,
               method = "srk2", precision = "single", seed = 1, backend = "gpu",
               progress = FALSE)
}
cat(which, ": useful steps/s", attr(x, "steps")[["useful"]] / attr(x, "seconds"), "\n")
RS
SECT="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis"
# SP_PROF_ONLY: escape or model alone; SP_PROF_TAG: a suffix of the files
# (another build: R_LIBS=<its library> SP_PROF_ONLY=model SP_PROF_TAG=old)
TAG=${SP_PROF_TAG:+-$SP_PROF_TAG}
for f in ${SP_PROF_ONLY:-escape model}; do
  if [ "$f" = escape ]; then k=sp_escape_kernel; else k=sp_sde_passage_kernel; fi
  # shellcheck disable=SC2086
  SP_WHICH=$f ncu --kernel-name $k --launch-skip 4 --launch-count 1 $SECT \
    --print-summary none Rscript /tmp/sde-prof.R > "$OUT/sde-ncu-$f$TAG.txt" 2>&1
  echo "== $f$TAG"
  grep -E "useful steps|Duration|Registers Per|Achieved Active Warps|Issue Slots Busy|Warp Cycles Per Issued|Eligible Warps|Executed Instructions  |Theoretical Active" "$OUT/sde-ncu-$f$TAG.txt"
done
