/* A many-body user model (sde_model() with mean(), sum(), pairs() or lattice
 * neighbours; sde_run(n = )): its descriptor.  The physics is the model's
 * generated header (sde_code()); the system loop inst/cuda/mb_cpu.h,
 * compiled at run time into the model's CPU object (entries `advance`,
 * `observe`), and the kernels of inst/cuda/mb.cu; CPU engine:
 * src/core/sp_mb.c; GPU host: src/gpu/sp_gpu_mb.c; R: R/sde-mb-run.R. */
#include "../core/sp_mb.h"
#include "../core/sp_mb_recipe.h"
#include "../core/sp_model.h"
#include "../gpu/sp_gpu_mb.h"

#define JOB(member, kind) SP_FIELD_AS(#member, sp_mb_args, job.member, kind)
static const sp_field fields[] = {
  JOB(dt, SP_F_DOUBLE),          JOB(t0, SP_F_DOUBLE),        JOB(k0, SP_F_COUNT),
  JOB(kmax, SP_F_COUNT),         JOB(n, SP_F_COUNT),          JOB(replicas, SP_F_COUNT),
  JOB(replica0, SP_F_COUNT),     JOB(ncond, SP_F_COUNT),      JOB(nx, SP_F_I64),
  JOB(ne, SP_F_I64),             JOB(np, SP_F_I64),           JOB(nw, SP_F_I64),
  JOB(nt, SP_F_I64),             JOB(nd, SP_F_I64),           JOB(nq, SP_F_I64),
  JOB(no, SP_F_I64),             JOB(nb, SP_F_I64),           JOB(nu, SP_F_I64),
  JOB(method, SP_F_I64),         JOB(single, SP_F_I64),
  JOB(output, SP_F_I64),         JOB(record_every, SP_F_COUNT), JOB(nrec, SP_F_COUNT),
  JOB(keep, SP_F_COUNT),         JOB(use_stop, SP_F_I64),     JOB(epar_shared, SP_F_I64),
  JOB(x0_cond, SP_F_I64),       JOB(gpu_plan, SP_F_I64),
  JOB(nqp, SP_F_I64),            JOB(ng, SP_F_I64),           JOB(nqo, SP_F_I64),
  JOB(posd, SP_F_I64),           JOB(box, SP_F_I64),          JOB(rc, SP_F_I64),
  JOB(rco, SP_F_I64),            JOB(cut, SP_F_I64),          JOB(cuto, SP_F_I64),
  JOB(nnz, SP_F_I64),            JOB(graph_unit, SP_F_I64),   JOB(rdf_bins, SP_F_I64),
  JOB(rdf_rmax, SP_F_DOUBLE),     JOB(hist_state, SP_F_I64),   JOB(hist_bins, SP_F_I64),
  SP_FIELD_AS("px0", sp_mb_args, job.px[0], SP_F_I64),
  SP_FIELD_AS("px1", sp_mb_args, job.px[1], SP_F_I64),
  SP_FIELD_AS("px2", sp_mb_args, job.px[2], SP_F_I64),
  SP_FIELD_VEC(sp_mb_args, rowptr, SP_F_INTS, nrowptr, SP_F_SIZE),
  SP_FIELD_VEC(sp_mb_args, col, SP_F_INTS, ncol, SP_F_SIZE),
  SP_FIELD_VEC(sp_mb_args, gw, SP_F_REALS, ngw, SP_F_SIZE),
  SP_FIELD(sp_mb_args, seed, SP_F_U64),
  SP_FIELD_VEC(sp_mb_args, par, SP_F_REALS, npar, SP_F_SIZE),
  SP_FIELD_VEC(sp_mb_args, epar, SP_F_REALS, nepar, SP_F_SIZE),
  SP_FIELD_VEC(sp_mb_args, x0, SP_F_REALS, nx0, SP_F_SIZE),
  SP_FIELD_VEC(sp_mb_args, names, SP_F_STRINGS, nnames, SP_F_SIZE),
  SP_FIELD(sp_mb_args, advance, SP_F_NATIVE),
  SP_FIELD(sp_mb_args, observe, SP_F_NATIVE),
  SP_FIELD(sp_mb_args, slice_halo, SP_F_COUNT),
  SP_FIELD(sp_mb_args, slice_wrap, SP_F_I64),
  SP_FIELD(sp_mb_args, slices, SP_F_COUNT),
  SP_FIELD_VEC(sp_mb_args, start_key, SP_F_STRINGS, nstart_key, SP_F_SIZE)};
#undef JOB

#define J(job) (&((const sp_mb_args *)(job))->job)
static uint64_t systems(const void *job) { return SP_MB_SYSTEMS(J(job)); }
static uint64_t states(const void *job) {
  return systems(job) * (uint64_t)J(job)->nx * J(job)->n;
}
static uint64_t passage(const void *job) {
  return J(job)->output == SP_MB_OUT_PASSAGE ? systems(job) : 0;
}
static uint64_t records(const void *job) {
  return J(job)->output == SP_MB_OUT_PASSAGE ? 0
                                             : systems(job) * J(job)->nrec * (uint64_t)J(job)->no;
}
static uint64_t rdf(const void *job) {
  return J(job)->output == SP_MB_OUT_RDF ? systems(job) * (uint64_t)J(job)->rdf_bins : 0;
}
static uint64_t hist(const void *job) {
  return J(job)->output == SP_MB_OUT_RECORDS || J(job)->output == SP_MB_OUT_TRAJECTORIES
             ? systems(job) * J(job)->nrec * (uint64_t)J(job)->hist_bins
             : 0;
}
static uint64_t kept(const void *job) {
  return J(job)->output == SP_MB_OUT_TRAJECTORIES
             ? J(job)->keep * J(job)->nrec * (uint64_t)J(job)->nx * J(job)->n
             : 0;
}
#undef J

static uint64_t drawn(const void *job) {
  return ((const sp_mb_args *)job)->job.x0_cond == SP_MB_X0_RECIPES ? systems(job) : 0;
}

static double work(const void *job) {
  const sp_mb_job *j = &((const sp_mb_args *)job)->job;
  return j->output == SP_MB_OUT_PASSAGE ? (double)SP_MB_SYSTEMS(j) : (double)j->kmax;
}

#define OUT(member, kind, len) {#member, kind, offsetof(sp_mb_out, member), len, 1, 0, NULL, NULL, NULL, NULL}
static const sp_output outputs[] = {
  OUT(x, SP_OUT_REALS, states),       OUT(rec, SP_OUT_REALS, records),
  OUT(traj, SP_OUT_REALS, kept),      OUT(value, SP_OUT_REALS, passage),
  OUT(status, SP_OUT_INTS, passage),  OUT(steps, SP_OUT_REALS, systems),
  OUT(rdf, SP_OUT_REALS, rdf),        OUT(hist, SP_OUT_REALS, hist),
  OUT(pmax, SP_OUT_REALS, drawn),
  SP_OUT_SCALAR_AS("records", sp_mb_out, rec_done, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("useful_steps", sp_mb_out, useful, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("finished", sp_mb_out, finished, SP_OUT_COUNT)};
#undef OUT

const sp_model sp_model_mb = {
  "mb", sizeof(sp_mb_args), sizeof(sp_mb_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), sp_mb_prepare, work, "Integrating", sp_mb_out_init,
  SP_NO_LEN, {sp_mb_cpu, sp_mb_cpu}, sp_gpu_mb};
