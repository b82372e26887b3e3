/* .Call glue for the Philox draws. */
#include "r_util.h"

#include "core/sp_rng.h"
#include "core/sp_threads.h"
#include "philox.h"

SEXP sp_r_philox_cpu(SEXP kind, SEXP single, SEXP n, SEXP seed, SEXP stream,
                     SEXP offset) {
  uint64_t nn = sp_r_count(n);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)nn));
  int status = sp_philox_fill(sp_r_int(kind), sp_r_int(single), sp_r_u64(seed),
                              sp_r_u64(stream), sp_r_u64(offset), nn, REAL(out),
                              sp_threads_get());
  sp_r_check(status);
  UNPROTECT(1);
  return out;
}

/* One Philox4x32-10 block for an arbitrary 128-bit counter and 64-bit key,
 * each given as 32-bit words (the known-answer vectors of Random123). */
SEXP sp_r_philox_block(SEXP ctr, SEXP key) {
  sp_u32x4 c, r;
  SEXP out;
  c.x = sp_r_u32(ctr, 0);
  c.y = sp_r_u32(ctr, 1);
  c.z = sp_r_u32(ctr, 2);
  c.w = sp_r_u32(ctr, 3);
  r = sp_philox4x32_10(c, sp_r_u32(key, 0), sp_r_u32(key, 1));
  out = PROTECT(Rf_allocVector(REALSXP, 4));
  REAL(out)[0] = r.x;
  REAL(out)[1] = r.y;
  REAL(out)[2] = r.z;
  REAL(out)[3] = r.w;
  UNPROTECT(1);
  return out;
}

/* The uniform transform applied to given 32-bit values (tests of its range). */
SEXP sp_r_uniform_transform(SEXP x, SEXP single) {
  R_xlen_t i, n = XLENGTH(x);
  int sgl = sp_r_int(single);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  for (i = 0; i < n; i++) {
    uint32_t v = sp_r_u32(x, i);
    REAL(out)[i] = sgl ? (double)sp_u01_float(v) : sp_u01_double(v);
  }
  UNPROTECT(1);
  return out;
}

/* The CPU's branch-free sin, cos and log of sp_math.h on given values
 * (tests of their accuracy against libm).  fn: 0 sin, 1 cos, 2 log. */
SEXP sp_r_math(SEXP fn, SEXP x, SEXP single) {
  R_xlen_t i, n = XLENGTH(x);
  int f = sp_r_int(fn), sgl = sp_r_int(single);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  for (i = 0; i < n; i++) {
    double v = REAL(x)[i], r;
    if (sgl) {
      float s, c;
      sp_sincos_f((float)v, &s, &c);
      r = f == 0 ? s : (f == 1 ? c : sp_log_f((float)v));
    } else {
      double s, c;
      sp_sincos_d(v, &s, &c);
      r = f == 0 ? s : (f == 1 ? c : sp_log_d(v));
    }
    REAL(out)[i] = r;
  }
  UNPROTECT(1);
  return out;
}
