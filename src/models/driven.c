/* The driven Brownian model (driven_brownian()): its descriptor.  Physics:
 * inst/cuda/driven.h; kernel: driven.cu; CPU loop:
 * src/core/sp_driven_lanes.inc; GPU host: src/gpu/sp_gpu_driven.c; R:
 * R/driven.R. */
#include "../core/sp_driven.h"
#include "../core/sp_error.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_driven.h"

static const sp_field cond_fields[] = {
  SP_FIELD(sp_driven_cond, a, SP_F_DOUBLE),     SP_FIELD(sp_driven_cond, omega, SP_F_DOUBLE),
  SP_FIELD(sp_driven_cond, f, SP_F_DOUBLE),     SP_FIELD(sp_driven_cond, gamma, SP_F_DOUBLE),
  SP_FIELD(sp_driven_cond, D0, SP_F_DOUBLE),    SP_FIELD(sp_driven_cond, dt, SP_F_DOUBLE),
  SP_FIELD(sp_driven_cond, sigma, SP_F_DOUBLE), SP_FIELD(sp_driven_cond, stream0, SP_F_U64)};

/* the paths' states when continuing (driven_args.h) */
static const sp_field state_fields[] = {
  SP_FIELD(sp_driven_state, m, SP_F_I64),     SP_FIELD(sp_driven_state, y, SP_F_DOUBLE),
  SP_FIELD(sp_driven_state, v, SP_F_DOUBLE),  SP_FIELD(sp_driven_state, s2, SP_F_DOUBLE),
  SP_FIELD(sp_driven_state, acc2, SP_F_DOUBLE), SP_FIELD(sp_driven_state, xtr, SP_F_DOUBLE)};

static const sp_field fields[] = {
  SP_FIELD_ROWS(sp_driven_job, conds, ncond, SP_F_INT, sp_driven_cond, cond_fields),
  SP_FIELD_VEC(sp_driven_job, drive, SP_F_REALS, ndrive, SP_F_COUNT),
  SP_FIELD(sp_driven_job, n, SP_F_COUNT),
  SP_FIELD(sp_driven_job, replica0, SP_F_U64),
  SP_FIELD(sp_driven_job, seed, SP_F_U64),
  SP_FIELD(sp_driven_job, periods, SP_F_COUNT),
  SP_FIELD(sp_driven_job, ktr, SP_F_COUNT),
  SP_FIELD_VEC(sp_driven_job, x0, SP_F_REALS, nx0, SP_F_COUNT),
  SP_FIELD_VEC(sp_driven_job, v0, SP_F_REALS, nv0, SP_F_COUNT),
  SP_FIELD(sp_driven_job, keep_m, SP_F_COUNT),
  SP_FIELD(sp_driven_job, dens_lo, SP_F_I64),
  SP_FIELD(sp_driven_job, dens_bins, SP_F_U32),
  SP_FIELD(sp_driven_job, heun, SP_F_INT),
  SP_FIELD(sp_driven_job, single, SP_F_INT),
  SP_FIELD(sp_driven_job, k0, SP_F_COUNT),
  SP_FIELD_ROWS(sp_driven_job, resume, nresume, SP_F_COUNT, sp_driven_state, state_fields)};

static int prepare(void *job) {
  sp_driven_job *j = (sp_driven_job *)job;
  if (j->ndrive < 2 || (j->nx0 > 1 && j->nx0 != j->n) || (j->nv0 > 1 && j->nv0 != j->n))
    return sp_fail(SP_ERR_INVALID, "internal error: the driven job's drive table or starts");
  j->spp = (uint32_t)(j->ndrive - 1);
  if (j->nresume == 0) j->resume = NULL;
  if ((j->resume != NULL && j->nresume != sp_driven_paths(j)) ||
      (j->resume == NULL && j->k0 != 0) || j->k0 > j->periods * (uint64_t)j->spp)
    return sp_fail(SP_ERR_INVALID, "internal error: the driven job's paths continued");
  return SP_OK;
}

static uint64_t paths(const void *job) { return sp_driven_paths((const sp_driven_job *)job); }

static uint64_t kept(const void *job) {
  const sp_driven_job *j = (const sp_driven_job *)job;
  return (uint64_t)j->ncond * j->keep_m * (j->periods + 1);
}

static uint64_t density(const void *job) {
  const sp_driven_job *j = (const sp_driven_job *)job;
  return j->dens_bins > 0 ? (uint64_t)j->ncond * (j->periods + 1) * ((uint64_t)j->dens_bins + 2)
                          : 0;
}

static double work(const void *job) { return sp_driven_work((const sp_driven_job *)job); }

static void out_init(const void *job, void *out) {
  sp_driven_out_init((const sp_driven_job *)job, (sp_driven_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_driven_out, x, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, v, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, xtr, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, acc2, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, s2, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, m, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, y, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_driven_out, keep_x, SP_OUT_REALS, kept),
  SP_OUT_VEC(sp_driven_out, keep_v, SP_OUT_REALS, kept),
  {"density", SP_OUT_REALS, offsetof(sp_driven_out, dens), density, 1, 0, NULL, NULL},
  SP_OUT_SCALAR(sp_driven_out, steps, SP_OUT_COUNT)};

const sp_model sp_model_driven = {
  "driven", sizeof(sp_driven_job), sizeof(sp_driven_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Integrating paths", out_init,
  offsetof(sp_driven_job, single), {sp_driven_cpu_run_d, sp_driven_cpu_run_f}, sp_gpu_driven};
