#include "sp_escape.h"

#include "sp_error.h"

/* escape.h's functions in double precision (sp_escape_value_d), for the
 * bookkeeping of both precisions */
#include "escape.h"

int sp_escape_cpu_run_f(const sp_escape_job *job, sp_escape_out *out, int nth,
                        const sp_hooks *hooks, sp_run_info *info);
int sp_escape_cpu_run_d(const sp_escape_job *job, sp_escape_out *out, int nth,
                        const sp_hooks *hooks, sp_run_info *info);

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
}

int sp_escape_cpu(const sp_escape_job *job, sp_escape_out *out, int nth,
                  const sp_hooks *hooks, sp_run_info *info) {
  sp_escape_out_init(job, out);
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (job->n == 0 || job->ncond <= 0) return SP_OK;
  return job->single ? sp_escape_cpu_run_f(job, out, nth, hooks, info)
                     : sp_escape_cpu_run_d(job, out, nth, hooks, info);
}
