# Translation of the right-hand sides of an SDE model (R expressions) to C
# expressions of the model's generated header (see sde_code()): a recursive
# walk over the call tree with a whitelist of functions.  The C compiles
# for float and double (SP_REAL) under C99 and CUDA: numbers are SP_R(),
# functions the SP_* macros of sde_engine.h's prelude (sde_header()).

# The functions a right-hand side may call, and their C forms.
SDE_UNARY <- c(exp = "SP_EXP", log = "SP_LOG", sqrt = "SP_SQRT", sin = "SP_SIN",
               cos = "SP_COS", tan = "SP_TAN", asin = "SP_ASIN", acos = "SP_ACOS",
               atan = "SP_ATAN", sinh = "SP_SINH", cosh = "SP_COSH", tanh = "SP_TANH",
               abs = "SP_FABS", floor = "SP_FLOOR", sign = "SP_SIGN")
SDE_FUNCTIONS <- c("+", "-", "*", "/", "^", "(", "<", ">", "<=", ">=", "==", "!=",
                   "&", "|", "!", "ifelse", names(SDE_UNARY), "atan2", "pmin", "pmax")

# A right-hand side as a language object: a one-sided formula, a quoted
# call, a symbol, a number or a string (parsed).  `what` names it in errors.
# A formula's or string's body that is a whole number (`~ 1L`) is returned
# as a double, as the number itself is, so that the model rebuilt from its
# stored expressions (sde_model_trusted()) is the one declared.
sde_rhs <- function(x, what, call) {
  num <- function(e) if (is.integer(e) && length(e) == 1 && !is.na(e)) as.double(e) else e
  if (inherits(x, "formula")) {
    if (length(x) != 2) {
      sp_abort(sprintf("%s must be a one-sided formula (~ expression), not %s.",
                       what, deparse1(x)), call = call)
    }
    return(num(x[[2]]))
  }
  if (is.character(x) && length(x) == 1 && !is.na(x)) {
    e <- tryCatch(parse(text = x, keep.source = FALSE), error = function(e) e)
    if (inherits(e, "error") || length(e) != 1) {
      sp_abort(sprintf("%s, \"%s\", is not one R expression%s.", what, x,
                       if (inherits(e, "error")) paste0(": ", sp_cnd_text(e)) else ""),
               call = call)
    }
    return(num(e[[1]]))
  }
  if (is.numeric(x) && length(x) == 1 && is.finite(x)) return(as.double(x))
  # (TRUE or FALSE: the body of `~ TRUE`, as stored in a model)
  if (is.logical(x) && length(x) == 1 && !is.na(x)) return(x)
  if (is.call(x) || is.name(x)) return(x)
  sp_abort(sprintf(paste0("%s must be a one-sided formula, a quoted call or a string, ",
                          "not %s."), what, describe(x)), call = call)
}

# Fold an expression tree bottom-up without recursion (a 300-term sum is a
# tree 300 deep, and R's C stack holds few nested closures): `leaf(e)` gives
# the value of a symbol or constant, `node(e, vals)` that of a call from the
# values of its arguments (e[[2]], e[[3]], ...); `pre(e)`, if given, is
# called on each call before its arguments are visited.
sde_fold <- function(e, leaf, node, pre = NULL) {
  es <- list(e)
  vals <- list(list())
  n <- 1L
  if (!is.null(pre) && is.call(e)) pre(e)
  repeat {
    cur <- es[[n]]
    if (is.call(cur)) {
      got <- length(vals[[n]])
      if (got < length(cur) - 1L) {
        n <- n + 1L
        es[n] <- list(cur[[got + 2L]])
        vals[n] <- list(list())
        if (!is.null(pre) && is.call(es[[n]])) pre(es[[n]])
        next
      }
      v <- node(cur, vals[[n]])
    } else {
      v <- leaf(cur)
    }
    n <- n - 1L
    if (n == 0L) return(v)
    vals[[n]][length(vals[[n]]) + 1L] <- list(v)
  }
}

# Check an expression: every function in SDE_FUNCTIONS (with its arity),
# every variable in `vars`.  Errors name `what`, the offender and what is
# allowed; `knows` says what the variables are.
sde_check_expr <- function(e, vars, what, call,
                           knows = "states, parameters, t and pi") {
  leaf <- function(e) {
    if (is.numeric(e) || is.logical(e)) {
      if (length(e) != 1 || !is.finite(e)) {
        sp_abort(sprintf("%s: %s is not a finite number.", what, deparse1(e)), call = call)
      }
      return(NULL)
    }
    if (is.name(e)) {
      v <- as.character(e)
      if (!(v %in% c(vars, "pi"))) {
        sp_abort(sprintf(paste0("%s uses the unknown variable `%s`; the model knows %s ",
                                "(%s)."), what, v,
                         paste0("`", c(vars, "pi"), "`", collapse = ", "), knows), call = call)
      }
      return(NULL)
    }
    sp_abort(sprintf("%s: `%s` is not an expression the model can compile.", what,
                     paste(deparse(e, nlines = 1L), collapse = " ")), call = call)
  }
  pre <- function(e) {
    if (!is.name(e[[1]])) {
      sp_abort(sprintf("%s: `%s` is not an expression the model can compile.", what,
                       deparse1(e, nlines = 1L)), call = call)
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
                       deparse1(e, nlines = 1L)), call = call)
    }
    if (any(vapply(seq_along(args), function(i) identical(args[[i]], quote(expr = )), TRUE))) {
      sp_abort(sprintf("%s: `%s` has an empty argument.", what, deparse1(e, nlines = 1L)),
               call = call)
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
                       deparse1(e, nlines = 1L), na, if (na == 1) "" else "s", f), call = call)
    }
  }
  sde_fold(e, leaf, function(e, vals) NULL, pre)
  invisible()
}

# C of a checked expression.  `map`: a named character vector from
# variable names to their C forms (x[0], p[2], t).  Chains of + and - (and
# of * and /) are written without nested parentheses: C groups them from
# the left as R does, so the value is the same, and a 1,000-term sum stays
# one level deep for the compiler.
sde_to_c <- function(e, map, fast = character(), div = NULL, rcp = NULL) {
  num <- function(v) sprintf("SP_R(%s)", sde_c_number(v))
  wrap <- function(inner, group = "") list(s = paste0("(", inner, ")"), inner = inner,
                                            group = group)
  atom <- function(s) list(s = s, inner = s, group = "")
  leaf <- function(e) {
    if (is.numeric(e) || is.logical(e)) return(atom(num(as.double(e))))
    v <- as.character(e)
    if (v %in% names(map)) return(atom(map[[v]]))
    if (v == "pi") return(atom(num(pi)))
    stop("internal error: unknown variable ", v)
  }
  node <- function(e, a) {
    f <- as.character(e[[1]])
    S <- function(i) a[[i]]$s
    chain <- function(grp) {
      left <- if (identical(a[[1]]$group, grp)) a[[1]]$inner else S(1)
      wrap(paste0(left, " ", f, " ", S(2)), grp)
    }
    switch(f,
      "(" = wrap(a[[1]]$inner, a[[1]]$group),
      "+" = , "-" = if (length(a) == 1) wrap(paste0(f, S(1))) else chain("add"),
      # `div`: a quotient as that macro's call (SP_PDIV of pair terms);
      # `rcp`: a quotient of the literal 1 as that macro's (SP_PRCP)
      "/" = if (!is.null(rcp) && sde_is_one(e[[2]])) atom(paste0(rcp, "(", S(2), ")"))
            else if (is.null(div)) chain("mul") else atom(paste0(div, "(", S(1), ", ", S(2), ")")),
      "*" = chain("mul"),
      "<" = , ">" = , "<=" = , ">=" = , "==" = , "!=" = wrap(paste0(S(1), " ", f, " ", S(2))),
      "&" = wrap(paste0(S(1), " && ", S(2))),
      "|" = wrap(paste0(S(1), " || ", S(2))),
      "!" = wrap(paste0("!", S(1))),
      "ifelse" = wrap(paste0(S(1), " ? ", S(2), " : ", S(3))),
      "^" = atom(sde_power_c(S(1), e[[3]], function(x) sde_to_c(x, map, div = div, rcp = rcp),
                             div, rcp)),
      "atan2" = atom(paste0("SP_ATAN2(", S(1), ", ", S(2), ")")),
      # a subexpression of t and the parameters, in double (R/sde-events.R)
      ".sp_time" = atom(sde_time_c(e[[2]], map)),
      "pmin" = , "pmax" = {
        fn <- if (f == "pmin") "SP_FMIN" else "SP_FMAX"
        out <- S(1)
        for (i in seq_along(a)[-1]) out <- paste0(fn, "(", out, ", ", S(i), ")")
        atom(out)
      },
      # the sine and cosine of a wrapped periodic state (`fast`: its C forms)
      if (f %in% c("sin", "cos") && a[[1]]$inner %in% fast)
        atom(paste0(if (f == "sin") "SP_SIN_P" else "SP_COS_P", "(", a[[1]]$inner, ")"))
      else atom(paste0(SDE_UNARY[[f]], "(", S(1), ")")))
  }
  # (the inside of .sp_time() is translated apart, by sde_time_c())
  sde_fold(e, leaf, node)$s
}

# A number as a C literal that reads back to the same double.
sde_c_number <- function(v) {
  s <- sprintf("%.17g", v)
  if (!grepl("[.eE]", s)) s <- paste0(s, ".0")
  s
}

# Is e the literal 1 (in parentheses or not)?
sde_is_one <- function(e) {
  while (is.call(e) && identical(e[[1]], as.name("(")) && length(e) == 2) e <- e[[2]]
  is.numeric(e) && length(e) == 1 && !is.na(e) && e == 1
}

# a^b: small whole exponents as products (pow is slow and, in single
# precision, not what x * x is), else SP_POW.  Negative ones as the
# reciprocal of the product: `rcp`'s call where given (SP_PRCP of pair
# terms), else a quotient (`div`'s).
sde_power_c <- function(base, ex, rec, div = NULL, rcp = NULL) {
  one <- "SP_R(1.0)"
  inv <- function(prod) {
    if (!is.null(rcp)) paste0(rcp, "(", prod, ")")
    else if (is.null(div)) paste0("(", one, " / ", prod, ")") else paste0(div, "(", one, ", ", prod, ")")
  }
  while (is.call(ex) && identical(ex[[1]], as.name("(")) && length(ex) == 2) ex <- ex[[2]]
  if (is.call(ex) && identical(ex[[1]], as.name("-")) && length(ex) == 2 && is.numeric(ex[[2]])) {
    ex <- -ex[[2]]
  }
  if (is.numeric(ex) && length(ex) == 1 && ex == round(ex) && abs(ex) <= 8) {
    n <- abs(ex)
    if (n == 0) return(one)
    prod <- paste0("(", paste(rep(base, n), collapse = " * "), ")")
    return(if (ex < 0) inv(prod) else prod)
  }
  # larger whole exponents (an r^-14 of a Lennard-Jones force) by repeated
  # squaring: the compilers compute each repeated square once
  if (is.numeric(ex) && length(ex) == 1 && ex == round(ex) && abs(ex) <= 64) {
    pw <- function(n) {
      if (n == 1) return(base)
      if (n %% 2 == 0) {
        h <- pw(n / 2)
        return(paste0("(", h, " * ", h, ")"))
      }
      paste0("(", pw(n - 1), " * ", base, ")")
    }
    prod <- pw(abs(ex))
    return(if (ex < 0) inv(prod) else prod)
  }
  if (is.numeric(ex) && length(ex) == 1 && ex == 0.5) return(paste0("SP_SQRT(", base, ")"))
  # half-integer exponents (the 3/2 of a Coulomb or ring force): x^(k + 1/2)
  # = x^k sqrt(x), x^-(k + 1/2) = (1/sqrt(x))^(2k + 1), without pow (the
  # repeated square roots are one, to the compiler)
  if (is.numeric(ex) && length(ex) == 1 && 2 * ex == round(2 * ex) && abs(ex) <= 8) {
    k <- floor(abs(ex))
    if (ex > 0) {
      return(paste0("(", paste(c(rep(base, k), paste0("SP_SQRT(", base, ")")),
                               collapse = " * "), ")"))
    }
    return(paste0("(", paste(rep(paste0("SP_RSQRT(", base, ")"), 2 * k + 1),
                             collapse = " * "), ")"))
  }
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


# Subexpressions that depend on the parameters only (no state, no t) are
# computed once per condition on the host, in double precision, rather than
# at every step: each maximal one becomes a derived parameter `.dK` (a name
# no model can use), appended to the parameters.  `h` collects them:
# h$exprs (the derived expressions), h$keys (their deparsed forms).
sde_hoist <- function(e, params, h) {
  # bottom-up: each value is list(e = the rewritten expression, const =
  # depends on parameters and numbers only, par = uses a parameter)
  name_of <- function(x) {
    key <- paste(deparse(x, width.cutoff = 500L), collapse = " ")
    i <- match(key, h$keys)
    if (is.na(i)) {
      h$keys <- c(h$keys, key)
      h$exprs <- c(h$exprs, list(x))
      i <- length(h$keys)
    }
    as.name(paste0(".d", i))
  }
  # a maximal constant part: hoisted when it is a call using a parameter
  # (inside parentheses: the inside, so that the parentheses stay)
  lift <- function(v) {
    if (!v$const || !v$par || !is.call(v$e)) return(v$e)
    x <- v$e
    if (identical(x[[1]], as.name("("))) {
      inner <- list(e = x[[2]], const = TRUE, par = TRUE)
      return(call("(", lift(inner)))
    }
    name_of(x)
  }
  leaf <- function(x) {
    if (is.name(x)) {
      v <- as.character(x)
      return(list(e = x, const = v %in% c(params, "pi"), par = v %in% params))
    }
    list(e = x, const = TRUE, par = FALSE)
  }
  node <- function(x, vals) {
    const <- all(vapply(vals, function(v) v$const, TRUE))
    par <- any(vapply(vals, function(v) v$par, TRUE))
    if (!const) {
      for (j in seq_along(vals)) x[[j + 1L]] <- lift(vals[[j]])
    } else {
      for (j in seq_along(vals)) x[[j + 1L]] <- vals[[j]]$e
    }
    list(e = x, const = const, par = par)
  }
  v <- sde_fold(e, leaf, node)
  lift(v)
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
# model's right-hand sides are (one copy per precision: no include guard);
# `fn` names it (sde_ams_edge: the coordinate of A, sde_ams(start_coordinate =)).
sde_score_header <- function(m, e, fn = "sde_ams_score") {
  map <- c(stats::setNames(sprintf("x[%d]", seq_along(m$states) - 1L), m$states),
           stats::setNames(sprintf("p[%d]", seq_along(m$params) - 1L), names(m$params)),
           t = "t")
  dep <- sde_c_comment(paste(deparse(e, width.cutoff = 500L), collapse = " "))
  paste0(paste(c(
    sprintf("/* score of sde_ams() for the model \"%s\": %s (generated; do not edit) */",
            sde_c_name(m$name), dep),
    sprintf("SP_FN SP_REAL SP_PREC(%s)(SP_REAL t, const SP_REAL *x, const SP_REAL *p) {", fn),
    "  (void)t; (void)x; (void)p;",
    sprintf("  return %s;", sde_to_c(e, map)),
    "}"), collapse = "\n"), "\n")
}

# ---- noise as a matrix -----------------------------------------------------------

# A noise matrix (states x independent Wiener processes): a matrix of
# right-hand sides (a list matrix of formulas, strings or numbers, or a
# character or numeric matrix), its rows named by states (or one row per
# state, in their order), its columns the Wiener processes (named, or w1,
# w2, ...).  Returns its nonzero entries: e (named by their state), k (their
# column), wiener (the column names) and decl (the matrix of the parsed
# entries, 0 where the noise is structurally zero).
sde_noise_matrix <- function(x, states, call) {
  if (length(dim(x)) != 2 || !(is.list(x) || is.character(x) || is.numeric(x))) {
    sp_abort(sprintf(paste0("`noise` must be a named list (diagonal noise) or a matrix of ",
                            "right-hand sides (states x Wiener processes), not %s."),
                     describe(x)), call = call)
  }
  rn <- rownames(x)
  if (is.null(rn)) {
    if (nrow(x) != length(states)) {
      sp_abort(sprintf(paste0("the noise matrix has %d rows and no row names; name its rows ",
                              "by states, or give one row per state (%d)."), nrow(x),
                       length(states)), call = call)
    }
    rn <- states
  }
  bad <- setdiff(rn, states)
  if (length(bad) || anyDuplicated(rn)) {
    sp_abort(sprintf("the rows of the noise matrix must be states, each once: %s%s.",
                     if (length(bad)) sprintf("`%s` is not a state", bad[1])
                     else sprintf("`%s` twice", rn[anyDuplicated(rn)]),
                     sprintf(" (the states are %s)", paste0("`", states, "`", collapse = ", "))),
             call = call)
  }
  cn <- colnames(x) %||% paste0("w", seq_len(ncol(x)))
  if (anyDuplicated(cn) || any(!nzchar(cn)) || anyNA(cn)) {
    sp_abort("the columns of the noise matrix (its Wiener processes) need distinct names.",
             call = call)
  }
  # names of Wiener processes are identifiers (letters, digits, _; shown in
  # messages and comments of the generated C, never code)
  bad <- cn[!grepl("^[A-Za-z][A-Za-z0-9_]{0,63}$", cn)]
  if (length(bad)) {
    sp_abort(sprintf(paste0("the noise matrix has the column name \"%s\"; the columns (Wiener ",
                            "processes) are named by identifiers: a letter, then letters, digits ",
                            "or _ (at most 64), e.g. w1, w2 or dW_x."),
                     sde_c_comment(substr(bad[1], 1, 60))), call = call,
             class = "statphysgpu_bad_name")
  }
  decl <- matrix(list(0), nrow(x), ncol(x), dimnames = list(rn, cn))
  e <- list(); k <- integer(); st <- character()
  for (kk in seq_len(ncol(x))) for (i in seq_len(nrow(x))) {
    v <- if (is.list(x)) x[[i, kk]] else x[i, kk]
    what <- sprintf("the noise on `%s` from `%s`", rn[i], cn[kk])
    if (is.null(v) || (is.numeric(v) && length(v) == 1 && !is.na(v) && v == 0)) next
    ex <- sde_rhs(v, what, call)
    if (is.numeric(ex) && ex == 0) next
    decl[[i, kk]] <- ex
    e[[length(e) + 1L]] <- ex
    k <- c(k, kk)
    st <- c(st, rn[i])
  }
  if (!length(e)) sp_abort("the noise matrix is zero: give `noise = NULL` for no noise.", call = call)
  names(e) <- st
  list(e = e, k = k, wiener = cn, decl = decl)
}

# The Ito-Stratonovich drift corrections of noise entries e (named by their
# state, on Wiener processes k): for state x_i, the term
# (1/2) sum_k sum_j b_jk d b_ik / d x_j (Ito = Stratonovich + it); with
# diagonal noise (1/2) b db/dx.  A named list by state of the expressions
# (states whose noise depends on no state: none), or of an error where
# stats::D() cannot form a derivative.
sde_noise_corrections <- function(e, k, states) {
  out <- list()
  for (s in unique(names(e))) {
    terms <- list()
    err <- NULL
    for (a in which(names(e) == s)) {
      b <- e[[a]]
      for (c in which(k == k[a])) {
        xj <- names(e)[c]
        if (!(xj %in% all.vars(b))) next
        via <- sde_noise_coupling(b)
        if (length(via)) { # a many-body coupling: no derivative through it
          err <- simpleError(sprintf(paste0(
            "the noise on `%s` depends on the states through %s, a coupling of the elements, ",
            "and its calculus correction (derivatives through the coupling) is not derived"),
            s, paste(via, collapse = " and ")))
          break
        }
        d <- tryCatch(stats::D(b, xj), error = function(err) err)
        if (inherits(d, "error")) {
          err <- simpleError(sprintf(paste0(
            "the noise on `%s` depends on `%s` (multiplicative noise), and its derivative, ",
            "needed for the calculus correction, cannot be formed symbolically (%s); write it ",
            "with functions stats::D() knows (exp, log, sqrt, sin, cos, tan, sinh, cosh, asin, ",
            "acos, atan, ^)"), s, xj, sp_cnd_text(d)))
          break
        }
        terms[[length(terms) + 1L]] <- call("*", call("(", e[[c]]), call("(", d))
      }
      if (!is.null(err)) break
    }
    if (!is.null(err)) {
      out[[s]] <- err
    } else if (length(terms)) {
      out[[s]] <- call("*", 0.5, call("(", Reduce(function(x, y) call("+", x, y), terms)))
    }
  }
  out
}

# The many-body couplings an expression of a noise reads the states through
# (mean(), sum(), pairs(), lattice neighbours), as they are named in messages.
sde_noise_coupling <- function(e) {
  a <- if (is.list(e)) unlist(lapply(e, all.names)) else all.names(e)
  # x[...] outside pairs() (inside, x[j] is the partner's value)
  nb <- function(x) {
    if (!is.call(x) || identical(x[[1]], as.name("pairs"))) return(FALSE)
    if (identical(x[[1]], as.name("["))) return(TRUE)
    any(vapply(as.list(x)[-1], nb, TRUE))
  }
  c(if ("pairs" %in% a) "pairs()", if ("mean" %in% a) "mean()", if ("sum" %in% a) "sum()",
    if (any(vapply(if (is.list(e)) e else list(e), nb, TRUE))) "lattice neighbours")
}

# What a model's noise is, as print() says it: additive, or multiplicative
# in the states named, with the drift correction for the other calculus, or
# without it (a derivative that cannot be formed: only the method of the
# model's own calculus).
sde_noise_kind <- function(x) {
  parts <- character()
  if (length(x$correction)) {
    parts <- c(parts, sprintf(
      "multiplicative in %s (drift corrected by b db/dx / 2 for the other calculus)",
      paste(names(x$correction), collapse = ", ")))
  }
  if (length(x$uncorrectable)) {
    via <- sde_noise_coupling(x$noise[names(x$noise) %in% x$uncorrectable])
    parts <- c(parts, sprintf(paste0(
      "multiplicative in %s%s, without the correction for the other calculus: only ",
      "method = \"%s\" (the %s form)"), paste(x$uncorrectable, collapse = ", "),
      if (length(via)) paste0(" through ", paste(via, collapse = " and ")) else "",
      if (x$calculus == "ito") "euler" else "srk2",
      if (x$calculus == "ito") "Ito" else "Stratonovich"))
  }
  if (length(parts)) paste(parts, collapse = "; ") else "additive"
}

# How entry j of a model's noise is named in comments and messages.
sde_noise_label <- function(m, j) {
  s <- names(m$noise)[j]
  if (is.null(m$noise_decl)) s else sprintf("%s (%s)", s, m$noise_w[m$noise_k[j]])
}

# ---- what reaches the compiler -------------------------------------------------

# Text a user chose reaches generated C only as identifiers that passed the
# name checks (and are then mapped to x[k], p[k], ...) and as expressions
# that went through the translator; what comments show of names and
# expressions goes through these two functions.

# A model's name as a comment shows it: the name itself when it is short
# plain ASCII (letters, digits, space and _ . , : = + ( ) -), else only its
# hash (never the text: a comment end, a backslash-newline, a trigraph or a
# `#` line in a name would otherwise become code).
sde_c_name <- function(name) {
  name <- paste(as.character(name), collapse = " ")
  if (validUTF8(name) && nchar(name, type = "bytes") <= 80 &&
      grepl("^[A-Za-z0-9 _.,:=+()-]*$", name, useBytes = TRUE)) {
    return(name)
  }
  sprintf("<name not shown: sha256 %s>", substr(sp_sha256(name), 1, 16))
}

# Text for a comment of generated C (deparsed expressions of checked names
# and numbers): every byte outside printable ASCII, a backslash, `?` (the
# start of a trigraph), quotes and `#` become `_`, and no comment can be
# opened or closed inside it.
sde_c_comment <- function(s) {
  s <- paste(as.character(s), collapse = " ")
  if (!validUTF8(s)) s <- iconv(s, "latin1", "ASCII", sub = "_")
  s <- gsub("[^][A-Za-z0-9 _.,;:=+*/^()<>!&|~%$@{}-]", "_", s, perl = TRUE)
  if (nchar(s) > 2000) s <- paste0(substr(s, 1, 2000), " ...")
  while (grepl("*/", s, fixed = TRUE) || grepl("/*", s, fixed = TRUE)) {
    s <- gsub("*/", "* /", s, fixed = TRUE)
    s <- gsub("/*", "/ *", s, fixed = TRUE)
  }
  s
}

# The last guard before anything is compiled: generated text must be plain
# printable ASCII with no backslash (no line splices), no trigraph, comments
# that close on their own terms; outside comments (strict = TRUE: a model's
# generated header) no quote of any kind and no preprocessor line but
# #define / #undef of the package's SP_ names.  A violation is an internal
# error: the generator let through text it must not, and nothing compiles.
sde_code_check <- function(text, what, strict = TRUE) {
  text <- paste(text, collapse = "\n")
  bad <- function(why) {
    sp_abort(sprintf(paste0("internal error: the generated C of %s %s; nothing was compiled. ",
                            "Please report this."), what, why),
             class = "statphysgpu_unsafe_code")
  }
  if (!validUTF8(text) || grepl("[^\n\x20-\x7e]", text, useBytes = TRUE, perl = TRUE)) {
    bad("holds a byte that is not printable ASCII")
  }
  if (grepl("\\", text, fixed = TRUE)) bad("holds a backslash")
  if (grepl("??", text, fixed = TRUE)) bad("holds a trigraph")
  # the text outside comments
  code <- character()
  rest <- text
  repeat {
    k <- regexpr("/*", rest, fixed = TRUE)
    if (k < 0) {
      code <- c(code, rest)
      break
    }
    code <- c(code, substr(rest, 1, k - 1))
    rest <- substr(rest, k + 2, nchar(rest))
    e <- regexpr("*/", rest, fixed = TRUE)
    if (e < 0) bad("has a comment that does not close")
    rest <- substr(rest, e + 2, nchar(rest))
  }
  code <- paste(code, collapse = " ")
  if (grepl("*/", code, fixed = TRUE)) bad("closes a comment it did not open")
  if (strict) {
    if (grepl("[\"'`@$]", code)) bad("holds a quote outside comments")
    lines <- trimws(strsplit(code, "\n", fixed = TRUE)[[1]])
    pp <- lines[startsWith(lines, "#")]
    ok <- grepl("^#(define|undef)[ ]+SP_[A-Za-z0-9_]*([ (].*)?$", pp)
    if (any(!ok)) bad(sprintf("has the preprocessor line `%s`", sde_c_comment(pp[!ok][1])))
    if (any(grepl("#", c(lines[!startsWith(lines, "#")], substring(pp, 2)), fixed = TRUE))) {
      bad("has a `#` inside a line")
    }
  }
  invisible(text)
}
