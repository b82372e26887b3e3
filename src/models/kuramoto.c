/* The Kuramoto model (kuramoto()): its descriptor.  Physics:
 * inst/cuda/kuramoto.h; kernel: kuramoto.cu; CPU loop:
 * src/core/sp_kuramoto_systems.inc; GPU host: src/gpu/sp_gpu_kuramoto.c;
 * R: R/kuramoto.R. */
#include "../core/sp_error.h"
#include "../core/sp_kuramoto.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_kuramoto.h"

#include <math.h>

/* A condition's row: R's columns K, beta, theta (kn, ginv, sigma derived in
 * prepare). */
static const sp_field cond_fields[] = {SP_FIELD(sp_kuramoto_cond, K, SP_F_DOUBLE),
                                       SP_FIELD(sp_kuramoto_cond, beta, SP_F_DOUBLE),
                                       SP_FIELD(sp_kuramoto_cond, theta, SP_F_DOUBLE)};

#define F(member, kind) SP_FIELD(sp_kuramoto_job, member, kind)
#define V(member, kind, len) SP_FIELD_VEC(sp_kuramoto_job, member, kind, len, SP_F_COUNT)
static const sp_field fields[] = {
  F(n, SP_F_COUNT),
  SP_FIELD_ROWS(sp_kuramoto_job, conds, ncond, SP_F_INT, sp_kuramoto_cond, cond_fields),
  F(nrep, SP_F_COUNT),
  F(replica0, SP_F_U64),
  F(seed, SP_F_U64),
  F(omega_law, SP_F_INT),
  V(omega, SP_F_REALS, nomega),
  F(omega_centre, SP_F_DOUBLE),
  F(omega_scale, SP_F_DOUBLE),
  V(theta0, SP_F_REALS, ntheta0),
  F(start, SP_F_INT),
  F(dt, SP_F_DOUBLE),
  F(step0, SP_F_COUNT),
  F(steps, SP_F_COUNT),
  F(record_every, SP_F_COUNT),
  F(coupling, SP_F_INT),
  F(method, SP_F_INT),
  V(A, SP_F_REALS, nA),
  V(rowptr, SP_F_INTS, nrowptr),
  SP_FIELD_PTR(sp_kuramoto_job, col, SP_F_INTS),
  SP_FIELD_PTR(sp_kuramoto_job, val, SP_F_REALS),
  F(single, SP_F_INT),
  F(bins, SP_F_INT)};
#undef F
#undef V

static uint64_t systems(const sp_kuramoto_job *j) { return (uint64_t)j->ncond * j->nrep; }

static int prepare(void *job) {
  sp_kuramoto_job *j = (sp_kuramoto_job *)job;
  const uint64_t starts = j->start == SP_KUR_START_ONE       ? 1
                          : j->start == SP_KUR_START_REPLICA ? j->nrep
                                                             : systems(j);
  int c;
  if ((j->omega_law == SP_KUR_OMEGA_VECTOR && j->nomega != j->n) ||
      (j->start != SP_KUR_START_DRAWN && (j->theta0 == NULL || j->ntheta0 != j->n * starts)) ||
      j->start < SP_KUR_START_DRAWN || j->start > SP_KUR_START_SYSTEM ||
      (j->coupling == SP_KUR_DENSE && j->nA != j->n * j->n) ||
      (j->coupling == SP_KUR_SPARSE && j->nrowptr != j->n + 1) || j->record_every == 0)
    return sp_fail(SP_ERR_INVALID, "internal error: the Kuramoto arrays do not match n");
  if (j->start == SP_KUR_START_DRAWN) j->theta0 = NULL;
  /* what both engines derive from a condition, once (the expressions the
   * engines used before sweeps: the same numbers) */
  for (c = 0; c < j->ncond; c++) {
    sp_kuramoto_cond *d = &j->conds[c];
    d->kn = d->K / (double)j->n;
    d->ginv = 1.0 / d->beta;
    d->sigma = sqrt(2.0 * d->theta * j->dt / d->beta);
  }
  sp_kuramoto_records(j);
  return SP_OK;
}

static uint64_t records(const void *job) {
  const sp_kuramoto_job *j = (const sp_kuramoto_job *)job;
  return 2 * systems(j) * j->nrec;
}

static uint64_t phases(const void *job) {
  const sp_kuramoto_job *j = (const sp_kuramoto_job *)job;
  return j->n * systems(j);
}

static void phases_dims(const void *job, double *dims) {
  const sp_kuramoto_job *j = (const sp_kuramoto_job *)job;
  dims[0] = (double)j->n;
  dims[1] = (double)systems(j);
}

static uint64_t histogram(const void *job) {
  const sp_kuramoto_job *j = (const sp_kuramoto_job *)job;
  return systems(j) * j->nrec * (uint64_t)j->bins;
}

static double work(const void *job) {
  const sp_kuramoto_job *j = (const sp_kuramoto_job *)job;
  return systems(j) > 0 ? (double)j->steps : 0;
}

static void out_init(const void *job, void *out) {
  sp_kuramoto_out_init((const sp_kuramoto_job *)job, (sp_kuramoto_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_kuramoto_out, rec, SP_OUT_REALS, records),
  {"theta", SP_OUT_REALS, offsetof(sp_kuramoto_out, theta), phases, 0, 2, phases_dims, NULL},
  {"hist", SP_OUT_REALS, offsetof(sp_kuramoto_out, hist), histogram, 1, 0, NULL, NULL},
  SP_OUT_SCALAR(sp_kuramoto_out, steps_done, SP_OUT_COUNT)};

const sp_model sp_model_kuramoto = {
  "kuramoto", sizeof(sp_kuramoto_job), sizeof(sp_kuramoto_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Steps", out_init,
  offsetof(sp_kuramoto_job, single), {sp_kuramoto_cpu_run_d, sp_kuramoto_cpu_run_f},
  sp_gpu_kuramoto};
