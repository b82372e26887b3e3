/* he4_dmc_args.h: what the host hands the helium DMC engines (the CPU
 * engine src/core/sp_dmc.c and the kernel he4_dmc.cu), one layout for both
 * compilers (sizes checked). */
#ifndef SP_HE4_DMC_ARGS_H
#define SP_HE4_DMC_ARGS_H

#include "he4_args.h"

/* Observables of a block row, in this order everywhere (CPU, GPU, R). */
enum {
  SP_DMC_ENERGY = 0,     /* mixed estimator of E/N (K) */
  SP_DMC_POTENTIAL = 1,  /* mixed estimator of V/N (K; biased: not an eigen-operator) */
  SP_DMC_KINETIC = 2,    /* mixed estimator of T/N (Pandharipande-Bethe; biased) */
  SP_DMC_POPULATION = 3, /* mean over the generations of the population (weights only:
                            of the total weight) after branching */
  SP_DMC_TRIAL = 4,      /* mean trial energy E_T/N (K) */
  SP_DMC_ACCEPTANCE = 5, /* mean acceptance probability of the moves */
  SP_DMC_WEIGHT = 6,     /* mean over the generations of the total weight of the
                            estimator (before branching) */
  SP_DMC_NOBS = 7
};

/* Most copies a walker makes at a branching (a cap that a run with a sane
 * time step never meets: weights near 1). */
#define SP_DMC_MAX_COPIES 8

/* The reference energy's relaxation per generation (an exponential moving
 * average of the generations' mixed estimates): E_T = E_ref - feedback
 * ln(P / P_target) / (N dt). */
#define SP_DMC_REF_RATE 0.015625

/* A population between generations and calls (one per population; the
 * host's state vectors). */
typedef struct {
  double e_trial;  /* E_T / N of the next generation, K */
  double e_ref;    /* E_ref / N, K */
  uint64_t gen;    /* generations of the population so far (its Philox position) */
  int32_t size;    /* walkers */
  int32_t pad_;
  double overflow; /* walkers dropped so far because the population reached capacity */
} sp_dmc_pop;

SP_STATIC_ASSERT(sizeof(sp_dmc_pop) == 40, "sp_dmc_pop layout");

/* Threads of a block of the move kernel: one warp per walker. */
#define SP_DMC_BLOCK 32
/* Threads of the population kernels (sums, prefix sums, E_T): one block a
 * population. */
#define SP_DMC_POP_THREADS 1024

/* What the host hands the kernels.  Device arrays of the populations of a
 * device; population q's walker slot k at q cap + k; coordinates and
 * gradients x[n] y[n] z[n] per walker (3 n doubles). */
typedef struct {
  uint64_t seed;
  uint64_t pop0;         /* global number (0-based) of the device's population 0 */
  uint64_t gens;         /* generations in this launch sequence (at most) */
  uint64_t equilibration, blocks, block_steps; /* the call's */
  sp_he4_pair pair;
  double dt, target, feedback;
  int32_t n, cap, npop, branching, accept, pad_;
  SP_DPTR(double) xyz;   /* [2][npop cap 3n]: buffer A and B (copies) */
  SP_DPTR(double) grad;  /* [2][npop cap 3n] */
  SP_DPTR(double) wlk;   /* [2][npop cap SP_DMC_WSTRIDE]: U, e, v, t, W */
  SP_DPTR(double) prop;  /* npop cap 3n: the proposal's coordinates */
  SP_DPTR(double) gprop; /* npop cap 3n: the proposal's gradient */
  SP_DPTR(double) gstat; /* npop cap SP_DMC_GSTRIDE: per walker and generation:
                            W e, W v, W t, W, p, copies */
  SP_DPTR(int32_t) offs; /* npop (cap + 1): prefix sums of the copies */
  SP_DPTR(sp_dmc_pop) pops;   /* npop */
  SP_DPTR(double) acc;   /* npop SP_DMC_NACC: the current block's sums */
  SP_DPTR(double) block; /* npop blocks SP_DMC_NOBS */
  SP_DPTR(int32_t) cur;  /* npop: which buffer (0, 1) holds the walkers */
} sp_dmc_kargs;

/* Per walker: U = ln psi, e, v, t (per atom, K), W (weight). */
#define SP_DMC_WSTRIDE 5
#define SP_DMC_GSTRIDE 6
/* A block's sums: W e, W v, W t, W, population, E_T, p, moves, generations. */
#define SP_DMC_NACC 9

SP_STATIC_ASSERT(sizeof(sp_dmc_kargs) == 216, "sp_dmc_kargs layout");

#endif /* SP_HE4_DMC_ARGS_H */
