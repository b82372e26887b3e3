#!/bin/sh
# On a GPU machine (issue 34 item 2: where one path's step spends its
# cycles): the SASS of the escape kernel that Fig. 11(b) runs
# (single_srk2_ramp_thermal) and an Nsight Compute profile of one launch of
# its workload (30,000 paths, h = 1e-4, 200 Hz), when ncu is there.  The
# package must be installed.  Writes $OUT/escape-sass.txt, $OUT/escape-ncu.txt.
#   sh bench/escape-profile.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "tools: $(command -v cuobjdump) $(command -v nvdisasm) $(command -v ncu)"
Rscript -e '
  library(statphysgpu)
  v <- statphysgpu:::escape_variants()[["single_srk2_ramp_thermal"]]
  cc <- gpu_devices()$compute_capability[1]
  tg <- statphysgpu:::gpu_target(cc)
  f <- file.path(statphysgpu:::cuda_source_dir(), "escape.cu")
  bin <- statphysgpu:::nvrtc_compile(f, statphysgpu:::nvrtc_options(tg$arch, v, FALSE), TRUE)
  writeBin(bin[[2]], "/tmp/escape-variant.cubin")'
if command -v cuobjdump > /dev/null 2>&1; then
  cuobjdump -sass /tmp/escape-variant.cubin > "$OUT/escape-sass.txt" 2>&1
  echo "SASS lines: $(wc -l < "$OUT/escape-sass.txt")"
fi
cat > /tmp/escape-prof.R <<'RS'
library(statphysgpu)
n <- 30000
u <- jj_units(250, 88e-15, 0.748e-6, 1.2, sweep_rate = 200 * 0.748e-6)
dg <- u$ramp * 1e-4
g0 <- switching_start(u$ramp, u$V0, u$beta, u$theta, replicas = n)$gamma0
x <- switching_currents(replicas = n, ramp = u$ramp, V0 = u$V0, beta = u$beta,
                        theta = u$theta, dt = 1e-4, seed = 1, gamma0 = "auto",
                        gamma_max = g0 + 3e7 * dg, backend = "gpu", progress = FALSE)
cat("steps/s of one path:", attr(x, "steps")[["useful"]] / attr(x, "seconds") / n, "\n")
RS
if command -v ncu > /dev/null 2>&1; then
  ncu --kernel-name sp_escape_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section SchedulerStats --section WarpStateStats --section InstructionStats \
    --section ComputeWorkloadAnalysis --print-summary none \
    Rscript /tmp/escape-prof.R > "$OUT/escape-ncu.txt" 2>&1
  tail -120 "$OUT/escape-ncu.txt"
else
  Rscript /tmp/escape-prof.R
fi
