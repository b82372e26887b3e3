#!/bin/sh
# Session 15, the last H100 call: the whole calls after the R-side cuts
# (lrmd() HMF with its start made in C; many-body starts stacked and copied
# on threads) and the GPU tests of what they touch.
#   SP_COMMIT=<hash> sh bench/s15-final.sh   (carry .r-runtime)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
lim() { left=$(( ${SP_BUDGET:-480} - ($(date +%s) - t0) )); [ "$left" -lt 1 ] && left=1; [ "$left" -lt "$1" ] && echo "$left" || echo "$1"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader
el installed
export NOT_CRAN=true
SP_BENCH_MODELS=hmf,ring timeout $(lim 90) Rscript bench/lrmd-declared.R gpu > "$OUT/lrmd.log" 2>&1
el lrmd; grep -E "whole call|engine" "$OUT/lrmd.log" | head -6
timeout $(lim 40) Rscript bench/mb-space.R gpu lj > "$OUT/lj.log" 2>&1
el lj; grep -E "^LJ" "$OUT/lj.log" | head -4
timeout $(lim 60) Rscript bench/mb-space.R gpu overhead > "$OUT/overhead.log" 2>&1
el overhead; grep -v "^$" "$OUT/overhead.log" | head -12
timeout $(lim 100) Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-space-gpu|lrmd-declared-gpu|driven-declared-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests.log" 2>&1
el tests; grep -v "^$" "$OUT/tests.log" | tail -8
timeout $(lim 130) Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-gpu|sde-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests2.log" 2>&1
el tests2; grep -v "^$" "$OUT/tests2.log" | tail -10
timeout $(lim 60) Rscript bench/kuramoto-declared.R gpu > "$OUT/kur.log" 2>&1
el kur; grep -E "built-in / declared" "$OUT/kur.log" | head -4
