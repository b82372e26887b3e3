#!/bin/sh
# One device call for issue 49's speed: this tree against an earlier commit
# (.old/<commit>.tar.gz, made here by `git archive -o .old/<commit>.tar.gz
# <commit> -- DESCRIPTION NAMESPACE R src inst configure cleanup LICENSE`;
# carry .old and .r-runtime), the Lennard-Jones cases and their variants
# (bench/mb-space.R gpu variants), the CUDA port (bench/ports/lj.cu), then
# the GPU tests matching the filter, each stage bounded.
#   SP_COMMIT=<hash> sh bench/issue49-ab.sh <old commit> [filter]
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
OLD=$1
F=${2:-mb-space-gpu}
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
mkdir -p /tmp/src-old /tmp/lib-old
tar -xzf ".old/$OLD.tar.gz" -C /tmp/src-old &&
  R CMD INSTALL --library=/tmp/lib-old /tmp/src-old > "$OUT/pkg-old.log" 2>&1 || tail -20 "$OUT/pkg-old.log"
el "installed"
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
timeout 200 Rscript bench/mb-space.R gpu variants > "$OUT/new.log" 2>&1
el "new"; grep -E "LJ|particle" "$OUT/new.log" | tail -12
wait
for a in "0 1000188 200 1" "1 10000 200 1" "0 1000188 200 0" "1 10000 200 0"; do
  timeout 30 /tmp/ljport $a >> "$OUT/port.log" 2>&1
done
el "port"; tail -8 "$OUT/port.log"
SP_COMMIT=$OLD R_LIBS=/tmp/lib-old timeout 100 Rscript bench/mb-space.R gpu lj > "$OUT/old.log" 2>&1
el "old"; grep -E "LJ|particle" "$OUT/old.log" | tail -6
timeout 100 Rscript bench/mb-space.R gpu graph > "$OUT/graph.log" 2>&1
el "graph"; grep -E "graph|bound" "$OUT/graph.log" | tail -4
timeout 90 Rscript bench/mb-space.R cpu > "$OUT/cpu-new.log" 2>&1
el "cpu new"; grep -E "LJ|particle" "$OUT/cpu-new.log" | tail -3
SP_COMMIT=$OLD R_LIBS=/tmp/lib-old timeout 90 Rscript bench/mb-space.R cpu > "$OUT/cpu-old.log" 2>&1
el "cpu old"; grep -E "LJ|particle" "$OUT/cpu-old.log" | tail -3
export SP_SKIP_INSTALL=1
SP_FILTER="$F" timeout $(( 560 - ($(date +%s) - t0) )) sh bench/device.sh tests 2>&1 | tail -14
el "done"
