# escape_times() and switching_currents() on the declared engine (option
# statphysgpu.escape_engine = "declared", R/escape-declared.R) on the GPU:
# the same paths as on the CPU in double precision, the built-in's law in
# single precision, and several devices named.

ged <- function(f, ...) {
  withr::local_options(statphysgpu.escape_engine = "declared")
  f(..., progress = FALSE)
}

test_that("declared: GPU and CPU agree path by path in double precision (srk2, euler; rest, thermal; a ramp)", {
  skip_if_no_gpu()
  for (m in c("srk2", "euler")) {
    for (init in c("rest", "thermal")) {
      a <- list(escape_times, 400, gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.3,
                dt = 0.02, t_max = 200, threshold = "next_well", method = m, init = init,
                seed = 7, precision = "double")
      cpu <- do.call(ged, c(a, backend = "cpu"))
      gpu <- do.call(ged, c(a, backend = "gpu"))
      expect_identical(attr(gpu, "backend"), "gpu")
      expect_identical(gpu[c("condition", "replica")], cpu[c("condition", "replica")])
      # the same normals and operations; sin() and fused multiply-adds round
      # differently in the last bits, which can move a crossing by a step in
      # a rare path
      same <- gpu$escaped == cpu$escaped & abs(gpu$value - cpu$value) < 1e-6
      expect_gt(mean(same), 0.99, label = paste(m, init))
      expect_equal(attr(gpu, "steps")[["useful"]], attr(cpu, "steps")[["useful"]],
                   tolerance = 1e-3)
    }
  }
  s <- list(switching_currents, 300, ramp = c(1e-3, 2e-3), V0 = 4, beta = 0.3, theta = 0.2,
            dt = 0.02, seed = 8, precision = "double")
  cpu <- do.call(ged, c(s, backend = "cpu"))
  gpu <- do.call(ged, c(s, backend = "gpu"))
  expect_gt(mean(abs(gpu$value - cpu$value) < 1e-8 & gpu$escaped == cpu$escaped), 0.99)
})

test_that("declared: single precision on the GPU has the built-in's law", {
  skip_if_no_gpu()
  # every path escapes; two-sample z of the mean escape times, |z| < 4
  a <- list(escape_times, 20000, gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.3,
            dt = 0.02, t_max = 1e6, threshold = "next_well", backend = "gpu",
            precision = "single")
  d <- do.call(ged, c(a, seed = 1))
  b <- withr::with_options(list(statphysgpu.escape_engine = "builtin"),
                           do.call(function(f, ...) f(..., progress = FALSE), c(a, seed = 2)))
  expect_true(all(d$escaped) && all(b$escaped))
  for (c in 1:2) {
    x <- d$value[d$condition == c]
    y <- b$value[b$condition == c]
    z <- (mean(x) - mean(y)) / sqrt(var(x) / length(x) + var(y) / length(y))
    expect_lt(abs(z), 4, label = sprintf("condition %d: z", c))
  }
})

test_that("declared: devices = \"all\" gives the one-device paths", {
  skip_if_no_gpu()
  a <- list(escape_times, 2000, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
            t_max = 100, seed = 3, backend = "gpu", precision = "double")
  one <- do.call(ged, c(a, devices = 0))
  all <- do.call(ged, c(a, devices = "all"))
  expect_identical(as.data.frame(all), as.data.frame(one))
})
