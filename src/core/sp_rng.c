#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include "sp_rng.h"

#include "philox.h"
#include "sp_error.h"

typedef struct {
  const sp_philox_job *job;
  double *out;
  uint64_t groups, next; /* groups of four values: all, done */
} sp_philox_cpu;

/* budget: groups per thread in this round */
static int philox_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  sp_philox_cpu *m = (sp_philox_cpu *)model;
  const sp_philox_job *j = m->job;
  uint64_t end = m->next + budget * (uint64_t)(nth > 0 ? nth : 1);
  int64_t g;
  if (end > m->groups || end < m->next) end = m->groups;
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static)
#endif
  for (g = (int64_t)m->next; g < (int64_t)end; g++) {
    double v[4];
    uint64_t j0 = 4 * (uint64_t)g, k;
    sp_philox_group(j->kind, j->single, j->seed, j->stream, j->offset, (uint64_t)g, v);
    for (k = 0; k < 4 && j0 + k < j->n; k++) m->out[j0 + k] = v[k];
  }
  m->next = end;
  st->done = (double)end;
  st->finished = end >= m->groups;
  return SP_OK;
}

int sp_philox_fill(const sp_philox_job *job, double *out, int nth, const sp_hooks *hooks,
                   sp_run_info *info, uint64_t *filled) {
  sp_philox_cpu m;
  sp_cpu_engine e;
  int st;
  m.job = job;
  m.out = out;
  m.groups = (job->n + 3) / 4;
  m.next = 0;
  *filled = 0;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (m.groups == 0) return SP_OK;
  e.total = (double)m.groups;
  e.budget0 = 1 << 14;
  e.budget_max = (uint64_t)1 << 40;
  e.round = philox_round;
  e.collect = NULL;
  st = sp_cpu_run(&e, &m, nth, hooks, info);
  *filled = 4 * m.next < job->n ? 4 * m.next : job->n;
  return st;
}
