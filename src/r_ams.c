/* .Call glue for escape_rate_ams(): R's condition table to sp_ams_cond (by
 * name), the engine (CPU or GPU), the per-replica results back as named R
 * columns. */
#include <stddef.h>

#include "r_escape.h"
#include "r_hooks.h"
#include "r_run.h"
#include "r_util.h"

#include "core/sp_ams.h"
#include "core/sp_error.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_ams.h"

/* The per-replica columns, by name (the fields of sp_ams_result). */
#define COL(name) {#name, offsetof(sp_ams_result, name)}
static const struct {
  const char *name;
  size_t offset;
} result_cols[] = {COL(p),          COL(react),      COL(n_B),      COL(t_start),
                   COL(n_start),    COL(t_cycle),    COL(n_cycle),  COL(t_direct),
                   COL(n_direct),   COL(n_lt_react), COL(iterations), COL(branches),
                   COL(steps)};
#undef COL
#define NCOLS ((int)(sizeof result_cols / sizeof result_cols[0]))

/* conds: named list of double columns (the fields of sp_escape_cond, read
 * by r_escape.c), phiA: the edge of A per condition, score_kind:
 * SP_AMS_SCORE_*; tables:
 * the thermal-start tables; replicas, replica0 (c(lo, hi)), particles, k;
 * heun: 1 srk2; single: 1 float; seed c(lo, hi); gpu_key "" and devices
 * integer(0) for the CPU. */
SEXP sp_r_ams(SEXP conds, SEXP phiA, SEXP score_kind, SEXP tables, SEXP replicas,
              SEXP replica0, SEXP particles, SEXP k, SEXP heun, SEXP single, SEXP seed,
              SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"replicas", "run", ""};
  sp_ams_job job;
  sp_ams_result *out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  uint64_t total, i;
  int st, j, c, score = sp_r_int(score_kind), ndev, *devs = sp_r_devices(devices, &ndev);
  SEXP res, cols, colnames, status, token, bar;
  const sp_escape_cond *ec = sp_r_escape_conds(conds, &job.ncond);
  sp_ams_cond *cv = (sp_ams_cond *)R_alloc((size_t)(job.ncond > 0 ? job.ncond : 1), sizeof *cv);
  if (XLENGTH(phiA) != job.ncond) Rf_error("internal error: %d conditions, %d phiA",
                                           job.ncond, (int)XLENGTH(phiA));
  for (c = 0; c < job.ncond; c++) {
    cv[c].esc = ec[c];
    cv[c].phiA = REAL(phiA)[c];
    cv[c].score = score;
    cv[c].pad_ = 0;
  }
  job.conds = cv;
  job.tables = XLENGTH(tables) > 0 ? REAL(tables) : NULL;
  job.ntables = (size_t)XLENGTH(tables);
  job.replicas = sp_r_count(replicas);
  job.replica0 = sp_r_u64(replica0);
  job.particles = sp_r_count(particles);
  job.k = sp_r_count(k);
  job.heun = sp_r_int(heun);
  job.single = sp_r_int(single);
  job.seed = sp_r_u64(seed);
  total = (uint64_t)job.ncond * job.replicas;
  out = (sp_ams_result *)R_alloc((size_t)(total > 0 ? total : 1), sizeof *out);
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)total, "AMS replicas"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_ams_cpu(&job, out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_ams(CHAR(STRING_ELT(gpu_key, 0)), &job, out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  cols = PROTECT(Rf_allocVector(VECSXP, NCOLS + 1));
  colnames = PROTECT(Rf_allocVector(STRSXP, NCOLS + 1));
  for (j = 0; j < NCOLS; j++) {
    SEXP col = Rf_allocVector(REALSXP, (R_xlen_t)total);
    double *x = REAL(col);
    SET_VECTOR_ELT(cols, j, col);
    SET_STRING_ELT(colnames, j, Rf_mkChar(result_cols[j].name));
    for (i = 0; i < total; i++)
      x[i] = *(const double *)((const char *)&out[i] + result_cols[j].offset);
  }
  status = Rf_allocVector(INTSXP, (R_xlen_t)total);
  SET_VECTOR_ELT(cols, NCOLS, status);
  SET_STRING_ELT(colnames, NCOLS, Rf_mkChar("status"));
  for (i = 0; i < total; i++) INTEGER(status)[i] = out[i].status;
  Rf_setAttrib(cols, R_NamesSymbol, colnames);
  SET_VECTOR_ELT(res, 0, cols);
  SET_VECTOR_ELT(res, 1, sp_r_run_info(&info));
  UNPROTECT(5);
  return res;
}
