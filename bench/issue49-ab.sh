#!/bin/sh
# One device call for issue 49's speed: this tree against an earlier commit
# (.old/<commit>.tar.gz, made here by `git archive -o .old/<commit>.tar.gz
# <commit> -- DESCRIPTION NAMESPACE R src inst configure cleanup LICENSE`;
# carry .old and .r-runtime): the Lennard-Jones cases and their variants
# (bench/mb-space.R gpu variants), the CUDA port (bench/ports/lj.cu), the
# GPU tests matching the filter, the old commit's Lennard-Jones cases, the
# CPU cases (new and old, one thread of this host) and the graph Kuramoto
# cases, each stage bounded and skipped when the call's 560 s would not
# hold it.
#   SP_COMMIT=<hash> sh bench/issue49-ab.sh <old commit> [filter]
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
OLD=$1
F=${2:-mb-space-gpu}
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( ${SP_DEADLINE:-560} - ($(date +%s) - t0) )); }
# stage <seconds> <log> <command...>: run it bounded by the time left
stage() {
  s=$1; log=$2; shift 2
  l=$(left); [ "$l" -lt 20 ] && { el "skipped $log"; return; }
  [ "$s" -gt "$l" ] && s=$l
  timeout "$s" "$@" > "$OUT/$log" 2>&1
  el "$log"
}
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
if [ "${SP_OLD_RUNS:-1}" = 1 ]; then
mkdir -p /tmp/src-old /tmp/lib-old
(tar -xzf ".old/$OLD.tar.gz" -C /tmp/src-old &&
  R CMD INSTALL --library=/tmp/lib-old /tmp/src-old > "$OUT/pkg-old.log" 2>&1) &
fi
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
el "installed"
stage 120 new.log Rscript bench/mb-space.R gpu variants
grep -E "LJ|particle" "$OUT/new.log" | tail -10
wait
for a in "0 1000188 200 1" "1 10000 200 1" "0 1000188 200 0" "1 10000 200 0"; do
  timeout 30 /tmp/ljport $a >> "$OUT/port.log" 2>&1
done
el "port"; tail -8 "$OUT/port.log"
export SP_SKIP_INSTALL=1
stage 140 tests.out env SP_FILTER="$F" sh bench/device.sh tests
tail -12 "$OUT/tests.out"
# then, as the time allows: other benchmarks named in SP_EXTRA ("script args;script args")
echo "${SP_EXTRA:-}" | tr ';' '\n' | while read -r x; do
  [ -z "$x" ] && continue
  stage 330 "extra-$(echo "$x" | tr -c 'A-Za-z0-9\n' '_').log" sh -c "Rscript bench/$x"
  tail -15 "$OUT/extra-$(echo "$x" | tr -c 'A-Za-z0-9\n' '_').log"
done
if [ "${SP_OLD_RUNS:-1}" = 1 ]; then
stage 70 old.log env SP_COMMIT=$OLD R_LIBS=/tmp/lib-old Rscript bench/mb-space.R gpu lj
grep -E "LJ|particle" "$OUT/old.log" | tail -5
stage 60 cpu-new.log Rscript bench/mb-space.R cpu
grep -E "LJ|particle" "$OUT/cpu-new.log" | tail -4
stage 60 cpu-old.log env SP_COMMIT=$OLD R_LIBS=/tmp/lib-old Rscript bench/mb-space.R cpu
grep -E "LJ|particle" "$OUT/cpu-old.log" | tail -4
fi
stage 100 graph.log Rscript bench/mb-space.R gpu graph
grep -E "graph|bound" "$OUT/graph.log" | tail -4
el "done"
