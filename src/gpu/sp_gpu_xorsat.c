/* sp_gpu_xorsat.c: host side of inst/cuda/xorsat.cu, an engine of the GPU
 * round driver (sp_gpu_run.h).
 *
 * Each device holds `ngroups` groups of `nwords` warps; a group runs one run
 * at a time, its words side by side.  After every round the host reads the
 * groups and slots, finishes the runs whose words are all done (solved,
 * beaten or cut), hands out the next runs (a counter shared by the
 * devices: a run's result never depends on where it ran).  Runs count
 * sweeps only (a timeout in seconds is a sweep limit set by the R layer at
 * a measured pace); with job->calibrate, solutions do not end a run. */
#include "sp_gpu_xorsat.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

#include "xorsat.h" /* sp_xorsat_run_stream */
#include "xorsat_args.h"

#define XS_NONE 0xffffffffffffffffull

typedef struct {
  const char *key;
  const sp_xorsat_job *job;
  sp_xorsat_out *out;
  uint32_t nwords;
  uint64_t next, finished;
  uint32_t *graph, *eqt; /* packed tables (xorsat_args.h) */
  struct xg_dev_ *devs;  /* one per device, d->index */
} xg_model;

typedef struct xg_dev_ {
  CUfunction kern;
  CUdeviceptr graph, eqt, sets, groups, slots, spins, snap;
  uint32_t wpb, ngroups, nslots, grid;
  unsigned shmem;
  sp_xs_group *hg;
  sp_xs_slot *hs;
  uint32_t *word;  /* n: one word read back (a solution) */
} xg_dev;

static uint32_t xs_wpb(uint32_t n, uint32_t nsets) {
  uint32_t w;
  for (w = SP_XS_WPB_MAX; w >= 1; w /= 2)
    if (sp_xorsat_shared_bytes(n, nsets, w) <= SP_XS_SHARED_MAX) return w;
  return 0;
}

/* The tables in positions of the sweep order (xorsat_args.h); pos is the
 * position of each spin. */
static void xs_pack(xg_model *m, uint32_t *pos) {
  const sp_xorsat_job *job = m->job;
  uint32_t k, c, q;
  for (k = 0; k < job->n; k++) pos[job->order[k]] = k;
  for (k = 0; k < job->n; k++) {
    const uint32_t i = (uint32_t)job->order[k];
    const int32_t *pl = job->partner + 6 * (size_t)i;
    const uint32_t *jm = job->jm + 3 * (size_t)i;
    const uint32_t jb = (jm[0] ? 1u : 0u) | (jm[1] ? 2u : 0u) | (jm[2] ? 4u : 0u);
    uint32_t p[6];
    for (q = 0; q < 6; q++) p[q] = pos[pl[q]];
    m->graph[4 * k] = i | (p[0] << 16);
    m->graph[4 * k + 1] = p[1] | (p[2] << 16);
    m->graph[4 * k + 2] = p[3] | (p[4] << 16);
    m->graph[4 * k + 3] = p[5] | (jb << 16);
  }
  for (c = 0; c < job->n; c++) {
    const int32_t *e = job->eq + 3 * (size_t)c;
    m->eqt[2 * c] = pos[e[0]] | (pos[e[1]] << 16);
    m->eqt[2 * c + 1] = pos[e[2]] | ((job->jeq[c] ? 1u : 0u) << 16);
  }
}

/* Put the next run (if any) into group g. */
static void xs_assign(xg_model *m, xg_dev *v, uint32_t g) {
  const sp_xorsat_job *job = m->job;
  uint32_t w;
  v->hg[g].run = -1;
  v->hg[g].grun = v->hg[g].p1_thr = 0;
  v->hg[g].limit = job->max_sweeps;
  v->hg[g].best = XS_NONE;
  if (m->next < SP_XORSAT_RUNS(job)) {
    const uint64_t r = m->next++;
    v->hg[g].run = (int64_t)r;
    v->hg[g].grun = sp_xorsat_run_stream(job->run0, job->nruns, r);
    v->hg[g].p1_thr = job->conds[r / job->nruns].p1_thr;
  }
  for (w = 0; w < m->nwords; w++) memset(&v->hs[(size_t)g * m->nwords + w], 0, sizeof(sp_xs_slot));
}

static int xs_upload(xg_dev *v, sp_gpu_dev *d) {
  int st = sp_gpu_to_device(d->id, v->groups, v->hg, (size_t)v->ngroups * sizeof *v->hg);
  if (st == SP_OK) st = sp_gpu_to_device(d->id, v->slots, v->hs, (size_t)v->nslots * sizeof *v->hs);
  return st;
}

static int xg_setup(void *model, sp_gpu_dev *d) {
  xg_model *m = (xg_model *)model;
  const sp_xorsat_job *job = m->job;
  xg_dev *v = &m->devs[d->index];
  const uint32_t n = job->n;
  int st, bps = 0;
  uint32_t g, resident;
  if ((st = sp_gpu_function(d->id, m->key, "sp_xorsat_kernel", &v->kern)) != SP_OK) return st;
  v->wpb = xs_wpb(n, job->nsets);
  v->shmem = (unsigned)sp_xorsat_shared_bytes(n, job->nsets, v->wpb);
  if ((st = sp_gpu_occupancy(d->id, v->kern, (int)(32 * v->wpb), v->shmem, &bps)) != SP_OK)
    return st;
  if (bps < 1) bps = 1;
  resident = (uint32_t)bps * (uint32_t)d->info.multiprocessors * v->wpb;
  if (m->nwords == 0) m->nwords = resident < 65536u ? resident : 65536u;
  v->ngroups = resident / m->nwords;
  if (v->ngroups < 1) v->ngroups = 1;
  if ((uint64_t)v->ngroups > SP_XORSAT_RUNS(job)) v->ngroups = (uint32_t)SP_XORSAT_RUNS(job);
  v->nslots = v->ngroups * m->nwords;
  v->grid = (v->nslots + v->wpb - 1) / v->wpb;
  v->hg = (sp_xs_group *)calloc(v->ngroups, sizeof *v->hg);
  v->hs = (sp_xs_slot *)calloc(v->nslots, sizeof *v->hs);
  v->word = (uint32_t *)calloc(n, sizeof *v->word);
  if (!v->hg || !v->hs || !v->word)
    return sp_fail(SP_ERR_NOMEM, "out of host memory");
  if ((st = sp_gpu_dev_alloc(d, (size_t)n * 16, "the sweep order", &v->graph)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)n * 8, "the equations", &v->eqt)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)(job->nsets + 1) * 4, "the sets", &v->sets)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->ngroups * sizeof *v->hg, "the runs", &v->groups)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nslots * sizeof *v->hs, "the words", &v->slots)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nslots * n * 4, "the clones", &v->spins)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)v->nslots * n * 4, "the clones' snapshots", &v->snap)))
    return st;
  if ((st = sp_gpu_to_device(d->id, v->graph, m->graph, (size_t)n * 16)) ||
      (st = sp_gpu_to_device(d->id, v->eqt, m->eqt, (size_t)n * 8)) ||
      (st = sp_gpu_to_device(d->id, v->sets, job->sets, (size_t)(job->nsets + 1) * 4)))
    return st;
  for (g = 0; g < v->ngroups; g++) xs_assign(m, v, g);
  d->idle = v->hg[0].run < 0;
  return xs_upload(v, d);
}

static int xg_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  xg_model *m = (xg_model *)model;
  const sp_xorsat_job *job = m->job;
  xg_dev *v = &m->devs[d->index];
  sp_xorsat_kargs a;
  memset(&a, 0, sizeof a);
  a.seed = job->seed;
  a.indep = (uint32_t)job->indep;
  a.calibrate = (uint32_t)job->calibrate;
  a.check_every = job->check_every;
  a.n = job->n;
  a.nsets = job->nsets;
  a.nwords = m->nwords;
  a.ngroups = v->ngroups;
  a.nslots = v->nslots;
  a.wpb = v->wpb;
  a.budget = budget < (1u << 24) ? budget : (1u << 24);
  a.graph = v->graph;
  a.eqt = v->eqt;
  a.sets = v->sets;
  a.groups = v->groups;
  a.slots = v->slots;
  a.spins = v->spins;
  a.snap = v->snap;
  return sp_gpu_launch(d->id, v->kern, v->grid, 32 * v->wpb, v->shmem, d->stream, &a,
                       "sp_xorsat_kernel");
}

/* Finish group g's run: solved (its best word), cut, or (partial) interrupted. */
static int xs_finish(xg_model *m, xg_dev *v, sp_gpu_dev *d, uint32_t g, int status) {
  const sp_xorsat_job *job = m->job;
  sp_xorsat_out *out = m->out;
  const int64_t r = v->hg[g].run;
  const sp_xs_slot *s = v->hs + (size_t)g * m->nwords;
  uint64_t tmin = s[0].t;
  uint32_t w, i;
  for (w = 1; w < m->nwords; w++)
    if (s[w].t < tmin) tmin = s[w].t;
  if (status != SP_XORSAT_PARTIAL && v->hg[g].best != XS_NONE) {
    const uint64_t t = sp_xs_best_sweep(v->hg[g].best);
    const uint32_t ws = sp_xs_best_word(v->hg[g].best), bit = s[ws].bit;
    const int st = sp_gpu_to_host(d->id, v->word,
                                  v->spins + ((size_t)g * m->nwords + ws) * job->n * 4,
                                  (size_t)job->n * 4);
    if (st != SP_OK) return st;
    out->sweeps[r] = (double)t;
    out->status[r] = SP_XORSAT_SOLVED;
    out->clone[r] = (int)(32 * ws + bit);
    for (i = 0; i < job->n; i++) /* position i holds spin order[i] */
      out->solution[(size_t)r * job->n + (uint32_t)job->order[i]] = (int)((v->word[i] >> bit) & 1u);
  } else {
    out->sweeps[r] = (double)tmin;
    out->status[r] = status == SP_XORSAT_PARTIAL ? SP_XORSAT_PARTIAL : SP_XORSAT_CUT;
    out->clone[r] = -1;
  }
  if (status != SP_XORSAT_PARTIAL) m->finished++;
  return SP_OK;
}

static int xg_poll(void *model, sp_gpu_dev *d) {
  xg_model *m = (xg_model *)model;
  const sp_xorsat_job *job = m->job;
  xg_dev *v = &m->devs[d->index];
  uint32_t g, w;
  int st, active = 0;
  if ((st = sp_gpu_to_host(d->id, v->hg, v->groups, (size_t)v->ngroups * sizeof *v->hg)) ||
      (st = sp_gpu_to_host(d->id, v->hs, v->slots, (size_t)v->nslots * sizeof *v->hs)))
    return st;
  for (g = 0; g < v->ngroups; g++) {
    const sp_xs_slot *s = v->hs + (size_t)g * m->nwords;
    int done = 1;
    if (v->hg[g].run < 0) continue;
    for (w = 0; w < m->nwords; w++) done &= s[w].state >= SP_XS_SOLVED;
    if (done) {
      if ((st = xs_finish(m, v, d, g, SP_XORSAT_CUT)) != SP_OK) return st;
      xs_assign(m, v, g);
    }
    active |= v->hg[g].run >= 0;
  }
  d->done = (double)m->finished;
  d->idle = !active;
  d->tail = m->next >= SP_XORSAT_RUNS(job);
  return active ? xs_upload(v, d) : SP_OK;
}

static int xg_collect(void *model, sp_gpu_dev *d, int interrupted) {
  xg_model *m = (xg_model *)model;
  xg_dev *v = &m->devs[d->index];
  uint32_t g;
  int st = SP_OK;
  if (interrupted)
    for (g = 0; g < v->ngroups && st == SP_OK; g++)
      if (v->hg != NULL && v->hg[g].run >= 0) st = xs_finish(m, v, d, g, SP_XORSAT_PARTIAL);
  return st;
}

static void xg_free(xg_dev *v) {
  free(v->hg);
  free(v->hs);
  free(v->word);
}

int sp_gpu_xorsat(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
                  const sp_hooks *hooks, sp_run_info *info) {
  const sp_xorsat_job *job = (const sp_xorsat_job *)vjob;
  sp_xorsat_out *out = (sp_xorsat_out *)vout;
  xg_model m;
  sp_gpu_engine e;
  int st;
  if (job->n > SP_XS_MAX_N || xs_wpb(job->n, job->nsets) == 0)
    return sp_fail(SP_ERR_INVALID, "the GPU kernel takes at most %d spins, not %u",
                   SP_XS_MAX_N, job->n);
  if (SP_XORSAT_RUNS(job) == 0) return SP_OK;
  memset(&m, 0, sizeof m);
  m.key = key;
  m.job = job;
  m.out = out;
  m.nwords = job->nwords;
  m.graph = (uint32_t *)malloc((size_t)job->n * 16);
  m.eqt = (uint32_t *)malloc((size_t)job->n * 8);
  {
    uint32_t *pos = (uint32_t *)malloc((size_t)job->n * 4);
    if (m.graph == NULL || m.eqt == NULL || pos == NULL) {
      free(m.graph);
      free(m.eqt);
      free(pos);
      return sp_fail(SP_ERR_NOMEM, "out of host memory");
    }
    xs_pack(&m, pos);
    free(pos);
  }
  if (ndev < 1) ndev = 1;
  memset(&e, 0, sizeof e);
  e.state_size = 0;
  e.total = (double)SP_XORSAT_RUNS(job);
  e.budget0 = 1;
  e.budget_max = 1u << 24;
  e.setup = xg_setup;
  e.launch = xg_launch;
  e.poll = xg_poll;
  e.collect = xg_collect;
  m.devs = (xg_dev *)calloc((size_t)ndev, sizeof *m.devs);
  if (m.devs == NULL) st = sp_fail(SP_ERR_NOMEM, "out of host memory");
  else st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  out->nwords = m.nwords;
  if (m.devs != NULL) {
    int i;
    for (i = 0; i < ndev; i++) xg_free(&m.devs[i]);
  }
  free(m.devs);
  free(m.graph);
  free(m.eqt);
  return st;
}
