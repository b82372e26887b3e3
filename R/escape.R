#' Escape times over a tilted washboard
#'
#' Simulates `n` paths of the noisy, damped pendulum of a current-biased
#' Josephson junction (the RCSJ model, paper 000 of the package's sources)
#' for every combination of the parameters, and returns the time at which each
#' path first crosses the barrier top:
#' \deqn{\ddot\varphi + \beta\dot\varphi = V_0(\gamma - \sin\varphi) +
#'   \sqrt{2D}\,\xi(t),\qquad D = \beta\theta,}
#' in the normalised units of [jj_units()] (time unit \eqn{\hbar/E_C}). Each
#' path starts at rest in the well, \eqn{\varphi_0 = \arcsin\gamma}, and
#' escapes when \eqn{\varphi} passes the saddle \eqn{\pi - \arcsin\gamma}.
#'
#' @section Methods:
#' * `"euler"` is Algorithm 1 of the paper exactly (an explicit Euler step of
#'   \eqn{(\varphi, \dot\varphi)} with one normal per step, noise
#'   \eqn{\sqrt{2Dh}}); its bias in the mean escape time shrinks like
#'   \eqn{h}.
#' * `"srk2"` is the stochastic Heun (second-order Runge-Kutta) scheme of
#'   Januszewski and Kostur applied to \eqn{(\varphi, \dot\varphi)}, also one
#'   normal per step; its bias shrinks like \eqn{h^2}.
#'
#' The reported time is the crossing time interpolated linearly inside the
#' step where \eqn{\varphi} passes the threshold. A path that has not crossed
#' by `t_max` is censored: its `value` is `t_max` and `escaped` is `FALSE`
#' (use [summary()], [ecdf_band()] or [as_surv()], which account for it).
#'
#' @section Random numbers and chunking:
#' Replica \eqn{r} of condition \eqn{c} (numbered from 1 in the order of the
#' `conditions` attribute) draws from Philox stream \eqn{(c-1)\,2^{40} + r -
#' 1}; step \eqn{k} uses normal \eqn{k-1} of that stream. A path's result
#' depends only on the seed, its condition and its replica number, so
#' `escape_times(n = m, first_replica = k + 1, ...)` returns replicas
#' \eqn{k+1, \dots, k+m} of the same seed: chunks run anywhere (other threads,
#' GPUs, cluster workers) combine with `rbind()` into the one-machine result.
#' On the CPU results are bit-identical for any thread count and chunking;
#' CPU and GPU agree path by path in double precision up to rounding.
#' [replica_chunks()] lays out the chunks of a large study. (Bit identity holds
#' for one build on one kind of CPU: the engine picks AVX-512, AVX2 or
#' baseline code at load time, and fused multiply-adds round differently, so
#' different CPUs agree to rounding, which can move a crossing by one step.)
#'
#' @param n Paths per condition, a whole number \eqn{\ge 1}.
#' @param gamma Bias current \eqn{I_b/I_c}, in \eqn{[0, 1)}; a vector gives
#'   one condition per value.
#' @param V0 \eqn{E_J/E_C}, positive (vector allowed).
#' @param beta Damping \eqn{\hbar/((2e)^2R)}, positive (vector allowed).
#' @param theta Temperature \eqn{k_BT/E_C}, positive (vector allowed).
#' @param h Time step (normalised units), positive. A warning is given when
#'   \eqn{h\sqrt{V_0} > 0.1} (fewer than about 60 steps per plasma period).
#' @param t_max Censoring time, positive and finite.
#' @param method `"srk2"` (default) or `"euler"`.
#' @param seed Philox key: a whole number in \eqn{[0, 2^{64})}, a hexadecimal
#'   string, or `NULL` to draw one from R's random number generator
#'   ([sp_seed()]), so `set.seed()` makes the call reproducible.
#' @param first_replica Number of the first replica of this call (chunking).
#' @param backend `"auto"` (the GPU when usable and there are at least 10,000
#'   paths), `"cpu"` or `"gpu"`.
#' @param devices GPU ids, `"all"`, or `NULL` (the first GPU).
#' @param precision `"single"` (default; the fast path on GPUs) or
#'   `"double"`.
#' @param progress Show a progress bar (updated between launches, about every
#'   0.1 s). An interrupt (Ctrl-C) stops the run cleanly and returns the paths
#'   finished so far, the others `NA`, with a warning.
#' @return An object of class `escape_times`: a data frame with one row per
#'   path and columns `condition`, `gamma`, `V0`, `beta`, `theta`, `replica`,
#'   `value` (escape time) and `escaped`; attributes `conditions` (the
#'   parameter grid), `seed`, `backend`, `devices`, `precision`, `method`,
#'   `h`, `t_max`, `first_replica`, `steps` (useful and issued integration
#'   steps), `seconds` and `interrupted`. Methods: `print`, `summary`, `plot`,
#'   `autoplot` (ggplot2), `as.data.frame`, [as_surv()].
#' @seealso [switching_currents()] for a bias ramp, [escape_rate()] and
#'   [mfpt_smoluchowski()] for theory, [arrhenius_fit()].
#' @references Pierro, V., Troiano, L., Mejuto, E. and Filatrella, G. (2018)
#'   Stochastic first passage time accelerated with CUDA. *Journal of
#'   Computational Physics* 361, 136-149. \doi{10.1016/j.jcp.2018.01.039}
#' @examples
#' x <- escape_times(200, gamma = 0.5, V0 = 1, beta = 0.5, theta = c(0.15, 0.2),
#'                   h = 0.02, t_max = 2000, seed = 1, backend = "cpu")
#' x
#' summary(x)
#' plot(x, theory = "kramers")
#' @export
escape_times <- function(n, gamma, V0, beta, theta, h, t_max,
                         method = c("srk2", "euler"), seed = NULL,
                         first_replica = 1, backend = "auto", devices = NULL,
                         precision = c("single", "double"),
                         progress = interactive()) {
  call <- sys.call()
  gamma <- check_range(gamma, "gamma", 0, 1, hi_open = TRUE, call = call)
  h <- check_positive(h, "h", len = 1, call = call)
  t_max <- check_positive(t_max, "t_max", len = 1, call = call)
  if (t_max < h) {
    sp_abort(sprintf("`t_max` (%s) must be at least one step `h` (%s).",
                     format(t_max), format(h)), call = call)
  }
  grid <- washboard_grid(list(gamma = gamma, V0 = V0, beta = beta, theta = theta),
                         call)
  kmax <- steps_upto(t_max / h)
  if (!isTRUE(kmax <= 2^53)) { # NaN when t_max / h overflows
    sp_abort(sprintf(paste0(
      "`t_max / h` = %s steps per path is more than 2^53 (about 9e15), the ",
      "most a path can count exactly; use a larger `h` or a smaller `t_max`."),
      format(t_max / h, digits = 3)), call = call)
  }
  conds <- data.frame(
    g0 = grid$gamma, dg = 0, V0 = grid$V0, beta = grid$beta, h = h,
    sigma = sqrt(2 * grid$beta * grid$theta * h),
    phi0 = asin(grid$gamma), th = pi - asin(grid$gamma),
    vcens = t_max, kmax = kmax)
  washboard_run("escape_times", grid, conds, n = n, h = h, method = method,
                seed = seed, first_replica = first_replica, backend = backend,
                devices = devices, precision = precision, progress = progress,
                extra = list(t_max = t_max), call = call)
}

#' Switching currents under a bias ramp
#'
#' Algorithm 3 of paper 000: the bias rises linearly, \eqn{\gamma(t) =
#' \gamma_0 + \text{ramp}\; t}, from `gamma0` with the junction at rest in
#' its well, and each path reports the bias at which it switches (crosses
#' \eqn{\pi - \arcsin\gamma_0}, the saddle of the starting bias, as in the
#' paper). The bias of step \eqn{k} is \eqn{\gamma_k = \gamma_0 + k\,h\,
#' \text{ramp}}, formed from the 64-bit step count in double precision, never
#' as a running sum (which stops moving in single precision once the step
#' falls below half an ulp of \eqn{\gamma}). The reported bias is
#' interpolated inside the crossing step. Paths that have not switched when
#' the bias reaches `gamma_max` are censored there (`escaped = FALSE`).
#'
#' Compare with the adiabatic Fulton-Dunkleberger distribution,
#' [switching_distribution()]; `plot(x, theory = "kramers")` overlays it.
#'
#' @inheritParams escape_times
#' @param ramp Bias increase per unit of normalised time (see [jj_units()],
#'   which converts a sweep rate in A/s), positive; a vector gives one
#'   condition per value.
#' @param gamma0 Starting bias, in \eqn{[0, 1)}.
#' @param gamma_max Bias at which paths are censored, in
#'   \eqn{(\gamma_0, 1]}.
#' @return An object of class `switching_currents`, laid out as for
#'   [escape_times()] with columns `condition`, `ramp`, `V0`, `beta`,
#'   `theta`, `replica`, `value` (bias at switching) and `escaped` (switched
#'   before `gamma_max`).
#' @examples
#' x <- switching_currents(300, ramp = 2e-5, V0 = 4, beta = 0.3, theta = 0.2,
#'                         h = 0.02, seed = 1, backend = "cpu", gamma_max = 0.95)
#' summary(x)
#' plot(x, theory = "kramers")
#' @export
switching_currents <- function(n, ramp, V0, beta, theta, h, gamma0 = 0,
                               gamma_max = 1, method = c("srk2", "euler"),
                               seed = NULL, first_replica = 1, backend = "auto",
                               devices = NULL, precision = c("single", "double"),
                               progress = interactive()) {
  call <- sys.call()
  h <- check_positive(h, "h", len = 1, call = call)
  gamma0 <- check_range(gamma0, "gamma0", 0, 1, hi_open = TRUE, len = 1, call = call)
  gamma_max <- check_range(gamma_max, "gamma_max", gamma0, 1, lo_open = TRUE,
                           len = 1, call = call)
  grid <- washboard_grid(list(ramp = ramp, V0 = V0, beta = beta, theta = theta),
                         call)
  dg <- grid$ramp * h
  kmax <- steps_upto((gamma_max - gamma0) / dg)
  if (any(kmax > 2^53)) {
    sp_abort("the ramp is too slow for `gamma_max`: more than 2^53 steps per path.",
             call = call)
  }
  conds <- data.frame(
    g0 = gamma0, dg = dg, V0 = grid$V0, beta = grid$beta, h = h,
    sigma = sqrt(2 * grid$beta * grid$theta * h),
    phi0 = asin(gamma0), th = pi - asin(gamma0),
    vcens = gamma_max, kmax = kmax)
  washboard_run("switching_currents", grid, conds, n = n, h = h, method = method,
                seed = seed, first_replica = first_replica, backend = backend,
                devices = devices, precision = precision, progress = progress,
                extra = list(gamma0 = gamma0, gamma_max = gamma_max), call = call)
}

# ---- shared machinery -------------------------------------------------------------

# Steps that cover x step lengths (censoring itself is exact: a crossing
# interpolated past t_max or gamma_max inside the last step is censored).
steps_upto <- function(x) {
  k <- ceiling(x - 1e-9 * pmax(1, x))
  pmax(k, 1)
}

# Every combination of the parameters, in expand.grid order (first varies
# fastest), with a condition number.
washboard_grid <- function(args, call) {
  nm <- names(args)
  for (a in nm[-1]) check_positive(args[[a]], a, call = call)
  if (nm[1] == "ramp") check_positive(args[[1]], "ramp", call = call)
  args <- lapply(args, as.double)
  ncond <- prod(lengths(args))
  if (ncond > 2^24) {
    sp_abort(sprintf("the parameter grid has %s conditions; at most 2^24 are allowed.",
                     format(ncond, big.mark = ",")), call = call)
  }
  g <- expand.grid(args, KEEP.OUT.ATTRS = FALSE)
  cbind(condition = seq_len(nrow(g)), g)
}

# Estimated bytes of a result with `rows` rows (value, flag, condition,
# replica and four parameter columns).
result_bytes <- function(rows) rows * (8 + 4 + 4 + 8 + 4 * 8)

available_memory <- function() {
  if (file.exists("/proc/meminfo")) {
    l <- grep("^MemAvailable:", readLines("/proc/meminfo", warn = FALSE), value = TRUE)
    if (length(l)) return(as.numeric(gsub("[^0-9]", "", l)) * 1024)
  }
  Inf
}

fmt_bytes <- function(b) {
  if (b >= 2^30) sprintf("%.1f GiB", b / 2^30) else sprintf("%.1f MiB", b / 2^20)
}

# Run the washboard engine for a prepared condition table and build the
# result object.
washboard_run <- function(type, grid, conds, n, h, method, seed, first_replica,
                          backend, devices, precision, progress, extra, call) {
  n <- check_count(n, "n", min = 1, call = call)
  method <- check_choice(method, c("srk2", "euler"), "method", call = call)
  precision <- check_choice(precision, c("single", "double"), "precision", call = call)
  progress <- check_flag(progress, "progress", call = call)
  first_replica <- check_whole(first_replica, "first_replica", lo = 1, hi = 2^40,
                               call = call)
  if (first_replica - 1 + n > 2^40) {
    sp_abort("`first_replica + n - 1` must not pass 2^40 (replicas per condition).",
             call = call)
  }
  seed <- resolve_seed(seed, call = call)
  ncond <- nrow(grid)
  rows <- ncond * n
  if (rows > .Machine$integer.max) {
    sp_abort(sprintf(paste0(
      "the result would have %s rows (n = %s paths x %d conditions); a data ",
      "frame holds at most 2^31 - 1. Split the job with `first_replica` ",
      "(chunks combine exactly) or use fewer conditions."),
      format(rows, big.mark = ","), format(n, big.mark = ","), ncond), call = call)
  }
  need <- result_bytes(rows)
  avail <- available_memory()
  if (need > avail) {
    sp_abort(sprintf(paste0(
      "the result would need about %s of memory (%s rows), more than the %s ",
      "available; split the job with `first_replica`."),
      fmt_bytes(need), format(rows, big.mark = ","), fmt_bytes(avail)), call = call)
  }
  coarse <- h * sqrt(conds$V0) > 0.1
  if (any(coarse)) {
    sp_warn(sprintf(paste0(
      "`h` is coarse for the dynamics: h * sqrt(V0) = %s > 0.1 (fewer than ",
      "about 60 steps per plasma period); the escape statistics carry a ",
      "step-size bias."), format(max(h * sqrt(conds$V0)), digits = 3)), call = call)
  }
  plan <- resolve_backend(backend, devices, work = rows, auto_threshold = 1e4,
                          call = call)
  conds$stream0 <- (grid$condition - 1) * 2^40
  single <- precision == "single"
  heun <- method == "srk2"
  key <- ""
  if (plan$backend == "gpu") {
    variant <- sprintf("%s_%s_%s", precision, method,
                       if (type == "switching_currents") "ramp" else "fixed")
    key <- gpu_kernel_load("escape", plan$devices, variant = variant)
  }
  fields <- c("g0", "dg", "V0", "beta", "h", "sigma", "phi0", "th", "vcens",
              "kmax", "stream0")
  res <- .Call(C_sp_r_escape, lapply(conds[fields], as.double), n,
               check_u64(first_replica - 1, "first_replica", call = call),
               heun, single, seed, key, as.integer(plan$devices), progress)
  cond_of <- rep(seq_len(ncond), each = n)
  out <- data.frame(condition = cond_of, stringsAsFactors = FALSE)
  for (p in setdiff(names(grid), "condition")) out[[p]] <- grid[[p]][cond_of]
  out$replica <- rep(first_replica - 1 + seq_len(n), times = ncond)
  out$value <- res$value
  out$escaped <- res$escaped
  stats <- res$stats
  interrupted <- stats[5] == 1
  if (interrupted) {
    sp_warn(sprintf(paste0(
      "interrupted: %s of %s paths finished; the others are NA (value and ",
      "escaped). Rerun the missing replicas with the same seed to complete ",
      "the sample."), format(stats[3], big.mark = ","),
      format(rows, big.mark = ",")), call = call)
  }
  attr(out, "conditions") <- grid
  attr(out, "seed") <- u64_to_double(seed)
  attr(out, "seed_hex") <- u64_to_hex(seed)
  attr(out, "backend") <- plan$backend
  attr(out, "devices") <- if (plan$backend == "gpu") {
    d <- gpu_devices(free = FALSE)
    paste0(d$name[match(plan$devices, d$id)], " (", plan$devices, ")")
  } else sprintf("CPU, %d thread%s", sp_threads(), if (sp_threads() == 1) "" else "s")
  attr(out, "precision") <- precision
  attr(out, "method") <- method
  attr(out, "h") <- h
  for (e in names(extra)) attr(out, e) <- extra[[e]]
  attr(out, "n") <- n
  attr(out, "first_replica") <- first_replica
  attr(out, "steps") <- c(useful = stats[1], issued = stats[2])
  attr(out, "seconds") <- stats[4]
  attr(out, "interrupted") <- interrupted
  class(out) <- c(type, "sp_paths", "data.frame")
  out
}
