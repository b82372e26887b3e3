#!/bin/sh
# Session 18, device run 2: the declared AMS's CPU/GPU difference
# (s18-ams-gpu-check.R), escape_times()'s whole call outside the engine
# (s18-escape-overhead.R), then GPU tests never run (SP_TESTS) in what is
# left of SP_LIMIT seconds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
LIM=${SP_LIMIT:-340}
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
MAKEFLAGS=-j16 R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
echo "installed $(( $(date +%s) - T0 )) s"
timeout 120 Rscript bench/s18-ams-gpu-check.R > "$OUT/ams-check.txt" 2>&1; tail -12 "$OUT/ams-check.txt"
timeout 90 Rscript bench/s18-escape-overhead.R gpu > "$OUT/escape-overhead.txt" 2>&1; tail -30 "$OUT/escape-overhead.txt"
export NOT_CRAN=true
for f in ${SP_TESTS:-nonfinite-gpu kuramoto-gpu lrmd-gpu}; do
  left=$(( LIM - $(date +%s) + T0 ))
  [ $left -gt 20 ] || break
  timeout $left Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; grep -v "^$" "$OUT/test-$f.txt" | tail -8 | cut -c1-300
done
echo "elapsed $(( $(date +%s) - T0 )) s"
