/* sp_gpu_mb.c: the GPU host of a many-body user model (in progress: R
 * refuses backend = "gpu" for these models until the kernels land). */
#include "sp_gpu_mb.h"

#include "../core/sp_error.h"

int sp_gpu_mb(const char *key, const void *job, void *out, const int *devices, int ndev,
              const sp_hooks *hooks, sp_run_info *info) {
  (void)key; (void)job; (void)out; (void)devices; (void)ndev; (void)hooks; (void)info;
  return sp_fail(SP_ERR_UNAVAILABLE, "many-body models do not run on the GPU yet");
}
