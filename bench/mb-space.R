# Particles in a box and oscillators on a graph (issue 49), whole R calls.
#
#   Rscript bench/mb-space.R gpu [quick]   the GPU cases (one device)
#   Rscript bench/mb-space.R cpu           the CPU cases, one thread
#
# Cases (issue 49, item 7):
#   lj-baoab / lj-bd  3D Lennard-Jones truncated and shifted at 2.5, density
#                     0.8, T = 1.5, BAOAB (Langevin, gamma = 1) and
#                     overdamped Euler (Brownian dynamics): one system of
#                     about 1e6 particles (fcc, 4 x 63^3), and 1e4 systems of
#                     256 (fcc 4 x 4^3; a box of 6.8 < 3 rc: all pairs within
#                     it); target >= 5e8 particle-steps/s on an H100, and at
#                     least the straightforward CUDA cell-list port
#                     (bench/ports/lj.cu) where it is built
#   graph-kuramoto    Kuramoto oscillators on a sparse random graph, n = 1e6,
#                     mean in-degree 10 (each element's in-neighbours drawn
#                     uniformly, unit weights), Euler and SRK2, single: the
#                     oscillator-steps/s and the bandwidth bound of reading
#                     the graph once a pass (4 bytes an edge: its column)
#   compile           a positions-and-cut-off model's first call (a fresh
#                     cache): the NVRTC compile for the GPU (target < 2 s);
#                     alone with `Rscript bench/mb-space.R gpu compile`
#   CPU (one thread)  the Lennard-Jones BAOAB step at n = 4000 (a box of 17 >
#                     6 rc: cell lists) and 256 (all pairs): particle-steps/s,
#                     target >= 1e6 a core
#   slices            `Rscript bench/mb-space.R gpu slices` (two GPUs or more):
#                     the one system of 1e6 (fcc 4 x 63^3) on GPU 0 and on GPUs
#                     0 and 1 (devices = c(0, 1): one system in slices, each
#                     rebuilding the whole cell list and moving its half of the
#                     cells' order, the halves exchanged after each pass),
#                     BAOAB and overdamped Euler single, BAOAB double: the
#                     rates, the 2-GPU speed-up (whole calls; the engine's in
#                     the note) and whether the two runs' final states are
#                     identical (they must be).  Expected before the first
#                     run: 1.4-1.7x for BAOAB single (the pair pass is most
#                     of a step; the cell lists' build, about a tenth, is not
#                     split, the exchange adds 24 bytes a particle a pass)
#   overhead          `Rscript bench/mb-space.R cpu overhead` (or `gpu
#                     overhead`): the part of a whole call outside the
#                     engine's rounds (whole call minus attr(, "seconds")) for
#                     the starts of the LJ BAOAB cases, fcc 4 x 63^3 in one
#                     system and 10,000 systems of 4 x 4^3: best of 3 after a
#                     warm-up, with all the package's threads; 1 step on the
#                     CPU (the engine's seconds small: what is left is the R
#                     side, the start's copies and the CPU engine's set-up),
#                     500 on the GPU (and there the GPU's set-up and collect,
#                     the uploads and downloads, of sp_last_run())
# Each line: the rate of a whole call after a warm-up call (compile and
# caches excluded), device, commit and date at the end.
bench_dir <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
where <- bench_arg("gpu", 1)
quick <- identical(bench_arg("", 2), "quick")
# "lj": the four Lennard-Jones cases alone; "variants": and their variants
# (mode A's elements a thread, IEEE quotients in the pair terms)
variants <- identical(bench_arg("", 2), "variants")
graph_only <- identical(bench_arg("", 2), "graph") # the graph Kuramoto cases alone
compile_only <- identical(bench_arg("", 2), "compile") # the first call's compile alone
lj_only <- identical(bench_arg("", 2), "lj") || variants
slices_only <- identical(bench_arg("", 2), "slices") # one system on GPUs 0 and 1 against GPU 0
# SP_MB_BPS=<k>: every case with the tuning option mb_blocks_per_sm = k
if (nzchar(Sys.getenv("SP_MB_BPS"))) options(statphysgpu.mb_blocks_per_sm = as.integer(Sys.getenv("SP_MB_BPS")))
overhead_only <- identical(bench_arg("", 2), "overhead") # the R side of whole calls
echo <- "%-60s %12.4g %s"

lj_model <- function(obs = FALSE, force = "-24 * ir6 * (2 * ir6 - 1) * ir2") {
  define <- list(ir2 = ~ 1 / r^2, ir6 = ~ ir2^3, f = stats::as.formula(paste("~", force)),
                 u = ~ 4 * ir6 * (ir6 - 1) - 4 * (rc^-12 - rc^-6))
  environment(define$f) <- environment(define$ir2)
  sde_model(
    drift = list(x = ~ vx, y = ~ vy, z = ~ vz,
                 vx = ~ pairs(f * dx, cutoff = rc) - g * vx,
                 vy = ~ pairs(f * dy, cutoff = rc) - g * vy,
                 vz = ~ pairs(f * dz, cutoff = rc) - g * vz),
    noise = list(vx = ~ sqrt(2 * g * T), vy = ~ sqrt(2 * g * T), vz = ~ sqrt(2 * g * T)),
    params = c(g = 1, T = 1.5, rc = 2.5),
    define = define,
    observe = if (obs) list(U = ~ sum(pairs(u, cutoff = rc)) / 2 / n,
                            K = ~ mean(vx^2 + vy^2 + vz^2) / 2)
              else list(K = ~ mean(vx^2 + vy^2 + vz^2) / 2),
    positions = c("x", "y", "z"), name = if (obs) "lj-obs" else "lj")
}
bd_model <- function() {
  sde_model(
    drift = list(x = ~ pairs(f * dx, cutoff = rc), y = ~ pairs(f * dy, cutoff = rc),
                 z = ~ pairs(f * dz, cutoff = rc)),
    noise = list(x = ~ sqrt(2 * T), y = ~ sqrt(2 * T), z = ~ sqrt(2 * T)),
    params = c(T = 1.5, rc = 2.5),
    define = list(ir2 = ~ 1 / r^2, ir6 = ~ ir2^3, f = ~ -24 * ir6 * (2 * ir6 - 1) * ir2),
    observe = list(m = ~ mean(x)), positions = c("x", "y", "z"), name = "lj-bd")
}
# an fcc lattice of 4 m^3 sites at density rho
fcc <- function(m, rho) {
  n <- 4 * m^3
  L <- (n / rho)^(1 / 3)
  a <- L / m
  b <- rbind(c(0, 0, 0), c(0.5, 0.5, 0), c(0.5, 0, 0.5), c(0, 0.5, 0.5))
  g <- expand.grid(i = 0:(m - 1), j = 0:(m - 1), k = 0:(m - 1))
  p <- do.call(rbind, lapply(1:4, function(s) cbind(g$i + b[s, 1], g$j + b[s, 2], g$k + b[s, 3])))
  list(n = n, L = L, x = (p[, 1] + 0.25) * a, y = (p[, 2] + 0.25) * a, z = (p[, 3] + 0.25) * a)
}
timed <- function(expr) {
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  x <- force(expr)
  list(wall = proc.time()[["elapsed"]] - t0, x = x)
}

lj_case <- function(label, m, method, m3, reps, steps, backend, dt = 0.004,
                    precision = "single", devices = NULL, device = dev) {
  f <- fcc(m3, 0.8)
  init <- list(x = f$x, y = f$y, z = f$z)
  if (length(m$states) == 6) init <- c(init, list(vx = 0, vy = 0, vz = 0))
  run <- function(k) {
    sde_run(m, replicas = reps, n = f$n, init = init, dt = dt, t_max = k * dt, method = method,
            box = f$L, output = "records", record_every = k, backend = backend, seed = 1,
            precision = precision, devices = devices, progress = FALSE)
  }
  run(2) # warm: compile, caches
  t <- timed(run(steps))
  eng <- attr(t$x, "seconds")
  add(sprintf("%s n = %s x %s, %s", label, fmt(f$n), fmt(reps), backend),
      f$n * reps * steps / t$wall, "particle-steps/s", device = device,
      note = sprintf("  (%d steps, %.2f s; engine %.3f s: %.3g/s; K/n at the end %.3f)", steps,
                     t$wall, eng, f$n * reps * steps / eng,
                     mean(t$x$K[t$x$time == max(t$x$time)])))
  attr(t$x, "wall") <- t$wall
  invisible(t$x)
}
fmt <- function(x) format(x, big.mark = ",", scientific = FALSE, trim = TRUE)

# The part of a whole call outside the engine's rounds, best of 3 after a
# warm-up call (the "overhead" cases above)
overhead_case <- function(label, m3, reps, steps, backend) {
  f <- fcc(m3, 0.8)
  init <- list(x = f$x, y = f$y, z = f$z, vx = 0, vy = 0, vz = 0)
  run <- function(k) {
    sde_run(lj, replicas = reps, n = f$n, init = init, dt = 0.004, t_max = k * 0.004,
            method = "baoab", box = f$L, output = "records", record_every = k,
            backend = backend, seed = 1, progress = FALSE)
  }
  run(1)
  best <- NULL
  for (k in 1:3) {
    t <- timed(run(steps))
    ri <- tryCatch(statphysgpu:::sp_last_run(), error = function(e) NULL)
    side <- t$wall - attr(t$x, "seconds")
    if (is.null(best) || side < best$side) {
      best <- list(side = side, wall = t$wall, eng = attr(t$x, "seconds"),
                   gpu = if (backend == "gpu" && !is.null(ri))
                     sprintf("; GPU set-up %.3f s, collect %.3f s", ri[["setup"]],
                             ri[["collect"]]) else "")
    }
  }
  add(sprintf("%s n = %s x %s, %s: whole call - engine", label, fmt(f$n), fmt(reps), backend),
      best$side, "s", note = sprintf("  (%d step%s; whole %.3f s, engine %.3f s%s; best of 3)",
                                     steps, if (steps == 1) "" else "s", best$wall, best$eng,
                                     best$gpu))
}
overhead_cases <- function(backend, steps) {
  overhead_case("LJ BAOAB single", 63, 1, steps, backend)
  overhead_case("LJ BAOAB single", 4, 10000, steps, backend)
  bench_print(sprintf("mb-space (%s, overhead)", backend))
  quit(save = "no")
}

if (where == "gpu") {
  devs <- gpu_first()
  dev <- devs$name[1]
  lj <- lj_model()
  if (overhead_only) overhead_cases("gpu", 500)
  if (slices_only) { # one system of 1e6 on GPU 0, then in slices on GPUs 0 and 1
    if (nrow(devs) < 2) stop("`gpu slices` needs two GPUs; this machine has one", call. = FALSE)
    ids <- devs$id[1:2]
    dev2 <- sprintf("2 x %s (%s)", dev, paste(ids, collapse = ", "))
    steps <- if (quick) 50 else 500
    cases <- list(list("LJ BAOAB single", lj, "baoab", 0.004, "single"),
                  list("LJ overdamped Euler single", bd_model(), "euler", 1e-4, "single"),
                  list("LJ BAOAB double", lj, "baoab", 0.004, "double"))
    for (cs in cases) {
      one <- lj_case(cs[[1]], cs[[2]], cs[[3]], 63, 1, steps, "gpu", dt = cs[[4]],
                     precision = cs[[5]], devices = ids[1])
      two <- lj_case(paste(cs[[1]], "in 2 slices"), cs[[2]], cs[[3]], 63, 1, steps, "gpu",
                     dt = cs[[4]], precision = cs[[5]], devices = ids, device = dev2)
      stopifnot(length(attr(two, "devices")) == 2)
      add(sprintf("%s n = 1e6, 2-GPU speed-up (whole calls)", cs[[1]]),
          attr(one, "wall") / attr(two, "wall"), "x", device = dev2,
          note = sprintf("  (engine %.2fx; final states identical: %s)",
                         attr(one, "seconds") / attr(two, "seconds"),
                         identical(attr(one, "final"), attr(two, "final"))))
    }
    bench_print(sprintf("mb-space (%s, slices)", where))
    quit(save = "no")
  }
  # compile time of a positions-and-cut-off model, fresh cache (mode B,
  # baoab).  The model's code is made unique (the clock's digits in a
  # factor of 1 in the force): the GPU host's NVRTC returned a module of
  # the same source in 0.06 s (session 13: 0.14 s "first calls"), so a
  # model compiled before on that machine measures nothing
  if (!lj_only && !graph_only) old <- options(statphysgpu.cache_dir = tempfile("spcache"))
  if (!lj_only && !graph_only) {
  one <- sprintf("%.15f", 1 + (as.numeric(Sys.time()) %% 1) * 1e-12)
  ljc <- lj_model(force = paste0("-24 * ir6 * (2 * ir6 - 1) * ir2 * ", one))
  t <- timed(sde_run(ljc, replicas = 1, n = 4000, init = c(fcc(10, 0.8)[c("x", "y", "z")],
                                                          list(vx = 0, vy = 0, vz = 0)),
                     dt = 0.004, t_max = 0.004, method = "baoab", box = fcc(10, 0.8)$L,
                     output = "records", backend = "gpu", progress = FALSE))
  add("first call of a positions + cut-off model (NVRTC compile), n = 4000", t$wall, "s")
  options(old)
  }
  if (compile_only) {
    bench_print(sprintf("mb-space (%s)", where))
    quit(save = "no")
  }
  steps <- if (quick) 50 else 500
  if (!graph_only) {
  lj_case("LJ BAOAB single", lj, "baoab", 63, 1, steps, "gpu")
  lj_case("LJ BAOAB single", lj, "baoab", 4, 10000, steps, "gpu")
  bd <- bd_model()
  lj_case("LJ overdamped Euler single", bd, "euler", 63, 1, steps, "gpu", dt = 1e-4)
  lj_case("LJ overdamped Euler single", bd, "euler", 4, 10000, steps, "gpu", dt = 1e-4)
  if (variants) {
    for (e in c(2L, 4L)) {
      old <- options(statphysgpu.mb_small_ept = e)
      lj_case(sprintf("LJ BAOAB single, mode A %d elements a thread", e), lj, "baoab", 4, 10000,
              steps, "gpu")
      options(old)
    }
    for (b in c(0L, 5L)) { # "auto": 6
      old <- options(statphysgpu.mb_blocks_per_sm = b)
      lj_case(sprintf("LJ BAOAB single, mode B registers for %d blocks an SM", b), lj, "baoab",
              63, 1, steps, "gpu")
      options(old)
    }
    old <- options(statphysgpu.sde_fast_math = FALSE)
    lj_case("LJ BAOAB single, IEEE quotients", lj, "baoab", 63, 1, steps, "gpu")
    lj_case("LJ BAOAB single, IEEE quotients", lj, "baoab", 4, 10000, steps, "gpu")
    options(old)
  }
  if (lj_only) {
    bench_print(sprintf("mb-space (%s)", where))
    quit(save = "no")
  }
  # cells against every pair in tiles, one system of 32,000
  old <- options(statphysgpu.mb_cells = FALSE)
  lj_case("LJ BAOAB single, all pairs (no cells)", lj, "baoab", 20, 1, 20, "gpu")
  options(old)
  lj_case("LJ BAOAB single, cells", lj, "baoab", 20, 1, 20, "gpu")
  # the pair observables and g(r) at a record every 10 steps
  ljo <- lj_model(TRUE)
  lj_case("LJ BAOAB single + energy every record", ljo, "baoab", 63, 1, steps, "gpu")
  }
  # Kuramoto on a sparse graph
  kg <- sde_model(drift = list(theta = ~ w + K * edges(sin(theta[j] - theta))),
                  noise = list(theta = ~ sqrt(2 * D)),
                  params = list(K = 0.2, D = 0.1, w = ~ rnorm(0, 1)),
                  observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
                  periodic = "theta", name = "kuramoto-graph")
  n <- 1e6
  deg <- 10
  set.seed(49) # the benchmark's graph
  to <- rep(seq_len(n), each = deg)
  from <- 1 + (to - 1 + 1 + floor(stats::runif(n * deg) * (n - 1))) %% n # no self-loops
  key <- unique((to - 1) * n + from)
  graph <- data.frame(to = (key - 1) %/% n + 1, from = (key - 1) %% n + 1)
  nnz <- nrow(graph)
  for (method in c("euler", "srk2")) {
    ksteps <- if (quick) 200 else 1000
    run <- function(k) {
      sde_run(kg, replicas = 1, n = n, init = list(theta = ~ runif(-pi, pi)), dt = 0.01,
              t_max = k * 0.01, method = method, output = "records", record_every = k,
              graph = graph, backend = "gpu", seed = 2, progress = FALSE)
    }
    run(2)
    t <- timed(run(ksteps))
    rate <- n * ksteps / t$wall
    eng <- attr(t$x, "seconds") # the engine's part (the graph's check and sort in R apart)
    passes <- if (method == "srk2") 2 else 1
    bound <- HBM / (passes * (4 * nnz + 8 * n) / n) # the graph once a pass, the states
    add(sprintf("Kuramoto on a graph n = 1e6, degree 10, %s single", method), rate,
        "oscillator-steps/s",
        note = sprintf(paste0("  (%d steps, %.2f s; engine %.3f s: %.3g/s, %.2f of the bound of ",
                              "reading the graph and states once a pass, %.3g)"),
                       ksteps, t$wall, eng, n * ksteps / eng, n * ksteps / eng / bound, bound))
  }
} else {
  dev <- cpu_device()
  if (overhead_only) { # all the package's threads, as the GPU host's R side has them
    lj <- lj_model()
    options(statphysgpu.sde_cpu_vector = TRUE)
    overhead_cases("cpu", 1)
  }
  sp_threads(1)
  dev <- cpu_device()
  # the vector object for the warm-up call too (the timed runs take it by
  # default: over 2^20 element-steps), so that its compile is not timed
  options(statphysgpu.sde_cpu_vector = TRUE)
  lj <- lj_model()
  lj_case("LJ BAOAB single (cells)", lj, "baoab", 10, 1, if (quick) 10 else 400, "cpu")
  if (!quick) lj_case("LJ BAOAB single (cells)", lj, "baoab", 20, 1, 100, "cpu")
  lj_case("LJ BAOAB single (all pairs)", lj, "baoab", 4, 4, if (quick) 10 else 40, "cpu")
  lj_case("LJ BAOAB double (cells)", lj, "baoab", 10, 1, if (quick) 10 else 40, "cpu",
          precision = "double")
}
bench_print(sprintf("mb-space (%s)", where))
