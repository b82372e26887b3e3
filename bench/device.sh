#!/bin/sh
# On the GPU machine (no R there): unpack the R runtime, install the package,
# then run the named stages, logging each under $OUT.
#   SP_COMMIT=<commit from here> sh bench/device.sh tests bench-escape bench-rng
# (give the commit literally: the copy of the tree on that machine may carry
# a stale .git)
#
# Stages:
#   tests                the test files matching SP_FILTER (default
#                        "gpu|contract|escape") -> tests.log
#   bench:<script> [args]   Rscript bench/<script> args -> bench-<script>.log,
#                        e.g. "bench:lrmd.R replicas gpu 64 1000,2000,4000"
#   ports                bench/ports/build.sh (the straightforward CUDA ports
#                        that bench/whole-call.R and others run when built)
#   old:<commit>         install .old/<commit>.tar.gz (made here by
#                        `git archive -o .old/<commit>.tar.gz <commit> --
#                        DESCRIPTION NAMESPACE R src inst configure cleanup
#                        LICENSE`; carry .old) into /tmp/lib-<commit>
#   ab:<script>:<commit>:<k>   bench/<script> (kuramoto-ab.R, he4-ab.R)
#                        alternately on the build of <commit> (old:<commit>
#                        first) and this tree's, k processes each -> ab.log
#   bench-escape, bench-rng   as bench:escape.R gpu, bench:rng.R
#   anything else        Rscript -e "<stage>"
# SP_SKIP_INSTALL=1: the package is installed already (a warm machine).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if [ "${SP_SKIP_INSTALL:-0}" != 1 ] || ! command -v Rscript > /dev/null 2>&1; then
  sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
  R CMD INSTALL . >> "$OUT/install.log" 2>&1 || { tail -40 "$OUT/install.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
export SP_COMMIT=${SP_COMMIT:-unknown}
export NOT_CRAN=${NOT_CRAN:-true} # the tests that skip_on_cran() run here
for stage in "$@"; do
  t0=$(date +%s)
  case "$stage" in
    tests)
      (cd tests/testthat && Rscript -e 'library(testthat); library(statphysgpu);
        r <- as.data.frame(test_dir(".", filter = Sys.getenv("SP_FILTER", "gpu|contract|escape"),
                                     reporter = "summary", stop_on_failure = FALSE));
        print(r[, c("file", "nb", "failed", "skipped", "error", "real")]);
        cat(sprintf("%d tests, %d failed, %d skipped, %d files with errors\n", sum(r$nb),
                    sum(r$failed), sum(r$skipped), length(unique(r$file[r$error]))))' \
        > "$OUT/tests.log" 2>&1); tail -40 "$OUT/tests.log" ;;
    bench-escape) Rscript bench/escape.R gpu > "$OUT/bench-escape.log" 2>&1; tail -25 "$OUT/bench-escape.log" ;;
    bench-rng) Rscript bench/rng.R > "$OUT/bench-rng.log" 2>&1; tail -25 "$OUT/bench-rng.log" ;;
    bench:*)
      cmd=${stage#bench:}
      log="$OUT/bench-$(echo "$cmd" | tr -c 'A-Za-z0-9.\n-' '_' | cut -c1-60).log"
      # shellcheck disable=SC2086
      Rscript bench/$cmd > "$log" 2>&1
      tail -30 "$log" ;;
    ports) sh bench/ports/build.sh > "$OUT/ports.log" 2>&1; tail -3 "$OUT/ports.log" ;;
    old:*)
      c=${stage#old:}
      mkdir -p "/tmp/src-$c" "/tmp/lib-$c"
      tar -xzf ".old/$c.tar.gz" -C "/tmp/src-$c" &&
        R CMD INSTALL --library="/tmp/lib-$c" "/tmp/src-$c" > "$OUT/install-$c.log" 2>&1 ||
        { tail -20 "$OUT/install-$c.log"; }
      tail -2 "$OUT/install-$c.log" ;;
    ab:*)
      rest=${stage#ab:}
      script=${rest%%:*}
      rest=${rest#*:}
      c=${rest%%:*}
      k=${rest#*:}
      i=0
      while [ "$i" -lt "$k" ]; do
        SP_LIB="/tmp/lib-$c" SP_LABEL="$c" Rscript "bench/$script" >> "$OUT/ab.log" 2>&1
        SP_LABEL="this-tree" Rscript "bench/$script" >> "$OUT/ab.log" 2>&1
        i=$((i + 1))
      done
      grep '^ab ' "$OUT/ab.log" || tail -20 "$OUT/ab.log" ;;
    *) Rscript -e "$stage" 2>&1 | tee -a "$OUT/extra.log" | tail -20 ;;
  esac
  echo "stage $stage: $(( $(date +%s) - t0 )) s"
done
