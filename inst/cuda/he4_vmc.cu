/* he4_vmc.cu: variational Monte Carlo of liquid 4He (paper 002) on the GPU.
 *
 * Paper 002's design on a current GPU: one warp (a thread block of 32
 * threads) per walker, its coordinates resident in shared memory for a whole
 * launch (a round of `budget` sweeps); the lanes of the walker split the O(N)
 * pair sum of each
 * trial move and the O(N^2) local energy at measurement points; the host
 * receives block means only.  The physics and the random numbers are those of
 * he4_vmc.h, as on the CPU: walker w's chain is the CPU's chain (to the
 * rounding of the pair sums' order).
 *
 * Compiled once per precision (SP_REAL float with SP_REAL_SINGLE: "mixed";
 * or double).
 *
 * A walker checks the coordinates of every accepted move (so the first atom
 * with a non-finite coordinate after a sweep, which the CPU finds by a scan)
 * and every measurement's energies; a non-finite one stops it, recorded in
 * its state (bad_sweep, bad_what, bad_atom: sp_vmc_stop, out of line, so
 * the check holds no register in the move loop), which the host reads after
 * the launch and reports. */
#include "he4_vmc_args.h"
#include "he4_vmc.h"

/* One warp per walker (SP_VMC_BLOCK, he4_vmc_args.h): the pair sums of a
 * move are a warp reduction (a butterfly of shuffles, whose result is the
 * same in every lane because a + b = b + a), so a move needs no barrier,
 * only a __syncwarp after an accepted move's store; the random numbers of
 * 32 moves are drawn ahead, one move per lane, and read with shuffles.  bench/RESULTS.md, helium run
 * 2, compares this with the first kernel (a block of 128 threads per
 * walker, two barriers a move, every thread running Philox for every
 * move). */

/* Partner loops unrolled SP_VMC_UNROLL times (independent pair terms in
 * flight at once; bench/he4.R compares 1 and 4). */
#ifndef SP_VMC_UNROLL
#  define SP_VMC_UNROLL 1
#endif
#define SP_VMC_PRAGMA_(x) _Pragma(#x)
#define SP_VMC_PRAGMA(x) SP_VMC_PRAGMA_(x)

template <typename T> __device__ __forceinline__ T sp_warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

#ifndef SP_VMC_FAST
#  define SP_VMC_FAST 0
#endif
#if SP_VMC_FAST
/* The variants "*_fast" (SP_VMC_FAST; bench/he4.R compares them with the
 * others).  The same chains and observables, fewer instructions:
 * - trial moves: the pair terms of every partner computed and then
 *   selected (r^2 < rc^2, j != i) instead of branched on (some lane of the
 *   warp is inside the cut nearly always, so the branch saved nothing);
 *   in single precision the minimum image with a rounding constant instead
 *   of rint (no conversion unit), u from powers of 1/r with b^5 folded in
 *   (sp_he4_jastrow_u2c) and the hardware approximations (SP_HE4_APPROX);
 *   in double the pair terms are those of the other kernels and the CPU,
 *   number for number (same chains);
 * - measurement: each pair once (i < j), its gradient term added to both
 *   atoms in a fixed order, so the result is the same on every run: the
 *   warp takes the atoms in tiles of 32, lane l holding atom 32 a + l of
 *   tile a; in step k of tile pair (a, b) lane l meets atom
 *   32 b + ((l + k) mod 32) and carries that atom's gradient sum, passed on
 *   to lane l - 1 after the step (a shuffle), so that after 32 steps every
 *   lane holds the sum of its own atom 32 b + l.  Tile b's sums wait, from
 *   row a to row a + 1, in the walker's global coordinate copy (dead during
 *   a launch, rewritten at its end), each lane reading and writing only its
 *   own atoms' entries. */
#  ifdef SP_REAL_SINGLE
/* d - L rint(d / L) for |d| < L (coordinates in [0, L)): the product is
 * rounded to an integer by adding 1.5 * 2^23 (fused, so no separate
 * rounding of d / L; a different image only where both are at L/2, outside
 * the cut) */
__device__ __forceinline__ float sp_vmc_mi(const sp_he4_par_f &p, float d) {
  const float k = fmaf(d, p.invL, 12582912.0f) - 12582912.0f;
  return fmaf(-p.L, k, d);
}
#  else
__device__ __forceinline__ double sp_vmc_mi(const sp_he4_par_d &p, double d) {
  return sp_he4_min_image_d(&p, d);
}
#  endif

/* u(r) of a partner at r^2 (not yet selected on the cut): c5 = -(1/2) b^5 */
__device__ __forceinline__ SP_REAL sp_vmc_u_fast(const SP_HE4(sp_he4_par) &p, SP_REAL c5,
                                                 SP_REAL r2) {
#  ifdef SP_REAL_SINGLE
  return sp_he4_jastrow_u2c_f(&p, c5, r2);
#  else
  (void)c5;
  return sp_he4_jastrow_u2_d(&p, r2);
#  endif
}

/* One pair (i, j) of the measurement, taken when `ok` and r^2 < rc^2:
 * V and lap u to the lane's sums, g d to atom i's gradient sum and -g d to
 * atom j's (cg = (5/2) b^5); with WU (the "_usum" variants, single
 * precision) also u to both atoms' sums of u (c5 = -(1/2) b^5). */
template <bool WU>
__device__ __forceinline__ void sp_vmc_pair_fast(const SP_HE4(sp_he4_par) &p, SP_REAL cg,
                                                 SP_REAL c5, SP_REAL xi, SP_REAL yi, SP_REAL zi,
                                                 const SP_REAL *x, const SP_REAL *y,
                                                 const SP_REAL *z, int j, bool ok, SP_REAL *gi,
                                                 SP_REAL *gj, SP_REAL *vt, SP_REAL *lt,
                                                 SP_REAL *ui, SP_REAL *uj) {
  const SP_REAL dx = sp_vmc_mi(p, xi - x[j]), dy = sp_vmc_mi(p, yi - y[j]),
                dz = sp_vmc_mi(p, zi - z[j]);
  const SP_REAL r2 = dx * dx + dy * dy + dz * dz;
  SP_REAL v, g, l, u = 0;
#  ifdef SP_REAL_SINGLE
  sp_he4_pair_terms_cu_f(&p, cg, c5, r2, &v, &g, &l, WU ? &u : 0);
#  else
  (void)cg;
  (void)c5;
  sp_he4_pair_terms2_d(&p, r2, &v, &g, &l);
#  endif
  ok = ok && r2 < p.rc2;
  v = ok ? v : (SP_REAL)0;
  g = ok ? g : (SP_REAL)0;
  l = ok ? l : (SP_REAL)0;
  if (WU) {
    u = ok ? u : (SP_REAL)0;
    *ui += u;
    *uj += u;
  }
  *vt += v;
  *lt += l;
  gi[0] += g * dx;
  gi[1] += g * dy;
  gi[2] += g * dz;
  gj[0] -= g * dx;
  gj[1] -= g * dy;
  gj[2] -= g * dz;
}

/* The sums of a measurement (as sp_vmc_atom's over every atom, the same in
 * every lane after the caller's warp sums): pot (twice the potential), lap,
 * g2; G: 3 n scratch values of the walker (gradient sums of later tiles).
 * With WU also every atom's sum of u into U (shared), as the partner terms
 * of the "_usum" moves compute u (c5 = -(1/2) b^5); Gu: n scratch values
 * (the sums of later tiles). */
template <bool WU>
__device__ __forceinline__ void sp_vmc_measure_body(const SP_HE4(sp_he4_par) &p,
                                                    const SP_REAL *x, const SP_REAL *y,
                                                    const SP_REAL *z, int n, SP_REAL *G,
                                                    int lane, double *pot, double *lap,
                                                    double *g2, SP_REAL c5, SP_REAL *Gu,
                                                    SP_REAL *U) {
  const SP_REAL b2 = p.b * p.b, cg = (SP_REAL)2.5 * (b2 * b2 * p.b);
  const int nt = (n + 31) >> 5;
  double ps = 0, ls = 0, gs = 0;
  for (int ta = 0; ta < nt; ta++) {
    const int i = 32 * ta + lane;
    const bool vi = i < n;
    const int ic = vi ? i : n - 1;
    const SP_REAL xi = x[ic], yi = y[ic], zi = z[ic];
    SP_REAL gi[3] = {0, 0, 0}, gj[3] = {0, 0, 0}, vt = 0, lt = 0, ui = 0, uj = 0;
    if (ta > 0 && vi) {
      gi[0] = G[i];
      gi[1] = G[n + i];
      gi[2] = G[2 * n + i];
      if (WU) ui = Gu[i];
    }
    /* the tile with itself: lane l meets l + k, k = 1 .. 16 (k = 16: lanes
     * 0 .. 15 only), each pair once */
    for (int k = 1; k <= 16; k++) {
      const int j = 32 * ta + ((lane + k) & 31);
      const bool ok = vi && j < n && (k < 16 || lane < 16);
      sp_vmc_pair_fast<WU>(p, cg, c5, xi, yi, zi, x, y, z, min(j, n - 1), ok, gi, gj, &vt, &lt,
                           &ui, &uj);
      if (k < 16) {
        for (int c = 0; c < 3; c++) gj[c] = __shfl_sync(0xffffffffu, gj[c], (lane + 1) & 31);
        if (WU) uj = __shfl_sync(0xffffffffu, uj, (lane + 1) & 31);
      }
    }
    /* lane l holds the sum of atom l + 16 */
    for (int c = 0; c < 3; c++) gi[c] += __shfl_xor_sync(0xffffffffu, gj[c], 16);
    if (WU) ui += __shfl_xor_sync(0xffffffffu, uj, 16);
    ps += (double)vt;
    ls += (double)lt;
    for (int tb = ta + 1; tb < nt; tb++) {
      gj[0] = gj[1] = gj[2] = 0;
      vt = lt = 0;
      uj = 0;
      for (int k = 0; k < 32; k++) {
        const int j = 32 * tb + ((lane + k) & 31);
        sp_vmc_pair_fast<WU>(p, cg, c5, xi, yi, zi, x, y, z, min(j, n - 1), vi && j < n, gi, gj,
                             &vt, &lt, &ui, &uj);
        for (int c = 0; c < 3; c++) gj[c] = __shfl_sync(0xffffffffu, gj[c], (lane + 1) & 31);
        if (WU) uj = __shfl_sync(0xffffffffu, uj, (lane + 1) & 31);
      }
      ps += (double)vt;
      ls += (double)lt;
      const int jh = 32 * tb + lane; /* lane l holds the sum of this atom */
      if (jh < n) {
        if (ta == 0) {
          G[jh] = gj[0];
          G[n + jh] = gj[1];
          G[2 * n + jh] = gj[2];
          if (WU) Gu[jh] = uj;
        } else {
          G[jh] += gj[0];
          G[n + jh] += gj[1];
          G[2 * n + jh] += gj[2];
          if (WU) Gu[jh] += uj;
        }
      }
    }
    if (vi) gs += (double)gi[0] * (double)gi[0] + (double)gi[1] * (double)gi[1] +
                  (double)gi[2] * (double)gi[2];
    if (WU && vi) U[i] = ui;
  }
  *pot += 2 * ps;
  *lap += 2 * ls;
  *g2 += gs;
}

__device__ void sp_vmc_measure_fast(const SP_HE4(sp_he4_par) &p, const SP_REAL *x,
                                    const SP_REAL *y, const SP_REAL *z, int n, SP_REAL *G,
                                    int lane, double *pot, double *lap, double *g2) {
  sp_vmc_measure_body<false>(p, x, y, z, n, G, lane, pot, lap, g2, (SP_REAL)0, 0, 0);
}
#endif

#ifndef SP_VMC_USUM
#  define SP_VMC_USUM 0
#endif
#if SP_VMC_USUM
#  if !SP_VMC_FAST || !defined(SP_REAL_SINGLE)
#    error "SP_VMC_USUM needs SP_VMC_FAST in single precision"
#  endif
/* The variants "*_usum" (SP_VMC_USUM, single precision): each atom's sum
 * of u over its partners, U_i = sum_{j != i} u(r_ij), kept in shared
 * memory, so that a trial move of atom i evaluates u at its new position
 * only: ln psi' - ln psi = sum_j u(r_i'j) - U_i.  The new terms wait in
 * shared memory (T); only an accepted move evaluates the old ones, to
 * update its partners' sums, U_j += u(r_i'j) - u(r_ij), and sets U_i to
 * the new sum.  At the acceptance of about 0.45 the tuning aims at, a move
 * costs about 1.45 pair terms a partner instead of 2 (bench/RESULTS.md,
 * helium).  The sums are single precision, kept in global memory between
 * launches, and computed afresh
 * - by the last measurement of every block, which evaluates every pair's
 *   terms anyway and adds u to both atoms' sums (sp_vmc_measure_u), and by
 *   the same function at the start of a call: a continuation from a result
 *   starts after a block, with the sums that block's end computed from the
 *   same coordinates, so it is one longer call exactly, whatever the
 *   launches;
 * - and by sp_vmc_usum_fresh every SP_VMC_USUM_RESYNC sweeps since the last
 *   of those (the call's start or a block's end: sp_vmc_usum_resync), a
 *   function of the call's sweep count and its block layout only.
 * Between two fresh sums a sum carries the roundings of its updates: at
 * most about 0.45 x N / 2 x SP_VMC_USUM_RESYNC of them, a random walk of
 * relative size 2^-24 sqrt(that), about 1e-5 (the sum of a move's own
 * float terms is good to about 1e-6). */
#  ifndef SP_VMC_USUM_RESYNC
#    define SP_VMC_USUM_RESYNC 64
#  endif
/* The new term of atom i at (xn, yn, zn) with partner j: 0 for j = i and
 * beyond the cut. */
__device__ __forceinline__ float sp_vmc_usum_term(const sp_he4_par_f &p, float c5,
                                                  const float *x, const float *y,
                                                  const float *z, int i, int j, float xn,
                                                  float yn, float zn) {
  const float dx = sp_vmc_mi(p, xn - x[j]), dy = sp_vmc_mi(p, yn - y[j]),
              dz = sp_vmc_mi(p, zn - z[j]);
  const float r2 = dx * dx + dy * dy + dz * dz;
  const float u = sp_vmc_u_fast(p, c5, r2);
  return (j != i && r2 < p.rc2) ? u : 0.0f;
}

__device__ void sp_vmc_usum_fresh(const sp_he4_par_f &p, float c5, const float *x,
                                  const float *y, const float *z, int n, float *U, int lane) {
  for (int i = lane; i < n; i += SP_VMC_BLOCK) {
    const float xi = x[i], yi = y[i], zi = z[i];
    float s = 0;
    for (int j = 0; j < n; j++) s += sp_vmc_usum_term(p, c5, x, y, z, i, j, xi, yi, zi);
    U[i] = s;
  }
  __syncwarp();
}

/* A measurement that also sets every atom's sum of u (U, shared memory),
 * with the walker's global copy of the sums (Gu, dead during a launch) as
 * scratch: the block's last measurement, and the sums at a call's start
 * (its energies unused).  The two are the same source, so the same
 * operations on the same coordinates give the same sums (as this
 * measurement and the one inlined in mixed_fast_u4 give the same energies,
 * bit for bit: the GPU test).  Inlined: a call of one copy cost the kernel
 * 125 registers against 100 (NVRTC, sm_90, groups of 4). */
__device__ __forceinline__ void sp_vmc_measure_u(const sp_he4_par_f &p, const float *x,
                                              const float *y, const float *z, int n, float *G,
                                              int lane, double *pot, double *lap, double *g2,
                                              float c5, float *Gu, float *U) {
  sp_vmc_measure_body<true>(p, x, y, z, n, G, lane, pot, lap, g2, c5, Gu, U);
  __syncwarp(); /* every sum is in */
}

/* Fresh sums by sp_vmc_usum_fresh before sweep `sweep` of the call (0-based)?
 * Every SP_VMC_USUM_RESYNC sweeps after the last point the sums were
 * computed by a measurement: the call's start (sweep 0) until the first
 * block has ended, then the last block's end. */
__device__ __forceinline__ bool sp_vmc_usum_resync(const sp_vmc_kargs &a, uint64_t sweep) {
  const uint64_t e = a.equilibration, b = a.block_sweeps;
  const uint64_t last = sweep < e + b ? 0 : e + (sweep - e) / b * b;
  return sweep > last && (sweep - last) % SP_VMC_USUM_RESYNC == 0;
}

/* The partner loops of a move take SP_VMC_GROUP partners a lane at a time,
 * every load of a group before any store: T, U and the coordinates are
 * parts of one shared-memory array, so the compiler may not move a later
 * partner's loads above an earlier partner's store, and one store a
 * partner serialised the partners' dependent chains (the reciprocal square
 * root, the reciprocal: bench/RESULTS.md, helium, the _usum runs).  8 a
 * group: 2.4 per cent more sweeps/s than 4 on an H200 at N = 512 (120
 * registers, still 16 warps an SM; the same loops as templates over the
 * group size, with groups of 4 for the rest, lost 3 per cent: RESULTS,
 * 2026-11-29). */
#  ifndef SP_VMC_GROUP
#    define SP_VMC_GROUP 8
#  endif

/* A trial move of atom i to (xn, yn, zn): the sum of the new terms over
 * this lane's partners j = lane + 32 k; each term in T[j].  Whole groups
 * first (no bound checks), then the partners left one at a time. */
__device__ __forceinline__ float sp_vmc_usum_new(const sp_he4_par_f &p, float c5, const float *x,
                                                 const float *y, const float *z, int n, int i,
                                                 float xn, float yn, float zn, float *T,
                                                 int lane) {
  float part = 0;
  int j = lane;
  for (; j + (SP_VMC_GROUP - 1) * SP_VMC_BLOCK < n; j += SP_VMC_GROUP * SP_VMC_BLOCK) {
    float t[SP_VMC_GROUP];
#  pragma unroll
    for (int k = 0; k < SP_VMC_GROUP; k++)
      t[k] = sp_vmc_usum_term(p, c5, x, y, z, i, j + k * SP_VMC_BLOCK, xn, yn, zn);
#  pragma unroll
    for (int k = 0; k < SP_VMC_GROUP; k++) {
      T[j + k * SP_VMC_BLOCK] = t[k];
      part += t[k];
    }
  }
  for (; j < n; j += SP_VMC_BLOCK) {
    const float t = sp_vmc_usum_term(p, c5, x, y, z, i, j, xn, yn, zn);
    T[j] = t;
    part += t;
  }
  return part;
}

/* Partner j's sum after an accepted move of atom i from (xo, yo, zo) whose
 * new sum is sn: its new term (T) less its old one; atom i's: sn. */
__device__ __forceinline__ float sp_vmc_usum_next(const sp_he4_par_f &p, float c5,
                                                  const float *x, const float *y,
                                                  const float *z, int i, int j, float xo,
                                                  float yo, float zo, float sn, const float *T,
                                                  const float *U) {
  const float dx = sp_vmc_mi(p, xo - x[j]), dy = sp_vmc_mi(p, yo - y[j]),
              dz = sp_vmc_mi(p, zo - z[j]);
  const float r2 = dx * dx + dy * dy + dz * dz;
  const float uo = sp_vmc_u_fast(p, c5, r2);
  const float t = T[j] - ((j != i && r2 < p.rc2) ? uo : 0.0f);
  return j == i ? sn : U[j] + t;
}

/* An accepted move: every partner's sum (this lane's), as sp_vmc_usum_new
 * takes them. */
__device__ __forceinline__ void sp_vmc_usum_update(const sp_he4_par_f &p, float c5,
                                                   const float *x, const float *y,
                                                   const float *z, int n, int i, float xo,
                                                   float yo, float zo, float sn, const float *T,
                                                   float *U, int lane) {
  int j = lane;
  for (; j + (SP_VMC_GROUP - 1) * SP_VMC_BLOCK < n; j += SP_VMC_GROUP * SP_VMC_BLOCK) {
    float nu[SP_VMC_GROUP];
#  pragma unroll
    for (int k = 0; k < SP_VMC_GROUP; k++)
      nu[k] = sp_vmc_usum_next(p, c5, x, y, z, i, j + k * SP_VMC_BLOCK, xo, yo, zo, sn, T, U);
#  pragma unroll
    for (int k = 0; k < SP_VMC_GROUP; k++) U[j + k * SP_VMC_BLOCK] = nu[k];
  }
  for (; j < n; j += SP_VMC_BLOCK) U[j] = sp_vmc_usum_next(p, c5, x, y, z, i, j, xo, yo, zo, sn, T, U);
}

/* A trial move of atom i to (xn, yn, zn), as sp_vmc_usum_new, with the
 * update of the previous move, which was accepted (atom pi from (pxo, pyo,
 * pzo), its new sum psn), in the same partner loop: the two terms of a
 * partner are independent chains the compiler interleaves, as in
 * mixed_fast_u4's loop, instead of an update loop between the decision and
 * the next trial.  The same arithmetic as sp_vmc_usum_update then
 * sp_vmc_usum_new (the same sums, the same chains); the caller reads U[i]
 * after a __syncwarp. */
__device__ __forceinline__ float sp_vmc_usum_new_update(
    const sp_he4_par_f &p, float c5, const float *x, const float *y, const float *z, int n,
    int i, float xn, float yn, float zn, int pi, float pxo, float pyo, float pzo, float psn,
    float *T, float *U, int lane) {
  float part = 0;
  int j = lane;
  for (; j + (SP_VMC_GROUP - 1) * SP_VMC_BLOCK < n; j += SP_VMC_GROUP * SP_VMC_BLOCK) {
    float t[SP_VMC_GROUP], nu[SP_VMC_GROUP];
#  pragma unroll
    for (int k = 0; k < SP_VMC_GROUP; k++) {
      const int jj = j + k * SP_VMC_BLOCK;
      nu[k] = sp_vmc_usum_next(p, c5, x, y, z, pi, jj, pxo, pyo, pzo, psn, T, U);
      t[k] = sp_vmc_usum_term(p, c5, x, y, z, i, jj, xn, yn, zn);
    }
#  pragma unroll
    for (int k = 0; k < SP_VMC_GROUP; k++) {
      U[j + k * SP_VMC_BLOCK] = nu[k];
      T[j + k * SP_VMC_BLOCK] = t[k];
      part += t[k];
    }
  }
  for (; j < n; j += SP_VMC_BLOCK) {
    const float nu = sp_vmc_usum_next(p, c5, x, y, z, pi, j, pxo, pyo, pzo, psn, T, U);
    const float t = sp_vmc_usum_term(p, c5, x, y, z, i, j, xn, yn, zn);
    U[j] = nu;
    T[j] = t;
    part += t;
  }
  return part;
}
#endif

/* Block means, state and coordinates at the end of block `blk`. */
__device__ void sp_vmc_block_end(const sp_vmc_kargs &a, int w, uint64_t blk, const SP_REAL *x,
                                 const SP_REAL *y, const SP_REAL *z, const double *sum,
                                 uint64_t nmeas, uint64_t acc, uint64_t tried, double step,
                                 uint64_t moves) {
  const int n = a.n;
  double *sv = a.saved + (size_t)w * (size_t)n * 3;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    sv[3 * i] = (double)x[i];
    sv[3 * i + 1] = (double)y[i];
    sv[3 * i + 2] = (double)z[i];
  }
  if (a.nbins > 0) {
    double *h = a.hist + (size_t)w * a.nbins;
    double *t = a.hist + ((size_t)a.nwalkers + w) * a.nbins;
    for (int k = threadIdx.x; k < a.nbins; k += blockDim.x) {
      h[k] += t[k];
      t[k] = 0;
    }
  }
  if (threadIdx.x == 0) {
    double *row = a.block + ((size_t)w * a.blocks + blk) * SP_VMC_NOBS;
    for (int k = 0; k < SP_VMC_ACCEPTANCE; k++) row[k] = sum[k] / (double)nmeas;
    row[SP_VMC_ACCEPTANCE] = (double)acc / (double)tried;
    a.saved_step[w] = step;
    a.saved_moves[w] = (double)moves;
    a.done[w] = (int32_t)(blk + 1);
  }
}

/* A walker stopped by a non-finite state after sweep `sweep`: what and the
 * atom, in its state for the host (which reads it after the launch). */
__device__ __noinline__ void sp_vmc_stop(sp_vmc_walker_state *s, uint64_t sweep, int what,
                                         int atom) {
  if (s->bad_sweep != 0) return; /* the first only */
  s->bad_sweep = sweep;
  s->bad_what = what;
  s->bad_atom = atom;
}

/* The block's walker among the job's (every condition, condition-major)
 * and its condition's pair parameters (these two helpers rather than the
 * same expressions through a local index: 2 to 6 registers fewer in several
 * variants, bench/registers.R he4_vmc). */
__device__ __forceinline__ uint64_t sp_vmc_job_walker(const sp_vmc_kargs &a) {
  return (uint64_t)a.first + (uint64_t)blockIdx.x;
}
__device__ __forceinline__ const sp_he4_pair *sp_vmc_pair(const sp_vmc_kargs &a) {
  return a.pairs + sp_vmc_job_walker(a) / (uint64_t)a.per_cond;
}

#ifndef SP_VMC_MINBLOCKS
#  define SP_VMC_MINBLOCKS 1
#endif
extern "C" __global__ void __launch_bounds__(SP_VMC_BLOCK, SP_VMC_MINBLOCKS)
    sp_vmc_kernel(const sp_vmc_kargs a) {
  extern __shared__ double sp_vmc_smem[];
  /* w: the walker among the device's; jw: among the job's (every
   * condition), which gives its condition and its stream */
  const int w = (int)blockIdx.x, lane = threadIdx.x;
  const int n = a.n;
  const uint64_t walker =
      sp_vmc_walker_stream(a.walker0, (uint64_t)a.per_cond, sp_vmc_job_walker(a));
  const sp_he4_pair *pair = sp_vmc_pair(a);
#if SP_VMC_USUM
  /* U: each atom's sum of u; T: the trial move's partner terms */
  SP_REAL *U = (SP_REAL *)sp_vmc_smem;
  SP_REAL *x = (SP_REAL *)(U + n), *y = x + n, *z = y + n, *T = z + n;
  SP_REAL *Ug = (SP_REAL *)a.usum + (size_t)w * (size_t)n;
#else
  SP_REAL *x = (SP_REAL *)sp_vmc_smem, *y = x + n, *z = y + n;
#endif
  SP_REAL *g = (SP_REAL *)a.xyz + (size_t)w * 3 * (size_t)n;
  sp_vmc_walker_state *s = a.ws + w;
  /* the condition's pair parameters, a copy in every lane's registers (a
   * copy in shared memory, set by lane 0, took 4 registers fewer in the
   * _fast variants, but the partner loop then reads L, 1/L and the cut-off
   * from shared memory: -4.9 per cent walker-sweeps/s on an H100, where this
   * copy gives the rate of the kernel-parameter version before the
   * one-launch sweeps; bench/RESULTS.md, "Issue 23's last reruns") */
  SP_HE4(sp_he4_par) p;
  double step = s->step, sum[4];
  uint64_t moves = s->moves, sweep = s->sweep, acc = s->acc, tried = s->tried,
           nmeas = s->nmeas;
  const uint64_t total = a.equilibration + a.blocks * a.block_sweeps;
  uint64_t end = sweep + a.budget;
  if (end > total) end = total;
  if (s->bad_sweep != 0) end = sweep; /* stopped by a non-finite state */
  for (int k = 0; k < 4; k++) sum[k] = s->sum[k];
  SP_HE4(sp_he4_par_load)(&p, pair);
  if (sweep == 0) {
    /* a call's start: the host's coordinates (the saved state, x y z of
     * each atom in double), in the working precision */
    const double *sv = a.saved + (size_t)w * 3 * (size_t)n;
    for (int i = lane; i < 3 * n; i += SP_VMC_BLOCK) {
      const int at = i / 3;
      x[(i - 3 * at) * n + at] = (SP_REAL)sv[i];
    }
  } else {
    for (int i = lane; i < 3 * n; i += SP_VMC_BLOCK) x[i] = g[i];
  }
  __syncwarp(); /* the coordinates are seen by every lane */
#if SP_VMC_FAST
  const SP_REAL c5 = (SP_REAL)(-0.5) * (p.b * p.b) * (p.b * p.b) * p.b;
#endif
#if SP_VMC_USUM
  if (sweep == 0) {
    double e0 = 0, e1 = 0, e2 = 0;
    sp_vmc_measure_u(p, x, y, z, n, g, lane, &e0, &e1, &e2, c5, Ug, U);
  } else {
    for (int i = lane; i < n; i += SP_VMC_BLOCK) U[i] = Ug[i];
    __syncwarp();
  }
#endif
  while (sweep < end) {
    const SP_REAL st = (SP_REAL)step;
#if SP_VMC_USUM
    if (sp_vmc_usum_resync(a, sweep)) sp_vmc_usum_fresh(p, c5, x, y, z, n, U, lane);
#endif
    SP_REAL d0 = 0, d1 = 0, d2 = 0, du = 0;
#if SP_VMC_USUM
    /* the accepted move whose update waits for the next trial's loop */
    int pi = -1;
    SP_REAL pxo = 0, pyo = 0, pzo = 0, psn = 0;
#endif
    for (int i = 0; i < n; i++) {
      const int slot = i & 31;
      if (slot == 0) {
        /* lane l draws the numbers of move `moves + l` (of the 32 ahead,
         * those of this sweep) */
        SP_REAL d[3] = {0, 0, 0};
        if (i + lane < n) SP_HE4(sp_vmc_draws)(a.seed, walker, moves + (uint64_t)lane, d, &du);
        d0 = d[0];
        d1 = d[1];
        d2 = d[2];
      }
      const SP_REAL e0 = __shfl_sync(0xffffffffu, d0, slot);
      const SP_REAL e1 = __shfl_sync(0xffffffffu, d1, slot);
      const SP_REAL e2 = __shfl_sync(0xffffffffu, d2, slot);
      const SP_REAL u = __shfl_sync(0xffffffffu, du, slot);
      moves++;
      const SP_REAL xo = x[i], yo = y[i], zo = z[i];
      const SP_REAL xn = SP_HE4(sp_vmc_wrap)(&p, xo + st * e0);
      const SP_REAL yn = SP_HE4(sp_vmc_wrap)(&p, yo + st * e1);
      const SP_REAL zn = SP_HE4(sp_vmc_wrap)(&p, zo + st * e2);
      SP_REAL part = 0;
#if SP_VMC_USUM
      /* the new terms only (T: for an accepted move's update), with the
       * previous move's update when it was accepted */
      if (pi >= 0)
        part = sp_vmc_usum_new_update(p, c5, x, y, z, n, i, xn, yn, zn, pi, pxo, pyo, pzo, psn,
                                      T, U, lane);
      else
        part = sp_vmc_usum_new(p, c5, x, y, z, n, i, xn, yn, zn, T, lane);
      pi = -1;
#elif SP_VMC_FAST
      SP_VMC_PRAGMA(unroll SP_VMC_UNROLL)
      for (int j = lane; j < n; j += SP_VMC_BLOCK) {
        const SP_REAL xj = x[j], yj = y[j], zj = z[j];
        SP_REAL dx = sp_vmc_mi(p, xn - xj), dy = sp_vmc_mi(p, yn - yj),
                dz = sp_vmc_mi(p, zn - zj);
        const SP_REAL r2n = dx * dx + dy * dy + dz * dz;
        dx = sp_vmc_mi(p, xo - xj);
        dy = sp_vmc_mi(p, yo - yj);
        dz = sp_vmc_mi(p, zo - zj);
        const SP_REAL r2o = dx * dx + dy * dy + dz * dz;
        const SP_REAL un = sp_vmc_u_fast(p, c5, r2n), uo = sp_vmc_u_fast(p, c5, r2o);
        const bool other = j != i;
        part += ((other && r2n < p.rc2) ? un : (SP_REAL)0) -
                ((other && r2o < p.rc2) ? uo : (SP_REAL)0);
      }
#else
      SP_VMC_PRAGMA(unroll SP_VMC_UNROLL)
      for (int j = lane; j < n; j += SP_VMC_BLOCK)
        if (j != i) part += SP_HE4(sp_vmc_du)(&p, xo, yo, zo, xn, yn, zn, x[j], y[j], z[j]);
#endif
#if SP_VMC_USUM
      const SP_REAL sn = sp_warp_sum(part);
      __syncwarp(); /* U[i], updated by its lane */
      const SP_REAL dl = sn - U[i];
#else
      const SP_REAL dl = sp_warp_sum(part);
#endif
      tried++;
      if (SP_HE4(sp_vmc_accept)(dl, u)) {
        acc++;
#if SP_VMC_USUM
        /* the partners' sums (each lane its own partners, whose new terms
         * it wrote to T) and the moved atom's, its new sum: in the next
         * trial's loop, or after the sweep */
        pi = i;
        pxo = xo;
        pyo = yo;
        pzo = zo;
        psn = sn;
#endif
        if (lane == 0) {
          x[i] = xn;
          y[i] = yn;
          z[i] = zn;
        }
        /* the first atom an accepted move makes non-finite in this sweep:
         * the first with a non-finite coordinate after it, which the CPU
         * finds by a scan */
        if (lane == 0 && !(isfinite(xn) && isfinite(yn) && isfinite(zn)))
          sp_vmc_stop(s, sweep + 1, SP_VMC_BAD_COORDINATE, i);
      }
      __syncwarp(); /* the move is seen by every lane */
    }
#if SP_VMC_USUM
    /* the sweep's last move, when accepted */
    if (pi >= 0) {
      sp_vmc_usum_update(p, c5, x, y, z, n, pi, pxo, pyo, pzo, psn, T, U, lane);
      __syncwarp();
    }
#endif
    uint64_t k = sweep++;
    /* stop after a sweep that made a coordinate non-finite (before a
     * measurement, whose g(r) bins would take a NaN distance for an index) */
    if (__shfl_sync(0xffffffffu, *(volatile uint64_t *)&s->bad_sweep, 0) != 0) break;
    if (k < a.equilibration) {
      if (sweep % SP_VMC_TUNE_SWEEPS == 0 || sweep == a.equilibration) {
        if (a.tune) step = sp_vmc_tuned_step(step, acc, tried, a.target, sp_vmc_pair(a)->rc);
        acc = tried = 0;
      }
      continue;
    }
    k -= a.equilibration;
    if ((k + 1) % a.measure_every == 0) {
      double pot = 0, lap = 0, g2 = 0, obs[SP_VMC_NOBS];
#if SP_VMC_USUM
      /* the block's last measurement computes the sums of u afresh */
      if ((k + 1) % a.block_sweeps == 0)
        sp_vmc_measure_u(p, x, y, z, n, g, lane, &pot, &lap, &g2, c5, Ug, U);
      else
        sp_vmc_measure_fast(p, x, y, z, n, g, lane, &pot, &lap, &g2);
#elif SP_VMC_FAST
      sp_vmc_measure_fast(p, x, y, z, n, g, lane, &pot, &lap, &g2);
#else
      for (int i = lane; i < n; i += SP_VMC_BLOCK)
        SP_HE4(sp_vmc_atom)(&p, x, y, z, n, i, &pot, &lap, &g2);
#endif
      pot = sp_warp_sum(pot);
      lap = sp_warp_sum(lap);
      g2 = sp_warp_sum(g2);
      sp_vmc_observables(n, pot, lap, g2, obs);
      {
        /* the same in every lane (the warp sums are) */
        const int bad = sp_vmc_observables_bad(obs);
        if (bad >= 0) {
          if (lane == 0) sp_vmc_stop(s, sweep, bad, -1);
          break;
        }
      }
      for (int q = 0; q < 4; q++) sum[q] += obs[q];
      nmeas++;
      if (a.nbins > 0) {
        double *t = a.hist + ((size_t)a.nwalkers + w) * a.nbins;
        const double scale = (double)a.nbins / pair->rc;
        for (int i = lane; i < n; i += SP_VMC_BLOCK) {
          for (int j = i + 1; j < n; j++) {
            double dx = (double)SP_HE4(sp_he4_min_image)(&p, x[i] - x[j]);
            double dy = (double)SP_HE4(sp_he4_min_image)(&p, y[i] - y[j]);
            double dz = (double)SP_HE4(sp_he4_min_image)(&p, z[i] - z[j]);
            int b = (int)(sqrt(dx * dx + dy * dy + dz * dz) * scale);
            if (b < a.nbins) atomicAdd(t + b, 1.0);
          }
        }
      }
    }
    if ((k + 1) % a.block_sweeps == 0) {
      __syncwarp(); /* this block's histogram counts are in */
      __threadfence_block();
      sp_vmc_block_end(a, w, k / a.block_sweeps, x, y, z, sum, nmeas, acc, tried, step, moves);
      for (int q = 0; q < 4; q++) sum[q] = 0;
      nmeas = acc = tried = 0;
    }
  }
  __syncwarp();
  for (int i = lane; i < 3 * n; i += SP_VMC_BLOCK) g[i] = x[i];
#if SP_VMC_USUM
  for (int i = lane; i < n; i += SP_VMC_BLOCK) Ug[i] = U[i];
#endif
  if (lane == 0) {
    s->step = step;
    for (int q = 0; q < 4; q++) s->sum[q] = sum[q];
    s->moves = moves;
    s->sweep = sweep;
    s->acc = acc;
    s->tried = tried;
    s->nmeas = nmeas;
  }
}
