# Issue 51, item 6: summary() of sde_run()'s moments, plot() of
# ecdf_band(), and autoplot() of the results that lacked one.

sde_ou_51 <- function() {
  sde_model(drift = list(x = ~ -x), noise = list(x = ~ sqrt(2 * theta)),
            params = c(theta = 0.5), name = "ou51")
}

test_that("summary() of sde_run() moments is a summary, not summary.data.frame", {
  skip_if_not(sde_cpu_available())
  x <- sde_run(sde_ou_51(), replicas = 40, init = list(x = 1), dt = 0.05, t_max = 1,
               params = list(theta = c(0.2, 0.5)), output = "moments", record_every = 5,
               seed = 1, backend = "cpu", progress = FALSE)
  s <- summary(x)
  expect_s3_class(s, "summary.sde_moments")
  expect_identical(nrow(s), 2L)
  d <- as.data.frame(x)
  last <- d[d$time == max(d$time), ]
  expect_identical(s$mean, last$mean)
  expect_identical(s$se, last$se)
  expect_identical(s$t_end, rep(1, 2))
  expect_identical(s$mean_max, as.numeric(tapply(d$mean, d$condition, max)))
  expect_identical(s$theta, c(0.2, 0.5))
  expect_output(print(s), "Moments of model \"ou51\"")
  skip_if_not_installed("generics")
  expect_identical(generics::tidy(s)$estimate, s$mean)
})

test_that("plot() of ecdf_band() draws the band (not a pairs plot)", {
  set.seed(1)
  b <- ecdf_band(rexp(50))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(withVisible(plot(b))$visible, FALSE)
  expect_identical(plot(b), b)
  # the user coordinates are the CDF's: x over the values, y over [0, 1]
  u <- graphics::par("usr")
  expect_true(u[3] <= 0 && u[4] >= 1 && u[4] < 1.1)
  expect_true(u[1] <= min(b$x))
})

test_that("autoplot() builds ggplot objects for the results that lacked one", {
  skip_if_not_installed("ggplot2")
  set.seed(2)
  r <- reblock(as.numeric(stats::arima.sim(list(ar = 0.5), 1024)))
  expect_s3_class(ggplot2::autoplot(r), "ggplot")
  x <- switching_currents(200, ramp = 1e-3, V0 = 2, beta = 0.5, theta = 0.25, dt = 0.05,
                          gamma0 = 0.4, seed = 1, backend = "cpu", threshold = "next_well")
  expect_s3_class(ggplot2::autoplot(switching_rate(x)), "ggplot")
  a <- escape_rate_ams(gamma = 0.3, V0 = 1, beta = 1, theta = c(0.3, 0.35), dt = 0.05,
                       particles = 20, replicas = 4, seed = 1, backend = "cpu")
  g <- ggplot2::autoplot(a)
  expect_s3_class(g, "ggplot")
  expect_identical(g$labels$x, "theta")
  expect_s3_class(ggplot2::autoplot(a, what = "p"), "ggplot")
  d <- he4_dmc(8, dt = 0.01, walkers = 3, blocks = 3, block_steps = 1, equilibration = 0,
               populations = 2, seed = 1, backend = "cpu", progress = FALSE)
  expect_s3_class(ggplot2::autoplot(d), "ggplot")
  skip_if_not(sde_cpu_available())
  m <- sde_ou_51()
  run <- function(output, ...) {
    sde_run(m, replicas = 20, init = list(x = 1), dt = 0.05, t_max = 1, output = output,
            record_every = 5, seed = 1, backend = "cpu", progress = FALSE, ...)
  }
  expect_s3_class(ggplot2::autoplot(run("moments", params = list(theta = c(0.2, 0.5)))),
                  "ggplot")
  expect_s3_class(ggplot2::autoplot(run("trajectories", keep = 3)), "ggplot")
  h <- ggplot2::autoplot(run("histogram", bins = list(x = seq(-2, 2, 0.5))))
  expect_s3_class(h, "ggplot")
  # the densities integrate to the share of values inside the bins, at most 1
  hd <- h$data
  mass <- tapply(hd$density * (hd$hi - hd$lo), hd$time, sum)
  expect_true(all(mass <= 1 + 1e-12 & mass > 0.9))
  s <- sde_ams(sde_cubic(), score = ~ x, start_edge = 0.15, B = 1, init = list(x = 0),
               dt = 0.02, particles = 10, replicas = 2, k = 1, seed = 3, backend = "cpu",
               progress = FALSE)
  expect_s3_class(ggplot2::autoplot(s), "ggplot")
})

test_that("the README's list of methods holds", {
  has <- function(generic, cls, envir = parent.frame()) {
    !is.null(utils::getS3method(generic, cls, optional = TRUE, envir = envir))
  }
  # every simulator's result prints, plots, autoplots and converts
  results <- c("sp_paths", "escape_rate_ams", "sde_ams", "driven_paths", "kuramoto_run",
               "vmc_blocks", "dmc_blocks", "xorsat_tts", "lrmd_run", "sde_moments",
               "sde_histogram", "sde_trajectories", "sde_rdf")
  for (k in results) {
    for (g in c("print", "plot", "as.data.frame")) {
      # (sde_ams and sde_passage inherit from escape_rate_ams and sp_paths)
      expect_true(has(g, k) || (k == "sde_ams" && has(g, "escape_rate_ams")), info = paste(g, k))
    }
  }
  skip_if_not_installed("ggplot2")
  gg <- asNamespace("ggplot2") # (loading it registers the methods)
  for (k in results) expect_true(has("autoplot", k, gg), info = paste("autoplot", k))
  # the results that hold estimates have summary()
  for (k in c("sp_paths", "escape_rate_ams", "sde_moments", "vmc_blocks", "dmc_blocks",
              "xorsat_tts", "driven_paths", "kuramoto_run", "lrmd_run")) {
    expect_true(has("summary", k), info = paste("summary", k))
  }
})
