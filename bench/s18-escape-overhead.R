# Session 18: where escape_times()'s whole call goes outside the engine on
# the GPU, built-in against declared (bench/escape-declared.R's SRK2 case:
# 2^20 paths, the washboard V0 = 1, beta = 0.2, gamma = 0.5, dt = 0.01,
# Delta U / theta = 6): the engine's set-up and collection (sp_last_run())
# and an R profile of the declared call.  Rscript bench/s18-escape-overhead.R [gpu|cpu]
suppressPackageStartupMessages(library(statphysgpu))
be <- commandArgs(TRUE)[1]
if (is.na(be)) be <- "gpu"
options(statphysgpu.cache_dir = tempfile("escovh"))
dev <- if (be == "gpu") gpu_devices()$name[1] else sprintf("cpu, %d threads", sp_threads())
cat(sprintf("# s18-escape-overhead.R %s: %s, commit %s, %s\n", be, dev,
            Sys.getenv("SP_COMMIT", "?"), format(Sys.time())))
n <- if (be == "gpu") 2^20 else 2^11
du <- statphysgpu::barrier_height(0.5, 1)
f <- function() escape_times(n, gamma = 0.5, V0 = 1, beta = 0.2, theta = du / 6, dt = 0.01,
                             t_max = 1e9, method = "srk2", seed = 1, backend = be,
                             precision = "single", progress = FALSE)
for (i in 1:3) for (e in c("builtin", "declared")) {
  options(statphysgpu.escape_engine = e)
  t0 <- proc.time()[["elapsed"]]
  x <- f()
  s <- proc.time()[["elapsed"]] - t0
  r <- statphysgpu:::sp_last_run()
  if (i > 1) cat(sprintf("%-8s whole %.3f engine %.3f setup %.3f collect %.3f R %.3f\n", e, s,
                         r[["seconds"]], r[["setup"]], r[["collect"]],
                         s - r[["seconds"]] - r[["setup"]] - r[["collect"]]))
}
options(statphysgpu.escape_engine = "declared")
Rprof(pf <- tempfile(), interval = 0.002)
x <- f()
Rprof(NULL)
p <- summaryRprof(pf)$by.total
print(head(p[p$total.time > 0.004, c("total.time", "self.time")], 25))
