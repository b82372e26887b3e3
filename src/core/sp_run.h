/* sp_run.h: the engine contract -- advance in bounded rounds, then collect.
 *
 * Every engine of the package runs as rounds.  A round advances the work by
 * at most `budget` units (the engine's own unit: macro-steps of a lane,
 * groups of draws, sweeps of a walker) and returns to the host thread, where
 * the driver adapts the budget so that a round takes about SP_ROUND_SECONDS,
 * reports progress and asks whether the user wants to stop.
 *
 * One interrupt rule for every engine: the run stops after the round in
 * flight; what finished is valid, the engine's collect step records what the
 * unfinished work had reached, and the run is flagged interrupted -- an
 * interrupt is never an error.  Errors (allocation, devices) stop the run
 * with their status code and message (sp_error.h), and so does a state that
 * became NaN or infinite (SP_ERR_NOT_FINITE): every engine checks its state
 * where that costs nothing (the end of a round or launch, a lane's end, a
 * record, or a sum it forms anyway), and a round that finds one fails with a
 * message naming the replica, the quantity and the step -- never partial
 * results, never NaN returned as data.  Inside an OpenMP team the first
 * failure wins (the lowest failing index, a shared minimum); the message is
 * written by the host thread after the team (data.table's stopTeam).
 *
 * The CPU driver is here (OpenMP inside the engine's round); the GPU driver
 * (src/gpu/sp_gpu_run.h) has the same shape, with steps per device, a shared
 * chunk counter for the multi-device plan and a release list. */
#ifndef SP_RUN_H
#define SP_RUN_H

#include <stdint.h>

#include "sp_hooks.h"

/* Aim of a round's duration: short enough for a responsive progress bar and
 * Ctrl-C, long enough that the bookkeeping between rounds costs nothing. */
#define SP_ROUND_SECONDS 0.1

/* What a round reports. */
typedef struct {
  double done;  /* progress units finished so far (out of the engine's total) */
  int finished; /* 1 when no work is left */
} sp_round_status;

/* What a run reports besides the engine's own results. */
typedef struct {
  double seconds;  /* the engine's own time: the wall time of its rounds (not
                      set-up, hooks, collect or release) */
  double rounds;   /* rounds driven */
  int interrupted; /* 1 when the user stopped it (partial results) */
  /* the GPU round driver's fixed cost around the rounds (0 elsewhere):
   * set-up (streams, allocations, uploads) and collect with release
   * (downloads, frees), wall seconds (bench/he4-fixed.R reads them) */
  double setup, collect;
} sp_run_info;

/* An engine on the CPU. */
typedef struct {
  double total;        /* progress units of the whole run */
  uint64_t budget0;    /* budget of the first round */
  uint64_t budget_max; /* never more than this */
  /* Advance by at most `budget` on `nth` threads: SP_OK, or the status of a
   * failure (SP_ERR_NOT_FINITE for a non-finite state). */
  int (*round)(void *model, uint64_t budget, int nth, sp_round_status *st);
  /* After the last round of a run that did not fail: interrupted = 1 when
   * it stopped early (record what the unfinished work reached).  May be
   * NULL. */
  void (*collect)(void *model, int interrupted);
} sp_cpu_engine;

int sp_cpu_run(const sp_cpu_engine *e, void *model, int nth, const sp_hooks *hooks,
               sp_run_info *info);

/* The budget of the next round after one of `dt` seconds at `budget`, aiming
 * at `target` seconds (both drivers). */
uint64_t sp_round_budget(uint64_t budget, double dt, double target, uint64_t budget_max);

/* Monotonic clock in seconds. */
double sp_now(void);

#endif
