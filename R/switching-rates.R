# switching_currents(method = "rates"): the switching distribution of a slow
# ramp from escape rates simulated at fixed bias (escape_times() with
# censoring where escape is frequent enough, escape_rate_ams() where it is
# rare), a smooth fit of log Gamma over the bias, and the Fulton-Dunkleberger
# integral, with intervals by the delta method (deterministic: no random
# numbers beyond the simulations' own Philox streams).

# The settings of `rates = list(...)` and their defaults.
SWITCHING_RATES_DEFAULTS <- list(points = 12, eps = 1e-3, target = 0.005, steps = "auto",
                                 scheme = "srk2", particles = 1000, ams_replicas = "auto",
                                 ams_max_replicas = "auto", score = "auto", degree = 3,
                                 level = 0.95)

# AMS at a bias: at most this many batches (the first, then batches sized
# from the error measured so far), each at least this factor larger in all,
# and sized for this factor more variance than the last measurement asks.
SWITCHING_RATES_AMS_BATCHES <- 4L
SWITCHING_RATES_AMS_GROW <- 1.25
SWITCHING_RATES_AMS_MARGIN <- 1.2

# The quantiles reported (summary()).
SWITCHING_RATES_PROBS <- c(0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)

# Points of the quadrature grid of the Fulton-Dunkleberger integral.
SWITCHING_RATES_FINE <- 4001L

# `rates`, checked, with the defaults filled in.
switching_rates_settings <- function(rates, call) {
  if (!is.list(rates) || (length(rates) && (is.null(names(rates)) || any(!nzchar(names(rates)))))) {
    sp_abort(sprintf("`rates` must be a named list of settings (%s), not %s.",
                     paste(names(SWITCHING_RATES_DEFAULTS), collapse = ", "), describe(rates)),
             call = call)
  }
  bad <- setdiff(names(rates), names(SWITCHING_RATES_DEFAULTS))
  if (length(bad)) {
    sp_abort(sprintf("`rates` has no setting `%s`; the settings are %s.", bad[1],
                     paste(names(SWITCHING_RATES_DEFAULTS), collapse = ", ")), call = call)
  }
  s <- utils::modifyList(SWITCHING_RATES_DEFAULTS, rates)
  s$points <- check_whole(s$points, "rates$points", lo = 4, hi = 1000, call = call)
  s$eps <- check_range(s$eps, "rates$eps", 0, 0.1, lo_open = TRUE, len = 1, call = call)
  s$target <- check_range(s$target, "rates$target", 0, 0.5, lo_open = TRUE, len = 1,
                          call = call)
  if (!identical(s$steps, "auto")) {
    s$steps <- check_range(s$steps, "rates$steps", 0, Inf, len = 1, call = call)
  }
  s$scheme <- check_choice(s$scheme, c("srk2", "euler"), "rates$scheme", call = call)
  s$particles <- check_whole(s$particles, "rates$particles", lo = 2, hi = 2^24 - 2, call = call)
  if (!identical(s$ams_replicas, "auto")) {
    s$ams_replicas <- check_whole(s$ams_replicas, "rates$ams_replicas", lo = 2, call = call)
  }
  if (!identical(s$ams_max_replicas, "auto")) {
    s$ams_max_replicas <- check_whole(s$ams_max_replicas, "rates$ams_max_replicas", lo = 2,
                                      call = call)
  }
  s$score <- check_choice(s$score, c("auto", "position", "energy"), "rates$score", call = call)
  s$degree <- check_whole(s$degree, "rates$degree", lo = 1, hi = 6, call = call)
  if (s$degree + 2 > s$points) {
    sp_abort(sprintf(paste0("`rates$degree` (%s) needs at least degree + 2 = %s bias points, ",
                            "but `rates$points` is %s: raise points or lower degree."),
                     fmt_num(s$degree), fmt_num(s$degree + 2), fmt_num(s$points)), call = call)
  }
  s$level <- check_level(s$level, call = call)
  s
}

# The slowest relaxation rate of the linearised well at bias g (as in
# switching_quasi_static()).
well_relaxation <- function(g, V0, beta) {
  w0 <- omega0_omx(1 - g, V0)
  (beta - sqrt(pmax(beta^2 - 4 * w0^2, 0))) / 2
}

# The plan of one condition `a` (ramp, V0, beta, theta): the bias window and
# grid from the Kramers Fulton-Dunkleberger law (only to place the points and
# size the runs: the result uses the simulated rates alone), and per point the
# estimator, its expected events and the censoring time.
switching_rates_plan <- function(a, gamma0, gamma_max, replicas, dt, s, steps, call) {
  cdf <- function(g) switching_distribution(g, a$ramp, a$V0, a$beta, a$theta)$cdf
  st <- switching_start_grid(a[, c("condition", "ramp", "V0", "beta", "theta")], s$eps,
                             "kramers", call)
  lo <- if (identical(gamma0, "auto")) st$gamma0 else max(gamma0, st$gamma0)
  hi <- min(gamma_max, switching_quantile(cdf, lo, 1 - s$eps))
  if (!(hi > lo)) {
    sp_abort(sprintf(paste0(
      "condition %d: `gamma_max` (%s) lies below the window where switching happens ",
      "(from gamma = %s, where the Kramers law puts eps = %s of the switches below): ",
      "raise gamma_max."), a$condition, format(gamma_max), format(lo, digits = 6),
      format(s$eps)), call = call)
  }
  g <- seq(lo, hi, length.out = s$points)
  tau <- 1 / escape_rate(g, a$V0, a$beta, a$theta)
  Fk <- cdf(g)
  omega <- pmax((1 - Fk) * (-log1p(-pmin(Fk, 1 - 1e-300))), 1e-6)
  # the rate's precision wanted at each point: its error moves the CDF by
  # about omega * dlog(Gamma); at most 0.5 (tails), so events >= 4
  dlog <- pmin(0.5, s$target / omega)
  events <- ceiling(1 / dlog^2)
  t_relax <- 5 / well_relaxation(g, a$V0, a$beta)
  exposure <- events * tau
  t_max <- pmin(pmax(t_relax + exposure / replicas, 20 * t_relax), t_relax + 5 * tau)
  work <- replicas * pmin(t_max, t_relax + tau) / dt
  data.frame(gamma = g, kramers_rate = 1 / tau, plan_cdf = Fk, events_wanted = events,
             se_wanted = dlog, t_relax = t_relax, t_max = t_max,
             estimator = ifelse(work <= steps, "escape_times", "ams"))
}

# switching_currents(method = "rates"): every condition of `grid` planned,
# simulated, fitted and integrated.
switching_rates_run <- function(replicas, grid, dt, gamma0, gamma_max, seed, backend, devices,
                                precision, progress, threshold, s, call) {
  replicas <- check_count(replicas, "replicas", min = 1, call = call)
  if (is.null(seed)) seed <- sp_seed() # R's RNG, documented: set.seed() reproduces
  check_u64(seed, "seed", call = call)
  steps <- s$steps
  if (identical(steps, "auto")) {
    plan_b <- resolve_backend(backend, devices, work = replicas, auto_threshold = 1e4,
                              call = call)
    # a bias's budget: on one H100 escape_times() ran 2.6-3.5e11 SRK2 steps/s
    # (Fig. 11(b)'s biases, single precision, 2^20 paths; bench/RESULTS.md),
    # so 1e13 is 30-40 s a bias at most
    steps <- if (plan_b$backend == "gpu") 1e13 else 1e9
  }
  t_start <- proc.time()[["elapsed"]]
  offset <- 0 # replica numbers used so far: every run draws from its own streams
  out <- rate_tabs <- fits <- stats <- list()
  backends <- character()
  for (i in seq_len(nrow(grid))) {
    a <- grid[i, , drop = FALSE]
    plan <- switching_rates_plan(a, gamma0, gamma_max, replicas, dt, s, steps, call)
    g_thr <- if (identical(gamma0, "auto")) plan$gamma[1] else gamma0
    phi_th <- escape_threshold(threshold, g_thr, call)
    score <- if (s$score != "auto") s$score else
      if (a$beta < 2 * omega0_omx(1 - plan$gamma[1], a$V0)) "energy" else "position"
    rows <- lapply(seq_len(nrow(plan)), function(j) {
      p <- plan[j, ]
      off <- phi_th - (pi - asin(p$gamma)) # the same absolute threshold at every bias
      t1 <- proc.time()[["elapsed"]]
      if (p$estimator == "escape_times") {
        x <- escape_times(replicas, gamma = p$gamma, V0 = a$V0, beta = a$beta,
                          theta = a$theta, dt = dt, t_max = p$t_max, method = s$scheme,
                          seed = seed, first_replica = offset + 1, backend = backend,
                          devices = devices, precision = precision, progress = progress,
                          threshold = off, init = "thermal")
        offset <<- offset + replicas
        tr <- exp_tail_core(x$value, x$escaped, min(p$t_relax, max(x$value) / 2), s$level,
                            call)
        backends <<- c(backends, attr(x, "backend"))
        data.frame(estimator = "escape_times", rate = tr$rate,
                   se_log = if (tr$events > 0) 1 / sqrt(tr$events) else NA_real_,
                   events = tr$events, exposure = tr$exposure, runs = replicas,
                   seconds = proc.time()[["elapsed"]] - t1)
      } else {
        y <- switching_rates_ams(p, a, off, dt, s, steps, score, seed, offset, backend,
                                 devices, precision, progress, call)
        offset <<- offset + y$replicas
        backends <<- c(backends, attr(y, "backend"))
        data.frame(estimator = "ams", rate = y$rate, se_log = y$rate_se / y$rate,
                   events = NA_real_, exposure = NA_real_, runs = y$replicas,
                   seconds = proc.time()[["elapsed"]] - t1)
      }
    })
    rt <- cbind(data.frame(condition = a$condition, ramp = a$ramp, V0 = a$V0, beta = a$beta,
                           theta = a$theta), plan[, c("gamma", "t_max")], do.call(rbind, rows),
                se_wanted = plan$se_wanted,
                kramers_rate = plan$kramers_rate)
    rt$threshold <- phi_th - (pi - asin(rt$gamma))
    fit <- switching_rates_fit(rt, s$degree, call)
    rt$fit_log_rate <- fit$predict(rt$gamma)
    rt$fit_se_log <- fit$predict_se(rt$gamma)
    rate_tabs[[i]] <- rt
    g_lo <- plan$gamma[1]
    g_hi <- plan$gamma[nrow(plan)]
    from <- if (identical(gamma0, "auto")) g_lo else gamma0
    res <- switching_rates_distribution(fit, a$ramp, from, g_lo, g_hi, s$level)
    out[[i]] <- cbind(data.frame(condition = a$condition, ramp = a$ramp, V0 = a$V0,
                                 beta = a$beta, theta = a$theta), res$table)
    st <- res$stats
    stats[[i]] <- cbind(data.frame(condition = a$condition, ramp = a$ramp, V0 = a$V0,
                                   beta = a$beta, theta = a$theta), st)
    fits[[i]] <- fit[c("coef", "vcov", "center", "half", "chisq", "df", "scale", "degree")]
    if (res$top_cdf < 1 - 10 * s$eps && g_hi < gamma_max) {
      sp_warn(sprintf(paste0(
        "condition %d: the simulated distribution reaches only F = %s at the top of the bias ",
        "grid (gamma = %s), where the Kramers law planned 1 - eps = %s: the simulated ",
        "rates are smaller than Kramers', and the mean and width are of the distribution ",
        "cut there. Raise `rates$eps`'s window with a smaller eps, or give gamma_max."),
        a$condition, format(res$top_cdf, digits = 4), format(g_hi, digits = 6),
        format(1 - s$eps)), call = call)
    }
  }
  x <- new_df(as.list(do.call(rbind, out)))
  attr(x, "rates") <- do.call(rbind, rate_tabs)
  attr(x, "stats") <- do.call(rbind, stats)
  attr(x, "fits") <- fits
  attr(x, "conditions") <- grid
  attr(x, "method") <- "rates"
  attr(x, "scheme") <- s$scheme
  attr(x, "dt") <- dt
  attr(x, "gamma0") <- gamma0
  attr(x, "gamma_max") <- gamma_max
  attr(x, "threshold") <- threshold
  attr(x, "init") <- "thermal"
  attr(x, "replicas") <- replicas
  attr(x, "settings") <- s
  attr(x, "steps_budget") <- steps
  attr(x, "level") <- s$level
  attr(x, "seed") <- seed
  attr(x, "backend") <- if (length(backends)) paste(unique(backends), collapse = "+") else NA
  attr(x, "precision") <- check_choice(precision[1], c("single", "double"), "precision",
                                       call = call)
  attr(x, "seconds") <- proc.time()[["elapsed"]] - t_start
  class(x) <- c("switching_rates", "switching_currents", "data.frame")
  x
}

# AMS at the bias of plan row `p` (condition `a`, threshold `off` past the
# saddle), sized to the precision the plan wants there (`p$se_wanted` in log
# Gamma): a first batch of rates$ams_replicas replicas ("auto": as
# escape_rate_ams() takes it), then batches that bring the replicas to what
# the jackknife error measured so far asks, (se / se_wanted)^2 times as many
# (times a margin of 1.2; at least 1.25 times as many; 4 times as many where
# no error could be measured), until the error reaches se_wanted, or the
# replicas' integration steps (counted by the engine) would pass the budget
# `steps`, or the replicas rates$ams_max_replicas ("auto": 64 times the
# first batch), or after 4 batches.  A replica's result depends only on the
# seed and its number, and the batches' sizes only on the results before
# them: the point is reproducible for a seed (and, in double precision, the
# same on the CPU and the GPU), whatever the timing.  The result is the
# rbind() of the batches: one escape_rate_ams() estimate over all replicas.
switching_rates_ams <- function(p, a, off, dt, s, steps, score, seed, offset, backend,
                                devices, precision, progress, call) {
  run <- function(first, n) {
    escape_rate_ams(p$gamma, a$V0, a$beta, a$theta, dt, threshold = off, method = s$scheme,
                    particles = s$particles, replicas = n, score = score, seed = seed,
                    first_replica = first, backend = backend, devices = devices,
                    precision = precision, progress = progress, init = "thermal")
  }
  y <- run(offset + 1, s$ams_replicas)
  n0 <- y$replicas
  cap <- if (identical(s$ams_max_replicas, "auto")) 64 * n0 else max(s$ams_max_replicas, n0)
  for (b in seq_len(SWITCHING_RATES_AMS_BATCHES - 1L)) {
    n <- y$replicas
    se <- y$rate_se / y$rate
    if (is.finite(se) && se > 0 && se <= p$se_wanted) break
    want <- if (is.finite(se) && se > 0) {
      max(ceiling(SWITCHING_RATES_AMS_MARGIN * n * (se / p$se_wanted)^2),
          ceiling(SWITCHING_RATES_AMS_GROW * n))
    } else {
      4 * n
    }
    per <- sum(attr(y, "replicas_table")$steps) / n
    afford <- if (per > 0) floor(steps / per) else Inf
    total <- min(want, cap, afford)
    if (!(total > n)) break
    y <- rbind(y, run(offset + n + 1, total - n))
  }
  y
}

# The fit of log Gamma: a polynomial in the scaled bias u = (gamma - center)
# / half, by maximum likelihood.  An escape_times() point is a Poisson count:
# `events` escapes in `exposure` (the censored exponential likelihood, events
# log Gamma - Gamma exposure), so its weight is the number of escapes the fit
# expects there, not the number observed -- weights 1 / se_log^2 = observed
# events would give the points that drew more escapes than expected more
# weight, pulling the fit up by about 1/2 of a standard error a point where
# the counts are small (4 escapes), and a point without escapes would drop
# out.  An AMS point is normal in log Gamma with its jackknife error.  By
# iteratively reweighted least squares (Fisher scoring; step halving
# on the log-likelihood); the covariance (the inverse Fisher information)
# scaled up by chi^2 / df (Pearson's) where the scatter exceeds the errors.
switching_rates_fit <- function(rt, degree, call) {
  pois <- rt$estimator == "escape_times" & is.finite(rt$events) & rt$events >= 0 &
    is.finite(rt$exposure) & rt$exposure > 0
  gaus <- !pois & is.finite(rt$rate) & rt$rate > 0 & is.finite(rt$se_log) & rt$se_log > 0
  ok <- pois | gaus
  if (sum(ok) < 3 || sum(rt$events[pois]) + sum(gaus) == 0) {
    sp_abort(sprintf(paste0(
      "condition %d: only %d bias points gave a rate with an error (a run without escapes, ",
      "or an AMS run without spread): too few to fit log Gamma. Give more `replicas`, a ",
      "larger rates$steps or rates$particles."), rt$condition[1],
      sum(pois & rt$events > 0) + sum(gaus)), call = call)
  }
  degree <- min(degree, sum(ok) - 2)
  center <- mean(range(rt$gamma))
  half <- diff(range(rt$gamma)) / 2
  basis <- function(g) outer((g - center) / half, 0:degree, `^`)
  X <- basis(rt$gamma[ok])
  isp <- pois[ok]
  d <- ifelse(isp, rt$events[ok], NA_real_)
  E <- ifelse(isp, rt$exposure[ok], NA_real_)
  ya <- ifelse(isp, NA_real_, log(rt$rate[ok]))
  wa <- ifelse(isp, NA_real_, 1 / rt$se_log[ok]^2)
  loglik <- function(eta) {
    sum(d[isp] * eta[isp] - E[isp] * exp(eta[isp])) - sum(wa[!isp] * (ya[!isp] - eta[!isp])^2) / 2
  }
  # Fisher scoring from the start log((d + 1/2) / E) (normal points: their value)
  z <- ifelse(isp, log((d + 0.5) / E), ya)
  w <- ifelse(isp, d + 0.5, wa)
  coef <- drop(solve(crossprod(X * sqrt(w)), crossprod(X * w, z)))
  eta <- drop(X %*% coef)
  ll <- loglik(eta)
  for (it in 1:100) {
    mu <- ifelse(isp, E * exp(eta), NA_real_)
    w <- ifelse(isp, mu, wa)
    z <- ifelse(isp, eta + (d - mu) / mu, ya)
    new <- drop(solve(crossprod(X * sqrt(w)), crossprod(X * w, z)))
    step <- new - coef
    for (h in 0:30) {
      cand <- coef + step / 2^h
      ll_c <- loglik(drop(X %*% cand))
      if (is.finite(ll_c) && ll_c >= ll - 1e-12 * abs(ll)) break
    }
    done <- max(abs(cand - coef)) < 1e-10
    coef <- cand
    eta <- drop(X %*% coef)
    ll <- ll_c
    if (done) break
  }
  mu <- ifelse(isp, E * exp(eta), NA_real_)
  w <- ifelse(isp, mu, wa)
  Ainv <- solve(crossprod(X * sqrt(w)))
  chisq <- sum(((d - mu)^2 / mu)[isp]) + sum((wa * (ya - eta)^2)[!isp])
  df <- length(eta) - length(coef)
  scale <- if (df > 0) max(1, chisq / df) else 1
  fit <- switching_rates_poly(coef, Ainv * scale, center, half)
  fit$chisq <- chisq
  fit$df <- df
  fit$scale <- scale
  fit
}

# A fit of log Gamma: a polynomial with coefficients `coef` (covariance
# `vcov`) in u = (gamma - center) / half.
switching_rates_poly <- function(coef, vcov, center, half) {
  degree <- length(coef) - 1
  basis <- function(g) outer((g - center) / half, 0:degree, `^`)
  list(coef = coef, vcov = vcov, center = center, half = half, degree = degree, basis = basis,
       chisq = NA_real_, df = NA_integer_, scale = 1,
       predict = function(g, cf = coef) drop(basis(g) %*% cf),
       predict_se = function(g) {
         B <- basis(g)
         sqrt(pmax(rowSums((B %*% vcov) * B), 0))
       })
}

# The Fulton-Dunkleberger integral of exp(fit) from g_lo to g_hi (and the
# switches between `from` and g_lo by the fit's exponential continuation),
# the distribution's statistics, and their errors by the delta method over
# the fit's coefficients (central differences).
switching_rates_distribution <- function(fit, ramp, from, g_lo, g_hi, level) {
  x <- seq(g_lo, g_hi, length.out = SWITCHING_RATES_FINE)
  dx <- x[2] - x[1]
  z <- stats::qnorm(1 - (1 - level) / 2)
  # everything the errors are propagated to, as one vector, from the coefficients
  core <- function(cf) {
    lr <- fit$predict(x, cf) - log(ramp) # log(Gamma / v)
    m <- max(lr)
    e <- exp(lr - m)
    cum <- c(0, cumsum((e[-1] + e[-length(e)]) / 2)) * dx # int_{g_lo}^{x}, scaled by e^-m
    # below g_lo: the exponential continuation with the fit's slope at g_lo
    kappa <- (fit$predict(g_lo + 1e-6 * dx, cf) - fit$predict(g_lo - 1e-6 * dx, cf)) /
      (2e-6 * dx)
    below <- if (from < g_lo && kappa > 0) e[1] * (-expm1(-kappa * (g_lo - from))) / kappa else 0
    logJ <- log(cum + below) + m
    J <- exp(logJ)
    Fx <- -expm1(-J)
    surv <- exp(-J)
    # mean and width of the switching bias, switches past g_hi put at g_hi
    mean_g <- g_lo + sum((surv[-1] + surv[-length(surv)]) / 2) * dx
    ex2 <- g_lo^2 + 2 * sum(((x * surv)[-1] + (x * surv)[-length(x)]) / 2) * dx
    sd_g <- sqrt(max(ex2 - mean_g^2, 0))
    q <- vapply(SWITCHING_RATES_PROBS, function(p) {
      if (p <= Fx[1] || p > Fx[length(Fx)]) return(NA_real_)
      stats::approx(Fx, x, xout = p, ties = "ordered")$y
    }, numeric(1))
    list(logJ = logJ, F = Fx, dens = exp(lr - J), mean = mean_g, sd = sd_g, q = q)
  }
  base <- core(fit$coef)
  vec <- function(r) c(r$logJ, log(pmax(r$dens, 1e-300)), r$mean, r$sd, r$q)
  v0 <- vec(base)
  k <- length(fit$coef)
  G <- matrix(0, length(v0), k)
  for (j in seq_len(k)) {
    h <- 1e-3 * max(sqrt(fit$vcov[j, j]), 1e-6)
    cp <- cm <- fit$coef
    cp[j] <- cp[j] + h
    cm[j] <- cm[j] - h
    G[, j] <- (vec(core(cp)) - vec(core(cm))) / (2 * h)
  }
  se <- sqrt(pmax(rowSums((G %*% fit$vcov) * G), 0))
  n <- length(x)
  se_logJ <- se[seq_len(n)]
  se_logd <- se[n + seq_len(n)]
  rest <- se[-seq_len(2 * n)]
  J <- exp(base$logJ)
  se_logJ[!is.finite(se_logJ)] <- 0 # J = 0 at the window's start from gamma0 = "auto"
  table <- data.frame(gamma = x, cdf = base$F,
                      cdf_lower = -expm1(-J * exp(-z * se_logJ)),
                      cdf_upper = -expm1(-J * exp(z * se_logJ)),
                      density = base$dens,
                      density_lower = base$dens * exp(-z * se_logd),
                      density_upper = base$dens * exp(z * se_logd),
                      rate = exp(fit$predict(x)), rate_se_log = fit$predict_se(x))
  nq <- length(SWITCHING_RATES_PROBS)
  stats <- data.frame(mean = base$mean, mean_se = rest[1], sd = base$sd, sd_se = rest[2])
  qs <- as.data.frame(matrix(c(base$q, rest[2 + seq_len(nq)]), nrow = 1))
  names(qs) <- c(sprintf("q%g", 100 * SWITCHING_RATES_PROBS),
                 sprintf("q%g_se", 100 * SWITCHING_RATES_PROBS))
  stats <- cbind(stats, qs, data.frame(p_below = base$F[1], top_cdf = base$F[n],
                                       gamma_lo = g_lo, gamma_hi = g_hi, chisq = fit$chisq,
                                       df = fit$df))
  list(table = table, stats = stats, top_cdf = base$F[n])
}

# The checks of switching_currents(method = "rates") before the run.
switching_rates_call <- function(replicas, ramp, V0, beta, theta, dt, gamma0, gamma_max, seed,
                                 first_replica, backend, devices, precision, progress,
                                 threshold, init, rates, call) {
  s <- switching_rates_settings(rates, call)
  dt <- check_positive(dt, "dt", len = 1, call = call)
  if (!identical(first_replica, 1) && !identical(first_replica, 1L)) {
    sp_abort(paste0("`first_replica` is for chunks of paths; method = \"rates\" runs its own ",
                    "estimates at every bias (each on replica numbers of its own): leave it ",
                    "at 1."), call = call)
  }
  if (!is.null(init) && !identical(init, "thermal")) {
    sp_abort(sprintf(paste0(
      "method = \"rates\" simulates each bias from thermal equilibrium in its well (the ",
      "quasi-static state a slowly swept path is in): `init` must be \"thermal\" or left ",
      "out, not %s."), describe(init)), call = call)
  }
  auto <- identical(gamma0, "auto")
  if (!auto) {
    if (is.character(gamma0)) {
      sp_abort(sprintf(paste0("`gamma0` must be a single finite number in [0, 1) or ",
                              "\"auto\", not %s."), describe(gamma0)), call = call)
    }
    gamma0 <- check_range(gamma0, "gamma0", 0, 1, hi_open = TRUE, len = 1, call = call)
  }
  gamma_max <- check_range(gamma_max, "gamma_max", if (auto) 0 else gamma0, 1,
                           lo_open = TRUE, len = 1, call = call)
  escape_threshold(threshold, 0, call) # its form; the value is set per condition
  grid <- escape_grid(list(ramp = ramp, V0 = V0, beta = beta, theta = theta), call)
  switching_rates_run(replicas, grid, dt, gamma0, min(gamma_max, 1 - 1e-9), seed, backend,
                      devices, precision, progress, threshold, s, call)
}

#' @export
print.switching_rates <- function(x, ...) {
  st <- attr(x, "stats")
  rt <- attr(x, "rates")
  cli::cat_line(sprintf(paste0(
    "<switching_rates> switching currents from simulated escape rates, %d condition%s ",
    "| %s, %s precision, dt = %s"), nrow(st), if (nrow(st) == 1) "" else "s",
    attr(x, "scheme"), attr(x, "precision"), format(attr(x, "dt"))))
  cat(sprintf("backend: %s | seed %s | %.3g s | %d bias points (%d escape_times, %d AMS)\n",
              attr(x, "backend"), fmt_num(attr(x, "seed")), attr(x, "seconds"), nrow(rt),
              sum(rt$estimator == "escape_times"), sum(rt$estimator == "ams")))
  s <- summary(x)
  cols <- c("condition", "ramp", "V0", "beta", "theta", "mean", "mean_se", "sd", "sd_se",
            "median")
  print(as.data.frame(unclass(s))[, cols, drop = FALSE], digits = 4, row.names = FALSE)
  cat("Use summary() for quantiles, attr(x, \"rates\") for the rate table, plot() for the",
      "distribution.\n")
  invisible(x)
}

#' @export
summary.switching_rates <- function(object, ...) {
  st <- attr(object, "stats")
  lvl <- attr(object, "level")
  z <- stats::qnorm(1 - (1 - lvl) / 2)
  out <- st
  out$mean_lower <- st$mean - z * st$mean_se
  out$mean_upper <- st$mean + z * st$mean_se
  out$sd_lower <- st$sd - z * st$sd_se
  out$sd_upper <- st$sd + z * st$sd_se
  out$median <- st$q50
  attr(out, "level") <- lvl
  class(out) <- c("summary.switching_rates", "data.frame")
  out
}

#' @export
print.summary.switching_rates <- function(x, digits = 4, ...) {
  cat(sprintf(paste0(
    "Switching currents from simulated escape rates (Fulton-Dunkleberger), by condition; ",
    "errors and %g%% intervals propagated from the rates (delta method)\n"),
    100 * attr(x, "level")))
  y <- as.data.frame(unclass(x))
  cols <- c("condition", "ramp", "V0", "beta", "theta", "mean", "mean_se", "mean_lower",
            "mean_upper", "sd", "sd_se", "sd_lower", "sd_upper")
  print(y[, cols], digits = digits, row.names = FALSE)
  cat("Quantiles (with standard errors):\n")
  qn <- grep("^q[0-9.]+$", names(y), value = TRUE)
  print(y[, c("condition", as.vector(rbind(qn, paste0(qn, "_se"))))], digits = digits,
        row.names = FALSE)
  cat(sprintf(paste0("Window: gamma %s to %s (F %s to %s); fit of log Gamma: chi^2 = %s ",
                     "on %s df\n"),
              paste(format(y$gamma_lo, digits = 5), collapse = ", "),
              paste(format(y$gamma_hi, digits = 5), collapse = ", "),
              paste(format(y$p_below, digits = 3), collapse = ", "),
              paste(format(y$top_cdf, digits = 5), collapse = ", "),
              paste(format(y$chisq, digits = 3), collapse = ", "),
              paste(y$df, collapse = ", ")))
  invisible(x)
}

# The data of a plot of x: per condition, the curve of `what` ("cdf",
# "density", "gumbel" or "rates") with its band, the simulated points
# (rates), and the theory.
switching_rates_plot_data <- function(x, what, theory) {
  conds <- attr(x, "conditions")
  lab <- vary_labels(conds[setdiff(names(conds), "condition")])
  rt <- attr(x, "rates")
  lapply(seq_len(nrow(conds)), function(i) {
    c0 <- conds[i, , drop = FALSE]
    d <- x[x$condition == c0$condition, , drop = FALSE]
    r <- rt[rt$condition == c0$condition, , drop = FALSE]
    z <- stats::qnorm(1 - (1 - attr(x, "level")) / 2)
    curve <- switch(what,
      cdf = data.frame(x = d$gamma, y = d$cdf, lo = d$cdf_lower, hi = d$cdf_upper),
      gumbel = data.frame(x = d$gamma, y = paths_y(d$cdf, "gumbel"),
                          lo = paths_y(d$cdf_lower, "gumbel"),
                          hi = paths_y(d$cdf_upper, "gumbel")),
      density = data.frame(x = d$gamma, y = d$density, lo = d$density_lower,
                           hi = d$density_upper),
      rates = data.frame(x = d$gamma, y = log(d$rate), lo = log(d$rate) - z * d$rate_se_log,
                         hi = log(d$rate) + z * d$rate_se_log))
    curve <- curve[is.finite(curve$y), , drop = FALSE]
    points <- if (what == "rates") {
      data.frame(x = r$gamma, y = log(r$rate), lo = log(r$rate) - z * r$se_log,
                 hi = log(r$rate) + z * r$se_log, estimator = r$estimator)
    }
    th <- NULL
    if (theory != "none") {
      if (what == "rates") {
        th <- data.frame(x = d$gamma, y = log(escape_rate(d$gamma, c0$V0, c0$beta, c0$theta,
                                                          prefactor = theory)))
      } else {
        g0 <- attr(x, "gamma0")
        from <- if (identical(g0, "auto")) min(d$gamma) else g0
        sd <- switching_distribution(d$gamma, c0$ramp, c0$V0, c0$beta, c0$theta,
                                     prefactor = theory, gamma0 = from)
        y <- switch(what, cdf = sd$cdf, gumbel = paths_y(sd$cdf, "gumbel"),
                    density = sd$density)
        th <- data.frame(x = d$gamma, y = y)
      }
      th <- th[is.finite(th$y), , drop = FALSE]
    }
    list(label = lab$labels[i], curve = curve, points = points, theory = th)
  })
}

SWITCHING_RATES_VIEWS <- c("cdf", "density", "gumbel", "rates")

switching_rates_ylab <- function(what) {
  switch(what, cdf = "cumulative probability F", density = "density of the switching bias",
         gumbel = "log(-log(1 - F))", rates = "log escape rate, log Gamma (per t0)")
}

#' Plot a switching distribution computed from simulated escape rates
#'
#' For a result of `switching_currents(method = "rates")`: the
#' Fulton-Dunkleberger distribution from the simulated rates with its band
#' (propagated from the rates' errors), optionally with the theory's
#' distribution from [switching_distribution()] (dashed) and a brute-force
#' sample of [switching_currents()] (its empirical CDF, as steps); or the
#' simulated rates themselves with the fit of \eqn{\log\Gamma} and the
#' theory's rate ([escape_rate()]).
#'
#' @param x A result of `switching_currents(method = "rates")`.
#' @param what `"cdf"` (default), `"density"`, `"gumbel"`
#'   (\eqn{\log(-\log(1-F))}) or `"rates"`.
#' @param theory `"none"`, `"kramers"`, `"bhl"` or `"mm"`.
#' @param paths `NULL`, or a brute-force result of [switching_currents()]
#'   of the same junction and ramp, drawn as its empirical CDF (`what =
#'   "cdf"` or `"gumbel"`).
#' @param xlim Range of the bias axis (default: the window of the rates).
#' @param ... Passed to [plot()].
#' @return `x`, invisibly.
#' @examples
#' r <- switching_currents(400, ramp = 1e-3, V0 = 2, beta = 1, theta = 0.25,
#'                         dt = 0.02, method = "rates", gamma0 = "auto", seed = 1,
#'                         backend = "cpu", rates = list(points = 6, target = 0.05))
#' plot(r, theory = "kramers")
#' plot(r, what = "rates", theory = "kramers")
#' @export
plot.switching_rates <- function(x, what = c("cdf", "density", "gumbel", "rates"),
                                 theory = c("none", "kramers", "bhl", "mm"), paths = NULL,
                                 xlim = NULL, ...) {
  call <- sys.call()
  what <- check_choice(what, SWITCHING_RATES_VIEWS, "what", call = call)
  theory <- check_choice(theory, c("none", RATE_THEORIES), "theory", call = call)
  if (!is.null(paths) && !inherits(paths, "sp_paths")) {
    sp_abort(sprintf("`paths` must be NULL or a brute-force result of switching_currents(), not %s.",
                     describe(paths)), call = call)
  }
  pd <- switching_rates_plot_data(x, what, theory)
  all_x <- unlist(lapply(pd, function(p) p$curve$x))
  all_y <- unlist(lapply(pd, function(p) c(p$curve$lo, p$curve$hi, p$points$lo, p$points$hi,
                                           p$theory$y)))
  xr <- if (is.null(xlim)) range(all_x) else xlim
  yr <- if (what == "cdf") c(0, 1) else range(all_y[is.finite(all_y)])
  multi <- length(pd) > 1
  cols <- if (multi) grDevices::hcl.colors(length(pd), "Dark 3") else "#1b6ca8"
  graphics::plot(NA, xlim = xr, ylim = yr, xlab = "bias at switching, gamma = I / Ic",
                 ylab = switching_rates_ylab(what),
                 main = if (what == "rates") "Simulated escape rates and their fit" else
                   "Switching currents from simulated escape rates", ...)
  for (i in seq_along(pd)) {
    cv <- pd[[i]]$curve
    graphics::polygon(c(cv$x, rev(cv$x)), c(cv$lo, rev(cv$hi)),
                      col = grDevices::adjustcolor(cols[i], 0.25), border = NA)
    graphics::lines(cv$x, cv$y, col = cols[i], lwd = 1.5)
    if (!is.null(pd[[i]]$points)) {
      pt <- pd[[i]]$points
      graphics::arrows(pt$x, pt$lo, pt$x, pt$hi, angle = 90, code = 3, length = 0.02,
                       col = cols[i])
      graphics::points(pt$x, pt$y, pch = ifelse(pt$estimator == "ams", 17, 19), col = cols[i])
    }
    if (!is.null(pd[[i]]$theory)) {
      graphics::lines(pd[[i]]$theory$x, pd[[i]]$theory$y, col = cols[i], lty = 2, lwd = 1.5)
    }
  }
  leg <- c(if (what == "rates") c("escape_times (censored MLE)", "AMS", "fit of log Gamma")
           else "from simulated rates, with band",
           if (theory != "none") sprintf("theory: %s%s", THEORY_NAMES[[theory]],
                                         if (what == "rates") " rate" else
                                           ", Fulton-Dunkleberger"))
  lty <- c(if (what == "rates") c(NA, NA, 1) else 1, if (theory != "none") 2)
  pch <- c(if (what == "rates") c(19, 17, NA) else NA, if (theory != "none") NA)
  if (!is.null(paths) && what %in% c("cdf", "gumbel")) {
    for (cnd in unique(paths$condition)) {
      d <- paths[paths$condition == cnd, , drop = FALSE]
      b <- ecdf_band(d$value, escaped = d$escaped)
      graphics::lines(b$x, paths_y(b$cdf, what), type = "s", col = "grey30")
    }
    leg <- c(leg, "brute force (paths)")
    lty <- c(lty, 1)
    pch <- c(pch, NA)
  }
  graphics::legend(if (what %in% c("cdf", "gumbel", "rates")) "topleft" else "topright",
                   legend = leg, lty = lty, pch = pch,
                   col = c(rep(cols[1], length(leg) - (!is.null(paths) && what %in%
                                                          c("cdf", "gumbel"))),
                           if (!is.null(paths) && what %in% c("cdf", "gumbel")) "grey30"),
                   bty = "n", cex = 0.8)
  invisible(x)
}

#' @rdname plot.switching_rates
#' @param object A result of `switching_currents(method = "rates")`.
#' @exportS3Method ggplot2::autoplot
autoplot.switching_rates <- function(object, what = c("cdf", "density", "gumbel", "rates"),
                                     theory = c("none", "kramers", "bhl", "mm"), ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  what <- check_choice(what, SWITCHING_RATES_VIEWS, "what", call = call)
  theory <- check_choice(theory, c("none", RATE_THEORIES), "theory", call = call)
  pd <- switching_rates_plot_data(object, what, theory)
  cv <- do.call(rbind, lapply(pd, function(p) data.frame(condition = p$label, p$curve)))
  g <- ggplot2::ggplot(cv, ggplot2::aes(x = .data$x)) +
    ggplot2::geom_ribbon(ggplot2::aes(ymin = .data$lo, ymax = .data$hi, fill = .data$condition),
                         alpha = 0.25) +
    ggplot2::geom_line(ggplot2::aes(y = .data$y, colour = .data$condition))
  pts <- do.call(rbind, lapply(pd, function(p) {
    if (is.null(p$points)) NULL else data.frame(condition = p$label, p$points)
  }))
  if (!is.null(pts)) {
    g <- g + ggplot2::geom_pointrange(data = pts, ggplot2::aes(
      y = .data$y, ymin = .data$lo, ymax = .data$hi, colour = .data$condition,
      shape = .data$estimator))
  }
  th <- do.call(rbind, lapply(pd, function(p) {
    if (is.null(p$theory)) NULL else data.frame(condition = p$label, p$theory)
  }))
  if (!is.null(th)) {
    g <- g + ggplot2::geom_line(data = th, ggplot2::aes(y = .data$y, colour = .data$condition),
                                linetype = "dashed")
  }
  if (length(pd) == 1) g <- g + ggplot2::guides(colour = "none", fill = "none")
  g + ggplot2::labs(x = "bias at switching, gamma = I / Ic", y = switching_rates_ylab(what),
                    title = "Switching currents from simulated escape rates",
                    subtitle = if (theory != "none") sprintf("dashed: %s theory",
                                                            THEORY_NAMES[[theory]]))
}
