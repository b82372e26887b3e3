/* sde_prelude.h: what a user model's generated header (sde_code()) uses:
 * SP_REAL literals and functions in the working precision, and the names in
 * that precision (SP_PREC() of sp_precision.h: _f single, _d double).
 * Included before the model's header, once per precision (no include
 * guard: the CPU object holds both precisions). */
#include "sp_common.h"
#include "sp_precision.h"
#if !SP_CUDA
#  include <math.h>
#endif
#include "sp_math.h"

#undef SP_SDE_BM
#undef SP_R
#undef SP_EXP
#undef SP_LOG
#undef SP_SQRT
#undef SP_SIN
#undef SP_COS
#undef SP_TAN
#undef SP_ASIN
#undef SP_ACOS
#undef SP_ATAN
#undef SP_ATAN2
#undef SP_SINH
#undef SP_COSH
#undef SP_TANH
#undef SP_FABS
#undef SP_FLOOR
#undef SP_FMIN
#undef SP_FMAX
#undef SP_POW
#undef SP_RSQRT
#undef SP_SIN_P
#undef SP_COS_P
#undef SP_WRAP
#undef SP_WRAP_BOX

#define SP_R(v) ((SP_REAL)(v))

/* The functions of a large model (sde_header(): long right-hand sides) are
 * compiled once each rather than inlined into every unrolled step, which
 * bounds the compile time (a drift of 250 nested sines: 13 s inlined); a
 * call per step costs nothing beside such a drift. */
#ifndef SP_FN_OUTLINE
#  if SP_CUDA
#    define SP_FN_OUTLINE static __device__ __noinline__
#  elif defined(__GNUC__)
#    define SP_FN_OUTLINE static __attribute__((noinline))
#  else
#    define SP_FN_OUTLINE static
#  endif
#endif

#ifdef SP_REAL_SINGLE
#  define SP_SDE_BM sp_box_muller_float
#  define SP_EXP expf
#  define SP_LOG logf
#  define SP_SQRT sqrtf
/* sin and cos: on the GPU by default (option statphysgpu.sde_fast_math,
 * TRUE) the hardware's, alone for |x| <= pi and after an exact reduction
 * by pi beyond (sp_sin_hw_f of sp_math.h: within 7.1 units of 2^-24
 * absolute for |x| <= 8192, about 10 instructions; 2 in the passage
 * kernel's bare copy, below), as the package's single-precision kernels (escape,
 * driven) use the hardware sine; otherwise, and always on the
 * CPU, a reduction by multiples of pi and one odd polynomial of degree 9
 * (within 2.1 units absolute and relative, 13 and 15 instructions on the
 * GPU); the library's beyond 8192 */
#  if SP_CUDA && defined(SP_SDE_BARE_SINE)
/* measurement only (bench/mb.R sine): the bare hardware sine, accurate for
 * |x| <= pi only -- what the sine's reduction costs a model; no user path
 * defines it */
#    define SP_SIN __sinf
#    define SP_COS __cosf
#  elif SP_CUDA && defined(SP_SDE_FAST_MATH)
#    define SP_SIN sp_sin_hw_f
#    define SP_COS sp_cos_hw_f
#  else
#    define SP_SIN sp_sin_pi_f
#    define SP_COS sp_cos_pi_f
#  endif
#  define SP_TAN tanf
#  define SP_ASIN asinf
#  define SP_ACOS acosf
#  define SP_ATAN atanf
#  define SP_ATAN2 atan2f
#  define SP_SINH sinhf
#  define SP_COSH coshf
#  define SP_TANH tanhf
#  define SP_FABS fabsf
#  define SP_FLOOR floorf
#  define SP_FMIN fminf
#  define SP_FMAX fmaxf
#  define SP_POW powf
/* 1/sqrt: the hardware's reciprocal square root on the GPU (2 ulp), the
 * quotient on the CPU (single precision: CPU and GPU agree in law); with
 * the fast math (the default, as for sin and cos) rsqrt.approx.ftz alone
 * (sp_math.h): rsqrtf's numbers for every normal argument, without its
 * subnormal scaling (three or four instructions, a third of a ring model's
 * pair term); a subnormal argument (below 1.2e-38) gives +Inf */
#  if SP_CUDA && defined(SP_SDE_FAST_MATH)
#    define SP_RSQRT sp_rsqrt_ftz_f
#  elif SP_CUDA
#    define SP_RSQRT rsqrtf
#  else
#    define SP_RSQRT(v) (1.0f / sqrtf(v))
#  endif
#else
#  define SP_SDE_BM sp_box_muller_double
#  define SP_EXP exp
#  define SP_LOG log
#  define SP_SQRT sqrt
#  define SP_SIN sin
#  define SP_COS cos
#  define SP_TAN tan
#  define SP_ASIN asin
#  define SP_ACOS acos
#  define SP_ATAN atan
#  define SP_ATAN2 atan2
#  define SP_SINH sinh
#  define SP_COSH cosh
#  define SP_TANH tanh
#  define SP_FABS fabs
#  define SP_FLOOR floor
#  define SP_FMIN fmin
#  define SP_FMAX fmax
#  define SP_POW pow
#  define SP_RSQRT(v) (1.0 / sqrt(v))
#endif

/* Periodic states (sde_model(periodic = )): SP_WRAP(v) is the angle v
 * wrapped into [-pi, pi], v - 2 pi rint(v / 2 pi) with 2 pi in two parts
 * (C1 the working precision's 2 pi, C2 the rest: the subtraction of k C1 is
 * exact for the |k| <= 1 of a step, and CPU and GPU round alike whether or
 * not the compiler fuses the multiply-adds); SP_SIN_P and SP_COS_P are the
 * sine and cosine of a wrapped state: on the GPU in single precision with
 * the fast math the hardware's alone (within 2^-21.41 absolute on [-pi, pi],
 * CUDA programming guide: 6 units of 2^-24, inside the 7.1 of the reduced
 * sp_sin_hw_f), else SP_SIN and SP_COS. */
#ifdef SP_REAL_SINGLE
#  define SP_WRAP(v) SP_PREC(sp_sde_wrap)(v)
#  ifndef SP_SDE_WRAP_F_DEFINED /* (the prelude may come twice per precision) */
#    define SP_SDE_WRAP_F_DEFINED
SP_FN float sp_sde_wrap_f(float v) {
  const float k = rintf(v * 0.159154943091895336f);
  return (v - k * 6.28318548202514648f) - k * -1.74845553146951715e-7f;
}
#  endif
#  if SP_CUDA && defined(SP_SDE_FAST_MATH)
#    define SP_SIN_P __sinf
#    define SP_COS_P __cosf
#  else
#    define SP_SIN_P SP_SIN
#    define SP_COS_P SP_COS
#  endif
#else
#  define SP_WRAP(v) SP_PREC(sp_sde_wrap)(v)
#  ifndef SP_SDE_WRAP_D_DEFINED
#    define SP_SDE_WRAP_D_DEFINED
SP_FN double sp_sde_wrap_d(double v) {
  const double k = rint(v * 0.15915494309189535);
  return (v - k * 6.2831853071795862) - k * 2.4492935982947064e-16;
}
#  endif
#  define SP_SIN_P SP_SIN
#  define SP_COS_P SP_COS
#endif

/* The model's subexpressions of the time t and the parameters only (marked
 * by sde_mark_time(), translated by sde_time_c()) are computed in double
 * from t and the parameters in double (pd), whatever the working
 * precision, and rounded once: the same functions in both precisions. */
#ifndef SP_SDE_DOUBLE_FUNCTIONS
#define SP_SDE_DOUBLE_FUNCTIONS
#  define SP_D_R(v) ((double)(v))
#  define SP_D_EXP exp
#  define SP_D_LOG log
#  define SP_D_SQRT sqrt
#  define SP_D_SIN sin
#  define SP_D_COS cos
#  define SP_D_TAN tan
#  define SP_D_ASIN asin
#  define SP_D_ACOS acos
#  define SP_D_ATAN atan
#  define SP_D_ATAN2 atan2
#  define SP_D_SINH sinh
#  define SP_D_COSH cosh
#  define SP_D_TANH tanh
#  define SP_D_FABS fabs
#  define SP_D_FLOOR floor
#  define SP_D_FMIN fmin
#  define SP_D_FMAX fmax
#  define SP_D_POW pow
#  define SP_D_RSQRT(v) (1.0 / sqrt(v))
#  define SP_D_SIGN(v) ((double)((v) > 0) - (double)((v) < 0))
#endif

/* sign(), as R's: -1, 0 or 1 (NaN: 0 here, NA in R). */
#ifndef SP_SIGN
#  define SP_SIGN(v) ((SP_REAL)((v) > 0) - (SP_REAL)((v) < 0))
#endif

/* Positions in a periodic box (sde_model(positions = ), sde_run(box = )):
 * SP_MI(d, L, iL) is the minimum image of the separation d of two
 * coordinates in [0, L) of a box side L (|d| < L): d - L above L/2, d + L
 * below -L/2, else d -- in [-L/2, L/2], on the CPU by selects, without a
 * floor (a pair's three separations are most of its cost); SP_WRAP_BOX(v, L, iL) a
 * coordinate kept in [0, L) (a value that rounds to L, or below 0, is 0: the
 * same point of the box to rounding). */
#ifndef SP_MI
#  if SP_CUDA
/* (on the GPU d - L rint(d / L), the product fused: for |d| < L the same
 * value, d - k L rounded once with k in -1, 0, 1, in three instructions
 * against the selects' six; the two choose differently only where d is
 * within rounding of L/2, where either image is the minimum) */
#    ifdef SP_REAL_SINGLE
#      define SP_MI(d, L, iL) ((d) - (L) * rintf((d) * (iL)))
#    else
#      define SP_MI(d, L, iL) ((d) - (L) * rint((d) * (iL)))
#    endif
#  else
#    define SP_MI(d, L, iL)                                                             \
      ((d) > SP_R(0.5) * (L) ? (d) - (L) : (d) < SP_R(-0.5) * (L) ? (d) + (L) : (d))
#  endif
#endif
/* A quotient in a pair or edge term (sde_model()'s pairs(), edges()): on
 * the GPU in single precision with the fast math (option
 * statphysgpu.sde_fast_math, TRUE by default, as for sin and cos) the
 * hardware's approximate reciprocal (__fdividef: within 2 units of 2^-24
 * relative for a divisor below 2^126), two instructions against IEEE's
 * nine with a slow path; else the quotient */
#ifndef SP_PDIV
#  if SP_CUDA && defined(SP_REAL_SINGLE) && defined(SP_SDE_FAST_MATH)
#    define SP_PDIV(a, b) __fdividef((a), (b))
#  else
#    define SP_PDIV(a, b) ((a) / (b))
#  endif
#endif
/* A reciprocal in a pair or edge term (1 / b and b^-k there, as the
 * translator writes them): on the GPU in single precision with the fast
 * math rcp.approx.ftz alone (sp_rcp_ftz_f of sp_math.h, as lrmd.cu's pair
 * terms use it): within 1 unit in the last place (PTX ISA) for a normal
 * argument whose reciprocal is normal, one instruction against
 * __fdividef's two or three; a subnormal argument (below 1.2e-38 in
 * magnitude) is taken as 0 and gives +-Inf, an argument above 2^126
 * (8.5e37), whose reciprocal is subnormal, gives 0 (as __fdividef's there);
 * else SP_PDIV(1, b) -- on the CPU always the quotient (never the ftz
 * form). */
#ifndef SP_PRCP
#  if SP_CUDA && defined(SP_REAL_SINGLE) && defined(SP_SDE_FAST_MATH)
#    define SP_PRCP(b) sp_rcp_ftz_f(b)
#  else
#    define SP_PRCP(b) SP_PDIV(SP_R(1.0), (b))
#  endif
#endif
#ifdef SP_REAL_SINGLE
#  ifndef SP_SDE_WRAPBOX_F_DEFINED
#    define SP_SDE_WRAPBOX_F_DEFINED
SP_FN float sp_sde_wrapbox_f(float v, float L, float iL) {
  const float y = v - L * floorf(v * iL);
  return y < 0.0f || y >= L ? 0.0f : y;
}
#  endif
#else
#  ifndef SP_SDE_WRAPBOX_D_DEFINED
#    define SP_SDE_WRAPBOX_D_DEFINED
SP_FN double sp_sde_wrapbox_d(double v, double L, double iL) {
  const double y = v - L * floor(v * iL);
  return y < 0.0 || y >= L ? 0.0 : y;
}
#  endif
#endif
/* (by its precision's name, not SP_PREC's: one function for the CPU's
 * vector copy of a model too) */
#ifdef SP_REAL_SINGLE
#  define SP_WRAP_BOX(v, L, iL) sp_sde_wrapbox_f(v, L, iL)
#else
#  define SP_WRAP_BOX(v, L, iL) sp_sde_wrapbox_d(v, L, iL)
#endif

/* sde_run()'s CPU object (SP_SDE_CPU_POLY, R/sde-compile.R): sin and cos
 * in double are sp_math.h's reduction and polynomials (within 2 units of
 * 2^-53 absolute for |x| <= 50, 16 up to 2^20; the GPU's and the library's
 * sine differ from them by rounding), the library's beyond 2^20, NaN and
 * infinities; in single sp_sin_pi_f and sp_cos_pi_f as above.  In the copy
 * of the model compiled for the CPU's vector loop (SP_PREC_LANE,
 * sde_lanes.h) the same reduction and polynomials run on every lane with
 * no branch: an argument beyond their range (2^20 double, 8192 single)
 * marks the lane in its slot pd[SP_SDE_NP] (SP_SDE_LANE_BAD: the loop's
 * copy of the parameters, a slot past them; every function of the model
 * has pd), and the lane's macro-step is redone by the scalar copy, whose
 * numbers are the same wherever both compute. */
#if !SP_CUDA && defined(SP_SDE_CPU_POLY)
#  ifndef SP_SDE_CPU_TRIG
#    define SP_SDE_CPU_TRIG
#    define SP_SDE_TRIG_MAX_D 1048576.0 /* 2^20 */
#    define SP_SDE_TRIG_MAX_F 8192.0f
#    define SP_SDE_LANE_BAD (&((double *)(uintptr_t)pd)[SP_SDE_NP])
/* (the scalar copy's out of line, as the library's were: the compile
 * stays short; they round as the vector copy's inlined polynomials do) */
#    if defined(__GNUC__)
#      define SP_SDE_TRIG_FN static __attribute__((noinline, unused))
#    else
#      define SP_SDE_TRIG_FN static
#    endif
SP_SDE_TRIG_FN double sp_sde_sin_cpu_d(double x) {
  return fabs(x) <= SP_SDE_TRIG_MAX_D ? sp_sin_d(x) : sin(x);
}
SP_SDE_TRIG_FN double sp_sde_cos_cpu_d(double x) {
  return fabs(x) <= SP_SDE_TRIG_MAX_D ? sp_cos_d(x) : cos(x);
}
SP_FN double sp_sde_sin_lane_d(double x, double *bad) {
  *bad = fabs(x) <= SP_SDE_TRIG_MAX_D ? *bad : 1.0;
  return sp_sin_d(x);
}
SP_FN double sp_sde_cos_lane_d(double x, double *bad) {
  *bad = fabs(x) <= SP_SDE_TRIG_MAX_D ? *bad : 1.0;
  return sp_cos_d(x);
}
SP_FN float sp_sde_sin_lane_f(float x, double *bad) {
  *bad = fabsf(x) <= SP_SDE_TRIG_MAX_F ? *bad : 1.0;
  return sp_sin_pi_core_f(x);
}
SP_FN float sp_sde_cos_lane_f(float x, double *bad) {
  *bad = fabsf(x) <= SP_SDE_TRIG_MAX_F ? *bad : 1.0;
  return sp_cos_pi_core_f(x);
}
#  endif
#  undef SP_D_SIN
#  undef SP_D_COS
#  ifdef SP_PREC_LANE
#    undef SP_SIN
#    undef SP_COS
#    define SP_D_SIN(v) sp_sde_sin_lane_d((v), SP_SDE_LANE_BAD)
#    define SP_D_COS(v) sp_sde_cos_lane_d((v), SP_SDE_LANE_BAD)
#    ifdef SP_REAL_SINGLE
#      define SP_SIN(v) sp_sde_sin_lane_f((v), SP_SDE_LANE_BAD)
#      define SP_COS(v) sp_sde_cos_lane_f((v), SP_SDE_LANE_BAD)
#    else
#      define SP_SIN(v) sp_sde_sin_lane_d((v), SP_SDE_LANE_BAD)
#      define SP_COS(v) sp_sde_cos_lane_d((v), SP_SDE_LANE_BAD)
#    endif
#  else
#    define SP_D_SIN sp_sde_sin_cpu_d
#    define SP_D_COS sp_sde_cos_cpu_d
#    ifndef SP_REAL_SINGLE
#      undef SP_SIN
#      undef SP_COS
#      define SP_SIN sp_sde_sin_cpu_d
#      define SP_COS sp_sde_cos_cpu_d
#    endif
#  endif
#endif

/* The GPU's copy of the model for the fast macro-steps of the passage
 * kernel (SP_PREC_LANE under CUDA, single precision: sde.cu, SP_SDE_GPU_COPY):
 * sin and cos without the test of their range at every call -- in the
 * scalar copy a branch around the call of the library's sinf, which costs
 * the fast loop a convergence region and the call's register moves at
 * every sine, two a step of SRK2 -- the largest |argument| kept instead in
 * the slot p[SP_SDE_NP] (SP_SDE_GPU_AMAX: the kernel's copy of the
 * parameters has a slot past them; every function of the model has p),
 * one max a call; a macro-step in which it passed 8192 is redone by the
 * scalar copy, whose numbers are the same wherever both compute (NaN and
 * infinities give NaN in both).  The measurement hook SP_SDE_BARE_SINE
 * keeps its bare sine. */
#if SP_CUDA && defined(SP_PREC_LANE) && defined(SP_REAL_SINGLE) && !defined(SP_SDE_BARE_SINE)
#  ifndef SP_SDE_GPU_TRIG
#    define SP_SDE_GPU_TRIG
#    define SP_SDE_GPU_TRIG_MAX 8192.0f
#    define SP_SDE_GPU_AMAX (&((float *)(p))[SP_SDE_NP])
#    ifdef SP_SDE_FAST_MATH
#      define SP_SDE_GPU_SIN_CORE sp_sin_hw_core_f
#      define SP_SDE_GPU_COS_CORE sp_cos_hw_core_f
#    else
#      define SP_SDE_GPU_SIN_CORE sp_sin_pi_core_f
#      define SP_SDE_GPU_COS_CORE sp_cos_pi_core_f
#    endif
SP_FN float sp_sde_sin_gpu_copy_f(float x, float *amax) {
  *amax = fmaxf(*amax, fabsf(x));
  return SP_SDE_GPU_SIN_CORE(x);
}
SP_FN float sp_sde_cos_gpu_copy_f(float x, float *amax) {
  *amax = fmaxf(*amax, fabsf(x));
  return SP_SDE_GPU_COS_CORE(x);
}
#    ifdef SP_SDE_FAST_MATH
/* The second copy (SP_PREC_BARE, sde.cu, for models with sin or cos): the
 * hardware's sine and cosine with no reduction at all, sp_sin_hw_f's
 * numbers for |x| <= SP_PI_BELOW_F (sp_math.h), where a path of a model
 * whose angle stays within a turn of 0 (the washboard's well, a pendulum
 * short of the top) lives: 8 instructions fewer a call.  A macro-step in
 * which an argument passed that is redone by the first copy, and the path
 * stays with it. */
#      define SP_SDE_GPU_BARE_MAX SP_PI_BELOW_F
SP_FN float sp_sde_sin_gpu_bare_f(float x, float *amax) {
  *amax = fmaxf(*amax, fabsf(x));
  return __sinf(x);
}
SP_FN float sp_sde_cos_gpu_bare_f(float x, float *amax) {
  *amax = fmaxf(*amax, fabsf(x));
  return __cosf(x);
}
#    endif
#  endif
#  undef SP_SIN
#  undef SP_COS
#  if defined(SP_PREC_BARE) && defined(SP_SDE_FAST_MATH)
#    define SP_SIN(v) sp_sde_sin_gpu_bare_f((v), SP_SDE_GPU_AMAX)
#    define SP_COS(v) sp_sde_cos_gpu_bare_f((v), SP_SDE_GPU_AMAX)
#  else
#    define SP_SIN(v) sp_sde_sin_gpu_copy_f((v), SP_SDE_GPU_AMAX)
#    define SP_COS(v) sp_sde_cos_gpu_copy_f((v), SP_SDE_GPU_AMAX)
#  endif
#endif

/* sin and cos out of line, for large models (their generated header maps
 * SP_SIN and SP_COS to these): inlined, the reduction and polynomial of
 * every call of a drift with a thousand sines make the compile take 10 times
 * as long (bench/sde-compile.R).  (Large models have no vector copy.) */
#ifndef SP_PREC_LANE
SP_FN_OUTLINE SP_REAL SP_PREC(sp_sde_sin_out)(SP_REAL x) { return SP_SIN(x); }
SP_FN_OUTLINE SP_REAL SP_PREC(sp_sde_cos_out)(SP_REAL x) { return SP_COS(x); }
#endif
