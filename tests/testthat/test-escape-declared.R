# escape_times() and switching_currents() on the declared single-particle
# engine (issue 50: option statphysgpu.escape_engine = "declared",
# R/escape-declared.R) against the built-in engine, on the CPU.  The two
# declared models (fixed bias, ramp) are compiled once a session and shared
# by every test here; sizes are small, seeds fixed.  The laws are compared
# by two-sample z-tests, |z| < 4 accepted (a false alarm 6e-5 a comparison;
# some 20 comparisons here: 1.3e-3 for the file at these seeds).

skip_on_cran()

ed <- function(f, ...) {
  withr::local_options(statphysgpu.escape_engine = "declared")
  f(..., backend = "cpu", progress = FALSE)
}
eb <- function(f, ...) {
  withr::local_options(statphysgpu.escape_engine = "builtin")
  f(..., backend = "cpu", progress = FALSE)
}

# two-sample z of the means of x and y
z_means <- function(x, y) (mean(x) - mean(y)) / sqrt(var(x) / length(x) + var(y) / length(y))

# the attributes of a result, less the declared engine's runs
attr_names <- function(x) sort(setdiff(names(attributes(x)), "sde_runs"))

test_that("declared: the result has the built-in's class, columns, attributes and state", {
  skip_if_no_cc()
  a <- list(40, gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02, t_max = 30,
            seed = 3, threshold = "next_well")
  for (init in c("rest", "thermal")) {
    b <- do.call(eb, c(list(escape_times), a, init = init))
    d <- do.call(ed, c(list(escape_times), a, init = init))
    expect_identical(class(d), class(b))
    expect_identical(names(d), names(b))
    expect_identical(lapply(d, typeof), lapply(b, typeof))
    expect_identical(attr_names(d), attr_names(b))
    expect_identical(d[c("condition", "gamma", "V0", "beta", "theta", "replica")],
                     b[c("condition", "gamma", "V0", "beta", "theta", "replica")])
    for (at in c("conditions", "method", "dt", "t_max", "threshold", "init", "replicas",
                 "first_replica", "args", "seed", "seed_hex", "backend", "precision",
                 "interrupted")) {
      expect_identical(attr(d, at), attr(b, at), label = paste(init, at))
    }
    expect_identical(names(attr(d, "steps")), c("useful", "issued"))
    expect_identical(names(attr(d, "unfinished")), names(attr(b, "unfinished")))
    expect_identical(nrow(attr(d, "unfinished")), 0L)
    st <- attr(d, "state")
    expect_identical(lapply(st, typeof), lapply(attr(b, "state"), typeof))
    # the paths not escaped, where they stopped: at kmax, finite
    expect_identical(as.double(st$replica), as.double(d$replica[!d$escaped]))
    expect_identical(st$condition, d$condition[!d$escaped])
    expect_true(all(st$step == 30 / 0.02 & is.finite(st$phi) & is.finite(st$v)))
    expect_true(all(st$hit == 0 & st$frac == 0))
    expect_true(all(d$value[!d$escaped] == 30) && all(d$value[d$escaped] <= 30))
    # what a continuation reads is sealed, the engine's runs with it
    expect_true("sde_runs" %in% names(attr(d, "sealed")))
    runs <- attr(d, "sde_runs")
    expect_length(runs, 1) # one run of both conditions (thermal: a start per path)
    expect_s3_class(runs[[1]], "sde_passage")
    expect_null(attr(b, "sde_runs"))
    expect_output(print(d), "escape_times")
    expect_s3_class(summary(d), class(summary(b)))
  }
  s <- list(30, ramp = c(2e-3, 4e-3), V0 = 4, beta = 0.3, theta = 0.2, dt = 0.02, seed = 3,
            gamma0 = 0.4, gamma_max = 0.9)
  b <- do.call(eb, c(list(switching_currents), s))
  d <- do.call(ed, c(list(switching_currents), s))
  expect_identical(class(d), class(b))
  expect_identical(names(d), names(b))
  expect_identical(attr_names(d), attr_names(b))
  for (at in c("conditions", "gamma0", "gamma_max", "start_bound", "args", "init")) {
    expect_identical(attr(d, at), attr(b, at), label = at)
  }
  expect_true(all(d$value >= 0.4 & d$value <= 0.9))
  expect_true(all(d$value[!d$escaped] == 0.9))
  expect_length(attr(d, "sde_runs"), 2) # two ramps: two ends, one run each
})

test_that("declared: escape times have the built-in's law (euler, srk2; rest, thermal; two conditions)", {
  skip_if_no_cc()
  # every path escapes (t_max far beyond: censoring none), so the mean of
  # the times is the mean escape time of each condition
  a <- list(600, gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02, t_max = 1e5,
            threshold = "next_well")
  for (m in c("euler", "srk2")) {
    for (init in c("rest", "thermal")) {
      b <- suppressWarnings(do.call(eb, c(list(escape_times), a, seed = 11, method = m,
                                          init = init)))
      d <- suppressWarnings(do.call(ed, c(list(escape_times), a, seed = 12, method = m,
                                          init = init)))
      expect_true(all(d$escaped) && all(b$escaped))
      for (c in 1:2) {
        z <- z_means(d$value[d$condition == c], b$value[b$condition == c])
        expect_lt(abs(z), 4, label = sprintf("%s %s condition %d: z", m, init, c))
      }
    }
  }
})

test_that("declared: thermal starts follow the built-in's law, without R's RNG", {
  skip_if_no_cc()
  # phi and v at the start: t_max = one step, the censored paths' state
  # after one step (the well is deep: few escape) -- compared with the
  # built-in's by their means and variances
  a <- list(3000, gamma = 0.3, V0 = 2, beta = 0.5, theta = 0.4, dt = 0.001, t_max = 0.001,
            init = "thermal", threshold = "next_well")
  set.seed(1)
  before <- .Random.seed
  d <- suppressWarnings(do.call(ed, c(list(escape_times), a, seed = 5)))
  expect_identical(.Random.seed, before)
  b <- suppressWarnings(do.call(eb, c(list(escape_times), a, seed = 6)))
  sd <- attr(d, "state")
  sb <- attr(b, "state")
  expect_identical(nrow(sd), 3000L)
  expect_lt(abs(z_means(sd$phi, sb$phi)), 4)
  expect_lt(abs(z_means(sd$v, sb$v)), 4)
  # variances: z of the squared deviations
  expect_lt(abs(z_means((sd$phi - mean(sd$phi))^2, (sb$phi - mean(sb$phi))^2)), 4)
  expect_lt(abs(z_means(sd$v^2, sb$v^2)), 4)
  # reproducible, chunks the one call's paths
  d2 <- suppressWarnings(do.call(ed, c(list(escape_times), a, seed = 5)))
  expect_identical(attr(d2, "state"), sd)
})

test_that("declared: switching currents have the built-in's law (one ramp from rest, two ramps thermal)", {
  skip_if_no_cc()
  s <- list(500, ramp = 1e-3, V0 = 4, beta = 0.3, theta = 0.2, dt = 0.02)
  b <- do.call(eb, c(list(switching_currents), s, seed = 21))
  d <- do.call(ed, c(list(switching_currents), s, seed = 22))
  expect_true(all(d$escaped) && all(b$escaped))
  expect_lt(abs(z_means(d$value, b$value)), 4)
  # two ramps (one sde_run() a condition), thermal at gamma0 = 0.6
  s2 <- list(400, ramp = c(1e-3, 3e-3), V0 = 4, beta = 0.3, theta = 0.2, dt = 0.02,
             gamma0 = 0.6, init = "thermal")
  b <- suppressWarnings(do.call(eb, c(list(switching_currents), s2, seed = 23)))
  d <- suppressWarnings(do.call(ed, c(list(switching_currents), s2, seed = 24)))
  for (c in 1:2) {
    # paths censored at gamma_max (a few of the faster ramp's in either
    # engine): counts that agree in law (Poisson z of the difference < 4)
    nd <- sum(!d$escaped[d$condition == c])
    nb <- sum(!b$escaped[b$condition == c])
    expect_lt(abs(nd - nb) / sqrt(nd + nb + 1), 4)
    expect_lt(nd, 20) # (at most 5 % censored: the sweep reaches gamma_max = 1)
    z <- z_means(d$value[d$condition == c], b$value[b$condition == c])
    expect_lt(abs(z), 4, label = sprintf("ramp %d: z", c))
  }
})

test_that("declared: chunks combine into the one-call result, in one run and in one a condition", {
  skip_if_no_cc()
  for (init in c("rest", "thermal")) {
    a <- list(gamma = c(0.5, 0.6), V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02, t_max = 40,
              seed = 9, init = init)
    whole <- do.call(ed, c(list(escape_times), a, replicas = 30))
    x <- do.call(ed, c(list(escape_times), a, replicas = 12))
    y <- do.call(ed, c(list(escape_times), a, replicas = 18, first_replica = 13))
    xy <- rbind(x, y)
    expect_identical(as.data.frame(xy), as.data.frame(whole))
    expect_identical(attr(xy, "state"), attr(whole, "state"))
    expect_identical(attr(xy, "steps")[["useful"]], attr(whole, "steps")[["useful"]])
    # the combination keeps both chunks' runs
    expect_length(attr(xy, "sde_runs"), length(attr(x, "sde_runs")) * 2)
  }
})

test_that("declared: an interrupt returns every path, the unfinished censored where they stopped", {
  skip_if_no_cc()
  skip_on_os("windows")
  args <- list(gamma = 0.3, V0 = 1, beta = 0.1, theta = 0.15, dt = 0.01, t_max = 1e9, seed = 1)
  invisible(do.call(ed, c(list(escape_times), args, replicas = 20))) # compiled and loaded
  job <- interrupt_after(1)
  expect_warning(
    x <- with_threads(1, do.call(ed, c(list(escape_times), args, replicas = 4000))),
    "interrupted: .* of 4,000 paths finished; the .* unfinished are censored at the time",
    class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_true(attr(x, "interrupted"))
  expect_false(anyNA(x$value) || anyNA(x$escaped))
  unf <- attr(x, "unfinished")
  expect_gt(nrow(unf), 0)
  iu <- match(paste(unf$condition, unf$replica), paste(x$condition, x$replica))
  expect_false(any(x$escaped[iu]))
  st <- attr(x, "state")
  is <- match(paste(unf$condition, unf$replica), paste(st$condition, st$replica))
  # where they stopped: a step reached (its time the value) or not started
  k <- st$step[is]
  expect_true(all(k == -1 | abs(x$value[iu] - k * 0.01) < 1e-9))
  expect_true(all(x$value[iu][k == -1] == 0))
  expect_identical(summary(x)$unfinished, nrow(unf))
  # a finished path is that of an uninterrupted run of its replica
  done <- which(x$escaped)[1]
  y <- do.call(ed, c(list(escape_times), args, replicas = 1, first_replica = x$replica[done]))
  expect_identical(y$value, x$value[done])
  # a started unfinished path, run to its end, escapes after the time reached
  started <- iu[x$value[iu] > 0][1]
  z <- do.call(ed, c(list(escape_times), args, replicas = 1, first_replica = x$replica[started]))
  expect_true(z$escaped)
  expect_gt(z$value, x$value[started])
})

test_that("declared: an interrupt leaves the later paths unstarted", {
  skip_if_no_cc()
  skip_on_os("windows")
  # thermal starts of two conditions: one sde_run(), a start per path; the
  # first condition's paths run long (a deep well), so the interrupt comes
  # before a lane takes a path of the second
  args <- list(gamma = c(0.1, 0.9), V0 = 2, beta = 0.1, theta = 0.15, dt = 0.01, t_max = 1e9,
               seed = 1, init = "thermal")
  # compiled and loaded (the vector loop's object: 2^24 replica-steps a call)
  invisible(do.call(ed, c(list(escape_times), modifyList(args, list(t_max = 1e4)),
                          replicas = 20)))
  job <- interrupt_after(1)
  expect_warning(x <- with_threads(1, do.call(ed, c(list(escape_times), args, replicas = 2000))),
                 class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  c2 <- x$condition == 2
  expect_false(any(x$escaped[c2]))
  expect_true(all(x$value[c2] == 0))
  st <- attr(x, "state")
  expect_true(all(st$step[st$condition == 2] == -1))
  unf <- attr(x, "unfinished")
  expect_identical(sum(unf$condition == 2), 2000L)
  expect_length(attr(x, "sde_runs"), 1)
})

test_that("declared: continuing a result -- the built-in's on the built-in, the declared's on the declared", {
  skip_if_no_cc()
  a <- list(30, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.05, seed = 4)
  b <- do.call(eb, c(list(escape_times), a, t_max = 10))
  whole <- do.call(eb, c(list(escape_times), a, t_max = 40))
  y <- ed(escape_times, init = b, t_max = 40)
  expect_identical(as.data.frame(y), as.data.frame(whole))
  d <- do.call(ed, c(list(escape_times), a, t_max = 10))
  dwhole <- do.call(ed, c(list(escape_times), a, t_max = 40))
  expect_gt(sum(!d$escaped), sum(!dwhole$escaped)) # some paths escape in the continuation
  # the declared result continues on the declared engine whatever the option
  for (go in list(ed, eb)) {
    y <- go(escape_times, init = d, t_max = 40)
    expect_identical(as.data.frame(y), as.data.frame(dwhole))
    expect_identical(attr(y, "state"), attr(dwhole, "state"))
    expect_identical(attr(y, "steps"), attr(dwhole, "steps"))
    expect_identical(attr(y, "t_max"), 40)
    expect_length(attr(y, "sde_runs"), 1)
  }
  # two ramps (two ends: a call each), continued to a larger gamma_max
  s <- list(40, ramp = c(2e-3, 4e-3), V0 = 4, beta = 0.3, theta = 0.2, dt = 0.02, seed = 3,
            gamma0 = 0.4)
  sa <- do.call(ed, c(list(switching_currents), s, gamma_max = 0.6))
  sw <- do.call(ed, c(list(switching_currents), s, gamma_max = 0.9))
  expect_gt(sum(!sa$escaped), sum(!sw$escaped))
  sb <- ed(switching_currents, init = sa, gamma_max = 0.9)
  expect_identical(as.data.frame(sb), as.data.frame(sw))
  expect_identical(attr(sb, "state"), attr(sw, "state"))
  expect_identical(attr(sb, "steps"), attr(sw, "steps"))
  # a result whose later calls an interrupt left unmade cannot be continued
  n0 <- sa
  attr(n0, "sde_runs")[2] <- list(NULL)
  expect_error(ed(switching_currents, init = reseal(n0), gamma_max = 0.9),
               class = "statphysgpu_continue_unsupported")
  # a modified declared result is refused as a modified one
  attr(d, "sde_runs") <- attr(d, "sde_runs")[0]
  expect_error(ed(escape_times, init = d, t_max = 40), class = "statphysgpu_modified_result")
})

test_that("declared: a non-finite path is the built-in's error; a bad option value is refused", {
  skip_if_no_cc()
  # escape_times() refuses the parameters that overflow (escape_check_steps()),
  # and the declared engine's sine stays finite at any argument: the run
  # itself, with a damping past those checks (beta v overflows at step 2)
  call <- quote(escape_times())
  grid <- statphysgpu:::escape_grid(list(gamma = 0.5, V0 = 1, beta = c(1, 1e300), theta = 1),
                                    call)
  fr <- statphysgpu:::sim_frame(call, n = 4, seed = 1, backend = "cpu", precision = "double",
                                precisions = c("single", "double"), progress = FALSE,
                                groups = 2)
  for (ramp in c(FALSE, TRUE)) {
    if (ramp) names(grid)[2] <- "ramp"
    ec <- statphysgpu:::escape_conditions(grid, g0 = 0.5, dg = if (ramp) 1e-3 * 0.01 else 0,
                                          h = 0.01, th = pi - asin(0.5),
                                          vcens = if (ramp) 0.9 else 1,
                                          kmax = 100, start = "rest", call = call)
    expect_error(
      statphysgpu:::escape_declared_run(if (ramp) "switching_currents" else "escape_times",
                                        fr, grid, ec, "euler", "rest", call),
      class = "statphysgpu_not_finite",
      paste0("^the velocity v of replica [1-4] of condition 2 became non-finite at step 2 ",
             "\\(t = 0.02", if (ramp) ", bias gamma = 0.50002", "\\); such a path can neither ",
             "escape nor be censored: use a smaller `dt` or check that condition's parameters$"))
  }
  withr::local_options(statphysgpu.escape_engine = "fast")
  expect_error(escape_times(5, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.02,
                            t_max = 1, seed = 1, backend = "cpu"),
               "option statphysgpu.escape_engine must be \"builtin\" or \"declared\"")
})
