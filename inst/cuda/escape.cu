/* escape.cu: escape times and switching currents on the GPU (paper 000).
 *
 * Compiled per variant with -D options:
 *   SP_REAL=float -DSP_REAL_SINGLE  or  SP_REAL=double   (precision)
 *   SP_ESC_HEUN=0 (euler, Algorithm 1/3) or 1 (srk2)
 *   SP_ESC_RAMP=0 (fixed bias) or 1 (bias ramp, switching currents)
 *
 * Persistent lanes: every thread is a lane that holds one path.  All lanes of
 * a warp advance together by macro-steps of four steps (one Philox block per
 * lane); a lane whose path has crossed, or reached its last step, writes the
 * result and takes the next path from a per-device counter at the next
 * macro-step (warp-aggregated atomic), so no lane waits for the slowest path
 * of its warp.  Path p always draws from its own Philox stream, whatever lane
 * runs it.  A launch runs at most `budget` macro-steps and saves the lanes'
 * state, so the host can report progress and honour interrupts; once no path
 * is left to hand out, the host packs the running paths into fewer lanes
 * (sp_escape_compact_kernel). */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#ifndef SP_ESC_HEUN
#  define SP_ESC_HEUN 0
#endif
#ifndef SP_ESC_RAMP
#  define SP_ESC_RAMP 0
#endif
#ifndef SP_ESC_BLOCK
#  define SP_ESC_BLOCK 128
#endif

#include "washboard.h"

typedef SP_REAL sp_real;

/* Load path p's condition and stream into a lane. */
__device__ __forceinline__ void sp_esc_load(const sp_wb_cond *__restrict__ conds,
                                            uint64_t n, uint64_t replica0, long long p,
                                            SP_WB(sp_wb_par) *par, uint64_t *kmax,
                                            uint64_t *stream) {
  const sp_wb_cond *cd = conds + (uint64_t)p / n;
  SP_WB(sp_wb_par_load)(par, cd);
  par->ramp = SP_ESC_RAMP; /* compile-time: the bias function folds */
  *kmax = cd->kmax;
  *stream = cd->stream0 + replica0 + (uint64_t)p % n;
}

__device__ __forceinline__ unsigned long long sp_warp_sum(unsigned long long x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
  return x;
}

extern "C" __global__ void __launch_bounds__(SP_ESC_BLOCK)
sp_escape_kernel(const sp_wb_cond *__restrict__ conds, uint64_t n, uint64_t replica0,
                 uint64_t p_begin, uint64_t p_end, unsigned long long *next,
                 long long *lpid, sp_real *lphi, sp_real *lv, unsigned long long *lk,
                 uint64_t nlanes, double *value, int *escaped, uint64_t seed,
                 unsigned int budget, unsigned long long *stats) {
  const unsigned FULL = 0xffffffffu;
  const uint64_t lid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const bool in = lid < nlanes;
  long long pid = in ? lpid[lid] : -2;
  sp_real phi = 0, v = 0;
  uint64_t k = 0, kmax = 0, stream = 0;
  SP_WB(sp_wb_par) par;
  unsigned long long useful = 0, done = 0;
  unsigned int iters = 0;
  bool exhausted = false; /* warp-uniform: the counter has passed p_end */
  if (pid >= 0) {
    phi = lphi[lid];
    v = lv[lid];
    k = lk[lid];
    sp_esc_load(conds, n, replica0, pid, &par, &kmax, &stream);
  }
  for (unsigned int it = 0; it < budget; it += 2) {
    unsigned need = __ballot_sync(FULL, pid == -1);
    if (need) {
      if (!exhausted) {
        int leader = __ffs(need) - 1, cnt = __popc(need);
        unsigned long long base = 0;
        if (lane == leader) base = atomicAdd(next, (unsigned long long)cnt);
        base = __shfl_sync(FULL, base, leader);
        if (pid == -1) {
          unsigned long long p = base + __popc(need & ((1u << lane) - 1u));
          if (p < p_end) {
            pid = (long long)p;
            phi = (sp_real)conds[p / n].phi0;
            v = 0;
            k = 0;
            sp_esc_load(conds, n, replica0, pid, &par, &kmax, &stream);
          } else {
            pid = -2;
          }
        }
        exhausted = base + (unsigned long long)cnt >= p_end;
      } else if (pid == -1) {
        pid = -2;
      }
    }
    bool act = pid >= 0;
    if (!__any_sync(FULL, act)) break;
    /* two macro-steps (eight steps) per round of bookkeeping: a lane whose
     * path ends in the first idles through the second */
    iters += 2;
#pragma unroll
    for (int u = 0; u < 2; u++) {
      if (act) {
        sp_real f;
        int hit = SP_WB(sp_wb_macro)(&par, SP_ESC_HEUN, seed, stream, k, kmax, &phi, &v, &f);
        k += 4;
        if (hit) {
          uint64_t kc = k - 4 + (uint64_t)hit;
          const sp_wb_cond *cd = conds + (uint64_t)pid / n;
          double val = SP_WB(sp_wb_value)(cd, kc, (double)f);
          /* censoring is exact at vcens, also inside the last step */
          value[(uint64_t)pid - p_begin] = val <= cd->vcens ? val : cd->vcens;
          escaped[(uint64_t)pid - p_begin] = val <= cd->vcens;
          useful += kc;
          done++;
          pid = -1;
          act = false;
        } else if (k >= kmax) {
          value[(uint64_t)pid - p_begin] = conds[(uint64_t)pid / n].vcens;
          escaped[(uint64_t)pid - p_begin] = 0;
          useful += kmax;
          done++;
          pid = -1;
          act = false;
        }
      }
    }
  }
  if (in) {
    lpid[lid] = pid;
    lphi[lid] = phi;
    lv[lid] = v;
    lk[lid] = k;
  }
  useful = sp_warp_sum(useful);
  done = sp_warp_sum(done);
  if (lane == 0) {
    if (iters) atomicAdd(stats, 128ull * iters); /* 32 lanes x 4 steps */
    if (useful) atomicAdd(stats + 1, useful);
    if (done) atomicAdd(stats + 2, done);
  }
}

/* Pack the lanes that still hold a path (pid >= 0) into the front of the
 * other buffer; the order does not matter (a path's numbers do not depend on
 * its lane). */
extern "C" __global__ void __launch_bounds__(SP_ESC_BLOCK)
sp_escape_compact_kernel(const long long *pid_in, const sp_real *phi_in,
                         const sp_real *v_in, const unsigned long long *k_in,
                         uint64_t n_in, long long *pid_out, sp_real *phi_out,
                         sp_real *v_out, unsigned long long *k_out,
                         unsigned long long *count) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_in || pid_in[i] < 0) return;
  unsigned long long j = atomicAdd(count, 1ull);
  pid_out[j] = pid_in[i];
  phi_out[j] = phi_in[i];
  v_out[j] = v_in[i];
  k_out[j] = k_in[i];
}
