# GPU runtime, the parts that run without a GPU (CI): status, NVRTC, cache keys.

# Heavy: NVRTC compiles every kernel here where it is installed (a minute or more). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

test_that("without a usable GPU the backend says why and the CPU still works", {
  st <- .Call(statphysgpu:::C_sp_r_gpu_status)
  skip_if(isTRUE(st$available), "this machine has a usable GPU")
  b <- sp_backends()
  gpu <- b[b$backend == "gpu", ]
  expect_equal(nrow(gpu), 1)
  expect_false(gpu$available)
  expect_identical(gpu$reason, st$reason)
  expect_match(gpu$reason, "libcuda|driver|NVRTC|GPU|STATPHYSGPU_CUDA")
  d <- gpu_devices()
  expect_equal(nrow(d), 0)
  expect_identical(attr(d, "reason"), st$reason)
  expect_error(philox_uniform(10, seed = 1, backend = "gpu"),
               "`backend = \"gpu\"` but the GPU backend is unavailable: ")
  e <- tryCatch(philox_uniform(10, seed = 1, backend = "gpu"), error = identity)
  expect_s3_class(e, "statphysgpu_no_gpu")
  # auto falls back to the CPU
  expect_identical(philox_uniform(10, seed = 1, backend = "auto"),
                   philox_uniform(10, seed = 1, backend = "cpu"))
})

test_that("gpu_kernels_check() compiles every shipped kernel for sm_90 (and sm_80 on GPU hosts)", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  # The kernels have no architecture-dependent source (no __CUDA_ARCH__), so
  # a second architecture repeats the front end and differs only in ptxas:
  # without a GPU (CI, where this test took 68 s for both) every kernel is
  # compiled for sm_90, the GPUs this package is measured on, and one for
  # sm_80; on a GPU host every kernel for both.
  gpu <- isTRUE(.Call(statphysgpu:::C_sp_r_gpu_status)$available)
  arch <- if (gpu) c("sm_80", "sm_90") else "sm_90"
  res <- gpu_kernels_check(arch)
  reg <- statphysgpu:::gpu_kernel_registry()
  nvar <- sum(vapply(reg, function(r) length(r$variants), 1L))
  expect_equal(nrow(res), length(arch) * nvar)
  if (!gpu) {
    one <- gpu_kernels_check("sm_80", files = system.file("cuda", reg[[1]]$file, package = "statphysgpu"))
    expect_true(all(one$ok), info = paste(one$log[!one$ok], collapse = "\n"))
  }
  expect_setequal(unique(res$kernel), names(reg))
  expect_true(all(res$ok), info = paste(res$log[!res$ok], collapse = "\n"))
  # every .cu file the package ships is in the registry, but the user models'
  # kernels (sde.cu, mb.cu), compiled with each model's generated header (sde_run())
  shipped <- list.files(system.file("cuda", package = "statphysgpu"), "\\.cu$")
  expect_setequal(setdiff(shipped, c("sde.cu", "mb.cu")), vapply(reg, `[[`, "", "file"))
})

test_that("a broken kernel source fails with NVRTC's message", {
  skip_if_no_nvrtc()
  f <- tempfile(fileext = ".cu")
  writeLines(c('#include "philox.h"',
               'extern "C" __global__ void k(double *x) { x[0] = undefined_thing; }'), f)
  res <- gpu_kernels_check("sm_90", files = f)
  expect_false(res$ok)
  expect_match(res$log, "undefined_thing")
  expect_match(res$log, "NVRTC could not compile")
  # a header of the package is found on the include path
  writeLines(c('#include "philox.h"',
               'extern "C" __global__ void k(unsigned *x) { x[0] = sp_philox_block(1, 2, 3).x; }'), f)
  expect_true(gpu_kernels_check("sm_90", files = f)$ok)
  expect_error(gpu_kernels_check("sm90"), "`arch` must be architecture names")
  expect_error(gpu_kernels_check("sm_90", files = "no/such/file.cu"), "`files` must name")
})

test_that("cache keys change with the options, the target and NVRTC", {
  skip_if_no_nvrtc()
  dir <- local_kernel_cache()
  reg <- statphysgpu:::gpu_kernel_registry()$rng
  v <- reg$variants$default
  t90 <- list(arch = "sm_90", cubin = TRUE)
  key <- function(...) statphysgpu:::kernel_cache_path("rng", reg, ..., nvrtc_version = "13.0")
  base <- key(v, t90)
  expect_identical(key(v, t90), base) # deterministic
  v2 <- v; v2$defines <- "SP_RNG_BLOCK=128"
  v3 <- v; v3$fast_math <- TRUE
  paths <- c(base, key(v2, t90), key(v3, t90),
             key(v, list(arch = "sm_80", cubin = TRUE)),
             key(v, list(arch = "compute_90", cubin = FALSE)),
             statphysgpu:::kernel_cache_path("rng", reg, v, t90, nvrtc_version = "12.9"))
  expect_equal(length(unique(paths)), length(paths))
  # the folder follows the option
  expect_identical(gpu_cache_dir(), dir)
  expect_true(all(dirname(paths) == dir))
})

test_that("gpu_cache_clear() removes cached images", {
  dir <- local_kernel_cache()
  # images as the package writes them: named by their key, a record beside
  for (f in c("rng-sm_90-%s.cubin", "rng-compute_90-%s.ptx")) {
    key <- statphysgpu:::sp_sha256(f)
    statphysgpu:::cache_write(file.path(dir, sprintf(f, substr(key, 1, 32))), key, as.raw(1:3))
  }
  writeLines("keep", file.path(dir, "notes.txt"))
  # a file the package has no record of is not its to delete (issue 48)
  writeBin(as.raw(1:3), file.path(dir, "rng-sm_90-abc.cubin"))
  expect_identical(gpu_cache_clear(), 2L)
  expect_identical(sort(list.files(dir, all.files = TRUE, no.. = TRUE)),
                   c("notes.txt", "rng-sm_90-abc.cubin"))
})
