/* sp_gpu_devices.c: device properties and memory, primary contexts, labels
 * for messages, and the driver calls' failures (a context that cannot be
 * used again is reset here).  Above the loader, below memory and modules
 * (sp_gpu_impl.h).  No R API; see sp_gpu.h. */
#include "sp_gpu_impl.h"

#include <stdio.h>
#include <string.h>

#include "../core/sp_error.h"

sp_gpu_devstate sp_gpu_devs[SP_GPU_MAX_DEVICES];

/* ---- failures ------------------------------------------------------------------ */

/* Errors after which the context cannot be used again (illegal address,
 * launch failure, ...): the primary context is reset so that the next call
 * starts afresh and the R session stays usable. */
static int is_sticky(CUresult r) {
  return r == 700 || r == 701 || r == 702 || r == 714 || r == 715 || r == 716 ||
         r == 717 || r == 718 || r == 719 || r == 720;
}

int sp_cu_fail(int dev, const char *call, CUresult r) {
  int code = r == CUDA_ERROR_OUT_OF_MEMORY ? SP_ERR_DEVICE_MEMORY : SP_ERR_CUDA;
  sp_fail(code, "%s: %s failed: %s (%s)", sp_gpu_label(dev), call, sp_cu_errname(r),
          sp_cu_errstring(r));
  if (is_sticky(r) && dev >= 0 && dev < SP_GPU_MAX_DEVICES && sp_gpu_devs[dev].retained) {
    CUdevice d;
    if (sp_cu.cuDeviceGet(&d, dev) == CUDA_SUCCESS) {
      sp_cu.cuDevicePrimaryCtxReset(d);
      sp_cu.cuDevicePrimaryCtxRelease(d);
    }
    sp_gpu_devs[dev].retained = 0;
    sp_gpu_devs[dev].ctx = NULL;
    sp_gpu_devs[dev].generation++; /* its modules went with it (sp_gpu_modules.c) */
  }
  return code;
}

/* ---- devices ----------------------------------------------------------------- */

const char *sp_gpu_label(int dev) {
  static char fallback[64];
  if (dev < 0 || dev >= SP_GPU_MAX_DEVICES || sp_gpu_state != 1) {
    snprintf(fallback, sizeof fallback, "GPU %d", dev);
    return fallback;
  }
  if (sp_gpu_devs[dev].label[0] == '\0') {
    char name[256] = "unknown";
    CUdevice d;
    if (sp_cu.cuDeviceGet(&d, dev) == CUDA_SUCCESS)
      sp_cu.cuDeviceGetName(name, (int)sizeof name, d);
    snprintf(sp_gpu_devs[dev].label, sizeof sp_gpu_devs[dev].label, "GPU %d (%s)", dev, name);
  }
  return sp_gpu_devs[dev].label;
}

int sp_gpu_check_dev(int dev) {
  if (sp_gpu_state != 1)
    return sp_fail(SP_ERR_UNAVAILABLE, "the GPU backend is unavailable: %s",
                   sp_gpu_reason());
  if (dev < 0 || dev >= sp_gpu_ndevices)
    return sp_fail(SP_ERR_INVALID, "GPU %d does not exist (this machine has %d)",
                   dev, sp_gpu_ndevices);
  return SP_OK;
}

int sp_gpu_activate(int dev) {
  int st = sp_gpu_check_dev(dev);
  if (st != SP_OK) return st;
  if (!sp_gpu_devs[dev].retained) {
    CUdevice d;
    CU_TRY(dev, "cuDeviceGet", sp_cu.cuDeviceGet(&d, dev));
    CU_TRY(dev, "cuDevicePrimaryCtxRetain", sp_cu.cuDevicePrimaryCtxRetain(&sp_gpu_devs[dev].ctx, d));
    sp_gpu_devs[dev].retained = 1;
  }
  CU_TRY(dev, "cuCtxSetCurrent", sp_cu.cuCtxSetCurrent(sp_gpu_devs[dev].ctx));
  return SP_OK;
}

int sp_gpu_use_ctx(int dev) {
  return sp_gpu_state == 1 && dev >= 0 && dev < sp_gpu_ndevices && sp_gpu_devs[dev].retained &&
         sp_cu.cuCtxSetCurrent(sp_gpu_devs[dev].ctx) == CUDA_SUCCESS;
}

void sp_gpu_release_contexts(void) {
  int i;
  for (i = 0; i < sp_gpu_ndevices; i++) {
    if (sp_gpu_devs[i].retained) {
      CUdevice d;
      if (sp_cu.cuDeviceGet(&d, i) == CUDA_SUCCESS) sp_cu.cuDevicePrimaryCtxRelease(d);
      sp_gpu_devs[i].retained = 0;
    }
  }
}

int sp_gpu_mem_info(int dev, double *free_bytes, double *total_bytes) {
  size_t fr = 0, tot = 0;
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuMemGetInfo", sp_cu.cuMemGetInfo(&fr, &tot));
  *free_bytes = (double)fr;
  *total_bytes = (double)tot;
  return SP_OK;
}

int sp_gpu_device_info_get(int dev, int with_free, sp_gpu_device_info *out) {
  CUdevice d;
  size_t total = 0;
  int st = sp_gpu_check_dev(dev);
  if (st != SP_OK) return st;
  memset(out, 0, sizeof *out);
  out->id = dev;
  CU_TRY(dev, "cuDeviceGet", sp_cu.cuDeviceGet(&d, dev));
  CU_TRY(dev, "cuDeviceGetName", sp_cu.cuDeviceGetName(out->name, (int)sizeof out->name, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         sp_cu.cuDeviceGetAttribute(&out->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         sp_cu.cuDeviceGetAttribute(&out->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         sp_cu.cuDeviceGetAttribute(&out->multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         sp_cu.cuDeviceGetAttribute(&out->max_threads_per_sm,
                                 CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         sp_cu.cuDeviceGetAttribute(&out->clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         sp_cu.cuDeviceGetAttribute(&out->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d));
  CU_TRY(dev, "cuDeviceTotalMem", sp_cu.cuDeviceTotalMem(&total, d));
  out->total_memory = (double)total;
  out->free_memory = -1;
  if (with_free) {
    double fr, tot;
    st = sp_gpu_mem_info(dev, &fr, &tot);
    if (st != SP_OK) return st;
    out->free_memory = fr;
  }
  return SP_OK;
}

