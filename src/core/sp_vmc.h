/* sp_vmc.h: variational Monte Carlo of liquid 4He (paper 002) on the CPU;
 * the GPU engine (src/gpu/sp_gpu_vmc.c) has the same contract.
 *
 * Walkers are Markov chains (he4_vmc.h).  A call runs `nwalkers` walkers
 * in each of `ncond` conditions (pair parameters: a sweep over density and
 * b), condition-major: walker w of the call (0-based) is walker
 * walker0 + w % nwalkers of condition w / nwalkers, and draws from stream
 * sp_vmc_walker_stream() (sp_stream_replica(condition, walker); condition
 * 0's streams are the walkers' numbers, as before sweeps): its random
 * numbers, hence its chain, depend only on (seed, condition, walker, moves
 * made before this call), never on threads, devices or chunks.  A call runs `equilibration` unrecorded sweeps (the step
 * tuned during them when `tune`), then `blocks` blocks of `block_sweeps`
 * sweeps, measuring every `measure_every` sweeps; a block's row holds the
 * means of its measurements and its acceptance.
 *
 * The interrupt rule: finished blocks are valid; `done[w]` counts them and
 * the state (coordinates, step, moves) is that at the end of the last
 * finished block (or the start, before the first), so that a call that
 * continues it gives exactly the chain of one uninterrupted call. */
#ifndef SP_VMC_H
#define SP_VMC_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "he4_args.h" /* inst/cuda: shared with the kernels */

typedef struct {
  sp_he4_pair *conds;  /* ncond conditions: b, L, rc = L/2 (set by the model), Jastrow form */
  int ncond;
  int n;               /* atoms */
  int nwalkers;        /* walkers of this call per condition */
  uint64_t walker0;    /* global index (in its condition) of each condition's walker 0 */
  uint64_t seed;
  uint64_t equilibration, blocks, block_sweeps, measure_every;
  int tune;            /* tune the step during equilibration */
  double target;       /* the acceptance the tuning aims at (0 < target < 1) */
  int single;          /* 1: mixed precision (float coordinates and pair terms) */
  int nbins;           /* g(r) histogram bins over [0, L/2); 0: none */
  int usum;            /* GPU: the kernel variant keeps each atom's sum of u
                        * (he4_vmc.cu, SP_VMC_USUM); the CPU ignores it */
} sp_vmc_job;

/* Walkers of the whole call (every condition): the length of the outputs'
 * walker dimension below. */
#define SP_VMC_WALKERS(job) ((job)->ncond * (job)->nwalkers)

typedef struct {
  double *coords; /* walkers x n x 3 (x, y, z of atom 0, atom 1, ...), in: the
                   * start; out: the state after the last finished block */
  double *step;   /* walkers: in: the start; out: as coords */
  double *moves;  /* walkers: trial moves made before (in) and after (out) */
  double *block;  /* walkers x blocks x SP_VMC_NOBS, NaN where unfinished */
  int *done;      /* walkers: blocks finished */
  double *hist;   /* walkers x nbins pair counts over the recorded
                   * measurements (NULL when nbins = 0) */
} sp_vmc_out;

/* Start positions of n atoms in a box of side L for the walker of Philox
 * stream `stream` (sp_vmc_walker_stream()): an fcc lattice of k^3 cells when
 * n = 4 k^3; else the smallest fcc lattice with at least n sites, with the
 * vacancies drawn from the walker's stream (purpose SP_PURPOSE_VMC_START).
 * coords: n x 3. */
void sp_vmc_lattice(int n, double L, uint64_t seed, uint64_t stream, double *coords);

/* The first walker (1-based) of `nwalkers` (coordinates as sp_vmc_out's,
 * wrapped into the box of side L) with two atoms closer than d, minimum
 * image, in *walker, or 0; linear time in the atoms, walkers on nth
 * threads (the answer does not depend on them).  SP_OK or SP_ERR_NOMEM. */
int sp_vmc_close_pair(const double *coords, int n, int nwalkers, double L, double d, int nth,
                      int *walker);
/* The first (1-based) of `len` coordinates that is not a number in [0, hi]
 * (NaN, infinite or outside), or 0. */
size_t sp_vmc_coords_outside(const double *coords, size_t len, double hi);

/* A 64-bit fingerprint of a walkers' state as he4_vmc() hands it back
 * (nparts walkers of `per` coordinates, and `extra` values: the box sides,
 * McMillan parameters and conditions it was checked against), not 0 (0:
 * out of memory).  Not cryptographic: it tells a state the package made
 * and did not change since from one that was changed, so that the
 * close-pair search of an unchanged one is skipped (R/he4-vmc.R).  The same
 * value whatever the threads. */
uint64_t sp_vmc_fingerprint(const double *coords, size_t per, size_t nparts, const double *extra,
                            size_t nextra, int nth);

/* Blocks NaN, no block done, histogram 0 (both engines start so). */
void sp_vmc_out_init(const sp_vmc_job *job, sp_vmc_out *out);

/* Walker w (of this call, every condition) was stopped by a non-finite state after sweep
 * `sweep` (1-based, of this call): a coordinate of atom `atom` (what =
 * SP_VMC_BAD_COORDINATE) or a measurement's energy (SP_VMC_BAD_POTENTIAL,
 * SP_VMC_BAD_KINETIC).  SP_ERR_NOT_FINITE with the message.  Both engines
 * check the coordinates after every sweep and every measurement, and name
 * the first sweep, then the lowest walker. */
int sp_vmc_not_finite(const sp_vmc_job *job, int w, uint64_t sweep, int what, int atom);

/* job and out: an sp_vmc_job and an sp_vmc_out with its outputs initialised
 * (the descriptor's entries, src/models/vmc.c): _f mixed, _d double. */
int sp_vmc_cpu_run_f(const void *job, void *out, int nth, const sp_hooks *hooks,
                     sp_run_info *info);
int sp_vmc_cpu_run_d(const void *job, void *out, int nth, const sp_hooks *hooks,
                     sp_run_info *info);

#endif
