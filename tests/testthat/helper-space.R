# Models with positions in a periodic box and on graphs (issue 49), made
# once a session (test-mb-space.R, test-mb-space-gpu.R).

.space_models <- new.env(parent = emptyenv())
space_model <- function(name) {
  if (is.null(.space_models[[name]])) .space_models[[name]] <- space_make(name)
  .space_models[[name]]
}

space_make <- function(name) {
  switch(name,
    # the Lennard-Jones fluid, truncated and shifted at rc, Langevin
    # dynamics (baoab) or, with g large, close to Brownian; potential
    # energy per particle and the virial W = sum over pairs of r u'(r)
    # with the sign of a force (P = rho T + W / (3 V))
    lj3 = sde_model(
      drift = list(x = ~ vx, y = ~ vy, z = ~ vz,
                   vx = ~ pairs(f * dx, cutoff = rc) - g * vx,
                   vy = ~ pairs(f * dy, cutoff = rc) - g * vy,
                   vz = ~ pairs(f * dz, cutoff = rc) - g * vz),
      noise = list(vx = ~ sqrt(2 * g * T), vy = ~ sqrt(2 * g * T), vz = ~ sqrt(2 * g * T)),
      params = c(g = 1, T = 1.5, rc = 2.5),
      define = list(ir2 = ~ 1 / r^2, ir6 = ~ ir2^3,
                    f = ~ -24 * ir6 * (2 * ir6 - 1) * ir2,
                    u = ~ 4 * ir6 * (ir6 - 1) - 4 * (rc^-12 - rc^-6)),
      observe = list(U = ~ sum(pairs(u, cutoff = rc)) / 2 / n,
                     W = ~ sum(pairs(-f * r^2, cutoff = rc)) / 2,
                     K = ~ mean(vx^2 + vy^2 + vz^2) / 2),
      positions = c("x", "y", "z"), name = "lj3"),
    # two (or more) Brownian particles bound by harmonic springs to each
    # other, in 3D: the relative coordinate is an Ornstein-Uhlenbeck process
    # with the Boltzmann law exp(-k r^2 / (2 T))
    bond3 = sde_model(
      drift = list(x = ~ k * pairs(dx), y = ~ k * pairs(dy), z = ~ k * pairs(dz)),
      noise = list(x = ~ sqrt(2 * T), y = ~ sqrt(2 * T), z = ~ sqrt(2 * T)),
      params = c(k = 1, T = 1), observe = list(d2 = ~ sum(pairs(r^2)) / 2),
      positions = c("x", "y", "z"), name = "bond3"),
    # an ideal gas of Brownian particles in the plane
    ideal2 = sde_model(
      drift = list(x = ~ 0, y = ~ 0), noise = list(x = ~ sqrt(2 * D), y = ~ sqrt(2 * D)),
      params = c(D = 1), positions = c("x", "y"), name = "ideal2"),
    # Kuramoto oscillators on a graph (weights a, in-neighbours j)
    kgraph = sde_model(
      drift = list(theta = ~ w + K * edges(a * sin(theta[j] - theta))),
      noise = list(theta = ~ sqrt(2 * D)),
      params = list(K = 1, D = 0.1, w = ~ rnorm(0, 1)),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
      name = "kuramoto-graph"),
    # the same coupling as all pairs (test-mb.R's kuramoto-pairs, K / n
    # folded into K here)
    kpairs1 = sde_model(
      drift = list(theta = ~ w + K * pairs(sin(theta[j] - theta))),
      noise = list(theta = ~ sqrt(2 * D)),
      params = list(K = 1, D = 0.1, w = ~ rnorm(0, 1)),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
      name = "kuramoto-pairs1"),
    stop("no such test model: ", name))
}

# A simple cubic lattice of n particles (n a cube) filling a box of side L,
# jittered by up to `jitter` of the spacing (a deterministic pattern).
space_lattice <- function(n, L, jitter = 0.05) {
  m <- round(n^(1 / 3))
  stopifnot(m^3 == n)
  a <- L / m
  i <- seq_len(n) - 1
  j <- jitter * a * sin(seq_len(n) * c(1.3, 2.1, 3.7)[1])
  list(x = (i %% m + 0.5) * a + j, y = ((i %/% m) %% m + 0.5) * a + jitter * a * cos(1.7 * i),
       z = (i %/% m^2 + 0.5) * a + jitter * a * sin(2.9 * i))
}

# An fcc lattice of 4 m^3 particles at density rho: list(n, L, init) with
# the starts of lj3 (positions, velocities 0).
space_fcc <- function(m, rho) {
  n <- 4 * m^3
  L <- (n / rho)^(1 / 3)
  a <- L / m
  b <- rbind(c(0, 0, 0), c(0.5, 0.5, 0), c(0.5, 0, 0.5), c(0, 0.5, 0.5))
  g <- expand.grid(i = 0:(m - 1), j = 0:(m - 1), k = 0:(m - 1))
  p <- do.call(rbind, lapply(1:4, function(s) cbind(g$i + b[s, 1], g$j + b[s, 2], g$k + b[s, 3])))
  list(n = n, L = L, init = list(x = (p[, 1] + 0.25) * a, y = (p[, 2] + 0.25) * a,
                                 z = (p[, 3] + 0.25) * a, vx = 0, vy = 0, vz = 0))
}

# Base R: the truncated and shifted Lennard-Jones energy per particle and
# the virial W = sum_{i<j} r u'(r) (with u'(r) r = 24 (2 r^-12 - r^-6)),
# all pairs with the minimum image, of positions (x, y, z) in a cube of side L.
space_lj_base <- function(x, y, z, L, rc = 2.5) {
  mi <- function(d) d - L * floor(d / L + 0.5)
  dx <- mi(outer(x, x, "-")); dy <- mi(outer(y, y, "-")); dz <- mi(outer(z, z, "-"))
  r2 <- dx^2 + dy^2 + dz^2
  up <- upper.tri(r2) & r2 < rc^2
  ir6 <- 1 / r2[up]^3
  u <- 4 * ir6 * (ir6 - 1) - 4 * (rc^-12 - rc^-6)
  w <- 24 * ir6 * (2 * ir6 - 1)
  c(U = sum(u) / length(x), W = sum(w))
}
