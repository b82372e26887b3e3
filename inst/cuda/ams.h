/* ams.h: adaptive multilevel splitting (AMS) for rare transitions of a
 * model -- the algorithm shared by the CPU engine (src/core/sp_ams*.c, and
 * the CPU object of a user's SDE model) and the GPU kernels (ams.cu), in
 * the SP_FN style.
 *
 * Define SP_REAL (and SP_REAL_SINGLE) as for escape.h, then include this
 * file; the functions are suffixed _f or _d.  The model is chosen at
 * compile time: the tilted washboard of escape.h (ams_washboard.h,
 * escape_rate_ams()) by default, or, with SP_AMS_SDE defined, a user's SDE
 * model and score (ams_sde.h, sde_ams(); included after the model's
 * generated header and sde_engine.h).  ams_washboard.h lists what a model
 * provides: the state, the step, the score and the regions A and B;
 * everything else -- the long trajectory that samples the exits from A,
 * the runs of particles to A or B, the replay to a level, the level, the
 * kills and the picks -- is written here against it, once.
 *
 * Random numbers (sp_streams.h).  Replica R (global, 0-based) of condition
 * c uses the Philox stream s = c 2^40 + R (the stream of escape_times()'s
 * path R) under two purposes of its own:
 *   SP_PURPOSE_AMS_STEPS: the normals of every path's steps; step k + 1 of
 *     path P uses normals k W .. k W + W - 1 (W = SP_AMS_NW normals a step:
 *     1 on the washboard, the model's noise entries on an SDE model),
 *     normal d being word d & 3 of block (P << 32) | (d >> 2) (Box-Muller
 *     in pairs, as escape.h).  Path 0 is the long trajectory, path 1 + i
 *     the i-th initial particle, path 1 + N + b the b-th branch (N
 *     particles): a branch takes a fresh stream, and a path's states are a
 *     function of (origin state, seed, s, P) only, so that a replay repeats
 *     it exactly.  P < 2^24, k W < 2^34.
 *   SP_PURPOSE_AMS_BRANCH: block b >> 2, word b & 3: the survivor picked by
 *     branch b (floor(word * survivors / 2^32)); block 2^32 + j - 1: the
 *     thermal restart j >= 1 of the washboard's long trajectory (its first
 *     start is escape_times()'s thermal start of path R: purpose
 *     SP_PURPOSE_ESCAPE_START of stream s).
 *   SP_PURPOSE_SDE_INIT (a user's model whose start draws): block j D + d,
 *     the d-th drawn state of start j (0 the first, j >= 1 the restarts), D
 *     drawn states (ams_args.h, sp_ams_sde_start).
 * A replica's result depends only on (seed, condition, R). */

#include "ams_args.h"
#ifdef SP_AMS_SDE
#  include "ams_sde.h"
#else
#  include "ams_washboard.h"
#endif

#ifndef SP_AMS_COMMON_DEFINED
#define SP_AMS_COMMON_DEFINED

/* sp_ams_run's state in locals (1) or through the walker (0); see there.
 * On the GPU 0 until measured: with 1, ptxas (CUDA 13.0, sm_90) gives the
 * declared washboard's single-precision branch kernel 116 registers where
 * it had 96 (with 28 bytes of spills), the built-in's no more; the loop
 * loses some six local loads and stores a step (bench/RESULTS.md, session
 * 17). */
#ifndef SP_AMS_LOCAL_STATE
#  if SP_CUDA
#    define SP_AMS_LOCAL_STATE 0
#  else
#    define SP_AMS_LOCAL_STATE 1
#  endif
#endif

#define SP_AMS_PATH_SHIFT 32
#define SP_AMS_MAX_PATHS (1ull << 24)   /* paths of a replica */
#define SP_AMS_MAX_STEPS ((1ull << 34) / (SP_AMS_NW > 0 ? SP_AMS_NW : 1)) /* steps of a path */
#define SP_AMS_ZN (SP_AMS_M * SP_AMS_NW)  /* normals of a macro-step */

/* The Philox block b of path P. */
SP_FN sp_u32x4 sp_ams_step_block(uint64_t seed, uint64_t stream, uint64_t path, uint64_t b) {
  return sp_philox_purpose_block(seed, SP_PURPOSE_AMS_STEPS, stream,
                                 (path << SP_AMS_PATH_SHIFT) | b);
}

/* The survivor (0 .. nsurv - 1, in index order) that branch b copies. */
SP_FN uint64_t sp_ams_pick(uint64_t seed, uint64_t stream, uint64_t b, uint64_t nsurv) {
  sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_AMS_BRANCH, stream, b >> 2);
  uint32_t x = sp_u32x4_get(r, (uint32_t)(b & 3));
  return ((uint64_t)x * nsurv) >> 32;
}

/* A function compiled into exactly one copy (never inlined, cloned or
 * specialised for constant arguments): sp_ams_particle, so that the replay
 * of a path executes the very instructions its first run did.  Copies of
 * the same source need not round alike: NVRTC (and ptxas, which may fuse a
 * mul.f32 and an add.f32 of the PTX) and compilers that contract a*b + c
 * choose the fused multiply-adds per copy, from its context; a replay that
 * rounds one step differently may miss the level that its first run
 * reached.  (The replay failures first seen on an H100 in issue 25 were
 * later traced to an upload race, fixed in the GPU layer; one copy stays,
 * as two could round apart.) */
#if SP_CUDA
#  define SP_AMS_ONE_COPY static __device__ __noinline__
#elif defined(__clang__)
#  define SP_AMS_ONE_COPY static __attribute__((noinline, unused))
#elif defined(__GNUC__) && __GNUC__ >= 8
#  define SP_AMS_ONE_COPY static __attribute__((noipa, unused))
#elif defined(__GNUC__)
#  define SP_AMS_ONE_COPY static __attribute__((noinline, noclone, unused))
#else
#  define SP_AMS_ONE_COPY static
#endif
#endif

/* max score of a particle in B: above every score */
#define SP_AMS_INF ((SP_REAL)1e30)

/* A path being integrated: state, its step count and the normals of its
 * current macro-step. */
typedef struct {
  SP_REAL x[SP_AMS_NX];
  SP_REAL z[SP_AMS_ZN];
  uint64_t k;
} SP_PREC(sp_ams_walker);

/* The normals of the macro-step of step k + 1 of path P. */
SP_FN void SP_PREC(sp_ams_normals)(uint64_t seed, uint64_t stream, uint64_t path,
                                   SP_PREC(sp_ams_walker) *w) {
  const uint64_t b0 = w->k / SP_AMS_M * (SP_AMS_ZN / 4);
  int b;
  SP_UNROLL
  for (b = 0; b < SP_AMS_ZN / 4; b++) {
    sp_u32x4 r = sp_ams_step_block(seed, stream, path, b0 + (uint64_t)b);
    SP_AMS_BM(r.x, r.y, &w->z[4 * b], &w->z[4 * b + 1]);
    SP_AMS_BM(r.z, r.w, &w->z[4 * b + 2], &w->z[4 * b + 3]);
  }
}

/* A walker at x after k steps of path P (draws its macro-step's normals
 * when k is not a multiple of SP_AMS_M: a path resumed in a new launch). */
SP_FN void SP_PREC(sp_ams_walker_at)(SP_PREC(sp_ams_walker) *w, const SP_REAL *x, uint64_t k,
                                     uint64_t seed, uint64_t stream, uint64_t path) {
  int d;
  SP_UNROLL
  for (d = 0; d < SP_AMS_NX; d++) w->x[d] = x[d];
  w->k = k;
  if (k % SP_AMS_M) SP_PREC(sp_ams_normals)(seed, stream, path, w);
}

/* One step of path P. */
SP_FN void SP_PREC(sp_ams_step)(const SP_PREC(sp_ams_par) *p, int heun, uint64_t seed,
                                uint64_t stream, uint64_t path, SP_PREC(sp_ams_walker) *w) {
  if (w->k % SP_AMS_M == 0) SP_PREC(sp_ams_normals)(seed, stream, path, w);
  SP_PREC(sp_ams_mstep)(p, heun, w->z + (w->k % SP_AMS_M) * SP_AMS_NW, w->x);
  w->k++;
}

/* A particle (path P) from w for at most `budget` steps: stops after the
 * first step that ends in B (SP_AMS_EV_B, *frac its fraction before the
 * crossing; with a level stop < SP_AMS_INF, SP_AMS_EV_LEVEL, as the score
 * of B is above every level), whose score exceeds `stop` (SP_AMS_EV_LEVEL:
 * a replay to the level) or that ends in A (SP_AMS_EV_A);
 * *maxs: the largest score of the steps that ended outside A and B.
 * SP_AMS_EV_NONE: budget spent (the caller checks the state is finite). */
SP_FN int SP_PREC(sp_ams_run)(const SP_PREC(sp_ams_par) *p, int heun, uint64_t seed,
                              uint64_t stream, uint64_t path, SP_REAL stop,
                              SP_PREC(sp_ams_walker) *w, SP_REAL *maxs, uint64_t budget,
                              SP_REAL *frac) {
  /* SP_AMS_LOCAL_STATE: the state, its step count and the largest score in
   * locals, written back at the end, so that the state stays in registers
   * from step to step (through w->x, a store through maxs or w->z may alias
   * the state: the compiler stores it and loads it again at every step, on
   * the step's chain; on the CPU 1.5 ns of a 27 ns washboard step); else
   * through w and maxs.  The same numbers either way. */
#if SP_AMS_LOCAL_STATE
  SP_REAL xl[SP_AMS_NX], mxl = *maxs;
  uint64_t kl = w->k;
  SP_REAL *const x = xl, *const mx = &mxl;
  uint64_t *const k = &kl;
#else
  SP_REAL *const x = w->x, *const mx = maxs;
  uint64_t *const k = &w->k;
#endif
  uint64_t i;
  int d, ev = SP_AMS_EV_NONE;
#if SP_AMS_LOCAL_STATE
  SP_UNROLL
  for (d = 0; d < SP_AMS_NX; d++) xl[d] = w->x[d];
#endif
  for (i = 0; i < budget; i++) {
    SP_PREC(sp_ams_prev) prev;
    SP_REAL s = 0;
    SP_PREC(sp_ams_prev_set)(&prev, x);
    /* sp_ams_step on x and k */
    if (*k % SP_AMS_M == 0) {
      w->k = *k;
      SP_PREC(sp_ams_normals)(seed, stream, path, w);
    }
    SP_PREC(sp_ams_mstep)(p, heun, w->z + (*k % SP_AMS_M) * SP_AMS_NW, x);
    (*k)++;
#if SP_AMS_SCORE_FIRST
    s = SP_PREC(sp_ams_mscore)(p, x);
#endif
    if (SP_PREC(sp_ams_in_B)(p, x, s)) { /* B: its score is above every level */
      *frac = SP_PREC(sp_ams_frac)(p, &prev, x);
      ev = stop < SP_AMS_INF ? SP_AMS_EV_LEVEL : SP_AMS_EV_B;
      break;
    }
#if !SP_AMS_SCORE_FIRST
    s = SP_PREC(sp_ams_mscore)(p, x);
#endif
    if (s > stop) {
      ev = SP_AMS_EV_LEVEL;
      break;
    }
    if (SP_PREC(sp_ams_in_A)(p, x, s)) {
      ev = SP_AMS_EV_A;
      break;
    }
    if (s > *mx) *mx = s;
  }
#if SP_AMS_LOCAL_STATE
  SP_UNROLL
  for (d = 0; d < SP_AMS_NX; d++) w->x[d] = xl[d];
  w->k = kl;
  *maxs = mxl;
#endif
  (void)d;
  return ev;
}

/* One step of the long trajectory, counting in *still the steps in a row
 * that left its state unchanged (every component equal): 1 when they reach
 * SP_AMS_STILL_MAX -- the path no longer moves (no noise there, or noise
 * below the precision's resolution, and a drift that holds it) and can never
 * leave A.  The count is part of the trajectory's state
 * (sp_ams_long_state.still), so the decision does not depend on the rounds
 * or launches. */
SP_FN int SP_PREC(sp_ams_long_step)(const SP_PREC(sp_ams_par) *p, int heun, uint64_t seed,
                                    uint64_t stream, SP_PREC(sp_ams_walker) *w,
                                    uint64_t *still) {
  SP_REAL x0[SP_AMS_NX];
  int d, same = 1;
  SP_UNROLL
  for (d = 0; d < SP_AMS_NX; d++) x0[d] = w->x[d];
  SP_PREC(sp_ams_step)(p, heun, seed, stream, 0, w);
  SP_UNROLL
  for (d = 0; d < SP_AMS_NX; d++) same = same && w->x[d] == x0[d];
  *still = same ? *still + 1 : 0;
  return *still >= SP_AMS_STILL_MAX;
}

/* The long trajectory (path 0) for at most `budget` steps: stops after the
 * step that exits A (ends outside A after one in A -- *inA tracks where the
 * last step ended: SP_AMS_EV_A, "at Sigma") or ends in B (SP_AMS_EV_B, with
 * *frac), or when it stopped moving (SP_AMS_EV_STILL, sp_ams_long_step). */
SP_FN int SP_PREC(sp_ams_long)(const SP_PREC(sp_ams_par) *p, int heun, uint64_t seed,
                               uint64_t stream, SP_PREC(sp_ams_walker) *w, int *inA,
                               uint64_t *still, uint64_t budget, SP_REAL *frac) {
  uint64_t i;
  for (i = 0; i < budget; i++) {
    SP_PREC(sp_ams_prev) prev;
    SP_REAL s = 0;
    SP_PREC(sp_ams_prev_set)(&prev, w->x);
    if (SP_PREC(sp_ams_long_step)(p, heun, seed, stream, w, still)) return SP_AMS_EV_STILL;
#if SP_AMS_SCORE_FIRST
    s = SP_PREC(sp_ams_mscore)(p, w->x);
#endif
    if (SP_PREC(sp_ams_in_B)(p, w->x, s)) {
      *frac = SP_PREC(sp_ams_frac)(p, &prev, w->x);
      return SP_AMS_EV_B;
    }
    if (SP_PREC(sp_ams_in_A)(p, w->x, s)) {
      *inA = 1;
    } else if (*inA) {
      *inA = 0;
      return SP_AMS_EV_A;
    }
  }
  return SP_AMS_EV_NONE;
}

/* Is a state (its score s) in A?  The long trajectory's start. */
SP_FN int SP_PREC(sp_ams_state_in_A)(const SP_PREC(sp_ams_par) *p, const SP_REAL *x) {
  SP_REAL s = 0;
#if SP_AMS_SCORE_FIRST
  s = SP_PREC(sp_ams_mscore)(p, x);
#endif
  return SP_PREC(sp_ams_in_A)(p, x, s);
}

/* The k-th smallest (k = 1 .. n) of x[0 .. n-1]; w: n scratch values
 * (Wirth's selection; deterministic). */
SP_FN SP_REAL SP_PREC(sp_ams_kth)(const SP_REAL *x, SP_REAL *w, uint64_t n, uint64_t k) {
  int64_t l = 0, m = (int64_t)n - 1, t = (int64_t)k - 1, i, j;
  for (i = 0; i < (int64_t)n; i++) w[i] = x[i];
  while (l < m) {
    SP_REAL piv = w[t], tmp;
    i = l;
    j = m;
    do {
      while (w[i] < piv) i++;
      while (piv < w[j]) j--;
      if (i <= j) {
        tmp = w[i]; w[i] = w[j]; w[j] = tmp;
        i++;
        j--;
      }
    } while (i <= j);
    if (j < t) l = i;
    if (t < i) m = j;
  }
  return w[t];
}

/* One level of a replica's AMS (Brehier et al. 2016, ties killed
 * together): z = the k-th smallest max score of the N particles; every
 * particle with max <= z is killed (killed[0 .. K-1], ascending) and takes
 * the survivor parent[j] (particle index), picked uniformly among the N - K
 * survivors by branch b0 + j.  Returns K: 0 when z is past B (every
 * particle not in B fewer than k: the run is done), N when all are killed
 * (extinct).  w: N scratch values, surv: N scratch indices. */
SP_FN uint64_t SP_PREC(sp_ams_level)(const SP_REAL *maxs, uint64_t N, uint64_t k,
                                     uint64_t seed, uint64_t stream, uint64_t b0,
                                     SP_REAL *w, uint64_t *surv, uint64_t *killed,
                                     uint64_t *parent, SP_REAL *z) {
  uint64_t i, K = 0, ns = 0;
  *z = SP_PREC(sp_ams_kth)(maxs, w, N, k);
  if (*z >= SP_AMS_INF) return 0;
  for (i = 0; i < N; i++) {
    if (maxs[i] <= *z) killed[K++] = i;
    else surv[ns++] = i;
  }
  if (ns == 0) return N;
  for (i = 0; i < K; i++) parent[i] = surv[sp_ams_pick(seed, stream, b0 + i, ns)];
  return K;
}

/* ---- the replica's pieces, shared by the CPU engine and the kernels ---- */

/* The long trajectory's state at start j = 0 (sp_ams_start): st, and its
 * state lx (nx values); inA is found at its first advance. */
SP_FN void SP_PREC(sp_ams_long_init)(const SP_AMS_COND *c, const double *tables, uint64_t seed,
                                     uint64_t stream, sp_ams_long_state *st, double *lx) {
  double x[SP_AMS_NX];
  int d;
  sp_ams_start(c, tables, seed, stream, 0, x);
  for (d = 0; d < SP_AMS_NX; d++) lx[d] = (double)(SP_REAL)x[d];
  sp_ams_long_state_init(st);
}

/* The bookkeeping after a stretch of the long trajectory that began at step
 * kb: its steps counted (*used, res->steps); SP_AMS_OK, or a failure (with
 * st->k the step reached) where a state is not finite or the path reached
 * SP_AMS_MAX_STEPS. */
SP_FN int SP_PREC(sp_ams_long_stretch)(const SP_PREC(sp_ams_walker) *w, uint64_t kb,
                                       uint64_t *used, sp_ams_result *res,
                                       sp_ams_long_state *st) {
  int d, fin = 1;
  *used += w->k - kb;
  res->steps += (double)(w->k - kb);
  for (d = 0; d < SP_AMS_NX; d++) fin = fin && isfinite(w->x[d]);
  if (fin && w->k < SP_AMS_MAX_STEPS) return SP_AMS_OK;
  st->k = w->k;
  return fin ? SP_AMS_FAIL_LIMIT : SP_AMS_FAIL_NOT_FINITE;
}

/* The long trajectory for at most about `budget` steps, until N exits are
 * collected: exit i (0-based) becomes particle i (origin x[d xs + i], k0[i]
 * = 0, path 1 + i); the durations of the start segments, failed cycles and
 * direct escapes go to *res.  After every start (st->seg0) the model's
 * SP_AMS_C_BURN(c) steps of equilibration run first, counted in no
 * duration; one that reaches B takes the next start and begins again.
 * Returns SP_AMS_OK or a failure (with st->k the step reached). */
SP_FN int SP_PREC(sp_ams_long_advance)(const SP_PREC(sp_ams_par) *p, int heun,
                                       const SP_AMS_COND *c, const double *tables,
                                       uint64_t seed, uint64_t stream, uint64_t N,
                                       sp_ams_long_state *st, double *lx, sp_ams_result *res,
                                       SP_REAL *x, uint64_t xs, uint64_t *k0, uint64_t *path,
                                       uint64_t budget) {
  const double h = SP_AMS_C_H(c);
  const uint64_t burn = SP_AMS_C_BURN(c);
  uint64_t used = 0;
  int inA = st->inA, d;
  SP_PREC(sp_ams_walker) w;
  {
    SP_REAL x0[SP_AMS_NX];
    for (d = 0; d < SP_AMS_NX; d++) x0[d] = (SP_REAL)lx[d];
    SP_PREC(sp_ams_walker_at)(&w, x0, st->k, seed, stream, 0);
  }
  if (inA < 0) inA = SP_PREC(sp_ams_state_in_A)(p, w.x);
  while (used < budget && st->nexit < N) {
    const uint64_t kb = w.k, left = budget - used;
    if (w.k < st->seg0 + burn) {
      /* equilibration after a start: `burn` steps, not counted; a path that
       * reaches B is restarted from a fresh start (the start is conditioned
       * on staying out of B) */
      int hit = 0, fail;
      while (!hit && w.k < st->seg0 + burn && w.k - kb < left) {
        SP_REAL s = 0;
        if (SP_PREC(sp_ams_long_step)(p, heun, seed, stream, &w, &st->still)) {
          hit = -1;
          break;
        }
#if SP_AMS_SCORE_FIRST
        s = SP_PREC(sp_ams_mscore)(p, w.x);
#endif
        hit = SP_PREC(sp_ams_in_B)(p, w.x, s);
      }
      fail = SP_PREC(sp_ams_long_stretch)(&w, kb, &used, res, st);
      if (fail) return fail;
      if (hit < 0) {
        st->k = w.k;
        return SP_AMS_FAIL_STILL;
      }
      if (hit) {
        double xx[SP_AMS_NX];
        st->restarts++;
        sp_ams_start(c, tables, seed, stream, st->restarts, xx);
        for (d = 0; d < SP_AMS_NX; d++) w.x[d] = (SP_REAL)xx[d];
        st->seg0 = w.k;
      }
      inA = SP_PREC(sp_ams_state_in_A)(p, w.x);
      continue;
    }
    SP_REAL frac = 1;
    const int ev = SP_PREC(sp_ams_long)(p, heun, seed, stream, &w, &inA, &st->still,
                                        left < 65536 ? left : 65536, &frac);
    const int fail = SP_PREC(sp_ams_long_stretch)(&w, kb, &used, res, st);
    if (fail) return fail;
    if (ev == SP_AMS_EV_STILL) {
      st->k = w.k;
      return SP_AMS_FAIL_STILL;
    }
    if (ev == SP_AMS_EV_A) { /* an exit: particle i */
      const uint64_t i = st->nexit++;
      if (st->after_exit) {
        res->t_cycle += (double)(w.k - st->last_exit) * h;
        res->n_cycle += 1;
      } else {
        res->t_start += (double)(w.k - st->seg0 - burn) * h;
        res->n_start += 1;
      }
      st->after_exit = 1;
      st->last_exit = w.k;
      for (d = 0; d < SP_AMS_NX; d++) x[d * xs + i] = w.x[d];
      k0[i] = 0;
      path[i] = 1 + i;
    } else if (ev == SP_AMS_EV_B) { /* B: restart from a fresh start */
      double xx[SP_AMS_NX];
      if (st->after_exit) {
        res->n_lt_react += 1;
      } else {
        res->t_direct += ((double)(w.k - 1 - st->seg0 - burn) + (double)frac) * h;
        res->n_direct += 1;
      }
      st->restarts++;
      sp_ams_start(c, tables, seed, stream, st->restarts, xx);
      for (d = 0; d < SP_AMS_NX; d++) w.x[d] = (SP_REAL)xx[d];
      inA = SP_PREC(sp_ams_state_in_A)(p, w.x);
      st->after_exit = 0;
      st->seg0 = w.k;
    }
  }
  for (d = 0; d < SP_AMS_NX; d++) lx[d] = (double)w.x[d];
  st->k = w.k;
  st->inA = inA;
  return SP_AMS_OK;
}

/* A particle from its origin (w->x on entry) along path P: with z >=
 * SP_AMS_INF until A or B, else (a replay) until the first state whose
 * score exceeds z (the origin itself if it does); for at most `budget`
 * steps (SP_AMS_EV_PAUSE when they are spent first).  *mx: the largest
 * score outside A and B, from the origin on; *w: the last state; *steps
 * counts the steps.  resume = 1 continues a paused run from *w (its state
 * and step count) and *mx as the pause left them: a path is the same
 * whatever its pauses (its normals are a function of its step count).
 * Returns the event, or SP_AMS_EV_NONE on a failure (non-finite state, too
 * many steps).  One compiled copy (SP_AMS_ONE_COPY), called from one place
 * (sp_ams_branch), for the first runs and the replays alike. */
SP_AMS_ONE_COPY int SP_PREC(sp_ams_particle)(const SP_PREC(sp_ams_par) *p, int heun,
                                             uint64_t seed, uint64_t stream, uint64_t P,
                                             SP_REAL z, SP_PREC(sp_ams_walker) *w,
                                             SP_REAL *mx, SP_REAL *frac, uint64_t *steps,
                                             uint64_t budget, int resume) {
  int ev = SP_AMS_EV_NONE, d;
  uint64_t used = 0;
  *frac = 1;
  if (resume) {
    /* a path resumed in the middle of a macro-step draws its normals */
    if (w->k % SP_AMS_M) SP_PREC(sp_ams_normals)(seed, stream, P, w);
  } else {
    w->k = 0; /* a multiple of SP_AMS_M: the first step draws its normals */
    *mx = SP_PREC(sp_ams_mscore)(p, w->x);
    if (*mx > z || (SP_PREC(sp_ams_in_B)(p, w->x, *mx) && z < SP_AMS_INF))
      return SP_AMS_EV_LEVEL; /* B: above all */
  }
  while (ev == SP_AMS_EV_NONE) {
    const uint64_t kb = w->k, left = budget - used;
    int fin = 1;
    if (left == 0) return SP_AMS_EV_PAUSE;
    ev = SP_PREC(sp_ams_run)(p, heun, seed, stream, P, z, w, mx, left < 65536 ? left : 65536,
                             frac);
    *steps += w->k - kb;
    used += w->k - kb;
    for (d = 0; d < SP_AMS_NX; d++) fin = fin && isfinite(w->x[d]);
    if (!fin || w->k >= SP_AMS_MAX_STEPS) return SP_AMS_EV_NONE;
  }
  return ev;
}

/* Particle i of a replica (arrays of that replica; state component d of
 * particle j at x[d xs + j]) after a branching: with parent q, particle
 * q's path is replayed to level z and i restarts there along path P (its
 * origin, k0, path; a branch point past B makes it a copy of q's path to
 * B); with q = SP_AMS_NO_PARENT, i runs from its own origin.  Then i runs
 * to A or B: maxs[i] (SP_AMS_INF in B) and dur[i] (duration from the exit
 * of A to B).  Reads only particle q and writes only particle i, so the
 * branchings of one level can run in any order or side by side.
 *
 * At most `budget` steps a call (*steps counts them): a branching that
 * needs more pauses (SP_AMS_PAUSED), its walker kept in wx, wk and maxs of
 * particle i (see SP_AMS_FRESH in ams_args.h; wk[i] = SP_AMS_FRESH on the
 * first call), and the next call with the same i, q, P and z resumes it;
 * the result does not depend on the budgets (a round or launch never waits
 * on one long path: an interrupt is taken between them).  Returns
 * SP_AMS_OK, SP_AMS_PAUSED or a failure. */
SP_FN int SP_PREC(sp_ams_branch)(const SP_PREC(sp_ams_par) *p, int heun, uint64_t seed,
                                 uint64_t stream, double h, uint64_t i, uint64_t q, uint64_t P,
                                 SP_REAL z, SP_REAL *x, uint64_t xs, SP_REAL *maxs,
                                 uint64_t *k0, uint64_t *path, double *dur, uint64_t *steps,
                                 SP_REAL *wx, uint64_t *wk, uint64_t budget) {
  SP_PREC(sp_ams_walker) w;
  SP_REAL mx = 0, frac;
  uint64_t used = 0;
  int ev, d, resume = wk[i] != SP_AMS_FRESH;
  int replay = q != SP_AMS_NO_PARENT && !(resume && (wk[i] & SP_AMS_RUNNING));
  /* the replay of q (if any), then the run of i: one call of
   * sp_ams_particle for both (see SP_AMS_ONE_COPY) */
  for (;;) {
    const uint64_t o = replay ? q : i;
    uint64_t n = 0;
    if (resume) {
      for (d = 0; d < SP_AMS_NX; d++) w.x[d] = wx[d * xs + i];
      w.k = wk[i] & ~SP_AMS_RUNNING;
      mx = maxs[i];
    } else {
      if (!replay && path[i] >= SP_AMS_MAX_PATHS) {
        wk[i] = SP_AMS_FRESH;
        return SP_AMS_FAIL_LIMIT;
      }
      for (d = 0; d < SP_AMS_NX; d++) w.x[d] = x[d * xs + o];
    }
    ev = SP_PREC(sp_ams_particle)(p, heun, seed, stream, path[o], replay ? z : SP_AMS_INF, &w,
                                  &mx, &frac, &n, budget - used, resume);
    used += n;
    *steps += n;
    resume = 0;
    if (ev == SP_AMS_EV_PAUSE) {
      for (d = 0; d < SP_AMS_NX; d++) wx[d * xs + i] = w.x[d];
      wk[i] = w.k | (replay ? 0 : SP_AMS_RUNNING);
      maxs[i] = mx;
      return SP_AMS_PAUSED;
    }
    if (ev == SP_AMS_EV_NONE) {
      wk[i] = SP_AMS_FRESH;
      return SP_AMS_FAIL_NOT_FINITE;
    }
    if (!replay) break;
    if (ev != SP_AMS_EV_LEVEL) {
      wk[i] = SP_AMS_FRESH;
      return SP_AMS_FAIL_REPLAY;
    }
    for (d = 0; d < SP_AMS_NX; d++) x[d * xs + i] = w.x[d];
    k0[i] = k0[q] + w.k;
    path[i] = P;
    /* the branch point's score (a model whose B reads the score; mx is the
     * replay's largest score below the level, not the branch point's) */
#if SP_AMS_SCORE_FIRST
    mx = SP_PREC(sp_ams_mscore)(p, w.x);
#endif
    if (SP_PREC(sp_ams_in_B)(p, w.x, mx)) { /* past B: a copy of q's path to B */
      wk[i] = SP_AMS_FRESH;
      maxs[i] = SP_AMS_INF;
      dur[i] = w.k == 0 ? dur[q] : ((double)(k0[i] - 1) + (double)frac) * h;
      return SP_AMS_OK;
    }
    replay = 0;
  }
  wk[i] = SP_AMS_FRESH;
  if (ev == SP_AMS_EV_B) {
    maxs[i] = SP_AMS_INF;
    dur[i] = ((double)(k0[i] + w.k - 1) + (double)frac) * h;
  } else {
    maxs[i] = mx;
  }
  return SP_AMS_OK;
}

/* The end of a replica: p = weight N_B / N and the mean reactive duration
 * into *res (status SP_AMS_DONE or SP_AMS_EXTINCT). */
SP_FN void SP_PREC(sp_ams_finish)(const SP_REAL *maxs, const double *dur, uint64_t N,
                                  double weight, uint64_t branches, int status,
                                  sp_ams_result *res) {
  uint64_t i, nB = 0;
  double sum = 0;
  if (status == SP_AMS_DONE) {
    for (i = 0; i < N; i++)
      if (maxs[i] >= SP_AMS_INF) {
        nB++;
        sum += dur[i];
      }
  }
  res->n_B = (double)nB;
  res->react = nB > 0 ? sum / (double)nB : 0.0;
  res->p = status == SP_AMS_DONE ? weight * (double)nB / (double)N : 0.0;
  res->branches = (double)branches;
  res->status = status;
}
