#!/bin/sh
# On the GPU machine (no R there): unpack the R runtime, install the package,
# then run the named stages, logging each under $OUT.
#   SP_COMMIT=<commit from here> sh bench/device.sh tests bench-escape bench-rng
# (give the commit literally: the copy of the tree on that machine may carry
# a stale .git)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . >> "$OUT/install.log" 2>&1 || { tail -40 "$OUT/install.log"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
export SP_COMMIT=${SP_COMMIT:-unknown}
for stage in "$@"; do
  t0=$(date +%s)
  case "$stage" in
    tests)
      (cd tests/testthat && Rscript -e 'library(testthat); library(statphysgpu);
        r <- as.data.frame(test_dir(".", filter = Sys.getenv("SP_FILTER", "gpu|contract|escape"),
                                     reporter = "summary", stop_on_failure = FALSE));
        cat(sprintf("%d tests, %d failed, %d skipped\n", sum(r$nb), sum(r$failed), sum(r$skipped)))' \
        > "$OUT/tests.log" 2>&1); tail -30 "$OUT/tests.log" ;;
    bench-escape) Rscript bench/escape.R gpu > "$OUT/bench-escape.log" 2>&1; tail -25 "$OUT/bench-escape.log" ;;
    bench-rng) Rscript bench/rng.R > "$OUT/bench-rng.log" 2>&1; tail -25 "$OUT/bench-rng.log" ;;
    *) Rscript -e "$stage" 2>&1 | tee -a "$OUT/extra.log" | tail -20 ;;
  esac
  echo "stage $stage: $(( $(date +%s) - t0 )) s"
done
