/* r_util.h: helpers shared by the .Call glue files (R API allowed here). */
#ifndef SP_R_UTIL_H
#define SP_R_UTIL_H

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <stdint.h>

/* A 64-bit value sent by R as c(lo, hi) (see check_u64() in R/checks.R). */
uint64_t sp_r_u64(SEXP x);
/* Element i of a double vector of whole numbers in [0, 2^32). */
uint32_t sp_r_u32(SEXP x, R_xlen_t i);
/* A count: a whole double in [0, 2^52]. */
uint64_t sp_r_count(SEXP x);
/* A length-one logical/integer/double as int. */
int sp_r_int(SEXP x);
double sp_r_dbl(SEXP x);
/* stop() with a condition of class c(cls, "statphysgpu_error", "error",
 * "condition") and no call (the message names what failed). */
void sp_r_stop_classed(const char *msg, const char *cls);
/* Turn a failed status of the C core into an R error; returns on SP_OK. */
void sp_r_check(int status);
/* A named double vector (statistics by name, not by position). */
SEXP sp_r_named_reals(const char *const *names, const double *values, int n);
/* Fields of a struct shared with the engines (an *_args.h struct), filled
 * from a named list of equal-length double columns -- by name, so that the
 * R side and the struct cannot drift apart by position. */
typedef enum { SP_R_DOUBLE, SP_R_U64, SP_R_I64 } sp_r_type;
typedef struct {
  const char *name;
  size_t offset;
  sp_r_type type;
} sp_r_field;
/* out: n elements of `size` bytes.  Errors when a field is missing from
 * `cols`, `cols` has a column no field takes, or the lengths differ;
 * returns n. */
R_xlen_t sp_r_struct_array(SEXP cols, const sp_r_field *fields, int nfields, void *out,
                           size_t size);
/* Rows of a named list of columns. */
R_xlen_t sp_r_rows(SEXP cols);

/* Device ids of an integer vector, in R_alloc'ed memory. */
int *sp_r_devices(SEXP devices, int *n);


#endif
