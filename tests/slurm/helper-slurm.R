# Set-up for the tests of tests/slurm: they run against the one-node Slurm
# cluster that tests/slurm/cluster.sh (make test-slurm) starts, never under
# R CMD check.  Every future below is one Slurm job, made from the package's
# template (slurm_template()) by future.batchtools.

library(future)

slurm_work <- Sys.getenv("STATPHYSGPU_SLURM_WORK")
if (!nzchar(slurm_work) || !nzchar(Sys.getenv("SLURM_CONF"))) {
  stop("tests/slurm runs on the cluster of tests/slurm/cluster.sh: use `make test-slurm`")
}
# batchtools lists jobs with squeue --user=$USER (cluster.sh sets it too)
if (!nzchar(Sys.getenv("USER"))) Sys.setenv(USER = Sys.info()[["user"]])

# the registries (job scripts, logs, results) go to the cluster's folder,
# not to .future/ in the checkout
options(future.cache.path = file.path(slurm_work, "future"),
        future.wait.interval = 0.2, # poll squeue every 0.2 s, not every second
        future.delete = TRUE,
        # no clean-up of registries at garbage collection: it would report
        # the failed futures of the tests again (the folder goes at the end)
        future.finalize = FALSE)

# A job's resources: one core, a little memory, two minutes.
slurm_resources <- list(walltime = 120, memory = 500, ncpus = 1)
# The plan: every future a Slurm job made from the package's template.
# scheduler.latency: batchtools sleeps this long after each submission
# (default 1 s a job); sbatch returns once the controller has the job, so a
# short wait is enough.  fs.latency: the wait for result files; on one
# machine they are there when the job ends.  (future 1.31 warns that it
# does not know these two arguments, but hands them to batchtools, which
# uses them: the warning is muffled.)
slurm_plan <- function(resources = slurm_resources) {
  withCallingHandlers(
    plan(future.batchtools::batchtools_slurm, template = slurm_template(),
         resources = resources, scheduler.latency = 0.1, fs.latency = 10),
    warning = function(w) {
      if (grepl("unknown future arguments", conditionMessage(w))) invokeRestart("muffleWarning")
    })
}
slurm_plan()
# Futures made in `expr` have these resources instead (a future takes its
# resources from the plan, not from an argument of future()).
with_resources <- function(resources, expr) {
  old <- slurm_plan(utils::modifyList(slurm_resources, resources))
  on.exit(plan(old))
  expr
}

# The whole calls in this session use one thread, as each job does (one
# core: the template sets STATPHYSGPU_NUM_THREADS), so that even the
# `devices` attribute ("CPU, 1 thread") is the same.
sp_threads(1)

# --- the calls, written for the names of this version and of main ----------
# main renames the count and first index of he4_vmc() (walkers,
# first_walker) and xorsat_qg() (runs, first_run) to replicas and
# first_replica, and escape_times()'s step h to dt; the old names stay as
# deprecated aliases.  The calls use the new names where the function has
# them.
chunk_args <- function(fun, count, first, old) {
  if ("first_replica" %in% names(formals(fun))) {
    a <- list(count, first)
    names(a) <- c(if ("replicas" %in% names(formals(fun))) "replicas" else "n", "first_replica")
    a
  } else {
    setNames(list(count, first), old)
  }
}
step_arg <- function(fun, value) {
  setNames(list(value), if ("dt" %in% names(formals(fun))) "dt" else "h")
}

run_escape <- function(first, m, ...) {
  do.call(statphysgpu::escape_times, c(
    chunk_args(statphysgpu::escape_times, m, first, c("n", "first_replica")),
    utils::modifyList(list(gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.2, t_max = 200,
                           seed = 42, backend = "cpu"), list(...)),
    step_arg(statphysgpu::escape_times, 0.02)))
}
run_vmc <- function(first, m) {
  do.call(statphysgpu::he4_vmc, c(
    list(32),
    chunk_args(statphysgpu::he4_vmc, m, first, c("walkers", "first_walker")),
    list(blocks = 3, block_sweeps = 3, equilibration = 6, seed = 3, backend = "cpu")))
}
run_xorsat <- function(first, m, instance) {
  do.call(statphysgpu::xorsat_qg, c(
    list(instance),
    chunk_args(statphysgpu::xorsat_qg, m, first, c("runs", "first_run")),
    list(clones = 32, seed = 4, backend = "cpu")))
}

# A result without what measures time, not the physics: the engine's
# seconds; the issued steps of escape_times() (lanes kept busy, which
# depends on how replicas share the threads; the useful steps are kept);
# xorsat_qg()'s pace, measured in each job, and the seconds column it
# converts sweeps into.
without_timing <- function(x) {
  attr(x, "seconds") <- NULL
  if (!is.null(attr(x, "steps"))) attr(x, "steps") <- attr(x, "steps")["useful"]
  if (inherits(x, "xorsat_tts")) {
    attr(x, "pace") <- NULL
    attr(x, "seconds_per_sweep") <- NULL
    x$seconds <- NULL
  }
  x
}

# Slurm's record of a job (scontrol show job), as a named character vector:
# JobState, Reason, ...  Finished jobs stay there for MinJobAge (600 s).
slurm_job <- function(id) {
  out <- system2("scontrol", c("show", "job", "-o", id), stdout = TRUE, stderr = TRUE)
  kv <- regmatches(out, gregexpr("[A-Za-z:/]+=[^ ]*", out))[[1]]
  setNames(sub("^[^=]*=", "", kv), sub("=.*", "", kv))
}

# The Slurm job id of a future (batchtools keeps it in the future's registry).
slurm_job_id <- function(f) {
  reg <- f$config$reg
  tab <- batchtools::getJobTable(ids = f$config$jobid, reg = reg)
  as.character(tab$batch.id)
}

# Wait (at most `timeout` s) until Slurm says the job is in `state`.
wait_for_state <- function(id, state, timeout = 60) {
  t0 <- Sys.time()
  repeat {
    s <- slurm_job(id)[["JobState"]]
    if (identical(s, state)) return(TRUE)
    if (difftime(Sys.time(), t0, units = "secs") > timeout) return(FALSE)
    Sys.sleep(0.2)
  }
}
