/* sp_lrmd.h: long-range molecular dynamics (paper 004) on the CPU; the GPU
 * engine (src/gpu/sp_gpu_lrmd.c) has the same contract.
 *
 * One system of n particles (HMF, ring or gravity2d; inst/cuda/lrmd.h has
 * the Hamiltonians, Yoshida's step and what is in which precision),
 * advanced `steps` steps of dt.  At step 0 and every record_every steps a
 * record of SP_LRMD_NREC numbers: kinetic and potential energy per
 * particle, then the magnetisation (M_x, M_y) for HMF and ring, or the
 * virial W/n and the radius holding half the mass (about the centre of
 * mass) for gravity2d.  At the steps listed in snap_steps (ascending), a
 * copy of the phase space.
 *
 * The interrupt rule: the run stops after the round in flight, at a whole
 * step (steps_done); the records up to it are valid (NaN after), the
 * snapshots not reached are NaN, and the state arrays hold the positions
 * and momenta at that step (so the run can continue from them).  A
 * non-finite position or momentum (checked after every step, and at the
 * start) or record fails the run with SP_ERR_NOT_FINITE: never NaN data. */
#ifndef SP_LRMD_H
#define SP_LRMD_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "lrmd_args.h" /* inst/cuda: shared with the kernels */

#define SP_LRMD_NREC 4

typedef struct {
  int model;                  /* SP_LRMD_* */
  uint64_t n;                 /* particles */
  double dt, eps;             /* step, softening */
  uint64_t steps, record_every;
  int single;                 /* 1: the "mixed" precision (lrmd.h) */
  int fused;                  /* GPU, ring and gravity2d: 1 to kick and drift in the
                                 pair pass (one launch a force evaluation) */
  int blocks_per_sm;          /* GPU pair pass: the resident blocks an SM its
                                 parts are cut for; 0, as many as fit */
  const uint64_t *snap_steps; /* nsnap steps (ascending, <= steps) */
  int nsnap;
} sp_lrmd_job;

typedef struct {
  /* the state, n each (q1, p1 zero for the one-dimensional models): in, the
   * start; out, the state at steps_done */
  double *q0, *q1, *p0, *p1;
  double *rec;  /* nrec x SP_LRMD_NREC, NaN where not reached */
  double *snap; /* nsnap x 4 x n (q0, q1, p0, p1), NaN where not reached */
  uint64_t steps_done;
} sp_lrmd_out;

/* Records of a job: step 0 and every record_every steps. */
uint64_t sp_lrmd_nrec(const sp_lrmd_job *job);

/* Records and snapshots NaN, no step done (both engines start so). */
void sp_lrmd_out_init(const sp_lrmd_job *job, sp_lrmd_out *out);

/* The radius about the centre of mass holding half the particles (the
 * median distance; for even n the mean of the two middle ones); `work`
 * holds n doubles. */
double sp_lrmd_half_mass_radius(const double *x, const double *y, uint64_t n, double *work);

/* n uniform (kind 0, on (0, 1)) or standard normal (kind 1) draws of the
 * initial conditions: Philox purpose SP_PURPOSE_LRMD_INIT, stream `stream`,
 * draw i from block i / 4 (double precision). */
void sp_lrmd_draws(uint64_t seed, uint64_t stream, int kind, uint64_t n, double *out);

/* A non-finite state: particle i (0-based) with a non-finite momentum
 * (momentum = 1) or position after step k (0: the start) -- both engines
 * check every step and name the first particle at the first step that
 * fails.  SP_ERR_NOT_FINITE with the message. */
int sp_lrmd_not_finite(const sp_lrmd_job *job, uint64_t k, uint64_t i, int momentum);
/* Number `which` (0 .. SP_LRMD_NREC - 1) of the record of step k is
 * non-finite while the state is finite.  SP_ERR_NOT_FINITE. */
int sp_lrmd_record_not_finite(const sp_lrmd_job *job, uint64_t k, int which);

int sp_lrmd_cpu(const sp_lrmd_job *job, sp_lrmd_out *out, int nth, const sp_hooks *hooks,
                sp_run_info *info);

#endif
