#!/bin/sh
# Session 14, last H100 call: kuramoto() declared against built-in again
# (the copy-free final phases), then issue 52's run 4: Lennard-Jones helium
# by DMC at N = 108 (bench/he4-dmc-lj.R, 5 K^-1 recorded).
#   sh bench/s14-d.sh   (carry .r-runtime)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
el installed
timeout 100 Rscript bench/kuramoto-declared.R gpu > "$OUT/kur.log" 2>&1
el kuramoto; grep -E "built-in|declared" "$OUT/kur.log" | head -12
SP_DMC_TAU_REC=5 timeout 260 Rscript bench/he4-dmc-lj.R gpu > "$OUT/lj-dmc.log" 2>&1
el lj-dmc; grep -v "^$" "$OUT/lj-dmc.log" | head -30
