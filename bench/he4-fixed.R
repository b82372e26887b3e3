# Where a he4_vmc() continuation call's fixed cost goes (issue 34 item 3):
# the bench's walkers (N = 512, replicas "auto") continued for one
# measured sweep pair (blocks = 1, block_sweeps = 2), so that the call is
# nearly all fixed cost: its wall time against the engine's `seconds`, then
# an R profile (Rprof, 1 ms) of ten such calls and timings of the pieces
# of the R side that scale with the state (the state check, the result's
# frame).  Prints device, commit and date.
#   SP_COMMIT=<commit> Rscript bench/he4-fixed.R
suppressPackageStartupMessages(library(statphysgpu))
x0 <- he4_vmc(512, replicas = "auto", blocks = 1, block_sweeps = 4, equilibration = 20,
              seed = 2, backend = "gpu", progress = FALSE)
tiny <- function() he4_vmc(512, blocks = 1, block_sweeps = 2, measure_every = 2,
                           equilibration = 0, init = x0, backend = "gpu", progress = FALSE)
invisible(tiny())
for (i in 1:5) {
  w <- system.time(x <- tiny())[["elapsed"]]
  cat(sprintf("tiny call %d: wall %.4f s, engine %.4f s, fixed %.4f s\n", i, w,
              attr(x, "seconds"), w - attr(x, "seconds")))
}
Rprof("/tmp/he4-fixed.Rprof", interval = 0.001)
for (i in 1:10) x <- tiny()
Rprof(NULL)
s <- summaryRprof("/tmp/he4-fixed.Rprof")
print(head(s$by.total, 40))
print(head(s$by.self, 20))
st <- attr(x0, "state")
L <- attr(x0, "params")$L
tm <- function(expr) system.time(for (i in 1:10) force(expr))[["elapsed"]] / 10
cat(sprintf("state check (vmc_check_start): %.4f s\n",
            system.time(for (i in 1:10) statphysgpu:::vmc_check_start(
              x0, 512, 0.02186, 3.07, "symmetrized", NULL, "auto",
              data.frame(density = 0.02186, b = 3.07), quote(f())))[["elapsed"]] / 10))
cat(sprintf("device %s, commit %s, %s\n", gpu_devices()$name[1],
            Sys.getenv("SP_COMMIT", "unknown"), format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
