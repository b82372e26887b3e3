#' Number of CPU threads used by statphysgpu
#'
#' The CPU engines run on a package-level number of OpenMP threads, in the
#' manner of data.table: it starts at the number of logical processors,
#' limited by the environment variables `OMP_THREAD_LIMIT`,
#' `OMP_NUM_THREADS` and `STATPHYSGPU_NUM_THREADS` (the last, when set,
#' replaces the processor count), and to two under `R CMD check --as-cran`.
#' Where the package parallelly is installed, the default is also at most
#' `parallelly::availableCores()` when the package is loaded: the cores this
#' job was given (cgroups CPU quotas and sets of a container, Slurm's and
#' other schedulers' allocations, the option `mc.cores`, the workers of a
#' future), not the node's; `STATPHYSGPU_NUM_THREADS`, when set, is kept as
#' it is (the way to give a job more threads than that).
#' A forked child process (for example under [parallel::mclapply()]) runs on
#' one thread. The count never changes the numbers a simulation returns, only
#' how fast it runs.
#'
#' @param n `NULL` to query, or a whole number \eqn{\ge 1} to set the count.
#'   Values above the OpenMP thread limit are reduced to it (with a
#'   warning); more threads than logical processors are allowed but warned
#'   about, as they share the processors (oversubscription: the same results,
#'   usually more slowly).
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
  } else if (info$openmp && n > info$limit) {
    sp_warn(sprintf(paste0(
      "sp_threads(%s): the OpenMP thread limit is %d (OMP_THREAD_LIMIT); ",
      "using %d threads."), fmt_num(n), info$limit, info$limit))
  } else if (info$openmp && n > info$procs) {
    sp_warn(sprintf(paste0(
      "sp_threads(%s): this machine has %d logical processor%s; %s threads ",
      "share them (oversubscribed: the same results, usually more slowly)."),
      fmt_num(n), info$procs, if (info$procs == 1) "" else "s", fmt_num(n)))
  }
  invisible(.Call(C_sp_r_threads_set, as.integer(n)))
}

threads_info <- function() {
  x <- .Call(C_sp_r_threads_info)
  list(threads = x[1], openmp = x[2] == 1L, procs = x[3], limit = x[4])
}
