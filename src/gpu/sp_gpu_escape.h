/* sp_gpu_escape.h: escape times and switching currents on one or several
 * GPUs (inst/cuda/escape.cu); same contract as sp_escape_cpu(). */
#ifndef SP_GPU_ESCAPE_H
#define SP_GPU_ESCAPE_H

#include "../core/sp_escape.h"

/* `key` names the loaded module of the variant (precision, method, ramp);
 * job and out are an sp_escape_job and sp_escape_out (the descriptor's
 * entry, src/models/escape.c). */
int sp_gpu_escape(const char *key, const void *job, void *out, const int *devices, int ndev,
                  const sp_hooks *hooks, sp_run_info *info);

#endif
