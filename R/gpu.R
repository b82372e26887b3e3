# GPU backend status.  (The run-time loader arrives with the GPU issue.)
gpu_status <- function() {
  info <- .Call(C_sp_r_build_info)
  reason <- if (!info$gpu_enabled) {
    "the GPU backend was disabled at install time (STATPHYSGPU_CUDA=no)"
  } else {
    "the GPU backend is not part of this version of statphysgpu"
  }
  list(available = FALSE, reason = reason,
       devices = data.frame(id = integer(), name = character(),
                            total_memory = numeric()))
}

gpu_philox <- function(kind, single, n, seed, stream, offset, devices) {
  sp_abort("the GPU backend is not part of this version of statphysgpu")
}
