/* .Call glue for escape times and switching currents: R's condition table
 * to sp_escape_cond (by name), the engine (CPU or GPU), results back as R
 * vectors. */
#include <stddef.h>

#include "r_escape.h"
#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_escape.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_escape.h"

#define FIELD(name, type) {#name, offsetof(sp_escape_cond, name), type}
static const sp_r_field cond_fields[] = {
  FIELD(g0, SP_R_DOUBLE),        FIELD(dg, SP_R_DOUBLE),
  FIELD(V0, SP_R_DOUBLE),        FIELD(beta, SP_R_DOUBLE),
  FIELD(h, SP_R_DOUBLE),         FIELD(sigma, SP_R_DOUBLE),
  FIELD(phi0, SP_R_DOUBLE),      FIELD(th, SP_R_DOUBLE),
  FIELD(vcens, SP_R_DOUBLE),     FIELD(kmax, SP_R_U64),
  FIELD(stream0, SP_R_U64),      FIELD(start_table, SP_R_I64),
  FIELD(start_lo, SP_R_DOUBLE),  FIELD(start_step, SP_R_DOUBLE),
  FIELD(start_vsd, SP_R_DOUBLE)};
#undef FIELD

sp_escape_cond *sp_r_escape_conds(SEXP conds, int *ncond) {
  R_xlen_t nc = sp_r_rows(conds);
  sp_escape_cond *cv = (sp_escape_cond *)R_alloc((size_t)(nc > 0 ? nc : 1), sizeof *cv);
  *ncond = (int)sp_r_struct_array(conds, cond_fields,
                                  (int)(sizeof cond_fields / sizeof cond_fields[0]), cv,
                                  sizeof *cv);
  return cv;
}

/* conds: named list of double columns (the fields of sp_escape_cond);
 * tables: the thermal-start tables (double, maybe empty); method: 1 srk2,
 * 0 euler; gpu_key "" and devices integer(0) for the CPU. */
SEXP sp_r_escape(SEXP conds, SEXP tables, SEXP n, SEXP replica0, SEXP heun, SEXP single,
                 SEXP seed, SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"value", "escaped", "unfinished", "counts", "run", ""};
  static const char *const count_names[] = {"useful_steps", "issued_steps", "finished"};
  sp_escape_job job;
  sp_escape_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  uint64_t total, p;
  double counts[3];
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  SEXP res, value, status, escaped, unfinished, token, bar;
  job.conds = sp_r_escape_conds(conds, &job.ncond);
  job.tables = XLENGTH(tables) > 0 ? REAL(tables) : NULL;
  job.ntables = (size_t)XLENGTH(tables);
  job.n = sp_r_count(n);
  job.replica0 = sp_r_u64(replica0);
  job.heun = sp_r_int(heun);
  job.single = sp_r_int(single);
  job.seed = sp_r_u64(seed);
  total = (uint64_t)job.ncond * job.n;
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  value = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  status = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)total));
  out.value = REAL(value);
  out.status = INTEGER(status);
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)total, "Simulating paths"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_escape_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_escape(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  escaped = PROTECT(Rf_allocVector(LGLSXP, (R_xlen_t)total));
  unfinished = PROTECT(Rf_allocVector(LGLSXP, (R_xlen_t)total));
  {
    int *esc = LOGICAL(escaped), *unf = LOGICAL(unfinished);
    for (p = 0; p < total; p++) {
      int s = out.status[p];
      esc[p] = s == SP_ESCAPE_ESCAPED;
      unf[p] = s == SP_ESCAPE_UNSTARTED || s == SP_ESCAPE_PARTIAL;
    }
  }
  counts[0] = (double)out.counts.useful;
  counts[1] = (double)out.counts.issued;
  counts[2] = (double)out.counts.finished;
  SET_VECTOR_ELT(res, 0, value);
  SET_VECTOR_ELT(res, 1, escaped);
  SET_VECTOR_ELT(res, 2, unfinished);
  SET_VECTOR_ELT(res, 3, sp_r_named_reals(count_names, counts, 3));
  SET_VECTOR_ELT(res, 4, sp_r_run_info(&info));
  UNPROTECT(7);
  return res;
}
