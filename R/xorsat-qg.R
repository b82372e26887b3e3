#' Time-to-solution samples of 3-regular 3-XORSAT: the quasi-greedy solver
#'
#' Runs the quasi-greedy (QG) algorithm of Bernaschi et al. (2021) on a 3-regular 3-XORSAT
#' instance ([read_xorsat()], [xorsat_random()]) `replicas` times (runs), each run with
#' `clones` independent clones coded 32 to a machine word, and returns the
#' time to solution of each run: the sweeps until the first clone reaches
#' the ground state \eqn{E = -N}, and those sweeps converted to seconds.
#'
#' QG move of a spin (single flip): made if it lowers the energy (two or
#' three of the spin's equations unsatisfied); with probability `p1` if
#' exactly one is (the flip satisfies it and breaks the other two, raising
#' the energy by 2); never if none is, so the ground state is absorbing. As
#' in the paper, one random number per word decides the `p1` moves of all 32
#' clones in it. A sweep updates the spins in independent sets (no two in
#' one equation), found once by a greedy colouring, so the sweep is the
#' same whether the spins of a set are updated one after another or at once
#' (sets of at most 32 spins, so that they fill a GPU warp's lanes).
#'
#' A run ends at the first clone in the ground state; the ground state is
#' checked every `check_every` sweeps and, when found, the sweeps since the
#' last check are replayed one by one, so `sweeps` is the sweep at which the
#' first clone got there, not the check. A run that reaches `max_sweeps` (or
#' the sweeps of `timeout`) is cut: `solved = FALSE`, its values the cut, a
#' right-censored observation for [tts_estimate()].
#'
#' **Names.** The package's names (one vocabulary for every simulator, see
#' [statphysgpu]) beside the paper's: `replicas` is the number of runs
#' (independent repetitions of the solver; the result's column `replica`
#' numbers them), `first_replica` the first run of a chunk; \eqn{N} is the
#' instance's number of spins (`attr(x, "n")`; the challenge files' names
#' count \eqn{2N}, the spins of the 2-body form), `p1` the paper's
#' \eqn{p_1}. The old names `runs` and `first_run` still work, with a
#' warning of class `statphysgpu_deprecated`.
#'
#' Run \eqn{r} (counting from `first_replica`) draws from its own Philox streams,
#' so its sweeps to solution depend only on the seed, the run number, the
#' instance, `p1` and `clones`: never on threads, devices, chunks, the
#' backend or the machine's load -- the CPU and the GPU give the same
#' sweeps and the same clone.
#'
#' @section Sweeps and seconds: Sweeps are the exact, machine-independent
#'   measure of the time to solution, and the unit of [tts_estimate()],
#'   `summary()` and `plot()` by default. `seconds` is a conversion,
#'   `sweeps` times the *pace*: the seconds per sweep of one run of these
#'   `clones` on this instance size when the run has the device to itself
#'   (on the CPU one thread, as every run runs on one thread; on the GPU the
#'   first device in `devices`). The pace is measured once per R session,
#'   device, size, `clones`, `check_every` and kernel, by a few timing runs
#'   of a fixed number of sweeps that do not stop at a solution (a few
#'   hundredths of a second on the CPU, a few tenths on a GPU), and stored
#'   with the device's name in `attr(x, "pace")`. On the CPU a timing run
#'   is timed by its thread's CPU time and the fastest is taken, so that
#'   other work on the machine hardly changes the pace; it still varies by
#'   some per cent from session to session. So `seconds` is not the wall
#'   time a run took in this call: on a loaded machine runs take longer,
#'   and runs that share a device (several threads, or small `clones` on a
#'   GPU, whose runs run side by side) overlap, so their `seconds` add up
#'   to more than the engine's time (`attr(x, "seconds")`).
#'
#' @section GPU engine: Bernaschi et al.'s (2021) kernel: one warp per word of 32 clones,
#'   its lanes updating the spins of one independent set at a time; the
#'   sweep order, adjacency lists (one 128-bit load each) and equations in
#'   shared memory once per thread block, each warp's spins in shared memory
#'   too; many sweeps per launch; the p1 decisions drawn by the lanes
#'   together from the run's Philox streams. The words of a run run side by
#'   side, a word that reaches the ground state replays from its last check
#'   and a word that can no longer come first stops. At most 1,536 spins.
#'
#' @section Sweeps: `p1` may be a vector: each value is a condition (listed
#'   in `attr(x, "conditions")`, at most 256), each runs `replicas` runs,
#'   all in one launch, and the result's columns `condition` and `p1` give
#'   each run's. Run \eqn{r} of condition \eqn{c} draws from the streams of
#'   run \eqn{(c-1)\,2^{40} + r - 1}, so condition 1 gives exactly the runs
#'   of a call with its `p1` alone, and a condition's runs depend only on the
#'   seed, its number and its `p1` (with several conditions at most
#'   \eqn{2^{40}} runs per condition). The pace is one per device, measured
#'   at the first `p1`: a sweep costs the same at any `p1` (with
#'   `independent_clones`, the p1 moves cost a little more for values with
#'   more binary digits). [tts_estimate()], `summary()`, `plot()` and
#'   `autoplot()` report each `p1` (the optimal-p1 study of Bernaschi et al. (2021) in one
#'   call); `survival::survfit(as_surv(x) ~ p1,
#'   data = x)` gives a survival curve per value; chunks of a sweep combine
#'   with [rbind()].
#' @section Interrupts: Ctrl-C stops the run after the sweeps in flight,
#'   with a warning; finished runs are returned, runs in progress are
#'   returned cut (`solved = FALSE`) at the sweeps they had reached, a valid
#'   censored observation, and runs not started are left out (listed in
#'   `attr(x, "unfinished")`).
#' @param instance A 3-XORSAT instance, class `xorsat`, as made by
#'   [read_xorsat()] or [xorsat_random()]; it is checked field by field.
#' @param replicas Number of runs (independent repetitions of the solver)
#'   per condition.
#' @param clones Clones per run, a positive multiple of 32, or `"auto"`:
#'   on the CPU 256; on the GPU every warp the (first) device holds at once,
#'   32 clones each, as in Bernaschi et al. 2021 (a run has the whole device; on an
#'   H100 1.35e5 clones for the challenge sizes).
#' @param p1 Probability of the move that raises the energy by 2 (a spin
#'   with one of its three equations unsatisfied), in \[0, 1\] (vector
#'   allowed: one condition per value, see "Sweeps"). The default
#'   0.08 minimised the median mean time to solution over the shipped
#'   challenge instances of n = 384 on an H100 (0.17 s at
#'   0.08, 0.31 at 0.05, 1.6 at 0.12, 9.9 at 0.16), where the time to
#'   solution matters; the optimum moves down as n grows: at n = 128
#'   (256 clones) 0.12 was best (a mean of about 340
#'   sweeps; 430 to 570 at 0.08), and at n = 64 anything in 0.1-0.2 is
#'   within 15 per cent. At
#'   `p1 = 0` and `p1 = 1` (and at values the engine rounds to them: below
#'   2^-32, or 2^-17 with `independent_clones`) the dynamics is
#'   deterministic, the random start aside: at 0 it is greedy and every
#'   clone stops in a local minimum within N sweeps (each flip satisfies at
#'   least one more equation), at 1 it flips every spin of an unsatisfied
#'   equation and a clone that misses the ground state cycles for ever. A
#'   run there ends only if some clone's start leads to the ground state,
#'   which for large N almost never happens; so these values need a finite
#'   `max_sweeps` or `timeout`.
#' @param timeout Seconds of a run at the measured pace after which it is
#'   cut (`Inf`: none): a limit of `floor(timeout / pace)` sweeps (at most
#'   2^52, else an error that says the largest `timeout`; at least
#'   one), so the cut does not depend on the machine's load either.
#' @param max_sweeps Sweeps after which a run is cut (`Inf`: none).
#' @param check_every Sweeps between ground-state checks, or `"auto"` (1 on
#'   the CPU, 16 on the GPU, where a check costs about half a sweep). The
#'   sweeps do not depend on it (the sweeps since the last check are
#'   replayed); the pace does, a little.
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#' @param first_replica Number of the first run of this call (chunks).
#' @param backend `"auto"` (the GPU when there is one and the instance has
#'   at least 64 spins), `"cpu"` or `"gpu"` (see [sp_backends()]).
#' @param devices GPU ids, see [gpu_devices()]; runs are shared out among
#'   several devices.
#' @param progress Show a progress bar.
#' @param independent_clones `FALSE` (the paper's rule): one random number
#'   per word of 32 clones decides their p1 moves together. `TRUE`: every
#'   clone decides alone, from random words combined by the binary digits
#'   of p1 (rounded to a multiple of 2^-16), 4 Philox blocks an update
#'   instead of a quarter: slower per sweep, and the clones of a word no
#'   longer move in step.
#' @param pace Seconds per sweep that convert sweeps to `seconds`:
#'   `"auto"` measures it (see "Sweeps and seconds"), or a positive number,
#'   for example a pace measured before on another device, to express the
#'   runs in its seconds.
#' @param precision `"double"`, the only value: the engine's arithmetic is
#'   exact (spins coded as bits, integer counts, integer thresholds for
#'   `p1`), so no precision applies; `"single"` and `"mixed"` are refused.
#' @param runs,first_run Deprecated names of `replicas` and `first_replica`
#'   (they work, with a warning of class `statphysgpu_deprecated`).
#' @return An object of class `xorsat_tts`: a data frame with one row per
#'   run and columns `condition` and `p1` (the run's condition and its
#'   `p1`), `replica` (the run's number), `sweeps`, `seconds` (`sweeps` times the pace),
#'   `solved` and `clone` (the first clone to solve, 1-based; `NA` when
#'   cut); attributes `instance` (name), `n`, `clones`, `p1` (its values),
#'   `conditions`, `replicas` (per condition),
#'   `first_replica`, `precision`, `seed`,
#'   `backend`, `devices`, `seconds` (the engine's time: its rounds), `pace` (a list:
#'   `seconds_per_sweep`, `device`, `clones`, `n`, `measured` -- `FALSE`
#'   when given), `seconds_per_sweep` (the pace), `solutions` (for each
#'   solved run the solving clone's spins, `TRUE` = down, each checked to
#'   have \eqn{E = -N}; named by the run's number, or `"condition/number"`
#'   when there are several conditions) and `interrupted`. `x$run` and
#'   `as.data.frame(x)$run`, the column's name in earlier versions, still
#'   give `replica`, with a warning of class `statphysgpu_deprecated`.
#' @references Bernaschi, M., Bisson, M., Fatica, M., Marinari, E.,
#'   Martin-Mayor, V., Parisi, G. and Ricci-Tersenghi, F. (2021) How we are
#'   leading a 3-XORSAT challenge: from the energy landscape to the
#'   algorithm and its efficient implementation on GPUs. *EPL* 133, 60005 \doi{10.1209/0295-5075/133/60005}.
#' @examples
#' inst <- xorsat_random(64, seed = 1)
#' x <- xorsat_qg(inst, replicas = 20, clones = 64, seed = 1,
#'                backend = "cpu")
#' head(x)
#' attr(x, "pace")
#' # a sweep over p1 in one call: a time-to-solution estimate per value
#' y <- xorsat_qg(inst, replicas = 20, clones = 64, p1 = c(0.08, 0.15, 0.3),
#'                seed = 1, backend = "cpu")
#' summary(y)
#' @export
xorsat_qg <- function(instance, replicas = 100, clones = "auto", p1 = 0.08, timeout = Inf,
                      max_sweeps = Inf, check_every = "auto", seed = NULL, first_replica = 1,
                      backend = "auto", devices = NULL, progress = interactive(),
                      independent_clones = FALSE, pace = "auto", precision = "double",
                      runs, first_run) {
  call <- sys.call()
  sp_renamed_args(c(runs = "replicas", first_run = "first_replica"), "xorsat_qg")
  instance <- check_xorsat(instance, call = call) # before anything reads it
  p1 <- check_range(p1, "p1", 0, 1, call = call)
  # the conditions: one per value of p1 (a sweep), run in one launch
  grid <- sim_grid(list(p1 = p1), call)
  ncond <- nrow(grid)
  max_cond <- xorsat_limits()[["max_conditions"]]
  if (ncond > max_cond) {
    sp_abort(sprintf(paste0(
      "`p1` has %s values; one call runs at most %d (the runs' random streams hold ",
      "8 bits of condition): split the values over several calls."),
      fmt_count(ncond), max_cond), call = call)
  }
  independent_clones <- check_flag(independent_clones, "independent_clones", call = call)
  auto_clones <- identical(clones, "auto")
  lim <- xorsat_limits()
  wc <- lim[["word_clones"]]
  if (!auto_clones) {
    clones <- check_whole(clones, "clones", lo = wc, hi = wc * lim[["max_words"]], call = call)
    if (clones %% wc != 0) {
      sp_abort(sprintf("`clones` must be a positive multiple of %d (clones are coded %d to a word), not %s.",
                       wc, wc, fmt_num(clones)), call = call)
    }
  }
  if (!identical(timeout, Inf)) timeout <- check_positive(timeout, "timeout", len = 1, call = call)
  if (!identical(max_sweeps, Inf)) {
    max_sweeps <- check_whole(max_sweeps, "max_sweeps", lo = 1, hi = 2^52, call = call)
  }
  if (!identical(pace, "auto")) {
    ok <- is.numeric(pace) && length(pace) == 1 && is.finite(pace) && pace > 0
    if (!ok) {
      sp_abort(sprintf(paste0("`pace` must be \"auto\" (measure it) or a single positive ",
                              "number of seconds per sweep, not %s."), describe(pace)),
               call = call)
    }
  }
  det <- vapply(p1, xorsat_p1_deterministic, TRUE, independent_clones)
  if (is.infinite(timeout) && is.infinite(max_sweeps) && any(det)) {
    p1 <- p1[det][1]
    sp_abort(sprintf(paste0(
      "`p1` = %s makes the quasi-greedy dynamics deterministic (%s): a run ends only if ",
      "a clone's random start leads to the ground state, and may never end. Give a ",
      "finite `max_sweeps` or `timeout`, or a `p1` strictly between 0 and 1."),
      format(p1),
      if (p1 < 0.5) "greedy: every clone stops in a local minimum within N sweeps"
      else "every spin of an unsatisfied equation flips: a clone that misses the ground state cycles"),
      call = call)
  }
  # the GPU pays off from about 64 spins (launches cost more than whole runs
  # of smaller instances)
  plan <- resolve_backend(backend, devices, work = instance$n, auto_threshold = 64, call = call)
  if (plan$backend == "gpu" && instance$n > lim[["gpu_max_n"]]) {
    sp_abort(sprintf(paste0(
      "the GPU kernel keeps an instance's tables and each warp's spins in shared memory ",
      "and takes at most %s spins; this instance has %s: use backend = \"cpu\"."),
      fmt_count(lim[["gpu_max_n"]]), fmt_count(instance$n)), call = call)
  }
  if (auto_clones) clones <- if (plan$backend == "gpu") 0 else 256
  if (identical(check_every, "auto")) check_every <- if (plan$backend == "gpu") 16 else 1
  check_every <- check_whole(check_every, "check_every", lo = 1, hi = 2^40, call = call)
  # runs per condition: 2^47 (a run's streams hold 16 bits of words), 2^40
  # when there are several conditions (sp_stream_replica's layout)
  fr <- sim_frame(call, n = replicas, first = first_replica, seed = seed,
                  backend = plan$backend, devices = if (plan$backend == "gpu") plan$devices,
                  precision = precision, precisions = "double", progress = progress,
                  groups = ncond, row_bytes = 40 + 4 * instance$n,
                  max_replicas = if (ncond > 1) 2^40 else 2^47)
  tab <- xorsat_tables(instance)
  variant <- if (independent_clones) "indep"
    else sp_tuning("xorsat_variant", call)
  # one engine call: `frame` says the runs (per condition), backend and
  # devices, `p1` the conditions
  engine <- function(frame, limit, first, calibrate = FALSE, p1 = grid$p1) {
    job <- xorsat_job(tab, nwords = clones / wc, nruns = frame$n, limit = limit,
                      check_every = check_every, p1 = p1, indep = independent_clones,
                      calibrate = calibrate,
                      run0 = check_u64(first - 1, "first_replica", call = call),
                      seed = frame$seed)
    res <- sim_run(frame, "xorsat", job = job, kernel = "xorsat", variant = variant)
    res$clones <- wc * res$nwords
    res
  }
  # one pace per device (the timing runs at the first p1: a sweep's cost does
  # not depend on p1, but with independent_clones on its binary digits)
  pace <- if (identical(pace, "auto")) {
    xorsat_pace(function(...) engine(..., p1 = grid$p1[1]), fr, instance$n, clones,
                check_every, variant,
                if (independent_clones) xorsat_p1_threshold(grid$p1[1]) else NA)
  } else {
    list(seconds_per_sweep = pace, device = "given (argument `pace`)", clones = clones,
         n = instance$n, measured = FALSE)
  }
  if (is.null(pace)) { # interrupted while measuring it: no run started
    pace <- list(seconds_per_sweep = NA_real_, device = NA_character_, clones = clones,
                 n = instance$n, measured = FALSE)
    res <- list(sweeps = numeric(fr$n * ncond), status = rep(-2L, fr$n * ncond),
                clone = rep(-1L, fr$n * ncond),
                solution = integer(), run = c(seconds = 0, rounds = 0, interrupted = 1),
                clones = clones)
  } else {
    limit <- max_sweeps
    if (is.finite(timeout)) {
      sweeps <- floor(timeout / pace$seconds_per_sweep)
      if (sweeps > 2^52) {
        sp_abort(sprintf(paste0(
          "`timeout` = %s seconds is %s sweeps at the pace of %s seconds a sweep (%s), more ",
          "than the 2^52 sweeps a run can count: give a `timeout` of at most %s seconds, or ",
          "`timeout = Inf` for no limit in seconds (`max_sweeps` bounds the sweeps)."),
          format(timeout), format(sweeps, digits = 3), format(pace$seconds_per_sweep, digits = 3),
          pace$device, format(2^52 * pace$seconds_per_sweep, digits = 3)), call = call)
      }
      limit <- min(limit, max(1, sweeps))
    }
    res <- engine(fr, limit, fr$first)
  }
  clones <- res$clones
  if (!pace$measured) pace$clones <- clones
  started <- res$status != -2L
  cond_of <- rep(seq_len(ncond), each = fr$n) # condition-major, as the engine
  runs_id <- rep(fr$first - 1 + seq_len(fr$n), ncond)
  out <- data.frame(condition = cond_of, p1 = grid$p1[cond_of], replica = runs_id,
                    sweeps = res$sweeps,
                    seconds = res$sweeps * pace$seconds_per_sweep,
                    solved = res$status == 1L,
                    clone = ifelse(res$status == 1L, res$clone + 1L, NA_integer_))
  sol <- matrix(res$solution, nrow = instance$n)
  solutions <- list()
  for (r in which(out$solved)) {
    s <- sol[, r] == 1L
    if (xorsat_unsat(instance, s) != 0) {
      stop(sprintf("internal error: run %s reported a solution with unsatisfied equations",
                   fmt_num(runs_id[r])))
    }
    solutions[[xorsat_run_name(cond_of[r], runs_id[r], ncond)]] <- s
  }
  unf <- !started | res$status == -1L
  unfinished <- data.frame(condition = cond_of[unf], replica = runs_id[unf],
                           started = (res$status == -1L)[unf])
  out <- out[started, , drop = FALSE]
  rownames(out) <- NULL
  attr(out, "instance") <- instance$name
  attr(out, "n") <- instance$n
  attr(out, "clones") <- clones
  attr(out, "p1") <- grid$p1
  attr(out, "conditions") <- grid
  attr(out, "replicas") <- fr$n
  attr(out, "first_replica") <- fr$first
  attr(out, "independent_clones") <- independent_clones
  attr(out, "timeout") <- timeout
  attr(out, "max_sweeps") <- max_sweeps
  attr(out, "pace") <- pace
  attr(out, "seconds_per_sweep") <- pace$seconds_per_sweep
  attr(out, "solutions") <- solutions
  attr(out, "unfinished") <- unfinished
  sim_result(out, fr, res, class = c("xorsat_tts", "data.frame"),
             unfinished = sprintf(paste0(
               "%s of %s runs finished; the %s in progress are returned cut ",
               "(solved = FALSE) at the sweeps they had reached, the %s not started are left ",
               "out (attr(x, \"unfinished\"))"),
               fmt_count(sum(res$status >= 0L)), fmt_count(fr$n * ncond),
               fmt_count(sum(res$status == -1L)), fmt_count(sum(!started))))
}

# p1 2^32 as the engine rounds it (2^32: always).
xorsat_p1_threshold <- function(p1) ifelse(p1 >= 1, 2^32, floor(p1 * 2^32))

# The name of a run in attr(x, "solutions"): its number, or
# "condition/number" in a result of several conditions.
xorsat_run_name <- function(condition, replica, ncond) {
  if (ncond > 1) paste0(condition, "/", fmt_num(replica)) else as.character(replica)
}

# The job of the xorsat model (src/models/xorsat.c) from the tables of
# xorsat_tables(): the J masks as 0 or -1 (all ones), limit Inf as 0; one
# condition per value of p1, nruns runs each.
xorsat_job <- function(tab, nwords, nruns, limit, check_every, p1, indep, calibrate, run0,
                       seed) {
  list(order = tab$order, sets = tab$sets, partner = tab$partner,
       jm = if (is.integer(tab$jneg)) -tab$jneg else tab$jneg, eq = tab$eq,
       jeq = if (is.integer(tab$jeq)) -tab$jeq else tab$jeq, nwords = nwords, nruns = nruns,
       max_sweeps = if (is.finite(limit)) limit else 0, check_every = check_every,
       conds = list(p1_thr = as.double(xorsat_p1_threshold(p1))), indep = indep,
       calibrate = calibrate, run0 = run0,
       seed = seed)
}

# Is the dynamics at p1 deterministic (the p1 decisions constant), as the
# engine rounds p1: to a multiple of 2^-32, or of 2^-16 per clone?
xorsat_p1_deterministic <- function(p1, independent_clones) {
  thr <- xorsat_p1_threshold(p1)
  if (independent_clones) {
    one <- xorsat_limits()[["p16_one"]]
    p16 <- floor(thr / 2^32 * one + 0.5) # sp_xorsat_p16()
    p16 == 0 || p16 >= one
  } else {
    thr == 0 || thr == 2^32
  }
}

# Paces measured in this session (seconds per sweep of one run that has the
# device to itself), by device, size, words, check_every and kernel.
.xorsat_paces <- new.env(parent = emptyenv())

# The pace of runs of `clones` on an instance of n spins: timing runs of one
# run that ignore solutions and sweep to a fixed limit S, grown until a run
# takes `target` seconds.  On the CPU the run takes one thread and is timed
# by that thread's CPU time (the time it takes with a core to itself,
# however loaded the machine; its fixed costs are below 1 per cent): the
# pace is the fastest of three runs over S.  On the GPU it is timed by the
# wall time of the first device alone, and the pace is the difference of the
# fastest of three runs of 2S sweeps and of S sweeps, over S (the fixed
# costs of a call, allocations and launches, cancel).
# NULL when the user interrupts it.
xorsat_pace <- function(engine, frame, n, clones, check_every, variant, p1_thr) {
  devs <- frame$plan$devices[seq_len(min(1, length(frame$plan$devices)))]
  key <- paste(frame$plan$backend, paste(devs, collapse = ","), n, clones, check_every,
               variant, p1_thr, sep = "|")
  hit <- .xorsat_paces[[key]]
  if (!is.null(hit)) return(hit)
  gpu <- frame$plan$backend == "gpu"
  f <- frame
  f$n <- 1
  f$progress <- FALSE
  f$plan$devices <- devs
  target <- if (gpu) 0.02 else 0.003
  nwords <- NA
  # the fastest of k timing runs of `sweeps` sweeps; NA when interrupted
  fastest <- function(sweeps, k = 1) {
    best <- Inf
    for (i in seq_len(k)) {
      res <- engine(f, sweeps, 1, calibrate = TRUE)
      if (isTRUE(res$run[["interrupted"]] == 1)) return(NA_real_)
      nwords <<- res$clones / xorsat_limits()[["word_clones"]]
      best <- min(best, if (is.finite(res$cpu_seconds)) res$cpu_seconds
                        else res$run[["seconds"]])
    }
    best
  }
  S <- 1
  t <- fastest(S)
  while (!is.na(t) && t < target && S < 2^40) {
    S <- S * min(64, max(2, ceiling(1.5 * target / max(t, 1e-7))))
    t <- fastest(S)
  }
  t1 <- min(t, fastest(S, 2))
  t2 <- if (gpu) fastest(2 * S, 3) else 0
  if (is.na(t1) || is.na(t2)) return(NULL)
  pace <- if (gpu) (t2 - t1) / S else t1 / S
  if (!(pace > 0)) pace <- max(t1, t2, 1e-9) / S # (noise on the GPU's difference)
  dev <- if (gpu) {
    d <- gpu_devices(free = FALSE)
    sprintf("%s (GPU %d)", d$name[match(devs, d$id)], devs)
  } else {
    sprintf("%s (CPU, one thread)", cpu_model())
  }
  out <- list(seconds_per_sweep = pace, device = dev,
              clones = xorsat_limits()[["word_clones"]] * nwords, n = n,
              measured = TRUE)
  assign(key, out, envir = .xorsat_paces)
  out
}

# The CPU's model name (Linux), else the platform.
cpu_model <- function() {
  m <- character()
  if (file.exists("/proc/cpuinfo")) {
    l <- grep("^model name", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)
    if (length(l)) m <- trimws(sub("^[^:]*:", "", l[1]))
  }
  if (length(m) && nzchar(m)) m else R.version$platform
}

# The engines' limits, from the C headers that define them (src/r_constants.c):
# gpu_max_n, the largest instance of the GPU kernel (SP_XS_MAX_N); word_clones,
# the clones of a word; max_words, the words of a run; set_max, the spins of an
# independent set (one per lane of a warp, SP_XS_SET_MAX); p16_one, a per-clone
# p1 of one in the engines' units (SP_XORSAT_P16_ONE); max_conditions, the
# values of p1 of one call (a run's streams are sp_stream_replica(condition,
# run) 2^16 + word: 8 bits for the condition, SP_XORSAT_MAX_CONDITIONS).
xorsat_limits <- function() .Call(C_sp_r_xorsat_limits)

# Number of equations a configuration leaves unsatisfied (spins TRUE = down).
xorsat_unsat <- function(instance, down) {
  par <- (down[instance$eq[, 1]] + down[instance$eq[, 2]] + down[instance$eq[, 3]]) %% 2
  # J s_i s_j s_k = +1 satisfies: s_i s_j s_k = (-1)^par
  sum(instance$J * (1 - 2 * par) != 1)
}

# The engine's tables: the update order (independent sets by a greedy
# colouring, one after another), each spin's partners and J masks, and the
# equations (0-based).
xorsat_tables <- function(instance) {
  n <- instance$n
  eq <- instance$eq
  inc <- split(rep(seq_len(n), 3), as.vector(eq)) # equations of each spin
  inc <- inc[as.character(seq_len(n))]
  partner <- matrix(0L, 6, n)
  jneg <- matrix(0L, 3, n)
  for (i in seq_len(n)) {
    cs <- inc[[i]]
    for (t in 1:3) {
      c <- cs[t]
      partner[2 * t - 1:0, i] <- setdiff(eq[c, ], i) - 1L
      jneg[t, i] <- as.integer(instance$J[c] == -1)
    }
  }
  # greedy colouring of the conflict graph (spins sharing an equation) with
  # at most set_max (32) spins a colour: the sets fill the lanes of the GPU's warps
  set_max <- xorsat_limits()[["set_max"]]
  color <- integer(n)
  size <- integer(n + 1)
  for (i in seq_len(n)) {
    used <- color[partner[, i] + 1L]
    k <- 1L
    while (k %in% used || size[k] >= set_max) k <- k + 1L
    color[i] <- k
    size[k] <- size[k] + 1L
  }
  list(order = as.integer(order(color, seq_len(n)) - 1L),
       sets = as.integer(c(0L, cumsum(tabulate(color)))), partner = as.integer(partner),
       jneg = as.integer(jneg), eq = as.integer(t(eq) - 1L),
       jeq = as.integer(instance$J == -1), colors = max(color))
}
