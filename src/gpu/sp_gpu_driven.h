/* sp_gpu_driven.h: driven Brownian ensembles on one or several GPUs
 * (inst/cuda/driven.cu); same contract as sp_driven_cpu(). */
#ifndef SP_GPU_DRIVEN_H
#define SP_GPU_DRIVEN_H

#include "../core/sp_driven.h"

/* `key` names the loaded module of the variant (precision, method). */
/* job and out: an sp_driven_job and an sp_driven_out (src/models/driven.c). */
int sp_gpu_driven(const char *key, const void *job, void *out, const int *devices, int ndev,
                  const sp_hooks *hooks, sp_run_info *info);

#endif
