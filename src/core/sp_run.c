#include "sp_run.h"

#include <time.h>

#include "sp_error.h"

double sp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t sp_round_budget(uint64_t budget, double dt, double target, uint64_t budget_max) {
  if (dt < 0.5 * target && budget <= budget_max / 2) return 2 * budget;
  if (dt > 2 * target && budget > 1) return budget / 2;
  return budget;
}

int sp_cpu_run(const sp_cpu_engine *e, void *model, int nth, const sp_hooks *hooks,
               sp_run_info *info) {
  uint64_t budget = e->budget0 > 0 ? e->budget0 : 1;
  sp_round_status st;
  int status = SP_OK;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  st.done = 0;
  st.finished = 0;
  while (!st.finished) {
    double t0 = sp_now();
    status = e->round(model, budget, nth, &st);
    info->seconds += sp_now() - t0; /* the engine's own time: its rounds */
    info->rounds += 1;
    if (status != SP_OK) break;
    sp_hooks_progress(hooks, st.done, e->total);
    if (!st.finished && sp_hooks_interrupted(hooks)) {
      info->interrupted = 1;
      break;
    }
    budget = sp_round_budget(budget, sp_now() - t0, SP_ROUND_SECONDS, e->budget_max);
  }
  if (status == SP_OK && e->collect != NULL) e->collect(model, info->interrupted);
  return status;
}
