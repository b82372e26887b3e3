/* sp_gpu_lrmd.c: host side of inst/cuda/lrmd.cu, an engine of the GPU round
 * driver (sp_gpu_run.h), on one or several devices.
 *
 * The particles are cut into slices, one per device of the run (the same
 * device may be named more than once: its slices then run on streams of
 * their own, which the tests use to check the multi-device code on one
 * GPU).  Every slice holds the whole system's arrays and updates its own
 * particles.  Each stage, the slices exchange what the next pass needs:
 *   HMF: each slice's sums (cos, sin) after a pass, 16 bytes, copied into
 *        the other slices' `sums` (the kick adds the slices in order);
 *   ring, gravity2d: each slice's part of w after a drift, copied into the
 *        other slices' w before their pair pass.
 * The order between devices is kept by events on the device streams, never
 * by the host: a slice's stream waits for the others' copies before it
 * reads them (event ev_w), and for the others' readers of w before it
 * overwrites their copy (event ev_use).  Copies go peer to peer where the
 * devices allow it.  Enqueueing stage by stage over all slices happens in
 * the round of the first device (launch and poll of the others only report
 * progress), so that every wait refers to the event of the right stage.
 *
 * A round enqueues at most `budget` Yoshida steps, and stops early at the
 * next step that has a record or a snapshot: there the energy kernel's block
 * sums (and, for gravity2d, the positions for the half-mass radius) or the
 * phase space are read back when the round is polled, and combined on the
 * host in slice and block order.  HMF fuses the last drift of a step with
 * the first of the next inside a round (bitwise the same as two passes).
 * With job->fused, ring and gravity2d kick and drift in the pair pass
 * (sp_lrmd_pairs_fused_kernel, w double-buffered): three launches a step
 * instead of ten, the same numbers.
 *
 * Systems side by side (job->nsys > 1: one device, one slice): the arrays
 * of nsys systems one after another (each padded to a multiple of 32
 * particles), every pass one launch over all of them, each system with the
 * blocks, block sums, magnetisation slots, counter and flag it has alone
 * (lrmd_args.h), so that each system's numbers are bit for bit those of its
 * run alone; the records and snapshots are read back per system, in the
 * same order.  The starts are drawn (or uploaded) system by system.  Ring
 * and gravity2d: each system's pair pass has the tiles and parts of the
 * sources of its run alone, its parts' sums and part counters its own; the
 * parts are cut from the resident blocks of the one-system module's pair
 * kernels (job->keys[0]), as a run alone cuts them, whatever registers
 * NVRTC gives the systems' kernels.  At n = 1e4 one system fills a wave of
 * an H100 with 40 tiles x 26 parts of 385 sources; k systems make k waves
 * of the same blocks, back to back in one launch. */
#include "sp_gpu_lrmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "../core/sp_threads.h"
#include "sp_gpu_run.h"

#define SP_REAL double
#include "lrmd.h" /* sp_lrmd_drift_coef, sp_lrmd_kick_coef */
#undef SP_REAL

#define LRMD_MAX_SPLIT 64
#define LRMD_SPLIT_BYTES ((uint64_t)1 << 30) /* the parts' force sums, at most */

/* One slice (the per-device state of the driver). */
typedef struct {
  sp_gpu_dev *d;
  CUfunction hmf, drift, pairs, fused, kick, energy, start;
  CUdeviceptr q0, q1, p0, p1, partial, sums, count, fpart, tcount;
  CUdeviceptr bad; /* 2: the state check's flag (lrmd_args.h) */
  CUdeviceptr w[2]; /* w, and with the fused pair pass a second buffer */
  CUevent ev_w, ev_use;
  uint64_t i0, i1;
  unsigned nb;     /* blocks of a pass over the slice's particles */
  unsigned nb_hmf; /* blocks of the HMF reduction pass */
  int nsplit;      /* parts of the sources in the pair pass */
  uint64_t chunk;  /* sources per part */
  uint64_t npart;  /* doubles of block sums a system */
} lrmd_slice;

typedef struct {
  const char *key;
  const sp_lrmd_job *job;
  sp_lrmd_out *out;
  int nslice, nready;
  int cur; /* the buffer of w that holds the current positions' (0, 1) */
  lrmd_slice *sl[SP_GPU_MAX_DEVICES];
  uint64_t k;     /* steps enqueued */
  uint64_t label; /* the step the passes being enqueued belong to (0: the start) */
  uint64_t k_obs; /* the last step observed (records, snapshots), or UINT64_MAX */
  int snap_next;
  int touched; /* the host's state arrays were first written (lrmd_touch) */
  double *host; /* 2 n doubles: gravity2d's positions read back for a record */
  double *part; /* the energy kernel's block sums (nsys systems), then n doubles of work */
  uint64_t nsys;   /* systems side by side (see the top) */
  uint64_t stride; /* particles from one system's arrays to the next's */
  sp_lrmd_sums *sums;       /* nsys: a record's sums */
  unsigned long long *flag; /* 2 nsys: the state check's flags */
} lrmd_model;

static size_t lrmd_rb(const sp_lrmd_job *job) {
  return job->single ? sizeof(float) : sizeof(double);
}

static sp_lrmd_kargs lrmd_args(const lrmd_model *m, const lrmd_slice *v) {
  sp_lrmd_kargs a;
  memset(&a, 0, sizeof a);
  a.q0 = v->q0;
  a.q1 = v->q1;
  a.p0 = v->p0;
  a.p1 = v->p1;
  a.w = v->w[m->cur];
  a.w2 = v->w[1 - m->cur];
  a.tcount = v->tcount;
  a.partial = v->partial;
  a.sums = v->sums;
  a.count = v->count;
  a.fpart = v->fpart;
  a.n = m->job->n;
  a.i0 = v->i0;
  a.i1 = v->i1;
  a.chunk = v->chunk;
  a.eps = m->job->eps;
  a.model = m->job->model;
  a.nsplit = v->nsplit;
  a.slice = v->d->index;
  a.nslice = m->nslice;
  a.step = m->label;
  a.bad = v->bad;
  a.sys_stride = m->stride;
  a.sys_partial = v->npart;
  return a;
}

/* With every stream idle: SP_OK, or the failure of the first non-finite
 * momentum or position the kernels flagged (the first step over the slices,
 * then the first particle). */
/* A failure of system sys (0-based): named when there are several. */
static int lrmd_system_fail(const lrmd_model *m, uint64_t sys, int st) {
  return sp_lrmd_system_fail(m->nsys, sys, st);
}

static int lrmd_check_state(lrmd_model *m) {
  unsigned long long first[2] = {~0ull, ~0ull};
  uint64_t sys, first_sys = 0;
  int a, st;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    if ((st = sp_gpu_stream_sync(v->d->id, v->d->stream)) ||
        (st = sp_gpu_to_host(v->d->id, m->flag, v->bad,
                             (size_t)m->nsys * 2 * sizeof(unsigned long long))))
      return st;
    for (sys = 0; sys < m->nsys; sys++) {
      const unsigned long long *f = m->flag + 2 * sys;
      if (f[0] < first[0] || (f[0] == first[0] && f[1] < first[1])) {
        first[0] = f[0];
        first[1] = f[1];
        first_sys = sys;
      }
    }
  }
  if (first[0] == ~0ull) return SP_OK;
  return lrmd_system_fail(m, first_sys,
                          sp_lrmd_not_finite(m->job, (uint64_t)first[0],
                                             (uint64_t)(first[1] / 2), first[1] % 2 == 0));
}

static int lrmd_launch1(lrmd_slice *v, CUfunction f, unsigned grid, sp_lrmd_kargs *a,
                        const char *name) {
  return sp_gpu_launch(v->d->id, f, grid, SP_LRMD_BLOCK, 0, v->d->stream, a, name);
}

/* Is step k a record or snapshot step? */
static int lrmd_stop(const lrmd_model *m, uint64_t k) {
  int s;
  if (k % m->job->record_every == 0) return 1;
  for (s = m->snap_next; s < m->job->nsnap; s++)
    if (m->job->snap_steps[s] == k) return 1;
  return 0;
}

/* Every slice's stream waits for event ev (ev_w: 0, ev_use: 1) of every
 * other slice. */
static int lrmd_wait_others(lrmd_model *m, int which) {
  int a, b, st;
  if (m->nslice == 1) return SP_OK;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *va = m->sl[a];
    if ((st = sp_gpu_activate(va->d->id))) return st;
    for (b = 0; b < m->nslice; b++) {
      if (b == a) continue;
      st = sp_gpu_stream_wait(va->d->id, va->d->stream, which ? m->sl[b]->ev_use : m->sl[b]->ev_w);
      if (st) return st;
    }
  }
  return SP_OK;
}

/* Copy slice a's part of w (buffer m->cur), or the 16 bytes of its sums
 * slot `slot`, to every other slice, then record ev_w. */
static int lrmd_share(lrmd_model *m, lrmd_slice *va, int slot) {
  const size_t rb = lrmd_rb(m->job);
  int b, st;
  if (m->nslice == 1) return SP_OK;
  for (b = 0; b < m->nslice; b++) {
    lrmd_slice *vb = m->sl[b];
    size_t off, bytes;
    if (b == va->d->index) continue;
    if (slot < 0) {
      off = (size_t)va->i0 * 2 * rb;
      bytes = (size_t)(va->i1 - va->i0) * 2 * rb;
      st = sp_gpu_copy_async(va->d->id, vb->w[m->cur] + off, va->w[m->cur] + off, bytes,
                             va->d->stream);
    } else {
      off = (size_t)(2 * (va->d->index * SP_LRMD_SLOTS + slot)) * sizeof(double);
      st = sp_gpu_copy_async(va->d->id, vb->sums + off, va->sums + off, 2 * sizeof(double),
                             va->d->stream);
    }
    if (st) return st;
  }
  return sp_gpu_event_record(va->d->id, va->ev_w, va->d->stream);
}

/* The HMF pass's kernel: one system's, or that of systems side by side. */
static const char *lrmd_hmf_name(const lrmd_model *m) {
  return m->nsys > 1 ? "sp_lrmd_hmf_systems_kernel" : "sp_lrmd_hmf_kernel";
}

/* HMF: one pass on every slice (see lrmd.cu): [kick by d from slot kslot,]
 * drift by c [and c2], sums into `slot`. */
static int lrmd_hmf_pass(lrmd_model *m, int kick, int kslot, double d, double c, int fuse,
                         double c2, int slot) {
  int a, st;
  if ((st = lrmd_wait_others(m, 0))) return st;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    sp_lrmd_kargs g = lrmd_args(m, v);
    g.kick = kick;
    g.kslot = kslot;
    g.d = kick ? d : 0.0;
    g.c = c;
    g.fuse = fuse;
    g.c2 = fuse ? c2 : 0.0;
    g.slot = slot;
    g.nblocks = (int32_t)v->nb_hmf;
    if ((st = sp_gpu_activate(v->d->id)) ||
        (st = lrmd_launch1(v, v->hmf, v->nb_hmf * (unsigned)m->nsys, &g, lrmd_hmf_name(m))) ||
        (st = lrmd_share(m, v, slot)))
      return st;
  }
  return SP_OK;
}

/* Ring, gravity2d: drift every slice by c and share w. */
static int lrmd_pair_drift(lrmd_model *m, double c) {
  int a, st;
  if ((st = lrmd_wait_others(m, 1))) return st;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    sp_lrmd_kargs g = lrmd_args(m, v);
    g.c = c;
    g.nblocks = (int32_t)v->nb;
    if ((st = sp_gpu_activate(v->d->id)) ||
        (st = lrmd_launch1(v, v->drift, v->nb * (unsigned)m->nsys, &g, "sp_lrmd_drift_kernel")) ||
        (st = lrmd_share(m, v, -1)))
      return st;
  }
  return lrmd_wait_others(m, 0);
}

/* Ring, gravity2d: forces and the kick by d on every slice. */
static int lrmd_pair_kick(lrmd_model *m, double d) {
  int a, st;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    const unsigned nbs = v->nb * (unsigned)v->nsplit; /* blocks a system */
    sp_lrmd_kargs g = lrmd_args(m, v);
    g.d = d;
    g.nblocks = (int32_t)nbs;
    if ((st = sp_gpu_activate(v->d->id)) ||
        (st = lrmd_launch1(v, v->pairs, nbs * (unsigned)m->nsys, &g, "sp_lrmd_pairs_kernel")))
      return st;
    g.nblocks = (int32_t)v->nb;
    if (v->nsplit > 1 &&
        (st = lrmd_launch1(v, v->kick, v->nb * (unsigned)m->nsys, &g, "sp_lrmd_kick_kernel")))
      return st;
    if (m->nslice > 1 && (st = sp_gpu_event_record(v->d->id, v->ev_use, v->d->stream))) return st;
  }
  return SP_OK;
}

/* Ring, gravity2d with the fused pair pass: forces, the kick by d and the
 * drift by c (and c2 with fuse) on every slice, w of the drifted positions
 * into the other buffer, shared; that buffer becomes the current one. */
static int lrmd_pair_fused(lrmd_model *m, double d, double c, int fuse, double c2) {
  int a, st;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    const unsigned nbs = v->nb * (unsigned)v->nsplit; /* blocks a system */
    sp_lrmd_kargs g = lrmd_args(m, v);
    g.d = d;
    g.c = c;
    g.fuse = fuse;
    g.c2 = fuse ? c2 : 0.0;
    g.nblocks = (int32_t)nbs;
    if ((st = sp_gpu_activate(v->d->id)) ||
        (st = lrmd_launch1(v, v->fused, nbs * (unsigned)m->nsys, &g,
                           "sp_lrmd_pairs_fused_kernel")))
      return st;
    if (m->nslice > 1 && (st = sp_gpu_event_record(v->d->id, v->ev_use, v->d->stream))) return st;
  }
  m->cur = 1 - m->cur;
  if (m->nslice == 1) return SP_OK;
  /* the others are done with their buffers: copy into them, then wait for
   * the others' copies */
  if ((st = lrmd_wait_others(m, 1))) return st;
  for (a = 0; a < m->nslice; a++)
    if ((st = sp_gpu_activate(m->sl[a]->d->id)) || (st = lrmd_share(m, m->sl[a], -1))) return st;
  return lrmd_wait_others(m, 0);
}

/* Enqueue the record kernels when step m->k records. */
static int lrmd_enqueue_record(lrmd_model *m) {
  int a, st;
  if (m->k % m->job->record_every != 0) return SP_OK;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    sp_lrmd_kargs g = lrmd_args(m, v);
    g.nblocks = (int32_t)v->nb;
    g.step = m->k; /* the step recorded */
    if ((st = sp_gpu_activate(v->d->id)) ||
        (st = lrmd_launch1(v, v->energy, v->nb * (unsigned)m->nsys, &g, "sp_lrmd_energy_kernel")))
      return st;
    if (m->nslice > 1 && (st = sp_gpu_event_record(v->d->id, v->ev_use, v->d->stream))) return st;
  }
  return SP_OK;
}

/* Copy each slice's particles of array `which` (0 q0, 1 q1, 2 p0, 3 p1) of
 * system sys to dst (n doubles). */
static int lrmd_gather(lrmd_model *m, int which, uint64_t sys, double *dst) {
  int a, st;
  for (a = 0; a < m->nslice; a++) {
    lrmd_slice *v = m->sl[a];
    CUdeviceptr src = which == 0 ? v->q0 : which == 1 ? v->q1 : which == 2 ? v->p0 : v->p1;
    st = sp_gpu_to_host(v->d->id, dst + v->i0, src + (sys * m->stride + v->i0) * sizeof(double),
                        (size_t)(v->i1 - v->i0) * sizeof(double));
    if (st) return st;
  }
  return SP_OK;
}

/* With the streams idle at step m->k: its records and snapshots. */
static int lrmd_observe(lrmd_model *m) {
  const sp_lrmd_job *job = m->job;
  const uint64_t n = job->n;
  int st = SP_OK, a, w;
  uint64_t sys;
  if (m->k_obs == m->k) return SP_OK;
  m->k_obs = m->k;
  for (a = 0; a < m->nslice; a++)
    if ((st = sp_gpu_stream_sync(m->sl[a]->d->id, m->sl[a]->d->stream))) return st;
  if (m->k % job->record_every == 0) {
    /* the blocks' sums (sp_lrmd_energy_kernel) in slice and block order */
    const int two_d = job->model == SP_LRMD_GRAVITY2D;
    const uint64_t nrec = sp_lrmd_nrec(job);
    unsigned nbmax = 0;
    memset(m->sums, 0, (size_t)m->nsys * sizeof *m->sums);
    for (a = 0; a < m->nslice; a++) {
      lrmd_slice *v = m->sl[a];
      unsigned b;
      if ((st = sp_gpu_to_host(v->d->id, m->part, v->partial,
                               ((size_t)(m->nsys - 1) * v->npart + (size_t)v->nb * SP_LRMD_NSUMS) *
                                 sizeof(double))))
        return st;
      for (sys = 0; sys < m->nsys; sys++) {
        sp_lrmd_sums *s = m->sums + sys;
        for (b = 0; b < v->nb; b++) {
          const double *p = m->part + sys * v->npart + SP_LRMD_NSUMS * b;
          s->kin += p[0];
          s->pot += p[1];
          if (two_d) {
            s->vir += p[2];
          } else {
            s->c += p[2];
            s->s += p[3];
          }
        }
      }
      if (v->nb > nbmax) nbmax = v->nb;
    }
    /* gravity2d: each system's positions for the half-mass radius, work
     * after the first system's block sums (added above) */
    for (sys = 0; sys < m->nsys; sys++) {
      if (two_d &&
          ((st = lrmd_gather(m, 0, sys, m->host)) || (st = lrmd_gather(m, 1, sys, m->host + n))))
        return st;
      st = sp_lrmd_record_make(job, m->k, m->sums + sys, m->host, m->host + n,
                               m->part + SP_LRMD_NSUMS * nbmax,
                               m->out->rec + SP_LRMD_NREC * (sys * nrec + m->k / job->record_every));
      if ((st = lrmd_system_fail(m, sys, st))) return st;
    }
  }
  while (m->snap_next < job->nsnap && job->snap_steps[m->snap_next] == m->k) {
    double *const *s = m->out->snap + 4 * (size_t)m->snap_next;
    for (w = 0; w < 4; w++)
      for (sys = 0; s[w] != NULL && sys < m->nsys; sys++)
        if ((st = lrmd_gather(m, w, sys, s[w] + sys * n))) return st;
    m->snap_next++;
  }
  return SP_OK;
}

/* The parts of the sources of the pair pass.  The blocks of a pass (tiles
 * of targets x parts) run in waves of `slots` (resident blocks a
 * multiprocessor x multiprocessors), and a pass lasts about as many waves
 * as it starts, each as long as a block: ceil(tiles ns / slots) (n / ns +
 * c) with ns parts of n / ns sources and c = one tile's worth of a block's
 * fixed cost (its set-up, the first tile's load, its sums' store).  The
 * parts are those of least cost (the fewest of those within 1 per cent):
 * at small n as many as make one full wave, at large n enough to cut the
 * last, partly empty wave (n = 2e5 on an H100: 782 tiles in 1056 slots
 * fill 0.74 of one wave; 4 parts fill 0.99 of 3).  Resident blocks: the
 * fewer of the fused and the separate kernel's, so that both cut the
 * sources alike and give the same numbers bit for bit.  The parts' sums
 * cost 16 n bytes a part: at most LRMD_MAX_SPLIT parts, at most
 * LRMD_SPLIT_BYTES in all, at least 32 sources a part.  want_bps > 0
 * (option statphysgpu.lrmd_blocks_per_sm): cut for that many blocks an SM
 * instead -- fewer than fit make fewer, longer parts; more than fit, more
 * and shorter parts in several waves.  The resident blocks are those of
 * `pairs` and `fused`, the one-system module's kernels (for systems side by
 * side too: each system is cut as in its run alone). */
static int lrmd_split(lrmd_slice *v, uint64_t n, int want_bps, CUfunction pairs,
                      CUfunction fused) {
  int bps = 0, bps_fused = 0, st;
  uint64_t slots, maxns, ns, best_ns = 1, chunk;
  double best = 0;
  if ((st = sp_gpu_occupancy(v->d->id, pairs, SP_LRMD_BLOCK, 0, &bps)) ||
      (st = sp_gpu_occupancy(v->d->id, fused, SP_LRMD_BLOCK, 0, &bps_fused)))
    return st;
  if (bps_fused < bps) bps = bps_fused;
  if (want_bps > 0) bps = want_bps;
  if (bps < 1) bps = 1;
  slots = (uint64_t)bps * (uint64_t)(v->d->info.multiprocessors > 0 ? v->d->info.multiprocessors : 1);
  maxns = LRMD_MAX_SPLIT;
  if (maxns > n / 32) maxns = n / 32; /* parts of at least 32 sources */
  if (maxns > LRMD_SPLIT_BYTES / (16 * n)) maxns = LRMD_SPLIT_BYTES / (16 * n);
  for (ns = 1; ns <= maxns || ns == 1; ns++) {
    const uint64_t waves = ((uint64_t)v->nb * ns + slots - 1) / slots;
    const double cost = (double)waves * ((double)((n + ns - 1) / ns) + SP_LRMD_BLOCK);
    if (ns == 1 || cost < 0.99 * best) {
      best = cost;
      best_ns = ns;
    }
  }
  if (best_ns < 2) {
    v->nsplit = 1;
    v->chunk = n;
    return SP_OK;
  }
  chunk = (n + best_ns - 1) / best_ns;
  v->nsplit = (int)((n + chunk - 1) / chunk);
  v->chunk = chunk;
  return SP_OK;
}

/* The start, once every slice is set up: w of the start (ring, gravity2d),
 * the record and snapshot of step 0. */
static int lrmd_start(lrmd_model *m) {
  int st, a;
  m->label = 0;
  if (m->job->model != SP_LRMD_HMF && (st = lrmd_pair_drift(m, 0.0))) return st;
  if ((st = lrmd_enqueue_record(m))) return st;
  if ((st = lrmd_check_state(m))) return st;
  if ((st = lrmd_observe(m))) return st;
  for (a = 0; a < m->nslice; a++) m->sl[a]->d->idle = m->job->steps == 0;
  return SP_OK;
}

/* The buffers of the draws: the tiles' sums and the table of
 * hmf_equilibrium() (for the kappa it holds), on the device and the host. */
typedef struct {
  CUdeviceptr dpart, dtab;
  double *part, *tab;
  double kappa; /* of the table held (NAN: none) */
} lrmd_draw_buf;

/* A start the engine draws (s) of system sys: the passes of lrmd_start.h on
 * the slice's device, each slice the whole system (the same kernels and
 * grid on every device, so every slice gets the same numbers), the tiles'
 * sums added on the host in tile order as on the CPU. */
static int lrmd_draw(lrmd_model *m, lrmd_slice *v, const sp_lrmd_start *s, uint64_t sys,
                     lrmd_draw_buf *buf) {
  const uint64_t n = m->job->n, ntile = sp_lrmd_start_tiles(n);
  const size_t pbytes = (size_t)ntile * SP_LRMD_START_NSUMS * sizeof(double);
  const int table = s->kind == SP_LRMD_START_EQUILIBRIUM && s->b > 0;
  const size_t tbytes = 2 * (SP_LRMD_VM_GRID + 1) * sizeof(double);
  const size_t off = (size_t)(sys * m->stride) * sizeof(double);
  sp_lrmd_start_kargs a;
  sp_lrmd_start_consts k;
  double *tab = buf->tab;
  int st = SP_OK, pass;
  if (s->n != n)
    return sp_fail(SP_ERR_INVALID, "the start has %.0f particles, the job %.0f", (double)s->n,
                   (double)n);
  if (ntile > 0x7fffffffu)
    return sp_fail(SP_ERR_INVALID, "too many particles for one launch on %s",
                   sp_gpu_label(v->d->id));
  if (buf->dpart == 0 &&
      (st = sp_gpu_dev_alloc(v->d, pbytes, "the sums of the start's draw", &buf->dpart)))
    return st;
  if (table && buf->dtab == 0 &&
      (st = sp_gpu_dev_alloc(v->d, tbytes + SP_LRMD_VM_GUIDE * sizeof(int32_t),
                             "the table of the start's angles", &buf->dtab)))
    return st;
  if (buf->part == NULL) buf->part = (double *)malloc(pbytes);
  if (table && tab == NULL)
    tab = buf->tab = (double *)malloc(tbytes + SP_LRMD_VM_GUIDE * sizeof(int32_t));
  if (buf->part == NULL || (table && tab == NULL))
    return sp_fail(SP_ERR_NOMEM, "out of host memory drawing the start of %.0f particles",
                   (double)n);
  memset(&a, 0, sizeof a);
  memset(&k, 0, sizeof k);
  a.seed = s->seed;
  a.replica = s->replica;
  a.n = n;
  a.a = s->a;
  a.b = s->b;
  a.kind = s->kind;
  a.q0 = v->q0 + off;
  a.q1 = v->q1 + off;
  a.p0 = v->p0 + off;
  a.partial = buf->dpart;
  if (table) {
    a.cdf = buf->dtab;
    a.grid = buf->dtab + (SP_LRMD_VM_GRID + 1) * sizeof(double);
    a.guide = buf->dtab + tbytes;
    if (!(buf->kappa == s->b)) { /* the table of this kappa, unless held */
      sp_lrmd_vm_table(s->b, tab, tab + SP_LRMD_VM_GRID + 1,
                       (int32_t *)(tab + 2 * (SP_LRMD_VM_GRID + 1)));
      st = sp_gpu_to_device(v->d->id, buf->dtab, tab, tbytes + SP_LRMD_VM_GUIDE * sizeof(int32_t));
      buf->kappa = st == SP_OK ? s->b : NAN;
    }
  }
  /* the momenta p1 of the shell: zero */
  if (st == SP_OK && s->kind == SP_LRMD_START_SHELL)
    st = sp_gpu_memset0(v->d->id, v->p1 + off, n * sizeof(double));
  for (pass = 0, k.passes = 1; st == SP_OK && pass < k.passes; pass++) {
    a.pass = pass;
    a.shift0 = k.shift0;
    a.shift1 = k.shift1;
    a.scale = k.scale;
    st = sp_gpu_launch(v->d->id, v->start, (unsigned)ntile, SP_LRMD_START_THREADS, 0,
                       v->d->stream, &a, "sp_lrmd_start_kernel");
    if (st == SP_OK && (pass == 0 || (pass == 1 && k.passes == 3)) &&
        (st = sp_gpu_stream_sync(v->d->id, v->d->stream)) == SP_OK &&
        (st = sp_gpu_to_host(v->d->id, buf->part, buf->dpart, pbytes)) == SP_OK) {
      if (pass == 0) st = sp_lrmd_start_after0(s, buf->part, ntile, &k);
      else sp_lrmd_start_after1(s, buf->part, ntile, &k);
    }
  }
  if (st == SP_OK) m->out->pmax[sys] = k.pmax;
  /* the last pass done before the next system's draw reuses the buffers */
  if (st == SP_OK) st = sp_gpu_stream_sync(v->d->id, v->d->stream);
  return lrmd_system_fail(m, sys, st);
}

/* Every system's start on the slice: drawn, or the job's columns (or the
 * out arrays) copied. */
static int lrmd_starts(lrmd_model *m, lrmd_slice *v) {
  const sp_lrmd_job *job = m->job;
  const uint64_t n = job->n;
  const int two_d = job->model == SP_LRMD_GRAVITY2D;
  lrmd_draw_buf buf;
  uint64_t sys;
  int st = SP_OK, c;
  memset(&buf, 0, sizeof buf);
  buf.kappa = NAN;
  for (sys = 0; sys < m->nsys && st == SP_OK; sys++) {
    sp_lrmd_start tmp;
    const sp_lrmd_start *s = sp_lrmd_system_start(job, sys, &tmp);
    if (s != NULL) {
      st = lrmd_draw(m, v, s, sys, &buf);
      continue;
    }
    for (c = 0; c < 4 && st == SP_OK; c++) {
      const double *src = job->in[0] != NULL ? job->in[c]
                          : c == 0           ? m->out->q0
                          : c == 1           ? m->out->q1
                          : c == 2           ? m->out->p0
                                             : m->out->p1;
      const CUdeviceptr dst = c == 0 ? v->q0 : c == 1 ? v->q1 : c == 2 ? v->p0 : v->p1;
      if (two_d || c % 2 == 0)
        st = sp_gpu_to_device(v->d->id, dst + (size_t)(sys * m->stride) * sizeof(double),
                              src + sys * n, n * sizeof(double));
    }
  }
  if (st == SP_OK) m->out->start_pmax = m->out->pmax[0];
  free(buf.part);
  free(buf.tab);
  return st;
}

static int lrmd_setup(void *model, sp_gpu_dev *d) {
  lrmd_model *m = (lrmd_model *)model;
  const sp_lrmd_job *job = m->job;
  lrmd_slice *v = (lrmd_slice *)d->state;
  const uint64_t n = job->n;
  const size_t rb = lrmd_rb(job);
  const int fused = job->fused && job->model != SP_LRMD_HMF;
  uint64_t target, nb;
  size_t np;
  int st, a;
  v->d = d;
  m->sl[d->index] = v;
  v->i0 = n * (uint64_t)d->index / (uint64_t)m->nslice;
  v->i1 = n * (uint64_t)(d->index + 1) / (uint64_t)m->nslice;
  nb = (v->i1 - v->i0 + SP_LRMD_BLOCK - 1) / SP_LRMD_BLOCK;
  if (nb == 0) nb = 1;
  if (nb > 0x7fffffffu / LRMD_MAX_SPLIT)
    return sp_fail(SP_ERR_INVALID, "too many particles for one launch on %s", sp_gpu_label(d->id));
  v->nb = (unsigned)nb;
  /* the HMF pass: about 8 blocks per multiprocessor, grid-stride beyond */
  target = (uint64_t)8 * (uint64_t)(d->info.multiprocessors > 0 ? d->info.multiprocessors : 1);
  v->nb_hmf = (unsigned)(nb < target ? nb : target);
  if ((uint64_t)nb * m->nsys > 0x7fffffffu)
    return sp_fail(SP_ERR_INVALID, "too many systems of %.0f particles for one launch on %s",
                   (double)n, sp_gpu_label(d->id));
  v->nsplit = 1;
  v->chunk = n;
  /* (systems side by side: the module compiled for them, lrmd.cu) */
  if ((st = sp_gpu_function(d->id, m->key, lrmd_hmf_name(m), &v->hmf)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_drift_kernel", &v->drift)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_pairs_kernel", &v->pairs)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_pairs_fused_kernel", &v->fused)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_kick_kernel", &v->kick)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_energy_kernel", &v->energy)) ||
      (st = sp_gpu_function(d->id, m->key, "sp_lrmd_start_kernel", &v->start)))
    return st;
  if (job->model != SP_LRMD_HMF) {
    /* the parts of a run alone: from the one-system module's pair kernels */
    CUfunction pairs1 = v->pairs, fused1 = v->fused;
    if (m->nsys > 1 &&
        ((st = sp_gpu_function(d->id, job->keys[0], "sp_lrmd_pairs_kernel", &pairs1)) ||
         (st = sp_gpu_function(d->id, job->keys[0], "sp_lrmd_pairs_fused_kernel", &fused1))))
      return st;
    if ((st = lrmd_split(v, n, job->blocks_per_sm, pairs1, fused1))) return st;
    if ((uint64_t)nb * (uint64_t)v->nsplit * m->nsys > 0x7fffffffu)
      return sp_fail(SP_ERR_INVALID, "too many systems of %.0f particles for one launch on %s",
                     (double)n, sp_gpu_label(d->id));
  }
  /* the job's memory in a few buffers (the first is most of it, so that a
   * job that cannot fit fails with its size); every array holds the nsys
   * systems, stride particles apart */
  np = (size_t)(m->nsys * m->stride); /* particles of an array */
  if ((st = sp_gpu_dev_alloc(d, 4 * np * sizeof(double) + (fused ? 4 : 2) * np * rb,
                             "the phase space (positions, momenta, force inputs)", &v->q0)))
    return st;
  v->q1 = v->q0 + np * sizeof(double);
  v->p0 = v->q1 + np * sizeof(double);
  v->p1 = v->p0 + np * sizeof(double);
  v->w[0] = v->p1 + np * sizeof(double);
  v->w[1] = fused ? v->w[0] + 2 * np * rb : v->w[0];
  v->npart = (uint64_t)(nb > v->nb_hmf ? nb : v->nb_hmf) * SP_LRMD_NSUMS;
  if ((st = sp_gpu_dev_alloc(d, (size_t)(m->nsys * v->npart) * sizeof(double), "the block sums",
                             &v->partial)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)(m->nsys * m->nslice * SP_LRMD_SLOTS * 2) * sizeof(double),
                             "the magnetisations", &v->sums)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)m->nsys * sizeof(unsigned int), "the block counters",
                             &v->count)) ||
      (st = sp_gpu_dev_alloc(d, (size_t)m->nsys * 2 * sizeof(unsigned long long),
                             "the non-finite flags", &v->bad)) ||
      (st = sp_gpu_memset32(d->id, v->bad, 0xffffffffu, (size_t)m->nsys * 4)))
    return st;
  /* the parts' force sums and the part counters, each system's (lrmd.cu) */
  if (v->nsplit > 1 &&
      (st = sp_gpu_dev_alloc(d, (size_t)(m->nsys * v->nsplit * 2 * n) * sizeof(double),
                             "the force sums of the parts", &v->fpart)))
    return st;
  if (v->nsplit > 1 && fused &&
      ((st = sp_gpu_dev_alloc(d, (size_t)(m->nsys * nb) * sizeof(unsigned int),
                              "the part counters", &v->tcount)) ||
       (st = sp_gpu_memset0(d->id, v->tcount, (size_t)(m->nsys * nb) * sizeof(unsigned int)))))
    return st;
  if (m->nslice > 1 && ((st = sp_gpu_dev_event(d, &v->ev_w)) || (st = sp_gpu_dev_event(d, &v->ev_use))))
    return st;
  /* the starts: drawn here, or the job's columns (or the out arrays) */
  if ((st = lrmd_starts(m, v))) return st;
  if ((st = sp_gpu_memset0(d->id, v->count, (size_t)m->nsys * sizeof(unsigned int))) ||
      (st = sp_gpu_memset0(d->id, v->sums,
                           (size_t)(m->nsys * m->nslice * SP_LRMD_SLOTS * 2) * sizeof(double))))
    return st;
  /* direct access between distinct devices where they allow it */
  for (a = 0; a < d->index; a++) {
    int id = m->sl[a]->d->id, on;
    if (id == d->id) continue;
    if ((st = sp_gpu_enable_peer(d->id, id, &on)) || (st = sp_gpu_enable_peer(id, d->id, &on)))
      return st;
  }
  d->idle = 0;
  if (++m->nready == m->nslice) return lrmd_start(m);
  return SP_OK;
}

/* One step of HMF (three or four passes; see the top). */
static int lrmd_hmf_step(lrmd_model *m, int *fused_in, uint64_t end) {
  const double dt = m->job->dt;
  const uint64_t next = m->k + 1;
  int st, fuse;
  if (!*fused_in && (st = lrmd_hmf_pass(m, 0, 0, 0.0, sp_lrmd_drift_coef(0) * dt, 0, 0.0, 0)))
    return st;
  if ((st = lrmd_hmf_pass(m, 1, 0, sp_lrmd_kick_coef(0) * dt, sp_lrmd_drift_coef(1) * dt, 0, 0.0, 1)) ||
      (st = lrmd_hmf_pass(m, 1, 1, sp_lrmd_kick_coef(1) * dt, sp_lrmd_drift_coef(2) * dt, 0, 0.0, 2)))
    return st;
  fuse = next < end && !lrmd_stop(m, next);
  st = lrmd_hmf_pass(m, 1, 2, sp_lrmd_kick_coef(2) * dt, sp_lrmd_drift_coef(3) * dt, fuse,
                     sp_lrmd_drift_coef(0) * dt, fuse ? 0 : 3);
  *fused_in = fuse;
  return st;
}

/* One step of ring or gravity2d with the fused pair pass: [drift,] three
 * fused passes, the last drifting on into the next step inside a round. */
static int lrmd_pair_fused_step(lrmd_model *m, int *fused_in, uint64_t end) {
  const double dt = m->job->dt;
  const uint64_t next = m->k + 1;
  int st, s, fuse = 0;
  if (!*fused_in && (st = lrmd_pair_drift(m, sp_lrmd_drift_coef(0) * dt))) return st;
  for (s = 0; s < 3; s++) {
    fuse = s == 2 && next < end && !lrmd_stop(m, next);
    if ((st = lrmd_pair_fused(m, sp_lrmd_kick_coef(s) * dt, sp_lrmd_drift_coef(s + 1) * dt, fuse,
                              sp_lrmd_drift_coef(0) * dt)))
      return st;
  }
  *fused_in = fuse;
  return SP_OK;
}

/* The first write of the host arrays the final state is copied into (fresh
 * pages of R vectors), on the package's threads: the copy from the device
 * (pageable memory, one thread) then finds them mapped.  Done while the
 * device runs a round of 16 steps or more, or else before the copy. */
static void lrmd_touch(lrmd_model *m) {
  double *cols[4];
  if (m->touched) return;
  m->touched = 1;
  cols[0] = m->out->q0;
  cols[1] = m->out->p0;
  cols[2] = m->job->model == SP_LRMD_GRAVITY2D ? m->out->q1 : NULL;
  cols[3] = m->job->model == SP_LRMD_GRAVITY2D ? m->out->p1 : NULL;
  sp_lrmd_touch(cols, cols[2] != NULL ? 4 : 2, m->job->n * m->nsys, sp_threads_get());
}

static int lrmd_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  lrmd_model *m = (lrmd_model *)model;
  const sp_lrmd_job *job = m->job;
  uint64_t end = m->k + budget;
  int st = SP_OK, fused_in = 0;
  if (d->index != 0) return SP_OK; /* the first device enqueues for all */
  if (end > job->steps) end = job->steps;
  while (m->k < end && st == SP_OK) {
    m->label = m->k + 1;
    if (job->model == SP_LRMD_HMF) {
      st = lrmd_hmf_step(m, &fused_in, end);
    } else if (job->fused) {
      st = lrmd_pair_fused_step(m, &fused_in, end);
    } else {
      int s;
      for (s = 0; s < 4 && st == SP_OK; s++) {
        st = lrmd_pair_drift(m, sp_lrmd_drift_coef(s) * job->dt);
        if (st == SP_OK && s < 3) st = lrmd_pair_kick(m, sp_lrmd_kick_coef(s) * job->dt);
      }
    }
    m->k++;
    if (st == SP_OK && lrmd_stop(m, m->k)) {
      st = lrmd_enqueue_record(m);
      break; /* observed when polled */
    }
  }
  if (st == SP_OK && budget >= 16) lrmd_touch(m); /* while the device runs the round */
  return st;
}

static int lrmd_poll(void *model, sp_gpu_dev *d) {
  lrmd_model *m = (lrmd_model *)model;
  int st = SP_OK;
  /* the state first: a record of a non-finite state is not the failure */
  if (d->index == 0) st = lrmd_check_state(m);
  if (st == SP_OK && d->index == 0 && lrmd_stop(m, m->k)) st = lrmd_observe(m);
  d->done = d->index == 0 ? (double)m->k : 0.0;
  d->idle = m->k >= m->job->steps;
  return st;
}

static int lrmd_collect(void *model, sp_gpu_dev *d, int interrupted) {
  lrmd_model *m = (lrmd_model *)model;
  sp_lrmd_out *out = m->out;
  lrmd_slice *v = (lrmd_slice *)d->state;
  const size_t bytes = (size_t)(v->i1 - v->i0) * sizeof(double);
  uint64_t sys;
  int st;
  (void)interrupted; /* the state is that after the last step made (every system's) */
  lrmd_touch(m);
  if ((st = sp_gpu_stream_sync(d->id, d->stream))) return st;
  for (sys = 0; sys < m->nsys; sys++) {
    const size_t off = (size_t)(sys * m->stride + v->i0) * sizeof(double);
    const uint64_t at = sys * m->job->n + v->i0;
    if ((st = sp_gpu_to_host(d->id, out->q0 + at, v->q0 + off, bytes)) ||
        (st = sp_gpu_to_host(d->id, out->p0 + at, v->p0 + off, bytes)))
      return st;
    /* q1, p1 of the one-dimensional models: the zeros they came in as */
    if (m->job->model == SP_LRMD_GRAVITY2D &&
        ((st = sp_gpu_to_host(d->id, out->q1 + at, v->q1 + off, bytes)) ||
         (st = sp_gpu_to_host(d->id, out->p1 + at, v->p1 + off, bytes))))
      return st;
  }
  out->steps_done = m->k;
  return SP_OK;
}

int sp_gpu_lrmd(const char *key, const void *vjob, void *vout, const int *devices, int ndev,
                const sp_hooks *hooks, sp_run_info *info) {
  const sp_lrmd_job *job = (const sp_lrmd_job *)vjob;
  sp_lrmd_out *out = (sp_lrmd_out *)vout;
  lrmd_model m;
  sp_gpu_engine e;
  size_t nbmax;
  int st;
  if (ndev < 1 || ndev > SP_GPU_MAX_DEVICES)
    return sp_fail(SP_ERR_INVALID, "lrmd needs 1 to %d devices, not %d", SP_GPU_MAX_DEVICES, ndev);
  if ((uint64_t)ndev > job->n)
    return sp_fail(SP_ERR_INVALID, "%.0f particles cannot be split over %d devices",
                   (double)job->n, ndev);
  if (job->nsys > 1 && ndev > 1)
    return sp_fail(SP_ERR_INVALID, "internal error: systems side by side run on one device, "
                                   "one slice");
  if (job->nsys > 1 && job->model != SP_LRMD_HMF && (job->nkeys != 1 || job->keys == NULL))
    return sp_fail(SP_ERR_INVALID, "internal error: ring and gravity2d systems side by side "
                                   "need the key of the module of one system");
  memset(&m, 0, sizeof m);
  m.key = key;
  m.job = job;
  m.out = out;
  m.nslice = ndev;
  m.k_obs = UINT64_MAX;
  m.nsys = job->nsys;
  /* one system: its arrays as they are; several: 256-byte aligned */
  m.stride = job->nsys == 1 ? job->n : (job->n + 31) / 32 * 32;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(lrmd_slice);
  e.total = (double)job->steps;
  e.budget0 = 1;
  e.budget_max = 1u << 20;
  e.setup = lrmd_setup;
  e.launch = lrmd_launch;
  e.poll = lrmd_poll;
  e.collect = lrmd_collect;
  nbmax = (size_t)((job->n + SP_LRMD_BLOCK - 1) / SP_LRMD_BLOCK) + 1;
  /* (touched only for records of gravity2d) */
  m.host = (double *)malloc(2 * job->n * sizeof(double));
  m.part = (double *)malloc((m.nsys * nbmax * SP_LRMD_NSUMS + job->n) * sizeof(double));
  m.sums = (sp_lrmd_sums *)malloc(m.nsys * sizeof *m.sums);
  m.flag = (unsigned long long *)malloc(m.nsys * 2 * sizeof *m.flag);
  if (m.host == NULL || m.part == NULL || m.sums == NULL || m.flag == NULL) {
    st = sp_fail(SP_ERR_NOMEM, "out of host memory for %.0f particles",
                 (double)(job->n * job->nsys));
  } else {
    st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  }
  free(m.host);
  free(m.part);
  free(m.sums);
  free(m.flag);
  return st;
}
