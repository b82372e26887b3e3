# A user at a terminal pressing Ctrl-C (run by `make test`):
#
#   Rscript .ci/terminal.R LIBRARY LOG
#
# Starts `R --vanilla --interactive` in a real terminal (a tmux pane, so R
# reads a tty, cli draws its progress bar dynamically and Ctrl-C is a real
# SIGINT from the terminal driver), and in that one session runs every
# simulating engine several times, each time pressing Ctrl-C (tmux send-keys
# C-c) at a different moment after the progress bar first shows; some trials
# press it twice, as impatient users do.  The package's interrupt rule: the
# call returns its partial result, flagged `interrupted`, with a warning --
# never an R error, never a lost result.  A trial passes when, back at the
# prompt, `x` exists, is flagged interrupted, prints, the warning was shown,
# and nothing in the pane says "Error".  Writes one line a trial to LOG
# ("TRIAL <engine>/<k> ok" or "... FAILED: why") and the totals last; exit
# status 1 when a trial failed.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: Rscript .ci/terminal.R LIBRARY LOG")
lib <- normalizePath(args[1], mustWork = TRUE)
log <- args[2]
report <- file.path(tempdir(), "trials.txt") # written by the R in the pane
cat("", file = log)
say <- function(...) {
  line <- paste0(...)
  cat(line, "\n", sep = "")
  cat(line, "\n", sep = "", file = log, append = TRUE)
}

if (!nzchar(Sys.which("tmux"))) {
  say("TRIAL terminal FAILED: tmux is not installed (Debian package tmux)")
  say("terminal session: 0 passed, 1 failed")
  quit(status = 1)
}

sock <- paste0("statphysgpu-", Sys.getpid())
tmux <- function(..., stdout = FALSE) {
  system2("tmux", c("-L", sock, "-f", "/dev/null", ...), stdout = stdout, stderr = FALSE)
}
send <- function(text) {
  tmux("send-keys", "-t", "t", "-l", shQuote(text))
  tmux("send-keys", "-t", "t", "Enter")
}
pane <- function() {
  suppressWarnings(tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t", stdout = TRUE))
}
# The pane's text after the last line starting with `marker`.
since <- function(marker) {
  p <- pane()
  k <- which(startsWith(p, marker))
  if (length(k)) p[-seq_len(k[length(k)])] else character()
}
wait_for <- function(cond, timeout) {
  t0 <- Sys.time()
  while (difftime(Sys.time(), t0, units = "secs") < timeout) {
    if (isTRUE(cond())) return(TRUE)
    Sys.sleep(0.05)
  }
  FALSE
}

env <- c(R_LIBS = paste(c(lib, .libPaths()), collapse = .Platform$path.sep),
         R_LIBS_USER = "NULL", R_LIBS_SITE = "NULL", LANG = "C.UTF-8")
tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "45",
     paste("-e", shQuote(paste0(names(env), "=", env)), collapse = " "),
     shQuote(paste(file.path(R.home("bin"), "R"), "--vanilla --interactive --quiet")))
# the pane's R goes with the script, whatever its end (quit() or an error):
# on.exit() at a script's top level does nothing, and left the pane's R
# running after every CI run
cleanup <- new.env()
reg.finalizer(cleanup, function(e) tmux("kill-server"), onexit = TRUE)

# The session's set-up: the bar shows from the first tick (the default shows
# it after 2 s), and .rep() writes what the user would see at the prompt.
send(paste0(
  'suppressPackageStartupMessages(library(statphysgpu)); ',
  'options(cli.progress_show_after = 0); ',
  'inst <- read_xorsat(system.file("extdata", "3r3x", "3r3x_2body_n128_s1.txt", ',
  'package = "statphysgpu")); ',
  'ou <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), stop = ~ x > 100, name = "ou"); ',
  'mb <- sde_model(drift = list(theta = ~ K * (mean(sin(theta)) * cos(theta) - ',
  'mean(cos(theta)) * sin(theta))), noise = list(theta = ~ sqrt(2 * D)), params = c(K = 2, D = 1), ',
  'observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-mf"); ',
  'invisible(sde_run(ou, 2, init = list(x = 0), dt = 0.1, t_max = 1, backend = "cpu", progress = FALSE)); ',
  'invisible(sde_run(mb, 2, n = 8, init = list(theta = 0), dt = 0.1, t_max = 0.2, backend = "cpu", progress = FALSE)); ',
  '.rep <- function(id) { ex <- exists("x", envir = globalenv()); ',
  'it <- ex && isTRUE(attr(x, "interrupted")); ',
  'pr <- ex && !inherits(try(capture.output(print(x)), silent = TRUE), "try-error"); ',
  'cat(sprintf("%s exists=%s interrupted=%s prints=%s\\n", id, ex, it, pr), ',
  'file = "', report, '", append = TRUE) }; cat("SETUP", "DONE\\n")'))
if (!wait_for(function() any(grepl("SETUP DONE", pane(), fixed = TRUE)), 60)) {
  p <- pane(); p <- p[nzchar(p)]
  say("TRIAL terminal FAILED: the R session did not start: ", paste(tail(p, 8), collapse = " | "))
  say("terminal session: 0 passed, 1 failed")
  quit(status = 1)
}

# Each call runs for minutes uninterrupted on two cores (checked: every one
# is still running 3 s in); all are on the CPU, so CI can run them.  The
# user models (sde, many_body) were compiled at set-up.
calls <- c(
  escape = 'escape_times(1e5, 0.5, 1, 1, 0.05, 0.05, 1e6, seed = 1, backend = "cpu")',
  switching = 'switching_currents(1e4, ramp = 1e-8, V0 = 1, beta = 0.5, theta = 0.05, h = 0.02, seed = 1, backend = "cpu")',
  driven = 'driven_brownian(1e4, a = 1, omega = 1, f = 0.1, gamma = 1, D0 = 0.1, periods = 1e5, seed = 1, backend = "cpu")',
  kuramoto = 'kuramoto(1e4, K = 2, T = 0.1, dt = 0.01, steps = 1e6, seed = 1, backend = "cpu")',
  he4_vmc = 'he4_vmc(n_atoms = 64, walkers = 4, blocks = 1e4, seed = 1, backend = "cpu")',
  xorsat_qg = 'xorsat_qg(inst, runs = 1e4, seed = 1, backend = "cpu")',
  lrmd = 'lrmd("ring", n = 4000, dt = 0.01, steps = 1e5, seed = 1, backend = "cpu")',
  sde = 'sde_run(ou, 1e5, init = list(x = 0), dt = 0.01, t_max = 1e7, seed = 1, backend = "cpu")',
  many_body = 'sde_run(mb, 16, n = 4000, init = list(theta = ~ runif(-pi, pi)), dt = 0.01, t_max = 1e5, seed = 1, backend = "cpu")')
# Seconds from the bar's first drawing to the Ctrl-C, and whether it is
# pressed twice (0.15 s apart).
times <- list(c(0, 0), c(0.4, 1), c(1.3, 0))

passed <- 0
failed <- 0
for (eng in names(calls)) {
  for (k in seq_along(times)) {
    id <- sprintf("%s/%d", eng, k)
    marker <- paste0("@@ ", id)
    send(sprintf('rm(list = intersect("x", ls())); cat("\\n%s\\n")', marker))
    wait_for(function() length(since(marker)) > 0 || any(startsWith(pane(), marker)), 10)
    send(paste("x <-", calls[[eng]]))
    # The bar: cli's "NN%" (or the count of a bar without a total).
    bar <- wait_for(function() any(grepl("[0-9]+%|ETA", since(marker))), 30)
    Sys.sleep(times[[k]][1])
    tmux("send-keys", "-t", "t", "C-c")
    if (times[[k]][2] > 0) {
      Sys.sleep(0.15)
      tmux("send-keys", "-t", "t", "C-c")
    }
    # Back at the prompt? .rep() answers only when the call has returned.
    Sys.sleep(0.3)
    send(sprintf('.rep("%s")', id))
    back <- wait_for(function() {
      file.exists(report) && any(startsWith(readLines(report, warn = FALSE), paste0(id, " ")))
    }, 60)
    why <- character()
    if (!bar) why <- c(why, "no progress bar was seen")
    if (!back) {
      why <- c(why, "the session did not come back to the prompt within 60 s")
      tmux("send-keys", "-t", "t", "C-c") # unstick it for the next trial
      Sys.sleep(2)
    } else {
      r <- grep(paste0("^", id, " "), readLines(report, warn = FALSE), value = TRUE)
      r <- r[length(r)]
      if (!grepl("exists=TRUE", r)) why <- c(why, "the result was lost (x does not exist)")
      if (!grepl("interrupted=TRUE", r)) why <- c(why, "x is not flagged interrupted")
      if (!grepl("prints=TRUE", r)) why <- c(why, "print(x) failed")
    }
    txt <- since(marker)
    if (!any(grepl("interrupted", txt))) why <- c(why, "no 'interrupted' warning was shown")
    err <- grep("Error", txt, value = TRUE)
    if (length(err)) why <- c(why, paste("the pane shows:", paste(err, collapse = " | ")))
    if (length(why)) {
      failed <- failed + 1
      say(sprintf("TRIAL %s (Ctrl-C %.1f s after the bar%s) FAILED: %s", id, times[[k]][1],
                  if (times[[k]][2] > 0) ", twice" else "", paste(why, collapse = "; ")))
      say("  pane: ", paste(tail(txt, 8), collapse = "\n  pane: "))
    } else {
      passed <- passed + 1
      say(sprintf("TRIAL %s (Ctrl-C %.1f s after the bar%s) ok", id, times[[k]][1],
                  if (times[[k]][2] > 0) ", twice" else ""))
    }
  }
}
say(sprintf("terminal session: %d passed, %d failed", passed, failed))
quit(status = as.integer(failed > 0))
