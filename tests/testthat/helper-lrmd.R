# The value of `code` (an lrmd() call) with attribute "jobs": the number of
# systems of each job lrmd() sent its engine (1: one system a job; more:
# systems side by side, lrmd()'s batches).
with_lrmd_jobs <- function(code) {
  jobs <- new.env()
  jobs$sizes <- integer()
  suppressMessages(trace(statphysgpu:::lrmd_job, print = FALSE, where = asNamespace("statphysgpu"),
                         exit = bquote(assign("sizes", c(.(jobs)$sizes, returnValue()$systems),
                                              envir = .(jobs)))))
  on.exit(suppressMessages(untrace(statphysgpu:::lrmd_job, where = asNamespace("statphysgpu"))))
  x <- code
  attr(x, "jobs") <- jobs$sizes
  x
}
