# Methods for the results of kuramoto() (class "kuramoto_run": one row per
# (condition, replica, record), columns condition, K, beta, theta, replica,
# step, time, r, psi; final phases in attribute phases).

# The parameters of a result (attribute `params`), with the names of the
# vocabulary of issue 23 also for results of earlier versions (gamma, T,
# omega, omega_dist).
kuramoto_params <- function(x) {
  p <- attr(x, "params")
  old <- c(gamma = "beta", T = "theta", omega = "frequencies", omega_dist = "frequencies_dist")
  hit <- names(p) %in% names(old) & !(old[names(p)] %in% names(p))
  names(p)[hit] <- old[names(p)[hit]]
  p
}

# The final phases of a result (attribute `theta` in earlier versions).
kuramoto_phases <- function(x) attr(x, "phases") %||% attr(x, "theta")

kuramoto_header <- function(x) {
  p <- kuramoto_params(x)
  if (is.null(p)) return(NULL)
  om <- p$frequencies_dist
  freq <- if (!is.null(om)) {
    if (om$law == "lorentz") sprintf("Lorentzian frequencies (half width %s)", format(om$width))
    else sprintf("normal frequencies (sd %s)", format(om$sd))
  } else if (kuramoto_omega_constant(p)) sprintf("frequencies = %s", format(p$frequencies[1]))
  else "frequencies given"
  sprintf("N = %s oscillators, %s coupling%s, %s, beta = %s, theta = %s, dt = %s%s",
          fmt_count(p$n), gsub("_", " ", p$coupling),
          if (!is.null(p$matrix)) paste0(" (", p$matrix, ")") else "", freq,
          kuramoto_fmt_axis(p$beta), kuramoto_fmt_axis(p$theta), format(p$dt),
          if (identical(p$method, "euler")) ", Euler-Maruyama" else "")
}

# A parameter of the grid in the header: its value, or c(...) of a sweep's.
kuramoto_fmt_axis <- function(v) {
  if (length(v) == 1) format(v) else paste0("c(", paste(format(v), collapse = ", "), ")")
}

# The columns beta and theta of a result's rows (results of earlier versions
# have K only: their one beta and theta from `params`).
kuramoto_rows <- function(x) {
  d <- as.data.frame.kuramoto_run(x)
  p <- kuramoto_params(x)
  for (a in c("beta", "theta")) if (is.null(d[[a]])) d[[a]] <- rep(p[[a]][1] %||% NA_real_, nrow(d))
  d
}

# Labels of conditions (rows of d with K, beta, theta): the parameters that
# vary among them (K when none does).
kuramoto_labels <- function(d) {
  vary <- c("K", "beta", "theta")[vapply(c("K", "beta", "theta"),
                                         function(a) length(unique(d[[a]])) > 1, TRUE)]
  if (!length(vary)) vary <- "K"
  do.call(paste, c(lapply(vary, function(a) paste(a, "=", format(d[[a]]))), sep = ", "))
}

#' @rdname summary.kuramoto_run
#' @param x A result of [kuramoto()] (`print()`), or its summary.
#' @param n Rows to show.
#' @export
print.kuramoto_run <- function(x, n = 6, ...) {
  p <- kuramoto_params(x)
  nsys <- nrow(unique(x[c("condition", "replica")]))
  cli::cat_line(sprintf("<kuramoto_run> %s records of %s system%s (%s condition%s)",
                        fmt_count(nrow(x)), fmt_count(nsys), if (nsys == 1) "" else "s",
                        fmt_count(length(unique(x$condition))),
                        if (length(unique(x$condition)) == 1) "" else "s"))
  h <- kuramoto_header(x)
  if (!is.null(h)) cat(h, "\n", sep = "")
  if (!is.null(p)) {
    cat(sprintf("%s of %s steps%s, recorded every %s | %s precision\n",
                fmt_count(attr(x, "steps_done") %||% p$steps), fmt_count(p$steps),
                if (isTRUE(p$step0 > 0)) sprintf(" (a continuation from step %s)",
                                                 fmt_count(p$step0)) else "",
                fmt_count(p$record_every), attr(x, "precision") %||% "?"))
  }
  if (!is.null(attr(x, "backend"))) {
    cat(sprintf("backend: %s [%s] | seed %s | %.3g s\n",
                paste(attr(x, "backend"), collapse = " + "),
                paste(attr(x, "devices"), collapse = ", "), attr(x, "seed_hex") %||% "?",
                attr(x, "seconds") %||% NA_real_))
  }
  if (isTRUE(attr(x, "interrupted"))) cat("interrupted: the records up to the step reached\n")
  if (nrow(x) > 0) print(fmt_whole_cols(utils::head(as.data.frame.kuramoto_run(x), n)),
                         digits = 5, ...)
  if (nrow(x) > n) cat(sprintf("... %s more rows\n", fmt_count(nrow(x) - n)))
  cat("Use summary() for the stationary r; plot() for r(t) and r against K.\n")
  invisible(x)
}

#' Stationary order parameter of a Kuramoto run
#'
#' For each condition (values of `K`, `beta`, `theta`): the stationary order parameter, the
#' mean of \eqn{r(t)} over the records from the fraction `from` of the run
#' on (the second half by default) and over the replicas, with its standard
#' error `se`, found in one of two ways, named in the column `se_method`:
#' * `"blocking"`: by reblocking over time ([blocking_se()], optimal
#'   level): each replica's records are one correlated chain, the replicas
#'   independent chains, combined as [reblock()] does. This is used when
#'   the records are many enough for the optimal-block criterion.
#' * `"replicas"`: otherwise, with two or more replicas, from the spread
#'   between the replicas: the standard error of the mean of the replicas'
#'   means, \eqn{\mathrm{sd}(\bar r_j)/\sqrt m} for \eqn{m} replicas
#'   (independent systems, so no assumption on the correlation in time; with
#'   few replicas it is itself uncertain, by a factor of about
#'   \eqn{1 \pm 1/\sqrt{2(m-1)}}).
#'
#' With one replica whose records are too few or too correlated for the
#' criterion, `se` is `NA` (run longer, record less often or run more
#' replicas). `se_naive`, the error of independent records, a lower bound,
#' is always given. `theory` is [kuramoto_r_theory()] where it has a
#' closed form (Lorentzian frequencies from [kuramoto_lorentz()] at `theta
#' = 0`, or identical frequencies with noise; with the condition's
#' `theta`), else `NA`; finite-\eqn{N}
#' systems fluctuate about it by about \eqn{N^{-1/2}} (more near \eqn{K_c}).
#'
#' @param object A result of [kuramoto()].
#' @param from Fraction of the run after which records count (0 to 1).
#' @param ... Unused (`summary()`); passed to [print.data.frame()]
#'   (`print()`).
#' @return A data frame of class `summary.kuramoto_run`, one row per
#'   condition: `condition`, `K`, `beta`, `theta`, `r`, `se`, `se_method` (`"blocking"`,
#'   `"replicas"` or `NA`), `se_naive`, `replicas`, `records` (per
#'   replica), `theory`.
#' @examples
#' x <- kuramoto(200, K = c(1, 3), frequencies = kuramoto_lorentz(0.5), dt = 0.05,
#'               steps = 400, replicas = 2, record_every = 5, seed = 1,
#'               backend = "cpu")
#' summary(x)
#' @export
summary.kuramoto_run <- function(object, from = 0.5, ...) {
  call <- sys.call()
  from <- check_range(from, "from", 0, 1, hi_open = TRUE, len = 1, call = call)
  p <- kuramoto_params(object)
  d <- kuramoto_rows(object)
  t_end <- if (nrow(d)) max(d$time) else 0
  d <- d[d$time >= from * t_end, , drop = FALSE]
  conds <- sort(unique(d$condition))
  rows <- lapply(conds, function(c) {
    dc <- d[d$condition == c, , drop = FALSE]
    dc <- dc[order(dc$replica, dc$step), , drop = FALSE]
    chains <- split(dc$r, dc$replica)
    se <- NA_real_
    ok <- chains[vapply(chains, function(y) length(y) >= BLOCKING_MIN_LEN && any(y != y[1]), TRUE)]
    if (length(ok)) {
      se <- tryCatch(withCallingHandlers(
        as.numeric(blocking_se(ok)),
        statphysgpu_blocking_warning = function(w) invokeRestart("muffleWarning")),
        error = function(e) NA_real_)
    }
    how <- if (is.na(se)) NA_character_ else "blocking"
    if (is.na(se) && length(chains) >= 2) {
      # independent replicas: the spread of their means
      se <- stats::sd(vapply(chains, mean, 0)) / sqrt(length(chains))
      how <- "replicas"
    }
    naive <- if (length(dc$r) > 1) {
      # independent records, replicas weighted by their share
      w <- lengths(chains) / length(dc$r)
      sqrt(sum(w^2 * vapply(chains, function(y) if (length(y) > 1) stats::var(y) / length(y) else NA_real_, 0)))
    } else NA_real_
    data.frame(condition = c, K = dc$K[1], beta = dc$beta[1], theta = dc$theta[1],
               r = mean(dc$r), se = se, se_method = how,
               se_naive = naive, replicas = length(chains), records = max(lengths(chains)))
  })
  out <- if (length(rows)) do.call(rbind, rows) else
    data.frame(condition = integer(), K = double(), beta = double(), theta = double(),
               r = double(), se = double(),
               se_method = character(), se_naive = double(), replicas = integer(),
               records = integer())
  out$theory <- kuramoto_theory_for(out$K, p, out$theta)
  rownames(out) <- NULL
  attr(out, "from") <- from
  attr(out, "params") <- p
  class(out) <- c("summary.kuramoto_run", "data.frame")
  out
}

# Theory r(K) for a run's parameters where kuramoto_r_theory() has it, at
# temperatures theta (one per K, or one for all).
kuramoto_theory_for <- function(K, p, theta = p$theta) {
  if (is.null(p) || length(K) == 0) return(rep(NA_real_, length(K)))
  om <- p$frequencies_dist
  if (p$coupling == "matrix") return(rep(NA_real_, length(K)))
  theta <- rep_len(theta, length(K))
  lorentz <- !is.null(om) && om$law == "lorentz"
  same <- kuramoto_omega_constant(p)
  vapply(seq_along(K), function(i) {
    if (lorentz && theta[i] == 0) return(kuramoto_r_theory(K[i], width = om$width))
    if (same && theta[i] > 0) return(kuramoto_r_theory(K[i], theta = theta[i]))
    NA_real_
  }, 0)
}

# All frequencies equal: one number, or a vector of one value (one pass, no
# copy: unique() of 2^24 values would cost a second); a law is not.
kuramoto_omega_constant <- function(p) {
  if (!is.null(p$frequencies_dist) || length(p$frequencies) == 0) return(FALSE)
  min(p$frequencies) == max(p$frequencies)
}

#' @rdname summary.kuramoto_run
#' @param digits Significant digits to print.
#' @export
print.summary.kuramoto_run <- function(x, digits = 4, ...) {
  h <- kuramoto_header(structure(list(), params = attr(x, "params")))
  if (!is.null(h)) cat(h, "\n", sep = "")
  cat(sprintf(paste0("Stationary r: mean over the records from %s per cent of the run on ",
                     "and the replicas; se (standard error) by reblocking each replica's ",
                     "records over time, or, where they are too few for that, from the ",
                     "spread of the replicas' means, sd / sqrt(replicas) (column ",
                     "se_method)\n"),
              format(100 * attr(x, "from"))))
  print(as.data.frame(unclass(x)), digits = digits, row.names = FALSE, ...)
  if (anyNA(x$se)) {
    cat(paste0("se is NA where one replica's records are too few for their correlation ",
               "(run longer or more replicas); se_naive is a lower bound.\n"))
  }
  invisible(x)
}

#' Plot a Kuramoto run
#'
#' `which = "r"` draws \eqn{r(t)}, one line per system (at most 20;
#' conditions in colour); `"K"` the stationary \eqn{r} against \eqn{K}
#' (the phase diagram, [summary.kuramoto_run()], with error bars of two
#' standard errors and the theory where it has a closed form; one series per
#' value of `beta` and `theta` in a sweep of them); `"density"`
#' the phase density \eqn{P(x; t)} of the first system as an image, as in
#' Januszewski and Kostur's (2010) Fig. 4 (needs `bins > 0`).
#'
#' @param x,object A result of [kuramoto()].
#' @param which `"r"`, `"K"` or `"density"`.
#' @param ... Passed to [plot()] (base graphics).
#' @return `plot()`: `x`, invisibly; `autoplot()`: a ggplot object.
#' @references
#' Januszewski, M. and Kostur, M. (2010) Accelerating numerical
#'   solution of stochastic differential equations with CUDA. *Computer
#'   Physics Communications* 181, 183-188. \doi{10.1016/j.cpc.2009.09.009}
#' @examples
#' x <- kuramoto(200, K = c(0.5, 2, 4), theta = 0.5, dt = 0.02, steps = 300,
#'               record_every = 5, bins = 32, seed = 1, backend = "cpu")
#' plot(x)
#' plot(x, which = "K")
#' plot(x, which = "density")
#' if (requireNamespace("ggplot2", quietly = TRUE)) ggplot2::autoplot(x)
#' @export
plot.kuramoto_run <- function(x, which = c("r", "K", "density"), ...) {
  call <- sys.call()
  which <- check_choice(which, c("r", "K", "density"), "which", call = call)
  if (which == "r") {
    d <- kuramoto_rows(x)
    sys <- unique(d[c("condition", "replica")])
    sys <- sys[seq_len(min(nrow(sys), 20)), , drop = FALSE]
    conds <- unique(sys$condition)
    cols <- grDevices::hcl.colors(max(length(conds), 2), "Dark 3")[seq_along(conds)]
    graphics::plot(NA, xlim = range(d$time), ylim = c(0, 1), xlab = "t",
                   ylab = "order parameter r", main = "r(t)", ...)
    for (k in seq_len(nrow(sys))) {
      s <- d[d$condition == sys$condition[k] & d$replica == sys$replica[k], ]
      graphics::lines(s$time, s$r, col = cols[match(sys$condition[k], conds)])
    }
    graphics::legend("bottomright", legend = kuramoto_labels(d[match(conds, d$condition), ]),
                     col = cols, lwd = 1, bty = "n", cex = 0.8)
  } else if (which == "K") {
    s <- summary.kuramoto_run(x)
    err <- ifelse(is.na(s$se), s$se_naive, s$se)
    # one series per (beta, theta) of the grid
    series <- interaction(s$beta, s$theta, drop = TRUE, lex.order = TRUE)
    cols <- grDevices::hcl.colors(max(nlevels(series), 2), "Dark 3")[seq_len(nlevels(series))]
    graphics::plot(s$K, s$r, ylim = c(0, 1), pch = 19, col = cols[series], xlab = "K",
                   ylab = "stationary r", main = "Phase diagram", ...)
    ok <- is.finite(err) & err > 0
    if (any(ok)) {
      graphics::arrows(s$K[ok], s$r[ok] - 2 * err[ok], s$K[ok], s$r[ok] + 2 * err[ok],
                       angle = 90, code = 3, length = 0.03, col = cols[series][ok])
    }
    for (l in seq_len(nlevels(series))) {
      si <- s[series == levels(series)[l], , drop = FALSE]
      if (any(is.finite(si$theory))) {
        kk <- seq(min(s$K), max(s$K), length.out = 200)
        graphics::lines(kk, kuramoto_theory_for(kk, kuramoto_params(x), si$theta[1]), lty = 2,
                        col = cols[l])
      }
    }
    if (nlevels(series) > 1) {
      first <- s[match(levels(series), series), , drop = FALSE]
      graphics::legend("bottomright", legend = sprintf("beta = %s, theta = %s",
                                                       format(first$beta), format(first$theta)),
                       col = cols, pch = 19, bty = "n", cex = 0.8)
    }
  } else {
    dens <- kuramoto_density(x, call)
    graphics::image(dens$time, dens$x, t(dens$p), xlab = "t", ylab = "x (mod 2 pi)",
                    main = "P(x; t)", col = grDevices::hcl.colors(64, "viridis"), ...)
  }
  invisible(x)
}

kuramoto_density <- function(x, call) {
  h <- attr(x, "hist")
  if (is.null(h)) {
    sp_abort("this result has no phase histograms: run kuramoto(..., bins = 64).", call = call)
  }
  p <- attr(x, "params")
  nrec <- dim(h)[2]
  m <- h[, , 1, drop = TRUE]
  if (is.null(dim(m))) m <- matrix(m, ncol = nrec)
  width <- 2 * pi / dim(h)[1]
  keep <- colSums(m) > 0
  list(x = (seq_len(dim(h)[1]) - 0.5) * width,
       time = ((seq_len(nrec) - 1) * p$record_every * p$dt)[keep],
       p = sweep(m[, keep, drop = FALSE], 2, colSums(m[, keep, drop = FALSE]) * width, "/"))
}

#' @rdname plot.kuramoto_run
#' @exportS3Method ggplot2::autoplot
autoplot.kuramoto_run <- function(object, which = c("r", "K"), ...) {
  call <- sys.call()
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    sp_abort("autoplot() needs the ggplot2 package.")
  }
  which <- check_choice(which, c("r", "K"), "which", call = call)
  if (which == "r") {
    d <- kuramoto_rows(object)
    d$system <- interaction(d$condition, d$replica)
    d$condition <- factor(kuramoto_labels(d), unique(kuramoto_labels(d)))
    return(ggplot2::ggplot(d, ggplot2::aes(x = .data$time, y = .data$r, group = .data$system,
                                           colour = .data$condition)) +
             ggplot2::geom_line() + ggplot2::ylim(0, 1) +
             ggplot2::labs(x = "t", y = "order parameter r", colour = NULL))
  }
  s <- as.data.frame(unclass(summary.kuramoto_run(object)))
  s$err <- ifelse(is.na(s$se), s$se_naive, s$se)
  s$series <- factor(sprintf("beta = %s, theta = %s", format(s$beta), format(s$theta)))
  g <- ggplot2::ggplot(s, ggplot2::aes(x = .data$K, y = .data$r, colour = .data$series)) +
    ggplot2::geom_pointrange(ggplot2::aes(ymin = .data$r - 2 * .data$err,
                                          ymax = .data$r + 2 * .data$err)) +
    ggplot2::labs(x = "K", y = "stationary r", colour = NULL)
  if (any(is.finite(s$theory))) {
    kk <- seq(min(s$K), max(s$K), length.out = 200)
    th <- do.call(rbind, lapply(split(s, s$series), function(si) {
      data.frame(K = kk, r = kuramoto_theory_for(kk, kuramoto_params(object), si$theta[1]),
                 series = si$series[1])
    }))
    g <- g + ggplot2::geom_line(data = th[is.finite(th$r), , drop = FALSE], linetype = 2)
  }
  g
}

#' Combine chunks of one Kuramoto study
#'
#' Results of [kuramoto()] with the same seed and parameters, run as chunks
#' of replicas (`first_replica`), combine into the result of one call: rows
#' ordered by condition, replica and step; the final phases (attribute
#' `phases`) and histograms in the same system order. A (condition, replica)
#' present twice is an error, and parts of other runs (another seed,
#' parameters, conditions, precision, start or steps made) are refused with an error of class `statphysgpu_rbind_error` that names the setting that differs.
#' `as.data.frame()` drops the attributes.
#'
#' @param ... Results of [kuramoto()] (`rbind()`); unused (`as.data.frame()`).
#' @param deparse.level Unused.
#' @return `rbind()`: one `kuramoto_run`; `as.data.frame()`: a data frame.
#' @examples
#' a <- kuramoto(50, K = 2, dt = 0.05, steps = 20, replicas = 2, seed = 1,
#'               backend = "cpu")
#' b <- kuramoto(50, K = 2, dt = 0.05, steps = 20, replicas = 2, seed = 1,
#'               first_replica = 3, backend = "cpu")
#' whole <- kuramoto(50, K = 2, dt = 0.05, steps = 20, replicas = 4, seed = 1,
#'                   backend = "cpu")
#' all.equal(as.data.frame(rbind(a, b)), as.data.frame(whole))
#' @export
rbind.kuramoto_run <- function(..., deparse.level = 1) {
  parts <- list(...)
  parts <- parts[!vapply(parts, is.null, TRUE)]
  ok <- vapply(parts, function(p) inherits(p, "kuramoto_run") && !is.null(kuramoto_phases(p)), TRUE)
  if (!all(ok)) {
    sp_abort(sprintf("rbind() of kuramoto() results needs results of kuramoto(); argument %d is not one.",
                     which(!ok)[1]))
  }
  rbind_same(parts, "kuramoto()", paste0(
    "chunks of one run: the same seed, parameters, precision, start and steps made in ",
    "every part (other replicas: `first_replica`)"),
    list(seed = "seed_hex", precision = "precision",
         `the parameters (attribute params)` = kuramoto_params,
         `the conditions` = "conditions", `the start (init)` = "init",
         `the steps made` = "steps_done"))
  systems <- do.call(rbind, lapply(parts, attr, "systems"))
  if (anyDuplicated(systems[c("condition", "replica")])) {
    rbind_abort(paste0("rbind() of kuramoto() results: a (condition, replica) is in two ",
                       "parts (the chunks overlap; check `first_replica`)."))
  }
  o <- order(systems$condition, systems$replica)
  rows <- do.call(rbind, lapply(parts, as.data.frame.kuramoto_run))
  rows <- rows[order(rows$condition, rows$replica, rows$step), , drop = FALSE]
  rownames(rows) <- NULL
  phases <- do.call(cbind, lapply(parts, kuramoto_phases))[, o, drop = FALSE]
  out <- rows
  attributes(out) <- c(attributes(rows)[c("names", "row.names")],
                       attributes(parts[[1]])[setdiff(names(attributes(parts[[1]])),
                                                      c("names", "row.names", "class"))])
  attr(out, "theta") <- NULL # results of earlier versions
  attr(out, "phases") <- phases
  attr(out, "params") <- kuramoto_params(parts[[1]])
  sys_o <- systems[o, , drop = FALSE]
  rownames(sys_o) <- NULL
  attr(out, "systems") <- sys_o
  if (!is.null(attr(parts[[1]], "hist"))) {
    hs <- lapply(parts, attr, "hist")
    d <- dim(hs[[1]])
    h <- array(unlist(hs), c(d[1], d[2], sum(vapply(hs, function(a) dim(a)[3], 0))))
    attr(out, "hist") <- h[, , o, drop = FALSE]
  }
  attr(out, "replicas") <- as.double(length(unique(sys_o$replica)))
  attr(out, "first_replica") <- min(sys_o$replica)
  attr(out, "seconds") <- sum(vapply(parts, function(p) attr(p, "seconds") %||% 0, 0))
  attr(out, "interrupted") <- any(vapply(parts, function(p) isTRUE(attr(p, "interrupted")), TRUE))
  class(out) <- c("kuramoto_run", "data.frame")
  # a combination of unmodified chunks continues as one run (a chunk
  # modified after its run leaves it unsealed: refused by a continuation)
  sp_old_attrs(sp_reseal(out, parts, KURAMOTO_SEALED))
}

#' @rdname rbind.kuramoto_run
#' @param x A result of [kuramoto()].
#' @export
as.data.frame.kuramoto_run <- function(x, ...) {
  out <- as.data.frame(unclass(x)[names(x)], stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}
