#' Split replicas into chunks that combine into the one-machine result
#'
#' A replica's random numbers depend only on the seed and its replica number
#' (see [escape_times()], "Random numbers and chunking"), so a large study can
#' run as independent chunks, on other cores, GPUs, machines or cluster jobs,
#' each a call with the same `seed` and its own `first_replica` and `replicas`.
#' Every simulator takes these two arguments (`escape_times()`,
#' `switching_currents()`, `driven_brownian()`, `kuramoto()`, `he4_vmc()`,
#' `xorsat_qg()`).
#' `replica_chunks()` lays out those calls; [rbind()] of the chunk results
#' equals the result of one call with all the replicas.
#'
#' Give every chunk the same explicit `seed`: with `seed = NULL` each chunk
#' would draw its own seed from R's generator, and its replicas would not be
#' the one-machine replicas. So a call with `seed = NULL` and a first replica
#' above 1 is refused, and [rbind()] refuses chunks of different seeds.
#'
#' @param replicas Replicas in all, a whole number \eqn{\ge 1}.
#' @param size Replicas per chunk (the last chunk takes the rest). Give
#'   either `size` or `chunks`.
#' @param chunks Number of chunks, as equal as possible; at most `replicas`.
#' @param first_replica Number of the first replica of the whole study.
#' @param n Deprecated name of `replicas` (it works, with a warning of class
#'   `statphysgpu_deprecated`).
#' @return A data frame (class `sp_chunks`) with one row per chunk: `chunk`,
#'   `first_replica`, `replicas` (replicas in the chunk) and `last_replica`:
#'   the arguments `first_replica` and `replicas` of the chunk's call.
#'   (`x$n` and `x[["n"]]`, the column's name in earlier versions, still
#'   give `replicas`, with a warning of class `statphysgpu_deprecated`.)
#' @examples
#' ch <- replica_chunks(3000, chunks = 3)
#' ch
#' run <- function(first, m) {
#'   escape_times(m, gamma = 0.6, V0 = 1, beta = 0.5, theta = 0.2, dt = 0.02,
#'                t_max = 200, seed = 42, first_replica = first, backend = "cpu")
#' }
#' # lapply() here; future.apply::future_Map() or a cluster scheduler elsewhere
#' parts <- Map(run, ch$first_replica, ch$replicas)
#' x <- do.call(rbind, parts)
#' identical(x$value, run(1, 3000)$value)
#' @export
replica_chunks <- function(replicas, size = NULL, chunks = NULL, first_replica = 1, n) {
  sp_renamed_args(c(n = "replicas"), "replica_chunks")
  n <- check_count(replicas, "replicas", min = 1)
  first_replica <- check_whole(first_replica, "first_replica", lo = 1, hi = 2^40)
  if (first_replica - 1 + n > 2^40) {
    sp_abort("`first_replica + replicas - 1` must not pass 2^40 (replicas per condition).")
  }
  if (is.null(size) == is.null(chunks)) {
    sp_abort("give exactly one of `size` (replicas per chunk) and `chunks` (number of chunks).")
  }
  if (!is.null(size)) {
    size <- check_whole(size, "size", lo = 1, hi = 2^40)
    k <- ceiling(n / size)
    if (k > 1e7) {
      sp_abort(sprintf("`size` = %s would give %s chunks; at most 1e7 are laid out.",
                       fmt_num(size), format(k, big.mark = ",")))
    }
    counts <- c(rep(size, k - 1), n - size * (k - 1))
  } else {
    k <- check_whole(chunks, "chunks", lo = 1, hi = min(n, 1e7))
    base <- floor(n / k)
    counts <- base + c(rep(1, n - base * k), rep(0, k - (n - base * k)))
  }
  starts <- first_replica + c(0, cumsum(counts)[-k])
  out <- data.frame(chunk = seq_len(k), first_replica = starts, replicas = counts,
                    last_replica = starts + counts - 1)
  class(out) <- c("sp_chunks", "data.frame")
  out
}

# The column `n` of earlier versions (now `replicas`): still read, with a
# warning, so that code such as Map(run, ch$first_replica, ch$n) does not
# silently map over NULL.
#' @export
`$.sp_chunks` <- function(x, name) {
  if (identical(name, "n")) {
    sp_warn(paste0("the column `n` of replica_chunks() is deprecated: it is now called ",
                   "`replicas` (the old name goes in the next release)."),
            class = "statphysgpu_deprecated")
    name <- "replicas"
  }
  NextMethod()
}

#' @export
`[[.sp_chunks` <- function(x, i, ..., exact = TRUE) {
  if (missing(...)) i <- sp_old_column(x, i, SP_OLD_COLUMNS$sp_chunks, "replica_chunks()")
  NextMethod()
}
