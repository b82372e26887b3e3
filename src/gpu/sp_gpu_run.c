/* sp_gpu_run.c: the GPU round driver (see sp_gpu_run.h). */
#include "sp_gpu_run.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"

int sp_gpu_dev_alloc(sp_gpu_dev *d, size_t bytes, const char *what, CUdeviceptr *out) {
  int st;
  *out = 0;
  if (d->nbufs == d->capbufs) {
    int cap = d->capbufs ? 2 * d->capbufs : 16;
    sp_gpu_buf *b = (sp_gpu_buf *)realloc(d->bufs, (size_t)cap * sizeof *b);
    if (b == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    d->bufs = b;
    d->capbufs = cap;
  }
  st = sp_gpu_alloc(d->id, bytes, what, out);
  if (st != SP_OK) return st;
  d->bufs[d->nbufs].ptr = *out;
  d->bufs[d->nbufs].bytes = bytes;
  d->nbufs++;
  return SP_OK;
}

int sp_gpu_dev_event(sp_gpu_dev *d, CUevent *out) {
  int st;
  *out = NULL;
  if (d->nevents >= (int)(sizeof d->events / sizeof d->events[0]))
    return sp_fail(SP_ERR_INVALID, "internal error: too many events on %s", sp_gpu_label(d->id));
  st = sp_gpu_event_create(d->id, &d->events[d->nevents]);
  if (st != SP_OK) return st;
  *out = d->events[d->nevents++];
  return SP_OK;
}

/* Wait for the device's queued work, then free everything it holds. */
static void dev_release(sp_gpu_dev *d) {
  int i;
  if (d->stream != NULL) sp_gpu_stream_sync(d->id, d->stream);
  for (i = 0; i < d->nevents; i++) sp_gpu_event_destroy(d->id, &d->events[i]);
  d->nevents = 0;
  for (i = d->nbufs - 1; i >= 0; i--) sp_gpu_free(d->id, &d->bufs[i].ptr);
  free(d->bufs);
  d->bufs = NULL;
  d->nbufs = d->capbufs = 0;
  sp_gpu_stream_destroy(d->id, &d->stream);
  free(d->state);
  d->state = NULL;
}

int sp_gpu_run(const sp_gpu_engine *e, void *model, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  sp_gpu_dev *D;
  unsigned budget = e->budget0 > 0 ? e->budget0 : 1;
  int i, st = SP_OK, busy = 1;
  double t_setup = sp_now(), t_collect;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  D = (sp_gpu_dev *)calloc((size_t)ndev, sizeof *D);
  if (D == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (i = 0; i < ndev && st == SP_OK; i++) {
    sp_gpu_dev *d = &D[i];
    d->id = devices[i];
    d->index = i;
    if (e->state_size > 0) {
      d->state = calloc(1, e->state_size);
      if (d->state == NULL) st = sp_fail(SP_ERR_NOMEM, "out of host memory");
    }
    if (st == SP_OK) st = sp_gpu_device_info_get(d->id, 0, &d->info);
    if (st == SP_OK) st = sp_gpu_stream_create(d->id, &d->stream);
    if (st == SP_OK) st = e->setup(model, d);
  }
  info->setup = sp_now() - t_setup;
  while (st == SP_OK && busy) {
    double t0 = sp_now(), done = 0, target = SP_ROUND_SECONDS;
    int all_tail = 1;
    for (i = 0; i < ndev && st == SP_OK; i++) {
      if (D[i].idle) continue;
      st = sp_gpu_activate(D[i].id);
      if (st == SP_OK) st = e->launch(model, &D[i], budget);
    }
    for (i = 0; i < ndev && st == SP_OK; i++) {
      sp_gpu_dev *d = &D[i];
      if (!d->idle) {
        st = sp_gpu_stream_sync(d->id, d->stream);
        if (st == SP_OK) st = e->poll(model, d);
      }
      done += d->done;
    }
    if (st == SP_OK && e->check != NULL) st = e->check(model);
    /* the engine's own time: its rounds (launches to polls), not the
     * set-up (allocations, uploads, start draws), the hooks, the collect
     * or the release, which are part of a call's fixed cost */
    info->seconds += sp_now() - t0;
    info->rounds += 1;
    if (st != SP_OK) break;
    busy = 0;
    for (i = 0; i < ndev; i++) {
      busy |= !D[i].idle;
      if (!D[i].idle) all_tail &= D[i].tail;
    }
    sp_hooks_progress(hooks, done, e->total);
    if (busy && sp_hooks_interrupted(hooks)) {
      info->interrupted = 1;
      break;
    }
    if (all_tail && e->tail_factor > 0) target *= e->tail_factor;
    budget = (unsigned)sp_round_budget(budget, sp_now() - t0, target,
                                       e->budget_max > 0 ? e->budget_max : 1u << 30);
  }
  t_collect = sp_now();
  for (i = 0; i < ndev && st == SP_OK && e->collect != NULL; i++)
    st = e->collect(model, &D[i], info->interrupted);
  if (st != SP_OK) {
    /* the release may fail again (a device in an error state): the user
     * reads the first failure */
    sp_error_saved saved;
    sp_error_save(&saved);
    for (i = 0; i < ndev; i++) dev_release(&D[i]);
    sp_error_restore(&saved);
  } else {
    for (i = 0; i < ndev; i++) dev_release(&D[i]);
  }
  free(D);
  info->collect = sp_now() - t_collect;
  return st;
}

void sp_gpu_work_init(sp_gpu_work *w, uint64_t total, int ndev, uint64_t per_device,
                      uint64_t min_chunk) {
  uint64_t parts = (uint64_t)(ndev > 0 ? ndev : 1) * (per_device > 0 ? per_device : 1);
  uint64_t c = (total + parts - 1) / parts;
  if (c < min_chunk) c = min_chunk;
  if (c < 1) c = 1;
  w->total = total;
  w->chunk = c;
  w->next = 0;
}

uint64_t sp_gpu_work_take(sp_gpu_work *w, uint64_t *start) {
  uint64_t n = w->total - w->next;
  if (n > w->chunk) n = w->chunk;
  *start = w->next;
  w->next += n;
  return n;
}

uint64_t sp_gpu_work_chunks(const sp_gpu_work *w) {
  return (w->total + w->chunk - 1) / w->chunk;
}
