# escape_rate_ams() on the declared engine (options(statphysgpu.ams_engine =
# "declared"), R/ams-declared.R): the washboard as an sde_model() run by
# sde_ams()'s engine.  CPU, small, fixed seeds; the declared model compiles
# once per score (position; energy with A on the position): two CPU objects.

ams_engine <- function(engine, ...) {
  withr::with_options(list(statphysgpu.ams_engine = engine),
                      escape_rate_ams(..., backend = "cpu", progress = FALSE))
}

# z of two estimates with their (jackknife) standard errors.
z_two <- function(a, b, col = "mfpt") {
  (a[[col]] - b[[col]]) / sqrt(a[[paste0(col, "_se")]]^2 + b[[paste0(col, "_se")]]^2)
}

test_that("the option chooses the engine and is checked", {
  withr::local_options(statphysgpu.ams_engine = "compiled")
  expect_error(escape_rate_ams(0.3, 1, 1, 0.3, 0.05, particles = 10, replicas = 1, seed = 1,
                               backend = "cpu", progress = FALSE),
               "statphysgpu.ams_engine must be \"builtin\" or \"declared\"")
})

test_that("declared: the result's class, columns and attributes are the built-in's", {
  skip_if_no_cc()
  for (args in list(list(score = NULL, init = "rest", threshold = "saddle"),
                    list(score = "energy", init = "thermal", threshold = 0.5))) {
    run <- function(engine) {
      do.call(ams_engine, c(list(engine, gamma = c(0.3, 0.4), V0 = 1, beta = 1,
                                 theta = 0.3, dt = 0.05, particles = 20, replicas = 3,
                                 k = 2, seed = 2, first_replica = 4, precision = "double"),
                            args))
    }
    b <- run("builtin")
    d <- run("declared")
    expect_identical(class(d), class(b))
    expect_identical(names(d), names(b))
    expect_identical(names(attributes(d)), names(attributes(b)))
    expect_identical(names(attr(d, "replicas_table")), names(attr(b, "replicas_table")))
    # every attribute but the run's time and the estimates themselves
    for (a in setdiff(names(attributes(b)), c("seconds", "replicas_table", "row.names"))) {
      expect_identical(attr(d, a), attr(b, a), info = a)
    }
    tb <- attr(b, "replicas_table")
    td <- attr(d, "replicas_table")
    expect_identical(td[c("condition", "gamma", "V0", "beta", "theta", "replica")],
                     tb[c("condition", "gamma", "V0", "beta", "theta", "replica")])
    expect_true(all(td$status == "done"))
    # the long trajectory collects exactly N exits (N - 1 cycles or excursions)
    expect_true(all(td$n_cycle + td$n_lt_react == 20 - 1))
    # the methods read it as theirs
    expect_output(print(d), "AMS with 20 particles")
    expect_s3_class(summary(d), "summary.escape_rate_ams")
    pdf(NULL)
    p <- plot(d, theory = "none")
    grDevices::dev.off()
    expect_identical(nrow(p), 2L)
  }
})

test_that("declared: chunks and threads change no number; rbind() gives the one-call result", {
  skip_if_no_cc()
  run <- function(first, n) {
    ams_engine("declared", gamma = 0.3, V0 = 1, beta = 1, theta = c(0.25, 0.3), dt = 0.05,
               particles = 20, replicas = n, first_replica = first, k = 2, seed = 5,
               init = "thermal", score = "energy")
  }
  whole <- run(1, 5)
  parts <- rbind(run(1, 2), run(3, 3))
  expect_identical(attr(parts, "replicas_table"), attr(whole, "replicas_table"))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  one <- with_threads(1, run(1, 5))
  expect_identical(attr(one, "replicas_table"), attr(whole, "replicas_table"))
})

test_that("declared: overdamped escapes agree with the built-in engine and with Smoluchowski", {
  skip_if_no_cc()
  # V0 = 10, beta = 40 (beta / omega0 ~ 13), Delta U / theta = 6, dt = 0.01,
  # from rest; 40 replicas of 100 particles (relative error ~5%).  Accepted:
  # |z| < 4, z from the two jackknife errors (engine against engine) or the
  # AMS error alone (against the Smoluchowski time with the Milne shift of
  # the saddle crossing, ams_milne_factor(), whose own error -- the
  # integral's 1% and the step's bias at beta dt = 0.4 -- is small beside
  # the 5%, as in test-ams-gpu.R).  Different seeds: independent estimates.
  g <- 0.2; V0 <- 10; beta <- 40
  theta <- barrier_height(g, V0) / 6
  b <- ams_engine("builtin", g, V0, beta, theta, 0.01, particles = 100, replicas = 40,
                  seed = 31, precision = "double")
  d <- ams_engine("declared", g, V0, beta, theta, 0.01, particles = 100, replicas = 40,
                  seed = 32, precision = "double")
  theory <- mfpt_smoluchowski(g, V0, beta, theta) *
    statphysgpu:::ams_milne_factor(g, V0, beta, theta)
  expect_lt(abs(z_two(d, b)), 4)
  expect_lt(abs(z_two(d, b, "p")), 4)
  expect_lt(abs(d$mfpt - theory) / d$mfpt_se, 4)
  expect_lt(abs(b$mfpt - theory) / b$mfpt_se, 4)
  expect_lt(d$mfpt_se / d$mfpt, 0.15) # an error of the expected size
})

test_that("declared: thermal starts, the energy score and single precision agree with the built-in", {
  skip_if_no_cc()
  # moderate damping (beta = 1), Delta U / theta = 5: the velocities on Sigma
  # and the thermal law of the start matter here; |z| < 4 with both
  # jackknife errors, for the mean first-passage time and p (the same A:
  # p is the same probability)
  g <- 0.2; V0 <- 1; beta <- 1
  theta <- barrier_height(g, V0) / 5
  for (cs in list(list(init = "thermal", score = NULL, precision = "double"),
                  list(init = "rest", score = "energy", precision = "double"),
                  list(init = "thermal", score = "energy", precision = "single"))) {
    run <- function(engine, seed) {
      ams_engine(engine, g, V0, beta, theta, 0.05, particles = 100, replicas = 20,
                 init = cs$init, score = cs$score, precision = cs$precision, seed = seed)
    }
    b <- run("builtin", 41)
    d <- run("declared", 42)
    info <- paste(cs$init, if (is.null(cs$score)) "position" else cs$score, cs$precision)
    expect_lt(abs(z_two(d, b)), 4, label = info)
    expect_lt(abs(z_two(d, b, "p")), 4, label = info)
  }
})

test_that("declared: the thermal start is the Boltzmann law of the well (a direct escape's start)", {
  skip_if_no_cc()
  # A high in the well (phi_A = 0.2) and a hot start (Delta U / theta = 1):
  # many starts lie outside A.  The fraction of starts that escape directly,
  # P_d, depends only on the start's law and the dynamics: the two engines
  # (other streams) agree within binomial errors, |z| < 4 (about 250
  # direct escapes of 2300 starts each; measured at seed 7 with 80
  # replicas: 0.1177 +- 0.0047 built-in, 0.1174 +- 0.0047 declared)
  g <- 0.2; V0 <- 1; beta <- 1; theta <- barrier_height(g, V0)
  run <- function(engine, seed) {
    t <- attr(ams_engine(engine, g, V0, beta, theta, 0.05, particles = 200, replicas = 40,
                         phi_A = 0.2, init = "thermal", seed = seed, precision = "double"),
              "replicas_table")
    c(nd = sum(t$n_direct), n = sum(t$n_direct) + sum(t$n_start))
  }
  b <- run("builtin", 51)
  d <- run("declared", 52)
  pb <- b[["nd"]] / b[["n"]]
  pd <- d[["nd"]] / d[["n"]]
  expect_gt(b[["nd"]], 150)
  expect_gt(d[["nd"]], 150)
  expect_lt(abs(pb - pd) / sqrt(pb * (1 - pb) / b[["n"]] + pd * (1 - pd) / d[["n"]]), 4)
})

test_that("declared: an interrupt returns the finished replicas; the reruns complete it", {
  skip_if_no_cc()
  skip_on_os("windows")
  run <- function(first, n) {
    ams_engine("declared", 0.2, 1, 1, barrier_height(0.2, 1) / 25, 0.05, particles = 100,
               replicas = n, first_replica = first, k = 5, seed = 1, precision = "double")
  }
  # a run of some 4 s on two threads (the machine's), its model compiled
  # and loaded before the interrupt's clock starts
  run(1, 1)
  job <- interrupt_after(1)
  expect_warning(x <- run(1, 256), "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  expect_true(attr(x, "interrupted"))
  t <- attr(x, "replicas_table")
  expect_false(any(t$status == "unfinished"))
  rr <- attr(x, "rerun")
  expect_gt(sum(rr$replicas), 0)
  expect_identical(x$replicas, nrow(t))
  # the reruns of what the warning names, rbind()-ed, give the one-call result
  parts <- c(list(x), lapply(seq_len(nrow(rr)), function(i) run(rr$first_replica[i],
                                                                rr$replicas[i])))
  y <- do.call(rbind, parts)
  expect_false(attr(y, "interrupted"))
  whole <- run(1, 256)
  expect_identical(attr(y, "replicas_table"), attr(whole, "replicas_table"))
  expect_identical(as.data.frame(y), as.data.frame(whole))
})

test_that("sde_ams(start_coordinate =): A on a coordinate of its own", {
  skip_if_no_cc()
  m <- sde_ams_washboard()
  run <- function(...) {
    sde_ams(m, ~ x, start_edge = ~ asin(gamma) + 0.5, B = NULL, init = list(x = ~ asin(gamma), v = 0),
            dt = 0.05, particles = 20, replicas = 3, k = 2, seed = 3, backend = "cpu",
            precision = "double", progress = FALSE, ...)
  }
  a <- run()
  # the score itself as A's coordinate: the same regions, the same numbers
  b <- run(start_coordinate = ~ x)
  expect_identical(attr(b, "replicas_table"), attr(a, "replicas_table"))
  expect_identical(attr(b, "start_coordinate"), "x")
  expect_null(attr(a, "start_coordinate"))
  expect_output(print(b), "A = \\{x <= ")
  expect_error(run(start_coordinate = ~ t), "must be a function of the state")
  expect_error(sde_ams(m, ~ x, start_edge = 0, init = list(x = ~ asin(gamma), v = 0), dt = 0.05,
                       start_coordinate = ~ x, particles = 10, replicas = 1, seed = 1,
                       backend = "cpu"), "lies outside A")
  # a continuation keeps it
  c2 <- sde_ams(m, init = b, replicas = 2, backend = "cpu", progress = FALSE)
  expect_identical(attr(c2, "start_coordinate"), "x")
  expect_identical(nrow(attr(c2, "replicas_table")), 5L)
})

test_that("declared: the engine's errors name escape_rate_ams()'s arguments, as the built-in's", {
  # the engine's messages (src/core/sp_ams.c) for a user's model, reworded
  # as for the built-in model; the same condition otherwise
  f <- statphysgpu:::ams_declared_error
  still <- simpleError(paste0(
    "the long trajectory of replica 1 of condition 1 stopped moving: ... Give that ",
    "condition's noise a positive amplitude where the path starts and rests (`params`, ",
    "the model's noise or `init`), or use precision = \"double\""), call = quote(f(x)))
  e <- tryCatch(f(still), error = function(e) e)
  expect_s3_class(e, "simpleError")
  expect_identical(conditionCall(e), quote(f(x)))
  expect_match(conditionMessage(e), "where the path starts and rests (a larger `theta`), or",
               fixed = TRUE)
  limit <- simpleError("... use fewer `particles`, a larger `k` or a lower `A`")
  expect_error(f(limit), "a larger `k` or a lower `phi_A`$")
  expect_null(f(simpleError("another error")))
})

test_that("declared: the AMS kernels of the washboard model compile under NVRTC", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  local_kernel_cache()
  # the GPU path of the declared engine (ams.cu with SP_AMS_SDE): the
  # position score, and the energy with A on phi (SP_AMS_SDE_EDGE); the
  # tabulated thermal start is ams_args.h's, in both
  m <- statphysgpu:::ams_declared_model(NULL)
  sc <- statphysgpu:::AMS_DECLARED_SCORES
  for (cs in list(list(sc$position, NULL, "single", "srk2"),
                  list(sc$energy, quote(phi), "double", "euler"))) {
    ptx <- statphysgpu:::sde_nvrtc_image(
      m, "compute_90", cs[[3]], cs[[4]], cubin = FALSE, source = "ams.cu",
      defines = c("SP_AMS_SDE=1", sprintf("SP_AMS_HEUN=%d", as.integer(cs[[4]] == "srk2"))),
      headers = statphysgpu:::sde_ams_headers(m, cs[[1]], cs[[2]]))
    txt <- rawToChar(ptx)
    expect_match(txt, ".entry sp_ams_long_kernel", fixed = TRUE)
    expect_match(txt, ".entry sp_ams_branch_kernel", fixed = TRUE)
  }
})
