/* sp_gpu_lrmd.c: host side of inst/cuda/lrmd.cu, an engine of the GPU round
 * driver (sp_gpu_run.h), on one device.  A round enqueues at most `budget`
 * Yoshida steps, and stops early at the next step that has a record or a
 * snapshot: there the energy kernel's block sums (and, for gravity2d, the
 * positions for the half-mass radius) or the phase space are read back
 * when the round is polled, and combined on the host in block order. */
#include "sp_gpu_lrmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

#define SP_REAL double
#include "lrmd.h" /* sp_lrmd_drift_coef, sp_lrmd_kick_coef, sp_lrmd_ring_kappa */
#undef SP_REAL

#define LRMD_BLOCK 256 /* SP_LRMD_BLOCK of the kernels */

typedef struct {
  const char *key;
  const sp_lrmd_job *job;
  sp_lrmd_out *out;
  uint64_t nrec;
  int snap_next;
  double *host; /* 4 n doubles: the state read back */
  double *part; /* the energy kernel's block sums, then n doubles of work */
} lrmd_model;

typedef struct {
  CUfunction hmf, drift, pairs, energy;
  CUdeviceptr q0, q1, p0, p1, w0, w1, partial, sums, count;
  unsigned nb;      /* blocks of a pass over all particles */
  unsigned nb_hmf;  /* blocks of the HMF reduction pass */
  uint64_t k;       /* steps enqueued */
  uint64_t k_obs;   /* the last step observed (records, snapshots), or UINT64_MAX */
  double *host, *part; /* the model's host buffers */
} lrmd_dev;

static size_t lrmd_rb(const sp_lrmd_job *job) {
  return job->single ? sizeof(float) : sizeof(double);
}

static sp_lrmd_kargs lrmd_args(const lrmd_model *m, const lrmd_dev *v) {
  sp_lrmd_kargs a;
  memset(&a, 0, sizeof a);
  a.q0 = v->q0;
  a.q1 = v->q1;
  a.p0 = v->p0;
  a.p1 = v->p1;
  a.w0 = v->w0;
  a.w1 = v->w1;
  a.partial = v->partial;
  a.sums = v->sums;
  a.count = v->count;
  a.n = m->job->n;
  a.i0 = 0;
  a.i1 = m->job->n;
  a.eps = m->job->eps;
  a.model = m->job->model;
  return a;
}

static int lrmd_launch1(sp_gpu_dev *d, CUfunction f, unsigned grid, sp_lrmd_kargs *a,
                        const char *name) {
  void *args[1];
  args[0] = a;
  return sp_gpu_launch(d->id, f, grid, LRMD_BLOCK, 0, d->stream, args, name);
}

/* Is step k a record or snapshot step? */
static int lrmd_stop(const lrmd_model *m, uint64_t k) {
  int s;
  if (k % m->job->record_every == 0) return 1;
  for (s = m->snap_next; s < m->job->nsnap; s++)
    if (m->job->snap_steps[s] == k) return 1;
  return 0;
}

/* Enqueue the drift of stage s (with, for HMF and `kick`, the kick of stage
 * s - 1 before it). */
static int lrmd_drift(const lrmd_model *m, sp_gpu_dev *d, lrmd_dev *v, int s, double c, int kick) {
  sp_lrmd_kargs a = lrmd_args(m, v);
  a.c = c;
  a.stage = s;
  if (m->job->model == SP_LRMD_HMF) {
    a.kick = kick && s > 0;
    a.d = a.kick ? sp_lrmd_kick_coef(s - 1) * m->job->dt : 0.0;
    a.nblocks = (int32_t)v->nb_hmf;
    return lrmd_launch1(d, v->hmf, v->nb_hmf, &a, "sp_lrmd_hmf_kernel");
  }
  return lrmd_launch1(d, v->drift, v->nb, &a, "sp_lrmd_drift_kernel");
}

/* Enqueue the record kernel when step v->k records. */
static int lrmd_enqueue_record(const lrmd_model *m, sp_gpu_dev *d, lrmd_dev *v) {
  sp_lrmd_kargs a = lrmd_args(m, v);
  if (v->k % m->job->record_every != 0) return SP_OK;
  a.nblocks = (int32_t)v->nb;
  return lrmd_launch1(d, v->energy, v->nb, &a, "sp_lrmd_energy_kernel");
}

/* With the stream idle at step v->k: its record and snapshot. */
static int lrmd_observe(lrmd_model *m, sp_gpu_dev *d, lrmd_dev *v) {
  const sp_lrmd_job *job = m->job;
  const uint64_t n = job->n;
  const double dn = (double)n;
  int st = SP_OK, need_state;
  if (v->k_obs == v->k) return SP_OK;
  v->k_obs = v->k;
  need_state = job->model == SP_LRMD_GRAVITY2D && v->k % job->record_every == 0;
  need_state |= m->snap_next < job->nsnap && job->snap_steps[m->snap_next] == v->k;
  if ((st = sp_gpu_stream_sync(d->id, d->stream))) return st;
  if (need_state) {
    if ((st = sp_gpu_to_host(d->id, v->host, v->q0, n * sizeof(double))) ||
        (st = sp_gpu_to_host(d->id, v->host + n, v->q1, n * sizeof(double))) ||
        (st = sp_gpu_to_host(d->id, v->host + 2 * n, v->p0, n * sizeof(double))) ||
        (st = sp_gpu_to_host(d->id, v->host + 3 * n, v->p1, n * sizeof(double))))
      return st;
  }
  if (v->k % job->record_every == 0) {
    double K = 0, V = 0, X = 0, Y = 0, *rec = m->out->rec + SP_LRMD_NREC * (v->k / job->record_every);
    unsigned b;
    if ((st = sp_gpu_to_host(d->id, v->part, v->partial, (size_t)v->nb * SP_LRMD_NSUMS * sizeof(double))))
      return st;
    for (b = 0; b < v->nb; b++) {
      K += v->part[SP_LRMD_NSUMS * b];
      V += v->part[SP_LRMD_NSUMS * b + 1];
      X += v->part[SP_LRMD_NSUMS * b + 2];
      Y += v->part[SP_LRMD_NSUMS * b + 3];
    }
    rec[0] = K / dn;
    if (job->model == SP_LRMD_HMF) {
      rec[2] = X / dn;
      rec[3] = Y / dn;
      rec[1] = 0.5 * (1.0 - (rec[2] * rec[2] + rec[3] * rec[3]));
    } else if (job->model == SP_LRMD_RING) {
      rec[1] = -sp_lrmd_ring_kappa(dn) * V / dn;
      rec[2] = X / dn;
      rec[3] = Y / dn;
    } else {
      rec[1] = V / (4.0 * dn * dn);
      rec[2] = X / (2.0 * dn * dn);
      rec[3] = sp_lrmd_half_mass_radius(v->host, v->host + n, n, v->part + SP_LRMD_NSUMS * v->nb);
    }
  }
  while (m->snap_next < job->nsnap && job->snap_steps[m->snap_next] == v->k) {
    memcpy(m->out->snap + (size_t)m->snap_next * 4 * n, v->host, 4 * n * sizeof(double));
    m->snap_next++;
  }
  return SP_OK;
}

static int lrmd_setup(void *model, sp_gpu_dev *d) {
  lrmd_model *m = (lrmd_model *)model;
  const sp_lrmd_job *job = m->job;
  lrmd_dev *v = (lrmd_dev *)d->state;
  const uint64_t n = job->n;
  const size_t rb = lrmd_rb(job);
  uint64_t target, nb;
  int st;
  nb = (n + LRMD_BLOCK - 1) / LRMD_BLOCK;
  if (nb > 0x7fffffffu)
    return sp_fail(SP_ERR_INVALID, "too many particles for one launch on %s", sp_gpu_label(d->id));
  v->nb = (unsigned)nb;
  /* the HMF pass: about 8 blocks per multiprocessor, grid-stride beyond */
  target = (uint64_t)8 * (uint64_t)(d->info.multiprocessors > 0 ? d->info.multiprocessors : 1);
  v->nb_hmf = (unsigned)(nb < target ? nb : target);
  v->k = 0;
  v->k_obs = UINT64_MAX;
  if ((st = sp_gpu_function(d->id, m->key, "sp_lrmd_hmf_kernel", &v->hmf)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_drift_kernel", &v->drift)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_pairs_kernel", &v->pairs)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_energy_kernel", &v->energy)))
    return st;
  /* the job's memory in two buffers (the first is most of it, so that a job
   * that cannot fit fails with its size) */
  if ((st = sp_gpu_dev_alloc(d, 4 * n * sizeof(double) + 2 * n * rb,
                             "the phase space (positions, momenta, force inputs)", &v->q0)))
    return st;
  v->q1 = v->q0 + n * sizeof(double);
  v->p0 = v->q1 + n * sizeof(double);
  v->p1 = v->p0 + n * sizeof(double);
  v->w0 = v->p1 + n * sizeof(double);
  v->w1 = v->w0 + n * rb;
  if ((st = sp_gpu_dev_alloc(d, (size_t)nb * SP_LRMD_NSUMS * sizeof(double), "the block sums",
                             &v->partial)) ||
      (st = sp_gpu_dev_alloc(d, 8 * sizeof(double), "the magnetisations", &v->sums)) ||
      (st = sp_gpu_dev_alloc(d, sizeof(unsigned int), "the block counter", &v->count)))
    return st;
  v->host = m->host;
  v->part = m->part;
  if ((st = sp_gpu_to_device(d->id, v->q0, m->out->q0, n * sizeof(double))) ||
      (st = sp_gpu_to_device(d->id, v->q1, m->out->q1, n * sizeof(double))) ||
      (st = sp_gpu_to_device(d->id, v->p0, m->out->p0, n * sizeof(double))) ||
      (st = sp_gpu_to_device(d->id, v->p1, m->out->p1, n * sizeof(double))) ||
      (st = sp_gpu_memset0(d->id, v->count, sizeof(unsigned int))) ||
      (st = sp_gpu_memset0(d->id, v->sums, 8 * sizeof(double))))
    return st;
  /* step 0: prepare the start (a drift of 0 into slot 3), record, snapshot */
  if ((st = lrmd_drift(m, d, v, 3, 0.0, 0))) return st;
  if ((st = lrmd_enqueue_record(m, d, v))) return st;
  st = lrmd_observe(m, d, v);
  d->idle = job->steps == 0;
  return st;
}

static int lrmd_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  lrmd_model *m = (lrmd_model *)model;
  const sp_lrmd_job *job = m->job;
  lrmd_dev *v = (lrmd_dev *)d->state;
  uint64_t end = v->k + budget;
  int st = SP_OK;
  if (end > job->steps) end = job->steps;
  while (v->k < end && st == SP_OK) {
    int s;
    for (s = 0; s < 4 && st == SP_OK; s++) {
      st = lrmd_drift(m, d, v, s, sp_lrmd_drift_coef(s) * job->dt, 1);
      if (st == SP_OK && s < 3 && job->model != SP_LRMD_HMF) {
        sp_lrmd_kargs a = lrmd_args(m, v);
        a.d = sp_lrmd_kick_coef(s) * job->dt;
        st = lrmd_launch1(d, v->pairs, v->nb, &a, "sp_lrmd_pairs_kernel");
      }
    }
    v->k++;
    if (st == SP_OK && lrmd_stop(m, v->k)) {
      st = lrmd_enqueue_record(m, d, v);
      break; /* observed when polled */
    }
  }
  return st;
}

static int lrmd_poll(void *model, sp_gpu_dev *d) {
  lrmd_model *m = (lrmd_model *)model;
  lrmd_dev *v = (lrmd_dev *)d->state;
  int st = SP_OK;
  if (lrmd_stop(m, v->k)) st = lrmd_observe(m, d, v);
  d->done = (double)v->k;
  d->idle = v->k >= m->job->steps;
  return st;
}

static int lrmd_collect(void *model, sp_gpu_dev *d, int interrupted) {
  lrmd_model *m = (lrmd_model *)model;
  sp_lrmd_out *out = m->out;
  lrmd_dev *v = (lrmd_dev *)d->state;
  const size_t bytes = m->job->n * sizeof(double);
  int st;
  (void)interrupted; /* the state is that after the last step made */
  if ((st = sp_gpu_stream_sync(d->id, d->stream)) ||
      (st = sp_gpu_to_host(d->id, out->q0, v->q0, bytes)) ||
      (st = sp_gpu_to_host(d->id, out->q1, v->q1, bytes)) ||
      (st = sp_gpu_to_host(d->id, out->p0, v->p0, bytes)) ||
      (st = sp_gpu_to_host(d->id, out->p1, v->p1, bytes)))
    return st;
  out->steps_done = v->k;
  return SP_OK;
}

int sp_gpu_lrmd(const char *key, const sp_lrmd_job *job, sp_lrmd_out *out, const int *devices,
                int ndev, const sp_hooks *hooks, sp_run_info *info) {
  lrmd_model m;
  sp_gpu_engine e;
  int st;
  sp_lrmd_out_init(job, out);
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (ndev != 1)
    return sp_fail(SP_ERR_INVALID, "lrmd runs on one GPU (the particles are not yet split over %d)",
                   ndev);
  m.key = key;
  m.job = job;
  m.out = out;
  m.nrec = sp_lrmd_nrec(job);
  m.snap_next = 0;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(lrmd_dev);
  e.total = (double)job->steps;
  e.budget0 = 1;
  e.budget_max = 1u << 20;
  e.setup = lrmd_setup;
  e.launch = lrmd_launch;
  e.poll = lrmd_poll;
  e.collect = lrmd_collect;
  m.host = (double *)malloc(4 * job->n * sizeof(double));
  m.part = (double *)malloc(((job->n + LRMD_BLOCK - 1) / LRMD_BLOCK * SP_LRMD_NSUMS + job->n) *
                            sizeof(double));
  if (m.host == NULL || m.part == NULL) {
    free(m.host);
    free(m.part);
    return sp_fail(SP_ERR_NOMEM, "out of host memory for %.0f particles", (double)job->n);
  }
  st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  free(m.host);
  free(m.part);
  return st;
}
