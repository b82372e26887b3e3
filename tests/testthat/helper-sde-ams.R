# Models of the sde_ams() tests (test-sde-ams.R, test-sde-ams-gpu.R).

# The overdamped cubic U(x) = x^2/2 - x^3/3: a well at 0, the barrier
# dU = 1/6 at x = 1; dx = -U'(x) dt + sqrt(2 theta) dW.
sde_cubic <- function(stop = ~ x > 1) {
  sde_model(drift = list(x = ~ -x + x^2), noise = list(x = ~ sqrt(2 * theta)),
            params = c(theta = 0.05), stop = stop, name = "cubic")
}

# Its exact mean first-passage time from x0 to b (the Smoluchowski double
# integral), with the level shifted out by 0.5826 sqrt(2 theta dt) for the
# discrete monitoring of the steps (REFERENCES.md section 2).
cubic_mfpt <- function(theta, dt, x0 = 0, b = 1) {
  U <- function(x) x^2 / 2 - x^3 / 3
  b <- b + 0.5826 * sqrt(2 * theta * dt)
  inner <- function(y) stats::integrate(function(z) exp(-(U(z) - U(y)) / theta), -Inf, y,
                                        rel.tol = 1e-10)$value
  stats::integrate(Vectorize(inner), x0, b, rel.tol = 1e-9)$value / theta
}

# The tilted washboard of escape_rate_ams() as a model, B its saddle.
sde_ams_washboard <- function(beta = 1, V0 = 1, gamma = 0.2, theta = 0.3) {
  sde_model(drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
            noise = list(v = ~ sqrt(2 * beta * theta)),
            params = c(beta = beta, V0 = V0, gamma = gamma, theta = theta),
            stop = ~ x > pi - asin(gamma), name = "washboard")
}

# Two states, two noise entries (two normals a step).
sde_ams_two <- function() {
  sde_model(drift = list(x = ~ -x + x^2 + c * y, y = ~ -y),
            noise = list(x = ~ sqrt(2 * theta), y = ~ sqrt(2 * theta)),
            params = c(theta = 0.06, c = 0.3), stop = ~ x > 1, name = "two")
}

# Two AMS replica tables (GPU and CPU, double precision) agree replica by
# replica: the decisions (exits, levels, kills, picks) are comparisons of
# values that agree to rounding (fused multiply-adds on the GPU), so the
# counts are identical and the values equal to rounding.
expect_ams_replicas_equal <- function(gpu, cpu, info = "") {
  for (col in c("n_B", "n_start", "n_cycle", "n_lt_react", "iterations", "branches", "status")) {
    testthat::expect_identical(gpu[[col]], cpu[[col]], info = paste(info, col))
  }
  for (col in c("p", "react", "t_start", "t_cycle")) {
    testthat::expect_equal(gpu[[col]], cpu[[col]], tolerance = 1e-9, info = paste(info, col))
  }
}

# A constant drift to the right with (almost) no noise: a path from x0
# leaves A = {x <= a} at the first step past a, so the long trajectory's
# durations give its starts exactly (the tests of drawn starts).
sde_ams_drift <- function() {
  sde_model(drift = list(x = ~ 1), noise = list(x = ~ eps), params = c(eps = 1e-9),
            name = "drift")
}

# The draws of starts 0 .. n - 1 of replicas `reps` (1-based) of condition 1
# (kind 0 uniform, 1 normal, 2 Cauchy; one drawn state): a matrix, one
# column per replica -- the package's Philox purpose 13, block j.
sde_ams_start_draws <- function(seed, reps, n, kind) {
  matrix(.Call(C_sp_r_mb_draws, resolve_seed(seed), 13L, 0, as.double(reps - 1), n, 1, 0,
               as.integer(kind)), n)
}

# What the drift model's long trajectory records, from its starts x0[1],
# x0[2], ... (in order, the restarts after B and after an equilibration that
# reached B included): A = {x <= a}, B = {x >= b}, `burn` steps of
# equilibration, N exits.
sde_ams_drift_expect <- function(x0, a, b, burn, dt, N) {
  out <- c(t_start = 0, n_start = 0, t_direct = 0, n_direct = 0, n_lt_react = 0)
  exits <- 0
  j <- 0
  while (exits < N) {
    j <- j + 1
    xb <- x0[j] + burn * dt
    if (xb >= b) next # reached B while equilibrating: the next start
    if (xb > a) { # outside A after it: straight to B, a direct escape
      kB <- ceiling((b - xb) / dt)
      frac <- (b - (xb + (kB - 1) * dt)) / dt
      out[["t_direct"]] <- out[["t_direct"]] + (kB - 1 + frac) * dt
      out[["n_direct"]] <- out[["n_direct"]] + 1
      next
    }
    out[["t_start"]] <- out[["t_start"]] + (floor((a - xb) / dt) + 1) * dt
    out[["n_start"]] <- out[["n_start"]] + 1
    exits <- exits + 1
    if (exits < N) out[["n_lt_react"]] <- out[["n_lt_react"]] + 1
  }
  out
}
