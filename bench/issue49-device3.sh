#!/bin/sh
# A short last device call: install, the new features' GPU tests, the
# Lennard-Jones cases of bench/mb-space.R.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
echo "install: $(( $(date +%s) - t0 )) s"
export SP_SKIP_INSTALL=1
timeout ${SP_BENCH_S:-60} sh bench/device.sh "bench:mb-space.R gpu lj" 2>&1 | tail -12
SP_FILTER="mb-space-gpu" timeout ${SP_TEST_S:-90} sh bench/device.sh tests 2>&1 | tail -14
echo "total: $(( $(date +%s) - t0 )) s"
