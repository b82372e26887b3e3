# escape_times() and switching_currents() on the declared single-particle
# engine (issue 50, item 2): the washboard of the built-in escape engine
# (inst/cuda/escape.h),
#   phi' = v,  v' = -beta v + V0 (gamma(t) - sin phi) + sqrt(2 beta theta) xi(t),
# gamma(t) = g0 (escape_times()) or g0 + r t (switching_currents(), r =
# ramp = dg / h: the bias of step k is g0 + r k h, formed in double from
# the exact time as the built-in forms it from the step count), declared
# with sde_model() and run by sde_run() to the first passage of the
# threshold th of escape_threshold() (a parameter per condition: stop = ~ x
# > th, the crossing time interpolated linearly inside the step, no
# Brownian bridge: the position carries no noise, as in the built-in).
#
# Chosen by the tuning option statphysgpu.escape_engine = "declared"
# (R/tuning.R; "builtin" is the default until a GPU measurement shows this
# path at least 0.97 of the built-in's whole call: bench/s17-escape.R).
# escape_run() checks every argument and builds the condition table as for
# the built-in; escape_declared_run() stands for its sim_run() and returns
# the fields escape_run() reads of the built-in's result (value, status,
# useful and issued steps, the end state, run), so that the result, its
# attributes and methods are the built-in's.  What differs:
# * the streams: sde_run()'s (purpose 12 of the path's stream), so paths
#   differ from the built-in's and agree in law;
# * a thermal start (init = "thermal") is drawn on the host from the same
#   tabulated Boltzmann law as the built-in's (escape_start_tables(),
#   inverted exactly inside a knot interval): phi from a uniform (block 0),
#   v = sqrt(theta) z from a normal (block 1) of purpose 13 (the starts of
#   sde_run()) of the path's stream (condition - 1) 2^40 + replica - 1,
#   53-bit draws (sp_mb_draws(), R's RNG untouched), and given to the
#   engine as per-path starts;
# * thermal starts are given to sde_run() per path (conditions x replicas),
#   so conditions that end alike are one sde_run() call, with the engine's
#   own streams (c << 40) + replica;
# * sde_run() takes one t_max: a call whose conditions need their own end
#   (switching_currents() with several ramps) runs one sde_run() per
#   condition, condition c's with the streams of condition c
#   (sde_run_streams(cond0 = c - 1): the job's offset of the condition in
#   the streams), so that every path draws what one call of all the
#   conditions would give it (the same seed, the same stream layout);
# * the end state (attribute "state") holds phi, v and the step where the
#   engine left the path (kmax for a censored path, the step reached for
#   one an interrupt left; -1 not started) with hit = frac = 0: the engine
#   stops a path at its crossing, also one past t_max inside the last step
#   (no pending crossing to report);
# * steps: issued = useful (the engine counts no lane-steps past a path's
#   end);
# * the sde_run() results themselves are kept in attribute "sde_runs" (a
#   list, one per sde_run() call, each with attribute "escape_conditions":
#   the result's conditions it ran), sealed with the result, for the
#   continuation of passages by sde_run() (init = <its result>, t_max =
#   larger): escape_declared_continue() and escape_declared_run(prev =):
#   each run continued to the new end, the result assembled path by path
#   from the runs as a fresh one (on the CPU identical to one call with the
#   larger end), after checking that `init` is what its runs make; a
#   declared result continues on the declared engine and a built-in one on
#   the built-in engine whatever the option.
.escape_models <- new.env(parent = emptyenv())

escape_declared_model <- function(ramp) {
  key <- if (ramp) "ramp" else "fixed"
  m <- .escape_models[[key]]
  if (!is.null(m)) return(m)
  # the bias g0 + r t: a term of t and the parameters only, computed in
  # double once a step and rounded once (sde_run(), "the time is exact")
  v <- if (ramp) ~ V0 * ((g0 + r * t) - sin(x)) - beta * v else ~ V0 * (g0 - sin(x)) - beta * v
  p <- c(V0 = 1, beta = 1, theta = 1, g0 = 0, th = pi)
  if (ramp) p <- c(p, r = 0)
  m <- sde_model(drift = list(x = ~ v, v = v), noise = list(v = ~ sqrt(2 * beta * theta)),
                 params = p, stop = ~ x > th,
                 name = if (ramp) "escape-washboard-ramp" else "escape-washboard")
  assign(key, m, envir = .escape_models)
  m
}

# The thermal starts of condition c (its row of the condition table `ec`,
# escape_conditions()), replicas first .. first + n - 1: phi by the inverse
# of the tabulated CDF (exact inside a knot interval, where the log density
# is linear: the built-in's sp_escape_start_draw()), v = sqrt(theta) z.
escape_declared_thermal <- function(seed, c, first, n, ec) {
  reps <- as.double(first - 1 + seq_len(n) - 1)
  u <- .Call(C_sp_r_mb_draws, seed, 13L, c - 1, reps, 1, 2, 0, 0L)
  z <- .Call(C_sp_r_mb_draws, seed, 13L, c - 1, reps, 1, 2, 1, 1L)
  K <- ESCAPE_KNOTS
  off <- ec$conds$start_table[c]
  cdf <- ec$tables[off + seq_len(K)]
  logd <- ec$tables[off + K + seq_len(K)]
  step <- ec$conds$start_step[c]
  i <- findInterval(u, cdf) # cdf[i] <= u < cdf[i + 1] (u in (0, 1), cdf[K] = 1)
  w <- (u - cdf[i]) / (cdf[i + 1] - cdf[i])
  s <- (logd[i + 1] - logd[i]) / step # slope of the log density
  flat <- abs(s * step) < 1e-9
  x <- w * step
  x[!flat] <- log1p(w[!flat] * expm1(s[!flat] * step)) / s[!flat]
  list(x = ec$conds$start_lo[c] + ((i - 1) * step + x), v = ec$conds$start_vsd[c] * z)
}

# The engine's non-finite error in the built-in's words (the state, the
# replica, the condition -- of the escape call: `conds` maps the sde_run()
# call's conditions to them --, the step, the time and the bias).
escape_declared_not_finite <- function(e, conds, g0, ramp, h, call) {
  msg <- sp_cnd_text(e)
  p <- "^.*`([a-z]+)` of replica ([0-9]+) \\(condition ([0-9]+)\\) .*\\(step ([0-9]+)\\).*$"
  if (!grepl(p, msg)) return(invisible())
  what <- c(x = "position phi", v = "velocity v")[[sub(p, "\\1", msg)]]
  c <- conds[as.integer(sub(p, "\\3", msg))]
  k <- as.double(sub(p, "\\4", msg))
  where <- if (is.null(ramp)) sprintf("t = %.6g", k * h) else
    sprintf("t = %.6g, bias gamma = %.6g", k * h, g0[c] + k * h * ramp[c])
  sp_abort(sprintf(paste0("the %s of replica %s of condition %d became non-finite at step %s ",
                          "(%s); such a path can neither escape nor be censored: use a smaller ",
                          "`dt` or check that condition's parameters"), what, sub(p, "\\2", msg),
                   c, format(k, scientific = FALSE), where),
           call = call, class = "statphysgpu_not_finite")
}

# The run: escape_run()'s checked values (type: "escape_times" or
# "switching_currents"; grid: its conditions; fr: its sim_frame(); ec: its
# condition table, escape_conditions(); start: "rest" or "thermal"; prev:
# NULL, or the declared result continued, whose sde_runs are continued to
# this call's end).  Returns what the built-in's sim_run() returns to
# escape_run(): per path value, status (1 escaped, 0 censored, -2 partial,
# -1 not started), end_phi, end_v, end_step, end_hit, end_frac;
# useful_steps, issued_steps; run (seconds, interrupted); and sde_runs (the
# sde_run() results).
escape_declared_run <- function(type, fr, grid, ec, method, start, call, prev = NULL,
                                kmax_prev = NULL) {
  ramp <- type == "switching_currents"
  m <- escape_declared_model(ramp)
  cd <- ec$conds
  ncond <- nrow(grid)
  n <- fr$n
  h <- cd$h[1]
  rate <- if (ramp) cd$dg / cd$h # the ramp of each condition
  # the end of each condition's paths in time (escape_times(): t_max;
  # switching_currents(): where the bias reaches gamma_max)
  tend <- if (ramp) (cd$vcens - cd$g0) / rate else cd$vcens
  # (a sweep shorter than a step: one step, its crossings past gamma_max
  # censored below, as the built-in's kmax >= 1)
  tend <- pmax(tend, h)
  params <- data.frame(V0 = cd$V0, beta = cd$beta, theta = grid$theta, g0 = cd$g0, th = cd$th)
  if (ramp) params$r <- rate
  # the calls: continued (those of `prev`), or one for every condition, or
  # one a condition where the conditions end at different times
  if (!is.null(prev)) {
    groups <- lapply(attr(prev, "sde_runs"), attr, "escape_conditions")
  } else if (length(unique(tend)) == 1) {
    groups <- list(seq_len(ncond))
  } else {
    groups <- as.list(seq_len(ncond))
  }
  # interrupts held from here to escape_run()'s return (the sde_run() calls
  # nest their holds in it): a Ctrl-C stops the run in flight, and the
  # calls not yet made are left as they were (not started, or as `prev` left
  # them: unfinished)
  if (!is.null(prev)) {
    # `prev` must be what its runs make (a result modified and sealed again
    # is refused: its columns or state are not its runs')
    # (with its own end: its censoring value and last step)
    cd0 <- cd
    cd0$vcens <- rep_len(as.double(attr(prev, if (ramp) "gamma_max" else "t_max")), ncond)
    cd0$kmax <- rep_len(as.double(kmax_prev), ncond)
    f0 <- escape_declared_assemble(attr(prev, "sde_runs"), groups, NULL, fr, ncond, cd0, h,
                                   ramp, rate, call)
    st <- attr(prev, "state")
    ne <- which(f0$status != 1L)
    if (!identical(as.double(prev$value), as.double(f0$value)) ||
        !identical(prev$escaped, f0$status == 1L) || !is.list(st) ||
        !identical(as.double(st$phi), as.double(f0$end_phi[ne])) ||
        !identical(as.double(st$v), as.double(f0$end_v[ne])) ||
        !identical(as.double(st$step), as.double(f0$end_step[ne]))) {
      sp_abort(sprintf(paste0(
        "`init` holds no usable end state of its paths: its values (a path censored at its ",
        "last step has the censoring value), escapes (the rows of attribute `state` are ",
        "exactly the paths not escaped) or end states are ",
        "not those of its runs of the declared engine (attribute `sde_runs`). Continue an ",
        "unmodified result of %s() (rbind() of its chunks is one)."),
        type), call = call, class = "statphysgpu_modified_result")
    }
  }
  sim_hold_interrupts(fr$call, parent.frame())
  runs <- vector("list", length(groups))
  seconds <- 0
  interrupted <- FALSE
  for (j in seq_along(groups)) {
    cs <- groups[[j]]
    if (interrupted) break
    handlers <- function(expr) withCallingHandlers(
      expr,
      statphysgpu_interrupted = function(w) invokeRestart("muffleWarning"),
      statphysgpu_not_finite = function(e) {
        escape_declared_not_finite(e, cs, cd$g0, rate, h, call)
      })
    if (!is.null(prev)) { # the passages continued (sde_run(init = <its result>))
      r <- handlers(sde_run(m, init = attr(prev, "sde_runs")[[j]], t_max = tend[cs[1]],
                            backend = fr$plan$backend,
                            devices = if (fr$plan$backend == "gpu") fr$plan$devices,
                            progress = fr$progress))
    } else {
      # thermal starts: one per path (condition by condition), each from its
      # own stream
      init <- if (start == "thermal") {
        th <- lapply(cs, function(c) escape_declared_thermal(fr$seed, c, fr$first, n, ec))
        list(x = unlist(lapply(th, `[[`, "x")), v = unlist(lapply(th, `[[`, "v")))
      } else list(x = ~ asin(g0), v = 0)
      # one call per condition (several ends): condition c's call draws the
      # streams of condition c (cond0 = c - 1), as one call of all would
      r <- handlers(sde_run_streams(cs[1] - 1, m, n, init = init, dt = h, t_max = tend[cs[1]],
                                    params = params[cs, , drop = FALSE], method = method,
                                    seed = u64_to_hex(fr$seed), first_replica = fr$first,
                                    backend = fr$plan$backend,
                                    devices = if (fr$plan$backend == "gpu") fr$plan$devices,
                                    precision = fr$precision, progress = fr$progress,
                                    at_passage = TRUE, bridge = FALSE))
    }
    attr(r, "escape_conditions") <- cs
    runs[[j]] <- r
    seconds <- seconds + attr(r, "seconds")
    interrupted <- isTRUE(attr(r, "interrupted"))
  }
  f <- escape_declared_assemble(runs, groups, prev, fr, ncond, cd, h, ramp, rate, call)
  # one fresh run of every condition: its condition and replica columns are the result's
  one <- is.null(prev) && length(runs) == 1 && !is.null(runs[[1]])
  # runs an interrupt left unmade or uncontinued: as they were
  if (!is.null(prev)) {
    miss <- vapply(runs, is.null, TRUE)
    runs[miss] <- attr(prev, "sde_runs")[miss]
  }
  list(condition = if (one) runs[[1]]$condition, replica = if (one) runs[[1]]$replica,
       value = f$value, status = f$status, end_phi = f$end_phi, end_v = f$end_v,
       end_step = f$end_step, end_hit = 0L, end_frac = 0, useful_steps = f$useful,
       issued_steps = f$useful,
       run = c(seconds = seconds, interrupted = as.numeric(interrupted)), sde_runs = runs)
}

# The result's per-path fields (escape_declared_run()'s value, status,
# end_phi, end_v, end_step, useful) from the sde_run() results `runs` of
# the calls `groups` (conditions of the result each ran); `prev`: the
# declared result continued (its runs stand where `runs` has none: an
# interrupt left them, their paths not stopped unfinished), or NULL.
escape_declared_assemble <- function(runs, groups, prev, fr, ncond, cd, h, ramp, rate, call) {
  n <- fr$n
  total <- ncond * n
  t <- numeric(total)
  escaped <- logical(total)
  phi <- v <- numeric(total)
  covered <- logical(total)
  unf <- integer()
  useful <- if (!is.null(prev)) attr(prev, "steps")[["useful"]] else 0
  if (!is.null(prev) && !isTRUE(is.finite(useful))) {
    sp_abort(paste0("`init`'s step counts (attribute `steps`, not sealed: they depend on the ",
                    "chunking) are damaged; continue the result as the run returned it."),
             call = call)
  }
  # each call's paths at their places in the result (condition, then replica)
  for (j in seq_along(groups)) {
    r <- runs[[j]]
    left <- is.null(r) && !is.null(prev) # a call an interrupt left as `prev` had it
    if (left) r <- attr(prev, "sde_runs")[[j]]
    if (is.null(r)) next
    # one call of every condition (no continuation): sde_run()'s rows are
    # the result's, in its order (condition, then replica)
    whole <- length(groups) == 1 && !left && nrow(r) == total &&
      identical(as.double(groups[[1]]), as.double(seq_len(ncond))) &&
      is.integer(r$condition) &&
      identical(r$condition, rep.int(seq_len(ncond), rep.int(n, ncond))) &&
      identical(as.double(r$replica), rep.int(fr$first - 1 + seq_len(n), ncond))
    pos <- if (whole) seq_len(total) else
      (groups[[j]][r$condition] - 1) * n + (r$replica - fr$first) + 1
    if (whole) {
      covered[] <- TRUE
      t <- r$value
      escaped <- r$escaped
      ap <- attr(r, "at_passage")
      phi <- ap$x
      v <- ap$v
      useful <- useful + attr(r, "steps")[["useful"]]
      u <- attr(r, "unfinished")
      if (nrow(u)) unf <- c(unf, (u$condition - 1) * n + (u$replica - fr$first) + 1)
      next
    }
    if (anyNA(pos) || any(pos < 1 | pos > total) || any(covered[pos])) {
      sp_abort(paste0("`init`'s runs of the declared engine (attribute `sde_runs`) do not ",
                      "cover its paths once each: continue the result as the run returned ",
                      "it (or rbind() of its chunks)."), call = call,
               class = "statphysgpu_modified_result")
    }
    covered[pos] <- TRUE
    t[pos] <- r$value
    escaped[pos] <- r$escaped
    ap <- attr(r, "at_passage")
    phi[pos] <- ap$x
    v[pos] <- ap$v
    if (!left) useful <- useful + attr(r, "steps")[["useful"]]
    u <- if (left) { # its paths not stopped: unfinished where they were
      st <- attr(r, "state")
      t[pos] <- NA
      data.frame(condition = st$condition, replica = st$replica, step = st$step,
                 x = st$states$x, v = st$states$v)
    } else attr(r, "unfinished")
    if (nrow(u)) {
      q <- (groups[[j]][u$condition] - 1) * n + (u$replica - fr$first) + 1
      if (left) {
        t[q] <- u$step * h
        phi[q] <- u$x
        v[q] <- u$v
        escaped[q] <- FALSE
      }
      unf <- c(unf, q)
    }
  }
  if (!all(covered)) { # calls an interrupt left unmade: not started
    if (!is.null(prev)) {
      sp_abort(paste0("`init`'s runs of the declared engine (attribute `sde_runs`) do not ",
                      "cover its paths: continue the result as the run returned it (or ",
                      "rbind() of its chunks)."), call = call,
               class = "statphysgpu_modified_result")
    }
    unf <- c(unf, which(!covered))
  }
  status <- as.integer(escaped) # 1 escaped, 0 censored (or unfinished, below)
  kmax <- if (ncond == 1 || length(unique(cd$kmax)) == 1) cd$kmax[1] else
    rep.int(cd$kmax, rep.int(n, ncond))
  step <- kmax + numeric(total) # a censored path stops at kmax
  # the unfinished: those an interrupt left in the engine (partial, or not
  # started where no step was reached) and those of calls not made
  unf <- sort(unique(unf))
  if (length(unf)) {
    k <- round(t[unf] / h)
    started <- k > 0
    status[unf] <- ifelse(started, -2L, -1L) # SP_ESCAPE_PARTIAL, SP_ESCAPE_UNSTARTED
    step[unf] <- ifelse(started, k, -1)
    t[unf[!started]] <- 0
    phi[unf[!started]] <- 0 # (the built-in's end state of a path not started)
    v[unf[!started]] <- 0
  }
  value <- t
  if (ramp) { # the bias at the time reached; censored at gamma_max exactly
    r <- if (length(unique(rate)) == 1) rate[1] else rep.int(rate, rep.int(n, ncond))
    g <- if (length(unique(cd$g0)) == 1) cd$g0[1] else rep.int(cd$g0, rep.int(n, ncond))
    value <- g + r * t
    # censoring is exact at gamma_max (rounding of its time aside, a
    # crossing past it inside a step of a sweep shorter than a step)
    past <- status == 1L & value > cd$vcens[1] * (1 + 4 * .Machine$double.eps)
    status[past] <- 0L
    value[status == 1L] <- pmin(value[status == 1L], cd$vcens[1])
  }
  value[status == 0L] <- cd$vcens[1]
  list(value = value, status = status, end_phi = phi, end_v = v, end_step = step,
       useful = useful)
}

# The continuation of a result of the declared engine (init = that result,
# its arguments checked by escape_resume()): the marker escape_run() reads
# (resume$declared) to continue its sde_runs (escape_declared_run(prev =)),
# each by sde_run(init = <the sde result>, t_max = the larger end), its
# paths not stopped from their state with the numbers that follow: on the
# CPU, one call with the larger end path by path.  A result whose runs an
# interrupt left unmade (a call of several ends) cannot be continued (its
# paths not started have no run to continue): an error that says so.
escape_declared_continue <- function(prev, type, call) {
  runs <- attr(prev, "sde_runs")
  if (!is.list(runs) || !length(runs) ||
      !all(vapply(runs, function(r) is.null(r) || inherits(r, "sde_passage"), TRUE))) {
    sp_abort(paste0("`init`'s runs of the declared engine (attribute `sde_runs`) are not ",
                    "those of its run: continue the result as the run returned it (or ",
                    "rbind() of its chunks)."), call = call,
             class = "statphysgpu_modified_result")
  }
  if (any(vapply(runs, is.null, TRUE))) {
    sp_abort(sprintf(paste0(
      "`init` was run on the declared engine (option statphysgpu.escape_engine = ",
      "\"declared\") and interrupted before all of its sde_run() calls were made: its ",
      "paths not started have no run to continue; rerun it with the larger %s (the same ",
      "seed and replicas)."), if (type == "escape_times") "`t_max`" else "`gamma_max`"),
      call = call, class = "statphysgpu_continue_unsupported")
  }
  c(ESCAPE_NO_RESUME, list(counted = numeric(), declared = TRUE))
}
