# Inputs that drive each engine to a non-finite state, for test-nonfinite.R
# and test-nonfinite-gpu.R.  Where the R functions' checks refuse such input
# (the escape engine's damping step), the engine is
# called through its .Call entry with a hand-made job.

nf_u64 <- function(x) c(x %% 2^32, x %/% 2^32)

# The kernel key and device list of a run (the last two arguments but one of
# every engine's .Call entry).
nf_plan <- function(backend, kernel, variant) {
  if (backend == "cpu") return(list(key = "", devices = integer()))
  list(key = statphysgpu:::gpu_kernel_load(kernel, 0L, variant = variant), devices = 0L)
}

# The escape engine's condition table (escape_args.h), one row per element of
# beta (h, theta, V0 likewise recycled); start at rest at the bottom of the
# well, threshold at the saddle.
nf_escape_conds <- function(beta, h, theta = 1, V0 = 1, g0 = 0.5, dg = 0, kmax = 100) {
  k <- max(length(beta), length(h))
  rep_k <- function(x) as.double(rep_len(x, k))
  list(g0 = rep_k(g0), dg = rep_k(dg), V0 = rep_k(V0), beta = rep_k(beta), h = rep_k(h),
       sigma = rep_k(sqrt(2 * beta * theta * h)), phi0 = rep_k(asin(g0)),
       th = rep_k(pi - asin(g0)), vcens = rep_k(kmax * h), kmax = rep_k(kmax),
       stream0 = (seq_len(k) - 1) * 2^40, start_table = rep_k(-1), start_lo = rep_k(0),
       start_step = rep_k(0), start_vsd = rep_k(0))
}

nf_escape <- function(conds, n = 4, method = "euler", precision = "double", first = 1,
                      backend = "cpu") {
  ramp <- any(conds$dg != 0)
  pl <- nf_plan(backend, "escape",
                paste(precision, method, if (ramp) "ramp" else "fixed", sep = "_"))
  job <- list(conds = conds, tables = double(), n = n, replica0 = nf_u64(first - 1),
              seed = nf_u64(1), heun = method == "srk2", single = precision == "single",
              resume = statphysgpu:::ESCAPE_NO_RESUME)
  .Call(statphysgpu:::C_sp_r_model_run, "escape", job, pl$key, pl$devices, FALSE)
}

# The message of the error `code` raises (of class statphysgpu_not_finite).
nf_message <- function(code) {
  e <- tryCatch({
    code
    NULL
  }, statphysgpu_not_finite = function(e) e)
  if (is.null(e)) stop("no statphysgpu_not_finite error")
  conditionMessage(e)
}
