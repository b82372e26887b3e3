/* .Call glue for the Kuramoto engine: R's arguments to an sp_kuramoto_job,
 * the engine (CPU or GPU), the records and final phases back as R vectors. */
#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_kuramoto.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_kuramoto.h"

/* omega: n frequencies (law SP_KUR_OMEGA_VECTOR) or empty; pars: c(gamma,
 * T, dt, omega centre (or constant), omega scale); counts: c(steps,
 * record_every, replicas); codes: c(coupling SP_KUR_*, method SP_KUR_SRK2 or
 * SP_KUR_EULER, omega law SP_KUR_OMEGA_*, start: 0 drawn by the engine, 1
 * theta0 one vector of n for every system, 2 theta0 n x replicas); A (dense,
 * double n x n) or rowptr, col, val (CSR), empty where unused.  The final
 * phases come back as an n x systems matrix (allocated here, filled by the
 * engine: no copy). */
SEXP sp_r_kuramoto(SEXP n, SEXP K, SEXP omega, SEXP pars, SEXP counts, SEXP replica0,
                   SEXP codes, SEXP A, SEXP rowptr, SEXP col, SEXP val, SEXP single,
                   SEXP seed, SEXP bins, SEXP theta0, SEXP gpu_key, SEXP devices,
                   SEXP progress) {
  const char *names[] = {"rec", "theta", "hist", "steps_done", "run", ""};
  sp_kuramoto_job job;
  sp_kuramoto_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  R_xlen_t nsys, nrec;
  int start;
  SEXP res, rec, th, dim, hist, token, bar;
  if (XLENGTH(pars) != 5 || XLENGTH(codes) != 4) Rf_error("internal error: Kuramoto codes");
  job.n = sp_r_count(n);
  job.ncond = (int)XLENGTH(K);
  job.K = REAL(K);
  job.coupling = INTEGER(codes)[0];
  job.method = INTEGER(codes)[1];
  job.omega_law = INTEGER(codes)[2];
  start = INTEGER(codes)[3];
  job.omega = job.omega_law == SP_KUR_OMEGA_VECTOR ? REAL(omega) : NULL;
  job.omega_centre = REAL(pars)[3];
  job.omega_scale = REAL(pars)[4];
  job.theta0 = start > 0 ? REAL(theta0) : NULL;
  job.theta0_per_replica = start == 2;
  job.gamma = REAL(pars)[0];
  job.T = REAL(pars)[1];
  job.dt = REAL(pars)[2];
  job.steps = (uint64_t)REAL(counts)[0];
  job.record_every = (uint64_t)REAL(counts)[1];
  job.nrep = (uint64_t)REAL(counts)[2];
  job.replica0 = sp_r_u64(replica0);
  job.A = XLENGTH(A) > 0 ? REAL(A) : NULL;
  job.rowptr = XLENGTH(rowptr) > 0 ? INTEGER(rowptr) : NULL;
  job.col = XLENGTH(col) > 0 ? INTEGER(col) : NULL;
  job.val = XLENGTH(val) > 0 ? REAL(val) : NULL;
  job.single = sp_r_int(single);
  job.seed = sp_r_u64(seed);
  job.bins = sp_r_int(bins);
  nsys = (R_xlen_t)job.ncond * (R_xlen_t)job.nrep;
  nrec = (R_xlen_t)sp_kuramoto_nrec(&job);
  if ((job.omega_law == SP_KUR_OMEGA_VECTOR && XLENGTH(omega) != (R_xlen_t)job.n) ||
      (start > 0 && XLENGTH(theta0) != (R_xlen_t)job.n * (start == 2 ? (R_xlen_t)job.nrep : 1)) ||
      (start > 0 && TYPEOF(theta0) != REALSXP) ||
      (job.coupling == SP_KUR_DENSE && XLENGTH(A) != (R_xlen_t)(job.n * job.n)) ||
      (job.coupling == SP_KUR_SPARSE && XLENGTH(rowptr) != (R_xlen_t)job.n + 1))
    Rf_error("internal error: the Kuramoto arrays do not match n");
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  rec = PROTECT(Rf_allocVector(REALSXP, 2 * nsys * nrec));
  th = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.n * nsys));
  dim = PROTECT(Rf_allocVector(INTSXP, 2));
  INTEGER(dim)[0] = (int)job.n;
  INTEGER(dim)[1] = (int)nsys;
  Rf_setAttrib(th, R_DimSymbol, dim);
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
  UNPROTECT(7);
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
