/* .Call glue for the Philox draws (philox_uint32/uniform/normal), on the
 * CPU or the GPU. */
#include "r_hooks.h"
#include "r_run.h"
#include "r_util.h"

#include "core/sp_rng.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_rng.h"

/* list(values, filled, run): values past `filled` are NA when interrupted. */
SEXP sp_r_philox(SEXP kind, SEXP single, SEXP n, SEXP seed, SEXP stream, SEXP offset,
                 SEXP gpu_key, SEXP devices, SEXP progress) {
  const char *names[] = {"values", "filled", "run", ""};
  sp_philox_job job;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  uint64_t filled = 0, i;
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  SEXP res, out, token, bar;
  job.kind = sp_r_int(kind);
  job.single = sp_r_int(single);
  job.n = sp_r_count(n);
  job.seed = sp_r_u64(seed);
  job.stream = sp_r_u64(stream);
  job.offset = sp_r_u64(offset);
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.n));
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), (double)((job.n + 3) / 4),
                                  "Philox draws"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_philox_fill(&job, REAL(out), sp_threads_get(), &hooks, &info, &filled);
  else
    st = sp_gpu_philox_fill(CHAR(STRING_ELT(gpu_key, 0)), &job, REAL(out), devs, ndev,
                            &hooks, &info, &filled);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  for (i = filled; i < job.n; i++) REAL(out)[i] = NA_REAL;
  SET_VECTOR_ELT(res, 0, out);
  SET_VECTOR_ELT(res, 1, Rf_ScalarReal((double)filled));
  SET_VECTOR_ELT(res, 2, sp_r_run_info(&info));
  UNPROTECT(4);
  return res;
}
