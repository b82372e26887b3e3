#include "sp_gpu_dmc.h"

#include "../core/sp_error.h"

int sp_gpu_dmc(const char *key, const void *job, void *out, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  (void)key; (void)job; (void)out; (void)devices; (void)ndev; (void)hooks; (void)info;
  return sp_fail(SP_ERR_UNAVAILABLE, "the GPU DMC engine is not built yet");
}
