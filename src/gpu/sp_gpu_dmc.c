/* sp_gpu_dmc.c: host side of inst/cuda/he4_dmc.cu, an engine of the GPU
 * round driver (sp_gpu_run.h).  Populations are independent and do equal
 * work, so the devices share them in equal contiguous parts (two devices
 * need two populations or more); a round runs every population of a device
 * for at most `budget` generations, five launches a generation and no copy
 * to the host until the round's end, when the populations' bookkeeping
 * (sp_dmc_gpop) is read. */
#include "sp_gpu_dmc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

#include "he4_dmc_args.h"

typedef struct {
  const char *key;
  const sp_dmc_job *job;
  sp_dmc_out *out;
  int per_dev;    /* populations per device (the last may have fewer) */
  uint64_t steps; /* generations per population */
  sp_dmc_gpop *hp; /* host copy of every population's bookkeeping */
} dmc_model;

typedef struct {
  CUfunction eval, init, move, pop, copy, flip, save;
  CUdeviceptr xyz, grad, wlk, gstat, offs, pops, block, saved_xyz, saved_w, saved_pop, hist,
      saved_hist;
  int q0, nq; /* this device's populations: q0 .. q0 + nq - 1 of the job */
  int started;
} dmc_dev;

static void dmc_args(const dmc_model *m, const dmc_dev *v, sp_dmc_kargs *a) {
  const sp_dmc_job *job = m->job;
  memset(a, 0, sizeof *a);
  a->seed = job->seed;
  a->pop0 = job->pop0 + (uint64_t)v->q0;
  a->steps = m->steps;
  a->equilibration = job->equilibration;
  a->blocks = job->blocks;
  a->block_steps = job->block_steps;
  a->pair = job->pair;
  a->guide = job->guide;
  a->ctl = job->ctl;
  a->cap = job->cap;
  a->npop = v->nq;
  a->branching = job->branching;
  a->accept = job->accept;
  a->xyz = v->xyz;
  a->grad = v->grad;
  a->wlk = v->wlk;
  a->gstat = v->gstat;
  a->offs = v->offs;
  a->pops = v->pops;
  a->block = v->block;
  a->saved_xyz = v->saved_xyz;
  a->saved_w = v->saved_w;
  a->saved_pop = v->saved_pop;
  a->hist = v->hist;
  a->saved_hist = v->saved_hist;
}

static int dmc_setup(void *model, sp_gpu_dev *d) {
  dmc_model *m = (dmc_model *)model;
  const sp_dmc_job *job = m->job;
  sp_dmc_out *out = m->out;
  dmc_dev *v = (dmc_dev *)d->state;
  const size_t n = (size_t)job->n, cap = (size_t)job->cap, nr = 2 * (size_t)job->ctl.reweight;
  size_t slots, q, k, i;
  double *hx, *hw;
  int st;
  v->q0 = d->index * m->per_dev;
  v->nq = job->npop - v->q0 < m->per_dev ? job->npop - v->q0 : m->per_dev;
  if (v->nq <= 0) {
    v->nq = 0;
    d->idle = 1;
    return SP_OK;
  }
  slots = (size_t)v->nq * cap;
  if ((st = sp_gpu_function(d->id, m->key, "sp_dmc_eval_kernel", &v->eval)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_dmc_init_kernel", &v->init)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_dmc_move_kernel", &v->move)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_dmc_pop_kernel", &v->pop)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_dmc_copy_kernel", &v->copy)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_dmc_flip_kernel", &v->flip)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_dmc_save_kernel", &v->save)))
    return st;
  if ((st = sp_gpu_dev_alloc(d, 2 * slots * 3 * n * sizeof(double), "the walkers", &v->xyz)) ||
      (st = sp_gpu_dev_alloc(d, 2 * slots * 3 * n * sizeof(double), "the drifts", &v->grad)) ||
      (st = sp_gpu_dev_alloc(d, 2 * slots * SP_DMC_WSTRIDE * sizeof(double),
                             "the walkers' energies", &v->wlk)) ||
      (st = sp_gpu_dev_alloc(d, slots * SP_DMC_GSTRIDE * sizeof(double), "the weights",
                             &v->gstat)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nq * (cap + 1) * sizeof(int32_t), "the prefix sums",
                             &v->offs)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nq * sizeof(sp_dmc_gpop), "the populations",
                             &v->pops)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nq * job->blocks * SP_DMC_NOBS * sizeof(double),
                             "the blocks", &v->block)) ||
      (st = sp_gpu_dev_alloc(d, slots * 3 * n * sizeof(double), "the saved state",
                             &v->saved_xyz)) ||
      (st = sp_gpu_dev_alloc(d, slots * sizeof(double), "the saved weights", &v->saved_w)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nq * SP_DMC_POPVARS * sizeof(double),
                             "the saved populations", &v->saved_pop)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nq * nr * sizeof(double), "the reweighting's rings",
                             &v->hist)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nq * nr * sizeof(double),
                             "the saved reweighting's rings", &v->saved_hist)))
    return st;
  /* buffer 0: the walkers as x[n] y[n] z[n], their weights; buffer 1 and
   * the rest zero */
  hx = (double *)calloc(slots * 3 * n, sizeof(double));
  hw = (double *)calloc(slots * SP_DMC_WSTRIDE, sizeof(double));
  if (hx == NULL || hw == NULL) {
    free(hx);
    free(hw);
    return sp_fail(SP_ERR_NOMEM, "out of host memory");
  }
  for (q = 0; q < (size_t)v->nq; q++) {
    const size_t jq = (size_t)v->q0 + q;
    const double *pv = out->pop + jq * SP_DMC_POPVARS;
    sp_dmc_gpop *gp = m->hp + jq;
    memset(gp, 0, sizeof *gp);
    sp_dmc_pop_load(&gp->st, pv);
    for (k = 0; k < (size_t)gp->st.size; k++) {
      const double *c = out->coords + (jq * cap + k) * 3 * n;
      double *x = hx + (q * cap + k) * 3 * n;
      for (i = 0; i < n; i++) {
        x[i] = c[3 * i];
        x[n + i] = c[3 * i + 1];
        x[2 * n + i] = c[3 * i + 2];
      }
      hw[(q * cap + k) * SP_DMC_WSTRIDE + 4] = out->weight[jq * cap + k];
    }
  }
  st = sp_gpu_memset0(d->id, v->xyz, 2 * slots * 3 * n * sizeof(double));
  if (st == SP_OK) st = sp_gpu_to_device(d->id, v->xyz, hx, slots * 3 * n * sizeof(double));
  if (st == SP_OK) st = sp_gpu_memset0(d->id, v->grad, 2 * slots * 3 * n * sizeof(double));
  if (st == SP_OK) st = sp_gpu_memset0(d->id, v->wlk, 2 * slots * SP_DMC_WSTRIDE * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->wlk, hw, slots * SP_DMC_WSTRIDE * sizeof(double));
  free(hx);
  free(hw);
  if (st == SP_OK) st = sp_gpu_memset0(d->id, v->gstat, slots * SP_DMC_GSTRIDE * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->pops, m->hp + v->q0, (size_t)v->nq * sizeof(sp_dmc_gpop));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->block, out->block + (size_t)v->q0 * job->blocks * SP_DMC_NOBS,
                          (size_t)v->nq * job->blocks * SP_DMC_NOBS * sizeof(double));
  /* the saved state starts as the start (the interrupt rule) */
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved_xyz, out->coords + (size_t)v->q0 * cap * 3 * n,
                          slots * 3 * n * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved_w, out->weight + (size_t)v->q0 * cap,
                          slots * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved_pop, out->pop + (size_t)v->q0 * SP_DMC_POPVARS,
                          (size_t)v->nq * SP_DMC_POPVARS * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->hist, out->hist + (size_t)v->q0 * nr,
                          (size_t)v->nq * nr * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_device(d->id, v->saved_hist, out->hist + (size_t)v->q0 * nr,
                          (size_t)v->nq * nr * sizeof(double));
  return st;
}

static int dmc_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  dmc_model *m = (dmc_model *)model;
  dmc_dev *v = (dmc_dev *)d->state;
  const unsigned nq = (unsigned)v->nq, slots = nq * (unsigned)m->job->cap;
  const unsigned sh = (unsigned)sp_dmc_shared_bytes(m->job->n);
  sp_dmc_kargs a;
  unsigned g;
  int st = SP_OK;
  dmc_args(m, v, &a);
  if (!v->started) { /* every walker's ln psi, drift and energy; fresh e_ref */
    v->started = 1;
    if ((st = sp_gpu_launch(d->id, v->eval, slots, SP_DMC_BLOCK, sh, d->stream, &a,
                            "sp_dmc_eval_kernel")) ||
        (st = sp_gpu_launch(d->id, v->init, nq, SP_DMC_POP_THREADS, 0, d->stream, &a,
                            "sp_dmc_init_kernel")))
      return st;
  }
  for (g = 0; g < budget && st == SP_OK; g++) {
    if ((st = sp_gpu_launch(d->id, v->move, slots, SP_DMC_BLOCK, sh, d->stream, &a,
                            "sp_dmc_move_kernel")) ||
        (st = sp_gpu_launch(d->id, v->pop, nq, SP_DMC_POP_THREADS, 0, d->stream, &a,
                            "sp_dmc_pop_kernel")))
      break;
    if (m->job->branching &&
        ((st = sp_gpu_launch(d->id, v->copy, slots, SP_DMC_BLOCK, 0, d->stream, &a,
                             "sp_dmc_copy_kernel")) ||
         (st = sp_gpu_launch(d->id, v->flip, nq, 1, 0, d->stream, &a, "sp_dmc_flip_kernel"))))
      break;
    st = sp_gpu_launch(d->id, v->save, slots, SP_DMC_BLOCK, 0, d->stream, &a,
                       "sp_dmc_save_kernel");
  }
  return st;
}

static int dmc_poll(void *model, sp_gpu_dev *d) {
  dmc_model *m = (dmc_model *)model;
  dmc_dev *v = (dmc_dev *)d->state;
  double done = 0;
  int q, all = 1;
  int st = sp_gpu_to_host(d->id, m->hp + v->q0, v->pops, (size_t)v->nq * sizeof(sp_dmc_gpop));
  if (st != SP_OK) return st;
  for (q = v->q0; q < v->q0 + v->nq; q++) {
    done += (double)m->hp[q].step;
    all &= m->hp[q].step >= m->steps || m->hp[q].dead != 0;
  }
  d->done = done;
  d->idle = all;
  return SP_OK;
}

/* A population that died (or started without a finite energy) fails the
 * run, the lowest first, with the CPU's messages. */
static int dmc_check(void *model) {
  dmc_model *m = (dmc_model *)model;
  int q;
  for (q = 0; q < m->job->npop; q++) {
    const unsigned long long pq = (unsigned long long)(m->job->pop0 + (uint64_t)q + 1);
    if (m->hp[q].dead == 2)
      return sp_fail(SP_ERR_NOT_FINITE,
                     "a walker of population %llu has no finite local energy at the start", pq);
    if (m->hp[q].dead == 1)
      return sp_fail(SP_ERR_NOT_FINITE,
                     "population %llu died out (no walker, or no weight, left) at its "
                     "generation %llu; use a smaller `dt` or a larger population",
                     pq, (unsigned long long)m->hp[q].st.gen);
  }
  return SP_OK;
}

static int dmc_collect(void *model, sp_gpu_dev *d, int interrupted) {
  dmc_model *m = (dmc_model *)model;
  const sp_dmc_job *job = m->job;
  sp_dmc_out *out = m->out;
  dmc_dev *v = (dmc_dev *)d->state;
  const size_t nq = (size_t)v->nq, cap = (size_t)job->cap, n = (size_t)job->n;
  const size_t nr = 2 * (size_t)job->ctl.reweight;
  size_t q;
  int st = SP_OK;
  (void)interrupted; /* the saved state is that after the last finished block */
  if (nq == 0) return SP_OK;
  st = sp_gpu_to_host(d->id, out->block + (size_t)v->q0 * job->blocks * SP_DMC_NOBS, v->block,
                      nq * job->blocks * SP_DMC_NOBS * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_host(d->id, out->coords + (size_t)v->q0 * cap * 3 * n, v->saved_xyz,
                        nq * cap * 3 * n * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_host(d->id, out->weight + (size_t)v->q0 * cap, v->saved_w,
                        nq * cap * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_host(d->id, out->pop + (size_t)v->q0 * SP_DMC_POPVARS, v->saved_pop,
                        nq * SP_DMC_POPVARS * sizeof(double));
  if (st == SP_OK)
    st = sp_gpu_to_host(d->id, out->hist + (size_t)v->q0 * nr, v->saved_hist,
                        nq * nr * sizeof(double));
  if (st == SP_OK)
    for (q = 0; q < nq; q++) out->done[v->q0 + q] = m->hp[v->q0 + q].done;
  return st;
}

int sp_gpu_dmc(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  const sp_dmc_job *job = (const sp_dmc_job *)vjob;
  dmc_model m;
  sp_gpu_engine e;
  int st;
  if (job->npop <= 0) return SP_OK;
  m.key = key;
  m.job = job;
  m.out = (sp_dmc_out *)vout;
  if (ndev > job->npop) ndev = job->npop;
  m.per_dev = (job->npop + ndev - 1) / ndev;
  m.steps = job->equilibration + job->blocks * job->block_steps;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(dmc_dev);
  e.total = (double)m.steps * (double)job->npop;
  e.budget0 = 1;
  e.budget_max = 1u << 20;
  e.setup = dmc_setup;
  e.launch = dmc_launch;
  e.poll = dmc_poll;
  e.check = dmc_check;
  e.collect = dmc_collect;
  m.hp = (sp_dmc_gpop *)calloc((size_t)job->npop, sizeof *m.hp);
  if (m.hp == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  free(m.hp);
  return st;
}
