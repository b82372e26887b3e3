/* .Call glue for the Kuramoto engine: R's arguments to an sp_kuramoto_job,
 * the engine (CPU or GPU), the records and final phases back as R vectors. */
#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_kuramoto.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_kuramoto.h"

/* pars: c(gamma, T, dt); counts: c(steps, record_every, replicas);
 * coupling: SP_KUR_*; A (dense, double n x n) or rowptr, col, val (CSR),
 * empty where unused; theta: n x (conditions x replicas) start phases. */
SEXP sp_r_kuramoto(SEXP n, SEXP K, SEXP omega, SEXP pars, SEXP counts, SEXP replica0,
                   SEXP coupling, SEXP A, SEXP rowptr, SEXP col, SEXP val, SEXP single,
                   SEXP seed, SEXP bins, SEXP theta, SEXP gpu_key, SEXP devices,
                   SEXP progress) {
  const char *names[] = {"rec", "theta", "hist", "steps_done", "run", ""};
  sp_kuramoto_job job;
  sp_kuramoto_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  R_xlen_t nsys, nrec;
  SEXP res, rec, th, hist, token, bar;
  job.n = sp_r_count(n);
  job.ncond = (int)XLENGTH(K);
  job.K = REAL(K);
  job.omega = REAL(omega);
  job.gamma = REAL(pars)[0];
  job.T = REAL(pars)[1];
  job.dt = REAL(pars)[2];
  job.steps = (uint64_t)REAL(counts)[0];
  job.record_every = (uint64_t)REAL(counts)[1];
  job.nrep = (uint64_t)REAL(counts)[2];
  job.replica0 = sp_r_u64(replica0);
  job.coupling = sp_r_int(coupling);
  job.A = XLENGTH(A) > 0 ? REAL(A) : NULL;
  job.rowptr = XLENGTH(rowptr) > 0 ? INTEGER(rowptr) : NULL;
  job.col = XLENGTH(col) > 0 ? INTEGER(col) : NULL;
  job.val = XLENGTH(val) > 0 ? REAL(val) : NULL;
  job.single = sp_r_int(single);
  job.seed = sp_r_u64(seed);
  job.bins = sp_r_int(bins);
  nsys = (R_xlen_t)job.ncond * (R_xlen_t)job.nrep;
  nrec = (R_xlen_t)sp_kuramoto_nrec(&job);
  if (XLENGTH(omega) != (R_xlen_t)job.n || XLENGTH(theta) != (R_xlen_t)job.n * nsys ||
      (job.coupling == SP_KUR_DENSE && XLENGTH(A) != (R_xlen_t)(job.n * job.n)) ||
      (job.coupling == SP_KUR_SPARSE && XLENGTH(rowptr) != (R_xlen_t)job.n + 1))
    Rf_error("internal error: the Kuramoto arrays do not match n");
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  rec = PROTECT(Rf_allocVector(REALSXP, 2 * nsys * nrec));
  th = PROTECT(Rf_duplicate(theta));
  hist = PROTECT(Rf_allocVector(REALSXP, nsys * nrec * (R_xlen_t)job.bins));
  out.theta = REAL(th);
  out.rec = REAL(rec);
  out.hist = job.bins > 0 ? REAL(hist) : NULL;
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)job.steps, "Steps"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_kuramoto_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_kuramoto(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  SET_VECTOR_ELT(res, 0, rec);
  SET_VECTOR_ELT(res, 1, th);
  SET_VECTOR_ELT(res, 2, hist);
  SET_VECTOR_ELT(res, 3, Rf_ScalarReal((double)out.steps_done));
  SET_VECTOR_ELT(res, 4, sp_r_run_info(&info));
  UNPROTECT(6);
  return res;
}

/* Start phases (n x nrep) of global replicas replica0 .. replica0 + nrep - 1
 * of condition `cond` (0-based): uniform on (-pi, pi). */
SEXP sp_r_kuramoto_start(SEXP seed, SEXP cond, SEXP replica0, SEXP nrep, SEXP n) {
  uint64_t s = sp_r_u64(seed), c = sp_r_u64(cond), r0 = sp_r_u64(replica0), r;
  uint64_t nn = sp_r_count(n), nr = sp_r_count(nrep);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)(nn * nr)));
  for (r = 0; r < nr; r++) sp_kuramoto_start_phases(s, c, r0 + r, nn, REAL(out) + r * nn);
  UNPROTECT(1);
  return out;
}
