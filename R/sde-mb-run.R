# Runs of many-body models (sde_run(n = ) with a model of mean(), sum(),
# pairs() or lattice neighbours): starts and element parameters (with their
# random draws, made here from the systems' streams), the engine's job, and
# the results (records, moments, trajectories, passage), each with the final
# state a continuation starts from.

SDE_MB_METHODS <- c("srk2", "euler", "verlet", "yoshida4", "baoab")
SDE_MB_OUTPUTS <- c("passage", "moments", "records", "trajectories", "rdf")

# Check an expression of starts or element parameters: the functions of
# right-hand sides and the draws runif(min, max), rnorm(mean, sd),
# rcauchy(location, scale) (no argument: the standard law), over the
# parameters `vars`, the element number i, the size n and pi.
sde_check_draws <- function(e, vars, what, call) {
  y <- sde_draw_sites(e)$e
  ok <- c(vars, "i", "n", ".draw")
  leaf <- function(x) {
    if (is.numeric(x) || is.logical(x)) {
      if (length(x) != 1 || !is.finite(x)) {
        sp_abort(sprintf("%s: %s is not a finite number.", what, deparse1(x)), call = call)
      }
      return(NULL)
    }
    if (is.name(x) && as.character(x) %in% c(ok, "pi")) return(NULL)
    sp_abort(sprintf(paste0("%s uses the unknown variable `%s`; it may use %s (the parameters, ",
                            "the element's number i, the size n, pi) and the draws runif(), ",
                            "rnorm(), rcauchy()."), what, deparse1(x),
                     paste0("`", c(vars, "i", "n", "pi"), "`", collapse = ", ")), call = call)
  }
  pre <- function(x) {
    f <- if (is.name(x[[1]])) as.character(x[[1]]) else ""
    if (f == ".draw") return(invisible())
    z <- x
    for (k in seq_along(z)[-1]) if (!identical(z[[k]], quote(expr = ))) z[[k]] <- 0
    sde_check_expr(z, character(), what, call)
  }
  sde_fold(y, leaf, function(x, v) NULL, pre)
  sde_check_draw_constants(y, what, call) # runif(0, -1): refused here (R/sde-mb-inputs.R)
  invisible(TRUE)
}

# Number the draw sites of an expression (pre-order): each runif(a, b),
# rnorm(a, b), rcauchy(a, b) becomes .draw(kind, site, a, b); list(e, sites).
sde_draw_sites <- function(e) {
  count <- 0L
  node <- function(x, vals) {
    for (k in seq_along(vals)) x[[k + 1L]] <- vals[[k]]
    f <- if (is.name(x[[1]])) as.character(x[[1]]) else ""
    if (f %in% SDE_MB_DRAWS) {
      if (!(length(x) %in% c(1L, 3L))) {
        stop(sprintf("`%s` takes two arguments (or none), as %s", deparse1(x),
                     switch(f, runif = "runif(min, max)", rnorm = "rnorm(mean, sd)",
                            rcauchy = "rcauchy(location, scale)")))
      }
      a <- if (length(x) == 3) x[[2]] else if (f == "runif") 0 else 0
      b <- if (length(x) == 3) x[[3]] else 1
      x <- call(".draw", match(f, SDE_MB_DRAWS) - 1L, NA_integer_, a, b)
    }
    x
  }
  y <- tryCatch(sde_fold(e, function(x) x, node), error = function(err) err)
  if (inherits(y, "error")) return(list(e = e, sites = 0L, error = sp_cnd_text(y)))
  # number the sites in a fixed (depth-first) order
  walk <- function(x) {
    if (!is.call(x)) return(x)
    if (identical(x[[1]], as.name(".draw")) && is.na(x[[3]])) {
      x[[3]] <- count
      count <<- count + 1L
    }
    for (k in seq_along(x)[-1]) x[[k]] <- walk(x[[k]])
    x
  }
  y <- walk(y)
  list(e = y, sites = count)
}

# Evaluate a start or element-parameter expression for the systems of
# condition c (parameters `pars`, a named list of numbers) and global
# replicas `reps` (0-based): a vector of n x length(reps) values (elements
# of a replica consecutive), or one number when it is the same everywhere.
sde_mb_eval <- function(e, pars, c, reps, n, seed, purpose, D, d0, what, call) {
  ds <- sde_draw_sites(e)
  if (!is.null(ds$error)) sp_abort(sprintf("%s: %s.", what, ds$error), call = call)
  y <- ds$e
  varies <- ds$sites > 0 || "i" %in% all.vars(y)
  env <- list2env(c(pars, list(n = n, pi = pi)), parent = baseenv())
  len <- if (varies) n * length(reps) else 1
  env$i <- if ("i" %in% all.vars(y)) rep(seq_len(n), times = length(reps)) else 1
  env$.draw <- function(kind, site, a, b) {
    sde_check_draw_args(kind, a, b, what, sprintf(" for condition %d", c + 1), call)
    z <- .Call(C_sp_r_mb_draws, seed, purpose, c, as.double(reps), n, D, d0 + site, kind)
    switch(kind + 1L, a + (b - a) * z, a + b * z, a + b * z)
  }
  for (f in SDE_UNARY_DOUBLE_R) assign(f, get(f, baseenv()), envir = env)
  r <- tryCatch(suppressWarnings(as.double(eval(y, env))), error = function(err) err)
  if (inherits(r, "statphysgpu_error")) stop(r) # a draw's arguments (sde_check_draw_args())
  if (inherits(r, "error")) {
    sp_abort(sprintf("%s could not be evaluated: %s.", what, sp_cnd_text(r)), call = call)
  }
  if (!(length(r) %in% c(1, len))) {
    sp_abort(sprintf("%s has %d values, not 1 or %s.", what, length(r), fmt_count(len)),
             call = call)
  }
  if (any(!is.finite(r))) {
    sp_abort(sprintf("%s is not finite (for condition %d).", what, c), call = call)
  }
  if (varies && length(r) == 1) r <- rep(r, len)
  attr(r, "varies") <- varies
  r
}

SDE_UNARY_DOUBLE_R <- c("exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
                        "sinh", "cosh", "tanh", "abs", "floor", "atan2", "pmin", "pmax", "ifelse")

# The run of a many-body model (sde_run()'s arguments, checked there up to
# the model and method).
sde_mb_run <- function(m, replicas, n, init, dt, t_max, params, method, output, record_every,
                       keep, seed, first_replica, backend, devices, precision, progress, call,
                       shape = NULL, box = NULL, graph = NULL, bins = NULL, r_max = NULL,
                       hist = NULL, start = NULL, final_dim = NULL) {
  if (!isTRUE(m$many)) {
    sp_abort(sprintf(paste0(
      "the model \"%s\" couples nothing between elements (no mean(), sum(), pairs() or lattice ",
      "neighbours): %s elements would be %s independent copies. Run replicas = n * replicas ",
      "with n = 1 instead."), m$name, fmt_count(n), fmt_count(n)), call = call)
  }
  why <- sde_mb_methods(m)[[method]]
  if (nzchar(why)) {
    sp_abort(sprintf("method = \"%s\" is refused for the model \"%s\": %s.", method, m$name, why),
             call = call, class = "statphysgpu_method_refused")
  }
  reach <- m$mb$reach
  if (m$lattice == "ring" && n < 2 * reach + 1) {
    sp_abort(sprintf(paste0("n = %s is too small for the ring of the model \"%s\", whose ",
                            "right-hand sides reach %d neighbours on each side: n must be at ",
                            "least %d."), fmt_count(n), m$name, reach, 2 * reach + 1), call = call)
  }
  if (m$lattice == "square" && any(shape < 2 * reach + 1)) {
    sp_abort(sprintf(paste0("n = c(%s) is too small for the square lattice of the model \"%s\", ",
                            "whose right-hand sides reach %d neighbours: each side must be at ",
                            "least %d."), paste(shape, collapse = ", "), m$name, reach,
                     2 * reach + 1), call = call)
  }
  if (m$lattice == "chain" && n < 2) {
    sp_abort(sprintf("n = %s is too small for a chain: n must be at least 2.", fmt_count(n)),
             call = call)
  }
  if (output == "passage" && is.null(m$stop)) {
    sp_abort(paste0("output = \"passage\" needs an event: the model has no `stop` (give ",
                    "sde_model(stop = ~ ...)), or use output = \"records\", \"moments\" or ",
                    "\"trajectories\"."), call = call)
  }
  L <- sde_check_box(box, m, call)
  g <- sde_check_graph(graph, m, n, call)
  rdf <- if (output == "rdf") sde_check_rdf(m, L, bins, r_max, call)
  hs <- sde_mb_check_hist(hist, m, output, call)
  if (output %in% c("moments", "records") && !length(m$observe)) {
    sp_abort(sprintf(paste0("output = \"%s\" records the model's observables, and the model ",
                            "\"%s\" has none: give sde_model(observe = list(r = ~ mean(...))), ",
                            "or use output = \"trajectories\" for the states."), output, m$name),
             call = call)
  }
  # continuation
  prev <- if (inherits(init, "sde_mb_result")) sp_check_seal(init, "sde_run()", call, SDE_MB_SEALED)
  if (!is.null(prev)) {
    if (!identical(attr(prev, "model_hash"), m$hash)) {
      sp_abort("`init` is the result of another model (its model hash differs).", call = call)
    }
    if (attr(prev, "n") != n) {
      sp_abort(sprintf("`init` holds systems of n = %s elements; this call has n = %s.",
                       fmt_count(attr(prev, "n")), fmt_count(n)), call = call)
    }
    if (is.null(seed)) seed <- attr(prev, "seed_hex")
    if (!identical(u64_to_hex(resolve_seed(seed, call = call)), attr(prev, "seed_hex"))) {
      sp_abort(paste0("`seed` differs from the seed `init` ran with; a continuation draws ",
                      "the numbers that follow its own (leave `seed` out)."), call = call)
    }
  }
  # parameters: scalars (sweeps) and element parameters (per element)
  params <- if (is.null(params)) list() else if (is.data.frame(params)) params else as.list(params)
  el <- intersect(names(params), names(m$elements))
  if (is.data.frame(params) && length(el)) {
    # (a data frame's rows are conditions; an element parameter is not swept)
    sp_abort(sprintf(paste0("`params` is a data frame, whose rows are conditions, and `%s` is a ",
                            "parameter per element of the model \"%s\" (not swept): give ",
                            "`params` as a list, with `%s` as 1 or n numbers or a formula."),
                     el[1], m$name, el[1]), call = call)
  }
  el_over <- params[el]
  scal <- params[setdiff(names(params), el)]
  grid <- sde_grid(m, scal, call)
  ncond <- nrow(grid)
  swept <- attr(grid, "swept")
  if (!is.null(prev)) {
    if (!identical(unname(as.matrix(attr(prev, "conditions")[names(m$params)])),
                   unname(as.matrix(grid[names(m$params)])))) {
      sp_abort("`init` ran other parameter values; a continuation runs the same conditions.",
               call = call)
    }
    if (replicas != attr(prev, "replicas") || first_replica != attr(prev, "first_replica")) {
      sp_abort(sprintf(paste0("`init` holds replicas %s..%s; a continuation runs the same ",
                              "systems (replicas = %s, first_replica = %s)."),
                       fmt_count(attr(prev, "first_replica")),
                       fmt_count(attr(prev, "first_replica") + attr(prev, "replicas") - 1),
                       fmt_count(attr(prev, "replicas")), fmt_count(attr(prev, "first_replica"))),
               call = call)
    }
  }
  fr <- sim_frame(call, n = replicas, first = first_replica, seed = seed, backend = backend,
                  devices = devices, precision = precision,
                  precisions = c("single", "double"), progress = progress, groups = ncond,
                  row_bytes = 8 * n * length(m$states) * 2, auto_threshold = 1e5,
                  n_name = "replicas")
  if (!is.null(prev)) {
    if (!identical(attr(prev, "precision"), fr$precision) || !identical(attr(prev, "method"), method)) {
      sp_abort(sprintf(paste0("`init` ran in %s precision with method \"%s\"; a continuation ",
                              "keeps both."), attr(prev, "precision"), attr(prev, "method")),
               call = call)
    }
  }
  nsys <- ncond * fr$n
  reps <- fr$first - 1 + seq_len(fr$n) - 1
  kmax <- if (output == "passage") sde_whole_steps(t_max, dt) else sde_fixed_steps(t_max, dt, call)
  rec <- if (output == "passage") list(every = kmax, nrec = 0) else {
    every <- if (is.null(record_every)) max(1, ceiling(kmax / 100)) else
      check_whole(record_every, "record_every", lo = 1, hi = 2^53, call = call)
    list(every = every, nrec = floor(kmax / every) + 1 + (kmax %% every != 0))
  }
  keep <- check_whole(keep, "keep", lo = 0, hi = 2^40, call = call)
  if (output == "trajectories" && keep == 0) keep <- 1
  keep_here <- if (output == "trajectories") max(0, min(fr$n, keep - (fr$first - 1))) else 0
  if (output == "trajectories" && ncond > 1) keep_here <- min(keep_here, fr$n)
  # memory: states (start and final), element parameters, records, kept states
  nx <- length(m$states)
  need <- 8 * (2 * nsys * nx * n + nsys * length(m$elements) * n +
                 nsys * rec$nrec * length(m$observe) * 4 + keep_here * ncond * rec$nrec * nx * n * 3 +
                 nsys * rec$nrec * hs$bins)
  if (need > available_memory()) {
    sp_abort(sprintf(paste0("the run would need about %s of memory; run fewer systems a call ",
                            "(`first_replica` chunks), record less, or keep fewer systems."),
                     fmt_bytes(need)), call = call)
  }
  # element parameters
  ne <- length(m$elements)
  ep <- numeric(); ep_shared <- TRUE
  if (ne) {
    vals <- vector("list", ne)
    for (k in seq_len(ne)) {
      en <- names(m$elements)[k]
      v <- el_over[[en]] %||% m$elements[[en]]
      what <- sprintf("the element parameter `%s`", en)
      if (is.numeric(v)) {
        if (!(length(v) %in% c(1, n)) || any(!is.finite(v))) {
          bad <- sde_bad_numbers(v)
          sp_abort(sprintf("`params$%s` (a parameter per element) %s 1 or n = %s finite numbers, or a formula.",
                           en, if (is.null(bad)) "must be" else paste0(bad, "; give"),
                           fmt_count(n)), call = call)
        }
        vals[[k]] <- lapply(seq_len(ncond), function(c) structure(rep_len(as.double(v), n),
                                                                   varies = FALSE, per_elem = TRUE))
        next
      }
      if (!(inherits(v, "formula") || is.call(v) || is.name(v) ||
            (is.character(v) && length(v) == 1))) {
        sp_abort(sprintf(paste0("`params$%s` (a parameter per element) is %s; give 1 or n = %s ",
                                "finite numbers, or a formula (e.g. ~ rnorm(0, 1))."),
                         en, describe(v), fmt_count(n)), call = call)
      }
      e <- sde_rhs(v, what, call)
      sde_check_draws(e, names(m$params), what, call)
      ds <- sde_draw_sites(e)
      vals[[k]] <- lapply(seq_len(ncond), function(c) {
        pars <- as.list(grid[c, names(m$params), drop = FALSE])
        sde_mb_eval(e, pars, c - 1, reps, n, fr$seed, 21L, max(1L, ds$sites), 0L, what, call)
      })
    }
    draws <- any(vapply(vals, function(vk) any(vapply(vk, function(x) {
      isTRUE(attr(x, "varies")) && length(x) > n
    }, TRUE)), TRUE))
    same_cond <- all(vapply(vals, function(vk) {
      all(vapply(vk, function(x) identical(as.double(x), as.double(vk[[1]])), TRUE))
    }, TRUE))
    ep_shared <- !draws && same_cond
    ep <- if (ep_shared) {
      unlist(lapply(vals, function(vk) rep_len(as.double(vk[[1]]), n)))
    } else {
      sde_mb_stack(vals, n, fr$n, ncond)
    }
  }
  # a continuation runs the systems' own element parameters (another `w`
  # given now would change the systems in the middle of their runs)
  if (!is.null(prev) && ne && !is.null(attr(prev, "element_params")) &&
      !identical(as.double(sde_mb_element_array(ep, ep_shared, n, names(m$elements), ncond,
                                                 fr$n, fr$first)),
                 as.double(attr(prev, "element_params")))) {
    sp_abort(sprintf(paste0("`init` ran other values of the parameters per element (%s); a ",
                            "continuation runs the same systems: give them as `init` ran them ",
                            "(sde_element_params(init)) or as they were given then."),
                     paste0("`", names(m$elements), "`", collapse = ", ")), call = call)
  }
  # starts
  x0_cond <- FALSE
  k0 <- 0
  t0 <- 0
  if (!is.null(prev)) {
    x0 <- attr(prev, "final") # (read as a vector: as.double() would copy it)
    k0 <- attr(prev, "k_end")
    t0 <- attr(prev, "t_end")
  } else if (!is.null(start)) {
    # (internal: a front-end's continuation, kuramoto(init = ) on this engine:
    # every system's states, systems x states x n, and the chain's step and time;
    # or lrmd(), R/lrmd-declared.R: `recipes`, each system's start drawn by the
    # engine from its recipe of class "lrmd_draw")
    x0 <- start$x0
    if (!is.null(start$recipes)) {
      x0 <- sde_mb_recipe_rows(start$recipes)
      x0_cond <- 4L
    }
    k0 <- start$k0
    t0 <- start$t0
  } else {
    st <- sde_mb_init(m, init, grid, n, fr, reps, call)
    # (positions outside the box are wrapped into it by the engine: sp_mb_out_init())
    x0 <- st$x0
    x0_cond <- st$cond
  }
  par <- sde_mb_par(m, grid, n, call, shape, L)
  job <- list(dt = dt, t0 = t0, k0 = k0, kmax = kmax, n = n, replicas = fr$n,
              replica0 = fr$first - 1, ncond = ncond, nx = nx, ne = ne, np = ncol(par),
              nw = length(m$noise_w), nb = length(m$noise), nt = length(m$mb$terms),
              nd = m$mb$dyn, nq = length(m$mb$pairs) + length(m$mb$edges),
              no = length(m$observe), nu = m$nu %||% 0,
              method = match(method, SDE_MB_METHOD_CODES) - 1,
              single = as.integer(fr$precision == "single"),
              output = switch(output, passage = 0, moments = 1, records = 1, trajectories = 2,
                              rdf = 3),
              record_every = rec$every, nrec = rec$nrec, keep = keep_here,
              use_stop = as.integer(output == "passage"), epar_shared = as.integer(ep_shared),
              x0_cond = as.integer(x0_cond))
  job[c("nqp", "ng", "nqo", "posd", "px0", "px1", "px2", "box", "rc", "rco", "cut", "cuto",
        "nnz", "graph_unit", "rdf_bins", "rdf_rmax")] <- sde_mb_space_job(m, g, rdf)
  job[c("hist_state", "hist_bins")] <- list(hs$state, hs$bins)
  gpu <- fr$plan$backend == "gpu"
  plan <- if (gpu) sde_mb_gpu_plan(m, n, fr$precision, method, bins = rdf$bins %||% 0)
  if (gpu) { # testing: one system in k slices on each device (sp_gpu_mb.c)
    k <- sp_tuning("mb_slices", call)
    if (k > 1) fr$plan$devices <- rep(fr$plan$devices, each = k)
  }
  job$gpu_plan <- if (gpu) plan$code + 8L else 0 # SP_MB_PLAN_GPU
  job[c("slice_halo", "slice_wrap")] <- sde_mb_slice_halo(m, n, shape)
  job$slices <- if (gpu) sde_mb_gpu_slices(plan, nsys, length(fr$plan$devices), output,
                                            hs$bins) else 1
  job <- lapply(job, as.double)
  job$seed <- fr$seed
  job$par <- as.double(t(par))
  job$epar <- as.double(ep)
  job$x0 <- if (is.double(x0)) x0 else as.double(x0) # (its attributes, if any, are not read)
  job$names <- c(m$states, names(m$observe))
  job$rowptr <- g$rowptr %||% integer()
  job$col <- g$col %||% integer()
  job$gw <- as.double(g$w %||% numeric())
  job["advance"] <- list(NULL)
  job["observe"] <- list(NULL)
  # starts drawn from recipes on the GPU: the module of their draw (mb_recipe.cu)
  job$start_key <- if (gpu && x0_cond == 4) gpu_kernel_load("mb_recipe", fr$plan$devices) else
    character()
  key <- ""
  if (gpu) {
    key <- sde_gpu_load(m, fr$plan$devices, fr$precision, method, call, source = "mb.cu",
                        defines = plan$defines, progress = fr$progress)
  } else {
    lanes <- sde_mb_cpu_lanes_wanted(m, fr$precision, method, nsys * n * kmax, n)
    lib <- sde_mb_cpu_load(m, call, fr$progress, lanes)
    sfx <- if (fr$precision == "single") "_f" else "_d"
    job$advance <- lib[[paste0("advance", sfx)]]
    job$observe <- lib[[paste0("observe", sfx)]]
  }
  sim_hold_interrupts(fr$call, environment())
  res <- .Call(C_sp_r_model_run, "mb", job, key, as.integer(fr$plan$devices), fr$progress)
  .sp_last_run$run <- res$run # (sp_last_run(): the GPU's set-up and collect, for benchmarks)
  if (output == "rdf") {
    out <- sde_rdf_frame(res$rdf, fr$n, ncond, grid, swept, rdf$bins, rdf$r_max, n, L,
                         length(m$positions), max(0, res$records))
    if (length(m$observe)) {
      attr(out, "records") <- sde_mb_result(res, m, grid, swept, fr, rec, dt, t0, k0, kmax, n,
                                            "records", 0)
    }
    attr(out, "bins") <- rdf$bins
    attr(out, "r_max") <- rdf$r_max
    attr(out, "box") <- L[seq_along(m$positions)]
    attr(out, "records_used") <- max(0, res$records)
  } else if (isTRUE(start$traj) && output == "trajectories") {
    # (internal: lrmd("gravity2d") on this engine, R/lrmd-declared.R: the
    # records of the observables, and the kept states as the engine wrote
    # them, n x states x records x kept systems, in attribute `traj`)
    out <- sde_mb_result(res, m, grid, swept, fr, rec, dt, t0, k0, kmax, n, "records", 0)
    attr(out, "traj") <- res$traj
    res$traj <- NULL
    output <- "records"
  } else {
    out <- sde_mb_result(res, m, grid, swept, fr, rec, dt, t0, k0, kmax, n, output, keep_here)
  }
  if (output == "passage") out$value[res$status == 0L] <- t0 + t_max # censored at t_max
  if (!is.null(shape) && output == "trajectories") out <- sde_mb_add_ij(out, shape)
  if (hs$bins > 0) attr(out, "hist") <- array(res$hist, c(hs$bins, rec$nrec, nsys))
  attr(out, "model") <- m$name
  attr(out, "model_hash") <- m$hash
  attr(out, "conditions") <- grid
  attr(out, "method") <- method
  attr(out, "dt") <- dt
  attr(out, "t_max") <- if (output == "passage") t_max else kmax * dt
  attr(out, "n") <- n
  if (!is.null(shape)) attr(out, "shape") <- shape
  attr(out, "output") <- output
  attr(out, "first_replica") <- fr$first
  attr(out, "replicas") <- fr$n
  attr(out, "record_every") <- rec$every
  attr(out, "steps") <- c(useful = res$useful_steps * n, issued = res$useful_steps * n)
  # the final states, shaped in place: res$x is the engine's fresh vector,
  # held by res alone (dim<- would copy n x nx x systems numbers)
  # (final_dim: a caller's own shape of the same numbers, without names --
  # kuramoto()'s n x systems phases)
  final <- if (is.null(final_dim)) {
    .Call(C_sp_r_mb_shape, res$x, as.integer(c(n, nx, nsys)), list(NULL, m$states, NULL))
  } else {
    .Call(C_sp_r_mb_shape, res$x, as.integer(final_dim), NULL)
  }
  res$x <- NULL
  attr(out, "final") <- final
  if (ne) attr(out, "element_params") <- sde_mb_element_array(ep, ep_shared, n, names(m$elements),
                                                              ncond, fr$n, fr$first)
  # starts drawn from recipes: each system's largest |momentum| of its start
  if (x0_cond == 4) attr(out, "start_pmax") <- res$pmax
  done <- max(res$steps %||% 0)
  attr(out, "k_end") <- k0 + done
  attr(out, "t_end") <- t0 + done * dt
  cls <- switch(output,
                passage = c("sde_mb_passage", "sde_passage", "sp_paths"),
                moments = c("sde_mb_moments", "sde_moments"),
                records = "sde_records",
                trajectories = "sde_mb_trajectories",
                rdf = "sde_rdf")
  out <- sim_result(out, fr, res, class = c(cls, "sde_mb_result", "data.frame"),
                    unfinished = sprintf("%s of %s records were reached; the result holds those",
                                         fmt_count(res$records), fmt_count(rec$nrec)))
  sp_seal(out, SDE_MB_SEALED) # what a continuation reads
}

# sde_run(hist = ): list(state (0-based, the engine's hist_state), bins (0:
# none)), checked.
sde_mb_check_hist <- function(hist, m, output, call) {
  if (is.null(hist)) return(list(state = 0, bins = 0))
  if (!is.list(hist) || is.null(names(hist)) || !all(names(hist) %in% c("state", "bins"))) {
    sp_abort(paste0("`hist` must be NULL or list(state = , bins = ): a state's name and the ",
                    "number of bins of [0, 2 pi), not ", describe(hist), "."), call = call)
  }
  if (!output %in% c("records", "trajectories")) {
    sp_abort(sprintf(paste0("`hist` counts a state at the records of output = \"records\" or ",
                            "\"trajectories\", not output = \"%s\": drop `hist` or record."),
                     output), call = call)
  }
  state <- hist$state
  if (is.null(state)) {
    if (length(m$periodic) != 1) {
      sp_abort(sprintf(paste0("`hist$state` must be given: the model \"%s\" has %s periodic ",
                              "states (name one of its states: %s)."), m$name,
                       if (length(m$periodic)) length(m$periodic) else "no",
                       paste0("`", m$states, "`", collapse = ", ")), call = call)
    }
    state <- m$periodic
  }
  if (!is.character(state) || length(state) != 1 || !state %in% m$states) {
    sp_abort(sprintf("`hist$state` must be the name of one of the model's states (%s), not %s.",
                     paste0("`", m$states, "`", collapse = ", "), describe(state)), call = call)
  }
  if (is.null(hist$bins)) sp_abort("`hist$bins` (bins of [0, 2 pi)) must be given.", call = call)
  bins <- check_whole(hist$bins, "hist$bins", lo = 1, hi = 2^20, call = call)
  list(state = match(state, m$states) - 1, bins = bins)
}

# The GPU plan of a run of systems of n elements (inst/cuda/mb.cu, src/gpu/
# sp_gpu_mb.c): list(code (job$gpu_plan: the SP_MB_PLAN_* bits of mb_args.h),
# defines (NVRTC's, the module's variant)).  Mode A -- a system a thread
# block, four elements a thread (one or two for long pair terms), the states in registers for a whole launch
# -- when a system fits one block of at most 512 threads (n <= 2048) and what
# its threads share (the states; for pairs, the element parameters and the
# elements' values for the pair terms)
# fits 40 kB of shared memory: it touches global memory only at a launch's
# start and end and synchronises with barriers, not kernel launches, so it
# beats mode B wherever it fits.  Else mode B: a system over many blocks, a
# kernel a pass, the sums through the last-block-done pattern (n up to the
# device's memory); its passes over all pairs cut the sources into chunks
# where a system has few blocks (sp_gpu_mb.c, n alone decides them; the
# tuning option mb_pair_chunks).
sde_mb_gpu_plan <- function(m, n, precision, method, bins = 0) {
  nx <- length(m$states)
  ne <- length(m$elements)
  # pair, edge and the observables' pair terms read the others' parameters
  nq <- length(m$mb$pairs) + length(m$mb$edges) + length(m$mb$opairs)
  ng <- ceiling(n / 4)
  bytes <- if (precision == "single") 4 else 8
  # (and output = "rdf" a histogram of its bins)
  # (and with positions and pair terms the positions packed, four a slot)
  npp <- length(m$mb$pairs) + length(m$mb$opairs)
  shared <- (nx + (if (nq > 0) ne + max(1, m$nu %||% 0) else 0) +
               (if (length(m$positions) > 0 && npp > 0) 4 else 0)) * 4 * ng * bytes + 4 * bins
  small <- ng <= 512 && shared <= 40 * 1024
  # elements a thread in mode A: four share the loads of a partner, but a
  # long pair term (a Lennard-Jones force) runs faster with more threads
  # and fewer registers a thread (bench/mb-space.R, issue 49): the fewest
  # that fit a block of 512 threads
  npad <- 4 * ng
  ept <- as.integer(sp_tuning("mb_small_ept"))
  if (ept == 0L) ept <- if (nq > 0 && sde_mb_pair_size(m) > 400) 1L else 4L
  while (ept < 4L && npad / ept > 512) ept <- 2L * ept
  if (!small) ept <- 4L
  terms_nb <- any(grepl("^\\.nb_", unlist(lapply(m$mb$terms, all.vars))))
  lattice <- m$mb$reach > 0
  # SP_MB_PLAN_ONECHUNK: mode B's passes over all pairs in one source chunk
  onechunk <- !small && !isTRUE(sp_tuning("mb_pair_chunks"))
  list(code = as.integer(small) + 2L * terms_nb + 4L * lattice +
           16L * (ept == 2L) + 32L * (ept == 1L) + # SP_MB_PLAN_EPT2, _EPT1
           64L * onechunk,
       defines = c(sprintf("SP_MB_METHOD=%d", match(method, SDE_MB_METHOD_CODES) - 1L),
                   sprintf("SP_MB_SMALL=%d", as.integer(small)),
                   if (ept != 4L) sprintf("SP_MB_EPT=%d", ept),
                   if (!small && (minb <- sde_mb_minb(m)) > 0) sprintf("SP_MB_MINB=%d", minb),
                   sprintf("SP_MB_TERMS_NB=%d", as.integer(terms_nb)),
                   # a long pair function (a Lennard-Jones force in three
                   # terms) is not unrolled twice in mode A: NVRTC's time
                   if (small && sde_mb_pair_size(m) > 400) "SP_MB_UNROLL=1",
                   # every pair in tiles, the cut-offs tested (tests, benchmarks)
                   if (!isTRUE(sp_tuning("mb_cells"))) "SP_MB_NOCELLS=1"))
}

# Mode B's register cap (SP_MB_MINB: blocks of 256 an SM; 0 none): the
# tuning option mb_blocks_per_sm, "auto" 6 for pair terms with cut-offs
# through cell lists (the Lennard-Jones fluid's pass: 1.12e9 -> 1.23e9
# particle-steps/s on an H100, 64 registers -> 40, bench/RESULTS.md run 7),
# none otherwise (a pass without a neighbour loop gains nothing from the
# occupancy and might spill).
sde_mb_minb <- function(m) {
  v <- sp_tuning("mb_blocks_per_sm")
  if (!identical(v, "auto")) return(as.integer(v))
  cells <- length(m$positions) > 0 && sde_mb_cut_all(m$mb$pcut) && isTRUE(sp_tuning("mb_cells"))
  if (cells) 6L else 0L
}

# One system on several devices (src/gpu/sp_gpu_mb.c, its top): the slices
# it is cut into, one a device (1: the devices share the systems, each
# device whole systems).  Slices where the run is one system (one replica,
# one condition) in mode B (plan$code's bit 1 clear: n above 2048) and
# keeps no states (output = "trajectories": the kept states are made whole
# on one device).  Any coupling: a mean field, a lattice, pairs -- with a
# cut-off too (every slice rebuilds the whole cell list from its copy of
# the state and runs its range of the cells' order), graphs, pair
# observables and g(r).  Not yet with a histogram (`hist`: counted on one
# device).
sde_mb_gpu_slices <- function(plan, nsys, ndev, output, hist_bins = 0) {
  if (ndev > 1 && nsys == 1 && plan$code %% 2L == 0L && output != "trajectories" &&
      hist_bins == 0) ndev else 1L
}

# One system in slices on several devices (src/gpu/sp_gpu_mb.c): the other
# elements a pass reads, as list(halo, wrap) -- the elements on each side of
# a slice's range that it needs from the others (0: none, a mean field; n:
# all, pairs; a lattice's reach, on a square lattice the rows within reach,
# (reach + 1) L2 - 1) and whether the lattice wraps around (ring, square).
sde_mb_slice_halo <- function(m, n, shape = NULL) {
  reach <- m$mb$reach
  halo <- if (length(m$mb$pairs) > 0) n
          else if (reach == 0) 0
          else if (identical(m$lattice, "square")) (reach + 1) * shape[2] - 1
          else reach
  list(halo = min(halo, n), wrap = as.integer(m$lattice %in% c("ring", "square")))
}

# The engine's numbers of the methods (mb_args.h: SP_MB_EULER ...).
SDE_MB_METHOD_CODES <- c("euler", "srk2", "verlet", "yoshida4", "baoab")

# The parameters of each condition: the model's, n, then the derived ones
# (the parameter-only parts of the right-hand sides, in double).
sde_mb_par <- function(m, grid, n, call, shape = NULL, L = NULL) {
  base <- cbind(as.matrix(grid[names(m$params)]), .n = n)
  if (identical(m$lattice, "square")) base <- cbind(base, .l2 = shape[2])
  if (length(m$positions)) {
    box <- matrix(c(L, 1 / L), nrow(grid), 6, byrow = TRUE,
                  dimnames = list(NULL, SDE_MB_BOX_PARAMS))
    base <- cbind(base, box, sde_mb_cutoffs(m, grid, n, L, call))
  }
  nd <- length(m$derived)
  if (!nd) return(base)
  d <- matrix(0, nrow(grid), nd)
  for (j in seq_len(nd)) {
    e <- m$derived[[j]]
    d[, j] <- vapply(seq_len(nrow(grid)), function(c) {
      env <- list2env(c(as.list(grid[c, names(m$params), drop = FALSE]),
                        list(.n = n, .l2 = shape[2] %||% 1),
                        if (length(m$positions))
                          as.list(stats::setNames(c(L, 1 / L), SDE_MB_BOX_PARAMS))),
                      parent = baseenv())
      r <- suppressWarnings(as.double(eval(e, env)))
      if (length(r) != 1) NA_real_ else r
    }, 0)
    if (any(!is.finite(d[, j]))) {
      c <- which(!is.finite(d[, j]))[1]
      sp_abort(sprintf("the model's `%s` is not finite for condition %d (n = %s).",
                       gsub("\\.n", "n", paste(deparse(e), collapse = " ")), c, fmt_count(n)),
               call = call)
    }
  }
  cbind(base, d)
}

# The starts: list(x0, cond): per condition (nx numbers each) when every
# state's start is one number per condition, else systems x nx x n; or
# (cond 4) a start of lrmd()'s (hmf_waterbag() ...) the engine draws, a
# recipe per system (sde_mb_recipe_init()).
sde_mb_init <- function(m, init, grid, n, fr, reps, call) {
  rows <- sde_mb_recipe_init(m, init, n, fr, reps, nrow(grid), call)
  if (!is.null(rows)) return(list(x0 = rows, cond = 4L))
  st <- m$states
  if (!is.list(init) || is.null(names(init)) || any(!nzchar(names(init)))) {
    sp_abort(sprintf(paste0("`init` must be a named list with one entry per state (%s), or a ",
                            "previous result of this model, not %s."),
                     paste0("`", st, "`", collapse = ", "), describe(init)), call = call)
  }
  missing <- setdiff(st, names(init))
  extra <- setdiff(names(init), st)
  if (length(missing) || length(extra)) {
    sp_abort(sprintf("`init` %s; it needs one entry per state: %s.",
                     if (length(missing)) sprintf("has no entry for `%s`", missing[1])
                     else sprintf("has an entry for `%s`, which is not a state", extra[1]),
                     paste0("`", st, "`", collapse = ", ")), call = call)
  }
  ncond <- nrow(grid)
  nx <- length(st)
  vals <- vector("list", nx)
  sites <- 0L
  for (v in seq_len(nx)) {
    x <- init[[st[v]]]
    what <- sprintf("`init$%s`", st[v])
    if (is.numeric(x)) { # per element, or per system (R/sde-mb-inputs.R)
      vals[[v]] <- sde_mb_init_numbers(x, what, n, fr$n, ncond, call)
      next
    }
    e <- sde_rhs(x, what, call)
    sde_check_draws(e, names(m$params), what, call)
    ds <- sde_draw_sites(e)
    d0 <- sites
    sites <- sites + ds$sites
    vals[[v]] <- list(e = e, d0 = d0)
  }
  pk <- match(m$periodic, st) # periodic states: starts wrapped into [-pi, pi]
  laws <- sde_mb_init_laws(m, vals, grid, n)
  if (!is.null(laws)) {
    for (c in seq_len(ncond)) for (v in pk) {
      k <- 3 * ((c - 1) * nx + v - 1)
      if (laws[k + 1] < 0) laws[k + 2] <- sde_wrap_angle(laws[k + 2])
      else laws[k + 1] <- laws[k + 1] + 4 # SP_MB_LAW_WRAP: the engine wraps its draws
    }
    return(list(x0 = laws, cond = 2L))
  }
  D <- max(1L, sites)
  for (v in seq_len(nx)) {
    if (!is.null(vals[[v]]$e)) {
      e <- vals[[v]]$e; d0 <- vals[[v]]$d0
      vals[[v]] <- lapply(seq_len(ncond), function(c) {
        pars <- as.list(grid[c, names(m$params), drop = FALSE])
        sde_mb_eval(e, pars, c - 1, reps, n, fr$seed, 13L, D, d0,
                    sprintf("`init$%s`", st[v]), call)
      })
    }
  }
  for (v in pk) vals[[v]] <- lapply(vals[[v]], function(x) {
    y <- sde_wrap_angle(as.double(x))
    attributes(y) <- attributes(x)
    y
  })
  const <- all(vapply(vals, function(vv) all(vapply(vv, length, 1L) == 1L), TRUE))
  if (const) {
    x0 <- unlist(lapply(seq_len(ncond), function(c) vapply(vals, function(vv) vv[[c]], 0)))
    return(list(x0 = x0, cond = TRUE))
  }
  # the same start in every replica of a condition (numbers per element, or
  # one number): per condition, nx x n (x0_cond 3: the engine copies it into
  # each system, not R into an array of them all)
  same <- all(vapply(vals, function(vv) all(vapply(vv, length, 1L) %in% c(1L, n)), TRUE))
  if (same && fr$n > 1) return(list(x0 = sde_mb_stack(vals, n, 1L, ncond), cond = 3L))
  list(x0 = sde_mb_stack(vals, n, fr$n, ncond), cond = FALSE)
}

# The recipes of starts the engine draws (job x0_cond 4: src/core/
# sp_mb_recipe.h), one a system, as the engine reads them: systems x 9,
# c(kind, n, seed lo, seed hi, a, b, U, M0, replica) (a recipe of 8, saved
# before replicas existed, is replica 0).
sde_mb_recipe_rows <- function(recipes) {
  unlist(lapply(recipes, function(r) {
    r <- as.double(unclass(r))
    if (length(r) == 8) c(r, 0) else r
  }), use.names = FALSE)
}

# `init` given as a start of lrmd() (hmf_waterbag(), hmf_equilibrium(),
# ring_uniform(), gravity2d_shell(): class "lrmd_init", or its recipe of
# class "lrmd_draw"): the recipes of the systems (condition-major, then
# replica; the system of global replica r, 0-based, draws replica r of the
# start -- lrmd()'s replicas' streams -- in every condition alike), checked
# against the model and n; NULL when `init` is no such start.
sde_mb_recipe_init <- function(m, init, n, fr, reps, ncond, call) {
  if (inherits(init, "lrmd_starts")) {
    sp_abort(sprintf(paste0("`init` is a grid of %d starts (a parameter of %s() given as a ",
                            "vector); sde_run() takes one start: give one value of each ",
                            "parameter, or run the starts one by one."),
                     length(init$starts), switch(attr(init, "model"), hmf = "hmf_waterbag",
                                                 ring = "ring_uniform", "gravity2d_shell")),
             call = call)
  }
  if (inherits(init, "lrmd_draw")) {
    recipe <- init
  } else if (inherits(init, "lrmd_init")) {
    recipe <- lrmd_recipe(init)$recipe
    if (is.null(recipe)) {
      sp_abort(paste0("`init` is a start of lrmd() whose columns were changed, so the engine ",
                      "cannot draw it: give its columns as numbers, one entry per state of ",
                      "the model (init = list(q = start$theta, p = start$p), say)."), call = call)
    }
  } else {
    return(NULL)
  }
  kind <- names(lrmd_start_kinds)[match(recipe[1], lrmd_start_kinds)]
  cols <- lrmd_columns(if (kind == "shell") "gravity2d" else "hmf")
  maker <- switch(kind, waterbag = "hmf_waterbag", equilibrium = "hmf_equilibrium",
                  ring = "ring_uniform", shell = "gravity2d_shell")
  if (recipe[2] != n) {
    sp_abort(sprintf(paste0("`init` (a start of %s()) has %s particles and the systems have ",
                            "n = %s elements: make the start with n = %s, or run n = %s."),
                     maker, fmt_count(recipe[2]), fmt_count(n), fmt_count(n),
                     fmt_count(recipe[2])), call = call)
  }
  if (length(m$states) != length(cols)) {
    sp_abort(sprintf(paste0("`init` (a start of %s()) has the %d columns %s, which start the ",
                            "model's states in order, and the model \"%s\" has %d states (%s): ",
                            "give a model of %d states, or give `init` as a named list of ",
                            "numbers, one entry per state."),
                     maker, length(cols), paste0("`", cols, "`", collapse = ", "), m$name,
                     length(m$states), paste0("`", m$states, "`", collapse = ", "),
                     length(cols)), call = call)
  }
  if (length(m$positions)) {
    sp_abort(sprintf(paste0("`init` (a start of %s()) cannot start the model \"%s\", whose ",
                            "states %s are positions in a box: give `init` as a named list of ",
                            "numbers, one entry per state, inside the box."),
                     maker, m$name, paste0("`", m$positions, "`", collapse = ", ")),
             call = call)
  }
  rows <- lapply(rep(reps, times = ncond), function(r) {
    x <- as.double(unclass(recipe))
    if (length(x) == 8) x <- c(x, 0)
    x[9] <- r
    x
  })
  unlist(rows, use.names = FALSE)
}

# Starts the engine draws itself (job x0_cond 2: sp_mb_out_init(), threaded,
# no vector of R's): when every state's start is one number or a single
# draw runif(a, b), rnorm(a, b), rcauchy(a, b) whose arguments are
# parameters alone (not the element's i), per condition and state (kind,
# a, b) -- kind -1 a constant a -- else NULL.  The numbers are those R's
# evaluation of the formulas gives (the same draws, a + (b - a) u and a + b z
# in double).
sde_mb_init_laws <- function(m, vals, grid, n) {
  if (length(m$positions)) return(NULL) # positions are wrapped into the box in R
  nx <- length(vals)
  law <- vector("list", nx)
  any_draw <- FALSE
  for (v in seq_len(nx)) {
    e <- if (is.list(vals[[v]]) && !is.null(names(vals[[v]]))) vals[[v]]$e
    if (is.null(e)) {
      if (length(vals[[v]][[1]]) != 1) return(NULL)
      next
    }
    ds <- sde_draw_sites(e)
    y <- ds$e
    if (!is.null(ds$error) || ds$sites != 1 || !is.call(y) || !identical(y[[1]], as.name(".draw")) ||
        "i" %in% c(all.vars(y[[4]]), all.vars(y[[5]]))) {
      return(NULL)
    }
    law[[v]] <- y
    any_draw <- TRUE
  }
  if (!any_draw) return(NULL)
  out <- numeric(3 * nx * nrow(grid))
  for (c in seq_len(nrow(grid))) {
    env <- list2env(c(as.list(grid[c, names(m$params), drop = FALSE]), list(n = n, pi = pi)),
                    parent = baseenv())
    for (f in SDE_UNARY_DOUBLE_R) assign(f, get(f, baseenv()), envir = env)
    for (v in seq_len(nx)) {
      k <- 3 * ((c - 1) * nx + v - 1)
      if (is.null(law[[v]])) {
        out[k + 1:3] <- c(-1, as.double(vals[[v]][[c]]), 0)
        next
      }
      y <- law[[v]]
      ab <- tryCatch(suppressWarnings(as.double(c(eval(y[[4]], env), eval(y[[5]], env)))),
                     error = function(err) NULL)
      if (length(ab) != 2 || any(!is.finite(ab)) || any(abs(ab) > 1e300)) return(NULL)
      if (if (y[[2]] == 0) ab[2] < ab[1] else ab[2] < 0) return(NULL) # (refused there)
      out[k + 1:3] <- c(as.double(y[[2]]), ab)
    }
  }
  out
}

# Values per (field, condition) -- vals[[v]][[c]], n numbers per replica,
# the elements of a replica consecutive (or fewer, recycled: 1 or n) -- as
# the engine's array: systems (condition-major) x fields x n, each number
# written once, on the package's threads (sp_r_mb_stack(), src/r_mb.c; the
# vectors are read as they are, attributes and all: no copies).
sde_mb_stack <- function(vals, n, nrep, ncond) {
  if (length(vals) == 1 && ncond == 1) { # one field already in its place: used as it is
    x <- vals[[1]][[1]]
    if (is.double(x) && length(x) == n * nrep && is.null(attributes(x))) return(x)
  }
  vals <- lapply(vals, function(vv) lapply(vv, function(x) if (is.double(x)) x else as.double(x)))
  .Call(C_sp_r_mb_stack, vals, n, nrep, ncond)
}

# The CPU object of a many-body model, sine and cosine in double sp_math.h's
# polynomials (SP_SDE_CPU_POLY, sde_prelude.h, as in sde_cpu_source()):
# both precisions of mb_cpu.h, an element at a time (lanes = NULL); or, for
# long runs of the SDE methods or of models with pair terms, the precision
# `lanes` with the model's vector copy, the loop over elements and the pair
# sums' loop over targets (SP_MB_CPU_LANES, mb_lanes.h) compiled for this
# processor's vector instructions (the level is in the source, and so in
# the object's key).  The two compute the same numbers.
sde_mb_cpu_source <- function(lanes = NULL) {
  arch <- if (!is.null(lanes)) switch(as.character(sde_simd_level()),
                                      "4" = c("x86-64-v4", 4), "3" = c("x86-64-v3", 3))
  sde_cpu_c_file(c("/* generated by statphysgpu's sde_run(): a many-body model's CPU entries */",
                   "#define SP_SDE_CPU_POLY 1",
                   if (!is.null(lanes)) "#define SP_MB_CPU_LANES 1",
                   if (length(arch)) c(sprintf("#define SP_MB_LANES_ARCH \"arch=%s\"", arch[1]),
                                       sprintf("#define SP_MB_LANES_LEVEL %s", arch[2])),
                   "#include \"mb_args.h\""),
                 c("sde_prelude.h", "sde_model.h", "mb_engine.h", "mb_cpu.h"), prefix = "SP_MB",
                 precisions = lanes %||% c("single", "double"))
}

# The precision whose vector object a CPU run of the many-body model m takes
# (NULL: the object of both precisions): for "euler" and "srk2", for
# "verlet" and "yoshida4" where the model has no lattice neighbours (the
# stages' kicks and moves in the vector loop, issue 50: an element's force
# reads its own states and the sums), and for every method where the model
# has pair terms (pairs(): the pair sums go by the vector loop over
# targets, all pairs and the Verlet lists; the SDE methods' elements too),
# where the compiler can build it (GCC or clang:
# sde_cc_extra()), the model's functions are inlined (not a large model's)
# and the run is long (option statphysgpu.sde_cpu_vector: "auto" from
# mb_cpu_vector_steps element-steps -- elements x systems x steps, `steps`
# here; a pair model's counted min(n, 64) times, the partners of an element
# -- TRUE always, FALSE never).  The vector object compiles in a second or
# two more than the other, once (the cache keeps it); it runs a lattice 10
# to 40 times as fast, so that runs from 2^20 element-steps (0.1 to 0.4 s
# an element at a time) repay it soon (bench/mb-lattice-cpu.R), and pair
# sums 4 to 10 times as fast (bench/mb-pairs-cpu.R, bench/mb-space.R cpu).
sde_mb_cpu_lanes_wanted <- function(m, precision, method, steps, n = 1) {
  v <- sp_tuning("sde_cpu_vector")
  pairs <- length(m$mb$pairs) + length(m$mb$opairs) > 0
  split <- method %in% c("verlet", "yoshida4") && m$mb$reach == 0
  ok <- (method %in% c("euler", "srk2") || split || pairs) && nzchar(sde_cc()$extra) &&
    !grepl("SP_FN_OUTLINE", m$code, fixed = TRUE)
  work <- if (pairs) steps * min(n, 64) else steps
  if (!ok || isFALSE(v) || (identical(v, "auto") && work < sp_tuning("mb_cpu_vector_steps")))
    return(NULL)
  precision
}

sde_mb_cpu_load <- function(m, call, progress = FALSE, lanes = NULL) {
  sfx <- if (is.null(lanes)) c("_f", "_d") else if (lanes == "single") "_f" else "_d"
  sym <- paste0(rep(c("advance", "observe"), each = length(sfx)), sfx)
  sde_cpu_object(m, call, source = sde_mb_cpu_source(lanes),
                 symbols = stats::setNames(paste0("sp_mb_cpu_", sym), sym), progress = progress)
}

# The result of a run.
sde_mb_result <- function(res, m, grid, swept, fr, rec, dt, t0, k0, kmax, n, output, keep) {
  ncond <- nrow(grid)
  nsys <- ncond * fr$n
  cond_of <- rep(seq_len(ncond), each = fr$n)
  replica <- rep(fr$first - 1 + seq_len(fr$n), times = ncond)
  obs <- names(m$observe)
  nr <- max(0, res$records)
  times <- t0 + pmin((seq_len(rec$nrec) - 1) * rec$every, kmax) * dt
  if (output == "passage") {
    cols <- c(list(condition = cond_of), sde_param_cols(grid, swept, cond_of),
              list(replica = replica, value = t0 + res$value, escaped = res$status == 1L))
    out <- new_df(cols)
    unf <- which(res$status == -1L | res$status == 2L)
    attr(out, "unfinished") <- data.frame(condition = cond_of[unf], replica = replica[unf])
    return(out)
  }
  if (output %in% c("records", "moments")) {
    no <- length(obs)
    v <- matrix(res$rec, nrow = no) # column: (record, system)
    rsys <- rep(seq_len(nsys), each = rec$nrec)
    rj <- rep(seq_len(rec$nrec), times = nsys)
    keep_rows <- rj <= nr
    cols <- c(list(condition = cond_of[rsys]), sde_param_cols(grid, swept, cond_of[rsys]),
              list(replica = replica[rsys], time = times[rj]))
    for (j in seq_len(no)) cols[[obs[j]]] <- v[j, ]
    recs <- new_df(lapply(cols, function(x) x[keep_rows]))
    if (output == "records") return(recs)
    # moments over the systems of each condition, at each record, in order
    rows <- list()
    for (c in seq_len(ncond)) for (j in seq_len(nr)) {
      sel <- recs$condition == c & recs$time == times[j]
      for (o in obs) {
        x <- recs[[o]][sel]
        k <- length(x)
        sd <- if (k > 1) stats::sd(x) else NA_real_
        rows[[length(rows) + 1]] <- list(condition = c, time = times[j], variable = o,
                                         replicas = k, mean = mean(x), sd = sd,
                                         se = sd / sqrt(k))
      }
    }
    d <- do.call(rbind.data.frame, rows)
    cols <- c(list(condition = d$condition), sde_param_cols(grid, swept, d$condition),
              list(time = d$time, variable = d$variable, replicas = d$replicas, mean = d$mean,
                   sd = d$sd, se = d$se))
    return(new_df(cols))
  }
  # trajectories: the states of the kept systems, one row per element
  nx <- length(m$states)
  ksys <- if (keep > 0) rep(seq_len(ncond), each = keep) else integer()
  kr <- if (keep > 0) rep(seq_len(keep), times = ncond) else integer()
  # the kept systems are the first `keep` of the call (systems 1..keep)
  nk <- min(keep, nsys)
  a <- array(res$traj, c(n, nx, rec$nrec, max(nk, 0)))
  rows_sys <- rep(seq_len(nk), each = rec$nrec * n)
  rows_rec <- rep(rep(seq_len(rec$nrec), each = n), times = nk)
  rows_el <- rep(seq_len(n), times = rec$nrec * nk)
  sel <- rows_rec <= nr
  cols <- c(list(condition = cond_of[rows_sys]), sde_param_cols(grid, swept, cond_of[rows_sys]),
            list(replica = replica[rows_sys], time = times[rows_rec], element = rows_el))
  for (v in seq_len(nx)) {
    cols[[m$states[v]]] <- as.vector(aperm(a[, v, , , drop = FALSE], c(1, 3, 4, 2)))
  }
  new_df(lapply(cols, function(x) x[sel]))
}

#' @export
print.sde_records <- function(x, ...) {
  cat(sprintf("<sde_records> model \"%s\": %s systems of n = %s, %s records each | %s, %s precision, dt = %s\n",
              attr(x, "model"), fmt_count(length(unique(paste(x$condition, x$replica)))),
              fmt_count(attr(x, "n")), fmt_count(length(unique(x$time))), attr(x, "method"),
              attr(x, "precision"), format(attr(x, "dt"))))
  print(utils::head(as.data.frame(x), 10), row.names = FALSE)
  if (nrow(x) > 10) cat(sprintf("... %s rows\n", fmt_count(nrow(x))))
  invisible(x)
}

#' @export
print.sde_mb_trajectories <- function(x, ...) {
  cat(sprintf("<sde_mb_trajectories> model \"%s\": states of n = %s elements at %s times | %s, %s precision\n",
              attr(x, "model"), fmt_count(attr(x, "n")), fmt_count(length(unique(x$time))),
              attr(x, "method"), attr(x, "precision")))
  print(utils::head(as.data.frame(x), 10), row.names = FALSE)
  if (nrow(x) > 10) cat(sprintf("... %s rows\n", fmt_count(nrow(x))))
  invisible(x)
}

#' @export
as.data.frame.sde_mb_result <- function(x, ...) {
  attributes(x) <- attributes(x)[c("names", "row.names")]
  class(x) <- "data.frame"
  x
}

# rbind() of many-body results: chunks of one run (sde_same_run(): the same
# model, seed, settings and conditions, disjoint replicas; and the same n),
# rows ordered by condition, replica and time, and the final states
# combined in that order (a continuation of the combination continues
# every system).
sde_mb_rbind <- function(...) {
  parts <- sde_chunks(...)
  ns <- vapply(parts, function(p) attr(p, "n") %||% NA_real_, 0)
  if (length(unique(ns)) != 1) {
    rbind_abort(sprintf("rbind() of sde_run() results needs systems of one size: n = %s.",
                        paste(ns, collapse = ", ")))
  }
  d <- do.call(rbind, lapply(parts, function(p) {
    attributes(p) <- attributes(p)[c("names", "row.names")]
    class(p) <- "data.frame"
    p
  }))
  ord <- do.call(order, unname(as.list(d[intersect(c("condition", "replica", "time", "element"),
                                                     names(d))])))
  d <- d[ord, , drop = FALSE]
  rownames(d) <- NULL
  sde_mb_rbind_state(sde_keep_attrs(d, parts, drop = c("final", "k_end", "t_end", "element_params")), parts)
}

# The state of a combination `out` of many-body chunks `parts` (of any
# output): their final states, system by system, the system size `n` (which
# the old attribute `n` of passage and moments results, the replicas, must
# not replace), the end step and time, and the seal of the combination of
# unmodified chunks (a continuation of it continues every system).
sde_mb_rbind_state <- function(out, parts) {
  attr(out, "n") <- attr(parts[[1]], "n")
  # the final states, system by system, in (condition, replica) order
  sys <- do.call(rbind, lapply(seq_along(parts), function(k) {
    p <- parts[[k]]
    nc <- nrow(attr(p, "conditions"))
    r <- attr(p, "replicas")
    data.frame(part = k, col = seq_len(nc * r), condition = rep(seq_len(nc), each = r),
               replica = rep(attr(p, "first_replica") - 1 + seq_len(r), times = nc))
  }))
  sys <- sys[order(sys$condition, sys$replica), , drop = FALSE]
  fin <- lapply(parts, function(p) attr(p, "final"))
  dims <- dim(fin[[1]])
  a <- array(0, c(dims[1], dims[2], nrow(sys)), dimnames = dimnames(fin[[1]]))
  for (s in seq_len(nrow(sys))) a[, , s] <- fin[[sys$part[s]]][, , sys$col[s]]
  attr(out, "final") <- a
  if (!is.null(attr(parts[[1]], "element_params"))) {
    ea <- lapply(parts, function(p) attr(p, "element_params"))
    e <- array(0, c(dim(ea[[1]])[1:2], nrow(sys)), dimnames = dimnames(ea[[1]]))
    for (s in seq_len(nrow(sys))) e[, , s] <- ea[[sys$part[s]]][, , sys$col[s]]
    attr(e, "systems") <- data.frame(condition = sys$condition, replica = sys$replica)
    attr(out, "element_params") <- e
  }
  attr(out, "k_end") <- max(vapply(parts, function(p) attr(p, "k_end"), 0))
  attr(out, "t_end") <- max(vapply(parts, function(p) attr(p, "t_end"), 0))
  sp_reseal(out, parts, SDE_MB_SEALED)
}

#' @export
rbind.sde_records <- function(..., deparse.level = 1) sde_mb_rbind(...)

#' @export
rbind.sde_mb_trajectories <- function(..., deparse.level = 1) sde_mb_rbind(...)
