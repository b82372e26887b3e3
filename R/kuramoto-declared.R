# kuramoto() on the declared many-body engine (issue 50): the SDE
#   dx_i = (omega_i + (K / n) sum_j A_ij sin(x_j - x_i)) / beta dt + sqrt(2 theta / beta) dW_i,
# declared with sde_model() and run by sde_run()'s engine (R/sde-mb-run.R):
# the mean field through mean(), all pairs through pairs(), a matrix A as
# the graph of edges(); SRK2 (stochastic Heun, the same normal in both
# stages) or Euler-Maruyama with dW = sqrt(dt) z.  In single precision the
# phases are declared periodic (kept in [-pi, pi] after every stage); in
# double they are not reduced.  The records are the order parameter r =
# |n^-1 sum_j exp(i x_j)| and psi = atan2(S, C), the histograms the
# engine's (sde_run(hist = )), x modulo 2 pi in double.
#
# The only engine of kuramoto() since the built-in one (inst/cuda/kuramoto.cu,
# src/core/sp_kuramoto*) was deleted (issue 50; its option
# statphysgpu.kuramoto_engine is ignored with a warning, once a session:
# sp_tuning_retired(), R/tuning.R).
# kuramoto() checks every argument and makes the frame, the records and the
# attributes; kuramoto_declared_run() returns rec (2 x records x systems: r,
# psi; NA where not reached), theta (the final phases, n x systems), hist,
# steps_done and run (seconds, interrupted).  The random numbers are the
# declared engine's streams (sp_streams.h): the paths differ from those of
# the versions before it, the laws are the same.

# The model of a coupling ("mean_field", "pairs", "matrix"), periodic or
# not, with one frequency for all (the parameter omega) or one per element
# (w): made once a session.
.kuramoto_models <- new.env(parent = emptyenv())

kuramoto_declared_model <- function(coupling, periodic, per_element) {
  key <- paste(coupling, periodic, per_element)
  if (!is.null(.kuramoto_models[[key]])) return(.kuramoto_models[[key]])
  # (terms of parameters alone -- K / beta, sqrt(2 theta / beta) -- are
  # formed once a condition by the engine, not an element a stage)
  coupling_term <- switch(coupling,
    mean_field = quote(K / beta * (mean(sin(x)) * cos(x) - mean(cos(x)) * sin(x))),
    pairs = quote(K / beta / n * pairs(sin(x[j] - x))),
    matrix = quote(K / beta / n * edges(a * sin(x[j] - x))))
  freq <- if (per_element) quote(w * (1 / beta)) else quote(omega / beta)
  drift <- list(x = stats::as.formula(call("~", call("+", freq, coupling_term)), env = baseenv()))
  params <- list(K = 1, beta = 1, theta = 0)
  params <- if (per_element) c(params, list(w = ~ 0 * i)) else c(params, list(omega = 0))
  m <- sde_model(drift = drift, noise = list(x = ~ sqrt(2 * theta / beta)), params = params,
                 observe = list(r = ~ sqrt(mean(cos(x))^2 + mean(sin(x))^2),
                                psi = ~ atan2(mean(sin(x)), mean(cos(x)))),
                 periodic = if (periodic) "x",
                 name = paste0("kuramoto-", gsub("_", "-", coupling), if (periodic) "-periodic",
                               if (per_element) "-w"))
  .kuramoto_models[[key]] <- m
  m
}

# The engine's non-finite error (sp_mb.c: "... of element i of replica r
# (condition c) is NaN or infinite at t = .. (step k) ...") in the words
# kuramoto() has always used (those of its deleted built-in engine), which
# the tests and users match: the replica, the condition and its K, the
# chain's step and time.
kuramoto_declared_not_finite <- function(e, grid, dt, call) {
  msg <- sp_cnd_text(e)
  p <- "^.* of replica ([0-9]+) \\(condition ([0-9]+)\\) .*\\(step ([0-9]+)\\).*$"
  if (!grepl(p, msg)) return(invisible()) # (not the engine's: as it is)
  r <- sub(p, "\\1", msg)
  c <- as.integer(sub(p, "\\2", msg))
  k <- as.double(sub(p, "\\3", msg))
  sp_abort(sprintf(paste0("the phases of replica %s of condition %d (K = %s) became non-finite at ",
                          "step %s (t = %s); use a smaller `dt` or check the parameters"),
                   r, c, formatC(grid$K[c], digits = 6, format = "g"), format(k, scientific = FALSE),
                   formatC(k * dt, digits = 6, format = "g")),
           call = call, class = "statphysgpu_not_finite")
}

# The run: kuramoto()'s checked arguments (grid: its conditions, the
# combinations of axes = list(K, beta, theta); om:
# kuramoto_check_omega(); start: kuramoto_start() or a continuation's
# phases (kind 3); fr: its sim_frame()) on the declared engine.  A
# continuation whose start is off the record grid runs in two calls, the
# first to the next record step, so that every record of the chain's grid
# is one of the engine's (whose records are at multiples of record_every
# from a call's start).
kuramoto_declared_run <- function(fr, n, grid, axes, om, A, coupling, method, start, dt, step0,
                                  steps, record_every, bins, recs, call) {
  m <- kuramoto_declared_model(coupling, fr$precision == "single", om$law %in% c(0L, 2L, 3L))
  params <- lapply(axes, as.double) # K, beta, theta: their grid is kuramoto()'s (expand.grid)
  if (om$law == 1L) {
    params$omega <- om$centre
  } else { # a vector, or the law's quantiles (what kuramoto_lorentz() and kuramoto_normal() give)
    params$w <- switch(as.character(om$law), "0" = om$vector,
                       "2" = kuramoto_lorentz(om$scale, om$centre)(n),
                       "3" = kuramoto_normal(om$scale, om$centre)(n))
  }
  ncond <- nrow(grid)
  nsys <- ncond * fr$n
  nrec <- recs$nrec
  if (!is.null(A) && !inherits(A, "Matrix") && !is.double(A)) storage.mode(A) <- "double"
  # the starts: the engine draws uniform phases on (-pi, pi); else every
  # system's phases (a vector for all, an n x replicas matrix for the
  # replicas of every condition, a continuation's n x systems)
  x0 <- switch(as.character(start$kind), "0" = NULL, "1" = rep(start$theta0, nsys),
               "2" = rep(as.double(start$theta0), ncond), "3" = as.double(start$theta0))
  rec <- rep(NA_real_, 2 * nrec * nsys)
  hist <- if (bins > 0) numeric(bins * nrec * nsys)
  seconds <- 0
  interrupted <- FALSE
  k <- step0
  kend <- step0 + steps
  # every call: its records on the chain's grid into their slots
  while (k < kend) {
    off <- k %% record_every
    len <- if (off != 0) min(kend - k, record_every - off) else kend - k
    every <- if (off != 0) len else record_every
    r <- withCallingHandlers(
      sde_mb_run(m, fr$n, n, if (is.null(x0)) list(x = ~ runif(-pi, pi)), dt, len * dt,
                 params, method, "records", every, 0, u64_to_hex(fr$seed), fr$first,
                 fr$plan$backend, if (fr$plan$backend == "gpu") fr$plan$devices,
                 fr$precision, fr$progress, call, graph = if (coupling == "matrix") A,
                 hist = if (bins > 0) list(state = "x", bins = bins),
                 start = if (!is.null(x0)) list(x0 = x0, k0 = k, t0 = k * dt),
                 final_dim = c(n, nsys)),
      statphysgpu_interrupted = function(w) invokeRestart("muffleWarning"),
      statphysgpu_not_finite = function(e) kuramoto_declared_not_finite(e, grid, dt, call))
    made <- attr(r, "k_end") - k
    nr <- nrow(r) / nsys # the records reached, the same in every system
    if (nr > 0) {
      j <- seq_len(nr)
      chain <- k + pmin((j - 1) * every, len)
      ok <- chain %% record_every == 0 & (chain > k | k == 0)
      slot <- chain[ok] / record_every - recs$rec0 + 1
      src <- rep((seq_len(nsys) - 1) * nr, each = length(slot)) + which(ok)
      dst <- rep((seq_len(nsys) - 1) * nrec, each = length(slot)) + slot
      rec[2 * dst - 1] <- r$r[src]
      rec[2 * dst] <- r$psi[src]
      if (bins > 0) {
        h <- attr(r, "hist") # bins x (the call's records) x systems
        nrc <- dim(h)[2]
        hsrc <- rep((seq_len(nsys) - 1) * nrc, each = length(slot)) + which(ok)
        hm <- matrix(h, nrow = bins)
        hd <- matrix(hist, nrow = bins)
        hd[, dst] <- hm[, hsrc]
        hist <- as.vector(hd)
      }
    }
    seconds <- seconds + attr(r, "seconds")
    x0 <- attr(r, "final")
    k <- k + made
    if (isTRUE(attr(r, "interrupted")) || made < len) {
      interrupted <- TRUE
      break
    }
  }
  # the final phases: the engine's n x systems matrix as it came (attr()
  # marks what it returns immutable: dim<- here would copy 2^24 doubles,
  # 0.25 s at 2^22 on the development machine)
  r <- NULL
  list(rec = rec, theta = x0, hist = hist,
       steps_done = k - step0, run = c(seconds = seconds, interrupted = as.numeric(interrupted)))
}
