/* sp_xorsat.h: quasi-greedy runs on 3-regular 3-XORSAT (paper 003) on the
 * CPU (inst/cuda/xorsat.h has the rule and the random numbers).
 *
 * A run is `nwords` words of 32 clones from a random start; it ends at the
 * first sweep after which some clone has E = -N (solved), or when it
 * reaches `max_sweeps` (cut).  A call runs `nruns` runs in each of `ncond`
 * conditions (values of p1: a sweep), condition-major: run r of the call is
 * run run0 + r % nruns of condition r / nruns, its streams those of
 * sp_xorsat_run_stream(); a run's result depends only on (seed, condition,
 * run number, instance, p1, clones), never on threads, chunks or the machine's speed (the engines count sweeps; the R
 * layer turns a timeout in seconds into sweeps at a measured pace).  With
 * `calibrate`, the checks are made but a solution does not end the run:
 * every run sweeps to max_sweeps, for timing.  The ground state is checked every
 * `check_every` sweeps; when one is found, the sweeps since the last check
 * are replayed from a snapshot one by one, so the reported sweep is the
 * first at which a clone was in the ground state. */
#ifndef SP_XORSAT_CORE_H
#define SP_XORSAT_CORE_H

#include <stdint.h>

#include "sp_run.h"

enum {
  SP_XORSAT_SOLVED = 1,
  SP_XORSAT_CUT = 0,       /* max_sweeps */
  SP_XORSAT_PARTIAL = -1,  /* interrupted while running: censored where it was */
  SP_XORSAT_UNSTARTED = -2 /* interrupted before it started */
};

/* A condition: its p1 as the threshold p1 2^32 (2^32: always). */
typedef struct {
  uint64_t p1_thr;
} sp_xorsat_cond;

typedef struct {
  uint32_t n;              /* spins = equations */
  const int32_t *order;    /* n: the update order (independent sets, one after another) */
  const int32_t *sets;     /* nsets + 1: the first position of each set in order, then n */
  uint32_t nsets;
  const int32_t *partner;  /* n x 6: the two other spins of each of spin i's 3 equations */
  const uint32_t *jm;      /* n x 3: the J mask (0 or all ones) of those equations */
  const int32_t *eq;       /* n x 3: the spins of equation c */
  const uint32_t *jeq;     /* n: the J mask of equation c */
  uint32_t nwords;         /* words of 32 clones per run */
  uint64_t nruns, run0, seed; /* runs per condition, the first's number (0-based) */
  const sp_xorsat_cond *conds; /* ncond conditions */
  int ncond;
  int indep;               /* 1: per-clone p1 decisions (sp_xorsat_indep_mask) */
  int calibrate;           /* 1: solutions do not end a run (timing runs) */
  uint64_t max_sweeps;     /* 0: none */
  uint64_t check_every;    /* >= 1 */
  /* lengths of the tables as given (checked against n by the model) */
  uint64_t norder, nsets1, npartner, neq, njm, njeq;
} sp_xorsat_job;

/* Runs of the whole call (every condition): the outputs' length. */
#define SP_XORSAT_RUNS(job) ((uint64_t)(job)->ncond * (job)->nruns)

typedef struct {
  double *sweeps;  /* runs: sweeps to the first solution, or done when cut */
  int *status;     /* runs: SP_XORSAT_* */
  int *clone;      /* runs: 0-based clone that solved, or -1 */
  int *solution;   /* runs x n: 1 = spin down in that clone (solved runs) */
  uint64_t nwords; /* words per run used (job->nwords, or the GPU's choice for 0) */
  double cpu_seconds; /* calibrating CPU runs: the thread's CPU time, else NaN */
} sp_xorsat_out;

/* Are the tables of `job` consistent, so that no engine can read out of
 * bounds or race?  n >= 3; `sets` rising from 0 to n; `order` a permutation
 * of 0..n-1; every partner and equation spin in 0..n-1, no spin its own
 * partner, no two partners in one set (the GPU updates a set at once);
 * check_every >= 1; nwords <= 2^16.  SP_OK, or SP_ERR_INVALID with a
 * message (the R layer builds the tables: a failure is an internal error). */
int sp_xorsat_check(const sp_xorsat_job *job);

/* Every run unstarted (the generic entry starts the outputs so). */
void sp_xorsat_out_init(const sp_xorsat_job *job, sp_xorsat_out *out);

/* job and out: an sp_xorsat_job and an sp_xorsat_out (src/models/xorsat.c);
 * a calibrating job runs on one thread and reports its CPU time. */
int sp_xorsat_cpu(const void *job, void *out, int nth, const sp_hooks *hooks,
                  sp_run_info *info);

#endif
