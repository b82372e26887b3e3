/* kuramoto.h: the noisy Kuramoto model (paper 001, Eq. (2)), one source for
 * the CPU engine (src/core/sp_kuramoto*.c) and the GPU kernels (kuramoto.cu).
 *
 *   gamma x_i' = omega_i + (K / n) sum_j A_ij sin(x_j - x_i) + sqrt(2 gamma T) xi_i(t)
 *
 * i.e. x' = F(x) + sqrt(2 D) xi with F_i = (omega_i + (K/n) G_i) / gamma,
 * D = T / gamma and the coupling sum G_i = sum_j A_ij sin(x_j - x_i).  For
 * A = 1 (all to all) G_i = cos x_i S - sin x_i C with S = sum_j sin x_j,
 * C = sum_j cos x_j (paper 001, Eq. (3)): the mean field.  Before including,
 * define SP_REAL to float (with SP_REAL_SINGLE) or double (the default); the
 * functions are named *_f or *_d accordingly.
 *
 * SRK2 (paper 001, Algorithm 2), one standard normal z_i per step and
 * oscillator, dW = sigma z, sigma = sqrt(2 D dt):
 *   F1 = F(x);  xt = x + dt F1 + dW;  F2 = F(xt);  x' = x + dt (F1 + F2) / 2 + dW.
 * Both stages need the whole system (G), so a step is two passes over it.
 * Euler-Maruyama (method "euler") is the predictor alone, x' = x + dt F(x) +
 * dW, with the same normals: one pass a step, first order in dt (SRK2 is
 * second order in the drift).  With a constant drift (K = 0) both give the
 * same numbers: dt (F + F) / 2 = dt F exactly.
 *
 * Single precision: the phases are kept reduced to [-pi, pi] after every
 * step (the rule of paper 001, section 5, for its drive's time: the
 * arguments of the periodic terms stay small, so no precision is lost as
 * the phases wind); in double precision they are not reduced (the total
 * phase advance is kept, e.g. for the phase diffusion).
 *
 * Random numbers (sp_streams.h): system (condition c, replica r, both
 * 0-based, r the global replica) draws from Philox stream c 2^40 + r.  Step
 * k (0-based, the chain's: a continued run goes on counting) of oscillator i
 * uses output i mod 4 of block k ng + floor(i/4)
 * of purpose SP_PURPOSE_KURAMOTO_STEPS, ng = ceil(n / 4): one Philox block
 * serves a group of four oscillators (Box-Muller on outputs (0, 1) and
 * (2, 3)).  So every oscillator has its own sequence of normals, fixed by
 * (seed, c, r, i, k), whatever the threads, devices, chunks or backend.  The
 * start phases (when not given) are uniform on (-pi, pi): output i mod 4 of
 * block floor(i/4) of purpose SP_PURPOSE_KURAMOTO_START, in double, drawn by
 * the engine (the CPU's threads or a GPU kernel: the same numbers).
 *
 * Natural frequencies of a law (kuramoto_lorentz(), kuramoto_normal()) are
 * the n quantiles F^-1((i + 1/2) / n), computed by the engine in double
 * (sp_kur_omega_law: the expressions of the R functions; the normal
 * quantile by Wichura's AS 241, as R's qnorm()), so that no vector of n
 * frequencies is made in R. */

#include "kuramoto_args.h"
#include "sp_streams.h"

#ifndef SP_REAL
#  define SP_REAL double
#endif

#undef SP_KUR
#undef SP_KUR_BM
#undef SP_KUR_SINCOS
#undef SP_KUR_SIN

#include "sp_precision.h"
#define SP_KUR(name) SP_PREC(name)
#ifdef SP_REAL_SINGLE
#  define SP_KUR_BM sp_box_muller_float
#  define SP_KUR_SINCOS sp_sincos_f
#  define SP_KUR_SIN sp_sin_f
#else
#  define SP_KUR_BM sp_box_muller_double
#  define SP_KUR_SINCOS sp_sincos_d
#  define SP_KUR_SIN sp_sin_d
#endif

/* Drift F_i from the coupling sum G_i; kn = K / n, ginv = 1 / gamma. */
SP_FN SP_REAL SP_KUR(sp_kur_drift)(SP_REAL w, SP_REAL ginv, SP_REAL kn, SP_REAL G) {
  return ginv * (w + kn * G);
}

/* G_i of the mean field from sin x_i, cos x_i and the sums S, C. */
SP_FN SP_REAL SP_KUR(sp_kur_mean_field)(SP_REAL s, SP_REAL c, SP_REAL S, SP_REAL C) {
  return c * S - s * C;
}

/* One pair term of PROG2's direct sum: sin(x_j - x_i). */
SP_FN SP_REAL SP_KUR(sp_kur_pair)(SP_REAL xi, SP_REAL xj) {
  return SP_KUR_SIN(xj - xi);
}

/* The phase reduced to [-pi, pi] in single precision; unchanged in double. */
SP_FN SP_REAL SP_KUR(sp_kur_reduce)(SP_REAL x) {
#ifdef SP_REAL_SINGLE
  const float two_pi = 6.28318530717958647692f, inv = 0.159154943091895335769f;
#  if SP_CUDA
  return x - two_pi * rintf(x * inv);
#  else
  /* nearest integer by the 1.5 2^23 shift (exact for |x| < 2^24): no libm
   * call, so that the CPU's loops vectorise */
  const float shift = 12582912.0f;
  float k = (x * inv + shift) - shift;
  return x - two_pi * k;
#  endif
#else
  return x;
#endif
}

/* SRK2's predictor and corrector for one oscillator. */
SP_FN SP_REAL SP_KUR(sp_kur_predict)(SP_REAL x, SP_REAL dt, SP_REAL F1, SP_REAL dW) {
  return x + dt * F1 + dW;
}

SP_FN SP_REAL SP_KUR(sp_kur_correct)(SP_REAL x, SP_REAL hdt, SP_REAL F1, SP_REAL F2,
                                     SP_REAL dW) {
  return SP_KUR(sp_kur_reduce)(x + hdt * (F1 + F2) + dW);
}

/* An Euler-Maruyama step: the predictor, kept reduced in single precision. */
SP_FN SP_REAL SP_KUR(sp_kur_euler)(SP_REAL x, SP_REAL dt, SP_REAL F, SP_REAL dW) {
  return SP_KUR(sp_kur_reduce)(SP_KUR(sp_kur_predict)(x, dt, F, dW));
}

/* The four normals of Philox block `block` of the steps' purpose: those of
 * group q (oscillators 4q .. 4q + 3) at step k for block = k ng + q.  (The
 * GPU adds q to k ng once per group: a 64-bit add, no multiply.) */
SP_FN void SP_KUR(sp_kur_normals_block)(uint64_t seed, uint64_t stream, uint64_t block,
                                        SP_REAL z[4]) {
  sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_KURAMOTO_STEPS, stream, block);
  SP_KUR_BM(r.x, r.y, &z[0], &z[1]);
  SP_KUR_BM(r.z, r.w, &z[2], &z[3]);
}

/* The four normals of group q (oscillators 4q .. 4q + 3) at step k. */
SP_FN void SP_KUR(sp_kur_normals)(uint64_t seed, uint64_t stream, uint64_t ng, uint64_t k,
                                  uint64_t q, SP_REAL z[4]) {
  SP_KUR(sp_kur_normals_block)(seed, stream, k * ng + q, z);
}

#ifndef SP_KUR_COMMON_DEFINED
#define SP_KUR_COMMON_DEFINED
/* Philox stream of replica r of condition c (both 0-based). */
SP_FN uint64_t sp_kur_stream(uint64_t c, uint64_t r) { return sp_stream_replica(c, r); }

/* A start phase from a 32-bit Philox output: uniform on (-pi, pi). */
SP_FN double sp_kur_start_u32(uint32_t u) {
  return 3.141592653589793238463 * (2.0 * sp_u01_double(u) - 1.0);
}

/* Start phase of oscillator i: uniform on (-pi, pi), in double. */
SP_FN double sp_kur_start(uint64_t seed, uint64_t stream, uint64_t i) {
  sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_KURAMOTO_START, stream, i >> 2);
  return sp_kur_start_u32(sp_u32x4_get(r, (uint32_t)(i & 3u)));
}

/* The start phases of oscillators 4q .. 4q + 3 (one Philox block). */
SP_FN void sp_kur_start4(uint64_t seed, uint64_t stream, uint64_t q, double x[4]) {
  sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_KURAMOTO_START, stream, q);
  x[0] = sp_kur_start_u32(r.x);
  x[1] = sp_kur_start_u32(r.y);
  x[2] = sp_kur_start_u32(r.z);
  x[3] = sp_kur_start_u32(r.w);
}

/* The standard normal quantile Phi^-1(p), 0 < p < 1: algorithm AS 241
 * (PPND16) of Wichura, Applied Statistics 37, 477-484 (1988), relative
 * error about 1e-16 -- the algorithm of R's qnorm(), whose values it gives
 * to rounding. */
SP_FN double sp_kur_qnorm(double p) {
  const double q = p - 0.5;
  double r, num, den;
  if (fabs(q) <= 0.425) {
    r = 0.180625 - q * q;
    num = ((((((r * 2509.0809287301226727 + 33430.575583588128105) * r +
               67265.770927008700853) * r + 45921.953931549871457) * r +
             13731.693765509461125) * r + 1971.5909503065514427) * r +
           133.14166789178437745) * r + 3.387132872796366608;
    den = ((((((r * 5226.495278852545925 + 28729.085735721942674) * r +
               39307.89580009271061) * r + 21213.794301586595867) * r +
             5394.1960214247511077) * r + 687.1870074920579083) * r +
           42.313330701600911252) * r + 1.0;
    return q * num / den;
  }
  r = sqrt(-log(q < 0 ? p : 1.0 - p));
  if (r <= 5.0) {
    r -= 1.6;
    num = ((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r +
               0.24178072517745061177) * r + 1.27045825245236838258) * r +
             3.64784832476320460504) * r + 5.7694972214606914055) * r +
           4.6303378461565452959) * r + 1.42343711074968357734;
    den = ((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r +
               0.0151986665636164571966) * r + 0.14810397642748007459) * r +
             0.68976733498510000455) * r + 1.6763848301838038494) * r +
           2.05319162663775882187) * r + 1.0;
  } else {
    r -= 5.0;
    num = ((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r +
               0.0012426609473880784386) * r + 0.026532189526576123093) * r +
             0.29656057182850489123) * r + 1.7848265399172913358) * r +
           5.4637849111641143699) * r + 6.6579046435011037772;
    den = ((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r +
               1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r +
             0.0148753612908506148525) * r + 0.13692988092273580531) * r +
           0.59983220655588793769) * r + 1.0;
  }
  return q < 0 ? -(num / den) : num / den;
}

/* Natural frequency of oscillator i (0-based) of n under a law (the
 * expressions of kuramoto_lorentz() and kuramoto_normal(), p = (i + 1/2) /
 * n): SP_KUR_OMEGA_LORENTZ centre + scale tan(pi (p - 1/2)), or
 * SP_KUR_OMEGA_NORMAL centre + scale Phi^-1(p). */
SP_FN double sp_kur_omega_law(int law, double centre, double scale, uint64_t i, uint64_t n) {
  const double p = ((double)i + 0.5) / (double)n;
  if (law == SP_KUR_OMEGA_LORENTZ) return centre + scale * tan(3.141592653589793238463 * (p - 0.5));
  return centre + scale * sp_kur_qnorm(p);
}

/* Order parameter r and mean phase psi from the sums S, C over n. */
SP_FN void sp_kur_order(double S, double C, double n, double *r, double *psi) {
  *r = sqrt(S * S + C * C) / n;
  *psi = atan2(S, C);
}

/* Histogram bin (0 .. bins - 1) of phase x on [0, 2 pi). */
SP_FN int sp_kur_bin(double x, int bins) {
  const double two_pi = 6.283185307179586476925;
  double u = (x - two_pi * floor(x / two_pi)) / two_pi;
  int b = (int)(u * (double)bins);
  return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}
#endif
