/* escape_args.h: what the escape engine's host code hands its CPU loop and
 * its kernels, one definition for both (the structs are copied to the device
 * byte for byte, so both compilers must agree on the layout; the static
 * asserts check that). */
#ifndef SP_ESCAPE_ARGS_H
#define SP_ESCAPE_ARGS_H

#include "sp_chunks.h"

/* Threads of a block of sp_escape_kernel and sp_escape_compact_kernel: the
 * kernels' __launch_bounds__ and the host's launches (sp_gpu_escape.c). */
#define SP_ESC_BLOCK 128

/* One condition, built in double precision on the host. */
typedef struct {
  double g0, dg;     /* bias gamma_k = g0 + k dg (dg = ramp h; 0 at fixed bias) */
  double V0, beta, h;
  double sigma;      /* sqrt(2 beta theta h) */
  double phi0, th;   /* start at rest (asin g0) and threshold of escape */
  double vcens;      /* value reported for a censored path (t_max, gamma_max) */
  uint64_t kmax;     /* last step simulated: censored if not escaped by then */
  uint64_t stream0;  /* Philox stream of replica 1 of this condition: c 2^40 */
  /* thermal start (start_table < 0: at rest): phi from the tabulated
   * Boltzmann law of the well on knots start_lo + i start_step, i = 0 ..
   * SP_ESCAPE_KNOTS - 1 (its CDF at offset start_table, the log density at
   * start_table + SP_ESCAPE_KNOTS of the tables array), v normal with
   * standard deviation start_vsd = sqrt(theta) */
  int64_t start_table;
  double start_lo, start_step, start_vsd;
} sp_escape_cond;

#define SP_ESCAPE_KNOTS 1025

SP_STATIC_ASSERT(sizeof(sp_escape_cond) == 120, "sp_escape_cond layout");

/* Status of a path in the results. */
enum {
  SP_ESCAPE_CENSORED = 0,  /* not escaped by kmax: value = vcens */
  SP_ESCAPE_ESCAPED = 1,   /* value = crossing time or bias */
  SP_ESCAPE_UNSTARTED = -1, /* interrupted before it started: value = start */
  SP_ESCAPE_PARTIAL = -2   /* interrupted while running: value = what it reached */
};

/* Where a path stands, to continue it (escape_times(init = <a result>)):
 * after `step` steps at (phi, v), values of the run's precision; hit 1..4:
 * the last macro-step (steps step - 3 .. step) crossed the threshold at step
 * step - 4 + hit, interpolation fraction frac, beyond the run's kmax or
 * vcens -- a crossing that a continued run with a larger kmax reports
 * (sp_escape_settle); 0: none (frac 0).  step -1: not started (the path
 * starts afresh).  As an engine output (the end state of the paths not
 * escaped), `path` is unused; in the job's resume table it is the path
 * continued, c n + r. */
typedef struct {
  int64_t path;
  double phi, v, frac;
  int64_t step, hit;
} sp_escape_state;

SP_STATIC_ASSERT(sizeof(sp_escape_state) == 48, "sp_escape_state layout");

/* Counters a run accumulates (kernel atomics; CPU atomics). */
typedef struct {
  unsigned long long issued;   /* steps computed by all lanes, idle ones included */
  unsigned long long useful;   /* steps of finished paths (to the crossing or kmax) */
  unsigned long long finished; /* paths finished */
  unsigned long long bad;      /* the lowest path found with a non-finite state
                                  (at the end of a launch; the CPU engine
                                  keeps its own); SP_ESCAPE_NO_PATH: none */
} sp_escape_counters;

#define SP_ESCAPE_NO_PATH 0xffffffffffffffffull

/* Arguments of sp_escape_kernel (by value).  Lane arrays phi and v hold the
 * variant's precision.  The items the queue hands out are the run's paths,
 * or (the SP_ESC_RESUME variant) the rows of `resume`, the paths continued;
 * results are indexed by item. */
typedef struct {
  SP_DPTR(const sp_escape_cond) conds;
  SP_DPTR(const double) tables;     /* thermal-start tables (or 0) */
  uint64_t n, replica0, seed;       /* paths per condition, first replica - 1 */
  sp_chunk_queue queue;             /* the paths handed to this device */
  SP_DPTR(long long) pid;           /* lane state: path (-1 waiting, -2 none left) */
  SP_DPTR(sp_escape_real) phi;
  SP_DPTR(sp_escape_real) v;
  SP_DPTR(unsigned long long) k;    /* steps done */
  uint64_t nlanes;
  SP_DPTR(double) value;            /* results, indexed by path */
  SP_DPTR(int) status;
  SP_DPTR(sp_escape_counters) counters;
  unsigned int budget;              /* macro-steps of a lane in this launch */
  unsigned int pad_;
  SP_DPTR(sp_escape_state) end;     /* end state of a censored path, by item */
  SP_DPTR(const sp_escape_state) resume; /* SP_ESC_RESUME: the paths continued */
} sp_escape_kargs;

SP_STATIC_ASSERT(sizeof(sp_escape_kargs) == 168, "sp_escape_kargs layout");

/* Arguments of sp_escape_compact_kernel: lanes that still hold a path are
 * packed from the `from` arrays into the front of the `to` arrays. */
typedef struct {
  SP_DPTR(const long long) pid_from;
  SP_DPTR(const sp_escape_real) phi_from;
  SP_DPTR(const sp_escape_real) v_from;
  SP_DPTR(const unsigned long long) k_from;
  uint64_t nlanes;
  SP_DPTR(long long) pid_to;
  SP_DPTR(sp_escape_real) phi_to;
  SP_DPTR(sp_escape_real) v_to;
  SP_DPTR(unsigned long long) k_to;
  SP_DPTR(unsigned long long) count;
} sp_escape_compact_args;

SP_STATIC_ASSERT(sizeof(sp_escape_compact_args) == 80, "sp_escape_compact_args layout");

#endif /* SP_ESCAPE_ARGS_H */
