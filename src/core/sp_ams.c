#include "sp_ams.h"

#include <string.h>

#include "sp_error.h"

int sp_ams_cpu_run_f(const sp_ams_job *job, sp_ams_result *out, int nth, const sp_hooks *hooks,
                     sp_run_info *info);
int sp_ams_cpu_run_d(const sp_ams_job *job, sp_ams_result *out, int nth, const sp_hooks *hooks,
                     sp_run_info *info);

void sp_ams_out_init(const sp_ams_job *job, sp_ams_result *out) {
  uint64_t total = (uint64_t)job->ncond * job->replicas, i;
  for (i = 0; i < total; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].status = SP_AMS_UNFINISHED;
  }
}

int sp_ams_not_finite(const sp_ams_job *job, uint64_t item, const char *where, uint64_t path,
                      uint64_t k) {
  const uint64_t c = item / job->replicas, r = item % job->replicas;
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the state of replica %llu of condition %d became non-finite in %s (path %llu, "
                 "by step %llu, t = %.6g); a path with a non-finite state can neither return "
                 "to A nor reach the threshold: use a smaller `dt` or check that condition's "
                 "parameters",
                 (unsigned long long)(job->replica0 + r + 1), (int)c + 1, where,
                 (unsigned long long)path, (unsigned long long)k,
                 (double)k * job->conds[c].esc.h);
}

int sp_ams_cpu(const sp_ams_job *job, sp_ams_result *out, int nth, const sp_hooks *hooks,
               sp_run_info *info) {
  sp_ams_out_init(job, out);
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (job->replicas == 0 || job->ncond <= 0) return SP_OK;
  return job->single ? sp_ams_cpu_run_f(job, out, nth, hooks, info)
                     : sp_ams_cpu_run_d(job, out, nth, hooks, info);
}
