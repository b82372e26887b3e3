# Switching at laboratory ramp rates from simulated escape rates (issue 53):
# switching_currents(method = "rates") for the device of Fig. 11(b) of
# Pierro et al. (2018) -- R = 250 Ohm, C = 88 fF, Ic = 0.748 uA, T = 1.2 K --
# against the package's Fulton-Dunkleberger curve (switching_distribution(),
# Kramers rate), the paper's 1.5 per cent.
#
#   Rscript bench/switching-rates.R gpu    200 Hz (0 to Ic in 5 ms), 2^20 paths a bias,
#                                          on the first GPU; target: within 1.5 per cent
#                                          in at most 10 minutes on one H100; then the
#                                          same with the budget of run 1 (1e12 steps a
#                                          bias: AMS at five biases, sized to the plan's
#                                          precision), if the first took under 2 minutes
#   Rscript bench/switching-rates.R cpu    the demo's 200 kHz sweep on the CPU, 2^14
#                                          paths a bias, target 0.01, with a brute-force
#                                          sample of 500 paths for comparison (minutes)
#   Rscript bench/switching-rates.R demo   GPU: the demo's ramp and ten times slower,
#                                          rates against 20,000 brute-force paths each
#                                          (Kolmogorov-Smirnov, mean and width)
#
# The threshold is the paper's (the saddle of gamma = 0, phi = pi: gamma0 = 0),
# SRK2 in single precision with dt = 0.05 / sqrt(V0) (about 120 steps a plasma
# period), the default settings of method = "rates" (12 biases, eps = 1e-3,
# target 0.005).  Prints the device, commit, date and the time of each run,
# and one table; a figure switching-rates-<mode>.png where png() works.
bench_dir <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))

mode <- bench_arg("gpu")
if (!mode %in% c("gpu", "cpu", "demo")) stop("mode must be gpu, cpu or demo", call. = FALSE)
gpu <- mode != "cpu"
dev <- if (gpu) gpu_first()$name[1] else cpu_device()
backend <- if (gpu) "gpu" else "cpu"
cat(sprintf("switching-rates (%s) | device %s | commit %s | %s\n", mode, dev, commit, date))

device_units <- function(hz) {
  jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2, sweep_rate = hz * 0.748e-6)
}

# The rates' CDF against the Fulton-Dunkleberger (Kramers) curve of the same
# start, over the window: the largest absolute difference and where.
fd_compare <- function(r, u) {
  # the rates' integral starts at gamma0 = 0 (its first point holds the
  # switches below the window); the theory's from 0 too
  fd0 <- switching_distribution(r$gamma, u$ramp, u$V0, u$beta, u$theta, "kramers")$cdf
  d <- r$cdf - fd0
  i <- which.max(abs(d))
  list(max = abs(d[i]), at = r$gamma[i], band = (r$cdf_upper[i] - r$cdf_lower[i]) / 2,
       fd = fd0)
}

figure <- function(file, expr) {
  ok <- tryCatch({ grDevices::png(file, width = 1200, height = 520, res = 100); TRUE },
                 error = function(e) FALSE, warning = function(w) FALSE)
  if (!ok) return(message("note: png() could not open a device; no figure ", file))
  on.exit(grDevices::dev.off())
  expr
}

run_rates <- function(u, replicas, label, rates = list()) {
  t0 <- proc.time()[["elapsed"]]
  r <- switching_currents(replicas, ramp = u$ramp, V0 = u$V0, beta = u$beta, theta = u$theta,
                          dt = 0.05 / sqrt(u$V0), gamma0 = 0, method = "rates", seed = 2026,
                          backend = backend, progress = FALSE, rates = rates)
  secs <- proc.time()[["elapsed"]] - t0
  rt <- attr(r, "rates")
  st <- attr(r, "stats")
  cmp <- fd_compare(r, u)
  add(sprintf("%s: whole call", label), secs, "s")
  add(sprintf("%s: biases by escape_times / by AMS", label),
      sum(rt$estimator == "escape_times"), "", note = sprintf(" / %d", sum(rt$estimator == "ams")))
  add(sprintf("%s: max |F_rates - F_FD(Kramers)|", label), cmp$max, "",
      note = sprintf(" at gamma = %.4f (rates' 95%% band +-%.4f there)", cmp$at, cmp$band))
  add(sprintf("%s: within 1.5 per cent of Fulton-Dunkleberger", label),
      as.numeric(cmp$max <= 0.015), "(1 = yes)")
  fd_mean <- sum(diff(r$gamma) * (1 - (cmp$fd[-1] + cmp$fd[-length(cmp$fd)]) / 2)) +
    min(r$gamma)
  add(sprintf("%s: mean switching bias (rates)", label), st$mean, "",
      note = sprintf(" +- %.2g (FD Kramers %.5f)", st$mean_se, fd_mean))
  add(sprintf("%s: sd of the switching bias (rates)", label), st$sd, "",
      note = sprintf(" +- %.2g", st$sd_se))
  add(sprintf("%s: fit chi^2 / df", label), st$chisq / max(st$df, 1), "",
      note = sprintf(" (df %d)", st$df))
  ams <- rt$estimator == "ams"
  if (any(ams)) {
    add(sprintf("%s: AMS biases at their se_wanted", label),
        sum(rt$se_log[ams] <= rt$se_wanted[ams]), "",
        note = sprintf(" of %d (AMS replicas %s)", sum(ams), paste(rt$runs[ams], collapse = ", ")))
  }
  print(rt[, c("gamma", "estimator", "rate", "se_log", "se_wanted", "events", "runs", "t_max",
               "kramers_rate", "seconds")], digits = 4, row.names = FALSE)
  list(r = r, cmp = cmp, seconds = secs)
}

# brute force from the rates' window start, thermal: the same event
run_brute <- function(u, r, n, label) {
  g0 <- attr(r, "stats")$gamma_lo
  t0 <- proc.time()[["elapsed"]]
  x <- switching_currents(n, ramp = u$ramp, V0 = u$V0, beta = u$beta, theta = u$theta,
                          dt = 0.05 / sqrt(u$V0), gamma0 = g0, init = "thermal", seed = 7,
                          backend = backend, progress = FALSE)
  secs <- proc.time()[["elapsed"]] - t0
  v <- x$value[x$escaped]
  # the rates from gamma0 = 0, conditioned on no switch before g0
  F0 <- stats::approx(r$gamma, r$cdf, xout = g0, rule = 2)$y
  Fr <- function(q) (stats::approx(r$gamma, r$cdf, xout = q, rule = 2)$y - F0) / (1 - F0)
  ks <- suppressWarnings(stats::ks.test(v, Fr))
  st <- attr(r, "stats")
  m <- mean(v)
  s <- stats::sd(v)
  se_sd <- sqrt((mean((v - m)^4) - s^4) / (4 * s^2 * length(v)))
  add(sprintf("%s: brute force, %s paths", label, fmt(n)), secs, "s")
  add(sprintf("%s: KS p, brute force against the rates' CDF", label), ks$p.value, "",
      note = sprintf(" (D = %.4f)", ks$statistic))
  add(sprintf("%s: z of the mean, brute force - rates", label),
      (m - st$mean) / sqrt(s^2 / length(v) + st$mean_se^2), "")
  add(sprintf("%s: z of the sd, brute force - rates", label),
      (s - st$sd) / sqrt(se_sd^2 + st$sd_se^2), "")
  x
}
fmt <- function(n) format(n, big.mark = ",")

if (mode == "gpu") {
  u <- device_units(200)
  res <- run_rates(u, 2^20, "Fig. 11(b), 200 Hz")
  add("Fig. 11(b), 200 Hz: whole call within 10 minutes", as.numeric(res$seconds <= 600),
      "(1 = yes)")
  # AMS sized to the plan's precision on the GPU: the budget of run 1 (1e12
  # steps a bias) sends the four biases of the mode (gamma 0.31-0.37) and the
  # lowest to escape_rate_ams(); their replicas grow from the first batch
  # (66) towards se_wanted, at most 64 times (rates$ams_max_replicas
  # "auto"). Skipped where the first call took over 2 minutes (this script
  # must stay within 8 minutes; this part's time, at most linear in the
  # replicas from run 1's 0.6-1.4 s a bias, is at most about 4.5 minutes).
  if (res$seconds <= 120) {
    run_rates(u, 2^20, "Fig. 11(b), 200 Hz, AMS sized (steps 1e12)",
              rates = list(steps = 1e12))
  }
  figure("switching-rates-gpu.png", {
    op <- graphics::par(mfrow = c(1, 2))
    plot(res$r, theory = "kramers")
    plot(res$r, what = "rates", theory = "kramers")
    graphics::par(op)
  })
} else if (mode == "cpu") {
  u <- device_units(2e5)
  res <- run_rates(u, 2^14, "demo device, 200 kHz (CPU)", rates = list(target = 0.01))
  x <- run_brute(u, res$r, 500, "demo device, 200 kHz (CPU)")
  figure("switching-rates-cpu.png", {
    op <- graphics::par(mfrow = c(1, 2))
    plot(res$r, theory = "kramers", paths = x)
    plot(res$r, what = "rates", theory = "kramers")
    graphics::par(op)
  })
} else {
  for (hz in c(2e5, 2e4)) {
    u <- device_units(hz)
    lab <- sprintf("demo device, %g kHz", hz / 1000)
    res <- run_rates(u, 2^20, lab)
    run_brute(u, res$r, 20000, lab)
  }
}
bench_print()
