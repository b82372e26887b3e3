/* curand_check.cu: cuRAND's own Philox4x32-10 stream, for the test that the
 * package's streams are cuRAND's: stream i of seed s from draw `offset` is
 * curand_init(s, subsequence = i, offset) followed by curand4().  Needs the
 * toolkit's headers (curand_kernel.h) on NVRTC's include path. */
#include <curand_kernel.h>

#include "rng_args.h"

extern "C" __global__ void sp_curand_check_kernel(const sp_curand_check_args a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.nstreams) return;
  curandStatePhilox4_32_10_t st;
  curand_init(a.seed, a.stream0 + (unsigned long long)i, a.offset, &st);
  for (int q = 0; q < a.nquads; q++) {
    uint4 v = curand4(&st);
    unsigned int *o = a.out + ((size_t)i * a.nquads + q) * 4;
    o[0] = v.x;
    o[1] = v.y;
    o[2] = v.z;
    o[3] = v.w;
  }
}
