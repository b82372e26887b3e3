/* r_mb.c: the random draws of a many-body model's starts and element
 * parameters (R/sde-mb-run.R evaluates their formulas, vectorised over the
 * elements and systems; the numbers come from here, so that both backends
 * start from the same numbers). */
#include <math.h>

#include "r_util.h"
#include "sp_streams.h"

/* Draws of one draw site `d` (of `D` an element) for elements 0..n-1 of the
 * systems of condition `cond` and global replicas `reps` (0-based): element
 * i of replica r takes block i D + d of stream cond 2^40 + r under
 * `purpose`; kind 0 a uniform on (0, 1) (53 bits of words x, y), 1 a
 * standard normal (Box-Muller on the uniforms of (x, y) and (z, w)), 2 a
 * standard Cauchy (tan(pi (u - 1/2))).  Returns n x length(reps) numbers,
 * the elements of a replica consecutive. */
SEXP sp_r_mb_draws(SEXP seed, SEXP purpose, SEXP cond, SEXP reps, SEXP n_, SEXP D_, SEXP d_,
                   SEXP kind_) {
  const uint64_t key = sp_r_u64(seed), n = sp_r_count(n_), D = sp_r_count(D_),
                 d = sp_r_count(d_), c = sp_r_count(cond);
  const uint32_t pur = (uint32_t)sp_r_int(purpose);
  const int kind = sp_r_int(kind_);
  const R_xlen_t nr = XLENGTH(reps);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n * nr));
  double *o = REAL(out);
  const double *rp = REAL(reps);
  R_xlen_t r;
  uint64_t i;
  for (r = 0; r < nr; r++) {
    const uint64_t stream = sp_stream_replica(c, (uint64_t)rp[r]);
    for (i = 0; i < n; i++) {
      sp_u32x4 b = sp_philox_purpose_block(key, pur, stream, i * D + d);
      const double u1 = ((double)((uint64_t)b.x << 21 | b.y >> 11) + 0.5) * 0x1p-53;
      double v;
      if (kind == 0) {
        v = u1;
      } else if (kind == 1) {
        const double u2 = ((double)((uint64_t)b.z << 21 | b.w >> 11) + 0.5) * 0x1p-53;
        v = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
      } else {
        v = tan(M_PI * (u1 - 0.5));
      }
      o[(uint64_t)r * n + i] = v;
    }
  }
  UNPROTECT(1);
  return out;
}
