#include "r_hooks.h"

#include <cli/progress.h>

static void check_interrupt_fn(void *dummy) {
  (void)dummy;
  R_CheckUserInterrupt();
}

/* R_CheckUserInterrupt() would longjmp over the engine's cleanup; run it
 * inside R_ToplevelExec, which returns FALSE when an interrupt arrived. */
static int r_interrupted(void *ctx) {
  sp_r_hooks_ctx *c = (sp_r_hooks_ctx *)ctx;
  if (c->interrupted) return 1;
  if (!R_ToplevelExec(check_interrupt_fn, NULL)) c->interrupted = 1;
  return c->interrupted;
}

static void r_progress(void *ctx, double done, double total) {
  sp_r_hooks_ctx *c = (sp_r_hooks_ctx *)ctx;
  (void)total;
  if (c->bar != R_NilValue && CLI_SHOULD_TICK) cli_progress_set(c->bar, done);
}

void sp_r_hooks_start(sp_r_hooks_ctx *ctx, sp_hooks *hooks, int show, double total,
                      const char *name) {
  ctx->interrupted = 0;
  ctx->bar = R_NilValue;
  if (show) {
    SEXP cfg = PROTECT(Rf_allocVector(VECSXP, 1));
    SEXP nms = PROTECT(Rf_mkString("name"));
    SET_VECTOR_ELT(cfg, 0, Rf_mkString(name));
    Rf_setAttrib(cfg, R_NamesSymbol, nms);
    ctx->bar = cli_progress_bar(total, cfg);
    UNPROTECT(2);
  }
  PROTECT(ctx->bar);
  hooks->ctx = ctx;
  hooks->interrupted = r_interrupted;
  hooks->progress = r_progress;
}

void sp_r_hooks_done(sp_r_hooks_ctx *ctx) {
  if (ctx->bar != R_NilValue) {
    cli_progress_done(ctx->bar);
    ctx->bar = R_NilValue;
  }
}
