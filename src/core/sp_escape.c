#include "sp_escape.h"

#include <time.h>

#include "sp_error.h"

int sp_escape_cpu_run_f(const sp_escape_job *job, double *value, int *escaped, int nth,
                        const sp_hooks *hooks, sp_escape_stats *stats);
int sp_escape_cpu_run_d(const sp_escape_job *job, double *value, int *escaped, int nth,
                        const sp_hooks *hooks, sp_escape_stats *stats);

double sp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sp_escape_cpu(const sp_escape_job *job, double *value, int *escaped, int nth,
                  const sp_hooks *hooks, sp_escape_stats *stats) {
  uint64_t total = (uint64_t)job->ncond * job->n, p;
  stats->useful_steps = stats->issued_steps = stats->finished = stats->seconds = 0;
  stats->interrupted = 0;
  if (job->n == 0 || job->ncond <= 0) return SP_OK;
  for (p = 0; p < total; p++) escaped[p] = SP_ESC_UNFINISHED;
  return job->single ? sp_escape_cpu_run_f(job, value, escaped, nth, hooks, stats)
                     : sp_escape_cpu_run_d(job, value, escaped, nth, hooks, stats);
}
