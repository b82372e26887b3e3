# Where a he4_vmc() continuation call's R side goes, call by call (issue 34
# item 3): the profile's calls (bench/he4-profile.sh: N = 512, replicas
# "auto", 10 blocks of 20 sweeps, measure_every = 2), each piece of the R
# side timed with trace() (1 ms resolution), the C side's set-up and
# collect (statphysgpu:::sp_last_run()), and R's garbage collections as
# gcinfo() reports them between the markers of each call.  Prints device,
# commit and date.
#   SP_COMMIT=<commit> Rscript bench/he4-rside.R
suppressPackageStartupMessages(library(statphysgpu))
ns <- asNamespace("statphysgpu")
fns <- c("vmc_check_start", "resolve_backend", "gpu_kernel_load", "sim_frame", "sim_run",
         "vmc_blocks_frame", "vmc_fingerprint", "sim_result", "he4_tail_correction",
         "gpu_devices", "sp_old_attrs")
acc <- new.env()
for (f in fns) {
  local({
    ff <- f
    trace(ff, where = ns, print = FALSE,
          tracer = bquote(assign(.(paste0(ff, ".t0")), proc.time()[[3]], envir = .(acc))),
          exit = bquote(assign(.(ff), get0(.(ff), envir = .(acc), inherits = FALSE, ifnotfound = 0) +
                                 proc.time()[[3]] - get(.(paste0(ff, ".t0")), envir = .(acc)),
                               envir = .(acc))))
  })
}
x0 <- he4_vmc(512, replicas = "auto", blocks = 1, block_sweeps = 4, equilibration = 100,
              seed = 2, backend = "gpu", progress = FALSE)
one <- function() he4_vmc(512, blocks = 10, block_sweeps = 20, measure_every = 2,
                          equilibration = 0, init = x0, backend = "gpu", progress = FALSE)
invisible(one())
gcinfo(TRUE)
for (i in 1:5) {
  message("-- call ", i, " starts")
  for (f in fns) assign(f, 0, envir = acc)
  wall <- system.time(x <- one(), gcFirst = FALSE)[["elapsed"]]
  message("-- call ", i, " ends")
  r <- statphysgpu:::sp_last_run()
  cat(sprintf("call %d: wall %.1f ms, engine %.1f, setup %.1f, collect %.1f\n", i, 1e3 * wall,
              1e3 * attr(x, "seconds"), 1e3 * r[["setup"]], 1e3 * r[["collect"]]))
  cat(paste(sprintf("  %s %.1f ms", fns, 1e3 * vapply(fns, function(f) get(f, envir = acc), 0)), collapse = "\n"), "\n")
}
cat(sprintf("device %s, commit %s, %s\n", gpu_devices()$name[1],
            Sys.getenv("SP_COMMIT", "unknown"), format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
