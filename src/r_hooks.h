/* r_hooks.h: the R side of sp_hooks (cli progress bar, user interrupts). */
#ifndef SP_R_HOOKS_H
#define SP_R_HOOKS_H

#include "r_util.h"
#include "core/sp_hooks.h"

typedef struct {
  SEXP bar; /* cli progress bar or R_NilValue */
  int interrupted;
} sp_r_hooks_ctx;

/* Start a progress bar named `name` with `total` units when show != 0; the
 * bar is PROTECTed (the caller UNPROTECTs one more object). */
void sp_r_hooks_start(sp_r_hooks_ctx *ctx, sp_hooks *hooks, int show, double total,
                      const char *name);
/* Terminate the bar (call on every path before returning or erroring). */
void sp_r_hooks_done(sp_r_hooks_ctx *ctx);

#endif
