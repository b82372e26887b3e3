#include "r_hooks.h"

#include <cli/progress.h>

SEXP sp_r_progress_bar(int show, double total, const char *name) {
  SEXP cfg, nms, bar;
  if (!show) return R_NilValue;
  cfg = PROTECT(Rf_allocVector(VECSXP, 1));
  nms = PROTECT(Rf_mkString("name"));
  SET_VECTOR_ELT(cfg, 0, Rf_mkString(name));
  Rf_setAttrib(cfg, R_NamesSymbol, nms);
  bar = cli_progress_bar(total, cfg);
  UNPROTECT(2);
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

static int r_interrupted(void *ctx) {
  sp_r_hooks_ctx *c = (sp_r_hooks_ctx *)ctx;
  if (!c->interrupted && !c->jumped) guarded(c, check_interrupt_caught, c);
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
  guarded(c, set_progress, &p);
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
    guarded(ctx, finish_bar, ctx->bar);
    ctx->bar = R_NilValue;
  }
  if (ctx->jumped) R_ContinueUnwind(ctx->token);
}
