/* .Call glue for the helium VMC engine: R's arguments to an sp_vmc_job, the
 * engine, the blocks and the walkers' final state back as R vectors. */
#include <math.h>
#include <string.h>

#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_threads.h"
#include "core/sp_vmc.h"
#include "gpu/sp_gpu_vmc.h"

/* pair: c(b, L, form); sweeps: c(equilibration, blocks, block_sweeps,
 * measure_every); coords: 3 x n x walkers doubles; step, moves: one per
 * walker (copied: the engine writes the final state into the copies). */
SEXP sp_r_vmc(SEXP pair, SEXP n, SEXP walker0, SEXP seed, SEXP sweeps, SEXP tune, SEXP single,
              SEXP nbins, SEXP coords, SEXP step, SEXP moves, SEXP gpu_key, SEXP devices,
              SEXP progress) {
  const char *names[] = {"block", "done", "coords", "step", "moves", "hist", "run", ""};
  sp_vmc_job job;
  sp_vmc_out out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int st, ndev, *devs = sp_r_devices(devices, &ndev);
  SEXP res, block, done, c2, s2, m2, hist, token, bar;
  job.pair.b = REAL(pair)[0];
  job.pair.L = REAL(pair)[1];
  job.pair.rc = 0.5 * job.pair.L;
  job.pair.form = (int32_t)REAL(pair)[2];
  job.pair.pad_ = 0;
  job.n = sp_r_int(n);
  job.nwalkers = (int)XLENGTH(step);
  job.walker0 = sp_r_u64(walker0);
  job.seed = sp_r_u64(seed);
  job.equilibration = (uint64_t)REAL(sweeps)[0];
  job.blocks = (uint64_t)REAL(sweeps)[1];
  job.block_sweeps = (uint64_t)REAL(sweeps)[2];
  job.measure_every = (uint64_t)REAL(sweeps)[3];
  job.tune = sp_r_int(tune);
  job.single = sp_r_int(single);
  job.nbins = sp_r_int(nbins);
  if (TYPEOF(coords) != REALSXP || XLENGTH(coords) != (R_xlen_t)job.n * 3 * job.nwalkers ||
      XLENGTH(moves) != job.nwalkers)
    Rf_error("internal error: the walkers' state does not match n and walkers");
  res = PROTECT(Rf_mkNamed(VECSXP, names));
  block = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.nwalkers * (R_xlen_t)job.blocks * 5));
  done = PROTECT(Rf_allocVector(INTSXP, job.nwalkers));
  /* the engine's copy of the start, returned as the array 3 x n x walkers
   * (R makes no other copy of it) */
  c2 = PROTECT(Rf_allocVector(REALSXP, XLENGTH(coords)));
  memcpy(REAL(c2), REAL(coords), (size_t)XLENGTH(coords) * sizeof(double));
  {
    SEXP dim = PROTECT(Rf_allocVector(INTSXP, 3));
    INTEGER(dim)[0] = 3;
    INTEGER(dim)[1] = job.n;
    INTEGER(dim)[2] = job.nwalkers;
    Rf_setAttrib(c2, R_DimSymbol, dim);
    UNPROTECT(1);
  }
  s2 = PROTECT(Rf_duplicate(step));
  m2 = PROTECT(Rf_duplicate(moves));
  hist = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.nwalkers * job.nbins));
  out.coords = REAL(c2);
  out.step = REAL(s2);
  out.moves = REAL(m2);
  out.block = REAL(block);
  out.done = INTEGER(done);
  out.hist = job.nbins > 0 ? REAL(hist) : NULL;
  token = PROTECT(R_MakeUnwindCont());
  bar = PROTECT(sp_r_progress_bar(
      sp_r_int(progress),
      (double)job.nwalkers * (double)(job.equilibration + job.blocks * job.block_sweeps),
      "Walker sweeps"));
  sp_r_hooks_init(&ctx, &hooks, bar, token);
  if (ndev == 0)
    st = sp_vmc_cpu(&job, &out, sp_threads_get(), &hooks, &info);
  else
    st = sp_gpu_vmc(CHAR(STRING_ELT(gpu_key, 0)), &job, &out, devs, ndev, &hooks, &info);
  sp_r_hooks_end(&ctx);
  sp_r_check(st);
  SET_VECTOR_ELT(res, 0, block);
  SET_VECTOR_ELT(res, 1, done);
  SET_VECTOR_ELT(res, 2, c2);
  SET_VECTOR_ELT(res, 3, s2);
  SET_VECTOR_ELT(res, 4, m2);
  SET_VECTOR_ELT(res, 5, hist);
  SET_VECTOR_ELT(res, 6, sp_r_run_info(&info));
  UNPROTECT(9);
  return res;
}

/* Start positions (n x 3 x walkers) of global walkers walker0 .. walker0 +
 * nwalkers - 1 in a box of side L (sp_vmc_lattice). */
SEXP sp_r_vmc_lattice(SEXP n, SEXP L, SEXP seed, SEXP walker0, SEXP nwalkers) {
  sp_vmc_job job;
  int w, nw = sp_r_int(nwalkers);
  uint64_t w0 = sp_r_u64(walker0);
  SEXP out;
  job.n = sp_r_int(n);
  job.pair.L = sp_r_dbl(L);
  job.seed = sp_r_u64(seed);
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)job.n * 3 * nw));
  for (w = 0; w < nw; w++)
    sp_vmc_lattice(&job, w0 + (uint64_t)w, REAL(out) + (size_t)w * (size_t)job.n * 3);
  UNPROTECT(1);
  return out;
}

/* The checks of a walkers' state (he4_vmc(start = )): coords (3 x n x
 * walkers doubles), in a box of side L.  c(i, w): i the first (1-based)
 * coordinate that is not a number in [0, hi], else 0; when i = 0, w the
 * first walker with two atoms closer than d (minimum image), else 0. */
SEXP sp_r_vmc_check_coords(SEXP coords, SEXP n, SEXP L, SEXP hi, SEXP d) {
  int nn = sp_r_int(n), w = 0;
  R_xlen_t len = XLENGTH(coords);
  size_t bad;
  SEXP out;
  if (TYPEOF(coords) != REALSXP || nn < 1 || len % (3 * (R_xlen_t)nn) != 0)
    Rf_error("internal error: coordinates must be 3 x n x walkers doubles");
  bad = sp_vmc_coords_outside(REAL(coords), (size_t)len, sp_r_dbl(hi));
  if (bad == 0)
    sp_r_check(sp_vmc_close_pair(REAL(coords), nn, (int)(len / (3 * (R_xlen_t)nn)),
                                 sp_r_dbl(L), sp_r_dbl(d), &w));
  out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = (double)bad;
  REAL(out)[1] = (double)w;
  UNPROTECT(1);
  return out;
}
