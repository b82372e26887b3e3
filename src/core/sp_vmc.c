#include "sp_vmc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sp_error.h"

#include "philox.h"
#include "he4_vmc.h" /* double; for SP_VMC_NOBS */


void sp_vmc_lattice(int n, double L, uint64_t seed, uint64_t stream, double *coords) {
  static const double basis[4][3] = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
  int k = 1, t;
  uint64_t sites, s;
  uint32_t *site;
  double a;
  while ((uint64_t)4 * k * k * k < (uint64_t)n) k++;
  sites = (uint64_t)4 * k * k * k;
  a = L / k;
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
      sp_u32x4 r = sp_philox_purpose_block(seed, SP_PURPOSE_VMC_START, stream, (uint64_t)t);
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
  const size_t nw = (size_t)SP_VMC_WALKERS(job);
  size_t w, nb = nw * (size_t)job->blocks * SP_VMC_NOBS;
  for (w = 0; w < nb; w++) out->block[w] = NAN;
  for (w = 0; w < nw; w++) out->done[w] = 0;
  if (out->hist != NULL)
    for (w = 0; w < nw * (size_t)job->nbins; w++) out->hist[w] = 0;
}

int sp_vmc_not_finite(const sp_vmc_job *job, int w, uint64_t sweep, int what, int atom) {
  const unsigned long long walker =
      (unsigned long long)(job->walker0 + (uint64_t)(w % job->nwalkers) + 1);
  char when[96], who[64];
  if (job->ncond > 1)
    snprintf(who, sizeof who, "walker %llu of condition %d", walker, w / job->nwalkers + 1);
  else
    snprintf(who, sizeof who, "walker %llu", walker);
  if (sweep <= job->equilibration)
    snprintf(when, sizeof when, "sweep %llu of this call (equilibration)",
             (unsigned long long)sweep);
  else
    snprintf(when, sizeof when, "sweep %llu of this call (block %llu)",
             (unsigned long long)sweep,
             (unsigned long long)((sweep - job->equilibration - 1) / job->block_sweeps + 1));
  if (what == SP_VMC_BAD_COORDINATE)
    return sp_fail(SP_ERR_NOT_FINITE,
                   "the coordinates of atom %d of %s became non-finite in %s; "
                   "check `step` (a trial move must stay finite)",
                   atom + 1, who, when);
  return sp_fail(SP_ERR_NOT_FINITE,
                 "the %s of %s became non-finite at the measurement after %s; "
                 "check `b`, `step` and `density`",
                 what == SP_VMC_BAD_POTENTIAL ? "potential energy" : "kinetic energy", who,
                 when);
}

