# Limits R takes from the C headers that define them (src/r_constants.c),
# so that R cannot drift from C.

test_that("xorsat_limits() are the engines' limits, and xorsat_qg() applies them", {
  lim <- statphysgpu:::xorsat_limits()
  expect_named(lim, c("gpu_max_n", "word_clones", "max_words", "set_max", "p16_one",
                      "max_conditions"))
  expect_true(all(lim == round(lim) & lim > 0))
  # a word of multi-spin coding is 32 bits; a run has at most 2^16 words
  # (SP_XORSAT_WORD_BITS); the sets fill the 32 lanes of a warp
  expect_identical(unname(lim[c("word_clones", "max_words", "set_max")]), c(32, 2^16, 32))
  wc <- lim[["word_clones"]]
  inst <- xorsat_random(40, seed = 2)
  expect_error(xorsat_qg(inst, clones = wc + 1, seed = 1, backend = "cpu"),
               sprintf("multiple of %d \\(clones are coded %d to a word\\)", wc, wc),
               class = "statphysgpu_error")
  expect_error(xorsat_qg(inst, clones = wc * (lim[["max_words"]] + 1), seed = 1,
                         backend = "cpu"), "`clones`", class = "statphysgpu_error")
  # a sweep of p1 over more conditions than a run's streams hold
  expect_error(xorsat_qg(inst, p1 = seq(0.01, 0.5, length.out = lim[["max_conditions"]] + 1),
                         clones = wc, seed = 1, backend = "cpu"),
               sprintf("at most %d", lim[["max_conditions"]]), class = "statphysgpu_error")
  # the colouring's sets hold at most set_max spins (and fill them)
  tab <- statphysgpu:::xorsat_tables(xorsat_random(240, seed = 1))
  expect_lte(max(diff(tab$sets)), lim[["set_max"]])
  expect_identical(max(diff(tab$sets)), as.integer(lim[["set_max"]]))
})

test_that("per-clone p1 is rounded as sp_xorsat_p16 rounds it", {
  det <- function(p1) statphysgpu:::xorsat_p1_deterministic(p1, TRUE)
  one <- statphysgpu:::xorsat_limits()[["p16_one"]]
  # thr = floor(p1 2^32); p16 = round(thr / 2^32 one) (halves up): p1 just
  # below half a unit rounds to 0 (deterministic), half a unit to 1; just
  # below one less half a unit rounds to one - 1, from it to one
  half <- 0.5 / one
  expect_true(det(half - 2^-32))
  expect_false(det(half))
  expect_false(det(1 - half - 2^-32))
  expect_true(det(1 - half))
  expect_false(statphysgpu:::xorsat_p1_deterministic(half, FALSE))
})
