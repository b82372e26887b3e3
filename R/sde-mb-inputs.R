# The inputs and the by-products of many-body runs (issue 49, "the slips"):
# the size `n` that a many-body model needs, starts given per system (an
# n x replicas matrix) or as a lattice's matrix, the element parameters
# returned with the result (sde_element_params()), the row and column of a
# square lattice's elements, and the messages for bad numbers and draws.

# A many-body model run without `n` (sde_run()'s default n = 1): an error
# naming `n` and the fix.  Systems of one element are rarely what a model
# of coupled elements means (the Kuramoto order parameter of one oscillator
# is exactly 1); `n = 1` given explicitly still runs them.
sde_mb_need_n <- function(m, call) {
  exprs <- c(m$drift, m$noise, m$observe, list(m$stop))
  coupled <- !identical(m$lattice %||% "none", "none") ||
    any(vapply(exprs, sde_mb_uses, TRUE))
  why <- if (coupled) {
    paste0("is a system of elements that act on each other or are observed together ",
           "(mean(), sum(), pairs(), lattice neighbours, i or n)")
  } else {
    sprintf("runs as systems of elements (it has %s)",
            paste(c(if (length(m$periodic)) "periodic states",
                    if (length(m$elements)) "parameters per element"), collapse = " and "))
  }
  sp_abort(sprintf(paste0(
    "`n` is missing: the model \"%s\" %s, and sde_run() needs the number of elements of a ",
    "system: give `n = ` (e.g. n = 100%s%s)."), m$name, why,
    if (identical(m$lattice, "square")) "; on a square lattice n = c(L1, L2)" else "",
    if (coupled) "" else ", or n = 1 for systems of one element each"),
    call = call, class = "statphysgpu_n_missing")
}

# A square lattice's starts given as matrices: an L1 x L2 matrix is read as
# x[i, j] = M[i, j] (the elements are numbered row by row, element (i - 1)
# L2 + j), an L1 x L2 x replicas array as one such matrix per system (an
# n x replicas matrix, as sde_mb_init() takes it); n x replicas matrices
# pass unchanged.
sde_mb_square_init <- function(init, shape, call) {
  if (!is.list(init) || inherits(init, "sde_mb_result")) return(init)
  n <- prod(shape)
  for (s in names(init)) {
    x <- init[[s]]
    d <- dim(x)
    if (!is.numeric(x) || is.null(d)) next
    if (length(d) == 2 && all(d == shape)) {
      init[[s]] <- as.double(t(x))
    } else if (length(d) == 3 && all(d[1:2] == shape)) {
      init[[s]] <- matrix(aperm(x, c(2L, 1L, 3L)), n, d[3])
    } else if (!(length(d) == 2 && d[1] == n)) {
      sp_abort(sprintf(paste0(
        "`init$%s` is an array of %s; on this %s x %s lattice a start is an L1 x L2 matrix ",
        "(x[i, j] = M[i, j], row i, column j), an L1 x L2 x replicas array (one matrix a ",
        "system) or an n x replicas matrix (n = %s; rows the elements, numbered row by row: ",
        "element (i - 1) L2 + j)."), s, paste(d, collapse = " x "), fmt_count(shape[1]),
        fmt_count(shape[2]), fmt_count(n)), call = call)
    }
  }
  init
}

# The numbers given as a many-body start of one state (`what`), as
# sde_mb_init() keeps them: per condition, n values (per element, the same
# in every system) or n x replicas (per system: an n x replicas matrix,
# rows the elements and columns the replicas of this call, the same in
# every condition; or n x (replicas x conditions), columns system by
# system, condition by condition).
sde_mb_init_numbers <- function(x, what, n, nrep, ncond, call) {
  bad <- sde_bad_numbers(x)
  if (!is.null(bad)) {
    sp_abort(sprintf("%s %s; starts must be finite numbers.", what, bad), call = call)
  }
  # (the numbers are kept as given where they are doubles, attributes and
  # all: sde_mb_stack() reads them as vectors; a copy of n x replicas
  # numbers would cost more than the run's start in the engine)
  d <- dim(x)
  if (length(d) == 2 && d[1] == n && d[2] > 1) {
    if (d[2] == nrep) {
      v <- if (is.double(x)) x else as.double(x)
      return(rep(list(v), ncond))
    }
    if (d[2] == nrep * ncond) {
      return(lapply(seq_len(ncond), function(c) as.double(x[, (c - 1) * nrep + seq_len(nrep)])))
    }
  }
  if (length(d) > 2 || (length(d) == 2 && min(d) > 1) || !(length(x) %in% c(1, n))) {
    sp_abort(sprintf(paste0(
      "%s must be a finite number, n = %s numbers (one per element, the same in every ",
      "system), an n x replicas matrix (%s x %s: rows the elements, columns the replicas of ",
      "this call, the same in every condition%s) or a formula (which may draw: ~ runif(0, ",
      "2 * pi)), not %s."), what, fmt_count(n), fmt_count(n), fmt_count(nrep),
      if (ncond > 1) sprintf("; or %s x %s, the systems condition by condition",
                             fmt_count(n), fmt_count(nrep * ncond)) else "",
      if (is.null(d)) describe(x) else sprintf("an array of %s", paste(d, collapse = " x "))),
      call = call)
  }
  v <- if (is.double(x) && length(x) > 1) x else as.double(x)
  rep(list(v), ncond)
}

# What is wrong with numbers that must be finite: NULL when they are (or
# are not numbers at all: the caller's message describes them), else the
# first missing or infinite value and where it is.
sde_bad_numbers <- function(v) {
  if (!is.numeric(v) && !is.logical(v)) return(NULL)
  # one pass, no copies, where all are finite (a missing, infinite or NaN
  # value makes the sum so; a finite sum that overflows looks further)
  if (if (is.double(v)) is.finite(sum(v)) else !anyNA(v)) return(NULL)
  bad <- which(is.na(v) | !is.finite(v))
  if (!length(bad)) return(NULL)
  k <- bad[1]
  sprintf("has %s at position %s%s",
          if (is.na(v[k]) && !is.nan(v[k])) "a missing value (NA)"
          else sprintf("the value %s", format(v[k])), fmt_count(k),
          if (length(bad) > 1) sprintf(" (and %s more)", fmt_count(length(bad) - 1)) else "")
}

# A draw's arguments checked: runif(min, max) with min <= max, rnorm(mean,
# sd) and rcauchy(location, scale) with a scale >= 0 (`what`: the start or
# parameter drawn; `where`: the condition, or "" where the arguments are
# numbers of the declaration).
sde_check_draw_args <- function(kind, a, b, what, where, call) {
  bad <- if (kind == 0) b < a else b < 0
  bad[is.na(bad)] <- FALSE
  if (!any(bad)) return(invisible(TRUE))
  k <- which(bad)[1]
  law <- SDE_MB_DRAWS[kind + 1L]
  sp_abort(sprintf("%s draws %s(%s, %s)%s: %s; %s.", what, law,
                   format(a[min(k, length(a))]), format(b[min(k, length(b))]), where,
                   switch(law, runif = "`max` is below `min`",
                          rnorm = "the standard deviation `sd` is negative",
                          rcauchy = "the scale is negative"),
                   switch(law, runif = "give runif(min, max) with min <= max",
                          rnorm = "give rnorm(mean, sd) with sd >= 0",
                          rcauchy = "give rcauchy(location, scale) with scale >= 0")),
           call = call)
}

# Draws of an expression whose arguments are numbers (no parameter, i or
# n): checked when the model or the run is declared.
sde_check_draw_constants <- function(y, what, call) {
  walk <- function(x) {
    if (!is.call(x)) return(invisible())
    if (identical(x[[1]], as.name(".draw")) && length(x) == 5) {
      args <- list(x[[4]], x[[5]])
      if (all(vapply(args, function(e) all(all.vars(e) == "pi"), TRUE))) {
        env <- list2env(list(pi = pi), parent = baseenv())
        ab <- tryCatch(vapply(args, function(e) as.double(eval(e, env))[1], 0),
                       error = function(err) NULL)
        if (length(ab) == 2) sde_check_draw_args(x[[2]], ab[1], ab[2], what, "", call)
      }
    }
    for (k in seq_along(x)[-1]) walk(x[[k]])
    invisible()
  }
  walk(y)
}

# The element parameters of a run as the result returns them: an array
# elements x parameters x systems (systems by condition, then replica, as
# attr(x, "final")), with attribute `systems` (their condition and replica).
sde_mb_element_array <- function(ep, shared, n, names, ncond, nrep, first) {
  nsys <- ncond * nrep
  ne <- length(names)
  a <- if (shared) rep(as.double(ep), nsys) else as.double(ep)
  dim(a) <- c(n, ne, nsys)
  dimnames(a) <- list(NULL, names, NULL)
  attr(a, "systems") <- data.frame(condition = rep(seq_len(ncond), each = nrep),
                                   replica = rep(first - 1 + seq_len(nrep), times = ncond))
  a
}

# The columns `i` and `j` (row and column) of a square lattice's elements
# in trajectories, after `element`.
sde_mb_add_ij <- function(d, shape) {
  k <- match("element", names(d))
  if (is.na(k)) return(d)
  e <- d$element - 1L
  cols <- c(unclass(d)[seq_len(k)],
            list(i = as.integer(e %/% shape[2] + 1), j = as.integer(e %% shape[2] + 1)),
            unclass(d)[-seq_len(k)])
  new_df(cols)
}

#' The element parameters of a many-body run
#'
#' A many-body model's parameters per element (`params = list(w = ~
#' rnorm(0, s))` in [sde_model()] or [sde_run()]) are drawn for each element
#' of each system from that system's Philox stream (or computed from `i`
#' and `n`); the result of [sde_run()] carries the values every system ran
#' with, so that they can be set against what the run made of them (the
#' natural frequency of an oscillator against its effective frequency, its
#' phase velocity in the final state).
#'
#' @param x A result of [sde_run()] with a many-body model that has
#'   parameters per element.
#' @return A data frame with one row per element of every system of the
#'   run: `condition`, the swept parameters, `replica`, `element` (and on a
#'   square lattice `i` and `j`, its row and column), and one column per
#'   element parameter. The same values, as an array elements x parameters
#'   x systems (systems by condition, then replica, as `attr(x, "final")`),
#'   are `attr(x, "element_params")`.
#' @seealso [sde_run()], [sde_model()]
#' @examples
#' if (sde_cpu_available()) {
#'   kl <- sde_model(
#'     drift = list(theta = ~ w + K * (mean(sin(theta)) * cos(theta) -
#'                                     mean(cos(theta)) * sin(theta))),
#'     params = list(K = 2, w = ~ rnorm(0, 0.5)),
#'     observe = list(r = ~ sqrt(mean(cos(theta))^2 + mean(sin(theta))^2)),
#'     name = "kuramoto-normal")
#'   r <- sde_run(kl, replicas = 2, n = 50, init = list(theta = 0), dt = 0.05,
#'                t_max = 1, seed = 1, backend = "cpu")
#'   head(sde_element_params(r))
#' }
#' @export
sde_element_params <- function(x) {
  call <- sys.call()
  if (!inherits(x, "sde_mb_result")) {
    sp_abort(sprintf(paste0("`x` must be a result of sde_run() with a many-body model ",
                            "(sde_run(n = )), not %s."), describe(x)), call = call)
  }
  a <- attr(x, "element_params")
  if (is.null(a)) {
    sp_abort(sprintf(paste0("the model \"%s\" of `x` has no parameters per element (give ",
                            "sde_model(params = list(w = ~ rnorm(0, 1))))."),
                     attr(x, "model")), call = call)
  }
  d <- dim(a)
  sys <- attr(a, "systems")
  grid <- attr(x, "conditions")
  swept <- attr(grid, "swept")
  s <- rep(seq_len(d[3]), each = d[1])
  cond <- sys$condition[s]
  cols <- c(list(condition = cond), sde_param_cols(grid, swept, cond),
            list(replica = sys$replica[s], element = rep(seq_len(d[1]), times = d[3])))
  for (k in seq_len(d[2])) cols[[dimnames(a)[[2]][k]]] <- as.vector(a[, k, ])
  out <- new_df(cols)
  shape <- attr(x, "shape")
  if (!is.null(shape)) out <- sde_mb_add_ij(out, shape)
  out
}
