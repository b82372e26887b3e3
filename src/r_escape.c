/* .Call glue for escape times and switching currents: R's condition table to
 * sp_wb_cond, the engine (CPU or GPU), results back as R vectors. */
#include <stdlib.h>
#include <string.h>

#include "r_hooks.h"
#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_escape.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_escape.h"

/* conds: a list of equal-length double vectors in sp_wb_cond's field order. */
static sp_wb_cond *conds_from_r(SEXP conds, int *ncond) {
  int nf = Rf_length(conds), n, i;
  sp_wb_cond *c;
  if (nf != 11) Rf_error("internal error: 11 condition fields expected");
  n = Rf_length(VECTOR_ELT(conds, 0));
  c = (sp_wb_cond *)R_alloc((size_t)(n > 0 ? n : 1), sizeof *c);
  for (i = 0; i < n; i++) {
    double *f[11];
    int j;
    for (j = 0; j < 11; j++) f[j] = REAL(VECTOR_ELT(conds, j));
    c[i].g0 = f[0][i];
    c[i].dg = f[1][i];
    c[i].V0 = f[2][i];
    c[i].beta = f[3][i];
    c[i].h = f[4][i];
    c[i].sigma = f[5][i];
    c[i].phi0 = f[6][i];
    c[i].th = f[7][i];
    c[i].vcens = f[8][i];
    c[i].kmax = (uint64_t)f[9][i];
    c[i].stream0 = (uint64_t)f[10][i];
  }
  *ncond = n;
  return c;
}

SEXP sp_r_escape(SEXP conds, SEXP n, SEXP replica0, SEXP heun, SEXP single, SEXP seed,
                 SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"value", "escaped", "stats", ""};
  sp_escape_job job;
  sp_escape_stats stats;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  uint64_t total;
  int st, ndev = Rf_length(devices);
  SEXP out, value, escaped, sv;
  job.conds = conds_from_r(conds, &job.ncond);
  job.n = sp_r_count(n);
  job.replica0 = sp_r_u64(replica0);
  job.heun = sp_r_int(heun);
  job.single = sp_r_int(single);
  job.seed = sp_r_u64(seed);
  total = (uint64_t)job.ncond * job.n;
  out = PROTECT(Rf_mkNamed(VECSXP, names));
  value = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  escaped = PROTECT(Rf_allocVector(LGLSXP, (R_xlen_t)total));
  memset(&stats, 0, sizeof stats);
  sp_r_hooks_start(&ctx, &hooks, sp_r_int(progress), (double)total,
                   "Simulating paths");
  if (ndev == 0) {
    st = sp_escape_cpu(&job, REAL(value), LOGICAL(escaped), sp_threads_get(), &hooks,
                       &stats);
  } else {
    int *devs = (int *)R_alloc((size_t)ndev, sizeof(int)), i;
    for (i = 0; i < ndev; i++) devs[i] = INTEGER(devices)[i];
    st = sp_gpu_escape(CHAR(STRING_ELT(gpu_key, 0)), &job, REAL(value),
                       LOGICAL(escaped), devs, ndev, &hooks, &stats);
  }
  sp_r_hooks_done(&ctx);
  sp_r_check(st);
  {
    R_xlen_t i;
    int *e = LOGICAL(escaped);
    double *v = REAL(value);
    for (i = 0; i < (R_xlen_t)total; i++) {
      if (e[i] == SP_ESC_UNFINISHED) {
        e[i] = NA_LOGICAL;
        v[i] = NA_REAL;
      }
    }
  }
  sv = PROTECT(Rf_allocVector(REALSXP, 5));
  REAL(sv)[0] = stats.useful_steps;
  REAL(sv)[1] = stats.issued_steps;
  REAL(sv)[2] = stats.finished;
  REAL(sv)[3] = stats.seconds;
  REAL(sv)[4] = stats.interrupted;
  SET_VECTOR_ELT(out, 0, value);
  SET_VECTOR_ELT(out, 1, escaped);
  SET_VECTOR_ELT(out, 2, sv);
  UNPROTECT(5);
  return out;
}
