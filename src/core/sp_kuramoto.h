/* sp_kuramoto.h: the noisy Kuramoto model (paper 001) on the CPU; the GPU
 * engine (src/gpu/sp_gpu_kuramoto.c) has the same contract.
 *
 * A job is ncond conditions (a grid of K, beta, theta) x nrep replicas, each an
 * independent system of n oscillators (system s = c nrep + r, condition
 * major), all advanced in lock step by SRK2 or Euler-Maruyama
 * (inst/cuda/kuramoto.h, where the random-number layout is).  The engine
 * makes the start phases (drawn from the systems' streams, unless given)
 * and the natural frequencies (unless given as a vector) itself.  Every record_every steps (and at step 0)
 * the order parameter r and mean phase psi of every system are recorded
 * (and, with bins > 0, a histogram of its phases on [0, 2 pi)).
 *
 * A continued run (step0 > 0) starts from the phases of a previous one
 * (start SP_KUR_START_SYSTEM) and goes on with the chain's steps: step k of
 * the chain draws the same numbers whether it is made in one run or in a
 * continuation, so that a + b steps in two runs are one run of a + b steps.
 *
 * The interrupt rule: the run stops after the round in flight; every system
 * has then made the same number of steps (steps_done), the records up to it
 * are valid (NaN after), and theta holds the phases at that step. */
#ifndef SP_KURAMOTO_H
#define SP_KURAMOTO_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "kuramoto_args.h" /* inst/cuda: shared with the kernels */

typedef struct {
  uint64_t n;              /* oscillators per system */
  int ncond;               /* conditions */
  uint64_t nrep;           /* replicas per condition in this call */
  uint64_t replica0;       /* global index of replica 0 (first_replica - 1) */
  sp_kuramoto_cond *conds; /* ncond conditions (K, beta, theta read; kn, ginv,
                              sigma derived by the descriptor's prepare) */
  int omega_law;           /* SP_KUR_OMEGA_* (kuramoto_args.h) */
  const double *omega;     /* SP_KUR_OMEGA_VECTOR: n natural frequencies */
  uint64_t nomega, ntheta0, nA, nrowptr; /* lengths of omega, theta0, A, rowptr */
  double omega_centre;     /* the constant, or the law's centre */
  double omega_scale;      /* the law's width (Lorentz) or sd (normal) */
  const double *theta0;    /* start phases (start > 0), or NULL */
  int start;               /* SP_KUR_START_* (kuramoto_args.h) */
  double dt;
  uint64_t step0;          /* steps of the chain before this run (a continued
                              run's; 0: a fresh start) */
  uint64_t steps, record_every;
  int coupling;            /* SP_KUR_* */
  int method;              /* SP_KUR_SRK2, SP_KUR_EULER */
  const double *A;         /* dense: n x n, column-major (A_ij at i + j n) */
  const int *rowptr, *col; /* sparse: CSR (rowptr n + 1, 0-based columns) */
  const double *val;
  int single;              /* 1: float phases */
  uint64_t seed;
  int bins;                /* phase histogram bins at record times (0: none) */
  /* derived (prepare): the records are the chain's steps on the grid of
   * record_every in (step0, step0 + steps] -- and step 0 for a fresh start
   * -- record j of this run being the chain's record rec0 + j */
  uint64_t rec0, nrec;
} sp_kuramoto_job;

typedef struct {
  double *theta;       /* n x nsys: the phases at steps_done */
  double *rec;         /* nsys x nrec x 2 (r, psi), NaN where not reached */
  double *hist;        /* nsys x nrec x bins counts, or NULL */
  uint64_t steps_done;
} sp_kuramoto_out;

/* Records of a job (sets rec0 and nrec): the chain's steps that are
 * multiples of record_every in (step0, step0 + steps], and step 0 of a
 * fresh start. */
void sp_kuramoto_records(sp_kuramoto_job *job);

/* Record of the chain's step k in this run's records, or -1: none. */
int64_t sp_kuramoto_record_of(const sp_kuramoto_job *job, uint64_t k);

/* Uniform start phases of global replica r of condition c (n values). */
void sp_kuramoto_start_phases(uint64_t seed, uint64_t c, uint64_t r, uint64_t n, double *theta);

/* Natural frequency i of the job (its vector, constant or law), in double:
 * both engines convert it to the working precision. */
double sp_kuramoto_omega_of(const sp_kuramoto_job *job, uint64_t i);

/* Records NaN, histogram 0, no step done (both engines start so). */
void sp_kuramoto_out_init(const sp_kuramoto_job *job, sp_kuramoto_out *out);

/* The failure of system `sys` (condition major) whose phases became
 * non-finite at step k (0: the start): SP_ERR_NOT_FINITE with a message
 * naming it.  Both engines check every step (the CPU the sums of sin and cos
 * of each system, which a non-finite phase makes non-finite; the GPU each
 * new phase, or the same sums) and name the lowest system at the first step
 * that fails. */
int sp_kuramoto_not_finite(const sp_kuramoto_job *job, uint64_t sys, uint64_t k);

/* job and out: an sp_kuramoto_job and an sp_kuramoto_out with its outputs initialised (the
 * descriptor's entries, src/models/kuramoto.c): _f single, _d double. */
int sp_kuramoto_cpu_run_f(const void *job, void *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);
int sp_kuramoto_cpu_run_d(const void *job, void *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);

#endif
