/* mb_cpu.h: a many-body model's systems on the CPU: the entries of the
 * model's shared object (sp_mb_advance_fn, sp_mb_observe_fn of mb_args.h),
 * included once per precision after mb_engine.h by the generated C file.
 * The package's engine (src/core/sp_mb.c) calls them once per system per
 * round; a system's elements are visited in order by one thread, and each
 * reduction is summed in that order in double. */
#include <math.h>
#include <string.h>

/* A system's working arrays in the working precision, carved from `work`. */
typedef struct {
  SP_REAL *xs, *ys, *a0, *b0, *Q, *ep, *F, *U;
  double *Rd;
  SP_REAL R[SP_MB_TN], p[SP_MB_PN];
  double pd[SP_MB_PN];
  uint64_t n, l2; /* elements; a square lattice's columns */
} SP_PREC(sp_mb_sys);

/* Element i's states and neighbours (mb_engine.h) on the model's lattice. */
#undef SP_MB_GATHER
#if SP_MB_DIM == 2
#  define SP_MB_GATHER(s, src, i, x, nb) SP_PREC(sp_mb_gather2)(src, i, (s)->n, (s)->l2, x, nb)
#else
#  define SP_MB_GATHER(s, src, i, x, nb) SP_PREC(sp_mb_gather)(src, i, (s)->n, x, nb)
#endif

static void SP_PREC(sp_mb_setup)(const sp_mb_job *job, const double *par, const double *ep,
                                double *work, SP_PREC(sp_mb_sys) *s) {
  const uint64_t n = job->n, nx = SP_MB_NX;
  SP_REAL *w = (SP_REAL *)work;
  uint64_t i;
  s->n = n;
  s->xs = w; w += nx * n;
  s->ys = w; w += nx * n;
  s->a0 = w; w += nx * n;
  s->F = w; w += nx * n;
  s->b0 = w; w += (uint64_t)SP_MB_BN * n;
  s->Q = w; w += (uint64_t)SP_MB_QN * n;
  s->ep = w; w += (uint64_t)SP_MB_EN * n;
  s->U = w; w += (uint64_t)SP_MB_UN * n;
  s->Rd = (double *)(void *)(((uintptr_t)w + 7) & ~(uintptr_t)7);
  for (i = 0; i < (uint64_t)SP_MB_NP; i++) {
    s->p[i] = (SP_REAL)par[i];
    s->pd[i] = par[i];
  }
  for (i = 0; i < (uint64_t)SP_MB_NE * n; i++) s->ep[i] = (SP_REAL)ep[i];
#if SP_MB_DIM == 2
  s->l2 = (uint64_t)par[SP_MB_L2];
#else
  s->l2 = 0;
#endif
}

#ifdef SP_MB_CPU_LANES
static int SP_PREC(sp_mb_reduce_lanes)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                       int nt); /* (mb_lanes.h) */
#endif

/* The reductions of state src: the first `nt` sums over the elements. */
static void SP_PREC(sp_mb_reduce)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t, int nt) {
#if SP_MB_NT > 0
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], r[SP_MB_TN];
  uint64_t i;
  int q;
  if (nt <= 0) return; /* (a step of a model whose dynamics need no sum) */
#ifdef SP_MB_CPU_LANES
  if (SP_PREC(sp_mb_reduce_lanes)(s, src, t, nt)) return;
#endif
  for (q = 0; q < nt; q++) s->Rd[q] = 0;
  for (i = 0; i < s->n; i++) {
    SP_MB_GATHER(s, src, i, x, nb);
    SP_PREC(sp_mb_epar)(s->ep, i, s->n, e);
    SP_PREC(mb_terms)(t, x, e, nb, s->p, s->pd, (SP_REAL)(i + 1), r);
    for (q = 0; q < nt; q++) s->Rd[q] += (double)r[q];
  }
  for (q = 0; q < nt; q++) s->R[q] = (SP_REAL)s->Rd[q];
#else
  (void)s; (void)src; (void)t; (void)nt;
#endif
}

/* The pair sums Q[q n + i] = sum over j != i (in order) of the pair terms,
 * the elements' values for them (mb_pair_pre) made once. */
static void SP_PREC(sp_mb_pairs)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t) {
#if SP_MB_NQ > 0
  SP_REAL xi[SP_MB_NX], xj[SP_MB_NX], ei[SP_MB_EN], ej[SP_MB_EN], acc[SP_MB_QN], ui[SP_MB_UN],
      uj[SP_MB_UN];
  const uint64_t n = s->n;
  uint64_t i, j;
  int v;
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) xi[v] = src[(uint64_t)v * n + i];
    SP_PREC(sp_mb_epar)(s->ep, i, n, ei);
    SP_PREC(mb_pair_pre)(t, xi, ei, s->p, s->pd, (SP_REAL)(i + 1), ui);
    for (v = 0; v < SP_MB_UN; v++) s->U[(uint64_t)v * n + i] = ui[v];
  }
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) xi[v] = src[(uint64_t)v * n + i];
    SP_PREC(sp_mb_epar)(s->ep, i, n, ei);
    for (v = 0; v < SP_MB_UN; v++) ui[v] = s->U[(uint64_t)v * n + i];
    for (v = 0; v < SP_MB_NQ; v++) acc[v] = 0;
    for (j = 0; j < n; j++) {
      if (j == i) continue;
      for (v = 0; v < SP_MB_NX; v++) xj[v] = src[(uint64_t)v * n + j];
      SP_PREC(sp_mb_epar)(s->ep, j, n, ej);
      for (v = 0; v < SP_MB_UN; v++) uj[v] = s->U[(uint64_t)v * n + j];
      SP_PREC(mb_pair)(t, xi, ei, xj, ej, ui, uj, s->p, s->pd, (SP_REAL)(i + 1), (SP_REAL)(j + 1),
                       acc);
    }
    for (v = 0; v < SP_MB_NQ; v++) s->Q[(uint64_t)v * n + i] = acc[v];
  }
#else
  (void)s; (void)src; (void)t;
#endif
}

/* The couplings of state src at time t: the reductions the dynamics need
 * and the pair sums. */
static void SP_PREC(sp_mb_couple)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t) {
  SP_PREC(sp_mb_reduce)(s, src, t, SP_MB_ND);
  SP_PREC(sp_mb_pairs)(s, src, t);
}

/* Element i's pair sums from Q. */
static void SP_PREC(sp_mb_qi)(const SP_PREC(sp_mb_sys) *s, uint64_t i, SP_REAL *q) {
  int v;
  for (v = 0; v < SP_MB_NQ; v++) q[v] = s->Q[(uint64_t)v * s->n + i];
#if SP_MB_NQ == 0
  (void)s; (void)i; q[0] = 0;
#endif
}

/* The first non-finite value of a state, as element << 8 | state, or -1. */
static int64_t SP_PREC(sp_mb_bad)(const SP_REAL *x, uint64_t n) {
  uint64_t i;
  int v, any = 0;
  _Pragma("omp simd reduction(|:any)") /* (a vector loop first) */
  for (i = 0; i < (uint64_t)SP_MB_NX * n; i++) any |= !isfinite(x[i]);
  if (!any) return -1;
  for (i = 0; i < n; i++)
    for (v = 0; v < SP_MB_NX; v++)
      if (!isfinite(x[(uint64_t)v * n + i])) return (int64_t)(i << 8 | (uint64_t)v);
  return -1;
}

#ifdef SP_MB_CPU_LANES
#  include "mb_lanes.h" /* the vector loop over elements: sp_mb_step_sde_lanes */
#endif

/* One step of the SDE methods from xs (at time t, step kk of the chain). */
static void SP_PREC(sp_mb_step_sde)(SP_PREC(sp_mb_sys) *s, int heun, double t, double dt,
                                   uint64_t seed, uint64_t stream, uint64_t kk) {
  const uint64_t n = s->n;
  const SP_REAL h = (SP_REAL)dt, sdt = (SP_REAL)sqrt(dt), half = (SP_REAL)0.5;
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX], b[SP_MB_BN],
      z[SP_MB_WN], dw[SP_MB_WN], y[SP_MB_NX];
  uint64_t i;
  int v;
#ifdef SP_MB_CPU_LANES
  if (SP_PREC(sp_mb_step_sde_lanes)(s, heun, t, dt, seed, stream, kk)) return;
#endif
  SP_PREC(sp_mb_couple)(s, s->xs, t);
  for (i = 0; i < n; i++) {
    SP_MB_GATHER(s, s->xs, i, x, nb);
    SP_PREC(sp_mb_epar)(s->ep, i, n, e);
    SP_PREC(sp_mb_qi)(s, i, q);
    if (heun)
      SP_PREC(mb_drift_strat)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
    else
      SP_PREC(mb_drift_ito)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
    SP_PREC(mb_noise)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), b);
    SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z);
    for (v = 0; v < SP_MB_WN; v++) dw[v] = SP_MB_NW > 0 ? sdt * z[v] : (SP_REAL)0;
    for (v = 0; v < SP_MB_NX; v++) y[v] = x[v] + f[v] * h;
    SP_PREC(mb_apply_noise)(y, b, dw);
    for (v = 0; v < SP_MB_NX; v++) {
      s->ys[(uint64_t)v * n + i] = y[v];
      s->a0[(uint64_t)v * n + i] = f[v];
    }
    for (v = 0; v < SP_MB_NB; v++) s->b0[(uint64_t)v * n + i] = b[v];
  }
  if (!heun) {
    memcpy(s->xs, s->ys, (size_t)SP_MB_NX * n * sizeof(SP_REAL));
    return;
  }
  SP_PREC(sp_mb_couple)(s, s->ys, t + dt);
  for (i = 0; i < n; i++) {
    SP_REAL xo[SP_MB_NX];
    SP_MB_GATHER(s, s->ys, i, y, nb);
    SP_PREC(sp_mb_epar)(s->ep, i, n, e);
    SP_PREC(sp_mb_qi)(s, i, q);
    SP_PREC(mb_drift_strat)(t + dt, y, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
    SP_PREC(mb_noise)(t + dt, y, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), b);
    SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z);
    for (v = 0; v < SP_MB_WN; v++) dw[v] = SP_MB_NW > 0 ? sdt * z[v] : (SP_REAL)0;
    for (v = 0; v < SP_MB_NB; v++) b[v] = half * (s->b0[(uint64_t)v * n + i] + b[v]);
    for (v = 0; v < SP_MB_NX; v++)
      xo[v] = s->xs[(uint64_t)v * n + i] + half * h * (s->a0[(uint64_t)v * n + i] + f[v]);
    SP_PREC(mb_apply_noise)(xo, b, dw);
    for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = xo[v];
  }
}

/* The forces on every element's momenta at the positions of xs (time t),
 * into s->F (j n + i, j over the momenta). */
static void SP_PREC(sp_mb_forces)(SP_PREC(sp_mb_sys) *s, double t) {
  const uint64_t n = s->n;
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX];
  uint64_t i;
  int v;
  SP_PREC(sp_mb_couple)(s, s->xs, t);
  for (i = 0; i < n; i++) {
    SP_MB_GATHER(s, s->xs, i, x, nb);
    SP_PREC(sp_mb_epar)(s->ep, i, n, e);
    SP_PREC(sp_mb_qi)(s, i, q);
    SP_PREC(mb_force)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
    for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) s->F[(uint64_t)v * n + i] = f[v];
  }
}

/* Kick every element's momenta by h F (s->F), then (c != 0) move the
 * positions by c with the new momenta. */
static void SP_PREC(sp_mb_kick_move)(SP_PREC(sp_mb_sys) *s, SP_REAL h, SP_REAL c) {
  const uint64_t n = s->n;
  SP_REAL x[SP_MB_NX], e[SP_MB_EN], f[SP_MB_NX];
  uint64_t i;
  int v;
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) x[v] = s->xs[(uint64_t)v * n + i];
    if (h != 0) {
      for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) f[v] = s->F[(uint64_t)v * n + i];
      SP_PREC(mb_kick)(x, f, h);
    }
    if (c != 0) {
      SP_PREC(sp_mb_epar)(s->ep, i, n, e);
      SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), c);
    }
    for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = x[v];
  }
}

/* One step of verlet or yoshida4 (DKD stages of mb_args.h) from time t. */
static void SP_PREC(sp_mb_step_split)(SP_PREC(sp_mb_sys) *s, int method, double t, double dt) {
  double d[4], c[4], tq = t;
  const int ns = sp_mb_stages(method, d, c);
  int a;
  for (a = 0; a < ns; a++) {
    if (d[a] != 0) SP_PREC(sp_mb_forces)(s, tq);
    SP_PREC(sp_mb_kick_move)(s, (SP_REAL)(d[a] * dt), (SP_REAL)(c[a] * dt));
    tq += c[a] * dt;
  }
}

/* One BAOAB step from time t (s->F holds the forces at xs on entry and on
 * exit). */
static void SP_PREC(sp_mb_step_baoab)(SP_PREC(sp_mb_sys) *s, double t, double dt, uint64_t seed,
                                     uint64_t stream, uint64_t kk, const double *c1,
                                     const double *c2, const int *which, const int *wz) {
  const uint64_t n = s->n;
  const SP_REAL hh = (SP_REAL)(0.5 * dt);
  SP_REAL x[SP_MB_NX], e[SP_MB_EN], f[SP_MB_NX], z[SP_MB_WN];
  uint64_t i;
  int v;
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) x[v] = s->xs[(uint64_t)v * n + i];
    for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) f[v] = s->F[(uint64_t)v * n + i];
    SP_PREC(sp_mb_epar)(s->ep, i, n, e);
    SP_PREC(mb_kick)(x, f, hh);
    SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), hh);
    SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z);
    for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) {
      const int st = which[v];
      x[st] = (SP_REAL)c1[v] * x[st] + (wz[v] >= 0 ? (SP_REAL)c2[v] * z[wz[v]] : (SP_REAL)0);
    }
    SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), hh);
    for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = x[v];
  }
  SP_PREC(sp_mb_forces)(s, t + dt);
  SP_PREC(sp_mb_kick_move)(s, hh, 0);
}

/* The system-level event at the state xs, time t. */
static int SP_PREC(sp_mb_event)(SP_PREC(sp_mb_sys) *s, double t) {
  SP_PREC(sp_mb_reduce)(s, s->xs, t, SP_MB_NT);
  return SP_PREC(mb_stop)(t, s->R, s->p, s->pd);
}

int SP_PREC(sp_mb_cpu_advance)(const sp_mb_job *job, const double *par, const double *ep,
                              uint64_t seed, uint64_t stream, double *x, double *work,
                              uint64_t *k, uint64_t kend, uint64_t *what) {
  SP_PREC(sp_mb_sys) s;
  const uint64_t n = job->n;
  const int method = (int)job->method;
  double c1[SP_MB_POS], c2[SP_MB_POS];
  int which[SP_MB_POS], wz[SP_MB_POS], st = SP_MB_RUNNING;
  uint64_t i;
  SP_PREC(sp_mb_setup)(job, par, ep, work, &s);
  for (i = 0; i < (uint64_t)SP_MB_NX * n; i++) s.xs[i] = (SP_REAL)x[i];
  if (job->use_stop && *k == 0 && SP_PREC(sp_mb_event)(&s, job->t0)) {
    st = SP_MB_STOPPED;
  } else {
    if (method == SP_MB_BAOAB && *k < kend) {
      SP_PREC(sp_mb_ou_coef)(s.p, job->dt, c1, c2, which, wz);
      SP_PREC(sp_mb_forces)(&s, job->t0 + (double)*k * job->dt);
    }
    while (*k < kend) {
      const double t = job->t0 + (double)*k * job->dt;
      const uint64_t kk = job->k0 + *k;
      int64_t bad;
      if (method == SP_MB_EULER || method == SP_MB_SRK2)
        SP_PREC(sp_mb_step_sde)(&s, method == SP_MB_SRK2, t, job->dt, seed, stream, kk);
      else if (method == SP_MB_BAOAB)
        SP_PREC(sp_mb_step_baoab)(&s, t, job->dt, seed, stream, kk, c1, c2, which, wz);
      else
        SP_PREC(sp_mb_step_split)(&s, method, t, job->dt);
      (*k)++;
      bad = SP_PREC(sp_mb_bad)(s.xs, n);
      if (bad >= 0) {
        *what = (uint64_t)bad;
        st = SP_MB_NONFINITE;
        break;
      }
      if (job->use_stop && SP_PREC(sp_mb_event)(&s, job->t0 + (double)*k * job->dt)) {
        st = SP_MB_STOPPED;
        break;
      }
    }
  }
  for (i = 0; i < (uint64_t)SP_MB_NX * n; i++) x[i] = (double)s.xs[i];
  return st;
}

void SP_PREC(sp_mb_cpu_observe)(const sp_mb_job *job, const double *par, const double *ep,
                               uint64_t k, const double *x, double *work, double *o) {
  SP_PREC(sp_mb_sys) s;
  SP_REAL ov[SP_MB_ON];
  const double t = job->t0 + (double)k * job->dt;
  uint64_t i;
  int v;
  SP_PREC(sp_mb_setup)(job, par, ep, work, &s);
  for (i = 0; i < (uint64_t)SP_MB_NX * job->n; i++) s.xs[i] = (SP_REAL)x[i];
  SP_PREC(sp_mb_reduce)(&s, s.xs, t, SP_MB_NT);
  SP_PREC(mb_observe)(t, s.R, s.p, s.pd, ov);
  for (v = 0; v < SP_MB_NO; v++) o[v] = (double)ov[v];
}
