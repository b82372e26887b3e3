#!/bin/sh
# The shortest device call for issue 49 (device time nearly spent): install,
# the GPU tests of the many-body space features, the four Lennard-Jones
# cases (bench/mb-space.R gpu lj), the CUDA port at 100 steps -- each
# stage bounded by the time left of SP_DEADLINE (default 320 s).
#   SP_COMMIT=<hash> sh bench/issue49-min.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( ${SP_DEADLINE:-320} - ($(date +%s) - t0) )); }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
el "installed"
export SP_SKIP_INSTALL=1
l=$(left); [ "$l" -gt 150 ] && l=150
SP_FILTER=mb-space-gpu timeout "$l" sh bench/device.sh tests > "$OUT/tests.out" 2>&1
el "tests"; tail -14 "$OUT/tests.out"
l=$(left); [ "$l" -gt 90 ] && l=90
[ "$l" -gt 15 ] && timeout "$l" Rscript bench/mb-space.R gpu lj > "$OUT/new.log" 2>&1
el "lj"; grep -E "LJ|particle" "$OUT/new.log" | tail -6
wait
for a in "0 1000188 100 1" "1 10000 100 1" "0 1000188 100 0" "1 10000 100 0"; do
  [ "$(left)" -gt 8 ] && timeout 15 /tmp/ljport $a >> "$OUT/port.log" 2>&1
done
el "port"; tail -8 "$OUT/port.log"
