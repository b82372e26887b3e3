/* sp_gpu_vmc.c: host side of inst/cuda/he4_vmc.cu, an engine of the GPU
 * round driver (sp_gpu_run.h).  Walkers do equal work, so the devices share
 * them in equal contiguous parts; a round runs every walker of a device for
 * at most `budget` sweeps (one warp, a thread block of 32 threads, per walker). */
#include "sp_gpu_vmc.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

#include "he4_vmc_args.h"

typedef struct {
  const char *key;
  const sp_vmc_job *job;
  sp_vmc_out *out;
  int per_dev; /* walkers per device (the last may have fewer) */
  uint64_t sweeps;
  sp_vmc_walker_state *hws; /* host copy of every walker's state */
} vmc_model;

typedef struct {
  CUfunction kern;
  CUdeviceptr pairs, xyz, ws, block, saved, saved_step, saved_moves, done, hist, usum;
  int w0, nw; /* this device's walkers: w0 .. w0 + nw - 1 of the job */
  sp_vmc_walker_state *hws;
} vmc_dev;

static int vmc_setup(void *model, sp_gpu_dev *d) {
  vmc_model *m = (vmc_model *)model;
  const sp_vmc_job *job = m->job;
  sp_vmc_out *out = m->out;
  vmc_dev *v = (vmc_dev *)d->state;
  const size_t n = (size_t)job->n, rb = job->single ? sizeof(float) : sizeof(double);
  size_t nw, nbins = (size_t)job->nbins;
  int st, w;
  const int total = SP_VMC_WALKERS(job);
  v->w0 = d->index * m->per_dev;
  v->nw = total - v->w0 < m->per_dev ? total - v->w0 : m->per_dev;
  if (v->nw <= 0) {
    v->nw = 0;
    d->idle = 1;
    return SP_OK;
  }
  nw = (size_t)v->nw;
  if ((st = sp_gpu_function(d->id, m->key, "sp_vmc_kernel", &v->kern)) != SP_OK) return st;
  if ((st = sp_gpu_dev_alloc(d, (size_t)job->ncond * sizeof(sp_he4_pair), "the conditions",
                             &v->pairs)) ||
      (st = sp_gpu_dev_alloc(d, nw * 3 * n * rb, "the walkers' coordinates", &v->xyz)) ||
      (st = sp_gpu_dev_alloc(d, nw * sizeof(sp_vmc_walker_state), "the walkers' state", &v->ws)) ||
      (st = sp_gpu_dev_alloc(d, nw * (size_t)job->blocks * SP_VMC_NOBS * sizeof(double),
                             "the blocks", &v->block)) ||
      (st = sp_gpu_dev_alloc(d, nw * 3 * n * sizeof(double), "the saved state", &v->saved)) ||
      (st = sp_gpu_dev_alloc(d, nw * sizeof(double), "the saved steps", &v->saved_step)) ||
      (st = sp_gpu_dev_alloc(d, nw * sizeof(double), "the saved moves", &v->saved_moves)) ||
      (st = sp_gpu_dev_alloc(d, nw * sizeof(int32_t), "the block counts", &v->done)))
    return st;
  if (nbins > 0 && (st = sp_gpu_dev_alloc(d, 2 * nw * nbins * sizeof(double), "g(r)", &v->hist)))
    return st;
  /* the "_usum" variants: each atom's sum of u, kept between launches (set
   * by the kernel at the start of the call) */
  if (job->usum &&
      (st = sp_gpu_dev_alloc(d, nw * n * sizeof(float), "the sums of u", &v->usum)))
    return st;
  /* uploads: the coordinates as they are (x y z of each atom in double) into
   * the saved state, where the kernel's first launch reads them into its
   * working copy (xyz: x[n] y[n] z[n] per walker in the working precision)
   * -- no conversion on the host -- and where a walker that finishes no
   * block keeps them */
  v->hws = m->hws + v->w0;
  for (w = 0; w < v->nw; w++) {
    v->hws[w].step = out->step[v->w0 + w];
    v->hws[w].moves = (uint64_t)out->moves[v->w0 + w];
  }
  st = sp_gpu_to_device(d->id, v->pairs, job->conds, (size_t)job->ncond * sizeof(sp_he4_pair));
  if (st == SP_OK) st = sp_gpu_to_device(d->id, v->ws, v->hws, nw * sizeof *v->hws);
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->block, out->block + (size_t)v->w0 * job->blocks * SP_VMC_NOBS,
                          nw * (size_t)job->blocks * SP_VMC_NOBS * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved, out->coords + (size_t)v->w0 * n * 3,
                          nw * 3 * n * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved_step, out->step + v->w0, nw * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved_moves, out->moves + v->w0, nw * sizeof(double));
  if (st == SP_OK) st = sp_gpu_memset0(d->id, v->done, nw * sizeof(int32_t));
  if (st == SP_OK && nbins > 0) st = sp_gpu_memset0(d->id, v->hist, 2 * nw * nbins * sizeof(double));
  return st;
}

/* One launch a round over every walker of the device, of every condition:
 * each thread block finds its condition (the device table of pair
 * parameters) and its stream from its walker's index in the job
 * (sp_vmc_kargs), so a sweep of many small conditions fills the device in
 * one launch instead of serialising one launch per condition on the
 * stream. */
static int vmc_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  vmc_model *m = (vmc_model *)model;
  const sp_vmc_job *job = m->job;
  vmc_dev *v = (vmc_dev *)d->state;
  sp_vmc_kargs a;
  memset(&a, 0, sizeof a);
  a.seed = job->seed;
  a.walker0 = job->walker0;
  a.equilibration = job->equilibration;
  a.blocks = job->blocks;
  a.block_sweeps = job->block_sweeps;
  a.measure_every = job->measure_every;
  a.budget = budget;
  a.n = job->n;
  a.nwalkers = v->nw;
  a.tune = job->tune;
  a.target = job->target;
  a.nbins = job->nbins;
  a.first = v->w0;
  a.per_cond = job->nwalkers;
  a.pairs = v->pairs;
  a.xyz = v->xyz;
  a.ws = v->ws;
  a.block = v->block;
  a.saved = v->saved;
  a.saved_step = v->saved_step;
  a.saved_moves = v->saved_moves;
  a.done = v->done;
  a.hist = v->hist;
  a.usum = v->usum;
  return sp_gpu_launch(d->id, v->kern, (unsigned)v->nw, SP_VMC_BLOCK,
                       (unsigned)sp_vmc_shared_bytes(job->n, job->single, job->usum),
                       d->stream, &a,
                       "sp_vmc_kernel");
}

static int vmc_poll(void *model, sp_gpu_dev *d) {
  vmc_model *m = (vmc_model *)model;
  vmc_dev *v = (vmc_dev *)d->state;
  double done = 0;
  int w, all = 1;
  int st = sp_gpu_to_host(d->id, v->hws, v->ws, (size_t)v->nw * sizeof *v->hws);
  if (st != SP_OK) return st;
  for (w = 0; w < v->nw; w++) {
    done += (double)v->hws[w].sweep;
    all &= v->hws[w].sweep >= m->sweeps;
  }
  d->done = done;
  d->idle = all;
  return SP_OK;
}

/* After every device's poll (m->hws holds every walker's state): a walker
 * stopped by a non-finite state fails the run -- the first sweep, then the
 * lowest walker, as on the CPU. */
static int vmc_check(void *model) {
  vmc_model *m = (vmc_model *)model;
  int w, wb = -1;
  for (w = 0; w < SP_VMC_WALKERS(m->job); w++)
    if (m->hws[w].bad_sweep > 0 && (wb < 0 || m->hws[w].bad_sweep < m->hws[wb].bad_sweep))
      wb = w;
  if (wb < 0) return SP_OK;
  return sp_vmc_not_finite(m->job, wb, m->hws[wb].bad_sweep, m->hws[wb].bad_what,
                           m->hws[wb].bad_atom);
}

static int vmc_collect(void *model, sp_gpu_dev *d, int interrupted) {
  vmc_model *m = (vmc_model *)model;
  const sp_vmc_job *job = m->job;
  sp_vmc_out *out = m->out;
  vmc_dev *v = (vmc_dev *)d->state;
  const size_t nw = (size_t)v->nw, n = (size_t)job->n;
  int st = SP_OK;
  (void)interrupted; /* the saved state is that after the last finished block */
  if (nw > 0) {
    st = sp_gpu_to_host(d->id, out->block + (size_t)v->w0 * job->blocks * SP_VMC_NOBS, v->block,
                        nw * (size_t)job->blocks * SP_VMC_NOBS * sizeof(double));
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, out->coords + (size_t)v->w0 * n * 3, v->saved,
                          nw * 3 * n * sizeof(double));
    if (st == SP_OK) st = sp_gpu_to_host(d->id, out->step + v->w0, v->saved_step, nw * sizeof(double));
    if (st == SP_OK)
      st = sp_gpu_to_host(d->id, out->moves + v->w0, v->saved_moves, nw * sizeof(double));
    if (st == SP_OK) st = sp_gpu_to_host(d->id, out->done + v->w0, v->done, nw * sizeof(int32_t));
    if (st == SP_OK && job->nbins > 0)
      st = sp_gpu_to_host(d->id, out->hist + (size_t)v->w0 * job->nbins, v->hist,
                          nw * (size_t)job->nbins * sizeof(double));
  }
  return st;
}

int sp_gpu_vmc(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  const sp_vmc_job *job = (const sp_vmc_job *)vjob;
  sp_vmc_out *out = (sp_vmc_out *)vout;
  vmc_model m;
  sp_gpu_engine e;
  const int total = SP_VMC_WALKERS(job);
  int st;
  if (total <= 0) return SP_OK;
  m.key = key;
  m.job = job;
  m.out = out;
  if (ndev > total) ndev = total;
  m.per_dev = (total + ndev - 1) / ndev;
  m.sweeps = job->equilibration + job->blocks * job->block_sweeps;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(vmc_dev);
  e.total = (double)m.sweeps * (double)total;
  e.budget0 = 1;
  e.budget_max = 1u << 30;
  e.setup = vmc_setup;
  e.launch = vmc_launch;
  e.poll = vmc_poll;
  e.check = vmc_check;
  e.collect = vmc_collect;
  m.hws = (sp_vmc_walker_state *)calloc((size_t)total, sizeof *m.hws);
  if (m.hws == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  free(m.hws);
  return st;
}
