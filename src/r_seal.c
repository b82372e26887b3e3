/* .Call glue of the seal of a result's fields (R/results-integrity.R). */
#include <stdio.h>

#include "r_util.h"

#include "core/sp_digest.h"
#include "core/sp_threads.h"

/* sp_words_digest() of a double vector, as R's sp_words_digest() prints it:
 * "s1,s2". */
SEXP sp_r_words_digest(SEXP x) {
  uint64_t d[2];
  char buf[64];
  if (TYPEOF(x) != REALSXP) Rf_error("internal error: sp_r_words_digest takes doubles");
  sp_words_digest(REAL(x), (size_t)XLENGTH(x), sp_threads_get(), d);
  snprintf(buf, sizeof buf, "%llu,%llu", (unsigned long long)d[0], (unsigned long long)d[1]);
  return Rf_mkString(buf);
}
