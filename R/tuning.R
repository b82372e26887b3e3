# Tuning options: the knobs of the engines that benchmarks and tests turn
# (kernel variants, the multi-device code on one GPU, launch shapes), never
# the physics.  They are read here and only here, each with its default and
# its check, so that a simulator never reads getOption() itself; ?statphysgpu
# lists them ("Tuning options").
SP_TUNING <- list(
  # name = list(default, check: function(value) TRUE when acceptable, what: the allowed values)
  driven_variant = list("", function(v) is_string(v), "a string (a kernel variant's suffix)"),
  he4_variant = list("_fast_u4_usum", function(v) is_string(v), "a string (a kernel variant's suffix)"),
  # sde_run() of many-body models: one system in k slices on each device, on
  # streams of their own (the multi-device code on one GPU)
  mb_slices = list(1L, function(v) is_whole(v, 1, 64), "a whole number from 1 to 64"),
  # sde_run() of models with positions: the pair terms with cut-offs found
  # through cell lists (FALSE: every pair, tested within the cut-off; the
  # same sums to rounding; tests and benchmarks compare)
  mb_cells = list(TRUE, function(v) isTRUE(v) || isFALSE(v), "TRUE or FALSE"),
  # sde_run() of many-body models on the GPU in mode A (a system a block):
  # elements a thread (0: the plan's choice -- one or two for long pair
  # terms, four otherwise; the same sums to rounding; bench/mb-space.R
  # compares)
  # sde_run() of many-body models on the GPU in mode B: the passes'
  # registers capped for this many blocks of 256 threads an SM (0: no cap;
  # "auto": 6 for pair terms with cut-offs, none otherwise, sde_mb_minb();
  # the same numbers); bench/mb-space.R compares
  mb_blocks_per_sm = list("auto", function(v) identical(v, "auto") || is_whole(v, 0, 8),
                          "\"auto\" or a whole number from 0 to 8"),
  # sde_run() of many-body models on the GPU in mode B: the passes over all
  # pairs (no cell lists) cut a system's sources into chunks, a block each,
  # where it has few target blocks (src/gpu/sp_gpu_mb.c: n alone decides
  # them); FALSE: one chunk, the sums as before chunks bit for bit (the
  # same sums to rounding); tests and benchmarks compare
  mb_pair_chunks = list(TRUE, function(v) isTRUE(v) || isFALSE(v), "TRUE or FALSE"),
  mb_small_ept = list(0L, function(v) is_whole(v, 0, 4) && v != 3, "0, 1, 2 or 4"),
  # lrmd(): HMF systems side by side in one set of launches on one GPU (FALSE:
  # one system a launch, as before, the same numbers bit for bit; "cpu", for
  # tests: the CPU engine takes the same batches, one system after another)
  lrmd_batch = list(TRUE, function(v) isTRUE(v) || isFALSE(v) || identical(v, "cpu"),
                    "TRUE, FALSE or \"cpu\""),
  # escape_rate_ams(), sde_ams(): at most this many steps a round (0: the
  # driver's own budget, aimed at 0.1 s), for tests that pause paths in the
  # middle (the results do not depend on it)
  ams_round_steps = list(0, function(v) is_whole(v, 0, 2^30), "a whole number from 0 to 2^30"),
  xorsat_variant = list("default", function(v) is_string(v), "a kernel variant's name"),
  # driven_brownian(): "builtin" (inst/cuda/driven.cu, sp_driven*.c) or
  # "declared" (R/driven-declared.R: an sde_model() run by sde_run(); issue
  # 50); bench/driven-declared.R compares
  driven_engine = list("builtin", function(v) identical(v, "builtin") || identical(v, "declared"),
                       "\"builtin\" or \"declared\""),
  # escape_rate_ams(): "builtin" (the washboard of ams_washboard.h, sim_run(,
  # "ams")) or "declared" (R/ams-declared.R: an sde_model() run by
  # sde_ams()'s engine; issue 50); bench/ams.R compares
  ams_engine = list("builtin", function(v) identical(v, "builtin") || identical(v, "declared"),
                    "\"builtin\" or \"declared\""),
  # escape_times(), switching_currents(): "builtin" (inst/cuda/escape.cu,
  # sp_escape*.c) or "declared" (R/escape-declared.R: the washboard as an
  # sde_model() run by sde_run(); issue 50); bench/s17-escape.R compares
  escape_engine = list("builtin", function(v) identical(v, "builtin") || identical(v, "declared"),
                       "\"builtin\" or \"declared\""),
  # sde_run(): the hardware sine and cosine (after a reduction by pi) in
  # single-precision GPU kernels, as escape.cu's single variants use for the
  # washboard; FALSE: the CPU's polynomial; bench/sde.R compares
  sde_fast_math = list(TRUE, function(v) isTRUE(v) || isFALSE(v), "TRUE or FALSE"),
  # sde_run(): the passage kernel's registers capped for this many blocks of
  # 128 threads an SM (0: no cap); bench/sde-variants.R compares
  sde_blocks_per_sm = list(0L, function(v) is_whole(v, 0, 16), "a whole number from 0 to 16"),
  # sde_run(): the passage kernel's steps between a lane's checks for a new
  # path (SP_SDE_CHUNK of sde.cu; a multiple of 4; 16 by default, faster
  # than 8 and 32 on an H200); bench/sde-ab.R compares
  sde_chunk = list(16L, function(v) is_whole(v, 4, 64) && v %% 4 == 0,
                   "a multiple of 4 from 4 to 64"),
  # user models: the compiled objects loaded at once for the CPU, at most
  # (the least recently used unloaded past it: R's DLL limit never met)
  sde_max_loaded = list(24L, function(v) is_whole(v, 1, 500), "a whole number from 1 to 500"),
  # sde_run() on the CPU: the model's vector loop over paths (sde_lanes.h;
  # its object compiles once, for one precision, in about 1.6 s on the
  # development machine, less than the object of both precisions a path at
  # a time): "auto" for runs of at least sde_cpu_vector_steps replica-steps
  # (at most; a passage may stop sooner; 2^24, some 0.5 s a path at a time,
  # where the vector loop runs 5-12 times as fast: 2^28 until session 14),
  # TRUE always, FALSE never (a path at a time; the same numbers)
  sde_cpu_vector = list("auto", function(v) isTRUE(v) || isFALSE(v) || identical(v, "auto"),
                        "\"auto\", TRUE or FALSE"),
  sde_cpu_vector_steps = list(2^24, function(v) is.numeric(v) && length(v) == 1 && !is.na(v) &&
                                v >= 0, "a number of steps, 0 or more"),
  # many-body sde_run() on the CPU ("euler", "srk2"): the vector loop over a
  # system's elements (mb_lanes.h; its object compiles in a few seconds,
  # for one precision) under sde_cpu_vector "auto" for runs of at least
  # this many element-steps (elements x systems x steps)
  mb_cpu_vector_steps = list(2^20, function(v) is.numeric(v) && length(v) == 1 && !is.na(v) &&
                               v >= 0, "a number of element-steps, 0 or more"),
  # user models: the size (nodes, a sine or cosine as 30) above which a
  # model's functions and sines are compiled out of line (compile time)
  sde_outline_size = list(400L, function(v) is_whole(v, 0, 1e9), "a whole number"),
  # tests: a GPU id may appear more than once in `devices`, so that an
  # engine's code for several devices (its split of the paths, the
  # collection in the call's order) runs on a machine of one GPU, each
  # "device" its own stream, buffers and counters
  devices_repeat = list(FALSE, function(v) isTRUE(v) || isFALSE(v), "TRUE or FALSE")
)

is_string <- function(v) is.character(v) && length(v) == 1 && !is.na(v)
is_whole <- function(v, lo, hi) {
  is.numeric(v) && length(v) == 1 && !is.na(v) && v >= lo && v <= hi && v == floor(v)
}

# The value of tuning option `name` (option "statphysgpu.<name>"), checked.
sp_tuning <- function(name, call = caller_call()) {
  t <- SP_TUNING[[name]]
  if (is.null(t)) stop("internal error: no tuning option ", name)
  v <- getOption(paste0("statphysgpu.", name), t[[1]])
  if (!t[[2]](v)) {
    sp_abort(sprintf("option statphysgpu.%s must be %s, not %s.", name, t[[3]], describe(v)),
             call = call)
  }
  v
}

# Retired tuning options: those that chose an engine since deleted.  A value
# other than `keep` (the one engine's name) is ignored with a warning of
# class statphysgpu_deprecated, once a session per option (the flag in
# .sp_retired; tests reset it).
SP_TUNING_RETIRED <- list(
  # kuramoto(): the built-in engine was deleted in issue 50
  kuramoto_engine = list(keep = "declared", what = paste0(
    "the built-in Kuramoto engine was removed, and kuramoto() runs on the declared ",
    "many-body engine (the same laws; random streams differ from earlier versions)")),
  # lrmd(): the built-in engine was deleted in issue 50
  lrmd_engine = list(keep = "declared", what = paste0(
    "the built-in lrmd engine was removed, and lrmd() runs on the declared many-body ",
    "engine (the same laws; random streams and the rounding of precision \"mixed\" ",
    "differ from earlier versions)"))
)
.sp_retired <- new.env(parent = emptyenv())

sp_tuning_retired <- function(name, call = caller_call()) {
  t <- SP_TUNING_RETIRED[[name]]
  if (is.null(t)) stop("internal error: no retired tuning option ", name)
  opt <- paste0("statphysgpu.", name)
  v <- getOption(opt)
  if (is.null(v) || identical(v, t$keep) || isTRUE(.sp_retired[[name]])) return(invisible())
  assign(name, TRUE, envir = .sp_retired)
  sp_warn(sprintf("option %s (%s) is ignored: %s. Unset it (options(%s = NULL)).", opt,
                  describe(v), t$what, opt), call = call, class = "statphysgpu_deprecated")
  invisible()
}
