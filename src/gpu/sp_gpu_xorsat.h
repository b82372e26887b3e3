/* sp_gpu_xorsat.h: quasi-greedy 3-XORSAT runs on one or several GPUs
 * (inst/cuda/xorsat.cu); same contract and same runs as sp_xorsat_cpu(). */
#ifndef SP_GPU_XORSAT_H
#define SP_GPU_XORSAT_H

#include "../core/sp_xorsat.h"

/* job->nwords = 0 ("auto"): a run takes every warp the first device holds
 * at once, 32 clones each (out->nwords says how many words that was). */
/* job and out: an sp_xorsat_job and an sp_xorsat_out (src/models/xorsat.c). */
int sp_gpu_xorsat(const char *key, const void *job, void *out, const int *devices, int ndev,
                  const sp_hooks *hooks, sp_run_info *info);

#endif
