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
  SP_FIELD_AS("dt", sp_dmc_job, ctl.dt, SP_F_DOUBLE),
  SP_FIELD_AS("target", sp_dmc_job, ctl.target, SP_F_DOUBLE),
  SP_FIELD_AS("feedback", sp_dmc_job, ctl.feedback, SP_F_DOUBLE),
  SP_FIELD_AS("ref_time", sp_dmc_job, ctl.ref_time, SP_F_DOUBLE),
  SP_FIELD_AS("energy_cut", sp_dmc_job, ctl.energy_cut, SP_F_DOUBLE),
  SP_FIELD_AS("drift_limit", sp_dmc_job, ctl.drift_limit, SP_F_DOUBLE),
  SP_FIELD_AS("effective_step", sp_dmc_job, ctl.effective, SP_F_INT),
  SP_FIELD_AS("reweight", sp_dmc_job, ctl.reweight, SP_F_INT),
  SP_FIELD_AS("guide", sp_dmc_job, guide.on, SP_F_INT),
  SP_FIELD_AS("guide_rj2", sp_dmc_job, guide.rj2, SP_F_DOUBLE),
  SP_FIELD_AS("guide_c0", sp_dmc_job, guide.c0, SP_F_DOUBLE),
  SP_FIELD_AS("guide_c1", sp_dmc_job, guide.c1, SP_F_DOUBLE),
  SP_FIELD_AS("guide_c2", sp_dmc_job, guide.c2, SP_F_DOUBLE),
  SP_FIELD_AS("potential", sp_dmc_job, guide.pot, SP_F_INT),
  SP_FIELD_AS("lj_eps", sp_dmc_job, guide.lj_eps, SP_F_DOUBLE),
  SP_FIELD_AS("lj_sigma", sp_dmc_job, guide.lj_sigma, SP_F_DOUBLE),
  F(equilibration, SP_F_COUNT),
  F(blocks, SP_F_COUNT),
  F(block_steps, SP_F_COUNT),
  F(branching, SP_F_INT),
  F(accept, SP_F_INT),
  SP_INPUT("coords0"),
  SP_INPUT("weight0"),
  SP_INPUT("pop_state0"),
  SP_INPUT("hist0")};
#undef F

static int prepare(void *job) {
  sp_dmc_job *j = (sp_dmc_job *)job;
  if (j->n < 2 || j->npop < 1 || j->cap < 1 || !(j->ctl.dt > 0) || !(j->ctl.target > 0) ||
      !(j->ctl.feedback >= 0) || !(j->ctl.energy_cut >= 0) || !(j->ctl.drift_limit >= 0) ||
      !(j->ctl.ref_time > 0) || j->ctl.reweight < 1 || j->block_steps < 1 ||
      (double)j->npop * (double)j->cap > 2147483647.0)
    return sp_fail(SP_ERR_INVALID, "internal error: the DMC job's sizes");
  if (!(j->guide.pot == SP_DMC_POT_AZIZ ||
        (j->guide.pot == SP_DMC_POT_LJ && j->guide.lj_eps > 0 && j->guide.lj_sigma > 0)))
    return sp_fail(SP_ERR_INVALID, "internal error: the DMC job's potential");
  j->pair.rc = 0.5 * j->pair.L;
  j->ctl.n = j->n;
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

static uint64_t rings(const void *job) {
  return pops(job) * 2 * (uint64_t)((const sp_dmc_job *)job)->ctl.reweight;
}

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
  {"pop", SP_OUT_REALS, offsetof(sp_dmc_out, pop), popvars, 0, 0, NULL, "pop_state0"},
  {"hist", SP_OUT_REALS, offsetof(sp_dmc_out, hist), rings, 0, 0, NULL, "hist0"}};

const sp_model sp_model_dmc = {
  "dmc", sizeof(sp_dmc_job), sizeof(sp_dmc_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Generations", out_init,
  SP_NO_LEN, {sp_dmc_cpu_run, NULL}, sp_gpu_dmc};
