/* mb_cpu.h: a many-body model's systems on the CPU: the entries of the
 * model's shared object (sp_mb_advance_fn, sp_mb_observe_fn of mb_args.h),
 * included once per precision after mb_engine.h by the generated C file.
 * The package's engine (src/core/sp_mb.c) calls them once per system per
 * round; a system's elements are visited in order by one thread, and each
 * reduction is summed in that order in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A system's working arrays in the working precision, carved from `work`. */
typedef struct {
  SP_REAL *xs, *ys, *a0, *b0, *Q, *ep, *F, *U, *O;
  double *Rd;
  SP_REAL R[SP_MB_TN], p[SP_MB_PN];
  double pd[SP_MB_PN];
  uint64_t n, l2; /* elements; a square lattice's columns */
  const sp_mb_ext *ext; /* the graph (edges()), g(r)'s counts */
  /* cell lists (positions): each element's cell, the elements cell by
   * cell, the cells' first slots; the grid and the box */
  uint32_t *cell, *perm, *cstart;
  int64_t nc[3];
  double L[3];
  int cut, cuto; /* the job's: pair sums through cell lists */
  /* the dynamics' Verlet lists (cut-offs, CPU), by the slots of the lists'
   * cell order lperm: each slot's partners within rc + skin at the
   * positions xref, ascending by element, each given by its slot, where cp
   * holds the positions in that order (coordinate d of slot sl at cp[d n +
   * sl], refreshed at every pair sum: the partners' positions near each
   * other in memory, one load or gather a coordinate).  The lists of
   * SP_MB_LIST_W consecutive slots (a block: the vector loop's targets)
   * interleaved: entry m of slot k at nl[nl_off[k] + m SP_MB_LIST_W], its
   * length nl_off[n + 1 + k], nl_off[n] the entries in all; a block's
   * lists padded to its longest (with a partner of the block: read, never
   * summed), so that the vector loop reads its targets' m-th partners in
   * one load and the lists stream from memory (one list a lane, 32 lanes
   * apart, was a gather from 32 places of 9 MB at n = 32,000); nl_ok: built;
   * nl_tmp: the build's entries and the merge's buffer.  Kept from one
   * advance to the system's next where the engine gives a slot
   * (sp_mb_list_take, sp_mb_list_put) */
  uint32_t *nl_off, *nl, *lperm;
  uint64_t *nl_tmp, nl_cap, tmp_cap;
  SP_REAL *xref, *cp;
  int nl_ok;
  /* the reductions' terms of the elements of threads other than the first
   * (nt x n, mb_lanes.h's sp_mb_lane_sums: made at the first pass that
   * splits a reduction among threads, freed at the end of the call) */
  SP_REAL *tb;
} SP_PREC(sp_mb_sys);

#if SP_MB_POSD > 0
static const int SP_PREC(sp_mb_px)[3] = {SP_MB_PX0, SP_MB_PX1, SP_MB_PX2};
#endif

/* Element i's states and neighbours (mb_engine.h) on the model's lattice. */
#undef SP_MB_GATHER
#if SP_MB_DIM == 2
#  define SP_MB_GATHER(s, src, i, x, nb) SP_PREC(sp_mb_gather2)(src, i, (s)->n, (s)->l2, x, nb)
#else
#  define SP_MB_GATHER(s, src, i, x, nb) SP_PREC(sp_mb_gather)(src, i, (s)->n, x, nb)
#endif

static void SP_PREC(sp_mb_setup)(const sp_mb_job *job, const sp_mb_ext *ext, const double *par,
                                const double *ep, double *work, SP_PREC(sp_mb_sys) *s) {
  const uint64_t n = job->n, nx = SP_MB_NX;
  SP_REAL *w = (SP_REAL *)work;
  uint64_t i;
  s->n = n;
  s->ext = ext;
  s->cut = (int)job->cut;
  s->cuto = (int)job->cuto;
  s->nl_off = s->nl = s->lperm = NULL;
  s->nl_tmp = NULL;
  s->xref = s->cp = NULL;
  s->nl_cap = s->tmp_cap = 0;
  s->nl_ok = 0;
  s->tb = NULL;
  s->xs = w; w += nx * n;
  s->ys = w; w += nx * n;
  s->a0 = w; w += nx * n;
  s->F = w; w += nx * n;
  s->b0 = w; w += (uint64_t)SP_MB_BN * n;
  s->Q = w; w += (uint64_t)SP_MB_QN * n;
  s->ep = w; w += (uint64_t)SP_MB_EN * n;
  s->U = w; w += (uint64_t)SP_MB_UN * n;
  s->O = w; w += (uint64_t)(SP_MB_NQO > 0 ? SP_MB_NQO : 1) * n;
  s->cell = (uint32_t *)(void *)w;
  s->perm = s->cell + n;
  s->cstart = s->perm + n; /* at most 2 n + 9 (sp_mb_cell_grid) */
#if SP_MB_POSD > 0
  w = (SP_REAL *)(void *)(s->cstart + 2 * n + 9);
  for (i = 0; i < 3; i++) s->L[i] = (int)i < SP_MB_POSD ? par[SP_MB_BOX + i] : 1;
#endif
  s->nc[0] = s->nc[1] = s->nc[2] = 1;
  s->Rd = (double *)(void *)(((uintptr_t)w + 7) & ~(uintptr_t)7);
  for (i = 0; i < (uint64_t)SP_MB_NP; i++) {
    s->p[i] = (SP_REAL)par[i];
    s->pd[i] = par[i];
  }
  for (i = 0; i < (uint64_t)SP_MB_NE * n; i++) s->ep[i] = (SP_REAL)ep[i];
#if SP_MB_DIM == 2
  s->l2 = (uint64_t)par[SP_MB_L2];
#else
  s->l2 = 0;
#endif
}

#ifdef SP_MB_CPU_LANES
static int SP_PREC(sp_mb_reduce_lanes)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                       int nt); /* (mb_lanes.h) */
#endif

/* The reductions of state src: the first `nt` sums over the elements (the
 * observables' pair sums s->O where with_o, else zeros: the dynamics' terms
 * never read them). */
static void SP_PREC(sp_mb_reduce)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t, int nt,
                                 int with_o) {
#if SP_MB_NT > 0
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], r[SP_MB_TN],
      o[SP_MB_NQO > 0 ? SP_MB_NQO : 1];
  uint64_t i;
  int q;
  if (nt <= 0) return; /* (a step of a model whose dynamics need no sum) */
#ifdef SP_MB_CPU_LANES
  /* (the vector loop's terms: without the observables' pair sums) */
  if ((!with_o || SP_MB_NQO == 0) && SP_PREC(sp_mb_reduce_lanes)(s, src, t, nt)) return;
#endif
  for (q = 0; q < (SP_MB_NQO > 0 ? SP_MB_NQO : 1); q++) o[q] = 0;
  for (q = 0; q < nt; q++) s->Rd[q] = 0;
  for (i = 0; i < s->n; i++) {
    SP_MB_GATHER(s, src, i, x, nb);
    SP_PREC(sp_mb_epar)(s->ep, i, s->n, e);
    if (with_o)
      for (q = 0; q < SP_MB_NQO; q++) o[q] = s->O[(uint64_t)q * s->n + i];
    SP_PREC(mb_terms)(t, x, e, nb, o, s->p, s->pd, (SP_REAL)(i + 1), r);
    for (q = 0; q < nt; q++) s->Rd[q] += (double)r[q];
  }
  for (q = 0; q < nt; q++) s->R[q] = (SP_REAL)s->Rd[q];
#else
  (void)s; (void)src; (void)t; (void)nt; (void)with_o;
#endif
}

/* The elements' values for the pair terms (mb_pair_pre), made once. */
static void SP_PREC(sp_mb_values)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t) {
#if SP_MB_NU > 0
  SP_REAL xi[SP_MB_NX], ei[SP_MB_EN], ui[SP_MB_UN];
  const uint64_t n = s->n;
  uint64_t i;
  int v;
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) xi[v] = src[(uint64_t)v * n + i];
    SP_PREC(sp_mb_epar)(s->ep, i, n, ei);
    SP_PREC(mb_pair_pre)(t, xi, ei, s->p, s->pd, (SP_REAL)(i + 1), ui);
    for (v = 0; v < SP_MB_UN; v++) s->U[(uint64_t)v * n + i] = ui[v];
  }
#else
  (void)s; (void)src; (void)t;
#endif
}

#if SP_MB_POSD > 0
/* The cell list of state src for the cut-off rc (sp_mb_cell_grid of
 * mb_args.h): s->cell[i] the cell of element i, s->perm the elements cell
 * by cell (ascending within a cell: a stable counting sort), s->cstart[c]
 * the first slot of cell c (cstart[ncell] = n).  Cells are numbered (cz
 * nc1 + cy) nc0 + cx. */
static void SP_PREC(sp_mb_cells_build)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double rc) {
  const uint64_t n = s->n;
  const uint64_t ncell = sp_mb_cell_grid(s->L, SP_MB_POSD, rc, n, s->nc);
  uint64_t i, c;
  int d;
  for (c = 0; c <= ncell; c++) s->cstart[c] = 0;
  for (i = 0; i < n; i++) {
    int64_t cc[3] = {0, 0, 0};
    for (d = 0; d < SP_MB_POSD; d++)
      cc[d] = sp_mb_cell_of((double)src[(uint64_t)SP_PREC(sp_mb_px)[d] * n + i], s->L[d],
                            s->nc[d]);
    c = (uint64_t)((cc[2] * s->nc[1] + cc[1]) * s->nc[0] + cc[0]);
    s->cell[i] = (uint32_t)c;
    s->cstart[c + 1]++;
  }
  for (c = 0; c < ncell; c++) s->cstart[c + 1] += s->cstart[c];
  for (i = 0; i < n; i++) s->perm[s->cstart[s->cell[i]]++] = (uint32_t)i;
  for (c = ncell; c > 0; c--) s->cstart[c] = s->cstart[c - 1];
  s->cstart[0] = 0;
}

/* The neighbouring cells of element i's cell, in the order every backend
 * visits them (z, y, x offsets from -1 to 1; an axis of one cell: 0
 * alone): their numbers into nbc, their count returned (at most 27). */
static int SP_PREC(sp_mb_cells_near)(const SP_PREC(sp_mb_sys) *s, uint64_t i, uint64_t *nbc) {
  const uint64_t c = s->cell[i];
  const int64_t cx = (int64_t)(c % (uint64_t)s->nc[0]),
                cy = (int64_t)((c / (uint64_t)s->nc[0]) % (uint64_t)s->nc[1]),
                cz = (int64_t)(c / ((uint64_t)s->nc[0] * (uint64_t)s->nc[1]));
  const int rz = s->nc[2] >= 3, ry = s->nc[1] >= 3, rx = s->nc[0] >= 3;
  int oz, oy, ox, k = 0;
  for (oz = -rz; oz <= rz; oz++)
    for (oy = -ry; oy <= ry; oy++)
      for (ox = -rx; ox <= rx; ox++) {
        const int64_t z = (cz + oz + s->nc[2]) % s->nc[2], y = (cy + oy + s->nc[1]) % s->nc[1],
                      x = (cx + ox + s->nc[0]) % s->nc[0];
        nbc[k++] = (uint64_t)((z * s->nc[1] + y) * s->nc[0] + x);
      }
  return k;
}
#endif

#if SP_MB_POSD > 0
/* The skin of the Verlet lists: a fraction of the cut-off (0.3 of a
 * Lennard-Jones rc = 2.5). */
#  define SP_MB_SKIN(rc) (0.12 * (rc))

/* The lists' blocks (see sp_mb_sys): the vector loop's targets at a time
 * (SP_MB_PAIR_W of mb_lanes.h), one in the object without it. */
#  undef SP_MB_LIST_W
#  if defined(SP_MB_CPU_LANES) && defined(SP_REAL_SINGLE)
#    define SP_MB_LIST_W 32
#  elif defined(SP_MB_CPU_LANES)
#    define SP_MB_LIST_W 16
#  else
#    define SP_MB_LIST_W 1
#  endif

/* The squared minimum-image distance of elements i and j of state src, in
 * the working precision (the pair functions' dx, dy, dz). */
static SP_REAL SP_PREC(sp_mb_r2)(const SP_PREC(sp_mb_sys) *s, const SP_REAL *src, uint64_t i,
                                uint64_t j) {
  SP_REAL r2 = 0;
  int d;
  for (d = 0; d < SP_MB_POSD; d++) {
    const uint64_t k = (uint64_t)SP_PREC(sp_mb_px)[d] * s->n;
    const SP_REAL dd = SP_MI(src[k + j] - src[k + i], s->p[SP_MB_BOX + d],
                             s->p[SP_MB_BOX + 3 + d]);
    r2 += dd * dd;
  }
  return r2;
}

/* The positions of state src in the lists' cell order (cp). */
static void SP_PREC(sp_mb_pack)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src) {
  const uint64_t n = s->n;
  uint64_t k;
  int d;
  for (d = 0; d < SP_MB_POSD; d++) {
    const SP_REAL *x = src + (uint64_t)SP_PREC(sp_mb_px)[d] * n;
    SP_REAL *q = s->cp + (uint64_t)d * n;
    for (k = 0; k < n; k++) q[k] = x[s->lperm[k]];
  }
}

/* Runs a[b[r] .. b[r + 1]) (r < nr), each ascending, merged into one
 * ascending run a[0 .. b[nr]) pairwise (t: a buffer as long); the entries
 * are element << 32 | slot, distinct (no branch on their order). */
static void SP_PREC(sp_mb_merge_runs)(uint64_t *a, uint64_t *t, uint32_t *b, int nr) {
  uint64_t *from = a, *to = t, *sw;
  while (nr > 1) {
    int m, o = 0;
    for (m = 0; m + 1 < nr; m += 2) {
      uint32_t x = b[m], y = b[m + 1], w = b[m];
      const uint32_t xe = b[m + 1], ye = b[m + 2];
      while (x < xe && y < ye) {
        const uint64_t u = from[x], v = from[y];
        const uint32_t c = v < u;
        to[w++] = c ? v : u;
        x += 1 - c;
        y += c;
      }
      while (x < xe) to[w++] = from[x++];
      while (y < ye) to[w++] = from[y++];
      b[o++] = b[m];
    }
    if (m < nr) {
      uint32_t x;
      for (x = b[m]; x < b[m + 1]; x++) to[x] = from[x];
      b[o++] = b[m];
    }
    b[o] = b[nr];
    nr = o;
    sw = from;
    from = to;
    to = sw;
  }
  if (from != a) memcpy(a, from, (size_t)b[nr] * sizeof(uint64_t));
}

/* Candidates of a cell tested at once by the lists' build. */
#define SP_MB_LIST_CH 64
#undef SP_NEXTUP
#ifdef SP_REAL_SINGLE
#  define SP_NEXTUP(v) nextafterf((v), INFINITY)
#else
#  define SP_NEXTUP(v) nextafter((v), INFINITY)
#endif

/* The lists of the block of slots k0 .. k0 + SP_MB_LIST_W - 1 (those below
 * n; its entries from nl[used], mlen deep) padded to mlen: a list with the
 * last of its partners, an empty one (or a slot past n) with the first
 * entry of the block's first list that is not empty. */
static void SP_PREC(sp_mb_list_pad)(SP_PREC(sp_mb_sys) *s, uint64_t used, uint64_t k0,
                                    uint64_t mlen) {
  const uint64_t n = s->n;
  const uint32_t *len = s->nl_off + n + 1;
  uint32_t *q = s->nl + used, safe = 0;
  uint64_t l, c;
  if (mlen == 0) return;
  for (l = SP_MB_LIST_W; l-- > 0;)
    if (k0 + l < n && len[k0 + l] > 0) safe = q[l];
  for (l = 0; l < SP_MB_LIST_W; l++) {
    const uint64_t m = k0 + l < n ? len[k0 + l] : 0;
    const uint32_t pad = m > 0 ? q[l + (m - 1) * SP_MB_LIST_W] : safe;
    for (c = m; c < mlen; c++) q[l + c * SP_MB_LIST_W] = pad;
  }
}

/* The Verlet lists of state src for the cut-off rc: through the cell list
 * of rc + skin (its order the lists' own, lperm), each slot's partners
 * within it, ascending by element (so a force sums its partners within rc
 * in the order of every pair's loop: the same sum whenever the lists were
 * built; each neighbouring cell's partners are ascending already, and the
 * runs are merged), and the positions they were built at.  A cell's
 * candidates are tested SP_MB_LIST_CH at a time by a vector loop, those
 * within kept as element << 32 | slot without a branch.  Returns 0 when
 * the memory is not there (the caller falls back to the cell list). */
static int SP_PREC(sp_mb_list_build)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double rc) {
  const uint64_t n = s->n;
  const double rl = rc + SP_MB_SKIN(rc), rl2 = rl * rl;
  /* used: the entries of the blocks before k's; mlen: the longest list of
   * k's block so far */
  uint64_t k, used = 0, mlen = 0, nbc[27];
  uint32_t *len;
  uint32_t run[28];
  int d;
  /* (double)r2 >= rl2 as r2 >= rlw: the least number of the working
   * precision not below rl2 (no conversion in the vector loop) */
  SP_REAL rlw = (SP_REAL)rl2;
  if ((double)rlw < rl2) rlw = SP_NEXTUP(rlw);
  s->nl_ok = 0; /* (until built whole: a failed build leaves none) */
  if (s->nl_off == NULL) {
    s->nl_off = (uint32_t *)malloc((size_t)(2 * n + 1) * sizeof(uint32_t));
    s->lperm = (uint32_t *)malloc((size_t)n * sizeof(uint32_t));
    s->xref = (SP_REAL *)malloc((size_t)SP_MB_POSD * n * sizeof(SP_REAL));
    s->cp = (SP_REAL *)malloc((size_t)SP_MB_POSD * n * sizeof(SP_REAL));
    if (s->nl_off == NULL || s->xref == NULL || s->lperm == NULL || s->cp == NULL) return 0;
  }
  len = s->nl_off + n + 1;
  SP_PREC(sp_mb_cells_build)(s, src, rl);
  memcpy(s->lperm, s->perm, (size_t)n * sizeof(uint32_t));
  SP_PREC(sp_mb_pack)(s, src);
  for (k = 0; k < n; k++) {
    const uint64_t lk = k % SP_MB_LIST_W;
    const int nn = SP_PREC(sp_mb_cells_near)(s, s->lperm[k], nbc);
    uint64_t cand = 0, m = 0, *ent;
    const SP_REAL *c0 = s->cp, *c1 = s->cp + (SP_MB_POSD > 1 ? n : 0),
                  *c2 = s->cp + (SP_MB_POSD > 2 ? 2 * n : 0);
    const SP_REAL qk0 = c0[k], qk1 = c1[k], qk2 = c2[k];
    const SP_REAL box0 = s->p[SP_MB_BOX], ibox0 = s->p[SP_MB_BOX + 3],
                  box1 = SP_MB_POSD > 1 ? s->p[SP_MB_BOX + 1] : (SP_REAL)1,
                  ibox1 = SP_MB_POSD > 1 ? s->p[SP_MB_BOX + 4] : (SP_REAL)1,
                  box2 = SP_MB_POSD > 2 ? s->p[SP_MB_BOX + 2] : (SP_REAL)1,
                  ibox2 = SP_MB_POSD > 2 ? s->p[SP_MB_BOX + 5] : (SP_REAL)1;
    int c, nr = 0;
    for (c = 0; c < nn; c++) cand += s->cstart[nbc[c] + 1] - s->cstart[nbc[c]];
    /* room: the block with this list (at most every candidate), the
     * entries and the merge's buffer (one past the candidates: the
     * branchless writes) */
    if (used + SP_MB_LIST_W * cand > s->nl_cap) {
      uint64_t cap = s->nl_cap ? 2 * s->nl_cap : 64 * n + 64;
      uint32_t *p;
      while (cap < used + SP_MB_LIST_W * cand) cap *= 2;
      if (cap > 0xffffffffu) return 0;
      p = (uint32_t *)realloc(s->nl, (size_t)cap * sizeof(uint32_t));
      if (p == NULL) return 0;
      s->nl = p;
      s->nl_cap = cap;
    }
    if (2 * (cand + 1) > s->tmp_cap) {
      uint64_t *p = (uint64_t *)realloc(s->nl_tmp, (size_t)(2 * (cand + 1)) * sizeof(uint64_t));
      if (p == NULL) return 0;
      s->nl_tmp = p;
      s->tmp_cap = 2 * (cand + 1);
    }
    ent = s->nl_tmp;
    s->nl_off[k] = (uint32_t)(used + lk);
    for (c = 0; c < nn; c++) {
      const uint32_t a0 = s->cstart[nbc[c]], a1 = s->cstart[nbc[c] + 1];
      const uint64_t r0 = m;
      uint32_t t0;
      for (t0 = a0; t0 < a1; t0 += SP_MB_LIST_CH) {
        const uint32_t t1 = a1 - t0 < SP_MB_LIST_CH ? a1 : t0 + SP_MB_LIST_CH;
        const int cnt = (int)(t1 - t0), self = k >= t0 && k < t1 ? (int)(k - t0) : -1;
        const SP_REAL *x0 = c0 + t0, *x1 = c1 + t0, *x2 = c2 + t0;
        int32_t in[SP_MB_LIST_CH];
        uint32_t sl;
        int t;
        _Pragma("omp simd")
        for (t = 0; t < cnt; t++) {
          /* (sp_mb_r2's sum, written out: a loop here would stop the
           * vector loop) */
          const SP_REAL u0 = x0[t] - qk0, u1 = x1[t] - qk1, u2 = x2[t] - qk2;
          SP_REAL r2 = 0, dd;
          dd = SP_MI(u0, box0, ibox0);
          r2 += dd * dd;
          if (SP_MB_POSD > 1) {
            dd = SP_MI(u1, box1, ibox1);
            r2 += dd * dd;
          }
          if (SP_MB_POSD > 2) {
            dd = SP_MI(u2, box2, ibox2);
            r2 += dd * dd;
          }
          (void)ibox0; (void)ibox1; (void)ibox2;
          in[t] = (t != self) & !(r2 >= rlw);
        }
        for (sl = t0; sl < t1; sl++) {
          ent[m] = (uint64_t)s->lperm[sl] << 32 | sl;
          m += in[sl - t0];
        }
      }
      if (m > r0) run[nr++] = (uint32_t)r0;
    }
    run[nr] = (uint32_t)m;
    if (nr > 1) SP_PREC(sp_mb_merge_runs)(ent, ent + cand + 1, run, nr);
    for (c = 0; c < (int)m; c++)
      s->nl[used + lk + (uint64_t)c * SP_MB_LIST_W] = (uint32_t)ent[c];
    len[k] = (uint32_t)m;
    mlen = m > mlen ? m : mlen;
    if (lk == SP_MB_LIST_W - 1 || k == n - 1) { /* the block's end */
      SP_PREC(sp_mb_list_pad)(s, used, k - lk, mlen);
      used += SP_MB_LIST_W * mlen;
      mlen = 0;
    }
  }
  s->nl_off[n] = (uint32_t)used;
  for (d = 0; d < SP_MB_POSD; d++)
    memcpy(s->xref + (uint64_t)d * n, src + (uint64_t)SP_PREC(sp_mb_px)[d] * n,
           (size_t)n * sizeof(SP_REAL));
  s->nl_ok = 1;
  return 1;
}

/* Are the Verlet lists good for state src: built, and no element moved
 * more than half the skin since? */
static int SP_PREC(sp_mb_list_good)(const SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double rc) {
  const double h = 0.5 * SP_MB_SKIN(rc), h2 = h * h;
  uint64_t i;
  if (!s->nl_ok) return 0;
  for (i = 0; i < s->n; i++) {
    /* xref holds the positions alone: as a state array of POSD rows */
    double d2 = 0;
    int d;
    for (d = 0; d < SP_MB_POSD; d++) {
      double dd = (double)src[(uint64_t)SP_PREC(sp_mb_px)[d] * s->n + i] -
                  (double)s->xref[(uint64_t)d * s->n + i];
      const double L = s->L[d];
      dd = dd > 0.5 * L ? dd - L : dd < -0.5 * L ? dd + L : dd;
      d2 += dd * dd;
    }
    if (d2 > h2) return 0;
  }
  return 1;
}

static void SP_PREC(sp_mb_list_free)(SP_PREC(sp_mb_sys) *s) {
  free(s->nl_off);
  free(s->nl);
  free(s->lperm);
  free(s->nl_tmp);
  free(s->xref);
  free(s->cp);
  s->nl_off = s->nl = s->lperm = NULL;
  s->nl_tmp = NULL;
  s->xref = s->cp = NULL;
  s->nl_cap = s->tmp_cap = 0;
  s->nl_ok = 0;
}

/* The Verlet lists a system keeps from one advance to its next (the
 * engine's slot ext->keep, sp_mb_keep of mb_args.h: a round of the engine
 * is an advance, 0.1 s; lists rebuilt at each would be rebuilt every few
 * steps of a large system).  Kept lists are used only where they are good
 * for the positions (sp_mb_list_good), and the sums do not depend on when
 * the lists were built: the same numbers. */
typedef struct {
  sp_mb_keep base; /* (first: the engine calls base.release) */
  uint32_t *nl_off, *nl, *lperm;
  uint64_t *nl_tmp, nl_cap, tmp_cap, n;
  SP_REAL *xref, *cp;
  int nl_ok, lw; /* lw: the lists' SP_MB_LIST_W */
} SP_PREC(sp_mb_kept);

static void SP_PREC(sp_mb_kept_release)(sp_mb_keep *k) {
  SP_PREC(sp_mb_kept) *p = (SP_PREC(sp_mb_kept) *)(void *)k;
  free(p->nl_off);
  free(p->nl);
  free(p->lperm);
  free(p->nl_tmp);
  free(p->xref);
  free(p->cp);
  free(p);
}

/* The Verlet lists' fields (the same names in a system and in its kept
 * record) moved from src to dst, src left empty. */
#ifndef SP_MB_LISTS_MOVE
#  define SP_MB_LISTS_MOVE(dst, src)                                                      \
    do {                                                                                  \
      (dst)->nl_off = (src)->nl_off;                                                      \
      (dst)->nl = (src)->nl;                                                              \
      (dst)->lperm = (src)->lperm;                                                        \
      (dst)->nl_tmp = (src)->nl_tmp;                                                      \
      (dst)->xref = (src)->xref;                                                          \
      (dst)->cp = (src)->cp;                                                              \
      (dst)->nl_cap = (src)->nl_cap;                                                      \
      (dst)->tmp_cap = (src)->tmp_cap;                                                    \
      (dst)->nl_ok = (src)->nl_ok;                                                        \
      (src)->nl_off = (src)->nl = (src)->lperm = (src)->nl_tmp = NULL;                    \
      (src)->xref = (src)->cp = NULL;                                                     \
      (src)->nl_cap = (src)->tmp_cap = 0;                                                 \
      (src)->nl_ok = 0;                                                                   \
    } while (0)
#endif

/* The system's kept lists into s (they are s's until sp_mb_list_put). */
static void SP_PREC(sp_mb_list_take)(SP_PREC(sp_mb_sys) *s, const sp_mb_ext *ext) {
  SP_PREC(sp_mb_kept) *p;
  if (ext == NULL || ext->keep == NULL || *ext->keep == NULL) return;
  p = (SP_PREC(sp_mb_kept) *)(void *)*ext->keep;
  if (p->n != s->n || p->lw != SP_MB_LIST_W || p->nl_off == NULL) return;
  SP_MB_LISTS_MOVE(s, p);
}

/* s's lists kept for the system's next advance, or freed where there is no
 * slot (or no memory for its record). */
static void SP_PREC(sp_mb_list_put)(SP_PREC(sp_mb_sys) *s, const sp_mb_ext *ext) {
  SP_PREC(sp_mb_kept) *p;
  if (ext == NULL || ext->keep == NULL || s->nl_off == NULL) {
    SP_PREC(sp_mb_list_free)(s);
    return;
  }
  p = (SP_PREC(sp_mb_kept) *)(void *)*ext->keep;
  if (p == NULL) {
    p = (SP_PREC(sp_mb_kept) *)calloc(1, sizeof *p);
    if (p == NULL) {
      SP_PREC(sp_mb_list_free)(s);
      return;
    }
    p->base.release = SP_PREC(sp_mb_kept_release);
    *ext->keep = &p->base;
  }
  free(p->nl_off); /* (a record left empty by sp_mb_list_take: NULLs) */
  free(p->nl);
  free(p->lperm);
  free(p->nl_tmp);
  free(p->xref);
  free(p->cp);
  SP_MB_LISTS_MOVE(p, s);
  p->n = s->n;
  p->lw = SP_MB_LIST_W;
}
#endif

#ifdef SP_MB_CPU_LANES
static int SP_PREC(sp_mb_pair_sums_lanes)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                          int obs, int cells, int lists); /* (mb_lanes.h) */
#endif

/* The pair sums of target i (slot it of the loop: with lists, its slot in
 * their cell order) of state src: the body of sp_mb_pair_sums's loop, and
 * the vector loop's scalar copy (mb_lanes.h). */
static void SP_PREC(sp_mb_pair_target)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                       int obs, int cells, int lists, uint64_t it, uint64_t i) {
#if SP_MB_NQP > 0 || SP_MB_NQO > 0
  SP_REAL xi[SP_MB_NX], xj[SP_MB_NX], ei[SP_MB_EN], ej[SP_MB_EN], ui[SP_MB_UN], uj[SP_MB_UN];
  SP_REAL acc[(SP_MB_QN > SP_MB_NQO ? SP_MB_QN : SP_MB_NQO) + 1];
  const uint64_t n = s->n;
  const int nq = obs ? SP_MB_NQO : SP_MB_NQP;
  SP_REAL *out = obs ? s->O : s->Q;
  uint64_t j;
  int v;
  (void)it; (void)lists;
  for (v = 0; v < SP_MB_NX; v++) xi[v] = src[(uint64_t)v * n + i];
  SP_PREC(sp_mb_epar)(s->ep, i, n, ei);
  for (v = 0; v < SP_MB_UN; v++) ui[v] = SP_MB_NU > 0 ? s->U[(uint64_t)v * n + i] : (SP_REAL)0;
  for (v = 0; v < nq; v++) acc[v] = 0;
#  define SP_MB_ONE_PAIR(jj)                                                                  \
    do {                                                                                      \
      for (v = 0; v < SP_MB_NX; v++) xj[v] = src[(uint64_t)v * n + (jj)];                     \
      SP_PREC(sp_mb_epar)(s->ep, (jj), n, ej);                                                \
      for (v = 0; v < SP_MB_UN; v++) uj[v] = SP_MB_NU > 0 ? s->U[(uint64_t)v * n + (jj)] : (SP_REAL)0; \
      if (obs)                                                                                \
        SP_PREC(mb_pair_obs)(t, xi, ei, xj, ej, ui, uj, s->p, s->pd, (SP_REAL)(i + 1),        \
                             (SP_REAL)((jj) + 1), acc);                                       \
      else                                                                                    \
        SP_PREC(mb_pair)(t, xi, ei, xj, ej, ui, uj, s->p, s->pd, (SP_REAL)(i + 1),            \
                         (SP_REAL)((jj) + 1), acc);                                           \
    } while (0)
  if (!cells) {
    for (j = 0; j < n; j++) {
      if (j == i) continue;
      SP_MB_ONE_PAIR(j);
    }
  }
#  if SP_MB_POSD > 0
  else if (lists) {
    const uint32_t *e = s->nl + s->nl_off[it], na = s->nl_off[n + 1 + it];
    uint32_t a;
    for (a = 0; a < na; a++) {
      const uint64_t sl = e[(uint64_t)a * SP_MB_LIST_W];
      const SP_REAL *q = s->cp + sl;
      j = s->lperm[sl];
      /* the positions from cp, the other states (where the pair terms
       * read them) from their rows */
      for (v = 0; v < SP_MB_NX; v++)
        xj[v] = v == SP_MB_PX0 ? q[0]
                : SP_MB_POSD > 1 && v == SP_MB_PX1 ? q[n]
                : SP_MB_POSD > 2 && v == SP_MB_PX2 ? q[2 * n]
                : src[(uint64_t)v * n + j];
      SP_PREC(sp_mb_epar)(s->ep, j, n, ej);
      for (v = 0; v < SP_MB_UN; v++) uj[v] = SP_MB_NU > 0 ? s->U[(uint64_t)v * n + j] : (SP_REAL)0;
      SP_PREC(mb_pair)(t, xi, ei, xj, ej, ui, uj, s->p, s->pd, (SP_REAL)(i + 1),
                       (SP_REAL)(j + 1), acc);
    }
  } else {
    uint64_t nbc[27];
    const int nn = SP_PREC(sp_mb_cells_near)(s, i, nbc);
    int k;
    for (k = 0; k < nn; k++) {
      uint32_t a;
      for (a = s->cstart[nbc[k]]; a < s->cstart[nbc[k] + 1]; a++) {
        j = s->perm[a];
        if (j == i) continue;
        SP_MB_ONE_PAIR(j);
      }
    }
  }
#  endif
#  undef SP_MB_ONE_PAIR
  for (v = 0; v < nq; v++) out[(uint64_t)v * n + i] = acc[v];
#else
  (void)s; (void)src; (void)t; (void)obs; (void)cells; (void)lists; (void)it; (void)i;
#endif
}

/* The pair sums of state src: the dynamics' (obs 0: Q[q n + i], q < NQP)
 * or the observables' (obs 1: O[q n + i]), each the sum over the partners j
 * != i of the pair terms -- all of them in order, or, when every term has a
 * cut-off (SP_MB_CUT, SP_MB_CUTO), those of the neighbouring cells (the
 * cells in sp_mb_cells_near's order, ascending within a cell), which are
 * all the partners within the cut-off: the same sum to rounding.  In the
 * vector object (SP_MB_CPU_LANES) all pairs and the Verlet lists go by the
 * vector loop over targets (mb_lanes.h): the same sums bit for bit. */
static void SP_PREC(sp_mb_pair_sums)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t,
                                    int obs) {
#if SP_MB_NQP > 0 || SP_MB_NQO > 0
  const uint64_t n = s->n;
  const int nq = obs ? SP_MB_NQO : SP_MB_NQP;
#  if SP_MB_POSD > 0
  int cells = obs ? s->cuto : s->cut, lists = 0;
  if (nq > 0 && cells && !obs) { /* the dynamics: Verlet lists, rebuilt when they must be */
    const double rc = s->pd[SP_MB_RC];
    lists = SP_PREC(sp_mb_list_good)(s, src, rc) || SP_PREC(sp_mb_list_build)(s, src, rc);
  }
  if (nq > 0 && cells && !lists) SP_PREC(sp_mb_cells_build)(s, src, s->pd[obs ? SP_MB_RCO : SP_MB_RC]);
#  else
  const int cells = 0, lists = 0;
#  endif
  if (nq == 0) return;
#  if SP_MB_POSD > 0
  if (lists) SP_PREC(sp_mb_pack)(s, src); /* the positions packed in the lists' cell order */
#  endif
#  ifdef SP_MB_CPU_LANES
  if (SP_PREC(sp_mb_pair_sums_lanes)(s, src, t, obs, cells, lists)) return;
#  endif
  for (uint64_t it = 0; it < n; it++) {
    /* (with lists the targets in their cell order: neighbours' partners
     * are near in memory; each target's sum is its own) */
#  if SP_MB_POSD > 0
    const uint64_t i = lists ? s->lperm[it] : it;
#  else
    const uint64_t i = it;
#  endif
    SP_PREC(sp_mb_pair_target)(s, src, t, obs, cells, lists, it, i);
  }
#else
  (void)s; (void)src; (void)t; (void)obs;
#endif
}

/* The edge sums of state src: Q[(NQP + g) n + i], the sum over element i's
 * in-neighbours j (row i of the graph, ascending) of edge term g. */
static void SP_PREC(sp_mb_edge_sums)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t) {
#if SP_MB_NG > 0
  SP_REAL xi[SP_MB_NX], xj[SP_MB_NX], ei[SP_MB_EN], ej[SP_MB_EN], acc[SP_MB_QN];
  const uint64_t n = s->n;
  const int32_t *rp = s->ext->rowptr, *col = s->ext->col;
  const double *w = s->ext->w;
  uint64_t i;
  int v;
  for (i = 0; i < n; i++) {
    int32_t k;
    for (v = 0; v < SP_MB_NX; v++) xi[v] = src[(uint64_t)v * n + i];
    SP_PREC(sp_mb_epar)(s->ep, i, n, ei);
    for (v = 0; v < SP_MB_QN; v++) acc[v] = 0;
    for (k = rp[i]; k < rp[i + 1]; k++) {
      const uint64_t j = (uint64_t)col[k];
      for (v = 0; v < SP_MB_NX; v++) xj[v] = src[(uint64_t)v * n + j];
      SP_PREC(sp_mb_epar)(s->ep, j, n, ej);
      SP_PREC(mb_edge)(t, xi, ei, xj, ej, w != NULL ? (SP_REAL)w[k] : (SP_REAL)1, s->p, s->pd,
                       (SP_REAL)(i + 1), (SP_REAL)(j + 1), acc);
    }
    for (v = SP_MB_NQP; v < SP_MB_NQ; v++) s->Q[(uint64_t)v * n + i] = acc[v];
  }
#else
  (void)s; (void)src; (void)t;
#endif
}

/* The pair sums Q of the dynamics: pairs (the elements' values for them
 * made once) and edges. */
static void SP_PREC(sp_mb_pairs)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t) {
#if SP_MB_NQP > 0
  SP_PREC(sp_mb_values)(s, src, t);
  SP_PREC(sp_mb_pair_sums)(s, src, t, 0);
#endif
  SP_PREC(sp_mb_edge_sums)(s, src, t);
  (void)s; (void)src; (void)t;
}

/* The couplings of state src at time t: the reductions the dynamics need
 * and the pair sums. */
static void SP_PREC(sp_mb_couple)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double t) {
  SP_PREC(sp_mb_reduce)(s, src, t, SP_MB_ND, 0);
  SP_PREC(sp_mb_pairs)(s, src, t);
}

/* Element i's pair sums from Q. */
static void SP_PREC(sp_mb_qi)(const SP_PREC(sp_mb_sys) *s, uint64_t i, SP_REAL *q) {
  int v;
  for (v = 0; v < SP_MB_NQ; v++) q[v] = s->Q[(uint64_t)v * s->n + i];
#if SP_MB_NQ == 0
  (void)s; (void)i; q[0] = 0;
#endif
}

/* The first non-finite value of a state, as element << 8 | state, or -1. */
static int64_t SP_PREC(sp_mb_bad)(const SP_REAL *x, uint64_t n) {
  uint64_t i;
  int v, any = 0;
  _Pragma("omp simd reduction(|:any)") /* (a vector loop first) */
  for (i = 0; i < (uint64_t)SP_MB_NX * n; i++) any |= !isfinite(x[i]);
  if (!any) return -1;
  for (i = 0; i < n; i++)
    for (v = 0; v < SP_MB_NX; v++)
      if (!isfinite(x[(uint64_t)v * n + i])) return (int64_t)(i << 8 | (uint64_t)v);
  return -1;
}

/* Stage 1 (Euler's step, SRK2's predictor) of element i: sp_mb_step_sde's
 * first loop and the vector loop's scalar copy (mb_lanes.h). */
static void SP_PREC(sp_mb_elem_stage1)(SP_PREC(sp_mb_sys) *s, uint64_t i, int heun, double t,
                                        SP_REAL h, SP_REAL sdt, uint64_t seed, uint64_t stream,
                                        uint64_t kk) {
  const uint64_t n = s->n;
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX], b[SP_MB_BN],
      z[SP_MB_WN], dw[SP_MB_WN], y[SP_MB_NX];
  int v;
  SP_MB_GATHER(s, s->xs, i, x, nb);
  SP_PREC(sp_mb_epar)(s->ep, i, n, e);
  SP_PREC(sp_mb_qi)(s, i, q);
  if (heun)
    SP_PREC(mb_drift_strat)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
  else
    SP_PREC(mb_drift_ito)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
  SP_PREC(mb_noise)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), b);
  SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z);
  for (v = 0; v < SP_MB_WN; v++) dw[v] = SP_MB_NW > 0 ? sdt * z[v] : (SP_REAL)0;
  for (v = 0; v < SP_MB_NX; v++) y[v] = x[v] + f[v] * h;
  SP_PREC(mb_apply_noise)(y, b, dw, s->p);
  for (v = 0; v < SP_MB_NX; v++) {
    s->ys[(uint64_t)v * n + i] = y[v];
    s->a0[(uint64_t)v * n + i] = f[v];
  }
  for (v = 0; v < SP_MB_NB; v++) s->b0[(uint64_t)v * n + i] = b[v];
}

/* Stage 2 (SRK2's corrector) of element i: sp_mb_step_sde's second
 * loop and the vector loop's scalar copy. */
static void SP_PREC(sp_mb_elem_stage2)(SP_PREC(sp_mb_sys) *s, uint64_t i, double t, double dt,
                                        SP_REAL h, SP_REAL sdt, uint64_t seed, uint64_t stream,
                                        uint64_t kk) {
  const uint64_t n = s->n;
  const SP_REAL half = (SP_REAL)0.5;
  SP_REAL y[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX], b[SP_MB_BN],
      z[SP_MB_WN], dw[SP_MB_WN], xo[SP_MB_NX];
  int v;
  SP_MB_GATHER(s, s->ys, i, y, nb);
  SP_PREC(sp_mb_epar)(s->ep, i, n, e);
  SP_PREC(sp_mb_qi)(s, i, q);
  SP_PREC(mb_drift_strat)(t + dt, y, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
  SP_PREC(mb_noise)(t + dt, y, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), b);
  SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z);
  for (v = 0; v < SP_MB_WN; v++) dw[v] = SP_MB_NW > 0 ? sdt * z[v] : (SP_REAL)0;
  for (v = 0; v < SP_MB_NB; v++) b[v] = half * (s->b0[(uint64_t)v * n + i] + b[v]);
  for (v = 0; v < SP_MB_NX; v++)
    xo[v] = s->xs[(uint64_t)v * n + i] + half * h * (s->a0[(uint64_t)v * n + i] + f[v]);
  SP_PREC(mb_apply_noise)(xo, b, dw, s->p);
  for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = xo[v];
}

/* Element i of a stage of a splitting method: its force at time tq, kick by
 * h (kick), move by cm (move), as sp_mb_forces and sp_mb_kick_move (models
 * without lattice neighbours): the vector loop's scalar copy (mb_lanes.h). */
static void SP_PREC(sp_mb_elem_km)(SP_PREC(sp_mb_sys) *s, uint64_t i, int kick, int move,
                                   double tq, SP_REAL h, SP_REAL cm) {
  const uint64_t n = s->n;
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX];
  int v;
  SP_MB_GATHER(s, s->xs, i, x, nb);
  SP_PREC(sp_mb_epar)(s->ep, i, n, e);
  SP_PREC(sp_mb_qi)(s, i, q);
  if (kick) {
    SP_PREC(mb_force)(tq, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
    SP_PREC(mb_kick)(x, f, h);
  }
  if (move) SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), cm);
  for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = x[v];
}

#ifdef SP_MB_CPU_LANES
#  include "mb_lanes.h" /* the vector loop over elements: sp_mb_step_sde_lanes */
#endif

/* One step of the SDE methods from xs (at time t, step kk of the chain). */
static void SP_PREC(sp_mb_step_sde)(SP_PREC(sp_mb_sys) *s, int heun, double t, double dt,
                                   uint64_t seed, uint64_t stream, uint64_t kk) {
  const uint64_t n = s->n;
  const SP_REAL h = (SP_REAL)dt, sdt = (SP_REAL)sqrt(dt);
  uint64_t i;
#ifdef SP_MB_CPU_LANES
  if (SP_PREC(sp_mb_step_sde_lanes)(s, heun, t, dt, seed, stream, kk)) return;
#endif
  SP_PREC(sp_mb_couple)(s, s->xs, t);
  for (i = 0; i < n; i++) SP_PREC(sp_mb_elem_stage1)(s, i, heun, t, h, sdt, seed, stream, kk);
  if (!heun) {
    memcpy(s->xs, s->ys, (size_t)SP_MB_NX * n * sizeof(SP_REAL));
    return;
  }
  SP_PREC(sp_mb_couple)(s, s->ys, t + dt);
  for (i = 0; i < n; i++) SP_PREC(sp_mb_elem_stage2)(s, i, t, dt, h, sdt, seed, stream, kk);
}

/* The forces on every element's momenta at the positions of xs (time t),
 * into s->F (j n + i, j over the momenta). */
static void SP_PREC(sp_mb_forces)(SP_PREC(sp_mb_sys) *s, double t) {
  const uint64_t n = s->n;
  SP_REAL x[SP_MB_NX], nb[SP_MB_NBN], e[SP_MB_EN], q[SP_MB_QN], f[SP_MB_NX];
  uint64_t i;
  int v;
  SP_PREC(sp_mb_couple)(s, s->xs, t);
  for (i = 0; i < n; i++) {
    SP_MB_GATHER(s, s->xs, i, x, nb);
    SP_PREC(sp_mb_epar)(s->ep, i, n, e);
    SP_PREC(sp_mb_qi)(s, i, q);
    SP_PREC(mb_force)(t, x, e, nb, s->R, q, s->p, s->pd, (SP_REAL)(i + 1), f);
    for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) s->F[(uint64_t)v * n + i] = f[v];
  }
}

/* Kick every element's momenta by h F (s->F), then (c != 0) move the
 * positions by c with the new momenta. */
static void SP_PREC(sp_mb_kick_move)(SP_PREC(sp_mb_sys) *s, SP_REAL h, SP_REAL c) {
  const uint64_t n = s->n;
  SP_REAL x[SP_MB_NX], e[SP_MB_EN], f[SP_MB_NX];
  uint64_t i;
  int v;
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) x[v] = s->xs[(uint64_t)v * n + i];
    if (h != 0) {
      for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) f[v] = s->F[(uint64_t)v * n + i];
      SP_PREC(mb_kick)(x, f, h);
    }
    if (c != 0) {
      SP_PREC(sp_mb_epar)(s->ep, i, n, e);
      SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), c);
    }
    for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = x[v];
  }
}

/* One step of verlet or yoshida4 (DKD stages of mb_args.h) from time t. */
static void SP_PREC(sp_mb_step_split)(SP_PREC(sp_mb_sys) *s, int method, double t, double dt) {
  double d[4], c[4], tq = t;
  const int ns = sp_mb_stages(method, d, c);
  int a;
#ifdef SP_MB_CPU_LANES
  if (SP_PREC(sp_mb_step_split_lanes)(s, method, t, dt)) return;
#endif
  for (a = 0; a < ns; a++) {
    if (d[a] != 0) SP_PREC(sp_mb_forces)(s, tq);
    SP_PREC(sp_mb_kick_move)(s, (SP_REAL)(d[a] * dt), (SP_REAL)(c[a] * dt));
    tq += c[a] * dt;
  }
}

/* One BAOAB step from time t (s->F holds the forces at xs on entry and on
 * exit). */
static void SP_PREC(sp_mb_step_baoab)(SP_PREC(sp_mb_sys) *s, double t, double dt, uint64_t seed,
                                     uint64_t stream, uint64_t kk, const double *c1,
                                     const double *c2, const int *which, const int *wz) {
  const uint64_t n = s->n;
  const SP_REAL hh = (SP_REAL)(0.5 * dt);
  SP_REAL x[SP_MB_NX], e[SP_MB_EN], f[SP_MB_NX], z[SP_MB_WN];
  uint64_t i;
  int v;
  for (i = 0; i < n; i++) {
    for (v = 0; v < SP_MB_NX; v++) x[v] = s->xs[(uint64_t)v * n + i];
    for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) f[v] = s->F[(uint64_t)v * n + i];
    SP_PREC(sp_mb_epar)(s->ep, i, n, e);
    SP_PREC(mb_kick)(x, f, hh);
    SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), hh);
    SP_PREC(sp_mb_normals)(seed, stream, kk, i, n, z);
    for (v = 0; v < SP_MB_NX - SP_MB_NPOS; v++) {
      const int st = which[v];
      x[st] = (SP_REAL)c1[v] * x[st] + (wz[v] >= 0 ? (SP_REAL)c2[v] * z[wz[v]] : (SP_REAL)0);
    }
    SP_PREC(mb_move)(x, e, s->p, (SP_REAL)(i + 1), hh);
    for (v = 0; v < SP_MB_NX; v++) s->xs[(uint64_t)v * n + i] = x[v];
  }
  SP_PREC(sp_mb_forces)(s, t + dt);
  SP_PREC(sp_mb_kick_move)(s, hh, 0);
}

/* The system-level event at the state xs, time t. */
static int SP_PREC(sp_mb_event)(SP_PREC(sp_mb_sys) *s, double t) {
  SP_PREC(sp_mb_reduce)(s, s->xs, t, SP_MB_NT, 0);
  return SP_PREC(mb_stop)(t, s->R, s->p, s->pd);
}

int SP_PREC(sp_mb_cpu_advance)(const sp_mb_job *job, const sp_mb_ext *ext, const double *par,
                              const double *ep, uint64_t seed, uint64_t stream, double *x,
                              double *work, uint64_t *k, uint64_t kend, uint64_t *what) {
  SP_PREC(sp_mb_sys) s;
  const uint64_t n = job->n;
  const int method = (int)job->method;
  double c1[SP_MB_POS], c2[SP_MB_POS];
  int which[SP_MB_POS], wz[SP_MB_POS], st = SP_MB_RUNNING;
  uint64_t i;
  SP_PREC(sp_mb_setup)(job, ext, par, ep, work, &s);
#if SP_MB_POSD > 0
  SP_PREC(sp_mb_list_take)(&s, ext);
#endif
  for (i = 0; i < (uint64_t)SP_MB_NX * n; i++) s.xs[i] = (SP_REAL)x[i];
  if (job->use_stop && *k == 0 && SP_PREC(sp_mb_event)(&s, job->t0)) {
    st = SP_MB_STOPPED;
  } else {
    if (method == SP_MB_BAOAB && *k < kend) {
      SP_PREC(sp_mb_ou_coef)(s.p, job->dt, c1, c2, which, wz);
      SP_PREC(sp_mb_forces)(&s, job->t0 + (double)*k * job->dt);
    }
    while (*k < kend) {
      const double t = job->t0 + (double)*k * job->dt;
      const uint64_t kk = job->k0 + *k;
      int64_t bad;
      if (method == SP_MB_EULER || method == SP_MB_SRK2)
        SP_PREC(sp_mb_step_sde)(&s, method == SP_MB_SRK2, t, job->dt, seed, stream, kk);
      else if (method == SP_MB_BAOAB)
        SP_PREC(sp_mb_step_baoab)(&s, t, job->dt, seed, stream, kk, c1, c2, which, wz);
      else
        SP_PREC(sp_mb_step_split)(&s, method, t, job->dt);
      (*k)++;
      bad = SP_PREC(sp_mb_bad)(s.xs, n);
      if (bad >= 0) {
        *what = (uint64_t)bad;
        st = SP_MB_NONFINITE;
        break;
      }
      if (job->use_stop && SP_PREC(sp_mb_event)(&s, job->t0 + (double)*k * job->dt)) {
        st = SP_MB_STOPPED;
        break;
      }
    }
  }
  for (i = 0; i < (uint64_t)SP_MB_NX * n; i++) x[i] = (double)s.xs[i];
#if SP_MB_POSD > 0
  SP_PREC(sp_mb_list_put)(&s, ext);
#endif
  free(s.tb);
  return st;
}

#if SP_MB_POSD > 0
/* g(r)'s counts of state src: each pair i < j at a distance below rmax
 * adds 1 to bin floor(r bins / rmax) of cnt (the distance from the working
 * precision's squared distance, in double); the pairs through the cell list
 * of cell side rmax. */
static void SP_PREC(sp_mb_rdf)(SP_PREC(sp_mb_sys) *s, const SP_REAL *src, double *cnt,
                              int64_t bins, double rmax) {
  const uint64_t n = s->n;
  const double scale = (double)bins / rmax, rmax2 = rmax * rmax;
  uint64_t i, j, nbc[27];
  SP_PREC(sp_mb_cells_build)(s, src, rmax);
  for (i = 0; i < n; i++) {
    const int nn = SP_PREC(sp_mb_cells_near)(s, i, nbc);
    int k;
    for (k = 0; k < nn; k++) {
      uint32_t a;
      for (a = s->cstart[nbc[k]]; a < s->cstart[nbc[k] + 1]; a++) {
        double r2;
        j = s->perm[a];
        if (j <= i) continue;
        r2 = (double)SP_PREC(sp_mb_r2)(s, src, i, j);
        if (r2 < rmax2) {
          int64_t b = (int64_t)(sqrt(r2) * scale);
          if (b >= bins) b = bins - 1;
          cnt[b] += 1;
        }
      }
    }
  }
}
#endif

void SP_PREC(sp_mb_cpu_observe)(const sp_mb_job *job, const sp_mb_ext *ext, const double *par,
                               const double *ep, uint64_t k, const double *x, double *work,
                               double *o) {
  SP_PREC(sp_mb_sys) s;
  SP_REAL ov[SP_MB_ON];
  const double t = job->t0 + (double)k * job->dt;
  uint64_t i;
  int v;
  SP_PREC(sp_mb_setup)(job, ext, par, ep, work, &s);
  for (i = 0; i < (uint64_t)SP_MB_NX * job->n; i++) s.xs[i] = (SP_REAL)x[i];
#if SP_MB_POSD > 0
  if (ext != NULL && ext->rdf != NULL)
    SP_PREC(sp_mb_rdf)(&s, s.xs, ext->rdf, job->rdf_bins, job->rdf_rmax);
#endif
  if (o == NULL) return;
#if SP_MB_NQO > 0
  SP_PREC(sp_mb_values)(&s, s.xs, t);
  SP_PREC(sp_mb_pair_sums)(&s, s.xs, t, 1);
#endif
  SP_PREC(sp_mb_reduce)(&s, s.xs, t, SP_MB_NT, 1);
  free(s.tb);
  SP_PREC(mb_observe)(t, s.R, s.p, s.pd, ov);
  for (v = 0; v < SP_MB_NO; v++) o[v] = (double)ov[v];
}
