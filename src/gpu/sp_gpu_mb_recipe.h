/* sp_gpu_mb_recipe.h: the many-body engine's starts drawn from recipes on
 * the GPU (job x0_cond 4: src/core/sp_mb_recipe.h; inst/cuda/mb_recipe.cu). */
#ifndef SP_GPU_MB_RECIPE_H
#define SP_GPU_MB_RECIPE_H

#include "../core/sp_mb_recipe.h"
#include "sp_gpu_run.h"

/* Systems s0 .. s0 + ns - 1 of the run drawn on device d into x, their
 * states (system s0 + s at x + s nx npad values of rb bytes: rows of npad,
 * the padding zeroed), with the module of the job's start_key; each one's
 * largest |momentum| into pmax[s0 + s] (pmax NULL: not written).  Done
 * when it returns (the buffers it takes are the device's, freed with it). */
int sp_gpu_mb_recipes(sp_gpu_dev *d, const sp_mb_args *a, uint64_t s0, uint64_t ns,
                      CUdeviceptr x, uint64_t npad, size_t rb, double *pmax);

#endif
