# Drive one GPU configuration for a profiler (ncu), and print where the
# variant's cached cubin lies (for cuobjdump).
#   ncu ... Rscript bench/profile.R escape|rng
suppressPackageStartupMessages(library(statphysgpu))
what <- commandArgs(trailingOnly = TRUE)[1]
if (what == "escape") {
  x <- escape_times(2^20, gamma = 0.5, V0 = 1, beta = 0.2,
                    theta = barrier_height(0.5, 1) / 6, dt = 0.01, t_max = 1e9,
                    method = "euler", precision = "single", seed = 1,
                    backend = "gpu", progress = FALSE)
  reg <- statphysgpu:::gpu_kernel_registry()$escape
  cat("CUBIN", statphysgpu:::kernel_cache_path("escape", reg,
      reg$variants$single_euler_fixed, list(arch = "sm_90", cubin = TRUE)), "\n")
} else {
  m <- statphysgpu:::gpu_normal_moments(2^36, seed = 1, precision = "single")
  reg <- statphysgpu:::gpu_kernel_registry()$rng
  cat("CUBIN", statphysgpu:::kernel_cache_path("rng", reg, reg$variants$default,
      list(arch = "sm_90", cubin = TRUE)), "\n")
}
