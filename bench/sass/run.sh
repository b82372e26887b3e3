#!/bin/sh
# Static SASS counts of the SRK2 macro-step: escape.cu's kernel against the
# declared washboard's passage kernel (sde.cu), single and double precision
# (bench/RESULTS.md, "SASS of the SRK2 macro-step", session 18).  No GPU
# needed: nvcc -cubin -arch=sm_90 with the defines the package gives NVRTC
# (R/gpu.R escape_variants(), R/sde-compile.R sde_gpu_variant(); NVRTC's
# defaults are nvcc's: -O3, FMA contraction on), then CUDA 11.8's
# cuobjdump/nvdisasm (Debian non-free package nvidia-cuda-toolkit, unpacked
# with dpkg -x; no install needed) on the cubin with its ELF header set back
# to ABI 7 (elf_abi7.py: CUDA 13's cubins are ABI 8, which 11.8 rejects).
# 11.8 does not decode a few sm_90 opcodes newer than it (VIADD, VIMNMX): they
# are counted from the raw words (sass_unk.py).
#   SASS_TOOLS=<dir with cuobjdump, nvdisasm> sh bench/sass/run.sh [work dir]
# (the package installed, for the model's header; run from the repository root)
set -eu
W=${1:-/tmp/sass-run}
T=${SASS_TOOLS:-/tmp/apt-nf/dl/x/usr/bin}
C=$(pwd)/inst/cuda
B=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W/inc"
Rscript "$B/gen.R" "$W/inc"
defs() { sed 's/^/-D/' "$W/inc/$1.defines" | tr '\n' ' '; }
for p in single double; do
  nvcc -cubin -arch=sm_90 --std=c++17 -I"$C" -I"$W/inc" $(defs sde_$p) -o "$W/sde_$p.cubin" "$C/sde.cu" &
  nvcc -cubin -arch=sm_90 --std=c++17 -I"$C" $(defs esc_$p) -o "$W/esc_$p.cubin" "$C/escape.cu" &
done
wait
for f in sde_single sde_double esc_single esc_double; do
  python3 "$B/elf_abi7.py" "$W/$f.cubin"
  "$T/cuobjdump" -sass "$W/$f.old.cubin" > "$W/$f.cuobj"
  "$T/nvdisasm" -c "$W/$f.old.cubin" > "$W/$f.nvd"
done
cd "$B"
python3 passage_single.py "$W/sde_single.cuobj"
python3 passage_double.py "$W/sde_double"
python3 escape_round.py "$W"
