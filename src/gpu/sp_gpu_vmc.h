/* sp_gpu_vmc.h: helium VMC on one or several GPUs (inst/cuda/he4_vmc.cu);
 * same contract as sp_vmc_cpu(). */
#ifndef SP_GPU_VMC_H
#define SP_GPU_VMC_H

#include "../core/sp_vmc.h"

/* `key` names the loaded module of the variant (precision). */
/* job and out: an sp_vmc_job and an sp_vmc_out (src/models/vmc.c). */
int sp_gpu_vmc(const char *key, const void *job, void *out, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info);

#endif
