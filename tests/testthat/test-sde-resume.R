# Continuation of a single particle's passage run (issue 50):
# sde_run(model, replicas, init = <passage result>, t_max = <larger>) runs the
# paths not stopped on from their steps and states, with the normals that
# follow: on the CPU the continued result is the one call with the larger
# t_max, bit for bit.

# (compiled once for the file: the washboard and a ramped washboard; the
# washboard is helper-sde.R's sde_washboard(), the model of test-sde.R and
# test-sde-states.R -- with its observable, the energy -- so that its CPU
# objects, the path-at-a-time one and the single-precision vector loop, are
# compiled once for the three files)
resume_models <- local({
  cache <- NULL
  function() {
    if (is.null(cache)) {
      cache <<- list(
        wb = sde_washboard(),
        # a bias ramped in time: t in the drift (a time term)
        ramp = sde_model(drift = list(x = ~ v, v = ~ -beta * v + V0 * (g0 + r * t - sin(x))),
                         noise = list(v = ~ sqrt(2 * beta * theta)),
                         params = c(beta = 1, V0 = 1, g0 = 0.2, r = 0.02, theta = 0.1),
                         stop = ~ x > 2.5, name = "ramp_resume"))
    }
    cache
  }
})

# The parts of a passage result that a continuation must reproduce.
resume_parts <- function(x) {
  list(value = x$value, escaped = x$escaped, condition = x$condition, replica = x$replica,
       state = attr(x, "state"), at_passage = attr(x, "at_passage"),
       unfinished = attr(x, "unfinished"))
}

test_that("a passage run continued to 2T is the run to 2T, bit for bit (both methods)", {
  skip_if_no_cc()
  wb <- resume_models()$wb
  args <- list(model = wb, replicas = 1000, init = list(x = ~ asin(gamma), v = 0), dt = 0.1,
               params = list(gamma = c(0.5, 0.7)), seed = 11, backend = "cpu",
               progress = FALSE, at_passage = TRUE)
  for (method in c("srk2", "euler")) {
    # T = 5.001 is not a whole number of steps: the last step ends past it,
    # so that some paths stop past T (censored at T, escaped in the longer run)
    one <- do.call(sde_run, c(args, t_max = 10.002, method = method))
    a <- do.call(sde_run, c(args, t_max = 5.001, method = method))
    h <- attr(a, "state")
    expect_true(is.list(h) && all(c("condition", "replica", "step", "stop_time", "run",
                                     "states") %in% names(h)))
    # the rows: the paths not escaped, each at the last step (51) or stopped past T
    expect_identical(nrow(h$states), sum(!a$escaped))
    expect_identical(names(h$states), c("x", "v"))
    expect_true(all(h$step == 51))
    expect_gt(sum(!is.na(h$stop_time)), 0)
    expect_true(all(h$stop_time[!is.na(h$stop_time)] > 5.001))
    expect_gt(sum(a$escaped), 20)
    b <- sde_run(wb, 1000, init = a, t_max = 10.002, backend = "cpu", progress = FALSE)
    expect_identical(resume_parts(b), resume_parts(one))
    expect_identical(attr(b, "t_max"), 10.002)
    # a continued result continues: T -> 1.5 T -> 2T
    c2 <- sde_run(wb, init = a, t_max = 7.5, backend = "cpu", progress = FALSE)
    d <- sde_run(wb, init = c2, t_max = 10.002, backend = "cpu", progress = FALSE)
    expect_identical(resume_parts(d), resume_parts(one))
    # a continuation runs only the paths not stopped
    expect_lt(attr(b, "steps")[["useful"]], attr(one, "steps")[["useful"]])
  }
})

test_that("a model with t in its drift continues at the time it reached", {
  skip_if_no_cc()
  ramp <- resume_models()$ramp
  args <- list(model = ramp, replicas = 500, init = list(x = 0, v = 0), dt = 0.05,
               params = list(g0 = c(0.2, 0.3)), seed = 3, backend = "cpu", progress = FALSE)
  for (prec in c("single", "double")) {
    one <- do.call(sde_run, c(args, t_max = 40, precision = prec))
    a <- do.call(sde_run, c(args, t_max = 13.37, precision = prec))
    expect_gt(sum(a$escaped), 0)
    expect_gt(sum(!a$escaped), 0)
    b <- sde_run(ramp, 500, init = a, t_max = 40, backend = "cpu", progress = FALSE)
    expect_identical(resume_parts(b), resume_parts(one))
    # every path escapes as the bias passes 1: the ramp acts at the paths' times
    expect_gt(mean(one$escaped), mean(a$escaped))
  }
})

test_that("an interrupted passage run continued is the one call", {
  skip_on_os("windows")
  skip_if_no_cc()
  wb <- resume_models()$wb
  # rare escapes (a low temperature): a run of a few seconds on two cores
  args <- list(model = wb, replicas = 4000, init = list(x = ~ asin(gamma), v = 0), dt = 0.05,
               params = list(gamma = 0.3, theta = 0.12), seed = 5, backend = "cpu",
               progress = FALSE, method = "euler")
  # the long run takes the CPU's vector object: compile it first, or the
  # interrupt lands in its compile (R's own interrupt, by design: nothing
  # has run yet) and halts the test run
  withr::local_options(statphysgpu.sde_cpu_vector = TRUE)
  invisible(do.call(sde_run, utils::modifyList(args, list(replicas = 8, t_max = 1))))
  t1 <- 20000
  job <- interrupt_after(0.8)
  x <- withCallingHandlers(do.call(sde_run, c(args, t_max = t1)),
                           statphysgpu_interrupted = function(w) invokeRestart("muffleWarning"),
                           statphysgpu_late_interrupt = function(w) invokeRestart("muffleWarning"))
  parallel::mccollect(job)
  if (!isTRUE(attr(x, "interrupted"))) skip("the run finished before the interrupt came")
  unf <- attr(x, "unfinished")
  expect_gt(nrow(unf), 0)
  h <- attr(x, "state")
  # the unfinished paths have rows: running ones at their step, unstarted at 0
  expect_true(all(paste(unf$condition, unf$replica) %in% paste(h$condition, h$replica)))
  y <- sde_run(wb, 4000, init = x, t_max = t1, backend = "cpu", progress = FALSE)
  one <- do.call(sde_run, c(args, t_max = t1))
  expect_false(attr(y, "interrupted"))
  expect_identical(resume_parts(y), resume_parts(one))
})

test_that("a continuation refuses a smaller t_max, another model, other arguments and a modified result", {
  skip_if_no_cc()
  ms <- resume_models()
  wb <- ms$wb
  a <- sde_run(wb, 50, init = list(x = ~ asin(gamma), v = 0), dt = 0.1, t_max = 5,
               params = list(gamma = c(0.5, 0.7)), seed = 2, backend = "cpu", progress = FALSE)
  go <- function(...) sde_run(wb, init = a, backend = "cpu", progress = FALSE, ...)
  expect_error(go(t_max = 4), "before the end of `init`")
  expect_error(sde_run(wb, init = a, backend = "cpu", progress = FALSE), "`t_max` is missing")
  expect_error(sde_run(ms$ramp, 50, init = a, t_max = 10, backend = "cpu", progress = FALSE),
               "another model")
  mismatch <- "statphysgpu_continuation_mismatch"
  expect_error(go(t_max = 10, dt = 0.05), "`dt` differs", class = mismatch)
  expect_error(go(t_max = 10, seed = 3), "`seed` differs", class = mismatch)
  expect_error(go(t_max = 10, method = "euler"), "`method` differs", class = mismatch)
  expect_error(go(t_max = 10, precision = "double"), "`precision` differs", class = mismatch)
  expect_error(go(t_max = 10, replicas = 60), "`replicas` differs", class = mismatch)
  expect_error(go(t_max = 10, first_replica = 2), "`first_replica` differs", class = mismatch)
  expect_error(go(t_max = 10, params = list(gamma = 0.5)), "`params` differs", class = mismatch)
  expect_error(go(t_max = 10, at_passage = TRUE), "`at_passage` differs", class = mismatch)
  # the arguments it ran with, given again, are accepted
  ok <- go(t_max = 10, dt = 0.1, seed = 2, method = "srk2", replicas = 50,
           params = list(gamma = c(0.5, 0.7)))
  expect_s3_class(ok, "sde_passage")
  b <- a
  b$value[1] <- b$value[1] / 2
  expect_error(sde_run(wb, init = b, t_max = 10, backend = "cpu", progress = FALSE),
               class = "statphysgpu_modified_result")
  b <- a
  st <- attr(b, "state")
  st$step[1] <- 0
  attr(b, "state") <- st
  expect_error(sde_run(wb, init = b, t_max = 10, backend = "cpu", progress = FALSE),
               class = "statphysgpu_modified_result")
  # chunks combined by rbind() are not continued
  r <- rbind(a, sde_run(wb, 50, init = list(x = ~ asin(gamma), v = 0), dt = 0.1, t_max = 5,
                        params = list(gamma = c(0.5, 0.7)), seed = 2, first_replica = 51,
                        backend = "cpu", progress = FALSE))
  expect_error(sde_run(wb, init = r, t_max = 10, backend = "cpu", progress = FALSE),
               class = "statphysgpu_modified_result")
})

test_that("the passage kernel with continuation compiles under NVRTC", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  local_kernel_cache()
  ms <- resume_models()
  for (prec in c("single", "double")) {
    img <- statphysgpu:::sde_nvrtc_image(ms$ramp, "sm_90", prec, "srk2")
    expect_true(is.raw(img) && length(img) > 1000)
  }
})

test_that("a start per path (replicas x conditions) is each condition's run with its own starts", {
  skip_if_no_cc()
  wb <- resume_models()$wb
  n <- 300L
  g <- c(0.5, 0.6, 0.7)
  # starts that differ by condition and replica (no two paths alike)
  x0 <- unlist(lapply(seq_along(g), function(c) asin(g[c]) + 0.01 * c + seq_len(n) / (10 * n)))
  v0 <- rep(c(-0.1, 0, 0.1), each = n) + 0.2 * sin(seq_len(3 * n))
  args <- list(model = wb, dt = 0.05, t_max = 4, seed = 23, backend = "cpu",
               progress = FALSE, at_passage = TRUE)
  for (method in c("srk2", "euler")) {
    whole <- do.call(sde_run, c(args, list(replicas = n, init = list(x = x0, v = v0),
                                         params = list(gamma = g), method = method)))
    expect_identical(nrow(whole), 3L * n)
    # condition c's paths: those of the run whose every condition starts
    # from condition c's starts (given per replica; the same streams)
    for (c in seq_along(g)) {
      i <- (c - 1) * n + seq_len(n)
      one <- do.call(sde_run, c(args, list(replicas = n, init = list(x = x0[i], v = v0[i]),
                                           params = list(gamma = g), method = method)))
      expect_identical(whole$value[i], one$value[i])
      expect_identical(whole$escaped[i], one$escaped[i])
      expect_identical(attr(whole, "at_passage")[i, ], attr(one, "at_passage")[i, ])
    }
    # a per-replica column with a per-path one: the per-replica column is the
    # same in every condition
    mixed <- do.call(sde_run, c(args, list(replicas = n, init = list(x = x0, v = v0[1:n]),
                                           params = list(gamma = g), method = method)))
    same <- do.call(sde_run, c(args, list(replicas = n, init = list(x = x0, v = rep(v0[1:n], 3)),
                                          params = list(gamma = g), method = method)))
    expect_identical(mixed$value, same$value)
    expect_false(identical(mixed$value, whole$value))
    # the model's vector loop (lanes) reads the same starts
    vec <- withr::with_options(list(statphysgpu.sde_cpu_vector = TRUE), do.call(sde_run, c(
      args, list(replicas = n, init = list(x = x0, v = v0), params = list(gamma = g),
                 method = method))))
    expect_identical(vec$value, whole$value)
  }
  # the record of the start: NA where given per replica or per path
  expect_true(all(is.na(attr(whole, "init"))))
  # a column of another length is refused, naming the lengths
  expect_error(do.call(sde_run, c(args, list(replicas = n, init = list(x = x0[-1], v = 0),
                                             params = list(gamma = g)))),
               "one per path")
  # a continuation of a run with per-path starts is the longer run
  args$t_max <- NULL
  long <- do.call(sde_run, c(args, list(replicas = n, init = list(x = x0, v = v0),
                                        params = list(gamma = g), t_max = 4)))
  a <- do.call(sde_run, c(args, list(replicas = n, init = list(x = x0, v = v0),
                                     params = list(gamma = g), t_max = 2.001)))
  b <- sde_run(wb, init = a, t_max = 4, backend = "cpu", progress = FALSE)
  expect_identical(resume_parts(b), resume_parts(long))
})

test_that("a one-condition call with the streams of condition c0 + 1 is that condition of the whole call", {
  skip_if_no_cc()
  wb <- resume_models()$wb
  n <- 300L
  g <- c(0.5, 0.6, 0.7)
  x0 <- unlist(lapply(seq_along(g), function(c) asin(g[c]) + 0.01 * c + seq_len(n) / (10 * n)))
  args <- list(dt = 0.05, seed = 29, backend = "cpu", progress = FALSE, at_passage = TRUE)
  streams <- function(c0, ...) statphysgpu:::sde_run_streams(c0, wb, n, ...)
  cond_parts <- function(x, c) { # condition c's paths of x (condition, then replica)
    i <- x$condition == c
    h <- attr(x, "state")
    j <- h$condition == c
    list(value = x$value[i], escaped = x$escaped[i], replica = x$replica[i],
         at_passage = `rownames<-`(attr(x, "at_passage")[i, ], NULL),
         state = list(replica = h$replica[j], step = h$step[j], stop_time = h$stop_time[j],
                      run = h$run[j], states = `rownames<-`(h$states[j, ], NULL)))
  }
  for (method in c("srk2", "euler")) {
    for (per_path in c(FALSE, TRUE)) {
      init <- if (per_path) list(x = x0, v = 0) else list(x = ~ asin(gamma), v = 0)
      whole <- do.call(sde_run, c(args, list(model = wb, replicas = n, init = init, t_max = 4,
                                           params = list(gamma = g), method = method)))
      long <- do.call(sde_run, c(args, list(model = wb, replicas = n, init = init, t_max = 8,
                                          params = list(gamma = g), method = method)))
      for (c in 2:3) {
        i <- (c - 1) * n + seq_len(n)
        ic <- if (per_path) list(x = x0[i], v = 0) else init
        one <- do.call(streams, c(args, list(c0 = c - 1, init = ic, t_max = 4,
                                             params = list(gamma = g[c]), method = method)))
        expect_identical(cond_parts(one, 1), cond_parts(whole, c))
        expect_identical(attr(one, "cond0"), c - 1)
        # the continuation keeps the streams: the whole call to the larger end
        b <- sde_run(wb, init = one, t_max = 8, backend = "cpu", progress = FALSE)
        expect_identical(attr(b, "cond0"), c - 1)
        expect_identical(cond_parts(b, 1), cond_parts(long, c))
      }
      # (the offset matters: condition 1's streams give other paths)
      i3 <- 2 * n + seq_len(n)
      one0 <- do.call(streams, c(args, list(c0 = 0, t_max = 4, params = list(gamma = g[3]),
                                            init = if (per_path) list(x = x0[i3], v = 0) else init,
                                            method = method)))
      expect_false(identical(one0$value, cond_parts(whole, 3)$value))
      expect_null(attr(one0, "cond0"))
    }
  }
  # the fixed-length outputs draw the same streams
  tr <- function(f, ...) f(..., dt = 0.05, t_max = 2, output = "trajectories", keep = 5,
                           seed = 29, backend = "cpu", progress = FALSE)
  whole <- tr(sde_run, model = wb, replicas = n, init = list(x = 0, v = 0),
              params = list(gamma = g))
  one <- tr(streams, c0 = 2, init = list(x = 0, v = 0), params = list(gamma = g[3]))
  whole <- as.data.frame(whole)
  expect_gt(nrow(whole), 0)
  w3 <- whole[whole$gamma == g[3], setdiff(names(whole), "gamma")]
  rownames(w3) <- NULL
  o <- as.data.frame(one)[names(w3)]
  o$condition <- w3$condition
  expect_identical(o[names(w3)], w3[names(w3)])
})
