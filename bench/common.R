# What the benchmark scripts in bench/ share.  Each script starts with
#
#   bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
#     f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
#     if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
#   })
#   source(file.path(bench_dir, "common.R"))
#
# so that `Rscript bench/X.R` works from any working directory (without
# --file, as with source() in an R session, from the repository's root).
# This attaches statphysgpu and defines:
#
#   commit, date   SP_COMMIT, else git's short HEAD of bench_dir's checkout,
#                  else "unknown"; the start time
#   HBM            the H100's measured HBM bandwidth
#   bench_arg()    a command-line argument, with a default
#   gpu_first()    the usable GPUs (first row: the device timed), or stop
#   cpu_device()   the CPU's model and the engine's threads, as CPU rows name it
#   rows, add()    the table of results, a row at a time; `echo` (set after
#                  sourcing) the line a row writes to stderr
#   bench_print()  the table at the end
#   cpu_scaling()  the CPU engine's rows of driven.R and escape.R
suppressPackageStartupMessages(library(statphysgpu))

commit <- Sys.getenv("SP_COMMIT")
if (!nzchar(commit)) {
  commit <- tryCatch(suppressWarnings(system2("git", c("-C", shQuote(bench_dir), "rev-parse",
                                                       "--short", "HEAD"),
                                              stdout = TRUE, stderr = FALSE))[1],
                     error = function(e) NA)
  if (is.na(commit)) commit <- "unknown"
}
date <- format(Sys.time(), "%Y-%m-%d %H:%M %Z")
HBM <- 2.84e12 # bytes/s, REFERENCES.md section 8

# the i-th trailing command-line argument, default where there is none
bench_arg <- function(default, i = 1) {
  a <- commandArgs(trailingOnly = TRUE)[i]
  if (is.na(a)) default else a
}

# gpu_devices(...), stopping the script where no GPU is usable
gpu_first <- function(...) {
  d <- gpu_devices(...)
  if (nrow(d) == 0) stop("no usable GPU: ", attr(d, "reason"), call. = FALSE)
  d
}

cpu_device <- function() {
  sprintf("%s, %d threads",
          sub("^\\s+", "", system("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2",
                                  intern = TRUE)), sp_threads())
}

# The table: a row per add(metric, value, unit, device, note), the value to
# four significant digits, the device by default the script's `dev`.
# echo: the sprintf() format of the line each row writes to stderr as it
# comes, given metric, value and unit (the note follows); NULL: none.
rows <- list()
echo <- "%-72s %12.4g %s"
add <- function(metric, value, unit, device = dev, note = "") {
  rows[[length(rows) + 1]] <<- data.frame(metric = metric, value = signif(value, 4), unit = unit,
                                          device = device, note = note, commit = commit,
                                          date = date)
  if (!is.null(echo)) message(sprintf(echo, metric, value, unit), note)
}

# Prints the table.  No title: columns metric, value, unit, device, commit
# and date.  A title: a line "<title> benchmarks | commit | day | devices",
# then metric, value, unit, device and note.  brief = TRUE: metric, value
# and unit, then a line "device <dev>, commit <commit>, <date>".
bench_print <- function(title = NULL, brief = FALSE) {
  res <- do.call(rbind, rows)
  cols <- c("metric", "value", "unit", if (!brief) "device",
            if (!brief && is.null(title)) c("commit", "date"), if (!is.null(title)) "note")
  if (!is.null(title))
    cat(sprintf("%s benchmarks | commit %s | %s | %s\n", title, commit,
                format(Sys.time(), "%Y-%m-%d"), paste(unique(res$device), collapse = "; ")))
  print(if (is.null(res)) res else res[, cols], row.names = FALSE, right = FALSE)
  if (brief) cat(sprintf("device %s, commit %s, %s\n", dev, commit, date))
  invisible(res)
}

# The CPU engine on one thread and on all (the same work per thread), for
# each precision and method: rate(k, precision, method) is the rate of a run
# with k threads' worth of work; base_rate that of base R on one core.
cpu_scaling <- function(rate, methods, base_rate, device) {
  nthreads <- sp_threads()
  for (p in c("single", "double")) for (m in methods) {
    old <- sp_threads(1)
    r1 <- rate(1, p, m)
    sp_threads(old)
    rn <- rate(nthreads, p, m)
    add(sprintf("CPU engine, %s %s, 1 thread", p, m), r1, "steps/s", device)
    add(sprintf("CPU engine, %s %s, %d threads", p, m, nthreads), rn, "steps/s", device)
    add(sprintf("CPU engine, %s %s: scaling efficiency over %d threads", p, m, nthreads),
        rn / (nthreads * r1), "", device)
    add(sprintf("CPU engine, %s %s, 1 thread / base R", p, m), r1 / base_rate, "x", device)
  }
}

# The tilted washboard of escape_times() written as an sde_model() (issue
# 24's example; bench/sde.R and bench/sde-variants.R): theta at the barrier
# over `ratio`.
bench_sde_washboard <- function(V0, beta, gamma, ratio) {
  sde_model(
    drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
    noise = list(v = ~ sqrt(2 * beta * theta)),
    params = c(beta = beta, V0 = V0, gamma = gamma, theta = barrier_height(gamma, V0) / ratio),
    stop = ~ x > pi - asin(gamma),
    observe = list(energy = ~ v^2 / 2 - V0 * (cos(x) + gamma * x)),
    name = "washboard")
}
