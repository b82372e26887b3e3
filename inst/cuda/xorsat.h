/* xorsat.h: the quasi-greedy (QG) solver of 3-regular 3-XORSAT (paper 003)
 * with multi-spin coding, one source for the CPU engine (src/core/
 * sp_xorsat.c) and a GPU kernel.
 *
 * H = -sum_c J_c s_i s_j s_k over N equations, each spin in three.  Bit b
 * of a 32-bit word is clone b; a set bit is a spin down (s = -1).  The
 * unsatisfied mask of equation c is s_i ^ s_j ^ s_k ^ j_c, with j_c all
 * ones for J_c = -1.  A QG update of spin i flips it in the clones where 2
 * or 3 of its equations are unsatisfied, and where exactly one is, with
 * probability p1 -- decided by one random number for all 32 clones of the
 * word, as in paper 003 -- never where none is (the ground state, E = -N,
 * is absorbing).
 *
 * A sweep updates the spins in `order`, a sequence of independent sets
 * (no two spins of one set share an equation), so a parallel update of a
 * set gives the sequential result.
 *
 * Random numbers (sp_streams.h): run r (0-based, global) of condition c
 * (0-based; a sweep over p1), word w: stream R 2^16 + w with R =
 * sp_stream_replica(c, r) (sp_xorsat_run_stream; condition 0: R = r, the
 * streams of calls before sweeps; conditions c >= 1 need r < 2^40 and
 * c < 2^8).  The start: purpose SP_PURPOSE_XORSAT_START, spin i takes
 * element i mod 4 of block i / 4 as its 32 clones' bits.  Sweep t
 * (0-based), k-th update of the sweep: purpose SP_PURPOSE_XORSAT_QG,
 * element k mod 4 of block t ceil(N/4) + k / 4; the p1 moves are made when
 * that 32-bit number is below p1 2^32.  With independent_clones, every
 * clone decides alone (sp_xorsat_indep_mask). */
#ifndef SP_XORSAT_H
#define SP_XORSAT_H

#include "sp_streams.h"

#define SP_XORSAT_WORD_BITS 16 /* words per run: at most 2^16 (2^21 clones) */
/* Conditions (values of p1) of a call, at most: the bits of a stream left
 * beside the run's (SP_REPLICA_BITS) and the word's: 2^8. */
#define SP_XORSAT_MAX_CONDITIONS (1u << (64 - SP_REPLICA_BITS - SP_XORSAT_WORD_BITS))

SP_FN uint64_t sp_xorsat_stream(uint64_t run, uint32_t word) {
  return (run << SP_XORSAT_WORD_BITS) | (uint64_t)word;
}

/* The run number R of the streams of run r (0-based) of a call of
 * `per_cond` runs in each condition, condition-major, whose runs of every
 * condition start at run0 (0-based, in the condition): run run0 + r %
 * per_cond of condition r / per_cond. */
SP_FN uint64_t sp_xorsat_run_stream(uint64_t run0, uint64_t per_cond, uint64_t r) {
  return sp_stream_replica(r / per_cond, run0 + r % per_cond);
}

/* The start bits of spin i in word `word` of run `run`. */
SP_FN uint32_t sp_xorsat_start(uint64_t seed, uint64_t run, uint32_t word, uint32_t i) {
  sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_XORSAT_START,
                                       sp_xorsat_stream(run, word), (uint64_t)(i >> 2));
  return sp_u32x4_get(r, i & 3u);
}

/* The four random numbers of updates 4q .. 4q + 3 of sweep t. */
SP_FN sp_u32x4 sp_xorsat_draws(uint64_t seed, uint64_t run, uint32_t word, uint64_t t,
                               uint32_t n, uint32_t q) {
  const uint64_t per_sweep = ((uint64_t)n + 3u) >> 2;
  return sp_philox_purpose_block(seed, SP_PURPOSE_XORSAT_QG, sp_xorsat_stream(run, word),
                                 t * per_sweep + (uint64_t)q);
}

/* The flip mask of a spin whose three equations have unsatisfied masks
 * u0, u1, u2; `p1_all` is all ones when this word's p1 moves are made. */
SP_FN uint32_t sp_xorsat_flip(uint32_t u0, uint32_t u1, uint32_t u2, uint32_t p1_all) {
  const uint32_t maj = (u0 & u1) | (u0 & u2) | (u1 & u2);
  const uint32_t one = (u0 ^ u1 ^ u2) & ~maj;
  return maj | (one & p1_all);
}

/* Is the word's p1 decision "make the moves"?  thr = p1 2^32 as a 64-bit
 * number (2^32: always). */
SP_FN uint32_t sp_xorsat_p1_mask(uint32_t r, uint64_t thr) {
  return (uint64_t)r < thr ? 0xffffffffu : 0u;
}

/* p1 in units of 2^-16 (SP_XORSAT_P16_ONE: always), from thr = p1 2^32
 * (rounded the same way on the host, the device and in R). */
#define SP_XORSAT_P16_ONE 65536u
SP_FN uint32_t sp_xorsat_p16(uint64_t thr) {
  return (uint32_t)((thr + 32768u) >> 16);
}

/* Per-clone p1 decisions (independent_clones = TRUE): the mask of update k
 * of sweep t of a word, each of its 32 bits set with probability p16 2^-16,
 * independently.  Binary digit d (weight 2^-d, d = 1..16) of p16 2^-16
 * takes a random word, element (d - 1) mod 4 of block 4 (t n + k) +
 * (d - 1) / 4 of purpose SP_PURPOSE_XORSAT_QG_CLONES in the word's stream;
 * from the last set digit up, m = digit ? (m | word) : (m & word), which
 * gives each bit the probability 0.d1 d2 ... d16 in binary. */
SP_FN uint32_t sp_xorsat_indep_mask(uint64_t seed, uint64_t run, uint32_t word, uint64_t t,
                                    uint32_t n, uint32_t k, uint32_t p16) {
  const uint64_t stream = sp_xorsat_stream(run, word), base = ((uint64_t)t * n + k) * 4u;
  uint32_t m = 0;
  int d, last = 16;
  sp_u32x4 r = {0, 0, 0, 0};
  if (p16 >= SP_XORSAT_P16_ONE) return 0xffffffffu;
  if (p16 == 0) return 0;
  while (!((p16 >> (16 - last)) & 1u)) last--; /* the last set digit */
  for (d = last; d >= 1; d--) {
    if (d == last || (d & 3) == 0)
      r = sp_philox_purpose_block(seed, SP_PURPOSE_XORSAT_QG_CLONES, stream,
                                  base + (uint64_t)((d - 1) >> 2));
    {
      const uint32_t w = sp_u32x4_get(r, (uint32_t)(d - 1) & 3u);
      m = ((p16 >> (16 - d)) & 1u) ? (m | w) : (m & w);
    }
  }
  return m;
}

#endif /* SP_XORSAT_H */
