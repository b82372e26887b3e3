# Benchmark: escape times and switching currents (paper 000), GPU and CPU.
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/escape.R [gpu|cpu|all]
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
