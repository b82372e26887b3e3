/* sp_gpu.h: the GPU layer (plain C, no R API).
 *
 * Opens the CUDA driver (libcuda.so.1) and NVRTC (libnvrtc.so.*) with dlopen,
 * so the package loads where there is no CUDA; reports why the backend is
 * unavailable; manages primary contexts, device memory (checked against free
 * memory before allocating), modules and launches.  Every driver call is
 * checked; a failure records a message naming the device and the call
 * (sp_last_error()) and returns a status code of sp_error.h. */
#ifndef SP_GPU_H
#define SP_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "sp_cuda.h"

#define SP_GPU_MAX_DEVICES 64

/* ---- loading -------------------------------------------------------------- */

/* Open NVRTC (once).  SP_OK, or SP_ERR_UNAVAILABLE with sp_nvrtc_reason(). */
int sp_nvrtc_load(void);
const char *sp_nvrtc_reason(void);
/* NVRTC version, the library path and the CUDA home it was found under
 * (empty when found on the loader's path). */
void sp_nvrtc_version(int *major, int *minor);
const char *sp_nvrtc_path(void);
const char *sp_nvrtc_home(void);

/* Open the driver and NVRTC, initialise, count devices (once).  SP_OK when
 * the GPU backend is usable, else SP_ERR_UNAVAILABLE with sp_gpu_reason(). */
int sp_gpu_load(void);
const char *sp_gpu_reason(void);
int sp_gpu_device_count(void);
int sp_gpu_driver_version(void);
/* The CUDA homes searched, in order, joined by ", " (for messages). */
const char *sp_gpu_search_path(void);

/* ---- devices --------------------------------------------------------------- */

typedef struct {
  int id;
  char name[256];
  int cc_major, cc_minor;
  int multiprocessors;
  int max_threads_per_sm;
  int clock_khz;
  int l2_bytes;
  double total_memory, free_memory; /* bytes; free is -1 if not queried */
} sp_gpu_device_info;

int sp_gpu_device_info_get(int dev, int with_free, sp_gpu_device_info *out);
/* Retain the primary context of `dev` (once) and make it current. */
int sp_gpu_activate(int dev);
/* Name of a device for messages ("GPU 0 (NVIDIA H100 80GB HBM3)"). */
const char *sp_gpu_label(int dev);
/* Free and total memory of a device, in bytes. */
int sp_gpu_mem_info(int dev, double *free_bytes, double *total_bytes);

/* ---- memory ---------------------------------------------------------------- */

/* Allocate `bytes` on `dev` after checking them against the free memory;
 * `what` names the buffer in the message when it does not fit. */
int sp_gpu_alloc(int dev, size_t bytes, const char *what, CUdeviceptr *out);
/* Free; never fails (errors during cleanup are ignored). */
void sp_gpu_free(int dev, CUdeviceptr *p);
/* Buffers allocated and not yet freed, over all devices (leak checks). */
long sp_gpu_live_allocations(void);
/* Memsets and uploads (sp_gpu_to_device) are complete when they return: a
 * kernel launched next on any stream sees their data (sp_gpu_memory.c). */
int sp_gpu_memset0(int dev, CUdeviceptr p, size_t bytes);
/* Set `count` 32-bit words to `value`. */
int sp_gpu_memset32(int dev, CUdeviceptr p, unsigned int value, size_t count);
/* Resident blocks per multiprocessor of kernel f at this block size. */
int sp_gpu_occupancy(int dev, CUfunction f, int block, size_t shmem, int *blocks_per_sm);
int sp_gpu_to_host(int dev, void *dst, CUdeviceptr src, size_t bytes);
int sp_gpu_to_device(int dev, CUdeviceptr dst, const void *src, size_t bytes);

/* ---- streams, events, launches -------------------------------------------- */

int sp_gpu_stream_create(int dev, CUstream *s);
void sp_gpu_stream_destroy(int dev, CUstream *s);
int sp_gpu_stream_sync(int dev, CUstream s);
/* 1 when the stream's work is done, 0 if not, negative on error. */
int sp_gpu_stream_done(int dev, CUstream s);
int sp_gpu_event_create(int dev, CUevent *e);
void sp_gpu_event_destroy(int dev, CUevent *e);
int sp_gpu_event_record(int dev, CUevent e, CUstream s);
int sp_gpu_event_elapsed_ms(int dev, CUevent a, CUevent b, double *ms);
/* Make stream s (of dev) wait for the work recorded in event e (of any
 * device) before what is enqueued next. */
int sp_gpu_stream_wait(int dev, CUstream s, CUevent e);
/* Enqueue a copy of `bytes` from src to dst on stream s of dev; the two
 * may be on different devices (unified addressing). */
int sp_gpu_copy_async(int dev, CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
/* Let dev read and write peer's memory directly where the hardware allows
 * (1 in *enabled), else copies go through the host (0). */
int sp_gpu_enable_peer(int dev, int peer, int *enabled);
/* Launch f (1-D grid and block) on stream s of dev; kargs points to the
 * kernel's one parameter, its argument struct (every kernel of the package
 * takes one: *_args.h), copied at the launch; name for the error. */
int sp_gpu_launch(int dev, CUfunction f, unsigned int grid, unsigned int block,
                  unsigned int shmem, CUstream s, void *kargs, const char *name);

/* ---- modules ---------------------------------------------------------------- */

/* Load a cubin or PTX image on `dev` under `key` (replacing none). */
int sp_gpu_module_load(int dev, const char *key, const void *image);
/* 1 if a module with `key` is loaded on `dev`. */
int sp_gpu_module_loaded(int dev, const char *key);
int sp_gpu_function(int dev, const char *key, const char *name, CUfunction *f);
/* Unload every module (all devices); returns how many were unloaded. */
int sp_gpu_modules_unload_all(void);

/* ---- NVRTC ------------------------------------------------------------------ */

/* Architectures NVRTC can generate SASS for (e.g. 80, 90); *n set. */
int sp_nvrtc_archs(int *archs, int max, int *n);
/* Compile `src` (named `name` in messages) with `opts` and the in-memory
 * headers `headers` (texts, included by the names `header_names`: read from
 * memory, never from a folder others could write).  On success *image
 * (malloc'ed, cubin when `cubin` else NUL-terminated PTX) and *size are set;
 * *log (malloc'ed, may be NULL) receives NVRTC's log either way.  A
 * compilation error returns SP_ERR_NVRTC. */
int sp_nvrtc_compile(const char *src, const char *name, const char *const *opts,
                     int nopts, const char *const *headers, const char *const *header_names,
                     int nheaders, int cubin, char **image, size_t *size, char **log);

/* Release modules and contexts (package unload; sp_gpu_session.c). */
void sp_gpu_shutdown(void);

#endif
