/* sp_driven.h: ensembles of driven Brownian particles (paper 001, Eq. (1);
 * inst/cuda/driven.h) on the CPU; the GPU engine (src/gpu/sp_gpu_driven.c)
 * has the same contract.
 *
 * Every path runs the same number of steps, periods spp, so the ensemble
 * advances in lockstep: a round moves every path by the same number of
 * steps.  Paths are numbered p = c n + r (condition c, replica r = 0..n-1
 * of this call); path p draws from Philox stream conds[c].stream0 +
 * replica0 + r, so its result depends only on (seed, condition, replica):
 * any thread count, device count or chunking gives the same numbers.
 *
 * Per path the engine reports the end state (x, v), x at the end of the
 * transient (step ktr, a whole number of periods; NaN if not reached) and
 * the sum of v^2 over the steps after it; the time averages follow from
 * these (<v> = (x - xtr) / ((steps - ktr) dt)).  An interrupt stops every
 * path at the same step `steps`, so the partial result is that of a shorter
 * run.  A path whose state (x, v or the v^2 sums) becomes non-finite fails
 * the run with SP_ERR_NOT_FINITE (sp_driven_not_finite): the state is
 * checked at the end of every round (launch), and the lowest path found
 * non-finite at the first check that finds one is named.
 *
 * Continuing (driven_brownian(init = <a result>)): with `resume` (one
 * sp_driven_state per path) the paths start from those states at step k0
 * of a run of `periods` periods in all, the steps and sums going on as in
 * one run (step k uses normal k - 1 of the path's stream); the samples of
 * kept trajectories and of the density are those of the periods ending
 * after k0 (those up to k0 are the previous run's). */
#ifndef SP_DRIVEN_H
#define SP_DRIVEN_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

#include "driven_args.h" /* inst/cuda: shared with the kernel */

typedef struct {
  const sp_driven_cond *conds;
  int ncond;
  const double *drive; /* cos(2 pi j / spp), j = 0 .. spp */
  uint64_t ndrive;     /* spp + 1 */
  uint64_t n;          /* paths per condition */
  uint64_t replica0;   /* first_replica - 1 */
  uint64_t seed;
  uint32_t spp;        /* steps per drive period */
  uint64_t periods;    /* drive periods of a path */
  uint64_t ktr;        /* steps of the transient (a multiple of spp, < periods spp) */
  /* start values (NULL: x uniform on (0, 1), v = 0); length 1 or n (by replica) */
  const double *x0, *v0;
  uint64_t nx0, nv0;
  uint64_t keep_m;     /* trajectories kept: the first keep_m replicas of each condition */
  /* the coarse-grained density over time (out->dens; see sp_driven_kargs in
   * driven_args.h): dens_bins unit bins from dens_lo, 0: none */
  int64_t dens_lo;
  uint32_t dens_bins;
  int heun;            /* 1: srk2, 0: euler */
  int single;          /* 1: float, 0: double */
  uint64_t k0;         /* steps done before (a continuation), < periods spp */
  const sp_driven_state *resume; /* every path's state at k0 (NULL: the starts) */
  uint64_t nresume;
} sp_driven_job;

typedef struct {
  double *x, *v;           /* end state, ncond n */
  double *xtr;             /* x at the end of the transient (NaN: not reached) */
  double *acc2;            /* sum of v^2 over the finished periods after the transient */
  double *s2;              /* and over the current one (a run cut short) */
  double *m, *y;           /* x = m + y, as the engine holds it */
  double *keep_x, *keep_v; /* ncond keep_m (periods + 1) samples, NaN where not reached */
  double *dens;            /* ncond (periods + 1) (dens_bins + 2) counts (or NULL) */
  uint64_t steps;          /* steps done by every path */
} sp_driven_out;

/* Total paths of the job. */
uint64_t sp_driven_paths(const sp_driven_job *job);
/* The start of path p (double, both backends). */
void sp_driven_start(const sp_driven_job *job, uint64_t p, double *x, double *v);
/* Path-steps of the run (from k0). */
double sp_driven_work(const sp_driven_job *job);
/* Index of path p's keep slot 0, or -1 when p is not kept. */
int64_t sp_driven_keep_base(const sp_driven_job *job, uint64_t p);
/* Every output NaN or zero, steps 0. */
void sp_driven_out_init(const sp_driven_job *job, sp_driven_out *out);

/* The failure of path p, found with a non-finite state after `kdone`
 * steps: replays the path on the host (the CPU engine's code, in the job's
 * precision) to name the quantity and the step where it first became
 * non-finite, and returns SP_ERR_NOT_FINITE with that message.  Both
 * backends report through it. */
int sp_driven_not_finite(const sp_driven_job *job, uint64_t p, uint64_t kdone);
void sp_driven_replay_f(const sp_driven_job *job, uint64_t p, uint64_t kmax, uint64_t *step,
                        int *what);
void sp_driven_replay_d(const sp_driven_job *job, uint64_t p, uint64_t kmax, uint64_t *step,
                        int *what);

/* Run on `nth` threads. */
/* job and out: an sp_driven_job and an sp_driven_out with its outputs initialised (the
 * descriptor's entries, src/models/driven.c): _f single, _d double. */
int sp_driven_cpu_run_f(const void *job, void *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);
int sp_driven_cpu_run_d(const void *job, void *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info);

#endif
