/* sp_dmc.h: diffusion Monte Carlo of liquid 4He (issue 35) on the CPU; the
 * GPU engine (src/gpu/sp_gpu_dmc.c) has the same contract.  The physics of
 * a generation is inst/cuda/he4_dmc.h.
 *
 * A call runs `npop` independent populations (global numbers pop0 ..
 * pop0 + npop - 1), each of at most `cap` walkers of n atoms, through
 * `equilibration` unrecorded generations and then `blocks` blocks of
 * `block_steps` generations; a block's row holds the mixed estimates and
 * the population's bookkeeping (SP_DMC_*).  A population's walkers and
 * numbers depend only on (seed, population, its history), never on
 * threads, devices or chunks.
 *
 * State in and out (the interrupt rule as for VMC): `coords` (cap walkers
 * per population, n x 3 each, the first `size` live), `weight` and `pop`
 * (per population SP_DMC_POPVARS doubles: e_trial, e_ref, gen, size,
 * overflow, r2_acc, r2_prop; e_ref NaN: a fresh population, whose e_ref and e_trial start
 * at its weighted mean local energy) hold the state after the last
 * finished block. */
#ifndef SP_DMC_H
#define SP_DMC_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "he4_dmc_args.h" /* inst/cuda: shared with the kernels */

typedef struct {
  sp_he4_pair pair;   /* b, L, form; rc = L/2 set by the model */
  sp_dmc_guide guide; /* the guide's short-range core (he4_dmc_args.h) */
  sp_dmc_ctl ctl;     /* dt, population control, weights (he4_dmc_args.h); ctl.n set by the
                         model */
  int n;              /* atoms */
  int npop;           /* populations of this call */
  int cap;            /* walkers a population can hold */
  uint64_t pop0;      /* global number (0-based) of population 0 */
  uint64_t seed;
  uint64_t equilibration, blocks, block_steps;
  int branching;      /* 0: weights only (no births or deaths) */
  int accept;         /* 1: the Metropolis accept/reject step */
} sp_dmc_job;

typedef struct {
  double *coords; /* npop cap x n x 3 */
  double *weight; /* npop cap */
  double *pop;    /* npop x SP_DMC_POPVARS */
  double *hist;   /* npop x 2 T_p: the reweighting's rings (sp_dmc_account) */
  double *block;  /* npop x blocks x SP_DMC_NOBS, NaN where unfinished */
  int *done;      /* npop: blocks finished */
} sp_dmc_out;

void sp_dmc_out_init(const sp_dmc_job *job, sp_dmc_out *out);

int sp_dmc_cpu_run(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info);

/* Tests: the normals (3 n, atom-major) and the two uniforms of generation
 * gen of stream `stream` (he4_dmc.h). */
void sp_dmc_draws(uint64_t seed, uint64_t stream, uint64_t gen, int n, double *z, double *u);

#endif
