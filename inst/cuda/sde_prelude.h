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
 * TRUE) the hardware's after an exact reduction by pi (sp_sin_hw_f of
 * sp_math.h: within 7.1 units of 2^-24 absolute for |x| <= 8192, about 8
 * instructions), as the package's single-precision kernels (escape,
 * driven, kuramoto) use the hardware sine; otherwise, and always on the
 * CPU, a reduction by multiples of pi and one odd polynomial of degree 9
 * (within 2.1 units absolute and relative, 13 and 15 instructions on the
 * GPU); the library's beyond 8192 */
#  if SP_CUDA && defined(SP_SDE_FAST_MATH)
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

/* sin and cos out of line, for large models (their generated header maps
 * SP_SIN and SP_COS to these): inlined, the reduction and polynomial of
 * every call of a drift with a thousand sines make the compile take 10 times
 * as long (bench/sde-compile.R). */
SP_FN_OUTLINE SP_REAL SP_PREC(sp_sde_sin_out)(SP_REAL x) { return SP_SIN(x); }
SP_FN_OUTLINE SP_REAL SP_PREC(sp_sde_cos_out)(SP_REAL x) { return SP_COS(x); }

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
#endif
