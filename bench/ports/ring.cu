// ring.cu: the ring model of paper 004 (Rocha Filho 2014) as a plain CUDA
// port of the all-pairs force with GPU Gems 3's tiling (ch. 31, Nyland,
// Harris and Prins): one particle a thread, the sources read a tile at a
// time through shared memory.  Positions and momenta in double; before each
// force evaluation the sine and cosine of every angle in single precision;
// a pair term in single precision,
//   d = 1 - (c_i c_j + s_i s_j) + eps,  f = (s_i c_j - c_i s_j) d^(-3/2),
// summed in single over a tile and in double over the tiles; the force is
// -kappa sum_j f, kappa = 1 / (2 sqrt(2) n).  Yoshida's 4th-order step:
// three force evaluations (n^2 pair terms each) a step.  Built with
// --use_fast_math.
//
//   ring <n = 1e5> <steps = 100>
//
// The case of bench/lrmd.R and bench/whole-call.R: angles uniform on
// (-pi, pi], momenta 0, eps = 0.01, dt = 0.01.  Prints pair terms per
// second of kernel time (3 n^2 a step), after a warm-up step.
#include <cmath>

#include <curand_kernel.h>

#include "common.cuh"

#define BLOCK 256

__global__ void start(double *q, double *p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t st;
  curand_init(1, i, 0, &st);
  q[i] = M_PI * (2 * curand_uniform_double(&st) - 1);
  p[i] = 0;
}

__global__ void drift(double *q, const double *p, int n, double cdt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] += cdt * p[i];
}

__global__ void prepare(const double *q, float2 *sc, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double r = q[i] - 2 * M_PI * rint(q[i] / (2 * M_PI));
  float s, c;
  sincosf((float)r, &s, &c);
  sc[i] = make_float2(s, c);
}

__global__ void force_kick(const float2 *sc, double *p, int n, float eps, double kdt) {
  __shared__ float2 tile[BLOCK];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float2 me = i < n ? sc[i] : make_float2(0, 1);
  double acc = 0;
  for (int t0 = 0; t0 < n; t0 += BLOCK) {
    const int j = t0 + threadIdx.x;
    tile[threadIdx.x] = j < n ? sc[j] : make_float2(0, 1);
    __syncthreads();
    const int m = n - t0 < BLOCK ? n - t0 : BLOCK;
    float sum = 0;
#pragma unroll 8
    for (int k = 0; k < m; k++) {
      const float2 o = tile[k];
      const float d = 1.0f - (me.y * o.y + me.x * o.x) + eps;
      const float r = rsqrtf(d);
      sum += (me.x * o.y - me.y * o.x) * (r * r * r);
    }
    acc += sum;
    __syncthreads();
  }
  if (i < n) p[i] += kdt * acc; // kdt = -kappa d dt
}

static void run(double *q, double *p, float2 *sc, int n, long long steps, double dt) {
  const double c[4] = {0.6756035959798289, -0.1756035959798288, -0.1756035959798288,
                       0.6756035959798289};
  const double d[3] = {1.3512071919596578, -1.7024143839193155, 1.3512071919596578};
  const double kappa = 0.35355339059327376220 / n;
  const int grid = (n + BLOCK - 1) / BLOCK;
  for (long long k = 0; k < steps; k++) {
    for (int s = 0; s < 3; s++) {
      drift<<<grid, BLOCK>>>(q, p, n, c[s] * dt);
      prepare<<<grid, BLOCK>>>(q, sc, n);
      force_kick<<<grid, BLOCK>>>(sc, p, n, 0.01f, -kappa * d[s] * dt);
    }
    drift<<<grid, BLOCK>>>(q, p, n, c[3] * dt);
  }
  CK(cudaGetLastError());
}

int main(int argc, char **argv) {
  const int n = (int)arg_or(argc, argv, 1, 1e5);
  const long long steps = (long long)arg_or(argc, argv, 2, 100);
  const double dt = 0.01;
  double *q, *p;
  float2 *sc;
  CK(cudaMalloc(&q, n * sizeof(double)));
  CK(cudaMalloc(&p, n * sizeof(double)));
  CK(cudaMalloc(&sc, n * sizeof(float2)));
  start<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(q, p, n);
  run(q, p, sc, n, 1, dt); // warm-up
  const double ms = timed_ms([&] { run(q, p, sc, n, steps, dt); });
  std::fprintf(stderr, "ring port: n = %d, %lld steps, %.3f s\n", n, steps, ms / 1000);
  print_rate(3.0 * n * (double)n * (double)steps / (ms / 1000), "pair-terms/s");
  return 0;
}
