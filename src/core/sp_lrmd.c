#include "sp_lrmd.h"

#include <math.h>
#include <stdlib.h>

#include "sp_error.h"

#define SP_REAL double
#include "lrmd.h" /* sp_lrmd_ring_kappa */
#undef SP_REAL

uint64_t sp_lrmd_nrec(const sp_lrmd_job *job) { return job->steps / job->record_every + 1; }

void sp_lrmd_out_init(const sp_lrmd_job *job, sp_lrmd_out *out) {
  size_t i, j, nrec = sp_lrmd_nrec(job);
  for (i = 0; i < SP_LRMD_NREC * nrec; i++) out->rec[i] = NAN;
  for (j = 0; j < 4 * (size_t)job->nsnap; j++)
    if (out->snap[j] != NULL)
      for (i = 0; i < job->n; i++) out->snap[j][i] = NAN;
  out->steps_done = 0;
  out->start_pmax = 0;
}

static int sp_lrmd_cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The radius about the centre of mass holding half the particles (the
 * median distance; for even n the mean of the two middle ones); `work`
 * holds n doubles. */
static double sp_lrmd_half_mass_radius(const double *x, const double *y, uint64_t n,
                                       double *work) {
  double cx = 0, cy = 0, r;
  uint64_t i;
  for (i = 0; i < n; i++) {
    cx += x[i];
    cy += y[i];
  }
  cx /= (double)n;
  cy /= (double)n;
  for (i = 0; i < n; i++) work[i] = sqrt((x[i] - cx) * (x[i] - cx) + (y[i] - cy) * (y[i] - cy));
  qsort(work, (size_t)n, sizeof(double), sp_lrmd_cmp);
  r = n % 2 ? work[n / 2] : 0.5 * (work[n / 2 - 1] + work[n / 2]);
  return r;
}

int sp_lrmd_not_finite(const sp_lrmd_job *job, uint64_t k, uint64_t i, int momentum) {
  const char *what = momentum ? "momentum" : "position";
  if (k == 0)
    return sp_fail(SP_ERR_NOT_FINITE, "the %s of particle %llu is not finite at the start",
                   what, (unsigned long long)(i + 1));
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the %s of particle %llu became non-finite in step %llu of the run "
                 "(t = %.6g from its start); use a smaller `dt`%s",
                 what, (unsigned long long)(i + 1), (unsigned long long)k, (double)k * job->dt,
                 job->model == SP_LRMD_HMF ? "" : " or a larger `softening`");
}

/* Number `which` (0 .. SP_LRMD_NREC - 1) of the record of step k is
 * non-finite while the state is finite.  SP_ERR_NOT_FINITE. */
static int sp_lrmd_record_not_finite(const sp_lrmd_job *job, uint64_t k, int which) {
  static const char *const hmf[] = {"kinetic energy", "potential energy", "magnetisation M_x",
                                    "magnetisation M_y"};
  static const char *const grav[] = {"kinetic energy", "potential energy", "virial",
                                     "half-mass radius"};
  const char *name = (job->model == SP_LRMD_GRAVITY2D ? grav : hmf)[which];
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the %s of the record at step %llu of the run (t = %.6g from its start) is "
                 "not finite, while the positions and momenta are; %s",
                 name, (unsigned long long)k, (double)k * job->dt,
                 job->model == SP_LRMD_HMF ? "use a smaller `dt`"
                                           : "use a larger `softening` or a smaller `dt`");
}

int sp_lrmd_record_make(const sp_lrmd_job *job, uint64_t k, const sp_lrmd_sums *s,
                        const double *x, const double *y, double *work, double *rec) {
  const double n = (double)job->n;
  int j;
  rec[0] = s->kin / n;
  if (job->model == SP_LRMD_HMF) {
    rec[2] = s->c / n;
    rec[3] = s->s / n;
    rec[1] = 0.5 * (1.0 - (rec[2] * rec[2] + rec[3] * rec[3]));
  } else if (job->model == SP_LRMD_RING) {
    rec[1] = -sp_lrmd_ring_kappa(n) * s->pot / n;
    rec[2] = s->c / n;
    rec[3] = s->s / n;
  } else {
    rec[1] = s->pot / (4.0 * n * n);
    rec[2] = s->vir / (2.0 * n * n);
    rec[3] = sp_lrmd_half_mass_radius(x, y, job->n, work);
  }
  for (j = 0; j < SP_LRMD_NREC; j++)
    if (!isfinite(rec[j])) return sp_lrmd_record_not_finite(job, k, j);
  return SP_OK;
}

int sp_lrmd_cpu_start(const sp_lrmd_job *job, sp_lrmd_out *out, int nth) {
  const int two_d = job->model == SP_LRMD_GRAVITY2D;
  if (job->start == NULL) return SP_OK;
  if (job->start->n != job->n)
    return sp_fail(SP_ERR_INVALID, "the start has %.0f particles, the job %.0f",
                   (double)job->start->n, (double)job->n);
  return sp_lrmd_start_draw(job->start, out->q0, two_d ? out->q1 : NULL, out->p0,
                            two_d ? out->p1 : NULL, nth, &out->start_pmax);
}
