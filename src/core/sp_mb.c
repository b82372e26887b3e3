/* sp_mb.c: the CPU engine of a many-body user model under the round driver
 * (sp_run.h), and what the GPU host shares (parameters, streams, the
 * non-finite message).
 *
 * Every system of the call advances through the round's steps (the systems
 * of a round side by side on the threads, each system by one thread), to
 * each record step in turn: there its observables (and, for the kept
 * systems, its states) are written.  Passage: a system stops at its event
 * (checked after every step); the others run to the end.  A system's
 * numbers depend only on its stream, so the result does not depend on the
 * threads or the rounds. */
#include "sp_mb.h"
#include "sp_mb_recipe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_threads.h"
#include "sp_streams.h"

#ifdef _OPENMP
#  include <omp.h>
#endif

#ifndef M_PI
#  define M_PI 3.14159265358979323846
#endif

const double *sp_mb_par(const sp_mb_args *a, uint64_t s) {
  return a->par + s / a->job.replicas * (uint64_t)a->job.np;
}

const double *sp_mb_ep(const sp_mb_args *a, uint64_t s) {
  const uint64_t per = (uint64_t)a->job.ne * a->job.n;
  if (a->job.ne == 0) return a->epar;
  return a->epar + (a->job.epar_shared ? 0 : s * per);
}

sp_mb_ext sp_mb_ext_of(const sp_mb_args *a, const sp_mb_out *o, uint64_t s) {
  sp_mb_ext e;
  e.rowptr = a->job.nnz > 0 ? (const int32_t *)a->rowptr : NULL;
  e.col = a->job.nnz > 0 ? (const int32_t *)a->col : NULL;
  e.w = a->job.nnz > 0 && !a->job.graph_unit ? a->gw : NULL;
  e.rdf = o != NULL && o->rdf != NULL ? o->rdf + s * (uint64_t)a->job.rdf_bins : NULL;
  e.keep = NULL;
  e.team = NULL;
  e.nth = 1;
  return e;
}

/* sp_mb_ext's team: fn(ctx, me, nth) on nth threads (called outside any
 * parallel region: the engine's loop over systems runs alone when it gives
 * one system the threads), counted for the tests. */
static double mb_team_count = 0;

double sp_mb_team_runs(void) { return mb_team_count; }

static void mb_team(void (*fn)(void *, int, int), void *ctx, int nth) {
#ifdef _OPENMP
  if (nth > 1) {
    mb_team_count += 1;
#  pragma omp parallel num_threads(nth)
    fn(ctx, omp_get_thread_num(), omp_get_num_threads());
    return;
  }
#endif
  fn(ctx, 0, 1);
}

uint64_t sp_mb_stream(const sp_mb_job *job, uint64_t s) {
  return (s / job->replicas << 40) + job->replica0 + s % job->replicas;
}

int sp_mb_not_finite(const sp_mb_args *a, uint64_t s, uint64_t k, uint64_t what) {
  const sp_mb_job *job = &a->job;
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the state turned non-finite: `%s` of element %llu of replica %llu (condition "
                 "%llu) is NaN or infinite at t = %.6g (step %llu); the model's dynamics "
                 "diverge there: use a smaller `dt`, %sor check the model",
                 a->names[what & 0xff], (unsigned long long)((what >> 8) + 1),
                 (unsigned long long)(job->replica0 + s % job->replicas + 1),
                 (unsigned long long)(s / job->replicas + 1), job->t0 + (double)k * job->dt,
                 (unsigned long long)(job->k0 + k),
                 job->single ? "precision = \"double\", " : "");
}

typedef struct {
  const sp_mb_args *a;
  sp_mb_out *out;
  double *work; /* per thread */
  uint64_t wsize, k, rec; /* step reached (fixed-length), next record */
  uint64_t *ks;           /* passage: each system's step */
  int64_t bad;            /* the lowest failing system (sp_team_fail), -1 none */
  uint64_t *badkw;        /* per system: its failing step, what */
  sp_mb_keep **keep;      /* per system: what its advances keep (NULL: none kept) */
  int inner;              /* threads of one system's passes (sp_mb_ext's team): all of
                             them for a call of one system, whose loop over systems then
                             runs alone; else 1 (the systems side by side) */
} sp_mb_engine;

/* Systems of at most this many elements in all keep their Verlet lists
 * (mb_cpu.h: about 350 bytes an element in a dense liquid) from one round
 * to the next; more rebuild them at each round's first step. */
#define MB_KEEP_MAX_ELEMENTS ((uint64_t)1 << 20)

/* Record j of system s: its observables, and its states if kept. */
static void mb_record(sp_mb_engine *m, uint64_t s, uint64_t j, double *work) {
  const sp_mb_args *a = m->a;
  const sp_mb_job *job = &a->job;
  const uint64_t size = (uint64_t)job->nx * job->n;
  double *x = m->out->x + s * size;
  sp_mb_ext ext = sp_mb_ext_of(a, m->out, s);
  ext.team = mb_team;
  ext.nth = m->inner;
  if (job->no > 0 || ext.rdf != NULL)
    SP_MB_OBSERVE(a)(job, &ext, sp_mb_par(a, s), sp_mb_ep(a, s), sp_mb_record_step(job, j), x,
                     work, job->no > 0 ? m->out->rec + (s * job->nrec + j) * (uint64_t)job->no
                                       : NULL);
  if (m->out->traj != NULL && s < job->keep)
    memcpy(m->out->traj + (s * job->nrec + j) * size, x, (size_t)size * sizeof(double));
  if (m->out->hist != NULL && job->hist_bins > 0) { /* the state's histogram */
    double *h = m->out->hist + (s * job->nrec + j) * (uint64_t)job->hist_bins;
    const double *v = x + (uint64_t)job->hist_state * job->n;
    uint64_t i;
    for (i = 0; i < job->n; i++) h[sp_mb_hist_bin(v[i], job->hist_bins)] += 1;
  }
}

/* Fixed length: system s through records rec0 .. rec0 + nr - 1 to kend. */
static void mb_fixed_system(sp_mb_engine *m, uint64_t s, uint64_t kend, uint64_t rec0,
                            uint64_t nr, double *work) {
  const sp_mb_args *a = m->a;
  const sp_mb_job *job = &a->job;
  double *x = m->out->x + s * (uint64_t)job->nx * job->n;
  uint64_t k = m->k, j;
  for (j = 0; j <= nr; j++) {
    const uint64_t ke = j < nr ? sp_mb_record_step(job, rec0 + j) : kend;
    if (ke > k) {
      uint64_t what = 0;
      sp_mb_ext ext = sp_mb_ext_of(a, NULL, s);
      int st;
      ext.keep = m->keep != NULL ? &m->keep[s] : NULL;
      ext.team = mb_team;
      ext.nth = m->inner;
      st = SP_MB_ADVANCE(a)(job, &ext, sp_mb_par(a, s), sp_mb_ep(a, s), a->seed,
                                sp_mb_stream(job, s), x, work, &k, ke, &what);
      if (st == SP_MB_NONFINITE) {
        m->badkw[2 * s] = k;
        m->badkw[2 * s + 1] = what;
        sp_team_fail(&m->bad, (int64_t)s);
        return;
      }
    }
    if (j < nr) mb_record(m, s, rec0 + j, work);
  }
}

#define MB_ROUND_RECORDS 32

static int mb_fixed_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  sp_mb_engine *m = (sp_mb_engine *)model;
  const sp_mb_job *job = &m->a->job;
  const uint64_t sys = SP_MB_SYSTEMS(job);
  uint64_t kend = job->kmax - m->k < budget ? job->kmax : m->k + budget, nr = 0;
  int64_t s;
  while (m->rec + nr < job->nrec && sp_mb_record_step(job, m->rec + nr) <= kend &&
         nr < MB_ROUND_RECORDS)
    nr++;
  if (nr == MB_ROUND_RECORDS) kend = sp_mb_record_step(job, m->rec + nr - 1);
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (m->inner == 1)
#endif
  for (s = 0; s < (int64_t)sys; s++) {
    int me = 0;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    if (m->bad >= 0) continue;
    mb_fixed_system(m, (uint64_t)s, kend, m->rec, nr, m->work + (size_t)me * m->wsize);
  }
  (void)nth;
  if (m->bad >= 0)
    return sp_mb_not_finite(m->a, (uint64_t)m->bad, m->badkw[2 * m->bad],
                            m->badkw[2 * m->bad + 1]);
  m->out->useful += (kend - m->k) * sys;
  m->k = kend;
  m->rec += nr;
  m->out->rec_done = m->rec;
  for (s = 0; s < (int64_t)sys; s++) m->out->steps[s] = (double)m->k;
  st->done = (double)m->k;
  st->finished = m->rec >= job->nrec;
  return SP_OK;
}

static int mb_passage_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  sp_mb_engine *m = (sp_mb_engine *)model;
  const sp_mb_args *a = m->a;
  const sp_mb_job *job = &a->job;
  const uint64_t sys = SP_MB_SYSTEMS(job);
  uint64_t left = 0;
  int64_t s;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (m->inner == 1)
#endif
  for (s = 0; s < (int64_t)sys; s++) {
    int me = 0, r;
    uint64_t k, kend, what = 0;
    sp_mb_ext ext;
    double *x = m->out->x + (uint64_t)s * (uint64_t)job->nx * job->n;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    if (m->bad >= 0 || m->out->status[s] != SP_MB_UNSTARTED) continue;
    k = m->ks[s];
    kend = job->kmax - k < budget ? job->kmax : k + budget;
    ext = sp_mb_ext_of(a, NULL, (uint64_t)s);
    ext.keep = m->keep != NULL ? &m->keep[s] : NULL;
    ext.team = mb_team;
    ext.nth = m->inner;
    r = SP_MB_ADVANCE(a)(job, &ext, sp_mb_par(a, (uint64_t)s), sp_mb_ep(a, (uint64_t)s), a->seed,
                         sp_mb_stream(job, (uint64_t)s), x, m->work + (size_t)me * m->wsize, &k,
                         kend, &what);
    m->ks[s] = k;
    m->out->steps[s] = (double)k;
    if (r == SP_MB_NONFINITE) {
      m->badkw[2 * s] = k;
      m->badkw[2 * s + 1] = what;
      sp_team_fail(&m->bad, s);
    } else if (r == SP_MB_STOPPED) {
      m->out->status[s] = SP_MB_ESCAPED;
      m->out->value[s] = (double)k * job->dt;
    } else if (k >= job->kmax) {
      m->out->status[s] = SP_MB_CENSORED;
      m->out->value[s] = (double)job->kmax * job->dt;
    }
  }
  (void)nth;
  if (m->bad >= 0)
    return sp_mb_not_finite(a, (uint64_t)m->bad, m->badkw[2 * m->bad], m->badkw[2 * m->bad + 1]);
  m->out->finished = 0;
  m->out->useful = 0;
  for (s = 0; s < (int64_t)sys; s++) {
    m->out->useful += m->ks[s];
    if (m->out->status[s] == SP_MB_UNSTARTED) left++;
    else m->out->finished++;
  }
  st->done = (double)m->out->finished;
  st->finished = left == 0;
  return SP_OK;
}

static void mb_passage_collect(void *model, int interrupted) {
  sp_mb_engine *m = (sp_mb_engine *)model;
  const sp_mb_job *job = &m->a->job;
  uint64_t s;
  if (!interrupted) return;
  for (s = 0; s < SP_MB_SYSTEMS(job); s++) {
    if (m->out->status[s] != SP_MB_UNSTARTED) continue;
    m->out->status[s] = SP_MB_PARTIAL;
    m->out->value[s] = (double)m->ks[s] * job->dt;
  }
}

int sp_mb_cpu(const void *job_, void *out_, int nth, const sp_hooks *hooks, sp_run_info *info) {
  const sp_mb_args *a = (const sp_mb_args *)job_;
  const sp_mb_job *job = &a->job;
  sp_mb_engine m;
  sp_cpu_engine e;
  const int nt = nth > 0 ? nth : 1;
  const uint64_t sys = SP_MB_SYSTEMS(job);
  int st;
  if (a->advance == NULL || a->observe == NULL)
    return sp_fail(SP_ERR_INVALID, "internal error: the model's CPU entries are missing");
  memset(&m, 0, sizeof m);
  m.a = a;
  m.out = (sp_mb_out *)out_;
  m.bad = -1;
  m.inner = sys == 1 ? nt : 1;
  m.wsize = sp_mb_work_size(job);
  m.work = (double *)malloc((size_t)nt * (size_t)m.wsize * sizeof(double));
  m.badkw = (uint64_t *)calloc((size_t)sys * 2, sizeof(uint64_t));
  m.ks = (uint64_t *)calloc((size_t)sys, sizeof(uint64_t));
  if (m.work == NULL || m.badkw == NULL || m.ks == NULL) {
    free(m.work);
    free(m.badkw);
    free(m.ks);
    return sp_fail(SP_ERR_NOMEM, "out of host memory (%.3g GB of work arrays)",
                   (double)nt * (double)m.wsize * 8 / 1e9);
  }
  /* starts drawn from recipes (sp_mb_recipe.c) */
  if (job->x0_cond == SP_MB_X0_RECIPES && (st = sp_mb_recipes_draw(a, m.out, nt)) != SP_OK) {
    free(m.work);
    free(m.badkw);
    free(m.ks);
    return st;
  }
  if (job->output == SP_MB_OUT_PASSAGE) {
    e.total = (double)sys;
    e.budget0 = 16;
    e.round = mb_passage_round;
    e.collect = mb_passage_collect;
  } else {
    e.total = (double)job->kmax;
    e.budget0 = 4;
    e.round = mb_fixed_round;
    e.collect = NULL;
    /* record 0, the start */
    {
      int64_t s;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (m.inner == 1)
#endif
      for (s = 0; s < (int64_t)sys; s++) {
        int me = 0;
#ifdef _OPENMP
        me = omp_get_thread_num();
#endif
        mb_record(&m, (uint64_t)s, 0, m.work + (size_t)me * m.wsize);
      }
      m.rec = 1;
      m.out->rec_done = 1;
    }
  }
  e.budget_max = (uint64_t)1 << 40;
  /* Verlet lists kept from round to round (a cut-off model's dynamics) */
  if (job->posd > 0 && job->cut && job->n * sys <= MB_KEEP_MAX_ELEMENTS)
    m.keep = (sp_mb_keep **)calloc((size_t)sys, sizeof(sp_mb_keep *));
  st = job->output != SP_MB_OUT_PASSAGE && m.rec >= job->nrec ? SP_OK
                                                              : sp_cpu_run(&e, &m, nth, hooks, info);
  if (m.keep != NULL) {
    uint64_t s;
    for (s = 0; s < sys; s++)
      if (m.keep[s] != NULL) m.keep[s]->release(m.keep[s]);
    free(m.keep);
  }
  free(m.work);
  free(m.badkw);
  free(m.ks);
  return st;
}

/* Draw site block `block` of `stream` under `purpose`: kind 0 a uniform on
 * (0, 1) (53 bits of words x, y), 1 a standard normal (Box-Muller on the
 * uniforms of (x, y) and (z, w)), 2 a standard Cauchy (tan(pi (u - 1/2))). */
static double mb_draw1(uint64_t key, uint32_t purpose, uint64_t stream, uint64_t block, int kind) {
  const sp_u32x4 b = sp_philox_purpose_block(key, purpose, stream, block);
  const double u1 = ((double)((uint64_t)b.x << 21 | b.y >> 11) + 0.5) * 0x1p-53;
  if (kind == 0) return u1;
  if (kind == 1) {
    const double u2 = ((double)((uint64_t)b.z << 21 | b.w >> 11) + 0.5) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
  }
  return tan(M_PI * (u1 - 0.5));
}

void sp_mb_draws(uint64_t key, uint32_t purpose, uint64_t cond, const double *reps, uint64_t nr,
                 uint64_t n, uint64_t D, uint64_t d, int kind, double *out, int nth) {
  const int64_t total = (int64_t)(nr * n);
  int64_t t;
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (total > 65536)
#endif
  for (t = 0; t < total; t++) {
    const uint64_t r = (uint64_t)t / n, i = (uint64_t)t - r * n;
    out[t] = mb_draw1(key, purpose, sp_stream_replica(cond, (uint64_t)reps[r]), i * D + d, kind);
  }
}

/* The starts of every system from their laws (job.x0_cond 2: x0 holds, per
 * condition and state, a kind -- -1 a constant a, else the draw kind of
 * sp_mb_draws -- and a, b): state v of element i of a system takes a (a
 * constant), a + (b - a) u, a + b z or a + b c -- R's arithmetic on the
 * numbers R would draw (sde_mb_eval()): draw site d of D an element, d the
 * state's place among the drawn ones. */
static void mb_draw_starts(const sp_mb_args *a, double *x) {
  const sp_mb_job *j = &a->job;
  const uint64_t sys = SP_MB_SYSTEMS(j), n = j->n, nx = (uint64_t)j->nx;
  const int64_t total = (int64_t)(sys * n);
  uint64_t D = 0, v;
  int64_t t;
  for (v = 0; v < nx; v++)
    if (a->x0[3 * v] >= 0) D++;
  if (D == 0) D = 1;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(sp_threads_get()) schedule(static) if (total > 65536)
#endif
  for (t = 0; t < total; t++) {
    const uint64_t s = (uint64_t)t / n, i = (uint64_t)t - s * n, c = s / j->replicas;
    const uint64_t stream = sp_stream_replica(c, j->replica0 + s % j->replicas);
    uint64_t d = 0, w;
    for (w = 0; w < nx; w++) {
      const double *k = a->x0 + 3 * (c * nx + w);
      double val = k[1];
      if (k[0] >= 0) {
        const int kind = (int)k[0] % SP_MB_LAW_WRAP;
        const double z = mb_draw1(a->seed, SP_PURPOSE_SDE_INIT, stream, i * D + d, kind);
        val = kind == 0 ? k[1] + (k[2] - k[1]) * z : k[1] + k[2] * z;
        if (k[0] >= SP_MB_LAW_WRAP) val = sp_mb_wrap_angle(val);
        d++;
      }
      x[(s * nx + w) * n + i] = val;
    }
  }
}

/* The starts' positions wrapped into the box [0, L) of their condition:
 * y = v - L floor(v / L), and 0 where rounding leaves y outside -- the
 * numbers R's arithmetic gives; positions in the box (a continued run's)
 * stay as they are. */
static void mb_wrap_starts(const sp_mb_args *a, double *x) {
  const sp_mb_job *j = &a->job;
  const uint64_t sys = SP_MB_SYSTEMS(j), n = j->n, nx = (uint64_t)j->nx;
  const int64_t total = (int64_t)sys;
  int64_t s;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(sp_threads_get()) schedule(static) if (sys * n > 65536)
#endif
  for (s = 0; s < total; s++) {
    const double *par = sp_mb_par(a, (uint64_t)s);
    int d;
    for (d = 0; d < (int)j->posd; d++) {
      const double L = par[j->box + d];
      double *p = x + ((uint64_t)s * nx + (uint64_t)j->px[d]) * n;
      uint64_t i;
      for (i = 0; i < n; i++) {
        const double v = p[i];
        double y;
        if (v >= 0 && v < L) continue;
        y = v - L * floor(v / L);
        p[i] = y >= L || y < 0 ? 0 : y;
      }
    }
  }
}

int sp_mb_prepare(void *job_) {
  const sp_mb_args *a = (const sp_mb_args *)job_;
  const sp_mb_job *j = &a->job;
  const uint64_t sys = SP_MB_SYSTEMS(j), per = (uint64_t)j->nx * j->n;
  if (j->nx < 1 || j->nx > 255 || j->np < 1 || j->ne < 0 || j->no < 0 || j->n < 1 ||
      j->replicas < 1 || j->method < 0 || j->method > 4 || j->keep > j->replicas * j->ncond)
    return sp_fail(SP_ERR_INVALID, "internal error: many-body job sizes");
  if (a->npar != j->ncond * (uint64_t)j->np || a->nnames != (uint64_t)(j->nx + j->no) ||
      a->nepar != (uint64_t)j->ne * j->n * (j->epar_shared ? 1 : sys) ||
      a->nx0 != (j->x0_cond == 2   ? j->ncond * (uint64_t)j->nx * 3
                 : j->x0_cond == 1 ? j->ncond * (uint64_t)j->nx
                 : j->x0_cond == 3 ? j->ncond * per
                 : j->x0_cond == SP_MB_X0_RECIPES ? sys * SP_MB_RECIPE_LEN
                                   : sys * per))
    return sp_fail(SP_ERR_INVALID, "internal error: many-body job lengths disagree");
  if (j->x0_cond == SP_MB_X0_RECIPES) {
    const int st = sp_mb_recipes_check(a);
    if (st != SP_OK) return st;
  }
  if (j->nq != j->nqp + j->ng || j->nqp < 0 || j->ng < 0 || j->nqo < 0 || j->posd < 0 ||
      j->posd > 3 || (j->output == SP_MB_OUT_RDF && (j->rdf_bins < 1 || !(j->rdf_rmax > 0))) ||
      j->hist_bins < 0 || (j->hist_bins > 0 && (j->hist_state < 0 || j->hist_state >= j->nx ||
                                                j->output == SP_MB_OUT_PASSAGE ||
                                                j->output == SP_MB_OUT_RDF)))
    return sp_fail(SP_ERR_INVALID, "internal error: many-body job sizes (pairs, edges, box)");
  if (j->ng > 0 && (j->nnz < 0 || a->nrowptr != j->n + 1 || a->ncol != (uint64_t)j->nnz ||
                    a->ngw != (j->graph_unit ? 0 : (uint64_t)j->nnz)))
    return sp_fail(SP_ERR_INVALID, "internal error: the graph's lengths disagree");
  if (j->ng > 0) {
    uint64_t i;
    if (a->rowptr[0] != 0 || (uint64_t)a->rowptr[j->n] != (uint64_t)j->nnz)
      return sp_fail(SP_ERR_INVALID, "internal error: the graph's row offsets");
    for (i = 0; i < j->n; i++)
      if (a->rowptr[i + 1] < a->rowptr[i])
        return sp_fail(SP_ERR_INVALID, "internal error: the graph's row offsets");
    for (i = 0; i < (uint64_t)j->nnz; i++)
      if (a->col[i] < 0 || (uint64_t)a->col[i] >= j->n)
        return sp_fail(SP_ERR_INVALID, "internal error: the graph's neighbours");
  }
  return SP_OK;
}

/* NaN into x[0 .. len), on the package's threads where it is long (the
 * records and kept states not reached). */
static void mb_fill_nan(double *x, uint64_t len) {
  const int64_t np = (int64_t)((len + 65535) / 65536);
  int64_t p;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(sp_threads_get()) schedule(static) if (np > 1)
#endif
  for (p = 0; p < np; p++) {
    const uint64_t i0 = (uint64_t)p * 65536, i1 = i0 + 65536 < len ? i0 + 65536 : len;
    uint64_t i;
    for (i = i0; i < i1; i++) x[i] = NAN;
  }
}

/* Values per (field, condition) as the engine's array (R/sde-mb-run.R,
 * sde_mb_stack): src[w ncond + c] the len[w ncond + c] values of field w
 * and condition c (n values per replica, a replica's elements
 * consecutive; L values recycled over the condition's n x nrep: L 1, n or
 * n nrep), into y: systems (condition-major, nrep a condition) x fields x
 * n, each number written once, in pieces of 65,536 elements on nth
 * threads (fresh memory: its page faults shared out). */
void sp_mb_stack(double *y, const double *const *src, const uint64_t *len, uint64_t n,
                 uint64_t nv, uint64_t nrep, uint64_t ncond, int nth) {
  const uint64_t per = n * nv, total = per * nrep * ncond;
  const uint64_t piece = 65536, npiece = (n + piece - 1) / piece;
  const int64_t nt = (int64_t)(nrep * ncond * nv * npiece);
  int64_t t;
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (total > 65536)
#endif
  for (t = 0; t < nt; t++) {
    const uint64_t q = (uint64_t)t % npiece, fv = (uint64_t)t / npiece;
    const uint64_t w = fv % nv, s = fv / nv, r = s % nrep, cc = s / nrep;
    const double *x = src[w * ncond + cc];
    const uint64_t L = len[w * ncond + cc];
    const uint64_t i0 = q * piece, i1 = i0 + piece < n ? i0 + piece : n;
    const uint64_t off = r * n; /* the element's place in its condition's values */
    double *d = y + s * per + w * n;
    uint64_t i;
    if (L == 1) {
      for (i = i0; i < i1; i++) d[i] = x[0];
    } else if (L == n * nrep) {
      memcpy(d + i0, x + off + i0, (size_t)(i1 - i0) * sizeof(double));
    } else if (L == n) {
      memcpy(d + i0, x + i0, (size_t)(i1 - i0) * sizeof(double));
    } else {
      for (i = i0; i < i1; i++) d[i] = x[(off + i) % L];
    }
  }
}

void sp_mb_out_init(const void *job_, void *out_) {
  const sp_mb_args *a = (const sp_mb_args *)job_;
  const sp_mb_job *j = &a->job;
  sp_mb_out *o = (sp_mb_out *)out_;
  const uint64_t sys = SP_MB_SYSTEMS(j), per = (uint64_t)j->nx * j->n;
  uint64_t s;
  if (o->x != NULL && j->x0_cond == 2) {
    /* on the GPU the device draws them (mb.cu, sp_mb_start_kernel) when the
     * engine runs at all */
    if (!(j->gpu_plan & SP_MB_PLAN_GPU) || (j->output != SP_MB_OUT_PASSAGE && j->kmax == 0))
      mb_draw_starts(a, o->x);
  } else if (o->x != NULL && j->x0_cond != SP_MB_X0_RECIPES) { /* (recipes: the engine draws) */
    /* the states' vector is fresh memory (R's): its first writes, and their
     * page faults, on the package's threads (10,000 systems of 256 x 6, 123
     * MB: one thread took 0.1-0.4 s) */
    const int nth = sp_threads_get();
    if (!j->x0_cond || (j->x0_cond == 3 && sys == j->ncond)) { /* the start as it is */
      sp_threads_copy(o->x, a->x0, sys * per * sizeof(double), nth);
    } else if (j->x0_cond == 3 && sys < (uint64_t)nth) { /* a few large systems */
      for (s = 0; s < sys; s++)
        sp_threads_copy(o->x + s * per, a->x0 + (s / j->replicas) * per, per * sizeof(double),
                        nth);
    } else if (j->x0_cond == 3) { /* a start per condition, many systems */
      const int64_t ns = (int64_t)sys;
      int64_t t;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (sys * per > 65536)
#endif
      for (t = 0; t < ns; t++)
        memcpy(o->x + (uint64_t)t * per, a->x0 + ((uint64_t)t / j->replicas) * per,
               (size_t)per * sizeof(double));
    } else { /* one number per condition and state: pieces of 65,536 elements */
      const uint64_t np = (j->n + 65535) / 65536;
      const int64_t nt = (int64_t)(sys * (uint64_t)j->nx * np);
      int64_t t;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (sys * per > 65536)
#endif
      for (t = 0; t < nt; t++) {
        const uint64_t q = (uint64_t)t % np, sv = (uint64_t)t / np;
        const uint64_t w = sv % (uint64_t)j->nx, sy = sv / (uint64_t)j->nx;
        const uint64_t e0 = q * 65536, e1 = e0 + 65536 < j->n ? e0 + 65536 : j->n;
        const double val = a->x0[(sy / j->replicas) * (uint64_t)j->nx + w];
        double *d = o->x + sy * per + w * j->n;
        uint64_t e;
        for (e = e0; e < e1; e++) d[e] = val;
      }
    }
    if (j->posd > 0) mb_wrap_starts(a, o->x);
  }
  if (o->rec != NULL) mb_fill_nan(o->rec, sys * j->nrec * (uint64_t)j->no);
  if (o->traj != NULL) mb_fill_nan(o->traj, j->keep * j->nrec * per);
  if (o->status != NULL)
    for (s = 0; s < sys; s++) o->status[s] = SP_MB_UNSTARTED;
  if (o->value != NULL)
    for (s = 0; s < sys; s++) o->value[s] = 0;
  if (o->steps != NULL)
    for (s = 0; s < sys; s++) o->steps[s] = 0;
  if (o->rdf != NULL)
    for (s = 0; s < sys * (uint64_t)j->rdf_bins; s++) o->rdf[s] = 0;
  if (o->hist != NULL)
    for (s = 0; s < sys * j->nrec * (uint64_t)j->hist_bins; s++) o->hist[s] = 0;
}
