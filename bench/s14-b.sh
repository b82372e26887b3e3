#!/bin/sh
# Session 14, one call on two GPUs: the many-body GPU tests (cut-off systems
# on two GPUs bit for bit, kuramoto() on the declared engine = CPU), one LJ
# system of 1e6 on one GPU and in slices on two (bench/mb-space.R gpu
# slices), the LJ cases with mode B's register cap "auto" and the port, and
# kuramoto() declared against built-in (bench/kuramoto-declared.R gpu).
#   sh bench/s14-b.sh   (carry .r-runtime; kind nvidia-h100-x2)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
nvidia-smi --query-gpu=name --format=csv,noheader
el installed
export NOT_CRAN=true
timeout 100 Rscript bench/mb-space.R gpu slices > "$OUT/slices.log" 2>&1
el slices; grep -v "^$" "$OUT/slices.log" | tail -16
timeout 80 Rscript bench/mb-space.R gpu lj > "$OUT/lj.log" 2>&1
el lj; grep -v "^$" "$OUT/lj.log" | tail -12
wait
for a in "0 1000188 200 1" "1 10000 200 1"; do timeout 30 /tmp/ljport $a >> "$OUT/port.log" 2>&1; done
grep -E "rate" "$OUT/port.log"
timeout 150 Rscript bench/kuramoto-declared.R gpu > "$OUT/kur.log" 2>&1
el kuramoto; grep -v "^$" "$OUT/kur.log" | tail -14
timeout 200 Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-gpu|kuramoto-declared-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests.log" 2>&1
el tests; grep -v "^$" "$OUT/tests.log" | tail -25
