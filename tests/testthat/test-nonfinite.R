# A state that becomes NaN or infinite fails the run with an error of class
# statphysgpu_not_finite naming the replica (path, system, particle,
# walker), the quantity and the step -- never NaN (or a silently censored
# path) returned as data.  The inputs (helper-nonfinite.R) blow up within a
# few steps by plain overflow, so the step is known from the arithmetic (see
# the comment of each case); test-nonfinite-gpu.R runs the same inputs on
# the GPU and expects the same messages.

not_finite <- "statphysgpu_not_finite"

test_that("escape: a velocity that overflows is an error naming replica, condition and step", {
  # Euler, beta h = 1e150: v_1 = sigma z ~ 1e75, v_2 ~ -beta h v_1 ~ 1e225,
  # v_3 ~ -beta h v_2 overflows (phi_3 = phi_2 + h v_2 is still finite).
  # Condition 1 is an ordinary one; paths of condition 2 blow up, and until
  # now were returned as censored or escaped.
  conds <- nf_escape_conds(beta = c(1, 1e150), h = c(0.01, 1))
  expect_error(nf_escape(conds), class = not_finite,
               "^the velocity v of replica 1 of condition 2 became non-finite at step 3 \\(t = 3\\); such a path can neither escape nor be censored: use a smaller `dt`")
  # single precision: beta h = 1e30, v_2 ~ 1.4e45 overflows float at step 2
  expect_error(nf_escape(nf_escape_conds(beta = 1e30, h = 1), precision = "single"),
               class = not_finite,
               "velocity v of replica 1 of condition 1 became non-finite at step 2 \\(t = 2\\)")
  # replicas are numbered from first_replica
  expect_error(nf_escape(nf_escape_conds(beta = 1e150, h = 1), first = 11), class = not_finite,
               "velocity v of replica 11 of condition 1 became non-finite at step 3")
})

test_that("escape: srk2 names the position, a ramp the bias; never an escape or a censored path", {
  # srk2: v_1 ~ -beta h sigma z / 2 ~ 1e225, then the predictor's velocity
  # overflows in step 2 and the corrector's position phi_2 = phi_1 + h (v_1 +
  # v~) / 2 with it (its velocity, Inf - Inf, is NaN: the position is named
  # first).  Several paths cross the threshold in step 1 and then blow up in
  # the same macro-step: none of them may count as an escape.
  expect_error(nf_escape(nf_escape_conds(beta = 1e150, h = 1), method = "srk2"),
               class = not_finite,
               "position phi of replica 1 of condition 1 became non-finite at step 2 \\(t = 2\\)")
  # switching currents: the bias reached, gamma_3 = 0.5 + 3 x 0.001
  expect_error(nf_escape(nf_escape_conds(beta = 1e150, h = 1, dg = 0.001)), class = not_finite,
               "at step 3 \\(t = 3, bias gamma = 0.503\\)")
})

test_that("escape_times: paths turned NaN by an absurd temperature are an error, not censored", {
  # theta = 1e280 (sigma ~ 1e139): phi jumps to ~1e137 in a step, where the
  # force's sine is no longer a number; those paths used to be censored
  expect_error(suppressWarnings(
    escape_times(8, gamma = 0.5, V0 = 1, beta = 1, theta = 1e280, dt = 0.01, t_max = 1,
                 precision = "double", seed = 1, backend = "cpu")),
    class = not_finite, "replica 1 of condition 1 became non-finite at step [0-9]+ .*neither escape nor be censored")
})

test_that("driven_brownian: an overflowing velocity is an error naming replica, condition and step", {
  # f = 1e308 and dt = 2 pi: Euler's first step v_1 = dt (f + ...) overflows
  # while x_1 = x_0 + dt v_0 = x_0; condition 1 (f = 0) stays finite for the
  # 4 steps (|1 - gamma dt|^4 ~ 800).  Until now: NaN x, v and averages.
  expect_error(suppressWarnings(
    driven_brownian(3, a = 0, omega = 1, f = c(0, 1e308), beta = 1, theta = 0.1, periods = 4,
                    steps_per_period = 1, method = "euler", precision = "double", seed = 1,
                    backend = "cpu")),
    class = not_finite,
    "^the velocity v of replica 1 of condition 2 became non-finite at step 1 \\(t = 6.28319, period 1\\); raise `steps_per_period`")
  # srk2 in single precision (f is Inf there): the corrector's x_1 = x_0 +
  # dt/2 (v_0 + v~) is infinite, and named before the velocity
  expect_error(suppressWarnings(
    driven_brownian(3, a = 0, omega = 1, f = c(0, 1e308), beta = 1, theta = 0.1, periods = 4,
                    steps_per_period = 1, method = "srk2", precision = "single", seed = 1,
                    backend = "cpu", first_replica = 4)),
    class = not_finite, "position x of replica 4 of condition 2 became non-finite at step 1")
  # the example of the issue: a step far too coarse for gamma = 1e6
  expect_error(suppressWarnings(
    driven_brownian(4, a = 0, omega = 1, f = 0, beta = 1e6, theta = 1, periods = 100,
                    steps_per_period = 1, precision = "double", seed = 1, backend = "cpu")),
    class = not_finite, "of replica 1 of condition 1 became non-finite at step [0-9]+")
})

test_that("kuramoto: phases that overflow are an error naming replica, condition and step", {
  # K = 1e300, dt = 1e10: the predictor x + dt F overflows in step 1 (condition
  # 1, K = 1, stays finite).  Until now: NaN phases and records.
  msg <- "^the phases of replica 1 of condition 2 \\(K = 1e\\+300\\) became non-finite at step 1 \\(t = 1e\\+10\\); use a smaller `dt`"
  for (coupling in c("mean_field", "pairs")) {
    expect_error(suppressWarnings(
      kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, coupling = coupling,
               precision = "double", seed = 1, backend = "cpu")),
      class = not_finite, msg)
  }
  expect_error(suppressWarnings(
    kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, A = matrix(1, 8, 8),
             precision = "double", seed = 1, backend = "cpu")),
    class = not_finite, msg)
  # single precision: K / n is infinite in float, so F is from step 1
  expect_error(suppressWarnings(
    kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 0.01, steps = 5, precision = "single",
             seed = 1, backend = "cpu", first_replica = 5)),
    class = not_finite,
    "phases of replica 5 of condition 2 \\(K = 1e\\+300\\) became non-finite at step 1 \\(t = 0.01\\)")
})

test_that("kuramoto: a sparse coupling matrix is checked too", {
  skip_if_not_installed("Matrix")
  ring <- Matrix::sparseMatrix(i = 1:8, j = c(2:8, 1), x = 1, dims = c(8, 8))
  expect_error(suppressWarnings(
    kuramoto(8, K = c(1, 1e300), replicas = 2, dt = 1e10, steps = 5, A = ring,
             precision = "double", seed = 1, backend = "cpu")),
    class = not_finite, "phases of replica 1 of condition 2 .* at step 1 ")
})

# lrmd(): its non-finite states and records on the declared engine are
# tested in test-lrmd-declared.R and test-lrmd.R (the built-in engine's
# own checks went with it, issue 50).

test_that("he4_vmc: non-finite energies or coordinates are an error naming walker and sweep", {
  # b = 1e100: b^5 overflows, so the Jastrow terms of the kinetic energy are
  # not numbers at the first measurement (sweep 1); the moves are all
  # rejected (their log ratio is NaN), so the coordinates stay finite.
  # Until now: NaN energies in the blocks.
  for (prec in c("mixed", "double")) {
    expect_error(he4_vmc(32, b = 1e100, replicas = 2, blocks = 2, block_sweeps = 2,
                         equilibration = 0, displacement = 0.3, seed = 1, backend = "cpu",
                         precision = prec),
                 class = not_finite,
                 "^the kinetic energy of walker 1 became non-finite at the measurement after sweep 1 of this call \\(block 1\\)")
  }
  # step = 1e300 is infinite in single precision: the first trial move puts
  # atom 1 at NaN (wrapped Inf), and it is accepted (the pair terms of a NaN
  # distance drop out).  Until now: NaN coordinates and energies 0.
  expect_error(he4_vmc(32, replicas = 2, blocks = 2, block_sweeps = 2, equilibration = 3,
                       displacement = 1e300, seed = 1, backend = "cpu", precision = "mixed",
                       first_replica = 3),
               class = not_finite,
               "^the coordinates of atom 1 of walker 3 became non-finite in sweep 1 of this call \\(equilibration\\); check `step`")
})

test_that("the thread count does not change which failure is reported", {
  esc <- function() nf_message(nf_escape(nf_escape_conds(beta = c(1, 1e150), h = c(0.01, 1)),
                                         n = 40))
  expect_identical(with_threads(2, esc()), with_threads(1, esc()))
  drv <- function() nf_message(suppressWarnings(
    driven_brownian(40, a = 0, omega = 1, f = c(0, 1e308), beta = 1, theta = 0.1, periods = 4,
                    steps_per_period = 1, method = "euler", seed = 1, backend = "cpu")))
  expect_identical(with_threads(2, drv()), with_threads(1, drv()))
  kur <- function() nf_message(suppressWarnings(
    kuramoto(8, K = c(1, 1e300, 1e300), replicas = 3, dt = 1e10, steps = 3,
             precision = "double", seed = 1, backend = "cpu")))
  expect_identical(with_threads(2, kur()), with_threads(1, kur()))
  vmc <- function() nf_message(he4_vmc(32, b = 1e100, replicas = 4, blocks = 1,
                                       block_sweeps = 1, equilibration = 0, displacement = 0.3,
                                       seed = 1, backend = "cpu"))
  expect_identical(with_threads(2, vmc()), with_threads(1, vmc()))
})
