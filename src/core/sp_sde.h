/* sp_sde.h: the engine of a user's SDE model (sde_run()).  The model's
 * physics is compiled at run time: on the CPU as a shared object whose
 * entries (sde_args.h: sp_sde_lanes_fn, sp_sde_advance_fn,
 * sp_sde_observe_fn) this engine calls for batches of SP_SDE_W paths (the
 * model's vector loop) and once per path and record; on the GPU as the kernels of sde.cu
 * (src/gpu/sp_gpu_sde.c).  No R API. */
#ifndef SP_SDE_H
#define SP_SDE_H

#include <stdint.h>

#include "sde_args.h"
#include "sp_hooks.h"
#include "sp_run.h"

/* A run, as the generic entry reads it by name (src/models/sde.c). */
typedef struct {
  sp_sde_job job; /* the scalars the kernel and the compiled model share */
  uint64_t seed;
  const double *par; /* ncond x np (the model's parameters, then the derived ones) */
  size_t npar;
  const double *init; /* ncond x nx */
  size_t ninit;
  const int *init_vec; /* nx: -1, or the column of init_vals */
  size_t ninit_vec;
  const double *init_vals; /* columns of n starts, or of ncond n (sde_args.h) */
  size_t ninit_vals;
  const int *hist_var; /* nhist: the variable of each histogram */
  size_t nhist_var;
  const double *hist_off; /* nhist + 1: its breaks in `breaks` (whole numbers) */
  size_t nhist_off;
  const double *breaks;
  size_t nbreaks_len;
  const double *traj_slot; /* nrec (keep > 0): the slot of each record in a kept path's
                              * trajectory (0 .. ntraj - 1; -1 not kept); records sharing a
                              * slot leave the last one reached there */
  size_t ntraj_slot;
  /* passage, a continuation (job.nrun > 0): path q of the call is the path
   * run_path[q] (0-based over conditions x replicas, increasing), from step
   * run_k[q] and the record run_x[q SP_SDE_XS(nx) ..] (nrun each) */
  const double *run_path;
  size_t nrun_path;
  const double *run_k;
  size_t nrun_k;
  const double *run_x;
  size_t nrun_x;
  const char *const *names; /* nx + no variable names (messages) */
  size_t nnames;
  void *advance, *observe; /* the compiled model's CPU entries (NULL on the GPU) */
  void *lanes;             /* its vector loop over a batch's paths (sp_sde_lanes_fn) */
} sp_sde_args;

typedef struct {
  /* passage: one per path */
  double *value;
  int *status;
  double *state; /* total x nx (NULL unless job->save_state) */
  /* the rows of the paths not stopped (job->hold; SP_SDE_HS(nx) each, in
   * no particular order: the host sorts them by q), and their count */
  double *held;
  uint64_t nheld;
  /* fixed length: ncond x nrec x nvar */
  double *mom_n, *mom_mean, *mom_m2;
  double *hist; /* ncond x nrec x cells */
  double *traj; /* ncond x keep x ntraj x nvar (NaN where no record was reached) */
  uint64_t rec_done;
  uint64_t useful, finished;
} sp_sde_out;

/* The compiled model's entries of a run. */
#define SP_SDE_ADVANCE(a) ((sp_sde_advance_fn)(uintptr_t)(a)->advance)
#define SP_SDE_OBSERVE(a) ((sp_sde_observe_fn)(uintptr_t)(a)->observe)
#define SP_SDE_LANES(a) ((sp_sde_lanes_fn)(uintptr_t)(a)->lanes)

/* After the job is read: the lengths agree (the descriptor's prepare). */
int sp_sde_prepare(void *job);
/* Outputs' initial values. */
void sp_sde_out_init(const void *job, void *out);

/* Variables recorded: states then observables. */
#define SP_SDE_NVAR(job) ((job)->nx + (job)->no)

/* The path (over the call's conditions x replicas) of the call's path q. */
#define SP_SDE_PATH(a, q) ((a)->job.nrun > 0 ? (uint64_t)(a)->run_path[q] : (uint64_t)(q))

/* The start of path p (0-based over the call's conditions x replicas) into
 * its record x (SP_SDE_XS(nx): the states, and the run of coarse steps, 0). */
void sp_sde_start(const sp_sde_args *a, uint64_t p, double *x);
/* Cells of a record's histograms, and the offset of histogram h's. */
int64_t sp_sde_hist_cells(const sp_sde_args *a, int64_t h);
/* Count value v in histogram h of cells `cells` (below, bins, above). */
int64_t sp_sde_hist_cell(const sp_sde_args *a, int64_t h, double v);
/* Combine tile statistics (ntiles x nvar x 3: n, mean, M2; tiles of a
 * condition consecutive, tpc per condition) of record `rec` into out, in
 * tile order. */
void sp_sde_tiles_combine(const sp_sde_job *job, const double *tiles, uint64_t tpc,
                          uint64_t rec, sp_sde_out *out);
/* The error of a non-finite path: path p, step k, state `what`. */
int sp_sde_not_finite(const sp_sde_args *a, uint64_t p, uint64_t k, int what);
/* The error of a path whose state stopped resolving its increments
 * (sde_engine.h, SP_SDE_STALLED): path p, step k, state `what`. */
int sp_sde_stalled(const sp_sde_args *a, uint64_t p, uint64_t k, int what);
/* One of the two (stalled: 1 for sp_sde_stalled). */
int sp_sde_path_failed(const sp_sde_args *a, uint64_t p, uint64_t k, int what, int stalled);

/* Steps in a row with a coarse increment that stop a path: sde_engine.h's
 * SP_SDE_STALL_STEPS (messages). */
#define SP_SDE_STALL_STEPS_C 65536u

int sp_sde_cpu(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info);

#endif
