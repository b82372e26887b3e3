/* philox.h: Philox4x32-10 counter-based random numbers, one source for the
 * CPU engines (C99) and the GPU kernels (CUDA C through NVRTC).
 *
 * Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3"
 * (SC'11); the same generator as cuRAND's curandStatePhilox4_32_10_t.
 *
 * Layout (identical to curand_init(seed, subsequence = stream, offset)):
 *   key     = (seed low 32 bits, seed high 32 bits)
 *   counter = (block low 32, block high 32, stream low 32, stream high 32)
 * Each counter value gives four 32-bit outputs.  Draw d (a 64-bit index of
 * 32-bit outputs within a stream) is output (d mod 4) of block floor(d / 4),
 * which is what cuRAND's curand() returns as its (d+1)-th value after
 * curand_init(seed, stream, 0), and its first after curand_init(seed, stream, d).
 *
 * Transforms (the package's own, documented in ?philox_uniform):
 *   uniform, double: (x + 1/2) 2^-32               in [2^-33, 1 - 2^-33]
 *   uniform, single: (floor(x / 2^9) + 1/2) 2^-23  in [2^-24, 1 - 2^-24]
 *   normal: Box-Muller on a pair of draws (a, b):  r = sqrt(-2 log u(a)),
 *           z0 = r cos(2 pi u(b)), z1 = r sin(2 pi u(b)), evaluated as
 *           -r cos(t), -r sin(t) with t = pi (2 u(b) - 1) in (-pi, pi).
 * Both uniforms are exact in their precision, so they are bit-identical on
 * CPU and GPU; normals agree to the accuracy of log, sin and cos (sp_math.h:
 * the GPU's own functions, the CPU's branch-free polynomials; in single
 * precision the GPU uses the hardware sine and cosine, 2^-21.4 absolute). */
#ifndef SP_PHILOX_H
#define SP_PHILOX_H

#include "sp_common.h"
#include "sp_math.h"

typedef struct {
  uint32_t x, y, z, w;
} sp_u32x4;

#define SP_PHILOX_M0 0xD2511F53u
#define SP_PHILOX_M1 0xCD9E8D57u
#define SP_PHILOX_W0 0x9E3779B9u
#define SP_PHILOX_W1 0xBB67AE85u

/* Ten rounds of Philox4x32 on counter c under key (k0, k1).  Each product
 * is one 32 x 32 -> 64-bit multiply (IMAD.WIDE on the GPU, pmuludq in the
 * CPU's vector loops). */
SP_FN sp_u32x4 sp_philox4x32_10(sp_u32x4 c, uint32_t k0, uint32_t k1) {
  int r;
  SP_UNROLL
  for (r = 0; r < 10; r++) {
    uint64_t p0, p1;
#if SP_CUDA
    /* one IMAD.WIDE.U32 each, its halves read straight from the register pair */
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p0) : "r"(c.x), "r"(SP_PHILOX_M0));
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p1) : "r"(c.z), "r"(SP_PHILOX_M1));
#else
    p0 = (uint64_t)SP_PHILOX_M0 * c.x;
    p1 = (uint64_t)SP_PHILOX_M1 * c.z;
#endif
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    sp_u32x4 n;
    n.x = hi1 ^ c.y ^ k0;
    n.y = lo1;
    n.z = hi0 ^ c.w ^ k1;
    n.w = lo0;
    c = n;
    k0 += SP_PHILOX_W0;
    k1 += SP_PHILOX_W1;
  }
  return c;
}

/* The ten round keys of a seed (k0 + r W0 in keys[r], k1 + r W1 in
 * keys[10 + r], r = 0 .. 9): a kernel that takes them from its argument
 * (the constant bank) runs the rounds without forming them. */
SP_FN void sp_philox_keys(uint64_t seed, uint32_t *keys) {
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  int r;
  for (r = 0; r < 10; r++) {
    keys[r] = k0;
    keys[10 + r] = k1;
    k0 += SP_PHILOX_W0;
    k1 += SP_PHILOX_W1;
  }
}

/* sp_philox4x32_10 from the round keys of sp_philox_keys: the same words. */
SP_FN sp_u32x4 sp_philox4x32_10_keyed(sp_u32x4 c, const uint32_t *keys) {
  int r;
  SP_UNROLL
  for (r = 0; r < 10; r++) {
    uint64_t p0, p1;
#if SP_CUDA
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p0) : "r"(c.x), "r"(SP_PHILOX_M0));
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p1) : "r"(c.z), "r"(SP_PHILOX_M1));
#else
    p0 = (uint64_t)SP_PHILOX_M0 * c.x;
    p1 = (uint64_t)SP_PHILOX_M1 * c.z;
#endif
    {
      sp_u32x4 n;
      n.x = (uint32_t)(p1 >> 32) ^ c.y ^ keys[r];
      n.y = (uint32_t)p1;
      n.z = (uint32_t)(p0 >> 32) ^ c.w ^ keys[10 + r];
      n.w = (uint32_t)p0;
      c = n;
    }
  }
  return c;
}

/* Block `block` (draws 4 block .. 4 block + 3) of stream `stream`. */
SP_FN sp_u32x4 sp_philox_block(uint64_t seed, uint64_t stream, uint64_t block) {
  sp_u32x4 c;
  c.x = (uint32_t)block;
  c.y = (uint32_t)(block >> 32);
  c.z = (uint32_t)stream;
  c.w = (uint32_t)(stream >> 32);
  return sp_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Component i (0..3) of v, written with selects so that a run-time i does
 * not push v into local memory on the GPU. */
SP_FN uint32_t sp_u32x4_get(sp_u32x4 v, uint32_t i) {
  return i == 0 ? v.x : (i == 1 ? v.y : (i == 2 ? v.z : v.w));
}

/* Draws d0 .. d0 + 3 of a stream, for any alignment of d0. */
SP_FN sp_u32x4 sp_philox_draws4(uint64_t seed, uint64_t stream, uint64_t d0) {
  uint32_t s = (uint32_t)(d0 & 3u);
  sp_u32x4 a = sp_philox_block(seed, stream, d0 >> 2), b, r;
  if (s == 0) return a;
  b = sp_philox_block(seed, stream, (d0 >> 2) + 1);
  r.x = sp_u32x4_get(a, s);
  r.y = s + 1 < 4 ? sp_u32x4_get(a, s + 1) : sp_u32x4_get(b, s - 3);
  r.z = s + 2 < 4 ? sp_u32x4_get(a, s + 2) : sp_u32x4_get(b, s - 2);
  r.w = sp_u32x4_get(b, s - 1);
  return r;
}

/* ---- transforms ------------------------------------------------------- */

/* Bit patterns to floating point (no conversion instruction on the GPU). */
SP_FN float sp_bits_float(uint32_t b) {
#if SP_CUDA
  return __uint_as_float(b);
#else
  union { uint32_t u; float f; } c;
  c.u = b;
  return c.f;
#endif
}

SP_FN double sp_bits_double(uint64_t b) {
#if SP_CUDA
  return __longlong_as_double((long long)b);
#else
  union { uint64_t u; double f; } c;
  c.u = b;
  return c.f;
#endif
}

/* (x + 1/2) 2^-32: 1 + x 2^-32 is built from bits, the subtraction of 1 is
 * exact (Sterbenz) and so is the addition of 2^-33, so the result is the
 * exact value in [2^-33, 1 - 2^-33] on every compiler and device. */
SP_FN double sp_u01_double(uint32_t x) {
  return (sp_bits_double(0x3FF0000000000000ull | ((uint64_t)x << 20)) - 1.0) +
         1.16415321826934814453125e-10; /* 2^-33 */
}

/* (floor(x / 2^9) + 1/2) 2^-23, exact, in [2^-24, 1 - 2^-24]: 23 bits so
 * that the largest value is a float below 1. */
SP_FN float sp_u01_float(uint32_t x) {
  return (sp_bits_float(0x3F800000u | (x >> 9)) - 1.0f) +
         5.9604644775390625e-08f; /* 2^-24 */
}

/* Box-Muller.  The angle 2 pi u is written as pi (2u - 1) + pi, so that the
 * sine and cosine are evaluated on (-pi, pi) (where the GPU's fast
 * intrinsics are accurate): cos(2 pi u) = -cos(t), sin(2 pi u) = -sin(t). */
SP_FN void sp_box_muller_double(uint32_t a, uint32_t b, double *z0, double *z1) {
  double r = sp_sqrt_d(-2.0 * sp_log_d(sp_u01_double(a)));
  double t = 3.141592653589793238463 * (2.0 * sp_u01_double(b) - 1.0);
  double s, c;
  sp_sincos_d(t, &s, &c);
  *z0 = -r * c;
  *z1 = -r * s;
}

SP_FN void sp_box_muller_float(uint32_t a, uint32_t b, float *z0, float *z1) {
  /* -2 log u > 0: u < 1 always */
  float r = sp_sqrt_pos_f(-2.0f * sp_log_f(sp_u01_float(a)));
  float t = 3.14159265358979323846f * (2.0f * sp_u01_float(b) - 1.0f);
  float s, c;
  sp_sincos_f(t, &s, &c);
  *z0 = -r * c;
  *z1 = -r * s;
}

/* ---- values j = 4g .. 4g+3 of a stream started at `offset` -------------
 * What philox_uint32(), philox_uniform() and philox_normal() return, one
 * group of four at a time; the CPU fill and the GPU kernel both call this.
 * Normal j uses draws offset + 2 floor(j/2) and offset + 2 floor(j/2) + 1. */
enum { SP_DRAW_UINT32 = 0, SP_DRAW_UNIFORM = 1, SP_DRAW_NORMAL = 2 };

SP_FN void sp_philox_group(int kind, int single, uint64_t seed, uint64_t stream,
                           uint64_t offset, uint64_t g, double v[4]) {
  sp_u32x4 r = sp_philox_draws4(seed, stream, offset + 4 * g);
  if (kind == SP_DRAW_UINT32) {
    v[0] = (double)r.x; v[1] = (double)r.y; v[2] = (double)r.z; v[3] = (double)r.w;
  } else if (kind == SP_DRAW_UNIFORM) {
    if (single) {
      v[0] = sp_u01_float(r.x); v[1] = sp_u01_float(r.y);
      v[2] = sp_u01_float(r.z); v[3] = sp_u01_float(r.w);
    } else {
      v[0] = sp_u01_double(r.x); v[1] = sp_u01_double(r.y);
      v[2] = sp_u01_double(r.z); v[3] = sp_u01_double(r.w);
    }
  } else {
    if (single) {
      float z0, z1, z2, z3;
      sp_box_muller_float(r.x, r.y, &z0, &z1);
      sp_box_muller_float(r.z, r.w, &z2, &z3);
      v[0] = z0; v[1] = z1; v[2] = z2; v[3] = z3;
    } else {
      sp_box_muller_double(r.x, r.y, &v[0], &v[1]);
      sp_box_muller_double(r.z, r.w, &v[2], &v[3]);
    }
  }
}

#endif /* SP_PHILOX_H */
