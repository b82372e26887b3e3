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
/* Rows of a named list of columns. */
R_xlen_t sp_r_rows(SEXP cols);

/* Asks Linux for transparent huge pages (madvise MADV_HUGEPAGE) over the
 * whole 4 kB pages of a fresh vector of `bytes` bytes at p, of 4 MiB or
 * more, before its first writes: one fault a 2 MB page instead of 512
 * (123 MB written once: 0.36 s -> 0.02 s on the development machine, whose
 * faults are slow); nothing elsewhere, or where the kernel's setting is
 * "never".  The contents and the numbers are those of any memory. */
void sp_r_hugepages(void *p, size_t bytes);

/* Device ids of an integer vector, in R_alloc'ed memory. */
int *sp_r_devices(SEXP devices, int *n);


#endif
