/* init.c: registration of the .Call entry points, nothing else. */
#define R_NO_REMAP
#include <R.h>
#include <R_ext/Rdynload.h>
#include <Rinternals.h>
#include <stdlib.h>

#include "core/sp_threads.h"
#include "gpu/sp_gpu.h"

/* the package's functions */
SEXP sp_r_model_run(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_model_pick(SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_vmc_lattice(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_vmc_check_coords(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_vmc_fingerprint(SEXP, SEXP, SEXP);
SEXP sp_r_lrmd_scan(SEXP, SEXP);
SEXP sp_r_lrmd_start_columns(SEXP);
SEXP sp_r_lrmd_start_flat(SEXP);
SEXP sp_r_lrmd_lazy(SEXP);
void sp_r_lrmd_init(DllInfo *dll);
SEXP sp_r_build_info(void);
SEXP sp_r_cpu_simd_level(void);
SEXP sp_r_threads_get(void);
SEXP sp_r_threads_set(SEXP);
SEXP sp_r_threads_info(void);
SEXP sp_r_gpu_status(void);
SEXP sp_r_gpu_devices(SEXP);
SEXP sp_r_nvrtc_archs(void);
SEXP sp_r_nvrtc_compile(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_gpu_module_loaded(SEXP, SEXP);
SEXP sp_r_gpu_module_load(SEXP, SEXP, SEXP);
SEXP sp_r_gpu_modules_unload(void);
SEXP sp_r_words_digest(SEXP);
SEXP sp_r_path_info(SEXP);
SEXP sp_r_file_read_private(SEXP);
SEXP sp_r_file_write_private(SEXP, SEXP);
SEXP sp_r_call_sizes(SEXP);
SEXP sp_r_mb_draws(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_graph_csr(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_mb_shape(SEXP, SEXP, SEXP);
SEXP sp_r_mb_stack(SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_mb_pair_chunks(SEXP);
SEXP sp_r_interrupts_hold(SEXP);
SEXP sp_r_interrupts_release(SEXP);
SEXP sp_r_he4_aziz(SEXP, SEXP);
SEXP sp_r_he4_jastrow(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_he4_local_energy(SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_dmc_draws(SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_xorsat_limits(void);

/* tests and benchmarks only (r_testing.c) */
SEXP sp_r_philox_block(SEXP, SEXP);
SEXP sp_r_xorsat_masks(SEXP, SEXP, SEXP);
SEXP sp_r_uniform_transform(SEXP, SEXP);
SEXP sp_r_math(SEXP, SEXP, SEXP);
SEXP sp_r_sincos_d_selects(SEXP);
SEXP sp_r_gpu_philox_moments(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_gpu_curand_check(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_gpu_alloc_test(SEXP, SEXP);
SEXP sp_r_gpu_mem_info(SEXP);
SEXP sp_r_gpu_live_allocations(void);
SEXP sp_r_gpu_reserve_test(SEXP, SEXP);
SEXP sp_r_gpu_release_test(SEXP);
SEXP sp_r_escape_starts(SEXP, SEXP, SEXP, SEXP);
SEXP sp_r_error_rule_test(void);
SEXP sp_r_mb_team_runs(void);

#define CALLDEF(name, n) {#name, (DL_FUNC)&name, n}

static const R_CallMethodDef call_methods[] = {
  CALLDEF(sp_r_model_run, 5),
  CALLDEF(sp_r_model_pick, 4),
  CALLDEF(sp_r_vmc_lattice, 5),
  CALLDEF(sp_r_dmc_draws, 4),
  CALLDEF(sp_r_vmc_check_coords, 5),
  CALLDEF(sp_r_vmc_fingerprint, 3),
  CALLDEF(sp_r_lrmd_scan, 2),
  CALLDEF(sp_r_lrmd_start_columns, 1),
  CALLDEF(sp_r_lrmd_start_flat, 1),
  CALLDEF(sp_r_lrmd_lazy, 1),
  CALLDEF(sp_r_build_info, 0),
  CALLDEF(sp_r_cpu_simd_level, 0),
  CALLDEF(sp_r_threads_get, 0),
  CALLDEF(sp_r_threads_set, 1),
  CALLDEF(sp_r_threads_info, 0),
  CALLDEF(sp_r_gpu_status, 0),
  CALLDEF(sp_r_gpu_devices, 1),
  CALLDEF(sp_r_nvrtc_archs, 0),
  CALLDEF(sp_r_nvrtc_compile, 5),
  CALLDEF(sp_r_gpu_module_loaded, 2),
  CALLDEF(sp_r_gpu_module_load, 3),
  CALLDEF(sp_r_gpu_modules_unload, 0),
  CALLDEF(sp_r_words_digest, 1),
  CALLDEF(sp_r_path_info, 1),
  CALLDEF(sp_r_file_read_private, 1),
  CALLDEF(sp_r_file_write_private, 2),
  CALLDEF(sp_r_call_sizes, 1),
  CALLDEF(sp_r_mb_draws, 8),
  CALLDEF(sp_r_graph_csr, 5),
  CALLDEF(sp_r_mb_shape, 3),
  CALLDEF(sp_r_mb_pair_chunks, 1),
  CALLDEF(sp_r_mb_stack, 4),
  CALLDEF(sp_r_interrupts_hold, 1),
  CALLDEF(sp_r_interrupts_release, 1),
  CALLDEF(sp_r_he4_aziz, 2),
  CALLDEF(sp_r_he4_jastrow, 6),
  CALLDEF(sp_r_he4_local_energy, 4),
  CALLDEF(sp_r_xorsat_limits, 0),
  /* tests and benchmarks */
  CALLDEF(sp_r_philox_block, 2),
  CALLDEF(sp_r_xorsat_masks, 3),
  CALLDEF(sp_r_uniform_transform, 2),
  CALLDEF(sp_r_math, 3),
  CALLDEF(sp_r_sincos_d_selects, 1),
  CALLDEF(sp_r_gpu_philox_moments, 7),
  CALLDEF(sp_r_gpu_curand_check, 7),
  CALLDEF(sp_r_gpu_alloc_test, 2),
  CALLDEF(sp_r_gpu_mem_info, 1),
  CALLDEF(sp_r_gpu_live_allocations, 0),
  CALLDEF(sp_r_gpu_reserve_test, 2),
  CALLDEF(sp_r_gpu_release_test, 1),
  CALLDEF(sp_r_escape_starts, 4),
  CALLDEF(sp_r_error_rule_test, 0),
  CALLDEF(sp_r_mb_team_runs, 0),
  {NULL, NULL, 0}
};

void R_init_statphysgpu(DllInfo *dll) {
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  sp_threads_init();
  sp_r_lrmd_init(dll); /* the ALTREP class of lrmd()'s lazy starts */
}

void R_unload_statphysgpu(DllInfo *dll) {
  (void)dll;
  sp_gpu_shutdown();
}
