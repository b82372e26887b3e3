/* sp_common.h: the common subset of C99 and CUDA C used by every model header.
 *
 * Headers under inst/cuda/ are compiled twice: by the C compiler for the CPU
 * engines in src/core/, and by NVRTC for the GPU kernels.  SP_FN marks a
 * function that both compile: `static inline` for C, `__device__
 * __forceinline__` under CUDA.  Nothing here may use the R API or libc
 * functions that CUDA lacks. */
#ifndef SP_COMMON_H
#define SP_COMMON_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#  define SP_CUDA 1
#  define SP_FN static __device__ __forceinline__
#  define SP_RESTRICT __restrict__
#  define SP_UNROLL _Pragma("unroll")
#else
#  define SP_CUDA 0
/* Always inlined, so that a loop over SIMD lanes that calls the model
 * functions vectorises; inner loops are fully unrolled for the same reason. */
#  if defined(__GNUC__)
#    define SP_FN static inline __attribute__((always_inline))
#  else
#    define SP_FN static inline
#  endif
#  define SP_RESTRICT restrict
#  if defined(__clang__)
#    define SP_UNROLL _Pragma("clang loop unroll(full)")
#  elif defined(__GNUC__)
#    define SP_UNROLL _Pragma("GCC unroll 16")
#  else
#    define SP_UNROLL
#  endif
#endif

#if defined(__CUDACC_RTC__)
/* NVRTC has no libc headers; C++ allows a typedef to be repeated with the
 * same type, so this cannot clash with a definition NVRTC brings itself. */
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
typedef long long int64_t;
#else
#  include <stdint.h>
#endif

/* Fields of the argument structs that host code and kernels share
 * (*_args.h): a device pointer is a typed pointer in the kernel and the
 * driver's 64-bit CUdeviceptr on the host, so both sides see one layout. */
#if SP_CUDA
#  define SP_DPTR(T) T *
#else
#  define SP_DPTR(T) uint64_t
#endif

/* Layout checks that both compilers evaluate (C11 and C++). */
#if defined(__cplusplus)
#  define SP_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#  define SP_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif /* SP_COMMON_H */
