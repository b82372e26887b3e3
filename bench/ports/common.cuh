// common.cuh: what the straightforward ports share -- error checks, the
// argument parser and the "rate <value> <unit>" line bench/whole-call.R reads.
#ifndef PORTS_COMMON_CUH
#define PORTS_COMMON_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(call)                                                                 \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                   cudaGetErrorString(e_));                                      \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// argv[i] as a number, or the default
static double arg_or(int argc, char **argv, int i, double def) {
  return argc > i ? std::atof(argv[i]) : def;
}

// Milliseconds of the device work `work()` enqueues, by events recorded
// around it (after the work queued before it has finished).
template <class F>
static double timed_ms(F work) {
  cudaEvent_t a, b;
  float ms = 0;
  CK(cudaDeviceSynchronize());
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  work();
  CK(cudaGetLastError());
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms;
}

static void print_rate(double value, const char *unit) {
  std::printf("rate %.6g %s\n", value, unit);
}

#endif
