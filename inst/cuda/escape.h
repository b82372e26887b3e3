/* escape.h: escape over a tilted washboard (paper 000), one source for the
 * CPU engine (src/core/sp_escape*.c) and the GPU kernel (escape.cu).
 *
 *   phi'' + beta phi' = V0 (gamma(t) - sin phi) + sqrt(2 D) xi(t),  D = beta theta
 *
 * in the normalised units of REFERENCES.md section 2.  Before including,
 * define SP_REAL to float (with SP_REAL_SINGLE) or double (the default); the
 * functions are named sp_escape_*_f or sp_escape_*_d accordingly, so both precisions
 * can live in one program.
 *
 * Steps (k = 1, 2, ... is the step index, t_k = k h, normal z_k):
 *   euler (Algorithm 1; Algorithm 3 under a ramp, with the bias gamma_k):
 *     phi_k = phi_{k-1} + h v_{k-1}
 *     v_k   = v_{k-1} + h a(phi_{k-1}, v_{k-1}, gamma_k) + sigma z_k
 *   srk2 (stochastic Heun, Algorithm 2 of paper 001, additive noise on v):
 *     a0 = a(phi, v, gamma_{k-1});  phi~ = phi + h v;  v~ = v + h a0 + sigma z_k
 *     phi_k = phi + h (v + v~) / 2;  v_k = v + h (a0 + a(phi~, v~, gamma_k)) / 2 + sigma z_k
 *   with a(phi, v, g) = V0 (g - sin phi) - beta v and sigma = sqrt(2 D h).
 * A path escapes at the first step with phi_k > th; the crossing time is
 * interpolated linearly inside that step.  The bias is gamma_k = g0 + k dg,
 * formed from the 64-bit step count in double precision (no running sum).
 *
 * The threshold th is the saddle pi - asin(g0) (Algorithm 1), a point past
 * it, or the bottom of the next well; the host sets it (escape_args.h).
 *
 * Random numbers (sp_streams.h): path p of condition c uses Philox stream
 * c 2^40 + (replica - 1); step k uses normal k - 1 of that stream
 * (purpose SP_PURPOSE_ESCAPE_STEPS), i.e. steps 4m+1 .. 4m+4 use block m
 * (the four draws of one counter value, Box-Muller in pairs) -- exactly
 * philox_normal(., stream, offset = 0).  A thermal start draws from purpose
 * SP_PURPOSE_ESCAPE_START of the same stream. */

#include "escape_args.h"
#include "sp_streams.h"

#ifndef SP_REAL
#  define SP_REAL double
#endif

#undef SP_ESCAPE
#undef SP_ESCAPE_SIN
#undef SP_ESCAPE_BM

/* name suffix and precision-specific helpers */
#include "sp_precision.h"
#define SP_ESCAPE(name) SP_PREC(name)
#ifdef SP_REAL_SINGLE
#  define SP_ESCAPE_SIN sp_sin_f
#  define SP_ESCAPE_BM sp_box_muller_float
#else
#  define SP_ESCAPE_SIN sp_sin_d
#  define SP_ESCAPE_BM sp_box_muller_double
#endif

/* A condition in the working precision. */
typedef struct {
  SP_REAL h, hh, beta, V0, sigma, th, g;
  double g0, dg;
  int ramp;
} SP_ESCAPE(sp_escape_par);

SP_FN void SP_ESCAPE(sp_escape_par_load)(SP_ESCAPE(sp_escape_par) *p, const sp_escape_cond *c) {
  p->h = (SP_REAL)c->h;
  p->hh = (SP_REAL)(0.5 * c->h);
  p->beta = (SP_REAL)c->beta;
  p->V0 = (SP_REAL)c->V0;
  p->sigma = (SP_REAL)c->sigma;
  p->th = (SP_REAL)c->th;
  p->g = (SP_REAL)c->g0;
  p->g0 = c->g0;
  p->dg = c->dg;
  p->ramp = c->dg != 0.0;
}

SP_FN SP_REAL SP_ESCAPE(sp_escape_accel)(const SP_ESCAPE(sp_escape_par) *p, SP_REAL phi, SP_REAL v,
                                 SP_REAL g) {
  return p->V0 * (g - SP_ESCAPE_SIN(phi)) - p->beta * v;
}

/* srk2's step (sp_heun.h) on a(phi, v, g). */
#define SP_HEUN_STEP SP_ESCAPE(sp_escape_heun)
#define SP_HEUN_PAR SP_ESCAPE(sp_escape_par)
#define SP_HEUN_ACCEL SP_ESCAPE(sp_escape_accel)
#include "sp_heun.h"

/* One step from (phi, v) with normal z; g0, g1 are the biases at the start
 * and at the end of the step (equal at fixed bias). */
SP_FN void SP_ESCAPE(sp_escape_step)(const SP_ESCAPE(sp_escape_par) *p, int heun, SP_REAL g0,
                             SP_REAL g1, SP_REAL *phi, SP_REAL *v, SP_REAL z) {
  SP_REAL dW = p->sigma * z;
  if (heun) {
    SP_ESCAPE(sp_escape_heun)(p, p->h, p->hh, g0, g1, dW, phi, v);
  } else {
    SP_REAL a = SP_ESCAPE(sp_escape_accel)(p, *phi, *v, g1);
    *phi = *phi + p->h * *v;
    *v = *v + p->h * a + dW;
  }
}

/* The four normals of a Philox block, Box-Muller in pairs. */
SP_FN void SP_ESCAPE(sp_escape_normals4)(sp_u32x4 r, SP_REAL *z) {
  SP_ESCAPE_BM(r.x, r.y, &z[0], &z[1]);
  SP_ESCAPE_BM(r.z, r.w, &z[2], &z[3]);
}

/* Four steps k+1 .. k+4 from the four normals z of Philox block k/4
 * (sp_escape_normals4).  gbase is the bias at step k, g0 + k dg, formed in
 * double from the step count by the caller (ignored at fixed bias).  Returns
 * the 1-based index (1..4) of the first step that crossed the threshold,
 * with *frac its interpolation fraction in (0, 1], or 0.  The caller
 * compares k + hit with kmax: a first crossing past kmax means the path is
 * censored.  No 64-bit integer arithmetic, so that the CPU engine's loop
 * over lanes vectorises. */
SP_FN int SP_ESCAPE(sp_escape_macro4z)(const SP_ESCAPE(sp_escape_par) *p, int heun,
                                       const SP_REAL *z, double gbase, SP_REAL *phi, SP_REAL *v,
                                       SP_REAL *frac) {
  SP_REAL g[5], ph[5], vv = *v;
  int j;
  SP_UNROLL
  for (j = 0; j < 5; j++)
    g[j] = p->ramp ? (SP_REAL)(gbase + (double)j * p->dg) : p->g;
  ph[0] = *phi;
  SP_UNROLL
  for (j = 0; j < 4; j++) {
    ph[j + 1] = ph[j];
    SP_ESCAPE(sp_escape_step)(p, heun, g[j], g[j + 1], &ph[j + 1], &vv, z[j]);
  }
  *phi = ph[4];
  *v = vv;
  {
    /* the first step whose end lies past the threshold, by selects on
     * comparisons of one lane width (a loop over lanes vectorises) */
    const SP_REAL th = p->th;
    int c1 = ph[1] > th, c2 = ph[2] > th, c3 = ph[3] > th, c4 = ph[4] > th;
    SP_REAL a = c1 ? ph[0] : (c2 ? ph[1] : (c3 ? ph[2] : ph[3]));
    SP_REAL b = c1 ? ph[1] : (c2 ? ph[2] : (c3 ? ph[3] : ph[4]));
    SP_REAL hit = c1 ? (SP_REAL)1 : (c2 ? (SP_REAL)2 : (c3 ? (SP_REAL)3 :
                  (c4 ? (SP_REAL)4 : (SP_REAL)0)));
    *frac = hit > (SP_REAL)0 ? (th - a) / (b - a) : (SP_REAL)1;
    return (int)hit;
  }
}

/* The same from the block's four draws r. */
SP_FN int SP_ESCAPE(sp_escape_macro4)(const SP_ESCAPE(sp_escape_par) *p, int heun, sp_u32x4 r,
                              double gbase, SP_REAL *phi, SP_REAL *v, SP_REAL *frac) {
  SP_REAL z[4];
  SP_ESCAPE(sp_escape_normals4)(r, z);
  return SP_ESCAPE(sp_escape_macro4z)(p, heun, z, gbase, phi, v, frac);
}

/* The normals of path state k's block (the GPU kernel: drawn a macro-step
 * ahead, off the state's dependent chain). */
SP_FN void SP_ESCAPE(sp_escape_draw)(uint64_t seed, uint64_t stream, uint64_t k, SP_REAL *z) {
  SP_ESCAPE(sp_escape_normals4)(
      sp_philox_purpose_block(seed, SP_PURPOSE_ESCAPE_STEPS, stream, k >> 2), z);
}

/* The macro-step of path state k (a multiple of 4) from its block's
 * normals z, drawn before (sp_escape_draw): the bias at step k formed in
 * double from the step count.  The caller compares k + hit with kmax (a
 * crossing past kmax is a censored path's pending crossing,
 * sp_escape_state). */
SP_FN int SP_ESCAPE(sp_escape_macro_z)(const SP_ESCAPE(sp_escape_par) *p, int heun,
                                       const SP_REAL *z, uint64_t k, SP_REAL *phi, SP_REAL *v,
                                       SP_REAL *frac) {
  double gbase = p->ramp ? p->g0 + (double)k * p->dg : 0.0;
  return SP_ESCAPE(sp_escape_macro4z)(p, heun, z, gbase, phi, v, frac);
}

/* What a finished path reports: the escape time (fixed bias) or the bias at
 * switching (ramp), from the crossing step kc (1-based) and fraction.  With
 * kc = k and frac = 1: what a path reached after k steps (k = 0: its
 * start, t = 0 or gamma0). */
SP_FN double SP_ESCAPE(sp_escape_value)(const sp_escape_cond *c, uint64_t kc, double frac) {
  double t = ((double)kc - 1.0 + frac) * c->h;
  return c->dg != 0.0 ? c->g0 + ((double)kc - 1.0 + frac) * c->dg : t;
}

/* A continued path that stands at step k (a multiple of 4) with a crossing
 * hit (1..4, fraction frac; 0: none) pending in its last macro-step, under
 * condition c (its kmax and vcens those of the continued run): 1 when it
 * ends there without another step -- the pending crossing lies within
 * kmax (*value its escape value, or vcens if that lies past vcens), or it
 * is censored again (k >= kmax, or the crossing lies past kmax) -- with
 * *status as the results say; 0 when it runs on.  This is what one run
 * with c's kmax and vcens does at step k. */
SP_FN int SP_ESCAPE(sp_escape_settle)(const sp_escape_cond *c, uint64_t k, int hit, double frac,
                                      double *value, int *status) {
  if (hit > 0 && k - 4 + (uint64_t)hit <= c->kmax) {
    double val = SP_ESCAPE(sp_escape_value)(c, k - 4 + (uint64_t)hit, frac);
    *value = val <= c->vcens ? val : c->vcens;
    *status = val <= c->vcens ? SP_ESCAPE_ESCAPED : SP_ESCAPE_CENSORED;
    return 1;
  }
  if (hit > 0 || k >= c->kmax) {
    *value = c->vcens;
    *status = SP_ESCAPE_CENSORED;
    return 1;
  }
  return 0;
}

#ifndef SP_ESCAPE_START_DEFINED
#define SP_ESCAPE_START_DEFINED
/* The start of path `stream`: at rest at the bottom of the well, or drawn
 * from the Boltzmann law of the well (purpose SP_PURPOSE_ESCAPE_START, block
 * 0 of the path's stream: one uniform for phi, a Box-Muller pair for v).
 * phi: the tabulated CDF is inverted by bisection, and exactly inside a knot
 * interval, where the log density is linear (a piece of exponential).  In
 * double precision on both backends; the same for every precision.
 * sp_escape_start_draw is the thermal draw itself from the four words r of
 * a Philox block (the AMS engine, ams.h, restarts its long trajectory with
 * blocks of its own). */
SP_FN void sp_escape_start_draw(const sp_escape_cond *c, const double *tables, sp_u32x4 r,
                                double *phi, double *v) {
  const double *cdf, *logd;
  double u, z0, z1, w, s, x;
  int lo = 0, hi = SP_ESCAPE_KNOTS - 1;
  u = sp_u01_double(r.x);
  sp_box_muller_double(r.z, r.w, &z0, &z1);
  *v = c->start_vsd * z0;
  cdf = tables + c->start_table;
  logd = cdf + SP_ESCAPE_KNOTS;
  while (hi - lo > 1) { /* cdf[lo] <= u < cdf[hi] */
    int mid = (lo + hi) / 2;
    if (cdf[mid] <= u) lo = mid;
    else hi = mid;
  }
  w = (u - cdf[lo]) / (cdf[lo + 1] - cdf[lo]);
  s = (logd[lo + 1] - logd[lo]) / c->start_step; /* slope of the log density */
  x = fabs(s * c->start_step) < 1e-9 ? w * c->start_step
                                      : log1p(w * expm1(s * c->start_step)) / s;
  *phi = c->start_lo + ((double)lo * c->start_step + x);
}
SP_FN void sp_escape_start(const sp_escape_cond *c, const double *tables, uint64_t seed,
                           uint64_t stream, double *phi, double *v) {
  sp_u32x4 r;
  if (c->start_table < 0) {
    *phi = c->phi0;
    *v = 0.0;
    return;
  }
  r = sp_philox_purpose_block(seed, SP_PURPOSE_ESCAPE_START, stream, 0);
  sp_escape_start_draw(c, tables, r, phi, v);
}

#endif
