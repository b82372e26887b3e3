/* sp_digest.h: the digest of a long numeric vector that seals a result's
 * fields (R/results-integrity.R, sp_words_digest()): the same two numbers as
 * the R code computes, in one pass over the doubles on several threads. */
#ifndef SP_DIGEST_H
#define SP_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* The doubles x[0 .. n-1] as 16-bit words (each double's 64-bit pattern,
 * lowest word first: the order of its little-endian bytes), in pieces of
 * 2^20 doubles: per piece the plain sum of its words and the sum of word j
 * (1-based within the piece) times (j mod 4093) + 1, each folded as s = (s
 * 65599 + sum mod p) mod p with p = 2^31 - 1, starting from 0.  Every
 * partial sum is an integer below 2^53, so R's doubles compute the same
 * numbers exactly.  out[0], out[1]: the two folds. */
void sp_words_digest(const double *x, size_t n, int nth, uint64_t out[2]);

#endif
