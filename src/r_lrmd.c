/* .Call glue of the long-range MD model's helpers (its run is the declared
 * many-body engine's, R/lrmd-declared.R): the scan of a start, and the lazy starts of R/lrmd-init.R, data frames whose
 * columns are drawn (from the package's Philox streams,
 * src/core/sp_lrmd_start.c) only when R reads them, or by the engine itself
 * when lrmd() gets the start unread (a start that cannot be drawn is an
 * error of class statphysgpu_start_error). */
#include "r_util.h"

#include <R_ext/Altrep.h>
#include <math.h>
#include <string.h>

#include "core/sp_error.h"
#include "core/sp_lrmd.h"
#include "core/sp_threads.h"

/* ---- the recipe of a start ------------------------------------------------------ */

/* A start's recipe (class "lrmd_draw", made by lrmd_start_object() in
 * R/lrmd-init.R): c(kind, n, seed lo, seed hi, a, b, U, M0, replica), the
 * fields of sp_lrmd_start (replica: global, 0-based; a recipe of 8, saved
 * before replicas existed, is replica 0). */
#define RECIPE_LEN 9

static void recipe_read(SEXP r, sp_lrmd_start *s) {
  const double *x;
  if (TYPEOF(r) != REALSXP || (XLENGTH(r) != RECIPE_LEN && XLENGTH(r) != RECIPE_LEN - 1))
    Rf_error("internal error: the recipe of a start must be %d doubles", RECIPE_LEN);
  x = REAL(r);
  if (!(x[0] >= SP_LRMD_START_WATERBAG && x[0] <= SP_LRMD_START_SHELL) || !(x[1] >= 2) ||
      (XLENGTH(r) == RECIPE_LEN && !(x[8] >= 0 && x[8] < 0x1p40 && x[8] == floor(x[8]))))
    Rf_error("internal error: a damaged recipe of a start");
  s->kind = (int)x[0];
  s->n = sp_r_count(Rf_ScalarReal(x[1]));
  s->seed = (uint64_t)sp_r_u32(r, 2) | ((uint64_t)sp_r_u32(r, 3) << 32);
  s->a = x[4];
  s->b = x[5];
  s->U = x[6];
  s->M0 = x[7];
  s->replica = XLENGTH(r) == RECIPE_LEN ? (uint64_t)x[8] : 0;
}

static int recipe_ncol(const sp_lrmd_start *s) { return s->kind == SP_LRMD_START_SHELL ? 4 : 2; }

/* One pass over the start lrmd() is given (a list of double columns, the
 * momenta from column mom0 + 1 on): c(all finite, sum of the squared
 * momenta, their largest absolute value). */
SEXP sp_r_lrmd_scan(SEXP cols, SEXP mom0) {
  const int ncol = Rf_length(cols);
  const double **x = (const double **)R_alloc((size_t)ncol + 1, sizeof(double *));
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 3));
  R_xlen_t n = ncol > 0 ? XLENGTH(VECTOR_ELT(cols, 0)) : 0;
  int j;
  for (j = 0; j < ncol; j++) {
    SEXP c = VECTOR_ELT(cols, j);
    if (TYPEOF(c) != REALSXP || XLENGTH(c) != n)
      Rf_error("internal error: the columns scanned must be doubles of one length");
    x[j] = REAL(c);
  }
  sp_lrmd_scan(x, ncol, sp_r_int(mom0), (uint64_t)n, sp_threads_get(), REAL(out));
  UNPROTECT(1);
  return out;
}

/* ---- lazy starts: data frames whose columns are drawn when read ---------------- */

/* A column of a lazy start (ALTREP class "lrmd_start_column"): data1 =
 * list(shared, j), shared = list(recipe, drawn), drawn the list of the
 * start's columns once one of them was read (NULL before: all are drawn at
 * once, each column then takes its own); data2 = this column drawn, or
 * NULL. */
static R_altrep_class_t lrmd_col_class;

static SEXP col_shared(SEXP x) { return VECTOR_ELT(R_altrep_data1(x), 0); }
static int col_index(SEXP x) { return INTEGER(VECTOR_ELT(R_altrep_data1(x), 1))[0]; }

/* This column drawn, or R_NilValue (no allocation). */
static SEXP col_drawn(SEXP x) {
  SEXP d = R_altrep_data2(x), drawn;
  if (d != R_NilValue) return d;
  drawn = VECTOR_ELT(col_shared(x), 1);
  if (drawn == R_NilValue) return R_NilValue;
  d = VECTOR_ELT(drawn, col_index(x));
  R_set_altrep_data2(x, d);
  return d;
}

/* Draw every column of a start (the CPU's draw, on the package's threads). */
static void draw_shared(SEXP shared) {
  sp_lrmd_start s;
  SEXP v;
  double *p[4], pmax;
  int ncol, j, st;
  recipe_read(VECTOR_ELT(shared, 0), &s);
  ncol = recipe_ncol(&s);
  v = PROTECT(Rf_allocVector(VECSXP, ncol));
  for (j = 0; j < ncol; j++) {
    SET_VECTOR_ELT(v, j, Rf_allocVector(REALSXP, (R_xlen_t)s.n));
    p[j] = REAL(VECTOR_ELT(v, j));
  }
  if (ncol == 4) st = sp_lrmd_start_draw(&s, p[0], p[1], p[2], p[3], sp_threads_get(), &pmax);
  else st = sp_lrmd_start_draw(&s, p[0], NULL, p[1], NULL, sp_threads_get(), &pmax);
  sp_r_check(st);
  SET_VECTOR_ELT(shared, 1, v);
  UNPROTECT(1);
}

static SEXP col_data(SEXP x) {
  SEXP d = col_drawn(x);
  if (d != R_NilValue) return d;
  draw_shared(col_shared(x));
  return col_drawn(x);
}

static R_xlen_t col_length(SEXP x) {
  return (R_xlen_t)REAL(VECTOR_ELT(col_shared(x), 0))[1];
}

static void *col_dataptr(SEXP x, Rboolean writeable) {
  (void)writeable;
  return REAL(col_data(x));
}

static const void *col_dataptr_or_null(SEXP x) {
  SEXP d = col_drawn(x);
  return d == R_NilValue ? NULL : (const void *)REAL(d);
}

static double col_elt(SEXP x, R_xlen_t i) { return REAL(col_data(x))[i]; }

static R_xlen_t col_get_region(SEXP x, R_xlen_t i, R_xlen_t n, double *buf) {
  SEXP d = col_data(x);
  R_xlen_t len = XLENGTH(d), k = len - i < n ? len - i : n;
  if (k > 0) memcpy(buf, REAL(d) + i, (size_t)k * sizeof(double));
  return k > 0 ? k : 0;
}

static Rboolean col_inspect(SEXP x, int pre, int deep, int pvec,
                            void (*inspect_subtree)(SEXP, int, int, int)) {
  (void)pre;
  (void)deep;
  (void)pvec;
  (void)inspect_subtree;
  Rprintf(" lrmd start column %d (%s)\n", col_index(x) + 1,
          col_drawn(x) == R_NilValue ? "not drawn" : "drawn");
  return TRUE;
}

static SEXP col_new(SEXP shared, int j) {
  SEXP d1 = PROTECT(Rf_allocVector(VECSXP, 2)), x;
  SET_VECTOR_ELT(d1, 0, shared);
  SET_VECTOR_ELT(d1, 1, Rf_ScalarInteger(j));
  x = R_new_altrep(lrmd_col_class, d1, R_NilValue);
  UNPROTECT(1);
  return x;
}

static SEXP shared_new(SEXP recipe) {
  SEXP shared = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(shared, 0, recipe);
  SET_VECTOR_ELT(shared, 1, R_NilValue);
  UNPROTECT(1);
  return shared;
}

/* Serialised: a column not yet drawn as its recipe and index (a small
 * object for saveRDS() and for cluster workers), a drawn one as its numbers. */
static SEXP col_serialized_state(SEXP x) {
  SEXP st;
  if (col_drawn(x) != R_NilValue) return NULL;
  st = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(st, 0, VECTOR_ELT(col_shared(x), 0));
  SET_VECTOR_ELT(st, 1, Rf_ScalarInteger(col_index(x)));
  UNPROTECT(1);
  return st;
}

static SEXP col_unserialize(SEXP cls, SEXP st) {
  SEXP shared = PROTECT(shared_new(VECTOR_ELT(st, 0))), x;
  (void)cls;
  x = col_new(shared, INTEGER(VECTOR_ELT(st, 1))[0]);
  UNPROTECT(1);
  return x;
}

void sp_r_lrmd_init(DllInfo *dll) {
  lrmd_col_class = R_make_altreal_class("lrmd_start_column", "statphysgpu", dll);
  R_set_altrep_Length_method(lrmd_col_class, col_length);
  R_set_altrep_Inspect_method(lrmd_col_class, col_inspect);
  R_set_altrep_Serialized_state_method(lrmd_col_class, col_serialized_state);
  R_set_altrep_Unserialize_method(lrmd_col_class, col_unserialize);
  R_set_altvec_Dataptr_method(lrmd_col_class, col_dataptr);
  R_set_altvec_Dataptr_or_null_method(lrmd_col_class, col_dataptr_or_null);
  R_set_altreal_Elt_method(lrmd_col_class, col_elt);
  R_set_altreal_Get_region_method(lrmd_col_class, col_get_region);
}

/* The columns of a start of recipe `recipe`, not drawn. */
SEXP sp_r_lrmd_start_columns(SEXP recipe) {
  sp_lrmd_start s;
  SEXP shared, out;
  int j, ncol;
  recipe_read(recipe, &s);
  ncol = recipe_ncol(&s);
  shared = PROTECT(shared_new(recipe));
  out = PROTECT(Rf_allocVector(VECSXP, ncol));
  for (j = 0; j < ncol; j++) SET_VECTOR_ELT(out, j, col_new(shared, j));
  UNPROTECT(2);
  return out;
}

/* A start of recipe `recipe` drawn at once into one vector, its columns
 * one after another (the declared engine's layout of one system:
 * R/lrmd-declared.R), with attribute "pmax", the largest |momentum| of the
 * drawn columns: no lazy columns to materialise and join in R (a start of
 * 5e7 particles: two copies of 800 MB). */
SEXP sp_r_lrmd_start_flat(SEXP recipe) {
  sp_lrmd_start s;
  SEXP out;
  double *p[4], pm, m = 0;
  int ncol, j, st;
  uint64_t i;
  recipe_read(recipe, &s);
  ncol = recipe_ncol(&s);
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)s.n * ncol));
  sp_r_hugepages(REAL(out), (size_t)s.n * (size_t)ncol * sizeof(double));
  for (j = 0; j < ncol; j++) p[j] = REAL(out) + (size_t)j * (size_t)s.n;
  if (ncol == 4) st = sp_lrmd_start_draw(&s, p[0], p[1], p[2], p[3], sp_threads_get(), &pm);
  else st = sp_lrmd_start_draw(&s, p[0], NULL, p[1], NULL, sp_threads_get(), &pm);
  sp_r_check(st);
  for (j = ncol / 2; j < ncol; j++)
    for (i = 0; i < s.n; i++) {
      const double a = fabs(p[j][i]);
      if (a > m) m = a;
    }
  Rf_setAttrib(out, Rf_install("pmax"), Rf_ScalarReal(m));
  UNPROTECT(1);
  return out;
}

/* For a list whose columns are all those of one lazy start, in order:
 * list(its recipe, whether they were drawn (read) -- the engine draws a
 * start none of whose columns was read, and the other replicas of any);
 * else NULL. */
SEXP sp_r_lrmd_lazy(SEXP x) {
  SEXP recipe = R_NilValue, out;
  sp_lrmd_start s;
  R_xlen_t j, ncol;
  int drawn = 0;
  if (TYPEOF(x) != VECSXP || (ncol = XLENGTH(x)) < 1) return R_NilValue;
  for (j = 0; j < ncol; j++) {
    SEXP c = VECTOR_ELT(x, j), r;
    if (!ALTREP(c) || !R_altrep_inherits(c, lrmd_col_class) || col_index(c) != j)
      return R_NilValue;
    if (col_drawn(c) != R_NilValue) drawn = 1;
    r = VECTOR_ELT(col_shared(c), 0);
    if (j == 0) recipe = r;
    else if (r != recipe && (XLENGTH(r) != XLENGTH(recipe) ||
                             memcmp(REAL(r), REAL(recipe), XLENGTH(r) * sizeof(double)) != 0))
      return R_NilValue;
  }
  recipe_read(recipe, &s);
  if (recipe_ncol(&s) != ncol) return R_NilValue;
  out = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(out, 0, recipe);
  SET_VECTOR_ELT(out, 1, Rf_ScalarLogical(drawn));
  UNPROTECT(1);
  return out;
}
