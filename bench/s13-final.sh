#!/bin/sh
# Session 13, the last device call: install; the GPU tests of what changed
# (mb-space-gpu, he4-dmc-gpu, switching); the Lennard-Jones cases and the
# first call's compile; the DMC bias benchmark beside the mb-gpu tests
# (their timings are not the point); the switching-rates benchmark alone.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( ${SP_DEADLINE:-480} - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
el installed
export NOT_CRAN=true SP_COMMIT=${SP_COMMIT:-unknown}
rt() { # rt <log> <seconds> <regex>
  (cd tests/testthat && timeout "$2" Rscript -e 'library(testthat); library(statphysgpu);
   f <- list.files(".", "^test-.*[.]R$"); f <- f[grepl(commandArgs(TRUE)[1], f)];
   for (x in f) { t1 <- Sys.time(); r <- as.data.frame(test_file(x, reporter = "summary", stop_on_failure = FALSE));
     cat(sprintf("FILE %s: %d tests, %d failed, %d skipped, error %s, %.0f s\n", x, sum(r$nb), sum(r$failed),
       sum(r$skipped), any(r$error), as.numeric(Sys.time() - t1, units = "secs"))) }' "$3") > "$OUT/$1" 2>&1
}
rt tests-a.log 90 "${SP_TESTS:-mb-space-gpu|he4-dmc-gpu}"
el tests-a; grep -h '^FILE' "$OUT/tests-a.log"
timeout 60 Rscript bench/mb-space.R gpu lj > "$OUT/lj.log" 2>&1
timeout 30 Rscript bench/mb-space.R gpu compile > "$OUT/compile.log" 2>&1
el lj; grep -E "LJ|first call" "$OUT/lj.log" "$OUT/compile.log" | grep -v "^ " | tail -6
rt tests-b.log 200 'mb-gpu' &
timeout 220 Rscript bench/he4-dmc-bias.R gpu > "$OUT/dmc-bias.log" 2>&1
el dmc; wait; grep -h '^FILE' "$OUT/tests-b.log"; grep -E "E0/N|z of|overflow [1-9]|wall" "$OUT/dmc-bias.log" | head -20
l=$(left); [ "$l" -gt 15 ] && timeout "$l" Rscript bench/switching-rates.R gpu > "$OUT/switch.log" 2>&1
el switch; grep -E "Fig. 11|gamma|ams|escape" "$OUT/switch.log" | head -30
l=$(left); [ "$l" -gt 40 ] && timeout "$l" Rscript bench/mb-space.R gpu graph > "$OUT/graph.log" 2>&1
el graph; grep -E "graph" "$OUT/graph.log" | head -3
