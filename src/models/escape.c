/* The escape model (escape_times(), switching_currents()): its descriptor.
 * Physics: inst/cuda/escape.h; kernel: escape.cu; CPU loop:
 * src/core/sp_escape_lanes.inc; GPU host: src/gpu/sp_gpu_escape.c; R:
 * R/escape.R. */
#include "../core/sp_error.h"
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

/* the paths continued: one row per path, its state (escape_args.h) */
static const sp_field state_fields[] = {
  SP_FIELD(sp_escape_state, path, SP_F_I64),   SP_FIELD(sp_escape_state, phi, SP_F_DOUBLE),
  SP_FIELD(sp_escape_state, v, SP_F_DOUBLE),   SP_FIELD(sp_escape_state, frac, SP_F_DOUBLE),
  SP_FIELD(sp_escape_state, step, SP_F_I64),   SP_FIELD(sp_escape_state, hit, SP_F_I64)};

static const sp_field fields[] = {
  SP_FIELD_ROWS(sp_escape_job, conds, ncond, SP_F_INT, sp_escape_cond, cond_fields),
  SP_FIELD_VEC(sp_escape_job, tables, SP_F_REALS, ntables, SP_F_SIZE),
  SP_FIELD(sp_escape_job, n, SP_F_COUNT),
  SP_FIELD(sp_escape_job, replica0, SP_F_U64),
  SP_FIELD(sp_escape_job, seed, SP_F_U64),
  SP_FIELD(sp_escape_job, heun, SP_F_INT),
  SP_FIELD(sp_escape_job, single, SP_F_INT),
  SP_FIELD_ROWS(sp_escape_job, resume, nresume, SP_F_COUNT, sp_escape_state, state_fields)};

/* A resume table with no rows is a fresh run; a continued path must be one
 * of the job's, its state a start (-1) or a step, its pending crossing one
 * of the four steps of its last macro-step. */
static int prepare(void *job) {
  sp_escape_job *j = (sp_escape_job *)job;
  uint64_t i, total = (uint64_t)j->ncond * j->n;
  if (j->nresume == 0) {
    j->resume = NULL;
    return SP_OK;
  }
  for (i = 0; i < j->nresume; i++) {
    const sp_escape_state *s = &j->resume[i];
    if (s->path < 0 || (uint64_t)s->path >= total || s->step < -1 || s->hit < 0 ||
        s->hit > 4 || (s->step >= 0 && s->step % 4 != 0) || (s->hit > 0 && s->step < 4))
      return sp_fail(SP_ERR_INVALID, "internal error: the escape job's resume row %llu",
                     (unsigned long long)i + 1);
  }
  sp_escape_resume_starts(j);
  return SP_OK;
}

static uint64_t paths(const void *job) { return sp_escape_items((const sp_escape_job *)job); }

static double work(const void *job) { return (double)paths(job); }

static void out_init(const void *job, void *out) {
  sp_escape_out_init((const sp_escape_job *)job, (sp_escape_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_escape_out, value, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_escape_out, status, SP_OUT_INTS, paths),
  SP_OUT_VEC(sp_escape_out, end_phi, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_escape_out, end_v, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_escape_out, end_frac, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_escape_out, end_step, SP_OUT_REALS, paths),
  SP_OUT_VEC(sp_escape_out, end_hit, SP_OUT_INTS, paths),
  SP_OUT_SCALAR_AS("useful_steps", sp_escape_out, counts.useful, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("issued_steps", sp_escape_out, counts.issued, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("finished", sp_escape_out, counts.finished, SP_OUT_COUNT)};

const sp_model sp_model_escape = {
  "escape", sizeof(sp_escape_job), sizeof(sp_escape_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Simulating paths", out_init,
  offsetof(sp_escape_job, single), {sp_escape_cpu_run_d, sp_escape_cpu_run_f}, sp_gpu_escape};
