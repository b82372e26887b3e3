/* .Call glue for the quasi-greedy 3-XORSAT solver: the instance's tables
 * (built in R) to an sp_xorsat_job, the runs back as R vectors.  The types
 * and lengths are checked here, the consistency of the tables by
 * sp_xorsat_check(), so no engine reads out of bounds whatever it is given. */
#include <string.h>
#include <time.h>

#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_threads.h"
#include "core/sp_xorsat.h"
#include "gpu/sp_gpu_xorsat.h"

/* An integer vector of `len` elements (R_alloc'ed copy not needed: read only). */
static const int *xs_ints(SEXP x, R_xlen_t len, const char *what) {
  if (TYPEOF(x) != INTSXP || XLENGTH(x) != len)
    Rf_error("internal error: the 3-XORSAT table `%s` must be an integer vector of length %.0f",
             what, (double)len);
  return INTEGER(x);
}

/* CPU time of the calling thread, or NA where the clock is missing.  A
 * timing run on the CPU (calibrate) runs on one thread, the caller's: its
 * CPU time is the time the run takes with a core to itself, whatever else
 * the machine is doing. */
static double xs_thread_seconds(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
  return NA_REAL;
}

/* Element i of plan: a whole number in [lo, hi]. */
static double xs_plan(SEXP plan, int i, double lo, double hi, const char *what) {
  const double v = REAL(plan)[i];
  if (!(v >= lo && v <= hi) || v != (double)(int64_t)v)
    Rf_error("internal error: 3-XORSAT %s = %g is not a whole number in [%g, %g]", what, v, lo,
             hi);
  return v;
}

/* order, partner (n x 6), eq (n x 3): 0-based integers; sets: the first
 * position of each independent set in order, then n; jneg (n x 3, per
 * spin's equations) and jeq (n, per equation): 1 where J = -1.  plan:
 * c(nwords (0: as many as the GPU holds), nruns, max_sweeps (0: none),
 * check_every, p1, independent clones (0/1), calibrate (0/1)).  The result's
 * cpu_seconds: the thread CPU time of a timing run (calibrate) on the CPU,
 * which runs on one thread; NA otherwise. */
SEXP sp_r_xorsat(SEXP order, SEXP sets, SEXP partner, SEXP jneg, SEXP eq, SEXP jeq, SEXP plan,
                 SEXP run0, SEXP seed, SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"sweeps", "status", "clone", "solution", "run", "clones", "cpu_seconds",
                         ""};
  sp_xorsat_job job;
  sp_xorsat_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int st, ndev, *devs;
  uint32_t *jm, *je;
  const int *jn, *jq;
  R_xlen_t i, n = XLENGTH(order);
  double p1, cpu = NA_REAL;
  SEXP res, sweeps, status, clone, solution, token, bar;
  if (TYPEOF(order) != INTSXP || n < 3 || n > (1 << 28))
    Rf_error("internal error: the 3-XORSAT order must be an integer vector of 3 to 2^28 spins");
  if (TYPEOF(sets) != INTSXP || XLENGTH(sets) < 2 || XLENGTH(sets) > n + 1)
    Rf_error("internal error: the 3-XORSAT sets must be an integer vector of 2 to n + 1 positions");
  if (TYPEOF(plan) != REALSXP || XLENGTH(plan) != 7)
    Rf_error("internal error: the 3-XORSAT plan must be a double vector of length 7");
  if (TYPEOF(gpu_key) != STRSXP || XLENGTH(gpu_key) != 1 || TYPEOF(devices) != INTSXP)
    Rf_error("internal error: the 3-XORSAT GPU key or devices");
  devs = sp_r_devices(devices, &ndev);
  memset(&job, 0, sizeof job);
  job.n = (uint32_t)n;
  job.order = xs_ints(order, n, "order");
  job.sets = INTEGER(sets);
  job.nsets = (uint32_t)XLENGTH(sets) - 1;
  job.partner = xs_ints(partner, 6 * n, "partner");
  job.eq = xs_ints(eq, 3 * n, "eq");
  jn = xs_ints(jneg, 3 * n, "jneg");
  jq = xs_ints(jeq, n, "jeq");
  jm = (uint32_t *)R_alloc((size_t)3 * job.n, sizeof *jm);
  je = (uint32_t *)R_alloc((size_t)job.n, sizeof *je);
  for (i = 0; i < 3 * n; i++) jm[i] = jn[i] ? 0xffffffffu : 0u;
  for (i = 0; i < n; i++) je[i] = jq[i] ? 0xffffffffu : 0u;
  job.jm = jm;
  job.jeq = je;
  job.nwords = (uint32_t)xs_plan(plan, 0, ndev == 0 ? 1 : 0, 65536, "words per run");
  job.nruns = (uint64_t)xs_plan(plan, 1, 0, 140737488355328.0, "runs"); /* 2^47 */
  job.max_sweeps = (uint64_t)xs_plan(plan, 2, 0, 4503599627370496.0, "max_sweeps");
  job.check_every = (uint64_t)xs_plan(plan, 3, 1, 4503599627370496.0, "check_every");
  p1 = REAL(plan)[4];
  if (!(p1 >= 0 && p1 <= 1)) Rf_error("internal error: 3-XORSAT p1 = %g outside [0, 1]", p1);
  job.indep = xs_plan(plan, 5, 0, 1, "independent_clones") != 0;
  job.calibrate = xs_plan(plan, 6, 0, 1, "calibrate") != 0;
  job.p1_thr = p1 >= 1 ? (uint64_t)1 << 32 : (uint64_t)(p1 * 4294967296.0);
  job.run0 = sp_r_u64(run0);
  job.seed = sp_r_u64(seed);
  sp_r_check(sp_xorsat_check(&job));
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  sweeps = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.nruns));
  status = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)job.nruns));
  clone = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)job.nruns));
  solution = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)job.nruns * n));
  out.sweeps = REAL(sweeps);
  out.status = INTEGER(status);
  out.clone = INTEGER(clone);
  out.solution = INTEGER(solution);
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)job.nruns, "Runs"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0 && job.calibrate) {
    const double c0 = xs_thread_seconds();
    st = sp_xorsat_cpu(&job, &out, 1, &hooks, &info);
    cpu = xs_thread_seconds() - c0;
  } else if (ndev == 0)
    st = sp_xorsat_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_xorsat(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  SET_VECTOR_ELT(res, 0, sweeps);
  SET_VECTOR_ELT(res, 1, status);
  SET_VECTOR_ELT(res, 2, clone);
  SET_VECTOR_ELT(res, 3, solution);
  SET_VECTOR_ELT(res, 4, sp_r_run_info(&info));
  SET_VECTOR_ELT(res, 5, Rf_ScalarReal(32.0 * (double)out.nwords));
  SET_VECTOR_ELT(res, 6, Rf_ScalarReal(R_FINITE(cpu) ? cpu : NA_REAL));
  UNPROTECT(7);
  return res;
}
