/* sp_gpu_rng.c: host side of inst/cuda/rng.cu and curand_check.cu. */
#include "sp_gpu_rng.h"

#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu.h"

#define RNG_BLOCK 256u
/* groups (4 values) per launch and device: 2^23 groups = 256 MiB of doubles */
#define RNG_CHUNK_GROUPS ((uint64_t)1 << 23)

typedef struct {
  int dev;
  CUstream stream;
  CUdeviceptr buf;
  CUfunction fn;
  uint64_t g, gend, glaunched;
  unsigned int grid_max;
} rng_lane;

static void lanes_release(rng_lane *L, int ndev) {
  int d;
  for (d = 0; d < ndev; d++) {
    /* let queued work finish before its buffer goes away */
    if (L[d].stream != NULL) sp_gpu_stream_sync(L[d].dev, L[d].stream);
    sp_gpu_free(L[d].dev, &L[d].buf);
    sp_gpu_stream_destroy(L[d].dev, &L[d].stream);
  }
}

static unsigned int grid_for(uint64_t groups, unsigned int grid_max) {
  uint64_t g = (groups + RNG_BLOCK - 1) / RNG_BLOCK;
  if (g > grid_max) g = grid_max;
  return g < 1 ? 1u : (unsigned int)g;
}

/* Contiguous ranges of `total` groups over `ndev` devices. */
static void split(uint64_t total, int ndev, int d, uint64_t *a, uint64_t *b) {
  uint64_t per = (total + (uint64_t)ndev - 1) / (uint64_t)ndev;
  *a = per * (uint64_t)d;
  *b = *a + per;
  if (*a > total) *a = total;
  if (*b > total) *b = total;
}

static int lane_setup(rng_lane *l, int dev, const char *key, const char *kernel,
                      size_t buf_bytes, const char *what) {
  sp_gpu_device_info info;
  int st = sp_gpu_device_info_get(dev, 0, &info);
  if (st != SP_OK) return st;
  l->dev = dev;
  l->grid_max = (unsigned int)info.multiprocessors *
                (unsigned int)(info.max_threads_per_sm / (int)RNG_BLOCK);
  if (l->grid_max < 1) l->grid_max = 1;
  if ((st = sp_gpu_function(dev, key, kernel, &l->fn)) != SP_OK) return st;
  if ((st = sp_gpu_stream_create(dev, &l->stream)) != SP_OK) return st;
  if (buf_bytes > 0 && (st = sp_gpu_alloc(dev, buf_bytes, what, &l->buf)) != SP_OK)
    return st;
  return SP_OK;
}

int sp_gpu_philox_fill(const char *key, int kind, int single, uint64_t seed,
                       uint64_t stream, uint64_t offset, uint64_t n, double *out,
                       const int *devices, int ndev, const sp_hooks *hooks) {
  uint64_t G = (n + 3) / 4, done = 0;
  rng_lane *L;
  int d, st = SP_OK;
  if (n == 0) return SP_OK;
  L = (rng_lane *)calloc((size_t)ndev, sizeof *L);
  if (L == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (d = 0; d < ndev && st == SP_OK; d++) {
    uint64_t span;
    split(G, ndev, d, &L[d].g, &L[d].gend);
    span = L[d].gend - L[d].g;
    if (span > RNG_CHUNK_GROUPS) span = RNG_CHUNK_GROUPS;
    st = lane_setup(&L[d], devices[d], key, "sp_philox_fill_kernel",
                    (size_t)span * 4 * sizeof(double), "the draws");
  }
  while (st == SP_OK && done < G) {
    /* launch one chunk on every device, then collect them in order */
    for (d = 0; d < ndev && st == SP_OK; d++) {
      rng_lane *l = &L[d];
      uint64_t c = l->gend - l->g, g0, m;
      int k = kind, s = single;
      void *args[8];
      if (c > RNG_CHUNK_GROUPS) c = RNG_CHUNK_GROUPS;
      l->glaunched = c;
      if (c == 0) continue;
      g0 = l->g;
      m = 4 * c;
      if (4 * (g0 + c) > n) m = n - 4 * g0;
      args[0] = &k; args[1] = &s; args[2] = &seed; args[3] = &stream;
      args[4] = &offset; args[5] = &g0; args[6] = &m; args[7] = &l->buf;
      st = sp_gpu_activate(l->dev);
      if (st == SP_OK)
        st = sp_gpu_launch(l->dev, l->fn, grid_for(c, l->grid_max), RNG_BLOCK, 0,
                           l->stream, args, "sp_philox_fill_kernel");
    }
    for (d = 0; d < ndev && st == SP_OK; d++) {
      rng_lane *l = &L[d];
      uint64_t c = l->glaunched, j0, m;
      if (c == 0) continue;
      j0 = 4 * l->g;
      m = 4 * c;
      if (j0 + m > n) m = n - j0;
      st = sp_gpu_stream_sync(l->dev, l->stream);
      if (st == SP_OK) st = sp_gpu_to_host(l->dev, out + j0, l->buf, (size_t)m * sizeof(double));
      l->g += c;
      l->glaunched = 0;
      done += c;
    }
    if (st == SP_OK) {
      sp_hooks_progress(hooks, (double)done, (double)G);
      if (done < G && sp_hooks_interrupted(hooks))
        st = sp_fail(SP_ERR_INTERRUPTED, "interrupted by the user");
    }
  }
  lanes_release(L, ndev);
  free(L);
  return st;
}

int sp_gpu_philox_normal_moments(const char *key, int single, uint64_t seed,
                                 uint64_t stream, uint64_t offset, uint64_t n,
                                 const int *devices, int ndev, double out[2],
                                 double *kernel_ms) {
  uint64_t G = n / 4;
  rng_lane *L;
  CUevent *ev;
  int d, st = SP_OK;
  out[0] = out[1] = 0.0;
  *kernel_ms = 0.0;
  if (n % 4 != 0) return sp_fail(SP_ERR_INVALID, "n must be a multiple of 4");
  L = (rng_lane *)calloc((size_t)ndev, sizeof *L);
  ev = (CUevent *)calloc(2 * (size_t)ndev, sizeof *ev);
  if (L == NULL || ev == NULL) {
    free(L);
    free(ev);
    return sp_fail(SP_ERR_NOMEM, "out of host memory");
  }
  for (d = 0; d < ndev && st == SP_OK; d++) {
    split(G, ndev, d, &L[d].g, &L[d].gend);
    st = lane_setup(&L[d], devices[d], key,
                    single ? "sp_philox_normal_moments_single"
                           : "sp_philox_normal_moments_double",
                    2 * sizeof(double), "the accumulators");
    if (st == SP_OK) st = sp_gpu_memset0(L[d].dev, L[d].buf, 2 * sizeof(double));
    if (st == SP_OK) st = sp_gpu_event_create(L[d].dev, &ev[2 * d]);
    if (st == SP_OK) st = sp_gpu_event_create(L[d].dev, &ev[2 * d + 1]);
  }
  for (d = 0; d < ndev && st == SP_OK; d++) {
    rng_lane *l = &L[d];
    uint64_t g0 = l->g, c = l->gend - l->g;
    void *args[6];
    args[0] = &seed; args[1] = &stream; args[2] = &offset;
    args[3] = &g0; args[4] = &c; args[5] = &l->buf;
    st = sp_gpu_activate(l->dev);
    if (st == SP_OK) st = sp_gpu_event_record(l->dev, ev[2 * d], l->stream);
    if (st == SP_OK && c > 0)
      st = sp_gpu_launch(l->dev, l->fn, l->grid_max, RNG_BLOCK, 0, l->stream, args,
                         "sp_philox_normal_moments");
    if (st == SP_OK) st = sp_gpu_event_record(l->dev, ev[2 * d + 1], l->stream);
  }
  for (d = 0; d < ndev && st == SP_OK; d++) {
    double acc[2], ms = 0;
    st = sp_gpu_event_elapsed_ms(L[d].dev, ev[2 * d], ev[2 * d + 1], &ms);
    if (st == SP_OK) st = sp_gpu_to_host(L[d].dev, acc, L[d].buf, sizeof acc);
    if (st == SP_OK) {
      out[0] += acc[0];
      out[1] += acc[1];
      if (ms > *kernel_ms) *kernel_ms = ms;
    }
  }
  for (d = 0; d < ndev; d++) {
    sp_gpu_event_destroy(L[d].dev, &ev[2 * d]);
    sp_gpu_event_destroy(L[d].dev, &ev[2 * d + 1]);
  }
  lanes_release(L, ndev);
  free(L);
  free(ev);
  return st;
}

int sp_gpu_curand_check(const char *key, int dev, uint64_t seed, uint64_t stream0,
                        uint64_t offset, int nstreams, int nquads, uint32_t *out) {
  rng_lane l;
  size_t bytes = (size_t)nstreams * (size_t)nquads * 4 * sizeof(uint32_t);
  int st;
  memset(&l, 0, sizeof l);
  st = lane_setup(&l, dev, key, "sp_curand_check_kernel", bytes, "the check output");
  if (st == SP_OK) {
    unsigned long long s = seed, s0 = stream0, o = offset;
    int ns = nstreams, nq = nquads;
    void *args[6];
    args[0] = &s; args[1] = &s0; args[2] = &o; args[3] = &ns; args[4] = &nq;
    args[5] = &l.buf;
    st = sp_gpu_launch(dev, l.fn, (unsigned int)((nstreams + 127) / 128), 128, 0,
                       l.stream, args, "sp_curand_check_kernel");
  }
  if (st == SP_OK) st = sp_gpu_stream_sync(dev, l.stream);
  if (st == SP_OK) st = sp_gpu_to_host(dev, out, l.buf, bytes);
  lanes_release(&l, 1);
  return st;
}
