# Many-body models written in R (issue 33) against the built-in engines, the
# same case in the same run, whole calls (system.time of the R call: checks,
# starts, the run, the result; the first call of each kernel is made before
# timing):
#   * Kuramoto mean field as a model (n = 2^24, noise, single, 5000 steps)
#     against kuramoto(), SRK2 and Euler: target >= 0.9;
#   * Kuramoto all pairs as a model (n = 65536) against kuramoto(coupling =
#     "pairs"): target >= 0.9;
#   * HMF as a model with "yoshida4" (n = 5e7) against lrmd("hmf"): >= 0.9;
#   * the ring model as pairs (n = 1e5) against lrmd("ring"): >= 0.9;
#   * a chain (n = 1024, 16,384 replicas, SRK2): >= 70 per cent of the HBM
#     bound, bytes per element-step as mb.cu moves them (see the note);
#   * first call (translation, NVRTC, C) < 2 s; cached < 0.3 s.
#
#   Rscript bench/mb.R [all|kuramoto|pairs|hmf|ring|chain|compile] [scale]
#
# `scale` (default 1) divides the sizes (a quick look: scale = 16).
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("all")
scale <- as.numeric(bench_arg("1", 2))
gpu <- gpu_first()
dev <- gpu$name[1]
echo <- "%-72s %12.4g %s"
want <- function(w) what %in% c("all", w)

# best wall time of `reps` calls of f (after one untimed call)
wall <- function(f, reps = 2) {
  f()
  min(vapply(seq_len(reps), function(i) {
    invisible(gc())
    system.time(f())[["elapsed"]]
  }, 0))
}

ratio_row <- function(name, model_s, builtin_s, work, unit) {
  add(sprintf("%s: model, whole call", name), work / model_s, unit)
  add(sprintf("%s: built-in, whole call", name), work / builtin_s, unit)
  add(sprintf("%s: model / built-in", name), builtin_s / model_s, "x",
      note = if (builtin_s / model_s >= 0.9) "  (target >= 0.9: met)" else "  (target >= 0.9: not met)")
}

kur_mf <- sde_model(
  drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
  noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
  observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-mf")
kur_pairs <- sde_model(
  drift = list(theta = ~ omega + K / n * pairs(sin(theta[j] - theta))),
  noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
  observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-pairs")
hmf <- sde_model(
  drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
  observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2)), name = "hmf")
ring <- sde_model(
  drift = list(q = ~ p,
               p = ~ -1 / (2 * sqrt(2) * n) *
                 pairs((sin(q) * cos(q[j]) - cos(q) * sin(q[j])) *
                         (1 - (cos(q) * cos(q[j]) + sin(q) * sin(q[j])) + eps)^(-1.5))),
  params = c(eps = 0.01), observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2)),
  name = "ring")
chain <- sde_model(
  drift = list(phi = ~ v, v = ~ gamma - sin(phi) + k * (phi[i + 1] - 2 * phi + phi[i - 1]) - beta * v),
  noise = list(v = ~ sqrt(2 * beta * T)), params = c(gamma = 0.1, k = 1, beta = 0.5, T = 0.05),
  observe = list(voltage = ~ mean(v)), lattice = "chain", name = "junction chain")

if (want("kuramoto")) {
  n <- 2^24 / scale; steps <- 5000 / scale
  for (meth in c("srk2", "euler")) {
    ms <- wall(function() sde_run(kur_mf, 1, n = n, init = list(theta = ~ runif(-pi, pi)),
                                  dt = 0.01, t_max = steps * 0.01, method = meth,
                                  record_every = steps, seed = 1, backend = "gpu",
                                  progress = FALSE))
    bs <- wall(function() kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = steps, method = meth,
                                   record_every = steps, seed = 1, backend = "gpu",
                                   progress = FALSE))
    ratio_row(sprintf("Kuramoto mean field n = %g, %s, single", n, meth), ms, bs, n * steps,
              "oscillator-steps/s")
  }
}
if (want("pairs")) {
  n <- 65536 / scale; steps <- 20
  ms <- wall(function() sde_run(kur_pairs, 1, n = n, init = list(theta = ~ runif(-pi, pi)),
                                dt = 0.01, t_max = steps * 0.01, record_every = steps, seed = 1,
                                backend = "gpu", progress = FALSE))
  bs <- wall(function() kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = steps,
                                 coupling = "pairs", record_every = steps, seed = 1,
                                 backend = "gpu", progress = FALSE))
  ratio_row(sprintf("Kuramoto all pairs n = %g, srk2, single", n), ms, bs, 2 * n^2 * steps,
            "pair terms/s")
}
if (want("hmf")) {
  n <- 5e7 / scale; steps <- 100
  w <- hmf_waterbag(n, M0 = 1, U = 0.69, seed = 1)
  ms <- wall(function() sde_run(hmf, 1, n = n, init = list(q = w$theta, p = w$p), dt = 0.1,
                                t_max = steps * 0.1, method = "yoshida4", record_every = steps,
                                seed = 1, backend = "gpu", progress = FALSE), reps = 1)
  bs <- wall(function() lrmd("hmf", init = w, dt = 0.1, steps = steps, record_every = steps,
                             backend = "gpu", progress = FALSE), reps = 1)
  ratio_row(sprintf("HMF n = %g, yoshida4 (model single, lrmd mixed)", n), ms, bs, n * steps,
            "particle-steps/s")
}
if (want("ring")) {
  n <- 1e5 / scale; steps <- 10
  w <- ring_uniform(n, seed = 1)
  ms <- wall(function() sde_run(ring, 1, n = n, init = list(q = w$theta, p = w$p), dt = 0.05,
                                t_max = steps * 0.05, method = "yoshida4", record_every = steps,
                                seed = 1, backend = "gpu", progress = FALSE), reps = 1)
  bs <- wall(function() lrmd("ring", init = w, dt = 0.05, steps = steps, record_every = steps,
                             softening = 0.01, backend = "gpu", progress = FALSE), reps = 1)
  ratio_row(sprintf("ring n = %g, yoshida4 (model single, lrmd mixed)", n), ms, bs,
            3 * n^2 * steps, "pair terms/s")
}
if (want("chain")) {
  n <- 1024; reps <- 16384 / scale; steps <- 2000
  s <- wall(function() sde_run(chain, reps, n = n, init = list(phi = 0, v = 0), dt = 0.05,
                               t_max = steps * 0.05, method = "srk2", record_every = steps,
                               seed = 1, backend = "gpu", progress = FALSE), reps = 1)
  rate <- n * reps * steps / s
  add(sprintf("chain n = %d x %g systems, srk2, single: whole call", n, reps), rate,
      "element-steps/s")
  bytes <- as.numeric(Sys.getenv("SP_MB_CHAIN_BYTES", "24")) # per element-step, see mb.cu
  add("chain: fraction of the HBM bound", rate * bytes / HBM, "",
      note = sprintf("  (%g bytes an element-step; target >= 0.7)", bytes))
}
if (want("compile")) {
  d <- tempfile("mbcache")
  old <- options(statphysgpu.cache_dir = d)
  m <- sde_model(drift = kur_mf$drift, noise = kur_mf$noise, params = kur_mf$params,
                 observe = kur_mf$observe, name = "fresh")
  first <- system.time(sde_run(m, 1, n = 1024, init = list(theta = 0), dt = 0.01, t_max = 0.01,
                               seed = 1, backend = "gpu", progress = FALSE))[["elapsed"]]
  cached <- system.time(sde_run(m, 1, n = 1024, init = list(theta = 0), dt = 0.01, t_max = 0.01,
                                seed = 1, backend = "gpu", progress = FALSE))[["elapsed"]]
  cpu_first <- system.time(sde_run(m, 1, n = 1024, init = list(theta = 0), dt = 0.01,
                                   t_max = 0.01, seed = 1, backend = "cpu",
                                   progress = FALSE))[["elapsed"]]
  add("first call, GPU (translation, NVRTC, load)", first, "s",
      note = if (first < 2) "  (target < 2 s: met)" else "  (target < 2 s: not met)")
  add("cached call, GPU", cached, "s",
      note = if (cached < 0.3) "  (target < 0.3 s: met)" else "  (target < 0.3 s: not met)")
  add("first call, CPU (C compiler)", cpu_first, "s")
  options(old)
}
bench_print("Many-body models")
