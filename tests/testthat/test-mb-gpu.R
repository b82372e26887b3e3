# Many-body models on the GPU (inst/cuda/mb.cu, src/gpu/sp_gpu_mb.c): the
# kernels compile with NVRTC in every method, precision and mode (no GPU
# needed), and on a GPU host the GPU agrees with the CPU (mb_cpu.h, the
# reference) system by system in double precision, in law in single, does not
# depend on how the systems are chunked, and returns partial results on an
# interrupt.
#
# Tolerance of the double-precision comparisons: relative 1e-9 (absolute
# where a value is below 1).  Both backends make the same operations on the
# same normals; they differ by rounding only -- fused multiply-adds on the
# GPU, the math libraries' last bits (the Box-Muller log, sin and cos), the
# order of the reduction and pair sums -- which is of order 1e-16 a
# operation and grows over the short runs here (at most 60 steps) by the
# dynamics' expansion, far below 1e-9.

# Heavy: many-body models compiled for the CPU and the GPU (half a minute). Skipped on CRAN; `make test` and CI set NOT_CRAN=true.
skip_on_cran()

mb_test_models <- function() {
  list(
    # mean field: reductions only (Kuramoto); a sweep of K (two conditions)
    kur = sde_model(
      drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0.3, K = 4, D = 1),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "mb-kuramoto"),
    # all pairs, a parameter per element (drawn)
    kp = sde_model(
      drift = list(theta = ~ w + K / n * pairs(sin(theta[j] - theta))),
      noise = list(theta = ~ sqrt(2 * D)),
      params = list(K = 2, D = 0.5, w = ~ rcauchy(0, 0.5)),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "mb-pairs"),
    # a chain of (phi, v) with free ends; no reduction in the dynamics
    chain = sde_model(
      drift = list(phi = ~ v, v = ~ -beta * v - sin(phi) + gamma + k * (phi[i + 1] - 2 * phi + phi[i - 1])),
      noise = list(v = ~ sqrt(2 * beta * T)), params = c(gamma = 0.1, k = 1, T = 0.5, beta = 1),
      lattice = "chain", observe = list(v2 = ~ mean(v^2)), name = "mb-chain"),
    # HMF: Hamiltonian (q, p), the mean field (verlet, yoshida4)
    hmf = sde_model(
      drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
      observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2), K = ~ mean(p^2) / 2),
      name = "mb-hmf"),
    # a harmonic ring with friction and noise (baoab); an observable that
    # reads a neighbour (the sums through the measuring pass)
    ring = sde_model(
      drift = list(q = ~ p, p = ~ -q - g * p + k * (q[i + 1] - 2 * q + q[i - 1])),
      noise = list(p = ~ sqrt(2 * g * T)), params = c(g = 1, T = 1, k = 1), lattice = "ring",
      observe = list(E = ~ mean(p^2), U = ~ mean((q[i + 1] - q)^2)), name = "mb-ring"),
    # (q, p) with pair forces and Langevin friction (baoab with pairs),
    # element masses
    lpairs = sde_model(
      drift = list(q = ~ p / m, p = ~ -g * p + 1 / n * pairs(sin(q[j] - q))),
      noise = list(p = ~ sqrt(2 * g * T)),
      params = list(g = 0.5, T = 0.3, m = ~ 1 + 0.5 * i / n),
      observe = list(K = ~ mean(p^2), M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2)),
      name = "mb-langevin-pairs"),
    # Hamiltonian pair forces (verlet, yoshida4 with pairs)
    hpairs = sde_model(
      drift = list(q = ~ p, p = ~ 1 / n * pairs(sin(q[j] - q))),
      observe = list(K = ~ mean(p^2) / 2), name = "mb-hamiltonian-pairs"),
    # a noise matrix (two Wiener processes, correlated, state-dependent:
    # the general Ito-Stratonovich correction) with a mean field
    mnoise = sde_model(
      drift = list(q = ~ -q + c * mean(q), p = ~ -p),
      noise = matrix(list(~ s, 0, ~ rho * s * (1 + 0.1 * q^2), ~ s), 2, 2, byrow = TRUE,
                     dimnames = list(c("q", "p"), c("a", "b"))),
      params = c(c = 0.5, s = 0.7, rho = 0.4),
      observe = list(qp = ~ mean(q * p)), name = "mb-noise-matrix"),
    # a square lattice (a torus, n = c(L1, L2)); an observable that reads a
    # neighbour
    square = sde_model(
      drift = list(u = ~ -sin(u) + k * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u) +
                     0.01 * i - 0.02 * j),
      noise = list(u = ~ sqrt(2 * T)), params = c(k = 0.5, T = 0.3), lattice = "square",
      observe = list(E = ~ mean((u[i, j + 1] - u)^2 + (u[i + 1, j] - u)^2), c = ~ mean(j * cos(u))),
      name = "mb-square")
  )
}

mb_test_init <- function(m) {
  if (startsWith(m$name, "chunks-")) return(mb_chunk_init(m))
  switch(m$name,
         "mb-kuramoto" = list(theta = ~ runif(0, 2 * pi)),
         "mb-pairs" = list(theta = ~ runif(-pi, pi)),
         "mb-chain" = list(phi = ~ rnorm(0, 0.3), v = ~ rnorm(0, 1)),
         "mb-square" = list(u = ~ rnorm(0, 0.5)),
         list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1)))
}

mb_methods <- function(m) names(which(statphysgpu:::sde_mb_methods(m) == ""))

test_that("the GPU plan: a system a block up to n = 2048 (shared memory permitting), else many blocks", {
  ms <- mb_test_models()
  plan <- statphysgpu:::sde_mb_gpu_plan
  expect_identical(plan(ms$kur, 2048, "double", "srk2")$code %% 2L, 1L)
  expect_identical(plan(ms$kur, 2049, "single", "srk2")$code %% 2L, 0L)
  expect_identical(plan(ms$kur, 1, "single", "euler")$code, 1L)
  # the ring's observable reads a neighbour; it is a lattice
  expect_identical(plan(ms$ring, 100, "single", "baoab")$code, 7L)
  expect_identical(plan(ms$ring, 1e5, "single", "baoab")$code, 6L)
  # pairs with element parameters: states and parameters in shared memory
  expect_identical(plan(ms$lpairs, 2048, "double", "baoab")$code, 0L)
  expect_identical(plan(ms$lpairs, 1024, "double", "baoab")$code, 1L)
  expect_true("SP_MB_METHOD=3" %in% plan(ms$hmf, 10, "single", "yoshida4")$defines)
})

test_that("one system in slices: the elements a slice reads from the others (none, a lattice's halo, all)", {
  ms <- mb_test_models()
  halo <- statphysgpu:::sde_mb_slice_halo
  expect_equal(halo(ms$kur, 5000), list(halo = 0, wrap = 0))
  expect_equal(halo(ms$kp, 5000), list(halo = 5000, wrap = 0))
  expect_equal(halo(ms$chain, 5000), list(halo = 1, wrap = 0))
  expect_equal(halo(ms$ring, 5000), list(halo = 1, wrap = 1))
  # a torus of 30 x 40: the rows within reach, (1 + 1) 40 - 1 elements each side
  expect_equal(halo(ms$square, 1200, c(30, 40)), list(halo = 79, wrap = 1))
})

test_that("one system on several devices: in slices in mode B, cut-off pairs included (the plan)", {
  ms <- mb_test_models()
  plan <- statphysgpu:::sde_mb_gpu_plan
  slices <- statphysgpu:::sde_mb_gpu_slices
  # the Lennard-Jones fluid with cut-off pairs and pair observables, mode B
  # (cell lists): one system on two or three devices is cut into slices
  lj <- plan(space_model("lj3"), 4913, "double", "baoab", bins = 40)
  expect_identical(lj$code %% 2L, 0L)
  expect_identical(slices(lj, 1, 2L, "records"), 2L)
  expect_identical(slices(lj, 1, 3L, "rdf"), 3L)
  expect_identical(slices(lj, 1, 2L, "passage"), 2L)
  expect_identical(slices(plan(space_model("ideal2"), 5000, "single", "euler", bins = 40), 1, 2L,
                          "rdf"), 2L)
  # else the devices share the systems: several systems, one device, kept
  # states, mode A (a system a block)
  expect_identical(slices(lj, 2, 2L, "records"), 1L)
  expect_identical(slices(lj, 1, 1L, "records"), 1L)
  expect_identical(slices(lj, 1, 2L, "trajectories"), 1L)
  expect_identical(slices(plan(space_model("lj3"), 125, "double", "baoab"), 1, 2L, "records"), 1L)
  # as before: a mean field, all pairs, a lattice
  for (m in ms[c("kur", "kp", "chain")]) expect_identical(slices(plan(m, 5000, "single", "srk2"), 1, 2L,
                                                                 "records"), 2L)
})

test_that("pair terms: sin and cos of x[j] -+ x expanded, the elements' sines made once (mb_pair_pre)", {
  ms <- mb_test_models()
  code <- strsplit(ms$kp$code, "\n")[[1]]
  expect_true(any(grepl("u\\[0\\] = SP_SIN\\(x\\[0\\]\\);", code)))
  pair <- grep("acc\\[0\\] \\+=", code, value = TRUE)
  expect_false(grepl("SP_SIN|SP_COS", pair)) # no sine left per pair
  # x^-1.5 by a reciprocal square root (the hardware's in single on the GPU), not pow
  ring <- sde_model(drift = list(q = ~ p, p = ~ -1 / n * pairs(sin(q - q[j]) * (1.01 - cos(q - q[j]))^(-1.5))),
                    name = "mb-ring-pairs")
  pair <- grep("acc\\[0\\] \\+=", strsplit(ring$code, "\n")[[1]], value = TRUE)
  expect_match(pair, "SP_RSQRT")
  expect_false(grepl("SP_POW|SP_SIN|SP_COS|SP_SQRT", pair))
  # a term that does not separate stays as it is
  g <- sde_model(drift = list(x = ~ pairs(exp(-(x[j] - x)^2))), name = "mb-gauss")
  expect_match(grep("acc\\[0\\] \\+=", strsplit(g$code, "\n")[[1]], value = TRUE), "SP_EXP")
})

test_that("CPU: the pair sums of sin(x[j] - x) are the mean field's (the self term is zero)", {
  skip_if_no_cc()
  pairs_m <- sde_model(drift = list(theta = ~ K / n * pairs(sin(theta[j] - theta))),
                       noise = list(theta = ~ sqrt(2 * D)), params = c(K = 3, D = 0.5),
                       observe = list(c = ~ mean(cos(theta))), name = "mb-pairs-mf")
  mf <- sde_model(drift = list(theta = ~ K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
                  noise = list(theta = ~ sqrt(2 * D)), params = c(K = 3, D = 0.5),
                  observe = list(c = ~ mean(cos(theta))), name = "mb-mf-pairs")
  run <- function(m, method) {
    sde_run(m, 2, n = 60, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01, t_max = 0.3,
            method = method, output = "records", record_every = 10, seed = 9, backend = "cpu",
            precision = "double", progress = FALSE)
  }
  for (method in c("euler", "srk2")) {
    a <- run(pairs_m, method)
    b <- run(mf, method)
    expect_lt(max(abs(attr(a, "final") - attr(b, "final"))), 1e-9)
    expect_lt(max(abs(a$c - b$c)), 1e-9)
  }
})

test_that("the many-body kernels compile with NVRTC for sm_90 in every method, precision and mode (no GPU needed)", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  if (isTRUE(.Call(statphysgpu:::C_sp_r_gpu_status)$available)) {
    skip("a GPU is here: the tests below compile these kernels and run them")
  }
  local_kernel_cache()
  # every model and method in both modes, mode A in single and mode B in
  # double precision (all four pairings would double this test's time in CI)
  for (m in mb_test_models()) for (method in mb_methods(m)) {
    for (n in c(100, 5000)) {
      prec <- if (n == 100) "single" else "double"
      # the square lattice: euler in mode A, srk2 in mode B (CI's time)
      if (m$name == "mb-square" && (method == "euler") != (n == 100)) next
      plan <- statphysgpu:::sde_mb_gpu_plan(m, n, prec, method)
      img <- statphysgpu:::sde_nvrtc_image(m, "sm_90", prec, method, source = "mb.cu",
                                           defines = plan$defines)
      expect_true(is.raw(img) && length(img) > 1000, label = paste(m$name, method, prec, n))
    }
  }
})

test_that("the slices' exchange kernels of cut-off pairs compile with NVRTC (no GPU needed)", {
  skip_if_no_nvrtc()
  skip_if_second_build()
  if (isTRUE(.Call(statphysgpu:::C_sp_r_gpu_status)$available)) {
    skip("a GPU is here: the tests of cut-off systems in slices compile these kernels and run them")
  }
  local_kernel_cache()
  # mode B with cell lists: srk2 (the first stage's drift and noise
  # exchanged too) in double, baoab in single
  lj <- space_model("lj3")
  for (cs in list(c("srk2", "double"), c("baoab", "single"))) {
    plan <- statphysgpu:::sde_mb_gpu_plan(lj, 4913, cs[2], cs[1])
    img <- statphysgpu:::sde_nvrtc_image(lj, "sm_90", cs[2], cs[1], source = "mb.cu",
                                         defines = plan$defines)
    for (k in c("sp_mb_slice_pack_kernel", "sp_mb_slice_unpack_kernel"))
      expect_true(length(grepRaw(k, img, fixed = TRUE)) > 0, label = paste(k, cs[1], cs[2]))
  }
})

# ---- on a GPU ------------------------------------------------------------------------

mb_run <- function(m, backend, n, method, replicas = 3, precision = "double", output = "records",
                   dt = 0.01, t_max = 0.3, record_every = 10, first = 1, seed = 7, ...) {
  sde_run(m, replicas, n = n, init = mb_test_init(m), dt = dt, t_max = t_max, method = method,
          output = output, record_every = record_every, seed = seed, backend = backend,
          precision = precision, first_replica = first, progress = FALSE, ...)
}

# |a - b| <= tol max(1, |b|), NaN where the other is
expect_mb_close <- function(a, b, tol = 1e-9, label = "") {
  a <- as.double(a)
  b <- as.double(b)
  expect_identical(length(a), length(b), label = label)
  expect_identical(is.na(a), is.na(b), label = label)
  ok <- !is.na(b)
  err <- max(c(0, abs(a[ok] - b[ok]) / pmax(1, abs(b[ok]))))
  expect_lt(err, tol, label = paste(label, "relative difference"))
}

# The cases: each model and method in mode A (small n) and mode B (n past
# 2048; pairs at sizes that keep the CPU quick).
mb_cases <- function() {
  ms <- mb_test_models()
  sizes <- list(kur = c(50, 3001), kp = c(37, 2100), chain = c(30, 2100), hmf = c(64, 4000),
                ring = c(33, 2051), lpairs = c(40, 2060), hpairs = c(45, 2049),
                square = list(c(6, 7), c(45, 47)))
  out <- list()
  for (nm in names(ms)) for (method in mb_methods(ms[[nm]])) for (n in sizes[[nm]]) {
    out[[length(out) + 1]] <- list(m = ms[[nm]], method = method, n = n)
  }
  out
}

test_that("GPU and CPU agree system by system in double precision (records, final states), both modes", {
  skip_if_no_gpu()
  for (cs in mb_cases()) {
    lab <- sprintf("%s %s n = %s", cs$m$name, cs$method, paste(cs$n, collapse = " x "))
    params <- if (cs$m$name == "mb-kuramoto") list(K = c(1, 4))
    short <- prod(cs$n) > 2048 && length(cs$m$mb$pairs) > 0 # pairs on the CPU: O(n^2) a stage
    args <- list(m = cs$m, n = cs$n, method = cs$method, t_max = if (short) 0.1 else 0.3,
                 params = params)
    cpu <- do.call(mb_run, c(args, backend = "cpu"))
    gpu <- do.call(mb_run, c(args, backend = "gpu"))
    expect_identical(attr(gpu, "backend"), "gpu", label = lab)
    expect_identical(nrow(gpu), nrow(cpu), label = lab)
    for (o in names(cs$m$observe)) expect_mb_close(gpu[[o]], cpu[[o]], label = paste(lab, o))
    expect_mb_close(attr(gpu, "final"), attr(cpu, "final"), label = paste(lab, "final"))
    expect_identical(attr(gpu, "k_end"), attr(cpu, "k_end"), label = lab)
  }
})

test_that("GPU and CPU agree on kept states (trajectories) and on passage times", {
  skip_if_no_gpu()
  ms <- mb_test_models()
  for (n in c(30, 2100)) {
    cpu <- mb_run(ms$chain, "cpu", n, "srk2", output = "trajectories", keep = 2)
    gpu <- mb_run(ms$chain, "gpu", n, "srk2", output = "trajectories", keep = 2)
    expect_identical(gpu[c("replica", "time", "element")], cpu[c("replica", "time", "element")])
    expect_mb_close(gpu$phi, cpu$phi, label = paste("trajectories phi", n))
    expect_mb_close(gpu$v, cpu$v, label = paste("trajectories v", n))
  }
  # passage: synchronised phases lose their order; the event after every step
  kst <- sde_model(
    drift = list(theta = ~ K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
    noise = list(theta = ~ sqrt(2 * D)), params = c(K = 0.5, D = 1),
    stop = ~ mean(cos(theta))^2 + mean(sin(theta))^2 < 0.25, name = "mb-decoherence")
  for (n in c(64, 3000)) for (method in c("euler", "srk2")) {
    run <- function(backend) {
      sde_run(kst, 6, n = n, init = list(theta = ~ rnorm(0, 0.1)), dt = 0.01, t_max = 2,
              method = method, output = "passage", seed = 3, backend = backend,
              precision = "double", progress = FALSE)
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    expect_identical(gpu$escaped, cpu$escaped, label = paste("passage", n, method))
    expect_identical(gpu$value, cpu$value, label = paste("passage", n, method))
    expect_mb_close(attr(gpu, "final"), attr(cpu, "final"), label = paste("passage final", n))
  }
})

test_that("GPU results do not depend on the chunks (first_replica) or the systems a launch holds", {
  skip_if_no_gpu()
  ms <- mb_test_models()
  for (cs in list(list(m = ms$kur, n = 50, method = "srk2"), list(m = ms$kur, n = 3001, method = "srk2"),
                  list(m = ms$ring, n = 2051, method = "baoab"), list(m = ms$hpairs, n = 2049, method = "yoshida4"),
                  # all pairs in 20 source chunks (issue 50), a pair observable
                  list(m = mb_chunk_models()$grav, n = 5000, method = "yoshida4"))) {
    whole <- mb_run(cs$m, "gpu", cs$n, cs$method, replicas = 6, precision = "single")
    a <- mb_run(cs$m, "gpu", cs$n, cs$method, replicas = 2, precision = "single")
    b <- mb_run(cs$m, "gpu", cs$n, cs$method, replicas = 4, first = 3, precision = "single")
    key <- function(x) as.data.frame(x)[, c("replica", "time", names(cs$m$observe))]
    expect_identical(rbind(key(a), key(b)), key(whole), label = paste(cs$m$name, cs$n))
  }
})

test_that("single precision on the GPU: the law of the double-precision results", {
  skip_if_no_gpu()
  ms <- mb_test_models()
  for (n in c(512, 4096)) {
    run <- function(prec) {
      mb_run(ms$kur, "gpu", n, "srk2", replicas = 64, precision = prec, t_max = 2,
             record_every = 200, seed = 21)
    }
    s <- run("single")
    d <- run("double")
    s <- s$r[s$time == 2]
    d <- d$r[d$time == 2]
    # the same streams: paths stay close over this short run, and the means
    # agree within 4 standard errors of their difference
    expect_lt(max(abs(s - d)), 0.02)
    expect_lt(abs(mean(s) - mean(d)) / (sd(s - d) / sqrt(64) + 1e-12), 4)
  }
})

# ---- pairs in source chunks (issue 50) -----------------------------------------------

# Mode B's passes over all pairs cut the sources into chunks where a system
# has few target blocks (n = 2100: 9 chunks of a tile, the last tile
# partial; n = 5000: 20 chunks of a tile): each chunk's tiles in double, the
# chunks in order.  The CPU's numbers in double (the tolerance of the cases
# above: rounding only), with the chunks and with one chunk (the tuning
# option mb_pair_chunks = FALSE: the passes as before chunks); single
# precision as double.
test_that("pairs in source chunks: GPU = CPU in double, with and without chunks; single as double", {
  skip_if_no_gpu()
  ms <- mb_chunk_models()
  for (cs in list(list(m = ms$grav, method = "yoshida4"), list(m = ms$od, method = "srk2"),
                  list(m = ms$od, method = "euler"), list(m = ms$lang, method = "baoab"))) {
    for (n in c(2100, 5000)) {
      lab <- sprintf("%s %s n = %d", cs$m$name, cs$method, n)
      run <- function(backend, precision = "double", chunks = TRUE) {
        withr::local_options(statphysgpu.mb_pair_chunks = chunks)
        mb_run(cs$m, backend, n, cs$method, replicas = 2, precision = precision, t_max = 0.05,
               record_every = 1)
      }
      cpu <- run("cpu")
      gpu <- run("gpu")
      one <- run("gpu", chunks = FALSE)
      for (x in list(gpu, one)) {
        for (o in names(cs$m$observe)) expect_mb_close(x[[o]], cpu[[o]], label = paste(lab, o))
        expect_mb_close(attr(x, "final"), attr(cpu, "final"), label = paste(lab, "final"))
      }
      # single precision: pair terms within 2^-23 relative, summed by tiles
      # in double; over 5 steps the states and observables stay within
      # 1e-4 (relative, absolute below 1) of double's
      sgl <- run("gpu", "single")
      for (o in names(cs$m$observe)) expect_mb_close(sgl[[o]], gpu[[o]], tol = 1e-4, label = paste(lab, o, "single"))
      expect_mb_close(attr(sgl, "final"), attr(gpu, "final"), tol = 1e-4, label = paste(lab, "single final"))
    }
  }
})

test_that("a continued GPU run goes on as one run", {
  skip_if_no_gpu()
  ms <- mb_test_models()
  for (n in c(50, 3001)) {
    one <- mb_run(ms$kur, "gpu", n, "srk2", t_max = 0.4)
    half <- mb_run(ms$kur, "gpu", n, "srk2", t_max = 0.2)
    two <- sde_run(ms$kur, 3, n = n, init = half, dt = 0.01, t_max = 0.2, method = "srk2",
                   output = "records", record_every = 10, backend = "gpu", precision = "double",
                   progress = FALSE)
    expect_mb_close(attr(two, "final"), attr(one, "final"), tol = 1e-12, label = paste("continued", n))
  }
})

test_that("a non-finite state on the GPU fails as on the CPU", {
  skip_if_no_gpu()
  bad <- sde_model(drift = list(x = ~ x^3 + mean(x)), observe = list(m = ~ mean(x)), name = "mb-blowup")
  for (n in c(40, 3000)) {
    run <- function(backend) {
      tryCatch(sde_run(bad, 1, n = n, init = list(x = ~ 2 + i / n), dt = 0.5, t_max = 50,
                       method = "euler", seed = 1, backend = backend, precision = "double",
                       progress = FALSE),
               error = function(e) conditionMessage(e))
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    expect_match(gpu, "non-finite")
    expect_identical(gpu, cpu)
  }
})

test_that("an interrupt on the GPU returns the records reached, flagged; nothing leaks", {
  skip_if_no_gpu()
  skip_on_os("windows")
  ms <- mb_test_models()
  for (n in c(1024, 2^20)) {
    long <- function(t_max) {
      sde_run(ms$kur, if (n > 2048) 2 else 2000, n = n, init = list(theta = ~ runif(0, 2 * pi)),
              dt = 0.01, t_max = t_max, method = "srk2", output = "records", record_every = 1000,
              seed = 1, backend = "gpu", precision = "single", progress = FALSE)
    }
    long(0.02) # compiled and loaded before the clock starts
    live <- gpu_live_allocations()
    job <- interrupt_after(1.5)
    expect_warning(x <- long(1e4), "interrupted", class = "statphysgpu_interrupted")
    parallel::mccollect(job)
    expect_gt(nrow(x), 0)
    expect_lt(max(x$time), 1e4)
    expect_true(all(is.finite(x$r)))
    expect_true(all(is.finite(attr(x, "final"))))
    expect_identical(gpu_live_allocations(), live)
  }
})

# ---- one system in slices (several devices, or streams of one) ----------------------

# One system (replicas = 1, one condition) of a mean-field model on k slices:
# every slice's blocks write their partial sums, the slices share them, and
# each adds them up in block order (sp_mb_combine_kernel) -- one device's
# numbers bit for bit, so the comparisons are identical().
mb_slice_models <- function() {
  ms <- mb_test_models()
  list(
    hmf = list(m = ms$hmf, method = "yoshida4", init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1))),
    kur = list(m = ms$kur, method = "srk2", init = list(theta = ~ runif(0, 2 * pi))),
    kur_e = list(m = ms$kur, method = "euler", init = list(theta = ~ runif(0, 2 * pi))),
    mnoise = list(m = ms$mnoise, method = "euler", init = list(q = ~ rnorm(0, 1), p = 0)),
    # Langevin HMF (baoab with a mean field), element parameters drawn
    lhmf = list(m = sde_model(
      drift = list(q = ~ p, p = ~ -g * p + w * (mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q))),
      noise = list(p = ~ sqrt(2 * g * T)), params = list(g = 0.5, T = 0.4, w = ~ runif(0.5, 1.5)),
      observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2), K = ~ mean(p^2) / 2),
      name = "mb-langevin-hmf"), method = "baoab", init = list(q = ~ runif(-pi, pi), p = 0)),
    # a passage: the system stops when its order parameter passes 0.3
    stop = list(m = sde_model(
      drift = list(theta = ~ K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = c(K = 4, D = 0.5),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
      stop = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2) > 0.3, name = "mb-sync-passage"),
      method = "srk2", init = list(theta = ~ runif(0, 2 * pi)), output = "passage")
  )
}

mb_slice_run <- function(cs, n, precision, devices = NULL, slices = 1, t_max = 0.4) {
  withr::local_options(statphysgpu.mb_slices = slices)
  sde_run(cs$m, 1, n = n, init = cs$init, dt = 0.01, t_max = t_max, method = cs$method,
          output = cs$output %||% "records", record_every = 10, seed = 11, backend = "gpu",
          devices = devices, precision = precision, progress = FALSE)
}

expect_mb_same_run <- function(x, one, label) {
  expect_identical(as.data.frame(x), as.data.frame(one), label = label)
  expect_identical(attr(x, "final"), attr(one, "final"), label = paste(label, "final"))
  expect_identical(attr(x, "k_end"), attr(one, "k_end"), label = paste(label, "k_end"))
}

test_that("one system in slices on one GPU's streams equals one slice, bit for bit", {
  skip_if_no_gpu()
  for (nm in names(mb_slice_models())) {
    cs <- mb_slice_models()[[nm]]
    for (prec in c("double", "single")) {
      n <- if (prec == "double") 40000 else 300001 # mode B: past 2048 elements
      tm <- if (nm == "stop") 20 else 0.4
      one <- mb_slice_run(cs, n, prec, t_max = tm)
      if (nm == "stop") expect_true(one$escaped, label = "the passage is reached")
      for (k in c(2, 3)) {
        x <- mb_slice_run(cs, n, prec, slices = k, t_max = tm)
        expect_identical(attr(x, "devices"), rep(attr(one, "devices"), k))
        expect_mb_same_run(x, one, sprintf("%s %s %d slices", nm, prec, k))
      }
    }
  }
  # the CPU's numbers (double): the slices' run is the system's run
  cs <- mb_slice_models()$hmf
  gpu <- mb_slice_run(cs, 40000, "double", slices = 2)
  withr::local_options(statphysgpu.mb_slices = 1)
  cpu <- sde_run(cs$m, 1, n = 40000, init = cs$init, dt = 0.01, t_max = 0.4, method = cs$method,
                 output = "records", record_every = 10, seed = 11, backend = "cpu",
                 precision = "double", progress = FALSE)
  expect_mb_close(attr(gpu, "final"), attr(cpu, "final"), label = "slices against the CPU")
})

# Systems whose elements read other elements (pairs: every slice's pair sums
# run over all the sources; lattices: the neighbours at the slices' edges,
# around the ring or torus): after every pass the slices copy each other the
# elements they read.  Sizes where the slices' edges matter: n not a multiple
# of the block (256 elements a pair block, 1024 a group block), a square
# lattice's rows cut by the slices' edges.
mb_slice_share_models <- function() {
  ms <- mb_test_models()
  chain_init <- list(phi = ~ rnorm(0, 0.3), v = ~ rnorm(0, 1))
  qp <- list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1))
  list(
    kp = list(m = ms$kp, method = "srk2", init = list(theta = ~ runif(-pi, pi))),
    kp_e = list(m = ms$kp, method = "euler", init = list(theta = ~ runif(-pi, pi))),
    lpairs = list(m = ms$lpairs, method = "baoab", init = qp),
    hpairs = list(m = ms$hpairs, method = "yoshida4", init = qp),
    # 2D gravity-like pairs in source chunks (issue 50: 41 tiles, 21 chunks
    # of 2, the last one a partial tile), a pair observable
    grav = list(m = mb_chunk_models()$grav, method = "yoshida4",
                init = mb_chunk_init(mb_chunk_models()$grav)),
    # a passage with pairs: the order parameter passes 0.3
    pstop = list(m = sde_model(
      drift = list(theta = ~ K / n * pairs(sin(theta[j] - theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = c(K = 4, D = 0.5),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
      stop = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2) > 0.3, name = "mb-pairs-passage"),
      method = "srk2", init = list(theta = ~ runif(0, 2 * pi)), output = "passage"),
    chain = list(m = ms$chain, method = "srk2", init = chain_init),
    chain_e = list(m = ms$chain, method = "euler", init = chain_init),
    ring = list(m = ms$ring, method = "baoab", init = qp),
    # a Hamiltonian ring (yoshida4: three passes a step, the halo after each)
    hring = list(m = sde_model(
      drift = list(q = ~ p, p = ~ -sin(q) + k * (q[i + 1] - 2 * q + q[i - 1])), params = c(k = 1),
      lattice = "ring", observe = list(E = ~ mean(p^2)), name = "mb-hamiltonian-ring"),
      method = "yoshida4", init = qp),
    # a passage on a chain: its kinetic energy falls below 0.7 (from 1)
    cstop = list(m = sde_model(
      drift = ms$chain$drift, noise = ms$chain$noise, params = ms$chain$params, lattice = "chain",
      observe = list(v2 = ~ mean(v^2)), stop = ~ mean(v^2) < 0.7, name = "mb-chain-passage"),
      method = "srk2", init = chain_init, output = "passage"),
    square = list(m = ms$square, method = "srk2", init = list(u = ~ rnorm(0, 0.5)))
  )
}

# the sizes: pairs 10001 elements (10 group blocks, 40 pair blocks); chains
# and rings as the mean field's; the torus 301 x 333 (slices' edges at 1024
# k elements, inside rows)
mb_slice_share_n <- function(nm, prec) {
  if (nm %in% c("kp", "kp_e", "lpairs", "hpairs", "pstop", "grav")) return(10001)
  if (nm == "square") return(c(301, 333))
  if (prec == "double") 40000 else 300001
}

test_that("a pair or lattice system in slices on one GPU's streams equals one slice, bit for bit", {
  skip_if_no_gpu()
  for (nm in names(mb_slice_share_models())) {
    cs <- mb_slice_share_models()[[nm]]
    for (prec in c("double", "single")) {
      n <- mb_slice_share_n(nm, prec)
      tm <- if (nm %in% c("pstop", "cstop")) 20 else 0.4
      one <- mb_slice_run(cs, n, prec, t_max = tm)
      if (nm %in% c("pstop", "cstop")) expect_true(one$escaped, label = "the passage is reached")
      for (k in c(2, 3)) {
        x <- mb_slice_run(cs, n, prec, slices = k, t_max = tm)
        expect_identical(attr(x, "devices"), rep(attr(one, "devices"), k))
        expect_mb_same_run(x, one, sprintf("%s %s %d slices", nm, prec, k))
      }
    }
  }
  # the CPU's numbers (double): the slices' run is the system's run (pairs
  # over 5 steps: the CPU's pair sums are slow)
  for (nm in c("kp", "ring")) {
    cs <- mb_slice_share_models()[[nm]]
    n <- mb_slice_share_n(nm, "double")
    tm <- if (nm == "kp") 0.05 else 0.4
    gpu <- mb_slice_run(cs, n, "double", slices = 2, t_max = tm)
    withr::local_options(statphysgpu.mb_slices = 1)
    cpu <- sde_run(cs$m, 1, n = n, init = cs$init, dt = 0.01, t_max = tm, method = cs$method,
                   output = "records", record_every = 10, seed = 11, backend = "cpu",
                   precision = "double", progress = FALSE)
    expect_mb_close(attr(gpu, "final"), attr(cpu, "final"), label = paste(nm, "slices against the CPU"))
  }
})

test_that("a non-finite state in a later slice fails as one device does", {
  skip_if_no_gpu()
  bad <- sde_model(drift = list(x = ~ x^3 * (i > 0.8 * n) + mean(x)), observe = list(m = ~ mean(x)),
                   name = "mb-blowup-late")
  run <- function(slices) {
    withr::local_options(statphysgpu.mb_slices = slices)
    tryCatch(sde_run(bad, 1, n = 20000, init = list(x = ~ 2 + i / n), dt = 0.5, t_max = 50,
                     method = "euler", seed = 1, backend = "gpu", precision = "double",
                     progress = FALSE),
             error = function(e) conditionMessage(e))
  }
  one <- run(1)
  expect_match(one, "non-finite")
  expect_identical(run(2), one)
  expect_identical(run(3), one)
})

test_that("one system on every GPU (devices = \"all\") equals one GPU, bit for bit", {
  skip_if_no_gpu()
  skip_if(nrow(gpu_devices()) < 2, "one GPU")
  for (nm in c("hmf", "kur", "stop")) {
    cs <- mb_slice_models()[[nm]]
    tm <- if (nm == "stop") 20 else 0.4
    one <- mb_slice_run(cs, 300001, "single", t_max = tm)
    all <- mb_slice_run(cs, 300001, "single", devices = "all", t_max = tm)
    expect_identical(length(attr(all, "devices")), nrow(gpu_devices()))
    expect_mb_same_run(all, one, paste(nm, "all devices"))
  }
  # pairs (all the sources from every device) and lattices (the halos, peer
  # to peer)
  for (nm in c("kp", "lpairs", "pstop", "grav", "chain", "ring", "cstop", "square")) {
    cs <- mb_slice_share_models()[[nm]]
    n <- mb_slice_share_n(nm, "single")
    tm <- if (nm %in% c("pstop", "cstop")) 20 else 0.4
    one <- mb_slice_run(cs, n, "single", t_max = tm)
    all <- mb_slice_run(cs, n, "single", devices = "all", t_max = tm)
    expect_identical(length(attr(all, "devices")), nrow(gpu_devices()))
    expect_mb_same_run(all, one, paste(nm, "all devices"))
  }
})

# ---- one system with cut-off pairs in slices (issue 49, item 7) ---------------------

# Particles in a box, one system in slices: with pairs(cutoff = ) every slice
# rebuilds the whole cell list and moves its range of the cells' order,
# then the slices exchange their particles' new states (packed in the
# cells' order); a record's pair observables and g(r) read the whole state
# (after a gather where the dynamics have no pairs).  n = 4913 = 17^3 (20
# pair blocks, the slices' edges inside cells' runs), mode B.
mb_cut_models <- function() {
  lj <- space_model("lj3")
  # the Hamiltonian Lennard-Jones fluid (yoshida4: three passes a step)
  ljh <- sde_model(
    drift = list(x = ~ vx, y = ~ vy, z = ~ vz, vx = ~ pairs(f * dx, cutoff = rc),
                 vy = ~ pairs(f * dy, cutoff = rc), vz = ~ pairs(f * dz, cutoff = rc)),
    params = c(rc = 2.5), define = lj$source$define[c("ir2", "ir6", "f")],
    observe = list(K = ~ mean(vx^2 + vy^2 + vz^2) / 2), positions = c("x", "y", "z"),
    name = "lj3-hamiltonian")
  # an ideal gas in the plane with a cut-off pair observable: no pairs in
  # the dynamics (each slice holds its own particles between records)
  gas <- sde_model(
    drift = list(x = ~ 0, y = ~ 0), noise = list(x = ~ sqrt(2 * D), y = ~ sqrt(2 * D)),
    params = c(D = 1), observe = list(N = ~ sum(pairs(1, cutoff = 1.5)) / 2, mx = ~ mean(x)),
    positions = c("x", "y"), name = "ideal2-pairs")
  list(lj = list(m = lj, method = "baoab"), lj_srk2 = list(m = lj, method = "srk2"),
       lj_euler = list(m = lj, method = "euler"), ljh = list(m = ljh, method = "yoshida4"),
       lj_rdf = list(m = lj, method = "baoab", output = "rdf"),
       gas_rdf = list(m = gas, method = "euler", output = "rdf"))
}

mb_cut_run <- function(cs, precision, slices = 1, devices = NULL, backend = "gpu", n = 4913) {
  withr::local_options(statphysgpu.mb_slices = slices)
  output <- cs$output %||% "records"
  if (length(cs$m$positions) == 3) {
    L <- (n / 0.8)^(1 / 3)
    init <- space_lattice(n, L, jitter = 0.1)
    if (length(cs$m$states) == 6) init <- c(init, list(vx = 0, vy = 0, vz = 0))
  } else {
    L <- 40 # about 3 particles within 1.5 of each
    init <- list(x = ~ runif(0, 40), y = ~ runif(0, 40)) # drawn by the engine
  }
  sde_run(cs$m, 1, n = n, init = init, dt = 0.002, t_max = 0.02, method = cs$method, box = L,
          output = output, record_every = 5, bins = if (output == "rdf") 40, seed = 13,
          backend = backend, devices = devices, precision = precision, progress = FALSE)
}

expect_mb_same_cut <- function(x, one, label) {
  expect_mb_same_run(x, one, label)
  expect_identical(attr(x, "records"), attr(one, "records"), label = paste(label, "records"))
}

test_that("a cut-off system (cell lists) in slices on one GPU's streams equals one slice, bit for bit", {
  skip_if_no_gpu()
  for (nm in names(mb_cut_models())) {
    cs <- mb_cut_models()[[nm]]
    for (prec in c("double", "single")) {
      one <- mb_cut_run(cs, prec)
      for (k in c(2, 3)) {
        x <- mb_cut_run(cs, prec, slices = k)
        expect_identical(attr(x, "devices"), rep(attr(one, "devices"), k))
        expect_mb_same_cut(x, one, sprintf("%s %s %d slices", nm, prec, k))
      }
    }
  }
  # the CPU's numbers (double): the slices' run is the system's run
  cs <- mb_cut_models()$lj
  gpu <- mb_cut_run(cs, "double", slices = 2)
  cpu <- mb_cut_run(cs, "double", backend = "cpu")
  expect_mb_close(attr(gpu, "final"), attr(cpu, "final"), label = "lj slices against the CPU")
  for (o in c("U", "W", "K")) expect_mb_close(gpu[[o]], cpu[[o]], label = paste("lj slices", o))
})

test_that("a cut-off system on two GPUs (devices = c(0, 1), \"all\") equals one GPU, bit for bit", {
  skip_if_no_gpu()
  skip_if(nrow(gpu_devices()) < 2, "one GPU")
  for (nm in names(mb_cut_models())) {
    cs <- mb_cut_models()[[nm]]
    for (prec in c("double", "single")) {
      one <- mb_cut_run(cs, prec)
      two <- mb_cut_run(cs, prec, devices = c(0, 1))
      expect_identical(length(attr(two, "devices")), 2L)
      expect_mb_same_cut(two, one, sprintf("%s %s two devices", nm, prec))
    }
  }
  cs <- mb_cut_models()$lj
  all <- mb_cut_run(cs, "single", devices = "all")
  expect_identical(length(attr(all, "devices")), nrow(gpu_devices()))
  expect_mb_same_cut(all, mb_cut_run(cs, "single"), "lj single all devices")
})

test_that("periodic states on the GPU: CPU = GPU in double (final angles modulo 2 pi), both modes; single as double", {
  skip_if_no_gpu()
  cases <- list(list(m = per_model("kur"), method = "srk2", init = list(theta = ~ runif(0, 2 * pi))),
                list(m = per_model("kur"), method = "euler", init = list(theta = ~ runif(0, 2 * pi))),
                list(m = per_model("hmf"), method = "yoshida4",
                     init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 1.5))))
  for (cs in cases) for (n in c(64, 3001)) {
    lab <- sprintf("%s %s n = %d", cs$m$name, cs$method, n)
    run <- function(backend, precision = "double") {
      sde_run(cs$m, 3, n = n, init = cs$init, dt = 0.02, t_max = 2, method = cs$method,
              output = "records", record_every = 20, seed = 13, backend = backend,
              precision = precision, progress = FALSE)
    }
    cpu <- run("cpu")
    gpu <- run("gpu")
    for (o in names(cs$m$observe)) expect_mb_close(gpu[[o]], cpu[[o]], label = paste(lab, o))
    fg <- attr(gpu, "final")
    expect_lt(max(ang_dist(fg, attr(cpu, "final"))), 1e-9, label = paste(lab, "final"))
    pk <- match(cs$m$periodic, cs$m$states)
    per <- array(fg, c(n, length(cs$m$states), 3))[, pk, ]
    expect_true(all(abs(per) <= pi * (1 + 1e-12)), label = paste(lab, "wrapped"))
    # single precision (the unreduced hardware sine of the wrapped angles):
    # over 100 steps the observables follow double's to single's rounding,
    # amplified by the dynamics (chaotic for HMF: 1e-3 at t = 2)
    sg <- run("gpu", "single")
    o1 <- names(cs$m$observe)[1]
    expect_lt(max(abs(sg[[o1]] - cpu[[o1]])), 1e-3, label = paste(lab, "single"))
  }
})
