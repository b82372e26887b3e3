#!/bin/sh
# Session 16, device run 6: kuramoto() on the one engine (the built-in
# deleted): its GPU tests.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
export NOT_CRAN=true
for f in kuramoto-declared-gpu kuramoto-gpu nonfinite-gpu; do
  timeout $(( 200 - $(date +%s) + T0 )) Rscript -e "library(testthat); test_dir('tests/testthat', filter = '^$f\$', package = 'statphysgpu', load_package = 'installed', reporter = 'summary')" > "$OUT/test-$f.txt" 2>&1
  echo "== $f"; grep -v "^$" "$OUT/test-$f.txt" | tail -10 | cut -c1-300
done
echo "elapsed $(( $(date +%s) - T0 )) s"
