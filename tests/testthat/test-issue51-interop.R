# Issue 51, item 5: coda chains of the helium results (estimators only, one
# chain per walker or population, a sweep named by its condition), tibbles
# from tidy(), tidy() and glance() of summaries, h_check() and
# censored_mean().

test_that("coda: one chain per walker of the estimators only, a sweep by condition", {
  skip_if_not_installed("coda")
  x <- he4_vmc(16, replicas = 2, blocks = 4, block_sweeps = 2, equilibration = 2,
               backend = "cpu", seed = 1, progress = FALSE)
  m <- coda::as.mcmc.list(x)
  expect_s3_class(m, "mcmc.list")
  expect_identical(coda::nchain(m), 2L)
  expect_identical(coda::varnames(m), c("energy", "potential", "kinetic_pb", "kinetic_jf",
                                        "acceptance"))
  d <- as.data.frame(x)
  expect_identical(unname(as.matrix(m[[2]])[, "energy"]), d$energy[d$replica == 2])
  # as.mcmc(): no bookkeeping columns; several walkers need as.mcmc.list()
  expect_error(coda::as.mcmc(x), "2 walkers.*as.mcmc.list\\(x\\).*`replica =`")
  one <- coda::as.mcmc(x, replica = 2)
  expect_s3_class(one, "mcmc")
  expect_false(any(c("replica", "block", "condition") %in% colnames(one)))
  expect_identical(unname(as.matrix(one)[, "energy"]), d$energy[d$replica == 2])
  # a sweep: the condition is named, never the first taken silently
  s <- he4_vmc(16, density = c(0.02186, 0.024), replicas = 2, blocks = 3, block_sweeps = 2,
               equilibration = 2, backend = "cpu", seed = 2, progress = FALSE)
  expect_error(coda::as.mcmc.list(s), "sweep of 2 conditions \\(1, 2\\).*`condition =`",
               class = "statphysgpu_condition_needed")
  expect_error(coda::as.mcmc(s, replica = 1), class = "statphysgpu_condition_needed")
  m2 <- coda::as.mcmc.list(s, condition = 2)
  sd <- as.data.frame(s)
  expect_identical(unname(as.matrix(m2[[1]])[, "energy"]),
                   sd$energy[sd$condition == 2 & sd$replica == 1])
  skip_if_not_installed("posterior")
  expect_error(posterior::as_draws(s), class = "statphysgpu_condition_needed")
})

test_that("coda: as.mcmc.list() of a DMC result, one chain per population", {
  skip_if_not_installed("coda")
  x <- he4_dmc(8, dt = 0.01, walkers = 3, blocks = 3, block_steps = 1, equilibration = 0,
               populations = 2, seed = 1, backend = "cpu", progress = FALSE)
  m <- coda::as.mcmc.list(x)
  expect_s3_class(m, "mcmc.list")
  expect_identical(coda::nchain(m), 2L)
  expect_identical(coda::niter(m), 3L)
  expect_identical(coda::varnames(m), c("energy", "potential", "kinetic", "trial_energy",
                                        "population"))
  d <- as.data.frame(x)
  expect_identical(unname(as.matrix(m[[2]])[, "energy"]), d$energy[d$replica == 2])
  expect_error(coda::as.mcmc(x), "2 populations")
  w <- coda::as.mcmc(x, replica = 1, observables = "weight")
  expect_s3_class(w, "mcmc")
  expect_identical(unname(as.matrix(w)[, 1]), d$weight[d$replica == 1])
  expect_error(coda::as.mcmc.list(x, observables = "block"), "`observables` must be some of")
})

test_that("tidy() returns tibbles; summaries, h_check() and censored_mean() are tidied", {
  skip_if_not_installed("generics")
  skip_if_not_installed("tibble")
  e <- tts_estimate(c(120, 340, 95, 800), solved = c(TRUE, TRUE, TRUE, FALSE))
  expect_s3_class(generics::tidy(e), "tbl_df")
  expect_s3_class(generics::glance(e), "tbl_df")
  expect_identical(generics::glance(e)$success, 0.99)
  # censored_mean(): a class with print(), the fields kept
  set.seed(3)
  t <- 0.5 + rexp(200, rate = 0.1)
  cm <- censored_mean(pmin(t, 20), escaped = t <= 20)
  expect_s3_class(cm, "censored_mean")
  expect_named(cm, c("estimate", "lower", "upper", "se", "method", "level", "n", "n_censored",
                     "from", "tail_rate"))
  expect_output(print(cm), "Censoring-aware mean: .*censored")
  tc <- generics::tidy(cm)
  expect_s3_class(tc, "tbl_df")
  expect_identical(c(tc$estimate, tc$std.error, tc$conf.low, tc$conf.high),
                   c(cm$estimate, cm$se, cm$lower, cm$upper))
  expect_identical(generics::glance(cm)$censored, cm$n_censored)
  # the summary of escape times and h_check()
  x <- escape_times(60, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.05,
                    t_max = 40, seed = 3, backend = "cpu")
  s <- summary(x)
  ts <- generics::tidy(s)
  expect_s3_class(ts, "tbl_df")
  expect_identical(ts$term, c("mean", "median", "tail_rate"))
  expect_identical(ts$estimate[1], s$mean)
  expect_identical(ts$std.error[1], s$se)
  expect_identical(generics::glance(s)$replicas, s$replicas)
  h <- h_check(x)
  th <- generics::tidy(h)
  expect_identical(th$term, c("mean_h", "mean_h2", "difference", "bias_h"))
  expect_equal(th$statistic[3], h$z)
  expect_equal(th$std.error[3], sqrt(h$se_h^2 + h$se_h2^2))
  expect_identical(generics::glance(h)$dt, attr(h, "dt"))
  # reblocked summaries (VMC), AMS and the solver's summary
  v <- he4_vmc(16, replicas = 2, blocks = 4, block_sweeps = 2, equilibration = 2,
               backend = "cpu", seed = 1, progress = FALSE)
  sv <- summary(v)
  tv <- generics::tidy(sv, conf.int = TRUE)
  expect_s3_class(tv, "tbl_df")
  expect_identical(tv$term, sv$observable)
  expect_identical(tv$estimate, sv$mean)
  expect_equal(tv$conf.high - tv$estimate, qnorm(0.975) * sv$se)
  q <- xorsat_qg(xorsat_random(16, seed = 1), replicas = 6, clones = 32, seed = 1,
                 backend = "cpu", progress = FALSE)
  tq <- generics::tidy(summary(q))
  expect_identical(tq$term, c("tts", "tau"))
  expect_identical(generics::glance(summary(q))$replicas, 6L)
})
