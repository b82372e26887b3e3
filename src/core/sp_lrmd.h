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

/* A start the engine draws itself (inst/cuda/lrmd_start.h has the draws):
 * kind SP_LRMD_START_*, n particles, the replica (global, 0-based) whose
 * Philox streams it is drawn from, its parameters a and b, and for the
 * waterbag's energy check U and M0. */
typedef struct {
  int kind;
  uint64_t seed, n, replica;
  double a, b;
  double U, M0;
} sp_lrmd_start;

/* A row of the starts of systems side by side (sp_lrmd_job.starts): system
 * s's start drawn from this recipe (kind >= 0, as sp_lrmd_start, its seed in
 * two 32-bit halves), or (kind < 0) given: particles s n .. s n + n - 1 of
 * the job's columns in[]. */
typedef struct {
  int kind;
  uint64_t seed_lo, seed_hi, n, replica;
  double a, b, U, M0;
} sp_lrmd_start_row;

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
  const double *snap_steps; /* nsnap steps (ascending, <= steps; whole numbers) */
  int nsnap;
  /* The start: columns q0, q1, p0, p1 (q1, p1 NULL for HMF and ring), left
   * as they are; or `start`, drawn by the engine into the out arrays; or
   * neither (in[0] NULL, start NULL): the out arrays hold it. */
  const double *in[4];
  uint64_t nin[4];            /* lengths of in[] as given (0 or n) */
  const sp_lrmd_start *start; /* &start_def when start_def.kind >= 0, else NULL */
  sp_lrmd_start start_def;    /* the recipe of a start the engine draws (kind < 0: none) */
  /* Systems side by side (the GPU engine, one device: lrmd()'s replicas
   * and conditions in one set of launches): nsys systems of n particles,
   * each advanced as if alone; nsys 1 for one system (the CPU engine's only
   * case).  With nsys > 1 the start of system s is starts[s] (start_def
   * unused), the columns in[] hold nsys n particles (system s's at s n, or
   * none when every start is drawn), and every output holds nsys systems:
   * the records of system s at s nrec SP_LRMD_NREC, its state and
   * snapshots at particle s n of each column. */
  uint64_t nsys;
  const sp_lrmd_start_row *starts; /* nstarts (nsys > 1: nsys) rows */
  uint64_t nstarts;
  /* the GPU's ring and gravity2d systems side by side: the key of the
   * module of one system (keys[0]; nkeys 1), whose pair kernels' resident
   * blocks cut the sources into the parts of a run alone (sp_gpu_lrmd.c) */
  const char *const *keys;
  size_t nkeys;
} sp_lrmd_job;

typedef struct {
  /* the state at steps_done, n each (q1, p1: NULL, or zeros the engine
   * leaves alone, for the one-dimensional models) */
  double *q0, *q1, *p0, *p1;
  double *rec;   /* nrec x SP_LRMD_NREC, NaN where not reached */
  double **snap; /* nsnap x 4 columns of n (q0, q1, p0, p1), NaN where not
                    reached; a NULL column is not kept */
  uint64_t steps_done;
  double start_pmax; /* job->start: the largest |momentum component| drawn */
  double *pmax;      /* nsys: each system's start_pmax (the GPU engine) */
} sp_lrmd_out;

/* Records of a job: step 0 and every record_every steps. */
uint64_t sp_lrmd_nrec(const sp_lrmd_job *job);

/* Records and snapshots NaN, no step done (both engines start so). */
void sp_lrmd_out_init(const sp_lrmd_job *job, sp_lrmd_out *out);

/* The sums over all particles that a record is made of, each engine adding
 * them in its own fixed order (the CPU by tiles, the GPU by slices and
 * blocks). */
typedef struct {
  double kin;  /* sum of |p|^2 / 2 */
  double pot;  /* ring, gravity2d: the pair potential sum over ordered pairs */
  double c, s; /* HMF, ring: the sums of cos q0 and sin q0 */
  double vir;  /* gravity2d: the virial sum over ordered pairs */
} sp_lrmd_sums;

/* The record of step k, rec[0 .. SP_LRMD_NREC - 1], from the sums: kinetic
 * and potential energy per particle, then the magnetisation (M_x, M_y) for
 * HMF and ring, or the virial W/n and the radius about the centre of mass
 * holding half the particles for gravity2d, which reads the positions x, y
 * (n each) and n doubles of work (NULL for the others).  Both engines make
 * their records here.  SP_OK, or SP_ERR_NOT_FINITE naming the first
 * non-finite number while the state is finite. */
int sp_lrmd_record_make(const sp_lrmd_job *job, uint64_t k, const sp_lrmd_sums *s,
                        const double *x, const double *y, double *work, double *rec);

/* The host's part of a draw (sp_lrmd_start_draw, and the GPU engine's): the
 * constants between the passes of lrmd_start.h. */
typedef struct {
  int passes;            /* 1 (raw draws only), 2 (a shift) or 3 (waterbag) */
  double shift0, shift1; /* the means subtracted */
  double scale;          /* waterbag: the factor of the momenta */
  double kin;            /* waterbag: the kinetic energy per particle */
  double pmax;           /* the largest |momentum component| of the start */
  double hi, lo;         /* the raw momenta's largest value and largest negated value */
} sp_lrmd_start_consts;

/* Tiles of SP_LRMD_START_TILE particles of a draw. */
uint64_t sp_lrmd_start_tiles(uint64_t n);
/* hmf_equilibrium()'s table (kappa > 0): cdf and grid of SP_LRMD_VM_GRID + 1
 * doubles, guide of SP_LRMD_VM_GUIDE (lrmd_start.h). */
void sp_lrmd_vm_table(double kappa, double *cdf, double *grid, int32_t *guide);
/* The passes of a start, and after pass 0 (the tiles' sums `part`, added in
 * tile order) the shifts; SP_ERR_INVALID when the waterbag's energy is below
 * the potential energy of its drawn angles. */
int sp_lrmd_start_after0(const sp_lrmd_start *s, const double *part, uint64_t ntile,
                         sp_lrmd_start_consts *k);
/* The waterbag after pass 1: the scale and pmax. */
void sp_lrmd_start_after1(const sp_lrmd_start *s, const double *part, uint64_t ntile,
                          sp_lrmd_start_consts *k);
/* Draw a start on the CPU into q0, p0 (and q1, p1 for the shell; NULL for
 * the others) on nth threads; the largest |momentum component| into *pmax.
 * The numbers do not depend on nth. */
int sp_lrmd_start_draw(const sp_lrmd_start *s, double *q0, double *q1, double *p0, double *p1,
                       int nth, double *pmax);

/* One pass over columns of n doubles (the start lrmd() is given): whether
 * all are finite, the sum of the squares of columns mom0 .. ncol - 1 (the
 * momenta) and their largest absolute value: out[0 .. 2]. */
void sp_lrmd_scan(const double *const *cols, int ncol, int mom0, uint64_t n, int nth,
                  double out[3]);

/* Write zeros into ncol arrays of n doubles on nth threads (the first touch
 * of fresh pages, before a copy from a device into them). */
void sp_lrmd_touch(double *const *cols, int ncol, uint64_t n, int nth);

/* A non-finite state: particle i (0-based) with a non-finite momentum
 * (momentum = 1) or position after step k (0: the start) -- both engines
 * check every step and name the first particle at the first step that
 * fails.  SP_ERR_NOT_FINITE with the message. */
int sp_lrmd_not_finite(const sp_lrmd_job *job, uint64_t k, uint64_t i, int momentum);

/* Draw job->start (if any) into out's state on nth threads (the CPU engine,
 * before its first step). */
int sp_lrmd_cpu_start(const sp_lrmd_job *job, sp_lrmd_out *out, int nth);

/* job and out: an sp_lrmd_job and an sp_lrmd_out with its outputs
 * initialised (the descriptor's entries, src/models/lrmd.c): _f the mixed
 * precision, _d double. */
int sp_lrmd_cpu_run_f(const void *job, void *out, int nth, const sp_hooks *hooks,
                      sp_run_info *info);
int sp_lrmd_cpu_run_d(const void *job, void *out, int nth, const sp_hooks *hooks,
                      sp_run_info *info);

/* Systems side by side (job->nsys > 1, src/core/sp_lrmd_systems.c).  The
 * start of system sys that the engine draws (job->start for one system, or
 * its row's recipe, made in *tmp), or NULL when it is given. */
const sp_lrmd_start *sp_lrmd_system_start(const sp_lrmd_job *job, uint64_t sys,
                                          sp_lrmd_start *tmp);
/* A failure st of system sys (0-based): its message begins "system <sys +
 * 1>: " when there are several (lrmd() names the replica); st. */
int sp_lrmd_system_fail(uint64_t nsys, uint64_t sys, int st);
/* The systems on the CPU one after another (each into its share of the
 * outputs; a path for tests, which refuses an interrupt before the last). */
int sp_lrmd_cpu_systems(const sp_lrmd_job *job, sp_lrmd_out *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);

#endif
