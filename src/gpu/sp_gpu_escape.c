/* sp_gpu_escape.c: host side of inst/cuda/escape.cu.  Each device takes a
 * contiguous range of paths; rounds of bounded launches run on all devices
 * at once, with progress, interrupts and lane compaction between rounds. */
#include "sp_gpu_escape.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu.h"

#define ESC_BLOCK 128
#define ESC_TARGET_SECONDS 0.1

typedef struct {
  int dev;
  CUstream s;
  CUfunction kern, compact;
  size_t real_bytes;
  CUdeviceptr conds, next, stats, count, value, escaped;
  CUdeviceptr pid[2], phi[2], v[2], k[2];
  int cur;
  uint64_t p_begin, p_end, nlanes, lanes_cap;
  unsigned long long hstats[3], hnext;
  int done;
} esc_dev;

static void esc_release(esc_dev *E, int ndev) {
  int d, b;
  for (d = 0; d < ndev; d++) {
    esc_dev *e = &E[d];
    if (e->s != NULL) sp_gpu_stream_sync(e->dev, e->s);
    sp_gpu_free(e->dev, &e->conds);
    sp_gpu_free(e->dev, &e->next);
    sp_gpu_free(e->dev, &e->stats);
    sp_gpu_free(e->dev, &e->count);
    sp_gpu_free(e->dev, &e->value);
    e->escaped = 0; /* points into the value buffer, freed with it */
    for (b = 0; b < 2; b++) {
      sp_gpu_free(e->dev, &e->pid[b]);
      sp_gpu_free(e->dev, &e->phi[b]);
      sp_gpu_free(e->dev, &e->v[b]);
      sp_gpu_free(e->dev, &e->k[b]);
    }
    sp_gpu_stream_destroy(e->dev, &e->s);
  }
}

static int esc_setup(esc_dev *e, const char *key, const sp_escape_job *job) {
  sp_gpu_device_info info;
  uint64_t npaths = e->p_end - e->p_begin;
  int st, per_sm = 0, b;
  size_t ncond = (size_t)job->ncond;
  unsigned long long start = e->p_begin;
  if ((st = sp_gpu_device_info_get(e->dev, 0, &info)) != SP_OK) return st;
  if ((st = sp_gpu_function(e->dev, key, "sp_escape_kernel", &e->kern)) != SP_OK) return st;
  if ((st = sp_gpu_function(e->dev, key, "sp_escape_compact_kernel", &e->compact)) != SP_OK)
    return st;
  if ((st = sp_gpu_occupancy(e->dev, e->kern, ESC_BLOCK, 0, &per_sm)) != SP_OK) return st;
  if (per_sm < 1) per_sm = 1;
  e->lanes_cap = (uint64_t)info.multiprocessors * (uint64_t)per_sm * ESC_BLOCK;
  e->nlanes = e->lanes_cap;
  if (npaths < e->nlanes) e->nlanes = (npaths + 31) / 32 * 32;
  if ((st = sp_gpu_stream_create(e->dev, &e->s)) != SP_OK) return st;
  if ((st = sp_gpu_alloc(e->dev, ncond * sizeof(sp_wb_cond), "the conditions", &e->conds)) != SP_OK)
    return st;
  if ((st = sp_gpu_alloc(e->dev, 8, "the path counter", &e->next)) != SP_OK) return st;
  if ((st = sp_gpu_alloc(e->dev, 3 * 8, "the statistics", &e->stats)) != SP_OK) return st;
  if ((st = sp_gpu_alloc(e->dev, 8, "the compaction counter", &e->count)) != SP_OK) return st;
  if ((st = sp_gpu_alloc(e->dev, (size_t)npaths * (sizeof(double) + sizeof(int)),
                         "the results (12 bytes a path)", &e->value)) != SP_OK)
    return st;
  /* value and escaped share one allocation checked as a whole */
  e->escaped = e->value + (CUdeviceptr)npaths * sizeof(double);
  for (b = 0; b < 2; b++) {
    if ((st = sp_gpu_alloc(e->dev, (size_t)e->nlanes * 8, "the lane state", &e->pid[b])) != SP_OK ||
        (st = sp_gpu_alloc(e->dev, (size_t)e->nlanes * e->real_bytes, "the lane state", &e->phi[b])) != SP_OK ||
        (st = sp_gpu_alloc(e->dev, (size_t)e->nlanes * e->real_bytes, "the lane state", &e->v[b])) != SP_OK ||
        (st = sp_gpu_alloc(e->dev, (size_t)e->nlanes * 8, "the lane state", &e->k[b])) != SP_OK)
      return st;
  }
  if ((st = sp_gpu_to_device(e->dev, e->conds, job->conds, ncond * sizeof(sp_wb_cond))) != SP_OK)
    return st;
  if ((st = sp_gpu_to_device(e->dev, e->next, &start, 8)) != SP_OK) return st;
  if ((st = sp_gpu_memset0(e->dev, e->stats, 3 * 8)) != SP_OK) return st;
  /* pid -1: a lane waiting for a path; escaped -1: unfinished */
  if ((st = sp_gpu_memset32(e->dev, e->pid[0], 0xffffffffu, (size_t)e->nlanes * 2)) != SP_OK)
    return st;
  if ((st = sp_gpu_memset32(e->dev, e->escaped, 0xffffffffu, (size_t)npaths)) != SP_OK) return st;
  e->cur = 0;
  e->done = npaths == 0;
  return SP_OK;
}

static int esc_launch(esc_dev *e, const sp_escape_job *job, unsigned int budget) {
  uint64_t n = job->n, r0 = job->replica0, seed = job->seed;
  int c = e->cur;
  unsigned int grid = (unsigned int)((e->nlanes + ESC_BLOCK - 1) / ESC_BLOCK);
  void *args[16];
  args[0] = &e->conds; args[1] = &n; args[2] = &r0; args[3] = &e->p_begin;
  args[4] = &e->p_end; args[5] = &e->next; args[6] = &e->pid[c]; args[7] = &e->phi[c];
  args[8] = &e->v[c]; args[9] = &e->k[c]; args[10] = &e->nlanes; args[11] = &e->value;
  args[12] = &e->escaped; args[13] = &seed; args[14] = &budget; args[15] = &e->stats;
  return sp_gpu_launch(e->dev, e->kern, grid, ESC_BLOCK, 0, e->s, args, "sp_escape_kernel");
}

/* Pack running paths into the other lane buffer. */
static int esc_compact(esc_dev *e) {
  int c = e->cur, o = 1 - c, st;
  unsigned long long cnt = 0;
  unsigned int grid = (unsigned int)((e->nlanes + ESC_BLOCK - 1) / ESC_BLOCK);
  void *args[10];
  args[0] = &e->pid[c]; args[1] = &e->phi[c]; args[2] = &e->v[c]; args[3] = &e->k[c];
  args[4] = &e->nlanes; args[5] = &e->pid[o]; args[6] = &e->phi[o]; args[7] = &e->v[o];
  args[8] = &e->k[o]; args[9] = &e->count;
  if ((st = sp_gpu_memset0(e->dev, e->count, 8)) != SP_OK) return st;
  if ((st = sp_gpu_launch(e->dev, e->compact, grid, ESC_BLOCK, 0, e->s, args,
                          "sp_escape_compact_kernel")) != SP_OK)
    return st;
  if ((st = sp_gpu_stream_sync(e->dev, e->s)) != SP_OK) return st;
  if ((st = sp_gpu_to_host(e->dev, &cnt, e->count, 8)) != SP_OK) return st;
  e->cur = o;
  e->nlanes = cnt;
  if (cnt == 0) e->done = 1;
  return SP_OK;
}

int sp_gpu_escape(const char *key, const sp_escape_job *job, double *value, int *escaped,
                  const int *devices, int ndev, const sp_hooks *hooks,
                  sp_escape_stats *stats) {
  uint64_t total = (uint64_t)job->ncond * job->n, per;
  unsigned int budget = 32;
  double t_start = sp_now();
  esc_dev *E;
  int d, st = SP_OK, running, tail;
  memset(stats, 0, sizeof *stats);
  if (total == 0) return SP_OK;
  E = (esc_dev *)calloc((size_t)ndev, sizeof *E);
  if (E == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  per = (total + (uint64_t)ndev - 1) / (uint64_t)ndev;
  for (d = 0; d < ndev && st == SP_OK; d++) {
    E[d].dev = devices[d];
    E[d].real_bytes = job->single ? sizeof(float) : sizeof(double);
    E[d].p_begin = per * (uint64_t)d < total ? per * (uint64_t)d : total;
    E[d].p_end = E[d].p_begin + per < total ? E[d].p_begin + per : total;
    st = esc_setup(&E[d], key, job);
  }
  running = st == SP_OK;
  while (st == SP_OK && running) {
    double t0 = sp_now(), dt, finished = 0, useful = 0, issued = 0;
    for (d = 0; d < ndev && st == SP_OK; d++)
      if (!E[d].done) st = esc_launch(&E[d], job, budget);
    for (d = 0; d < ndev && st == SP_OK; d++) {
      esc_dev *e = &E[d];
      if (!e->done) {
        st = sp_gpu_stream_sync(e->dev, e->s);
        if (st == SP_OK) st = sp_gpu_to_host(e->dev, e->hstats, e->stats, sizeof e->hstats);
        if (st == SP_OK) st = sp_gpu_to_host(e->dev, &e->hnext, e->next, 8);
        if (st == SP_OK && e->hstats[2] >= e->p_end - e->p_begin) e->done = 1;
      }
      issued += (double)e->hstats[0];
      useful += (double)e->hstats[1];
      finished += (double)e->hstats[2];
    }
    if (st != SP_OK) break;
    stats->issued_steps = issued;
    stats->useful_steps = useful;
    stats->finished = finished;
    dt = sp_now() - t0;
    running = 0;
    for (d = 0; d < ndev; d++) running |= !E[d].done;
    sp_hooks_progress(hooks, finished, (double)total);
    if (running && sp_hooks_interrupted(hooks)) {
      stats->interrupted = 1;
      break;
    }
    /* Once every path has been handed out (the tail), pack the running
     * ones into full warps as soon as a tenth of the lanes idle, and run
     * shorter rounds so that the packing keeps up with the paths' ends. */
    tail = 1;
    for (d = 0; d < ndev && st == SP_OK; d++) {
      esc_dev *e = &E[d];
      if (e->done) continue;
      if (e->hnext >= e->p_end) {
        double started = (double)(e->p_end - e->p_begin);
        double active = started - (double)e->hstats[2];
        if (active < 0.9 * (double)e->nlanes) st = esc_compact(e);
      } else {
        tail = 0;
      }
    }
    /* aim at launches of about ESC_TARGET_SECONDS (a fifth in the tail) */
    {
      double target = tail ? 0.2 * ESC_TARGET_SECONDS : ESC_TARGET_SECONDS;
      if (dt < 0.5 * target && budget < (1u << 30)) budget *= 2;
      else if (dt > 2 * target && budget > 4) budget /= 2;
    }
  }
  /* results (also those of an interrupted run: unfinished paths stay -1) */
  for (d = 0; d < ndev && st == SP_OK; d++) {
    esc_dev *e = &E[d];
    uint64_t np = e->p_end - e->p_begin;
    st = sp_gpu_to_host(e->dev, value + e->p_begin, e->value, (size_t)np * sizeof(double));
    if (st == SP_OK)
      st = sp_gpu_to_host(e->dev, escaped + e->p_begin, e->escaped, (size_t)np * sizeof(int));
  }
  esc_release(E, ndev);
  free(E);
  stats->seconds = sp_now() - t_start;
  return st;
}
