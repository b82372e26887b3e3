# Issue 48, "Hangs and resources" (items 3, 6, 7, 8) and messages that name
# the argument and the fix.

# Run `code` (a function) in a forked child, send it SIGINT (a Ctrl-C)
# after `interrupt` seconds (NULL: none) and wait at most `deadline` seconds
# for it: list(value, warnings (their classes), messages (theirs)).  A child
# that does not stop in time is killed and the test fails -- a hang becomes
# a failure, not a CI job that never ends.
run_with_deadline <- function(code, interrupt = NULL, deadline = 60) {
  job <- parallel::mcparallel({
    w <- list()
    v <- tryCatch(withCallingHandlers(code(), warning = function(cnd) {
      w[[length(w) + 1]] <<- cnd
      invokeRestart("muffleWarning")
    }), error = function(e) e)
    list(value = v, warnings = vapply(w, function(cnd) class(cnd)[1], ""),
         messages = vapply(w, conditionMessage, ""))
  })
  if (!is.null(interrupt)) {
    Sys.sleep(interrupt)
    tools::pskill(job$pid, tools::SIGINT)
  }
  res <- parallel::mccollect(job, wait = FALSE, timeout = deadline)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job)
    testthat::fail(sprintf("the call did not stop within %s s%s", deadline,
                           if (is.null(interrupt)) "" else " of its interrupt"))
    return(NULL)
  }
  res[[1]]
}

# ---- item 3: a particle's path is split across rounds ------------------------

ams_far <- function(precision = "double") {
  escape_rate_ams(gamma = 0.5, V0 = 1, beta = 1, theta = 0.1, dt = 0.05, particles = 20,
                  replicas = 2, backend = "cpu", threshold = 1e7, precision = precision,
                  seed = 1, progress = FALSE)
}

test_that("escape_rate_ams(): Ctrl-C stops a run whose paths to a far threshold are long", {
  skip_on_os("windows")
  # a path from A to phi = 1e7 takes 1.3e8 steps or more: before the fix, one
  # particle's run was never split across rounds, and the run ignored Ctrl-C
  r <- run_with_deadline(ams_far, interrupt = 1.5, deadline = 30)
  skip_if(is.null(r))
  expect_s3_class(r$value, "escape_rate_ams")
  expect_true(attr(r$value, "interrupted"))
  expect_true("statphysgpu_interrupted" %in% r$warnings)
  expect_true("statphysgpu_ams_far_threshold" %in% r$warnings)
  expect_equal(nrow(attr(r$value, "rerun")), 1)
})

test_that("escape_rate_ams(): setTimeLimit() stops a run whose paths are long", {
  skip_on_os("windows")
  r <- run_with_deadline(function() {
    setTimeLimit(elapsed = 1)
    on.exit(setTimeLimit())
    suppressWarnings(ams_far())
  }, deadline = 30)
  skip_if(is.null(r))
  expect_s3_class(r$value, "error")
  expect_match(conditionMessage(r$value), "elapsed time limit")
})

test_that("AMS results do not depend on the rounds (paths paused and resumed mid-way)", {
  run <- function(...) {
    attr(escape_rate_ams(gamma = 0.3, V0 = 1, beta = 2, theta = 0.12, dt = 0.05,
                         particles = 30, replicas = 3, seed = 7, backend = "cpu",
                         progress = FALSE, ...), "replicas_table")
  }
  whole <- run()
  energy <- run(score = "energy", precision = "double", k = 1)
  # 40 steps a round: every particle's run and replay is cut into pieces
  withr::local_options(statphysgpu.ams_round_steps = 40)
  expect_identical(run(), whole)
  expect_identical(run(score = "energy", precision = "double", k = 1), energy)
  expect_gt(min(whole$steps), 40 * 30)
})

test_that("sde_ams() results do not depend on the rounds", {
  skip_if_no_cc()
  m <- sde_cubic()
  run <- function() {
    attr(sde_ams(m, score = ~ x, start_edge = 0.15, B = 1, init = list(x = ~ rnorm(0, 0.1)),
                 dt = 0.01, particles = 30, replicas = 3, seed = 3, equilibration = 1,
                 backend = "cpu", precision = "double", progress = FALSE), "replicas_table")
  }
  whole <- run()
  withr::local_options(statphysgpu.ams_round_steps = 25)
  expect_identical(run(), whole)
})

test_that("escape_rate_ams(): a threshold out of reach is refused, a far one told up front", {
  skip_on_os("windows")
  # in a child with a deadline: before the fix each of these calls ran for hours
  r <- run_with_deadline(function() {
    list(
      # single precision: near phi = 1e7 floats are 1 apart, a step moves phi by < 0.14
      single = tryCatch(ams_far("single"), error = identity),
      # more steps a path than the engine's 2^34
      limit = tryCatch(escape_rate_ams(gamma = 0.5, V0 = 1, beta = 1, theta = 0.1, dt = 0.05,
                                       particles = 20, replicas = 2, backend = "cpu",
                                       threshold = 1e12, precision = "double"),
                       error = identity),
      # far: the cost told (the warning caught before the run starts)
      far = tryCatch(ams_far(), statphysgpu_ams_far_threshold = identity))
  }, deadline = 30)
  skip_if(is.null(r))
  expect_s3_class(r$value$single, "statphysgpu_error")
  expect_match(conditionMessage(r$value$single), "`threshold`.*out of reach in single precision")
  expect_s3_class(r$value$limit, "statphysgpu_error")
  expect_match(conditionMessage(r$value$limit), "`threshold`.*2\\^34 steps a path")
  expect_s3_class(r$value$far, "statphysgpu_ams_far_threshold")
  expect_match(conditionMessage(r$value$far), "1.33e\\+08 steps")
  # a threshold near the saddle: no warning
  expect_no_warning(escape_rate_ams(gamma = 0.5, V0 = 1, beta = 1, theta = 0.2, dt = 0.05,
                                    threshold = 3, particles = 10, replicas = 1, seed = 1,
                                    backend = "cpu", progress = FALSE))
})

# ---- item 7: sde_ams() with its noise at zero ----------------------------------

test_that("sde_ams(): noise set to zero through `params` is refused", {
  skip_on_os("windows")
  m <- sde_cubic()
  args <- list(m, score = ~ x, start_edge = 0.15, B = 1, init = list(x = 0), dt = 0.01,
               particles = 10, replicas = 2, backend = "cpu", progress = FALSE)
  # a state-dependent noise that vanishes at a start where the drift does too
  m2 <- sde_model(drift = list(x = ~ -x + x^2), noise = list(x = ~ s * x),
                  params = c(s = 0.3), name = "mult")
  # in a child with a deadline: before the fix these calls ran on for hours
  r <- run_with_deadline(function() {
    list(zero = tryCatch(do.call(sde_ams, c(args, list(params = c(theta = 0)))),
                         error = identity),
         grid = tryCatch(do.call(sde_ams, c(args, list(params = list(theta = c(0.05, 0))))),
                         error = identity),
         rest = tryCatch(sde_ams(m2, score = ~ x, start_edge = 0.15, B = 1, init = list(x = 0), dt = 0.01,
                                 particles = 10, replicas = 2, backend = "cpu",
                                 progress = FALSE),
                         error = identity))
  }, deadline = 60)
  skip_if(is.null(r))
  expect_s3_class(r$value$zero, "statphysgpu_error")
  expect_match(conditionMessage(r$value$zero),
               "noise of the model \"cubic\" is zero \\(theta = 0\\).*`params`")
  expect_s3_class(r$value$grid, "statphysgpu_error")
  expect_match(conditionMessage(r$value$grid), "is zero at condition 2 \\(theta = 0\\)")
  expect_s3_class(r$value$rest, "statphysgpu_error")
  expect_match(conditionMessage(r$value$rest), "resting point of the model \"mult\"")
})

test_that("sde_ams(): a long trajectory that comes to rest stops the run with an error", {
  skip_if_no_cc()
  skip_on_os("windows")
  # dx = -x dt + s x dW from x = 0.1: x decays to the smallest double and
  # stays; the long trajectory never leaves A.  Before the fix it ran to the
  # engine's 2^34 steps (hours); now 2^20 steps without a change stop it.
  m <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ s * x), params = c(s = 0.1),
                 name = "decay")
  r <- run_with_deadline(function() {
    sde_ams(m, score = ~ x, start_edge = 0.5, B = 1, init = list(x = 0.1), dt = 0.01, particles = 4,
            replicas = 1, seed = 1, backend = "cpu", precision = "double", method = "euler",
            progress = FALSE, k = 1)
  }, deadline = 60)
  skip_if(is.null(r))
  expect_s3_class(r$value, "error")
  expect_match(conditionMessage(r$value),
               "long trajectory of replica 1 of condition 1 stopped moving by step")
  expect_match(conditionMessage(r$value), "`params`, the model's noise or `init`")
})

# ---- item 6: Kuramoto with all pairs on the CPU -------------------------------

test_that("kuramoto(coupling = \"pairs\"): Ctrl-C stops the CPU between the steps of a long run", {
  skip_on_os("windows")
  # n = 2e4: 8e8 pair terms an SRK2 step, about half a second on one
  # thread (the declared engine runs a system on one thread and takes
  # Ctrl-C between its rounds of whole steps; issue 50: the built-in
  # engine's rounds within a step went with it).  The model is compiled and
  # loaded here first, so that the interrupt finds the engine running.
  go <- function(steps) {
    kuramoto(2e4, K = 1, coupling = "pairs", dt = 0.01, steps = steps, seed = 1, backend = "cpu",
             progress = FALSE)
  }
  go(1)
  r <- run_with_deadline(function() go(2000), interrupt = 3, deadline = 30)
  skip_if(is.null(r))
  x <- r$value
  expect_s3_class(x, "kuramoto_run")
  expect_true("statphysgpu_interrupted" %in% r$warnings)
  done <- attr(x, "steps_done")
  expect_gt(done, 0)
  expect_lt(done, 2000)
  expect_identical(x$step, as.double(0:done))
  th <- attr(x, "phases")
  expect_true(all(is.finite(th)))
  # the phases returned are those of the step reached: their order parameter
  # is its record's
  expect_equal(Mod(mean(exp(1i * th))), x$r[nrow(x)], tolerance = 1e-5)
})

test_that("kuramoto(coupling = \"pairs\") on the CPU: the rounds within a step change nothing", {
  # n = 5000 (the built-in engine made the pair sums of a tile in pieces of
  # rows; the declared engine's vector loop over targets) against the step
  # written in R, in double precision (sum_j sin(x_j - x_i) = cos x_i S -
  # sin x_i C)
  n <- 5000
  th0 <- seq(-3, 3, length.out = n)
  om <- sin(seq_len(n))
  F <- function(x) 0.5 * (om + 1.3 / n * (cos(x) * sum(sin(x)) - sin(x) * sum(cos(x))))
  for (method in c("euler", "srk2")) {
    x <- kuramoto(n, K = 1.3, beta = 2, frequencies = om, coupling = "pairs", dt = 0.01,
                  steps = 2, init = th0, method = method, precision = "double", seed = 1,
                  backend = "cpu", progress = FALSE)
    y <- th0
    for (k in 1:2) {
      y <- if (method == "euler") y + 0.01 * F(y) else {
        p <- y + 0.01 * F(y)
        y + 0.005 * (F(y) + F(p))
      }
    }
    expect_equal(as.vector(attr(x, "phases")), y, tolerance = 1e-10, info = method)
    # two threads: the same numbers
    z <- with_threads(2, kuramoto(n, K = 1.3, beta = 2, frequencies = om, coupling = "pairs",
                                  dt = 0.01, steps = 2, init = th0, method = method,
                                  precision = "double", seed = 1, backend = "cpu",
                                  progress = FALSE))
    expect_identical(attr(z, "phases"), attr(x, "phases"))
  }
})

test_that("kuramoto(): an enormous O(n^2) run on the CPU is told up front", {
  skip_on_os("windows")
  # the warning comes before the run (caught there: nothing runs); before the
  # fix there was none and the call ran for minutes
  r <- run_with_deadline(function() {
    tryCatch(kuramoto(1e6, K = 1, coupling = "pairs", dt = 0.01, steps = 1, backend = "cpu",
                      progress = FALSE),
             statphysgpu_cost_warning = function(w) w)
  }, deadline = 30)
  skip_if(is.null(r))
  expect_s3_class(r$value, "statphysgpu_cost_warning")
  expect_match(conditionMessage(r$value), "2e\\+12 pair terms")
  expect_match(conditionMessage(r$value), "coupling = \"mean_field\"")
  # an ordinary size: no warning
  expect_no_warning(kuramoto(2000, K = 1, coupling = "pairs", dt = 0.01, steps = 2, seed = 1,
                             backend = "cpu", progress = FALSE))
})

# ---- item 8: he4_dmc() sizes ----------------------------------------------------

test_that("he4_dmc(): populations too large are refused up front, naming the argument", {
  expect_error(he4_dmc(target_population = 1e12, backend = "cpu"),
               "`target_population` \\(1e\\+12\\) must be at most 2\\^30 - 32",
               class = "statphysgpu_error")
  # walkers = 1e9 (the target defaults to it): the memory, before any array
  expect_error(he4_dmc(walkers = 1e9, backend = "cpu"),
               "would need up to about .* of memory.*use a smaller `walkers` \\(and `target_population`",
               class = "statphysgpu_error")
  expect_error(he4_dmc(walkers = 100, target_population = 1e8, backend = "cpu"),
               "200,000,000 walkers each.*use a smaller `target_population`",
               class = "statphysgpu_error")
  expect_error(he4_dmc(walkers = 1e8, target_population = 100, backend = "cpu"),
               "use a smaller `walkers` \\(at most about",
               class = "statphysgpu_error")
})

# ---- messages ---------------------------------------------------------------------

test_that("escape_times(init = ): a continuation with other values names the argument", {
  x <- escape_times(20, gamma = 0.5, V0 = 1, beta = 1, theta = c(0.15, 0.3), dt = 0.05,
                    t_max = 20, seed = 1, backend = "cpu", progress = FALSE)
  expect_error(escape_times(init = x, t_max = 40, theta = 0.3),
               "`init` was run with theta = 0.15, 0.3, this call has 0.3: .*leave `theta` out",
               class = "statphysgpu_error")
  expect_error(escape_times(init = x, t_max = 40, theta = c(0.15, 0.3, 0.4)),
               "`init` was run with theta = 0.15, 0.3, this call has 0.15, 0.3, 0.4",
               class = "statphysgpu_error")
  expect_error(escape_times(init = x, t_max = 40, theta = c(0.3, 0.15)),
               "theta = 0.15, 0.3, this call has 0.3, 0.15", class = "statphysgpu_error")
})

test_that("xorsat_qg(): a timeout past the sweeps a run can count names `timeout`", {
  inst <- xorsat_random(16, seed = 1)
  expect_error(xorsat_qg(inst, replicas = 2, timeout = 1e12, pace = 1e-6, backend = "cpu"),
               "`timeout` = 1e\\+12 seconds is 1e\\+18 sweeps .* at most 4.5e\\+09 seconds",
               class = "statphysgpu_error")
})
