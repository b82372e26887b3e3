# Time terms of single-particle models (issue 50): the subexpressions of t
# and the parameters only (a drive a cos(omega t) + f) are generated once
# (sde_time_terms()) and computed once per step time -- on the GPU's
# fixed-length kernel read from a table filled once per launch
# (sde_engine.h, "Time terms"; test-sde-gpu.R has no GPU here) -- instead
# of inline at both stages of every step.  The numbers are those of before
# the change: the values pinned below were computed by the engine that
# evaluated the terms inline at every stage (commit a6b40ce), on this
# machine's CPU, by the vector loop and a path at a time.

skip_on_cran()

drive_a <- sde_model(drift = list(x = ~ -x + a * cos(2 * pi * f * t)), noise = list(x = ~ 0.3),
                     params = c(a = 1, f = 2), name = "tt_a")

test_that("time terms: generated once each, read as tt[] by the model's functions", {
  code <- sde_code(drive_a)
  expect_match(code, "#define SP_SDE_NT 1", fixed = TRUE)
  expect_match(code, "tt[0] = ((SP_REAL)(pd[0] * SP_D_COS((pd[2] * t))));", fixed = TRUE)
  # the drift reads the term; no double cosine left in the functions of
  # the step
  drift <- grep("drift of x", strsplit(code, "\n")[[1]], value = TRUE)
  expect_length(drift, 2) # Ito and Stratonovich forms
  expect_true(all(grepl("tt[0]", drift, fixed = TRUE)))
  expect_false(any(grepl("SP_D_", drift, fixed = TRUE)))
  # distinct terms once each (the same one in the drift, noise and an
  # observable is one term); a model without t has none
  m2 <- sde_model(drift = list(x = ~ -x + cos(w * t) + exp(-t / tau), y = ~ cos(w * t) - y),
                  noise = list(y = ~ s), params = c(w = 1, tau = 2, s = 0.1),
                  observe = list(o = ~ x * exp(-t / tau)))
  c2 <- sde_code(m2)
  expect_match(c2, "#define SP_SDE_NT 2", fixed = TRUE)
  expect_length(gregexpr("SP_D_COS", c2, fixed = TRUE)[[1]], 1)
  expect_length(gregexpr("SP_D_EXP", c2, fixed = TRUE)[[1]], 1)
  expect_match(sde_code(sde_model(drift = list(x = ~ -x))), "#define SP_SDE_NT 0", fixed = TRUE)
  # the driven_brownian() model: the drive a cos(t) + f is its one term
  dm <- statphysgpu:::driven_declared_model()
  expect_match(sde_code(dm), "tt[0] = ((SP_REAL)((pd[0] * SP_D_COS(t)) + pd[1]));", fixed = TRUE)
})

test_that("time terms: a term of swept parameters (3 conditions), the numbers of before", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.sde_cpu_vector = TRUE)
  pars <- data.frame(a = c(1, 0.5, 2), f = c(2, 1, 0.3))
  # final x of replicas 1 and 2 of each condition, pinned (see the top)
  pin <- list(
    single_euler = c(0x1.f9c5e2p-4, 0x1.628048p-4, 0x1.80aadcp-3, -0x1.25b5dp-4, -0x1.4ed406p-1,
                     -0x1.69c91ep-1),
    single_srk2 = c(0x1.06cc3p-3, 0x1.79a4d2p-4, 0x1.84e62ap-3, -0x1.18c548p-4, -0x1.4accacp-1,
                    -0x1.65b8cap-1),
    double_euler = c(0x1.f9c5add7a34afp-4, 0x1.628019989a6ep-4, 0x1.80aad03273809p-3,
                     -0x1.25b5f2541c3cdp-4, -0x1.4ed407a7070b2p-1, -0x1.69c91b2e16bfp-1),
    double_srk2 = c(0x1.06cc136de48bcp-3, 0x1.79a4be57d939p-4, 0x1.84e62465c48e2p-3,
                    -0x1.18c56e095081p-4, -0x1.4acca8eb15c89p-1, -0x1.65b8d11659bcep-1))
  for (prec in c("single", "double")) for (vec in c(TRUE, FALSE)) {
    withr::local_options(statphysgpu.sde_cpu_vector = vec)
    for (meth in c("euler", "srk2")) {
      # 40 replicas: batches of 16, 16 and 8 lanes; 601 steps
      d <- as.data.frame(sde_run(drive_a, 40, init = list(x = 0.1), dt = 0.01, t_max = 6.01,
                                 params = pars, method = meth, output = "trajectories",
                                 keep = 2, record_every = 601, precision = prec,
                                 backend = "cpu", seed = 11, progress = FALSE))
      d <- d[d$time == max(d$time), ]
      expect_identical(d$x, pin[[paste(prec, meth, sep = "_")]], label = paste(prec, meth, vec))
    }
  }
  # a passage run (a stop event at t1 reads the end's terms): the same
  # numbers path by path and in the vector loop
  cm <- sde_model(drift = list(x = ~ cos(w * t)), noise = list(x = ~ 0.5), params = c(w = 2),
                  stop = ~ x > 1, name = "tt_c")
  run_c <- function() as.data.frame(sde_run(cm, 30, init = list(x = 0), dt = 0.01, t_max = 20,
                                            params = data.frame(w = c(2, 0.5)), precision = "double",
                                            backend = "cpu", seed = 5, progress = FALSE))
  got <- run_c()
  expect_identical(got$value[1:3], c(0x1.38dc233ced42ep+4, 0x1.4p+4, 0x1.2d0ed81f9c551p+3)) # pinned
  withr::local_options(statphysgpu.sde_cpu_vector = FALSE)
  expect_identical(run_c(), got)
})

test_that("time terms: driven_brownian() on the declared engine gives the numbers of before (one omega, a sweep)", {
  skip_if_no_cc()
  withr::local_options(statphysgpu.driven_engine = "declared", statphysgpu.sde_cpu_vector = TRUE)
  pin <- list(
    `1_single_srk2` = list(x = c(-0x1.fc3652p-3, -0x1.1a2f96p-3),
                           v2 = c(0x1.a4b7ddee48cecp-3, 0x1.205f421b237f2p-2)),
    `1_double_euler` = list(x = c(0x1.e84ec67262324p-1, 0x1.d4de055f6cfbp+0),
                            v2 = c(0x1.80b645f1f82acp+0, 0x1.966453364794bp-3)),
    `2_single_srk2` = list(x = c(-0x1.54a858p-3, 0x1.ba0d8ap-1, -0x1.450168p-3, 0x1.7c163ep-1),
                           v2 = c(0x1.802ec2434e35ap-2, 0x1.442ff1778d7f9p+0,
                                  0x1.3c3be15ae7d85p-2, 0x1.93694e1b83f03p-2)),
    `2_double_srk2` = list(x = c(-0x1.54a86c7b78beap-3, 0x1.ba0b0fdd475e3p-1,
                                 -0x1.4501758bfc6e9p-3, 0x1.7c1637098418ep-1),
                           v2 = c(0x1.802e865ca34f9p-2, 0x1.442f3876ae4b8p+0,
                                  0x1.3c3bb14dcb23fp-2, 0x1.93695c6bf8477p-2)))
  dm <- statphysgpu:::driven_declared_model()
  for (key in names(pin)) {
    s <- strsplit(key, "_")[[1]]
    om <- if (s[1] == "1") 3 else c(4.9, 3)
    r <- suppressWarnings(driven_brownian(20, a = 1.5, omega = om, f = 0.1, beta = 0.9,
                                          theta = 0.3, periods = 4, steps_per_period = 150,
                                          transient = 0.5, precision = s[2], seed = 3,
                                          method = s[3], backend = "cpu", progress = FALSE))
    p <- attr(r, "paths")
    p <- p[p$replica <= 2, ]
    expect_identical(p$x, pin[[key]]$x, label = key)
    expect_identical(p$v2_bar, pin[[key]]$v2, label = key)
  }
})
