/* lrmd_args.h: what the long-range MD engine's host code hands its kernels
 * (lrmd.cu), one definition for host and device (the static assert checks
 * that both compilers agree on the layout).
 *
 * One system of n particles, cut into slices [i0, i1), one per device (or
 * per stream: the engine can run several slices on one device).  Every
 * slice keeps all n particles' arrays but updates its own: positions and
 * momenta are double coordinate arrays, q0 (the angle theta for HMF and
 * ring, x for gravity2d), q1 (y, gravity2d only), p0, p1 likewise.  w
 * holds what the force pass reads of every particle, two numbers a particle
 * side by side in the working precision (sp_lrmd_real): sin and cos of
 * theta (HMF, ring) or x and y (gravity2d); the ring and gravity2d engines
 * copy each slice's part of w to the other slices after every drift. */
#ifndef SP_LRMD_ARGS_H
#define SP_LRMD_ARGS_H

#include "sp_common.h"

/* Models (the `model` argument). */
enum { SP_LRMD_HMF = 0, SP_LRMD_RING = 1, SP_LRMD_GRAVITY2D = 2 };

/* Threads of a block of the MD kernels (sp_lrmd_*_kernel but the start's):
 * their __launch_bounds__ and tiles, and the host's grids (sp_gpu_lrmd.c). */
#define SP_LRMD_BLOCK 256

/* Doubles per block in the partial-sums array: the HMF magnetisation
 * (sum cos, sum sin) after a drift, or a record's kinetic energy,
 * potential sum and (sum cos, sum sin) or (virial sum, 0). */
#define SP_LRMD_NSUMS 4

/* HMF: the slots of the magnetisation sums a slice keeps per slice (a pass
 * writes one, the next pass's kick reads it). */
#define SP_LRMD_SLOTS 4

typedef struct {
  SP_DPTR(double) q0;
  SP_DPTR(double) q1;
  SP_DPTR(double) p0;
  SP_DPTR(double) p1;
  SP_DPTR(sp_lrmd_real) w;     /* 2 n: (w0, w1) of particle i at 2 i, 2 i + 1 */
  SP_DPTR(double) partial;     /* nblocks x SP_LRMD_NSUMS block partial sums */
  SP_DPTR(double) sums;        /* HMF: nslice x SP_LRMD_SLOTS x 2, the sums (cos, sin)
                                  of each slice's particles after a pass; this
                                  slice's written by its last block, the others'
                                  copied in */
  SP_DPTR(unsigned int) count; /* blocks finished (last-block-done) */
  SP_DPTR(double) fpart;       /* ring, gravity2d with nsplit > 1: nsplit x 2 x n
                                  force sums of each part of the sources */
  uint64_t n;                  /* particles */
  uint64_t i0, i1;             /* the slice this launch updates, [i0, i1) */
  uint64_t chunk;              /* sources per part (nsplit > 1) */
  double c;                    /* drift coefficient x dt */
  double c2;                   /* HMF with fuse: a second drift, by c2 after c */
  double d;                    /* kick coefficient x dt */
  double eps;                  /* softening */
  int32_t model;               /* SP_LRMD_* */
  int32_t nblocks;             /* blocks of the reduction pass; systems side by
                                  side: blocks a system (below) */
  int32_t slot;                /* HMF: the slot this pass writes */
  int32_t kslot;               /* HMF: the slot the kick reads */
  int32_t kick;                /* HMF: 1 to kick (by d) first */
  int32_t fuse;                /* HMF: 1 to drift by c2 after c */
  int32_t nsplit;              /* ring, gravity2d: parts of the sources */
  int32_t slice;               /* this slice's index */
  int32_t nslice;              /* slices of the system */
  int32_t pad_;
  /* the fused pair pass (sp_lrmd_pairs_fused_kernel): after the kick, the
   * drift by c (and c2 with fuse) and what the next pass reads, into w2 */
  SP_DPTR(sp_lrmd_real) w2;    /* 2 n: w of the drifted positions */
  SP_DPTR(unsigned int) tcount; /* nsplit > 1: parts finished per tile of targets */
  /* the check of the state: every drift pass flags a particle whose momentum
   * or position is non-finite after it -- bad[0] the first step at which one
   * was, bad[1] the least 2 i + (momentum finite) at that step (all ones:
   * none) */
  uint64_t step;               /* the step this pass belongs to (0: the start) */
  SP_DPTR(unsigned long long) bad;
  /* Systems side by side (one device, one slice each: lrmd()'s replicas
   * and conditions in one launch): system s's arrays start s sys_stride
   * particles into q0, q1, p0, p1 (and 2 s sys_stride into w and w2), its
   * block sums s sys_partial doubles into partial, its magnetisations
   * s nslice SP_LRMD_SLOTS 2 doubles into sums, its counter at count + s,
   * its flag at bad + 2 s, and (ring, gravity2d) its parts' force sums
   * s nsplit 2 n doubles into fpart and its part counters s tiles into
   * tcount.  A launch over the systems has nblocks blocks a system, system
   * by system (block b of system s is block s nblocks + b), each doing what
   * block b does in a launch of that system alone (the HMF pass's kernel
   * for systems, the record's kernel, and in the module compiled with
   * SP_LRMD_SYSTEMS every ring and gravity2d pass).  One system:
   * sys_stride and sys_partial are unused. */
  uint64_t sys_stride;
  uint64_t sys_partial;
} sp_lrmd_kargs;

SP_STATIC_ASSERT(sizeof(sp_lrmd_kargs) == 224, "sp_lrmd_kargs layout");

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

/* What the draw kernel (sp_lrmd_start_kernel) reads: pass 0 draws the raw
 * coordinates into q0, q1, p0 and writes each block's sums; pass 1 shifts
 * by (shift0, shift1) or, for the waterbag, sums the squared shifted
 * momenta; pass 2 (waterbag) writes the momenta shifted and scaled. */
typedef struct {
  uint64_t seed;
  uint64_t n;
  uint64_t replica;            /* the replica (global, 0-based) whose streams draw it */
  double a, b;                 /* the start's parameters (lrmd_start.h) */
  double shift0, shift1;       /* pass 1 and 2: the means subtracted */
  double scale;                /* pass 2: the factor of the momenta */
  int32_t kind;                /* SP_LRMD_START_* */
  int32_t pass;
  SP_DPTR(double) q0;
  SP_DPTR(double) q1;
  SP_DPTR(double) p0;
  SP_DPTR(double) partial;     /* blocks x SP_LRMD_START_NSUMS */
  SP_DPTR(const double) cdf;   /* hmf_equilibrium(): SP_LRMD_VM_GRID + 1 values */
  SP_DPTR(const double) grid;  /* the angles they belong to */
  SP_DPTR(const int32_t) guide; /* SP_LRMD_VM_GUIDE first intervals */
} sp_lrmd_start_kargs;

SP_STATIC_ASSERT(sizeof(sp_lrmd_start_kargs) == 128, "sp_lrmd_start_kargs layout");

/* The same starts drawn by the many-body engine (sde_run()'s model with n
 * elements, a start given as a recipe: mb_recipe.cu's sp_mb_recipe_kernel,
 * src/gpu/sp_gpu_mb_recipe.c) into one system's states, nx rows of npad in
 * the working precision (float when `single`): rows (theta, p) or (x, y,
 * px, py), the padding left alone.  Every pass draws the raw numbers again
 * (nothing but the states is kept between the passes, which are those of
 * sp_lrmd_start_kernel and the CPU's); pass 0 writes the raw numbers, and
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
