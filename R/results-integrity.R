# The integrity of results (issue 32): what rbind() may combine, the result
# fields read by their old names, what a continuation may read, and how
# print() shows whole numbers.

# ---- rbind(): one run, disjoint replicas -----------------------------------
#
# rbind() combines chunks of one run only: rbind_same() compares the
# settings of the parts (the model, the seed and every setting that shapes
# the numbers) and names the first that differs; rbind_disjoint() checks
# that their replicas are disjoint, from the replica ranges of the parts
# (attribute `replica_ranges`, or `first_replica` and `replicas`).  Both
# raise errors of class `statphysgpu_rbind_error`.

rbind_abort <- function(message) {
  sp_abort(message, class = "statphysgpu_rbind_error")
}

# The parts given to rbind(), NULLs dropped.
rbind_parts <- function(...) {
  parts <- list(...)
  parts[!vapply(parts, is.null, TRUE)]
}

# A value in a message: one number, string or flag as it is; anything else
# not shown.
rbind_show <- function(a, b) {
  one <- function(v) is.null(v) || (is.atomic(v) && length(v) == 1 && is.null(dim(v)))
  if (!one(a) || !one(b)) return("")
  show <- function(v) {
    if (is.null(v)) "none"
    else if (is.character(v)) sprintf("\"%s\"", v)
    else if (is.numeric(v)) fmt_num(v)
    else format(v)
  }
  sprintf(" (%s against %s)", show(a), show(b))
}

# Every part of class `cls` (the first's class) and with the same
# `settings` as the first: a named list, each a function of a part or the
# name of an attribute, compared with identical().  `what` names the
# simulator ("sde_run()"), `lead` what the parts must be ("chunks of one run
# (the same ...)").
rbind_same <- function(parts, what, lead, settings) {
  first <- parts[[1]]
  value <- function(p, get) if (is.function(get)) get(p) else attr(p, get, exact = TRUE)
  for (i in seq_along(parts)[-1]) {
    p <- parts[[i]]
    if (!identical(class(p), class(first))) {
      rbind_abort(sprintf(paste0("rbind() of %s results needs %s: argument %d is %s, ",
                                 "argument 1 a result of class %s."), what, lead, i,
                          if (is.data.frame(p) || is.list(p))
                            sprintf("of class %s", paste(class(p), collapse = "/"))
                          else describe(p), paste(class(first), collapse = "/")))
    }
    for (s in names(settings)) {
      a <- value(first, settings[[s]])
      b <- value(p, settings[[s]])
      if (!identical(a, b)) {
        rbind_abort(sprintf("rbind() of %s results needs %s: argument %d differs from argument 1 in %s%s.",
                            what, lead, i, s, rbind_show(b, a)))
      }
    }
  }
  invisible(TRUE)
}

# The replica ranges a result holds: a data frame (first_replica, replicas),
# from its attribute `replica_ranges` (combined results) or `first_replica`
# and `replicas`; NULL when it has neither.
result_ranges <- function(x) {
  r <- attr(x, "replica_ranges", exact = TRUE)
  if (!is.null(r)) return(r)
  f <- attr(x, "first_replica", exact = TRUE)
  n <- attr(x, "replicas", exact = TRUE)
  if (is.null(f) || is.null(n) || length(f) != 1 || length(n) != 1) return(NULL)
  ranges_df(f, n)
}

ranges_df <- function(first, count) {
  data.frame(first_replica = as.double(first), replicas = as.double(count))
}

# Ranges sorted, empty ones dropped, overlapping or adjacent ones merged.
ranges_merge <- function(r) {
  r <- r[r$replicas > 0, , drop = FALSE]
  if (!nrow(r)) return(ranges_df(numeric(), numeric()))
  r <- r[order(r$first_replica), , drop = FALSE]
  first <- r$first_replica[1]
  last <- first + r$replicas[1] - 1
  out_f <- out_l <- numeric()
  for (i in seq_len(nrow(r))[-1]) {
    f <- r$first_replica[i]
    l <- f + r$replicas[i] - 1
    if (f <= last + 1) {
      last <- max(last, l)
    } else {
      out_f <- c(out_f, first)
      out_l <- c(out_l, last)
      first <- f
      last <- l
    }
  }
  out_f <- c(out_f, first)
  out_l <- c(out_l, last)
  ranges_df(out_f, out_l - out_f + 1)
}

# The ranges a minus the ranges b (both merged).
ranges_setdiff <- function(a, b) {
  a <- ranges_merge(a)
  b <- ranges_merge(b)
  out_f <- out_l <- numeric()
  for (i in seq_len(nrow(a))) {
    f <- a$first_replica[i]
    l <- f + a$replicas[i] - 1
    for (j in seq_len(nrow(b))) {
      bf <- b$first_replica[j]
      bl <- bf + b$replicas[j] - 1
      if (bl < f || bf > l) next
      if (bf > f) {
        out_f <- c(out_f, f)
        out_l <- c(out_l, bf - 1)
      }
      f <- bl + 1
      if (f > l) break
    }
    if (f <= l) {
      out_f <- c(out_f, f)
      out_l <- c(out_l, l)
    }
  }
  ranges_df(out_f, out_l - out_f + 1)
}

# The ranges of a set of replica numbers (runs of consecutive numbers).
ranges_of <- function(numbers) {
  v <- sort(unique(as.double(numbers)))
  if (!length(v)) return(ranges_df(numeric(), numeric()))
  start <- c(TRUE, diff(v) != 1)
  f <- v[start]
  l <- v[c(start[-1], TRUE)]
  ranges_df(f, l - f + 1)
}

# Whether each number lies in the ranges r.
ranges_contain <- function(r, numbers) {
  r <- ranges_merge(r)
  if (!nrow(r)) return(rep(FALSE, length(numbers)))
  i <- findInterval(numbers, r$first_replica)
  ok <- i > 0
  ok[ok] <- numbers[ok] <= r$first_replica[i[ok]] + r$replicas[i[ok]] - 1
  ok
}

# "5 to 12" / "5" for the ranges r, at most `most` of them.
ranges_words <- function(r, most = 4) {
  one <- function(i) {
    f <- r$first_replica[i]
    l <- f + r$replicas[i] - 1
    if (l == f) fmt_count(f) else sprintf("%s to %s", fmt_count(f), fmt_count(l))
  }
  w <- vapply(seq_len(min(nrow(r), most)), one, "")
  if (nrow(r) > most) w <- c(w, sprintf("... (%s ranges in all)", fmt_count(nrow(r))))
  paste(w, collapse = ", ")
}

# The replica ranges of the parts, checked to be disjoint (a replica in two
# parts would be counted twice); the ranges of the combination, merged.
# Parts without ranges (results of earlier versions) are left out of the
# check.
rbind_disjoint <- function(parts, what) {
  rs <- lapply(seq_along(parts), function(i) {
    r <- result_ranges(parts[[i]])
    if (is.null(r) || !nrow(r)) return(NULL)
    cbind(r, part = i)
  })
  r <- do.call(rbind, rs)
  if (is.null(r)) return(NULL)
  r <- r[order(r$first_replica), , drop = FALSE]
  last <- r$first_replica + r$replicas - 1
  bad <- which(r$first_replica[-1] <= cummax(last)[-nrow(r)])
  if (length(bad)) {
    i <- bad[1] + 1
    j <- which(r$first_replica[seq_len(i - 1)] + r$replicas[seq_len(i - 1)] - 1 >=
                 r$first_replica[i])[1]
    parts_ij <- sort(c(r$part[i], r$part[j]))
    rbind_abort(sprintf(paste0(
      "the chunks overlap: %s and %s both hold replica %s (replicas %s and %s); ",
      "rbind() of %s results needs disjoint replicas, or a replica would count twice ",
      "(check `first_replica` and `replicas` of each chunk)."),
      if (parts_ij[1] == parts_ij[2]) sprintf("argument %d", parts_ij[1])
      else sprintf("arguments %d", parts_ij[1]),
      if (parts_ij[1] == parts_ij[2]) "itself" else sprintf("%d", parts_ij[2]),
      fmt_count(r$first_replica[i]),
      ranges_words(r[j, , drop = FALSE]), ranges_words(r[i, , drop = FALSE]), what))
  }
  ranges_merge(r[c("first_replica", "replicas")])
}

# The seconds of the parts, added up (a part whose attribute `seconds` is
# not a number, an edited result, counts 0).
rbind_seconds <- function(parts) {
  sum(vapply(parts, function(p) {
    s <- attr(p, "seconds", exact = TRUE)
    if (is.numeric(s) && length(s) == 1 && !is.na(s)) as.double(s) else 0
  }, 0))
}

# The standard attributes of a combination of parts: the merged replica
# ranges, first_replica and replicas (the replicas held), seconds and
# interrupted added up.
rbind_ranges_attrs <- function(out, parts, ranges) {
  if (!is.null(ranges)) {
    attr(out, "replica_ranges") <- if (nrow(ranges) > 1) ranges else NULL
    attr(out, "first_replica") <- if (nrow(ranges)) min(ranges$first_replica) else
      attr(parts[[1]], "first_replica")
    attr(out, "replicas") <- sum(ranges$replicas)
  }
  out
}

# ---- result fields read by their old names ---------------------------------
#
# Result columns renamed by the vocabulary of issue 23 are still read by
# their old names with a warning of class `statphysgpu_deprecated`
# (sp_old_column(); data frames of as.data.frame() through the class
# `sp_renamed_df`); renamed attributes are kept under their old names too
# (sp_old_attrs()).

# The names of earlier versions of the result columns (issue 23), by the
# class of the result: old = "new".
SP_OLD_COLUMNS <- list(
  vmc_blocks = c(walker = "replica"),
  xorsat_tts = c(run = "replica"),
  driven_paths = c(n = "replicas", gamma = "beta", D0 = "theta"),
  sde_moments = c(n = "replicas"),
  sp_chunks = c(n = "replicas"),
  summary.sp_paths = c(n = "replicas"),
  tts_estimate = c(level = "success"))

SP_OLD_OWNER <- c(vmc_blocks = "he4_vmc()", xorsat_tts = "xorsat_qg()",
                  driven_paths = "driven_brownian()", sde_moments = "sde_run()",
                  sp_chunks = "replica_chunks()", summary.sp_paths = "summary()",
                  tts_estimate = "tts_estimate()")

# `name` read from x, whose columns were renamed by `renames` (old = "new"):
# the new name, with a warning of class statphysgpu_deprecated, when `name`
# is an old one that x lacks and its new name is a column; else `name`.
sp_old_column <- function(x, name, renames, owner) {
  if (!is.character(name) || length(name) != 1 || is.na(name) ||
      !name %in% names(renames)) return(name)
  nms <- names(x)
  new <- renames[[name]]
  if (name %in% nms || !new %in% nms) return(name)
  sp_warn(sprintf(paste0("the column `%s` of %s results is deprecated: it is now called ",
                         "`%s` (the old name goes in the next release)."), name, owner, new),
          class = "statphysgpu_deprecated")
  new
}

# A data frame (of as.data.frame() of a result) that reads the old names of
# its columns, `renames`, with a warning, and is a data frame for all else.
sp_renamed_df <- function(d, cls) {
  attr(d, "sp_renamed") <- cls
  class(d) <- c("sp_renamed_df", setdiff(class(d), "sp_renamed_df"))
  d
}

sp_renamed_of <- function(x) {
  cls <- attr(x, "sp_renamed", exact = TRUE)
  if (is.character(cls) && length(cls) == 1 && cls %in% names(SP_OLD_COLUMNS)) cls else NULL
}

#' @export
`$.sp_renamed_df` <- function(x, name) {
  cls <- sp_renamed_of(x)
  if (!is.null(cls)) name <- sp_old_column(x, name, SP_OLD_COLUMNS[[cls]], SP_OLD_OWNER[[cls]])
  NextMethod()
}

# Columns selected by their old names (x[, "n"], x["n"]) are read as the new
# ones, with the warning; a part that lost the names' map (a selection of
# columns) is a plain data frame.
#' @export
`[.sp_renamed_df` <- function(x, i, j, drop) {
  cls <- sp_renamed_of(x)
  if (!is.null(cls)) {
    renamed <- function(v) {
      if (!is.character(v)) return(v)
      vapply(v, sp_old_column, "", x = x, renames = SP_OLD_COLUMNS[[cls]],
             owner = SP_OLD_OWNER[[cls]], USE.NAMES = FALSE)
    }
    if (!missing(j)) j <- renamed(j)
    else if (!missing(i) && nargs() == 2) i <- renamed(i)
  }
  out <- NextMethod()
  if (is.data.frame(out) && is.null(sp_renamed_of(out))) {
    attr(out, "sp_renamed") <- NULL
    class(out) <- setdiff(class(out), "sp_renamed_df")
  }
  out
}

#' @export
`[[.sp_renamed_df` <- function(x, i, ..., exact = TRUE) {
  cls <- sp_renamed_of(x)
  if (!is.null(cls) && missing(...)) {
    i <- sp_old_column(x, i, SP_OLD_COLUMNS[[cls]], SP_OLD_OWNER[[cls]])
  }
  NextMethod()
}

# The attributes renamed by the vocabulary of issue 23, kept for one release
# under their old names too (old = "new", by the class of the result): code
# of earlier versions that reads attr(x, "h") or attr(x, "theta") gets the
# value, not NULL.  attr() cannot be hooked to warn; the old names are
# documented as deprecated.  sp_old_attrs() sets them from the new ones
# wherever a result is made or combined.
SP_OLD_ATTRS <- list(
  escape_times = c(h = "dt", start = "init", n = "replicas"),
  switching_currents = c(h = "dt", start = "init", n = "replicas"),
  sde_passage = c(n = "replicas"), sde_moments = c(n = "replicas"),
  sde_histogram = c(n = "replicas"), sde_trajectories = c(n = "replicas"),
  kuramoto_run = c(theta = "phases"),
  vmc_blocks = c(step = "displacement", walkers = "replicas"))

sp_old_attrs <- function(x) {
  cls <- intersect(class(x), names(SP_OLD_ATTRS))
  if (!length(cls)) return(x)
  map <- SP_OLD_ATTRS[[cls[1]]]
  for (old in names(map)) attr(x, old) <- attr(x, map[[old]], exact = TRUE)
  x
}

# ---- continuations: the settings a result was run with ---------------------
#
# A continuation (`init = ` a result) reads the settings of the result and
# its end state; sp_seal() records a digest of each of them when the result
# is made, sp_check_seal() refuses a result whose digests no longer match (a
# modified result), naming what changed.

# A digest of a value (a string), the same on every platform (a result
# saved on one machine continues on another): small values exactly (numbers
# by the bytes of their doubles), long numeric vectors by exact integer sums
# of the 16-bit words of their doubles, plain and position-weighted, modulo
# a prime. Numbers are digested by value (a whole double and an integer
# alike). Version 2 (`version = 2`, what sp_seal() records) also tells a
# data frame from a list and a logical from a number, and digests the names
# of a vector, so that a field retyped or renamed so is seen as changed;
# version 1 (the seals of escape_times() and
# sde_ams() results made before it) did not.
# (Written here, not rlang::hash() or digest() of the serialized value: those
# depend on how R serializes, which changes between R versions and tells an
# integer from a whole double, and a result saved by one R continues in
# another; seals made by earlier versions of the package must keep
# matching too.  The text is then hashed by SHA-256, sp_sha256().)
sp_digest_text <- function(v, version = 2) {
  if (is.null(v)) return("NULL")
  if (is.data.frame(v)) {
    # an lrmd() start not drawn yet (the state of a system an interrupt left
    # unstarted): its recipe, which the columns are a function of, so that
    # the seal neither draws it nor changes when R reads it
    rc <- lrmd_recipe(v)
    if (!is.null(rc)) {
      return(paste0("lrmd_start(", paste(names(v), collapse = ","), ";",
                    sp_digest_text(as.double(rc$recipe), version), ")"))
    }
  }
  if (is.data.frame(v) || is.list(v)) {
    return(paste0(if (version >= 2 && is.data.frame(v)) "df(" else "list(",
                  paste(names(v) %||% "", vapply(v, sp_digest_text, "", version = version),
                        sep = "=", collapse = ","), ")"))
  }
  if (is.factor(v)) v <- as.character(v)
  dims <- if (!is.null(dim(v))) paste0("[", paste(dim(v), collapse = "x"), "]") else ""
  if (version >= 2 && !is.null(names(v))) { # (c(useful = , issued = ), ...)
    dims <- paste0(dims, "{", sp_digest_text(names(v), version), "}")
  }
  if (is.character(v)) {
    return(paste0("chr", dims, "(", paste(ifelse(is.na(v), "NA", sprintf("\"%s\"", v)),
                                           collapse = ","), ")"))
  }
  if (!is.numeric(v) && !is.logical(v)) return(paste0(typeof(v), "?"))
  type <- if (version >= 2 && is.logical(v)) "lgl" else "num"
  x <- if (is.double(v)) v else as.double(v)
  if (length(x) <= 64) {
    return(paste0(type, dims, "(", paste(writeBin(as.vector(x), raw(), endian = "little"),
                                         collapse = ""), ")"))
  }
  # (in C: the same numbers as sp_words_digest(), on the package's threads;
  # in R they take 0.5 s a million doubles, in C a millisecond)
  paste0(type, dims, "(n=", format(length(x), scientific = FALSE), ",",
         .Call(C_sp_r_words_digest, x), ")")
}

# Two sums of the 16-bit words of the doubles x, in pieces of 2^20 values
# (every partial sum an integer below 2^53: exact in any floating point),
# folded modulo 2^31 - 1.  The digests of long vectors are computed in C
# (sp_words_digest() of src/core/sp_digest.c), with the same result; this is
# the definition, which the tests compare with the C code.
sp_words_digest <- function(x) {
  p <- 2147483647
  s1 <- s2 <- 0
  for (from in seq(1, length(x), by = 2^20)) {
    i <- from:min(length(x), from + 2^20 - 1)
    w <- as.double(readBin(writeBin(x[i], raw(), endian = "little"), "integer", size = 2,
                           signed = FALSE, n = 4 * length(i), endian = "little"))
    s1 <- (s1 * 65599 + sum(w) %% p) %% p
    s2 <- (s2 * 65599 + sum(w * (seq_along(w) %% 4093 + 1)) %% p) %% p
  }
  sprintf("%.0f,%.0f", s1, s2)
}

sp_digest <- function(name, v, version = 2) {
  sp_sha256(c(sprintf("sp-seal-%d", version), name, sp_digest_text(v, version)))
}

# Whether the value v of field `name` has the digest `d` (of version 2, or
# of version 1 for a seal made before version 2).
sp_digest_matches <- function(name, v, d) {
  identical(sp_digest(name, v), d) || identical(sp_digest(name, v, version = 1), d)
}

# The value of a sealed field of x: an attribute by name, or a column as
# "$name" (NULL when x has no such column or is no list).
sp_seal_value <- function(x, f) {
  if (startsWith(f, "$")) {
    if (is.list(x)) .subset2(x, substring(f, 2)) else NULL
  } else attr(x, f, exact = TRUE)
}

# Records in attribute `sealed` the digest of each of `fields`: attributes
# by name, or columns as "$name".
sp_seal <- function(x, fields) {
  d <- vapply(fields, function(f) sp_digest(f, sp_seal_value(x, f)), "")
  attr(x, "sealed") <- d
  x
}

# TRUE when x carries a seal and every field still has its digest.
sp_seal_intact <- function(x) {
  s <- attr(x, "sealed", exact = TRUE)
  is.character(s) && length(s) && !is.null(names(s)) && !anyNA(names(s)) &&
    all(vapply(names(s), function(f) sp_digest_matches(f, sp_seal_value(x, f), s[[f]]), TRUE))
}

# The seal of a combination of parts (rbind() of chunks): `fields` of `out`
# (by default those of the first part's seal) sealed when every part is
# intact; a part modified after its run leaves the combination unsealed,
# which a continuation refuses.
sp_reseal <- function(out, parts, fields = names(attr(parts[[1]], "sealed", exact = TRUE))) {
  attr(out, "sealed") <- NULL
  if (all(vapply(parts, sp_seal_intact, TRUE))) out <- sp_seal(out, fields)
  out
}

# Refuses a result whose sealed fields changed since it was made (or that
# has no seal), naming the first field that changed: a continuation must
# run with what the result was run with. `what`: "escape_times()";
# `fields`: those the seal must hold (every field it holds is checked: a
# result sealed with more, as later versions seal it, is checked in all).
# Every continuation checks the seal before it reads anything else of the
# result, so that a modified result meets this refusal (class
# `statphysgpu_modified_result`), not an error of whatever part of the
# continuation first reads the changed field.
sp_check_seal <- function(x, what, call, fields) {
  s <- attr(x, "sealed", exact = TRUE)
  if (!is.character(s) || is.null(names(s)) || anyNA(names(s)) || !all(fields %in% names(s))) {
    sp_abort(sprintf(paste0(
      "`init` carries no record of the settings it was run with (attribute `sealed`): ",
      "it is a modified result or one of an earlier version; continue an unmodified ",
      "result of %s (rbind() of its chunks is one)."), what),
      call = call, class = "statphysgpu_modified_result")
  }
  for (f in unique(c(fields, names(s)))) {
    if (!sp_digest_matches(f, sp_seal_value(x, f), s[[f]])) {
      sp_abort(sprintf(paste0(
        "`init` was modified after it was run: its %s is not the one it was run with, ",
        "and a continuation must use what the result was run with (its seed, ",
        "precision, step, state, ...). Continue the result as %s returned it (or rbind() ",
        "of its chunks)."),
        if (startsWith(f, "$")) sprintf("column `%s`", substring(f, 2))
        else sprintf("attribute `%s`", f), what),
        call = call, class = "statphysgpu_modified_result")
    }
  }
  invisible(x)
}

# The fields of a kuramoto() result that a continuation reads
# (kuramoto_check_run(), kuramoto_check_same_A()), sealed when the result is
# made; the attribute `theta` (the phases' old name) is not read.
KURAMOTO_SEALED <- c("params", "systems", "phases", "steps_done", "clock", "seed_hex",
                     "precision")

# The fields of a many-body sde_run() result that a continuation reads
# (sde_mb_run()), sealed when the result is made.
SDE_MB_SEALED <- c("model_hash", "n", "seed_hex", "conditions", "replicas", "first_replica",
                   "precision", "method", "final", "k_end", "t_end")

# A single particle's passage result (sde_run(output = "passage")): what its
# continuation reads (R/sde-resume.R), the paths' values included (a
# continuation keeps those of the paths that stopped).
SDE_PASSAGE_SEALED <- c("model_hash", "seed_hex", "conditions", "replicas", "first_replica",
                        "precision", "method", "dt", "t_max", "bridge", "state", "at_passage",
                        "$value", "$escaped")

# ---- printing ------------------------------------------------------------------

# Whole-number columns of a table as print() shows them: exact, with
# thousands separators, where print()'s few digits would round them into
# scientific notation (replica 1099511627776 as 1.1e+12); other columns as
# they are.
fmt_whole_cols <- function(d, cols = c("condition", "replica", "replicas", "step", "block",
                                       "sweeps", "count", "n", "censored", "records")) {
  for (c in intersect(cols, names(d))) {
    v <- d[[c]]
    if (is.numeric(v) && length(v) && all(is.na(v) | (is.finite(v) & v == floor(v))) &&
        any(abs(v) >= 1e5, na.rm = TRUE)) {
      d[[c]] <- ifelse(is.na(v), NA_character_, fmt_count(v))
    }
  }
  d
}
