# Many-body user models on the GPU (inst/cuda/mb.cu) against the built-in
# engines on the same cases: each case is timed as a whole call (wall) and by
# the engine's own seconds (attr(, "seconds")), both after a warm-up call
# (compiles, caches).  Targets (issue of the many-body GPU path): the
# declared model >= 0.9 of the built-in's rate -- Kuramoto mean field n =
# 2^24 with noise, single, 5000 steps, SRK2 and Euler; all pairs n = 65536;
# HMF with yoshida4 n = 5e7; the ring model as pairs n = 1e5 -- and a chain
# of n = 1024 (16,384 replicas, SRK2) at >= 70 per cent of the bandwidth
# bound of a step that reads and writes its states once (16 bytes an
# element-step in single precision; mode A keeps the states on chip, so it
# may pass the bound).
#
#   Rscript bench/mb.R [quick]      (quick: fewer steps)
library(statphysgpu)
quick <- identical(commandArgs(TRUE)[1], "quick")
# split: only one system over every GPU (devices = "all") against one GPU --
# HMF n = 5e7 yoshida4 (single) and the Kuramoto mean field 2^24 SRK2, the
# ring model as pairs n = 1e5 yoshida4 (the slices' all-gather of the
# states) and a chain n = 5e7 SRK2 (the halo) -- with lrmd("hmf") and
# lrmd("ring") on the same devices (the target: lrmd's split, 1.6x on its
# ring on two GPUs); the speedups (engine seconds) at the end
split_only <- identical(commandArgs(TRUE)[1], "split")
# sine: the Kuramoto mean field (SRK2 and Euler) as a model with its default
# sine, the CPU's polynomial (sde_fast_math = FALSE) and the bare hardware
# sine (SP_SDE_BARE_SINE, a measurement hook: accurate only for |x| <= pi),
# against kuramoto() -- what the sine's accuracy costs
sine_only <- identical(commandArgs(TRUE)[1], "sine")
HBM <- 3.35e12 # H100 SXM nominal bytes/s (REFERENCES.md section 8 measures 2.84e12 for a copy)
rows <- list()
add <- function(case, what, rate, unit, wall, eng, note = "") {
  rows[[length(rows) + 1]] <<- data.frame(case = case, what = what, rate = signif(rate, 4),
                                          unit = unit, wall = round(wall, 3),
                                          engine = round(eng, 3), note = note)
  cat(sprintf("%-34s %-10s %10.4g %-16s wall %7.3f s engine %7.3f s %s\n", case, what, rate, unit,
              wall, eng, note))
}
timed <- function(expr) {
  invisible(gc())
  t0 <- proc.time()[["elapsed"]]
  x <- force(expr)
  list(wall = proc.time()[["elapsed"]] - t0, eng = attr(x, "seconds") %||% NA_real_, x = x)
}
`%||%` <- function(a, b) if (is.null(a)) b else a
pair <- function(case, unit, work, builtin, model) {
  builtin(TRUE); model(TRUE) # warm: compile, load
  b <- timed(builtin(FALSE))
  m <- timed(model(FALSE))
  add(case, "built-in", work / b$wall, unit, b$wall, b$eng)
  add(case, "model", work / m$wall, unit, m$wall, m$eng,
      sprintf("whole call %.2f, engine %.2f of the built-in's", b$wall / m$wall, b$eng / m$eng))
}

if (split_only) {
  nd <- nrow(gpu_devices())
  hmf <- sde_model(drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
                   observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2), K = ~ mean(p^2) / 2),
                   name = "hmf")
  kur <- sde_model(drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
                   noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
                   observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-mf")
  ring <- sde_model(drift = list(q = ~ p, p = ~ -1 / (2 * sqrt(2) * n) *
                                   pairs(sin(q - q[j]) * (1 + eps - cos(q - q[j]))^(-1.5))),
                    params = c(eps = 0.01), observe = list(K = ~ mean(p^2) / 2), name = "ring")
  chain <- sde_model(
    drift = list(phi = ~ v, v = ~ -beta * v - sin(phi) + gamma + k * (phi[i + 1] - 2 * phi + phi[i - 1])),
    noise = list(v = ~ sqrt(2 * beta * T)), params = c(gamma = 0.1, k = 1, T = 0.5, beta = 1),
    lattice = "chain", observe = list(v2 = ~ mean(v^2)), name = "chain")
  for (devs in list(NULL, "all")) {
    lab <- if (is.null(devs)) "1 GPU" else sprintf("%d GPUs", nd)
    one <- function(w) sde_run(hmf, 1, n = 5e7, init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 0.8)),
                               dt = 0.05, t_max = 0.05 * (if (w) 2 else 200), method = "yoshida4",
                               output = "records", record_every = if (w) 2 else 200,
                               backend = "gpu", devices = devs, precision = "single",
                               progress = FALSE, seed = 1)
    lr <- function(w) lrmd("hmf", n = 5e7, init = hmf_waterbag(5e7, 1, 0.69, seed = 1), dt = 0.05,
                           steps = if (w) 2 else 200, record_every = if (w) 2 else 200,
                           backend = "gpu", devices = devs, progress = FALSE)
    pair(sprintf("HMF 5e7 yoshida4 single, %s", lab), "particle-steps/s", 5e7 * 200, lr, one)
    km <- function(w) sde_run(kur, 1, n = 2^24, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01,
                              t_max = 0.01 * (if (w) 2 else 5000), method = "srk2",
                              output = "records", record_every = if (w) 2 else 500,
                              backend = "gpu", devices = devs, precision = "single",
                              progress = FALSE, seed = 1)
    km(TRUE)
    k <- timed(km(FALSE))
    add(sprintf("Kuramoto mean field 2^24 srk2, %s", lab), "model", 2^24 * 5000 / k$wall,
        "osc-steps/s", k$wall, k$eng)
    # pairs: every slice's pair sums over all the sources (an all-gather of
    # the states after each pass)
    pair(sprintf("ring 1e5 yoshida4 (pairs), %s", lab), "pair-terms/s", 3 * 1e5^2 * 10,
         function(w) lrmd("ring", n = 1e5, init = ring_uniform(1e5, p0 = 0.3, seed = 1), dt = 0.05,
                          steps = if (w) 1 else 10, record_every = if (w) 1 else 10,
                          backend = "gpu", devices = devs, progress = FALSE),
         function(w) sde_run(ring, 1, n = 1e5, init = list(q = ~ runif(-pi, pi), p = ~ runif(-0.3, 0.3)),
                             dt = 0.05, t_max = 0.05 * (if (w) 1 else 10), method = "yoshida4",
                             output = "records", record_every = if (w) 1 else 10, backend = "gpu",
                             devices = devs, precision = "single", progress = FALSE, seed = 1))
    # a chain: the slices' edges (one element each side) after each pass
    cm <- function(w) sde_run(chain, 1, n = 5e7, init = list(phi = ~ rnorm(0, 0.3), v = ~ rnorm(0, 1)),
                              dt = 0.01, t_max = 0.01 * (if (w) 2 else 2000), method = "srk2",
                              output = "records", record_every = if (w) 2 else 500,
                              backend = "gpu", devices = devs, precision = "single",
                              progress = FALSE, seed = 1)
    cm(TRUE)
    k <- timed(cm(FALSE))
    add(sprintf("chain 5e7 srk2, %s", lab), "model", 5e7 * 2000 / k$wall, "el-steps/s", k$wall, k$eng)
  }
  # the speedups of every GPU over one (engine seconds; wall in brackets)
  r <- do.call(rbind, rows)
  r$base <- sub(", [0-9]+ GPUs?$", "", r$case)
  for (b in unique(r$base)) for (w in unique(r$what[r$base == b])) {
    one <- r[r$base == b & r$what == w & grepl("1 GPU$", r$case), ]
    all <- r[r$base == b & r$what == w & !grepl("1 GPU$", r$case), ]
    if (nrow(one) == 1 && nrow(all) == 1)
      cat(sprintf("speedup %-34s %-9s %.2fx (wall %.2fx) on %d GPUs\n", b, w, one$engine / all$engine,
                  one$wall / all$wall, nd))
  }
}

if (sine_only) {
  ns <- asNamespace("statphysgpu")
  variant0 <- get("sde_gpu_variant", ns)
  bare <- function(on) {
    f <- if (on) function(precision, method, defines = NULL)
      variant0(precision, method, c(defines, "SP_SDE_BARE_SINE=1")) else variant0
    unlockBinding("sde_gpu_variant", ns); assign("sde_gpu_variant", f, envir = ns)
  }
  kur <- sde_model(drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
                   noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
                   observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-mf")
  kur_p <- sde_model(drift = kur$drift, noise = kur$noise, params = kur$params,
                     observe = kur$observe, name = "kuramoto-mf-periodic", periodic = "theta")
  n <- 2^24
  steps <- 2000
  for (method in c("srk2", "euler")) {
    bi <- function(w) kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = if (w) 2 else steps,
                               record_every = if (w) 2 else steps / 10, method = method,
                               backend = "gpu", precision = "single", progress = FALSE, seed = 1)
    md <- function(w) sde_run(kur, 1, n = n, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01,
                              t_max = 0.01 * (if (w) 2 else steps), method = method,
                              output = "records", record_every = if (w) 2 else steps / 10,
                              backend = "gpu", precision = "single", progress = FALSE, seed = 1)
    for (v in c("default", "polynomial", "bare")) {
      options(statphysgpu.sde_fast_math = v != "polynomial")
      bare(v == "bare")
      pair(sprintf("Kuramoto mf 2^24 %s, sine %s", method, v), "osc-steps/s", n * steps, bi, md)
    }
    # the phases declared periodic (kept in [-pi, pi], as kuramoto() keeps them)
    mp <- function(w) sde_run(kur_p, 1, n = n, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01,
                              t_max = 0.01 * (if (w) 2 else steps), method = method,
                              output = "records", record_every = if (w) 2 else steps / 10,
                              backend = "gpu", precision = "single", progress = FALSE, seed = 1)
    pair(sprintf("Kuramoto mf 2^24 %s, periodic theta", method), "osc-steps/s", n * steps, bi, mp)
    bare(FALSE)
    options(statphysgpu.sde_fast_math = TRUE)
  }
  print(do.call(rbind, rows))
  quit(save = "no")
}

# Kuramoto mean field, n = 2^24, noise, single, 5000 steps
if (!split_only) {
n <- 2^24
steps <- if (quick) 1000 else 5000
kur <- sde_model(drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
                 noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
                 observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-mf")
kur_p <- sde_model(drift = kur$drift, noise = kur$noise, params = kur$params,
                   observe = kur$observe, name = "kuramoto-mf-periodic", periodic = "theta")
# the undeclared model, and the like for like of kuramoto(): the phases
# periodic, kept in [-pi, pi] as kuramoto() keeps them
for (method in c("srk2", "euler")) for (per in c(FALSE, TRUE)) {
  mk <- if (per) kur_p else kur
  pair(sprintf("Kuramoto mean field 2^24 %s%s", method, if (per) ", periodic" else ""),
       "osc-steps/s", n * steps,
       function(w) kuramoto(n, K = 4, theta = 1, dt = 0.01, steps = if (w) 2 else steps,
                            record_every = if (w) 2 else steps / 10, method = method,
                            backend = "gpu", precision = "single", progress = FALSE, seed = 1),
       function(w) sde_run(mk, 1, n = n, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01,
                           t_max = 0.01 * (if (w) 2 else steps), method = method,
                           output = "records", record_every = if (w) 2 else steps / 10,
                           backend = "gpu", precision = "single", progress = FALSE, seed = 1))
}

# Chain n = 1024, 16384 replicas, SRK2, single (mode A)
chain <- sde_model(drift = list(phi = ~ v, v = ~ -beta * v - sin(phi) + gamma + k * (phi[i + 1] - 2 * phi + phi[i - 1])),
                   noise = list(v = ~ sqrt(2 * beta * T)), params = c(gamma = 0.1, k = 1, T = 0.5, beta = 1),
                   lattice = "chain", observe = list(v2 = ~ mean(v^2)), name = "chain")
for (prec in c("single", "double")) {
  cs <- if (quick) 200 else 1000
  run <- function(s) sde_run(chain, 16384, n = 1024, init = list(phi = 0, v = 0), dt = 0.01,
                             t_max = 0.01 * s, method = "srk2", output = "records",
                             record_every = s, backend = "gpu", precision = prec,
                             progress = FALSE, seed = 1)
  run(2)
  a <- timed(run(cs))
  b <- timed(run(2 * cs))
  work <- 1024 * 16384 * cs
  bound <- HBM / (if (prec == "single") 16 else 32)
  add(sprintf("chain 1024 x 16384 srk2 %s", prec), "model", work / (b$eng - a$eng), "el-steps/s",
      b$wall, b$eng, sprintf("steady %.2f of the bound %.3g (whole call %.3g)",
                             work / (b$eng - a$eng) / bound, bound, 2 * work / b$wall))
}

# All pairs, n = 65536, SRK2, single
np <- 65536
ps <- if (quick) 20 else 100
kp <- sde_model(drift = list(theta = ~ omega + K / n * pairs(sin(theta[j] - theta))),
                noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 2, D = 0.5),
                observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-pairs")
pair("Kuramoto pairs 65536 srk2", "pair-terms/s", 2 * np^2 * ps,
     function(w) kuramoto(np, K = 2, theta = 0.5, dt = 0.01, steps = if (w) 2 else ps,
                          coupling = "pairs", record_every = if (w) 2 else ps, backend = "gpu",
                          precision = "single", progress = FALSE, seed = 1),
     function(w) sde_run(kp, 1, n = np, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01,
                         t_max = 0.01 * (if (w) 2 else ps), method = "srk2", output = "records",
                         record_every = if (w) 2 else ps, backend = "gpu", precision = "single",
                         progress = FALSE, seed = 1))

# HMF, n = 5e7, yoshida4 (the model in single and double; lrmd mixed)
nh <- 5e7
hs <- if (quick) 40 else 200
hmf <- sde_model(drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
                 observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2), K = ~ mean(p^2) / 2),
                 name = "hmf")
for (prec in c("single", "double")) {
  pair(sprintf("HMF 5e7 yoshida4 model %s", prec), "particle-steps/s", nh * hs,
       function(w) lrmd("hmf", n = nh, init = hmf_waterbag(nh, 1, 0.69, seed = 1), dt = 0.05,
                        steps = if (w) 2 else hs, record_every = if (w) 2 else hs,
                        backend = "gpu", progress = FALSE),
       function(w) sde_run(hmf, 1, n = nh, init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 0.8)),
                           dt = 0.05, t_max = 0.05 * (if (w) 2 else hs), method = "yoshida4",
                           output = "records", record_every = if (w) 2 else hs, backend = "gpu",
                           precision = prec, progress = FALSE, seed = 1))
}

# The ring model as pairs, n = 1e5, yoshida4
nr <- 1e5
rs <- if (quick) 2 else 10
ring <- sde_model(drift = list(q = ~ p, p = ~ -1 / (2 * sqrt(2) * n) *
                                 pairs(sin(q - q[j]) * (1 + eps - cos(q - q[j]))^(-1.5))),
                  params = c(eps = 0.01), observe = list(K = ~ mean(p^2) / 2), name = "ring")
pair("ring 1e5 yoshida4 (pairs)", "pair-terms/s", 3 * nr^2 * rs,
     function(w) lrmd("ring", n = nr, init = ring_uniform(nr, p0 = 0.3, seed = 1), dt = 0.05,
                      steps = if (w) 1 else rs, record_every = if (w) 1 else rs,
                      backend = "gpu", progress = FALSE),
     function(w) sde_run(ring, 1, n = nr, init = list(q = ~ runif(-pi, pi), p = ~ runif(-0.3, 0.3)),
                         dt = 0.05, t_max = 0.05 * (if (w) 1 else rs), method = "yoshida4",
                         output = "records", record_every = if (w) 1 else rs, backend = "gpu",
                         precision = "single", progress = FALSE, seed = 1))

# First call (translation, NVRTC, load) and a cached call, in a fresh cache
# (targets: < 2 s and < 0.3 s); the CPU's first call (R's C compiler)
local({
  old <- options(statphysgpu.cache_dir = tempfile("mbcache"))
  on.exit(options(old))
  m <- sde_model(drift = kur$drift, noise = kur$noise, params = kur$params,
                 observe = kur$observe, name = "fresh")
  one <- function(b) timed(sde_run(m, 1, n = 1024, init = list(theta = 0), dt = 0.01,
                                   t_max = 0.02, seed = 1, backend = b, progress = FALSE))
  f <- one("gpu"); c <- one("gpu"); cf <- one("cpu")
  add("compile", "first GPU call", 1 / f$wall, "1/s", f$wall, f$eng,
      if (f$wall < 2) "target < 2 s: met" else "target < 2 s: not met")
  add("compile", "cached GPU call", 1 / c$wall, "1/s", c$wall, c$eng,
      if (c$wall < 0.3) "target < 0.3 s: met" else "target < 0.3 s: not met")
  add("compile", "first CPU call", 1 / cf$wall, "1/s", cf$wall, cf$eng)
})

} # !split_only

res <- do.call(rbind, rows)
res$device <- tryCatch(gpu_devices()$name[1], error = function(e) NA)
commit <- Sys.getenv("SP_COMMIT", "unknown")
cat(sprintf("Many-body benchmarks | commit %s | %s | %s\n", commit,
            format(Sys.time(), "%Y-%m-%d %H:%M %Z"), res$device[1]))
res$commit <- commit
print(res, row.names = FALSE)
out <- Sys.getenv("OUT")
if (nzchar(out)) utils::write.csv(res, file.path(out, "bench-mb.csv"), row.names = FALSE)
