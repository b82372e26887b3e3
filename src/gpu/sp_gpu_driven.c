/* sp_gpu_driven.c: host side of inst/cuda/driven.cu, an engine of the GPU
 * round driver (sp_gpu_run.h).  Every path runs the same number of steps,
 * so the plan is static: device d of ndev holds the contiguous paths
 * [d total / ndev, (d + 1) total / ndev), and a round advances all of them
 * by the same number of steps (one launch, one thread per path).  The
 * starts are drawn on the device (sp_driven_init_kernel, the CPU engine's
 * numbers): nothing a path holds crosses the bus before the run. */
#include "sp_gpu_driven.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

typedef struct {
  const char *key;
  const sp_driven_job *job;
  sp_driven_out *out;
  uint64_t total, K, nkeep, ndens;
  int ndev;
  unsigned long long bad; /* the lowest path found non-finite on any device */
  uint64_t kbad;          /* the steps it had made then */
} drv_model;

typedef struct {
  CUfunction kern;
  size_t rb; /* bytes of a real */
  uint64_t path0, np, k;
  int dev_id;
  unsigned int last; /* steps of the launch in flight */
  CUdeviceptr conds, drive, m, x, v, s2, acc2, xtr, keep_x, keep_v, dens, bad;
} drv_dev;

#define DRV_NO_PATH 0xffffffffffffffffull

static void drv_from_real(const void *buf, uint64_t n, size_t rb, double *dst) {
  uint64_t i;
  if (rb == sizeof(float))
    for (i = 0; i < n; i++) dst[i] = (double)((const float *)buf)[i];
  else
    memcpy(dst, buf, (size_t)n * sizeof(double));
}

/* The states of a continuation's paths path0 .. path0 + np - 1 into the
 * device's state buffer (its layout: acc2, xtr, y, v, s2, m; see
 * drv_setup), in one upload. */
static int drv_upload_states(const sp_driven_job *job, drv_dev *e) {
  size_t np = (size_t)e->np, rb = e->rb;
  char *buf = (char *)malloc(np * (2 * sizeof(double) + 3 * rb + sizeof(int32_t)));
  double *acc2 = (double *)buf, *xtr = acc2 + np;
  char *y = (char *)(xtr + np), *v = y + np * rb, *s2 = v + np * rb;
  int32_t *m = (int32_t *)(s2 + np * rb);
  size_t i;
  int st;
  if (buf == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (i = 0; i < np; i++) {
    const sp_driven_state *s = &job->resume[e->path0 + i];
    acc2[i] = s->acc2;
    xtr[i] = s->xtr;
    m[i] = (int32_t)s->m;
    if (rb == sizeof(float)) {
      ((float *)y)[i] = (float)s->y;
      ((float *)v)[i] = (float)s->v;
      ((float *)s2)[i] = (float)s->s2;
    } else {
      ((double *)y)[i] = s->y;
      ((double *)v)[i] = s->v;
      ((double *)s2)[i] = s->s2;
    }
  }
  st = sp_gpu_to_device(e->dev_id, e->acc2, buf,
                        np * (2 * sizeof(double) + 3 * rb + sizeof(int32_t)));
  free(buf);
  return st;
}

static int drv_setup(void *model, sp_gpu_dev *d) {
  drv_model *m = (drv_model *)model;
  const sp_driven_job *job = m->job;
  drv_dev *e = (drv_dev *)d->state;
  size_t rb = job->single ? sizeof(float) : sizeof(double), np;
  CUfunction init;
  CUdeviceptr x0 = 0, v0 = 0;
  sp_driven_init_kargs ia;
  float *drive_f = NULL;
  int st;
  e->rb = rb;
  e->dev_id = d->id;
  e->path0 = m->total * (uint64_t)d->index / (uint64_t)m->ndev;
  e->np = m->total * (uint64_t)(d->index + 1) / (uint64_t)m->ndev - e->path0;
  e->k = job->k0;
  if (e->np == 0) {
    d->idle = 1;
    return SP_OK;
  }
  np = (size_t)e->np;
  if ((st = sp_gpu_function(d->id, m->key, "sp_driven_kernel", &e->kern)) != SP_OK ||
      (st = sp_gpu_function(d->id, m->key, "sp_driven_init_kernel", &init)) != SP_OK)
    return st;
  if ((st = sp_gpu_dev_alloc(d, (size_t)job->ncond * sizeof(sp_driven_cond), "the conditions",
                             &e->conds)) ||
      (st = sp_gpu_dev_alloc(d, ((size_t)job->spp + 1) * rb, "the drive table", &e->drive)) ||
      (st = sp_gpu_dev_alloc(d, np * (2 * sizeof(double) + 3 * rb + sizeof(int32_t)),
                             job->single ? "the path state (32 bytes a path)"
                                         : "the path state (44 bytes a path)",
                             &e->acc2)) ||
      (st = sp_gpu_dev_alloc(d, 8, "the non-finite flag", &e->bad)) ||
      (st = sp_gpu_memset32(d->id, e->bad, 0xffffffffu, 2)))
    return st;
  /* one buffer: the v^2 sums and x after the transient (double), then y (of
   * x = m + y), v and the v^2 sum of the current period (working precision),
   * then m */
  e->xtr = e->acc2 + (CUdeviceptr)np * sizeof(double);
  e->x = e->xtr + (CUdeviceptr)np * sizeof(double);
  e->v = e->x + (CUdeviceptr)np * rb;
  e->s2 = e->v + (CUdeviceptr)np * rb;
  e->m = e->s2 + (CUdeviceptr)np * rb;
  if (m->nkeep > 0 &&
      ((st = sp_gpu_dev_alloc(d, (size_t)m->nkeep * sizeof(double), "the kept trajectories",
                              &e->keep_x)) ||
       (st = sp_gpu_dev_alloc(d, (size_t)m->nkeep * sizeof(double), "the kept trajectories",
                              &e->keep_v)) ||
       /* 0x7ff80000 twice is a NaN: samples not reached */
       (st = sp_gpu_memset32(d->id, e->keep_x, 0x7ff80000u, (size_t)m->nkeep * 2)) ||
       (st = sp_gpu_memset32(d->id, e->keep_v, 0x7ff80000u, (size_t)m->nkeep * 2))))
    return st;
  if (m->ndens > 0 &&
      ((st = sp_gpu_dev_alloc(d, (size_t)m->ndens * 8, "the position density", &e->dens)) ||
       (st = sp_gpu_memset0(d->id, e->dens, (size_t)m->ndens * 8))))
    return st;
  /* start values given by the caller (one, or one per replica) */
  if ((job->nx0 > 0 && ((st = sp_gpu_dev_alloc(d, (size_t)job->nx0 * sizeof(double),
                                               "the start positions", &x0)) ||
                        (st = sp_gpu_to_device(d->id, x0, job->x0,
                                               (size_t)job->nx0 * sizeof(double))))) ||
      (job->nv0 > 0 && ((st = sp_gpu_dev_alloc(d, (size_t)job->nv0 * sizeof(double),
                                               "the start velocities", &v0)) ||
                        (st = sp_gpu_to_device(d->id, v0, job->v0,
                                               (size_t)job->nv0 * sizeof(double))))))
    return st;
  /* the drive table in the working precision */
  if (job->single) {
    uint64_t j;
    drive_f = (float *)malloc(((size_t)job->spp + 1) * sizeof(float));
    if (drive_f == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    for (j = 0; j <= job->spp; j++) drive_f[j] = (float)job->drive[j];
  }
  st = sp_gpu_to_device(d->id, e->drive, job->single ? (const void *)drive_f : job->drive,
                        ((size_t)job->spp + 1) * rb);
  free(drive_f);
  if (st != SP_OK ||
      (st = sp_gpu_to_device(d->id, e->conds, job->conds,
                             (size_t)job->ncond * sizeof(sp_driven_cond))) != SP_OK)
    return st;
  /* every path's start, drawn on the device (the host's numbers; the
   * uploads above have landed: sp_gpu_to_device waits for them); or, for a
   * continuation, the paths' states uploaded */
  if (job->resume != NULL) return drv_upload_states(job, e);
  memset(&ia, 0, sizeof ia);
  ia.conds = e->conds;
  ia.x0 = x0;
  ia.v0 = v0;
  ia.nx0 = job->nx0;
  ia.nv0 = job->nv0;
  ia.m = e->m;
  ia.x = e->x;
  ia.v = e->v;
  ia.s2 = e->s2;
  ia.acc2 = e->acc2;
  ia.xtr = e->xtr;
  ia.n = job->n;
  ia.replica0 = job->replica0;
  ia.seed = job->seed;
  ia.path0 = e->path0;
  ia.npaths = e->np;
  ia.ktr = job->ktr;
  return sp_gpu_launch(d->id, init, (unsigned int)((e->np + SP_DRV_BLOCK - 1) / SP_DRV_BLOCK),
                       SP_DRV_BLOCK, 0, d->stream, &ia, "sp_driven_init_kernel");
}

static int drv_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  drv_model *m = (drv_model *)model;
  const sp_driven_job *job = m->job;
  drv_dev *e = (drv_dev *)d->state;
  sp_driven_kargs a;
  memset(&a, 0, sizeof a);
  e->last = (unsigned int)(m->K - e->k < budget ? m->K - e->k : budget);
  /* a launch ends at the end of the transient rather than straddle it: the
   * kernel then runs a loop compiled for one side of it */
  if (e->k < job->ktr && e->k + e->last > job->ktr) e->last = (unsigned int)(job->ktr - e->k);
  a.conds = e->conds;
  a.drive = e->drive;
  a.m = e->m;
  a.x = e->x;
  a.v = e->v;
  a.s2 = e->s2;
  a.acc2 = e->acc2;
  a.xtr = e->xtr;
  a.keep_x = e->keep_x;
  a.keep_v = e->keep_v;
  a.dens = e->dens;
  a.dens_lo = job->dens_lo;
  a.bins = job->dens_bins;
  a.n = job->n;
  a.replica0 = job->replica0;
  a.seed = job->seed;
  a.path0 = e->path0;
  a.npaths = e->np;
  a.k0 = e->k;
  a.ktr = job->ktr;
  a.keep_m = job->keep_m;
  a.periods = job->periods;
  a.spp = job->spp;
  a.nsteps = e->last;
  a.heun = (uint32_t)job->heun;
  a.bad = e->bad;
  return sp_gpu_launch(d->id, e->kern, (unsigned int)((e->np + SP_DRV_BLOCK - 1) / SP_DRV_BLOCK),
                       SP_DRV_BLOCK, 0, d->stream, &a, "sp_driven_kernel");
}

static int drv_poll(void *model, sp_gpu_dev *d) {
  drv_model *m = (drv_model *)model;
  drv_dev *e = (drv_dev *)d->state;
  unsigned long long bad = DRV_NO_PATH;
  int st;
  e->k += e->last;
  e->last = 0;
  d->done = (double)(e->k - m->job->k0) * (double)e->np;
  d->idle = e->k >= m->K;
  d->tail = 0;
  /* the flag of a non-finite state (8 bytes, the stream already idle) */
  if ((st = sp_gpu_to_host(d->id, &bad, e->bad, 8)) != SP_OK) return st;
  if (bad != DRV_NO_PATH && bad < m->bad) {
    m->bad = bad;
    m->kbad = e->k;
  }
  return SP_OK;
}

/* After every device's poll: a path found non-finite fails the run (the
 * lowest over the devices, replayed on the host for the message). */
static int drv_check(void *model) {
  drv_model *m = (drv_model *)model;
  if (m->bad == DRV_NO_PATH) return SP_OK;
  return sp_driven_not_finite(m->job, (uint64_t)m->bad, m->kbad);
}

static int drv_collect(void *model, sp_gpu_dev *d, int interrupted) {
  drv_model *m = (drv_model *)model;
  const sp_driven_job *job = m->job;
  drv_dev *e = (drv_dev *)d->state;
  sp_driven_out *out = m->out;
  size_t np = (size_t)e->np;
  uint64_t i, p;
  int32_t *hm = NULL;
  void *tmp = NULL;
  int st = SP_OK;
  (void)interrupted;
  if (e->np == 0) return SP_OK;
  out->steps = e->k; /* the same on every device */
  tmp = malloc(np * e->rb);
  hm = (int32_t *)malloc(np * sizeof(int32_t));
  if (tmp == NULL || hm == NULL) {
    st = sp_fail(SP_ERR_NOMEM, "out of host memory");
    goto done;
  }
  if ((st = sp_gpu_to_host(d->id, tmp, e->x, np * e->rb)) != SP_OK) goto done;
  drv_from_real(tmp, e->np, e->rb, out->y + e->path0);
  if ((st = sp_gpu_to_host(d->id, hm, e->m, np * sizeof(int32_t))) != SP_OK) goto done;
  for (i = 0; i < e->np; i++) { /* x = m + y */
    out->m[e->path0 + i] = (double)hm[i];
    out->x[e->path0 + i] = (double)hm[i] + out->y[e->path0 + i];
  }
  if ((st = sp_gpu_to_host(d->id, tmp, e->v, np * e->rb)) != SP_OK) goto done;
  drv_from_real(tmp, e->np, e->rb, out->v + e->path0);
  if ((st = sp_gpu_to_host(d->id, tmp, e->s2, np * e->rb)) != SP_OK) goto done;
  drv_from_real(tmp, e->np, e->rb, out->s2 + e->path0); /* a period cut short */
  if ((st = sp_gpu_to_host(d->id, out->acc2 + e->path0, e->acc2, np * sizeof(double))) ||
      (st = sp_gpu_to_host(d->id, out->xtr + e->path0, e->xtr, np * sizeof(double))))
    goto done;
  /* the kept paths of this device */
  for (p = e->path0; p < e->path0 + e->np && st == SP_OK && m->nkeep > 0; p++) {
    int64_t b = sp_driven_keep_base(job, p);
    size_t bytes = ((size_t)job->periods + 1) * sizeof(double);
    if (b < 0) continue;
    st = sp_gpu_to_host(d->id, out->keep_x + b, e->keep_x + (CUdeviceptr)b * sizeof(double),
                        bytes);
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, out->keep_v + b, e->keep_v + (CUdeviceptr)b * sizeof(double),
                          bytes);
  }
  /* the device's counts of the density, added to those of the others */
  if (st == SP_OK && m->ndens > 0) {
    unsigned long long *hd = (unsigned long long *)malloc((size_t)m->ndens * 8);
    if (hd == NULL) {
      st = sp_fail(SP_ERR_NOMEM, "out of host memory");
      goto done;
    }
    st = sp_gpu_to_host(d->id, hd, e->dens, (size_t)m->ndens * 8);
    for (i = 0; st == SP_OK && i < m->ndens; i++) out->dens[i] += (double)hd[i];
    free(hd);
  }
done:
  free(tmp);
  free(hm);
  return st;
}

int sp_gpu_driven(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
                  const sp_hooks *hooks, sp_run_info *info) {
  const sp_driven_job *job = (const sp_driven_job *)vjob;
  sp_driven_out *out = (sp_driven_out *)vout;
  drv_model m;
  sp_gpu_engine e;
  m.key = key;
  m.job = job;
  m.out = out;
  m.total = sp_driven_paths(job);
  m.K = job->periods * (uint64_t)job->spp;
  m.nkeep = (uint64_t)job->ncond * job->keep_m * (job->periods + 1);
  m.ndens = job->dens_bins > 0 && out->dens != NULL
                ? (uint64_t)job->ncond * (job->periods + 1) * ((uint64_t)job->dens_bins + 2)
                : 0;
  m.ndev = ndev;
  m.bad = DRV_NO_PATH;
  m.kbad = 0;
  if (m.total == 0 || m.K <= job->k0) return SP_OK;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(drv_dev);
  e.total = sp_driven_work(job);
  e.budget0 = 16;
  e.budget_max = 1u << 30;
  e.setup = drv_setup;
  e.launch = drv_launch;
  e.poll = drv_poll;
  e.check = drv_check;
  e.collect = drv_collect;
  return sp_gpu_run(&e, &m, devices, ndev, hooks, info);
}
