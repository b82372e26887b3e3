/* escape.cu: escape times and switching currents on the GPU (paper 000).
 *
 * Compiled per variant with -D options:
 *   SP_REAL=float -DSP_REAL_SINGLE  or  SP_REAL=double   (precision)
 *   SP_ESC_HEUN=0 (euler, Algorithm 1/3) or 1 (srk2)
 *   SP_ESC_RAMP=0 (fixed bias) or 1 (bias ramp, switching currents)
 *   SP_ESC_THERMAL=0 (start at rest) or 1 (start = "thermal": the draw of
 *     escape.h's sp_escape_start, kept out of the other variants, whose
 *     registers it would raise from 40-48 to 60 with a stack frame)
 *
 * Persistent lanes: every thread is a lane that holds one path.  All lanes of
 * a warp advance together by macro-steps of four steps (one Philox block per
 * lane); a lane whose path has crossed, or reached its last step, writes the
 * result and takes the next path of the device's queue (sp_chunks.h) at the
 * next macro-step (warp-aggregated atomic), so no lane waits for the slowest
 * path of its warp.  Path p always draws from its own Philox stream, whatever
 * lane or device runs it.  A launch runs at most `budget` macro-steps and
 * saves the lanes' state, so the host can report progress, honour
 * interrupts and hand out more paths; once no path is left to hand out, the
 * host packs the running paths into fewer lanes (sp_escape_compact_kernel).
 * A path whose state is non-finite does not end (it can neither escape nor
 * be censored) and is not counted; at the end of the launch the lowest such
 * path goes to counters->bad, which the host reads with the other counters
 * and reports. */
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
#ifndef SP_ESC_THERMAL
#  define SP_ESC_THERMAL 0
#endif

typedef SP_REAL sp_escape_real; /* the lane arrays of escape_args.h */

#include "escape.h"

typedef SP_REAL sp_real;

/* Load path p's condition and stream into a lane. */
__device__ __forceinline__ void sp_esc_load(const sp_escape_kargs &a, long long p,
                                            SP_ESCAPE(sp_escape_par) *par, uint64_t *kmax,
                                            uint64_t *stream) {
  const sp_escape_cond *cd = a.conds + (uint64_t)p / a.n;
  SP_ESCAPE(sp_escape_par_load)(par, cd);
  par->ramp = SP_ESC_RAMP; /* compile-time: the bias function folds */
  *kmax = cd->kmax;
  *stream = cd->stream0 + a.replica0 + (uint64_t)p % a.n;
}

__device__ __forceinline__ unsigned long long sp_warp_sum(unsigned long long x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
  return x;
}

extern "C" __global__ void __launch_bounds__(SP_ESC_BLOCK)
sp_escape_kernel(const sp_escape_kargs a) {
  const unsigned FULL = 0xffffffffu;
  const uint64_t lid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const bool in = lid < a.nlanes;
  long long pid = in ? a.pid[lid] : -2;
  sp_real phi = 0, v = 0;
  uint64_t k = 0, kmax = 0, stream = 0;
  SP_ESCAPE(sp_escape_par) par;
  unsigned long long useful = 0, done = 0;
  unsigned int iters = 0;
  bool exhausted = false; /* warp-uniform: the queue has no slot left */
  if (pid == -2 && in) pid = -1; /* more paths may have been queued since */
  if (pid >= 0) {
    phi = a.phi[lid];
    v = a.v[lid];
    k = a.k[lid];
    sp_esc_load(a, pid, &par, &kmax, &stream);
  }
  for (unsigned int it = 0; it < a.budget; it += 2) {
    unsigned need = __ballot_sync(FULL, pid == -1);
    if (need) {
      if (!exhausted) {
        int leader = __ffs(need) - 1, cnt = __popc(need);
        unsigned long long base = 0;
        if (lane == leader) base = atomicAdd(a.queue.next, (unsigned long long)cnt);
        base = __shfl_sync(FULL, base, leader);
        if (pid == -1) {
          long long p = sp_chunk_item(a.queue, base + __popc(need & ((1u << lane) - 1u)));
          if (p >= 0) {
            pid = p;
            sp_esc_load(a, pid, &par, &kmax, &stream);
#if SP_ESC_THERMAL
            double phi0, v0;
            sp_escape_start(a.conds + (uint64_t)p / a.n, a.tables, a.seed, stream,
                            &phi0, &v0);
            phi = (sp_real)phi0;
            v = (sp_real)v0;
#else
            phi = (sp_real)a.conds[(uint64_t)p / a.n].phi0;
            v = 0;
#endif
            k = 0;
          } else {
            pid = -2;
          }
        }
        exhausted = base + (unsigned long long)cnt >= a.queue.nslots;
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
        int hit = SP_ESCAPE(sp_escape_macro)(&par, SP_ESC_HEUN, a.seed, stream, k, kmax,
                                            &phi, &v, &f);
        k += 4;
        /* a lane whose state is non-finite does not end (it can neither
         * escape nor be censored): the check at the end of the launch
         * flags it */
        const bool fin = isfinite(phi) && isfinite(v);
        if (hit && fin) {
          uint64_t kc = k - 4 + (uint64_t)hit;
          const sp_escape_cond *cd = a.conds + (uint64_t)pid / a.n;
          double val = SP_ESCAPE(sp_escape_value)(cd, kc, (double)f);
          /* censoring is exact at vcens, also inside the last step */
          a.value[pid] = val <= cd->vcens ? val : cd->vcens;
          a.status[pid] = val <= cd->vcens ? SP_ESCAPE_ESCAPED : SP_ESCAPE_CENSORED;
          useful += kc;
          done++;
          pid = -1;
          act = false;
        } else if (k >= kmax && fin) {
          a.value[pid] = a.conds[(uint64_t)pid / a.n].vcens;
          a.status[pid] = SP_ESCAPE_CENSORED;
          useful += kmax;
          done++;
          pid = -1;
          act = false;
        }
      }
    }
  }
  if (in) {
    /* the paths still running: their state at the end of the launch */
    if (pid >= 0 && !(isfinite(phi) && isfinite(v)))
      atomicMin(&a.counters->bad, (unsigned long long)pid);
    a.pid[lid] = pid;
    a.phi[lid] = phi;
    a.v[lid] = v;
    a.k[lid] = k;
  }
  useful = sp_warp_sum(useful);
  done = sp_warp_sum(done);
  if (lane == 0) {
    if (iters) atomicAdd(&a.counters->issued, 128ull * iters); /* 32 lanes x 4 steps */
    if (useful) atomicAdd(&a.counters->useful, useful);
    if (done) atomicAdd(&a.counters->finished, done);
  }
}

/* Pack the lanes that still hold a path (pid >= 0) into the front of the
 * other buffer; the order does not matter (a path's numbers do not depend on
 * its lane). */
extern "C" __global__ void __launch_bounds__(SP_ESC_BLOCK)
sp_escape_compact_kernel(const sp_escape_compact_args a) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.nlanes || a.pid_from[i] < 0) return;
  unsigned long long j = atomicAdd(a.count, 1ull);
  a.pid_to[j] = a.pid_from[i];
  a.phi_to[j] = a.phi_from[i];
  a.v_to[j] = a.v_from[i];
  a.k_to[j] = a.k_from[i];
}
