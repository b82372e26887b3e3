# The package's vocabulary (issue 23): one name per concept, in every
# simulator.  Old argument names keep working for one release, with a
# warning of class `statphysgpu_deprecated` that names the new one.
#
#   replicas       independent copies (paths, systems, walkers, runs)
#   first_replica  global number of a call's first replica (chunks)
#   n              the size of one system (oscillators, particles, atoms)
#   init           the initial state: a named start, a state, or a previous
#                  result (continued exactly)
#   dt             the time step
#   theta          the temperature;  beta the friction (damping)
#   gamma          the bias of the washboard (escape family)
#   precision      "single", "mixed" or "double"

# For each old = "new" of `renames` that the caller was given, warn and
# assign its value to the new name in the caller's frame; giving both is an
# error.  `fn` names the function in the messages.
sp_renamed_args <- function(renames, fn, env = parent.frame(), call = sys.call(-1)) {
  for (old in names(renames)) {
    if (eval(call("missing", as.name(old)), env)) next
    new <- renames[[old]]
    if (!eval(call("missing", as.name(new)), env)) {
      sp_abort(sprintf("give `%s` only: `%s` is its old name (deprecated).", new, old),
               call = call, class = "statphysgpu_deprecated_error")
    }
    sp_warn(sprintf(paste0("`%s` of %s() is deprecated: it is now called `%s` ",
                           "(the old name goes in the next release)."), old, fn, new),
            call = call, class = "statphysgpu_deprecated")
    assign(new, get(old, envir = env), envir = env)
  }
  invisible()
}

# The precision argument, the same values everywhere; a model refuses the
# ones it lacks.  `offered`: what the model has (the first is its default
# when `precision` is the full default vector).
check_precision <- function(precision, offered, call = caller_call()) {
  all <- c("single", "mixed", "double")
  if (identical(precision, offered)) return(offered[1])
  if (!is.character(precision) || length(precision) != 1 || is.na(precision) ||
      !precision %in% all) {
    sp_abort(sprintf("`precision` must be one of %s here (the package's precisions are %s), not %s.",
                     paste0("\"", offered, "\"", collapse = " or "),
                     paste0("\"", all, "\"", collapse = ", "), describe(precision)),
             call = call)
  }
  if (!precision %in% offered) {
    sp_abort(sprintf("this model has no precision \"%s\": `precision` must be %s.",
                     precision, paste0("\"", offered, "\"", collapse = " or ")),
             call = call)
  }
  precision
}
