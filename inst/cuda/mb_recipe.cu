/* mb_recipe.cu: the starts of lrmd() (hmf_waterbag(), hmf_equilibrium(),
 * ring_uniform(), gravity2d_shell()) drawn by the many-body engine on the
 * GPU into a system's states (sde_run() of a model with n elements, its
 * start a recipe: src/gpu/sp_gpu_mb_recipe.c; R/sde-mb-run.R).  A small
 * module of its own, compiled once (not with each model's mb.cu): the
 * draws and the passes of lrmd_start.h -- those of the CPU
 * (sp_lrmd_start.c) -- a thread per
 * Philox block of 4 particles, a block per tile of SP_LRMD_START_TILE
 * particles, the tiles' sums added on the host in tile order.
 *
 * Nothing but the states is kept between the passes: each pass draws the
 * raw numbers again (a few Philox rounds a particle) and applies what the
 * passes before it found (the shift, the scale), so that a start in single
 * precision needs no array of doubles; the numbers written are the CPU's
 * doubles (angles the same bits, momenta to rounding: lrmd_start.h)
 * rounded to the states' precision as the host would round them. */
#include "lrmd_args.h"
#include "lrmd_start.h"

__device__ __forceinline__ void sp_mb_recipe_put(const sp_mb_recipe_kargs &a, int row,
                                                 uint64_t i, double v) {
  if (a.single)
    ((float *)a.x)[(uint64_t)row * a.npad + i] = (float)v;
  else
    ((double *)a.x)[(uint64_t)row * a.npad + i] = v;
}

extern "C" __global__ void __launch_bounds__(SP_LRMD_START_THREADS)
    sp_mb_recipe_kernel(const sp_mb_recipe_kargs a) {
  const uint64_t blk = (uint64_t)blockIdx.x * SP_LRMD_START_THREADS + threadIdx.x;
  const uint64_t i0 = 4 * blk;
  double s[SP_LRMD_START_NSUMS];
  sp_lrmd_start_zero(s);
  if (i0 < a.n) {
    double x[4], y[4], p[4];
    sp_lrmd_start_raw(a.kind, a.seed, a.replica, a.a, a.b, blk, a.cdf, a.grid, a.guide, x, y, p);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const uint64_t i = i0 + k;
      if (i >= a.n) break;
      if (a.pass == 0) {
        sp_lrmd_start_add(a.kind, x[k], y[k], p[k], s);
      } else if (a.kind == SP_LRMD_START_SHELL) {
        x[k] = x[k] - a.shift0;
        y[k] = y[k] - a.shift1;
      } else if (a.kind != SP_LRMD_START_WATERBAG) {
        p[k] = p[k] - a.shift0;
      } else if (a.pass == 1) {
        const double w = p[k] - a.shift0;
        s[0] += w * w;
      } else {
        p[k] = (p[k] - a.shift0) * a.scale;
      }
      if (a.write) {
        sp_mb_recipe_put(a, 0, i, x[k]);
        if (a.nx == 4) {
          sp_mb_recipe_put(a, 1, i, y[k]);
          sp_mb_recipe_put(a, 2, i, p[k]);
          sp_mb_recipe_put(a, 3, i, 0.0);
        } else {
          sp_mb_recipe_put(a, 1, i, p[k]);
        }
      }
    }
  }
  if (a.pass == 0 || (a.pass == 1 && a.kind == SP_LRMD_START_WATERBAG)) {
    sp_lrmd_start_block_reduce(s);
    if (threadIdx.x == 0)
      for (int k = 0; k < SP_LRMD_START_NSUMS; k++)
        a.partial[SP_LRMD_START_NSUMS * blockIdx.x + k] = s[k];
  }
}
