# Translation of the right-hand sides of an SDE model (R expressions) to C
# expressions of the model's generated header (see sde_code()): a recursive
# walk over the call tree with a whitelist of functions.  The C compiles
# for float and double (SP_REAL) under C99 and CUDA: numbers are SP_R(),
# functions the SP_* macros of sde_engine.h's prelude (sde_header()).

# The functions a right-hand side may call, and their C forms.
SDE_UNARY <- c(exp = "SP_EXP", log = "SP_LOG", sqrt = "SP_SQRT", sin = "SP_SIN",
               cos = "SP_COS", tan = "SP_TAN", asin = "SP_ASIN", acos = "SP_ACOS",
               atan = "SP_ATAN", sinh = "SP_SINH", cosh = "SP_COSH", tanh = "SP_TANH",
               abs = "SP_FABS", floor = "SP_FLOOR")
SDE_FUNCTIONS <- c("+", "-", "*", "/", "^", "(", "<", ">", "<=", ">=", "==", "!=",
                   "&", "|", "!", "ifelse", names(SDE_UNARY), "atan2", "pmin", "pmax")

# A right-hand side as a language object: a one-sided formula, a quoted
# call, a symbol, a number or a string (parsed).  `what` names it in errors.
sde_rhs <- function(x, what, call) {
  if (inherits(x, "formula")) {
    if (length(x) != 2) {
      sp_abort(sprintf("%s must be a one-sided formula (~ expression), not %s.",
                       what, deparse1(x)), call = call)
    }
    return(x[[2]])
  }
  if (is.character(x) && length(x) == 1 && !is.na(x)) {
    e <- tryCatch(parse(text = x, keep.source = FALSE), error = function(e) e)
    if (inherits(e, "error") || length(e) != 1) {
      sp_abort(sprintf("%s, \"%s\", is not one R expression%s.", what, x,
                       if (inherits(e, "error")) paste0(": ", conditionMessage(e)) else ""),
               call = call)
    }
    return(e[[1]])
  }
  if (is.numeric(x) && length(x) == 1 && is.finite(x)) return(as.double(x))
  if (is.call(x) || is.name(x)) return(x)
  sp_abort(sprintf(paste0("%s must be a one-sided formula, a quoted call or a string, ",
                          "not %s."), what, describe(x)), call = call)
}

# Check an expression: every function in SDE_FUNCTIONS (with its arity),
# every variable in `vars`.  Errors name `what`, the offender and what is
# allowed.
sde_check_expr <- function(e, vars, what, call) {
  walk <- function(e) {
    if (is.numeric(e) || is.logical(e)) {
      if (length(e) != 1 || !is.finite(e)) {
        sp_abort(sprintf("%s: %s is not a finite number.", what, deparse1(e)), call = call)
      }
      return(invisible())
    }
    if (is.name(e)) {
      v <- as.character(e)
      if (!(v %in% c(vars, "pi"))) {
        sp_abort(sprintf(paste0("%s uses the unknown variable `%s`; the model knows %s ",
                                "(states, parameters, t and pi)."), what, v,
                         paste0("`", c(vars, "pi"), "`", collapse = ", ")), call = call)
      }
      return(invisible())
    }
    if (!is.call(e) || !is.name(e[[1]])) {
      sp_abort(sprintf("%s: `%s` is not an expression the model can compile.", what,
                       deparse1(e)), call = call)
    }
    f <- as.character(e[[1]])
    if (!(f %in% SDE_FUNCTIONS)) {
      sp_abort(sprintf("%s uses the unknown function `%s()`; allowed are %s.", what, f,
                       paste(SDE_FUNCTIONS[SDE_FUNCTIONS != "("], collapse = " ")),
               call = call)
    }
    args <- as.list(e)[-1]
    if (!is.null(names(args)) && any(nzchar(names(args)))) {
      sp_abort(sprintf("%s: `%s` has named arguments; write them by position.", what,
                       deparse1(e)), call = call)
    }
    na <- length(args)
    ok <- switch(f,
                 "+" = , "-" = na %in% 1:2,
                 "!" = , "(" = na == 1,
                 "ifelse" = na == 3,
                 "pmin" = , "pmax" = na >= 2,
                 "atan2" = na == 2,
                 if (f %in% names(SDE_UNARY)) na == 1 else na == 2)
    if (!ok) {
      sp_abort(sprintf("%s: `%s` has %d argument%s, which `%s` does not take.", what,
                       deparse1(e), na, if (na == 1) "" else "s", f), call = call)
    }
    for (a in args) walk(a)
    invisible()
  }
  walk(e)
}

# C of a checked expression.  `map`: a named character vector from
# variable names to their C forms (x[0], p[2], t).
sde_to_c <- function(e, map) {
  num <- function(v) sprintf("SP_R(%s)", sde_c_number(v))
  rec <- function(e) {
    if (is.numeric(e) || is.logical(e)) return(num(as.double(e)))
    if (is.name(e)) {
      v <- as.character(e)
      if (v %in% names(map)) return(map[[v]])
      if (v == "pi") return(num(pi))
      stop("internal error: unknown variable ", v)
    }
    f <- as.character(e[[1]])
    a <- as.list(e)[-1]
    switch(f,
      "(" = paste0("(", rec(a[[1]]), ")"),
      ".sp_time" = sde_time_c(a[[1]], map), # a subexpression of t (R/sde-events.R)
      "+" = , "-" = if (length(a) == 1) paste0("(", f, rec(a[[1]]), ")")
                    else paste0("(", rec(a[[1]]), " ", f, " ", rec(a[[2]]), ")"),
      "*" = , "/" = , "<" = , ">" = , "<=" = , ">=" = , "==" = , "!=" =
        paste0("(", rec(a[[1]]), " ", f, " ", rec(a[[2]]), ")"),
      "&" = paste0("(", rec(a[[1]]), " && ", rec(a[[2]]), ")"),
      "|" = paste0("(", rec(a[[1]]), " || ", rec(a[[2]]), ")"),
      "!" = paste0("(!", rec(a[[1]]), ")"),
      "ifelse" = paste0("(", rec(a[[1]]), " ? ", rec(a[[2]]), " : ", rec(a[[3]]), ")"),
      "^" = sde_power_c(rec(a[[1]]), a[[2]], rec),
      "atan2" = paste0("SP_ATAN2(", rec(a[[1]]), ", ", rec(a[[2]]), ")"),
      "pmin" = , "pmax" = {
        fn <- if (f == "pmin") "SP_FMIN" else "SP_FMAX"
        out <- rec(a[[1]])
        for (b in a[-1]) out <- paste0(fn, "(", out, ", ", rec(b), ")")
        out
      },
      paste0(SDE_UNARY[[f]], "(", rec(a[[1]]), ")"))
  }
  rec(e)
}

# A number as a C literal that reads back to the same double.
sde_c_number <- function(v) {
  s <- sprintf("%.17g", v)
  if (!grepl("[.eE]", s)) s <- paste0(s, ".0")
  s
}

# a^b: small whole exponents as products (pow is slow and, in single
# precision, not what x * x is), else SP_POW.
sde_power_c <- function(base, ex, rec) {
  while (is.call(ex) && identical(ex[[1]], as.name("(")) && length(ex) == 2) ex <- ex[[2]]
  if (is.call(ex) && identical(ex[[1]], as.name("-")) && length(ex) == 2 && is.numeric(ex[[2]])) {
    ex <- -ex[[2]]
  }
  if (is.numeric(ex) && length(ex) == 1 && ex == round(ex) && abs(ex) <= 8) {
    n <- abs(ex)
    if (n == 0) return("SP_R(1.0)")
    prod <- paste0("(", paste(rep(base, n), collapse = " * "), ")")
    return(if (ex < 0) paste0("(SP_R(1.0) / ", prod, ")") else prod)
  }
  if (is.numeric(ex) && length(ex) == 1 && ex == 0.5) return(paste0("SP_SQRT(", base, ")"))
  paste0("SP_POW(", base, ", ", rec(ex), ")")
}

# Is an event a comparison whose crossing can be interpolated?  Returns the
# gap lhs - rhs (positive when the event holds) as an expression, or NULL.
sde_event_gap <- function(e) {
  while (is.call(e) && identical(e[[1]], as.name("("))) e <- e[[2]]
  if (!is.call(e)) return(NULL)
  f <- as.character(e[[1]])
  if (f %in% c(">", ">=")) return(call("-", e[[2]], e[[3]]))
  if (f %in% c("<", "<=")) return(call("-", e[[3]], e[[2]]))
  NULL
}

# The Ito-Stratonovich drift correction of diagonal noise: b db/dx / 2 of
# the noise b on state x (NULL when b does not depend on x: additive).
sde_noise_correction <- function(b, state, what, call) {
  if (!(state %in% all.vars(b))) return(NULL)
  d <- tryCatch(stats::D(b, state), error = function(e) e)
  if (inherits(d, "error")) {
    sp_abort(sprintf(paste0(
      "%s depends on `%s` (multiplicative noise), and its derivative, needed for ",
      "the calculus correction b db/d%s / 2, cannot be formed symbolically (%s); ",
      "write it with functions stats::D() knows (exp, log, sqrt, sin, cos, tan, ",
      "sinh, cosh, asin, acos, atan, ^)."), what, state, state, conditionMessage(d)),
      call = call)
  }
  call("*", call("*", 0.5, call("(", b)), call("(", d))
}

# Subexpressions that depend on the parameters only (no state, no t) are
# computed once per condition on the host, in double precision, rather than
# at every step: each maximal one becomes a derived parameter `.dK` (a name
# no model can use), appended to the parameters.  `h` collects them:
# h$exprs (the derived expressions), h$keys (their deparsed forms).
sde_hoist <- function(e, params, h) {
  const_call <- function(e) {
    v <- all.vars(e)
    is.call(e) && !identical(e[[1]], as.name("(")) && any(v %in% params) &&
      all(v %in% c(params, "pi"))
  }
  rec <- function(e) {
    if (const_call(e)) {
      key <- paste(deparse(e, width.cutoff = 500L), collapse = " ")
      i <- match(key, h$keys)
      if (is.na(i)) {
        h$keys <- c(h$keys, key)
        h$exprs <- c(h$exprs, list(e))
        i <- length(h$keys)
      }
      return(as.name(paste0(".d", i)))
    }
    if (is.call(e)) {
      for (j in seq_along(e)[-1]) e[[j]] <- rec(e[[j]])
    }
    e
  }
  rec(e)
}

# The derived parameters of a model for each condition (rows of `grid`):
# a matrix with one column per derived expression.
sde_derived_values <- function(m, grid, call) {
  nd <- length(m$derived)
  out <- matrix(0, nrow(grid), nd)
  for (j in seq_len(nd)) {
    e <- m$derived[[j]]
    out[, j] <- vapply(seq_len(nrow(grid)), function(c) {
      env <- list2env(as.list(grid[c, names(m$params), drop = FALSE]), parent = baseenv())
      r <- suppressWarnings(as.double(eval(e, env)))
      if (length(r) != 1) NA_real_ else r
    }, 0)
    bad <- !is.finite(out[, j])
    if (any(bad)) {
      sp_abort(sprintf(paste0("the model's `%s` is %s for condition %d (the parameters ",
                              "%s); it must be finite."), paste(deparse(e), collapse = " "),
                       format(out[which(bad)[1], j]), which(bad)[1],
                       paste(sprintf("%s = %s", names(m$params),
                                     format(unlist(grid[which(bad)[1], names(m$params)]))),
                             collapse = ", ")), call = call)
    }
  }
  out
}

# The generated header of an AMS score (sde_ams()): the checked expression
# `e` over the model's states and parameters as the C function
# sde_ams_score(t, x, p) in the working precision, translated as the
# model's right-hand sides are (one copy per precision: no include guard).
sde_score_header <- function(m, e) {
  map <- c(stats::setNames(sprintf("x[%d]", seq_along(m$states) - 1L), m$states),
           stats::setNames(sprintf("p[%d]", seq_along(m$params) - 1L), names(m$params)),
           t = "t")
  dep <- gsub("*/", "* /", paste(deparse(e, width.cutoff = 500L), collapse = " "), fixed = TRUE)
  paste0(paste(c(
    sprintf("/* score of sde_ams() for the model \"%s\": %s (generated; do not edit) */",
            gsub("*/", "* /", m$name, fixed = TRUE), dep),
    "SP_FN SP_REAL SP_PREC(sde_ams_score)(SP_REAL t, const SP_REAL *x, const SP_REAL *p) {",
    "  (void)t; (void)x; (void)p;",
    sprintf("  return %s;", sde_to_c(e, map)),
    "}"), collapse = "\n"), "\n")
}
