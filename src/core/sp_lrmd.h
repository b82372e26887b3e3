/* sp_lrmd.h: the starts lrmd() draws itself (hmf_waterbag(),
 * hmf_equilibrium(), ring_uniform(), gravity2d_shell(): R/lrmd-init.R) on
 * the CPU (src/core/sp_lrmd_start.c; inst/cuda/lrmd_start.h has the draws),
 * whose host part the many-body engine's draws on a GPU share
 * (src/gpu/sp_gpu_mb_recipe.c).  lrmd() itself runs on the declared
 * many-body engine (R/lrmd-declared.R); the built-in engine was deleted
 * (issue 50). */
#ifndef SP_LRMD_H
#define SP_LRMD_H

#include <stddef.h>
#include <stdint.h>

#include "lrmd_args.h" /* inst/cuda: shared with the kernels */

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

/* A failure st of system sys (0-based) of nsys drawn together (the many-body
 * engine's starts from recipes): its message begins "system <sys + 1>: " when
 * there are several (lrmd() names the replica); st. */
int sp_lrmd_system_fail(uint64_t nsys, uint64_t sys, int st);

#endif
