/* sp_gpu_sde.c: host side of inst/cuda/sde.cu (a user's SDE model), an
 * engine of the GPU round driver (sp_gpu_run.h).
 *
 * passage: persistent lanes take paths from one counter (sp_sde_passage_kernel);
 *   with several devices, each runs the call's blocks of SP_SDE_DEV_BLOCK
 *   paths in turn (device i the blocks i, i + ndev, ...: every condition
 *   spread over all), from a counter and arrays of its own; the host puts
 *   each device's values in the call's order at the end (a path's numbers
 *   depend on its stream, not on its device);
 * fixed length: all paths advance together to the next record step in
 *   launches of at most `budget` steps; a round enqueues launches up to
 *   SDE_REC_SLOTS records (each record's statistics in its own slot,
 *   the stream running on without the host between them); a record's tile
 *   statistics are reduced on the device (sp_sde_tiles_kernel, a fixed
 *   tree: the CPU's sequential combination to rounding), the poll reads
 *   the slots, and the next round's launch stores them while its kernels
 *   run (the last round's: the collection).  Combined on the host, tile by
 *   tile between the rounds, records cost a Lorenz model recording every
 *   100 steps a third of its rate at 2^24 replicas.  A model with time
 *   terms (sde.cu: subexpressions of t and the parameters only) has them
 *   tabulated before each launch for its steps and every condition
 *   (sp_sde_time_kernel), read by sp_sde_fixed_tab_kernel: launches then
 *   span at most SDE_TAB_BYTES of table; where a launch of SDE_TAB_MIN_STEPS
 *   would not fit (a sweep of very many conditions), sp_sde_fixed_kernel
 *   computes them as it goes. */
#include "sp_gpu_sde.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "sp_gpu_run.h"
#include "philox.h"

/* Blocks of SP_SDE_BLOCK threads for n threads. */
static unsigned int sde_grid(uint64_t n) {
  return (unsigned int)((n + SP_SDE_BLOCK - 1) / SP_SDE_BLOCK);
}

typedef struct {
  const char *key;
  const sp_sde_args *a;
  sp_sde_out *out;
  uint64_t total;
  int ndev; /* passage: devices sharing the paths (fixed length: the first runs) */
  unsigned long long bad; /* path << 8 | state, or SP_SDE_NO_PATH */
  uint64_t bad_k;
  int bad_stalled; /* the failure of path `bad`: 1 stalled (sde_engine.h), 0 non-finite */
  double *htiles; /* the tile statistics of a record, on the host */
} sde_model;

/* Records a round may enqueue (their slots of tile statistics), and the
 * most memory the slots may take together. */
#define SDE_REC_SLOTS 256
#define SDE_REC_SLOT_BYTES ((size_t)64 << 20)

/* The time terms' table: its most bytes, and the fewest steps a launch
 * must be able to span for the table to be used. */
#define SDE_TAB_BYTES ((size_t)32 << 20)
#define SDE_TAB_MIN_STEPS 64u

typedef struct {
  int used;
  CUfunction kern, start, compact, reduce;
  CUfunction timek;       /* the time terms' table (0: none; kern computes them) */
  int nt;                 /* the model's time terms (SP_SDE_NT) */
  uint64_t tab_steps;     /* the most steps of a launch with the table */
  int slots;              /* record slots of the reduced statistics */
  size_t slot_bytes;      /* bytes of one slot */
  CUdeviceptr red;        /* the slots */
  uint64_t kend_round;    /* fixed length: the step the round's launches reach */
  uint64_t rec_round;     /* and the records they make */
  uint64_t pending, pending0; /* records read into the host's slots, not yet combined, from
                                 record pending0 */
  CUdeviceptr lane_pid[2], lane_k[2], lane_x[2]; /* two lane buffers (compaction) */
  int cur;
  unsigned long long hnext;
  sp_sde_kargs k; /* the device buffers and the run */
  CUdeviceptr counters;
  uint64_t ntiles, cells;
  sp_sde_counters hc;
  uint64_t mine; /* passage: the device's paths (k.total) */
} sde_dev;

/* The paths of device i of ndev in a passage run of total paths: the
 * blocks of SP_SDE_DEV_BLOCK i, i + ndev, ... (the last block may be short). */
static uint64_t sde_dev_paths(uint64_t total, int i, int ndev) {
  const uint64_t B = SP_SDE_DEV_BLOCK, nb = (total + B - 1) / B, n = (uint64_t)ndev;
  uint64_t blocks, paths;
  if (ndev <= 1) return total;
  if ((uint64_t)i >= nb) return 0;
  blocks = (nb - (uint64_t)i + n - 1) / n;
  paths = blocks * B;
  if ((nb - 1) % n == (uint64_t)i) paths -= nb * B - total; /* it has the last block */
  return paths;
}

/* The call's path of device i's path j (sde.cu's sp_sde_global). */
static uint64_t sde_global(uint64_t j, int i, int ndev) {
  const uint64_t B = SP_SDE_DEV_BLOCK;
  if (ndev <= 1) return j;
  return ((j / B) * (uint64_t)ndev + (uint64_t)i) * B + j % B;
}

/* The module's sizes (sp_sde_sizes_kernel) against the job's: a mismatch is
 * refused before any kernel reads the job's arrays. */
static int sde_check_sizes(sp_gpu_dev *d, const char *key, const sp_sde_job *job, int *nt) {
  CUfunction f;
  CUdeviceptr buf = 0;
  int got[5], st;
  if ((st = sp_gpu_function(d->id, key, "sp_sde_sizes_kernel", &f)) ||
      (st = sp_gpu_dev_alloc(d, sizeof got, "the sizes", &buf)) ||
      (st = sp_gpu_launch(d->id, f, 1, 32, 0, d->stream, &buf, "sp_sde_sizes_kernel")) ||
      (st = sp_gpu_stream_sync(d->id, d->stream)) ||
      (st = sp_gpu_to_host(d->id, got, buf, sizeof got)))
    return st;
  *nt = got[4];
  if (got[0] != job->nx || got[1] != job->np || got[2] != job->nw || got[3] != job->no ||
      got[4] < 0)
    return sp_fail(SP_ERR_INVALID,
                   "internal error: the compiled model has %d states, %d parameters, %d noise "
                   "processes and %d observables, the run %lld, %lld, %lld and %lld",
                   got[0], got[1], got[2], got[3], (long long)job->nx, (long long)job->np,
                   (long long)job->nw, (long long)job->no);
  return SP_OK;
}

static int sde_upload(sp_gpu_dev *d, const void *src, size_t bytes, const char *what,
                      CUdeviceptr *out) {
  int st = sp_gpu_dev_alloc(d, bytes > 0 ? bytes : 8, what, out);
  if (st == SP_OK && bytes > 0) st = sp_gpu_to_device(d->id, *out, src, bytes);
  return st;
}

static int sde_setup(void *model, sp_gpu_dev *d) {
  sde_model *m = (sde_model *)model;
  const sp_sde_args *a = m->a;
  const sp_sde_job *job = &a->job;
  sde_dev *e = (sde_dev *)d->state;
  sp_sde_kargs *k = &e->k;
  /* a path's record in the state arrays: its states and its run of coarse
   * steps (SP_SDE_XS) */
  const size_t nx = (size_t)job->nx, xs = (size_t)SP_SDE_XS(job->nx);
  const size_t nvar = (size_t)(job->nx + job->no);
  const size_t nhoff = (size_t)job->nhist + 1;
  CUdeviceptr p;
  long long *hoff;
  int st, i;
  if (job->output == 0) {
    e->mine = sde_dev_paths(m->total, d->index, m->ndev);
  } else {
    e->mine = d->index == 0 ? m->total : 0; /* fixed length: one device runs the model */
  }
  if (e->mine == 0) {
    d->idle = 1;
    return SP_OK;
  }
  e->used = 1;
  memset(k, 0, sizeof *k);
  k->job = *job;
  k->seed = a->seed;
  sp_philox_keys(a->seed, k->keys); /* the passage kernel's round keys */
  k->sdt = sqrt(job->dt); /* as the CPU forms them (sde_cpu.h) */
  k->dt_f = (float)job->dt;
  k->sdt_f = (float)k->sdt;
  k->total = e->mine;
  k->dev_i = (uint64_t)d->index;
  k->dev_n = job->output == 0 ? (uint64_t)m->ndev : 1;
  hoff = (long long *)malloc(nhoff * sizeof *hoff);
  if (hoff == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  for (i = 0; i < (int)nhoff; i++) hoff[i] = (long long)a->hist_off[i]; /* whole doubles */
  st = sde_upload(d, hoff, nhoff * sizeof *hoff, "the histograms", &p);
  free(hoff);
  if (st != SP_OK) return st;
  k->hist_off = p;
  if ((st = sde_upload(d, a->par, (size_t)job->ncond * (size_t)job->np * 8, "the parameters", &p)))
    return st;
  k->par = p;
  if ((st = sde_upload(d, a->init, (size_t)job->ncond * nx * 8, "the starts", &p))) return st;
  k->init = p;
  if ((st = sde_upload(d, a->init_vec, nx * sizeof(int), "the starts", &p))) return st;
  k->init_vec = p;
  {
    size_t nv = 0, pp = 0, j;
    for (j = 0; j < nx; j++) {
      if (a->init_vec[j] >= 0) nv++;
      if (a->init_vec[j] >= SP_SDE_PER_PATH) pp = 1; /* columns of one start per path */
    }
    if ((st = sde_upload(d, a->init_vals, nv * (size_t)job->n * (pp ? (size_t)job->ncond : 1) * 8,
                         "the starts", &p)))
      return st;
    k->init_vals = p;
  }
  if ((st = sde_upload(d, a->hist_var, (size_t)job->nhist * sizeof(int), "the histograms", &p)))
    return st;
  k->hist_var = p;
  if ((st = sde_upload(d, a->breaks, (size_t)job->nbreaks * 8, "the histograms", &p))) return st;
  k->breaks = p;
  if ((st = sde_check_sizes(d, m->key, job, &e->nt))) return st;
  if ((st = sp_gpu_dev_alloc(d, sizeof(sp_sde_counters), "the counters", &e->counters)) ||
      (st = sp_gpu_memset0(d->id, e->counters, sizeof(sp_sde_counters))) ||
      (st = sp_gpu_memset32(d->id, e->counters + offsetof(sp_sde_counters, bad), 0xffffffffu, 2)) ||
      (st = sp_gpu_memset32(d->id, e->counters + offsetof(sp_sde_counters, bad_kcur), 0xffffffffu,
                            2)))
    return st;
  k->counters = e->counters;
  if (job->output == 0) {
    int per_sm = 0;
    uint64_t cap;
    int b;
    if ((st = sp_gpu_function(d->id, m->key, "sp_sde_passage_kernel", &e->kern)) ||
        (st = sp_gpu_function(d->id, m->key, "sp_sde_compact_kernel", &e->compact)))
      return st;
    if ((st = sp_gpu_occupancy(d->id, e->kern, SP_SDE_BLOCK, 0, &per_sm))) return st;
    if (per_sm < 1) per_sm = 1;
    cap = (uint64_t)d->info.multiprocessors * (uint64_t)per_sm * SP_SDE_BLOCK;
    k->nlanes = k->cap = e->mine < cap ? (e->mine + 31) / 32 * 32 : cap;
    for (b = 0; b < 2; b++) {
      if ((st = sp_gpu_dev_alloc(d, (size_t)k->cap * 8, "the lanes", &e->lane_pid[b])) ||
          (st = sp_gpu_dev_alloc(d, (size_t)k->cap * 8, "the lanes", &e->lane_k[b])) ||
          (st = sp_gpu_dev_alloc(d, (size_t)k->cap * xs * 8, "the lanes", &e->lane_x[b])))
        return st;
    }
    if ((st = sp_gpu_memset32(d->id, e->lane_pid[0], 0xffffffffu, (size_t)k->cap * 2))) return st;
    e->cur = 0;
    k->pid = e->lane_pid[0];
    k->k = e->lane_k[0];
    k->x = e->lane_x[0];
    if ((st = sp_gpu_dev_alloc(d, 8, "the compaction counter", &p))) return st;
    k->count = p;
    if ((st = sp_gpu_dev_alloc(d, 8, "the path counter", &p)) ||
        (st = sp_gpu_memset0(d->id, p, 8)))
      return st;
    k->next = p;
    /* the device's paths: passage times, status, states; the rows of the
     * paths not stopped (room for all of its paths) */
    if ((st = sp_gpu_dev_alloc(d, (size_t)e->mine * 8, "the passage times", &p))) return st;
    k->value = p;
    if ((st = sp_gpu_dev_alloc(d, (size_t)e->mine * 4, "the passage status", &p)) ||
        (st = sp_gpu_memset32(d->id, p, 0xffffffffu, (size_t)e->mine)))
      return st;
    k->status = p;
    if (job->save_state) {
      if ((st = sp_gpu_dev_alloc(d, (size_t)e->mine * nx * 8, "the states at passage", &p)))
        return st;
      k->state = p;
    }
    if (job->hold) {
      if ((st = sp_gpu_dev_alloc(d, (size_t)e->mine * (size_t)SP_SDE_HS(job->nx) * 8,
                                 "the paths not stopped", &p)))
        return st;
      k->held = p;
    }
    if (job->nrun > 0) { /* a continuation: the paths, their steps and records */
      if ((st = sde_upload(d, a->run_path, (size_t)job->nrun * 8, "the paths continued", &p)))
        return st;
      k->run_path = p;
      if ((st = sde_upload(d, a->run_k, (size_t)job->nrun * 8, "the paths continued", &p)))
        return st;
      k->run_k = p;
      if ((st = sde_upload(d, a->run_x, (size_t)job->nrun * xs * 8, "the paths continued", &p)))
        return st;
      k->run_x = p;
    }
    return SP_OK;
  }
  if ((st = sp_gpu_function(d->id, m->key, "sp_sde_start_kernel", &e->start))) return st;
  e->timek = 0;
  if (e->nt > 0) {
    /* the time terms' table: rows of nt values in the working precision,
     * per condition, for the steps of a launch (and its end) */
    const size_t row = (size_t)e->nt * (job->single ? 4 : 8) * (size_t)job->ncond;
    const uint64_t rows = (uint64_t)(SDE_TAB_BYTES / row);
    if (rows > SDE_TAB_MIN_STEPS) {
      e->tab_steps = rows - 1;
      if ((st = sp_gpu_function(d->id, m->key, "sp_sde_fixed_tab_kernel", &e->kern)) ||
          (st = sp_gpu_function(d->id, m->key, "sp_sde_time_kernel", &e->timek)) ||
          (st = sp_gpu_dev_alloc(d, row * (size_t)rows, "the time terms", &p)))
        return st;
      k->tab = p;
    }
  }
  if (e->timek == 0 &&
      (st = sp_gpu_function(d->id, m->key, "sp_sde_fixed_kernel", &e->kern)))
    return st;
  e->ntiles = job->ncond * ((job->n + SP_SDE_TILE - 1) / SP_SDE_TILE);
  e->cells = (uint64_t)sp_sde_hist_cells(a, job->nhist);
  if ((st = sp_gpu_dev_alloc(d, (size_t)m->total * xs * 8, "the states", &p))) return st;
  k->x = p;
  if ((st = sp_gpu_dev_alloc(d, (size_t)m->total * 8, "the step of a non-finite state", &p)))
    return st;
  k->badk = p;
  if ((st = sp_gpu_function(d->id, m->key, "sp_sde_tiles_kernel", &e->reduce))) return st;
  if ((st = sp_gpu_dev_alloc(d, (size_t)e->ntiles * nvar * 3 * 8, "the tile statistics", &p)))
    return st;
  k->tiles = p;
  e->slot_bytes = (size_t)job->ncond * nvar * 3 * 8;
  e->slots = (int)(SDE_REC_SLOT_BYTES / e->slot_bytes);
  if (e->slots > SDE_REC_SLOTS) e->slots = SDE_REC_SLOTS;
  if ((uint64_t)e->slots > job->nrec) e->slots = (int)job->nrec;
  if (e->slots < 1) e->slots = 1;
  if ((st = sp_gpu_dev_alloc(d, e->slot_bytes * (size_t)e->slots, "the record statistics",
                             &e->red)))
    return st;
  m->htiles = (double *)malloc(e->slot_bytes * (size_t)e->slots);
  if (m->htiles == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  if (job->nhist > 0) {
    size_t b = (size_t)(job->ncond * job->nrec * e->cells) * 8;
    if ((st = sp_gpu_dev_alloc(d, b, "the histograms", &p)) || (st = sp_gpu_memset0(d->id, p, b)))
      return st;
    k->hist = p;
  }
  if (job->keep > 0) {
    size_t b = (size_t)(job->ncond * job->keep * job->ntraj * nvar) * 8;
    if ((st = sp_gpu_dev_alloc(d, b, "the trajectories", &p)) ||
        (st = sp_gpu_memset32(d->id, p, 0xffffffffu, b / 4))) /* NaN: not reached */
      return st;
    k->traj = p;
  }
  return sp_gpu_launch(d->id, e->start, sde_grid(m->total),
                       SP_SDE_BLOCK, 0, d->stream, k, "sp_sde_start_kernel");
}

/* Store the records that the last poll read (their statistics reduced
 * over the tiles on the device, sp_sde_tiles_kernel), while the launches
 * of the next round run. */
static void sde_flush(sde_model *m, sde_dev *e) {
  const sp_sde_job *job = &m->a->job;
  const uint64_t nvar = (uint64_t)(job->nx + job->no);
  uint64_t j, c, v;
  for (j = 0; j < e->pending; j++) {
    const double *h = m->htiles + j * (e->slot_bytes / 8);
    for (c = 0; c < job->ncond; c++) {
      for (v = 0; v < nvar; v++) {
        const uint64_t o = (c * job->nrec + e->pending0 + j) * nvar + v;
        const double *r = h + (c * nvar + v) * 3;
        m->out->mom_n[o] = r[0];
        m->out->mom_mean[o] = r[1];
        m->out->mom_m2[o] = r[2];
      }
    }
  }
  if (e->pending > 0) m->out->rec_done = e->pending0 + e->pending;
  e->pending = 0;
}

static int sde_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  sde_model *m = (sde_model *)model;
  sde_dev *e = (sde_dev *)d->state;
  const sp_sde_job *job = &m->a->job;
  if (job->output == 0) {
    e->k.budget = budget;
    return sp_gpu_launch(d->id, e->kern, sde_grid(e->k.nlanes),
                         SP_SDE_BLOCK, 0, d->stream, &e->k, "sp_sde_passage_kernel");
  }
  {
    /* launches to the next record steps, at most `budget` steps and
     * e->slots records in all; record j's statistics, reduced over the
     * tiles after its launch, go to slot j */
    sp_sde_kargs k = e->k;
    uint64_t left = budget;
    int st;
    e->rec_round = 0;
    do {
      const uint64_t krec = sp_sde_record_step(job, e->k.rec + e->rec_round);
      uint64_t span = left;
      if (e->timek != 0 && span > e->tab_steps) span = e->tab_steps;
      k.kend = krec - k.kcur < span ? krec : k.kcur + span;
      k.record = k.kend == krec;
      k.rec = e->k.rec + e->rec_round;
      k.red = e->red + e->rec_round * e->slot_bytes;
      k.traj_slot = k.record && job->keep > 0 ? (long long)m->a->traj_slot[k.rec] : -1;
      if (e->timek != 0) { /* the time terms of steps kcur .. kend */
        k.tab_rows = k.kend - k.kcur + 1;
        if ((st = sp_gpu_launch(d->id, e->timek, sde_grid(job->ncond * k.tab_rows),
                                SP_SDE_BLOCK, 0, d->stream, &k, "sp_sde_time_kernel")))
          return st;
      }
      if ((st = sp_gpu_launch(d->id, e->kern, (unsigned int)e->ntiles, SP_SDE_TILE, 0,
                              d->stream, &k, e->timek != 0 ? "sp_sde_fixed_tab_kernel"
                                                           : "sp_sde_fixed_kernel")))
        return st;
      if (k.record &&
          (st = sp_gpu_launch(d->id, e->reduce, (unsigned int)(job->ncond * (job->nx + job->no)),
                              SP_SDE_TILE, 0, d->stream, &k, "sp_sde_tiles_kernel")))
        return st;
      left -= k.kend - k.kcur;
      k.kcur = k.kend;
      if (k.record) e->rec_round++;
    } while (left > 0 && e->rec_round < (uint64_t)e->slots &&
             e->k.rec + e->rec_round < job->nrec);
    e->kend_round = k.kend;
    sde_flush(m, e); /* the previous round's records, on the host meanwhile */
    return SP_OK;
  }
}

/* Pack the running paths into the first lanes of the other buffers. */
static int sde_compact(sp_gpu_dev *d) {
  sde_dev *e = (sde_dev *)d->state;
  sp_sde_kargs a = e->k;
  const int o = 1 - e->cur;
  unsigned long long cnt = 0;
  int st;
  a.pid_to = e->lane_pid[o];
  a.k_to = e->lane_k[o];
  a.x_to = e->lane_x[o];
  if ((st = sp_gpu_memset0(d->id, a.count, 8)) ||
      (st = sp_gpu_launch(d->id, e->compact, sde_grid(a.nlanes),
                          SP_SDE_BLOCK, 0, d->stream, &a, "sp_sde_compact_kernel")) ||
      (st = sp_gpu_stream_sync(d->id, d->stream)) ||
      (st = sp_gpu_to_host(d->id, &cnt, a.count, 8)))
    return st;
  e->cur = o;
  e->k.pid = e->lane_pid[o];
  e->k.k = e->lane_k[o];
  e->k.x = e->lane_x[o];
  e->k.nlanes = cnt;
  return SP_OK;
}

static int sde_poll(void *model, sp_gpu_dev *d) {
  sde_model *m = (sde_model *)model;
  sde_dev *e = (sde_dev *)d->state;
  const sp_sde_job *job = &m->a->job;
  int st;
  if ((st = sp_gpu_to_host(d->id, &e->hc, e->counters, sizeof e->hc))) return st;
  if (e->hc.bad != SP_SDE_NO_PATH) {
    /* the device's lowest failing path (its own numbering), and the call's */
    const uint64_t p = e->hc.bad >> 8;
    const unsigned long long gbad =
        (unsigned long long)sde_global(p, d->index, (int)e->k.dev_n) << 8 | (e->hc.bad & 0xff);
    uint64_t bad_k = 0;
    int bad_stalled = 0;
    double kv = 0;
    unsigned long long kb = 0;
    if (gbad > m->bad) return SP_OK; /* another device failed at a lower path */
    if (job->output == 0) {
      if ((st = sp_gpu_to_host(d->id, &kv, e->k.value + p * 8, 8))) return st;
      bad_k = (uint64_t)kv; /* a running path's: its step at the end of the launch */
      {
        int sv = 0;
        if ((st = sp_gpu_to_host(d->id, &sv, e->k.status + p * 4, 4))) return st;
        bad_stalled = sv == SP_SDE_STALL;
        if (sv != SP_SDE_BAD && sv != SP_SDE_STALL) {
          /* flagged at the end of the launch: read the lane's step */
          uint64_t l;
          long long *pid = (long long *)malloc((size_t)e->k.nlanes * 8);
          if (pid == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
          st = sp_gpu_to_host(d->id, pid, e->k.pid, (size_t)e->k.nlanes * 8);
          for (l = 0; st == SP_OK && l < e->k.nlanes; l++) {
            if (pid[l] == (long long)p) {
              st = sp_gpu_to_host(d->id, &kb, e->k.k + l * 8, 8);
              bad_k = kb;
              break;
            }
          }
          free(pid);
          if (st != SP_OK) return st;
        }
      }
    } else {
      if ((st = sp_gpu_to_host(d->id, &kb, e->k.badk + p * 8, 8))) return st;
      bad_k = kb & ~(1ull << 63); /* bit 63: a stall */
      bad_stalled = (int)(kb >> 63);
    }
    m->bad = gbad;
    m->bad_k = bad_k;
    m->bad_stalled = bad_stalled;
    return SP_OK;
  }
  if (job->output == 0) { /* the counts go to the result at the collection */
    d->done = (double)e->hc.finished;
    d->idle = e->hc.finished >= e->mine;
    if ((st = sp_gpu_to_host(d->id, &e->hnext, e->k.next, 8))) return st;
    d->tail = e->hnext >= e->mine;
    /* in the tail, pack the running paths into full warps as soon as a
     * tenth of the lanes idle */
    if (!d->idle && d->tail && (double)(e->mine - e->hc.finished) < 0.9 * (double)e->k.nlanes)
      st = sde_compact(d);
    if (st == SP_OK && e->k.nlanes == 0) d->idle = 1;
    return st;
  }
  m->out->useful += (e->kend_round - e->k.kcur) * m->total;
  e->k.kcur = e->k.kend = e->kend_round;
  if (e->rec_round > 0) {
    /* read now, combined by the next launch (sde_flush) or the collection */
    if ((st = sp_gpu_to_host(d->id, m->htiles, e->red, e->slot_bytes * e->rec_round)))
      return st;
    e->pending0 = e->k.rec;
    e->pending = e->rec_round;
    e->k.rec += e->rec_round;
  }
  d->done = (double)e->k.kcur;
  d->idle = e->k.rec >= job->nrec;
  return SP_OK;
}

static int sde_check(void *model) {
  sde_model *m = (sde_model *)model;
  uint64_t q;
  if (m->bad == SP_SDE_NO_PATH) return SP_OK;
  q = m->bad >> 8;
  return sp_sde_path_failed(m->a, m->a->job.output == 0 ? SP_SDE_PATH(m->a, q) : q, m->bad_k,
                            (int)(m->bad & 0xff), m->bad_stalled);
}

static int sde_collect(void *model, sp_gpu_dev *d, int interrupted) {
  sde_model *m = (sde_model *)model;
  sde_dev *e = (sde_dev *)d->state;
  const sp_sde_job *job = &m->a->job;
  const uint64_t nvar = (uint64_t)(job->nx + job->no);
  int st = SP_OK;
  uint64_t i;
  if (!e->used) return SP_OK;
  if (job->output != 0) sde_flush(m, e); /* the last round's records */
  if (job->output == 0) {
    const uint64_t n = e->mine;
    const int nd = (int)e->k.dev_n;
    if (nd <= 1) { /* the call's paths in order */
      if ((st = sp_gpu_to_host(d->id, m->out->value, e->k.value, (size_t)n * 8)) ||
          (st = sp_gpu_to_host(d->id, m->out->status, e->k.status, (size_t)n * 4)))
        return st;
      if (job->save_state &&
          (st = sp_gpu_to_host(d->id, m->out->state, e->k.state, (size_t)(n * job->nx) * 8)))
        return st;
    } else { /* the device's paths, put in the call's order */
      const size_t nx = (size_t)job->nx;
      double *v = (double *)malloc((size_t)n * 8);
      int *sv = (int *)malloc((size_t)n * 4);
      double *xv = job->save_state ? (double *)malloc((size_t)n * nx * 8) : NULL;
      if (v == NULL || sv == NULL || (job->save_state && xv == NULL))
        st = sp_fail(SP_ERR_NOMEM, "out of host memory");
      if (st == SP_OK) st = sp_gpu_to_host(d->id, v, e->k.value, (size_t)n * 8);
      if (st == SP_OK) st = sp_gpu_to_host(d->id, sv, e->k.status, (size_t)n * 4);
      if (st == SP_OK && xv != NULL) st = sp_gpu_to_host(d->id, xv, e->k.state, (size_t)n * nx * 8);
      for (i = 0; st == SP_OK && i < n; i++) {
        const uint64_t q = sde_global(i, d->index, nd);
        m->out->value[q] = v[i];
        m->out->status[q] = sv[i];
        if (xv != NULL) memcpy(m->out->state + q * nx, xv + i * nx, nx * 8);
      }
      free(v);
      free(sv);
      free(xv);
      if (st != SP_OK) return st;
    }
    for (i = 0; i < n; i++) {
      const uint64_t q = sde_global(i, d->index, nd);
      if (m->out->status[q] == SP_SDE_UNSTARTED) m->out->value[q] = 0;
    }
    if ((st = sp_gpu_to_host(d->id, &e->hc, e->counters, sizeof e->hc))) return st;
    m->out->finished += e->hc.finished;
    m->out->useful += e->hc.useful;
    if (job->hold) { /* the rows of the device's paths censored on it, after the others' */
      const size_t hs = (size_t)SP_SDE_HS(job->nx);
      if (e->hc.held > n || m->out->nheld + e->hc.held > m->total)
        return sp_fail(SP_ERR_INVALID, "internal error: more held paths than paths");
      if (e->hc.held > 0 &&
          (st = sp_gpu_to_host(d->id, m->out->held + m->out->nheld * hs, e->k.held,
                               (size_t)e->hc.held * hs * 8)))
        return st;
      m->out->nheld += e->hc.held;
    }
    if (interrupted && e->k.nlanes > 0) {
      const size_t xs = (size_t)SP_SDE_XS(job->nx), hs = (size_t)SP_SDE_HS(job->nx);
      long long *pid = (long long *)malloc((size_t)e->k.nlanes * 8);
      unsigned long long *kk = (unsigned long long *)malloc((size_t)e->k.nlanes * 8);
      double *lx = job->hold ? (double *)malloc((size_t)e->k.cap * xs * 8) : NULL;
      if (pid == NULL || kk == NULL || (job->hold && lx == NULL))
        st = sp_fail(SP_ERR_NOMEM, "out of host memory");
      if (st == SP_OK) st = sp_gpu_to_host(d->id, pid, e->k.pid, (size_t)e->k.nlanes * 8);
      if (st == SP_OK) st = sp_gpu_to_host(d->id, kk, e->k.k, (size_t)e->k.nlanes * 8);
      if (st == SP_OK && lx != NULL)
        st = sp_gpu_to_host(d->id, lx, e->k.x, (size_t)e->k.cap * xs * 8);
      for (i = 0; st == SP_OK && i < e->k.nlanes; i++) {
        uint64_t q;
        if (pid[i] < 0) continue;
        q = sde_global((uint64_t)pid[i], d->index, nd); /* the call's path */
        m->out->value[q] = (double)kk[i] * job->dt;
        m->out->status[q] = SP_SDE_PARTIAL;
        if (lx != NULL && m->out->nheld < m->total) { /* its row: the lane's step and record */
          double *row = m->out->held + m->out->nheld * hs;
          size_t v;
          row[0] = (double)q;
          row[1] = (double)kk[i];
          row[2] = NAN;
          for (v = 0; v < xs; v++) row[3 + v] = lx[v * (size_t)e->k.cap + i];
          m->out->nheld++;
        }
      }
      free(pid);
      free(kk);
      free(lx);
    }
  } else {
    if (job->nhist > 0) {
      const size_t nc = (size_t)(job->ncond * job->nrec * e->cells);
      unsigned long long *h = (unsigned long long *)malloc(nc * 8);
      if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
      st = sp_gpu_to_host(d->id, h, e->k.hist, nc * 8);
      for (i = 0; st == SP_OK && i < nc; i++) m->out->hist[i] = (double)h[i];
      free(h);
    }
    if (st == SP_OK && job->keep > 0)
      st = sp_gpu_to_host(d->id, m->out->traj, e->k.traj,
                          (size_t)(job->ncond * job->keep * job->ntraj * nvar) * 8);
  }
  return st;
}

int sp_gpu_sde(const char *key, const void *job, void *outp, const int *devices, int ndev,
               const sp_hooks *hooks, sp_run_info *info) {
  const sp_sde_args *a = (const sp_sde_args *)job;
  sp_sde_out *out = (sp_sde_out *)outp;
  sde_model m;
  sp_gpu_engine e;
  int st;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  m.key = key;
  m.a = a;
  m.out = out;
  m.total = a->job.output == 0 ? sp_sde_npaths(&a->job) : a->job.ncond * a->job.n;
  m.ndev = ndev > 0 ? ndev : 1;
  m.bad = SP_SDE_NO_PATH;
  m.bad_k = 0;
  m.bad_stalled = 0;
  m.htiles = NULL;
  if (a->job.output == 0) { /* summed over the devices at the collection */
    out->finished = out->useful = 0;
    out->nheld = 0;
  }
  if (m.total == 0) return SP_OK;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(sde_dev);
  e.total = a->job.output == 0 ? (double)m.total : (double)a->job.kmax;
  e.budget0 = a->job.output == 0 ? 64 : 8;
  e.budget_max = 1u << 30;
  e.tail_factor = 0.2;
  e.setup = sde_setup;
  e.launch = sde_launch;
  e.poll = sde_poll;
  e.check = sde_check;
  e.collect = sde_collect;
  st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
  free(m.htiles);
  return st;
}
