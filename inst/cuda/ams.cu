/* ams.cu: adaptive multilevel splitting for escapes over the tilted
 * washboard (escape_rate_ams()), the GPU side of src/gpu/sp_gpu_ams.c.
 *
 * Compiled per variant with -D options:
 *   SP_REAL=float -DSP_REAL_SINGLE (with SP_FAST_SIN)  or  SP_REAL=double
 *   SP_AMS_HEUN=1 (srk2) or 0 (euler)
 *
 * Every replica of every condition on the device runs side by side, its
 * particles side by side; the pieces are those of the CPU engine (ams.h),
 * so a replica's numbers are the same on both backends (to rounding):
 *   sp_ams_long_kernel    one thread per replica: its long trajectory for
 *                         at most `budget` steps, collecting exits from A
 *                         as its N particles;
 *   sp_ams_branch_kernel  one thread per task: the first run of a particle,
 *                         or a branching (the parent's path replayed to the
 *                         level, the child run from there to A or B).
 * The levels, kills and picks of each replica (a few N operations) are done
 * by the host between launches, with ams.h's sp_ams_level. */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#ifndef SP_AMS_HEUN
#  define SP_AMS_HEUN 1
#endif

typedef SP_REAL sp_ams_real;    /* the particle arrays of ams_args.h */
typedef SP_REAL sp_escape_real; /* escape_args.h's lane arrays (unused here) */

#include "ams.h"

/* A replica's condition and stream from its global item number. */
__device__ __forceinline__ const sp_ams_cond *sp_ams_item(const sp_ams_cond *conds,
                                                           uint64_t replicas, uint64_t replica0,
                                                           uint64_t g, uint64_t *stream) {
  const sp_ams_cond *cd = conds + g / replicas;
  *stream = cd->esc.stream0 + replica0 + g % replicas;
  return cd;
}

extern "C" __global__ void __launch_bounds__(SP_AMS_BLOCK)
sp_ams_long_kernel(const sp_ams_long_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.nitems) return;
  sp_ams_long_state st = a.lt[i];
  if (st.nexit >= a.particles) return;
  uint64_t stream;
  const sp_ams_cond *cd = sp_ams_item(a.conds, a.replicas, a.replica0, a.item0 + i, &stream);
  SP_ESCAPE(sp_escape_par) par;
  SP_ESCAPE(sp_escape_par_load)(&par, &cd->esc);
  sp_ams_result res = a.res[i];
  const uint64_t off = i * a.particles;
  int f = SP_ESCAPE(sp_ams_long_advance)(&par, SP_AMS_HEUN, cd, a.tables, a.seed, stream,
                                         a.particles, &st, &res, a.phi + off, a.v + off,
                                         a.k0 + off, a.path + off, a.budget);
  if (f != SP_AMS_OK) {
    res.status = -f; /* the host reads the failure with lt[i].k */
    atomicMin((unsigned long long *)a.bad, (unsigned long long)i);
  }
  a.lt[i] = st;
  a.res[i] = res;
  if (f == SP_AMS_OK && st.nexit >= a.particles)
    atomicAdd((unsigned long long *)a.done, 1ull);
}

extern "C" __global__ void __launch_bounds__(SP_AMS_BLOCK)
sp_ams_branch_kernel(const sp_ams_branch_kargs a) {
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.ntasks) return;
  const sp_ams_task tk = a.tasks[t];
  const uint64_t item = tk.child / a.particles, off = item * a.particles;
  uint64_t stream, steps = 0;
  const sp_ams_cond *cd = sp_ams_item(a.conds, a.replicas, a.replica0, a.item0 + item, &stream);
  SP_ESCAPE(sp_escape_par) par;
  SP_ESCAPE(sp_escape_par_load)(&par, &cd->esc);
  int f = SP_ESCAPE(sp_ams_branch)(&par, SP_AMS_HEUN, cd->score, a.seed, stream, (SP_REAL)cd->phiA,
                                   cd->esc.h, tk.child - off,
                                   tk.parent == SP_AMS_NO_PARENT ? SP_AMS_NO_PARENT
                                                                 : tk.parent - off,
                                   tk.path, (SP_REAL)tk.z, a.phi + off, a.v + off,
                                   a.maxs + off, a.k0 + off, a.path + off, a.dur + off, &steps);
  sp_ams_task_out o;
  o.maxs = (double)a.maxs[tk.child];
  o.steps = f == SP_AMS_OK ? steps : (1ull << 63) | (uint64_t)f;
  a.out[t] = o;
  if (f != SP_AMS_OK) atomicMin((unsigned long long *)a.bad, (unsigned long long)t);
}
