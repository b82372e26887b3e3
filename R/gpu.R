# GPU backend: status, devices, run-time compilation and the kernel cache.

# Session state: kernel source hash, compile/cache counters, the device
# table (gpu_devices(free = FALSE)), the kernel registry and the module keys
# of its variants (all fixed for a session).
.sp_gpu <- new.env(parent = emptyenv())
.sp_gpu$source_hash <- NULL
.sp_gpu$devices <- NULL
.sp_gpu$registry <- NULL
.sp_gpu$keys <- list()
.sp_gpu$compiles <- 0L
.sp_gpu$cache_hits <- 0L
.sp_gpu$compile_seconds <- 0
.sp_gpu$cache_warned <- FALSE

gpu_status <- function() {
  st <- .Call(C_sp_r_gpu_status)
  st$devices <- if (st$available) gpu_devices(free = FALSE) else
    data.frame(id = integer(), name = character(), total_memory = numeric())
  st
}

#' GPUs visible to statphysgpu
#'
#' Lists the NVIDIA GPUs the GPU backend can use. The CUDA driver
#' (`libcuda.so.1`) and NVRTC (`libnvrtc.so.*`) are opened at run time, so
#' this works (and returns no rows) on machines without CUDA; see
#' [sp_backends()] for the reason when there is no usable GPU.
#'
#' NVRTC is searched under `STATPHYSGPU_CUDA_HOME`, `CUDA_HOME`, `CUDA_PATH`,
#' the CUDA home recorded at install time, `/usr/local/cuda` (in their
#' `lib64` and `lib` folders, newest version first), then on the dynamic
#' loader's path.
#'
#' @param free Also query the free memory of each device (this creates the
#'   device's CUDA context if it does not exist yet).
#' @return A data frame with one row per GPU: `id` (the value to pass as
#'   `devices`), `name`, `compute_capability`, `multiprocessors`,
#'   `total_memory` and `free_memory` (bytes), `driver_version` and
#'   `nvrtc_version`. It has zero rows when the GPU backend is unavailable,
#'   with the reason in `attr(, "reason")`.
#' @examples
#' gpu_devices()
#' @export
gpu_devices <- function(free = TRUE) {
  free <- check_flag(free, "free")
  # the devices and their fixed properties cannot change while the driver is
  # loaded: without the free memory, the table is read once a session (every
  # GPU call resolves its devices and names them in its result)
  if (!free && !is.null(.sp_gpu$devices)) return(.sp_gpu$devices)
  st <- .Call(C_sp_r_gpu_status)
  cols <- c("id", "name", "compute_capability", "multiprocessors",
            "total_memory", "free_memory", "driver_version", "nvrtc_version")
  if (!st$available) {
    out <- data.frame(id = integer(), name = character(),
                      compute_capability = character(), multiprocessors = integer(),
                      total_memory = numeric(), free_memory = numeric(),
                      driver_version = character(), nvrtc_version = character(),
                      stringsAsFactors = FALSE)
    attr(out, "reason") <- st$reason
    if (!free) .sp_gpu$devices <- out
    return(out)
  }
  d <- .Call(C_sp_r_gpu_devices, free)
  d$driver_version <- rep(sprintf("%d.%d", st$driver_version %/% 1000,
                                  (st$driver_version %% 1000) %/% 10), length(d$id))
  d$nvrtc_version <- rep(st$nvrtc_version, length(d$id))
  out <- as.data.frame(d, stringsAsFactors = FALSE)
  out <- out[, c(cols, setdiff(names(out), cols))]
  if (!free) .sp_gpu$devices <- out
  out
}

# ---- kernels -------------------------------------------------------------------

# The kernel sources the package ships, with the variants compiled.
# `toolkit = TRUE`: needs the CUDA toolkit's headers (curand_kernel.h).
# Built once a session (gpu_kernel_registry_build() has the entries).
gpu_kernel_registry <- function() {
  if (is.null(.sp_gpu$registry)) .sp_gpu$registry <- gpu_kernel_registry_build()
  .sp_gpu$registry
}

gpu_kernel_registry_build <- function() {
  list(
    rng = list(file = "rng.cu", toolkit = FALSE,
               variants = list(default = list(defines = character(),
                                              fast_math = FALSE))),
    curand_check = list(file = "curand_check.cu", toolkit = TRUE,
                        variants = list(default = list(defines = character(),
                                                       fast_math = FALSE))),
    escape = list(file = "escape.cu", toolkit = FALSE, variants = escape_variants()),
    driven = list(file = "driven.cu", toolkit = FALSE, variants = driven_variants()),
    ams = list(file = "ams.cu", toolkit = FALSE, variants = ams_variants()), # R/ams.R
    # mixed_lb32: registers capped for 32 walkers per SM; _u4: partner
    # loops unrolled 4 times; _fast: selects instead of branches, the
    # hardware approximations in single precision and each pair once in
    # the measurement (he4_vmc.cu, SP_VMC_FAST; double_fast: the CPU's
    # chains, as double); _usum: each atom's sum of u kept, so that a
    # trial move evaluates its new terms only (single precision; the
    # walker's shared memory grows from 12 to 20 bytes an atom).
    # bench/he4.R compares; option statphysgpu.he4_variant, a suffix: ""
    # (mixed, double), "_fast", ...
    he4_vmc = list(file = "he4_vmc.cu", toolkit = FALSE, variants = he4_variants()),
    # diffusion Monte Carlo (he4_dmc()), double precision only
    he4_dmc = list(file = "he4_dmc.cu", toolkit = FALSE,
                   variants = list(double = list(defines = character(), fast_math = FALSE))),
    # indep: per-clone p1 decisions (independent_clones = TRUE); lb6, lb8:
    # registers capped for 6 or 8 blocks of 256 threads per SM
    # (bench/xorsat.R compares them; option statphysgpu.xorsat_variant)
    xorsat = list(file = "xorsat.cu", toolkit = FALSE,
                  variants = list(default = list(defines = character(), fast_math = FALSE),
                                  indep = list(defines = "SP_XS_INDEP=1", fast_math = FALSE),
                                  lb6 = list(defines = "SP_XS_MINBLOCKS=6", fast_math = FALSE),
                                  lb8 = list(defines = "SP_XS_MINBLOCKS=8", fast_math = FALSE))),
    # the starts of lrmd() (hmf_waterbag() ...) drawn by the many-body
    # engine into a system's states (sde_run(init = <start>), R/sde-mb-run.R):
    # a small module of its own, compiled once (both precisions of the states)
    mb_recipe = list(file = "mb_recipe.cu", toolkit = FALSE,
                     variants = list(default = list(defines = character(), fast_math = FALSE)))
  )
}

# he4_vmc.cu in each precision and tuning (see the registry).
he4_variants <- function() {
  v <- function(...) list(defines = c(...), fast_math = FALSE)
  single <- c("SP_REAL=float", "SP_REAL_SINGLE=1")
  fast <- c("SP_VMC_FAST=1", "SP_HE4_APPROX=1")
  list(mixed = v(single),
       mixed_lb32 = v(single, "SP_VMC_MINBLOCKS=32"),
       mixed_u4 = v(single, "SP_VMC_UNROLL=4"),
       mixed_lb32_u4 = v(single, "SP_VMC_MINBLOCKS=32", "SP_VMC_UNROLL=4"),
       double = v("SP_REAL=double"),
       mixed_fast = v(single, fast),
       mixed_fast_u4 = v(single, fast, "SP_VMC_UNROLL=4"),
       mixed_fast_u4_usum = v(single, fast, "SP_VMC_UNROLL=4", "SP_VMC_USUM=1"),
       double_fast = v("SP_REAL=double", "SP_VMC_FAST=1"))
}

# escape.cu in each precision, method, bias mode and start:
# "single_srk2_fixed", ..., "double_euler_ramp_thermal", and the
# continuations of a previous result ("..._resume": paths from their state).
# Single precision uses the hardware sine for the washboard force
# (SP_FAST_SIN); nothing else is relaxed (the Box-Muller logarithm must stay
# accurate near 1).
escape_variants <- function() {
  v <- list()
  for (prec in c("single", "double")) for (m in c("srk2", "euler"))
    for (b in c("fixed", "ramp")) for (st in c("rest", "thermal", "resume")) {
      nm <- paste(c(prec, m, b, if (st != "rest") st), collapse = "_")
      v[[nm]] <- list(
        defines = c(if (prec == "single") c("SP_REAL=float", "SP_REAL_SINGLE=1",
                                            "SP_FAST_SIN=1")
                    else "SP_REAL=double",
                    sprintf("SP_ESC_HEUN=%d", as.integer(m == "srk2")),
                    sprintf("SP_ESC_RAMP=%d", as.integer(b == "ramp")),
                    sprintf("SP_ESC_THERMAL=%d", as.integer(st == "thermal")),
                    if (st == "resume") "SP_ESC_RESUME=1"),
        fast_math = FALSE)
    }
  v
}

cuda_source_dir <- function() {
  d <- system.file("cuda", package = "statphysgpu")
  if (!nzchar(d)) sp_abort("the package's CUDA sources (inst/cuda) are missing")
  d
}

# Hash of every file under inst/cuda (names and contents), once a session.
cuda_source_hash <- function() {
  if (is.null(.sp_gpu$source_hash)) {
    files <- sort(list.files(cuda_source_dir(), full.names = TRUE))
    txt <- vapply(files, function(f) {
      paste(basename(f), readChar(f, file.size(f), useBytes = TRUE))
    }, character(1))
    .sp_gpu$source_hash <- sp_sha256(unname(txt))
  }
  .sp_gpu$source_hash
}

#' Where compiled kernels and models are cached
#'
#' GPU kernels are compiled by NVRTC for the GPU present the first time they
#' are needed, and user models ([sde_model()]) by NVRTC and by R's C
#' compiler; both are cached on disk, so later sessions start without
#' compiling. The cache lives in `tools::R_user_dir("statphysgpu", "cache")`
#' unless the option `statphysgpu.cache_dir` or the environment variable
#' `STATPHYSGPU_CACHE_DIR` names another folder (under `R CMD check`,
#' unless one is named, a folder of the session's temporary folder).
#'
#' @section Safety:
#' Compiled files are code that runs in your session, so the cache is kept
#' private: its folders are created readable by you only (0700) and its
#' files 0600; every file is named by the SHA-256 of exactly what was
#' compiled (sources, headers, compiler, options, target) and is read only
#' when you own it, no one else can write it, and its content has the
#' SHA-256 recorded when it was written; a CPU object is loaded from a
#' private copy in the session's temporary folder. A configured folder that
#' another user owns, or that others can write (or any folder above it,
#' unless sticky, as `/tmp`), is not used: a private subfolder
#' (`statphysgpu-<uid>`) of a sticky folder, or else a folder of the
#' session, is used instead, with a warning. A folder of yours that others
#' could write is made private, with a warning. A damaged file is compiled
#' again. A cache that cannot be written (read-only, a full disk, no inodes
#' left, a file where its `sde` folder belongs) costs one warning that says
#' why: what is compiled is then kept in a folder of the session and used in
#' this session only. A model's C code is always generated afresh from its
#' equations, never taken from the model object.
#'
#' @section Parallel sessions:
#' Sessions that need the same file compile it once: the first holds a lock
#' (a folder `<file>.lock` beside the file, holding its process id and
#' machine) and the others wait for it, with a message after 10 seconds
#' that names the process. A lock whose process no longer runs on this
#' machine (R was killed while compiling) is taken over at once; one made on
#' another machine (a cache shared over the network), after 15 minutes.
#' After 30 minutes of waiting a session compiles without the lock.
#'
#' @section What `gpu_cache_clear()` removes:
#' Only what the package wrote: each cached file whose name is the package's
#' (`<what>-<32 hexadecimal digits of its key>.<cubin|ptx|so>`) and beside
#' which the package's record of it lies (`<file>.sha256`, naming the same
#' key), with that record; the package's lock folders that no running
#' process holds, and the temporary files of writes that did not finish. Any
#' other file in the cache folder or its `sde` folder (a file of yours, a
#' `.ptx` without a record, folders moved aside as not private) is kept, so
#' a cache folder shared with your own files loses none of them.
#'
#' @return `gpu_cache_dir()`: the folder in use. `gpu_cache_clear()`: the
#'   number of cached files removed (GPU kernels, and user models for the GPU
#'   and the CPU), invisibly; kernels already loaded in this session are
#'   unloaded too (GPU kernels, and user models compiled for the CPU), so the
#'   next call compiles afresh. This one function clears every cache of the
#'   package.
#' @examples
#' gpu_cache_dir()
#' @export
gpu_cache_dir <- function() cache_root()

#' @rdname gpu_cache_dir
#' @export
gpu_cache_clear <- function() {
  d <- cache_root()
  n <- cache_clear_dir(d)
  sde <- file.path(d, "sde")
  if (dir.exists(sde)) n <- n + cache_clear_dir(sde)
  .Call(C_sp_r_gpu_modules_unload)
  sde_forget_loaded()
  invisible(n)
}

# Architecture to compile for on a device: SASS for its own compute
# capability when NVRTC supports it, else PTX for the newest supported one
# below it (the driver finishes the compilation).
gpu_target <- function(cc) {
  cc <- as.integer(sub(".", "", cc, fixed = TRUE))
  archs <- .Call(C_sp_r_nvrtc_archs)
  if (cc %in% archs) return(list(arch = sprintf("sm_%d", cc), cubin = TRUE))
  below <- archs[archs < cc]
  if (!length(below)) {
    sp_abort(sprintf(
      "this GPU has compute capability %d.%d, older than NVRTC %s supports (%d.%d and newer)",
      cc %/% 10, cc %% 10, .Call(C_sp_r_gpu_status)$nvrtc_version,
      min(archs) %/% 10, min(archs) %% 10))
  }
  list(arch = sprintf("compute_%d", max(below)), cubin = FALSE)
}

# Include folders of the CUDA toolkit (for kernels that use its headers).
toolkit_includes <- function() {
  st <- .Call(C_sp_r_gpu_status)
  homes <- c(st$cuda_home, strsplit(st$search_path, ", ", fixed = TRUE)[[1]])
  homes <- homes[!is.na(homes) & nzchar(homes)]
  for (h in unique(homes)) {
    inc <- file.path(h, "include")
    if (file.exists(file.path(inc, "curand_kernel.h"))) {
      cccl <- file.path(inc, "cccl")
      return(c(inc, if (dir.exists(cccl)) cccl))
    }
  }
  character()
}

nvrtc_options <- function(arch, variant, toolkit) {
  inc <- cuda_source_dir()
  if (toolkit) {
    tk <- toolkit_includes()
    if (!length(tk)) {
      sp_abort(paste0("this kernel needs the CUDA toolkit's headers ",
                      "(curand_kernel.h), not found under ",
                      .Call(C_sp_r_gpu_status)$search_path))
    }
    inc <- c(inc, tk)
  }
  c(paste0("--gpu-architecture=", arch), "--std=c++17",
    paste0("-I", inc),
    if (length(variant$defines)) paste0("-D", variant$defines),
    if (isTRUE(variant$fast_math)) "--use_fast_math")
}

# NVRTC on `file` with `options` and the in-memory `headers` (a named list
# or character vector of texts, by the name the source includes).  The
# source is named by its full path: NVRTC looks for a quoted include first
# beside the source, and a bare name would make that the working directory,
# where any file called like a package header (sde_args.h, philox.h) would
# be compiled in its place.
nvrtc_compile <- function(file, options, cubin = TRUE, headers = NULL) {
  src <- readChar(file, file.size(file), useBytes = TRUE)
  h <- if (length(headers)) unlist(headers)
  .Call(C_sp_r_nvrtc_compile, src, normalizePath(file), options, cubin, h)
}

variant_id <- function(variant) {
  paste(c(sort(variant$defines), if (isTRUE(variant$fast_math)) "fast_math"),
        collapse = ";")
}

# Make sure `kernel` (a registry name) in `variant` is loaded on every device
# in `devices`; compiles or reads the disk cache as needed.  Returns the
# module key that the C engines look kernels up by.
gpu_kernel_load <- function(kernel, devices, variant = "default",
                            defines = NULL) {
  # the common case, every call of a session after the first: the variant's
  # module is loaded on every device (no registry walk, no hashing)
  memo <- if (is.null(defines)) paste0(kernel, "|", variant)
  key <- if (!is.null(memo)) .sp_gpu$keys[[memo]]
  if (!is.null(key) &&
      all(vapply(devices, function(dev) .Call(C_sp_r_gpu_module_loaded, dev, key), TRUE))) {
    return(key)
  }
  reg <- gpu_kernel_registry()[[kernel]]
  v <- reg$variants[[variant]]
  if (!is.null(defines)) v$defines <- defines
  key <- paste0(kernel, "|", variant_id(v))
  if (!is.null(memo)) .sp_gpu$keys[[memo]] <- key
  info <- NULL
  for (dev in devices) {
    if (.Call(C_sp_r_gpu_module_loaded, dev, key)) next
    if (is.null(info)) info <- gpu_devices(free = FALSE)
    target <- gpu_target(info$compute_capability[info$id == dev])
    image <- gpu_kernel_image(kernel, reg, v, target)
    ok <- tryCatch({
      .Call(C_sp_r_gpu_module_load, dev, key, image$image)
      TRUE
    }, error = function(e) {
      if (!image$from_cache) stop(e)
      FALSE
    })
    if (!ok) { # a damaged cache file: compile afresh once
      unlink(image$path)
      image <- gpu_kernel_image(kernel, reg, v, target)
      .Call(C_sp_r_gpu_module_load, dev, key, image$image)
    }
  }
  key
}

# Cache file of a kernel image and its key: the SHA-256 of the kernel
# sources (all of inst/cuda), the kernel, its options, the target, the NVRTC
# version and the package's.
kernel_cache_path <- function(kernel, reg, variant, target,
                              nvrtc_version = .Call(C_sp_r_gpu_status)$nvrtc_version) {
  hash <- sp_sha256(c("kernel-1", cuda_source_hash(), reg$file, variant_id(variant),
                               target$arch, if (target$cubin) "cubin" else "ptx",
                               nvrtc_version,
                               as.character(utils::packageVersion("statphysgpu"))))
  ext <- if (target$cubin) "cubin" else "ptx"
  path <- file.path(cache_root(), sprintf("%s-%s-%s.%s", kernel, target$arch,
                                          substr(hash, 1, 32), ext))
  attr(path, "key") <- hash
  path
}

gpu_kernel_image <- function(kernel, reg, variant, target) {
  opts <- nvrtc_options(target$arch, variant, reg$toolkit)
  path <- kernel_cache_path(kernel, reg, variant, target)
  key <- attr(path, "key")
  image <- cache_read(path, key)
  if (!is.null(image)) {
    .sp_gpu$cache_hits <- .sp_gpu$cache_hits + 1L
    return(list(image = image, path = path, from_cache = TRUE))
  }
  t0 <- proc.time()[["elapsed"]]
  res <- nvrtc_compile(file.path(cuda_source_dir(), reg$file), opts, target$cubin)
  .sp_gpu$compile_seconds <- .sp_gpu$compile_seconds + proc.time()[["elapsed"]] - t0
  if (!res$ok) {
    sp_abort(paste0(res$error, "\nNVRTC log:\n", res$log))
  }
  .sp_gpu$compiles <- .sp_gpu$compiles + 1L
  cache_write(path, key, res$image)
  list(image = res$image, path = path, from_cache = FALSE)
}

# Counters of this session (tests and benchmarks).
gpu_kernel_stats <- function() {
  list(compiles = .sp_gpu$compiles, cache_hits = .sp_gpu$cache_hits,
       compile_seconds = .sp_gpu$compile_seconds)
}

#' Compile the package's GPU kernels without a GPU
#'
#' Compiles every CUDA kernel source the package ships (every variant the
#' package uses) with NVRTC for the given architectures. Only NVRTC is
#' needed, not a GPU or a driver, so this checks on any machine with the CUDA
#' toolkit that the kernels compile for the GPUs they will meet.
#'
#' @param arch Target architectures, such as `"sm_80"` (A100) or `"sm_90"`
#'   (H100, H200); `"compute_XX"` checks PTX generation.
#' @param files Kernel files to compile instead of the shipped ones (each with
#'   the package's headers on the include path); used to test the checker.
#' @return A data frame with columns `kernel`, `variant`, `arch`, `ok`,
#'   `seconds` and `log` (NVRTC's messages; for a failure, the error).
#' @examples
#' \donttest{
#' # Needs NVRTC (the CUDA toolkit), not a GPU; compiling every kernel takes
#' # about a minute. Without NVRTC the error says why.
#' res <- tryCatch(gpu_kernels_check("sm_90"), error = conditionMessage)
#' if (is.data.frame(res)) res[, c("kernel", "arch", "ok")] else res
#' }
#' @export
gpu_kernels_check <- function(arch = c("sm_80", "sm_90"), files = NULL) {
  if (!is.character(arch) || !length(arch) || anyNA(arch) ||
      !all(grepl("^(sm|compute)_[0-9]{2,3}[a-z]?$", arch))) {
    sp_abort(sprintf(
      "`arch` must be architecture names such as \"sm_80\" or \"sm_90\", not %s.",
      describe(arch)))
  }
  st <- .Call(C_sp_r_gpu_status)
  if (!st$nvrtc_available) {
    sp_abort(paste("NVRTC is not available:", st$nvrtc_reason))
  }
  reg <- gpu_kernel_registry()
  if (!is.null(files)) {
    if (!is.character(files) || !length(files) || !all(file.exists(files))) {
      sp_abort("`files` must name existing kernel source files.")
    }
    reg <- lapply(files, function(f) {
      list(file = normalizePath(f), toolkit = FALSE,
           variants = list(default = list(defines = character(), fast_math = FALSE)))
    })
    names(reg) <- basename(files)
  }
  rows <- list()
  for (k in names(reg)) {
    r <- reg[[k]]
    file <- if (file.exists(r$file)) r$file else file.path(cuda_source_dir(), r$file)
    for (vn in names(r$variants)) {
      v <- r$variants[[vn]]
      for (a in arch) {
        t0 <- proc.time()[["elapsed"]]
        res <- tryCatch(
          nvrtc_compile(file, nvrtc_options(a, v, r$toolkit), cubin = startsWith(a, "sm_")),
          statphysgpu_error = function(e) list(ok = FALSE, log = "", error = sp_cnd_text(e)))
        log <- res$log
        if (!res$ok) log <- paste(c(res$error, if (nzchar(log)) log), collapse = "\n")
        rows[[length(rows) + 1]] <- data.frame(
          kernel = k, variant = vn, arch = a, ok = res$ok,
          seconds = proc.time()[["elapsed"]] - t0, log = log,
          stringsAsFactors = FALSE)
      }
    }
  }
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

# ---- Philox on the GPU ------------------------------------------------------------

# Mean and variance of n normals generated and reduced on the GPU (nothing
# copied back per value): the random-number benchmark and large-sample tests.
gpu_normal_moments <- function(n, seed, stream = 0, offset = 0,
                               precision = c("single", "double"), devices = NULL) {
  n <- check_count(n, "n", min = 4)
  if (n %% 4 != 0) sp_abort("`n` must be a multiple of 4.")
  precision <- check_choice(precision, c("single", "double"), "precision")
  seed <- check_u64(seed, "seed")
  stream <- check_u64(stream, "stream")
  offset <- check_u64(offset, "offset")
  plan <- resolve_backend("gpu", devices)
  key <- gpu_kernel_load("rng", plan$devices)
  t0 <- proc.time()[["elapsed"]]
  r <- .Call(C_sp_r_gpu_philox_moments, key, precision == "single", n, seed,
             stream, offset, plan$devices)
  wall <- proc.time()[["elapsed"]] - t0
  list(n = n, mean = r[1] / n, var = (r[2] - r[1]^2 / n) / (n - 1),
       kernel_seconds = r[3] / 1000, wall_seconds = wall)
}

# cuRAND's own curand_init(seed, stream, offset) + curand4() stream on a GPU,
# as a matrix with one row per stream (nquads * 4 draws each).
gpu_curand_stream <- function(seed, streams, offset = 0, nquads = 4, device = 0L) {
  key <- gpu_kernel_load("curand_check", device)
  seed <- check_u64(seed, "seed")
  s0 <- check_u64(min(streams), "streams")
  stopifnot(all(diff(streams) == 1))
  v <- .Call(C_sp_r_gpu_curand_check, key, as.integer(device), seed, s0,
             check_u64(offset, "offset"), length(streams), as.integer(nquads))
  matrix(v, nrow = length(streams), byrow = TRUE)
}
