/* sp_gpu_mb_recipe.c: the many-body engine's starts drawn from lrmd()'s
 * recipes on the GPU (see sp_gpu_mb_recipe.h): the passes of
 * the deleted built-in engine's draw -- pass 0's raw draws and their tiles' sums,
 * the shifts and the scale between the passes from the host's part of the
 * CPU's draw (sp_lrmd_start_after0/after1: the same constants, the same
 * order of the tiles), the last pass writing the start -- with
 * mb_recipe.cu's kernel, a system at a time. */
#include "sp_gpu_mb_recipe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"

int sp_gpu_mb_recipes(sp_gpu_dev *d, const sp_mb_args *A, uint64_t s0, uint64_t ns,
                      CUdeviceptr x, uint64_t npad, size_t rb, double *pmax) {
  const sp_mb_job *job = &A->job;
  const uint64_t n = job->n, nx = (uint64_t)job->nx, ntile = sp_lrmd_start_tiles(n);
  const uint64_t nsys = SP_MB_SYSTEMS(job);
  const size_t pbytes = (size_t)ntile * SP_LRMD_START_NSUMS * sizeof(double);
  const size_t tbytes = 2 * (SP_LRMD_VM_GRID + 1) * sizeof(double);
  const size_t gbytes = SP_LRMD_VM_GUIDE * sizeof(int32_t);
  CUfunction f;
  CUdeviceptr dpart = 0, dtab = 0;
  double *part = NULL, *tab = NULL, kappa = NAN;
  uint64_t s;
  int st;
  if (A->nstart_key != 1 || A->start_key == NULL)
    return sp_fail(SP_ERR_INVALID, "internal error: no module for the starts' recipes");
  if (ntile > 0x7fffffffu)
    return sp_fail(SP_ERR_INVALID, "too many elements for one launch of the start's draw");
  if ((st = sp_gpu_function(d->id, A->start_key[0], "sp_mb_recipe_kernel", &f)) ||
      (st = sp_gpu_dev_alloc(d, pbytes, "the sums of the starts' draws", &dpart)) ||
      (st = sp_gpu_memset0(d->id, x, (size_t)(ns * nx * npad) * rb)))
    return st;
  part = (double *)malloc(pbytes);
  if (part == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (s = 0; s < ns && st == SP_OK; s++) {
    sp_lrmd_start r;
    sp_lrmd_start_consts k;
    sp_mb_recipe_kargs ka;
    int pass;
    if ((st = sp_mb_recipe(A, s0 + s, &r))) break;
    memset(&ka, 0, sizeof ka);
    memset(&k, 0, sizeof k);
    ka.seed = r.seed;
    ka.n = n;
    ka.replica = r.replica;
    ka.a = r.a;
    ka.b = r.b;
    ka.kind = r.kind;
    ka.single = rb == sizeof(float);
    ka.nx = (int32_t)nx;
    ka.npad = npad;
    ka.x = x + (size_t)(s * nx * npad) * rb;
    ka.partial = dpart;
    if (r.kind == SP_LRMD_START_EQUILIBRIUM && r.b > 0) { /* hmf_equilibrium()'s table */
      if (dtab == 0 && (st = sp_gpu_dev_alloc(d, tbytes + gbytes, "the table of the starts' angles",
                                              &dtab)))
        break;
      if (tab == NULL && (tab = (double *)malloc(tbytes + gbytes)) == NULL) {
        st = sp_fail(SP_ERR_NOMEM, "out of host memory");
        break;
      }
      if (!(kappa == r.b)) { /* the table of this kappa, unless held */
        sp_lrmd_vm_table(r.b, tab, tab + SP_LRMD_VM_GRID + 1,
                         (int32_t *)(tab + 2 * (SP_LRMD_VM_GRID + 1)));
        if ((st = sp_gpu_to_device(d->id, dtab, tab, tbytes + gbytes))) break;
        kappa = r.b;
      }
      ka.cdf = dtab;
      ka.grid = dtab + (SP_LRMD_VM_GRID + 1) * sizeof(double);
      ka.guide = dtab + tbytes;
    }
    for (pass = 0, k.passes = 1; st == SP_OK && pass < k.passes; pass++) {
      ka.pass = pass;
      ka.shift0 = k.shift0;
      ka.shift1 = k.shift1;
      ka.scale = k.scale;
      /* pass 0 writes the raw numbers (the start itself when it is all:
       * the ring at rest), the last pass the start */
      ka.write = pass == 0 || pass == k.passes - 1;
      st = sp_gpu_launch(d->id, f, (unsigned)ntile, SP_LRMD_START_THREADS, 0, d->stream, &ka,
                         "sp_mb_recipe_kernel");
      if (st == SP_OK && (pass == 0 || (pass == 1 && k.passes == 3)) &&
          (st = sp_gpu_stream_sync(d->id, d->stream)) == SP_OK &&
          (st = sp_gpu_to_host(d->id, part, dpart, pbytes)) == SP_OK) {
        if (pass == 0) st = sp_lrmd_start_after0(&r, part, ntile, &k);
        else sp_lrmd_start_after1(&r, part, ntile, &k);
      }
    }
    /* the last pass done before the next system's draw reuses the sums */
    if (st == SP_OK) st = sp_gpu_stream_sync(d->id, d->stream);
    if (st == SP_OK && pmax != NULL) pmax[s0 + s] = k.pmax;
    if (st != SP_OK) st = sp_lrmd_system_fail(nsys, s0 + s, st);
  }
  free(part);
  free(tab);
  return st;
}
