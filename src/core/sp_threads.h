/* sp_threads.h: the package's CPU thread count, in the manner of data.table's
 * openmp-utils.c.  A package-level count is initialised at load from the
 * cores and the environment (OMP_THREAD_LIMIT, OMP_NUM_THREADS,
 * STATPHYSGPU_NUM_THREADS); engines read it through sp_threads_get() and pass
 * it to a num_threads() clause.  omp_set_num_threads() is never called, so
 * other packages' OpenMP settings are untouched.  A forked child (parallel::
 * mclapply, future's multicore) runs on one thread. */
#ifndef SP_THREADS_H
#define SP_THREADS_H

#include <stdint.h>

void sp_threads_init(void);
int sp_threads_get(void);
/* Set the count (n >= 1); returns the previous value. */
int sp_threads_set(int n);
/* 1 when compiled with OpenMP. */
int sp_threads_openmp(void);
/* Logical processors seen by OpenMP (1 without it). */
int sp_threads_procs(void);
/* Upper bound accepted by sp_threads_set(). */
int sp_threads_limit(void);

/* Write zeros over `bytes` bytes at p on nth threads, 1 MiB a piece: the
 * first write of fresh pages (their faults spread over the threads), done
 * while a device works so that a later copy into them finds them mapped. */
void sp_threads_touch(void *p, uint64_t bytes, int nth);

/* memcpy(dst, src, bytes) on nth threads, 1 MiB a piece: a large copy into
 * fresh pages (an engine's output that starts as its input), whose page
 * faults and bandwidth one thread would take alone (a he4_vmc() state of
 * 26 MB: bench/he4-fixed.R). */
void sp_threads_copy(void *dst, const void *src, uint64_t bytes, int nth);

/* The error channel of a thread team (data.table's stopTeam, dust's
 * openmp_errors): a thread whose item (path, system, particle) failed
 * records the item's index in *first, and the lowest index wins, so the
 * failure reported does not depend on the threads; the host thread writes
 * the message after the team (sp_fail is not called inside a team).
 * *first starts at -1 (no failure). */
void sp_team_fail(int64_t *first, int64_t index);

#endif
