# escape_rate_ams() on the declared engine on the GPU (options(
# statphysgpu.ams_engine = "declared"): the washboard as an sde_model() run
# by sde_ams()'s kernels, ams.cu with SP_AMS_SDE).  Sizes are for an H100;
# each test is well under a minute there (the first run compiles the
# model's kernels: a few seconds per score and precision).

ams_engine_gpu <- function(engine, ...) {
  withr::with_options(list(statphysgpu.ams_engine = engine),
                      escape_rate_ams(..., progress = FALSE))
}

test_that("GPU declared AMS: every replica equals the CPU's in double precision", {
  skip_if_no_gpu()
  skip_if_no_cc()
  for (cs in list(list(score = NULL, init = "rest"),
                  list(score = "energy", init = "thermal"))) {
    run <- function(backend) {
      ams_engine_gpu("declared", gamma = c(0.2, 0.3), V0 = 1, beta = 1, theta = c(0.2, 0.25),
                     dt = 0.05, particles = 200, replicas = 8, k = 3, seed = 21,
                     first_replica = 5, score = cs$score, init = cs$init, backend = backend,
                     precision = "double")
    }
    cpu <- attr(run("cpu"), "replicas_table")
    gpu <- run("gpu")
    expect_identical(attr(gpu, "backend"), "gpu")
    expect_ams_replicas_equal(attr(gpu, "replicas_table"), cpu,
                              paste(cs$init, if (is.null(cs$score)) "position" else cs$score))
  }
})

test_that("GPU declared AMS: results do not depend on devices or chunks", {
  skip_if_no_gpu()
  run <- function(first = 1, n = 12, devices = NULL) {
    ams_engine_gpu("declared", 0.3, 1, 1, 0.2, 0.05, particles = 100, replicas = n, k = 5,
                   seed = 22, first_replica = first, init = "thermal", backend = "gpu",
                   devices = devices)
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

test_that("GPU declared AMS: overdamped escapes at Delta U / theta = 12 and 20 follow Smoluchowski with the Milne shift, as the built-in's", {
  skip_if_no_gpu()
  # test-ams-gpu.R's case (single precision, k = 50): within 3% of the
  # shifted Smoluchowski time, |z| < 4 with the jackknife error (the
  # integral is good to about 1%); engine against engine |z| < 4 with both
  # errors (other seeds: independent estimates)
  g <- 0.2; V0 <- 1; beta <- 40
  theta <- barrier_height(g, V0) / c(12, 20)
  run <- function(engine, seed) {
    ams_engine_gpu(engine, g, V0, beta, theta, 0.01, particles = 500, replicas = 1024, k = 50,
                   seed = seed, backend = "gpu")
  }
  d <- run("declared", 25)
  b <- run("builtin", 26)
  theory <- mfpt_smoluchowski(g, V0, beta, theta) *
    statphysgpu:::ams_milne_factor(g, V0, beta, theta)
  rel <- d$mfpt / theory - 1
  expect_true(all(abs(rel) < 0.03), label = paste(format(rel, digits = 3), collapse = " "))
  expect_true(all(abs(d$mfpt - theory) / d$mfpt_se < 4))
  expect_true(all(abs(d$mfpt - b$mfpt) / sqrt(d$mfpt_se^2 + b$mfpt_se^2) < 4))
  expect_true(all(attr(d, "replicas_table")$status == "done"))
})

test_that("GPU declared AMS: thermal starts and the energy score agree with the built-in engine", {
  skip_if_no_gpu()
  # moderate damping, Delta U / theta = 10: |z| < 4 with both jackknife
  # errors, for the mean first-passage time and p
  g <- 0.2; V0 <- 1; beta <- 1
  theta <- barrier_height(g, V0) / 10
  run <- function(engine, seed) {
    ams_engine_gpu(engine, g, V0, beta, theta, 0.05, particles = 500, replicas = 512, k = 25,
                   score = "energy", init = "thermal", seed = seed, backend = "gpu")
  }
  d <- run("declared", 27)
  b <- run("builtin", 28)
  for (col in c("mfpt", "p")) {
    se <- paste0(col, "_se")
    expect_lt(abs(d[[col]] - b[[col]]) / sqrt(d[[se]]^2 + b[[se]]^2), 4, label = col)
  }
})
