#!/bin/sh
# Session 14, issue 49, one H100 call: the many-body GPU tests (the pair
# loops rewritten, the cells' scan in chunks, cut-off systems in slices on
# one GPU's streams), the Lennard-Jones cases and their variants (bench/
# mb-space.R gpu variants) and the CUDA port in the same call.
#   sh bench/s14-a.sh   (carry .r-runtime)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
el installed
export NOT_CRAN=true
timeout 150 Rscript bench/mb-space.R gpu variants > "$OUT/lj.log" 2>&1
el lj; grep -E "LJ|particle|device|commit" "$OUT/lj.log" | tail -14
wait
for a in "0 1000188 200 1" "1 10000 200 1" "0 1000188 200 0" "1 10000 200 0"; do
  timeout 30 /tmp/ljport $a >> "$OUT/port.log" 2>&1
done
el port; grep -E "rate|port" "$OUT/port.log" | tail -8
timeout 300 Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-gpu|mb-space-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests.log" 2>&1
el tests; grep -v "^$" "$OUT/tests.log" | tail -25
