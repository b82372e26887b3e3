/* .Call glue of sde_run(): the run (sp_sde_job, by name), the parameter
 * and start tables, the compiled model's CPU entries (external pointers of
 * getNativeSymbolInfo()) or the GPU module key, the engine, results back as
 * R vectors. */
#include <stddef.h>
#include <string.h>

#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_sde.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_sde.h"

#define FIELD(name, type) {#name, offsetof(sp_sde_job, name), type}
static const sp_r_field job_fields[] = {
  FIELD(dt, SP_R_DOUBLE),         FIELD(t_max, SP_R_DOUBLE),   FIELD(kmax, SP_R_U64),
  FIELD(n, SP_R_U64),             FIELD(replica0, SP_R_U64),   FIELD(ncond, SP_R_U64),
  FIELD(nx, SP_R_I64),            FIELD(np, SP_R_I64),         FIELD(nw, SP_R_I64),
  FIELD(no, SP_R_I64),            FIELD(heun, SP_R_I64),       FIELD(single, SP_R_I64),
  FIELD(use_stop, SP_R_I64),      FIELD(output, SP_R_I64),     FIELD(record_every, SP_R_U64),
  FIELD(nrec, SP_R_U64),          FIELD(keep, SP_R_U64),       FIELD(save_state, SP_R_I64),
  FIELD(nhist, SP_R_I64),         FIELD(nbreaks, SP_R_I64)};
#undef FIELD

/* An entry of the compiled model: the address of a NativeSymbol. */
static void *sde_symbol(SEXP fns, int i) {
  SEXP p;
  if (TYPEOF(fns) != VECSXP || Rf_length(fns) <= i) return NULL;
  p = VECTOR_ELT(fns, i);
  if (TYPEOF(p) != EXTPTRSXP) return NULL;
  return R_ExternalPtrAddr(p);
}

static SEXP sde_real(R_xlen_t n, double **ptr, double fill) {
  SEXP v = Rf_allocVector(REALSXP, n);
  R_xlen_t i;
  *ptr = REAL(v);
  for (i = 0; i < n; i++) (*ptr)[i] = fill;
  return v;
}

/* job: named list of the fields of sp_sde_job (one row); par: ncond x np;
 * init: ncond x nx; init_vec: integer nx (-1 or a column of init_vals);
 * hist_var: integer; hist_off: double nhist + 1; breaks: double; names:
 * character nx + no; fns: list(advance, observe) external pointers (CPU). */
SEXP sp_r_sde(SEXP job_cols, SEXP par, SEXP init, SEXP init_vec, SEXP init_vals,
              SEXP hist_var, SEXP hist_off, SEXP breaks, SEXP names, SEXP seed, SEXP fns,
              SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *out_names[] = {"value", "status", "state", "mom_n", "mom_mean", "mom_m2",
                             "hist", "traj", "records", "counts", "run", ""};
  static const char *const count_names[] = {"useful_steps", "finished"};
  sp_sde_job job;
  sp_sde_args a;
  sp_sde_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  uint64_t total, nvar;
  int64_t i, cells = 0, *hoff;
  double counts[2];
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  const char **nm;
  SEXP res, token, bar;
  memset(&job, 0, sizeof job);
  if (sp_r_struct_array(job_cols, job_fields, (int)(sizeof job_fields / sizeof job_fields[0]),
                        &job, sizeof job) != 1)
    Rf_error("internal error: the job must be one row");
  memset(&a, 0, sizeof a);
  memset(&out, 0, sizeof out);
  a.job = &job;
  a.seed = sp_r_u64(seed);
  a.par = REAL(par);
  a.init = REAL(init);
  a.init_vec = INTEGER(init_vec);
  a.init_vals = REAL(init_vals);
  a.hist_var = INTEGER(hist_var);
  hoff = (int64_t *)R_alloc((size_t)XLENGTH(hist_off), sizeof *hoff);
  for (i = 0; i < XLENGTH(hist_off); i++) hoff[i] = (int64_t)REAL(hist_off)[i];
  a.hist_off = hoff;
  a.breaks = REAL(breaks);
  nm = (const char **)R_alloc((size_t)XLENGTH(names), sizeof *nm);
  for (i = 0; i < XLENGTH(names); i++) nm[i] = CHAR(STRING_ELT(names, i));
  a.names = nm;
  a.advance = (sp_sde_advance_fn)(uintptr_t)sde_symbol(fns, 0);
  a.observe = (sp_sde_observe_fn)(uintptr_t)sde_symbol(fns, 1);
  total = job.ncond * job.n;
  nvar = (uint64_t)(job.nx + job.no);
  if (job.nhist > 0) cells = sp_sde_hist_cells(&a, job.nhist);
  res = PROTECT(Rf_mkNamed(VECSXP, out_names));
  if (job.output == 0) {
    SET_VECTOR_ELT(res, 0, sde_real((R_xlen_t)total, &out.value, 0.0));
    SET_VECTOR_ELT(res, 1, Rf_allocVector(INTSXP, (R_xlen_t)total));
    out.status = INTEGER(VECTOR_ELT(res, 1));
    for (i = 0; i < (int64_t)total; i++) out.status[i] = SP_SDE_UNSTARTED;
    if (job.save_state)
      SET_VECTOR_ELT(res, 2, sde_real((R_xlen_t)(total * (uint64_t)job.nx), &out.state, NA_REAL));
  } else {
    R_xlen_t nm_ = (R_xlen_t)(job.ncond * job.nrec * nvar);
    SET_VECTOR_ELT(res, 3, sde_real(nm_, &out.mom_n, 0.0));
    SET_VECTOR_ELT(res, 4, sde_real(nm_, &out.mom_mean, NA_REAL));
    SET_VECTOR_ELT(res, 5, sde_real(nm_, &out.mom_m2, NA_REAL));
    if (job.nhist > 0)
      SET_VECTOR_ELT(res, 6, sde_real((R_xlen_t)(job.ncond * job.nrec * (uint64_t)cells),
                                      &out.hist, 0.0));
    if (job.keep > 0)
      SET_VECTOR_ELT(res, 7, sde_real((R_xlen_t)(job.ncond * job.keep * job.nrec * nvar),
                                      &out.traj, NA_REAL));
  }
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), job.output == 0 ? (double)total
                                                                      : (double)job.kmax,
                                  job.output == 0 ? "Simulating paths" : "Integrating"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_sde_cpu(&a, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_sde(CHAR(STRING_ELT(gpu_key, 0)), &a, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  counts[0] = (double)out.useful;
  counts[1] = (double)out.finished;
  SET_VECTOR_ELT(res, 8, Rf_ScalarReal((double)out.rec_done));
  SET_VECTOR_ELT(res, 9, sp_r_named_reals(count_names, counts, 2));
  SET_VECTOR_ELT(res, 10, sp_r_run_info(&info));
  UNPROTECT(3);
  return res;
}
