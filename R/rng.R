#' Philox4x32-10 random streams
#'
#' Every random number in statphysgpu comes from the counter-based generator
#' Philox4x32-10 (Salmon et al. 2011), the generator behind cuRAND's
#' `curandStatePhilox4_32_10_t`. These functions expose the streams directly:
#' they return draws `offset`, `offset + 1`, ... of stream `stream` under key
#' `seed`, identical on every backend and for any number of threads.
#'
#' @section Counter layout:
#' The 64-bit `seed` is the key (low 32 bits first). The 128-bit counter is
#' (block low, block high, stream low, stream high), and each counter value
#' gives four 32-bit draws: draw \eqn{d} of a stream is output \eqn{d \bmod 4}
#' of block \eqn{\lfloor d/4 \rfloor}. This is exactly cuRAND's
#' `curand_init(seed, subsequence = stream, offset = d, &state)` followed by
#' `curand(&state)`. Because a simulation replica \eqn{i} draws only from
#' stream \eqn{i}, its numbers do not depend on which thread, GPU or cluster
#' worker runs it.
#'
#' @section Transforms:
#' * `philox_uint32()`: the raw 32-bit draws \eqn{x}, as doubles.
#' * `philox_uniform()`: double precision \eqn{(x + 1/2)\,2^{-32}}, in
#'   \eqn{[2^{-33}, 1 - 2^{-33}]}; single precision
#'   \eqn{(\lfloor x / 2^9 \rfloor + 1/2)\,2^{-23}}, in
#'   \eqn{[2^{-24}, 1 - 2^{-24}]}. Never 0 or 1, and exact in their
#'   precision, so CPU and GPU agree bit for bit.
#' * `philox_normal()`: Box-Muller on consecutive pairs of draws
#'   \eqn{(a, b)} = draws `offset + 2k`, `offset + 2k + 1`:
#'   \eqn{r = \sqrt{-2 \log u(a)}}, normal \eqn{2k} is \eqn{r \cos(2\pi u(b))}
#'   and normal \eqn{2k+1} is \eqn{r \sin(2\pi u(b))}, with \eqn{u} the uniform
#'   transform of the chosen precision. The largest possible magnitude is
#'   6.76 (double) and 5.77 (single). CPU and GPU agree to the rounding of
#'   `log`, `sin` and `cos`.
#'
#' `offset` always counts 32-bit draws, whatever the transform.
#'
#' @param n Number of values, a whole number \eqn{\ge 0}.
#' @param seed Key of the generator: a whole number in \eqn{[0, 2^{64})}, a
#'   string of up to 16 hexadecimal digits such as `"0x299f31d0a4093822"`
#'   (for keys past \eqn{2^{53}}, which a double cannot hold exactly), or
#'   `NULL` to draw one with [sp_seed()] from R's random number generator
#'   (so `set.seed()` makes the call reproducible).
#' @param stream Stream (cuRAND's subsequence): a whole number in
#'   \eqn{[0, 2^{64})} or a hexadecimal string.
#' @param offset Index of the first 32-bit draw within the stream: a whole
#'   number in \eqn{[0, 2^{64})} or a hexadecimal string; `offset + n` must
#'   not pass \eqn{2^{64}}.
#' @param precision `"double"` or `"single"`: the transform used (the values
#'   are returned as doubles either way). The single-precision transforms are
#'   the ones the package's single-precision GPU kernels use.
#' @param backend `"auto"`, `"cpu"` or `"gpu"`; see [sp_backends()]. `"auto"`
#'   uses the GPU when one is usable and `n` is large enough to gain from it.
#' @param devices GPU ids (see [gpu_devices()]), `"all"`, or `NULL` for the
#'   first GPU. Values are handed to the devices in chunks of 2^25.
#' @return A double vector of length `n`. Long draws (\eqn{n \ge 10^8} in an
#'   interactive session) show a progress bar; an interrupt (Ctrl-C) returns
#'   the values drawn so far, the rest `NA`, with attribute `interrupted` and
#'   a warning.
#' @references Salmon, J. K., Moraes, M. A., Dror, R. O. and Shaw, D. E. (2011)
#'   Parallel random numbers: as easy as 1, 2, 3. *Proceedings of the
#'   International Conference for High Performance Computing, Networking,
#'   Storage and Analysis (SC'11)*. \doi{10.1145/2063384.2063405}
#' @examples
#' philox_uint32(4, seed = 0)
#' x <- philox_uniform(1e5, seed = 42)
#' range(x)
#' z <- philox_normal(1e5, seed = 42, stream = 7)
#' c(mean(z), var(z))
#' # offset shifts the stream: draws 4.. of stream 0
#' all.equal(philox_uint32(4, seed = 1, offset = 4),
#'           philox_uint32(8, seed = 1)[5:8])
#' @name philox
NULL

philox_draw <- function(kind, n, seed, stream, offset, precision, backend,
                        devices, call) {
  n <- check_count(n, "n", call = call)
  seed <- resolve_seed(seed, call = call)
  stream <- check_u64(stream, "stream", call = call)
  offset <- check_u64(offset, "offset", call = call)
  if (u64_add_overflows(offset, n)) {
    sp_abort(sprintf(
      "`offset + n` must not pass 2^64 (the end of a stream): offset = %s, n = %s.",
      u64_to_hex(offset), fmt_num(n)), call = call)
  }
  precision <- check_choice(precision, c("double", "single"), "precision",
                            call = call)
  plan <- resolve_backend(backend, devices, work = n, auto_threshold = 1e7,
                          call = call)
  # a bar only for draws that take a while (1e8 values: a second or more)
  fr <- list(call = call, plan = plan, progress = interactive() && n >= 1e8)
  res <- sim_run(fr, "philox", kind = kind, single = precision == "single", n = n,
                 seed = seed, stream = stream, offset = offset, kernel = "rng")
  out <- res$values
  if (res$filled < n) out[(res$filled + 1):n] <- NA_real_ # an interrupt: the rest not drawn
  if (res$run[["interrupted"]] == 1) {
    attr(out, "interrupted") <- TRUE
    sp_warn(sprintf(paste0(
      "interrupted: %s of %s values drawn; the others are NA. The values ",
      "drawn are those of an uninterrupted call."), fmt_count(res$filled),
      fmt_count(n)), call = call, class = "statphysgpu_interrupted")
  }
  out
}

#' @rdname philox
#' @export
philox_uint32 <- function(n, seed = NULL, stream = 0, offset = 0,
                          backend = "auto", devices = NULL) {
  philox_draw(0L, n, seed, stream, offset, "double", backend, devices,
              call = sys.call())
}

#' @rdname philox
#' @export
philox_uniform <- function(n, seed = NULL, stream = 0, offset = 0,
                           precision = c("double", "single"),
                           backend = "auto", devices = NULL) {
  philox_draw(1L, n, seed, stream, offset, precision, backend, devices,
              call = sys.call())
}

#' @rdname philox
#' @export
philox_normal <- function(n, seed = NULL, stream = 0, offset = 0,
                          precision = c("double", "single"),
                          backend = "auto", devices = NULL) {
  philox_draw(2L, n, seed, stream, offset, precision, backend, devices,
              call = sys.call())
}

# One Philox4x32-10 block: counter = 4 words, key = 2 words, each a whole
# number in [0, 2^32) or a (decimal or "0x" hex) string; returns the four
# output words as doubles.  Used by the Random123 known-answer tests.
philox_block <- function(counter, key) {
  w32 <- function(x) {
    vapply(x, function(v) {
      if (is.character(v) && grepl("^[0-9]+$", v)) {
        as.double(v)
      } else if (is.character(v)) {
        stopifnot(grepl("^0[xX][0-9a-fA-F]{1,8}$", v))
        h <- formatC(substring(v, 3), width = 8)
        h <- gsub(" ", "0", h, fixed = TRUE)
        strtoi(substr(h, 1, 4), 16L) * 65536 + strtoi(substr(h, 5, 8), 16L)
      } else as.double(v)
    }, numeric(1), USE.NAMES = FALSE)
  }
  stopifnot(length(counter) == 4, length(key) == 2)
  .Call(C_sp_r_philox_block, w32(counter), w32(key))
}
