/* sp_gpu_ams.c: host side of inst/cuda/ams.cu, an engine of the GPU round
 * driver (sp_gpu_run.h), for either model of ams.h (the washboard, or a
 * user's SDE model whose module NVRTC compiled with the model: `key`).
 *
 * The replicas (items c replicas + r) are split into contiguous ranges, one
 * per device (a replica's numbers do not depend on where it runs).  On a
 * device, rounds go:
 *   1. the long trajectories (sp_ams_long_kernel, `budget` steps a round)
 *      until every replica has its N exits;
 *   2. one round: the first runs of all particles (sp_ams_branch_kernel);
 *   3. one round per level: the host keeps a copy of every particle's max
 *      score, finds each unfinished replica's level, kills and picks with
 *      ams.h's sp_ams_level (exactly the CPU engine's decisions), uploads
 *      the branchings as tasks, and the kernel replays and runs them; a
 *      replica whose level passes B (or dies out) is finished on the host
 *      from its particles' durations.
 * The tasks of a round (2 and 3) go to the branch kernel in launches of at
 * most the device's resident threads (tasks of one level are independent),
 * each task for at most the round's budget of steps (and at most tbudget,
 * adapted to the launches that spend it), so that a launch -- a round of the
 * driver, after which an interrupt is taken -- lasts about a round at most,
 * never the longest path nor the sum of many batches: the tasks that spent
 * their budget (paused, their walkers on the device) are launched again
 * after the others, until none is left.
 * Nothing here depends on the precision but the particle arrays, nor on the
 * model but the conditions' size and the state's length nx; the host-side
 * pieces of ams.h (levels, picks, finish: model-free) are compiled in both
 * precisions. */
#include "sp_gpu_ams.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "ams.h"
#undef SP_REAL
#undef SP_REAL_SINGLE
#define SP_REAL double
#include "ams.h"
#undef SP_REAL

enum { PH_LONG = 0, PH_RUN = 1 };

struct ams_dev_s;

typedef struct {
  const char *key;
  const sp_ams_job *job;
  sp_ams_result *out;
  uint64_t total, per_dev;
  /* the lowest failing replica over the devices */
  uint64_t fail_item;
  int fail_what, fail_long;
  uint64_t fail_k;
  /* the devices' states (index = position in the device list), owned here
   * so that their host buffers are freed whatever happens */
  struct ams_dev_s *dev;
} ams_model;

typedef struct ams_dev_s {
  CUfunction klong, kbranch;
  uint64_t item0, nitems, N;
  size_t rb; /* bytes of a working-precision value */
  CUdeviceptr conds, tables, lt, lx, res, x, maxs, k0, path, dur, bad, done, tasks, tout;
  CUdeviceptr wx, wk; /* paused branchings (ams.h, sp_ams_branch) */
  int phase;
  /* the host's copy of the max scores (float or double), per replica its
   * weight, branches, levels, steps, status (0 running, SP_AMS_DONE,
   * SP_AMS_EXTINCT) */
  void *hmaxs, *w;
  double *weight, *iters, *steps, *hdur;
  uint64_t *branches, *surv, *killed, *parent;
  int *status;
  sp_ams_task *htasks;
  sp_ams_task_out *hout;
  uint64_t ntasks, finished;
  /* tasks of the current round launched before (tnext) and in the launch
   * in flight (tcount); at most tmax a launch */
  uint64_t tnext, tcount, tmax;
  /* steps of a task a launch, at most (besides the driver's budget, which
   * a launch of short tasks does not measure: a launch lasts its longest
   * task), adapted to the launches that spent it; the launch's start */
  uint64_t tbudget;
  double t0;
} ams_dev;

static void ams_free_host(ams_dev *e) {
  free(e->hmaxs); free(e->w); free(e->weight); free(e->iters); free(e->steps); free(e->hdur);
  free(e->branches); free(e->surv); free(e->killed); free(e->parent); free(e->status);
  free(e->htasks); free(e->hout);
  e->hmaxs = e->w = NULL;
  e->weight = e->iters = e->steps = e->hdur = NULL;
  e->branches = e->surv = e->killed = e->parent = NULL;
  e->status = NULL;
  e->htasks = NULL;
  e->hout = NULL;
}

static int ams_setup(void *model, sp_gpu_dev *d) {
  ams_model *m = (ams_model *)model;
  const sp_ams_job *job = m->job;
  ams_dev *e = &m->dev[d->index];
  uint64_t i, n, N = job->particles;
  size_t ncond = (size_t)job->ncond, nx = (size_t)job->nx;
  size_t csize = job->model == SP_AMS_MODEL_SDE ? sizeof(sp_ams_sde_cond) : sizeof(sp_ams_cond);
  sp_ams_long_state *lt;
  double *lx;
  int st;
  e->N = N;
  e->item0 = (uint64_t)d->index * m->per_dev;
  e->nitems = e->item0 >= m->total ? 0
              : (m->total - e->item0 < m->per_dev ? m->total - e->item0 : m->per_dev);
  if (e->nitems == 0) {
    d->idle = 1;
    return SP_OK;
  }
  n = e->nitems * N;
  e->rb = job->single ? sizeof(float) : sizeof(double);
  e->tmax = (uint64_t)(d->info.multiprocessors > 0 ? d->info.multiprocessors : 132) *
            (uint64_t)(d->info.max_threads_per_sm > 0 ? d->info.max_threads_per_sm : 2048);
  e->tnext = e->tcount = 0;
  e->tbudget = job->round_steps > 0 ? (uint64_t)job->round_steps : (uint64_t)1 << 20;
  if ((st = sp_gpu_function(d->id, m->key, "sp_ams_long_kernel", &e->klong)) != SP_OK ||
      (st = sp_gpu_function(d->id, m->key, "sp_ams_branch_kernel", &e->kbranch)) != SP_OK)
    return st;
  if ((st = sp_gpu_dev_alloc(d, ncond * csize, "the conditions", &e->conds)) ||
      (st = sp_gpu_dev_alloc(d, e->nitems * sizeof(sp_ams_long_state), "the long trajectories",
                             &e->lt)) ||
      (st = sp_gpu_dev_alloc(d, e->nitems * nx * sizeof(double), "the long trajectories",
                             &e->lx)) ||
      (st = sp_gpu_dev_alloc(d, e->nitems * sizeof(sp_ams_result), "the replica results",
                             &e->res)) ||
      (st = sp_gpu_dev_alloc(d, n * nx * e->rb, "the particles", &e->x)) ||
      (st = sp_gpu_dev_alloc(d, n * e->rb, "the particles", &e->maxs)) ||
      (st = sp_gpu_dev_alloc(d, n * 8, "the particles", &e->k0)) ||
      (st = sp_gpu_dev_alloc(d, n * 8, "the particles", &e->path)) ||
      (st = sp_gpu_dev_alloc(d, n * 8, "the particles", &e->dur)) ||
      (st = sp_gpu_dev_alloc(d, n * nx * e->rb, "the paused branchings", &e->wx)) ||
      (st = sp_gpu_dev_alloc(d, n * 8, "the paused branchings", &e->wk)) ||
      (st = sp_gpu_dev_alloc(d, n * sizeof(sp_ams_task), "the branchings", &e->tasks)) ||
      (st = sp_gpu_dev_alloc(d, n * sizeof(sp_ams_task_out), "the branchings", &e->tout)) ||
      (st = sp_gpu_dev_alloc(d, 16, "the counters", &e->bad)))
    return st;
  e->done = e->bad + 8;
  if (job->ntables > 0 &&
      (st = sp_gpu_dev_alloc(d, job->ntables * sizeof(double), "the tables",
                             &e->tables)) != SP_OK)
    return st;
  /* host state */
  e->hmaxs = malloc((size_t)n * e->rb);
  e->w = malloc((size_t)N * e->rb);
  e->weight = (double *)malloc((size_t)e->nitems * sizeof(double));
  e->iters = (double *)calloc((size_t)e->nitems, sizeof(double));
  e->steps = (double *)calloc((size_t)e->nitems, sizeof(double));
  e->hdur = (double *)malloc((size_t)N * sizeof(double));
  e->branches = (uint64_t *)calloc((size_t)e->nitems, sizeof(uint64_t));
  e->surv = (uint64_t *)malloc((size_t)N * sizeof(uint64_t));
  e->killed = (uint64_t *)malloc((size_t)N * sizeof(uint64_t));
  e->parent = (uint64_t *)malloc((size_t)N * sizeof(uint64_t));
  e->status = (int *)calloc((size_t)e->nitems, sizeof(int));
  e->htasks = (sp_ams_task *)malloc((size_t)n * sizeof(sp_ams_task));
  e->hout = (sp_ams_task_out *)malloc((size_t)n * sizeof(sp_ams_task_out));
  lt = (sp_ams_long_state *)malloc((size_t)e->nitems * sizeof *lt);
  lx = (double *)malloc((size_t)e->nitems * nx * sizeof *lx);
  if (!lx || !e->hmaxs || !e->w || !e->weight || !e->iters || !e->steps || !e->hdur || !e->branches ||
      !e->surv || !e->killed || !e->parent || !e->status || !e->htasks || !e->hout || !lt) {
    free(lt);
    free(lx);
    return sp_fail(SP_ERR_NOMEM, "out of host memory (the particles of %llu replicas)",
                   (unsigned long long)e->nitems);
  }
  for (i = 0; i < e->nitems; i++) {
    sp_ams_job_long_init(job, e->item0 + i, &lt[i], lx + i * nx);
    e->weight[i] = 1.0;
  }
  st = sp_gpu_to_device(d->id, e->lt, lt, e->nitems * sizeof *lt);
  if (st == SP_OK) st = sp_gpu_to_device(d->id, e->lx, lx, e->nitems * nx * sizeof *lx);
  free(lt);
  free(lx);
  if (st != SP_OK ||
      (st = sp_gpu_to_device(d->id, e->conds, sp_ams_job_cond(job, 0), ncond * csize)) ||
      (job->ntables > 0 &&
       (st = sp_gpu_to_device(d->id, e->tables, job->tables, job->ntables * sizeof(double)))) ||
      (st = sp_gpu_memset0(d->id, e->res, e->nitems * sizeof(sp_ams_result))) ||
      (st = sp_gpu_memset32(d->id, e->bad, 0xffffffffu, 2)) ||
      (st = sp_gpu_memset32(d->id, e->wk, 0xffffffffu, (size_t)n * 2)) || /* SP_AMS_FRESH */
      (st = sp_gpu_memset0(d->id, e->done, 8)))
    return st;
  e->phase = PH_LONG;
  return SP_OK;
}

static int ams_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  ams_model *m = (ams_model *)model;
  const sp_ams_job *job = m->job;
  ams_dev *e = &m->dev[d->index];
  if (e->phase == PH_LONG) {
    sp_ams_long_kargs a;
    memset(&a, 0, sizeof a);
    a.conds = e->conds;
    a.tables = e->tables;
    a.replicas = job->replicas;
    a.replica0 = job->replica0;
    a.item0 = e->item0;
    a.nitems = e->nitems;
    a.particles = e->N;
    a.seed = job->seed;
    a.lt = e->lt;
    a.lx = e->lx;
    a.res = e->res;
    a.x = e->x;
    a.xs = e->nitems * e->N;
    a.k0 = e->k0;
    a.path = e->path;
    a.bad = e->bad;
    a.done = e->done;
    a.budget = budget;
    return sp_gpu_launch(d->id, e->klong,
                         (unsigned)((e->nitems + SP_AMS_BLOCK - 1) / SP_AMS_BLOCK),
                         SP_AMS_BLOCK, 0, d->stream, &a, "sp_ams_long_kernel");
  } else {
    sp_ams_branch_kargs a;
    int st;
    if (e->ntasks == 0) return SP_OK;
    if (e->tnext == 0 &&
        (st = sp_gpu_to_device(d->id, e->tasks, e->htasks, e->ntasks * sizeof(sp_ams_task))))
      return st;
    e->tcount = e->ntasks - e->tnext < e->tmax ? e->ntasks - e->tnext : e->tmax;
    memset(&a, 0, sizeof a);
    a.conds = e->conds;
    a.tables = e->tables;
    a.replicas = job->replicas;
    a.replica0 = job->replica0;
    a.item0 = e->item0;
    a.particles = e->N;
    a.seed = job->seed;
    a.ntasks = e->tcount; /* tasks tnext .. tnext + tcount - 1 */
    a.tasks = e->tasks + e->tnext * sizeof(sp_ams_task);
    a.out = e->tout + e->tnext * sizeof(sp_ams_task_out);
    a.x = e->x;
    a.xs = e->nitems * e->N;
    a.maxs = e->maxs;
    a.k0 = e->k0;
    a.path = e->path;
    a.dur = e->dur;
    a.bad = e->bad;
    a.wx = e->wx;
    a.wk = e->wk;
    a.budget = budget < e->tbudget ? budget : e->tbudget;
    e->t0 = sp_now();
    return sp_gpu_launch(d->id, e->kbranch,
                         (unsigned)((e->tcount + SP_AMS_BLOCK - 1) / SP_AMS_BLOCK),
                         SP_AMS_BLOCK, 0, d->stream, &a, "sp_ams_branch_kernel");
  }
}

/* Record a failure of local item i (the lowest over the devices wins). */
static void ams_failed(ams_model *m, ams_dev *e, uint64_t i, int what, int lng, uint64_t k) {
  const uint64_t g = e->item0 + i;
  if (m->fail_what != SP_AMS_OK && m->fail_item <= g) return;
  m->fail_item = g;
  m->fail_what = what;
  m->fail_long = lng;
  m->fail_k = k;
}

/* Replica i's level on the host: its tasks appended, or it finishes. */
static int ams_level(ams_model *m, ams_dev *e, uint64_t i) {
  const sp_ams_job *job = m->job;
  const uint64_t N = e->N, off = i * N, g = e->item0 + i;
  uint64_t K, j;
  double z;
  if (job->single) {
    float zf;
    K = sp_ams_level_f((const float *)e->hmaxs + off, N, job->k, job->seed, sp_ams_job_stream(job, g),
                       e->branches[i], (float *)e->w, e->surv, e->killed, e->parent, &zf);
    z = zf;
  } else {
    K = sp_ams_level_d((const double *)e->hmaxs + off, N, job->k, job->seed,
                       sp_ams_job_stream(job, g), e->branches[i], (double *)e->w, e->surv, e->killed,
                       e->parent, &z);
  }
  if (K == 0 || K == N) {
    if (K == N) e->iters[i] += 1;
    e->status[i] = K == 0 ? SP_AMS_DONE : SP_AMS_EXTINCT;
    e->finished++;
    return SP_OK;
  }
  e->iters[i] += 1;
  if (1 + N + e->branches[i] + K > SP_AMS_MAX_PATHS) {
    ams_failed(m, e, i, SP_AMS_FAIL_LIMIT, 0, 0);
    return SP_OK;
  }
  e->weight[i] *= 1.0 - (double)K / (double)N;
  for (j = 0; j < K; j++) {
    sp_ams_task *t = &e->htasks[e->ntasks++];
    t->child = off + e->killed[j];
    t->parent = off + e->parent[j];
    t->path = 1 + N + e->branches[i] + j;
    t->z = z;
  }
  e->branches[i] += K;
  return SP_OK;
}

static int ams_poll(void *model, sp_gpu_dev *d) {
  ams_model *m = (ams_model *)model;
  ams_dev *e = &m->dev[d->index];
  const uint64_t N = e->N;
  unsigned long long cnt[2];
  uint64_t i, j;
  int st;
  if ((st = sp_gpu_to_host(d->id, cnt, e->bad, 16)) != SP_OK) return st;
  if (e->phase == PH_LONG) {
    if (cnt[0] != ~0ull) { /* a long trajectory failed */
      sp_ams_result r;
      sp_ams_long_state s;
      if ((st = sp_gpu_to_host(d->id, &r, e->res + cnt[0] * sizeof r, sizeof r)) ||
          (st = sp_gpu_to_host(d->id, &s, e->lt + cnt[0] * sizeof s, sizeof s)))
        return st;
      ams_failed(m, e, cnt[0], -r.status, 1, s.k);
      return SP_OK;
    }
    if (cnt[1] < e->nitems) return SP_OK;
    /* every replica has its particles: their first runs */
    for (i = 0; i < e->nitems * N; i++) {
      e->htasks[i].child = i;
      e->htasks[i].parent = SP_AMS_NO_PARENT;
      e->htasks[i].path = 0;
      e->htasks[i].z = 0;
    }
    e->ntasks = e->nitems * N;
    e->phase = PH_RUN;
    return SP_OK;
  }
  if (e->ntasks > 0) {
    const uint64_t t0 = e->tnext, t1 = e->tnext + e->tcount;
    if (cnt[0] != ~0ull) { /* a branching failed (cnt[0]: index in the launch) */
      sp_ams_task_out o;
      if ((st = sp_gpu_to_host(d->id, &o, e->tout + (t0 + cnt[0]) * sizeof o, sizeof o)))
        return st;
      ams_failed(m, e, e->htasks[t0 + cnt[0]].child / N, (int)(o.steps & 0xff), 0, 0);
      return SP_OK;
    }
    if ((st = sp_gpu_to_host(d->id, e->hout + t0, e->tout + t0 * sizeof(sp_ams_task_out),
                             e->tcount * sizeof(sp_ams_task_out))))
      return st;
    e->tnext = t1;
    {
      const double dt = sp_now() - e->t0;
      int paused = 0;
      for (j = t0; j < t1; j++) {
        const uint64_t c = e->htasks[j].child, s = e->hout[j].steps;
        e->steps[c / N] += (double)(s & ~SP_AMS_OUT_PAUSED);
        if (s & SP_AMS_OUT_PAUSED) { /* launched again below */
          paused = 1;
          continue;
        }
        if (e->rb == sizeof(float)) ((float *)e->hmaxs)[c] = (float)e->hout[j].maxs;
        else ((double *)e->hmaxs)[c] = e->hout[j].maxs;
      }
      /* a launch whose tasks spent their steps lasted about tbudget steps:
       * aim it at the driver's round */
      if (m->job->round_steps == 0) {
        if (paused && dt < 0.5 * SP_ROUND_SECONDS && e->tbudget < ((uint64_t)1 << 34))
          e->tbudget *= 2;
        else if (dt > 2 * SP_ROUND_SECONDS && e->tbudget > 1024)
          e->tbudget /= 2;
      }
    }
    if (e->tnext < e->ntasks) { /* more tasks of this round: launched next */
      d->tail = 1;
      return SP_OK;
    }
    /* every task launched: those that spent their budget go again (in
     * order; uploaded by the next launch) */
    for (i = j = 0; j < e->ntasks; j++)
      if (e->hout[j].steps & SP_AMS_OUT_PAUSED) e->htasks[i++] = e->htasks[j];
    if (i > 0) {
      e->ntasks = i;
      e->tnext = e->tcount = 0;
      d->tail = 1;
      return SP_OK;
    }
  }
  e->ntasks = e->tnext = e->tcount = 0;
  for (i = 0; i < e->nitems; i++)
    if (e->status[i] == 0 && (st = ams_level(m, e, i)) != SP_OK) return st;
  d->done = (double)e->finished;
  d->idle = e->finished == e->nitems;
  d->tail = 1;
  return SP_OK;
}

static int ams_check(void *model) {
  ams_model *m = (ams_model *)model;
  if (m->fail_what == SP_AMS_OK) return SP_OK;
  return sp_ams_fail(m->job, m->fail_item, m->fail_what, m->fail_long, m->fail_k);
}

static int ams_collect(void *model, sp_gpu_dev *d, int interrupted) {
  ams_model *m = (ams_model *)model;
  ams_dev *e = &m->dev[d->index];
  const sp_ams_job *job = m->job;
  const uint64_t N = e->N;
  uint64_t i;
  int st = SP_OK;
  (void)interrupted;
  if (e->nitems == 0) return SP_OK;
  st = sp_gpu_to_host(d->id, m->out + e->item0, e->res, e->nitems * sizeof(sp_ams_result));
  for (i = 0; st == SP_OK && i < e->nitems; i++) {
    sp_ams_result *r = &m->out[e->item0 + i];
    r->steps += e->steps[i];
    r->iterations = e->iters[i];
    r->branches = (double)e->branches[i];
    r->status = SP_AMS_UNFINISHED;
    if (e->status[i] == 0) continue;
    st = sp_gpu_to_host(d->id, e->hdur, e->dur + i * N * sizeof(double), N * sizeof(double));
    if (st != SP_OK) break;
    if (job->single)
      sp_ams_finish_f((const float *)e->hmaxs + i * N, e->hdur, N, e->weight[i],
                      e->branches[i], e->status[i], r);
    else
      sp_ams_finish_d((const double *)e->hmaxs + i * N, e->hdur, N, e->weight[i],
                      e->branches[i], e->status[i], r);
  }
  return st;
}

int sp_gpu_ams(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  const sp_ams_job *job = (const sp_ams_job *)vjob;
  sp_ams_result *out = ((sp_ams_out *)vout)->rep;
  ams_model m;
  sp_gpu_engine e;
  int st, i;
  memset(&m, 0, sizeof m);
  m.key = key;
  m.job = job;
  m.out = out;
  m.total = (uint64_t)job->ncond * job->replicas;
  m.fail_what = SP_AMS_OK;
  if (m.total == 0 || ndev < 1) return SP_OK;
  m.per_dev = (m.total + (uint64_t)ndev - 1) / (uint64_t)ndev;
  memset(&e, 0, sizeof e);
  e.state_size = 0; /* the model holds the devices' states (m.dev) */
  e.total = (double)m.total;
  e.budget0 = 4096;
  e.budget_max = 1u << 30;
  if (job->round_steps > 0)
    e.budget0 = e.budget_max = (unsigned)(job->round_steps < (1u << 30) ? job->round_steps
                                                                        : (1u << 30));
  e.tail_factor = 0;
  e.setup = ams_setup;
  e.launch = ams_launch;
  e.poll = ams_poll;
  e.check = ams_check;
  e.collect = ams_collect;
  m.dev = (ams_dev *)calloc((size_t)ndev, sizeof *m.dev);
  if (m.dev == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  for (i = 0; i < ndev; i++) ams_free_host(&m.dev[i]);
  free(m.dev);
  return st;
}
