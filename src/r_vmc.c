/* .Call glue of the helium VMC model's helpers (its run goes through the
 * generic entry, src/r_model.c, and the descriptor src/models/vmc.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_threads.h"
#include "core/sp_vmc.h"

#include "he4_vmc.h" /* sp_vmc_walker_stream */

/* Start positions (3 x n x walkers) of walkers walker0 .. walker0 + nwalkers
 * - 1 (0-based) of each condition c, in a box of side L[c] (one per
 * condition), condition-major, each from its walker's stream
 * (sp_vmc_walker_stream, sp_vmc_lattice). */
SEXP sp_r_vmc_lattice(SEXP n, SEXP L, SEXP seed, SEXP walker0, SEXP nwalkers) {
  const int nn = sp_r_int(n), nw = sp_r_int(nwalkers);
  const uint64_t w0 = sp_r_u64(walker0), s = sp_r_u64(seed);
  R_xlen_t c, nc = XLENGTH(L);
  int w;
  SEXP out;
  if (TYPEOF(L) != REALSXP || nc < 1 || nn < 1 || nw < 0)
    Rf_error("internal error: sp_r_vmc_lattice(n, L (one per condition), seed, walker0, nwalkers)");
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nn * 3 * nw * nc));
  for (c = 0; c < nc; c++)
    for (w = 0; w < nw; w++) {
      const uint64_t jw = (uint64_t)c * (uint64_t)nw + (uint64_t)w;
      sp_vmc_lattice(nn, REAL(L)[c], s, sp_vmc_walker_stream(w0, (uint64_t)nw, jw),
                     REAL(out) + (size_t)jw * (size_t)nn * 3);
    }
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
                                 sp_r_dbl(L), sp_r_dbl(d), sp_threads_get(), &w));
  out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = (double)bad;
  REAL(out)[1] = (double)w;
  UNPROTECT(1);
  return out;
}

/* The fingerprint of a walkers' state (sp_vmc_fingerprint): coords (3 x n x
 * walkers doubles), extra (doubles), as 16 hexadecimal digits ("" when there
 * is none: out of memory). */
SEXP sp_r_vmc_fingerprint(SEXP coords, SEXP n, SEXP extra) {
  const int nn = sp_r_int(n);
  R_xlen_t len = XLENGTH(coords);
  uint64_t h;
  char buf[17];
  if (TYPEOF(coords) != REALSXP || TYPEOF(extra) != REALSXP || nn < 1 ||
      len % (3 * (R_xlen_t)nn) != 0)
    Rf_error("internal error: sp_r_vmc_fingerprint(coords (3 x n x walkers doubles), n, extra)");
  h = sp_vmc_fingerprint(REAL(coords), 3 * (size_t)nn, (size_t)(len / (3 * (R_xlen_t)nn)),
                         REAL(extra), (size_t)XLENGTH(extra), sp_threads_get());
  if (h == 0) return Rf_mkString("");
  snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return Rf_mkString(buf);
}
