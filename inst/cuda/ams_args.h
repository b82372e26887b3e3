/* ams_args.h: what the AMS engine's host code hands its CPU loop and its
 * kernels (adaptive multilevel splitting on the washboard of escape.h), one
 * definition for both compilers (static asserts check the layout). */
#ifndef SP_AMS_ARGS_H
#define SP_AMS_ARGS_H

#include "escape_args.h"
#include "sp_streams.h"
#if !SP_CUDA
#  include <math.h>
#endif

/* Threads of a block of sp_ams_long_kernel and sp_ams_branch_kernel: the
 * kernels' __launch_bounds__ and the host's launches (sp_gpu_ams.c). */
#define SP_AMS_BLOCK 128

/* One condition: the washboard condition of escape.h (step, noise, bias,
 * threshold th of B, start at rest or thermal; kmax and vcens unused) and
 * the edge of the start region A = {phi <= phiA}, whose boundary is Sigma. */
typedef struct {
  sp_escape_cond esc;
  double phiA;
  int score; /* SP_AMS_SCORE_* */
  int pad_;
} sp_ams_cond;

SP_STATIC_ASSERT(sizeof(sp_ams_cond) == 136, "sp_ams_cond layout");

/* One condition of a user's SDE model (sde_ams(); ams_sde.h): its
 * parameters (the model's, then its derived ones) at tables[par0 ..], the
 * law of its start at tables[init0 .. init0 + 3 nx - 1] (per state: kind,
 * a, b; see sp_ams_sde_start); A = {score <= zA}; B = {score >= zB}, or
 * (use_stop) the model's stop event; burn: steps of equilibration after
 * every start, not counted (see sp_ams_long_advance of ams.h). */
typedef struct {
  double h;         /* the step dt */
  double zA, zB;
  uint64_t stream0; /* Philox stream of replica 1: c 2^40 */
  int64_t par0, init0;
  int64_t use_stop;
  uint64_t burn;
} sp_ams_sde_cond;

SP_STATIC_ASSERT(sizeof(sp_ams_sde_cond) == 64, "sp_ams_sde_cond layout");

/* Draw kind (0 a uniform on (0, 1), 1 a standard normal, 2 a standard
 * Cauchy) from block `block` of purpose SP_PURPOSE_SDE_INIT of `stream`:
 * the uniform from 53 bits of words x, y; the normal Box-Muller on the
 * uniforms of (x, y) and (z, w); the Cauchy tan(pi (u - 1/2)) -- the draws
 * of sde_run()'s many-body starts (src/core/sp_mb.c, mb_draw1), in double
 * on both backends. */
SP_FN double sp_ams_draw(uint64_t seed, uint64_t stream, uint64_t block, int kind) {
  const sp_u32x4 b = sp_philox_purpose_block(seed, SP_PURPOSE_SDE_INIT, stream, block);
  const double u1 = ((double)((uint64_t)b.x << 21 | b.y >> 11) + 0.5) * 0x1p-53;
  if (kind == 0) return u1;
  if (kind == 1) {
    const double u2 = ((double)((uint64_t)b.z << 21 | b.w >> 11) + 0.5) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
  }
  return tan(3.141592653589793 * (u1 - 0.5));
}

/* A draw from a tabulated density (start kind 3): t[0] = K knots, t[1] the
 * first knot lo, t[2] their spacing, then the CDF at the knots (t[3 ..],
 * 0 to 1) and the log density at the knots (t[3 + K ..]), linear in each
 * knot interval (a piece of exponential).  u uniform on (0, 1): the CDF
 * inverted by bisection, then exactly inside the interval -- the thermal
 * start of escape_times() (escape.h, sp_escape_start_draw), for any
 * density tabulated so. */
SP_FN double sp_ams_table_draw(const double *t, double u) {
  const int K = (int)t[0];
  const double lo0 = t[1], step = t[2];
  const double *cdf = t + 3, *logd = t + 3 + K;
  double w, s;
  int lo = 0, hi = K - 1;
  while (hi - lo > 1) { /* cdf[lo] <= u < cdf[hi] */
    const int mid = (lo + hi) / 2;
    if (cdf[mid] <= u) lo = mid;
    else hi = mid;
  }
  w = (u - cdf[lo]) / (cdf[lo + 1] - cdf[lo]);
  s = (logd[lo + 1] - logd[lo]) / step; /* slope of the log density */
  return lo0 + ((double)lo * step + (fabs(s * step) < 1e-9 ? w * step
                                                            : log1p(w * expm1(s * step)) / s));
}

/* The start kinds of a state (the first of its three numbers) */
#define SP_AMS_START_TABLE 3

/* Start j (0 the first, j >= 1 the restart after the long trajectory
 * reached B for the j-th time) of condition c (sde), in double: per state
 * its law (kind, a, b) -- kind -1 the constant a, 0 a + (b - a) u, 1 a + b
 * z (normal), 2 a + b z (Cauchy), 3 (SP_AMS_START_TABLE) a draw from the
 * density tabulated at tables[a] (sp_ams_table_draw, from the uniform u of
 * kind 0) -- the draws from stream `stream` (the replica's), purpose
 * SP_PURPOSE_SDE_INIT, block j D + d for the state's place d among the D
 * drawn states. */
SP_FN void sp_ams_sde_start(const sp_ams_sde_cond *c, const double *tables, int nx,
                            uint64_t seed, uint64_t stream, uint64_t j, double *x) {
  int v;
  uint64_t D = 0, d = 0;
  for (v = 0; v < nx; v++)
    if (tables[c->init0 + 3 * v] >= 0) D++;
  for (v = 0; v < nx; v++) {
    const double *k = tables + c->init0 + 3 * v;
    if (k[0] < 0) {
      x[v] = k[1];
    } else {
      const int kind = (int)k[0];
      if (kind == SP_AMS_START_TABLE) {
        x[v] = sp_ams_table_draw(tables + (int64_t)k[1], sp_ams_draw(seed, stream, j * D + d, 0));
      } else {
        const double z = sp_ams_draw(seed, stream, j * D + d, kind);
        x[v] = kind == 0 ? k[1] + (k[2] - k[1]) * z : k[1] + k[2] * z;
      }
      d++;
    }
  }
}

/* The models of the AMS engine (sp_ams_job.model). */
enum { SP_AMS_MODEL_WASHBOARD = 0, SP_AMS_MODEL_SDE = 1 };

/* The score (reaction coordinate) of a state: the position phi, or the
 * energy v^2/2 + U(phi), U = -V0 (cos phi + gamma phi). */
enum { SP_AMS_SCORE_POSITION = 0, SP_AMS_SCORE_ENERGY = 1 };

/* What a replica (one independent AMS estimate) reports.  Durations in time
 * units; counts as doubles. */
typedef struct {
  double p;          /* prod_q (1 - K_q / N) * N_B / N (0 when extinct) */
  double react;      /* mean duration, exit from A to B, of the N_B particles in B
                        at the end (0 when N_B = 0) */
  double n_B;        /* particles in B at the end */
  double t_start;    /* summed durations of the start segments: from the start
                        (and each restart) to the first exit from A */
  double n_start;
  double t_cycle;    /* summed durations of the failed cycles of the long
                        trajectory: exit, return to A, next exit */
  double n_cycle;
  double t_direct;   /* start segments that reached B before ever exiting A
                        (a thermal start outside A): their crossing times */
  double n_direct;
  double n_lt_react; /* excursions of the long trajectory that reached B (it
                        restarts from the start state after each) */
  double iterations; /* AMS iterations (levels) */
  double branches;   /* particles killed and branched */
  double steps;      /* integration steps: long trajectory, particles, replays */
  int status;        /* SP_AMS_* below */
  int pad_;
} sp_ams_result;

SP_STATIC_ASSERT(sizeof(sp_ams_result) == 112, "sp_ams_result layout");

enum {
  SP_AMS_UNFINISHED = 0, /* interrupted before it finished: no estimate */
  SP_AMS_DONE = 1,       /* the level passed the threshold: p > 0 */
  SP_AMS_EXTINCT = 2     /* every particle killed at one level: p = 0 */
};

/* The long trajectory of a replica between rounds or launches (ams.h,
 * sp_ams_long_advance); its state (nx working-precision values, held as
 * double exactly) lies beside it, in an array of the engine. */
typedef struct {
  uint64_t k;         /* steps done (path 0's draw index) */
  uint64_t seg0;      /* step at the start of the current start segment */
  uint64_t last_exit; /* step of the last exit from A */
  uint64_t nexit;     /* exits collected */
  uint64_t restarts;  /* restarts after reaching B */
  uint64_t still;     /* steps in a row that left its state unchanged (ams.h:
                         sp_ams_long_step) */
  int inA;            /* the last step ended in A (-1: not known yet, the start) */
  int after_exit;     /* an exit since the last (re)start */
} sp_ams_long_state;

SP_STATIC_ASSERT(sizeof(sp_ams_long_state) == 56, "sp_ams_long_state layout");

/* A long trajectory at its start (inA found at its first advance). */
SP_FN void sp_ams_long_state_init(sp_ams_long_state *st) {
  st->k = st->seg0 = st->last_exit = st->nexit = st->restarts = st->still = 0;
  st->inA = -1;
  st->after_exit = 0;
}

/* Failures of the shared pieces (ams.h): besides SP_AMS_OK (0) */
enum {
  SP_AMS_OK = 0,
  SP_AMS_FAIL_NOT_FINITE = 1, /* a state became NaN or infinite */
  SP_AMS_FAIL_LIMIT = 2,      /* a path of 2^34 steps, or 2^24 paths */
  SP_AMS_FAIL_REPLAY = 3,     /* a replay missed its level (cannot happen) */
  SP_AMS_PAUSED = 4,          /* not a failure: a branching spent its budget
                                 and is resumed by the next call (ams.h) */
  SP_AMS_FAIL_STILL = 5       /* the long trajectory stopped moving (ams.h:
                                 sp_ams_long_step) */
};

/* Steps in a row that leave the long trajectory's state unchanged: it is
 * stuck (SP_AMS_FAIL_STILL). */
#define SP_AMS_STILL_MAX (1ull << 20)

/* A branching paused between rounds or launches (sp_ams_branch of ams.h):
 * per particle i, wk[i] is SP_AMS_FRESH when none of its branchings is in
 * progress, else the steps its walker has made, with SP_AMS_RUNNING set
 * once the replay is over (the walker is then the child's own run); the
 * walker's state lies at wx[d xs + i] and its largest score so far at
 * maxs[i] (a particle being branched has no max score of its own yet). */
#define SP_AMS_FRESH 0xffffffffffffffffull
#define SP_AMS_RUNNING (1ull << 62)

/* One branching (or, with parent SP_AMS_NO_PARENT, the first run of an
 * initial particle) for the GPU's branch kernel: particle indices are local
 * to the device (item N + j). */
typedef struct {
  uint64_t child, parent;
  uint64_t path; /* the child's path number */
  double z;      /* the level, a working-precision value */
} sp_ams_task;

#define SP_AMS_NO_PARENT 0xffffffffffffffffull

SP_STATIC_ASSERT(sizeof(sp_ams_task) == 32, "sp_ams_task layout");

/* What a task reports: the child's max score (SP_AMS_INF in B) and steps
 * (of this launch); a failure sets bit 63 (its code in the low bits), a
 * task that spent the launch's budget (SP_AMS_PAUSED: launched again,
 * resumed where it stopped) bit 62. */
typedef struct {
  double maxs;
  uint64_t steps;
} sp_ams_task_out;

#define SP_AMS_OUT_FAILED (1ull << 63)
#define SP_AMS_OUT_PAUSED (1ull << 62)

/* Arguments of sp_ams_long_kernel: one thread per replica ("item", local
 * index i, global item0 + i = c replicas + r) of the device.  conds: the
 * model's conditions (sp_ams_cond or sp_ams_sde_cond); tables: the
 * washboard's thermal-start tables or the sde model's parameters and
 * starts. */
typedef struct {
  SP_DPTR(const void) conds;
  SP_DPTR(const double) tables;
  uint64_t replicas, replica0, item0, nitems, particles, seed;
  SP_DPTR(sp_ams_long_state) lt;
  SP_DPTR(double) lx;        /* the long trajectories' states, i nx + d */
  SP_DPTR(sp_ams_result) res;
  SP_DPTR(sp_ams_real) x;    /* particles: state component d of particle i N + j
                                at x[d xs + i N + j] */
  uint64_t xs;
  SP_DPTR(uint64_t) k0;
  SP_DPTR(uint64_t) path;
  SP_DPTR(uint64_t) bad;     /* lowest failing local item (~0: none) */
  SP_DPTR(uint64_t) done;    /* replicas with N exits */
  uint64_t budget;           /* steps of each long trajectory in this launch */
} sp_ams_long_kargs;

SP_STATIC_ASSERT(sizeof(sp_ams_long_kargs) == 144, "sp_ams_long_kargs layout");

/* Arguments of sp_ams_branch_kernel: one thread per task. */
typedef struct {
  SP_DPTR(const void) conds;
  SP_DPTR(const double) tables;
  uint64_t replicas, replica0, item0, particles, seed, ntasks;
  SP_DPTR(const sp_ams_task) tasks;
  SP_DPTR(sp_ams_task_out) out;
  SP_DPTR(sp_ams_real) x;
  uint64_t xs;
  SP_DPTR(sp_ams_real) maxs;
  SP_DPTR(uint64_t) k0;
  SP_DPTR(uint64_t) path;
  SP_DPTR(double) dur;
  SP_DPTR(uint64_t) bad;     /* lowest failing task (~0: none) */
  SP_DPTR(sp_ams_real) wx;   /* paused branchings (SP_AMS_FRESH of ams_args.h): */
  SP_DPTR(uint64_t) wk;      /*   walker states as x, steps and phase */
  uint64_t budget;           /* steps of each task in this launch */
} sp_ams_branch_kargs;

SP_STATIC_ASSERT(sizeof(sp_ams_branch_kargs) == 160, "sp_ams_branch_kargs layout");

/* The CPU entries of a model (ams_cpu.h): a piece of a replica's long
 * trajectory, and a particle's first run or branching (arrays of one
 * replica; x and maxs in the working precision).  The package's CPU engine
 * (src/core/sp_ams_engine.inc) calls them once per piece -- the
 * washboard's compiled in, a user's SDE model's from its CPU object. */
typedef int (*sp_ams_long_fn)(const void *cond, const double *tables, int heun, uint64_t seed,
                              uint64_t stream, uint64_t N, sp_ams_long_state *st, double *lx,
                              sp_ams_result *res, void *x, uint64_t xs, uint64_t *k0,
                              uint64_t *path, uint64_t budget);
typedef int (*sp_ams_branch_fn)(const void *cond, const double *tables, int heun,
                                uint64_t seed, uint64_t stream, uint64_t i, uint64_t q,
                                uint64_t P, double z, void *x, uint64_t xs, void *maxs,
                                uint64_t *k0, uint64_t *path, double *dur, uint64_t *steps,
                                void *wx, uint64_t *wk, uint64_t budget);

/* How a piece of path ended (sp_ams_run_*). */
enum {
  SP_AMS_EV_NONE = 0,  /* budget spent (sp_ams_particle: a failure) */
  SP_AMS_EV_A = 1,     /* back in A */
  SP_AMS_EV_B = 2,     /* reached B */
  SP_AMS_EV_LEVEL = 3, /* score above the level (replay) */
  SP_AMS_EV_PAUSE = 4, /* sp_ams_particle: its budget spent, to be resumed */
  SP_AMS_EV_STILL = 5  /* sp_ams_long: the path stopped moving */
};

#endif /* SP_AMS_ARGS_H */
