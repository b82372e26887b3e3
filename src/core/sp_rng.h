/* sp_rng.h: CPU fills of Philox draws (see inst/cuda/philox.h). */
#ifndef SP_RNG_H
#define SP_RNG_H

#include <stdint.h>

#include "sp_run.h"

/* Values 0 .. n-1 of kind SP_DRAW_UINT32 / SP_DRAW_UNIFORM / SP_DRAW_NORMAL
 * for (seed, stream) starting at draw `offset`, in double or (single != 0)
 * single-precision transforms. */
typedef struct {
  int kind, single;
  uint64_t seed, stream, offset, n;
} sp_philox_job;

/* Fill out[0 .. n-1] on `nth` threads, in rounds (progress, interrupts).
 * The values do not depend on nth.  *filled: how many values were written,
 * always a prefix (n unless interrupted). */
int sp_philox_fill(const sp_philox_job *job, double *out, int nth, const sp_hooks *hooks,
                   sp_run_info *info, uint64_t *filled);

#endif
