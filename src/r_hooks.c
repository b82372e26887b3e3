#include "r_hooks.h"

#include <cli/progress.h>
/* R_interrupts_suspended and R_interrupts_pending, declared for graphics
 * devices (their BEGIN_SUSPEND_INTERRUPTS); R's own suspendInterrupts()
 * sets the same flag. */
#include <R_ext/GraphicsEngine.h>

/* Ctrl-C during a run.  R's SIGINT handler only sets R_interrupts_pending;
 * R acts on it at its next interrupt check, wherever that falls.  When it
 * fell inside the progress bar's R code (cli draws the bar in R), the
 * interrupt jumped out of the bar: the jump was held and continued after the
 * run (the rule for errors), and the result was lost -- or cli's state was
 * left half-updated.  So all R code run for a bar runs with interrupts
 * suspended, and the only place where a Ctrl-C is taken during a run is the
 * check between rounds (r_interrupted), which flags the run.  R code may
 * still raise errors (a time limit of setTimeLimit()): those are held and
 * continued as before.  sim_run() (R/run.R) suspends interrupts from the
 * .Call to the return of the simulator, so a Ctrl-C that comes after the
 * last check cannot lose the result either. */
static Rboolean suspend_interrupts(Rboolean on) {
  Rboolean old = R_interrupts_suspended;
  R_interrupts_suspended = on;
  return old;
}

typedef struct {
  double total;
  SEXP cfg;
} bar_data;

static SEXP make_bar(void *data) {
  bar_data *b = (bar_data *)data;
  return cli_progress_bar(b->total, b->cfg);
}

/* Restores the interrupt state, also when cli's R code raised an error. */
static void restore_interrupts(void *data, Rboolean jump) {
  (void)jump;
  suspend_interrupts(*(Rboolean *)data);
}

SEXP sp_r_progress_bar(int show, double total, const char *name) {
  SEXP cfg, nms, bar, token;
  Rboolean old;
  bar_data b;
  if (!show) return R_NilValue;
  cfg = PROTECT(Rf_allocVector(VECSXP, 1));
  nms = PROTECT(Rf_mkString("name"));
  SET_VECTOR_ELT(cfg, 0, Rf_mkString(name));
  Rf_setAttrib(cfg, R_NamesSymbol, nms);
  token = PROTECT(R_MakeUnwindCont());
  b.total = total;
  b.cfg = cfg;
  old = suspend_interrupts(TRUE);
  bar = R_UnwindProtect(make_bar, &b, restore_interrupts, &old, token);
  UNPROTECT(3);
  return bar;
}

/* A jump out of the guarded R code lands here, in the guard's frame. */
static void guard_cleanup(void *data, Rboolean jump) {
  if (jump) longjmp(((sp_r_hooks_ctx *)data)->jmp, 1);
}

/* Run fn(data) in R; a jump out of it is held (ctx->jumped) instead of
 * crossing the engine's frames.  Returns 1 when a jump is held. */
static int guarded(sp_r_hooks_ctx *volatile ctx, SEXP (*fn)(void *), void *data) {
  if (ctx->jumped) return 1;
  if (setjmp(ctx->jmp)) {
    ctx->jumped = 1;
    return 1;
  }
  R_UnwindProtect(fn, data, guard_cleanup, ctx, ctx->token);
  return 0;
}

/* guarded() with interrupts suspended: R code that must not be cut short by
 * a Ctrl-C (the bar's); a pending interrupt waits for r_interrupted(). */
static int guarded_uninterrupted(sp_r_hooks_ctx *ctx, SEXP (*fn)(void *), void *data) {
  Rboolean old = suspend_interrupts(TRUE);
  int held = guarded(ctx, fn, data);
  suspend_interrupts(old);
  return held;
}

static SEXP check_interrupt(void *data) {
  (void)data;
  R_CheckUserInterrupt();
  return R_NilValue;
}

static SEXP caught_interrupt(SEXP cond, void *data) {
  (void)cond;
  ((sp_r_hooks_ctx *)data)->interrupted = 1;
  return R_NilValue;
}

/* R_CheckUserInterrupt() inside tryCatch(interrupt = ): a Ctrl-C flags the
 * run; other conditions (a time limit's error) jump on. */
static SEXP check_interrupt_caught(void *data) {
  SEXP classes = PROTECT(Rf_mkString("interrupt"));
  R_tryCatch(check_interrupt, NULL, classes, caught_interrupt, data, NULL, NULL);
  UNPROTECT(1);
  return R_NilValue;
}

/* The one place a Ctrl-C is taken during a run: interrupts are allowed for
 * the check only, whatever the caller suspended. */
static int r_interrupted(void *ctx) {
  sp_r_hooks_ctx *c = (sp_r_hooks_ctx *)ctx;
  if (!c->interrupted && !c->jumped) {
    Rboolean old = suspend_interrupts(FALSE);
    guarded(c, check_interrupt_caught, c);
    suspend_interrupts(old);
  }
  return c->interrupted || c->jumped;
}

typedef struct {
  SEXP bar;
  double done;
} progress_data;

static SEXP set_progress(void *data) {
  progress_data *p = (progress_data *)data;
  cli_progress_set(p->bar, p->done);
  return R_NilValue;
}

static void r_progress(void *ctx, double done, double total) {
  sp_r_hooks_ctx *c = (sp_r_hooks_ctx *)ctx;
  progress_data p;
  (void)total;
  if (c->bar == R_NilValue || !CLI_SHOULD_TICK) return;
  p.bar = c->bar;
  p.done = done;
  guarded_uninterrupted(c, set_progress, &p);
}

void sp_r_hooks_init(sp_r_hooks_ctx *ctx, sp_hooks *hooks, SEXP bar, SEXP token) {
  ctx->bar = bar;
  ctx->token = token;
  ctx->interrupted = 0;
  ctx->jumped = 0;
  hooks->ctx = ctx;
  hooks->interrupted = r_interrupted;
  hooks->progress = r_progress;
}

static SEXP finish_bar(void *data) {
  cli_progress_done((SEXP)data);
  return R_NilValue;
}

void sp_r_hooks_end(sp_r_hooks_ctx *ctx) {
  if (ctx->bar != R_NilValue) {
    guarded_uninterrupted(ctx, finish_bar, ctx->bar);
    ctx->bar = R_NilValue;
  }
  if (ctx->jumped) R_ContinueUnwind(ctx->token);
}

/* .Call: suspend R's interrupts (on = TRUE) or set them back; returns the
 * state before, for sp_r_interrupts_release(). */
SEXP sp_r_interrupts_hold(SEXP on) {
  return Rf_ScalarLogical(suspend_interrupts(Rf_asLogical(on) == TRUE));
}

/* .Call: set the interrupt state back to `old` (from sp_r_interrupts_hold)
 * and return TRUE when a Ctrl-C came in the meantime and was not taken by a
 * run's check; it is then cleared (the caller says so with a warning).
 * Nested holds (old = TRUE) leave a pending interrupt to the outermost. */
SEXP sp_r_interrupts_release(SEXP old) {
  int was = Rf_asLogical(old) == TRUE, pending = 0;
  if (!was && R_interrupts_pending) {
    R_interrupts_pending = 0;
    pending = 1;
  }
  suspend_interrupts(was ? TRUE : FALSE);
  return Rf_ScalarLogical(pending);
}
