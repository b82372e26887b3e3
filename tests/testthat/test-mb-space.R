# Particles in a periodic box, cut-offs through cell lists, local
# definitions, pair observables and g(r), graphs (issue 49), on the CPU.
# Tolerances: exact checks to rounding (double: 1e-9 relative); statistical
# checks at fixed seeds with the z-score or p-value stated at each.

run_space <- function(m, ..., backend = "cpu", progress = FALSE) {
  sde_run(m, ..., backend = backend, progress = progress)
}

test_that("declarations: positions, cut-offs, definitions and edges are checked, naming the fix", {
  err <- function(expr, pattern) expect_error(expr, pattern, class = "statphysgpu_error")
  err(sde_model(drift = list(x = ~ pairs(dx)), positions = "y"), "not a state")
  err(sde_model(drift = list(x = ~ pairs(dx)), positions = c("x", "x")), "distinct")
  err(sde_model(drift = list(x = ~ pairs(dz), y = ~ 0), positions = c("x", "y")), "dz")
  err(sde_model(drift = list(x = ~ pairs(sin(x[j] - x), cutoff = 2))), "no positions")
  err(sde_model(drift = list(x = ~ pairs(dx, cutoff = x)), positions = "x"), "cut-off")
  err(sde_model(drift = list(x = ~ dx), positions = "x"), "outside pairs")
  err(sde_model(drift = list(x = ~ pairs(dx)), params = c(r = 1), positions = "x"), "rename")
  err(sde_model(drift = list(x = ~ f), define = list(f = ~ g, g = ~ f)), "cycle")
  err(sde_model(drift = list(x = ~ pairs(dx) + f), define = list(f = ~ 1 / r),
                positions = "x"), "definition `f` outside pairs")
  err(sde_model(drift = list(x = ~ -x), define = list(x = ~ 1)), "state, parameter")
  err(sde_model(drift = list(x = ~ pairs(a * x[j])), params = c(b = 1)), "edge's weight")
  err(sde_model(drift = list(x = ~ edges(a * x[j])), params = c(a = 1)), "rename the parameter")
  err(sde_model(drift = list(x = ~ -x), observe = list(e = ~ pairs(x[j]))), "outside sum")
  err(sde_model(drift = list(x = ~ pairs(x[j])), stop = ~ sum(pairs(x[j])) > 1), "pair sums are for observables")
  err(sde_model(drift = list(x = ~ -x), observe = list(e = ~ sum(edges(x[j])))), "edges\\(\\) in observables")
  # a definition is inlined: the model is the one written out
  a <- sde_model(drift = list(x = ~ -k * sign(x) * w), params = c(k = 1), define = list(w = ~ x^2))
  b <- sde_model(drift = list(x = ~ -k * sign(x) * (x^2)), params = c(k = 1))
  expect_identical(sub("^[^\n]*\n", "", sde_code(a)), sub("^[^\n]*\n", "", sde_code(b)))
  expect_output(print(a), "definitions")
})

test_that("sign() is R's, and whole powers up to 64 are products", {
  m <- sde_model(drift = list(x = ~ -sign(x) * abs(x)^13 / 1e6), name = "signed")
  expect_match(sde_code(m), "SP_SIGN")
  expect_false(grepl("SP_POW", sde_code(m)))
  r <- sde_run(m, replicas = 2, init = list(x = 1.4), dt = 0.01, t_max = 1,
               output = "trajectories", keep = 2, precision = "double", backend = "cpu",
               method = "euler",
               seed = 3, progress = FALSE)
  x <- r$x[r$replica == 1]
  # Euler on x' = -sign(x) |x|^13 / 1e6, step by step in base R
  y <- x[1]
  for (k in seq_len(length(x) - 1)) y <- y - 0.01 * sign(y) * abs(y)^13 / 1e6
  expect_equal(x[length(x)], y, tolerance = 1e-12)
})

test_that("bad run arguments for a box, a graph and g(r) are refused, naming the argument", {
  lj <- space_model("lj3")
  st <- c(space_lattice(27, 9), list(vx = 0, vy = 0, vz = 0))
  go <- function(...) run_space(lj, replicas = 1, n = 27, init = st, dt = 0.001, t_max = 0.002,
                                method = "baoab", ...)
  expect_error(go(), "box", class = "statphysgpu_error")
  expect_error(go(box = c(9, 9)), "box", class = "statphysgpu_error")
  expect_error(go(box = -1), "box", class = "statphysgpu_error")
  expect_error(go(box = 4.9), "half the box", class = "statphysgpu_error")
  expect_error(go(box = 9, output = "rdf", r_max = 5), "r_max", class = "statphysgpu_error")
  kg <- space_model("kgraph")
  expect_error(run_space(kg, replicas = 1, n = 5, init = list(theta = 0), dt = 0.1, t_max = 0.2),
               "graph", class = "statphysgpu_error")
  expect_error(run_space(kg, replicas = 1, n = 5, init = list(theta = 0), dt = 0.1, t_max = 0.2,
                         graph = diag(4)), "4 x 4", class = "statphysgpu_error")
  expect_error(run_space(kg, replicas = 1, n = 5, init = list(theta = 0), dt = 0.1, t_max = 0.2,
                         graph = data.frame(from = 1, to = 9)), "from 1 to", class = "statphysgpu_error")
  expect_error(run_space(kg, replicas = 1, n = 5, init = list(theta = 0), dt = 0.1, t_max = 0.2,
                         graph = data.frame(from = c(1, 1), to = c(2, 2))), "twice",
               class = "statphysgpu_error")
  expect_error(run_space(kg, replicas = 1, n = 5, init = list(theta = 0), dt = 0.1, t_max = 0.2,
                         box = 3), "no positions", class = "statphysgpu_error")
  one <- sde_model(drift = list(x = ~ -x), name = "single")
  for (a in list(list(box = 3), list(graph = diag(2)), list(r_max = 1))) {
    expect_error(do.call(run_space, c(list(one, replicas = 2, init = list(x = 0), dt = 0.1,
                                           t_max = 0.2, output = "moments"), a)),
                 names(a), class = "statphysgpu_error")
  }
  m <- space_model("kpairs1")
  expect_warning(run_space(m, replicas = 1, n = 5, init = list(theta = 0), dt = 0.1, t_max = 0.2,
                           graph = diag(5)), class = "statphysgpu_unused_argument")
})

test_that("pair observables are the engine's sums: the Lennard-Jones energy and virial of a configuration", {
  lj <- space_model("lj3")
  n <- 125
  L <- (n / 0.8)^(1 / 3)
  st <- space_lattice(n, L, jitter = 0.2)
  ref <- space_lj_base(st$x, st$y, st$z, L)
  for (cells in c(TRUE, FALSE)) {
    withr::local_options(statphysgpu.mb_cells = cells)
    r <- run_space(lj, replicas = 1, n = n, init = c(st, list(vx = 0, vy = 0, vz = 0)),
                   dt = 1e-4, t_max = 1e-4, method = "baoab", box = L, output = "records",
                   record_every = 1, precision = "double")
    expect_equal(r$U[1], ref[["U"]], tolerance = 1e-12)
    expect_equal(r$W[1], ref[["W"]], tolerance = 1e-12)
  }
})

test_that("cut-off sums through cell lists equal every pair's within the cut-off, to rounding", {
  lj <- space_model("lj3")
  n <- 512 # a box of 3.4 rc: three cells an axis
  L <- (n / 0.8)^(1 / 3)
  st <- c(space_lattice(n, L, jitter = 0.1), list(vx = 0, vy = 0, vz = 0))
  go <- function(cells, precision, method) {
    withr::local_options(statphysgpu.mb_cells = cells)
    run_space(lj, replicas = 2, n = n, init = st, dt = 0.002, t_max = 0.02, method = method,
              box = L, output = "records", record_every = 5, precision = precision, seed = 5)
  }
  # the dynamics: Verlet lists from the cells, each element's partners in
  # ascending order -- every pair's sum, bit for bit, whenever the lists
  # were rebuilt; the observables: the cells' order (to rounding)
  for (method in c("baoab", "srk2")) {
    a <- go(TRUE, "double", method)
    b <- go(FALSE, "double", method)
    expect_identical(attr(a, "final"), attr(b, "final"))
    expect_equal(a$U, b$U, tolerance = 1e-12)
    expect_equal(a$W, b$W, tolerance = 1e-12)
  }
  a <- go(TRUE, "single", "baoab")
  b <- go(FALSE, "single", "baoab")
  expect_identical(attr(a, "final"), attr(b, "final"))
  # a run in two calls (the lists built again at the second's start) is the
  # run in one
  withr::local_options(statphysgpu.mb_cells = TRUE)
  one <- run_space(lj, replicas = 1, n = n, init = st, dt = 0.002, t_max = 0.04, method = "baoab",
                   box = L, output = "records", record_every = 10, precision = "single", seed = 5)
  half <- run_space(lj, replicas = 1, n = n, init = st, dt = 0.002, t_max = 0.02, method = "baoab",
                    box = L, output = "records", record_every = 10, precision = "single", seed = 5)
  two <- run_space(lj, replicas = 1, n = n, init = half, dt = 0.002, t_max = 0.02, method = "baoab",
                   box = L, output = "records", record_every = 10, precision = "single")
  expect_identical(attr(two, "final"), attr(one, "final"))
  # positions stay in the box
  f <- attr(a, "final")
  expect_true(all(f[, c("x", "y", "z"), ] >= 0 & f[, c("x", "y", "z"), ] < L))
})

test_that("two particles bound by a spring: the distance has the Boltzmann law (KS p > 0.001)", {
  m <- space_model("bond3")
  reps <- 1500
  r <- run_space(m, replicas = reps, n = 2, init = list(x = ~ runif(4, 6), y = ~ runif(4, 6),
                                                         z = ~ runif(4, 6)),
                 dt = 0.01, t_max = 4, method = "srk2", box = 20, output = "records",
                 record_every = 400, precision = "double", seed = 11)
  d <- sqrt(r$d2[r$time == max(r$time)])
  # Maxwell law of |r|, each component N(0, T / k) with T = k = 1 (the
  # relative coordinate's Ornstein-Uhlenbeck process, relaxation 1 / (2 k),
  # started at most |r| = 3.5 away: e^-8 of it is left at t = 4)
  pmaxwell <- function(q) 2 * stats::pnorm(q) - 1 - sqrt(2 / pi) * q * exp(-q^2 / 2)
  expect_gt(stats::ks.test(d, pmaxwell)$p.value, 0.001)
})

test_that("one start for every replica (numbers per element) equals the same start given per system", {
  # the engine copies a condition's start into its replicas (x0_cond 3);
  # given as an n x replicas matrix R stacks them: the same run, bit for bit,
  # positions outside the box wrapped into it either way
  m <- space_model("bond3")
  n <- 5
  x <- c(-1.5, 0.2, 3.7, 9.9, 2); y <- c(1, 2, 3, 4, 5); z <- c(0.5, -0.25, 7, 1, 2)
  rep_m <- function(v, k) matrix(v, n, k)
  for (k in c(1, 4)) {
    a <- run_space(m, replicas = k, n = n, init = list(x = x, y = y, z = 0.5), dt = 0.01,
                   t_max = 0.05, box = 4, params = list(k = c(1, 2)), precision = "double",
                   seed = 3, record_every = 1)
    b <- run_space(m, replicas = k, n = n, init = list(x = rep_m(x, k), y = rep_m(y, k), z = 0.5),
                   dt = 0.01, t_max = 0.05, box = 4, params = list(k = c(1, 2)),
                   precision = "double", seed = 3, record_every = 1)
    expect_identical(attr(a, "final"), attr(b, "final"), label = paste(k, "replicas"))
    expect_identical(a$d2, b$d2, label = paste(k, "replicas"))
    f <- attr(a, "final")[, c("x", "y", "z"), ]
    expect_true(all(f >= 0 & f < 4))
  }
  # the trajectories' first record is the start, wrapped: replica 4
  r0 <- run_space(m, replicas = 4, n = n, init = list(x = x, y = y, z = z), dt = 0.01,
                  t_max = 0.01, box = 4, params = list(k = c(1, 2)), precision = "double",
                  seed = 3, output = "trajectories", keep = 4, record_every = 1)
  s0 <- r0[r0$time == 0 & r0$replica == 4, ]
  expect_equal(s0$x[order(s0$element)], x %% 4)
  expect_equal(s0$z[order(s0$element)], z %% 4)
})

test_that("an ideal gas has g(r) = 1 within its errors (chi-square over the bins, p > 0.001)", {
  m <- space_model("ideal2")
  g <- run_space(m, replicas = 400, n = 30, init = list(x = ~ runif(0, 10), y = ~ runif(0, 10)),
                 dt = 0.1, t_max = 0.1, box = c(10, 10), output = "rdf", bins = 20, r_max = 5,
                 record_every = 1, seed = 2)
  expect_s3_class(g, "sde_rdf")
  expect_named(g, c("condition", "r", "r_lo", "r_hi", "g", "se", "pairs"))
  expect_equal(nrow(g), 20)
  # 400 independent systems at each of two records (the start, uniform, and
  # one step later): se from the systems' spread
  z <- (g$g - 1) / g$se
  expect_lt(sum(z^2), stats::qchisq(0.999, 20))
  expect_output(print(g), "g\\(r\\)")
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  plot(g)
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  skip_if_not_installed("ggplot2")
  expect_s3_class(ggplot2::autoplot(g), "ggplot")
})

test_that("edges() over the complete graph equals pairs()", {
  n <- 12
  init <- list(theta = ~ runif(-pi, pi))
  a <- run_space(space_model("kgraph"), replicas = 3, n = n, init = init, dt = 0.01, t_max = 0.2,
                 output = "records", precision = "double", seed = 8,
                 graph = matrix(1, n, n) - diag(n))
  b <- run_space(space_model("kpairs1"), replicas = 3, n = n, init = init, dt = 0.01, t_max = 0.2,
                 output = "records", precision = "double", seed = 8)
  expect_equal(attr(a, "final"), attr(b, "final"), tolerance = 1e-10)
  expect_equal(a$r, b$r, tolerance = 1e-10)
  # the same graph given as an edge list and as a sparse matrix
  el <- which(matrix(1, n, n) - diag(n) != 0, arr.ind = TRUE)
  c <- run_space(space_model("kgraph"), replicas = 3, n = n, init = init, dt = 0.01, t_max = 0.2,
                 output = "records", precision = "double", seed = 8,
                 graph = data.frame(from = el[, 2], to = el[, 1]))
  expect_identical(attr(c, "final"), attr(a, "final"))
  skip_if_not_installed("Matrix")
  d <- run_space(space_model("kgraph"), replicas = 3, n = n, init = init, dt = 0.01, t_max = 0.2,
                 output = "records", precision = "double", seed = 8,
                 graph = Matrix::sparseMatrix(i = el[, 1], j = el[, 2], x = 1, dims = c(n, n)))
  expect_identical(attr(d, "final"), attr(a, "final"))
})

test_that("a graph's compressed rows: sorted, repeated entries of a sparse matrix added, zeros dropped", {
  kg <- space_model("kgraph")
  chk <- function(g, n) statphysgpu:::sde_check_graph(g, kg, n, NULL)
  # edges out of order, with weights and one zero weight: A[to, from]
  e <- data.frame(from = c(3, 1, 2, 4, 1, 3), to = c(1, 4, 1, 1, 2, 2), weight = c(2, 5, 0, 1, 7, 3))
  A <- matrix(0, 4, 4)
  A[cbind(e$to, e$from)] <- e$weight
  want <- list(rowptr = c(0L, 2L, 4L, 4L, 5L), col = c(2L, 3L, 0L, 2L, 0L), w = c(2, 1, 7, 3, 5),
               nnz = 5L, unit = FALSE)
  expect_identical(chk(e, 4), want)
  expect_identical(chk(A, 4), want)
  expect_error(chk(e[c(1:6, 4), ], 4), "edge from 4 to 1 twice", class = "statphysgpu_error")
  # node numbers and weights checked edge by edge (in C)
  for (bad in list(list(from = 1.5, to = 2), list(from = NA, to = 2), list(from = 0, to = 2),
                   list(from = 1, to = 5), list(from = "1", to = 2))) {
    expect_error(chk(as.data.frame(bad), 4), "from 1 to", class = "statphysgpu_error")
  }
  for (w in c(Inf, NA, NaN)) {
    expect_error(chk(data.frame(from = 1:2, to = 2:1, weight = c(1, w)), 4), "not finite",
                 class = "statphysgpu_error")
  }
  expect_error(chk(matrix(c(0, NA, 1, 0), 2), 2), "missing", class = "statphysgpu_error")
  skip_if_not_installed("Matrix")
  # a triplet matrix repeating (1, 3), (2, 1) and (1, 4): their weights add;
  # (2, 1) adds up to zero and goes
  tm <- Matrix::sparseMatrix(i = c(e$to, 1, 2, 1, 1), j = c(e$from, 3, 1, 4, 4),
                             x = c(e$weight, 0.5, -7, 2, -2), dims = c(4, 4), repr = "T")
  want2 <- list(rowptr = c(0L, 2L, 3L, 3L, 4L), col = c(2L, 3L, 2L, 0L), w = c(2.5, 1, 3, 5),
                nnz = 4L, unit = FALSE)
  expect_identical(chk(tm, 4), want2)
})

test_that("Kuramoto oscillators on a random weighted graph follow base R's Euler steps", {
  n <- 25
  A <- matrix(0, n, n)
  set.seed(42) # the test's own graph (R's RNG, in the test only)
  A[sample(n * n, 120)] <- runif(120, 0.5, 2)
  diag(A) <- 0
  th0 <- runif(n, -pi, pi)
  w <- rnorm(n)
  m <- space_model("kgraph")
  dt <- 0.01; K <- 0.7
  r <- run_space(m, replicas = 1, n = n, init = list(theta = th0),
                 params = list(K = K, D = 0, w = w), dt = dt, t_max = 1, method = "euler",
                 output = "records", precision = "double", graph = A, seed = 1)
  th <- th0
  for (k in 1:100) {
    th <- th + dt * (w + K * rowSums(A * sin(outer(th, th, function(a, b) b - a))))
  }
  expect_equal(as.vector(attr(r, "final")[, "theta", 1]), th, tolerance = 1e-10)
  # with noise: the mean order parameter at t = 2 over 300 systems against
  # base R's 300 (Euler, its own normals): |z| < 4
  D <- 0.3
  rr <- run_space(m, replicas = 300, n = n, init = list(theta = th0),
                  params = list(K = K, D = D, w = w), dt = dt, t_max = 2, method = "euler",
                  output = "records", record_every = 200, graph = A, seed = 4,
                  precision = "double")
  eng <- rr$r[rr$time == 2]
  base <- vapply(1:300, function(s) {
    th <- th0
    for (k in 1:200) {
      th <- th + dt * (w + K * rowSums(A * sin(outer(th, th, function(a, b) b - a)))) +
        sqrt(2 * D * dt) * rnorm(n)
    }
    Mod(mean(exp(1i * th)))
  }, 0)
  z <- (mean(eng) - mean(base)) / sqrt(var(eng) / 300 + var(base) / 300)
  expect_lt(abs(z), 4)
})

test_that("the Lennard-Jones fluid (truncated and shifted at 2.5, rho = 0.8, T = 1.5) against base R's simulation (|z| < 4)", {
  skip_on_cran()
  # The reference: bench/lj-reference.md, part 4 -- an independent base-R
  # BAOAB of the same 108 particles (tests/testthat/helper-lj-reference.R),
  # 620 time units at dt = 0.005 and 0.01: U/N = -4.2835 +- 0.0048, P =
  # 3.879 +- 0.021 (P = rho T + W / (3 V), the set T).
  lj <- space_model("lj3")
  f <- space_fcc(3, 0.8)
  n <- f$n
  L <- f$L
  st <- f$init
  eq <- run_space(lj, replicas = 8, n = n, init = st, dt = 0.005, t_max = 5, method = "baoab",
                  box = L, record_every = 1000, seed = 21)
  r <- run_space(lj, replicas = 8, n = n, init = eq, dt = 0.005, t_max = 15, method = "baoab",
                 box = L, record_every = 25)
  r <- r[r$time > min(r$time), ]
  u <- tapply(r$U, r$replica, mean)
  P <- 0.8 * 1.5 + tapply(r$W, r$replica, mean) / (3 * L^3)
  zu <- (mean(u) - -4.2835) / sqrt(var(u) / 8 + 0.0048^2)
  zp <- (mean(P) - 3.879) / sqrt(var(P) / 8 + 0.021^2)
  expect_lt(abs(zu), 4)
  expect_lt(abs(zp), 4)
  # the kinetic energy per particle near 3 T / 2 (BAOAB's O(dt^2) error: 1.5 per cent)
  expect_lt(abs(mean(r$K) / 2.25 - 1), 0.03)
})

test_that("the CPU's vector loop gives a model with positions and cut-off pairs the same numbers", {
  m <- space_model("lj3")
  bd <- sde_model(drift = list(x = ~ pairs(f * dx, cutoff = 2.5), y = ~ pairs(f * dy, cutoff = 2.5),
                               z = ~ pairs(f * dz, cutoff = 2.5)),
                  noise = list(x = ~ sqrt(2 * T), y = ~ sqrt(2 * T), z = ~ sqrt(2 * T)),
                  params = c(T = 1.5), define = m$source$define[c("ir2", "ir6", "f")],
                  observe = list(m = ~ mean(x)), positions = c("x", "y", "z"), name = "lj-bd")
  n <- 125
  L <- (n / 0.8)^(1 / 3)
  st <- space_lattice(n, L, jitter = 0.1)
  go <- function(vec) {
    withr::local_options(statphysgpu.sde_cpu_vector = vec)
    run_space(bd, replicas = 2, n = n, init = st, dt = 1e-4, t_max = 0.01, method = "euler",
              box = L, record_every = 50, seed = 3)
  }
  expect_identical(attr(go(TRUE), "final"), attr(go(FALSE), "final"))
})
