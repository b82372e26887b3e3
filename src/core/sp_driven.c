#include "sp_driven.h"

#include <math.h>

#include "sp_error.h"

/* driven.h's shared functions (sp_driven_start_x) */
#include "driven.h"

int sp_driven_cpu_run_f(const sp_driven_job *job, sp_driven_out *out, int nth,
                        const sp_hooks *hooks, sp_run_info *info);
int sp_driven_cpu_run_d(const sp_driven_job *job, sp_driven_out *out, int nth,
                        const sp_hooks *hooks, sp_run_info *info);

uint64_t sp_driven_paths(const sp_driven_job *job) {
  return (uint64_t)job->ncond * job->n;
}

void sp_driven_start(const sp_driven_job *job, uint64_t p, double *x, double *v) {
  uint64_t c = p / job->n, r = p % job->n;
  if (job->nx0 > 0) *x = job->x0[job->nx0 == 1 ? 0 : r];
  else *x = sp_driven_start_x(job->seed, job->conds[c].stream0 + job->replica0 + r);
  *v = job->nv0 > 0 ? job->v0[job->nv0 == 1 ? 0 : r] : 0.0;
}

int64_t sp_driven_keep_base(const sp_driven_job *job, uint64_t p) {
  uint64_t c = p / job->n, r = p % job->n;
  if (r >= job->keep_m) return -1;
  return (int64_t)((c * job->keep_m + r) * (job->periods + 1));
}

void sp_driven_out_init(const sp_driven_job *job, sp_driven_out *out) {
  uint64_t total = sp_driven_paths(job), p, nk = (uint64_t)job->ncond * job->keep_m *
                                                  (job->periods + 1);
  for (p = 0; p < total; p++) {
    out->x[p] = out->v[p] = out->xtr[p] = NAN;
    out->acc2[p] = 0.0;
  }
  for (p = 0; p < nk; p++) out->keep_x[p] = out->keep_v[p] = NAN;
  if (job->dens_bins > 0 && out->dens != NULL) {
    uint64_t nd = (uint64_t)job->ncond * (job->periods + 1) * ((uint64_t)job->dens_bins + 2);
    for (p = 0; p < nd; p++) out->dens[p] = 0.0;
  }
  out->steps = 0;
}

int sp_driven_cpu(const sp_driven_job *job, sp_driven_out *out, int nth,
                  const sp_hooks *hooks, sp_run_info *info) {
  sp_driven_out_init(job, out);
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (job->n == 0 || job->ncond <= 0) return SP_OK;
  return job->single ? sp_driven_cpu_run_f(job, out, nth, hooks, info)
                     : sp_driven_cpu_run_d(job, out, nth, hooks, info);
}
