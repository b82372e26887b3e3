# Benchmark: a user's SDE model (sde_model(), sde_run()) on one CPU core.
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/sde-cpu.R [n]
#
# Prints one table (metric, value, unit, device, commit, date).  Target
# (issue 34, item 5): the washboard written as a model reaches at least 0.7
# of escape_times()'s useful steps/s on one core (sp_threads(1)), in each
# precision and method, on bench/sde.R's case (V0 = 1, beta = 0.2,
# gamma = 0.5, h = 0.01, Delta U / theta = 6, from the bottom of the well at
# rest), both timed in the same run; n paths each (default 1024: some
# 2.7e8 steps a run).  Before issue 34 the model ran at 0.12 of
# escape_times() (3.3e7 against 2.75e8 steps/s, single Euler): a path at a
# time through the compiled model, where the built-in engine advances 16
# paths in the lanes of the SIMD registers.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
n <- as.integer(bench_arg("1024"))
old <- sp_threads(1)
dev <- cpu_device()

V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
washboard <- bench_sde_washboard(V0, beta, gamma, 6)
rate <- function(x) attr(x, "steps")[["useful"]] / attr(x, "seconds")

for (p in c("single", "double")) for (m in c("euler", "srk2")) {
  e <- escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h, t_max = 1e9,
                    method = m, precision = p, seed = 1, backend = "cpu", progress = FALSE)
  sde_run(washboard, 16, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 1, method = m,
          precision = p, backend = "cpu", seed = 1, progress = FALSE) # compile, load
  s <- sde_run(washboard, n, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 1e9,
               method = m, precision = p, seed = 1, backend = "cpu", progress = FALSE)
  lab <- sprintf("%s %s, 1 thread, %d paths", p, m, n)
  add(sprintf("escape_times(): useful steps/s, %s", lab), rate(e), "1/s")
  add(sprintf("washboard model: useful steps/s, %s", lab), rate(s), "1/s")
  add(sprintf("washboard model / escape_times(), %s (target >= 0.7)", lab), rate(s) / rate(e), "")
  add(sprintf("washboard model: mean escape time, %s (escape_times(): %.4g)", lab, mean(e$value)),
      mean(s$value), "")
}
sp_threads(old)

bench_print()
