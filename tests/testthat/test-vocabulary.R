# The package's vocabulary (issue 23): old argument names keep working for
# one release, with a warning of class statphysgpu_deprecated naming the new
# one and the same result as the new name; giving both is an error; every
# simulator refuses a precision it lacks; results of earlier versions (old
# column, attribute and state names) are still read.  Small sizes.

# `old` (a call with old names) warns once per old name, of class
# statphysgpu_deprecated, naming each new name, and returns what `new` does.
expect_renamed <- function(old, new, renames, key = as.data.frame) {
  warned <- character()
  got <- withCallingHandlers(old, statphysgpu_deprecated = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_length(warned, length(renames))
  for (o in names(renames)) {
    expect_true(any(grepl(sprintf("`%s` of .* is deprecated: it is now .*`%s", o, renames[[o]]),
                          warned)), label = sprintf("a warning naming `%s` and `%s`", o,
                                                    renames[[o]]))
  }
  expect_identical(key(got), key(new))
}

test_that("escape_times() and switching_currents(): n, h, start still work", {
  new <- escape_times(20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.05, t_max = 50,
                      init = "thermal", seed = 1, backend = "cpu", progress = FALSE)
  expect_renamed(escape_times(n = 20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, h = 0.05,
                              t_max = 50, start = "thermal", seed = 1, backend = "cpu",
                              progress = FALSE),
                 new, c(n = "replicas", h = "dt", start = "init"))
  # the positional order of the leading arguments is unchanged
  expect_identical(as.data.frame(escape_times(20, 0.5, 1, 0.5, 0.3, 0.05, 50, init = "thermal",
                                              seed = 1, backend = "cpu", progress = FALSE)),
                   as.data.frame(new))
  expect_error(escape_times(20, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.05,
                            h = 0.05, t_max = 50, seed = 1, backend = "cpu"),
               "give `dt` only: `h` is its old name", class = "statphysgpu_deprecated_error")
  s <- switching_currents(20, ramp = 1e-2, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.05,
                          gamma0 = 0.5, seed = 2, backend = "cpu", progress = FALSE)
  expect_renamed(switching_currents(n = 20, ramp = 1e-2, V0 = 1, beta = 0.5, theta = 0.2,
                                    h = 0.05, gamma0 = 0.5, seed = 2, backend = "cpu",
                                    progress = FALSE),
                 s, c(n = "replicas", h = "dt"))
})

test_that("driven_brownian(): n, gamma, D0, x0, v0 still work", {
  args <- list(a = 1, omega = 2, f = c(0, 0.5), periods = 3, steps_per_period = 60,
               seed = 3, backend = "cpu", progress = FALSE)
  run <- function(...) suppressWarnings(do.call(driven_brownian, c(list(...), args)),
                                        classes = "statphysgpu_step_warning")
  new <- run(replicas = 6, beta = 1, theta = 0.1, init = list(x = 0.25, v = c(-1, 0, 1, 2, 3, 4)))
  expect_identical(names(new)[1:7], c("condition", "a", "omega", "f", "beta", "theta", "replicas"))
  expect_identical(attr(new, "init"), "given")
  expect_renamed(run(n = 6, gamma = 1, D0 = 0.1, x0 = 0.25, v0 = c(-1, 0, 1, 2, 3, 4)), new,
                 c(n = "replicas", gamma = "beta", D0 = "theta", x0 = "init", v0 = "init"),
                 key = function(x) attr(x, "paths"))
  # x0 alone: the velocities start at rest, as with init = list(x = )
  expect_renamed(run(replicas = 6, beta = 1, theta = 0.1, x0 = 0.25),
                 run(replicas = 6, beta = 1, theta = 0.1, init = list(x = 0.25)),
                 c(x0 = "init"), key = function(x) attr(x, "paths"))
  expect_error(run(replicas = 6, beta = 1, theta = 0.1, init = list(x = 0.25), v0 = 1),
               "give `init` only: `v0` is its old form", class = "statphysgpu_deprecated_error")
  expect_error(run(replicas = 6, beta = 1, gamma = 1, theta = 0.1),
               "give `beta` only: `gamma` is its old name", class = "statphysgpu_deprecated_error")
  expect_error(run(replicas = 6, beta = 1, theta = 0.1, init = 0.25),
               "`init` must be NULL \\(the default start\\) or a list with elements `x`",
               class = "statphysgpu_error")
  expect_error(run(replicas = 6, beta = 1, theta = 0.1, init = list(y = 1)),
               "`init` must be NULL", class = "statphysgpu_error")
})

test_that("kuramoto(): omega, gamma, T, theta0 still work; kuramoto_r_theory(T = )", {
  th <- seq(-1, 1, length.out = 12)
  new <- kuramoto(12, K = 2, frequencies = 0.3, beta = 2, theta = 0.4, dt = 0.05, steps = 10,
                  init = th, replicas = 2, seed = 4, backend = "cpu", progress = FALSE)
  expect_identical(attr(new, "init"), "given")
  expect_identical(dim(attr(new, "phases")), c(12L, 2L))
  expect_identical(attr(new, "theta"), attr(new, "phases")) # the old name, deprecated
  p <- attr(new, "params")
  expect_identical(c(p$beta, p$theta, p$frequencies), c(2, 0.4, 0.3))
  expect_renamed(kuramoto(12, K = 2, omega = 0.3, gamma = 2, T = 0.4, dt = 0.05, steps = 10,
                          theta0 = th, replicas = 2, seed = 4, backend = "cpu", progress = FALSE),
                 new, c(omega = "frequencies", gamma = "beta", T = "theta", theta0 = "init"),
                 key = function(x) list(as.data.frame(x), attr(x, "phases")))
  # positional: n, K, frequencies, beta, theta, dt, steps
  expect_identical(attr(kuramoto(12, 2, 0.3, 2, 0.4, 0.05, 10, init = th, replicas = 2, seed = 4,
                                 backend = "cpu", progress = FALSE), "phases"),
                   attr(new, "phases"))
  expect_error(kuramoto(12, K = 2, theta = 0.4, T = 0.4, dt = 0.05, steps = 10),
               "give `theta` only: `T` is its old name", class = "statphysgpu_deprecated_error")
  expect_renamed(kuramoto_r_theory(c(1, 3), T = 0.5), kuramoto_r_theory(c(1, 3), theta = 0.5),
                 c(T = "theta"), key = identity)
})

test_that("he4_vmc(): n_atoms, walkers, step, start, first_walker still work", {
  new <- he4_vmc(n = 32, replicas = 2, blocks = 2, block_sweeps = 3, equilibration = 3,
                 displacement = 0.4, first_replica = 3, seed = 5, backend = "cpu",
                 progress = FALSE)
  expect_identical(names(new)[1:2], c("replica", "block"))
  expect_identical(attr(new, "displacement"), c(0.4, 0.4))
  expect_identical(c(attr(new, "replicas"), attr(new, "first_replica")), c(2, 3))
  expect_renamed(he4_vmc(n_atoms = 32, walkers = 2, blocks = 2, block_sweeps = 3,
                         equilibration = 3, step = 0.4, first_walker = 3, seed = 5,
                         backend = "cpu", progress = FALSE),
                 new, c(n_atoms = "n", walkers = "replicas", step = "displacement",
                        first_walker = "first_replica"),
                 key = function(x) list(as.data.frame(x), attr(x, "state")))
  more <- he4_vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, init = new,
                  backend = "cpu", progress = FALSE)
  expect_identical(attr(more, "init"), "continued")
  expect_renamed(he4_vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, start = new,
                         backend = "cpu", progress = FALSE),
                 more, c(start = "init"))
  expect_error(he4_vmc(32, replicas = 2, walkers = 2, blocks = 1),
               "give `replicas` only: `walkers` is its old name",
               class = "statphysgpu_deprecated_error")
})

test_that("xorsat_qg() and replica_chunks(): runs, first_run, n still work", {
  ins <- xorsat_random(24, seed = 1)
  new <- xorsat_qg(ins, replicas = 5, first_replica = 4, clones = 32, seed = 6, pace = 1e-6,
                   backend = "cpu", progress = FALSE)
  expect_identical(new$replica, 4:8 + 0)
  expect_identical(attr(new, "precision"), "double")
  expect_renamed(xorsat_qg(ins, runs = 5, first_run = 4, clones = 32, seed = 6, pace = 1e-6,
                           backend = "cpu", progress = FALSE),
                 new, c(runs = "replicas", first_run = "first_replica"))
  expect_error(xorsat_qg(ins, replicas = 5, runs = 5, clones = 32),
               "give `replicas` only: `runs` is its old name",
               class = "statphysgpu_deprecated_error")
  ch <- replica_chunks(10, chunks = 3)
  expect_identical(names(ch), c("chunk", "first_replica", "replicas", "last_replica"))
  expect_renamed(replica_chunks(n = 10, chunks = 3), ch, c(n = "replicas"), key = identity)
})

test_that("every simulator refuses a precision it lacks, with a clear message", {
  refuses <- function(expr, lacking, offered) {
    expect_error(expr, sprintf("this model has no precision \"%s\": `precision` must be %s",
                               lacking, offered), class = "statphysgpu_error")
  }
  sd <- "\"single\" or \"double\""
  refuses(escape_times(10, 0.5, 1, 0.5, 0.3, 0.05, 10, precision = "mixed", backend = "cpu"),
          "mixed", sd)
  refuses(switching_currents(10, 1e-2, 1, 0.5, 0.3, 0.05, precision = "mixed", backend = "cpu"),
          "mixed", sd)
  refuses(driven_brownian(4, 1, 2, 0, 1, 0.1, 2, precision = "mixed", backend = "cpu"),
          "mixed", sd)
  refuses(kuramoto(8, 1, dt = 0.1, steps = 2, precision = "mixed", backend = "cpu"), "mixed", sd)
  refuses(he4_vmc(32, replicas = 1, blocks = 1, precision = "single", backend = "cpu"),
          "single", "\"mixed\" or \"double\"")
  for (p in c("single", "mixed")) {
    refuses(xorsat_qg(xorsat_random(12, seed = 1), replicas = 1, clones = 32, precision = p,
                      backend = "cpu"), p, "\"double\"")
  }
  refuses(lrmd("hmf", init = hmf_waterbag(16, M0 = 1, U = 0.69, seed = 1), dt = 0.1, steps = 1,
               precision = "single", backend = "cpu"), "single", "\"mixed\" or \"double\"")
  # a value outside the vocabulary is named as such
  expect_error(xorsat_qg(xorsat_random(12, seed = 1), replicas = 1, precision = "half"),
               "`precision` must be one of \"double\" here \\(the package's precisions are \"single\", \"mixed\", \"double\"\\), not \"half\"",
               class = "statphysgpu_error")
})

test_that("results of earlier versions (old names inside) are still read", {
  # kuramoto: final phases in attribute theta, params gamma, T, omega
  k <- function(first) {
    x <- kuramoto(10, K = 3, theta = 0.5, dt = 0.05, steps = 20, record_every = 5, seed = 7,
                  first_replica = first, backend = "cpu", progress = FALSE)
    p <- attr(x, "params")
    names(p)[match(c("beta", "theta", "frequencies", "frequencies_dist"), names(p))] <-
      c("gamma", "T", "omega", "omega_dist")
    attr(x, "params") <- p
    attr(x, "theta") <- attr(x, "phases")
    attr(x, "phases") <- NULL
    x
  }
  old <- rbind(k(1), k(2))
  whole <- kuramoto(10, K = 3, theta = 0.5, dt = 0.05, steps = 20, record_every = 5, seed = 7,
                    replicas = 2, backend = "cpu", progress = FALSE)
  expect_identical(attr(old, "phases"), attr(whole, "phases"))
  expect_identical(as.data.frame(old), as.data.frame(whole))
  expect_equal(summary(k(1))$theory, kuramoto_r_theory(3, theta = 0.5))
  expect_output(print(k(1)), "beta = 1, theta = 0.5")
  # he4_vmc: column walker, params n_atoms, state fields walker and step
  x <- he4_vmc(32, replicas = 2, blocks = 2, block_sweeps = 3, equilibration = 3, seed = 8,
               backend = "cpu", progress = FALSE)
  y <- x
  names(y)[names(y) == "replica"] <- "walker"
  p <- attr(y, "params")
  names(p)[names(p) == "n"] <- "n_atoms"
  attr(y, "params") <- p
  st <- attr(y, "state")
  names(st)[match(c("replica", "displacement"), names(st))] <- c("walker", "step")
  attr(y, "state") <- st
  a <- he4_vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, init = x, backend = "cpu",
               progress = FALSE)
  # a continuation refuses a result of an earlier version: it has no seal
  # (issue 48; here its seal no longer holds); sealed again, the old names
  # are read behind the seal as ever
  expect_error(he4_vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, init = y,
                       backend = "cpu", progress = FALSE),
               "`init` was modified after it was run", class = "statphysgpu_modified_result")
  b <- he4_vmc(32, blocks = 1, block_sweeps = 3, equilibration = 0, init = reseal(y),
               backend = "cpu", progress = FALSE)
  expect_identical(as.data.frame(b), as.data.frame(a))
  expect_identical(as.data.frame(rbind(y, b)), as.data.frame(rbind(x, a)))
  expect_identical(attr(summary(y), "replicas"), 2)
  # xorsat_qg: column run
  q <- xorsat_qg(xorsat_random(24, seed = 1), replicas = 4, clones = 32, seed = 9, pace = 1e-6,
                 backend = "cpu", progress = FALSE)
  r <- q
  names(r)[names(r) == "replica"] <- "run"
  expect_identical(as.data.frame(r), as.data.frame(q))
  # driven_brownian: conditions gamma, D0
  d <- suppressWarnings(driven_brownian(4, a = 1, omega = 2, f = c(0, 1), beta = 1, theta = 0.1,
                                        periods = 2, steps_per_period = 60, seed = 1,
                                        backend = "cpu", progress = FALSE),
                        classes = "statphysgpu_step_warning")
  e <- d
  names(e)[match(c("beta", "theta"), names(e))] <- c("gamma", "D0")
  g <- attr(e, "conditions")
  names(g)[match(c("beta", "theta"), names(g))] <- c("gamma", "D0")
  attr(e, "conditions") <- g
  expect_identical(statphysgpu:::driven_plot_data(e, "velocity", NULL)$x, c(0, 1))
  expect_identical(attr(statphysgpu:::driven_plot_data(e, "velocity", NULL), "constant"),
                   "a = 1, omega = 2, gamma = 1, D0 = 0.1")
})

test_that("replica_chunks()$n of earlier versions still gives the counts, with a warning", {
  ch <- replica_chunks(10, chunks = 3)
  expect_warning(m <- ch$n, class = "statphysgpu_deprecated")
  expect_identical(m, ch$replicas)
  expect_identical(ch$first_replica, c(1, 5, 8))
  expect_s3_class(ch[2, ], "data.frame")
})

test_that("rbind() of chunks gives the one call's attribute replicas, a double (found by the Slurm tests)", {
  chunks <- function(f) {
    whole <- f(1, 4)
    joined <- rbind(f(1, 2), f(3, 2))
    expect_identical(attr(joined, "replicas"), attr(whole, "replicas"))
    expect_type(attr(joined, "replicas"), "double")
  }
  chunks(function(first, m) he4_vmc(16, replicas = m, first_replica = first, blocks = 2,
                                    block_sweeps = 2, equilibration = 2, seed = 3,
                                    backend = "cpu", progress = FALSE))
  inst <- xorsat_random(24, seed = 2)
  chunks(function(first, m) xorsat_qg(inst, replicas = m, first_replica = first, clones = 32,
                                      seed = 3, backend = "cpu", progress = FALSE, pace = 1e-6))
  chunks(function(first, m) driven_brownian(m, a = 1, omega = 2, f = 0, beta = 1, theta = 0.1,
                                            periods = 2, steps_per_period = 1000,
                                            first_replica = first, seed = 3,
                                            backend = "cpu", progress = FALSE))
  chunks(function(first, m) kuramoto(8, K = 1, dt = 0.1, steps = 4, replicas = m,
                                     first_replica = first, seed = 3, backend = "cpu",
                                     progress = FALSE))
  chunks(function(first, m) escape_times(m, 0.5, 1, 1, 0.2, 0.02, 5, first_replica = first,
                                         seed = 3, backend = "cpu", progress = FALSE))
})
