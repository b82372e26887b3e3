/* escape.cu: escape times and switching currents on the GPU (paper 000).
 *
 * Compiled per variant with -D options:
 *   SP_REAL=float -DSP_REAL_SINGLE  or  SP_REAL=double   (precision)
 *   SP_ESC_HEUN=0 (euler, Algorithm 1/3) or 1 (srk2)
 *   SP_ESC_RAMP=0 (fixed bias) or 1 (bias ramp, switching currents)
 *   SP_ESC_THERMAL=0 (start at rest) or 1 (start = "thermal": the draw of
 *     escape.h's sp_escape_start, kept out of the other variants, whose
 *     registers it would raise from 40-48 to 60 with a stack frame)
 *   SP_ESC_RESUME=1: the items are the rows of the job's resume table,
 *     paths continued from the state a previous run left them in
 *     (escape_times(init = <a result>)); no start is drawn
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
#ifndef SP_ESC_RESUME
#  define SP_ESC_RESUME 0
#endif

typedef SP_REAL sp_escape_real; /* the lane arrays of escape_args.h */

#include "escape.h"

typedef SP_REAL sp_real;

/* The path of item i: itself, or the path a resume row continues. */
__device__ __forceinline__ uint64_t sp_esc_path(const sp_escape_kargs &a, long long i) {
#if SP_ESC_RESUME
  return (uint64_t)a.resume[i].path;
#else
  return (uint64_t)i;
#endif
}

/* Load item i's condition and stream into a lane. */
__device__ __forceinline__ void sp_esc_load(const sp_escape_kargs &a, long long i,
                                            SP_ESCAPE(sp_escape_par) *par, uint64_t *kmax,
                                            uint64_t *stream) {
  const uint64_t p = sp_esc_path(a, i);
  const sp_escape_cond *cd = a.conds + p / a.n;
  SP_ESCAPE(sp_escape_par_load)(par, cd);
  par->ramp = SP_ESC_RAMP; /* compile-time: the bias function folds */
  *kmax = cd->kmax;
  *stream = cd->stream0 + a.replica0 + p % a.n;
}

/* The end state of a censored item (what continuing it needs), at *e.
 * Called only in the branches where a path is censored, once a path. */
__device__ __forceinline__ void sp_esc_end(sp_escape_state *e, sp_real phi, sp_real v, uint64_t k,
                                           int hit, double frac) {
  e->phi = (double)phi;
  e->v = (double)v;
  e->frac = frac;
  e->step = (int64_t)k;
  e->hit = hit;
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
  /* the normals of the lane's next macro-step, drawn one macro-step ahead:
   * the Philox rounds and Box-Muller do not wait on the state's dependent
   * chain (a path's steps are a latency-bound chain when few paths run) */
  sp_real zn[4] = {0, 0, 0, 0};
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
    SP_ESCAPE(sp_escape_draw)(a.seed, stream, k, zn);
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
#if SP_ESC_RESUME
            /* a continued path: from its state, or ended where it stands */
            const sp_escape_state rs = a.resume[p];
            const sp_escape_cond *cd = a.conds + (uint64_t)rs.path / a.n;
            double val;
            int sts;
            phi = (sp_real)rs.phi;
            v = (sp_real)rs.v;
            k = (uint64_t)rs.step;
            if (SP_ESCAPE(sp_escape_settle)(cd, k, (int)rs.hit, rs.frac, &val, &sts)) {
              const uint64_t kc = k - 4 + (uint64_t)rs.hit;
              a.value[p] = val;
              a.status[p] = sts;
              if (sts == SP_ESCAPE_CENSORED) sp_esc_end(a.end + p, phi, v, k, (int)rs.hit, rs.frac);
              useful += rs.hit > 0 && kc <= kmax ? kc : kmax;
              done++;
              pid = -1;
            }
#elif SP_ESC_THERMAL
            double phi0, v0;
            sp_escape_start(a.conds + (uint64_t)p / a.n, a.tables, a.seed, stream,
                            &phi0, &v0);
            phi = (sp_real)phi0;
            v = (sp_real)v0;
            k = 0;
#else
            phi = (sp_real)a.conds[(uint64_t)p / a.n].phi0;
            v = 0;
            k = 0;
#endif
            if (pid >= 0) SP_ESCAPE(sp_escape_draw)(a.seed, stream, k, zn);
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
#if SP_ESC_RESUME
    /* every lane's path ended where it stood: take more */
    if (!__any_sync(FULL, act) && !exhausted && __any_sync(FULL, pid == -1)) continue;
#endif
    if (!__any_sync(FULL, act)) break;
    /* two macro-steps (eight steps) per round of bookkeeping: a lane whose
     * path ends in the first idles through the second */
    iters += 2;
#pragma unroll
    for (int u = 0; u < 2; u++) {
#if SP_ESC_RESUME
      /* continued paths: the crossing tested once, the end state stored
       * from one place */
      if (act) {
        sp_real f;
        const sp_real zc[4] = {zn[0], zn[1], zn[2], zn[3]};
        SP_ESCAPE(sp_escape_draw)(a.seed, stream, k + 4, zn);
        const int hit = SP_ESCAPE(sp_escape_macro_z)(&par, SP_ESC_HEUN, zc, k, &phi, &v, &f);
        const bool crossed = hit && k + (uint64_t)hit <= kmax;
        k += 4;
        /* a lane whose state is non-finite does not end (it can neither
         * escape nor be censored): the check at the end of the launch
         * flags it */
        const bool fin = isfinite(phi) && isfinite(v);
        bool cens = false; /* censored: its end state is kept */
        if (crossed && fin) {
          uint64_t kc = k - 4 + (uint64_t)hit;
          const sp_escape_cond *cd = a.conds + sp_esc_path(a, pid) / a.n;
          double val = SP_ESCAPE(sp_escape_value)(cd, kc, (double)f);
          /* censoring is exact at vcens, also inside the last step (the
           * crossing stays pending) */
          cens = val > cd->vcens;
          a.value[pid] = cens ? cd->vcens : val;
          a.status[pid] = cens ? SP_ESCAPE_CENSORED : SP_ESCAPE_ESCAPED;
          useful += kc;
        } else if (k >= kmax && fin) {
          /* a crossing in the steps past kmax is pending (with hit 0 the
           * fraction is 1, which the host reads as 0) */
          a.value[pid] = a.conds[sp_esc_path(a, pid) / a.n].vcens;
          a.status[pid] = SP_ESCAPE_CENSORED;
          cens = true;
          useful += kmax;
        }
        if (cens) sp_esc_end(a.end + pid, phi, v, k, hit, (double)f);
        if ((crossed || k >= kmax) && fin) {
          done++;
          pid = -1;
          act = false;
        }
#else
      /* fresh paths: the loop of the runs before continuation (a crossing
       * past kmax is no escape), the end state stored only in the two
       * branches where a path is censored, so the common path (no
       * crossing, k < kmax) runs what it ran before (escperf) */
      if (act) {
        sp_real f;
        const sp_real zc[4] = {zn[0], zn[1], zn[2], zn[3]};
        SP_ESCAPE(sp_escape_draw)(a.seed, stream, k + 4, zn);
        const int raw = SP_ESCAPE(sp_escape_macro_z)(&par, SP_ESC_HEUN, zc, k, &phi, &v, &f);
        /* a crossing past kmax is not an escape; it stays pending in the
         * end state of the censored path */
        const int hit = raw && k + (uint64_t)raw <= kmax ? raw : 0;
        k += 4;
        /* a lane whose state is non-finite does not end (it can neither
         * escape nor be censored): the check at the end of the launch
         * flags it */
        const bool fin = isfinite(phi) && isfinite(v);
        if (hit && fin) {
          uint64_t kc = k - 4 + (uint64_t)hit;
          const sp_escape_cond *cd = a.conds + sp_esc_path(a, pid) / a.n;
          double val = SP_ESCAPE(sp_escape_value)(cd, kc, (double)f);
          /* censoring is exact at vcens, also inside the last step (the
           * crossing stays pending) */
          const double vcens = cd->vcens; /* once: the stores may alias it */
          a.value[pid] = val <= vcens ? val : vcens;
          a.status[pid] = val <= vcens ? SP_ESCAPE_ESCAPED : SP_ESCAPE_CENSORED;
          if (val > vcens) sp_esc_end(a.end + pid, phi, v, k, hit, (double)f);
          useful += kc;
          done++;
          pid = -1;
          act = false;
        } else if (k >= kmax && fin) {
          /* a crossing in the steps past kmax is pending (with hit 0 the
           * fraction is 1, which the host reads as 0) */
          a.value[pid] = a.conds[sp_esc_path(a, pid) / a.n].vcens;
          a.status[pid] = SP_ESCAPE_CENSORED;
          sp_esc_end(a.end + pid, phi, v, k, raw, (double)f);
          useful += kmax;
          done++;
          pid = -1;
          act = false;
        }
#endif
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
