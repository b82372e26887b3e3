/* sp_rng.h: CPU fills of Philox draws (see inst/cuda/philox.h). */
#ifndef SP_RNG_H
#define SP_RNG_H

#include <stdint.h>

/* Values 0 .. n-1 of kind SP_DRAW_UINT32 / SP_DRAW_UNIFORM / SP_DRAW_NORMAL
 * for (seed, stream) starting at draw `offset`, in double or (single != 0)
 * single-precision transforms, on `nth` threads.  The result does not depend
 * on nth.  Returns SP_OK. */
int sp_philox_fill(int kind, int single, uint64_t seed, uint64_t stream,
                   uint64_t offset, uint64_t n, double *out, int nth);

#endif
