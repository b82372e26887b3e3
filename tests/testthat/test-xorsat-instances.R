# read_xorsat(), xorsat_random(), xorsat_energy() and the GF(2) solver.

xor_dir <- system.file("extdata", "3r3x", package = "statphysgpu")
xor_files <- list.files(xor_dir, pattern = "^3r3x_2body_.*\\.txt$", full.names = TRUE)

# Energy of the 2-body form of a file at the assignment `x` (TRUE = down)
# of the logical spins of the decoded instance, each ancilla set to minimise
# its gadget (S + 2 sigma s_a + f)^2 / 2 - 4: s_a = -sigma sign(S + f)
# (either value when S + f = 0), with sigma = half the ancilla's coupling and
# f = -J.  A satisfied equation gives -4 (S + f = +-2), an unsatisfied one -2.
lifted_2body_energy <- function(file, inst, x) {
  d <- read.table(file, col.names = c("i", "j", "v"))
  N <- inst$n
  s <- ifelse(x, -1, 1)
  S <- s[inst$eq[, 1]] + s[inst$eq[, 2]] + s[inst$eq[, 3]]
  anc <- d$j > N & d$i != d$j
  sigma <- tapply(d$v[anc], d$j[anc], function(v) v[1] / 2)
  sa <- -as.numeric(sigma) * ifelse(S - inst$J >= 0, 1, -1)
  ss <- c(s, sa)
  sum(d$v * ifelse(d$i == d$j, ss[d$i], ss[d$i] * ss[d$j]))
}

# Write lines to a temporary file named like a challenge file.
temp_instance <- function(lines, n = 16) {
  f <- file.path(tempdir(), sprintf("3r3x_2body_n%d_bad.txt", n))
  writeLines(lines, f)
  f
}

test_that("the shipped challenge files decode to 3-regular instances with E0 = -N and 2-body minimum -2n", {
  expect_length(xor_files, 12)
  for (f in xor_files) {
    x <- read_xorsat(f)
    n2 <- as.numeric(sub(".*_n([0-9]+)_.*", "\\1", basename(f)))
    N <- n2 / 2
    expect_s3_class(x, "xorsat")
    expect_identical(x$n, as.integer(N))
    expect_true(is.integer(x$eq) && identical(dim(x$eq), c(x$n, 3L)))
    expect_true(all(x$eq[, 1] < x$eq[, 2] & x$eq[, 2] < x$eq[, 3]))
    expect_true(all(tabulate(x$eq, N) == 3))
    expect_true(is.integer(x$J) && all(abs(x$J) == 1))
    expect_identical(x$name, sub("\\.txt$", "", basename(f)))
    expect_true(is.logical(x$planted) && length(x$planted) == N && is.null(attributes(x$planted)))
    expect_equal(xorsat_energy(x, x$planted), -N)
    expect_equal(lifted_2body_energy(f, x, x$planted), -2 * n2)
    # the GF(2) system has full rank: the satisfying assignment is unique
    expect_identical(attr(statphysgpu:::xorsat_solve_gf2(x), "rank"), x$n)
  }
})

test_that("n = 16, seed 1 decodes to the equations read off by hand", {
  x <- read_xorsat(file.path(xor_dir, "3r3x_2body_n16_s1.txt"))
  # ancilla 13 (equation 5): couplings -2 to 1, 2, 7 (sigma = -1), field 2
  # (f = 2 / (2 sigma) = -1), so J = -f = +1
  expect_equal(x$eq[5, ], c(1L, 2L, 7L))
  expect_identical(x$J[5], 1L)
  df <- as.data.frame(x)
  expect_named(df, c("i", "j", "k", "J"))
  expect_equal(nrow(df), 8)
  expect_equal(df$J, x$J)
  expect_output(print(x), "N = 8 spins, 8 equations")
  expect_output(print(x), "satisfiable: yes")
})

test_that("an unsatisfied equation costs 2 in both forms", {
  f <- file.path(xor_dir, "3r3x_2body_n32_s2.txt")
  x <- read_xorsat(f)
  set.seed(5)
  for (k in 1:3) {
    s <- sample(c(TRUE, FALSE), x$n, TRUE)
    e3 <- xorsat_energy(x, s)
    unsat <- (e3 + x$n) / 2
    expect_gt(unsat, 0)
    expect_equal(lifted_2body_energy(f, x, s), -2 * 32 + 2 * unsat)
  }
})

test_that("xorsat_energy() takes logical, +-1 and matrix configurations", {
  x <- xorsat_random(40, seed = 3)
  s <- ifelse(x$planted, -1, 1)
  expect_equal(xorsat_energy(x, s), -40)
  m <- cbind(x$planted, !x$planted, rep(FALSE, 40))
  e <- xorsat_energy(x, m)
  expect_length(e, 3)
  expect_equal(e[1], -40)
  # flipping every spin flips every product: E -> +N
  expect_equal(e[2], 40)
  expect_equal(e[3], -sum(x$J))
  expect_equal(xorsat_energy(x, ifelse(m, -1, 1)), e)
  # one flipped spin unsatisfies its three equations
  y <- x$planted; y[7] <- !y[7]
  expect_equal(xorsat_energy(x, y), -40 + 2 * 3)
  expect_error(xorsat_energy(x, x$planted[-1]), "length N = 40, .* not a vector of length 39",
               class = "statphysgpu_error")
  expect_error(xorsat_energy(x, rep(0, 40)), "numbers other than \\+1 and -1")
  expect_error(xorsat_energy(x, c(NA, x$planted[-1])), "without NA")
  expect_error(xorsat_energy(x, matrix(TRUE, 39, 2)), "dimensions 39 x 2")
  expect_error(xorsat_energy(list(n = 3), TRUE), "must be a 3-XORSAT instance")
})

test_that("xorsat_random() draws simple 3-regular planted instances, reproducibly", {
  for (N in c(4, 5, 17, 200)) {
    x <- xorsat_random(N, seed = N)
    expect_s3_class(x, "xorsat")
    expect_identical(x$n, as.integer(N))
    expect_true(is.integer(x$eq) && is.integer(x$J))
    expect_true(all(tabulate(x$eq, N) == 3))
    expect_true(all(x$eq[, 1] < x$eq[, 2] & x$eq[, 2] < x$eq[, 3]))
    expect_false(anyDuplicated(x$eq) > 0)
    expect_equal(xorsat_energy(x, x$planted), -N)
    expect_identical(x$name, sprintf("random(%d, %d)", N, N))
    # the GF(2) solver finds a (possibly other) ground state
    g <- statphysgpu:::xorsat_solve_gf2(x)
    expect_equal(xorsat_energy(x, as.vector(g)), -N)
  }
  expect_identical(xorsat_random(50, seed = 9), xorsat_random(50, seed = 9))
  expect_false(identical(xorsat_random(50, seed = 9)$eq, xorsat_random(50, seed = 10)$eq))
  # the caller's random stream is left alone by a seeded call
  set.seed(1); a <- runif(2)
  set.seed(1); xorsat_random(30, seed = 4); b <- runif(2)
  expect_identical(a, b)
  # without a seed it follows set.seed()
  set.seed(2); u <- xorsat_random(30)
  set.seed(2); v <- xorsat_random(30)
  expect_identical(u, v)
  set.seed(2); s <- sp_seed()
  expect_identical(u$name, sprintf("random(30, %s)", format(s, scientific = FALSE)))
  expect_identical(u, xorsat_random(30, seed = s)) # the drawn key, recorded in the name
  expect_output(print(u), "N = 30 spins")
  expect_error(xorsat_random(3), "`N` must be a single whole number between 4")
  expect_error(xorsat_random(10, seed = -1), "`seed` must be a single whole number")
})

test_that("xorsat_random() finds repeated spins and triples exactly, at any N (issue 21, item 6)", {
  # the repair test of every round: a spin twice in a row, or a row equal to
  # an earlier one (the first of equal rows is kept), as duplicated() does
  bad_rows <- statphysgpu:::xorsat_bad_rows
  ms <- rbind(c(1L, 2L, 3L), c(1L, 1L, 4L), c(1L, 2L, 3L), c(2L, 3L, 4L), c(2L, 3L, 3L),
              c(1L, 2L, 3L))
  expect_identical(bad_rows(ms, 4L), c(FALSE, TRUE, TRUE, FALSE, TRUE, TRUE))
  expect_identical(bad_rows(ms, 4L), ms[, 1] == ms[, 2] | ms[, 2] == ms[, 3] |
                     duplicated(ms[, 1] * 25 + ms[, 2] * 5 + ms[, 3]))
  # at N = 1e7 the key i (N + 1)^2 + j (N + 1) + k of the old code was not
  # exact in a double (about 1e21, spacing 131072): these two distinct
  # triples had one key, a false duplicate; now they are told apart
  N <- 1e7
  big <- rbind(c(N - 4, N - 3, N - 2), c(N - 4, N - 3, N - 1))
  storage.mode(big) <- "integer"
  expect_identical(bad_rows(big, N), c(FALSE, FALSE))
  expect_identical(bad_rows(big[c(1, 1), ], N), c(FALSE, TRUE))
  # the rows sorted as apply(m, 1, sort) did
  set.seed(4)
  m <- matrix(sample.int(50, 300, replace = TRUE), ncol = 3)
  expect_identical(statphysgpu:::xorsat_sort_rows(m), t(apply(m, 1, sort)))
  # a large instance (O(N log N): 0.05 s at N = 1e5, where the old code took
  # 4 s) is a simple 3-regular planted instance
  x <- xorsat_random(1e5, seed = 3)
  expect_true(all(tabulate(x$eq, 1e5) == 3))
  expect_true(all(x$eq[, 1] < x$eq[, 2] & x$eq[, 2] < x$eq[, 3]))
  expect_false(any(bad_rows(x$eq, 1e5)))
  expect_equal(xorsat_energy(x, x$planted), -1e5)
})

test_that("the GF(2) solver finds rank-deficient solutions and returns NULL for inconsistent equations", {
  # the four triples of {1, 2, 3, 4}: full rank over GF(2)
  x <- xorsat_random(4, seed = 1)
  expect_identical(attr(statphysgpu:::xorsat_solve_gf2(x), "rank"), 4L)
  # a repeated equation (not 3-regular: the solver does not need it)
  eq <- rbind(c(1L, 2L, 3L), c(1L, 2L, 3L), c(2L, 3L, 4L), c(1L, 3L, 4L))
  y <- statphysgpu:::new_xorsat(eq, c(1L, 1L, -1L, 1L), "hand", NULL)
  g <- statphysgpu:::xorsat_solve_gf2(y)
  expect_identical(attr(g, "rank"), 3L)
  expect_equal(xorsat_energy(y, as.vector(g)), -4)
  y$J[2] <- -1L # the repeated equation now contradicts itself
  expect_null(statphysgpu:::xorsat_solve_gf2(y))
})

test_that("read_xorsat() reports malformed files by check and line", {
  good <- readLines(file.path(xor_dir, "3r3x_2body_n16_s1.txt"))
  expect_error(read_xorsat(file.path(tempdir(), "no-such-file.txt")),
               "File check: .* does not exist", class = "statphysgpu_error")
  expect_error(read_xorsat(3), "`file` must be a single file name")
  # a directory is named as one (issue 21, item 8)
  expect_error(read_xorsat(xor_dir), "File check: .* is a directory, not a file",
               class = "statphysgpu_error")
  expect_error(read_xorsat(paste0(tempdir(), "/")), "is a directory")
  # a missing column on line 20
  bad <- good; bad[20] <- "1 3"
  expect_error(read_xorsat(temp_instance(bad)),
               "Syntax check: line 20 of .* has 2 fields, not 3")
  bad <- good; bad[5] <- "5 5 x"
  expect_error(read_xorsat(temp_instance(bad)), "Syntax check: line 5 .* not a finite number")
  bad <- good; bad[5] <- "5.5 5 1"
  expect_error(read_xorsat(temp_instance(bad)), "Syntax check: line 5 .* not a whole number")
  # index outside 1..2N
  bad <- c(good, "3 17 1")
  expect_error(read_xorsat(temp_instance(bad)), "Index check .* line 59 has spin 17 outside 1..16")
  bad <- c(good, "3 1 1")
  expect_error(read_xorsat(temp_instance(bad)), "Duplicate check .* line 59 repeats the coupling of spins 1 and 3 \\(first given on line 18\\)")
  # a spin in two ancillas' lists moved: spin 1 rewired from equation 5 (ancilla
  # 13) into ancilla 14's list -> ancilla 14 has four spins
  bad <- sub("^1\t13\t-2$", "1\t14\t2", good)
  expect_error(read_xorsat(temp_instance(bad)),
               "Ancilla check .* ancilla 13 \\(equation 5\\) is coupled to 2 logical spins, not 3")
  # a spin in two equations only (spin 1 of equation 5 replaced by spin 3,
  # which is then in four): regularity
  bad <- good; bad <- bad[bad != "1\t13\t-2"]; bad <- c(bad, "3\t13\t-2")
  expect_error(read_xorsat(temp_instance(bad)), "Regularity check .* logical spin 1 is in 2 equations, not 3")
  # a bad ancilla: couplings of unequal sign, of wrong size, field inconsistent
  bad <- sub("^1\t13\t-2$", "1\t13\t2", good)
  expect_error(read_xorsat(temp_instance(bad)),
               "Ancilla check .* ancilla 13 \\(equation 5\\) has couplings 2, -2, -2 to spins 1, 2, 7")
  bad <- good; bad[13] <- "13\t13\t4"
  expect_error(read_xorsat(temp_instance(bad)),
               "Ancilla field check .* ancilla 13 \\(equation 5\\) has field 4")
  bad <- c(good, "9\t10\t1")
  expect_error(read_xorsat(temp_instance(bad)), "Ancilla check .* couples two ancillas, 9 and 10")
  # logical couplings and fields
  bad <- sub("^1\t2\t2$", "1\t2\t1", good)
  expect_error(read_xorsat(temp_instance(bad)),
               "Logical coupling check .* couples logical spins 1 and 2 with 1; they share 2 equations, so it must be 2")
  bad <- good[good != "1\t3\t1"]
  expect_error(read_xorsat(temp_instance(bad)),
               "Logical coupling check .* spins 1 and 3 share 1 equation\\(s\\) but the file has no coupling")
  bad <- c(good, "1\t8\t1")
  expect_error(read_xorsat(temp_instance(bad)), "logical spins 1 and 8 with 1; they share 0 equations")
  bad <- good; bad[1] <- "1\t1\t1"
  expect_error(read_xorsat(temp_instance(bad)),
               "Logical field check .* logical spin 1 has field 1; the signs f = .* sum to -1")
  # odd number of spins in the name
  expect_error(read_xorsat(temp_instance(good, n = 15)), "Size check .* must be even")
})
