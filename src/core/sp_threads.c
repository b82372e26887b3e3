#include "sp_threads.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif

static int sp_nth = 1;
static int sp_atfork_registered = 0;

static int imin(int a, int b) { return a < b ? a : b; }

/* A positive integer from the environment, or `dflt` when unset or invalid. */
static int env_int(const char *name, int dflt) {
  const char *val = getenv(name);
  char *end;
  long x;
  if (val == NULL || *val == '\0') return dflt;
  errno = 0;
  x = strtol(val, &end, 10);
  while (*end == ' ') end++;
  if (errno != 0 || *end != '\0' || x < 1 || x > INT_MAX) return dflt;
  return (int)x;
}

int sp_threads_openmp(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

int sp_threads_procs(void) {
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

int sp_threads_limit(void) {
#ifdef _OPENMP
  return imin(omp_get_thread_limit(), env_int("OMP_THREAD_LIMIT", INT_MAX));
#else
  return 1;
#endif
}

static void sp_after_fork_child(void) { sp_nth = 1; }

void sp_threads_init(void) {
#ifdef _OPENMP
  int n = env_int("STATPHYSGPU_NUM_THREADS", 0);
  if (n < 1) n = omp_get_num_procs();
  n = imin(n, env_int("OMP_NUM_THREADS", INT_MAX));
  n = imin(n, sp_threads_limit());
  /* R CMD check --as-cran limits packages to two cores. */
  {
    const char *lim = getenv("_R_CHECK_LIMIT_CORES_");
    if (lim != NULL && (strcmp(lim, "TRUE") == 0 || strcmp(lim, "true") == 0))
      n = imin(n, 2);
  }
  sp_nth = n < 1 ? 1 : n;
#else
  sp_nth = 1;
#endif
  if (!sp_atfork_registered) {
    pthread_atfork(NULL, NULL, sp_after_fork_child);
    sp_atfork_registered = 1;
  }
}

int sp_threads_get(void) { return sp_nth < 1 ? 1 : sp_nth; }

int sp_threads_set(int n) {
  int old = sp_nth;
#ifdef _OPENMP
  if (n >= 1) sp_nth = imin(n, sp_threads_limit());
#else
  (void)n;
  sp_nth = 1;
#endif
  return old;
}

void sp_team_fail(int64_t *first, int64_t index) {
#ifdef _OPENMP
#  pragma omp critical(sp_team_fail)
#endif
  if (*first < 0 || index < *first) *first = index;
}

/* dst[0 .. bytes) from src (zeros when src is NULL) on nth threads, 1 MiB a
 * piece: sp_threads_touch and sp_threads_copy. */
static void threads_fill(void *dst, const void *src, uint64_t bytes, int nth) {
  const uint64_t chunk = (uint64_t)1 << 20;
  const int64_t nchunk = (int64_t)((bytes + chunk - 1) / chunk);
  int64_t c;
  (void)nth;
  if (dst == NULL) return;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(static) if (nchunk > 1)
#endif
  for (c = 0; c < nchunk; c++) {
    const uint64_t i0 = (uint64_t)c * chunk, i1 = i0 + chunk < bytes ? i0 + chunk : bytes;
    if (src != NULL) memcpy((char *)dst + i0, (const char *)src + i0, (size_t)(i1 - i0));
    else memset((char *)dst + i0, 0, (size_t)(i1 - i0));
  }
}

void sp_threads_touch(void *p, uint64_t bytes, int nth) {
  threads_fill(p, NULL, bytes, nth);
}

void sp_threads_copy(void *dst, const void *src, uint64_t bytes, int nth) {
  if (src != NULL) threads_fill(dst, src, bytes, nth);
}
