#include "sp_gpu_ams.h"
#include "../core/sp_error.h"
int sp_gpu_ams(const char *key, const sp_ams_job *job, sp_ams_result *out, const int *devices,
               int ndev, const sp_hooks *hooks, sp_run_info *info) {
  (void)key; (void)job; (void)out; (void)devices; (void)ndev; (void)hooks; (void)info;
  return sp_fail(SP_ERR_UNAVAILABLE, "not yet");
}
