/* mb_lanes.h: the CPU's vector loop over the elements of a many-body
 * model's system, for the SDE methods (euler, srk2): sde_run()'s object of
 * one precision with SP_MB_CPU_LANES (R/sde-mb-run.R).  Included by
 * mb_cpu.h once per precision, before sp_mb_step_sde, which hands its steps
 * to sp_mb_step_sde_lanes below.
 *
 * A stage of a step (Euler's step, SRK2's predictor or corrector) visits
 * the elements in ranges whose lattice neighbours lie at fixed offsets, no
 * index wrapping: a square lattice's row but its first and last REACH
 * columns (the neighbour rows wrapped once a row), a chain's or ring's
 * elements but the first and last REACH, every element of a model without
 * lattice neighbours.  A range goes in chunks of SP_MB_LANE_CH elements:
 * the chunk's normals first, by one loop over its Philox blocks (the blocks
 * of sp_mb_normals, the same Box-Muller), then one loop over its elements,
 * the lanes of the SIMD registers, each element by the vector copy of the
 * model (SP_LANE names, compiled with SP_PREC_LANE: sine and cosine
 * without a branch, an argument beyond their range -- 8192 single, 2^20
 * double, NaN -- flagged in the element's copy of the parameters, slot
 * p[SP_MB_NP]); both loops are ones the compiler vectorises (`omp simd`,
 * the object built with -fopenmp-simd, the instructions of this processor:
 * SP_MB_LANES_ARCH).  The elements outside the ranges (those whose
 * neighbours wrap) and the flagged ones are done by the scalar copy,
 * element by element, as sp_mb_step_sde does.  The vector copy computes
 * what the scalar one does, operation for operation (-ffp-contract=off,
 * and the CPU's polynomial sines in both precisions: SP_SDE_CPU_POLY), so
 * the states are the same bit for bit whichever copy did an element
 * (test-mb-lanes.R). */
#if !defined(SP_SDE_CPU_POLY)
#  error "mb_lanes.h needs SP_SDE_CPU_POLY (the scalar copy's sines must be the vector copy's)"
#endif

#ifndef SP_MB_LANES_ONCE
#  define SP_MB_LANES_ONCE
/* The instructions the vector loops are compiled for ("arch=x86-64-v4" or
 * "arch=x86-64-v3", set by sde_run() for this processor; unset: the
 * compiler's baseline), checked again where the object runs. */
#  if defined(SP_MB_LANES_ARCH) && defined(__x86_64__) && defined(__GNUC__) && \
      (defined(__clang__) || __GNUC__ >= 11)
#    define SP_MB_LANES_TARGET __attribute__((target(SP_MB_LANES_ARCH)))
static int sp_mb_lanes_cpu_ok(void) {
  int ok;
  __builtin_cpu_init();
  ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
       __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#    if SP_MB_LANES_LEVEL >= 4
  ok = ok && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
       __builtin_cpu_supports("avx512vl");
#    endif
  return ok;
}
/* The pair sums' loop (sp_mb_pair_lanes_run) tuned for a processor whose
 * gathers GCC uses (its generic tuning emulates none, and the lists' loop
 * then stays scalar): the tuning changes the instructions chosen, not the
 * numbers. */
#    if defined(__clang__)
#      define SP_MB_PAIR_TARGET SP_MB_LANES_TARGET
#    elif SP_MB_LANES_LEVEL >= 4
#      define SP_MB_PAIR_TARGET __attribute__((target(SP_MB_LANES_ARCH ",tune=icelake-server")))
#    else
#      define SP_MB_PAIR_TARGET __attribute__((target(SP_MB_LANES_ARCH ",tune=haswell")))
#    endif
#  else
#    define SP_MB_LANES_TARGET
#    define SP_MB_PAIR_TARGET
static int sp_mb_lanes_cpu_ok(void) { return 1; }
#  endif

#  if defined(__GNUC__)
#    define SP_MB_LANES_NOINLINE __attribute__((noinline))
#  else
#    define SP_MB_LANES_NOINLINE
#  endif
/* The copy of the parameters into a lane's own (p[SP_MB_NP] its flag):
 * unrolled in full, however many (a loop left would be a block copy, which
 * stops the vector loop). */
#  if defined(__clang__)
#    define SP_MB_UNROLL_P _Pragma("clang loop unroll(full)")
#  elif defined(__GNUC__)
#    define SP_MB_UNROLL_P _Pragma("GCC unroll 1024")
#  else
#    define SP_MB_UNROLL_P
#  endif

/* The vector copy's sine and cosine: the scalar copy's polynomials
 * (sp_sin_pi_core_f, sp_sin_d of sp_math.h) on every lane, an argument
 * beyond their range (or NaN) marking the lane in *bad. */
SP_FN float sp_mb_sin_lane_f(float x, float *bad) {
  *bad = fabsf(x) <= SP_SDE_TRIG_MAX_F ? *bad : 1.0f;
  return sp_sin_pi_core_f(x);
}
SP_FN float sp_mb_cos_lane_f(float x, float *bad) {
  *bad = fabsf(x) <= SP_SDE_TRIG_MAX_F ? *bad : 1.0f;
  return sp_cos_pi_core_f(x);
}
/* (double functions of t and the parameters in the single copy) */
SP_FN double sp_mb_dsin_lane_f(double x, float *bad) {
  *bad = fabs(x) <= SP_SDE_TRIG_MAX_D ? *bad : 1.0f;
  return sp_sin_d(x);
}
SP_FN double sp_mb_dcos_lane_f(double x, float *bad) {
  *bad = fabs(x) <= SP_SDE_TRIG_MAX_D ? *bad : 1.0f;
  return sp_cos_d(x);
}
SP_FN double sp_mb_sin_lane_d(double x, double *bad) {
  *bad = fabs(x) <= SP_SDE_TRIG_MAX_D ? *bad : 1.0;
  return sp_sin_d(x);
}
SP_FN double sp_mb_cos_lane_d(double x, double *bad) {
  *bad = fabs(x) <= SP_SDE_TRIG_MAX_D ? *bad : 1.0;
  return sp_cos_d(x);
}
#endif

/* The vector copy of the model: every function of the generated header has
 * the parameters p; their slot p[SP_MB_NP] (the loop's copy has one past
 * them) is the element's flag. */
#define SP_PREC_LANE 1
#include "sde_prelude.h"
#undef SP_SIN
#undef SP_COS
#undef SP_D_SIN
#undef SP_D_COS
#undef SP_WRAP
#undef SP_MB_LANE_BAD
#define SP_MB_LANE_BAD (&((SP_REAL *)(p))[SP_MB_NP])
#ifdef SP_REAL_SINGLE
#  define SP_WRAP(v) sp_sde_wrap_f(v) /* (one function for both copies) */
#  define SP_SIN(v) sp_mb_sin_lane_f((v), SP_MB_LANE_BAD)
#  define SP_COS(v) sp_mb_cos_lane_f((v), SP_MB_LANE_BAD)
#  define SP_D_SIN(v) sp_mb_dsin_lane_f((v), SP_MB_LANE_BAD)
#  define SP_D_COS(v) sp_mb_dcos_lane_f((v), SP_MB_LANE_BAD)
#else
#  define SP_WRAP(v) sp_sde_wrap_d(v)
#  define SP_SIN(v) sp_mb_sin_lane_d((v), SP_MB_LANE_BAD)
#  define SP_COS(v) sp_mb_cos_lane_d((v), SP_MB_LANE_BAD)
#  define SP_D_SIN(v) sp_mb_sin_lane_d((v), SP_MB_LANE_BAD)
#  define SP_D_COS(v) sp_mb_cos_lane_d((v), SP_MB_LANE_BAD)
#endif
#include "sde_model.h"
#undef SP_PREC_LANE
#include "sp_precision.h" /* the scalar copy's names again */

#undef SP_MB_SLOTS
#if SP_MB_DIM == 2
#  define SP_MB_SLOTS ((2 * SP_MB_REACH + 1) * (2 * SP_MB_REACH + 1))
#else
#  define SP_MB_SLOTS (2 * SP_MB_REACH + 1)
#endif
/* Elements a chunk (its normals and sums' terms on the stack). */
#ifndef SP_MB_LANE_CH
#  define SP_MB_LANE_CH 128
#endif
/* The vector loops run for models of at most SP_MB_LANE_MAXW noise
 * entries and SP_MB_LANE_MAXT sums. */
#ifndef SP_MB_LANE_MAXW
#  define SP_MB_LANE_MAXW 32
#endif
#ifndef SP_MB_LANE_MAXT
#  define SP_MB_LANE_MAXT 32
#endif

/* ---- the scalar copy, element by element (edges are not: see below) ---- */

/* The sums' terms of element i of the state src into rb[q SP_MB_LANE_CH +
 * j]: the body of sp_mb_reduce's loop. */
static void SP_PREC(sp_mb_lane_scalar3)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, uint64_t i,
                                        double t, SP_REAL *rb, int64_t j) {
#if SP_MB_NT > 0
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], r[SP_MB_TN],
      oz[SP_MB_NQO > 0 ? SP_MB_NQO : 1] = {0}; /* the observables' pair sums: not here */
  int q;
  SP_MB_GATHER(s, src, i, x, nb);
  SP_PREC(sp_mb_epar)(s->ep, i, s->n, e);
  SP_PREC(mb_terms)(t, x, e, nb, oz, s->p, s->pd, (SP_REAL)(i + 1), r);
  for (q = 0; q < SP_MB_NT; q++) rb[q * SP_MB_LANE_CH + j] = r[q];
#else
  (void)s; (void)src; (void)i; (void)t; (void)rb; (void)j;
#endif
}

/* ---- the vector copy ----------------------------------------------------- */

/* The normals of Philox blocks b0 .. b0 + nblk - 1 of step kk (the blocks
 * of sp_mb_normals) into zb[4 (b - b0) ..], one block a lane (one copy for
 * every stage: the object compiles sooner). */
SP_MB_LANES_TARGET SP_MB_LANES_NOINLINE
static void SP_PREC(sp_mb_lane_normals)(uint64_t seed, uint64_t stream, uint64_t kk, uint64_t B,
                                        uint64_t b0, int nblk, SP_REAL *zb) {
  const uint32_t key0 = (uint32_t)seed, key1 = (uint32_t)(seed >> 32);
  const uint64_t first = kk * B + b0;
  int j;
  _Pragma("omp simd")
  for (j = 0; j < nblk; j++) {
    const uint64_t blk = (first + (uint64_t)j) |
                         ((uint64_t)SP_PURPOSE_MB_STEPS << (32 + SP_PURPOSE_SHIFT));
    sp_u32x4 c, r;
    SP_REAL v0, v1, v2, v3;
    c.x = (uint32_t)blk;
    c.y = (uint32_t)(blk >> 32);
    c.z = (uint32_t)stream;
    c.w = (uint32_t)(stream >> 32);
    r = sp_philox4x32_10(c, key0, key1);
#ifdef SP_REAL_SINGLE
    sp_box_muller_float(r.x, r.y, &v0, &v1);
    sp_box_muller_float(r.z, r.w, &v2, &v3);
#else
    sp_box_muller_double(r.x, r.y, &v0, &v1);
    sp_box_muller_double(r.z, r.w, &v2, &v3);
#endif
    zb[4 * j] = v0;
    zb[4 * j + 1] = v1;
    zb[4 * j + 2] = v2;
    zb[4 * j + 3] = v3;
  }
}

/* The arrays and constants of a system that the vector loop reads, loaded
 * once a chunk (the loop's loads and stores then have no struct between
 * them and the compiler). */
typedef struct {
  const SP_REAL *src, *ep, *Q, *R;
  SP_REAL *ys, *xs, *a0, *b0;
  const double *pd;
  uint64_t n;
} SP_PREC(sp_mb_lane_ctx);

/* Element i's states x, neighbours nb (at i + dl[slot] of src), element
 * parameters e, pair sums q and parameters p (p0, then the flag's slot, 0).
 * (The arrays are the callers' own, not a loop body's: once inlined they
 * are scalars, where arrays declared in the body of an `omp simd` loop
 * would become arrays indexed by lane.) */
/* A lanes context of system s over the source states src, with the
 * system's sums R (into r0) and parameters (into p0) copied: loop
 * invariants that no store of the loop may alias, else a conditional load
 * of them stops the vector loop (a mean-field drift's stages). */
SP_FN void SP_PREC(sp_mb_lane_ctx_init)(const SP_PREC(sp_mb_sys) *s, const SP_REAL *src,
                                         SP_PREC(sp_mb_lane_ctx) *cx, SP_REAL *r0,
                                         SP_REAL *p0) {
  int v;
  for (v = 0; v < SP_MB_TN; v++) r0[v] = s->R[v];
  for (v = 0; v < SP_MB_PN; v++) p0[v] = s->p[v];
  cx->src = src;
  cx->ep = s->ep;
  cx->Q = s->Q;
  cx->R = r0;
  cx->ys = s->ys;
  cx->xs = s->xs;
  cx->a0 = s->a0;
  cx->b0 = s->b0;
  cx->pd = s->pd;
  cx->n = s->n;
}

SP_FN void SP_PREC(sp_mb_lane_gather)(const SP_PREC(sp_mb_lane_ctx) *c, const SP_REAL *p0,
                                      int64_t i, const int64_t *dl, SP_REAL *x, SP_REAL *nb,
                                      SP_REAL *e, SP_REAL *q, SP_REAL *p) {
  const uint64_t n = c->n, u = (uint64_t)i;
  const SP_REAL *src = c->src;
  int v;
  SP_MB_UNROLL_P
  for (v = 0; v < SP_MB_NP; v++) p[v] = p0[v];
  p[SP_MB_NP] = 0;
  SP_UNROLL
  for (v = 0; v < SP_MB_NX; v++) x[v] = src[(uint64_t)v * n + u];
#if SP_MB_REACH > 0
  {
    int sl;
    SP_UNROLL
    for (sl = 0; sl < SP_MB_SLOTS; sl++) {
      SP_UNROLL
      for (v = 0; v < SP_MB_NX; v++)
        nb[sl * SP_MB_NX + v] = src[(uint64_t)v * n + (uint64_t)(i + dl[sl])];
    }
  }
#else
  (void)dl;
  nb[0] = x[0];
#endif
#if SP_MB_NE > 0
  SP_UNROLL
  for (v = 0; v < SP_MB_NE; v++) e[v] = c->ep[(uint64_t)v * n + u];
#else
  e[0] = 0;
#endif
#if SP_MB_NQ > 0
  SP_UNROLL
  for (v = 0; v < SP_MB_NQ; v++) q[v] = c->Q[(uint64_t)v * n + u];
#else
  q[0] = 0;
#endif
}

/* One element of a stage at time tt: element i, its neighbours at i +
 * dl[slot] of src, its normals z[0 .. NW - 1].  Stage 1: ys (and, for
 * SRK2, a0 and b0) from src = xs; stage 2: xs from src = ys, a0, b0 (not
 * written where flagged, so that the scalar copy can redo the element);
 * stage 3: the sums' terms of src into rb[q SP_MB_LANE_CH + j].  Returns
 * the flag. */
SP_FN int SP_PREC(sp_mb_lane_elem)(const SP_PREC(sp_mb_lane_ctx) *c, const SP_REAL *p0,
                                   int64_t i, const int64_t *dl, const SP_REAL *z, const int stage,
                                   const int heun, double tt, SP_REAL h, SP_REAL sdt, SP_REAL *rb,
                                   int64_t j) {
  const uint64_t n = c->n, u = (uint64_t)i;
  const SP_REAL half = (SP_REAL)0.5, fi = (SP_REAL)(int32_t)(i + 1);
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX], b[SP_MB_BN],
      dw[SP_MB_WN], y[SP_MB_NX], p[SP_MB_NP + 1];
  int v;
  SP_PREC(sp_mb_lane_gather)(c, p0, i, dl, x, nb, e, q, p);
  if (stage == 3) {
#if SP_MB_NT > 0
    SP_REAL r[SP_MB_TN], oz[SP_MB_NQO > 0 ? SP_MB_NQO : 1] = {0};
    SP_LANE(mb_terms)(tt, x, e, nb, oz, p, c->pd, fi, r);
    SP_UNROLL
    for (v = 0; v < SP_MB_NT; v++) rb[v * SP_MB_LANE_CH + j] = r[v];
#else
    (void)rb; (void)j;
#endif
    return p[SP_MB_NP] != 0;
  }
  if (stage == 2 || heun)
    SP_LANE(mb_drift_strat)(tt, x, e, nb, c->R, q, p, c->pd, fi, f);
  else
    SP_LANE(mb_drift_ito)(tt, x, e, nb, c->R, q, p, c->pd, fi, f);
  SP_LANE(mb_noise)(tt, x, e, nb, c->R, q, p, c->pd, fi, b);
  SP_UNROLL
  for (v = 0; v < SP_MB_WN; v++) dw[v] = SP_MB_NW > 0 ? sdt * z[v] : (SP_REAL)0;
  if (stage == 1) {
    SP_UNROLL
    for (v = 0; v < SP_MB_NX; v++) y[v] = x[v] + f[v] * h;
    SP_LANE(mb_apply_noise)(y, b, dw, p);
    SP_UNROLL
    for (v = 0; v < SP_MB_NX; v++) c->ys[(uint64_t)v * n + u] = y[v];
    if (heun) {
      SP_UNROLL
      for (v = 0; v < SP_MB_NX; v++) c->a0[(uint64_t)v * n + u] = f[v];
      SP_UNROLL
      for (v = 0; v < SP_MB_NB; v++) c->b0[(uint64_t)v * n + u] = b[v];
    }
  } else {
    const int bad = p[SP_MB_NP] != 0;
    SP_UNROLL
    for (v = 0; v < SP_MB_NB; v++) b[v] = half * (c->b0[(uint64_t)v * n + u] + b[v]);
    SP_UNROLL
    for (v = 0; v < SP_MB_NX; v++)
      y[v] = c->xs[(uint64_t)v * n + u] + half * h * (c->a0[(uint64_t)v * n + u] + f[v]);
    SP_LANE(mb_apply_noise)(y, b, dw, p);
    SP_UNROLL
    for (v = 0; v < SP_MB_NX; v++) {
      SP_REAL *d = &c->xs[(uint64_t)v * n + u];
      *d = bad ? *d : y[v];
    }
  }
  return p[SP_MB_NP] != 0;
}

/* The offsets dle[slot] of the neighbours of element i, column c of its
 * row (of a chain or ring: c = i), from those of the row's inner elements
 * dl: an offset past the row's end wraps (on a chain, a missing neighbour
 * is the element itself), as SP_MB_GATHER finds them (REACH is less than
 * the row's length: sde_run() checks). */
SP_FN void SP_PREC(sp_mb_lane_dl)(const SP_PREC(sp_mb_sys) *s, int64_t c, const int64_t *dl,
                                  int64_t *dle) {
  const int64_t R = SP_MB_REACH;
#if SP_MB_DIM == 2
  const int64_t L2 = (int64_t)s->l2;
  int64_t a, b;
  for (a = -R; a <= R; a++)
    for (b = -R; b <= R; b++) {
      const int64_t k = (a + R) * (2 * R + 1) + (b + R);
      dle[k] = dl[k] + (c + b < 0 ? L2 : c + b >= L2 ? -L2 : 0);
    }
#elif SP_MB_REACH > 0
  const int64_t n = (int64_t)s->n;
  int64_t d;
  for (d = -R; d <= R; d++) {
    const int out = c + d < 0 || c + d >= n;
#  if SP_MB_RING
    dle[d + R] = d + (out ? (c + d < 0 ? n : -n) : 0);
#  else
    dle[d + R] = out ? 0 : d;
#  endif
  }
#else
  (void)s; (void)c; (void)dl; (void)R;
  dle[0] = 0;
#endif
}

/* Elements i0 .. i1 - 1 of a stage (3: the sums of src at time t, added in
 * the elements' order in double to s->Rd[0 .. nt - 1]), of the row that
 * starts at element `row`, those in [e0, e1) with their neighbours at i +
 * dl[slot], the others (the edges, whose neighbours wrap) at their own
 * offsets (sp_mb_lane_dl): in chunks, each its normals, then its elements
 * (the inner ones in one vectorised loop, the edges one by one), then its
 * flagged elements by the scalar copy. */
SP_FN void SP_PREC(sp_mb_lane_range)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, int64_t row,
                                     int64_t i0, int64_t i1, int64_t e0, int64_t e1,
                                     const int64_t *dl, const int stage, const int heun, double t,
                                     double dt, SP_REAL h, SP_REAL sdt, uint64_t seed,
                                     uint64_t stream, uint64_t kk, int nt, double *rd,
                                     SP_REAL *tb) {
  const uint64_t B = (s->n * SP_MB_NW + 3) / 4;
  const double tt = stage == 2 ? t + dt : t;
  SP_REAL zb[SP_MB_LANE_CH * SP_MB_WN + 8], rb[SP_MB_LANE_CH * SP_MB_TN];
  int flag[SP_MB_LANE_CH];
  int64_t dle[SP_MB_SLOTS];
  SP_PREC(sp_mb_lane_ctx) cx;
  SP_REAL p0[SP_MB_PN], r0[SP_MB_TN];
  int64_t c0;
  int v;
  (void)B; (void)nt;
  SP_PREC(sp_mb_lane_ctx_init)(s, src, &cx, r0, p0);
  for (c0 = i0; c0 < i1; c0 += SP_MB_LANE_CH) {
    const int64_t c1 = i1 - c0 < SP_MB_LANE_CH ? i1 : c0 + SP_MB_LANE_CH;
    const int64_t m0 = c0 > e0 ? c0 : e0 < c1 ? e0 : c1, m1 = c1 < e1 ? c1 : e1 > m0 ? e1 : m0;
    int64_t i, k, zoff = 0;
    int any = 0;
    zb[0] = 0;
#if SP_MB_NW > 0
    if (stage != 3) {
      const uint64_t d0 = (uint64_t)c0 * SP_MB_NW, d1 = (uint64_t)c1 * SP_MB_NW;
      SP_PREC(sp_mb_lane_normals)(seed, stream, kk, B, d0 / 4, (int)((d1 - 1) / 4 - d0 / 4 + 1),
                                  zb);
      zoff = (int64_t)(d0 / 4 * 4);
    }
#endif
#define SP_MB_LANE_Z(i) (zb + (SP_MB_NW > 0 && stage != 3 ? (i) * SP_MB_NW - zoff : 0))
    _Pragma("omp simd reduction(|:any)")
    for (i = m0; i < m1; i++) {
      const int f = SP_PREC(sp_mb_lane_elem)(&cx, p0, i, dl, SP_MB_LANE_Z(i), stage, heun, tt,
                                             h, sdt, rb, i - c0);
      flag[i - c0] = f;
      any |= f;
    }
    for (k = 0; k < (m0 - c0) + (c1 - m1); k++) { /* the edges before and after [e0, e1) */
      i = k < m0 - c0 ? c0 + k : m1 + k - (m0 - c0);
      SP_PREC(sp_mb_lane_dl)(s, i - row, dl, dle);
      flag[i - c0] = SP_PREC(sp_mb_lane_elem)(&cx, p0, i, dle, SP_MB_LANE_Z(i), stage, heun,
                                              tt, h, sdt, rb, i - c0);
      any |= flag[i - c0];
    }
#undef SP_MB_LANE_Z
    if (any) {
      for (i = c0; i < c1; i++) {
        if (!flag[i - c0]) continue;
        if (stage == 1)
          SP_PREC(sp_mb_elem_stage1)(s, (uint64_t)i, heun, t, h, sdt, seed, stream, kk);
        else if (stage == 2)
          SP_PREC(sp_mb_elem_stage2)(s, (uint64_t)i, t, dt, h, sdt, seed, stream, kk);
        else
          SP_PREC(sp_mb_lane_scalar3)(s, src, (uint64_t)i, t, rb, i - c0);
      }
    }
    if (stage == 3 && tb != NULL) { /* (another thread's elements: their terms kept) */
      int q;
      for (q = 0; q < nt; q++)
        for (i = 0; i < c1 - c0; i++) tb[(uint64_t)q * s->n + (uint64_t)(c0 + i)] = rb[q * SP_MB_LANE_CH + i];
    } else if (stage == 3) {
#if SP_MB_NT > 0
      /* (the sums in registers, every term of the chunk added -- those past
       * nt, which mb_terms computes too, dropped: a sum kept in memory
       * waited on its own store at every element) */
      double a[SP_MB_NT];
      int q;
      SP_UNROLL
      for (q = 0; q < SP_MB_NT; q++) a[q] = q < nt ? rd[q] : 0;
      for (i = 0; i < c1 - c0; i++) {
        SP_UNROLL
        for (q = 0; q < SP_MB_NT; q++) a[q] += (double)rb[q * SP_MB_LANE_CH + i];
      }
      for (q = 0; q < nt; q++) rd[q] = a[q];
#endif
    }
  }
}

/* A stage over the elements of units u0 .. u1 - 1 -- rows of a square
 * lattice (the neighbour rows wrapped once a row), chunks of SP_MB_LANE_CH
 * elements otherwise -- (stage, heun constants: no branch on them inside
 * the loops of sp_mb_lane_range); stage 3's terms added to rd, or kept in
 * tb where tb is not NULL. */
SP_FN void SP_PREC(sp_mb_lane_stage)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, const int stage,
                                     const int heun, double t, double dt, SP_REAL h, SP_REAL sdt,
                                     uint64_t seed, uint64_t stream, uint64_t kk, int nt,
                                     int64_t u0, int64_t u1, double *rd, SP_REAL *tb) {
  const int64_t n = (int64_t)s->n, R = SP_MB_REACH;
  int64_t dl[SP_MB_SLOTS];
#if SP_MB_DIM == 2
  const int64_t L2 = (int64_t)s->l2, L1 = n / L2;
  int64_t r;
  (void)L1;
  for (r = u0; r < u1; r++) {
    const int64_t row = r * L2;
    int64_t a, b;
    for (a = -R; a <= R; a++) {
      const int64_t rr = ((r + a) % L1 + L1) % L1;
      for (b = -R; b <= R; b++) dl[(a + R) * (2 * R + 1) + (b + R)] = (rr - r) * L2 + b;
    }
    SP_PREC(sp_mb_lane_range)(s, src, row, row, row + L2, row + R, row + L2 - R, dl, stage, heun,
                              t, dt, h, sdt, seed, stream, kk, nt, rd, tb);
  }
#else
  const int64_t i0 = u0 * SP_MB_LANE_CH, i1 = u1 * SP_MB_LANE_CH < n ? u1 * SP_MB_LANE_CH : n;
  int64_t d;
  for (d = -R; d <= R; d++) dl[d + R] = d;
  if (i0 < i1)
    SP_PREC(sp_mb_lane_range)(s, src, 0, i0, i1, R, n - R, dl, stage, heun, t, dt, h, sdt, seed,
                              stream, kk, nt, rd, tb);
#endif
}

/* ---- one system's passes on the engine's threads (sp_mb_ext's team) ---- */

/* The least work of a pass worth the threads: elements of a pass over the
 * elements, pair terms of a pass over pairs (below it the team's start and
 * end cost about what the threads gain). */
#ifndef SP_MB_TEAM_MIN
#  define SP_MB_TEAM_MIN 65536.0
#endif
#ifndef SP_MB_TEAM_MIN_PAIRS
#  define SP_MB_TEAM_MIN_PAIRS 1048576.0
#endif

/* fn(ctx, me, nth) on the engine's threads where the pass's work is worth
 * them, else on this one (me 0 of 1). */
static void SP_PREC(sp_mb_team)(const SP_PREC(sp_mb_sys) *s, double work, double min,
                                void (*fn)(void *, int, int), void *ctx) {
  const sp_mb_ext *e = s->ext;
  if (e != NULL && e->team != NULL && e->nth > 1 && work >= min)
    e->team(fn, ctx, e->nth);
  else
    fn(ctx, 0, 1);
}

/* Units u0 .. u1 - 1 of `units` that thread me of nth takes (contiguous, in
 * order). */
SP_FN void SP_PREC(sp_mb_share)(int64_t units, int me, int nth, int64_t *u0, int64_t *u1) {
  *u0 = units * me / nth;
  *u1 = units * (me + 1) / nth;
}

/* A stage (sp_mb_lane_stage) split among threads. */
typedef struct {
  SP_PREC(sp_mb_sys) *s;
  const SP_REAL *src;
  int stage, heun, nt;
  double t, dt;
  SP_REAL h, sdt;
  uint64_t seed, stream, kk;
  int64_t units, first; /* units; where thread 0's end (the others' terms start in tb) */
} SP_PREC(sp_mb_stage_job);

SP_MB_LANES_TARGET
static void SP_PREC(sp_mb_lane_part)(void *v, int me, int nth) {
  SP_PREC(sp_mb_stage_job) *j = (SP_PREC(sp_mb_stage_job) *)v;
  SP_PREC(sp_mb_sys) *s = j->s;
  int64_t u0, u1;
  SP_PREC(sp_mb_share)(j->units, me, nth, &u0, &u1);
  if (me == 1) j->first = u0;
  if (j->stage == 3)
    SP_PREC(sp_mb_lane_stage)(s, j->src, 3, 0, j->t, 0, 0, 0, 0, 0, 0, j->nt, u0, u1, s->Rd,
                              me == 0 ? NULL : s->tb);
  else if (j->stage == 2)
    SP_PREC(sp_mb_lane_stage)(s, s->ys, 2, 1, j->t, j->dt, j->h, j->sdt, j->seed, j->stream,
                              j->kk, 0, u0, u1, NULL, NULL);
  else if (j->heun)
    SP_PREC(sp_mb_lane_stage)(s, s->xs, 1, 1, j->t, j->dt, j->h, j->sdt, j->seed, j->stream,
                              j->kk, 0, u0, u1, NULL, NULL);
  else
    SP_PREC(sp_mb_lane_stage)(s, s->xs, 1, 0, j->t, j->dt, j->h, j->sdt, j->seed, j->stream,
                              j->kk, 0, u0, u1, NULL, NULL);
}

/* The units of a stage: a square lattice's rows, else chunks. */
static int64_t SP_PREC(sp_mb_lane_units)(const SP_PREC(sp_mb_sys) *s) {
#if SP_MB_DIM == 2
  return (int64_t)(s->n / s->l2);
#else
  return (int64_t)((s->n + SP_MB_LANE_CH - 1) / SP_MB_LANE_CH);
#endif
}

static void SP_PREC(sp_mb_lane_stages)(SP_PREC(sp_mb_sys) *s, int stage, int heun, double t,
                                       double dt, SP_REAL h, SP_REAL sdt, uint64_t seed,
                                       uint64_t stream, uint64_t kk) {
  SP_PREC(sp_mb_stage_job) j;
  j.s = s;
  j.src = NULL;
  j.stage = stage;
  j.heun = heun;
  j.nt = 0;
  j.t = t;
  j.dt = dt;
  j.h = h;
  j.sdt = sdt;
  j.seed = seed;
  j.stream = stream;
  j.kk = kk;
  j.units = SP_PREC(sp_mb_lane_units)(s);
  j.first = j.units;
  SP_PREC(sp_mb_team)(s, (double)s->n, SP_MB_TEAM_MIN, SP_PREC(sp_mb_lane_part), &j);
}

/* The sums: thread 0 adds its elements' terms as it goes, the others keep
 * theirs in s->tb (nt x n, made at the first such pass), added afterwards
 * in the elements' order: the same sums as on one thread. */
static void SP_PREC(sp_mb_lane_sums)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                     int nt) {
  SP_PREC(sp_mb_stage_job) j;
  const uint64_t n = s->n;
  int team = s->ext != NULL && s->ext->team != NULL && s->ext->nth > 1 &&
             (double)n >= SP_MB_TEAM_MIN;
  if (team && s->tb == NULL) {
    s->tb = (SP_REAL *)malloc((size_t)SP_MB_TN * n * sizeof(SP_REAL));
    team = s->tb != NULL;
  }
  memset(&j, 0, sizeof j);
  j.s = s;
  j.src = src;
  j.stage = 3;
  j.nt = nt;
  j.t = t;
  j.units = SP_PREC(sp_mb_lane_units)(s);
  j.first = j.units;
  SP_PREC(sp_mb_team)(s, team ? (double)n : 0, SP_MB_TEAM_MIN, SP_PREC(sp_mb_lane_part), &j);
  if (j.first < j.units) {
#if SP_MB_DIM == 2
    const uint64_t i0 = (uint64_t)j.first * s->l2;
#else
    const uint64_t i0 = (uint64_t)j.first * SP_MB_LANE_CH;
#endif
#if SP_MB_NT > 0
    const SP_REAL *tb = s->tb;
    double a[SP_MB_NT];
    uint64_t i;
    int q;
    SP_UNROLL
    for (q = 0; q < SP_MB_NT; q++) a[q] = q < nt ? s->Rd[q] : 0;
    for (i = i0; i < n; i++) {
      SP_UNROLL
      for (q = 0; q < SP_MB_NT; q++) a[q] += q < nt ? (double)tb[(uint64_t)q * n + i] : 0.0;
    }
    for (q = 0; q < nt; q++) s->Rd[q] = a[q];
#endif
  }
}

/* ---- pair sums: targets in lanes ---------------------------------------- */

/* The pair sums go W targets at a time (SP_MB_PAIR_W, a lane each: the
 * registers' width in single precision, or two), each lane summing its own
 * partners in the scalar copy's order (all j != i ascending: partner j the
 * same for every lane, the target's own term computed and dropped; or its
 * Verlet list in order: each lane its own partner, the W partners in one
 * load from the block's interleaved lists (mb_cpu.h's SP_MB_LIST_W), the
 * positions gathered from cp, a lane whose list ended dropping its terms
 * -- the padding's), by the
 * vector copy of the pair function: each target's sums are the scalar
 * copy's bit for bit.  A target whose sine left the vector copy's range is
 * redone by the scalar copy (sp_mb_pair_target). */
#undef SP_MB_PAIR_W
#ifdef SP_REAL_SINGLE
#  define SP_MB_PAIR_W 32
#else
#  define SP_MB_PAIR_W 16
#endif
#if SP_MB_POSD > 0 && SP_MB_PAIR_W != SP_MB_LIST_W
#  error "the Verlet lists' blocks (SP_MB_LIST_W, mb_cpu.h) are not the pair loop's"
#endif
#undef SP_MB_PAIR_QN
#define SP_MB_PAIR_QN ((SP_MB_QN > SP_MB_NQO ? SP_MB_QN : SP_MB_NQO) + 1)

/* A block's targets: lane l's states xl[v W + l], element parameters el,
 * values ul, sums acc[q W + l], flag bad[l], index i + 1 as fi[l], index
 * il[l]; with lists its list's length len[l]. */
typedef struct {
  SP_REAL xl[SP_MB_NX * SP_MB_PAIR_W], el[SP_MB_EN * SP_MB_PAIR_W], ul[SP_MB_UN * SP_MB_PAIR_W],
      acc[SP_MB_PAIR_QN * SP_MB_PAIR_W], bad[SP_MB_PAIR_W], fi[SP_MB_PAIR_W];
  int64_t il[SP_MB_PAIR_W];
  int32_t len[SP_MB_PAIR_W];
} SP_PREC(sp_mb_pair_blk);

/* Lane l's term of partner j (its states xj, element parameters ej, values
 * uj, index + 1 fj), added to the lane's sums unless `drop`.  (The arrays
 * are this function's own: once inlined, scalars of the lane.) */
SP_FN void SP_PREC(sp_mb_lane_pair)(SP_PREC(sp_mb_pair_blk) *b, const int l, const SP_REAL *xj,
                                    const SP_REAL *ej, const SP_REAL *uj, const SP_REAL fj,
                                    const int drop, const SP_REAL *p0, const double *pd, double t,
                                    const int obs) {
  SP_REAL xi[SP_MB_NX], ei[SP_MB_EN], ui[SP_MB_UN], a[SP_MB_PAIR_QN], p[SP_MB_NP + 1];
  const int nq = obs ? SP_MB_NQO : SP_MB_NQP;
  int v;
  SP_MB_UNROLL_P
  for (v = 0; v < SP_MB_NP; v++) p[v] = p0[v];
  p[SP_MB_NP] = b->bad[l];
  SP_UNROLL
  for (v = 0; v < SP_MB_NX; v++) xi[v] = b->xl[v * SP_MB_PAIR_W + l];
  SP_UNROLL
  for (v = 0; v < SP_MB_EN; v++) ei[v] = b->el[v * SP_MB_PAIR_W + l];
  SP_UNROLL
  for (v = 0; v < SP_MB_UN; v++) ui[v] = b->ul[v * SP_MB_PAIR_W + l];
  SP_UNROLL
  for (v = 0; v < SP_MB_PAIR_QN; v++) a[v] = b->acc[v * SP_MB_PAIR_W + l];
  if (obs)
    SP_LANE(mb_pair_obs)(t, xi, ei, xj, ej, ui, uj, p, pd, b->fi[l], fj, a);
  else
    SP_LANE(mb_pair)(t, xi, ei, xj, ej, ui, uj, p, pd, b->fi[l], fj, a);
  SP_UNROLL
  for (v = 0; v < SP_MB_PAIR_QN; v++) {
    SP_REAL *d = &b->acc[v * SP_MB_PAIR_W + l];
    *d = drop || v >= nq ? *d : a[v];
  }
  b->bad[l] = drop ? b->bad[l] : p[SP_MB_NP];
}

#if SP_MB_POSD > 0
/* Lane l's m-th partner of its list, nlm[l] (the block's m-th entries;
 * past the list's end the padding: the term dropped).  (Indices in 32
 * bits, signed: the gathers' own; sp_mb_pair_sums_lanes checks that they
 * fit.) */
SP_FN void SP_PREC(sp_mb_lane_list_pair)(SP_PREC(sp_mb_pair_blk) *b, const int l, int32_t m,
                                         const uint32_t *nlm, const uint32_t *lperm,
                                         const SP_REAL *cp, const SP_REAL *src, const SP_REAL *ep,
                                         const SP_REAL *U, uint64_t n, const SP_REAL *p0,
                                         const double *pd, double t) {
  SP_REAL xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN];
  const int drop = m >= b->len[l];
  const int32_t sl = (int32_t)nlm[l];
  const uint64_t j = lperm[sl];
  int v;
  SP_UNROLL
  for (v = 0; v < SP_MB_NX; v++)
    xj[v] = v == SP_MB_PX0 ? cp[sl]
            : SP_MB_POSD > 1 && v == SP_MB_PX1 ? (cp + n)[sl]
            : SP_MB_POSD > 2 && v == SP_MB_PX2 ? (cp + 2 * n)[sl]
            : src[(uint64_t)v * n + j];
  SP_UNROLL
  for (v = 0; v < SP_MB_EN; v++) ej[v] = SP_MB_NE > 0 ? ep[(uint64_t)v * n + j] : (SP_REAL)0;
  SP_UNROLL
  for (v = 0; v < SP_MB_UN; v++) uj[v] = SP_MB_NU > 0 ? U[(uint64_t)v * n + j] : (SP_REAL)0;
  SP_PREC(sp_mb_lane_pair)(b, l, xj, ej, uj, (SP_REAL)(j + 1), drop, p0, pd, t, 0);
}
#endif

/* Targets it0 .. it0 + w - 1 of the loop (their slots: with lists, those
 * of the lists' cell order) into the block: states, parameters, values,
 * sums 0. */
SP_FN void SP_PREC(sp_mb_pair_load)(const SP_PREC(sp_mb_sys) *s, const SP_REAL *src,
                                    SP_PREC(sp_mb_pair_blk) *b, uint64_t it0, int w, int lists) {
  const uint64_t n = s->n;
  int l, v;
  for (l = 0; l < SP_MB_PAIR_W; l++) {
    const int in = l < w;
#if SP_MB_POSD > 0
    const uint64_t i = !in ? it0 : lists ? s->lperm[it0 + (uint64_t)l] : it0 + (uint64_t)l;
#else
    const uint64_t i = in ? it0 + (uint64_t)l : it0;
    (void)lists;
#endif
    b->il[l] = in ? (int64_t)i : -1;
    b->fi[l] = (SP_REAL)(i + 1);
    b->bad[l] = 0;
    for (v = 0; v < SP_MB_NX; v++) b->xl[v * SP_MB_PAIR_W + l] = src[(uint64_t)v * n + i];
    for (v = 0; v < SP_MB_EN; v++)
      b->el[v * SP_MB_PAIR_W + l] = SP_MB_NE > 0 ? s->ep[(uint64_t)v * n + i] : (SP_REAL)0;
    for (v = 0; v < SP_MB_UN; v++)
      b->ul[v * SP_MB_PAIR_W + l] = SP_MB_NU > 0 ? s->U[(uint64_t)v * n + i] : (SP_REAL)0;
    for (v = 0; v < SP_MB_PAIR_QN; v++) b->acc[v * SP_MB_PAIR_W + l] = 0;
#if SP_MB_POSD > 0
    if (lists) b->len[l] = in ? (int32_t)s->nl_off[n + 1 + it0 + (uint64_t)l] : 0;
#endif
  }
}

/* The block's sums stored (the flagged targets redone by the scalar copy). */
static void SP_PREC(sp_mb_pair_store)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                      SP_PREC(sp_mb_pair_blk) *b, uint64_t it0, int w, int obs,
                                      int cells, int lists) {
  const uint64_t n = s->n;
  const int nq = obs ? SP_MB_NQO : SP_MB_NQP;
  SP_REAL *out = obs ? s->O : s->Q;
  int l, v;
  for (l = 0; l < w; l++) {
    const uint64_t i = (uint64_t)b->il[l];
    if (b->bad[l] != 0) {
      SP_PREC(sp_mb_pair_target)(s, src, t, obs, cells, lists, it0 + (uint64_t)l, i);
      continue;
    }
    for (v = 0; v < nq; v++) out[(uint64_t)v * n + i] = b->acc[v * SP_MB_PAIR_W + l];
  }
}

/* All pairs: every target's partners j != i ascending (the targets of
 * blocks k0 .. k1 - 1). */
SP_FN void SP_PREC(sp_mb_pair_all)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                   const int obs, uint64_t k0, uint64_t k1) {
  const uint64_t n = s->n;
  const SP_REAL *ep = s->ep, *U = s->U;
  const double *pd = s->pd;
  SP_PREC(sp_mb_pair_blk) b;
  SP_REAL p0[SP_MB_PN];
  uint64_t it0, j;
  int v;
  for (v = 0; v < SP_MB_PN; v++) p0[v] = s->p[v];
  for (it0 = k0 * SP_MB_PAIR_W; it0 < n && it0 < k1 * SP_MB_PAIR_W; it0 += SP_MB_PAIR_W) {
    const int w = n - it0 < SP_MB_PAIR_W ? (int)(n - it0) : SP_MB_PAIR_W;
    SP_PREC(sp_mb_pair_load)(s, src, &b, it0, w, 0);
    for (j = 0; j < n; j++) {
      SP_REAL xj[SP_MB_NX], ej[SP_MB_EN], uj[SP_MB_UN];
      const SP_REAL fj = (SP_REAL)(j + 1);
      int l;
      for (v = 0; v < SP_MB_NX; v++) xj[v] = src[(uint64_t)v * n + j];
      for (v = 0; v < SP_MB_EN; v++) ej[v] = SP_MB_NE > 0 ? ep[(uint64_t)v * n + j] : (SP_REAL)0;
      for (v = 0; v < SP_MB_UN; v++) uj[v] = SP_MB_NU > 0 ? U[(uint64_t)v * n + j] : (SP_REAL)0;
      _Pragma("omp simd")
      for (l = 0; l < SP_MB_PAIR_W; l++)
        SP_PREC(sp_mb_lane_pair)(&b, l, xj, ej, uj, fj, b.il[l] == (int64_t)j, p0, pd, t, obs);
    }
    SP_PREC(sp_mb_pair_store)(s, src, t, &b, it0, w, obs, 0, 0);
  }
}

#if SP_MB_POSD > 0
/* The Verlet lists: each target's list in order (the targets in the
 * lists' cell order: a block's lists are about as long; those of blocks k0
 * .. k1 - 1). */
SP_FN void SP_PREC(sp_mb_pair_lists)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                     uint64_t k0, uint64_t k1) {
  const uint64_t n = s->n;
  const uint32_t *nl = s->nl, *lperm = s->lperm;
  const SP_REAL *cp = s->cp, *ep = s->ep, *U = s->U;
  const double *pd = s->pd;
  SP_PREC(sp_mb_pair_blk) b;
  SP_REAL p0[SP_MB_PN];
  uint64_t it0;
  int v;
  for (v = 0; v < SP_MB_PN; v++) p0[v] = s->p[v];
  for (it0 = k0 * SP_MB_PAIR_W; it0 < n && it0 < k1 * SP_MB_PAIR_W; it0 += SP_MB_PAIR_W) {
    const int w = n - it0 < SP_MB_PAIR_W ? (int)(n - it0) : SP_MB_PAIR_W;
    /* the block's lists: from nl[nl_off[it0]], mlen deep (mb_cpu.h) */
    const uint32_t *nlb = nl + s->nl_off[it0];
    const int32_t mlen = (int32_t)(((w < SP_MB_PAIR_W ? s->nl_off[n] : s->nl_off[it0 + SP_MB_PAIR_W]) -
                                    s->nl_off[it0]) / SP_MB_PAIR_W);
    int32_t m;
    int l;
    SP_PREC(sp_mb_pair_load)(s, src, &b, it0, w, 1);
    for (m = 0; m < mlen; m++) {
      const uint32_t *nlm = nlb + (uint64_t)m * SP_MB_PAIR_W;
      _Pragma("omp simd")
      for (l = 0; l < SP_MB_PAIR_W; l++)
        SP_PREC(sp_mb_lane_list_pair)(&b, l, m, nlm, lperm, cp, src, ep, U, n, p0, pd, t);
    }
    SP_PREC(sp_mb_pair_store)(s, src, t, &b, it0, w, 0, 1, 1);
  }
}
#endif

/* A pass of pair sums split among threads: each its blocks of targets. */
typedef struct {
  SP_PREC(sp_mb_sys) *s;
  const SP_REAL *src;
  double t;
  int obs, lists;
} SP_PREC(sp_mb_pair_job);

SP_MB_PAIR_TARGET
static void SP_PREC(sp_mb_pair_part)(void *v, int me, int nth) {
  SP_PREC(sp_mb_pair_job) *j = (SP_PREC(sp_mb_pair_job) *)v;
  const int64_t nb = (int64_t)((j->s->n + SP_MB_PAIR_W - 1) / SP_MB_PAIR_W);
  int64_t k0, k1;
  SP_PREC(sp_mb_share)(nb, me, nth, &k0, &k1);
#if SP_MB_POSD > 0
  if (j->lists) {
    SP_PREC(sp_mb_pair_lists)(j->s, j->src, j->t, (uint64_t)k0, (uint64_t)k1);
    return;
  }
#endif
  if (j->obs)
    SP_PREC(sp_mb_pair_all)(j->s, j->src, j->t, 1, (uint64_t)k0, (uint64_t)k1);
  else
    SP_PREC(sp_mb_pair_all)(j->s, j->src, j->t, 0, (uint64_t)k0, (uint64_t)k1);
}

static void SP_PREC(sp_mb_pair_lanes_run)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                          int obs, int lists) {
  SP_PREC(sp_mb_pair_job) j;
  double work = (double)s->n * (double)s->n;
#if SP_MB_POSD > 0
  if (lists) work = (double)s->nl_off[s->n];
#endif
  j.s = s;
  j.src = src;
  j.t = t;
  j.obs = obs;
  j.lists = lists;
  SP_PREC(sp_mb_team)(s, work, SP_MB_TEAM_MIN_PAIRS, SP_PREC(sp_mb_pair_part), &j);
}

/* ---- the entries mb_cpu.h calls --------------------------------------- */

/* Whether the vector loops run: this processor has the instructions they
 * were compiled for, the system has fewer than 2^31 elements, the model not
 * too many noise entries or sums. */
static int SP_PREC(sp_mb_lanes_ok)(const SP_PREC(sp_mb_sys) *s) {
  return SP_MB_WN <= SP_MB_LANE_MAXW && SP_MB_TN <= SP_MB_LANE_MAXT &&
         s->n < ((uint64_t)1 << 31) && sp_mb_lanes_cpu_ok();
}

/* One step of euler or srk2 from xs, as sp_mb_step_sde does it: 1, or 0
 * where the vector loops cannot run (then sp_mb_step_sde does the step).
 * Euler's new state takes the place of the old by swapping xs and ys. */
static int SP_PREC(sp_mb_step_sde_lanes)(SP_PREC(sp_mb_sys) *s, int heun, double t, double dt,
                                         uint64_t seed, uint64_t stream, uint64_t kk) {
  const SP_REAL h = (SP_REAL)dt, sdt = (SP_REAL)sqrt(dt);
  if (!SP_PREC(sp_mb_lanes_ok)(s)) return 0;
  SP_PREC(sp_mb_couple)(s, s->xs, t);
  SP_PREC(sp_mb_lane_stages)(s, 1, heun, t, dt, h, sdt, seed, stream, kk);
  if (!heun) {
    SP_REAL *w = s->xs;
    s->xs = s->ys;
    s->ys = w;
    return 1;
  }
  SP_PREC(sp_mb_couple)(s, s->ys, t + dt);
  SP_PREC(sp_mb_lane_stages)(s, 2, 1, t, dt, h, sdt, seed, stream, kk);
  return 1;
}

/* The first nt sums of the state src, as sp_mb_reduce computes them (the
 * terms by the vector loop, added in the elements' order in double): 1, or
 * 0 where the vector loops cannot run. */
static int SP_PREC(sp_mb_reduce_lanes)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                       int nt) {
  int q;
  if (!SP_PREC(sp_mb_lanes_ok)(s)) return 0;
  for (q = 0; q < nt; q++) s->Rd[q] = 0;
  SP_PREC(sp_mb_lane_sums)(s, src, t, nt);
  for (q = 0; q < nt; q++) s->R[q] = (SP_REAL)s->Rd[q];
  return 1;
}

/* ---- the splitting methods (verlet, yoshida4): kicks and moves in lanes -- */

/* Element i of a stage of a splitting method (models without lattice
 * neighbours): its force at time tq from the couplings R, Q of the
 * positions in xs, its momenta kicked by h F (kick), then its positions
 * moved by cm with the new momenta (move), written back to xs unless
 * flagged (the scalar copy, sp_mb_elem_km, then redoes it): the operations
 * of sp_mb_forces and sp_mb_kick_move.  (An element's force reads its own
 * states only, so the kicks and moves of the others change nothing it
 * reads.)  Returns the flag. */
SP_FN int SP_PREC(sp_mb_lane_km)(const SP_PREC(sp_mb_lane_ctx) *c, const SP_REAL *p0, int64_t i,
                                 const int kick, const int move, double tq, SP_REAL h,
                                 SP_REAL cm) {
  const uint64_t n = c->n, u = (uint64_t)i;
  const SP_REAL fi = (SP_REAL)(int32_t)(i + 1);
  SP_REAL x[SP_MB_NX], x0[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX],
      p[SP_MB_NP + 1];
  const int64_t dl0[1] = {0};
  int v, bad;
  SP_PREC(sp_mb_lane_gather)(c, p0, i, dl0, x, nb, e, q, p);
  SP_UNROLL
  for (v = 0; v < SP_MB_NX; v++) x0[v] = x[v];
  if (kick) {
    SP_LANE(mb_force)(tq, x, e, nb, c->R, q, p, c->pd, fi, f);
    SP_LANE(mb_kick)(x, f, h);
  }
  if (move) SP_LANE(mb_move)(x, e, p, fi, cm);
  bad = p[SP_MB_NP] != 0;
  SP_UNROLL
  for (v = 0; v < SP_MB_NX; v++) c->xs[(uint64_t)v * n + u] = bad ? x0[v] : x[v];
  return bad;
}

/* Elements i0 .. i1 - 1 of such a stage, in chunks: the vector loop, then
 * the chunk's flagged elements by the scalar copy. */
SP_FN void SP_PREC(sp_mb_lane_km_range)(SP_PREC(sp_mb_sys) *s, int64_t i0, int64_t i1,
                                        const int kick, const int move, double tq, SP_REAL h,
                                        SP_REAL cm) {
  SP_PREC(sp_mb_lane_ctx) cx;
  SP_REAL p0[SP_MB_PN], r0[SP_MB_TN];
  int flag[SP_MB_LANE_CH];
  int64_t c0;
  int v;
  SP_PREC(sp_mb_lane_ctx_init)(s, s->xs, &cx, r0, p0);
  for (c0 = i0; c0 < i1; c0 += SP_MB_LANE_CH) {
    const int64_t c1 = i1 - c0 < SP_MB_LANE_CH ? i1 : c0 + SP_MB_LANE_CH;
    int64_t i;
    int any = 0;
    _Pragma("omp simd reduction(|:any)")
    for (i = c0; i < c1; i++) {
      const int f = SP_PREC(sp_mb_lane_km)(&cx, p0, i, kick, move, tq, h, cm);
      flag[i - c0] = f;
      any |= f;
    }
    if (any)
      for (i = c0; i < c1; i++)
        if (flag[i - c0]) SP_PREC(sp_mb_elem_km)(s, (uint64_t)i, kick, move, tq, h, cm);
  }
}

typedef struct {
  SP_PREC(sp_mb_sys) *s;
  int kick, move;
  double tq;
  SP_REAL h, cm;
} SP_PREC(sp_mb_km_job);

SP_MB_LANES_TARGET
static void SP_PREC(sp_mb_km_part)(void *v, int me, int nth) {
  SP_PREC(sp_mb_km_job) *j = (SP_PREC(sp_mb_km_job) *)v;
  SP_PREC(sp_mb_sys) *s = j->s;
  const int64_t n = (int64_t)s->n;
  int64_t u0, u1, i1;
  SP_PREC(sp_mb_share)((n + SP_MB_LANE_CH - 1) / SP_MB_LANE_CH, me, nth, &u0, &u1);
  i1 = u1 * SP_MB_LANE_CH < n ? u1 * SP_MB_LANE_CH : n;
  if (j->kick && j->move)
    SP_PREC(sp_mb_lane_km_range)(s, u0 * SP_MB_LANE_CH, i1, 1, 1, j->tq, j->h, j->cm);
  else if (j->kick)
    SP_PREC(sp_mb_lane_km_range)(s, u0 * SP_MB_LANE_CH, i1, 1, 0, j->tq, j->h, j->cm);
  else
    SP_PREC(sp_mb_lane_km_range)(s, u0 * SP_MB_LANE_CH, i1, 0, 1, j->tq, j->h, j->cm);
}

/* One step of verlet or yoshida4 from xs, as sp_mb_step_split does it (the
 * same numbers): each stage's couplings (where it kicks), then its kicks
 * and moves in one pass over the elements.  1, or 0 where the vector loops
 * do not run (a model with lattice neighbours, whose forces read the
 * neighbours' states: then sp_mb_step_split does the step). */
static int SP_PREC(sp_mb_step_split_lanes)(SP_PREC(sp_mb_sys) *s, int method, double t,
                                           double dt) {
#if SP_MB_REACH > 0
  (void)s; (void)method; (void)t; (void)dt;
  return 0;
#else
  double d[4], c[4], tq = t;
  int ns, a;
  if (!SP_PREC(sp_mb_lanes_ok)(s)) return 0;
  ns = sp_mb_stages(method, d, c);
  for (a = 0; a < ns; a++) {
    SP_PREC(sp_mb_km_job) j;
    j.s = s;
    j.h = (SP_REAL)(d[a] * dt);
    j.cm = (SP_REAL)(c[a] * dt);
    j.tq = tq;
    j.kick = j.h != 0;
    j.move = j.cm != 0;
    if (d[a] != 0) SP_PREC(sp_mb_couple)(s, s->xs, tq);
    if (j.kick || j.move)
      SP_PREC(sp_mb_team)(s, (double)s->n, SP_MB_TEAM_MIN, SP_PREC(sp_mb_km_part), &j);
    tq += c[a] * dt;
  }
  return 1;
#endif
}

/* The pair sums of state src (sp_mb_pair_sums, obs as there, its cells and
 * lists), all pairs or through the Verlet lists by the vector loop over
 * targets: 1, or 0 where it does not run (the cell lists of the
 * observables, a system of 2^31 elements or more, a processor without the
 * instructions). */
static int SP_PREC(sp_mb_pair_sums_lanes)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                          int obs, int cells, int lists) {
  if ((cells && !lists) || !SP_PREC(sp_mb_lanes_ok)(s)) return 0;
#if SP_MB_POSD > 0
  if (lists && s->nl_off[s->n] >= ((uint32_t)1 << 31)) return 0;
#endif
  SP_PREC(sp_mb_pair_lanes_run)(s, src, t, obs, lists);
  return 1;
}
