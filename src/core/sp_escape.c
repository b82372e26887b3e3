#include "sp_escape.h"

#include "sp_error.h"

#include <stdio.h>

/* escape.h's functions in double precision (sp_escape_value_d), for the
 * bookkeeping of both precisions */
#include "escape.h"

uint64_t sp_escape_items(const sp_escape_job *job) {
  return job->resume != NULL ? job->nresume : (uint64_t)job->ncond * job->n;
}

uint64_t sp_escape_path(const sp_escape_job *job, uint64_t i) {
  return job->resume != NULL ? (uint64_t)job->resume[i].path : i;
}

double sp_escape_reached(const sp_escape_job *job, uint64_t i, uint64_t k) {
  return sp_escape_value_d(&job->conds[sp_escape_path(job, i) / job->n], k, 1.0);
}

void sp_escape_set_end(sp_escape_out *out, uint64_t i, double phi, double v, uint64_t step,
                       int hit, double frac) {
  out->end_phi[i] = phi;
  out->end_v[i] = v;
  out->end_step[i] = (double)step;
  out->end_hit[i] = hit;
  out->end_frac[i] = frac;
}

void sp_escape_unstarted(const sp_escape_job *job, sp_escape_out *out, uint64_t i) {
  const sp_escape_state *s = job->resume != NULL ? &job->resume[i] : NULL;
  out->status[i] = SP_ESCAPE_UNSTARTED;
  out->value[i] = sp_escape_reached(job, i, s != NULL && s->step > 0 ? (uint64_t)s->step : 0);
  if (s != NULL)
    sp_escape_set_end(out, i, s->phi, s->v, (uint64_t)s->step, (int)s->hit, s->frac);
  else
    sp_escape_set_end(out, i, 0.0, 0.0, 0, 0, 0.0), out->end_step[i] = -1.0;
}

void sp_escape_out_init(const sp_escape_job *job, sp_escape_out *out) {
  uint64_t total = sp_escape_items(job), i;
  for (i = 0; i < total; i++) sp_escape_unstarted(job, out, i);
  out->counts.issued = out->counts.useful = out->counts.finished = 0;
  out->counts.bad = SP_ESCAPE_NO_PATH;
}

void sp_escape_resume_starts(sp_escape_job *job) {
  sp_escape_state *s = (sp_escape_state *)job->resume; /* the job's own copy */
  uint64_t i;
  for (i = 0; i < job->nresume; i++) {
    uint64_t p = (uint64_t)s[i].path;
    const sp_escape_cond *cd = &job->conds[p / job->n];
    if (s[i].step >= 0) continue;
    sp_escape_start(cd, job->tables, job->seed, cd->stream0 + job->replica0 + p % job->n,
                    &s[i].phi, &s[i].v);
    s[i].step = 0;
    s[i].hit = 0;
    s[i].frac = 0.0;
  }
}

int sp_escape_not_finite(const sp_escape_job *job, uint64_t i) {
  const uint64_t p = sp_escape_path(job, i), c = p / job->n, r = p % job->n;
  const sp_escape_cond *cd = &job->conds[c];
  const unsigned long long replica = (unsigned long long)(job->replica0 + r + 1);
  uint64_t k = 0;
  int what = 0;
  char where[128];
  if (job->single) sp_escape_replay_f(job, i, &k, &what);
  else sp_escape_replay_d(job, i, &k, &what);
  if (k == 0)
    return sp_fail(SP_ERR_NOT_FINITE,
                   "the state of replica %llu of condition %d became non-finite, while its "
                   "replay on the host (the CPU engine's arithmetic, in the same precision) "
                   "stays finite to its last step, so the step cannot be named; such a path "
                   "can neither escape nor be censored: use a smaller `dt` or check that "
                   "condition's parameters",
                   replica, (int)c + 1);
  if (cd->dg != 0.0)
    snprintf(where, sizeof where, "t = %.6g, bias gamma = %.6g", (double)k * cd->h,
             cd->g0 + (double)k * cd->dg);
  else
    snprintf(where, sizeof where, "t = %.6g", (double)k * cd->h);
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the %s of replica %llu of condition %d became non-finite at step %llu (%s); "
                 "such a path can neither escape nor be censored: use a smaller `dt` or "
                 "check that condition's parameters",
                 what ? "velocity v" : "position phi", replica, (int)c + 1,
                 (unsigned long long)k, where);
}
