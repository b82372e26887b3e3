/* .Call glue for driven Brownian ensembles: R's condition table to
 * sp_driven_cond (by name), the engine (CPU or GPU), results back as R
 * vectors. */
#include <stddef.h>

#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_driven.h"
#include "core/sp_error.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_driven.h"

#define FIELD(name, type) {#name, offsetof(sp_driven_cond, name), type}
static const sp_r_field cond_fields[] = {
  FIELD(a, SP_R_DOUBLE),     FIELD(omega, SP_R_DOUBLE), FIELD(f, SP_R_DOUBLE),
  FIELD(gamma, SP_R_DOUBLE), FIELD(D0, SP_R_DOUBLE),    FIELD(dt, SP_R_DOUBLE),
  FIELD(sigma, SP_R_DOUBLE), FIELD(stream0, SP_R_U64)};
#undef FIELD

/* conds: named list of double columns (the fields of sp_driven_cond);
 * drive: cos(2 pi j / spp), j = 0 .. spp; x0, v0: start values (length 0,
 * 1 or n); counts as whole doubles; heun 1 srk2, 0 euler; gpu_key "" and
 * devices integer(0) for the CPU. */
SEXP sp_r_driven(SEXP conds, SEXP drive, SEXP n, SEXP replica0, SEXP periods, SEXP ktr,
                 SEXP x0, SEXP v0, SEXP keep_m, SEXP dens, SEXP heun, SEXP single, SEXP seed,
                 SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"x", "v", "xtr", "acc2", "keep_x", "keep_v", "density", "steps",
                         "run", ""};
  sp_driven_job job;
  sp_driven_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  uint64_t total, nkeep, ndens;
  R_xlen_t nc;
  sp_driven_cond *cv;
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  SEXP res, sx, sv, sxtr, sacc, skx, skv, sdens, token, bar;
  nc = sp_r_rows(conds);
  cv = (sp_driven_cond *)R_alloc((size_t)(nc > 0 ? nc : 1), sizeof *cv);
  job.ncond = (int)sp_r_struct_array(conds, cond_fields,
                                     (int)(sizeof cond_fields / sizeof cond_fields[0]), cv,
                                     sizeof *cv);
  job.conds = cv;
  job.drive = REAL(drive);
  job.spp = (uint32_t)(XLENGTH(drive) - 1);
  job.n = sp_r_count(n);
  job.replica0 = sp_r_u64(replica0);
  job.periods = sp_r_count(periods);
  job.ktr = sp_r_count(ktr);
  job.x0 = XLENGTH(x0) > 0 ? REAL(x0) : NULL;
  job.nx0 = (uint64_t)XLENGTH(x0);
  job.v0 = XLENGTH(v0) > 0 ? REAL(v0) : NULL;
  job.nv0 = (uint64_t)XLENGTH(v0);
  job.keep_m = sp_r_count(keep_m);
  /* dens: c(lo, bins) of the density, or numeric(0) for none */
  job.dens_lo = XLENGTH(dens) == 2 ? (int64_t)REAL(dens)[0] : 0;
  job.dens_bins = XLENGTH(dens) == 2 ? (uint32_t)REAL(dens)[1] : 0;
  job.heun = sp_r_int(heun);
  job.single = sp_r_int(single);
  job.seed = sp_r_u64(seed);
  total = sp_driven_paths(&job);
  nkeep = (uint64_t)job.ncond * job.keep_m * (job.periods + 1);
  ndens = job.dens_bins > 0
              ? (uint64_t)job.ncond * (job.periods + 1) * ((uint64_t)job.dens_bins + 2)
              : 0;
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  sx = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  sv = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  sxtr = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  sacc = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  skx = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nkeep));
  skv = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nkeep));
  sdens = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)ndens));
  out.x = REAL(sx);
  out.v = REAL(sv);
  out.xtr = REAL(sxtr);
  out.acc2 = REAL(sacc);
  out.keep_x = REAL(skx);
  out.keep_v = REAL(skv);
  out.dens = ndens > 0 ? REAL(sdens) : NULL;
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress),
                                  (double)total * (double)job.periods * (double)job.spp,
                                  "Integrating paths"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_driven_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_driven(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  SET_VECTOR_ELT(res, 0, sx);
  SET_VECTOR_ELT(res, 1, sv);
  SET_VECTOR_ELT(res, 2, sxtr);
  SET_VECTOR_ELT(res, 3, sacc);
  SET_VECTOR_ELT(res, 4, skx);
  SET_VECTOR_ELT(res, 5, skv);
  SET_VECTOR_ELT(res, 6, sdens);
  SET_VECTOR_ELT(res, 7, Rf_ScalarReal((double)out.steps));
  SET_VECTOR_ELT(res, 8, sp_r_run_info(&info));
  UNPROTECT(10);
  return res;
}
