/* sp_gpu_ams.h: adaptive multilevel splitting on one or several GPUs
 * (inst/cuda/ams.cu); same contract and numbers as the CPU engine. */
#ifndef SP_GPU_AMS_H
#define SP_GPU_AMS_H

#include "../core/sp_ams.h"

/* `key` names the loaded module of the variant (precision, method); job and
 * out: an sp_ams_job and an sp_ams_out (src/models/ams.c). */
int sp_gpu_ams(const char *key, const void *job, void *out, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info);

#endif
