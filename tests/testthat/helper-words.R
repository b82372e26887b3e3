# 32-bit words (as doubles) to 8-digit hex strings.
hex32 <- function(x) sprintf("%08x", as.integer(ifelse(x >= 2^31, x - 2^32, x)))

# Sample skewness and excess kurtosis.
skewness <- function(x) { m <- mean(x); mean((x - m)^3) / mean((x - m)^2)^1.5 }
kurtosis <- function(x) { m <- mean(x); mean((x - m)^4) / mean((x - m)^2)^2 - 3 }

# Run `code` with the package thread count set to n, restoring it after
# (without OpenMP the count stays 1: the code simply runs on one thread).
with_threads <- function(n, code) {
  if (!statphysgpu:::threads_info()$openmp) return(code)
  old <- sp_threads(n)
  on.exit(sp_threads(old))
  code
}

# Sends this R process SIGINT (a Ctrl-C) after `after` seconds, from a
# forked child; collect the child with parallel::mccollect() afterwards.
interrupt_after <- function(after) {
  pid <- Sys.getpid()
  parallel::mcparallel({ Sys.sleep(after); tools::pskill(pid, tools::SIGINT) })
}

# Evaluate `code` without the step-size warnings of the escape engine (for
# tests that use a coarse Euler step on purpose: the warning has its own test).
without_step_warnings <- function(code) {
  withCallingHandlers(code, statphysgpu_step_warning = function(w) invokeRestart("muffleWarning"))
}
