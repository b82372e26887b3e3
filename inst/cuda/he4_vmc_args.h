/* he4_vmc_args.h: what the host hands the helium VMC kernel (he4_vmc.cu),
 * one layout for both compilers (sizes checked). */
#ifndef SP_HE4_VMC_ARGS_H
#define SP_HE4_VMC_ARGS_H

#include "he4_args.h"

/* Observables of a block, in this order everywhere (kernel output, CPU
 * output, R columns). */
enum {
  SP_VMC_ENERGY = 0,
  SP_VMC_POTENTIAL = 1,
  SP_VMC_KINETIC_PB = 2,
  SP_VMC_KINETIC_JF = 3,
  SP_VMC_ACCEPTANCE = 4,
  SP_VMC_NOBS = 5
};

/* Threads of a block of sp_vmc_kernel: one warp per walker (the kernel's
 * __launch_bounds__ and lane strides, the host's launch in sp_gpu_vmc.c). */
#define SP_VMC_BLOCK 32

/* Dynamic shared memory of a block: the walker's coordinates x[n] y[n] z[n]
 * in the working precision (single: float, else double). */
/* Dynamic shared memory of a walker: its coordinates x[n] y[n] z[n] in
 * the working precision and, in the kernel variants "_usum" (usum = 1,
 * he4_vmc.cu's SP_VMC_USUM, single precision), before them each atom's sum
 * of u over its partners and after them the trial move's partner terms
 * (n values each). */
SP_FN uint64_t sp_vmc_shared_bytes(int32_t n, int single, int usum) {
  const uint64_t rb = single ? sizeof(float) : sizeof(double);
  return (usum ? 5ull : 3ull) * (uint64_t)n * rb;
}

/* A walker between launches (device memory, one per walker). */
typedef struct {
  double step;      /* rms displacement per coordinate */
  double sum[4];    /* the current block's sums of energy, potential, T_PB, T_JF */
  uint64_t moves;   /* trial moves of the chain so far (its Philox position) */
  uint64_t sweep;   /* sweeps of this call so far */
  uint64_t acc;     /* accepted moves of the current block or tuning period */
  uint64_t tried;   /* tried moves, likewise */
  uint64_t nmeas;   /* measurements in the current block */
  /* a non-finite state stops the walker: the sweep of this call (1-based)
   * after which it was found (0: none), what (SP_VMC_BAD_*, he4_vmc.h) and
   * the atom */
  uint64_t bad_sweep;
  int32_t bad_what, bad_atom;
} sp_vmc_walker_state;

SP_STATIC_ASSERT(sizeof(sp_vmc_walker_state) == 96, "sp_vmc_walker_state layout");

/* One launch runs every walker of a device, of every condition: thread
 * block b is the device's walker b, the job's walker first + b (every
 * condition, condition-major), which finds its condition's pair parameters
 * in the device table `pairs` and its Philox stream by
 * sp_vmc_walker_stream(walker0, per_cond, first + b) -- the same numbers
 * as one launch per condition, in one launch a round whatever the number of
 * conditions of a sweep. */
typedef struct {
  uint64_t seed;
  uint64_t walker0;        /* the job's walker0 (each condition's walker 0) */
  uint64_t equilibration, blocks, block_sweeps, measure_every;
  uint64_t budget;         /* sweeps per walker in this launch, at most */
  double target;           /* the acceptance the tuning aims at (0 < target < 1) */
  int32_t n;               /* atoms */
  int32_t nwalkers;        /* walkers of the device (the arrays below) */
  int32_t tune;            /* tune the step during equilibration */
  int32_t nbins;           /* g(r) bins, 0: none */
  int32_t first;           /* the job's walker of the device's walker 0 */
  int32_t per_cond;        /* walkers per condition (the job's nwalkers) */
  SP_DPTR(const sp_he4_pair) pairs; /* the job's conditions, condition c at c */
  SP_DPTR(void) xyz;       /* working coordinates, SP_REAL, walker w at 3 n w: x[n] y[n] z[n] */
  SP_DPTR(sp_vmc_walker_state) ws;
  SP_DPTR(double) block;   /* nwalkers x blocks x SP_VMC_NOBS */
  SP_DPTR(double) saved;   /* nwalkers x n x 3: the start (the first launch reads it),
                            * then the state after the last finished block */
  SP_DPTR(double) saved_step;  /* nwalkers */
  SP_DPTR(double) saved_moves; /* nwalkers */
  SP_DPTR(int32_t) done;   /* nwalkers: blocks finished */
  SP_DPTR(double) hist;    /* nwalkers x nbins, or 0 */
  SP_DPTR(float) usum;     /* nwalkers x n: each atom's sum of u between launches
                            * (the "_usum" variants, single precision), or 0 */
} sp_vmc_kargs;

SP_STATIC_ASSERT(sizeof(sp_vmc_kargs) == 168, "sp_vmc_kargs layout");

#endif /* SP_HE4_VMC_ARGS_H */
