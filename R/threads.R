#' Number of CPU threads used by statphysgpu
#'
#' The CPU engines run on a package-level number of OpenMP threads, in the
#' manner of data.table: it starts at the number of logical processors,
#' limited by the environment variables `OMP_THREAD_LIMIT`,
#' `OMP_NUM_THREADS` and `STATPHYSGPU_NUM_THREADS` (the last, when set,
#' replaces the processor count), and to two under `R CMD check --as-cran`.
#' A forked child process (for example under [parallel::mclapply()]) runs on
#' one thread. The count never changes the numbers a simulation returns, only
#' how fast it runs.
#'
#' @param n `NULL` to query, or a whole number \eqn{\ge 1} to set the count.
#'   Values above the OpenMP thread limit are reduced to it.
#' @return `sp_threads()` returns the current count; `sp_threads(n)` sets it
#'   and returns the previous count invisibly. Without OpenMP the count is
#'   always 1 (setting it warns).
#' @examples
#' old <- sp_threads(1)
#' sp_threads()
#' sp_threads(old)
#' @export
sp_threads <- function(n = NULL) {
  if (is.null(n)) return(.Call(C_sp_r_threads_get))
  n <- check_whole(n, "n", lo = 1, hi = .Machine$integer.max)
  info <- threads_info()
  if (!info$openmp && n > 1) {
    sp_warn("statphysgpu was built without OpenMP; the CPU backend runs on one thread.")
  }
  invisible(.Call(C_sp_r_threads_set, as.integer(n)))
}

threads_info <- function() {
  x <- .Call(C_sp_r_threads_info)
  list(threads = x[1], openmp = x[2] == 1L, procs = x[3], limit = x[4])
}
