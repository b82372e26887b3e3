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
 * or double). */
#include "he4_vmc_args.h"
#include "he4_vmc.h"

/* One warp per walker: the pair sums of a move are a warp reduction (a
 * butterfly of shuffles, whose result is the same in every lane because
 * a + b = b + a), so a move needs no barrier, only a __syncwarp after an
 * accepted move's store; the random numbers of 32 moves are drawn ahead,
 * one move per lane, and read with shuffles.  bench/RESULTS.md, helium run
 * 2, compares this with the first kernel (a block of 128 threads per
 * walker, two barriers a move, every thread running Philox for every
 * move). */
#define SP_VMC_BLOCK 32
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

#ifndef SP_VMC_MINBLOCKS
#  define SP_VMC_MINBLOCKS 1
#endif
extern "C" __global__ void __launch_bounds__(SP_VMC_BLOCK, SP_VMC_MINBLOCKS)
    sp_vmc_kernel(const sp_vmc_kargs a) {
  extern __shared__ double sp_vmc_smem[];
  const int w = blockIdx.x, lane = threadIdx.x;
  const int n = a.n;
  const uint64_t walker = a.walker0 + (uint64_t)w;
  SP_REAL *x = (SP_REAL *)sp_vmc_smem, *y = x + n, *z = y + n;
  SP_REAL *g = (SP_REAL *)a.xyz + (size_t)w * 3 * (size_t)n;
  sp_vmc_walker_state *s = a.ws + w;
  SP_HE4(sp_he4_par) p;
  double step = s->step, sum[4];
  uint64_t moves = s->moves, sweep = s->sweep, acc = s->acc, tried = s->tried,
           nmeas = s->nmeas;
  const uint64_t total = a.equilibration + a.blocks * a.block_sweeps;
  uint64_t end = sweep + a.budget;
  if (end > total) end = total;
  for (int k = 0; k < 4; k++) sum[k] = s->sum[k];
  SP_HE4(sp_he4_par_load)(&p, &a.pair);
  for (int i = lane; i < 3 * n; i += SP_VMC_BLOCK) x[i] = g[i];
  __syncwarp();
  while (sweep < end) {
    const SP_REAL st = (SP_REAL)step;
    SP_REAL d0 = 0, d1 = 0, d2 = 0, du = 0;
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
      SP_VMC_PRAGMA(unroll SP_VMC_UNROLL)
      for (int j = lane; j < n; j += SP_VMC_BLOCK)
        if (j != i) part += SP_HE4(sp_vmc_du)(&p, xo, yo, zo, xn, yn, zn, x[j], y[j], z[j]);
      const SP_REAL dl = sp_warp_sum(part);
      tried++;
      if (SP_HE4(sp_vmc_accept)(dl, u)) {
        acc++;
        if (lane == 0) {
          x[i] = xn;
          y[i] = yn;
          z[i] = zn;
        }
      }
      __syncwarp(); /* the move is seen by every lane */
    }
    uint64_t k = sweep++;
    if (k < a.equilibration) {
      if (sweep % SP_VMC_TUNE_SWEEPS == 0 || sweep == a.equilibration) {
        if (a.tune) step = sp_vmc_tuned_step(step, acc, tried);
        acc = tried = 0;
      }
      continue;
    }
    k -= a.equilibration;
    if ((k + 1) % a.measure_every == 0) {
      double pot = 0, lap = 0, g2 = 0, obs[SP_VMC_NOBS];
      for (int i = lane; i < n; i += SP_VMC_BLOCK)
        SP_HE4(sp_vmc_atom)(&p, x, y, z, n, i, &pot, &lap, &g2);
      pot = sp_warp_sum(pot);
      lap = sp_warp_sum(lap);
      g2 = sp_warp_sum(g2);
      sp_vmc_observables(n, pot, lap, g2, obs);
      for (int q = 0; q < 4; q++) sum[q] += obs[q];
      nmeas++;
      if (a.nbins > 0) {
        double *t = a.hist + ((size_t)a.nwalkers + w) * a.nbins;
        const double scale = (double)a.nbins / a.pair.rc;
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
