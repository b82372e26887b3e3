/* sp_gpu_memory.c: device memory (checked against free memory before
 * allocating, counted for leak checks) and copies.  No R API; see sp_gpu.h. */
#include "sp_gpu_impl.h"

#include "../core/sp_error.h"

/* ---- memory -------------------------------------------------------------------- */

/* Device buffers taken by sp_gpu_alloc() and not yet given back with
 * sp_gpu_free() (a leak shows here exactly, unlike in the free memory). */
static long live_allocations = 0;

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
  CU_TRY(dev, "cuMemAlloc", sp_cu.cuMemAlloc(out, bytes));
  __atomic_add_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  return SP_OK;
}

void sp_gpu_free(int dev, CUdeviceptr *p) {
  if (p == NULL || *p == 0) return;
  if (sp_gpu_use_ctx(dev))
    sp_cu.cuMemFree(*p);
  __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
  *p = 0;
}

long sp_gpu_live_allocations(void) {
  return __atomic_load_n(&live_allocations, __ATOMIC_RELAXED);
}

/* The memsets and uploads below run on the legacy default stream and may
 * still be in flight when the driver returns (a memset of device memory is
 * asynchronous to the host; an upload from pageable memory returns once
 * the data is staged, before its DMA ends), and the engines' streams are
 * non-blocking (sp_gpu_stream_create): they do not wait for the legacy
 * stream.  So each of these ends by waiting for the legacy stream, which
 * waits for nothing else: a kernel launched next on any stream sees the
 * data.  (Without it a launch could read the previous contents: the AMS
 * branch kernel read a previous level's tasks -- "a replay ... missed its
 * level", now and then, on an H100.) */
static int legacy_sync(int dev) {
  CU_TRY(dev, "cuStreamSynchronize", sp_cu.cuStreamSynchronize(NULL));
  return SP_OK;
}

int sp_gpu_memset0(int dev, CUdeviceptr p, size_t bytes) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuMemsetD8", sp_cu.cuMemsetD8(p, 0, bytes));
  return legacy_sync(dev);
}

int sp_gpu_memset32(int dev, CUdeviceptr p, unsigned int value, size_t count) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuMemsetD32", sp_cu.cuMemsetD32(p, value, count));
  return legacy_sync(dev);
}

int sp_gpu_occupancy(int dev, CUfunction f, int block, size_t shmem, int *blocks_per_sm) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  CU_TRY(dev, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
         sp_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, f, block, shmem));
  return SP_OK;
}

int sp_gpu_to_host(int dev, void *dst, CUdeviceptr src, size_t bytes) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (bytes == 0) return SP_OK;
  CU_TRY(dev, "cuMemcpyDtoH", sp_cu.cuMemcpyDtoH(dst, src, bytes));
  return SP_OK;
}

int sp_gpu_to_device(int dev, CUdeviceptr dst, const void *src, size_t bytes) {
  int st = sp_gpu_activate(dev);
  if (st != SP_OK) return st;
  if (bytes == 0) return SP_OK;
  CU_TRY(dev, "cuMemcpyHtoD", sp_cu.cuMemcpyHtoD(dst, src, bytes));
  return legacy_sync(dev);
}

