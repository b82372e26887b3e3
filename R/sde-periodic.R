# Periodic states of a model (sde_model(periodic = )): angles of period
# 2 pi, kept in [-pi, pi] by the engines (the generated mb_apply_noise and
# mb_move wrap them after every stage; starts are wrapped before the first
# step).  A model may read such a state only through sin() and cos() of an
# argument in which each of its forms (the element's own value, a
# neighbour's x[i + 1], a partner's x[j]) has a whole-number coefficient, so
# that the dynamics do not change when any element's angle moves by 2 pi.

# The checked `periodic` (NULL when none) of a model with states `states`
# and right-hand sides `exprs` (a list named by what each is, for errors).
sde_check_periodic <- function(periodic, states, exprs, call) {
  if (is.null(periodic) || (is.character(periodic) && !length(periodic))) return(NULL)
  if (!is.character(periodic) || anyNA(periodic)) {
    sp_abort(sprintf("`periodic` must be NULL or the names of states, not %s.",
                     describe(periodic)), call = call)
  }
  unknown <- setdiff(periodic, states)
  if (length(unknown)) {
    sp_abort(sprintf(paste0("`periodic` names `%s`, which is not a state; the states (names ",
                            "of `drift`) are %s."), unknown[1],
                     paste0("`", states, "`", collapse = ", ")), call = call)
  }
  if (anyDuplicated(periodic)) {
    sp_abort(sprintf("`periodic` names `%s` twice.", periodic[anyDuplicated(periodic)]),
             call = call)
  }
  is_form <- function(e) {
    (is.name(e) && as.character(e) %in% periodic) ||
      (is.call(e) && identical(e[[1]], as.name("[")) && is.name(e[[2]]) &&
         as.character(e[[2]]) %in% periodic)
  }
  for (k in seq_along(exprs)) {
    what <- names(exprs)[k]
    stack <- list(exprs[[k]])
    while (length(stack)) {
      e <- stack[[length(stack)]]
      stack[[length(stack)]] <- NULL
      if (is_form(e)) {
        s <- if (is.name(e)) as.character(e) else as.character(e[[2]])
        sp_abort(sprintf(paste0(
          "%s reads the periodic state `%s` outside sin() and cos() (as `%s` in %s): a ",
          "periodic state is an angle kept in [-pi, pi], so the model may use it only ",
          "through sin() and cos(). Drop it from `periodic`, or write the term with them."),
          what, s, deparse1(e), deparse1(exprs[[k]])), call = call,
          class = "statphysgpu_periodic")
      }
      if (!is.call(e)) next
      f <- e[[1]]
      if (is.name(f) && as.character(f) %in% c("sin", "cos") && length(e) == 2) {
        bad <- sde_periodic_multiple(e[[2]], is_form)
        if (!is.null(bad)) {
          sp_abort(sprintf(paste0(
            "%s takes %s of `%s`, in which `%s` has the coefficient %s: the sine and cosine ",
            "of a periodic state's multiple are periodic only for whole-number multiples ",
            "known when the model is made (sin(theta), cos(2 * theta), sin(theta[j] - theta)). ",
            "Drop it from `periodic`, or write the term so."),
            what, as.character(f), deparse1(e[[2]]), bad$form, bad$coef), call = call,
            class = "statphysgpu_periodic")
        }
        next
      }
      if (is.name(f) && identical(as.character(f), "[")) next # another state's neighbour
      stack <- c(stack, as.list(e)[-1])
    }
  }
  periodic
}

# NULL when every periodic form (is_form) in `arg` has a whole-number
# coefficient (d arg / d form a whole number free of every symbol); else
# list(form, coef) of the first that does not.
sde_periodic_multiple <- function(arg, is_form) {
  forms <- list()
  rename <- function(e) {
    if (is_form(e)) {
      key <- deparse1(e)
      if (is.null(forms[[key]])) forms[[key]] <<- as.name(sprintf(".pf%d", length(forms) + 1L))
      return(forms[[key]])
    }
    if (is.call(e)) for (i in seq_along(e)[-1]) e[[i]] <- rename(e[[i]])
    e
  }
  a <- rename(arg)
  for (key in names(forms)) {
    d <- tryCatch(stats::D(a, as.character(forms[[key]])), error = function(err) NULL)
    v <- if (!is.null(d) && !length(all.vars(d)))
      tryCatch(eval(d, baseenv()), error = function(err) NA_real_) else NA_real_
    if (!(is.numeric(v) && length(v) == 1 && is.finite(v) && v == round(v))) {
      coef <- if (is.null(d)) "that is not a sum of multiples" else deparse1(d)
      return(list(form = key, coef = coef))
    }
  }
  NULL
}

# Angles wrapped into [-pi, pi] (the starts of periodic states given as
# numbers; the engines wrap the same way).
sde_wrap_angle <- function(x) {
  k <- round(x * 0.15915494309189535) # rint: halves to even, as the engines'
  (x - k * 6.2831853071795862) - k * 2.4492935982947064e-16
}
