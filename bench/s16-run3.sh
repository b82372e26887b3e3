#!/bin/sh
# Session 16, device run 4: source chunks of pair passes, engine-drawn lrmd
# starts, the Kuramoto final phases: benchmarks, then the GPU tests.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
lim() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
[ -z "${SP_SKIP_BENCH:-}" ] && Rscript bench/kuramoto-declared.R gpu > "$OUT/kuramoto-declared.txt" 2>&1; grep -v "^ [sx] " "$OUT/kuramoto-declared.txt" | grep "/ declared"
lim 200 && [ -z "${SP_SKIP_BENCH:-}" ] && SP_BENCH_ONECHUNK=1 Rscript bench/lrmd-declared.R gpu > "$OUT/lrmd-declared.txt" 2>&1; grep "/ declared\|one chunk" "$OUT/lrmd-declared.txt" | grep -v "^ [sx] "
export NOT_CRAN=true
for f in ${SP_TESTS:-lrmd-declared-gpu kuramoto-declared-gpu mb-gpu}; do
  lim 520 && timeout $(( 560 - $(date +%s) + T0 )) Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; tail -15 "$OUT/test-$f.txt" | grep -v "^$" | cut -c1-300
done
echo "elapsed $(( $(date +%s) - T0 )) s"
