# A many-body model started from a start of lrmd()'s (hmf_waterbag(),
# hmf_equilibrium(), ring_uniform(), gravity2d_shell()): sde_run(init = )
# hands its recipe to the engine, which draws each system's start itself
# (issue 50 item 4; src/core/sp_mb_recipe.c on the CPU, bit for bit the
# numbers R draws when the start is read), replica r of the call from the
# start's replica streams r (lrmd()'s), every condition alike.

skip_on_cran()

hmf_user <- function() {
  sde_model(drift = list(q = ~ p, p = ~ g * (mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q))),
            params = c(g = 1), observe = list(K = ~ mean(p^2) / 2, M = ~ mean(cos(q))),
            name = "hmf-user")
}
# the start of replica r (1-based) of a start, drawn by R
start_of <- function(w, r) {
  rc <- statphysgpu:::lrmd_recipe_replica(statphysgpu:::lrmd_recipe(w)$recipe, r)
  v <- .Call(statphysgpu:::C_sp_r_lrmd_start_flat, rc)
  attr(v, "pmax") <- NULL
  v
}

test_that("sde_run(init = <lrmd start>): each system drawn by the engine from its replica's streams", {
  skip_if_no_cc()
  m <- hmf_user()
  w <- hmf_waterbag(64, 0.5, 0.69, seed = 7)
  # the kept states at t = 0: replica r is the start's replica r, bit for bit
  r <- sde_run(m, replicas = 3, n = 64, init = w, dt = 0.05, t_max = 0.1, method = "yoshida4",
               output = "trajectories", keep = 3, precision = "double", backend = "cpu",
               progress = FALSE, seed = 1)
  d <- as.data.frame(r)
  for (k in 1:3) {
    at0 <- d[d$replica == k & d$time == 0, ]
    expect_identical(c(at0$q, at0$p), start_of(w, k))
  }
  expect_identical(c(d$q[d$replica == 1 & d$time == 0]), w$theta)
  # each start's largest |momentum| (internal: lrmd()'s pmax)
  expect_identical(attr(r, "start_pmax"),
                   vapply(1:3, function(k) max(abs(start_of(w, k)[65:128])), 1))
  # every condition starts alike, the run = the run of the numbers given
  r2 <- sde_run(m, replicas = 2, n = 64, init = hmf_equilibrium(64, 0.4, seed = 2), dt = 0.05,
                t_max = 0.2, method = "yoshida4", params = list(g = c(1, 0.5)),
                precision = "double", backend = "cpu", progress = FALSE, seed = 1)
  at0 <- r2[r2$time == 0, ]
  expect_identical(at0$K[at0$condition == 1], at0$K[at0$condition == 2])
  e <- hmf_equilibrium(64, 0.4, seed = 2)
  r3 <- sde_run(m, replicas = 1, n = 64, init = list(q = e$theta, p = e$p), dt = 0.05, t_max = 0.2,
                method = "yoshida4", params = list(g = c(1, 0.5)), precision = "double",
                backend = "cpu", progress = FALSE, seed = 1)
  f2 <- attr(r2, "final")
  f3 <- attr(r3, "final")
  expect_identical(unname(f2[, , c(1, 3)]), unname(f3))
  # single precision: the same start (the engine rounds the doubles)
  r4 <- sde_run(m, replicas = 1, n = 64, init = w, dt = 0.05, t_max = 0.05, method = "yoshida4",
                output = "trajectories", precision = "single", backend = "cpu",
                progress = FALSE, seed = 1)
  d4 <- as.data.frame(r4)
  expect_identical(d4$p[d4$time == 0], w$p)
})

test_that("sde_run(init = <lrmd start>): a start that does not fit is an error naming `init`", {
  skip_if_no_cc()
  m <- hmf_user()
  run <- function(model, init, n = 64) {
    sde_run(model, replicas = 1, n = n, init = init, dt = 0.05, t_max = 0.1, method = "yoshida4",
            backend = "cpu", progress = FALSE)
  }
  expect_error(run(m, hmf_waterbag(32, 1, 0.69, seed = 1)),
               "`init` \\(a start of hmf_waterbag\\(\\)\\) has 32 particles .* n = 64 elements",
               class = "statphysgpu_error")
  expect_error(run(m, gravity2d_shell(64, 0.5, 1, seed = 1)),
               "has the 4 columns `x`, `y`, `px`, `py`.* \"hmf-user\" has 2 states",
               class = "statphysgpu_error")
  expect_error(run(m, ring_uniform(64, c(0.1, 0.2), seed = 1)),
               "`init` is a grid of 2 starts", class = "statphysgpu_error")
  w <- hmf_waterbag(64, 1, 0.69, seed = 1)
  w$p <- w$p * 2
  expect_error(run(m, w), "`init` is a start of lrmd\\(\\) whose columns were changed",
               class = "statphysgpu_error")
  box <- sde_model(drift = list(x = ~ v, v = ~ -mean(x)), positions = "x",
                   observe = list(X = ~ mean(x)), name = "boxed")
  expect_error(sde_run(box, replicas = 1, n = 64, init = hmf_waterbag(64, 1, 0.69, seed = 1),
                       dt = 0.05, t_max = 0.1, box = 1, backend = "cpu", progress = FALSE),
               "`init` \\(a start of hmf_waterbag\\(\\)\\) cannot start the model \"boxed\"",
               class = "statphysgpu_error")
  # the energy of a waterbag below its drawn angles' potential: the engine's error
  expect_error(run(m, hmf_waterbag(64, 0.5, 0.375, seed = 2)), # (R's draw fails too)
               "`U` = 0.375 is below the potential energy", class = "statphysgpu_start_error")
})
