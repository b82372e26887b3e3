/* kuramoto_args.h: what the Kuramoto engine's host code hands its kernels
 * (kuramoto.cu), one definition for host and device (copied byte for byte;
 * the static assert checks that both compilers agree on the layout).
 *
 * Systems: system s (0-based) of a launch is global system sys0 + s; global
 * system g is replica g mod nrep (plus replica0) of condition g / nrep.  Each
 * system's n oscillators are stored with stride npad = 4 ceil(n / 4), so that
 * a group of four oscillators (one Philox block, one float4 / 2 double2
 * loads) is aligned; the padding oscillators are never counted. */
#ifndef SP_KURAMOTO_ARGS_H
#define SP_KURAMOTO_ARGS_H

#include "sp_common.h"

/* Couplings (the `coupling` argument; "matrix" is dense or sparse). */
enum {
  SP_KUR_MEAN_FIELD = 0, /* O(n) reduction (paper 001, PROG3) */
  SP_KUR_PAIRS = 1,      /* tiled all-pairs sin(x_j - x_i) (PROG2) */
  SP_KUR_DENSE = 2,      /* dense A, column-major n x n */
  SP_KUR_SPARSE = 3      /* A in CSR */
};

/* Integration methods (the `method` argument). */
enum {
  SP_KUR_SRK2 = 0,  /* stochastic Heun (paper 001, Algorithm 2): two stages a step */
  SP_KUR_EULER = 1  /* Euler-Maruyama: one stage a step */
};

/* Natural frequencies: a vector given by the user, one value for all, or
 * the n quantiles of a law drawn by the engine itself (kuramoto.h,
 * sp_kur_omega_law: kuramoto_lorentz(), kuramoto_normal()). */
enum {
  SP_KUR_OMEGA_VECTOR = 0,  /* omega[i] */
  SP_KUR_OMEGA_CONST = 1,   /* centre */
  SP_KUR_OMEGA_LORENTZ = 2, /* centre + scale tan(pi ((i + 1/2) / n - 1/2)) */
  SP_KUR_OMEGA_NORMAL = 3   /* centre + scale Phi^-1((i + 1/2) / n) */
};

/* Threads of a block of every Kuramoto kernel: their __launch_bounds__,
 * tiles and strides, and the host's grids (sp_gpu_kuramoto.c). */
#define SP_KUR_BLOCK 256

/* The start phases of a job (sp_kuramoto_job's `start`). */
enum {
  SP_KUR_START_DRAWN = 0,      /* uniform, drawn from the systems' streams */
  SP_KUR_START_ONE = 1,        /* one vector of n for every system */
  SP_KUR_START_REPLICA = 2,    /* n x nrep, replica r's at r n, for every condition */
  SP_KUR_START_SYSTEM = 3      /* n x systems, a continued run's phases: used as
                                  they are (not reduced again in single precision) */
};

/* One condition of a sweep (the grid of K, beta, theta; R's row table, read
 * by name: K, beta, theta), with what the engines derive from it once
 * (src/models/kuramoto.c's prepare): the kernels read their system's row
 * once per thread. */
typedef struct {
  double K;     /* coupling strength */
  double beta;  /* friction, the paper's gamma */
  double theta; /* temperature, the paper's T */
  double kn;    /* K / n */
  double ginv;  /* 1 / beta */
  double sigma; /* sqrt(2 theta dt / beta): the noise of a step */
} sp_kuramoto_cond;

SP_STATIC_ASSERT(sizeof(sp_kuramoto_cond) == 48, "sp_kuramoto_cond layout");

/* Doubles per system in the sums array: S, C of the phases x, then S, C of
 * the predictor phases (SRK2's first stage). */
#define SP_KUR_NSUMS 4

typedef struct {
  SP_DPTR(sp_kuramoto_real) x;       /* phases, nsys x npad */
  SP_DPTR(sp_kuramoto_real) xt;      /* predictor phases, or the new phases of an
                                        Euler step (pairs, matrix) */
  SP_DPTR(sp_kuramoto_real) f1;      /* first-stage drift (pairs, matrix) */
  SP_DPTR(const sp_kuramoto_real) omega; /* npad natural frequencies, or 0: all
                                            equal to omega0 */
  SP_DPTR(const sp_kuramoto_cond) cond; /* the conditions (kn, ginv, sigma) */
  SP_DPTR(const sp_kuramoto_real) A; /* dense A (column-major) or CSR values */
  SP_DPTR(const int) rowptr;         /* CSR: n + 1 */
  SP_DPTR(const int) col;            /* CSR: column of each value */
  SP_DPTR(double) sums;              /* nsys x SP_KUR_NSUMS */
  SP_DPTR(double) partial;           /* nsys x bps x 2: block partial sums */
  SP_DPTR(unsigned int) count;       /* nsys: blocks finished (last-block-done) */
  SP_DPTR(double) rec;               /* nsys x nrec x 2: r, psi */
  SP_DPTR(unsigned int) hist;        /* nsys x nrec x bins, or 0 */
  uint64_t seed;
  uint64_t n, npad, ng;              /* oscillators, padded, groups of 4 */
  uint64_t nrep, replica0, sys0, nsys;
  uint64_t step;                     /* steps of the chain done before this launch
                                        (a continued run's start counted) */
  uint64_t record_every, nrec;
  uint64_t rec0;                     /* the chain's record (step / record_every) that
                                        is this run's record 0 */
  double dt;
  int32_t stage;                     /* 1: predictor, 2: corrector (SRK2), 3: an
                                        Euler step, 0: measure */
  int32_t bins;
  int32_t bps;                       /* blocks per system (reductions) */
  int32_t gpt;                       /* groups of 4 per thread (mean field) */
  SP_DPTR(unsigned long long) bad;   /* 2: the first step at which a system's phases
                                        became non-finite, and the lowest such system
                                        (global) at that step; all ones: none */
  double omega0;                     /* the frequency of all when omega is 0 */
  double omega_centre, omega_scale;  /* the law of sp_kur_omega_kernel */
  int32_t omega_law;                 /* SP_KUR_OMEGA_* */
  int32_t unused;
} sp_kuramoto_kargs;

SP_STATIC_ASSERT(sizeof(sp_kuramoto_kargs) == 264, "sp_kuramoto_kargs layout");

#endif /* SP_KURAMOTO_ARGS_H */
