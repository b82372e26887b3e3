/* sp_gpu_impl.h: state and helpers shared by the files of the GPU layer;
 * not for engines, which use sp_gpu.h.  Its files are layers, each calling
 * only those below it:
 *
 *   sp_gpu_session.c   the session's end: modules unloaded, contexts released
 *   sp_gpu_memory.c    buffers and copies;
 *   sp_gpu_modules.c   streams, events, launches and modules
 *   sp_gpu_devices.c   devices, their contexts and memory, failed calls (a
 *                      context reset after a fault)
 *   sp_gpu_loader.c    the driver and NVRTC opened (dlopen), their symbols,
 *                      why the backend is unavailable
 *
 * and sp_gpu_nvrtc.c (compiling) over the loader alone.  The round driver
 * (sp_gpu_run.c) and the engines sit above, on sp_gpu.h. */
#ifndef SP_GPU_IMPL_H
#define SP_GPU_IMPL_H

#include "sp_gpu.h"

/* Driver and NVRTC entry points, resolved by sp_gpu_load() / sp_nvrtc_load(). */
extern sp_cu_api sp_cu;
extern sp_nvrtc_api sp_nv;

/* 0 not tried, 1 usable, -1 unavailable (sp_gpu_reason() says why). */
extern int sp_gpu_state;
extern int sp_gpu_ndevices;

/* ---- the loader (sp_gpu_loader.c) ---- */
const char *sp_cu_errname(CUresult r);
const char *sp_cu_errstring(CUresult r);

/* ---- devices (sp_gpu_devices.c) ---- */

typedef struct {
  int retained;
  CUcontext ctx;
  unsigned generation; /* contexts reset so far: a module of an older one
                          went with it (sp_gpu_modules.c forgets it) */
  char label[300];
} sp_gpu_devstate;
extern sp_gpu_devstate sp_gpu_devs[SP_GPU_MAX_DEVICES];

/* Record a failed driver call on `dev` (resetting the context after a
 * sticky error) and return the status code. */
int sp_cu_fail(int dev, const char *call, CUresult r);

#define CU_TRY(dev, call, expr)                                     \
  do {                                                              \
    CUresult sp_r_ = (expr);                                        \
    if (sp_r_ != CUDA_SUCCESS) return sp_cu_fail(dev, call, sp_r_); \
  } while (0)

/* SP_OK when `dev` exists and the backend is usable. */
int sp_gpu_check_dev(int dev);
/* Make dev's context current, if it still has one, to release a resource
 * of it: 1, or 0 when the driver or the context is gone (the resource went
 * with it, nothing to release). */
int sp_gpu_use_ctx(int dev);
/* Release every primary context retained (the session's end). */
void sp_gpu_release_contexts(void);

#endif
