# sde_run_states() (internal, R/sde-run.R; issue 50): sde_run()'s
# trajectories of a single-particle model as the engine's buffer, without
# the data frame, for front-ends that read every path at a few records
# (driven_brownian()'s declared engine).  Its numbers are the data frame's,
# bit for bit.

skip_on_cran()

test_that("sde_run_states(): the states and observables of sde_run(output = \"trajectories\"), bit for bit", {
  skip_if_no_cc()
  m <- sde_washboard() # two states and an observable (energy)
  # two conditions, a chunk (replicas 3..8, of which 3..5 kept), records
  # every 7 steps and the last (t_max not a multiple of 7 steps)
  a <- list(m, 6, init = list(x = seq(-1, 1, length.out = 6), v = 0), dt = 0.01, t_max = 0.3,
            params = list(gamma = c(0.3, 0.6)), method = "euler", record_every = 7, keep = 5,
            seed = 4, first_replica = 3, backend = "cpu", precision = "double",
            progress = FALSE)
  d <- do.call(sde_run, c(a, output = "trajectories"))
  s <- do.call(statphysgpu:::sde_run_states, a)
  expect_identical(s$vars, c("x", "v", "energy"))
  expect_identical(c(s$nrec, s$records, s$every, s$kmax, s$paths, s$keep), c(6, 6, 7, 30, 6, 3))
  expect_false(s$interrupted)
  expect_identical(s$seconds > 0, TRUE)
  # the data frame: condition, then replica, then record
  expect_identical(unique(d$replica), c(3, 4, 5))
  for (v in s$vars) {
    want <- matrix(d[[v]], nrow = s$nrec) # records x kept paths
    expect_identical(statphysgpu:::sde_states_at(s, v, seq_len(s$nrec), seq_len(s$paths)), want,
                     label = v)
    got <- statphysgpu:::sde_states_paths(s, v, c(s$nrec, 1, 3))
    expect_identical(got, list(want[s$nrec, ], want[1, ], want[3, ]), label = v)
    expect_identical(statphysgpu:::sde_states_at(s, v, 2, c(5, 2)), want[2, c(5, 2), drop = FALSE])
  }
  # single precision: the same engine, the same numbers
  a$precision <- "single"
  d1 <- do.call(sde_run, c(a, output = "trajectories"))
  s1 <- do.call(statphysgpu:::sde_run_states, a)
  expect_identical(statphysgpu:::sde_states_paths(s1, "v", s1$nrec)[[1]],
                   matrix(d1$v, nrow = s1$nrec)[s1$nrec, ])
})

test_that("driven_brownian() declared: its per-path values are sde_run()'s trajectories at the transient's end and the last record", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.driven_engine = "declared")
  # two conditions; transient 2 of 5 periods: records every 1 period (gcd)
  x <- driven_brownian(7, a = c(1, 4.2), omega = 4.9, f = 0.1, beta = 0.9, theta = 0.05,
                       periods = 5, steps_per_period = 200, transient = 0.4, seed = 9,
                       backend = "cpu", precision = "double", progress = FALSE)
  # the old route: the same run as sde_run()'s data frame (R/driven-declared.R)
  spp <- 200
  dtau <- 2 * pi / spp
  x0 <- statphysgpu:::driven_declared_starts(statphysgpu:::resolve_seed(attr(x, "seed_hex")),
                                             1, 7)
  grid <- attr(x, "conditions")
  r <- withCallingHandlers(
    sde_run(statphysgpu:::driven_declared_model(), 7, init = list(x = x0, v = 0, s = 0),
            dt = dtau, t_max = 5 * spp * dtau,
            params = data.frame(a = grid$a, f = grid$f, beta = grid$beta, iw = 1 / grid$omega,
                                sn = sqrt(2 * grid$beta * grid$theta / grid$omega)),
            method = "srk2", output = "trajectories", record_every = spp, keep = 7,
            seed = attr(x, "seed_hex"), backend = "cpu", precision = "double",
            progress = FALSE),
    statphysgpu_t_max_warning = function(w) invokeRestart("muffleWarning"))
  X <- matrix(r$x, nrow = 6)
  V <- matrix(r$v, nrow = 6)
  p <- attr(x, "paths")
  expect_identical(p$x, X[6, ])
  expect_identical(p$v, V[6, ])
  expect_identical(p$x_tr, X[3, ])
})

test_that("sde_run_states(slots =): records sharing a slot leave the last one reached, the same numbers", {
  skip_if_no_cc()
  m <- sde_washboard()
  a <- list(m, 6, init = list(x = seq(-1, 1, length.out = 6), v = 0), dt = 0.01, t_max = 0.3,
            params = list(gamma = c(0.3, 0.6)), method = "srk2", record_every = 7, keep = 5,
            seed = 4, first_replica = 3, backend = "cpu", precision = "double",
            progress = FALSE)
  s <- do.call(statphysgpu:::sde_run_states, a)
  # records 1..3 -> slot 1, 4 not kept, 5..6 -> slot 2
  s2 <- do.call(statphysgpu:::sde_run_states, c(a, list(slots = c(1, 1, 1, 0, 2, 2))))
  expect_identical(c(s2$nslot, s2$records), c(2, 6))
  expect_length(s2$values, 2 * 3 * s2$paths) # two slots of 3 variables a kept path
  for (v in s$vars) {
    expect_identical(statphysgpu:::sde_states_paths(s2, v, c(6, 3)),
                     statphysgpu:::sde_states_paths(s, v, c(6, 3)), label = v)
    expect_identical(statphysgpu:::sde_states_at(s2, v, c(3, 6), c(2, 6)),
                     statphysgpu:::sde_states_at(s, v, c(3, 6), c(2, 6)), label = v)
  }
  # a record whose slot a later record took, or not kept: refused
  expect_error(statphysgpu:::sde_states_paths(s2, "x", 2), "not all kept")
  expect_error(statphysgpu:::sde_states_paths(s2, "x", 4), "not all kept")
})
