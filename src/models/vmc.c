/* The helium VMC model (he4_vmc()): its descriptor.  Physics:
 * inst/cuda/he4.h, he4_vmc.h; kernel: he4_vmc.cu; CPU loop:
 * src/core/sp_vmc_walkers.inc; GPU host: src/gpu/sp_gpu_vmc.c; R:
 * R/he4-vmc.R. */
#include "../core/sp_error.h"
#include "../core/sp_model.h"
#include "../core/sp_vmc.h"
#include "../gpu/sp_gpu_vmc.h"

/* A condition (he4_vmc()'s grid of density and b): its pair parameters;
 * rc = L/2 follows (prepare). */
static const sp_field cond_fields[] = {SP_FIELD(sp_he4_pair, b, SP_F_DOUBLE),
                                       SP_FIELD(sp_he4_pair, L, SP_F_DOUBLE),
                                       SP_FIELD(sp_he4_pair, form, SP_F_INT)};

#define F(member, kind) SP_FIELD(sp_vmc_job, member, kind)
static const sp_field fields[] = {
  SP_FIELD_ROWS(sp_vmc_job, conds, ncond, SP_F_INT, sp_he4_pair, cond_fields),
  F(n, SP_F_INT),
  F(nwalkers, SP_F_INT),
  F(walker0, SP_F_U64),
  F(seed, SP_F_U64),
  F(equilibration, SP_F_COUNT),
  F(blocks, SP_F_COUNT),
  F(block_sweeps, SP_F_COUNT),
  F(measure_every, SP_F_COUNT),
  F(tune, SP_F_INT),
  F(target, SP_F_DOUBLE),
  F(single, SP_F_INT),
  F(nbins, SP_F_INT),
  F(usum, SP_F_INT),
  SP_INPUT("coords0"),
  SP_INPUT("step0"),
  SP_INPUT("moves0")};
#undef F

static int prepare(void *job) {
  sp_vmc_job *j = (sp_vmc_job *)job;
  int c;
  if (j->n < 2 || j->nwalkers < 0 || j->nbins < 0 || j->ncond < 1 ||
      !(j->target > 0 && j->target < 1) ||
      (double)j->ncond * (double)j->nwalkers > 2147483647.0)
    return sp_fail(SP_ERR_INVALID, "internal error: the VMC job's sizes");
  for (c = 0; c < j->ncond; c++) j->conds[c].rc = 0.5 * j->conds[c].L;
  return SP_OK;
}

static uint64_t walkers(const void *job) {
  return (uint64_t)SP_VMC_WALKERS((const sp_vmc_job *)job);
}

static uint64_t coords(const void *job) {
  const sp_vmc_job *j = (const sp_vmc_job *)job;
  return (uint64_t)j->n * 3 * walkers(job);
}

static void coords_dims(const void *job, double *dims) {
  const sp_vmc_job *j = (const sp_vmc_job *)job;
  dims[0] = 3;
  dims[1] = j->n;
  dims[2] = (double)walkers(job);
}

static uint64_t blocks(const void *job) {
  const sp_vmc_job *j = (const sp_vmc_job *)job;
  return walkers(job) * j->blocks * 5;
}

static uint64_t histogram(const void *job) {
  const sp_vmc_job *j = (const sp_vmc_job *)job;
  return walkers(job) * (uint64_t)j->nbins;
}

static double work(const void *job) {
  const sp_vmc_job *j = (const sp_vmc_job *)job;
  return (double)walkers(job) * (double)(j->equilibration + j->blocks * j->block_sweeps);
}

static void out_init(const void *job, void *out) {
  sp_vmc_out_init((const sp_vmc_job *)job, (sp_vmc_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_vmc_out, block, SP_OUT_REALS, blocks),
  SP_OUT_VEC(sp_vmc_out, done, SP_OUT_INTS, walkers),
  /* the engine's copy of the start, updated in place: the state after the
   * last finished block, as the array 3 x n x walkers */
  {"coords", SP_OUT_REALS, offsetof(sp_vmc_out, coords), coords, 0, 3, coords_dims, "coords0"},
  {"step", SP_OUT_REALS, offsetof(sp_vmc_out, step), walkers, 0, 0, NULL, "step0"},
  {"moves", SP_OUT_REALS, offsetof(sp_vmc_out, moves), walkers, 0, 0, NULL, "moves0"},
  {"hist", SP_OUT_REALS, offsetof(sp_vmc_out, hist), histogram, 1, 0, NULL, NULL}};

const sp_model sp_model_vmc = {
  "vmc", sizeof(sp_vmc_job), sizeof(sp_vmc_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Walker sweeps", out_init,
  offsetof(sp_vmc_job, single), {sp_vmc_cpu_run_d, sp_vmc_cpu_run_f}, sp_gpu_vmc};
