/* sp_gpu_loader.c: opens the CUDA driver (libcuda.so.1) and NVRTC
 * (libnvrtc.so.*) with dlopen, so that the package loads where there is no
 * CUDA; reports why the backend is unavailable.  The bottom of the GPU
 * layer (sp_gpu_impl.h): it loads symbols and reports, and calls nothing
 * above it.  No R API; see sp_gpu.h. */
#include "sp_gpu_impl.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "../sp_config.h"

sp_cu_api sp_cu;
sp_nvrtc_api sp_nv;

/* ---- state ------------------------------------------------------------------ */

static int nv_state = 0; /* 0 not tried, 1 loaded, -1 failed */
static char nv_reason[1024];
static char nv_path[1024];
static char nv_home[1024];
static int nv_major = 0, nv_minor = 0;
static void *nv_handle = NULL;

int sp_gpu_state = 0; /* 0 not tried, 1 usable, -1 unavailable */
static char gpu_reason[1024];
static void *cu_handle = NULL;
static int cu_version = 0;
int sp_gpu_ndevices = 0;
static char search_path[2048];

/* ---- helpers ------------------------------------------------------------------ */

const char *sp_cu_errname(CUresult r) {
  const char *s = NULL;
  if (sp_cu.cuGetErrorName == NULL || sp_cu.cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL)
    return "unknown CUDA error";
  return s;
}

const char *sp_cu_errstring(CUresult r) {
  const char *s = NULL;
  if (sp_cu.cuGetErrorString == NULL || sp_cu.cuGetErrorString(r, &s) != CUDA_SUCCESS || s == NULL)
    return "";
  return s;
}


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
  memset(&sp_nv, 0, sizeof sp_nv);
  RESOLVE(h, sp_nv, nvrtcVersion, missing, "nvrtcVersion");
  RESOLVE(h, sp_nv, nvrtcGetErrorString, missing, "nvrtcGetErrorString");
  RESOLVE(h, sp_nv, nvrtcCreateProgram, missing, "nvrtcCreateProgram");
  RESOLVE(h, sp_nv, nvrtcDestroyProgram, missing, "nvrtcDestroyProgram");
  RESOLVE(h, sp_nv, nvrtcCompileProgram, missing, "nvrtcCompileProgram");
  RESOLVE(h, sp_nv, nvrtcGetProgramLogSize, missing, "nvrtcGetProgramLogSize");
  RESOLVE(h, sp_nv, nvrtcGetProgramLog, missing, "nvrtcGetProgramLog");
  RESOLVE(h, sp_nv, nvrtcGetCUBINSize, missing, "nvrtcGetCUBINSize");
  RESOLVE(h, sp_nv, nvrtcGetCUBIN, missing, "nvrtcGetCUBIN");
  RESOLVE(h, sp_nv, nvrtcGetPTXSize, missing, "nvrtcGetPTXSize");
  RESOLVE(h, sp_nv, nvrtcGetPTX, missing, "nvrtcGetPTX");
  RESOLVE(h, sp_nv, nvrtcGetNumSupportedArchs, missing, "nvrtcGetNumSupportedArchs");
  RESOLVE(h, sp_nv, nvrtcGetSupportedArchs, missing, "nvrtcGetSupportedArchs");
  if (missing[0] != '\0') {
    size_t l = strlen(why);
    if (l < whylen)
      snprintf(why + l, whylen - l, "%s%s lacks %s (NVRTC older than 11.2?)",
               l ? "; " : "", path, missing);
    dlclose(h);
    return 0;
  }
  if (sp_nv.nvrtcVersion(&nv_major, &nv_minor) != NVRTC_SUCCESS) {
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
  if (sp_gpu_state != 0) return sp_gpu_state == 1 ? SP_OK : SP_ERR_UNAVAILABLE;
  sp_gpu_state = -1;
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
  memset(&sp_cu, 0, sizeof sp_cu);
  RESOLVE(cu_handle, sp_cu, cuInit, missing, "cuInit");
  RESOLVE(cu_handle, sp_cu, cuDriverGetVersion, missing, "cuDriverGetVersion");
  RESOLVE(cu_handle, sp_cu, cuGetErrorName, missing, "cuGetErrorName");
  RESOLVE(cu_handle, sp_cu, cuGetErrorString, missing, "cuGetErrorString");
  RESOLVE(cu_handle, sp_cu, cuDeviceGetCount, missing, "cuDeviceGetCount");
  RESOLVE(cu_handle, sp_cu, cuDeviceGet, missing, "cuDeviceGet");
  RESOLVE(cu_handle, sp_cu, cuDeviceGetName, missing, "cuDeviceGetName");
  RESOLVE(cu_handle, sp_cu, cuDeviceGetAttribute, missing, "cuDeviceGetAttribute");
  RESOLVE(cu_handle, sp_cu, cuDeviceTotalMem, missing, "cuDeviceTotalMem_v2");
  RESOLVE(cu_handle, sp_cu, cuDevicePrimaryCtxRetain, missing, "cuDevicePrimaryCtxRetain");
  RESOLVE(cu_handle, sp_cu, cuDevicePrimaryCtxRelease, missing,
          "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
  RESOLVE(cu_handle, sp_cu, cuDevicePrimaryCtxReset, missing,
          "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset");
  RESOLVE(cu_handle, sp_cu, cuCtxSetCurrent, missing, "cuCtxSetCurrent");
  RESOLVE(cu_handle, sp_cu, cuCtxSynchronize, missing, "cuCtxSynchronize");
  RESOLVE(cu_handle, sp_cu, cuMemGetInfo, missing, "cuMemGetInfo_v2");
  RESOLVE(cu_handle, sp_cu, cuMemAlloc, missing, "cuMemAlloc_v2");
  RESOLVE(cu_handle, sp_cu, cuMemFree, missing, "cuMemFree_v2");
  RESOLVE(cu_handle, sp_cu, cuMemcpyHtoD, missing, "cuMemcpyHtoD_v2");
  RESOLVE(cu_handle, sp_cu, cuMemcpyDtoH, missing, "cuMemcpyDtoH_v2");
  RESOLVE(cu_handle, sp_cu, cuMemsetD8, missing, "cuMemsetD8_v2");
  RESOLVE(cu_handle, sp_cu, cuMemsetD32, missing, "cuMemsetD32_v2");
  RESOLVE(cu_handle, sp_cu, cuOccupancyMaxActiveBlocksPerMultiprocessor, missing,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  RESOLVE(cu_handle, sp_cu, cuModuleLoadData, missing, "cuModuleLoadData");
  RESOLVE(cu_handle, sp_cu, cuModuleUnload, missing, "cuModuleUnload");
  RESOLVE(cu_handle, sp_cu, cuModuleGetFunction, missing, "cuModuleGetFunction");
  RESOLVE(cu_handle, sp_cu, cuLaunchKernel, missing, "cuLaunchKernel");
  RESOLVE(cu_handle, sp_cu, cuStreamCreate, missing, "cuStreamCreate");
  RESOLVE(cu_handle, sp_cu, cuStreamDestroy, missing, "cuStreamDestroy_v2");
  RESOLVE(cu_handle, sp_cu, cuStreamSynchronize, missing, "cuStreamSynchronize");
  RESOLVE(cu_handle, sp_cu, cuStreamQuery, missing, "cuStreamQuery");
  RESOLVE(cu_handle, sp_cu, cuEventCreate, missing, "cuEventCreate");
  RESOLVE(cu_handle, sp_cu, cuEventRecord, missing, "cuEventRecord");
  RESOLVE(cu_handle, sp_cu, cuEventSynchronize, missing, "cuEventSynchronize");
  RESOLVE(cu_handle, sp_cu, cuEventElapsedTime, missing, "cuEventElapsedTime_v2",
          "cuEventElapsedTime");
  RESOLVE(cu_handle, sp_cu, cuEventDestroy, missing, "cuEventDestroy_v2");
  RESOLVE(cu_handle, sp_cu, cuMemcpyAsync, missing, "cuMemcpyAsync");
  RESOLVE(cu_handle, sp_cu, cuStreamWaitEvent, missing, "cuStreamWaitEvent");
  RESOLVE(cu_handle, sp_cu, cuDeviceCanAccessPeer, missing, "cuDeviceCanAccessPeer");
  RESOLVE(cu_handle, sp_cu, cuCtxEnablePeerAccess, missing, "cuCtxEnablePeerAccess");
  if (missing[0] != '\0') {
    snprintf(gpu_reason, sizeof gpu_reason,
             "the NVIDIA driver's libcuda.so.1 lacks %s (driver too old)", missing);
    return SP_ERR_UNAVAILABLE;
  }
  r = sp_cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    snprintf(gpu_reason, sizeof gpu_reason,
             r == CUDA_ERROR_NO_DEVICE
               ? "the NVIDIA driver found no GPU (cuInit: %s)"
               : "the NVIDIA driver could not be initialised (cuInit: %s)",
             sp_cu_errname(r));
    return SP_ERR_UNAVAILABLE;
  }
  sp_cu.cuDriverGetVersion(&cu_version);
  r = sp_cu.cuDeviceGetCount(&sp_gpu_ndevices);
  if (r != CUDA_SUCCESS || sp_gpu_ndevices < 1) {
    snprintf(gpu_reason, sizeof gpu_reason, "the NVIDIA driver reports no GPU");
    sp_gpu_ndevices = 0;
    return SP_ERR_UNAVAILABLE;
  }
  if (sp_gpu_ndevices > SP_GPU_MAX_DEVICES) sp_gpu_ndevices = SP_GPU_MAX_DEVICES;
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
  sp_gpu_state = 1;
  return SP_OK;
}

const char *sp_gpu_reason(void) { return gpu_reason; }
int sp_gpu_device_count(void) { return sp_gpu_state == 1 ? sp_gpu_ndevices : 0; }
int sp_gpu_driver_version(void) { return cu_version; }

