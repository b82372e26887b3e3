#include "sp_optimize.h" /* before any other code: keeps the hot loops optimised */
#include "sp_rng.h"

#include "philox.h"
#include "sp_error.h"

int sp_philox_fill(int kind, int single, uint64_t seed, uint64_t stream,
                   uint64_t offset, uint64_t n, double *out, int nth) {
  int64_t ngroups = (int64_t)((n + 3) / 4), g;
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static)
#endif
  for (g = 0; g < ngroups; g++) {
    double v[4];
    uint64_t j0 = 4 * (uint64_t)g, k;
    sp_philox_group(kind, single, seed, stream, offset, (uint64_t)g, v);
    for (k = 0; k < 4 && j0 + k < n; k++) out[j0 + k] = v[k];
  }
  return SP_OK;
}
