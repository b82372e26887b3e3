/* sp_escape.h: ensembles of escapes over a tilted washboard (paper 000) on
 * the CPU; the GPU engine (src/gpu/sp_gpu_escape.c) has the same contract.
 *
 * Paths are numbered p = c n + r (condition c, replica r = 0..n-1 of this
 * call); path p draws from Philox stream conds[c].stream0 + replica0 + r, so
 * its result depends only on (seed, condition, replica): any thread count,
 * device count or chunking (replica0 = first_replica - 1) gives the same
 * numbers.  Results, indexed by p: value[p] and status[p] (escape_args.h):
 * the escape time or bias at switching, interpolated inside the crossing
 * step (SP_ESCAPE_ESCAPED); the censoring value (SP_ESCAPE_CENSORED); or,
 * after an interrupt, the time or bias the path had reached
 * (SP_ESCAPE_PARTIAL; its start for SP_ESCAPE_UNSTARTED), which is a valid
 * right-censored observation.  A path whose state becomes non-finite (NaN or
 * infinite) fails the run with SP_ERR_NOT_FINITE (sp_escape_not_finite):
 * the lowest such path found at the first check that finds one (when a
 * path ends, and at the end of every round or launch) is named.
 *
 * Continuing (escape_times(init = <a result>)): the job's `resume` table
 * lists the paths to continue, each with the state where the previous run
 * left it (sp_escape_state in escape_args.h); the run's items are then its
 * rows (item i continues path resume[i].path), and a path's step k still
 * uses normal k - 1 of its stream, so the continued path is the path of one
 * longer run.  Without `resume` the items are the paths.  Results (value,
 * status and the end state) are indexed by item; the end state of a path
 * not escaped (censored, or stopped by an interrupt) is what continuing it
 * needs. */
#ifndef SP_ESCAPE_H
#define SP_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "escape_args.h" /* inst/cuda: shared with the kernels */

typedef struct {
  const sp_escape_cond *conds;
  int ncond;
  const double *tables; /* thermal-start tables (NULL when every path starts at rest) */
  size_t ntables;       /* doubles in tables */
  uint64_t n;           /* paths per condition */
  uint64_t replica0;    /* first_replica - 1 */
  uint64_t seed;
  int heun;   /* 1: srk2, 0: euler */
  int single; /* 1: float, 0: double */
  const sp_escape_state *resume; /* the paths continued (NULL: a fresh run) */
  uint64_t nresume;
} sp_escape_job;

typedef struct {
  double *value; /* a value per item */
  int *status;   /* a status per item */
  /* the end state per item (sp_escape_state), for the items not escaped */
  double *end_phi, *end_v, *end_frac, *end_step;
  int *end_hit;
  sp_escape_counters counts;
} sp_escape_out;

/* Items of the job: the paths continued, or every path (ncond n). */
uint64_t sp_escape_items(const sp_escape_job *job);
/* The path, c n + r, of item i. */
uint64_t sp_escape_path(const sp_escape_job *job, uint64_t i);
/* Every item unstarted: its value its start (t = 0, or gamma0; the step it
 * continues from), its end state the start (step -1 for a fresh path). */
void sp_escape_out_init(const sp_escape_job *job, sp_escape_out *out);
/* The same for item i alone. */
void sp_escape_unstarted(const sp_escape_job *job, sp_escape_out *out, uint64_t i);
/* What item i had reached after k steps (k = 0: t = 0 or gamma0). */
double sp_escape_reached(const sp_escape_job *job, uint64_t i, uint64_t k);
/* Item i's end state. */
void sp_escape_set_end(sp_escape_out *out, uint64_t i, double phi, double v, uint64_t step,
                       int hit, double frac);
/* The continued paths that have not started yet (step -1): their start
 * state, drawn on the host (the descriptor's prepare step). */
void sp_escape_resume_starts(sp_escape_job *job);

/* The failure of item p, found with a non-finite state (a NaN or infinite
 * position or velocity can neither escape nor be censored): replays the
 * path on the host (the CPU engine's code, in the job's precision) to name
 * the quantity and the step where it first became non-finite, and returns
 * SP_ERR_NOT_FINITE with that message.  Both backends report through it. */
int sp_escape_not_finite(const sp_escape_job *job, uint64_t p);
void sp_escape_replay_f(const sp_escape_job *job, uint64_t p, uint64_t *step, int *what);
void sp_escape_replay_d(const sp_escape_job *job, uint64_t p, uint64_t *step, int *what);

/* Run on `nth` threads, in single (_f) or double (_d) precision: job and
 * out are an sp_escape_job and an sp_escape_out initialised by
 * sp_escape_out_init (the descriptor's entries, src/models/escape.c). */
int sp_escape_cpu_run_f(const void *job, void *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);
int sp_escape_cpu_run_d(const void *job, void *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);

#endif
