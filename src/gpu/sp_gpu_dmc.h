/* sp_gpu_dmc.h: helium diffusion Monte Carlo on one or several GPUs
 * (inst/cuda/he4_dmc.cu); same contract as sp_dmc_cpu_run(). */
#ifndef SP_GPU_DMC_H
#define SP_GPU_DMC_H

#include "../core/sp_dmc.h"

/* job and out: an sp_dmc_job and an sp_dmc_out (src/models/dmc.c). */
int sp_gpu_dmc(const char *key, const void *job, void *out, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info);

#endif
