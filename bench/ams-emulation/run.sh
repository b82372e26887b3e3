#!/bin/sh
# Host emulation of the AMS GPU engine (no GPU needed): src/gpu/sp_gpu_ams.c
# and the GPU round driver run against emulate_gpu.c, a stand-in for the CUDA
# layer whose "kernels" are the bodies of inst/cuda/ams.cu written as host
# loops over the same ams.h pieces; check.c compares every replica with the
# CPU engine (sp_ams_cpu) byte for byte.  From the repository root:
#   sh bench/ams-emulation/run.sh
# Arguments of each check: single (0/1), devices (1..3), srk2 (0/1), score
# (0 position, 1 energy), k (killed at least per level; default 3).
set -e
d=$(dirname "$0")
out=${TMPDIR:-/tmp}/ams-emulation
cd "$d/../../src"
gcc -O2 -fopenmp -I../inst/cuda -I. ../bench/ams-emulation/check.c \
  ../bench/ams-emulation/emulate_gpu.c gpu/sp_gpu_ams.c gpu/sp_gpu_run.c core/sp_ams.c \
  core/sp_ams_engine.c core/sp_run.c core/sp_error.c -lm -o "$out"
for a in "0 1 1 0" "0 2 1 0" "1 3 0 0" "0 1 0 1" "1 2 1 1" "0 3 1 1" "1 1 1 0 1" "0 2 1 1 1"; do
  "$out" $a | tail -1
done
# rounds split into branch launches of at most 7 tasks
for a in "1 2 1 0 1" "0 3 1 1"; do
  MOCK_THREADS=7 "$out" $a | tail -1
done
