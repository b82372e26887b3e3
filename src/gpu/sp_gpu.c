/* sp_gpu.c: run-time loader of the CUDA driver and NVRTC, devices, memory,
 * streams, modules and launches.  No R API; see sp_gpu.h. */
#include "sp_gpu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "../sp_config.h"

static sp_cu_api cu;
static sp_nvrtc_api nv;

/* ---- state ------------------------------------------------------------------ */

static int nv_state = 0; /* 0 not tried, 1 loaded, -1 failed */
static char nv_reason[1024];
static char nv_path[1024];
static char nv_home[1024];
static int nv_major = 0, nv_minor = 0;
static void *nv_handle = NULL;

static int gpu_state = 0; /* 0 not tried, 1 usable, -1 unavailable */
static char gpu_reason[1024];
static void *cu_handle = NULL;
static int cu_version = 0;
static int n_devices = 0;
static char search_path[2048];

typedef struct {
  int retained;
  CUcontext ctx;
  char label[300];
} sp_dev_state;
static sp_dev_state devs[SP_GPU_MAX_DEVICES];

typedef struct sp_module {
  int dev;
  char key[160];
  CUmodule mod;
  struct sp_module *next;
} sp_module;
static sp_module *modules = NULL;

/* ---- helpers ------------------------------------------------------------------ */

static const char *cu_errname(CUresult r) {
  const char *s = NULL;
  if (cu.cuGetErrorName == NULL || cu.cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL)
    return "unknown CUDA error";
  return s;
}

static const char *cu_errstring(CUresult r) {
  const char *s = NULL;
  if (cu.cuGetErrorString == NULL || cu.cuGetErrorString(r, &s) != CUDA_SUCCESS || s == NULL)
    return "";
  return s;
}

static void drop_modules_of(int dev);

/* Errors after which the context cannot be used again (illegal address,
 * launch failure, ...): the primary context is reset so that the next call
 * starts afresh and the R session stays usable. */
static int is_sticky(CUresult r) {
  return r == 700 || r == 701 || r == 702 || r == 714 || r == 715 || r == 716 ||
         r == 717 || r == 718 || r == 719 || r == 720;
}

static int cu_fail(int dev, const char *call, CUresult r) {
  int code = r == CUDA_ERROR_OUT_OF_MEMORY ? SP_ERR_DEVICE_MEMORY : SP_ERR_CUDA;
  sp_fail(code, "%s: %s failed: %s (%s)", sp_gpu_label(dev), call, cu_errname(r),
          cu_errstring(r));
  if (is_sticky(r) && dev >= 0 && dev < SP_GPU_MAX_DEVICES && devs[dev].retained) {
    CUdevice d;
    drop_modules_of(dev);
    if (cu.cuDeviceGet(&d, dev) == CUDA_SUCCESS) {
      cu.cuDevicePrimaryCtxReset(d);
      cu.cuDevicePrimaryCtxRelease(d);
    }
    devs[dev].retained = 0;
    devs[dev].ctx = NULL;
  }
  return code;
}

#define CU_TRY(dev, call, expr)                                \
  do {                                                         \
    CUresult sp_r_ = (expr);                                   \
    if (sp_r_ != CUDA_SUCCESS) return cu_fail(dev, call, sp_r_); \
  } while (0)

/* Resolve `names` (alternatives, NULL-terminated) in `h` into *slot. */
static int resolve(void *h, void **slot, const char *const *names) {
  int i;
  for (i = 0; names[i] != NULL; i++) {
    void *p = dlsym(h, names[i]);
    if (p != NULL) {
      *slot = p;
      return 1;
    }
  }
  return 0;
}

#define RESOLVE(h, api, field, missing, ...)                             \
  do {                                                                   \
    static const char *const nm_[] = {__VA_ARGS__, NULL};                \
    if (!resolve(h, (void **)&(api).field, nm_) && (missing)[0] == '\0') \
      snprintf(missing, sizeof missing, "%s", nm_[0]);                   \
  } while (0)

/* ---- CUDA homes ------------------------------------------------------------------ */

static int n_homes = 0;
static char homes[6][1024];

static void add_home(const char *h) {
  int i;
  if (h == NULL || h[0] == '\0' || n_homes >= 6) return;
  for (i = 0; i < n_homes; i++)
    if (strcmp(homes[i], h) == 0) return;
  snprintf(homes[n_homes++], sizeof homes[0], "%s", h);
}

static void collect_homes(void) {
  int i;
  size_t len = 0;
  n_homes = 0;
  add_home(getenv("STATPHYSGPU_CUDA_HOME"));
  add_home(getenv("CUDA_HOME"));
  add_home(getenv("CUDA_PATH"));
  add_home(SP_CUDA_HOME_DEFAULT);
  add_home("/usr/local/cuda");
  search_path[0] = '\0';
  for (i = 0; i < n_homes; i++) {
    int w = snprintf(search_path + len, sizeof search_path - len, "%s%s",
                     i ? ", " : "", homes[i]);
    if (w < 0 || (size_t)w >= sizeof search_path - len) break;
    len += (size_t)w;
  }
}

const char *sp_gpu_search_path(void) {
  if (n_homes == 0) collect_homes();
  return search_path;
}

/* Version key of a file name libnvrtc.so[.A[.B[.C]]]; -1 if not NVRTC. */
static long nvrtc_file_version(const char *f) {
  const char *p;
  long v[3] = {0, 0, 0};
  int k = 0;
  if (strncmp(f, "libnvrtc.so", 11) != 0) return -1;
  p = f + 11;
  if (*p == '\0') return 0;
  while (*p == '.' && k < 3) {
    char *end;
    long x = strtol(p + 1, &end, 10);
    if (end == p + 1) return -1;
    v[k++] = x;
    p = end;
  }
  if (*p != '\0') return -1;
  return v[0] * 1000000L + v[1] * 1000L + v[2];
}

/* Try to open and resolve NVRTC at `path`; on failure append why to `why`. */
static int nvrtc_try(const char *path, char *why, size_t whylen) {
  char missing[128] = "";
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    size_t l = strlen(why);
    if (l < whylen) snprintf(why + l, whylen - l, "%s%s", l ? "; " : "", dlerror());
    return 0;
  }
  memset(&nv, 0, sizeof nv);
  RESOLVE(h, nv, nvrtcVersion, missing, "nvrtcVersion");
  RESOLVE(h, nv, nvrtcGetErrorString, missing, "nvrtcGetErrorString");
  RESOLVE(h, nv, nvrtcCreateProgram, missing, "nvrtcCreateProgram");
  RESOLVE(h, nv, nvrtcDestroyProgram, missing, "nvrtcDestroyProgram");
  RESOLVE(h, nv, nvrtcCompileProgram, missing, "nvrtcCompileProgram");
  RESOLVE(h, nv, nvrtcGetProgramLogSize, missing, "nvrtcGetProgramLogSize");
  RESOLVE(h, nv, nvrtcGetProgramLog, missing, "nvrtcGetProgramLog");
  RESOLVE(h, nv, nvrtcGetCUBINSize, missing, "nvrtcGetCUBINSize");
  RESOLVE(h, nv, nvrtcGetCUBIN, missing, "nvrtcGetCUBIN");
  RESOLVE(h, nv, nvrtcGetPTXSize, missing, "nvrtcGetPTXSize");
  RESOLVE(h, nv, nvrtcGetPTX, missing, "nvrtcGetPTX");
  RESOLVE(h, nv, nvrtcGetNumSupportedArchs, missing, "nvrtcGetNumSupportedArchs");
  RESOLVE(h, nv, nvrtcGetSupportedArchs, missing, "nvrtcGetSupportedArchs");
  if (missing[0] != '\0') {
    size_t l = strlen(why);
    if (l < whylen)
      snprintf(why + l, whylen - l, "%s%s lacks %s (NVRTC older than 11.2?)",
               l ? "; " : "", path, missing);
    dlclose(h);
    return 0;
  }
  if (nv.nvrtcVersion(&nv_major, &nv_minor) != NVRTC_SUCCESS) {
    dlclose(h);
    return 0;
  }
  nv_handle = h;
  snprintf(nv_path, sizeof nv_path, "%s", path);
  return 1;
}

int sp_nvrtc_load(void) {
  static const char *const libdirs[] = {"lib64", "lib", "targets/x86_64-linux/lib",
                                        "targets/sbsa-linux/lib", NULL};
  static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12",
                                        "libnvrtc.so.11.2", "libnvrtc.so", NULL};
  char why[1024] = "";
  int i, j;
  if (nv_state != 0) return nv_state == 1 ? SP_OK : SP_ERR_UNAVAILABLE;
  collect_homes();
  for (i = 0; i < n_homes; i++) {
    for (j = 0; libdirs[j] != NULL; j++) {
      char dir[1200], best[256] = "";
      long bestv = -1;
      DIR *d;
      struct dirent *e;
      snprintf(dir, sizeof dir, "%.1000s/%.150s", homes[i], libdirs[j]);
      d = opendir(dir);
      if (d == NULL) continue;
      /* newest first: the highest libnvrtc.so.X.Y.Z, then retry lower ones */
      for (;;) {
        long cap = bestv;
        bestv = -1;
        best[0] = '\0';
        rewinddir(d);
        while ((e = readdir(d)) != NULL) {
          long v = nvrtc_file_version(e->d_name);
          if (v < 0 || (cap >= 0 && v >= cap)) continue;
          if (v > bestv) {
            bestv = v;
            snprintf(best, sizeof best, "%s", e->d_name);
          }
        }
        if (bestv < 0) break;
        {
          char path[1500];
          snprintf(path, sizeof path, "%.1199s/%.255s", dir, best);
          if (nvrtc_try(path, why, sizeof why)) {
            snprintf(nv_home, sizeof nv_home, "%.1000s", homes[i]);
            closedir(d);
            nv_state = 1;
            return SP_OK;
          }
        }
        if (bestv == 0) break;
      }
      closedir(d);
    }
  }
  for (j = 0; sonames[j] != NULL; j++) {
    if (nvrtc_try(sonames[j], why, sizeof why)) {
      nv_home[0] = '\0';
      nv_state = 1;
      return SP_OK;
    }
  }
  snprintf(nv_reason, sizeof nv_reason,
           "NVRTC not found under %.700s (lib64, lib) nor on the library path; "
           "install the CUDA toolkit (>= 12) or set STATPHYSGPU_CUDA_HOME",
           search_path);
  nv_state = -1;
  return SP_ERR_UNAVAILABLE;
}

const char *sp_nvrtc_reason(void) { return nv_reason; }
const char *sp_nvrtc_path(void) { return nv_path; }
const char *sp_nvrtc_home(void) { return nv_home; }
void sp_nvrtc_version(int *major, int *minor) {
  *major = nv_major;
  *minor = nv_minor;
}

int sp_gpu_load(void) {
  char missing[128] = "";
  CUresult r;
  if (gpu_state != 0) return gpu_state == 1 ? SP_OK : SP_ERR_UNAVAILABLE;
  gpu_state = -1;
  if (!SP_GPU_ENABLED) {
    snprintf(gpu_reason, sizeof gpu_reason,
             "the GPU backend was disabled at install time (STATPHYSGPU_CUDA=no)");
    return SP_ERR_UNAVAILABLE;
  }
  cu_handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cu_handle == NULL) {
    snprintf(gpu_reason, sizeof gpu_reason,
             "no NVIDIA driver: libcuda.so.1 could not be loaded (%s)", dlerror());
    return SP_ERR_UNAVAILABLE;
  }
  memset(&cu, 0, sizeof cu);
  RESOLVE(cu_handle, cu, cuInit, missing, "cuInit");
  RESOLVE(cu_handle, cu, cuDriverGetVersion, missing, "cuDriverGetVersion");
  RESOLVE(cu_handle, cu, cuGetErrorName, missing, "cuGetErrorName");
  RESOLVE(cu_handle, cu, cuGetErrorString, missing, "cuGetErrorString");
  RESOLVE(cu_handle, cu, cuDeviceGetCount, missing, "cuDeviceGetCount");
  RESOLVE(cu_handle, cu, cuDeviceGet, missing, "cuDeviceGet");
  RESOLVE(cu_handle, cu, cuDeviceGetName, missing, "cuDeviceGetName");
  RESOLVE(cu_handle, cu, cuDeviceGetAttribute, missing, "cuDeviceGetAttribute");
  RESOLVE(cu_handle, cu, cuDeviceTotalMem, missing, "cuDeviceTotalMem_v2");
  RESOLVE(cu_handle, cu, cuDevicePrimaryCtxRetain, missing, "cuDevicePrimaryCtxRetain");
  RESOLVE(cu_handle, cu, cuDevicePrimaryCtxRelease, missing,
          "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
  RESOLVE(cu_handle, cu, cuDevicePrimaryCtxReset, missing,
          "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset");
  RESOLVE(cu_handle, cu, cuCtxSetCurrent, missing, "cuCtxSetCurrent");
  RESOLVE(cu_handle, cu, cuCtxSynchronize, missing, "cuCtxSynchronize");
  RESOLVE(cu_handle, cu, cuMemGetInfo, missing, "cuMemGetInfo_v2");
  RESOLVE(cu_handle, cu, cuMemAlloc, missing, "cuMemAlloc_v2");
  RESOLVE(cu_handle, cu, cuMemFree, missing, "cuMemFree_v2");
  RESOLVE(cu_handle, cu, cuMemcpyHtoD, missing, "cuMemcpyHtoD_v2");
  RESOLVE(cu_handle, cu, cuMemcpyDtoH, missing, "cuMemcpyDtoH_v2");
  RESOLVE(cu_handle, cu, cuMemsetD8, missing, "cuMemsetD8_v2");
  RESOLVE(cu_handle, cu, cuMemsetD32, missing, "cuMemsetD32_v2");
  RESOLVE(cu_handle, cu, cuOccupancyMaxActiveBlocksPerMultiprocessor, missing,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  RESOLVE(cu_handle, cu, cuModuleLoadData, missing, "cuModuleLoadData");
  RESOLVE(cu_handle, cu, cuModuleUnload, missing, "cuModuleUnload");
  RESOLVE(cu_handle, cu, cuModuleGetFunction, missing, "cuModuleGetFunction");
  RESOLVE(cu_handle, cu, cuLaunchKernel, missing, "cuLaunchKernel");
  RESOLVE(cu_handle, cu, cuStreamCreate, missing, "cuStreamCreate");
  RESOLVE(cu_handle, cu, cuStreamDestroy, missing, "cuStreamDestroy_v2");
  RESOLVE(cu_handle, cu, cuStreamSynchronize, missing, "cuStreamSynchronize");
  RESOLVE(cu_handle, cu, cuStreamQuery, missing, "cuStreamQuery");
  RESOLVE(cu_handle, cu, cuEventCreate, missing, "cuEventCreate");
  RESOLVE(cu_handle, cu, cuEventRecord, missing, "cuEventRecord");
  RESOLVE(cu_handle, cu, cuEventSynchronize, missing, "cuEventSynchronize");
  RESOLVE(cu_handle, cu, cuEventElapsedTime, missing, "cuEventElapsedTime_v2",
          "cuEventElapsedTime");
  RESOLVE(cu_handle, cu, cuEventDestroy, missing, "cuEventDestroy_v2");
  if (missing[0] != '\0') {
    snprintf(gpu_reason, sizeof gpu_reason,
             "the NVIDIA driver's libcuda.so.1 lacks %s (driver too old)", missing);
    return SP_ERR_UNAVAILABLE;
  }
  r = cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    snprintf(gpu_reason, sizeof gpu_reason,
             r == CUDA_ERROR_NO_DEVICE
               ? "the NVIDIA driver found no GPU (cuInit: %s)"
               : "the NVIDIA driver could not be initialised (cuInit: %s)",
             cu_errname(r));
    return SP_ERR_UNAVAILABLE;
  }
  cu.cuDriverGetVersion(&cu_version);
  r = cu.cuDeviceGetCount(&n_devices);
  if (r != CUDA_SUCCESS || n_devices < 1) {
    snprintf(gpu_reason, sizeof gpu_reason, "the NVIDIA driver reports no GPU");
    n_devices = 0;
    return SP_ERR_UNAVAILABLE;
  }
  if (n_devices > SP_GPU_MAX_DEVICES) n_devices = SP_GPU_MAX_DEVICES;
  if (sp_nvrtc_load() != SP_OK) {
    snprintf(gpu_reason, sizeof gpu_reason, "%.1000s", nv_reason);
    return SP_ERR_UNAVAILABLE;
  }
  if (cu_version / 1000 < nv_major) {
    snprintf(gpu_reason, sizeof gpu_reason,
             "driver %d.%d (CUDA %d) is older than NVRTC %d.%d needs (a driver "
             "for CUDA %d or later); update the NVIDIA driver or point "
             "STATPHYSGPU_CUDA_HOME at an older CUDA toolkit",
             cu_version / 1000, (cu_version % 1000) / 10, cu_version, nv_major,
             nv_minor, nv_major);
    return SP_ERR_UNAVAILABLE;
  }
  gpu_reason[0] = '\0';
  gpu_state = 1;
  return SP_OK;
}

const char *sp_gpu_reason(void) { return gpu_reason; }
int sp_gpu_device_count(void) { return gpu_state == 1 ? n_devices : 0; }
int sp_gpu_driver_version(void) { return cu_version; }

/* ---- devices ----------------------------------------------------------------- */

const char *sp_gpu_label(int dev) {
  static char fallback[64];
  if (dev < 0 || dev >= SP_GPU_MAX_DEVICES || gpu_state != 1) {
    snprintf(fallback, sizeof fallback, "GPU %d", dev);
    return fallback;
  }
  if (devs[dev].label[0] == '\0') {
    char name[256] = "unknown";
    CUdevice d;
    if (cu.cuDeviceGet(&d, dev) == CUDA_SUCCESS)
      cu.cuDeviceGetName(name, (int)sizeof name, d);
    snprintf(devs[dev].label, sizeof devs[dev].label, "GPU %d (%s)", dev, name);
  }
  return devs[dev].label;
}

static int check_dev(int dev) {
  if (gpu_state != 1)
    return sp_fail(SP_ERR_UNAVAILABLE, "the GPU backend is unavailable: %s",
                   gpu_reason);
  if (dev < 0 || dev >= n_devices)
    return sp_fail(SP_ERR_INVALID, "GPU %d does not exist (this machine has %d)",
                   dev, n_devices);
  return SP_OK;
}

int sp_gpu_activate(int dev) {
  int st = check_dev(dev);
  if (st != SP_OK) return st;
  if (!devs[dev].retained) {
    CUdevice d;
    CU_TRY(dev, "cuDeviceGet", cu.cuDeviceGet(&d, dev));
    CU_TRY(dev, "cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(&devs[dev].ctx, d));
    devs[dev].retained = 1;
  }
  CU_TRY(dev, "cuCtxSetCurrent", cu.cuCtxSetCurrent(devs[dev].ctx));
  return SP_OK;
}

int sp_gpu_device_info_get(int dev, int with_free, sp_gpu_device_info *out) {
  CUdevice d;
  size_t total = 0;
  int st = check_dev(dev);
  if (st != SP_OK) return st;
  memset(out, 0, sizeof *out);
  out->id = dev;
  CU_TRY(dev, "cuDeviceGet", cu.cuDeviceGet(&d, dev));
  CU_TRY(dev, "cuDeviceGetName", cu.cuDeviceGetName(out->name, (int)sizeof out->name, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         cu.cuDeviceGetAttribute(&out->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         cu.cuDeviceGetAttribute(&out->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         cu.cuDeviceGetAttribute(&out->multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         cu.cuDeviceGetAttribute(&out->max_threads_per_sm,
                                 CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         cu.cuDeviceGetAttribute(&out->clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d));
  CU_TRY(dev, "cuDeviceGetAttribute",
         cu.cuDeviceGetAttribute(&out->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d));
  CU_TRY(dev, "cuDeviceTotalMem", cu.cuDeviceTotalMem(&total, d));
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

/* ---- memory -------------------------------------------------------------------- */

int sp_gpu_mem_info(int dev, double *free_bytes, double *total_bytes) {
  size_t fr = 0, tot = 0;
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuMemGetInfo", cu.cuMemGetInfo(&fr, &tot));
  *free_bytes = (double)fr;
  *total_bytes = (double)tot;
  return SP_OK;
}

/* Device buffers taken by sp_gpu_alloc() and not yet given back with
 * sp_gpu_free() (a leak shows here exactly, unlike in the free memory). */
static long live_allocations = 0;

/* Make dev's context current for releasing a resource; 0 when the driver or
 * the context is gone (the resource went with it, nothing to release). */
static int release_ctx_current(int dev) {
  return gpu_state == 1 && dev >= 0 && dev < n_devices && devs[dev].retained &&
         cu.cuCtxSetCurrent(devs[dev].ctx) == CUDA_SUCCESS;
}

int sp_gpu_alloc(int dev, size_t bytes, const char *what, CUdeviceptr *out) {
  double fr, tot;
  /* keep a margin for the context, module images and the driver */
  const double margin = 256.0 * 1024 * 1024;
  int st;
  *out = 0;
  st = sp_gpu_mem_info(dev, &fr, &tot);
  if (st != SP_OK) return st;
  if ((double)bytes + margin > fr) {
    return sp_fail(SP_ERR_DEVICE_MEMORY,
                   "%s: %s needs %.3g GiB of device memory, but %.3g GiB of %.3g GiB "
                   "is free; use fewer replicas per call (or more devices)",
                   sp_gpu_label(dev), what, (double)bytes / 1073741824.0,
                   fr / 1073741824.0, tot / 1073741824.0);
  }
  if (bytes == 0) bytes = 1;
  CU_TRY(dev, "cuMemAlloc", cu.cuMemAlloc(out, bytes));
  __atomic_add_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  return SP_OK;
}

void sp_gpu_free(int dev, CUdeviceptr *p) {
  if (p == NULL || *p == 0) return;
  if (release_ctx_current(dev))
    cu.cuMemFree(*p);
  __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  *p = 0;
}

long sp_gpu_live_allocations(void) {
  return __atomic_load_n(&live_allocations, __ATOMIC_RELAXED);
}

int sp_gpu_memset0(int dev, CUdeviceptr p, size_t bytes) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuMemsetD8", cu.cuMemsetD8(p, 0, bytes));
  return SP_OK;
}

int sp_gpu_memset32(int dev, CUdeviceptr p, unsigned int value, size_t count) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuMemsetD32", cu.cuMemsetD32(p, value, count));
  return SP_OK;
}

int sp_gpu_occupancy(int dev, CUfunction f, int block, size_t shmem, int *blocks_per_sm) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
         cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, f, block, shmem));
  return SP_OK;
}

int sp_gpu_to_host(int dev, void *dst, CUdeviceptr src, size_t bytes) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (bytes == 0) return SP_OK;
  CU_TRY(dev, "cuMemcpyDtoH", cu.cuMemcpyDtoH(dst, src, bytes));
  return SP_OK;
}

int sp_gpu_to_device(int dev, CUdeviceptr dst, const void *src, size_t bytes) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (bytes == 0) return SP_OK;
  CU_TRY(dev, "cuMemcpyHtoD", cu.cuMemcpyHtoD(dst, src, bytes));
  return SP_OK;
}

/* ---- streams, events, launches ------------------------------------------------- */

int sp_gpu_stream_create(int dev, CUstream *s) {
  int st = sp_gpu_activate(dev);
  *s = NULL;
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuStreamCreate", cu.cuStreamCreate(s, CU_STREAM_NON_BLOCKING));
  return SP_OK;
}

void sp_gpu_stream_destroy(int dev, CUstream *s) {
  if (s == NULL || *s == NULL) return;
  if (release_ctx_current(dev))
    cu.cuStreamDestroy(*s);
  *s = NULL;
}

int sp_gpu_stream_sync(int dev, CUstream s) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuStreamSynchronize", cu.cuStreamSynchronize(s));
  return SP_OK;
}

int sp_gpu_stream_done(int dev, CUstream s) {
  CUresult r;
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return -st;
  r = cu.cuStreamQuery(s);
  if (r == CUDA_SUCCESS) return 1;
  if (r == CUDA_ERROR_NOT_READY) return 0;
  return -cu_fail(dev, "cuStreamQuery", r);
}

int sp_gpu_event_create(int dev, CUevent *e) {
  int st = sp_gpu_activate(dev);
  *e = NULL;
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuEventCreate", cu.cuEventCreate(e, CU_EVENT_DEFAULT));
  return SP_OK;
}

void sp_gpu_event_destroy(int dev, CUevent *e) {
  if (e == NULL || *e == NULL) return;
  if (release_ctx_current(dev))
    cu.cuEventDestroy(*e);
  *e = NULL;
}

int sp_gpu_event_record(int dev, CUevent e, CUstream s) {
  CU_TRY(dev, "cuEventRecord", cu.cuEventRecord(e, s));
  return SP_OK;
}

int sp_gpu_event_elapsed_ms(int dev, CUevent a, CUevent b, double *ms) {
  float f = 0;
  CU_TRY(dev, "cuEventSynchronize", cu.cuEventSynchronize(b));
  CU_TRY(dev, "cuEventElapsedTime", cu.cuEventElapsedTime(&f, a, b));
  *ms = f;
  return SP_OK;
}

int sp_gpu_launch(int dev, CUfunction f, unsigned int grid, unsigned int block,
                  unsigned int shmem, CUstream s, void **args, const char *name) {
  CUresult r = cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, s, args, NULL);
  if (r != CUDA_SUCCESS) {
    char call[200];
    snprintf(call, sizeof call, "cuLaunchKernel(%s)", name);
    return cu_fail(dev, call, r);
  }
  return SP_OK;
}

/* ---- modules --------------------------------------------------------------------- */

static sp_module *find_module(int dev, const char *key) {
  sp_module *m;
  for (m = modules; m != NULL; m = m->next)
    if (m->dev == dev && strcmp(m->key, key) == 0) return m;
  return NULL;
}

int sp_gpu_module_loaded(int dev, const char *key) {
  return gpu_state == 1 && find_module(dev, key) != NULL;
}

int sp_gpu_module_load(int dev, const char *key, const void *image) {
  sp_module *m;
  CUmodule mod;
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (find_module(dev, key) != NULL) return SP_OK;
  CU_TRY(dev, "cuModuleLoadData", cu.cuModuleLoadData(&mod, image));
  m = (sp_module *)calloc(1, sizeof *m);
  if (m == NULL) {
    cu.cuModuleUnload(mod);
    return sp_fail(SP_ERR_NOMEM, "out of host memory");
  }
  m->dev = dev;
  snprintf(m->key, sizeof m->key, "%s", key);
  m->mod = mod;
  m->next = modules;
  modules = m;
  return SP_OK;
}

int sp_gpu_function(int dev, const char *key, const char *name, CUfunction *f) {
  sp_module *m = find_module(dev, key);
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (m == NULL)
    return sp_fail(SP_ERR_INVALID, "%s: kernel module %s is not loaded",
                   sp_gpu_label(dev), key);
  {
    CUresult r = cu.cuModuleGetFunction(f, m->mod, name);
    if (r != CUDA_SUCCESS) {
      char call[200];
      snprintf(call, sizeof call, "cuModuleGetFunction(%s)", name);
      return cu_fail(dev, call, r);
    }
  }
  return SP_OK;
}

static void drop_modules_of(int dev) {
  sp_module **p = &modules;
  while (*p != NULL) {
    sp_module *m = *p;
    if (m->dev == dev) {
      *p = m->next;
      free(m); /* the context reset unloads the module itself */
    } else {
      p = &m->next;
    }
  }
}

int sp_gpu_modules_unload_all(void) {
  int n = 0;
  while (modules != NULL) {
    sp_module *m = modules;
    modules = m->next;
    if (release_ctx_current(m->dev))
      cu.cuModuleUnload(m->mod);
    free(m);
    n++;
  }
  return n;
}

void sp_gpu_shutdown(void) {
  int i;
  if (gpu_state != 1) return;
  sp_gpu_modules_unload_all();
  for (i = 0; i < n_devices; i++) {
    if (devs[i].retained) {
      CUdevice d;
      if (cu.cuDeviceGet(&d, i) == CUDA_SUCCESS) cu.cuDevicePrimaryCtxRelease(d);
      devs[i].retained = 0;
    }
  }
}

/* ---- NVRTC ------------------------------------------------------------------------ */

int sp_nvrtc_archs(int *archs, int max, int *n) {
  int k = 0;
  *n = 0;
  if (sp_nvrtc_load() != SP_OK)
    return sp_fail(SP_ERR_UNAVAILABLE, "%s", nv_reason);
  if (nv.nvrtcGetNumSupportedArchs(&k) != NVRTC_SUCCESS || k < 1)
    return sp_fail(SP_ERR_NVRTC, "nvrtcGetNumSupportedArchs failed");
  if (k > max) {
    int *all = (int *)malloc((size_t)k * sizeof(int));
    if (all == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    nv.nvrtcGetSupportedArchs(all);
    memcpy(archs, all + (k - max), (size_t)max * sizeof(int));
    free(all);
    k = max;
  } else {
    nv.nvrtcGetSupportedArchs(archs);
  }
  *n = k;
  return SP_OK;
}

int sp_nvrtc_compile(const char *src, const char *name, const char *const *opts,
                     int nopts, int cubin, char **image, size_t *size, char **log) {
  nvrtcProgram prog = NULL;
  nvrtcResult r, rc;
  size_t loglen = 0;
  *image = NULL;
  *size = 0;
  *log = NULL;
  if (sp_nvrtc_load() != SP_OK)
    return sp_fail(SP_ERR_UNAVAILABLE, "%s", nv_reason);
  r = nv.nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS)
    return sp_fail(SP_ERR_NVRTC, "nvrtcCreateProgram(%s) failed: %s", name,
                   nv.nvrtcGetErrorString(r));
  rc = nv.nvrtcCompileProgram(prog, nopts, opts);
  if (nv.nvrtcGetProgramLogSize(prog, &loglen) == NVRTC_SUCCESS && loglen > 1) {
    *log = (char *)malloc(loglen + 1);
    if (*log != NULL && nv.nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS) (*log)[0] = '\0';
    if (*log != NULL) (*log)[loglen] = '\0';
  }
  if (rc != NVRTC_SUCCESS) {
    nv.nvrtcDestroyProgram(&prog);
    return sp_fail(SP_ERR_NVRTC, "NVRTC could not compile %s: %s", name,
                   nv.nvrtcGetErrorString(rc));
  }
  if (cubin) {
    r = nv.nvrtcGetCUBINSize(prog, size);
    if (r == NVRTC_SUCCESS) {
      *image = (char *)malloc(*size > 0 ? *size : 1);
      if (*image == NULL) r = -1;
      else r = nv.nvrtcGetCUBIN(prog, *image);
    }
  } else {
    r = nv.nvrtcGetPTXSize(prog, size);
    if (r == NVRTC_SUCCESS) {
      *image = (char *)malloc(*size + 1);
      if (*image == NULL) r = -1;
      else {
        r = nv.nvrtcGetPTX(prog, *image);
        (*image)[*size] = '\0';
      }
    }
  }
  nv.nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) {
    free(*image);
    *image = NULL;
    *size = 0;
    return r == -1 ? sp_fail(SP_ERR_NOMEM, "out of host memory")
                   : sp_fail(SP_ERR_NVRTC, "NVRTC could not return the image of %s: %s",
                             name, nv.nvrtcGetErrorString(r));
  }
  return SP_OK;
}
