#!/bin/sh
# Session 18, device run (from s17-run2.sh; SP_TESTS_FIRST run before the benches): the escape family's front-ends on the built-in
# against the declared engine (bench/escape-declared.R gpu,
# bench/ams-declared.R gpu), the single-particle models alone
# (bench/s17-escape.R gpu), then GPU tests: the engine's passage
# continuation (sde-gpu), the declared escape and AMS front-ends, and the
# front-ends moved in session 16 that never ran on a GPU.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
lim() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
MAKEFLAGS=-j16 R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
echo "installed $(( $(date +%s) - T0 )) s"
export NOT_CRAN=true
for f in ${SP_TESTS_FIRST:-sde-gpu}; do
  timeout 250 Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; grep -v "^$" "$OUT/test-$f.txt" | tail -8 | cut -c1-300
done
for b in ${SP_BENCHES:-escape-declared ams-declared}; do
  lim 330 && SP_BENCH_REPS=${SP_BENCH_REPS:-3} timeout 150 Rscript bench/$b.R gpu > "$OUT/bench-$b.txt" 2>&1
  echo "== $b"; cut -c1-330 "$OUT/bench-$b.txt" | grep -v "^ *$" | tail -12
done
for v in ${SP_BPS_VARIANTS:-}; do
  lim 450 && SP_SDE_BPS=$v SP_BENCH_REPS=${SP_BENCH_REPS:-3} timeout 150 Rscript bench/escape-declared.R gpu > "$OUT/bench-escape-declared-bps$v.txt" 2>&1
  echo "== escape-declared bps $v"; cut -c1-330 "$OUT/bench-escape-declared-bps$v.txt" | grep -v "^ *$" | tail -12
done
export NOT_CRAN=true
for f in ${SP_TESTS:-escape-declared-gpu ams-declared-gpu kuramoto-gpu lrmd-gpu nonfinite-gpu}; do
  lim 520 && timeout $(( 565 - $(date +%s) + T0 )) Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; grep -v "^$" "$OUT/test-$f.txt" | tail -8 | cut -c1-300
done
echo "elapsed $(( $(date +%s) - T0 )) s"
