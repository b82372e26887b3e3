/* sp_escape.h: ensembles of escapes over a tilted washboard (paper 000) on
 * the CPU; the GPU engine (src/gpu/sp_gpu_escape.c) has the same contract.
 *
 * Paths are numbered p = c n + r (condition c, replica r = 0..n-1 of this
 * call); path p draws from Philox stream conds[c].stream0 + replica0 + r, so
 * its result depends only on (seed, condition, replica): any thread count,
 * device count or chunking (replica0 = first_replica - 1) gives the same
 * numbers.  Outputs, indexed by p: value[p] (escape time or bias at
 * switching, interpolated inside the crossing step; the censoring value when
 * the path did not cross by kmax) and escaped[p] (1 crossed, 0 censored,
 * SP_ESC_UNFINISHED when the run was interrupted first). */
#ifndef SP_ESCAPE_H
#define SP_ESCAPE_H

#include <stdint.h>

#include "sp_hooks.h"

#include "sp_wb_cond.h" /* inst/cuda: shared with the kernels */

#define SP_ESC_UNFINISHED (-1)

typedef struct {
  const sp_wb_cond *conds;
  int ncond;
  uint64_t n;        /* paths per condition */
  uint64_t replica0; /* first_replica - 1 */
  int heun;          /* 1: srk2, 0: euler */
  int single;        /* 1: float, 0: double */
  uint64_t seed;
} sp_escape_job;

typedef struct {
  double useful_steps; /* steps of finished paths (up to crossing or kmax) */
  double issued_steps; /* steps computed by all lanes, idle ones included */
  double finished;     /* paths finished */
  double seconds;      /* wall time of the engine */
  int interrupted;
} sp_escape_stats;

/* Run on `nth` threads.  value/escaped have ncond * n elements. */
int sp_escape_cpu(const sp_escape_job *job, double *value, int *escaped, int nth,
                  const sp_hooks *hooks, sp_escape_stats *stats);

/* Monotonic clock in seconds (engines time their rounds with it). */
double sp_now(void);

#endif
