/* sp_chunks.h: a device's share of a run, handed out in chunks.
 *
 * The GPU round driver (src/gpu/sp_gpu_run.h) hands the work items of a run
 * (paths, runs, walkers) to the devices in chunks from one counter on the
 * host, as each device needs them, so that a device that finishes early
 * takes more and no device idles while another still has a queue.  On the
 * device, threads take slots 0, 1, 2, ... from the device's own counter;
 * slot s is item start[s / chunk] + s % chunk of the chunks assigned so far.
 * Which device runs an item never changes its result (its random numbers
 * depend on the item alone). */
#ifndef SP_CHUNKS_H
#define SP_CHUNKS_H

#include "sp_common.h"

typedef struct {
  SP_DPTR(const unsigned long long) start; /* first item of each assigned chunk */
  SP_DPTR(unsigned long long) next;        /* the device's slot counter */
  unsigned long long nslots;               /* slots assigned: chunks x chunk */
  unsigned long long chunk;                /* items per chunk */
  unsigned long long total;                /* items of the whole run */
} sp_chunk_queue;

SP_STATIC_ASSERT(sizeof(sp_chunk_queue) == 40, "sp_chunk_queue layout");

#if SP_CUDA
/* The item of `slot`, or -1 when the slot lies past the chunks assigned
 * (the device has no more work in this launch). */
__device__ __forceinline__ long long sp_chunk_item(const sp_chunk_queue &q,
                                                   unsigned long long slot) {
  if (slot >= q.nslots) return -1;
  unsigned long long p = q.start[slot / q.chunk] + slot % q.chunk;
  return p < q.total ? (long long)p : -1;
}
#endif

#endif /* SP_CHUNKS_H */
