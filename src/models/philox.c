/* The Philox draws (philox_uint32(), philox_uniform(), philox_normal()):
 * their descriptor.  Draws: inst/cuda/philox.h; kernel: rng.cu; CPU fill:
 * src/core/sp_rng.c; GPU fill: src/gpu/sp_gpu_rng.c; R: R/rng.R. */
#include "../core/sp_model.h"
#include "../core/sp_rng.h"
#include "../gpu/sp_gpu_rng.h"

typedef struct {
  double *values;  /* n values; those past `filled` are left to R (NA) */
  uint64_t filled; /* a prefix: n unless interrupted */
} sp_philox_out;

static const sp_field fields[] = {
  SP_FIELD(sp_philox_job, kind, SP_F_INT),    SP_FIELD(sp_philox_job, single, SP_F_INT),
  SP_FIELD(sp_philox_job, n, SP_F_COUNT),     SP_FIELD(sp_philox_job, seed, SP_F_U64),
  SP_FIELD(sp_philox_job, stream, SP_F_U64),  SP_FIELD(sp_philox_job, offset, SP_F_U64)};

static uint64_t count(const void *job) { return ((const sp_philox_job *)job)->n; }

/* progress in blocks of four draws */
static double work(const void *job) { return (double)((count(job) + 3) / 4); }

/* the fills write the values and their prefix into the out struct */
static int cpu(const void *job, void *out, int nth, const sp_hooks *hooks, sp_run_info *info) {
  sp_philox_out *o = (sp_philox_out *)out;
  return sp_philox_fill((const sp_philox_job *)job, o->values, nth, hooks, info, &o->filled);
}

static int gpu(const char *key, const void *job, void *out, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  sp_philox_out *o = (sp_philox_out *)out;
  return sp_gpu_philox_fill(key, (const sp_philox_job *)job, o->values, devices, ndev, hooks,
                            info, &o->filled);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_philox_out, values, SP_OUT_REALS, count),
  SP_OUT_SCALAR(sp_philox_out, filled, SP_OUT_COUNT)};

const sp_model sp_model_philox = {
  "philox", sizeof(sp_philox_job), sizeof(sp_philox_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), NULL, work, "Philox draws", NULL, SP_NO_LEN, {cpu, NULL}, gpu};
