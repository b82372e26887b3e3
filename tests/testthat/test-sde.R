# sde_model() and sde_run() on the CPU: checks, translation, the compiled
# model's physics against exact results, passage times against the inverse
# Gaussian law and escape_times(), the engine contract.

# Heavy: user models compiled by the C compiler (15-20 s). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

ou_model <- sde_model(drift = list(x = ~ -k * x), noise = list(x = ~ s),
                      params = c(k = 1, s = 1, lvl = 1.5), stop = ~ x > lvl,
                      observe = list(x2 = ~ x^2), name = "ou")

test_that("sde_model() checks every expression before anything compiles", {
  expect_error(sde_model(drift = list(x = ~ foo(x))), "unknown function `foo\\(\\)`.*allowed are",
               class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ -k * y), params = c(k = 1)),
               "unknown variable `y`.*`x`, `k`, `t`, `pi`", class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ v, v = NULL)), "state `v` has no drift",
               class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ -x), noise = list(y = ~ 1)),
               "noise.*entry for `y`, which is not a state", class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ -k * x), params = c(k = NA_real_)),
               "default of parameter `k` is NA", class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ -k * x), params = c(k = Inf)),
               "default of parameter `k` is Inf", class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ ifelse(x > 0, 1))), "ifelse.*2 arguments",
               class = "statphysgpu_error")
  expect_error(sde_model(drift = list(x = ~ -x), stop = ~ x > q), "`stop` uses the unknown variable `q`",
               class = "statphysgpu_error")
  expect_error(sde_model(drift = list(t = ~ 1)), "the name `t`, which the package reserves",
               class = "statphysgpu_reserved_name")
  expect_error(sde_model(drift = list(x = ~ -x), calculus = "kolmogorov"), "calculus",
               class = "statphysgpu_error")
  # noise D() cannot differentiate: the model is made, the method that needs
  # the other calculus is refused (test-sde-safety.R)
  expect_output(print(sde_model(drift = list(x = ~ -x), noise = list(x = ~ abs(x)))),
                "methods: euler \\(Ito\\)")
})

test_that("right-hand sides may be formulas, quoted calls, strings or numbers", {
  a <- sde_model(drift = list(x = ~ -k * x + 2), params = c(k = 1))
  b <- sde_model(drift = list(x = quote(-k * x + 2)), params = c(k = 1))
  c <- sde_model(drift = list(x = "-k * x + 2"), params = c(k = 1))
  expect_identical(sde_code(a), sde_code(b))
  expect_identical(sde_code(a), sde_code(c))
  expect_match(sde_code(sde_model(drift = list(x = 0))), "f\\[0\\] = SP_R\\(0\\.0\\)")
})

test_that("the translation: powers as products, ifelse, pmin/pmax, logic, constants", {
  m <- sde_model(drift = list(x = ~ x^3 - x^-2 + x^2.5 + ifelse(x > 1 & !(x < 0) | x == 2, pmin(x, 1, 2), pmax(x, 0)) + pi),
                 name = "t")
  code <- sde_code(m)
  expect_match(code, "(x[0] * x[0] * x[0])", fixed = TRUE)
  expect_match(code, "(SP_R(1.0) / (x[0] * x[0]))", fixed = TRUE)
  # half-integer powers by square roots (x^2.5 = x x sqrt(x)), others by pow
  expect_match(code, "(x[0] * x[0] * SP_SQRT(x[0]))", fixed = TRUE)
  m2 <- sde_model(drift = list(x = ~ x^-1.5 + x^2.7), name = "t2")
  expect_match(sde_code(m2), "(SP_RSQRT(x[0]) * SP_RSQRT(x[0]) * SP_RSQRT(x[0]))", fixed = TRUE)
  expect_match(sde_code(m2), "SP_POW(x[0], SP_R(2.7000000000000002))", fixed = TRUE)
  skip_if_no_cc()
  r <- sde_run(m2, 1, init = list(x = 2), dt = 0.5, t_max = 0.5, output = "trajectories", keep = 1,
               method = "euler", backend = "cpu", precision = "double")
  expect_equal(r$x[2], 2 + 0.5 * (2^-1.5 + 2^2.7), tolerance = 1e-15)
  expect_match(code, "SP_FMIN(SP_FMIN(x[0], SP_R(1.0)), SP_R(2.0))", fixed = TRUE)
  expect_match(code, "?", fixed = TRUE)
  expect_match(code, "&&", fixed = TRUE)
  expect_match(code, "||", fixed = TRUE)
  expect_match(code, "SP_R(3.1415926535897931)", fixed = TRUE)
})

test_that("the header marks models with sines (the GPU's bare copy) and noise of the parameters alone", {
  has <- function(m, what) grepl(sprintf("#define %s 1", what), sde_code(m), fixed = TRUE)
  w <- sde_model(drift = list(x = ~ v, v = ~ -b * v - sin(x)), noise = list(v = ~ sqrt(2 * b * T)),
                 params = c(b = 1, T = 0.1), name = "w")
  expect_true(has(w, "SP_SDE_TRIG"))
  expect_true(has(w, "SP_SDE_NOISE_CONST"))
  # noise of a state, of another state, of t: evaluated at both ends of an
  # SRK2 step; no sine, or only the periodic states' own: no bare copy
  for (nz in list(~ s * x, ~ s * y, ~ s * (1 + t), ~ s * cos(x))) {
    m <- sde_model(drift = list(x = ~ -x, y = ~ -y), noise = list(x = nz), params = c(s = 1),
                   name = "nz")
    expect_false(has(m, "SP_SDE_NOISE_CONST"))
  }
  expect_false(has(sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), name = "ou"),
                   "SP_SDE_TRIG"))
  expect_true(has(sde_model(drift = list(x = ~ -x), noise = list(x = ~ 1), name = "ou"),
                  "SP_SDE_NOISE_CONST"))
  k <- sde_model(drift = list(th = ~ w - K * sin(th)), noise = list(th = ~ s),
                 params = c(w = 1, K = 1, s = 0.1), periodic = "th", name = "k")
  expect_false(has(k, "SP_SDE_TRIG"))
})

test_that("print() shows states, parameters, noise, event and calculus; sde_code() the header", {
  m <- sde_washboard()
  out <- capture.output(print(m))
  expect_match(out[1], "\"washboard\": 2 states, ito calculus")
  expect_true(any(grepl("parameters: beta = 1", out)))
  expect_true(any(grepl("noise: diagonal on v, additive", out)))
  expect_true(any(grepl("event \\(stop\\): x > pi - asin\\(gamma\\) \\(crossing interpolated", out)))
  expect_match(sde_code(m), "SP_FN void SP_PREC\\(sde_drift_ito\\)")
  expect_match(sde_code(m), "#define SP_SDE_NW 1")
  gbm <- sde_model(drift = list(x = ~ mu * x), noise = list(x = ~ sigma * x),
                   params = c(mu = 0.5, sigma = 0.5))
  expect_true(any(grepl("multiplicative in x", capture.output(print(gbm)))))
  # the Stratonovich drift of an Ito model carries - b db/dx / 2
  expect_match(sde_code(gbm), "- b db/dx / 2")
})

test_that("sde_run() refuses bad input with the argument named", {
  m <- ou_model
  run <- function(...) sde_run(m, 10, init = list(x = 0), dt = 0.01, t_max = 1, backend = "cpu",
                               seed = 1, ...)
  expect_error(run(params = list(q = 1)), "`q`, which is not a parameter", class = "statphysgpu_error")
  expect_error(run(params = list(k = NA)), "params\\$k", class = "statphysgpu_error")
  expect_error(sde_run(m, 10, init = list(y = 0), dt = 0.01, t_max = 1), "no entry for `x`",
               class = "statphysgpu_error")
  expect_error(sde_run(m, 10, init = list(x = 1:3), dt = 0.01, t_max = 1), "init\\$x",
               class = "statphysgpu_error")
  expect_error(sde_run(m, 10, init = list(x = ~ z), dt = 0.01, t_max = 1), "unknown variable `z`",
               class = "statphysgpu_error")
  expect_error(sde_run(m, 10, init = list(x = 0), dt = -1, t_max = 1), "`dt`",
               class = "statphysgpu_error")
  expect_error(sde_run(m, 10, init = list(x = 0), dt = 1, t_max = 0.5), "t_max",
               class = "statphysgpu_error")
  expect_error(run(output = "histogram"), "needs `bins`", class = "statphysgpu_error")
  expect_error(run(output = "histogram", bins = list(y = 1:3)), "`y`, which is not",
               class = "statphysgpu_error")
  expect_error(run(precision = "mixed"), "precision", class = "statphysgpu_error")
  # a parameter-only expression (computed once per condition) that is NaN
  expect_error(run(params = list(s = -1), output = "moments"), NA)
  sq <- sde_model(drift = list(x = ~ -x), noise = list(x = ~ sqrt(2 * th)), params = c(th = 1))
  expect_error(sde_run(sq, 10, init = list(x = 0), dt = 0.1, t_max = 1, params = list(th = c(1, -1)),
                       output = "moments", backend = "cpu", seed = 1),
               "`sqrt\\(2 \\* th\\)` is NaN for condition 2 \\(the parameters th = -1\\)",
               class = "statphysgpu_error")
  expect_error(sde_run(sde_model(drift = list(x = ~ 1)), 10, init = list(x = 0), dt = 0.1,
                       t_max = 1), "needs an event", class = "statphysgpu_error")
  expect_error(sde_run(m, 0, init = list(x = 0), dt = 0.1, t_max = 1), "`replicas`",
               class = "statphysgpu_error")
})

test_that("Ornstein-Uhlenbeck moments match the exact mean and variance of both schemes", {
  skip_if_no_cc()
  k <- 1; s <- 0.8; dt <- 0.02; x0 <- 1; n <- 4000
  for (method in c("euler", "srk2")) {
    r <- sde_run(ou_model, n, init = list(x = x0), dt = dt, t_max = 2, params = list(k = k, s = s),
                 method = method, output = "moments", record_every = 25, seed = 3,
                 backend = "cpu", precision = "double")
    d <- as.data.frame(r)
    d <- d[d$variable == "x", ]
    steps <- round(d$time / dt)
    # the schemes are linear maps x' = a x + c z: exact discrete moments
    a <- if (method == "euler") 1 - k * dt else 1 - k * dt + (k * dt)^2 / 2
    c2 <- s^2 * dt * (if (method == "euler") 1 else (1 - k * dt / 2)^2)
    mean_ex <- x0 * a^steps
    var_ex <- c2 * (1 - a^(2 * steps)) / (1 - a^2)
    expect_equal(d$replicas, rep(n, nrow(d)))
    # z-scores of the sample mean (se = sd / sqrt(n)) and variance (se ~
    # var sqrt(2 / (n - 1)) for a normal sample); 9 records x 2 tests at
    # |z| < 4: a false alarm with probability about 1e-3
    ok <- steps > 0
    expect_true(all(abs(d$mean[ok] - mean_ex[ok]) < 4 * sqrt(var_ex[ok] / n)))
    expect_true(all(abs(d$sd[ok]^2 - var_ex[ok]) < 4 * var_ex[ok] * sqrt(2 / (n - 1))))
    expect_equal(d$mean[!ok], x0)
    # and the continuous law, within the discretisation bias plus noise
    cont_var <- s^2 / (2 * k) * (1 - exp(-2 * k * d$time))
    expect_true(all(abs(d$sd[ok]^2 - cont_var[ok]) < 4 * cont_var[ok] * sqrt(2 / (n - 1)) + 0.02))
  }
})

test_that("geometric Brownian motion, Ito: E X_t = x0 exp(mu t) with both methods", {
  skip_if_no_cc()
  gbm <- sde_model(drift = list(x = ~ mu * x), noise = list(x = ~ sigma * x),
                   params = c(mu = 0.5, sigma = 0.5), calculus = "ito", name = "gbm")
  n <- 4000; dt <- 0.01
  for (method in c("euler", "srk2")) {
    r <- sde_run(gbm, n, init = list(x = 1), dt = dt, t_max = 1, method = method,
                 output = "moments", record_every = 50, seed = 5, backend = "cpu",
                 precision = "double")
    d <- as.data.frame(r)
    last <- d[d$time == 1, ]
    sd_ex <- sqrt(exp(2 * 0.5) * (exp(0.25) - 1))
    # z < 4 against exp(mu t) (discretisation bias: Euler (1 + mu dt)^100 is
    # 0.12 per cent low, 0.09 se; Heun's O(dt^2) less); the Stratonovich
    # reading would give exp(0.625) = 1.87, 16 se away
    expect_lt(abs(last$mean - exp(0.5)) / (sd_ex / sqrt(n)), 4)
  }
})

test_that("Brownian motion with drift: passage times follow the inverse Gaussian law at the shifted level", {
  skip_if_no_cc()
  bm <- sde_model(drift = list(x = ~ mu), noise = list(x = ~ s), params = c(mu = 1, s = 1, a = 1),
                  stop = ~ !(x <= a), name = "bm") # not a comparison: the step's end (no interpolation)
  n <- 20000; dt <- 0.0025
  r <- sde_run(bm, n, init = list(x = 0), dt = dt, t_max = 30, seed = 7, backend = "cpu",
               precision = "double", method = "euler")
  expect_true(all(r$escaped))
  pig <- function(t, m, lam) {
    stats::pnorm(sqrt(lam / t) * (t / m - 1)) + exp(2 * lam / m) * stats::pnorm(-sqrt(lam / t) * (t / m + 1))
  }
  # discrete monitoring: the level moves up by 0.5826 s sqrt(dt)
  # (Broadie, Glasserman and Kou 1997)
  a2 <- 1 + 0.5826 * sqrt(dt)
  grid <- sort(unique(r$value))
  Fn <- stats::ecdf(r$value)(grid)
  D_shift <- max(abs(Fn - pig(grid, a2, a2^2)))
  D_plain <- max(abs(Fn - pig(grid, 1, 1)))
  # Kolmogorov-Smirnov at the grid times: 1.63 / sqrt(n) is the 1 per cent
  # critical value
  expect_lt(D_shift, 1.63 / sqrt(n))
  expect_gt(D_plain, 1.63 / sqrt(n))
  # the mean: a2 / mu + dt / 2 (a left Riemann sum of the survival)
  se <- stats::sd(r$value) / sqrt(n)
  expect_lt(abs(mean(r$value) - (a2 + dt / 2)) / se, 4)
  expect_gt(abs(mean(r$value) - (1 + dt / 2)) / se, 3)
})

test_that("a passage is the first step past the event, at every step of a macro-step", {
  skip_if_no_cc()
  for (precision in c("double", "single")) for (method in c("euler", "srk2"))
    expect_passage_at_first_crossing("cpu", precision, method)
})

test_that("the washboard as a model matches escape_times() in distribution", {
  skip_if_no_cc()
  n <- 2000
  m <- sde_washboard()
  for (method in c("srk2", "euler")) {
    s <- sde_run(m, n, init = list(x = ~ asin(gamma), v = 0), dt = 0.02, t_max = 300,
                 params = list(gamma = 0.6, theta = 0.25), method = method, seed = 11,
                 backend = "cpu")
    e <- suppressWarnings(escape_times(n, gamma = 0.6, V0 = 1, beta = 1, theta = 0.25, dt = 0.02,
                                       t_max = 300, method = method, seed = 12, backend = "cpu"))
    # two-sample Kolmogorov-Smirnov of the censored times min(T, t_max)
    # (the same censoring in both), independent seeds: p > 0.001
    expect_gt(suppressWarnings(stats::ks.test(s$value, e$value))$p.value, 1e-3)
    expect_s3_class(summary(s), "summary.sp_paths")
  }
})

test_that("passage results work with summary, ecdf_band, censored_mean, as_surv, plot", {
  skip_if_no_cc()
  r <- sde_run(ou_model, 300, init = list(x = 0), dt = 0.01, t_max = 3, params = list(lvl = c(1, 1.5)),
               seed = 2, backend = "cpu", at_passage = TRUE)
  d <- as.data.frame(r)
  expect_named(d, c("condition", "lvl", "replica", "value", "escaped"))
  expect_true(any(!d$escaped) && any(d$escaped))
  expect_equal(d$value[!d$escaped], rep(3, sum(!d$escaped)))
  s <- summary(r)
  expect_equal(nrow(s), 2)
  expect_gt(s$mean[2], s$mean[1])
  b <- ecdf_band(r[r$condition == 1, ])
  expect_s3_class(b, "sp_ecdf_band")
  cm <- censored_mean(r$value[r$condition == 1], r$escaped[r$condition == 1])
  expect_true(is.finite(cm$estimate))
  if (requireNamespace("survival", quietly = TRUE)) expect_s3_class(as_surv(r), "Surv")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(r))
  # the state at passage: x at the end of the step of the crossing -- past
  # the level where the crossing was seen there, or short of it where the
  # Brownian bridge found it inside the step, which it tests only where
  # 2 g0 g1 / (s^2 dt) < 24, so with g1 > -sqrt(12 s^2 dt) (s = 1, dt = 0.01)
  ap <- attr(r, "at_passage")
  esc <- d$escaped
  expect_true(all(ap$x[esc] >= d$lvl[esc] - sqrt(12 * 0.01)))
  expect_true(any(ap$x[esc] < d$lvl[esc]))
  expect_equal(ap$x2, ap$x^2)
  expect_named(as.data.frame(r, at_passage = TRUE), c(names(d), "x", "x2"))
  # chunks carry their states at passage into rbind()
  part <- function(n, first) {
    sde_run(ou_model, n, init = list(x = 0), dt = 0.01, t_max = 3, params = list(lvl = c(1, 1.5)),
            seed = 2, backend = "cpu", at_passage = TRUE, first_replica = first)
  }
  both <- rbind(part(100, 1), part(200, 101))
  expect_identical(as.data.frame(both, at_passage = TRUE), as.data.frame(r, at_passage = TRUE))
})

engine_contract_tests(list(
  name = "sde passage",
  n = 60,
  run = function(n, first = 1, seed = 1, backend = "cpu", ...) {
    skip_if_no_cc()
    sde_run(sde_washboard(), n, init = list(x = ~ asin(gamma), v = 0), dt = 0.05, t_max = 40,
            params = list(theta = c(0.2, 0.4)), seed = seed, first_replica = first,
            backend = backend, ...)
  },
  bad = list(list(args = list(n = 10, first = 0), error = "first_replica")),
  long = function(backend) {
    sde_run(sde_washboard(), if (backend == "gpu") 2^22 else 2^16, init = list(x = ~ asin(gamma), v = 0),
            dt = 0.01, t_max = 1e5, params = list(theta = 0.05), seed = 1, backend = backend)
  },
  warm = function(backend) { # the object long() runs (on the CPU, the vector loop's)
    withr::with_options(list(statphysgpu.sde_cpu_vector = TRUE),
                        sde_run(sde_washboard(), 4, init = list(x = ~ asin(gamma), v = 0),
                                dt = 0.01, t_max = 1, seed = 1, backend = backend))
  },
  partial = function(x, backend) {
    u <- attr(x, "unfinished")
    expect_gt(nrow(u), 0)
    expect_true(all(!x$escaped[x$replica %in% u$replica]))
    expect_true(all(x$value >= 0 & x$value <= 1e5))
  },
  gpu_agree = function(cpu, gpu) {
    # the same paths to rounding: passage times equal but for the few
    # that rounding moves by a step
    close <- abs(cpu$value - gpu$value) <= 1e-9 * pmax(1, cpu$value)
    expect_gt(mean(close), 0.99)
    expect_identical(cpu$escaped[close], gpu$escaped[close])
  }
))

test_that("fixed-length outputs do not depend on threads; chunks combine", {
  skip_if_no_cc()
  run <- function(n, first = 1, output = "moments", ...) {
    sde_run(sde_washboard(), n, init = list(x = ~ asin(gamma), v = c(0, 0.1, 0.2)[(seq_len(n) + first) %% 3 + 1]),
            dt = 0.05, t_max = 10, params = list(gamma = c(0.3, 0.5)), output = output,
            record_every = 40, seed = 9, first_replica = first, backend = "cpu",
            keep = if (output == "trajectories") 5 else 0,
            bins = if (output == "histogram") list(x = seq(-2, 4, by = 0.5), energy = c(-2, 0, 2)),
            ...)
  }
  one <- with_threads(1, run(600))
  two <- with_threads(2, run(600))
  expect_identical(as.data.frame(one), as.data.frame(two))
  d <- as.data.frame(one)
  expect_named(d, c("condition", "gamma", "time", "variable", "replicas", "mean", "sd", "se"))
  expect_equal(sort(unique(d$time)), c(0, 2, 4, 6, 8, 10))
  # chunks pool to the one-call moments (to rounding: tiles start at the chunk)
  both <- rbind(run(300), run(300, first = 301))
  expect_equal(as.data.frame(both)$mean, d$mean, tolerance = 1e-12)
  expect_equal(as.data.frame(both)$sd, d$sd, tolerance = 1e-10)
  expect_equal(as.data.frame(both)$replicas, d$replicas)
  # histograms: whole counts, chunks add up exactly
  h1 <- with_threads(1, run(600, output = "histogram"))
  h2 <- with_threads(2, run(600, output = "histogram"))
  expect_identical(as.data.frame(h1), as.data.frame(h2))
  hc <- rbind(run(300, output = "histogram"), run(300, first = 301, output = "histogram"))
  expect_identical(as.data.frame(hc)$count, as.data.frame(h1)$count)
  hx <- as.data.frame(h1)
  tot <- tapply(hx$count, paste(hx$condition, hx$time, hx$variable), sum)
  expect_true(all(tot == 600))
  # trajectories: replicas 1..5 of the whole study, the same in chunks
  t1 <- run(600, output = "trajectories")
  tc <- rbind(run(3, output = "trajectories"), run(597, first = 4, output = "trajectories"))
  expect_identical(as.data.frame(tc), as.data.frame(t1))
  expect_equal(sort(unique(as.data.frame(t1)$replica)), 1:5)
  # trajectories and moments hold the same paths: the kept state at t = 0
  tt <- as.data.frame(t1)
  expect_equal(tt$x[tt$time == 0 & tt$condition == 1], rep(asin(0.3), 5), tolerance = 1e-7)
})

test_that("a path that turns non-finite stops the run, naming replica, time and variable", {
  skip_if_no_cc()
  blow <- sde_model(drift = list(y = ~ 0, x = ~ x^2), name = "blow")
  for (output in c("moments", "passage")) {
    m <- if (output == "passage") sde_model(drift = list(y = ~ 0, x = ~ x^2), stop = ~ y > 1)
         else blow
    err <- expect_error(sde_run(m, 3, init = list(y = 0, x = c(0.1, 1, 0.15)), dt = 0.001,
                                t_max = 5, output = output, backend = "cpu", seed = 1,
                                precision = "double", method = "euler"),
                        class = "statphysgpu_not_finite")
    # replica 2 (x0 = 1) diverges near t = 1, the others after t_max
    expect_match(conditionMessage(err), "`x` of replica 2 \\(condition 1\\)")
    t <- as.numeric(sub(".*at t = ([0-9.e+-]+).*", "\\1", conditionMessage(err)))
    expect_gt(t, 0.9)
    expect_lt(t, 1.1)
  }
})

test_that("a compile error names the model expression", {
  skip_if_no_cc()
  m <- sde_model(drift = list(x = ~ -x), name = "broken")
  # break the generated code of the drift by hand (the checks let nothing through)
  m$code <- sub("f[0] = (-x[0]);", "f[0] = (-x[0]) +;", m$code, fixed = TRUE)
  m$hash <- paste0(m$hash, "x")
  expect_error(statphysgpu:::sde_cpu_load(m), "the model \"broken\" does not compile.*the drift of `x`",
               class = "statphysgpu_sde_compile_error")
})

test_that("without a C compiler the CPU path says so", {
  old <- statphysgpu:::.sp_sde$cc
  on.exit(assign("cc", old, envir = statphysgpu:::.sp_sde))
  assign("cc", list(cc = "", cflags = "", found = FALSE, why = "R reports no C compiler"),
         envir = statphysgpu:::.sp_sde)
  expect_false(sde_cpu_available())
  expect_error(sde_run(ou_model, 10, init = list(x = 0), dt = 0.1, t_max = 1, backend = "cpu"),
               "no C compiler: R reports no C compiler", class = "statphysgpu_no_compiler")
})

test_that("the model's kernels compile with NVRTC (no GPU needed)", {
  skip_if_no_nvrtc()
  skip_if_second_build() # the same sources and R code in both builds
  local_kernel_cache()
  for (prec in c("single", "double")) for (method in c("srk2", "euler")) {
    img <- statphysgpu:::sde_nvrtc_image(sde_washboard(), "sm_90", prec, method)
    expect_true(is.raw(img) && length(img) > 1000)
  }
  img <- statphysgpu:::sde_nvrtc_image(sde_model(drift = list(x = ~ 1)), "sm_90", "single", "euler")
  expect_true(is.raw(img))
  # the passage kernel's chunk (option statphysgpu.sde_chunk): another
  # variant, a multiple of 4
  expect_false(any(grepl("SP_SDE_CHUNK", statphysgpu:::sde_gpu_variant("single", "srk2")$defines)))
  withr::with_options(list(statphysgpu.sde_chunk = 8L), {
    expect_true("SP_SDE_CHUNK=8" %in% statphysgpu:::sde_gpu_variant("single", "srk2")$defines)
    img <- statphysgpu:::sde_nvrtc_image(sde_washboard(), "sm_90", "single", "srk2")
    expect_true(is.raw(img) && length(img) > 1000)
  })
  withr::with_options(list(statphysgpu.sde_chunk = 6L), {
    expect_error(statphysgpu:::sde_gpu_variant("single", "srk2"), "multiple of 4")
  })
  # single precision: the passage kernel's fast macro-steps run a copy of
  # the model whose sin and cos skip their range test (sde.cu,
  # sde_prelude.h), with either sine; the calls of the library's sine left
  # in the kernel are the scalar copy's (sp_sde_advance), fewer than with
  # the copy off (SP_SDE_OUTLINED, as a model compiled out of line has it)
  sc <- sde_model(drift = list(x = ~ v, v = ~ -sin(x) + 0.1 * cos(2 * x) - 0.2 * v),
                  noise = list(v = ~ 0.3), stop = ~ x > 3, name = "sincos_gpu")
  calls <- function(ptx) {
    ptx <- rawToChar(ptx)
    k <- regexpr(".entry sp_sde_passage_kernel", ptx, fixed = TRUE)
    body <- substring(ptx, k)
    nxt <- regexpr("\\.entry ", substring(body, 2))
    if (nxt > 0) body <- substring(body, 1, nxt)
    lengths(regmatches(body, gregexpr("sp_(sin|cos)_big_ff,", body)))
  }
  for (fast in c(TRUE, FALSE)) {
    withr::local_options(statphysgpu.sde_fast_math = fast)
    for (method in c("srk2", "euler")) {
      on <- statphysgpu:::sde_nvrtc_image(sc, "sm_90", "single", method, cubin = FALSE)
      off <- statphysgpu:::sde_nvrtc_image(sc, "sm_90", "single", method, cubin = FALSE,
                                           defines = "SP_SDE_OUTLINED=1")
      expect_gt(calls(on), 0)
      # the chunk's macro-steps of 4 steps (16 steps by default), one sine
      # a stage (method), one cosine
      chunk <- as.integer(statphysgpu:::sp_tuning("sde_chunk"))
      expect_identical(calls(off) - calls(on), chunk * (1L + (method == "srk2")) * 2L)
    }
  }
  # a model compiled out of line has no copy (its sines are out of line too)
  nest <- function(v) { e <- as.name(v); for (i in 1:120) e <- call("sin", e); e }
  big <- sde_model(drift = list(x = nest("x")), noise = list(x = ~ 0.1), name = "deep_gpu")
  expect_match(sde_code(big), "#define SP_SDE_OUTLINED 1", fixed = TRUE)
  expect_false(grepl("SP_SDE_OUTLINED", sde_code(sc), fixed = TRUE))
  expect_true(is.raw(statphysgpu:::sde_nvrtc_image(big, "sm_90", "single", "srk2")))
  m <- sde_model(drift = list(x = ~ -x), name = "broken")
  m$code <- sub("f[0] = (-x[0]);", "f[0] = (-x[0]) +;", m$code, fixed = TRUE)
  m$hash <- paste0(m$hash, "y")
  expect_error(statphysgpu:::sde_nvrtc_image(m, "sm_90"), "does not compile \\(NVRTC\\).*the drift of `x`",
               class = "statphysgpu_sde_compile_error")
})

test_that("geometric Brownian motion, Stratonovich: E X_t = x0 exp((mu + sigma^2 / 2) t) with both methods", {
  skip_if_no_cc()
  gbm <- sde_model(drift = list(x = ~ mu * x), noise = list(x = ~ sigma * x),
                   params = c(mu = 0.5, sigma = 0.5), calculus = "stratonovich", name = "gbm_s")
  n <- 4000
  m_ex <- exp(0.625)
  sd_ex <- m_ex * sqrt(exp(0.25) - 1)
  for (method in c("euler", "srk2")) {
    r <- sde_run(gbm, n, init = list(x = 1), dt = 0.01, t_max = 1, method = method,
                 output = "moments", record_every = 100, seed = 6, backend = "cpu",
                 precision = "double")
    last <- as.data.frame(r)
    last <- last[last$time == 1, ]
    # z < 4; the Ito reading would give exp(0.5), 14 se away
    expect_lt(abs(last$mean - m_ex) / (sd_ex / sqrt(n)), 4)
  }
})

test_that("the driven Brownian particle of paper 001 as a model matches driven_brownian()", {
  skip_if_no_cc()
  drv <- sde_model(drift = list(x = ~ v, v = ~ -beta * v - 2 * pi * cos(2 * pi * x) +
                                  a * cos(omega * t) + f),
                   noise = list(v = ~ sqrt(2 * beta * theta)),
                   params = c(a = 1, omega = 1, f = 1, beta = 1, theta = 0.5), name = "driven")
  n <- 500; periods <- 20; spp <- 200
  x0 <- (seq_len(n) - 0.5) / n
  # (the step is coarse for the physics, which both sides share: warned)
  d <- suppressWarnings(driven_brownian(n, a = 1, omega = 1, f = 1, beta = 1, theta = 0.5,
                                        periods = periods, steps_per_period = spp,
                                        transient = 0.1, seed = 1, backend = "cpu",
                                        precision = "double", init = list(x = x0, v = 0)),
                        classes = "statphysgpu_step_warning")
  dt <- 2 * pi / spp
  ktr <- 2 * spp
  tr <- as.data.frame(sde_run(drv, n, init = list(x = x0, v = 0), dt = dt,
                              t_max = periods * 2 * pi, output = "trajectories", keep = n,
                              record_every = ktr, seed = 2, backend = "cpu",
                              precision = "double"))
  t_tr <- ktr * dt
  t_end <- periods * spp * dt
  x_tr <- tr$x[abs(tr$time - t_tr) < 1e-9]
  x_end <- tr$x[abs(tr$time - t_end) < 1e-9]
  expect_length(x_end, n)
  v_bar <- (x_end - x_tr) / (t_end - t_tr)
  # two independent samples of <v>: z < 4
  z <- (mean(v_bar) - d$v_mean) / sqrt(stats::var(v_bar) / n + d$v_se^2)
  expect_lt(abs(z), 4)
  expect_gt(d$v_mean, 0.1) # the running state: a test that can fail
})

test_that("a model's sin and cos in single precision: polynomial after reduction, about 2 ulp", {
  skip_if_no_cc()
  p <- sde_sincos_probe("cpu")
  expect_identical(p$x, p$x_in)
  # |x| <= 8192 (sp_sin_pi_f, sp_cos_pi_f of sp_math.h): at most 1.95 units
  # of 2^-24 absolute and 2.18 relative where the value is not small,
  # measured without fused multiply-adds on 1e7 points (the roundings of
  # r^2, r^3 and of the result near |r| = pi/2, where the polynomial's
  # correction is -0.57; its own error is 0.1 unit), 0.5 ulp(x) near the
  # zeros (below the rounding of x itself); beyond 8192 and at 3e38 the C
  # library's sinf and cosf, correctly rounded
  expect_sincos_accuracy(p, abs_u = 2, rel_u = 2.5, lib_u = 1)
})

test_that("the CPU's vector loop over paths computes what a path alone does", {
  skip_if_no_cc()
  # long runs take the model's vector loop (sde_lanes.h, 16 paths a
  # pass), short ones a path at a time: the same numbers path by path; a
  # macro-step where a path stops, meets the bridge or has a sine's
  # argument beyond the polynomial's range (2^20 in double) is redone by
  # the scalar copy, with the library's sine there; on any thread count
  both <- function(f) {
    a <- withr::with_options(list(statphysgpu.sde_cpu_vector = TRUE), with_threads(1, f()))
    b <- withr::with_options(list(statphysgpu.sde_cpu_vector = FALSE), with_threads(2, f()))
    expect_identical(a, b)
    a
  }
  for (method in c("euler", "srk2")) {
    r <- both(function() as.data.frame(
      sde_run(sde_washboard(), 40, init = list(x = ~ asin(gamma), v = 0), dt = 0.05,
              t_max = 60, params = list(theta = c(0.3, 0.5)), method = method, seed = 3,
              at_passage = TRUE, backend = "cpu", progress = FALSE), at_passage = TRUE))
    expect_true(any(r$escaped) && !all(r$escaped))
  }
  # x passes 2^20 a few steps in, om t passes it at step 11; v's event
  # carries noise (the Brownian bridge)
  wide <- sde_model(drift = list(x = ~ w, v = ~ -v + sin(x) + cos(om * t)),
                    noise = list(v = ~ 0.3), params = c(w = 2e5, om = 1e7), stop = ~ v > 0.7,
                    name = "wide")
  init <- list(x = 2^20 - 5000 + 1000 * (1:37), v = 0)
  tr <- both(function() as.data.frame(
    sde_run(wide, 37, init = init, dt = 0.01, t_max = 0.5, output = "trajectories", keep = 37,
            record_every = 5, precision = "double", seed = 4, backend = "cpu",
            progress = FALSE)))
  expect_true(all(is.finite(tr$v)) && all(abs(tr$v) < 3))
  ps <- both(function() {
    r <- sde_run(wide, 37, init = init, dt = 0.01, t_max = 3, precision = "double", seed = 4,
                 backend = "cpu", progress = FALSE)
    expect_true(attr(r, "bridge"))
    as.data.frame(r)
  })
  expect_true(any(ps$escaped))
})
