# Particles in a periodic box and elements on a graph (issue 49): the run
# arguments of sde_run() that give them -- `box`, `graph`, the cut-offs'
# values per condition -- checked and laid out for the engines, and the
# radial distribution function g(r) (output = "rdf") made from the engines'
# pair counts.

# The parameters of a many-body model as its header and the engines read
# them: the model's, then the hidden ones -- n, a square lattice's columns,
# the box (sides and their inverses) and the largest cut-offs of the
# dynamics' and of the observables' pair terms (the cell grids'); the
# derived ones follow (sde_mb_header(), sde_mb_par()).
sde_mb_pnames <- function(m) {
  c(names(m$params), ".n", if (identical(m$lattice, "square")) ".l2",
    if (length(m$positions)) c(SDE_MB_BOX_PARAMS, ".rc", ".rco"))
}

# Has every pair term of a list (their cut-offs, NULL: none) a cut-off?
# Then cell lists find the partners.
sde_mb_cut_all <- function(cuts) length(cuts) > 0 && all(!vapply(cuts, is.null, TRUE))

# How many hidden parameters follow the model's own.
sde_mb_hidden_params <- function(m) {
  if (!isTRUE(m$many)) return(0L)
  length(sde_mb_pnames(m)) - length(m$params)
}

# The box of a run: the sides (one number: every side) of the model's
# positions, checked, as three numbers (unused axes 1).
sde_check_box <- function(box, m, call) {
  pos <- m$positions %||% character()
  if (!length(pos)) {
    if (!is.null(box)) {
      sp_abort(sprintf(paste0("`box` is given, but the model \"%s\" has no positions; declare ",
                              "a particle's coordinates with sde_model(positions = ), or drop ",
                              "`box`."), m$name), call = call)
    }
    return(NULL)
  }
  if (is.null(box)) {
    sp_abort(sprintf(paste0("the model \"%s\" has positions (%s) in a periodic box: give its ",
                            "sides with `box = ` (one number for a cube or square, or %d)."),
                     m$name, paste(pos, collapse = ", "), length(pos)), call = call)
  }
  if (!is.numeric(box) || !(length(box) %in% c(1L, length(pos))) || anyNA(box) ||
      any(!is.finite(box)) || any(box <= 0)) {
    sp_abort(sprintf(paste0("`box` must be %s positive finite number%s (the sides of the box ",
                            "along %s), not %s."),
                     if (length(pos) == 1) "one" else sprintf("1 or %d", length(pos)),
                     if (length(pos) == 1) "" else "s", paste(pos, collapse = ", "),
                     describe(box)), call = call)
  }
  L <- rep_len(as.double(box), length(pos))
  c(L, rep(1, 3 - length(pos)))
}

# The largest cut-off of the dynamics' and of the observables' pair terms
# per condition (rows of `grid`), checked against the box (a cut-off at
# most half the smallest side: the minimum image is the only image within
# it).  A matrix with columns rc and rco (0 where there are none).
sde_mb_cutoffs <- function(m, grid, n, L, call) {
  a <- m$mb
  out <- matrix(0, nrow(grid), 2, dimnames = list(NULL, c("rc", "rco")))
  pos <- m$positions %||% character()
  if (!length(pos)) return(out)
  side <- min(L[seq_along(pos)])
  for (k in 1:2) {
    cuts <- if (k == 1) a$pcut else a$ocut
    for (q in seq_along(cuts)) {
      rc <- cuts[[q]]
      if (is.null(rc)) next
      v <- vapply(seq_len(nrow(grid)), function(c) {
        env <- list2env(c(as.list(grid[c, names(m$params), drop = FALSE]), list(.n = n)),
                        parent = baseenv())
        r <- tryCatch(suppressWarnings(as.double(eval(rc, env))), error = function(e) NA_real_)
        if (length(r) != 1) NA_real_ else r
      }, 0)
      bad <- which(!is.finite(v) | v <= 0)
      if (length(bad)) {
        sp_abort(sprintf(paste0("the cut-off `%s` of a pair term is %s for condition %d; a ",
                                "cut-off must be a positive finite distance."),
                         gsub("\\.n", "n", deparse1(rc)), format(v[bad[1]]), bad[1]), call = call)
      }
      big <- which(2 * v > side)
      if (length(big)) {
        sp_abort(sprintf(paste0("the cut-off `%s` = %s (condition %d) is more than half the ",
                                "box's smallest side (%s): a pair within it could be seen ",
                                "through two images. Give a larger `box` or a smaller cut-off."),
                         gsub("\\.n", "n", deparse1(rc)), format(v[big[1]]), big[1],
                         format(side)), call = call)
      }
      out[, k] <- pmax(out[, k], v)
    }
  }
  out
}

# The graph of a run (sde_run(graph = )): an n x n weight matrix (base, or
# a sparse matrix of the Matrix package) or an edge list (a data frame with
# columns from, to and optionally weight), A[i, j] the weight with which j
# acts on i (an edge from j to i).  Returns the compressed rows of
# in-neighbours the engines read: rowptr (n + 1 offsets), col (0-based,
# ascending in each row), w (weights; empty when all are 1), nnz, unit.
sde_check_graph <- function(graph, m, n, call) {
  uses <- length(m$mb$edges %||% list()) > 0
  bad_nodes <- function() {
    sp_abort(sprintf(paste0("`graph$from` and `graph$to` must be element numbers from 1 to ",
                            "n = %s."), fmt_count(n)), call = call)
  }
  bad_weights <- function() sp_abort("`graph` has weights that are not finite numbers.", call = call)
  if (is.null(graph)) {
    if (uses) {
      sp_abort(sprintf(paste0("the model \"%s\" sums over a graph's edges (edges()): give the ",
                              "graph with `graph = ` (an n x n weight matrix, sparse or dense, ",
                              "or a data frame of edges from, to, weight)."), m$name),
               call = call)
    }
    return(NULL)
  }
  if (!uses) {
    sp_warn(sprintf(paste0("`graph` is ignored: the model \"%s\" has no edges() term (write ",
                           "the coupling as edges(a * f(x[j], x)))."), m$name), call = call,
            class = "statphysgpu_unused_argument")
    return(NULL)
  }
  if (is.data.frame(graph)) {
    if (!all(c("from", "to") %in% names(graph))) {
      sp_abort("`graph` as a data frame needs the columns `from` and `to` (and optionally `weight`).",
               call = call)
    }
    from <- graph$from; to <- graph$to
    w <- if ("weight" %in% names(graph)) graph$weight else rep(1, length(from))
    if (!is.numeric(from) || !is.numeric(to)) bad_nodes() # (the values: checked in C below)
    i <- as.double(to); j <- as.double(from)
    repeated <- "error" # an edge given twice is refused (below, once sorted)
  } else if (inherits(graph, "Matrix")) {
    if (!requireNamespace("Matrix", quietly = TRUE)) {
      sp_abort("`graph` is a Matrix object, but the package Matrix is not installed.", call = call)
    }
    if (!identical(as.double(dim(graph)), c(n, n))) {
      sp_abort(sprintf("`graph` is a %s x %s matrix; the systems have n = %s elements.",
                       fmt_count(nrow(graph)), fmt_count(ncol(graph)), fmt_count(n)), call = call)
    }
    tg <- methods::as(methods::as(graph, "generalMatrix"), "TsparseMatrix")
    i <- tg@i + 1; j <- tg@j + 1
    w <- if (methods::.hasSlot(tg, "x")) as.double(tg@x) else rep(1, length(i))
    repeated <- "add" # a T-matrix may repeat entries: they add
  } else if (is.matrix(graph) && (is.numeric(graph) || is.logical(graph))) {
    if (!identical(as.double(dim(graph)), c(n, n))) {
      sp_abort(sprintf("`graph` is a %s x %s matrix; the systems have n = %s elements.",
                       fmt_count(nrow(graph)), fmt_count(ncol(graph)), fmt_count(n)), call = call)
    }
    if (anyNA(graph)) sp_abort("`graph` has missing (NA) weights.", call = call)
    nz <- which(graph != 0, arr.ind = TRUE)
    i <- as.double(nz[, 1]); j <- as.double(nz[, 2]); w <- as.double(graph[nz])
    repeated <- "none"
  } else {
    sp_abort(sprintf(paste0("`graph` must be an n x n weight matrix (base or Matrix) or a data ",
                            "frame of edges (from, to, weight), not %s."), describe(graph)),
             call = call)
  }
  if (!is.numeric(w) && !is.logical(w)) bad_weights()
  if (length(i) > .Machine$integer.max - 1) {
    sp_abort(sprintf("`graph` has %s edges; at most %s.", fmt_count(length(i)),
                     fmt_count(.Machine$integer.max - 1)), call = call)
  }
  # sorted by target, then source (a counting sort and sorted rows in C: 1e7 edges
  # in a fraction of a second; duplicated() on the pairs took 50 s), repeated
  # edges added or refused, zero weights dropped (src/core/sp_graph.c)
  code <- c(none = 0L, error = 1L, add = 2L)[[repeated]]
  r <- .Call(C_sp_r_graph_csr, as.double(n), as.double(i), as.double(j), as.double(w), code)
  if (length(r) == 2) { # list(what, edge): a node number (1) or a weight (2) is bad
    if (r[[1]] == 1) bad_nodes() else bad_weights()
  }
  if (r[[5]] > 0) {
    d <- r[[5]]
    sp_abort(sprintf(paste0("`graph` has the edge from %s to %s twice; give each edge once ",
                            "(with the sum of its weights)."), fmt_count(j[d]), fmt_count(i[d])),
             call = call)
  }
  unit <- all(r[[3]] == 1)
  list(rowptr = r[[1]], col = r[[2]], w = if (unit) numeric() else r[[3]], nnz = as.integer(r[[4]]),
       unit = unit)
}

# ---- g(r) ------------------------------------------------------------------------

# The checked r_max and bins of output = "rdf".
sde_check_rdf <- function(m, L, bins, r_max, call) {
  pos <- m$positions %||% character()
  if (!length(pos)) {
    sp_abort(sprintf(paste0("output = \"rdf\" is the radial distribution function of particles: ",
                            "the model \"%s\" has no positions (sde_model(positions = ))."),
                     m$name), call = call)
  }
  side <- min(L[seq_along(pos)])
  bins <- if (is.null(bins)) 100 else check_whole(bins, "bins", lo = 1, hi = 1e6, call = call)
  if (is.null(r_max)) r_max <- side / 2
  r_max <- check_positive(r_max, "r_max", len = 1, call = call)
  if (!is.finite(r_max) || r_max > side / 2 * (1 + 1e-12)) {
    sp_abort(sprintf(paste0("`r_max` (%s) must be at most half the box's smallest side (%s): ",
                            "beyond it a pair is seen through two images."), format(r_max),
                     format(side / 2)), call = call)
  }
  list(bins = bins, r_max = min(r_max, side / 2))
}

# g(r) from the engine's counts: per system, the pairs counted in each
# shell over nrec records, against an ideal gas of the same density, whose
# N (N - 1) / 2 pairs fall in a shell in proportion to its volume: g =
# count / (nrec N (N - 1) / 2 shell / V).  The mean over the systems of a
# condition and its standard error across them (NA for one system).
sde_rdf_frame <- function(counts, nsys_cond, ncond, grid, swept, bins, r_max, n, L, dim, nrec) {
  edges <- seq(0, r_max, length.out = bins + 1)
  shell <- switch(dim, 2 * diff(edges), pi * diff(edges^2), 4 / 3 * pi * diff(edges^3))
  V <- prod(L[seq_len(dim)])
  norm <- nrec * n * (n - 1) / 2 * shell / V
  cnt <- matrix(counts, nrow = bins) # columns: systems, condition-major
  rows <- list()
  for (c in seq_len(ncond)) {
    g <- cnt[, (c - 1) * nsys_cond + seq_len(nsys_cond), drop = FALSE] / norm
    k <- ncol(g)
    rows[[c]] <- data.frame(condition = c, r = (edges[-1] + edges[-(bins + 1)]) / 2,
                            r_lo = edges[-(bins + 1)], r_hi = edges[-1],
                            g = rowMeans(g),
                            se = if (k > 1) apply(g, 1, stats::sd) / sqrt(k) else NA_real_,
                            pairs = rowSums(cnt[, (c - 1) * nsys_cond + seq_len(nsys_cond),
                                                drop = FALSE]))
  }
  d <- do.call(rbind, rows)
  cols <- c(list(condition = d$condition), sde_param_cols(grid, swept, d$condition),
            list(r = d$r, r_lo = d$r_lo, r_hi = d$r_hi, g = d$g, se = d$se, pairs = d$pairs))
  new_df(cols)
}

#' @export
print.sde_rdf <- function(x, ...) {
  cat(sprintf(paste0("<sde_rdf> model \"%s\": g(r) of n = %s particles in a box %s, %s bins of ",
                     "[0, %s), %s systems x %s records%s\n"),
              attr(x, "model"), fmt_count(attr(x, "n")),
              paste(format(attr(x, "box")), collapse = " x "), fmt_count(attr(x, "bins")),
              format(attr(x, "r_max")), fmt_count(attr(x, "replicas")),
              fmt_count(attr(x, "records_used")),
              if (length(unique(x$condition)) > 1)
                sprintf(", %d conditions", length(unique(x$condition))) else ""))
  print(utils::head(as.data.frame(x), 10), row.names = FALSE)
  if (nrow(x) > 10) cat(sprintf("... %s rows\n", fmt_count(nrow(x))))
  invisible(x)
}

#' @export
plot.sde_rdf <- function(x, ...) {
  conds <- unique(x$condition)
  ylim <- range(c(0, x$g + ifelse(is.na(x$se), 0, 2 * x$se)), finite = TRUE)
  args <- list(...)
  for (k in seq_along(conds)) {
    d <- x[x$condition == conds[k], , drop = FALSE]
    if (k == 1) {
      do.call(graphics::plot, c(list(d$r, d$g, type = "l", ylim = ylim, xlab = "r",
                                     ylab = "g(r)", col = k,
                                     main = sprintf("radial distribution, model \"%s\"",
                                                    attr(x, "model"))), args))
      graphics::abline(h = 1, lty = 3, col = "grey50")
    } else {
      graphics::lines(d$r, d$g, col = k)
    }
    ok <- !is.na(d$se)
    if (any(ok)) {
      graphics::polygon(c(d$r[ok], rev(d$r[ok])), c(d$g[ok] - 2 * d$se[ok], rev(d$g[ok] + 2 * d$se[ok])),
                        col = grDevices::adjustcolor(k, 0.2), border = NA)
    }
  }
  if (length(conds) > 1) graphics::legend("topright", legend = paste("condition", conds),
                                          col = seq_along(conds), lty = 1, bty = "n")
  invisible(x)
}

#' @rdname sde_run
#' @param object An `sde_rdf` result (output = "rdf").
#' @param ... Unused (the generic's further arguments).
#' @exportS3Method ggplot2::autoplot
autoplot.sde_rdf <- function(object, ...) {
  d <- as.data.frame(object)
  d$condition <- factor(d$condition)
  d$lo <- d$g - 2 * d$se
  d$hi <- d$g + 2 * d$se
  ggplot2::ggplot(d, ggplot2::aes(x = .data$r, y = .data$g, colour = .data$condition,
                                  fill = .data$condition)) +
    ggplot2::geom_hline(yintercept = 1, linetype = 3, colour = "grey50") +
    ggplot2::geom_ribbon(ggplot2::aes(ymin = .data$lo, ymax = .data$hi), alpha = 0.2,
                         colour = NA, na.rm = TRUE) +
    ggplot2::geom_line() +
    ggplot2::labs(x = "r", y = "g(r)", colour = "condition", fill = "condition",
                  title = sprintf("radial distribution, model \"%s\"", attr(object, "model")))
}

#' @export
as.data.frame.sde_rdf <- function(x, ...) {
  attributes(x) <- attributes(x)[c("names", "row.names")]
  class(x) <- "data.frame"
  x
}

# The job's fields of issue 49 (mb_args.h): pair, edge and observable pair
# terms, the positions and the box's parameters, the cell lists, the graph,
# g(r).
sde_mb_space_job <- function(m, g, rdf) {
  a <- m$mb
  pos <- m$positions %||% character()
  pnames <- sde_mb_pnames(m)
  px <- match(pos, m$states) - 1L
  list(nqp = length(a$pairs), ng = length(a$edges), nqo = length(a$opairs),
       posd = length(pos), px0 = if (length(px) >= 1) px[1] else -1,
       px1 = if (length(px) >= 2) px[2] else -1, px2 = if (length(px) >= 3) px[3] else -1,
       box = if (length(pos)) match(".bx", pnames) - 1 else -1,
       rc = if (length(pos)) match(".rc", pnames) - 1 else -1,
       rco = if (length(pos)) match(".rco", pnames) - 1 else -1,
       cut = as.integer(length(pos) > 0 && sde_mb_cut_all(a$pcut) && isTRUE(sp_tuning("mb_cells"))),
       cuto = as.integer(length(pos) > 0 && sde_mb_cut_all(a$ocut) && isTRUE(sp_tuning("mb_cells"))),
       nnz = g$nnz %||% 0, graph_unit = as.integer(isTRUE(g$unit)),
       rdf_bins = rdf$bins %||% 0, rdf_rmax = rdf$r_max %||% 0)
}

# The length of a model's pair functions in its C (mb_pair and
# mb_pair_obs): how much one pair costs the compiler.
sde_mb_pair_size <- function(m) {
  L <- strsplit(m$code, "\n", fixed = TRUE)[[1]]
  sum(nchar(grep("^ +acc\\[", L, value = TRUE)))
}

# Even whole powers of a pair's distance as powers of its square (r^-12 =
# r2^-6: no square root where the terms need none; the same value to
# rounding).
sde_r2_powers <- function(e) {
  if (!is.call(e)) return(e)
  if (identical(e[[1]], as.name("^")) && identical(e[[2]], as.name(".r"))) {
    k <- e[[3]]
    while (is.call(k) && identical(k[[1]], as.name("(")) && length(k) == 2) k <- k[[2]]
    if (is.call(k) && identical(k[[1]], as.name("-")) && length(k) == 2 && is.numeric(k[[2]])) {
      k <- -k[[2]]
    }
    if (is.numeric(k) && length(k) == 1 && k == round(k) && k %% 2 == 0 && abs(k) <= 64) {
      return(if (k == 2) as.name(".r2") else call("^", as.name(".r2"), k / 2))
    }
  }
  for (j in seq_along(e)[-1]) {
    if (!identical(e[[j]], quote(expr = ))) e[[j]] <- sde_r2_powers(e[[j]])
  }
  e
}
