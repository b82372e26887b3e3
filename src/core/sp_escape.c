#include "sp_escape.h"

#include "sp_error.h"

#include <stdio.h>

/* escape.h's functions in double precision (sp_escape_value_d), for the
 * bookkeeping of both precisions */
#include "escape.h"

double sp_escape_reached(const sp_escape_job *job, uint64_t p, uint64_t k) {
  return sp_escape_value_d(&job->conds[p / job->n], k, 1.0);
}

void sp_escape_out_init(const sp_escape_job *job, sp_escape_out *out) {
  uint64_t total = (uint64_t)job->ncond * job->n, p;
  for (p = 0; p < total; p++) {
    out->status[p] = SP_ESCAPE_UNSTARTED;
    out->value[p] = sp_escape_reached(job, p, 0);
  }
  out->counts.issued = out->counts.useful = out->counts.finished = 0;
  out->counts.bad = SP_ESCAPE_NO_PATH;
}

int sp_escape_not_finite(const sp_escape_job *job, uint64_t p) {
  const uint64_t c = p / job->n, r = p % job->n;
  const sp_escape_cond *cd = &job->conds[c];
  const unsigned long long replica = (unsigned long long)(job->replica0 + r + 1);
  uint64_t k = 0;
  int what = 0;
  char where[128];
  if (job->single) sp_escape_replay_f(job, p, &k, &what);
  else sp_escape_replay_d(job, p, &k, &what);
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
