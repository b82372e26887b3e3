/* sp_digest.c: see sp_digest.h. */
#include "sp_digest.h"

#include <stdlib.h>
#include <string.h>

#define SP_DIGEST_P 2147483647ull
#define SP_DIGEST_PIECE ((size_t)1 << 20) /* the definition's pieces */
#define SP_DIGEST_PART ((size_t)1 << 16)  /* the threads' share: 16 to a piece */

/* The words of one double, lowest first. */
#define SP_WORDS(bits, w0, w1, w2, w3) \
  do { \
    (w0) = (bits) & 0xffffu; \
    (w1) = ((bits) >> 16) & 0xffffu; \
    (w2) = ((bits) >> 32) & 0xffffu; \
    (w3) = (bits) >> 48; \
  } while (0)

/* The two sums (not reduced) of the words of x[0 .. len-1], whose first word
 * is word j0 (1-based) of its piece: word j weighs (j mod 4093) + 1.  Runs
 * of doubles whose four words all lie before the residue wraps (at most
 * 1023 of them) are summed without the residue: the k-th double of a run
 * that starts at residue m, with words w0..w3, adds (m + 1 + 4k) s + t to
 * the weighted sum, s = w0 + w1 + w2 + w3 and t = w1 + 2 w2 + 3 w3; the
 * double that straddles the wrap goes word by word.  Below 2^63 for a
 * piece. */
static void part_sums(const double *x, size_t len, uint64_t j0, uint64_t *sa, uint64_t *sb) {
  uint64_t a = 0, b = 0;
  uint32_t m = (uint32_t)(j0 % 4093); /* the residue of the next word */
  size_t i = 0;
  while (i < len) {
    size_t c = (4093 - m) / 4, k;
    if (c > len - i) c = len - i;
    if (c > 0) {
      uint64_t S = 0, IS = 0, T = 0;
      for (k = 0; k < c; k++) {
        uint64_t bits, w0, w1, w2, w3, sw;
        memcpy(&bits, x + i + k, sizeof bits);
        SP_WORDS(bits, w0, w1, w2, w3);
        sw = w0 + w1 + w2 + w3;
        S += sw;
        IS += (uint64_t)k * sw;
        T += w1 + 2 * w2 + 3 * w3;
      }
      a += S;
      b += (uint64_t)(m + 1) * S + 4 * IS + T;
      m += (uint32_t)(4 * c);
      if (m >= 4093) m -= 4093;
      i += c;
    }
    if (i < len && m + 4 > 4093) { /* this double's words wrap */
      uint64_t bits, w[4];
      int q;
      memcpy(&bits, x + i, sizeof bits);
      SP_WORDS(bits, w[0], w[1], w[2], w[3]);
      for (q = 0; q < 4; q++) {
        a += w[q];
        b += w[q] * (uint64_t)(m + 1);
        if (++m == 4093) m = 0;
      }
      i++;
    }
  }
  *sa = a;
  *sb = b;
}

/* Part p of x (parts of SP_DIGEST_PART doubles): its sums. */
static void part_of(const double *x, size_t n, size_t p, uint64_t *sa, uint64_t *sb) {
  const size_t from = p * SP_DIGEST_PART;
  const size_t len = n - from < SP_DIGEST_PART ? n - from : SP_DIGEST_PART;
  part_sums(x + from, len, 4 * (uint64_t)(from % SP_DIGEST_PIECE) + 1, sa, sb);
}

void sp_words_digest(const double *x, size_t n, int nth, uint64_t out[2]) {
  const size_t nparts = (n + SP_DIGEST_PART - 1) / SP_DIGEST_PART;
  const size_t per = SP_DIGEST_PIECE / SP_DIGEST_PART; /* parts a piece */
  uint64_t *sums = nparts > 1 ? (uint64_t *)malloc(2 * nparts * sizeof *sums) : NULL;
  uint64_t f1 = 0, f2 = 0, a = 0, b = 0;
  size_t p;
  if (nth < 1) nth = 1;
  if (sums != NULL) {
    long long pp;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static)
#endif
    for (pp = 0; pp < (long long)nparts; pp++) {
      part_of(x, n, (size_t)pp, sums + 2 * (size_t)pp, sums + 2 * (size_t)pp + 1);
    }
  }
  /* the pieces' sums from their parts', folded in order */
  for (p = 0; p < nparts; p++) {
    uint64_t sa, sb;
    if (sums != NULL) {
      sa = sums[2 * p];
      sb = sums[2 * p + 1];
    } else { /* one part, or no memory for the table: in order, here */
      part_of(x, n, p, &sa, &sb);
    }
    a += sa;
    b += sb;
    if ((p + 1) % per == 0 || p + 1 == nparts) {
      f1 = (f1 * 65599 + a % SP_DIGEST_P) % SP_DIGEST_P;
      f2 = (f2 * 65599 + b % SP_DIGEST_P) % SP_DIGEST_P;
      a = b = 0;
    }
  }
  free(sums);
  out[0] = f1;
  out[1] = f2;
}
