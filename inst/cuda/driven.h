/* driven.h: the driven Stewart-McCumber model (paper 001, Eq. (1)), one
 * source for the CPU engine (src/core/sp_driven*.c) and the GPU kernel
 * (driven.cu):
 *
 *   x'' + gamma x' = -V'(x) + a cos(omega t) + f + sqrt(2 gamma D0) xi(t),
 *   V(x) = sin(2 pi x),  <xi(t) xi(s)> = delta(t - s).
 *
 * Before including, define SP_REAL to float (with SP_REAL_SINGLE) or double
 * (the default); the functions are named *_f or *_d accordingly.
 *
 * Time is kept modulo the drive period as an integer phase (Sec. 5 of 001):
 * with dt = (2 pi / omega) / spp, step k + 1 starts at phase j = k mod spp,
 * where omega t = 2 pi j / spp exactly, so the drive is a cos(2 pi j / spp)
 * + f, read from a table of cos(2 pi j / spp), j = 0 .. spp, built once in
 * double on the host (all paths share it; no running time variable, so no
 * addition t + dt that stops moving in single precision).
 *
 * Steps, with a(x, v, d) = d - gamma v - V'(x), d the drive, sigma =
 * sqrt(2 gamma D0 dt) and one standard normal z per step:
 *   srk2 (Algorithm 2 of 001, stochastic Heun on (x, v), noise on v only):
 *     a0 = a(x, v, d_j);  x~ = x + dt v;  v~ = v + dt a0 + sigma z
 *     x' = x + dt (v + v~) / 2;  v' = v + dt (a0 + a(x~, v~, d_{j+1})) / 2 + sigma z
 *   euler:  x' = x + dt v;  v' = v + dt a(x, v, d_j) + sigma z
 *
 * The position is kept as x = m + y: m a 32-bit count of potential periods,
 * y in [-1/2, 1/2] in the working precision, wrapped after every step
 * (sp_driven_wrap).  V is periodic, so the dynamics sees y alone, and y
 * keeps its resolution (2^-25 in single precision) however far a path runs:
 * a single-precision x of magnitude 1000 would round each step's
 * displacement to 6e-5 (the same care for position as Sec. 5 of 001 takes
 * for time).  The force V'(y) = 2 pi cos(2 pi y) is evaluated at y (and at
 * the predictor y + dt v), whose argument stays near [-pi, pi] where the
 * GPU's fast cosine is accurate, with no reduction of its own.
 *
 * Random numbers (sp_streams.h): path r of condition c (0-based) uses
 * Philox stream c 2^40 + r; step k + 1 (k = 0, 1, ...) uses normal k of
 * purpose SP_PURPOSE_DRIVEN_STEPS of that stream (block k / 4, Box-Muller on
 * the pairs (x, y) and (z, w) of the block, as philox_normal() pairs them),
 * and the start x(0) is the uniform of draw 0 of purpose
 * SP_PURPOSE_DRIVEN_START, block 0, in double on both backends. */

#include "driven_args.h"
#include "sp_streams.h"

#ifndef SP_REAL
#  define SP_REAL double
#endif

#undef SP_DRIVEN
#undef SP_DRIVEN_BM
#include "sp_precision.h"
#define SP_DRIVEN(name) SP_PREC(name)
#ifdef SP_REAL_SINGLE
#  define SP_DRIVEN_BM sp_box_muller_float
#else
#  define SP_DRIVEN_BM sp_box_muller_double
#endif

/* A condition in the working precision. */
typedef struct {
  SP_REAL a, f, gamma, dt, hdt, sigma;
} SP_DRIVEN(sp_driven_par);

SP_FN void SP_DRIVEN(sp_driven_par_load)(SP_DRIVEN(sp_driven_par) *p, const sp_driven_cond *c) {
  p->a = (SP_REAL)c->a;
  p->f = (SP_REAL)c->f;
  p->gamma = (SP_REAL)c->gamma;
  p->dt = (SP_REAL)c->dt;
  p->hdt = (SP_REAL)(0.5 * c->dt);
  p->sigma = (SP_REAL)c->sigma;
}

/* cos(2 pi y) for y near [-1/2, 1/2]. */
SP_FN SP_REAL SP_DRIVEN(sp_driven_cos2pi)(SP_REAL y) {
#if SP_CUDA
#  ifdef SP_REAL_SINGLE
#    ifdef SP_FAST_SIN
  return __cosf(6.28318530717958647692f * y); /* 2^-21.4 absolute on [-pi, pi] */
#    else
  return cospif(2.0f * y);
#    endif
#  else
  return cospi(2.0 * y);
#  endif
#else
  SP_REAL s, c;
#  ifdef SP_REAL_SINGLE
  sp_sincos_f(6.28318530717958647692f * y, &s, &c);
#  else
  sp_sincos_d(6.28318530717958647692 * y, &s, &c);
#  endif
  (void)s;
  return c;
#endif
}

/* y -> y - rint(y), m -> m + rint(y): the whole periods of y moved into m. */
SP_FN void SP_DRIVEN(sp_driven_wrap)(SP_REAL *y, int32_t *m) {
#if SP_CUDA
#  ifdef SP_REAL_SINGLE
  SP_REAL r = rintf(*y);
#  else
  SP_REAL r = rint(*y);
#  endif
#else
#  ifdef SP_REAL_SINGLE
  const SP_REAL shift = 12582912.0f;
#  else
  const SP_REAL shift = 6755399441055744.0;
#  endif
  SP_REAL r = (*y + shift) - shift;
#endif
  *y -= r;
  *m += (int32_t)r;
}

/* The acceleration a(x, v, d) = d - gamma v - V'(x), x the part y of the
 * position in [-1/2, 1/2] (or the predictor next to it). */
SP_FN SP_REAL SP_DRIVEN(sp_driven_accel)(const SP_DRIVEN(sp_driven_par) *p, SP_REAL x, SP_REAL v,
                                         SP_REAL d) {
  const SP_REAL twopi = (SP_REAL)6.28318530717958647692;
  return d - p->gamma * v - twopi * SP_DRIVEN(sp_driven_cos2pi)(x);
}

/* srk2's step (sp_heun.h) on a(x, v, d). */
#define SP_HEUN_STEP SP_DRIVEN(sp_driven_heun)
#define SP_HEUN_PAR SP_DRIVEN(sp_driven_par)
#define SP_HEUN_ACCEL SP_DRIVEN(sp_driven_accel)
#include "sp_heun.h"

/* One step from (x, v) with normal z; c0, c1 are cos(omega t) at the start
 * and the end of the step. */
SP_FN void SP_DRIVEN(sp_driven_step)(const SP_DRIVEN(sp_driven_par) *p, int heun, SP_REAL c0,
                                     SP_REAL c1, SP_REAL *x, SP_REAL *v, SP_REAL z) {
  SP_REAL dW = p->sigma * z;
  SP_REAL d0 = p->a * c0 + p->f;
  if (heun) {
    SP_REAL d1 = p->a * c1 + p->f;
    SP_DRIVEN(sp_driven_heun)(p, p->dt, p->hdt, d0, d1, dW, x, v);
  } else {
    SP_REAL a0 = SP_DRIVEN(sp_driven_accel)(p, *x, *v, d0);
    *x = *x + p->dt * *v;
    *v = *v + p->dt * a0 + dW;
  }
}

/* The four normals of Philox block r (steps 4b + 1 .. 4b + 4). */
SP_FN void SP_DRIVEN(sp_driven_normals)(sp_u32x4 r, SP_REAL *z0, SP_REAL *z1, SP_REAL *z2,
                                        SP_REAL *z3) {
  SP_DRIVEN_BM(r.x, r.y, z0, z1);
  SP_DRIVEN_BM(r.z, r.w, z2, z3);
}

#ifndef SP_DRIVEN_START_DEFINED
#define SP_DRIVEN_START_DEFINED
/* The Philox counter words of block `block` of the steps of `stream` (the
 * CPU engine draws with sp_philox4x32_10 on these, in a loop over lanes). */
SP_FN sp_u32x4 sp_driven_counter(uint64_t stream, uint64_t block) {
  sp_u32x4 c;
  uint64_t hi = block | ((uint64_t)SP_PURPOSE_DRIVEN_STEPS << (32 + SP_PURPOSE_SHIFT));
  c.x = (uint32_t)block;
  c.y = (uint32_t)(hi >> 32);
  c.z = (uint32_t)stream;
  c.w = (uint32_t)(stream >> 32);
  return c;
}

/* x = m + y with m = rint(x) (|x| < 2^31), in double. */
SP_FN void sp_driven_split(double x, int32_t *m, double *y) {
  double r = rint(x);
  *m = (int32_t)r;
  *y = x - r;
}

/* The slot of the density (driven_args.h) that counts position m + y
 * (y in [-1/2, 1/2]): floor(x) - lo + 1, clamped to 0 and bins + 1. */
SP_FN uint64_t sp_driven_dens_slot(int32_t m, int y_negative, int64_t lo, uint32_t bins) {
  int64_t b = (int64_t)m - (y_negative ? 1 : 0) - lo;
  return b < 0 ? 0 : (b >= (int64_t)bins ? (uint64_t)bins + 1 : (uint64_t)b + 1);
}

/* The default start x(0) of the path of `stream`: uniform on (0, 1), one
 * potential period (the uniform of draw 0, purpose SP_PURPOSE_DRIVEN_START). */
SP_FN double sp_driven_start_x(uint64_t seed, uint64_t stream) {
  sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_DRIVEN_START, stream, 0);
  return sp_u01_double(r.x);
}
#endif
