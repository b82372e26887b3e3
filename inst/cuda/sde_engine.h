/* sde_engine.h: the generic per-path loop of a user's SDE model, one source
 * for the CPU (the model's shared object, sde_cpu.h) and the GPU (sde.cu).
 *
 * Include after the model's generated header (sde_code()), with SP_REAL
 * float (and SP_REAL_SINGLE) or double; names get the suffix _f or _d
 * (SP_PREC() of sp_precision.h), so both precisions live in one object.  The header defines
 * SP_SDE_NX (states), SP_SDE_NW (noise entries), SP_SDE_NP, SP_SDE_NO and
 * the functions drift_ito, drift_strat, noise, apply_noise, stop, gap,
 * observe of the model.
 *
 * Steps (k = 0, 1, ...; t_k = k dt; dW = sqrt(dt) z, one normal per noise
 * entry):
 *   euler (Euler-Maruyama, solves Ito): x' = x + a_I(t_k, x) dt + b(t_k, x) dW
 *   srk2 (stochastic Heun, solves Stratonovich):
 *     y = x + a_S(t_k, x) dt + b(t_k, x) dW
 *     x' = x + (a_S(t_k, x) + a_S(t_k+1, y)) dt / 2 + (b(t_k, x) + b(t_k+1, y)) dW / 2
 * where a_I and a_S are the drift in Ito and Stratonovich form (the model's
 * drift, corrected by -/+ b db/dx / 2 where the noise is multiplicative).
 *
 * Random numbers (sp_streams.h): replica r of condition c draws from stream
 * c 2^40 + r, purpose SP_PURPOSE_SDE_STEPS; step k + 1 (from t_k) uses
 * normals k NW .. k NW + NW - 1 of that sequence, normal d being element
 * d mod 4 of block d / 4 (Box-Muller on the pairs (x, y) and (z, w) of the
 * block).  Steps go in macro-steps of SP_SDE_M steps, SP_SDE_M NW / 4 whole
 * blocks; a path can stop anywhere inside one (records, a round's end) and
 * resumes with the same numbers.
 *
 * Stop: a step that ends with the stop event true ends the path at that step;
 * where the event is a comparison lhs > rhs (or <, >=, <=), the crossing
 * time is interpolated linearly in gap = lhs - rhs inside the step (as
 * escape_times() does), otherwise it is the end of the step.  An event
 * already true at t = 0 stops the path at 0.  A state that is NaN or
 * infinite at the end of a macro-step is traced back to its first step and
 * state (the macro-step is redone step by step). */
#include "sde_args.h"
#include "sp_streams.h"

#ifndef SP_REAL
#  define SP_REAL double
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
#  define SP_SDE_ON (SP_SDE_NO > 0 ? SP_SDE_NO : 1)
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

/* One step from t (step k) with the normals z of its noise entries. */
SP_FN void SP_PREC(sp_sde_step)(const SP_REAL *p, int heun, SP_REAL t, SP_REAL dt, SP_REAL sdt,
                               const SP_REAL *z, SP_REAL *x) {
  SP_REAL a0[SP_SDE_NX], b0[SP_SDE_WN], dw[SP_SDE_WN], y[SP_SDE_NX];
  int i;
  SP_UNROLL
  for (i = 0; i < SP_SDE_WN; i++) dw[i] = SP_SDE_NW > 0 ? sdt * z[i] : (SP_REAL)0;
  if (heun) {
    SP_REAL a1[SP_SDE_NX], b1[SP_SDE_WN];
    SP_PREC(sde_drift_strat)(t, x, p, a0);
    SP_PREC(sde_noise)(t, x, p, b0);
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) y[i] = x[i] + a0[i] * dt;
    SP_PREC(sde_apply_noise)(y, b0, dw);
    SP_PREC(sde_drift_strat)(t + dt, y, p, a1);
    SP_PREC(sde_noise)(t + dt, y, p, b1);
    SP_UNROLL
    for (i = 0; i < SP_SDE_WN; i++) b0[i] = (SP_REAL)0.5 * (b0[i] + b1[i]);
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) x[i] = x[i] + (SP_REAL)0.5 * dt * (a0[i] + a1[i]);
    SP_PREC(sde_apply_noise)(x, b0, dw);
  } else {
    SP_PREC(sde_drift_ito)(t, x, p, a0);
    SP_PREC(sde_noise)(t, x, p, b0);
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) x[i] = x[i] + a0[i] * dt;
    SP_PREC(sde_apply_noise)(x, b0, dw);
  }
  (void)y;
}

/* Step j of the macro-step that starts at t0 (its normals z), with the
 * stop event tested at its end when use_stop: returns 1 where it holds,
 * with *frac the fraction of the step at the crossing. */
SP_FN int SP_PREC(sp_sde_substep)(const SP_REAL *p, int heun, int use_stop, double t0, int j,
                                 double dt, SP_REAL h, SP_REAL sdt, const SP_REAL *z,
                                 SP_REAL *x, SP_REAL *frac) {
  const SP_REAL t = (SP_REAL)(t0 + (double)j * dt);
#if SP_SDE_HAS_STOP
  SP_REAL xo[SP_SDE_NX];
  int i;
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) xo[i] = x[i];
#endif
  SP_PREC(sp_sde_step)(p, heun, t, h, sdt, z + (SP_SDE_NW > 0 ? j * SP_SDE_NW : 0), x);
#if SP_SDE_HAS_STOP
  if (use_stop && SP_PREC(sde_stop)(t + h, x, p)) {
    SP_REAL f = (SP_REAL)1;
#  if SP_SDE_STOP_GAP
    const SP_REAL g0 = SP_PREC(sde_gap)(t, xo, p), g1 = SP_PREC(sde_gap)(t + h, x, p);
    f = g1 != g0 ? g0 / (g0 - g1) : (SP_REAL)1;
    if (!(f > (SP_REAL)0)) f = (SP_REAL)0;
    if (!(f <= (SP_REAL)1)) f = (SP_REAL)1;
#  endif
    *frac = f;
    return 1;
  }
#else
  (void)use_stop; (void)frac;
#endif
  return 0;
}

/* A whole macro-step (steps k0 .. k0 + SP_SDE_M - 1, t0 = k0 dt, its normals
 * z) without a test between its steps: the steps of the per-step loop
 * below, the stop event (where use_stop) only or-ed into a flag.  Returns
 * 1 where the event held at the end of one of its steps or the end state
 * is not finite: the caller then redoes the macro-step from its start
 * step by step (sp_sde_advance), which finds the step, the crossing and the
 * state there; else 0 (nearly always: a path stops once).  One compare a
 * step instead of a compare and a branch, and no branch out of the
 * unrolled steps, on the CPU and the GPU. */
SP_FN int SP_PREC(sp_sde_macro_fast)(const SP_REAL *p, int heun, int use_stop, double t0,
                                    double dt, SP_REAL h, SP_REAL sdt, const SP_REAL *z,
                                    SP_REAL *x) {
  int i, j, flag = 0;
  SP_UNROLL
  for (j = 0; j < SP_SDE_M; j++) {
    const SP_REAL t = (SP_REAL)(t0 + (double)j * dt);
    SP_PREC(sp_sde_step)(p, heun, t, h, sdt, z + (SP_SDE_NW > 0 ? j * SP_SDE_NW : 0), x);
#if SP_SDE_HAS_STOP
    flag |= use_stop & SP_PREC(sde_stop)(t + h, x, p);
#else
    (void)use_stop;
#endif
  }
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) flag |= !isfinite(x[i]);
  return flag;
}

/* Advance a path from step *k until step kend (or its stop, or a non-finite
 * state).  p: its parameters; dt in double (times are formed from the step
 * count in double), h = dt and sdt = sqrt(dt) in the working precision.
 * Returns SP_SDE_RUNNING (*k = kend), SP_SDE_STOPPED (*k the step at which the event held, *frac the fraction of that step at
 * the crossing) or SP_SDE_NONFINITE (*k the first non-finite step, *what
 * the state). */
SP_FN int SP_PREC(sp_sde_advance)(const SP_REAL *p, double dt, SP_REAL h, SP_REAL sdt,
                                 uint64_t seed, uint64_t stream, int heun, int use_stop,
                                 SP_REAL *x, uint64_t *k, uint64_t kend, SP_REAL *frac,
                                 int *what) {
  SP_REAL z[SP_SDE_ZN];
#if SP_SDE_HAS_STOP
  if (use_stop && *k == 0 && SP_PREC(sde_stop)((SP_REAL)0, x, p)) {
    *frac = (SP_REAL)1; /* t = (0 - 1 + 1) dt = 0 */
    return SP_SDE_STOPPED;
  }
#else
  (void)use_stop;
#endif
  while (*k < kend) {
    const uint64_t k0 = *k - *k % SP_SDE_M;
    const int j0 = (int)(*k - k0);
    const int j1 = kend - k0 < (uint64_t)SP_SDE_M ? (int)(kend - k0) : SP_SDE_M;
    const double t0 = (double)k0 * dt;
    SP_REAL xs[SP_SDE_NX];
    int i, j, hit = -1;
    SP_UNROLL
    for (i = 0; i < SP_SDE_NX; i++) xs[i] = x[i];
    SP_PREC(sp_sde_normals)(seed, stream, k0, z);
    /* a whole macro-step, the usual case (paths start at step 0, and the
     * GPU's lanes advance by whole macro-steps), without tests between its
     * steps; where the event held inside it or the state turned non-finite,
     * it is redone from its start by the loop of single steps below, as a
     * part of a macro-step is (loops of constant length, unrolled: the
     * normals stay in registers; the steps outside [j0, j1) skipped) */
    if (j0 == 0 && j1 == SP_SDE_M) {
      if (!SP_PREC(sp_sde_macro_fast)(p, heun, use_stop, t0, dt, h, sdt, z, x)) {
        *k = k0 + (uint64_t)SP_SDE_M;
        continue;
      }
      SP_UNROLL
      for (i = 0; i < SP_SDE_NX; i++) x[i] = xs[i];
    }
    SP_UNROLL
    for (j = 0; j < SP_SDE_M; j++) {
      if (j < j0 || j >= j1) continue;
      if (SP_PREC(sp_sde_substep)(p, heun, use_stop, t0, j, dt, h, sdt, z, x, frac)) {
        hit = j;
        break;
      }
    }
    if (hit >= 0) {
      *k = k0 + (uint64_t)hit + 1;
      if (!SP_PREC(sp_sde_finite)(x, what)) return SP_SDE_NONFINITE;
      return SP_SDE_STOPPED;
    }
    if (!SP_PREC(sp_sde_finite)(x, what)) {
      /* redo the macro-step step by step from its finite start */
      int bad = j1 - 1;
      SP_UNROLL
      for (i = 0; i < SP_SDE_NX; i++) x[i] = xs[i];
      SP_UNROLL
      for (j = 0; j < SP_SDE_M; j++) {
        if (j < j0 || j > bad) continue;
        SP_PREC(sp_sde_step)(p, heun, (SP_REAL)(t0 + (double)j * dt), h, sdt,
                            z + (SP_SDE_NW > 0 ? j * SP_SDE_NW : 0), x);
        if (!SP_PREC(sp_sde_finite)(x, what)) bad = j; /* the first: later steps skipped */
      }
      *k = k0 + (uint64_t)bad + 1;
      return SP_SDE_NONFINITE;
    }
    *k = k0 + (uint64_t)j1;
  }
  return SP_SDE_RUNNING;
}

/* The values recorded at step k: the states, then the observables. */
SP_FN void SP_PREC(sp_sde_values)(const SP_REAL *p, double dt, uint64_t k, const SP_REAL *x,
                                 SP_REAL *out) {
  int i;
  for (i = 0; i < SP_SDE_NX; i++) out[i] = x[i];
#if SP_SDE_NO > 0
  SP_PREC(sde_observe)((SP_REAL)((double)k * dt), x, p, out + SP_SDE_NX);
#else
  (void)p; (void)dt; (void)k;
#endif
}
