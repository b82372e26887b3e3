# Sum the testthat totals of `make test`'s two runs and print them as the
# last line "N passed, N failed, N skipped".  Exit status 1 when R CMD check
# reported an ERROR or WARNING (or no status at all), or when a test failed.
#   Rscript .ci/totals.R CHECK_STATUS ROUT_OF_CHECK LOG_OF_SECOND_RUN [LOG_OF_INTERACTIVE_SESSION [LOG_OF_TERMINAL_SESSION]]
# The interactive session (.ci/interactive.R) counts as one test: passed when
# its log says "interactive session: ok".  Each trial of the terminal
# session (.ci/terminal.R: Ctrl-C at a real terminal) counts as one test; a
# log without its totals line counts as one failure.
args <- commandArgs(trailingOnly = TRUE)
status <- args[1]
totals <- function(f) {
  none <- c(FAIL = 1, SKIP = 0, PASS = 0) # a run that left no totals failed
  if (is.na(f) || !file.exists(f)) return(none)
  pat <- "\\[ FAIL [0-9]+ \\| WARN [0-9]+ \\| SKIP [0-9]+ \\| PASS [0-9]+ \\]"
  l <- grep(pat, readLines(f, warn = FALSE), value = TRUE)
  if (!length(l)) return(none)
  l <- l[length(l)]
  get <- function(k) as.numeric(sub(paste0(".*", k, " ([0-9]+).*"), "\\1", l))
  c(FAIL = get("FAIL"), SKIP = get("SKIP"), PASS = get("PASS"))
}
a <- totals(args[2])
b <- totals(args[3])
s <- a + b
if (length(args) >= 4) {
  ok <- file.exists(args[4]) &&
    any(grepl("interactive session: ok", readLines(args[4], warn = FALSE), fixed = TRUE))
  cat(sprintf("make: interactive session: %s\n", if (ok) "passed" else "FAILED"))
  s <- s + c(FAIL = !ok, SKIP = 0, PASS = ok)
}
if (length(args) >= 5) {
  l <- if (file.exists(args[5])) readLines(args[5], warn = FALSE) else character()
  tr <- grep("^TRIAL ", l, value = TRUE)
  ok <- sum(grepl(" ok$", tr))
  bad <- sum(grepl(" FAILED", tr)) + !any(grepl("^terminal session: ", l))
  cat(sprintf("make: terminal session (Ctrl-C): %d passed, %d failed\n", ok, bad))
  s <- s + c(FAIL = bad, SKIP = 0, PASS = ok)
}
cat(sprintf("make: check build: %d passed, %d failed, %d skipped\n",
            a[["PASS"]], a[["FAIL"]], a[["SKIP"]]))
cat(sprintf("make: build without OpenMP and CUDA: %d passed, %d failed, %d skipped\n",
            b[["PASS"]], b[["FAIL"]], b[["SKIP"]]))
check_bad <- !nzchar(status) || status == "unknown" || grepl("ERROR|WARNING", status)
if (check_bad) cat("make: R CMD check status:", status, "\n")
cat(sprintf("%d passed, %d failed, %d skipped\n", s[["PASS"]], s[["FAIL"]], s[["SKIP"]]))
quit(status = as.integer(check_bad || s[["FAIL"]] > 0))
