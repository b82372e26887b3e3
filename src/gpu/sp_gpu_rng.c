/* sp_gpu_rng.c: host side of inst/cuda/rng.cu and curand_check.cu, engines
 * of the GPU round driver (sp_gpu_run.h). */
#include "sp_gpu_rng.h"

#include <string.h>

#include "../core/sp_error.h"
#include "rng_args.h"
#include "sp_gpu_run.h"

/* groups (4 values) per launch and device: 2^23 groups = 256 MiB of doubles */
#define RNG_CHUNK_GROUPS ((uint64_t)1 << 23)

/* Blocks that fill device d with SP_RNG_BLOCK threads each, at most what
 * `groups` need. */
static unsigned int rng_grid(const sp_gpu_dev *d, uint64_t groups) {
  uint64_t most = (uint64_t)d->info.multiprocessors *
                  (uint64_t)(d->info.max_threads_per_sm / (int)SP_RNG_BLOCK);
  /* no groups + SP_RNG_BLOCK - 1: callers pass ~0 for 'as many as fill it' */
  uint64_t g = groups / SP_RNG_BLOCK + (groups % SP_RNG_BLOCK != 0);
  if (g > most) g = most;
  return g < 1 ? 1u : (unsigned int)g;
}

/* ---- fill: one chunk per device and round, copied back in the same round */

typedef struct {
  const char *key;
  const sp_philox_job *job;
  double *out;
  sp_gpu_work work;
} fill_model;

typedef struct {
  CUfunction fn;
  CUdeviceptr buf;
  uint64_t start, len; /* the chunk in flight (groups) */
} fill_dev;

static int fill_setup(void *model, sp_gpu_dev *d) {
  fill_model *m = (fill_model *)model;
  fill_dev *f = (fill_dev *)d->state;
  int st = sp_gpu_function(d->id, m->key, "sp_philox_fill_kernel", &f->fn);
  if (st != SP_OK) return st;
  return sp_gpu_dev_alloc(d, (size_t)m->work.chunk * 4 * sizeof(double), "the draws", &f->buf);
}

static int fill_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  fill_model *m = (fill_model *)model;
  fill_dev *f = (fill_dev *)d->state;
  sp_philox_fill_args a;
  (void)budget;
  f->len = sp_gpu_work_take(&m->work, &f->start);
  if (f->len == 0) return SP_OK;
  a.kind = m->job->kind;
  a.single = m->job->single;
  a.seed = m->job->seed;
  a.stream = m->job->stream;
  a.offset = m->job->offset;
  a.g0 = f->start;
  a.m = 4 * (f->start + f->len) > m->job->n ? m->job->n - 4 * f->start : 4 * f->len;
  a.out = f->buf;
  return sp_gpu_launch(d->id, f->fn, rng_grid(d, f->len), SP_RNG_BLOCK, 0, d->stream, &a,
                       "sp_philox_fill_kernel");
}

static int fill_poll(void *model, sp_gpu_dev *d) {
  fill_model *m = (fill_model *)model;
  fill_dev *f = (fill_dev *)d->state;
  int st = SP_OK;
  if (f->len > 0) {
    uint64_t j0 = 4 * f->start, cnt = 4 * f->len;
    if (j0 + cnt > m->job->n) cnt = m->job->n - j0;
    st = sp_gpu_to_host(d->id, m->out + j0, f->buf, (size_t)cnt * sizeof(double));
    d->done += (double)f->len;
    f->len = 0;
  }
  d->idle = m->work.next >= m->work.total;
  return st;
}

int sp_gpu_philox_fill(const char *key, const sp_philox_job *job, double *out,
                       const int *devices, int ndev, const sp_hooks *hooks,
                       sp_run_info *info, uint64_t *filled) {
  fill_model m;
  sp_gpu_engine e;
  uint64_t groups = (job->n + 3) / 4;
  int st;
  *filled = 0;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (groups == 0) return SP_OK;
  m.key = key;
  m.job = job;
  m.out = out;
  m.work.total = groups;
  m.work.chunk = groups < RNG_CHUNK_GROUPS ? groups : RNG_CHUNK_GROUPS;
  m.work.next = 0;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(fill_dev);
  e.total = (double)groups;
  e.budget0 = 1;
  e.setup = fill_setup;
  e.launch = fill_launch;
  e.poll = fill_poll;
  st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  /* every chunk handed out was copied back in its round: a prefix */
  *filled = 4 * m.work.next < job->n ? 4 * m.work.next : job->n;
  return st;
}

/* ---- normal moments: one launch per device over its share, timed ------- */

typedef struct {
  const char *key;
  int single;
  uint64_t seed, stream, offset;
  sp_gpu_work work;
  double acc[2], kernel_ms;
} moments_model;

typedef struct {
  CUfunction fn;
  CUdeviceptr acc;
  CUevent ev0, ev1;
  uint64_t start, len;
} moments_dev;

static int moments_setup(void *model, sp_gpu_dev *d) {
  moments_model *m = (moments_model *)model;
  moments_dev *g = (moments_dev *)d->state;
  int st = sp_gpu_function(d->id, m->key,
                           m->single ? "sp_philox_normal_moments_single"
                                     : "sp_philox_normal_moments_double",
                           &g->fn);
  if (st == SP_OK) st = sp_gpu_dev_alloc(d, 2 * sizeof(double), "the accumulators", &g->acc);
  if (st == SP_OK) st = sp_gpu_memset0(d->id, g->acc, 2 * sizeof(double));
  if (st == SP_OK) st = sp_gpu_dev_event(d, &g->ev0);
  if (st == SP_OK) st = sp_gpu_dev_event(d, &g->ev1);
  return st;
}

static int moments_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  moments_model *m = (moments_model *)model;
  moments_dev *g = (moments_dev *)d->state;
  sp_philox_moments_args a;
  int st;
  (void)budget;
  g->len = sp_gpu_work_take(&m->work, &g->start);
  a.seed = m->seed;
  a.stream = m->stream;
  a.offset = m->offset;
  a.g0 = g->start;
  a.ngroups = g->len;
  a.acc = g->acc;
  st = sp_gpu_event_record(d->id, g->ev0, d->stream);
  if (st == SP_OK && g->len > 0)
    st = sp_gpu_launch(d->id, g->fn, rng_grid(d, ~(uint64_t)0), SP_RNG_BLOCK, 0, d->stream, &a,
                       "sp_philox_normal_moments");
  if (st == SP_OK) st = sp_gpu_event_record(d->id, g->ev1, d->stream);
  return st;
}

static int moments_poll(void *model, sp_gpu_dev *d) {
  moments_model *m = (moments_model *)model;
  moments_dev *g = (moments_dev *)d->state;
  double acc[2], ms = 0;
  int st = sp_gpu_event_elapsed_ms(d->id, g->ev0, g->ev1, &ms);
  if (st == SP_OK) st = sp_gpu_to_host(d->id, acc, g->acc, sizeof acc);
  if (st == SP_OK) {
    m->acc[0] += acc[0];
    m->acc[1] += acc[1];
    if (ms > m->kernel_ms) m->kernel_ms = ms;
  }
  d->done = (double)g->len;
  d->idle = 1;
  return st;
}

int sp_gpu_philox_normal_moments(const char *key, int single, uint64_t seed,
                                 uint64_t stream, uint64_t offset, uint64_t n,
                                 const int *devices, int ndev, double out[2],
                                 double *kernel_ms) {
  moments_model m;
  sp_gpu_engine e;
  sp_run_info info;
  int st;
  out[0] = out[1] = 0.0;
  *kernel_ms = 0.0;
  if (n % 4 != 0) return sp_fail(SP_ERR_INVALID, "n must be a multiple of 4");
  memset(&m, 0, sizeof m);
  m.key = key;
  m.single = single;
  m.seed = seed;
  m.stream = stream;
  m.offset = offset;
  sp_gpu_work_init(&m.work, n / 4, ndev, 1, 1);
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(moments_dev);
  e.total = (double)(n / 4);
  e.budget0 = 1;
  e.setup = moments_setup;
  e.launch = moments_launch;
  e.poll = moments_poll;
  st = sp_gpu_run(&e, &m, devices, ndev, NULL, &info);
  out[0] = m.acc[0];
  out[1] = m.acc[1];
  *kernel_ms = m.kernel_ms;
  return st;
}

/* ---- cuRAND's own stream (test of the stream layout) ------------------- */

typedef struct {
  const char *key;
  uint64_t seed, stream0, offset;
  int nstreams, nquads;
  uint32_t *out;
} curand_model;

typedef struct {
  CUfunction fn;
  CUdeviceptr buf;
} curand_dev;

static size_t curand_bytes(const curand_model *m) {
  return (size_t)m->nstreams * (size_t)m->nquads * 4 * sizeof(uint32_t);
}

static int curand_setup(void *model, sp_gpu_dev *d) {
  curand_model *m = (curand_model *)model;
  curand_dev *c = (curand_dev *)d->state;
  int st = sp_gpu_function(d->id, m->key, "sp_curand_check_kernel", &c->fn);
  if (st != SP_OK) return st;
  return sp_gpu_dev_alloc(d, curand_bytes(m), "the check output", &c->buf);
}

static int curand_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  curand_model *m = (curand_model *)model;
  curand_dev *c = (curand_dev *)d->state;
  sp_curand_check_args a;
  (void)budget;
  a.seed = m->seed;
  a.stream0 = m->stream0;
  a.offset = m->offset;
  a.nstreams = m->nstreams;
  a.nquads = m->nquads;
  a.out = c->buf;
  return sp_gpu_launch(d->id, c->fn, (unsigned int)((m->nstreams + 127) / 128), 128, 0,
                       d->stream, &a, "sp_curand_check_kernel");
}

static int curand_poll(void *model, sp_gpu_dev *d) {
  curand_model *m = (curand_model *)model;
  curand_dev *c = (curand_dev *)d->state;
  d->idle = 1;
  return sp_gpu_to_host(d->id, m->out, c->buf, curand_bytes(m));
}

int sp_gpu_curand_check(const char *key, int dev, uint64_t seed, uint64_t stream0,
                        uint64_t offset, int nstreams, int nquads, uint32_t *out) {
  curand_model m;
  sp_gpu_engine e;
  sp_run_info info;
  m.key = key;
  m.seed = seed;
  m.stream0 = stream0;
  m.offset = offset;
  m.nstreams = nstreams;
  m.nquads = nquads;
  m.out = out;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(curand_dev);
  e.total = 1;
  e.budget0 = 1;
  e.setup = curand_setup;
  e.launch = curand_launch;
  e.poll = curand_poll;
  return sp_gpu_run(&e, &m, &dev, 1, NULL, &info);
}
