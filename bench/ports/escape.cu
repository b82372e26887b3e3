// escape.cu: Algorithm 1 of paper 000 (Pierro et al. 2018), the escape
// time of a path over the tilted washboard, as a plain CUDA port: one
// thread a path, Euler steps, single precision, cuRAND's Philox
// (curand_init + curand_normal), built with --use_fast_math; a path runs
// until it escapes (phi > pi - asin(gamma)) or reaches klim steps, and its
// lane is not refilled (a warp runs as long as its longest path).
//
//   escape <paths = 2^20> <klim = 1e9> <DU/theta = 6>
//
// The case of bench/escape.R and bench/whole-call.R: V0 = 1, beta = 0.2,
// gamma = 0.5, h = 0.01, theta = Delta U / 6.  Prints the useful steps
// (the steps of every path up to its escape) per second of kernel time,
// after a warm-up launch.
#include <cmath>
#include <vector>

#include <curand_kernel.h>

#include "common.cuh"

__global__ void escape_time(float *Te, unsigned long long *steps, int npaths, float V0,
                            float beta, float gamma, float D, float h, long long klim,
                            unsigned long long seed) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos >= npaths) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, pos, 0, &st);
  const float sigma = sqrtf(2.0f * D * h);
  const float phi0 = asinf(gamma);
  const float th = 3.14159265358979f - phi0;
  float phi = phi0, v = 0.0f;
  for (long long k = 1; k <= klim; k++) {
    const float r = curand_normal(&st);
    const float phin = phi + v * h;
    v = v + (-beta * v - V0 * sinf(phi) + V0 * gamma) * h + sigma * r;
    phi = phin;
    if (phi > th) {
      Te[pos] = k * h;
      steps[pos] = k;
      return;
    }
  }
  Te[pos] = -1;
  steps[pos] = klim;
}

int main(int argc, char **argv) {
  const int n = (int)arg_or(argc, argv, 1, 1048576);
  const long long klim = (long long)arg_or(argc, argv, 2, 1e9);
  const double ratio = arg_or(argc, argv, 3, 6);
  const double V0 = 1, beta = 0.2, gamma = 0.5, h = 0.01;
  const double DU = 2 * V0 * (std::sqrt(1 - gamma * gamma) - gamma * std::acos(gamma));
  const double theta = DU / ratio, D = beta * theta;
  float *Te;
  unsigned long long *steps;
  CK(cudaMalloc(&Te, n * sizeof(float)));
  CK(cudaMalloc(&steps, n * sizeof(unsigned long long)));
  const int block = 128, grid = (n + block - 1) / block;
  // warm-up: a short run of every path
  escape_time<<<grid, block>>>(Te, steps, n, V0, beta, gamma, D, h, 100, 7);
  CK(cudaGetLastError());
  const double ms = timed_ms([&] {
    escape_time<<<grid, block>>>(Te, steps, n, V0, beta, gamma, D, h, klim, 1);
  });
  std::vector<unsigned long long> hs(n);
  CK(cudaMemcpy(hs.data(), steps, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  double useful = 0;
  for (int i = 0; i < n; i++) useful += (double)hs[i];
  std::fprintf(stderr, "escape port: %d paths, mean escape time %.4g, %.3f s\n", n,
               useful / n * h, ms / 1000);
  print_rate(useful / (ms / 1000), "useful-steps/s");
  return 0;
}
