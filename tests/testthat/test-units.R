# jj_units(): SI -> normalised units of the RCSJ model (REFERENCES.md Sec. 2).

# Anchor values are quoted to a few significant digits; a value passes when it
# rounds to the quoted digits, i.e. lies within half a unit of the last digit.
expect_rounds_to <- function(x, quoted, unit) {
  expect_lte(abs(x - quoted), unit / 2)
}

test_that("the device of Fig. 11(b) of Pierro et al. gives the anchor values", {
  Ic <- 0.748e-6
  u <- jj_units(R = 250, C = 88e-15, Ic = Ic, T = 1.2, sweep_rate = 200 * Ic)
  expect_s3_class(u, "jj_units")
  expect_rounds_to(u$V0, 211.0, 0.1)
  # REFERENCES.md quotes beta = 4.109, but hbar / ((2e)^2 * 250 Ohm) is
  # 4.10824 (R_K / (8 pi) / 250 with the von Klitzing constant below), which
  # rounds to 4.108: the quoted 4.109 is a rounding slip.
  expect_rounds_to(u$beta, 4.108, 0.001)
  expect_rounds_to(u$theta, 14.20, 0.01)
  expect_rounds_to(u$t0, 9.04e-11, 0.01e-11)
  expect_rounds_to(u$omega_p, 14.5, 0.1)
  expect_rounds_to(u$ramp, 1.81e-8, 0.01e-8)
  expect_equal(u$D, u$beta * u$theta)
  expect_equal(u$Q, sqrt(u$V0) / u$beta)
  expect_equal(u$omega_p, sqrt(u$V0))
})

test_that("jj_units() agrees with an independent route through R_K and Phi_0", {
  # Von Klitzing constant R_K = h / e^2 and flux quantum Phi_0 = h / (2e),
  # computed from h = 6.62607015e-34 J s (exact), e exact.
  h <- 6.62607015e-34; e <- 1.602176634e-19; kB <- 1.380649e-23
  R_K <- h / e^2
  Phi0 <- h / (2 * e)
  R <- c(250, 10); C <- c(88e-15, 1e-12); Ic <- c(0.748e-6, 1e-5); T <- c(1.2, 0.05)
  u <- jj_units(R, C, Ic, T, sweep_rate = c(1e-4, 3e-2))
  E_C <- (2 * e)^2 / C
  # jj_units() uses hbar = 1.054571817e-34 J s, the CODATA 2018 value of
  # h / (2 pi) rounded to 10 digits (relative rounding 6.1e-10): quantities
  # with one power of hbar agree to 1e-9, the others to 1e-12.
  expect_equal(abs(1.054571817e-34 / (h / (2 * pi)) - 1), 6.1e-10, tolerance = 0.01)
  expect_equal(u$beta, R_K / (8 * pi) / R, tolerance = 1e-9)
  expect_equal(u$V0, Ic * Phi0 / (2 * pi) / E_C, tolerance = 1e-9)
  expect_equal(u$theta, kB * T / E_C, tolerance = 1e-12)
  expect_equal(u$t0, h / (2 * pi) / E_C, tolerance = 1e-9)
  expect_equal(u$ramp, c(1e-4, 3e-2) * u$t0 / Ic, tolerance = 1e-12)
})

test_that("jj_units() recycles like data.frame() and leaves ramp NA without a sweep", {
  u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = c(0.3, 0.6, 1.2))
  expect_equal(nrow(u), 3)
  expect_equal(u$theta[3] / u$theta[1], 4)
  expect_true(all(is.na(u$ramp)))
  expect_equal(length(unique(u$V0)), 1)
  u4 <- jj_units(R = c(100, 200), C = 1e-13, Ic = 1e-6, T = 1:4)
  expect_equal(u4$R, c(100, 200, 100, 200))
  expect_error(jj_units(R = c(100, 200), C = 1e-13, Ic = 1e-6, T = 1:3),
               "cannot be recycled .* divide the longest \\(3\\)",
               class = "statphysgpu_error")
})

test_that("print() shows the physical inputs with units and the normalised values", {
  Ic <- 0.748e-6
  u <- jj_units(R = 250, C = 88e-15, Ic = Ic, T = 1.2, sweep_rate = 200 * Ic)
  out <- paste(capture.output(print(u)), collapse = "\n")
  for (s in c("R \\[Ohm\\]", "C \\[F\\]", "Ic \\[A\\]", "T \\[K\\]",
              "dI/dt \\[A/s\\]", "V0", "beta", "theta", "t0 \\[s\\]",
              "ramp", "211", "4.108", "14.2", "1.808e-08")) {
    expect_match(out, s)
  }
  capture.output(res <- withVisible(print(u)))
  expect_false(res$visible)
  expect_identical(res$value, u)
})

test_that("jj_units() rejects bad inputs, naming the argument", {
  expect_error(jj_units(R = -1, C = 1e-13, Ic = 1e-6, T = 1),
               "`R` must be a numeric vector of positive finite numbers, not -1",
               class = "statphysgpu_error")
  expect_error(jj_units(R = 1, C = 0, Ic = 1e-6, T = 1), "`C` must be .* positive")
  expect_error(jj_units(R = 1, C = 1e-13, Ic = NA, T = 1), "`Ic` must be .* not NA")
  expect_error(jj_units(R = 1, C = 1e-13, Ic = 1e-6, T = Inf), "`T` must be .* not Inf")
  expect_error(jj_units(R = 1, C = 1e-13, Ic = 1e-6, T = "1"), "`T` must be")
  expect_error(jj_units(R = numeric(0), C = 1e-13, Ic = 1e-6, T = 1), "`R` must be")
  expect_error(jj_units(R = 1, C = 1e-13, Ic = 1e-6, T = 1, sweep_rate = -5),
               "`sweep_rate` must be .* positive")
  e <- tryCatch(jj_units(R = -1, C = 1, Ic = 1, T = 1), error = identity)
  expect_identical(conditionCall(e)[[1]], as.name("jj_units"))
})

test_that("jj_units() warns on values no junction has (SI units mixed up)", {
  # C = 88 means 88 farads: V0 would be 2e17
  expect_warning(u <- jj_units(R = 250, C = 88, Ic = 0.748e-6, T = 1.2),
                 "C = 88 F \\(if that is 88 fF, give 8.8e-14\\) is outside the range of real junctions")
  expect_gt(u$V0, 1e17)
  expect_warning(jj_units(R = 250, C = 88e-15, Ic = 748, T = 1200),
                 "Ic = 748 A .if that is 748 uA, give 0.000748.; T = 1200 K .if that is 1200 mK, give 1.2. are outside")
  expect_warning(jj_units(R = 1e9, C = 88e-15, Ic = 0.748e-6, T = 1.2), "R = 1e\\+09 Ohm is outside")
  expect_silent(jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2))
})
