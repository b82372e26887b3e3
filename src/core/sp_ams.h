/* sp_ams.h: adaptive multilevel splitting (inst/cuda/ams.h) on the CPU
 * (sp_ams_engine.inc), for escapes over the tilted washboard or a user's
 * SDE model; the GPU engine (src/gpu/sp_gpu_ams.c) has the same contract
 * and the same numbers.
 *
 * Replica r (0 .. replicas - 1 of this call, global R = replica0 + r) of
 * condition c is one independent AMS estimate (ams.h says which random
 * numbers it draws); out[c replicas + r] is its sp_ams_result.  A replica
 * runs: the long trajectory from the start state collects the first N =
 * particles exits from A (and the durations of its start segments and
 * failed cycles); the N initial particles run from those exit states to A
 * or B; then levels (sp_ams_level) until the level passes B or every
 * particle dies.  An interrupt leaves the unfinished replicas with status
 * SP_AMS_UNFINISHED. */
#ifndef SP_AMS_H
#define SP_AMS_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "ams_args.h" /* inst/cuda: shared with the kernels */

typedef struct {
  int model;                      /* SP_AMS_MODEL_* (set by the descriptor) */
  const sp_ams_cond *conds;       /* washboard: its conditions */
  const sp_ams_sde_cond *sconds;  /* sde model: its conditions */
  int ncond;
  int64_t nx;                     /* reals of a state (washboard: 2) */
  const double *tables; /* washboard: thermal-start tables (NULL: every start at
                           rest); sde: parameters and starts (sp_ams_sde_cond) */
  size_t ntables;
  uint64_t replicas;  /* per condition */
  uint64_t replica0;  /* first_replica - 1 */
  uint64_t particles; /* N */
  uint64_t k;         /* killed at least per level */
  uint64_t seed;
  size_t round_steps;   /* at most this many steps a round (0: the driver's
                           budget; tests pause paths with it) */
  int heun;   /* 1: srk2, 0: euler */
  int single; /* 1: float, 0: double */
  /* sde model: the CPU object's entries in the run's precision
   * (sp_ams_long_fn, sp_ams_branch_fn; NULL on the GPU) */
  void *entry_long, *entry_branch;
} sp_ams_job;

/* The outputs: one result a replica, c replicas + r. */
typedef struct {
  sp_ams_result *rep;
} sp_ams_out;

/* Condition c (a row of conds or sconds), its step, and the stream of item
 * (c replicas + r). */
const void *sp_ams_job_cond(const sp_ams_job *job, uint64_t c);
double sp_ams_job_h(const sp_ams_job *job, uint64_t c);
uint64_t sp_ams_job_stream(const sp_ams_job *job, uint64_t item);

/* The long trajectory of `item` at its start: st and its state lx (nx
 * values, rounded to the run's precision). */
void sp_ams_job_long_init(const sp_ams_job *job, uint64_t item, sp_ams_long_state *st,
                          double *lx);

/* The descriptors' checks (src/models/ams.c, sde_ams.c): set model and nx
 * and check the lengths. */
int sp_ams_prepare_washboard(void *job);
int sp_ams_prepare_sde(void *job);

/* Every replica unfinished, zeros. */
void sp_ams_out_init(const sp_ams_job *job, sp_ams_result *out);

/* The error of replica `item` (c replicas + r) that failed with `what`
 * (SP_AMS_FAIL_*, ams_args.h) in its long trajectory or a particle's path,
 * at step k (0: not known).  Both backends report through it. */
int sp_ams_fail(const sp_ams_job *job, uint64_t item, int what, int long_trajectory,
                uint64_t k);

/* job and out: an sp_ams_job and an sp_ams_out initialised by
 * sp_ams_out_init (the descriptor's entries, src/models/ams.c): _f single,
 * _d double. */
int sp_ams_cpu_run_f(const void *job, void *out, int nth, const sp_hooks *hooks,
                     sp_run_info *info);
int sp_ams_cpu_run_d(const void *job, void *out, int nth, const sp_hooks *hooks,
                     sp_run_info *info);

#endif
