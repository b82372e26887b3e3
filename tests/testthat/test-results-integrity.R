# The integrity of results (issue 32), one section per part of the issue.

# Two models of one name: the same states and parameters, other code.
integrity_models <- local({
  models <- NULL
  function() {
    if (is.null(models)) {
      models <<- list(
        a = sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s),
                      params = c(k = 1, s = 1), stop = ~ x > 1, name = "m"),
        b = sde_model(drift = list(x = ~ -k * x + 0.25), noise = list(x = ~ s),
                      params = c(k = 1, s = 1), stop = ~ x > 1, name = "m"))
    }
    models
  }
})

sde_chunk <- function(m, replicas, first = 1, output = "moments", ...) {
  args <- list(m, replicas, init = list(x = 0), dt = 0.1, t_max = 1, output = output,
               seed = 3, first_replica = first, backend = "cpu", progress = FALSE)
  if (output != "passage") args$record_every <- 5
  if (output == "histogram") args$bins <- list(x = c(-1, 0, 1))
  do.call(sde_run, utils::modifyList(args, list(...)))
}

# ---- rbind(): chunks of one run, disjoint replicas ----------------------------

test_that("rbind() of sde_run() results refuses another model of the same name", {
  skip_if_no_cc()
  m <- integrity_models()
  for (out in c("moments", "histogram", "trajectories", "passage")) {
    a <- sde_chunk(m$a, 10, output = out)
    b <- sde_chunk(m$b, 10, first = 11, output = out)
    expect_identical(attr(a, "model"), attr(b, "model"))
    expect_identical(attr(a, "model_hash"), m$a$hash)
    expect_error(rbind(a, b), "argument 2 differs from argument 1 in the model",
                 class = "statphysgpu_rbind_error", info = out)
  }
})

test_that("rbind() of sde_run() results names the setting that differs", {
  skip_if_no_cc()
  m <- integrity_models()$a
  a <- sde_chunk(m, 10)
  differ <- function(x, y, what) {
    expect_error(rbind(x, y), paste0("differs from argument 1 in ", what),
                 class = "statphysgpu_rbind_error")
  }
  differ(a, sde_chunk(m, 10, first = 11, record_every = 2), "record_every")
  differ(a, sde_chunk(m, 10, first = 11, init = list(x = 0.5)), "init")
  differ(a, sde_chunk(m, 10, first = 11, t_max = 2), "t_max")
  differ(a, sde_chunk(m, 10, first = 11, seed = 4), "seed")
  h <- sde_chunk(m, 10, output = "histogram")
  differ(h, sde_chunk(m, 10, first = 11, output = "histogram", bins = list(x = c(-1, 1))),
         "bins")
  tr <- sde_chunk(m, 10, output = "trajectories", keep = 2)
  differ(tr, sde_chunk(m, 10, first = 11, output = "trajectories", keep = 3), "keep")
  p <- sde_chunk(m, 10, output = "passage")
  differ(p, sde_chunk(m, 10, first = 11, output = "passage", t_max = 2), "t_max")
  differ(p, sde_chunk(m, 10, first = 11, output = "passage", init = list(x = 0.5)), "init")
  # a state given per replica is each chunk's own: chunks of one run
  expect_s3_class(rbind(sde_chunk(m, 2, init = list(x = c(0, 0.1))),
                        sde_chunk(m, 2, first = 3, init = list(x = c(0.2, 0.3)))),
                  "sde_moments")
})

test_that("rbind() of sde_run() results refuses replicas counted twice", {
  skip_if_no_cc()
  m <- integrity_models()$a
  for (out in c("moments", "histogram", "trajectories", "passage")) {
    a <- sde_chunk(m, 10, output = out)
    expect_error(rbind(a, a), "the chunks overlap", class = "statphysgpu_rbind_error",
                 info = out)
    expect_error(rbind(a, sde_chunk(m, 10, first = 6, output = out)), "the chunks overlap",
                 class = "statphysgpu_rbind_error", info = out)
  }
  # trajectories of replicas past `keep` have no rows: their ranges tell
  late <- sde_chunk(m, 5, first = 101, output = "trajectories")
  expect_identical(nrow(late), 0L)
  expect_error(rbind(late, late), "both hold replica 101", class = "statphysgpu_rbind_error")
  # a combination keeps the ranges it holds, also with a gap
  h <- function(n, first) sde_chunk(m, n, first = first, output = "histogram")
  ac <- rbind(h(10, 1), h(10, 21))
  expect_identical(attr(ac, "replica_ranges"),
                   data.frame(first_replica = c(1, 21), replicas = c(10, 10)))
  expect_error(rbind(ac, h(5, 18)), "hold replica 21", class = "statphysgpu_rbind_error")
  whole <- rbind(ac, h(10, 11))
  expect_null(attr(whole, "replica_ranges"))
  expect_identical(attr(whole, "replicas"), 30)
  expect_identical(as.data.frame(whole), as.data.frame(h(30, 1)))
})

test_that("rbind() of the other simulators refuses chunks of other settings", {
  differ <- function(x, y, what) {
    expect_error(rbind(x, y), paste0("differs from argument 1 in ", what),
                 class = "statphysgpu_rbind_error")
  }
  e <- function(first, t_max) {
    escape_times(5, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.05, t_max = t_max,
                 seed = 1, first_replica = first, backend = "cpu", progress = FALSE)
  }
  differ(e(1, 10), e(6, 20), "t_max")
  s <- function(first, gmax) {
    switching_currents(5, ramp = 1e-2, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.05,
                       gamma_max = gmax, seed = 1, first_replica = first, backend = "cpu",
                       progress = FALSE)
  }
  differ(s(1, 0.9), s(6, 0.95), "gamma_max")
  d <- function(first, keep) {
    suppressWarnings(driven_brownian(4, a = 1, omega = 2, f = 0.5, beta = 1, theta = 0.1,
                                     periods = 2, steps_per_period = 40, output = "trajectories",
                                     keep = keep, seed = 1, first_replica = first,
                                     backend = "cpu", progress = FALSE),
                     classes = "statphysgpu_step_warning")
  }
  differ(d(1, 2), d(5, 3), "keep")
  k <- function(first, init = NULL) {
    kuramoto(8, K = 2, dt = 0.05, steps = 4, replicas = 1, init = init, seed = 1,
             first_replica = first, backend = "cpu", progress = FALSE)
  }
  differ(k(1), k(2, seq(0, 1, length.out = 8)), "the start")
  r <- function(first, softening) {
    lrmd("ring", init = ring_uniform(20, seed = 1), dt = 0.01, steps = 2, softening = softening,
         replicas = 1, first_replica = first, backend = "cpu", progress = FALSE)
  }
  differ(r(1, 0.05), r(2, 0.1), "softening")
  inst <- xorsat_random(12, seed = 1)
  q <- function(first, max_sweeps) {
    xorsat_qg(inst, replicas = 2, clones = 32, max_sweeps = max_sweeps, seed = 1,
              first_replica = first, pace = 1e-6, backend = "cpu", progress = FALSE)
  }
  differ(q(1, 50), q(3, 60), "max_sweeps")
  v <- function(first, eq) {
    he4_vmc(16, replicas = 1, blocks = 1, block_sweeps = 1, equilibration = eq, seed = 1,
            first_replica = first, backend = "cpu", progress = FALSE)
  }
  differ(v(1, 2), v(2, 3), "equilibration")
  # every overlap is an error of the class
  expect_error(rbind(e(1, 10), e(1, 10)), "the chunks overlap", class = "statphysgpu_rbind_error")
  expect_error(rbind(k(1), k(1)), "in two parts",
               class = "statphysgpu_rbind_error")
})

# ---- an interrupted AMS run completes with rbind() ----------------------------

# Runs `code` on one thread with a Ctrl-C that comes as the engine starts:
# the SIGINT a Ctrl-C sends, here sent by the process to itself once R's
# interrupts are held for the run (sim_hold_interrupts()), so that it is
# pending until the engine's check after its first round -- on one thread
# a fixed point of the run. (helper-words.R's interrupt_after() sends it
# from a timer instead.)
with_ctrl_c_at_start <- function(code) {
  ns <- asNamespace("statphysgpu")
  suppressMessages(trace("sim_hold_interrupts", where = ns, print = FALSE,
                         exit = quote(tools::pskill(Sys.getpid(), tools::SIGINT))))
  on.exit(suppressMessages(untrace("sim_hold_interrupts", where = ns)))
  with_threads(1, code)
}


# The interrupted result x: its finished replicas only, the others listed to
# rerun; the reruns (`run(n, first)`) rbind() with x into the one-call
# result `whole`.
expect_ams_recovery <- function(x, run, whole) {
  tab <- attr(x, "replicas_table")
  rr <- attr(x, "rerun")
  expect_true(attr(x, "interrupted"))
  expect_gt(nrow(tab), 0)
  expect_gt(sum(rr$replicas), 0)
  expect_false(any(tab$status == "unfinished"))
  expect_identical(x$replicas, as.integer(table(factor(tab$condition,
                                                       levels = attr(x, "conditions")$condition))))
  expect_error(rbind(x, x), "overlap", class = "statphysgpu_rbind_error")
  reruns <- Map(run, rr$replicas, rr$first_replica)
  y <- do.call(rbind, c(list(x), reruns))
  expect_false(attr(y, "interrupted"))
  expect_identical(nrow(attr(y, "rerun")), 0L)
  expect_identical(attr(y, "replicas_table"), attr(whole, "replicas_table"))
  expect_identical(as.data.frame(y), as.data.frame(whole))
  # the reruns first, and a part of them: still interrupted, the rest listed
  expect_identical(as.data.frame(do.call(rbind, c(rev(reruns), list(x)))),
                   as.data.frame(whole))
  last <- utils::tail(rr, 1)
  if (last$replicas > 1) {
    part <- rbind(x, run(last$replicas - 1, last$first_replica))
    expect_true(attr(part, "interrupted"))
    expect_identical(utils::tail(attr(part, "rerun"), 1),
                     data.frame(first_replica = last$first_replica + last$replicas - 1,
                                replicas = 1), ignore_attr = TRUE)
  }
}

test_that("an interrupted escape_rate_ams() completes by rbind() with the reruns it names", {
  skip_on_os("windows")
  run <- function(n, first = 1, theta = 1) {
    suppressWarnings(
      escape_rate_ams(0.3, 1, 1, theta, 0.05, particles = 2, replicas = n, first_replica = first,
                      seed = 2, backend = "cpu", progress = FALSE),
      classes = "statphysgpu_step_warning")
  }
  expect_warning(x <- with_ctrl_c_at_start(run(8)),
                 paste0("interrupted: [0-9]+ of 8 replicas finished.*rerun replicas? .*with ",
                        "seed = \"0x0000000000000002\".*first_replica = "),
                 class = "statphysgpu_interrupted")
  expect_ams_recovery(x, run, run(8))
  # two conditions (the second unfinished): a rerun runs every condition, and
  # the replicas the first finished give way to it
  run2 <- function(n, first = 1) run(n, first, theta = c(2, 0.5))
  expect_warning(x <- with_ctrl_c_at_start(run2(4)), "a rerun runs every condition",
                 class = "statphysgpu_interrupted")
  expect_gt(x$replicas[1], x$replicas[2])
  expect_ams_recovery(x, run2, run2(4))
})

test_that("an interrupted sde_ams() completes by rbind() with the reruns it names", {
  skip_on_os("windows")
  skip_if_no_cc()
  m <- integrity_models()$a
  run <- function(n, first = 1, s = 0.25) {
    sde_ams(m, score = ~ x, start_edge = 0.2, B = 1, init = list(x = 0), dt = 0.05, particles = 4,
            replicas = n, first_replica = first, params = list(s = s), seed = 1,
            backend = "cpu", progress = FALSE)
  }
  run(1) # compiled before the interrupt
  expect_warning(x <- with_ctrl_c_at_start(run(6)), "rerun replicas? .*first_replica = ",
                 class = "statphysgpu_interrupted")
  expect_ams_recovery(x, run, run(6))
  run2 <- function(n, first = 1) run(n, first, s = c(0.4, 0.25))
  expect_warning(x <- with_ctrl_c_at_start(run2(4)), class = "statphysgpu_interrupted")
  expect_ams_recovery(x, run2, run2(4))
})

# ---- old names of result fields -------------------------------------------------

expect_old <- function(code, new, name) {
  expect_warning(v <- code, paste0("`", name, "` .* is deprecated: it is now called"),
                 class = "statphysgpu_deprecated")
  expect_identical(v, new)
}

test_that("columns renamed by issue 23 are read by their old names, with a warning", {
  x <- he4_vmc(16, replicas = 2, blocks = 1, block_sweeps = 1, equilibration = 1, seed = 1,
               backend = "cpu", progress = FALSE)
  d <- as.data.frame(x)
  expect_s3_class(d, "data.frame")
  expect_old(d$walker, d$replica, "walker")
  expect_old(d[["walker"]], d$replica, "walker")
  expect_old(x$walker, x$replica, "walker")
  expect_old(x[["walker"]], x$replica, "walker")
  expect_identical(d[2, "replica"], 2)
  expect_null(d$no_such_column)
  # a result of an earlier version has the column itself
  old <- x
  names(old)[names(old) == "replica"] <- "walker"
  expect_no_warning(expect_identical(old$walker, x$replica))
  q <- xorsat_qg(xorsat_random(12, seed = 1), replicas = 2, clones = 32, seed = 1, pace = 1e-6,
                 backend = "cpu", progress = FALSE)
  expect_old(q$run, q$replica, "run")
  expect_old(as.data.frame(q)[["run"]], q$replica, "run")
  dr <- suppressWarnings(driven_brownian(3, a = 1, omega = 2, f = 0.5, beta = 1, theta = 0.1,
                                         periods = 2, steps_per_period = 40, seed = 1,
                                         backend = "cpu", progress = FALSE),
                         classes = "statphysgpu_step_warning")
  expect_old(dr$n, dr$replicas, "n")
  expect_old(dr$gamma, dr$beta, "gamma")
  expect_old(dr[["D0"]], dr$theta, "D0")
  expect_old(as.data.frame(dr)$gamma, dr$beta, "gamma")
  ch <- replica_chunks(10, chunks = 2)
  expect_old(ch[["n"]], ch$replicas, "n")
  skip_if_no_cc()
  mo <- sde_chunk(integrity_models()$a, 10)
  expect_old(mo$n, mo$replicas, "n")
  expect_old(mo[["n"]], mo$replicas, "n")
  expect_old(as.data.frame(mo)$n, mo$replicas, "n")
  expect_identical(mo$replicas[1], 10)
})

test_that("attributes renamed by issue 23 keep their old names, also after rbind()", {
  e <- function(first) {
    escape_times(5, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.05, t_max = 5,
                 seed = 1, first_replica = first, init = "thermal", backend = "cpu",
                 progress = FALSE)
  }
  x <- rbind(e(1), e(6))
  expect_identical(attr(e(1), "h"), 0.05)
  expect_identical(attr(x, "h"), attr(x, "dt"))
  expect_identical(attr(x, "start"), "thermal")
  expect_identical(attr(x, "n"), 10)
  k <- function(first) {
    kuramoto(8, K = 2, dt = 0.05, steps = 4, replicas = 2, seed = 1, first_replica = first,
             backend = "cpu", progress = FALSE)
  }
  kk <- rbind(k(1), k(3))
  expect_identical(attr(k(1), "theta"), attr(k(1), "phases"))
  expect_identical(dim(attr(kk, "theta")), c(8L, 4L))
  expect_identical(attr(kk, "theta"), attr(kk, "phases"))
  v <- function(first) {
    he4_vmc(16, replicas = 1, blocks = 1, block_sweeps = 1, equilibration = 1, seed = 1,
            first_replica = first, backend = "cpu", progress = FALSE)
  }
  vv <- rbind(v(1), v(2))
  expect_identical(attr(vv, "step"), attr(vv, "displacement"))
  expect_length(attr(vv, "step"), 2)
  expect_identical(attr(vv, "walkers"), 2)
})

# ---- print() -------------------------------------------------------------------

test_that("print() shows replica numbers and seeds whole", {
  k <- kuramoto(8, K = 2, dt = 0.05, steps = 2, replicas = 1, first_replica = 2^40 - 1,
                seed = "0xffffffffffffffff", backend = "cpu", progress = FALSE)
  out <- capture.output(print(k))
  expect_true(any(grepl("1,099,511,627,775", out, fixed = TRUE)))
  expect_false(any(grepl("e+12", out, fixed = TRUE)))
  e <- escape_times(2, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.05, t_max = 1,
                    seed = "0xffffffffffffffff", backend = "cpu", progress = FALSE)
  expect_output(print(e), "seed 0xffffffffffffffff", fixed = TRUE)
})

# ---- continuations read what the result was run with --------------------------

test_that("a continuation refuses a result whose settings or state were changed", {
  x <- escape_times(20, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05, t_max = 2,
                    seed = 3, backend = "cpu", progress = FALSE)
  go <- function(y) escape_times(init = y, t_max = 4, backend = "cpu", progress = FALSE)
  changed <- function(y, what) {
    expect_error(go(y), paste0("`init` was modified after it was run: its ", what),
                 class = "statphysgpu_modified_result")
  }
  y <- x
  attr(y, "seed_hex") <- "0x0000000000000004"
  changed(y, "attribute `seed_hex`")
  y <- x
  attr(y, "precision") <- "double"
  changed(y, "attribute `precision`")
  y <- x
  attr(y, "dt") <- 0.02
  changed(y, "attribute `dt`")
  y <- x
  attr(y, "state")$phi[2] <- attr(y, "state")$phi[2] + 0.25
  changed(y, "attribute `state`")
  y <- x
  attr(y, "sealed") <- NULL
  expect_error(go(y), "carries no record of the settings", class = "statphysgpu_modified_result")
  # unmodified, and combined chunks: continued as one result
  whole <- go(x)
  a <- escape_times(8, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05, t_max = 2,
                    seed = 3, backend = "cpu", progress = FALSE)
  b <- escape_times(12, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05, t_max = 2,
                    seed = 3, first_replica = 9, backend = "cpu", progress = FALSE)
  expect_identical(as.data.frame(go(rbind(a, b))), as.data.frame(whole))
  # a combination of a modified chunk is not continued
  attr(b, "state")$v[1] <- 0
  expect_error(go(rbind(a, b)), "carries no record", class = "statphysgpu_modified_result")
  # switching currents: gamma0
  s <- switching_currents(10, ramp = 1e-2, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.05,
                          gamma0 = 0.3, gamma_max = 0.5, seed = 5, backend = "cpu",
                          progress = FALSE)
  attr(s, "gamma0") <- 0.2
  expect_error(switching_currents(init = s, gamma_max = 0.6, backend = "cpu", progress = FALSE),
               "its attribute `gamma0`", class = "statphysgpu_modified_result")
})

test_that("an lrmd() continuation steps and records as its run unless told otherwise", {
  w <- hmf_waterbag(50, 1, 0.69, seed = 1)
  run <- function(...) lrmd(..., backend = "cpu", progress = FALSE)
  long <- run(init = w, dt = 0.1, steps = 30, record_every = 5)
  a <- run(init = w, dt = 0.1, steps = 20, record_every = 5)
  b <- run(init = a, steps = 10)
  expect_identical(b$step, c(20, 25, 30)) # the first repeats a's last
  expect_identical(as.data.frame(b), as.data.frame(long)[5:7, ], ignore_attr = TRUE)
  expect_identical(attr(b, "state"), attr(long, "state"))
  # fewer steps than record_every: a record at the end, as a fresh run
  expect_identical(run(init = run(init = w, dt = 0.1, steps = 20, record_every = 10),
                       steps = 4)$step, c(20, 24))
  # another dt: allowed, with a warning that says what it changes
  expect_warning(c2 <- run(init = a, dt = 0.05, steps = 2),
                 "was run with dt = 0.1 and this continuation steps with dt = 0.05",
                 class = "statphysgpu_continuation_dt")
  expect_equal(c2$time[c2$step == 22], 20 * 0.1 + 2 * 0.05, tolerance = 1e-15)
  expect_no_warning(run(init = a, dt = 0.1, steps = 2))
})
