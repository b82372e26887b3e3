#include "r_util.h"

#if defined(__linux__)
#  include <sys/mman.h>
#endif

#include "core/sp_error.h"

void sp_r_hugepages(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1),
                  e = ((uintptr_t)p + bytes) & ~(page - 1);
  if (p != NULL && bytes >= ((size_t)4 << 20) && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}


static uint32_t sp_r_u32_value(double v) {
  if (!(v >= 0 && v < 4294967296.0) || v != (double)(uint32_t)v)
    Rf_error("internal error: %g is not a whole number in [0, 2^32)", v);
  return (uint32_t)v;
}

uint64_t sp_r_u64(SEXP x) {
  if (TYPEOF(x) != REALSXP || XLENGTH(x) != 2)
    Rf_error("internal error: a 64-bit value must come as c(lo, hi)");
  return (uint64_t)sp_r_u32_value(REAL(x)[0]) |
         ((uint64_t)sp_r_u32_value(REAL(x)[1]) << 32);
}

uint32_t sp_r_u32(SEXP x, R_xlen_t i) {
  if (TYPEOF(x) != REALSXP || i >= XLENGTH(x))
    Rf_error("internal error: expected a double vector of 32-bit values");
  return sp_r_u32_value(REAL(x)[i]);
}

uint64_t sp_r_count(SEXP x) {
  double v = Rf_asReal(x);
  if (!(v >= 0 && v <= 4503599627370496.0) || v != (double)(uint64_t)v)
    Rf_error("internal error: %g is not a whole number in [0, 2^52]", v);
  return (uint64_t)v;
}

int sp_r_int(SEXP x) { return Rf_asInteger(x); }

double sp_r_dbl(SEXP x) { return Rf_asReal(x); }

void sp_r_stop_classed(const char *msg, const char *cls) {
  const char *fields[] = {"message", "call", ""};
  SEXP cond = PROTECT(Rf_mkNamed(VECSXP, fields));
  SEXP klass = PROTECT(Rf_allocVector(STRSXP, 4));
  SEXP call;
  SET_VECTOR_ELT(cond, 0, Rf_mkString(msg));
  SET_VECTOR_ELT(cond, 1, R_NilValue);
  SET_STRING_ELT(klass, 0, Rf_mkChar(cls));
  SET_STRING_ELT(klass, 1, Rf_mkChar("statphysgpu_error"));
  SET_STRING_ELT(klass, 2, Rf_mkChar("error"));
  SET_STRING_ELT(klass, 3, Rf_mkChar("condition"));
  Rf_setAttrib(cond, R_ClassSymbol, klass);
  call = PROTECT(Rf_lang2(Rf_install("stop"), cond));
  Rf_eval(call, R_BaseEnv);
  UNPROTECT(3); /* not reached */
}

void sp_r_check(int status) {
  if (status == SP_OK) return;
  /* a non-finite state is an error of its own class (never partial data) */
  if (status == SP_ERR_NOT_FINITE) sp_r_stop_classed(sp_last_error(), "statphysgpu_not_finite");
  if (status == SP_ERR_START) sp_r_stop_classed(sp_last_error(), "statphysgpu_start_error");
  if (status == SP_ERR_RESOLUTION) sp_r_stop_classed(sp_last_error(), "statphysgpu_resolution");
  Rf_error("%s", sp_last_error());
}

SEXP sp_r_named_reals(const char *const *names, const double *values, int n) {
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, n));
  int i;
  for (i = 0; i < n; i++) {
    REAL(out)[i] = values[i];
    SET_STRING_ELT(nms, i, Rf_mkChar(names[i]));
  }
  Rf_setAttrib(out, R_NamesSymbol, nms);
  UNPROTECT(2);
  return out;
}

int *sp_r_devices(SEXP devices, int *n) {
  int i, *d;
  *n = Rf_length(devices);
  d = (int *)R_alloc((size_t)(*n > 0 ? *n : 1), sizeof(int));
  for (i = 0; i < *n; i++) d[i] = INTEGER(devices)[i];
  return d;
}

R_xlen_t sp_r_rows(SEXP cols) {
  return Rf_length(cols) > 0 ? XLENGTH(VECTOR_ELT(cols, 0)) : 0;
}
