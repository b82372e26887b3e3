/* sp_gpu_lrmd.h: long-range MD on a GPU (inst/cuda/lrmd.cu); same contract
 * as the CPU engine (sp_lrmd_cpu_run_d).  One system split over ndev
 * devices (slices), or (job->nsys > 1: HMF, one device, the module compiled
 * with SP_LRMD_SYSTEMS) nsys systems side by side. */
#ifndef SP_GPU_LRMD_H
#define SP_GPU_LRMD_H

#include "../core/sp_lrmd.h"

/* `key` names the loaded module of the variant (precision). */
/* job and out: an sp_lrmd_job and an sp_lrmd_out (src/models/lrmd.c). */
int sp_gpu_lrmd(const char *key, const void *job, void *out, const int *devices, int ndev,
                const sp_hooks *hooks, sp_run_info *info);

#endif
