/* lrmd.h: long-range Hamiltonian dynamics (paper 004), one source for the
 * CPU engine (src/core/sp_lrmd*.c) and the GPU kernels (lrmd.cu).
 *
 * Models (REFERENCES.md section 7), n particles of unit mass, all sums over
 * i, j = 1 .. n including i = j (a constant self term, as in the HMF form):
 *   HMF:       H = sum p_i^2/2 + (1/2n) sum_ij [1 - cos(theta_i - theta_j)],
 *              force p_i' = -M_x sin theta_i + M_y cos theta_i,
 *              M = (1/n) sum (cos theta, sin theta), V/n = (1 - M^2)/2;
 *   ring:      H = sum p_i^2/2 - (1/2n) sum_ij 1 / (sqrt(2) sqrt(1 - cos(theta_i -
 *              theta_j) + eps)), so with kappa = 1 / (2 sqrt(2) n) and
 *              d_ij = 1 - cos(theta_i - theta_j) + eps:
 *              p_i' = -kappa sum_j sin(theta_i - theta_j) d_ij^(-3/2),
 *              V = -kappa sum_ij d_ij^(-1/2);
 *   gravity2d: H = sum |p_i|^2/2 + (1/4n) sum_ij ln(|r_i - r_j|^2 + eps^2)
 *              (the 2D Newtonian potential ln r, softened),
 *              p_i' = -(1/n) sum_j (r_i - r_j) / (|r_i - r_j|^2 + eps^2);
 *              virial W = sum_i r_i . grad_i V = (1/2n) sum_ij
 *              |r_ij|^2 / (|r_ij|^2 + eps^2) (2K/W = 1 in a virialised state).
 *
 * The ring model's pair terms use cos(theta_i - theta_j) = c_i c_j + s_i s_j
 * and sin(theta_i - theta_j) = s_i c_j - c_i s_j from the sine and cosine of
 * each angle, computed once per force evaluation (paper 004, section 3).
 *
 * Yoshida's 4th-order step (REFERENCES.md section 7): drift c1, kick d1,
 * drift c2, kick d2, drift c3, kick d3, drift c4 (a drift q += c dt p, a
 * kick p += d dt F(q)): three force evaluations a step.
 *
 * Precision: positions and momenta are always double, and so are drifts,
 * kicks and every sum over particles.  (In single precision on the GPU the
 * gravity2d reciprocal is the hardware's approximate one, __fdividef: 2 ulp;
 * the ring's inverse square root is rsqrtf everywhere on the GPU.)  SP_REAL (float with SP_REAL_SINGLE, the
 * "mixed" precision; double otherwise) is the precision of what the force
 * evaluation reads of each particle (sin and cos of theta, or x and y) and
 * of each pair term, which is added into a double accumulator (paper 004:
 * "the force between two given particles is computed in single precision
 * but added in a double precision variable"); the GPU's "mixed" kernel adds
 * each 8 consecutive pair terms in single precision first (lrmd.cu,
 * SP_LRMD_GROUP: the energy errors measured are those of per-term double
 * sums, bench/RESULTS.md). */

#include "lrmd_args.h"
#include "sp_math.h"

#ifndef SP_REAL
#  define SP_REAL double
#endif

#undef SP_LR
#undef SP_LR_SINCOS
#undef SP_LR_RSQRT
#undef SP_LR_LOG
#undef SP_LR_RCP
#include "sp_precision.h"
#define SP_LR(name) SP_PREC(name)
#ifdef SP_REAL_SINGLE
#  define SP_LR_SINCOS sp_sincos_f
#  define SP_LR_LOG sp_log_f
#  if SP_CUDA && defined(SP_LRMD_FTZ)
/* The variant "mixed_ftz": rsqrt.approx and rcp.approx alone.  Their
 * arguments here are at least eps (ring) or eps^2 (gravity2d), normal
 * numbers (lrmd() checks the softening), where these give rsqrtf's and
 * __fdividef(1, x)'s results bit for bit, three or four instructions a pair
 * cheaper. */
#    define SP_LR_RSQRT(x) sp_rsqrt_ftz_f(x)
#    define SP_LR_RCP(x) sp_rcp_ftz_f(x)
#  elif SP_CUDA
#    define SP_LR_RSQRT(x) rsqrtf(x)
#    define SP_LR_RCP(x) __fdividef(1.0f, x)
#  else
#    define SP_LR_RSQRT(x) (1.0f / sqrtf(x))
#    define SP_LR_RCP(x) (1.0f / (x))
#  endif
#else
#  define SP_LR_SINCOS sp_sincos_d
#  define SP_LR_LOG sp_log_d
#  if SP_CUDA
#    define SP_LR_RSQRT(x) rsqrt(x)
#  else
#    define SP_LR_RSQRT(x) (1.0 / sqrt(x))
#  endif
#  define SP_LR_RCP(x) (1.0 / (x))
#endif

/* What the force pass needs of one particle, from its position(s): sin and
 * cos of theta (the angle first brought to [-pi, pi] in double, so that the
 * working precision's sine keeps its accuracy however far it wound), or x
 * and y converted to the working precision. */
SP_FN void SP_LR(sp_lrmd_prepare)(int model, double q0, double q1, SP_REAL *w0, SP_REAL *w1) {
  if (model == SP_LRMD_GRAVITY2D) {
    *w0 = (SP_REAL)q0;
    *w1 = (SP_REAL)q1;
  } else {
    const double two_pi = 6.283185307179586476925, inv = 0.159154943091895335769;
#if SP_CUDA
    const double k = rint(q0 * inv);
#else
    const double shift = 6755399441055744.0; /* 1.5 2^52: nearest integer, no libm */
    const double k = (q0 * inv + shift) - shift;
#endif
    SP_LR_SINCOS((SP_REAL)(q0 - two_pi * k), w0, w1);
  }
}

/* Ring pair term for i from j: f = sin(theta_i - theta_j) d^(-3/2) (force)
 * and v = d^(-1/2) (potential), d = 1 - cos(theta_i - theta_j) + eps. */
SP_FN void SP_LR(sp_lrmd_ring_pair)(SP_REAL si, SP_REAL ci, SP_REAL sj, SP_REAL cj, SP_REAL eps,
                                    SP_REAL *f, SP_REAL *v) {
  const SP_REAL one = 1;
  const SP_REAL d = one - (ci * cj + si * sj) + eps;
  const SP_REAL r = SP_LR_RSQRT(d);
  *v = r;
  *f = (si * cj - ci * sj) * (r * r * r);
}

/* Gravity2d pair term for i from j: the force components (r_i - r_j) /
 * (|r_ij|^2 + eps^2) (to be scaled by -1/n). */
SP_FN void SP_LR(sp_lrmd_grav_pair)(SP_REAL xi, SP_REAL yi, SP_REAL xj, SP_REAL yj, SP_REAL eps2,
                                    SP_REAL *fx, SP_REAL *fy) {
  const SP_REAL dx = xi - xj, dy = yi - yj;
  /* dx^2 + (dy^2 + eps^2): on the GPU two fused multiply-adds, one
   * instruction a pair fewer than (dx^2 + dy^2) + eps^2 (every term is
   * positive: no cancellation either way) */
  const SP_REAL inv = SP_LR_RCP(dx * dx + (dy * dy + eps2));
  *fx = dx * inv;
  *fy = dy * inv;
}

/* Gravity2d pair energy terms: ln(|r_ij|^2 + eps^2) and the virial term
 * |r_ij|^2 / (|r_ij|^2 + eps^2). */
SP_FN void SP_LR(sp_lrmd_grav_energy)(SP_REAL xi, SP_REAL yi, SP_REAL xj, SP_REAL yj,
                                      SP_REAL eps2, SP_REAL *lg, SP_REAL *vir) {
  const SP_REAL dx = xi - xj, dy = yi - yj;
  const SP_REAL r2 = dx * dx + dy * dy, s = r2 + eps2;
  *lg = SP_LR_LOG(s);
  *vir = r2 / s;
}

#ifndef SP_LRMD_COMMON_DEFINED
#define SP_LRMD_COMMON_DEFINED
/* Yoshida's coefficients (REFERENCES.md section 7): drift c[k], then kick
 * d[k] for k = 0, 1, 2, then a last drift c[3]. */
#define SP_LRMD_C1 0.6756035959798289
#define SP_LRMD_C2 (-0.1756035959798288)
#define SP_LRMD_D1 1.3512071919596578
#define SP_LRMD_D2 (-1.7024143839193155)

SP_FN double sp_lrmd_drift_coef(int k) { return (k == 0 || k == 3) ? SP_LRMD_C1 : SP_LRMD_C2; }
SP_FN double sp_lrmd_kick_coef(int k) { return k == 1 ? SP_LRMD_D2 : SP_LRMD_D1; }

/* HMF force on a particle from the magnetisation (in double). */
SP_FN double sp_lrmd_hmf_force(double s, double c, double Mx, double My) {
  return -Mx * s + My * c;
}

/* Ring: the prefactor kappa = 1 / (2 sqrt(2) n). */
SP_FN double sp_lrmd_ring_kappa(double n) { return 0.35355339059327376220 / n; }
#endif
