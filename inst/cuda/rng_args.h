/* rng_args.h: arguments of the kernels of rng.cu and curand_check.cu, one
 * definition for the host code (src/gpu/sp_gpu_rng.c) and the kernels. */
#ifndef SP_RNG_ARGS_H
#define SP_RNG_ARGS_H

#include "sp_common.h"

/* Threads of a block of the kernels of rng.cu: their __launch_bounds__ and
 * the host's launches (sp_gpu_rng.c). */
#define SP_RNG_BLOCK 256

/* Values 4 g0 .. 4 g0 + m - 1 of a request (kind SP_DRAW_*, transform
 * precision) into out[0 .. m-1]. */
typedef struct {
  int kind, single;
  uint64_t seed, stream, offset;
  uint64_t g0, m;
  SP_DPTR(double) out;
} sp_philox_fill_args;

SP_STATIC_ASSERT(sizeof(sp_philox_fill_args) == 56, "sp_philox_fill_args layout");

/* Sum and sum of squares of normals 4 g0 .. 4 (g0 + ngroups) - 1, added to
 * acc[0] and acc[1]. */
typedef struct {
  uint64_t seed, stream, offset;
  uint64_t g0, ngroups;
  SP_DPTR(double) acc;
} sp_philox_moments_args;

SP_STATIC_ASSERT(sizeof(sp_philox_moments_args) == 48, "sp_philox_moments_args layout");

/* cuRAND's stream: nquads x 4 draws of each of nstreams streams from
 * stream0, after curand_init(seed, stream, offset). */
typedef struct {
  uint64_t seed, stream0, offset;
  int nstreams, nquads;
  SP_DPTR(unsigned int) out;
} sp_curand_check_args;

SP_STATIC_ASSERT(sizeof(sp_curand_check_args) == 40, "sp_curand_check_args layout");

#endif
