/* sp_gpu_mb.h: a many-body user model on the GPU (inst/cuda/mb.cu, the
 * module compiled from the model's header by sde_run()). */
#ifndef SP_GPU_MB_H
#define SP_GPU_MB_H

#include "../core/sp_mb.h"

/* Mode B's source chunks of the passes over all pairs for n elements (n
 * alone decides them; sp_gpu_mb.c): chunks, tiles of 256 sources a chunk. */
void sp_gpu_mb_pair_chunks(uint64_t n, int *nch, int *tpc);

int sp_gpu_mb(const char *key, const void *job, void *out, const int *devices, int ndev,
              const sp_hooks *hooks, sp_run_info *info);

#endif
