/* r_testing.c: .Call entry points that exist for the tests and benchmarks
 * only (registered apart in init.c): Philox blocks and transforms, the CPU's
 * math functions, cuRAND's own stream, device memory probes. */
#include <stdlib.h>

#include "r_model.h"
#include "r_util.h"

#include "core/sp_error.h"
#include "core/sp_mb.h"
#include "gpu/sp_gpu.h"
#include "gpu/sp_gpu_rng.h"
#include "escape.h"
#include "xorsat.h"

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

/* The CPU's double sine and cosine (sp_math.h) with the quadrant chosen as
 * sp_sincos_d chose it before it took bits (an int quadrant, selects and
 * negations; GCC kept a model's loop over paths scalar with those): the same
 * reduction and polynomials.  A matrix of sin and cos, against which the
 * tests hold sp_sincos_d bit for bit. */
SEXP sp_r_sincos_d_selects(SEXP x) {
  R_xlen_t i, n = XLENGTH(x);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, n, 2));
  for (i = 0; i < n; i++) {
    uint64_t q;
    const double r = sp_reduce_pio2_d(REAL(x)[i], &q);
    const int k = (int)((uint32_t)q & 3u);
    const double sr = sp_sin_poly_d(r), cr = sp_cos_poly_d(r);
    const double a = (k & 1) ? cr : sr, b = (k & 1) ? sr : cr;
    REAL(out)[i] = (k & 2) ? -a : a;
    REAL(out)[i + n] = ((k + 1) & 2) ? -b : b;
  }
  UNPROTECT(1);
  return out;
}

SEXP sp_r_gpu_philox_moments(SEXP key, SEXP single, SEXP n, SEXP seed, SEXP stream,
                             SEXP offset, SEXP devices) {
  int ndev, *devs = sp_r_devices(devices, &ndev);
  double acc[2], ms = 0;
  SEXP out;
  sp_r_check(sp_gpu_philox_normal_moments(CHAR(STRING_ELT(key, 0)), sp_r_int(single),
                                          sp_r_u64(seed), sp_r_u64(stream),
                                          sp_r_u64(offset), sp_r_count(n), devs, ndev,
                                          acc, &ms));
  out = PROTECT(Rf_allocVector(REALSXP, 3));
  REAL(out)[0] = acc[0];
  REAL(out)[1] = acc[1];
  REAL(out)[2] = ms;
  UNPROTECT(1);
  return out;
}

SEXP sp_r_gpu_curand_check(SEXP key, SEXP dev, SEXP seed, SEXP stream0, SEXP offset,
                           SEXP nstreams, SEXP nquads) {
  int ns = sp_r_int(nstreams), nq = sp_r_int(nquads);
  size_t total = (size_t)ns * (size_t)nq * 4, i;
  uint32_t *buf = (uint32_t *)R_alloc(total > 0 ? total : 1, sizeof(uint32_t));
  SEXP out;
  sp_r_check(sp_gpu_curand_check(CHAR(STRING_ELT(key, 0)), sp_r_int(dev), sp_r_u64(seed),
                                 sp_r_u64(stream0), sp_r_u64(offset), ns, nq, buf));
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  for (i = 0; i < total; i++) REAL(out)[i] = (double)buf[i];
  UNPROTECT(1);
  return out;
}

/* Allocate `bytes` on `dev` through the checked allocator and free them
 * (tests of the out-of-memory path). */
SEXP sp_r_gpu_alloc_test(SEXP dev, SEXP bytes) {
  CUdeviceptr p = 0;
  int d = sp_r_int(dev);
  int st = sp_gpu_alloc(d, (size_t)sp_r_dbl(bytes), "the test buffer", &p);
  sp_gpu_free(d, &p);
  sp_r_check(st);
  return Rf_ScalarLogical(1);
}

/* Hold `bytes` of device memory until the returned external pointer is
 * released or collected (tests: leave too little memory for a simulation). */
typedef struct { int dev; CUdeviceptr p; } sp_r_reserved;

static void reserve_finalize(SEXP xp) {
  sp_r_reserved *r = (sp_r_reserved *)R_ExternalPtrAddr(xp);
  if (r == NULL) return;
  sp_gpu_free(r->dev, &r->p);
  free(r);
  R_ClearExternalPtr(xp);
}

SEXP sp_r_gpu_reserve_test(SEXP dev, SEXP bytes) {
  sp_r_reserved *r;
  SEXP xp;
  int d = sp_r_int(dev), st;
  CUdeviceptr p = 0;
  st = sp_gpu_alloc(d, (size_t)sp_r_dbl(bytes), "the reserved test buffer", &p);
  sp_r_check(st);
  r = (sp_r_reserved *)malloc(sizeof *r);
  if (r == NULL) {
    sp_gpu_free(d, &p);
    Rf_error("out of host memory");
  }
  r->dev = d;
  r->p = p;
  xp = PROTECT(R_MakeExternalPtr(r, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, reserve_finalize, TRUE);
  UNPROTECT(1);
  return xp;
}

SEXP sp_r_gpu_release_test(SEXP xp) {
  reserve_finalize(xp);
  return R_NilValue;
}

SEXP sp_r_gpu_live_allocations(void) {
  return Rf_ScalarReal((double)sp_gpu_live_allocations());
}

SEXP sp_r_gpu_mem_info(SEXP dev) {
  double fr = 0, tot = 0;
  SEXP out;
  sp_r_check(sp_gpu_mem_info(sp_r_int(dev), &fr, &tot));
  out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = fr;
  REAL(out)[1] = tot;
  UNPROTECT(1);
  return out;
}

/* Starts of the escape engine's paths (sp_escape_start of escape.h, as the
 * CPU engine and the kernel draw them) for condition 1 of `conds` and the
 * given streams (whole doubles): a matrix of phi and v. */
SEXP sp_r_escape_starts(SEXP conds, SEXP tables, SEXP seed, SEXP streams) {
  R_xlen_t ncond;
  const sp_escape_cond *c = (const sp_escape_cond *)sp_r_model_rows("escape", "conds", conds, &ncond);
  R_xlen_t n = XLENGTH(streams), i;
  uint64_t key = sp_r_u64(seed);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 2));
  const double *tab = XLENGTH(tables) > 0 ? REAL(tables) : NULL;
  if (ncond < 1) Rf_error("internal error: no condition");
  for (i = 0; i < n; i++) {
    double phi, v;
    sp_escape_start(c, tab, key, (uint64_t)REAL(streams)[i], &phi, &v);
    REAL(out)[i] = phi;
    REAL(out)[i + n] = v;
  }
  UNPROTECT(1);
  return out;
}

/* Per-clone p1 masks of 3-XORSAT (sp_xorsat_indep_mask) for updates 0 ..
 * count - 1 of sweep 0, word 0, run 0: the number of set bits in each and
 * the pairs of bits (0, 1) both set, for the tests of their law. */
SEXP sp_r_xorsat_masks(SEXP seed, SEXP p1, SEXP count) {
  const double p = sp_r_dbl(p1);
  const uint64_t thr = p >= 1 ? (uint64_t)1 << 32 : (uint64_t)(p * 4294967296.0);
  const int n = sp_r_int(count);
  int k;
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 2 * (R_xlen_t)n));
  for (k = 0; k < n; k++) {
    uint32_t m = sp_xorsat_indep_mask(sp_r_u64(seed), 0, 0, 0, (uint32_t)n, (uint32_t)k,
                                      sp_xorsat_p16(thr)), c = 0, x = m;
    while (x) {
      c += x & 1u;
      x >>= 1;
    }
    REAL(out)[k] = c;
    REAL(out)[n + k] = (m & 3u) == 3u;
  }
  UNPROTECT(1);
  return out;
}

/* The error record's rule, for the tests: inside a run the first failure
 * wins, outside it the last.  Returns c(message inside, message outside). */
SEXP sp_r_error_rule_test(void) {
  SEXP out = PROTECT(Rf_allocVector(STRSXP, 2));
  sp_error_run_begin();
  sp_fail(SP_ERR_CUDA, "first");
  sp_fail(SP_ERR_NOMEM, "second (clean-up)");
  SET_STRING_ELT(out, 0, Rf_mkChar(sp_last_error()));
  sp_error_run_end();
  sp_fail(SP_ERR_INVALID, "third");
  SET_STRING_ELT(out, 1, Rf_mkChar(sp_last_error()));
  sp_clear_error();
  UNPROTECT(1);
  return out;
}

/* The many-body engine's passes of one system that ran on several threads
 * (sp_mb_ext's team, issue 50) since the package was loaded. */
SEXP sp_r_mb_team_runs(void) { return Rf_ScalarReal(sp_mb_team_runs()); }
