#!/bin/sh
# Session 14, issue 49: the cells' scan in chunks checked (GPU = CPU, cells
# = every pair) and profiled; the engine's LJ pass against the port's in
# detail (Nsight Compute sections of one launch each).  One device call
# (carry .r-runtime):  sh bench/s14-lj.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port-build.log" 2>&1
export NOT_CRAN=true
timeout 300 Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-space-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/test-space-gpu.log" 2>&1
tail -5 "$OUT/test-space-gpu.log"
# durations by kernel of a few mode-B steps (as bench/issue49-profile.sh)
SP_STEPS=20 timeout 200 ncu --metrics gpu__time_duration.sum --print-units base --launch-skip 40 --launch-count 60 \
  --csv Rscript bench/lj-steps.R big > "$OUT/ncu-engine-big.csv" 2> "$OUT/ncu-engine-big.err"
awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ { gsub(/[",]/, "", $NF); k = $5; t[k] += $NF; c[k]++ }
  END { for (k in t) printf "%-40s %6d launches %12.1f us in all %10.2f us each\n", k, c[k], t[k] / 1000, t[k] / c[k] / 1000 }' \
  "$OUT/ncu-engine-big.csv" | sort -k4 -n -r
# one launch each in detail
S="--section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"
SP_STEPS=20 timeout 150 ncu $S --kernel-name sp_mb_split_kernel --launch-skip 4 --launch-count 1 Rscript bench/lj-steps.R big > "$OUT/detail-engine-big.txt" 2>&1
timeout 150 ncu $S --kernel-name regex:force_move --launch-skip 4 --launch-count 1 /tmp/ljport 0 1000188 20 1 > "$OUT/detail-port-big.txt" 2>&1
SP_STEPS=20 timeout 150 ncu --metrics gpu__time_duration.sum --print-units base --launch-count 400 --csv Rscript bench/lj-steps.R small > "$OUT/ncu-engine-small.csv" 2> "$OUT/ncu-engine-small.err"
awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ { gsub(/[",]/, "", $NF); k = $5; t[k] += $NF; c[k]++ }
  END { for (k in t) printf "%-40s %6d launches %12.1f us in all %10.2f us each\n", k, c[k], t[k] / 1000, t[k] / c[k] / 1000 }' \
  "$OUT/ncu-engine-small.csv" | sort -k4 -n -r
timeout 150 ncu --metrics gpu__time_duration.sum --print-units base --launch-count 100 --csv /tmp/ljport 1 10000 20 1 > "$OUT/ncu-port-small.csv" 2> "$OUT/ncu-port-small.err"
awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ { gsub(/[",]/, "", $NF); k = substr($5, 1, 50); t[k] += $NF; c[k]++ }
  END { for (k in t) printf "%-50s %6d launches %12.1f us in all %10.2f us each\n", k, c[k], t[k] / 1000, t[k] / c[k] / 1000 }' \
  "$OUT/ncu-port-small.csv" | sort -k4 -n -r
SP_STEPS=20 timeout 150 ncu $S --kernel-name regex:sp_mb_ --launch-skip 3 --launch-count 1 Rscript bench/lj-steps.R small > "$OUT/detail-engine-small.txt" 2>&1
timeout 150 ncu $S --kernel-name regex:systems --launch-skip 3 --launch-count 1 /tmp/ljport 1 10000 20 1 > "$OUT/detail-port-small.txt" 2>&1
ls -la "$OUT"
