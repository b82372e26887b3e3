# Positions, cut-offs, pair observables, g(r) and graphs (issue 49) on the
# GPU: the same numbers as the CPU (double: 1e-9 relative, the sums' order
# and fused multiply-adds aside), in both modes (A: a system a block, n <=
# 2048; B: many blocks a system, the cell lists on the device).

space_close <- function(a, b, tol = 1e-9, label = "") {
  a <- as.double(a)
  b <- as.double(b)
  expect_identical(length(a), length(b), label = label)
  ok <- !is.na(b)
  err <- max(c(0, abs(a[ok] - b[ok]) / pmax(1, abs(b[ok]))))
  expect_lt(err, tol, label = paste(label, "relative difference"))
}

test_that("the space models compile with NVRTC in every mode (no GPU needed)", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  if (isTRUE(.Call(statphysgpu:::C_sp_r_gpu_status)$available)) {
    skip("a GPU is here: the tests below compile these kernels and run them")
  }
  local_kernel_cache()
  cases <- list(list("lj3", "baoab", 125, "single"), list("lj3", "srk2", 4096, "double"),
                list("kgraph", "euler", 100, "single"), list("kgraph", "srk2", 5000, "double"),
                list("ideal2", "euler", 3000, "single"))
  for (cs in cases) {
    m <- space_model(cs[[1]])
    plan <- statphysgpu:::sde_mb_gpu_plan(m, cs[[3]], cs[[4]], cs[[2]], bins = 20)
    img <- statphysgpu:::sde_nvrtc_image(m, "sm_90", cs[[4]], cs[[2]], source = "mb.cu",
                                         defines = plan$defines)
    expect_true(is.raw(img) && length(img) > 1000, label = paste(cs, collapse = " "))
  }
})

test_that("GPU = CPU in double: the Lennard-Jones fluid with cut-off pairs and pair observables, both modes", {
  skip_if_no_gpu()
  lj <- space_model("lj3")
  for (n in c(125, 4096)) for (method in c("baoab", "srk2", "euler")) {
    L <- (n / 0.8)^(1 / 3)
    st <- c(space_lattice(n, L, jitter = 0.1), list(vx = 0, vy = 0, vz = 0))
    run <- function(backend) {
      sde_run(lj, replicas = 2, n = n, init = st, dt = 0.002, t_max = 0.02, method = method,
              box = L, output = "records", record_every = 5, precision = "double", seed = 5,
              backend = backend, progress = FALSE)
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    lab <- sprintf("lj3 %s n = %d", method, n)
    expect_identical(attr(gpu, "backend"), "gpu", label = lab)
    for (o in c("U", "W", "K")) space_close(gpu[[o]], cpu[[o]], label = paste(lab, o))
    space_close(attr(gpu, "final"), attr(cpu, "final"), label = paste(lab, "final"))
    f <- attr(gpu, "final")[, c("x", "y", "z"), ]
    expect_true(all(f >= 0 & f < L), label = paste(lab, "in the box"))
  }
})

test_that("GPU mode A: one, two or four elements a thread give the same run (double)", {
  skip_if_no_gpu()
  lj <- space_model("lj3")
  n <- 216 # 54 threads of four, 108 of two, 216 of one (mode A in double; a cube for the lattice)
  L <- (n / 0.8)^(1 / 3)
  st <- c(space_lattice(n, L, jitter = 0.1), list(vx = 0, vy = 0, vz = 0))
  run <- function(ept) {
    withr::local_options(statphysgpu.mb_small_ept = ept)
    sde_run(lj, replicas = 2, n = n, init = st, dt = 0.002, t_max = 0.02, method = "baoab",
            box = L, output = "records", record_every = 5, precision = "double", seed = 5,
            backend = "gpu", progress = FALSE)
  }
  r4 <- run(4L)
  for (ept in c(1L, 2L)) {
    r <- run(ept)
    # the per-element sums are the same; the block's sums of the records'
    # terms differ in the order of their additions only
    for (o in c("U", "W", "K")) space_close(r[[o]], r4[[o]], tol = 1e-12, label = paste(ept, o))
    space_close(attr(r, "final"), attr(r4, "final"), tol = 1e-12, label = paste(ept, "final"))
  }
})

test_that("GPU: cell lists and every pair give the same sums (single and double)", {
  skip_if_no_gpu()
  lj <- space_model("lj3")
  n <- 4096
  L <- (n / 0.8)^(1 / 3)
  st <- c(space_lattice(n, L, jitter = 0.1), list(vx = 0, vy = 0, vz = 0))
  for (precision in c("double", "single")) {
    run <- function(cells) {
      withr::local_options(statphysgpu.mb_cells = cells)
      sde_run(lj, replicas = 2, n = n, init = st, dt = 0.002, t_max = 0.02, method = "baoab",
              box = L, output = "records", record_every = 5, precision = precision, seed = 5,
              backend = "gpu", progress = FALSE)
    }
    a <- run(TRUE)
    b <- run(FALSE)
    tol <- if (precision == "double") 1e-10 else 1e-3
    space_close(attr(a, "final"), attr(b, "final"), tol = tol, label = precision)
    space_close(a$U, b$U, tol = tol, label = paste(precision, "U"))
  }
})

test_that("GPU = CPU: g(r)'s counts, both modes", {
  skip_if_no_gpu()
  m <- space_model("ideal2")
  for (n in c(300, 3000)) {
    run <- function(backend) {
      sde_run(m, replicas = 3, n = n, init = list(x = ~ runif(0, 30), y = ~ runif(0, 30)),
              dt = 0.01, t_max = 0.05, box = 30, output = "rdf", bins = 25, r_max = 10,
              record_every = 1, seed = 9, precision = "double", backend = backend,
              progress = FALSE)
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    # the same pairs in the same bins (a pair at a bin's edge may fall the
    # other side with fused multiply-adds: at most a few of ~1e5)
    expect_lt(max(abs(gpu$pairs - cpu$pairs)), 5, label = paste("rdf n =", n))
    expect_equal(sum(gpu$pairs), sum(cpu$pairs), tolerance = 1e-4)
  }
})

test_that("GPU = CPU in double: Kuramoto oscillators on a graph, both modes", {
  skip_if_no_gpu()
  m <- space_model("kgraph")
  for (n in c(60, 3000)) {
    el <- data.frame(from = c(seq_len(n), seq_len(n)), to = c(seq_len(n) %% n + 1, (seq_len(n) * 7) %% n + 1),
                     weight = c(rep(1, n), rep(0.5, n)))
    el <- el[el$from != el$to & !duplicated(el[c("from", "to")]), ]
    for (method in c("euler", "srk2")) {
      run <- function(backend) {
        sde_run(m, replicas = 3, n = n, init = list(theta = ~ runif(-pi, pi)), dt = 0.01,
                t_max = 0.3, method = method, output = "records", record_every = 10,
                precision = "double", seed = 6, graph = el, backend = backend, progress = FALSE)
      }
      cpu <- run("cpu")
      gpu <- run("gpu")
      lab <- sprintf("kgraph %s n = %d", method, n)
      space_close(gpu$r, cpu$r, label = lab)
      space_close(attr(gpu, "final"), attr(cpu, "final"), label = paste(lab, "final"))
    }
  }
})

test_that("GPU: the Lennard-Jones fluid against NIST (T = 0.9, rho = 0.776, rc = 3, N = 500) and base R (rho = 0.8, T = 1.5), dt bias inside the errors", {
  skip_if_no_gpu()
  lj <- space_model("lj3")
  nc_model <- sde_model(
    drift = lj$source$drift, noise = lj$source$noise, params = c(g = 1, T = 0.9, rc = 3),
    define = lj$source$define,
    observe = list(U = ~ sum(pairs(u, cutoff = rc)) / 2 / n, W = ~ sum(pairs(-f * r^2, cutoff = rc)) / 2,
                   Nc = ~ sum(pairs(1, cutoff = rc)) / 2),
    positions = c("x", "y", "z"), name = "lj3-nc")
  # NIST SRSW, NVT Monte Carlo of the LJ fluid cut at 3 with the tail
  # correction, N = 500, T = 0.9, rho = 0.776 (bench/lj-reference.md, 1.1):
  # U/N = -5.4689 +- 0.00042, P = 0.24056 +- 0.00274.  Ours: truncated and
  # shifted at 3 (the same forces), U_full = U_TS + u(3) Nc + tail.
  n <- 500
  L <- (n / 0.776)^(1 / 3)
  st <- space_fcc(5, 0.776)$init # 500 sites at rho 0.776
  eq <- sde_run(nc_model, replicas = 64, n = n, init = st, dt = 0.005, t_max = 20,
                method = "baoab", box = L, record_every = 4000, seed = 31, backend = "gpu",
                progress = FALSE)
  one <- function(dt, t_max) {
    r <- sde_run(nc_model, replicas = 64, n = n, init = eq, dt = dt, t_max = t_max,
                 method = "baoab", box = L, record_every = round(0.25 / dt), backend = "gpu",
                 progress = FALSE)
    r <- r[r$time > min(r$time), ]
    urc <- 4 * (3^-12 - 3^-6)
    utail <- 8 / 3 * pi * 0.776 * (3^-9 / 3 - 3^-3)
    ptail <- 16 / 3 * pi * 0.776^2 * (2 / 3 * 3^-9 - 3^-3)
    # NIST's ensemble is the truncated potential's (U_T = U_TS + u(rc) Nc):
    # each record reweighted by exp(-u(rc) (Nc - <Nc>) / T) within its
    # system (bench/lj-reference.md, part 2)
    rw <- function(k) {
      d <- r[r$replica == k, ]
      w <- exp(-urc * (d$Nc - mean(d$Nc)) / 0.9)
      c(u = sum(w * (d$U + urc * d$Nc / n)) / sum(w) + utail,
        p = 0.776 * 0.9 + sum(w * d$W) / sum(w) / (3 * L^3) + ptail)
    }
    est <- vapply(unique(r$replica), rw, c(u = 0, p = 0))
    u <- est["u", ]
    p <- est["p", ]
    list(u = mean(u), su = sd(u) / sqrt(64), p = mean(p), sp = sd(p) / sqrt(64))
  }
  a <- one(0.005, 40)
  b <- one(0.0025, 20)
  expect_lt(abs(a$u - -5.4689) / sqrt(a$su^2 + 0.00042^2), 4)
  expect_lt(abs(a$p - 0.24056) / sqrt(a$sp^2 + 0.00274^2), 4)
  # the step's bias is inside the errors: dt = 0.005 against 0.0025
  expect_lt(abs(a$u - b$u) / sqrt(a$su^2 + b$su^2), 4)
  expect_lt(abs(a$p - b$p) / sqrt(a$sp^2 + b$sp^2), 4)
  message(sprintf("LJ NIST check: U/N %.4f +- %.4f (NIST -5.4689), P %.4f +- %.4f (NIST 0.2406); dt/2: %.4f, %.4f",
                  a$u, a$su, a$p, a$sp, b$u, b$p))
})
