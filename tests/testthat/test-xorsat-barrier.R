# The cavity free-energy barrier of k-regular p-XORSAT (paper 003, s. 8).

test_that("phi(0) is the paramagnet's free energy and phi(1) the ground state's energy", {
  for (T in c(0.5, 0.8, 1.3)) for (kp in list(c(3, 3), c(4, 3), c(3, 4))) {
    k <- kp[1]; p <- kp[2]
    d <- statphysgpu:::xorsat_phi_curve(T, k, p)
    expect_equal(d$phi[1], -T * log(2) - (k / p) * T * log(cosh(1 / T)), tolerance = 1e-14)
    expect_equal(d$m[1], 0)
    # the end of the sweep is m = 1 - O(1e-12): E = -k/p per spin, no entropy
    expect_gt(d$m[nrow(d)], 1 - 1e-9)
    expect_equal(d$phi[nrow(d)], -k / p, tolerance = 1e-6)
  }
})

test_that("phi(m) is the Legendre transform: d phi / dm = H along the curve", {
  for (T in c(0.6, 0.8, 1.1)) {
    d <- statphysgpu:::xorsat_phi_curve(T, 3, 3)
    i <- which(d$m > 0.05 & d$m < 0.95)
    i <- i[seq(1, length(i), length.out = 50)]
    slope <- (d$phi[i + 1] - d$phi[i - 1]) / (d$m[i + 1] - d$m[i - 1])
    # central differences on a grid of 20001 points: error O(dh^2), far
    # below 1e-5 of the field's scale (H is of order 1)
    expect_lt(max(abs(slope - d$H[i])), 1e-5)
  }
})

test_that("the barrier: its top is a maximum of phi, ferromagnetic minimum below the spinodal", {
  b <- xorsat_barrier(T = c(0.5, 0.7, 0.9, 1.2))
  ts <- attr(b, "T_spinodal")
  expect_gt(ts, 0.9)
  expect_lt(ts, 1.2)
  expect_identical(b$ferro, b$T < ts)
  # the barrier grows with T here, and is the ground state's above T_sp
  expect_true(all(diff(b$barrier) > 0))
  d <- statphysgpu:::xorsat_phi_curve(1.2, 3, 3)
  expect_equal(b$barrier[4], -1 - d$phi[1], tolerance = 1e-12)
  # below T_sp: no point of the curve between m = 0 and the top is higher
  for (j in 1:3) {
    d <- statphysgpu:::xorsat_phi_curve(b$T[j], 3, 3)
    up <- d$m <= b$m_top[j]
    expect_lte(max(d$phi[up] - d$phi[1]), b$barrier[j] + 1e-12)
    # and phi falls after it (a ferromagnetic minimum exists)
    after <- d$m > b$m_top[j] & d$m < 1 - 1e-6
    expect_lt(min(d$phi[after] - d$phi[1]), b$barrier[j] - 1e-4)
  }
  # units: a = barrier / (2 T ln 10); p1 = exp(-2 / T)
  expect_equal(b$a, b$barrier / (2 * b$T * log(10)))
  expect_equal(b$p1, exp(-2 / b$T))
  expect_equal(xorsat_barrier(p1 = b$p1)$barrier, b$barrier, tolerance = 1e-10)
})

test_that("print, plot and bad input", {
  b <- xorsat_barrier(p1 = c(0.05, 0.08))
  expect_output(print(b), "spinodal")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(b))
  expect_error(xorsat_barrier(p1 = 1.5), "`p1` must be numbers in \\(0, 1\\)",
               class = "statphysgpu_error")
  expect_error(xorsat_barrier(T = -1), "`T` must be", class = "statphysgpu_error")
  expect_error(xorsat_barrier(p = 2), "`p` must be", class = "statphysgpu_error")
  expect_error(xorsat_barrier(k = 2.5), "`k` must be", class = "statphysgpu_error")
})
