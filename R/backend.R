#' Backends available on this machine
#'
#' Lists the compute backends statphysgpu can use here: always the CPU (with
#' its thread count and whether OpenMP is compiled in), and one row per NVIDIA
#' GPU when the GPU backend is usable. When the GPU backend is not usable, a
#' single `gpu` row says why (no driver, no NVRTC, a driver too old, disabled
#' at install time, ...).
#'
#' Functions that simulate take `backend = "auto"`, `"cpu"` or `"gpu"`:
#' `"auto"` picks the GPU when one is usable and the job is large enough to
#' gain from it, `"gpu"` fails with the reason when none is usable, and
#' `"cpu"` never touches the GPU. Results do not depend on the backend beyond
#' floating-point rounding: both use the same Philox streams.
#'
#' @return A data frame with columns `backend` (`"cpu"` or `"gpu"`),
#'   `device` (GPU id, `NA` for the CPU), `name`, `available`, `threads`
#'   (CPU threads; `NA` for GPUs), `openmp` (CPU only), `memory_gb` (GPU
#'   total memory) and `reason` (why a backend is unavailable, else `NA`).
#' @examples
#' sp_backends()
#' @export
sp_backends <- function() {
  info <- threads_info()
  cpu <- data.frame(
    backend = "cpu", device = NA_integer_,
    name = sprintf("%d logical processor%s", info$procs,
                   if (info$procs == 1) "" else "s"),
    available = TRUE, threads = info$threads, openmp = info$openmp,
    memory_gb = NA_real_, reason = NA_character_,
    stringsAsFactors = FALSE)
  st <- gpu_status()
  if (!st$available) {
    gpu <- data.frame(backend = "gpu", device = NA_integer_, name = NA_character_,
                      available = FALSE, threads = NA_integer_, openmp = NA,
                      memory_gb = NA_real_, reason = st$reason,
                      stringsAsFactors = FALSE)
  } else {
    d <- st$devices
    gpu <- data.frame(backend = "gpu", device = d$id, name = d$name,
                      available = TRUE, threads = NA_integer_, openmp = NA,
                      memory_gb = round(d$total_memory / 2^30, 1),
                      reason = NA_character_, stringsAsFactors = FALSE)
  }
  out <- rbind(cpu, gpu)
  rownames(out) <- NULL
  out
}

# Resolve backend = "auto" | "cpu" | "gpu" and devices for a job of `work`
# units (the auto threshold is the size above which the GPU pays off).
resolve_backend <- function(backend, devices, work = Inf, auto_threshold = 1e6,
                            call = caller_call()) {
  backend <- check_choice(backend, c("auto", "cpu", "gpu"), "backend",
                          call = call)
  if (backend == "cpu") {
    if (!is.null(devices)) {
      sp_abort("`devices` applies to the GPU backend only; use `backend = \"gpu\"` or `devices = NULL`.",
               call = call)
    }
    return(list(backend = "cpu", devices = integer()))
  }
  st <- gpu_status()
  if (backend == "gpu" && !st$available) {
    sp_abort(paste0("`backend = \"gpu\"` but the GPU backend is unavailable: ",
                    st$reason), call = call, class = "statphysgpu_no_gpu")
  }
  if (backend == "auto") {
    if (!st$available || (is.null(devices) && work < auto_threshold)) {
      return(list(backend = "cpu", devices = integer()))
    }
  }
  list(backend = "gpu", devices = resolve_devices(devices, st$devices, call))
}

resolve_devices <- function(devices, available, call = caller_call()) {
  ids <- available$id
  if (is.null(devices)) return(ids[1])
  if (identical(devices, "all")) return(ids)
  ok <- is.numeric(devices) && length(devices) >= 1 && !anyNA(devices) &&
    all(devices == floor(devices)) &&
    (!anyDuplicated(devices) || isTRUE(sp_tuning("devices_repeat", call)))
  if (!ok || !all(devices %in% ids)) {
    sp_abort(sprintf(
      "`devices` must be \"all\" or distinct GPU ids among %s (see gpu_devices()), not %s.",
      paste(ids, collapse = ", "), describe(devices)), call = call)
  }
  as.integer(devices)
}
