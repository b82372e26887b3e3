/* sp_math.h: sin, cos, log and sqrt for the model headers.
 *
 * On the GPU these are CUDA's own functions.  On the CPU they are
 * branch-free polynomial versions written here, so that a loop over several
 * replicas (the CPU engines' SIMD lanes) vectorises: no libm calls, no
 * data-dependent branches, no 64-bit integer compares or conversions
 * (baseline x86-64 has none in its vector unit).  The engines are compiled
 * with -fno-math-errno -fno-trapping-math where the compiler supports them,
 * so that selects of floating-point values if-convert.  Accuracy on the
 * CPU, checked against libm in the tests: sin and cos within 2 units of
 * 2^-53 (double) or 2^-24 (single) absolute for |x| <= 50, within 16 units
 * for |x| <= 2^20 (double) or 2^15 (single); log within 2 units of the
 * last place for normal x > 0. */
#ifndef SP_MATH_H
#define SP_MATH_H

#include "sp_common.h"

/* Reduction by multiples of pi/2 (three-part Cody-Waite), the nearest
 * integer from adding 1.5 2^23, and Cephes' polynomials on [-pi/4, pi/4]:
 * the CPU's branch-free sp_sincos_f, and the SDE models' sine and cosine on
 * both backends (sp_sin_red_f). */
SP_FN float sp_reduce_pio2_f(float x, int *quadrant) {
  const float two_over_pi = 0.636619772367581f;
  const float p1 = 1.5703125f, p2 = 4.837512969970703125e-4f,
              p3 = 7.54978995489188216e-8f;
  const float shift = 12582912.0f; /* 1.5 * 2^23: exact for |x| < 2^21 */
  union { float f; uint32_t u; } t;
  float n;
  t.f = x * two_over_pi + shift;
  n = t.f - shift;
  *quadrant = (int)(t.u & 3u);
  return ((x - n * p1) - n * p2) - n * p3;
}

/* Cephes' sinf/cosf polynomials on [-pi/4, pi/4]. */
SP_FN float sp_sin_poly_f(float r) {
  float z = r * r;
  float p = -1.9515295891e-4f;
  p = p * z + 8.3321608736e-3f;
  p = p * z - 1.6666654611e-1f;
  return r + r * z * p;
}

SP_FN float sp_cos_poly_f(float r) {
  float z = r * r;
  float p = 2.443315711809948e-5f;
  p = p * z - 1.388731625493765e-3f;
  p = p * z + 4.166664568298827e-2f;
  return 1.0f - 0.5f * z + z * z * p;
}

#if SP_CUDA

SP_FN double sp_sin_d(double x) { return sin(x); }
SP_FN void sp_sincos_d(double x, double *s, double *c) { sincos(x, s, c); }
SP_FN double sp_log_d(double x) { return log(x); }
SP_FN double sp_sqrt_d(double x) { return sqrt(x); }
/* SP_FAST_SIN: the hardware sine (2^-21.4 absolute on (-pi, pi)), used by
 * the single-precision model kernels for their force terms. */
#ifdef SP_FAST_SIN
SP_FN float sp_sin_f(float x) { return __sinf(x); }
#else
SP_FN float sp_sin_f(float x) { return sinf(x); }
#endif
/* The hardware's reciprocal square root and reciprocal alone (rsqrt.approx
 * and rcp.approx, within 2 and 1 units in the last place), flushing
 * subnormal inputs and results to zero: for arguments known to be normal
 * they give rsqrtf's and __fdividef(1, x)'s numbers without those
 * functions' subnormal scaling (three or four instructions). */
SP_FN float sp_rsqrt_ftz_f(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
SP_FN float sp_rcp_ftz_f(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
/* Box-Muller's angle lies in (-pi, pi), where the hardware sine and cosine
 * are accurate to 2^-21.4 absolute; sincosf would cost some thirty more
 * instructions per pair of normals. */
SP_FN void sp_sincos_f(float x, float *s, float *c) { __sincosf(x, s, c); }
/* sqrt of a positive, normal x (the Box-Muller radius): x rsqrt(x), two
 * instructions instead of IEEE sqrtf's eight and its slow-path call. */
SP_FN float sp_sqrt_pos_f(float x) { return x * rsqrtf(x); }

#else

#include <math.h>

SP_FN double sp_sqrt_d(double x) { return sqrt(x); }
SP_FN float sp_sqrt_pos_f(float x) { return sqrtf(x); }

/* ---- double ----------------------------------------------------------------- */

/* Reduction by multiples of pi/2 (three-part Cody-Waite, fdlibm's split).
 * The nearest integer n comes from adding 1.5 2^52 (exact for |x| < 2^50;
 * no rint() call); its low bits are read from the sum's mantissa.  Returns
 * x - n pi/2 and, in *q, the sum's bits: n mod 4 is q & 3.  (64 bits, as
 * the double's lanes: the quadrant's selects below are then bit operations
 * of the lane's own width.  An int quadrant, 32 bits, mixed a narrower
 * lane into the vector loop of a model over paths, and GCC left the loop
 * scalar: sde_lanes.h, bench/RESULTS.md.) */
SP_FN double sp_reduce_pio2_d(double x, uint64_t *q) {
  const double two_over_pi = 6.36619772367581382433e-01;
  const double p1 = 1.57079632673412561417e+00, p2 = 6.07710050650619224932e-11,
               p3 = 2.02226624879595063154e-21;
  const double shift = 6755399441055744.0; /* 1.5 * 2^52 */
  union { double d; uint64_t u; } t;
  double n;
  t.d = x * two_over_pi + shift;
  n = t.d - shift;
  *q = t.u;
  return ((x - n * p1) - n * p2) - n * p3;
}

/* Cephes' minimax polynomials on [-pi/4, pi/4]. */
SP_FN double sp_sin_poly_d(double r) {
  double z = r * r;
  double p = 1.58962301576546568060e-10;
  p = p * z - 2.50507477628578072866e-8;
  p = p * z + 2.75573136213857245213e-6;
  p = p * z - 1.98412698295895385996e-4;
  p = p * z + 8.33333333332211858878e-3;
  p = p * z - 1.66666666666666307295e-1;
  return r + r * z * p;
}

SP_FN double sp_cos_poly_d(double r) {
  double z = r * r;
  double p = -1.13585365213876817300e-11;
  p = p * z + 2.08757008419747316778e-9;
  p = p * z - 2.75573141792967388112e-7;
  p = p * z + 2.48015872888517045348e-5;
  p = p * z - 1.38888888888730564116e-3;
  p = p * z + 4.16666666666665929218e-2;
  return 1.0 - 0.5 * z + z * z * p;
}

SP_FN void sp_sincos_d(double x, double *s, double *c) {
  union { double d; uint64_t u; } sr, cr, a, b;
  uint64_t q, odd;
  const double r = sp_reduce_pio2_d(x, &q);
  sr.d = sp_sin_poly_d(r);
  cr.d = sp_cos_poly_d(r);
  /* quadrant n = q mod 4: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s).
   * Chosen by bits, with no branch or select: an odd n swaps the two (odd
   * all ones), bit 1 of n negates the sine and bit 1 of n + 1 the cosine
   * (the sign bit flipped: -v exactly, NaN included).  The numbers of
   * (n & 1 ? cr : sr), (n & 2 ? -a : a), ((n + 1) & 2 ? -b : b) bit for bit
   * (test-sp-math.R). */
  odd = (uint64_t)0 - (q & 1u);
  a.u = (sr.u & ~odd) | (cr.u & odd);
  b.u = (cr.u & ~odd) | (sr.u & odd);
  a.u ^= (q & 2u) << 62;
  b.u ^= ((q + 1u) & 2u) << 62;
  *s = a.d;
  *c = b.d;
}

SP_FN double sp_sin_d(double x) {
  double s, c;
  sp_sincos_d(x, &s, &c);
  return s;
}

SP_FN double sp_cos_d(double x) {
  double s, c;
  sp_sincos_d(x, &s, &c);
  return c;
}

/* log(x) for normal x > 0: x = 2^e m, m in [sqrt(1/2), sqrt(2)),
 * log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716. */
SP_FN double sp_log_d(double x) {
  union { double d; uint64_t u; } b;
  double e, m, s, z, p;
  int big;
  b.d = x;
  /* the exponent through a 32-bit integer (no int64 -> double conversion) */
  e = (double)((int32_t)((uint32_t)(b.u >> 52) & 0x7ffu) - 1023);
  b.u = (b.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* m in [1, 2) */
  m = b.d;
  big = m > 1.41421356237309504880; /* a double compare, not a 64-bit one */
  m = big ? 0.5 * m : m;
  e = big ? e + 1.0 : e;
  s = (m - 1.0) / (m + 1.0);
  z = s * s;
  p = 1.0 / 19;
  p = p * z + 1.0 / 17;
  p = p * z + 1.0 / 15;
  p = p * z + 1.0 / 13;
  p = p * z + 1.0 / 11;
  p = p * z + 1.0 / 9;
  p = p * z + 1.0 / 7;
  p = p * z + 1.0 / 5;
  p = p * z + 1.0 / 3;
  /* ln 2 in two parts so that e ln 2 is exact in the high part */
  return e * 6.93147180369123816490e-01 +
         ((2.0 * s + 2.0 * s * z * p) + e * 1.90821492927058770002e-10);
}

/* ---- single -------------------------------------------------------------------- */

SP_FN void sp_sincos_f(float x, float *s, float *c) {
  int n;
  float r = sp_reduce_pio2_f(x, &n);
  float sr = sp_sin_poly_f(r), cr = sp_cos_poly_f(r);
  float a = (n & 1) ? cr : sr, b = (n & 1) ? sr : cr;
  *s = (n & 2) ? -a : a;
  *c = ((n + 1) & 2) ? -b : b;
}

SP_FN float sp_sin_f(float x) {
  float s, c;
  sp_sincos_f(x, &s, &c);
  return s;
}

#endif /* SP_CUDA */

/* sin and cos in single precision, one source for the CPU and the GPU (the
 * user models of sde_model()): for |x| <= 8192 the reduction and
 * polynomials above, within 1.6 units of 2^-24 absolute and 2.1 units
 * relative (where |sin x| > 1e-3) of the exact sine of the float x
 * (measured against libm in double on 2e5 points per range; a few units
 * less where the GPU contracts the reduction into fused multiply-adds);
 * beyond, and for NaN and infinities, the library's sinf and cosf.  On the
 * GPU these cost some twenty full-rate instructions and no branch taken,
 * where sinf inlines, at every call, a large-argument reduction that keeps
 * a local array (a stack frame) and a loop. */
#if SP_CUDA
__device__ __noinline__ float sp_sin_big_f(float x) { return sinf(x); }
__device__ __noinline__ float sp_cos_big_f(float x) { return cosf(x); }
#else
SP_FN float sp_sin_big_f(float x) { return sinf(x); }
SP_FN float sp_cos_big_f(float x) { return cosf(x); }
#endif

/* both polynomials and selects (the quadrant varies from lane to lane) */
SP_FN float sp_sin_red_f(float x) {
  int n;
  float r, sr, cr, a;
  if (!(fabsf(x) <= 8192.0f)) return sp_sin_big_f(x);
  r = sp_reduce_pio2_f(x, &n);
  sr = sp_sin_poly_f(r);
  cr = sp_cos_poly_f(r);
  a = (n & 1) ? cr : sr;
  return (n & 2) ? -a : a;
}

SP_FN float sp_cos_red_f(float x) {
  int n;
  float r, sr, cr, b;
  if (!(fabsf(x) <= 8192.0f)) return sp_cos_big_f(x);
  r = sp_reduce_pio2_f(x, &n);
  sr = sp_sin_poly_f(r);
  cr = sp_cos_poly_f(r);
  b = (n & 1) ? sr : cr;
  return ((n + 1) & 2) ? -b : b;
}

/* sin and cos in single precision with one polynomial and no quadrant
 * select, one source for the CPU and the GPU (the user models of
 * sde_model(), by default): x - m pi reduced into [-pi/2, pi/2] (m the
 * nearest integer to x / pi for sin, the nearest half-odd integer for cos:
 * cos x = -sin(x - pi/2), so that both are relative near their zeros) with
 * Cephes' three-part pi (2 x the pi/4 split above, the products exact for
 * |x| <= 8192), then an odd near-minimax polynomial of degree 9 for sin on
 * [-pi/2, pi/2] (relative error 6.1e-9, 0.1 units of 2^-24, fitted here by
 * Lawson iterations), the sign of (-1)^m xor-ed into the result's sign bit.
 * Accuracy for |x| <= 8192 (measured against the double sine of the float
 * x on 8.4e6 points: every 61st float with |x| in [2^-20, 8192], and the
 * 64 floats either side of every multiple of pi/2 there): see ?sde_run and
 * test-sde.R; beyond 8192, NaN and infinities the library's sinf and cosf.
 * Cost on the GPU: 13 (sin) and 15 (cos) full-rate instructions after the
 * range test, where sp_sin_red_f takes some 22 (both polynomials and the
 * quadrant's selects) and the hardware's __sinf 2 (a quarter-rate one). */
SP_FN float sp_sin_poly9_zf(float r, float z) {
  float q = 2.6057809919e-06f;
  q = q * z - 1.9809603691e-04f;
  q = q * z + 8.3330664784e-03f;
  q = q * z - 1.6666659713e-01f;
  return r + r * z * q;
}

SP_FN float sp_sin_poly9_f(float r) { return sp_sin_poly9_zf(r, r * r); }

/* (The reduction and polynomial alone, for |x| <= 8192: sp_sin_pi_core_f
 * and sp_cos_pi_core_f; the CPU's vector loops of user models, sde_lanes.h,
 * call them on every lane and redo a lane beyond 8192 with sp_sin_pi_f.) */
SP_FN float sp_sin_pi_core_f(float x) {
  const float inv_pi = 0.318309886183790672f, shift = 12582912.0f; /* 1.5 2^23 */
  const float p1 = 3.140625f, p2 = 9.67502593994140625e-4f, p3 = 1.509957990978376432e-7f;
  union { float f; uint32_t u; } t, s;
  float n, r;
  t.f = x * inv_pi + shift; /* n = rint(x / pi) in the low bits */
  n = t.f - shift;
  r = ((x - n * p1) - n * p2) - n * p3;
  /* sin(r + n pi) = (-1)^n sin r = sin((-1)^n r), exactly (the polynomial
   * is odd and rounds symmetrically): the sign goes on r, beside the
   * polynomial's chain in z = r^2, not after it (on the CPU the sign bit
   * goes through an integer register: some 7 cycles at the end of the
   * sine's chain, hidden here behind q's) */
  s.f = r;
  s.u ^= t.u << 31;
  return sp_sin_poly9_zf(s.f, r * r);
}

SP_FN float sp_cos_pi_core_f(float x) {
  const float inv_pi = 0.318309886183790672f, shift = 12582912.0f;
  const float p1 = 3.140625f, p2 = 9.67502593994140625e-4f, p3 = 1.509957990978376432e-7f;
  union { float f; uint32_t u; } t, s;
  float m, r;
  t.f = (x * inv_pi - 0.5f) + shift; /* k = rint(x / pi - 1/2) */
  m = (t.f - shift) + 0.5f;          /* k + 1/2, exact */
  r = ((m * p1 - x) + m * p2) + m * p3; /* r = m pi - x in [-pi/2, pi/2] */
  s.f = r;
  s.u ^= t.u << 31; /* x = k pi + pi/2 - r: cos x = (-1)^k sin r = sin((-1)^k r) */
  s.f = sp_sin_poly9_zf(s.f, r * r);
  /* |x| < 2^-12: 1 (the polynomial at pi/2 is within 2 units, not exact) */
  {
    const uint32_t keep = (uint32_t)0 - (uint32_t)!(fabsf(x) < 2.44140625e-4f);
    s.u = (s.u & keep) | (0x3f800000u & ~keep);
  }
  return s.f;
}

SP_FN float sp_sin_pi_f(float x) {
  if (!(fabsf(x) <= 8192.0f)) return sp_sin_big_f(x);
  return sp_sin_pi_core_f(x);
}

SP_FN float sp_cos_pi_f(float x) {
  if (!(fabsf(x) <= 8192.0f)) return sp_cos_big_f(x);
  return sp_cos_pi_core_f(x);
}

/* The GPU's hardware sine and cosine, reduced by pi beyond [-pi, pi] (the
 * default of a user model's sin() and cos() in single precision on the
 * GPU, as the package's own single-precision kernels use the hardware
 * sine): for |x| <= SP_PI_BELOW_F, the float below pi, the hardware's
 * __sinf(x) and __cosf(x) alone, within 2^-21.41 absolute there (CUDA
 * programming guide: 6.03 units of 2^-24); beyond, n = rint(x / pi) (read
 * from the low bit of a shifted sum, as in sp_sin_pi_f), r = x - n C1 -
 * n C2 with C1 = float(pi) and C2 = pi - C1 (two fused multiply-adds: the
 * first exact for |x| <= 8192, the second rounds once, within 1 unit of
 * 2^-24 as |r| <= pi/2), then sin x = (-1)^n __sinf(r) and cos x =
 * (-1)^n __cosf(r): within 7.1 units of 2^-24 absolute in all, not
 * relative near the zeros.  Beyond 8192, NaN and infinities the library's
 * sinf and cosf.  About 10 instructions where sp_sin_pi_f takes 13.  (Inside
 * [-pi, pi] n is set to 0 by one select, so that r = x exactly and the sign
 * is +: the numbers of the bare hardware sine, which the GPU's copy of a
 * model for its fast macro-steps calls with no reduction at all while its
 * arguments stay there, sde_prelude.h.) */
#define SP_PI_BELOW_F 3.14159250259399414f /* the largest float below pi */
#if SP_CUDA
SP_FN float sp_reduce_pi_hw_f(float x, uint32_t *sign) {
  union { float f; uint32_t u; } t;
  float n, r;
  t.f = x * 0.318309886183790672f + 12582912.0f; /* 1.5 2^23: rint(x / pi) */
  if (fabsf(x) <= SP_PI_BELOW_F) t.f = 12582912.0f; /* n = 0: r = x, sign + */
  n = t.f - 12582912.0f;
  *sign = t.u << 31; /* (-1)^n */
  r = fmaf(-n, 3.14159274101257324f, x);
  return fmaf(-n, -8.74227800037247515e-8f, r);
}
/* (The reduction comes before the test of the range, which replaces the
 * result beyond it: so the sine and cosine of one argument share one
 * reduction -- the compiler merges the two -- where a test first put each
 * behind its own branch.  The same numbers.) */
/* (The reduction and the hardware's sine alone, for |x| <= 8192:
 * sp_sin_hw_core_f and sp_cos_hw_core_f; the GPU's copy of a user model
 * for its fast macro-steps, sde_prelude.h, calls them with no test of the
 * range and redoes a macro-step with an argument beyond it.) */
SP_FN float sp_sin_hw_core_f(float x) {
  union { float f; uint32_t u; } s;
  uint32_t sign;
  s.f = __sinf(sp_reduce_pi_hw_f(x, &sign));
  s.u ^= sign;
  return s.f;
}
SP_FN float sp_cos_hw_core_f(float x) {
  union { float f; uint32_t u; } s;
  uint32_t sign;
  s.f = __cosf(sp_reduce_pi_hw_f(x, &sign));
  s.u ^= sign;
  return s.f;
}
SP_FN float sp_sin_hw_f(float x) {
  float s = sp_sin_hw_core_f(x);
  if (!(fabsf(x) <= 8192.0f)) s = sp_sin_big_f(x);
  return s;
}
SP_FN float sp_cos_hw_f(float x) {
  float s = sp_cos_hw_core_f(x);
  if (!(fabsf(x) <= 8192.0f)) s = sp_cos_big_f(x);
  return s;
}
#endif

/* log(x) in single precision for normal x > 0, on both backends: the
 * reduction and minimax polynomial of CUDA's own logf (x = 2^e m with m in
 * [2/3, 4/3), log m = log1p(m - 1) by a degree-9 polynomial), without its
 * handling of zero, denormals, infinities and NaN, which the callers never
 * pass.  Integer and fused multiply-add operations only: it vectorises on
 * the CPU and costs 12 instructions on the GPU instead of logf's 22. */
SP_FN float sp_log_f(float x) {
  union { float f; uint32_t u; } b, m;
  uint32_t e;
  float f, p, r;
  b.f = x;
  e = (b.u - 0x3f2aaaabu) & 0xff800000u; /* exponent that puts m in [2/3, 4/3) */
  m.u = b.u - e;
  f = m.f - 1.0f;
  p = -1.3018856942653656e-01f;
  p = p * f + 1.408461034e-01f;
  p = p * f - 1.214862764e-01f;
  p = p * f + 1.398061067e-01f;
  p = p * f - 1.668423563e-01f;
  p = p * f + 2.001229972e-01f;
  p = p * f - 2.499966919e-01f;
  p = p * f + 3.333318233e-01f;
  p = p * f - 0.5f;
  p = p * f;
  r = f * p + f; /* log1p(f) */
  return ((float)(int32_t)e * 1.1920928955078125e-07f) * 0.69314718246459960938f + r;
}

#endif /* SP_MATH_H */
