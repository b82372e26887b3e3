# Issue 48: every continuation refuses a modified result (the seals of
# R/results-integrity.R), tampered continuations end in the package's
# refusal, frozen walkers are named, he4_dmc_extrapolate() counts each run
# once, driven_brownian() checks `window`, and tidy() of an empty result.

# ---- the digest of the seals ----------------------------------------------------

test_that("the seal's digest of long vectors in C is its definition in R", {
  digest_c <- function(x) .Call(statphysgpu:::C_sp_r_words_digest, x)
  words_r <- statphysgpu:::sp_words_digest
  # more than one piece of 2^20 doubles; NaN, NA, -0, Inf and subnormals
  x <- c(sin(seq_len(2^20 + 7)), NaN, NA, -0, 0, Inf, -Inf, 2^-1074, .Machine$double.xmax)
  expect_identical(digest_c(x), words_r(x))
  old <- sp_threads(1)
  one <- digest_c(x)
  sp_threads(old)
  expect_identical(one, words_r(x))
  y <- x
  y[2^20 + 3] <- y[2^20 + 3] * (1 + .Machine$double.eps)
  expect_false(identical(digest_c(y), digest_c(x)))
  # (runs of up to 1023 doubles before the weights wrap; the threads' parts
  # are 2^16 doubles)
  for (len in c(1, 3, 1022, 1023, 1024, 1025, 2^16, 2^16 + 1)) {
    expect_identical(digest_c(x[seq_len(len)]), words_r(x[seq_len(len)]))
  }
})

test_that("the seal tells a data frame from a list, a flag from a number, and names", {
  d <- statphysgpu:::sp_digest
  df <- data.frame(a = 1:3, b = c(0.5, 1, 2))
  expect_false(identical(d("f", df), d("f", as.list(df))))
  expect_false(identical(d("f", TRUE), d("f", 1)))
  expect_false(identical(d("f", c(useful = 1, issued = 2)), d("f", c(1, 2))))
  # numbers by value: a whole double and an integer alike
  expect_identical(d("f", 1:3), d("f", c(1, 2, 3)))
  # a seal of version 1 (escape_times() results sealed before version 2)
  # still checks, and only with its value
  x <- escape_times(4, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.5, dt = 0.05, t_max = 1,
                    seed = 3, backend = "cpu", progress = FALSE)
  f <- statphysgpu:::ESCAPE_SEALED
  v1 <- vapply(f, function(k) d(k, statphysgpu:::sp_seal_value(x, k), version = 1), "")
  attr(x, "sealed") <- v1
  go <- function(y) escape_times(init = y, t_max = 2, backend = "cpu", progress = FALSE)
  expect_s3_class(go(x), "escape_times")
  attr(x, "state")$v[1] <- 0
  expect_error(go(x), "its attribute `state`", class = "statphysgpu_modified_result")
})

# ---- tampered continuations -----------------------------------------------------
#
# Each attribute of a result, each element of an attribute that is a list,
# each column and some sets of rows: dropped, altered (its first value),
# retyped (numbers as text, text as a list, a data frame as a list, a list
# unlisted) and stored as the other number type; then continued.  A result
# whose seal no longer holds must meet the seal's refusal (class
# statphysgpu_modified_result); anything else must end in an error of the
# package (class statphysgpu_error) or run to the continuation of the
# unmodified result (the change was harmless: nothing a continuation reads).
# Some 50 s in all on two cores: skipped on CRAN (`make test` and CI set
# NOT_CRAN=true).

tamper_alter <- function(v) {
  if (is.data.frame(v) || is.list(v)) {
    if (!length(v)) return(NULL)
    a <- tamper_alter(v[[1]])
    if (is.null(a)) return(NULL)
    v[[1]] <- a
    return(v)
  }
  if (!length(v)) return(NULL)
  if (is.factor(v)) v <- as.character(v)
  if (is.logical(v)) v[1] <- !isTRUE(v[1])
  else if (is.numeric(v)) v[1] <- if (is.na(v[1])) 0 else v[1] * 2 + 1
  else if (is.character(v)) v[1] <- paste0(v[1], "x")
  else return(NULL)
  v
}

tamper_retype <- function(v) {
  if (is.data.frame(v)) return(as.list(v))
  if (is.list(v)) return(unlist(v))
  if (is.character(v)) return(as.list(v))
  if (is.logical(v)) return(as.integer(v))
  if (is.numeric(v)) return(as.character(v))
  NULL
}

# Whole doubles stored as integers, integers as doubles: the same numbers.
tamper_numtype <- function(v) {
  if (is.integer(v) && !is.factor(v)) {
    storage.mode(v) <- "double"
    return(v)
  }
  if (is.double(v) && length(v) && all(is.na(v) | (abs(v) < 2^31 & v == round(v)))) {
    storage.mode(v) <- "integer"
    return(v)
  }
  NULL
}

tamper_ops <- list(drop = function(v) NULL, alter = tamper_alter, retype = tamper_retype,
                   numtype = tamper_numtype)

# The tampered copies of x: a list of list(what, y).
tamper_all <- function(x) {
  out <- list()
  add <- function(what, y) out[[length(out) + 1]] <<- list(what = what, y = y)
  for (a in setdiff(names(attributes(x)), "row.names")) {
    v <- attr(x, a, exact = TRUE)
    for (op in names(tamper_ops)) {
      nv <- tamper_ops[[op]](v)
      if (op != "drop" && is.null(nv)) next
      y <- x
      if (inherits(try(attr(y, a) <- nv, silent = TRUE), "try-error")) next
      add(sprintf("%s attribute %s", op, a), y)
    }
    if (is.list(v)) {
      for (i in seq_along(v)) {
        el <- if (is.null(names(v)) || !nzchar(names(v)[i])) i else names(v)[i]
        for (op in c("drop", "alter", "retype")) {
          nv <- tamper_ops[[op]](v[[i]])
          if (op != "drop" && is.null(nv)) next
          w <- v
          if (op == "drop") w[i] <- NULL else w[[i]] <- nv
          y <- x
          if (inherits(try(attr(y, a) <- w, silent = TRUE), "try-error")) next
          add(sprintf("%s %s[[%s]]", op, a, el), y)
        }
      }
    }
  }
  at <- attributes(x)
  for (j in seq_along(x)) {
    for (op in names(tamper_ops)) {
      nv <- tamper_ops[[op]](x[[j]])
      if (op != "drop" && is.null(nv)) next
      l <- unclass(x)
      attributes(l) <- NULL
      if (op == "drop") l[j] <- NULL else l[[j]] <- nv
      a2 <- at
      if (op == "drop") a2$names <- at$names[-j]
      attributes(l) <- a2
      add(sprintf("%s column %s", op, at$names[j]), l)
    }
  }
  if (is.data.frame(x) && nrow(x) > 0) {
    add("rows 1", x[1, , drop = FALSE])
    add("rows 0", x[0, , drop = FALSE])
    add("rows reversed", x[rev(seq_len(nrow(x))), , drop = FALSE])
  }
  out
}

# go(y): list(outcome = "ok", value), or the error: "modified" (the seal's
# refusal), "classed" (another error of the package) or "raw" (any other),
# with the condition (its message is formatted only when it is shown).
tamper_run <- function(go, y) {
  tryCatch(withCallingHandlers(list(outcome = "ok", value = go(y)),
                               warning = function(w) invokeRestart("muffleWarning")),
           statphysgpu_modified_result = function(e) list(outcome = "modified", cnd = e),
           statphysgpu_error = function(e) list(outcome = "classed", cnd = e),
           error = function(e) list(outcome = "raw", cnd = e,
                                    message = conditionMessage(e)))
}

# The same continuation: its table (numbers by value) and the seal of its
# end state and settings (but the step counts of escape_times(), whose
# issued steps depend on the threads' timing).
tamper_same <- function(a, b) {
  num <- function(d) {
    d <- as.data.frame(d)
    for (j in seq_along(d)) if (is.integer(d[[j]])) d[[j]] <- as.double(d[[j]])
    d
  }
  seal <- function(x) {
    s <- attr(x, "sealed")
    s[setdiff(names(s), "steps")]
  }
  identical(num(a), num(b)) && identical(seal(a), seal(b))
}

# Every tamper of x continued by go(): the tampers that end otherwise than
# they must (a data frame: what, outcome, message), and how many there were.
tamper_check <- function(x, go) {
  base <- suppressWarnings(go(x))
  cls <- class(x)[1]
  ts <- tamper_all(x)
  bad <- data.frame(what = character(), outcome = character(), message = character())
  for (t in ts) {
    r <- tamper_run(go, t$y)
    result <- inherits(t$y, cls)
    intact <- statphysgpu:::sp_seal_intact(t$y)
    # (an object no longer of the result's class makes a call without the
    # arguments a result fills: R's own error for a missing argument)
    missing_arg <- !result && r$outcome == "raw" &&
      grepl("^argument \"[a-z_]+\" is missing, with no default$", r$message)
    ok <- if (result && !intact) r$outcome == "modified" else
      r$outcome == "classed" || missing_arg ||
        (r$outcome == "ok" && (!result || tamper_same(r$value, base)))
    if (!ok) {
      bad[nrow(bad) + 1, ] <- list(t$what, if (r$outcome == "ok") "ran, other numbers" else
        r$outcome, substr(if (is.null(r$cnd)) "" else conditionMessage(r$cnd), 1, 200))
    }
  }
  list(n = length(ts), bad = bad)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

expect_tamper_proof <- function(x, go) {
  r <- tamper_check(x, go)
  expect_gt(r$n, 50)
  expect_identical(r$bad, data.frame(what = character(), outcome = character(),
                                     message = character()),
                   info = paste(utils::capture.output(print(r$bad)), collapse = "\n"))
}

test_that("tampered escape_times() and switching_currents() results end in a refusal", {
  skip_on_cran() # (some 10 s each: a few hundred continuations)
  x <- escape_times(6, gamma = 0.6, V0 = 1, beta = 0.5, theta = c(0.5, 0.3), dt = 0.05,
                    t_max = 1, seed = 3, backend = "cpu", progress = FALSE)
  expect_tamper_proof(x, function(y) escape_times(init = y, t_max = 2, backend = "cpu",
                                                  progress = FALSE))
  s <- switching_currents(6, ramp = 1e-2, V0 = 1, beta = 0.5, theta = 0.3, dt = 0.05,
                          gamma0 = 0.3, gamma_max = 0.4, seed = 5, backend = "cpu",
                          progress = FALSE)
  expect_tamper_proof(s, function(y) switching_currents(init = y, gamma_max = 0.45,
                                                        backend = "cpu", progress = FALSE))
})

test_that("tampered lrmd() results end in a refusal (one system, and a sweep of several)", {
  skip_on_cran() # (some 10 s each: a few hundred continuations)
  go <- function(y) lrmd(init = y, steps = 2, backend = "cpu", progress = FALSE)
  expect_tamper_proof(lrmd("hmf", init = hmf_waterbag(12, 1, 0.69, seed = 1), dt = 0.1,
                           steps = 3, record_every = 2, backend = "cpu", progress = FALSE), go)
  expect_tamper_proof(lrmd("ring", init = ring_uniform(10, seed = 1), softening = c(0.01, 0.1),
                           replicas = 2, dt = 0.02, steps = 3, record_every = 2,
                           backend = "cpu", progress = FALSE), go)
})

test_that("tampered driven_brownian() and kuramoto() results end in a refusal", {
  skip_on_cran() # (some 10 s each: a few hundred continuations)
  x <- driven_brownian(3, a = 4.2, omega = 4.9, f = c(0, 0.5), beta = 0.9, theta = 0.01,
                       periods = 3, steps_per_period = 100, output = "histogram", bins = 6,
                       keep = 2, seed = 1, backend = "cpu", progress = FALSE)
  expect_tamper_proof(x, function(y) driven_brownian(init = y, periods = 1, backend = "cpu",
                                                     progress = FALSE))
  k <- kuramoto(6, K = c(1, 2), theta = 0.1, dt = 0.02, steps = 4, replicas = 2, bins = 3,
                seed = 4, backend = "cpu", progress = FALSE)
  expect_tamper_proof(k, function(y) kuramoto(init = y, steps = 2, backend = "cpu",
                                              progress = FALSE))
})

test_that("tampered he4_vmc() and he4_dmc() results end in a refusal", {
  skip_on_cran() # (some 10 s each: a few hundred continuations)
  v <- he4_vmc(8, replicas = 2, blocks = 1, block_sweeps = 1, equilibration = 1, seed = 1,
               backend = "cpu", progress = FALSE)
  expect_tamper_proof(v, function(y) he4_vmc(8, init = y, blocks = 1, block_sweeps = 1,
                                             equilibration = 0, backend = "cpu",
                                             progress = FALSE))
  # a VMC result starts a DMC run: the same seal
  expect_tamper_proof(v, function(y) he4_dmc(init = y, walkers = 2, blocks = 1,
                                             block_steps = 1, equilibration = 0, seed = 1,
                                             backend = "cpu", progress = FALSE))
  d <- he4_dmc(8, dt = 0.01, walkers = 3, blocks = 1, block_steps = 1, equilibration = 0,
               seed = 1, backend = "cpu", progress = FALSE)
  expect_tamper_proof(d, function(y) he4_dmc(init = y, blocks = 1, block_steps = 1,
                                             equilibration = 0, backend = "cpu",
                                             progress = FALSE))
})

test_that("tampered sde_ams() and many-body sde_run() results end in a refusal", {
  skip_on_cran() # (some 10 s each: a few hundred continuations)
  skip_if_no_cc()
  m <- sde_cubic()
  a <- sde_ams(m, ~ x, start_edge = 0.15, init = list(x = 0), dt = 0.05, particles = 5, replicas = 2,
               seed = 10, equilibration = 1, backend = "cpu", precision = "double",
               progress = FALSE)
  expect_tamper_proof(a, function(y) sde_ams(m, init = y, replicas = 1, backend = "cpu",
                                             progress = FALSE))
  mk <- mb_model("kur")
  for (out in c("records", "passage")) {
    run <- function(y) sde_run(mk, 2, n = 4, init = y, dt = 0.05, t_max = 0.2, output = out,
                               seed = 21, backend = "cpu", progress = FALSE)
    expect_tamper_proof(run(list(theta = ~ runif(-pi, pi))), run)
  }
})

# ---- the seals of item 10 -------------------------------------------------------

test_that("lrmd() and driven_brownian() refuse a modified result (issue 48, item 10)", {
  a <- lrmd("hmf", init = hmf_waterbag(20, 1, 0.69, seed = 1), dt = 0.1, steps = 4,
            backend = "cpu", progress = FALSE)
  go <- function(y) lrmd(init = y, steps = 2, backend = "cpu", progress = FALSE)
  refused <- function(y, what) {
    expect_error(go(y), paste0("`init` was modified after it was run: its attribute `", what, "`"),
                 class = "statphysgpu_modified_result")
  }
  y <- a
  attr(y, "state")$p <- 2 * attr(y, "state")$p # scaled momenta
  refused(y, "state")
  y <- a
  attr(y, "e0") <- attr(y, "e0") + 0.1 # a shifted e0
  refused(y, "e0")
  y <- a
  attr(y, "sealed") <- NULL
  expect_error(go(y), "carries no record", class = "statphysgpu_modified_result")
  # what a continuation does not read may change
  y <- a[a$step > 0, ]
  attr(y, "seconds") <- -1
  expect_identical(as.data.frame(go(y)), as.data.frame(go(a)))
  x <- driven_brownian(10, a = 4.2, omega = 4.9, f = c(0, 0.5), beta = 0.9, theta = 0.01,
                       periods = 3, steps_per_period = 100, seed = 1, backend = "cpu",
                       progress = FALSE)
  gd <- function(y) driven_brownian(init = y, periods = 2, backend = "cpu", progress = FALSE)
  y <- x
  attr(y, "conditions")$f[2] <- 0.6 # edited conditions
  expect_error(gd(y), "its attribute `conditions`", class = "statphysgpu_modified_result")
  y <- x
  attr(y, "paths")$v[3] <- 0 # edited paths
  expect_error(gd(y), "its attribute `paths`", class = "statphysgpu_modified_result")
  y <- x
  attr(y, "state")$y[1] <- 0.5 # an edited state
  expect_error(gd(y), "its attribute `state`", class = "statphysgpu_modified_result")
  y <- x
  attr(y, "steps") <- 200 # edited steps
  expect_error(gd(y), "its attribute `steps`", class = "statphysgpu_modified_result")
  y <- x
  y$v_mean <- 0 # the table is computed again from the paths
  expect_identical(as.data.frame(gd(y)), as.data.frame(gd(x)))
})

test_that("kuramoto(), he4_vmc(), he4_dmc() and many-body sde_run() refuse a modified result", {
  k <- kuramoto(6, K = 1, theta = 0.1, dt = 0.02, steps = 4, seed = 4, backend = "cpu",
                progress = FALSE)
  attr(k, "phases") <- attr(k, "phases") + 0.1
  expect_error(kuramoto(init = k, steps = 2, backend = "cpu", progress = FALSE),
               "its attribute `phases`", class = "statphysgpu_modified_result")
  v <- he4_vmc(8, replicas = 2, blocks = 1, block_sweeps = 1, equilibration = 1, seed = 1,
               backend = "cpu", progress = FALSE)
  st <- attr(v, "state")
  st$displacement <- 10 * st$displacement
  attr(v, "state") <- st
  expect_error(he4_vmc(8, init = v, blocks = 1, block_sweeps = 1, equilibration = 0,
                       backend = "cpu", progress = FALSE),
               "its attribute `state`", class = "statphysgpu_modified_result")
  expect_error(he4_dmc(init = v, walkers = 2, blocks = 1, block_steps = 1, equilibration = 0,
                       backend = "cpu", progress = FALSE),
               "its attribute `state`", class = "statphysgpu_modified_result")
  d <- he4_dmc(8, dt = 0.01, walkers = 3, blocks = 1, block_steps = 1, equilibration = 0,
               seed = 1, backend = "cpu", progress = FALSE)
  attr(d, "state")$weight[[1]] <- 2 * attr(d, "state")$weight[[1]]
  expect_error(he4_dmc(init = d, blocks = 1, block_steps = 1, equilibration = 0,
                       backend = "cpu", progress = FALSE),
               "its attribute `state`", class = "statphysgpu_modified_result")
  skip_if_no_cc()
  mk <- mb_model("kur")
  run <- function(y) sde_run(mk, 2, n = 4, init = y, dt = 0.05, t_max = 0.2,
                             output = "records", seed = 21, backend = "cpu", progress = FALSE)
  r <- run(list(theta = 0))
  attr(r, "final")[1, 1, 1] <- 1
  expect_error(run(r), "its attribute `final`", class = "statphysgpu_modified_result")
})

test_that("rbind() of unmodified chunks continues as one result; of a modified one, refused", {
  # each: the chunks (a function of first_replica, replicas), the continuation
  # of a result, and a change that breaks a chunk's seal
  cases <- list(
    lrmd = list(
      run = function(first, m) lrmd(init = hmf_waterbag(10, 1, 0.69, seed = 1), dt = 0.1,
                                    steps = 3, replicas = m, first_replica = first,
                                    backend = "cpu", progress = FALSE),
      go = function(y) lrmd(init = y, steps = 2, backend = "cpu", progress = FALSE),
      spoil = function(y) { attr(y, "e0") <- attr(y, "e0") + 1; y }),
    driven = list(
      run = function(first, m) driven_brownian(m, a = 4.2, omega = 4.9, f = 0.5, beta = 0.9,
                                               theta = 0.01, periods = 2,
                                               steps_per_period = 100, seed = 1,
                                               first_replica = first, backend = "cpu",
                                               progress = FALSE),
      go = function(y) driven_brownian(init = y, periods = 1, backend = "cpu", progress = FALSE),
      spoil = function(y) { attr(y, "paths")$v[1] <- 0; y }),
    kuramoto = list(
      run = function(first, m) kuramoto(6, K = 1, theta = 0.1, dt = 0.02, steps = 3,
                                        replicas = m, first_replica = first, seed = 2,
                                        backend = "cpu", progress = FALSE),
      go = function(y) kuramoto(init = y, steps = 2, backend = "cpu", progress = FALSE),
      spoil = function(y) { attr(y, "phases")[1, 1] <- 0; y }),
    vmc = list(
      run = function(first, m) he4_vmc(8, replicas = m, first_replica = first, blocks = 1,
                                       block_sweeps = 1, equilibration = 1, seed = 1,
                                       backend = "cpu", progress = FALSE),
      go = function(y) he4_vmc(8, init = y, blocks = 1, block_sweeps = 1, equilibration = 0,
                               backend = "cpu", progress = FALSE),
      spoil = function(y) { attr(y, "state")$moves[1] <- 0; y }),
    dmc = list(
      run = function(first, m) he4_dmc(8, dt = 0.01, walkers = 2, populations = m,
                                       first_population = first, blocks = 1, block_steps = 1,
                                       equilibration = 0, seed = 1, backend = "cpu",
                                       progress = FALSE),
      go = function(y) he4_dmc(init = y, blocks = 1, block_steps = 1, equilibration = 0,
                               backend = "cpu", progress = FALSE),
      spoil = function(y) { attr(y, "state")$e_trial[1] <- 0; y }))
  if (sde_cpu_available()) {
    mk <- mb_model("kur")
    for (out in c("records", "passage", "moments", "trajectories")) {
      cases[[paste("sde_run", out)]] <- local({
        o <- out
        run <- function(first, m, init = list(theta = ~ runif(-pi, pi)), t_max = 0.2) {
          sde_run(mk, m, n = 4, init = init, dt = 0.05, t_max = t_max, output = o,
                  first_replica = first, seed = 21, precision = "double", backend = "cpu",
                  progress = FALSE)
        }
        list(run = run, go = function(y) run(1, 3, init = y, t_max = 0.4),
             spoil = function(y) { attr(y, "final")[1, 1, 1] <- 0; y })
      })
    }
  }
  for (nm in names(cases)) {
    cs <- cases[[nm]]
    whole <- cs$run(1, 3)
    parts <- rbind(cs$run(1, 1), cs$run(2, 2))
    expect_true(statphysgpu:::sp_seal_intact(parts), label = nm)
    expect_identical(as.data.frame(cs$go(parts)), as.data.frame(cs$go(whole)), label = nm)
    expect_error(cs$go(rbind(cs$run(1, 1), cs$spoil(cs$run(2, 2)))), "carries no record",
                 class = "statphysgpu_modified_result", label = nm)
  }
})

test_that("the seal of an lrmd() state not drawn yet neither draws it nor changes when read", {
  skip_on_os("windows")
  # the CPU's vector object, made by a warm-up before the interrupt's clock
  # starts (a Ctrl-C inside a compile is R's interrupt, by design)
  withr::local_options(statphysgpu.sde_cpu_vector = TRUE)
  st <- ring_uniform(3000, p0 = 0.3, seed = 1)
  lrmd(init = st, dt = 0.01, steps = 2, record_every = 2, replicas = 3, backend = "cpu",
       progress = FALSE)
  job <- interrupt_after(1)
  expect_warning(x <- lrmd(init = st, dt = 0.01, steps = 1e6, record_every = 2, replicas = 3,
                           backend = "cpu", progress = FALSE),
                 "interrupted", class = "statphysgpu_interrupted")
  parallel::mccollect(job)
  lazy <- attr(x, "state")[[3]]
  expect_false(is.null(statphysgpu:::lrmd_lazy(lazy)))
  expect_true(statphysgpu:::sp_seal_intact(x))
  expect_false(is.null(statphysgpu:::lrmd_lazy(lazy))) # still not drawn
  invisible(sum(lazy$theta)) # R reads (draws) it
  expect_true(statphysgpu:::sp_seal_intact(x))
  y <- x
  attr(y, "state")[[3]]$p[1] <- 0
  expect_false(statphysgpu:::sp_seal_intact(y))
})

# ---- item 11: frozen walkers ------------------------------------------------------

test_that("frozen walkers are named: a warning, the attribute frozen, print() and summary()", {
  vmc <- function(...) he4_vmc(32, replicas = 2, blocks = 2, block_sweeps = 2, seed = 1,
                               backend = "cpu", progress = FALSE, ...)
  # a displacement of 1e12 A places a moved atom anywhere in the box: of 32
  # atoms at the liquid's density, hardly ever accepted (issue 48, item 11)
  expect_warning(v <- vmc(equilibration = 0, displacement = 1e12),
                 "the walkers are frozen: [0-9.e-]+ of the proposed moves were accepted, below 0.01",
                 class = "statphysgpu_frozen_walkers")
  expect_lt(mean(v$acceptance), 0.01)
  expect_identical(attr(v, "frozen"), TRUE)
  expect_output(print(v), "FROZEN WALKERS: acceptance [0-9.e-]+, below 0.01")
  s <- summary(v)
  expect_true(attr(s, "frozen"))
  expect_output(print(s), "FROZEN WALKERS")
  # a sweep names the condition; rbind() and continuations say it too
  expect_warning(w <- vmc(density = c(0.02186, 0.024), equilibration = 0, displacement = 1e12),
                 "\\(conditions 1, 2\\)", class = "statphysgpu_frozen_walkers")
  expect_identical(attr(w, "frozen"), c(TRUE, TRUE))
  expect_identical(attr(summary(w), "frozen"), c(TRUE, TRUE))
  # a tuned run is not frozen, and says nothing of it
  ok <- vmc(equilibration = 10)
  expect_identical(attr(ok, "frozen"), FALSE)
  expect_false(any(grepl("FROZEN", capture.output(print(ok), print(summary(ok))))))
  expect_gt(mean(ok$acceptance), 0.1)
  # DMC: at N = 64 a step of 0.05 K^-1 accepts about 1e-17 of the moves
  dmc <- function(dt) he4_dmc(64, dt = dt, walkers = 8, blocks = 2, block_steps = 2,
                              equilibration = 0, seed = 1, backend = "cpu", progress = FALSE)
  expect_warning(d <- dmc(0.05), "the walkers are frozen: .* use a smaller `dt`",
                 class = "statphysgpu_frozen_walkers")
  expect_lt(mean(d$acceptance), 1e-6)
  expect_identical(attr(d, "frozen"), TRUE)
  expect_output(print(d), "FROZEN WALKERS")
  expect_true(attr(summary(d), "frozen"))
  expect_output(print(summary(d)), "FROZEN WALKERS")
  fine <- dmc(0.001)
  expect_gt(mean(fine$acceptance), 0.5)
  expect_identical(attr(fine, "frozen"), FALSE)
  expect_false(any(grepl("FROZEN", capture.output(print(fine), print(summary(fine))))))
})

# ---- item 12: he4_dmc_extrapolate() ------------------------------------------------

test_that("he4_dmc_extrapolate() counts a repeated run once; dt_order needs two time steps", {
  run <- function(dt, seed) {
    he4_dmc(8, dt = dt, walkers = 20, blocks = 8, block_steps = 5, equilibration = 10,
            seed = seed, backend = "cpu", progress = FALSE)
  }
  a <- run(0.002, 1)
  b <- run(0.004, 2)
  again <- run(0.002, 1) # the same run: the same seed, dt and populations
  expect_identical(as.data.frame(again), as.data.frame(a))
  expect_warning(e <- he4_dmc_extrapolate(list(a, b, again)),
                 "run 3 repeats run 1 .* each is counted once",
                 class = "statphysgpu_duplicate_runs")
  one <- he4_dmc_extrapolate(list(a, b))
  expect_identical(e$se, one$se)
  expect_identical(e$energy, one$energy)
  expect_identical(nrow(e$data), 2L)
  # another seed is another run
  other <- run(0.002, 3)
  expect_silent(he4_dmc_extrapolate(list(a, b, other)))
  # one time step: a dt_order that extrapolates in dt is an error naming it
  for (o in c("1", "2", "1+2")) {
    expect_error(he4_dmc_extrapolate(list(a, other), dt_order = o),
                 sprintf("`dt_order = \"%s\"` extrapolates to dt -> 0, which needs runs at two",
                         gsub("+", "\\+", o, fixed = TRUE)),
                 class = "statphysgpu_error")
  }
  expect_identical(he4_dmc_extrapolate(list(a, other))$extrapolations, "none")
})

# ---- item 13: driven_brownian(window = ) --------------------------------------------

test_that("driven_brownian() checks `window` with any output and warns when it is unused", {
  go <- function(...) {
    driven_brownian(4, a = 4.2, omega = 4.9, f = 0.5, beta = 0.9, theta = 0.01, periods = 2,
                    seed = 1, backend = "cpu", progress = FALSE, ...)
  }
  for (out in c("summary", "trajectories")) {
    for (w in list("nonsense", c(3, 1), c(0.5, 2), NA, 1:3)) {
      expect_error(go(output = out, window = w), "`window` must be NULL or two whole numbers",
                   class = "statphysgpu_error", info = out)
    }
    expect_warning(x <- go(output = out, window = c(-3, 3)),
                   sprintf("`window` is ignored: output = \"%s\" does not use it", out),
                   class = "statphysgpu_unused_argument")
    expect_identical(as.data.frame(x), as.data.frame(go(output = out)))
    expect_null(attr(x, "window"))
  }
  expect_error(go(output = "histogram", window = "nonsense"), "`window` must be",
               class = "statphysgpu_error")
  expect_silent(h <- go(output = "histogram", window = c(-3, 3)))
  expect_identical(attr(h, "window"), c(-3, 3))
})

# ---- messages: tidy() of an empty result ------------------------------------------

test_that("tidy() of an empty AMS result or TTS estimate has no rows and the usual columns", {
  skip_if_not_installed("generics")
  a <- escape_rate_ams(gamma = c(0.5, 0.6), V0 = 1, beta = 1, theta = 0.2, dt = 0.05,
                       particles = 10, replicas = 2, seed = 1, backend = "cpu",
                       progress = FALSE)
  for (ci in c(FALSE, TRUE)) {
    full <- generics::tidy(a, conf.int = ci)
    empty <- generics::tidy(a[0, ], conf.int = ci)
    expect_identical(nrow(empty), 0L)
    expect_identical(names(empty), names(full))
    expect_identical(vapply(empty, class, ""), vapply(full, class, ""))
  }
  g <- generics::glance(a[0, ])
  expect_identical(names(g), names(generics::glance(a)))
  expect_equal(c(g$conditions, g$replicas), c(0, 0))
  e <- tts_estimate(c(120, 340, 95, 800), solved = c(TRUE, TRUE, TRUE, FALSE))
  empty <- generics::tidy(e[0, ])
  expect_identical(nrow(empty), 0L)
  expect_identical(names(empty), names(generics::tidy(e)))
  expect_identical(names(generics::glance(e[0, ])), names(generics::glance(e)))
})
