/* sde_engine.h: the generic per-path loop of a user's SDE model, one source
 * for the CPU (the model's shared object, sde_cpu.h) and the GPU (sde.cu).
 *
 * Include after the model's generated header (sde_code()), with SP_REAL
 * float (and SP_REAL_SINGLE) or double; names get the suffix _f or _d
 * (SP_PREC() of sp_precision.h), so both precisions live in one object.  The header defines
 * SP_SDE_NX (states), SP_SDE_NW (noise entries), SP_SDE_NP, SP_SDE_NO and
 * the functions drift_ito, drift_strat, noise, apply_noise, stop, gap,
 * gap_var, observe of the model, each of (t, x, p, pd, ...): t the time in
 * double, x the state and p the parameters in the working precision, pd
 * the parameters in double (the model's subexpressions of t and the
 * parameters only, such as cos(omega * t), are evaluated in double from t
 * and pd and rounded once to the working precision; see sde_time_c()).
 *
 * Steps (k = 0, 1, ...; t_k = k dt, formed in double from the step count;
 * dW = sqrt(dt) z, one normal per noise entry):
 *   euler (Euler-Maruyama, solves Ito): x' = x + d, d = a_I(t_k, x) dt + b(t_k, x) dW
 *   srk2 (stochastic Heun, solves Stratonovich):
 *     y = x + a_S(t_k, x) dt + b(t_k, x) dW
 *     x' = x + d, d = (a_S(t_k, x) + a_S(t_k+1, y)) dt / 2 + (b(t_k, x) + b(t_k+1, y)) dW / 2
 * where a_I and a_S are the drift in Ito and Stratonovich form (the model's
 * drift, corrected by -/+ b db/dx / 2 where the noise is multiplicative).
 * The increment d is formed first and added to the state once.
 *
 * Random numbers (sp_streams.h): replica r of condition c draws from stream
 * c 2^40 + r, purpose SP_PURPOSE_SDE_STEPS; step k + 1 (from t_k) uses
 * normals k NW .. k NW + NW - 1 of that sequence, normal d being element
 * d mod 4 of block d / 4 (Box-Muller on the pairs (x, y) and (z, w) of the
 * block).  Steps go in macro-steps of SP_SDE_M steps, SP_SDE_M NW / 4 whole
 * blocks; a path can stop anywhere inside one (records, a round's end) and
 * resumes with the same numbers.  The Brownian bridge (below) draws block k
 * of purpose SP_PURPOSE_SDE_BRIDGE of the same stream for step k + 1, only
 * where it needs it.
 *
 * Stop: a step that ends with the stop event true ends the path at that step;
 * where the event is a comparison lhs > rhs (or <, >=, <=), the crossing
 * time is interpolated linearly in gap = lhs - rhs inside the step (as
 * escape_times() does), otherwise it is the end of the step.  An event
 * already true at t = 0 stops the path at 0.
 *
 * Brownian bridge (use_bridge, where the model defines SP_SDE_BRIDGE: the
 * event is a comparison whose gap g carries noise, with sde_gap_var =
 * sigma^2 = sum_i (dg/dx_i b_i)^2 > 0 at the step's start): a step that
 * starts at g0 < 0 and ends at g1 <= 0 (the event false at both ends)
 * crossed the level inside with probability exp(-2 g0 g1 / (sigma^2 dt)),
 * the law of the maximum of a Brownian bridge; the step is tested with the
 * uniform of word x of the bridge block, where that probability exceeds
 * e^-24 (below it, the uniform's resolution; the test is skipped).  The
 * time of a crossing inside a step -- found by the test, or seen at its
 * end -- is the first passage time of the bridge from g0 to |g1| (the
 * reflection principle: a bridge from g0 to g1 <= 0 that touches 0,
 * reflected at its first touch, ends at -g1), sampled exactly: with the
 * time change s = t dt / (dt - t) the bridge is a Brownian motion of drift
 * |g1| / dt from g0, whose passage time S to 0 is inverse Gaussian
 * (mean -g0 dt / |g1|, shape g0^2 / sigma^2), drawn by Michael, Schucany
 * and Haas (1976) from the normal of words (y, z) and the uniform of word
 * w; t = S dt / (dt + S).
 *
 * Resolution: a step of state i is coarse where it moved the state (x_i +
 * d_i != x_i) by an increment |d_i| < 2^(5-p) |x_i| (p = 24 single, 53
 * double: the increment kept fewer than about 5 of the p bits of x_i).
 * The test is made at the last step of each macro-step (the steps k + 1
 * that are multiples of SP_SDE_M), whose steps are alike: the path counts
 * the steps, SP_SDE_M at a time, of the macro-steps in a row whose last
 * step was coarse in some state (run, carried with its state; a state at
 * rest, whose increments are lost, does not count: a relaxation rounded to
 * rest is no stall, and an accumulating state moves through coarse steps
 * for long before its increments are lost).  A stalled state is coarse at
 * every step, so that testing one step in SP_SDE_M finds it as soon; the
 * other steps skip the test (a compare pair a state and the run's update,
 * some 7 per cent of a two-state SRK2 step on the GPU).  When
 * the run reaches SP_SDE_STALL_STEPS, the step's state is examined
 * (sp_sde_stalled_state): a state whose drift increment is coarse there
 * stalls -- the path stops with SP_SDE_STALLED, the state in *what --
 * unless the drift field has a zero within 2^(13-p) |x_i| of it (about
 * 2^10 units of its last place: some component of the drift changes sign
 * between x_i - that and x_i + that), where the state rests at a fixed
 * point of the dynamics, as a relaxation rounded to its last place does;
 * then the run starts again.  An accumulating state (a drift that does
 * not fall as the state grows) stalls; noise keeps increments large.
 *
 * A state that is NaN or infinite at the end of a macro-step is traced
 * back to its first step and state (the macro-step is redone step by
 * step).
 *
 * Time terms: the model's subexpressions of t and the parameters only
 * (SP_SDE_NT of them; a drive a cos(omega t) + f) are the generated
 * sde_time_terms(t, pd, tt), in double, rounded once to the working
 * precision; the model's functions read them as tt[] (their argument after
 * t).  Every step time is a multiple k dt of the step (t and t + dt of
 * SRK2's two stages are steps k and k + 1), so a path needs them once per
 * step, not once per stage: the step's end values are the next step's
 * start values.  Where the caller has them already for all the paths of a
 * condition (use_tab: a table of rows of SP_SDE_TN values, row i for step
 * tab_k0 + i, filled once per launch on the GPU -- sde.cu's
 * sp_sde_time_kernel), the steps read them there, one uniform load a
 * step; else they compute them (sp_sde_time), once a step (the CPU's
 * vector loop: there a table filled by the scalar copy cost more than the
 * lanes' vectorised polynomials it saved, bench/RESULTS.md).  The same
 * numbers either way: the same function of the same double t = k dt. */
#include "sde_args.h"
#include "sp_streams.h"

#ifndef SP_REAL
#  define SP_REAL double
#endif

#ifndef SP_SDE_BRIDGE
#  define SP_SDE_BRIDGE 0
#endif

#ifndef SP_SDE_ENGINE_CONSTANTS
#define SP_SDE_ENGINE_CONSTANTS
/* normals of a macro-step: a multiple of 4 */
#  if SP_SDE_NW % 4 == 0
#    define SP_SDE_M 1
#  elif SP_SDE_NW % 2 == 0
#    define SP_SDE_M 2
#  else
#    define SP_SDE_M 4
#  endif
#  define SP_SDE_ZN (SP_SDE_NW > 0 ? SP_SDE_M * SP_SDE_NW : 1)
#  define SP_SDE_WN (SP_SDE_NW > 0 ? SP_SDE_NW : 1)
#  ifndef SP_SDE_NB
#    define SP_SDE_NB SP_SDE_NW /* entries of the noise: diagonal, one a process */
#  endif
#  define SP_SDE_BN (SP_SDE_NB > 0 ? SP_SDE_NB : 1)
#  ifndef SP_SDE_NT
#    define SP_SDE_NT 0 /* time terms (see "Time terms") */
#  endif
#  define SP_SDE_TN (SP_SDE_NT > 0 ? SP_SDE_NT : 1)
#  define SP_SDE_NO_TAB ((const SP_REAL *)0) /* no table: the time terms computed */
#  define SP_SDE_ON (SP_SDE_NO > 0 ? SP_SDE_NO : 1)
/* steps in a row with a coarse increment that stop a path */
#  define SP_SDE_STALL_STEPS 65536u
/* the bridge's test is skipped where 2 g0 g1 / (sigma^2 dt) exceeds this */
#  define SP_SDE_BRIDGE_ARG 24
#endif

/* the bounds of a coarse increment, relative to the state (per precision) */
#undef SP_SDE_COARSE_HI
#undef SP_SDE_REST
#ifdef SP_REAL_SINGLE
#  define SP_SDE_COARSE_HI 1.9073486328125e-06f /* 2^-19 = 2^(5 - 24) */
#  define SP_SDE_REST 1.220703125e-04f          /* 2^-13 = 2^(11 - 24) */
#else
#  define SP_SDE_COARSE_HI 3.552713678800500929355621337890625e-15 /* 2^-48 */
#  define SP_SDE_REST 2.2737367544323205947875976562500e-13 /* 2^-42 */
#endif

/* The normals of the macro-step that starts at step k0 (a multiple of
 * SP_SDE_M). */
SP_FN void SP_PREC(sp_sde_normals)(uint64_t seed, uint64_t stream, uint64_t k0, SP_REAL *z) {
#if SP_SDE_NW > 0
  const uint64_t b0 = k0 * SP_SDE_NW / 4;
  int b;
  SP_UNROLL
  for (b = 0; b < SP_SDE_M * SP_SDE_NW / 4; b++) {
    sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_SDE_STEPS, stream, b0 + (uint64_t)b);
    SP_SDE_BM(r.x, r.y, &z[4 * b], &z[4 * b + 1]);
    SP_SDE_BM(r.z, r.w, &z[4 * b + 2], &z[4 * b + 3]);
  }
#else
  (void)seed; (void)stream; (void)k0; z[0] = 0;
#endif
}

/* The same from the seed's round keys (sp_philox_keys): the same normals. */
SP_FN void SP_PREC(sp_sde_normals_keyed)(const uint32_t *keys, uint64_t stream, uint64_t k0,
                                         SP_REAL *z) {
#if SP_SDE_NW > 0
  const uint64_t b0 = k0 * SP_SDE_NW / 4;
  int b;
  SP_UNROLL
  for (b = 0; b < SP_SDE_M * SP_SDE_NW / 4; b++) {
    const uint64_t blk = (b0 + (uint64_t)b) | ((uint64_t)SP_PURPOSE_SDE_STEPS << (32 + SP_PURPOSE_SHIFT));
    sp_u32x4 c, r;
    c.x = (uint32_t)blk;
    c.y = (uint32_t)(blk >> 32);
    c.z = (uint32_t)stream;
    c.w = (uint32_t)(stream >> 32);
    r = sp_philox4x32_10_keyed(c, keys);
    SP_SDE_BM(r.x, r.y, &z[4 * b], &z[4 * b + 1]);
    SP_SDE_BM(r.z, r.w, &z[4 * b + 2], &z[4 * b + 3]);
  }
#else
  (void)keys; (void)stream; (void)k0; z[0] = 0;
#endif
}

/* The time terms at t (see "Time terms"). */
SP_FN void SP_PREC(sp_sde_time)(double t, const double *pd, SP_REAL *tt) {
#if SP_SDE_NT > 0
  SP_PREC(sde_time_terms)(t, pd, tt);
#else
  (void)t; (void)pd;
  tt[0] = (SP_REAL)0;
#endif
}

/* The time terms of step k (time t = k dt): row k - tab_k0 of the table
 * where use_tab, else computed.  (use_tab is a constant of each caller:
 * one of the two branches is compiled.) */
SP_FN void SP_PREC(sp_sde_time_at)(int use_tab, const SP_REAL *tab, uint64_t tab_k0, uint64_t k,
                                   double t, const double *pd, SP_REAL *tt) {
  int i;
  if (use_tab) {
    const SP_REAL *row = tab + (k - tab_k0) * (uint64_t)SP_SDE_TN;
    SP_UNROLL
    for (i = 0; i < SP_SDE_TN; i++) tt[i] = row[i];
  } else {
    SP_PREC(sp_sde_time)(t, pd, tt);
  }
}

SP_FN int SP_PREC(sp_sde_finite)(const SP_REAL *x, int *what) {
  int i;
  for (i = 0; i < SP_SDE_NX; i++) {
    if (!isfinite(x[i])) {
      *what = i;
      return 0;
    }
  }
  return 1;
}

/* One step from t (t1 = the step's end; tt0 and tt1 the time terms there)
 * with the normals z of its noise entries.  Returns 1 where some state
 * took a coarse step, else 0. */
SP_FN int SP_PREC(sp_sde_step)(const SP_REAL *p, const double *pd, int heun, double t, double t1,
                               const SP_REAL *tt0, const SP_REAL *tt1, SP_REAL dt, SP_REAL sdt,
                               const SP_REAL *z, SP_REAL *x) {
  SP_REAL a0[SP_SDE_NX], b0[SP_SDE_BN], dw[SP_SDE_WN], d[SP_SDE_NX];
  int i, coarse = 0;
  SP_UNROLL
  for (i = 0; i < SP_SDE_WN; i++) dw[i] = SP_SDE_NW > 0 ? sdt * z[i] : (SP_REAL)0;
  if (heun) {
    SP_REAL a1[SP_SDE_NX], b1[SP_SDE_BN], y[SP_SDE_NX];
    SP_PREC(sde_drift_strat)(t, tt0, x, p, pd, a0);
    SP_PREC(sde_noise)(t, tt0, x, p, pd, b0);
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) d[i] = a0[i] * dt;
    SP_PREC(sde_apply_noise)(d, b0, dw);
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) y[i] = x[i] + d[i];
    SP_PREC(sde_drift_strat)(t1, tt1, y, p, pd, a1);
#if defined(SP_SDE_NOISE_CONST)
    /* noise of no state and not of t: (b0 + b1) / 2 = b0 exactly */
    (void)b1;
#else
    SP_PREC(sde_noise)(t1, tt1, y, p, pd, b1);
    SP_UNROLL
    for (i = 0; i < SP_SDE_BN; i++) b0[i] = (SP_REAL)0.5 * (b0[i] + b1[i]);
#endif
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) d[i] = (SP_REAL)0.5 * dt * (a0[i] + a1[i]);
    SP_PREC(sde_apply_noise)(d, b0, dw);
  } else {
    SP_PREC(sde_drift_ito)(t, tt0, x, p, pd, a0);
    SP_PREC(sde_noise)(t, tt0, x, p, pd, b0);
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) d[i] = a0[i] * dt;
    SP_PREC(sde_apply_noise)(d, b0, dw);
    (void)tt1;
  }
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) {
    const SP_REAL xn = x[i] + d[i];
#if SP_CUDA
    /* both compares made, no short circuit: the same flag without the
     * predicated code (and its predicate set-ups) that && compiles to */
    coarse |= (xn != x[i]) & (SP_FABS(d[i]) < SP_SDE_COARSE_HI * SP_FABS(x[i]));
#else
    coarse |= xn != x[i] && SP_FABS(d[i]) < SP_SDE_COARSE_HI * SP_FABS(x[i]);
#endif
    x[i] = xn;
  }
  return coarse;
}

/* The fraction of a step before the crossing of the level (gap 0), from
 * the gaps g0 < 0 at its start and g1 at its end (> 0: seen at the end;
 * <= 0: found by the bridge) and s2h = sigma^2 dt > 0: the bridge's first
 * passage, sampled from block r (words y, z: a normal; w: a uniform); see
 * "Brownian bridge" above.  In double. */
#ifndef SP_SDE_BRIDGE_CROSS_DEFINED
#define SP_SDE_BRIDGE_CROSS_DEFINED
/* Out of line (one copy, called from the rare steps near the level only):
 * the sampler is some 200 instructions of double precision that the
 * unrolled steps would otherwise repeat. */
#  if SP_CUDA
#    define SP_SDE_COLD static __device__ __noinline__
#  else
#    define SP_SDE_COLD static
#  endif
#  if SP_SDE_HAS_STOP && SP_SDE_STOP_GAP && SP_SDE_BRIDGE
/* The bridge of step k + 1 of a path (stream) from the gap g0 < 0 at its
 * start to g1 at its end, s2h = sigma^2 dt > 0: returns the fraction of
 * the step at the crossing -- where g1 > 0 (seen at the step's end), or
 * g1 <= 0 and the bridge crosses by the test -- else -1.  Block k of
 * purpose SP_PURPOSE_SDE_BRIDGE: word x the test's uniform, words (y, z) a
 * normal and word w a uniform for the crossing time (see "Brownian bridge"
 * above).  In double. */
SP_SDE_COLD double sp_sde_bridge_cross(uint64_t seed, uint64_t stream, uint64_t k, double g0,
                                       double g1, double s2h) {
  const sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_SDE_BRIDGE, stream, k);
  const double a = -g0, b = g1 < 0 ? -g1 : g1;
  double nu, nu2, y, q, rt, X;
  if (g1 <= 0 && !(sp_u01_double(r.x) < exp(-2.0 * g0 * g1 / s2h))) return -1.0;
  sp_box_muller_double(r.y, r.z, &nu, &nu2);
  y = nu * nu;
  if (!(y > 1e-300)) y = 1e-300;
  /* IG(1, phi), phi = a b / s2h: X = 4 phi y / (y + sqrt(y^2 + 4 phi y))^2,
   * taken with probability 1 / (1 + X), else 1 / X; the fraction is
   * a X / (b + a X), or a / (b X + a), written without a / b (b may be 0) */
  rt = sqrt(y * y + 4.0 * (a * b / s2h) * y);
  q = (y + rt) * (y + rt);
  X = 4.0 * (a * b / s2h) * y / q;
  if (sp_u01_double(r.w) * (1.0 + X) <= 1.0) {
    const double u = 4.0 * a * a * y / (s2h * q);
    return u / (1.0 + u);
  } else {
    const double w = 4.0 * b * b * y / (s2h * q);
    return 1.0 / (1.0 + w);
  }
}
#  endif
#endif

/* The state and the parameters by value, for the out-of-line
 * sp_sde_stalled_state (the caller's arrays stay in registers). */
typedef struct {
  SP_REAL x[SP_SDE_NX];
  SP_REAL p[SP_SDE_NP > 0 ? SP_SDE_NP : 1];
  double pd[SP_SDE_NP > 0 ? SP_SDE_NP : 1];
  SP_REAL tt[SP_SDE_TN]; /* the time terms at t */
} SP_PREC(sp_sde_frozen);

/* At the end of a run of SP_SDE_STALL_STEPS coarse steps, at time t and
 * the state s.x: does a state stall?  Returns 1 + the first state whose
 * drift increment a_i h moves it coarsely there (0 < |a_i h| < 2^(5-p)
 * |x_i|) and around which no component of the drift changes sign between
 * x_i - D and x_i + D, D = SP_SDE_REST |x_i| (no fixed point of the
 * dynamics near); else 0.  Rare (once a run): three drift evaluations a
 * state at most, out of line. */
SP_SDE_COLD int SP_PREC(sp_sde_stalled_state)(SP_PREC(sp_sde_frozen) s, int heun, double t,
                                              SP_REAL h) {
  SP_REAL a[SP_SDE_NX], ap[SP_SDE_NX], am[SP_SDE_NX], y[SP_SDE_NX];
  int i, j;
  if (heun) SP_PREC(sde_drift_strat)(t, s.tt, s.x, s.p, s.pd, a);
  else SP_PREC(sde_drift_ito)(t, s.tt, s.x, s.p, s.pd, a);
  for (i = 0; i < SP_SDE_NX; i++) {
    const SP_REAL ax = SP_FABS(s.x[i]), ad = SP_FABS(a[i] * h);
    int rest = 0;
    if (!(ad > (SP_REAL)0 && ad < SP_SDE_COARSE_HI * ax)) continue;
    for (j = 0; j < SP_SDE_NX; j++) y[j] = s.x[j];
    y[i] = s.x[i] + SP_SDE_REST * ax;
    if (heun) SP_PREC(sde_drift_strat)(t, s.tt, y, s.p, s.pd, ap);
    else SP_PREC(sde_drift_ito)(t, s.tt, y, s.p, s.pd, ap);
    y[i] = s.x[i] - SP_SDE_REST * ax;
    if (heun) SP_PREC(sde_drift_strat)(t, s.tt, y, s.p, s.pd, am);
    else SP_PREC(sde_drift_ito)(t, s.tt, y, s.p, s.pd, am);
    for (j = 0; j < SP_SDE_NX; j++)
      rest |= (ap[j] > (SP_REAL)0 && am[j] < (SP_REAL)0) || (ap[j] < (SP_REAL)0 && am[j] > (SP_REAL)0);
    if (!rest) return i + 1;
  }
  return 0;
}

/* Step j of the macro-step that starts at step k0 (its normals z), with
 * the stop event tested at its end when use_stop (and the bridge where
 * use_bridge): returns SP_SDE_RUNNING, SP_SDE_STOPPED (*frac the fraction
 * of the step at the crossing) or SP_SDE_STALLED (*what the state).  The
 * time terms from the table (use_tab, tab, tab_k0: sp_sde_time_at) or
 * computed. */
SP_FN int SP_PREC(sp_sde_substep)(const SP_REAL *p, const double *pd, int heun, int use_stop,
                                  int use_bridge, int use_tab, const SP_REAL *tab,
                                  uint64_t tab_k0, uint64_t seed, uint64_t stream, uint64_t k0,
                                  int j, double dt, SP_REAL h, SP_REAL sdt, const SP_REAL *z,
                                  SP_REAL *x, unsigned *run, SP_REAL *frac, int *what) {
  const double t = (double)(k0 + (uint64_t)j) * dt, t1 = (double)(k0 + (uint64_t)j + 1) * dt;
  SP_REAL tt0[SP_SDE_TN], tt1[SP_SDE_TN];
  int c;
#if SP_SDE_HAS_STOP && SP_SDE_STOP_GAP
  SP_REAL xo[SP_SDE_NX];
  int i;
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) xo[i] = x[i];
#endif
  SP_PREC(sp_sde_time_at)(use_tab, tab, tab_k0, k0 + (uint64_t)j, t, pd, tt0);
  SP_PREC(sp_sde_time_at)(use_tab, tab, tab_k0, k0 + (uint64_t)j + 1, t1, pd, tt1);
  c = SP_PREC(sp_sde_step)(p, pd, heun, t, t1, tt0, tt1, h, sdt,
                           z + (SP_SDE_NW > 0 ? j * SP_SDE_NW : 0), x);
  if (j == SP_SDE_M - 1) *run = c ? *run + (unsigned)SP_SDE_M : 0u; /* see "Resolution" */
  if (*run >= SP_SDE_STALL_STEPS) {
    SP_PREC(sp_sde_frozen) s;
    int i2, st;
    for (i2 = 0; i2 < SP_SDE_NX; i2++) s.x[i2] = x[i2];
    for (i2 = 0; i2 < SP_SDE_NP; i2++) {
      s.p[i2] = p[i2];
      s.pd[i2] = pd[i2];
    }
    for (i2 = 0; i2 < SP_SDE_TN; i2++) s.tt[i2] = tt1[i2];
    st = SP_PREC(sp_sde_stalled_state)(s, heun, t1, h);
    if (st) {
      *what = st - 1;
      return SP_SDE_STALLED;
    }
    *run = 0; /* at rest near a fixed point of the dynamics */
  }
#if SP_SDE_HAS_STOP
  if (use_stop) {
    const int hit = SP_PREC(sde_stop)(t1, tt1, x, p, pd);
#  if SP_SDE_STOP_GAP
    const SP_REAL g0 = SP_PREC(sde_gap)(t, tt0, xo, p, pd);
    const SP_REAL g1 = SP_PREC(sde_gap)(t1, tt1, x, p, pd);
    double s2h = 0;
#    if SP_SDE_BRIDGE
    if (use_bridge) s2h = (double)SP_PREC(sde_gap_var)(t, tt0, xo, p, pd) * dt;
#    else
    (void)use_bridge;
#    endif
    if (!(s2h > 0) || !isfinite(s2h) || !(g0 < 0)) s2h = 0; /* no bridge at this step */
    if (hit || (s2h > 0 && 2.0 * (double)g0 * (double)g1 < SP_SDE_BRIDGE_ARG * s2h)) {
      /* the crossing seen at the step's end, or one the bridge may find */
      SP_REAL f = g1 != g0 ? g0 / (g0 - g1) : (SP_REAL)1;
#    if SP_SDE_BRIDGE
      if (s2h > 0) {
        const double fb = sp_sde_bridge_cross(seed, stream, k0 + (uint64_t)j, g0, g1, s2h);
        if (fb < 0 && !hit) return SP_SDE_RUNNING; /* the bridge did not cross */
        if (fb >= 0) f = (SP_REAL)fb;
      }
#    else
      (void)seed; (void)stream;
#    endif
      if (!(f > (SP_REAL)0)) f = (SP_REAL)0;
      if (!(f <= (SP_REAL)1)) f = (SP_REAL)1;
      *frac = f;
      return SP_SDE_STOPPED;
    }
#  else
    (void)use_bridge; (void)seed; (void)stream;
    if (hit) {
      *frac = (SP_REAL)1;
      return SP_SDE_STOPPED;
    }
#  endif
  }
#else
  (void)use_stop; (void)use_bridge; (void)seed; (void)stream; (void)frac;
#endif
  return SP_SDE_RUNNING;
}

/* A whole macro-step (steps k0 .. k0 + SP_SDE_M - 1, its normals z)
 * without a test between its steps: the steps of the per-step loop below,
 * the stop event (where use_stop), the bridge's "near the level" (where
 * use_bridge: *g0, the gap at the start, carried) and the run of coarse
 * steps only or-ed into a flag.  Returns 1 where the event held at the end
 * of one of its steps, a step came near enough to the level for the
 * bridge's test, the run of coarse steps reached SP_SDE_STALL_STEPS or the
 * end state is not finite: the caller then redoes the macro-step from its
 * start step by step (sp_sde_advance), which finds the step, the crossing
 * and the state there; else 0 (nearly always: a path stops once).  One
 * compare a step instead of a compare and a branch, and no branch out of
 * the unrolled steps, on the CPU and the GPU. */
/* (kd: the step k0 in double, exact below 2^53 steps, as (double)(k0 + j)
 * is: the times are the same; the CPU's vector loop, sde_lanes.h, passes
 * it without a 64-bit integer conversion on every lane.  tab: where
 * use_tab, the time terms of steps k0 .. k0 + SP_SDE_M, a row of
 * SP_SDE_TN each; else they are computed, once a step time: the values at
 * a step's end are the next step's start values.) */
SP_FN int SP_PREC(sp_sde_macro_fast_kd)(const SP_REAL *p, const double *pd, int heun,
                                        int use_stop, int use_bridge, int use_tab,
                                        const SP_REAL *tab, double kd, double dt, SP_REAL h,
                                        SP_REAL sdt, const SP_REAL *z, SP_REAL *x, unsigned *run,
                                        SP_REAL *g0) {
  /* the run of coarse steps reaches SP_SDE_STALL_STEPS inside the
   * macro-step only where it starts SP_SDE_M short of it: tested once */
  int i, j, flag = *run >= SP_SDE_STALL_STEPS - SP_SDE_M;
  /* the time terms at the step's start and end: the end's are needed (and
   * carried to the next step) with SRK2, a stop event or a table */
  const int ends = heun || use_stop || use_tab;
  SP_REAL tc[SP_SDE_TN], tn[SP_SDE_TN];
  SP_UNROLL
  for (j = 0; j < SP_SDE_M; j++) {
    const double t = (kd + (double)j) * dt, t1 = (kd + (double)(j + 1)) * dt;
    if (j == 0 || !ends) {
      if (use_tab) {
        SP_UNROLL
        for (i = 0; i < SP_SDE_TN; i++) tc[i] = tab[j * SP_SDE_TN + i];
      } else {
        SP_PREC(sp_sde_time)(t, pd, tc);
      }
    } else {
      SP_UNROLL
      for (i = 0; i < SP_SDE_TN; i++) tc[i] = tn[i];
    }
    if (ends) {
      if (use_tab) {
        SP_UNROLL
        for (i = 0; i < SP_SDE_TN; i++) tn[i] = tab[(j + 1) * SP_SDE_TN + i];
      } else {
        SP_PREC(sp_sde_time)(t1, pd, tn);
      }
    }
    {
#if SP_SDE_HAS_STOP && SP_SDE_BRIDGE
      const SP_REAL s2 = use_bridge ? SP_PREC(sde_gap_var)(t, tc, x, p, pd) : (SP_REAL)0;
#endif
      const int c = SP_PREC(sp_sde_step)(p, pd, heun, t, t1, tc, tn, h, sdt,
                                         z + (SP_SDE_NW > 0 ? j * SP_SDE_NW : 0), x);
      /* the run at the macro-step's last step only (see "Resolution"): the
       * other steps' coarse tests are dead code */
      if (j == SP_SDE_M - 1) *run = c ? *run + (unsigned)SP_SDE_M : 0u;
#if SP_SDE_HAS_STOP
      flag |= use_stop & SP_PREC(sde_stop)(t1, tn, x, p, pd);
#  if SP_SDE_BRIDGE
      if (use_bridge) {
        const SP_REAL g1 = SP_PREC(sde_gap)(t1, tn, x, p, pd);
        flag |= (SP_REAL)2 * *g0 * g1 < (SP_REAL)SP_SDE_BRIDGE_ARG * s2 * h;
        *g0 = g1;
      }
#  else
      (void)use_bridge; (void)g0;
#  endif
#else
      (void)use_stop; (void)use_bridge; (void)g0;
#endif
    }
  }
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) flag |= !isfinite(x[i]);
  return flag;
}

SP_FN int SP_PREC(sp_sde_macro_fast)(const SP_REAL *p, const double *pd, int heun, int use_stop,
                                     int use_bridge, int use_tab, const SP_REAL *tab,
                                     uint64_t k0, double dt, SP_REAL h, SP_REAL sdt,
                                     const SP_REAL *z, SP_REAL *x, unsigned *run, SP_REAL *g0) {
  return SP_PREC(sp_sde_macro_fast_kd)(p, pd, heun, use_stop, use_bridge, use_tab, tab,
                                       (double)k0, dt, h, sdt, z, x, run, g0);
}

/* The gap of the event at step k (for the bridge's flag), or 0. */
SP_FN SP_REAL SP_PREC(sp_sde_gap0)(const SP_REAL *p, const double *pd, int use_stop,
                                   int use_bridge, double dt, uint64_t k, const SP_REAL *x) {
#if SP_SDE_HAS_STOP && SP_SDE_BRIDGE
  if (use_stop && use_bridge) {
    const double t = (double)k * dt;
    SP_REAL tt[SP_SDE_TN];
    SP_PREC(sp_sde_time)(t, pd, tt);
    return SP_PREC(sde_gap)(t, tt, x, p, pd);
  }
#endif
  (void)p; (void)pd; (void)use_stop; (void)use_bridge; (void)dt; (void)k; (void)x;
  return (SP_REAL)0;
}

/* Advance a path from step *k until step kend (or its stop, a non-finite
 * state or a stall).  p, pd: its parameters; dt in double (times are
 * formed from the step count in double), h = dt and sdt = sqrt(dt) in the
 * working precision; *run: the path's run of coarse steps.  Returns
 * SP_SDE_RUNNING (*k = kend), SP_SDE_STOPPED (*k the step at which the
 * event held, *frac the fraction of that step at the crossing),
 * SP_SDE_NONFINITE (*k the first non-finite step, *what the state) or
 * SP_SDE_STALLED (*k the step that made the run SP_SDE_STALL_STEPS long,
 * *what the state coarse there).  The time terms from the table (use_tab:
 * row i of tab for step tab_k0 + i, rows up to kend; tab_k0 <= *k) or
 * computed (see "Time terms"). */
SP_FN int SP_PREC(sp_sde_advance)(const SP_REAL *p, const double *pd, double dt, SP_REAL h,
                                  SP_REAL sdt, uint64_t seed, uint64_t stream, int heun,
                                  int use_stop, int use_bridge, int use_tab, const SP_REAL *tab,
                                  uint64_t tab_k0, SP_REAL *x, unsigned *run, uint64_t *k,
                                  uint64_t kend, SP_REAL *frac, int *what) {
  SP_REAL z[SP_SDE_ZN], g0;
#if SP_SDE_HAS_STOP
  if (use_stop && *k == 0) {
    SP_REAL tt[SP_SDE_TN];
    SP_PREC(sp_sde_time_at)(use_tab, tab, tab_k0, 0, 0.0, pd, tt);
    if (SP_PREC(sde_stop)(0.0, tt, x, p, pd)) {
      *frac = (SP_REAL)1; /* t = (0 - 1 + 1) dt = 0 */
      return SP_SDE_STOPPED;
    }
  }
#endif
  g0 = SP_PREC(sp_sde_gap0)(p, pd, use_stop, use_bridge, dt, *k, x);
  while (*k < kend) {
    const uint64_t k0 = *k - *k % SP_SDE_M;
    const int j0 = (int)(*k - k0);
    const int j1 = kend - k0 < (uint64_t)SP_SDE_M ? (int)(kend - k0) : SP_SDE_M;
    const unsigned run0 = *run;
    SP_REAL xs[SP_SDE_NX];
    int i, j, hit = -1, st = SP_SDE_RUNNING;
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) xs[i] = x[i];
    SP_PREC(sp_sde_normals)(seed, stream, k0, z);
    /* a whole macro-step, the usual case (paths start at step 0, and the
     * GPU's lanes advance by whole macro-steps), without tests between its
     * steps; where the event held inside it (or the bridge must test a
     * step, or the run of coarse steps grew long), or the state turned
     * non-finite, it is redone from its start by the loop of single steps
     * below, as a part of a macro-step is (loops of constant length,
     * unrolled: the normals stay in registers; the steps outside [j0, j1)
     * skipped) */
    if (j0 == 0 && j1 == SP_SDE_M) {
      if (!SP_PREC(sp_sde_macro_fast)(p, pd, heun, use_stop, use_bridge, use_tab,
                                      use_tab ? tab + (k0 - tab_k0) * (uint64_t)SP_SDE_TN : tab,
                                      k0, dt, h, sdt, z, x, run, &g0)) {
        *k = k0 + (uint64_t)SP_SDE_M;
        continue;
      }
      SP_UNROLL
      for (i = 0; i < SP_SDE_NX; i++) x[i] = xs[i];
      *run = run0;
    }
    SP_UNROLL
    for (j = 0; j < SP_SDE_M; j++) {
      if (j < j0 || j >= j1) continue;
      st = SP_PREC(sp_sde_substep)(p, pd, heun, use_stop, use_bridge, use_tab, tab, tab_k0, seed,
                                   stream, k0, j, dt, h, sdt, z, x, run, frac, what);
      if (st != SP_SDE_RUNNING) {
        hit = j;
        break;
      }
    }
    if (hit >= 0) {
      *k = k0 + (uint64_t)hit + 1;
      if (!SP_PREC(sp_sde_finite)(x, what)) return SP_SDE_NONFINITE;
      return st;
    }
    if (!SP_PREC(sp_sde_finite)(x, what)) {
      /* redo the macro-step step by step from its finite start */
      int bad = j1 - 1;
      SP_UNROLL
      for (i = 0; i < SP_SDE_NX; i++) x[i] = xs[i];
      SP_UNROLL
      for (j = 0; j < SP_SDE_M; j++) {
        if (j < j0 || j > bad) continue;
        {
          const double t = (double)(k0 + (uint64_t)j) * dt, t1 = (double)(k0 + (uint64_t)j + 1) * dt;
          SP_REAL tt0[SP_SDE_TN], tt1[SP_SDE_TN];
          SP_PREC(sp_sde_time_at)(use_tab, tab, tab_k0, k0 + (uint64_t)j, t, pd, tt0);
          SP_PREC(sp_sde_time_at)(use_tab, tab, tab_k0, k0 + (uint64_t)j + 1, t1, pd, tt1);
          SP_PREC(sp_sde_step)(p, pd, heun, t, t1, tt0, tt1, h, sdt,
                               z + (SP_SDE_NW > 0 ? j * SP_SDE_NW : 0), x);
        }
        if (!SP_PREC(sp_sde_finite)(x, what)) bad = j; /* the first: later steps skipped */
      }
      *k = k0 + (uint64_t)bad + 1;
      return SP_SDE_NONFINITE;
    }
    *k = k0 + (uint64_t)j1;
    g0 = SP_PREC(sp_sde_gap0)(p, pd, use_stop, use_bridge, dt, *k, x);
  }
  return SP_SDE_RUNNING;
}

/* The values recorded at step k: the states, then the observables (the
 * time terms from the table where use_tab, as sp_sde_advance). */
SP_FN void SP_PREC(sp_sde_values)(const SP_REAL *p, const double *pd, int use_tab,
                                  const SP_REAL *tab, uint64_t tab_k0, double dt, uint64_t k,
                                  const SP_REAL *x, SP_REAL *out) {
  int i;
  for (i = 0; i < SP_SDE_NX; i++) out[i] = x[i];
#if SP_SDE_NO > 0
  {
    SP_REAL tt[SP_SDE_TN];
    SP_PREC(sp_sde_time_at)(use_tab, tab, tab_k0, k, (double)k * dt, pd, tt);
    SP_PREC(sde_observe)((double)k * dt, tt, x, p, pd, out + SP_SDE_NX);
  }
#else
  (void)p; (void)pd; (void)use_tab; (void)tab; (void)tab_k0; (void)dt; (void)k;
#endif
}
