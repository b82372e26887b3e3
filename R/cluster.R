#' A Slurm job template for chunks run as cluster jobs
#'
#' The path of the job template shipped with the package,
#' `system.file("templates", "slurm.tmpl", package = "statphysgpu")`, for
#' `future.batchtools::batchtools_slurm()` (or `batchtools`'
#' `makeClusterFunctionsSlurm()`). Each future becomes one Slurm job that
#' runs one R process; [replica_chunks()] lays out the chunks and [rbind()]
#' combines their results into the one-machine result (see
#' `vignette("cluster")`).
#'
#' @section Resources:
#' The `resources` list of the plan (or of `batchtools::submitJobs()`) sets:
#' * `walltime`: seconds a job may run (default 3600). Slurm counts whole
#'   minutes, so it is rounded up to a minute; a job past its limit is
#'   killed by the scheduler and its future fails with an error whose
#'   message ends with the job's log, where Slurm's reason stands ("DUE TO
#'   TIME LIMIT").
#' * `memory`: megabytes for the job (`--mem`; default: the partition's).
#' * `ncpus`: CPU cores (`--cpus-per-task`; default 1). The package's threads
#'   ([sp_threads()]) and OpenMP follow it (`STATPHYSGPU_NUM_THREADS`,
#'   `OMP_NUM_THREADS`).
#' * `ngpus`: GPUs (`--gres=gpu:N`; default 0). One GPU a worker is the
#'   usual choice. Slurm sets `CUDA_VISIBLE_DEVICES` to the job's GPUs and
#'   CUDA numbers them from 0, so `devices = NULL` (the first GPU) is the
#'   job's own GPU; the template leaves that variable as Slurm sets it. A
#'   job that asks for no GPU gets `CUDA_VISIBLE_DEVICES` empty, so that
#'   `backend = "auto"` cannot take a GPU the scheduler gave another job.
#' * `partition`, `account`, `qos`: passed to `sbatch` when given;
#'   `modules`: environment modules loaded (`module load`) before R starts.
#'
#' @section No fork after CUDA:
#' A process that has started CUDA must not fork: the child inherits a copy
#' of the parent's CUDA context that it cannot use, and a kernel launched
#' from it fails or hangs. So the template runs each job as one fresh R
#' process (never a fork of the session that submits), and turns forking
#' off inside it (`R_PARALLELLY_FORK_ENABLE=false`,
#' `R_FUTURE_FORK_ENABLE=false`: futures nested in a job run
#' sequentially, not as `multicore` forks). Use one job per GPU rather than
#' `parallel::mclapply()` or `future::multicore` workers around GPU calls;
#' `future::multisession` workers on one machine are separate processes and
#' safe.
#'
#' @section Known traps:
#' `batchtools` lists a user's jobs with `squeue --user=$USER`: where `USER`
#' is empty (some CI systems and containers) every job looks expired, so
#' set it (`Sys.setenv(USER = ...)`). A job that is cancelled or killed
#' surfaces as an error whose message starts `BatchtoolsExpiration`; ask
#' for `value()` of the futures rather than polling `resolved()`, which can
#' see a job as gone in the moment it moves from pending to running. Load
#' `statphysgpu` in the session that collects the results before calling
#' `as.data.frame()` or `rbind()` on them.
#'
#' @return The path of the template, a string.
#' @seealso [replica_chunks()], `vignette("cluster")`.
#' @examples
#' slurm_template()
#' head(readLines(slurm_template()), 3)
#' \dontrun{
#' # on a Slurm cluster: one GPU a job, 20 chunks
#' future::plan(future.batchtools::batchtools_slurm, template = slurm_template(),
#'              resources = list(walltime = 3600, memory = 4000, ncpus = 4, ngpus = 1))
#' ch <- replica_chunks(1e7, chunks = 20)
#' parts <- future.apply::future_Map(function(first, m) {
#'   escape_times(m, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
#'                t_max = 400, seed = 1, first_replica = first)
#' }, ch$first_replica, ch$replicas)
#' x <- do.call(rbind, parts)
#' }
#' @export
slurm_template <- function() {
  system.file("templates", "slurm.tmpl", package = "statphysgpu", mustWork = TRUE)
}
