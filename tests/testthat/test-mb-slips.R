# The silent slips of many-body runs (issue 49, item 6 and "Smaller"): a
# model without `n`, runs past t_max, a square lattice's matrix start read
# transposed, element parameters not returned, no per-system starts, the
# noise through pairs() printed "additive" and its refusal of srk2, and the
# messages for NA parameters and invalid draws.  CPU, small sizes.

# Heavy: many-body models compiled by the C compiler. Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

# x' = w (w an element parameter, normal of sd `sw` unless given), noise s
# (0 by default: deterministic), a system's first passage of mean(x) over lev.
slips_model <- function() {
  if (is.null(.mb_models$slips)) {
    .mb_models$slips <- sde_model(
      drift = list(x = ~ w + 0 * mean(x)), noise = list(x = ~ s),
      params = list(s = 0, lev = 1, sw = 1, w = ~ rnorm(0, sw)),
      observe = list(m = ~ mean(x)), stop = ~ mean(x) > lev, name = "slips-w")
  }
  .mb_models$slips
}

# The square lattice of test-mb.R (the same declaration: one compiled object).
slips_square <- function() {
  if (is.null(.mb_models$diff2d)) {
    .mb_models$diff2d <- sde_model(
      drift = list(u = ~ k * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u)),
      params = c(k = 0.1), lattice = "square",
      observe = list(s = ~ sum(u), r = ~ sum(i * u), c = ~ sum(j * u)), name = "diff2d")
  }
  .mb_models$diff2d
}

test_that("a many-body model run without `n` is an error naming n; n = 1 given still runs", {
  kur <- mb_model("kur")
  expect_error(sde_run(kur, 2, init = list(theta = ~ runif(-pi, pi)), dt = 0.1, t_max = 1,
                       backend = "cpu"),
               "`n` is missing: the model \"kuramoto-mf\" .*give `n = `",
               class = "statphysgpu_n_missing")
  # a model on the many-body engine only for its periodic state: n = 1 is offered
  per <- sde_model(drift = list(theta = ~ w - sin(theta)), params = c(w = 0.5),
                   periodic = "theta", name = "per-one")
  expect_error(sde_run(per, 2, init = list(theta = 0), dt = 0.1, t_max = 1, backend = "cpu"),
               "periodic states.*or n = 1 for systems of one element each",
               class = "statphysgpu_n_missing")
  skip_if_no_cc()
  one <- sde_run(slips_model(), 3, n = 1, init = list(x = 0), dt = 0.5, t_max = 1,
                 method = "euler", output = "records", record_every = 1, seed = 1,
                 backend = "cpu", precision = "double")
  expect_identical(attr(one, "n"), 1)
  expect_identical(dim(attr(one, "final")), c(1L, 1L, 3L))
})

test_that("many-body runs end at t_max as single-particle runs do (records, passage, continuation)", {
  skip_if_no_cc()
  m <- slips_model()
  run <- function(t_max, init = list(x = 0), output = "records", ...) {
    sde_run(m, 2, n = 3, init = init, dt = 0.3, t_max = t_max, method = "euler",
            output = output, record_every = 1, seed = 2, backend = "cpu",
            precision = "double", ...)
  }
  # t_max = 1, dt = 0.3: the last whole step, 0.9, with the single-particle warning
  expect_warning(r <- run(1), "not a whole number of steps", class = "statphysgpu_t_max_warning")
  expect_equal(sort(unique(r$time)), c(0, 0.3, 0.6, 0.9), tolerance = 1e-15)
  expect_equal(attr(r, "t_max"), 0.9, tolerance = 1e-15)
  expect_equal(attr(r, "t_end"), 0.9, tolerance = 1e-15)
  # passage: x = 0.3 k exactly (w = 1): over 0.5 at 0.6 (escaped); over 0.95
  # at 1.2, after t_max (censored at t_max = 1, as single-particle passages)
  p <- run(1, output = "passage", params = list(w = 1, lev = c(0.5, 0.95)))
  expect_identical(p$escaped, c(TRUE, TRUE, FALSE, FALSE))
  expect_equal(p$value, c(0.6, 0.6, 1, 1), tolerance = 1e-12)
  # an event at t_max itself is a passage (x = 0.1 k over 0.99 at step 10 = t_max)
  q <- sde_run(m, 1, n = 2, init = list(x = 0), dt = 0.1, t_max = 1, method = "euler",
               output = "passage", params = list(w = 1, lev = 0.99), backend = "cpu",
               precision = "double")
  expect_true(q$escaped)
  expect_equal(q$value, 1, tolerance = 1e-12)
  # a continuation of runs ending at a whole step is one long run, bit for bit
  noisy <- list(s = 0.7)
  whole <- suppressWarnings(run(1.9, init = list(x = ~ rnorm(0, 1)), params = noisy))
  half <- suppressWarnings(run(0.95, init = list(x = ~ rnorm(0, 1)), params = noisy))
  cont <- suppressWarnings(run(0.95, init = half, params = noisy))
  expect_equal(attr(whole, "t_end"), 1.8, tolerance = 1e-15)
  expect_equal(attr(cont, "t_end"), 1.8, tolerance = 1e-15)
  expect_identical(attr(cont, "final"), attr(whole, "final"))
  expect_identical(cont$m, whole$m[whole$time >= 0.9 - 1e-12])
})

test_that("a square lattice's matrix start is x[i, j] = M[i, j]; trajectories carry i and j", {
  skip_if_no_cc()
  m <- slips_square()
  L1 <- 4; L2 <- 5
  U <- matrix((seq_len(L1 * L2)^2) %% 7, L1, L2) # any matrix, read as given
  U[1, 2] <- 10 # (no symmetry that a transposition could keep)
  sh <- function(M, a, b) M[((seq_len(L1) - 1 + a) %% L1) + 1, ((seq_len(L2) - 1 + b) %% L2) + 1]
  step <- function(M) M + 0.1 * (sh(M, 1, 0) + sh(M, -1, 0) + sh(M, 0, 1) + sh(M, 0, -1) - 4 * M)
  r <- sde_run(m, 1, n = c(L1, L2), init = list(u = U), dt = 1, t_max = 1, method = "euler",
               output = "records", record_every = 1, backend = "cpu", precision = "double")
  # element (i - 1) L2 + j is row i, column j: the final state row by row
  expect_equal(attr(r, "final")[, "u", 1], as.vector(t(step(U))), tolerance = 1e-15)
  expect_equal(r$r[1], sum(row(U) * U))
  expect_equal(r$c[1], sum(col(U) * U))
  # an L1 x L2 x replicas array: one matrix a system
  A <- array(c(U, 2 * U), c(L1, L2, 2))
  tr <- sde_run(m, 2, n = c(L1, L2), init = list(u = A), dt = 1, t_max = 1, method = "euler",
                output = "trajectories", keep = 2, record_every = 1, backend = "cpu",
                precision = "double")
  expect_identical(names(tr)[1:6], c("condition", "replica", "time", "element", "i", "j"))
  expect_equal(tr$element, (tr$i - 1) * L2 + tr$j)
  for (k in 1:2) {
    z <- tr[tr$replica == k & tr$time == 0, ]
    expect_identical(z$u, A[, , k][cbind(z$i, z$j)])
    z <- tr[tr$replica == k & tr$time == 1, ]
    expect_equal(z$u, step(A[, , k])[cbind(z$i, z$j)], tolerance = 1e-15)
  }
  expect_error(sde_run(m, 1, n = c(L1, L2), init = list(u = t(U)), dt = 1, t_max = 1,
                       backend = "cpu"),
               "`init\\$u` is an array of 5 x 4; on this 4 x 5 lattice a start is an L1 x L2 matrix")
})

test_that("drawn element parameters come back with the result (sde_element_params())", {
  skip_if_no_cc()
  m <- slips_model()
  run <- function(reps = 3, first = 1, output = "trajectories", ...) {
    sde_run(m, reps, n = 5, init = list(x = 0), dt = 1, t_max = 1, method = "euler",
            output = output, keep = 3, record_every = 1, seed = 4, first_replica = first,
            backend = "cpu", precision = "double", ...)
  }
  r <- run(params = list(sw = 2, lev = c(5, 6)))
  ep <- sde_element_params(r)
  expect_identical(names(ep), c("condition", "lev", "replica", "element", "w"))
  expect_identical(nrow(ep), 2L * 3L * 5L)
  expect_identical(dim(attr(r, "element_params")), c(5L, 1L, 6L))
  # x(1) - x(0) = w: the values each system ran with (the kept systems:
  # condition 1's replicas 1 to 3)
  end <- r[r$time == 1, ]
  expect_identical(ep$w[ep$condition == 1], end$x)
  expect_false(any(duplicated(ep$w))) # drawn per element, system and condition
  # chunks combined give the values of one call
  w1 <- run(output = "records")
  parts <- rbind(run(1, output = "records"), run(2, first = 2, output = "records"))
  expect_identical(sde_element_params(parts), sde_element_params(w1))
  pw <- run(output = "passage")
  pp <- rbind(run(1, output = "passage"), run(2, first = 2, output = "passage"))
  expect_identical(sde_element_params(pp), sde_element_params(pw))
  expect_identical(attr(pp, "final"), attr(pw, "final"))
  # numbers per element: the same in every system
  f <- run(params = list(w = c(1, 2, 3, 4, 5)))
  expect_identical(sde_element_params(f)$w, rep(c(1, 2, 3, 4, 5), 3))
  expect_error(sde_element_params(data.frame(x = 1)), "`x` must be a result of sde_run\\(\\)")
})

test_that("per-system starts: an n x replicas matrix per state (rows elements, columns replicas)", {
  skip_if_no_cc()
  m <- slips_model()
  run <- function(init, reps = 3, first = 1, ...) {
    sde_run(m, reps, n = 4, init = init, dt = 1, t_max = 1, method = "euler",
            output = "records", record_every = 1, seed = 5, first_replica = first,
            backend = "cpu", precision = "double", ...)
  }
  fin <- function(r) unname(attr(r, "final")[, "x", ])
  M <- matrix(as.double(1:12), 4, 3)
  # w = 0, s = 0: the state stays at its start
  expect_identical(fin(run(list(x = M), params = list(w = 0))), M)
  # with two conditions: the same starts in each, or columns condition by condition
  expect_identical(fin(run(list(x = M), params = list(w = 0, lev = c(2, 3)))), cbind(M, M))
  M2 <- cbind(M, -M)
  expect_identical(fin(run(list(x = M2), params = list(w = 0, lev = c(2, 3)))), M2)
  # a chunk's columns are its own replicas
  expect_identical(fin(run(list(x = M[, 2:3]), reps = 2, first = 2, params = list(w = 0))),
                   M[, 2:3])
  expect_error(run(list(x = matrix(0, 4, 4))),
               "`init\\$x` must be .*an n x replicas matrix \\(4 x 3: rows the elements")
  expect_error(run(list(x = matrix(0, 3, 3))), "not an array of 3 x 3")
})

test_that("a noise through pairs() is printed as such, and srk2 is refused naming method = \"euler\"", {
  np <- sde_model(drift = list(theta = ~ 0 * mean(theta)),
                  noise = list(theta = ~ s * (1 + pairs(cos(theta[j] - theta)) / n)),
                  params = c(s = 1), name = "pair-noise")
  out <- capture.output(print(np))
  expect_false(any(grepl("additive", out)))
  expect_true(any(grepl("noise: diagonal on theta, multiplicative in theta through pairs\\(\\)",
                        out)))
  expect_true(any(grepl("only method = \"euler\"", out)))
  err <- expect_error(sde_run(np, 2, n = 4, init = list(theta = 0), dt = 0.1, t_max = 1,
                              method = "srk2", backend = "cpu"),
                      "through pairs\\(\\).*Use method = \"euler\"",
                      class = "statphysgpu_method_refused")
  expect_false(grepl("stats::D() knows", conditionMessage(err), fixed = TRUE))
})

test_that("NA parameters and draws with invalid arguments are refused, naming them", {
  kur <- mb_model("kur")
  expect_error(sde_run(kur, 2, n = 4, init = list(theta = 0), dt = 0.1, t_max = 1,
                       params = list(K = c(1, NA)), backend = "cpu"),
               "`params\\$K` has a missing value \\(NA\\) at position 2")
  expect_error(sde_model(drift = list(x = ~ mean(x) - x), params = list(k = c(1, NA))),
               "`params\\$k` has a missing value \\(NA\\) at position 2")
  m <- slips_model()
  go <- function(...) sde_run(m, 2, n = 4, dt = 1, t_max = 1, backend = "cpu", ...)
  expect_error(go(init = list(x = 0), params = list(w = c(1, NA, 2, 3))),
               "`params\\$w` \\(a parameter per element\\) has a missing value \\(NA\\) at position 2")
  expect_error(go(init = list(x = c(0, 1, NaN, 0))), "`init\\$x` has the value NaN at position 3")
  # runif(min, max) with max < min, a negative sd: in the declaration, at the run
  expect_error(sde_model(drift = list(x = ~ w + 0 * mean(x)), params = list(w = ~ runif(0, -1))),
               "the element parameter `w` draws runif\\(0, -1\\): `max` is below `min`")
  expect_error(go(init = list(x = 0), params = list(sw = -1)),
               "the element parameter `w` draws rnorm\\(0, -1\\) for condition 1: the standard deviation")
  expect_error(go(init = list(x = ~ runif(1, 0))), "`init\\$x` draws runif\\(1, 0\\)")
  # a law over the parameters (drawn by the engine where valid)
  expect_error(go(init = list(x = ~ runif(lev, 0)), params = list(lev = c(-1, 2))),
               "`init\\$x` draws runif\\(2, 0\\) for condition 2: `max` is below `min`")
  expect_error(go(init = list(x = ~ rcauchy(0, -lev))),
               "`init\\$x` draws rcauchy\\(0, -1\\) for condition 1: the scale is negative")
})
