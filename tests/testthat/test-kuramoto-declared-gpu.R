# kuramoto() on the declared many-body engine (its one engine since issue
# 50), and sde_run(hist = ), on the GPU: CPU = GPU in double, system by system, in both modes of
# the GPU plan (mode A: n <= 2048, a system a block; mode B: over blocks).
# Tolerance: relative 1e-9, as test-mb-gpu.R (the same operations on the
# same normals; rounding only, fused multiply-adds and the sums' order); the
# histograms' counts are equal unless a phase lies within rounding of a bin
# edge (at most a few counts moved between neighbouring bins).

skip_on_cran()

test_that("the histograms and kuramoto()'s runs: GPU = CPU in double, both modes", {
  skip_if_no_gpu()
  # (all pairs in mode A only: at n = 5000 the CPU's pair sums take long)
  cases <- list(c(300, "mean_field"), c(300, "pairs"), c(5000, "mean_field"))
  for (cs in cases) for (meth in c("srk2", "euler")) {
    n <- as.numeric(cs[1])
    cp <- cs[2]
    run <- function(b) kuramoto(n, K = c(1, 3), theta = 0.5, frequencies = kuramoto_normal(0.3),
                                dt = 0.02, steps = 40, record_every = 10, replicas = 2,
                                coupling = cp, method = meth, seed = 3, precision = "double",
                                bins = 16, backend = b, progress = FALSE)
    a <- run("cpu")
    g <- run("gpu")
    lab <- paste(n, cp, meth)
    expect_equal(attr(g, "phases"), attr(a, "phases"), tolerance = 1e-9, label = lab)
    expect_equal(g$r, a$r, tolerance = 1e-9, label = lab)
    expect_identical(dim(attr(g, "hist")), dim(attr(a, "hist")))
    expect_lte(sum(abs(attr(g, "hist") - attr(a, "hist"))), 4, label = lab)
    expect_true(all(colSums(attr(g, "hist")) == n))
  }
})
