/* The local energy of liquid 4He on the CPU (see sp_he4_energy.h). */
#include "sp_he4_energy.h"

#include <math.h>
#include <stdlib.h>

#include "sp_error.h"

#define SP_REAL double
#include "he4.h"

int sp_he4_local_energy(const double *xyz, int64_t n, const sp_he4_pair *pair,
                        sp_he4_energy *out) {
  sp_he4_par_d p;
  double *grad, *lap, pot = 0.0, slap = 0.0, sg2 = 0.0;
  int64_t i, j;
  if (n < 2) return sp_fail(SP_ERR_INVALID, "the local energy needs at least 2 atoms, not %lld",
                            (long long)n);
  if (!(pair->L > 0.0) || !isfinite(pair->L) || pair->rc != 0.5 * pair->L ||
      !(pair->b > 0.0) || !isfinite(pair->b) ||
      (pair->form != SP_HE4_JASTROW_TRUNCATED && pair->form != SP_HE4_JASTROW_SYMMETRIZED))
    return sp_fail(SP_ERR_INVALID,
                   "internal error: he4 pair parameters b = %g, L = %g, rc = %g, form %d",
                   pair->b, pair->L, pair->rc, (int)pair->form);
  grad = (double *)calloc((size_t)n * 3, sizeof *grad);
  lap = (double *)calloc((size_t)n, sizeof *lap);
  if (grad == NULL || lap == NULL) {
    free(grad);
    free(lap);
    return sp_fail(SP_ERR_NOMEM, "could not allocate the work space of %lld atoms",
                   (long long)n);
  }
  sp_he4_par_load_d(&p, pair);
  for (i = 0; i < n; i++) {
    const double *a = xyz + 3 * i;
    for (j = i + 1; j < n; j++) {
      const double *c = xyz + 3 * j;
      double dx = sp_he4_min_image_d(&p, a[0] - c[0]);
      double dy = sp_he4_min_image_d(&p, a[1] - c[1]);
      double dz = sp_he4_min_image_d(&p, a[2] - c[2]);
      double v, g, l;
      if (dx * dx + dy * dy + dz * dz == 0.0) {
        free(grad);
        free(lap);
        return sp_fail(SP_ERR_INVALID, "atoms %lld and %lld are at the same place",
                       (long long)i + 1, (long long)j + 1);
      }
      if (!sp_he4_pair_terms_d(&p, dx, dy, dz, &v, &g, &l)) continue;
      pot += v;
      grad[3 * i] += g * dx;
      grad[3 * i + 1] += g * dy;
      grad[3 * i + 2] += g * dz;
      grad[3 * j] -= g * dx;
      grad[3 * j + 1] -= g * dy;
      grad[3 * j + 2] -= g * dz;
      lap[i] += l;
      lap[j] += l;
    }
  }
  for (i = 0; i < n; i++) {
    const double *g = grad + 3 * i;
    slap += lap[i];
    sg2 += g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
  }
  free(grad);
  free(lap);
  out->potential = pot / (double)n;
  out->kinetic_pb = -0.5 * SP_HE4_HB2M * (slap + sg2) / (double)n;
  out->kinetic_jf = -0.25 * SP_HE4_HB2M * slap / (double)n;
  out->kinetic_grad = 0.5 * SP_HE4_HB2M * sg2 / (double)n;
  return SP_OK;
}
