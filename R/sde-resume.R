# Continuation of a single particle's passage run (issue 50): sde_run(model,
# replicas, init = <a passage result>, t_max = <larger>).
#
# A passage result carries, for every path not stopped (censored at t_max,
# left running or unstarted by an interrupt, or stopped past t_max), where it
# stopped: attribute `state`, a list of equal-length columns, rows by path
# (condition, then replica):
#   condition  the condition's row of attr(x, "conditions") (integer)
#   replica    the replica (as in the result's column `replica`)
#   step       the step reached (0: not started)
#   stop_time  NA, or the time of the event where it held past t_max (the
#              path stopped there: escaped in a continuation whose t_max
#              reaches that time)
#   run        the path's run of coarse steps (sde_engine.h, "Resolution")
#   states     a data frame of the states (by name) at that step
# The continuation runs those paths (the engine's job$run_path, run_k,
# run_x) from their steps and states with the normals that follow, so that
# it equals one call with the larger t_max path by path.

# The arguments a continuation takes from `prev`, checked against those
# given (`given`: the call's arguments, by name); then the run.
sde_passage_continue <- function(m, prev, t_max, given, backend, devices, progress, call) {
  sp_check_seal(prev, "sde_run()", call, SDE_PASSAGE_SEALED)
  if (!identical(attr(prev, "model_hash"), m$hash)) {
    sp_abort("`init` is the result of another model (its model hash differs).", call = call)
  }
  if (is.null(attr(prev, "state", exact = TRUE))) {
    sp_abort(paste0("`init` carries no states of its paths not stopped (attribute `state`): ",
                    "it is a result of an earlier version; run it again."), call = call,
             class = "statphysgpu_modified_result")
  }
  t0 <- attr(prev, "t_max")
  t_max <- check_positive(t_max, "t_max", len = 1, call = call)
  if (!is.finite(t_max) || t_max < t0) {
    sp_abort(sprintf(paste0("`t_max` (%s) is before the end of `init` (t_max = %s): a ",
                            "continuation runs its paths on, to a `t_max` at least %s."),
                     format(t_max), format(t0), format(t0)), call = call)
  }
  bridge <- isTRUE(attr(prev, "bridge"))
  at_passage <- !is.null(attr(prev, "at_passage", exact = TRUE))
  same <- list(
    replicas = function(v) isTRUE(as.double(v) == attr(prev, "replicas")),
    first_replica = function(v) isTRUE(as.double(v) == attr(prev, "first_replica")),
    dt = function(v) identical(as.double(v), as.double(attr(prev, "dt"))),
    method = function(v) identical(as.character(v), attr(prev, "method")),
    output = function(v) identical(as.character(v), "passage"),
    precision = function(v) identical(as.character(v), attr(prev, "precision")),
    seed = function(v) identical(u64_to_hex(resolve_seed(v, call = call)), attr(prev, "seed_hex")),
    at_passage = function(v) identical(isTRUE(v), at_passage),
    bridge = function(v) identical(isTRUE(v) && sde_bridge_available(m), bridge),
    params = function(v) {
      g <- sde_grid(m, v, call)
      identical(unname(as.matrix(attr(prev, "conditions")[names(m$params)])),
                unname(as.matrix(g[names(m$params)])))
    })
  for (a in names(given)) {
    if (a %in% c("record_every", "keep", "bins")) next # (warned of as unused below)
    if (!same[[a]](given[[a]])) {
      sp_abort(sprintf(paste0("`%s` differs from the `%s` that `init` ran with; a continuation ",
                              "runs with the arguments of `init` (leave `%s` out)."), a, a, a),
               call = call, class = "statphysgpu_continuation_mismatch")
    }
  }
  args <- attr(prev, "args")
  args$t_max <- t_max
  # the streams' conditions of a call of sde_run_streams() (sealed with it)
  cond0 <- if ("cond0" %in% names(attr(prev, "sealed"))) attr(prev, "cond0") else 0
  sde_run_single(m, attr(prev, "replicas"), NULL, attr(prev, "dt"), t_max, args$params,
                 attr(prev, "method"), "passage", given$record_every, given$keep %||% 0,
                 attr(prev, "seed_hex"), attr(prev, "first_replica"), backend, devices,
                 attr(prev, "precision"), progress, given$bins, at_passage, bridge, args, call,
                 resume = prev, cond0 = cond0)
}

# The paths of `prev` to run (those not stopped, less those stopped past
# t_max): path (0-based over conditions x replicas), step, and records
# (states and run, SP_SDE_XS a path, by row).
sde_resume_rows <- function(prev, m, n) {
  h <- attr(prev, "state", exact = TRUE)
  go <- is.na(h$stop_time)
  path <- (h$condition[go] - 1) * n + (h$replica[go] - attr(prev, "first_replica"))
  x <- cbind(as.matrix(h$states[go, m$states, drop = FALSE]), h$run[go])
  list(path = as.double(path), k = as.double(h$step[go]), x = as.double(t(x)),
       rows = which(go))
}

# The engine's answer where nothing is left to run.
sde_nothing_run <- function() {
  list(value = double(), status = integer(), state = double(), held = double(),
       held_rows = 0, useful_steps = 0, finished = 0, records = 0,
       run = list(seconds = 0, interrupted = 0))
}

# The engine's passage outputs (of the paths it ran: all, or a
# continuation's `run`) as those of every path of the call, and the rows
# of the paths not stopped (res$hold: the result's attribute `state`).
sde_passage_merge <- function(res, prev, run, m, fr, ncond, st, t_max) {
  n <- fr$n
  nx <- length(m$states)
  hs <- nx + 4 # SP_SDE_HS: q, step, stop_t, states, run
  total <- ncond * n
  H <- matrix(res$held[seq_len(res$held_rows * hs)], ncol = hs, byrow = TRUE)
  if (is.null(prev)) {
    value <- res$value
    status <- res$status
    state <- res$state
    hp <- H[, 1] # the call's paths are the paths
    hk <- H[, 2]
    ht <- H[, 3]
    hx <- H[, 3 + seq_len(nx + 1), drop = FALSE]
    un <- which(status == -1L) - 1 # unstarted (an interrupt): from their starts
    if (length(un)) {
      c0 <- un %/% n
      r0 <- un %% n
      sx <- vapply(seq_len(nx), function(i) {
        v <- st$vec[i]
        if (v >= SDE_PER_PATH) st$vals[(v - SDE_PER_PATH) * total + un + 1] else
          if (v >= 0) st$vals[v * n + r0 + 1] else st$init[c0 * nx + i]
      }, numeric(length(un)))
      hp <- c(hp, un)
      hk <- c(hk, rep(0, length(un)))
      ht <- c(ht, rep(NA_real_, length(un)))
      hx <- rbind(hx, cbind(matrix(sx, ncol = nx), 0))
    }
  } else {
    # every path as `init` left it, then the paths run and those stopped past t_max
    h <- attr(prev, "state", exact = TRUE)
    value <- prev$value
    status <- ifelse(prev$escaped, 1L, 0L)
    ap <- attr(prev, "at_passage", exact = TRUE)
    state <- if (!is.null(ap)) as.double(t(as.matrix(ap[m$states])))
    rp <- run$path + 1
    q <- seq_along(rp)
    value[rp] <- res$value
    status[rp] <- res$status
    if (!is.null(state) && length(rp)) {
      idx <- as.vector(outer(seq_len(nx), (rp - 1) * nx, "+"))
      state[idx] <- res$state
    }
    hp <- run$path[H[, 1] + 1]
    hk <- H[, 2]
    ht <- H[, 3]
    hx <- H[, 3 + seq_len(nx + 1), drop = FALSE]
    hxp <- cbind(as.matrix(h$states[m$states]), h$run)
    # paths not started by this call (an interrupt): as `init` left them
    un <- which(res$status == -1L)
    if (length(un)) {
      rows <- run$rows[un]
      hp <- c(hp, run$path[un])
      hk <- c(hk, h$step[rows])
      ht <- c(ht, h$stop_time[rows])
      hx <- rbind(hx, hxp[rows, , drop = FALSE])
      value[rp[un]] <- h$step[rows] * attr(prev, "dt")
      status[rp[un]] <- ifelse(h$step[rows] > 0, 2L, -1L)
    }
    # stopped past the old t_max: escaped where the new one reaches the stop
    b <- which(!is.na(h$stop_time))
    if (length(b)) {
      pb <- (h$condition[b] - 1) * n + (h$replica[b] - fr$first) + 1
      esc <- h$stop_time[b] <= t_max
      value[pb] <- ifelse(esc, h$stop_time[b], t_max)
      status[pb] <- ifelse(esc, 1L, 0L)
      keep <- b[!esc]
      hp <- c(hp, pb[!esc] - 1)
      hk <- c(hk, h$step[keep])
      ht <- c(ht, h$stop_time[keep])
      hx <- rbind(hx, hxp[keep, , drop = FALSE])
      if (!is.null(state)) {
        idx <- as.vector(outer(seq_len(nx), (pb - 1) * nx, "+"))
        state[idx] <- as.double(t(hxp[b, seq_len(nx), drop = FALSE]))
      }
    }
  }
  ht[is.nan(ht)] <- NA_real_ # (the engine's NaN: not stopped)
  o <- order(hp)
  hp <- hp[o]
  states <- as.data.frame(matrix(hx[o, seq_len(nx)], ncol = nx, dimnames = list(NULL, m$states)))
  res$value <- value
  res$status <- status
  res$state <- state
  res$hold <- list(condition = as.integer(hp %/% n + 1), replica = fr$first + hp %% n,
                   step = hk[o], stop_time = ht[o], run = hx[o, nx + 1], states = states)
  res
}
