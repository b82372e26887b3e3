#include "sp_vmc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sp_error.h"

#include "philox.h"
#include "he4_vmc.h" /* double; for SP_VMC_NOBS */


void sp_vmc_lattice(const sp_vmc_job *job, uint64_t walker, double *coords) {
  static const double basis[4][3] = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
  const int n = job->n;
  int k = 1, t;
  uint64_t sites, s;
  uint32_t *site;
  double a;
  while ((uint64_t)4 * k * k * k < (uint64_t)n) k++;
  sites = (uint64_t)4 * k * k * k;
  a = job->pair.L / k;
  /* site order: cell (cx, cy, cz) then basis; a partial Fisher-Yates
   * shuffle picks n of them when some must stay empty */
  site = (uint32_t *)malloc((size_t)sites * sizeof *site);
  if (site == NULL) { /* cannot happen for the sizes R lets through */
    for (t = 0; t < 3 * n; t++) coords[t] = 0;
    return;
  }
  for (s = 0; s < sites; s++) site[s] = (uint32_t)s;
  if (sites > (uint64_t)n) {
    for (t = 0; t < n; t++) {
      sp_u32x4 r = sp_philox_purpose_block(job->seed, SP_PURPOSE_VMC_START, walker,
                                           (uint64_t)t);
      uint64_t j = (uint64_t)t + (uint64_t)(sp_u01_double(r.x) * (double)(sites - (uint64_t)t));
      uint32_t tmp;
      if (j >= sites) j = sites - 1;
      tmp = site[t];
      site[t] = site[j];
      site[j] = tmp;
    }
  }
  for (t = 0; t < n; t++) {
    uint32_t v = site[t], b = v % 4, c = v / 4;
    uint32_t cx = c % (uint32_t)k, cy = (c / (uint32_t)k) % (uint32_t)k,
             cz = c / ((uint32_t)k * (uint32_t)k);
    coords[3 * t + 0] = a * ((double)cx + basis[b][0] + 0.25);
    coords[3 * t + 1] = a * ((double)cy + basis[b][1] + 0.25);
    coords[3 * t + 2] = a * ((double)cz + basis[b][2] + 0.25);
  }
  free(site);
}

void sp_vmc_out_init(const sp_vmc_job *job, sp_vmc_out *out) {
  size_t w, nb = (size_t)job->nwalkers * (size_t)job->blocks * SP_VMC_NOBS;
  for (w = 0; w < nb; w++) out->block[w] = NAN;
  for (w = 0; w < (size_t)job->nwalkers; w++) out->done[w] = 0;
  if (out->hist != NULL)
    for (w = 0; w < (size_t)job->nwalkers * (size_t)job->nbins; w++) out->hist[w] = 0;
}

int sp_vmc_not_finite(const sp_vmc_job *job, int w, uint64_t sweep, int what, int atom) {
  const unsigned long long walker = (unsigned long long)(job->walker0 + (uint64_t)w + 1);
  char when[96];
  if (sweep <= job->equilibration)
    snprintf(when, sizeof when, "sweep %llu of this call (equilibration)",
             (unsigned long long)sweep);
  else
    snprintf(when, sizeof when, "sweep %llu of this call (block %llu)",
             (unsigned long long)sweep,
             (unsigned long long)((sweep - job->equilibration - 1) / job->block_sweeps + 1));
  if (what == SP_VMC_BAD_COORDINATE)
    return sp_fail(SP_ERR_NOT_FINITE,
                   "the coordinates of atom %d of walker %llu became non-finite in %s; "
                   "check `step` (a trial move must stay finite)",
                   atom + 1, walker, when);
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the %s of walker %llu became non-finite at the measurement after %s; "
                 "check `b`, `step` and `density`",
                 what == SP_VMC_BAD_POTENTIAL ? "potential energy" : "kinetic energy", walker,
                 when);
}

