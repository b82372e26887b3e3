# Rare escapes by adaptive multilevel splitting on the GPU (escape_rate_ams()).
# Sizes are for an H100; each test is well under a minute there.

test_that("GPU AMS: every replica equals the CPU's in double precision (same streams, decisions)", {
  skip_if_no_gpu()
  run <- function(backend) {
    escape_rate_ams(gamma = c(0.2, 0.3), V0 = 1, beta = 1, theta = c(0.2, 0.25), dt = 0.05,
                    particles = 200, replicas = 8, k = 3, seed = 21, first_replica = 5,
                    backend = backend, precision = "double", progress = FALSE)
  }
  cpu <- attr(run("cpu"), "replicas_table")
  gpu <- run("gpu")
  expect_identical(attr(gpu, "backend"), "gpu")
  expect_ams_replicas_equal(attr(gpu, "replicas_table"), cpu) # helper-sde-ams.R
})

test_that("GPU AMS: k = 1 in single precision, every replay reaches its level (bench/ams.R's case)", {
  skip_if_no_gpu()
  # issue 25's first H100 run: bench/ams.R's k = 1 case (Delta U / theta =
  # 20, N = 500, seed 4) failed at replica 27 with "a replay ... missed its
  # level" -- blamed then on two inlined copies of the path code rounding
  # differently (the path is now compiled once), most likely the upload
  # race found later (a branch kernel reading the previous level's tasks;
  # uploads wait for the legacy stream since 9832879).  Replicas 25 to 32
  # of that case, then a smaller barrier with more replicas; a replay that
  # misses is an error.
  g <- 0.2; V0 <- 1; beta <- 40
  for (case in list(list(ratio = 20, n = 8, first = 25, N = 500),
                    list(ratio = 12, n = 256, first = 1, N = 200))) {
    theta <- barrier_height(g, V0) / case$ratio
    x <- escape_rate_ams(g, V0, beta, theta, 0.01, particles = case$N, replicas = case$n,
                         first_replica = case$first, k = 1, seed = 4, backend = "gpu",
                         precision = "single", progress = FALSE)
    t <- attr(x, "replicas_table")
    expect_true(all(t$status == "done"))
    expect_gt(sum(t$branches), sum(t$iterations)) # ties killed together
    # and right: against Smoluchowski with the Milne shift (z < 4 with the
    # jackknife error; the shifted integral itself is good to about 1%)
    theory <- mfpt_smoluchowski(g, V0, beta, theta) *
      statphysgpu:::ams_milne_factor(g, V0, beta, theta)
    expect_lt(abs(x$mfpt - theory) / x$mfpt_se, 4)
  }
})

test_that("GPU AMS: results do not depend on devices or chunks", {
  skip_if_no_gpu()
  run <- function(first = 1, n = 12, devices = NULL) {
    escape_rate_ams(0.3, 1, 1, 0.2, 0.05, particles = 100, replicas = n, k = 5, seed = 22,
                    first_replica = first, backend = "gpu", devices = devices,
                    progress = FALSE)
  }
  whole <- run()
  parts <- rbind(run(1, 5), run(6, 7))
  expect_identical(attr(parts, "replicas_table"), attr(whole, "replicas_table"))
  expect_identical(as.data.frame(parts), as.data.frame(whole))
  if (nrow(gpu_devices()) > 1) {
    all <- run(devices = "all")
    expect_identical(attr(all, "replicas_table"), attr(whole, "replicas_table"))
  }
})

test_that("GPU AMS agrees with GPU brute force at Delta U / theta = 8 (beta = 40 and beta = 1)", {
  skip_if_no_gpu()
  st <- if ("init" %in% names(formals(escape_times))) "init" else "start"
  for (case in list(list(V0 = 10, beta = 40, dt = 0.01), list(V0 = 1, beta = 1, dt = 0.05))) {
    g <- 0.2
    theta <- barrier_height(g, case$V0) / 8
    x <- escape_rate_ams(g, case$V0, case$beta, theta, case$dt, particles = 500,
                         replicas = 256, k = 25, seed = 23, backend = "gpu", progress = FALSE)
    args <- list(20000, g, case$V0, case$beta, theta, case$dt, 1e9, seed = 24,
                 backend = "gpu", progress = FALSE)
    args[[st]] <- "rest"
    e <- do.call(escape_times, args)
    expect_true(all(e$escaped))
    m <- mean(e$value)
    se <- stats::sd(e$value) / sqrt(nrow(e))
    z <- (x$mfpt - m) / sqrt(x$mfpt_se^2 + se^2)
    expect_lt(abs(z), 4, label = sprintf("z (beta = %g)", case$beta))
  }
})

test_that("GPU AMS: overdamped escapes at Delta U / theta = 12, 20, 30 follow Smoluchowski with the Milne shift", {
  skip_if_no_gpu()
  g <- 0.2; V0 <- 1; beta <- 40
  theta <- barrier_height(g, V0) / c(12, 20, 30)
  x <- escape_rate_ams(g, V0, beta, theta, 0.01, particles = 500, replicas = 2048, k = 50,
                       seed = 25, backend = "gpu", progress = FALSE)
  theory <- mfpt_smoluchowski(g, V0, beta, theta) *
    statphysgpu:::ams_milne_factor(g, V0, beta, theta)
  rel <- x$mfpt / theory - 1
  # the target of issue 25: within 3%; the estimate itself to better than 1%
  expect_true(all(x$mfpt_se / x$mfpt < 0.01), label = paste(format(x$mfpt_se / x$mfpt), collapse = " "))
  expect_true(all(abs(rel) < 0.03), label = paste(format(rel, digits = 3), collapse = " "))
  expect_true(all(attr(x, "replicas_table")$status == "done"))
})
