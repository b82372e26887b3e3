# Benchmark: helium diffusion Monte Carlo (issue 35) on the GPU.
#
#   SP_COMMIT=<commit> Rscript bench/he4-dmc.R          (speed, two GPUs, the energy)
#   SP_COMMIT=<commit> Rscript bench/he4-dmc.R speed    (N = 256: t sigma^2, 2 mK)
#   SP_COMMIT=<commit> Rscript bench/he4-dmc.R energy   (N = 108: E/N extrapolated)
#   SP_COMMIT=<commit> Rscript bench/he4-dmc.R cpu      (the CPU engine alone)
#   SP_DMC_CASES=N:dt:P,... Rscript bench/he4-dmc.R cases   (single runs)
#
# Prints one table (metric, value, unit, device, commit, date).  Targets
# (issue 35): a DMC energy to 2 mK at N = 256 on one H100 in minutes,
# measured as t sigma^2 like VMC (t sigma^2 / 4 mK^2 = the seconds to 2 mK);
# two GPUs >= 1.8x (populations shared by the devices); E/N at the
# equilibrium density 0.02186 A^-3 extrapolated to dt -> 0 (quadratic with
# the accept/reject step) and 1/P -> 0, plus the tail correction, within the
# published DMC value's error plus ours: Boronat and Casulleras, Phys. Rev.
# B 49, 8920 (1994), HFD-B(HE), -7.27 K per atom at 0.365 sigma^-3
# (REFERENCES.md section 12); experiment -7.17 K.  Their N and tail: the
# tail correction of he4_tail_correction() (g(r) = 1 beyond L/2), N = 108
# here (set SP_DMC_N to compare sizes).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("all")
rho <- 0.02186
published <- -7.27 # K per atom, Boronat and Casulleras (1994), HFD-B(HE)

# VMC walkers of the guide (b = 3.07), equilibrated: the DMC's start.
vmc_start <- function(n, backend, walkers) {
  he4_vmc(n, density = rho, replicas = walkers, blocks = 2, block_sweeps = 50,
          equilibration = 300, seed = 1, backend = backend, precision = "double",
          progress = FALSE)
}

# t sigma^2 of the recorded part of a DMC run (s mK^2): its seconds times
# the squared reblocked standard error of E/N in mK (level 0 when the
# reblocking finds no plateau, a lower bound, flagged in the note).
t_sigma2 <- function(x, frac) {
  s <- summary(x)
  se <- s$se[1]
  note <- ""
  if (!is.finite(se)) {
    se <- attr(s, "se_blocks")[["energy"]]
    note <- "level-0 error (no plateau): a lower bound"
  }
  list(value = attr(x, "seconds") * frac * (1e3 * se)^2, se = se, note = note,
       summary = s)
}

if (what == "cpu") {
  dev <- cpu_device()
  v <- vmc_start(64, "cpu", sp_threads())
  x <- he4_dmc(64, dt = 0.001, walkers = 200, blocks = 10, block_steps = 20,
               equilibration = 50, init = v, seed = 2, backend = "cpu", progress = FALSE)
  gens <- 250 * mean(x$population)
  add("CPU, N = 64: walker generations per second", gens / attr(x, "seconds"), "1/s")
  ts <- t_sigma2(x, 200 / 250)
  add("CPU, N = 64, dt = 0.001: t sigma^2 (recorded part)", ts$value, "s mK^2",
      note = ts$note)
  bench_print(brief = TRUE)
  quit(save = "no")
}

d <- gpu_first()
dev <- d$name[1]
sms <- d$multiprocessors[1]
invisible(he4_dmc(32, dt = 0.002, walkers = 32, blocks = 1, block_steps = 2,
                  equilibration = 0, seed = 1, backend = "gpu", progress = FALSE)) # compile

if (what %in% c("all", "speed")) {
  n <- 256
  P <- as.numeric(Sys.getenv("SP_DMC_POP", 16 * sms)) # walkers: 16 warps per SM
  dt <- as.numeric(Sys.getenv("SP_DMC_DT", 0.0005))
  v <- vmc_start(n, "gpu", 16 * sms)
  eq <- 400
  blocks <- 20
  bs <- 50
  x <- he4_dmc(n, density = rho, dt = dt, walkers = P, blocks = blocks, block_steps = bs,
               equilibration = eq, init = v, seed = 2, backend = "gpu", progress = FALSE)
  frac <- blocks * bs / (eq + blocks * bs)
  ts <- t_sigma2(x, frac)
  add(sprintf("GPU, N = %d, dt = %g, P = %g: walker generations per second", n, dt, P),
      (eq + blocks * bs) * mean(x$population) / attr(x, "seconds"), "1/s")
  add(sprintf("GPU, N = %d: pair evaluations per second (one per ordered pair and move)", n),
      (eq + blocks * bs) * mean(x$population) * n * (n - 1) / attr(x, "seconds"), "1/s")
  add(sprintf("GPU, N = %d, dt = %g: t sigma^2 of E/N (recorded part)", n, dt), ts$value,
      "s mK^2", note = ts$note)
  add(sprintf("GPU, N = %d, dt = %g: seconds to 2 mK (t sigma^2 / 4)", n, dt), ts$value / 4,
      "s")
  add(sprintf("GPU, N = %d, dt = %g: E/N (mixed, no tail)", n, dt), ts$summary$mean[1], "K",
      note = sprintf("+- %.4f; acceptance %.3f", ts$se, attr(ts$summary, "acceptance")))
  # the whole call against its engine, as bench/whole-call.R measures every
  # simulator (issue 22's bound: wall <= 1.1 engine + 0.15 s): a 200-generation
  # continuation of the run above
  wall <- system.time(
    xw <- he4_dmc(n, density = rho, dt = dt, walkers = P, blocks = 4, block_steps = 50,
                  equilibration = 0, init = x, backend = "gpu", progress = FALSE))[["elapsed"]]
  eng <- attr(xw, "seconds")
  add("GPU: whole call seconds / engine seconds (200 generations)", wall / eng, "",
      note = sprintf("wall %.3f s, engine %.3f s", wall, eng))
  add("GPU: wall / (1.1 engine + 0.15 s), at most 1 (issue 22)", wall / (1.1 * eng + 0.15), "")
  if (nrow(d) >= 2) {
    run2 <- function(devs) {
      he4_dmc(n, density = rho, dt = dt, walkers = P, blocks = 2, block_steps = 100,
              equilibration = 0, populations = 2, seed = 3, backend = "gpu",
              devices = devs, init = NULL, progress = FALSE)
    }
    invisible(run2(d$id[1:2]))
    t1 <- attr(run2(d$id[1]), "seconds")
    t2 <- attr(run2(d$id[1:2]), "seconds")
    add("two GPUs: speed-up of two populations over one GPU", t1 / t2, "x")
  }
}

if (what %in% c("all", "energy")) {
  n <- as.numeric(Sys.getenv("SP_DMC_N", 108))
  v <- vmc_start(n, "gpu", 16 * sms)
  runs <- list()
  # the same imaginary time at every dt (K^-1): tau_eq of equilibration (the
  # projection out of the guide: the first run, 1000 generations at dt =
  # 0.00025, projected for 0.25 K^-1 only), tau_rec recorded in 30 blocks
  tau_eq <- as.numeric(Sys.getenv("SP_DMC_TAU_EQ", 2))
  tau_rec <- as.numeric(Sys.getenv("SP_DMC_TAU_REC", 3))
  one <- function(dt, P, eq = ceiling(tau_eq / dt), blocks = 30,
                  bs = ceiling(tau_rec / (30 * dt)), eff = TRUE) {
    he4_dmc(n, density = rho, dt = dt, walkers = P, target_population = P, blocks = blocks,
            block_steps = bs, equilibration = eq, init = v, seed = length(runs) + 10,
            effective_step = eff, backend = "gpu", progress = FALSE)
  }
  dts <- as.numeric(strsplit(Sys.getenv("SP_DMC_DTS", "0.00025,0.0005,0.001"), ",")[[1]])
  pops <- as.numeric(strsplit(Sys.getenv("SP_DMC_POPS", "500,1000"), ",")[[1]])
  p_main <- as.numeric(Sys.getenv("SP_DMC_P", 2000))
  for (dt in dts) runs[[length(runs) + 1]] <- one(dt, p_main)
  for (P in pops) runs[[length(runs) + 1]] <- one(0.0005, P)
  show <- function(x, what = "") {
    s <- summary(x)
    p <- attr(x, "params")
    add(sprintf("N = %g, dt = %g, P = %g%s: E/N (mixed, no tail)", n, p$dt,
                p$target_population, what), s$mean[1], "K",
        note = sprintf("+- %.4f; acceptance %.3f; effective dt %.4g; overflow %g",
                       if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[[1]],
                       attr(s, "acceptance"), attr(s, "effective_dt"), attr(s, "overflow")))
  }
  for (x in runs) show(x)
  # the previous weights (over dt) at the largest dt, for the change's size
  if (Sys.getenv("SP_DMC_COMPARE", "1") == "1") {
    show(one(max(dts), p_main, eff = FALSE), ", weights over dt (before)")
  }
  ex <- he4_dmc_extrapolate(runs)
  print(ex)
  add(sprintf("N = %g: E0/N extrapolated (%s) + tail", n,
              paste(ex$extrapolations, collapse = ", ")), ex$energy_corrected, "K",
      note = sprintf("+- %.4f; tail %.4f; chi2 %.2f / %d", ex$se, ex$tail_correction,
                     ex$chisq, ex$df))
  add(sprintf("N = %g: (E0 - published %.2f K) / se", n, published),
      (ex$energy_corrected - published) / ex$se, "")
  add(sprintf("N = %g: E0 - experiment (-7.17 K)", n), ex$energy_corrected + 7.17, "K")
}
if (what %in% c("size")) {
  # the finite-size check: E/N + tail at one dt for several N (the same
  # imaginary times as "energy"), to see how much the comparison with a
  # published value depends on the N it was computed with
  dt <- as.numeric(Sys.getenv("SP_DMC_DT", 0.0005))
  tau_eq <- as.numeric(Sys.getenv("SP_DMC_TAU_EQ", 2))
  tau_rec <- as.numeric(Sys.getenv("SP_DMC_TAU_REC", 3))
  for (n in as.numeric(strsplit(Sys.getenv("SP_DMC_NS", "64,108,256"), ",")[[1]])) {
    v <- vmc_start(n, "gpu", 16 * sms)
    x <- he4_dmc(n, density = rho, dt = dt, walkers = 2000, target_population = 2000,
                 blocks = 30, block_steps = ceiling(tau_rec / (30 * dt)),
                 equilibration = ceiling(tau_eq / dt), init = v, seed = 20 + n,
                 backend = "gpu", progress = FALSE)
    s <- summary(x)
    se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[[1]]
    tail <- attr(x, "tail_correction")
    add(sprintf("N = %g, dt = %g: E/N (mixed, no tail)", n, dt), s$mean[1], "K",
        note = sprintf("+- %.4f; acceptance %.3f", se, attr(s, "acceptance")))
    add(sprintf("N = %g, dt = %g: E/N + tail", n, dt), s$mean[1] + tail, "K",
        note = sprintf("+- %.4f; tail %.4f", se, tail))
  }
}
if (what %in% c("pop")) {
  # the population dependence at N = 256 (run 5: 0.08 K between P = 500 and
  # 2000): E/N against P at one dt, the walkers dropped at the capacity, and
  # the feedback's part (a weaker feedback at the smallest populations)
  n <- as.numeric(Sys.getenv("SP_DMC_N", 256))
  dt <- 0.0005
  v <- vmc_start(n, "gpu", 16 * sms)
  one <- function(P, fb = 0.1) {
    x <- he4_dmc(n, density = rho, dt = dt, walkers = P, target_population = P, blocks = 30,
                 block_steps = ceiling(3 / (30 * dt)), equilibration = ceiling(2 / dt), init = v,
                 feedback = fb, seed = 40 + P, backend = "gpu", progress = FALSE)
    s <- summary(x)
    se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[[1]]
    add(sprintf("N = %g, dt = %g, P = %g, feedback %g: E/N (mixed, no tail)", n, dt, P, fb),
        s$mean[1], "K", note = sprintf("+- %.4f; population %.1f; overflow %g; trial %.3f",
                                       se, mean(x$population), attr(s, "overflow"),
                                       mean(x$trial_energy)))
  }
  for (P in c(250, 500, 1000, 2000, 4000)) one(P)
  for (P in c(250, 500)) one(P, 0.02)
}
if (what %in% c("cases")) {
  # single runs named in SP_DMC_CASES, "N:dt:P" separated by commas (2 K^-1
  # of projection, 3 K^-1 recorded): the population and small-dt probes of
  # the size question (RESULTS DMC run 8).  Options of he4_dmc() may follow,
  # "N:dt:P:b=2.9:accept=0:drift_limit=0:effective_step=0:feedback=0.02"
  # (b: the guide of the VMC start and the walk; L=8: a box of side 8 A in
  # place of the equilibrium density, for the two-atom reference of
  # inst/scripts/he4-two-atoms-exact.R); the note gives the mean
  # trial energy (a growth estimate, biased up by the population feedback's
  # mean of ln(P / P_target), which is negative: a rough check only).
  tau_eq <- as.numeric(Sys.getenv("SP_DMC_TAU_EQ", 2))
  tau_rec <- as.numeric(Sys.getenv("SP_DMC_TAU_REC", 3))
  starts <- list()
  for (cs in strsplit(Sys.getenv("SP_DMC_CASES", "64:0.00025:2000"), ",")[[1]]) {
    parts <- strsplit(cs, ":")[[1]]
    v3 <- as.numeric(parts[1:3])
    n <- v3[1]; dt <- v3[2]; P <- v3[3]
    opt <- list()
    for (o in parts[-(1:3)]) {
      kv <- strsplit(o, "=", fixed = TRUE)[[1]]
      val <- as.numeric(kv[2])
      opt[[kv[1]]] <- if (kv[1] %in% c("accept", "effective_step", "branching")) val != 0 else val
    }
    b <- if (is.null(opt$b)) 3.07 else opt$b
    dens <- if (is.null(opt$L)) rho else n / opt$L^3 # "L=8": the box side instead
    opt$b <- opt$L <- NULL
    key <- paste(n, b, dens)
    if (is.null(starts[[key]])) {
      starts[[key]] <- he4_vmc(n, density = dens, b = b, replicas = 16 * sms, blocks = 2,
                               block_sweeps = 50, equilibration = 300, seed = 1,
                               backend = "gpu", precision = "double", progress = FALSE)
    }
    args <- c(list(n, density = dens, dt = dt, replicas = P, target_population = P, blocks = 30,
                   block_steps = ceiling(tau_rec / (30 * dt)), equilibration = ceiling(tau_eq / dt),
                   init = starts[[key]], seed = 60 + length(starts) + P, backend = "gpu",
                   progress = FALSE), opt)
    x <- do.call(he4_dmc, args)
    s <- summary(x)
    se <- if (is.finite(s$se[1])) s$se[1] else attr(s, "se_blocks")[[1]]
    tr <- s[s$observable == "trial_energy", ]
    add(sprintf("N = %g, dt = %g, P = %g%s: E/N + tail", n, dt, P,
                if (length(parts) > 3) paste0(" (", paste(parts[-(1:3)], collapse = ", "), ")") else ""),
        s$mean[1] + attr(x, "tail_correction"),
        "K", note = sprintf(paste("+- %.4f; no tail %.4f; mean trial energy %.4f +- %.4f; acceptance %.3f;",
                                  "effective dt %.4g; overflow %g; %.0f s"),
                            se, s$mean[1], tr$mean, tr$se, attr(s, "acceptance"),
                            attr(s, "effective_dt"), attr(s, "overflow"), attr(x, "seconds")))
  }
}
bench_print(title = "helium DMC (issue 35)")
