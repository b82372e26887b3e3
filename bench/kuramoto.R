# Kuramoto benchmarks (issues 11, 22): mean-field oscillator-steps/s at n =
# 2^24 against the HBM bandwidth bound (SRK2 and Euler), pair terms/s of the
# tiled all-pairs sum at n = 2^14 .. 2^17, the whole call against the
# engine (fixed cost a call), and CPU figures against a vectorised base-R
# version.
#
#   Rscript bench/kuramoto.R [gpu|cpu|all]     (default all)
#
# Bytes per oscillator-step of the fused mean-field step (the built-in kernels): each
# of the two passes reads the phase and the frequency once, the second also
# writes the phase: 3 phases + 2 frequencies = 5 words, 20 bytes in single
# precision, 40 in double (the partial sums are a few bytes per 1024
# oscillators).  Bandwidth bound = HBM bandwidth / bytes; the H100's
# measured 2.84 TB/s (REFERENCES.md section 8, float4 copy) gives 1.42e11
# oscillator-steps/s in single precision.  Target: >= 70 per cent of it.
# Euler (method = "euler") is one fused pass a step: it reads the phase and
# the frequency and writes the phase, 3 words, 12 bytes in single precision
# (24 in double): bound 2.37e11 oscillator-steps/s (1.18e11 in double);
# with all frequencies equal (omega one number) no frequency is read: 8
# bytes, bound 3.55e11.  A straightforward port (one thread an oscillator,
# a reduction kernel and an update kernel a step, cuRAND) runs Euler at
# 1.41e11 with noise (issue 22).
# Pairs: target >= 2e12 pair terms/s in single precision (SRK2: two pair
# sums per step, so pair terms/s = 2 n^2 steps / s).
#
# The mean-field rate is the steady state (steady_rate below: the difference
# of two step counts).  (The byte counts above are those of the built-in
# engine's kernels, deleted in issue 50; kuramoto() runs on the declared
# many-body engine since, whose passes read and write the same words.)
#
# The whole call (issue 22): a user waits for kuramoto(), not for its
# kernel.  whole_call() times the call (system.time, all of it: checks, the
# start, the run, the result) at two run lengths; the fixed cost a call is
# the intercept of the two, never the wall time less `seconds`; the engine
# rate uses the result's `seconds` (the engine's own time).  Target: whole
# call <= 1.1 x engine + 0.15 s.  Straightforward CUDA ports, where built
# (bench/ports/bin/*kuramoto*: `<port> n steps` prints "rate <value>
# <unit>"), are run in the same session.
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

# The whole call at steps / 2 and steps (record_every = steps / 10, at least 1: a user's
# records), each the best of `reps`: wall times, the engine's seconds, the
# fixed cost (intercept of the wall times), and the rates at `steps`.
whole_call <- function(n, steps, reps = 2, ...) {
  one <- function(s) {
    best <- c(wall = Inf, engine = Inf)
    for (i in seq_len(reps)) {
      invisible(gc())
      w <- system.time(x <- kuramoto(n, steps = s, record_every = max(1, s / 10), progress = FALSE,
                                     ...))[["elapsed"]]
      if (w < best[["wall"]]) best <- c(wall = w, engine = attr(x, "seconds"))
    }
    best
  }
  a <- one(steps / 2)
  b <- one(steps)
  fixed <- 2 * a[["wall"]] - b[["wall"]] # intercept of wall(s) = fixed + s / rate
  list(wall = b[["wall"]], engine = b[["engine"]], wall_half = a[["wall"]], fixed = fixed,
       whole_rate = n * steps / b[["wall"]], engine_rate = n * steps / b[["engine"]],
       ok = b[["wall"]] <= 1.1 * b[["engine"]] + 0.15)
}

add_whole_call <- function(label, w, n, steps, device) {
  add(sprintf("%s: whole call", label), w$whole_rate, "oscillator-steps/s", device,
      sprintf("%.3f s for %d steps (%.3f s for %d)", w$wall, steps, w$wall_half, steps / 2))
  add(sprintf("%s: engine (seconds)", label), w$engine_rate, "oscillator-steps/s", device,
      sprintf("%.3f s", w$engine))
  add(sprintf("%s: fixed cost a call (intercept)", label), w$fixed, "s", device,
      sprintf("whole <= 1.1 x engine + 0.15 s: %s (%.3f <= %.3f)",
              if (w$ok) "yes" else "NO", w$wall, 1.1 * w$engine + 0.15))
}

# Straightforward ports (bench/ports, built with nvcc on the GPU host), if
# built: every executable whose name has "kuramoto", run as `<port> n steps`.
run_ports <- function(n, steps, device) {
  bin <- file.path(bench_dir, "ports", "bin")
  ports <- list.files(bin, pattern = "kuramoto", full.names = TRUE)
  if (!length(ports)) {
    add("straightforward CUDA ports", NA, "", device, sprintf("not built (%s)", bin))
    return(invisible())
  }
  for (p in ports) {
    out <- tryCatch(system2(p, c(format(n, scientific = FALSE), steps), stdout = TRUE),
                    error = function(e) character())
    l <- grep("^rate ", out, value = TRUE)
    v <- if (length(l)) strsplit(l[1], " +")[[1]] else c("rate", NA, "")
    add(sprintf("port %s, n = %s, %d steps", basename(p), format(n, scientific = FALSE),
                steps), as.numeric(v[2]), v[3], device)
  }
}

if (what %in% c("gpu", "all") && any(sp_backends()$available[sp_backends()$backend == "gpu"])) {
  dev <- gpu_devices()$name[1]
  n <- 2^24
  for (prec in c("single", "double")) {
    kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = 2, seed = 1, backend = "gpu",
             precision = prec, progress = FALSE) # compile, warm
    steps <- if (prec == "single") 2000 else 1000
    r <- steady_rate(n, steps, K = 4, frequencies = kuramoto_lorentz(0.5), theta = 1, dt = 0.01,
                     seed = 1, backend = "gpu", precision = prec)
    bound <- HBM / (if (prec == "single") 20 else 40)
    add(sprintf("mean field n = 2^24, %s (steady state)", prec), r$rate,
        "oscillator-steps/s", dev,
        sprintf("%.0f per cent of the bandwidth bound %.3g; %d and %d steps took %.3f and %.3f s",
                100 * r$rate / bound, bound, steps, 2 * steps, r$t1, r$t2))
    add(sprintf("mean field n = 2^24, %s (one run of %d steps, set-up included)", prec,
                2 * steps), n * 2 * steps / r$t2, "oscillator-steps/s", dev)
  }
  # Euler-Maruyama: one pass a step (12 bytes single, 24 double; 8 with
  # omega one number)
  for (prec in c("single", "double")) {
    kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = 2, seed = 1, backend = "gpu",
             precision = prec, method = "euler", progress = FALSE)
    steps <- if (prec == "single") 4000 else 2000
    for (om in c("lorentz", "constant")) {
      if (om == "constant" && prec == "double") next
      omega <- if (om == "lorentz") kuramoto_lorentz(0.5) else 0
      r <- steady_rate(n, steps, K = 4, frequencies = omega, theta = 1, dt = 0.01, seed = 1,
                       backend = "gpu", precision = prec, method = "euler")
      bytes <- (if (om == "lorentz") 3 else 2) * (if (prec == "single") 4 else 8)
      add(sprintf("Euler mean field n = 2^24, %s, omega %s (steady state)", prec,
                  if (om == "lorentz") "Lorentzian" else "one number"), r$rate,
          "oscillator-steps/s", dev,
          sprintf("%d bytes a step: %.0f per cent of the bound %.3g; %d and %d steps took %.3f and %.3f s",
                  bytes, 100 * r$rate / (HBM / bytes), HBM / bytes, steps, 2 * steps, r$t1, r$t2))
    }
  }
  # the whole call against the engine (issue 22's case: mean field, 2^24,
  # single, with noise, 5000 steps), SRK2 and Euler, and the ports
  for (m in c("srk2", "euler")) {
    w <- whole_call(n, 5000, K = 4, frequencies = kuramoto_lorentz(0.5), theta = 1, dt = 0.01, seed = 1,
                    backend = "gpu", precision = "single", method = m)
    add_whole_call(sprintf("%s mean field n = 2^24, single, 5000 steps", m), w, n, 5000, dev)
  }
  run_ports(n, 5000, dev)
  for (k in 14:17) {
    n <- 2^k
    for (prec in c("single", "double")) {
      steps <- if (prec == "single") max(4, 2^(34 - 2 * k)) else max(2, 2^(31 - 2 * k))
      kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = 1, seed = 1, backend = "gpu",
               coupling = "pairs", precision = prec, progress = FALSE)
      s <- timed(n, K = 4, theta = 1, dt = 0.01, steps = steps, record_every = steps, seed = 1,
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
  # the fixed cost of a call on the CPU at 2^24 (intercept of 2 and 4 steps)
  for (m in c("srk2", "euler")) for (om in c("0", "lorentz")) {
    w <- whole_call(2^24, 4, K = 4, frequencies = if (om == "0") 0 else kuramoto_lorentz(0.5), theta = 1,
                    dt = 0.01, seed = 1, backend = "cpu", precision = "single", method = m)
    add(sprintf("CPU %s mean field n = 2^24, single, omega %s: fixed cost a call (intercept)", m,
                if (om == "0") "0" else "Lorentzian"), w$fixed, "s", cpu,
        sprintf("whole call %.3f s for 4 steps, engine %.3f s", w$wall, w$engine))
  }
  n <- 2^20; steps <- 20
  t_base <- system.time(base_r(n, 4, 1, 0.01, steps))[["elapsed"]]
  add("mean field n = 2^20, base R (one core)", n * steps / t_base, "oscillator-steps/s", "CPU (1 core)")
  for (prec in c("single", "double")) {
    for (th in unique(c(1, sp_threads()))) {
      old <- sp_threads(th)
      for (m in c("srk2", "euler")) {
        s <- timed(n, K = 4, frequencies = kuramoto_lorentz(0.5), theta = 1, dt = 0.01, steps = steps,
                   record_every = steps, seed = 1, backend = "cpu", precision = prec, method = m)
        add(sprintf("mean field n = 2^20, %s, %s", prec, m), n * steps / s, "oscillator-steps/s",
            sprintf("CPU (%d thread%s)", th, if (th == 1) "" else "s"),
            sprintf("%.1fx base R (SRK2)", (n * steps / s) / (n * steps / t_base)))
      }
      sp_threads(old)
    }
  }
  n <- 2^11; steps <- 4
  t_base <- system.time(base_pairs(n, 4, 1, 0.01, steps))[["elapsed"]]
  add("pairs n = 2^11, base R (one core)", 2 * n^2 * steps / t_base, "pair terms/s", "CPU (1 core)")
  for (prec in c("single", "double")) {
    for (th in unique(c(1, sp_threads()))) {
      old <- sp_threads(th)
      s <- timed(n, K = 4, theta = 1, dt = 0.01, steps = steps * 4, record_every = steps * 4,
                 seed = 1, backend = "cpu", coupling = "pairs", precision = prec)
      sp_threads(old)
      add(sprintf("pairs n = 2^11, %s", prec), 2 * n^2 * steps * 4 / s, "pair terms/s",
          sprintf("CPU (%d thread%s)", th, if (th == 1) "" else "s"),
          sprintf("%.1fx base R", (2 * n^2 * steps * 4 / s) / (2 * n^2 * steps / t_base)))
    }
  }
}

bench_print("kuramoto")
