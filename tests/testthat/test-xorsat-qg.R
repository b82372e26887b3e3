# The quasi-greedy solver (paper 003) on the CPU: exact sweeps to solution,
# checked solutions, exponential times to solution.

challenge <- function(name) {
  read_xorsat(system.file("extdata", "3r3x", paste0(name, ".txt"), package = "statphysgpu"))
}

test_that("every solution is the instance's ground state (unique for a challenge file)", {
  inst <- challenge("3r3x_2body_n128_s1")
  x <- xorsat_qg(inst, replicas = 12, clones = 64, seed = 1, backend = "cpu")
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
  a <- xorsat_qg(inst, replicas = 10, clones = 32, seed = 4, backend = "cpu")
  for (k in c(3, 50)) {
    b <- xorsat_qg(inst, replicas = 10, clones = 32, seed = 4, backend = "cpu", check_every = k)
    expect_identical(b$sweeps, a$sweeps)
    expect_identical(b$clone, a$clone)
  }
  # the first clone to solve is the lowest-numbered one of that sweep; a run
  # that is cut one sweep earlier has not solved
  r <- which.max(a$sweeps)
  cut <- xorsat_qg(inst, replicas = 1, first_replica = r, clones = 32, seed = 4, backend = "cpu",
                   max_sweeps = a$sweeps[r] - 1)
  expect_false(cut$solved)
  expect_identical(cut$sweeps, a$sweeps[r] - 1)
  expect_true(is.na(cut$clone))
})

test_that("max_sweeps and timeouts cut runs, censored for tts_estimate()", {
  inst <- xorsat_random(120, seed = 1)
  x <- xorsat_qg(inst, replicas = 6, clones = 32, p1 = 0.3, seed = 1, backend = "cpu",
                 max_sweeps = 200)
  expect_true(all(!x$solved | x$sweeps <= 200))
  expect_true(all(x$sweeps[!x$solved] == 200))
  # a timeout is a sweep limit at the pace: floor(timeout / pace) sweeps
  y <- xorsat_qg(inst, replicas = 6, clones = 32, p1 = 0.3, seed = 1, backend = "cpu",
                 timeout = 200 * 1e-4 + 5e-5, pace = 1e-4)
  expect_identical(as.data.frame(y)[c("replica", "sweeps", "solved", "clone")],
                   as.data.frame(x)[c("replica", "sweeps", "solved", "clone")])
  expect_equal(y$seconds, y$sweeps * 1e-4)
  z <- xorsat_qg(inst, replicas = 3, clones = 32, p1 = 0.3, seed = 1, backend = "cpu",
                 timeout = 0.002)
  pace <- attr(z, "seconds_per_sweep")
  expect_true(all(z$sweeps <= max(1, floor(0.002 / pace))))
  expect_true(all(z$sweeps[!z$solved] == max(1, floor(0.002 / pace))))
  expect_true(all(z$seconds <= max(0.002, pace)))
  e <- tts_estimate(z, unit = "seconds")
  expect_equal(e$total, sum(z$seconds))
  expect_equal(e$total_seconds, sum(z$seconds))
  expect_error(xorsat_qg(inst, replicas = 2, backend = "cpu", pace = 0),
               "`pace` must be \"auto\" \\(measure it\\) or a single positive number",
               class = "statphysgpu_error")
})

test_that("seconds are sweeps times one measured pace, reported with the device", {
  # issue 21, item 5: seconds measured run by run on a loaded machine were
  # not one distribution; now seconds = sweeps x pace, exactly
  inst <- xorsat_random(40, seed = 2)
  x <- xorsat_qg(inst, replicas = 10, clones = 32, seed = 4, backend = "cpu")
  pace <- attr(x, "pace")
  expect_named(pace, c("seconds_per_sweep", "device", "clones", "n", "measured"))
  expect_true(pace$measured && pace$seconds_per_sweep > 0 && pace$seconds_per_sweep < 1)
  expect_match(pace$device, "CPU, one thread")
  expect_identical(c(pace$clones, pace$n), c(32, 40L))
  expect_identical(attr(x, "seconds_per_sweep"), pace$seconds_per_sweep)
  expect_identical(x$seconds, x$sweeps * pace$seconds_per_sweep)
  # measured once a session for a device and size: a second call reuses it
  y <- xorsat_qg(inst, replicas = 3, clones = 32, seed = 5, backend = "cpu")
  expect_identical(attr(y, "pace"), pace)
  # the estimate: sweeps by default, seconds = sweeps x pace (tau scales with T)
  e <- tts_estimate(x)
  expect_identical(e$unit, "sweeps")
  expect_equal(e$total, sum(x$sweeps))
  expect_true(is.na(e$total_seconds))
  es <- tts_estimate(x, unit = "seconds")
  expect_equal(es$tau_median, e$tau_median * pace$seconds_per_sweep)
  expect_equal(es$tts, e$tts * pace$seconds_per_sweep)
  # a given pace converts to another device's seconds
  g <- xorsat_qg(inst, replicas = 10, clones = 32, seed = 4, backend = "cpu", pace = 2e-3)
  expect_identical(g$sweeps, x$sweeps)
  expect_equal(g$seconds, g$sweeps * 2e-3)
  expect_false(attr(g, "pace")$measured)
  # Ctrl-C while the pace is measured (xorsat_pace() returns NULL then):
  # no run started, a warning, no error
  ns <- asNamespace("statphysgpu")
  real <- get("xorsat_pace", envir = ns)
  unlockBinding("xorsat_pace", ns)
  assign("xorsat_pace", function(...) NULL, envir = ns)
  tryCatch(
    expect_warning(w <- xorsat_qg(xorsat_random(24, seed = 1), replicas = 4, clones = 32, seed = 1,
                                  backend = "cpu"), "0 of 4 runs finished",
                   class = "statphysgpu_interrupted"),
    finally = { assign("xorsat_pace", real, envir = ns); lockBinding("xorsat_pace", ns) })
  expect_identical(nrow(w), 0L)
  expect_true(attr(w, "interrupted"))
  expect_identical(attr(w, "unfinished")$replica, 1:4 + 0)
  # summary works in sweeps and converts
  s <- summary(x)
  expect_equal(s$mean_sweeps, mean(x$sweeps))
  expect_equal(s$mean_seconds, mean(x$sweeps) * pace$seconds_per_sweep)
  expect_equal(s$estimate$unit, "sweeps")
  expect_output(print(s), "sweeps")
  expect_output(print(s), "pace .* s per sweep \\(.*CPU, one thread\\)")
})

test_that("p1 = 0 and p1 = 1 need a finite limit: the dynamics is deterministic there", {
  # issue 21, item 4: these calls never returned
  inst <- xorsat_random(16, seed = 1)
  for (p in c(0, 1, 1e-12)) { # 1e-12 is 0 for the engine (p1 2^32 < 1)
    expect_error(xorsat_qg(inst, replicas = 1, clones = 32, p1 = p, seed = 1, backend = "cpu"),
                 "`p1` = .* deterministic .* finite `max_sweeps` or `timeout`",
                 class = "statphysgpu_error")
  }
  # per-clone decisions round p1 to 2^-16: 1e-6 is 0 there, not with shared ones
  expect_error(xorsat_qg(inst, replicas = 1, clones = 32, p1 = 1e-6, seed = 1, backend = "cpu",
                         independent_clones = TRUE), "deterministic")
  expect_s3_class(xorsat_qg(inst, replicas = 1, clones = 32, p1 = 1e-6, seed = 1, max_sweeps = 50,
                            backend = "cpu"), "xorsat_tts")
  # greedy dynamics stops in local minima: on 64 spins no run of 64 clones
  # solves in 500 sweeps (each flip satisfies one more equation, so a clone
  # is frozen after at most N sweeps), while at p1 = 0.15 every run solves
  # (in 470 to 730 sweeps)
  big <- xorsat_random(64, seed = 3)
  g <- xorsat_qg(big, replicas = 8, clones = 64, p1 = 0, max_sweeps = 500, seed = 1,
                 backend = "cpu", pace = 1e-6)
  expect_false(any(g$solved))
  q <- xorsat_qg(big, replicas = 4, clones = 64, p1 = 0.15, max_sweeps = 1e5, seed = 1,
                 backend = "cpu", pace = 1e-6)
  expect_true(all(q$solved))
})

test_that("times to solution are exponential (paper 003, Fig. 2)", {
  inst <- challenge("3r3x_2body_n128_s1")
  x <- xorsat_qg(inst, replicas = 150, clones = 64, seed = 7, backend = "cpu")
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
  x <- xorsat_qg(inst, replicas = 10, clones = 32, seed = 4, backend = "cpu")
  a <- xorsat_qg(inst, replicas = 4, clones = 32, seed = 4, backend = "cpu")
  b <- xorsat_qg(inst, replicas = 6, first_replica = 5, clones = 32, seed = 4, backend = "cpu")
  ab <- rbind(a, b)
  expect_identical(ab$sweeps, x$sweeps)
  expect_length(attr(ab, "solutions"), 10)
  expect_error(rbind(a, a), "overlap")
  s <- summary(x)
  expect_equal(s$replicas, 10)
  expect_output(print(s), "Quasi-greedy runs")
  expect_output(print(x), "Time to solution")
  expect_output(print(x), "seconds = sweeps x .* s, the pace of one run on")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(x))
  expect_invisible(plot(x, unit = "seconds"))
  expect_error(plot(x, unit = "hours"), "`unit` must be one of \"sweeps\", \"seconds\"")
  # chunks measured at other paces: one sample, one pace (the first's)
  b2 <- xorsat_qg(inst, replicas = 6, first_replica = 5, clones = 32, seed = 4, backend = "cpu",
                  pace = 1)
  ab2 <- rbind(a, b2)
  expect_identical(ab2$sweeps, x$sweeps)
  expect_equal(ab2$seconds, ab2$sweeps * attr(a, "seconds_per_sweep"))
  skip_if_not_installed("ggplot2")
  p <- ggplot2::autoplot(x)
  expect_s3_class(p, "ggplot")
  # issue 21, item 9: the title was cut; constant parameters go once into
  # the subtitle, not into the legend's labels
  expect_identical(p$labels$title, "random(40, 2) (N = 40)")
  expect_match(p$labels$subtitle, "10 runs of 32 clones, p1 = 0.08")
  expect_identical(p$labels$x, "time to solution (sweeps)")
  lab <- ggplot2::ggplot_build(p)$plot$scales$get_scales("colour")$get_labels()
  expect_setequal(lab, c("runs", "exponential, posterior median mean"))
  expect_identical(ggplot2::autoplot(x, unit = "seconds")$labels$x, "time to solution (s)")
})

test_that("bad instances get a clear error", {
  expect_error(xorsat_qg(list(n = 3), replicas = 2, backend = "cpu"),
               "`instance` must be a 3-XORSAT instance", class = "statphysgpu_error")
})

test_that("damaged instances are refused, naming the field, before the engine reads them", {
  # issue 21, item 2: the first three crashed R or read uninitialised memory
  i <- xorsat_random(16, seed = 1)
  damage <- list(
    "`instance\\$eq\\[1, 1\\]` is 999; the spins of an equation are whole numbers in 1..16" =
      function(x) { x$eq[1, 1] <- 999L; x },
    "`instance\\$eq\\[1, \\]` is \\(1, 1, 2\\): an equation holds three distinct spins" =
      function(x) { x$eq[1, ] <- c(1L, 1L, 2L); x },
    "`instance\\$J` must be a numeric vector of n = 16 signs .* not an integer vector of length 15" =
      function(x) { x$J <- x$J[-1]; x },
    "`instance\\$eq\\[2, 3\\]` is NA" = function(x) { x$eq[2, 3] <- NA; x },
    "`instance\\$eq\\[1, 1\\]` is 1.5" = function(x) { x$eq[1, 1] <- 1.5; x },
    "`instance\\$eq\\[3, 2\\]` is 0" = function(x) { x$eq[3, 2] <- 0L; x },
    "`instance\\$eq` must be a numeric matrix of n = 16 rows .* not an integer matrix of 15 x 3" =
      function(x) { x$eq <- x$eq[-1, ]; x },
    "`instance\\$eq` must be a numeric matrix .* not an integer vector of length 48" =
      function(x) { x$eq <- as.vector(x$eq); x },
    "`instance\\$eq` must be a numeric matrix .* not a character matrix" =
      function(x) { storage.mode(x$eq) <- "character"; x },
    "`instance\\$eq` has spin [0-9]+ in [24] equations; .* exactly 3" = function(x) {
      x$eq[1, 1] <- setdiff(seq_len(16), x$eq[1, ])[1]; x },
    "`instance\\$J\\[4\\]` is 0; each sign J must be \\+1 or -1" = function(x) { x$J[4] <- 0L; x },
    "`instance\\$J\\[2\\]` is NA" = function(x) { x$J[2] <- NA; x },
    "`instance\\$J` must be a numeric vector" = function(x) { x$J <- x$J == 1; x },
    "`instance\\$n` must be a single whole number between 3 and 2\\^28" =
      function(x) { x$n <- NA_integer_; x },
    "`instance\\$eq` must be a numeric matrix of n = 17 rows" = function(x) { x$n <- 17L; x },
    "`instance\\$name` must be a single string" = function(x) { x$name <- 1; x },
    "`instance\\$planted` must be NULL or a logical vector of n = 16" =
      function(x) { x$planted <- x$planted[-1]; x },
    "`instance` is a damaged \"xorsat\" object: it lacks `eq`" = function(x) { x$eq <- NULL; x },
    "`instance` has class \"xorsat\" but is an integer vector of length 3, not a list" =
      function(x) structure(1:3, class = "xorsat"))
  for (msg in names(damage)) {
    bad <- damage[[msg]](i)
    expect_error(xorsat_qg(bad, replicas = 3, clones = 32, seed = 1, backend = "cpu"), msg,
                 class = "statphysgpu_error")
  }
  # the energy takes instances that are not 3-regular, not damaged ones
  expect_error(xorsat_energy(damage[[1]](i), i$planted), "`instance\\$eq\\[1, 1\\]` is 999")
  # a whole-number double matrix is still an instance
  d <- i
  storage.mode(d$eq) <- "double"
  expect_identical(xorsat_qg(d, replicas = 3, clones = 32, seed = 1, backend = "cpu")$sweeps,
                   xorsat_qg(i, replicas = 3, clones = 32, seed = 1, backend = "cpu")$sweeps)
})

test_that("the engine refuses inconsistent tables whatever R hands it", {
  # the .Call glue and sp_xorsat_check(): no out-of-bounds read on any table
  tab <- statphysgpu:::xorsat_tables(xorsat_random(16, seed = 1))
  go <- function(t = tab, ...) {
    job <- statphysgpu:::xorsat_job(t, nwords = 1, nruns = 2, limit = 100, check_every = 1,
                                    p1 = 0.1, indep = FALSE, calibrate = FALSE,
                                    run0 = c(0, 0), seed = c(1, 0))
    job <- modifyList(job, list(...))
    .Call(statphysgpu:::C_sp_r_model_run, "xorsat", job, "", integer(), FALSE)
  }
  expect_identical(go()$status, c(1L, 1L))
  with <- function(field, value) { t <- tab; t[[field]] <- value; t }
  o <- tab$order; o[2] <- o[1]
  expect_error(go(with("order", o)), "order is not a permutation")
  expect_error(go(with("order", tab$order[-1])), "order|partner|length")
  expect_error(go(with("order", as.double(tab$order))), "integer vector")
  s <- tab$sets; s[2] <- 17L
  expect_error(go(with("sets", s)), "set .* ends before it starts|sets must run")
  expect_error(go(with("sets", c(0L, 10L))), "sets must run from 0 to n = 16")
  p <- tab$partner; p[7] <- 99L
  expect_error(go(with("partner", p)), "partner 99 of spin 1 is out of range")
  p <- tab$partner; p[1] <- 0L
  expect_error(go(with("partner", p)), "the spin itself")
  expect_error(go(with("partner", tab$partner[-1])), "`partner` must be an integer vector of length 96")
  e <- tab$eq; e[5] <- -1L
  expect_error(go(with("eq", e)), "equation 1 has spin -1 outside 0..15")
  expect_error(go(with("jeq", tab$jeq[-1])), "`jeq` must be an integer vector of length 16")
  expect_error(go(with("jneg", NULL)), "'jm' must be an integer vector")
  # two spins of one equation in one set: the GPU would update them at once
  t2 <- tab
  t2$sets <- c(0L, 16L)
  expect_error(go(t2), "in its independent set")
  expect_error(go(nwords = 0), "no words of clones")
  expect_error(go(check_every = 0), "conditions or check_every")
  expect_error(go(conds = list(p1_thr = 2^32 + 1)), "the 3-XORSAT p1")
  expect_error(go(conds = list(p1_thr = c(1, 2^32 + 1))), "the 3-XORSAT p1")
  expect_error(go(conds = list(p1_thr = rep(2^30, 257))), "conditions or check_every")
  expect_error(go(conds = list(p1_thr = c(1, 2)), run0 = c(0, 256)), "conditions or check_every")
  expect_error(go(nwords = 2^32), "'nwords' = 4294967296 is not a whole number in")
  expect_error(go(seed = NULL), "lacks 'seed'|has 14 fields")
})

test_that("as_surv() censors the cut runs at the time they ran", {
  skip_if_not_installed("survival")
  x <- xorsat_qg(xorsat_random(120, seed = 1), replicas = 5, clones = 32, p1 = 0.3, seed = 1,
                 backend = "cpu", max_sweeps = 200)
  s <- as_surv(x)
  expect_equal(unname(s[, "time"]), x$sweeps)
  expect_equal(unname(s[, "status"]), as.numeric(x$solved))
  s <- as_surv(x, unit = "seconds")
  expect_equal(unname(s[, "time"]), x$seconds)
  expect_equal(unname(s[, "time"]), x$sweeps * attr(x, "seconds_per_sweep"))
  expect_equal(unname(s[, "status"]), as.numeric(x$solved))
  expect_error(as_surv(x, unit = "minutes"), "unit")
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
  key <- function(x) as.data.frame(x)[c("replica", "sweeps", "solved", "clone")]
  for (p in c(0, 1)) {
    a <- xorsat_qg(inst, replicas = 6, clones = 64, p1 = p, max_sweeps = 300, seed = 2,
                   backend = "cpu")
    b <- xorsat_qg(inst, replicas = 6, clones = 64, p1 = p, max_sweeps = 300, seed = 2,
                   backend = "cpu", independent_clones = TRUE)
    expect_identical(key(b), key(a))
  }
  a <- xorsat_qg(inst, replicas = 12, clones = 64, seed = 2, backend = "cpu")
  b <- xorsat_qg(inst, replicas = 12, clones = 64, seed = 2, backend = "cpu",
                 independent_clones = TRUE)
  expect_true(all(b$solved))
  expect_true(isTRUE(attr(b, "independent_clones")))
  expect_false(identical(key(a), key(b)))
  expect_output(print(b), "per clone")
  # chunks and threads do not change the runs
  parts <- rbind(xorsat_qg(inst, replicas = 5, clones = 64, seed = 2, backend = "cpu",
                           independent_clones = TRUE),
                 xorsat_qg(inst, replicas = 7, first_replica = 6, clones = 64, seed = 2,
                           backend = "cpu", independent_clones = TRUE))
  expect_identical(key(parts), key(b))
  expect_error(rbind(a, b), "independent_clones")
  expect_error(xorsat_qg(inst, replicas = 2, independent_clones = NA, backend = "cpu"),
               "`independent_clones` must be", class = "statphysgpu_error")
})

test_that("a sweep over p1: condition 1 is the one-condition call, each condition its own streams", {
  inst <- xorsat_random(40, seed = 3)
  key <- c("replica", "sweeps", "solved", "clone")
  q <- function(p1, ...) xorsat_qg(inst, replicas = 12, clones = 32, p1 = p1, seed = 7,
                                   pace = 1e-6, backend = "cpu", progress = FALSE, ...)
  x <- q(c(0.1, 0.2, 0.3))
  expect_identical(attr(x, "conditions"), data.frame(condition = 1:3, p1 = c(0.1, 0.2, 0.3)))
  expect_identical(attr(x, "p1"), c(0.1, 0.2, 0.3))
  expect_identical(names(x), c("condition", "p1", "replica", "sweeps", "seconds", "solved",
                               "clone"))
  expect_identical(x$condition, rep(1:3, each = 12))
  expect_identical(x$p1, rep(c(0.1, 0.2, 0.3), each = 12))
  expect_identical(x$replica, rep(1:12, 3) + 0)
  # condition 1: the streams of a call without a sweep, so the same runs
  one <- q(0.1)
  expect_identical(as.data.frame(x)[x$condition == 1, key], as.data.frame(one)[key])
  expect_identical(attr(x, "solutions")[paste0("1/", names(attr(one, "solutions")))],
                   stats::setNames(attr(one, "solutions"),
                                   paste0("1/", names(attr(one, "solutions")))))
  # a condition's runs depend on its number and p1 only: condition 3 (p1 =
  # 0.3) of another grid is the same; equal p1 in two conditions, other runs
  y <- q(c(0.15, 0.25, 0.3))
  expect_identical(as.data.frame(y)[y$condition == 3, key], as.data.frame(x)[x$condition == 3, key])
  z <- q(c(0.2, 0.2))
  expect_identical(as.data.frame(z)[z$condition == 1, key], as.data.frame(q(0.2))[key])
  expect_false(identical(z$sweeps[z$condition == 2], z$sweeps[z$condition == 1]))
  # every solution of every condition is a ground state
  for (s in attr(x, "solutions")) expect_identical(statphysgpu:::xorsat_unsat(inst, s), 0L)
  expect_length(attr(x, "solutions"), sum(x$solved))
  # chunks by first_replica combine to the one call
  a <- xorsat_qg(inst, replicas = 5, clones = 32, p1 = c(0.1, 0.2, 0.3), seed = 7,
                 pace = 1e-6, backend = "cpu", progress = FALSE)
  b <- xorsat_qg(inst, replicas = 7, first_replica = 6, clones = 32, p1 = c(0.1, 0.2, 0.3),
                 seed = 7, pace = 1e-6, backend = "cpu", progress = FALSE)
  ab <- rbind(b, a)
  expect_identical(as.data.frame(ab), as.data.frame(x))
  expect_setequal(names(attr(ab, "solutions")), names(attr(x, "solutions")))
  expect_error(rbind(a, q(c(0.1, 0.2))), "the same seed, instance, clones, p1")
  # a max_sweeps cut applies to every condition
  cut <- q(c(0.1, 0.3), max_sweeps = 20)
  expect_true(all(cut$sweeps <= 20))
  expect_identical(as.data.frame(cut)[cut$condition == 1, key],
                   as.data.frame(q(0.1, max_sweeps = 20))[key])
})

test_that("a sweep over p1: a time-to-solution estimate and summary per p1, the best marked", {
  inst <- xorsat_random(40, seed = 3)
  x <- xorsat_qg(inst, replicas = 15, clones = 32, p1 = c(0.05, 0.15, 0.4), seed = 2,
                 pace = 1e-6, max_sweeps = 400, backend = "cpu", progress = FALSE)
  e <- tts_estimate(x)
  expect_s3_class(e, "tts_estimate")
  expect_identical(names(e)[1:3], c("condition", "p1", "runs"))
  expect_identical(e$p1, c(0.05, 0.15, 0.4))
  for (c in 1:3) {
    ec <- tts_estimate(as.data.frame(x)[x$condition == c, c("sweeps", "solved")])
    expect_equal(unlist(e[c, names(ec)[names(ec) != "prior" & names(ec) != "unit"]]),
                 unlist(ec[names(ec)[names(ec) != "prior" & names(ec) != "unit"]]))
  }
  expect_output(print(e), "Condition 2 \\(p1 = 0.15\\):")
  expect_equal(tts_estimate(x, unit = "seconds")$tau_median, e$tau_median * 1e-6)
  s <- summary(x)
  expect_identical(s$conditions$p1, c(0.05, 0.15, 0.4))
  expect_equal(s$conditions$tau_median, e$tau_median)
  expect_equal(s$conditions$solved, as.vector(tapply(x$solved, x$condition, sum)))
  expect_identical(s$best, which.min(e$tau_median))
  expect_output(print(s), "3 values of p1")
  expect_output(print(s), "<-")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(x))
  skip_if_not_installed("ggplot2")
  p <- ggplot2::autoplot(x)
  expect_s3_class(p, "ggplot")
  expect_identical(p$labels$colour, "p1")
})

test_that("a sweep over p1: its limits get clear errors", {
  inst <- xorsat_random(24, seed = 1)
  expect_error(xorsat_qg(inst, replicas = 1, clones = 32, p1 = seq(0, 1, length.out = 257)),
               "`p1` has 257 values; one call runs at most 256", class = "statphysgpu_error")
  expect_error(xorsat_qg(inst, replicas = 1, clones = 32, p1 = c(0.1, 1), backend = "cpu"),
               "`p1` = 1 makes the quasi-greedy dynamics deterministic", class = "statphysgpu_error")
  expect_error(xorsat_qg(inst, replicas = 1, clones = 32, p1 = c(0.1, NA)),
               "`p1` must be a numeric vector of finite numbers in \\[0, 1\\], not NA",
               class = "statphysgpu_error")
  # several conditions: 2^40 runs per condition (one condition: 2^47)
  expect_error(xorsat_qg(inst, replicas = 2, clones = 32, p1 = c(0.1, 0.2), seed = 1,
                         first_replica = 2^40, backend = "cpu"),
               "must not pass 2\\^40", class = "statphysgpu_error")
  expect_identical(xorsat_qg(inst, replicas = 1, clones = 32, p1 = 0.1, seed = 1, pace = 1e-6,
                             first_replica = 2^40 + 5, backend = "cpu",
                             progress = FALSE)$replica, 2^40 + 5)
})
