# Fed to `R --vanilla --interactive` by `make test`: what a user types in a
# console, where interactive() is TRUE and progress bars are on by default.
# An interactive R goes on after an error, so the last line prints
# "interactive session: ok" only when every result before it exists and is
# right.
stopifnot(interactive(), !"cli" %in% loadedNamespaces())
suppressPackageStartupMessages(library(statphysgpu))
x <- escape_times(20, 0.5, 1, 1, 0.2, 0.05, 100, seed = 1, backend = "cpu")
s <- switching_currents(20, ramp = 1e-3, V0 = 1, beta = 0.5, theta = 0.2,
                        h = 0.02, seed = 1, backend = "cpu")
z <- philox_normal(100, seed = 1, backend = "cpu")
grDevices::pdf(NULL)
ex <- tryCatch({
  example("escape_times", package = "statphysgpu", ask = FALSE, echo = FALSE,
          local = new.env())
  TRUE
}, error = function(e) FALSE)
cat(if (ex && nrow(x) == 20 && nrow(s) == 20 && length(z) == 100) "interactive" else "FAILED", "session:", "ok\n")
