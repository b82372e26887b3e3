/* sp_gpu_sde.h: a user's SDE model on the GPU (inst/cuda/sde.cu, the
 * module compiled from the model's header by sde_run()). */
#ifndef SP_GPU_SDE_H
#define SP_GPU_SDE_H

#include "../core/sp_sde.h"

int sp_gpu_sde(const char *key, const void *job, void *out, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info);

#endif
