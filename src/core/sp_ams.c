#include "sp_ams.h"

#include <stdio.h>
#include <string.h>

#include "sp_error.h"


const void *sp_ams_job_cond(const sp_ams_job *job, uint64_t c) {
  return job->model == SP_AMS_MODEL_SDE ? (const void *)&job->sconds[c]
                                        : (const void *)&job->conds[c];
}

double sp_ams_job_h(const sp_ams_job *job, uint64_t c) {
  return job->model == SP_AMS_MODEL_SDE ? job->sconds[c].h : job->conds[c].esc.h;
}

uint64_t sp_ams_job_stream(const sp_ams_job *job, uint64_t item) {
  const uint64_t c = item / job->replicas;
  return (job->model == SP_AMS_MODEL_SDE ? job->sconds[c].stream0 : job->conds[c].esc.stream0) +
         job->replica0 + item % job->replicas;
}

int sp_ams_prepare_washboard(void *vjob) {
  sp_ams_job *job = (sp_ams_job *)vjob;
  job->model = SP_AMS_MODEL_WASHBOARD;
  job->nx = 2;
  job->sconds = NULL;
  job->entry_long = job->entry_branch = NULL;
  return SP_OK;
}

int sp_ams_prepare_sde(void *vjob) {
  sp_ams_job *job = (sp_ams_job *)vjob;
  int c;
  job->model = SP_AMS_MODEL_SDE;
  job->conds = NULL;
  if (job->nx < 1 || job->nx > 255) return sp_fail(SP_ERR_INVALID, "internal error: nx");
  for (c = 0; c < job->ncond; c++) {
    const sp_ams_sde_cond *s = &job->sconds[c];
    int64_t v;
    if (s->par0 < 0 || s->init0 < 0 || (size_t)(s->init0 + 3 * job->nx) > job->ntables)
      return sp_fail(SP_ERR_INVALID, "internal error: the tables of condition %d", c + 1);
    for (v = 0; v < job->nx; v++) { /* a tabulated start: its table inside `tables` */
      const double *k = job->tables + s->init0 + 3 * v;
      if (k[0] != SP_AMS_START_TABLE) continue;
      if (!(k[1] >= 0) || (size_t)k[1] + 3 > job->ntables ||
          !(job->tables[(size_t)k[1]] >= 2) ||
          (size_t)k[1] + 3 + 2 * (size_t)job->tables[(size_t)k[1]] > job->ntables)
        return sp_fail(SP_ERR_INVALID, "internal error: the start table of condition %d", c + 1);
    }
  }
  return SP_OK;
}

void sp_ams_out_init(const sp_ams_job *job, sp_ams_result *out) {
  uint64_t total = (uint64_t)job->ncond * job->replicas, i;
  for (i = 0; i < total; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].status = SP_AMS_UNFINISHED;
  }
}

int sp_ams_fail(const sp_ams_job *job, uint64_t item, int what, int long_trajectory,
                uint64_t k) {
  const uint64_t c = item / job->replicas, r = item % job->replicas;
  const unsigned long long replica = (unsigned long long)(job->replica0 + r + 1);
  const char *where = long_trajectory ? "its long trajectory" : "a particle's path";
  char step[96] = "";
  if (k > 0)
    snprintf(step, sizeof step, " by step %llu (t = %.6g)", (unsigned long long)k,
             (double)k * sp_ams_job_h(job, c));
  if (what == SP_AMS_FAIL_NOT_FINITE)
    return sp_fail(SP_ERR_NOT_FINITE,
                   "the state of replica %llu of condition %d became non-finite in %s%s; a "
                   "path with a non-finite state can neither return to A nor reach the "
                   "threshold: use a smaller `dt` or check that condition's parameters",
                   replica, (int)c + 1, where, step);
  if (what == SP_AMS_FAIL_STILL)
    return sp_fail(SP_ERR_INVALID,
                   "the long trajectory of replica %llu of condition %d stopped moving%s: "
                   "%llu steps in a row left its state unchanged, so it can never leave A "
                   "(the noise is zero there, or too small to change the state in this "
                   "precision, and the drift holds it). Give that condition's noise a "
                   "positive amplitude where the path starts and rests (%s), or use "
                   "precision = \"double\"",
                   replica, (int)c + 1, step, (unsigned long long)SP_AMS_STILL_MAX,
                   job->model == SP_AMS_MODEL_SDE ? "`params`, the model's noise or `init`"
                                                  : "a larger `theta`");
  if (what == SP_AMS_FAIL_LIMIT)
    return sp_fail(SP_ERR_INVALID,
                   "replica %llu of condition %d passed a limit of the AMS engine in %s%s: "
                   "at most 2^34 steps a path and 2^24 paths a replica; use fewer "
                   "`particles`, a larger `k` or a lower %s",
                   replica, (int)c + 1, where, step,
                   job->model == SP_AMS_MODEL_SDE ? "`A`" : "`phi_A`");
  return sp_fail(SP_ERR_INVALID,
                 "internal error: a replay of replica %llu of condition %d missed its level",
                 replica, (int)c + 1);
}
