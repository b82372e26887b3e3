# Issue 51, item 4: one name per concept.  The new names, and the old ones
# still read, with a warning of class statphysgpu_deprecated.

test_that("tts_estimate() and summary.xorsat_tts() take `success`; `level` is deprecated", {
  t <- c(120, 340, 95, 800)
  ok <- c(TRUE, TRUE, TRUE, FALSE)
  e <- tts_estimate(t, solved = ok, success = 0.9)
  expect_identical(e$success, 0.9)
  expect_equal(e$tts, log(10) * e$tau_median)
  expect_false("level" %in% names(e))
  expect_warning(old <- tts_estimate(t, solved = ok, level = 0.9),
                 "`level` of tts_estimate\\(\\) is deprecated.*`success`",
                 class = "statphysgpu_deprecated")
  expect_equal(unclass(old), unclass(e))
  # the result's old column name still reads the value
  expect_warning(v <- e$level, "column `level`.*`success`", class = "statphysgpu_deprecated")
  expect_identical(v, 0.9)
  expect_warning(v <- e[["level"]], class = "statphysgpu_deprecated")
  expect_identical(v, 0.9)
  expect_error(tts_estimate(t, success = 0.9, level = 0.9), "give `success` only",
               class = "statphysgpu_deprecated_error")
  expect_error(tts_estimate(t, success = 1), "`success` must be a single finite number")
  x <- xorsat_qg(xorsat_random(16, seed = 1), replicas = 6, clones = 32, seed = 1,
                 backend = "cpu", progress = FALSE)
  s <- summary(x, success = 0.9)
  expect_identical(s$estimate$success, 0.9)
  expect_warning(s2 <- summary(x, level = 0.9), "`level` of summary\\(\\) is deprecated",
                 class = "statphysgpu_deprecated")
  expect_equal(s2$estimate$tts, s$estimate$tts)
})

test_that("sde_run() and sde_ams() both take `model`; `m` and `A` are deprecated", {
  skip_if_not(sde_cpu_available())
  m <- sde_cubic()
  run <- function(...) sde_run(..., replicas = 4, init = list(x = 0), dt = 0.01, t_max = 0.1,
                               output = "moments", seed = 1, backend = "cpu", progress = FALSE)
  a <- run(model = m)
  expect_warning(b <- run(m = m), "`m` of sde_run\\(\\) is deprecated.*`model`",
                 class = "statphysgpu_deprecated")
  expect_identical(as.data.frame(b), as.data.frame(a))
  expect_error(run(model = m, m = m), "give `model` only", class = "statphysgpu_deprecated_error")
  # the start region's edge of sde_ams(): `start_edge`, was `A`
  ams <- function(...) sde_ams(m, score = ~ x, ..., B = 1, init = list(x = 0), dt = 0.02,
                               particles = 10, replicas = 2, k = 1, seed = 3, backend = "cpu",
                               progress = FALSE)
  x <- ams(start_edge = 0.15)
  expect_warning(y <- ams(A = 0.15), "`A` of sde_ams\\(\\) is deprecated.*`start_edge`",
                 class = "statphysgpu_deprecated")
  expect_identical(attr(y, "replicas_table"), attr(x, "replicas_table"))
  expect_identical(attr(x, "A"), 0.15)
  expect_error(ams(start_edge = 1.5), "`start_edge` \\(1.5\\) must be below `B`")
  # a continuation given the edge again compares it under its new name
  expect_error(sde_ams(m, init = x, start_edge = 0.2, replicas = 1, backend = "cpu",
                       progress = FALSE), "was run with start_edge = 0.15")
})

test_that("he4_dmc() takes `walkers`; `replicas` is deprecated", {
  go <- function(...) he4_dmc(8, dt = 0.01, ..., blocks = 1, block_steps = 1, equilibration = 0,
                              seed = 1, backend = "cpu", progress = FALSE)
  a <- go(walkers = 3)
  expect_identical(attr(a, "params")$walkers, 3)
  expect_identical(attr(a, "params")$replicas, 3) # the old name, kept for one release
  expect_warning(b <- go(replicas = 3), "`replicas` of he4_dmc\\(\\) is deprecated.*`walkers`",
                 class = "statphysgpu_deprecated")
  expect_equal(as.data.frame(b)[c("energy", "population")],
               as.data.frame(a)[c("energy", "population")])
  expect_error(go(walkers = 0), "`walkers`")
  expect_error(go(walkers = 3, replicas = 3), "give `walkers` only",
               class = "statphysgpu_deprecated_error")
})

test_that("xorsat_random() takes the package's 64-bit Philox seed and leaves R's stream alone", {
  # the planted assignment: Philox purpose 40, stream 1 (draw >= 2^31 is down)
  x <- xorsat_random(40, seed = "0x123456789abcdef0")
  expect_identical(x$name, "random(40, 0x123456789abcdef0)")
  expect_identical(x$planted, philox_uint32(40, seed = "0x123456789abcdef0", stream = 1,
                                            offset = "0xa000000000000000",
                                            backend = "cpu") >= 2^31)
  # a seed past 31 bits, as every simulator takes
  y <- xorsat_random(40, seed = 2^40 + 5)
  expect_identical(y$name, "random(40, 1099511627781)")
  expect_true(all(tabulate(y$eq, 40) == 3))
  expect_equal(xorsat_energy(y, y$planted), -40)
  expect_identical(xorsat_random(40, seed = 2^40 + 5), y)
  # a seeded call draws nothing from R's generator
  set.seed(7); u <- runif(3)
  set.seed(7); invisible(xorsat_random(100, seed = 1)); v <- runif(3)
  expect_identical(u, v)
  expect_error(xorsat_random(10, seed = 2^64), "`seed` must be a single whole number in \\[0, 2\\^64\\)")
})
