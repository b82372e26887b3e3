# The run frame every simulator shares (escape_times(), switching_currents(),
# philox_*(), and the engines to come): the checks common to all simulators,
# the seed, the first_* bounds of chunks, result-size and memory checks with
# the size in the message, backend and device resolution, the kernel for the
# GPU, the .Call with progress bar and interrupts, and the standard
# attributes of the result with the interrupted-run warning.
#
# A simulator is three calls around its own physics:
#
#   fr <- sim_frame(call, n = n, first = first_replica, seed = seed, ...)
#   res <- sim_run(fr, "<model>", <job fields by name>, kernel = "<kernel>",
#                  variant = ...)
#   out <- <assemble the result from res>
#   sim_result(out, fr, res, class = ..., unfinished = ...)
#
# Every model is a descriptor (src/models/) run by the one generic entry
# (src/r_model.c), which returns the model's outputs by name and `run` =
# c(seconds, rounds, interrupted) (src/r_run.c).

# Bytes of memory the machine can still give (Linux), Inf where unknown: the
# MemAvailable of /proc/meminfo, or less where the process has an
# address-space limit (ulimit -v, RLIMIT_AS: its soft limit less the
# process's VmSize). The files are arguments for the tests.
available_memory <- function(meminfo = "/proc/meminfo", limits = "/proc/self/limits",
                             status = "/proc/self/status") {
  avail <- Inf
  if (file.exists(meminfo)) {
    l <- grep("^MemAvailable:", readLines(meminfo, warn = FALSE), value = TRUE)
    if (length(l)) avail <- as.numeric(gsub("[^0-9]", "", l[1])) * 1024
  }
  if (file.exists(limits) && file.exists(status)) {
    l <- grep("^Max address space", readLines(limits, warn = FALSE), value = TRUE)
    soft <- if (length(l)) strsplit(trimws(sub("^Max address space", "", l[1])), " +")[[1]][1]
    if (length(soft) && grepl("^[0-9]+$", soft)) {
      v <- grep("^VmSize:", readLines(status, warn = FALSE), value = TRUE)
      used <- if (length(v)) as.numeric(gsub("[^0-9]", "", v[1])) * 1024 else 0
      avail <- min(avail, max(0, as.numeric(soft) - used))
    }
  }
  avail
}

fmt_bytes <- function(b) {
  if (b >= 2^30) sprintf("%.1f GiB", b / 2^30) else sprintf("%.1f MiB", b / 2^20)
}

# 2^40 rather than 1099511627776 in messages.
fmt_pow2 <- function(x) {
  k <- log2(x)
  if (k == round(k) && k > 10) sprintf("2^%d", k) else fmt_num(x)
}

fmt_count <- function(x) format(x, big.mark = ",", scientific = FALSE, trim = TRUE)

# Checks and plan of a run:
#   n          replicas per group (condition), named `n_name` in messages;
#   first      number of the first replica of this call (chunks), named
#              `first_name`; replicas first .. first + n - 1 must fit in
#              `max_replicas` (the stream layout of sp_streams.h);
#   groups     conditions (rows = groups x n results);
#   row_bytes  memory of one result row, for the memory check;
#   precisions the precisions the engine offers (the first is the default;
#              NULL with precision = NULL when there is no choice);
#   auto_threshold  rows from which backend = "auto" takes the GPU.
# Returns list(call, n, first, seed (c(lo, hi)), precision, progress, rows,
# plan (backend, devices)).
sim_frame <- function(call, n, first = 1, seed = NULL, backend = "auto",
                      devices = NULL, precision = NULL, precisions = NULL, progress,
                      groups = 1, row_bytes = 8, auto_threshold = 1e4,
                      n_name = "replicas", first_name = "first_replica",
                      max_replicas = 2^40) {
  n <- check_count(n, n_name, min = 1, call = call)
  if (!is.null(precisions)) { # NULL: the engine has no precision choice
    precision <- check_precision(precision, precisions, call = call)
  }
  progress <- check_flag(progress, "progress", call = call)
  first <- check_whole(first, first_name, lo = 1, hi = max_replicas, call = call)
  if (first - 1 + n > max_replicas) {
    sp_abort(sprintf("`%s + %s - 1` must not pass %s (replicas per condition).",
                     first_name, n_name, fmt_pow2(max_replicas)), call = call)
  }
  if (is.null(seed) && first > 1) {
    # a chunk with a seed of its own would not hold the one-call replicas
    sp_abort(sprintf(paste0(
      "`seed` is NULL but `%s` is %s: chunks combine only when they share one ",
      "seed, and with `seed = NULL` this call would draw a seed of its own. ",
      "Pass the seed shared by the chunks, the same `seed` in every call (a ",
      "result's attribute `seed_hex` is the seed it ran with)."),
      first_name, fmt_count(first)), call = call)
  }
  seed <- resolve_seed(seed, call = call)
  rows <- groups * n
  if (rows > .Machine$integer.max) {
    sp_abort(sprintf(paste0(
      "the result would have %s rows (%s = %s x %s condition%s); a data ",
      "frame holds at most 2^31 - 1. Split the job with `%s` ",
      "(chunks combine exactly) or use fewer conditions."),
      fmt_count(rows), n_name, fmt_count(n), fmt_count(groups),
      if (groups == 1) "" else "s", first_name), call = call)
  }
  need <- rows * row_bytes
  avail <- available_memory()
  if (need > avail) {
    sp_abort(sprintf(paste0(
      "the result would need about %s of memory (%s rows), more than the %s ",
      "available; split the job with `%s`."),
      fmt_bytes(need), fmt_count(rows), fmt_bytes(avail), first_name), call = call)
  }
  plan <- resolve_backend(backend, devices, work = rows,
                          auto_threshold = auto_threshold, call = call)
  list(call = call, n = n, first = first, seed = seed, precision = precision,
       progress = progress, rows = rows, plan = plan)
}

# Every combination of the parameters of a sweep (a named list of vectors),
# in expand.grid order (the first varies fastest), with a condition number;
# at most 2^24 conditions (the stream layout of sp_streams.h).
sim_grid <- function(args, call) {
  ncond <- prod(lengths(args))
  if (ncond > 2^24) {
    sp_abort(sprintf("the parameter grid has %s conditions; at most 2^24 are allowed.",
                     fmt_count(ncond)), call = call)
  }
  g <- expand.grid(args, KEEP.OUT.ATTRS = FALSE)
  cbind(condition = seq_len(nrow(g)), g)
}

# Run an engine: loads its GPU kernel variant (its defines replaced by
# `defines` when given) when the plan is the GPU, then
# runs the model called `entry` (a descriptor of src/models/) through the one
# generic entry, its job the named arguments in `...` (or the list `job`),
# read by name into the model's struct; the result is the model's outputs by
# name and `run` (seconds, rounds, interrupted).  cli (whose C API draws the
# progress bar) is imported by the package, so its namespace is loaded.
#
# The interrupt rule holds whenever the user presses Ctrl-C: from the .Call
# until the simulator (the function `envir` belongs to) returns, R's
# interrupts are suspended; the engine's check between rounds is the only
# place a Ctrl-C is taken (it stops the run, whose partial result is then
# assembled and returned, flagged), and one that comes after the engine's
# last check is cleared when the simulator returns, with a warning: the
# result is complete.  Before the .Call (argument checks, kernel compilation)
# a Ctrl-C interrupts as anywhere in R: nothing has run yet.
sim_run <- function(frame, entry, ..., job = list(...), kernel = NULL, variant = "default",
                    envir = parent.frame(), defines = NULL) {
  if (!is.character(entry)) stop("internal error: sim_run() runs a model of the registry, by name")
  key <- ""
  if (frame$plan$backend == "gpu") {
    if (is.null(kernel)) stop("internal error: a GPU run needs a kernel")
    key <- gpu_kernel_load(kernel, frame$plan$devices, variant = variant, defines = defines)
  }
  sim_hold_interrupts(frame$call, envir)
  res <- .Call(C_sp_r_model_run, entry, job, key, as.integer(frame$plan$devices), frame$progress)
  .sp_last_run$run <- res$run
  res
}

# The run information (seconds, rounds, interrupted, and on the GPU the
# set-up and collect seconds around the rounds) of the last sim_run() of
# the session: bench/he4-fixed.R reads where a call's fixed cost goes.
.sp_last_run <- new.env(parent = emptyenv())
sp_last_run <- function() .sp_last_run$run

# Suspend interrupts until the function whose frame is `envir` exits (an
# on.exit registered there, as withr::defer() does).  The release function
# itself, not its name, goes into the exit expression: `envir` need not see
# the package's namespace.
sim_hold_interrupts <- function(call, envir) {
  old <- .Call(C_sp_r_interrupts_hold, TRUE)
  release <- bquote(.(sim_release_interrupts)(.(old), quote(.(call))))
  do.call(base::on.exit, list(release, add = TRUE, after = FALSE), envir = envir)
  invisible(old)
}

sim_release_interrupts <- function(old, call) {
  if (.Call(C_sp_r_interrupts_release, old)) {
    sp_warn(paste0("Ctrl-C came after the run had finished; the result is ",
                   "complete and was returned."),
            call = call, class = "statphysgpu_late_interrupt")
  }
  invisible()
}

# Where a run ran, in words.
run_devices <- function(plan) {
  if (plan$backend == "gpu") {
    d <- gpu_devices(free = FALSE)
    paste0(d$name[match(plan$devices, d$id)], " (", plan$devices, ")")
  } else {
    sprintf("CPU, %d thread%s", sp_threads(), if (sp_threads() == 1) "" else "s")
  }
}

# The standard attributes of a result, and the warning of the interrupt rule
# (partial results are valid and flagged, never an error): `unfinished` says
# what the engine did with the unfinished work, for the warning.
sim_result <- function(out, frame, res, class = NULL, unfinished = NULL) {
  run <- res$run
  interrupted <- isTRUE(run[["interrupted"]] == 1)
  attr(out, "seed") <- u64_to_double(frame$seed)
  attr(out, "seed_hex") <- u64_to_hex(frame$seed)
  attr(out, "backend") <- frame$plan$backend
  attr(out, "devices") <- run_devices(frame$plan)
  attr(out, "precision") <- frame$precision
  attr(out, "seconds") <- run[["seconds"]]
  attr(out, "interrupted") <- interrupted
  if (!is.null(class)) class(out) <- class
  if (interrupted) {
    sp_warn(paste0("interrupted: ", unfinished %||% "the result is partial", "."),
            call = frame$call, class = "statphysgpu_interrupted")
  }
  out
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# A data frame of a named list of equal-length columns, with compact row
# names, as data.frame() makes it but without its checks and copies: the
# columns (an engine's result vectors, millions of rows) are used as they are.
new_df <- function(cols) {
  n <- if (length(cols)) length(cols[[1]]) else 0L
  structure(cols, class = "data.frame", row.names = .set_row_names(n))
}

# The rows of each condition 1..ncond of a per-replica table, from its
# condition column: a list with, for condition c, NULL when every row is
# condition c's (use the columns as they are), else the row numbers
# (integer(0) for none).  Rows sorted by condition (as every simulator and
# rbind() method leaves them) give contiguous ranges, found in one pass.
condition_rows <- function(cond, ncond) {
  m <- length(cond)
  out <- vector("list", ncond)
  if (m > 0 && !anyNA(cond) && !is.unsorted(cond)) {
    cnt <- tabulate(cond, ncond)
    ends <- cumsum(cnt)
    for (c in seq_len(ncond)) {
      if (cnt[c] == m) out[c] <- list(NULL)
      else out[[c]] <- if (cnt[c] == 0) integer() else seq.int(ends[c] - cnt[c] + 1L, ends[c])
    }
    return(out)
  }
  idx <- split(seq_len(m), factor(cond, levels = seq_len(ncond)))
  for (c in seq_len(ncond)) out[[c]] <- unname(idx[[c]])
  out
}
