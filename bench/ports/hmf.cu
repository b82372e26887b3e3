// hmf.cu: the Hamiltonian mean-field model of paper 004 (Rocha Filho 2014)
// as a plain CUDA port: positions and momenta in double, Yoshida's
// 4th-order step (drift c1, kick d1, drift c2, kick d2, drift c3, kick d3,
// drift c4), one particle a thread; a drift that precedes a kick also sums
// cos and sin of the new positions (block sums, double atomics) for the
// magnetisation M, and the kick p += d dt (-M_x sin q + M_y cos q)
// recomputes sin and cos.
//
//   hmf <n = 5e7> <steps = 1000>
//
// The case of bench/lrmd.R and bench/whole-call.R: a waterbag with M0 = 1
// (every angle 0) and energy U = 0.69 per particle (momenta uniform on
// [-p0, p0], p0 = sqrt(6 U)), dt = 0.01.  Prints particle-steps per second
// of kernel time, after a warm-up run.
#include <cmath>

#include <curand_kernel.h>

#include "common.cuh"

#define BLOCK 256

__global__ void start(double *q, double *p, long long n, double p0) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t st;
  curand_init(1, i, 0, &st);
  q[i] = 0;
  p[i] = p0 * (2 * curand_uniform_double(&st) - 1);
}

template <bool SUM>
__global__ void drift(double *q, const double *p, long long n, double cdt, double *M) {
  __shared__ double sc[BLOCK], ss[BLOCK];
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  double c = 0, s = 0;
  if (i < n) {
    const double qi = q[i] + cdt * p[i];
    q[i] = qi;
    if (SUM) sincos(qi, &s, &c);
  }
  if (!SUM) return;
  sc[threadIdx.x] = c;
  ss[threadIdx.x] = s;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) {
      sc[threadIdx.x] += sc[threadIdx.x + k];
      ss[threadIdx.x] += ss[threadIdx.x + k];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&M[0], sc[0]);
    atomicAdd(&M[1], ss[0]);
  }
}

__global__ void kick(const double *q, double *p, long long n, double ddt, const double *M) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double Mx = M[0] / n, My = M[1] / n;
  double s, c;
  sincos(q[i], &s, &c);
  p[i] += ddt * (-Mx * s + My * c);
}

static void run(double *q, double *p, double *M, long long n, long long steps, double dt) {
  const double c[4] = {0.6756035959798289, -0.1756035959798288, -0.1756035959798288,
                       0.6756035959798289};
  const double d[3] = {1.3512071919596578, -1.7024143839193155, 1.3512071919596578};
  const unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
  for (long long k = 0; k < steps; k++) {
    for (int s = 0; s < 3; s++) {
      CK(cudaMemsetAsync(M, 0, 2 * sizeof(double)));
      drift<true><<<grid, BLOCK>>>(q, p, n, c[s] * dt, M);
      kick<<<grid, BLOCK>>>(q, p, n, d[s] * dt, M);
    }
    drift<false><<<grid, BLOCK>>>(q, p, n, c[3] * dt, M);
  }
  CK(cudaGetLastError());
}

int main(int argc, char **argv) {
  const long long n = (long long)arg_or(argc, argv, 1, 5e7);
  const long long steps = (long long)arg_or(argc, argv, 2, 1000);
  const double dt = 0.01, p0 = std::sqrt(6 * 0.69);
  double *q, *p, *M;
  CK(cudaMalloc(&q, n * sizeof(double)));
  CK(cudaMalloc(&p, n * sizeof(double)));
  CK(cudaMalloc(&M, 2 * sizeof(double)));
  const unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
  start<<<grid, BLOCK>>>(q, p, n, p0);
  run(q, p, M, n, 5, dt); // warm-up
  const double ms = timed_ms([&] { run(q, p, M, n, steps, dt); });
  std::fprintf(stderr, "hmf port: n = %lld, %lld steps, %.3f s\n", n, steps, ms / 1000);
  print_rate((double)n * (double)steps / (ms / 1000), "particle-steps/s");
  return 0;
}
