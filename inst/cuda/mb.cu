/* mb.cu: a many-body user model (sde_model() with mean(), sum(), pairs() or
 * lattice neighbours; sde_run(n = )) on the GPU.  Compiled by NVRTC per
 * model (its generated header sde_model.h, given in memory), precision
 * (-DSP_REAL=float -DSP_REAL_SINGLE=1, or double), method (SP_MB_METHOD, the
 * SP_MB_* methods of mb_args.h) and mode (SP_MB_SMALL), with SP_MB_TERMS_NB
 * when a reduction term reads a lattice neighbour (R/sde-mb-run.R,
 * sde_mb_gpu_plan()).  The element-level physics is the model's header and
 * mb_engine.h, as on the CPU (mb_cpu.h, the reference): the same stages, the
 * same normals (one Philox block for four normals: a thread takes a group of
 * four elements, whose NW blocks it draws once), the same starts (R's).
 * Reductions are summed in double in a fixed tree that depends on n only
 * (a thread's elements in the working precision, then the block's threads,
 * then the blocks in order), so no result depends on the launch, the systems
 * per launch or the device.  Pair sums go tile by tile (SP_MB_TILE partners
 * in order, summed in the working precision; the tiles in double: in single
 * precision more accurate than the CPU's running sum, in double the same to
 * rounding).  Mode B's passes over all pairs cut a system's sources into
 * nch chunks of whole tiles (n alone decides them: sp_gpu_mb.c's
 * mb_pair_chunks; one above n = 131,072): each chunk's tiles added
 * in double in tile order as above, then the chunks' double sums in chunk
 * order (with one chunk, the tiles' sum as it was, bit for bit).
 *
 * Mode A (SP_MB_SMALL, n <= 2048: sp_mb_small_kernel): a thread block per
 * system, SP_MB_EPT elements per thread (blockDim = 32 ceil(npad / (32
 * SP_MB_EPT)), npad = 4 ceil(n / 4)): four by default, whose loads of a
 * partner serve four pair terms; one or two for long pair terms (a
 * Lennard-Jones force), where more threads hide the pair's latency better
 * than more elements a thread (registers) -- the sums are the same;
 * the states in registers for a whole launch of kend - kcur steps: the
 * stages as mb_cpu.h makes them, with __syncthreads between them; what
 * other elements read (the states, for lattice neighbours and pairs; the
 * element parameters, for pairs) is published to shared memory, and every
 * reduction is a block sum (warp shuffles, then the warps in order).
 * Records at the launch's end (kend a record step), the event after every
 * step (passage).  Nothing but the start and the end of a launch touches
 * global memory.
 *
 * Mode B (larger n: one kernel a pass, many blocks a system): each pass
 * updates every element from the sums of the state it starts from (slot rd
 * of `sums`, made by the pass before), writes the new state, and adds up
 * the reduction terms of the new state per block; the last block of a
 * system to finish (a counter per system, sp_grid_last of sp_reduce.h) adds
 * the blocks' partial sums in block order into slot wr and, at a record or
 * a passage check, evaluates the observables or the event.  Threads take
 * groups of four elements (vector loads), gpt groups each, SP_MB_BLOCK
 * groups apart; without lattice or pairs the next group is loaded while the
 * current one is computed (SP_MB_PREFETCH), and states are updated in place.
 *   euler: one pass a step (sp_mb_euler_kernel).
 *   srk2: the predictor pass (sp_mb_p1_kernel: its terms into slot 1) and
 *     the corrector pass (sp_mb_p2_kernel), which recomputes the predictor
 *     (the same normals and numbers: cheaper than storing it) unless
 *     pairs need the first stage's drift and noise (stored in `aux`: the
 *     pair sums are not recomputed).  Without lattice and pairs nothing is
 *     stored between the passes; with a lattice the predictor goes to y
 *     (other elements read it) and the corrector writes z; with pairs the
 *     predictor goes to y and the corrector writes x in place.  A model
 *     whose dynamics read no reduction skips the predictor pass.
 *   verlet, yoshida4: the DKD stages of mb_args.h, one pass each
 *     (sp_mb_split_kernel: kick from the forces of the positions the pass
 *     starts from, then move), the last move of a step fused with the first
 *     of the next (two roundings, as two passes make): one pass a step for
 *     verlet, three for yoshida4, one more at a record or a round's end.
 *   baoab: one pass a step in a run of steps (the last kick of a step and
 *     the first of the next, both with the forces of the same positions;
 *     move, O-step, move), a closing kick at a record or a round's end.
 * With a lattice (other blocks read the neighbours) a pass writes another
 * buffer and the host swaps them.  Pairs (sp_mb_*_kernel when SP_MB_NQ > 0):
 * a thread per target element, the sources tile by tile in shared memory
 * (as lrmd.cu's all-pairs kernels) with their values for the
 * pair terms (mb_pair_pre: e.g. the sine and cosine of each angle, made once
 * a tile by the thread that loads the source; the target's once), the
 * target's own tile with the self term left out.  Where a system has few
 * target blocks (n up to 131,072) one block would hold an SM's few
 * warps for all n sources, and latency went unhidden (gravity2d, n = 1e4:
 * 40 blocks, 12.5 % of the warps active): the sources are cut into nch
 * chunks (mb_pair_chunks of sp_gpu_mb.c), a block per target block and
 * chunk (lrmd.cu's parts); each writes its chunk's sums in double
 * (a.ppart), and the last of a target block's chunk blocks to finish (a
 * counter per target block, sp_grid_last) adds them in chunk order and
 * does the rest of the pass -- the element update, the terms' sums,
 * mb_finish, whose counter counts one block a target block as before.  The
 * observables' pair kernel likewise.  When a reduction term reads a neighbour of the
 * new state (SP_MB_TERMS_NB) the sums come from a separate pass
 * (sp_mb_measure_kernel), which also makes the start's sums and the
 * records; sp_mb_keep_kernel copies the kept systems' states at a record;
 * sp_mb_start_kernel draws starts given as laws (both modes).
 *
 * Non-finite states: a pass that ends a step flags, per system, the first
 * step with a non-finite state and the least element << 8 | state at it
 * (badk, badwhat); the host fails the run after the round, as the CPU does. */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#ifndef SP_MB_METHOD
#  define SP_MB_METHOD 1
#endif
#ifndef SP_MB_SMALL
#  define SP_MB_SMALL 0
#endif
#ifndef SP_MB_TERMS_NB
#  define SP_MB_TERMS_NB 0
#endif
#ifndef SP_MB_UNROLL /* mode A's pair loop: 1 for long pair terms (compile time) */
#  define SP_MB_UNROLL 2
#endif
#ifndef SP_MB_EPT /* mode A: elements a thread (4, 2 or 1; sde_mb_gpu_plan()) */
#  define SP_MB_EPT 4
#endif
#ifndef SP_MB_SMALL_MINB /* mode A: blocks of 512 threads an SM the registers allow */
#  define SP_MB_SMALL_MINB (SP_MB_EPT == 1 ? 2 : 1)
#endif

typedef SP_REAL sp_mb_real; /* the arrays of mb_args.h */

#include "sde_prelude.h"
#include "sde_model.h"
#include "mb_engine.h"
#include "sp_reduce.h"

typedef SP_REAL real;

#define SP_MB_BLOCK 256   /* threads of a mode-B block; the pair tiles */
#define SP_MB_WARPS (SP_MB_BLOCK / 32)
#define SP_MB_TILE SP_MB_BLOCK
#define SP_MB_SMALL_MAX 512 /* threads of a mode-A block, at most */
#define SP_MB_NMOM (SP_MB_NX - SP_MB_NPOS) /* momenta (splitting methods) */
#ifndef SP_MB_NQP /* (headers before issue 49) */
#  define SP_MB_NQP SP_MB_NQ
#  define SP_MB_NG 0
#  define SP_MB_NQO 0
#  define SP_MB_POSD 0
#  define SP_MB_CUT 0
#  define SP_MB_CUTO 0
#endif
#define SP_MB_OQN (SP_MB_NQO > 0 ? SP_MB_NQO : 1) /* the observables' pair sums */
#define SP_MB_AQN (SP_MB_QN > SP_MB_OQN ? SP_MB_QN : SP_MB_OQN)
/* mode B: the dynamics' pair sums from cell lists (every pair term has a
 * cut-off): the pair passes take their targets in the cells' order */
#ifdef SP_MB_NOCELLS
#  undef SP_MB_CUT
#  undef SP_MB_CUTO
#  define SP_MB_CUT 0
#  define SP_MB_CUTO 0
#endif
#define SP_MB_CELLS (SP_MB_CUT && !SP_MB_SMALL && SP_MB_NQP > 0)
#define SP_MB_MN (SP_MB_NMOM > 0 ? SP_MB_NMOM : 1)
/* elements read other elements' states (lattice neighbours or pairs) */
#define SP_MB_SHARE (SP_MB_NQ > 0 || SP_MB_REACH > 0)
#define SP_MB_HEUN (SP_MB_METHOD == SP_MB_SRK2)
#define SP_MB_SPLITTING (SP_MB_METHOD >= SP_MB_VERLET)
#define SP_MB_NONE 0xffffffffffffffffull
#ifndef SP_MB_PREFETCH
#  define SP_MB_PREFETCH (!SP_MB_SHARE)
#endif

/* Kinds of a mode-B pass. */
#define MB_EULER 0
#define MB_P1 1
#define MB_P2 2
#define MB_SPLIT 3
#define MB_MEASURE 4

/* ---- element-level pieces (both modes) -------------------------------------- */

/* What a system's threads share: its parameters (in the working precision
 * and in double) and its stream. */
struct mb_sys {
  const double *pd;
  uint64_t stream;
  real p[SP_MB_PN];
#if SP_MB_DIM == 2
  uint64_t l2; /* a square lattice's columns (the parameter SP_MB_L2) */
#endif
};

__device__ __forceinline__ void mb_sys_init(const sp_mb_kargs &a, uint64_t s, mb_sys &S) {
  const uint64_t g = a.sys0 + s, c = g / a.job.replicas;
  S.stream = (c << SP_REPLICA_BITS) + a.job.replica0 + (g - c * a.job.replicas);
  S.pd = a.par + c * (uint64_t)a.job.np;
#pragma unroll
  for (int i = 0; i < SP_MB_PN; i++) S.p[i] = i < SP_MB_NP ? (real)S.pd[i] : (real)0;
#if SP_MB_DIM == 2
  S.l2 = (uint64_t)S.pd[SP_MB_L2];
#endif
}

/* The element parameters of local system s. */
__device__ __forceinline__ const real *mb_ep(const sp_mb_kargs &a, uint64_t s) {
  return a.ep + (a.job.epar_shared ? 0 : s * (uint64_t)SP_MB_NE * a.npad);
}

/* The element at offset d of element i (0-based) of n (mb_engine.h's
 * sp_mb_neighbour, without the division: |d| <= REACH < n). */
__device__ __forceinline__ uint64_t mb_nbr(uint64_t i, int d, uint64_t n) {
  const int64_t j = (int64_t)i + d;
#if SP_MB_RING
  return (uint64_t)(j < 0 ? j + (int64_t)n : j >= (int64_t)n ? j - (int64_t)n : j);
#else
  return j < 0 || j >= (int64_t)n ? i : (uint64_t)j;
#endif
}

/* The neighbours nb[(d + REACH) NX + s] of element i (own states x) from a
 * state array src (row stride `stride`); on a square lattice (a torus,
 * elements row by row, S.l2 columns) nb[((a + REACH) (2 REACH + 1) + b +
 * REACH) NX + s] at row offset a, column offset b, as mb_engine.h's
 * sp_mb_gather2. */
__device__ __forceinline__ void mb_gather(const mb_sys &S, const real *src, uint64_t i, uint64_t n,
                                          uint64_t stride, const real *x, real *nb) {
#if SP_MB_DIM == 2
  const int64_t L2 = (int64_t)S.l2, L1 = (int64_t)(n / S.l2), r = (int64_t)(i / S.l2),
                c = (int64_t)i - r * L2;
#  pragma unroll
  for (int da = -SP_MB_REACH; da <= SP_MB_REACH; da++) {
    int64_t rr = r + da;
    rr = rr < 0 ? rr + L1 : rr >= L1 ? rr - L1 : rr; /* |da| <= REACH < L1 (sde_run() checks) */
#  pragma unroll
    for (int db = -SP_MB_REACH; db <= SP_MB_REACH; db++) {
      int64_t cc = c + db;
      cc = cc < 0 ? cc + L2 : cc >= L2 ? cc - L2 : cc;
      const uint64_t j = (uint64_t)(rr * L2 + cc);
      const int slot = (da + SP_MB_REACH) * (2 * SP_MB_REACH + 1) + (db + SP_MB_REACH);
#  pragma unroll
      for (int v = 0; v < SP_MB_NX; v++)
        nb[slot * SP_MB_NX + v] = da == 0 && db == 0 ? x[v] : src[(uint64_t)v * stride + j];
    }
  }
#elif SP_MB_REACH > 0
  (void)S;
#  pragma unroll
  for (int d = -SP_MB_REACH; d <= SP_MB_REACH; d++) {
    const uint64_t j = mb_nbr(i, d, n);
#  pragma unroll
    for (int v = 0; v < SP_MB_NX; v++)
      nb[(d + SP_MB_REACH) * SP_MB_NX + v] = d == 0 ? x[v] : src[(uint64_t)v * stride + j];
  }
#else
  (void)S; (void)src; (void)i; (void)n; (void)stride;
  nb[0] = x[0];
#endif
}

/* The normals z[u][w] of the group of elements 4g .. 4g + 3 at the chain's
 * step kk: NW Philox blocks, those of sp_mb_normals (mb_engine.h) for each
 * of the four elements (element i, entry w: normal i NW + w of the step). */
__device__ __forceinline__ void mb_group_normals(uint64_t seed, uint64_t stream, uint64_t kk,
                                                 uint64_t g, uint64_t n,
                                                 real z[4][SP_MB_WN]) {
#pragma unroll
  for (int u = 0; u < 4; u++)
#pragma unroll
    for (int w = 0; w < SP_MB_WN; w++) z[u][w] = 0;
#if SP_MB_NW > 0
  const uint64_t B = (n * SP_MB_NW + 3) / 4, b0 = kk * B + g * SP_MB_NW;
#  pragma unroll
  for (int m = 0; m < SP_MB_NW; m++) {
    if (4 * (g * SP_MB_NW + m) < n * SP_MB_NW) {
      const sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_MB_STEPS, stream, b0 + m);
      real v[4];
      SP_SDE_BM(r.x, r.y, &v[0], &v[1]);
      SP_SDE_BM(r.z, r.w, &v[2], &v[3]);
#  pragma unroll
      for (int w = 0; w < 4; w++) z[(4 * m + w) / SP_MB_NW][(4 * m + w) % SP_MB_NW] = v[w];
    }
  }
#else
  (void)seed; (void)stream; (void)kk; (void)g; (void)n;
#endif
}

/* Mode A's normals of the thread's SP_MB_EPT elements (g: the thread): a
 * group's blocks drawn once with four elements a thread, else each
 * element's as sp_mb_normals (the same numbers). */
__device__ __forceinline__ void mb_small_normals(uint64_t seed, uint64_t stream, uint64_t kk,
                                                 uint64_t g, uint64_t n,
                                                 real z[SP_MB_EPT][SP_MB_WN]) {
#if SP_MB_EPT == 4
  mb_group_normals(seed, stream, kk, g, n, z);
#else
#  pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++) {
    const uint64_t i = SP_MB_EPT * g + (uint64_t)u;
#  pragma unroll
    for (int w = 0; w < SP_MB_WN; w++) z[u][w] = 0;
    if (i < n) SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z[u]);
  }
#endif
}

/* Drift (Ito or Stratonovich form) and noise at state x. */
template <bool STRAT>
__device__ __forceinline__ void mb_fb(double t, const real *x, const real *e, const real *nb,
                                      const real *R, const real *Q, const mb_sys &S, real fi,
                                      real *f, real *b) {
  if (STRAT) SP_PREC(mb_drift_strat)(t, x, e, nb, R, Q, S.p, S.pd, fi, f);
  else SP_PREC(mb_drift_ito)(t, x, e, nb, R, Q, S.p, S.pd, fi, f);
  SP_PREC(mb_noise)(t, x, e, nb, R, Q, S.p, S.pd, fi, b);
}

/* dW = sqrt(dt) z */
__device__ __forceinline__ void mb_dw(const real *z, real sdt, real *dw) {
#pragma unroll
  for (int w = 0; w < SP_MB_WN; w++) dw[w] = SP_MB_NW > 0 ? sdt * z[w] : (real)0;
}

/* y = x + f h + b dW (mb_cpu.h's first stage) */
__device__ __forceinline__ void mb_predict(const real *x, const real *f, const real *b,
                                           const real *dw, real h, const real *p, real *y) {
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++) y[v] = x[v] + f[v] * h;
  SP_PREC(mb_apply_noise)(y, b, dw, p);
}

/* x' = x + h/2 (f0 + f2) + (b0 + b2)/2 dW (mb_cpu.h's second stage; b2 is
 * overwritten) */
__device__ __forceinline__ void mb_correct(const real *x, const real *f0, const real *b0,
                                           const real *f2, real *b2, const real *dw, real h,
                                           const real *p, real *xo) {
  const real half = (real)0.5;
#pragma unroll
  for (int w = 0; w < SP_MB_BN; w++) b2[w] = half * (b0[w] + b2[w]);
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++) xo[v] = x[v] + half * h * (f0[v] + f2[v]);
  SP_PREC(mb_apply_noise)(xo, b2, dw, p);
}

/* BAOAB's O-step coefficients of the system (mb_engine.h, in double). */
struct mb_ou {
  double c1[SP_MB_POS], c2[SP_MB_POS];
  int which[SP_MB_POS], wz[SP_MB_POS];
};

/* The O-step of one element: each momentum p = c1 p + c2 z (mb_cpu.h). */
__device__ __forceinline__ void mb_ostep(const mb_ou &O, const real *z, real *x) {
#if SP_MB_SPLIT
#  pragma unroll
  for (int j = 0; j < SP_MB_NMOM; j++) {
    real zz = 0;
#  pragma unroll
    for (int w = 0; w < SP_MB_WN; w++)
      if (w == O.wz[j]) zz = z[w];
#  pragma unroll
    for (int v = 0; v < SP_MB_NX; v++)
      if (v == O.which[j])
        x[v] = (real)O.c1[j] * x[v] + (O.wz[j] >= 0 ? (real)O.c2[j] * zz : (real)0);
  }
#else
  (void)O; (void)z; (void)x;
#endif
}

/* A splitting pass on one element: kicks by h1, h2 with the force of the
 * positions it starts from (time t), move by c1, the O-step (BAOAB), moves
 * by c2 and c3 -- each step of mb_cpu.h's in its order, a zero coefficient
 * skipped as there. */
__device__ __forceinline__ void mb_split_element(const sp_mb_kargs &a, const mb_sys &S,
                                                 const mb_ou &O, double t, real *x, const real *e,
                                                 const real *nb, const real *R, const real *Q,
                                                 real fi, const real *z) {
  const real h1 = (real)a.h1, h2 = (real)a.h2, c1 = (real)a.c1, c2 = (real)a.c2,
             c3 = (real)a.c3;
  if (h1 != 0 || h2 != 0) {
    real f[SP_MB_NX];
    SP_PREC(mb_force)(t, x, e, nb, R, Q, S.p, S.pd, fi, f);
    if (h1 != 0) SP_PREC(mb_kick)(x, f, h1);
    if (h2 != 0) SP_PREC(mb_kick)(x, f, h2);
  }
  if (c1 != 0) SP_PREC(mb_move)(x, e, S.p, fi, c1);
  if (a.ostep) mb_ostep(O, z, x);
  if (c2 != 0) SP_PREC(mb_move)(x, e, S.p, fi, c2);
  if (c3 != 0) SP_PREC(mb_move)(x, e, S.p, fi, c3);
}

/* Add the reduction terms of an element to acc (all NT of them). */
__device__ __forceinline__ void mb_add_terms(double t, const real *x, const real *e,
                                             const real *nb, const real *O, const mb_sys &S,
                                             real fi, real acc[SP_MB_TN]) {
#if SP_MB_NT > 0
  real r[SP_MB_TN];
  SP_PREC(mb_terms)(t, x, e, nb, O, S.p, S.pd, fi, r);
#  pragma unroll
  for (int q = 0; q < SP_MB_NT; q++) acc[q] += r[q];
#else
  (void)t; (void)x; (void)e; (void)nb; (void)O; (void)S; (void)fi; (void)acc;
#endif
}

/* The observables' pair sums O of element i of local system s: those of
 * the measure's state (a.obs, made by sp_mb_obs_kernel) when on, else 0
 * (the dynamics' terms never read them). */
__device__ __forceinline__ void mb_load_obs(const sp_mb_kargs &a, uint64_t s, uint64_t i,
                                            bool on, real O[SP_MB_OQN]) {
#pragma unroll
  for (int q = 0; q < SP_MB_OQN; q++)
    O[q] = on && q < SP_MB_NQO ? a.obs[(s * (uint64_t)SP_MB_OQN + (uint64_t)q) * a.npad + i]
                               : (real)0;
}

/* The least element << 8 | state of x that is non-finite, into *what (if
 * lower). */
__device__ __forceinline__ void mb_check(const real *x, uint64_t i, unsigned long long *what) {
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++)
    if (!isfinite(x[v]) && *what == SP_MB_NONE) *what = (unsigned long long)(i << 8 | (uint64_t)v);
}

/* System s is non-finite after step k (of the call): keep the first step
 * and the least element and state at it.  The passes of a system run in
 * step order, so a later pass leaves the record alone. */
__device__ __forceinline__ void mb_flag(const sp_mb_kargs &a, uint64_t s, uint64_t k,
                                        unsigned long long what) {
  const unsigned long long old = atomicMin(a.badk + s, (unsigned long long)k);
  if (old >= k) atomicMin(a.badwhat + s, what);
  atomicOr(a.flags + 1, 1u);
}

/* What the sums of system s (in double, in order) give: the slot, the
 * observables of a record, the event. */
__device__ __forceinline__ void mb_system_done(const sp_mb_kargs &a, const mb_sys &S, uint64_t s,
                                               const double v[SP_MB_TN]) {
  real R[SP_MB_TN];
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) {
    a.sums[(s * 2 + (uint64_t)a.wr) * SP_MB_TN + q] = v[q];
    R[q] = (real)v[q];
  }
  if (a.record && SP_MB_NO > 0) {
    real o[SP_MB_ON];
    SP_PREC(mb_observe)(a.tt, R, S.p, S.pd, o);
    for (int q = 0; q < SP_MB_NO; q++)
      a.rec[(s * a.job.nrec + a.rec_j) * (uint64_t)SP_MB_NO + q] = (double)o[q];
  }
  if (a.stopchk && SP_PREC(mb_stop)(a.tt, R, S.p, S.pd)) {
    a.stopped[s] = 1;
    a.kstop[s] = a.kflag;
    a.xbuf[s] = a.x_id;
    atomicAdd(a.flags, 1u);
  }
}

/* A pair term's function: the dynamics' (mb_pair) or the observables'
 * (mb_pair_obs). */
template <bool OBS>
__device__ __forceinline__ void mb_pair_fn(double t, const real *xi, const real *ei,
                                           const real *xj, const real *ej, const real *ui,
                                           const real *uj, const mb_sys &S, real fi, real fj,
                                           real *acc) {
  if (OBS) SP_PREC(mb_pair_obs)(t, xi, ei, xj, ej, ui, uj, S.p, S.pd, fi, fj, acc);
  else SP_PREC(mb_pair)(t, xi, ei, xj, ej, ui, uj, S.p, S.pd, fi, fj, acc);
}

/* The edge sums Q[NQP + g] of element i (states xi, parameters ei) over its
 * in-neighbours (row i of the graph, ascending) of the state array SRC. */
__device__ __forceinline__ void mb_edge_sums(const sp_mb_kargs &a, const mb_sys &S,
                                             const real *SRC, const real *E, uint64_t npad,
                                             uint64_t i, double t, const real *xi,
                                             const real *ei, real *Q) {
#if SP_MB_NG > 0
  real acc[SP_MB_QN];
#  pragma unroll
  for (int q = 0; q < SP_MB_QN; q++) acc[q] = 0;
  const uint32_t hi = a.rowptr[i + 1];
  for (uint32_t k = a.rowptr[i]; k < hi; k++) {
    const uint64_t j = a.col[k];
    real xj[SP_MB_NX], ej[SP_MB_EN];
#  pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xj[v] = SRC[(uint64_t)v * npad + j];
#  pragma unroll
    for (int c = 0; c < SP_MB_EN; c++) ej[c] = c < SP_MB_NE ? E[(uint64_t)c * npad + j] : (real)0;
    SP_PREC(mb_edge)(t, xi, ei, xj, ej, a.gw ? a.gw[k] : (real)1, S.p, S.pd, (real)(i + 1),
                     (real)(j + 1), acc);
  }
#  pragma unroll
  for (int q = SP_MB_NQP; q < SP_MB_NQ; q++) Q[q] = acc[q];
#else
  (void)a; (void)S; (void)SRC; (void)E; (void)npad; (void)i; (void)t; (void)xi; (void)ei; (void)Q;
#endif
}

/* Four values of a row or of a packed slot (aligned: npad is a multiple of 4). */
__device__ __forceinline__ void mb_load4(const real *p, real v[4]) {
#ifdef SP_REAL_SINGLE
  const float4 t = *reinterpret_cast<const float4 *>(p);
  v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
#else
  const double2 t0 = reinterpret_cast<const double2 *>(p)[0],
                t1 = reinterpret_cast<const double2 *>(p)[1];
  v[0] = t0.x; v[1] = t0.y; v[2] = t1.x; v[3] = t1.y;
#endif
}

/* A partner's states xj: the positions from their packed slot p4 (one
 * vector load, into scalars: an array there was kept in local memory, a
 * store a partner), the other states (where the pair terms read them) from
 * the rows of pc (stride npad). */
#if SP_MB_POSD > 0
__device__ __forceinline__ void mb_load_partner(const real *p4, const real *pc, uint64_t npad,
                                                real xj[SP_MB_NX]) {
#ifdef SP_REAL_SINGLE
  const float4 t = *reinterpret_cast<const float4 *>(p4);
  const real q0 = t.x, q1 = t.y, q2 = t.z;
#else
  const double2 t0 = reinterpret_cast<const double2 *>(p4)[0],
                t1 = reinterpret_cast<const double2 *>(p4)[1];
  const real q0 = t0.x, q1 = t0.y, q2 = t1.x;
#endif
  (void)q1; (void)q2;
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++)
    xj[v] = v == SP_MB_PX0 ? q0
            : SP_MB_POSD > 1 && v == SP_MB_PX1 ? q1
            : SP_MB_POSD > 2 && v == SP_MB_PX2 ? q2
            : pc[(uint64_t)v * npad];
}
#endif

__device__ __forceinline__ void mb_store4(real *p, const real v[4]) {
#ifdef SP_REAL_SINGLE
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
#else
  reinterpret_cast<double2 *>(p)[0] = make_double2(v[0], v[1]);
  reinterpret_cast<double2 *>(p)[1] = make_double2(v[2], v[3]);
#endif
}

/* ---- mode B ------------------------------------------------------------------- */

#if !SP_MB_SMALL

/* The last block's sums of the blocks' partial sums p[b K + q] (from L2),
 * block order per thread, then the block's tree. */
template <int K>
__device__ __forceinline__ void mb_grid_sum(const double *p, int nb, double v[K]) {
#pragma unroll
  for (int q = 0; q < K; q++) v[q] = 0;
  for (int j = threadIdx.x; j < nb; j += SP_MB_BLOCK)
#pragma unroll
    for (int q = 0; q < K; q++) v[q] += __ldcg(p + (uint64_t)j * K + q);
  sp_block_sum<K, SP_MB_WARPS>(v);
}

/* The end of a pass in block b of system s: the non-finite flag, then (sums_on)
 * the block's sums of the terms, the last block's sums of the system. */
__device__ __forceinline__ void mb_finish(const sp_mb_kargs &a, const mb_sys &S, uint64_t s,
                                          unsigned b, const real acc[SP_MB_TN],
                                          unsigned long long what) {
  if (a.check && what != SP_MB_NONE) mb_flag(a, s, a.kflag, what);
  if (!a.sums_on) return; /* uniform */
  double v[SP_MB_TN];
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) v[q] = (double)acc[q];
  sp_block_sum<SP_MB_TN, SP_MB_WARPS>(v);
  double *part = a.partial + s * (uint64_t)a.bps * SP_MB_TN;
  if (threadIdx.x == 0)
#pragma unroll
    for (int q = 0; q < SP_MB_TN; q++) part[(uint64_t)b * SP_MB_TN + q] = v[q];
  if (a.split) return; /* the slices' partial sums meet in sp_mb_combine_kernel */
  if (!sp_grid_last(a.count + s, (unsigned)a.bps)) return;
  mb_grid_sum<SP_MB_TN>(part, a.bps, v);
  if (threadIdx.x == 0) mb_system_done(a, S, s, v);
}


/* The states x[u][v] (and element parameters e[u][k]) of group g. */
__device__ __forceinline__ void mb_load_group(const real *X, const real *E, uint64_t g,
                                              uint64_t npad, real x[4][SP_MB_NX],
                                              real e[4][SP_MB_EN]) {
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++) {
    real t[4];
    mb_load4(X + (uint64_t)v * npad + 4 * g, t);
#pragma unroll
    for (int u = 0; u < 4; u++) x[u][v] = t[u];
  }
#pragma unroll
  for (int k = 0; k < SP_MB_EN; k++) {
    real t[4] = {0, 0, 0, 0};
    if (k < SP_MB_NE) mb_load4(E + (uint64_t)k * npad + 4 * g, t);
#pragma unroll
    for (int u = 0; u < 4; u++) e[u][k] = t[u];
  }
}

__device__ __forceinline__ void mb_store_group(real *X, uint64_t g, uint64_t npad,
                                               const real x[4][SP_MB_NX]) {
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++) {
    real t[4];
#pragma unroll
    for (int u = 0; u < 4; u++) t[u] = x[u][v];
    mb_store4(X + (uint64_t)v * npad + 4 * g, t);
  }
}

/* The reductions R[q] (q < ND) of slot `slot` of system s. */
__device__ __forceinline__ void mb_load_sums(const sp_mb_kargs &a, uint64_t s, int slot,
                                             real R[SP_MB_TN]) {
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++)
    R[q] = q < SP_MB_ND ? (real)a.sums[(s * 2 + (uint64_t)slot) * SP_MB_TN + q] : (real)0;
}

/* The pass KIND on element i (u of its group) from the states x (of X), for
 * the group kernels (no pairs).  Writes the new state into xn. */
template <int KIND>
__device__ __forceinline__ void mb_group_element(const sp_mb_kargs &a, const mb_sys &S,
                                                 const mb_ou &O, const real *X, const real *Y,
                                                 uint64_t i, const real *x, const real *e,
                                                 const real *z, const real *R0, const real *R1,
                                                 real h, real sdt, real *xn) {
  const uint64_t n = a.job.n, npad = a.npad;
  const real fi = (real)(i + 1);
  real nb[SP_MB_NBN], Q[SP_MB_QN], dw[SP_MB_WN];
#pragma unroll
  for (int q = 0; q < SP_MB_QN; q++) Q[q] = 0;
  if (KIND == MB_MEASURE) {
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xn[v] = x[v];
    return;
  }
  mb_gather(S, X, i, n, npad, x, nb);
  if (KIND == MB_SPLIT) {
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xn[v] = x[v];
    mb_split_element(a, S, O, a.t, xn, e, nb, R0, Q, fi, z);
    return;
  }
  real f0[SP_MB_NX], b0[SP_MB_BN];
  mb_dw(z, sdt, dw);
  mb_fb<KIND != MB_EULER>(a.t, x, e, nb, R0, Q, S, fi, f0, b0);
  if (KIND != MB_P2) {
    mb_predict(x, f0, b0, dw, h, S.p, xn);
    return;
  }
  /* the corrector: the predictor (y's own from y with a lattice, else made
   * again), the drift and noise there, the step */
  real y[SP_MB_NX], f2[SP_MB_NX], b2[SP_MB_BN];
  if (SP_MB_SHARE) {
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) y[v] = Y[(uint64_t)v * npad + i];
  } else {
    mb_predict(x, f0, b0, dw, h, S.p, y);
  }
  mb_gather(S, Y, i, n, npad, y, nb);
  mb_fb<true>(a.t2, y, e, nb, R1, Q, S, fi, f2, b2);
  mb_correct(x, f0, b0, f2, b2, dw, h, S.p, xn);
}

/* Element i of a group kernel's pass: its new state xn, and (sums_on) its
 * reduction terms added to acc. */
template <int KIND>
__device__ __forceinline__ void mb_group_one(const sp_mb_kargs &a, const mb_sys &S,
                                             const mb_ou &O, const real *X, const real *Y,
                                             uint64_t s, uint64_t i, const real *x,
                                             const real *e, const real *z, const real *R0,
                                             const real *R1, real h, real sdt, bool sums_on,
                                             real *xn, real *acc) {
  mb_group_element<KIND>(a, S, O, X, Y, i, x, e, z, R0, R1, h, sdt, xn);
  if (sums_on) {
    real nb[SP_MB_NBN], Ob[SP_MB_OQN];
    if (KIND == MB_MEASURE && SP_MB_TERMS_NB) mb_gather(S, X, i, a.job.n, a.npad, xn, nb);
    else nb[0] = 0;
    mb_load_obs(a, s, i, KIND == MB_MEASURE && a.obs_on, Ob);
    mb_add_terms(a.tt, xn, e, nb, Ob, S, (real)(i + 1), acc);
  }
}

/* The non-finite check of a group's new states xn (elements i0 .. i0 + 3):
 * *what = the least i << 8 | v of a non-finite state, where there is one.
 * A bit a state (u SP_MB_NX + v: the same order), one test a group. */
__device__ __forceinline__ void mb_check_group(const real xn[4][SP_MB_NX], uint64_t i0,
                                               unsigned long long *what) {
#if 4 * SP_MB_NX <= 64
  unsigned long long m = 0;
#  pragma unroll
  for (int u = 0; u < 4; u++)
#  pragma unroll
    for (int v = 0; v < SP_MB_NX; v++)
      m |= (unsigned long long)!isfinite(xn[u][v]) << (u * SP_MB_NX + v);
  if (m) {
    const int k = __ffsll((long long)m) - 1;
    *what = (unsigned long long)((i0 + (uint64_t)(k / SP_MB_NX)) << 8 | (uint64_t)(k % SP_MB_NX));
  }
#else
#  pragma unroll
  for (int u = 0; u < 4; u++) mb_check(xn[u], i0 + u, what);
#endif
}

/* A pass of the group kernels (see the top): blockIdx.x = s bps + b. */
template <int KIND>
__device__ __forceinline__ void mb_group_pass(const sp_mb_kargs &a) {
  const unsigned bps = (unsigned)a.bps;
  const uint64_t gb = (uint64_t)blockIdx.x + a.blk0; /* a slice's blocks start at blk0 */
  const uint64_t s = gb / bps;
  const unsigned b = (unsigned)(gb - s * bps);
  if (a.job.use_stop && *(volatile const int *)(a.stopped + s)) return; /* block-uniform */
  mb_sys S;
  mb_sys_init(a, s, S);
  const uint64_t n = a.job.n, npad = a.npad, off = s * (uint64_t)SP_MB_NX * npad;
  const real *X = a.x + off, *Y = a.y + off, *E = mb_ep(a, s);
  /* where the new state goes: in place unless others read the old one */
  real *OUT = (real *)(KIND == MB_P2 ? (SP_MB_SHARE ? a.z + off : a.x + off)
                                     : (SP_MB_SHARE ? a.y + off : a.x + off));
  real R0[SP_MB_TN], R1[SP_MB_TN], acc[SP_MB_TN];
  mb_load_sums(a, s, 0, R0);
  if (KIND == MB_P2) mb_load_sums(a, s, 1, R1);
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) acc[q] = 0;
  mb_ou O;
  if (KIND == MB_SPLIT && SP_MB_METHOD == SP_MB_BAOAB)
    SP_PREC(sp_mb_ou_coef)(S.p, a.job.dt, O.c1, O.c2, O.which, O.wz);
  const bool noisy = (KIND == MB_EULER || KIND == MB_P1 || KIND == MB_P2) ||
                     (KIND == MB_SPLIT && a.ostep);
  const uint32_t ng = (uint32_t)(npad / 4), span = SP_MB_BLOCK * (uint32_t)a.gpt;
  const uint32_t qe = ng - b * span < span ? ng : b * span + span;
  unsigned long long what = SP_MB_NONE;
  /* the launch's constants once a thread (not converted an element) */
  const real h = (real)a.job.dt, sdt = (real)a.sdt;
  const bool sums_on = a.sums_on != 0, check = a.check != 0;
  uint32_t g = b * span + threadIdx.x;
  real xc[4][SP_MB_NX], ec[4][SP_MB_EN];
  if (SP_MB_PREFETCH && g < qe) mb_load_group(X, E, g, npad, xc, ec);
  for (; g < qe; g += SP_MB_BLOCK) {
    real x[4][SP_MB_NX], e[4][SP_MB_EN], xn[4][SP_MB_NX], z[4][SP_MB_WN];
    if (SP_MB_PREFETCH) {
#pragma unroll
      for (int u = 0; u < 4; u++) {
#pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) x[u][v] = xc[u][v];
#pragma unroll
        for (int k = 0; k < SP_MB_EN; k++) e[u][k] = ec[u][k];
      }
      if (g + SP_MB_BLOCK < qe) mb_load_group(X, E, g + SP_MB_BLOCK, npad, xc, ec);
    } else {
      mb_load_group(X, E, g, npad, x, e);
    }
    if (noisy && SP_MB_NW > 0) mb_group_normals(a.seed, S.stream, a.kk, g, n, z);
    else {
#pragma unroll
      for (int u = 0; u < 4; u++)
#pragma unroll
        for (int w = 0; w < SP_MB_WN; w++) z[u][w] = 0;
    }
    /* the group's elements: a whole group without a test of each element
     * against n (a 64-bit compare and a branch an element), the last
     * group of a system element by element (padding: new states 0) */
    const uint64_t i0 = 4 * (uint64_t)g;
    if (i0 + 4 <= n) {
#pragma unroll
      for (int u = 0; u < 4; u++)
        mb_group_one<KIND>(a, S, O, X, Y, s, i0 + u, x[u], e[u], z[u], R0, R1, h, sdt, sums_on,
                           xn[u], acc);
    } else {
#pragma unroll
      for (int u = 0; u < 4; u++) {
#pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) xn[u][v] = 0;
        if (i0 + u < n)
          mb_group_one<KIND>(a, S, O, X, Y, s, i0 + u, x[u], e[u], z[u], R0, R1, h, sdt,
                             sums_on, xn[u], acc);
      }
    }
    /* the non-finite check: a bit a state of the group (the order of
     * i << 8 | v), the least set bit of the thread's first group with one
     * (its groups ascend: the thread's least element) */
    if (KIND != MB_MEASURE && check && what == SP_MB_NONE) mb_check_group(xn, i0, &what);
    if (KIND != MB_MEASURE && (KIND != MB_P1 || SP_MB_SHARE)) mb_store_group(OUT, g, npad, xn);
  }
  mb_finish(a, S, s, b, acc, what);
}

/* ---- pairs (mode B): a thread per target element ---- */

/* The pair sums acc of target i (states xi, parameters ei) over the sources
 * j != i in jlo .. jhi - 1 (whole tiles: jlo a multiple of SP_MB_TILE, jhi
 * one or n) of the state array SRC, tile by tile through shared memory:
 * each tile's terms in the working precision, the tiles added into acc in
 * double in tile order; every thread of the block helps load the tiles.
 * Block b's targets are the sources of tile b, whose loop leaves out j == i
 * (in whichever chunk holds that tile).  OBS: the observables' pair terms. */
template <bool OBS>
__device__ __forceinline__ void mb_pair_acc(const mb_sys &S, const real *SRC, const real *E,
                                            uint64_t npad, uint64_t i, unsigned b, double t,
                                            const real *xi, const real *ei, uint64_t jlo,
                                            uint64_t jhi, double acc[SP_MB_AQN]) {
  /* a source's numbers side by side (one 64- or 128-bit load of the
   * broadcast for a source's values, where one array per value took a load
   * each: shared-memory loads were a pair term's second bottleneck) */
  __shared__ __align__(16) real shx[SP_MB_TILE][SP_MB_NX];
  __shared__ __align__(16) real she[SP_MB_TILE][SP_MB_EN];
  __shared__ __align__(16) real shu[SP_MB_TILE][SP_MB_UN];
  const real fi = (real)(i + 1);
  real ui[SP_MB_UN];
  SP_PREC(mb_pair_pre)(t, xi, ei, S.p, S.pd, fi, ui); /* the target's values, once */
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) acc[q] = 0;
  for (uint64_t j0 = jlo; j0 < jhi; j0 += SP_MB_TILE) {
    const uint64_t j = j0 + threadIdx.x;
    __syncthreads(); /* the tile's last readers */
    if (j < jhi) { /* the source's states, parameters and values (once a tile) */
      real xs[SP_MB_NX], es[SP_MB_EN], us[SP_MB_UN];
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) shx[threadIdx.x][v] = xs[v] = SRC[(uint64_t)v * npad + j];
#pragma unroll
      for (int k = 0; k < SP_MB_EN; k++)
        she[threadIdx.x][k] = es[k] = k < SP_MB_NE ? E[(uint64_t)k * npad + j] : (real)0;
      SP_PREC(mb_pair_pre)(t, xs, es, S.p, S.pd, (real)(j + 1), us);
#pragma unroll
      for (int k = 0; k < SP_MB_UN; k++) shu[threadIdx.x][k] = us[k];
    }
    __syncthreads();
    const int m = jhi - j0 < SP_MB_TILE ? (int)(jhi - j0) : SP_MB_TILE;
    real tq[SP_MB_AQN];
#pragma unroll
    for (int q = 0; q < SP_MB_AQN; q++) tq[q] = 0;
    if (j0 == (uint64_t)b * SP_MB_TILE) { /* the targets' own tile */
      for (int k = 0; k < m; k++) {
        real xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN], one[SP_MB_AQN];
#pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) xj[v] = shx[k][v];
#pragma unroll
        for (int c = 0; c < SP_MB_EN; c++) ej[c] = c < SP_MB_NE ? she[k][c] : (real)0;
#pragma unroll
        for (int c = 0; c < SP_MB_UN; c++) uj[c] = shu[k][c];
#pragma unroll
        for (int q = 0; q < SP_MB_AQN; q++) one[q] = 0;
        mb_pair_fn<OBS>(t, xi, ei, xj, ej, ui, uj, S, fi, (real)(j0 + k + 1), one);
        if (j0 + (uint64_t)k != i)
#pragma unroll
          for (int q = 0; q < SP_MB_AQN; q++) tq[q] += one[q];
      }
    } else if (m == SP_MB_TILE) {
#pragma unroll 8
      for (int k = 0; k < SP_MB_TILE; k++) {
        real xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN];
#pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) xj[v] = shx[k][v];
#pragma unroll
        for (int c = 0; c < SP_MB_EN; c++) ej[c] = c < SP_MB_NE ? she[k][c] : (real)0;
#pragma unroll
        for (int c = 0; c < SP_MB_UN; c++) uj[c] = shu[k][c];
        mb_pair_fn<OBS>(t, xi, ei, xj, ej, ui, uj, S, fi, (real)(j0 + k + 1), tq);
      }
    } else {
      for (int k = 0; k < m; k++) {
        real xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN];
#pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) xj[v] = shx[k][v];
#pragma unroll
        for (int c = 0; c < SP_MB_EN; c++) ej[c] = c < SP_MB_NE ? she[k][c] : (real)0;
#pragma unroll
        for (int c = 0; c < SP_MB_UN; c++) uj[c] = shu[k][c];
        mb_pair_fn<OBS>(t, xi, ei, xj, ej, ui, uj, S, fi, (real)(j0 + k + 1), tq);
      }
    }
#pragma unroll
    for (int q = 0; q < SP_MB_AQN; q++) acc[q] += (double)tq[q];
  }
}

/* The pair sums Q of target i over all the sources j != i of SRC (one
 * chunk: mb_pair_acc over 0 .. n - 1). */
template <bool OBS>
__device__ __forceinline__ void mb_pair_sums(const mb_sys &S, const real *SRC, const real *E,
                                             uint64_t n, uint64_t npad, uint64_t i,
                                             unsigned b, double t, const real *xi,
                                             const real *ei, real *Q) {
  double acc[SP_MB_AQN];
  mb_pair_acc<OBS>(S, SRC, E, npad, i, b, t, xi, ei, 0, n, acc);
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) Q[q] = (real)acc[q];
}

/* Where a pass over all pairs cuts the sources into a.nch > 1 chunks (a.tpc
 * tiles each; sp_gpu_mb.c's mb_pair_chunks, n alone decides them): block
 * blockIdx.x of the launch is target block blockIdx.x mod nblk (+ blk0) and
 * chunk c = blockIdx.x / nblk, nblk = gridDim.x / nch -- the chunk-major
 * order, so the blocks that run together read the same sources.  Sets *gb
 * (the target block, as s bps + b) and returns c (0 without chunks). */
__device__ __forceinline__ unsigned mb_pair_block(const sp_mb_kargs &a, uint64_t *gb) {
  if (a.nch <= 1) {
    *gb = (uint64_t)blockIdx.x + a.blk0;
    return 0;
  }
  const unsigned nblk = gridDim.x / (unsigned)a.nch, c = blockIdx.x / nblk;
  *gb = (uint64_t)(blockIdx.x - c * nblk) + a.blk0;
  return c;
}

/* The pair sums Q of target i (target block b of local system s) in chunk
 * c: the chunk's sums (mb_pair_acc, double) into a.ppart, then the last of
 * the a.nch chunk blocks of (s, b) to finish (a counter per target block,
 * sp_grid_last, which resets it) adds the chunks' sums in chunk order and
 * returns true with Q; the others return false (and must return: only the
 * last goes on with the pass, so one block per (s, b) reaches mb_finish). */
template <bool OBS>
__device__ __forceinline__ bool mb_pair_sums_chunk(const sp_mb_kargs &a, const mb_sys &S,
                                                   uint64_t s, unsigned b, unsigned c,
                                                   const real *SRC, const real *E, uint64_t i,
                                                   double t, const real *xi, const real *ei,
                                                   real *Q) {
  const uint64_t n = a.job.n, span = (uint64_t)a.tpc * SP_MB_TILE, jlo = (uint64_t)c * span;
  const uint64_t jhi = jlo + span < n ? jlo + span : n;
  const unsigned nch = (unsigned)a.nch;
  const uint64_t tb = s * (uint64_t)a.bps + b; /* the target block's slot */
  double acc[SP_MB_AQN];
  mb_pair_acc<OBS>(S, SRC, E, a.npad, i, b, t, xi, ei, jlo, jhi, acc);
  double *P = a.ppart + tb * (uint64_t)nch * SP_MB_AQN * SP_MB_BLOCK + threadIdx.x;
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) P[((uint64_t)c * SP_MB_AQN + q) * SP_MB_BLOCK] = acc[q];
  /* every thread stored its sums: a barrier, then one device-wide fence a
   * block (sp_grid_last), as lrmd.cu's fused pair pass */
  __syncthreads();
  if (!sp_grid_last(a.pcount + tb, nch)) return false;
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) acc[q] = 0;
  for (unsigned k = 0; k < nch; k++)
#pragma unroll
    for (int q = 0; q < SP_MB_AQN; q++)
      acc[q] += __ldcg(P + ((uint64_t)k * SP_MB_AQN + q) * SP_MB_BLOCK);
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) Q[q] = (real)acc[q];
  return true;
}

/* ---- cell lists (mode B; positions, every pair term with a cut-off) ----
 *
 * Built on the device before each pass that needs them, for a state SRC and
 * a cut-off a.crc (sp_mb_cell_grid of mb_args.h: the CPU's grid): the cell
 * of each element and its rank among the elements of its cell (an atomic
 * counter: sp_mb_cell_count_kernel), the cells' first slots (a scan per
 * system: sp_mb_cell_scan_kernel), the elements into their cells' slots
 * (sp_mb_cell_fill_kernel), each cell's elements sorted ascending, as the
 * CPU's stable counting sort leaves them (sp_mb_cell_sort_kernel: a thread
 * a cell), then the states, element parameters and the pair terms' values
 * copied in that order (sp_mb_cell_gather_kernel), so that the neighbours a
 * thread reads lie together.  A pass then takes its targets in the cells'
 * order (slot t: element perm[t]) and sums over the neighbouring cells in
 * the CPU's order (mb_cells_near): the same partners, the same order, the
 * same sums to rounding. */

/* The cell grid of system S for the cut-off rc (a distance; -1 its
 * condition's largest cut-off of the dynamics, -2 of the observables): nc[3],
 * the number of cells. */
__device__ __forceinline__ uint64_t mb_grid(const mb_sys &S, uint64_t n, double rc, int64_t nc[3]) {
  double L[3];
#if SP_MB_POSD > 0
  if (rc == -1) rc = S.pd[SP_MB_RC];
  else if (rc == -2) rc = S.pd[SP_MB_RCO];
#endif
#pragma unroll
  for (int d = 0; d < 3; d++) L[d] = d < SP_MB_POSD ? S.pd[SP_MB_BOX + d] : 1.0;
  return sp_mb_cell_grid(L, SP_MB_POSD, rc, n, nc);
}

/* The cell of a position x (its states). */
__device__ __forceinline__ uint32_t mb_cell(const mb_sys &S, const int64_t nc[3], const real *x) {
  int64_t cc[3] = {0, 0, 0};
#if SP_MB_POSD > 0
  const int px[3] = {SP_MB_PX0, SP_MB_PX1, SP_MB_PX2};
#  pragma unroll
  for (int d = 0; d < SP_MB_POSD; d++)
    cc[d] = sp_mb_cell_of((double)x[px[d]], S.pd[SP_MB_BOX + d], nc[d]);
#endif
  return (uint32_t)((cc[2] * nc[1] + cc[1]) * nc[0] + cc[0]);
}

/* The grid of system s's last cell list (a.cgrid, written by
 * sp_mb_cell_zero_kernel once a build): the cells along each axis, the
 * cells, and nc / L of each axis -- the same double as sp_mb_cell_of's, so
 * the same cells as mb_grid and mb_cell, without their double divisions
 * and loop in every thread (some 300 instructions a warp: as much as the
 * rest of the cells' count). */
struct mb_cg {
  int n0, n1, n2;
  uint32_t ncell;
  double sc[3];
};

__device__ __forceinline__ void mb_cg_load(const sp_mb_kargs &a, uint64_t s, mb_cg &G) {
  const double *g = a.cgrid + s * SP_MB_CGRID;
  G.sc[0] = g[0];
  G.sc[1] = g[1];
  G.sc[2] = g[2];
  G.n0 = (int)g[3];
  G.n1 = (int)g[4];
  G.n2 = (int)g[5];
  G.ncell = (uint32_t)g[6];
}

/* mb_cell through the grid's record. */
__device__ __forceinline__ uint32_t mb_cell_cg(const mb_cg &G, const real *x) {
  int64_t cc[3] = {0, 0, 0};
#if SP_MB_POSD > 0
  const int px[3] = {SP_MB_PX0, SP_MB_PX1, SP_MB_PX2};
  const int nn[3] = {G.n0, G.n1, G.n2};
#  pragma unroll
  for (int d = 0; d < SP_MB_POSD; d++) {
    const int64_t c = (int64_t)((double)x[px[d]] * G.sc[d]);
    cc[d] = c < 0 ? 0 : c >= nn[d] ? nn[d] - 1 : c;
  }
#endif
  return (uint32_t)((cc[2] * G.n1 + cc[1]) * G.n0 + cc[0]);
}

/* The neighbouring cells of cell c, in the CPU's order (mb_cpu.h's
 * sp_mb_cells_near); their count. */
__device__ __forceinline__ int mb_cells_near(uint64_t c, const int64_t nc[3], uint32_t *nbc) {
  /* 32-bit arithmetic (cells < 2 n + 9 < 2^32), the wrap by a compare */
  const int n0 = (int)nc[0], n1 = (int)nc[1], n2 = (int)nc[2], ci = (int)c;
  const int cx = ci % n0, cy = (ci / n0) % n1, cz = ci / (n0 * n1);
  const int rz = n2 >= 3, ry = n1 >= 3, rx = n0 >= 3;
  int k = 0;
  for (int oz = -rz; oz <= rz; oz++) {
    int z = cz + oz;
    z = z < 0 ? z + n2 : z >= n2 ? z - n2 : z;
    for (int oy = -ry; oy <= ry; oy++) {
      int y = cy + oy;
      y = y < 0 ? y + n1 : y >= n1 ? y - n1 : y;
      for (int ox = -rx; ox <= rx; ox++) {
        int x = cx + ox;
        x = x < 0 ? x + n0 : x >= n0 ? x - n0 : x;
        nbc[k++] = (uint32_t)((z * n1 + y) * n0 + x);
      }
    }
  }
  return k;
}

/* Cells: the local system and element of a grid-stride index over nsys x n. */
#define MB_CELL_LOOP(t, total)                                                            \
  for (uint64_t t = (uint64_t)blockIdx.x * SP_MB_BLOCK + threadIdx.x; t < (total);       \
       t += (uint64_t)gridDim.x * SP_MB_BLOCK)

/* The cells' counts zeroed (before sp_mb_cell_count_kernel). */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_zero_kernel(const sp_mb_kargs a) {
  MB_CELL_LOOP(t, a.nsys * (a.cmax + 1)) {
    a.cstart[t] = 0;
    if (t < a.nsys) { /* system t's grid for this build (mb_cg) */
      mb_sys S;
      mb_sys_init(a, t, S);
      int64_t nc[3];
      const uint64_t ncell = mb_grid(S, a.job.n, a.crc, nc);
      double *g = a.cgrid + t * SP_MB_CGRID;
#pragma unroll
      for (int d = 0; d < 3; d++) {
        g[d] = d < SP_MB_POSD ? (double)nc[d] / S.pd[SP_MB_BOX + d] : 0.0;
        g[3 + d] = (double)nc[d];
      }
      g[6] = (double)ncell;
      g[7] = 0;
    }
  }
}

/* Each element's cell and its rank in it (a.cell: cells, then ranks), the
 * cells' counts in a.cstart (zeroed by sp_mb_cell_zero_kernel).  A warp's
 * lanes with the same cell (neighbours in space are often neighbours in
 * number) add their count with one atomic, ranked by lane; the ranks'
 * order is the atomics' (any), sp_mb_cell_sort_kernel orders each cell. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_count_kernel(const sp_mb_kargs a) {
  const uint64_t n = a.job.n, npad = a.npad;
  const unsigned lane = threadIdx.x & 31u;
  MB_CELL_LOOP(t, a.nsys * n) {
    const uint64_t s = t / n, i = t - s * n;
    mb_cg G;
    mb_cg_load(a, s, G);
    real x[SP_MB_NX];
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) x[v] = a.x[(s * SP_MB_NX + (uint64_t)v) * npad + i];
    const uint32_t c = mb_cell_cg(G, x);
    uint32_t *cell = a.cell + s * 3 * npad;
    cell[i] = c;
    uint32_t *ctr = a.cstart + s * (a.cmax + 1) + c;
    const unsigned peers = __match_any_sync(__activemask(), (unsigned long long)ctr);
    const int lead = __ffs(peers) - 1;
    uint32_t base = 0;
    if ((int)lane == lead) base = atomicAdd(ctr, (uint32_t)__popc(peers));
    base = __shfl_sync(peers, base, lead);
    cell[npad + i] = base + (uint32_t)__popc(peers & ((1u << lane) - 1u));
  }
}

/* The counts into first slots, an exclusive scan of each system's cells'
 * counts (cstart[ncell] = n), in two passes over chunks of SP_MB_CCHUNK
 * cells, a block a chunk (SP_MB_CCHUNK / SP_MB_BLOCK cells a thread):
 * sp_mb_cell_part_kernel sums each chunk's counts into a.cpart, then
 * sp_mb_cell_scan_kernel adds up the partial sums of the chunks before its
 * own and scans its chunk from there.  (One block a system took 138 us of a
 * 1e6-particle step on an H100; these two some 10.) */
#define MB_CPT (SP_MB_CCHUNK / SP_MB_BLOCK)

/* A block's sum of the threads' v (every thread gets it). */
__device__ __forceinline__ uint32_t mb_block_sum(uint32_t v, uint32_t *sh) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads(); /* sh free (a loop's previous use) */
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  uint32_t t = 0;
#pragma unroll
  for (int w = 0; w < SP_MB_WARPS; w++) t += sh[w];
  return t;
}

/* The chunk's system, its first cell and the system's cells; false past
 * them. */
__device__ __forceinline__ bool mb_cell_chunk(const sp_mb_kargs &a, uint64_t g, uint64_t nb,
                                              uint64_t *s, uint64_t *lo, uint64_t *ncell) {
  *s = g / nb;
  *lo = (g - *s * nb) * SP_MB_CCHUNK;
  mb_sys S;
  mb_sys_init(a, *s, S);
  int64_t nc[3];
  *ncell = mb_grid(S, a.job.n, a.crc, nc);
  return *lo < *ncell;
}

extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_part_kernel(const sp_mb_kargs a) {
  __shared__ uint32_t sh[SP_MB_WARPS];
  const uint64_t nb = SP_MB_CPARTS(a.cmax);
  for (uint64_t g = blockIdx.x; g < a.nsys * nb; g += gridDim.x) {
    uint64_t s, lo, ncell;
    if (!mb_cell_chunk(a, g, nb, &s, &lo, &ncell)) continue; /* the block's, uniform */
    const uint32_t *c = a.cstart + s * (a.cmax + 1);
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < MB_CPT; k++) {
      const uint64_t q = lo + (uint64_t)k * SP_MB_BLOCK + threadIdx.x;
      if (q < ncell) v += c[q];
    }
    v = mb_block_sum(v, sh);
    if (threadIdx.x == 0) a.cpart[g] = v;
  }
}

extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_scan_kernel(const sp_mb_kargs a) {
  __shared__ uint32_t sh[SP_MB_WARPS];
  __shared__ uint32_t wsum[SP_MB_WARPS];
  const uint64_t nb = SP_MB_CPARTS(a.cmax);
  for (uint64_t g = blockIdx.x; g < a.nsys * nb; g += gridDim.x) {
    uint64_t s, lo, ncell;
    if (!mb_cell_chunk(a, g, nb, &s, &lo, &ncell)) continue;
    uint32_t *c = a.cstart + s * (a.cmax + 1);
    /* the chunks before this one */
    uint32_t base = 0;
    for (uint64_t q = s * nb + threadIdx.x; q < g; q += SP_MB_BLOCK) base += a.cpart[q];
    base = mb_block_sum(base, sh);
    /* this thread's MB_CPT consecutive cells, then the threads' totals
     * scanned across the block (warps by shuffles, then the warps) */
    const uint64_t q0 = lo + (uint64_t)threadIdx.x * MB_CPT;
    uint32_t v[MB_CPT], tot = 0;
#pragma unroll
    for (int k = 0; k < MB_CPT; k++) {
      v[k] = q0 + k < ncell ? c[q0 + k] : 0u;
      tot += v[k];
    }
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    uint32_t inc = tot;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const uint32_t u = __shfl_up_sync(0xffffffffu, inc, o);
      if (lane >= o) inc += u;
    }
    if (lane == 31) wsum[w] = inc;
    __syncthreads();
    uint32_t run = base + inc - tot;
    for (int k = 0; k < w; k++) run += wsum[k];
#pragma unroll
    for (int k = 0; k < MB_CPT; k++) {
      if (q0 + k < ncell) c[q0 + k] = run;
      run += v[k];
    }
    if (lo == 0 && threadIdx.x == 0) c[ncell] = (uint32_t)a.job.n;
    __syncthreads(); /* wsum free for the next chunk */
  }
}

/* Each element into its cell's slots (first slot + rank) of the unsorted
 * list (a.cell's third row). */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_fill_kernel(const sp_mb_kargs a) {
  const uint64_t n = a.job.n, npad = a.npad;
  MB_CELL_LOOP(t, a.nsys * n) {
    const uint64_t s = t / n, i = t - s * n;
    uint32_t *cell = a.cell + s * 3 * npad;
    cell[2 * npad + a.cstart[s * (a.cmax + 1) + cell[i]] + cell[npad + i]] = (uint32_t)i;
  }
}

/* Each cell's elements ascending, from the unsorted list (a.cell's third
 * row) into a.perm: a warp a cell, each element's place the number of the
 * cell's elements below it (distinct elements), counted by shuffles, 32
 * at a time (a cell holds a dozen; any number works).  (A thread a cell by
 * insertion in a.perm took 33 us of a 1e6-particle step on an H100.) */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_sort_kernel(const sp_mb_kargs a) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint64_t nw = (uint64_t)gridDim.x * (SP_MB_BLOCK / 32), npad = a.npad;
  /* w is the same in a warp's lanes: the shuffles' full mask holds */
  for (uint64_t w = ((uint64_t)blockIdx.x * SP_MB_BLOCK + threadIdx.x) >> 5; w < a.nsys * a.cmax;
       w += nw) {
    const uint64_t s = w / a.cmax, c = w - s * a.cmax;
    if (c >= (uint64_t)a.cgrid[s * SP_MB_CGRID + 6]) continue;
    const uint32_t *cs = a.cstart + s * (a.cmax + 1);
    const uint32_t lo = cs[c], cnt = cs[c + 1] - lo;
    const uint32_t *U = a.cell + s * 3 * npad + 2 * npad + lo;
    uint32_t *P = a.perm + s * npad + lo;
    for (uint32_t b = 0; b < cnt; b += 32) {
      const uint32_t l = b + lane;
      const uint32_t v = l < cnt ? U[l] : 0xffffffffu;
      uint32_t rank = 0;
      for (uint32_t m0 = 0; m0 < cnt; m0 += 32) {
        const uint32_t u = m0 + lane < cnt ? U[m0 + lane] : 0xffffffffu;
        const uint32_t lim = cnt - m0 < 32u ? cnt - m0 : 32u;
        for (uint32_t k = 0; k < lim; k++) rank += __shfl_sync(0xffffffffu, u, (int)k) < v;
      }
      if (l < cnt) P[rank] = v;
    }
  }
}

/* The states, element parameters and pair terms' values (at time a.t) in
 * the cells' order: cx, cu. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_cell_gather_kernel(const sp_mb_kargs a) {
  const uint64_t n = a.job.n, npad = a.npad;
  MB_CELL_LOOP(t, a.nsys * n) {
    const uint64_t s = t / n, k = t - s * n;
    const uint64_t i = a.perm[s * npad + k];
    mb_sys S;
    mb_sys_init(a, s, S);
    const real *E = mb_ep(a, s);
    real x[SP_MB_NX], e[SP_MB_EN], u[SP_MB_UN];
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) {
      x[v] = a.x[(s * SP_MB_NX + (uint64_t)v) * npad + i];
      a.cx[(s * SP_MB_NX + (uint64_t)v) * npad + k] = x[v];
    }
#if SP_MB_POSD > 0
    {
      const real q[4] = {x[SP_MB_PX0], SP_MB_POSD > 1 ? x[SP_MB_PX1] : (real)0,
                         SP_MB_POSD > 2 ? x[SP_MB_PX2] : (real)0, (real)0};
      mb_store4(a.cpos + (s * npad + k) * 4, q);
    }
#endif
#pragma unroll
    for (int c = 0; c < SP_MB_EN; c++) e[c] = c < SP_MB_NE ? E[(uint64_t)c * npad + i] : (real)0;
    SP_PREC(mb_pair_pre)(a.t, x, e, S.p, S.pd, (real)(i + 1), u);
    real *cu = a.cu + s * (uint64_t)(SP_MB_EN + SP_MB_UN) * npad;
#pragma unroll
    for (int c = 0; c < SP_MB_EN; c++) cu[(uint64_t)c * npad + k] = e[c];
#pragma unroll
    for (int c = 0; c < SP_MB_UN; c++) cu[(uint64_t)(SP_MB_EN + c) * npad + k] = u[c];
  }
}

/* The pair sums Q of the target in slot `slot` of local system s (element
 * i, states xi, parameters ei) over the partners of the neighbouring cells
 * (the cell list of a.cx, a.cu, a.perm, a.cstart for the cut-off a.crc), in
 * the working precision as the CPU sums them.  OBS: the observables'. */
template <bool OBS>
__device__ __forceinline__ void mb_cell_sums(const sp_mb_kargs &a, const mb_sys &S, uint64_t s,
                                             uint64_t slot, uint64_t i, double t,
                                             const real *xi, const real *ei, real *Q) {
  const uint64_t npad = a.npad;
  mb_cg G;
  mb_cg_load(a, s, G);
  const real fi = (real)(i + 1);
  const real *CX = a.cx + s * (uint64_t)SP_MB_NX * npad;
  const real *CU = a.cu + s * (uint64_t)(SP_MB_EN + SP_MB_UN) * npad;
#if SP_MB_POSD > 0
  const real *CP = a.cpos + s * 4 * npad;
#endif
  const uint32_t *P = a.perm + s * npad, *CS = a.cstart + s * (a.cmax + 1);
  const uint32_t slot32 = (uint32_t)slot;
  real ui[SP_MB_UN], acc[SP_MB_AQN];
#pragma unroll
  for (int c = 0; c < SP_MB_UN; c++) ui[c] = CU[(uint64_t)(SP_MB_EN + c) * npad + slot];
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) acc[q] = 0;
  /* the neighbouring cells in mb_cells_near's order (the CPU's), made on
   * the way (an array of 27 would live in local memory) */
  const int n0 = G.n0, n1 = G.n1, n2 = G.n2;
  const int ci = (int)mb_cell_cg(G, xi);
  const int cx0 = ci % n0, cy0 = (ci / n0) % n1, cz0 = ci / (n0 * n1);
  const int rz = n2 >= 3, ry = n1 >= 3, rx = n0 >= 3;
  for (int oz = -rz; oz <= rz; oz++)
  for (int oy = -ry; oy <= ry; oy++)
  for (int ox = -rx; ox <= rx; ox++) {
    int cz = cz0 + oz, cy = cy0 + oy, cxx = cx0 + ox;
    cz = cz < 0 ? cz + n2 : cz >= n2 ? cz - n2 : cz;
    cy = cy < 0 ? cy + n1 : cy >= n1 ? cy - n1 : cy;
    cxx = cxx < 0 ? cxx + n0 : cxx >= n0 ? cxx - n0 : cxx;
    const uint32_t cc = (uint32_t)((cz * n1 + cy) * n0 + cxx);
    const uint32_t lo = CS[cc], hi = CS[cc + 1];
    /* pointers that walk the cell's slots (one add each a partner, none
     * where the pair terms read nothing from them), 32-bit slots (npad <
     * 2^32), four partners an iteration: some ten instructions a partner
     * fewer than 64-bit slots one at a time */
    const real *pc = CX + lo, *pu = CU + lo;
#if SP_MB_POSD > 0
    const real *p4 = CP + 4 * (uint64_t)lo;
#endif
    const uint32_t *pp = P + lo;
#pragma unroll 4
    for (uint32_t j = lo; j < hi; j++, pc++, pu++, pp++
#if SP_MB_POSD > 0
         , p4 += 4
#endif
    ) {
      if (j == slot32) continue;
      real xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN];
#if SP_MB_POSD > 0
      /* the positions in one vector load, the other states (where the
       * pair terms read them) by rows */
      mb_load_partner(p4, pc, npad, xj);
#else
#  pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) xj[v] = pc[(uint64_t)v * npad];
#endif
#pragma unroll
      for (int c = 0; c < SP_MB_EN; c++) ej[c] = pu[(uint64_t)c * npad];
#pragma unroll
      for (int c = 0; c < SP_MB_UN; c++) uj[c] = pu[(uint64_t)(SP_MB_EN + c) * npad];
      mb_pair_fn<OBS>(t, xi, ei, xj, ej, ui, uj, S, fi, (real)(*pp + 1), acc);
    }
  }
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) Q[q] = acc[q];
}

/* A pass of the pair kernels (KIND euler, p1, p2, split): target block gb
 * = s bps + b, thread per target i = b SP_MB_BLOCK + threadIdx.x (a slice's
 * blocks start at blk0: its targets, all sources); with cell lists
 * (SP_MB_CELLS) the target of slot b SP_MB_BLOCK + threadIdx.x of the
 * cells' order.  All pairs in a.nch > 1 source chunks (mb_pair_block): the
 * chunk blocks of a target block make its chunks' pair sums, and the last
 * of them to finish goes on with the rest of the pass (mb_pair_sums_chunk). */
template <int KIND>
__device__ __forceinline__ void mb_pairs_pass(const sp_mb_kargs &a) {
  const unsigned bps = (unsigned)a.bps;
  uint64_t gb;
  const unsigned chunk = mb_pair_block(a, &gb);
  const uint64_t s = gb / bps;
  const unsigned b = (unsigned)(gb - s * bps);
  if (a.job.use_stop && *(volatile const int *)(a.stopped + s)) return;
  mb_sys S;
  mb_sys_init(a, s, S);
  const uint64_t n = a.job.n, npad = a.npad, off = s * (uint64_t)SP_MB_NX * npad;
  const uint64_t slot = (uint64_t)b * SP_MB_BLOCK + threadIdx.x;
  const bool valid = slot < n;
  const uint64_t i = SP_MB_CELLS ? (valid ? (uint64_t)a.perm[s * npad + slot] : 0) : slot;
  real *X = a.x + off, *Y = a.y + off;
  const real *E = mb_ep(a, s);
  const real *SRC = KIND == MB_P2 ? Y : X; /* the sources of the pair sums */
  real xi[SP_MB_NX], ei[SP_MB_EN], Q[SP_MB_AQN];
  if (SP_MB_CELLS) {
    /* the target's states and parameters from the copy in the cells' order
     * (made from SRC for this pass: the same values, read in order) */
    const real *CX = a.cx + s * (uint64_t)SP_MB_NX * npad;
    const real *CU = a.cu + s * (uint64_t)(SP_MB_EN + SP_MB_UN) * npad;
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xi[v] = valid ? CX[(uint64_t)v * npad + slot] : (real)0;
#pragma unroll
    for (int k = 0; k < SP_MB_EN; k++)
      ei[k] = valid && k < SP_MB_NE ? CU[(uint64_t)k * npad + slot] : (real)0;
  } else {
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xi[v] = valid ? SRC[(uint64_t)v * npad + i] : (real)0;
#pragma unroll
    for (int k = 0; k < SP_MB_EN; k++) ei[k] = valid && k < SP_MB_NE ? E[(uint64_t)k * npad + i] : (real)0;
  }
#pragma unroll
  for (int q = 0; q < SP_MB_AQN; q++) Q[q] = 0;
  const double tp = KIND == MB_P2 ? a.t2 : a.t;
  if (SP_MB_NQP > 0) {
    if (SP_MB_CELLS) {
      if (valid) mb_cell_sums<false>(a, S, s, slot, i, tp, xi, ei, Q);
    } else if (a.nch > 1) { /* uniform: the launch's */
      if (!mb_pair_sums_chunk<false>(a, S, s, b, chunk, SRC, E, valid ? i : 0, tp, xi, ei, Q))
        return; /* not the target block's last chunk */
    } else {
      mb_pair_sums<false>(S, SRC, E, n, npad, valid ? i : 0, b, tp, xi, ei, Q);
    }
  }
  if (SP_MB_NG > 0 && valid) mb_edge_sums(a, S, SRC, E, npad, i, tp, xi, ei, Q);
  real R0[SP_MB_TN], R1[SP_MB_TN], acc[SP_MB_TN];
  mb_load_sums(a, s, 0, R0);
  if (KIND == MB_P2) mb_load_sums(a, s, 1, R1);
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) acc[q] = 0;
  unsigned long long what = SP_MB_NONE;
  if (valid) {
    const real fi = (real)(i + 1), h = (real)a.job.dt, sdt = (real)a.sdt;
    real z[SP_MB_WN], dw[SP_MB_WN], nb[SP_MB_NBN], xn[SP_MB_NX];
    const bool noisy = KIND != MB_SPLIT || a.ostep;
    if (noisy) SP_PREC(sp_mb_normals)(a.seed, S.stream, a.kk, i, n, z);
    else {
#pragma unroll
      for (int w = 0; w < SP_MB_WN; w++) z[w] = 0;
    }
    mb_dw(z, sdt, dw);
    if (KIND == MB_SPLIT) {
      mb_ou O;
      if (SP_MB_METHOD == SP_MB_BAOAB) SP_PREC(sp_mb_ou_coef)(S.p, a.job.dt, O.c1, O.c2, O.which, O.wz);
      mb_gather(S, X, i, n, npad, xi, nb);
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) xn[v] = xi[v];
      mb_split_element(a, S, O, a.t, xn, ei, nb, R0, Q, fi, z);
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) Y[(uint64_t)v * npad + i] = xn[v];
    } else if (KIND != MB_P2) {
      real f0[SP_MB_NX], b0[SP_MB_BN];
      mb_gather(S, X, i, n, npad, xi, nb);
      mb_fb<KIND == MB_P1>(a.t, xi, ei, nb, R0, Q, S, fi, f0, b0);
      mb_predict(xi, f0, b0, dw, h, S.p, xn);
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) Y[(uint64_t)v * npad + i] = xn[v];
      if (KIND == MB_P1) { /* the first stage's drift and noise, for the corrector */
        real *A = a.aux + s * (uint64_t)(SP_MB_NX + SP_MB_NB) * npad;
#pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) A[(uint64_t)v * npad + i] = f0[v];
#pragma unroll
        for (int w = 0; w < SP_MB_NB; w++) A[(uint64_t)(SP_MB_NX + w) * npad + i] = b0[w];
      }
    } else {
      real x[SP_MB_NX], f0[SP_MB_NX], b0[SP_MB_BN], f2[SP_MB_NX], b2[SP_MB_BN];
      const real *A = a.aux + s * (uint64_t)(SP_MB_NX + SP_MB_NB) * npad;
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) {
        x[v] = X[(uint64_t)v * npad + i];
        f0[v] = A[(uint64_t)v * npad + i];
      }
#pragma unroll
      for (int w = 0; w < SP_MB_BN; w++) b0[w] = w < SP_MB_NB ? A[(uint64_t)(SP_MB_NX + w) * npad + i] : (real)0;
      mb_gather(S, Y, i, n, npad, xi, nb);
      mb_fb<true>(a.t2, xi, ei, nb, R1, Q, S, fi, f2, b2);
      mb_correct(x, f0, b0, f2, b2, dw, h, S.p, xn);
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) X[(uint64_t)v * npad + i] = xn[v];
    }
    if (a.sums_on) {
      real Ob[SP_MB_OQN];
      nb[0] = 0;
      mb_load_obs(a, s, i, false, Ob);
      mb_add_terms(a.tt, xn, ei, nb, Ob, S, fi, acc);
    }
    if (a.check) mb_check(xn, i, &what);
  }
  mb_finish(a, S, s, b, acc, what);
}

/* The observables' pair sums of the state a.x into a.obs (a thread an
 * element; through the cell list of a.crc when every observable pair term
 * has a cut-off, else all pairs in tiles), before the measure that reads
 * them. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_obs_kernel(const sp_mb_kargs a) {
#if SP_MB_NQO > 0
  const unsigned bps = (unsigned)a.bps;
  uint64_t gb;
  const unsigned chunk = mb_pair_block(a, &gb); /* all pairs in chunks: as the passes */
  const uint64_t s = gb / bps;
  const unsigned b = (unsigned)(gb - s * bps);
  mb_sys S;
  mb_sys_init(a, s, S);
  const uint64_t n = a.job.n, npad = a.npad;
  const uint64_t slot = (uint64_t)b * SP_MB_BLOCK + threadIdx.x;
  const bool valid = slot < n;
  const bool cells = SP_MB_CUTO;
  const uint64_t i = cells ? (valid ? (uint64_t)a.perm[s * npad + slot] : 0) : slot;
  const real *X = a.x + s * (uint64_t)SP_MB_NX * npad, *E = mb_ep(a, s);
  real xi[SP_MB_NX], ei[SP_MB_EN], O[SP_MB_AQN];
#  pragma unroll
  for (int v = 0; v < SP_MB_NX; v++) xi[v] = valid ? X[(uint64_t)v * npad + i] : (real)0;
#  pragma unroll
  for (int k = 0; k < SP_MB_EN; k++) ei[k] = valid && k < SP_MB_NE ? E[(uint64_t)k * npad + i] : (real)0;
  if (cells) {
    if (valid) mb_cell_sums<true>(a, S, s, slot, i, a.tt, xi, ei, O);
  } else if (a.nch > 1) {
    if (!mb_pair_sums_chunk<true>(a, S, s, b, chunk, X, E, valid ? i : 0, a.tt, xi, ei, O)) return;
  } else {
    mb_pair_sums<true>(S, X, E, n, npad, valid ? i : 0, b, a.tt, xi, ei, O);
  }
  if (valid)
#  pragma unroll
    for (int q = 0; q < SP_MB_NQO; q++) a.obs[(s * (uint64_t)SP_MB_OQN + (uint64_t)q) * npad + i] = O[q];
#else
  (void)a;
#endif
}

/* g(r)'s counts of the state a.x: each pair i < j within rdf_rmax adds 1 to
 * its bin (mb_cpu.h's sp_mb_rdf), through the cell list of cut-off
 * rdf_rmax; counted in shared memory per block, then added to a.rdf. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_rdf_kernel(const sp_mb_kargs a) {
#if SP_MB_POSD > 0
  extern __shared__ unsigned int mb_hist[];
  const unsigned bps = (unsigned)a.bps;
  const uint64_t s = (uint64_t)blockIdx.x / bps;
  const unsigned b = (unsigned)((uint64_t)blockIdx.x - s * bps);
  const int bins = (int)a.job.rdf_bins;
  for (int k = threadIdx.x; k < bins; k += SP_MB_BLOCK) mb_hist[k] = 0;
  __syncthreads();
  mb_sys S;
  mb_sys_init(a, s, S);
  const uint64_t n = a.job.n, npad = a.npad, slot = (uint64_t)b * SP_MB_BLOCK + threadIdx.x;
  if (slot < n) {
    int64_t nc[3];
    mb_grid(S, n, a.crc, nc);
    const real *CX = a.cx + s * (uint64_t)SP_MB_NX * npad;
    const uint32_t *P = a.perm + s * npad, *CS = a.cstart + s * (a.cmax + 1);
    const uint32_t i = P[slot];
    const int px[3] = {SP_MB_PX0, SP_MB_PX1, SP_MB_PX2};
    real xi[SP_MB_NX];
#  pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xi[v] = CX[(uint64_t)v * npad + slot];
    const double scale = (double)bins / a.job.rdf_rmax, rmax2 = a.job.rdf_rmax * a.job.rdf_rmax;
    uint32_t nbc[27];
    const int nn = mb_cells_near(mb_cell(S, nc, xi), nc, nbc);
    for (int k = 0; k < nn; k++) {
      const uint32_t hi = CS[nbc[k] + 1];
      for (uint32_t j = CS[nbc[k]]; j < hi; j++) {
        if (P[j] <= i) continue;
        real r2 = 0;
#  pragma unroll
        for (int d = 0; d < SP_MB_POSD; d++) {
          const real dd = SP_MI(CX[(uint64_t)px[d] * npad + j] - xi[px[d]], S.p[SP_MB_BOX + d],
                                S.p[SP_MB_BOX + 3 + d]);
          r2 += dd * dd;
        }
        if ((double)r2 < rmax2) {
          int bin = (int)(sqrt((double)r2) * scale);
          if (bin >= bins) bin = bins - 1;
          atomicAdd(mb_hist + bin, 1u);
        }
      }
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < bins; k += SP_MB_BLOCK)
    if (mb_hist[k]) atomicAdd(a.rdf + s * (uint64_t)bins + k, (unsigned long long)mb_hist[k]);
#else
  (void)a;
#endif
}

/* The kernels a host launches (sp_gpu_mb.c): the method's passes (the pair
 * kernels for a model with pairs), the measure and the kept states. */
#  if SP_MB_NQ > 0
#    define SP_MB_PASS mb_pairs_pass
#  else
#    define SP_MB_PASS mb_group_pass
#  endif
/* SP_MB_MINB (tuning option mb_blocks_per_sm): the passes' registers
 * capped for that many blocks an SM (unset: no cap) */
#  ifdef SP_MB_MINB
#    define SP_MB_BOUNDS __launch_bounds__(SP_MB_BLOCK, SP_MB_MINB)
#  else
#    define SP_MB_BOUNDS __launch_bounds__(SP_MB_BLOCK)
#  endif
#  define SP_MB_ENTRY(name, kind)                                                    \
    extern "C" __global__ void SP_MB_BOUNDS name(const sp_mb_kargs a) {               \
      SP_MB_PASS<kind>(a);                                                           \
    }
#  if SP_MB_METHOD == SP_MB_EULER
SP_MB_ENTRY(sp_mb_euler_kernel, MB_EULER)
#  elif SP_MB_METHOD == SP_MB_SRK2
SP_MB_ENTRY(sp_mb_p1_kernel, MB_P1)
SP_MB_ENTRY(sp_mb_p2_kernel, MB_P2)
#  else
SP_MB_ENTRY(sp_mb_split_kernel, MB_SPLIT)
#  endif
#  undef SP_MB_ENTRY
#  undef SP_MB_PASS

/* The reduction terms of the state a.x at time a.tt into slot a.wr, and
 * their uses (a record, the event at the start): the start's sums, the
 * records, and the sums of models whose terms read neighbours. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_measure_kernel(const sp_mb_kargs a) {
  mb_group_pass<MB_MEASURE>(a);
}

/* One system in slices (sp_gpu_mb.c: several devices, or streams of one):
 * once every slice's blocks have written their partial sums (a.split) and
 * the slices have copied theirs to each other, each slice adds up all bps
 * partial sums of system blockIdx.x in block order -- mb_finish's last
 * block's sum, so the same numbers as one device's -- and makes what they
 * give (the slot, a record, the event) with the pass's arguments. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_combine_kernel(const sp_mb_kargs a) {
  const uint64_t s = blockIdx.x;
  if (a.job.use_stop && *(volatile const int *)(a.stopped + s)) return; /* as the passes */
  mb_sys S;
  mb_sys_init(a, s, S);
  double v[SP_MB_TN];
  mb_grid_sum<SP_MB_TN>(a.partial + s * (uint64_t)a.bps * SP_MB_TN, a.bps, v);
  if (threadIdx.x == 0) mb_system_done(a, S, s, v);
}

/* One system in slices with cell lists (sp_gpu_mb.c's top): a pass wrote
 * the elements of its slots (perm[slot], scattered over the rows), so each
 * slice packs them in the cells' order, slot by slot, into its exchange
 * rows a.cx (the state a.x, then SRK2's first-stage drift and noise a.aux
 * where given), the slices copy each other their ranges of slots, and each
 * unpacks the others' into its rows -- slots (blockIdx.x + blk0)
 * SP_MB_BLOCK + threadIdx.x, of the one system. */
template <bool PACK>
__device__ __forceinline__ void mb_slice_xchg(const sp_mb_kargs &a) {
#if SP_MB_CELLS
  const uint64_t n = a.job.n, npad = a.npad;
  const uint64_t slot = ((uint64_t)blockIdx.x + a.blk0) * SP_MB_BLOCK + threadIdx.x;
  if (slot >= n) return;
  const uint64_t i = a.perm[slot];
  const int rows = SP_MB_NX + (a.aux ? SP_MB_NX + SP_MB_NB : 0);
  for (int r = 0; r < rows; r++) {
    real *A = r < SP_MB_NX ? a.x + (uint64_t)r * npad : a.aux + (uint64_t)(r - SP_MB_NX) * npad;
    if (PACK) a.cx[(uint64_t)r * npad + slot] = A[i];
    else A[i] = a.cx[(uint64_t)r * npad + slot];
  }
#else
  (void)a;
#endif
}
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_slice_pack_kernel(const sp_mb_kargs a) {
  mb_slice_xchg<true>(a);
}
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_slice_unpack_kernel(const sp_mb_kargs a) {
  mb_slice_xchg<false>(a);
}

#endif /* !SP_MB_SMALL */

/* The states of the kept systems (local s < nkeep) into record rec_j of
 * traj (doubles, the host's layout: element i of state v at v n + i). */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_keep_kernel(const sp_mb_kargs a) {
  const uint64_t n = a.job.n, per = (uint64_t)SP_MB_NX * n, total = a.nkeep * per;
  for (uint64_t t = (uint64_t)blockIdx.x * SP_MB_BLOCK + threadIdx.x; t < total;
       t += (uint64_t)gridDim.x * SP_MB_BLOCK) {
    const uint64_t s = t / per, r = t - s * per, v = r / n, i = r - v * n;
    a.traj[(s * a.job.nrec + a.rec_j) * per + r] = (double)a.x[(s * SP_MB_NX + v) * a.npad + i];
  }
}

/* Each system's histogram of state job.hist_state of a.x on [0, 2 pi)
 * (sp_mb_hist_bin, in double: the CPU's bins) into record rec_j of a.hist:
 * blockIdx.x = s bps + b (bps = ceil(n / SP_MB_HIST_SPAN)), block b counting elements
 * b SP_MB_HIST_SPAN .. (b + 1) SP_MB_HIST_SPAN - 1, in shared memory when
 * the bins fit (SP_MB_HIST_SHARED_MAX; dynamic shared memory of 4 hist_bins
 * bytes; else straight to a.hist), then added to a.hist.  Counts are exact
 * whatever the order. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_hist_kernel(const sp_mb_kargs a) {
  extern __shared__ unsigned int mb_hcount[];
  const uint64_t n = a.job.n, bps = (n + SP_MB_HIST_SPAN - 1) / SP_MB_HIST_SPAN;
  const uint64_t s = (uint64_t)blockIdx.x / bps, b = (uint64_t)blockIdx.x - s * bps;
  const int64_t bins = a.job.hist_bins;
  const bool shared = bins <= SP_MB_HIST_SHARED_MAX;
  unsigned long long *H = a.hist + (s * a.job.nrec + a.rec_j) * (uint64_t)bins;
  const sp_mb_real *x = a.x + (s * SP_MB_NX + (uint64_t)a.job.hist_state) * a.npad;
  const uint64_t i1 = (b + 1) * SP_MB_HIST_SPAN < n ? (b + 1) * SP_MB_HIST_SPAN : n;
  if (shared) {
    for (int64_t k = threadIdx.x; k < bins; k += SP_MB_BLOCK) mb_hcount[k] = 0;
    __syncthreads();
  }
  for (uint64_t i = b * SP_MB_HIST_SPAN + threadIdx.x; i < i1; i += SP_MB_BLOCK) {
    const int64_t k = sp_mb_hist_bin((double)x[i], bins);
    if (shared) atomicAdd(mb_hcount + k, 1u);
    else atomicAdd(H + k, 1ull);
  }
  if (shared) {
    __syncthreads();
    for (int64_t k = threadIdx.x; k < bins; k += SP_MB_BLOCK)
      if (mb_hcount[k]) atomicAdd(H + k, (unsigned long long)mb_hcount[k]);
  }
}

/* The starts of the device's systems from their laws (job x0_cond 2: a.laws,
 * per condition and state kind, a, b; sp_mb_out_init's numbers, drawn here
 * from the same Philox blocks, the normal's logarithm and cosine the
 * device's): into the state array a.x, the padding 0.  Grid-stride over
 * elements. */
extern "C" __global__ void __launch_bounds__(SP_MB_BLOCK) sp_mb_start_kernel(const sp_mb_kargs a) {
  const uint64_t n = a.job.n, total = a.nsys * n;
  uint64_t D = 0;
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++) D += a.laws[3 * v] >= 0;
  if (D == 0) D = 1;
  for (uint64_t t = (uint64_t)blockIdx.x * SP_MB_BLOCK + threadIdx.x; t < total;
       t += (uint64_t)gridDim.x * SP_MB_BLOCK) {
    const uint64_t s = t / n, i = t - s * n, g = a.sys0 + s, c = g / a.job.replicas;
    const uint64_t stream = sp_stream_replica(c, a.job.replica0 + (g - c * a.job.replicas));
    uint64_t d = 0;
    /* not unrolled: a copy of the double logarithm, cosine and tangent per
     * state was the module's largest kernel (a start runs once; its compile
     * is every first call's) */
#pragma unroll 1
    for (int v = 0; v < SP_MB_NX; v++) {
      const double *k = a.laws + 3 * (c * SP_MB_NX + (uint64_t)v);
      double val = k[1];
      if (k[0] >= 0) {
        const int kind = (int)k[0] % SP_MB_LAW_WRAP;
        const sp_u32x4 b = sp_philox_purpose_block(a.seed, SP_PURPOSE_SDE_INIT, stream, i * D + d);
        const double u1 = ((double)((uint64_t)b.x << 21 | b.y >> 11) + 0.5) * 0x1p-53;
        const double pi = 3.14159265358979323846;
        double z = u1;
        if (kind == 1) {
          const double u2 = ((double)((uint64_t)b.z << 21 | b.w >> 11) + 0.5) * 0x1p-53;
          z = sqrt(-2.0 * log(u1)) * cos(2.0 * pi * u2);
        } else if (kind == 2) {
          z = tan(pi * (u1 - 0.5));
        }
        val = kind == 0 ? k[1] + (k[2] - k[1]) * z : k[1] + k[2] * z;
        if (k[0] >= SP_MB_LAW_WRAP) val = sp_mb_wrap_angle(val);
        d++;
      }
      a.x[(s * SP_MB_NX + (uint64_t)v) * a.npad + i] = (real)val;
    }
  }
}

/* ---- mode A: a system a block ---------------------------------------------------- */

#if SP_MB_SMALL

/* The block's sums of the terms acc (each thread's, in the working
 * precision): the warps' lanes by a tree of shuffles, the warps in order,
 * in double, into Rd (shared) and R. */
__device__ __forceinline__ void mb_small_sum(const real acc[SP_MB_TN],
                                             double (*red)[SP_MB_SMALL_MAX / 32], double *Rd,
                                             real R[SP_MB_TN]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) {
    double v = (double)acc[q];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) red[q][warp] = v;
  }
  __syncthreads();
  if (threadIdx.x < SP_MB_TN) {
    double v = 0;
    for (int w = 0; w < nw; w++) v += red[threadIdx.x][w];
    Rd[threadIdx.x] = v;
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) R[q] = (real)Rd[q];
}

/* Mode A's shared memory: the states SX (nx rows of npad), with pair terms
 * the element parameters SE and the pair terms' values SU (ne + nu rows);
 * with positions and pair terms the positions packed (four a slot: a
 * partner's in one vector load), then g(r)'s histogram (sp_gpu_mb.c's
 * shmem). */
#define SP_MB_SMALL_PACK (SP_MB_POSD > 0 && (SP_MB_NQP > 0 || SP_MB_NQO > 0))
__device__ __forceinline__ real *mb_small_p4(real *SX, uint64_t npad) {
  return SX + (uint64_t)(SP_MB_NX + ((SP_MB_NQ > 0 || SP_MB_NQO > 0) ? SP_MB_NE + SP_MB_UN : 0)) *
                  npad;
}

/* The states of the thread's group into the shared copy SX (row stride
 * npad), and the positions packed. */
__device__ __forceinline__ void mb_small_publish(real *SX, uint64_t npad, uint32_t g,
                                                 uint32_t ng, const real x[SP_MB_EPT][SP_MB_NX]) {
  if (g >= ng) return;
#pragma unroll
  for (int v = 0; v < SP_MB_NX; v++)
#pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++) SX[(uint64_t)v * npad + SP_MB_EPT * g + u] = x[u][v];
#if SP_MB_SMALL_PACK
  real *P4 = mb_small_p4(SX, npad);
#  pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++) {
    const real q[4] = {x[u][SP_MB_PX0], SP_MB_POSD > 1 ? x[u][SP_MB_PX1] : (real)0,
                       SP_MB_POSD > 2 ? x[u][SP_MB_PX2] : (real)0, (real)0};
    mb_store4(P4 + 4 * ((uint64_t)SP_MB_EPT * g + u), q);
  }
#endif
}

/* One tile's pair sums tq[u] of the thread's elements (the first, i0 - j0
 * within the tile: i0; its number as a real: fi0) over the m sources of
 * rows TX, TE, TU (T4: their packed positions) from j0 (f0 = j0 + 1); DIAG:
 * the targets' own tile, whose source k == i0 - j0 + u is left out. */
template <bool OBS, bool DIAG>
__device__ __forceinline__ void mb_small_tile(const mb_sys &S, const real *TX, const real *TE,
                                              const real *TU, const real *T4, uint64_t npad,
                                              int m, int i0, uint64_t f0, double t,
                                              const real x[SP_MB_EPT][SP_MB_NX],
                                              const real e[SP_MB_EPT][SP_MB_EN],
                                              const real ui[SP_MB_EPT][SP_MB_UN], real fi0,
                                              real tq[SP_MB_EPT][SP_MB_AQN]) {
  /* the pointers walk the tile (one add each a partner, none where the
   * pair terms read nothing from them) */
#pragma unroll SP_MB_UNROLL
  for (int k = 0; k < m; k++, TX++, TE++, TU++, T4 += 4) {
    real xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN];
#if SP_MB_SMALL_PACK
    mb_load_partner(T4, TX, npad, xj);
#else
#  pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) xj[v] = TX[(uint64_t)v * npad];
#endif
#pragma unroll
    for (int c = 0; c < SP_MB_EN; c++) ej[c] = c < SP_MB_NE ? TE[(uint64_t)c * npad] : (real)0;
#pragma unroll
    for (int c = 0; c < SP_MB_UN; c++) uj[c] = TU[(uint64_t)c * npad];
    const real fj = (real)(f0 + (uint64_t)k);
#pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++) {
      if (DIAG) {
        real one[SP_MB_AQN];
#pragma unroll
        for (int q = 0; q < SP_MB_AQN; q++) one[q] = 0;
        mb_pair_fn<OBS>(t, x[u], e[u], xj, ej, ui[u], uj, S, fi0 + (real)u, fj, one);
        if (k != i0 + u)
#pragma unroll
          for (int q = 0; q < SP_MB_AQN; q++) tq[u][q] += one[q];
      } else {
        mb_pair_fn<OBS>(t, x[u], e[u], xj, ej, ui[u], uj, S, fi0 + (real)u, fj, tq[u]);
      }
    }
  }
  (void)T4; (void)TX;
}

/* The pair sums Q[u] of the thread's four elements over the system's
 * states in SX (parameters SE), tile by tile as mb_pair_sums (OBS: the
 * observables' pair terms), then (the dynamics') the edge sums over their
 * rows of the graph. */
template <bool OBS>
__device__ __forceinline__ void mb_small_pairs(const sp_mb_kargs &a, const mb_sys &S,
                                               const real *SX, const real *SE, real *SU,
                                               uint64_t n, uint64_t npad, uint32_t g,
                                               uint32_t ng, double t, const real x[SP_MB_EPT][SP_MB_NX],
                                               const real e[SP_MB_EPT][SP_MB_EN],
                                               real Q[SP_MB_EPT][SP_MB_AQN]) {
#pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++)
#pragma unroll
    for (int q = 0; q < SP_MB_AQN; q++) Q[u][q] = 0;
  if (OBS ? SP_MB_NQO > 0 : SP_MB_NQP > 0) {
    double acc[SP_MB_EPT][SP_MB_AQN];
    real ui[SP_MB_EPT][SP_MB_UN];
    const uint64_t own = (SP_MB_EPT * (uint64_t)g / SP_MB_TILE) * SP_MB_TILE;
    /* the elements' values for the pair terms, each thread its own four
     * (SU was last read before the barriers of the publish that came before) */
#pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++) {
      SP_PREC(mb_pair_pre)(t, x[u], e[u], S.p, S.pd, (real)(SP_MB_EPT * (uint64_t)g + u + 1), ui[u]);
      if (g < ng)
#pragma unroll
        for (int c = 0; c < SP_MB_UN; c++) SU[(uint64_t)c * npad + SP_MB_EPT * g + u] = ui[u][c];
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++)
#pragma unroll
      for (int q = 0; q < SP_MB_AQN; q++) acc[u][q] = 0;
    for (uint64_t j0 = 0; j0 < n; j0 += SP_MB_TILE) {
      const int m = n - j0 < SP_MB_TILE ? (int)(n - j0) : SP_MB_TILE;
      real tq[SP_MB_EPT][SP_MB_AQN];
#pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++)
#pragma unroll
        for (int q = 0; q < SP_MB_AQN; q++) tq[u][q] = 0;
      /* the tile's rows from j0, 32-bit offsets k (some ten instructions
       * a partner fewer than 64-bit ones); the targets' own tile (j == i
       * left out) in a loop of its own */
      const real *TX = SX + j0, *TE = SE + j0, *TU = SU + j0;
#if SP_MB_SMALL_PACK
      const real *T4 = mb_small_p4(const_cast<real *>(SX), npad) + 4 * j0;
#else
      const real *T4 = TX;
#endif
      if (j0 == own)
        mb_small_tile<OBS, true>(S, TX, TE, TU, T4, npad, m, (int)(SP_MB_EPT * g - j0), j0 + 1,
                                 t, x, e, ui, (real)(SP_MB_EPT * (uint64_t)g + 1), tq);
      else
        mb_small_tile<OBS, false>(S, TX, TE, TU, T4, npad, m, 0, j0 + 1, t, x, e, ui,
                                  (real)(SP_MB_EPT * (uint64_t)g + 1), tq);
#pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++)
#pragma unroll
        for (int q = 0; q < SP_MB_AQN; q++) acc[u][q] += (double)tq[u][q];
    }
#pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++)
#pragma unroll
      for (int q = 0; q < SP_MB_AQN; q++) Q[u][q] = (real)acc[u][q];
  }
#if SP_MB_NG > 0
  if (!OBS) {
#  pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++) {
      const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
      if (i < n) mb_edge_sums(a, S, SX, SE, npad, i, t, x[u], e[u], Q[u]);
    }
  }
#endif
  (void)a; (void)SE; (void)SU; (void)ng; (void)e;
}

#if SP_MB_POSD > 0
/* g(r)'s counts of the system's positions in SX (mode A, at a record):
 * the pairs of the thread's four elements with every later element, into
 * the block's histogram H (shared), then added to a.rdf. */
__device__ __forceinline__ void mb_small_rdf(const sp_mb_kargs &a, const mb_sys &S, uint64_t s,
                                             const real *SX, uint64_t n, uint64_t npad, uint32_t g,
                                             const real x[SP_MB_EPT][SP_MB_NX], unsigned int *H) {
  const int bins = (int)a.job.rdf_bins;
  const int px[3] = {SP_MB_PX0, SP_MB_PX1, SP_MB_PX2};
  const double scale = (double)bins / a.job.rdf_rmax, rmax2 = a.job.rdf_rmax * a.job.rdf_rmax;
  for (int k = threadIdx.x; k < bins; k += blockDim.x) H[k] = 0;
  __syncthreads();
#pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++) {
    const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
    if (i >= n) continue;
    for (uint64_t j = i + 1; j < n; j++) {
      real r2 = 0;
#pragma unroll
      for (int d = 0; d < SP_MB_POSD; d++) {
        const real dd = SP_MI(SX[(uint64_t)px[d] * npad + j] - x[u][px[d]], S.p[SP_MB_BOX + d],
                              S.p[SP_MB_BOX + 3 + d]);
        r2 += dd * dd;
      }
      if ((double)r2 < rmax2) {
        int b = (int)(sqrt((double)r2) * scale);
        if (b >= bins) b = bins - 1;
        atomicAdd(H + b, 1u);
      }
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < bins; k += blockDim.x)
    if (H[k]) atomicAdd(a.rdf + s * (uint64_t)bins + k, (unsigned long long)H[k]);
}
#endif

/* The block's sums of the reduction terms of the thread's four elements
 * (states x; neighbours from SX, published, when the terms read them) at
 * time t, into R (and Rd). */
__device__ __forceinline__ void mb_small_terms(const mb_sys &S, const real *SX, uint64_t n,
                                               uint64_t npad, uint32_t g,
                                               const real x[SP_MB_EPT][SP_MB_NX],
                                               const real e[SP_MB_EPT][SP_MB_EN],
                                               const real O[SP_MB_EPT][SP_MB_AQN], double t,
                                               double (*red)[SP_MB_SMALL_MAX / 32], double *Rd,
                                               real R[SP_MB_TN]) {
  real acc[SP_MB_TN];
#pragma unroll
  for (int q = 0; q < SP_MB_TN; q++) acc[q] = 0;
#pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++) {
    const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
    if (i < n) {
      real nb[SP_MB_NBN];
      if (SP_MB_TERMS_NB) mb_gather(S, SX, i, n, npad, x[u], nb);
      else nb[0] = 0;
      mb_add_terms(t, x[u], e[u], nb, O[u], S, (real)(i + 1), acc);
    }
  }
  mb_small_sum(acc, red, Rd, R);
}

/* One system per block (see the top).  Dynamic shared memory: the states
 * (nx x npad) and, with pairs, the element parameters (ne x npad) and the
 * elements' values for the pair terms (nu x npad). */
extern "C" __global__ void __launch_bounds__(SP_MB_SMALL_MAX, SP_MB_SMALL_MINB) sp_mb_small_kernel(const sp_mb_kargs a) {
  extern __shared__ __align__(16) unsigned char mb_dyn[];
  __shared__ double red[SP_MB_TN][SP_MB_SMALL_MAX / 32];
  __shared__ double Rd[SP_MB_TN];
  __shared__ int sflag;
  __shared__ unsigned long long swhat;
  const uint64_t s = blockIdx.x;
  if (a.job.use_stop && a.stopped[s]) return; /* block-uniform */
  if (a.badk[s] != SP_MB_NONE) return;
  mb_sys S;
  mb_sys_init(a, s, S);
  const uint64_t n = a.job.n, npad = a.npad;
  const uint32_t g = threadIdx.x, ng = (uint32_t)(npad / SP_MB_EPT);
  real *SX = reinterpret_cast<real *>(mb_dyn);
  real *SE = SX + (uint64_t)SP_MB_NX * npad;
  real *SU = SE + (uint64_t)SP_MB_NE * npad; /* pairs: the elements' values */
  real *Xg = a.x + s * (uint64_t)SP_MB_NX * npad;
  const real *E = mb_ep(a, s);
  const double t0 = a.job.t0, dt = a.job.dt;
  const real h = (real)dt, sdt = (real)a.sdt, hh = (real)(0.5 * dt);
  real x[SP_MB_EPT][SP_MB_NX], e[SP_MB_EPT][SP_MB_EN], R[SP_MB_TN];
#pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++) {
    const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
#pragma unroll
    for (int v = 0; v < SP_MB_NX; v++) x[u][v] = i < n ? Xg[(uint64_t)v * npad + i] : (real)0;
#pragma unroll
    for (int k = 0; k < SP_MB_EN; k++)
      e[u][k] = i < n && k < SP_MB_NE ? E[(uint64_t)k * npad + i] : (real)0;
  }
  real Oz[SP_MB_EPT][SP_MB_AQN]; /* the observables' pair sums: 0 but at a record */
#pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++)
#pragma unroll
    for (int q = 0; q < SP_MB_AQN; q++) Oz[u][q] = 0;
  if ((SP_MB_NQ > 0 || SP_MB_NQO > 0) && SP_MB_NE > 0 && g < ng)
#pragma unroll
    for (int k = 0; k < SP_MB_EN; k++)
#pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++) SE[(uint64_t)k * npad + SP_MB_EPT * g + u] = e[u][k];
  if (threadIdx.x == 0) {
    sflag = 0;
    swhat = SP_MB_NONE;
  }
  /* the block's sums of the terms of the states in x at time tr, into R */
#define MB_SMALL_REDUCE(tr) mb_small_terms(S, SX, n, npad, g, x, e, Oz, (tr), red, Rd, R)
  /* publish the states (others read them), between barriers */
#define MB_SMALL_PUBLISH()                                                                 \
  do {                                                                                     \
    if (SP_MB_SHARE) {                                                                     \
      __syncthreads();                                                                     \
      mb_small_publish(SX, npad, g, ng, x);                                                \
      __syncthreads();                                                                     \
    }                                                                                      \
  } while (0)
  MB_SMALL_PUBLISH();
  __syncthreads(); /* SE, sflag, swhat */
  {
    const double tc = t0 + (double)a.kcur * dt;
    if (SP_MB_NT > 0) MB_SMALL_REDUCE(tc);
    if (a.start && a.job.use_stop) { /* the event at the call's start */
      if (threadIdx.x == 0 && SP_PREC(mb_stop)(tc, R, S.p, S.pd)) sflag = 1;
      __syncthreads();
      if (sflag) {
        if (threadIdx.x == 0) {
          a.stopped[s] = 1;
          a.kstop[s] = a.kcur;
          a.xbuf[s] = 0;
          atomicAdd(a.flags, 1u);
        }
        return;
      }
    }
  }
  const bool reduce_dyn = SP_MB_ND > 0;
#if SP_MB_METHOD == SP_MB_BAOAB
  real F[SP_MB_EPT][SP_MB_NX]; /* the forces of the positions x (mb_cpu.h's s->F) */
  mb_ou O;
  SP_PREC(sp_mb_ou_coef)(S.p, dt, O.c1, O.c2, O.which, O.wz);
  {
    const double tc = t0 + (double)a.kcur * dt;
    real Q[SP_MB_EPT][SP_MB_AQN];
    mb_small_pairs<false>(a, S, SX, SE, SU, n, npad, g, ng, tc, x, e, Q);
#  pragma unroll
    for (int u = 0; u < SP_MB_EPT; u++) {
      const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
      if (i < n) {
        real nb[SP_MB_NBN];
        mb_gather(S, SX, i, n, npad, x[u], nb);
        SP_PREC(mb_force)(tc, x[u], e[u], nb, R, Q[u], S.p, S.pd, (real)(i + 1), F[u]);
      }
    }
  }
#endif
  uint64_t k = a.kcur;
  int ended = 0; /* 1: stopped, 2: non-finite */
  for (; k < a.kend; k++) {
    const double t = t0 + (double)k * dt, tn = t0 + (double)(k + 1) * dt;
    const uint64_t kk = a.job.k0 + k;
#if SP_MB_METHOD == SP_MB_EULER || SP_MB_METHOD == SP_MB_SRK2
    {
      real z[SP_MB_EPT][SP_MB_WN], f0[SP_MB_EPT][SP_MB_NX], b0[SP_MB_EPT][SP_MB_BN], y[SP_MB_EPT][SP_MB_NX], Q[SP_MB_EPT][SP_MB_QN];
      mb_small_normals(a.seed, S.stream, kk, g, n, z);
      mb_small_pairs<false>(a, S, SX, SE, SU, n, npad, g, ng, t, x, e, Q);
#  pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++) {
        const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
        real nb[SP_MB_NBN], dw[SP_MB_WN];
        mb_dw(z[u], sdt, dw);
        if (i < n) {
          mb_gather(S, SX, i, n, npad, x[u], nb);
          mb_fb<SP_MB_HEUN>(t, x[u], e[u], nb, R, Q[u], S, (real)(i + 1), f0[u], b0[u]);
          mb_predict(x[u], f0[u], b0[u], dw, h, S.p, y[u]);
        } else {
#  pragma unroll
          for (int v = 0; v < SP_MB_NX; v++) y[u][v] = 0;
        }
      }
#  if SP_MB_METHOD == SP_MB_SRK2
      {
        const double t2 = t + dt;
        real R1[SP_MB_TN], xs[SP_MB_EPT][SP_MB_NX];
#    pragma unroll
        for (int u = 0; u < SP_MB_EPT; u++)
#    pragma unroll
          for (int v = 0; v < SP_MB_NX; v++) {
            xs[u][v] = x[u][v];
            x[u][v] = y[u][v]; /* x holds the predictor for the publish and the sums */
          }
        MB_SMALL_PUBLISH();
        if (reduce_dyn) {
          MB_SMALL_REDUCE(t2);
#    pragma unroll
          for (int q = 0; q < SP_MB_TN; q++) R1[q] = R[q];
        } else {
#    pragma unroll
          for (int q = 0; q < SP_MB_TN; q++) R1[q] = 0;
        }
        mb_small_pairs<false>(a, S, SX, SE, SU, n, npad, g, ng, t2, x, e, Q);
#    pragma unroll
        for (int u = 0; u < SP_MB_EPT; u++) {
          const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
          real nb[SP_MB_NBN], dw[SP_MB_WN], f2[SP_MB_NX], b2[SP_MB_BN];
          mb_dw(z[u], sdt, dw);
          if (i < n) {
            mb_gather(S, SX, i, n, npad, y[u], nb);
            mb_fb<true>(t2, y[u], e[u], nb, R1, Q[u], S, (real)(i + 1), f2, b2);
            mb_correct(xs[u], f0[u], b0[u], f2, b2, dw, h, S.p, x[u]);
          }
        }
      }
#  else
#    pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++)
#    pragma unroll
        for (int v = 0; v < SP_MB_NX; v++) x[u][v] = y[u][v];
#  endif
      MB_SMALL_PUBLISH();
    }
#elif SP_MB_METHOD == SP_MB_BAOAB
    {
      real z[SP_MB_EPT][SP_MB_WN];
      mb_small_normals(a.seed, S.stream, kk, g, n, z);
#  pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++) {
        const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
        if (i < n) {
          SP_PREC(mb_kick)(x[u], F[u], hh);
          SP_PREC(mb_move)(x[u], e[u], S.p, (real)(i + 1), hh);
          mb_ostep(O, z[u], x[u]);
          SP_PREC(mb_move)(x[u], e[u], S.p, (real)(i + 1), hh);
        }
      }
      MB_SMALL_PUBLISH();
      const double t2 = t + dt;
      if (reduce_dyn) MB_SMALL_REDUCE(t2);
      real Q[SP_MB_EPT][SP_MB_AQN];
      mb_small_pairs<false>(a, S, SX, SE, SU, n, npad, g, ng, t2, x, e, Q);
#  pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++) {
        const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
        if (i < n) {
          real nb[SP_MB_NBN];
          mb_gather(S, SX, i, n, npad, x[u], nb);
          SP_PREC(mb_force)(t2, x[u], e[u], nb, R, Q[u], S.p, S.pd, (real)(i + 1), F[u]);
          SP_PREC(mb_kick)(x[u], F[u], hh);
        }
      }
      if (SP_MB_TERMS_NB) MB_SMALL_PUBLISH(); /* the kicked momenta, for the sums */
    }
#else /* verlet, yoshida4: the DKD stages */
    {
      double d[4], c[4], tq = t;
      const int ns = SP_MB_METHOD == SP_MB_VERLET ? 2 : 4;
      sp_mb_stages(SP_MB_METHOD, d, c);
#  pragma unroll
      for (int st = 0; st < ns; st++) {
        const real hk = (real)(d[st] * dt), hc = (real)(c[st] * dt);
        if (d[st] != 0) {
          real Q[SP_MB_EPT][SP_MB_AQN];
          mb_small_pairs<false>(a, S, SX, SE, SU, n, npad, g, ng, tq, x, e, Q);
#  pragma unroll
          for (int u = 0; u < SP_MB_EPT; u++) {
            const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
            real nb[SP_MB_NBN], f[SP_MB_NX];
            if (i < n) {
              mb_gather(S, SX, i, n, npad, x[u], nb);
              SP_PREC(mb_force)(tq, x[u], e[u], nb, R, Q[u], S.p, S.pd, (real)(i + 1), f);
              if (hk != 0) SP_PREC(mb_kick)(x[u], f, hk);
            }
          }
        }
        if (hc != 0) {
#  pragma unroll
          for (int u = 0; u < SP_MB_EPT; u++) {
            const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
            if (i < n) SP_PREC(mb_move)(x[u], e[u], S.p, (real)(i + 1), hc);
          }
        }
        tq += c[st] * dt;
        MB_SMALL_PUBLISH();
        if (reduce_dyn && st + 1 < ns && d[st + 1] != 0) MB_SMALL_REDUCE(tq);
      }
    }
#endif
    /* the state after step k + 1: non-finite?  (the least element, state) */
    {
      unsigned long long what = SP_MB_NONE;
#pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++) {
        const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
        if (i < n) mb_check(x[u], i, &what);
      }
      if (__syncthreads_or(what != SP_MB_NONE)) {
        if (what != SP_MB_NONE) atomicMin(&swhat, what);
        __syncthreads();
        if (threadIdx.x == 0) mb_flag(a, s, k + 1, swhat);
        ended = 2;
        k++;
        break;
      }
    }
    if (a.job.use_stop) {
      MB_SMALL_REDUCE(tn);
      if (threadIdx.x == 0 && SP_PREC(mb_stop)(tn, R, S.p, S.pd)) sflag = 1;
      __syncthreads();
      if (sflag) {
        if (threadIdx.x == 0) {
          a.stopped[s] = 1;
          a.kstop[s] = k + 1;
          a.xbuf[s] = 0;
          atomicAdd(a.flags, 1u);
        }
        ended = 1;
        k++;
        break;
      }
    } else if (reduce_dyn && SP_MB_METHOD <= SP_MB_SRK2) {
      MB_SMALL_REDUCE(tn); /* the next step's sums */
    }
  }
  /* a record at kend: the observables (with their pair sums), g(r), the
   * kept states */
  if (a.record && ended == 0) {
    const double tr = t0 + (double)a.kend * dt;
    if (!SP_MB_SHARE && (SP_MB_NQO > 0 || a.job.rdf_bins > 0)) { /* others read the states */
      __syncthreads();
      mb_small_publish(SX, npad, g, ng, x);
      __syncthreads();
    }
#if SP_MB_POSD > 0
    if (a.job.rdf_bins > 0) {
      /* after the shared states (and, with pair terms, the parameters and
       * values): sp_gpu_mb.c's shared memory */
      unsigned int *H = reinterpret_cast<unsigned int *>(
          mb_small_p4(SX, npad) + (SP_MB_SMALL_PACK ? 4 * npad : 0));
      mb_small_rdf(a, S, s, SX, n, npad, g, x, H);
    }
#endif
    if (SP_MB_NQO > 0) {
      real Orec[SP_MB_EPT][SP_MB_AQN];
      mb_small_pairs<true>(a, S, SX, SE, SU, n, npad, g, ng, tr, x, e, Orec);
      mb_small_terms(S, SX, n, npad, g, x, e, Orec, tr, red, Rd, R);
    } else {
      MB_SMALL_REDUCE(tr);
    }
    if (threadIdx.x == 0 && SP_MB_NO > 0) {
      real o[SP_MB_ON];
      SP_PREC(mb_observe)(tr, R, S.p, S.pd, o);
      for (int q = 0; q < SP_MB_NO; q++)
        a.rec[(s * a.job.nrec + a.rec_j) * (uint64_t)SP_MB_NO + q] = (double)o[q];
    }
    if (s < a.nkeep) {
      double *tr_ = a.traj + (s * a.job.nrec + a.rec_j) * (uint64_t)SP_MB_NX * n;
#pragma unroll
      for (int u = 0; u < SP_MB_EPT; u++) {
        const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
        if (i < n)
#pragma unroll
          for (int v = 0; v < SP_MB_NX; v++) tr_[(uint64_t)v * n + i] = (double)x[u][v];
      }
    }
  }
#undef MB_SMALL_REDUCE
#undef MB_SMALL_PUBLISH
#pragma unroll
  for (int u = 0; u < SP_MB_EPT; u++) {
    const uint64_t i = SP_MB_EPT * (uint64_t)g + u;
    if (i < n)
#pragma unroll
      for (int v = 0; v < SP_MB_NX; v++) Xg[(uint64_t)v * npad + i] = x[u][v];
  }
}

#endif /* SP_MB_SMALL */
