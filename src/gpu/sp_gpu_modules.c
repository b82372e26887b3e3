/* sp_gpu_modules.c: streams, events, launches and kernel modules.  Above
 * the devices (sp_gpu_impl.h).  No R API; see sp_gpu.h. */
#include "sp_gpu_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"

/* A module's key (kernel, variant defines, model hash, extra headers' hash):
 * keys were cut at 160 bytes once, and a cut key never matched its lookup
 * (sde_ams() with six defines). */
#define SP_GPU_MODULE_KEY 1024

typedef struct sp_module {
  int dev;
  unsigned generation; /* of dev's context when loaded (sp_gpu_devstate) */
  char key[SP_GPU_MODULE_KEY]; /* the whole key: a longer one is refused */
  CUmodule mod;
  struct sp_module *next;
} sp_module;
static sp_module *modules = NULL;

/* ---- streams, events, launches ------------------------------------------------- */

int sp_gpu_stream_create(int dev, CUstream *s) {
  int st = sp_gpu_activate(dev);
  *s = NULL;
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuStreamCreate", sp_cu.cuStreamCreate(s, CU_STREAM_NON_BLOCKING));
  return SP_OK;
}

void sp_gpu_stream_destroy(int dev, CUstream *s) {
  if (s == NULL || *s == NULL) return;
  if (sp_gpu_use_ctx(dev))
    sp_cu.cuStreamDestroy(*s);
  *s = NULL;
}

int sp_gpu_stream_sync(int dev, CUstream s) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuStreamSynchronize", sp_cu.cuStreamSynchronize(s));
  return SP_OK;
}

int sp_gpu_stream_done(int dev, CUstream s) {
  CUresult r;
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return -st;
  r = sp_cu.cuStreamQuery(s);
  if (r == CUDA_SUCCESS) return 1;
  if (r == CUDA_ERROR_NOT_READY) return 0;
  return -sp_cu_fail(dev, "cuStreamQuery", r);
}

int sp_gpu_event_create(int dev, CUevent *e) {
  int st = sp_gpu_activate(dev);
  *e = NULL;
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuEventCreate", sp_cu.cuEventCreate(e, CU_EVENT_DEFAULT));
  return SP_OK;
}

void sp_gpu_event_destroy(int dev, CUevent *e) {
  if (e == NULL || *e == NULL) return;
  if (sp_gpu_use_ctx(dev))
    sp_cu.cuEventDestroy(*e);
  *e = NULL;
}

int sp_gpu_event_record(int dev, CUevent e, CUstream s) {
  CU_TRY(dev, "cuEventRecord", sp_cu.cuEventRecord(e, s));
  return SP_OK;
}

int sp_gpu_stream_wait(int dev, CUstream s, CUevent e) {
  CU_TRY(dev, "cuStreamWaitEvent", sp_cu.cuStreamWaitEvent(s, e, 0));
  return SP_OK;
}

int sp_gpu_copy_async(int dev, CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  if (bytes == 0) return SP_OK;
  CU_TRY(dev, "cuMemcpyAsync", sp_cu.cuMemcpyAsync(dst, src, bytes, s));
  return SP_OK;
}

int sp_gpu_enable_peer(int dev, int peer, int *enabled) {
  CUdevice a, b;
  CUresult r;
  int can = 0, st;
  *enabled = 0;
  if (dev == peer) return SP_OK;
  if ((st = sp_gpu_activate(peer)) != SP_OK) return st; /* retains peer's context */
  if ((st = sp_gpu_activate(dev)) != SP_OK) return st;
  CU_TRY(dev, "cuDeviceGet", sp_cu.cuDeviceGet(&a, dev));
  CU_TRY(dev, "cuDeviceGet", sp_cu.cuDeviceGet(&b, peer));
  CU_TRY(dev, "cuDeviceCanAccessPeer", sp_cu.cuDeviceCanAccessPeer(&can, a, b));
  if (!can) return SP_OK;
  r = sp_cu.cuCtxEnablePeerAccess(sp_gpu_devs[peer].ctx, 0);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    return sp_cu_fail(dev, "cuCtxEnablePeerAccess", r);
  *enabled = 1;
  return SP_OK;
}

int sp_gpu_event_elapsed_ms(int dev, CUevent a, CUevent b, double *ms) {
  float f = 0;
  CU_TRY(dev, "cuEventSynchronize", sp_cu.cuEventSynchronize(b));
  CU_TRY(dev, "cuEventElapsedTime", sp_cu.cuEventElapsedTime(&f, a, b));
  *ms = f;
  return SP_OK;
}

int sp_gpu_launch(int dev, CUfunction f, unsigned int grid, unsigned int block,
                  unsigned int shmem, CUstream s, void *kargs, const char *name) {
  void *args[1];
  CUresult r;
  args[0] = kargs;
  r = sp_cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, s, args, NULL);
  if (r != CUDA_SUCCESS) {
    char call[200];
    snprintf(call, sizeof call, "cuLaunchKernel(%s)", name);
    return sp_cu_fail(dev, call, r);
  }
  return SP_OK;
}

/* ---- modules --------------------------------------------------------------------- */

/* A module whose context was reset after a fault (sp_cu_fail) went with
 * it: it is forgotten, not unloaded. */
static int stale(const sp_module *m) {
  return m->generation != sp_gpu_devs[m->dev].generation;
}

static sp_module *find_module(int dev, const char *key) {
  sp_module **p = &modules;
  while (*p != NULL) {
    sp_module *m = *p;
    if (stale(m)) {
      *p = m->next;
      free(m);
    } else if (m->dev == dev && strcmp(m->key, key) == 0) {
      return m;
    } else {
      p = &m->next;
    }
  }
  return NULL;
}

int sp_gpu_module_loaded(int dev, const char *key) {
  return sp_gpu_state == 1 && find_module(dev, key) != NULL;
}

int sp_gpu_module_load(int dev, const char *key, const void *image) {
  sp_module *m;
  CUmodule mod;
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (find_module(dev, key) != NULL) return SP_OK;
  if (strlen(key) >= SP_GPU_MODULE_KEY)
    return sp_fail(SP_ERR_INVALID, "kernel module key of %d bytes (at most %d): %.60s...",
                   (int)strlen(key), SP_GPU_MODULE_KEY - 1, key);
  CU_TRY(dev, "cuModuleLoadData", sp_cu.cuModuleLoadData(&mod, image));
  m = (sp_module *)calloc(1, sizeof *m);
  if (m == NULL) {
    sp_cu.cuModuleUnload(mod);
    return sp_fail(SP_ERR_NOMEM, "out of host memory");
  }
  m->dev = dev;
  m->generation = sp_gpu_devs[dev].generation;
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
    CUresult r = sp_cu.cuModuleGetFunction(f, m->mod, name);
    if (r != CUDA_SUCCESS) {
      char call[200];
      snprintf(call, sizeof call, "cuModuleGetFunction(%s)", name);
      return sp_cu_fail(dev, call, r);
    }
  }
  return SP_OK;
}

int sp_gpu_modules_unload_all(void) {
  int n = 0;
  while (modules != NULL) {
    sp_module *m = modules;
    modules = m->next;
    if (!stale(m) && sp_gpu_use_ctx(m->dev))
      sp_cu.cuModuleUnload(m->mod);
    free(m);
    n++;
  }
  return n;
}

