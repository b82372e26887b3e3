#include "r_util.h"

#include "core/sp_error.h"

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

void sp_r_check(int status) {
  if (status == SP_OK) return;
  Rf_error("%s", sp_last_error());
}
