#!/bin/sh
# The last device call of issue 49's session, most important first: install,
# the new features' GPU tests, the benchmark, then the many-body GPU tests
# that came before (regressions), each bounded.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
echo "install: $(( $(date +%s) - t0 )) s"
export SP_SKIP_INSTALL=1
SP_FILTER="mb-space-gpu" timeout 100 sh bench/device.sh tests 2>&1 | tail -12
timeout ${SP_BENCH_S:-150} sh bench/device.sh "bench:mb-space.R gpu full" 2>&1 | tail -26
cp "$OUT/tests.log" "$OUT/tests-space.log" 2>/dev/null
left=$(( ${SP_LIMIT:-400} - ($(date +%s) - t0) ))
[ "$left" -gt 30 ] && SP_FILTER="mb-gpu|mb-periodic" timeout "$left" sh bench/device.sh tests 2>&1 | tail -14
echo "total: $(( $(date +%s) - t0 )) s"
