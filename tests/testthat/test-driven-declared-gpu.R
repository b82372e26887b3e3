# driven_brownian() on the declared engine (option statphysgpu.driven_engine
# = "declared", R/driven-declared.R) on the GPU: the same paths as on the
# CPU in double precision.

test_that("declared: GPU and CPU agree path by path in double precision (srk2, euler)", {
  skip_if_no_gpu()
  withr::local_options(statphysgpu.driven_engine = "declared")
  for (m in c("srk2", "euler")) {
    args <- list(replicas = 300, a = 1.5, omega = c(4.9, 3), f = c(0, 0.1), beta = 0.9,
                 theta = 0.01, periods = 8, steps_per_period = 400, transient = 0.25,
                 keep = 2, output = "histogram", method = m, seed = 77,
                 precision = "double", progress = FALSE)
    cpu <- suppressWarnings(do.call(driven_brownian, c(args, backend = "cpu")))
    gpu <- suppressWarnings(do.call(driven_brownian, c(args, backend = "gpu")))
    expect_identical(attr(gpu, "backend"), "gpu")
    pc <- attr(cpu, "paths")
    pg <- attr(gpu, "paths")
    expect_identical(pg[c("condition", "replica")], pc[c("condition", "replica")])
    # the same normals and operations (a = 1.5: regular motion); cos and
    # fused multiply-adds round differently in the last bits
    for (col in c("x", "v", "x_tr", "v_bar", "v2_bar")) {
      expect_lt(max(abs(pg[[col]] - pc[[col]]) / pmax(1, abs(pc[[col]]))), 1e-9,
                label = paste(m, col))
    }
    expect_equal(attr(gpu, "trajectories"), attr(cpu, "trajectories"), tolerance = 1e-9)
    expect_identical(attr(gpu, "histogram")$density$count, attr(cpu, "histogram")$density$count)
  }
})
