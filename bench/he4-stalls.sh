#!/bin/sh
# On a GPU machine with Nsight Compute: the stall reasons and the hottest
# SASS lines of one launch of the he4_vmc kernel (the 7th of the
# equilibration call of bench/he4-profile.sh's script: trial moves only, no
# measurement), for each kernel variant named (suffixes of
# statphysgpu.he4_variant).  The package must be installed.
#   sh bench/he4-stalls.sh _fast_u4 _fast_u4_usum   -> $OUT/he4-stalls<suffix>.txt
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
cat > /tmp/he4-stalls.R <<'RS'
library(statphysgpu)
options(statphysgpu.he4_variant = Sys.getenv("SP_HE4_VARIANT"))
x0 <- he4_vmc(512, replicas = "auto", blocks = 1, block_sweeps = 4, equilibration = 100,
              seed = 2, backend = "gpu", progress = FALSE)
RS
for v in "$@"; do
  SP_HE4_VARIANT=$v ncu --kernel-name sp_vmc_kernel --launch-skip 6 --launch-count 1 \
    --section WarpStateStats --section InstructionStats --section SourceCounters \
    --section ComputeWorkloadAnalysis --print-details all --print-summary none \
    Rscript /tmp/he4-stalls.R > "$OUT/he4-stalls$v.txt" 2>&1
  grep -i "stall\|Issue Slots\|Executed Instructions  \|Warp Cycles" "$OUT/he4-stalls$v.txt" | head -60
done
