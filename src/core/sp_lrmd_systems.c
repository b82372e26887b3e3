/* sp_lrmd_systems.c: what the engines share about systems side by side
 * (sp_lrmd_job.nsys > 1; the GPU engine runs them in one set of launches,
 * src/gpu/sp_gpu_lrmd.c), and the CPU's run of them one after another, a
 * path for tests (lrmd()'s option statphysgpu.lrmd_batch = "cpu": R's
 * handling of a batch without a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_lrmd.h"

const sp_lrmd_start *sp_lrmd_system_start(const sp_lrmd_job *job, uint64_t sys,
                                          sp_lrmd_start *tmp) {
  const sp_lrmd_start_row *r;
  if (job->nsys == 1) return job->start;
  r = &job->starts[sys];
  if (r->kind < 0) return NULL;
  tmp->kind = r->kind;
  tmp->seed = r->seed_lo | (r->seed_hi << 32);
  tmp->n = r->n;
  tmp->replica = r->replica;
  tmp->a = r->a;
  tmp->b = r->b;
  tmp->U = r->U;
  tmp->M0 = r->M0;
  return tmp;
}

int sp_lrmd_system_fail(uint64_t nsys, uint64_t sys, int st) {
  sp_error_saved e;
  char msg[sizeof e.msg];
  if (st == SP_OK || nsys == 1) return st;
  sp_error_save(&e);
  snprintf(msg, sizeof msg, "system %llu: %.2000s", (unsigned long long)(sys + 1), e.msg);
  memcpy(e.msg, msg, sizeof msg);
  return sp_error_restore(&e);
}

int sp_lrmd_cpu_systems(const sp_lrmd_job *job, sp_lrmd_out *out, int nth, const sp_hooks *hooks,
                        sp_run_info *info) {
  const uint64_t n = job->n, nrec = SP_LRMD_NREC * sp_lrmd_nrec(job);
  double **snap = (double **)malloc((4 * (size_t)job->nsnap + 1) * sizeof *snap);
  uint64_t sys;
  int st = SP_OK, c;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (snap == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (sys = 0; sys < job->nsys && st == SP_OK; sys++) {
    sp_lrmd_job one = *job;
    sp_lrmd_out part = *out;
    sp_run_info ri;
    const sp_lrmd_start *s = sp_lrmd_system_start(job, sys, &one.start_def);
    one.nsys = 1;
    one.starts = NULL;
    one.nstarts = 0;
    one.start = s != NULL ? &one.start_def : NULL;
    for (c = 0; c < 4; c++) {
      one.in[c] = s == NULL && job->in[c] != NULL ? job->in[c] + sys * n : NULL;
      one.nin[c] = one.in[c] != NULL ? n : 0;
    }
    part.rec = out->rec + sys * nrec;
    part.q0 = out->q0 + sys * n;
    part.p0 = out->p0 + sys * n;
    part.q1 = out->q1 != NULL ? out->q1 + sys * n : NULL;
    part.p1 = out->p1 != NULL ? out->p1 + sys * n : NULL;
    for (c = 0; c < 4 * job->nsnap; c++) snap[c] = out->snap[c] != NULL ? out->snap[c] + sys * n : NULL;
    part.snap = snap;
    part.pmax = NULL;
    st = job->single ? sp_lrmd_cpu_run_f(&one, &part, nth, hooks, &ri)
                     : sp_lrmd_cpu_run_d(&one, &part, nth, hooks, &ri);
    st = sp_lrmd_system_fail(job->nsys, sys, st);
    info->seconds += ri.seconds;
    info->rounds += ri.rounds;
    out->pmax[sys] = part.start_pmax;
    out->steps_done = part.steps_done;
    if (st == SP_OK && ri.interrupted) {
      /* (systems side by side stop at one step: this path cannot) */
      st = sp_fail(SP_ERR_INVALID, "the CPU's run of lrmd systems side by side (a path for "
                                   "tests) cannot be interrupted");
    }
  }
  out->start_pmax = out->pmax[0];
  free(snap);
  return st;
}
