# The value of `code` (an lrmd() call) with attribute "jobs": the number of
# systems of each part lrmd() sent its engine (lrmd_declared_sim(): 1, one
# system a call; more: systems side by side, lrmd()'s batches).
with_lrmd_jobs <- function(code) {
  jobs <- new.env()
  jobs$sizes <- integer()
  suppressMessages(trace(statphysgpu:::lrmd_declared_sim, print = FALSE,
                         where = asNamespace("statphysgpu"),
                         tracer = bquote(assign("sizes", c(.(jobs)$sizes, length(states)),
                                                envir = .(jobs)))))
  on.exit(suppressMessages(untrace(statphysgpu:::lrmd_declared_sim,
                                   where = asNamespace("statphysgpu"))))
  x <- code
  attr(x, "jobs") <- jobs$sizes
  x
}
