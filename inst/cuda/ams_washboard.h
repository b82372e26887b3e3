/* ams_washboard.h: the tilted washboard of escape.h as a model of the AMS
 * algorithm (ams.h; escape_rate_ams()).  Included by ams.h once per
 * precision (SP_REAL, SP_REAL_SINGLE as for escape.h).
 *
 * A model of ams.h provides (the other is ams_sde.h, a user's SDE model):
 *   SP_AMS_NX, SP_AMS_NW, SP_AMS_M  reals of a state, normals of a step,
 *       steps of a macro-step (SP_AMS_M SP_AMS_NW a multiple of 4: the
 *       normals of a macro-step are whole Philox blocks);
 *   SP_AMS_COND  the condition (host struct, ams_args.h);
 *   SP_AMS_C_STREAM0(c), SP_AMS_C_H(c)  its stream of replica 1 and step;
 *   SP_AMS_C_BURN(c)  steps of equilibration after every start (0: none);
 *   SP_AMS_BM  Box-Muller in the working precision;
 *   SP_AMS_SCORE_FIRST  1 when the tests of A and B read the score (it is
 *       then computed after every step before them), 0 when they read the
 *       state only (the score is computed after them, where needed);
 *   sp_ams_start  start j of the long trajectory (double; both precisions);
 *   and, per precision: the parameters sp_ams_par and their load
 *   (sp_ams_par_load), the step (sp_ams_mstep: from x with the step's
 *   SP_AMS_NW normals z), the score (sp_ams_mscore), the tests of A and B
 *   (sp_ams_in_A, sp_ams_in_B: of a state and its score), the state before
 *   a step that the crossing into B is interpolated from (sp_ams_prev,
 *   sp_ams_prev_set) and that fraction (sp_ams_frac).
 *
 * Here: the state (phi, v); A = {phi <= phiA}; B = {phi > th}, the crossing
 * interpolated linearly in phi; the score the position or the energy. */
#include "escape.h"

#ifndef SP_AMS_WASHBOARD_DEFINED
#define SP_AMS_WASHBOARD_DEFINED
#define SP_AMS_NX 2
#define SP_AMS_NW 1
#define SP_AMS_M 4
#define SP_AMS_SCORE_FIRST 0
#define SP_AMS_COND sp_ams_cond
#define SP_AMS_C_STREAM0(c) ((c)->esc.stream0)
#define SP_AMS_C_H(c) ((c)->esc.h)
#define SP_AMS_C_BURN(c) 0

/* Start j of the long trajectory: j = 0 the start of escape_times()'s path
 * (at rest, or its thermal draw), j >= 1 a thermal draw of its own. */
SP_FN void sp_ams_start(const sp_ams_cond *c, const double *tables, uint64_t seed,
                        uint64_t stream, uint64_t j, double *x) {
  if (j == 0 || c->esc.start_table < 0) {
    sp_escape_start(&c->esc, tables, seed, stream, &x[0], &x[1]);
  } else {
    sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_AMS_BRANCH, stream,
                                         (1ull << 32) | (j - 1));
    sp_escape_start_draw(&c->esc, tables, r, &x[0], &x[1]);
  }
}
#endif

#undef SP_AMS_BM
#undef SP_AMS_SINCOS
#define SP_AMS_BM SP_ESCAPE_BM
#ifdef SP_REAL_SINGLE
#  define SP_AMS_SINCOS sp_sincos_f
#else
#  define SP_AMS_SINCOS sp_sincos_d
#endif

typedef struct {
  SP_ESCAPE(sp_escape_par) e;
  SP_REAL phiA;
  int score; /* SP_AMS_SCORE_* */
} SP_PREC(sp_ams_par);

typedef SP_REAL SP_PREC(sp_ams_prev); /* phi before the step */

SP_FN void SP_PREC(sp_ams_par_load)(SP_PREC(sp_ams_par) *p, const sp_ams_cond *c,
                                    const double *tables) {
  (void)tables;
  SP_ESCAPE(sp_escape_par_load)(&p->e, &c->esc);
  p->phiA = (SP_REAL)c->phiA;
  p->score = c->score;
}

SP_FN void SP_PREC(sp_ams_mstep)(const SP_PREC(sp_ams_par) *p, int heun, const SP_REAL *z,
                                 SP_REAL *x) {
  SP_ESCAPE(sp_escape_step)(&p->e, heun, p->e.g, p->e.g, &x[0], &x[1], z[0]);
}

/* The position, or the energy v^2/2 - V0 (cos phi + gamma phi). */
SP_FN SP_REAL SP_PREC(sp_ams_mscore)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x) {
  SP_REAL s, c;
  if (p->score == SP_AMS_SCORE_POSITION) return x[0];
  SP_AMS_SINCOS(x[0], &s, &c);
  return (SP_REAL)0.5 * x[1] * x[1] - p->e.V0 * (c + p->e.g * x[0]);
}

SP_FN int SP_PREC(sp_ams_in_A)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x, SP_REAL s) {
  (void)s;
  return x[0] <= p->phiA;
}

SP_FN int SP_PREC(sp_ams_in_B)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x, SP_REAL s) {
  (void)s;
  return x[0] > p->e.th;
}

SP_FN void SP_PREC(sp_ams_prev_set)(SP_PREC(sp_ams_prev) *q, const SP_REAL *x) { *q = x[0]; }

SP_FN SP_REAL SP_PREC(sp_ams_frac)(const SP_PREC(sp_ams_par) *p, const SP_PREC(sp_ams_prev) *q,
                                   const SP_REAL *x) {
  return (p->e.th - *q) / (x[0] - *q);
}
