# Pair and edge terms: a reciprocal (1 / b, b^-k) written as SP_PRCP
# (inst/cuda/sde_prelude.h): the hardware's rcp.approx.ftz on the GPU in
# single precision with the fast math, the quotient everywhere else -- the
# CPU's numbers are those of 1 / b (issue 50).

test_that("1 / b and b^-k in pair and edge terms become SP_PRCP; other quotients stay SP_PDIV", {
  m <- sde_model(drift = list(x = ~ -x + pairs(1 / (1 + (x[j] - x)^2)),
                              y = ~ -y + pairs((1 + (y[j] - y)^2)^-1) + edges((1 + (x[j] - y)^2)^-2)),
                 name = "rcp-forms")
  code <- strsplit(m$code, "\n")[[1]]
  pair <- grep("acc\\[[0-9]\\] \\+=", code, value = TRUE)
  expect_length(pair, 3)
  for (p in pair) {
    expect_match(p, "SP_PRCP(", fixed = TRUE)
    expect_false(grepl("SP_PDIV", p))
  }
  g <- sde_model(drift = list(x = ~ pairs(2 / (1 + (x[j] - x)^2))), name = "rcp-two")
  pair <- grep("acc\\[0\\] \\+=", strsplit(g$code, "\n")[[1]], value = TRUE)
  expect_match(pair, "SP_PDIV(SP_R(2.0), ", fixed = TRUE)
  expect_false(grepl("SP_PRCP", pair))
  # outside pairs a quotient stays a quotient
  expect_false(any(grepl("SP_PRCP", grep("acc\\[", code, value = TRUE, invert = TRUE))))
})

test_that("CPU: a pair term's 1 / b and b^-1 give the numbers of u / b with u = 1, bit for bit", {
  skip_if_no_cc()
  one <- sde_model(drift = list(x = ~ -x + 1 / n * pairs(1 / (1 + (x[j] - x)^2)),
                                y = ~ -y + 1 / n * pairs((1 + (y[j] - x)^2)^-1)),
                   noise = list(x = ~ s, y = ~ s), params = c(s = 0.3),
                   observe = list(mx = ~ mean(x), my = ~ mean(y)), name = "rcp-one")
  par <- sde_model(drift = list(x = ~ -x + 1 / n * pairs(u / (1 + (x[j] - x)^2)),
                                y = ~ -y + 1 / n * pairs(u / (1 + (y[j] - x)^2))),
                   noise = list(x = ~ s, y = ~ s), params = c(s = 0.3, u = 1),
                   observe = list(mx = ~ mean(x), my = ~ mean(y)), name = "rcp-param")
  expect_match(one$code, "SP_PRCP", fixed = TRUE)
  expect_false(grepl("SP_PRCP", par$code, fixed = TRUE))
  run <- function(m, prec) {
    sde_run(m, 2, n = 40, init = list(x = ~ rnorm(0, 1), y = ~ rnorm(0, 1)), dt = 0.01,
            t_max = 0.2, method = "srk2", output = "records", record_every = 10, seed = 5,
            backend = "cpu", precision = prec, progress = FALSE)
  }
  for (prec in c("double", "single")) {
    a <- run(one, prec)
    b <- run(par, prec)
    expect_identical(attr(a, "final"), attr(b, "final"), label = prec)
    expect_identical(a$mx, b$mx, label = prec)
  }
})
