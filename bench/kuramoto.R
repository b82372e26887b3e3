# Kuramoto benchmarks (issue 11): mean-field oscillator-steps/s at n = 2^24
# against the HBM bandwidth bound, pair terms/s of the tiled all-pairs sum at
# n = 2^14 .. 2^17, and CPU figures against a vectorised base-R version.
#
#   Rscript bench/kuramoto.R [gpu|cpu|all]     (default all)
#
# Bytes per oscillator-step of the fused mean-field step (kuramoto.cu): each
# of the two passes reads the phase and the frequency once, the second also
# writes the phase: 3 phases + 2 frequencies = 5 words, 20 bytes in single
# precision, 40 in double (the partial sums are a few bytes per 1024
# oscillators).  Bandwidth bound = HBM bandwidth / bytes; the H100's
# measured 2.84 TB/s (REFERENCES.md section 8, float4 copy) gives 1.42e11
# oscillator-steps/s in single precision.  Target: >= 70 per cent of it.
# Pairs: target >= 2e12 pair terms/s in single precision (SRK2: two pair
# sums per step, so pair terms/s = 2 n^2 steps / s).
#
# The mean-field rate is the steady state (steady_rate below: the difference
# of two step counts); SP_KUR_VARIANTS=1 times every single-precision variant
# of the mean-field kernel (option statphysgpu.kuramoto_variant).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("all")
echo <- NULL
timed <- function(...) {
  x <- kuramoto(..., progress = FALSE)
  attr(x, "seconds")
}

# Steady-state rate: two runs of s and 2 s steps, rate = n s / (t(2 s) - t(s)),
# so that the set-up (the start phases and frequencies made and uploaded,
# kernel loading, the first rounds) and the final copy back cancel.
steady_rate <- function(n, steps, ...) {
  t1 <- timed(n, steps = steps, record_every = steps, ...)
  t2 <- timed(n, steps = 2 * steps, record_every = 2 * steps, ...)
  list(rate = n * steps / (t2 - t1), t1 = t1, t2 = t2)
}

if (what %in% c("gpu", "all") && any(sp_backends()$available[sp_backends()$backend == "gpu"])) {
  dev <- gpu_devices()$name[1]
  n <- 2^24
  # SP_KUR_VARIANTS=1: every single-precision tuning variant of the mean
  # field kernel (option statphysgpu.kuramoto_variant, R/gpu.R)
  variants <- if (Sys.getenv("SP_KUR_VARIANTS") == "1") c("", "_np", "_lb6", "_lb2") else ""
  for (prec in c("single", "double")) {
    for (v in if (prec == "single") variants else "") {
      options(statphysgpu.kuramoto_variant = v)
      kuramoto(n, K = 4, T = 1, dt = 0.01, steps = 2, seed = 1, backend = "gpu",
               precision = prec, progress = FALSE) # compile, warm
      steps <- if (prec == "single") 2000 else 1000
      r <- steady_rate(n, steps, K = 4, omega = kuramoto_lorentz(0.5), T = 1, dt = 0.01,
                       seed = 1, backend = "gpu", precision = prec)
      bound <- HBM / (if (prec == "single") 20 else 40)
      add(sprintf("mean field n = 2^24, %s%s (steady state)", prec, v), r$rate,
          "oscillator-steps/s", dev,
          sprintf("%.0f per cent of the bandwidth bound %.3g; %d and %d steps took %.3f and %.3f s",
                  100 * r$rate / bound, bound, steps, 2 * steps, r$t1, r$t2))
      if (v == "")
        add(sprintf("mean field n = 2^24, %s (one run of %d steps, set-up included)", prec,
                    2 * steps), n * 2 * steps / r$t2, "oscillator-steps/s", dev)
    }
  }
  options(statphysgpu.kuramoto_variant = NULL)
  for (k in 14:17) {
    n <- 2^k
    for (prec in c("single", "double")) {
      steps <- if (prec == "single") max(4, 2^(34 - 2 * k)) else max(2, 2^(31 - 2 * k))
      kuramoto(n, K = 4, T = 1, dt = 0.01, steps = 1, seed = 1, backend = "gpu",
               coupling = "pairs", precision = prec, progress = FALSE)
      s <- timed(n, K = 4, T = 1, dt = 0.01, steps = steps, record_every = steps, seed = 1,
                 backend = "gpu", coupling = "pairs", precision = prec)
      add(sprintf("pairs n = 2^%d, %s", k, prec), 2 * n^2 * steps / s, "pair terms/s", dev,
          if (prec == "single") "target 2e12" else "")
    }
  }
}

if (what %in% c("cpu", "all")) {
  cpu <- sprintf("CPU (%d threads)", sp_threads())
  # a straightforward vectorised base-R SRK2 mean-field step, one core
  base_r <- function(n, K, T, dt, steps) {
    x <- stats::runif(n, -pi, pi)
    w <- kuramoto_lorentz(0.5)(n)
    sig <- sqrt(2 * T * dt)
    drift <- function(x) { S <- sum(sin(x)); C <- sum(cos(x)); w + K / n * (cos(x) * S - sin(x) * C) }
    for (k in seq_len(steps)) {
      z <- stats::rnorm(n)
      f1 <- drift(x)
      xt <- x + dt * f1 + sig * z
      x <- x + dt / 2 * (f1 + drift(xt)) + sig * z
    }
    x
  }
  base_pairs <- function(n, K, T, dt, steps) {
    x <- stats::runif(n, -pi, pi)
    sig <- sqrt(2 * T * dt)
    drift <- function(x) K / n * rowSums(sin(outer(-x, x, "+")))
    for (k in seq_len(steps)) {
      z <- stats::rnorm(n)
      f1 <- drift(x)
      xt <- x + dt * f1 + sig * z
      x <- x + dt / 2 * (f1 + drift(xt)) + sig * z
    }
    x
  }
  n <- 2^20; steps <- 20
  t_base <- system.time(base_r(n, 4, 1, 0.01, steps))[["elapsed"]]
  add("mean field n = 2^20, base R (one core)", n * steps / t_base, "oscillator-steps/s", "CPU (1 core)")
  for (prec in c("single", "double")) {
    for (th in unique(c(1, sp_threads()))) {
      old <- sp_threads(th)
      s <- timed(n, K = 4, omega = kuramoto_lorentz(0.5), T = 1, dt = 0.01, steps = steps,
                 record_every = steps, seed = 1, backend = "cpu", precision = prec)
      sp_threads(old)
      add(sprintf("mean field n = 2^20, %s", prec), n * steps / s, "oscillator-steps/s",
          sprintf("CPU (%d thread%s)", th, if (th == 1) "" else "s"),
          sprintf("%.1fx base R", (n * steps / s) / (n * steps / t_base)))
    }
  }
  n <- 2^11; steps <- 4
  t_base <- system.time(base_pairs(n, 4, 1, 0.01, steps))[["elapsed"]]
  add("pairs n = 2^11, base R (one core)", 2 * n^2 * steps / t_base, "pair terms/s", "CPU (1 core)")
  for (prec in c("single", "double")) {
    for (th in unique(c(1, sp_threads()))) {
      old <- sp_threads(th)
      s <- timed(n, K = 4, T = 1, dt = 0.01, steps = steps * 4, record_every = steps * 4,
                 seed = 1, backend = "cpu", coupling = "pairs", precision = prec)
      sp_threads(old)
      add(sprintf("pairs n = 2^11, %s", prec), 2 * n^2 * steps * 4 / s, "pair terms/s",
          sprintf("CPU (%d thread%s)", th, if (th == 1) "" else "s"),
          sprintf("%.1fx base R", (2 * n^2 * steps * 4 / s) / (2 * n^2 * steps / t_base)))
    }
  }
}

bench_print("kuramoto")
