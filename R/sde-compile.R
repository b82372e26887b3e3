# Compilation of a user's SDE model: its generated header (sde_code()) with
# the engine of inst/cuda, by R's own C toolchain (R CMD SHLIB, the compiler
# and flags R was built with) into a shared object for the CPU, and by NVRTC
# into a module for the GPU.  Both are cached in the "sde" folder of the
# compile cache (R/cache.R: private folders, files keyed by the SHA-256 of
# exactly what was compiled and checked before use).  Only a model rebuilt
# in this session from its checked equations is compiled (sde_model_trusted()).

.sp_sde <- new.env(parent = emptyenv())
.sp_sde$libs <- list()
.sp_sde$cc <- NULL
.sp_sde$compiles <- 0L
.sp_sde$compile_seconds <- 0
.sp_sde$models <- list()
.sp_sde$keys <- list() # (sde_cpu_object(): the keys of compiled objects, by the model's texts)

# The folder of compiled models in the cache.
sde_cache_dir <- function() cache_subdir(cache_root(), "sde")

# R's C compiler and flags (R CMD config), once a session: list(cc, cflags,
# found, why).
sde_cc <- function() {
  if (is.null(.sp_sde$cc)) {
    r <- file.path(R.home("bin"), "R")
    conf <- function(v) {
      out <- tryCatch(suppressWarnings(system2(r, c("CMD", "config", v), stdout = TRUE,
                                               stderr = TRUE)),
                      error = function(e) character())
      paste(out, collapse = " ")
    }
    cc <- conf("CC")
    exe <- strsplit(trimws(cc), "[[:space:]]+")[[1]][1]
    found <- !is.na(exe) && nzchar(exe) && nzchar(Sys.which(exe))
    .sp_sde$cc <- list(cc = cc, cflags = paste(conf("CFLAGS"), conf("CPICFLAGS")),
                       found = found, extra = if (found) sde_cc_extra(exe) else "",
                       why = if (found) "" else if (is.na(exe) || !nzchar(exe))
                         "R reports no C compiler (R CMD config CC is empty)"
                       else sprintf("R's C compiler `%s` is not on the PATH", exe))
  }
  .sp_sde$cc
}

# The flags a model's object is compiled with besides R's, where the
# compiler is GCC or clang: no fused multiply-add contracted in one copy of
# a model's step and not in the other (the vector loop's AVX2 and AVX-512
# clones and the scalar copy compute the same numbers, sde_lanes.h),
# floating-point selects that if-convert and square roots without errno
# (the loop over paths vectorises; no value changes), and the loop's
# `omp simd` honoured without OpenMP.
sde_cc_extra <- function(exe) {
  ver <- tryCatch(suppressWarnings(system2(exe, "--version", stdout = TRUE, stderr = TRUE)),
                  error = function(e) character())
  if (!any(grepl("gcc|GCC|Free Software Foundation|clang", ver))) return("")
  "-ffp-contract=off -fno-math-errno -fno-trapping-math -fopenmp-simd"
}

# The flags of an object of scalar code, one path at a time, whose time is
# the latency of a step's chain (sde_ams()'s AMS entries, ams.h), besides
# sde_cc_extra()'s, where the compiler is GCC or clang: no basic-block
# (SLP) vectorisation.  GCC packs the two states of a model's step into
# one vector register and unpacks them again, on the chain from one step
# to the next: 3.7 ns of a 33 ns step of the washboard with the energy
# score (bench/RESULTS.md, session 17).  The loops over paths of sde_run()
# (loop vectorisation) are not in such an object.  No value changes.
sde_cc_scalar <- function() {
  if (nzchar(sde_cc()$extra)) "-fno-tree-slp-vectorize" else ""
}

#' Can this machine compile SDE models for the CPU?
#'
#' [sde_run()] compiles a model for the CPU with the C compiler R was built
#' with (as `R CMD SHLIB` does); without one, only the GPU backend runs
#' models.
#'
#' @return `TRUE` or `FALSE`, with the reason in `attr(, "reason")` when
#'   `FALSE`.
#' @examples
#' sde_cpu_available()
#' @export
sde_cpu_available <- function() {
  cc <- sde_cc()
  out <- cc$found
  if (!out) attr(out, "reason") <- cc$why
  out
}

# A compile error in the words of the model: the compiler's first
# diagnostic ("file:line:col: error: ...") that points into sde_model.h
# names the model expression of that line; a diagnostic elsewhere is quoted;
# a failure of the machine rather than of the code (a full disk, a missing
# compiler, a folder that cannot be written) says so.
sde_compile_error <- function(m, log, tool, call = NULL) {
  lines <- strsplit(log, "\n", fixed = TRUE)[[1]]
  diag <- grepl("(^|[[:space:]:])(fatal )?error( [A-Za-z0-9#]+)?:", lines) &
    !grepl("^[[:space:]]*(gcc|cc|clang|g\\+\\+|c\\+\\+|[^ ]*/(gcc|cc|clang))[[:space:]]", lines) &
    !grepl("-Werror", lines, fixed = TRUE)
  system_fail <- grep(paste0("No space left on device|Disk quota exceeded|Read-only file system|",
                             "Permission denied|cannot open output file|command not found|",
                             "No such file or directory.*(gcc|cc|make)|cannot execute"),
                      lines, value = TRUE)
  if (length(system_fail) && !any(grepl("sde_model\\.h", lines[diag]))) {
    sp_abort(sprintf(paste0("the model \"%s\" could not be compiled (%s) for a reason of the ",
                            "machine, not of the model: %s"), m$name, tool,
                     trimws(system_fail[1])),
             call = call, class = c("statphysgpu_sde_compile_system", "statphysgpu_sde_compile_error"))
  }
  hit <- regmatches(lines, regexec("sde_model\\.h[:(]([0-9]+)", lines))
  at <- which(lengths(hit) > 0 & diag)
  where <- ""
  if (length(at)) {
    ln <- as.integer(hit[[at[1]]][2])
    what <- if (ln <= nrow(m$lines)) m$lines$what[ln] else ""
    msg <- sub(".*error[^:]*:[[:space:]]*", "", lines[at[1]])
    where <- sprintf(" in %s: %s", if (nzchar(what)) what else sprintf("line %d of sde_code(m)", ln),
                     msg)
  } else if (any(diag)) {
    where <- paste0(": ", trimws(lines[diag][1]))
  } else if (length(lines)) {
    where <- paste0(": ", trimws(utils::tail(lines[nzchar(trimws(lines))], 1)))
  }
  sp_abort(sprintf("the model \"%s\" does not compile (%s)%s.", m$name, tool, where),
           call = call, class = "statphysgpu_sde_compile_error")
}

# The C file of a CPU object: `before` (comments, defines, the argument
# header), then `includes` once per precision (single, then double: both
# live in one object, their names suffixed _f and _d; `precisions`: the
# ones it holds), then the entry that reports the sizes the object was
# compiled for (checked against every run; `prefix`: SP_SDE or SP_MB, the
# header's size macros).
sde_cpu_c_file <- function(before, includes, prefix = "SP_SDE",
                           precisions = c("single", "double")) {
  one <- function(single) c(
    if (single) c("#define SP_REAL float", "#define SP_REAL_SINGLE 1")
    else c("#undef SP_REAL", "#undef SP_REAL_SINGLE", "#define SP_REAL double"),
    sprintf("#include \"%s\"", includes))
  paste(c(before, if ("single" %in% precisions) one(TRUE),
          if ("double" %in% precisions) one(FALSE),
          "void sp_sde_model_sizes(int *out);",
          "void sp_sde_model_sizes(int *out) {",
          sprintf("  out[0] = %s_NX; out[1] = %s_NP; out[2] = %s_NW; out[3] = %s_NO;",
                  prefix, prefix, prefix, prefix),
          "}", ""), collapse = "\n")
}

# The C file of a model's CPU object (sde_run()), sine and cosine in double
# sp_math.h's polynomials (SP_SDE_CPU_POLY, sde_prelude.h): both
# precisions, a path at a time (lanes = NULL); or, for long runs, the
# precision `lanes` with the model's copy for the vector loop over paths
# (SP_SDE_CPU_LANES, sde_lanes.h) compiled for this processor's vector
# instructions (the level is in the source, and so in the object's key).
# The two compute the same numbers.
sde_cpu_source <- function(m, lanes = NULL) {
  arch <- if (!is.null(lanes)) switch(as.character(sde_simd_level()),
                                      "4" = c("x86-64-v4", 4), "3" = c("x86-64-v3", 3))
  sde_cpu_c_file(c("/* generated by statphysgpu's sde_run(): the model's CPU entries */",
                   "#define SP_SDE_CPU_POLY 1",
                   if (!is.null(lanes)) "#define SP_SDE_CPU_LANES 1",
                   if (length(arch)) c(sprintf("#define SP_SDE_LANES_ARCH \"arch=%s\"", arch[1]),
                                       sprintf("#define SP_SDE_LANES_LEVEL %s", arch[2])),
                   "#include \"sde_args.h\""),
                 c("sde_prelude.h", "sde_model.h", "sde_engine.h", "sde_cpu.h"),
                 precisions = lanes %||% c("single", "double"))
}

# This processor's vector instructions (sp_r_cpu_simd_level): 4 AVX-512,
# 3 AVX2, 0 the baseline's.
sde_simd_level <- function() {
  if (is.null(.sp_sde$simd)) .sp_sde$simd <- .Call(C_sp_r_cpu_simd_level)
  .sp_sde$simd
}

# The precision whose vector object a CPU run of model m takes (NULL: the
# object of both precisions, a path at a time): where the compiler can
# build it (GCC or clang: sde_cc_extra()), the model's functions are
# inlined (not a large model's) and the run is long (option
# statphysgpu.sde_cpu_vector: "auto" from sde_cpu_vector_steps() steps at
# most (replicas x steps), TRUE always, FALSE never).  A short run keeps
# the object that compiles in a second; a long one pays a few seconds
# once for some 5 times the speed (bench/sde-cpu.R).
sde_cpu_lanes_wanted <- function(m, precision, steps) {
  v <- sp_tuning("sde_cpu_vector")
  ok <- nzchar(sde_cc()$extra) && !grepl("SP_FN_OUTLINE", m$code, fixed = TRUE)
  if (!ok || isFALSE(v) || (identical(v, "auto") && steps < sp_tuning("sde_cpu_vector_steps")))
    return(NULL)
  precision
}

# Compile (or read from the cache) and load the model's CPU object;
# returns its entries (native symbols): advance_f, advance_d, observe_f,
# observe_d, lanes_f, lanes_d, or those of the precision `lanes`
# (sde_cpu_source()).
sde_cpu_load <- function(m, call = NULL, progress = FALSE, lanes = NULL) {
  sfx <- if (is.null(lanes)) c("_f", "_d") else if (lanes == "single") "_f" else "_d"
  sym <- paste0(rep(c("advance", "observe", "lanes"), each = length(sfx)), sfx)
  sde_cpu_object(m, call, source = sde_cpu_source(m, lanes),
                 symbols = stats::setNames(paste0("sp_sde_cpu_", sym), sym),
                 progress = progress)
}

# The files of a CPU build: the generated C file, the model's header, the
# extra headers, and the package's headers of inst/cuda (copied beside
# them: the build reads nothing else but the system's headers).
sde_build_files <- function(m, source, headers) {
  cuda <- sort(list.files(cuda_source_dir(), pattern = "\\.h$"), method = "radix") # any locale
  pkg <- vapply(file.path(cuda_source_dir(), cuda), function(f) {
    readChar(f, file.size(f), useBytes = TRUE)
  }, "", USE.NAMES = FALSE)
  sde_code_check(m$code, "the model's header")
  for (h in names(headers)) sde_code_check(headers[[h]], h)
  sde_code_check(source, "the model's C file", strict = FALSE)
  files <- c(stats::setNames(pkg, cuda), unlist(headers),
             sde_model.h = m$code, sde_model.c = source)
  files[!duplicated(names(files), fromLast = TRUE)]
}

# Objects loaded at once for the CPU, at most (the least recently used is
# unloaded past it: R's limit on loaded DLLs, 100 to 1000, is never met).
sde_max_loaded <- function() as.integer(sp_tuning("sde_max_loaded"))

# Unload the least recently used objects beyond the limit.
sde_unload_old <- function(limit = sde_max_loaded()) {
  libs <- .sp_sde$libs
  while (length(libs) > limit) {
    used <- vapply(libs, function(l) l$used, 0)
    old <- names(libs)[which.min(used)]
    sde_unload(libs[[old]])
    libs[[old]] <- NULL
  }
  .sp_sde$libs <- libs
}

sde_unload <- function(lib) {
  try(dyn.unload(lib$path), silent = TRUE)
  unlink(lib$path)
}

# Forget (unload) every loaded CPU object.
sde_forget_loaded <- function() {
  for (l in .sp_sde$libs) sde_unload(l)
  .sp_sde$libs <- list()
}

# Say a compile starts and, when it ends, how long it took (`progress`).
sde_compile_note <- function(m, tool, progress, seconds = NULL) {
  if (!isTRUE(progress)) return(invisible())
  if (is.null(seconds)) {
    message(sprintf("Compiling the model \"%s\" (%s) ...", m$name, tool))
  } else {
    message(sprintf("Compiled the model \"%s\" (%s) in %.1f s.", m$name, tool, seconds))
  }
  invisible()
}

# The CPU object of a model compiled from the C file `source` with the
# model's header sde_model.h and the extra headers `headers` (a named list
# of texts, by file name) beside it; returns the native symbols `symbols`
# (a named character vector) and the object's path.  Cached by the SHA-256
# of every byte compiled and of the compiler and its flags (`flags`: more
# of them for this object, after sde_cc_extra()'s).
sde_cpu_object <- function(m, call, source, symbols, headers = list(), progress = FALSE,
                           flags = "") {
  cc <- sde_cc()
  if (!cc$found) {
    sp_abort(sprintf(paste0(
      "no C compiler: %s, so the model cannot be compiled for the CPU. Install the ",
      "compiler R was built with, or run on the GPU (backend = \"gpu\")."), cc$why),
      call = call, class = "statphysgpu_no_compiler")
  }
  # the key of what this call compiles, looked up by a digest of the model's
  # own texts once the session has made it (issue 50: reading and hashing
  # the package's headers took 12 ms a call, lrmd()'s declared gravity2d
  # makes a call a record; the headers of a loaded package do not change)
  memo <- sp_sha256(c(cuda_source_dir(), m$code, source, names(headers), unlist(headers),
                      cc$cc, cc$cflags, cc$extra, flags))
  key <- .sp_sde$keys[[memo]]
  files <- NULL
  if (is.null(key)) {
    files <- sde_build_files(m, source, headers)
    key <- sp_sha256(c("sde-cpu-2", names(files), unname(files), cc$cc, cc$cflags,
                       cc$extra, flags,
                       R.version.string,
                       as.character(utils::packageVersion("statphysgpu"))))
    .sp_sde$keys[[memo]] <- key
  }
  lib <- .sp_sde$libs[[key]]
  if (!is.null(lib)) {
    .sp_sde$libs[[key]]$used <- sde_tick()
    return(lib)
  }
  path <- file.path(sde_cache_dir(), sprintf("cpu-%s%s", substr(key, 1, 32),
                                             .Platform$dynlib.ext))
  for (attempt in 1:2) {
    bytes <- cache_read(path, key)
    if (is.null(bytes)) {
      release <- cache_lock(path, key)
      if (is.null(release)) {
        bytes <- cache_read(path, key)
      } else {
        bytes <- tryCatch({
          if (is.null(files)) files <- sde_build_files(m, source, headers)
          b <- sde_cpu_build(m, files, call, progress, flags)
          cache_write(path, key, b)
          b
        }, finally = release())
      }
    }
    loaded <- tryCatch(cache_dyn_load(bytes, key), error = function(e) e)
    if (!inherits(loaded, "error")) break
    # a damaged object: compile it again once
    unlink(c(path, cache_record_path(path)))
    if (attempt == 2) {
      sp_abort(sprintf("the compiled model \"%s\" cannot be loaded: %s", m$name,
                       sp_cnd_text(loaded)), call = call)
    }
  }
  lib <- lapply(symbols, function(s) getNativeSymbolInfo(s, loaded$dll)$address)
  sizes <- sde_object_sizes(loaded$dll)
  want <- c(length(m$states), length(m$params) + sde_mb_hidden_params(m) + length(m$derived),
            length(m$noise_w %||% m$noise), length(m$observe))
  if (!is.null(sizes) && !identical(sizes, as.integer(want))) {
    sde_unload(list(path = loaded$path))
    sp_abort(sprintf(paste0("internal error: the compiled model has %s states, parameters, ",
                            "noise entries and observables, the model %s."),
                     paste(sizes, collapse = ", "), paste(want, collapse = ", ")), call = call)
  }
  lib$path <- loaded$path
  lib$sizes <- sizes
  lib$used <- sde_tick()
  .sp_sde$libs[[key]] <- lib
  sde_unload_old()
  lib
}

sde_tick <- function() {
  .sp_sde$tick <- (if (is.null(.sp_sde$tick)) 0 else .sp_sde$tick) + 1
  .sp_sde$tick
}

# The sizes a CPU object was compiled for (NULL where it has no such entry).
sde_object_sizes <- function(dll) {
  f <- tryCatch(getNativeSymbolInfo("sp_sde_model_sizes", dll), error = function(e) NULL)
  if (is.null(f)) return(NULL)
  .Call(C_sp_r_call_sizes, f$address)
}

# Build a CPU object in a private temporary folder (removed whatever
# happens); its bytes.  `flags`: more compiler flags (sde_cpu_object()).
sde_cpu_build <- function(m, files, call, progress, flags = "") {
  t0 <- proc.time()[["elapsed"]]
  sde_compile_note(m, "C compiler", progress)
  tmp <- tempfile("sde-build")
  dir.create(tmp, mode = "0700")
  on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
  for (f in names(files)) writeLines(files[[f]], file.path(tmp, f), sep = "")
  so <- paste0("sde_model", .Platform$dynlib.ext)
  cflags <- trimws(paste(sde_cc()$extra, flags))
  env <- c("PKG_CPPFLAGS=-I.", if (nzchar(cflags)) paste0("PKG_CFLAGS=", shQuote(cflags)))
  log <- withr_dir(tmp, suppressWarnings(system2(
    file.path(R.home("bin"), "R"), c("CMD", "SHLIB", "-o", so, "sde_model.c"),
    stdout = TRUE, stderr = TRUE, env = env)))
  out <- file.path(tmp, so)
  if (!file.exists(out)) sde_compile_error(m, paste(log, collapse = "\n"), "C compiler", call)
  bytes <- readBin(out, "raw", file.size(out))
  dt <- proc.time()[["elapsed"]] - t0
  .sp_sde$compiles <- .sp_sde$compiles + 1L
  .sp_sde$compile_seconds <- .sp_sde$compile_seconds + dt
  sde_compile_note(m, "C compiler", progress, dt)
  bytes
}

# Run `expr` with the working directory `dir`.
withr_dir <- function(dir, expr) {
  old <- setwd(dir)
  on.exit(setwd(old), add = TRUE)
  force(expr)
}

# The NVRTC variant of a model run; `defines`: more of them (a kernel
# source other than sde.cu).
sde_gpu_variant <- function(precision, method, defines = NULL) {
  list(defines = c(if (precision == "single") c("SP_REAL=float", "SP_REAL_SINGLE=1")
                   else "SP_REAL=double",
                   sprintf("SP_SDE_HEUN=%d", as.integer(method == "srk2")),
                   if (isTRUE(sp_tuning("sde_fast_math")) && precision == "single")
                     "SP_SDE_FAST_MATH=1",
                   if (sp_tuning("sde_blocks_per_sm") > 0)
                     sprintf("SP_SDE_MINBLOCKS=%d", as.integer(sp_tuning("sde_blocks_per_sm"))),
                   if (sp_tuning("sde_chunk") != 16)
                     sprintf("SP_SDE_CHUNK=%d", as.integer(sp_tuning("sde_chunk"))),
                   defines),
       fast_math = FALSE)
}

# The headers NVRTC reads from memory for a model: its header and the extra
# ones (a named list of texts).
sde_gpu_headers <- function(m, headers) {
  sde_code_check(m$code, "the model's header")
  for (h in names(headers)) sde_code_check(headers[[h]], h)
  c(sde_model.h = m$code, unlist(headers))
}

# Compile the model's kernels with NVRTC for `arch` (no GPU needed): the
# image, or the model's compile error.  `source`: the kernel file of
# inst/cuda (sde.cu, or ams.cu for sde_ams()), `defines` and `headers` (a
# named list of texts, given to NVRTC in memory) what it needs besides the
# model.
sde_nvrtc_image <- function(m, arch, precision = "single", method = "srk2", cubin = TRUE,
                            call = NULL, source = "sde.cu", defines = NULL,
                            headers = list(), progress = FALSE) {
  v <- sde_gpu_variant(precision, method, defines)
  opts <- nvrtc_options(arch, v, FALSE)
  t0 <- proc.time()[["elapsed"]]
  sde_compile_note(m, "NVRTC", progress)
  res <- nvrtc_compile(file.path(cuda_source_dir(), source), opts, cubin,
                       headers = sde_gpu_headers(m, headers))
  dt <- proc.time()[["elapsed"]] - t0
  .sp_sde$compile_seconds <- .sp_sde$compile_seconds + dt
  if (!res$ok) sde_compile_error(m, res$log, "NVRTC", call)
  .sp_sde$compiles <- .sp_sde$compiles + 1L
  sde_compile_note(m, "NVRTC", progress, dt)
  res$image
}

# Load the model's module on `devices` (compiling or reading the cache);
# returns the module key.  `source`, `defines`, `headers`: as for
# sde_nvrtc_image().
sde_gpu_load <- function(m, devices, precision, method, call = NULL, source = "sde.cu",
                         defines = NULL, headers = list(), progress = FALSE) {
  v <- sde_gpu_variant(precision, method, defines)
  hdr <- sde_gpu_headers(m, headers)
  what <- sp_sha256(c("sde-gpu-1", cuda_source_hash(), source, variant_id(v),
                               names(hdr), unname(hdr),
                               as.character(utils::packageVersion("statphysgpu"))))
  key <- paste0("sde|", what)
  info <- NULL
  for (dev in devices) {
    if (.Call(C_sp_r_gpu_module_loaded, dev, key)) next
    if (is.null(info)) info <- gpu_devices(free = FALSE)
    target <- gpu_target(info$compute_capability[info$id == dev])
    fkey <- sp_sha256(c(what, target$arch, if (target$cubin) "cubin" else "ptx",
                                 .Call(C_sp_r_gpu_status)$nvrtc_version))
    path <- file.path(sde_cache_dir(), sprintf("%s-%s-%s.%s", sub("\\.cu$", "", source),
                                               target$arch, substr(fkey, 1, 32),
                                               if (target$cubin) "cubin" else "ptx"))
    image <- cache_read(path, fkey)
    if (is.null(image)) {
      release <- cache_lock(path, fkey)
      if (is.null(release)) {
        image <- cache_read(path, fkey)
      } else {
        image <- tryCatch({
          img <- sde_nvrtc_image(m, target$arch, precision, method, target$cubin, call,
                                 source = source, defines = defines, headers = headers,
                                 progress = progress)
          cache_write(path, fkey, img)
          img
        }, finally = release())
      }
    }
    .Call(C_sp_r_gpu_module_load, dev, key, image)
  }
  key
}

# Counters of this session (benchmarks): compilations and their seconds.
sde_compile_stats <- function() {
  list(compiles = .sp_sde$compiles, compile_seconds = .sp_sde$compile_seconds)
}
