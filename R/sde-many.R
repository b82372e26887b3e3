# Many-body models: systems of n coupled elements (issue 33).  A model is
# "many-body" when its equations use what only systems have -- reductions
# mean(e) and sum(e) over the elements of the system, pair sums pairs(e)
# with x[j] the partner's value, lattice neighbours x[i + 1], x[i - 1], the
# element's number i or the size n, or parameters per element.  This file
# analyses such a model (sde_mb_analyse()) into element-local pieces and
# writes its physics header (sde_mb_header()): the same C for the CPU
# object and the GPU kernels (inst/cuda/mb_engine.h, mb.cu, mb_cpu.h).
#
# The analysis rewrites each right-hand side bottom-up (sde_fold()) into an
# expression over placeholder names the user cannot write (they hold a dot):
#   .R<r>         the sum over the elements of reduction term r (mean: / n)
#   .Q<q>         the sum over the partners j != i of pair term q
#   .xj_<s>       state s of the partner j (inside pairs() only)
#   .ej_<e>       element parameter e of the partner
#   .nb_<s>_<d>   state s of the neighbour at offset d (m1 = -1, p2 = +2)
#   .i, .j, .n    the element's number, the partner's, the system's size
# and the checked rest is translated by sde_to_c() with a map per function.

SDE_MB_REDUCTIONS <- c("mean", "sum", "pairs", "edges")
SDE_MB_LATTICES <- c("none", "chain", "ring", "square")
SDE_MB_DRAWS <- c("runif", "rnorm", "rcauchy")

# Does an expression use anything only a many-body model has?
sde_mb_uses <- function(e, elements = character()) {
  if (is.null(e)) return(FALSE)
  a <- all.names(e)
  any(a %in% c(SDE_MB_REDUCTIONS, "[", "i", "j", "n", elements))
}

# Placeholder names.
mb_nb_name <- function(s, d, d2 = NULL) {
  one <- function(d) sprintf("%s%d", if (d < 0) "m" else "p", abs(d))
  if (is.null(d2)) sprintf(".nb_%s_%s", s, one(d)) else sprintf(".nb_%s_%s_%s", s, one(d), one(d2))
}

# The analysis: list(drift, noise, stop, observe (rewritten), terms (the
# reduction terms, rewritten; `dyn` of them used by drift or noise), pairs
# (pair terms), reach (largest neighbour offset), uses (flags)).
sde_mb_analyse <- function(m, call) {
  states <- m$states
  elements <- names(m$elements)
  params <- names(m$params)
  lattice <- m$lattice
  reg <- new.env(parent = emptyenv())
  reg$terms <- list(); reg$tkeys <- character()
  reg$pairs <- list(); reg$pkeys <- character(); reg$pcut <- list()
  reg$opairs <- list(); reg$okeys <- character(); reg$ocut <- list()
  reg$edges <- list(); reg$ekeys <- character()
  reg$reach <- 0L
  positions <- m$positions %||% character()
  has_pos <- length(positions) > 0
  # register expression e in list `what` (terms or pairs) once; its
  # placeholder .R<r> or .Q<q>
  add <- function(e, what, keys, prefix) {
    k <- paste(deparse(e, width.cutoff = 500L), collapse = " ")
    r <- match(k, reg[[keys]])
    if (is.na(r)) {
      reg[[keys]] <- c(reg[[keys]], k)
      reg[[what]][[length(reg[[what]]) + 1L]] <- e
      r <- length(reg[[keys]])
    }
    as.name(sprintf("%s%d", prefix, r - 1L))
  }
  add_term <- function(e) add(e, "terms", "tkeys", ".R")
  # a pair term with its cut-off (NULL: none; the key holds both)
  add_cut <- function(e, rc, what, keys, cuts, prefix) {
    k <- paste(c(deparse(e, width.cutoff = 500L), "| cutoff",
                 if (!is.null(rc)) deparse(rc, width.cutoff = 500L)), collapse = " ")
    r <- match(k, reg[[keys]])
    if (is.na(r)) {
      reg[[keys]] <- c(reg[[keys]], k)
      reg[[what]][[length(reg[[what]]) + 1L]] <- e
      reg[[cuts]][length(reg[[keys]])] <- list(rc)
      r <- length(reg[[keys]])
    }
    as.name(sprintf("%s%d", prefix, r - 1L))
  }
  add_pair <- function(e, rc = NULL) add_cut(e, rc, "pairs", "pkeys", "pcut", ".Q")
  add_opair <- function(e, rc = NULL) add_cut(e, rc, "opairs", "okeys", "ocut", ".O")
  add_edge <- function(e) add(e, "edges", "ekeys", ".E")
  known <- c(states, elements, params, "t", "pi", "i", "j", "n")
  # one right-hand side; `level`: "element" (drift, noise) or "system"
  # (observables, stop)
  rewrite <- function(e, what, level) {
    flags <- function(e, own = FALSE, xj = FALSE, red = FALSE, nb = FALSE, jn = FALSE,
                      wt = FALSE, opair = FALSE) {
      list(e = e, own = own, xj = xj, red = red, nb = nb, jn = jn, wt = wt, opair = opair)
    }
    leaf <- function(x) {
      if (is.numeric(x) || is.logical(x)) {
        if (length(x) != 1 || !is.finite(x)) {
          sp_abort(sprintf("%s: %s is not a finite number.", what, deparse1(x)), call = call)
        }
        return(flags(as.double(x)))
      }
      if (!is.name(x)) {
        sp_abort(sprintf("%s: `%s` is not an expression the model can compile.", what,
                         paste(deparse(x, nlines = 1L), collapse = " ")), call = call)
      }
      v <- as.character(x)
      if (v %in% c(states, elements)) return(flags(x, own = TRUE))
      if (v == "i") return(flags(as.name(".i"), own = TRUE))
      if (v == "j" && lattice == "square") return(flags(as.name(".jc"), own = TRUE))
      if (v == "j") return(flags(as.name(".j"), xj = TRUE, jn = TRUE))
      if (v == "n") return(flags(as.name(".n")))
      # the pair's geometry (positions) and an edge's weight, inside pairs()
      # and edges() alone (the xj flag)
      if (has_pos && v %in% SDE_PAIR_GEOMETRY) {
        axis <- match(v, c("dx", "dy", "dz"))
        if (!is.na(axis) && axis > length(positions)) {
          sp_abort(sprintf(paste0("%s uses `%s`, but the model has %d position%s (%s): the ",
                                  "separations are %s."), what, v, length(positions),
                           if (length(positions) == 1) "" else "s",
                           paste(positions, collapse = ", "),
                           paste0("`", c("dx", "dy", "dz")[seq_along(positions)], "`",
                                  collapse = ", ")), call = call)
        }
        return(flags(as.name(paste0(".", v)), xj = TRUE))
      }
      if (v %in% c(params, "t", "pi")) return(flags(x))
      if (v == SDE_EDGE_WEIGHT) return(flags(as.name(".a"), xj = TRUE, wt = TRUE))
      sp_abort(sprintf(paste0("%s uses the unknown variable `%s`; the model knows %s (states, ",
                              "parameters, element parameters, t, pi, and the element's number ",
                              "i, its partner j inside pairs(), the size n)."), what, v,
                       paste0("`", known, "`", collapse = ", ")), call = call)
    }
    pre <- function(x) {
      if (!is.name(x[[1]])) {
        sp_abort(sprintf("%s: `%s` is not an expression the model can compile.", what,
                         deparse1(x, nlines = 1L)), call = call)
      }
      f <- as.character(x[[1]])
      if (f == "[") {
        sde_mb_check_index(x, what, states, elements, lattice, call)
      } else if (f == "pairs" && length(x) == 3) {
        nm <- names(x)
        if (!is.null(nm) && (nzchar(nm[2]) || !(nm[3] %in% c("", "cutoff")))) {
          sp_abort(sprintf(paste0("%s: `%s`: pairs() takes an expression of the pair and, ",
                                  "optionally, `cutoff = ` a distance."), what,
                           deparse1(x, nlines = 1L)), call = call)
        }
        if (!has_pos) {
          sp_abort(sprintf(paste0("%s: `%s` has a cut-off, but the model has no positions: ",
                                  "declare the coordinates with sde_model(positions = c(\"x\", ",
                                  "\"y\")) and give the box with sde_run(box = )."), what,
                           deparse1(x, nlines = 1L)), call = call)
        }
      } else if (f %in% SDE_MB_REDUCTIONS) {
        if (length(x) != 2 || (!is.null(names(x)) && any(nzchar(names(x))))) {
          sp_abort(sprintf("%s: `%s` takes one argument (an expression of the element%s).", what,
                           deparse1(x, nlines = 1L),
                           if (f == "pairs") " and its partner; and optionally `cutoff = `"
                           else if (f == "edges") " and its in-neighbour" else ""), call = call)
        }
      } else if (f %in% SDE_MB_DRAWS) {
        sp_abort(sprintf(paste0("%s: `%s()` draws a random number; draws are for starts and ",
                                "element parameters (sde_run(init = ), params = list(w = ~ ...)), ",
                                "not right-hand sides."), what, f), call = call)
      } else {
        # the rest of the whitelist, by sde_check_expr()'s rules on this call
        # with its arguments as placeholders
        y <- x
        for (k in seq_along(y)[-1]) {
          if (!identical(y[[k]], quote(expr = ))) y[[k]] <- 0
        }
        sde_check_expr(y, character(), what, call)
      }
    }
    node <- function(x, v) {
      f <- as.character(x[[1]])
      any_of <- function(fl) any(vapply(v, function(a) isTRUE(a[[fl]]), TRUE))
      if (f == "[") {
        return(sde_mb_index(x, what, states, elements, reg, lattice))
      }
      if (f %in% SDE_MB_REDUCTIONS) {
        a <- v[[1]]
        if (isTRUE(a$wt) && f != "edges") {
          sp_abort(sprintf(paste0("%s: `%s` uses `a`, an edge's weight, which exists only inside ",
                                  "edges(); a parameter `a` would need params = c(a = ...)."),
                           what, deparse1(x, nlines = 1L)), call = call)
        }
        if (a$red) {
          sp_abort(sprintf(paste0("%s: `%s` holds a reduction inside a reduction; mean(), sum() ",
                                  "and pairs() take an expression of the element (and its ",
                                  "partner, in pairs())."), what, deparse1(x, nlines = 1L)),
                   call = call)
        }
        if (f %in% c("pairs", "edges") && lattice == "square") {
          sp_abort(sprintf(paste0("%s uses %s() on a square lattice, where j is the column: ",
                                  "%s() and lattice = \"square\" do not go together."), what, f, f),
                   call = call)
        }
        if (f == "pairs") {
          rc <- NULL
          if (length(x) == 3) {
            b <- v[[2]]
            if (b$own || b$xj || b$red || b$nb || b$jn || isTRUE(b$wt)) {
              sp_abort(sprintf(paste0("%s: the cut-off of `%s` must be a number or an expression ",
                                      "of the parameters (the same for every pair)."), what,
                               deparse1(x, nlines = 1L)), call = call)
            }
            rc <- b$e
          }
          if (level == "system") {
            if (isTRUE(a$opair)) {
              sp_abort(sprintf("%s: `%s` holds pairs() inside pairs().", what,
                               deparse1(x, nlines = 1L)), call = call)
            }
            return(flags(add_opair(a$e, rc), own = TRUE, opair = TRUE))
          }
          return(flags(add_pair(a$e, rc), own = TRUE, red = TRUE))
        }
        if (f == "edges") {
          if (SDE_EDGE_WEIGHT %in% params && SDE_EDGE_WEIGHT %in% all.vars(x[[2]])) {
            sp_abort(sprintf(paste0("%s: inside edges() `a` is the edge's weight, and the model ",
                                    "has a parameter `a`: rename the parameter."), what),
                     call = call)
          }
          if (level == "system") {
            sp_abort(sprintf(paste0("%s uses edges(); observables and the stop event take ",
                                    "mean() and sum() of element expressions, and sum(pairs()) ",
                                    "(edges() in observables is not supported: record what you ",
                                    "need with output = \"trajectories\")."), what), call = call)
          }
          return(flags(add_edge(a$e), own = TRUE, red = TRUE))
        }
        if (a$xj) {
          sp_abort(sprintf("%s: `%s` uses x[j] or j, which are only defined inside pairs().",
                           what, deparse1(x, nlines = 1L)), call = call)
        }
        r <- add_term(a$e)
        # mean: the sum times 1/n (a parameter-only part, computed once)
        return(flags(if (f == "sum") r else call("(", call("*", r, call("(", call("/", 1, as.name(".n"))))),
                     red = TRUE))
      }
      for (k in seq_along(v)) x[[k + 1L]] <- v[[k]]$e
      flags(x, own = any_of("own"), xj = any_of("xj"), red = any_of("red"), nb = any_of("nb"),
            jn = any_of("jn"), wt = any_of("wt"), opair = any_of("opair"))
    }
    r <- sde_fold(e, leaf, node, pre)
    if (r$xj) {
      sp_abort(sprintf(paste0("%s uses %s outside pairs() and edges(); the partner j exists ",
                              "only there."), what,
                       if (has_pos) "x[j], j, the separation (dx, dy, dz) or the distance r"
                       else if (isTRUE(r$wt)) "an edge's weight a" else "x[j] or j"), call = call)
    }
    if (level == "system" && isTRUE(r$opair) && !r$red) {
      sp_abort(sprintf(paste0("%s uses pairs() outside sum() and mean(); a pair sum is a value ",
                              "of each element: the system's is sum(pairs(...)) (e.g. the ",
                              "potential energy sum(pairs(u(r), cutoff = rc)) / 2)."), what),
               call = call)
    }
    if (level == "system" && (r$own || r$nb)) {
      bad <- intersect(all.vars(e), c(states, elements, "i"))
      sp_abort(sprintf(paste0("%s uses %s outside a reduction; in a many-body model observables ",
                              "and the stop event are system-level: reduce over the elements ",
                              "with mean() or sum() (e.g. mean(%s))."), what,
                       if (length(bad)) sprintf("`%s`", bad[1]) else "an element's value",
                       if (length(bad)) bad[1] else "x"), call = call)
    }
    r$e
  }
  drift <- lapply(states, function(s) rewrite(m$drift[[s]], sprintf("the drift of `%s`", s),
                                              "element"))
  names(drift) <- states
  noise <- lapply(seq_along(m$noise), function(j) {
    rewrite(m$noise[[j]], sprintf("the noise on `%s`", sde_noise_label(m, j)), "element")
  })
  names(noise) <- names(m$noise)
  dyn <- length(reg$terms) # reductions the dynamics need
  observe <- lapply(names(m$observe), function(s) {
    rewrite(m$observe[[s]], sprintf("the observable `%s`", s), "system")
  })
  names(observe) <- names(m$observe)
  nopair <- length(reg$opairs)
  stop <- if (!is.null(m$stop)) rewrite(m$stop, "`stop`", "system")
  if (length(reg$opairs) > nopair) {
    sp_abort(paste0("`stop` uses pairs(); the stop event is checked after every step and takes ",
                    "mean() and sum() of element expressions: pair sums are for observables."),
             call = call)
  }
  if (lattice != "none" && reg$reach == 0L) {
    sp_abort(sprintf(paste0("`lattice = \"%s\"` is given, but no right-hand side reads a ",
                            "neighbour (x[i + 1], x[i - 1]); drop it, or use the neighbours."),
                     lattice), call = call)
  }
  pcut <- reg$pcut[seq_along(reg$pairs)]
  ocut <- reg$ocut[seq_along(reg$opairs)]
  list(drift = drift, noise = noise, observe = observe, stop = stop, terms = reg$terms,
       dyn = dyn, pairs = reg$pairs, reach = reg$reach, pcut = pcut, opairs = reg$opairs,
       ocut = ocut, edges = reg$edges, positions = positions)
}

# x[...] in a many-body right-hand side: a state or element parameter
# indexed by j (the partner, inside pairs()), i (the element itself) or
# i + k, i - k (a lattice neighbour, k a whole number).
sde_mb_check_index <- function(x, what, states, elements, lattice, call) {
  bad <- function(why) {
    sp_abort(sprintf("%s: `%s` %s", what, deparse1(x, nlines = 1L), why), call = call)
  }
  v <- x[[2]]
  if (!is.name(v) || !(as.character(v) %in% c(states, elements))) {
    bad("indexes something that is not a state or element parameter.")
  }
  if (lattice == "square") {
    if (length(x) != 4) {
      bad(paste0("on a square lattice an element is x[i, j]; its neighbours x[i + a, j + b] ",
                 "(a, b whole numbers)."))
    }
    a <- sde_mb_offset(x[[3]], "i")
    b <- sde_mb_offset(x[[4]], "j")
    if (is.null(a) || is.null(b)) {
      bad("has an index other than i, i + a, i - a (rows) and j, j + b, j - b (columns).")
    }
    if (as.character(v) %in% elements && (a != 0 || b != 0)) {
      bad("reads an element parameter at a neighbour; element parameters are read at the element.")
    }
    return(invisible())
  }
  if (length(x) != 3) {
    bad(paste0("has more than one index; x[j] (the partner in pairs()), x[i + 1] and ",
               "x[i - 1] (lattice neighbours) are the forms a model knows (x[i + a, j + b] on ",
               "lattice = \"square\")."))
  }
  ix <- x[[3]]
  if (identical(ix, as.name("j")) || identical(ix, as.name("i"))) return(invisible())
  off <- sde_mb_offset(ix)
  if (is.null(off)) {
    bad("has an index other than j, i, i + k or i - k (k a whole number).")
  }
  if (as.character(v) %in% elements) {
    bad(paste0("reads an element parameter at a neighbour; element parameters are read at the ",
               "element itself (and at the partner, e[j], in pairs())."))
  }
  if (lattice == "none") {
    bad(sprintf(paste0("reads a lattice neighbour, but the model has no lattice: give ",
                       "sde_model(lattice = \"chain\") (free ends) or \"ring\" (periodic).")))
  }
  invisible()
}

# The offset k of an index i + k or i - k (a whole number), else NULL.
sde_mb_offset <- function(ix, var = "i") {
  while (is.call(ix) && identical(ix[[1]], as.name("("))) ix <- ix[[2]]
  if (identical(ix, as.name(var))) return(0L)
  if (!is.call(ix) || length(ix) != 3 || !identical(ix[[2]], as.name(var))) return(NULL)
  f <- as.character(ix[[1]])
  k <- ix[[3]]
  if (!(f %in% c("+", "-")) || !is.numeric(k) || length(k) != 1 || k != round(k) ||
      k < 0 || k > 64) {
    return(NULL)
  }
  as.integer(if (f == "-") -k else k)
}

# The rewritten form of a checked x[...] (node of the fold).
sde_mb_index <- function(x, what, states, elements, reg, lattice = "none") {
  v <- as.character(x[[2]])
  own <- list(e = as.name(v), own = TRUE, xj = FALSE, red = FALSE, nb = FALSE, jn = FALSE)
  if (lattice == "square") {
    a <- sde_mb_offset(x[[3]], "i")
    b <- sde_mb_offset(x[[4]], "j")
    if (a == 0L && b == 0L) return(own)
    reg$reach <- max(reg$reach, abs(a), abs(b))
    return(list(e = as.name(mb_nb_name(v, a, b)), own = TRUE, xj = FALSE, red = FALSE, nb = TRUE,
                jn = FALSE))
  }
  ix <- x[[3]]
  if (identical(ix, as.name("j"))) {
    nm <- if (v %in% states) paste0(".xj_", v) else paste0(".ej_", v)
    return(list(e = as.name(nm), own = FALSE, xj = TRUE, red = FALSE, nb = FALSE, jn = FALSE))
  }
  d <- sde_mb_offset(ix)
  if (d == 0L) return(own)
  reg$reach <- max(reg$reach, abs(d))
  list(e = as.name(mb_nb_name(v, d)), own = TRUE, xj = FALSE, red = FALSE, nb = TRUE, jn = FALSE)
}

# ---- separable (position, momentum) structure ----------------------------------

# Which states are positions and which momenta, for the splitting methods
# (verlet, yoshida4, baoab): a position's drift uses its element's momenta
# (and parameters) only; a momentum's drift is a force of the positions (any
# coupling), less, for baoab, a friction linear in that momentum; noise only
# on momenta, additive.  Returns list(ok, why, q, p, force (rewritten
# drift of each momentum without friction), friction (per momentum, an
# expression of the parameters, 0 without), move (drift of each position),
# noise (per momentum)).
sde_mb_split <- function(m, a) {
  no <- function(why) list(ok = FALSE, why = why)
  st <- m$states
  deps <- lapply(st, function(s) {
    v <- all.vars(a$drift[[s]])
    nb <- grep("^\\.nb_", v, value = TRUE)
    xj <- grep("^\\.xj_", v, value = TRUE)
    red <- grep("^\\.[RQE][0-9]+$", v, value = TRUE)
    list(own = intersect(v, st), nb = sub("^\\.nb_(.*)_[mp][0-9]+$", "\\1", nb),
         red = red, t = "t" %in% v)
  })
  names(deps) <- st
  # positions: drift of own momenta only (no couplings, no time)
  q <- st[vapply(st, function(s) {
    d <- deps[[s]]
    !length(d$nb) && !length(d$red) && !d$t && length(d$own) > 0 && !(s %in% d$own)
  }, TRUE)]
  p <- setdiff(st, q)
  if (!length(q) || !length(p)) {
    return(no(paste0("its states do not come in (position, momentum) pairs: a position's drift ",
                     "must be a function of the momenta alone (q' = p), a momentum's a force of ",
                     "the positions (p' = F(q))")))
  }
  for (s in q) {
    if (length(setdiff(deps[[s]]$own, p))) {
      return(no(sprintf("the drift of the position `%s` uses `%s`, not a momentum", s,
                        setdiff(deps[[s]]$own, p)[1])))
    }
  }
  # the reductions and pair sums a momentum's force uses must be of positions
  term_states <- function(ix, pool) {
    unique(unlist(lapply(ix, function(nm) {
      i <- as.integer(sub("^\\.[RQE]", "", nm)) + 1L
      e <- if (startsWith(nm, ".R")) a$terms[[i]] else if (startsWith(nm, ".E")) a$edges[[i]]
           else a$pairs[[i]]
      v <- all.vars(e)
      c(intersect(v, st), sub("^\\.(xj|nb)_([^_]+).*$", "\\2",
                             grep("^\\.(xj|nb)_", v, value = TRUE)))
    })))
  }
  force <- list(); friction <- list()
  for (s in p) {
    e <- a$drift[[s]]
    d <- deps[[s]]
    uses_p <- intersect(c(d$own, d$nb, term_states(d$red, st)), p)
    fr <- 0
    if (length(uses_p)) {
      if (!identical(uses_p, s) || length(d$nb) && s %in% d$nb ||
          s %in% term_states(d$red, st)) {
        return(no(sprintf("the drift of the momentum `%s` uses the momentum `%s` (other than a friction linear in `%s`)",
                          s, uses_p[uses_p != s][1] %||% s, s)))
      }
      g <- tryCatch(stats::D(e, s), error = function(err) NULL)
      if (is.null(g) || length(intersect(all.vars(g), c(st, "t", grep("^\\.", all.vars(g), value = TRUE))))) {
        return(no(sprintf("the drift of the momentum `%s` is not a force of the positions less a friction linear in `%s`",
                          s, s)))
      }
      fr <- call("-", g)
      # the force: the drift at s = 0
      e <- sde_subst(e, stats::setNames(list(0), s))
    }
    force[[s]] <- e
    friction[[s]] <- fr
  }
  noisy <- names(a$noise)
  if (length(setdiff(noisy, p))) {
    return(no(sprintf("noise acts on the position `%s`; the splitting methods take noise on momenta only",
                      setdiff(noisy, p)[1])))
  }
  if (!is.null(m$noise_decl)) {
    return(no("its noise is a matrix; the splitting methods take diagonal noise on the momenta"))
  }
  for (s in noisy) {
    v <- all.vars(a$noise[[s]])
    if (length(intersect(v, c(st, "t"))) || length(grep("^\\.", setdiff(v, ".n")))) {
      return(no(sprintf("the noise on `%s` is not additive (a constant of the parameters)", s)))
    }
  }
  list(ok = TRUE, why = "", q = q, p = p, force = force, friction = friction,
       move = a$drift[q], noise = a$noise)
}

# Substitute symbols in an expression (values: expressions or numbers).
sde_subst <- function(e, values) eval(call("substitute", e, values))

# The methods a many-body model admits, and why the others are refused.
sde_mb_methods <- function(m) {
  sp <- m$mb$split
  out <- c(euler = if (isTRUE(m$forms[["ito"]])) "" else m$forms_why,
           srk2 = if (isTRUE(m$forms[["stratonovich"]])) "" else m$forms_why)
  hamiltonian <- sp$ok && !length(m$noise) &&
    all(vapply(sp$friction, function(g) identical(g, 0), TRUE))
  out[["verlet"]] <- if (!sp$ok) sp$why else if (!hamiltonian)
    "it has noise or friction (verlet and yoshida4 integrate Hamiltonian dynamics; use baoab)" else ""
  mom <- intersect(m$periodic, sp$p)
  if (sp$ok && length(mom)) {
    out[["verlet"]] <- sprintf(paste0("its periodic state `%s` is a momentum (the splitting ",
                                      "methods keep positions periodic only)"), mom[1])
  }
  out[["yoshida4"]] <- out[["verlet"]]
  out[["baoab"]] <- if (!sp$ok) sp$why else if (length(mom)) out[["verlet"]] else if (!length(m$noise))
    "it has no noise on its momenta (baoab integrates Langevin dynamics; use verlet or yoshida4)" else ""
  out
}

# ---- pair terms: per-element values ---------------------------------------------

# The pair terms made cheap per pair, as the hand-written all-pairs kernels
# are (lrmd.cu's ring model: the sine and cosine of each angle once, the pair
# term from products): sin(A -+ B) and cos(A -+ B), with A of the partner
# alone and B of the element alone (or the other way round), are expanded
# (sin A cos B -+ cos A sin B; cos A cos B +- sin A sin B) (half whole powers
# are left to the translator, sde_power_c(): d^-1.5 = rsqrt(d)^3, the
# hardware's reciprocal square root in single precision on the GPU, as
# lrmd.cu's ring pairs; not pow, nor a square root and a quotient), then each largest
# costly subexpression (a call other than + - * / and small whole powers) of
# the element alone or of the partner alone becomes a per-element value
# .U<k> (the element's) or .V<k> (the partner's): value k of an element,
# computed once per element and stage (mb_pair_pre) instead of once per
# pair.  Returns list(pairs (rewritten), values (expressions of the element:
# its states, parameters, i)).
sde_mb_pair_values <- function(pairs, states, elements) {
  partner <- c(paste0(".xj_", states), if (length(elements)) paste0(".ej_", elements), ".j")
  own <- c(states, elements, ".i")
  to_own <- stats::setNames(lapply(own, as.name), partner)
  reg <- new.env(parent = emptyenv())
  reg$keys <- character()
  reg$values <- list()
  # the pair's geometry (.dx, .dy, .dz, .r) belongs to both
  mixed <- paste0(".", SDE_PAIR_GEOMETRY)
  cls <- function(e) {
    v <- all.vars(e)
    p <- any(v %in% partner)
    o <- any(v %in% own)
    if ((p && o) || any(v %in% mixed)) "m" else if (p) "p" else if (o) "o" else "c"
  }
  arith <- c("+", "-", "*", "/", "(")
  costly <- function(e) {
    if (!is.call(e)) return(FALSE)
    f <- if (is.name(e[[1]])) as.character(e[[1]]) else ""
    if (f %in% arith) return(any(vapply(as.list(e)[-1], costly, TRUE)))
    if (f == "^") {
      k <- e[[3]]
      small <- is.numeric(k) && length(k) == 1 && k == round(k) && abs(k) <= 8
      return(!small || costly(e[[2]]))
    }
    TRUE
  }
  strip <- function(e) {
    while (is.call(e) && identical(e[[1]], as.name("(")) && length(e) == 2) e <- e[[2]]
    e
  }
  expand <- function(e) {
    if (!is.call(e)) return(e)
    for (k in seq_along(e)[-1]) e[[k]] <- expand(e[[k]])
    f <- if (is.name(e[[1]])) as.character(e[[1]]) else ""
    if (!(f %in% c("sin", "cos")) || length(e) != 2) return(e)
    x <- strip(e[[2]])
    if (!is.call(x) || length(x) != 3 || !(as.character(x[[1]]) %in% c("+", "-"))) return(e)
    A <- x[[2]]
    B <- x[[3]]
    if (!setequal(c(cls(A), cls(B)), c("p", "o"))) return(e)
    minus <- identical(x[[1]], as.name("-"))
    sA <- call("sin", A); cA <- call("cos", A); sB <- call("sin", B); cB <- call("cos", B)
    if (f == "sin") {
      call("(", call(if (minus) "-" else "+", call("*", sA, cB), call("*", cA, sB)))
    } else {
      call("(", call(if (minus) "+" else "-", call("*", cA, cB), call("*", sA, sB)))
    }
  }
  value <- function(e) { # the index of the element's value e (own form)
    k <- paste(deparse(e, width.cutoff = 500L), collapse = " ")
    i <- match(k, reg$keys)
    if (is.na(i)) {
      reg$keys <- c(reg$keys, k)
      reg$values[[length(reg$values) + 1L]] <- e
      i <- length(reg$keys)
    }
    i - 1L
  }
  hoist <- function(e) {
    if (!is.call(e)) return(e)
    k <- cls(e)
    if (k %in% c("p", "o") && costly(e)) {
      if (k == "o") return(as.name(sprintf(".U%d", value(e))))
      return(as.name(sprintf(".V%d", value(sde_subst(e, to_own)))))
    }
    for (j in seq_along(e)[-1]) e[[j]] <- hoist(e[[j]])
    e
  }
  out <- lapply(pairs, function(e) hoist(expand(e)))
  list(pairs = out, values = reg$values)
}

# ---- the physics header -----------------------------------------------------------

# The generated header of a many-body model: its text and what each line
# came from (compile errors).  Functions (SP_PREC: _f single, _d double),
# all with the element's own states x, element parameters e, the scalar
# parameters p (the model's, the derived ones, then n), the element number
# fi (1-based) and the time t (double):
#   mb_terms(t, x, e, nb, p, fi, r)       reduction terms (NT = dynamics' first)
#   mb_pair_pre(t, x, e, p, fi, u)        the element's values u[NU] for the pair
#                                         terms (sde_mb_pair_values())
#   mb_pair(t, xi, ei, xj, ej, ui, uj, p, fi, fj, acc)   acc[q] += pair term q
#   mb_drift_ito / mb_drift_strat(t, x, e, nb, R, Q, p, fi, f)
#   mb_noise(t, x, e, nb, R, Q, p, fi, b), mb_apply_noise(y, b, dw)
#   mb_observe(t, R, p, o), mb_stop(t, R, p)
#   mb_force(t, x, e, nb, R, Q, p, fi, f)  (separable) force on each momentum
#   mb_move(x, e, p, h)                    q += h G(p)
#   mb_friction(p, g), mb_sigma(p, s)      per momentum
# nb: the neighbours' states, nb[(d + REACH) NX + s] for offsets d.
sde_mb_header <- function(m) {
  a <- m$mb
  nx <- length(m$states)
  ne <- length(m$elements)
  hoist <- new.env(parent = emptyenv())
  hoist$keys <- character()
  hoist$exprs <- list()
  square <- identical(m$lattice, "square")
  pos <- m$positions %||% character()
  pnames <- sde_mb_pnames(m) # the model's, then the hidden ones
  H <- function(e) sde_hoist(e, pnames, hoist)
  forms <- list()
  for (form in c("ito", "stratonovich")) {
    forms[[form]] <- lapply(m$states, function(s) {
      e <- a$drift[[s]]
      corr <- m$correction[[s]]
      if (!m$forms[[form]] && s %in% m$uncorrectable) return(NULL)
      if (!is.null(corr) && form != m$calculus) e <- call(if (form == "ito") "+" else "-", e, corr)
      H(e)
    })
  }
  noise <- lapply(a$noise, H)
  terms <- lapply(a$terms, H)
  npp <- length(a$pairs)
  nop <- length(a$opairs %||% list())
  pv <- sde_mb_pair_values(c(a$pairs, a$opairs), m$states, names(m$elements))
  pairs <- lapply(pv$pairs[seq_len(npp)], H)
  opairs <- lapply(pv$pairs[npp + seq_len(nop)], H)
  pvals <- lapply(pv$values, H)
  edges <- lapply(a$edges %||% list(), H)
  ng <- length(edges)
  # a cut-off rc as the condition r2 < rc^2 (rc^2 a parameter-only part:
  # computed once per condition in double)
  cut2 <- function(rc) if (is.null(rc)) NULL else H(call("^", call("(", rc), 2))
  pcut2 <- lapply(a$pcut %||% list(), cut2)
  ocut2 <- lapply(a$ocut %||% list(), cut2)
  observe <- lapply(a$observe, H)
  stop <- if (!is.null(a$stop)) H(a$stop)
  sp <- a$split
  force <- if (sp$ok) lapply(sp$force, H)
  move <- if (sp$ok) lapply(sp$move, H)
  friction <- if (sp$ok) lapply(sp$friction, H)
  nd <- length(hoist$keys)
  np <- length(pnames) + nd
  pmap <- stats::setNames(sprintf("p[%d]", seq_len(np) - 1L),
                          c(pnames, if (nd) paste0(".d", seq_len(nd))))
  base <- c(pmap, t = "t")
  own <- c(stats::setNames(sprintf("x[%d]", seq_len(nx) - 1L), m$states),
           stats::setNames(sprintf("e[%d]", seq_len(ne) - 1L), names(m$elements)),
           .i = if (square) "SP_MB_ROW(fi, p)" else "fi",
           .jc = "SP_MB_COL(fi, p)")
  K <- a$reach
  nbmap <- character()
  if (square) {
    for (da in -K:K) for (db in -K:K) {
      if (da == 0 && db == 0) next
      slot <- (da + K) * (2 * K + 1) + (db + K)
      nbmap <- c(nbmap, stats::setNames(sprintf("nb[%d]", slot * nx + seq_len(nx) - 1L),
                                        vapply(m$states, mb_nb_name, "", d = da, d2 = db)))
    }
  } else {
    for (d in setdiff(-K:K, 0)) {
      nbmap <- c(nbmap, stats::setNames(sprintf("nb[%d]", (d + K) * nx + seq_len(nx) - 1L),
                                        vapply(m$states, mb_nb_name, "", d = d)))
    }
  }
  red <- c(stats::setNames(sprintf("R[%d]", seq_along(a$terms) - 1L),
                           sprintf(".R%d", seq_along(a$terms) - 1L)),
           stats::setNames(sprintf("Q[%d]", seq_along(a$pairs) - 1L),
                           sprintf(".Q%d", seq_along(a$pairs) - 1L)),
           stats::setNames(sprintf("Q[%d]", npp + seq_len(ng) - 1L),
                           sprintf(".E%d", seq_len(ng) - 1L)),
           stats::setNames(sprintf("O[%d]", seq_len(nop) - 1L),
                           sprintf(".O%d", seq_len(nop) - 1L)))
  elem_map <- c(base, own, nbmap, red)
  nu <- length(pvals)
  pair_map <- c(base, stats::setNames(sprintf("xi[%d]", seq_len(nx) - 1L), m$states),
                stats::setNames(sprintf("ei[%d]", seq_len(ne) - 1L), names(m$elements)),
                stats::setNames(sprintf("xj[%d]", seq_len(nx) - 1L), paste0(".xj_", m$states)),
                stats::setNames(sprintf("ej[%d]", seq_len(ne) - 1L),
                                if (ne) paste0(".ej_", names(m$elements)) else character()),
                stats::setNames(sprintf("ui[%d]", seq_len(nu) - 1L), sprintf(".U%d", seq_len(nu) - 1L)),
                stats::setNames(sprintf("uj[%d]", seq_len(nu) - 1L), sprintf(".V%d", seq_len(nu) - 1L)),
                .i = "fi", .j = "fj",
                # the pair's geometry and an edge's weight: locals and an
                # argument of the pair functions (sde_mb_pair_fn())
                .dx = "dx", .dy = "dy", .dz = "dz", .r = "r", .r2 = "r2", .a = "w")
  pre_map <- c(base, own)
  sys_map <- c(base, red)
  # the C forms of periodic states' values, wrapped by the engines: their
  # sine and cosine need no reduction (SP_SIN_P, SP_COS_P)
  pk <- match(m$periodic, m$states) - 1L
  fast <- c(sprintf("x[%d]", pk), sprintf("xi[%d]", pk), sprintf("xj[%d]", pk),
            if (length(pk)) nbmap[as.integer(sub("^nb\\[([0-9]+)\\]$", "\\1", nbmap)) %% nx %in% pk])
  C <- function(e, map, div = NULL, rcp = NULL) {
    sde_mb_to_c(e, map, c(pnames, if (nd) paste0(".d", seq_len(nd))), fast, div, rcp)
  }
  L <- character(); what <- character()
  add <- function(line, from = "") {
    L[length(L) + 1] <<- line
    what[length(what) + 1] <<- from
  }
  dep <- function(e) gsub("\\s+", " ", paste(deparse(e, width.cutoff = 500L), collapse = " "))
  cmt <- sde_c_comment
  EL <- "double t, const SP_REAL *x, const SP_REAL *e, const SP_REAL *nb, const SP_REAL *R, const SP_REAL *Q, const SP_REAL *p, const double *pd, SP_REAL fi"
  open_fn <- function(ret, name, args) {
    add(sprintf("SP_FN %s SP_PREC(%s)(%s) {", ret, name, args))
  }
  voids <- function(v) add(paste0("  ", paste(sprintf("(void)%s;", v), collapse = " ")))
  add(sprintf("/* many-body SDE model \"%s\": generated by statphysgpu's sde_model(); do not edit.",
              sde_c_name(m$name)))
  add(paste0(" * ", cmt(sprintf("states %s | element parameters %s | parameters %s | noise on %s | lattice %s",
              paste(m$states, collapse = ", "), if (ne) paste(names(m$elements), collapse = ", ")
              else "none", paste(c(names(m$params), "n"), collapse = ", "),
              if (length(m$noise)) paste(names(m$noise), collapse = ", ") else "none", m$lattice))))
  for (r in seq_along(a$terms)) add(sprintf(" * R[%d] = sum over the elements of %s", r - 1,
                                            cmt(dep(a$terms[[r]]))))
  cut_txt <- function(rc) if (is.null(rc)) "" else paste0(" within r < ", cmt(dep(rc)))
  for (q in seq_along(a$pairs)) add(sprintf(" * Q[%d] = sum over the partners j != i of %s%s", q - 1,
                                            cmt(dep(a$pairs[[q]])), cut_txt(a$pcut[[q]])))
  for (g in seq_len(ng)) add(sprintf(" * Q[%d] = sum over the in-neighbours j (edge weight a) of %s",
                                     npp + g - 1, cmt(dep(a$edges[[g]]))))
  for (k in seq_len(nop)) add(sprintf(" * O[%d] = sum over the partners j != i of %s%s (observables)",
                                      k - 1, cmt(dep(a$opairs[[k]])), cut_txt(a$ocut[[k]])))
  if (length(pos)) add(sprintf(" * positions %s in a periodic box", cmt(paste(pos, collapse = ", "))))
  for (k in seq_len(nu)) add(sprintf(" * u[%d] = %s of each element, for the pair terms", k - 1,
                                     cmt(dep(pv$values[[k]]))))
  for (j in seq_len(nd)) add(sprintf(" * p[%d] = %s (per condition, in double)",
                                     length(pnames) + j - 1,
                                     cmt(gsub(".n", "n", hoist$keys[j], fixed = TRUE))))
  add(" */")
  defs <- c(NX = nx, NE = ne, NP = np, NW = length(m$noise_w), NB = length(m$noise),
            NT = length(a$terms), ND = a$dyn,
            NQ = npp + ng, NQP = npp, NG = ng, NQO = nop, NU = nu, NO = length(m$observe),
            HAS_STOP = as.integer(!is.null(m$stop)),
            REACH = K, RING = as.integer(m$lattice %in% c("ring", "square")),
            DIM = if (square) 2L else 1L, L2 = if (square) match(".l2", pnames) - 1L else -1L,
            SPLIT = as.integer(sp$ok),
            NPOS = if (sp$ok) length(sp$q) else 0L,
            # positions: their number (the box's dimension), the states, the
            # box's first parameter (sides, then inverses), the cut-offs'
            POSD = length(pos),
            PX0 = if (length(pos) >= 1) match(pos[1], m$states) - 1L else -1L,
            PX1 = if (length(pos) >= 2) match(pos[2], m$states) - 1L else -1L,
            PX2 = if (length(pos) >= 3) match(pos[3], m$states) - 1L else -1L,
            BOX = if (length(pos)) match(".bx", pnames) - 1L else -1L,
            RC = if (length(pos)) match(".rc", pnames) - 1L else -1L,
            RCO = if (length(pos)) match(".rco", pnames) - 1L else -1L,
            # every pair term of the dynamics (of the observables) has a cut-off:
            # the engines' cell lists find the partners
            CUT = as.integer(length(pos) > 0 && sde_mb_cut_all(a$pcut)),
            CUTO = as.integer(length(pos) > 0 && sde_mb_cut_all(a$ocut)))
  for (d in names(defs)) add(sprintf("#define SP_MB_%s %d", d, as.integer(defs[[d]])))
  if (square) {
    # the row i and column j of element fi (1-based, row-major) of an L1 x L2
    # lattice, L2 the parameter p[SP_MB_L2]
    add("#define SP_MB_ROW(fi, p) (SP_FLOOR(((fi) - SP_R(1.0)) / (p)[SP_MB_L2]) + SP_R(1.0))")
    add("#define SP_MB_COL(fi, p) ((fi) - (SP_MB_ROW(fi, p) - SP_R(1.0)) * (p)[SP_MB_L2])")
  }
  # reduction terms (element level; O: the element's pair sums of the
  # observables, at a record)
  open_fn("void", "mb_terms", "double t, const SP_REAL *x, const SP_REAL *e, const SP_REAL *nb, const SP_REAL *O, const SP_REAL *p, const double *pd, SP_REAL fi, SP_REAL *r")
  voids(c("t", "x", "e", "nb", "O", "p", "pd", "fi", "r"))
  for (r in seq_along(terms)) {
    add(sprintf("  r[%d] = %s;", r - 1, C(terms[[r]], elem_map)),
        sprintf("the reduction of %s", dep(a$terms[[r]])))
  }
  add("}")
  open_fn("void", "mb_pair_pre", "double t, const SP_REAL *x, const SP_REAL *e, const SP_REAL *p, const double *pd, SP_REAL fi, SP_REAL *u")
  voids(c("t", "x", "e", "p", "pd", "fi", "u"))
  for (k in seq_len(nu)) {
    add(sprintf("  u[%d] = %s;", k - 1, C(pvals[[k]], pre_map)),
        sprintf("the pair terms' %s", dep(pv$values[[k]])))
  }
  if (!nu) add("  u[0] = SP_R(0.0);")
  add("}")
  # the pair functions: the dynamics' pair terms (mb_pair), the
  # observables' (mb_pair_obs), the edge terms (mb_edge); the pair's
  # geometry (minimum-image separation, distance) as locals where used, a
  # cut-off as a test on the squared distance
  pair_fn <- function(name, exprs, cuts, first, src, edge = FALSE) {
    args <- if (edge) {
      "double t, const SP_REAL *xi, const SP_REAL *ei, const SP_REAL *xj, const SP_REAL *ej, SP_REAL w, const SP_REAL *p, const double *pd, SP_REAL fi, SP_REAL fj, SP_REAL *acc"
    } else {
      "double t, const SP_REAL *xi, const SP_REAL *ei, const SP_REAL *xj, const SP_REAL *ej, const SP_REAL *ui, const SP_REAL *uj, const SP_REAL *p, const double *pd, SP_REAL fi, SP_REAL fj, SP_REAL *acc"
    }
    open_fn("void", name, args)
    voids(c("t", "xi", "ei", "xj", "ej", if (edge) "w" else c("ui", "uj"), "p", "pd", "fi", "fj",
            "acc"))
    # (quotients by SP_PDIV: the GPU's fast reciprocal in single precision;
    # 1 / b and b^-k by SP_PRCP: the hardware's reciprocal alone there)
    body <- vapply(exprs, function(e) C(sde_r2_powers(e), pair_map, "SP_PDIV", "SP_PRCP"), "")
    conds <- vapply(cuts, function(c2) if (is.null(c2)) "" else C(c2, base), "")
    word <- function(w) any(grepl(sprintf("(^|[^A-Za-z0-9_.])%s([^A-Za-z0-9_]|$)", w), body))
    need_r <- word("r")
    need_r2 <- need_r || any(nzchar(conds)) || word("r2")
    axes <- c("dx", "dy", "dz")[seq_along(pos)]
    for (d in seq_along(axes)) {
      if (need_r2 || word(axes[d])) {
        k <- match(pos[d], m$states) - 1L
        b <- match(".bx", pnames) - 1L + d - 1L
        add(sprintf("  const SP_REAL %s = SP_MI(xj[%d] - xi[%d], p[%d], p[%d]);", axes[d], k, k,
                    b, b + 3L))
      }
    }
    if (need_r2) add(sprintf("  const SP_REAL r2 = %s;",
                             paste(sprintf("%s * %s", axes, axes), collapse = " + ")))
    if (need_r) add("  const SP_REAL r = SP_SQRT(r2);")
    # the terms of one cut-off in one block (the compilers compute what they
    # share once)
    q <- 1L
    while (q <= length(exprs)) {
      k <- q
      while (k < length(exprs) && identical(conds[[k + 1L]], conds[[q]])) k <- k + 1L
      ind <- if (nzchar(conds[[q]])) "    " else "  "
      if (nzchar(conds[[q]])) add(sprintf("  if (r2 < %s) {", conds[[q]]))
      for (j in q:k) {
        add(sprintf("%sacc[%d] += %s;", ind, first + j - 1L, body[[j]]),
            sprintf("the %s of %s", if (edge) "edge sum" else "pair sum", dep(src[[j]])))
      }
      if (nzchar(conds[[q]])) add("  }")
      q <- k + 1L
    }
    add("}")
  }
  pair_fn("mb_pair", pairs, pcut2, 0L, a$pairs)
  pair_fn("mb_pair_obs", opairs, ocut2, 0L, a$opairs)
  pair_fn("mb_edge", edges, rep(list(NULL), ng), npp, a$edges, edge = TRUE)
  for (form in c("ito", "stratonovich")) {
    open_fn("void", if (form == "ito") "mb_drift_ito" else "mb_drift_strat", paste0(EL, ", SP_REAL *f"))
    voids(c("t", "x", "e", "nb", "R", "Q", "p", "pd", "fi", "f"))
    for (i in seq_len(nx)) {
      s <- m$states[i]
      e <- forms[[form]][[i]]
      if (is.null(e)) {
        add(sprintf("  f[%d] = SP_R(0.0) / SP_R(0.0); /* no %s form */", i - 1, form),
            sprintf("the drift of `%s`", s))
      } else {
        add(sprintf("  f[%d] = %s; /* drift of %s */", i - 1, C(e, elem_map), cmt(s)),
            sprintf("the drift of `%s`, %s", s, dep(m$drift[[s]])))
      }
    }
    add("}")
  }
  open_fn("void", "mb_noise", paste0(EL, ", SP_REAL *b"))
  voids(c("t", "x", "e", "nb", "R", "Q", "p", "pd", "fi", "b"))
  for (j in seq_along(noise)) {
    on <- sde_noise_label(m, j)
    add(sprintf("  b[%d] = %s; /* noise on %s */", j - 1, C(noise[[j]], elem_map), cmt(on)),
        sprintf("the noise on `%s`, %s", on, dep(m$noise[[j]])))
  }
  if (!length(noise)) add("  b[0] = SP_R(0.0);")
  add("}")
  # positions kept in [0, L) of the box: after every stage (the end of
  # mb_apply_noise) and every move
  wrap_pos <- character()
  for (d in seq_along(pos)) {
    k <- match(pos[d], m$states) - 1L
    b <- match(".bx", pnames) - 1L + d - 1L
    wrap_pos <- c(wrap_pos, sprintf("  y[%d] = SP_WRAP_BOX(y[%d], p[%d], p[%d]);", k, k, b, b + 3L))
  }
  add("SP_FN void SP_PREC(mb_apply_noise)(SP_REAL *y, const SP_REAL *b, const SP_REAL *dw, const SP_REAL *p) {")
  add("  (void)y; (void)b; (void)dw; (void)p;")
  for (j in seq_along(noise)) {
    add(sprintf("  y[%d] += b[%d] * dw[%d];", match(names(noise)[j], m$states) - 1, j - 1,
                m$noise_k[j] - 1))
  }
  # the end of every Euler and SRK2 stage: periodic states wrapped
  for (k in pk) add(sprintf("  y[%d] = SP_WRAP(y[%d]);", k, k))
  for (w in wrap_pos) add(w)
  add("}")
  open_fn("void", "mb_observe", "double t, const SP_REAL *R, const SP_REAL *p, const double *pd, SP_REAL *o")
  voids(c("t", "R", "p", "pd", "o"))
  for (j in seq_along(observe)) {
    s <- names(observe)[j]
    add(sprintf("  o[%d] = %s; /* observable %s */", j - 1, C(observe[[j]], sys_map), cmt(s)),
        sprintf("the observable `%s`, %s", s, dep(m$observe[[s]])))
  }
  add("}")
  open_fn("int", "mb_stop", "double t, const SP_REAL *R, const SP_REAL *p, const double *pd")
  voids(c("t", "R", "p", "pd"))
  if (!is.null(stop)) {
    add(sprintf("  return %s != 0;", C(stop, sys_map)), sprintf("the event `stop`, %s", dep(m$stop)))
  } else {
    add("  return 0;")
  }
  add("}")
  # the splitting methods' pieces
  open_fn("void", "mb_force", paste0(EL, ", SP_REAL *f"))
  voids(c("t", "x", "e", "nb", "R", "Q", "p", "pd", "fi", "f"))
  if (sp$ok) for (j in seq_along(sp$p)) {
    s <- sp$p[j]
    add(sprintf("  f[%d] = %s; /* force on %s */", j - 1, C(force[[s]], elem_map), cmt(s)),
        sprintf("the drift of `%s`, %s", s, dep(m$drift[[s]])))
  }
  add("}")
  add("SP_FN void SP_PREC(mb_kick)(SP_REAL *x, const SP_REAL *f, SP_REAL h) {")
  add("  (void)x; (void)f; (void)h;")
  if (sp$ok) for (j in seq_along(sp$p)) {
    add(sprintf("  x[%d] += h * f[%d];", match(sp$p[j], m$states) - 1, j - 1))
  }
  add("}")
  open_fn("void", "mb_move", "SP_REAL *x, const SP_REAL *e, const SP_REAL *p, SP_REAL fi, SP_REAL h")
  add("  (void)x; (void)e; (void)p; (void)fi; (void)h;")
  if (sp$ok) {
    add(sprintf("  SP_REAL v[%d];", length(sp$q)))
    for (j in seq_along(sp$q)) {
      s <- sp$q[j]
      add(sprintf("  v[%d] = %s;", j - 1, C(move[[s]], elem_map)),
          sprintf("the drift of `%s`, %s", s, dep(m$drift[[s]])))
    }
    for (j in seq_along(sp$q)) {
      add(sprintf("  x[%d] += h * v[%d];", match(sp$q[j], m$states) - 1, j - 1))
    }
    for (k in intersect(pk, match(sp$q, m$states) - 1L)) add(sprintf("  x[%d] = SP_WRAP(x[%d]);", k, k))
  }
  for (w in wrap_pos) add(gsub("y[", "x[", w, fixed = TRUE))
  add("}")
  # friction g and noise amplitude s of each momentum (parameters only), and
  # which state each momentum is
  open_fn("void", "mb_langevin", "const SP_REAL *p, SP_REAL *g, SP_REAL *s, int *which, int *wz")
  add("  (void)p; (void)g; (void)s; (void)which; (void)wz;")
  if (sp$ok) for (j in seq_along(sp$p)) {
    ps <- sp$p[j]
    w <- match(ps, names(noise))
    add(sprintf("  g[%d] = %s; s[%d] = %s; which[%d] = %d; wz[%d] = %d;", j - 1,
                C(friction[[ps]], base), j - 1,
                if (!is.na(w)) C(noise[[ps]], base) else "SP_R(0.0)", j - 1,
                match(ps, m$states) - 1, j - 1, if (is.na(w)) -1L else w - 1L),
        sprintf("the friction and noise of `%s`", ps))
  }
  add("}")
  list(text = paste0(paste(L, collapse = "\n"), "\n"),
       lines = data.frame(line = seq_along(L), what = what, stringsAsFactors = FALSE),
       derived = hoist$exprs, np = np, nu = nu)
}

# C of a rewritten many-body expression: as sde_to_c(), with the parts that
# depend only on the time and the parameters computed in double
# (sde_mark_time(): the time is exact at any t, a drive cos(omega t) at
# t = 1e6 in single precision).
sde_mb_to_c <- function(e, map, params, fast = character(), div = NULL, rcp = NULL) {
  sde_to_c(sde_mark_time(e, params), map, fast, div, rcp)
}
