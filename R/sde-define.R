# Local definitions of a model (sde_model(define = )) and positions in a
# periodic box (sde_model(positions = )), issue 49.
#
# A definition is a name for an expression, usable in every right-hand
# side, observable and pair term; definitions may use each other (no
# cycles).  They are checked once and inlined where used: each use of the
# name becomes the definition's expression in parentheses before the model
# is analysed, so that the rest of the package -- checks, corrections,
# hoisting, the translation -- sees one expression.  A definition that uses
# what exists only for a pair (a partner's value x[j], its number j, the
# separation dx, dy, dz and distance r of a model with positions, an edge's
# weight a) may be used only inside pairs() or edges(); this is checked here
# with a message that names the definition.

# Names of the pair geometry of a model with positions (inside pairs() and
# edges()), and of an edge's weight (inside edges()).
SDE_PAIR_GEOMETRY <- c("dx", "dy", "dz", "r")
SDE_EDGE_WEIGHT <- "a"

# The hidden parameters of the box: its sides and their inverses (unused
# axes 1), after n (and a square lattice's columns) in each condition's
# parameters (sde_mb_par()).
SDE_MB_BOX_PARAMS <- c(".bx", ".by", ".bz", ".ibx", ".iby", ".ibz")

# The checked definitions: a named list of parsed expressions.
sde_define_parse <- function(define, taken, call) {
  if (is.null(define) || (is.list(define) && !length(define))) return(list())
  sde_check_names(define, "define", call)
  nm <- names(define)
  clash <- intersect(nm, taken)
  if (length(clash)) {
    sp_abort(sprintf(paste0("`define` has the name `%s`, which the model uses for a state, ",
                            "parameter or observable; choose another."), clash[1]), call = call)
  }
  bad <- intersect(nm, c(SDE_PAIR_GEOMETRY, SDE_EDGE_WEIGHT))
  if (length(bad)) {
    sp_abort(sprintf(paste0("`define` has the name `%s`, which inside pairs() and edges() is the ",
                            "pair's %s; choose another."), bad[1],
                     if (bad[1] == "a") "edge weight" else "separation or distance"), call = call)
  }
  out <- lapply(nm, function(d) sde_rhs(define[[d]], sprintf("the definition `%s`", d), call))
  names(out) <- nm
  out
}

# Replace the names `defs` (expanded expressions) in e by their
# expressions, in parentheses.
sde_define_apply <- function(e, defs) {
  if (!length(defs) || is.null(e)) return(e)
  if (!length(intersect(all.names(e), names(defs)))) return(e)
  wrapped <- lapply(defs, function(x) if (is.call(x)) call("(", x) else x)
  sde_subst(e, wrapped)
}

# The definitions expanded in terms of each other (each holds no name of
# a definition), or an error naming a cycle.
sde_define_expand <- function(defs, call) {
  if (!length(defs)) return(defs)
  nm <- names(defs)
  out <- defs
  for (round in seq_len(length(nm) + 1L)) {
    uses <- vapply(out, function(x) any(all.names(x) %in% nm), TRUE)
    if (!any(uses)) return(out)
    if (round > length(nm)) break
    out <- lapply(out, sde_define_apply, defs = out)
  }
  cyc <- nm[vapply(out, function(x) any(all.names(x) %in% nm), TRUE)]
  sp_abort(sprintf(paste0("the definitions use each other in a cycle (`%s` is defined through ",
                          "itself); a definition may use the ones it does not lead back to."),
                   cyc[1]), call = call)
}

# The definitions (expanded) that hold a pair quantity: x[j], j, the
# geometry of a model with positions, an edge's weight.
sde_define_pair_level <- function(defs, positions, params) {
  if (!length(defs)) return(character())
  geo <- setdiff(c(if (length(positions)) SDE_PAIR_GEOMETRY, SDE_EDGE_WEIGHT), params)
  nm <- names(defs)
  nm[vapply(defs, function(x) {
    any(all.vars(x) %in% c("j", geo)) || sde_uses_partner(x)
  }, TRUE)]
}

# Does e index a state by the partner j (x[j])?
sde_uses_partner <- function(e) {
  if (!is.call(e)) return(FALSE)
  if (identical(e[[1]], as.name("[")) && length(e) == 3 && identical(e[[3]], as.name("j"))) {
    return(TRUE)
  }
  any(vapply(as.list(e)[-1], function(x) !missing(x) && sde_uses_partner(x), TRUE))
}

# Check that the pair-level definitions `pair_defs` are used in the
# (unexpanded) expression e only inside pairs() or edges().
sde_define_check_use <- function(e, pair_defs, what, call) {
  if (!length(pair_defs) || is.null(e)) return(invisible())
  walk <- function(x, inside) {
    if (is.name(x)) {
      v <- as.character(x)
      if (v %in% pair_defs && !inside) {
        sp_abort(sprintf(paste0("%s uses the definition `%s` outside pairs() and edges(); it ",
                                "holds a quantity of a pair (x[j], j, r, dx, dy, dz or an edge's ",
                                "weight a), which exists only inside them."), what, v),
                 call = call)
      }
      return(invisible())
    }
    if (!is.call(x)) return(invisible())
    f <- if (is.name(x[[1]])) as.character(x[[1]]) else ""
    inner <- inside || f %in% c("pairs", "edges")
    for (k in seq_along(x)[-1]) if (!identical(x[[k]], quote(expr = ))) walk(x[[k]], inner)
  }
  walk(e, FALSE)
  invisible()
}

# The checked `positions` of sde_model(): one to three distinct states, not
# periodic.
sde_check_positions <- function(positions, states, periodic, call) {
  if (is.null(positions) || !length(positions)) return(character())
  if (!is.character(positions) || anyNA(positions) || length(positions) > 3 ||
      anyDuplicated(positions)) {
    sp_abort(sprintf(paste0("`positions` must name one to three distinct states (a particle's ",
                            "coordinates: c(\"x\", \"y\") in the plane), not %s."),
                     describe(positions)), call = call)
  }
  bad <- setdiff(positions, states)
  if (length(bad)) {
    sp_abort(sprintf("`positions` names `%s`, which is not a state; the states are %s.", bad[1],
                     paste0("`", states, "`", collapse = ", ")), call = call)
  }
  both <- intersect(positions, periodic)
  if (length(both)) {
    sp_abort(sprintf(paste0("`%s` is both a position (kept in [0, L) of the box) and periodic ",
                            "(an angle kept in [-pi, pi]); declare it as one of them."), both[1]),
             call = call)
  }
  positions
}
