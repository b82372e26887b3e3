# Load-time set-up.

.onLoad <- function(libname, pkgname) {
  threads_follow_allocation()
  invisible()
}

# The default thread count follows the cores this job was given, where
# parallelly (Suggests) can tell: parallelly::availableCores() reads cgroups
# CPU quotas and sets, Slurm's (and other schedulers') allocation, the
# option `mc.cores`, R CMD check's core limit and the worker count of a
# future.  The compiled default (the processors, limited by
# OMP_THREAD_LIMIT and OMP_NUM_THREADS; src/core/sp_threads.c) is lowered to
# it, never raised.  STATPHYSGPU_NUM_THREADS, when set, is the user's count
# and is kept; so is the compiled default when parallelly is absent or fails.
# `available` (a function of no arguments returning a count) is for tests.
# Returns the count now in effect, invisibly.
threads_follow_allocation <- function(available = NULL) {
  now <- .Call(C_sp_r_threads_get)
  if (nzchar(Sys.getenv("STATPHYSGPU_NUM_THREADS"))) return(invisible(now))
  if (is.null(available)) {
    if (!requireNamespace("parallelly", quietly = TRUE)) return(invisible(now))
    available <- function() parallelly::availableCores()
  }
  n <- tryCatch(suppressWarnings(as.integer(available())[1]), error = function(e) NA_integer_)
  if (is.na(n) || n < 1 || n >= now) return(invisible(now))
  .Call(C_sp_r_threads_set, n)
  invisible(n)
}
