#!/bin/sh
# Where the declared engine's kernels spend against the built-ins' (issue
# 50): Nsight Compute over the step kernels of one call each
# (bench/s16-case.R), built-in and declared: duration, warp instructions
# executed, registers, grid, DRAM bytes, active warps; averaged per kernel.
#   sh bench/s16-profile.sh [cases...]     (one device call, carry .r-runtime)
set -u
OUT=${OUT:-/tmp/out}
W=/tmp/s16prof
mkdir -p "$OUT" "$W"
T0=$(date +%s)
lim() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
command -v ncu > /dev/null 2>&1 || { echo "no ncu on this machine"; exit 1; }
if [ ! -f /tmp/sp-installed ]; then
  sh .r-runtime/install.sh > "$W/install.log" 2>&1 || { tail -20 "$W/install.log"; exit 1; }
  R CMD INSTALL . > "$W/pkg.log" 2>&1 || { tail -40 "$W/pkg.log"; exit 1; }
  touch /tmp/sp-installed
fi
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
M=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active
K='regex:sp_(kur_mf|mb_(p1|p2|euler|split|small|cell)|lrmd_(pairs|hmf|kick|drift)|driven_kernel|sde_(fixed|tiles|passage))'
prof() { # prof <case> <engine> <steps> <skip> <count>
  name=$1-$2
  timeout 150 ncu --metrics "$M" --print-units base -k "$K" --launch-skip "$4" --launch-count "$5" \
    --csv Rscript bench/s16-case.R "$1" "$2" "$3" > "$W/ncu-$name.csv" 2> "$W/ncu-$name.err"
  echo "== $name"
  grep "whole call" "$W/ncu-$name.csv"
  awk -F'","' '$0 ~ /"[0-9]+","/ { gsub(/"/, "", $NF); gsub(/,/, "", $NF); k = $5 " | " $(NF-2); t[k] += $NF; c[k]++ }
    END { for (k in t) printf "%-75s %8d %16.6g\n", k, c[k], t[k] / c[k] }' "$W/ncu-$name.csv" | sort > "$W/ncu-$name.txt"
  cat "$W/ncu-$name.txt"
  tail -3 "$W/ncu-$name.err"
}
CASES=${*:-"kur-mf-srk2 kur-mf-euler grav ring driven"}
{ for c in $CASES; do
  case $c in
    kur-mf-*) st=20; sk=4; n=12 ;;
    grav) st=20; sk=6; n=12 ;;
    ring) st=4; sk=6; n=12 ;;
    driven) st=400; sk=2; n=6 ;;
    hmf) st=20; sk=6; n=12 ;;
  esac
  for e in builtin declared; do
    lim 540 && prof "$c" "$e" "$st" "$sk" "$n"
  done
done; } 2>&1 | tee "$OUT/profile.txt"
echo "elapsed $(( $(date +%s) - T0 )) s"
