/* sp_lrmd_start.c: the starts lrmd() draws itself, on the CPU
 * (inst/cuda/lrmd_start.h has the draws; the many-body engine's draws on a
 * GPU run the same passes in mb_recipe.cu and share the host's part here:
 * the table of hmf_equilibrium() and the constants between the passes).
 *
 * Tiles of SP_LRMD_START_TILE particles, each summed in particle order, the
 * tiles added in tile order: the numbers do not depend on the threads. */
#include "sp_optimize.h" /* before any other code: keeps the loops optimised */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_lrmd.h"
#include "sp_threads.h"

#include "lrmd_start.h"

uint64_t sp_lrmd_start_tiles(uint64_t n) {
  return (n + SP_LRMD_START_TILE - 1) / SP_LRMD_START_TILE;
}

void sp_lrmd_vm_table(double kappa, double *cdf, double *grid, int32_t *guide) {
  const int N = SP_LRMD_VM_GRID;
  const double pi = 3.141592653589793238463, h = 2.0 * pi / N;
  double f, prev;
  int k, i;
  for (k = 0; k < N; k++) grid[k] = -pi + k * h;
  grid[N] = pi;
  /* the trapezoidal integral of exp(kappa (cos - 1)), normalised */
  cdf[0] = 0;
  prev = exp(kappa * (cos(grid[0]) - 1.0));
  for (k = 1; k <= N; k++) {
    f = exp(kappa * (cos(grid[k]) - 1.0));
    cdf[k] = cdf[k - 1] + (f + prev) / 2.0;
    prev = f;
  }
  for (k = 1; k < N; k++) cdf[k] /= cdf[N];
  cdf[N] = 1;
  /* guide[b]: the last i with cdf[i] <= b / SP_LRMD_VM_GUIDE */
  for (i = 0, k = 0; k < SP_LRMD_VM_GUIDE; k++) {
    const double b = (double)k / SP_LRMD_VM_GUIDE;
    while (cdf[i + 1] <= b) i++;
    guide[k] = i;
  }
}

/* The tiles' sums of pass 0 added in tile order: S[0 .. 3], the largest
 * momentum and the largest negated one. */
static void sp_lrmd_start_reduce0(const double *part, uint64_t ntile, double S[4], double *hi,
                                  double *lo) {
  uint64_t t;
  int j;
  S[0] = S[1] = S[2] = S[3] = 0;
  *hi = *lo = -HUGE_VAL;
  for (t = 0; t < ntile; t++) {
    const double *q = part + SP_LRMD_START_NSUMS * t;
    for (j = 0; j < 4; j++) S[j] += q[j];
    if (q[4] > *hi) *hi = q[4];
    if (q[5] > *lo) *lo = q[5];
  }
}

int sp_lrmd_start_after0(const sp_lrmd_start *s, const double *part, uint64_t ntile,
                         sp_lrmd_start_consts *k) {
  const double dn = (double)s->n;
  double S[4];
  memset(k, 0, sizeof *k);
  sp_lrmd_start_reduce0(part, ntile, S, &k->hi, &k->lo);
  k->scale = 1;
  if (s->kind == SP_LRMD_START_SHELL) {
    k->passes = 2;
    k->shift0 = S[2] / dn;
    k->shift1 = S[3] / dn;
    return SP_OK;
  }
  if (s->kind == SP_LRMD_START_RING && !(s->a > 0)) {
    k->passes = 1;
    return SP_OK;
  }
  k->shift0 = S[2] / dn;
  /* |p - mean| is largest at an extreme of p (rounding is monotone) */
  k->pmax = fmax(k->hi - k->shift0, k->lo + k->shift0);
  if (s->kind != SP_LRMD_START_WATERBAG) {
    k->passes = 2;
    return SP_OK;
  }
  {
    const double C = S[0] / dn, Sn = S[1] / dn, M2 = C * C + Sn * Sn;
    k->passes = 3;
    k->kin = s->U - (1.0 - M2) / 2.0;
    if (k->kin < 0)
      return sp_fail(SP_ERR_START,
                     "`U` = %.7g is below the potential energy per particle of the drawn angles "
                     "(%.7g): with M0 = %.7g, U must exceed (1 - M0^2)/2 = %.7g by the sampling "
                     "fluctuation; raise U or n.",
                     s->U, (1.0 - M2) / 2.0, s->M0, (1.0 - s->M0 * s->M0) / 2.0);
  }
  return SP_OK;
}

void sp_lrmd_start_after1(const sp_lrmd_start *s, const double *part, uint64_t ntile,
                          sp_lrmd_start_consts *k) {
  double W = 0;
  uint64_t t;
  for (t = 0; t < ntile; t++) W += part[SP_LRMD_START_NSUMS * t];
  k->scale = sqrt(2.0 * k->kin / (W / (double)s->n));
  k->pmax = k->pmax * k->scale;
}

/* Pass 0 of tile t: the raw draws and the tile's sums into q (NSUMS). */
static void sp_lrmd_start_tile0(const sp_lrmd_start *s, uint64_t t, const double *cdf,
                                const double *grid, const int32_t *guide, double *q0, double *q1,
                                double *p0, double *q) {
  const uint64_t n = s->n, b0 = t * (SP_LRMD_START_TILE / 4);
  uint64_t b1 = b0 + SP_LRMD_START_TILE / 4, b;
  if (b1 > (n + 3) / 4) b1 = (n + 3) / 4;
  sp_lrmd_start_zero(q);
  for (b = b0; b < b1; b++) {
    double x[4], y[4], p[4];
    int k;
    sp_lrmd_start_raw(s->kind, s->seed, s->replica, s->a, s->b, b, cdf, grid, guide, x, y, p);
    for (k = 0; k < 4 && 4 * b + k < n; k++) {
      const uint64_t i = 4 * b + k;
      q0[i] = x[k];
      p0[i] = p[k];
      if (q1 != NULL) q1[i] = y[k];
      sp_lrmd_start_add(s->kind, x[k], y[k], p[k], q);
    }
  }
}

/* Pass 1 (and 2) of tile t. */
static void sp_lrmd_start_tile(const sp_lrmd_start *s, const sp_lrmd_start_consts *k, int pass,
                               uint64_t t, double *q0, double *q1, double *p0, double *q) {
  const uint64_t i0 = t * SP_LRMD_START_TILE;
  const uint64_t i1 = i0 + SP_LRMD_START_TILE < s->n ? i0 + SP_LRMD_START_TILE : s->n;
  const double m0 = k->shift0, m1 = k->shift1, sc = k->scale;
  uint64_t i;
  if (s->kind == SP_LRMD_START_SHELL) {
    for (i = i0; i < i1; i++) {
      q0[i] = q0[i] - m0;
      q1[i] = q1[i] - m1;
    }
  } else if (s->kind != SP_LRMD_START_WATERBAG) {
    for (i = i0; i < i1; i++) p0[i] = p0[i] - m0;
  } else if (pass == 1) {
    double w2 = 0;
    for (i = i0; i < i1; i++) {
      const double w = p0[i] - m0;
      w2 += w * w;
    }
    q[0] = w2;
  } else {
    for (i = i0; i < i1; i++) p0[i] = (p0[i] - m0) * sc;
  }
}

int sp_lrmd_start_draw(const sp_lrmd_start *s, double *q0, double *q1, double *p0, double *p1,
                       int nth, double *pmax) {
  const uint64_t n = s->n, ntile = sp_lrmd_start_tiles(n);
  const int table = s->kind == SP_LRMD_START_EQUILIBRIUM && s->b > 0;
  double *part, *cdf = NULL, *grid = NULL;
  int32_t *guide = NULL;
  sp_lrmd_start_consts k;
  int st, pass;
  int64_t t;
  (void)nth;
  part = (double *)malloc((size_t)ntile * SP_LRMD_START_NSUMS * sizeof(double));
  if (table) {
    cdf = (double *)malloc(2 * (SP_LRMD_VM_GRID + 1) * sizeof(double));
    guide = (int32_t *)malloc(SP_LRMD_VM_GUIDE * sizeof(int32_t));
  }
  if (part == NULL || (table && (cdf == NULL || guide == NULL))) {
    free(part);
    free(cdf);
    free(guide);
    return sp_fail(SP_ERR_NOMEM, "out of host memory drawing the start of %.0f particles",
                   (double)n);
  }
  if (table) {
    grid = cdf + SP_LRMD_VM_GRID + 1;
    sp_lrmd_vm_table(s->b, cdf, grid, guide);
  }
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (ntile > 1)
#endif
  for (t = 0; t < (int64_t)ntile; t++)
    sp_lrmd_start_tile0(s, (uint64_t)t, cdf, grid, guide, q0, q1, p0,
                        part + SP_LRMD_START_NSUMS * t);
  st = sp_lrmd_start_after0(s, part, ntile, &k);
  for (pass = 1; st == SP_OK && pass < k.passes; pass++) {
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (ntile > 1)
#endif
    for (t = 0; t < (int64_t)ntile; t++)
      sp_lrmd_start_tile(s, &k, pass, (uint64_t)t, q0, q1, p0, part + SP_LRMD_START_NSUMS * t);
    if (pass == 1 && k.passes == 3) sp_lrmd_start_after1(s, part, ntile, &k);
  }
  if (st == SP_OK && p1 != NULL) memset(p1, 0, (size_t)n * sizeof(double));
  free(part);
  free(cdf);
  free(guide);
  *pmax = k.pmax;
  return st;
}

/* The scan of particles [i0, i1): q[0] 0 when all finite, q[1] the sum of
 * the squared momenta, q[2] their largest absolute value. */
static void sp_lrmd_scan_tile(const double *const *cols, int ncol, int mom0, uint64_t i0,
                              uint64_t i1, double q[3]) {
  double z = 0, a = 0, sq = 0;
  uint64_t i;
  int j;
  for (j = 0; j < ncol; j++) {
    const double *x = cols[j];
    if (j < mom0) {
      for (i = i0; i < i1; i++) z += x[i] - x[i]; /* 0 for a finite x, NaN otherwise */
    } else {
      for (i = i0; i < i1; i++) {
        z += x[i] - x[i];
        sq += x[i] * x[i];
        a = fmax(a, fabs(x[i]));
      }
    }
  }
  q[0] = z;
  q[1] = sq;
  q[2] = a;
}

void sp_lrmd_scan(const double *const *cols, int ncol, int mom0, uint64_t n, int nth,
                  double out[3]) {
  const uint64_t tile = 8192, ntile = (n + tile - 1) / tile;
  double *part = (double *)malloc((size_t)(ntile > 0 ? ntile : 1) * 3 * sizeof(double)), q[3];
  uint64_t t;
  int64_t tt;
  (void)nth;
  out[0] = 1;
  out[1] = out[2] = 0;
  if (part != NULL) {
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (ntile > 1)
#endif
    for (tt = 0; tt < (int64_t)ntile; tt++) {
      const uint64_t i0 = (uint64_t)tt * tile;
      sp_lrmd_scan_tile(cols, ncol, mom0, i0, i0 + tile < n ? i0 + tile : n, part + 3 * tt);
    }
  }
  /* the tiles in order (without memory for their sums, one by one) */
  for (t = 0; t < ntile; t++) {
    const double *r = part + 3 * t;
    if (part == NULL) {
      sp_lrmd_scan_tile(cols, ncol, mom0, t * tile, t * tile + tile < n ? t * tile + tile : n, q);
      r = q;
    }
    if (r[0] != 0) out[0] = 0;
    out[1] += r[1];
    out[2] = fmax(out[2], r[2]);
  }
  free(part);
}

int sp_lrmd_system_fail(uint64_t nsys, uint64_t sys, int st) {
  sp_error_saved e;
  char msg[sizeof e.msg];
  if (st == SP_OK || nsys == 1) return st;
  sp_error_save(&e);
  snprintf(msg, sizeof msg, "system %llu: %.2000s", (unsigned long long)(sys + 1), e.msg);
  memcpy(e.msg, msg, sizeof msg);
  return sp_error_restore(&e);
}
