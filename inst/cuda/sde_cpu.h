/* sde_cpu.h: the entries of a user's SDE model compiled for the CPU (by R's
 * toolchain into a shared object of the cache; see sde_run()).  Included
 * once per precision after sde_engine.h by the generated C file; the
 * package's CPU engine (src/core/sp_sde.c) calls these through pointers:
 * sp_sde_cpu_lanes for a batch of paths at a time (the vector loop of
 * sde_lanes.h, which falls back on sp_sde_cpu_advance for a path's rare
 * macro-steps), sp_sde_cpu_observe once per path and record (never once
 * per step).  States pass as double
 * (a float converts to double and back exactly); a path's record x holds
 * its nx states and then its run of coarse steps (SP_SDE_XS); the
 * parameters par are the condition's in double, read as they are by the
 * model's subexpressions of t and the parameters (pd). */
int SP_PREC(sp_sde_cpu_advance)(const sp_sde_job *job, const double *par, uint64_t seed,
                               uint64_t stream, double *x, uint64_t *k, uint64_t kend,
                               double *frac, int *what) {
  SP_REAL p[SP_SDE_NP > 0 ? SP_SDE_NP : 1], xr[SP_SDE_NX], f = 1;
  unsigned run = (unsigned)x[SP_SDE_NX];
  int i, st;
  for (i = 0; i < SP_SDE_NP; i++) p[i] = (SP_REAL)par[i];
  for (i = 0; i < SP_SDE_NX; i++) xr[i] = (SP_REAL)x[i];
  st = SP_PREC(sp_sde_advance)(p, par, job->dt, (SP_REAL)job->dt, (SP_REAL)sqrt(job->dt), seed,
                               stream, (int)job->heun, (int)job->use_stop, (int)job->bridge, 0,
                               SP_SDE_NO_TAB, 0, xr, &run, k, kend, &f, what);
  for (i = 0; i < SP_SDE_NX; i++) x[i] = (double)xr[i];
  x[SP_SDE_NX] = (double)run;
  *frac = (double)f;
  return st;
}

void SP_PREC(sp_sde_cpu_observe)(const sp_sde_job *job, const double *par, uint64_t k,
                                const double *x, double *out) {
  SP_REAL p[SP_SDE_NP > 0 ? SP_SDE_NP : 1], xr[SP_SDE_NX], o[SP_SDE_NX + SP_SDE_NO];
  int i;
  for (i = 0; i < SP_SDE_NP; i++) p[i] = (SP_REAL)par[i];
  for (i = 0; i < SP_SDE_NX; i++) xr[i] = (SP_REAL)x[i];
  SP_PREC(sp_sde_values)(p, par, 0, SP_SDE_NO_TAB, 0, job->dt, k, xr, o);
  for (i = 0; i < SP_SDE_NX + SP_SDE_NO; i++) out[i] = (double)o[i];
}

/* The lanes of a batch path by path (sp_sde_lanes_fn): the entry of an
 * object without the model's vector copy, and where the processor lacks
 * the instructions that copy was compiled for. */
static void SP_PREC(sp_sde_cpu_lanes_paths)(const sp_sde_job *job, uint64_t seed,
                                            sp_sde_lanes *L) {
  int l;
  for (l = 0; l < SP_SDE_W; l++) {
    if (!L->on[l] || L->status[l] != SP_SDE_RUNNING || L->k[l] >= L->kend[l]) continue;
    L->status[l] = SP_PREC(sp_sde_cpu_advance)(job, L->par[l], seed, L->stream[l], L->x[l],
                                               &L->k[l], L->kend[l], &L->frac[l], &L->what[l]);
  }
}

/* The lanes of a batch (sp_sde_lanes_fn): with the model's vector copy
 * (an object of sde_run() for long runs, SP_SDE_CPU_LANES: sde_lanes.h),
 * or path by path. */
#ifdef SP_SDE_CPU_LANES
#  define SP_PREC_LANE 1
#  include "sde_prelude.h"
#  include "sde_model.h"
#  include "sde_engine.h"
#  undef SP_PREC_LANE
#  include "sp_precision.h" /* the scalar copy's names again */
#  include "sde_lanes.h"
#else
void SP_PREC(sp_sde_cpu_lanes)(const sp_sde_job *job, uint64_t seed, sp_sde_lanes *L) {
  SP_PREC(sp_sde_cpu_lanes_paths)(job, seed, L);
}
#endif
