/* driven.cu: ensembles of driven Brownian particles on the GPU (paper 001,
 * PROG1; the model and its steps are driven.h's).
 *
 * Compiled per variant with -D options:
 *   SP_REAL=float -DSP_REAL_SINGLE -DSP_FAST_SIN  or  SP_REAL=double
 *   SP_DRV_HEUN=1 (srk2) or 0 (euler)
 *   SP_DRV_MINBLOCKS=k: registers capped for k blocks an SM (below)
 *
 * One thread per path (Algorithm 1 of 001): a launch loads the path's state
 * from global memory into registers, advances it by `nsteps` steps and
 * stores it back.  Every path of the run is at the same step, so the drive
 * cos(omega t) of a step is one entry of a table shared by all paths
 * (omega t = 2 pi j / spp exactly, time kept modulo the period as the
 * integer phase j): a uniform, cached load per step instead of a cosine per
 * path (the drive at a step's end is that at the next one's start: one load
 * a step).  The steps run in macro-steps of four, one Philox block (four
 * normals in registers) each, with a head and a tail of single steps where
 * a launch starts or ends inside a block.  Path p draws from its own
 * Philox stream whatever thread or device runs it.  With a density
 * requested, every period end counts the paths in the coarse-grained
 * position histogram on the device (warp-aggregated atomics). */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#ifndef SP_DRV_HEUN
#  define SP_DRV_HEUN 1
#endif
/* Blocks an SM that the register allocation must allow (__launch_bounds__):
 * 1 leaves it free (72 registers in single SRK2, 7 blocks); 10 holds single
 * SRK2 to 48 registers without spills (10 blocks, 40 warps an SM). */
#ifndef SP_DRV_MINBLOCKS
#  define SP_DRV_MINBLOCKS 1
#endif

typedef SP_REAL sp_driven_real; /* the state arrays of driven_args.h */

#include "driven.h"

typedef SP_REAL sp_real;

/* A path in registers, and what its bookkeeping needs. */
struct sp_drv_path {
  SP_DRIVEN(sp_driven_par) par;
  sp_real x, v, s2; /* x: y of x = m + y (driven.h) */
  int32_t m;
  double acc2;
  long long keep; /* keep slot 0, or -1 */
  uint64_t cond;  /* condition */
  unsigned int j; /* phase: the next step starts at omega t = 2 pi j / spp */
  sp_real c0;     /* the drive table at j: cos(2 pi j / spp) */
  unsigned long long period; /* periods finished */
};

/* Count the path in the density at period q (a.dens != 0).  All threads
 * of the launch reach a period end together, so the warp's paths are
 * counted at once: lanes with the same slot are merged (__match_any_sync)
 * and their leader adds the count with one atomic, instead of one atomic
 * per path.  Integer counts: the result does not depend on the order. */
__device__ __forceinline__ void sp_drv_count(const sp_driven_kargs &a, const sp_drv_path &P,
                                             uint64_t q) {
  const unsigned long long g =
      (P.cond * (a.periods + 1) + q) * ((uint64_t)a.bins + 2) +
      sp_driven_dens_slot(P.m, P.x < (sp_real)0, a.dens_lo, a.bins);
  const unsigned mask = __activemask();
  const unsigned peers = __match_any_sync(mask, g);
  if ((int)(threadIdx.x & 31) == __ffs(peers) - 1)
    atomicAdd(a.dens + g, (unsigned long long)__popc(peers));
}

/* One step with normal z (the drive cos(omega t) at its start in P.c0, read
 * by the previous step: one table load a step), and the bookkeeping after
 * it: v^2 when the launch is after the transient (AFTER; a launch never
 * straddles the transient's end, sp_gpu_driven.c), period ends. */
template <bool AFTER>
__device__ __forceinline__ void sp_drv_step(const sp_driven_kargs &a, sp_drv_path &P,
                                            sp_real z) {
  const sp_real c1 = __ldg(a.drive + P.j + 1);
  SP_DRIVEN(sp_driven_step)(&P.par, SP_DRV_HEUN, P.c0, c1, &P.x, &P.v, z);
  SP_DRIVEN(sp_driven_wrap)(&P.x, &P.m);
  P.c0 = c1;
  if (AFTER) P.s2 += P.v * P.v;
  if (++P.j == a.spp) {
    P.j = 0;
    P.c0 = __ldg(a.drive); /* cos 0 (the table's last entry, cos 2 pi, is the same 1) */
    P.period++;
    if (AFTER) {
      P.acc2 += (double)P.s2;
      P.s2 = 0;
    }
    if (P.keep >= 0) {
      a.keep_x[P.keep + P.period] = (double)P.m + (double)P.x;
      a.keep_v[P.keep + P.period] = (double)P.v;
    }
    if (a.dens) sp_drv_count(a, P, P.period);
  }
}

/* The launch's nsteps steps from step k0: a head from inside a Philox block
 * to its end, whole blocks of four steps, a tail that starts a block. */
template <bool AFTER>
__device__ __forceinline__ void sp_drv_run(const sp_driven_kargs &a, sp_drv_path &P,
                                           uint64_t stream) {
  sp_real z[4];
  unsigned int s = 0;
  uint64_t blk = a.k0 >> 2;
  if (a.k0 & 3) {
    sp_u32x4 rr = sp_philox_purpose_block(a.seed, SP_PURPOSE_DRIVEN_STEPS, stream, blk);
    SP_DRIVEN(sp_driven_normals)(rr, &z[0], &z[1], &z[2], &z[3]);
    for (unsigned int q = (unsigned int)(a.k0 & 3); q < 4 && s < a.nsteps; q++, s++)
      sp_drv_step<AFTER>(a, P, q == 1 ? z[1] : (q == 2 ? z[2] : z[3]));
    blk++;
  }
  for (; s + 4 <= a.nsteps; s += 4, blk++) {
    sp_u32x4 rr = sp_philox_purpose_block(a.seed, SP_PURPOSE_DRIVEN_STEPS, stream, blk);
    SP_DRIVEN(sp_driven_normals)(rr, &z[0], &z[1], &z[2], &z[3]);
#pragma unroll
    for (int q = 0; q < 4; q++) sp_drv_step<AFTER>(a, P, z[q]);
  }
  if (s < a.nsteps) {
    sp_u32x4 rr = sp_philox_purpose_block(a.seed, SP_PURPOSE_DRIVEN_STEPS, stream, blk);
    SP_DRIVEN(sp_driven_normals)(rr, &z[0], &z[1], &z[2], &z[3]);
    for (unsigned int q = 0; s < a.nsteps; q++, s++)
      sp_drv_step<AFTER>(a, P, q == 0 ? z[0] : (q == 1 ? z[1] : z[2]));
  }
}

/* The start of every path of the launch, on the device: the CPU engine's
 * sp_driven_start() and split (driven.h's functions, integer Philox and
 * double arithmetic: the same numbers), so that no path state crosses the
 * bus before the run. */
extern "C" __global__ void __launch_bounds__(SP_DRV_BLOCK)
sp_driven_init_kernel(const sp_driven_init_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.npaths) return;
  const uint64_t p = a.path0 + i, c = p / a.n, r = p % a.n;
  const double x0 = a.nx0 > 0 ? a.x0[a.nx0 == 1 ? 0 : r]
                              : sp_driven_start_x(a.seed, a.conds[c].stream0 + a.replica0 + r);
  const double v0 = a.nv0 > 0 ? a.v0[a.nv0 == 1 ? 0 : r] : 0.0;
  int32_t m;
  double y;
  sp_driven_split(x0, &m, &y);
  const sp_real yr = (sp_real)y;
  a.m[i] = m;
  a.x[i] = yr;
  a.v[i] = (sp_real)v0;
  a.s2[i] = (sp_real)0;
  a.acc2[i] = 0.0;
  /* x at the end of a transient of length 0 is the start in the working precision */
  a.xtr[i] = a.ktr > 0 ? __longlong_as_double(0x7ff8000000000000LL) : (double)m + (double)yr;
}

extern "C" __global__ void __launch_bounds__(SP_DRV_BLOCK, SP_DRV_MINBLOCKS)
sp_driven_kernel(const sp_driven_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.npaths) return;
  const uint64_t p = a.path0 + i, c = p / a.n, r = p % a.n;
  const sp_driven_cond *cd = a.conds + c;
  const uint64_t stream = cd->stream0 + a.replica0 + r;
  sp_drv_path P;
  SP_DRIVEN(sp_driven_par_load)(&P.par, cd);
  P.x = a.x[i];
  P.m = a.m[i];
  P.v = a.v[i];
  P.s2 = a.s2[i];
  P.acc2 = a.acc2[i];
  P.keep = r < a.keep_m ? (long long)((c * a.keep_m + r) * (a.periods + 1)) : -1;
  P.cond = c;
  P.j = (unsigned int)(a.k0 % a.spp);
  P.c0 = __ldg(a.drive + P.j);
  P.period = a.k0 / a.spp;
  if (a.k0 == 0 && P.keep >= 0) {
    a.keep_x[P.keep] = (double)P.m + (double)P.x;
    a.keep_v[P.keep] = (double)P.v;
  }
  if (a.k0 == 0 && a.dens) sp_drv_count(a, P, 0);
  /* the launch lies wholly before or wholly after the end of the transient
   * (the host cuts launches there); x at its end is recorded after the
   * launch that reaches it */
  if (a.k0 >= a.ktr) {
    sp_drv_run<true>(a, P, stream);
  } else {
    sp_drv_run<false>(a, P, stream);
    if (a.k0 + a.nsteps == a.ktr) a.xtr[i] = (double)P.m + (double)P.x;
  }
  a.x[i] = P.x;
  a.m[i] = P.m;
  a.v[i] = P.v;
  a.s2[i] = P.s2;
  a.acc2[i] = P.acc2;
  /* the state at the end of the launch (in registers): a non-finite one is
   * flagged for the host, which names the path and replays it */
  if (!(isfinite(P.x) && isfinite(P.v) && isfinite(P.s2) && isfinite(P.acc2)))
    atomicMin(a.bad, (unsigned long long)p);
}
