/* sp_gpu_run.h: the GPU round driver -- the engine contract of
 * src/core/sp_run.h on one or several devices.
 *
 * The driver owns what every GPU engine needs and none should write again:
 * the devices' streams and their properties, a release list (every buffer an
 * engine takes through sp_gpu_dev_alloc() is freed at the end, whatever
 * happened), the rounds (launch on every device, then wait for all), the
 * budget aimed at SP_ROUND_SECONDS, progress, the interrupt rule (stop after
 * the round in flight, collect, flag) and errors (stop, release, report the
 * first failure: a failure in the release does not replace its message).
 *
 * The multi-device plan is a shared chunk counter (sp_gpu_work): an engine
 * hands its work items to the devices in chunks as each device needs them,
 * so that a device that finishes early takes more; results never depend on
 * which device runs an item.  On the device, sp_chunks.h maps a device's
 * slots to items. */
#ifndef SP_GPU_RUN_H
#define SP_GPU_RUN_H

#include <stdint.h>

#include "../core/sp_run.h"
#include "sp_gpu.h"

typedef struct {
  CUdeviceptr ptr;
  size_t bytes;
} sp_gpu_buf;

/* One device of a run. */
typedef struct {
  int id;    /* CUDA device ordinal */
  int index; /* position in the run's device list */
  CUstream stream;
  sp_gpu_device_info info;
  void *state; /* the engine's per-device state (zeroed, state_size bytes) */
  /* set by the engine's poll step after each round */
  double done; /* progress units finished on this device */
  int idle;    /* 1: nothing left to do here (no launch, no poll) */
  int tail;    /* 1: no work left to hand out; rounds aim shorter */
  /* release list */
  sp_gpu_buf *bufs;
  int nbufs, capbufs;
  CUevent events[4];
  int nevents;
} sp_gpu_dev;

/* An engine on the GPU.  Every step returns SP_OK or a status code. */
typedef struct {
  size_t state_size;  /* bytes of per-device state */
  double total;       /* progress units of the whole run */
  unsigned budget0, budget_max;
  double tail_factor; /* rounds aim at tail_factor SP_ROUND_SECONDS once every
                         busy device is in its tail (0: 1) */
  /* Functions, buffers (sp_gpu_dev_alloc), uploads. */
  int (*setup)(void *model, sp_gpu_dev *d);
  /* Enqueue one round of at most `budget` on d->stream. */
  int (*launch)(void *model, sp_gpu_dev *d, unsigned budget);
  /* After the stream is idle: read the device's progress into d->done,
   * d->idle, d->tail; hand out more work; compact. */
  int (*poll)(void *model, sp_gpu_dev *d);
  /* After every device's poll of a round: SP_OK, or the failure the polls
   * found (SP_ERR_NOT_FINITE: the first non-finite state of the round, over
   * all devices, with its message).  The kernels flag a non-finite state in
   * device memory that the poll reads with the round's other results.  May
   * be NULL. */
  int (*check)(void *model);
  /* After the last round of a run that did not fail: copy results to the
   * host (interrupted = 1: also what unfinished work reached).  May be NULL. */
  int (*collect)(void *model, sp_gpu_dev *d, int interrupted);
} sp_gpu_engine;

/* Allocate on d (checked against free memory) and put the buffer on the
 * release list.  *out is 0 on failure. */
int sp_gpu_dev_alloc(sp_gpu_dev *d, size_t bytes, const char *what, CUdeviceptr *out);

/* Create an event on d, destroyed by the driver at the end (at most 4). */
int sp_gpu_dev_event(sp_gpu_dev *d, CUevent *out);

/* Run `e` on `devices`: setup on each, rounds until every device is idle or
 * the user interrupts, collect, release.  info as on the CPU. */
int sp_gpu_run(const sp_gpu_engine *e, void *model, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info);

/* The shared chunk counter of a multi-device plan. */
typedef struct {
  uint64_t total; /* items */
  uint64_t chunk; /* items per chunk (the last may be shorter) */
  uint64_t next;  /* first item not handed out */
} sp_gpu_work;

/* Chunks of about total / (ndev per_device) items, at least `min_chunk`. */
void sp_gpu_work_init(sp_gpu_work *w, uint64_t total, int ndev, uint64_t per_device,
                      uint64_t min_chunk);
/* Take the next chunk: its first item in *start, its length returned (0
 * when all is handed out). */
uint64_t sp_gpu_work_take(sp_gpu_work *w, uint64_t *start);
/* Number of chunks of the whole run. */
uint64_t sp_gpu_work_chunks(const sp_gpu_work *w);

#endif
