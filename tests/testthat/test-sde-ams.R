# Adaptive multilevel splitting for a user's SDE model (sde_ams()), on the CPU.

sams <- function(...) {
  sde_ams(..., backend = "cpu", precision = "double", progress = FALSE)
}

test_that("the washboard as an sde_model agrees with escape_rate_ams() on the same case", {
  skip_if_no_cc()
  # the same dynamics, start (at rest), A = {phi <= phi0 + 0.6}, B past the
  # saddle and score (the position); the two differ in rounding only (the
  # model's step is sde_engine.h's, the washboard's escape.h's), so the
  # paths differ: agreement within the combined errors, |z| < 4
  g <- 0.2; V0 <- 1; beta <- 1
  theta <- barrier_height(g, V0) / 4 # Delta U / theta = 4
  m <- sde_ams_washboard(beta, V0, g, theta)
  w <- escape_rate_ams(g, V0, beta, theta, 0.05, particles = 100, replicas = 20, seed = 1,
                       phi_A = 0.6, backend = "cpu", precision = "double", progress = FALSE)
  s <- sams(m, score = ~ x, start_edge = ~ asin(gamma) + 0.6, B = ~ pi - asin(gamma),
            init = list(x = ~ asin(gamma), v = 0), dt = 0.05, particles = 100, replicas = 20,
            seed = 2)
  z <- (s$mfpt - w$mfpt) / sqrt(s$mfpt_se^2 + w$mfpt_se^2)
  expect_lt(abs(z), 4)
  zp <- (s$p - w$p) / sqrt(s$p_se^2 + w$p_se^2)
  expect_lt(abs(zp), 4)
  # B as the model's stop event (the same set): the same estimate again
  s2 <- sams(m, score = ~ x, start_edge = ~ asin(gamma) + 0.6, B = NULL,
             init = list(x = ~ asin(gamma), v = 0), dt = 0.05, particles = 100, replicas = 20,
             seed = 3)
  expect_lt(abs((s2$mfpt - w$mfpt) / sqrt(s2$mfpt_se^2 + w$mfpt_se^2)), 4)
  expect_null(attr(s2, "B"))
})

test_that("an overdamped cubic well: AMS agrees with the exact integral and with brute force", {
  skip_if_no_cc()
  m <- sde_cubic()
  dt <- 0.01
  # Delta U / theta = 3.3: brute force by sde_run()'s passage times too
  x <- sams(m, score = ~ x, start_edge = 0.15, B = NULL, init = list(x = 0), dt = dt,
            particles = 100, replicas = 20, seed = 1)
  tex <- cubic_mfpt(0.05, dt)
  expect_lt(abs(x$mfpt - tex) / x$mfpt_se, 4) # |z| < 4 (the integral has no error)
  expect_lt(x$mfpt_se / x$mfpt, 0.15)          # about 7% expected from 20 x 100
  # (brute force checked once a step, as AMS checks its paths: bridge = FALSE)
  p <- sde_run(m, 1000, init = list(x = 0), dt = dt, t_max = 1e5, seed = 2, backend = "cpu",
               precision = "double", progress = FALSE, bridge = FALSE)
  expect_true(all(p$escaped))
  zb <- (x$mfpt - mean(p$value)) / sqrt(x$mfpt_se^2 + stats::var(p$value) / nrow(p))
  expect_lt(abs(zb), 4)
  # a barrier brute force would find slow (Delta U / theta = 6.7, tau ~ 5000),
  # B a level of the score rather than the event
  y <- sams(m, score = ~ x, start_edge = 0.1, B = 1, init = list(x = 0), dt = dt,
            params = list(theta = 0.025), particles = 100, replicas = 20, seed = 3)
  expect_lt(abs(y$mfpt - cubic_mfpt(0.025, dt)) / y$mfpt_se, 4)
  # single precision within the double's errors
  s <- sde_ams(m, score = ~ x, start_edge = 0.15, B = NULL, init = list(x = 0), dt = dt,
               particles = 100, replicas = 20, seed = 1, backend = "cpu",
               precision = "single", progress = FALSE)
  expect_lt(abs(s$mfpt - tex) / s$mfpt_se, 4)
})

test_that("two states with two noise entries (two normals a step) agree with brute force", {
  skip_if_no_cc()
  two <- sde_ams_two()
  x <- sams(two, ~ x + c * y, start_edge = 0.15, init = list(x = 0, y = 0), dt = 0.01,
            particles = 100, replicas = 10, k = 3, seed = 21)
  p <- sde_run(two, 1000, init = list(x = 0, y = 0), dt = 0.01, t_max = 1e5, seed = 2,
               backend = "cpu", precision = "double", progress = FALSE, bridge = FALSE)
  expect_true(all(p$escaped))
  z <- (x$mfpt - mean(p$value)) / sqrt(x$mfpt_se^2 + stats::var(p$value) / nrow(p))
  expect_lt(abs(z), 4) # |z| < 4 with both errors
})

test_that("a grid of parameters: one row per condition, one column per swept parameter", {
  skip_if_no_cc()
  m <- sde_cubic()
  x <- sams(m, score = ~ x, start_edge = 0.15, B = 1, init = list(x = 0), dt = 0.02,
            params = list(theta = c(0.05, 0.07)), particles = 30, replicas = 3, seed = 4)
  expect_identical(names(x)[1:2], c("condition", "theta"))
  expect_identical(x$theta, c(0.05, 0.07))
  expect_true(all(x$mfpt[1] > x$mfpt[2]))
  expect_s3_class(x, c("sde_ams", "escape_rate_ams", "data.frame"))
  # a condition's replicas do not depend on the others in the call
  y <- sams(m, score = ~ x, start_edge = 0.15, B = 1, init = list(x = 0), dt = 0.02,
            params = list(theta = 0.05), particles = 30, replicas = 3, seed = 4)
  t1 <- attr(x, "replicas_table")
  t2 <- attr(y, "replicas_table")
  expect_identical(t1$p[t1$condition == 1], t2$p)
  expect_output(print(x), "AMS with 30 particles")
  s <- summary(x)
  expect_true(all(c("t_loop", "t_react", "rel_var", "rel_var_ideal") %in% names(s)))
  pts <- plot(x, reference = data.frame(mfpt = x$mfpt * 1.1))
  expect_identical(pts$source, rep(c("AMS", "reference"), each = 2))
  expect_identical(pts$at[1:2], x$theta)
  # a row of the result: its own condition's parameter, one point each
  pts <- plot(x[2, ], reference = data.frame(mfpt = x$mfpt[2]))
  expect_identical(pts$source, c("AMS", "reference"))
  expect_identical(pts$at[1], 0.07)
  expect_identical(pts$mfpt, rep(x$mfpt[2], 2))
  expect_error(plot(x, reference = data.frame(mfpt = 1)), "one per condition")
})

test_that("chunks by first_replica combine with rbind() to the one call, at any thread count", {
  skip_if_no_cc()
  m <- sde_cubic()
  f <- function(first, n, seed = 5) {
    sams(m, score = ~ x, start_edge = 0.15, B = NULL, init = list(x = 0), dt = 0.02, particles = 20,
         replicas = n, first_replica = first, seed = seed)
  }
  one <- with_threads(1, f(1, 4))
  two <- with_threads(2, f(1, 4))
  expect_identical(as.data.frame(one), as.data.frame(two))
  w <- rbind(f(3, 2), f(1, 2))
  expect_identical(as.data.frame(w), as.data.frame(one))
  expect_identical(attr(w, "replicas_table")$replica, as.double(1:4))
  expect_error(rbind(one, f(5, 2, seed = 6)), "chunks of one estimate")
  # a parameter set (not swept) to another value: another estimate
  other <- sams(m, score = ~ x, start_edge = 0.15, B = NULL, init = list(x = 0), dt = 0.02,
                params = list(theta = 0.06), particles = 20, replicas = 2, first_replica = 5,
                seed = 5)
  expect_error(rbind(one, other), "chunks of one estimate")
  # another model's chunk is another estimate
  e <- escape_rate_ams(0.3, 1, 1, 0.3, 0.05, particles = 20, replicas = 2, first_replica = 5,
                       seed = 5, backend = "cpu", progress = FALSE)
  expect_error(rbind(one, e), "chunks of one estimate")
})

test_that("errors name the argument, before anything compiles", {
  m <- sde_cubic()
  n0 <- statphysgpu:::sde_compile_stats()$compiles
  ok <- list(model = m, score = ~ x, start_edge = 0.15, B = 1, init = list(x = 0), dt = 0.01,
             particles = 10, replicas = 2, seed = 1, backend = "cpu", progress = FALSE)
  call <- function(...) {
    a <- ok
    b <- list(...)
    a[names(b)] <- b
    do.call(sde_ams, a)
  }
  expect_error(call(score = ~ y), "`score` uses the unknown variable `y`")
  expect_error(call(score = ~ bessel(x)), "unknown function `bessel\\(\\)`")
  expect_error(call(score = ~ theta), "uses no state")
  expect_error(call(score = ~ x * t), "must not depend on the time")
  expect_error(call(start_edge = 1, B = 1), "`start_edge` \\(1\\) must be below `B` \\(1\\)")
  expect_error(call(start_edge = 0.5, B = 0.2), "must be below `B`")
  # a score decreasing toward B puts the start outside A
  expect_error(call(score = ~ -x, start_edge = -0.2, B = -0.1), "start `init` lies outside A")
  expect_error(call(start_edge = ~ bogus), "`start_edge` uses the unknown variable `bogus`")
  expect_error(call(start_edge = "x"), "`start_edge` uses the unknown variable `x`")
  expect_error(call(start_edge = NA), "`start_edge` must be one finite number")
  expect_error(call(B = NULL, model = sde_cubic(stop = NULL)), "has no `stop`")
  expect_error(call(B = NULL, init = list(x = 2)), "outside A|stop event")
  expect_error(call(init = list(x = c(0, 0.1))), "`init\\$x` must be one number")
  expect_error(call(init = list(y = 0)), "`init`")
  expect_error(call(k = 10), "`k` \\(10\\) must be smaller than `particles`")
  expect_error(call(particles = 1), "`particles`")
  expect_error(call(dt = -1), "`dt`")
  # a step past the stability limit of the linearised step at the start
  # (Heun: |1 + z + z^2 / 2| >= 1 at z = -dt for the well's rate 1, dt >= 2;
  # it returned p = 1 at dt = 100), refused; a step whose well fluctuations
  # are off by (dt)^2 / 4 > 10% (dt = 1), and whose levels move by 0.58
  # sqrt(2 theta dt) = 0.18 > (B - A) / 10, warned about
  expect_error(call(dt = 100), "too coarse.*\\|R\\(lambda dt\\)\\| = 4901",
               class = "statphysgpu_step_error")
  expect_error(call(dt = 2.5, method = "euler"), "too coarse", class = "statphysgpu_step_error")
  w <- tryCatch(call(dt = 1), warning = function(w) w)
  expect_s3_class(w, "statphysgpu_step_warning")
  expect_match(conditionMessage(w), "off by about 25%")
  w <- tryCatch(call(dt = 0.3, start_edge = 0.9), warning = function(w) w)
  expect_match(conditionMessage(w), "coarse for the levels")
  expect_error(call(params = list(kappa = 1)), "not a parameter of the model")
  expect_error(call(precision = "mixed"), "precision")
  expect_error(call(model = 1), "`model` must be a model made by sde_model\\(\\)")
  expect_error(call(model = sde_model(drift = list(x = ~ -x), name = "ode")), "has no noise")
  expect_error(call(model = sde_model(drift = list(x = ~ -x + sin(t)),
                                      noise = list(x = ~ 1), name = "forced")),
               "depends on the time `t`")
  expect_identical(statphysgpu:::sde_compile_stats()$compiles, n0)
})

test_that("the score's generated C and the CPU object's entries", {
  skip_if_no_cc()
  m <- sde_cubic()
  code <- statphysgpu:::sde_score_header(m, quote(x + 0.5 * theta))
  expect_match(code, "SP_PREC(sde_ams_score)", fixed = TRUE)
  expect_match(code, "(x[0] + (SP_R(0.5) * p[0]))", fixed = TRUE)
  lib <- statphysgpu:::sde_ams_cpu_load(m, list(sde_ams_score.h = code), NULL)
  expect_true(all(c("long_f", "long_d", "branch_f", "branch_d") %in% names(lib)))
  expect_true(file.exists(lib$path))
})

test_that("drawn starts: every start of a replica from its own stream, exactly", {
  skip_if_no_cc()
  m <- sde_ams_drift()
  dt <- 0.01
  # each start's first exit (no equilibration) or its fate after `burn`
  # steps (some reach B while equilibrating and are drawn again, some end
  # outside A and escape directly) gives its value: the durations equal those
  # of the draws of Philox purpose 13, block j for start j
  cases <- list(
    list(init = ~ runif(-0.3, 0), kind = 0, tf = function(z) -0.3 + 0.3 * z, burn = 0),
    list(init = ~ rnorm(-0.2, 0.05), kind = 1, tf = function(z) -0.2 + 0.05 * z, burn = 0),
    list(init = ~ rcauchy(-0.2, 0.001), kind = 2, tf = function(z) -0.2 + 0.001 * z,
         burn = 0),
    list(init = ~ runif(-0.3, 0), kind = 0, tf = function(z) -0.3 + 0.3 * z, burn = 60))
  for (cs in cases) {
    x <- sde_ams(m, ~ x, start_edge = 0.5, B = 0.55, init = list(x = cs$init), dt = dt,
                 particles = 4, replicas = 3, first_replica = 2, seed = 10,
                 equilibration = cs$burn * dt, backend = "cpu", precision = "double",
                 progress = FALSE)
    tab <- attr(x, "replicas_table")
    z <- sde_ams_start_draws(10, 2:4, 40, cs$kind)
    for (r in 1:3) {
      e <- sde_ams_drift_expect(cs$tf(z[, r]), 0.5, 0.55, cs$burn, dt, 4)
      got <- unlist(tab[r, names(e)])
      expect_equal(got, e, tolerance = 1e-6, info = paste(deparse(cs$init), r)) # noise 1e-9
    }
  }
  # the last case met every branch: 6 direct escapes, 5 starts that reached B
  # while equilibrating (drawn again)
  expect_identical(sum(tab$n_direct), 6)
  expect_identical(attr(x, "init_laws"), c(x = "runif(-0.3, 0)"))
  expect_identical(attr(x, "equilibration"), 0.6)
})

test_that("a thermal start (drawn, equilibrated) in the cubic well: the exact time, chunks", {
  skip_if_no_cc()
  m <- sde_cubic()
  dt <- 0.01
  # the harmonic law of the well (U''(0) = 1: variance theta) and 2
  # relaxation times of equilibration; the mean first-passage time from
  # there is that from the bottom within 0.5 per cent (tau(x) is flat in the
  # well), far below the error: |z| < 4 against the exact integral
  th <- sams(m, ~ x, start_edge = 0.15, init = list(x = ~ rnorm(0, sqrt(theta))), dt = dt,
             particles = 100, replicas = 12, seed = 31, equilibration = 2)
  expect_lt(abs(th$mfpt - cubic_mfpt(0.05, dt)) / th$mfpt_se, 4)
  expect_output(print(th), "start x = rnorm\\(0, sqrt\\(theta\\)\\), equilibration 2")
  # chunks of drawn, equilibrated starts combine to the one call
  f <- function(first, n, ...) {
    sams(m, ~ x, start_edge = 0.15, init = list(x = ~ rnorm(0, 0.2)), dt = 0.02, particles = 20,
         replicas = n, first_replica = first, seed = 9, equilibration = 1, ...)
  }
  one <- f(1, 4)
  expect_identical(attr(rbind(f(3, 2), f(1, 2)), "replicas_table"), attr(one, "replicas_table"))
  # another law or another equilibration is another estimate
  expect_error(rbind(f(1, 2), sams(m, ~ x, start_edge = 0.15, init = list(x = ~ rnorm(0, 0.3)),
                                   dt = 0.02, particles = 20, replicas = 2, first_replica = 3,
                                   seed = 9, equilibration = 1)), "init_laws")
  expect_error(rbind(f(1, 2), sams(m, ~ x, start_edge = 0.15, init = list(x = ~ rnorm(0, 0.2)),
                                   dt = 0.02, particles = 20, replicas = 2, first_replica = 3,
                                   seed = 9)), "equilibration")
})

test_that("continuing a result (init = x) equals one call with all the replicas", {
  skip_if_no_cc()
  m <- sde_cubic()
  f <- function(n, first = 1) {
    sams(m, ~ x, start_edge = 0.15, init = list(x = ~ rnorm(0, 0.2)), dt = 0.02, particles = 20,
         replicas = n, first_replica = first, seed = 10, equilibration = 1)
  }
  one <- f(6)
  a <- f(2)
  b <- sde_ams(m, init = a, replicas = 3, backend = "cpu", progress = FALSE)
  expect_identical(attr(b, "replicas_table"), attr(f(5), "replicas_table"))
  c2 <- sde_ams(m, init = b, replicas = 1, backend = "cpu", progress = FALSE)
  expect_identical(as.data.frame(c2), as.data.frame(one))
  expect_identical(attr(c2, "replicas_table"), attr(one, "replicas_table"))
  # after rbind() of chunks: numbered after the last replica held
  r <- rbind(f(2, 3), f(2))
  expect_identical(attr(sde_ams(m, init = r, replicas = 2, backend = "cpu", progress = FALSE),
                        "replicas_table"), attr(one, "replicas_table"))
  # arguments given again must be the result's
  expect_identical(attr(sde_ams(m, ~ x, start_edge = 0.15, init = a, dt = 0.02, particles = 20, seed = 10,
                                replicas = 3, backend = "cpu", progress = FALSE),
                        "replicas_table"), attr(b, "replicas_table"))
  expect_error(sde_ams(m, init = a, replicas = 1, dt = 0.01), "was run with dt = 0.02")
  expect_error(sde_ams(m, init = a, replicas = 1, seed = 11), "was run with seed")
  expect_error(sde_ams(m, init = a, replicas = 1, score = ~ 2 * x), "was run with score")
  expect_error(sde_ams(m, init = a, replicas = 1, first_replica = 3), "`first_replica` cannot")
  expect_error(sde_ams(sde_cubic(stop = ~ x > 1.1), init = a, replicas = 1), "another model")
  bad <- a
  attr(bad, "replicas_table")$p[1] <- 1
  expect_error(sde_ams(m, init = bad, replicas = 1), class = "statphysgpu_modified_result")
  expect_error(sde_ams(m, init = escape_rate_ams(0.3, 1, 1, 0.3, 0.05, particles = 5,
                                                 replicas = 2, seed = 1, backend = "cpu",
                                                 progress = FALSE), replicas = 1),
               "not an escape_rate_ams")
})

test_that("drawn starts and equilibration: errors name the argument", {
  m <- sde_cubic()
  call <- function(...) {
    sde_ams(m, score = ~ x, start_edge = 0.15, B = 1, dt = 0.01, particles = 10, replicas = 2,
            seed = 1, backend = "cpu", progress = FALSE, ...)
  }
  expect_error(call(init = list(x = ~ rnorm(0, -1))), "`sd` must not be negative")
  expect_error(call(init = list(x = ~ runif(0.1, 0))), "`min` must not exceed `max`")
  expect_error(call(init = list(x = ~ rcauchy(0, -theta))), "`scale` must not be negative")
  expect_error(call(init = list(x = ~ 1 + rnorm(0, 1))), "must be one draw")
  expect_error(call(init = list(x = ~ rnorm(0, x))), "unknown variable `x`")
  expect_error(call(init = list(x = ~ rnorm(i, 1))), "unknown variable `i`")
  expect_error(call(init = list(x = ~ rnorm(0.5, 1))), "centre of its law.*outside A")
  expect_error(call(init = list(x = 0), equilibration = -1), "`equilibration`")
  expect_error(call(init = list(x = 0), equilibration = NA), "`equilibration`")
})
