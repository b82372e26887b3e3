# Where a many-body whole call spends the time outside its engine: the
# statements of sde_mb_run() timed one by one (the function's body is
# instrumented in this session only), for the mean-field and HMF cases of
# bench/mb.R.   Rscript bench/mb-profile.R [gpu|cpu] [scale]
library(statphysgpu)
backend <- commandArgs(TRUE)[1]; if (is.na(backend)) backend <- "gpu"
scale <- as.numeric(commandArgs(TRUE)[2]); if (is.na(scale)) scale <- 1
ns <- asNamespace("statphysgpu")
f <- get("sde_mb_run", ns)
b <- as.list(body(f))
tim <- new.env()
nb <- list(as.name("{"), quote(.tt <- proc.time()[[3]]))
for (k in seq_along(b)[-1]) {
  lab <- substr(paste(deparse(b[[k]], width.cutoff = 60)[1], collapse = ""), 1, 60)
  nb[[length(nb) + 1]] <- b[[k]]
  nb[[length(nb) + 1]] <- bquote({
    .now <- proc.time()[[3]]
    assign(.(sprintf("%03d %s", k, lab)), .now - .tt, envir = .(tim)); .tt <- .now
  })
}
body(f) <- as.call(nb)
unlockBinding("sde_mb_run", ns); assign("sde_mb_run", f, envir = ns)
report <- function(title, x) {
  force(x)
  v <- unlist(mget(ls(tim), envir = tim))
  cat(sprintf("== %s: whole %.3f s, engine %.3f s\n", title, x$wall, attr(x$r, "seconds")))
  v <- sort(v, decreasing = TRUE)
  print(round(v[v > 0.005], 3))
  rm(list = ls(tim), envir = tim)
}
run <- function(expr) {
  invisible(gc())
  t0 <- proc.time()[[3]]
  r <- force(expr)
  list(wall = proc.time()[[3]] - t0, r = r)
}
kur <- sde_model(drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
                 noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
                 observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)), name = "kuramoto-mf")
hmf <- sde_model(drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
                 observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2)), name = "hmf")
mf <- function() sde_run(kur, 1, n = 2^24 / scale, init = list(theta = ~ runif(0, 2 * pi)), dt = 0.01,
                         t_max = 1, method = "euler", output = "records", record_every = 10,
                         backend = backend, progress = FALSE, seed = 1)
hm <- function() sde_run(hmf, 1, n = 5e7 / scale, init = list(q = ~ runif(-pi, pi), p = ~ rnorm(0, 0.8)),
                         dt = 0.05, t_max = 1, method = "yoshida4", output = "records",
                         record_every = 20, backend = backend, progress = FALSE, seed = 1)
mf(); rm(list = ls(tim), envir = tim)
report("Kuramoto mean field", run(mf()))
hm(); rm(list = ls(tim), envir = tim)
report("HMF", run(hm()))
# the pieces of the .Call itself: the engine's seconds against its wall
x <- run(hm())
cat(sprintf("HMF again: whole %.3f, engine %.3f\n", x$wall, attr(x$r, "seconds")))
print(system.time(g <- gc()))
