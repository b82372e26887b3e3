# The logic behind the plots (issue 21, section 9): legend labels from the
# parameters that vary, the survival and Gumbel views, the physical axis of
# jj_units(), names and units in labels. Pixels are not tested.

test_that("legend labels name only the parameters that vary", {
  p <- data.frame(ramp = 1e-3, V0 = 2, beta = c(0.1, 0.5, 0.1), theta = c(0.25, 0.25, 0.3))
  l <- statphysgpu:::vary_labels(p)
  expect_identical(l$varying, c("beta", "theta"))
  expect_identical(l$labels, c("beta = 0.1, theta = 0.25", "beta = 0.5, theta = 0.25",
                               "beta = 0.1, theta = 0.3"))
  expect_identical(l$constant, "ramp = 0.001, V0 = 2")
  # one group: no label, everything in the constant line
  one <- statphysgpu:::vary_labels(p[1, ])
  expect_identical(one$labels, "")
  expect_identical(one$constant, "ramp = 0.001, V0 = 2, beta = 0.1, theta = 0.25")
  # rows of one group repeat its label; values that 4 digits do not tell
  # apart get more digits
  close <- statphysgpu:::vary_labels(data.frame(f = c(0.10001, 0.10002, 0.10001), a = 1))
  expect_identical(close$labels[1], close$labels[3])
  expect_false(close$labels[1] == close$labels[2])
  expect_identical(close$constant, "a = 1")
})

test_that("plots of escape times label conditions by what varies, theories by name, time by t0", {
  x <- escape_times(60, gamma = 0.5, V0 = 1, beta = c(0.5, 1), theta = 0.2, dt = 0.02,
                    t_max = 30, seed = 2, backend = "cpu", threshold = "next_well",
                    progress = FALSE)
  pd <- statphysgpu:::paths_plot_data(x, 0.95, "mm", "cdf")
  expect_identical(vapply(pd, `[[`, "", "label"), c("beta = 0.5", "beta = 1"))
  expect_identical(attr(pd, "constant"), "gamma = 0.5, V0 = 1, theta = 0.2")
  expect_match(statphysgpu:::theory_legend(x, "mm"), "Mel'nikov-Meshkov rate", fixed = TRUE)
  expect_match(statphysgpu:::theory_legend(x, "bhl"), "Buttiker-Harris-Landauer", fixed = TRUE)
  expect_match(statphysgpu:::value_label(x), "units of t0 = hbar / E_C", fixed = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  # the mismatch warning names the theory properly too
  xs <- escape_times(20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
                     t_max = 30, seed = 2, backend = "cpu", progress = FALSE)
  expect_warning(plot(xs, theory = "kramers"), "the Kramers rate describes",
                 class = "statphysgpu_theory_mismatch")
  # every view draws, base and ggplot
  for (ty in c("cdf", "survival", "gumbel")) {
    expect_identical(plot(x, theory = "kramers", type = ty), x)
  }
  expect_error(plot(x, type = "hazard"), "`type` must be one of \"cdf\", \"survival\", \"gumbel\"",
               class = "statphysgpu_error")
  skip_if_not_installed("ggplot2")
  g <- ggplot2::autoplot(x, theory = "kramers", type = "gumbel")
  b <- ggplot2::ggplot_build(g)
  expect_setequal(unique(as.character(g$data$condition)), c("beta = 0.5", "beta = 1"))
  expect_identical(g$labels$subtitle, "gamma = 0.5, V0 = 1, theta = 0.2")
  expect_s3_class(ggplot2::autoplot(x, type = "survival"), "ggplot")
  expect_true(length(b$data) >= 3)
})

test_that("the survival and Gumbel views transform the estimate, its band and the theory", {
  v <- c(3, 1, 4, 2)
  b <- ecdf_band(v, band = "pointwise")
  F <- (1:4) / 4
  cdf <- statphysgpu:::band_steps(b, "cdf", right = 10)
  expect_equal(cdf$y, F)
  expect_equal(cdf$x1, c(2, 3, 4, 10)) # the last step runs on to the edge
  s <- statphysgpu:::band_steps(b, "survival", right = 10)
  expect_equal(s$y, 1 - F[1:3]) # S = 0 has no place on a log axis
  expect_equal(s$x1, c(2, 3, 4)) # and the last shown step ends where S drops to 0
  expect_equal(s$lo, 1 - b$upper[1:3]) # the band turns over
  expect_equal(s$hi, 1 - b$lower[1:3])
  expect_true(all(s$lo <= s$y & s$y <= s$hi))
  g <- statphysgpu:::band_steps(b, "gumbel")
  expect_equal(g$y, log(-log(1 - F[1:3])))
  expect_true(all(g$lo <= g$y & g$y <= g$hi))
  # censored: the last step (paths still at risk) is kept in every view
  bc <- ecdf_band(c(1, 2, 3, 5), escaped = c(TRUE, TRUE, TRUE, FALSE))
  expect_equal(nrow(statphysgpu:::band_steps(bc, "survival", right = 9)), 4)
  # exponential escape: in the Gumbel view the theory is log(rate) + log(t)
  # exactly, a line of slope 1 against log t
  x <- escape_times(20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
                    t_max = 30, seed = 2, backend = "cpu", threshold = "next_well",
                    progress = FALSE)
  th <- statphysgpu:::paths_plot_data(x, 0.95, "kramers", "gumbel")[[1]]$theory
  rate <- escape_rate(0.5, 1, 0.5, 0.2, prefactor = "kramers")
  expect_equal(th$y, log(rate) + log(th$x), tolerance = 1e-10)
  sv <- statphysgpu:::paths_plot_data(x, 0.95, "kramers", "survival")[[1]]$theory
  expect_equal(log(sv$y), -rate * sv$x, tolerance = 1e-10)
  # ranges: the survival axis reaches below the smallest estimate, not to 0
  yl <- statphysgpu:::paths_ylim(list(s), "survival")
  expect_true(yl[1] > 0 && yl[1] <= min(s$y) && yl[2] == 1)
})

test_that("ecdf_band(band = 'pointwise') is the log-log Greenwood band of a complete sample", {
  set.seed(5)
  v <- rexp(40)
  b <- ecdf_band(v, level = 0.9, band = "pointwise")
  expect_identical(attr(b, "band"), "pointwise, log-log")
  expect_identical(ecdf_band(v, band = "auto"), ecdf_band(v))
  expect_identical(attr(ecdf_band(v, band = "simultaneous"), "band"), "simultaneous")
  # without censoring Greenwood's sum is F / (n S): the band by hand
  n <- length(v)
  S <- 1 - (1:n) / n
  k <- 1:(n - 1)
  sig <- sqrt((k / n) / (n * S[k]))
  z <- qnorm(0.95)
  expect_equal(b$lower[k], 1 - exp(-exp(log(-log(S[k])) + z * sig / log(S[k]))))
  expect_equal(b$upper[k], 1 - exp(-exp(log(-log(S[k])) - z * sig / log(S[k]))))
  expect_equal(b$se[k], sqrt(b$cdf[k] * (1 - b$cdf[k]) / n))
  if (requireNamespace("survival", quietly = TRUE)) {
    fit <- survival::survfit(survival::Surv(v) ~ 1, conf.type = "log-log", conf.int = 0.9)
    expect_equal(b$lower[k], 1 - fit$upper[k], tolerance = 1e-8)
    expect_equal(b$upper[k], 1 - fit$lower[k], tolerance = 1e-8)
  }
  expect_error(ecdf_band(c(1, 2, 3), escaped = c(TRUE, FALSE, TRUE), band = "simultaneous"),
               "`band` = \"simultaneous\" .* needs a sample without censoring",
               class = "statphysgpu_error")
  expect_error(ecdf_band(1:3, band = "both"), "`band` must be one of",
               class = "statphysgpu_error")
})

test_that("units = jj_units() gives a second axis in uA (switching) or seconds (escape)", {
  u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2, sweep_rate = 2e5 * 0.748e-6)
  sw <- switching_currents(40, ramp = 1e-3, V0 = u$V0, beta = u$beta, theta = u$theta,
                           dt = 0.003, gamma0 = 0.5, seed = 1, backend = "cpu",
                           progress = FALSE)
  pa <- statphysgpu:::physical_axis(sw, u, NULL)
  tk <- statphysgpu:::physical_ticks(pa, c(0.3, 0.7), FALSE)
  expect_identical(tk$title, "bias current at switching (uA)")
  # a tick labelled I (uA) sits at gamma = I / Ic
  expect_equal(tk$at * u$Ic * 1e6, as.numeric(tk$labels))
  expect_true(all(tk$at >= 0.3 & tk$at <= 0.7))
  es <- escape_times(10, gamma = 0.5, V0 = u$V0, beta = u$beta, theta = u$theta,
                     dt = 0.003, t_max = 5, seed = 1, backend = "cpu", progress = FALSE)
  pe <- statphysgpu:::physical_axis(es, u, NULL)
  te <- statphysgpu:::physical_ticks(pe, c(1, 100), TRUE)
  expect_identical(te$title, "escape time (ns)") # t0 = 9.04e-11 s: 0.09 .. 9 ns
  expect_equal(te$at * u$t0 * 1e9, as.numeric(te$labels))
  expect_identical(names(statphysgpu:::si_prefix(0.748e-6, 0.1)), "u")
  expect_identical(names(statphysgpu:::si_prefix(9e-9)), "n")
  expect_identical(names(statphysgpu:::si_prefix(5)), "")
  expect_error(plot(sw, units = list(Ic = 1)), "`units` must be NULL or a result of jj_units()",
               class = "statphysgpu_error")
  other <- jj_units(R = 250, C = 88e-15, Ic = 1.5e-6, T = 1.2)
  expect_error(plot(sw, units = other), "`units` is not the junction of `x`: its V0 is 423",
               class = "statphysgpu_error")
  expect_error(plot(sw, units = jj_units(250, c(88e-15, 90e-15), 0.748e-6, 1.2)),
               "`units` must describe one junction", class = "statphysgpu_error")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(sw, theory = "kramers", units = u, type = "gumbel"), sw)
})

test_that("a legend goes to the corner with the fewest points under it", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  plot(c(0, 1), c(0, 1), type = "n")
  args <- list(legend = c("a long legend entry", "another"), lty = 1)
  lc <- function(x, y) do.call(statphysgpu:::legend_corner, c(list(x, y), args))
  expect_identical(lc(numeric(), numeric()), "topleft")
  # a rising curve: the top left and bottom right are free
  t <- seq(0, 1, length.out = 200)
  expect_identical(lc(t, t^4), "topleft")
  # clusters in the top right and bottom left, then also in the top left
  expect_identical(lc(c(0.95, 0.05), c(0.95, 0.05)), "topleft")
  expect_identical(lc(c(0.95, 0.05, 0.05), c(0.95, 0.05, 0.95)), "bottomright")
  # on a logarithmic axis (points given as values, not logarithms): only the
  # bottom left is free
  plot(c(0, 1), c(1e-3, 1), type = "n", log = "y")
  expect_identical(lc(c(0.05, 0.95, 0.95), c(0.95, 0.95, 1.2e-3)), "bottomleft")
})

test_that("driven plots: legends name the varying parameters, time in drive periods", {
  x <- driven_brownian(20, a = 4.2, omega = c(4.9, 6), f = c(0, 0.5), beta = 0.9,
                       theta = 0.01, periods = 6, steps_per_period = 100, keep = 2,
                       output = "histogram", bins = 20, seed = 1, backend = "cpu",
                       progress = FALSE)
  pd <- statphysgpu:::driven_plot_data(x, "velocity", NULL)
  expect_identical(sort(unique(pd$group)), c("f = 0", "f = 0.5"))
  expect_identical(attr(pd, "constant"), "a = 4.2, beta = 0.9, theta = 0.01")
  expect_identical(statphysgpu:::driven_labels(x)$labels,
                   c("omega = 4.9, f = 0", "omega = 6, f = 0", "omega = 4.9, f = 0.5",
                     "omega = 6, f = 0.5"))
  dd <- statphysgpu:::driven_density_data(x, 2, NULL)
  expect_equal(dd$period, 0:6)
  expect_true(all(dd$z >= 0 & dd$z <= 1))
  expect_equal(apply(dd$z, 1, max), rep(1, 7)) # each period scaled to its largest bin
  tr <- dd$trajectories
  expect_true(all(tr$condition == 2))
  # the vertical range holds every trajectory
  expect_true(all(tr$x > dd$ylim[1] & tr$x < dd$ylim[2]))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (ty in c("velocity", "histogram", "trajectories", "density")) {
    expect_identical(plot(x, type = ty), x)
  }
  expect_error(plot(x, type = "density", condition = 5),
               "`condition` must be a single whole number between 1 and 4",
               class = "statphysgpu_error")
  skip_if_not_installed("ggplot2")
  for (ty in c("velocity", "histogram", "trajectories", "density")) {
    expect_s3_class(ggplot2::autoplot(x, type = ty), "ggplot")
  }
  g <- ggplot2::autoplot(x, type = "trajectories")
  expect_identical(levels(g$data$label), statphysgpu:::driven_labels(x)$labels)
})
