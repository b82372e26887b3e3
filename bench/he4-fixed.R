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
# the C side's set-up (streams, allocations, uploads) and collect (downloads,
# release) around the engine's rounds (statphysgpu:::sp_last_run(), absent
# before 2026-11-29), and the rest: the R side (checks, the result, R's
# allocation of the state it hands back and the garbage collections that
# triggers; gc.time() is no measure of them here: on the GPU host it gave
# more seconds of collection than the call's wall time)
last <- function(k) {
  r <- tryCatch(statphysgpu:::sp_last_run(), error = function(e) NULL)
  if (is.null(r) || !k %in% names(r)) NA_real_ else r[[k]]
}
for (i in 1:8) {
  w <- system.time(x <- tiny())[["elapsed"]]
  e <- attr(x, "seconds")
  cat(sprintf(paste0("tiny call %d: wall %.4f s, engine %.4f s, fixed %.4f s: C set-up %.4f, ",
                     "C collect %.4f, R side %.4f\n"), i, w, e, w - e,
              last("setup"), last("collect"), w - e - last("setup") - last("collect")))
}
# the same fixed cost in a call of the profile's length (bench/he4-profile.sh)
for (i in 1:3) {
  w <- system.time(x <- he4_vmc(512, blocks = 10, block_sweeps = 20, measure_every = 2,
                                equilibration = 0, init = x0, backend = "gpu",
                                progress = FALSE))[["elapsed"]]
  e <- attr(x, "seconds")
  cat(sprintf(paste0("200-sweep call %d: wall %.4f s, engine %.4f s, fixed %.4f s: C set-up %.4f, ",
                     "C collect %.4f, R side %.4f\n"), i, w, e, w - e,
              last("setup"), last("collect"), w - e - last("setup") - last("collect")))
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
cat(sprintf("state check (vmc_check_start) of an unchanged result: %.4f s\n",
            system.time(for (i in 1:10) statphysgpu:::vmc_check_start(
              x0, 512, 0.02186, 3.07, "symmetrized", NULL, "auto",
              data.frame(density = 0.02186, b = 3.07), quote(f())))[["elapsed"]] / 10))
cat(sprintf("device %s, commit %s, %s\n", gpu_devices()$name[1],
            Sys.getenv("SP_COMMIT", "unknown"), format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
