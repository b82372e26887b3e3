/* lrmd_args.h: what the long-range MD engine's host code hands its kernels
 * (lrmd.cu), one definition for host and device (the static assert checks
 * that both compilers agree on the layout).
 *
 * One system of n particles.  Positions and momenta are double, stored as
 * coordinate arrays: q0 (the angle theta for HMF and ring, x for gravity2d),
 * q1 (y, gravity2d only), p0, p1 likewise.  w0, w1 hold what the force pass
 * reads of every particle, in the working precision (sp_lrmd_real): sin and
 * cos of theta (HMF, ring) or x and y (gravity2d). */
#ifndef SP_LRMD_ARGS_H
#define SP_LRMD_ARGS_H

#include "sp_common.h"

/* Models (the `model` argument). */
enum { SP_LRMD_HMF = 0, SP_LRMD_RING = 1, SP_LRMD_GRAVITY2D = 2 };

/* Doubles per block in the partial-sums array: the HMF magnetisation
 * (sum cos, sum sin) after a drift, or a record's kinetic energy,
 * potential sum and (sum cos, sum sin) or (virial sum, 0). */
#define SP_LRMD_NSUMS 4

typedef struct {
  SP_DPTR(double) q0;
  SP_DPTR(double) q1;
  SP_DPTR(double) p0;
  SP_DPTR(double) p1;
  SP_DPTR(sp_lrmd_real) w0;
  SP_DPTR(sp_lrmd_real) w1;
  SP_DPTR(double) partial;     /* nblocks x SP_LRMD_NSUMS block partial sums */
  SP_DPTR(double) sums;        /* 4 x 2: the HMF sums (cos, sin) after drift k of a
                                  step, written by its last block (slot k) */
  SP_DPTR(unsigned int) count; /* blocks finished (last-block-done) */
  uint64_t n;                  /* particles */
  uint64_t i0, i1;             /* the slice this device updates, [i0, i1) */
  double c;                    /* drift coefficient x dt */
  double d;                    /* kick coefficient x dt */
  double eps;                  /* softening */
  int32_t model;               /* SP_LRMD_* */
  int32_t nblocks;             /* blocks of the reduction pass */
  int32_t stage;               /* drift k = 0 .. 3 of a Yoshida step */
  int32_t kick;                /* HMF: 1 to kick (by d, from slot stage - 1) first */
} sp_lrmd_kargs;

SP_STATIC_ASSERT(sizeof(sp_lrmd_kargs) == 136, "sp_lrmd_kargs layout");

#endif /* SP_LRMD_ARGS_H */
