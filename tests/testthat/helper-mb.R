# Many-body models of the tests (test-mb.R, test-mb-gpu.R): made once a
# session (the compiled objects are shared through the cache as well).

.mb_models <- new.env(parent = emptyenv())
mb_model <- function(name) {
  if (is.null(.mb_models[[name]])) .mb_models[[name]] <- mb_make(name)
  .mb_models[[name]]
}

mb_make <- function(name) {
  r_obs <- list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2))
  switch(name,
    # Kuramoto, mean field and all pairs (paper 001); beta = 1
    kur = sde_model(
      drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1, rstop = 0.9),
      observe = r_obs, stop = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2) > rstop,
      name = "kuramoto-mf"),
    kpairs = sde_model(
      drift = list(theta = ~ omega + K / n * pairs(sin(theta[j] - theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0, K = 4, D = 1),
      observe = r_obs, name = "kuramoto-pairs"),
    # quenched Lorentzian frequencies, per element
    klor = sde_model(
      drift = list(theta = ~ w + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = list(K = 2, D = 0.1, g = 0.5, w = ~ rcauchy(0, g)),
      observe = r_obs, name = "kuramoto-lorentz"),
    # the HMF model (paper 004): Hamiltonian, and Langevin (baoab)
    hmf = sde_model(
      drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
      observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2), kin = ~ mean(p^2) / 2,
                     e = ~ mean(p^2) / 2 + (1 - mean(cos(q))^2 - mean(sin(q))^2) / 2),
      name = "hmf"),
    hmf_lang = sde_model(
      drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q) - g * p),
      noise = list(p = ~ sqrt(2 * g * T)), params = c(g = 1, T = 0.4),
      observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2), kin = ~ mean(p^2) / 2),
      name = "hmf-langevin"),
    # a harmonic ring with an on-site spring, Langevin
    hring = sde_model(
      drift = list(q = ~ p, p = ~ -w0^2 * q + k * (q[i + 1] - 2 * q + q[i - 1]) - g * p),
      noise = list(p = ~ sqrt(2 * g * T)), params = c(w0 = 1, k = 1, g = 1, T = 1),
      observe = list(q2 = ~ mean(q^2), p2 = ~ mean(p^2)), lattice = "ring", name = "harmonic-ring"),
    # a chain of Josephson junctions (sine-Gordon / Frenkel-Kontorova), both lattices
    jj_chain = sde_model(
      drift = list(phi = ~ v, v = ~ -sin(phi) + gamma + k * (phi[i + 1] - 2 * phi + phi[i - 1]) - beta * v),
      noise = list(v = ~ sqrt(2 * beta * T)), params = c(gamma = 0, k = 2, T = 0.5, beta = 1),
      observe = list(c = ~ mean(cos(phi)), cc = ~ mean(cos(phi[i + 1] - phi))), lattice = "chain",
      name = "jj-chain"),
    jj_ring = sde_model(
      drift = list(phi = ~ v, v = ~ -sin(phi) + gamma + k * (phi[i + 1] - 2 * phi + phi[i - 1]) - beta * v),
      noise = list(v = ~ sqrt(2 * beta * T)), params = c(gamma = 0, k = 2, T = 0.5, beta = 1),
      observe = list(c = ~ mean(cos(phi)), cc = ~ mean(cos(phi[i + 1] - phi))), lattice = "ring",
      name = "jj-ring"),
    stop("no such test model: ", name))
}

# r of the stationary mean-field Kuramoto model with noise D and coupling K
# (r = I1(K r / D) / I0(K r / D), the nonzero root).
mb_kuramoto_r <- function(K, D) {
  f <- function(r) besselI(K * r / D, 1) / besselI(K * r / D, 0) - r
  stats::uniroot(f, c(1e-6, 1 - 1e-12), tol = 1e-14)$root
}

# <cos phi> (per site, averaged over the sites) and <cos(phi_{i+1} - phi_i)>
# of the chain or ring of n sites with energy sum(-cos phi_i) + k/2 sum
# (phi_{i+1} - phi_i)^2 at temperature T, by the transfer integral on a grid
# of M angles (the bond weight summed over images 2 pi m of the difference:
# the chain's angles unwrapped; the ring's winding number is not summed
# over, as its unwrapped angles have none: the ring tests choose k and n
# where a winding costs k (2 pi)^2 / (2 n) >> T).
mb_transfer <- function(n, k, T, ring, M = 256) {
  phi <- (seq_len(M) - 0.5) * 2 * pi / M - pi
  h <- 2 * pi / M
  d <- outer(phi, phi, "-")
  bond <- Reduce(`+`, lapply(-3:3, function(m) exp(-(k / (2 * T)) * (d + 2 * pi * m)^2)))
  bondc <- Reduce(`+`, lapply(-3:3, function(m) {
    cos(d + 2 * pi * m) * exp(-(k / (2 * T)) * (d + 2 * pi * m)^2)
  }))
  site <- exp(cos(phi) / T)
  s2 <- sqrt(site)
  K <- (s2 * bond * rep(s2, each = M)) * h
  Kc <- (s2 * bondc * rep(s2, each = M)) * h
  C <- diag(cos(phi))
  mpow <- function(A, p) {
    out <- diag(M)
    while (p > 0) {
      if (p %% 2 == 1) out <- out %*% A
      A <- A %*% A
      p <- p %/% 2
    }
    out
  }
  if (ring) {
    Kn <- mpow(K, n)
    Z <- sum(diag(Kn))
    return(c(c = sum(diag(C %*% Kn)) / Z,
             cc = sum(diag(Kc %*% mpow(K, n - 1))) / Z))
  }
  # chain: end vectors carry the sites' other half weights
  v <- s2 * sqrt(h)
  P <- lapply(0:(n - 1), function(p) mpow(K, p))
  Z <- drop(t(v) %*% P[[n]] %*% v)
  cs <- vapply(seq_len(n), function(i) {
    drop(t(v) %*% P[[i]] %*% C %*% P[[n - i + 1]] %*% v) / Z
  }, 0)
  # the observable's neighbour at the free end is the site itself: cos(0) = 1
  ccs <- vapply(seq_len(n - 1), function(i) {
    drop(t(v) %*% P[[i]] %*% Kc %*% P[[n - i]] %*% v) / Z
  }, 0)
  c(c = mean(cs), cc = (sum(ccs) + 1) / n)
}

# Periodic-state models (sde_model(periodic = )) and their undeclared twins
# (test-mb-periodic.R, test-mb-gpu.R).
per_models <- new.env(parent = emptyenv())
per_model <- function(name) {
  if (is.null(per_models[[name]])) {
    kur <- function(p) sde_model(
      drift = list(theta = ~ omega + K * (mean(sin(theta)) * cos(theta) - mean(cos(theta)) * sin(theta))),
      noise = list(theta = ~ sqrt(2 * D)), params = c(omega = 0.7, K = 3, D = 0.5),
      observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2),
                     c2 = ~ mean(cos(2 * theta))),
      name = "per-kuramoto", periodic = p)
    hmf <- function(p) sde_model(
      drift = list(q = ~ p, p = ~ mean(sin(q)) * cos(q) - mean(cos(q)) * sin(q)),
      observe = list(M = ~ sqrt(mean(cos(q))^2 + mean(sin(q))^2),
                     e = ~ mean(p^2) / 2 + (1 - mean(cos(q))^2 - mean(sin(q))^2) / 2),
      name = "per-hmf", periodic = p)
    per_models[[name]] <- switch(name, kur = kur("theta"), kur0 = kur(NULL),
                                 hmf = hmf("q"), hmf0 = hmf(NULL))
  }
  per_models[[name]]
}

# |a - b| modulo 2 pi
ang_dist <- function(a, b) {
  d <- (a - b) %% (2 * pi)
  pmin(d, 2 * pi - d)
}

# Issue 50, pairs in source chunks (test-mb-pair-chunks.R, test-mb-gpu.R):
# 2D particles with softened gravity-like pair forces (lrmd's gravity2d as
# a user writes it): Hamiltonian (yoshida4), Langevin (baoab), overdamped
# (euler, srk2); a pair observable (its kernel takes the chunks too).
mb_chunk_models <- function() {
  f <- quote(((x - x[j])^2 + (y - y[j])^2 + eps^2)^-1)
  V <- ~ sum(pairs(log((x - x[j])^2 + (y - y[j])^2 + eps^2)))
  list(
    grav = sde_model(
      drift = list(x = ~ px, y = ~ py,
                   px = eval(bquote(~ -1 / n * pairs((x - x[j]) * .(f)))),
                   py = eval(bquote(~ -1 / n * pairs((y - y[j]) * .(f))))),
      params = c(eps = 0.05), observe = list(K = ~ mean(px^2 + py^2) / 2, V = V),
      name = "chunks-grav2d"),
    lang = sde_model(
      drift = list(x = ~ px, y = ~ py,
                   px = eval(bquote(~ -g * px - 1 / n * pairs((x - x[j]) * .(f)))),
                   py = eval(bquote(~ -g * py - 1 / n * pairs((y - y[j]) * .(f))))),
      noise = list(px = ~ sqrt(2 * g * T), py = ~ sqrt(2 * g * T)),
      params = c(eps = 0.05, g = 0.5, T = 0.2), observe = list(K = ~ mean(px^2 + py^2) / 2, V = V),
      name = "chunks-grav2d-langevin"),
    od = sde_model(
      drift = list(x = eval(bquote(~ -1 / n * pairs((x - x[j]) * .(f)))),
                   y = eval(bquote(~ -1 / n * pairs((y - y[j]) * .(f))))),
      noise = list(x = ~ sqrt(2 * T), y = ~ sqrt(2 * T)), params = c(eps = 0.05, T = 0.01),
      observe = list(V = V), name = "chunks-grav2d-overdamped"))
}

# Their starts: particles in the unit square, small momenta.
mb_chunk_init <- function(m) {
  init <- list(x = ~ runif(0, 1), y = ~ runif(0, 1), px = ~ rnorm(0, 0.1), py = ~ rnorm(0, 0.1))
  init[m$states]
}
