/* sp_gpu_devices.c: device properties, primary contexts, labels for
 * messages.  No R API; see sp_gpu.h. */
#include "sp_gpu_impl.h"

#include <stdio.h>
#include <string.h>

#include "../core/sp_error.h"

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

