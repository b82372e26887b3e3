/* The long-range MD model (lrmd()): its descriptor.  Physics:
 * inst/cuda/lrmd.h, lrmd_start.h; kernels: lrmd.cu; CPU loop:
 * src/core/sp_lrmd_engine.inc; GPU host: src/gpu/sp_gpu_lrmd.c; R:
 * R/lrmd.R (the lazy starts' ALTREP columns: src/r_lrmd.c). */
#include "../core/sp_error.h"
#include "../core/sp_lrmd.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_lrmd.h"

#define F(member, kind) SP_FIELD(sp_lrmd_job, member, kind)
#define S(name, member, kind) SP_FIELD_AS(name, sp_lrmd_job, start_def.member, kind)
#define IN(name, j) \
  {name, SP_F_REALS, offsetof(sp_lrmd_job, in[j]), offsetof(sp_lrmd_job, nin[j]), SP_F_COUNT, \
   NULL, 0, 0}
static const sp_field fields[] = {
  F(model, SP_F_INT), F(n, SP_F_COUNT), F(dt, SP_F_DOUBLE), F(eps, SP_F_DOUBLE),
  F(steps, SP_F_COUNT), F(record_every, SP_F_COUNT), F(single, SP_F_INT), F(fused, SP_F_INT),
  F(blocks_per_sm, SP_F_INT),
  SP_FIELD_VEC(sp_lrmd_job, snap_steps, SP_F_REALS, nsnap, SP_F_INT),
  /* the start: columns (empty when drawn), or the recipe of a draw (kind -1: none) */
  IN("q0", 0), IN("q1", 1), IN("p0", 2), IN("p1", 3),
  S("start_kind", kind, SP_F_INT), S("start_n", n, SP_F_COUNT), S("start_seed", seed, SP_F_U64),
  S("start_replica", replica, SP_F_COUNT), S("start_a", a, SP_F_DOUBLE),
  S("start_b", b, SP_F_DOUBLE), S("start_U", U, SP_F_DOUBLE), S("start_M0", M0, SP_F_DOUBLE)};
#undef F
#undef S
#undef IN

static int two_d(const sp_lrmd_job *j) { return j->model == SP_LRMD_GRAVITY2D; }

static int prepare(void *job) {
  sp_lrmd_job *j = (sp_lrmd_job *)job;
  int c, k;
  if (j->n < 2) return sp_fail(SP_ERR_INVALID, "lrmd needs at least 2 particles");
  if (j->record_every == 0) return sp_fail(SP_ERR_INVALID, "internal error: record_every is 0");
  for (c = 0; c < 4; c++)
    if (j->nin[c] != 0 && j->nin[c] != j->n)
      return sp_fail(SP_ERR_INVALID, "internal error: a column of the lrmd start is not %.0f "
                                     "doubles", (double)j->n);
  if (j->start_def.kind >= 0) {
    if (j->start_def.kind < SP_LRMD_START_WATERBAG || j->start_def.kind > SP_LRMD_START_SHELL ||
        j->start_def.n != j->n || (j->start_def.kind == SP_LRMD_START_SHELL) != two_d(j))
      return sp_fail(SP_ERR_INVALID,
                     "internal error: the start drawn does not match the model or n");
    j->start = &j->start_def;
  } else if (j->in[0] == NULL || j->in[2] == NULL || (two_d(j) && (!j->in[1] || !j->in[3]))) {
    return sp_fail(SP_ERR_INVALID, "internal error: the lrmd start has no columns");
  }
  for (k = 0; k < j->nsnap; k++)
    if (!(j->snap_steps[k] >= 0 && j->snap_steps[k] <= (double)j->steps) ||
        (k > 0 && !(j->snap_steps[k] > j->snap_steps[k - 1])))
      return sp_fail(SP_ERR_INVALID, "internal error: the snapshot steps");
  return SP_OK;
}

static uint64_t records(const void *job) {
  return SP_LRMD_NREC * sp_lrmd_nrec((const sp_lrmd_job *)job);
}

static uint64_t particles(const void *job) { return ((const sp_lrmd_job *)job)->n; }

/* the state's columns: q0, p0 (HMF, ring) or q0, q1, p0, p1 (gravity2d) */
static int columns(const void *job, int *which) {
  if (two_d((const sp_lrmd_job *)job)) {
    which[0] = 0, which[1] = 1, which[2] = 2, which[3] = 3;
    return 4;
  }
  which[0] = 0, which[1] = 2;
  return 2;
}

static uint64_t snapshots(const void *job) {
  return (uint64_t)((const sp_lrmd_job *)job)->nsnap;
}

static double work(const void *job) { return (double)((const sp_lrmd_job *)job)->steps; }

static void out_init(const void *job, void *out) {
  sp_lrmd_out_init((const sp_lrmd_job *)job, (sp_lrmd_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_lrmd_out, rec, SP_OUT_REALS, records),
  {"state", SP_OUT_COLUMNS, offsetof(sp_lrmd_out, q0), particles, 0, 0, NULL, NULL, columns,
   NULL},
  {"snap", SP_OUT_COLUMN_SETS, offsetof(sp_lrmd_out, snap), particles, 0, 0, NULL, NULL,
   columns, snapshots},
  SP_OUT_SCALAR(sp_lrmd_out, steps_done, SP_OUT_COUNT),
  SP_OUT_SCALAR(sp_lrmd_out, start_pmax, SP_OUT_REAL)};

const sp_model sp_model_lrmd = {
  "lrmd", sizeof(sp_lrmd_job), sizeof(sp_lrmd_out), fields, SP_NFIELDS(fields), outputs,
  SP_NFIELDS(outputs), prepare, work, "Steps", out_init, offsetof(sp_lrmd_job, single),
  {sp_lrmd_cpu_run_d, sp_lrmd_cpu_run_f}, sp_gpu_lrmd};
