# The numerics of a user's SDE model that the generator and sde_run() add
# to the translation of R/sde-translate.R and the header of sde_header():
#   * time: the model's subexpressions of t and the parameters only are
#     marked (sde_mark_time()) and computed in double (sde_time_c());
#   * events: a stop event must be logical (sde_check_event());
#   * the Brownian bridge of an event whose gap carries noise: the gap's
#     noise variance sigma^2 (sde_gap_variance());
#   * rebuilding a model from its declarations (sde_model_again()).

# ---- time --------------------------------------------------------------------

# Mark the subexpressions of `e` that depend on the time t and on nothing
# but the parameters, pi and numbers -- cos(omega * t), exp(-t / tau), t
# itself -- as .sp_time(<subexpression>), each maximal one once.  The
# translator (sde_to_c(), through sde_time_c()) computes a marked
# subexpression in double from t (the step count times dt, in double) and
# the parameters in double, and rounds it once to the working precision: a
# drive's phase stays exact at any t in single precision, as the built-in
# kernels keep theirs.  Parameter-only parts inside (2 * pi * f) are still
# hoisted by sde_hoist() (derived parameters, computed once in double).
# `.sp_time` is not a name a model can use (sde_check_expr()).
sde_mark_time <- function(e, params) {
  if (!("t" %in% all.vars(e))) return(e)
  wrap <- function(x) call(".sp_time", x)
  # bottom-up (sde_fold(): no recursion, any depth): each value is list(x,
  # t, other): x the subexpression with its maximal timed parts marked,
  # unless it is timed as a whole (then unmarked); t: it uses t; other: it
  # uses a variable that is no parameter (a state)
  leaf <- function(x) {
    if (is.name(x)) {
      v <- as.character(x)
      return(list(x = x, t = v == "t", other = !(v %in% c(params, "pi", "t"))))
    }
    list(x = x, t = FALSE, other = FALSE)
  }
  node <- function(x, kids) {
    t <- any(vapply(kids, `[[`, TRUE, "t"))
    other <- any(vapply(kids, `[[`, TRUE, "other"))
    if (t && !other) {
      for (j in seq_along(kids)) x[[j + 1L]] <- kids[[j]]$x
      return(list(x = x, t = TRUE, other = FALSE))
    }
    for (j in seq_along(kids)) {
      k <- kids[[j]]
      x[[j + 1L]] <- if (k$t && !k$other) wrap(k$x) else k$x
    }
    list(x = x, t = t, other = other)
  }
  r <- sde_fold(e, leaf, node)
  if (r$t && !r$other) wrap(r$x) else r$x
}

# The C of a marked subexpression (.sp_time(e)): e translated by
# sde_to_c() with the parameters read in double (pd[] for p[]), t the
# double time, numbers and functions in double (SP_D_* of sde_prelude.h),
# rounded once to the working precision.  `map`: the model's variable map.
sde_time_c <- function(e, map) {
  dmap <- map
  dmap[] <- sub("^p\\[", "pd[", dmap)
  dmap[["t"]] <- "t"
  s <- sde_to_c(e, dmap)
  s <- gsub("SP_([A-Z0-9]+)\\(", "SP_D_\\1(", s)
  paste0("((SP_REAL)", s, ")")
}

# The time terms of a single-particle model (sde_header()): each distinct
# marked subexpression .sp_time(e) of `e` (after sde_hoist()) is replaced by
# the name .tK, K its index in `tt` (an environment: tt$keys the deparsed
# forms, tt$exprs the expressions), read in C as tt[K - 1].  The generated
# function sde_time_terms() computes them all (sde_time_c(): in double from
# t and the parameters, rounded once) and the engine calls it once per step
# time -- or, in the GPU's fixed-length kernel, reads them from a table
# filled once per launch for all the paths of a condition (sde_engine.h,
# "Time terms") -- instead of at every stage of every step: the same numbers.
sde_time_lift <- function(e, tt) {
  if (!is.call(e)) return(e)
  leaf <- function(x) x
  node <- function(x, kids) {
    if (identical(x[[1]], as.name(".sp_time"))) {
      key <- paste(deparse(x[[2]], width.cutoff = 500L), collapse = " ")
      i <- match(key, tt$keys)
      if (is.na(i)) {
        tt$keys <- c(tt$keys, key)
        tt$exprs <- c(tt$exprs, list(x[[2]]))
        i <- length(tt$keys)
      }
      return(as.name(paste0(".t", i)))
    }
    for (j in seq_along(kids)) x[j + 1L] <- list(kids[[j]])
    x
  }
  sde_fold(e, leaf, node)
}

# ---- events ------------------------------------------------------------------

# Is an event logical-valued: a comparison, &, |, ! (within parentheses),
# or an ifelse() whose two branches are events (or TRUE/FALSE)?
sde_event_is_logical <- function(e, branch = FALSE) {
  while (is.call(e) && identical(e[[1]], as.name("(")) && length(e) == 2) e <- e[[2]]
  if (branch && is.logical(e) && length(e) == 1 && !is.na(e)) return(TRUE)
  if (!is.call(e) || !is.name(e[[1]])) return(FALSE)
  f <- as.character(e[[1]])
  if (f %in% c("<", ">", "<=", ">=", "==", "!=", "&", "|", "!")) return(TRUE)
  if (f == "ifelse" && length(e) == 4) {
    return(sde_event_is_logical(e[[3]], TRUE) && sde_event_is_logical(e[[4]], TRUE))
  }
  FALSE
}

# Refuse a stop event that is not logical: `x - 1` compiles (nonzero is
# true in C) but would end every path at t = 0.
sde_check_event <- function(e, call) {
  if (sde_event_is_logical(e)) return(invisible(TRUE))
  sp_abort(sprintf(paste0(
    "`stop`, %s, is not an event: an event is true or false -- a comparison ",
    "(`x > 1`, `<`, `>=`, `<=`, `==`, `!=`), or `&`, `|`, `!` of comparisons, or ifelse() ",
    "choosing between events. As a number it would be true wherever it is not 0, and end ",
    "every path at once; write it as a comparison (e.g. `%s > 0`)."),
    deparse1(e), deparse1(e)), call = call)
}

# ---- the Brownian bridge of an event -------------------------------------------

# The noise variance of an event's gap g (sde_event_gap(): lhs - rhs of a
# comparison), sigma^2 = sum over the Wiener processes k of (sum_i dg/dx_i
# b_ik)^2 (diagonal noise: sum over the noisy states of (dg/dx_i b_i)^2),
# as an expression over the states, parameters and t (its derivatives by
# stats::D()); NULL where the bridge does not apply: no gap, no noisy state
# in it, or a gap that D() cannot differentiate (abs(), pmin(), ifelse(),
# ...).  The result is checked as a right-hand side is (the generator
# compiles only checked expressions).
sde_gap_variance <- function(m, gap) {
  if (is.null(gap) || !length(m$noise)) return(NULL)
  k <- m$noise_k %||% seq_along(m$noise)
  terms <- list()
  for (w in unique(k)) {
    sk <- list()
    for (j in which(k == w)) {
      s <- names(m$noise)[j]
      if (!(s %in% all.vars(gap))) next
      d <- tryCatch(stats::D(gap, s), error = function(e) NULL)
      if (is.null(d)) return(NULL)
      if (is.numeric(d) && length(d) == 1 && d == 0) next
      sk[[length(sk) + 1]] <- call("*", call("(", d), call("(", m$noise[[j]]))
    }
    if (!length(sk)) next
    terms[[length(terms) + 1]] <- call("^", call("(", Reduce(function(a, b) call("+", a, b), sk)), 2)
  }
  if (!length(terms)) return(NULL)
  out <- Reduce(function(a, b) call("+", a, b), terms)
  ok <- tryCatch({
    sde_check_expr(out, c(m$states, names(m$params), "t"), "the event's noise", NULL)
    TRUE
  }, error = function(e) FALSE)
  if (ok) out else NULL
}

# Does the model's event admit the Brownian-bridge correction of sde_run()?
sde_bridge_available <- function(m) {
  !is.null(m$stop) && !is.null(sde_gap_variance(m, sde_event_gap(m$stop)))
}

# How the passage time of the model's event is placed (print.sde_model()).
sde_event_note <- function(m) {
  if (is.null(sde_event_gap(m$stop))) return(" (passage at the end of the step)")
  if (sde_bridge_available(m)) {
    return(paste0(" (crossing interpolated in the step; Brownian-bridge test for ",
                  "crossings inside a step)"))
  }
  " (crossing interpolated in the step)"
}

# ---- rebuilding ----------------------------------------------------------------

# The model again from its declarations (checked and generated afresh in
# this session: a stored model's code is never trusted), e.g. for
# h_check() of an sde_run() result.
sde_model_again <- function(m) {
  if (!inherits(m, "sde_model")) {
    sp_abort("the result does not carry its model; rerun sde_run() with this version.")
  }
  sde_model_trusted(m)
}

# ---- runs ----------------------------------------------------------------------

# The arguments of an sde_run() call as given (those not missing), for its
# result's attribute `args`: what h_check() needs to rerun it.
sde_run_args <- function(env) {
  nm <- c("model", "replicas", "init", "dt", "t_max", "params", "method", "output",
          "record_every", "keep", "first_replica", "backend", "devices", "precision",
          "progress", "bins", "at_passage", "bridge")
  out <- list()
  for (a in nm) {
    if (!eval(call("missing", as.name(a)), env)) out[a] <- list(get(a, envir = env))
  }
  out
}

# Steps of the fixed-length outputs: the whole steps up to t_max.  Where
# t_max is not a whole number of steps, the paths end (and the last record
# is) at the last whole step, floor(t_max / dt) dt, which the result
# reports as its t_max; a warning says so.
sde_fixed_steps <- function(t_max, dt, call) {
  r <- t_max / dt
  k <- sde_whole_steps(t_max, dt)
  if (abs(k - r) > 1e-9 * max(1, r)) {
    sp_warn(sprintf(paste0(
      "`t_max` (%s) is not a whole number of steps `dt` (%s): the paths run %s steps, ",
      "to t = %s, the last record (the result's t_max). Give a multiple of `dt` to end ",
      "at t_max."), format(t_max), format(dt), format(k), format(k * dt)), call = call,
      class = "statphysgpu_t_max_warning")
  }
  k
}

# The whole steps up to t_max (to 1e-9 relative; at least one).  A
# many-body passage run stops there: its event is checked at the ends of
# the steps, and one past t_max would be censored at t_max anyway.
sde_whole_steps <- function(t_max, dt) {
  r <- t_max / dt
  max(1, floor(r + 1e-9 * max(1, r)))
}

# The order p of an sde_run() passage result's step bias, for h_check():
# where the event's gap carries noise, checking it once a step has the
# bias O(sqrt(dt)) (p = 1/2), removed by the Brownian bridge down to O(dt)
# (p = 1); where it does not (the gap is differentiable in time), the
# order of the scheme (1 Euler, 2 Heun), as for escape_times().
sde_h_order <- function(x) {
  a <- attr(x, "args")
  mod <- a$model %||% a$m # (`m`: results of earlier versions)
  noisy <- !is.null(mod) && sde_bridge_available(mod)
  if (noisy) return(if (isTRUE(attr(x, "bridge"))) 1 else 0.5)
  if (identical(attr(x, "method"), "euler")) 1 else 2
}

# ---- the step of sde_ams() ---------------------------------------------------------

# Is `dt` fine enough for sde_ams()?  At the start `init` of each
# condition, the drift a (the model's, evaluated in R) is linearised, J =
# da/dx (central differences), and the step's linear map is the stability
# function R(z) of the method at z = lambda dt for each eigenvalue lambda
# of J: 1 + z (Euler), 1 + z + z^2 / 2 (Heun).  Where a relaxation of the
# model (Re lambda < 0) has |R| >= 1, the discrete paths diverge or
# oscillate where the model's relax: the estimate would be the step's
# artefact (p = 1 at dt = 100 in the cubic well), and the call is refused.
# Below that, the stationary variance of the linearised discrete dynamics
# differs from the model's by about |lambda| dt / 2 (Euler) or
# (|lambda| dt)^2 / 4 (Heun) relative (Ornstein-Uhlenbeck, exactly); a bias
# above 10 per cent is warned about, as is a step whose score noise
# sigma_xi sqrt(dt) (sigma_xi^2 = sum_i (dxi/dx_i b_i)^2 at the start)
# shifts the discretely monitored levels by 0.5826 sigma_xi sqrt(dt)
# (Broadie, Glasserman and Kou 1997) by more than a tenth of B - A.
sde_ams_check_step <- function(m, method, dt, grid, x0, score, zA, zB, call) {
  nx <- length(m$states)
  env_of <- function(ci, x) {
    vals <- c(as.list(grid[ci, names(m$params), drop = FALSE]),
              stats::setNames(as.list(x), m$states), list(t = 0))
    list2env(vals, parent = baseenv())
  }
  ev1 <- function(e, env) {
    r <- suppressWarnings(tryCatch(as.double(eval(e, env)), error = function(err) NA_real_))
    if (length(r) != 1) NA_real_ else r
  }
  drift <- function(ci, x) vapply(m$drift, function(e) ev1(e, env_of(ci, x)), 0)
  svar <- sde_gap_variance(m, score)
  for (ci in seq_len(nrow(grid))) {
    where <- if (nrow(grid) > 1) sprintf(" (condition %d)", ci) else ""
    x <- x0[ci, ]
    J <- matrix(NA_real_, nx, nx)
    for (j in seq_len(nx)) {
      h <- 1e-6 * max(1, abs(x[j]))
      xp <- x
      xm <- x
      xp[j] <- x[j] + h
      xm[j] <- x[j] - h
      J[, j] <- (drift(ci, xp) - drift(ci, xm)) / (2 * h)
    }
    if (all(is.finite(J))) {
      lam <- eigen(J, only.values = TRUE)$values
      relax <- Re(lam) < 0
      if (any(relax)) {
        z <- lam[relax] * dt
        R <- if (method == "euler") 1 + z else 1 + z + z^2 / 2
        i <- which.max(Mod(R))
        rate <- max(Mod(lam[relax]))
        if (Mod(R[i]) >= 1) {
          sp_abort(sprintf(paste0(
            "`dt` (%s) is too coarse for the model at the start%s: its fastest relaxation ",
            "there, rate |lambda| = %s (an eigenvalue of the drift's Jacobian), makes the ",
            "%s step's linear map grow by |R(lambda dt)| = %s >= 1, so that the discrete ",
            "paths diverge or oscillate where the model's relax, and the estimate would be ",
            "the step's artefact. Use dt well below %s."), format(dt), where,
            format(Mod(lam[relax][i]), digits = 3), method, format(Mod(R[i]), digits = 3),
            format(2 / rate, digits = 3)), call = call, class = "statphysgpu_step_error")
        }
        bias <- if (method == "euler") rate * dt / 2 else (rate * dt)^2 / 4
        if (bias > 0.1) {
          sp_warn(sprintf(paste0(
            "`dt` (%s) is coarse for the model at the start%s: with its fastest relaxation ",
            "rate %s, the %s step's fluctuations in the well are off by about %.0f%% of ",
            "their variance, and p and the mean first-passage time with them; use a ",
            "smaller `dt`."), format(dt), where, format(rate, digits = 3), method,
            100 * bias), call = call, class = "statphysgpu_step_warning")
        }
      }
    }
    if (!is.null(svar) && !is.null(zB) && is.finite(zB[ci])) {
      s2 <- ev1(svar, env_of(ci, x))
      shift <- 0.5826 * sqrt(max(s2, 0) * dt)
      if (is.finite(shift) && shift > 0.1 * (zB[ci] - zA[ci])) {
        sp_warn(sprintf(paste0(
          "`dt` (%s) is coarse for the levels%s: the score moves by sigma sqrt(dt) = %s a ",
          "step at the start, and checking it once a step shifts the levels by about ",
          "0.58 of that, more than a tenth of B - start_edge = %s; use a smaller `dt`."),
          format(dt), where, format(shift / 0.5826, digits = 3),
          format(zB[ci] - zA[ci], digits = 3)), call = call,
          class = "statphysgpu_step_warning")
      }
    }
  }
  invisible(TRUE)
}
