/* sp_mb_recipe.h: starts of a many-body run drawn by the engine from the
 * recipes of lrmd()'s starts (hmf_waterbag(), hmf_equilibrium(),
 * ring_uniform(), gravity2d_shell(): R/lrmd-init.R) -- job x0_cond
 * SP_MB_X0_RECIPES, x0 a recipe a system -- with the draws of
 * inst/cuda/lrmd_start.h: on the CPU sp_lrmd_start_draw() itself (the
 * numbers of a start R draws, bit for bit), on the GPU the same passes
 * (src/gpu/sp_gpu_mb_recipe.c, inst/cuda/mb_recipe.cu).  No R API. */
#ifndef SP_MB_RECIPE_H
#define SP_MB_RECIPE_H

#include "sp_lrmd.h"
#include "sp_mb.h"

/* job.x0_cond of starts drawn from recipes: x0 holds systems x
 * SP_MB_RECIPE_LEN numbers, the recipe of each system, c(kind, n, seed lo,
 * seed hi, a, b, U, M0, replica) (R's class "lrmd_draw"). */
#define SP_MB_X0_RECIPES 4
#define SP_MB_RECIPE_LEN 9

/* The recipe of system s (SP_OK), or SP_ERR_INVALID where it is damaged or
 * does not fit the job (its n, its columns against the states). */
int sp_mb_recipe(const sp_mb_args *a, uint64_t s, sp_lrmd_start *out);

/* Every system's recipe checked (sp_mb_prepare()). */
int sp_mb_recipes_check(const sp_mb_args *a);

/* The CPU engine's starts: system s drawn into its states o->x (columns
 * theta, p or x, y, px, py), its largest |momentum| into o->pmax[s]; a
 * start that cannot be drawn fails naming its system when there are
 * several.  The numbers do not depend on nth. */
int sp_mb_recipes_draw(const sp_mb_args *a, sp_mb_out *o, int nth);

#endif
