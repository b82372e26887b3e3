/* lrmd_args.h: what the host code of lrmd()'s starts hands the draw kernel
 * of the many-body engine (mb_recipe.cu), one definition for host and
 * device (the static assert checks that both compilers agree on the
 * layout), and the constants of the draws (lrmd_start.h).  lrmd() runs on
 * the declared many-body engine; the built-in engine's kernels (lrmd.cu)
 * and their arguments were deleted (issue 50). */
#ifndef SP_LRMD_ARGS_H
#define SP_LRMD_ARGS_H

#include "sp_common.h"

/* ---- the starts the engine draws itself (lrmd_start.h) ---------------------- */

/* Kinds of start (hmf_waterbag(), hmf_equilibrium(), ring_uniform(),
 * gravity2d_shell()); the numbers are those of the R recipe (R/lrmd-init.R). */
enum {
  SP_LRMD_START_WATERBAG = 1,
  SP_LRMD_START_EQUILIBRIUM = 2,
  SP_LRMD_START_RING = 3,
  SP_LRMD_START_SHELL = 4
};

/* Particles of a tile of the draw: a CPU tile, a GPU block (256 threads, one
 * Philox block of 4 particles each).  The tiles' sums are added in tile
 * order on the host. */
#define SP_LRMD_START_TILE 1024
/* Threads of a block of the draw kernel: one per Philox block of 4. */
#define SP_LRMD_START_THREADS (SP_LRMD_START_TILE / 4)
/* Doubles per tile in the partial sums: pass 0, the sums of cos q0, sin q0
 * (waterbag), of the momenta or x, of y (shell), then the largest momentum
 * and the largest negated momentum; pass 1 (waterbag), the sum of the
 * squared shifted momenta. */
#define SP_LRMD_START_NSUMS 6
/* hmf_equilibrium(): intervals of the tabulated von Mises distribution
 * function on [-pi, pi], and buckets of its guide table (the first interval
 * of each 1/SP_LRMD_VM_GUIDE of probability). */
#define SP_LRMD_VM_GRID 65536
#define SP_LRMD_VM_GUIDE 65536

/* The same starts drawn by the many-body engine (sde_run()'s model with n
 * elements, a start given as a recipe: mb_recipe.cu's sp_mb_recipe_kernel,
 * src/gpu/sp_gpu_mb_recipe.c) into one system's states, nx rows of npad in
 * the working precision (float when `single`): rows (theta, p) or (x, y,
 * px, py), the padding left alone.  Every pass draws the raw numbers again
 * (nothing but the states is kept between the passes, which are those of
 * the CPU's, src/core/sp_lrmd_start.c); pass 0 writes the raw numbers, and
 * the pass `write` marks (the last) the start itself. */
typedef struct {
  uint64_t seed;
  uint64_t n;
  uint64_t replica;
  double a, b;
  double shift0, shift1;
  double scale;
  int32_t kind;
  int32_t pass;
  int32_t write;               /* 1: write the states (pass 0 and the last pass) */
  int32_t single;              /* 1: the states are float */
  int32_t nx;                  /* 2 (theta, p) or 4 (x, y, px, py) */
  int32_t pad_;
  uint64_t npad;               /* a row of the states */
  SP_DPTR(void) x;             /* the system's first row */
  SP_DPTR(double) partial;     /* blocks x SP_LRMD_START_NSUMS */
  SP_DPTR(const double) cdf;
  SP_DPTR(const double) grid;
  SP_DPTR(const int32_t) guide;
} sp_mb_recipe_kargs;

SP_STATIC_ASSERT(sizeof(sp_mb_recipe_kargs) == 136, "sp_mb_recipe_kargs layout");

#endif /* SP_LRMD_ARGS_H */
