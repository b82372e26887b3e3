# Session 18: the declared escape_times() front-end's result assembly, before
# (R/escape-declared.R of commit 51a4725, given as a file) against the installed
# one, in one session: the time outside the engine's `seconds`, medians of 7, at
# 2^20 quick escapes on the CPU; the built-in beside.
#   git show 51a4725:R/escape-declared.R > /tmp/old-escdecl.R
#   Rscript bench/s18-assemble-ab.R /tmp/old-escdecl.R

library(statphysgpu)
ns <- asNamespace("statphysgpu")
options(statphysgpu.escape_engine = "declared")
new <- ns$escape_declared_assemble
e <- new.env(parent = ns); sys.source(commandArgs(TRUE)[1], envir = e)
old <- e$escape_declared_assemble
f <- function() escape_times(2^20, gamma = 0.95, V0 = 1, beta = 0.2, theta = 3, dt = 0.01, t_max = 1e9, seed = 1, backend = "cpu", progress = FALSE, precision = "single", method = "srk2")
x <- f()
res <- list(old = c(), new = c())
for (i in 1:7) for (w in c("old", "new")) {
  assignInNamespace("escape_declared_assemble", if (w == "old") old else new, "statphysgpu")
  t0 <- proc.time()[["elapsed"]]; y <- f(); s <- proc.time()[["elapsed"]] - t0
  res[[w]] <- c(res[[w]], s - attr(y, "seconds"))
  if (w == "new") stopifnot(identical(as.data.frame(y), as.data.frame(x0)))
  if (w == "old") x0 <- y
}
options(statphysgpu.escape_engine = "builtin"); b <- c()
for (i in 1:7) { t0 <- proc.time()[["elapsed"]]; y <- f(); b <- c(b, proc.time()[["elapsed"]] - t0 - attr(y, "seconds")) }
cat(sprintf("outside the engine, median of 7: declared old %.3f new %.3f, builtin %.3f\n", median(res$old), median(res$new), median(b)))
