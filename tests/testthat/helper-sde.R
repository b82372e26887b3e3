# Models of the SDE tests (test-sde.R, test-sde-gpu.R).

skip_if_no_cc <- function() {
  if (!sde_cpu_available()) testthat::skip(attr(sde_cpu_available(), "reason"))
}

# The tilted washboard of paper 000 (escape_times()) as a model.
sde_washboard <- function() {
  sde_model(
    drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
    noise = list(v = ~ sqrt(2 * beta * theta)),
    params = c(beta = 1, V0 = 1, gamma = 0.5, theta = 0.2),
    stop = ~ x > pi - asin(gamma),
    observe = list(energy = ~ v^2 / 2 - V0 * (cos(x) + gamma * x)),
    name = "washboard")
}

# sin and cos of a model in single precision at the points x (floats): a
# model that holds its state (zero drift) and observes sin(x) and cos(x),
# one replica per point, read from the trajectories at t = 0.  Returns
# list(x, s, c, s_exact, c_exact) (the exact values of the float x, in double).
sde_sincos_probe <- function(backend, seed = 5) {
  tofloat <- function(v) readBin(writeBin(v, raw(), size = 4), "double", size = 4, n = length(v))
  withr::with_seed(seed, {
    x <- tofloat(c(runif(3000, -4, 4), runif(3000, -8192, 8192), (-2000:2000) * pi / 2,
                   2^-(1:40), -2^-(1:40), runif(300, 8192, 1e6), -runif(300, 8192, 1e6), 3e38))
  })
  m <- sde_model(drift = list(x = ~ 0), observe = list(s = ~ sin(x), c = ~ cos(x)),
                 name = "sincos")
  n <- length(x)
  d <- as.data.frame(sde_run(m, n, init = list(x = x), dt = 1, t_max = 1,
                             output = "trajectories", keep = n, precision = "single",
                             backend = backend, seed = 1, progress = FALSE))
  d <- d[d$time == 0, ]
  d <- d[order(d$replica), ]
  list(x = d$x, s = d$s, c = d$c, s_exact = sin(x), c_exact = cos(x), x_in = x)
}

# The accuracy of a probe's values (sde_sincos_probe()) in units of 2^-24:
# at most `abs_u` absolute for |x| <= 8192 (the polynomial), `rel_u`
# relative there where the value exceeds 1e-3, below 0.75 ulp(x) near the
# zeros, and `lib_u` absolute beyond 8192 (the library's functions).
expect_sincos_accuracy <- function(p, abs_u, rel_u, lib_u) {
  u <- 2^-24
  poly <- abs(p$x) <= 8192
  ulp <- 2^(floor(log2(abs(p$x))) - 23)
  for (f in c("s", "c")) {
    got <- p[[f]]
    ex <- p[[paste0(f, "_exact")]]
    err <- abs(got - ex)
    testthat::expect_lt(max(err[poly]), abs_u * u)
    big <- poly & abs(ex) > 1e-3
    testthat::expect_lt(max(err[big] / abs(ex[big])), rel_u * u)
    near <- poly & abs(ex) <= 1e-3 & p$x != 0
    testthat::expect_true(all(err[near] <= 0.75 * ulp[near]))
    testthat::expect_lt(max(err[!poly]), lib_u * u)
    # small x: sin x = x and cos x = 1 to the last bit
    tiny <- abs(p$x) < 2^-13 & p$x != 0
    testthat::expect_identical(got[tiny], if (f == "s") p$x[tiny] else rep(1, sum(tiny)))
  }
}

# Brownian motion with drift to the level 1 (test-sde-numerics.R and
# expect_passage_at_first_crossing()): one declaration, so one compiled
# object for both (the cache is keyed by the model's code, its name included).
sde_bm_level <- function() {
  sde_model(drift = list(x = ~ mu), noise = list(x = ~ s), params = c(mu = 1, s = 1),
            stop = ~ x > 1, name = "bm")
}

# A passage is the first step whose end satisfies the event, the crossing
# interpolated inside it, at every step of a macro-step (the engines run
# whole macro-steps without a test between their steps and redo the one
# where the event held step by step): the passage output against the
# trajectories of the same paths (the same streams) recorded at every
# step, Brownian motion with drift to the level 1 (4 steps a macro-step).
expect_passage_at_first_crossing <- function(backend, precision, method, n = 300) {
  bm <- sde_bm_level()
  dt <- 0.01; t_max <- 2.5; kmax <- round(t_max / dt)
  args <- list(model = bm, replicas = n, init = list(x = 0), dt = dt, t_max = t_max, seed = 9,
               method = method, precision = precision, backend = backend, progress = FALSE,
               bridge = FALSE) # the crossings seen at the steps (the bridge: its own test)
  p <- do.call(sde_run, args)
  tr <- as.data.frame(do.call(sde_run, c(args[names(args) != "bridge"],
                                         output = "trajectories", keep = n, record_every = 1)))
  tr <- tr[order(tr$replica, tr$time), ]
  x <- matrix(tr$x, nrow = kmax + 1) # column: a replica, row k + 1: step k
  first <- apply(x > 1, 2, function(h) if (any(h)) which(h)[1] - 1 else NA)
  testthat::expect_identical(p$escaped, !is.na(first))
  e <- which(!is.na(first))
  k <- first[e]
  g0 <- x[cbind(k, e)] - 1
  g1 <- x[cbind(k + 1, e)] - 1
  testthat::expect_equal(p$value[e], (k - 1 + g0 / (g0 - g1)) * dt,
                         tolerance = if (precision == "double") 1e-12 else 1e-5)
  testthat::expect_true(all(p$value[-e] == t_max))
  # every position inside a macro-step, and paths censored, are exercised
  testthat::expect_setequal((k - 1) %% 4, 0:3)
  testthat::expect_gt(length(e), n / 2)
  testthat::expect_lt(length(e), n)
}
