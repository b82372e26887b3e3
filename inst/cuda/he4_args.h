/* he4_args.h: the pair parameters of liquid 4He (paper 002) that the host
 * hands the CPU energy code and the kernels, one definition for both (copied
 * to the device byte for byte: the static assert checks that both compilers
 * agree on the layout).  Lengths in angstrom, energies in kelvin. */
#ifndef SP_HE4_ARGS_H
#define SP_HE4_ARGS_H

#include "sp_common.h"

/* Form of the Jastrow exponent u(r) = -(1/2) (b/r)^5 in a box of side L. */
enum {
  SP_HE4_JASTROW_FREE = 0,        /* no box: u(r) for every r (L = rc = Inf) */
  SP_HE4_JASTROW_TRUNCATED = 1,   /* u(r) for r <= rc, 0 beyond */
  SP_HE4_JASTROW_SYMMETRIZED = 2  /* u(r) + u(L - r) - 2 u(L/2) for r <= rc, 0 beyond */
};

/* One set of pair parameters, in double precision on the host. */
typedef struct {
  double b;       /* McMillan parameter b (angstrom) */
  double L;       /* side of the cubic periodic box (angstrom; Inf: no box) */
  double rc;      /* cut of the pair sums and of the Jastrow factor: L/2 */
  int32_t form;   /* SP_HE4_JASTROW_* */
  int32_t pad_;
} sp_he4_pair;

SP_STATIC_ASSERT(sizeof(sp_he4_pair) == 32, "sp_he4_pair layout");

#endif /* SP_HE4_ARGS_H */
