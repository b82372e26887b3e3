# Same-machine comparison of two builds of the user-model engine (issue 34
# item 5): the washboard as an sde_model() against escape_times() on the
# same case (2^20 paths, Delta U / theta = 6, single precision, Euler and
# SRK2), and the Lorenz model of bench/sde.R (2^20 trajectories, 1000
# steps, single Euler) with nothing recorded but the end (one record) and
# with 11 moment records.
#
#   SP_LIB=<library holding the build> SP_LABEL=<name> Rscript bench/sde-ab.R
#
# Run the builds alternately (bench/device.sh stage ab:sde-ab.R:<commit>:<k>);
# one row a measurement: useful steps/s (model, escape_times(), ratio) and
# the mean escape times (the same law in both builds).
bench_dir <- local({ # this script's folder, where ab-common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
ab_reps <- 1
source(file.path(bench_dir, "ab-common.R"))
options(statphysgpu.cache_dir = tempfile("sdeab"))
# SP_AB_BPS: option statphysgpu.sde_blocks_per_sm (the passage kernel's cap)
if (nzchar(Sys.getenv("SP_AB_BPS"))) options(statphysgpu.sde_blocks_per_sm = as.integer(Sys.getenv("SP_AB_BPS")))
# SP_AB_CHUNK: option statphysgpu.sde_chunk (the passage kernel's steps a chunk)
if (nzchar(Sys.getenv("SP_AB_CHUNK"))) options(statphysgpu.sde_chunk = as.integer(Sys.getenv("SP_AB_CHUNK")))
V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
washboard <- sde_model(drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
                       noise = list(v = ~ sqrt(2 * beta * theta)),
                       params = c(beta = beta, V0 = V0, gamma = gamma, theta = DU / 6),
                       stop = ~ x > pi - asin(gamma), name = "washboard")
lorenz <- sde_model(drift = list(x = ~ sigma * (y - x), y = ~ x * (rho - z) - y,
                                 z = ~ x * y - b * z),
                    noise = list(x = ~ eps, y = ~ eps, z = ~ eps),
                    params = c(sigma = 10, rho = 28, b = 8 / 3, eps = 0.5), name = "lorenz")
rate <- function(x) attr(x, "steps")[["useful"]] / attr(x, "seconds")
# SP_AB_WN, SP_AB_TMAX: the washboard's paths and t_max (default 2^20 and
# 1e9: every path escapes, and the run ends in a tail of the slowest paths;
# 2^22 and 400: nearly all are censored together, the throughput alone);
# SP_AB_LORENZ = 0 skips the Lorenz model
n <- as.numeric(Sys.getenv("SP_AB_WN", 2^20))
t_max <- as.numeric(Sys.getenv("SP_AB_TMAX", 1e9))
for (m in c("euler", "srk2")) {
  sde_run(washboard, 1000, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 10,
          method = m, backend = "gpu", seed = 1, progress = FALSE) # compile, load
  escape_times(1000, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h, t_max = 10,
               method = m, precision = "single", seed = 1, backend = "gpu", progress = FALSE)
}
for (i in seq_len(reps)) for (m in c("euler", "srk2")) {
  e <- escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h,
                    t_max = t_max, method = m, precision = "single", seed = 1,
                    backend = "gpu", progress = FALSE)
  s <- sde_run(washboard, n, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = t_max,
               method = m, precision = "single", seed = 1, backend = "gpu", progress = FALSE)
  ab_row("washboard %s (%g paths, t_max %g) rep %d: model %.4g, escape_times() %.4g useful steps/s, ratio %.4f; mean %.6g / %.6g",
         m, n, t_max, i, rate(s), rate(e), rate(s) / rate(e), mean(s$value), mean(e$value))
}
steps <- 1000
n <- as.numeric(Sys.getenv("SP_AB_N", 2^20)) # the Lorenz trajectories (default 2^20)
for (rec in if (Sys.getenv("SP_AB_LORENZ", "1") != "0") c(1000, 100)) {
  sde_run(lorenz, 1000, init = list(x = 1, y = 1, z = 1), dt = 0.001, t_max = 0.01,
          output = "moments", record_every = 10, backend = "gpu", seed = 1, progress = FALSE)
  for (i in seq_len(reps)) {
    r <- sde_run(lorenz, n, init = list(x = 1, y = 1, z = 1), dt = 0.001,
                 t_max = steps * 0.001, output = "moments", record_every = rec,
                 method = "euler", precision = "single", backend = "gpu", seed = 1,
                 progress = FALSE)
    ab_row("lorenz euler, 2^%g trajectories, record_every %d rep %d: %.4g trajectory-steps/s",
           log2(n), rec, i,
           n * steps / attr(r, "seconds"))
  }
}
# the straightforward CUDA port (records every 100 steps), with and without
# --use_fast_math (bench/ports/build.sh)
for (b in if (Sys.getenv("SP_AB_LORENZ", "1") != "0") c("lorenz", "lorenz_ieee")) {
  port <- file.path(bench_dir, "ports", "bin", b)
  if (!file.exists(port)) next
  out <- system2(port, c(format(n, scientific = FALSE), steps), stdout = TRUE, stderr = FALSE)
  ab_row("port %s (bench/ports/lorenz.cu, records every 100): %s trajectory-steps/s", b,
         strsplit(grep("^rate", out, value = TRUE), " ")[[1]][2])
}
