/* r_cache.c: the file checks of the compile caches (R/cache.R): what a
 * path is and who owns it (lstat: a link is not followed), reading a file
 * only if this user owns it and no one else can write it (the checks made
 * on the open file, so it cannot be swapped between the check and the
 * read), and writing a new file private to this user (0600, never through
 * a link).  POSIX only, as the package is. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "r_util.h"

#ifndef O_NOFOLLOW
#  define O_NOFOLLOW 0
#endif
#ifndef O_CLOEXEC
#  define O_CLOEXEC 0
#endif

/* list(exists, link, dir, file, uid, euid, mode, sticky) of a path (lstat). */
SEXP sp_r_path_info(SEXP path) {
  const char *names[] = {"exists", "link", "dir", "file", "uid", "euid", "mode", "sticky", ""};
  struct stat st;
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  int ok = lstat(CHAR(STRING_ELT(path, 0)), &st) == 0;
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(ok));
  SET_VECTOR_ELT(out, 1, Rf_ScalarLogical(ok && S_ISLNK(st.st_mode)));
  SET_VECTOR_ELT(out, 2, Rf_ScalarLogical(ok && S_ISDIR(st.st_mode)));
  SET_VECTOR_ELT(out, 3, Rf_ScalarLogical(ok && S_ISREG(st.st_mode)));
  SET_VECTOR_ELT(out, 4, Rf_ScalarReal(ok ? (double)st.st_uid : NA_REAL));
  SET_VECTOR_ELT(out, 5, Rf_ScalarReal((double)geteuid()));
  SET_VECTOR_ELT(out, 6, Rf_ScalarInteger(ok ? (int)(st.st_mode & 07777) : NA_INTEGER));
  SET_VECTOR_ELT(out, 7, Rf_ScalarLogical(ok && (st.st_mode & S_ISVTX)));
  UNPROTECT(1);
  return out;
}

/* list(ok, why, bytes): the bytes of a regular file that this user owns and
 * that neither group nor others may write; otherwise ok = FALSE and why says
 * which ("missing" (also under a non-folder), "link", "not a file", "owner",
 * "writable", "read"). */
SEXP sp_r_file_read_private(SEXP path) {
  const char *names[] = {"ok", "why", "bytes", ""};
  struct stat st;
  const char *why = NULL;
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names)), bytes = R_NilValue;
  int fd = open(CHAR(STRING_ELT(path, 0)), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    /* a path under something that is not a folder holds no file either */
    why = (errno == ENOENT || errno == ENOTDIR) ? "missing" : errno == ELOOP ? "link" : "read";
  } else if (fstat(fd, &st) != 0) {
    why = "read";
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a file";
  } else if (st.st_uid != geteuid()) {
    why = "owner";
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    why = "writable";
  } else {
    size_t n = (size_t)st.st_size, got = 0;
    bytes = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t)n));
    while (got < n) {
      ssize_t r = read(fd, RAW(bytes) + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (got != n) {
      why = "read";
      bytes = R_NilValue;
    }
    UNPROTECT(1);
  }
  if (fd >= 0) close(fd);
  PROTECT(bytes);
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(why == NULL));
  SET_VECTOR_ELT(out, 1, Rf_mkString(why == NULL ? "" : why));
  SET_VECTOR_ELT(out, 2, bytes);
  UNPROTECT(2);
  return out;
}

/* Write `bytes` (raw) into a new file `path` created 0600 (it must not
 * exist: O_EXCL, and a link there is not followed); TRUE on success, else
 * the system's message. */
SEXP sp_r_file_write_private(SEXP path, SEXP bytes) {
  const char *p = CHAR(STRING_ELT(path, 0));
  const unsigned char *b = RAW(bytes);
  size_t n = (size_t)XLENGTH(bytes), done = 0;
  int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), err = 0;
  if (fd < 0) return Rf_mkString(strerror(errno));
  while (done < n) {
    ssize_t r = write(fd, b + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      err = r < 0 ? errno : ENOSPC;
      break;
    }
    done += (size_t)r;
  }
  if (close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    unlink(p);
    return Rf_mkString(strerror(err));
  }
  return Rf_ScalarLogical(1);
}

/* The sizes a compiled model reports (its entry void f(int *out), 4 ints). */
SEXP sp_r_call_sizes(SEXP fn) {
  typedef void (*sizes_fn)(int *);
  SEXP out;
  sizes_fn f;
  if (TYPEOF(fn) != EXTPTRSXP || R_ExternalPtrAddr(fn) == NULL)
    Rf_error("internal error: sp_r_call_sizes needs a native symbol");
  f = (sizes_fn)(uintptr_t)R_ExternalPtrAddrFn(fn);
  out = PROTECT(Rf_allocVector(INTSXP, 4));
  f(INTEGER(out));
  UNPROTECT(1);
  return out;
}
