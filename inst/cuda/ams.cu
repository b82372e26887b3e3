/* ams.cu: adaptive multilevel splitting (ams.h) for escapes over the
 * tilted washboard (escape_rate_ams()) or a user's SDE model (sde_ams()),
 * the GPU side of src/gpu/sp_gpu_ams.c.
 *
 * Compiled per variant with -D options:
 *   SP_REAL=float -DSP_REAL_SINGLE (with SP_FAST_SIN)  or  SP_REAL=double
 *   SP_AMS_HEUN=1 (srk2) or 0 (euler)
 *   SP_AMS_SDE: a user's model -- its generated header sde_model.h and its
 *     score sde_ams_score.h on the include path (the model's cache folder)
 *
 * Every replica of every condition on the device runs side by side, its
 * particles side by side; the pieces are those of the CPU engine (ams.h),
 * so a replica's numbers are the same on both backends (to rounding):
 *   sp_ams_long_kernel    one thread per replica: its long trajectory for
 *                         at most `budget` steps, collecting exits from A
 *                         as its N particles;
 *   sp_ams_branch_kernel  one thread per task: the first run of a particle,
 *                         or a branching (the parent's path replayed to the
 *                         level, the child run from there to A or B), for
 *                         at most `budget` steps a launch (a task that needs
 *                         more pauses and is launched again: ams.h's
 *                         sp_ams_branch).
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

#ifdef SP_AMS_SDE
#  include "sde_args.h"
#  include "sde_prelude.h"
#  include "sde_model.h"
#  include "sde_engine.h"
#  include "sde_ams_score.h"
#endif
#include "ams.h"

/* A replica's condition and stream from its global item number. */
__device__ __forceinline__ const SP_AMS_COND *sp_ams_item(const void *conds, uint64_t replicas,
                                                           uint64_t replica0, uint64_t g,
                                                           uint64_t *stream) {
  const SP_AMS_COND *cd = (const SP_AMS_COND *)conds + g / replicas;
  *stream = SP_AMS_C_STREAM0(cd) + replica0 + g % replicas;
  return cd;
}

extern "C" __global__ void __launch_bounds__(SP_AMS_BLOCK)
sp_ams_long_kernel(const sp_ams_long_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.nitems) return;
  sp_ams_long_state st = a.lt[i];
  if (st.nexit >= a.particles) return;
  uint64_t stream;
  const SP_AMS_COND *cd = sp_ams_item(a.conds, a.replicas, a.replica0, a.item0 + i, &stream);
  SP_PREC(sp_ams_par) par;
  SP_PREC(sp_ams_par_load)(&par, cd, a.tables);
  sp_ams_result res = a.res[i];
  const uint64_t off = i * a.particles;
  int f = SP_PREC(sp_ams_long_advance)(&par, SP_AMS_HEUN, cd, a.tables, a.seed, stream,
                                       a.particles, &st, a.lx + i * SP_AMS_NX, &res, a.x + off,
                                       a.xs, a.k0 + off, a.path + off, a.budget);
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
  const SP_AMS_COND *cd = sp_ams_item(a.conds, a.replicas, a.replica0, a.item0 + item, &stream);
  SP_PREC(sp_ams_par) par;
  SP_PREC(sp_ams_par_load)(&par, cd, a.tables);
  int f = SP_PREC(sp_ams_branch)(&par, SP_AMS_HEUN, a.seed, stream, SP_AMS_C_H(cd),
                                 tk.child - off,
                                 tk.parent == SP_AMS_NO_PARENT ? SP_AMS_NO_PARENT
                                                               : tk.parent - off,
                                 tk.path, (SP_REAL)tk.z, a.x + off, a.xs, a.maxs + off,
                                 a.k0 + off, a.path + off, a.dur + off, &steps, a.wx + off,
                                 a.wk + off, a.budget);
  sp_ams_task_out o;
  o.maxs = (double)a.maxs[tk.child];
  o.steps = f == SP_AMS_OK       ? steps
            : f == SP_AMS_PAUSED ? SP_AMS_OUT_PAUSED | steps
                                 : SP_AMS_OUT_FAILED | (uint64_t)f;
  a.out[t] = o;
  if (f != SP_AMS_OK && f != SP_AMS_PAUSED)
    atomicMin((unsigned long long *)a.bad, (unsigned long long)t);
}
