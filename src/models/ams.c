/* Adaptive multilevel splitting: the descriptors of escape_rate_ams() (the
 * washboard, "ams") and sde_ams() (a user's SDE model, "sde_ams"), one
 * engine.  Physics: inst/cuda/ams.h (regions, levels, branches) with its
 * model, ams_washboard.h (escape.h's steps) or ams_sde.h (the model's
 * generated header and sde_engine.h's step, compiled at run time: the CPU
 * object's entries come as native symbols); kernels: ams.cu; CPU loop:
 * src/core/sp_ams_engine.inc; GPU host: src/gpu/sp_gpu_ams.c; R: R/ams.R,
 * R/sde-ams.R. */
#include "../core/sp_ams.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_ams.h"

/* a condition: the washboard's (sp_escape_cond, the columns escape_times()
 * sends) and the region A and score */
#define E(member, kind) SP_FIELD_AS(#member, sp_ams_cond, esc.member, kind)
static const sp_field cond_fields[] = {
  E(g0, SP_F_DOUBLE),       E(dg, SP_F_DOUBLE),         E(V0, SP_F_DOUBLE),
  E(beta, SP_F_DOUBLE),     E(h, SP_F_DOUBLE),          E(sigma, SP_F_DOUBLE),
  E(phi0, SP_F_DOUBLE),     E(th, SP_F_DOUBLE),         E(vcens, SP_F_DOUBLE),
  E(kmax, SP_F_U64),        E(stream0, SP_F_U64),       E(start_table, SP_F_I64),
  E(start_lo, SP_F_DOUBLE), E(start_step, SP_F_DOUBLE), E(start_vsd, SP_F_DOUBLE),
  SP_FIELD(sp_ams_cond, phiA, SP_F_DOUBLE), SP_FIELD(sp_ams_cond, score, SP_F_INT)};
#undef E

/* the fields both descriptors read: the tables and the run's scalars */
#define SP_AMS_JOB_FIELDS                                               \
  SP_FIELD_VEC(sp_ams_job, tables, SP_F_REALS, ntables, SP_F_SIZE),     \
  SP_FIELD(sp_ams_job, replicas, SP_F_COUNT),                           \
  SP_FIELD(sp_ams_job, replica0, SP_F_U64),                             \
  SP_FIELD(sp_ams_job, particles, SP_F_COUNT),                          \
  SP_FIELD(sp_ams_job, k, SP_F_COUNT), SP_FIELD(sp_ams_job, seed, SP_F_U64), \
  SP_FIELD(sp_ams_job, heun, SP_F_INT), SP_FIELD(sp_ams_job, single, SP_F_INT), \
  SP_FIELD(sp_ams_job, round_steps, SP_F_SIZE)

static const sp_field fields[] = {
  SP_FIELD_ROWS(sp_ams_job, conds, ncond, SP_F_INT, sp_ams_cond, cond_fields),
  SP_AMS_JOB_FIELDS};

/* the per-replica results, by name (the fields of sp_ams_result) */
#define R(member) SP_FIELD(sp_ams_result, member, SP_F_DOUBLE)
static const sp_field result_fields[] = {
  R(p),         R(react),      R(n_B),        R(t_start),  R(n_start),
  R(t_cycle),   R(n_cycle),    R(t_direct),   R(n_direct), R(n_lt_react),
  R(iterations), R(branches),  R(steps),      SP_FIELD(sp_ams_result, status, SP_F_INT)};
#undef R

static uint64_t replicas(const void *job) {
  const sp_ams_job *j = (const sp_ams_job *)job;
  return (uint64_t)j->ncond * j->replicas;
}

static double work(const void *job) { return (double)replicas(job); }

static void out_init(const void *job, void *out) {
  sp_ams_out_init((const sp_ams_job *)job, ((sp_ams_out *)out)->rep);
}

static const sp_output outputs[] = {
  {"replicas", SP_OUT_ROWS, offsetof(sp_ams_out, rep), replicas, 0, 0, NULL, NULL, NULL, NULL,
   result_fields, SP_NFIELDS(result_fields), sizeof(sp_ams_result)}};

const sp_model sp_model_ams = {
  "ams", sizeof(sp_ams_job), sizeof(sp_ams_out), fields, SP_NFIELDS(fields), outputs,
  SP_NFIELDS(outputs), sp_ams_prepare_washboard, work, "AMS replicas", out_init,
  offsetof(sp_ams_job, single), {sp_ams_cpu_run_d, sp_ams_cpu_run_f}, sp_gpu_ams};

/* sde_ams(): the conditions of a user's model (sp_ams_sde_cond), its
 * parameters and starts in `tables`, the CPU object's entries */
#define S(member, kind) SP_FIELD(sp_ams_sde_cond, member, kind)
static const sp_field sde_cond_fields[] = {
  S(h, SP_F_DOUBLE),   S(zA, SP_F_DOUBLE), S(zB, SP_F_DOUBLE),   S(stream0, SP_F_U64),
  S(par0, SP_F_I64),   S(init0, SP_F_I64), S(use_stop, SP_F_I64),
  S(burn, SP_F_U64)};
#undef S

static const sp_field sde_fields[] = {
  SP_FIELD_ROWS(sp_ams_job, sconds, ncond, SP_F_INT, sp_ams_sde_cond, sde_cond_fields),
  SP_AMS_JOB_FIELDS,
  SP_FIELD(sp_ams_job, nx, SP_F_I64),
  SP_FIELD(sp_ams_job, entry_long, SP_F_NATIVE),
  SP_FIELD(sp_ams_job, entry_branch, SP_F_NATIVE)};

const sp_model sp_model_sde_ams = {
  "sde_ams", sizeof(sp_ams_job), sizeof(sp_ams_out), sde_fields, SP_NFIELDS(sde_fields),
  outputs, SP_NFIELDS(outputs), sp_ams_prepare_sde, work, "AMS replicas", out_init,
  offsetof(sp_ams_job, single), {sp_ams_cpu_run_d, sp_ams_cpu_run_f}, sp_gpu_ams};
