/* The CPU AMS engine in both precisions: its loop (sp_ams_engine.inc)
 * compiled once in single precision (_f) and once in double (_d). */
#include "sp_optimize.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_ams.h"
#include "sp_error.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "sp_ams_engine.inc"
#undef SP_REAL
#undef SP_REAL_SINGLE

#define SP_REAL double
#include "sp_ams_engine.inc"
#undef SP_REAL

void sp_ams_job_long_init(const sp_ams_job *job, uint64_t item, sp_ams_long_state *st,
                          double *lx) {
  const uint64_t c = item / job->replicas, stream = sp_ams_job_stream(job, item);
  int64_t d;
  if (job->model == SP_AMS_MODEL_WASHBOARD) {
    if (job->single) sp_ams_long_init_f(&job->conds[c], job->tables, job->seed, stream, st, lx);
    else sp_ams_long_init_d(&job->conds[c], job->tables, job->seed, stream, st, lx);
    return;
  }
  /* a user's SDE model: its start, as ams.h's sp_ams_long_init does */
  sp_ams_sde_start(&job->sconds[c], job->tables, (int)job->nx, job->seed, stream, 0, lx);
  if (job->single)
    for (d = 0; d < job->nx; d++) lx[d] = (double)(float)lx[d];
  sp_ams_long_state_init(st);
}
