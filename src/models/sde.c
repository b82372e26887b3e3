/* A user's SDE model (sde_model(), sde_run()): its descriptor.  The physics
 * is the model's generated header (sde_code()); the per-path loop
 * inst/cuda/sde_engine.h, compiled at run time into the model's CPU object
 * (its entries come as native symbols: `advance`, `observe`) and into its
 * kernel (sde.cu); CPU engine: src/core/sp_sde.c; GPU host:
 * src/gpu/sp_gpu_sde.c; R: R/sde-run.R. */
#include "../core/sp_model.h"
#include "../core/sp_sde.h"
#include "../gpu/sp_gpu_sde.h"

#define JOB(member, kind) SP_FIELD_AS(#member, sp_sde_args, job.member, kind)
static const sp_field fields[] = {
  JOB(dt, SP_F_DOUBLE),         JOB(t_max, SP_F_DOUBLE),     JOB(kmax, SP_F_COUNT),
  JOB(n, SP_F_COUNT),           JOB(replica0, SP_F_COUNT),   JOB(ncond, SP_F_COUNT),
  JOB(cond0, SP_F_COUNT),
  JOB(nx, SP_F_I64),            JOB(np, SP_F_I64),           JOB(nw, SP_F_I64),
  JOB(no, SP_F_I64),            JOB(heun, SP_F_I64),         JOB(single, SP_F_I64),
  JOB(use_stop, SP_F_I64),      JOB(output, SP_F_I64),       JOB(record_every, SP_F_COUNT),
  JOB(nrec, SP_F_COUNT),        JOB(keep, SP_F_COUNT),       JOB(save_state, SP_F_I64),
  JOB(nhist, SP_F_I64),         JOB(nbreaks, SP_F_I64),      JOB(bridge, SP_F_I64),
  JOB(ntraj, SP_F_COUNT),       JOB(nrun, SP_F_COUNT),       JOB(hold, SP_F_I64),
  SP_FIELD(sp_sde_args, seed, SP_F_U64),
  SP_FIELD_VEC(sp_sde_args, par, SP_F_REALS, npar, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, init, SP_F_REALS, ninit, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, init_vec, SP_F_INTS, ninit_vec, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, init_vals, SP_F_REALS, ninit_vals, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, hist_var, SP_F_INTS, nhist_var, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, hist_off, SP_F_REALS, nhist_off, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, breaks, SP_F_REALS, nbreaks_len, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, traj_slot, SP_F_REALS, ntraj_slot, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, run_path, SP_F_REALS, nrun_path, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, run_k, SP_F_REALS, nrun_k, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, run_x, SP_F_REALS, nrun_x, SP_F_SIZE),
  SP_FIELD_VEC(sp_sde_args, names, SP_F_STRINGS, nnames, SP_F_SIZE),
  SP_FIELD(sp_sde_args, advance, SP_F_NATIVE),
  SP_FIELD(sp_sde_args, observe, SP_F_NATIVE),
  SP_FIELD(sp_sde_args, lanes, SP_F_NATIVE)};
#undef JOB

#define J(job) (&((const sp_sde_args *)(job))->job)
static uint64_t paths(const void *job) { return J(job)->ncond * J(job)->n; }
static uint64_t passage(const void *job) {
  return J(job)->output == 0 ? sp_sde_npaths(J(job)) : 0;
}
static uint64_t states(const void *job) {
  return J(job)->output == 0 && J(job)->save_state ? passage(job) * (uint64_t)J(job)->nx : 0;
}
/* the rows of the paths not stopped: room for every path of the call, of
 * which the engine writes the first nheld (the pages of the others are
 * never touched) */
static uint64_t held(const void *job) {
  return J(job)->output == 0 && J(job)->hold ? passage(job) * (uint64_t)SP_SDE_HS(J(job)->nx) : 0;
}
static uint64_t records(const void *job) {
  return J(job)->output == 0 ? 0
                             : J(job)->ncond * J(job)->nrec * (uint64_t)(J(job)->nx + J(job)->no);
}
static uint64_t counts(const void *job) {
  const sp_sde_args *a = (const sp_sde_args *)job;
  return a->job.output == 0 || a->job.nhist == 0
             ? 0
             : a->job.ncond * a->job.nrec * (uint64_t)sp_sde_hist_cells(a, a->job.nhist);
}
static uint64_t kept(const void *job) {
  return J(job)->output == 0
             ? 0
             : J(job)->ncond * J(job)->keep * J(job)->ntraj * (uint64_t)(J(job)->nx + J(job)->no);
}
#undef J

static double work(const void *job) {
  const sp_sde_job *j = &((const sp_sde_args *)job)->job;
  return j->output == 0 ? (double)sp_sde_npaths(j) : (double)j->kmax;
}

#define OUT(member, kind, len) {#member, kind, offsetof(sp_sde_out, member), len, 1, 0, NULL, NULL, NULL, NULL}
static const sp_output outputs[] = {
  OUT(value, SP_OUT_REALS, passage),    OUT(status, SP_OUT_INTS, passage),
  OUT(state, SP_OUT_REALS, states),     OUT(held, SP_OUT_REALS, held),
  OUT(mom_n, SP_OUT_REALS, records),
  OUT(mom_mean, SP_OUT_REALS, records), OUT(mom_m2, SP_OUT_REALS, records),
  OUT(hist, SP_OUT_REALS, counts),      OUT(traj, SP_OUT_REALS, kept),
  SP_OUT_SCALAR_AS("records", sp_sde_out, rec_done, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("useful_steps", sp_sde_out, useful, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("finished", sp_sde_out, finished, SP_OUT_COUNT),
  SP_OUT_SCALAR_AS("held_rows", sp_sde_out, nheld, SP_OUT_COUNT)};
#undef OUT

/* One CPU entry for both precisions: the compiled model's entries are
 * those of the run's precision (R picks them). */
const sp_model sp_model_sde = {
  "sde", sizeof(sp_sde_args), sizeof(sp_sde_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), sp_sde_prepare, work, "Integrating", sp_sde_out_init,
  SP_NO_LEN, {sp_sde_cpu, sp_sde_cpu}, sp_gpu_sde};
