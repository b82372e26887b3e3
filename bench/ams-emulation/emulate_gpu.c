/* bench/ams-emulation/emulate_gpu.c: a host stand-in for the CUDA layer and for the kernels of inst/cuda/ams.cu, to run src/gpu/sp_gpu_ams.c without a GPU (see run.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "gpu/sp_gpu.h"
#include "core/sp_error.h"
/* the model: the washboard, or (-DSP_AMS_SDE, -I a folder with the
 * model's sde_model.h and sde_ams_score.h) a user's SDE model, whose CPU
 * entries (ams_cpu.h) are defined here too, for check.c's CPU run */
#ifdef SP_AMS_SDE
#  include "sde_args.h"
#  define SP_AMS_ENTRY
#endif
#define SP_REAL float
#define SP_REAL_SINGLE 1
#ifdef SP_AMS_SDE
#  include "sde_prelude.h"
#  include "sde_model.h"
#  include "sde_engine.h"
#  include "sde_ams_score.h"
#endif
#include "ams.h"
#ifdef SP_AMS_SDE
#  include "ams_cpu.h"
#endif
#undef SP_REAL
#undef SP_REAL_SINGLE
#define SP_REAL double
#ifdef SP_AMS_SDE
#  include "sde_prelude.h"
#  include "sde_model.h"
#  include "sde_engine.h"
#  include "sde_ams_score.h"
#endif
#include "ams.h"
#ifdef SP_AMS_SDE
#  include "ams_cpu.h"
#endif
#undef SP_REAL

int mock_heun = 1, mock_single = 0;
long mock_launches = 0;
/* MOCK_THREADS: resident threads of a "device" (default 132 x 2048), to split rounds into several branch launches */
int sp_gpu_device_info_get(int dev, int with_free, sp_gpu_device_info *out) { (void)with_free; memset(out, 0, sizeof *out); out->id = dev; out->multiprocessors = 1;
  out->max_threads_per_sm = getenv("MOCK_THREADS") ? atoi(getenv("MOCK_THREADS")) : 132 * 2048; return SP_OK; }
int sp_gpu_activate(int dev) { (void)dev; return SP_OK; }
const char *sp_gpu_label(int dev) { (void)dev; return "mock"; }
int sp_gpu_alloc(int dev, size_t bytes, const char *what, CUdeviceptr *out) { (void)dev; (void)what; void *p = calloc(1, bytes ? bytes : 1); *out = (CUdeviceptr)(uintptr_t)p; return p ? SP_OK : SP_ERR_NOMEM; }
void sp_gpu_free(int dev, CUdeviceptr *p) { (void)dev; free((void *)(uintptr_t)*p); *p = 0; }
int sp_gpu_memset0(int dev, CUdeviceptr p, size_t bytes) { (void)dev; memset((void *)(uintptr_t)p, 0, bytes); return SP_OK; }
int sp_gpu_memset32(int dev, CUdeviceptr p, unsigned int value, size_t count) { (void)dev; unsigned *q = (unsigned *)(uintptr_t)p; for (size_t i = 0; i < count; i++) q[i] = value; return SP_OK; }
int sp_gpu_to_host(int dev, void *dst, CUdeviceptr src, size_t bytes) { (void)dev; memcpy(dst, (void *)(uintptr_t)src, bytes); return SP_OK; }
int sp_gpu_to_device(int dev, CUdeviceptr dst, const void *src, size_t bytes) { (void)dev; memcpy((void *)(uintptr_t)dst, src, bytes); return SP_OK; }
int sp_gpu_stream_create(int dev, CUstream *s) { (void)dev; *s = (CUstream)1; return SP_OK; }
void sp_gpu_stream_destroy(int dev, CUstream *s) { (void)dev; *s = NULL; }
int sp_gpu_stream_sync(int dev, CUstream s) { (void)dev; (void)s; return SP_OK; }
void sp_gpu_event_destroy(int dev, CUevent *e) { (void)dev; (void)e; }
int sp_gpu_event_create(int dev, CUevent *e) { (void)dev; (void)e; return SP_OK; }
int sp_gpu_function(int dev, const char *key, const char *name, CUfunction *f) {
  (void)dev; (void)key; *f = (CUfunction)(uintptr_t)(strcmp(name, "sp_ams_long_kernel") == 0 ? 1 : 2); return SP_OK; }

#define P(T, x) ((T *)(uintptr_t)(x))
#define KERNELS(S, R) \
static void long_##S(const sp_ams_long_kargs *a) { \
  for (uint64_t i = 0; i < a->nitems; i++) { \
    sp_ams_long_state st = P(sp_ams_long_state, a->lt)[i]; \
    if (st.nexit >= a->particles) continue; \
    uint64_t g = a->item0 + i; const SP_AMS_COND *cd = P(const SP_AMS_COND, a->conds) + g / a->replicas; \
    uint64_t stream = SP_AMS_C_STREAM0(cd) + a->replica0 + g % a->replicas; \
    sp_ams_par_##S par; sp_ams_par_load_##S(&par, cd, P(const double, a->tables)); \
    sp_ams_result res = P(sp_ams_result, a->res)[i]; uint64_t off = i * a->particles; \
    int f = sp_ams_long_advance_##S(&par, mock_heun, cd, P(const double, a->tables), a->seed, stream, a->particles, &st, \
      P(double, a->lx) + i * SP_AMS_NX, &res, P(R, a->x) + off, a->xs, P(uint64_t, a->k0) + off, \
      P(uint64_t, a->path) + off, a->budget); \
    if (f) { res.status = -f; if (i < *P(uint64_t, a->bad)) *P(uint64_t, a->bad) = i; } \
    P(sp_ams_long_state, a->lt)[i] = st; P(sp_ams_result, a->res)[i] = res; \
    if (!f && st.nexit >= a->particles) (*P(uint64_t, a->done))++; \
  } } \
static void branch_##S(const sp_ams_branch_kargs *a) { \
  for (uint64_t t = 0; t < a->ntasks; t++) { \
    sp_ams_task tk = P(const sp_ams_task, a->tasks)[t]; \
    uint64_t item = tk.child / a->particles, off = item * a->particles, g = a->item0 + item, steps = 0; \
    const SP_AMS_COND *cd = P(const SP_AMS_COND, a->conds) + g / a->replicas; \
    uint64_t stream = SP_AMS_C_STREAM0(cd) + a->replica0 + g % a->replicas; \
    sp_ams_par_##S par; sp_ams_par_load_##S(&par, cd, P(const double, a->tables)); \
    int f = sp_ams_branch_##S(&par, mock_heun, a->seed, stream, SP_AMS_C_H(cd), tk.child - off, \
      tk.parent == SP_AMS_NO_PARENT ? SP_AMS_NO_PARENT : tk.parent - off, tk.path, (R)tk.z, P(R, a->x) + off, a->xs, \
      P(R, a->maxs) + off, P(uint64_t, a->k0) + off, P(uint64_t, a->path) + off, P(double, a->dur) + off, &steps); \
    sp_ams_task_out o; o.maxs = (double)P(R, a->maxs)[tk.child]; o.steps = f == 0 ? steps : (1ull << 63) | (uint64_t)f; \
    P(sp_ams_task_out, a->out)[t] = o; \
    if (f && t < *P(uint64_t, a->bad)) *P(uint64_t, a->bad) = t; \
  } }
KERNELS(f, float)
KERNELS(d, double)

int sp_gpu_launch(int dev, CUfunction f, unsigned int grid, unsigned int block, unsigned int shmem, CUstream s, void *kargs, const char *name) {
  (void)dev; (void)grid; (void)block; (void)shmem; (void)s; (void)name; mock_launches++;
  if ((uintptr_t)f == 1) { if (mock_single) long_f(kargs); else long_d(kargs); }
  else { if (mock_single) branch_f(kargs); else branch_d(kargs); }
  return SP_OK;
}
