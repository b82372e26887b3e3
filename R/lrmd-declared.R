# lrmd() on the declared many-body engine (issue 50): the HMF and ring
# models as sde_model() declarations, Hamilton's equations (q = ~ p; p = ~
# the force) run by sde_run()'s engine (R/sde-mb-run.R) with method
# "yoshida4" -- the same composition as the built-in's (inst/cuda/lrmd.h:
# drift c1, kick d1, drift c2, kick d2, drift c2, kick d1, drift c1; its
# coefficients equal to the last bit or two) -- with the forces of
# inst/cuda/lrmd.h:
#   HMF   dp_i/dt = -M_x sin q_i + M_y cos q_i          (mean())
#   ring  dp_i/dt = -(1 / (2 sqrt(2) n)) sum_j sin(q_i - q_j)
#                     (1 + eps - cos(q_i - q_j))^(-3/2)   (pairs())
# The records are the engine's observables at the record steps: the kinetic
# energy mean(p^2) / 2, the magnetisation (mean(cos q), mean(sin q)) and for
# the ring the pair sum of 1 / sqrt(1 + eps - cos(q_i - q_j)) over j != i,
# to which R adds the n self terms 1 / sqrt(eps) that lrmd()'s potential
# counts (sp_lrmd.c's record: the sum over all i, j).
#
# Chosen by the tuning option statphysgpu.lrmd_engine = "declared"
# (R/tuning.R; "builtin" is the default until a GPU measurement shows this
# path at least 0.97 of the built-in's speed).  lrmd() checks every
# argument and makes the systems, the parts of a continuation, the records
# and the attributes as for the built-in; lrmd_declared_sim() stands for the
# built-in's sim_run("lrmd") in lrmd_one() and returns what that returns.
# What differs:
# * precision "mixed" runs the declared model in single precision (states
#   included: the built-in keeps positions and momenta in double), its
#   angles declared periodic (kept in [-pi, pi], as the final state and the
#   snapshots then report them); "double" is double throughout, angles not
#   reduced, as the built-in's;
# * a start the engine would draw (hmf_waterbag() ...) is drawn on the CPU
#   by the start's own columns (the same numbers: src/r_lrmd.c) and copied
#   to the engine;
# * snapshots end one engine call and start the next from its final state;
# * gravity2d stays on the built-in engine (its particles in the plane are
#   not declared yet: lrmd_declared_ok()).

# Whether lrmd() runs this model on the declared engine: option
# statphysgpu.lrmd_engine = "declared", HMF and ring.
lrmd_declared_ok <- function(model, call) {
  identical(sp_tuning("lrmd_engine", call), "declared") && model %in% c("hmf", "ring")
}

# The model of "hmf" or "ring", periodic angles or not: made once a session.
.lrmd_models <- new.env(parent = emptyenv())

lrmd_declared_model <- function(model, periodic) {
  key <- paste(model, periodic)
  if (!is.null(.lrmd_models[[key]])) return(.lrmd_models[[key]])
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

# The records of the engine's observables (data frame rows `src`) as
# lrmd's (sp_lrmd_record_make): kinetic and potential energy per
# particle, M_x, M_y; a 4 x length(src) matrix.
lrmd_declared_records <- function(model, r, src, n, eps) {
  K <- r$K[src]
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
  p <- "^.*`(q|p)` of element ([0-9]+) of replica ([0-9]+) \\(condition [0-9]+\\) .*\\(step ([0-9]+)\\).*$"
  if (!grepl(p, msg)) return(invisible()) # (not the engine's: as it is)
  what <- if (sub(p, "\\1", msg) == "p") "momentum" else "position"
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
# one's columns (theta, p) or a recipe of a start to draw, or `joined`,
# the columns of all side by side -- on the declared engine.  Returns
# sim_run("lrmd")'s list: rec (4 x records x systems, NaN where not
# reached), state (the columns side by side), snap (per snapshot reached,
# the columns), steps_done, run (seconds, rounds, interrupted), start_pmax
# and pmax (a drawn start's largest |momentum|; NA for a given one).
lrmd_declared_sim <- function(fr, model, n, dt, softening, steps, every, states, snap_steps,
                              joined, call) {
  nsys <- length(states)
  pmax <- rep(NA_real_, nsys)
  if (is.null(joined)) {
    cols <- lapply(seq_len(nsys), function(s) {
      st <- states[[s]]
      if (inherits(st, "lrmd_draw")) { # drawn here, as the engine would
        st <- withCallingHandlers({
          st <- .Call(C_sp_r_lrmd_start_columns, st)
          pmax[s] <<- max(abs(st[[2]]))
          st
        }, error = function(e) { # several systems: named as the engine names them
          if (nsys > 1) {
            e$message <- paste0("system ", s, ": ", sp_cnd_text(e))
            stop(e)
          }
        })
      }
      st
    })
    x0 <- unlist(lapply(cols, function(cl) list(as.double(cl[[1]]), as.double(cl[[2]]))),
                 use.names = FALSE)
    cols <- NULL
  } else {
    x0 <- as.vector(rbind(matrix(as.double(joined[[1]]), n), matrix(as.double(joined[[2]]), n)))
  }
  periodic <- fr$precision == "mixed"
  m <- lrmd_declared_model(model, periodic)
  params <- if (model == "ring") list(eps = as.double(softening)) else list()
  nrec <- steps %/% every + 1
  rec <- array(NA_real_, c(4, nrec, nsys))
  snap <- list()
  # the state as the built-in's columns (theta, p), each n x systems
  as_cols <- function(x) {
    dim(x) <- c(n, 2, nsys)
    list(as.vector(x[, 1, ]), as.vector(x[, 2, ]))
  }
  if (0 %in% snap_steps) snap[[1]] <- as_cols(x0)
  seconds <- 0
  interrupted <- FALSE
  k <- 0
  while (k < steps) {
    nxt <- min(c(steps, snap_steps[snap_steps > k]))
    off <- k %% every
    len <- if (off != 0) min(nxt - k, every - off) else nxt - k
    ev <- if (off != 0) len else min(every, len)
    r <- withCallingHandlers(
      sde_mb_run(m, nsys, n, NULL, dt, len * dt, params, "yoshida4", "records", ev, 0,
                 u64_to_hex(fr$seed), 1, fr$plan$backend,
                 if (fr$plan$backend == "gpu") fr$plan$devices,
                 if (periodic) "single" else "double", fr$progress, call,
                 start = list(x0 = x0, k0 = k, t0 = k * dt)),
      statphysgpu_interrupted = function(w) invokeRestart("muffleWarning"),
      statphysgpu_not_finite = function(e) lrmd_declared_not_finite(e, model, nsys, dt, call))
    made <- attr(r, "k_end") - k
    nr <- nrow(r) / nsys
    if (nr > 0) {
      chain <- k + pmin((seq_len(nr) - 1) * ev, len)
      ok <- chain %% every == 0 & (chain > k | k == 0) & chain <= k + made
      for (s in seq_len(nsys)) {
        rec[, chain[ok] / every + 1, s] <-
          lrmd_declared_records(model, r, (s - 1) * nr + which(ok), n, softening)
      }
    }
    seconds <- seconds + attr(r, "seconds")
    x0 <- as.double(attr(r, "final"))
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
