/* sde_args.h: what the host, the compiled CPU model (sde_cpu.h) and the GPU
 * kernel (sde.cu) of a user's SDE model (sde_model(), sde_run()) share.
 *
 * A run is read by name from R (sp_r_struct_array): sp_sde_job.  The
 * parameters of condition c are par[c np .. c np + np - 1] (double); the
 * start of replica r of condition c (path p = c n + r) is init[c nx + i] for
 * state i, or, where 0 <= init_vec[i] < SP_SDE_PER_PATH, the number
 * init_vals[init_vec[i] n + r] (a vector of one start per replica of the
 * call, the same in every condition), or, where init_vec[i] >=
 * SP_SDE_PER_PATH, init_vals[(init_vec[i] - SP_SDE_PER_PATH) ncond n + p] (a
 * vector of one start per path, condition by condition); the columns of one
 * call are all of one kind.  The compiled model's CPU entry
 * (sp_sde_advance_fn) takes a path's record x of SP_SDE_XS(nx) doubles: its
 * states and its run of coarse steps. */
#ifndef SP_SDE_ARGS_H
#define SP_SDE_ARGS_H

#include "sp_common.h"

/* init_vec[i] from here: a column of one start per path (above) */
#define SP_SDE_PER_PATH 256

/* What sp_sde_advance returns */
#define SP_SDE_RUNNING 0   /* reached kend */
#define SP_SDE_STOPPED 1   /* the stop event held at step *k */
#define SP_SDE_NONFINITE 2 /* the state turned non-finite at step *k (*what: the state) */
#define SP_SDE_STALLED 3   /* the state's increments were coarse for SP_SDE_STALL_STEPS steps
                              in a row, up to step *k (*what: the state) */

/* Status of a path in the passage output */
#define SP_SDE_UNSTARTED (-1)
#define SP_SDE_CENSORED 0
#define SP_SDE_ESCAPED 1
#define SP_SDE_PARTIAL 2
#define SP_SDE_BAD 3 /* + 8 what: non-finite in state `what` */
#define SP_SDE_STALL 4 /* + 8 what: the increments of state `what` below its resolution */

/* A path's record in the engines' state arrays: its nx states, then the run
 * of coarse steps (sde_engine.h), as a double. */
#define SP_SDE_XS(nx) ((nx) + 1)

#define SP_SDE_NO_PATH 0xffffffffffffffffull

/* A held path's row in the passage output `held` (a path not stopped at the
 * end of the call: censored at kmax, or left running by an interrupt; or
 * one whose event held past t_max, at stop_t): its index q in this call's
 * outputs, the step it reached, stop_t (NaN unless it stopped past t_max:
 * the time of the stop), then its record (SP_SDE_XS: the states and the
 * run of coarse steps) -- what a continuation (sde_run(init = a passage
 * result)) starts it from. */
#define SP_SDE_HS(nx) ((nx) + 4)

/* Replicas of a tile: the fixed-length outputs reduce each tile of this many
 * consecutive replicas of a condition to (n, mean, M2) per variable, and the
 * host combines the tiles in order (both backends), so that the moments do
 * not depend on threads. */
#define SP_SDE_TILE 256

/* Threads of a block of the lane kernels (sp_sde_passage_kernel, the start
 * and compaction kernels): their __launch_bounds__ and the host's launches
 * (sp_gpu_sde.c). */
#define SP_SDE_BLOCK 128

typedef struct {
  double dt, t_max;
  uint64_t kmax;         /* steps of a path */
  uint64_t n;            /* replicas per condition in this call */
  uint64_t replica0;     /* 0-based global index of the call's first replica */
  uint64_t cond0;        /* condition c of the call draws the streams of condition
                            cond0 + c (0-based) of a larger study: path (c, r) draws stream
                            ((cond0 + c) << 40) + replica0 + r; 0 for sde_run() (an
                            internal setting: escape-declared.R's one-condition calls) */
  uint64_t ncond;
  int64_t nx, np, nw, no; /* states, parameters, noise entries, observables */
  int64_t heun;          /* 1: stochastic Heun (srk2), 0: Euler-Maruyama */
  int64_t single;        /* 1: single precision */
  int64_t use_stop;      /* 1: stop at the event (output = "passage") */
  int64_t output;        /* 0 passage, 1 moments, 2 histogram, 3 trajectories */
  uint64_t record_every; /* steps between records (fixed-length outputs) */
  uint64_t nrec;         /* records: steps 0, r, 2r, ..., and kmax */
  uint64_t keep;         /* replicas of this call whose records are kept */
  int64_t save_state;    /* passage: keep the state at passage */
  int64_t nhist;         /* variables with a histogram */
  int64_t nbreaks;       /* breaks of all histograms */
  int64_t bridge;        /* passage: the Brownian-bridge test of the event (sde_engine.h) */
  uint64_t nrun;         /* passage: 0 runs every path of the call (ncond x n); else the
                            nrun paths the host lists (a continuation: each from its own
                            step and record), the outputs indexed by the list */
  int64_t hold;          /* passage: write the rows of the paths not stopped (`held`) */
  uint64_t ntraj;        /* slots of a kept path's trajectory: records are written to the
                            slot the host's traj_slot[] names (nrec slots, one a record, for
                            sde_run()'s trajectories; fewer where a caller keeps only the
                            last record reached of each group of records: sp_sde_args) */
} sp_sde_job;

/* Paths a passage call runs: the outputs' length. */
SP_FN uint64_t sp_sde_npaths(const sp_sde_job *job) {
  return job->nrun > 0 ? job->nrun : job->ncond * job->n;
}

/* Step of record j. */
SP_FN uint64_t sp_sde_record_step(const sp_sde_job *job, uint64_t j) {
  uint64_t s = j * job->record_every;
  return s < job->kmax ? s : job->kmax;
}

/* The cell of v in a histogram of breaks b[0..m-1]: 0 below, 1..m-1 the
 * bins [b[i-1], b[i]) (the last closed on the right), m above. */
SP_FN long long sp_sde_cell(const double *b, long long m, double v) {
  long long lo = 0, hi = m;
  if (v < b[0]) return 0;
  if (v > b[m - 1]) return m;
  if (v == b[m - 1]) return m - 1;
  while (hi - lo > 1) { /* b[lo] <= v < b[hi] */
    long long mid = (lo + hi) / 2;
    if (b[mid] <= v) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}

/* The compiled model's CPU entries (the shared object of sde_cpu.h). */
typedef int (*sp_sde_advance_fn)(const sp_sde_job *job, const double *par, uint64_t seed,
                                 uint64_t stream, double *x, uint64_t *k, uint64_t kend,
                                 double *frac, int *what);
typedef void (*sp_sde_observe_fn)(const sp_sde_job *job, const double *par, uint64_t k,
                                  const double *x, double *out);

#if !SP_CUDA
/* The lanes of a CPU batch: paths that the compiled model's vector loop
 * (sde_lanes.h, sp_sde_lanes_fn) advances together, each in a lane of its
 * SIMD registers.  The engine sets a lane's path (on 1; 0: an idle lane),
 * its parameters, record x (SP_SDE_XS), stream, step k, the step kend to
 * reach and status SP_SDE_RUNNING; the entry advances every running lane
 * with k < kend and returns as soon as one stopped (status, frac, what as
 * sp_sde_advance_fn says) or reached its kend, the others standing where
 * they got (their records and k written). */
#define SP_SDE_W 32
typedef struct {
  int on[SP_SDE_W];
  const double *par[SP_SDE_W];
  double *x[SP_SDE_W];
  uint64_t stream[SP_SDE_W], k[SP_SDE_W], kend[SP_SDE_W];
  double frac[SP_SDE_W];
  int what[SP_SDE_W], status[SP_SDE_W];
} sp_sde_lanes;
typedef void (*sp_sde_lanes_fn)(const sp_sde_job *job, uint64_t seed, sp_sde_lanes *L);
#endif

/* Merge the statistics (nb, mb, m2b: count, mean, sum of squared
 * deviations) of a part into (n, mean, m2): Chan, Golub and LeVeque's
 * pairwise update.  The host combines a record's tiles with it in order
 * (sp_sde_tiles_combine), the GPU in a fixed tree (sp_sde_tiles_kernel). */
SP_FN void sp_sde_merge(double *n, double *mean, double *m2, double nb, double mb, double m2b) {
  if (nb > 0) {
    const double nn = *n + nb, d = mb - *mean;
    *mean += d * nb / nn;
    *m2 += m2b + d * d * *n * nb / nn;
    *n = nn;
  }
}

/* GPU: the lowest failing path and what it reached. */
typedef struct {
  unsigned long long bad; /* (path << 8 | state) of the lowest non-finite path, or NO_PATH */
  unsigned long long useful, issued, finished;
  /* fixed length: the first step (kcur) of the launch that found the
   * failure, or all ones; launches after it leave the paths as they are */
  unsigned long long bad_kcur;
  unsigned long long held; /* passage: rows written to `held` */
} sp_sde_counters;

#endif

#ifndef SP_SDE_KARGS_DEFINED
#define SP_SDE_KARGS_DEFINED
/* The one argument of every kernel of sde.cu. */
typedef struct {
  sp_sde_job job;
  uint64_t seed;
  /* the step and its square root (sqrt(job.dt), rounded once more to float
   * in single), set by the host: parameters of the launch, read by the
   * step's multiply-adds as constants rather than converted at each step */
  double sdt;
  float dt_f, sdt_f;
  SP_DPTR(const double) par;
  SP_DPTR(const double) init;
  SP_DPTR(const int) init_vec;
  SP_DPTR(const double) init_vals;
  SP_DPTR(const int) hist_var;
  SP_DPTR(const long long) hist_off;
  SP_DPTR(const double) breaks;
  SP_DPTR(sp_sde_counters) counters;
  /* passage: the lanes (pid -1 waiting, -2 none left), their step and state
   * (nx x nlanes, as double), the path counter and the results */
  SP_DPTR(long long) pid;
  SP_DPTR(unsigned long long) k;
  SP_DPTR(double) x;
  uint64_t nlanes, cap; /* lanes run; the stride of x (lanes allocated) */
  /* compaction: the other lane buffers and the count of lanes moved */
  SP_DPTR(long long) pid_to;
  SP_DPTR(unsigned long long) k_to;
  SP_DPTR(double) x_to;
  SP_DPTR(unsigned long long) count;
  SP_DPTR(unsigned long long) next;
  uint64_t total;
  SP_DPTR(double) value;
  SP_DPTR(int) status;
  SP_DPTR(double) state;
  /* passage, a continuation (job.nrun > 0): path q of the call is path
   * run_path[q] (over conditions x replicas: its stream and condition),
   * from step run_k[q] and record run_x[q SP_SDE_XS ..]; held: the rows of
   * the paths not stopped (SP_SDE_HS each; job.hold) */
  SP_DPTR(const double) run_path;
  SP_DPTR(const double) run_k;
  SP_DPTR(const double) run_x;
  SP_DPTR(double) held;
  unsigned int budget;
  int record;
  /* fixed length: every path's state (nx x total), steps kcur -> kend,
   * record rec: tile statistics, histogram counts, kept trajectories, the
   * step at which a path turned non-finite */
  uint64_t kcur, kend, rec;
  SP_DPTR(double) tiles;
  /* the record's statistics reduced over the tiles (ncond x nvar x 3:
   * n, mean, sum of squared deviations), sp_sde_tiles_kernel */
  SP_DPTR(double) red;
  SP_DPTR(unsigned long long) hist;
  SP_DPTR(double) traj;
  long long traj_slot; /* the slot of record rec in the kept trajectories, -1: not kept */
  SP_DPTR(unsigned long long) badk;
  /* fixed length, a model with time terms (SP_SDE_NT, sde_engine.h): their
   * table for the launch's steps kcur .. kend, filled by sp_sde_time_kernel
   * (condition c's row of step k at (c tab_rows + k - kcur) SP_SDE_NT, in
   * the working precision), read by sp_sde_fixed_tab_kernel */
  SP_DPTR(void) tab;
  uint64_t tab_rows;
  /* passage on several devices: this device is dev_i of dev_n, and runs
   * the paths of the call's blocks of SP_SDE_DEV_BLOCK that fall to it in
   * turn (sp_sde_global: its local path j is the call's path q); total,
   * the path counter, value, status, state and the lowest failing path in
   * counters->bad count its paths (j), the held rows the call's (q) */
  uint64_t dev_i, dev_n;
  /* the Philox round keys of seed (sp_philox_keys, philox.h), set by the
   * host: the passage kernel's fast macro-steps load them from the
   * argument instead of forming them at every chunk (the same words) */
  uint32_t keys[20];
} sp_sde_kargs;

/* Paths a device takes in turn when several share a passage run: a warp's
 * worth, so that every condition (a block of replicas) is spread evenly. */
#define SP_SDE_DEV_BLOCK 32u
#endif
