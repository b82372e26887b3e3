/* ams_cpu.h: the CPU entries of an AMS model (sp_ams_long_fn,
 * sp_ams_branch_fn of ams_args.h), included after ams.h once per
 * precision: the package's engine compiles them for the washboard
 * (src/core/sp_ams_engine.c, static), a user's SDE model's CPU object for
 * that model (exported: SP_AMS_ENTRY defined empty; see sde_ams()).  The
 * parameters are loaded per call (a call runs a piece of a particle's
 * branching, at most its budget of steps, or a piece of the long
 * trajectory). */
#ifndef SP_AMS_ENTRY
#  define SP_AMS_ENTRY static
#endif

SP_AMS_ENTRY int SP_PREC(sp_ams_entry_long)(const void *cond, const double *tables, int heun,
                                           uint64_t seed, uint64_t stream, uint64_t N,
                                           sp_ams_long_state *st, double *lx,
                                           sp_ams_result *res, void *x, uint64_t xs,
                                           uint64_t *k0, uint64_t *path, uint64_t budget) {
  const SP_AMS_COND *c = (const SP_AMS_COND *)cond;
  SP_PREC(sp_ams_par) p;
  SP_PREC(sp_ams_par_load)(&p, c, tables);
  return SP_PREC(sp_ams_long_advance)(&p, heun, c, tables, seed, stream, N, st, lx, res,
                                      (SP_REAL *)x, xs, k0, path, budget);
}

SP_AMS_ENTRY int SP_PREC(sp_ams_entry_branch)(const void *cond, const double *tables, int heun,
                                             uint64_t seed, uint64_t stream, uint64_t i,
                                             uint64_t q, uint64_t P, double z, void *x,
                                             uint64_t xs, void *maxs, uint64_t *k0,
                                             uint64_t *path, double *dur, uint64_t *steps,
                                             void *wx, uint64_t *wk, uint64_t budget) {
  const SP_AMS_COND *c = (const SP_AMS_COND *)cond;
  SP_PREC(sp_ams_par) p;
  SP_PREC(sp_ams_par_load)(&p, c, tables);
  return SP_PREC(sp_ams_branch)(&p, heun, seed, stream, SP_AMS_C_H(c), i, q, P, (SP_REAL)z,
                                (SP_REAL *)x, xs, (SP_REAL *)maxs, k0, path, dur, steps,
                                (SP_REAL *)wx, wk, budget);
}
