# Benchmark: a study as chunks on a Slurm cluster (issue 26), against one
# call on this machine.  Runs on the one-node test cluster of
# tests/slurm/cluster.sh:
#
#   sh tests/slurm/cluster.sh R Rscript bench/slurm.R
#
# (root; it starts the cluster, runs this script instead of the tests and
# stops it).  On a real cluster: SLURM_CONF as there, and
# SP_SLURM_RESOURCES="list(partition = 'x')" for more resources.
#
# The study: escape_times() of SP_SLURM_N paths (default 4e5; about 10 s
# on one core), single precision, CPU.  Rows:
#   one call, 1 thread / all threads   system.time() of the call here
#   k chunk jobs (k = 4, 8)            wall time from the first submission
#                                      to the combined result (future_Map()
#                                      over replica_chunks(), one core a
#                                      job), and whether rbind() of the
#                                      chunks is identical to the one call
#   empty job                          wall time of 4 jobs that only load
#                                      the package: the cost of a job
#                                      (submission, start of R, collection)
#   job engine seconds                 the sum of the chunks' engine
#                                      seconds (attr(, "seconds"))
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
library(future)
echo <- "%-60s %10.4g %s"
n <- as.numeric(Sys.getenv("SP_SLURM_N", "4e5"))
work <- Sys.getenv("STATPHYSGPU_SLURM_WORK", tempdir())
if (!nzchar(Sys.getenv("USER"))) Sys.setenv(USER = Sys.info()[["user"]])
options(future.cache.path = file.path(work, "future"), future.wait.interval = 0.2)
res <- utils::modifyList(list(walltime = 600, memory = 1000, ncpus = 1),
                         eval(parse(text = Sys.getenv("SP_SLURM_RESOURCES", "list()"))))
suppressWarnings( # future 1.31 does not know the batchtools arguments (it passes them on)
  plan(future.batchtools::batchtools_slurm, template = slurm_template(), resources = res,
       scheduler.latency = 0.1, fs.latency = 10))
slurm <- sub("^slurm ", "Slurm ", system2("sinfo", "--version", stdout = TRUE))
cpus <- system2("sinfo", c("-h", "-o", "%C"), stdout = TRUE) # allocated/idle/other/total
dev <- sprintf("%s; %s, one node, %s CPUs", sub(", [0-9]+ threads?$", "", cpu_device()),
               slurm, sub(".*/", "", cpus))

# the machine's load when the script starts: on a shared machine the times
# below are as much the neighbours' as the jobs'
add("load average over the last minute, at the start",
    as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]), "")

study <- function(first, m) {
  statphysgpu::escape_times(m, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.2, h = 0.02,
                            t_max = 200, seed = 42, first_replica = first, backend = "cpu")
}
threads <- sp_threads()
old <- sp_threads(1)
t1 <- system.time(whole <- study(1, n))[["elapsed"]]
sp_threads(threads)
tn <- system.time(study(1, n))[["elapsed"]]
add(sprintf("escape_times(%g paths): one call, 1 thread", n), t1, "s")
add(sprintf("escape_times(%g paths): one call, %d threads", n, threads), tn, "s")
for (k in c(4, 8)) {
  ch <- replica_chunks(n, chunks = k)
  t <- system.time({
    parts <- future.apply::future_Map(study, ch$first_replica, ch$n)
    x <- do.call(rbind, parts)
  })[["elapsed"]]
  same <- identical(as.data.frame(x), as.data.frame(whole))
  add(sprintf("%d chunk jobs (1 core each): submission to combined result", k), t, "s",
      note = if (same) "  rbind() identical to the one call" else "  NOT IDENTICAL")
  add(sprintf("%d chunk jobs: engine seconds, summed over the jobs", k),
      sum(vapply(parts, attr, 0, "seconds")), "s")
}
t0 <- system.time(future.apply::future_lapply(1:4, function(i) {
  suppressPackageStartupMessages(requireNamespace("statphysgpu", quietly = TRUE))
  i
}))[["elapsed"]]
add("4 empty jobs (load the package only)", t0, "s")
cat("\n")
bench_print(brief = TRUE)
