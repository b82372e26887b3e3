// driven.cu: the driven Stewart-McCumber ensemble of paper 001 (PROG1,
// Januszewski and Kostur 2010) as a plain CUDA port: one thread a path,
// SRK2 (Algorithm 2 of 001) with one normal a step, single precision,
// cuRAND's Philox (curand_init + curand_normal), built with
// --use_fast_math; time kept modulo the drive period, the drive's cosine
// computed every stage, <v^2> summed every step; one launch for the run.
//
//   driven <paths = 2^20> <steps = 2e5>
//
// The case of bench/driven.R and bench/whole-call.R (Fig. 2 of 001): a =
// 4.2, omega = 4.9, f = 0.1, gamma = 0.9, D0 = 0.001, 100 steps a period.
// Prints path-steps per second of kernel time, after a warm-up launch.
#include <cmath>

#include <curand_kernel.h>

#include "common.cuh"

__device__ __forceinline__ float accel(float x, float v, float d, float gamma) {
  return d - gamma * v - 6.28318530718f * cosf(6.28318530718f * x);
}

__global__ void driven_srk2(float *xs, float *vs, float *v2s, int npaths, long long steps,
                            float a, float omega, float f, float gamma, float dt, float sigma,
                            unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npaths) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, i, 0, &st);
  const float period = 6.28318530718f / omega;
  float x = xs[i], v = vs[i], v2 = 0.0f, t = 0.0f;
  for (long long k = 0; k < steps; k++) {
    const float dW = sigma * curand_normal(&st);
    const float a0 = accel(x, v, a * cosf(omega * t) + f, gamma);
    const float xp = x + dt * v;
    const float vp = v + dt * a0 + dW;
    t += dt;
    if (t >= period) t -= period;
    const float a1 = accel(xp, vp, a * cosf(omega * t) + f, gamma);
    x = x + 0.5f * dt * (v + vp);
    v = v + 0.5f * dt * (a0 + a1) + dW;
    v2 += v * v;
  }
  xs[i] = x;
  vs[i] = v;
  v2s[i] = v2;
}

__global__ void start(float *xs, float *vs, int npaths, unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npaths) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, i, 0, &st);
  xs[i] = curand_uniform(&st);
  vs[i] = 0.0f;
}

int main(int argc, char **argv) {
  const int n = (int)arg_or(argc, argv, 1, 1048576);
  const long long steps = (long long)arg_or(argc, argv, 2, 2e5);
  const double a = 4.2, omega = 4.9, f = 0.1, gamma = 0.9, D0 = 0.001;
  const double dt = 2 * M_PI / omega / 100, sigma = std::sqrt(2 * gamma * D0 * dt);
  float *x, *v, *v2;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&v, n * sizeof(float)));
  CK(cudaMalloc(&v2, n * sizeof(float)));
  const int block = 128, grid = (n + block - 1) / block;
  start<<<grid, block>>>(x, v, n, 2);
  driven_srk2<<<grid, block>>>(x, v, v2, n, 1000, a, omega, f, gamma, dt, sigma, 3); // warm-up
  CK(cudaGetLastError());
  start<<<grid, block>>>(x, v, n, 2);
  const double ms = timed_ms([&] {
    driven_srk2<<<grid, block>>>(x, v, v2, n, steps, a, omega, f, gamma, dt, sigma, 1);
  });
  std::fprintf(stderr, "driven port: %d paths x %lld steps, %.3f s\n", n, steps, ms / 1000);
  print_rate((double)n * (double)steps / (ms / 1000), "path-steps/s");
  return 0;
}
