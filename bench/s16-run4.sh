#!/bin/sh
# Session 16, device run 5: the time terms tabulated (driven declared bench),
# then the GPU tests of the single-particle engine and the lrmd recipes.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
lim() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
SP_BENCH_REPS=3 timeout 150 Rscript bench/driven-declared.R gpu > "$OUT/driven-declared.txt" 2>&1
grep -v "^ [sx] " "$OUT/driven-declared.txt" | grep -i "declared\|built-in" | head -20
export NOT_CRAN=true
for f in sde-gpu driven-declared-gpu lrmd-declared-gpu sde-ams-gpu; do
  lim 400 && timeout $(( 430 - $(date +%s) + T0 )) Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; grep -v "^$" "$OUT/test-$f.txt" | tail -8 | cut -c1-300
done
echo "elapsed $(( $(date +%s) - T0 )) s"
