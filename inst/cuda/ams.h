/* ams.h: adaptive multilevel splitting (AMS) for escapes over the tilted
 * washboard of escape.h -- the pieces shared by the CPU engine
 * (src/core/sp_ams*.c) and the GPU kernels (ams.cu), in the SP_FN style.
 *
 * Define SP_REAL (and SP_REAL_SINGLE) as for escape.h, then include this
 * file instead of escape.h; the functions are suffixed _f or _d.
 *
 * The model-specific pieces are the step (sp_escape_step, escape.h) and the
 * score (sp_ams_score below); everything else -- the long trajectory that
 * samples the exits from A, the runs of particles to A or B, the replay to
 * a level, the level, the kills and the picks -- is written against them, so
 * that a user's model (a generated SP_FN step and a score expression) can
 * take their place.
 *
 * Random numbers (sp_streams.h).  Replica R (global, 0-based) of condition
 * c uses the Philox stream s = c 2^40 + R (the stream of escape_times()'s
 * path R) under two purposes of its own:
 *   SP_PURPOSE_AMS_STEPS: the normals of every path's steps; step k + 1 of
 *     path P uses normal k of block (P << 32) | (k >> 2), four normals a
 *     block (Box-Muller in pairs, as escape.h).  Path 0 is the long
 *     trajectory, path 1 + i the i-th initial particle, path 1 + N + b the
 *     b-th branch (N particles): a branch takes a fresh stream, and a
 *     path's states are a function of (origin state, seed, s, P) only, so
 *     that a replay repeats it exactly.  P < 2^24, k < 2^34.
 *   SP_PURPOSE_AMS_BRANCH: block b >> 2, word b & 3: the survivor picked by
 *     branch b (floor(word * survivors / 2^32)); block 2^32 + j - 1: the
 *     thermal restart j >= 1 of the long trajectory (its first start is
 *     escape_times()'s thermal start of path R: purpose
 *     SP_PURPOSE_ESCAPE_START of stream s).
 * A replica's result depends only on (seed, condition, R). */

#include "ams_args.h"
#include "escape.h"

#ifndef SP_AMS_COMMON_DEFINED
#define SP_AMS_COMMON_DEFINED

#define SP_AMS_PATH_SHIFT 32
#define SP_AMS_MAX_PATHS (1ull << 24)   /* paths of a replica */
#define SP_AMS_MAX_STEPS (1ull << 34)   /* steps of a path */

/* The Philox block of step k + 1 of path P. */
SP_FN sp_u32x4 sp_ams_step_block(uint64_t seed, uint64_t stream, uint64_t path, uint64_t k) {
  return sp_philox_purpose_block(seed, SP_PURPOSE_AMS_STEPS, stream,
                                 (path << SP_AMS_PATH_SHIFT) | (k >> 2));
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
 * reached (issue 25: single precision on an H100). */
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

/* Start j of the long trajectory: j = 0 the start of escape_times()'s path
 * (at rest, or its thermal draw), j >= 1 a thermal draw of its own. */
SP_FN void sp_ams_start(const sp_ams_cond *c, const double *tables, uint64_t seed,
                        uint64_t stream, uint64_t j, double *phi, double *v) {
  if (j == 0 || c->esc.start_table < 0) {
    sp_escape_start(&c->esc, tables, seed, stream, phi, v);
  } else {
    sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_AMS_BRANCH, stream,
                                         (1ull << SP_AMS_PATH_SHIFT) | (j - 1));
    sp_escape_start_draw(&c->esc, tables, r, phi, v);
  }
}
#endif

#undef SP_AMS_SINCOS
#ifdef SP_REAL_SINGLE
#  define SP_AMS_SINCOS sp_sincos_f
#else
#  define SP_AMS_SINCOS sp_sincos_d
#endif

/* max score of a particle in B: above every score */
#define SP_AMS_INF ((SP_REAL)1e30)

/* A path being integrated: state, its step count and the four normals of
 * its current block. */
typedef struct {
  SP_REAL phi, v;
  SP_REAL z[4];
  uint64_t k;
} SP_ESCAPE(sp_ams_walker);

/* The reaction coordinate (score) of kind `score` (SP_AMS_SCORE_*): the
 * position, or the energy v^2/2 - V0 (cos phi + gamma phi). */
SP_FN SP_REAL SP_ESCAPE(sp_ams_score)(const SP_ESCAPE(sp_escape_par) *p, int score, SP_REAL phi,
                                      SP_REAL v) {
  SP_REAL s, c;
  if (score == SP_AMS_SCORE_POSITION) return phi;
  SP_AMS_SINCOS(phi, &s, &c);
  return (SP_REAL)0.5 * v * v - p->V0 * (c + p->g * phi);
}

SP_FN void SP_ESCAPE(sp_ams_normals)(uint64_t seed, uint64_t stream, uint64_t path,
                                     SP_ESCAPE(sp_ams_walker) *w) {
  sp_u32x4 r = sp_ams_step_block(seed, stream, path, w->k);
  SP_ESCAPE_BM(r.x, r.y, &w->z[0], &w->z[1]);
  SP_ESCAPE_BM(r.z, r.w, &w->z[2], &w->z[3]);
}

/* A walker at (phi, v) after k steps of path P (draws its block when k is
 * not a multiple of 4: a path resumed in a new launch). */
SP_FN void SP_ESCAPE(sp_ams_walker_at)(SP_ESCAPE(sp_ams_walker) *w, SP_REAL phi, SP_REAL v,
                                       uint64_t k, uint64_t seed, uint64_t stream,
                                       uint64_t path) {
  w->phi = phi;
  w->v = v;
  w->k = k;
  if (k & 3) SP_ESCAPE(sp_ams_normals)(seed, stream, path, w);
}

/* One step of path P. */
SP_FN void SP_ESCAPE(sp_ams_step)(const SP_ESCAPE(sp_escape_par) *p, int heun, uint64_t seed,
                                  uint64_t stream, uint64_t path,
                                  SP_ESCAPE(sp_ams_walker) *w) {
  if ((w->k & 3) == 0) SP_ESCAPE(sp_ams_normals)(seed, stream, path, w);
  SP_ESCAPE(sp_escape_step)(p, heun, p->g, p->g, &w->phi, &w->v, w->z[w->k & 3]);
  w->k++;
}

/* A particle (path P) from w for at most `budget` steps: stops after the
 * first step that ends in B (phi > th: SP_AMS_EV_B, *frac its fraction
 * before the crossing; with a level stop < SP_AMS_INF, SP_AMS_EV_LEVEL, as
 * the score of B is above every level), whose score exceeds `stop`
 * (SP_AMS_EV_LEVEL: a replay to the level) or that ends in A (phi <= phiA:
 * SP_AMS_EV_A);
 * *maxs: the largest score of the steps that ended outside A and B.
 * SP_AMS_EV_NONE: budget spent (the caller checks the state is finite). */
SP_FN int SP_ESCAPE(sp_ams_run)(const SP_ESCAPE(sp_escape_par) *p, int heun, int score,
                                uint64_t seed, uint64_t stream, uint64_t path, SP_REAL phiA,
                                SP_REAL stop,
                                SP_ESCAPE(sp_ams_walker) *w, SP_REAL *maxs, uint64_t budget,
                                SP_REAL *frac) {
  uint64_t i;
  for (i = 0; i < budget; i++) {
    SP_REAL prev = w->phi, s;
    SP_ESCAPE(sp_ams_step)(p, heun, seed, stream, path, w);
    if (w->phi > p->th) { /* B: its score is above every level */
      *frac = (p->th - prev) / (w->phi - prev);
      return stop < SP_AMS_INF ? SP_AMS_EV_LEVEL : SP_AMS_EV_B;
    }
    s = SP_ESCAPE(sp_ams_score)(p, score, w->phi, w->v);
    if (s > stop) return SP_AMS_EV_LEVEL;
    if (w->phi <= phiA) return SP_AMS_EV_A;
    if (s > *maxs) *maxs = s;
  }
  return SP_AMS_EV_NONE;
}

/* The long trajectory (path 0) for at most `budget` steps: stops after the
 * step that exits A (ends outside A after one in A -- *inA tracks where the
 * last step ended: SP_AMS_EV_A, "at Sigma") or ends in B (SP_AMS_EV_B, with
 * *frac). */
SP_FN int SP_ESCAPE(sp_ams_long)(const SP_ESCAPE(sp_escape_par) *p, int heun, uint64_t seed,
                                 uint64_t stream, SP_REAL phiA, SP_ESCAPE(sp_ams_walker) *w,
                                 int *inA, uint64_t budget, SP_REAL *frac) {
  uint64_t i;
  for (i = 0; i < budget; i++) {
    SP_REAL prev = w->phi;
    SP_ESCAPE(sp_ams_step)(p, heun, seed, stream, 0, w);
    if (w->phi > p->th) {
      *frac = (p->th - prev) / (w->phi - prev);
      return SP_AMS_EV_B;
    }
    if (w->phi <= phiA) {
      *inA = 1;
    } else if (*inA) {
      *inA = 0;
      return SP_AMS_EV_A;
    }
  }
  return SP_AMS_EV_NONE;
}

/* The k-th smallest (k = 1 .. n) of x[0 .. n-1]; w: n scratch values
 * (Wirth's selection; deterministic). */
SP_FN SP_REAL SP_ESCAPE(sp_ams_kth)(const SP_REAL *x, SP_REAL *w, uint64_t n, uint64_t k) {
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
SP_FN uint64_t SP_ESCAPE(sp_ams_level)(const SP_REAL *maxs, uint64_t N, uint64_t k,
                                       uint64_t seed, uint64_t stream, uint64_t b0,
                                       SP_REAL *w, uint64_t *surv, uint64_t *killed,
                                       uint64_t *parent, SP_REAL *z) {
  uint64_t i, K = 0, ns = 0;
  *z = SP_ESCAPE(sp_ams_kth)(maxs, w, N, k);
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

/* The long trajectory's state at start j = 0 (sp_ams_start). */
SP_FN void SP_ESCAPE(sp_ams_long_init)(const sp_ams_cond *c, const double *tables, uint64_t seed,
                                       uint64_t stream, sp_ams_long_state *st) {
  double phi, v;
  sp_ams_start(c, tables, seed, stream, 0, &phi, &v);
  st->phi = (double)(SP_REAL)phi;
  st->v = (double)(SP_REAL)v;
  st->k = st->seg0 = st->last_exit = st->nexit = st->restarts = 0;
  st->inA = (SP_REAL)phi <= (SP_REAL)c->phiA;
  st->after_exit = 0;
}

/* The long trajectory for at most about `budget` steps, until N exits are
 * collected: exit i (0-based) becomes particle i (origin phi[i], v[i], k0[i]
 * = 0, path 1 + i); the durations of the start segments, failed cycles and
 * direct escapes go to *res.  Returns SP_AMS_OK or a failure (with
 * st->k the step reached). */
SP_FN int SP_ESCAPE(sp_ams_long_advance)(const SP_ESCAPE(sp_escape_par) *p, int heun,
                                         const sp_ams_cond *c, const double *tables,
                                         uint64_t seed, uint64_t stream, uint64_t N,
                                         sp_ams_long_state *st, sp_ams_result *res,
                                         SP_REAL *phi, SP_REAL *v, uint64_t *k0,
                                         uint64_t *path, uint64_t budget) {
  const double h = c->esc.h;
  const SP_REAL phiA = (SP_REAL)c->phiA;
  uint64_t used = 0;
  int inA = st->inA;
  SP_ESCAPE(sp_ams_walker) w;
  SP_ESCAPE(sp_ams_walker_at)(&w, (SP_REAL)st->phi, (SP_REAL)st->v, st->k, seed, stream, 0);
  while (used < budget && st->nexit < N) {
    const uint64_t kb = w.k, left = budget - used;
    SP_REAL frac = 1;
    int ev = SP_ESCAPE(sp_ams_long)(p, heun, seed, stream, phiA, &w, &inA,
                                    left < 65536 ? left : 65536, &frac);
    used += w.k - kb;
    res->steps += (double)(w.k - kb);
    if (!(isfinite(w.phi) && isfinite(w.v)) || w.k >= SP_AMS_MAX_STEPS) {
      st->k = w.k;
      return isfinite(w.phi) && isfinite(w.v) ? SP_AMS_FAIL_LIMIT : SP_AMS_FAIL_NOT_FINITE;
    }
    if (ev == SP_AMS_EV_A) { /* an exit: particle i */
      const uint64_t i = st->nexit++;
      if (st->after_exit) {
        res->t_cycle += (double)(w.k - st->last_exit) * h;
        res->n_cycle += 1;
      } else {
        res->t_start += (double)(w.k - st->seg0) * h;
        res->n_start += 1;
      }
      st->after_exit = 1;
      st->last_exit = w.k;
      phi[i] = w.phi;
      v[i] = w.v;
      k0[i] = 0;
      path[i] = 1 + i;
    } else if (ev == SP_AMS_EV_B) { /* B: restart from a fresh start */
      double ph, vv;
      if (st->after_exit) {
        res->n_lt_react += 1;
      } else {
        res->t_direct += ((double)(w.k - 1 - st->seg0) + (double)frac) * h;
        res->n_direct += 1;
      }
      st->restarts++;
      sp_ams_start(c, tables, seed, stream, st->restarts, &ph, &vv);
      w.phi = (SP_REAL)ph;
      w.v = (SP_REAL)vv;
      inA = w.phi <= phiA;
      st->after_exit = 0;
      st->seg0 = w.k;
    }
  }
  st->phi = (double)w.phi;
  st->v = (double)w.v;
  st->k = w.k;
  st->inA = inA;
  return SP_AMS_OK;
}

/* A particle from its origin (phi0, v0) along path P: with z >= SP_AMS_INF
 * until A or B, else (a replay) until the first state whose score exceeds z
 * (the origin itself if it does).  *mx: the largest score outside A and B,
 * from the origin on; *w: the last state; *steps counts the steps.  Returns
 * the event, or SP_AMS_EV_NONE on a failure (non-finite state, 2^34 steps).
 * One compiled copy (SP_AMS_ONE_COPY), called from one place
 * (sp_ams_branch), for the first runs and the replays alike. */
SP_AMS_ONE_COPY int SP_ESCAPE(sp_ams_particle)(const SP_ESCAPE(sp_escape_par) *p, int heun, int score,
                                     uint64_t seed,
                                     uint64_t stream, uint64_t P, SP_REAL phiA, SP_REAL z,
                                     SP_REAL phi0, SP_REAL v0, SP_ESCAPE(sp_ams_walker) *w,
                                     SP_REAL *mx, SP_REAL *frac, uint64_t *steps) {
  int ev = SP_AMS_EV_NONE;
  SP_ESCAPE(sp_ams_walker_at)(w, phi0, v0, 0, seed, stream, P);
  *mx = SP_ESCAPE(sp_ams_score)(p, score, phi0, v0);
  *frac = 1;
  if (*mx > z || (phi0 > p->th && z < SP_AMS_INF)) return SP_AMS_EV_LEVEL; /* B: above all */
  while (ev == SP_AMS_EV_NONE) {
    const uint64_t kb = w->k;
    ev = SP_ESCAPE(sp_ams_run)(p, heun, score, seed, stream, P, phiA, z, w, mx, 65536, frac);
    *steps += w->k - kb;
    if (!(isfinite(w->phi) && isfinite(w->v)) || w->k >= SP_AMS_MAX_STEPS)
      return SP_AMS_EV_NONE;
  }
  return ev;
}

/* Particle i of a replica (arrays of that replica) after a branching: with
 * parent q, particle q's path is replayed to level z and i restarts there
 * along path P (its origin, k0, path; a branch point past B makes it a copy
 * of q's path to B); with q = SP_AMS_NO_PARENT, i runs from its own origin.
 * Then i runs to A or B: maxs[i] (SP_AMS_INF in B) and dur[i] (duration
 * from the exit of A to B).  Reads only particle q and writes only particle
 * i, so the branchings of one level can run in any order or side by side.
 * Returns SP_AMS_OK or a failure. */
SP_FN int SP_ESCAPE(sp_ams_branch)(const SP_ESCAPE(sp_escape_par) *p, int heun, int score,
                                   uint64_t seed,
                                   uint64_t stream, SP_REAL phiA, double h, uint64_t i,
                                   uint64_t q, uint64_t P, SP_REAL z, SP_REAL *phi,
                                   SP_REAL *v, SP_REAL *maxs, uint64_t *k0, uint64_t *path,
                                   double *dur, uint64_t *steps) {
  SP_ESCAPE(sp_ams_walker) w;
  SP_REAL mx, frac;
  int ev, replay = q != SP_AMS_NO_PARENT;
  /* the replay of q (if any), then the run of i: one call of
   * sp_ams_particle for both (see SP_AMS_ONE_COPY) */
  for (;;) {
    const uint64_t o = replay ? q : i;
    if (!replay && path[i] >= SP_AMS_MAX_PATHS) return SP_AMS_FAIL_LIMIT;
    ev = SP_ESCAPE(sp_ams_particle)(p, heun, score, seed, stream, path[o], phiA,
                                    replay ? z : SP_AMS_INF, phi[o], v[o], &w, &mx, &frac,
                                    steps);
    if (ev == SP_AMS_EV_NONE) return SP_AMS_FAIL_NOT_FINITE;
    if (!replay) break;
    if (ev != SP_AMS_EV_LEVEL) return SP_AMS_FAIL_REPLAY;
    phi[i] = w.phi;
    v[i] = w.v;
    k0[i] = k0[q] + w.k;
    path[i] = P;
    if (w.phi > p->th) { /* past B: a copy of q's path to B */
      maxs[i] = SP_AMS_INF;
      dur[i] = w.k == 0 ? dur[q] : ((double)(k0[i] - 1) + (double)frac) * h;
      return SP_AMS_OK;
    }
    replay = 0;
  }
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
SP_FN void SP_ESCAPE(sp_ams_finish)(const SP_REAL *maxs, const double *dur, uint64_t N,
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
