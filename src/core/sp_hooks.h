/* sp_hooks.h: how an engine talks to its host between launches or chunks.
 * The .Call glue supplies these (a cli progress bar, R's interrupt check);
 * the core calls them from the host thread only, never inside an OpenMP
 * team or with device memory in an inconsistent state. */
#ifndef SP_HOOKS_H
#define SP_HOOKS_H

#include <stddef.h>

typedef struct {
  void *ctx;
  /* Returns 1 when the user asked to stop. */
  int (*interrupted)(void *ctx);
  /* Work done so far, out of `total` (units chosen by the engine). */
  void (*progress)(void *ctx, double done, double total);
} sp_hooks;

static inline int sp_hooks_interrupted(const sp_hooks *h) {
  return h != NULL && h->interrupted != NULL && h->interrupted(h->ctx);
}

static inline void sp_hooks_progress(const sp_hooks *h, double done, double total) {
  if (h != NULL && h->progress != NULL) h->progress(h->ctx, done, total);
}

#endif
