#!/bin/sh
# Session 14: issue 52's run 3 (bench/RESULTS.md "Expected before run 3"):
# two small steps and a linear limit at N = 64 and 108.
#   sh bench/s14-c.sh   (carry .r-runtime; after s14-b.sh on the same machine)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if ! Rscript -e 'library(statphysgpu)' > /dev/null 2>&1; then
  sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
  R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
fi
nvidia-smi --query-gpu=name --format=csv,noheader
SP_DMC_NS=64,108 SP_DMC_DTS=0.00025,0.0005 SP_DMC_P=4000 SP_DMC_TAU_REC=20 timeout 560 \
  Rscript bench/he4-dmc-bias.R gpu > "$OUT/dmc3.log" 2>&1
grep -v "^$" "$OUT/dmc3.log" | tail -40
