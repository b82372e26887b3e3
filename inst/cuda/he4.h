/* he4.h: the pair physics of liquid 4He (paper 002, REFERENCES.md section
 * 4), one source for the CPU code (src/core/sp_he4_energy.c, the .Call
 * checks in src/r_he4.c) and the GPU kernel he4_vmc.cu (through he4_vmc.h, the Metropolis
 * moves and measurements of the VMC engines).  Lengths in angstrom, energies in kelvin.
 *
 * Before including, define SP_REAL to float (with SP_REAL_SINGLE) or double
 * (the default); the functions are named sp_he4_*_f or sp_he4_*_d
 * accordingly.  The file may be included once per precision in one
 * translation unit (undefine SP_REAL and SP_REAL_SINGLE in between).
 *
 * Potential: Aziz et al. HFD-B(HE) (Mol. Phys. 61, 1487 (1987)), x = r/r_m,
 *   V(r) = eps [A exp(-alpha x + beta x^2) - F(x) (C6/x^6 + C8/x^8 + C10/x^10)],
 *   F(x) = exp(-(D/x - 1)^2) for x < D, else 1.
 * Trial function: psi = exp(sum_{i<j} u(r_ij)), McMillan's pair exponent
 *   u(r) = -(1/2) (b/r)^5,  u' = (5/2) b^5 / r^6,  u'' = -15 b^5 / r^7,
 * in a cubic box of side L (minimum image) either truncated at rc = L/2
 * (u for r <= rc, 0 beyond) or symmetrised,
 *   u_s(r) = u(r) + u(L - r) - 2 u(L/2) for r <= L/2, 0 beyond,
 *   u_s' = u'(r) - u'(L - r),  u_s'' = u''(r) + u''(L - r),
 * so that u_s and u_s' vanish at L/2 (u_s'' does not: 2 u''(L/2)).
 * For a pair term, grad_i u(r_ij) = u'(r) (r_i - r_j)/r and
 * lap_i u(r_ij) = u''(r) + 2 u'(r)/r (three dimensions). */

#include "he4_args.h"
#include "sp_math.h"

#ifndef SP_HE4_CONSTANTS
#define SP_HE4_CONSTANTS
/* HFD-B(HE) of 1987 (r_m = 2.9673 A is the 1979 HFDHE2's: not this one) */
#define SP_HE4_EPS 10.948           /* eps / k_B, K */
#define SP_HE4_RM 2.963             /* r_m, A */
#define SP_HE4_A 1.8443101e5
#define SP_HE4_ALPHA 10.43329537
#define SP_HE4_BETA (-2.27965105)
#define SP_HE4_C6 1.36745214
#define SP_HE4_C8 0.42123807
#define SP_HE4_C10 0.17473318
#define SP_HE4_D 1.4826
#define SP_HE4_RM2 (SP_HE4_RM * SP_HE4_RM)
/* hbar^2 / m(4He), K A^2 */
#define SP_HE4_HB2M 12.119296
/* Where the damped dispersion is dropped: t = D r_m / r - 1 > 10 (r <
 * 0.4 A), F(x) < exp(-100) and F(x) (C6/x^6 + ...) < 1e-34, some 1e-40 of
 * the repulsion there; dropping it avoids 0 * Inf = NaN as r -> 0, where
 * the powers of 1/r overflow (first in single precision, below 3e-4 A). */
#define SP_HE4_DAMP_TMAX 10.0
#endif

#ifndef SP_REAL
#  define SP_REAL double
#endif

#undef SP_HE4
#undef SP_HE4_EXP
#undef SP_HE4_RINT
#undef SP_HE4_SQRT
#undef SP_HE4_RSQRT
#undef SP_HE4_RCP
#include "sp_precision.h"
#define SP_HE4(name) SP_PREC(name)
#ifdef SP_REAL_SINGLE
#  define SP_HE4_EXP expf
#  define SP_HE4_RINT rintf
#  define SP_HE4_SQRT sqrtf
#else
#  define SP_HE4_EXP exp
#  define SP_HE4_RINT rint
#  define SP_HE4_SQRT sqrt
#endif
/* 1/sqrt(x) and 1/x for the VMC inner loops: in single precision on the GPU
 * the hardware reciprocal square root (rsqrtf, within 2 units in the last
 * place) and the correctly rounded reciprocal; elsewhere correctly rounded
 * operations (so CPU double and GPU double stay the same numbers). */
#if SP_CUDA && defined(SP_REAL_SINGLE) && defined(SP_HE4_APPROX)
/* The kernel variants "*_fast" in single precision (SP_HE4_APPROX): the
 * hardware's approximations alone, flushing subnormals (r^2, L - r and the
 * exponents here are far from them): rsqrt.approx and rcp.approx (within 2
 * and 1 units in the last place), and exp(x) as ex2.approx of x log2(e) for
 * the Aziz potential (the rounding of the product adds |x| 2^-24 to the
 * relative error, as rounding x itself does for expf; results below 2^-126
 * flush to 0). */
#  ifndef SP_HE4_APPROX_FNS
#    define SP_HE4_APPROX_FNS
SP_FN float sp_he4_exp_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}
#  endif
#  undef SP_HE4_EXP
#  define SP_HE4_EXP sp_he4_exp_approx
#  define SP_HE4_RSQRT(x) sp_rsqrt_ftz_f(x)
#  define SP_HE4_RCP(x) sp_rcp_ftz_f(x)
#elif SP_CUDA && defined(SP_REAL_SINGLE)
#  define SP_HE4_RSQRT(x) rsqrtf(x)
#  define SP_HE4_RCP(x) __frcp_rn(x)
#else
#  define SP_HE4_RSQRT(x) ((SP_REAL)1 / SP_HE4_SQRT(x))
#  define SP_HE4_RCP(x) ((SP_REAL)1 / (x))
#endif

/* The Aziz potential V(r), K, for r in A (r >= 0; V(0) = eps A).
 *
 * Written for relative accuracy in single precision.  r_m is folded into
 * the constants, each rounded once to the working precision (rounding r_m
 * itself would be amplified some 15 times: the repulsion changes by
 * (alpha x - 2 beta x^2) d for a relative change d of r, and the
 * dispersion by 6 to 10 d):
 *   A exp(r (b1 r - a1)),  a1 = alpha / r_m,  b1 = beta / r_m^2,
 * one exponential of an exponent in Horner form (never exp(-alpha x)
 * exp(beta x^2), whose factors under- and overflow apart);
 *   w^3 (k6 + w (k8 + w k10)),  w = 1/r^2,  k_n = C_n r_m^n,
 * the dispersion without powers of a rounded x;
 *   F = exp(-t^2),  t = D r_m / r - 1,
 * where x < D is t > 0, and F = 1 at t = 0, so the branch is continuous
 * whichever side rounding takes; eps applied once, at the end.  Measured
 * against the double version on r = 0.25 .. 16 A: within 17 units of 2^-24
 * of the larger of the two terms (near the zero at 2.63692 A they cancel,
 * and the error relative to V grows accordingly).  sp_he4_aziz_wt takes
 * w = 1/r^2 and t from the caller (the VMC loops have 1/r already). */
SP_FN SP_REAL SP_HE4(sp_he4_aziz_wt)(SP_REAL r, SP_REAL w, SP_REAL t) {
  const SP_REAL a1 = (SP_REAL)(SP_HE4_ALPHA / SP_HE4_RM);
  const SP_REAL b1 = (SP_REAL)(SP_HE4_BETA / (SP_HE4_RM * SP_HE4_RM));
  const SP_REAL k6 = (SP_REAL)(SP_HE4_C6 * SP_HE4_RM2 * SP_HE4_RM2 * SP_HE4_RM2);
  const SP_REAL k8 = (SP_REAL)(SP_HE4_C8 * SP_HE4_RM2 * SP_HE4_RM2 * SP_HE4_RM2 * SP_HE4_RM2);
  const SP_REAL k10 = (SP_REAL)(SP_HE4_C10 * SP_HE4_RM2 * SP_HE4_RM2 * SP_HE4_RM2 * SP_HE4_RM2 *
                                SP_HE4_RM2);
  const SP_REAL rep = (SP_REAL)SP_HE4_A * SP_HE4_EXP(r * (b1 * r - a1));
  SP_REAL att = (SP_REAL)0;
  if (t <= (SP_REAL)SP_HE4_DAMP_TMAX) {
    const SP_REAL disp = w * w * w * (k6 + w * (k8 + w * k10));
    att = t > (SP_REAL)0 ? SP_HE4_EXP(-t * t) * disp : disp;
  }
  return (SP_REAL)SP_HE4_EPS * (rep - att);
}

SP_FN SP_REAL SP_HE4(sp_he4_aziz)(SP_REAL r) {
  return SP_HE4(sp_he4_aziz_wt)(r, (SP_REAL)1 / (r * r),
                                (SP_REAL)(SP_HE4_D * SP_HE4_RM) / r - (SP_REAL)1);
}

/* McMillan's u(r) = -(1/2)(b/r)^5 and its first two radial derivatives. */
SP_FN void SP_HE4(sp_he4_mcmillan)(SP_REAL b, SP_REAL r, SP_REAL *u, SP_REAL *du, SP_REAL *d2u) {
  const SP_REAL s = b / r, s2 = s * s;
  const SP_REAL s5 = s2 * s2 * s;
  *u = (SP_REAL)(-0.5) * s5;
  *du = (SP_REAL)2.5 * s5 / r;
  *d2u = (SP_REAL)(-15) * s5 / (r * r);
}

/* Pair parameters in the working precision. */
typedef struct {
  SP_REAL b, L, invL, rc, rc2;
  SP_REAL ushift; /* 2 u(L/2) for the symmetrised form, else 0 */
  SP_REAL sym;    /* 1 for the symmetrised form, else 0 (the "_c" terms below) */
  int form;
} SP_HE4(sp_he4_par);

SP_FN void SP_HE4(sp_he4_par_load)(SP_HE4(sp_he4_par) *p, const sp_he4_pair *a) {
  SP_REAL u, du, d2u;
  p->b = (SP_REAL)a->b;
  p->L = (SP_REAL)a->L;
  p->invL = a->form == SP_HE4_JASTROW_FREE ? (SP_REAL)0 : (SP_REAL)(1.0 / a->L);
  p->rc = (SP_REAL)a->rc;
  p->rc2 = p->rc * p->rc;
  p->form = a->form;
  p->sym = a->form == SP_HE4_JASTROW_SYMMETRIZED ? (SP_REAL)1 : (SP_REAL)0;
  p->ushift = (SP_REAL)0;
  if (a->form == SP_HE4_JASTROW_SYMMETRIZED) {
    /* in the working precision, from the same function, so that
     * u(rc) + u(L - rc) - ushift is exactly 0 */
    SP_HE4(sp_he4_mcmillan)(p->b, p->rc, &u, &du, &d2u);
    p->ushift = u + u;
  }
}

/* The Jastrow exponent in the box at 0 < r <= rc (any r for the free form):
 * u(r) (free, truncated) or u_s(r) = u(r) + u(L - r) - 2 u(L/2)
 * (symmetrised).  A Metropolis move needs no more; the derivatives are
 * dropped by the compiler. */
SP_FN SP_REAL SP_HE4(sp_he4_jastrow_u)(const SP_HE4(sp_he4_par) *p, SP_REAL r) {
  SP_REAL u, v, d1, d2;
  SP_HE4(sp_he4_mcmillan)(p->b, r, &u, &d1, &d2);
  if (p->form == SP_HE4_JASTROW_SYMMETRIZED) {
    SP_HE4(sp_he4_mcmillan)(p->b, p->L - r, &v, &d1, &d2);
    u = (u + v) - p->ushift;
  }
  return u;
}

/* The VMC inner loops' forms, from r^2 and without a division: McMillan's
 * u from 1/r (returned) with u' and u'' (written when du is not NULL). */
SP_FN SP_REAL SP_HE4(sp_he4_mcm_inv)(SP_REAL b, SP_REAL rinv, SP_REAL *du, SP_REAL *d2u) {
  const SP_REAL s = b * rinv, s2 = s * s, s5 = s2 * s2 * s;
  if (du != 0) {
    *du = (SP_REAL)2.5 * s5 * rinv;
    *d2u = (SP_REAL)(-15) * s5 * rinv * rinv;
  }
  return (SP_REAL)(-0.5) * s5;
}

/* u (free, truncated or symmetrised form) at r^2 < rc^2: one reciprocal
 * square root and, symmetrised, one reciprocal.  Equal to
 * sp_he4_jastrow_u(p, sqrt(r2)) to a few roundings. */
SP_FN SP_REAL SP_HE4(sp_he4_jastrow_u2)(const SP_HE4(sp_he4_par) *p, SP_REAL r2) {
  const SP_REAL rinv = SP_HE4_RSQRT(r2);
  SP_REAL u = SP_HE4(sp_he4_mcm_inv)(p->b, rinv, 0, 0);
  if (p->form == SP_HE4_JASTROW_SYMMETRIZED)
    u = (u + SP_HE4(sp_he4_mcm_inv)(p->b, SP_HE4_RCP(p->L - r2 * rinv), 0, 0)) - p->ushift;
  return u;
}

/* The Jastrow exponent in the box and its radial derivatives at r > 0:
 * u(r) (free), u(r) for r <= rc (truncated), u_s(r) for r <= rc
 * (symmetrised); 0 beyond rc. */
SP_FN void SP_HE4(sp_he4_jastrow)(const SP_HE4(sp_he4_par) *p, SP_REAL r, SP_REAL *u, SP_REAL *du,
                                  SP_REAL *d2u) {
  SP_REAL w;
  if (p->form != SP_HE4_JASTROW_FREE && r > p->rc) {
    *u = *du = *d2u = (SP_REAL)0;
    return;
  }
  *u = SP_HE4(sp_he4_jastrow_u)(p, r);
  SP_HE4(sp_he4_mcmillan)(p->b, r, &w, du, d2u);
  if (p->form == SP_HE4_JASTROW_SYMMETRIZED) {
    SP_REAL dv, d2v;
    SP_HE4(sp_he4_mcmillan)(p->b, p->L - r, &w, &dv, &d2v);
    *du = *du - dv;
    *d2u = *d2u + d2v;
  }
}

/* Minimum-image component of a displacement in the box (not for the free
 * form, which has no box). */
SP_FN SP_REAL SP_HE4(sp_he4_min_image)(const SP_HE4(sp_he4_par) *p, SP_REAL d) {
  return d - p->L * SP_HE4_RINT(d * p->invL);
}

/* The terms of one pair at minimum-image displacement (dx, dy, dz) = r_i -
 * r_j, r > 0.  A pair counts when r < rc (r^2 < rc^2; one at exactly rc,
 * a set of measure zero, does not): then returns 1 with *v = V(r), *g =
 * u'(r)/r (grad_i u(r_ij) = g (dx, dy, dz) = -grad_j u(r_ij)) and *lap =
 * u''(r) + 2 u'(r)/r (= lap_i u(r_ij) = lap_j u(r_ij)).  Else returns 0 and
 * leaves the outputs alone. */
/* The terms of a pair for the VMC measurement, from r^2 < rc^2 without a
 * division: *g = u'(r)/r, *lap = u''(r) + 2 u'(r)/r and, when v is not
 * NULL, *v = V(r) (the Aziz potential of sp_he4_aziz with 1/r, 1/r^2
 * from the reciprocal square root).  Equal to sp_he4_pair_terms to a few
 * roundings. */
/* sp_he4_pair_terms2u also writes the Jastrow exponent u (the value of
 * sp_he4_jastrow_u2, the same operations) when u is not NULL: the DMC's
 * ln psi at the proposed configuration (he4_dmc.h). */
SP_FN void SP_HE4(sp_he4_pair_terms2u)(const SP_HE4(sp_he4_par) *p, SP_REAL r2, SP_REAL *v,
                                       SP_REAL *g, SP_REAL *lap, SP_REAL *u) {
  const SP_REAL rinv = SP_HE4_RSQRT(r2), r = r2 * rinv;
  SP_REAL du, d2u, uu;
  uu = SP_HE4(sp_he4_mcm_inv)(p->b, rinv, &du, &d2u);
  if (p->form == SP_HE4_JASTROW_SYMMETRIZED) {
    SP_REAL dv, d2v;
    uu = (uu + SP_HE4(sp_he4_mcm_inv)(p->b, SP_HE4_RCP(p->L - r), &dv, &d2v)) - p->ushift;
    du = du - dv;
    d2u = d2u + d2v;
  }
  if (u != 0) *u = uu;
  *g = du * rinv;
  *lap = d2u + (SP_REAL)2 * du * rinv;
  if (v != 0)
    *v = SP_HE4(sp_he4_aziz_wt)(r, rinv * rinv,
                                (SP_REAL)(SP_HE4_D * SP_HE4_RM) * rinv - (SP_REAL)1);
}

SP_FN void SP_HE4(sp_he4_pair_terms2)(const SP_HE4(sp_he4_par) *p, SP_REAL r2, SP_REAL *v,
                                      SP_REAL *g, SP_REAL *lap) {
  SP_HE4(sp_he4_pair_terms2u)(p, r2, v, g, lap, 0);
}

/* The VMC kernel variants "*_fast": the terms above grouped by powers of
 * 1/r and q = 1/(L - r), with b^5 folded into one constant (fewer
 * multiplications; equal to sp_he4_jastrow_u2 and sp_he4_pair_terms2 to a
 * few roundings).  With c5 = -(1/2) b^5:
 *   u = c5 (r^-5 + q^5) - 2 u(L/2)   (truncated form: c5 r^-5),
 * and with cg = (5/2) b^5, u' = cg r^-6, u'' = -6 cg r^-7 (and the
 * symmetrised form's -u'(L - r) = -cg q^6, u''(L - r) = -6 cg q^7):
 *   g = u'/r = cg r^-1 (r^-6 - q^6),  lap = u'' + 2 u'/r = 2 g - 6 cg (r^-7 + q^7).
 * Any r2 > 0 gives finite values (q: L - r > 0 for r <= sqrt(3) L/2, a
 * minimum-image distance in the box: the box forms only); the caller
 * selects those with r2 < rc2.  No branch on the form: the q terms are
 * multiplied by p->sym (1 symmetrised, 0 truncated, where they add exactly
 * 0 and ushift is 0), so that a partner loop is one straight block the
 * compiler interleaves (a branch a term cost the variant "_usum", one term
 * an iteration, about 10 per cent of the issue rate on an H200). */
/* u from 1/r (rinv), 1/r^2 (w) and q = 1/(L - r): the one form of the two
 * functions below, so that they give the same u by the same operations. */
SP_FN SP_REAL SP_HE4(sp_he4_u_c)(const SP_HE4(sp_he4_par) *p, SP_REAL c5, SP_REAL rinv,
                                 SP_REAL w, SP_REAL q) {
  const SP_REAL r5 = w * w * rinv, q2 = q * q;
  return c5 * (r5 + p->sym * (q2 * q2 * q)) - p->ushift;
}

SP_FN SP_REAL SP_HE4(sp_he4_jastrow_u2c)(const SP_HE4(sp_he4_par) *p, SP_REAL c5, SP_REAL r2) {
  const SP_REAL rinv = SP_HE4_RSQRT(r2), w = rinv * rinv;
  return SP_HE4(sp_he4_u_c)(p, c5, rinv, w, SP_HE4_RCP(p->L - r2 * rinv));
}

/* sp_he4_pair_terms_cu also writes u (when u is not NULL; c5 = -(1/2) b^5),
 * the value of sp_he4_jastrow_u2c (sp_he4_u_c): the VMC measurement that
 * also gives every atom's sum of u (he4_vmc.cu, "_usum"). */
SP_FN void SP_HE4(sp_he4_pair_terms_cu)(const SP_HE4(sp_he4_par) *p, SP_REAL cg, SP_REAL c5,
                                        SP_REAL r2, SP_REAL *v, SP_REAL *g, SP_REAL *lap,
                                        SP_REAL *u) {
  const SP_REAL rinv = SP_HE4_RSQRT(r2), w = rinv * rinv, w3 = w * w * w;
  const SP_REAL q = SP_HE4_RCP(p->L - r2 * rinv), q2 = q * q, q6 = p->sym * (q2 * q2 * q2);
  const SP_REAL a = w3 - q6, c = w3 * rinv + q6 * q;
  *g = cg * rinv * a;
  *lap = (SP_REAL)2 * *g - (SP_REAL)6 * cg * c;
  *v = SP_HE4(sp_he4_aziz_wt)(r2 * rinv, w, (SP_REAL)(SP_HE4_D * SP_HE4_RM) * rinv - (SP_REAL)1);
  if (u != 0) *u = SP_HE4(sp_he4_u_c)(p, c5, rinv, w, q);
}

SP_FN void SP_HE4(sp_he4_pair_terms_c)(const SP_HE4(sp_he4_par) *p, SP_REAL cg, SP_REAL r2,
                                       SP_REAL *v, SP_REAL *g, SP_REAL *lap) {
  SP_HE4(sp_he4_pair_terms_cu)(p, cg, (SP_REAL)0, r2, v, g, lap, 0);
}

SP_FN int SP_HE4(sp_he4_pair_terms)(const SP_HE4(sp_he4_par) *p, SP_REAL dx, SP_REAL dy, SP_REAL dz,
                                    SP_REAL *v, SP_REAL *g, SP_REAL *lap) {
  const SP_REAL r2 = dx * dx + dy * dy + dz * dz;
  SP_REAL r, u, du, d2u;
  if (!(r2 < p->rc2)) return 0;
  r = SP_HE4_SQRT(r2);
  SP_HE4(sp_he4_jastrow)(p, r, &u, &du, &d2u);
  *v = SP_HE4(sp_he4_aziz)(r);
  *g = du / r;
  *lap = d2u + (SP_REAL)2 * du / r;
  return 1;
}
