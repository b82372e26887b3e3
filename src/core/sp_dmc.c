/* sp_dmc.c: the CPU engine of helium diffusion Monte Carlo (sp_dmc.h),
 * double precision.  OpenMP over the walkers of a population inside a
 * generation; the population's sums, prefix sums and copies in slot order. */
#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include "sp_dmc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#include "he4_dmc.h"

/* One population on the CPU: walkers in buffer `cur` (two buffers: the
 * branching copies into the other). */
typedef struct {
  double *xyz[2], *grad[2], *wk[2]; /* cap 3n, cap 3n, cap SP_DMC_WSTRIDE */
  double *pxyz, *pgrad, *pdel;      /* the proposals: cap 3n each */
  double *gs;                       /* cap SP_DMC_GSTRIDE */
  int *offs;                        /* cap + 1 */
  double *ring;                     /* 2 T_p: the reweighting's terms */
  int cur;
  sp_dmc_pop st;
  double acc[SP_DMC_NACC];
  uint64_t step; /* generations of this call */
  int dead;      /* the population died at generation st.gen */
} sp_dmc_cpu_pop;

typedef struct {
  const sp_dmc_job *job;
  sp_dmc_out *out;
  sp_he4_par_d par;
  sp_dmc_cpu_pop *P;
  uint64_t steps; /* per population in this call */
} sp_dmc_cpu;

void sp_dmc_draws(uint64_t seed, uint64_t stream, uint64_t gen, int n, double *z, double *u) {
  int i;
  for (i = 0; i < n; i++) sp_dmc_normals(seed, stream, gen, n, i, z + 3 * i);
  sp_dmc_uniforms(seed, stream, gen, n, &u[0], &u[1]);
}

void sp_dmc_out_init(const sp_dmc_job *job, sp_dmc_out *out) {
  size_t k, nb = (size_t)job->npop * (size_t)job->blocks * SP_DMC_NOBS;
  for (k = 0; k < nb; k++) out->block[k] = NAN;
  for (k = 0; k < (size_t)job->npop; k++) out->done[k] = 0;
}

/* Walker k of population q: evaluate its configuration (start of a call). */
static void sp_dmc_eval_walker(sp_dmc_cpu *m, sp_dmc_cpu_pop *q, int k) {
  const int n = m->job->n;
  const size_t n3 = 3 * (size_t)n;
  double *x = q->xyz[q->cur] + k * n3, *wk = q->wk[q->cur] + (size_t)k * SP_DMC_WSTRIDE;
  double obs[SP_VMC_NOBS];
  sp_dmc_eval(&m->par, &m->job->guide, x, n, q->grad[q->cur] + k * n3, &wk[0], obs);
  wk[1] = obs[SP_VMC_ENERGY];
  wk[2] = obs[SP_VMC_POTENTIAL];
  wk[3] = obs[SP_VMC_KINETIC_PB];
}

/* One generation's move of the walker in slot k (he4_dmc.h). */
static void sp_dmc_walker_step(sp_dmc_cpu *m, sp_dmc_cpu_pop *q, uint64_t qg, int k) {
  const sp_dmc_job *job = m->job;
  const sp_he4_par_d *p = &m->par;
  const int n = job->n, n3 = 3 * n;
  const double a = SP_HE4_HB2M * job->ctl.dt, sa = sqrt(a);
  double *x = q->xyz[q->cur] + (size_t)k * n3, *g = q->grad[q->cur] + (size_t)k * n3;
  double *wk = q->wk[q->cur] + (size_t)k * SP_DMC_WSTRIDE;
  double *xn = q->pxyz + (size_t)k * n3, *gn = q->pgrad + (size_t)k * n3;
  double *d = q->pdel + (size_t)k * n3, *gs = q->gs + (size_t)k * SP_DMC_GSTRIDE;
  const uint64_t stream = sp_dmc_stream(qg, (uint64_t)k);
  const double A = job->ctl.drift_limit;
  const double tau = sp_dmc_tau(&q->st, job->ctl.dt, job->ctl.effective);
  double obs[SP_VMC_NOBS], Un, green = 0, ua, ub, sl[4] = {0, 0, 0, 0}, wn[SP_DMC_WSTRIDE];
  double z2 = 0;
  int i, c;
  for (i = 0; i < n; i++) {
    double z[3];
    const double g2 = g[i] * g[i] + g[n + i] * g[n + i] + g[2 * n + i] * g[2 * n + i];
    const double f = sp_dmc_drift_factor(g2, a, A);
    sl[0] += f * f * g2;
    sl[1] += g2;
    sp_dmc_normals(job->seed, stream, q->st.gen, n, i, z);
    z2 += z[0] * z[0] + z[1] * z[1] + z[2] * z[2];
    for (c = 0; c < 3; c++)
      xn[c * n + i] = sp_dmc_move(p, x[c * n + i], f * a * g[c * n + i], z[c], sa, &d[c * n + i]);
  }
  sp_dmc_eval(p, &job->guide, xn, n, gn, &Un, obs);
  for (i = 0; i < n; i++) {
    const double g2 = g[i] * g[i] + g[n + i] * g[n + i] + g[2 * n + i] * g[2 * n + i];
    const double gn2 = gn[i] * gn[i] + gn[n + i] * gn[n + i] + gn[2 * n + i] * gn[2 * n + i];
    const double f = sp_dmc_drift_factor(g2, a, A), fn = sp_dmc_drift_factor(gn2, a, A);
    sl[2] += fn * fn * gn2;
    sl[3] += gn2;
    for (c = 0; c < 3; c++)
      green += sp_dmc_green_term(d[c * n + i], f * a * g[c * n + i], fn * a * gn[c * n + i]);
  }
  sp_dmc_uniforms(job->seed, stream, q->st.gen, n, &ua, &ub);
  if (sp_dmc_step_end(wk, Un, obs, green, sl, z2, ua, ub, q->st.e_ref, q->st.e_trial, n, job->ctl.dt, tau,
                      job->accept, job->branching,
                      sp_dmc_cut(&q->st, job->ctl.energy_cut, n, tau), wn, gs)) {
    memcpy(x, xn, (size_t)n3 * sizeof *x);
    memcpy(g, gn, (size_t)n3 * sizeof *g);
  }
  memcpy(wk, wn, sizeof wn);
}

/* One generation of population q (number qi of the call). */
static void sp_dmc_generation(sp_dmc_cpu *m, sp_dmc_cpu_pop *q, int qi, int nth) {
  const sp_dmc_job *job = m->job;
  const uint64_t qg = job->pop0 + (uint64_t)qi;
  const int P = q->st.size, n3 = 3 * job->n;
  double s[SP_DMC_GSUMS] = {0}, Pm;
  int k;
  /* threads only for a generation's worth of work (an OpenMP team meets
   * twice a generation: with small populations, or cores shared with other
   * processes, the meetings cost more than the moves) -- about 2.5e5 pair
   * terms a thread; the results do not depend on it */
  {
    const double pairs = (double)P * (double)job->n * (double)job->n;
    if (pairs < 2.5e5 * (double)nth) nth = (int)(pairs / 2.5e5) > 1 ? (int)(pairs / 2.5e5) : 1;
  }
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
#endif
  for (k = 0; k < P; k++) sp_dmc_walker_step(m, q, qg, k);
  for (k = 0; k < P; k++) {
    const double *gs = q->gs + (size_t)k * SP_DMC_GSTRIDE;
    int j;
    for (j = 0; j < SP_DMC_GSUMS; j++) s[j] += gs[j];
  }
  if (job->branching) {
    const int src = q->cur, dst = 1 - q->cur;
    int total, np;
    q->offs[0] = 0;
    for (k = 0; k < P; k++)
      q->offs[k + 1] = q->offs[k] + (int)q->gs[(size_t)k * SP_DMC_GSTRIDE + SP_DMC_GCOPIES];
    total = q->offs[P];
    np = total < job->cap ? total : job->cap;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static)
#endif
    for (k = 0; k < P; k++) {
      int t;
      for (t = q->offs[k]; t < q->offs[k + 1] && t < np; t++) {
        memcpy(q->xyz[dst] + (size_t)t * n3, q->xyz[src] + (size_t)k * n3,
               (size_t)n3 * sizeof(double));
        memcpy(q->grad[dst] + (size_t)t * n3, q->grad[src] + (size_t)k * n3,
               (size_t)n3 * sizeof(double));
        memcpy(q->wk[dst] + (size_t)t * SP_DMC_WSTRIDE, q->wk[src] + (size_t)k * SP_DMC_WSTRIDE,
               SP_DMC_WSTRIDE * sizeof(double));
        q->wk[dst][(size_t)t * SP_DMC_WSTRIDE + 4] = 1;
      }
    }
    q->cur = dst;
    q->st.overflow += (double)(total - np);
    q->st.size = np;
    Pm = (double)np;
  } else {
    Pm = s[3];
  }
  q->dead = sp_dmc_account(&q->st, q->acc, s, Pm, P, &job->ctl, q->ring,
                           q->step < job->equilibration);
}

/* The population's state into the outputs (after a finished block, and at
 * the start). */
static void sp_dmc_save(sp_dmc_cpu *m, sp_dmc_cpu_pop *q, int qi) {
  const sp_dmc_job *job = m->job;
  const int n = job->n;
  const size_t n3 = 3 * (size_t)n;
  double *c = m->out->coords + (size_t)qi * job->cap * n3;
  double *w = m->out->weight + (size_t)qi * job->cap;
  double *pv = m->out->pop + (size_t)qi * SP_DMC_POPVARS;
  const size_t nr = 2 * (size_t)job->ctl.reweight;
  int k, i;
  memcpy(m->out->hist + (size_t)qi * nr, q->ring, nr * sizeof(double));
  for (k = 0; k < job->cap; k++) {
    const double *x = q->xyz[q->cur] + (size_t)k * n3;
    for (i = 0; i < n; i++) {
      c[k * n3 + 3 * i] = k < q->st.size ? x[i] : 0;
      c[k * n3 + 3 * i + 1] = k < q->st.size ? x[n + i] : 0;
      c[k * n3 + 3 * i + 2] = k < q->st.size ? x[2 * n + i] : 0;
    }
    w[k] = k < q->st.size ? q->wk[q->cur][(size_t)k * SP_DMC_WSTRIDE + 4] : 0;
  }
  sp_dmc_pop_store(&q->st, pv);
}

/* A finished block's row. */
static void sp_dmc_block_end(sp_dmc_cpu *m, sp_dmc_cpu_pop *q, int qi, uint64_t blk) {
  const sp_dmc_job *job = m->job;
  double *row = m->out->block + ((size_t)qi * job->blocks + blk) * SP_DMC_NOBS;
  sp_dmc_block_row(q->acc, row);
  sp_dmc_save(m, q, qi);
  m->out->done[qi] = (int)(blk + 1);
}

static int sp_dmc_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  sp_dmc_cpu *m = (sp_dmc_cpu *)model;
  const sp_dmc_job *job = m->job;
  double done = 0;
  int qi;
  for (qi = 0; qi < job->npop; qi++) {
    sp_dmc_cpu_pop *q = &m->P[qi];
    uint64_t end = q->step + budget;
    if (end > m->steps) end = m->steps;
    while (q->step < end) {
      uint64_t k;
      sp_dmc_generation(m, q, qi, nth);
      k = q->step++;
      if (q->dead)
        return sp_fail(SP_ERR_NOT_FINITE,
                       "population %llu died out (no walker, or no weight, left) at its "
                       "generation %llu; use a smaller `dt` or a larger population",
                       (unsigned long long)(job->pop0 + (uint64_t)qi + 1),
                       (unsigned long long)q->st.gen);
      if (k < job->equilibration) {
        if (k + 1 == job->equilibration) /* the records start (he4_dmc.h) */
          sp_dmc_records_start(&q->st, q->acc, q->ring, job->ctl.reweight);
        continue;
      }
      k -= job->equilibration;
      if ((k + 1) % job->block_steps == 0) sp_dmc_block_end(m, q, qi, k / job->block_steps);
    }
    done += (double)q->step;
  }
  st->done = done;
  st->finished = done >= (double)m->steps * (double)job->npop;
  return SP_OK;
}

static void sp_dmc_free(sp_dmc_cpu *m) {
  int qi;
  if (m->P == NULL) return;
  for (qi = 0; qi < m->job->npop; qi++) {
    sp_dmc_cpu_pop *q = &m->P[qi];
    free(q->xyz[0]);
    free(q->offs);
    free(q->ring);
  }
  free(m->P);
}

int sp_dmc_cpu_run(const void *vjob, void *vout, int nth, const sp_hooks *hooks,
                   sp_run_info *info) {
  const sp_dmc_job *job = (const sp_dmc_job *)vjob;
  sp_dmc_out *out = (sp_dmc_out *)vout;
  const int n = job->n;
  const size_t n3 = 3 * (size_t)n, cap = (size_t)job->cap;
  sp_dmc_cpu m;
  sp_cpu_engine e;
  int qi, st;
  m.job = job;
  m.out = out;
  m.steps = job->equilibration + job->blocks * job->block_steps;
  sp_he4_par_load_d(&m.par, &job->pair);
  m.P = (sp_dmc_cpu_pop *)calloc((size_t)job->npop, sizeof *m.P);
  if (m.P == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory for the populations");
  for (qi = 0; qi < job->npop; qi++) {
    sp_dmc_cpu_pop *q = &m.P[qi];
    const double *pv = out->pop + (size_t)qi * SP_DMC_POPVARS;
    /* one allocation: 7 cap 3n + 2 cap WSTRIDE + cap GSTRIDE doubles */
    size_t len = 7 * cap * n3 + cap * (2 * SP_DMC_WSTRIDE + SP_DMC_GSTRIDE);
    double *mem = (double *)malloc(len * sizeof(double));
    int k, i;
    const size_t nr = 2 * (size_t)job->ctl.reweight;
    q->offs = (int *)malloc((cap + 1) * sizeof(int));
    q->ring = (double *)malloc(nr * sizeof(double));
    if (mem == NULL || q->offs == NULL || q->ring == NULL) {
      free(mem);
      sp_dmc_free(&m);
      return sp_fail(SP_ERR_NOMEM, "out of host memory for the walkers (%.3g GB)",
                     (double)len * 8e-9 * job->npop);
    }
    q->xyz[0] = mem;
    q->xyz[1] = mem + cap * n3;
    q->grad[0] = mem + 2 * cap * n3;
    q->grad[1] = mem + 3 * cap * n3;
    q->pxyz = mem + 4 * cap * n3;
    q->pgrad = mem + 5 * cap * n3;
    q->pdel = mem + 6 * cap * n3;
    q->wk[0] = mem + 7 * cap * n3;
    q->wk[1] = q->wk[0] + cap * SP_DMC_WSTRIDE;
    q->gs = q->wk[1] + cap * SP_DMC_WSTRIDE;
    q->cur = 0;
    sp_dmc_pop_load(&q->st, pv);
    memcpy(q->ring, out->hist + (size_t)qi * nr, nr * sizeof(double));
    for (k = 0; k < q->st.size; k++) {
      const double *c = out->coords + ((size_t)qi * cap + (size_t)k) * n3;
      double *x = q->xyz[0] + (size_t)k * n3;
      for (i = 0; i < n; i++) {
        x[i] = c[3 * i];
        x[n + i] = c[3 * i + 1];
        x[2 * n + i] = c[3 * i + 2];
      }
      q->wk[0][(size_t)k * SP_DMC_WSTRIDE + 4] = out->weight[(size_t)qi * cap + (size_t)k];
    }
  }
  /* every walker's ln psi, gradient and local energy */
  for (qi = 0; qi < job->npop; qi++) {
    sp_dmc_cpu_pop *q = &m.P[qi];
    int k;
    double sw = 0, swe = 0, swe2 = 0;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
#endif
    for (k = 0; k < q->st.size; k++) sp_dmc_eval_walker(&m, q, k);
    for (k = 0; k < q->st.size; k++) {
      const double *wk = q->wk[0] + (size_t)k * SP_DMC_WSTRIDE;
      if (!isfinite(wk[1])) {
        sp_dmc_free(&m);
        return sp_fail(SP_ERR_NOT_FINITE,
                       "walker %d of population %llu has no finite local energy at the start",
                       k + 1, (unsigned long long)(job->pop0 + (uint64_t)qi + 1));
      }
      sw += wk[4];
      swe += wk[4] * wk[1];
      swe2 += wk[4] * wk[1] * wk[1];
    }
    sp_dmc_start(&q->st, sw, swe, swe2);
    memset(q->acc, 0, sizeof q->acc);
  }
  e.total = (double)m.steps * (double)job->npop;
  e.budget0 = 1;
  e.budget_max = (uint64_t)1 << 40;
  e.round = sp_dmc_round;
  e.collect = NULL; /* the state after each finished block is already out */
  st = sp_cpu_run(&e, &m, nth, hooks, info);
  sp_dmc_free(&m);
  return st;
}
