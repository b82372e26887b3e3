test_that("sp_backends() lists the CPU and says why a GPU is unavailable", {
  b <- sp_backends()
  expect_s3_class(b, "data.frame")
  expect_named(b, c("backend", "device", "name", "available", "threads",
                    "openmp", "memory_gb", "reason"))
  cpu <- b[b$backend == "cpu", ]
  expect_equal(nrow(cpu), 1)
  expect_true(cpu$available)
  expect_identical(cpu$threads, sp_threads())
  expect_true(is.na(cpu$reason))
  gpu <- b[b$backend == "gpu", ]
  expect_gte(nrow(gpu), 1)
  # Each unavailable row carries a reason; each available row none.
  expect_true(all(is.na(gpu$reason) == gpu$available))
  expect_true(all(nzchar(gpu$reason[!gpu$available])))
})

test_that("the build matches what the test run expects (OpenMP, CUDA)", {
  # make test also installs the package with STATPHYSGPU_OPENMP=no and
  # STATPHYSGPU_CUDA=no and runs these tests against that build, setting
  # STATPHYSGPU_TEST_BUILD so that this test knows which build it sees.
  expect_build <- Sys.getenv("STATPHYSGPU_TEST_BUILD")
  skip_if(expect_build == "", "no build expectation set")
  b <- sp_backends()
  if (grepl("noopenmp", expect_build)) {
    expect_false(b$openmp[b$backend == "cpu"])
    expect_identical(sp_threads(), 1L)
  }
  if (grepl("nocuda", expect_build)) {
    gpu <- b[b$backend == "gpu", ]
    expect_false(any(gpu$available))
    expect_match(gpu$reason[1], "STATPHYSGPU_CUDA=no")
  }
})
