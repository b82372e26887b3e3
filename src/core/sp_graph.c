/* sp_graph.c: a graph's compressed rows (sp_graph.h).  No R API. */
#include "sp_graph.h"

#include <math.h>
#include <stdlib.h>

#include "sp_error.h"

/* Stable merge sort of idx[0 .. len-1] by key[idx] (tmp: len words). */
static void graph_merge_sort(uint64_t *idx, uint64_t *tmp, uint64_t len, const double *key) {
  uint64_t width, lo, k;
  for (width = 1; width < len; width *= 2) {
    for (lo = 0; lo < len; lo += 2 * width) {
      const uint64_t mid = lo + width < len ? lo + width : len;
      const uint64_t hi = lo + 2 * width < len ? lo + 2 * width : len;
      uint64_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) tmp[o++] = key[idx[b]] < key[idx[a]] ? idx[b++] : idx[a++];
      while (a < mid) tmp[o++] = idx[a++];
      while (b < hi) tmp[o++] = idx[b++];
    }
    for (k = 0; k < len; k++) idx[k] = tmp[k];
  }
}

/* A row's edges idx[0 .. len-1] ascending by source, stably: insertion
 * for the short rows of a sparse graph (already sorted: one pass), merges
 * for long ones. */
static void graph_sort_row(uint64_t *idx, uint64_t *tmp, uint64_t len, const double *from) {
  uint64_t k;
  if (len > 64) {
    for (k = 1; k < len && from[idx[k - 1]] <= from[idx[k]]; k++) {
    }
    if (k < len) graph_merge_sort(idx, tmp, len, from);
    return;
  }
  for (k = 1; k < len; k++) {
    const uint64_t v = idx[k];
    const double f = from[v];
    uint64_t p = k;
    while (p > 0 && from[idx[p - 1]] > f) {
      idx[p] = idx[p - 1];
      p--;
    }
    idx[p] = v;
  }
}

int sp_graph_check(uint64_t n, uint64_t m, const double *to, const double *from,
                   const double *w, int64_t *bad) {
  const double top = (double)n;
  uint64_t k;
  *bad = -1;
  for (k = 0; k < m; k++) {
    const double t = to[k], f = from[k];
    if (!(t >= 1 && t <= top && t == floor(t) && f >= 1 && f <= top && f == floor(f))) {
      *bad = (int64_t)k;
      return 1;
    }
  }
  for (k = 0; k < m; k++)
    if (!isfinite(w[k])) {
      *bad = (int64_t)k;
      return 2;
    }
  return 0;
}

int sp_graph_csr(uint64_t n, uint64_t m, const double *to, const double *from,
                 const double *w, int repeated, int *rowptr, int *col, double *wout,
                 uint64_t *nnz, int64_t *dup) {
  uint64_t *a = (uint64_t *)malloc((size_t)(2 * m + n + 2) * sizeof(uint64_t));
  uint64_t *b, *start, k, kept = 0;
  int by_target = 1;
  *dup = -1;
  *nnz = 0;
  if (a == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory (a graph of %llu edges)",
                                (unsigned long long)m);
  b = a + m;
  start = b + m;
  /* by target: a stable counting sort, unless the edges come so ordered */
  for (k = 1; k < m && by_target; k++) by_target = to[k - 1] <= to[k];
  for (k = 0; k <= n; k++) start[k] = 0;
  for (k = 0; k < m; k++) start[(uint64_t)to[k]]++; /* start[t]: the edges of row t - 1 */
  for (k = 0; k < n; k++) start[k + 1] += start[k]; /* start[r]: row r's first edge */
  if (by_target) {
    for (k = 0; k < m; k++) a[k] = k;
  } else {
    for (k = 0; k < m; k++) a[start[(uint64_t)to[k] - 1]++] = k;
    for (k = n; k > 0; k--) start[k] = start[k - 1]; /* back to the rows' first edges */
    start[0] = 0;
  }
  /* each row by source, stably */
  for (k = 0; k < n; k++) graph_sort_row(a + start[k], b, start[k + 1] - start[k], from);
  for (k = 0; k <= n; k++) rowptr[k] = 0;
  for (k = 0; k < m;) {
    const uint64_t e = a[k];
    double sum = w[e];
    uint64_t r = k + 1;
    while (r < m && to[a[r]] == to[e] && from[a[r]] == from[e]) {
      if (repeated == SP_GRAPH_REPEATED_ERROR) {
        *dup = (int64_t)a[r];
        free(a);
        return SP_OK;
      }
      sum += w[a[r]];
      r++;
    }
    if (sum != 0) {
      col[kept] = (int)from[e] - 1;
      wout[kept] = sum;
      rowptr[(uint64_t)to[e]]++;
      kept++;
    }
    k = r;
  }
  for (k = 0; k < n; k++) rowptr[k + 1] += rowptr[k];
  *nnz = kept;
  free(a);
  return SP_OK;
}
