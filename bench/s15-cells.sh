#!/bin/sh
# Session 15, issue 49, one H100 call: the cell lists' build with a warp's
# atomics merged, a warp a cell's sort and the grid made once a build
# (mb.cu); the many-body GPU tests (CPU = GPU bit for bit on the cut-off
# systems), the Lennard-Jones cases against the port in the same call,
# mode B with registers for 8 blocks an SM, and the kernels' times (ncu).
#   sh bench/s15-cells.sh   (carry .r-runtime)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
lim() { left=$(( ${SP_BUDGET:-580} - ($(date +%s) - t0) )); [ "$left" -lt 1 ] && left=1; [ "$left" -lt "$1" ] && echo "$left" || echo "$1"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
nvidia-smi --query-gpu=name --format=csv,noheader
el installed
export NOT_CRAN=true
timeout $(lim 150) Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-space-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests.log" 2>&1
el tests; grep -v "^$" "$OUT/tests.log" | tail -14
timeout $(lim 100) Rscript bench/mb-space.R gpu lj > "$OUT/lj.log" 2>&1
el lj; grep -E "LJ|device|commit" "$OUT/lj.log" | head -14
wait
for a in "0 1000188 200 1" "1 10000 200 1"; do
  timeout $(lim 30) /tmp/ljport $a >> "$OUT/port.log" 2>&1
done
el port; grep -E "rate|port" "$OUT/port.log" | tail -4
timeout $(lim 90) Rscript bench/driven-declared.R gpu > "$OUT/driven.log" 2>&1
el driven; grep -E "whole call|engine" "$OUT/driven.log" | head -8
SP_MB_BPS=8 timeout $(lim 80) Rscript bench/mb-space.R gpu lj > "$OUT/lj-bps8.log" 2>&1
el lj-bps8; grep -E "LJ" "$OUT/lj-bps8.log" | head -8
timeout $(lim 120) Rscript -e 'library(testthat); test_dir("tests/testthat", filter="lrmd-declared-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests-lrmd.log" 2>&1
el tests-lrmd; grep -v "^$" "$OUT/tests-lrmd.log" | tail -8
SP_BENCH_MODELS=gravity2d timeout $(lim 90) Rscript bench/lrmd-declared.R gpu > "$OUT/grav.log" 2>&1
el grav; grep -E "gravity2d" "$OUT/grav.log" | head -9
if command -v ncu > /dev/null 2>&1; then
  SP_STEPS=20 timeout $(lim 90) ncu --metrics gpu__time_duration.sum --print-units base --launch-skip 40 --launch-count 60 \
    --csv Rscript bench/lj-steps.R big > "$OUT/ncu-big.csv" 2> "$OUT/ncu-big.err"
  awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ { gsub(/[",]/, "", $NF); k = $5; t[k] += $NF; c[k]++ }
    END { for (k in t) printf "%-40s %6d launches %10.2f us each\n", k, c[k], t[k] / c[k] / 1000 }' \
    "$OUT/ncu-big.csv" | sort -k4 -n -r
  el ncu
fi
timeout $(lim 250) Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests-mb.log" 2>&1
el tests-mb; grep -v "^$" "$OUT/tests-mb.log" | tail -10
