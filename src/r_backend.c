/* .Call glue: how the package was configured. */
#include "r_util.h"

#include "sp_config.h"

SEXP sp_r_build_info(void) {
  const char *names[] = {"gpu_enabled", "cuda_home_default", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(SP_GPU_ENABLED));
  SET_VECTOR_ELT(out, 1, Rf_mkString(SP_CUDA_HOME_DEFAULT));
  UNPROTECT(1);
  return out;
}
