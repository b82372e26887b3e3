/* r_mb.c: the random draws of a many-body model's starts and element
 * parameters (R/sde-mb-run.R evaluates their formulas, vectorised over the
 * elements and systems; the numbers come from here, so that both backends
 * start from the same numbers). */

#include <limits.h>

#include "r_util.h"
#include "core/sp_graph.h"
#include "core/sp_mb.h"
#include "core/sp_threads.h"
#include "gpu/sp_gpu_mb.h"

/* Draws of one draw site `d` (of `D` an element) for elements 0..n-1 of the
 * systems of condition `cond` and global replicas `reps` (0-based): element
 * i of replica r takes block i D + d of stream cond 2^40 + r under
 * `purpose`; kind 0 a uniform on (0, 1) (53 bits of words x, y), 1 a
 * standard normal (Box-Muller on the uniforms of (x, y) and (z, w)), 2 a
 * standard Cauchy (tan(pi (u - 1/2))).  Returns n x length(reps) numbers,
 * the elements of a replica consecutive. */
SEXP sp_r_mb_draws(SEXP seed, SEXP purpose, SEXP cond, SEXP reps, SEXP n_, SEXP D_, SEXP d_,
                   SEXP kind_) {
  const uint64_t key = sp_r_u64(seed), n = sp_r_count(n_), D = sp_r_count(D_),
                 d = sp_r_count(d_), c = sp_r_count(cond);
  const uint32_t pur = (uint32_t)sp_r_int(purpose);
  const int kind = sp_r_int(kind_);
  const R_xlen_t nr = XLENGTH(reps);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n * nr));
  sp_mb_draws(key, pur, c, REAL(reps), (uint64_t)nr, n, D, d, kind, REAL(out), sp_threads_get());
  UNPROTECT(1);
  return out;
}

/* The final states of a many-body run shaped as an array (elements x
 * states x systems) in place: `x` is the engine's fresh output vector, held
 * only by the run's result list, which the caller drops (R's dim<- would
 * copy it: 800 MB at n = 5e7, half a second). */
SEXP sp_r_mb_shape(SEXP x, SEXP dim, SEXP dimnames) {
  double len = 1;
  R_xlen_t k;
  if (TYPEOF(x) != REALSXP || TYPEOF(dim) != INTSXP || XLENGTH(dim) < 1)
    Rf_error("internal error: sp_r_mb_shape");
  for (k = 0; k < XLENGTH(dim); k++) len *= INTEGER(dim)[k];
  if (len != (double)XLENGTH(x)) Rf_error("internal error: sp_r_mb_shape sizes");
  Rf_setAttrib(x, R_DimSymbol, dim);
  Rf_setAttrib(x, R_DimNamesSymbol, dimnames);
  return x;
}

/* Values per (field, condition) as the engine's array: `vals` a list of nv
 * fields, each a list of ncond double vectors (core/sp_mb.c's sp_mb_stack,
 * on the package's threads).  Returns systems x fields x n doubles. */
SEXP sp_r_mb_stack(SEXP vals, SEXP n_, SEXP nrep_, SEXP ncond_) {
  const uint64_t n = sp_r_count(n_), nrep = sp_r_count(nrep_), ncond = sp_r_count(ncond_);
  const R_xlen_t nv = XLENGTH(vals);
  const uint64_t total = n * (uint64_t)nv * nrep * ncond;
  const double **src;
  uint64_t *len;
  SEXP out;
  R_xlen_t v;
  uint64_t c;
  if (TYPEOF(vals) != VECSXP || n < 1 || nrep < 1 || ncond < 1 || total > (uint64_t)R_XLEN_T_MAX)
    Rf_error("internal error: sp_r_mb_stack");
  src = (const double **)R_alloc((size_t)(nv * ncond + 1), sizeof *src);
  len = (uint64_t *)R_alloc((size_t)(nv * ncond + 1), sizeof *len);
  for (v = 0; v < nv; v++) {
    SEXP f = VECTOR_ELT(vals, v);
    if (TYPEOF(f) != VECSXP || (uint64_t)XLENGTH(f) != ncond)
      Rf_error("internal error: sp_r_mb_stack field %d", (int)v + 1);
    for (c = 0; c < ncond; c++) {
      SEXP x = VECTOR_ELT(f, (R_xlen_t)c);
      if (TYPEOF(x) != REALSXP || XLENGTH(x) < 1)
        Rf_error("internal error: sp_r_mb_stack values %d, %d", (int)v + 1, (int)c + 1);
      src[v * ncond + c] = REAL(x);
      len[v * ncond + c] = (uint64_t)XLENGTH(x);
    }
  }
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)total));
  sp_r_hugepages(REAL(out), (size_t)total * sizeof(double));
  sp_mb_stack(REAL(out), src, len, n, (uint64_t)nv, nrep, ncond, sp_threads_get());
  UNPROTECT(1);
  return out;
}

/* A graph's compressed rows (sp_graph_csr): `to`, `from` (node numbers 1
 * .. n), `w` the weights, `repeated` SP_GRAPH_REPEATED_*.  Returns
 * list(what, edge) when an edge is invalid (sp_graph_check: what 1 a node
 * number, 2 a weight; edge its 1-based index), else list(rowptr, col, w,
 * nnz, dup): dup the 1-based index of a
 * repeated edge (0: none; with SP_GRAPH_REPEATED_ERROR nothing else is
 * made), col and w cut to the nnz edges kept. */
SEXP sp_r_graph_csr(SEXP n_, SEXP to, SEXP from, SEXP w, SEXP repeated) {
  const uint64_t n = sp_r_count(n_);
  const R_xlen_t m = XLENGTH(to);
  uint64_t nnz = 0;
  int64_t dup = -1;
  SEXP rowptr, col, wo, out;
  if (TYPEOF(to) != REALSXP || TYPEOF(from) != REALSXP || TYPEOF(w) != REALSXP ||
      XLENGTH(from) != m || XLENGTH(w) != m || m > INT_MAX - 1 || n > INT_MAX - 1)
    Rf_error("internal error: sp_r_graph_csr");
  {
    int64_t bad = -1;
    const int what = sp_graph_check(n, (uint64_t)m, REAL(to), REAL(from), REAL(w), &bad);
    if (what) { /* list(what, the edge (1-based)) */
      out = PROTECT(Rf_allocVector(VECSXP, 2));
      SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(what));
      SET_VECTOR_ELT(out, 1, Rf_ScalarReal((double)(bad + 1)));
      UNPROTECT(1);
      return out;
    }
  }
  rowptr = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)n + 1));
  col = PROTECT(Rf_allocVector(INTSXP, m));
  wo = PROTECT(Rf_allocVector(REALSXP, m));
  sp_r_check(sp_graph_csr(n, (uint64_t)m, REAL(to), REAL(from), REAL(w), sp_r_int(repeated),
                          INTEGER(rowptr), INTEGER(col), REAL(wo), &nnz, &dup));
  if (dup < 0 && (R_xlen_t)nnz < m) {
    col = PROTECT(Rf_xlengthgets(col, (R_xlen_t)nnz));
    wo = PROTECT(Rf_xlengthgets(wo, (R_xlen_t)nnz));
  } else {
    PROTECT(col);
    PROTECT(wo);
  }
  out = PROTECT(Rf_allocVector(VECSXP, 5));
  SET_VECTOR_ELT(out, 0, rowptr);
  SET_VECTOR_ELT(out, 1, col);
  SET_VECTOR_ELT(out, 2, wo);
  SET_VECTOR_ELT(out, 3, Rf_ScalarReal((double)nnz));
  SET_VECTOR_ELT(out, 4, Rf_ScalarReal((double)(dup + 1)));
  UNPROTECT(6);
  return out;
}

/* The GPU's source chunks of mode B's passes over all pairs for systems of
 * n elements (gpu/sp_gpu_mb.c, the one place they are decided): c(chunks,
 * tiles of 256 sources a chunk).  For tests. */
SEXP sp_r_mb_pair_chunks(SEXP n_) {
  int nch, tpc;
  SEXP out;
  sp_gpu_mb_pair_chunks(sp_r_count(n_), &nch, &tpc);
  out = PROTECT(Rf_allocVector(INTSXP, 2));
  INTEGER(out)[0] = nch;
  INTEGER(out)[1] = tpc;
  UNPROTECT(1);
  return out;
}
