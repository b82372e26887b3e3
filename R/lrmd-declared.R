# lrmd() on the declared many-body engine (issue 50): the HMF, ring and
# gravity2d models as sde_model() declarations, Hamilton's equations (q = ~
# p; p = ~ the force) run by sde_run()'s engine (R/sde-mb-run.R) with method
# "yoshida4" -- the same composition as the built-in's (inst/cuda/lrmd.h:
# drift c1, kick d1, drift c2, kick d2, drift c2, kick d1, drift c1; its
# coefficients equal to the last bit or two) -- with the forces of
# inst/cuda/lrmd.h:
#   HMF   dp_i/dt = -M_x sin q_i + M_y cos q_i          (mean())
#   ring  dp_i/dt = -(1 / (2 sqrt(2) n)) sum_j sin(q_i - q_j)
#                     (1 + eps - cos(q_i - q_j))^(-3/2)   (pairs())
#   gravity2d  dp_i/dt = -(1/n) sum_j (r_i - r_j) / (|r_i - r_j|^2 + eps^2)
#                     (pairs() over x[j], y[j]: particles in the open plane,
#                     plain states x, y, px, py, no box; the reciprocal of
#                     dx^2 + (dy^2 + eps^2) times dx and dy, as lrmd.h's
#                     sp_lrmd_grav_pair)
# The records are the engine's observables at the record steps: the kinetic
# energy mean(p^2) / 2, the magnetisation (mean(cos q), mean(sin q)) and for
# the ring the pair sum of 1 / sqrt(1 + eps - cos(q_i - q_j)) over j != i,
# to which R adds the n self terms 1 / sqrt(eps) that lrmd()'s potential
# counts (sp_lrmd.c's record: the sum over all i, j).  gravity2d: the
# kinetic energy mean(px^2 + py^2) / 2, the pair sums of ln(r_ij^2 + eps^2)
# (to which R adds the n self terms ln(eps^2): the potential (1/4n^2) sum_ij)
# and of r_ij^2 / (r_ij^2 + eps^2) (the virial W/n = (1/2n^2) sum_ij; no
# self term), and the half-mass radius -- the median distance from the
# centre of mass, no sum the engine can record -- computed in R from the
# positions at the record: the engine keeps every system's states at its
# records (output "trajectories", as an array: sde_mb_run()'s internal
# start$traj), in calls of at most lrmd_declared_kept() numbers of them; one
# system on several GPUs (whose slices a run that keeps states would give
# up) instead ends an engine call at every record and reads the final state.
#
# The only engine of lrmd() since the built-in one (inst/cuda/lrmd.cu,
# src/core/sp_lrmd_engine*, src/gpu/sp_gpu_lrmd.c) was deleted (issue 50;
# its option statphysgpu.lrmd_engine is ignored with a warning, once a
# session: sp_tuning_retired(), R/tuning.R).  lrmd() checks every argument
# and makes the systems, the parts of a continuation, the records and the
# attributes; lrmd_declared_sim() runs one part in lrmd_one().
# What differs from the deleted built-in engine:
# * precision "mixed" runs the declared model in single precision (states
#   included: the built-in keeps positions and momenta in double), its
#   angles declared periodic (kept in [-pi, pi], as the final state and the
#   snapshots then report them); "double" is double throughout, angles not
#   reduced, as the built-in's;
# * a start the engine would draw (hmf_waterbag() ...) is drawn by the
#   many-body engine itself, on the device of the run (its starts from
#   recipes: src/core/sp_mb_recipe.c, src/gpu/sp_gpu_mb_recipe.c, the draws
#   of inst/cuda/lrmd_start.h, the same numbers), or on the CPU by the
#   start's own columns (src/r_lrmd.c) and copied to the engine where R
#   needs the start (a snapshot at step 0; gravity2d on several GPUs) or
#   some systems' starts are given;
# * snapshots end one engine call and start the next from its final state;
# * gravity2d's states are plain (never periodic), in both precisions.

# The model of "hmf", "ring" or "gravity2d", periodic angles or not (HMF,
# ring): made once a session.
.lrmd_models <- new.env(parent = emptyenv())

lrmd_declared_model <- function(model, periodic) {
  if (model == "gravity2d") periodic <- FALSE
  key <- paste(model, periodic)
  if (!is.null(.lrmd_models[[key]])) return(.lrmd_models[[key]])
  if (model == "gravity2d") {
    # (the pair's 1 / (dx^2 + (dy^2 + eps^2)) once, times dx and dy: one
    # reciprocal a pair, the built-in's order of the sums)
    g <- quote(((x - x[j])^2 + ((y - y[j])^2 + eps^2))^-1)
    r2 <- quote((x - x[j])^2 + (y - y[j])^2)
    drift <- list(x = ~ px, y = ~ py,
                  px = eval(bquote(~ -1 / n * pairs((x - x[j]) * .(g)))),
                  py = eval(bquote(~ -1 / n * pairs((y - y[j]) * .(g)))))
    observe <- list(K = ~ mean(px^2 + py^2) / 2,
                    V = eval(bquote(~ sum(pairs(log(.(r2) + eps^2))))),
                    W = eval(bquote(~ sum(pairs(.(r2) / (.(r2) + eps^2))))))
    m <- sde_model(drift = drift, params = c(eps = 0.01), observe = observe,
                   name = "lrmd-gravity2d")
    .lrmd_models[[key]] <- m
    return(m)
  }
  force <- switch(model,
    hmf = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q),
    ring = ~ -1 / (2 * sqrt(2) * n) * pairs(sin(q - q[j]) * (1 + eps - cos(q - q[j]))^(-1.5)))
  observe <- list(K = ~ mean(p^2) / 2, Mx = ~ mean(cos(q)), My = ~ mean(sin(q)))
  if (model == "ring") observe$V <- ~ sum(pairs(1 / sqrt(1 + eps - cos(q - q[j]))))
  m <- sde_model(drift = list(q = ~ p, p = force), params = if (model == "ring") c(eps = 0.01),
                 observe = observe, periodic = if (periodic) "q",
                 name = paste0("lrmd-", model, if (periodic) "-periodic"))
  .lrmd_models[[key]] <- m
  m
}

# The numbers of the states that gravity2d's engine calls keep at their
# records at most (8 B each: 256 MB), so that a long run records in several
# calls instead of holding every record's states at once.
lrmd_declared_kept <- function() 2^25

# Whether gravity2d's engine calls keep the states at their records (else
# they end at every record, whose positions are then the final state's):
# all but one system on several GPUs, whose slices (one a device) a run
# that keeps states gives up (sde_mb_gpu_slices()).
lrmd_declared_keeps <- function(fr, nsys) {
  !(fr$plan$backend == "gpu" && nsys == 1 && length(fr$plan$devices) > 1)
}

# The radius about the centre of mass holding half the particles, as
# sp_lrmd.c's sp_lrmd_half_mass_radius: the median distance (for even n the
# mean of the two middle ones).
lrmd_half_mass_radius <- function(x, y) {
  n <- length(x)
  d <- sqrt((x - sum(x) / n)^2 + (y - sum(y) / n)^2)
  h <- n %/% 2
  if (n %% 2) sort(d, partial = h + 1)[h + 1] else {
    d <- sort(d, partial = c(h, h + 1))
    0.5 * (d[h] + d[h + 1])
  }
}

# The records of the engine's observables (data frame rows `src`) as
# lrmd's (sp_lrmd_record_make): kinetic and potential energy per
# particle, then M_x, M_y (HMF, ring) or the virial W/n and the half-mass
# radius (gravity2d: `rhalf`, its values at these records); a 4 x
# length(src) matrix.
lrmd_declared_records <- function(model, r, src, n, eps, rhalf = NULL) {
  K <- r$K[src]
  if (model == "gravity2d") {
    pot <- (r$V[src] + n * log(eps * eps)) / (4 * n * n)
    return(rbind(K, pot, r$W[src] / (2 * n * n), rhalf, deparse.level = 0))
  }
  Mx <- r$Mx[src]
  My <- r$My[src]
  pot <- if (model == "hmf") 0.5 * (1 - (Mx * Mx + My * My)) else
    -(r$V[src] + n / sqrt(eps)) / (2 * sqrt(2) * n * n)
  rbind(K, pot, Mx, My, deparse.level = 0)
}

# The engine's non-finite error (sp_mb.c: "... `p` of element i of replica
# r (condition c) is NaN or infinite at t = .. (step k) ...") in the words
# of the built-in's (sp_lrmd_not_finite(): the particle, the step of the
# part, its time), "system s: " before it with several systems (lrmd_one()
# names the replica).
lrmd_declared_not_finite <- function(e, model, nsys, dt, call) {
  msg <- sp_cnd_text(e)
  p <- paste0("^.*`(q|p|x|y|px|py)` of element ([0-9]+) of replica ([0-9]+) \\(condition ",
              "[0-9]+\\) .*\\(step ([0-9]+)\\).*$")
  if (!grepl(p, msg)) return(invisible()) # (not the engine's: as it is)
  what <- if (sub(p, "\\1", msg) %in% c("p", "px", "py")) "momentum" else "position"
  k <- as.double(sub(p, "\\4", msg))
  sp_abort(sprintf(paste0("%sthe %s of particle %s became non-finite in step %s of the run ",
                          "(t = %s from its start); use a smaller `dt`%s"),
                   if (nsys > 1) sprintf("system %s: ", sub(p, "\\3", msg)) else "", what,
                   sub(p, "\\2", msg), format(k, scientific = FALSE),
                   formatC(k * dt, digits = 6, format = "g"),
                   if (model == "hmf") "" else " or a larger `softening`"),
           call = call, class = "statphysgpu_not_finite")
}

# One part of lrmd_one() (`steps` steps, records every `every` steps of the
# part, snapshots at `snap_steps` of it) of its systems -- `states`, each
# one's columns (theta, p, or x, y, px, py) or a recipe of a start to draw,
# or `joined`, the columns of all side by side -- on the declared engine.
# Returns a list: rec (4 x records x systems, NaN where not
# reached), state (the columns side by side), snap (per snapshot reached,
# the columns), steps_done, run (seconds, rounds, interrupted), start_pmax
# and pmax (a drawn start's largest |momentum|; NA for a given one).
lrmd_declared_sim <- function(fr, model, n, dt, softening, steps, every, states, snap_steps,
                              joined, call) {
  nsys <- length(states)
  nx <- length(lrmd_columns(model))
  two_d <- model == "gravity2d"
  pmax <- rep(NA_real_, nsys)
  periodic <- fr$precision == "mixed" && !two_d
  # gravity2d's half-mass radius needs the positions at each record: kept
  # by the engine (output "trajectories", at most lrmd_declared_kept()
  # numbers a call), or -- one system on several GPUs, which a run keeping
  # states would not slice -- read from the final state of calls ending at
  # every record
  keep <- two_d && lrmd_declared_keeps(fr, nsys)
  at_records <- two_d && !keep
  # every start a recipe: drawn by the engine in its first call, on the
  # device where it runs (sde_mb_run(start = list(recipes = ))), unless R
  # needs the start itself (a snapshot at step 0, or gravity2d's half-mass
  # radius at step 0 from the start)
  recipes <- NULL
  if (is.null(joined) && all(vapply(states, inherits, TRUE, "lrmd_draw")) &&
      !(0 %in% snap_steps) && !at_records) {
    recipes <- states
    x0 <- NULL
  } else if (is.null(joined)) {
    cols <- lapply(seq_len(nsys), function(s) {
      st <- states[[s]]
      if (inherits(st, "lrmd_draw")) { # drawn here, as the engine would, into one
        # vector (its columns one after another) with the largest |momentum|
        v <- withCallingHandlers(.Call(C_sp_r_lrmd_start_flat, st),
          error = function(e) { # several systems: named as the engine names them
            if (nsys > 1) {
              e$message <- paste0("system ", s, ": ", sp_cnd_text(e))
              stop(e)
            }
          })
        pmax[s] <<- attr(v, "pmax")
        attr(v, "pmax") <- NULL
        return(v)
      }
      lapply(st, as.double)
    })
    # one system drawn: its vector as it is (5e7 particles: no copy of 800 MB)
    x0 <- if (nsys == 1 && is.double(cols[[1]])) cols[[1]] else unlist(cols, use.names = FALSE)
    cols <- NULL
  } else {
    x0 <- as.vector(do.call(rbind, lapply(joined, function(v) matrix(as.double(v), n))))
  }
  m <- lrmd_declared_model(model, periodic)
  params <- if (model == "hmf") list() else list(eps = as.double(softening))
  nrec <- steps %/% every + 1
  rec <- array(NA_real_, c(4, nrec, nsys))
  snap <- list()
  # the state as the built-in's columns, each n x systems
  as_cols <- function(x) {
    # one system: each column copied once out of the states (in C; the
    # engine's final states keep their dim, which R would copy to drop)
    if (nsys == 1) return(.Call(C_sp_r_model_pick, x, as.double((seq_len(nx) - 1) * n), 1, n))
    dim(x) <- c(n, nx, nsys)
    lapply(seq_len(nx), function(j) as.vector(x[, j, ]))
  }
  max_len <- if (keep) max(1, floor(lrmd_declared_kept() / (n * nx * nsys)) - 1) * every else Inf
  rhalf_of <- function(x, s) { # system s of states x (n x nx x systems)
    o <- (s - 1) * n * nx
    lrmd_half_mass_radius(x[o + seq_len(n)], x[o + n + seq_len(n)])
  }
  if (0 %in% snap_steps) snap[[1]] <- as_cols(x0)
  seconds <- 0
  interrupted <- FALSE
  k <- 0
  while (k < steps) {
    nxt <- min(c(steps, snap_steps[snap_steps > k]))
    off <- k %% every
    len <- if (off != 0 || at_records) min(nxt - k, every - off) else min(nxt - k, max_len)
    ev <- if (off != 0 || at_records) len else min(every, len)
    r <- withCallingHandlers(
      sde_mb_run(m, nsys, n, NULL, dt, len * dt, params, "yoshida4",
                 if (keep) "trajectories" else "records", ev, if (keep) nsys else 0,
                 u64_to_hex(fr$seed), 1, fr$plan$backend,
                 if (fr$plan$backend == "gpu") fr$plan$devices,
                 if (fr$precision == "mixed") "single" else "double", fr$progress, call,
                 start = list(x0 = x0, recipes = recipes, k0 = k, t0 = k * dt, traj = keep)),
      statphysgpu_interrupted = function(w) invokeRestart("muffleWarning"),
      statphysgpu_not_finite = function(e) lrmd_declared_not_finite(e, model, nsys, dt, call))
    if (!is.null(recipes)) { # (drawn: the starts' largest |momentum|)
      pmax <- attr(r, "start_pmax")
      recipes <- NULL
    }
    made <- attr(r, "k_end") - k
    nr <- nrow(r) / nsys
    x1 <- attr(r, "final") # n x nx x systems (the next call's start as it is)
    if (nr > 0) {
      chain <- k + pmin((seq_len(nr) - 1) * ev, len)
      ok <- chain %% every == 0 & (chain > k | k == 0) & chain <= k + made
      nkept <- if (keep) length(attr(r, "traj")) / (n * nx * nsys) else 0
      for (s in seq_len(nsys)) {
        rh <- if (keep) {
          vapply(which(ok), function(j) {
            rhalf_of(attr(r, "traj")[((s - 1) * nkept + j - 1) * n * nx + seq_len(n * nx)], 1)
          }, 1)
        } else if (at_records) {
          vapply(chain[ok], function(c) rhalf_of(if (c == k) x0 else x1, s), 1)
        }
        rec[, chain[ok] / every + 1, s] <-
          lrmd_declared_records(model, r, (s - 1) * nr + which(ok), n, softening, rh)
      }
    }
    seconds <- seconds + attr(r, "seconds")
    x0 <- x1
    x1 <- NULL
    stopped <- isTRUE(attr(r, "interrupted"))
    r <- NULL
    k <- k + made
    if (k %in% snap_steps && k > 0) snap[[length(snap) + 1]] <- as_cols(x0)
    if (stopped || made < len) {
      interrupted <- TRUE
      break
    }
  }
  list(rec = as.vector(rec), state = as_cols(x0), snap = snap, steps_done = k,
       run = c(seconds = seconds, rounds = 0, interrupted = as.numeric(interrupted)),
       start_pmax = pmax[1], pmax = pmax)
}
