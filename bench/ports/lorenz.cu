// lorenz.cu: the Lorenz model with additive noise as a plain CUDA port:
//   dx = sigma (y - x) dt + eps dW1, dy = (x (rho - z) - y) dt + eps dW2,
//   dz = (x y - b z) dt + eps dW3,
// one thread a trajectory, Euler-Maruyama, single precision, cuRAND's
// Philox (curand_init + curand_normal), --use_fast_math; the moments of
// x, y, z over the trajectories (sums and sums of squares in double,
// atomicAdd of each warp's sums) every 100 steps, as bench/sde.R's model
// does with output = "moments".
//
//   lorenz <trajectories = 2^20> <steps = 1000>
//
// Prints trajectory-steps per second of kernel time, after a warm-up.
#include <vector>

#include <curand_kernel.h>

#include "common.cuh"

#define RECORD 100

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void lorenz(int n, int steps, float dt, unsigned long long seed, double *sums) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool in = i < n;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, i, 0, &st);
  const float sigma = 10.0f, rho = 28.0f, b = 8.0f / 3.0f, eps = 0.5f;
  const float sdt = sqrtf(dt) * eps;
  float x = 1, y = 1, z = 1;
  for (int k = 1; k <= steps; k++) {
    const float fx = sigma * (y - x), fy = x * (rho - z) - y, fz = x * y - b * z;
    x += fx * dt + sdt * curand_normal(&st);
    y += fy * dt + sdt * curand_normal(&st);
    z += fz * dt + sdt * curand_normal(&st);
    if (k % RECORD == 0) {
      double *s = sums + (k / RECORD) * 6;
      const double v[6] = {in ? x : 0., in ? y : 0., in ? z : 0., in ? (double)x * x : 0.,
                           in ? (double)y * y : 0., in ? (double)z * z : 0.};
      for (int j = 0; j < 6; j++) {
        const double w = warp_sum(v[j]);
        if ((threadIdx.x & 31) == 0) atomicAdd(&s[j], w);
      }
    }
  }
}

int main(int argc, char **argv) {
  const int n = (int)arg_or(argc, argv, 1, 1048576);
  const int steps = (int)arg_or(argc, argv, 2, 1000);
  const float dt = 0.001f;
  double *sums;
  const size_t nsum = (size_t)(steps / RECORD + 1) * 6;
  CK(cudaMalloc(&sums, nsum * sizeof(double)));
  CK(cudaMemset(sums, 0, nsum * sizeof(double)));
  const int block = 128, grid = (n + block - 1) / block;
  lorenz<<<grid, block>>>(n, RECORD, dt, 7, sums); // warm-up
  CK(cudaGetLastError());
  CK(cudaMemset(sums, 0, nsum * sizeof(double)));
  const double ms = timed_ms([&] { lorenz<<<grid, block>>>(n, steps, dt, 1, sums); });
  std::vector<double> hs(nsum);
  CK(cudaMemcpy(hs.data(), sums, nsum * sizeof(double), cudaMemcpyDeviceToHost));
  const size_t last = (size_t)(steps / RECORD) * 6;
  std::fprintf(stderr, "lorenz port: %d trajectories x %d steps, <x> = %.4g, <z> = %.4g at the end, %.3f s\n",
               n, steps, hs[last] / n, hs[last + 2] / n, ms / 1000);
  print_rate((double)n * steps / (ms / 1000), "trajectory-steps/s");
  return 0;
}
