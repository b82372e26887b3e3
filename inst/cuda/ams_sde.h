/* ams_sde.h: a user's SDE model (sde_model()) and score as a model of the
 * AMS algorithm (ams.h; sde_ams()), for its CPU object and its kernels.
 * Included by ams.h (with SP_AMS_SDE defined) once per precision, after
 * sde_prelude.h, the model's generated header sde_model.h, sde_engine.h
 * (its step: sp_sde_step) and the score's generated header
 * sde_ams_score.h (sde_ams_score(t, x, p)).  What a model provides is
 * listed in ams_washboard.h.
 *
 * The state: the model's states; the step: sde_engine.h's (euler or srk2,
 * with its Ito/Stratonovich corrections; the model is autonomous: t = 0;
 * its parameters in the working precision and in double, as sde_run()'s;
 * the run of coarse increments of sde_run() is not followed here);
 * SP_AMS_NW = the model's noise entries, SP_AMS_M its macro-step
 * (SP_SDE_M); A = {score <= zA} (or {edge <= zA}, a coordinate of its
 * own: SP_AMS_SDE_EDGE); B = {score >= zB}, the crossing
 * interpolated linearly in the score, or (use_stop) the model's stop
 * event, the crossing interpolated in its gap where the event is a
 * comparison (as sde_run()'s passage), else at the end of the step. */

#ifndef SP_AMS_SDE_DEFINED
#define SP_AMS_SDE_DEFINED
#define SP_AMS_NX SP_SDE_NX
#define SP_AMS_NW SP_SDE_NW
#define SP_AMS_M SP_SDE_M
#define SP_AMS_SCORE_FIRST 1
#define SP_AMS_COND sp_ams_sde_cond
#define SP_AMS_C_STREAM0(c) ((c)->stream0)
#define SP_AMS_C_H(c) ((c)->h)
#define SP_AMS_C_BURN(c) ((c)->burn)
#if SP_SDE_NW < 1
#  error "AMS needs a model with noise"
#endif

/* Start j of the long trajectory: the condition's start state, or its
 * draw j from the replica's stream (sp_ams_sde_start). */
SP_FN void sp_ams_start(const sp_ams_sde_cond *c, const double *tables, uint64_t seed,
                        uint64_t stream, uint64_t j, double *x) {
  sp_ams_sde_start(c, tables, SP_SDE_NX, seed, stream, j, x);
}
#endif

#undef SP_AMS_BM
#define SP_AMS_BM SP_SDE_BM

typedef struct {
  SP_REAL p[SP_SDE_NP > 0 ? SP_SDE_NP : 1];
  double pd[SP_SDE_NP > 0 ? SP_SDE_NP : 1];
  SP_REAL h, sdt, zA, zB;
  int use_stop;
} SP_PREC(sp_ams_par);

typedef struct {
  SP_REAL x[SP_SDE_NX];
} SP_PREC(sp_ams_prev);

SP_FN void SP_PREC(sp_ams_par_load)(SP_PREC(sp_ams_par) *p, const sp_ams_sde_cond *c,
                                    const double *tables) {
  int i;
  for (i = 0; i < SP_SDE_NP; i++) {
    p->p[i] = (SP_REAL)tables[c->par0 + i];
    p->pd[i] = tables[c->par0 + i];
  }
  p->h = (SP_REAL)c->h;
  p->sdt = (SP_REAL)sqrt(c->h);
  p->zA = (SP_REAL)c->zA;
  p->zB = (SP_REAL)c->zB;
  p->use_stop = (int)c->use_stop;
}

SP_FN void SP_PREC(sp_ams_mstep)(const SP_PREC(sp_ams_par) *p, int heun, const SP_REAL *z,
                                 SP_REAL *x) {
  /* (a model of sde_ams() does not depend on t: no time terms) */
  const SP_REAL tt[SP_SDE_TN] = {0};
  (void)SP_PREC(sp_sde_step)(p->p, p->pd, heun, 0.0, 0.0, tt, tt, p->h, p->sdt, z, x);
}

/* The score of a state.  On the GPU one compiled copy (not inlined), so
 * that every place that scores a state -- a particle's origin, each of its
 * steps, a branch point, the long trajectory -- rounds it alike: inlined at
 * each place, the compiler fused a score's multiply-adds at some and not at
 * others (the energy v^2/2 - V0 (cos phi + gamma phi): gamma phi + cos phi
 * one fma in three places of the PTX, a mul and an add in a fourth), and a
 * state scored one unit of the last place apart at two places breaks the
 * exact ties of particles' largest scores that the level's kill rule
 * (maxs <= z) takes whole on the CPU: other kills, other paths (session 18,
 * bench/RESULTS.md).  On the CPU the compiler fuses nothing (R's flags: no
 * FMA at the x86-64 baseline), so the score stays inline there. */
#if SP_CUDA
#  define SP_AMS_SCORE_FN static __device__ __noinline__
#else
#  define SP_AMS_SCORE_FN SP_FN
#endif
SP_AMS_SCORE_FN SP_REAL SP_PREC(sp_ams_mscore)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x) {
  return SP_PREC(sde_ams_score)((SP_REAL)0, x, p->p);
}

#if defined(SP_AMS_SDE_EDGE) && SP_AMS_SDE_EDGE
/* A's own coordinate (sde_ams(start_coordinate =)), one copy likewise. */
SP_AMS_SCORE_FN SP_REAL SP_PREC(sp_ams_medge)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x) {
  return SP_PREC(sde_ams_edge)((SP_REAL)0, x, p->p);
}
#endif

/* A = {score <= zA}, or (the score's header defines SP_AMS_SDE_EDGE:
 * sde_ams(start_coordinate =)) A = {coordinate <= zA} on a coordinate of
 * its own, sde_ams_edge(t, x, p). */
SP_FN int SP_PREC(sp_ams_in_A)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x, SP_REAL s) {
#if defined(SP_AMS_SDE_EDGE) && SP_AMS_SDE_EDGE
  (void)s;
  return SP_PREC(sp_ams_medge)(p, x) <= p->zA;
#else
  (void)x;
  return s <= p->zA;
#endif
}

SP_FN int SP_PREC(sp_ams_in_B)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x, SP_REAL s) {
#if SP_SDE_HAS_STOP
  if (p->use_stop) {
    const SP_REAL tt[SP_SDE_TN] = {0};
    return SP_PREC(sde_stop)(0.0, tt, x, p->p, p->pd);
  }
#endif
  (void)x;
  return s >= p->zB;
}

SP_FN void SP_PREC(sp_ams_prev_set)(SP_PREC(sp_ams_prev) *q, const SP_REAL *x) {
  int d;
  SP_UNROLL
  for (d = 0; d < SP_SDE_NX; d++) q->x[d] = x[d];
}

/* The fraction of the step before the crossing into B (only after a step
 * that ended in B: the scores or gaps are computed again here). */
SP_FN SP_REAL SP_PREC(sp_ams_frac)(const SP_PREC(sp_ams_par) *p, const SP_PREC(sp_ams_prev) *q,
                                   const SP_REAL *x) {
  SP_REAL g0 = p->zB - SP_PREC(sp_ams_mscore)(p, q->x), g1 = p->zB - SP_PREC(sp_ams_mscore)(p, x);
  SP_REAL f;
#if SP_SDE_HAS_STOP
  if (p->use_stop) {
#  if SP_SDE_STOP_GAP
    const SP_REAL tt[SP_SDE_TN] = {0};
    g0 = SP_PREC(sde_gap)(0.0, tt, q->x, p->p, p->pd);
    g1 = SP_PREC(sde_gap)(0.0, tt, x, p->p, p->pd);
#  else
    return (SP_REAL)1;
#  endif
  }
#endif
  f = g1 != g0 ? g0 / (g0 - g1) : (SP_REAL)1;
  if (!(f > (SP_REAL)0)) f = (SP_REAL)0;
  if (!(f <= (SP_REAL)1)) f = (SP_REAL)1;
  return f;
}
