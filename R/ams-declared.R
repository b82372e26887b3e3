# escape_rate_ams() on the declared engine (issue 50): the tilted washboard
# of escape.h,
#   phi' = v,  v' = V0 (gamma - sin phi) - beta v + sqrt(2 beta theta) xi(t),
# declared with sde_model() and run by sde_ams()'s engine (sde_ams_engine(),
# R/sde-ams.R; ams.h with ams_sde.h), in place of the built-in model of the
# AMS engine (ams_washboard.h).  Chosen by the tuning option
# statphysgpu.ams_engine = "declared" (R/tuning.R; "builtin" is the
# default).  escape_rate_ams() checks every argument and builds the frame;
# ams_declared_run() stands for the built-in's sim_run() and returns the
# engine's result, which ams_finish() turns into the same result.  The
# same algorithm, the same laws:
# * A = {phi <= phi_A}, B = {phi > th}: B is the model's stop event `phi >
#   th` (th a parameter per condition), its crossing interpolated linearly
#   in phi inside the step (the gap phi - th), as the built-in's;
# * the score: `~ phi`, A a region of it (start_edge = phi_A); or the
#   energy `~ v^2/2 - V0 (cos(phi) + gamma phi)` with A a region of `phi`
#   (sde_ams(start_coordinate = ~ phi));
# * the steps: sde_engine.h's Euler and stochastic Heun with one normal a
#   step, on v (the built-in's steps, rounded otherwise);
# * the starts: at rest at the bottom (phi = asin(gamma), v = 0), or
#   thermal: phi drawn from the Boltzmann law of the well tabulated as
#   escape_times() tabulates it (escape_start_tables(): the same table, the
#   same inversion, sp_ams_table_draw of ams_args.h) and v from N(0, theta),
#   independently.
# What differs: the random streams.  The steps draw from the AMS purposes
# of the same Philox stream (c - 1) 2^40 + r - 1 (the same numbers of
# normals in the same blocks), but the thermal starts draw from sde_ams()'s
# purpose (SP_PURPOSE_SDE_INIT, blocks j D + d), not from escape_times()'s
# thermal start of the path (purpose SP_PURPOSE_ESCAPE_START) and the
# AMS purpose's restart blocks; so thermal results differ replica by
# replica from the built-in's and agree in law; at rest the paths follow
# the same normals through differently rounded steps (equal to the built-in
# only in law, as a replay's levels amplify rounding).
.ams_declared <- new.env(parent = emptyenv())

ams_declared_model <- function(call) {
  if (!is.null(.ams_declared$m)) return(.ams_declared$m)
  m <- sde_model(drift = list(phi = ~ v, v = ~ V0 * (gamma - sin(phi)) - beta * v),
                 noise = list(v = ~ sqrt(2 * beta * theta)),
                 params = c(gamma = 0, V0 = 1, beta = 1, theta = 0.1, th = pi),
                 stop = ~ phi > th, name = "washboard-ams")
  .ams_declared$m <- sde_model_trusted(m, call)
  .ams_declared$m
}

# The scores of escape_rate_ams() as expressions of the declared model.
AMS_DECLARED_SCORES <- list(
  position = quote(phi),
  energy = quote(0.5 * v * v - V0 * (cos(phi) + gamma * phi)))

# The run of escape_rate_ams() on the declared engine: the checked grid
# (gamma, V0, beta, theta), thresholds th and edges phiA per condition, the
# score kind (0 position, 1 energy), the start ("rest", "thermal"); the
# frame fr as escape_rate_ams() made it.  Returns the engine's result as
# sim_run() does (interrupts held until the caller returns).
ams_declared_run <- function(fr, grid, th, phiA, score_kind, init, dt, method, particles, k,
                             call, envir = parent.frame()) {
  m <- ams_declared_model(call)
  ncond <- nrow(grid)
  g <- data.frame(gamma = grid$gamma, V0 = grid$V0, beta = grid$beta, theta = grid$theta,
                  th = as.double(th))
  score <- c("position", "energy")[score_kind + 1L]
  laws <- matrix(0, ncond, 6)
  start_tables <- numeric()
  if (init == "rest") {
    laws[, 1:3] <- cbind(-1, asin(grid$gamma), 0)
    laws[, 4:6] <- cbind(-1, 0, 0)
  } else {
    # the thermal law of escape_times(): phi from the well's Boltzmann law
    # (its table), v normal with variance theta
    K <- ESCAPE_KNOTS
    tb <- escape_start_tables(grid$gamma, grid$V0, grid$theta)
    one <- 3 + 2 * K
    start_tables <- unlist(lapply(seq_len(ncond), function(c) {
      c(K, tb$lo[c], tb$step[c], tb$tables[tb$offset[c] + seq_len(2 * K)])
    }), use.names = FALSE)
    laws[, 1:3] <- cbind(3, (seq_len(ncond) - 1) * one, 0) # SP_AMS_START_TABLE
    laws[, 4:6] <- cbind(1, 0, sqrt(grid$theta))
  }
  withCallingHandlers(
    sde_ams_engine(m, AMS_DECLARED_SCORES[[score]], fr, g, method, dt, particles, k,
                   zA = as.double(phiA), zB = NULL, laws = laws, burn = 0, call = call,
                   edge_e = if (score == "energy") quote(phi), start_tables = start_tables,
                   envir = envir),
    error = function(e) ams_declared_error(e))
}

# The engine's errors in escape_rate_ams()'s words, as the built-in model
# words them (src/core/sp_ams.c names sde_ams()'s arguments for a user's
# model): a stuck long trajectory asks for a larger `theta`, a path past the
# engine's limits for a lower `phi_A` -- the same condition (class, call),
# its message reworded.  Other errors pass unchanged.
ams_declared_error <- function(e) {
  if (!is.character(e$message)) return(invisible())
  words <- c("`params`, the model's noise or `init`" = "a larger `theta`",
             "a lower `A`" = "a lower `phi_A`")
  hit <- vapply(names(words), function(w) grepl(w, e$message, fixed = TRUE), TRUE)
  if (!any(hit)) return(invisible())
  for (w in names(words)[hit]) e$message <- sub(w, words[[w]], e$message, fixed = TRUE)
  stop(e)
}
