# Benchmark: a square-lattice model (the 2D XY model with overdamped
# Langevin dynamics) on one CPU core, against the same dynamics written in
# vectorised base R.
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/mb-lattice-cpu.R [sizes] [min_seconds]
#
# sizes: comma-separated lattice sides L (default 64,256,1024); each case
# runs enough steps for at least min_seconds (default 1) of CPU time.
# Prints one table (metric, value, unit, device, commit, date).  Target
# (issue 49, item 7): the model on one core (sp_threads(1)) at >= 3 times
# the base-R rate in site-steps/s, in single and double precision (before:
# 240 ns a site-step, 0.4 of base R, on the issue's machine; 0.46-1.5 on
# the development machine at 5c31621; 7.4-82 with the vector loop over
# elements at 539c5e6: bench/RESULTS.md).
#
# The model (dtheta = K sum over the 4 neighbours of sin(theta_j - theta)
# dt + sqrt(2 T) dW), with and without `periodic = "theta"`, by "euler" and
# "srk2", records of the magnetisation m every steps / 10 steps, timed as
# whole sde_run() calls after warm-up calls (compiles, loads), with the
# default options (long runs take the vector loop over elements,
# mb_lanes.h) and with options(statphysgpu.sde_cpu_vector = FALSE) (an
# element at a time).  Base R: an L x L matrix, the four neighbour shifts
# by index vectors, rnorm() for the noise, the same records; srk2 the Heun
# step with the same dW (additive noise).
#
# Rates are site-steps per second of the R process's CPU time (user +
# system, proc.time()): on a shared machine that is what one core gives
# (wall time counts the other processes' turns); the wall-time rates are
# printed too.  On an idle core the two agree.
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
sizes <- as.integer(strsplit(bench_arg("64,256,1024"), ",")[[1]])
min_s <- as.numeric(bench_arg("1", 2))
old <- sp_threads(1)
dev <- cpu_device()
K <- 1; Temp <- 0.5; dt <- 0.01

xy <- function(periodic) {
  sde_model(drift = list(theta = ~ K * (sin(theta[i + 1, j] - theta) + sin(theta[i - 1, j] - theta) +
                                          sin(theta[i, j + 1] - theta) + sin(theta[i, j - 1] - theta))),
            noise = list(theta = ~ sqrt(2 * T)), params = c(K = K, T = Temp), lattice = "square",
            periodic = if (periodic) "theta",
            observe = list(m = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
            name = if (periodic) "xy-periodic" else "xy")
}

# CPU and wall seconds of evaluating `expr`.
cpu_wall <- function(expr) {
  invisible(gc())
  t0 <- proc.time()
  force(expr)
  t <- proc.time() - t0
  c(cpu = t[["user.self"]] + t[["sys.self"]], wall = t[["elapsed"]])
}

# The model: `steps` steps of an L x L lattice, one system.
model_time <- function(m, L, steps, method, precision) {
  cpu_wall({
    r <- sde_run(m, 1, n = c(L, L), init = list(theta = ~ runif(-pi, pi)), dt = dt,
                 t_max = steps * dt, method = method, output = "records",
                 record_every = max(1, steps %/% 10), precision = precision, backend = "cpu",
                 seed = 1, progress = FALSE)
    stopifnot(all(is.finite(r$m)))
  })
}

# Base R: the same dynamics, records and start law.
base_time <- function(L, steps, method, periodic) {
  set.seed(1)
  cpu_wall({
    up <- c(2:L, 1L); dn <- c(L, 1:(L - 1L))
    force <- function(th) {
      K * (sin(th[up, ] - th) + sin(th[dn, ] - th) + sin(th[, up] - th) + sin(th[, dn] - th))
    }
    th <- matrix(runif(L * L, -pi, pi), L, L)
    every <- max(1, steps %/% 10)
    m <- numeric(0)
    s <- sqrt(2 * Temp * dt)
    for (k in seq_len(steps)) {
      dw <- s * rnorm(L * L)
      f <- force(th)
      if (method == "euler") {
        th <- th + f * dt + dw
      } else {
        y <- th + f * dt + dw
        th <- th + (f + force(y)) * (dt / 2) + dw
      }
      if (periodic) th <- th - 2 * pi * round(th / (2 * pi))
      if (k %% every == 0) m <- c(m, sqrt(mean(cos(th))^2 + mean(sin(th))^2))
    }
    stopifnot(all(is.finite(m)))
  })
}

# Steps for at least min_s seconds of CPU time: more steps (at most 16
# times more a try) until a run lasts that long (a run long enough takes the
# vector loop and goes 15 times as fast: the tries go on from there);
# site-steps/s (CPU and wall) of that run and its steps.
rate <- function(f, L, steps = 4) {
  repeat {
    t <- f(steps)
    if (t[["cpu"]] >= min_s) break
    steps <- ceiling(steps * min(16, max(2, 1.2 * min_s / max(t[["cpu"]], 1e-3))))
  }
  c(cpu = L * L * steps / t[["cpu"]], wall = L * L * steps / t[["wall"]], steps = steps)
}

# Which object a run of `steps` steps takes (the vector loop or an element
# at a time; builds without the vector loop: the latter).
lanes_of <- function(m, L, steps, meth, p) {
  f <- get0("sde_mb_cpu_lanes_wanted", asNamespace("statphysgpu"))
  if (!is.null(f) && !is.null(f(m, p, meth, L * L * steps))) "vector loop" else "element at a time"
}

for (periodic in c(TRUE, FALSE)) {
  m <- xy(periodic)
  for (p in c("single", "double")) for (meth in c("euler", "srk2")) { # compile, load
    withr::with_options(list(statphysgpu.sde_cpu_vector = TRUE), model_time(m, 16, 2, meth, p))
    model_time(m, 16, 2, meth, p)
  }
  for (L in sizes) for (meth in c("euler", "srk2")) {
    b <- rate(function(k) base_time(L, k, meth, periodic), L)
    lab0 <- sprintf("L = %d, %s%s", L, meth, if (periodic) ", periodic" else "")
    add(sprintf("base R: site-steps/s, %s (%d steps)", lab0, b[["steps"]]), b[["cpu"]], "1/s")
    add(sprintf("base R: site-steps/s of wall time, %s", lab0), b[["wall"]], "1/s")
    for (p in c("single", "double")) {
      lab <- sprintf("%s, %s", lab0, p)
      r <- rate(function(k) model_time(m, L, k, meth, p), L, 16)
      e <- withr::with_options(list(statphysgpu.sde_cpu_vector = FALSE),
                               rate(function(k) model_time(m, L, k, meth, p), L, 16))
      add(sprintf("model: site-steps/s, %s (%d steps, %s)", lab, r[["steps"]],
                  lanes_of(m, L, r[["steps"]], meth, p)), r[["cpu"]], "1/s")
      add(sprintf("model: ns a site-step, %s", lab), 1e9 / r[["cpu"]], "ns")
      add(sprintf("model: site-steps/s of wall time, %s", lab), r[["wall"]], "1/s")
      add(sprintf("model / base R, %s (target >= 3)", lab), r[["cpu"]] / b[["cpu"]], "x")
      add(sprintf("model / base R in wall time, %s", lab), r[["wall"]] / b[["wall"]], "x")
      add(sprintf("model, an element at a time: site-steps/s, %s (%d steps)", lab, e[["steps"]]),
          e[["cpu"]], "1/s")
      add(sprintf("model, an element at a time / base R, %s", lab), e[["cpu"]] / b[["cpu"]], "x")
    }
  }
}
sp_threads(old)

bench_print()
