/* The escape model (escape_times(), switching_currents()): its descriptor.
 * Physics: inst/cuda/escape.h; kernel: escape.cu; CPU loop:
 * src/core/sp_escape_lanes.inc; GPU host: src/gpu/sp_gpu_escape.c; R:
 * R/escape.R. */
#include "../core/sp_escape.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_escape.h"

static const sp_field cond_fields[] = {
  SP_FIELD(sp_escape_cond, g0, SP_F_DOUBLE),         SP_FIELD(sp_escape_cond, dg, SP_F_DOUBLE),
  SP_FIELD(sp_escape_cond, V0, SP_F_DOUBLE),         SP_FIELD(sp_escape_cond, beta, SP_F_DOUBLE),
  SP_FIELD(sp_escape_cond, h, SP_F_DOUBLE),          SP_FIELD(sp_escape_cond, sigma, SP_F_DOUBLE),
  SP_FIELD(sp_escape_cond, phi0, SP_F_DOUBLE),       SP_FIELD(sp_escape_cond, th, SP_F_DOUBLE),
  SP_FIELD(sp_escape_cond, vcens, SP_F_DOUBLE),      SP_FIELD(sp_escape_cond, kmax, SP_F_U64),
  SP_FIELD(sp_escape_cond, stream0, SP_F_U64),       SP_FIELD(sp_escape_cond, start_table, SP_F_I64),
  SP_FIELD(sp_escape_cond, start_lo, SP_F_DOUBLE),   SP_FIELD(sp_escape_cond, start_step, SP_F_DOUBLE),
  SP_FIELD(sp_escape_cond, start_vsd, SP_F_DOUBLE)};

static const sp_field fields[] = {
  SP_FIELD_ROWS(sp_escape_job, conds, ncond, SP_F_INT, sp_escape_cond, cond_fields),
  SP_FIELD_VEC(sp_escape_job, tables, SP_F_REALS, ntables, SP_F_SIZE),
  SP_FIELD(sp_escape_job, n, SP_F_COUNT),
  SP_FIELD(sp_escape_job, replica0, SP_F_U64),
  SP_FIELD(sp_escape_job, seed, SP_F_U64),
  SP_FIELD(sp_escape_job, heun, SP_F_INT),
  SP_FIELD(sp_escape_job, single, SP_F_INT)};

static uint64_t paths(const void *job) {
  const sp_escape_job *j = (const sp_escape_job *)job;
  return (uint64_t)j->ncond * j->n;
}

static double work(const void *job) { return (double)paths(job); }

static void out_init(const void *job, void *out) {
  sp_escape_out_init((const sp_escape_job *)job, (sp_escape_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_escape_out, value, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_escape_out, status, SP_OUT_INTS, paths),
  SP_OUT_SCALAR_AS("useful_steps", sp_escape_out, counts.useful, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("issued_steps", sp_escape_out, counts.issued, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("finished", sp_escape_out, counts.finished, SP_OUT_COUNT)};

const sp_model sp_model_escape = {
  "escape", sizeof(sp_escape_job), sizeof(sp_escape_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), NULL, work, "Simulating paths", out_init,
  offsetof(sp_escape_job, single), {sp_escape_cpu_run_d, sp_escape_cpu_run_f}, sp_gpu_escape};
