/* sp_mb.h: the engine of a many-body user model (sde_run(n = ) with a model
 * of mean(), sum(), pairs() or lattice neighbours).  The model's physics is
 * compiled at run time: on the CPU as a shared object whose entries
 * (mb_args.h: sp_mb_advance_fn, sp_mb_observe_fn) this engine calls once per
 * system per round; on the GPU as the kernels of mb.cu (src/gpu/sp_gpu_mb.c).
 * No R API. */
#ifndef SP_MB_H
#define SP_MB_H

#include <stddef.h>
#include <stdint.h>

#include "mb_args.h"
#include "sp_hooks.h"
#include "sp_run.h"

typedef struct {
  sp_mb_job job;
  uint64_t seed;
  const double *par; /* ncond x np */
  size_t npar;
  const double *epar; /* systems x ne x n, or ne x n (job.epar_shared) */
  size_t nepar;
  const double *x0; /* systems x nx x n, or ncond x nx, or ncond x nx x n (job.x0_cond 0, 1,
                       3), or systems x 9, their recipes (4: sp_mb_recipe.h) */
  size_t nx0;
  const char *const *names; /* nx states then no observables (messages) */
  size_t nnames;
  void *advance, *observe; /* the compiled model's CPU entries (NULL on the GPU) */
  /* GPU, one system in slices (src/gpu/sp_gpu_mb.c): the other elements an
   * element's pass reads, as the elements on each side of a slice's range it
   * needs from the other slices (0: none, a mean field; n or more: all of
   * them, pairs; a lattice: its reach, on a square lattice (reach + 1) L2 - 1)
   * and whether they wrap around (ring, square: 1; chain: 0) */
  uint64_t slice_halo;
  int64_t slice_wrap;
  /* GPU: the slices the one system is cut into, one a device (R's
   * sde_mb_gpu_slices(); 1: the devices share the systems) */
  uint64_t slices;
  /* the graph of edges() (job.nnz > 0): compressed rows of in-neighbours,
   * rowptr n + 1 offsets, col the 0-based neighbours ascending in each row,
   * gw their weights (empty when job.graph_unit) */
  const int *rowptr, *col;
  size_t nrowptr, ncol;
  const double *gw;
  size_t ngw;
  /* GPU, starts drawn from recipes (job.x0_cond 4, sp_mb_recipe.h): the key
   * of the module of their draw (mb_recipe.cu; nstart_key 1, else 0) */
  const char *const *start_key;
  size_t nstart_key;
} sp_mb_args;

typedef struct {
  double *x;      /* the final states: systems x nx x n */
  double *rec;    /* observables: systems x nrec x no (records, trajectories) */
  double *traj;   /* states of the kept systems: keep x nrec x nx x n */
  double *value;  /* passage: the time of each system's event (or of its censoring) */
  int *status;    /* passage: SP_MB_* status */
  double *steps;  /* steps each system made in this call */
  double *rdf;    /* output rdf: each system's pair counts by distance (systems x rdf_bins),
                     summed over the records */
  double *hist;   /* job.hist_bins > 0: each record's histogram of state job.hist_state on
                     [0, 2 pi) (systems x nrec x hist_bins counts; 0 until reached) */
  double *pmax;   /* starts drawn from recipes (job.x0_cond 4): each system's largest
                     |momentum| of its start */
  uint64_t rec_done, useful, finished;
} sp_mb_out;

#define SP_MB_ADVANCE(a) ((sp_mb_advance_fn)(uintptr_t)(a)->advance)
#define SP_MB_OBSERVE(a) ((sp_mb_observe_fn)(uintptr_t)(a)->observe)

/* Systems of a run. */
#define SP_MB_SYSTEMS(job) ((job)->ncond * (job)->replicas)

/* The random draws of a start or element parameter (R/sde-mb-run.R,
 * src/r_mb.c): draw site d of D an element, elements 0..n-1 of the global
 * replicas reps[0..nr-1] of condition cond, block i D + d of stream cond 2^40
 * + r under `purpose`; kind 0 uniform on (0, 1), 1 standard normal, 2
 * standard Cauchy; into out (element i of replica r at r n + i), on nth
 * threads (the numbers do not depend on them). */
void sp_mb_draws(uint64_t key, uint32_t purpose, uint64_t cond, const double *reps, uint64_t nr,
                 uint64_t n, uint64_t D, uint64_t d, int kind, double *out, int nth);

int sp_mb_prepare(void *job);
void sp_mb_out_init(const void *job, void *out);
void sp_mb_stack(double *y, const double *const *src, const uint64_t *len, uint64_t n,
                 uint64_t nv, uint64_t nrep, uint64_t ncond, int nth);
/* The parameters and element parameters of system s. */
const double *sp_mb_par(const sp_mb_args *a, uint64_t s);
const double *sp_mb_ep(const sp_mb_args *a, uint64_t s);
/* What the compiled model's entries read besides the job (the graph), and
 * for an observation of system s the counts of g(r) it adds to. */
sp_mb_ext sp_mb_ext_of(const sp_mb_args *a, const sp_mb_out *o, uint64_t s);
/* The Philox stream of system s. */
uint64_t sp_mb_stream(const sp_mb_job *job, uint64_t s);
/* The error of a non-finite system: system s, step k (of the call), what
 * (element << 8 | state). */
int sp_mb_not_finite(const sp_mb_args *a, uint64_t s, uint64_t k, uint64_t what);

int sp_mb_cpu(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info);
/* The passes of one system that ran on several threads (sp_mb_ext's team)
 * since the package was loaded: for the tests. */
double sp_mb_team_runs(void);

#endif
