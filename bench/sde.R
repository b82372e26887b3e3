# Benchmark: a user's SDE model (sde_model(), sde_run()) on the GPU.
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/sde.R [gpu|compile|lorenz|all]
#
# Prints one table (metric, value, unit, device, commit, date).  Targets
# (issue 24, "Your own model"):
# * the washboard written as a model reaches at least 0.9 of escape_times()'s
#   useful steps/s on the same case (Euler, single precision, 2^20 paths,
#   Delta U / theta = 6; bench/escape.R's case: V0 = 1, beta = 0.2,
#   gamma = 0.5, h = 0.01);
# * the first call (NVRTC and the C compiler) under 2 s, a call that reads
#   the compiled model from the disk cache under 0.3 s;
# * a Lorenz model with additive noise, fixed length, moments output, at
#   2^20 and 2^24 trajectories: trajectory-steps/s against DiffEqGPU's
#   published GPUEM figure (about 3e9 trajectory-steps/s) and against the
#   straightforward CUDA port bench/ports/lorenz.cu (built by
#   sh bench/ports/build.sh; its row is skipped when bench/ports/bin/lorenz
#   is missing).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("all")
dev <- gpu_first()$name[1]

V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
washboard <- bench_sde_washboard(V0, beta, gamma, 6)

sde_rate <- function(x) attr(x, "steps")[["useful"]] / attr(x, "seconds")

if (what %in% c("gpu", "all")) {
  n <- 2^20
  for (m in c("euler", "srk2")) {
    e <- escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h,
                      t_max = 1e9, method = m, precision = "single", seed = 1,
                      backend = "gpu", progress = FALSE)
    e_rate <- attr(e, "steps")[["useful"]] / attr(e, "seconds")
    for (fast in c(TRUE, FALSE)) { # the default (the hardware sine), then the polynomial
      old <- options(statphysgpu.sde_fast_math = fast)
      sde_run(washboard, 1000, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 10,
              method = m, backend = "gpu", seed = 1, progress = FALSE) # compile, load
      s <- sde_run(washboard, n, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 1e9,
                   method = m, precision = "single", seed = 1, backend = "gpu",
                   progress = FALSE)
      options(old)
      lab <- sprintf("single %s%s", m, if (fast) " (default: hardware sine after reduction)"
                     else ", polynomial sine (statphysgpu.sde_fast_math = FALSE)")
      add(sprintf("washboard model: useful steps/s, %s, DU/theta = 6, 2^20 paths", lab),
          sde_rate(s), "1/s")
      add(sprintf("washboard model / escape_times() (%.4g steps/s), %s (target >= 0.9)",
                  e_rate, lab), sde_rate(s) / e_rate, "")
      add(sprintf("washboard model: mean escape time %s (escape_times(): %.4g)", lab,
                  mean(e$value)), mean(s$value), "")
    }
  }
}

if (what %in% c("compile", "all")) {
  # a model no cache has seen (a new constant), in a fresh cache folder
  dir <- tempfile("sdecache")
  old <- options(statphysgpu.cache_dir = dir)
  fresh <- sde_model(drift = washboard$drift, noise = washboard$noise,
                     params = c(washboard$params, extra = runif(1)), stop = washboard$stop,
                     name = "fresh")
  t_gpu <- system.time(statphysgpu:::sde_gpu_load(fresh, 0L, "single", "euler"))[["elapsed"]]
  t_cpu <- system.time(statphysgpu:::sde_cpu_load(fresh))[["elapsed"]]
  small <- function(backend) {
    system.time(sde_run(fresh, 1000, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 1,
                        method = "srk2", backend = backend, seed = 1, progress = FALSE))[["elapsed"]]
  }
  # first calls: compile (NVRTC; R CMD SHLIB) and run a tiny case
  fresh2 <- fresh
  fresh2$hash <- paste0(fresh$hash, "b") # the same code under a new hash: compiled again
  fresh <- fresh2
  t_first_gpu <- small("gpu")
  t_first_cpu <- small("cpu")
  # cached: drop the session's loaded objects, read the files back
  assign("libs", list(), envir = statphysgpu:::.sp_sde)
  invisible(.Call(statphysgpu:::C_sp_r_gpu_modules_unload))
  t_cached_gpu <- small("gpu")
  t_cached_cpu <- small("cpu")
  t_warm <- small("gpu")
  options(old)
  add("model compile: NVRTC (sde.cu + the model's header), single euler", t_gpu, "s")
  add("model compile: R CMD SHLIB (both precisions)", t_cpu, "s")
  add("first call, GPU backend (NVRTC + run of 1000 paths) (target < 2 s)", t_first_gpu, "s")
  add("first call, CPU backend (C compiler + run of 1000 paths) (target < 2 s)", t_first_cpu, "s")
  add("call reading the disk cache, GPU (target < 0.3 s)", t_cached_gpu, "s")
  add("call reading the disk cache, CPU (target < 0.3 s)", t_cached_cpu, "s")
  add("call with the model loaded, GPU", t_warm, "s")
}

if (what %in% c("lorenz", "all")) {
  lorenz <- sde_model(drift = list(x = ~ sigma * (y - x), y = ~ x * (rho - z) - y,
                                   z = ~ x * y - b * z),
                      noise = list(x = ~ eps, y = ~ eps, z = ~ eps),
                      params = c(sigma = 10, rho = 28, b = 8 / 3, eps = 0.5), name = "lorenz")
  steps <- 1000
  port <- file.path(bench_dir, "ports", "bin", "lorenz")
  for (n in c(2^20, 2^24)) for (p in c("single", "double")) for (m in c("euler", "srk2")) {
    if (p == "double" && n == 2^24 && m == "srk2") next
    sde_run(lorenz, 1000, init = list(x = 1, y = 1, z = 1), dt = 0.001, t_max = 0.01,
            output = "moments", method = m, precision = p, backend = "gpu", seed = 1,
            progress = FALSE)
    r <- sde_run(lorenz, n, init = list(x = 1, y = 1, z = 1), dt = 0.001, t_max = steps * 0.001,
                 output = "moments", record_every = 100, method = m, precision = p,
                 backend = "gpu", seed = 1, progress = FALSE)
    rate <- n * steps / attr(r, "seconds")
    add(sprintf("Lorenz model, moments (11 records), %s %s, 2^%d trajectories: trajectory-steps/s",
                p, m, log2(n)), rate, "1/s")
    if (p == "single" && m == "euler") {
      add(sprintf("  / DiffEqGPU GPUEM (3e9 trajectory-steps/s), 2^%d", log2(n)), rate / 3e9, "")
      if (file.exists(port)) {
        out <- system2(port, c(format(n, scientific = FALSE), steps), stdout = TRUE)
        pr <- as.numeric(strsplit(grep("^rate", out, value = TRUE), " ")[[1]][2])
        add(sprintf("  straightforward CUDA port (bench/ports/lorenz.cu), 2^%d", log2(n)), pr, "1/s")
        add(sprintf("  model / port, 2^%d", log2(n)), rate / pr, "")
      }
    }
  }
}

bench_print()
