# Benchmark: helium VMC (paper 002) on the GPU.
#
#   SP_COMMIT=<commit> Rscript bench/he4.R
#
# Prints one table (metric, value, unit, device, commit, date).  Reference
# (REFERENCES.md s. 4): the paper's QL code reached 1 mK on E/N at N = 512
# in about two minutes, t sigma^2 = 130 s mK^2 on a Tesla K20 (200 on an
# M2090).  Target on an H100: at most 2 s mK^2.  Limit: pair evaluations
# (two Jastrow terms per partner per trial move, N(N-1) per sweep, plus
# N(N-1) potential and Jastrow-derivative terms per measurement) over the
# FP32 rate, for the sweeps needed for a target error given the per-sweep
# variance and autocorrelation measured here.
#   SP_COMMIT=<commit> Rscript bench/he4.R cpu    (the CPU engine alone)
#   SP_HE4_VARIANTS=mixed,mixed_fast Rscript bench/he4.R   (kernel variants
#     at N = 512 against each other only: t sigma^2 and sweeps/s)
bench_dir <- local({ # this script's folder, where common.R lies (Rscript: ~+~ for a space)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(gsub("~+~", " ", f[1], fixed = TRUE)) else "bench"
})
source(file.path(bench_dir, "common.R"))
what <- bench_arg("gpu")
if (what == "cpu") {
  dev <- cpu_device()
  nth <- sp_threads()
  for (n in c(64, 256, 512)) {
    sw <- max(2, round(2e8 / (3 * n^2)))
    old <- sp_threads(1)
    x <- he4_vmc(n, replicas = 1, blocks = 1, block_sweeps = sw, equilibration = 0, seed = 1,
                 backend = "cpu", displacement = 0.6, progress = FALSE)
    sp_threads(old)
    r1 <- sw / attr(x, "seconds")
    x <- he4_vmc(n, replicas = nth, blocks = 1, block_sweeps = sw, equilibration = 0, seed = 1,
                 backend = "cpu", displacement = 0.6, progress = FALSE)
    rn <- nth * sw / attr(x, "seconds")
    add(sprintf("CPU, N = %d, mixed: measured sweeps/s on one core", n), r1, "1/s")
    add(sprintf("CPU, N = %d, mixed: measured sweeps/s on %d threads", n, nth), rn, "1/s")
  }
  w <- 2 * nth
  x <- he4_vmc(512, replicas = w, blocks = 10, block_sweeps = 10, equilibration = 50,
               seed = 2, backend = "cpu", progress = FALSE)
  se <- sd(vapply(split(x$energy, x$replica), mean, 0)) / sqrt(w)
  frac <- 100 * 2 / (50 + 100 * 2)
  add(sprintf("CPU, N = 512: t sigma^2 over the recorded part (%d walkers)", w),
      attr(x, "seconds") * frac * (se * 1e3)^2, "s mK^2")
  bench_print(brief = TRUE)
  quit(save = "no")
}
d <- gpu_first()
dev <- d$name[1]
sms <- d$multiprocessors[1]
run <- function(n, walkers, sweeps, precision = "mixed", ...) {
  he4_vmc(n, replicas = walkers, blocks = 1, block_sweeps = sweeps, equilibration = 0,
          seed = 1, backend = "gpu", precision = precision, progress = FALSE, displacement = 0.6, ...)
}
invisible(run(64, 8, 2)); invisible(run(64, 8, 2, "double")) # compile / load

# ---- kernel variants against each other (SP_HE4_VARIANTS) ------------------------
# SP_HE4_VARIANTS=mixed,mixed_fast Rscript bench/he4.R: for each variant
# (names of R/gpu.R's he4_vmc registry) at N = 512, 16 walkers per SM: one
# call of 100 equilibration sweeps, then continuations of 400 recorded
# sweeps at measure_every = 2 and 1, timed (wall time of the call: the t of
# t sigma^2), sigma the standard error of E/N from the walkers' means.  The
# variants of one precision sample the same distribution, so t sigma^2 is
# also given with sigma^2 pooled over them (less noise: the variants differ
# in t, not in sigma; pooled as the variance of one walker's mean, w se^2).
# A variant may carry its walkers per SM, "mixed_fast_u4_lb20:20" (default
# 16).  Then stops.
vs <- strsplit(Sys.getenv("SP_HE4_VARIANTS"), ",")[[1]]
if (length(vs)) {
  tab <- NULL
  for (vk in vs) {
    v <- sub(":.*$", "", vk)
    w <- (if (grepl(":", vk)) as.integer(sub("^.*:", "", vk)) else 16L) * sms
    prec <- if (startsWith(v, "double")) "double" else "mixed"
    options(statphysgpu.he4_variant = sub("^(mixed|double)", "", v))
    invisible(run(64, 8, 2, prec)) # compile / load this variant
    x0 <- he4_vmc(512, replicas = w, blocks = 1, block_sweeps = 4, equilibration = 100,
                  seed = 2, backend = "gpu", precision = prec, progress = FALSE)
    for (me in c(2, 1)) {
      x <- he4_vmc(512, blocks = 20, block_sweeps = 20, measure_every = me,
                   equilibration = 0, init = x0, backend = "gpu", progress = FALSE)
      secs <- attr(x, "seconds")
      se <- sd(vapply(split(x$energy, x$replica), mean, 0)) / sqrt(w)
      tab <- rbind(tab, data.frame(variant = vk, precision = prec, me = me, secs = secs,
                                   se_mK = se * 1e3, energy = mean(x$energy), w = w,
                                   eq = attr(x0, "seconds")))
      tag <- sprintf("N = 512, kernel %s, %d walkers, measure_every = %d", v, w, me)
      add(sprintf("%s: sweeps/s in total", tag), w * 400 / secs, "1/s")
      add(sprintf("%s: E/N (no tail correction)", tag), mean(x$energy), "K")
      add(sprintf("%s: standard error of E/N", tag), se * 1e3, "mK")
      add(sprintf("%s: t sigma^2, recorded sweeps", tag), secs * (se * 1e3)^2, "s mK^2")
    }
  }
  for (k in seq_len(nrow(tab))) {
    same <- tab$precision == tab$precision[k] & tab$me == tab$me[k]
    s2 <- mean(tab$w[same] * tab$se_mK[same]^2) / tab$w[k]
    add(sprintf("N = 512, kernel %s, measure_every = %d: t sigma^2, sigma^2 pooled over %d",
                tab$variant[k], tab$me[k], sum(same)), tab$secs[k] * s2, "s mK^2")
    add(sprintf("N = 512, kernel %s, measure_every = %d: the same with the equilibration call",
                tab$variant[k], tab$me[k]), (tab$secs[k] + tab$eq[k] * 400 / 200) * s2,
        "s mK^2")
  }
  options(statphysgpu.he4_variant = NULL)
  bench_print(brief = TRUE)
  quit(save = "no")
}

# ---- walkers per SM at N = 512 -------------------------------------------
# one warp per walker: the SM needs many walkers to hide latency; the
# kernels with the partner loop unrolled 4 times ("_u4") and the "_fast"
# kernels (SP_VMC_FAST) are compared ("_lb32", registers capped for 32
# walkers per SM, lost in earlier runs: bench/RESULTS.md)
best <- 0; best_k <- 8; best_v <- ""
for (v in c("", "_u4", "_fast", "_fast_u4", "_fast_u4_usum")) {
  options(statphysgpu.he4_variant = v)
  for (k in c(16, 24, 32)) {
    w <- k * sms
    x <- run(512, w, 10)
    rate <- w * 10 / attr(x, "seconds")
    add(sprintf("N = 512, kernel mixed%s, %d walkers per SM: sweeps/s in total", v, k), rate, "1/s")
    if (rate > best) { best <- rate; best_k <- k; best_v <- v }
  }
}
options(statphysgpu.he4_variant = best_v)
message(sprintf("used below: kernel mixed%s, %d walkers per SM", best_v, best_k))
add("N = 512: pair evaluations/s (2 N(N-1) per sweep + N(N-1) per measurement)",
    best * 3 * 512 * 511, "1/s")

# ---- sweeps per second against N ----------------------------------------------
for (n in c(64, 128, 256, 1024, 2048, 4000)) {
  w <- best_k * sms
  sw <- max(2, round(4e9 / (3 * n^2 * w) * 0.5))
  x <- run(n, w, sw)
  rate <- w * sw / attr(x, "seconds")
  add(sprintf("N = %d, %d walkers: sweeps/s in total", n, w), rate, "1/s")
  add(sprintf("N = %d: sweeps/s per walker", n), rate / w, "1/s")
}
x <- run(512, best_k * sms, 10, "double")
add("N = 512, double precision: sweeps/s in total", best_k * sms * 10 / attr(x, "seconds"), "1/s")

# ---- time to error at N = 512 ---------------------------------------------------
# Each walker: 100 sweeps of equilibration, then 200 recorded sweeps; the
# error of E/N from the spread of the walkers' means (independent chains).
# t sigma^2 over the recorded part is the invariant of paper 002; measuring
# every sweep costs about as much as the sweep itself, so measure_every = 4
# is timed too (consecutive sweeps are strongly correlated).
w <- best_k * sms
# equilibration (100 sweeps and a block of 4) in one call, the recorded
# sweeps in a second call that continues the walkers (init =): its wall
# time is the t of t sigma^2, with no cost model
x0 <- he4_vmc(512, replicas = w, blocks = 1, block_sweeps = 4, equilibration = 100,
              seed = 2, backend = "gpu", progress = FALSE)
for (me in c(1, 2, 4)) {
  x <- he4_vmc(512, blocks = 10, block_sweeps = 20, measure_every = me,
               equilibration = 0, init = x0, backend = "gpu", progress = FALSE)
  secs <- attr(x, "seconds")
  se <- sd(vapply(split(x$energy, x$replica), mean, 0)) / sqrt(w)
  tag <- sprintf("N = 512, measure_every = %d", me)
  add(sprintf("%s: E/N (no tail correction)", tag), mean(x$energy), "K")
  add(sprintf("%s: standard error of E/N over %d walkers' means", tag, w), se * 1e3, "mK")
  add(sprintf("%s: wall time of the 200 recorded sweeps a walker", tag), secs, "s")
  add(sprintf("%s: t sigma^2, recorded sweeps (paper: 130 on a K20)", tag),
      secs * (se * 1e3)^2, "s mK^2")
  add(sprintf("%s: t sigma^2, with the equilibration call", tag),
      (secs + attr(x0, "seconds")) * (se * 1e3)^2, "s mK^2")
}
add("N = 512: tail correction", attr(x, "tail_correction"), "K")
add("N = 512: mean acceptance", mean(x$acceptance), "")

bench_print(brief = TRUE)
