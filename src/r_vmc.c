/* .Call glue of the helium VMC model's helpers (its run goes through the
 * generic entry, src/r_model.c, and the descriptor src/models/vmc.c). */
#include <math.h>
#include <string.h>

#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_vmc.h"

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
