# Benchmark: escape times and switching currents (paper 000), GPU and CPU.
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/escape.R [gpu|cpu|all|fig11 [cpu]]
#
# Prints one table (metric, value, unit, device, commit, date).  Reference
# points (issue "Escape times", REFERENCES.md s. 8): a straightforward CUDA
# port of Algorithm 1 on an H100 reached 1.56e11 useful Euler steps/s
# (single precision, Delta U / theta = 6, 2^20 paths, 25% of lanes useful);
# target >= 3e11 and lane efficiency >= 90%.  CPU: vectorised base R does
# 1.8e7 path-steps/s on one core of a development machine; target >= 10x.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("all")
echo <- "%-70s %12.4g %s"

V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)

run <- function(n, ratio, method, precision, backend, t_max = 1e9, seed = 1) {
  x <- escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / ratio,
                    dt = h, t_max = t_max, method = method, precision = precision,
                    seed = seed, backend = backend, progress = FALSE)
  st <- attr(x, "steps")
  list(rate = st[["useful"]] / attr(x, "seconds"), eff = st[["useful"]] / st[["issued"]],
       seconds = attr(x, "seconds"), mean = mean(x$value), x = x)
}

if (what %in% c("gpu", "all")) {
  dev <- gpu_first()$name[1]
  # warm up every variant (compile or load from the cache)
  for (p in c("single", "double")) for (m in c("euler", "srk2")) run(1000, 3, m, p, "gpu")
  n <- 2^20
  for (p in c("single", "double")) for (m in c("euler", "srk2")) {
    r <- run(n, 6, m, p, "gpu")
    add(sprintf("useful steps/s, %s %s, DU/theta = 6, 2^20 paths", p, m), r$rate, "1/s", dev)
    add(sprintf("lane efficiency, %s %s, DU/theta = 6", p, m), r$eff, "", dev)
    add(sprintf("wall time, %s %s, DU/theta = 6 (mean escape time %.4g)", p, m, r$mean),
        r$seconds, "s", dev)
  }
  for (m in c("euler", "srk2")) {
    r <- run(n, 10, m, "single", "gpu")
    add(sprintf("useful steps/s, single %s, DU/theta = 10, 2^20 paths", m), r$rate, "1/s", dev)
    add(sprintf("lane efficiency, single %s, DU/theta = 10", m), r$eff, "", dev)
    add(sprintf("wall time, single %s, DU/theta = 10 (mean escape time %.4g)", m, r$mean),
        r$seconds, "s", dev)
  }
  add("ratio to the straightforward CUDA port (1.56e11 useful steps/s)",
      rows[[1]]$value / 1.56e11, "", dev)

  # Fig. 11(b): the device of Pierro et al. at a 200 Hz sweep (0 to Ic in
  # 5 ms), h = 1e-4 as in the paper, 30,000 switching events.  Timed fraction:
  # all 30,000 paths from gamma = 0 to 2e-6 (1.1e7 steps each); projection:
  # steps to the mean switching bias of the Fulton-Dunkleberger law.
  u <- jj_units(250, 88e-15, 0.748e-6, 1.2, sweep_rate = 200 * 0.748e-6)
  g <- seq(0, 0.99, by = 1e-4)
  sd_ <- switching_distribution(g, u$ramp, u$V0, u$beta, u$theta, "kramers")
  gmean <- sum(diff(c(0, sd_$cdf)) * g)
  for (hh in c(1e-4, 1e-3)) {
    frac_gmax <- if (hh == 1e-4) 2e-6 else 2e-5
    x <- switching_currents(30000, ramp = u$ramp, V0 = u$V0, beta = u$beta,
                            theta = u$theta, dt = hh, gamma0 = 0, gamma_max = frac_gmax,
                            seed = 1, backend = "gpu", progress = FALSE)
    st <- attr(x, "steps")
    rate <- st[["useful"]] / attr(x, "seconds")
    total <- 30000 * gmean / (u$ramp * hh)
    add(sprintf("Fig. 11(b), h = %g: useful steps/s with 30,000 paths", hh), rate, "1/s", dev)
    add(sprintf("Fig. 11(b), h = %g: projected wall time for 30,000 events (paper: 1.5e5 s on a GTX980 at h = 1e-4)", hh),
        total / rate, "s", dev)
  }
  add("Fig. 11(b): mean switching bias (Fulton-Dunkleberger, Kramers)", gmean, "", dev)
}

# Fig. 11(b) at the laboratory's ramp from the auto start (issue 34, item 2):
#
#   Rscript bench/escape.R fig11          GPU: 30,000 paths, h = 1e-4, 200 Hz
#   Rscript bench/escape.R fig11 cpu      the same steps scaled down for a CPU
#                                          (300 paths, h = 1e-3, 200 kHz; ~30 s)
#
# 1. The timed run: every path from gamma0 = "auto" (P(switch before it) <=
#    0.01 / replicas), thermal, to a gamma_max sized from the pace of
#    RESULTS.md (2.376e11 useful steps/s with 30,000 paths on an H100) for
#    about `secs` seconds.  Printed: useful steps/s, the pace of one path,
#    the switches below gamma_max against Fulton-Dunkleberger's count, and
#    the projected wall time of the whole experiment (every path to its
#    switch): `throughput` = all paths' steps / useful steps/s; `tail` = the
#    steps of the last switch of n (the median of the largest of n FD
#    draws) / the pace of one path, which is what a run whose lanes are
#    latency-bound costs (30,000 paths fill 15% of an H100's lanes).
# 2. A slice where switches are densest, sized from the measured pace for
#    `slice_secs`: survivors start thermal at g_a; their switches up to g_b
#    against the conditional FD CDF (gamma0 = g_a): count, relative deviation
#    (the paper's 1.5 per cent), one-sample KS within the slice.
fig11_stage <- function(quick) {
  backend <- if (quick) "cpu" else "gpu"
  dev <<- if (quick) cpu_device() else gpu_first()$name[1]
  hz <- if (quick) 2e5 else 200
  hh <- if (quick) 1e-3 else 1e-4
  n <- if (quick) 300 else 30000
  secs <- if (quick) 15 else 345
  slice_secs <- if (quick) 10 else 75
  pace0 <- if (quick) 2e8 else 2.376e11 # useful steps/s expected
  u <- jj_units(250, 88e-15, 0.748e-6, 1.2, sweep_rate = hz * 0.748e-6)
  sc <- function(...) switching_currents(ramp = u$ramp, V0 = u$V0, beta = u$beta,
                                         theta = u$theta, dt = hh, seed = 1,
                                         backend = backend, progress = FALSE, ...)
  fd <- function(g, g0 = 0) switching_distribution(g, u$ramp, u$V0, u$beta, u$theta,
                                                   "kramers", gamma0 = g0)
  quantile_fd <- function(q, g0 = 0) { # FD quantile by bisection
    lo <- g0; hi <- 1 - 1e-12
    for (i in 1:60) { mid <- (lo + hi) / 2; if (fd(mid, g0)$cdf < q) lo <- mid else hi <- mid }
    hi
  }
  dg <- u$ramp * hh # bias per step
  st <- switching_start(u$ramp, u$V0, u$beta, u$theta, replicas = n)
  g0 <- st$gamma0
  gmax <- g0 + secs * pace0 / n * dg
  # compile, warm up (at the run's gamma0: "auto" for fewer replicas starts higher)
  sc(replicas = min(n, 1000), gamma0 = g0, init = "thermal", gamma_max = g0 + 1e4 * dg)
  x <- sc(replicas = n, gamma0 = "auto", gamma_max = gmax)
  stopifnot(attr(x, "gamma0") == g0, attr(x, "init") == "thermal")
  steps <- attr(x, "steps")[["useful"]]
  rate <- steps / attr(x, "seconds")
  pace <- rate / n # steps/s of one path: all n run the whole time, bar the switched
  b <- attr(x, "start_bound")
  tag <- sprintf("Fig. 11(b) at %g Hz, h = %g, %s paths", hz, hh, fmt_n(n))
  add(sprintf("%s: gamma0 = \"auto\" (thermal start)", tag), g0, "")
  add(sprintf("  P(switch before gamma0) a path, Fulton-Dunkleberger (bound: 0.01 / %s)",
              fmt_n(n)), b$p, "")
  add("  expected switches before gamma0 in the run", b$p * n, "")
  add("  quasi-equilibrium: lag / adiabatic (limit 0.1 each)", max(st$lag, st$adiabatic), "")
  add(sprintf("  timed run: gamma0 to gamma_max = %.6g (%.3g steps a path)", gmax,
              (gmax - g0) / dg), attr(x, "seconds"), "s")
  add("  useful steps/s", rate, "1/s")
  add("  steps/s of one path (useful steps/s / paths)", pace, "1/s")
  k <- sum(x$escaped)
  p_fd <- fd(gmax, g0)$cdf
  add(sprintf("  switches below gamma_max (FD expects %.3g; Poisson p = %.3g)", n * p_fd,
              stats::poisson.test(k, max(n * p_fd, 1e-300))$p.value), k, "")
  if (k >= 1) fig11_cdf(x$value[x$escaped], n, function(g) fd(g, g0)$cdf, gmax,
                        "  timed run")
  # projections of the whole experiment: every path to its switch
  gmean <- function(g0) { # E[gamma_s - g0] under FD from g0 (the tail to 1 included)
    g <- seq(g0, 1 - 1e-9, length.out = 20001)
    f <- fd(g, g0)$cdf
    sum(diff(f) * (g[-1] + g[-length(g)]) / 2) + (1 - f[length(f)]) * 1 - g0
  }
  glast <- quantile_fd(0.5^(1 / n)) # median of the largest of n switches
  proj <- function(g0, what) {
    add(sprintf("  projected, %s: throughput (all paths' steps / useful steps/s)", what),
        n * gmean(g0) / dg / rate, "s")
    add(sprintf("  projected, %s: tail (last of %s switches, gamma %.4f, / one path's pace)",
                what, fmt_n(n), glast), (glast - g0) / dg / pace, "s")
  }
  proj(g0, sprintf("from the auto gamma0 = %.4g", g0))
  g4 <- switching_start(u$ramp, u$V0, u$beta, u$theta, eps = 1e-4)$gamma0
  proj(g4, sprintf("from gamma0 = %.4g (eps = 1e-4, CDF bias <= 1e-4)", g4))
  proj(0, "from gamma = 0 (the earlier projection)")
  add("  mean switching bias (Fulton-Dunkleberger, Kramers)", gmean(0), "")
  # the slice where switches are densest, sized from the measured pace
  width <- slice_secs * pace * dg
  g <- seq(0, 0.99, by = 1e-4)
  mode <- g[which.max(fd(g)$density)]
  ga <- max(g0, mode - width / 2)
  gb <- ga + width
  y <- sc(replicas = n, gamma0 = ga, gamma_max = gb, init = "thermal")
  add(sprintf("  slice: %s survivors from gamma %.5g (thermal) to %.5g", fmt_n(n), ga, gb),
      attr(y, "seconds"), "s")
  ky <- sum(y$escaped)
  py <- fd(gb, ga)$cdf
  add(sprintf("  slice: switches (FD expects %.4g; binomial p = %.3g)", n * py,
              stats::binom.test(ky, n, py)$p.value), ky, "")
  if (ky >= 1) fig11_cdf(y$value[y$escaped], n, function(g) fd(g, ga)$cdf, gb, "  slice")
}

# The CDF of the switches `v` of n paths against the theory `cdf` up to gb:
# the relative deviation of the fraction switched by gb (and its standard
# error), the largest relative deviation over the upper half of the switches,
# and a one-sample KS test of the switches against the theory within [., gb].
fig11_cdf <- function(v, n, cdf, gb, what) {
  v <- sort(v)
  k <- length(v)
  F <- cdf(v)
  Fb <- cdf(gb)
  e <- seq_len(k) / n
  add(sprintf("%s: relative deviation of the fraction switched (s.e. %.3g; paper: 0.015)",
              what, sqrt((1 - Fb) / (n * Fb))), k / n / Fb - 1, "")
  up <- seq_len(k) > k / 2
  add(sprintf("%s: largest relative deviation of the CDF, upper half of the switches", what),
      max(abs(e[up] / F[up] - 1)), "")
  ks <- suppressWarnings(stats::ks.test(v, function(g) cdf(g) / Fb))
  add(sprintf("%s: KS distance within the range run (p = %.3g)", what, ks$p.value),
      ks$statistic[[1]], "")
}

fmt_n <- function(n) format(n, big.mark = ",", scientific = FALSE, trim = TRUE)

if (what == "fig11") fig11_stage(quick = identical(bench_arg("gpu", 2), "cpu"))

if (what %in% c("cpu", "all")) {
  cpu <- cpu_device()
  # vectorised base R, Algorithm 1, one core (R is single-threaded here)
  alg1_base <- function(n, steps) {
    theta <- DU / 6
    phi <- rep(asin(gamma), n); v <- numeric(n)
    sig <- sqrt(2 * beta * theta * h)
    for (k in seq_len(steps)) {
      z <- stats::rnorm(n)
      phin <- phi + h * v
      v <- v + h * (-beta * v - V0 * sin(phi) + V0 * gamma) + sig * z
      phi <- phin
    }
    phi
  }
  t <- system.time(alg1_base(1e5, 200))[["elapsed"]]
  base_rate <- 1e5 * 200 / t
  add("vectorised base R, Algorithm 1, one core", base_rate, "path-steps/s", cpu)
  # 2000 paths a thread
  cpu_scaling(function(k, p, m) run(2000 * k, 6, m, p, "cpu", t_max = 2000)$rate,
              c("euler", "srk2"), base_rate, cpu)
}

bench_print()
