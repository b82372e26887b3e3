# Same-machine comparison of two builds of the helium VMC engine (issue 23:
# bench/whole-call.R's he4_vmc case measured 8.72e5 walker-sweeps/s on
# 2026-11-25 before he4_vmc's sweeps ran in one launch a round, d6c843b, and
# 8.27e5 after, on two H100 machines; is the loss the code or the host?).
#
#   SP_LIB=<library holding the build> SP_LABEL=<name> Rscript bench/he4-ab.R
#
# The whole-call case exactly (N = 512, walkers "auto", 40 blocks of 20
# sweeps, displacement 0.3, mixed, seed 1), after a warm-up call, SP_AB_REPS
# times (default 3): the engine's rate (walkers x sweeps / `seconds`) and
# the whole call's.  Run the builds alternately (bench/device.sh stage
# ab:he4-ab.R:<commit>:<k>); one row a measurement.
bench_dir <- local({ # this script's folder, where ab-common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
ab_reps <- 3
source(file.path(bench_dir, "ab-common.R"))
one <- function(blocks) {
  w <- system.time(x <- he4_vmc(512, replicas = "auto", blocks = blocks, block_sweeps = 20,
                                equilibration = 0, displacement = 0.3, seed = 1,
                                backend = "gpu", progress = FALSE))[["elapsed"]]
  work <- length(attr(x, "state")$replica) * 20 * blocks
  c(engine = work / attr(x, "seconds"), whole = work / w)
}
invisible(one(1))
for (i in seq_len(reps)) {
  r <- one(40)
  ab_row("he4 rep %d: engine %.4g, whole call %.4g walker-sweeps/s", i, r[["engine"]],
         r[["whole"]])
}
