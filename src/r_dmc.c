/* .Call glue of helium DMC beyond the generic model entry: the draws of a
 * generation (tests replay a walker's moves from them). */
#include "r_util.h"

#include "core/sp_dmc.h"

/* list(normals = n x 3 matrix (atom-major rows), uniforms = c(accept,
 * branch)) of generation gen of Philox stream `stream` (c(lo, hi) halves
 * as check_u64() gives them, like the seed). */
SEXP sp_r_dmc_draws(SEXP seed, SEXP stream, SEXP gen, SEXP n) {
  const int na = sp_r_int(n);
  SEXP z, u, out, nm, dim;
  if (na < 1) Rf_error("internal error: sp_r_dmc_draws(n < 1)");
  z = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)3 * na));
  u = PROTECT(Rf_allocVector(REALSXP, 2));
  {
    double *t = (double *)R_alloc((size_t)3 * na, sizeof(double));
    int i, c;
    sp_dmc_draws(sp_r_u64(seed), sp_r_u64(stream), sp_r_u64(gen), na, t, REAL(u));
    for (i = 0; i < na; i++)
      for (c = 0; c < 3; c++) REAL(z)[i + (R_xlen_t)na * c] = t[3 * i + c];
  }
  dim = PROTECT(Rf_allocVector(INTSXP, 2));
  INTEGER(dim)[0] = na;
  INTEGER(dim)[1] = 3;
  Rf_setAttrib(z, R_DimSymbol, dim);
  out = PROTECT(Rf_allocVector(VECSXP, 2));
  nm = PROTECT(Rf_allocVector(STRSXP, 2));
  SET_VECTOR_ELT(out, 0, z);
  SET_VECTOR_ELT(out, 1, u);
  SET_STRING_ELT(nm, 0, Rf_mkChar("normals"));
  SET_STRING_ELT(nm, 1, Rf_mkChar("uniforms"));
  Rf_setAttrib(out, R_NamesSymbol, nm);
  UNPROTECT(5);
  return out;
}
