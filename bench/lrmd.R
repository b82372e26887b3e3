# Long-range MD benchmarks (issue 12): HMF particle-steps/s at n = 1e6 ..
# 5e7 against the bandwidth bound, ring and gravity2d pair interactions/s at
# n = 1e4 .. 1e6 on the GPU; CPU figures on one core and all cores.
#
#   Rscript bench/lrmd.R [gpu|multi|cpu|whole|memory|replicas|systems|all]     (default all)
#   Rscript bench/lrmd.R replicas [cpu|gpu] [replicas] [n1,n2,...]
#   Rscript bench/lrmd.R systems [k1,k2,...]
#
# "systems" (issue 34 item 4): ring and gravity2d at n = 1e4 and 1e5, one
# system against k systems side by side (`replicas = k`: one launch a pass
# over all of them, lrmd()'s batches), the package's default kernels, the
# fused and the separate pair passes: steady-state pair interactions/s of
# all the systems together (3 n^2 k a step), per cent of the ceilings and
# the speed-up over one system.  k: 1,4,8,16,32 by default; at n = 1e5
# those of at most 2^20 particles (one launch: 10 systems).  Not part of
# "all".  One system of 1e4 particles on an H100: 40 tiles x 26 parts of
# 385 sources, a single wave (63 per cent of the gravity2d ceiling, 85 of
# ring's); k systems make k waves of the same blocks in one launch.
#
# "replicas" (issue 23): the quasi-stationary-state lifetime study of the
# HMF (Yamaguchi, Barre, Bouchet, Dauxois and Ruffo, Physica A 337 (2004)
# 36: the homogeneous waterbag, M0 = 0, at U = 0.69 is Vlasov-stable and
# leaves its quasi-stationary state after a time ~ n^1.7) as ONE lrmd() call
# per n over `replicas` systems (default 8; n cannot be swept: it is the size
# of one system, and a start holds one size), run to t = 0.6 n^1.7 (about
# three lifetimes: a CPU run at n = 250 and 500, 8 replicas, crossed the
# midpoint below at t ~ 2300 and ~ 7500, 0.19 n^1.7) with dt = 0.2,
# records every 50 steps (t = 10).  Rows: each call's system-steps and
# particle-steps per second (wall time of the whole call), each n's
# lifetime -- the first time the mean M of the replicas, averaged over 20
# records centred on it,
# records, passes the midpoint between its quasi-stationary level (its mean
# over the first 2 per cent of the run) and the equilibrium M of U = 0.69
# (hmf_caloric(); NA when it never does) -- and the exponent of lifetime
# against n (a least-squares line in log-log; 1.7 in the literature).  Not
# part of "all".  (Until 2026-11-25 (session 3) the study started from
# M0 = 1 and ran to t = 8 n, too short for an n^1.7 lifetime, and measured
# the violent relaxation instead: see bench/RESULTS.md.)
# Defaults: cpu n = 250, 500, 1000; gpu n = 1000, 2000, 4000.  On the GPU the
# systems of a call run side by side (one launch a pass over all of them,
# lrmd()'s batches), and each n also gets the rate of one system a launch
# (option statphysgpu.lrmd_batch = FALSE, the path before the batches) and
# of the batch over the same SP_LRMD_CMP_STEPS steps (default 2000), and
# their ratio: the batches' speed-up.
#   Rscript bench/lrmd.R replicas gpu 64 1000,2000,4000
#
# "whole" (issue 22): the whole lrmd() call against its engine, on the GPU
# (HMF n = 5e7 from hmf_waterbag(), 200 and 1000 steps; ring and gravity2d
# n = 1e5, 20 and 100 steps) and on the CPU (HMF n = 5e6, 2 and 12 steps):
# the whole call's rate, the engine's (`seconds`), the fixed cost of a call
# as the intercept of the whole call's times at the two lengths, and whether
# the whole call is within 1.1 x engine + 0.15 s.  lrmd_whole_call() below
# is what bench/whole-call.R calls: it sources this file first with
# SP_LRMD_DEFINE_ONLY=1 (the functions only; sourcing resets common.R's
# table).  "memory": the peak memory of a run per particle (lrmd_bytes() in
# R/lrmd.R), on the CPU; run it with MALLOC_MMAP_THRESHOLD_=65536.
#
# "multi": the largest systems on one GPU and on all GPUs (target: two
# GPUs at least 1.8x one), with the package's default variant.
# SP_LRMD_VARIANTS=v1,v2,...: "gpu" times only the pair models in these
# variants (no HMF, no accuracy rows).  SP_LRMD_BPS=b1,b2,...: also the
# default kernels at n = 1e4 and 1e5 with the parts cut for b blocks an SM
# (option statphysgpu.lrmd_blocks_per_sm; 0: as many as fit; fewer than
# fit: longer parts; more: shorter parts in several waves).
#
# GPU rates are steady-state: the time of 3 s steps minus that of s steps
# (records only at the start and the end), so that the uploads and
# downloads of the state do not count.
# HMF bound: inside a round a Yoshida step is three fused passes (lrmd.cu:
# the last drift of a step and the first of the next share a pass); each
# reads and writes the angle and the momentum (32 bytes a particle, double):
# 96 bytes a particle-step.  The H100's measured 2.84 TB/s (REFERENCES.md
# section 8) gives 2.96e10 particle-steps/s.  The sines and cosines (four
# single-precision MUFU operations a pass) allow 3.5e11: bandwidth binds.
# (The issue's 2.3e11 particles/s per fused pass was measured with less
# traffic per particle than double positions and momenta need: 2.84e12 / 32
# = 8.9e10 passes/s at most.)
# Pairs: three force evaluations a step, n^2 pair terms each: pair
# interactions/s = 3 n^2 steps / s.  Targets: 80 per cent of the ceilings of
# REFERENCES.md section 8 (ring 2.15e12, gravity2d 3.1e12 pairs/s).  Mixed
# precision in three variants: "mixed" (sums of 8 pair terms in single, then
# double), "mixed_ftz" (the same numbers, the hardware's reciprocal and
# reciprocal square root without subnormal handling), "mixed_ftz_pf" (the
# same numbers, the source tiles double-buffered) and "mixed_pair" (every
# pair term added in double); "+fused": the kick and the drift in the pair
# pass (three launches a step instead of ten).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- if (nzchar(Sys.getenv("SP_LRMD_DEFINE_ONLY"))) "none" else bench_arg("all")
echo <- "%-50s %11.4g %s  " # the note follows
# variant: a kernel variant of lrmd.cu, "+fused" appended for the fused
# pair pass (option statphysgpu.lrmd_fused)
# variant NULL: the package's default
run <- function(model, init, steps, backend, precision, dt = 0.01, variant = "mixed",
                devices = NULL) {
  # (`variant` named the deleted built-in engine's kernels and passes, issue
  # 50: lrmd() runs on the one engine since session 16, whatever it says;
  # rows keep their labels for comparison with earlier runs)
  lrmd(model, init = init, dt = dt, steps = steps, record_every = steps,
       backend = backend, devices = devices, precision = precision, progress = FALSE)
}
# seconds of `steps` steps (records only at the start and the end)
timed <- function(...) attr(run(...), "seconds")
# steady-state seconds a step on the GPU: 3 s steps minus s steps
per_step <- function(model, init, s, precision, variant, devices = NULL) {
  run(model, starts(model, 1000), 1, "gpu", precision, variant = variant,
      devices = devices) # compile, warm
  (timed(model, init, 3 * s, "gpu", precision, variant = variant, devices = devices) -
     timed(model, init, s, "gpu", precision, variant = variant, devices = devices)) / (2 * s)
}
# The whole lrmd() call against its engine (issue 22): the case run at two
# lengths steps[1] < steps[2], `reps` times each (the least time of each
# kept), the start made by make_init(n) inside the timed call.  The fixed
# cost of a call is the intercept of the whole call's times (never the
# whole call less `seconds`); the rates are those of the longer run.
lrmd_whole_call <- function(model, n, steps, backend, make_init, dt = 0.01, reps = 3,
                            devices = NULL) {
  run <- function(s) {
    lrmd(model, init = make_init(n), dt = dt, steps = s, record_every = s, backend = backend,
         devices = devices, progress = FALSE)
  }
  invisible(run(steps[1])) # compile or read the kernel cache, warm
  wall <- eng <- matrix(NA_real_, 2, reps)
  for (r in seq_len(reps)) for (i in 1:2) {
    invisible(gc())
    t0 <- proc.time()[["elapsed"]]
    x <- run(steps[i])
    wall[i, r] <- proc.time()[["elapsed"]] - t0
    eng[i, r] <- attr(x, "seconds")
    rm(x)
  }
  wall <- apply(wall, 1, min)
  eng <- apply(eng, 1, min)
  slope <- (wall[2] - wall[1]) / (steps[2] - steps[1])
  work <- if (model == "hmf") n else 3 * n^2 # particle-steps or pair terms a step
  list(whole_rate = work * steps[2] / wall[2], engine_rate = work * steps[2] / eng[2],
       fixed = wall[1] - slope * steps[1], within = wall[2] <= 1.1 * eng[2] + 0.15,
       wall = wall, engine = eng, unit = if (model == "hmf") "particle-steps/s" else
         "pair interactions/s")
}

# Rows of a lrmd_whole_call() result.
add_whole_call <- function(label, w, device) {
  add(sprintf("%s: whole call", label), w$whole_rate, w$unit, device,
      sprintf("%.3f s (engine %.3f s); %s 1.1 x engine + 0.15 s", w$wall[2], w$engine[2],
              if (w$within) "within" else "NOT within"))
  add(sprintf("%s: engine (seconds)", label), w$engine_rate, w$unit, device)
  add(sprintf("%s: fixed cost a call (intercept)", label), w$fixed, "s", device,
      sprintf("whole call %.3f / %.3f s at the two lengths", w$wall[1], w$wall[2]))
}

starts <- function(model, n) {
  switch(model, hmf = hmf_waterbag(n, 1, 0.69, seed = 1),
         ring = ring_uniform(n, p0 = 0.3, seed = 1),
         gravity2d = gravity2d_shell(n, 0.5, 1, seed = 1))
}

# one row per GPU in sp_backends(): any usable one
has_gpu <- any(sp_backends()$available[sp_backends()$backend == "gpu"])
if (what %in% c("gpu", "all") && has_gpu) {
  dev <- gpu_devices()$name[1]
  bound <- HBM / 96
  only <- Sys.getenv("SP_LRMD_VARIANTS")
  variants <- if (nzchar(only)) strsplit(only, ",")[[1]] else
    c("mixed", "mixed_ftz", "mixed_ftz+fused", "mixed_ftz_pf", "mixed_ftz_pf+fused", "mixed_pair",
      "double")
  for (n in if (nzchar(only)) numeric() else c(1e6, 1e7, 5e7)) {
    w <- starts("hmf", n)
    for (prec in c("mixed", "double")) {
      # s steps: about a second of the difference, so that the jitter of
      # the state's transfers (1.6 GB at n = 5e7) does not count
      rate <- n / per_step("hmf", w, max(20, round(2e10 / n)), prec, "mixed")
      add(sprintf("HMF n = %g, %s", n, prec), rate, "particle-steps/s", dev,
          sprintf("%.0f per cent of the bandwidth bound %.3g", 100 * rate / bound, bound))
    }
  }
  for (model in c("ring", "gravity2d")) {
    ceiling <- if (model == "ring") 2.15e12 else 3.1e12
    for (n in c(1e4, 1e5, 1e6)) {
      w <- starts(model, n)
      s <- max(1, round(1e12 / (3 * n^2)))
      for (v in setdiff(variants, if (n > 1e5) "double")) {
        prec <- if (v == "double") "double" else "mixed"
        rate <- 3 * n^2 / per_step(model, w, s, prec, v)
        add(sprintf("%s n = %g, %s", model, n, v), rate, "pair interactions/s", dev,
            if (prec == "mixed") sprintf("%.0f per cent of the ceiling %.3g", 100 * rate / ceiling,
                                         ceiling) else "")
      }
    }
  }
  for (b in as.integer(strsplit(Sys.getenv("SP_LRMD_BPS"), ",")[[1]])) {
    for (model in c("ring", "gravity2d")) {
      for (n in c(1e4, 1e5)) {
        rate <- withr::with_options(list(statphysgpu.lrmd_blocks_per_sm = b),
                                    3 * n^2 / per_step(model, starts(model, n),
                                                       max(1, round(1e12 / (3 * n^2))), "mixed",
                                                       NULL))
        add(sprintf("%s n = %g, default kernels, parts for %d blocks an SM", model, n, b), rate,
            "pair interactions/s", dev)
      }
    }
  }
  # accuracy of the variants: the largest |relative energy error| of 400
  # steps of the 2D shell's collapse (n = 2e4, dt = 0.005)
  w <- starts("gravity2d", 2e4)
  for (v in if (nzchar(only)) character() else c("mixed", "double")) {
    x <- lrmd("gravity2d", init = w, dt = 0.005, steps = 400, record_every = 10,
              backend = "gpu", progress = FALSE, precision = v)
    add(sprintf("gravity2d n = 2e4, 400 steps of 0.005, %s", v), max(abs(x$energy_error)),
        "max |energy error|", dev)
  }
}

if (what == "systems" && has_gpu) {
  dev <- gpu_devices()$name[1]
  ks <- as.numeric(strsplit(bench_arg("1,4,8,16,32", 2), ",")[[1]])
  # steady-state pair interactions/s of k systems: 3 s steps minus s steps
  rate_of <- function(model, n, k, fused) {
    w <- starts(model, n)
    go <- function(s) {
      attr(lrmd(model, init = w, dt = 0.01, steps = s, record_every = s, replicas = k,
                backend = "gpu", progress = FALSE), "seconds") # (`fused`: the deleted engine's)
    }
    s <- max(2, round(1e12 / (3 * n^2 * k)))
    go(1) # compile, warm
    3 * n^2 * k * 2 * s / (go(3 * s) - go(s))
  }
  for (model in c("ring", "gravity2d")) {
    ceiling <- if (model == "ring") 2.15e12 else 3.1e12
    for (n in c(1e4, 1e5)) for (fused in c(TRUE, FALSE)) {
      one <- NA
      for (k in unique(c(1, ks[ks * n <= 2^20]))) {
        r <- rate_of(model, n, k, fused)
        if (k == 1) one <- r
        add(sprintf("%s n = %g, %g system%s%s", model, n, k,
                    if (k == 1) "" else "s side by side", if (fused) "" else ", separate passes"),
            r, "pair interactions/s", dev,
            sprintf("%.0f per cent of the ceiling %.3g%s", 100 * r / ceiling, ceiling,
                    if (k > 1) sprintf("; %.2fx one system", r / one) else ""))
      }
    }
  }
}

ngpu <- if (has_gpu) nrow(gpu_devices()) else 0
if (what %in% c("multi", "all") && ngpu >= 2) {
  dev <- sprintf("%d x %s", ngpu, gpu_devices()$name[1])
  for (cs in list(list("hmf", 5e7, 400, "particle-steps/s"),
                  list("ring", 1e6, 1, "pair interactions/s"),
                  list("gravity2d", 1e6, 1, "pair interactions/s"))) {
    model <- cs[[1]]; n <- cs[[2]]; s <- cs[[3]]
    w <- starts(model, n)
    work <- if (model == "hmf") n else 3 * n^2
    one <- work / per_step(model, w, s, "mixed", NULL, devices = 0)
    all <- work / per_step(model, w, s, "mixed", NULL, devices = "all")
    add(sprintf("%s n = %g, mixed, 1 GPU", model, n), one, cs[[4]], dev)
    add(sprintf("%s n = %g, mixed, %d GPUs", model, n, ngpu), all, cs[[4]], dev,
        sprintf("%.2fx one GPU", all / one))
  }
}

if (what %in% c("cpu", "all")) {
  for (th in unique(c(1, sp_threads()))) {
    old <- sp_threads(th)
    dev <- sprintf("CPU (%d thread%s)", th, if (th == 1) "" else "s")
    n <- 1e6
    w <- starts("hmf", n)
    for (prec in c("mixed", "double")) {
      s <- timed("hmf", w, 20, "cpu", prec)
      add(sprintf("HMF n = %g, %s", n, prec), n * 20 / s, "particle-steps/s", dev,
          sprintf("%.3g per core", n * 20 / s / th))
    }
    for (model in c("ring", "gravity2d")) {
      n <- 1e4
      w <- starts(model, n)
      for (prec in c("mixed", "double")) {
        s <- timed(model, w, 2, "cpu", prec)
        add(sprintf("%s n = %g, %s", model, n, prec), 3 * n^2 * 2 / s, "pair interactions/s",
            dev, sprintf("%.3g per core", 3 * n^2 * 2 / s / th))
      }
    }
    sp_threads(old)
  }
}

if (what %in% c("whole", "all")) {
  if (has_gpu) {
    dev <- gpu_devices()$name[1]
    add_whole_call("HMF n = 5e7, hmf_waterbag(), 1000 steps",
                   lrmd_whole_call("hmf", 5e7, c(200, 1000), "gpu",
                                   function(n) hmf_waterbag(n, 1, 0.69, seed = 1), dt = 0.05),
                   dev)
    for (model in c("ring", "gravity2d")) {
      add_whole_call(sprintf("%s n = 1e5, 100 steps", model),
                     lrmd_whole_call(model, 1e5, c(20, 100), "gpu",
                                     function(n) starts(model, n)), dev)
    }
  }
  dev <- cpu_device()
  for (M0 in c(1, 0.5)) {
    add_whole_call(sprintf("CPU HMF n = 5e6, hmf_waterbag(M0 = %g), 12 steps", M0),
                   lrmd_whole_call("hmf", 5e6, c(2, 12), "cpu",
                                   function(n) hmf_waterbag(n, M0, 0.69, seed = 1), dt = 0.1),
                   dev)
  }
  # making a start and reading it (the draw on the CPU)
  t_make <- min(replicate(3, system.time(hmf_waterbag(5e6, 1, 0.69, seed = 1))[["elapsed"]]))
  t_draw <- min(replicate(3, system.time(sum(hmf_waterbag(5e6, 1, 0.69, seed = 1)$p))[["elapsed"]]))
  add("hmf_waterbag(5e6): made", t_make, "s", dev)
  add("hmf_waterbag(5e6): made and drawn (a column read)", t_draw, "s", dev)
}

if (what == "memory") {
  # peak resident memory of a run beyond its start, per particle (VmHWM of
  # /proc/self/status reset before the run)
  rss <- function(f) {
    as.numeric(gsub("[^0-9]", "", grep(paste0("^", f, ":"), readLines("/proc/self/status"),
                                       value = TRUE))) * 1024
  }
  peak <- function(expr) {
    invisible(gc())
    base <- rss("VmRSS")
    writeLines("5", "/proc/self/clear_refs")
    force(expr)
    rss("VmHWM") - base
  }
  dev <- cpu_device()
  for (cs in list(list("hmf", 1e6, 0.1), list("hmf", 1e7, 0.1), list("ring", 2e4, 0.01),
                  list("gravity2d", 2e4, 0.01))) {
    model <- cs[[1]]; n <- cs[[2]]; dt <- cs[[3]]
    for (drawn in c(TRUE, FALSE)) for (prec in c("mixed", "double")) for (ns in c(0, 4)) {
      w <- starts(model, n)
      if (!drawn) invisible(sum(w[[1]])) # read: the start is given as numbers
      b <- peak(x <- lrmd(model, init = w, dt = dt, steps = 3, record_every = 1,
                          snapshots = if (ns) seq(0, by = dt, length.out = ns), backend = "cpu",
                          precision = prec, progress = FALSE))
      add(sprintf("%s n = %g, %s start, %s, %d snapshots", model, n,
                  if (drawn) "engine-drawn" else "given", prec, ns), b / n, "B a particle", dev)
      rm(x, w)
    }
  }
  w <- starts("hmf", 1e6)
  a <- lrmd("hmf", init = w, dt = 0.1, steps = 7, record_every = 5, backend = "cpu",
            precision = "double", progress = FALSE)
  for (prec in c("mixed", "double")) {
    b <- peak(x <- lrmd(init = a, dt = 0.1, steps = 6, record_every = 5, backend = "cpu",
                        precision = prec, progress = FALSE))
    add(sprintf("hmf n = 1e6, continuation off the record grid, %s", prec), b / 1e6,
        "B a particle", dev)
  }
}

if (what == "replicas") {
  backend <- bench_arg("cpu", 2)
  reps <- as.numeric(bench_arg("8", 3))
  ns <- as.numeric(strsplit(bench_arg(if (backend == "gpu") "1000,2000,4000" else
    "250,500,1000", 4), ",")[[1]])
  dev <- if (backend == "gpu") gpu_first()$name[1] else cpu_device()
  m_eq <- hmf_caloric(0.69)$M
  life <- numeric()
  for (n in ns) {
    dt <- 0.2
    every <- 50
    steps <- every * ceiling(0.6 * n^1.7 / dt / every)
    t0 <- proc.time()[["elapsed"]]
    x <- lrmd("hmf", init = hmf_waterbag(n, M0 = 0, U = 0.69, seed = 1), dt = dt, steps = steps,
              record_every = every, replicas = reps, backend = backend, progress = FALSE)
    wall <- proc.time()[["elapsed"]] - t0
    add(sprintf("HMF QSS study n = %g, %g replicas, one call: system-steps/s", n, reps),
        reps * steps / wall, "system-steps/s", dev,
        sprintf("%.2f s wall, engine %.2f s", wall, attr(x, "seconds")))
    add(sprintf("HMF QSS study n = %g, %g replicas, one call: particle-steps/s", n, reps),
        reps * steps * n / wall, "particle-steps/s", dev)
    if (backend == "gpu") {
      # the batch against one system a launch, over the same (shorter) run
      cmp_steps <- min(steps, as.numeric(Sys.getenv("SP_LRMD_CMP_STEPS", "2000")))
      rate <- function(batch) {
        withr::local_options(statphysgpu.lrmd_batch = batch)
        t0 <- proc.time()[["elapsed"]]
        lrmd("hmf", init = hmf_waterbag(n, M0 = 0, U = 0.69, seed = 1), dt = dt,
             steps = cmp_steps, record_every = every, replicas = reps, backend = "gpu",
             progress = FALSE)
        reps * cmp_steps / (proc.time()[["elapsed"]] - t0)
      }
      r_one <- rate(FALSE)
      r_batch <- rate(TRUE)
      add(sprintf("HMF n = %g, %g replicas, %g steps: one system a launch", n, reps, cmp_steps),
          r_one, "system-steps/s", dev)
      add(sprintf("HMF n = %g, %g replicas, %g steps: side by side", n, reps, cmp_steps),
          r_batch, "system-steps/s", dev)
      add(sprintf("HMF n = %g, %g replicas: speed-up of the batch", n, reps), r_batch / r_one,
          "x", dev)
    }
    Mbar <- tapply(x$M, x$step, mean)
    sm <- as.numeric(stats::filter(Mbar, rep(1 / 20, 20), sides = 2))
    # from the quasi-stationary level (the mean M over the first 2 per cent
    # of the run) to the equilibrium: the first time past the midpoint
    tt <- as.numeric(names(Mbar)) * dt
    qss <- mean(Mbar[tt <= 0.02 * steps * dt])
    mid <- (qss + m_eq) / 2
    hit <- which(sm > mid)[1]
    tl <- if (is.na(hit)) NA_real_ else tt[hit]
    life <- c(life, tl)
    add(sprintf("HMF QSS lifetime n = %g (mean M of %g replicas)", n, reps), tl, "t", dev,
        sprintf("QSS M %.3f, late M %.3f (equilibrium %.3f), run to t = %.3g%s", qss,
                mean(utils::tail(Mbar, length(Mbar) %/% 5)), m_eq, steps * dt,
                if (is.na(tl)) ", no rise" else ""))
  }
  ok <- is.finite(life)
  if (sum(ok) >= 2) {
    slope <- unname(stats::coef(stats::lm(log(life[ok]) ~ log(ns[ok])))[2])
    add("HMF QSS lifetime exponent (log-log slope)", slope, "", dev,
        sprintf("n = %s; literature 1.7", paste(ns[ok], collapse = ", ")))
  }
}

if (what != "none") bench_print("lrmd")
