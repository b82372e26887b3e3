/* sp_gpu_ams.h: adaptive multilevel splitting on one or several GPUs
 * (inst/cuda/ams.cu); same contract and numbers as sp_ams_cpu(). */
#ifndef SP_GPU_AMS_H
#define SP_GPU_AMS_H

#include "../core/sp_ams.h"

/* `key` names the loaded module of the variant (precision, method). */
int sp_gpu_ams(const char *key, const sp_ams_job *job, sp_ams_result *out, const int *devices,
               int ndev, const sp_hooks *hooks, sp_run_info *info);

#endif
