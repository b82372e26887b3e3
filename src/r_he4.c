/* .Call glue for the pair physics of liquid 4He (inst/cuda/he4.h) and the
 * CPU local energy (core/sp_he4_energy.c).  The R side (R/he4.R) has
 * checked every argument; `single` (tests only) evaluates the header's
 * single-precision functions, the ones the float kernels use. */
#include <math.h>

#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_he4_energy.h"

#define SP_REAL float
#define SP_REAL_SINGLE 1
#include "he4.h"
#undef SP_REAL
#undef SP_REAL_SINGLE
#define SP_REAL double
#include "he4.h"

static sp_he4_pair sp_r_he4_pair(SEXP b, SEXP L, SEXP form) {
  sp_he4_pair a;
  a.b = sp_r_dbl(b);
  a.L = sp_r_dbl(L);
  a.form = sp_r_int(form);
  a.rc = a.form == SP_HE4_JASTROW_FREE ? INFINITY : 0.5 * a.L;
  a.pad_ = 0;
  if (a.form < SP_HE4_JASTROW_FREE || a.form > SP_HE4_JASTROW_SYMMETRIZED)
    Rf_error("internal error: unknown Jastrow form %d", (int)a.form);
  return a;
}

/* V(r) of every element of r (double vector). */
SEXP sp_r_he4_aziz(SEXP r, SEXP single) {
  R_xlen_t i, n = XLENGTH(r);
  int sgl = sp_r_int(single);
  const double *x = REAL(r);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  double *o = REAL(out);
  for (i = 0; i < n; i++)
    o[i] = sgl ? (double)sp_he4_aziz_f((float)x[i]) : sp_he4_aziz_d(x[i]);
  UNPROTECT(1);
  return out;
}

/* u, u' or u'' (deriv 0, 1, 2) of the Jastrow exponent in the given form
 * (0 free, 1 truncated, 2 symmetrised; L = Inf with the free form). */
SEXP sp_r_he4_jastrow(SEXP r, SEXP b, SEXP L, SEXP form, SEXP deriv, SEXP single) {
  R_xlen_t i, n = XLENGTH(r);
  int sgl = sp_r_int(single), k = sp_r_int(deriv);
  sp_he4_pair a = sp_r_he4_pair(b, L, form);
  sp_he4_par_f pf;
  sp_he4_par_d pd;
  const double *x = REAL(r);
  SEXP out;
  double *o;
  if (k < 0 || k > 2) Rf_error("internal error: derivative %d", k);
  sp_he4_par_load_f(&pf, &a);
  sp_he4_par_load_d(&pd, &a);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  o = REAL(out);
  for (i = 0; i < n; i++) {
    double d[3];
    if (sgl) {
      float f[3];
      sp_he4_jastrow_f(&pf, (float)x[i], &f[0], &f[1], &f[2]);
      d[0] = f[0];
      d[1] = f[1];
      d[2] = f[2];
    } else {
      sp_he4_jastrow_d(&pd, x[i], &d[0], &d[1], &d[2]);
    }
    o[i] = d[k];
  }
  UNPROTECT(1);
  return out;
}

/* The local energy per atom of one configuration: coords is an N x 3
 * double matrix (R's column-major order), L a finite box side, form 1
 * (truncated) or 2 (symmetrised). */
SEXP sp_r_he4_local_energy(SEXP coords, SEXP L, SEXP b, SEXP form) {
  static const char *const names[] = {"potential", "kinetic_pb", "kinetic_jf",
                                      "kinetic_grad"};
  R_xlen_t n = XLENGTH(coords) / 3, i;
  sp_he4_pair a = sp_r_he4_pair(b, L, form);
  sp_he4_energy e;
  double *xyz, v[4];
  const double *c;
  if (TYPEOF(coords) != REALSXP || XLENGTH(coords) != 3 * n)
    Rf_error("internal error: coordinates must be a double N x 3 matrix");
  c = REAL(coords);
  xyz = (double *)R_alloc((size_t)(n > 0 ? 3 * n : 1), sizeof *xyz);
  for (i = 0; i < n; i++) {
    xyz[3 * i] = c[i];
    xyz[3 * i + 1] = c[n + i];
    xyz[3 * i + 2] = c[2 * n + i];
  }
  sp_r_check(sp_he4_local_energy(xyz, (int64_t)n, &a, &e));
  v[0] = e.potential;
  v[1] = e.kinetic_pb;
  v[2] = e.kinetic_jf;
  v[3] = e.kinetic_grad;
  return sp_r_named_reals(names, v, 4);
}
