/* r_model.c: the one .Call entry that runs every model (src/core/sp_model.h).
 *
 * R's sim_run() (R/run.R) sends the model's name and its job as a named
 * list; this reads the job's fields by name into the model's struct, lets
 * the model derive and check what follows, allocates the outputs, runs the
 * engine (CPU in the job's precision, or GPU) under the progress bar and the
 * interrupt hooks, and returns the outputs by name with the run information.
 * Nothing here knows any model. */
#include <string.h>

#include "r_hooks.h"
#include "r_run.h"

#include "core/sp_error.h"
#include "core/sp_model.h"
#include "core/sp_threads.h"

static SEXP list_get(SEXP list, SEXP names, const char *name) {
  R_xlen_t i, n = XLENGTH(list);
  for (i = 0; i < n; i++)
    if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) return VECTOR_ELT(list, i);
  return NULL;
}

static double whole(SEXP x, const char *model, const char *name, double lo, double hi) {
  double v;
  if ((TYPEOF(x) != REALSXP && TYPEOF(x) != INTSXP && TYPEOF(x) != LGLSXP) || XLENGTH(x) != 1)
    Rf_error("internal error: %s field '%s' must be one number", model, name);
  v = Rf_asReal(x);
  if (!(v >= lo && v <= hi) || v != (double)(int64_t)v)
    Rf_error("internal error: %s field '%s' = %.17g is not a whole number in [%.0f, %.0f]", model,
             name, v, lo, hi);
  return v;
}

static void put_len(void *base, const sp_field *f, R_xlen_t n) {
  char *dst;
  if (f->len_offset == SP_NO_LEN) return;
  dst = (char *)base + f->len_offset;
  switch (f->len_type) {
  case SP_F_INT: {
    int v = (int)n;
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_U32: {
    uint32_t v = (uint32_t)n;
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_SIZE: {
    size_t v = (size_t)n;
    memcpy(dst, &v, sizeof v);
    break;
  }
  default: {
    uint64_t v = (uint64_t)n;
    memcpy(dst, &v, sizeof v);
  }
  }
}

/* One field of `base` from x. */
static void read_field(const char *model, const sp_field *f, SEXP x, void *base) {
  char *dst = (char *)base + f->offset;
  switch (f->type) {
  case SP_F_DOUBLE: {
    double v;
    if (TYPEOF(x) != REALSXP || XLENGTH(x) != 1)
      Rf_error("internal error: %s field '%s' must be one double", model, f->name);
    v = REAL(x)[0];
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_INT: {
    int v = (int)whole(x, model, f->name, -2147483647.0, 2147483647.0);
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_U32: {
    uint32_t v = (uint32_t)whole(x, model, f->name, 0, 4294967295.0);
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_I64: {
    int64_t v = (int64_t)whole(x, model, f->name, -9007199254740992.0, 9007199254740992.0);
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_COUNT: {
    uint64_t v = (uint64_t)whole(x, model, f->name, 0, 4503599627370496.0);
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_SIZE: {
    size_t v = (size_t)whole(x, model, f->name, 0, 4503599627370496.0);
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_U64: {
    uint64_t v = sp_r_u64(x);
    memcpy(dst, &v, sizeof v);
    break;
  }
  case SP_F_REALS: {
    const double *p;
    if (TYPEOF(x) != REALSXP)
      Rf_error("internal error: %s field '%s' must be a double vector", model, f->name);
    p = XLENGTH(x) > 0 ? REAL(x) : NULL;
    memcpy(dst, &p, sizeof p);
    put_len(base, f, XLENGTH(x));
    break;
  }
  case SP_F_INTS: {
    const int *p;
    if (TYPEOF(x) != INTSXP)
      Rf_error("internal error: %s field '%s' must be an integer vector", model, f->name);
    p = XLENGTH(x) > 0 ? INTEGER(x) : NULL;
    memcpy(dst, &p, sizeof p);
    put_len(base, f, XLENGTH(x));
    break;
  }
  case SP_F_INPUT:
    break;
  case SP_F_NATIVE: {
    void *p = NULL;
    if (x != R_NilValue) {
      if (TYPEOF(x) != EXTPTRSXP)
        Rf_error("internal error: %s field '%s' must be an external pointer or NULL", model,
                 f->name);
      p = R_ExternalPtrAddr(x);
    }
    memcpy(dst, &p, sizeof p);
    break;
  }
  case SP_F_STRINGS: {
    const char **p;
    R_xlen_t i;
    if (TYPEOF(x) != STRSXP)
      Rf_error("internal error: %s field '%s' must be a character vector", model, f->name);
    p = (const char **)R_alloc((size_t)(XLENGTH(x) > 0 ? XLENGTH(x) : 1), sizeof *p);
    for (i = 0; i < XLENGTH(x); i++) p[i] = CHAR(STRING_ELT(x, i));
    memcpy(dst, &p, sizeof p);
    put_len(base, f, XLENGTH(x));
    break;
  }
  case SP_F_ROWS: {
    SEXP nm = Rf_getAttrib(x, R_NamesSymbol);
    R_xlen_t n, i;
    void *rows;
    int k;
    if (TYPEOF(x) != VECSXP || nm == R_NilValue || Rf_length(x) != f->nrows)
      Rf_error("internal error: %s field '%s' must be a list of %d named columns", model,
               f->name, f->nrows);
    n = sp_r_rows(x);
    rows = R_alloc((size_t)(n > 0 ? n : 1), f->row_size);
    memset(rows, 0, (size_t)(n > 0 ? n : 1) * f->row_size);
    for (k = 0; k < f->nrows; k++) {
      const sp_field *g = &f->rows[k];
      SEXP col = list_get(x, nm, g->name);
      const double *v;
      if (col == NULL || TYPEOF(col) != REALSXP || XLENGTH(col) != n)
        Rf_error("internal error: %s field '%s': column '%s' missing or not %lld doubles",
                 model, f->name, g->name, (long long)n);
      v = REAL(col);
      for (i = 0; i < n; i++) {
        char *d = (char *)rows + (size_t)i * f->row_size + g->offset;
        if (g->type == SP_F_DOUBLE) {
          memcpy(d, &v[i], sizeof(double));
        } else if (g->type == SP_F_U64 || g->type == SP_F_COUNT) {
          uint64_t u = (uint64_t)v[i];
          memcpy(d, &u, sizeof u);
        } else if (g->type == SP_F_I64) {
          int64_t s = (int64_t)v[i];
          memcpy(d, &s, sizeof s);
        } else if (g->type == SP_F_INT) {
          int s = (int)v[i];
          memcpy(d, &s, sizeof s);
        } else {
          Rf_error("internal error: %s row field '%s' has an unsupported type", model, g->name);
        }
      }
    }
    memcpy(dst, &rows, sizeof rows);
    put_len(base, f, n);
    break;
  }
  }
}

/* The job struct of model m from R's named list. */
static void *read_job(const sp_model *m, SEXP job) {
  SEXP names = Rf_getAttrib(job, R_NamesSymbol);
  void *base;
  int k;
  if (TYPEOF(job) != VECSXP || names == R_NilValue)
    Rf_error("internal error: the %s job must be a named list", m->name);
  if (Rf_length(job) != m->nfields)
    Rf_error("internal error: the %s job has %d fields, the model %d", m->name,
             Rf_length(job), m->nfields);
  base = R_alloc(1, m->job_size);
  memset(base, 0, m->job_size);
  for (k = 0; k < m->nfields; k++) {
    SEXP x = list_get(job, names, m->fields[k].name);
    if (x == NULL) Rf_error("internal error: the %s job lacks '%s'", m->name, m->fields[k].name);
    read_field(m->name, &m->fields[k], x, base);
  }
  return base;
}

/* Allocate output k into res[k] and point the out struct at it. */
static void alloc_output(const sp_model *m, const sp_output *o, const void *job, SEXP jlist,
                         void *out, SEXP res, int k) {
  uint64_t len = o->length(job);
  int type = o->type == SP_OUT_INTS ? INTSXP : REALSXP;
  SEXP v;
  void *p;
  if (len > (uint64_t)R_XLEN_T_MAX)
    Rf_error("internal error: %s output '%s' is too long", m->name, o->name);
  v = Rf_allocVector(type, (R_xlen_t)len);
  SET_VECTOR_ELT(res, k, v);
  /* fresh memory the engine or out_init writes first: in huge pages */
  sp_r_hugepages(type == INTSXP ? (void *)INTEGER(v) : (void *)REAL(v),
                 (size_t)len * (type == INTSXP ? sizeof(int) : sizeof(double)));
  if (o->copy_of != NULL) {
    SEXP src = list_get(jlist, Rf_getAttrib(jlist, R_NamesSymbol), o->copy_of);
    if (src == NULL || TYPEOF(src) != type || (uint64_t)XLENGTH(src) != len)
      Rf_error("internal error: %s output '%s' cannot start as '%s'", m->name, o->name,
               o->copy_of);
    if (len > 0)
      sp_threads_copy(type == INTSXP ? (void *)INTEGER(v) : (void *)REAL(v),
                      type == INTSXP ? (const void *)INTEGER(src) : (const void *)REAL(src),
                      len * (type == INTSXP ? sizeof(int) : sizeof(double)), sp_threads_get());
  }
  if (o->ndim > 0) {
    double d[3];
    int i;
    SEXP dim = PROTECT(Rf_allocVector(INTSXP, o->ndim));
    o->dims(job, d);
    for (i = 0; i < o->ndim; i++) INTEGER(dim)[i] = (int)d[i];
    Rf_setAttrib(v, R_DimSymbol, dim);
    UNPROTECT(1);
  }
  p = len == 0 && o->null_when_empty ? NULL
      : type == INTSXP                ? (void *)INTEGER(v)
                                      : (void *)REAL(v);
  memcpy((char *)out + o->offset, &p, sizeof p);
}

void *sp_r_model_rows(const char *model, const char *field, SEXP x, R_xlen_t *n) {
  const sp_model *m = sp_model_find(model);
  int k;
  if (m != NULL)
    for (k = 0; k < m->nfields; k++)
      if (m->fields[k].type == SP_F_ROWS && strcmp(m->fields[k].name, field) == 0) {
        void *base = R_alloc(1, m->job_size), *rows;
        read_field(m->name, &m->fields[k], x, base);
        memcpy(&rows, (char *)base + m->fields[k].offset, sizeof rows);
        *n = sp_r_rows(x);
        return rows;
      }
  Rf_error("internal error: model '%s' has no row table '%s'", model, field);
  return NULL;
}

/* A state as columns: an R list of the columns o->columns names, each a
 * double vector of o->length; their pointers into ptrs[which] (the others
 * left as they are). */
static SEXP alloc_columns(const sp_output *o, const void *job, double **ptrs) {
  int which[SP_OUT_MAXCOL], k, nc = o->columns(job, which);
  uint64_t len = o->length(job);
  SEXP v = PROTECT(Rf_allocVector(VECSXP, nc));
  for (k = 0; k < nc; k++) {
    SEXP c = Rf_allocVector(REALSXP, (R_xlen_t)len);
    SET_VECTOR_ELT(v, k, c);
    ptrs[which[k]] = REAL(c);
  }
  UNPROTECT(1);
  return v;
}

/* Structs filled by the engine as a named list of columns. */
static SEXP rows_as_columns(const sp_output *o, const void *job, const void *rows) {
  uint64_t len = o->length(job), i;
  int f;
  SEXP cols = PROTECT(Rf_allocVector(VECSXP, o->nrows));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, o->nrows));
  for (f = 0; f < o->nrows; f++) {
    const sp_field *g = &o->rows[f];
    const int isint = g->type == SP_F_INT;
    SEXP c = Rf_allocVector(isint ? INTSXP : REALSXP, (R_xlen_t)len);
    SET_VECTOR_ELT(cols, f, c);
    SET_STRING_ELT(nms, f, Rf_mkChar(g->name));
    for (i = 0; i < len; i++) {
      const char *src = (const char *)rows + (size_t)i * o->row_size + g->offset;
      if (isint) memcpy(&INTEGER(c)[i], src, sizeof(int));
      else memcpy(&REAL(c)[i], src, sizeof(double));
    }
  }
  Rf_setAttrib(cols, R_NamesSymbol, nms);
  UNPROTECT(2);
  return cols;
}

SEXP sp_r_model_run(SEXP name, SEXP job, SEXP gpu_key, SEXP devices, SEXP progress) {
  const sp_model *m;
  void *j, *out;
  sp_run_info info;
  sp_hooks hooks;
  sp_r_hooks_ctx ctx;
  int k, st = SP_OK, ndev, *devs;
  double work;
  SEXP res, nms, token, bar;
  if (TYPEOF(name) != STRSXP || XLENGTH(name) != 1 || TYPEOF(gpu_key) != STRSXP ||
      XLENGTH(gpu_key) != 1 || TYPEOF(devices) != INTSXP)
    Rf_error("internal error: sp_r_model_run(name, job, gpu_key, devices, progress)");
  m = sp_model_find(CHAR(STRING_ELT(name, 0)));
  if (m == NULL) Rf_error("internal error: no model '%s'", CHAR(STRING_ELT(name, 0)));
  devs = sp_r_devices(devices, &ndev);
  if (ndev > 0 && m->gpu == NULL) Rf_error("internal error: model '%s' has no GPU engine", m->name);
  j = read_job(m, job);
  if (m->prepare != NULL) sp_r_check(m->prepare(j));
  out = R_alloc(1, m->out_size);
  memset(out, 0, m->out_size);
  res = PROTECT(Rf_allocVector(VECSXP, m->noutputs + 1));
  nms = PROTECT(Rf_allocVector(STRSXP, m->noutputs + 1));
  for (k = 0; k < m->noutputs; k++) {
    SET_STRING_ELT(nms, k, Rf_mkChar(m->outputs[k].name));
    const sp_output *o = &m->outputs[k];
    if (o->type == SP_OUT_REALS || o->type == SP_OUT_INTS) {
      alloc_output(m, o, j, job, out, res, k);
    } else if (o->type == SP_OUT_COLUMNS) {
      SET_VECTOR_ELT(res, k, alloc_columns(o, j, (double **)((char *)out + o->offset)));
    } else if (o->type == SP_OUT_COLUMN_SETS) {
      uint64_t s, ns = o->sets(j);
      double **ptrs = (double **)R_alloc((size_t)(ns * SP_OUT_MAXCOL + 1), sizeof(double *));
      SEXP v = Rf_allocVector(VECSXP, (R_xlen_t)ns);
      SET_VECTOR_ELT(res, k, v);
      memset(ptrs, 0, (size_t)(ns * SP_OUT_MAXCOL + 1) * sizeof(double *));
      for (s = 0; s < ns; s++)
        SET_VECTOR_ELT(v, (R_xlen_t)s, alloc_columns(o, j, ptrs + s * SP_OUT_MAXCOL));
      memcpy((char *)out + o->offset, &ptrs, sizeof ptrs);
    } else if (o->type == SP_OUT_ROWS) {
      uint64_t len = o->length(j);
      void *rows = R_alloc((size_t)(len > 0 ? len : 1), o->row_size);
      memset(rows, 0, (size_t)(len > 0 ? len : 1) * o->row_size);
      memcpy((char *)out + o->offset, &rows, sizeof rows);
    }
  }
  SET_STRING_ELT(nms, m->noutputs, Rf_mkChar("run"));
  Rf_setAttrib(res, R_NamesSymbol, nms);
  if (m->out_init != NULL) m->out_init(j, out);
  memset(&info, 0, sizeof info);
  work = m->work(j);
  if (work > 0) {
    token = PROTECT(R_MakeUnwindCont());
    bar = PROTECT(sp_r_progress_bar(sp_r_int(progress), work, m->progress_name));
    sp_r_hooks_init(&ctx, &hooks, bar, token);
    sp_error_run_begin();
    if (ndev == 0) {
      int single = m->single_offset != SP_NO_LEN && *(const int *)((const char *)j + m->single_offset);
      st = m->cpu[single && m->cpu[1] != NULL ? 1 : 0](j, out, sp_threads_get(), &hooks, &info);
    } else {
      st = m->gpu(CHAR(STRING_ELT(gpu_key, 0)), j, out, devs, ndev, &hooks, &info);
    }
    sp_error_run_end();
    sp_r_hooks_end(&ctx);
    UNPROTECT(2);
  }
  sp_r_check(st);
  for (k = 0; k < m->noutputs; k++) {
    const sp_output *o = &m->outputs[k];
    if (o->type == SP_OUT_REAL)
      SET_VECTOR_ELT(res, k, Rf_ScalarReal(*(const double *)((const char *)out + o->offset)));
    else if (o->type == SP_OUT_COUNT)
      SET_VECTOR_ELT(res, k,
                     Rf_ScalarReal((double)*(const uint64_t *)((const char *)out + o->offset)));
    else if (o->type == SP_OUT_ROWS)
      SET_VECTOR_ELT(res, k, rows_as_columns(o, j, *(void *const *)((const char *)out + o->offset)));
  }
  SET_VECTOR_ELT(res, m->noutputs, sp_r_run_info(&info));
  UNPROTECT(2);
  return res;
}

/* .Call: columns picked out of an output at a stride -- for each 0-based
 * offset o of `from`, values[o], values[o + stride], ..., n of them (a
 * state of every path at one record of the trajectories, variable fastest:
 * R/sde-run.R, sde_states_at()); a list of double vectors. */
SEXP sp_r_model_pick(SEXP values, SEXP from, SEXP stride, SEXP n) {
  const uint64_t s = sp_r_count(stride), len = sp_r_count(n);
  const R_xlen_t k = XLENGTH(from);
  R_xlen_t c;
  SEXP out;
  if (TYPEOF(values) != REALSXP || TYPEOF(from) != REALSXP)
    Rf_error("internal error: sp_r_model_pick(values, from, stride, n) takes doubles");
  out = PROTECT(Rf_allocVector(VECSXP, k));
  for (c = 0; c < k; c++) {
    const double o = REAL(from)[c];
    const double *v = REAL(values);
    double *d;
    uint64_t i, at;
    if (!(o >= 0 && o == (double)(uint64_t)o) ||
        (len > 0 && (double)o + (double)(len - 1) * (double)s >= (double)XLENGTH(values)))
      Rf_error("internal error: sp_r_model_pick() reads past the values");
    SET_VECTOR_ELT(out, c, Rf_allocVector(REALSXP, (R_xlen_t)len));
    d = REAL(VECTOR_ELT(out, c));
    sp_r_hugepages(d, (size_t)len * sizeof(double));
    for (i = 0, at = (uint64_t)o; i < len; i++, at += s) d[i] = v[at];
  }
  UNPROTECT(1);
  return out;
}
