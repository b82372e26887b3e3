# Recipe for the precomputed results of vignette("rare-escapes"): the
# Arrhenius study of vignette("escape-times") (Fig. 10 of Pierro et al.:
# gamma = 0.5, V0 = 0.05, beta = 0.1, h = 0.004, saddle, start at rest)
# by adaptive multilevel splitting from Delta U / theta = 3 to 30.  On a GPU
# (the default; the sizes of `gpu` below) or, with STATPHYSGPU_BACKEND=cpu,
# on the CPU with small sizes (minutes on two cores; larger errors).
# Writes ams-vignette.rds into STATPHYSGPU_OUT (default: the working
# directory).
#
#   Rscript -e 'source(system.file("scripts", "ams-vignette-data.R",
#                                  package = "statphysgpu"))'
library(statphysgpu)
out_dir <- Sys.getenv("STATPHYSGPU_OUT", ".")
backend <- Sys.getenv("STATPHYSGPU_BACKEND", "gpu")
size <- if (backend == "gpu") {
  list(particles = 500, replicas = 256, k = 25)
} else {
  list(particles = 200, replicas = 32, k = 10)
}
g <- 0.5; V0 <- 0.05; beta <- 0.1; h <- 0.004
DU <- barrier_height(g, V0)
ratios <- c(3, 5, 7, 9, 12, 15, 20, 25, 30)
t0 <- Sys.time()
# the levels in the energy (the default position is a poor reaction
# coordinate at this moderate damping: see the vignette), and the position
# for comparison
run <- function(score) {
  escape_rate_ams(g, V0, beta, DU / ratios, h, particles = size$particles,
                  replicas = size$replicas, k = size$k, score = score, seed = 20261125,
                  backend = backend, progress = interactive())
}
x <- run("energy")
xp <- run("position")
res <- list(ams = x, ams_position = xp,
            params = c(list(gamma = g, V0 = V0, beta = beta, h = h), size),
            seconds = as.numeric(difftime(Sys.time(), t0, units = "secs")),
            devices = attr(x, "devices"), created = format(Sys.Date()),
            package_version = as.character(utils::packageVersion("statphysgpu")))
saveRDS(res, file.path(out_dir, "ams-vignette.rds"))
print(x)
cat(sprintf("%.1f s on %s\n", res$seconds, res$devices))
