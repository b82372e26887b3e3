# Periodic states (sde_model(periodic = )): angles kept in [-pi, pi] by the
# engines.  On the CPU, small sizes: the checks of the declaration, the
# generated code, the wrapped starts, and the same dynamics as the model
# without the declaration (wrapping only moves the angles by multiples of
# 2 pi, so every observable agrees to rounding in double).  CPU = GPU and
# the speed are in test-mb-gpu.R and bench/mb.R.

# per_model(), ang_dist(): helper-mb.R

test_that("a periodic declaration is checked: states only, through sin() and cos() of whole multiples", {
  cls <- "statphysgpu_periodic"
  expect_error(sde_model(drift = list(theta = ~ -theta), periodic = "theta"),
               "reads the periodic state `theta` outside sin\\(\\) and cos\\(\\)", class = cls)
  expect_error(sde_model(drift = list(theta = ~ sin(theta / 2)), periodic = "theta"),
               "`theta` has the coefficient 1/2", class = cls)
  expect_error(sde_model(drift = list(theta = ~ cos(k * theta)), params = c(k = 2),
                         periodic = "theta"), "`theta` has the coefficient k", class = cls)
  expect_error(sde_model(drift = list(theta = ~ 1), observe = list(m = ~ mean(theta)),
                         periodic = "theta"), "the observable `m` reads", class = cls)
  expect_error(sde_model(drift = list(theta = ~ 1), stop = ~ theta > 1, periodic = "theta"),
               "`stop` reads", class = cls)
  expect_error(sde_model(drift = list(phi = ~ k * (phi[i + 1] - 2 * phi + phi[i - 1])),
                         params = c(k = 1), lattice = "ring", periodic = "phi"),
               "as `phi\\[i [+-] 1\\]`", class = cls)
  expect_error(sde_model(drift = list(theta = ~ 1), periodic = "phi"),
               "`periodic` names `phi`, which is not a state", class = "statphysgpu_error")
  expect_error(sde_model(drift = list(theta = ~ 1), periodic = 1),
               "`periodic` must be NULL or the names of states", class = "statphysgpu_error")
  expect_error(sde_model(drift = list(theta = ~ 1), periodic = c("theta", "theta")),
               "names `theta` twice", class = "statphysgpu_error")
  # accepted: whole multiples, neighbours and partners, shifts by parameters
  ok <- sde_model(drift = list(theta = ~ sin(2 * theta - a) + pairs(sin(theta[j] - theta)) / n),
                  params = c(a = 1), periodic = "theta")
  expect_identical(ok$periodic, "theta")
  expect_true(isTRUE(ok$many)) # a periodic model runs on the many-body engine
  ring <- sde_model(drift = list(phi = ~ sin(phi[i + 1] - phi) + sin(phi[i - 1] - phi)),
                    lattice = "ring", periodic = "phi")
  expect_identical(ring$periodic, "phi")
  expect_null(per_model("kur0")$periodic)
})

test_that("the generated code wraps after every stage and takes the unreduced sine of a wrapped state", {
  code <- strsplit(per_model("kur")$code, "\n")[[1]]
  expect_true(any(grepl("y[0] = SP_WRAP(y[0]);", code, fixed = TRUE)))
  expect_true(any(grepl("r[0] = SP_SIN_P(x[0]);", code, fixed = TRUE)))
  # cos(2 theta) is not of a wrapped value: the reduced cosine
  expect_true(any(grepl("SP_COS((SP_R(2.0) * x[0]))", code, fixed = TRUE)))
  expect_false(any(grepl("SP_WRAP", strsplit(per_model("kur0")$code, "\n")[[1]])))
  hcode <- strsplit(per_model("hmf")$code, "\n")[[1]]
  mv <- grep("mb_move", hcode)
  expect_true(any(grepl("x[0] = SP_WRAP(x[0]);", hcode[mv:(mv + 8)], fixed = TRUE)))
  expect_output(print(per_model("hmf")), "periodic \\(angles kept in \\[-pi, pi\\]\\): q")
})

test_that("starts are wrapped: numbers, element vectors and drawn laws", {
  skip_if_no_cc()
  m <- per_model("kur")
  one <- function(init, n = 5) sde_run(m, 2, n = n, init = init, dt = 0.01, t_max = 0.01,
                                       output = "trajectories", record_every = 1, seed = 3,
                                       backend = "cpu", precision = "double")
  st0 <- function(x) x$theta[x$time == 0]
  expect_equal(unique(st0(one(list(theta = 10)))), 10 - 4 * pi, tolerance = 1e-14)
  v <- c(-7, -1, 3.2, 4, 100)
  expect_equal(st0(one(list(theta = v)))[1:5], v - 2 * pi * round(v / (2 * pi)),
               tolerance = 1e-13)
  # a law drawn by the engine: the draws of the same law unwrapped, wrapped
  law <- list(theta = ~ runif(0, 2 * pi))
  a <- st0(one(law, 50))
  b <- st0(sde_run(per_model("kur0"), 2, n = 50, init = law, dt = 0.01, t_max = 0.01,
                   output = "trajectories", record_every = 1, seed = 3, backend = "cpu",
                   precision = "double"))
  expect_true(all(abs(a) <= pi))
  expect_true(any(b > pi)) # (else the test shows nothing)
  expect_equal(a, b - 2 * pi * round(b / (2 * pi)), tolerance = 1e-14)
})

test_that("wrapping changes no observable: the same dynamics as the undeclared model (double, CPU)", {
  skip_if_no_cc()
  run <- function(m, method, init, n = 40, tm = 4) {
    sde_run(m, 3, n = n, init = init, dt = 0.02, t_max = tm, method = method,
            output = "records", record_every = 20, seed = 11, backend = "cpu",
            precision = "double", params = if (m$name == "per-kuramoto") list(K = c(1, 3)))
  }
  kin <- list(theta = ~ runif(0, 2 * pi))
  for (method in c("euler", "srk2")) {
    a <- run(per_model("kur"), method, kin)
    b <- run(per_model("kur0"), method, kin)
    expect_equal(a$r, b$r, tolerance = 1e-11, label = method)
    expect_equal(a$c2, b$c2, tolerance = 1e-11, label = method)
    fa <- attr(a, "final")
    expect_true(all(abs(fa) <= pi + 1e-12))
    expect_lt(max(ang_dist(fa, attr(b, "final"))), 1e-10)
    expect_true(any(abs(attr(b, "final")) > pi)) # the undeclared angles did wind
  }
  hin <- list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1.5))
  for (method in c("verlet", "yoshida4")) {
    a <- run(per_model("hmf"), method, hin, tm = 6)
    b <- run(per_model("hmf0"), method, hin, tm = 6)
    expect_equal(a$M, b$M, tolerance = 1e-11, label = method)
    expect_equal(a$e, b$e, tolerance = 1e-11, label = method)
    fa <- matrix(attr(a, "final"), nrow = 40)
    expect_true(all(abs(fa[, c(TRUE, FALSE)]) <= pi + 1e-12)) # q (p is not wrapped)
  }
})

test_that("a periodic run continues as one run, bit for bit (CPU)", {
  skip_if_no_cc()
  m <- per_model("kur")
  go <- function(tm, init) sde_run(m, 2, n = 30, init = init, dt = 0.01, t_max = tm,
                                   output = "records", record_every = 10, seed = 5,
                                   backend = "cpu", precision = "single")
  whole <- go(1, list(theta = ~ runif(0, 2 * pi)))
  a <- go(0.5, list(theta = ~ runif(0, 2 * pi)))
  b <- go(0.5, a)
  expect_identical(attr(b, "final"), attr(whole, "final"))
  expect_identical(b$r[b$time > 0.5], whole$r[whole$time > 0.5])
})

test_that("a periodic model compiles with NVRTC (unreduced hardware sine in single precision)", {
  skip_if_no_nvrtc()
  local_kernel_cache()
  m <- per_model("kur")
  for (n in c(100, 5000)) {
    plan <- statphysgpu:::sde_mb_gpu_plan(m, n, "single", "srk2")
    ptx <- statphysgpu:::sde_nvrtc_image(m, "compute_90", "single", "srk2", cubin = FALSE,
                                         source = "mb.cu", defines = plan$defines)
    txt <- rawToChar(ptx)
    expect_match(txt, "sin.approx", fixed = TRUE)
  }
})

test_that("sde_ams() refuses a many-body or periodic model before anything compiles", {
  m <- sde_model(drift = list(theta = ~ w - sin(theta), v = ~ cos(theta)),
                 noise = list(theta = ~ s), params = c(w = 0.5, s = 0.3), periodic = "theta",
                 name = "adler")
  expect_error(sde_ams(m, score = ~ v, start_edge = 0.1, B = 1, init = list(theta = 0, v = 0), dt = 0.01,
                       backend = "cpu"),
               "runs models of one particle.*declares periodic states \\(`theta`\\)",
               class = "statphysgpu_error")
  expect_error(sde_ams(per_model("kur0"), score = ~ 1, start_edge = 0.1, B = 1,
                       init = list(theta = 0), dt = 0.01, backend = "cpu"),
               "it couples elements", class = "statphysgpu_error")
})
