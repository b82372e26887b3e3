/* sp_gpu_kuramoto.c: host side of inst/cuda/kuramoto.cu, an engine of the
 * GPU round driver (sp_gpu_run.h).  Systems do equal work, so the devices
 * share them in equal contiguous parts; a round advances every system of a
 * device by at most `budget` steps (two kernels per SRK2 step, one per Euler
 * step, plus a measuring kernel at record steps for the couplings other than
 * the mean field).  The start phases (unless given) and the frequencies of a
 * law are made on the device; frequencies all equal are no array at all. */
#include "sp_gpu_kuramoto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "kuramoto.h" /* sp_kur_reduce_f: the start reduced as on the CPU */
#undef SP_REAL
#undef SP_REAL_SINGLE

#define KUR_GPT_MAX 8  /* groups of four oscillators per thread, at most */
#define KUR_BPS_MIN 1024 /* blocks per system below which gpt is not raised */

typedef struct {
  const char *key;
  const sp_kuramoto_job *job;
  sp_kuramoto_out *out;
  uint64_t per_dev, ng, npad, nrec;
  unsigned long long bad[2]; /* over the devices: the first step at which a
                                system's phases became non-finite, the lowest
                                such system then (all ones: none) */
} kur_model;

#define KUR_NONE 0xffffffffffffffffull

typedef struct {
  CUfunction mf, measure, pair, start, omega_law;
  const char *mf_name; /* the mean-field kernel's name (errors) */
  CUdeviceptr x, xt, f1, omega, cond, A, rowptr, col, sums, partial, count, rec, hist, bad;
  uint64_t s0, ns; /* this device's systems: s0 .. s0 + ns - 1 of the job */
  uint64_t k;      /* steps of this run enqueued */
  int bps, gpt;
  unsigned tps;    /* blocks per system of the pair kernels */
} kur_dev;

static size_t kur_rb(const sp_kuramoto_job *job) {
  return job->single ? sizeof(float) : sizeof(double);
}

/* Doubles to the working precision (single: reduced to [-pi, pi] when
 * `reduce`), into a fresh host buffer: `rows` rows of `count` values, row r
 * read from v + ((r0 + r) mod period) stride_in. */
static void *kur_convert(const double *v, size_t count, size_t stride_in, size_t stride_out,
                         size_t rows, size_t r0, size_t period, int single, int reduce) {
  size_t r, i, rb = single ? sizeof(float) : sizeof(double);
  /* rows of stride_out elements, the last row at least `count` (one row
   * with stride 0: `count` elements) */
  size_t len = rows > 0 ? (rows - 1) * stride_out + (count > stride_out ? count : stride_out) : 0;
  char *h = (char *)calloc(len > 0 ? len : 1, rb);
  if (h == NULL) return NULL;
  for (r = 0; r < rows; r++)
    for (i = 0; i < count; i++) {
      double x = v[((r0 + r) % period) * stride_in + i];
      if (single) ((float *)h)[r * stride_out + i] = reduce ? sp_kur_reduce_f((float)x) : (float)x;
      else ((double *)h)[r * stride_out + i] = x;
    }
  return h;
}

static sp_kuramoto_kargs kur_args(const kur_model *m, const kur_dev *v) {
  const sp_kuramoto_job *job = m->job;
  sp_kuramoto_kargs a;
  memset(&a, 0, sizeof a);
  a.x = v->x;
  a.xt = v->xt;
  a.f1 = v->f1;
  a.omega = v->omega;
  a.cond = v->cond;
  a.A = v->A;
  a.rowptr = v->rowptr;
  a.col = v->col;
  a.sums = v->sums;
  a.partial = v->partial;
  a.count = v->count;
  a.rec = v->rec;
  a.hist = v->hist;
  a.seed = job->seed;
  a.n = job->n;
  a.npad = m->npad;
  a.ng = m->ng;
  a.nrep = job->nrep;
  a.replica0 = job->replica0;
  a.sys0 = v->s0;
  a.nsys = v->ns;
  a.step = job->step0 + v->k; /* the chain's step */
  a.record_every = job->record_every;
  a.nrec = m->nrec;
  a.rec0 = job->rec0;
  a.dt = job->dt;
  a.bins = job->bins;
  a.bps = v->bps;
  a.gpt = v->gpt;
  a.bad = v->bad;
  a.omega0 = job->omega_law == SP_KUR_OMEGA_CONST ? job->omega_centre : 0;
  a.omega_centre = job->omega_centre;
  a.omega_scale = job->omega_scale;
  a.omega_law = job->omega_law;
  return a;
}

static int kur_launch1(sp_gpu_dev *d, CUfunction f, unsigned grid, sp_kuramoto_kargs *a,
                       const char *name) {
  return sp_gpu_launch(d->id, f, grid, SP_KUR_BLOCK, 0, d->stream, a, name);
}

static int kur_setup(void *model, sp_gpu_dev *d) {
  kur_model *m = (kur_model *)model;
  const sp_kuramoto_job *job = m->job;
  kur_dev *v = (kur_dev *)d->state;
  const uint64_t nsys = (uint64_t)job->ncond * job->nrep, n = job->n;
  const size_t rb = kur_rb(job);
  const int euler = job->method == SP_KUR_EULER;
  const char *pair_name = job->coupling == SP_KUR_PAIRS ? "sp_kur_pairs_kernel"
                          : job->coupling == SP_KUR_DENSE ? "sp_kur_dense_kernel"
                                                          : "sp_kur_sparse_kernel";
  const size_t nrec_alloc = m->nrec > 0 ? (size_t)m->nrec : 1; /* none: a continuation
                                                                   shorter than the grid */
  size_t nstate;
  void *h;
  int st;
  sp_kuramoto_kargs a;
  v->s0 = (uint64_t)d->index * m->per_dev;
  v->ns = nsys > v->s0 ? nsys - v->s0 : 0;
  if (v->ns > m->per_dev) v->ns = m->per_dev;
  if (v->ns == 0) {
    d->idle = 1;
    return SP_OK;
  }
  /* reductions: a block covers SP_KUR_BLOCK x gpt groups of four oscillators
   * of one system.  gpt depends on n only (never on the systems per device
   * or the device), so that every sum is added in the same order in any
   * launch: the largest power of two up to KUR_GPT_MAX that leaves at least
   * KUR_BPS_MIN blocks per system (n = 2^24: gpt 8, 2048 blocks).  Several
   * groups per thread amortise the block's set-up and reduction and let a
   * thread keep a load in flight while it computes (kuramoto.cu). */
  v->gpt = 1;
  while (2 * v->gpt <= KUR_GPT_MAX &&
         m->ng >= (uint64_t)SP_KUR_BLOCK * (uint64_t)(2 * v->gpt) * KUR_BPS_MIN)
    v->gpt *= 2;
  v->bps = (int)((m->ng + (uint64_t)SP_KUR_BLOCK * v->gpt - 1) / ((uint64_t)SP_KUR_BLOCK * v->gpt));
  v->tps = (unsigned)((m->npad + SP_KUR_BLOCK - 1) / SP_KUR_BLOCK);
  if ((uint64_t)v->bps * v->ns > 0x7fffffffu || (uint64_t)v->tps * v->ns > 0x7fffffffu)
    return sp_fail(SP_ERR_INVALID, "too many systems for one launch on %s; split the job",
                   sp_gpu_label(d->id));
  /* the mean-field kernel of the method, with the frequencies an array or,
   * all equal, one number (kuramoto.cu: no test of the array per group) */
  v->mf_name = job->omega_law == SP_KUR_OMEGA_CONST
                   ? (euler ? "sp_kur_mf_euler_const_kernel" : "sp_kur_mf_const_kernel")
                   : (euler ? "sp_kur_mf_euler_kernel" : "sp_kur_mf_kernel");
  if ((st = sp_gpu_function(d->id, m->key, v->mf_name, &v->mf)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_kur_measure_kernel", &v->measure)) ||
      (st = sp_gpu_function(d->id, m->key, pair_name, &v->pair)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_kur_start_kernel", &v->start)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_kur_omega_kernel", &v->omega_law)))
    return st;
  nstate = (size_t)v->ns * (size_t)m->npad;
  if ((st = sp_gpu_dev_alloc(d, nstate * rb, "the phases", &v->x)) ||
      (job->omega_law != SP_KUR_OMEGA_CONST &&
       (st = sp_gpu_dev_alloc(d, (size_t)m->npad * rb, "the frequencies", &v->omega))) ||
      (st = sp_gpu_dev_alloc(d, (size_t)job->ncond * sizeof(sp_kuramoto_cond), "the conditions",
                             &v->cond)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->ns * SP_KUR_NSUMS * sizeof(double), "the sums", &v->sums)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->ns * (size_t)v->bps * 2 * sizeof(double),
                             "the partial sums", &v->partial)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->ns * sizeof(unsigned int), "the block counters",
                             &v->count)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->ns * nrec_alloc * 2 * sizeof(double),
                             "the order parameter records", &v->rec)) ||
      (st = sp_gpu_dev_alloc(d, 2 * sizeof(unsigned long long), "the non-finite flag",
                             &v->bad)) ||
      (st = sp_gpu_memset32(d->id, v->bad, 0xffffffffu, 4)))
    return st;
  if (job->coupling != SP_KUR_MEAN_FIELD &&
      ((st = sp_gpu_dev_alloc(d, nstate * rb, euler ? "the new phases" : "the predictor phases",
                              &v->xt)) ||
       (!euler && (st = sp_gpu_dev_alloc(d, nstate * rb, "the first-stage drifts", &v->f1)))))
    return st;
  if (job->bins > 0 &&
      (st = sp_gpu_dev_alloc(d, (size_t)v->ns * nrec_alloc * (size_t)job->bins *
                                    sizeof(unsigned int), "the phase histograms", &v->hist)))
    return st;
  if (job->coupling == SP_KUR_DENSE) {
    if ((st = sp_gpu_dev_alloc(d, (size_t)(n * n) * rb, "the coupling matrix", &v->A))) return st;
    h = kur_convert(job->A, (size_t)(n * n), 0, 0, 1, 0, 1, job->single, 0);
    if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    st = sp_gpu_to_device(d->id, v->A, h, (size_t)(n * n) * rb);
    free(h);
    if (st) return st;
  } else if (job->coupling == SP_KUR_SPARSE) {
    size_t nnz = (size_t)job->rowptr[n];
    if ((st = sp_gpu_dev_alloc(d, (nnz > 0 ? nnz : 1) * rb, "the coupling matrix", &v->A)) ||
        (st = sp_gpu_dev_alloc(d, (nnz > 0 ? nnz : 1) * sizeof(int), "its columns", &v->col)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(n + 1) * sizeof(int), "its row pointers", &v->rowptr)))
      return st;
    h = kur_convert(job->val, nnz, 0, 0, 1, 0, 1, job->single, 0);
    if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    st = sp_gpu_to_device(d->id, v->A, h, nnz * rb);
    free(h);
    if (st == SP_OK && nnz > 0) st = sp_gpu_to_device(d->id, v->col, job->col, nnz * sizeof(int));
    if (st == SP_OK) st = sp_gpu_to_device(d->id, v->rowptr, job->rowptr, (size_t)(n + 1) * sizeof(int));
    if (st) return st;
  }
  /* the start phases (padding 0): given ones uploaded (reduced in single
   * precision, a continued run's as they are), else drawn here; the
   * frequencies: a vector uploaded, a law's made here, a constant in the
   * arguments; then the conditions and the records (NaN) */
  v->k = 0;
  a = kur_args(m, v);
  if (job->theta0 != NULL) {
    const size_t period = job->start == SP_KUR_START_SYSTEM    ? (size_t)nsys
                          : job->start == SP_KUR_START_REPLICA ? (size_t)job->nrep
                                                               : 1;
    h = kur_convert(job->theta0, (size_t)n, (size_t)n, (size_t)m->npad, (size_t)v->ns,
                    (size_t)v->s0, period, job->single, job->start != SP_KUR_START_SYSTEM);
    if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    st = sp_gpu_to_device(d->id, v->x, h, nstate * rb);
    free(h);
  } else {
    const uint64_t groups = v->ns * m->ng, cap = (uint64_t)1 << 20;
    uint64_t grid = (groups + SP_KUR_BLOCK - 1) / SP_KUR_BLOCK;
    st = kur_launch1(d, v->start, (unsigned)(grid < cap ? grid : cap), &a, "sp_kur_start_kernel");
  }
  if (st) return st;
  if (job->omega_law == SP_KUR_OMEGA_VECTOR) {
    h = kur_convert(job->omega, (size_t)n, 0, (size_t)m->npad, 1, 0, 1, job->single, 0);
    if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    st = sp_gpu_to_device(d->id, v->omega, h, (size_t)m->npad * rb);
    free(h);
  } else if (job->omega_law != SP_KUR_OMEGA_CONST) {
    st = kur_launch1(d, v->omega_law, (unsigned)((m->npad + SP_KUR_BLOCK - 1) / SP_KUR_BLOCK), &a,
                     "sp_kur_omega_kernel");
  }
  if (st) return st;
  st = sp_gpu_to_device(d->id, v->cond, job->conds, (size_t)job->ncond * sizeof(sp_kuramoto_cond));
  if (st == SP_OK && m->nrec > 0)
    st = sp_gpu_to_device(d->id, v->rec, m->out->rec + 2 * v->s0 * m->nrec,
                          (size_t)v->ns * (size_t)m->nrec * 2 * sizeof(double));
  if (st == SP_OK) st = sp_gpu_memset0(d->id, v->count, (size_t)v->ns * sizeof(unsigned int));
  if (st == SP_OK) st = sp_gpu_memset0(d->id, v->sums, (size_t)v->ns * SP_KUR_NSUMS * sizeof(double));
  if (st == SP_OK && job->bins > 0)
    st = sp_gpu_memset0(d->id, v->hist, (size_t)v->ns * nrec_alloc * (size_t)job->bins *
                                            sizeof(unsigned int));
  if (st) return st;
  /* the start: its sums, and a fresh start's record (step 0) */
  a.stage = 0;
  return kur_launch1(d, v->measure, (unsigned)((uint64_t)v->bps * v->ns), &a, "sp_kur_measure_kernel");
}

static int kur_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  kur_model *m = (kur_model *)model;
  const sp_kuramoto_job *job = m->job;
  kur_dev *v = (kur_dev *)d->state;
  const unsigned red = (unsigned)((uint64_t)v->bps * v->ns), tiles = v->tps * (unsigned)v->ns;
  uint64_t end = v->k + budget;
  int st = SP_OK;
  if (end > job->steps) end = job->steps;
  for (; v->k < end && st == SP_OK; v->k++) {
    sp_kuramoto_kargs a = kur_args(m, v);
    if (job->method == SP_KUR_EULER) {
      a.stage = 3;
      if (job->coupling == SP_KUR_MEAN_FIELD) {
        st = kur_launch1(d, v->mf, red, &a, v->mf_name);
      } else {
        CUdeviceptr t;
        st = kur_launch1(d, v->pair, tiles, &a, "sp_kur_pairs_kernel");
        t = v->x; /* the new phases (in xt) become x */
        v->x = v->xt;
        v->xt = t;
        if (st == SP_OK && (job->step0 + v->k + 1) % job->record_every == 0) {
          a = kur_args(m, v);
          a.stage = 0;
          a.step = job->step0 + v->k + 1;
          st = kur_launch1(d, v->measure, red, &a, "sp_kur_measure_kernel");
        }
      }
    } else if (job->coupling == SP_KUR_MEAN_FIELD) {
      a.stage = 1;
      st = kur_launch1(d, v->mf, red, &a, v->mf_name);
      a.stage = 2;
      if (st == SP_OK) st = kur_launch1(d, v->mf, red, &a, v->mf_name);
    } else {
      a.stage = 1;
      st = kur_launch1(d, v->pair, tiles, &a, "sp_kur_pairs_kernel");
      a.stage = 2;
      if (st == SP_OK) st = kur_launch1(d, v->pair, tiles, &a, "sp_kur_pairs_kernel");
      if (st == SP_OK && (job->step0 + v->k + 1) % job->record_every == 0) {
        a.stage = 0;
        a.step = job->step0 + v->k + 1;
        st = kur_launch1(d, v->measure, red, &a, "sp_kur_measure_kernel");
      }
    }
  }
  return st;
}

static int kur_poll(void *model, sp_gpu_dev *d) {
  kur_model *m = (kur_model *)model;
  kur_dev *v = (kur_dev *)d->state;
  unsigned long long bad[2];
  int st;
  d->done = (double)v->k;
  d->idle = v->k >= m->job->steps;
  /* the flag of non-finite phases (16 bytes, the stream already idle) */
  if ((st = sp_gpu_to_host(d->id, bad, v->bad, sizeof bad)) != SP_OK) return st;
  if (bad[0] < m->bad[0] || (bad[0] == m->bad[0] && bad[1] < m->bad[1])) {
    m->bad[0] = bad[0];
    m->bad[1] = bad[1];
  }
  return SP_OK;
}

/* After every device's poll: the first step at which phases became
 * non-finite, over the devices, fails the run. */
static int kur_check(void *model) {
  kur_model *m = (kur_model *)model;
  if (m->bad[0] == KUR_NONE) return SP_OK;
  /* at the run's start: its start phases (as the CPU says) */
  return sp_kuramoto_not_finite(m->job, (uint64_t)m->bad[1],
                                m->bad[0] == m->job->step0 ? 0 : (uint64_t)m->bad[0]);
}

static int kur_collect(void *model, sp_gpu_dev *d, int interrupted) {
  kur_model *m = (kur_model *)model;
  const sp_kuramoto_job *job = m->job;
  sp_kuramoto_out *out = m->out;
  kur_dev *v = (kur_dev *)d->state;
  const size_t rb = kur_rb(job), nstate = (size_t)v->ns * (size_t)m->npad;
  const uint64_t n = job->n;
  uint64_t s, i;
  void *h;
  int st;
  (void)interrupted; /* the phases are those after the last step made */
  if (v->ns == 0) return SP_OK;
  h = malloc(nstate * rb);
  if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  st = sp_gpu_to_host(d->id, h, v->x, nstate * rb);
  if (st == SP_OK)
    for (s = 0; s < v->ns; s++)
      for (i = 0; i < n; i++)
        out->theta[(v->s0 + s) * n + i] = job->single ? (double)((float *)h)[s * m->npad + i]
                                                      : ((double *)h)[s * m->npad + i];
  free(h);
  if (st == SP_OK && m->nrec > 0)
    st = sp_gpu_to_host(d->id, out->rec + 2 * v->s0 * m->nrec, v->rec,
                        (size_t)v->ns * (size_t)m->nrec * 2 * sizeof(double));
  if (st == SP_OK && job->bins > 0 && m->nrec > 0) {
    size_t cnt = (size_t)v->ns * (size_t)m->nrec * (size_t)job->bins, k;
    unsigned int *hc = (unsigned int *)malloc(cnt * sizeof *hc);
    if (hc == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    st = sp_gpu_to_host(d->id, hc, v->hist, cnt * sizeof *hc);
    for (k = 0; st == SP_OK && k < cnt; k++)
      out->hist[v->s0 * m->nrec * (size_t)job->bins + k] = (double)hc[k];
    free(hc);
  }
  if (st == SP_OK) out->steps_done = v->k;
  return st;
}

int sp_gpu_kuramoto(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
                    const sp_hooks *hooks, sp_run_info *info) {
  const sp_kuramoto_job *job = (const sp_kuramoto_job *)vjob;
  sp_kuramoto_out *out = (sp_kuramoto_out *)vout;
  kur_model m;
  sp_gpu_engine e;
  const uint64_t nsys = (uint64_t)job->ncond * job->nrep;
  if (nsys == 0) return SP_OK;
  if ((uint64_t)ndev > nsys) ndev = (int)nsys;
  m.key = key;
  m.job = job;
  m.out = out;
  m.per_dev = (nsys + (uint64_t)ndev - 1) / (uint64_t)ndev;
  m.ng = (job->n + 3) / 4;
  m.npad = 4 * m.ng;
  m.nrec = job->nrec;
  m.bad[0] = m.bad[1] = KUR_NONE;
  ndev = (int)((nsys + m.per_dev - 1) / m.per_dev); /* devices that get systems */
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(kur_dev);
  e.total = (double)job->steps * (double)ndev;
  e.budget0 = 1;
  e.budget_max = 1u << 20;
  e.setup = kur_setup;
  e.launch = kur_launch;
  e.poll = kur_poll;
  e.check = kur_check;
  e.collect = kur_collect;
  return sp_gpu_run(&e, &m, devices, ndev, hooks, info);
}
