#!/bin/sh
# What session 14 could not measure (device time spent; no two-GPU machine
# lent), in the order of its value, each stage bounded.  One H100 call
# (carry .r-runtime):  sh bench/s15-first.sh
# and, where a two-GPU machine is lent, the slices:  SP_TWO=1 sh bench/s15-first.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
# each stage bounded by its own limit and by what is left of the call's
# (SP_BUDGET seconds, default 580); SP_SKIP: stages to leave out (a regex)
lim() { left=$(( ${SP_BUDGET:-580} - ($(date +%s) - t0) )); [ "$left" -lt 1 ] && left=1; [ "$left" -lt "$1" ] && echo "$left" || echo "$1"; }
skip() { echo "$1" | grep -Eq "^(${SP_SKIP:-none})$"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader
el installed
export NOT_CRAN=true
if [ "${SP_TWO:-0}" = 1 ]; then
  timeout 120 Rscript bench/mb-space.R gpu slices > "$OUT/slices.log" 2>&1
  el slices; grep -v "^$" "$OUT/slices.log" | tail -16
  timeout 250 Rscript -e 'library(testthat); test_dir("tests/testthat", filter="mb-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests2.log" 2>&1
  el tests-2gpu; grep -v "^$" "$OUT/tests2.log" | tail -12
  exit 0
fi
# issue 50: the front-ends' GPU tests, then their benchmarks
skip tests || timeout $(lim 300) Rscript -e 'library(testthat); test_dir("tests/testthat", filter="declared-gpu|he4-dmc-gpu|sde-gpu", package="statphysgpu", load_package="installed", reporter="summary")' > "$OUT/tests.log" 2>&1
el tests; grep -v "^$" "$OUT/tests.log" | tail -12
skip kur || timeout $(lim 100) Rscript bench/kuramoto-declared.R gpu > "$OUT/kur.log" 2>&1
el kuramoto; grep -E "built-in / declared" "$OUT/kur.log" | head -4
skip lrmd || timeout $(lim 120) Rscript bench/lrmd-declared.R gpu > "$OUT/lrmd.log" 2>&1
el lrmd; grep -v "^$" "$OUT/lrmd.log" | head -12
skip driven || timeout $(lim 120) Rscript bench/driven-declared.R gpu > "$OUT/driven.log" 2>&1
el driven; grep -v "^$" "$OUT/driven.log" | head -12
# issue 52, run 4: Lennard-Jones helium (energies only until a published value is read)
skip dmc || SP_DMC_TAU_REC=5 timeout $(lim 200) Rscript bench/he4-dmc-lj.R gpu > "$OUT/lj-dmc.log" 2>&1
el lj-dmc; grep -v "^$" "$OUT/lj-dmc.log" | head -20
