# The trial displacement against t sigma^2 (issue 34 item 3): at N = 512
# on the GPU, walkers equilibrated at the tuned acceptance (0.45), then
# continued at fixed displacements f times the tuned one, each run from the
# last one's walkers (any displacement keeps the same distribution, so no
# run needs a new equilibration; each run draws fresh numbers).  For each f
# and measure_every: acceptance, engine seconds, standard error of E/N from
# the walkers' means and t sigma^2 over the engine.  The _usum kernel's
# rejected move costs about 37 instructions a partner and an accepted one
# about 79 (RESULTS, helium), so a smaller acceptance is cheaper a sweep;
# this measures whether it decorrelates enough to pay.  Prints device,
# commit and date.
#   SP_COMMIT=<commit> Rscript bench/he4-step.R [walkers per SM, default 64] [f,f,...] [me,me]
#   (SP_N=<atoms>: another N than 512; the displacement is tuned to 0.45
#   first, acceptance = 0.45, so that f = 1 is the earlier default)
bench_dir <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
args <- commandArgs(TRUE)
per_sm <- if (length(args) >= 1) as.integer(args[1]) else 64L
fs <- if (length(args) >= 2) as.numeric(strsplit(args[2], ",")[[1]]) else c(1, 1.25, 1.5, 1.75, 2)
mes <- if (length(args) >= 3) as.integer(strsplit(args[3], ",")[[1]]) else c(1L, 2L, 4L)
d <- gpu_first()
dev <- d$name[1]
w <- per_sm * d$multiprocessors[1]
n <- as.integer(Sys.getenv("SP_N", "512"))
invisible(he4_vmc(64, replicas = 8, blocks = 1, block_sweeps = 2, equilibration = 0, seed = 1,
                  backend = "gpu", progress = FALSE, displacement = 0.6)) # compile / load
x <- he4_vmc(n, replicas = w, blocks = 1, block_sweeps = 4, equilibration = 100, seed = 3,
             backend = "gpu", progress = FALSE, acceptance = 0.45)
s0 <- mean(attr(x, "state")$displacement)
add(sprintf("N = %d: tuned displacement (acceptance 0.45), %d walkers", n, w), s0, "A")
tab <- NULL
for (me in mes) {
  for (f in fs) {
    x <- he4_vmc(n, blocks = 20, block_sweeps = 20, measure_every = me, equilibration = 0,
                 init = x, displacement = f * s0, backend = "gpu", progress = FALSE)
    secs <- attr(x, "seconds")
    se <- sd(vapply(split(x$energy, x$replica), mean, 0)) / sqrt(w)
    acc <- mean(x$acceptance)
    tab <- rbind(tab, data.frame(me = me, f = f, acc = acc, secs = secs, se_mK = 1e3 * se,
                                 e = mean(x$energy), ts2 = secs * (1e3 * se)^2))
    tag <- sprintf("N = %d, %d walkers, 400 sweeps, measure_every = %d, displacement %.2f x tuned",
                   n, w, me, f)
    add(sprintf("%s: acceptance", tag), acc, "")
    add(sprintf("%s: engine seconds", tag), secs, "s")
    add(sprintf("%s: standard error of E/N", tag), 1e3 * se, "mK")
    add(sprintf("%s: t sigma^2 over the engine", tag), secs * (1e3 * se)^2, "s mK^2")
  }
}
print(tab, digits = 4)
bench_print(brief = TRUE)
