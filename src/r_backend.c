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

/* The vector instructions of this CPU for the vector loop of a user's
 * model (sde_lanes.h): 4 where it has x86-64-v4's AVX-512 (F, BW, CD, DQ,
 * VL), 3 where x86-64-v3's AVX2, FMA and BMI1/2 (every processor with
 * those has the level's F16C, LZCNT and MOVBE), 0 otherwise (and on other
 * processors: their baseline's vectors). */
SEXP sp_r_cpu_simd_level(void) {
  int level = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
    level = 3;
  if (level == 3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    level = 4;
#endif
  return Rf_ScalarInteger(level);
}
