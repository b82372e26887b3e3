#' Time-to-solution samples of 3-regular 3-XORSAT: the quasi-greedy solver
#'
#' Runs the quasi-greedy (QG) algorithm of paper 003 on a 3-regular 3-XORSAT
#' instance ([read_xorsat()], [xorsat_random()]) `runs` times, each run with
#' `clones` independent clones coded 32 to a machine word, and returns the
#' time to solution of each run: the sweeps (and seconds) until the first
#' clone reaches the ground state \eqn{E = -N}.
#'
#' QG move of a spin (single flip): made if it lowers the energy (two or
#' three of the spin's equations unsatisfied); with probability `p1` if
#' exactly one is; never if none is, so the ground state is absorbing. As in
#' the paper, one random number per word decides the `p1` moves of all 32
#' clones in it. A sweep updates the spins in independent sets (no two in
#' one equation), found once by a greedy colouring, so the sweep is the
#' same whether the spins of a set are updated one after another or at once
#' (sets of at most 32 spins, so that they fill a GPU warp's lanes).
#'
#' A run ends at the first clone in the ground state; the ground state is
#' checked every `check_every` sweeps and, when found, the sweeps since the
#' last check are replayed one by one, so `sweeps` is the sweep at which the
#' first clone got there, not the check. A run that reaches `max_sweeps` or
#' `timeout` seconds of its own is cut: `solved = FALSE`, its values the
#' cut, a right-censored observation for [tts_estimate()].
#'
#' Run \eqn{r} (counting from `first_run`) draws from its own Philox streams,
#' so its sweeps to solution depend only on the seed, the run number, the
#' instance, `p1` and `clones`: never on threads, devices, chunks or the
#' backend -- the CPU and the GPU give the same sweeps and the same clone
#' (a timeout in seconds is the exception: it depends on the machine's
#' speed).
#'
#' @section GPU engine: Paper 003's kernel: one warp per word of 32 clones,
#'   its lanes updating the spins of one independent set at a time; the
#'   sweep order, adjacency lists (one 128-bit load each) and equations in
#'   shared memory once per thread block, each warp's spins in shared memory
#'   too; many sweeps per launch; the p1 decisions drawn by the lanes
#'   together from the run's Philox streams. The words of a run run side by
#'   side, a word that reaches the ground state replays from its last check
#'   and a word that can no longer come first stops. `seconds` is the run's
#'   wall time: its sweeps times the device's measured time per sweep (runs
#'   that share a device, when `clones` is small, are each charged the
#'   shared pace). A `timeout` is turned into a sweep limit at that pace. At
#'   most 1,536 spins.
#'
#' @section Interrupts: Ctrl-C stops the run after the sweeps in flight,
#'   with a warning; finished runs are returned, runs in progress are
#'   returned cut (`solved = FALSE`) at the sweeps and seconds they had
#'   reached, a valid censored observation, and runs not started are left
#'   out (listed in `attr(x, "unfinished")`).
#' @param instance A 3-XORSAT instance, class `xorsat`.
#' @param runs Number of runs.
#' @param clones Clones per run, a positive multiple of 32, or `"auto"`:
#'   on the CPU 256; on the GPU every warp the (first) device holds at once,
#'   32 clones each, as in paper 003 (a run has the whole device; on an
#'   H100 1.35e5 clones for the challenge sizes).
#' @param p1 Probability of a move that leaves the energy unchanged (one
#'   of the spin's three equations unsatisfied), in \[0, 1\]. The default
#'   0.08 minimised the median mean time to solution over the shipped
#'   challenge instances of n = 384 on the GPU (bench/RESULTS.md: 0.17 s at
#'   0.08, 0.31 at 0.05, 1.6 at 0.12, 9.9 at 0.16), where the time to
#'   solution matters; the optimum moves down as n grows: at n = 128
#'   (`bench/xorsat-p1.R`, one CPU core) 0.12 was best (2.1 ms; 3.1 ms at
#'   0.08), and at n = 64 anything in 0.1-0.2 is within 10 per cent.
#' @param timeout Seconds of a run after which it is cut (`Inf`: none).
#' @param max_sweeps Sweeps after which a run is cut (`Inf`: none).
#' @param check_every Sweeps between ground-state checks, or `"auto"` (1 on
#'   the CPU, 16 on the GPU, where a check costs about half a sweep). The
#'   result does not depend on it (the sweeps since the last check are
#'   replayed).
#' @param seed Seed (see [philox]); `NULL` draws one from R's generator.
#' @param first_run Number of the first run of this call (chunks).
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
#'   longer move in step (bench/RESULTS.md compares the two).
#' @return An object of class `xorsat_tts`: a data frame with one row per
#'   run and columns `run`, `sweeps`, `seconds`, `solved` and `clone` (the
#'   first clone to solve, 1-based; `NA` when cut); attributes `instance`
#'   (name), `n`, `clones`, `p1`, `seed`, `backend`, `devices`, `seconds`
#'   (of the call), `seconds_per_sweep`, `solutions` (for each solved run the
#'   solving clone's spins, `TRUE` = down, each checked to have
#'   \eqn{E = -N}) and `interrupted`.
#' @references Bernaschi, M., Bisson, M., Fatica, M., Marinari, E.,
#'   Martin-Mayor, V., Parisi, G. and Ricci-Tersenghi, F. (2021) How we are
#'   leading a 3-XORSAT challenge: from the energy landscape to the
#'   algorithm and its efficient implementation on GPUs. *EPL* 133, 60005.
#' @examples
#' inst <- xorsat_random(64, seed = 1)
#' x <- xorsat_qg(inst, runs = 20, clones = 64, seed = 1,
#'                backend = "cpu")
#' head(x)
#' @export
xorsat_qg <- function(instance, runs = 100, clones = "auto", p1 = 0.08, timeout = Inf,
                      max_sweeps = Inf, check_every = "auto", seed = NULL, first_run = 1,
                      backend = "auto", devices = NULL, progress = interactive(),
                      independent_clones = FALSE) {
  call <- sys.call()
  if (!inherits(instance, "xorsat")) {
    sp_abort(paste0("`instance` must be a 3-XORSAT instance (read_xorsat(), ",
                    "xorsat_random()), not ", describe(instance), "."), call = call)
  }
  p1 <- check_range(p1, "p1", 0, 1, call = call)
  if (length(p1) != 1) sp_abort("`p1` must be a single number in [0, 1].", call = call)
  independent_clones <- check_flag(independent_clones, "independent_clones", call = call)
  auto_clones <- identical(clones, "auto")
  if (!auto_clones) {
    clones <- check_whole(clones, "clones", lo = 32, hi = 2^21, call = call)
    if (clones %% 32 != 0) {
      sp_abort(sprintf("`clones` must be a positive multiple of 32 (clones are coded 32 to a word), not %s.",
                       fmt_num(clones)), call = call)
    }
  }
  if (!identical(timeout, Inf)) timeout <- check_positive(timeout, "timeout", len = 1, call = call)
  if (!identical(max_sweeps, Inf)) {
    max_sweeps <- check_whole(max_sweeps, "max_sweeps", lo = 1, hi = 2^52, call = call)
  }
  # the GPU pays off from about 64 spins (launches cost more than whole runs
  # of smaller instances)
  plan <- resolve_backend(backend, devices, work = instance$n, auto_threshold = 64, call = call)
  if (plan$backend == "gpu" && instance$n > XORSAT_GPU_MAX_N) {
    sp_abort(sprintf(paste0(
      "the GPU kernel keeps an instance's tables and each warp's spins in shared memory ",
      "and takes at most %s spins; this instance has %s: use backend = \"cpu\"."),
      fmt_count(XORSAT_GPU_MAX_N), fmt_count(instance$n)), call = call)
  }
  if (auto_clones) clones <- if (plan$backend == "gpu") 0 else 256
  if (identical(check_every, "auto")) check_every <- if (plan$backend == "gpu") 16 else 1
  check_every <- check_whole(check_every, "check_every", lo = 1, hi = 2^40, call = call)
  fr <- sim_frame(call, n = runs, first = first_run, seed = seed, backend = plan$backend,
                  devices = if (plan$backend == "gpu") plan$devices, progress = progress, row_bytes = 40 + 4 * instance$n, n_name = "runs",
                  first_name = "first_run", max_replicas = 2^47)
  tab <- xorsat_tables(instance)
  plan <- c(clones / 32, fr$n, if (is.finite(max_sweeps)) max_sweeps else 0, check_every,
            if (is.finite(timeout)) timeout else 0, p1, as.numeric(independent_clones))
  res <- sim_run(fr, C_sp_r_xorsat, tab$order, tab$sets, tab$partner, tab$jneg, tab$eq,
                 tab$jeq, as.double(plan), check_u64(fr$first - 1, "first_run", call = call),
                 fr$seed, kernel = "xorsat",
                 variant = if (independent_clones) "indep"
                   else getOption("statphysgpu.xorsat_variant", "default"))
  clones <- res$clones
  started <- res$status != -2L
  runs_id <- fr$first - 1 + seq_len(fr$n)
  out <- data.frame(run = runs_id, sweeps = res$sweeps, seconds = res$seconds,
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
    solutions[[as.character(runs_id[r])]] <- s
  }
  unfinished <- data.frame(run = runs_id[!started | res$status == -1L],
                           started = (res$status == -1L)[!started | res$status == -1L])
  out <- out[started, , drop = FALSE]
  rownames(out) <- NULL
  attr(out, "instance") <- instance$name
  attr(out, "n") <- instance$n
  attr(out, "clones") <- clones
  attr(out, "p1") <- p1
  attr(out, "independent_clones") <- independent_clones
  attr(out, "timeout") <- timeout
  attr(out, "max_sweeps") <- max_sweeps
  attr(out, "seconds_per_sweep") <- if (sum(out$sweeps) > 0) sum(out$seconds) / sum(out$sweeps) else NA_real_
  attr(out, "solutions") <- solutions
  attr(out, "unfinished") <- unfinished
  sim_result(out, fr, res, class = c("xorsat_tts", "data.frame"),
             unfinished = sprintf(paste0(
               "%s of %s runs finished; the %s in progress are returned cut ",
               "(solved = FALSE) at the time they had reached, the %s not started are left ",
               "out (attr(x, \"unfinished\"))"),
               fmt_count(sum(res$status >= 0L)), fmt_count(fr$n),
               fmt_count(sum(res$status == -1L)), fmt_count(sum(!started))))
}

# Largest instance of the GPU kernel (SP_GPU_XORSAT_MAX_N of src/gpu/sp_gpu_xorsat.h).
XORSAT_GPU_MAX_N <- 1536

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
  # at most 32 spins a colour: the sets fill the 32 lanes of the GPU's warps
  color <- integer(n)
  size <- integer(n + 1)
  for (i in seq_len(n)) {
    used <- color[partner[, i] + 1L]
    k <- 1L
    while (k %in% used || size[k] >= 32L) k <- k + 1L
    color[i] <- k
    size[k] <- size[k] + 1L
  }
  list(order = as.integer(order(color, seq_len(n)) - 1L),
       sets = as.integer(c(0L, cumsum(tabulate(color)))), partner = as.integer(partner),
       jneg = as.integer(jneg), eq = as.integer(t(eq) - 1L),
       jeq = as.integer(instance$J == -1), colors = max(color))
}
