/* sde_lanes.h: the CPU's vector loop of a user's SDE model (sde_run()):
 * SP_SDE_W paths advance together, each in a lane of the SIMD registers, as
 * the escape engine's lanes do (src/core/sp_escape_lanes.inc).  Included
 * by sde_cpu.h after the model's two copies, once per precision: the
 * scalar copy (SP_PREC names: sp_sde_advance and the model's functions as
 * sde_engine.h has them) and the vector copy (SP_LANE names, compiled with
 * SP_PREC_LANE: sine and cosine without a branch, sde_prelude.h).
 *
 * A macro-step of every lane is one pass of a loop over the lanes that the
 * compiler vectorises: the lane's Philox blocks from 32-bit counter words
 * (the same blocks as sp_sde_normals), its normals, and sde_engine.h's
 * whole macro-step without tests between its steps (sp_sde_macro_fast).
 * Where that flags the lane (the event, the bridge's test, a long run of
 * coarse steps, a state not finite) or an argument of a sine lay beyond
 * the vector copy's range, the lane's macro-step is redone from its start
 * by the scalar copy (sp_sde_cpu_advance: its fast macro-step, then step by
 * step), as a path alone does; so is the part of a macro-step before the
 * first whole one or after the last.  The vector copy computes what the
 * scalar one does, operation for operation (the object is compiled with
 * -ffp-contract=off: no fused multiply-add in one copy and not the other;
 * R/sde-compile.R),
 * so a path's numbers do not depend on how its steps were split between
 * the two, nor on its lane, its batch or the threads. */

#include <string.h>

/* The instructions the vector loop is compiled for (SP_SDE_LANES_ARCH:
 * "arch=x86-64-v4" or "arch=x86-64-v3", the processor's, set by sde_run();
 * unset: the compiler's baseline), checked again where the object runs
 * (a cache shared by machines holds an object per level: the level is in
 * its source and so in its key). */
#ifndef SP_SDE_LANES_ONCE
#  define SP_SDE_LANES_ONCE
#  if defined(SP_SDE_LANES_ARCH) && defined(__x86_64__) && defined(__GNUC__) && \
      (defined(__clang__) || __GNUC__ >= 11)
#    if SP_SDE_LANES_LEVEL >= 4
#      define SP_SDE_LANES_TARGET \
        __attribute__((target(SP_SDE_LANES_ARCH ",prefer-vector-width=512")))
#    else
#      define SP_SDE_LANES_TARGET __attribute__((target(SP_SDE_LANES_ARCH)))
#    endif
static int sp_sde_lanes_cpu_ok(void) {
  int ok;
  __builtin_cpu_init();
  ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
       __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#    if SP_SDE_LANES_LEVEL >= 4
  ok = ok && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
       __builtin_cpu_supports("avx512vl");
#    endif
  return ok;
}
#  else
#    define SP_SDE_LANES_TARGET
static int sp_sde_lanes_cpu_ok(void) { return 1; }
#  endif
#endif

#define SP_SDE_LANE_BLOCKS (SP_SDE_NW > 0 ? SP_SDE_M * SP_SDE_NW / 4 : 0)
#define SP_SDE_LANE_NP (SP_SDE_NP > 0 ? SP_SDE_NP : 1)

/* The states of a batch, structure of arrays (lane innermost): the lanes'
 * states, parameters, the step of their macro-step (in double) and the
 * Philox counter words of its first block; act: the lanes that run. */
typedef struct {
  SP_REAL x[SP_SDE_NX][SP_SDE_W], p[SP_SDE_LANE_NP][SP_SDE_W], g0[SP_SDE_W];
  double pd[SP_SDE_LANE_NP][SP_SDE_W], kd[SP_SDE_W];
  unsigned run[SP_SDE_W];
  uint32_t c0[SP_SDE_W], c1[SP_SDE_W], c2[SP_SDE_W], c3[SP_SDE_W];
  int act[SP_SDE_W];
} SP_PREC(sp_sde_soa);

/* Lane l of the batch from its record, its parameters par, its stream
 * and step k; or its state back into its record. */
static void SP_PREC(sp_sde_lane_load)(SP_PREC(sp_sde_soa) *s, int l, const double *par,
                                      const double *x, uint64_t stream, uint64_t k) {
  const uint64_t blk = k / SP_SDE_M * (uint64_t)SP_SDE_LANE_BLOCKS;
  int i;
  for (i = 0; i < SP_SDE_NX; i++) s->x[i][l] = (SP_REAL)x[i];
  s->run[l] = (unsigned)x[SP_SDE_NX];
  for (i = 0; i < SP_SDE_NP; i++) {
    s->p[i][l] = (SP_REAL)par[i];
    s->pd[i][l] = par[i];
  }
  s->kd[l] = (double)k;
  s->c0[l] = (uint32_t)blk;
  s->c1[l] = (uint32_t)(blk >> 32) | ((uint32_t)SP_PURPOSE_SDE_STEPS << SP_PURPOSE_SHIFT);
  s->c2[l] = (uint32_t)stream;
  s->c3[l] = (uint32_t)(stream >> 32);
}

static void SP_PREC(sp_sde_lane_store)(const SP_PREC(sp_sde_soa) *s, int l, double *x) {
  int i;
  for (i = 0; i < SP_SDE_NX; i++) x[i] = (double)s->x[i][l];
  x[SP_SDE_NX] = (double)s->run[l];
}

/* The gap of the event at lane l's step k (the bridge's flag; the scalar
 * copy, as sp_sde_advance computes it where it starts). */
static SP_REAL SP_PREC(sp_sde_lane_gap0)(const sp_sde_job *job, const SP_PREC(sp_sde_soa) *s,
                                         int l, uint64_t k) {
  SP_REAL x[SP_SDE_NX], p[SP_SDE_LANE_NP];
  double pd[SP_SDE_LANE_NP];
  int i;
  for (i = 0; i < SP_SDE_NX; i++) x[i] = s->x[i][l];
  for (i = 0; i < SP_SDE_LANE_NP; i++) {
    p[i] = s->p[i][l];
    pd[i] = s->pd[i][l];
  }
  return SP_PREC(sp_sde_gap0)(p, pd, (int)job->use_stop, (int)job->bridge, job->dt, k, x);
}

/* Lane l alone by the scalar copy from its step to kto (its record written
 * first, read back after): its status; the lane stops running unless it
 * runs on (status SP_SDE_RUNNING, k < kend). */
static int SP_PREC(sp_sde_lane_scalar)(const sp_sde_job *job, uint64_t seed, sp_sde_lanes *L,
                                       SP_PREC(sp_sde_soa) *s, int l, uint64_t kto) {
  int st;
  SP_PREC(sp_sde_lane_store)(s, l, L->x[l]);
  st = SP_PREC(sp_sde_cpu_advance)(job, L->par[l], seed, L->stream[l], L->x[l], &L->k[l], kto,
                                   &L->frac[l], &L->what[l]);
  SP_PREC(sp_sde_lane_load)(s, l, L->par[l], L->x[l], L->stream[l], L->k[l]);
  s->g0[l] = SP_PREC(sp_sde_lane_gap0)(job, s, l, L->k[l]);
  L->status[l] = st;
  s->act[l] = st == SP_SDE_RUNNING && L->k[l] < L->kend[l];
  return s->act[l];
}

/* One macro-step of lane l from its state in s: committed to s where the
 * lane runs and the macro-step is not flagged (its state, and its step
 * and counters a macro-step on), else s is left as it was (the start of a
 * redo); returns the flag: 1 where the scalar copy must redo it.  (Its
 * arrays are its own, not the loop body's: declared in the body of an
 * `omp simd` loop they would become arrays indexed by lane, which the
 * compiler does not keep in registers; here they are scalars once
 * inlined.) */
SP_FN int SP_PREC(sp_sde_lane_macro)(SP_PREC(sp_sde_soa) *s, int l, uint32_t key0, uint32_t key1,
                                     double dt, SP_REAL h, SP_REAL sdt, const int heun,
                                     const int use_stop, const int use_bridge) {
  SP_REAL x[SP_SDE_NX], p[SP_SDE_LANE_NP], z[SP_SDE_ZN], g0 = s->g0[l];
  double pd[SP_SDE_LANE_NP + 1];
  unsigned run = s->run[l];
  uint32_t c0n;
  int i, b, f, keep;
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) x[i] = s->x[i][l];
  SP_UNROLL
  for (i = 0; i < SP_SDE_LANE_NP; i++) {
    p[i] = s->p[i][l];
    pd[i] = s->pd[i][l];
  }
  pd[SP_SDE_NP] = 0; /* SP_SDE_LANE_BAD: a sine's argument beyond range */
  z[0] = 0;
  SP_UNROLL
  for (b = 0; b < SP_SDE_LANE_BLOCKS; b++) {
    sp_u32x4 c, r;
    c.x = s->c0[l] + (uint32_t)b;
    c.y = s->c1[l] + (uint32_t)(c.x < s->c0[l]); /* the carry into the block's high word */
    c.z = s->c2[l];
    c.w = s->c3[l];
    r = sp_philox4x32_10(c, key0, key1);
    SP_SDE_BM(r.x, r.y, &z[4 * b], &z[4 * b + 1]);
    SP_SDE_BM(r.z, r.w, &z[4 * b + 2], &z[4 * b + 3]);
  }
  /* (the time terms computed by each lane, once a step time: on the CPU a
   * table shared by the lanes cost more to fill, by the scalar copy, than
   * the vector copy's polynomials it saved -- bench/RESULTS.md, session 16) */
  f = SP_LANE(sp_sde_macro_fast_kd)(p, pd, heun, use_stop, use_bridge, 0, SP_SDE_NO_TAB, s->kd[l],
                                    dt, h, sdt, z, x, &run, &g0);
  f |= pd[SP_SDE_NP] != 0;
  keep = s->act[l] & !f;
  SP_UNROLL
  for (i = 0; i < SP_SDE_NX; i++) s->x[i][l] = keep ? x[i] : s->x[i][l];
  s->run[l] = keep ? run : s->run[l];
  s->g0[l] = keep ? g0 : s->g0[l];
  s->kd[l] += keep ? (double)SP_SDE_M : 0.0;
  c0n = s->c0[l] + (keep ? (uint32_t)SP_SDE_LANE_BLOCKS : 0u);
  s->c1[l] += (uint32_t)(c0n < s->c0[l]);
  s->c0[l] = c0n;
  return f;
}

/* Up to nmac macro-steps of every lane, vectorised (heun and use_bridge
 * constants of each call: no branch inside the loop over lanes): the
 * macro-steps done, nmac or up to the first in which a running lane is
 * flagged (flag[l] the lanes' flags of that one).  Two vectors in flight:
 * the 32 lanes (SP_SDE_W) are one vector iteration of 32, two zmm of
 * floats (four of doubles) a statement, each statement for both before the
 * next, so that the step's serial chain (x -> cos(2 pi x) -> v -> x) of one
 * half overlaps the other's.  GCC takes the 32 (simdlen(32), AVX-512)
 * only where a 16-bit value of the loop makes its natural width 32 lanes:
 * f16; with int alone it runs a 16-lane body twice in sequence
 * (bench/RESULTS.md, session 17).  The lanes' arithmetic is unchanged. */
SP_FN uint64_t SP_PREC(sp_sde_lanes_pass)(const sp_sde_job *job, uint64_t seed,
                                          SP_PREC(sp_sde_soa) *s, uint64_t nmac, int *flag,
                                          const int heun, const int use_bridge) {
  const uint32_t key0 = (uint32_t)seed, key1 = (uint32_t)(seed >> 32);
  const double dt = job->dt;
  const SP_REAL h = (SP_REAL)dt, sdt = (SP_REAL)sqrt(dt);
  const int use_stop = (int)job->use_stop;
  uint64_t it;
  for (it = 0; it < nmac; it++) {
    int l, any = 0;
    uint16_t f16[SP_SDE_W];
    _Pragma("omp simd simdlen(32)")
    for (l = 0; l < SP_SDE_W; l++) {
      const int f = SP_PREC(sp_sde_lane_macro)(s, l, key0, key1, dt, h, sdt, heun, use_stop,
                                               use_bridge);
      f16[l] = (uint16_t)(f & s->act[l]);
      flag[l] = f;
    }
    for (l = 0; l < SP_SDE_W; l++) any |= f16[l];
    if (any) return it + 1;
  }
  return nmac;
}

SP_SDE_LANES_TARGET
static uint64_t SP_PREC(sp_sde_lanes_macro)(const sp_sde_job *job, uint64_t seed,
                                            SP_PREC(sp_sde_soa) *s, uint64_t nmac, int *flag) {
#if SP_SDE_HAS_STOP && SP_SDE_BRIDGE
  if (job->bridge) {
    if (job->heun) return SP_PREC(sp_sde_lanes_pass)(job, seed, s, nmac, flag, 1, 1);
    return SP_PREC(sp_sde_lanes_pass)(job, seed, s, nmac, flag, 0, 1);
  }
#endif
  if (job->heun) return SP_PREC(sp_sde_lanes_pass)(job, seed, s, nmac, flag, 1, 0);
  return SP_PREC(sp_sde_lanes_pass)(job, seed, s, nmac, flag, 0, 0);
}

/* The entry (sp_sde_lanes_fn; sde_args.h says what it does).  The running
 * lanes advance in step, a macro-step at a time, from the end of a
 * macro-step (a part of one first by the scalar copy) until one of them
 * would pass its kend (its last part by the scalar copy). */
void SP_PREC(sp_sde_cpu_lanes)(const sp_sde_job *job, uint64_t seed, sp_sde_lanes *L) {
  SP_PREC(sp_sde_soa) s;
  int flag[SP_SDE_W], ran[SP_SDE_W], l, ref = -1, done = 0;
  if (!sp_sde_lanes_cpu_ok()) {
    SP_PREC(sp_sde_cpu_lanes_paths)(job, seed, L);
    return;
  }
  memset(&s, 0, sizeof s);
  for (l = 0; l < SP_SDE_W; l++) {
    ran[l] = s.act[l] = L->on[l] && L->status[l] == SP_SDE_RUNNING && L->k[l] < L->kend[l];
    if (s.act[l] && ref < 0) ref = l;
  }
  if (ref < 0) return;
  for (l = 0; l < SP_SDE_W; l++) { /* an idle lane computes on a copy of lane ref */
    const int from = s.act[l] ? l : ref;
    SP_PREC(sp_sde_lane_load)(&s, l, L->par[from], L->x[from], L->stream[from], L->k[from]);
  }
  /* a path's start (the event at t = 0) and a part of a macro-step */
  for (l = 0; l < SP_SDE_W; l++) {
    uint64_t k = L->k[l], kto;
    if (!s.act[l]) continue;
    if (k % SP_SDE_M == 0 && k > 0) {
      s.g0[l] = SP_PREC(sp_sde_lane_gap0)(job, &s, l, k);
      continue;
    }
    kto = k == 0 ? 0 : k - k % SP_SDE_M + SP_SDE_M;
    if (kto > L->kend[l]) kto = L->kend[l];
    if (!SP_PREC(sp_sde_lane_scalar)(job, seed, L, &s, l, kto)) done = 1;
  }
  while (!done) {
    uint64_t nmac = ~(uint64_t)0, k0[SP_SDE_W], n;
    for (l = 0; l < SP_SDE_W; l++) {
      if (!s.act[l]) continue;
      k0[l] = L->k[l];
      if (L->kend[l] - L->k[l] < (uint64_t)SP_SDE_M) { /* the part of a macro-step before kend */
        SP_PREC(sp_sde_lane_scalar)(job, seed, L, &s, l, L->kend[l]);
        done = 1;
      } else if ((L->kend[l] - L->k[l]) / SP_SDE_M < nmac) {
        nmac = (L->kend[l] - L->k[l]) / SP_SDE_M;
      }
    }
    if (done || nmac == ~(uint64_t)0) break;
    n = SP_PREC(sp_sde_lanes_macro)(job, seed, &s, nmac, flag);
    for (l = 0; l < SP_SDE_W; l++) {
      if (!s.act[l]) continue;
      L->k[l] = k0[l] + n * SP_SDE_M;
      if (flag[l]) { /* the last macro-step, flagged: redone from its start */
        L->k[l] -= SP_SDE_M;
        if (!SP_PREC(sp_sde_lane_scalar)(job, seed, L, &s, l, L->k[l] + SP_SDE_M)) done = 1;
      }
      if (s.act[l] && L->k[l] >= L->kend[l]) {
        s.act[l] = 0;
        done = 1;
      }
    }
  }
  for (l = 0; l < SP_SDE_W; l++)
    if (ran[l] && L->status[l] == SP_SDE_RUNNING) SP_PREC(sp_sde_lane_store)(&s, l, L->x[l]);
}
