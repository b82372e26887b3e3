# Session 17 (issue 50 item 2): the escape family's built-in engine against
# the same physics declared with sde_model() and run by sde_run(), whole
# calls (elapsed seconds of the R call) and the engine's useful steps/s.
#
#   Rscript bench/s17-escape.R [gpu|cpu]
#
# Cases (single precision, seed 1, alternated, medians of SP_BENCH_REPS):
#  * escape: the washboard of bench/sde-ab.R (V0 = 1, beta = 0.2, gamma =
#    0.5, dt = 0.01, Delta U / theta = 6), every path escaping (t_max 1e9),
#    Euler and SRK2; 2^20 paths on the GPU, 2^14 on the CPU;
#  * sweep: 16 biases gamma = 0.40 .. 0.55 at Delta U(0.5) / theta = 6
#    (params per condition), SRK2; 2^16 paths a condition (GPU), 2^10 (CPU);
#  * ramp: Fig. 11(b)'s junction (bench/escape-ab.R), 30,000 paths from
#    rest at gamma0 = switching_start()'s, h = 1e-4, SRK2, to a gamma_max
#    some SP_RAMP_SECS seconds away (GPU; 2,000 paths, 2e6 steps on the CPU);
#    the declared model's bias is g0 + r t (a time term), its threshold the
#    saddle of g0, as the built-in's.
suppressPackageStartupMessages(library(statphysgpu))
be <- commandArgs(TRUE)[1]
if (is.na(be)) be <- "gpu"
reps <- as.integer(Sys.getenv("SP_BENCH_REPS", 3))
options(statphysgpu.cache_dir = tempfile("s17"))
dev <- if (be == "gpu") gpu_devices()$name[1] else "cpu"
commit <- Sys.getenv("SP_COMMIT", "?")
cat(sprintf("# s17-escape.R %s: %s, commit %s, %s\n", be, dev, commit, format(Sys.time())))
wall <- function(expr) { t0 <- proc.time()[["elapsed"]]; v <- expr; list(v = v, s = proc.time()[["elapsed"]] - t0) }
rate <- function(x) attr(x, "steps")[["useful"]] / attr(x, "seconds")
med <- function(x) stats::median(x)
V0 <- 1; beta <- 0.2; gamma <- 0.5; h <- 0.01
DU <- barrier_height(gamma, V0)
wb <- sde_model(drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
                noise = list(v = ~ sqrt(2 * beta * theta)),
                params = c(beta = beta, V0 = V0, gamma = gamma, theta = DU / 6),
                stop = ~ x > pi - asin(gamma), name = "washboard")
row <- function(case, b, d) {
  cat(sprintf("%-28s built-in %.4f s (engine %.4f s, %.4g st/s)  declared %.4f s (engine %.4f s, %.4g st/s)  whole %.4f engine %.4f rate %.4f  means %.6g / %.6g\n",
              case, med(b$s), med(b$e), med(b$r), med(d$s), med(d$e), med(d$r),
              med(b$s) / med(d$s), med(b$e) / med(d$e), med(d$r) / med(b$r), b$m, d$m))
}
acc <- function() list(s = numeric(), e = numeric(), r = numeric(), m = NA)
add <- function(a, w) {
  a$s <- c(a$s, w$s); a$e <- c(a$e, attr(w$v, "seconds")); a$r <- c(a$r, rate(w$v))
  a$m <- mean(w$v$value); a
}
n <- as.numeric(Sys.getenv("SP_N", if (be == "gpu") 2^20 else 2^11))
for (m in c("euler", "srk2")) {
  et <- function(nn, tm) escape_times(nn, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6, dt = h,
                                      t_max = tm, method = m, precision = "single", seed = 1,
                                      backend = be, progress = FALSE)
  sr <- function(nn, tm) sde_run(wb, nn, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = tm,
                                 method = m, precision = "single", seed = 1, backend = be,
                                 progress = FALSE)
  b <- acc(); d <- acc()
  for (i in 0:reps) { # the first pair warms (compiles, loads: the CPU's vector object needs the size)
    wb1 <- wall(et(n, 1e9)); wd1 <- wall(sr(n, 1e9))
    if (i > 0) { b <- add(b, wb1); d <- add(d, wd1) }
  }
  row(sprintf("escape %s %g", m, n), b, d)
}
# sweep over 16 biases (params per condition)
gs <- seq(0.40, 0.55, by = 0.01)
ns <- as.numeric(Sys.getenv("SP_NS", if (be == "gpu") 2^16 else 2^7))
wbg <- sde_model(drift = list(x = ~ v, v = ~ -beta * v + V0 * (gamma - sin(x))),
                 noise = list(v = ~ sqrt(2 * beta * theta)),
                 params = c(beta = beta, V0 = V0, gamma = gamma, theta = DU / 6),
                 stop = ~ x > pi - asin(gamma), name = "washboard-sweep")
b <- acc(); d <- acc()
for (i in 0:reps) {
  if (i == 1) { b <- acc(); d <- acc() } # the first pair warms
  b <- add(b, wall(escape_times(ns, gamma = gs, V0 = V0, beta = beta, theta = DU / 6, dt = h,
                                t_max = 1e9, method = "srk2", precision = "single", seed = 1,
                                backend = be, progress = FALSE)))
  d <- add(d, wall(sde_run(wbg, ns, init = list(x = ~ asin(gamma), v = 0), dt = h, t_max = 1e9,
                           params = data.frame(gamma = gs), method = "srk2",
                           precision = "single", seed = 1, backend = be, progress = FALSE)))
}
row(sprintf("sweep srk2 16 x %g", ns), b, d)
# the ramp of Fig. 11(b)
u <- jj_units(250, 88e-15, 0.748e-6, 1.2, sweep_rate = 200 * 0.748e-6)
hh <- 1e-4
nr <- as.numeric(Sys.getenv("SP_NR", if (be == "gpu") 30000 else 2000))
g0 <- switching_start(u$ramp, u$V0, u$beta, u$theta, replicas = nr)$gamma0
steps <- if (be == "gpu") as.numeric(Sys.getenv("SP_RAMP_SECS", 4)) * 8e6 else as.numeric(Sys.getenv("SP_STEPS", 2e6))
gmax <- g0 + steps * u$ramp * hh
wr <- sde_model(drift = list(x = ~ v, v = ~ -beta * v + V0 * (g0 + r * t - sin(x))),
                noise = list(v = ~ sqrt(2 * beta * theta)),
                params = c(beta = u$beta, V0 = u$V0, g0 = g0, r = u$ramp, theta = u$theta),
                stop = ~ x > pi - asin(g0), name = "washboard-ramp")
sc <- function(gm) switching_currents(replicas = nr, ramp = u$ramp, V0 = u$V0, beta = u$beta,
                                      theta = u$theta, dt = hh, seed = 1, gamma0 = g0,
                                      gamma_max = gm, backend = be, progress = FALSE)
sw <- function(gm) sde_run(wr, nr, init = list(x = asin(g0), v = 0), dt = hh,
                           t_max = (gm - g0) / u$ramp, method = "srk2", precision = "single",
                           seed = 1, backend = be, progress = FALSE)
b <- acc(); d <- acc()
for (i in 0:reps) {
  if (i == 1) { b <- acc(); d <- acc() } # the first pair warms
  b <- add(b, wall(sc(gmax)))
  w <- wall(sw(gmax)); w$v$value <- g0 + w$v$value * u$ramp # the switching bias
  d <- add(d, w)
}
row(sprintf("ramp srk2 %g x %g steps", nr, steps), b, d)
# the front-ends themselves: escape_times() and switching_currents() on the
# built-in engine against options(statphysgpu.escape_engine = "declared")
# (R/escape-declared.R), whole calls, the same cases
front <- function(eng, f) { old <- options(statphysgpu.escape_engine = eng); on.exit(options(old)); f() }
cases <- list(
  `front escape euler` = function() escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6,
                                                 dt = h, t_max = 1e9, method = "euler", seed = 1,
                                                 backend = be, progress = FALSE),
  `front escape srk2` = function() escape_times(n, gamma = gamma, V0 = V0, beta = beta, theta = DU / 6,
                                                dt = h, t_max = 1e9, method = "srk2", seed = 1,
                                                backend = be, progress = FALSE),
  `front sweep srk2` = function() escape_times(ns, gamma = gs, V0 = V0, beta = beta, theta = DU / 6,
                                               dt = h, t_max = 1e9, method = "srk2", seed = 1,
                                               backend = be, progress = FALSE),
  `front escape srk2 thermal` = function() escape_times(n, gamma = gamma, V0 = V0, beta = beta,
                                                        theta = DU / 6, dt = h, t_max = 1e9,
                                                        init = "thermal", seed = 1, backend = be,
                                                        progress = FALSE),
  `front ramp srk2` = function() sc(gmax))
for (cs in names(cases)) {
  b <- acc(); d <- acc()
  for (i in 0:reps) {
    wb1 <- wall(front("builtin", cases[[cs]])); wd1 <- wall(front("declared", cases[[cs]]))
    if (i > 0) { b <- add(b, wb1); d <- add(d, wd1) }
  }
  row(cs, b, d)
}
