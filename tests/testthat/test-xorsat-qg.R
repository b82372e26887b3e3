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
