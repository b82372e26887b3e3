/* mb_engine.h: the element-level pieces of a many-body model's step, one
 * source for the CPU object (mb_cpu.h) and the GPU kernels (mb.cu).
 *
 * Include after the model's generated header (sde_mb_header()) with SP_REAL
 * float (and SP_REAL_SINGLE) or double; names get _f or _d (SP_PREC).  The
 * header defines SP_MB_NX (states of an element), SP_MB_NE (element
 * parameters), SP_MB_NP, SP_MB_NW (noise entries), SP_MB_NT (reductions; the
 * first SP_MB_ND the dynamics need), SP_MB_NQ (pair sums), SP_MB_NO,
 * SP_MB_REACH (the largest neighbour offset), SP_MB_RING and the functions
 * mb_terms, mb_pair_pre, mb_pair, mb_drift_ito, mb_drift_strat, mb_noise, mb_apply_noise,
 * mb_observe, mb_stop, mb_force, mb_kick, mb_move, mb_langevin.
 *
 * Steps, for each element i at step k (t = t0 + k dt), with the reductions R
 * and pair sums Q of the stage's state:
 *   euler: x' = x + a_I dt + b dW
 *   srk2:  y = x + a_S dt + b dW; x' = x + (a_S + a_S(y)) dt / 2 + (b + b(y)) dW / 2
 *   verlet, yoshida4: stages of mb_args.h (kick p += d dt F(q), then drift
 *     q += c dt G(p)), the force of the positions the stage starts from
 *   baoab: p += dt/2 F(q); q += dt/2 G(p); p = c1 p + c2 z (c1 = exp(-g dt),
 *     c2 = s sqrt((1 - c1^2) / (2 g)), s dt^(1/2) when g = 0);
 *     q += dt/2 G(p); p += dt/2 F(q')  (Leimkuhler and Matthews 2013)
 * with dW = sqrt(dt) z, the normals of mb_args.h. */
#include "mb_args.h"
#include "sp_streams.h"

#ifndef SP_MB_ENGINE_CONSTANTS
#define SP_MB_ENGINE_CONSTANTS
#  define SP_MB_WN (SP_MB_NW > 0 ? SP_MB_NW : 1)
#  ifndef SP_MB_NB
#    define SP_MB_NB SP_MB_NW
#  endif
#  define SP_MB_BN (SP_MB_NB > 0 ? SP_MB_NB : 1) /* entries of the noise (a matrix: more) */
#  define SP_MB_TN (SP_MB_NT > 0 ? SP_MB_NT : 1)
#  define SP_MB_QN (SP_MB_NQ > 0 ? SP_MB_NQ : 1)
#  define SP_MB_UN (SP_MB_NU > 0 ? SP_MB_NU : 1)
#  define SP_MB_EN (SP_MB_NE > 0 ? SP_MB_NE : 1)
#  define SP_MB_ON (SP_MB_NO > 0 ? SP_MB_NO : 1)
#  define SP_MB_PN (SP_MB_NP > 0 ? SP_MB_NP : 1)
#  ifndef SP_MB_DIM
#    define SP_MB_DIM 1
#  endif
#  if SP_MB_DIM == 2
#    define SP_MB_NBN ((2 * SP_MB_REACH + 1) * (2 * SP_MB_REACH + 1) * SP_MB_NX)
#  else
#    define SP_MB_NBN ((2 * SP_MB_REACH + 1) * SP_MB_NX)
#  endif
#  define SP_MB_POS (SP_MB_NPOS > 0 ? SP_MB_NX - SP_MB_NPOS : 1) /* momenta */
#endif

/* The normals z[0 .. NW-1] of element i at step k of a system of n
 * elements (stream: the system's). */
SP_FN void SP_PREC(sp_mb_normals)(uint64_t seed, uint64_t stream, uint64_t k, uint64_t i,
                                 uint64_t n, SP_REAL *z) {
#if SP_MB_NW > 0
  const uint64_t B = (n * SP_MB_NW + 3) / 4;
  uint64_t d = i * SP_MB_NW, last = (uint64_t)-1;
  SP_REAL v[4];
  int w;
  for (w = 0; w < SP_MB_NW; w++, d++) {
    const uint64_t b = d / 4;
    if (b != last) {
      sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_MB_STEPS, stream, k * B + b);
#  ifdef SP_REAL_SINGLE
      sp_box_muller_float(r.x, r.y, &v[0], &v[1]);
      sp_box_muller_float(r.z, r.w, &v[2], &v[3]);
#  else
      sp_box_muller_double(r.x, r.y, &v[0], &v[1]);
      sp_box_muller_double(r.z, r.w, &v[2], &v[3]);
#  endif
      last = b;
    }
    z[w] = v[d % 4];
  }
#else
  (void)seed; (void)stream; (void)k; (void)i; (void)n; z[0] = 0;
#endif
}

/* The element at offset d of element i (0-based) of n: ring: periodic;
 * chain: a missing neighbour reads as the element itself. */
#ifndef SP_MB_NEIGHBOUR_DEFINED
#define SP_MB_NEIGHBOUR_DEFINED
SP_FN uint64_t sp_mb_neighbour(uint64_t i, int d, uint64_t n) {
  const int64_t j = (int64_t)i + d;
#if SP_MB_RING
  return (uint64_t)(((j % (int64_t)n) + (int64_t)n) % (int64_t)n);
#else
  return j < 0 || j >= (int64_t)n ? i : (uint64_t)j;
#endif
}
#endif

/* Element i's states x[NX] and its neighbours' nb[(d + REACH) NX + s] from
 * the state-major array src (s n + j). */
SP_FN void SP_PREC(sp_mb_gather)(const SP_REAL *src, uint64_t i, uint64_t n, SP_REAL *x,
                                SP_REAL *nb) {
  int s;
  for (s = 0; s < SP_MB_NX; s++) x[s] = src[(uint64_t)s * n + i];
#if SP_MB_REACH > 0
  {
    int d;
    for (d = -SP_MB_REACH; d <= SP_MB_REACH; d++) {
      const uint64_t j = sp_mb_neighbour(i, d, n);
      for (s = 0; s < SP_MB_NX; s++) nb[(d + SP_MB_REACH) * SP_MB_NX + s] = src[(uint64_t)s * n + j];
    }
  }
#else
  nb[0] = x[0];
#endif
}

/* Element i's states x[NX] and its neighbours' on an L1 x L2 square
 * lattice, periodic (a torus), elements row by row (i = r L2 + c): nb[((a +
 * REACH) (2 REACH + 1) + b + REACH) NX + s] at row offset a, column offset b. */
SP_FN void SP_PREC(sp_mb_gather2)(const SP_REAL *src, uint64_t i, uint64_t n, uint64_t l2,
                                 SP_REAL *x, SP_REAL *nb) {
  const int64_t L2 = (int64_t)l2, L1 = (int64_t)(n / l2), r = (int64_t)(i / l2),
                c = (int64_t)(i % l2);
  int s, a, b;
  for (s = 0; s < SP_MB_NX; s++) x[s] = src[(uint64_t)s * n + i];
  for (a = -SP_MB_REACH; a <= SP_MB_REACH; a++) {
    const int64_t rr = ((r + a) % L1 + L1) % L1;
    for (b = -SP_MB_REACH; b <= SP_MB_REACH; b++) {
      const int64_t cc = ((c + b) % L2 + L2) % L2;
      const uint64_t j = (uint64_t)(rr * L2 + cc);
      const int slot = (a + SP_MB_REACH) * (2 * SP_MB_REACH + 1) + (b + SP_MB_REACH);
      for (s = 0; s < SP_MB_NX; s++) nb[slot * SP_MB_NX + s] = src[(uint64_t)s * n + j];
    }
  }
}

/* Element i's parameters from ep (e n + i) into e[NE]. */
SP_FN void SP_PREC(sp_mb_epar)(const SP_REAL *ep, uint64_t i, uint64_t n, SP_REAL *e) {
  int s;
  for (s = 0; s < SP_MB_NE; s++) e[s] = ep[(uint64_t)s * n + i];
#if SP_MB_NE == 0
  (void)ep; (void)i; (void)n; e[0] = 0;
#endif
}

/* The BAOAB O-step coefficients of each momentum: c1 = exp(-g h), c2 as in
 * the header comment, computed in double. */
SP_FN void SP_PREC(sp_mb_ou_coef)(const SP_REAL *p, double h, double *c1, double *c2,
                                 int *which, int *wz) {
  SP_REAL g[SP_MB_POS], s[SP_MB_POS];
  int j;
  SP_PREC(mb_langevin)(p, g, s, which, wz);
  for (j = 0; j < SP_MB_NX - SP_MB_NPOS; j++) {
    const double gj = (double)g[j], sj = (double)s[j];
    c1[j] = exp(-gj * h);
    c2[j] = gj > 0 ? sj * sqrt((1 - c1[j] * c1[j]) / (2 * gj)) : sj * sqrt(h);
  }
}
