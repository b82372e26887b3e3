# The compile caches (GPU kernels, user models' GPU images and CPU objects):
# where they live and how files are read, written and loaded.  Compiled code
# is code the user runs, so (DESIGN.md, "Models as descriptors"):
#
# * the cache folder is private: created 0700; a configured folder is used
#   only when this user owns it and no one else can write it or any folder
#   above it (a folder above may be writable by others only when it is
#   sticky, as /tmp is, so that no one can rename what is ours).  A folder
#   others may write but which is sticky gets a private subfolder
#   (statphysgpu-<uid>); otherwise the session's private temporary folder
#   is used, with a warning that says why.  A folder we own that others may
#   write is made private (0700), with a warning.
# * every file is named by a SHA-256 key of the exact bytes compiled (and
#   the compiler and options), and written 0600 by atomic rename beside a
#   record of its key and the SHA-256 of its content;
# * a file is read only when this user owns it, no one else may write it,
#   it is not a link, its record names the same key and its content has the
#   recorded SHA-256 (the checks are made on the open file, so nothing can
#   be swapped in between); anything else is ignored and rebuilt;
# * a CPU object is loaded from a copy in the session's private temporary
#   folder, made from the checked bytes, never from the cache itself;
# * a damaged or foreign file is rebuilt once; a cache that cannot be
#   written (read-only, full, a file in the way) costs a warning and the
#   session's temporary folder.

.sp_cache <- new.env(parent = emptyenv())
.sp_cache$warned <- character()
.sp_cache$dll_serial <- 0L

# A warning given once a session per `id`.
cache_warn_once <- function(id, message, class = NULL) {
  if (id %in% .sp_cache$warned) return(invisible(FALSE))
  .sp_cache$warned <- c(.sp_cache$warned, id)
  sp_warn(message, class = c(class, "statphysgpu_cache_warning"))
  invisible(TRUE)
}

# The folder the user configured (option, environment, R_user_dir).
# Under R CMD check (examples, tests, vignettes), unless a folder is set
# explicitly, the session's temporary folder: a check writes nothing in the
# user's cache.
cache_configured <- function() {
  d <- getOption("statphysgpu.cache_dir", Sys.getenv("STATPHYSGPU_CACHE_DIR"))
  if (is.null(d) || !nzchar(d)) {
    if (nzchar(Sys.getenv("_R_CHECK_PACKAGE_NAME_"))) {
      return(file.path(tempdir(), "statphysgpu-check-cache"))
    }
    d <- tools::R_user_dir("statphysgpu", "cache")
  }
  path.expand(d)
}

# Is a folder, by its lstat() record, safe as a folder above the cache: owned
# by this user or root, and writable by no one else unless sticky.
cache_ancestor_ok <- function(info) {
  isTRUE(info$exists) && isTRUE(info$dir) && info$uid %in% c(info$euid, 0) &&
    (bitwAnd(info$mode, 18L) == 0L || isTRUE(info$sticky)) # 18 = 0022
}

# Is a folder ours and writable by us alone?
cache_private_ok <- function(info) {
  isTRUE(info$exists) && isTRUE(info$dir) && !isTRUE(info$link) &&
    identical(info$uid, info$euid) && bitwAnd(info$mode, 18L) == 0L
}

# The folders above a (normalised) path, nearest first.
cache_ancestors <- function(p) {
  out <- character()
  repeat {
    up <- dirname(p)
    if (identical(up, p)) break
    out <- c(out, up)
    p <- up
  }
  out
}

# The session's own cache: a folder of the R session's temporary folder
# (private to this user, removed when the session ends).
cache_session_dir <- function() {
  d <- file.path(tempdir(), "statphysgpu-cache")
  if (!dir.exists(d)) dir.create(d, mode = "0700", showWarnings = FALSE)
  d
}

# The cache folder to use for the configured `conf`: conf itself, a private
# subfolder of it, or the session's folder; with a warning (once) where it
# is not conf.  NULL `why` when conf is used as it is.
cache_resolve <- function(conf) {
  fallback <- function(why) {
    d <- cache_session_dir()
    cache_warn_once(paste0("fallback:", conf), sprintf(paste0(
      "the compile cache %s %s; using a private folder of this session instead (%s), ",
      "so kernels and models are compiled again in each session. Set ",
      "options(statphysgpu.cache_dir =) or STATPHYSGPU_CACHE_DIR to a folder only you ",
      "can write."), conf, why, d))
    d
  }
  if (!dir.exists(conf)) {
    if (file.exists(conf)) return(fallback("is a file, not a folder"))
    ok <- suppressWarnings(dir.create(conf, recursive = TRUE, mode = "0700"))
    if (!ok && !dir.exists(conf)) return(fallback("cannot be created"))
  }
  p <- normalizePath(conf, mustWork = TRUE)
  for (a in cache_ancestors(p)) {
    if (!cache_ancestor_ok(.Call(C_sp_r_path_info, a))) {
      return(fallback(sprintf(paste0("lies in %s, which another user owns or can write ",
                                     "(without the sticky bit), so the cache could be ",
                                     "replaced"), a)))
    }
  }
  info <- .Call(C_sp_r_path_info, p)
  use <- p
  if (!identical(info$uid, info$euid)) {
    # someone else's folder: only a sticky one (as /tmp) protects a subfolder
    if (!(isTRUE(info$sticky) && cache_ancestor_ok(info))) {
      return(fallback("belongs to another user"))
    }
    use <- file.path(p, sprintf("statphysgpu-%d", as.integer(info$euid)))
    if (!dir.exists(use) && !suppressWarnings(dir.create(use, mode = "0700"))) {
      return(fallback("has no room for a private subfolder"))
    }
    info <- .Call(C_sp_r_path_info, use)
    if (!identical(info$uid, info$euid) || isTRUE(info$link)) {
      return(fallback(sprintf("holds %s, which is not yours", basename(use))))
    }
  }
  if (bitwAnd(info$mode, 18L) != 0L) {
    # ours, but others may write it: make it private (what others may have
    # put there is refused file by file)
    if (!isTRUE(Sys.chmod(use, "0700", use_umask = FALSE))) {
      return(fallback("is writable by others and could not be made private"))
    }
    cache_warn_once(paste0("chmod:", use), sprintf(paste0(
      "the compile cache %s was writable by group or others; it is now private (0700). ",
      "Files others may have put there are not used."), use))
  }
  if (file.access(use, 2) != 0) return(fallback("is not writable"))
  use
}

# The cache folder in use (resolved once a session per configured folder,
# and re-checked cheaply on each call: a folder replaced since is resolved
# again).
cache_root <- function() {
  conf <- cache_configured()
  memo <- .sp_cache$roots[[conf]]
  if (!is.null(memo) && cache_private_ok(.Call(C_sp_r_path_info, memo))) return(memo)
  d <- cache_resolve(conf)
  if (is.null(.sp_cache$roots)) .sp_cache$roots <- list()
  .sp_cache$roots[[conf]] <- d
  d
}

# A private subfolder of the cache (created 0700); a subfolder there that is
# not ours (left when the folder was writable by others) is moved aside.
cache_subdir <- function(root, name) {
  d <- file.path(root, name)
  info <- .Call(C_sp_r_path_info, d)
  if (info$exists && !cache_private_ok(info)) {
    aside <- file.path(root, sprintf(".foreign-%s-%d", name, Sys.getpid()))
    if (!file.rename(d, aside)) {
      cache_warn_once(paste0("sub:", d), sprintf(
        "the cache folder %s is not yours and cannot be moved aside; using this session's folder", d))
      return(cache_subdir(cache_session_dir(), paste0(name, "-", Sys.getpid())))
    }
    cache_warn_once(paste0("sub:", d), sprintf(
      "the cache folder %s was not yours (or writable by others); it was moved aside, unused", d))
    info <- .Call(C_sp_r_path_info, d)
  }
  if (!info$exists) {
    ok <- suppressWarnings(dir.create(d, mode = "0700"))
    if (!ok && !dir.exists(d)) {
      cache_warn_once(paste0("mk:", d), sprintf(
        "cannot create the cache folder %s; using this session's folder", d))
      return(cache_subdir(cache_session_dir(), name))
    }
  }
  d
}

# The record beside a cached file: its key and the SHA-256 of its bytes.
cache_record_path <- function(path) paste0(path, ".sha256")
cache_record <- function(key, bytes) {
  charToRaw(paste0("statphysgpu-cache 1\n", key, "\n", .Call(C_sp_r_hash, bytes), "\n"))
}

# The bytes of the cached file `path` for `key`, or NULL (absent, damaged,
# not ours, writable by others, or of another key: each is then rebuilt).
cache_read <- function(path, key) {
  f <- .Call(C_sp_r_file_read_private, path)
  if (!f$ok) {
    if (!identical(f$why, "missing")) {
      cache_warn_once(paste0("foreign:", path), sprintf(paste0(
        "the cached file %s is not used (%s); it is compiled again"), path,
        switch(f$why, owner = "another user owns it", writable = "others can write it",
               link = "it is a link", "not a file" = "it is not a plain file",
               "it cannot be read")))
    }
    return(NULL)
  }
  r <- .Call(C_sp_r_file_read_private, cache_record_path(path))
  if (!r$ok || !identical(r$bytes, cache_record(key, f$bytes))) return(NULL)
  f$bytes
}

# Write `bytes` as the cached file `path` for `key` (0600, atomic rename),
# then its record.  FALSE (with a warning once) where it cannot be written.
cache_write <- function(path, key, bytes) {
  put <- function(p, b) {
    tmp <- file.path(dirname(p), sprintf(".tmp-%d-%s", Sys.getpid(),
                                         paste(sample(c(letters, 0:9), 12, TRUE), collapse = "")))
    w <- .Call(C_sp_r_file_write_private, tmp, b)
    if (!isTRUE(w)) return(as.character(w))
    if (!file.rename(tmp, p)) {
      unlink(tmp)
      return("rename failed")
    }
    TRUE
  }
  ok <- put(path, bytes)
  if (isTRUE(ok)) ok <- put(cache_record_path(path), cache_record(key, bytes))
  if (!isTRUE(ok)) {
    unlink(c(path, cache_record_path(path)))
    cache_warn_once(paste0("write:", dirname(path)), sprintf(paste0(
      "could not write the compile cache in %s (%s); what is compiled now is used in this ",
      "session only"), dirname(path), ok))
    return(invisible(FALSE))
  }
  invisible(TRUE)
}

# Hold the lock of cached file `path` while it is built, so that parallel
# sessions build it once: returns a function that releases it, or NULL when
# another session finished building it while we waited (read it then).
# A lock older than `stale` seconds is taken over (its builder died).
cache_lock <- function(path, key, stale = 900, wait = 1800) {
  lock <- paste0(path, ".lock")
  t0 <- Sys.time()
  repeat {
    if (suppressWarnings(dir.create(lock, mode = "0700"))) {
      release <- function() unlink(lock, recursive = TRUE)
      # built by another session between our first look and the lock
      if (!is.null(cache_read(path, key))) {
        release()
        return(NULL)
      }
      return(release)
    }
    if (!is.null(cache_read(path, key))) return(NULL)
    age <- as.double(difftime(Sys.time(), file.mtime(lock), units = "secs"))
    if (!dir.exists(lock) || isTRUE(age > stale)) {
      unlink(lock, recursive = TRUE)
      next
    }
    if (as.double(difftime(Sys.time(), t0, units = "secs")) > wait) {
      return(function() NULL) # build without the lock
    }
    Sys.sleep(0.1)
  }
}

# Load the CPU object `bytes` (checked) from a private copy in the
# session's temporary folder; returns the DLLInfo and the copy's path.
cache_dyn_load <- function(bytes, key) {
  d <- file.path(tempdir(), "statphysgpu-dll")
  if (!dir.exists(d)) dir.create(d, mode = "0700")
  .sp_cache$dll_serial <- .sp_cache$dll_serial + 1L
  so <- file.path(d, sprintf("m%d_%s%s", .sp_cache$dll_serial, substr(key, 1, 12),
                             .Platform$dynlib.ext))
  w <- .Call(C_sp_r_file_write_private, so, bytes)
  if (!isTRUE(w)) sp_abort(sprintf("could not write %s to load it (%s).", so, w))
  list(dll = dyn.load(so, local = TRUE, now = TRUE), path = so)
}

