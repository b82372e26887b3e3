# Pair physics of liquid 4He (paper 002; REFERENCES.md section 4): the Aziz
# HFD-B(HE) potential, McMillan's Jastrow factor in a periodic box, the tail
# correction, the CPU local energy (the reference of the GPU energy kernel)
# and the Pandharipande-Bethe / Jackson-Feenberg kinetic estimators.

hb2m <- 12.119296 # hbar^2 / m(4He), K A^2

# ---- independent pure-R versions ------------------------------------------------

# The textbook form of HFD-B(HE) (REFERENCES.md), no care for precision.
aziz_ref <- function(r) {
  eps <- 10.948; rm <- 2.963; A <- 1.8443101e5; al <- 10.43329537
  be <- -2.27965105; C6 <- 1.36745214; C8 <- 0.42123807; C10 <- 0.17473318
  D <- 1.4826
  x <- r / rm
  F <- ifelse(x < D, exp(-(D / x - 1)^2), 1)
  eps * (A * exp(-al * x + be * x^2) - F * (C6 / x^6 + C8 / x^8 + C10 / x^10))
}

# McMillan u and its derivatives, written out; symmetrised/truncated at L/2.
u0 <- function(r, b, k = 0) {
  switch(k + 1, -0.5 * (b / r)^5, 2.5 * b^5 / r^6, -15 * b^5 / r^7,
         105 * b^5 / r^8, -840 * b^5 / r^9)
}
u_ref <- function(r, b, L, form, k = 0) {
  v <- if (form == "symmetrized") {
    u0(r, b, k) + (-1)^k * u0(L - r, b, k) - (k == 0) * 2 * u0(L / 2, b)
  } else u0(r, b, k)
  ifelse(r <= L / 2, v, 0)
}

# The local energy by another route: all pairs at once, gradients and
# Laplacians per atom from pair matrices.
local_energy_ref <- function(x, L, b, form) {
  n <- nrow(x)
  d <- lapply(1:3, function(k) {
    m <- outer(x[, k], x[, k], "-")
    m - L * round(m / L)
  })
  r <- sqrt(d[[1]]^2 + d[[2]]^2 + d[[3]]^2)
  inc <- r < L / 2 & row(r) != col(r)
  rr <- ifelse(inc, r, 1)
  V <- ifelse(inc, aziz_ref(rr), 0)
  du <- ifelse(inc, u_ref(rr, b, L, form, 1), 0)
  d2u <- ifelse(inc, u_ref(rr, b, L, form, 2), 0)
  lap <- rowSums(d2u + 2 * du / rr)                # lap_i U
  g <- sapply(1:3, function(k) rowSums(du / rr * d[[k]])) # grad_i U
  g2 <- rowSums(g^2)
  list(potential = sum(V) / 2 / n,
       kinetic_pb = -hb2m / 2 * sum(lap + g2) / n,
       kinetic_jf = -hb2m / 4 * sum(lap) / n,
       kinetic_grad = hb2m / 2 * sum(g2) / n,
       lap = lap, g2 = g2)
}

# n atoms placed at random in a box of side L, no two closer than dmin
# (random sequential addition; keeps the test away from the huge local
# energies of overlapping atoms, which would only test rounding).
random_config <- function(n, L, dmin = 2.2) {
  x <- matrix(NA_real_, 0, 3)
  while (nrow(x) < n) {
    p <- stats::runif(3, 0, L)
    if (nrow(x)) {
      d <- sweep(x, 2, p)
      d <- d - L * round(d / L)
      if (min(rowSums(d^2)) < dmin^2) next
    }
    x <- rbind(x, p)
  }
  unname(x)
}

# ---- the potential ---------------------------------------------------------------

test_that("aziz_potential() reproduces the check values of HFD-B(HE)", {
  # REFERENCES.md gives V(2.5 A) to 5 decimals and the others to 6: each is
  # matched to half a unit of its last digit (20.47271 is 20.4727120)
  r <- c(2.5, 2.963, 3.5, 5.0)
  V <- aziz_potential(r)
  expect_lt(abs(V[1] - 20.47271), 5e-6)
  expect_lt(abs(V[2] - (-10.948002)), 5e-7)
  expect_lt(abs(V[3] - (-6.269836)), 5e-7)
  expect_lt(abs(V[4] - (-0.728647)), 5e-7)
  expect_equal(V, aziz_ref(r), tolerance = 1e-14)
  # the zero at 2.63692 A (to the digits given)
  r0 <- uniroot(aziz_potential, c(2.5, 2.8), tol = 1e-13)$root
  expect_equal(round(r0, 5), 2.63692)
  # the minimum -10.948 K at r_m = 2.963 A
  m <- optimize(aziz_potential, c(2.8, 3.2), tol = 1e-10)
  expect_lt(abs(m$minimum - 2.963), 1e-5)
  expect_equal(round(m$objective, 3), -10.948)
  # past r = D r_m there is no damping: pure dispersion + exponential
  r <- c(4.4, 6, 10, 30)
  expect_equal(aziz_potential(r), aziz_ref(r), tolerance = 1e-14)
})

test_that("aziz_potential() is vectorised, keeps the shape and is finite down to r -> 0", {
  r <- matrix(c(2.5, 3, 3.5, 4), 2, dimnames = list(c("a", "b"), NULL))
  V <- aziz_potential(r)
  expect_identical(dim(V), dim(r))
  expect_identical(dimnames(V), dimnames(r))
  expect_named(aziz_potential(c(p = 3, q = 4)), c("p", "q"))
  expect_equal(aziz_potential(3L), aziz_ref(3))
  # V(0) = eps A; the damped dispersion vanishes before its powers overflow
  eA <- 10.948 * 1.8443101e5
  tiny <- c(1e-300, 1e-30, 1e-6, 1e-3)
  x <- tiny / 2.963
  rep_only <- eA * exp(-10.43329537 * x - 2.27965105 * x^2)
  expect_equal(aziz_potential(tiny), rep_only, tolerance = 1e-14)
  expect_equal(aziz_potential(1e-300), eA)
  # in single precision 1/x^10 overflows below 4e-4 A: still finite
  sgl <- .Call(statphysgpu:::C_sp_r_he4_aziz, tiny, TRUE)
  expect_true(all(is.finite(sgl)))
  expect_equal(sgl, rep_only, tolerance = 1e-6)
})

test_that("the single-precision potential of he4.h keeps its relative accuracy", {
  # distances exactly representable in float (k / 256 A), so that only the
  # evaluation is compared; error relative to the size of the two terms
  # eps (A e^... + F disp) (near the zero of V they cancel; that loss is
  # the potential's, not the code's)
  r <- seq(256, 16 * 256) / 256
  Vd <- aziz_potential(r)
  Vf <- .Call(statphysgpu:::C_sp_r_he4_aziz, r, TRUE)
  x <- r / 2.963
  rep_term <- 10.948 * 1.8443101e5 * exp(-10.43329537 * x - 2.27965105 * x^2)
  att_term <- rep_term - Vd
  scale <- abs(rep_term) + abs(att_term)
  err <- abs(Vf - Vd) / scale
  # measured: 9.3e-7 = 16 units of 2^-24, at 2-2.5 A, where the exponent
  # of the repulsion is about -8 (its rounding is amplified by that much);
  # 3.1e-6 relative to V more than 0.1 A from its zero
  expect_lt(max(err), 2e-6)
  # and relative to V itself away from the zero
  away <- abs(r - 2.63692) > 0.1
  expect_lt(max(abs(Vf - Vd)[away] / abs(Vd[away])), 5e-6)
})

# ---- the Jastrow factor ---------------------------------------------------------

test_that("jastrow_mcmillan() is u = -(b/r)^5/2 without a box", {
  r <- c(1, 2.5, 3.07, 5, 20)
  b <- 3.07
  expect_equal(jastrow_mcmillan(r, b), -0.5 * (b / r)^5, tolerance = 1e-15)
  expect_equal(jastrow_mcmillan(r, b, deriv = 1), 2.5 * b^5 / r^6, tolerance = 1e-15)
  expect_equal(jastrow_mcmillan(r, b, deriv = 2), -15 * b^5 / r^7, tolerance = 1e-15)
  expect_equal(jastrow_mcmillan(r, b, form = "truncated"), jastrow_mcmillan(r, b))
  for (form in c("symmetrized", "truncated")) for (k in 0:2) {
    expect_equal(jastrow_mcmillan(r, b, L = 12, form = form, deriv = k),
                 u_ref(r, b, 12, form, k), tolerance = 1e-14)
  }
})

test_that("derivatives of u agree with finite differences within the step's error bound", {
  b <- 3.07
  L <- 12
  r <- c(2, 2.5, 3, 4, 5, 5.5, 5.9)
  for (form in c("free", "symmetrized", "truncated")) {
    LL <- if (form == "free") Inf else L
    fm <- if (form == "free") "symmetrized" else form
    u <- function(x, k = 0) jastrow_mcmillan(x, b, LL, fm, deriv = k)
    # u''' and u'''' of both terms bound the truncation errors
    d3 <- function(x) abs(u0(x, b, 3)) + if (is.finite(LL)) abs(u0(LL - x, b, 3)) else 0
    d4 <- function(x) abs(u0(x, b, 4)) + if (is.finite(LL)) abs(u0(LL - x, b, 4)) else 0
    umax <- abs(u0(r * 0.99, b)) + if (is.finite(LL)) abs(u0(LL - r * 1.01, b)) else 0
    # first derivative, central difference with h = 1e-4 r:
    # |error| <= h^2/6 max|u'''| + 2 eps max|u| / h
    h <- 1e-4 * r
    fd1 <- (u(r + h) - u(r - h)) / (2 * h)
    bound1 <- h^2 / 6 * d3(r - h) + 2 * .Machine$double.eps * umax / h
    expect_true(all(abs(fd1 - u(r, 1)) <= bound1), info = form)
    # the bound is tight enough to mean something: 7 (h/r)^2 relative, 7e-8
    expect_lt(max(bound1 / abs(u0(r, b, 1))), 2e-7)
    # second derivative, h = 1e-3 r: |error| <= h^2/12 max|u''''| + 4 eps max|u| / h^2
    h <- 1e-3 * r
    fd2 <- (u(r + h) - 2 * u(r) + u(r - h)) / h^2
    bound2 <- h^2 / 12 * d4(r - h) + 4 * .Machine$double.eps * umax / h^2
    expect_true(all(abs(fd2 - u(r, 2)) <= bound2), info = form)
    expect_lt(max(bound2 / abs(u0(r, b, 2))), 1e-5)
  }
})

test_that("the symmetrised u and u' vanish at L/2 and are continuous there; truncation is not", {
  b <- 3.07
  for (L in c(7.2, 10, 14.3)) {
    h <- L / 2
    us <- function(x, k = 0) jastrow_mcmillan(x, b, L, "symmetrized", deriv = k)
    expect_identical(us(h), 0)
    expect_identical(us(h, 1), 0)
    expect_identical(us(h * (1 + 1e-12)), 0)
    expect_identical(us(h * (1 + 1e-12), 1), 0)
    # left limits: u_s ~ u''(L/2) d^2 and u_s' ~ 2 u''(L/2) d
    d <- 1e-5
    expect_lt(abs(us(h - d)), 2 * abs(u0(h, b, 2)) * d^2)
    expect_lt(abs(us(h - d, 1)), 2.1 * abs(u0(h, b, 2)) * d)
    # u_s'' does not vanish: it is 2 u''(L/2) at the cut
    expect_equal(us(h, 2), 2 * u0(h, b, 2), tolerance = 1e-14)
    ut <- function(x, k = 0) jastrow_mcmillan(x, b, L, "truncated", deriv = k)
    expect_equal(ut(h), u0(h, b), tolerance = 1e-15)
    expect_equal(ut(h, 1), u0(h, b, 1), tolerance = 1e-15)
    expect_gt(ut(h, 1), 0)
    expect_identical(ut(h * (1 + 1e-12), 1), 0)
    expect_identical(ut(h * (1 + 1e-12)), 0)
  }
  # the single-precision form of he4.h vanishes exactly at the cut as well
  sg <- function(k) .Call(statphysgpu:::C_sp_r_he4_jastrow, 5, 3.07, 10, 2L, k, TRUE)
  expect_identical(c(sg(0L), sg(1L)), c(0, 0))
})

# ---- tail correction -------------------------------------------------------------

# 2 pi rho int_rc^Inf r^2 V dr in closed form for rc >= D r_m (no damping):
# the exponential part as Gaussian tail moments, the dispersion as powers.
tail_closed <- function(rho, L) {
  eps <- 10.948; rm <- 2.963; A <- 1.8443101e5; al <- 10.43329537
  be <- -2.27965105; C6 <- 1.36745214; C8 <- 0.42123807; C10 <- 0.17473318
  xc <- L / 2 / rm
  a <- -be; c <- al / (2 * a); y0 <- xc + c
  J0 <- sqrt(pi / a) * pnorm(y0 * sqrt(2 * a), lower.tail = FALSE)
  J1 <- exp(-a * y0^2) / (2 * a)
  J2 <- y0 * exp(-a * y0^2) / (2 * a) + J0 / (2 * a)
  rep <- A * exp(a * c^2) * (J2 - 2 * c * J1 + c^2 * J0)
  disp <- C6 / (3 * xc^3) + C8 / (5 * xc^5) + C10 / (7 * xc^7)
  2 * pi * rho * eps * rm^3 * (rep - disp)
}

test_that("he4_tail_correction() agrees with the closed form and with a direct quadrature", {
  rho <- 0.02186
  L <- c((64 / rho)^(1/3), (256 / rho)^(1/3), 9, 8.8)
  tc <- he4_tail_correction(rho, L)
  expect_equal(tc, tail_closed(rho, L), tolerance = 1e-10)
  # N = 64 at the equilibrium density: -1.3096 K per atom
  expect_equal(round(tc[1], 4), -1.3096)
  # a box whose half side lies in the damped range: pure-R potential,
  # integrate() up to D r_m, closed form beyond
  Lsmall <- c(6, 7.2)
  ref <- vapply(Lsmall, function(l) {
    2 * pi * rho * integrate(function(r) r^2 * aziz_ref(r), l / 2, 1.4826 * 2.963,
                             rel.tol = 1e-12)$value
  }, 0) + tail_closed(rho, 2 * 1.4826 * 2.963)
  expect_equal(he4_tail_correction(rho, Lsmall), ref, tolerance = 1e-9)
  # linear in the density, recycled
  expect_equal(he4_tail_correction(c(0.01, 0.02), 10),
               c(1, 2) * he4_tail_correction(0.01, 10), tolerance = 1e-14)
})

# ---- local energy ------------------------------------------------------------------

test_that("the CPU local energy matches a pure-R computation to ~1e-12", {
  set.seed(42)
  b <- 3.07
  for (n in c(8, 17, 32)) for (form in c("symmetrized", "truncated")) {
    L <- (n / 0.02186)^(1/3)
    x <- random_config(n, L)
    e <- statphysgpu:::he4_local_energy(x, L, b, form)
    ref <- local_energy_ref(x, L, b, form)
    expect_named(e, c("potential", "kinetic_pb", "kinetic_jf", "kinetic_grad"))
    for (k in names(e)) {
      expect_equal(e[[k]], ref[[k]], tolerance = 1e-12, info = paste(n, form, k))
    }
  }
})

test_that("the local energy is invariant under translations by box vectors and of the whole", {
  set.seed(7)
  L <- (16 / 0.02186)^(1/3)
  x <- random_config(16, L)
  e <- statphysgpu:::he4_local_energy(x, L, 3.07, "symmetrized")
  shift <- matrix(sample(-3:3, 48, replace = TRUE) * L, 16)
  expect_equal(statphysgpu:::he4_local_energy(x + shift, L, 3.07, "symmetrized"), e,
               tolerance = 1e-12)
  moved <- sweep(x, 2, c(1.3, -0.7, 4.1), "+")
  expect_equal(statphysgpu:::he4_local_energy(moved, L, 3.07, "symmetrized"), e,
               tolerance = 1e-12)
  # atom order does not matter
  expect_equal(statphysgpu:::he4_local_energy(x[16:1, ], L, 3.07, "symmetrized"), e,
               tolerance = 1e-12)
})

test_that("per configuration, T_PB - T_JF = -(hbar^2/4m)(1/N) sum_i [lap_i U + 2 |grad_i U|^2] = T_JF - T_grad", {
  # psi = exp(U): lap psi / psi = lap U + |grad U|^2, so
  #   T_PB - T_JF = -(hbar^2/2m)(1/N) sum [lap U + |grad U|^2] + (hbar^2/4m)(1/N) sum lap U
  #               = -(hbar^2/4m)(1/N) sum_i [lap_i U + 2 |grad_i U|^2]
  #               = -(hbar^2/8m)(1/N) sum_i lap_i(psi^2) / psi^2,
  # i.e. T_PB = 2 T_JF - T_grad with T_grad = (hbar^2/2m)(1/N) sum |grad_i U|^2.
  set.seed(3)
  for (form in c("symmetrized", "truncated")) {
    L <- (24 / 0.02186)^(1/3)
    x <- random_config(24, L)
    e <- statphysgpu:::he4_local_energy(x, L, 3.07, form)
    ref <- local_energy_ref(x, L, 3.07, form)
    lhs <- e[["kinetic_pb"]] - e[["kinetic_jf"]]
    rhs <- -hb2m / 4 * sum(ref$lap + 2 * ref$g2) / 24
    scale <- hb2m * sum(abs(ref$lap) + ref$g2) / 24 # size of the terms
    expect_lt(abs(lhs - rhs), 1e-13 * scale)
    expect_lt(abs(e[["kinetic_pb"]] - (2 * e[["kinetic_jf"]] - e[["kinetic_grad"]])),
              1e-13 * scale)
  }
})

# Variational Monte Carlo in pure R: W independent walkers of N atoms at
# density rho sampled from psi^2 by single-atom Metropolis moves (vectorised
# over walkers); every `every` sweeps after `burn`, T_PB - T_JF of each walker
# from the package's local energy.  Returns the mean over walkers of their
# time averages, its standard error (walkers are independent) and z.
vmc_pb_minus_jf <- function(form, N = 8, rho = 0.01, b = 3.07, W = 100,
                            sweeps = 300, burn = 100, every = 2, delta = 1.5) {
  L <- (N / rho)^(1/3)
  m <- ceiling(N^(1/3))
  lat <- as.matrix(expand.grid(0:(m - 1), 0:(m - 1), 0:(m - 1)))[1:N, ] * (L / m)
  x <- array(rep(lat, each = W), c(W, N, 3)) + stats::runif(W * N * 3, -0.3, 0.3)
  U_atom <- function(dx, dy, dz) { # W x (N-1) displacements -> U of the atom
    dx <- dx - L * round(dx / L); dy <- dy - L * round(dy / L); dz <- dz - L * round(dz / L)
    rowSums(matrix(jastrow_mcmillan(sqrt(dx^2 + dy^2 + dz^2), b, L, form), W))
  }
  D <- NULL
  acc <- 0
  for (s in seq_len(sweeps)) {
    for (i in seq_len(N)) {
      o <- x[, -i, , drop = FALSE]
      p <- x[, i, ] + stats::runif(W * 3, -delta, delta)
      dU <- U_atom(o[, , 1] - p[, 1], o[, , 2] - p[, 2], o[, , 3] - p[, 3]) -
        U_atom(o[, , 1] - x[, i, 1], o[, , 2] - x[, i, 2], o[, , 3] - x[, i, 3])
      ok <- log(stats::runif(W)) < 2 * dU
      x[ok, i, ] <- p[ok, ]
      acc <- acc + sum(ok)
    }
    if (s > burn && (s - burn) %% every == 0) {
      D <- cbind(D, vapply(seq_len(W), function(w) {
        e <- statphysgpu:::he4_local_energy(x[w, , ], L, b, form)
        e[["kinetic_pb"]] - e[["kinetic_jf"]]
      }, 0))
    }
  }
  wm <- rowMeans(D)
  se <- stats::sd(wm) / sqrt(W)
  c(mean = mean(wm), se = se, z = mean(wm) / se, acceptance = acc / (N * W * sweeps))
}

test_that("T_PB and T_JF agree in expectation for the symmetrised form, not for truncation", {
  # 100 walkers x 8 atoms at rho = 0.01 A^-3 (L/2 = 4.64 A), 300 sweeps;
  # about 1 s per form.  Measured at this seed: symmetrised -0.01 +- 0.056 K
  # (z = -0.2; seeds 1..5 gave |z| <= 1.2), truncated -0.66 +- 0.05 K
  # (z = -13; seeds 1..5: -11 .. -13), near the surface-term estimate
  # -(hbar^2/8m) rho 4 pi rc^2 2 u'(rc) = -0.56 K (g = 1 at rc).
  set.seed(4)
  sym <- vmc_pb_minus_jf("symmetrized")
  trunc <- vmc_pb_minus_jf("truncated")
  expect_gt(sym[["acceptance"]], 0.4)
  expect_lt(abs(sym[["z"]]), 4)
  expect_lt(trunc[["z"]], -6)
  # the test can see a difference of a tenth of the truncation bias
  expect_lt(sym[["se"]], 0.1 * abs(trunc[["mean"]]))
})

# ---- GPU source ------------------------------------------------------------------

test_that("NVRTC compiles he4.h (through the VMC kernel he4_vmc.cu) in both precisions (the default variants)", {
  skip_if_no_nvrtc()
  skip_if_second_build() # the same sources and R code in both builds
  reg <- statphysgpu:::gpu_kernel_registry()$he4_vmc
  expect_setequal(names(reg$variants), c("mixed", "mixed_lb32", "mixed_u4", "mixed_lb32_u4",
                                         "double", "mixed_fast", "mixed_fast_u4",
                                         "mixed_fast_u4_usum", "double_fast"))
  file <- file.path(system.file("cuda", package = "statphysgpu"), reg$file)
  # the default variants of both precisions here; every variant in
  # test-gpu-runtime.R's gpu_kernels_check() (a second compile of each
  # cost CI some 5 s)
  for (v in c(statphysgpu:::he4_kernel_variant("mixed", 512),
              statphysgpu:::he4_kernel_variant("double", 512))) {
    res <- statphysgpu:::nvrtc_compile(
      file, statphysgpu:::nvrtc_options("sm_90", reg$variants[[v]], FALSE))
    expect_true(res$ok, info = paste(v, res$error, res$log))
  }
})

# ---- bad input ---------------------------------------------------------------------

test_that("bad input gives clear errors", {
  expect_error(aziz_potential("3"), "`r` must be a numeric vector of positive finite numbers")
  expect_error(aziz_potential(c(3, 0)), "`r` must be .* positive .* not 0")
  expect_error(aziz_potential(c(3, NA)), "`r` must be")
  expect_error(aziz_potential(-1), "`r` must be")
  expect_error(jastrow_mcmillan(3, b = -1), "`b` must be a single positive finite number")
  expect_error(jastrow_mcmillan(3, b = "x"), "`b` must be")
  expect_error(jastrow_mcmillan(3, b = c(1, 2)), "`b` must be")
  expect_error(jastrow_mcmillan(3, 3.07, L = 0), "`L` \\(the box side in angstrom\\) must be a single positive number or Inf, not 0")
  expect_error(jastrow_mcmillan(3, 3.07, L = NA), "`L` \\(the box side")
  expect_error(jastrow_mcmillan(3, 3.07, L = 10, form = "cut"),
               "`form` must be one of \"symmetrized\", \"truncated\"")
  expect_error(jastrow_mcmillan(3, 3.07, deriv = 3), "`deriv` must be a single whole number between 0 and 2")
  expect_error(jastrow_mcmillan(0, 3.07), "`r` must be")
  expect_error(he4_tail_correction(-0.02, 10), "`density` must be")
  expect_error(he4_tail_correction("a", 10), "`density` must be")
  expect_error(he4_tail_correction(0.02, Inf), "`L` \\(the box side in angstrom\\) must be a numeric vector of positive numbers \\(finite\\), not Inf")
  expect_error(he4_tail_correction(0.02, 5),
               "The box side `L` = 5 A is too small: half of it, 2.5 A, lies inside the core")
  expect_warning(he4_tail_correction(21.86, 10), "per cubic nanometre")
  expect_error(he4_tail_correction(c(0.01, 0.02, 0.03), c(10, 12)), "cannot be recycled")
  le <- statphysgpu:::he4_local_energy
  x <- matrix(c(0, 0, 0, 3, 0, 0, 0, 3, 0), 3, byrow = TRUE)
  expect_error(le(x[, 1:2], 10, 3.07), "`coords` must be a numeric N x 3 matrix .* not a 3 x 2 double matrix")
  expect_error(le(as.vector(x), 10, 3.07), "`coords` must be a numeric N x 3 matrix")
  expect_error(le(x[1, , drop = FALSE], 10, 3.07), "N >= 2")
  expect_error(le(rbind(x, c(NA, 0, 0)), 10, 3.07), "non-finite")
  expect_error(le(x, 5, 3.07), "The box side `L` = 5 A is too small")
  expect_error(le(x, Inf, 3.07), "`L` \\(the box side")
  expect_error(le(x, 10, 0), "`b` must be")
  expect_error(le(x, 10, 3.07, "free"), "`form` must be one of")
  expect_error(le(rbind(x, x[2, ]), 10, 3.07), "atoms 2 and 4 are at the same place")
  # an integer matrix is fine
  xi <- matrix(c(0L, 0L, 0L, 3L, 0L, 0L), 2, byrow = TRUE)
  expect_equal(le(xi, 10, 3.07), le(xi + 0, 10, 3.07))
})
