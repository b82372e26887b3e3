/* The helium DMC model (he4_dmc()): its descriptor.  Physics:
 * inst/cuda/he4_dmc.h (on he4_vmc.h, he4.h); kernel: he4_dmc.cu; CPU
 * engine: src/core/sp_dmc.c; GPU host: src/gpu/sp_gpu_dmc.c; R:
 * R/he4-dmc.R. */
#include "../core/sp_dmc.h"
#include "../core/sp_error.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_dmc.h"

#include "he4_dmc_args.h"

#define F(member, kind) SP_FIELD(sp_dmc_job, member, kind)
static const sp_field fields[] = {
  SP_FIELD_AS("b", sp_dmc_job, pair.b, SP_F_DOUBLE),
  SP_FIELD_AS("L", sp_dmc_job, pair.L, SP_F_DOUBLE),
  SP_FIELD_AS("form", sp_dmc_job, pair.form, SP_F_INT),
  F(n, SP_F_INT),
  F(npop, SP_F_INT),
  F(cap, SP_F_INT),
  F(pop0, SP_F_U64),
  F(seed, SP_F_U64),
  F(dt, SP_F_DOUBLE),
  F(target, SP_F_DOUBLE),
  F(feedback, SP_F_DOUBLE),
  F(equilibration, SP_F_COUNT),
  F(blocks, SP_F_COUNT),
  F(block_steps, SP_F_COUNT),
  F(branching, SP_F_INT),
  F(accept, SP_F_INT),
  F(energy_cut, SP_F_DOUBLE),
  F(drift_limit, SP_F_DOUBLE),
  F(effective_step, SP_F_INT),
  SP_INPUT("coords0"),
  SP_INPUT("weight0"),
  SP_INPUT("pop_state0")};
#undef F

static int prepare(void *job) {
  sp_dmc_job *j = (sp_dmc_job *)job;
  if (j->n < 2 || j->npop < 1 || j->cap < 1 || !(j->dt > 0) || !(j->target > 0) ||
      !(j->feedback >= 0) || !(j->energy_cut >= 0) || !(j->drift_limit >= 0) ||
      j->block_steps < 1 ||
      (double)j->npop * (double)j->cap > 2147483647.0)
    return sp_fail(SP_ERR_INVALID, "internal error: the DMC job's sizes");
  j->pair.rc = 0.5 * j->pair.L;
  return SP_OK;
}

static uint64_t slots(const void *job) {
  const sp_dmc_job *j = (const sp_dmc_job *)job;
  return (uint64_t)j->npop * (uint64_t)j->cap;
}

static uint64_t coords(const void *job) {
  return slots(job) * 3 * (uint64_t)((const sp_dmc_job *)job)->n;
}

static void coords_dims(const void *job, double *dims) {
  dims[0] = 3;
  dims[1] = ((const sp_dmc_job *)job)->n;
  dims[2] = (double)slots(job);
}

static uint64_t pops(const void *job) { return (uint64_t)((const sp_dmc_job *)job)->npop; }

static uint64_t popvars(const void *job) { return pops(job) * SP_DMC_POPVARS; }

static uint64_t blocks(const void *job) {
  const sp_dmc_job *j = (const sp_dmc_job *)job;
  return pops(job) * j->blocks * SP_DMC_NOBS;
}

static double work(const void *job) {
  const sp_dmc_job *j = (const sp_dmc_job *)job;
  return (double)j->npop * (double)(j->equilibration + j->blocks * j->block_steps);
}

static void out_init(const void *job, void *out) {
  sp_dmc_out_init((const sp_dmc_job *)job, (sp_dmc_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_dmc_out, block, SP_OUT_REALS, blocks),
  SP_OUT_VEC(sp_dmc_out, done, SP_OUT_INTS, pops),
  /* the state after the last finished block, updated in place */
  {"coords", SP_OUT_REALS, offsetof(sp_dmc_out, coords), coords, 0, 3, coords_dims, "coords0"},
  {"weight", SP_OUT_REALS, offsetof(sp_dmc_out, weight), slots, 0, 0, NULL, "weight0"},
  {"pop", SP_OUT_REALS, offsetof(sp_dmc_out, pop), popvars, 0, 0, NULL, "pop_state0"}};

const sp_model sp_model_dmc = {
  "dmc", sizeof(sp_dmc_job), sizeof(sp_dmc_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Generations", out_init,
  SP_NO_LEN, {sp_dmc_cpu_run, NULL}, sp_gpu_dmc};
