/* .Call glue for the quasi-greedy 3-XORSAT solver: the instance's tables
 * (built in R) to an sp_xorsat_job, the runs back as R vectors. */
#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_threads.h"
#include "core/sp_xorsat.h"
#include "gpu/sp_gpu_xorsat.h"

/* order, partner (n x 6), eq (n x 3): 0-based integers; sets: the first
 * position of each independent set in order, then n; jneg (n x 3, per
 * spin's equations) and jeq (n, per equation): 1 where J = -1.  plan:
 * c(nwords (0: as many as the GPU holds), nruns, max_sweeps (0: none),
 * check_every, timeout (<= 0: none), p1, independent clones (0/1)). */
SEXP sp_r_xorsat(SEXP order, SEXP sets, SEXP partner, SEXP jneg, SEXP eq, SEXP jeq, SEXP plan,
                 SEXP run0, SEXP seed, SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"sweeps", "seconds", "status", "clone", "solution", "run", "clones", ""};
  sp_xorsat_job job;
  sp_xorsat_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  uint32_t *jm, *je;
  R_xlen_t i;
  double p1;
  SEXP res, sweeps, seconds, status, clone, solution, token, bar;
  job.n = (uint32_t)XLENGTH(order);
  job.order = INTEGER(order);
  job.sets = INTEGER(sets);
  job.nsets = (uint32_t)XLENGTH(sets) - 1;
  job.partner = INTEGER(partner);
  job.eq = INTEGER(eq);
  jm = (uint32_t *)R_alloc((size_t)3 * job.n + 1, sizeof *jm);
  je = (uint32_t *)R_alloc((size_t)job.n + 1, sizeof *je);
  for (i = 0; i < 3 * (R_xlen_t)job.n; i++) jm[i] = INTEGER(jneg)[i] ? 0xffffffffu : 0u;
  for (i = 0; i < (R_xlen_t)job.n; i++) je[i] = INTEGER(jeq)[i] ? 0xffffffffu : 0u;
  job.jm = jm;
  job.jeq = je;
  job.nwords = (uint32_t)REAL(plan)[0];
  job.nruns = (uint64_t)REAL(plan)[1];
  job.max_sweeps = (uint64_t)REAL(plan)[2];
  job.check_every = (uint64_t)REAL(plan)[3];
  job.timeout = REAL(plan)[4];
  p1 = REAL(plan)[5];
  job.indep = XLENGTH(plan) > 6 && REAL(plan)[6] != 0;
  job.p1_thr = p1 >= 1 ? (uint64_t)1 << 32 : (uint64_t)(p1 * 4294967296.0);
  job.run0 = sp_r_u64(run0);
  job.seed = sp_r_u64(seed);
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  sweeps = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.nruns));
  seconds = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.nruns));
  status = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)job.nruns));
  clone = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)job.nruns));
  solution = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)job.nruns * job.n));
  out.sweeps = REAL(sweeps);
  out.seconds = REAL(seconds);
  out.status = INTEGER(status);
  out.clone = INTEGER(clone);
  out.solution = INTEGER(solution);
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)job.nruns, "Runs"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_xorsat_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_xorsat(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  SET_VECTOR_ELT(res, 0, sweeps);
  SET_VECTOR_ELT(res, 1, seconds);
  SET_VECTOR_ELT(res, 2, status);
  SET_VECTOR_ELT(res, 3, clone);
  SET_VECTOR_ELT(res, 4, solution);
  SET_VECTOR_ELT(res, 5, sp_r_run_info(&info));
  SET_VECTOR_ELT(res, 6, Rf_ScalarReal(32.0 * (double)out.nwords));
  UNPROTECT(8);
  return res;
}
