# Recipe for the precomputed results of vignette("escape-times"): run on a
# machine with a GPU (about a minute: the longest of the 35,840 escapes takes
# some 6e8 sequential steps; hours on two CPU
# cores with STATPHYSGPU_BACKEND=cpu).  Writes escape-vignette.rds into
# STATPHYSGPU_OUT (default: the working directory).
#
#   Rscript -e 'source(system.file("scripts", "escape-vignette-data.R",
#                                  package = "statphysgpu"))'
library(statphysgpu)
out_dir <- Sys.getenv("STATPHYSGPU_OUT", ".")
backend <- Sys.getenv("STATPHYSGPU_BACKEND", "gpu")

# 1. Arrhenius study in the manner of Fig. 10 of Pierro et al.: gamma = 0.5,
#    V0 = 0.05 (barrier 0.0342), 5120 paths per temperature, h = 0.004 as in
#    the paper, moderate damping beta = 0.1 (Q ~ 2), Delta U / theta = 3..9.
DU <- barrier_height(0.5, 0.05)
theta <- DU / seq(3, 9, by = 1)
arr <- escape_times(5120, gamma = 0.5, V0 = 0.05, beta = 0.1, theta = theta,
                    h = 0.004, t_max = 1e8, seed = 20261121, backend = backend,
                    progress = FALSE)
s <- summary(arr)
arrhenius <- data.frame(theta = s$theta, n = s$n, censored = s$censored,
                        mean = s$mean, mean_se = (s$mean_upper - s$mean_lower) / (2 * 1.96))

# 2. Switching currents of the Fig. 11(b) junction at a 20 kHz sweep
#    (median switching at Delta U / theta ~ 10.7), 20,000 paths, h sqrt(V0) = 0.05.
u <- jj_units(R = 250, C = 88e-15, Ic = 0.748e-6, T = 1.2, sweep_rate = 2e4 * 0.748e-6)
g <- seq(0, 0.99, by = 1e-4)
th <- switching_distribution(g, u$ramp, u$V0, u$beta, u$theta, "kramers")
gamma0 <- g[which(th$cdf >= 1e-4)[1]]
gamma_max <- g[which(th$cdf >= 1 - 1e-6)[1]]
sw <- switching_currents(20000, ramp = u$ramp, V0 = u$V0, beta = u$beta,
                         theta = u$theta, h = 0.05 / sqrt(u$V0), gamma0 = gamma0,
                         gamma_max = gamma_max, seed = 11, backend = backend,
                         progress = FALSE)

res <- list(
  arrhenius = arrhenius,
  arrhenius_params = list(gamma = 0.5, V0 = 0.05, beta = 0.1, h = 0.004, n = 5120,
                          seed = 20261121, steps = attr(arr, "steps"),
                          seconds = attr(arr, "seconds"), devices = attr(arr, "devices")),
  switching = sw,
  switching_units = u,
  created = format(Sys.time(), "%Y-%m-%d"),
  package_version = as.character(utils::packageVersion("statphysgpu")))
saveRDS(res, file.path(out_dir, "escape-vignette.rds"), compress = "xz")
cat("wrote", file.path(out_dir, "escape-vignette.rds"), "\n")
print(arrhenius)
print(summary(sw))
