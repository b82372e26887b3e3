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
#   written (read-only, full, out of inodes, a file in the way) costs one
#   warning and the session's temporary folder (or no caching): never a wait;
# * parallel sessions build a file once under a lock of the operating system
#   (filelock), which a process that ends releases (cache_lock);
# * gpu_cache_clear() removes only what the records say the package wrote
#   (cache_clear_dir()): the cache may share a folder with the user's files.

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

# A private subfolder of the cache (created 0700), or one of this session's
# folder (with a warning that says why): where a regular file has the
# subfolder's name (it is left as it is), where the subfolder cannot be
# created or written (read-only, full, out of inodes).  A subfolder there
# that is not ours or not private (a link, another user's, one others can
# write: left when the folder was writable by others) is moved aside.
cache_subdir <- function(root, name) {
  d <- file.path(root, name)
  session <- function(why, fix = "") {
    if (identical(root, cache_session_dir())) return(d) # its writes then warn
    s <- cache_subdir(cache_session_dir(), name)
    cache_warn_once(paste0("sub:", d), sprintf(paste0(
      "the cache folder %s %s; compiled models are kept in this session's folder (%s) ",
      "instead, and compiled again in each session.%s"), d, why, s,
      if (nzchar(fix)) paste0(" ", fix, ", or set options(statphysgpu.cache_dir =) or ",
                              "STATPHYSGPU_CACHE_DIR to another folder.") else ""))
    s
  }
  info <- .Call(C_sp_r_path_info, d)
  if (info$exists && !info$dir && !info$link) {
    # a file of the user's where the folder belongs: not ours to move
    if (identical(root, cache_session_dir())) {
      return(cache_subdir(root, paste0(name, "-", Sys.getpid())))
    }
    return(session(paste0("is a file, not a folder (the cache keeps its compiled models ",
                          "in a folder of that name)"),
                   "Move or rename that file"))
  }
  if (info$exists && !cache_private_ok(info)) {
    what <- if (isTRUE(info$link)) "is a symbolic link (the cache follows none)"
            else if (!identical(info$uid, info$euid)) "belongs to another user"
            else "was writable by group or others"
    aside <- file.path(root, sprintf(".foreign-%s-%d", name, Sys.getpid()))
    if (!file.rename(d, aside)) {
      return(session(paste0(what, " and cannot be moved aside")))
    }
    cache_warn_once(paste0("sub:", d), sprintf(paste0(
      "the cache folder %s %s; it was moved aside to %s, unused (delete it when you have ",
      "looked at it)."), d, what, aside))
    info <- .Call(C_sp_r_path_info, d)
  }
  if (!info$exists) {
    ok <- suppressWarnings(dir.create(d, mode = "0700"))
    if (!ok && !dir.exists(d)) {
      return(session("cannot be created", "Free space or inodes there, make the folder writable"))
    }
  }
  if (file.access(d, 2) != 0) {
    return(session("cannot be written (read-only)", "Make it writable"))
  }
  d
}

# SHA-256 (64 hexadecimal digits) of the bytes of a raw vector, or of the
# elements of a character vector each followed by a NUL byte (so that
# c("ab", "c") and c("a", "bc") differ), by the digest package: the keys of
# compiled files, the records that check them and the seals of results.
sp_sha256 <- function(x) {
  if (is.character(x)) {
    x <- unlist(lapply(x, function(s) c(charToRaw(s), as.raw(0L))), use.names = FALSE)
  }
  digest::digest(if (is.null(x)) raw() else x, algo = "sha256", serialize = FALSE)
}

# The record beside a cached file: its key and the SHA-256 of its bytes.
cache_record_path <- function(path) paste0(path, ".sha256")
cache_record <- function(key, bytes) {
  charToRaw(paste0("statphysgpu-cache 1\n", key, "\n", sp_sha256(bytes), "\n"))
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

# The warning (once a session per folder) that the cache folder `dir` cannot
# be written, and why: what is compiled is used in this session only.
cache_unwritable <- function(dir, why) {
  cache_warn_once(paste0("write:", dir), sprintf(paste0(
    "could not write the compile cache in %s (%s); what is compiled now is used in this ",
    "session only. Free space there, make it writable, or set ",
    "options(statphysgpu.cache_dir =) or STATPHYSGPU_CACHE_DIR to another folder."),
    dir, why))
}

# A name for a temporary file of this process in `dir`: .tmp-<pid>-<12
# characters> (from a counter and the clock; R's random numbers are not
# touched).  gpu_cache_clear() knows the pattern.
cache_tmp_name <- function(dir) {
  .sp_cache$tmp_serial <- (.sp_cache$tmp_serial %||% 0) + 1
  tag <- sp_sha256(c(cache_host(), format(Sys.time(), "%Y%m%d%H%M%OS6"),
                              format(.sp_cache$tmp_serial)))
  file.path(dir, sprintf(".tmp-%d-%s", Sys.getpid(), substr(tag, 1, 12)))
}
cache_tmp_pattern <- "^\\.tmp-([0-9]{1,10})-[0-9a-z]{12}$"

# Write `bytes` as the cached file `path` for `key` (0600, atomic rename),
# then its record.  FALSE (with a warning once) where it cannot be written.
cache_write <- function(path, key, bytes) {
  put <- function(p, b) {
    tmp <- cache_tmp_name(dirname(p))
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
    cache_unwritable(dirname(path), ok)
    return(invisible(FALSE))
  }
  invisible(TRUE)
}

# This machine's name (in the names of temporary files).
cache_host <- function() unname(Sys.info()[["nodename"]])

# Remove the lock `lock` (or whatever has its name: a folder, the lock of an
# earlier version of the package).
cache_lock_remove <- function(lock) {
  info <- .Call(C_sp_r_path_info, lock)
  if (isTRUE(info$dir) && !isTRUE(info$link)) unlink(lock, recursive = TRUE)
  else if (isTRUE(info$exists)) unlink(lock)
  invisible(!.Call(C_sp_r_path_info, lock)$exists)
}

# Hold the lock of cached file `path` while it is built, so that parallel
# sessions build it once: returns a function that releases it, or NULL when
# another session finished building it while we waited (read it then).
# The lock is the file <path>.lock, locked by the filelock package (an
# advisory lock of the operating system, which releases it when its process
# ends: a session killed while compiling leaves no lock to take over).
# Waiting on a held one says so after `say` seconds, and after `wait`
# seconds the file is built without the lock.  A lock that cannot be made
# (the folder read-only, full, out of inodes, a file in the way) costs a
# warning (once) and the file is built without it: this never spins.  At
# worst two sessions build the same file, which is harmless (each writes it
# whole, by atomic rename): the lock file is removed when released, so a
# session waiting on it may then hold the removed file's lock while a new one
# locks a new file, but both read the file built meanwhile first.
cache_lock <- function(path, key, wait = 1800, say = 10) {
  lock <- paste0(path, ".lock")
  t0 <- Sys.time()
  waited <- function() as.double(difftime(Sys.time(), t0, units = "secs"))
  unlocked <- function() NULL
  said <- FALSE
  # the lock folder of an earlier version of the package
  if (isTRUE(.Call(C_sp_r_path_info, lock)$dir)) cache_lock_remove(lock)
  repeat {
    l <- tryCatch(suppressWarnings(
      filelock::lock(lock, exclusive = TRUE, timeout = if (said) 500 else 100)),
      error = function(e) e)
    if (inherits(l, "error")) {
      cache_unwritable(dirname(path), conditionMessage(l))
      return(unlocked)
    }
    if (!is.null(l)) {
      release <- function() {
        unlink(lock)
        filelock::unlock(l)
        invisible()
      }
      # built by another session between our first look and the lock
      if (!is.null(cache_read(path, key))) {
        release()
        return(NULL)
      }
      return(release)
    }
    if (!is.null(cache_read(path, key))) return(NULL)
    if (waited() > wait) return(unlocked)
    if (!said && waited() >= say) {
      said <- TRUE
      message(sprintf(paste0(
        "Waiting for another R session, which is compiling this model (it holds the lock ",
        "%s); this session compiles it itself after %.0f s more."),
        lock, max(0, wait - waited())))
    }
  }
}

# The name of a cached file: <what>-<the first 32 hexadecimal digits of its
# key>.<kind>; its record is <name>.sha256, its lock <name>.lock.
cache_entry_pattern <- "^[A-Za-z0-9_.-]+-([0-9a-f]{32})\\.(cubin|ptx|so|sl|dylib|dll)$"

# Remove from the folder `d` what the package wrote there and nothing else:
# each cached file named by the package's pattern whose record (written
# beside it, naming the same key) says the package wrote it, with that
# record (a record left alone too); the lock folders of such files that no
# running process holds (empty, or holding only an owner record); the
# temporary files of writes that did not finish (.tmp-<pid>-<12
# characters>) whose process no longer runs.  Files of others (a user's
# notes, scripts, folders, a .ptx without a record) stay, as do the
# folders moved aside by cache_subdir().  Returns the number of cached
# files removed.
cache_clear_dir <- function(d) {
  if (!cache_private_ok(.Call(C_sp_r_path_info, d))) return(0L)
  names <- list.files(d, all.files = TRUE, no.. = TRUE)
  n <- 0L
  plain <- function(p) {
    i <- .Call(C_sp_r_path_info, p)
    isTRUE(i$exists) && !isTRUE(i$dir)
  }
  for (r in names[endsWith(names, ".sha256")]) {
    f <- substr(r, 1L, nchar(r) - 7L)
    hex <- regmatches(f, regexec(cache_entry_pattern, f))[[1]][2]
    if (is.na(hex)) next
    rec <- .Call(C_sp_r_file_read_private, file.path(d, r))
    lines <- if (isTRUE(rec$ok)) {
      tryCatch(strsplit(rawToChar(rec$bytes), "\n", fixed = TRUE)[[1]], error = function(e) NULL)
    }
    if (length(lines) != 3L || !identical(lines[1], "statphysgpu-cache 1") ||
        !identical(substr(lines[2], 1L, 32L), hex)) next
    if (plain(file.path(d, f)) && unlink(file.path(d, f)) == 0L) n <- n + 1L
    unlink(file.path(d, r))
  }
  for (l in names[endsWith(names, ".lock")]) {
    lock <- file.path(d, l)
    i <- .Call(C_sp_r_path_info, lock)
    if (!grepl(cache_entry_pattern, sub("\\.lock$", "", l)) || isTRUE(i$link) ||
        !identical(i$uid, i$euid)) next
    if (isTRUE(i$dir)) {
      # the lock folder of an earlier version: empty, or its owner record alone
      inside <- list.files(lock, all.files = TRUE, no.. = TRUE)
      if (length(setdiff(inside, "owner")) > 0L) next
      if (length(inside) && !plain(file.path(lock, "owner"))) next
      cache_lock_remove(lock)
    } else {
      # a lock file that no process holds
      h <- tryCatch(suppressWarnings(filelock::lock(lock, timeout = 0)),
                    error = function(e) NULL)
      if (!is.null(h)) {
        unlink(lock)
        filelock::unlock(h)
      }
    }
  }
  for (t in grep(cache_tmp_pattern, names, value = TRUE)) {
    pid <- as.double(sub(cache_tmp_pattern, "\\1", t))
    alive <- pid != Sys.getpid() && pid >= 1 && pid <= .Machine$integer.max &&
      isTRUE(tools::pskill(as.integer(pid), 0L))
    if (!alive && plain(file.path(d, t))) unlink(file.path(d, t))
  }
  n
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

