# Benchmark: the whole R call against its engine (issue 22, "The whole R
# call as fast as its kernel").
#
#   SP_COMMIT=$(git rev-parse --short HEAD) Rscript bench/whole-call.R [gpu|cpu|all]
#
# For every engine at a GPU-filling size (gpu; default) or at the CPU sizes
# of the issue (cpu), warm (a first small call compiles or loads the kernel
# and fills the session's caches), the whole call is timed at two run
# lengths L1 = L2 / 2 and L2 (system.time() elapsed of the whole call, the
# start state included: hmf_waterbag() and the other starts are made inside
# the timed expression, as a user makes them), SP_REPS times each (default
# 2; the fastest counts).  Per case the table has:
#   whole-call rate  work(L2) / wall(L2)
#   engine rate      work(L2) / seconds(L2), seconds = attr(, "seconds"),
#                    the engine's own time (its rounds)
#   fixed cost       the intercept of wall against work through the two
#                    lengths (never wall minus seconds)
#   wall / (1.1 engine + 0.15 s) at L2: the issue's bound is <= 1
#   port rate        the straightforward CUDA port of the same case
#                    (bench/ports, built by bench/ports/build.sh; NA
#                    without bench/ports/bin), and engine / port
# A case that fails (an engine or argument not merged yet) prints NA rows
# and its error.  SP_CASES=a,b,... runs only the cases named (see `cases`);
# SP_WHOLE_VARIANTS=1 also times driven's kernel without its register cap
# (option statphysgpu.driven_variant = "_free").  SP_XORSAT_FILE: the
# n = 384 instance (default ../shared/data/3r3x/3r3x_2body_n384_s1.txt of
# the checkout, else xorsat_random(192, seed = 1)).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("gpu")
echo <- "%-78s %12.4g %s"
reps <- as.integer(Sys.getenv("SP_REPS", "2"))
only <- Sys.getenv("SP_CASES")
only <- if (nzchar(only)) strsplit(only, ",")[[1]] else NULL
bin <- file.path(bench_dir, "ports", "bin")

# The rate a port prints ("rate <value> <unit>"), NA without the binaries.
port_rate <- function(cmd) {
  if (is.null(cmd) || !dir.exists(bin)) return(NA_real_)
  out <- tryCatch(suppressWarnings(system2(file.path(bin, cmd[1]), cmd[-1], stdout = TRUE,
                                           stderr = FALSE)),
                  error = function(e) character())
  l <- grep("^rate ", out, value = TRUE)
  if (!length(l)) return(NA_real_)
  as.numeric(strsplit(l[1], " ")[[1]][2])
}

# One timed call: list(wall, seconds, work).
timed <- function(fun, len) {
  gc(FALSE)
  res <- NULL
  wall <- system.time(res <- suppressWarnings(fun(len)))[["elapsed"]]
  list(wall = wall, seconds = res$seconds, work = res$work)
}

# The fastest of `reps` calls at each length, and the table's rows.
run_case <- function(cs) {
  if (!is.null(only) && !cs$name %in% only) return(invisible())
  tag <- cs$label
  r <- tryCatch({
    suppressWarnings(cs$fun(cs$warm)) # compile or load, fill the caches
    best <- function(len) {
      t <- lapply(seq_len(reps), function(i) timed(cs$fun, len))
      t[[which.min(vapply(t, function(z) z$wall, 0))]]
    }
    list(a = best(cs$len / 2), b = best(cs$len))
  }, error = function(e) e)
  port <- port_rate(cs$port)
  if (inherits(r, "error")) {
    message("  ", tag, ": ", conditionMessage(r))
    r <- list(a = list(wall = NA, seconds = NA, work = NA),
              b = list(wall = NA, seconds = NA, work = NA))
  }
  a <- r$a
  b <- r$b
  slope <- (b$wall - a$wall) / (b$work - a$work)
  fixed <- a$wall - slope * a$work
  whole <- b$work / b$wall
  engine <- b$work / b$seconds
  bound <- b$wall / (1.1 * b$seconds + 0.15)
  add(sprintf("%s: whole-call rate", tag), whole, cs$unit)
  add(sprintf("%s: engine rate", tag), engine, cs$unit)
  add(sprintf("%s: fixed cost a call (intercept of %s)", tag, cs$lengths), fixed, "s")
  add(sprintf("%s: whole call / engine (s)", tag), b$wall, "s",
      note = sprintf(" / %.4g", b$seconds))
  add(sprintf("%s: wall / (1.1 engine + 0.15 s), at most 1", tag), bound, "")
  add(sprintf("%s: straightforward port%s", tag, cs$port_note %||% ""), port, cs$unit)
  add(sprintf("%s: engine / port", tag), engine / port, "x")
  wide[[length(wide) + 1]] <<- data.frame(
    case = tag, whole_call = signif(whole, 3), engine = signif(engine, 3), unit = cs$unit,
    fixed_s = signif(fixed, 3), wall_s = signif(b$wall, 3), engine_s = signif(b$seconds, 3),
    bound = signif(bound, 3), port = signif(port, 3), engine_over_port = signif(engine / port, 3))
  invisible()
}
wide <- list()
`%||%` <- function(a, b) if (is.null(a)) b else a

# ---- the cases ----------------------------------------------------------------

V0 <- 1; beta <- 0.2; gamma <- 0.5
DU <- barrier_height(gamma, V0)

lrmd_case <- function(model, n, steps, backend, warm_n = 1000) {
  start <- function(n) switch(model, hmf = hmf_waterbag(n, 1, 0.69, seed = 1),
                              ring = ring_uniform(n, p0 = 0.3, seed = 1),
                              gravity2d = gravity2d_shell(n, 0.5, 1, seed = 1))
  per_step <- if (model == "hmf") n else 3 * n^2
  list(name = model, len = steps, lengths = sprintf("%d and %d steps", steps / 2, steps),
       warm = 0, unit = if (model == "hmf") "particle-steps/s" else "pair-terms/s",
       fun = function(len) {
         nn <- if (len == 0) warm_n else n
         x <- lrmd(model, init = start(nn), dt = 0.01, steps = max(len, 2),
                   record_every = max(len, 2), backend = backend, progress = FALSE)
         list(seconds = attr(x, "seconds"), work = per_step * len)
       })
}

kuramoto_case <- function(n, steps, method, backend) {
  list(name = paste0("kuramoto_", method), len = steps,
       lengths = sprintf("%d and %d steps", steps / 2, steps), warm = 0,
       unit = "oscillator-steps/s",
       fun = function(len) {
         x <- kuramoto(if (len == 0) 1024 else n, K = 4, frequencies = kuramoto_lorentz(0.5), theta = 1,
                       dt = 0.01, steps = max(len, 2), record_every = max(len, 2), seed = 1,
                       method = method, backend = backend, precision = "single",
                       progress = FALSE)
         list(seconds = attr(x, "seconds"), work = n * len)
       })
}

driven_case <- function(n, periods, backend, name = "driven") {
  list(name = name, len = periods,
       lengths = sprintf("%g and %g steps", periods / 2 * 100, periods * 100), warm = 0,
       unit = "path-steps/s",
       fun = function(len) {
         x <- driven_brownian(if (len == 0) 1024 else n, a = 4.2, omega = 4.9, f = 0.1,
                              beta = 0.9, theta = 0.001, periods = max(len, 1),
                              steps_per_period = 100, method = "srk2", precision = "single",
                              seed = 1, backend = backend, progress = FALSE)
         list(seconds = attr(x, "seconds"), work = n * len * 100)
       })
}

# Escape: the run length is set by the step, h = 0.02 (L1) and 0.01 (L2,
# the case of the issue): the mean escape time stays near the same time, so
# the steps double; the work is the useful steps of each run.
escape_case <- function(n, method, backend, t_max = 1e9) {
  list(name = paste0("escape_", method), len = 2, warm = 0,
       lengths = "h = 0.02 and 0.01 (useful steps)", unit = "useful-steps/s",
       fun = function(len) {
         h <- if (len == 0) 0.01 else 0.02 / len
         x <- escape_times(if (len == 0) 1000 else n, gamma = gamma, V0 = V0, beta = beta,
                           theta = DU / 6, dt = h, t_max = if (len == 0) 10 else t_max,
                           method = method, precision = "single", seed = 1,
                           backend = backend, progress = FALSE)
         list(seconds = attr(x, "seconds"), work = attr(x, "steps")[["useful"]])
       })
}

he4_case <- function(backend, walkers = "auto") {
  list(name = "he4_vmc", len = 40, lengths = "20 and 40 blocks of 20 sweeps", warm = 0,
       unit = "walker-sweeps/s",
       fun = function(len) {
         x <- he4_vmc(512, replicas = if (len == 0) 32 else walkers, blocks = max(len, 1),
                      block_sweeps = 20, equilibration = 0, displacement = 0.3, seed = 1,
                      backend = backend, progress = FALSE)
         list(seconds = attr(x, "seconds"),
              work = length(attr(x, "state")$replica) * 20 * len)
       })
}

xorsat_case <- function(backend, sweeps, runs = 1) {
  f <- Sys.getenv("SP_XORSAT_FILE", file.path(bench_dir, "..", "..", "shared", "data", "3r3x",
                                               "3r3x_2body_n384_s1.txt"))
  inst <- if (file.exists(f)) read_xorsat(f) else xorsat_random(192, seed = 1)
  list(name = "xorsat_qg", len = sweeps, warm = 0,
       lengths = sprintf("%d and %d sweeps", sweeps / 2, sweeps), unit = "clone-updates/s",
       fun = function(len) {
         x <- xorsat_qg(inst, replicas = runs, p1 = 0, max_sweeps = max(len, 16), seed = 1,
                        backend = backend, progress = FALSE)
         list(seconds = attr(x, "seconds"),
              work = inst$n * attr(x, "clones") * sum(x$sweeps) * (len > 0))
       })
}

if (what %in% c("gpu", "all")) {
  dev <- gpu_first(free = FALSE)$name[1]
  cases <- list(
    c(lrmd_case("hmf", 5e7, 1000, "gpu"),
      list(label = "lrmd hmf, n = 5e7, init = hmf_waterbag(), mixed, 1000 steps",
           port = c("hmf", "5e7", "1000"), port_note = " (double phase space)")),
    c(lrmd_case("ring", 1e5, 100, "gpu"),
      list(label = "lrmd ring, n = 1e5, ring_uniform(), 100 steps", port = c("ring", "1e5", "100"))),
    c(lrmd_case("gravity2d", 1e5, 100, "gpu"),
      list(label = "lrmd gravity2d, n = 1e5, gravity2d_shell(), 100 steps",
           port = c("ring", "1e5", "100"), port_note = " (the ring port)")),
    c(kuramoto_case(2^24, 5000, "srk2", "gpu"),
      list(label = "kuramoto mean field, n = 2^24, srk2, single, 5000 steps",
           port = c("kuramoto", "16777216", "5000", "1"))),
    c(kuramoto_case(2^24, 5000, "euler", "gpu"),
      list(label = "kuramoto mean field, n = 2^24, euler, single, 5000 steps",
           port = c("kuramoto", "16777216", "5000", "0"))),
    c(driven_case(2^20, 2000, "gpu"),
      list(label = "driven_brownian, 2^20 paths, 2e5 steps, srk2, single",
           port = c("driven", "1048576", "200000"))),
    c(escape_case(2^20, "euler", "gpu"),
      list(label = "escape_times, 2^20 paths, DU/theta = 6, euler, single",
           port = c("escape", "1048576", "1e9", "6"))),
    c(escape_case(2^20, "srk2", "gpu"),
      list(label = "escape_times, 2^20 paths, DU/theta = 6, srk2, single",
           port = c("escape", "1048576", "1e9", "6"), port_note = " (Algorithm 1, Euler)")),
    c(he4_case("gpu"),
      list(label = "he4_vmc, N = 512, walkers = \"auto\" (16 an SM), mixed", port = NULL)),
    c(xorsat_case("gpu", 4000),
      list(label = "xorsat_qg, n = 384, one run, clones = \"auto\", p1 = 0", port = NULL)))
  if (Sys.getenv("SP_WHOLE_VARIANTS") == "1") {
    free <- driven_case(2^20, 2000, "gpu", name = "driven_free")
    fun <- free$fun
    free$fun <- function(len) withr::with_options(list(statphysgpu.driven_variant = "_free"),
                                                  fun(len))
    cases[[length(cases) + 1]] <- c(free, list(
      label = "driven_brownian as above, kernel without the register cap (_free)",
      port = c("driven", "1048576", "200000")))
  }
  for (cs in cases) run_case(cs)
}

if (what %in% c("cpu", "all")) {
  dev <- cpu_device()
  # the CPU side of the calls at the GPU sizes (a few steps: the fixed
  # costs are what is measured) and the issue's CPU bound: an lrmd("hmf")
  # call at n = 5e6 costs at most 0.3 s besides its steps
  cases <- list(
    c(lrmd_case("hmf", 5e6, 4, "cpu", warm_n = 1000),
      list(label = "CPU: lrmd hmf, n = 5e6, init = hmf_waterbag(), 4 steps", port = NULL)),
    c(driven_case(2^20, 2, "cpu"),
      list(label = "CPU: driven_brownian, 2^20 paths, 200 steps", port = NULL)),
    c(escape_case(2^20, "euler", "cpu", t_max = 1),
      list(label = "CPU: escape_times, 2^20 paths, t_max = 1, euler", port = NULL)),
    c(xorsat_case("cpu", 200, runs = 4),
      list(label = "CPU: xorsat_qg, n = 384, 4 runs of 256 clones, p1 = 0", port = NULL)))
  for (cs in cases) run_case(cs)
}

bench_print()
if (length(wide)) {
  cat(sprintf("\n| case | whole call | engine | unit | fixed cost (s) | wall (s) | engine (s) | wall / (1.1 engine + 0.15) | port | engine / port |\n|---|---|---|---|---|---|---|---|---|---|\n"))
  for (w in wide) {
    cat(sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w$case, w$whole_call,
                w$engine, w$unit, w$fixed_s, w$wall_s, w$engine_s, w$bound, w$port,
                w$engine_over_port))
  }
  cat(sprintf("\ndevice %s, commit %s, %s\n", paste(unique(vapply(rows, function(r) r$device, "")),
                                                  collapse = "; "), commit, date))
}
