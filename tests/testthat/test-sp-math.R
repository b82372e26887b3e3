# The CPU's double sine and cosine (inst/cuda/sp_math.h, sp_sincos_d; the
# GPU's are CUDA's own): the quadrant chosen by bits (issue 50), so that
# GCC vectorises a model's loop over paths that calls them, with the
# numbers of the former selects bit for bit.

# the bytes of doubles: identical NaN payloads and signs, and -0 apart from 0
sp_math_bits <- function(x) writeBin(as.double(x), raw(), endian = "little")

test_that("the double sine and cosine by bits give the quadrant selects' numbers bit for bit", {
  sel <- function(x) .Call(statphysgpu:::C_sp_r_sincos_d_selects, x)
  now <- function(x) cbind(.Call(statphysgpu:::C_sp_r_math, 0L, x, 0L),
                           .Call(statphysgpu:::C_sp_r_math, 1L, x, 0L))
  # the doubles k either side of x (in x's binade: exact)
  near <- function(x, k = 4) {
    u <- 2^(floor(log2(abs(x))) - 52)
    as.vector(outer(x, -k:k * 1, function(a, j) a + j * u[match(a, x)]))
  }
  set.seed(50)
  k <- c(-2000:2000, 2^(20:49), -2^(20:49))
  x <- c(
    0, -0, 2^-1074, -2^-1074, 2^-1022, 1e-300, -1e-300, 1e-8, -1e-8,
    near(k[k != 0] * pi / 2),          # multiples of pi/2: the quadrants' edges
    near((k + 0.5) * pi / 2),          # odd multiples of pi/4: where n changes
    stats::runif(2e4, -50, 50), stats::runif(2e4, -2^20, 2^20),
    stats::runif(2e3, -2^50, 2^50),
    2^(50:60), -2^(50:60), 1e15, 1e16, 1e22, 1e300, -1e300,
    .Machine$double.xmax, -.Machine$double.xmax,
    NaN, -NaN, NA_real_, Inf, -Inf)
  expect_gt(length(x), 1e5)
  a <- now(x)
  b <- sel(x)
  expect_identical(dim(a), dim(b))
  expect_identical(sp_math_bits(a), sp_math_bits(b))
  # every quadrant met, each sign of each (the selects' four cases)
  small <- abs(x) <= 50 & is.finite(x)
  q <- paste(sign(a[small, 1]), sign(a[small, 2]))
  expect_true(all(c("1 1", "1 -1", "-1 -1", "-1 1") %in% q))
  # and the values are the sine and cosine (as test-philox.R bounds them)
  expect_lt(max(abs(a[small, 1] - sin(x[small]))) / 2^-53, 4)
  expect_lt(max(abs(a[small, 2] - cos(x[small]))) / 2^-53, 4)
  expect_true(all(is.na(a[!is.finite(x), ]))) # NaN (NA keeps its payload)
})

test_that("a model's sin() and cos() in double leave the CPU's loop over paths vectorised", {
  # GCC's vectoriser report (-fopt-info-vec-optimized) on the vector
  # object of a model with sin() and cos() (sde_lanes.h): the loop over
  # lanes is vectorised in double as in single.  With the former int
  # quadrant's selects it was not ("vectorized 0 loops"): 32 ns a
  # path-step a path at a time against 4.3 (bench/RESULTS.md).
  skip_on_cran()
  skip_if_no_cc()
  cc <- statphysgpu:::sde_cc()
  exe <- strsplit(trimws(cc$cc), "[[:space:]]+")[[1]][1]
  ver <- suppressWarnings(system2(exe, "-dumpfullversion", stdout = TRUE, stderr = TRUE))
  skip_if(!nzchar(cc$extra) || isTRUE(grepl("clang", paste(suppressWarnings(
    system2(exe, "--version", stdout = TRUE, stderr = TRUE)), collapse = " "))),
    "the compiler is not GCC")
  skip_if(!length(ver) || is.na(suppressWarnings(as.integer(sub("\\..*", "", ver[1])))) ||
            as.integer(sub("\\..*", "", ver[1])) < 11, "GCC before 11 (no target(arch=))")
  skip_if(statphysgpu:::sde_simd_level() < 3, "no AVX2: the vector loop takes the baseline")
  m <- statphysgpu:::sde_model_trusted(sde_model(
    drift = list(x = ~ v, v = ~ f - beta * v - sin(x) + 0.5 * cos(2 * x)),
    noise = list(v = ~ 0.3), params = c(f = 0.5, beta = 0.9), name = "sincos-vector"))
  report <- function(precision) {
    files <- statphysgpu:::sde_build_files(m, statphysgpu:::sde_cpu_source(m, precision), list())
    dir <- tempfile("sincos-vec")
    dir.create(dir)
    on.exit(unlink(dir, recursive = TRUE))
    for (f in names(files)) writeLines(files[[f]], file.path(dir, f), sep = "")
    args <- c(strsplit(trimws(paste(cc$cflags, cc$extra)), "[[:space:]]+")[[1]],
              "-I.", paste0("-I", shQuote(R.home("include"))), "-c", "sde_model.c",
              "-o", "sde_model.o", "-fopt-info-vec-optimized")
    out <- withr::with_dir(dir, suppressWarnings(system2(exe, args, stdout = TRUE, stderr = TRUE)))
    expect_true(file.exists(file.path(dir, "sde_model.o")), info = paste(out, collapse = "\n"))
    out
  }
  for (p in c("double", "single")) {
    out <- report(p)
    expect_true(any(grepl("sde_lanes\\.h:[0-9]+:[0-9]+: optimized: loop vectorized", out)),
                info = sprintf("%s: %s", p, paste(out, collapse = "\n")))
  }
})
