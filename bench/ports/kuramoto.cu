// kuramoto.cu: the noisy mean-field Kuramoto model of paper 001 as a plain
// CUDA port: x_i' = (omega_i + (K/n)(cos x_i S - sin x_i C)) / gamma +
// sqrt(2 T / gamma) xi_i, S = sum sin x_j, C = sum cos x_j, single
// precision, phases reduced to [-pi, pi]; a step is a reduction kernel
// (block sums, float atomics) and an update kernel, one oscillator a
// thread, its normal from cuRAND's Philox (curand_init(seed, i, 4 step) +
// curand_normal: no generator state stored), built with --use_fast_math.
// Euler: one reduction and one update a step.  SRK2 (Algorithm 2 of 001):
// reduce x, predictor xt (stored), reduce xt, corrector (F(x) recomputed,
// the same normal drawn again).
//
//   kuramoto <n = 2^24> <steps = 5000> <method: 0 euler, 1 srk2 = 1>
//
// The case of bench/kuramoto.R and bench/whole-call.R: K = 4, Lorentzian
// frequencies of half-width 0.5, T = 1, gamma = 1, dt = 0.01.  Prints
// oscillator-steps per second of kernel time, after a warm-up run.
#include <cmath>
#include <random>
#include <vector>

#include <curand_kernel.h>

#include "common.cuh"

#define BLOCK 256

__global__ void reduce_sincos(const float *x, int n, float *sums) {
  __shared__ float ss[BLOCK], cs[BLOCK];
  float s = 0, c = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float si, ci;
    sincosf(x[i], &si, &ci);
    s += si;
    c += ci;
  }
  ss[threadIdx.x] = s;
  cs[threadIdx.x] = c;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) {
      ss[threadIdx.x] += ss[threadIdx.x + k];
      cs[threadIdx.x] += cs[threadIdx.x + k];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], ss[0]);
    atomicAdd(&sums[1], cs[0]);
  }
}

__device__ __forceinline__ float drift(float x, float w, const float *sums, float kn,
                                       float ginv) {
  float s, c;
  sincosf(x, &s, &c);
  return ginv * (w + kn * (c * sums[0] - s * sums[1]));
}

__device__ __forceinline__ float reduce_phase(float x) {
  return x - 6.28318530718f * rintf(x * 0.159154943092f);
}

__device__ __forceinline__ float normal(unsigned long long seed, int i, long long step) {
  curandStatePhilox4_32_10_t st;
  curand_init(seed, i, 4ull * (unsigned long long)step, &st);
  return curand_normal(&st);
}

__global__ void euler_step(float *x, const float *w, int n, const float *sums, float kn,
                           float ginv, float dt, float sigma, unsigned long long seed,
                           long long step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  x[i] = reduce_phase(xi + dt * drift(xi, w[i], sums, kn, ginv) +
                      sigma * normal(seed, i, step));
}

__global__ void srk2_predict(const float *x, float *xt, const float *w, int n,
                             const float *sums, float kn, float ginv, float dt, float sigma,
                             unsigned long long seed, long long step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  xt[i] = xi + dt * drift(xi, w[i], sums, kn, ginv) + sigma * normal(seed, i, step);
}

__global__ void srk2_correct(float *x, const float *xt, const float *w, int n,
                             const float *sums1, const float *sums2, float kn, float ginv,
                             float dt, float sigma, unsigned long long seed, long long step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i], wi = w[i];
  const float f1 = drift(xi, wi, sums1, kn, ginv), f2 = drift(xt[i], wi, sums2, kn, ginv);
  x[i] = reduce_phase(xi + 0.5f * dt * (f1 + f2) + sigma * normal(seed, i, step));
}

struct Run {
  float *x, *xt, *w, *sums; // sums: S, C of x then of xt
  int n, grid, rgrid;
  float kn, ginv, dt, sigma;
  void steps(long long k0, long long nsteps, bool srk2, unsigned long long seed) {
    for (long long k = k0; k < k0 + nsteps; k++) {
      CK(cudaMemsetAsync(sums, 0, 4 * sizeof(float)));
      reduce_sincos<<<rgrid, BLOCK>>>(x, n, sums);
      if (!srk2) {
        euler_step<<<grid, BLOCK>>>(x, w, n, sums, kn, ginv, dt, sigma, seed, k);
      } else {
        srk2_predict<<<grid, BLOCK>>>(x, xt, w, n, sums, kn, ginv, dt, sigma, seed, k);
        reduce_sincos<<<rgrid, BLOCK>>>(xt, n, sums + 2);
        srk2_correct<<<grid, BLOCK>>>(x, xt, w, n, sums, sums + 2, kn, ginv, dt, sigma, seed,
                                      k);
      }
    }
    CK(cudaGetLastError());
  }
};

int main(int argc, char **argv) {
  const int n = (int)arg_or(argc, argv, 1, 16777216);
  const long long steps = (long long)arg_or(argc, argv, 2, 5000);
  const bool srk2 = arg_or(argc, argv, 3, 1) != 0;
  const double K = 4, T = 1, gamma = 1, dt = 0.01, half_width = 0.5;
  std::vector<float> hx(n), hw(n);
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; i++) {
    hx[i] = (float)(M_PI * (2 * u(gen) - 1));
    hw[i] = (float)(half_width * std::tan(M_PI * (u(gen) - 0.5))); // Lorentzian
  }
  Run r;
  r.n = n;
  r.grid = (n + BLOCK - 1) / BLOCK;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  r.rgrid = 8 * sms;
  r.kn = (float)(K / n);
  r.ginv = (float)(1 / gamma);
  r.dt = (float)dt;
  r.sigma = (float)std::sqrt(2 * T / gamma * dt);
  CK(cudaMalloc(&r.x, n * sizeof(float)));
  CK(cudaMalloc(&r.xt, n * sizeof(float)));
  CK(cudaMalloc(&r.w, n * sizeof(float)));
  CK(cudaMalloc(&r.sums, 4 * sizeof(float)));
  CK(cudaMemcpy(r.x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(r.w, hw.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  r.steps(0, 20, srk2, 2); // warm-up
  const double ms = timed_ms([&] { r.steps(20, steps, srk2, 1); });
  std::fprintf(stderr, "kuramoto port (%s): n = %d, %lld steps, %.3f s\n",
               srk2 ? "srk2" : "euler", n, steps, ms / 1000);
  print_rate((double)n * (double)steps / (ms / 1000), "oscillator-steps/s");
  return 0;
}
