#!/bin/sh
# One device call for issue 49: install, the GPU tests of the new features,
# the benchmark (bench/mb-space.R gpu [quick]) and the CUDA cell-list port
# (bench/ports/lj.cu), each stage bounded so that what finished comes back.
#   SP_COMMIT=<hash> [SP_PORT=0] [SP_BENCH_S=s] sh bench/issue49-device.sh [quick|full|lj] [filter]
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
Q=${1:-quick}
F=${2:-mb-space-gpu|sde-injection}
t0=$(date +%s)
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
echo "install: $(( $(date +%s) - t0 )) s"
export SP_SKIP_INSTALL=1
SP_FILTER="$F" timeout 280 sh bench/device.sh tests 2>&1 | tail -25
timeout ${SP_BENCH_S:-200} sh bench/device.sh "bench:mb-space.R gpu $Q" 2>&1 | tail -24
if [ "${SP_PORT:-1}" = 1 ] && command -v nvcc > /dev/null 2>&1 && [ "$(( $(date +%s) - t0 ))" -lt 470 ]; then
  nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1
  for a in "0 1000188 100 1" "1 10000 100 1" "0 1000188 100 0" "1 10000 100 0"; do
    timeout 40 /tmp/ljport $a >> "$OUT/port.log" 2>&1
  done
  tail -9 "$OUT/port.log"
fi
echo "total: $(( $(date +%s) - t0 )) s"
