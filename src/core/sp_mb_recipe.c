/* sp_mb_recipe.c: the many-body engine's starts drawn from lrmd()'s
 * recipes, on the CPU (see sp_mb_recipe.h; the GPU's draw is
 * src/gpu/sp_gpu_mb_recipe.c). */
#include "sp_optimize.h" /* before any other code: keeps the loops optimised */
#include "sp_mb_recipe.h"

#include <math.h>

#include "sp_error.h"

int sp_mb_recipe(const sp_mb_args *a, uint64_t s, sp_lrmd_start *out) {
  const double *x = a->x0 + s * SP_MB_RECIPE_LEN;
  const int kind = x[0] >= SP_LRMD_START_WATERBAG && x[0] <= SP_LRMD_START_SHELL ? (int)x[0] : 0;
  if (kind == 0 || (double)kind != x[0] || x[1] != (double)a->job.n || !(x[2] >= 0) ||
      !(x[2] < 0x1p32) || x[2] != floor(x[2]) || !(x[3] >= 0) || !(x[3] < 0x1p32) ||
      x[3] != floor(x[3]) || !(x[8] >= 0) || !(x[8] < 0x1p40) || x[8] != floor(x[8]) ||
      a->job.nx != (kind == SP_LRMD_START_SHELL ? 4 : 2))
    return sp_fail(SP_ERR_INVALID, "internal error: the recipe of the start of system %llu",
                   (unsigned long long)(s + 1));
  out->kind = kind;
  out->n = a->job.n;
  out->seed = (uint64_t)x[2] | ((uint64_t)x[3] << 32);
  out->a = x[4];
  out->b = x[5];
  out->U = x[6];
  out->M0 = x[7];
  out->replica = (uint64_t)x[8];
  return SP_OK;
}

int sp_mb_recipes_check(const sp_mb_args *a) {
  const uint64_t sys = SP_MB_SYSTEMS(&a->job);
  uint64_t s;
  sp_lrmd_start r;
  int st = SP_OK;
  /* (the engine draws them when it runs: some steps, or a passage) */
  if (a->job.kmax == 0 && a->job.output != SP_MB_OUT_PASSAGE)
    return sp_fail(SP_ERR_INVALID, "internal error: a start drawn by the engine in a run of no step");
  for (s = 0; s < sys && st == SP_OK; s++) st = sp_mb_recipe(a, s, &r);
  return st;
}

int sp_mb_recipes_draw(const sp_mb_args *a, sp_mb_out *o, int nth) {
  const sp_mb_job *j = &a->job;
  const uint64_t sys = SP_MB_SYSTEMS(j), n = j->n, per = (uint64_t)j->nx * n;
  uint64_t s;
  for (s = 0; s < sys; s++) {
    double *x = o->x + s * per, pm = 0;
    sp_lrmd_start r;
    int st = sp_mb_recipe(a, s, &r);
    if (st == SP_OK)
      st = j->nx == 4 ? sp_lrmd_start_draw(&r, x, x + n, x + 2 * n, x + 3 * n, nth, &pm)
                      : sp_lrmd_start_draw(&r, x, NULL, x + n, NULL, nth, &pm);
    if (st != SP_OK) return sp_lrmd_system_fail(sys, s, st);
    if (o->pmax != NULL) o->pmax[s] = pm;
  }
  return SP_OK;
}
