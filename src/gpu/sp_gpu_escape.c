/* sp_gpu_escape.c: host side of inst/cuda/escape.cu, an engine of the GPU
 * round driver (sp_gpu_run.h).  Paths are handed to the devices in chunks
 * from the shared counter; each device keeps enough queued for its lanes
 * and what it finished in the last round; once nothing is left to hand out
 * (the tail), the running paths are packed into full warps between rounds. */
#include "sp_gpu_escape.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

/* one device takes a run as one chunk, several take 16 chunks each (see
 * sp_gpu_escape()): never more chunks than this */
#define ESC_MAX_CHUNKS (16 * SP_GPU_MAX_DEVICES + 16)

typedef struct {
  const char *key;
  const sp_escape_job *job;
  sp_escape_out *out;
  sp_gpu_work work;
  uint64_t total;
  unsigned long long bad; /* the lowest path found non-finite on any device */
} esc_model;

typedef struct {
  CUfunction kern, compact;
  size_t real_bytes;
  CUdeviceptr conds, tables, counters, next, starts, value, status, count, end, resume;
  /* value and status share one buffer, 12 bytes a path */
  CUdeviceptr pid[2], phi[2], v[2], k[2];
  int cur;
  uint64_t nlanes;
  unsigned long long hstarts[ESC_MAX_CHUNKS]; /* the device's chunks: first paths */
  uint64_t hlens[ESC_MAX_CHUNKS];             /* and lengths */
  uint64_t nchunks, nslots, assigned;
  unsigned long long hnext;
  sp_escape_counters hc;
  unsigned long long finished_prev;
} esc_dev;

/* Queue chunks until `want` slots wait for lanes (or nothing is left). */
static int esc_top_up(esc_model *m, sp_gpu_dev *d, uint64_t want) {
  esc_dev *e = (esc_dev *)d->state;
  while (e->nslots - e->hnext < want) {
    uint64_t start, len = sp_gpu_work_take(&m->work, &start);
    unsigned long long s = start;
    int st;
    if (len == 0) break;
    st = sp_gpu_to_device(d->id, e->starts + e->nchunks * sizeof s, &s, sizeof s);
    if (st != SP_OK) return st;
    e->hstarts[e->nchunks] = s;
    e->hlens[e->nchunks] = len;
    e->nchunks++;
    e->nslots += m->work.chunk;
    e->assigned += len;
  }
  return SP_OK;
}

static int esc_setup(void *model, sp_gpu_dev *d) {
  esc_model *m = (esc_model *)model;
  const sp_escape_job *job = m->job;
  esc_dev *e = (esc_dev *)d->state;
  uint64_t maxchunks = sp_gpu_work_chunks(&m->work), lanes_cap;
  size_t ncond = (size_t)job->ncond;
  int st, per_sm = 0, b;
  e->real_bytes = job->single ? sizeof(float) : sizeof(double);
  if (maxchunks > ESC_MAX_CHUNKS)
    return sp_fail(SP_ERR_INVALID, "internal error: %llu chunks", (unsigned long long)maxchunks);
  if ((st = sp_gpu_function(d->id, m->key, "sp_escape_kernel", &e->kern)) != SP_OK) return st;
  if ((st = sp_gpu_function(d->id, m->key, "sp_escape_compact_kernel", &e->compact)) != SP_OK)
    return st;
  if ((st = sp_gpu_occupancy(d->id, e->kern, SP_ESC_BLOCK, 0, &per_sm)) != SP_OK) return st;
  if (per_sm < 1) per_sm = 1;
  lanes_cap = (uint64_t)d->info.multiprocessors * (uint64_t)per_sm * SP_ESC_BLOCK;
  e->nlanes = m->total < lanes_cap ? (m->total + 31) / 32 * 32 : lanes_cap;
  if ((st = sp_gpu_dev_alloc(d, ncond * sizeof(sp_escape_cond), "the conditions", &e->conds)) ||
      (st = sp_gpu_dev_alloc(d, sizeof(sp_escape_counters), "the counters", &e->counters)) ||
      (st = sp_gpu_dev_alloc(d, 8, "the path counter", &e->next)) ||
      (st = sp_gpu_dev_alloc(d, 8, "the compaction counter", &e->count)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)maxchunks * 8, "the chunk table", &e->starts)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)m->total * (sizeof(double) + sizeof(int) +
                                                     sizeof(sp_escape_state)),
                             "the results (60 bytes a path)", &e->value)))
    return st;
  /* one buffer: the end states (of the paths not escaped), values, statuses */
  e->end = e->value;
  e->value = e->end + (CUdeviceptr)m->total * sizeof(sp_escape_state);
  e->status = e->value + (CUdeviceptr)m->total * sizeof(double);
  if (job->resume != NULL &&
      ((st = sp_gpu_dev_alloc(d, (size_t)job->nresume * sizeof(sp_escape_state),
                              "the paths continued", &e->resume)) ||
       (st = sp_gpu_to_device(d->id, e->resume, job->resume,
                              (size_t)job->nresume * sizeof(sp_escape_state)))))
    return st;
  if (job->ntables > 0 &&
      (st = sp_gpu_dev_alloc(d, job->ntables * sizeof(double), "the thermal-start tables",
                             &e->tables)) != SP_OK)
    return st;
  for (b = 0; b < 2; b++) {
    if ((st = sp_gpu_dev_alloc(d, (size_t)e->nlanes * 8, "the lane state", &e->pid[b])) ||
        (st = sp_gpu_dev_alloc(d, (size_t)e->nlanes * e->real_bytes, "the lane state", &e->phi[b])) ||
        (st = sp_gpu_dev_alloc(d, (size_t)e->nlanes * e->real_bytes, "the lane state", &e->v[b])) ||
        (st = sp_gpu_dev_alloc(d, (size_t)e->nlanes * 8, "the lane state", &e->k[b])))
      return st;
  }
  if ((st = sp_gpu_to_device(d->id, e->conds, job->conds, ncond * sizeof(sp_escape_cond))) ||
      (job->ntables > 0 &&
       (st = sp_gpu_to_device(d->id, e->tables, job->tables, job->ntables * sizeof(double)))) ||
      (st = sp_gpu_memset0(d->id, e->counters, sizeof(sp_escape_counters))) ||
      /* counters.bad: no path found non-finite */
      (st = sp_gpu_memset32(d->id, e->counters + offsetof(sp_escape_counters, bad), 0xffffffffu,
                            2)) ||
      (st = sp_gpu_memset0(d->id, e->next, 8)) ||
      /* pid -1: a lane waiting for a path; status -1: unstarted */
      (st = sp_gpu_memset32(d->id, e->pid[0], 0xffffffffu, (size_t)e->nlanes * 2)) ||
      (st = sp_gpu_memset32(d->id, e->status, 0xffffffffu, (size_t)m->total)))
    return st;
  e->cur = 0;
  return esc_top_up(m, d, 2 * e->nlanes);
}

static int esc_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  esc_model *m = (esc_model *)model;
  esc_dev *e = (esc_dev *)d->state;
  sp_escape_kargs a;
  int c = e->cur;
  memset(&a, 0, sizeof a);
  a.conds = e->conds;
  a.tables = e->tables;
  a.n = m->job->n;
  a.replica0 = m->job->replica0;
  a.seed = m->job->seed;
  a.queue.start = e->starts;
  a.queue.next = e->next;
  a.queue.nslots = e->nslots;
  a.queue.chunk = m->work.chunk;
  a.queue.total = m->total;
  a.pid = e->pid[c];
  a.phi = e->phi[c];
  a.v = e->v[c];
  a.k = e->k[c];
  a.nlanes = e->nlanes;
  a.value = e->value;
  a.status = e->status;
  a.counters = e->counters;
  a.budget = budget;
  a.end = e->end;
  a.resume = e->resume;
  return sp_gpu_launch(d->id, e->kern,
                       (unsigned int)((e->nlanes + SP_ESC_BLOCK - 1) / SP_ESC_BLOCK),
                       SP_ESC_BLOCK, 0, d->stream, &a, "sp_escape_kernel");
}

/* Pack running paths into the other lane buffer. */
static int esc_compact(sp_gpu_dev *d) {
  esc_dev *e = (esc_dev *)d->state;
  int c = e->cur, o = 1 - c, st;
  unsigned long long cnt = 0;
  sp_escape_compact_args a;
  a.pid_from = e->pid[c]; a.phi_from = e->phi[c]; a.v_from = e->v[c]; a.k_from = e->k[c];
  a.nlanes = e->nlanes;
  a.pid_to = e->pid[o]; a.phi_to = e->phi[o]; a.v_to = e->v[o]; a.k_to = e->k[o];
  a.count = e->count;
  if ((st = sp_gpu_memset0(d->id, e->count, 8)) != SP_OK) return st;
  if ((st = sp_gpu_launch(d->id, e->compact,
                          (unsigned int)((e->nlanes + SP_ESC_BLOCK - 1) / SP_ESC_BLOCK),
                          SP_ESC_BLOCK, 0, d->stream, &a, "sp_escape_compact_kernel")) != SP_OK)
    return st;
  if ((st = sp_gpu_stream_sync(d->id, d->stream)) != SP_OK) return st;
  if ((st = sp_gpu_to_host(d->id, &cnt, e->count, 8)) != SP_OK) return st;
  e->cur = o;
  e->nlanes = cnt;
  return SP_OK;
}

static int esc_poll(void *model, sp_gpu_dev *d) {
  esc_model *m = (esc_model *)model;
  esc_dev *e = (esc_dev *)d->state;
  unsigned long long done_round;
  int st;
  if ((st = sp_gpu_to_host(d->id, &e->hc, e->counters, sizeof e->hc)) != SP_OK) return st;
  if (e->hc.bad != SP_ESCAPE_NO_PATH) { /* the run fails (esc_check) */
    if (e->hc.bad < m->bad) m->bad = e->hc.bad;
    return SP_OK;
  }
  if ((st = sp_gpu_to_host(d->id, &e->hnext, e->next, 8)) != SP_OK) return st;
  if (e->hnext > e->nslots) { /* lanes asked past the queue: give those slots back */
    unsigned long long s = e->nslots;
    if ((st = sp_gpu_to_device(d->id, e->next, &s, 8)) != SP_OK) return st;
    e->hnext = s;
  }
  d->done = (double)e->hc.finished;
  done_round = e->hc.finished - e->finished_prev;
  e->finished_prev = e->hc.finished;
  if ((st = esc_top_up(m, d, e->nlanes > 2 * done_round ? e->nlanes : 2 * done_round)) != SP_OK)
    return st;
  d->idle = m->work.next >= m->work.total && e->hc.finished >= e->assigned;
  d->tail = m->work.next >= m->work.total && e->hnext >= e->nslots;
  /* In the tail, pack the running paths into full warps as soon as a tenth
   * of the lanes idle. */
  if (!d->idle && d->tail &&
      (double)(e->assigned - e->hc.finished) < 0.9 * (double)e->nlanes)
    st = esc_compact(d);
  if (st == SP_OK && e->nlanes == 0) d->idle = 1;
  return st;
}

/* After every device's poll: a path found non-finite fails the run (the
 * lowest over the devices, replayed on the host for the message). */
static int esc_check(void *model) {
  esc_model *m = (esc_model *)model;
  if (m->bad == SP_ESCAPE_NO_PATH) return SP_OK;
  return sp_escape_not_finite(m->job, (uint64_t)m->bad);
}

static int esc_collect(void *model, sp_gpu_dev *d, int interrupted) {
  esc_model *m = (esc_model *)model;
  esc_dev *e = (esc_dev *)d->state;
  uint64_t j, i;
  int st = SP_OK;
  for (j = 0; j < e->nchunks && st == SP_OK; j++) {
    uint64_t a = e->hstarts[j], len = e->hlens[j];
    sp_escape_state *end = NULL;
    st = sp_gpu_to_host(d->id, m->out->value + a, e->value + a * sizeof(double),
                        (size_t)len * sizeof(double));
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, m->out->status + a, e->status + a * sizeof(int),
                          (size_t)len * sizeof(int));
    if (st == SP_OK && (end = (sp_escape_state *)malloc((size_t)len * sizeof *end)) == NULL)
      st = sp_fail(SP_ERR_NOMEM, "out of host memory");
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, end, e->end + a * sizeof(sp_escape_state),
                          (size_t)len * sizeof *end);
    for (i = a; st == SP_OK && i < a + len; i++) {
      const sp_escape_state *s = &end[i - a];
      if (m->out->status[i] == SP_ESCAPE_UNSTARTED) sp_escape_unstarted(m->job, m->out, i);
      else if (m->out->status[i] == SP_ESCAPE_CENSORED)
        sp_escape_set_end(m->out, i, s->phi, s->v, (uint64_t)s->step, (int)s->hit,
                          s->hit > 0 ? s->frac : 0.0);
    }
    free(end);
  }
  if (st == SP_OK && interrupted && e->nlanes > 0) {
    /* the paths in the lanes are censored where they got to */
    long long *pid = (long long *)malloc((size_t)e->nlanes * sizeof *pid);
    unsigned long long *k = (unsigned long long *)malloc((size_t)e->nlanes * sizeof *k);
    void *phi = malloc((size_t)e->nlanes * e->real_bytes), *v = malloc((size_t)e->nlanes * e->real_bytes);
    if (pid == NULL || k == NULL || phi == NULL || v == NULL)
      st = sp_fail(SP_ERR_NOMEM, "out of host memory");
    if (st == SP_OK) st = sp_gpu_to_host(d->id, pid, e->pid[e->cur], (size_t)e->nlanes * 8);
    if (st == SP_OK) st = sp_gpu_to_host(d->id, k, e->k[e->cur], (size_t)e->nlanes * 8);
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, phi, e->phi[e->cur], (size_t)e->nlanes * e->real_bytes);
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, v, e->v[e->cur], (size_t)e->nlanes * e->real_bytes);
    for (i = 0; st == SP_OK && i < e->nlanes; i++) {
      int single = e->real_bytes == sizeof(float);
      if (pid[i] < 0) continue;
      m->out->value[pid[i]] = sp_escape_reached(m->job, (uint64_t)pid[i], k[i]);
      m->out->status[pid[i]] = SP_ESCAPE_PARTIAL;
      sp_escape_set_end(m->out, (uint64_t)pid[i],
                        single ? (double)((const float *)phi)[i] : ((const double *)phi)[i],
                        single ? (double)((const float *)v)[i] : ((const double *)v)[i], k[i],
                        0, 0.0);
    }
    free(pid);
    free(k);
    free(phi);
    free(v);
  }
  m->out->counts.issued += e->hc.issued;
  m->out->counts.useful += e->hc.useful;
  m->out->counts.finished += e->hc.finished;
  return st;
}

int sp_gpu_escape(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
                  const sp_hooks *hooks, sp_run_info *info) {
  const sp_escape_job *job = (const sp_escape_job *)vjob;
  sp_escape_out *out = (sp_escape_out *)vout;
  esc_model m;
  sp_gpu_engine e;
  m.key = key;
  m.job = job;
  m.out = out;
  m.total = sp_escape_items(job);
  m.bad = SP_ESCAPE_NO_PATH;
  if (m.total == 0) return SP_OK;
  /* one device takes the whole run as one chunk; several share 16 chunks
   * each, handed out as they go */
  sp_gpu_work_init(&m.work, m.total, ndev, ndev > 1 ? 16 : 1, 32);
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(esc_dev);
  e.total = (double)m.total;
  e.budget0 = 32;
  e.budget_max = 1u << 30;
  e.tail_factor = 0.2;
  e.setup = esc_setup;
  e.launch = esc_launch;
  e.poll = esc_poll;
  e.check = esc_check;
  e.collect = esc_collect;
  return sp_gpu_run(&e, &m, devices, ndev, hooks, info);
}
