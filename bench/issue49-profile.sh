#!/bin/sh
# Where the GPU engine's Lennard-Jones step goes against the CUDA port
# (issue 49: the engine at 0.58 of the port in mode B, 0.74 in mode A,
# H100 run 5): Nsight Compute's duration of every kernel of a few steps of
# bench/lj-steps.R (mode B, then mode A) and of bench/ports/lj.cu, summed
# by kernel name per step.  One device call (carry .r-runtime):
#   sh bench/issue49-profile.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
command -v ncu > /dev/null 2>&1 || { echo "no ncu on this machine"; exit 1; }
sh .r-runtime/install.sh > "$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; exit 1; }
R CMD INSTALL . > "$OUT/pkg.log" 2>&1 || { tail -40 "$OUT/pkg.log"; exit 1; }
nvcc -O3 -arch=sm_90 --use_fast_math -o /tmp/ljport bench/ports/lj.cu > "$OUT/port-build.log" 2>&1
# the kernels of the timed call only: skip the warm-up call's launches
# (NVTX is not used; the skip counts launches, some 10 a step and the
# starts), then 60 launches (several steps)
prof() { # prof <name> <skip> <command...>
  name=$1; skip=$2; shift 2
  timeout 200 ncu --metrics gpu__time_duration.sum --print-units base --launch-skip "$skip" --launch-count 60 \
    --csv "$@" > "$OUT/ncu-$name.csv" 2> "$OUT/ncu-$name.err"
  awk -F'","' 'NR > 1 && $0 ~ /gpu__time_duration/ { gsub(/[",]/, "", $NF); k = $5; t[k] += $NF; c[k]++ }
    END { for (k in t) printf "%-40s %6d launches %12.1f us in all %10.2f us each\n", k, c[k], t[k] / 1000, t[k] / c[k] / 1000 }' \
    "$OUT/ncu-$name.csv" | sort -k4 -n -r > "$OUT/ncu-$name.txt"
  echo "== $name"; cat "$OUT/ncu-$name.txt"
}
SP_STEPS=20 prof engine-big 40 Rscript bench/lj-steps.R big
SP_STEPS=20 prof engine-small 10 Rscript bench/lj-steps.R small
prof port-big 10 /tmp/ljport 0 1000188 20 1
prof port-small 10 /tmp/ljport 1 10000 20 1
