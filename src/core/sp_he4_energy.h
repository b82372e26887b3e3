/* sp_he4_energy.h: the local energy of liquid 4He (paper 002) for one
 * configuration, on the CPU, in double precision, O(N^2): the reference the
 * GPU energy kernel is checked against.  No R API.
 *
 * N atoms in a cubic periodic box of side L (minimum image), pairs counted
 * when r < L/2, psi = exp(U), U = sum_{i<j} u(r_ij) with u truncated or
 * symmetrised at L/2 (he4.h).  Per atom (K):
 *   potential    = (1/N) sum_{i<j, r_ij < L/2} V(r_ij)
 *   kinetic_pb   = -(hbar^2/2m) (1/N) sum_i [lap_i U + |grad_i U|^2]   (Pandharipande-Bethe)
 *   kinetic_jf   = -(hbar^2/4m) (1/N) sum_i lap_i U                    (Jackson-Feenberg)
 *   kinetic_grad =  (hbar^2/2m) (1/N) sum_i |grad_i U|^2
 * with hbar^2/m = SP_HE4_HB2M.  For every configuration
 *   kinetic_pb = 2 kinetic_jf - kinetic_grad,
 * i.e. kinetic_pb - kinetic_jf = -(hbar^2/4m)(1/N) sum_i [lap_i U + 2 |grad_i U|^2]
 *                             = -(hbar^2/8m)(1/N) sum_i lap_i(psi^2) / psi^2,
 * whose average over psi^2 is a surface term: zero when U is continuously
 * differentiable in the periodic box (the symmetrised form), not when u or
 * u' jump at L/2 (truncation).  The tail correction is not included. */
#ifndef SP_HE4_ENERGY_H
#define SP_HE4_ENERGY_H

#include <stdint.h>

#include "he4_args.h" /* inst/cuda: shared with the kernels */

typedef struct {
  double potential, kinetic_pb, kinetic_jf, kinetic_grad;
} sp_he4_energy;

/* xyz: 3 n coordinates (A), x y z of atom 0, then of atom 1, ...; any
 * values (they are minimum-imaged).  pair: a finite box (L > 0, rc = L/2)
 * and the truncated or symmetrised form.  Returns SP_OK, SP_ERR_INVALID
 * (bad parameters, n < 2, two atoms at distance 0) or SP_ERR_NOMEM. */
int sp_he4_local_energy(const double *xyz, int64_t n, const sp_he4_pair *pair,
                        sp_he4_energy *out);

#endif
