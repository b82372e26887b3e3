/* The long-range MD model (lrmd()): its descriptor.  Physics:
 * inst/cuda/lrmd.h, lrmd_start.h; kernels: lrmd.cu; CPU loop:
 * src/core/sp_lrmd_engine.inc; GPU host: src/gpu/sp_gpu_lrmd.c; R:
 * R/lrmd.R (the lazy starts' ALTREP columns: src/r_lrmd.c). */
#include <math.h>

#include "../core/sp_error.h"
#include "../core/sp_lrmd.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_lrmd.h"

#define F(member, kind) SP_FIELD(sp_lrmd_job, member, kind)
#define S(name, member, kind) SP_FIELD_AS(name, sp_lrmd_job, start_def.member, kind)
#define IN(name, j) \
  {name, SP_F_REALS, offsetof(sp_lrmd_job, in[j]), offsetof(sp_lrmd_job, nin[j]), SP_F_COUNT, \
   NULL, 0, 0}
/* A row of the starts of systems side by side (sp_lrmd_start_row). */
#define R(member, kind) SP_FIELD(sp_lrmd_start_row, member, kind)
static const sp_field start_rows[] = {
  R(kind, SP_F_INT), R(seed_lo, SP_F_U64), R(seed_hi, SP_F_U64), R(n, SP_F_COUNT),
  R(replica, SP_F_COUNT), R(a, SP_F_DOUBLE), R(b, SP_F_DOUBLE), R(U, SP_F_DOUBLE),
  R(M0, SP_F_DOUBLE)};
#undef R

static const sp_field fields[] = {
  F(model, SP_F_INT), F(n, SP_F_COUNT), F(dt, SP_F_DOUBLE), F(eps, SP_F_DOUBLE),
  F(steps, SP_F_COUNT), F(record_every, SP_F_COUNT), F(single, SP_F_INT), F(fused, SP_F_INT),
  F(blocks_per_sm, SP_F_INT),
  SP_FIELD_VEC(sp_lrmd_job, snap_steps, SP_F_REALS, nsnap, SP_F_INT),
  /* the start: columns (empty when drawn), or the recipe of a draw (kind -1: none) */
  IN("q0", 0), IN("q1", 1), IN("p0", 2), IN("p1", 3),
  S("start_kind", kind, SP_F_INT), S("start_n", n, SP_F_COUNT), S("start_seed", seed, SP_F_U64),
  S("start_replica", replica, SP_F_COUNT), S("start_a", a, SP_F_DOUBLE),
  S("start_b", b, SP_F_DOUBLE), S("start_U", U, SP_F_DOUBLE), S("start_M0", M0, SP_F_DOUBLE),
  /* systems side by side (GPU): their count and each one's start; for
   * ring and gravity2d the key of the module of one system */
  SP_FIELD_AS("systems", sp_lrmd_job, nsys, SP_F_COUNT),
  SP_FIELD_ROWS(sp_lrmd_job, starts, nstarts, SP_F_COUNT, sp_lrmd_start_row, start_rows),
  SP_FIELD_VEC(sp_lrmd_job, keys, SP_F_STRINGS, nkeys, SP_F_SIZE)};
#undef F
#undef S
#undef IN

static int two_d(const sp_lrmd_job *j) { return j->model == SP_LRMD_GRAVITY2D; }

/* A start of kind `kind` (SP_LRMD_START_*) fits the model: HMF's the
 * waterbag and the equilibrium, ring's the uniform ring, gravity2d's the
 * shell. */
static int start_fits(const sp_lrmd_job *j, int kind) {
  switch (j->model) {
  case SP_LRMD_HMF: return kind == SP_LRMD_START_WATERBAG || kind == SP_LRMD_START_EQUILIBRIUM;
  case SP_LRMD_RING: return kind == SP_LRMD_START_RING;
  default: return kind == SP_LRMD_START_SHELL;
  }
}

/* Systems side by side: each row a start of the model and n (or given),
 * the columns there when a start is given. */
static int prepare_systems(const sp_lrmd_job *j) {
  uint64_t s;
  int given = 0;
  if (j->nstarts != j->nsys || j->nsys > UINT64_MAX / j->n)
    return sp_fail(SP_ERR_INVALID, "internal error: systems side by side need one start each");
  for (s = 0; s < j->nsys; s++) {
    const sp_lrmd_start_row *r = &j->starts[s];
    if (r->kind < 0) {
      given = 1;
    } else if (!start_fits(j, r->kind) || r->n != j->n || r->seed_lo > 0xffffffffu ||
               r->seed_hi > 0xffffffffu) {
      return sp_fail(SP_ERR_INVALID,
                     "internal error: the start of system %.0f does not match the model or n",
                     (double)(s + 1));
    }
  }
  if (given && (j->in[0] == NULL || j->in[2] == NULL || (two_d(j) && (!j->in[1] || !j->in[3]))))
    return sp_fail(SP_ERR_INVALID, "internal error: the lrmd starts have no columns");
  return SP_OK;
}

static int prepare(void *job) {
  sp_lrmd_job *j = (sp_lrmd_job *)job;
  int c, k;
  if (j->n < 2) return sp_fail(SP_ERR_INVALID, "lrmd needs at least 2 particles");
  if (j->record_every == 0) return sp_fail(SP_ERR_INVALID, "internal error: record_every is 0");
  if (j->nsys < 1) return sp_fail(SP_ERR_INVALID, "internal error: no lrmd system");
  for (c = 0; c < 4; c++)
    if (j->nin[c] != 0 && j->nin[c] != j->n * j->nsys)
      return sp_fail(SP_ERR_INVALID, "internal error: a column of the lrmd start is not %.0f "
                                     "doubles", (double)(j->n * j->nsys));
  if (j->nsys > 1) {
    if ((k = prepare_systems(j))) return k;
  } else if (j->start_def.kind >= 0) {
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
  const sp_lrmd_job *j = (const sp_lrmd_job *)job;
  return SP_LRMD_NREC * sp_lrmd_nrec(j) * j->nsys;
}

/* The particles of every system (a column of the state or a snapshot). */
static uint64_t particles(const void *job) {
  const sp_lrmd_job *j = (const sp_lrmd_job *)job;
  return j->n * j->nsys;
}

static uint64_t systems(const void *job) { return ((const sp_lrmd_job *)job)->nsys; }

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

/* Records and snapshots NaN (sp_lrmd_out_init), every system's. */
static void out_init(const void *job, void *out) {
  const sp_lrmd_job *j = (const sp_lrmd_job *)job;
  sp_lrmd_out *o = (sp_lrmd_out *)out;
  uint64_t i, k;
  sp_lrmd_out_init(j, o); /* the first system's */
  for (i = records(j) / j->nsys; i < records(j); i++) o->rec[i] = NAN;
  for (k = 0; k < 4 * (uint64_t)j->nsnap; k++)
    if (o->snap[k] != NULL)
      for (i = j->n; i < particles(j); i++) o->snap[k][i] = NAN;
  for (i = 0; i < j->nsys; i++) o->pmax[i] = 0;
}

/* The CPU engine runs one system; several (lrmd()'s systems side by side,
 * a path for tests on the CPU) one after another. */
static int cpu_d(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info) {
  const sp_lrmd_job *j = (const sp_lrmd_job *)job;
  return j->nsys > 1 ? sp_lrmd_cpu_systems(j, (sp_lrmd_out *)out, nth, hooks, info)
                     : sp_lrmd_cpu_run_d(job, out, nth, hooks, info);
}

static int cpu_f(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info) {
  const sp_lrmd_job *j = (const sp_lrmd_job *)job;
  return j->nsys > 1 ? sp_lrmd_cpu_systems(j, (sp_lrmd_out *)out, nth, hooks, info)
                     : sp_lrmd_cpu_run_f(job, out, nth, hooks, info);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_lrmd_out, rec, SP_OUT_REALS, records),
  {"state", SP_OUT_COLUMNS, offsetof(sp_lrmd_out, q0), particles, 0, 0, NULL, NULL, columns,
   NULL},
  {"snap", SP_OUT_COLUMN_SETS, offsetof(sp_lrmd_out, snap), particles, 0, 0, NULL, NULL,
   columns, snapshots},
  SP_OUT_SCALAR(sp_lrmd_out, steps_done, SP_OUT_COUNT),
  SP_OUT_SCALAR(sp_lrmd_out, start_pmax, SP_OUT_REAL),
  SP_OUT_VEC(sp_lrmd_out, pmax, SP_OUT_REALS, systems)};

const sp_model sp_model_lrmd = {
  "lrmd", sizeof(sp_lrmd_job), sizeof(sp_lrmd_out), fields, SP_NFIELDS(fields), outputs,
  SP_NFIELDS(outputs), prepare, work, "Steps", out_init, offsetof(sp_lrmd_job, single),
  {cpu_d, cpu_f}, sp_gpu_lrmd};
