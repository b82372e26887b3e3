/* rng.cu: Philox draws on the GPU (philox_uint32/uniform/normal with
 * backend = "gpu"), and normals generated and reduced on the device (the
 * random-number benchmark and large-sample GPU tests). */
#include "philox.h"
#include "rng_args.h"

/* Values 4 g0 .. 4 g0 + m - 1 of a request into out[0 .. m-1]. */
extern "C" __global__ void __launch_bounds__(SP_RNG_BLOCK)
sp_philox_fill_kernel(const sp_philox_fill_args a) {
  const int kind = a.kind, single = a.single;
  const uint64_t seed = a.seed, stream = a.stream, offset = a.offset, g0 = a.g0, m = a.m;
  double *out = a.out;
  uint64_t ngroups = (m + 3) / 4;
  uint64_t step = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < ngroups;
       i += step) {
    double v[4];
    sp_philox_group(kind, single, seed, stream, offset, g0 + i, v);
    uint64_t b = 4 * i;
    if (b + 4 <= m) {
      double2 *o = (double2 *)(out + b);
      o[0] = make_double2(v[0], v[1]);
      o[1] = make_double2(v[2], v[3]);
    } else {
      for (int k = 0; k < 4; k++)
        if (b + k < m) out[b + k] = v[k];
    }
  }
}

/* Sum over a block; the result is valid in thread 0. */
__device__ __forceinline__ double sp_block_sum(double x, double *smem) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) smem[warp] = x;
  __syncthreads();
  x = threadIdx.x < (blockDim.x >> 5) ? smem[lane] : 0.0;
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
  return x;
}

/* Adds the block's sums of s and ss to acc[0] and acc[1]. */
__device__ __forceinline__ void sp_block_add_moments(double s, double ss, double *smem,
                                                     double *acc) {
  s = sp_block_sum(s, smem);
  ss = sp_block_sum(ss, smem);
  if (threadIdx.x == 0) {
    atomicAdd(acc, s);
    atomicAdd(acc + 1, ss);
  }
}

/* Sum and sum of squares of normals 4 g0 .. 4 (g0 + ngroups) - 1, added to
 * acc[0], acc[1]; nothing is written per value.  One kernel per precision,
 * so that the single-precision one is not compiled for the double one's
 * registers and stack (CUDA's double sincos keeps a slow-path array). */
extern "C" __global__ void __launch_bounds__(SP_RNG_BLOCK)
sp_philox_normal_moments_single(const sp_philox_moments_args a) {
  const uint64_t seed = a.seed, stream = a.stream, offset = a.offset, g0 = a.g0,
                 ngroups = a.ngroups;
  double *acc = a.acc;
  __shared__ double smem[32];
  double s = 0.0, ss = 0.0;
  uint64_t step = (uint64_t)gridDim.x * blockDim.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  while (i < ngroups) {
    /* float partial sums over at most 256 values, then double */
    float fs = 0.0f, fss = 0.0f;
    for (int k = 0; k < 64 && i < ngroups; k++, i += step) {
      sp_u32x4 r = sp_philox_draws4(seed, stream, offset + 4 * (g0 + i));
      float z0, z1, z2, z3;
      sp_box_muller_float(r.x, r.y, &z0, &z1);
      sp_box_muller_float(r.z, r.w, &z2, &z3);
      fs += (z0 + z1) + (z2 + z3);
      fss += (z0 * z0 + z1 * z1) + (z2 * z2 + z3 * z3);
    }
    s += fs;
    ss += fss;
  }
  sp_block_add_moments(s, ss, smem, acc);
}

extern "C" __global__ void __launch_bounds__(SP_RNG_BLOCK)
sp_philox_normal_moments_double(const sp_philox_moments_args a) {
  const uint64_t seed = a.seed, stream = a.stream, offset = a.offset, g0 = a.g0,
                 ngroups = a.ngroups;
  double *acc = a.acc;
  __shared__ double smem[32];
  double s = 0.0, ss = 0.0;
  uint64_t step = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < ngroups;
       i += step) {
    sp_u32x4 r = sp_philox_draws4(seed, stream, offset + 4 * (g0 + i));
    double z0, z1, z2, z3;
    sp_box_muller_double(r.x, r.y, &z0, &z1);
    sp_box_muller_double(r.z, r.w, &z2, &z3);
    s += (z0 + z1) + (z2 + z3);
    ss += (z0 * z0 + z1 * z1) + (z2 * z2 + z3 * z3);
  }
  sp_block_add_moments(s, ss, smem, acc);
}
