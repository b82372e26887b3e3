/* .Call glue for the thread count. */
#include "r_util.h"

#include "core/sp_threads.h"

SEXP sp_r_threads_get(void) { return Rf_ScalarInteger(sp_threads_get()); }

SEXP sp_r_threads_set(SEXP n) {
  return Rf_ScalarInteger(sp_threads_set(sp_r_int(n)));
}

SEXP sp_r_threads_info(void) {
  SEXP out = PROTECT(Rf_allocVector(INTSXP, 4));
  INTEGER(out)[0] = sp_threads_get();
  INTEGER(out)[1] = sp_threads_openmp();
  INTEGER(out)[2] = sp_threads_procs();
  INTEGER(out)[3] = sp_threads_limit();
  UNPROTECT(1);
  return out;
}
