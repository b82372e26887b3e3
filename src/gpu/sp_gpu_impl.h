/* sp_gpu_impl.h: state and helpers shared by the files of the GPU layer
 * (loader, devices, memory, modules, NVRTC); not for engines, which use
 * sp_gpu.h. */
#ifndef SP_GPU_IMPL_H
#define SP_GPU_IMPL_H

#include "sp_gpu.h"

/* Driver and NVRTC entry points, resolved by sp_gpu_load() / sp_nvrtc_load(). */
extern sp_cu_api sp_cu;
extern sp_nvrtc_api sp_nv;

/* 0 not tried, 1 usable, -1 unavailable (sp_gpu_reason() says why). */
extern int sp_gpu_state;
extern int sp_gpu_ndevices;

typedef struct {
  int retained;
  CUcontext ctx;
  char label[300];
} sp_gpu_devstate;
extern sp_gpu_devstate sp_gpu_devs[SP_GPU_MAX_DEVICES];

const char *sp_cu_errname(CUresult r);
const char *sp_cu_errstring(CUresult r);
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
/* Make dev's context current for releasing a resource; 0 when the driver or
 * the context is gone (the resource went with it, nothing to release). */
int sp_gpu_release_ctx(int dev);
/* Forget the modules of `dev` (its context was reset). */
void sp_gpu_drop_modules(int dev);

#endif
