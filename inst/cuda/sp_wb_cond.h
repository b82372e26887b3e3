/* sp_wb_cond.h: one washboard condition as the engines receive it (built in
 * double precision on the host; shared by C engines and CUDA kernels). */
#ifndef SP_WB_COND_H
#define SP_WB_COND_H

#include "sp_common.h"

typedef struct {
  double g0, dg;     /* bias gamma_k = g0 + k dg (dg = ramp h; 0 at fixed bias) */
  double V0, beta, h;
  double sigma;      /* sqrt(2 beta theta h) */
  double phi0, th;   /* start (asin g0, at rest) and threshold (pi - asin g0) */
  double vcens;      /* value reported for a censored path (t_max, gamma_max) */
  uint64_t kmax;     /* last step simulated: censored if not escaped by then */
  uint64_t stream0;  /* Philox stream of replica 1 of this condition: c 2^40 */
} sp_wb_cond;

#endif
