/* sp_model.h: a model as a descriptor, run by one generic entry.
 *
 * Every model of the package (and a user's compiled SDE model) is described
 * by an sp_model: its name, the fields of its job struct read by name from
 * R's list (never by position), its outputs (allocated by the entry, filled
 * by the engine, returned by name), its CPU entries (one per precision) and
 * its GPU entry.  The one generic .Call entry (src/r_model.c) does for all
 * of them what each model's glue once did again: read the job, check it,
 * allocate the outputs, the progress bar and the interrupt hooks, the
 * precision dispatch, the run information, and errors.  This is SimInf's
 * `SimInf_run` and dust's `dust_cpu<T>` for this package.
 *
 * A descriptor is plain C (no R API); the registry is src/models/. */
#ifndef SP_MODEL_H
#define SP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "sp_run.h"

/* Types of a job field, and what R sends for each. */
typedef enum {
  SP_F_DOUBLE, /* double <- a number */
  SP_F_INT,    /* int <- a logical, integer or whole number */
  SP_F_U32,    /* uint32_t <- a whole number in [0, 2^32) */
  SP_F_I64,    /* int64_t <- a whole number */
  SP_F_COUNT,  /* uint64_t <- a whole number in [0, 2^52] */
  SP_F_U64,    /* uint64_t <- c(lo, hi), two 32-bit halves (check_u64()) */
  SP_F_SIZE,   /* size_t <- a whole number (lengths) */
  SP_F_REALS,  /* const double * <- a double vector (NULL when empty) */
  SP_F_INTS,   /* const int * <- an integer vector (NULL when empty) */
  SP_F_INPUT,  /* not a field: an input only an output's copy_of reads */
  SP_F_NATIVE, /* void * <- an external pointer (a native symbol's address:
                  getNativeSymbolInfo()$address; NULL when R sends NULL) */
  SP_F_STRINGS, /* const char *const * <- a character vector (messages) */
  SP_F_ROWS    /* a struct array <- a named list of equal-length double
                  columns, one per field of `rows` (SP_F_DOUBLE, SP_F_U64 as
                  a whole double, SP_F_I64) */
} sp_field_type;

#define SP_NO_LEN ((size_t)-1)

typedef struct sp_field {
  const char *name;
  sp_field_type type;
  size_t offset;
  /* vectors and row tables: where their length goes (SP_NO_LEN: nowhere)
   * and its type (SP_F_INT, SP_F_U32, SP_F_COUNT or SP_F_SIZE) */
  size_t len_offset;
  sp_field_type len_type;
  /* SP_F_ROWS: the fields of one row and its size */
  const struct sp_field *rows;
  int nrows;
  size_t row_size;
} sp_field;

/* A scalar field. */
#define SP_FIELD(type, member, kind) \
  {#member, kind, offsetof(type, member), SP_NO_LEN, SP_F_INT, NULL, 0, 0}
/* A scalar field under another name (a member of a nested struct). */
#define SP_FIELD_AS(name, type, member, kind) \
  {name, kind, offsetof(type, member), SP_NO_LEN, SP_F_INT, NULL, 0, 0}
/* An input that only an output's copy_of reads. */
#define SP_INPUT(name) {name, SP_F_INPUT, 0, SP_NO_LEN, SP_F_INT, NULL, 0, 0}
/* A vector with its length in `len` (of type len_kind). */
#define SP_FIELD_VEC(type, member, kind, len, len_kind) \
  {#member, kind, offsetof(type, member), offsetof(type, len), len_kind, NULL, 0, 0}
/* A row table of `row` structs, their count in `len`. */
#define SP_FIELD_ROWS(type, member, len, len_kind, row, row_fields)                        \
  {#member, SP_F_ROWS, offsetof(type, member), offsetof(type, len), len_kind, row_fields, \
   (int)(sizeof row_fields / sizeof row_fields[0]), sizeof(row)}
#define SP_NFIELDS(a) ((int)(sizeof a / sizeof a[0]))

/* Outputs: vectors the entry allocates (their pointer stored in the out
 * struct at `offset`) or scalars the engine sets (returned as one double). */
typedef enum {
  SP_OUT_REALS,   /* double * */
  SP_OUT_INTS,    /* int * */
  SP_OUT_REAL,    /* a double in the out struct */
  SP_OUT_COUNT,   /* a uint64_t in the out struct */
  SP_OUT_COLUMNS, /* a state as columns: an R list of double vectors of
                     `length`, one per column `columns` names (indices into
                     SP_OUT_MAXCOL consecutive double * at `offset`; the
                     others NULL) -- the engine writes where R keeps them */
  SP_OUT_COLUMN_SETS, /* `sets` such states (snapshots): an R list of lists;
                        at `offset` a double ** to sets x SP_OUT_MAXCOL column
                        pointers (NULL where a column is not kept) */
  SP_OUT_ROWS        /* `length` structs of `row_size` bytes (one per replica,
                        say) that the engine fills, at `offset` a pointer to
                        them; returned as a named list of columns, one per
                        field of `rows` (SP_F_DOUBLE or SP_F_INT) */
} sp_out_type;

#define SP_OUT_MAXCOL 4

typedef struct {
  const char *name;
  sp_out_type type;
  size_t offset;
  /* vectors: elements (job read and checked) */
  uint64_t (*length)(const void *job);
  /* vectors: NULL in the out struct when the length is 0 */
  int null_when_empty;
  /* vectors: R dimensions (up to 3; ndim 0: a plain vector) */
  int ndim;
  void (*dims)(const void *job, double *dims);
  /* vectors: start as a copy of this job field (a vector of the same type
   * and length), the engine updating it in place; NULL: uninitialised (the
   * model's out_init sets what it must) */
  const char *copy_of;
  /* columns: which (up to SP_OUT_MAXCOL indices, returns how many); sets:
   * how many states */
  int (*columns)(const void *job, int *which);
  uint64_t (*sets)(const void *job);
  /* rows: the fields of one struct, and its size */
  const sp_field *rows;
  int nrows;
  size_t row_size;
} sp_output;

#define SP_OUT_VEC(type, member, kind, len) \
  {#member, kind, offsetof(type, member), len, 0, 0, NULL, NULL, NULL, NULL}
#define SP_OUT_SCALAR(type, member, kind) \
  {#member, kind, offsetof(type, member), NULL, 0, 0, NULL, NULL, NULL, NULL}
#define SP_OUT_SCALAR_AS(name, type, member, kind) \
  {name, kind, offsetof(type, member), NULL, 0, 0, NULL, NULL, NULL, NULL}

typedef int (*sp_cpu_entry)(const void *job, void *out, int nth, const sp_hooks *hooks,
                            sp_run_info *info);
typedef int (*sp_gpu_entry)(const char *key, const void *job, void *out, const int *devices,
                            int ndev, const sp_hooks *hooks, sp_run_info *info);

typedef struct {
  const char *name;       /* the name R's sim_run() gives */
  size_t job_size, out_size;
  const sp_field *fields;
  int nfields;
  const sp_output *outputs;
  int noutputs;
  /* After the job is read: derive what follows from it and check what R
   * cannot (sizes that must agree); SP_OK or a status with its message
   * (sp_fail).  May be NULL. */
  int (*prepare)(void *job);
  /* Progress units of the whole run (0: nothing to run) and the bar's name. */
  double (*work)(const void *job);
  const char *progress_name;
  /* Outputs' initial values (NaN, zero, ...) after allocation.  May be NULL. */
  void (*out_init)(const void *job, void *out);
  /* The int field of the job that selects single (or mixed) precision
   * (SP_NO_LEN: the model has one precision, cpu[0]). */
  size_t single_offset;
  sp_cpu_entry cpu[2]; /* [0] double, [1] single or mixed */
  sp_gpu_entry gpu;    /* NULL: no GPU engine */
} sp_model;

/* The registry (src/models/sp_models.c): the model called `name`, or NULL. */
const sp_model *sp_model_find(const char *name);

#endif
