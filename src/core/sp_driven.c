#include "sp_driven.h"

#include <math.h>

#include "sp_error.h"

/* driven.h's shared functions (sp_driven_start_x) */
#include "driven.h"


uint64_t sp_driven_paths(const sp_driven_job *job) {
  return (uint64_t)job->ncond * job->n;
}

void sp_driven_start(const sp_driven_job *job, uint64_t p, double *x, double *v) {
  uint64_t c = p / job->n, r = p % job->n;
  if (job->nx0 > 0) *x = job->x0[job->nx0 == 1 ? 0 : r];
  else *x = sp_driven_start_x(job->seed, job->conds[c].stream0 + job->replica0 + r);
  *v = job->nv0 > 0 ? job->v0[job->nv0 == 1 ? 0 : r] : 0.0;
}

double sp_driven_work(const sp_driven_job *job) {
  return (double)sp_driven_paths(job) *
         (double)(job->periods * (uint64_t)job->spp - job->k0);
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
    out->x[p] = out->v[p] = out->xtr[p] = out->m[p] = out->y[p] = NAN;
    out->acc2[p] = out->s2[p] = 0.0;
  }
  for (p = 0; p < nk; p++) out->keep_x[p] = out->keep_v[p] = NAN;
  if (job->dens_bins > 0 && out->dens != NULL) {
    uint64_t nd = (uint64_t)job->ncond * (job->periods + 1) * ((uint64_t)job->dens_bins + 2);
    for (p = 0; p < nd; p++) out->dens[p] = 0.0;
  }
  out->steps = 0;
}

int sp_driven_not_finite(const sp_driven_job *job, uint64_t p, uint64_t kdone) {
  static const char *const what_name[] = {"position x", "velocity v",
                                          "sum of v^2 (for <v^2>)"};
  const uint64_t c = p / job->n, r = p % job->n;
  const double dt = job->conds[c].dt;
  const unsigned long long replica = (unsigned long long)(job->replica0 + r + 1);
  uint64_t k = 0;
  int what = 0;
  if (job->single) sp_driven_replay_f(job, p, kdone, &k, &what);
  else sp_driven_replay_d(job, p, kdone, &k, &what);
  if (k == 0)
    return sp_fail(SP_ERR_NOT_FINITE,
                   "the state of replica %llu of condition %d became non-finite by step %llu "
                   "(t = %.6g), while its replay on the host (the CPU engine's arithmetic, in "
                   "the same precision) stays finite, so the step cannot be named; raise "
                   "`steps_per_period` or check that condition's parameters",
                   replica, (int)c + 1, (unsigned long long)kdone, (double)kdone * dt);
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the %s of replica %llu of condition %d became non-finite at step %llu "
                 "(t = %.6g, period %.6g); raise `steps_per_period` or check that "
                 "condition's parameters",
                 what_name[what], replica, (int)c + 1, (unsigned long long)k, (double)k * dt,
                 (double)k / (double)job->spp);
}

