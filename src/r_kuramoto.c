/* .Call glue of the Kuramoto model's helpers (its run goes through the
 * generic entry, src/r_model.c, and the descriptor src/models/kuramoto.c). */
#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_kuramoto.h"

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
