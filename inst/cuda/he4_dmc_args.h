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
  SP_DMC_ENERGY_RAW = 7, /* the mixed estimator of E/N without the population-control
                            reweighting (SP_DMC_ENERGY is reweighted) */
  SP_DMC_RW_WEIGHT = 8,  /* mean over the generations of the reweighted total weight
                            sum_k Pi_g W_k: a block's weight in the run's estimate (the
                            reweighted energy of several blocks is the mean of their
                            SP_DMC_ENERGY weighted by it, not their plain mean) */
  SP_DMC_RW_TIME = 9,    /* mean over the generations of N sum tau over the window (the
                            reweighting's rw_b): with the population's e_best it puts the
                            weights of populations with other e_best on one scale,
                            exp((e0 - e_best) rw_time) */
  SP_DMC_NOBS = 10
};

/* A population's state vector between calls (R's `pop`): e_trial, e_ref,
 * gen, size, overflow, r2_accepted, r2_proposed, e_best, sigma2, rw_a, rw_b
 * (sp_dmc_pop_load). */
#define SP_DMC_POPVARS 11

/* Most copies a walker makes at a branching (a cap that a run with a sane
 * time step never meets: weights near 1). */
#define SP_DMC_MAX_COPIES 8

/* The largest |ln| of the reweighting factor of a generation (he4_dmc.h):
 * exp() stays finite. */
#define SP_DMC_LNPI_MAX 700.0

/* A population between generations and calls (one per population; the
 * host's state vectors). */
typedef struct {
  double e_trial;  /* E_T / N of the next generation, K */
  double e_ref;    /* E_ref / N, K */
  uint64_t gen;    /* generations of the population so far (its Philox position) */
  int32_t size;    /* walkers */
  int32_t pad_;
  double overflow; /* walkers dropped so far because the population reached capacity */
  double r2_acc;   /* the population's history: sum over moves of p |xi|^2 (p the acceptance
                      probability, xi the diffusion's normals) ... */
  double r2_prop;  /* ... and of |xi|^2: the effective time step is dt r2_acc / r2_prop */
  double e_best;   /* the constant E_best / N of the reweighting factors (he4_dmc.h); NaN:
                      set from e_ref at the start */
  double sigma2;   /* the variance of the per-atom local energy in the weights (relaxing
                      as e_ref does); NaN: set from the walkers at the start */
  double rw_a;     /* the sums over the last T_p generations of N tau e_T ... */
  double rw_b;     /* ... and of N tau (the ring of sp_dmc_account holds the terms) */
} sp_dmc_pop;

SP_STATIC_ASSERT(sizeof(sp_dmc_pop) == 88, "sp_dmc_pop layout");

/* The guide's short-range core (he4_dmc.h, sp_dmc_pair_terms): for r^2 <
 * rj2 the McMillan exponent -(1/2)(b/r)^5 is replaced by the even quartic
 * c0 + c1 r^2 + c2 r^4 that meets it with its value, slope and curvature at
 * r_j (coefficients from R, he4_dmc()); on = 0: McMillan's form everywhere.
 * And the pair potential: pot = SP_DMC_POT_AZIZ (he4.h's HFD-B(HE)) or
 * SP_DMC_POT_LJ, 4 lj_eps ((lj_sigma/r)^12 - (lj_sigma/r)^6) (K, A). */
typedef struct {
  double rj2, c0, c1, c2;
  double lj_eps, lj_sigma;
  int32_t on;
  int32_t pot;
} sp_dmc_guide;

enum { SP_DMC_POT_AZIZ = 0, SP_DMC_POT_LJ = 1 };

SP_STATIC_ASSERT(sizeof(sp_dmc_guide) == 56, "sp_dmc_guide layout");

/* The population control and the weights' parameters, the same for the CPU
 * job and the kernels' arguments. */
typedef struct {
  double dt;          /* imaginary time step, K^-1 */
  double target;      /* target population */
  double feedback;    /* 1 / feedback time (K): E_T = E_ref - feedback ln(P / target) / N;
                         0: no feedback */
  double ref_time;    /* relaxation time (K^-1) of E_ref and sigma2 */
  double energy_cut;  /* kappa of the weights' energy limit (he4_dmc.h); 0: none */
  double drift_limit; /* A of the drift limit (he4_dmc.h); 0: none */
  int32_t n;          /* atoms */
  int32_t effective;  /* 1: the weights' time step is the walk's effective one */
  int32_t reweight;   /* T_p: generations in the reweighting product (>= 1) */
  int32_t pad_;
} sp_dmc_ctl;

SP_STATIC_ASSERT(sizeof(sp_dmc_ctl) == 64, "sp_dmc_ctl layout");

/* A population's state vector (SP_DMC_POPVARS: e_trial, e_ref, gen, size,
 * overflow, r2_acc, r2_prop) from and to the hosts' arrays. */
SP_FN void sp_dmc_pop_load(sp_dmc_pop *q, const double *pv) {
  q->e_trial = pv[0];
  q->e_ref = pv[1];
  q->gen = (uint64_t)pv[2];
  q->size = (int32_t)pv[3];
  q->overflow = pv[4];
  q->r2_acc = pv[5];
  q->r2_prop = pv[6];
  q->e_best = pv[7];
  q->sigma2 = pv[8];
  q->rw_a = pv[9];
  q->rw_b = pv[10];
}

SP_FN void sp_dmc_pop_store(const sp_dmc_pop *q, double *pv) {
  pv[0] = q->e_trial;
  pv[1] = q->e_ref;
  pv[2] = (double)q->gen;
  pv[3] = (double)q->size;
  pv[4] = q->overflow;
  pv[5] = q->r2_acc;
  pv[6] = q->r2_prop;
  pv[7] = q->e_best;
  pv[8] = q->sigma2;
  pv[9] = q->rw_a;
  pv[10] = q->rw_b;
}

/* Threads of a block of the walker kernels (moves, copies, saves): one
 * warp per walker. */
#define SP_DMC_BLOCK 32
/* Threads of the population kernel (sums, prefix sums, E_T): one block a
 * population. */
#define SP_DMC_POP_THREADS 1024

/* Per walker: U = ln psi, e, v, t (per atom, K), W (weight). */
#define SP_DMC_WSTRIDE 5
/* Per walker and generation: W e_p, W v_p, W t_p, W, p, p |xi|^2, |xi|^2,
 * W s, W s^2 (s the limited energy of the weight; the SP_DMC_GSUMS that a
 * population sums), copies (at SP_DMC_GCOPIES). */
#define SP_DMC_GSTRIDE 10
#define SP_DMC_GSUMS 9
#define SP_DMC_GCOPIES 9
/* A block's sums: W e, W v, W t, W, population, E_T, p, moves, generations,
 * the reweighted Pi W e, Pi W v, Pi W t, Pi W, and the window's N sum tau. */
#define SP_DMC_NACC 14

/* A population on the GPU (device memory; the host reads it after each
 * round). */
typedef struct {
  sp_dmc_pop st;
  uint64_t step;            /* generations of this call */
  double acc[SP_DMC_NACC];  /* the current block's sums */
  int32_t cur;              /* the buffer (0, 1) that holds the walkers */
  int32_t done;             /* blocks finished */
  int32_t dead;             /* 1: died out; 2: a start without a finite energy */
  int32_t save;             /* 1: a block ended this generation: save the state */
  int32_t active;           /* 1: this generation ran (the kernels after the population kernel) */
  int32_t prev;             /* the population before this generation's branching */
} sp_dmc_gpop;

SP_STATIC_ASSERT(sizeof(sp_dmc_gpop) == 232, "sp_dmc_gpop layout");

/* Dynamic shared memory of a walker kernel: the proposal's coordinates, the
 * displacements and the proposal's gradient, 3 n doubles each. */
SP_FN uint64_t sp_dmc_shared_bytes(int32_t n) { return 9ull * (uint64_t)n * sizeof(double); }

/* What the host hands the kernels (he4_dmc.cu).  Device arrays of the
 * device's populations; population q's walker slot k at q cap + k in each
 * buffer; coordinates and gradients x[n] y[n] z[n] per walker (3 n
 * doubles); buffer b of xyz at b npop cap 3n (likewise grad, wlk). */
typedef struct {
  uint64_t seed;
  uint64_t pop0;          /* global number (0-based) of the device's population 0 */
  uint64_t steps;         /* generations per population in this call */
  uint64_t equilibration, blocks, block_steps;
  sp_he4_pair pair;
  sp_dmc_guide guide;
  sp_dmc_ctl ctl;
  int32_t cap, npop, branching, accept;
  SP_DPTR(double) xyz;       /* [2][npop cap 3n] */
  SP_DPTR(double) grad;      /* [2][npop cap 3n] */
  SP_DPTR(double) wlk;       /* [2][npop cap SP_DMC_WSTRIDE] */
  SP_DPTR(double) gstat;     /* npop cap SP_DMC_GSTRIDE */
  SP_DPTR(int32_t) offs;     /* npop (cap + 1) */
  SP_DPTR(sp_dmc_gpop) pops; /* npop */
  SP_DPTR(double) block;     /* npop blocks SP_DMC_NOBS */
  SP_DPTR(double) saved_xyz; /* npop cap n 3: the state after the last block (R's layout) */
  SP_DPTR(double) saved_w;   /* npop cap */
  SP_DPTR(double) saved_pop; /* npop SP_DMC_POPVARS (sp_dmc_pop_store) */
  SP_DPTR(double) hist;      /* npop 2 T_p: the reweighting's rings (sp_dmc_account) */
  SP_DPTR(double) saved_hist; /* npop 2 T_p: the rings after the last block */
} sp_dmc_kargs;

SP_STATIC_ASSERT(sizeof(sp_dmc_kargs) == 312, "sp_dmc_kargs layout");

#endif /* SP_HE4_DMC_ARGS_H */
