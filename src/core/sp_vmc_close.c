/* sp_vmc_close.c: the checks of a walkers' state handed back by the user
 * (he4_vmc(start = )): coordinates finite and in the box, and the first
 * walker with two atoms closer than d, minimum image in a cubic box, in time
 * linear in the atoms. */
#include "sp_vmc.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

/* A coordinate difference, minimum image (coordinates in [0, L] up to
 * rounding: one shift at most), without branches. */
static double wrap_diff(double u, double L) {
  return u - L * (double)((u > 0.5 * L) - (u < -0.5 * L));
}

/* Are two atoms closer than d (minimum image)?  x first: it rules out
 * nearly every pair (a branch the processor predicts). */
static int pair_close(const double *a, const double *b, double L, double d) {
  double ux = wrap_diff(a[0] - b[0], L), uy, uz;
  if (ux >= d || ux <= -d) return 0;
  uy = wrap_diff(a[1] - b[1], L);
  uz = wrap_diff(a[2] - b[2], L);
  return ux * ux + uy * uy + uz * uz < d * d;
}

/* The atoms of one walker bucketed into M x M columns of (x, y), each at
 * least d wide (coordinates wrapped into [0, L)): two atoms within d lie in
 * the same or neighbouring columns (across the walls too), so each atom is
 * compared with the later atoms of its column and with those of the four
 * forward neighbours ((+1, 0), (-1, +1), (0, +1), (+1, +1)); with M^2 about
 * twice the atom count a column holds about one atom of a liquid (a few of a
 * lattice, whose atoms share x planes): linear time.  M >= 3, so that the
 * neighbours are distinct. */
static int walker_close(const double *c, int n, double L, double d, int M, int *head,
                        int *next, int *cell) {
  static const int fwd[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
  const double inv_w = M / L;
  int i, b;
  for (b = 0; b < M * M; b++) head[b] = -1;
  for (i = n - 1; i >= 0; i--) {
    int k[2], a;
    for (a = 0; a < 2; a++) {
      double x = c[3 * i + a] >= L ? c[3 * i + a] - L : c[3 * i + a];
      k[a] = (int)(x * inv_w);
      if (k[a] >= M) k[a] = M - 1;
      if (k[a] < 0) k[a] = 0;
    }
    cell[2 * i] = k[0];
    cell[2 * i + 1] = k[1];
    next[i] = head[k[0] + M * k[1]];
    head[k[0] + M * k[1]] = i;
  }
  for (i = 0; i < n; i++) {
    const int cx = cell[2 * i], cy = cell[2 * i + 1];
    int t, j;
    for (j = next[i]; j >= 0; j = next[j])
      if (pair_close(c + 3 * i, c + 3 * j, L, d)) return 1;
    for (t = 0; t < 4; t++) {
      int nx = cx + fwd[t][0], ny = cy + fwd[t][1];
      if (nx < 0) nx += M;
      else if (nx >= M) nx -= M;
      if (ny >= M) ny -= M;
      for (j = head[nx + M * ny]; j >= 0; j = next[j])
        if (pair_close(c + 3 * i, c + 3 * j, L, d)) return 1;
    }
  }
  return 0;
}

/* All pairs, for fewer than three columns an axis (neighbours would repeat). */
static int walker_close_all(const double *c, int n, double L, double d) {
  int i, j;
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++) {
      if (pair_close(c + 3 * i, c + 3 * j, L, d)) return 1;
    }
  return 0;
}

int sp_vmc_close_pair(const double *coords, int n, int nwalkers, double L, double d, int nth,
                      int *walker) {
  /* columns per axis: at most L / d (at least d wide), about sqrt(2 n) */
  double most = d > 0 ? floor(L / d) : 0, want = ceil(sqrt(2.0 * n));
  int M = (int)(most < want ? most : want), first = nwalkers, nomem = 0;
  *walker = 0;
  if (n < 2 || nwalkers < 1) return SP_OK;
  if (nth < 1) nth = 1;
  if (nth > nwalkers) nth = nwalkers;
  /* walkers in parallel, each thread with its own buckets; the answer is
   * the first walker with a close pair whatever the threads (a minimum) */
#ifdef _OPENMP
#  pragma omp parallel num_threads(nth) reduction(min : first) reduction(| : nomem)
#endif
  {
    int *head = NULL, *next = NULL, *cell = NULL, w;
    if (M >= 3) {
      head = (int *)malloc((size_t)M * (size_t)M * sizeof *head);
      next = (int *)malloc((size_t)n * sizeof *next);
      cell = (int *)malloc(2 * (size_t)n * sizeof *cell);
      nomem = head == NULL || next == NULL || cell == NULL;
    }
#ifdef _OPENMP
#  pragma omp for schedule(static)
#endif
    for (w = 0; w < nwalkers; w++) {
      const double *c = coords + (size_t)w * 3 * (size_t)n;
      if (nomem || w > first) continue;
      if (M >= 3 ? walker_close(c, n, L, d, M, head, next, cell) : walker_close_all(c, n, L, d))
        first = w;
    }
    free(head);
    free(next);
    free(cell);
  }
  if (nomem) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  *walker = first < nwalkers ? first + 1 : 0;
  return SP_OK;
}

size_t sp_vmc_coords_outside(const double *coords, size_t len, double hi) {
  size_t i;
  for (i = 0; i < len; i++)
    if (!(coords[i] >= 0 && coords[i] <= hi)) return i + 1; /* NaN fails both */
  return 0;
}

/* The splitmix64 finaliser: every input bit reaches every output bit. */
static uint64_t fp_mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

/* One part's 64 bits: four interleaved multiply-xorshift chains over its
 * 8-byte words (bit patterns, so -0 and 0 differ, as any NaN payload),
 * mixed. */
static uint64_t fp_part(const double *x, size_t len) {
  uint64_t h[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                   0x082efa98ec4e6c89ull};
  size_t i;
  for (i = 0; i < len; i++) {
    uint64_t b;
    memcpy(&b, x + i, sizeof b);
    b = (h[i & 3] ^ b) * 0x9e3779b97f4a7c15ull;
    h[i & 3] = b ^ (b >> 32); /* the high bits back down (a product alone
                               * leaves its top bit a parity of the inputs') */
  }
  return fp_mix(h[0] ^ fp_mix(h[1] ^ fp_mix(h[2] ^ fp_mix(h[3] ^ (uint64_t)len))));
}

uint64_t sp_vmc_fingerprint(const double *coords, size_t per, size_t nparts, const double *extra,
                            size_t nextra, int nth) {
  uint64_t h, *parts;
  size_t w;
  if (nth < 1) nth = 1;
  parts = (uint64_t *)malloc((nparts > 0 ? nparts : 1) * sizeof *parts);
  if (parts == NULL) return 0; /* no fingerprint: the caller checks in full */
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static)
#endif
  for (w = 0; w < nparts; w++) parts[w] = fp_part(coords + w * per, per);
  h = fp_part(extra, nextra);
  for (w = 0; w < nparts; w++) h = fp_mix(h ^ parts[w]) + (uint64_t)w;
  free(parts);
  return h == 0 ? 1 : h;
}
