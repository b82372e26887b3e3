#!/bin/sh
# Session 13, device call 1: install, every GPU test file in two parallel
# R processes (the files changed since the last GPU run first), then the
# Lennard-Jones cases and the CUDA port as the time allows.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( ${SP_DEADLINE:-570} - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port.log" 2>&1 &
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
el installed
export NOT_CRAN=true SP_COMMIT=${SP_COMMIT:-unknown}
rt() { # rt <log> <regex>
  (cd tests/testthat && timeout "$(( $(left) - 100 ))" Rscript -e 'library(testthat); library(statphysgpu);
   f <- list.files(".", "^test-.*[.]R$"); f <- f[grepl(commandArgs(TRUE)[1], f)];
   for (x in f) { t1 <- Sys.time(); r <- as.data.frame(test_file(x, reporter = "summary", stop_on_failure = FALSE));
     cat(sprintf("FILE %s: %d tests, %d failed, %d skipped, error %s, %.0f s\n", x, sum(r$nb), sum(r$failed),
       sum(r$skipped), any(r$error), as.numeric(Sys.time() - t1, units = "secs"))) }' "$2") > "$OUT/$1" 2>&1
}
rt tests-a.log 'he4-dmc-gpu|mb-space-gpu|mb-gpu' &
rt tests-b.log '(ams|driven|escape|vmc|hangs|kuramoto|lrmd|nonfinite|sde|xorsat)-gpu|test-gpu[.]R|gpu-runtime|contract' &
wait
el tests; grep -h '^FILE' "$OUT"/tests-*.log
l=$(left); [ "$l" -gt 100 ] && l=100
[ "$l" -gt 20 ] && timeout "$l" Rscript bench/mb-space.R gpu lj > "$OUT/lj.log" 2>&1
el lj; grep -E "LJ|particle" "$OUT/lj.log" | tail -6
for a in "0 1000188 100 1" "1 10000 100 1" "0 1000188 100 0" "1 10000 100 0"; do
  [ "$(left)" -gt 10 ] && timeout 15 /tmp/ljport $a >> "$OUT/port.log" 2>&1
done
el port; tail -8 "$OUT/port.log"
