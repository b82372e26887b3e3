/* .Call glue for the long-range MD engine: R's arguments to an sp_lrmd_job,
 * the engine (CPU or GPU), the records, snapshots and final state back as R
 * vectors. */
#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_lrmd.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_lrmd.h"

/* model: SP_LRMD_*; pars: c(dt, softening); counts: c(steps, record_every);
 * single: c(mixed precision, fused pair pass, blocks an SM) as integers;
 * state: n x 4 (q0, q1, p0, p1); snap_steps: ascending steps (doubles). */
SEXP sp_r_lrmd(SEXP model, SEXP n, SEXP pars, SEXP counts, SEXP single, SEXP state,
               SEXP snap_steps, SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"rec", "state", "snap", "steps_done", "run", ""};
  sp_lrmd_job job;
  sp_lrmd_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int st, ndev, *devs = sp_r_devices(devices, &ndev), k;
  uint64_t *snaps;
  R_xlen_t nrec;
  SEXP res, rec, sta, snap, token, bar;
  job.model = sp_r_int(model);
  job.n = sp_r_count(n);
  job.dt = REAL(pars)[0];
  job.eps = REAL(pars)[1];
  job.steps = (uint64_t)REAL(counts)[0];
  job.record_every = (uint64_t)REAL(counts)[1];
  job.single = sp_r_int(single); /* c(mixed, fused, blocks an SM) */
  job.fused = XLENGTH(single) > 1 && TYPEOF(single) == INTSXP ? INTEGER(single)[1] : 0;
  job.blocks_per_sm = XLENGTH(single) > 2 && TYPEOF(single) == INTSXP ? INTEGER(single)[2] : 0;
  job.nsnap = (int)XLENGTH(snap_steps);
  if (XLENGTH(state) != 4 * (R_xlen_t)job.n || job.record_every == 0)
    Rf_error("internal error: the lrmd state does not match n");
  snaps = (uint64_t *)R_alloc((size_t)job.nsnap + 1, sizeof(uint64_t));
  for (k = 0; k < job.nsnap; k++) snaps[k] = (uint64_t)REAL(snap_steps)[k];
  job.snap_steps = snaps;
  nrec = (R_xlen_t)sp_lrmd_nrec(&job);
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  rec = PROTECT(Rf_allocVector(REALSXP, SP_LRMD_NREC * nrec));
  sta = PROTECT(Rf_duplicate(state));
  snap = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.nsnap * 4 * (R_xlen_t)job.n));
  out.q0 = REAL(sta);
  out.q1 = out.q0 + job.n;
  out.p0 = out.q1 + job.n;
  out.p1 = out.p0 + job.n;
  out.rec = REAL(rec);
  out.snap = REAL(snap);
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)job.steps, "Steps"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_lrmd_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_lrmd(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  SET_VECTOR_ELT(res, 0, rec);
  SET_VECTOR_ELT(res, 1, sta);
  SET_VECTOR_ELT(res, 2, snap);
  SET_VECTOR_ELT(res, 3, Rf_ScalarReal((double)out.steps_done));
  SET_VECTOR_ELT(res, 4, sp_r_run_info(&info));
  UNPROTECT(6);
  return res;
}

/* n draws of the initial conditions: kind 0 uniform on (0, 1), 1 standard
 * normal, from stream `stream` of Philox purpose SP_PURPOSE_LRMD_INIT. */
SEXP sp_r_lrmd_draws(SEXP seed, SEXP stream, SEXP kind, SEXP n) {
  uint64_t nn = sp_r_count(n);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nn));
  sp_lrmd_draws(sp_r_u64(seed), sp_r_u64(stream), sp_r_int(kind), nn, REAL(out));
  UNPROTECT(1);
  return out;
}
