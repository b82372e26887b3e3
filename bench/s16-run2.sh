#!/bin/sh
# Session 16, device run 3: the Kuramoto mean-field group pass after the
# per-element overheads went (profile, kuramoto-declared bench, GPU tests).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$(date +%s)
lim() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
sh .r-runtime/install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
R CMD INSTALL . > /tmp/pkg.log 2>&1 || { tail -40 /tmp/pkg.log; exit 1; }
touch /tmp/sp-installed
sh bench/s16-profile.sh kur-mf-srk2 kur-mf-euler > /dev/null 2>&1; cp "$OUT/profile.txt" "$OUT/profile-kur.txt"
grep -E "==|time_duration|inst_executed" "$OUT/profile-kur.txt"
lim 300 && Rscript bench/kuramoto-declared.R gpu 2>&1 | tee "$OUT/kuramoto-declared.txt" | tail -12
lim 420 && Rscript -e 'testthat::test_file("tests/testthat/test-kuramoto-declared-gpu.R", reporter = "summary")' 2>&1 | tail -8
echo "elapsed $(( $(date +%s) - T0 )) s"
