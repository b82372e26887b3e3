# Chunks run as Slurm jobs equal the one-machine result (run by
# `make test-slurm`: tests/slurm/cluster.sh starts the cluster).

# Submitted first, so that the scheduler's time limit (whole minutes, checked
# every 30 s: it strikes 60 to 90 s after the start) runs out while the other
# tests run.  A sleep stands in for a chunk that runs too long: it waits
# without taking a core from the other jobs.
overtime <- with_resources(list(walltime = 60), future({
  Sys.sleep(600)
  run_escape(1, 10)
}, label = "overtime"))
overtime_id <- slurm_job_id(overtime)

test_that("the template makes valid job scripts: time, memory, CPUs, one GPU when asked", {
  tmpl <- batchtools:::cfReadBrewTemplate(slurm_template(), "##")
  render <- function(resources) {
    out <- tempfile(fileext = ".sh")
    env <- list2env(list(job.name = "chunk-1", log.file = file.path(slurm_work, "x.log"),
                         uri = file.path(slurm_work, "x.rds"), resources = resources,
                         array.jobs = FALSE, jobs = data.frame(job.id = 1L)))
    brew::brew(text = tmpl, output = out, envir = env)
    out
  }
  s <- render(list(walltime = 61, memory = 700.2, ncpus = 2, partition = "test"))
  l <- readLines(s)
  expect_true(all(c("#SBATCH --time=2", "#SBATCH --mem=701", "#SBATCH --cpus-per-task=2",
                    "#SBATCH --partition=test", "export CUDA_VISIBLE_DEVICES=",
                    "export R_PARALLELLY_FORK_ENABLE=false") %in% l))
  expect_false(any(grepl("--gres", l)))
  # sbatch itself accepts it on this cluster (--test-only: checked, not run)
  r <- suppressWarnings(system2("sbatch", c("--test-only", s), stdout = TRUE, stderr = TRUE))
  expect_null(attr(r, "status"), info = paste(r, collapse = "\n"))
  expect_match(paste(r, collapse = "\n"), "to start at")
  g <- readLines(render(list(ngpus = 1)))
  expect_true("#SBATCH --gres=gpu:1" %in% g)
  expect_true("#SBATCH --time=60" %in% g) # default walltime: an hour
  expect_false(any(grepl("^export CUDA_VISIBLE_DEVICES", g))) # Slurm's value stands
  expect_false(any(grepl("--mem", g)))
})

test_that("escape_times() in 4 Slurm jobs (future_Map) combines to the one-call result", {
  ch <- replica_chunks(40, chunks = 4)
  whole <- run_escape(1, 40)
  parts <- future.apply::future_Map(run_escape, ch$first_replica, ch$replicas)
  x <- do.call(rbind, parts)
  expect_identical(as.data.frame(x), as.data.frame(whole))
  expect_identical(without_timing(x), without_timing(whole))
  expect_identical(attr(x, "devices"), "CPU, 1 thread") # the job's one core
})

test_that("he4_vmc() in 4 Slurm jobs combines to the one-call result", {
  ch <- replica_chunks(8, chunks = 4)
  whole <- run_vmc(1, 8)
  fs <- Map(function(first, m) future(run_vmc(first, m)), ch$first_replica, ch$replicas)
  x <- do.call(rbind, lapply(fs, value))
  expect_identical(as.data.frame(x), as.data.frame(whole))
  expect_identical(attr(x, "state"), attr(whole, "state"))
  expect_identical(without_timing(x), without_timing(whole))
})

test_that("xorsat_qg() in 4 Slurm jobs combines to the one-call result (but its seconds)", {
  inst <- xorsat_random(40, seed = 2)
  ch <- replica_chunks(8, chunks = 4)
  whole <- run_xorsat(1, 8, inst)
  fs <- Map(function(first, m) future(run_xorsat(first, m, inst)), ch$first_replica, ch$replicas)
  x <- do.call(rbind, lapply(fs, value))
  expect_identical(without_timing(x), without_timing(whole))
  expect_identical(attr(x, "solutions"), attr(whole, "solutions"))
  expect_true(all(x$solved)) # 40 spins, 32 clones: every run solves quickly
})

test_that("a chunk killed by scancel is reported as failed; rerun, the combination is identical", {
  ch <- replica_chunks(40, chunks = 4)
  whole <- run_escape(1, 40)
  doomed <- 3
  fs <- Map(function(k, first, m) {
    if (k == doomed) future({ Sys.sleep(300); run_escape(first, m) }, label = "doomed")
    else future(run_escape(first, m))
  }, seq_len(4), ch$first_replica, ch$replicas)
  id <- slurm_job_id(fs[[doomed]])
  expect_true(wait_for_state(id, "RUNNING"))
  expect_identical(system2("scancel", id), 0L)
  # value(), not resolved(): batchtools takes a job for gone only after
  # three polls that miss it, a single poll can miss one moving from
  # pending to running
  err <- tryCatch(value(fs[[doomed]]), error = identity)
  expect_s3_class(err, "FutureError")
  expect_match(conditionMessage(err), "BatchtoolsExpiration")
  expect_match(conditionMessage(err), "CANCELLED")
  expect_identical(slurm_job(id)[["JobState"]], "CANCELLED")
  parts <- lapply(fs[-doomed], value)
  # rerun the failed chunk: same seed, same first replica
  parts <- append(parts, list(value(future(run_escape(ch$first_replica[doomed], ch$replicas[doomed])))),
                  after = doomed - 1)
  x <- do.call(rbind, parts)
  expect_identical(as.data.frame(x), as.data.frame(whole))
  expect_identical(without_timing(x), without_timing(whole))
})

test_that("a job without a GPU request sees no GPU; the package's threads follow its cores", {
  f <- with_resources(list(ncpus = 2), future(list(
    cuda = Sys.getenv("CUDA_VISIBLE_DEVICES", unset = NA),
    threads = statphysgpu::sp_threads(),
    fork = Sys.getenv("R_PARALLELLY_FORK_ENABLE"),
    job = Sys.getenv("SLURM_JOB_ID"))))
  v <- value(f)
  expect_identical(v$cuda, "")
  expect_identical(v$threads, 2L)
  expect_identical(v$fork, "false")
  expect_identical(slurm_job(v$job)[["NumCPUs"]], "2")
})

test_that("a GPU job sees its GPU through CUDA_VISIBLE_DEVICES and runs on it", {
  if (as.integer(Sys.getenv("STATPHYSGPU_SLURM_GPUS", "0")) < 1) {
    skip("no GPU on this node (nvidia-smi lists none)")
  }
  f <- with_resources(list(ngpus = 1), future(list(
    cuda = Sys.getenv("CUDA_VISIBLE_DEVICES", unset = NA),
    x = run_escape(1, 2000, backend = "gpu", precision = "double"))))
  v <- value(f)
  expect_true(nzchar(v$cuda))
  expect_identical(attr(v$x, "backend"), "gpu")
  cpu <- run_escape(1, 2000, precision = "double")
  # CPU and GPU agree path by path to rounding (?escape_times), which can
  # move a crossing by at most one step
  expect_identical(v$x$escaped, cpu$escaped)
  expect_lte(max(abs(v$x$value - cpu$value)), 0.02)
})

test_that("a chunk past its time limit is reported with the scheduler's reason", {
  err <- tryCatch(value(overtime), error = identity)
  expect_s3_class(err, "FutureError")
  expect_match(conditionMessage(err), "BatchtoolsExpiration")
  expect_match(conditionMessage(err), "DUE TO TIME LIMIT")
  job <- slurm_job(overtime_id)
  expect_identical(job[["JobState"]], "TIMEOUT")
  expect_identical(job[["Reason"]], "TimeLimit")
})
