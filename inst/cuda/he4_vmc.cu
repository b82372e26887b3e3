/* he4_vmc.cu: variational Monte Carlo of liquid 4He (paper 002) on the GPU.
 *
 * Paper 002's design on a current GPU: one thread block per walker, its
 * coordinates resident in shared memory for a whole launch (a round of
 * `budget` sweeps); the threads of the walker split the O(N) pair sum of each
 * trial move and the O(N^2) local energy at measurement points; the host
 * receives block means only.  The physics and the random numbers are those of
 * he4_vmc.h, as on the CPU: walker w's chain is the CPU's chain (to the
 * rounding of the pair sums' order).
 *
 * Compiled once per precision (SP_REAL float with SP_REAL_SINGLE: "mixed";
 * or double). */
#include "he4_vmc_args.h"
#include "he4_vmc.h"

#define SP_VMC_BLOCK 128
#define SP_VMC_WARPS (SP_VMC_BLOCK / 32)

template <typename T> __device__ __forceinline__ T sp_warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
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

extern "C" __global__ void __launch_bounds__(SP_VMC_BLOCK) sp_vmc_kernel(const sp_vmc_kargs a) {
  extern __shared__ double sp_vmc_smem[];
  __shared__ SP_REAL red[2][SP_VMC_WARPS];
  __shared__ double red3[3 * SP_VMC_WARPS];
  const int w = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
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
  int parity = 0;
  if (end > total) end = total;
  for (int k = 0; k < 4; k++) sum[k] = s->sum[k];
  SP_HE4(sp_he4_par_load)(&p, &a.pair);
  for (int i = tid; i < 3 * n; i += blockDim.x) x[i] = g[i];
  __syncthreads();
  while (sweep < end) {
    const SP_REAL st = (SP_REAL)step;
    for (int i = 0; i < n; i++) {
      SP_REAL d[3], u, part = 0, dl = 0;
      /* every thread draws the same numbers: no broadcast, no barrier */
      SP_HE4(sp_vmc_draws)(a.seed, walker, moves, d, &u);
      moves++;
      const SP_REAL xo = x[i], yo = y[i], zo = z[i];
      const SP_REAL xn = SP_HE4(sp_vmc_wrap)(&p, xo + st * d[0]);
      const SP_REAL yn = SP_HE4(sp_vmc_wrap)(&p, yo + st * d[1]);
      const SP_REAL zn = SP_HE4(sp_vmc_wrap)(&p, zo + st * d[2]);
      for (int j = tid; j < n; j += SP_VMC_BLOCK)
        if (j != i) part += SP_HE4(sp_vmc_du)(&p, xo, yo, zo, xn, yn, zn, x[j], y[j], z[j]);
      part = sp_warp_sum(part);
      if (lane == 0) red[parity][warp] = part;
      __syncthreads();
      for (int k = 0; k < SP_VMC_WARPS; k++) dl += red[parity][k]; /* same order everywhere */
      parity ^= 1;
      tried++;
      if (SP_HE4(sp_vmc_accept)(dl, u)) {
        acc++;
        if (tid == 0) {
          x[i] = xn;
          y[i] = yn;
          z[i] = zn;
        }
      }
      __syncthreads(); /* the move is seen; red[parity ^ 1] free again */
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
      for (int i = tid; i < n; i += SP_VMC_BLOCK)
        SP_HE4(sp_vmc_atom)(&p, x, y, z, n, i, &pot, &lap, &g2);
      pot = sp_warp_sum(pot);
      lap = sp_warp_sum(lap);
      g2 = sp_warp_sum(g2);
      if (lane == 0) {
        red3[3 * warp] = pot;
        red3[3 * warp + 1] = lap;
        red3[3 * warp + 2] = g2;
      }
      __syncthreads();
      pot = lap = g2 = 0;
      for (int q = 0; q < SP_VMC_WARPS; q++) {
        pot += red3[3 * q];
        lap += red3[3 * q + 1];
        g2 += red3[3 * q + 2];
      }
      sp_vmc_observables(n, pot, lap, g2, obs);
      for (int q = 0; q < 4; q++) sum[q] += obs[q];
      nmeas++;
      if (a.nbins > 0) {
        double *t = a.hist + ((size_t)a.nwalkers + w) * a.nbins;
        const double scale = (double)a.nbins / a.pair.rc;
        for (int i = tid; i < n; i += SP_VMC_BLOCK) {
          for (int j = i + 1; j < n; j++) {
            double dx = (double)SP_HE4(sp_he4_min_image)(&p, x[i] - x[j]);
            double dy = (double)SP_HE4(sp_he4_min_image)(&p, y[i] - y[j]);
            double dz = (double)SP_HE4(sp_he4_min_image)(&p, z[i] - z[j]);
            int b = (int)(sqrt(dx * dx + dy * dy + dz * dz) * scale);
            if (b < a.nbins) atomicAdd(t + b, 1.0);
          }
        }
      }
      __syncthreads(); /* red3 free again */
    }
    if ((k + 1) % a.block_sweeps == 0) {
      __syncthreads(); /* this block's histogram counts are in */
      sp_vmc_block_end(a, w, k / a.block_sweeps, x, y, z, sum, nmeas, acc, tried, step, moves);
      for (int q = 0; q < 4; q++) sum[q] = 0;
      nmeas = acc = tried = 0;
    }
  }
  for (int i = tid; i < 3 * n; i += blockDim.x) g[i] = x[i];
  if (tid == 0) {
    s->step = step;
    for (int q = 0; q < 4; q++) s->sum[q] = sum[q];
    s->moves = moves;
    s->sweep = sweep;
    s->acc = acc;
    s->tried = tried;
    s->nmeas = nmeas;
  }
}
