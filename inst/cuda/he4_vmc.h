/* he4_vmc.h: variational Monte Carlo of liquid 4He (paper 002) -- one
 * walker's Metropolis moves and measurements, one source for the CPU engine
 * (src/core/sp_vmc*.c) and the GPU kernel (he4_vmc.cu).  Built on he4.h
 * (potential, Jastrow factor, minimum image); define SP_REAL (and
 * SP_REAL_SINGLE) before including, as for he4.h.  "mixed" precision is
 * SP_REAL float: coordinates and pair terms in single, every sum over
 * atoms or measurements in double.
 *
 * A walker is one Markov chain of N atoms in a cubic periodic box, sampling
 * |psi|^2 with psi = exp(sum_{i<j} u(r_ij)).  A sweep tries one move per
 * atom, i = 0 .. N-1 in order: r_i' = r_i + step z (z three standard
 * normals), wrapped into [0, L); accepted when U < exp(2 dlnpsi),
 * dlnpsi = sum_{j != i} [u(r_i'j) - u(r_ij)].
 *
 * Random numbers (sp_streams.h): walker w (0-based, first_replica - 1 + its
 * index in the call) of condition c (0-based) draws from stream
 * sp_stream_replica(c, w) (sp_vmc_walker_stream(); condition 0: stream w);
 * its m-th trial move (m counted from the start of its chain, across calls
 * that continue it) uses blocks 2m (Box-Muller of (x, y) and of (z, w): three normals, the fourth unused) and
 * 2m + 1 (x: the uniform) of purpose SP_PURPOSE_VMC_MOVE.  The start lattice
 * uses purpose SP_PURPOSE_VMC_START.  So walker w's chain is the same
 * whatever the threads, devices or chunks.
 *
 * Local energy per atom at a configuration, lambda = hbar^2/m:
 *   V/N    = (1/N) sum_{i<j, r < L/2} V(r_ij)
 *   T_PB/N = -(lambda/2)(1/N) sum_i [lap_i ln psi + |grad_i ln psi|^2]
 *   T_JF/N = -(lambda/4)(1/N) sum_i lap_i ln psi
 *   E/N    = V/N + T_PB/N. */
#ifndef SP_HE4_VMC_H_COMMON
#define SP_HE4_VMC_H_COMMON

#include "he4_vmc_args.h" /* the observables, SP_VMC_NOBS */
#include "sp_streams.h"

/* What was found non-finite, stopping a walker: a coordinate of an atom
 * after a sweep, or a measurement's potential or kinetic energy. */
enum { SP_VMC_BAD_COORDINATE = 0, SP_VMC_BAD_POTENTIAL = 1, SP_VMC_BAD_KINETIC = 2 };

/* The Philox stream of walker `jw` (0-based) of a call of `per_cond`
 * walkers in each condition, condition-major, whose walkers of every
 * condition start at walker0 (0-based, in the condition): walker
 * walker0 + jw % per_cond of condition jw / per_cond, sp_stream_replica()
 * (condition 0: the walker's number itself). */
SP_FN uint64_t sp_vmc_walker_stream(uint64_t walker0, uint64_t per_cond, uint64_t jw) {
  return sp_stream_replica(jw / per_cond, walker0 + jw % per_cond);
}

/* Sweeps between step adjustments while tuning (equilibration only); the
 * acceptance aimed at is the job's `target` (he4_vmc(acceptance =), 0.3 by
 * default: bench/RESULTS.md, "The trial displacement against t sigma^2"). */
#define SP_VMC_TUNE_SWEEPS 10

/* The step after a tuning period with `acc` of `tried` moves accepted:
 * scaled by (acc / tried) / target, by at most a factor 2 either way, and at most
 * `cap` (the condition's cut rc = L/2: a Gaussian move of rms L/2 a
 * coordinate, wrapped into the box, already lands almost uniformly in it).
 * Without the cap a system where the target cannot be reached -- a dilute
 * gas, two atoms in a box -- doubled its step every tuning period, to 1e14
 * A and beyond, where x + step z loses the position to rounding and the
 * walker stands still.  In double on both engines, so that the same
 * acceptance counts give the same step. */
SP_FN double sp_vmc_tuned_step(double step, uint64_t acc, uint64_t tried, double target,
                               double cap) {
  double f = tried > 0 ? ((double)acc / (double)tried) / target : 1.0;
  if (f < 0.5) f = 0.5;
  if (f > 2.0) f = 2.0;
  step = step * f;
  return step > cap ? cap : step;
}

#endif /* SP_HE4_VMC_H_COMMON */

#include "he4.h"

#ifndef SP_HE4_VMC_OBS
#define SP_HE4_VMC_OBS
/* Per-atom observables from the sums over atoms. */
SP_FN void sp_vmc_observables(int n, double pot2, double lap, double g2, double *obs) {
  const double inv = 1.0 / (double)n;
  obs[SP_VMC_POTENTIAL] = 0.5 * pot2 * inv;
  obs[SP_VMC_KINETIC_PB] = -0.5 * SP_HE4_HB2M * (lap + g2) * inv;
  obs[SP_VMC_KINETIC_JF] = -0.25 * SP_HE4_HB2M * lap * inv;
  obs[SP_VMC_ENERGY] = obs[SP_VMC_POTENTIAL] + obs[SP_VMC_KINETIC_PB];
}

/* -1 when a measurement's observables are finite (one test of their sum),
 * else what is not: SP_VMC_BAD_POTENTIAL, or SP_VMC_BAD_KINETIC for either
 * kinetic term. */
SP_FN int sp_vmc_observables_bad(const double *obs) {
  if (isfinite(obs[SP_VMC_POTENTIAL] + obs[SP_VMC_KINETIC_PB] + obs[SP_VMC_KINETIC_JF]))
    return -1;
  return isfinite(obs[SP_VMC_POTENTIAL]) ? SP_VMC_BAD_KINETIC : SP_VMC_BAD_POTENTIAL;
}
#endif

#ifdef SP_REAL_SINGLE
#  define SP_VMC_FLOOR floorf
#else
#  define SP_VMC_FLOOR floor
#endif

/* Draws of trial move m of walker `walker`: three normals and a uniform in
 * (0, 1). */
SP_FN void SP_HE4(sp_vmc_draws)(uint64_t seed, uint64_t walker, uint64_t m, SP_REAL *z,
                                SP_REAL *u) {
  sp_u32x4 a = sp_philox_purpose_block(seed, SP_PURPOSE_VMC_MOVE, walker, 2 * m);
  sp_u32x4 c = sp_philox_purpose_block(seed, SP_PURPOSE_VMC_MOVE, walker, 2 * m + 1);
  SP_REAL z3;
#ifdef SP_REAL_SINGLE
  sp_box_muller_float(a.x, a.y, &z[0], &z[1]);
  sp_box_muller_float(a.z, a.w, &z[2], &z3);
  *u = sp_u01_float(c.x);
#else
  sp_box_muller_double(a.x, a.y, &z[0], &z[1]);
  sp_box_muller_double(a.z, a.w, &z[2], &z3);
  *u = sp_u01_double(c.x);
#endif
  (void)z3;
}

/* A coordinate wrapped into [0, L). */
SP_FN SP_REAL SP_HE4(sp_vmc_wrap)(const SP_HE4(sp_he4_par) *p, SP_REAL x) {
  SP_REAL w = x - p->L * SP_VMC_FLOOR(x * p->invL);
  return w >= p->L ? w - p->L : w;
}

/* u(r_ij') - u(r_ij) for atom i moved from (xo, yo, zo) to (xn, yn, zn),
 * partner j at (xj, yj, zj). */
SP_FN SP_REAL SP_HE4(sp_vmc_du)(const SP_HE4(sp_he4_par) *p, SP_REAL xo, SP_REAL yo, SP_REAL zo,
                                SP_REAL xn, SP_REAL yn, SP_REAL zn, SP_REAL xj, SP_REAL yj,
                                SP_REAL zj) {
  SP_REAL dx, dy, dz, r2, un = 0, uo = 0;
  dx = SP_HE4(sp_he4_min_image)(p, xn - xj);
  dy = SP_HE4(sp_he4_min_image)(p, yn - yj);
  dz = SP_HE4(sp_he4_min_image)(p, zn - zj);
  r2 = dx * dx + dy * dy + dz * dz;
  if (r2 < p->rc2) un = SP_HE4(sp_he4_jastrow_u2)(p, r2);
  dx = SP_HE4(sp_he4_min_image)(p, xo - xj);
  dy = SP_HE4(sp_he4_min_image)(p, yo - yj);
  dz = SP_HE4(sp_he4_min_image)(p, zo - zj);
  r2 = dx * dx + dy * dy + dz * dz;
  if (r2 < p->rc2) uo = SP_HE4(sp_he4_jastrow_u2)(p, r2);
  return un - uo;
}

/* The Metropolis decision: accept when u < exp(2 dlnpsi). */
SP_FN int SP_HE4(sp_vmc_accept)(SP_REAL dlnpsi, SP_REAL u) {
#ifdef SP_REAL_SINGLE
  return dlnpsi >= 0 || u < expf(2 * dlnpsi);
#else
  return dlnpsi >= 0 || u < exp(2 * dlnpsi);
#endif
}

/* The pair sums of atom i over its partners j != i, in the working
 * precision (at most n - 1 terms): g[0..2] = grad_i ln psi (every
 * partner), and over j > i only (V, lap u and u are symmetric in the pair:
 * summed over atoms they count each pair once) *v = sum V(r_ij),
 * *l = sum lap_i u(r_ij) and, when u is not NULL, *u = sum u(r_ij).  The
 * VMC measurement (sp_vmc_atom) and the DMC's evaluation of ln psi, its
 * gradient and the local energy (he4_dmc.h) share it. */
SP_FN void SP_HE4(sp_he4_atom_sums)(const SP_HE4(sp_he4_par) *p, const SP_REAL *x,
                                    const SP_REAL *y, const SP_REAL *z, int n, int i, SP_REAL *g,
                                    SP_REAL *v, SP_REAL *l, SP_REAL *u) {
  SP_REAL gx = 0, gy = 0, gz = 0, v_sum = 0, l_sum = 0, u_sum = 0;
  const SP_REAL xi = x[i], yi = y[i], zi = z[i];
  int j;
  for (j = 0; j < i; j++) {
    SP_REAL dx, dy, dz, r2, gg, ll;
    dx = SP_HE4(sp_he4_min_image)(p, xi - x[j]);
    dy = SP_HE4(sp_he4_min_image)(p, yi - y[j]);
    dz = SP_HE4(sp_he4_min_image)(p, zi - z[j]);
    r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < p->rc2) {
      SP_HE4(sp_he4_pair_terms2)(p, r2, 0, &gg, &ll);
      gx += gg * dx;
      gy += gg * dy;
      gz += gg * dz;
    }
  }
  for (j = i + 1; j < n; j++) {
    SP_REAL dx, dy, dz, r2, vv, gg, ll, uu;
    dx = SP_HE4(sp_he4_min_image)(p, xi - x[j]);
    dy = SP_HE4(sp_he4_min_image)(p, yi - y[j]);
    dz = SP_HE4(sp_he4_min_image)(p, zi - z[j]);
    r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < p->rc2) {
      SP_HE4(sp_he4_pair_terms2u)(p, r2, &vv, &gg, &ll, u != 0 ? &uu : 0);
      v_sum += vv;
      l_sum += ll;
      if (u != 0) u_sum += uu;
      gx += gg * dx;
      gy += gg * dy;
      gz += gg * dz;
    }
  }
  g[0] = gx;
  g[1] = gy;
  g[2] = gz;
  *v = v_sum;
  *l = l_sum;
  if (u != 0) *u = u_sum;
}

/* Sums over the partners j of atom i (j != i), for the measurement:
 * pot += sum V(r_ij) (each pair counted from both ends: halve the total),
 * lap += lap_i ln psi, g2 += |grad_i ln psi|^2 -- in double. */
SP_FN void SP_HE4(sp_vmc_atom)(const SP_HE4(sp_he4_par) *p, const SP_REAL *x, const SP_REAL *y,
                               const SP_REAL *z, int n, int i, double *pot, double *lap,
                               double *g2) {
  /* the atom's sums in the working precision, the sums over atoms and
   * measurements in double */
  SP_REAL g[3], v_sum, l_sum;
  SP_HE4(sp_he4_atom_sums)(p, x, y, z, n, i, g, &v_sum, &l_sum, 0);
  *pot += 2 * (double)v_sum;
  *lap += 2 * (double)l_sum;
  *g2 += (double)g[0] * (double)g[0] + (double)g[1] * (double)g[1] + (double)g[2] * (double)g[2];
}

#undef SP_VMC_FLOOR
