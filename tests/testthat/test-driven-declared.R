# driven_brownian() on the declared single-particle engine (issue 50:
# option statphysgpu.driven_engine = "declared", R/driven-declared.R)
# against the built-in engine, on the CPU.  The declared model is compiled
# once a session (shared by every test here); sizes are small, the
# tolerances derived with each test.

skip_on_cran()

dd <- function(...) {
  withr::local_options(statphysgpu.driven_engine = "declared")
  driven_brownian(..., backend = "cpu", progress = FALSE)
}
db <- function(...) {
  withr::local_options(statphysgpu.driven_engine = "builtin")
  driven_brownian(..., backend = "cpu", progress = FALSE)
}

# theta = 0 from the same given starts: the same deterministic paths (the
# algorithms coincide: the drive cos(omega t) of the exact time, the same
# Euler and Heun steps; only the rounding of omega t and of x differs)
det_args <- list(8, a = 1.5, omega = c(4.9, 3), f = 0.1, beta = 0.9, theta = 0, periods = 5,
                 steps_per_period = 200, transient = 0.4, precision = "double", seed = 3,
                 init = list(x = seq(0, 0.7, length.out = 8), v = 0.1))

test_that("declared: without noise the built-in's paths to 1e-10 in double (srk2, euler, a sweep of omega)", {
  skip_if_no_cc()
  for (m in c("srk2", "euler")) {
    b <- suppressWarnings(do.call(db, c(det_args, method = m))) # (euler: the step warning)
    d <- suppressWarnings(do.call(dd, c(det_args, method = m)))
    pb <- attr(b, "paths")
    pd <- attr(d, "paths")
    expect_identical(pd[c("condition", "replica")], pb[c("condition", "replica")])
    for (col in c("x", "v", "x_tr", "v_bar")) {
      expect_lt(max(abs(pd[[col]] - pb[[col]])), 1e-10, label = paste(m, col))
    }
    expect_equal(d$D_eff, b$D_eff, tolerance = 1e-9)
    expect_identical(attr(d, "steps"), attr(b, "steps"))
    expect_identical(attr(d, "transient_periods"), 2)
    # <v^2>: with Euler the same sum of v^2 (to rounding); with SRK2 the
    # trapezoid of v^2 at a step's start and its predictor, whose v differs
    # from the corrector's by dt (a0 - a1) / 2 = O(dt^2): |a'| <= about
    # 125 |v| here (2 pi^2 x 2 pi |v| dominates), a relative error of at
    # most 125 dt^2 = 5e-3 at dt = 2 pi / 4.9 / 200 (the measured 6e-4)
    dt <- 2 * pi / 3 / 200
    tol <- if (m == "euler") 1e-12 else 125 * dt^2
    expect_lt(max(abs(pd$v2_bar - pb$v2_bar) / pb$v2_bar), tol, label = paste(m, "v2_bar"))
  }
})

test_that("declared: each output has the built-in's shape (columns, attributes, class, histograms, trajectories)", {
  skip_if_no_cc()
  for (out in c("summary", "histogram", "trajectories")) {
    a <- c(det_args, output = out, bins = 6, keep = if (out == "trajectories") 3 else 0)
    b <- do.call(db, a)
    d <- do.call(dd, a)
    expect_identical(class(d), class(b))
    expect_identical(names(d), names(b))
    expect_identical(sort(names(attributes(d))), sort(names(attributes(b))))
    expect_identical(names(attr(d, "paths")), names(attr(b, "paths")))
    expect_identical(names(attr(d, "state")), names(attr(b, "state")))
    if (out == "histogram") {
      hb <- attr(b, "histogram")
      hd <- attr(d, "histogram")
      expect_identical(names(hd), names(hb))
      for (k in names(hb)) expect_identical(dim(hd[[k]]), dim(hb[[k]]), label = k)
      # the same paths: the same counts of the density over time
      expect_identical(hd$density$count, hb$density$count)
      expect_identical(hd$outside, hb$outside)
      expect_identical(hd$position$count, hb$position$count)
    }
    if (out == "trajectories") {
      tb <- attr(b, "trajectories")
      td <- attr(d, "trajectories")
      expect_identical(td[c("condition", "replica", "period", "t")], tb[c("condition", "replica", "period", "t")])
      expect_lt(max(abs(td$x - tb$x)), 1e-10)
      expect_lt(max(abs(td$v - tb$v)), 1e-10)
    }
    # the methods take it
    expect_output(print(d), "driven_paths")
    expect_s3_class(summary(d), class(summary(b))[1])
    grDevices::pdf(NULL)
    expect_no_error(plot(d))
    grDevices::dev.off()
  }
})

test_that("declared: with noise the built-in's law (mean velocity, <v^2>, D_eff: two-sample |z| < 4)", {
  skip_if_no_cc()
  # single precision, default (uniform) starts, SRK2: running paths (f =
  # 5, near the critical 2 pi, theta = 0.3), 4000 paths of 10 periods of
  # 200 steps, 5 dropped.
  # z = (m_d - m_b) / sqrt(se_d^2 + se_b^2) of independent estimates (the
  # streams differ) is N(0, 1) when the laws agree: |z| < 4 fails by chance
  # with probability 6e-5 a check.  The estimators' biases between the
  # engines (v2_bar with SRK2, O(dt^2)) are far below the errors here.
  a <- list(4000, a = 0, omega = 2 * pi, f = 5, beta = 1, theta = 0.3, periods = 10,
            steps_per_period = 200, transient = 0.5, seed = 11)
  b <- do.call(db, a)
  d <- do.call(dd, a)
  z <- function(md, sd, mb, sb) (md - mb) / sqrt(sd^2 + sb^2)
  expect_lt(abs(z(d$v_mean, d$v_se, b$v_mean, b$v_se)), 4)
  expect_lt(abs(z(d$v2_mean, d$v2_se, b$v2_mean, b$v2_se)), 4)
  expect_lt(abs(z(d$D_eff, d$D_eff_se, b$D_eff, b$D_eff_se)), 4)
  expect_gt(b$v_mean / b$v_se, 20) # (the checks have power: a mean well resolved)
  # another stream than the built-in's: the paths differ
  expect_false(isTRUE(all.equal(attr(d, "paths")$x, attr(b, "paths")$x)))
})

test_that("declared: errors unchanged; the option is checked; a continuation runs on", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.driven_engine = "declared")
  bad <- function(...) {
    a <- list(replicas = 4, a = 1, omega = 1, f = 0, beta = 1, theta = 0.1, periods = 2,
              steps_per_period = 400, seed = 1, backend = "cpu", progress = FALSE)
    a[names(list(...))] <- list(...)
    do.call(driven_brownian, a)
  }
  expect_error(bad(omega = 0), "`omega` must be", class = "statphysgpu_error")
  expect_error(bad(init = list(x = 1:3)), "`init\\$x` must be NULL", class = "statphysgpu_error")
  expect_error(bad(output = "histogram", window = c(2, 1)), "`window` must be",
               class = "statphysgpu_error")
  withr::with_options(list(statphysgpu.driven_engine = "gpu"),
                      expect_error(bad(), "statphysgpu.driven_engine must be \"builtin\" or",
                                   class = "statphysgpu_error"))
  # init = a declared result: continued from its end states (built-in engine)
  x <- bad(replicas = 6, periods = 4)
  y <- driven_brownian(init = x, periods = 2, backend = "cpu", progress = FALSE)
  expect_identical(attr(y, "periods"), 6)
  expect_identical(attr(y, "steps"), 2400)
  expect_identical(attr(y, "paths")$x_tr, attr(x, "paths")$x_tr)
  expect_identical(nrow(attr(y, "paths")), 6L)
})

test_that("declared: an interrupted run's paths are those of the run of the steps it reached (two states a path kept)", {
  skip_if_no_cc()
  skip_on_os("windows")
  run <- function(periods, transient) {
    dd(8192, a = 4.2, omega = 4.9, f = 0.1, beta = 0.9, theta = 0.01, periods = periods,
       transient = transient, steps_per_period = 100, seed = 5)
  }
  # compiled and loaded before the clock starts (the vector loop's object:
  # 2^24 path-steps or more)
  invisible(run(21, 0.5))
  # one thread, 8.2e8 path-steps (4-6 s here), records every 10 periods
  # (101): the run lasts well past the interrupt; the engine keeps the last
  # record reached up to the transient's end (10 periods) and the last after
  job <- interrupt_after(1.2)
  expect_warning(x <- with_threads(1, run(1000, 0.01)), class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  k <- attr(x, "steps")
  expect_lt(k, 1000 * 100)
  expect_identical(k %% 1000, 0) # a record step
  p <- attr(x, "paths")
  # the same paths run to step k (the same streams), with the same transient
  # where k passed it
  w <- run(k / 100, if (k > 1000) 10.5 / (k / 100) else 0)
  pw <- attr(w, "paths")
  expect_identical(p$x, pw$x)
  expect_identical(p$v, pw$v)
  if (k > 1000) { # past the transient (so far past the interrupt, always here)
    expect_identical(p$x_tr, pw$x_tr)
    expect_identical(x$v_bar, w$v_bar)
    expect_identical(x$D_eff, w$D_eff)
  }
})
