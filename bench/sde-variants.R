# Benchmark: the washboard written as a model (bench/sde.R's case: 2^20
# paths, Delta U / theta = 6, single precision, V0 = 1, beta = 0.2,
# gamma = 0.5, h = 0.01) in each variant of the passage kernel, against
# escape_times() in the same run:
#   sine: the polynomial (sp_sin_pi_f, statphysgpu.sde_fast_math = FALSE)
#         or the hardware's after a reduction by pi (sp_sin_hw_f, the
#         default);
#   registers: as ptxas chooses, or capped for 8 or 10 blocks of 128
#         threads an SM (statphysgpu.sde_blocks_per_sm = 8: 64 registers,
#         the passage kernel's before its fast macro-steps' copy of the
#         model, which ptxas gives 80; 10: 48 registers, escape's).
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/sde-variants.R [reps]
# Prints one table (metric, value, unit, device, commit, date): useful
# steps/s and the ratio to escape_times() (target >= 0.9, Euler), the best
# of `reps` runs (default 2) of each.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
reps <- as.integer(bench_arg("2"))
dev <- gpu_first()$name[1]

V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01; n <- 2^20
DU <- barrier_height(gamma, V0)
washboard <- bench_sde_washboard(V0, beta, gamma, 6)
rate <- function(x) attr(x, "steps")[["useful"]] / attr(x, "seconds")
best <- function(f) max(vapply(seq_len(reps), function(i) rate(f()), 0))

for (m in c("euler", "srk2")) {
  e_rate <- best(function() escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6,
                                         dt = h, t_max = 1e9, method = m, precision = "single",
                                         seed = 1, backend = "gpu", progress = FALSE))
  add(sprintf("escape_times(): useful steps/s, single %s", m), e_rate, "1/s")
  for (fast in c(FALSE, TRUE)) for (bps in c(0L, 8L, 10L)) {
    old <- options(statphysgpu.sde_fast_math = fast, statphysgpu.sde_blocks_per_sm = bps)
    run <- function(k, t_max) sde_run(washboard, k, init = list(x = ~ asin(gamma), v = 0), dt = h,
                                      t_max = t_max, method = m, precision = "single", seed = 1,
                                      backend = "gpu", progress = FALSE)
    run(1000, 10) # compile, load
    r <- best(function() run(n, 1e9))
    options(old)
    lab <- sprintf("single %s, %s sine, registers %s", m, if (fast) "hardware (default)" else "polynomial",
                   if (bps > 0) sprintf("capped (%d)", 65536L %/% (128L * bps) %/% 8L * 8L) else "free")
    add(sprintf("washboard model: useful steps/s, %s", lab), r, "1/s")
    add(sprintf("washboard model / escape_times(), %s (target >= 0.9)", lab), r / e_rate, "")
  }
}
bench_print()
