/* he4_check.cu: the pair physics of he4.h evaluated on the device, in the
 * variant's precision (SP_REAL float with SP_REAL_SINGLE, or double), one
 * thread per distance: out[4 i .. 4 i + 3] = V(r_i), u(r_i), u'(r_i),
 * u''(r_i) for the Jastrow form of `pair`.  It makes NVRTC compile the
 * header (and its argument struct) in both precisions (gpu_kernels_check()
 * and test-he4-physics.R).  No host code launches it yet; with a launcher,
 * a GPU test can compare the device's values with the CPU's. */
#include "he4.h"

extern "C" __global__ void sp_he4_check_kernel(const sp_he4_pair pair, const double *r,
                                               double *out, unsigned long long n) {
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  SP_HE4(sp_he4_par) p;
  SP_REAL x, u, du, d2u;
  if (i >= n) return;
  SP_HE4(sp_he4_par_load)(&p, &pair);
  x = (SP_REAL)r[i];
  SP_HE4(sp_he4_jastrow)(&p, x, &u, &du, &d2u);
  out[4 * i] = (double)SP_HE4(sp_he4_aziz)(x);
  out[4 * i + 1] = (double)u;
  out[4 * i + 2] = (double)du;
  out[4 * i + 3] = (double)d2u;
}
