#include "sp_kuramoto.h"

#include <math.h>

#include "sp_error.h"

#include "kuramoto.h" /* double: sp_kur_start, sp_kur_omega_law */


void sp_kuramoto_records(sp_kuramoto_job *job) {
  const uint64_t last = (job->step0 + job->steps) / job->record_every;
  job->rec0 = job->step0 == 0 ? 0 : job->step0 / job->record_every + 1;
  job->nrec = last + 1 - job->rec0; /* last >= rec0 - 1 */
}

int64_t sp_kuramoto_record_of(const sp_kuramoto_job *job, uint64_t k) {
  if (k % job->record_every != 0 || k / job->record_every < job->rec0) return -1;
  return (int64_t)(k / job->record_every - job->rec0);
}

void sp_kuramoto_start_phases(uint64_t seed, uint64_t c, uint64_t r, uint64_t n, double *theta) {
  uint64_t i, stream = sp_kur_stream(c, r);
  for (i = 0; i < n; i++) theta[i] = sp_kur_start(seed, stream, i);
}

double sp_kuramoto_omega_of(const sp_kuramoto_job *job, uint64_t i) {
  switch (job->omega_law) {
  case SP_KUR_OMEGA_VECTOR:
    return job->omega[i];
  case SP_KUR_OMEGA_CONST:
    return job->omega_centre;
  default:
    return sp_kur_omega_law(job->omega_law, job->omega_centre, job->omega_scale, i, job->n);
  }
}

void sp_kuramoto_out_init(const sp_kuramoto_job *job, sp_kuramoto_out *out) {
  size_t i, nsys = (size_t)job->ncond * (size_t)job->nrep, nrec = (size_t)job->nrec;
  for (i = 0; i < 2 * nsys * nrec; i++) out->rec[i] = NAN;
  if (out->hist != NULL)
    for (i = 0; i < nsys * nrec * (size_t)job->bins; i++) out->hist[i] = 0;
  out->steps_done = 0;
}

int sp_kuramoto_not_finite(const sp_kuramoto_job *job, uint64_t sys, uint64_t k) {
  const uint64_t c = sys / job->nrep, r = sys % job->nrep;
  const unsigned long long replica = (unsigned long long)(job->replica0 + r + 1);
  const double K = job->conds[c].K;
  if (k == 0)
    return sp_fail(SP_ERR_NOT_FINITE,
                   "the start phases of replica %llu of condition %d (K = %g) are not all "
                   "finite", replica, (int)c + 1, K);
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the phases of replica %llu of condition %d (K = %g) became non-finite at "
                 "step %llu (t = %.6g); use a smaller `dt` or check the parameters",
                 replica, (int)c + 1, K, (unsigned long long)k, (double)k * job->dt);
}

