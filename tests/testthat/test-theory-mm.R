# Mel'nikov-Meshkov turnover: the depopulation factor A(Delta), the
# separatrix action S(gamma) and the "mm" prefactor of escape_rate() and
# switching_distribution().

log_A <- function(D) statphysgpu:::mm_log_depopulation(D)

# The definition, by integrate() (independent of the package's closed forms):
# ln A = (1/(2 pi)) int ln(1 - exp(-Delta (x^2 + 1/4))) / (x^2 + 1/4) dx.
log_A_ref <- function(D) {
  vapply(D, function(d) {
    integrate(function(x) log(-expm1(-d * (x^2 + 0.25))) / (x^2 + 0.25),
              -Inf, Inf, rel.tol = 1e-13)$value / (2 * pi)
  }, numeric(1))
}

# Riemann zeta at half-integers (DLMF; quoted to 16 digits).
zeta_half <- -1.4603545088095868   # zeta(1/2)
zeta_m_half <- -0.2078862249773545 # zeta(-1/2)
zeta_m_3half <- -0.0254852018898330 # zeta(-3/2)

# S by a direct route: bracketed root of U(phi_t) = U(phi_b) and integrate()
# over phi (which copes with the square-root end point at 1e-10).
S_ref <- function(g, V0) {
  pb <- pi - asin(g)
  U <- function(p) -V0 * (cos(p) + g * p)
  pt <- uniroot(function(p) U(p) - U(pb), c(pb - 2 * pi, asin(g)), tol = 1e-15)$root
  2 * integrate(function(p) sqrt(pmax(2 * (U(pb) - U(p)), 0)), pt, pb,
                rel.tol = 1e-11)$value
}

test_that("A(Delta) equals its integral definition from 1e-6 to 1e4", {
  D <- c(1e-6, 1e-4, 1e-2, 0.1, 1, 1.999, 2, 2.001, 3, 10, 40)
  expect_equal(log_A(D), log_A_ref(D), tolerance = 1e-10)
  # where integrate() loses relative accuracy (ln A ~ 1e-12 and below),
  # monotone, <= 1, and exactly 1 in double precision at 1e4
  grid <- 10^seq(-6, 4, by = 0.05)
  lA <- log_A(grid)
  expect_true(all(diff(lA) > 0 | lA[-1] == 0))
  expect_true(all(lA <= 0))
  expect_identical(exp(log_A(1e4)), 1)
  expect_identical(log_A(0), -Inf)
})

test_that("A(Delta) -> Delta for small Delta, with the Mellin-series corrections", {
  # ln A = ln Delta + c0 Delta^(1/2) + c1 Delta^(3/2) + c2 Delta^(5/2) + ...,
  # c_n = (-1)^n zeta(1/2 - n) / (4^(n+1/2) n! (n+1/2) sqrt(pi)) (poles of
  # the Mellin transform of -sum_k erfc(sqrt(k Delta)/2)/k).  So A / Delta - 1
  # = c0 sqrt(Delta) + (c0^2/2) Delta + ...: below 0.83 sqrt(Delta) + 0.35 Delta.
  c0 <- zeta_half / sqrt(pi)
  c1 <- -zeta_m_half / (12 * sqrt(pi))
  c2 <- zeta_m_3half / (160 * sqrt(pi))
  D <- c(1e-6, 1e-5, 1e-4, 1e-3)
  r <- exp(log_A(D)) / D - 1
  expect_true(all(abs(r - c0 * sqrt(D)) < 0.35 * D))
  expect_lt(abs(exp(log_A(1e-6)) / 1e-6 - 1), 1e-3)
  # the two-term series against the definition (integrate), the remainder
  # being c2 Delta^(5/2) (|c2| = 9e-5) plus the reference's own error
  D <- c(1e-3, 1e-2, 0.1, 0.5)
  rem <- log_A_ref(D) - log(D) - c0 * sqrt(D) - c1 * D^1.5
  expect_true(all(abs(rem) < 2 * abs(c2) * D^2.5 + 1e-13))
  expect_true(all(abs(rem - c2 * D^2.5) < 0.2 * abs(c2) * D^2.5 + 1e-13))
})

test_that("A(Delta) -> 1 for large Delta, with the Laplace series", {
  # ln A = -sum_k erfc(sqrt(k Delta)/2)/k; the k = 1 term by Laplace:
  # -ln A = 2 e^(-Delta/4) / sqrt(pi Delta) (1 - 2/Delta + 12/Delta^2 - 120/Delta^3
  # + ...), the k = 2 term relative e^(-Delta/4).
  D <- c(40, 100, 400, 1000)
  lead <- 2 * exp(-D / 4) / sqrt(pi * D) * (1 - 2 / D + 12 / D^2)
  expect_true(all(abs(-log_A(D) / lead - 1) < 2 * 120 / D^3 + exp(-D / 4)))
  expect_lt(1 - exp(log_A(40)), 1e-5)
})

test_that("separatrix_action() is 16 sqrt(V0) at gamma = 0 and matches a direct integral", {
  expect_equal(separatrix_action(0, c(1, 4, 211)), 16 * sqrt(c(1, 4, 211)),
               tolerance = 1e-12)
  for (g in c(0.01, 0.1, 0.5, 0.9, 0.99)) {
    expect_equal(separatrix_action(g, 2), S_ref(g, 2), tolerance = 1e-8)
  }
  expect_identical(separatrix_action(1, 3), 0)
  # vectorised and recycled
  expect_equal(separatrix_action(c(0.2, 0.7), c(1, 4, 9, 16)),
               c(1, 2, 3, 4) * separatrix_action(c(0.2, 0.7, 0.2, 0.7), 1),
               tolerance = 1e-12)
})

test_that("separatrix_action() tends to the cubic potential's 36 Delta U / (5 omega0)", {
  # Cubic well U = omega0^2 x^2/2 - omega0^2 x^3/(3 c): barrier Delta U =
  # omega0^2 c^2 / 6 at x = c, turning point x = -c/2, and
  # U(c) - U(x) = omega0^2 (c - x)^2 (2x + c) / (6c), so
  # S = 2 int_{-c/2}^{c} sqrt(2 (U(c) - U(x))) dx = 6 omega0 c^2 / 5
  #   = 36 Delta U / (5 omega0).
  # About the inflection point phi = pi/2 + y the washboard is
  # U/V0 = eps y - y^3/6 + y^5/120 - ... (eps = 1 - gamma): no even terms,
  # so the cubic is exact to relative O(eps).  First order in the quintic
  # term (y = sqrt(2 eps) z, U ~ z - z^3/3 + eps z^5/30): S = S0 (1 + 7 eps/40),
  # Delta U = Delta U0 (1 + eps/20), omega0 = omega00 (1 - eps/8), with
  # S0 = (48/5) 2^(1/4) sqrt(V0) eps^(5/4).  Hence
  #   S / S0 = 1 + (7/40) eps + O(eps^2),
  #   S / (36 Delta U / (5 omega0)) = 1 + O(eps^2)  (7/40 = 1/20 + 1/8).
  V0 <- 3
  g <- 1 - c(1e-2, 1e-3, 1e-4, 1e-6, 1e-9)
  eps <- 1 - g # exact, unlike the decimal 1e-9 (relative 1e-7 apart)
  S <- separatrix_action(g, V0)
  S0 <- 48 / 5 * 2^0.25 * sqrt(V0) * eps^1.25
  slope <- (S / S0 - 1) / eps
  # the O(eps^2) remainder: coefficient 0.07 observed; bound 0.2, plus
  # rounding (1e-13 relative in S, divided by eps)
  expect_true(all(abs(slope - 7 / 40) < 0.2 * eps + 1e-13 / eps))
  w0 <- sqrt(V0) * (eps * (1 + g))^0.25 # 1 - g^2 without cancellation
  cubic <- 36 * barrier_height(g, V0) / (5 * w0)
  # O(eps^2), coefficient 0.015 observed; bound 0.05, plus 1e-12 for the
  # quadrature (2e-14 observed)
  expect_true(all(abs(S / cubic - 1) < 0.05 * eps^2 + 1e-12))
  # and the relative error really is second order, not first
  expect_gt(abs(S[1] / cubic[1] - 1), 0.005 * eps[1]^2)
})

test_that("separatrix_action() validates its arguments", {
  expect_error(separatrix_action(1.5, 1),
               "`gamma` must be a numeric vector of finite numbers in \\[0, 1\\], not 1.5",
               class = "statphysgpu_error")
  expect_error(separatrix_action(0.5, 0), "`V0` must be .* positive")
  expect_error(separatrix_action(c(0.1, 0.2), 1:3), "cannot be recycled")
  e <- tryCatch(separatrix_action("a", 1), error = identity)
  expect_identical(conditionCall(e)[[1]], as.name("separatrix_action"))
})

test_that("the mm rate is A(beta S / theta) times Kramers, never above it", {
  g <- c(0, 0.2, 0.5, 0.8, 0.95, 0.999)
  for (beta in c(1e-4, 0.01, 0.3, 3)) {
    V0 <- 2; theta <- 0.1
    mm <- escape_rate(g, V0, beta, theta, prefactor = "mm")
    kr <- escape_rate(g, V0, beta, theta, prefactor = "kramers")
    D <- beta * separatrix_action(g, V0) / theta
    expect_equal(log(mm / kr), log_A(D), tolerance = 1e-12)
    expect_true(all(mm <= kr))
  }
  # vectorised over all arguments, like the other prefactors
  r <- escape_rate(0.4, V0 = c(1, 2), beta = c(0.01, 0.1, 1, 10), theta = 0.2,
                   prefactor = "mm")
  one <- mapply(function(V0, beta) escape_rate(0.4, V0, beta, 0.2, "mm"),
                c(1, 2, 1, 2), c(0.01, 0.1, 1, 10))
  expect_equal(r, one)
  expect_true(all(is.finite(escape_rate(1 - 10^-(1:12), 100, 1, 1, "mm"))))
})

test_that("the mm rate has the energy-diffusion and Kramers limits and a turnover", {
  g <- 0.5; V0 <- 1; theta <- 0.1
  w0 <- sqrt(V0) * (1 - g^2)^0.25
  dU <- barrier_height(g, V0)
  S <- separatrix_action(g, V0)
  # weak damping: beta S / theta * omega0 / (2 pi) * exp(-dU / theta), off by
  # A / Delta - 1 ~ zeta(1/2) sqrt(Delta / pi) and the Kramers factor ~ beta / (2 omega0)
  for (beta in c(1e-8, 1e-6)) {
    D <- beta * S / theta
    ed <- D * w0 / (2 * pi) * exp(-dU / theta)
    expect_lt(abs(escape_rate(g, V0, beta, theta, "mm") / ed - 1),
              0.83 * sqrt(D) + 0.35 * D + beta / w0)
  }
  # moderate damping (Delta = 70): Kramers to 1 - A < 2 e^(-Delta/4) / sqrt(pi Delta)
  beta <- 70 * theta / S
  expect_lt(1 - escape_rate(g, V0, beta, theta, "mm") / escape_rate(g, V0, beta, theta),
            2 * exp(-70 / 4) / sqrt(pi * 70))
  # the turnover: the rate rises with beta, peaks, and falls
  b <- 10^seq(-4, 2, by = 0.25)
  r <- escape_rate(g, V0, b, theta, "mm")
  k <- which.max(r)
  expect_true(k > 1 && k < length(b))
  expect_true(all(diff(r[1:k]) > 0) && all(diff(r[k:length(r)]) < 0))
})

test_that("mm and bhl agree in the weak-damping limit where the washboard is cubic", {
  # BHL's weak-damping limit, 4 * 1.8 Delta U / (Q theta) = (36/5) Delta U beta
  # / (omega0 theta), is the energy-diffusion rate with the cubic potential's
  # action 36 Delta U / (5 omega0); mm uses the washboard's S.  So at weak
  # damping mm / bhl -> S / (36 Delta U / (5 omega0)), up to the first
  # corrections of both (A / Delta: 0.83 sqrt(Delta); BHL: 2 / sqrt(y), with
  # y = Q theta / (1.8 Delta U)), and -> 1 as gamma -> 1.
  V0 <- 1; theta <- 0.05; beta <- 1e-7
  for (g in c(0.3, 0.7, 0.99)) {
    w0 <- sqrt(V0) * (1 - g^2)^0.25
    dU <- barrier_height(g, V0)
    S <- separatrix_action(g, V0)
    ratio <- S / (36 * dU / (5 * w0))
    D <- beta * S / theta
    y <- (w0 / beta) * theta / (1.8 * dU)
    got <- escape_rate(g, V0, beta, theta, "mm") / escape_rate(g, V0, beta, theta, "bhl")
    expect_lt(abs(got / ratio - 1), 0.83 * sqrt(D) + 2 / sqrt(y) + beta / w0)
  }
  expect_lt(abs(ratio - 1), 1e-4) # gamma = 0.99
})

test_that("switching_distribution(prefactor = \"mm\") integrates the mm rate and reaches 1", {
  V0 <- 2; beta <- 0.05; theta <- 0.2; v <- 1e-4
  g <- c(0.2, 0.4, 0.5, 0.55, 0.6, 0.7)
  sd <- switching_distribution(g, v, V0, beta, theta, prefactor = "mm")
  expect_identical(attr(sd, "prefactor"), "mm")
  J <- ifelse(sd$cdf < 0.5, -log1p(-sd$cdf),
              log(escape_rate(g, V0, beta, theta, "mm") / v) - log(sd$density))
  J_ref <- vapply(g, function(gi) integrate(function(x)
    escape_rate(x, V0, beta, theta, "mm") / v, 0, gi, rel.tol = 1e-12,
    subdivisions = 1000L)$value, numeric(1))
  expect_lt(max(abs(J / J_ref - 1)), 1e-6)
  # the density integrates to the CDF, which reaches 1 within the range
  dens <- function(x) switching_distribution(x, v, V0, beta, theta, prefactor = "mm")$density
  total <- integrate(dens, 0, 0.95, rel.tol = 1e-9, subdivisions = 500L)$value
  end <- switching_distribution(0.95, v, V0, beta, theta, prefactor = "mm")$cdf
  expect_equal(total, end, tolerance = 1e-7)
  expect_gt(end, 1 - 1e-9)
  # weaker damping than Kramers assumes: mm switches later (A < 1)
  kr <- switching_distribution(g, v, V0, beta, theta)
  expect_true(all(sd$cdf <= kr$cdf))
})

test_that("plot(x, theory = \"mm\") draws escape times and switching currents", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  x <- escape_times(60, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
                    dt = 0.02, t_max = 2000, seed = 1, backend = "cpu",
                    threshold = "next_well")
  expect_silent(plot(x, theory = "mm"))
  # a rate theory on saddle crossings warns, as for kramers
  y <- escape_times(60, gamma = 0.5, V0 = 1, beta = 0.5, theta = 0.2,
                    dt = 0.02, t_max = 2000, seed = 1, backend = "cpu")
  expect_warning(plot(y, theory = "mm"), class = "statphysgpu_theory_mismatch")
  s <- switching_currents(60, ramp = 1e-3, V0 = 2, beta = 0.3, theta = 0.2,
                          dt = 0.02, seed = 1, backend = "cpu", gamma0 = 0.3)
  expect_silent(plot(s, theory = "mm"))
  expect_error(plot(s, theory = "mmm"), '"mm"')
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    expect_s3_class(ggplot2::autoplot(s, theory = "mm"), "ggplot")
  }
})
