/* sp_graph.h: a graph's compressed rows (sde_run(graph = ); R/sde-space.R,
 * sde_check_graph()).  No R API. */
#ifndef SP_GRAPH_H
#define SP_GRAPH_H

#include <stdint.h>

/* What to do with an edge given more than once. */
enum { SP_GRAPH_REPEATED_NONE = 0, SP_GRAPH_REPEATED_ERROR = 1, SP_GRAPH_REPEATED_ADD = 2 };

/* The m edges (to[k], from[k], w[k]) of a graph of n nodes (1-based whole
 * numbers, checked by the caller) as compressed rows: rowptr (n + 1
 * offsets), col (0-based sources, ascending in each row), wout (weights),
 * *nnz the edges kept.  The edges are sorted by target, then source, by two
 * stable sorts (a counting sort by target, each row by source; ties keep
 * the order given); edges of weight 0 are dropped.  An edge given twice:
 * with SP_GRAPH_REPEATED_ADD its weights add (in the order given), with
 * SP_GRAPH_REPEATED_ERROR *dup is the index (0-based, in the order given)
 * of the repeat that sorts first and nothing else is made (*dup is -1 when
 * there is none).  col and wout hold m entries; 2 m + n + 2 64-bit words
 * of scratch are allocated.  Returns SP_OK or SP_ERR_NOMEM. */
/* The edges checked: 0 when every to[k] and from[k] is a whole number in
 * 1 .. n and every weight finite; else 1 (a node number; 2: a weight) and
 * *bad the first such edge's index (0-based). */
int sp_graph_check(uint64_t n, uint64_t m, const double *to, const double *from,
                   const double *w, int64_t *bad);

int sp_graph_csr(uint64_t n, uint64_t m, const double *to, const double *from,
                 const double *w, int repeated, int *rowptr, int *col, double *wout,
                 uint64_t *nnz, int64_t *dup);

#endif
