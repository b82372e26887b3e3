# GPU tests: skipped where there is no GPU, but never skipped silently where
# there is one.  If the machine shows an NVIDIA device (/dev/nvidiactl, or
# STATPHYSGPU_REQUIRE_GPU is set) and the backend is unavailable, the test
# fails with the backend's reason instead of skipping.
skip_if_no_gpu <- function() {
  st <- .Call(statphysgpu:::C_sp_r_gpu_status)
  if (isTRUE(st$available)) return(invisible(TRUE))
  has_device <- file.exists("/dev/nvidiactl") ||
    nzchar(Sys.getenv("STATPHYSGPU_REQUIRE_GPU"))
  if (has_device) {
    stop("this machine has an NVIDIA GPU but the GPU backend is unavailable: ",
         st$reason, call. = FALSE)
  }
  testthat::skip(paste("no usable GPU:", st$reason))
}

skip_if_no_nvrtc <- function() {
  st <- .Call(statphysgpu:::C_sp_r_gpu_status)
  if (isTRUE(st$nvrtc_available)) return(invisible(TRUE))
  testthat::skip(paste("NVRTC not available:", st$nvrtc_reason))
}

# Run the rest of a test with the kernel cache in a fresh temporary folder.
local_kernel_cache <- function(env = parent.frame()) {
  dir <- withr::local_tempdir("spcache", .local_envir = env)
  withr::local_options(statphysgpu.cache_dir = dir, .local_envir = env)
  dir
}

# Device buffers the package has allocated and not freed (all devices): a
# leak changes it by at least one, which free memory would not show.
gpu_live_allocations <- function() .Call(statphysgpu:::C_sp_r_gpu_live_allocations)

# The kernels' NVRTC compile tests check the sources in inst/cuda, which
# every build of the package ships alike: the second build of `make test`
# (STATPHYSGPU_TEST_BUILD set: no OpenMP, no CUDA backend) leaves them to
# the first (they are over a minute of CI's time).  `why` names another
# reason (a long check of engine code the two builds share).
skip_if_second_build <- function(why = "the kernel sources are compiled in the main build's tests") {
  b <- Sys.getenv("STATPHYSGPU_TEST_BUILD")
  if (nzchar(b)) skip(sprintf("%s (this build: %s)", why, b))
}
