/* he4_dmc.cu: diffusion Monte Carlo of liquid 4He (issue 35) on the GPU,
 * double precision.  The physics and the random numbers are he4_dmc.h's, as
 * on the CPU (src/core/sp_dmc.c): walker by walker the same walk, to the
 * rounding of the pair sums' order.
 *
 * A generation is five launches on the device's stream, with no round trip
 * to the host:
 *   sp_dmc_move_kernel   one warp per walker slot (population q, slot k):
 *                        the drift-diffusion move of every atom (lanes over
 *                        atoms, the proposal in shared memory), ln psi, its
 *                        gradient and the local energy there (the atom sums
 *                        of he4_vmc.h over the lanes, a butterfly of
 *                        shuffles), the accept/reject test, the weight and
 *                        the walker's number of copies;
 *   sp_dmc_pop_kernel    one block of 1024 threads per population: the sums
 *                        of the estimator (a fixed tree: the same numbers on
 *                        every run), the prefix sums of the copies (the new
 *                        slots), the new size, the block's sums and row, the
 *                        trial energy of the next generation;
 *   sp_dmc_copy_kernel   one warp per parent: its copies into the other buffer;
 *   sp_dmc_flip_kernel   the populations that branched switch buffers;
 *   sp_dmc_save_kernel   after a finished block, the walkers into the saved
 *                        state (the interrupt rule: what the host returns).
 * A population that finished its generations (or died) makes every kernel
 * return at once.  The host reads the populations' bookkeeping after each
 * round of `budget` generations. */
#include "he4_dmc.h"

template <typename T> __device__ __forceinline__ T sp_dmc_warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/* A sum over the block's threads (blockDim.x = SP_DMC_POP_THREADS): warp
 * butterflies, then the 32 warp sums in warp 0; the result in every thread. */
__device__ double sp_dmc_block_sum(double v, double *sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = sp_dmc_warp_sum(v);
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  if (warp == 0) {
    double t = lane < (int)(blockDim.x >> 5) ? sh[lane] : 0.0;
    t = sp_dmc_warp_sum(t);
    if (lane == 0) sh[32] = t;
  }
  __syncthreads();
  return sh[32];
}

__device__ __forceinline__ size_t sp_dmc_slot(const sp_dmc_kargs &a, int buf, int q, int k) {
  return ((size_t)buf * (size_t)a.npop + (size_t)q) * (size_t)a.cap + (size_t)k;
}

/* The start: ln psi, gradient and energies of every live walker (buffer 0). */
extern "C" __global__ void __launch_bounds__(SP_DMC_BLOCK)
sp_dmc_eval_kernel(const sp_dmc_kargs a) {
  extern __shared__ double sh[];
  const int q = blockIdx.x / a.cap, k = blockIdx.x % a.cap, lane = threadIdx.x, n = a.ctl.n;
  const sp_dmc_gpop *gp = a.pops + q;
  sp_he4_par_d p;
  if (k >= gp->st.size) return;
  sp_he4_par_load_d(&p, &a.pair);
  const size_t s = sp_dmc_slot(a, gp->cur, q, k);
  double *x = a.xyz + s * 3 * n, *g = a.grad + s * 3 * n, *wk = a.wlk + s * SP_DMC_WSTRIDE;
  for (int i = lane; i < 3 * n; i += 32) sh[i] = x[i];
  __syncwarp();
  double pot, lap, us, g2;
  sp_dmc_eval_part(&p, &a.guide, sh, n, lane, 32, g, &pot, &lap, &us, &g2);
  pot = sp_dmc_warp_sum(pot);
  lap = sp_dmc_warp_sum(lap);
  us = sp_dmc_warp_sum(us);
  g2 = sp_dmc_warp_sum(g2);
  if (lane == 0) {
    double obs[SP_VMC_NOBS];
    sp_vmc_observables(n, pot, lap, g2, obs);
    wk[0] = us;
    wk[1] = obs[SP_VMC_ENERGY];
    wk[2] = obs[SP_VMC_POTENTIAL];
    wk[3] = obs[SP_VMC_KINETIC_PB];
  }
}

/* The start of each population: every energy finite (else dead = 2), and a
 * fresh population's e_ref = e_T = its weighted mean energy. */
extern "C" __global__ void __launch_bounds__(SP_DMC_POP_THREADS)
sp_dmc_init_kernel(const sp_dmc_kargs a) {
  __shared__ double sh[33];
  sp_dmc_gpop *gp = a.pops + blockIdx.x;
  const int q = blockIdx.x, P = gp->st.size;
  double sw = 0, swe = 0, swe2 = 0, bad = 0;
  for (int k = threadIdx.x; k < P; k += blockDim.x) {
    const double *wk = a.wlk + sp_dmc_slot(a, gp->cur, q, k) * SP_DMC_WSTRIDE;
    if (!isfinite(wk[1])) bad += 1;
    sw += wk[4];
    swe += wk[4] * wk[1];
    swe2 += wk[4] * wk[1] * wk[1];
  }
  sw = sp_dmc_block_sum(sw, sh);
  swe = sp_dmc_block_sum(swe, sh);
  swe2 = sp_dmc_block_sum(swe2, sh);
  bad = sp_dmc_block_sum(bad, sh);
  if (threadIdx.x == 0) {
    if (bad > 0) gp->dead = 2;
    sp_dmc_start(&gp->st, sw, swe, swe2);
  }
}

/* One generation's move of the walker in slot k of population q. */
extern "C" __global__ void __launch_bounds__(SP_DMC_BLOCK)
sp_dmc_move_kernel(const sp_dmc_kargs a) {
  extern __shared__ double sh[];
  const int q = blockIdx.x / a.cap, k = blockIdx.x % a.cap, lane = threadIdx.x, n = a.ctl.n;
  const sp_dmc_gpop *gp = a.pops + q;
  if (gp->step >= a.steps || gp->dead || k >= gp->st.size) return;
  sp_he4_par_d p;
  sp_he4_par_load_d(&p, &a.pair);
  const size_t s = sp_dmc_slot(a, gp->cur, q, k);
  double *x = a.xyz + s * 3 * n, *g = a.grad + s * 3 * n, *wk = a.wlk + s * SP_DMC_WSTRIDE;
  double *xn = sh, *dd = sh + 3 * n, *gn = sh + 6 * n;
  const uint64_t stream = sp_dmc_stream(a.pop0 + (uint64_t)q, (uint64_t)k);
  const uint64_t gen = gp->st.gen;
  const double dt = a.ctl.dt, ad = SP_HE4_HB2M * dt, sa = sqrt(ad), A = a.ctl.drift_limit;
  const double tau = sp_dmc_tau(&gp->st, dt, a.ctl.effective);
  double sl[4] = {0, 0, 0, 0}, z2 = 0;
  for (int i = lane; i < n; i += 32) {
    double z[3];
    const double g2 = g[i] * g[i] + g[n + i] * g[n + i] + g[2 * n + i] * g[2 * n + i];
    const double f = sp_dmc_drift_factor(g2, ad, A);
    sl[0] += f * f * g2;
    sl[1] += g2;
    sp_dmc_normals(a.seed, stream, gen, n, i, z);
    z2 += z[0] * z[0] + z[1] * z[1] + z[2] * z[2];
    for (int c = 0; c < 3; c++)
      xn[c * n + i] =
          sp_dmc_move(&p, x[c * n + i], f * ad * g[c * n + i], z[c], sa, &dd[c * n + i]);
  }
  __syncwarp();
  double pot, lap, us, g2n;
  sp_dmc_eval_part(&p, &a.guide, xn, n, lane, 32, gn, &pot, &lap, &us, &g2n);
  double green = 0;
  for (int i = lane; i < n; i += 32) { /* its own atoms: no barrier needed */
    const double g2 = g[i] * g[i] + g[n + i] * g[n + i] + g[2 * n + i] * g[2 * n + i];
    const double gn2 = gn[i] * gn[i] + gn[n + i] * gn[n + i] + gn[2 * n + i] * gn[2 * n + i];
    const double f = sp_dmc_drift_factor(g2, ad, A), fn = sp_dmc_drift_factor(gn2, ad, A);
    sl[2] += fn * fn * gn2;
    sl[3] += gn2;
    for (int c = 0; c < 3; c++)
      green += sp_dmc_green_term(dd[c * n + i], f * ad * g[c * n + i], fn * ad * gn[c * n + i]);
  }
  pot = sp_dmc_warp_sum(pot);
  lap = sp_dmc_warp_sum(lap);
  us = sp_dmc_warp_sum(us);
  g2n = sp_dmc_warp_sum(g2n);
  for (int j = 0; j < 4; j++) sl[j] = sp_dmc_warp_sum(sl[j]);
  green = sp_dmc_warp_sum(green);
  z2 = sp_dmc_warp_sum(z2);
  double obs[SP_VMC_NOBS], ua, ub, wn[SP_DMC_WSTRIDE], gs[SP_DMC_GSTRIDE];
  sp_vmc_observables(n, pot, lap, g2n, obs);
  sp_dmc_uniforms(a.seed, stream, gen, n, &ua, &ub);
  double wo[SP_DMC_WSTRIDE];
  for (int j = 0; j < SP_DMC_WSTRIDE; j++) wo[j] = wk[j];
  const int acc = sp_dmc_step_end(wo, us, obs, green, sl, z2, ua, ub, gp->st.e_ref,
                                  gp->st.e_trial, n, dt, tau, a.accept, a.branching,
                                  sp_dmc_cut(&gp->st, a.ctl.energy_cut, n, tau), wn, gs);
  __syncwarp();
  if (acc) {
    for (int i = lane; i < 3 * n; i += 32) {
      x[i] = xn[i];
      g[i] = gn[i];
    }
  }
  if (lane == 0) {
    double *gq = a.gstat + ((size_t)q * a.cap + (size_t)k) * SP_DMC_GSTRIDE;
    for (int j = 0; j < SP_DMC_WSTRIDE; j++) wk[j] = wn[j];
    for (int j = 0; j < SP_DMC_GSTRIDE; j++) gq[j] = gs[j];
  }
}

/* The population's part of a generation (see the top). */
extern "C" __global__ void __launch_bounds__(SP_DMC_POP_THREADS)
sp_dmc_pop_kernel(const sp_dmc_kargs a) {
  __shared__ double sh[33];
  __shared__ int wsum[32];
  __shared__ int run;
  const int q = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  sp_dmc_gpop *gp = a.pops + q;
  const int go = gp->step < a.steps && !gp->dead;
  __syncthreads();
  if (tid == 0) {
    gp->active = 0;
    gp->save = 0;
  }
  if (!go) return;
  const int P = gp->st.size;
  const double *gsq = a.gstat + (size_t)q * a.cap * SP_DMC_GSTRIDE;
  double s[SP_DMC_GSUMS] = {0};
  for (int k = tid; k < P; k += blockDim.x)
    for (int j = 0; j < SP_DMC_GSUMS; j++) s[j] += gsq[(size_t)k * SP_DMC_GSTRIDE + j];
  for (int j = 0; j < SP_DMC_GSUMS; j++) s[j] = sp_dmc_block_sum(s[j], sh);
  int32_t *offs = a.offs + (size_t)q * (a.cap + 1);
  if (a.branching) {
    /* inclusive scan of the copies, 1024 at a time */
    if (tid == 0) {
      run = 0;
      offs[0] = 0;
    }
    __syncthreads();
    for (int base = 0; base < P; base += blockDim.x) {
      const int k = base + tid;
      int c = k < P ? (int)gsq[(size_t)k * SP_DMC_GSTRIDE + SP_DMC_GCOPIES] : 0, v = c;
      for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += t;
      }
      if (lane == 31) wsum[warp] = v;
      __syncthreads();
      if (warp == 0) {
        int t = lane < (int)(blockDim.x >> 5) ? wsum[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
          const int u = __shfl_up_sync(0xffffffffu, t, o);
          if (lane >= o) t += u;
        }
        wsum[lane] = t; /* inclusive over the warps */
      }
      __syncthreads();
      const int before = run + (warp > 0 ? wsum[warp - 1] : 0);
      if (k < P) offs[k + 1] = before + v;
      __syncthreads();
      if (tid == 0) run += wsum[(blockDim.x >> 5) - 1];
      __syncthreads();
    }
  }
  if (tid == 0) {
    double Pm;
    gp->prev = P;
    if (a.branching) {
      const int total = offs[P];
      const int np = total < a.cap ? total : a.cap;
      gp->st.overflow += (double)(total - np);
      gp->st.size = np;
      Pm = (double)np;
    } else {
      Pm = s[3];
    }
    if (sp_dmc_account(&gp->st, gp->acc, s, Pm, P, &a.ctl,
                       a.hist + (size_t)q * 2 * (size_t)a.ctl.reweight,
                       gp->step < a.equilibration))
      gp->dead = 1;
    uint64_t kk = gp->step++;
    gp->active = 1;
    if (kk < a.equilibration) {
      if (kk + 1 == a.equilibration) /* the records start (he4_dmc.h) */
        sp_dmc_records_start(&gp->st, gp->acc,
                             a.hist + (size_t)q * 2 * (size_t)a.ctl.reweight, a.ctl.reweight);
    } else {
      kk -= a.equilibration;
      if ((kk + 1) % a.block_steps == 0) {
        double *row = a.block + ((size_t)q * a.blocks + kk / a.block_steps) * SP_DMC_NOBS;
        sp_dmc_block_row(gp->acc, row);
        gp->done = (int32_t)(kk / a.block_steps + 1);
        gp->save = 1;
      }
    }
  }
}

/* The copies of parent k into the other buffer (branching only). */
extern "C" __global__ void __launch_bounds__(SP_DMC_BLOCK)
sp_dmc_copy_kernel(const sp_dmc_kargs a) {
  const int q = blockIdx.x / a.cap, k = blockIdx.x % a.cap, lane = threadIdx.x, n3 = 3 * a.ctl.n;
  const sp_dmc_gpop *gp = a.pops + q;
  if (!a.branching || !gp->active || k >= gp->prev) return;
  const int32_t *offs = a.offs + (size_t)q * (a.cap + 1);
  const size_t src = sp_dmc_slot(a, gp->cur, q, k);
  const int end = offs[k + 1] < gp->st.size ? offs[k + 1] : gp->st.size;
  for (int t = offs[k]; t < end; t++) {
    const size_t dst = sp_dmc_slot(a, 1 - gp->cur, q, t);
    for (int i = lane; i < n3; i += 32) {
      a.xyz[dst * n3 + i] = a.xyz[src * n3 + i];
      a.grad[dst * n3 + i] = a.grad[src * n3 + i];
    }
    if (lane < SP_DMC_WSTRIDE)
      a.wlk[dst * SP_DMC_WSTRIDE + lane] = lane == 4 ? 1.0 : a.wlk[src * SP_DMC_WSTRIDE + lane];
  }
}

extern "C" __global__ void sp_dmc_flip_kernel(const sp_dmc_kargs a) {
  sp_dmc_gpop *gp = a.pops + blockIdx.x;
  if (threadIdx.x == 0 && a.branching && gp->active) gp->cur = 1 - gp->cur;
}

/* After a finished block: the walkers (and the population's vector) into
 * the saved state, in R's layout; slots past the population zero. */
extern "C" __global__ void __launch_bounds__(SP_DMC_BLOCK)
sp_dmc_save_kernel(const sp_dmc_kargs a) {
  const int q = blockIdx.x / a.cap, k = blockIdx.x % a.cap, lane = threadIdx.x, n = a.ctl.n;
  const sp_dmc_gpop *gp = a.pops + q;
  if (!gp->active || !gp->save) return;
  const size_t slot = (size_t)q * a.cap + (size_t)k;
  double *out = a.saved_xyz + slot * 3 * n;
  const int live = k < gp->st.size;
  const size_t s = sp_dmc_slot(a, gp->cur, q, k);
  for (int i = lane; i < n; i += 32)
    for (int c = 0; c < 3; c++) out[3 * i + c] = live ? a.xyz[s * 3 * n + c * n + i] : 0.0;
  if (lane == 0) {
    a.saved_w[slot] = live ? a.wlk[s * SP_DMC_WSTRIDE + 4] : 0.0;
    if (k == 0) {
      sp_dmc_pop_store(&gp->st, a.saved_pop + (size_t)q * SP_DMC_POPVARS);
    }
  }
  if (k == 0) { /* the reweighting's rings */
    const size_t nr = 2 * (size_t)a.ctl.reweight;
    for (size_t i = lane; i < nr; i += 32)
      a.saved_hist[(size_t)q * nr + i] = a.hist[(size_t)q * nr + i];
  }
}
