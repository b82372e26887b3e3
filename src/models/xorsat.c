/* The 3-XORSAT quasi-greedy model (xorsat_qg()): its descriptor.  Physics:
 * inst/cuda/xorsat.h; kernel: xorsat.cu; CPU loop: src/core/sp_xorsat.c;
 * GPU host: src/gpu/sp_gpu_xorsat.c; R: R/xorsat-qg.R. */
#include "../core/sp_error.h"
#include "../core/sp_model.h"
#include "../core/sp_xorsat.h"
#include "xorsat.h" /* SP_XORSAT_MAX_CONDITIONS */
#include "../gpu/sp_gpu_xorsat.h"

#define F(member, kind) SP_FIELD(sp_xorsat_job, member, kind)
#define V(member, len) SP_FIELD_VEC(sp_xorsat_job, member, SP_F_INTS, len, SP_F_COUNT)
/* a condition of a sweep over p1 */
static const sp_field cond_fields[] = {SP_FIELD(sp_xorsat_cond, p1_thr, SP_F_U64)};

/* jm and jeq: the J masks, 0 or -1 (all ones) as R integers */
static const sp_field fields[] = {
  SP_FIELD_ROWS(sp_xorsat_job, conds, ncond, SP_F_INT, sp_xorsat_cond, cond_fields),
  V(order, norder), V(sets, nsets1), V(partner, npartner), V(jm, njm), V(eq, neq), V(jeq, njeq),
  F(nwords, SP_F_U32), F(nruns, SP_F_COUNT), F(max_sweeps, SP_F_COUNT),
  F(check_every, SP_F_COUNT), F(indep, SP_F_INT),
  F(calibrate, SP_F_INT), F(run0, SP_F_U64), F(seed, SP_F_U64)};
#undef F
#undef V

static int prepare(void *job) {
  sp_xorsat_job *j = (sp_xorsat_job *)job;
  const uint64_t n = j->norder;
  const struct {
    const char *name;
    uint64_t len, want;
  } tab[] = {{"partner", j->npartner, 6 * n}, {"eq", j->neq, 3 * n}, {"jm", j->njm, 3 * n},
             {"jeq", j->njeq, n}};
  size_t t;
  int c;
  if (n < 3 || n > ((uint64_t)1 << 28))
    return sp_fail(SP_ERR_INVALID, "internal error: the 3-XORSAT order must have 3 to 2^28 spins");
  if (j->nsets1 < 2 || j->nsets1 > n + 1)
    return sp_fail(SP_ERR_INVALID,
                   "internal error: the 3-XORSAT sets must be 2 to n + 1 positions");
  for (t = 0; t < sizeof tab / sizeof tab[0]; t++)
    if (tab[t].len != tab[t].want)
      return sp_fail(SP_ERR_INVALID,
                     "internal error: the 3-XORSAT table `%s` must be an integer vector of "
                     "length %.0f",
                     tab[t].name, (double)tab[t].want);
  if (j->check_every < 1 || j->ncond < 1 || j->ncond > SP_XORSAT_MAX_CONDITIONS ||
      (j->ncond > 1 && j->run0 + j->nruns > ((uint64_t)1 << 40)))
    return sp_fail(SP_ERR_INVALID, "internal error: the 3-XORSAT conditions or check_every");
  for (c = 0; c < j->ncond; c++)
    if (j->conds[c].p1_thr > ((uint64_t)1 << 32))
      return sp_fail(SP_ERR_INVALID, "internal error: the 3-XORSAT p1");
  j->n = (uint32_t)n;
  j->nsets = (uint32_t)(j->nsets1 - 1);
  return sp_xorsat_check(j);
}

static uint64_t runs(const void *job) { return SP_XORSAT_RUNS((const sp_xorsat_job *)job); }

static uint64_t spins(const void *job) { return runs(job) * ((const sp_xorsat_job *)job)->n; }

static double work(const void *job) { return (double)runs(job); }

static void out_init(const void *job, void *out) {
  sp_xorsat_out_init((const sp_xorsat_job *)job, (sp_xorsat_out *)out);
}

static const sp_output outputs[] = {
  SP_OUT_VEC(sp_xorsat_out, sweeps, SP_OUT_REALS, runs),
  SP_OUT_VEC(sp_xorsat_out, status, SP_OUT_INTS, runs),
  SP_OUT_VEC(sp_xorsat_out, clone, SP_OUT_INTS, runs),
  SP_OUT_VEC(sp_xorsat_out, solution, SP_OUT_INTS, spins),
  SP_OUT_SCALAR(sp_xorsat_out, nwords, SP_OUT_COUNT),
  SP_OUT_SCALAR(sp_xorsat_out, cpu_seconds, SP_OUT_REAL)};

const sp_model sp_model_xorsat = {
  "xorsat", sizeof(sp_xorsat_job), sizeof(sp_xorsat_out), fields, SP_NFIELDS(fields),
  outputs, SP_NFIELDS(outputs), prepare, work, "Runs", out_init,
  SP_NO_LEN, {sp_xorsat_cpu, NULL}, sp_gpu_xorsat};
