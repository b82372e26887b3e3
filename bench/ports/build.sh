#!/bin/sh
# Build the straightforward CUDA ports of bench/ports/ on the GPU host:
#   sh bench/ports/build.sh            (NVCC=..., ARCH=sm_90 by default)
# Each binary takes the size and the steps on the command line and prints
# one line "rate <value> <unit>" (kernel time by CUDA events, after a
# warm-up); bench/whole-call.R runs them when bench/ports/bin exists.
# Plain ports: one thread a path / oscillator / particle, cuRAND's Philox
# (curand_init + curand_normal), -O3 --use_fast_math, no tuning.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}
mkdir -p "$dir/bin"
for p in escape driven kuramoto hmf ring lorenz lj; do
  echo "nvcc $p.cu"
  "$NVCC" -O3 -arch="$ARCH" --use_fast_math -o "$dir/bin/$p" "$dir/$p.cu"
done
# the Lorenz port once more without --use_fast_math (IEEE logf, sincosf and
# division, as accurate as the package's own normals): bench/sde-ab.R
# compares a user model with both
echo "nvcc lorenz.cu (no fast math)"
"$NVCC" -O3 -arch="$ARCH" -o "$dir/bin/lorenz_ieee" "$dir/lorenz.cu"
