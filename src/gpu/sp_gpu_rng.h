/* sp_gpu_rng.h: Philox draws on one or several GPUs (inst/cuda/rng.cu). */
#ifndef SP_GPU_RNG_H
#define SP_GPU_RNG_H

#include <stdint.h>

#include "../core/sp_rng.h"

/* Same values as sp_philox_fill() on the CPU, computed by the module `key`
 * (rng.cu) on `devices`, in chunks from the shared counter; *filled as on
 * the CPU (a prefix, n unless interrupted). */
int sp_gpu_philox_fill(const char *key, const sp_philox_job *job, double *out,
                       const int *devices, int ndev, const sp_hooks *hooks,
                       sp_run_info *info, uint64_t *filled);

/* Sum and sum of squares of normals 0..n-1 (n a multiple of 4) reduced on the
 * devices (one launch each); *kernel_ms is the longest device time. */
int sp_gpu_philox_normal_moments(const char *key, int single, uint64_t seed,
                                 uint64_t stream, uint64_t offset, uint64_t n,
                                 const int *devices, int ndev, double out[2],
                                 double *kernel_ms);

/* cuRAND's curand4() stream (curand_check.cu): nquads x 4 draws of each of
 * nstreams streams from stream0, after curand_init(seed, stream, offset). */
int sp_gpu_curand_check(const char *key, int dev, uint64_t seed, uint64_t stream0,
                        uint64_t offset, int nstreams, int nquads, uint32_t *out);

#endif
