#include "sp_xorsat.h"

#include <math.h>
#include <time.h>

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#include "xorsat.h"

typedef struct {
  int64_t run;    /* index in this call, -1: idle */
  uint64_t grun;  /* its streams' run number (sp_xorsat_run_stream) */
  uint64_t p1_thr; /* its condition's p1 2^32 */
  uint64_t t;     /* sweeps done */
  uint64_t t_snap;
  uint32_t *s;    /* nwords x n */
  uint32_t *snap; /* the state after sweep t_snap */
} xs_slot;

typedef struct {
  const sp_xorsat_job *job;
  sp_xorsat_out *out;
  xs_slot *slots;
  int nslots;
  uint64_t next, finished;
} xs_model;

static void xs_sweep(const sp_xorsat_job *job, uint64_t run, uint64_t p1_thr, uint32_t *s,
                     uint64_t t) {
  const uint32_t n = job->n, p16 = sp_xorsat_p16(p1_thr);
  uint32_t w, k;
  for (w = 0; w < job->nwords; w++) {
    uint32_t *sw = s + (size_t)w * n;
    sp_u32x4 r = {0, 0, 0, 0};
    for (k = 0; k < n; k++) {
      const int32_t i = job->order[k];
      const int32_t *p = job->partner + 6 * (size_t)i;
      const uint32_t *jm = job->jm + 3 * (size_t)i;
      const uint32_t si = sw[i];
      uint32_t p1m;
      if (job->indep) {
        p1m = sp_xorsat_indep_mask(job->seed, run, w, t, n, k, p16);
      } else {
        if ((k & 3u) == 0) r = sp_xorsat_draws(job->seed, run, w, t, n, k >> 2);
        p1m = sp_xorsat_p1_mask(sp_u32x4_get(r, k & 3u), p1_thr);
      }
      sw[i] = si ^ sp_xorsat_flip(si ^ sw[p[0]] ^ sw[p[1]] ^ jm[0], si ^ sw[p[2]] ^ sw[p[3]] ^ jm[1],
                                  si ^ sw[p[4]] ^ sw[p[5]] ^ jm[2], p1m);
    }
  }
}

/* The first clone in the ground state, or -1. */
static int64_t xs_solved(const sp_xorsat_job *job, const uint32_t *s) {
  const uint32_t n = job->n;
  uint32_t w, c;
  for (w = 0; w < job->nwords; w++) {
    const uint32_t *sw = s + (size_t)w * n;
    uint32_t unsat = 0;
    for (c = 0; c < n; c++) {
      const int32_t *e = job->eq + 3 * (size_t)c;
      unsat |= sw[e[0]] ^ sw[e[1]] ^ sw[e[2]] ^ job->jeq[c];
    }
    if (~unsat != 0) {
      uint32_t m = ~unsat, b = 0;
      while (!(m & 1u)) {
        m >>= 1;
        b++;
      }
      return (int64_t)w * 32 + b;
    }
  }
  return -1;
}

static void xs_finish(xs_model *m, xs_slot *sl, int status, int64_t clone) {
  const sp_xorsat_job *job = m->job;
  const int64_t r = sl->run;
  m->out->sweeps[r] = (double)sl->t;
  m->out->status[r] = status;
  m->out->clone[r] = (int)clone;
  if (status == SP_XORSAT_SOLVED) {
    const uint32_t w = (uint32_t)(clone / 32), b = (uint32_t)(clone % 32);
    uint32_t i;
    for (i = 0; i < job->n; i++)
      m->out->solution[(size_t)r * job->n + i] = (int)((sl->s[(size_t)w * job->n + i] >> b) & 1u);
  }
  sl->run = -1;
#ifdef _OPENMP
#  pragma omp atomic
#endif
  m->finished++;
}

static void xs_start(xs_model *m, xs_slot *sl, int64_t r) {
  const sp_xorsat_job *job = m->job;
  const uint64_t run = sp_xorsat_run_stream(job->run0, job->nruns, (uint64_t)r);
  uint32_t w, i;
  sl->run = r;
  sl->grun = run;
  sl->p1_thr = job->conds[(uint64_t)r / job->nruns].p1_thr;
  sl->t = sl->t_snap = 0;
  for (w = 0; w < job->nwords; w++)
    for (i = 0; i < job->n; i++) sl->s[(size_t)w * job->n + i] = sp_xorsat_start(job->seed, run, w, i);
  memcpy(sl->snap, sl->s, (size_t)job->nwords * job->n * sizeof *sl->s);
}

/* Advance the slot's run by at most `budget` sweeps; returns the sweeps used. */
static uint64_t xs_advance(xs_model *m, xs_slot *sl, uint64_t budget) {
  const sp_xorsat_job *job = m->job;
  const uint64_t run = sl->grun;
  const size_t words = (size_t)job->nwords * job->n;
  uint64_t used = 0;
  int64_t clone;
  if (sl->t == 0 && (clone = xs_solved(job, sl->s)) >= 0 && !job->calibrate) {
    xs_finish(m, sl, SP_XORSAT_SOLVED, clone);
    return 1;
  }
  while (used < budget) {
    if (job->max_sweeps > 0 && sl->t >= job->max_sweeps) {
      xs_finish(m, sl, SP_XORSAT_CUT, -1);
      return used + 1;
    }
    xs_sweep(job, run, sl->p1_thr, sl->s, sl->t);
    sl->t++;
    used++;
    if (sl->t % job->check_every == 0 || (job->max_sweeps > 0 && sl->t >= job->max_sweeps)) {
      if (xs_solved(job, sl->s) >= 0 && !job->calibrate) {
        /* replay from the last check, sweep by sweep, to the first solution */
        uint64_t t_end = sl->t;
        memcpy(sl->s, sl->snap, words * sizeof *sl->s);
        sl->t = sl->t_snap;
        while ((clone = xs_solved(job, sl->s)) < 0 && sl->t < t_end) {
          xs_sweep(job, run, sl->p1_thr, sl->s, sl->t);
          sl->t++;
        }
        xs_finish(m, sl, SP_XORSAT_SOLVED, clone);
        return used;
      }
      memcpy(sl->snap, sl->s, words * sizeof *sl->s);
      sl->t_snap = sl->t;
    }
  }
  return used;
}

static int xs_round(void *model, uint64_t budget, int nth, sp_round_status *st) {
  xs_model *m = (xs_model *)model;
  int k;
  (void)nth;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
#endif
  for (k = 0; k < m->nslots; k++) {
    xs_slot *sl = &m->slots[k];
    uint64_t left = budget;
    while (left > 0) {
      if (sl->run < 0) {
        uint64_t r;
#ifdef _OPENMP
#  pragma omp atomic capture
#endif
        r = m->next++;
        if (r >= SP_XORSAT_RUNS(m->job)) break;
        xs_start(m, sl, (int64_t)r);
      }
      {
        uint64_t u = xs_advance(m, sl, left);
        left = u >= left ? 0 : left - u;
      }
    }
  }
  st->done = (double)m->finished;
  st->finished = m->finished >= SP_XORSAT_RUNS(m->job);
  return SP_OK;
}

static void xs_collect(void *model, int interrupted) {
  xs_model *m = (xs_model *)model;
  int k;
  if (!interrupted) return;
  for (k = 0; k < m->nslots; k++) {
    xs_slot *sl = &m->slots[k];
    if (sl->run < 0) continue;
    m->out->sweeps[sl->run] = (double)sl->t;
    m->out->status[sl->run] = SP_XORSAT_PARTIAL;
  }
}

int sp_xorsat_check(const sp_xorsat_job *job) {
  const uint32_t n = job->n;
  uint32_t c, k, q;
  int32_t *set_of;
  int st = SP_OK;
  if (n < 3 || n > (1u << 28))
    return sp_fail(SP_ERR_INVALID, "internal error: 3-XORSAT tables of %u spins (3 to 2^28)", n);
  if (job->nsets < 1 || job->nsets > n || job->sets[0] != 0 || job->sets[job->nsets] != (int32_t)n)
    return sp_fail(SP_ERR_INVALID, "internal error: 3-XORSAT sets must run from 0 to n = %u", n);
  for (c = 0; c < job->nsets; c++)
    if (job->sets[c + 1] < job->sets[c])
      return sp_fail(SP_ERR_INVALID, "internal error: 3-XORSAT set %u ends before it starts", c);
  if (job->check_every < 1 || job->nwords > (1u << SP_XORSAT_WORD_BITS))
    return sp_fail(SP_ERR_INVALID, "internal error: 3-XORSAT check_every %g or words %u",
                   (double)job->check_every, job->nwords);
  set_of = (int32_t *)malloc((size_t)n * sizeof *set_of);
  if (set_of == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (k = 0; k < n; k++) set_of[k] = -1;
  for (c = 0; c < job->nsets && st == SP_OK; c++)
    for (k = (uint32_t)job->sets[c]; k < (uint32_t)job->sets[c + 1] && st == SP_OK; k++) {
      const int32_t i = job->order[k];
      if (i < 0 || (uint32_t)i >= n || set_of[i] >= 0)
        st = sp_fail(SP_ERR_INVALID,
                     "internal error: the 3-XORSAT order is not a permutation of 0..%u", n - 1);
      else
        set_of[i] = (int32_t)c;
    }
  for (k = 0; k < n && st == SP_OK; k++)
    for (q = 0; q < 6 && st == SP_OK; q++) {
      const int32_t p = job->partner[6 * (size_t)k + q];
      if (p < 0 || (uint32_t)p >= n || (uint32_t)p == k || set_of[p] == set_of[k])
        st = sp_fail(SP_ERR_INVALID,
                     "internal error: 3-XORSAT partner %d of spin %u is out of range, the "
                     "spin itself or in its independent set", (int)p, k);
    }
  for (k = 0; k < 3 * n && st == SP_OK; k++)
    if (job->eq[k] < 0 || (uint32_t)job->eq[k] >= n)
      st = sp_fail(SP_ERR_INVALID, "internal error: 3-XORSAT equation %u has spin %d outside 0..%u",
                   k / 3, (int)job->eq[k], n - 1);
  free(set_of);
  return st;
}

void sp_xorsat_out_init(const sp_xorsat_job *job, sp_xorsat_out *out) {
  uint64_t r;
  for (r = 0; r < SP_XORSAT_RUNS(job); r++) {
    out->sweeps[r] = 0;
    out->status[r] = SP_XORSAT_UNSTARTED;
    out->clone[r] = -1;
  }
  out->nwords = job->nwords;
  out->cpu_seconds = NAN;
}

/* CPU time of the calling thread (NAN where the clock is missing). */
static double xs_thread_seconds(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
  return NAN;
}

int sp_xorsat_cpu(const void *vjob, void *vout, int nth, const sp_hooks *hooks,
                  sp_run_info *info) {
  const sp_xorsat_job *job = (const sp_xorsat_job *)vjob;
  sp_xorsat_out *out = (sp_xorsat_out *)vout;
  xs_model m;
  sp_cpu_engine e;
  const size_t words = (size_t)job->nwords * job->n;
  int k, st;
  uint32_t *mem;
  double c0;
  /* a timing run (the pace of the sweeps) runs on one thread and measures
   * that thread's CPU time */
  if (job->calibrate) nth = 1;
  if (job->nwords < 1) return sp_fail(SP_ERR_INVALID, "internal error: no words of clones");
  if (SP_XORSAT_RUNS(job) == 0) return SP_OK;
  m.job = job;
  m.out = out;
  m.nslots = nth > 0 ? nth : 1;
  if ((uint64_t)m.nslots > SP_XORSAT_RUNS(job)) m.nslots = (int)SP_XORSAT_RUNS(job);
  m.next = m.finished = 0;
  m.slots = (xs_slot *)calloc((size_t)m.nslots, sizeof *m.slots);
  mem = (uint32_t *)malloc((size_t)m.nslots * 2 * words * sizeof *mem);
  if (m.slots == NULL || mem == NULL) {
    free(m.slots);
    free(mem);
    return sp_fail(SP_ERR_NOMEM, "out of host memory for the clones");
  }
  for (k = 0; k < m.nslots; k++) {
    m.slots[k].run = -1;
    m.slots[k].s = mem + (size_t)k * 2 * words;
    m.slots[k].snap = m.slots[k].s + words;
  }
  e.total = (double)SP_XORSAT_RUNS(job);
  e.budget0 = 1;
  e.budget_max = (uint64_t)1 << 40;
  e.round = xs_round;
  e.collect = xs_collect;
  c0 = job->calibrate ? xs_thread_seconds() : NAN;
  st = sp_cpu_run(&e, &m, nth, hooks, info);
  if (job->calibrate) out->cpu_seconds = xs_thread_seconds() - c0;
  free(mem);
  free(m.slots);
  return st;
}
