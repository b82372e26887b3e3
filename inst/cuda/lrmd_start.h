/* lrmd_start.h: the starts of lrmd() drawn by the engine itself --
 * hmf_waterbag(), hmf_equilibrium(), ring_uniform(), gravity2d_shell() (R
 * gives a small recipe, R/lrmd-init.R) -- one source for the CPU
 * (src/core/sp_lrmd_start.c) and the GPU (mb_recipe.cu, sp_mb_recipe_kernel).
 *
 * Random numbers: sp_philox_lrmd_init (sp_streams.h) of the start's replica
 * (0-based; lrmd(..., replicas)) and the coordinate drawn (0 the first
 * position coordinate, 1 the second, 2 the momenta), block b for particles
 * 4b .. 4b + 3 -- for replica 0, Philox purpose SP_PURPOSE_LRMD_INIT stream
 * = coordinate, the numbers the R functions drew before they became lazy.  The raw draws of particle
 * i, with u_s the uniform of stream s (sp_u01_double, exact) and the
 * parameters (a, b) of the kind:
 *   waterbag     (a = half width d, b unused):   q0 = a (2 u_0 - 1),  p = 2 u_2 - 1;
 *   equilibrium  (a = sqrt(T), b = kappa = M/T): q0 = the von Mises inverse
 *                distribution function at u_0 (tabulated, below; uniform
 *                pi (2 u_0 - 1) when kappa = 0),  p = a z, z the Box-Muller
 *                normal of stream 2 (sp_box_muller_double of the block's
 *                pairs (x, y), (z, w));
 *   ring         (a = p0):                       q0 = pi (2 u_0 - 1),  p = a (2 u_2 - 1)
 *                (0 when a = 0);
 *   shell        (a = r_in^2, b = r_out^2 - r_in^2): r = sqrt(a + b u_0),
 *                phi = 2 pi u_1, (q0, q1) = (r cos phi, r sin phi), at rest.
 * Then (the host adds the tiles' sums in tile order between the passes):
 *   waterbag     p <- (p - mean p) s, s = sqrt(2 K / mean((p - mean p)^2)),
 *                K = U - (1 - M^2)/2 with M^2 = mean(cos q0)^2 + mean(sin q0)^2
 *                of the drawn angles: the energy per particle is U exactly;
 *   equilibrium, ring (a > 0)  p <- p - mean p;
 *   shell        (q0, q1) <- (q0 - mean q0, q1 - mean q1).
 *
 * Products that feed a sum are rounded before it (sp_lrmd_mul: no fused
 * multiply-add on the GPU), so the angles of the waterbag, the ring and the
 * equilibrium are the same bits on both backends; the sums over particles
 * (and so the shifts and the scale) run in another order on the GPU, and
 * its sine and cosine round differently: momenta and the shell's
 * coordinates agree to rounding. */
#ifndef SP_LRMD_START_H
#define SP_LRMD_START_H

#include "lrmd_args.h"
#include "sp_math.h"
#include "sp_streams.h"

SP_FN double sp_lrmd_mul(double x, double y) {
#if SP_CUDA
  return __dmul_rn(x, y);
#else
  return x * y;
#endif
}

/* The von Mises inverse distribution function at u in (0, 1): linear
 * interpolation in the table (cdf, grid) of SP_LRMD_VM_GRID + 1 points, in
 * the interval i with cdf[i] <= u < cdf[i + 1] (R's approx(), which the
 * table replaces), found from the guide table. */
SP_FN double sp_lrmd_vm_theta(double u, const double *cdf, const double *grid,
                              const int32_t *guide) {
  int32_t i = guide[(int32_t)(u * (double)SP_LRMD_VM_GUIDE)];
  while (cdf[i + 1] <= u) i++; /* cdf[SP_LRMD_VM_GRID] = 1 > u */
  if (u == cdf[i]) return grid[i];
  return grid[i] + sp_lrmd_mul(grid[i + 1] - grid[i], (u - cdf[i]) / (cdf[i + 1] - cdf[i]));
}

/* The raw draws of the 4 particles of Philox block blk (pass 0): q0, q1
 * (shell) and the momenta p. */
SP_FN void sp_lrmd_start_raw(int kind, uint64_t seed, uint64_t replica, double a, double b,
                             uint64_t blk,
                             const double *cdf, const double *grid, const int32_t *guide,
                             double q0[4], double q1[4], double p[4]) {
  const double pi = 3.141592653589793238463;
  const sp_u32x4 r0 = sp_philox_lrmd_init(seed, replica, 0, blk);
  double u0[4], u[4];
  int k;
  u0[0] = sp_u01_double(r0.x);
  u0[1] = sp_u01_double(r0.y);
  u0[2] = sp_u01_double(r0.z);
  u0[3] = sp_u01_double(r0.w);
  if (kind == SP_LRMD_START_SHELL) {
    const sp_u32x4 r1 = sp_philox_lrmd_init(seed, replica, 1, blk);
    u[0] = sp_u01_double(r1.x);
    u[1] = sp_u01_double(r1.y);
    u[2] = sp_u01_double(r1.z);
    u[3] = sp_u01_double(r1.w);
    for (k = 0; k < 4; k++) {
      const double r = sp_sqrt_d(a + sp_lrmd_mul(b, u0[k]));
      double s, c;
      sp_sincos_d((2.0 * pi) * u[k], &s, &c);
      q0[k] = r * c;
      q1[k] = r * s;
      p[k] = 0;
    }
    return;
  }
  for (k = 0; k < 4; k++) q1[k] = 0;
  if (kind == SP_LRMD_START_WATERBAG)
    for (k = 0; k < 4; k++) q0[k] = a * (2.0 * u0[k] - 1.0);
  else if (kind == SP_LRMD_START_EQUILIBRIUM && b > 0)
    for (k = 0; k < 4; k++) q0[k] = sp_lrmd_vm_theta(u0[k], cdf, grid, guide);
  else
    for (k = 0; k < 4; k++) q0[k] = pi * (2.0 * u0[k] - 1.0);
  if (kind == SP_LRMD_START_RING && !(a > 0)) {
    for (k = 0; k < 4; k++) p[k] = 0;
    return;
  }
  {
    const sp_u32x4 r2 = sp_philox_lrmd_init(seed, replica, 2, blk);
    if (kind == SP_LRMD_START_EQUILIBRIUM) {
      sp_box_muller_double(r2.x, r2.y, &u[0], &u[1]);
      sp_box_muller_double(r2.z, r2.w, &u[2], &u[3]);
      for (k = 0; k < 4; k++) p[k] = a * u[k];
    } else {
      u[0] = sp_u01_double(r2.x);
      u[1] = sp_u01_double(r2.y);
      u[2] = sp_u01_double(r2.z);
      u[3] = sp_u01_double(r2.w);
      for (k = 0; k < 4; k++) p[k] = 2.0 * u[k] - 1.0;
      if (kind == SP_LRMD_START_RING)
        for (k = 0; k < 4; k++) p[k] = a * p[k];
    }
  }
}

/* Pass 0's sums of particle (q0, q1, p) into s (SP_LRMD_START_NSUMS). */
SP_FN void sp_lrmd_start_add(int kind, double q0, double q1, double p, double *s) {
  if (kind == SP_LRMD_START_SHELL) {
    s[2] += q0;
    s[3] += q1;
    return;
  }
  if (kind == SP_LRMD_START_WATERBAG) {
    double sn, cs;
    sp_sincos_d(q0, &sn, &cs);
    s[0] += cs;
    s[1] += sn;
  }
  s[2] += p;
  s[4] = p > s[4] ? p : s[4];
  s[5] = -p > s[5] ? -p : s[5];
}

/* The start of pass 0's sums of a tile. */
SP_FN void sp_lrmd_start_zero(double *s) {
  s[0] = s[1] = s[2] = s[3] = 0;
  s[4] = s[5] = sp_bits_double(0xFFF0000000000000ull); /* -Inf */
}

#if SP_CUDA
/* (the GPU's draw kernel: mb_recipe.cu's sp_mb_recipe_kernel) */
/* Block-wide sums of s[0 .. 3] and maxima of s[4], s[5], into thread 0's s
 * (a fixed tree: the same inputs give the same results). */
__device__ __forceinline__ void sp_lrmd_start_block_reduce(double s[SP_LRMD_START_NSUMS]) {
  __shared__ double red[SP_LRMD_START_NSUMS][SP_LRMD_START_THREADS / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 16; o > 0; o >>= 1) {
    for (int k = 0; k < 4; k++) s[k] += __shfl_down_sync(0xffffffffu, s[k], o);
    for (int k = 4; k < 6; k++) s[k] = fmax(s[k], __shfl_down_sync(0xffffffffu, s[k], o));
  }
  if (lane == 0)
    for (int k = 0; k < SP_LRMD_START_NSUMS; k++) red[k][warp] = s[k];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < SP_LRMD_START_THREADS / 32; w++) {
      for (int k = 0; k < 4; k++) s[k] += red[k][w];
      for (int k = 4; k < 6; k++) s[k] = fmax(s[k], red[k][w]);
    }
}
#endif

#endif /* SP_LRMD_START_H */
