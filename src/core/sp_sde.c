/* sp_sde.c: the CPU engine of a user's SDE model under the round driver
 * (sp_run.h), and what the GPU host shares (starts, histograms, the tile
 * reduction, the non-finite message).
 *
 * passage: a lane per thread takes paths from a shared counter, advances
 *   its path by the round's budget through the model's compiled entry (one
 *   call per path per round), writes the passage time or the censoring;
 * moments, histogram, trajectories: every path of the call advances to the
 *   next record step (rounds cut long segments); at a record, each tile of
 *   SP_SDE_TILE consecutive replicas of a condition is reduced to (n, mean,
 *   M2) by one thread in replica order and the tiles are combined in order,
 *   so the result does not depend on the threads. */
#include "sp_sde.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_threads.h"

#ifdef _OPENMP
#  include <omp.h>
#endif

void sp_sde_start(const sp_sde_args *a, uint64_t p, double *x) {
  const sp_sde_job *job = &a->job;
  uint64_t c = p / job->n, r = p % job->n;
  int64_t i;
  for (i = 0; i < job->nx; i++) {
    const int iv = a->init_vec[i];
    x[i] = iv >= SP_SDE_PER_PATH
               ? a->init_vals[(uint64_t)(iv - SP_SDE_PER_PATH) * job->ncond * job->n + p]
           : iv >= 0 ? a->init_vals[(uint64_t)iv * job->n + r]
                     : a->init[c * (uint64_t)job->nx + (uint64_t)i];
  }
  x[job->nx] = 0; /* the run of coarse steps (SP_SDE_XS) */
}

int64_t sp_sde_hist_cells(const sp_sde_args *a, int64_t h) {
  /* breaks m_h give m_h - 1 bins, plus below and above: m_h + 1 cells */
  return (int64_t)a->hist_off[h] + h; /* offset of histogram h: sum of (m + 1) before it */
}

int64_t sp_sde_hist_cell(const sp_sde_args *a, int64_t h, double v) {
  const int64_t o0 = (int64_t)a->hist_off[h], o1 = (int64_t)a->hist_off[h + 1];
  return sp_sde_cell(a->breaks + o0, o1 - o0, v);
}

void sp_sde_tiles_combine(const sp_sde_job *job, const double *tiles, uint64_t tpc,
                          uint64_t rec, sp_sde_out *out) {
  const int64_t nvar = SP_SDE_NVAR(job);
  uint64_t c, t;
  int64_t v;
  for (c = 0; c < job->ncond; c++) {
    for (v = 0; v < nvar; v++) {
      double n = 0, mean = 0, m2 = 0;
      for (t = 0; t < tpc; t++) {
        const double *s = tiles + ((c * tpc + t) * (uint64_t)nvar + (uint64_t)v) * 3;
        sp_sde_merge(&n, &mean, &m2, s[0], s[1], s[2]);
      }
      {
        uint64_t o = (c * job->nrec + rec) * (uint64_t)nvar + (uint64_t)v;
        out->mom_n[o] = n;
        out->mom_mean[o] = mean;
        out->mom_m2[o] = m2;
      }
    }
  }
}

int sp_sde_not_finite(const sp_sde_args *a, uint64_t p, uint64_t k, int what) {
  const sp_sde_job *job = &a->job;
  uint64_t c = p / job->n, r = p % job->n;
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the state turned non-finite: `%s` of replica %llu (condition %llu) is NaN or "
                 "infinite at t = %.6g (step %llu); the model's dynamics diverge there: use a "
                 "smaller `dt`, %sor check the model",
                 a->names[what], (unsigned long long)(job->replica0 + r + 1),
                 (unsigned long long)(c + 1), (double)k * job->dt, (unsigned long long)k,
                 job->single ? "precision = \"double\", " : "");
}

int sp_sde_stalled(const sp_sde_args *a, uint64_t p, uint64_t k, int what) {
  const sp_sde_job *job = &a->job;
  uint64_t c = p / job->n, r = p % job->n;
  return sp_fail(SP_ERR_RESOLUTION,
                 "the state stopped resolving its increments: `%s` of replica %llu (condition "
                 "%llu) took increments smaller than 2^-%d of its value (fewer than 5 of its "
                 "%d bits, or none) in each of the %u steps up to t = %.6g (step %llu), with "
                 "no fixed point of the drift near, so that its path is rounded, or stalls, in "
                 "%s precision; %s",
                 a->names[what], (unsigned long long)(job->replica0 + r + 1),
                 (unsigned long long)(c + 1), job->single ? 19 : 48, job->single ? 24 : 53,
                 (unsigned)SP_SDE_STALL_STEPS_C, (double)k * job->dt, (unsigned long long)k,
                 job->single ? "single" : "double",
                 job->single ? "use precision = \"double\", or measure the state from a "
                               "nearer origin (shift or rescale it)"
                             : "measure the state from a nearer origin (shift or rescale "
                               "it), or take a larger `dt`");
}

int sp_sde_path_failed(const sp_sde_args *a, uint64_t p, uint64_t k, int what, int stalled) {
  return stalled ? sp_sde_stalled(a, p, k, what) : sp_sde_not_finite(a, p, k, what);
}

/* ---- passage --------------------------------------------------------------- */

/* A batch: SP_SDE_W lanes that the model's vector loop advances together
 * (sp_sde_lanes_fn); a lane whose path ends takes the next path from the
 * shared counter, so lanes never wait for a slow path of their batch. */
typedef struct {
  int64_t pid[SP_SDE_W]; /* the call's path q (outputs); -1 waiting, -2 none left */
  uint64_t kstart[SP_SDE_W]; /* the step its path started from in this call */
  sp_sde_lanes L;        /* the lanes' paths: their records, steps, streams */
} sde_batch;

typedef struct {
  const sp_sde_args *a;
  sp_sde_out *out;
  sde_batch *B;
  double *x; /* nb x SP_SDE_W x SP_SDE_XS(nx): the states and the run of coarse steps */
  int nb;
  uint64_t total, next;
  int64_t bad; /* the lowest path found non-finite (sp_team_fail), -1: none; its
                  step in out->value, its state in out->status >> 8 */
} sde_passage;

/* The row of path q not stopped (job->hold; SP_SDE_HS): step k, stop_t
 * (NaN, or the time of a stop past t_max), its record x. */
static void sde_hold(sde_passage *m, int64_t q, uint64_t k, double stop_t, const double *x) {
  const sp_sde_job *job = &m->a->job;
  const uint64_t hs = (uint64_t)SP_SDE_HS(job->nx);
  uint64_t i;
  double *row;
  if (!job->hold || m->out->held == NULL) return;
#ifdef _OPENMP
#  pragma omp atomic capture
#endif
  i = m->out->nheld++;
  row = m->out->held + i * hs;
  row[0] = (double)q;
  row[1] = (double)k;
  row[2] = stop_t;
  memcpy(row + 3, x, (size_t)SP_SDE_XS(job->nx) * sizeof *x);
}

static void sde_finish(sde_passage *m, int64_t p, int status, double value, const double *x) {
  const sp_sde_job *job = &m->a->job;
  m->out->value[p] = value;
  m->out->status[p] = status;
  if (m->out->state != NULL)
    memcpy(m->out->state + (uint64_t)p * (uint64_t)job->nx, x, (size_t)job->nx * sizeof *x);
}

/* Lane l of batch b takes the next path, if any is left. */
static void sde_lane_take(sde_passage *m, sde_batch *b, int l) {
  const sp_sde_args *a = m->a;
  const sp_sde_job *job = &a->job;
  uint64_t q, c, p;
#ifdef _OPENMP
#  pragma omp atomic capture
#endif
  q = m->next++;
  if (q >= m->total) {
    b->pid[l] = -2;
    return;
  }
  p = SP_SDE_PATH(a, q); /* its stream and condition */
  c = p / job->n;
  b->pid[l] = (int64_t)q;
  b->L.stream[l] = ((c + job->cond0) << 40) + job->replica0 + p % job->n;
  b->L.par[l] = a->par + c * (uint64_t)job->np;
  if (job->nrun > 0) { /* a continuation: from its step and record */
    const size_t xs = (size_t)SP_SDE_XS(job->nx);
    b->L.k[l] = (uint64_t)a->run_k[q];
    memcpy(b->L.x[l], a->run_x + q * xs, xs * sizeof(double));
  } else {
    b->L.k[l] = 0;
    sp_sde_start(a, p, b->L.x[l]);
  }
  b->kstart[l] = b->L.k[l];
}

/* Advance batch b by at most `budget` steps a lane (a lane whose path ends
 * gives what is left of its budget to its next path). */
static void sde_batch_run(sde_passage *m, sde_batch *b, uint64_t budget) {
  const sp_sde_args *a = m->a;
  const sp_sde_job *job = &a->job;
  sp_sde_lanes *L = &b->L;
  uint64_t left[SP_SDE_W], k0[SP_SDE_W], useful = 0, done = 0;
  int l;
  for (l = 0; l < SP_SDE_W; l++) left[l] = budget;
  for (;;) {
    int64_t bad;
    int active = 0;
#ifdef _OPENMP
#  pragma omp atomic read
#endif
    bad = m->bad;
    if (bad >= 0) break;
    for (l = 0; l < SP_SDE_W; l++) {
      if (b->pid[l] == -1 && left[l] > 0) sde_lane_take(m, b, l);
      k0[l] = L->k[l];
      L->status[l] = SP_SDE_RUNNING;
      L->on[l] = b->pid[l] >= 0 && left[l] > 0;
      if (L->on[l]) {
        L->kend[l] = job->kmax - k0[l] < left[l] ? job->kmax : k0[l] + left[l];
        active++;
      }
    }
    if (active == 0) break;
    SP_SDE_LANES(a)(job, a->seed, L);
    for (l = 0; l < SP_SDE_W; l++) {
      const int64_t p = b->pid[l];
      const int st = L->status[l];
      if (!L->on[l]) continue;
      left[l] -= L->k[l] - k0[l] < left[l] ? L->k[l] - k0[l] : left[l];
      if (L->k[l] == k0[l] && left[l] > 0) left[l]--; /* a stop at t = 0 costs a unit */
      if (st == SP_SDE_NONFINITE || st == SP_SDE_STALLED) {
        m->out->value[p] = (double)L->k[l];
        m->out->status[p] = (st == SP_SDE_STALLED ? SP_SDE_STALL : SP_SDE_BAD) | (L->what[l] << 8);
        sp_team_fail(&m->bad, p);
        b->pid[l] = -1;
        continue;
      }
      if (st == SP_SDE_STOPPED) {
        double t = ((double)L->k[l] - 1.0 + L->frac[l]) * job->dt;
        if (L->k[l] == 0) t = 0;
        if (t <= job->t_max) {
          sde_finish(m, p, SP_SDE_ESCAPED, t, L->x[l]);
        } else {
          sde_finish(m, p, SP_SDE_CENSORED, job->t_max, L->x[l]);
          sde_hold(m, p, L->k[l], t, L->x[l]); /* stopped past t_max */
        }
        useful += L->k[l] - b->kstart[l];
        done++;
        b->pid[l] = -1;
      } else if (L->k[l] >= job->kmax) {
        sde_finish(m, p, SP_SDE_CENSORED, job->t_max, L->x[l]);
        sde_hold(m, p, L->k[l], NAN, L->x[l]);
        useful += job->kmax - b->kstart[l];
        done++;
        b->pid[l] = -1;
      }
    }
  }
#ifdef _OPENMP
#  pragma omp atomic
#endif
  m->out->useful += useful;
#ifdef _OPENMP
#  pragma omp atomic
#endif
  m->out->finished += done;
}

static int sde_passage_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  sde_passage *m = (sde_passage *)model;
  int b, l, busy = 0;
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
#endif
  for (b = 0; b < m->nb; b++) sde_batch_run(m, &m->B[b], budget);
  if (m->bad >= 0)
    return sp_sde_path_failed(m->a, SP_SDE_PATH(m->a, m->bad), (uint64_t)m->out->value[m->bad],
                              m->out->status[m->bad] >> 8,
                              (m->out->status[m->bad] & 0xff) == SP_SDE_STALL);
  for (b = 0; b < m->nb; b++)
    for (l = 0; l < SP_SDE_W; l++) busy += m->B[b].pid[l] >= 0;
  st->done = (double)m->out->finished;
  st->finished = m->out->finished >= m->total || (busy == 0 && m->next >= m->total);
  return SP_OK;
}

static void sde_passage_collect(void *model, int interrupted) {
  sde_passage *m = (sde_passage *)model;
  const sp_sde_job *job = &m->a->job;
  int b, l;
  if (!interrupted) return;
  for (b = 0; b < m->nb; b++) {
    for (l = 0; l < SP_SDE_W; l++) {
      int64_t p = m->B[b].pid[l];
      if (p < 0) continue;
      sde_finish(m, p, SP_SDE_PARTIAL, (double)m->B[b].L.k[l] * job->dt, m->B[b].L.x[l]);
      sde_hold(m, p, m->B[b].L.k[l], NAN, m->B[b].L.x[l]);
    }
  }
}

static int sde_cpu_passage(const sp_sde_args *a, sp_sde_out *out, int nth,
                           const sp_hooks *hooks, sp_run_info *info) {
  sde_passage m;
  sp_cpu_engine e;
  const size_t xs = (size_t)SP_SDE_XS(a->job.nx);
  int b, l, st;
  memset(&m, 0, sizeof m);
  m.a = a;
  m.out = out;
  m.nb = nth > 0 ? nth : 1;
  m.total = sp_sde_npaths(&a->job);
  m.bad = -1;
  m.B = (sde_batch *)calloc((size_t)m.nb, sizeof *m.B);
  m.x = (double *)calloc((size_t)m.nb * SP_SDE_W * xs, sizeof(double));
  if (m.B == NULL || m.x == NULL) {
    free(m.B);
    free(m.x);
    return sp_fail(SP_ERR_NOMEM, "out of host memory");
  }
  for (b = 0; b < m.nb; b++) {
    for (l = 0; l < SP_SDE_W; l++) {
      m.B[b].pid[l] = -1;
      m.B[b].L.x[l] = m.x + ((size_t)b * SP_SDE_W + (size_t)l) * xs;
    }
  }
  e.total = (double)m.total;
  e.budget0 = 256;
  e.budget_max = (uint64_t)1 << 40;
  e.round = sde_passage_round;
  e.collect = sde_passage_collect;
  st = sp_cpu_run(&e, &m, nth, hooks, info);
  free(m.B);
  free(m.x);
  return st;
}

/* ---- fixed length: moments, histogram, trajectories --------------------------- */

/* Records a round may take (a round between them costs a parallel region:
 * short records would otherwise make rounds of a few steps). */
#define SDE_ROUND_RECORDS 32

typedef struct {
  const sp_sde_args *a;
  sp_sde_out *out;
  double *x;     /* total x SP_SDE_XS(nx): the states and the run of coarse steps */
  double *tiles; /* SDE_ROUND_RECORDS x ntiles x nvar x 3 */
  double *vals;  /* nth x SDE_ROUND_RECORDS x SP_SDE_TILE x nvar */
  uint64_t total, tpc, ntiles, k, rec; /* step reached, next record */
  int64_t bad;      /* the lowest path found non-finite (sp_team_fail), -1: none */
  uint64_t *badkw;  /* per path: stalled << 63 | its failing step << 8 | state */
} sde_fixed;

/* Tile t: advance its paths through records rec0 .. rec0 + nr - 1 (steps
 * within the round) to kend; reduce and tally each record. */
static void sde_fixed_tile(sde_fixed *m, uint64_t t, uint64_t kend, uint64_t rec0, uint64_t nr,
                           double *vals) {
  const sp_sde_args *a = m->a;
  const sp_sde_job *job = &a->job;
  const int64_t nvar = SP_SDE_NVAR(job), nx = job->nx;
  const uint64_t c = t / m->tpc, r0 = (t % m->tpc) * SP_SDE_TILE;
  const uint64_t r1 = r0 + SP_SDE_TILE < job->n ? r0 + SP_SDE_TILE : job->n;
  const uint64_t nt = r1 - r0, vstride = SP_SDE_TILE * (uint64_t)nvar;
  const double *par = a->par + c * (uint64_t)job->np;
  uint64_t r, j, g;
  int64_t v, h;
  /* the tile's paths in batches of SP_SDE_W lanes (the model's vector
   * loop), each through the round's records; a path that fails stops, the
   * others of its batch go on, and the lowest failing path of the first
   * batch with one is the tile's (as path by path in order) */
  for (g = r0; g < r1; g += SP_SDE_W) {
    const int nl = r1 - g < SP_SDE_W ? (int)(r1 - g) : SP_SDE_W;
    sp_sde_lanes L;
    int64_t bad = -1;
    int l;
    memset(&L, 0, sizeof L);
    for (l = 0; l < nl; l++) {
      L.on[l] = 1;
      L.par[l] = par;
      L.x[l] = m->x + (c * job->n + g + (uint64_t)l) * (uint64_t)SP_SDE_XS(nx);
      L.stream[l] = ((c + job->cond0) << 40) + job->replica0 + g + (uint64_t)l;
      L.k[l] = m->k;
    }
    for (j = 0; j <= nr; j++) {
      const uint64_t ke = j < nr ? sp_sde_record_step(job, rec0 + j) : kend;
      int more = 1;
      for (l = 0; l < nl; l++) L.kend[l] = ke;
      while (more) {
        more = 0;
        for (l = 0; l < nl; l++) L.status[l] = SP_SDE_RUNNING;
        SP_SDE_LANES(a)(job, a->seed, &L);
        for (l = 0; l < nl; l++) {
          const int st = L.status[l];
          if (!L.on[l]) continue;
          if (st == SP_SDE_NONFINITE || st == SP_SDE_STALLED) {
            const uint64_t p = c * job->n + g + (uint64_t)l;
            m->badkw[p] = (uint64_t)(st == SP_SDE_STALLED) << 63 | L.k[l] << 8 |
                          (uint64_t)L.what[l];
            if (bad < 0 || (int64_t)p < bad) bad = (int64_t)p;
            L.on[l] = 0;
            continue;
          }
          more |= L.k[l] < ke;
        }
      }
      if (j < nr)
        for (l = 0; l < nl; l++)
          if (L.on[l])
            SP_SDE_OBSERVE(a)(job, par, ke, L.x[l],
                              vals + j * vstride + (g + (uint64_t)l - r0) * (uint64_t)nvar);
    }
    if (bad >= 0) {
      sp_team_fail(&m->bad, bad);
      return;
    }
  }

  for (j = 0; j < nr; j++) {
    const double *vj = vals + j * vstride;
    double *ts = m->tiles + (j * m->ntiles + t) * (uint64_t)nvar * 3;
    for (v = 0; v < nvar; v++) {
      double s = 0, m2 = 0, mean;
      for (r = 0; r < nt; r++) s += vj[r * (uint64_t)nvar + (uint64_t)v];
      mean = s / (double)nt;
      for (r = 0; r < nt; r++) {
        double d = vj[r * (uint64_t)nvar + (uint64_t)v] - mean;
        m2 += d * d;
      }
      ts[v * 3] = (double)nt;
      ts[v * 3 + 1] = mean;
      ts[v * 3 + 2] = m2;
    }
    if (job->nhist > 0) {
      const int64_t cells = sp_sde_hist_cells(a, job->nhist);
      double *hc = m->out->hist + (c * job->nrec + rec0 + j) * (uint64_t)cells;
      for (h = 0; h < job->nhist; h++) {
        int64_t off = sp_sde_hist_cells(a, h);
        for (r = 0; r < nt; r++) {
          int64_t cell = off + sp_sde_hist_cell(a, h, vj[r * (uint64_t)nvar + (uint64_t)a->hist_var[h]]);
#ifdef _OPENMP
#  pragma omp atomic
#endif
          hc[cell] += 1.0; /* whole numbers: exact in any order */
        }
      }
    }
    if (job->keep > 0 && a->traj_slot[rec0 + j] >= 0) { /* a slot of the kept trajectories */
      const uint64_t slot = (uint64_t)a->traj_slot[rec0 + j];
      for (r = r0; r < r1 && r < job->keep; r++) {
        double *tr = m->out->traj + ((c * job->keep + r) * job->ntraj + slot) * (uint64_t)nvar;
        memcpy(tr, vj + (r - r0) * (uint64_t)nvar, (size_t)nvar * sizeof(double));
      }
    }
  }
}

static int sde_fixed_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  sde_fixed *m = (sde_fixed *)model;
  const sp_sde_job *job = &m->a->job;
  const int64_t nvar = SP_SDE_NVAR(job);
  uint64_t kend = job->kmax - m->k < budget ? job->kmax : m->k + budget, nr = 0, j;
  int64_t t;
  /* the records of the round: steps up to kend, at most SDE_ROUND_RECORDS */
  while (m->rec + nr < job->nrec && sp_sde_record_step(job, m->rec + nr) <= kend &&
         nr < SDE_ROUND_RECORDS)
    nr++;
  if (nr == SDE_ROUND_RECORDS) kend = sp_sde_record_step(job, m->rec + nr - 1);
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
#endif
  for (t = 0; t < (int64_t)m->ntiles; t++) {
    int me = 0;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    sde_fixed_tile(m, (uint64_t)t, kend, m->rec, nr,
                   m->vals + (size_t)me * SDE_ROUND_RECORDS * SP_SDE_TILE * (size_t)nvar);
  }
  (void)nth;
  if (m->bad >= 0)
    return sp_sde_path_failed(m->a, (uint64_t)m->bad, (m->badkw[m->bad] >> 8) & ((1ull << 55) - 1),
                              (int)(m->badkw[m->bad] & 0xff), (int)(m->badkw[m->bad] >> 63));
  m->out->useful += (kend - m->k) * m->total;
  m->k = kend;
  for (j = 0; j < nr; j++) {
    sp_sde_tiles_combine(job, m->tiles + j * m->ntiles * (uint64_t)nvar * 3, m->tpc, m->rec,
                         m->out);
    m->rec++;
  }
  m->out->rec_done = m->rec;
  st->done = (double)m->k;
  st->finished = m->rec >= job->nrec;
  return SP_OK;
}

static int sde_cpu_fixed(const sp_sde_args *a, sp_sde_out *out, int nth, const sp_hooks *hooks,
                         sp_run_info *info) {
  const sp_sde_job *job = &a->job;
  sde_fixed m;
  sp_cpu_engine e;
  uint64_t p;
  int st, nt = nth > 0 ? nth : 1;
  const int64_t nvar = SP_SDE_NVAR(job);
  memset(&m, 0, sizeof m);
  m.a = a;
  m.out = out;
  m.total = job->ncond * job->n;
  m.tpc = (job->n + SP_SDE_TILE - 1) / SP_SDE_TILE;
  m.ntiles = job->ncond * m.tpc;
  m.bad = -1;
  m.x = (double *)malloc((size_t)m.total * (size_t)SP_SDE_XS(job->nx) * sizeof(double));
  m.tiles = (double *)calloc((size_t)SDE_ROUND_RECORDS * (size_t)m.ntiles * (size_t)nvar * 3,
                             sizeof(double));
  m.vals = (double *)malloc((size_t)nt * SDE_ROUND_RECORDS * SP_SDE_TILE * (size_t)nvar *
                            sizeof(double));
  m.badkw = (uint64_t *)malloc((size_t)m.total * sizeof(uint64_t));
  if (m.x == NULL || m.tiles == NULL || m.vals == NULL || m.badkw == NULL) {
    free(m.x);
    free(m.tiles);
    free(m.vals);
    free(m.badkw);
    return sp_fail(SP_ERR_NOMEM, "out of host memory (%.3g GB for the states)",
                   (double)m.total * (double)job->nx * 8 / 1e9);
  }
  for (p = 0; p < m.total; p++) sp_sde_start(a, p, m.x + p * (uint64_t)SP_SDE_XS(job->nx));
  e.total = (double)job->kmax;
  e.budget0 = 16;
  e.budget_max = (uint64_t)1 << 40;
  e.round = sde_fixed_round;
  e.collect = NULL;
  st = sp_cpu_run(&e, &m, nth, hooks, info);
  free(m.x);
  free(m.tiles);
  free(m.vals);
  free(m.badkw);
  return st;
}

int sp_sde_cpu(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info) {
  const sp_sde_args *a = (const sp_sde_args *)job;
  if (a->advance == NULL || a->observe == NULL || a->lanes == NULL)
    return sp_fail(SP_ERR_INVALID, "internal error: the model's CPU entries are missing");
  if (a->job.output == 0) return sde_cpu_passage(a, (sp_sde_out *)out, nth, hooks, info);
  return sde_cpu_fixed(a, (sp_sde_out *)out, nth, hooks, info);
}

int sp_sde_prepare(void *job) {
  const sp_sde_args *a = (const sp_sde_args *)job;
  const sp_sde_job *j = &a->job;
  const uint64_t nx = (uint64_t)j->nx;
  size_t i, nv = 0, npp = 0;
  if (j->nx < 1 || j->nx > 255 || j->np < 0 || j->no < 0 || j->nhist < 0 || j->n < 1)
    return sp_fail(SP_ERR_INVALID, "internal error: sde job sizes");
  if (a->npar != j->ncond * (uint64_t)j->np || a->ninit != j->ncond * nx ||
      a->ninit_vec != nx || a->nnames != nx + (uint64_t)j->no ||
      a->nhist_var != (size_t)j->nhist || a->nhist_off != (size_t)j->nhist + 1 ||
      a->nbreaks_len != (size_t)j->nbreaks || (size_t)a->hist_off[j->nhist] != a->nbreaks_len)
    return sp_fail(SP_ERR_INVALID, "internal error: sde job lengths disagree");
  for (i = 0; i < nx; i++) { /* columns of one kind: per replica, or per path */
    const int iv = a->init_vec[i];
    if (iv >= 0) nv++;
    if (iv >= SP_SDE_PER_PATH) npp++;
    if ((iv >= (int)nx && iv < SP_SDE_PER_PATH) || iv >= SP_SDE_PER_PATH + (int)nx)
      return sp_fail(SP_ERR_INVALID, "internal error: sde init_vec");
  }
  if ((npp > 0 && npp != nv) ||
      a->ninit_vals != nv * j->n * (npp > 0 ? (uint64_t)j->ncond : 1))
    return sp_fail(SP_ERR_INVALID, "internal error: sde init_vals");
  if (j->nrun > 0) { /* a continuation's paths: increasing, of the call, their steps in range */
    const uint64_t xs = (uint64_t)SP_SDE_XS(j->nx);
    if (j->output != 0 || a->nrun_path != j->nrun || a->nrun_k != j->nrun ||
        a->nrun_x != j->nrun * xs)
      return sp_fail(SP_ERR_INVALID, "internal error: sde run lengths");
    for (i = 0; i < j->nrun; i++) {
      const double p = a->run_path[i], k = a->run_k[i];
      if (!(p >= 0 && p < (double)(j->ncond * j->n) && p == floor(p)) ||
          (i > 0 && !(p > a->run_path[i - 1])) ||
          !(k >= 0 && k <= (double)j->kmax && k == floor(k)) ||
          !(a->run_x[i * xs + (uint64_t)j->nx] >= 0))
        return sp_fail(SP_ERR_INVALID, "internal error: sde run paths");
    }
  } else if (a->nrun_path != 0 || a->nrun_k != 0 || a->nrun_x != 0) {
    return sp_fail(SP_ERR_INVALID, "internal error: sde run lengths");
  }
  if (j->output != 0 && j->keep > 0) { /* each record's slot in a kept path's trajectory */
    if (a->ntraj_slot != j->nrec || j->ntraj < 1)
      return sp_fail(SP_ERR_INVALID, "internal error: sde traj_slot");
    for (i = 0; i < a->ntraj_slot; i++)
      if (!(a->traj_slot[i] >= -1 && a->traj_slot[i] < (double)j->ntraj &&
            a->traj_slot[i] == floor(a->traj_slot[i])))
        return sp_fail(SP_ERR_INVALID, "internal error: sde traj_slot");
  }
  for (i = 0; i < a->nhist_var; i++)
    if (a->hist_var[i] < 0 || a->hist_var[i] >= (int)a->nnames)
      return sp_fail(SP_ERR_INVALID, "internal error: sde hist_var");
  return SP_OK;
}

void sp_sde_out_init(const void *job, void *out) {
  const sp_sde_args *a = (const sp_sde_args *)job;
  const sp_sde_job *j = &a->job;
  sp_sde_out *o = (sp_sde_out *)out;
  const uint64_t total = j->output == 0 ? sp_sde_npaths(j) : j->ncond * j->n;
  const uint64_t nvar = (uint64_t)(j->nx + j->no);
  uint64_t i;
  o->nheld = 0; /* (the rows of `held` are written as they come) */
  if (o->status != NULL)
    for (i = 0; i < total; i++) o->status[i] = SP_SDE_UNSTARTED;
  if (o->value != NULL)
    for (i = 0; i < total; i++) o->value[i] = 0;
  if (o->state != NULL)
    for (i = 0; i < total * (uint64_t)j->nx; i++) o->state[i] = NAN;
  if (o->mom_n != NULL)
    for (i = 0; i < j->ncond * j->nrec * nvar; i++) {
      o->mom_n[i] = 0;
      o->mom_mean[i] = NAN;
      o->mom_m2[i] = NAN;
    }
  if (o->hist != NULL)
    for (i = 0; i < j->ncond * j->nrec * (uint64_t)sp_sde_hist_cells(a, j->nhist); i++)
      o->hist[i] = 0;
  if (o->traj != NULL)
    for (i = 0; i < j->ncond * j->keep * j->ntraj * nvar; i++) o->traj[i] = NAN;
}
