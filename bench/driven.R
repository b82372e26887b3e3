# Benchmark: driven Brownian ensembles (paper 001, PROG1), GPU and CPU.
#
#   Rscript bench/driven.R [gpu|cpu|all]      (default gpu)
#
# Prints one table (metric, value, unit, device, commit, date); the commit is
# SP_COMMIT or git's.  Reference points (issue 11, REFERENCES.md s. 3 and 8):
# PROG1 on a Tesla C1060 did 6.18e9 SRK2 steps/s (79 flop a step); target on
# an H100 >= 2e11 single-precision SRK2 steps/s.  CPU: against a vectorised
# base-R SRK2 of the same model on one core.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("gpu")

# Fig. 2 parameters of the paper (anomalous transport)
run <- function(n, periods, precision, backend, method = "srk2", a = 4.2, spp = 100,
                seed = 1) {
  x <- driven_brownian(n, a = a, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001,
                       periods = periods, steps_per_period = spp, method = method,
                       precision = precision, seed = seed, backend = backend,
                       progress = FALSE)
  steps <- nrow(attr(x, "paths")) * periods * spp
  list(rate = steps / attr(x, "seconds"), seconds = attr(x, "seconds"), x = x)
}

if (what %in% c("gpu", "all")) {
  dev <- gpu_first()$name[1]
  # warm up every variant (compile or load from the cache)
  for (p in c("single", "double")) for (m in c("srk2", "euler")) run(1024, 2, p, "gpu", m)
  n <- 2^22
  for (p in c("single", "double")) for (m in c("srk2", "euler")) {
    r <- run(n, if (p == "single") 1000 else 200, p, "gpu", m)
    add(sprintf("%s steps/s, %s, 2^22 paths", m, p), r$rate, "1/s", dev)
  }
  add("single SRK2 against PROG1 on a Tesla C1060 (6.18e9 steps/s)",
      rows[[1]]$value / 6.18e9, "x", dev)
  add("single SRK2 against the target (2e11 steps/s)", rows[[1]]$value / 2e11, "", dev)
  # a sweep of 100 drive amplitudes in one launch (the paper's default setup)
  t <- system.time(s <- driven_brownian(2^15, a = seq(0.1, 10, length.out = 100),
                                        omega = 4.9, f = 0.1, beta = 0.9, theta = 0.001,
                                        periods = 500, seed = 2, backend = "gpu",
                                        progress = FALSE))[["elapsed"]]
  add("sweep: 100 amplitudes x 2^15 paths x 500 periods, single: steps/s",
      100 * 2^15 * 500 * 100 / attr(s, "seconds"), "1/s", dev)
  add("sweep: wall time of the call", t, "s", dev)
  # Fig. 2 as in the paper: 2^19 paths, 2000 periods (C1060: 20 s single,
  # 13 min double)
  for (p in c("single", "double")) {
    r <- run(2^19, 2000, p, "gpu")
    add(sprintf("Fig. 2 (2^19 paths, 2000 periods), %s: wall time (C1060: %s)", p,
                if (p == "single") "20 s" else "780 s"), r$seconds, "s", dev)
  }
}

if (what %in% c("cpu", "all")) {
  cpu <- cpu_device()
  # vectorised base R, SRK2 of the same model, one core
  srk2_base <- function(n, periods, spp = 100) {
    a <- 4.2; omega <- 4.9; f <- 0.1; gamma <- 0.9; D0 <- 0.001
    dt <- 2 * pi / omega / spp
    sig <- sqrt(2 * gamma * D0 * dt)
    acc <- function(x, v, d) d - gamma * v - 2 * pi * cos(2 * pi * x)
    x <- stats::runif(n); v <- numeric(n)
    for (k in 0:(periods * spp - 1)) {
      j <- k %% spp
      d0 <- a * cos(2 * pi * j / spp) + f
      d1 <- a * cos(2 * pi * (j + 1) / spp) + f
      dW <- sig * stats::rnorm(n)
      a0 <- acc(x, v, d0)
      xp <- x + dt * v
      vp <- v + dt * a0 + dW
      x <- x + dt / 2 * (v + vp)
      v <- v + dt / 2 * (a0 + acc(xp, vp, d1)) + dW
    }
    x
  }
  t <- system.time(srk2_base(1e5, 2))[["elapsed"]]
  base_rate <- 1e5 * 200 / t
  add("vectorised base R, SRK2, one core", base_rate, "steps/s", cpu)
  # 4096 paths a thread
  cpu_scaling(function(k, p, m) run(4096 * k, 200, p, "cpu", m)$rate, c("srk2", "euler"),
              base_rate, cpu)
}

bench_print()
