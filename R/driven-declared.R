# driven_brownian() on the declared single-particle engine (issue 50): the
# same SDE as the built-in engine (inst/cuda/driven.h),
#   x' = v,  v' = a cos(omega t) + f - beta v - 2 pi cos(2 pi x) + sqrt(2 beta theta) xi(t),
# declared with sde_model() and run by sde_run().  Time is the drive's
# phase tau = omega t, so that every condition (any omega) steps by the same
# dtau = 2 pi / steps_per_period and the drive is cos(tau) of the exact
# double time (as the built-in's table, cos(2 pi j / spp)):
#   dx = iw v dtau,  dv = iw (a cos(tau) + f - beta v - 2 pi cos(2 pi x)) dtau + sn dW_tau,
# iw = 1 / omega, sn = sqrt(2 beta theta / omega): with dt = iw dtau the
# same Euler and stochastic Heun steps (one normal a step, on v) as the
# built-in's, sigma = sn sqrt(dtau) = sqrt(2 beta theta dt).  A third state
# s integrates v^2 dt (no noise), for <v^2>.
#
# Chosen by the tuning option statphysgpu.driven_engine = "declared"
# (R/tuning.R; "builtin" is the default until a GPU measurement shows this
# path at least 0.97 of the built-in's speed).  driven_brownian() checks
# every argument; driven_declared_run() stands for the built-in's sim_run()
# and returns the fields driven_brownian() reads of it.  What differs:
# * the streams: sde_run()'s (purpose 12 of the system stream), so paths
#   differ from the built-in's and agree in law;
# * the default start: the uniform x(0) of replica r is drawn once (stream
#   r - 1, purpose 7, 53 bits) and is the same in every condition (the
#   single-particle engine takes a start per replica, not per condition;
#   the built-in draws one per condition);
# * v2_bar: with Euler exactly the built-in's sum of v^2 at the ends of the
#   steps after the transient (the integral of v^2 is that sum less the
#   first term, plus the last); with SRK2 the trapezoid of v^2 at the
#   step's start and its predictor, corrected the same way: the built-in's
#   to O(dt^(3/2)) a step;
# * the position is not split into whole periods and a part (x = m + y):
#   in single precision a path far from the origin loses resolution (use
#   precision = "double" for long runs with transport);
# * the per-path values come from the engine's trajectories (every path
#   kept, recorded at the end of the transient and at the end; every
#   period with output = "histogram" or "trajectories", whose memory grows
#   with paths x periods): no continuation (init = <a result> runs on the
#   built-in engine, from this result's end states).  They are read from
#   the engine's buffer as it is (sde_run_states(), R/sde-run.R: no data
#   frame of paths x records rows) and picked in C, a record and a state
#   at a time (sde_states_paths()).  The engine records every path at
#   every record step (0, the transient's end, ..., the end: 11 with the
#   default transient of 2000 periods) but keeps two states a path: the
#   records up to the transient's end write slot 1, the later ones slot 2,
#   each slot holding the last record reached (sde_run_states(slots =);
#   2^20 paths: 50 MB of states in place of 277 MB, issue 50).
.driven_models <- new.env(parent = emptyenv())

driven_declared_model <- function() {
  if (!is.null(.driven_models$m)) return(.driven_models$m)
  m <- sde_model(drift = list(x = ~ iw * v,
                              v = ~ iw * (a * cos(t) + f - beta * v - 2 * pi * cos(2 * pi * x)),
                              s = ~ iw * (v * v)),
                 noise = list(v = ~ sn),
                 params = list(a = 0, f = 0, beta = 1, iw = 1, sn = 0),
                 name = "driven-brownian")
  .driven_models$m <- m
  m
}

# The default starts x(0) of replicas first .. first + n - 1: uniform on
# (0, 1), one per replica (the same in every condition).
driven_declared_starts <- function(seed, first, n) {
  .Call(C_sp_r_mb_draws, seed, 7L, 0, as.double(first - 1 + seq_len(n) - 1), 1, 1, 0, 0L)
}

# The engine's non-finite error in the built-in's words (the replica, the
# condition, the step and period).
driven_declared_not_finite <- function(e, spp, call) {
  msg <- sp_cnd_text(e)
  p <- "^.*`([a-z]+)` of replica ([0-9]+) \\(condition ([0-9]+)\\) .*\\(step ([0-9]+)\\).*$"
  if (!grepl(p, msg)) return(invisible())
  what <- c(x = "position x", v = "velocity v", s = "sum of v^2 (for <v^2>)")[[sub(p, "\\1", msg)]]
  k <- as.double(sub(p, "\\4", msg))
  sp_abort(sprintf(paste0("the %s of replica %s of condition %s became non-finite at step %s ",
                          "(period %s); raise `steps_per_period` or check that condition's ",
                          "parameters"), what, sub(p, "\\2", msg), sub(p, "\\3", msg),
                   format(k, scientific = FALSE), format(k / spp, digits = 6)),
           call = call, class = "statphysgpu_not_finite")
}

# The run: driven_brownian()'s checked values (grid: its conditions; fr: its
# sim_frame(); x0, v0: given starts or numeric(); keep_here: the kept
# replicas; dens: c(lo, bins) of the density or numeric()).  Returns what
# the built-in's sim_run() returns: per path x, v, xtr, acc2, s2, m, y;
# steps; keep_x, keep_v ([(c keep + r)(periods + 1) + q], NA where not
# reached); density (counts as driven_density() reads them); run.
driven_declared_run <- function(fr, grid, spp, periods, ktr, x0, v0, keep_here, dens, method,
                                call) {
  m <- driven_declared_model()
  ncond <- nrow(grid)
  n <- fr$n
  npaths <- ncond * n
  K <- periods * spp
  dtau <- 2 * pi / spp
  per_period <- keep_here > 0 || length(dens) > 0
  # records at 0, every, 2 every, ..., K: the end of the transient among them
  every <- if (per_period) spp else if (ktr > 0) spp * gcd_whole(ktr / spp, periods) else K
  nrec <- floor(K / every) + 1 + (K %% every != 0) # records planned (sde_records())
  itr0 <- match(ktr, pmin((seq_len(nrec) - 1) * every, K)) # the transient's end among them
  # every path at the transient's end and at the end only (not at every
  # record): the records up to the transient's end share slot 1, the later
  # ones slot 2, each slot keeping the last record reached (an interrupted
  # run's last one too; sde_run_states(slots =))
  slots <- if (per_period) NULL else if (is.na(itr0)) rep(1, nrec) else
    ifelse(seq_len(nrec) <= itr0, 1, 2)
  if (!length(x0)) x0 <- driven_declared_starts(fr$seed, fr$first, n)
  params <- data.frame(a = grid$a, f = grid$f, beta = grid$beta, iw = 1 / grid$omega,
                       sn = sqrt(2 * grid$beta * grid$theta / grid$omega))
  # the states of every path at the records, as the engine filled them
  # (sde_run_states(): no data frame of paths x records rows)
  r <- withCallingHandlers(
    sde_run_states(m, n, init = list(x = x0, v = if (length(v0)) v0 else 0, s = 0), dt = dtau,
                   t_max = K * dtau, params = params, method = method, record_every = every,
                   keep = fr$first - 1 + n, seed = u64_to_hex(fr$seed),
                   first_replica = fr$first, backend = fr$plan$backend,
                   devices = if (fr$plan$backend == "gpu") fr$plan$devices,
                   precision = fr$precision, progress = fr$progress, slots = slots,
                   call = call),
    statphysgpu_interrupted = function(w) invokeRestart("muffleWarning"),
    statphysgpu_t_max_warning = function(w) invokeRestart("muffleWarning"),
    statphysgpu_not_finite = function(e) driven_declared_not_finite(e, spp, call))
  nr <- r$records # records reached, the same in every path
  kr <- pmin((seq_len(nr) - 1) * every, K) # their steps
  steps <- kr[nr]
  run <- c(seconds = r$seconds, interrupted = as.numeric(r$interrupted))
  # every path (condition, then replica) at the last record and the transient's end
  itr <- match(ktr, kr)
  at <- function(var, rec) sde_states_paths(r, var, rec)[[1]]
  xe <- at("x", nr)
  ve <- at("v", nr)
  xtr <- if (is.na(itr)) rep(NA_real_, npaths) else at("x", itr)
  # sum of v^2 at the ends of steps ktr + 1 .. steps (driven_brownian() adds s2)
  acc2 <- if (is.na(itr) || steps <= ktr) numeric(npaths) else
    (at("s", nr) - at("s", itr)) /
      (if (ncond == 1) 2 * pi / grid$omega / spp else rep(2 * pi / grid$omega / spp, each = n)) +
      (if (method == "euler") 1 else 0.5) * (ve^2 - at("v", itr)^2)
  m <- round(xe)
  out <- list(x = xe, v = ve, xtr = xtr, acc2 = acc2, s2 = numeric(npaths),
              m = m, y = xe - m, steps = steps, run = run)
  if (keep_here > 0) {
    np1 <- periods + 1
    kx <- kv <- matrix(NA_real_, np1, ncond * keep_here)
    cols <- rep((seq_len(ncond) - 1) * n, each = keep_here) + seq_len(keep_here)
    kx[seq_len(nr), ] <- sde_states_at(r, "x", seq_len(nr), cols)
    kv[seq_len(nr), ] <- sde_states_at(r, "v", seq_len(nr), cols)
    out$keep_x <- as.vector(kx)
    out$keep_v <- as.vector(kv)
  }
  if (length(dens)) { # counts per condition and period: below, bins, above
    nb <- dens[2]
    cnt <- array(0, c(nb + 2, periods + 1, ncond))
    off <- rep((nb + 2) * (periods + 1) * (seq_len(ncond) - 1), each = n) # by condition
    tab <- integer(length(cnt))
    for (j in seq_len(nr)) { # a record at a time: its slot below (0), in the bins, above (nb + 1)
      slot <- pmax(pmin(floor(at("x", j)) - dens[1] + 1, nb + 1), 0)
      tab <- tab + tabulate(slot + 1 + (nb + 2) * (j - 1) + off, length(cnt))
    }
    cnt[] <- tab
    out$density <- as.vector(cnt)
  }
  out
}

# The greatest common divisor of two whole numbers.
gcd_whole <- function(a, b) {
  while (b > 0) {
    t <- a %% b
    a <- b
    b <- t
  }
  a
}
