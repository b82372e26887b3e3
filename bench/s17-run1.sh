#!/bin/sh
# Session 17, device run 1: the escape family built-in against declared
# (bench/s17-escape.R gpu), then the GPU tests of the front-ends moved in
# session 16 that never ran on a GPU (kuramoto-gpu, lrmd-gpu, nonfinite-gpu).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
lim() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
echo "installed $(( $(date +%s) - T0 )) s"
SP_BENCH_REPS=${SP_BENCH_REPS:-3} timeout 240 Rscript bench/s17-escape.R gpu > "$OUT/s17-escape.txt" 2>&1
cat "$OUT/s17-escape.txt" | cut -c1-400
export NOT_CRAN=true
for f in ${SP_TESTS:-kuramoto-gpu lrmd-gpu nonfinite-gpu}; do
  lim 520 && timeout $(( 560 - $(date +%s) + T0 )) Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; grep -v "^$" "$OUT/test-$f.txt" | tail -8 | cut -c1-300
done
echo "elapsed $(( $(date +%s) - T0 )) s"
