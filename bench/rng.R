# Benchmark: Philox normals on the GPU (issue "GPU runtime").
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/rng.R
#
# Prints one table (metric, value, unit, device, commit, date).  Compared with
# cuRAND's curand_normal4 on an H100: 7.0e11 normals/s (REFERENCES.md s. 8).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
dev <- gpu_first()$name[1]
echo <- NULL
elapsed <- function(expr) {
  t0 <- proc.time()[["elapsed"]]
  force(expr)
  proc.time()[["elapsed"]] - t0
}

# ---- start-up: cold compile, then a new session reading the cache -----------
cache <- tempfile("spcache")
dir.create(cache)
options(statphysgpu.cache_dir = cache)
add("first GPU call, cold (NVRTC compile + load)",
    elapsed(philox_uint32(4, seed = 1, backend = "gpu")), "s")
add("NVRTC compile time of rng.cu", statphysgpu:::gpu_kernel_stats()$compile_seconds, "s")
script <- tempfile(fileext = ".R")
writeLines(c(sprintf("options(statphysgpu.cache_dir = '%s')", cache),
             "suppressPackageStartupMessages(library(statphysgpu))",
             "t0 <- proc.time()[['elapsed']]",
             "x <- philox_uint32(4, seed = 1, backend = 'gpu')",
             "cat('CACHED', proc.time()[['elapsed']] - t0,",
             "    statphysgpu:::gpu_kernel_stats()$compiles, '\\n')"), script)
out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE)
cached <- as.numeric(strsplit(grep("^CACHED", out, value = TRUE), " ")[[1]][2:3])
if (cached[2] != 0) stop("the second session compiled again")
add("first GPU call, new session with cache (context + load)", cached[1], "s")

# ---- normals generated and reduced on the device ------------------------------
rate <- function(precision, n, reps = 7) {
  statphysgpu:::gpu_normal_moments(2^24, seed = 1, precision = precision) # warm
  k <- vapply(seq_len(reps), function(i) {
    statphysgpu:::gpu_normal_moments(n, seed = i, precision = precision)$kernel_seconds
  }, 0)
  n / stats::median(k)
}
add("normals/s on device, single (median of 7, kernel time)", rate("single", 2^37), "1/s")
add("normals/s on device, double (median of 7, kernel time)", rate("double", 2^34), "1/s")
add("fraction of cuRAND curand_normal4 rate 7.0e11/s (single)",
    rows[[length(rows) - 1]]$value / 7.0e11, "")
m <- statphysgpu:::gpu_normal_moments(2^37, seed = 2026, precision = "single")
add("z-score of the mean of 2^37 single normals", m$mean / sqrt(1 / m$n), "")
add("z-score of the variance of 2^37 single normals", (m$var - 1) / sqrt(2 / m$n), "")

# ---- draws returned to R (device -> host copy included) -----------------------
n <- 2^28
invisible(philox_normal(2^20, seed = 1, backend = "gpu"))
t <- stats::median(vapply(1:3, function(i) elapsed(philox_normal(n, seed = i, backend = "gpu")), 0))
add("philox_normal(2^28, backend = 'gpu') into R", n / t, "1/s")
t <- stats::median(vapply(1:3, function(i) elapsed(philox_normal(2^26, seed = i, backend = "cpu")), 0))
add(sprintf("philox_normal(2^26, backend = 'cpu'), %d threads", sp_threads()), 2^26 / t, "1/s")

bench_print()
