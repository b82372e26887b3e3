# The quasi-greedy solver (paper 003) on the CPU: exact sweeps to solution,
# checked solutions, exponential times to solution.

challenge <- function(name) {
  read_xorsat(system.file("extdata", "3r3x", paste0(name, ".txt"), package = "statphysgpu"))
}

test_that("every solution is the instance's ground state (unique for a challenge file)", {
  inst <- challenge("3r3x_2body_n128_s1")
  x <- xorsat_qg(inst, runs = 12, clones = 64, seed = 1, backend = "cpu")
  expect_true(all(x$solved))
  sol <- attr(x, "solutions")
  expect_length(sol, 12)
  for (s in sol) {
    expect_equal(xorsat_energy(inst, s), -inst$n)
    # the GF(2) system of these files has full rank: one satisfying assignment
    expect_identical(s, inst$planted)
  }
  expect_true(all(x$clone >= 1 & x$clone <= 64))
})

test_that("checks every k sweeps replay to the first solving sweep", {
  inst <- xorsat_random(40, seed = 2)
  a <- xorsat_qg(inst, runs = 10, clones = 32, seed = 4, backend = "cpu")
  for (k in c(3, 50)) {
    b <- xorsat_qg(inst, runs = 10, clones = 32, seed = 4, backend = "cpu", check_every = k)
    expect_identical(b$sweeps, a$sweeps)
    expect_identical(b$clone, a$clone)
  }
  # the first clone to solve is the lowest-numbered one of that sweep; a run
  # that is cut one sweep earlier has not solved
  r <- which.max(a$sweeps)
  cut <- xorsat_qg(inst, runs = 1, first_run = r, clones = 32, seed = 4, backend = "cpu",
                   max_sweeps = a$sweeps[r] - 1)
  expect_false(cut$solved)
  expect_identical(cut$sweeps, a$sweeps[r] - 1)
  expect_true(is.na(cut$clone))
})

test_that("max_sweeps and timeouts cut runs, censored for tts_estimate()", {
  inst <- xorsat_random(120, seed = 1)
  x <- xorsat_qg(inst, runs = 6, clones = 32, p1 = 0.3, seed = 1, backend = "cpu",
                 max_sweeps = 200)
  expect_true(all(!x$solved | x$sweeps <= 200))
  expect_true(all(x$sweeps[!x$solved] == 200))
  y <- xorsat_qg(inst, runs = 3, clones = 32, p1 = 0.3, seed = 1, backend = "cpu",
                 timeout = 0.05)
  expect_true(all(y$seconds <= 0.05 + 1e-12))
  expect_true(all(y$seconds[!y$solved] == 0.05))
  e <- tts_estimate(y)
  expect_equal(e$total_seconds, sum(y$seconds))
})

test_that("times to solution are exponential (paper 003, Fig. 2)", {
  inst <- challenge("3r3x_2body_n128_s1")
  x <- xorsat_qg(inst, runs = 150, clones = 64, seed = 7, backend = "cpu")
  s <- x$sweeps
  # a run of many clones solves at a constant rate: sweeps are geometric,
  # about exponential at a mean of hundreds.  KS against the exponential of
  # the sample mean (estimating the mean makes the test conservative);
  # reject below p = 0.001
  p <- suppressWarnings(stats::ks.test(s, "pexp", 1 / mean(s))$p.value)
  expect_gt(p, 0.001)
  # coefficient of variation 1 for an exponential: sd of the estimate about
  # 1 / sqrt(n); accept 4 of them
  expect_lt(abs(stats::sd(s) / mean(s) - 1), 4 / sqrt(length(s)))
})

test_that("summary, print, plot and rbind of chunks work", {
  inst <- xorsat_random(40, seed = 2)
  x <- xorsat_qg(inst, runs = 10, clones = 32, seed = 4, backend = "cpu")
  a <- xorsat_qg(inst, runs = 4, clones = 32, seed = 4, backend = "cpu")
  b <- xorsat_qg(inst, runs = 6, first_run = 5, clones = 32, seed = 4, backend = "cpu")
  ab <- rbind(a, b)
  expect_identical(ab$sweeps, x$sweeps)
  expect_length(attr(ab, "solutions"), 10)
  expect_error(rbind(a, a), "overlap")
  s <- summary(x)
  expect_equal(s$runs, 10)
  expect_output(print(s), "Quasi-greedy runs")
  expect_output(print(x), "Time to solution")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(x))
  skip_if_not_installed("ggplot2")
  expect_s3_class(ggplot2::autoplot(x), "ggplot")
})

test_that("bad instances get a clear error", {
  expect_error(xorsat_qg(list(n = 3), runs = 2, backend = "cpu"),
               "`instance` must be a 3-XORSAT instance", class = "statphysgpu_error")
})

test_that("as_surv() censors the cut runs at the time they ran", {
  skip_if_not_installed("survival")
  x <- xorsat_qg(xorsat_random(120, seed = 1), runs = 5, clones = 32, p1 = 0.3, seed = 1,
                 backend = "cpu", max_sweeps = 200)
  s <- as_surv(x)
  expect_equal(unname(s[, "time"]), x$seconds)
  expect_equal(unname(s[, "status"]), as.numeric(x$solved))
})

test_that("independent_clones: per-clone p1 masks have the law of independent bits", {
  # 20000 masks of 32 bits at p1 = 0.08 (p = round(0.08 2^16) / 2^16): the
  # set bits are Binomial(640000, p) and bits 0 and 1 both set with
  # probability p^2; |z| < 4 for each (a false alarm about 1e-4)
  p <- round(0.08 * 2^16) / 2^16
  m <- .Call(statphysgpu:::C_sp_r_xorsat_masks, c(17, 0), 0.08, 20000L)
  bits <- sum(m[1:20000])
  expect_lt(abs(bits - 640000 * p) / sqrt(640000 * p * (1 - p)), 4)
  both <- sum(m[20001:40000])
  expect_lt(abs(both - 20000 * p^2) / sqrt(20000 * p^2 * (1 - p^2)), 4)
  # p1 = 0 and 1 are exact
  expect_identical(sum(.Call(statphysgpu:::C_sp_r_xorsat_masks, c(17, 0), 0, 100L)[1:100]), 0)
  expect_identical(sum(.Call(statphysgpu:::C_sp_r_xorsat_masks, c(17, 0), 1, 100L)[1:100]), 3200)
})

test_that("independent_clones: the same runs as shared decisions at p1 = 0 and 1, other runs between", {
  inst <- xorsat_random(48, seed = 6)
  key <- function(x) as.data.frame(x)[c("run", "sweeps", "solved", "clone")]
  for (p in c(0, 1)) {
    a <- xorsat_qg(inst, runs = 6, clones = 64, p1 = p, max_sweeps = 300, seed = 2,
                   backend = "cpu")
    b <- xorsat_qg(inst, runs = 6, clones = 64, p1 = p, max_sweeps = 300, seed = 2,
                   backend = "cpu", independent_clones = TRUE)
    expect_identical(key(b), key(a))
  }
  a <- xorsat_qg(inst, runs = 12, clones = 64, seed = 2, backend = "cpu")
  b <- xorsat_qg(inst, runs = 12, clones = 64, seed = 2, backend = "cpu",
                 independent_clones = TRUE)
  expect_true(all(b$solved))
  expect_true(isTRUE(attr(b, "independent_clones")))
  expect_false(identical(key(a), key(b)))
  expect_output(print(b), "per clone")
  # chunks and threads do not change the runs
  parts <- rbind(xorsat_qg(inst, runs = 5, clones = 64, seed = 2, backend = "cpu",
                           independent_clones = TRUE),
                 xorsat_qg(inst, runs = 7, first_run = 6, clones = 64, seed = 2,
                           backend = "cpu", independent_clones = TRUE))
  expect_identical(key(parts), key(b))
  expect_error(rbind(a, b), "independent_clones")
  expect_error(xorsat_qg(inst, runs = 2, independent_clones = NA, backend = "cpu"),
               "`independent_clones` must be", class = "statphysgpu_error")
})
