/* lrmd.cu: long-range molecular dynamics (paper 004) on the GPU.  The
 * physics is that of lrmd.h, as on the CPU (one header for both): HMF,
 * ring and gravity2d under Yoshida's 4th-order step, positions and momenta
 * in double, pair terms in SP_REAL (float for "mixed", double) added into
 * double accumulators.
 *
 * Compiled per precision: SP_REAL=float with SP_REAL_SINGLE ("mixed"), or
 * SP_REAL=double.
 *
 * HMF: one fused pass per drift of a step (sp_lrmd_hmf_kernel): the kick
 * by the preceding kick coefficient from the magnetisation of the previous
 * pass (slot stage - 1 of `sums`; the sine and cosine of the angle are
 * computed again rather than stored), the drift, the sine and cosine of
 * the new angle, a block reduction of (cos, sin) in double and the grid
 * reduction: the last block to finish (a counter, the threadFenceReduction
 * pattern of the CUDA samples) adds the blocks' partial sums in block
 * order into slot `stage`.  Four passes a step, no host round trip; each
 * reads and writes the angle and the momentum once (32 bytes a particle,
 * 24 for the first pass, which does not kick): 120 bytes a particle-step.
 *
 * Ring and gravity2d: a drift pass (sp_lrmd_drift_kernel: drift, then the
 * sine and cosine, or x and y, in the working precision) and a tiled
 * all-pairs pass with the kick fused (sp_lrmd_pairs_kernel): one thread per
 * target particle, the sources loaded tile by tile into shared memory in
 * the working precision (paper 004, section 3), each pair term added into
 * a double accumulator in source order.
 *
 * Records (sp_lrmd_energy_kernel): per block, the kinetic energy, the
 * potential sum (all pairs for ring and gravity2d) and (sum cos, sum sin)
 * or the virial sum, in double; the host adds the blocks in block order. */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#ifndef SP_LRMD_BLOCK
#  define SP_LRMD_BLOCK 256
#endif
#define SP_LRMD_WARPS (SP_LRMD_BLOCK / 32)

typedef SP_REAL sp_lrmd_real; /* the arrays of lrmd_args.h */

#include "lrmd.h"

typedef SP_REAL real;

/* Block-wide sum of four doubles, the result in thread 0 (a fixed tree:
 * the same inputs give the same sums). */
__device__ __forceinline__ void sp_lrmd_block_sum4(double v[4]) {
  __shared__ double red[4][SP_LRMD_WARPS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int k = 0; k < 4; k++)
    for (int o = 16; o > 0; o >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], o);
  if (lane == 0)
    for (int k = 0; k < 4; k++) red[k][warp] = v[k];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; k++) {
      double s = 0;
      for (int w = 0; w < SP_LRMD_WARPS; w++) s += red[k][w];
      v[k] = s;
    }
  __syncthreads();
}

/* HMF: [kick,] drift, sincos, block and grid reduction (see the top). */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_hmf_kernel(const sp_lrmd_kargs a) {
  __shared__ bool last;
  double v[4] = {0, 0, 0, 0}, Mx = 0, My = 0;
  const uint64_t stride = (uint64_t)gridDim.x * SP_LRMD_BLOCK;
  if (a.kick) {
    const double *m = a.sums + 2 * (a.stage - 1);
    Mx = m[0] / (double)a.n;
    My = m[1] / (double)a.n;
  }
  for (uint64_t i = a.i0 + (uint64_t)blockIdx.x * SP_LRMD_BLOCK + threadIdx.x; i < a.i1; i += stride) {
    double p = a.p0[i], q = a.q0[i];
    real s, c;
    if (a.kick) { /* sin, cos of the angle again: cheaper than storing them */
      SP_LR(sp_lrmd_prepare)(SP_LRMD_HMF, q, 0.0, &s, &c);
      p += a.d * sp_lrmd_hmf_force((double)s, (double)c, Mx, My);
      a.p0[i] = p;
    }
    q += a.c * p;
    a.q0[i] = q;
    SP_LR(sp_lrmd_prepare)(SP_LRMD_HMF, q, 0.0, &s, &c);
    v[0] += (double)c;
    v[1] += (double)s;
  }
  sp_lrmd_block_sum4(v);
  if (threadIdx.x == 0) {
    a.partial[2 * blockIdx.x] = v[0];
    a.partial[2 * blockIdx.x + 1] = v[1];
    __threadfence();
    last = atomicAdd(a.count, 1u) == gridDim.x - 1u;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  {
    const volatile double *pp = a.partial;
    double w[4] = {0, 0, 0, 0};
    for (int b = threadIdx.x; b < (int)gridDim.x; b += SP_LRMD_BLOCK) {
      w[0] += pp[2 * b];
      w[1] += pp[2 * b + 1];
    }
    sp_lrmd_block_sum4(w);
    if (threadIdx.x == 0) {
      a.sums[2 * a.stage] = w[0];
      a.sums[2 * a.stage + 1] = w[1];
      *a.count = 0;
    }
  }
}

/* Ring, gravity2d: drift by c, then what the pair pass reads. */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_drift_kernel(const sp_lrmd_kargs a) {
  const uint64_t stride = (uint64_t)gridDim.x * SP_LRMD_BLOCK;
  const int two_d = a.model == SP_LRMD_GRAVITY2D;
  for (uint64_t i = a.i0 + (uint64_t)blockIdx.x * SP_LRMD_BLOCK + threadIdx.x; i < a.i1; i += stride) {
    double q0 = a.q0[i] + a.c * a.p0[i], q1 = 0;
    real w0, w1;
    a.q0[i] = q0;
    if (two_d) {
      q1 = a.q1[i] + a.c * a.p1[i];
      a.q1[i] = q1;
    }
    SP_LR(sp_lrmd_prepare)(a.model, q0, q1, &w0, &w1);
    a.w0[i] = w0;
    a.w1[i] = w1;
  }
}

/* All-pairs sums for target i (valid or not: every thread helps load the
 * tiles): ENERGY 0, the force components; 1, the potential and virial sums. */
template <int ENERGY>
__device__ __forceinline__ void sp_lrmd_pair_sums(const sp_lrmd_kargs &a, uint64_t i, bool valid,
                                                  double *s0, double *s1) {
  __shared__ real t0[SP_LRMD_BLOCK], t1[SP_LRMD_BLOCK];
  const real wi0 = valid ? a.w0[i] : (real)0, wi1 = valid ? a.w1[i] : (real)0;
  const real eps = (real)a.eps, eps2 = (real)(a.eps * a.eps);
  double acc0 = 0, acc1 = 0;
  for (uint64_t j0 = 0; j0 < a.n; j0 += SP_LRMD_BLOCK) {
    const uint64_t j = j0 + threadIdx.x;
    const int m = a.n - j0 < SP_LRMD_BLOCK ? (int)(a.n - j0) : SP_LRMD_BLOCK;
    __syncthreads();
    if (j < a.n) {
      t0[threadIdx.x] = a.w0[j];
      t1[threadIdx.x] = a.w1[j];
    }
    __syncthreads();
    if (a.model == SP_LRMD_RING) {
#pragma unroll 8
      for (int k = 0; k < m; k++) {
        real f, v;
        SP_LR(sp_lrmd_ring_pair)(wi0, wi1, t0[k], t1[k], eps, &f, &v);
        if (ENERGY) acc0 += (double)v;
        else acc0 += (double)f;
      }
    } else {
#pragma unroll 8
      for (int k = 0; k < m; k++) {
        real x, y;
        if (ENERGY) SP_LR(sp_lrmd_grav_energy)(wi0, wi1, t0[k], t1[k], eps2, &x, &y);
        else SP_LR(sp_lrmd_grav_pair)(wi0, wi1, t0[k], t1[k], eps2, &x, &y);
        acc0 += (double)x;
        acc1 += (double)y;
      }
    }
  }
  *s0 = acc0;
  *s1 = acc1;
}

/* Ring, gravity2d: forces on the targets [i0, i1) and the kick by d. */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_pairs_kernel(const sp_lrmd_kargs a) {
  const uint64_t i = a.i0 + (uint64_t)blockIdx.x * SP_LRMD_BLOCK + threadIdx.x;
  const bool valid = i < a.i1;
  double f0, f1;
  sp_lrmd_pair_sums<0>(a, i, valid, &f0, &f1);
  if (!valid) return;
  if (a.model == SP_LRMD_RING) {
    a.p0[i] += -a.d * sp_lrmd_ring_kappa((double)a.n) * f0;
  } else {
    const double s = -a.d / (double)a.n;
    a.p0[i] += s * f0;
    a.p1[i] += s * f1;
  }
}

/* A record's block sums of the particles [i0, i1): kinetic energy,
 * potential sum, then (sum cos, sum sin) (HMF, ring) or (virial sum, 0). */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_energy_kernel(const sp_lrmd_kargs a) {
  const uint64_t i = a.i0 + (uint64_t)blockIdx.x * SP_LRMD_BLOCK + threadIdx.x;
  const bool valid = i < a.i1;
  double v[4] = {0, 0, 0, 0}, s0 = 0, s1 = 0;
  if (a.model != SP_LRMD_HMF) sp_lrmd_pair_sums<1>(a, i, valid, &s0, &s1);
  if (valid) {
    const double p0 = a.p0[i], p1 = a.model == SP_LRMD_GRAVITY2D ? a.p1[i] : 0.0;
    v[0] = 0.5 * (p0 * p0 + p1 * p1);
    if (a.model == SP_LRMD_GRAVITY2D) {
      v[1] = s0;
      v[2] = s1;
    } else {
      real sn, cs;
      if (a.model == SP_LRMD_HMF) SP_LR(sp_lrmd_prepare)(SP_LRMD_HMF, a.q0[i], 0.0, &sn, &cs);
      else {
        sn = a.w0[i];
        cs = a.w1[i];
      }
      v[1] = s0;
      v[2] = (double)cs;
      v[3] = (double)sn;
    }
  }
  sp_lrmd_block_sum4(v);
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; k++) a.partial[SP_LRMD_NSUMS * blockIdx.x + k] = v[k];
}
