/* CPU probe for the scaling benchmark (bench/cpu-scaling.R).
 *
 *   gcc -O2 -fopenmp -march=native bench/cpu_probe.c -o cpu_probe && ./cpu_probe 16
 *
 * Tells a clock effect from shared cores when a CPU engine scales below
 * linear.  For 1, 2, 4, ... N threads running at once, it prints the
 * per-thread rate relative to one thread alone of
 *   latency: a dependent chain of 64-bit multiply-adds (fixed cycles per
 *            operation): its per-thread rate falls only if the clock falls
 *            (two hardware threads of one core interleave such chains freely);
 *   fma512:  16 independent AVX-512 FMA chains (or AVX2 where AVX-512 is
 *            absent): throughput-bound, so its per-thread rate falls with the
 *            clock AND when two threads share one core's FMA units.
 * latency ~ 1 and fma ~ 0.5 at N threads: the N logical CPUs are N/2 cores
 * with two hardware threads each.  Both falling together: the clock.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <immintrin.h>

static double now(void) { return omp_get_wtime(); }

static uint64_t latency_chain(uint64_t n, uint64_t x) {
  for (uint64_t i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    __asm__ volatile("" : "+r"(x));
  }
  return x;
}

#if defined(__AVX512F__)
#define VEC __m512
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define LANES 16
static float hsum(VEC v) { return _mm512_reduce_add_ps(v); }
#else
#define VEC __m256
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define LANES 8
static float hsum(VEC v) {
  float t[8];
  _mm256_storeu_ps(t, v);
  return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}
#endif

static float fma_chains(uint64_t n) {
  VEC a = SET1(0.999999f), b = SET1(1e-7f);
  VEC c[16];
  for (int k = 0; k < 16; k++) c[k] = SET1((float)k);
  for (uint64_t i = 0; i < n; i++) {
#pragma GCC unroll 16
    for (int k = 0; k < 16; k++) c[k] = FMA(c[k], a, b);
  }
  VEC s = c[0];
  for (int k = 1; k < 16; k++) s = ADD(s, c[k]);
  return hsum(s);
}

/* per-thread operations per second with nt threads running the kernel */
static double rate(int which, int nt, uint64_t n) {
  double *r = calloc((size_t)nt, sizeof(double));
  volatile double sink = 0;
#pragma omp parallel num_threads(nt)
  {
    int id = omp_get_thread_num();
#pragma omp barrier
    double t0 = now();
    double s = which == 0 ? (double)latency_chain(n, (uint64_t)id + 1) : fma_chains(n);
    double t1 = now();
    r[id] = (double)n / (t1 - t0);
#pragma omp atomic
    sink += s;
  }
  double m = 0;
  for (int i = 0; i < nt; i++) m += r[i];
  m /= nt;
  free(r);
  (void)sink;
  return m;
}

int main(int argc, char **argv) {
  int nmax = argc > 1 ? atoi(argv[1]) : omp_get_num_procs();
  uint64_t nl = 400000000ULL, nf = 100000000ULL;
  rate(0, 1, nl / 4); /* warm up */
  double l1 = rate(0, 1, nl), f1 = rate(1, 1, nf);
  printf("probe: %d-lane FMA vectors; one thread alone: latency chain %.3e op/s "
         "(%.2f GHz at 4 cycles per multiply-add), FMA %.3e vector-FMA/s\n",
         LANES, l1, 4 * l1 / 1e9, 16 * f1);
  printf("%8s %16s %16s\n", "threads", "latency/1thr", "fma/1thr");
  for (int nt = 2; nt <= nmax; nt *= 2) {
    printf("%8d %16.3f %16.3f\n", nt, rate(0, nt, nl) / l1, rate(1, nt, nf) / f1);
    if (nt < nmax && 2 * nt > nmax) nt = nmax / 2;
  }
  return 0;
}
