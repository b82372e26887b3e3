/* sp_gpu_kuramoto.h: the Kuramoto model on one or several GPUs
 * (inst/cuda/kuramoto.cu); same contract as sp_kuramoto_cpu(). */
#ifndef SP_GPU_KURAMOTO_H
#define SP_GPU_KURAMOTO_H

#include "../core/sp_kuramoto.h"

/* `key` names the loaded module of the variant (precision). */
/* job and out: an sp_kuramoto_job and an sp_kuramoto_out (src/models/kuramoto.c). */
int sp_gpu_kuramoto(const char *key, const void *job, void *out, const int *devices, int ndev,
                    const sp_hooks *hooks, sp_run_info *info);

#endif
