/* he4_dmc.h: diffusion Monte Carlo of liquid 4He (issue 35) -- the pieces
 * of one generation that the CPU engine (src/core/sp_dmc.c) and the GPU
 * kernel (he4_dmc.cu) share.  Double precision only.  Built on he4_vmc.h
 * (the pair sums of an atom, the local energy's parts, the wrap into the
 * box) and he4.h (potential, Jastrow factor).
 *
 * Importance-sampled DMC (Reynolds, Ceperley, Alder and Lester, J. Chem.
 * Phys. 77, 5593 (1982); Umrigar, Nightingale and Runge, J. Chem. Phys. 99,
 * 2865 (1993)) with guide psi = exp(U), U = sum_{i<j} u(r_ij) (he4.h), in
 * imaginary time step dt (K^-1), D = hbar^2 / 2m, lambda = hbar^2 / m =
 * SP_HE4_HB2M = 2 D.  A walker is a configuration R of N atoms.  A
 * generation moves every atom of every walker at once:
 *   R' = R + a grad U(R) + sqrt(a) xi,   a = lambda dt = 2 D dt,
 * (the drift D dt F, F = 2 grad U, and the diffusion sqrt(2 D dt) xi).  With
 * the accept/reject step the move is accepted with probability
 *   p = min(1, exp(2 (U' - U) + (|d - a g|^2 - |d + a g'|^2) / (2 a))),
 * d = R' - R, a g = the drift at R, a g' at R' (the Metropolis ratio of the
 * short-time Green's functions); without it p = 1.  The walker's weight is
 * multiplied by
 *   w = exp(-N tau ((s + s_p) / 2 - e_T)),   s_p = p s' + (1 - p) s,
 * where s, s' are the local energies e, e' per atom as Umrigar et al. scale
 * them with the drift limit (sp_dmc_drift_factor, sp_dmc_scaled_energy;
 * s = e without it), optionally limited to e_ref +- alpha / sqrt(N dt)
 * (sp_dmc_weight); the estimator takes e_p = p e' + (1 - p) e
 * with e, e' the local energies per atom at R and R' (Umrigar et al.'s
 * expected energy after the move) and e_T the population's trial energy;
 * the generation's mixed estimate is sum W e_p / sum W over the walkers (W
 * the weights after the multiplication).  The weights' time step tau is the
 * effective time step of the accept/reject walk (Umrigar et al.'s tau_eff;
 * with effective_step, else dt): tau = dt R_acc / R_prop, R_acc and R_prop
 * the population's sums, over its history up to the generation before, of
 * p |xi|^2 and |xi|^2 (xi the move's 3 N normals: the accepted share of the
 * diffusion's squared displacement).  A rejected all-atom move diffuses by
 * nothing, so the walk projects by about p dt a generation; a weight over
 * dt would weigh the local energy's fluctuations by dt / tau (> 1: an
 * energy too low, by a bias that grows as the rejections, about dt^(3/2),
 * and that an extrapolation quadratic in dt does not remove).  Branching then replaces a walker
 * of weight W by floor(W + u) copies of weight 1 (u uniform; at most
 * SP_DMC_MAX_COPIES), in slot order: the copies of slot k take the next
 * free slots.  Without branching the weights accumulate.  The trial energy
 * of the next generation, the reweighting that removes the population
 * control's bias and the limit on the energies in the weights:
 * sp_dmc_account, sp_dmc_cut.
 *
 * Random numbers: sp_streams.h, SP_PURPOSE_DMC_MOVE -- the walker in slot
 * k of population q at generation g draws from stream sp_stream_replica(q,
 * k), blocks g (n + 1) .. g (n + 1) + n.  So a walker's numbers depend only
 * on (seed, population, generation, slot), never on threads, devices or
 * chunks; slots follow from the branching history alone. */
#ifndef SP_HE4_DMC_H
#define SP_HE4_DMC_H

#include "he4_dmc_args.h"
#include "sp_streams.h"
#define SP_REAL double
#include "he4_vmc.h"
#undef SP_REAL

/* A quiet NaN (no estimate: the reference energy stays). */
SP_FN double sp_nan_d(void) {
#if SP_CUDA
  return __longlong_as_double(0x7ff8000000000000LL);
#else
  return NAN;
#endif
}

/* The stream of slot k of population q (0-based, global). */
SP_FN uint64_t sp_dmc_stream(uint64_t q, uint64_t k) { return sp_stream_replica(q, k); }

/* The three normals of atom i's diffusion at generation gen. */
SP_FN void sp_dmc_normals(uint64_t seed, uint64_t stream, uint64_t gen, int n, int i,
                          double *z) {
  sp_u32x4 a = sp_philox_purpose_block(seed, SP_PURPOSE_DMC_MOVE, stream,
                                       gen * (uint64_t)(n + 1) + (uint64_t)i);
  double z3;
  sp_box_muller_double(a.x, a.y, &z[0], &z[1]);
  sp_box_muller_double(a.z, a.w, &z[2], &z3);
  (void)z3;
}

/* The uniforms of generation gen: *ua the accept/reject test, *ub the
 * branching. */
SP_FN void sp_dmc_uniforms(uint64_t seed, uint64_t stream, uint64_t gen, int n, double *ua,
                           double *ub) {
  sp_u32x4 c = sp_philox_purpose_block(seed, SP_PURPOSE_DMC_MOVE, stream,
                                       gen * (uint64_t)(n + 1) + (uint64_t)n);
  *ua = sp_u01_double(c.x);
  *ub = sp_u01_double(c.y);
}

/* Umrigar, Nightingale and Runge's limit on the drift of one atom: the
 * factor f = (sqrt(1 + 2 x) - 1) / x by which its drift a grad_i U is
 * multiplied, x = A |a grad_i U|^2 / a = A a g2 (the drift's square in
 * units of the diffusion's variance a = lambda dt: their v^2 tau in units
 * of D = 1/2), so that the limited drift stays below sqrt(2 / A) diffusion
 * lengths; f -> 1 as dt -> 0; A = 0: no limit.  Where two atoms nearly
 * meet the drift diverges; the limit keeps the moves finite. */
SP_FN double sp_dmc_drift_factor(double g2, double a, double A) {
  const double x = A * a * g2;
  if (x < 1e-6) return 1 - 0.5 * x + 0.5 * x * x; /* the series: no cancellation */
  return (sqrt(1 + 2 * x) - 1) / x;
}

/* The move of one coordinate: the displacement d = D + sqrt(a) z (D the
 * limited drift) and the new coordinate x + d wrapped into the box. */
SP_FN double sp_dmc_move(const sp_he4_par_d *p, double x, double D, double z, double sa,
                         double *d) {
  *d = D + sa * z;
  return sp_vmc_wrap_d(p, x + *d);
}

/* One coordinate's term of the Green's functions' ratio, D and Dn the
 * limited drifts at the old and the new configuration:
 * (d - D)^2 - (d + Dn)^2 (summed over coordinates, divided by 2 a). */
SP_FN double sp_dmc_green_term(double d, double D, double Dn) {
  const double f = d - D, r = d + Dn;
  return f * f - r * r;
}

/* The local energy per atom that the weights use (Umrigar et al.'s
 * S = E_ref - (E_ref - E_L) |v_limited| / |v|): ratio = sqrt(sum_i f_i^2
 * g2_i / sum_i g2_i), 1 without a limit; the estimator keeps E_L. */
SP_FN double sp_dmc_scaled_energy(double e, double e_ref, double sf, double sg) {
  const double ratio = sg > 0 ? sqrt(sf / sg) : 1;
  return e_ref - (e_ref - e) * ratio;
}

/* The acceptance probability from U' - U and the Green's sum; 0 when the
 * proposal has no finite energy or ratio (a pair at distance 0), 1 without
 * the accept/reject step. */
SP_FN double sp_dmc_accept_prob(double du, double green, double a, double en, int accept) {
  double lr;
  if (!isfinite(en)) return 0;
  if (!accept) return 1;
  lr = 2 * du + green / (2 * a);
  if (!(lr == lr)) return 0;
  return lr >= 0 ? 1 : exp(lr);
}

/* A local energy per atom limited to e_ref +- cut (cut <= 0: none). */
SP_FN double sp_dmc_clip(double e, double e_ref, double cut) {
  if (!(cut > 0)) return e;
  if (e > e_ref + cut) return e_ref + cut;
  if (e < e_ref - cut) return e_ref - cut;
  return e;
}

/* The limit (per atom) on the local energies in the weights of a
 * population's next generation: |E - E_ref| <= kappa sqrt(sigma_E / tau) in
 * all, sigma_E = N sqrt(sigma2) the spread of the walkers' (limited) local
 * energy E and tau the weights' time step -- a multiple kappa /
 * sqrt(sigma_E tau) of the spread, so that the limit grows without bound
 * relative to the spread as tau -> 0 (no bias left), while one generation's
 * weight factor stays below exp(kappa sqrt(sigma_E tau)).  The McMillan
 * guide's local energy is unbounded below where two atoms meet (the kinetic
 * term's -(lambda/2) u'^2 ~ -r^-12 against the Aziz potential's finite
 * core): one walker there would multiply until the capacity cuts it.
 * kappa = 0, or no spread yet: no limit (0). */
SP_FN double sp_dmc_cut(const sp_dmc_pop *q, double kappa, int n, double tau) {
  const double sE = (double)n * sqrt(q->sigma2);
  if (!(kappa > 0) || !(sE > 0) || !(tau > 0)) return 0;
  return kappa * sqrt(sE / tau) / (double)n;
}

/* The weight factor of a move (see the top), the local energies limited to
 * e_ref +- cut (sp_dmc_cut). */
SP_FN double sp_dmc_weight(int n, double dt, double e, double ep, double e_trial, double e_ref,
                           double cut) {
  return exp(-(double)n * dt *
             (0.5 * (sp_dmc_clip(e, e_ref, cut) + sp_dmc_clip(ep, e_ref, cut)) - e_trial));
}

/* The weights' time step of a population's next generation (see the top):
 * dt R_acc / R_prop with `effective`, dt without or before any move. */
SP_FN double sp_dmc_tau(const sp_dmc_pop *q, double dt, int effective) {
  return effective && q->r2_prop > 0 ? dt * (q->r2_acc / q->r2_prop) : dt;
}

/* The share of the way to a new value of a quantity that relaxes with time
 * constant T (K^-1) over a generation of time step tau: 1 - exp(-tau / T)
 * (1 for T <= 0). */
SP_FN double sp_dmc_relax(double tau, double T) {
  return T > 0 ? 1 - exp(-tau / T) : 1;
}

/* A population's start (every call): a fresh population's e_ref = e_T =
 * its weighted mean local energy, and a missing spread sigma2 the variance
 * of its local energies, from the sums of W, W e and W e^2 over its
 * walkers. */
SP_FN void sp_dmc_start(sp_dmc_pop *q, double sw, double swe, double swe2) {
  if (!(q->e_ref == q->e_ref)) {
    q->e_ref = swe / sw;
    q->e_trial = q->e_ref;
  }
  if (!(q->sigma2 == q->sigma2)) {
    const double m = swe / sw, v = swe2 / sw - m * m;
    q->sigma2 = v > 0 ? v : 0;
  }
}

/* Copies of a walker of weight W at a branching with uniform ub. */
SP_FN int sp_dmc_copies(double W, double ub) {
  double c = floor(W + ub);
  if (!(c >= 0)) return 0;
  return c > SP_DMC_MAX_COPIES ? SP_DMC_MAX_COPIES : (int)c;
}

/* The end of a walker's move, from its state before (wk: U, e, v, t, W),
 * the proposal's ln psi Un and observables obs (sp_vmc_observables), the
 * Green's functions' sum `green`, the drift limit's sums sl = (sum f^2
 * g2, sum g2) at the old and at the new configuration, sl[0..3], the
 * squares of the move's normals z2, and the uniforms ua (accept) and ub
 * (branching); tau the weights' time step (sp_dmc_tau): the state after
 * (wk_new), the walker's contribution to the generation's sums gs (W e_p,
 * W v_p, W t_p, W, p, p z2, z2, W s, W s^2, copies; s the limited energy
 * after the move) and whether the move was accepted; cut from sp_dmc_cut. */
SP_FN int sp_dmc_step_end(const double *wk, double Un, const double *obs, double green,
                          const double *sl, double z2, double ua, double ub, double e_ref,
                          double e_trial, int n, double dt, double tau, int accept,
                          int branching, double cut, double *wk_new, double *gs) {
  const double a = SP_HE4_HB2M * dt;
  const double pacc = sp_dmc_accept_prob(Un - wk[0], green, a, obs[SP_VMC_ENERGY], accept);
  const double s0 = sp_dmc_scaled_energy(wk[1], e_ref, sl[0], sl[1]);
  double ep = wk[1], vp = wk[2], tp = wk[3], s1 = s0, W;
  const int acc = ua < pacc;
  int j;
  if (pacc > 0) {
    ep = pacc * obs[SP_VMC_ENERGY] + (1 - pacc) * wk[1];
    vp = pacc * obs[SP_VMC_POTENTIAL] + (1 - pacc) * wk[2];
    tp = pacc * obs[SP_VMC_KINETIC_PB] + (1 - pacc) * wk[3];
    s1 = pacc * sp_dmc_scaled_energy(obs[SP_VMC_ENERGY], e_ref, sl[2], sl[3]) + (1 - pacc) * s0;
  }
  W = wk[4] * sp_dmc_weight(n, tau, s0, s1, e_trial, e_ref, cut);
  s1 = sp_dmc_clip(s1, e_ref, cut);
  for (j = 0; j < 4; j++) wk_new[j] = wk[j];
  if (acc) {
    wk_new[0] = Un;
    wk_new[1] = obs[SP_VMC_ENERGY];
    wk_new[2] = obs[SP_VMC_POTENTIAL];
    wk_new[3] = obs[SP_VMC_KINETIC_PB];
  }
  wk_new[4] = W;
  gs[0] = W * ep;
  gs[1] = W * vp;
  gs[2] = W * tp;
  gs[3] = W;
  gs[4] = pacc;
  gs[5] = pacc * z2;
  gs[6] = z2;
  gs[7] = W * s1;
  gs[8] = W * s1 * s1;
  gs[SP_DMC_GCOPIES] = branching ? (double)sp_dmc_copies(W, ub) : 1;
  return acc;
}

/* The generation's bookkeeping of a population, after its walkers moved
 * (and branched): s = the sums over the walkers of W e_p, W v_p, W t_p, W,
 * p, p z2, z2, W s, W s^2 (SP_DMC_GSUMS); Pm the population after branching
 * (weights only: the total weight); P the walkers that moved; ring the
 * population's 2 T_p terms of the reweighting (N tau e_T, then N tau, at
 * gen mod T_p).
 *
 * Population control without its bias (Umrigar, Nightingale and Runge
 * 1993): the weights of generation g carry exp(N tau_g e_T(g)), and e_T
 * follows the population; the estimators weigh generation g by
 *   Pi_g = prod over the last T_p generations i of exp(-N tau_i (e_T(i) - e_best)),
 * which undoes the trial energy's feedback over that window (e_best a
 * constant: it cancels in the ratio).  The block's sums get both the plain
 * (acc[0..3]) and the reweighted (acc[9..12]) estimates.  Then: the
 * history's R_acc, R_prop, the generation count, and the next trial energy:
 * E_ref and sigma2 relax towards the generation's estimate and variance
 * with time constant ref_time, and
 *   e_T = e_ref - feedback ln(Pm / target) / N
 * (feedback = 1 / the feedback time: a time constant in imaginary time, the
 * same control per unit of it whatever the step).  In the equilibration
 * (equil = 1) E_ref takes each generation's weighted mean of the energies
 * that the weights use (s: scaled and limited, so that one walker near a
 * contact cannot throw it, and with it every weight, far off): the walkers' energy
 * falls there from the start's (VMC) value to the DMC one, and an E_ref
 * that lagged it by ref_time would hold e_T above the population's growth
 * energy, so that ln(Pm / target) would rise by about N t_f times the lag
 * (issue 52: N = 256, the fall of 1.5 K per atom in some 0.05 K^-1, t_f =
 * 0.02: past ln 2, walkers dropped at the capacity).  Returns 1 when the
 * population died out. */
SP_FN int sp_dmc_account(sp_dmc_pop *st, double *acc, const double *s, double Pm, int P,
                         const sp_dmc_ctl *c, double *ring, int equil) {
  const double tau = sp_dmc_tau(st, c->dt, c->effective), nt = (double)c->n * tau;
  const int Tp = c->reweight;
  const int pos = (int)(st->gen % (uint64_t)Tp);
  double lnpi, pi, rate;
  st->rw_a += nt * st->e_trial - ring[pos];
  st->rw_b += nt - ring[Tp + pos];
  ring[pos] = nt * st->e_trial;
  ring[Tp + pos] = nt;
  if (!(st->e_best == st->e_best)) st->e_best = st->e_ref;
  lnpi = -(st->rw_a - st->e_best * st->rw_b);
  if (lnpi > SP_DMC_LNPI_MAX) lnpi = SP_DMC_LNPI_MAX;
  if (lnpi < -SP_DMC_LNPI_MAX) lnpi = -SP_DMC_LNPI_MAX;
  pi = exp(lnpi);
  acc[0] += s[0];
  acc[1] += s[1];
  acc[2] += s[2];
  acc[3] += s[3];
  acc[4] += Pm;
  acc[5] += st->e_trial;
  acc[6] += s[4];
  acc[7] += (double)P;
  acc[8] += 1;
  acc[9] += pi * s[0];
  acc[10] += pi * s[1];
  acc[11] += pi * s[2];
  acc[12] += pi * s[3];
  acc[13] += st->rw_b;
  st->r2_acc += s[5];
  st->r2_prop += s[6];
  st->gen++;
  rate = sp_dmc_relax(tau, c->ref_time);
  if (s[3] > 0) {
    const double est = s[0] / s[3], m = s[7] / s[3], v = s[8] / s[3] - m * m;
    if (equil) {
      if (m == m) st->e_ref = m;
    } else if (est == est) {
      st->e_ref += rate * (est - st->e_ref);
    }
    if (v >= 0) st->sigma2 = st->sigma2 == st->sigma2 ? st->sigma2 + rate * (v - st->sigma2) : v;
  }
  st->e_trial = st->e_ref - c->feedback * log((Pm > 0 ? Pm : 1) / c->target) / (double)c->n;
  return st->size == 0 || !(Pm > 0);
}

/* The start of the records (after the last generation of the
 * equilibration): the block's sums restart, E_best is set afresh (from
 * E_ref, at the next sp_dmc_account) and the reweighting's window restarts
 * empty.  In the equilibration E_ref follows each generation's estimate
 * (sp_dmc_account), so that e_T carries that estimate's noise: a window
 * reaching back into it would weight the first T_p recorded generations by
 * that noise (at N = 32, 48 walkers, dt = 0.001, a window of 0.5 K^-1 and
 * 0.72 K^-1 of records: blocks' effective number 5 of 24, energies
 * scattered by 0.2 K), while the bias of the equilibration's control fades
 * over the walkers' correlation time. */
SP_FN void sp_dmc_records_start(sp_dmc_pop *st, double *acc, double *ring, int Tp) {
  int j;
  for (j = 0; j < SP_DMC_NACC; j++) acc[j] = 0;
  for (j = 0; j < 2 * Tp; j++) ring[j] = 0;
  st->rw_a = 0;
  st->rw_b = 0;
  st->e_best = sp_nan_d();
}

/* A finished block's row (SP_DMC_NOBS) from its sums, which restart. */
SP_FN void sp_dmc_block_row(double *acc, double *row) {
  int j;
  row[SP_DMC_ENERGY] = acc[9] / acc[12];
  row[SP_DMC_POTENTIAL] = acc[10] / acc[12];
  row[SP_DMC_KINETIC] = acc[11] / acc[12];
  row[SP_DMC_ENERGY_RAW] = acc[0] / acc[3];
  row[SP_DMC_POPULATION] = acc[4] / acc[8];
  row[SP_DMC_TRIAL] = acc[5] / acc[8];
  row[SP_DMC_ACCEPTANCE] = acc[6] / acc[7];
  row[SP_DMC_WEIGHT] = acc[3] / acc[8];
  row[SP_DMC_RW_WEIGHT] = acc[12] / acc[8];
  row[SP_DMC_RW_TIME] = acc[13] / acc[8];
  for (j = 0; j < SP_DMC_NACC; j++) acc[j] = 0;
}

/* The Lennard-Jones potential 4 eps ((s/r)^12 - (s/r)^6) (K) from r^2. */
SP_FN double sp_dmc_lj(const sp_dmc_guide *gd, double r2) {
  const double s2 = gd->lj_sigma * gd->lj_sigma / r2, s6 = s2 * s2 * s2;
  return 4 * gd->lj_eps * s6 * (s6 - 1);
}

/* The terms of one pair (he4.h's sp_he4_pair_terms2u, the DMC's guide):
 * McMillan's exponent, or, with the bounded guide (gd->on) at r^2 <
 * gd->rj2, the even quartic core u = c0 + c1 r^2 + c2 r^4, whose
 * derivatives stay finite as r -> 0 (u' = 2 c1 r + 4 c2 r^3 -> 0), so
 * that the local energy stays bounded where two atoms meet (the Aziz core
 * is finite, V(0) = eps A); the symmetrised form's image term u(L - r) -
 * 2 u(L/2) is McMillan's in both.  The quartic meets McMillan's u, u' and
 * u'' at r_j: u, the drift and the local energy are continuous.  *v is the
 * Aziz potential, or with gd->pot = SP_DMC_POT_LJ the Lennard-Jones one
 * (whose r^-12 core makes the bounded guide's local energy unbounded
 * again). */
SP_FN void sp_dmc_pair_terms(const sp_he4_par_d *p, const sp_dmc_guide *gd, double r2,
                             double *v, double *g, double *lap, double *u) {
  const int lj = gd->pot == SP_DMC_POT_LJ;
  if (!gd->on || !(r2 < gd->rj2)) {
    sp_he4_pair_terms2u_d(p, r2, lj ? 0 : v, g, lap, u);
  } else {
    const double rinv = 1 / sqrt(r2), r = r2 * rinv;
    double uu = gd->c0 + r2 * (gd->c1 + r2 * gd->c2);
    double gg = 2 * gd->c1 + 4 * gd->c2 * r2;  /* u' / r */
    double ll = 6 * gd->c1 + 20 * gd->c2 * r2; /* u'' + 2 u' / r */
    if (p->form == SP_HE4_JASTROW_SYMMETRIZED) {
      double dv, d2v;
      const double vi = sp_he4_mcm_inv_d(p->b, 1 / (p->L - r), &dv, &d2v);
      uu = (uu + vi) - p->ushift;
      gg -= dv * rinv;
      ll += d2v - 2 * dv * rinv;
    }
    if (u != 0) *u = uu;
    *g = gg;
    *lap = ll;
    if (v != 0 && !lj)
      *v = sp_he4_aziz_wt_d(r, rinv * rinv, (SP_HE4_D * SP_HE4_RM) * rinv - 1.0);
  }
  if (v != 0 && lj) *v = sp_dmc_lj(gd, r2);
}

/* he4_vmc.h's sp_he4_atom_sums_d with the guide of sp_dmc_pair_terms (the
 * same operations for McMillan's guide). */
SP_FN void sp_dmc_atom_sums(const sp_he4_par_d *p, const sp_dmc_guide *gd, const double *x,
                            const double *y, const double *z, int n, int i, double *g,
                            double *v, double *l, double *u) {
  double gx = 0, gy = 0, gz = 0, v_sum = 0, l_sum = 0, u_sum = 0;
  const double xi = x[i], yi = y[i], zi = z[i];
  int j;
  for (j = 0; j < i; j++) {
    double dx, dy, dz, r2, gg, ll;
    dx = sp_he4_min_image_d(p, xi - x[j]);
    dy = sp_he4_min_image_d(p, yi - y[j]);
    dz = sp_he4_min_image_d(p, zi - z[j]);
    r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < p->rc2) {
      sp_dmc_pair_terms(p, gd, r2, 0, &gg, &ll, 0);
      gx += gg * dx;
      gy += gg * dy;
      gz += gg * dz;
    }
  }
  for (j = i + 1; j < n; j++) {
    double dx, dy, dz, r2, vv, gg, ll, uu;
    dx = sp_he4_min_image_d(p, xi - x[j]);
    dy = sp_he4_min_image_d(p, yi - y[j]);
    dz = sp_he4_min_image_d(p, zi - z[j]);
    r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < p->rc2) {
      sp_dmc_pair_terms(p, gd, r2, &vv, &gg, &ll, u != 0 ? &uu : 0);
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

/* The atom sums of atoms i0, i0 + stride, ... of a configuration x[n] y[n]
 * z[n] (the CPU: all, stride 1; a GPU lane: its atoms, stride 32): their
 * gradients of ln psi into g, and their parts of the sums that
 * sp_vmc_observables takes (pot, lap, |grad|^2) and of ln psi (us). */
SP_FN void sp_dmc_eval_part(const sp_he4_par_d *p, const sp_dmc_guide *gd, const double *x, int n,
                            int i0, int stride, double *g, double *pot, double *lap, double *us,
                            double *g2) {
  int i;
  *pot = *lap = *us = *g2 = 0;
  for (i = i0; i < n; i += stride) {
    double gi[3], v, l, u;
    sp_dmc_atom_sums(p, gd, x, x + n, x + 2 * n, n, i, gi, &v, &l, &u);
    g[i] = gi[0];
    g[n + i] = gi[1];
    g[2 * n + i] = gi[2];
    *pot += 2 * v;
    *lap += 2 * l;
    *us += u;
    *g2 += gi[0] * gi[0] + gi[1] * gi[1] + gi[2] * gi[2];
  }
}

/* ln psi, its gradient and the local energy's parts of a configuration
 * (one walker, sequentially: the CPU engine; the GPU kernel sums the lanes'
 * parts): g = grad U (x[n] y[n] z[n]), *U = ln psi, obs the per-atom
 * observables of sp_vmc_observables (energy, potential, kinetic_pb,
 * kinetic_jf). */
SP_FN void sp_dmc_eval(const sp_he4_par_d *p, const sp_dmc_guide *gd, const double *x, int n,
                       double *g, double *U, double *obs) {
  double pot, lap, g2;
  sp_dmc_eval_part(p, gd, x, n, 0, 1, g, &pot, &lap, U, &g2);
  sp_vmc_observables(n, pot, lap, g2, obs);
}

#endif /* SP_HE4_DMC_H */
