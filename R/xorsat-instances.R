# Instances of 3-regular 3-XORSAT (the 3R3X challenge): the reader of the
# challenge's 2-body files, random planted instances, the 3-spin energy, and
# a GF(2) solver (Gaussian elimination) that finds a ground state.
#
# The instance object, shared with the solver engine xorsat_qg():
#   list(n = N (integer), eq = N x 3 integer matrix of 1-based logical spins,
#        each row increasing, J = integer +-1 of length N, name = string,
#        planted = logical of length N (TRUE = spin down) or NULL),
#   class "xorsat".  H = -sum_c J_c s_i s_j s_k; E_min = -N when satisfiable.

# The instance object from its parts (no checks: the callers build it).
new_xorsat <- function(eq, J, name, planted) {
  structure(list(n = nrow(eq), eq = eq, J = J, name = name,
                 planted = planted), class = "xorsat")
}

# Check that x is an instance object, field by field, before anything reads
# it (the engine's tables are built from it): class and list, `n` a whole
# number >= 3, `eq` an n x 3 numeric matrix of whole numbers in 1..n without
# NA, three distinct spins in each row, `J` n signs +-1, `name` a string,
# `planted` NULL or n logicals; with `regular`, every spin in exactly three
# equations (the engine needs it; the energy and the GF(2) solver do not).
# Errors name the field and the first bad element.
check_xorsat <- function(x, name = "instance", regular = TRUE, call = caller_call()) {
  fail <- function(fmt, ...) sp_abort(sprintf(fmt, ...), call = call)
  what <- function(v) {
    a <- if (typeof(v) == "integer") "an" else "a"
    if (is.null(v)) "NULL"
    else if (is.matrix(v)) sprintf("%s %s matrix of %d x %d", a, typeof(v), nrow(v), ncol(v))
    else if (is.atomic(v) && length(v) != 1) sprintf("%s %s vector of length %d", a, typeof(v), length(v))
    else describe(v)
  }
  if (!inherits(x, "xorsat")) {
    fail(paste0("`%s` must be a 3-XORSAT instance (an object of class \"xorsat\" from ",
                "read_xorsat() or xorsat_random()), not %s."), name, describe(x))
  }
  if (!is.list(x)) {
    fail(paste0("`%s` has class \"xorsat\" but is %s, not a list: it is not a 3-XORSAT ",
                "instance (read_xorsat(), xorsat_random())."), name, what(unclass(x)))
  }
  miss <- setdiff(c("n", "eq", "J", "name"), names(x))
  if (length(miss)) {
    fail(paste0("`%s` is a damaged \"xorsat\" object: it lacks %s (an instance has `n`, ",
                "`eq`, `J`, `name` and `planted`)."), name,
         paste0("`", miss, "`", collapse = ", "))
  }
  field <- function(f) sprintf("`%s$%s`", name, f)
  n <- x$n
  if (!(is.numeric(n) && length(n) == 1 && is.finite(n) && n == floor(n) && n >= 3 &&
        n <= 2^28)) {
    fail(paste0("%s must be a single whole number between 3 and 2^28 (the number of ",
                "spins and of equations), not %s."), field("n"), what(n))
  }
  eq <- x$eq
  if (!(is.matrix(eq) && (is.integer(eq) || is.double(eq)) && nrow(eq) == n &&
        ncol(eq) == 3)) {
    fail(paste0("%s must be a numeric matrix of n = %s rows (the equations) and 3 ",
                "columns (their spins), not %s."), field("eq"), fmt_num(n), what(eq))
  }
  bad <- is.na(eq) | !(eq >= 1 & eq <= n & eq == floor(eq))
  if (any(bad)) {
    w <- which(bad, arr.ind = TRUE)[1, ]
    fail("`%s$eq[%d, %d]` is %s; the spins of an equation are whole numbers in 1..%s.",
         name, w[[1]], w[[2]], format(eq[w[[1]], w[[2]]]), fmt_num(n))
  }
  dup <- eq[, 1] == eq[, 2] | eq[, 1] == eq[, 3] | eq[, 2] == eq[, 3]
  if (any(dup)) {
    r <- which(dup)[1]
    fail("`%s$eq[%d, ]` is (%s): an equation holds three distinct spins.", name, r,
         paste(eq[r, ], collapse = ", "))
  }
  if (regular) {
    deg <- tabulate(eq, n)
    if (any(deg != 3)) {
      i <- which(deg != 3)[1]
      fail(paste0("%s has spin %d in %d equation%s; in a 3-regular instance every spin ",
                  "is in exactly 3."), field("eq"), i, deg[i], if (deg[i] == 1) "" else "s")
    }
  }
  J <- x$J
  if (!(is.numeric(J) && is.null(dim(J)) && length(J) == n)) {
    fail("%s must be a numeric vector of n = %s signs (+1 or -1), not %s.", field("J"),
         fmt_num(n), what(J))
  }
  bad <- is.na(J) | !(J == 1 | J == -1)
  if (any(bad)) {
    i <- which(bad)[1]
    fail("`%s$J[%d]` is %s; each sign J must be +1 or -1.", name, i, format(J[i]))
  }
  if (!(is.character(x$name) && length(x$name) == 1 && !is.na(x$name))) {
    fail("%s must be a single string, not %s.", field("name"), what(x$name))
  }
  p <- x$planted
  if (!is.null(p) && !(is.logical(p) && is.null(dim(p)) && length(p) == n && !anyNA(p))) {
    fail(paste0("%s must be NULL or a logical vector of n = %s spins (TRUE = down) ",
                "without NA, not %s."), field("planted"), fmt_num(n), what(p))
  }
  x
}

#' Read a 3-regular 3-XORSAT instance of the 3R3X challenge
#'
#' Reads an instance of the 3-regular 3-XORSAT challenge (Kowalsky et al.
#' 2022) from its 2-body (quadratic) form, decodes the equations, checks the
#' file thoroughly and finds a satisfying assignment.
#'
#' @section The instance:
#' \eqn{N} Ising spins \eqn{s_i = \pm 1} and \eqn{N} equations (clauses)
#' \eqn{c}, each on three distinct spins, each spin in exactly three
#' equations (3-regular), with energy
#' \deqn{H = -\sum_c J_c\, s_{i_c} s_{j_c} s_{k_c},\qquad J_c = \pm 1.}
#' Equation \eqn{c} is satisfied when \eqn{J_c s_i s_j s_k = +1}; in bits
#' \eqn{x = 1} for a spin down (\eqn{s = -1}), when
#' \eqn{x_i \oplus x_j \oplus x_k = b_c} with \eqn{b_c = 1} for
#' \eqn{J_c = -1}. A planted instance has a ground state with every equation
#' satisfied, \eqn{E = -N}.
#'
#' @section The 2-body file format:
#' Lines `i j v` (whitespace separated; blank lines and lines starting with
#' `#` are skipped): `i == j` is a field \eqn{h_i}, otherwise a coupling
#' \eqn{K_{ij}} (each unordered pair at most once), of the energy
#' \deqn{H_2 = \sum_{i<j} K_{ij} s_i s_j + \sum_i h_i s_i}
#' on \eqn{n = 2N} spins: \eqn{1..N} are the logical spins, \eqn{N + c} is
#' the ancilla of equation \eqn{c}. Equation \eqn{c} with ancilla sign
#' \eqn{\sigma_c = \pm 1} and sign \eqn{f_c = \pm 1} contributes the gadget
#' \deqn{\frac{1}{2} (S_c + 2\sigma_c s_a + f_c)^2 - 4
#'   = P_c + 2\sigma_c S_c s_a + f_c S_c + 2 f_c\sigma_c s_a,}
#' with \eqn{S_c = s_i + s_j + s_k} and \eqn{P_c = s_i s_j + s_i s_k +
#' s_j s_k}. So the file holds, and `read_xorsat()` checks:
#' * each ancilla coupled to exactly three distinct logical spins, with
#'   couplings all equal to \eqn{2\sigma_c}, and no coupling between
#'   ancillas;
#' * the ancilla field \eqn{h_a = 2 f_c \sigma_c}, i.e. \eqn{\pm 2};
#' * the logical couplings \eqn{K_{ij}} = the number of equations holding both
#'   \eqn{i} and \eqn{j} (1 or 2 in the challenge files; listed when not 0);
#' * the logical fields \eqn{h_i = \sum_{c \ni i} f_c} (odd: \eqn{\pm 1} or
#'   \eqn{\pm 3});
#' * every logical spin in exactly three equations.
#'
#' Minimising over the ancilla, the gadget is \eqn{-4} exactly when
#' \eqn{S_c + f_c = \pm 2}, i.e. when \eqn{f_c s_i s_j s_k = -1}, and
#' \eqn{-2} otherwise (\eqn{S_c + f_c = 0} or \eqn{\pm 4}); so
#' \eqn{J_c = -f_c}, the minimum of \eqn{H_2} over the ancillas is
#' \eqn{H - 3N} (an unsatisfied equation costs 2 in both forms), and the
#' minimum of \eqn{H_2} is \eqn{-4N = -2n} (as in the challenge) at the
#' satisfying assignments, each lifted with the ancillas
#' \eqn{s_a = -\sigma_c (S_c + f_c)/2}.
#'
#' The number of spins \eqn{n} is taken from the file name when it holds
#' `_n<digits>` (as the challenge's `3r3x_2body_n<n>_s<seed>.txt`), else from
#' the largest index in the file.
#'
#' @param file Path of the 2-body file.
#' @return An object of class `"xorsat"`, a list with `n` (integer: \eqn{N},
#'   the number of logical spins and of equations), `eq` (integer matrix
#'   \eqn{N \times 3}: the 1-based logical spins of each equation, each row
#'   increasing, row \eqn{c} from ancilla \eqn{N + c}), `J` (integer vector
#'   of \eqn{\pm 1}), `name` (the file's base name without extension) and
#'   `planted` (a satisfying assignment as a logical vector, `TRUE` = spin
#'   down, found by Gaussian elimination over GF(2); `NULL` if the equations have no
#'   solution).
#' @references
#' Kowalsky, M., Albash, T., Hen, I. and Lidar, D. A. (2022) 3-regular
#'   three-XORSAT planted solutions benchmark of classical and quantum
#'   heuristic optimizers. *Quantum Science and Technology* 7, 025008 \doi{10.1088/2058-9565/ac4d1b}.
#' @seealso [xorsat_random()] for random planted instances,
#'   [xorsat_energy()], [tts_estimate()].
#' @examples
#' f <- system.file("extdata", "3r3x", "3r3x_2body_n32_s1.txt",
#'                  package = "statphysgpu")
#' x <- read_xorsat(f)
#' x
#' head(as.data.frame(x))
#' xorsat_energy(x, x$planted) # -N: every equation satisfied
#' @export
read_xorsat <- function(file) {
  call <- sys.call()
  if (!is.character(file) || length(file) != 1 || is.na(file)) {
    sp_abort(sprintf("`file` must be a single file name, not %s.", describe(file)),
             call = call)
  }
  if (dir.exists(file)) {
    sp_abort(sprintf("File check: \"%s\" is a directory, not a file: `file` must name a 2-body file.",
                     file), call = call)
  }
  if (!file.exists(file)) {
    sp_abort(sprintf("File check: \"%s\" does not exist.", file), call = call)
  }
  d <- read_2body(file, call)
  decode_2body(d, file, call)
}

# The lines of a 2-body file as a data frame i, j, v, line (the line number),
# with the syntax checks (three numeric fields, whole indices).
read_2body <- function(file, call) {
  lines <- readLines(file, warn = FALSE)
  keep <- !grepl("^\\s*(#.*)?$", lines)
  num <- which(keep)
  if (length(num) == 0) {
    sp_abort(sprintf("Syntax check: \"%s\" holds no data lines.", basename(file)),
             call = call)
  }
  fields <- strsplit(trimws(lines[num]), "[[:space:]]+")
  nf <- lengths(fields)
  if (any(nf != 3)) {
    b <- which(nf != 3)[1]
    sp_abort(sprintf(paste0(
      "Syntax check: line %d of \"%s\" has %d field%s, not 3 (`i j v`): \"%s\"."),
      num[b], basename(file), nf[b], if (nf[b] == 1) "" else "s",
      lines[num[b]]), call = call)
  }
  m <- matrix(unlist(fields), ncol = 3, byrow = TRUE)
  v <- suppressWarnings(matrix(as.numeric(m), ncol = 3))
  bad <- rowSums(!is.finite(v)) > 0
  if (any(bad)) {
    b <- which(bad)[1]
    sp_abort(sprintf(paste0(
      "Syntax check: line %d of \"%s\" has a field that is not a finite ",
      "number: \"%s\"."), num[b], basename(file), lines[num[b]]), call = call)
  }
  bad <- v[, 1] != floor(v[, 1]) | v[, 2] != floor(v[, 2])
  if (any(bad)) {
    b <- which(bad)[1]
    sp_abort(sprintf(paste0(
      "Syntax check: line %d of \"%s\" has a spin index that is not a whole ",
      "number: \"%s\"."), num[b], basename(file), lines[num[b]]), call = call)
  }
  data.frame(i = v[, 1], j = v[, 2], v = v[, 3], line = num)
}

decode_2body <- function(d, file, call) {
  base <- basename(file)
  fail <- function(check, fmt, ...) {
    sp_abort(sprintf(paste0("%s check (\"%s\"): ", fmt), check, base, ...),
             call = call)
  }
  at <- function(r) sprintf("line %d", d$line[r])
  # Number of spins: from the name (_n<digits>) or the largest index.
  from_name <- regmatches(base, regexec("_n([0-9]+)", base))[[1]]
  n2 <- if (length(from_name) == 2) as.numeric(from_name[2]) else max(d$i, d$j)
  if (n2 < 8 || n2 %% 2 != 0) {
    fail("Size", paste0("the number of spins n = %s must be even and at least 8 ",
                        "(n = 2N: N logical spins and N ancillas)."), format(n2))
  }
  N <- n2 / 2
  bad <- d$i < 1 | d$i > n2 | d$j < 1 | d$j > n2
  if (any(bad)) {
    b <- which(bad)[1]
    fail("Index", "%s has spin %s outside 1..%d (n = %d).", at(b),
         format(if (d$i[b] < 1 || d$i[b] > n2) d$i[b] else d$j[b]), n2, n2)
  }
  lo <- pmin(d$i, d$j); hi <- pmax(d$i, d$j)
  key <- lo * (n2 + 1) + hi
  dup <- duplicated(key)
  if (any(dup)) {
    b <- which(dup)[1]
    what <- if (lo[b] == hi[b]) sprintf("the field of spin %d", lo[b]) else
      sprintf("the coupling of spins %d and %d", lo[b], hi[b])
    fail("Duplicate", "%s repeats %s (first given on line %d).", at(b), what,
         d$line[match(key[b], key)])
  }
  field <- numeric(n2)
  is_field <- lo == hi
  field[lo[is_field]] <- d$v[is_field]
  cpl <- !is_field & d$v != 0
  ci <- lo[cpl]; cj <- hi[cpl]; cv <- d$v[cpl]; cline <- which(cpl)
  # Ancillas: exactly three couplings, to logical spins, all equal to 2 sigma.
  aa <- ci > N
  if (any(aa)) {
    b <- cline[which(aa)[1]]
    fail("Ancilla", "%s couples two ancillas, %d and %d.", at(b), lo[b], hi[b])
  }
  to_anc <- cj > N
  deg <- tabulate(cj[to_anc] - N, N)
  if (any(deg != 3)) {
    a <- which(deg != 3)[1]
    fail("Ancilla", "ancilla %d (equation %d) is coupled to %d logical spins, not 3.",
         N + a, a, deg[a])
  }
  ord <- order(cj[to_anc], ci[to_anc])
  anc_spin <- matrix(ci[to_anc][ord], ncol = 3, byrow = TRUE)
  anc_val <- matrix(cv[to_anc][ord], ncol = 3, byrow = TRUE)
  bad <- !(anc_val[, 1] == anc_val[, 2] & anc_val[, 2] == anc_val[, 3] &
             abs(anc_val[, 1]) == 2)
  if (any(bad)) {
    a <- which(bad)[1]
    fail("Ancilla", paste0("ancilla %d (equation %d) has couplings %s to spins ",
                           "%s; they must be equal, 2 sigma with sigma = +-1."),
         N + a, a, paste(as.character(anc_val[a, ]), collapse = ", "),
         paste(anc_spin[a, ], collapse = ", "))
  }
  sigma <- anc_val[, 1] / 2
  f <- field[N + seq_len(N)] / (2 * sigma)
  bad <- !(f %in% c(-1, 1))
  if (any(bad)) {
    a <- which(bad)[1]
    fail("Ancilla field", paste0("ancilla %d (equation %d) has field %s; with ",
                                 "couplings 2 sigma = %s it must be 2 f sigma = +-2."),
         N + a, a, format(field[N + a]), format(2 * sigma[a]))
  }
  # Regularity: every logical spin in exactly three equations.
  occ <- tabulate(anc_spin, N)
  if (any(occ != 3)) {
    i <- which(occ != 3)[1]
    fail("Regularity", "logical spin %d is in %d equations, not 3.", i, occ[i])
  }
  eq <- anc_spin # sorted within rows by the order() above
  storage.mode(eq) <- "integer"
  # Logical couplings: the number of equations holding the pair.
  pairs <- rbind(eq[, c(1, 2)], eq[, c(1, 3)], eq[, c(2, 3)])
  pkey <- pairs[, 1] * (n2 + 1) + pairs[, 2]
  want <- table(pkey)
  want_key <- as.numeric(names(want))
  ll <- !to_anc
  got_key <- ci[ll] * (n2 + 1) + cj[ll]
  got_val <- cv[ll]
  m <- match(got_key, want_key)
  bad <- is.na(m) | got_val != as.numeric(want)[pmax(m, 1)]
  if (any(bad)) {
    b <- which(bad)[1]
    r <- cline[ll][b]
    fail("Logical coupling", paste0("%s couples logical spins %d and %d with %s; ",
                                    "they share %d equation%s, so it must be %d."),
         at(r), lo[r], hi[r], format(d$v[r]), if (is.na(m[b])) 0L else as.integer(want[m[b]]),
         if (!is.na(m[b]) && want[m[b]] == 1) "" else "s",
         if (is.na(m[b])) 0L else as.integer(want[m[b]]))
  }
  missing <- setdiff(want_key, got_key)
  if (length(missing)) {
    k <- missing[1]
    i <- k %/% (n2 + 1); j <- k %% (n2 + 1)
    fail("Logical coupling", paste0("logical spins %d and %d share %d equation(s) ",
                                    "but the file has no coupling between them."),
         i, j, as.integer(want[match(k, want_key)]))
  }
  # Logical fields: the sum of f over the spin's equations.
  hf <- as.numeric(rowsum(rep(f, 3), as.vector(eq), reorder = TRUE))
  bad <- field[seq_len(N)] != hf
  if (any(bad)) {
    i <- which(bad)[1]
    fail("Logical field", paste0("logical spin %d has field %s; the signs f = %s ",
                                 "of its equations sum to %s."),
         i, format(field[i]),
         paste(as.character(f[row(eq)[eq == i]]), collapse = ", "), format(hf[i]))
  }
  x <- new_xorsat(eq, as.integer(-f), sub("\\.[^.]*$", "", base), NULL)
  sol <- xorsat_solve_gf2(x)
  if (!is.null(sol)) x$planted <- as.vector(sol) # without the "rank" attribute
  x
}

#' Random 3-regular 3-XORSAT instance with a planted solution
#'
#' Draws a 3-regular hypergraph on \eqn{N} spins with \eqn{N} equations by
#' the configuration model: three copies of each spin, shuffled and cut into
#' \eqn{N} triples. Triples with a repeated spin, and triples equal to an
#' earlier one, are repaired by swapping one of their copies with a copy at
#' a random position (keeping every spin in three equations) until the
#' hypergraph is simple. A random assignment is planted and each sign
#' \eqn{J_c = s_i s_j s_k} is chosen so that it satisfies every equation
#' (\eqn{E = -N}). Each round of repairs costs \eqn{O(N \log N)} (the
#' triples sorted to find the repeated ones) and a few rounds suffice: about
#' 1 s at \eqn{N = 10^6} and 10 s at \eqn{10^7}.
#'
#' The randomness is the package's Philox stream under the 64-bit key
#' `seed`, as for every simulator (see [philox]): the shuffle, the repairs
#' and the planted assignment draw from Philox purpose 40 of
#' `inst/cuda/sp_streams.h` (streams 0, 2, 3, ... and 1), on the CPU, so
#' the instance depends on `seed` and `N` only, on every machine, and R's
#' random number state is not touched. `seed = NULL` draws the key from
#' R's generator with [sp_seed()] (so `set.seed()` makes the call
#' reproducible) and records it in the instance's name.
#'
#' Earlier development versions drew the instance with R's Mersenne-Twister
#' under a 31-bit `seed`: the same `seed` now gives another instance (of the
#' same law). An instance of those versions is reproduced by running that
#' version; this one does not keep the old generator.
#'
#' @param N Number of spins and of equations, a whole number \eqn{\ge 4}.
#' @param seed The Philox key: a whole number in \eqn{[0, 2^{64})}, a
#'   hexadecimal string of up to 16 digits, or `NULL` to draw one from R's
#'   generator ([sp_seed()]).
#' @return An object of class `"xorsat"` (see [read_xorsat()]) with name
#'   `"random(N, seed)"` (the seed drawn when `seed = NULL`) and `planted`
#'   the planted assignment (`TRUE` = spin down).
#' @examples
#' x <- xorsat_random(100, seed = 1)
#' x
#' xorsat_energy(x, x$planted)
#' table(x$eq) # every spin in 3 equations
#' @export
xorsat_random <- function(N, seed = NULL) {
  call <- sys.call()
  N <- check_whole(N, "N", lo = 4, hi = 1e7, call = call)
  given <- seed
  seed <- resolve_seed(seed, call = call) # NULL: drawn with sp_seed()
  N <- as.integer(N)
  # Philox purpose 40 (SP_PURPOSE_XORSAT_INSTANCE) through the raw space
  # (draw offset = purpose 2^58 + 4 block), stream s
  draws <- function(n, stream, from = 0) {
    off <- u64_to_hex(c(from, XORSAT_INSTANCE_PURPOSE * 2^26))
    philox_draw(0L, n, u64_to_hex(seed), stream, off, "double", "cpu", NULL, call)
  }
  # a uniform whole number in 1..k for each 32-bit draw u (k <= 3e7: exact)
  pick <- function(u, k) pmin(floor(u * k / 2^32), k - 1) + 1
  # the configuration model: 3N copies in a random order, by 53-bit keys
  # (two draws a copy; ties, of probability < 0.1 at N = 1e7, keep their
  # order), drawn in slices to bound the memory
  nc <- 3L * N
  key <- numeric(nc)
  slice <- 2^22
  for (a in seq(1, nc, by = slice)) {
    b <- min(nc, a + slice - 1)
    u <- draws(2 * (b - a + 1), 0, 2 * (a - 1))
    key[a:b] <- u[c(TRUE, FALSE)] * 2^21 + floor(u[c(FALSE, TRUE)] / 2^11)
  }
  stubs <- rep(seq_len(N), 3)[order(key, method = "radix")]
  rm(key)
  m <- matrix(stubs, ncol = 3, byrow = TRUE)
  tries <- 0
  repeat {
    ms <- xorsat_sort_rows(m)
    bad <- xorsat_bad_rows(ms, N)
    if (!any(bad)) break
    tries <- tries + 1
    if (tries > 1000) {
      sp_abort(sprintf("Could not draw a simple 3-regular hypergraph on N = %d spins.",
                       N), call = call)
    }
    rows <- which(bad)
    u <- draws(2 * length(rows), 1 + tries) # round t: stream t + 1
    ks <- pick(u[c(TRUE, FALSE)], 3)
    qs <- pick(u[c(FALSE, TRUE)], nc) # any copy, by its linear index
    for (i in seq_along(rows)) {
      r <- rows[i]; k <- ks[i]; q <- qs[i]
      v <- m[r, k]; m[r, k] <- m[q]; m[q] <- v
    }
  }
  planted <- draws(N, 1) >= 2^31
  s <- ifelse(planted, -1L, 1L)
  J <- s[ms[, 1]] * s[ms[, 2]] * s[ms[, 3]]
  shown <- if (is.character(given)) given else u64_to_decimal(seed)
  new_xorsat(ms, as.integer(J), sprintf("random(%d, %s)", N, shown), planted)
}

# The Philox purpose of xorsat_random() (SP_PURPOSE_XORSAT_INSTANCE of
# inst/cuda/sp_streams.h).
XORSAT_INSTANCE_PURPOSE <- 40

# A 64-bit c(lo, hi) pair in decimal: exact below 2^53, else its hex form.
u64_to_decimal <- function(p) {
  v <- u64_to_double(p)
  if (v < 2^53) format(v, scientific = FALSE) else u64_to_hex(p)
}

# The rows of an integer matrix of three columns, each sorted increasing
# (vectorised: the smallest, the middle and the largest of each row).
xorsat_sort_rows <- function(m) {
  lo <- pmin(m[, 1], m[, 2], m[, 3])
  hi <- pmax(m[, 1], m[, 2], m[, 3])
  out <- cbind(lo, m[, 1] + m[, 2] + m[, 3] - lo - hi, hi)
  dimnames(out) <- NULL
  storage.mode(out) <- "integer"
  out
}

# The rows of a row-sorted matrix `ms` of spins in 1..N that a simple
# hypergraph cannot have: a spin twice in the row, or the same triple as an
# earlier row (as duplicated(): the first of equal rows is not marked).
# O(N log N): the triples ordered by two exact keys (lo (N + 1) + mid is
# below 2^53 for N <= 1e7), then equal neighbours.
xorsat_bad_rows <- function(ms, N) {
  bad <- ms[, 1] == ms[, 2] | ms[, 2] == ms[, 3]
  k1 <- as.double(ms[, 1]) * (N + 1) + ms[, 2]
  k2 <- ms[, 3]
  o <- order(k1, k2, method = "radix") # stable: equal rows in their order
  n <- length(o)
  if (n > 1) {
    a <- o[-n]
    b <- o[-1]
    same <- k1[a] == k1[b] & k2[a] == k2[b]
    bad[b[same]] <- TRUE
  }
  bad
}

# Spins as a numeric N x R matrix of +-1: from a logical (TRUE = down) or
# +-1 numeric vector of length N, or a matrix with N rows.
as_spin_matrix <- function(spins, N, name, call) {
  m <- if (is.matrix(spins)) spins else matrix(spins, ncol = 1)
  ok <- (is.logical(m) || is.numeric(m)) && nrow(m) == N && ncol(m) >= 1 &&
    !anyNA(m) && length(spins) > 0
  if (ok && is.numeric(m)) ok <- all(m == 1 | m == -1)
  if (!ok) {
    sp_abort(sprintf(paste0(
      "`%s` must be a logical vector (TRUE = spin down) or a vector of +1/-1 ",
      "of length N = %d, or a matrix with N rows (one configuration per ",
      "column), without NA; not %s."), name, N,
      if (is.matrix(spins)) sprintf("a %s matrix of dimensions %d x %d",
                                    typeof(spins), nrow(spins), ncol(spins))
      else if ((is.logical(spins) || is.numeric(spins)) && length(spins) != N)
        sprintf("a vector of length %d", length(spins))
      else if (is.numeric(spins) && !anyNA(spins)) "numbers other than +1 and -1"
      else describe(spins)), call = call)
  }
  if (is.logical(m)) m <- ifelse(m, -1, 1) # keeps the dimensions
  storage.mode(m) <- "double"
  m
}

#' Energy of 3-XORSAT configurations
#'
#' \eqn{E = -\sum_c J_c s_i s_j s_k}, between \eqn{-N} (every equation
#' satisfied) and \eqn{N}; \eqn{(E + N)/2} is the number of unsatisfied
#' equations.
#'
#' @param instance A `"xorsat"` object ([read_xorsat()], [xorsat_random()]).
#' @param spins A configuration: a logical vector of length \eqn{N} with
#'   `TRUE` for a spin down (\eqn{s = -1}), as `instance$planted`, or a
#'   numeric vector of \eqn{\pm 1}; or a matrix with \eqn{N} rows holding one
#'   configuration per column.
#' @return The energies, one per configuration (a numeric vector).
#' @examples
#' x <- xorsat_random(50, seed = 2)
#' xorsat_energy(x, x$planted)
#' xorsat_energy(x, matrix(sample(c(-1, 1), 50 * 4, TRUE), 50)) # 4 random states
#' @export
xorsat_energy <- function(instance, spins) {
  call <- sys.call()
  instance <- check_xorsat(instance, regular = FALSE, call = call)
  s <- as_spin_matrix(spins, instance$n, "spins", call)
  eq <- instance$eq
  p <- s[eq[, 1], , drop = FALSE] * s[eq[, 2], , drop = FALSE] *
    s[eq[, 3], , drop = FALSE]
  -colSums(instance$J * p)
}

#' Ground state of a 3-XORSAT instance by Gaussian elimination
#'
#' Solves the linear system \eqn{x_i \oplus x_j \oplus x_k = b_c} over GF(2)
#' (\eqn{x = 1} for a spin down, \eqn{b_c = 1} for \eqn{J_c = -1}) by
#' Gauss-Jordan elimination, the free variables set to 0. Cost
#' \eqn{O(N^3)} bit operations, done in R on logical matrices: well under a
#' second for the challenge sizes (\eqn{N \le 192}) and a few seconds at
#' \eqn{N = 1000}.
#'
#' @param instance A `"xorsat"` object.
#' @return A satisfying assignment (logical, `TRUE` = spin down), with
#'   attribute `"rank"` (the rank of the system; \eqn{2^{N - rank}}
#'   assignments satisfy it), or `NULL` if the equations are inconsistent.
#' @keywords internal
#' @noRd
xorsat_solve_gf2 <- function(instance) {
  instance <- check_xorsat(instance, regular = FALSE, call = sys.call())
  N <- instance$n
  # augmented matrix [A | b]; a spin twice in an equation would cancel
  cnt <- matrix(0L, N, N)
  for (k in 1:3) {
    idx <- cbind(seq_len(N), instance$eq[, k])
    cnt[idx] <- cnt[idx] + 1L
  }
  A <- cbind(cnt %% 2L == 1L, instance$J < 0)
  pivots <- integer(0)
  r <- 0L
  for (col in seq_len(N)) {
    cand <- which(A[(r + 1L):N, col]) + r
    if (length(cand) == 0) next
    r <- r + 1L
    p <- cand[1]
    if (p != r) { tmp <- A[r, ]; A[r, ] <- A[p, ]; A[p, ] <- tmp }
    rows <- which(A[, col])
    rows <- rows[rows != r]
    if (length(rows)) {
      A[rows, ] <- A[rows, , drop = FALSE] != rep(A[r, ], each = length(rows))
    }
    pivots <- c(pivots, col)
    if (r == N) break
  }
  if (r < N && any(A[(r + 1L):N, N + 1])) return(NULL)
  x <- logical(N)
  x[pivots] <- A[seq_len(r), N + 1]
  attr(x, "rank") <- r
  x
}

#' @export
print.xorsat <- function(x, ...) {
  cat(sprintf("3-regular 3-XORSAT instance \"%s\"\n", x$name))
  cat(sprintf("  N = %d spins, %d equations (H = -sum J s_i s_j s_k; %d with J = -1)\n",
              x$n, nrow(x$eq), sum(x$J < 0)))
  if (is.null(x$planted)) {
    cat("  satisfying assignment: not known\n")
  } else {
    cat(sprintf("  satisfiable: yes, ground-state energy -%d (a satisfying assignment is in $planted)\n",
                x$n))
  }
  invisible(x)
}

#' @export
as.data.frame.xorsat <- function(x, row.names = NULL, optional = FALSE, ...) {
  data.frame(i = x$eq[, 1], j = x$eq[, 2], k = x$eq[, 3], J = x$J,
             row.names = row.names)
}
