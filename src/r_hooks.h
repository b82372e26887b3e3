/* r_hooks.h: the R side of sp_hooks -- a cli progress bar and user
 * interrupts -- with R's errors kept out of the engines.
 *
 * An engine calls its hooks between rounds, with buffers and devices in
 * hand.  Any R code run there (the bar's update, the interrupt check) is
 * guarded.  The bar's R code runs with R's interrupts suspended, so a Ctrl-C
 * is taken only by the check between rounds (r_hooks.c says why); there it
 * is caught and only flags the run,
 * which then stops and returns its partial results (the package's interrupt
 * rule); any other jump out of R (an error, a time limit of setTimeLimit())
 * is held, the engine is told to stop, and once it has released everything
 * and returned, the glue continues the jump with sp_r_hooks_end() -- so a
 * time limit raises as an error, and nothing leaks.
 *
 * At the call site (cli's pattern: the bar is PROTECTed by its user):
 *
 *   SEXP token = PROTECT(R_MakeUnwindCont());
 *   SEXP bar = PROTECT(sp_r_progress_bar(show, total, "Simulating paths"));
 *   sp_r_hooks_ctx ctx;
 *   sp_hooks hooks;
 *   sp_r_hooks_init(&ctx, &hooks, bar, token);
 *   st = engine(..., &hooks, ...);
 *   sp_r_hooks_end(&ctx);   (terminates the bar; continues a held jump)
 *   sp_r_check(st);
 */
#ifndef SP_R_HOOKS_H
#define SP_R_HOOKS_H

#include <setjmp.h>

#include "r_util.h"
#include "core/sp_hooks.h"

typedef struct {
  SEXP bar;        /* cli progress bar or R_NilValue */
  SEXP token;      /* R_MakeUnwindCont() of the call site */
  int interrupted; /* the user interrupted */
  int jumped;      /* an R error or other jump is held */
  jmp_buf jmp;
} sp_r_hooks_ctx;

/* A cli progress bar of `total` units named `name` when show != 0, else
 * R_NilValue.  PROTECT the result. */
SEXP sp_r_progress_bar(int show, double total, const char *name);
void sp_r_hooks_init(sp_r_hooks_ctx *ctx, sp_hooks *hooks, SEXP bar, SEXP token);
/* Terminate the bar and continue a held jump (does not return then).  Call
 * once the engine has returned. */
void sp_r_hooks_end(sp_r_hooks_ctx *ctx);

/* .Call entries behind sim_run() (R/run.R): suspend R's interrupts from the
 * engine's .Call to the simulator's return, then set them back and report
 * (and clear) a Ctrl-C that no run check took. */
SEXP sp_r_interrupts_hold(SEXP on);
SEXP sp_r_interrupts_release(SEXP old);

#endif
