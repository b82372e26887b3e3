/* sp_gpu_mb.c: the GPU host of a many-body user model (inst/cuda/mb.cu, the
 * module sde_run() compiled for the model, its precision, method and plan),
 * an engine of the GPU round driver (sp_gpu_run.h).  The devices share the
 * systems in equal contiguous parts (every system does the same work); a
 * round advances every system of a device by at most `budget` steps, cut at
 * the record steps.
 *
 * The plan (job.gpu_plan, chosen in R by sde_mb_gpu_plan() from n, the
 * states, the precision: the module is compiled for it):
 *   mode A (SP_MB_PLAN_SMALL): one kernel a launch, a thread block a system
 *     (32 ceil(n / 128) threads, four elements each), the launch's steps
 *     inside it; a record at the launch's end;
 *   mode B: one kernel a pass (mb.cu's top: euler one a step, srk2 two, the
 *     splitting methods one a stage with the moves of consecutive steps
 *     fused, baoab one a step), each system over bps blocks; a measuring
 *     pass at the start and at each record (and after every pass whose
 *     sums read neighbours: SP_MB_PLAN_TERMS_NB), the kept states copied
 *     at each record.  With a lattice or pairs a pass writes another buffer
 *     than the one it reads, and the host swaps them (ids 0..2 of buf[]).
 * The geometry (gpt, bps, threads, the pair passes' source chunks) depends
 * on n only, so no sum depends on the number of systems a device holds.
 * Passes over all pairs (no cell lists) with few target blocks a system
 * cut the sources into chunks (sp_gpu_mb_pair_chunks), a block per target
 * block and chunk: a launch of nch x its target blocks, the chunks' sums in
 * ppart, a counter per target block (pcount); mb.cu's top.
 *
 * One system on several devices (slices: a run of one system, mode B, no
 * kept states): every slice holds the whole system's arrays and starts and
 * updates the elements of its own range of the system's bps blocks (the
 * same elements in the pair kernels' blocks); each pass with sums, every
 * slice writes its blocks' partial sums (kargs.split), copies them into the
 * other slices' partial arrays (event ev_w after the copies), then, once
 * the others' ev_w are passed, each slice adds up all bps partial sums in
 * block order (sp_mb_combine_kernel): one device's numbers, bit for bit.
 * The partial sums alternate between two halves pass by pass, so that no
 * copy needs to wait for the other slice's readers: slice j's copies of
 * pass P + 2 follow its combination of pass P + 1, which waited for slice
 * i's copies of pass P + 1, which follow slice i's combination of pass P.
 *   Where elements read others (a lattice, pairs: m->halo > 0), each pass
 * that writes a state buffer is followed by each slice's copies of its
 * elements of that buffer that another slice reads -- with pairs all of
 * them (an all-gather: each slice's pair sums run over every source), on a
 * lattice the halo alone (mb_need: the reach on each side of a chain or
 * ring, (reach + 1) L2 - 1 elements on a square lattice, wrapping around a
 * ring or torus) -- before the slice's ev_w, and every slice waits for the
 * others' ev_w before its next pass.  No copy overwrites what a slice still
 * reads: a pass writes another buffer than the ones it reads from others
 * (SRK2 with pairs writes x in place, of which its elements read only
 * their own), and slice j's copies into buffer b of pass P follow its pass
 * P, which waited for slice i's ev_w of the pass before, after slice i's
 * last reader of b.
 *   Pairs through cell lists (m->cells): every slice builds the whole
 * system's cell list on its own device before each pass, from its whole
 * copy of the pass's sources (the same list on every slice: each cell's
 * elements sorted), and runs the pair kernels' blocks pb0 .. pb1 - 1, whose
 * targets are the slots i0 .. i1 - 1 of the cells' order -- the blocks and
 * partial sums of one device, but elements scattered over the rows.  So
 * after such a pass each slice packs its slots' new states (and SRK2's
 * first-stage drift and noise, which the corrector reads for other targets)
 * into its exchange rows in the cells' order (sp_mb_slice_pack_kernel),
 * copies its range of slots there to the other slices, and, once the others'
 * ev_w are passed, unpacks theirs into its rows (sp_mb_slice_unpack_kernel):
 * every slice holds the whole new state, and no copy writes a state buffer.
 * The exchange rows alternate between two halves, as the partial sums do.
 *   A record's pair terms (the observables' pair sums, g(r)) read every
 * element: each slice makes the observables' pair sums for itself (the
 * state whole on every slice: the passes' all-gather, or, where the passes
 * share less, a gather at the record) and the first slice counts g(r).
 *   The first slice enqueues every slice's work (as the deleted built-in lrmd engine did) and
 * swaps the buffer ids, which the others take at their launch; the final
 * states come back slice by slice, the records from the first.  R decides
 * the slices (sde_mb_gpu_slices(): job slices). */
#include "sp_gpu_mb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sp_error.h"
#include "../core/sp_threads.h"
#include "sp_gpu_mb_recipe.h"
#include "sp_gpu_run.h"

#ifdef _OPENMP
#  include <omp.h>
#endif

#define MB_BLOCK 256      /* mb.cu's SP_MB_BLOCK */
#define MB_SMALL_MAX 512  /* mb.cu's SP_MB_SMALL_MAX */
#define MB_GPT_MAX 8      /* groups of four elements a thread (mode B), at most */
#define MB_BPS_MIN 1024   /* blocks a system below which gpt is not raised */
#define MB_CHUNK_BLOCKS 1024 /* all pairs: the blocks a system's pass aims at (source chunks) */
#define MB_NONE 0xffffffffffffffffull

typedef struct {
  const char *key;
  const sp_mb_args *a;
  sp_mb_out *out;
  uint64_t per_dev, npad;
  int small, tnb, pairs, share; /* the plan; nq > 0; a lattice or pairs */
  int cells;                    /* mode B: the dynamics' pair sums from cell lists */
  int allpairs;                 /* mode B: the dynamics' pair sums over all pairs (the
                                   passes in source chunks, nch > 1) */
  size_t rb;                    /* bytes of a value in the working precision */
  uint64_t bad_s, bad_k, bad_what; /* the lowest non-finite system (global), MB_NONE: none */
  void *host[SP_GPU_MAX_DEVICES];  /* each device's buffer for its states' copy (mb_touch) */
  int nslice, nready;              /* one system in slices (see the top): slices, set up */
  int parity;                      /* slices: the half of the partial sums the next pass writes */
  uint64_t halo;                   /* slices: the elements on each side of a slice's range its
                                      passes read (sp_mb_args.slice_halo: 0, a mean field) */
  int wrap;                        /* slices: the lattice wraps around (ring, square) */
  int xpar;                        /* slices with cells: the half of the exchange rows next */
  void *sl[SP_GPU_MAX_DEVICES];    /* the slices' mb_dev */
  sp_gpu_dev *sd[SP_GPU_MAX_DEVICES];
} mb_model;

typedef struct {
  CUfunction f_small, f_pass1, f_pass2, f_measure, f_keep, f_start;
  CUfunction f_hist;  /* the state's histogram at the records (job.hist_bins > 0) */
  CUdeviceptr hist;   /* its counts: ns x nrec x hist_bins */
  /* cell lists, the observables' pair sums, g(r) (mode B) */
  CUfunction f_czero, f_ccount, f_cpart, f_cscan, f_cfill, f_csort, f_cgather, f_obs, f_rdf;
  CUdeviceptr rowptr, col, gw, cell, perm, cstart, cpart, cx, cu, obs, rdf, cpos, cgrid;
  uint64_t cmax; /* cells of a system at most (any cut-off the run builds for) */
  const char *n_pass1, *n_pass2;
  CUdeviceptr buf[3]; /* state buffers; x, y, z are buf[xi], buf[yi], buf[zi] */
  int xi, yi, zi, nbuf;
  CUdeviceptr ep, par, aux, sums, partial, count, rec, traj, stopped, xbuf, kstop, badk,
      badwhat, flags, laws;
  uint64_t s0, ns, nkeep; /* the device's systems s0 .. s0 + ns - 1; kept: nkeep of them */
  uint64_t k, nrec_done;  /* steps of the call made; the next record */
  int bps_g, bps_p, gpt;  /* blocks a system (group and pair kernels), groups a thread */
  int nch, tpc;           /* mode B, all pairs: source chunks, tiles a chunk */
  CUdeviceptr ppart, pcount; /* their pair sums, counters (nch > 1 and all pairs) */
  unsigned threads, shmem; /* mode A */
  int used, touched;
  /* slices: the blocks blk0 .. blk1 - 1 of the system's bps_g (pb0 .. pb1 - 1 of bps_p, the
   * pair kernels'), elements i0 .. i1 - 1 (i0 = 0, i1 = n otherwise) */
  uint64_t blk0, blk1, pb0, pb1, i0, i1;
  CUfunction f_combine;
  CUevent ev_w;
  size_t half; /* slices: bytes of one half of the partial sums (0 otherwise) */
  /* slices with cells: the exchange rows (two halves of xhalf bytes) */
  CUfunction f_pack, f_unpack;
  CUdeviceptr xch;
  size_t xhalf;
} mb_dev;

static const sp_mb_job *mb_job(const mb_model *m) { return &m->a->job; }

static sp_mb_kargs mb_base(const mb_model *m, const mb_dev *v) {
  const sp_mb_job *job = mb_job(m);
  sp_mb_kargs a;
  memset(&a, 0, sizeof a);
  a.job = *job;
  a.seed = m->a->seed;
  a.par = v->par;
  a.ep = v->ep;
  a.x = v->buf[v->xi];
  a.y = v->nbuf > 1 ? v->buf[v->yi] : 0;
  a.z = v->nbuf > 2 ? v->buf[v->zi] : 0;
  a.aux = v->aux;
  a.sums = v->sums;
  a.partial = v->partial;
  a.count = v->count;
  a.rec = v->rec;
  a.traj = v->traj;
  a.stopped = v->stopped;
  a.xbuf = v->xbuf;
  a.kstop = v->kstop;
  a.badk = v->badk;
  a.badwhat = v->badwhat;
  a.flags = v->flags;
  a.laws = v->laws;
  a.rowptr = v->rowptr;
  a.col = v->col;
  a.gw = v->gw;
  a.cell = v->cell;
  a.perm = v->perm;
  a.cstart = v->cstart;
  a.cpart = v->cpart;
  a.cgrid = v->cgrid;
  a.cx = v->cx;
  a.cpos = v->cpos;
  a.cu = v->cu;
  a.obs = v->obs;
  a.rdf = v->rdf;
  a.hist = v->hist;
  a.cmax = v->cmax;
  a.sys0 = v->s0;
  a.nsys = v->ns;
  a.npad = m->npad;
  a.nkeep = v->nkeep;
  a.sdt = sqrt(job->dt); /* as the CPU forms it (mb_cpu.h) */
  a.bps = v->bps_g;
  a.gpt = v->gpt;
  a.x_id = v->xi;
  a.nch = 1; /* mb_go and mb_record_pairs set the chunks of all-pairs launches */
  a.tpc = v->tpc;
  a.ppart = v->ppart;
  a.pcount = v->pcount;
  return a;
}

static int mb_upload(sp_gpu_dev *d, const void *src, size_t bytes, const char *what,
                     CUdeviceptr *out) {
  int st = sp_gpu_dev_alloc(d, bytes > 0 ? bytes : 8, what, out);
  if (st == SP_OK && bytes > 0 && src != NULL) st = sp_gpu_to_device(d->id, *out, src, bytes);
  return st;
}

static int mb_alloc0(sp_gpu_dev *d, size_t bytes, const char *what, CUdeviceptr *out) {
  int st = sp_gpu_dev_alloc(d, bytes > 0 ? bytes : 8, what, out);
  if (st == SP_OK) st = sp_gpu_memset0(d->id, *out, bytes > 0 ? bytes : 8);
  return st;
}

static int mb_alloc_ones(sp_gpu_dev *d, size_t bytes, const char *what, CUdeviceptr *out) {
  int st = sp_gpu_dev_alloc(d, bytes > 0 ? bytes : 8, what, out);
  if (st == SP_OK) st = sp_gpu_memset32(d->id, *out, 0xffffffffu, (bytes > 0 ? bytes : 8) / 4);
  return st;
}

/* n doubles src into row r (stride npad) of a host buffer of the working
 * precision, the padding 0. */
static void mb_put_row(void *h, size_t r, const double *src, uint64_t n, uint64_t npad, int single) {
  uint64_t i;
  if (single) {
    float *o = (float *)h + r * npad;
    for (i = 0; i < npad; i++) o[i] = i < n ? (float)src[i] : 0.0f;
  } else {
    double *o = (double *)h + r * npad;
    memcpy(o, src, (size_t)n * sizeof(double));
    for (i = n; i < npad; i++) o[i] = 0.0;
  }
}

/* ---- launches ---------------------------------------------------------------------- */

/* The arguments a, made for slice v0, for slice v: its arrays (the same
 * buffer ids) -- every one of them: a slice never reads another's memory
 * (its cell lists are its own, built on its device). */
static void mb_rebase(const mb_model *m, const mb_dev *v0, const mb_dev *v, sp_mb_kargs *a) {
  const sp_mb_kargs b = mb_base(m, v);
  int k;
  for (k = 0; k < v0->nbuf; k++) {
    if (a->x == v0->buf[k]) a->x = v->buf[k];
    if (a->y == v0->buf[k]) a->y = v->buf[k];
    if (a->z == v0->buf[k]) a->z = v->buf[k];
  }
  a->par = b.par;
  a->ep = b.ep;
  a->aux = b.aux;
  a->sums = b.sums;
  a->partial = b.partial;
  a->count = b.count;
  a->rec = b.rec;
  a->traj = b.traj;
  a->stopped = b.stopped;
  a->xbuf = b.xbuf;
  a->kstop = b.kstop;
  a->badk = b.badk;
  a->badwhat = b.badwhat;
  a->flags = b.flags;
  a->laws = b.laws;
  a->rowptr = b.rowptr;
  a->col = b.col;
  a->gw = b.gw;
  a->cell = b.cell;
  a->perm = b.perm;
  a->cstart = b.cstart;
  a->cpart = b.cpart;
  a->cgrid = b.cgrid;
  a->cx = b.cx;
  a->cpos = b.cpos;
  a->cu = b.cu;
  a->obs = b.obs;
  a->rdf = b.rdf;
  a->hist = b.hist;
  a->ppart = b.ppart;
  a->pcount = b.pcount;
}

/* The elements of the system outside its own range that slice v's passes
 * read (m->halo on each side, wrapped around or cut at the ends), as at
 * most two ranges lo[k] .. hi[k] - 1 of 0 .. n - 1 (they may include the
 * slice's own elements).  Returns their number. */
static int mb_need(const mb_model *m, const mb_dev *v, uint64_t lo[2], uint64_t hi[2]) {
  const uint64_t n = mb_job(m)->n, h = m->halo;
  if (v->i1 <= v->i0 || h == 0) return 0;
  if (h >= n || v->i1 - v->i0 + 2 * h >= n) { /* all of them */
    lo[0] = 0;
    hi[0] = n;
    return 1;
  }
  if (!m->wrap) {
    lo[0] = v->i0 > h ? v->i0 - h : 0;
    hi[0] = n - v->i1 > h ? v->i1 + h : n;
    return 1;
  }
  if (v->i0 < h) { /* wraps below 0 (then not above n: the case above) */
    lo[0] = n - (h - v->i0);
    hi[0] = n;
    lo[1] = 0;
    hi[1] = v->i1 + h;
    return 2;
  }
  if (v->i1 + h > n) {
    lo[0] = v->i0 - h;
    hi[0] = n;
    lo[1] = 0;
    hi[1] = v->i1 + h - n;
    return 2;
  }
  lo[0] = v->i0 - h;
  hi[0] = v->i1 + h;
  return 1;
}

/* Slice v's elements of state buffer b that slice w reads (mb_need), each
 * state row, into w's copy of that buffer, on v's stream. */
static int mb_send_states(const mb_model *m, const mb_dev *v, sp_gpu_dev *d, const mb_dev *w,
                          int b) {
  const uint64_t rows = v->ns * (uint64_t)mb_job(m)->nx;
  uint64_t lo[2], hi[2], r;
  const int nr = mb_need(m, w, lo, hi);
  int k, st = SP_OK;
  for (k = 0; k < nr && st == SP_OK; k++) {
    const uint64_t a = lo[k] > v->i0 ? lo[k] : v->i0, e = hi[k] < v->i1 ? hi[k] : v->i1;
    if (a >= e) continue;
    for (r = 0; r < rows && st == SP_OK; r++) {
      const size_t off = (size_t)(r * m->npad + a) * m->rb;
      st = sp_gpu_copy_async(d->id, w->buf[b] + off, v->buf[b] + off, (size_t)(e - a) * m->rb,
                             d->stream);
    }
  }
  return st;
}

/* Slices with cells (see the top): the pack (pack = 1) or unpack kernel
 * over the pair blocks b0 .. b1 - 1 of slice v, between state buffer `out`
 * (and, aux, SRK2's first-stage drift and noise) and the exchange rows of
 * half m->xpar. */
static int mb_xchg(const mb_model *m, const mb_dev *v, sp_gpu_dev *d, int pack, int out, int aux,
                   uint64_t b0, uint64_t b1) {
  sp_mb_kargs a;
  if (b1 <= b0) return SP_OK;
  a = mb_base(m, v);
  a.x = v->buf[out];
  a.aux = aux ? v->aux : 0;
  a.cx = v->xch + (CUdeviceptr)m->xpar * v->xhalf;
  a.blk0 = b0;
  return sp_gpu_launch(d->id, pack ? v->f_pack : v->f_unpack, (unsigned)(b1 - b0), MB_BLOCK, 0,
                       d->stream, &a, pack ? "sp_mb_slice_pack_kernel" : "sp_mb_slice_unpack_kernel");
}

/* Slices with cells: slice v's slots i0 .. i1 - 1 of its first `rows`
 * exchange rows (half m->xpar) into w's, on v's stream. */
static int mb_send_slots(const mb_model *m, const mb_dev *v, sp_gpu_dev *d, const mb_dev *w,
                         int rows) {
  const size_t row = (size_t)m->npad * m->rb;
  int r, st = SP_OK;
  for (r = 0; r < rows && st == SP_OK; r++) {
    const size_t off = (size_t)m->xpar * v->xhalf + (size_t)r * row + (size_t)v->i0 * m->rb;
    st = sp_gpu_copy_async(d->id, w->xch + off, v->xch + off, (size_t)(v->i1 - v->i0) * m->rb,
                           d->stream);
  }
  return st;
}

/* A pass (or measure) of one system in slices: each slice's blocks (of the
 * group or, pair_geometry, the pair kernels), then, where the pass wrote
 * state buffer `out` (>= 0) that other slices read (a lattice, pairs), each
 * slice's elements of it copied to the slices that read them, and, with
 * sums, the partial sums shared and added up on every slice (see the top).
 * f is slice 0's function; the others' are found by the same role. */
static int mb_go_slices(mb_model *m, CUfunction f, const char *name, sp_mb_kargs *a,
                        int pair_geometry, int out) {
  const mb_dev *v0 = (const mb_dev *)m->sl[0];
  const size_t tn = (size_t)(mb_job(m)->nt > 0 ? mb_job(m)->nt : 1) * sizeof(double);
  const int share = out >= 0 && m->halo > 0;
  /* pairs through cell lists: the targets are slots of the cells' order,
   * exchanged through the exchange rows (the top); SRK2's predictor with
   * the first-stage drift and noise */
  const int xchg = share && m->cells && pair_geometry;
  const int aux = xchg && mb_job(m)->method == SP_MB_SRK2 && f == v0->f_pass1;
  const int rows = (int)mb_job(m)->nx + (aux ? (int)(mb_job(m)->nx + mb_job(m)->nb) : 0);
  int j, i, st = SP_OK;
  for (j = 0; j < m->nslice && st == SP_OK; j++) {
    mb_dev *v = (mb_dev *)m->sl[j];
    sp_gpu_dev *d = m->sd[j];
    sp_mb_kargs aj = *a;
    const CUfunction fj = f == v0->f_pass1 ? v->f_pass1 : f == v0->f_pass2 ? v->f_pass2
                                                                           : v->f_measure;
    const uint64_t b0 = pair_geometry ? v->pb0 : v->blk0, b1 = pair_geometry ? v->pb1 : v->blk1;
    mb_rebase(m, v0, v, &aj);
    aj.partial += m->parity * v->half;
    aj.blk0 = b0;
    aj.split = a->sums_on != 0;
    if (b1 > b0 && (st = sp_gpu_activate(d->id)) == SP_OK) /* (nch: mb_go's) */
      st = sp_gpu_launch(d->id, fj, (unsigned)((b1 - b0) * (uint64_t)a->nch), MB_BLOCK, 0,
                         d->stream, &aj, name);
    if (st == SP_OK && xchg) st = mb_xchg(m, v, d, 1, out, aux, b0, b1);
  }
  if (st != SP_OK || (!a->sums_on && !share)) return st;
  /* each slice's states (that the others read) and partial sums to the others */
  for (j = 0; j < m->nslice && st == SP_OK; j++) {
    const mb_dev *v = (const mb_dev *)m->sl[j];
    sp_gpu_dev *d = m->sd[j];
    const uint64_t b0 = pair_geometry ? v->pb0 : v->blk0, b1 = pair_geometry ? v->pb1 : v->blk1;
    const size_t off = m->parity * v->half + (size_t)b0 * tn, bytes = (size_t)(b1 - b0) * tn;
    st = sp_gpu_activate(d->id);
    for (i = 0; i < m->nslice && st == SP_OK; i++) {
      const mb_dev *w = (const mb_dev *)m->sl[i];
      if (i == j) continue;
      if (share) st = xchg ? mb_send_slots(m, v, d, w, rows) : mb_send_states(m, v, d, w, out);
      if (st == SP_OK && a->sums_on && bytes > 0)
        st = sp_gpu_copy_async(d->id, w->partial + off, v->partial + off, bytes, d->stream);
    }
    if (st == SP_OK) st = sp_gpu_event_record(d->id, v->ev_w, d->stream);
  }
  /* every slice waits for the others' copies, then adds the sums up */
  for (i = 0; i < m->nslice && st == SP_OK; i++) {
    mb_dev *w = (mb_dev *)m->sl[i];
    sp_gpu_dev *d = m->sd[i];
    sp_mb_kargs ai = *a;
    mb_rebase(m, v0, w, &ai);
    ai.partial += m->parity * w->half;
    st = sp_gpu_activate(d->id);
    for (j = 0; j < m->nslice && st == SP_OK; j++)
      if (j != i) st = sp_gpu_stream_wait(d->id, d->stream, ((const mb_dev *)m->sl[j])->ev_w);
    if (st == SP_OK && xchg) /* the others' slots, before and after its own */
      st = mb_xchg(m, w, d, 0, out, aux, 0, w->pb0);
    if (st == SP_OK && xchg) st = mb_xchg(m, w, d, 0, out, aux, w->pb1, (uint64_t)w->bps_p);
    if (st == SP_OK && a->sums_on)
      st = sp_gpu_launch(d->id, w->f_combine, (unsigned)w->ns, MB_BLOCK, 0, d->stream, &ai,
                         "sp_mb_combine_kernel");
  }
  if (a->sums_on) m->parity ^= 1;
  if (xchg) m->xpar ^= 1;
  return st;
}

/* A pass writing state buffer `out` (-1: none, a measure) over the blocks of
 * the group or (pair_geometry) the pair kernels. */
static int mb_go(mb_model *m, sp_gpu_dev *d, CUfunction f, const char *name, sp_mb_kargs *a,
                 int pair_geometry, int out) {
  mb_dev *v = (mb_dev *)d->state;
  a->bps = pair_geometry ? v->bps_p : v->bps_g;
  /* the pair passes over all pairs: nch blocks a target block */
  a->nch = pair_geometry && m->allpairs ? v->nch : 1;
  if (m->nslice > 1) return mb_go_slices(m, f, name, a, pair_geometry, out);
  return sp_gpu_launch(d->id, f, (unsigned)((uint64_t)a->bps * v->ns * (uint64_t)a->nch), MB_BLOCK,
                       0, d->stream, a, name);
}

/* A grid-stride launch over `total` items. */
static int mb_grid_launch(sp_gpu_dev *d, CUfunction f, uint64_t total, sp_mb_kargs *a,
                          unsigned shmem, const char *name) {
  uint64_t grid = (total + MB_BLOCK - 1) / MB_BLOCK;
  if (grid == 0) return SP_OK;
  if (grid > 65535) grid = 65535;
  return sp_gpu_launch(d->id, f, (unsigned)grid, MB_BLOCK, shmem, d->stream, a, name);
}

/* The cell lists of state buffer b for the cut-off rc (mb.cu, "cell
 * lists": a distance, or -1 each condition's largest cut-off of the
 * dynamics, -2 of the observables), the pair terms' values at time t. */
static int mb_cells(mb_model *m, sp_gpu_dev *d, int b, double rc, double t) {
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  sp_mb_kargs a = mb_base(m, v);
  const uint64_t items = v->ns * job->n, chunks = v->ns * SP_MB_CPARTS(v->cmax);
  const unsigned cgrid = (unsigned)(chunks < 65535 ? chunks : 65535);
  int st;
  a.x = v->buf[b];
  a.crc = rc;
  a.t = t;
  if ((st = mb_grid_launch(d, v->f_czero, v->ns * (v->cmax + 1), &a, 0, "sp_mb_cell_zero_kernel")) ||
      (st = mb_grid_launch(d, v->f_ccount, items, &a, 0, "sp_mb_cell_count_kernel")) ||
      (st = sp_gpu_launch(d->id, v->f_cpart, cgrid, MB_BLOCK, 0, d->stream, &a,
                          "sp_mb_cell_part_kernel")) ||
      (st = sp_gpu_launch(d->id, v->f_cscan, cgrid, MB_BLOCK, 0, d->stream, &a,
                          "sp_mb_cell_scan_kernel")) ||
      (st = mb_grid_launch(d, v->f_cfill, items, &a, 0, "sp_mb_cell_fill_kernel")) ||
      (st = mb_grid_launch(d, v->f_csort, v->ns * v->cmax * 32, &a, 0, "sp_mb_cell_sort_kernel")))
    return st;
  return mb_grid_launch(d, v->f_cgather, items, &a, 0, "sp_mb_cell_gather_kernel");
}

/* mb_cells on the device, or, slices, on every slice's device from its
 * whole copy of the state (see the top). */
static int mb_cells_all(mb_model *m, sp_gpu_dev *d, int b, double rc, double t) {
  int j, st = SP_OK;
  if (m->nslice <= 1) return mb_cells(m, d, b, rc, t);
  for (j = 0; j < m->nslice && st == SP_OK; j++)
    if ((st = sp_gpu_activate(m->sd[j]->id)) == SP_OK) st = mb_cells(m, m->sd[j], b, rc, t);
  return st;
}

/* Slices whose passes leave each slice its own elements and a halo (a mean
 * field, a lattice): state buffer b whole on every slice -- each slice's
 * elements to the others, and every slice waits for the others' copies (a
 * record's pair terms read every element; the measure's sums that follow
 * order these copies after the readers, as a pass's do). */
static int mb_gather_all(mb_model *m, int b) {
  const uint64_t rows = (uint64_t)mb_job(m)->nx; /* one system */
  uint64_t r;
  int i, j, st = SP_OK;
  for (j = 0; j < m->nslice && st == SP_OK; j++) {
    const mb_dev *v = (const mb_dev *)m->sl[j];
    sp_gpu_dev *d = m->sd[j];
    st = sp_gpu_activate(d->id);
    for (i = 0; i < m->nslice && st == SP_OK; i++) {
      const mb_dev *w = (const mb_dev *)m->sl[i];
      if (i == j || v->i1 <= v->i0) continue;
      for (r = 0; r < rows && st == SP_OK; r++) {
        const size_t off = (size_t)(r * m->npad + v->i0) * m->rb;
        st = sp_gpu_copy_async(d->id, w->buf[b] + off, v->buf[b] + off,
                               (size_t)(v->i1 - v->i0) * m->rb, d->stream);
      }
    }
    if (st == SP_OK) st = sp_gpu_event_record(d->id, v->ev_w, d->stream);
  }
  for (i = 0; i < m->nslice && st == SP_OK; i++) {
    sp_gpu_dev *d = m->sd[i];
    st = sp_gpu_activate(d->id);
    for (j = 0; j < m->nslice && st == SP_OK; j++)
      if (j != i) st = sp_gpu_stream_wait(d->id, d->stream, ((const mb_dev *)m->sl[j])->ev_w);
  }
  return st;
}

/* At a record of state buffer b (time tt, mode B): the observables' pair
 * sums (before the measure that reads them) and g(r)'s counts (slices: the
 * first slice's, the others' are not read). */
static int mb_record_pairs(mb_model *m, sp_gpu_dev *d, int b, double tt) {
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  sp_mb_kargs a;
  int st = SP_OK;
  if (job->output == SP_MB_OUT_RDF && (m->nslice <= 1 || d == m->sd[0])) {
    if ((st = mb_cells(m, d, b, job->rdf_rmax, tt))) return st;
    a = mb_base(m, v);
    a.x = v->buf[b];
    a.crc = job->rdf_rmax;
    a.bps = v->bps_p;
    if ((st = sp_gpu_launch(d->id, v->f_rdf, (unsigned)((uint64_t)v->bps_p * v->ns), MB_BLOCK,
                            (unsigned)(job->rdf_bins * 4), d->stream, &a, "sp_mb_rdf_kernel")))
      return st;
  }
  if (job->nqo > 0 && job->no > 0) {
    if (job->cuto && (st = mb_cells(m, d, b, -2, tt))) return st;
    a = mb_base(m, v);
    a.x = v->buf[b];
    a.tt = tt;
    a.bps = v->bps_p;
    a.crc = -2;
    a.nch = job->cuto ? 1 : v->nch; /* all pairs: in the passes' chunks */
    st = sp_gpu_launch(d->id, v->f_obs, (unsigned)((uint64_t)v->bps_p * v->ns * (uint64_t)a.nch),
                       MB_BLOCK, 0, d->stream, &a, "sp_mb_obs_kernel");
  }
  return st;
}

/* The sums of the state buffer `b` at time tt into slot wr (and a record,
 * the event). */
static int mb_measure(mb_model *m, sp_gpu_dev *d, int b, double tt, int wr, int record,
                      int stopchk, uint64_t kflag) {
  mb_dev *v = (mb_dev *)d->state;
  sp_mb_kargs a;
  int st;
  if (record && m->nslice > 1 && (mb_job(m)->nqo > 0 || mb_job(m)->output == SP_MB_OUT_RDF)) {
    int j;
    /* slices: the whole state on every slice, each slice's pair sums */
    if (m->halo < mb_job(m)->n && (st = mb_gather_all(m, b))) return st;
    for (j = 0; j < m->nslice; j++)
      if ((st = sp_gpu_activate(m->sd[j]->id)) || (st = mb_record_pairs(m, m->sd[j], b, tt)))
        return st;
  } else if (record && (st = mb_record_pairs(m, d, b, tt))) {
    return st;
  }
  a = mb_base(m, v);
  a.obs_on = record && mb_job(m)->nqo > 0;
  a.x = v->buf[b];
  a.x_id = b;
  a.sums_on = 1;
  a.wr = wr;
  a.tt = tt;
  a.record = record;
  a.rec_j = v->nrec_done;
  a.stopchk = stopchk;
  a.kflag = kflag;
  return mb_go(m, d, v->f_measure, "sp_mb_measure_kernel", &a, 0, -1);
}

/* The kept systems' states into record v->nrec_done (rec_j). */
static int mb_keep(mb_model *m, sp_gpu_dev *d) {
  mb_dev *v = (mb_dev *)d->state;
  sp_mb_kargs a = mb_base(m, v);
  const uint64_t total = v->nkeep * (uint64_t)mb_job(m)->nx * mb_job(m)->n;
  uint64_t grid = (total + MB_BLOCK - 1) / MB_BLOCK;
  if (v->nkeep == 0) return SP_OK;
  a.rec_j = v->nrec_done;
  if (grid > 65535) grid = 65535;
  return sp_gpu_launch(d->id, v->f_keep, (unsigned)grid, MB_BLOCK, 0, d->stream, &a,
                       "sp_mb_keep_kernel");
}

/* The histogram of state job.hist_state of every system into record
 * v->nrec_done (rec_j), from the state buffer a record leaves its state in
 * (x). */
static int mb_hist(mb_model *m, sp_gpu_dev *d) {
  mb_dev *v = (mb_dev *)d->state;
  const sp_mb_job *job = mb_job(m);
  sp_mb_kargs a;
  uint64_t grid;
  if (job->hist_bins <= 0) return SP_OK;
  a = mb_base(m, v);
  a.rec_j = v->nrec_done;
  grid = v->ns * ((job->n + SP_MB_HIST_SPAN - 1) / SP_MB_HIST_SPAN);
  if (grid > 0x7fffffffu)
    return sp_fail(SP_ERR_INVALID, "too many systems for one launch on %s; run fewer a call "
                   "(`first_replica` chunks)", sp_gpu_label(d->id));
  return sp_gpu_launch(d->id, v->f_hist, (unsigned)grid, MB_BLOCK,
                       job->hist_bins <= SP_MB_HIST_SHARED_MAX ? (unsigned)(job->hist_bins * 4) : 0,
                       d->stream, &a, "sp_mb_hist_kernel");
}

/* A pass (which 1: the method's first kernel, 2: SRK2's corrector) writing
 * buffer `out`. */
static int mb_pass(mb_model *m, sp_gpu_dev *d, int which, sp_mb_kargs *a, int out) {
  mb_dev *v = (mb_dev *)d->state;
  if (m->cells) { /* the cell list of the pass's sources, for its cut-off */
    const int src = which == 2 ? v->yi : v->xi;
    const int st = mb_cells_all(m, d, src, -1, which == 2 ? a->t2 : a->t);
    if (st) return st;
    a->crc = -1;
  }
  a->x_id = out;
  return mb_go(m, d, which == 1 ? v->f_pass1 : v->f_pass2, which == 1 ? v->n_pass1 : v->n_pass2,
               a, m->pairs, out);
}

static void mb_swap(int *a, int *b) {
  const int t = *a;
  *a = *b;
  *b = t;
}

/* Mode B, euler and srk2: steps k0 .. k1 - 1. */
static int mb_steps_sde(mb_model *m, sp_gpu_dev *d, uint64_t k0, uint64_t k1) {
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  const int srk2 = job->method == SP_MB_SRK2, stop = job->use_stop != 0, nd = job->nd > 0;
  const int endsum = stop || nd; /* the new state's sums: the next step's, or the event's */
  uint64_t k;
  int st = SP_OK;
  for (k = k0; k < k1 && st == SP_OK; k++) {
    const double t = job->t0 + (double)k * job->dt, tn = job->t0 + (double)(k + 1) * job->dt;
    sp_mb_kargs a;
    int out;
    if (srk2 && (m->share || nd)) { /* the predictor (and its sums) */
      a = mb_base(m, v);
      a.kk = job->k0 + k;
      a.t = t;
      a.t2 = t + job->dt;
      a.sums_on = nd && !m->tnb;
      a.wr = 1;
      a.tt = t + job->dt;
      a.kflag = k + 1;
      st = mb_pass(m, d, 1, &a, v->yi);
      if (st == SP_OK && nd && m->tnb) st = mb_measure(m, d, v->yi, t + job->dt, 1, 0, 0, k + 1);
      if (st != SP_OK) break;
    }
    a = mb_base(m, v);
    a.kk = job->k0 + k;
    a.t = t;
    a.t2 = t + job->dt;
    a.sums_on = endsum && !m->tnb;
    a.wr = 0;
    a.tt = tn;
    a.stopchk = stop && !m->tnb;
    a.kflag = k + 1;
    a.check = 1;
    if (!srk2) out = m->share ? v->yi : v->xi;
    else out = m->share && !m->pairs ? v->zi : v->xi;
    st = mb_pass(m, d, srk2 ? 2 : 1, &a, out);
    if (!srk2 && m->share) mb_swap(&v->xi, &v->yi);
    if (srk2 && m->share && !m->pairs) mb_swap(&v->xi, &v->zi);
    if (st == SP_OK && m->tnb && endsum) st = mb_measure(m, d, v->xi, tn, 0, 0, stop, k + 1);
  }
  return st;
}

/* Mode B, verlet and yoshida4: the DKD stages of steps k0 .. k1 - 1, the
 * last move of a step fused with the first of the next (not across the
 * range's end, nor in a passage run, which checks its event after every
 * step). */
static int mb_steps_split(mb_model *m, sp_gpu_dev *d, uint64_t k0, uint64_t k1) {
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  const int stop = job->use_stop != 0, nd = job->nd > 0;
  double dd[4], cc[4];
  const int ns = sp_mb_stages((int)job->method, dd, cc);
  uint64_t k;
  int open = 1, st = SP_OK;
  for (k = k0; k < k1 && st == SP_OK; k++) {
    const double t = job->t0 + (double)k * job->dt, tn = job->t0 + (double)(k + 1) * job->dt;
    const int fuse = k + 1 < k1 && !stop;
    double tq = t;
    int s;
    for (s = 0; s < ns && st == SP_OK; s++) {
      sp_mb_kargs a;
      int endstep = 0;
      if (s == 0) {
        if (open) { /* D(c0) alone: the first move of a range */
          a = mb_base(m, v);
          a.c1 = cc[0] * job->dt;
          tq += cc[0] * job->dt;
          a.sums_on = nd && !m->tnb;
          a.tt = tq;
          a.kflag = k + 1;
          st = mb_pass(m, d, 1, &a, m->share ? v->yi : v->xi);
          if (m->share) mb_swap(&v->xi, &v->yi);
          if (st == SP_OK && nd && m->tnb) st = mb_measure(m, d, v->xi, tq, 0, 0, 0, k + 1);
          open = 0;
        } else {
          tq += cc[0] * job->dt; /* made by the previous step's last pass */
        }
        continue;
      }
      a = mb_base(m, v);
      a.t = tq; /* the force of the positions the stage starts from, at tq */
      a.h1 = dd[s] * job->dt;
      a.c1 = cc[s] * job->dt;
      a.kflag = k + 1;
      tq += cc[s] * job->dt;
      if (s < ns - 1) {
        a.sums_on = nd && !m->tnb;
        a.tt = tq;
      } else if (fuse) { /* and the next step's first move */
        const double t1 = job->t0 + (double)(k + 1) * job->dt;
        a.c3 = cc[0] * job->dt;
        a.tt = t1 + cc[0] * job->dt;
        a.sums_on = nd && !m->tnb;
        a.check = 1;
      } else {
        a.sums_on = stop && !m->tnb;
        a.tt = tn;
        a.stopchk = stop && !m->tnb;
        a.check = 1;
        endstep = 1;
        open = 1;
      }
      st = mb_pass(m, d, 1, &a, m->share ? v->yi : v->xi);
      if (m->share) mb_swap(&v->xi, &v->yi);
      if (st == SP_OK && m->tnb) {
        if (!endstep && nd) st = mb_measure(m, d, v->xi, a.tt, 0, 0, 0, k + 1);
        else if (endstep && stop) st = mb_measure(m, d, v->xi, tn, 0, 0, 1, k + 1);
      }
    }
  }
  return st;
}

/* Mode B, baoab: steps k0 .. k1 - 1, one pass a step (the closing kick of a
 * step with the opening kick of the next), a closing kick at the range's
 * end (and after every step of a passage run). */
static int mb_steps_baoab(mb_model *m, sp_gpu_dev *d, uint64_t k0, uint64_t k1) {
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  const int stop = job->use_stop != 0, nd = job->nd > 0;
  const double hh = 0.5 * job->dt;
  uint64_t k;
  int open = 1, st = SP_OK;
  for (k = k0; k < k1 && st == SP_OK; k++) {
    const double t = job->t0 + (double)k * job->dt, tn = job->t0 + (double)(k + 1) * job->dt;
    const int close = k + 1 == k1 || stop;
    sp_mb_kargs a = mb_base(m, v);
    /* the forces: of the range's start (the CPU's at each advance), or of
     * the previous step's end */
    a.t = open ? t : (job->t0 + (double)(k - 1) * job->dt) + job->dt;
    a.h1 = hh;
    a.h2 = open ? 0 : hh;
    a.c1 = hh;
    a.ostep = 1;
    a.kk = job->k0 + k;
    a.c2 = hh;
    a.sums_on = nd && !m->tnb;
    a.tt = t + job->dt;
    a.kflag = k + 1;
    a.check = 1;
    st = mb_pass(m, d, 1, &a, m->share ? v->yi : v->xi);
    if (m->share) mb_swap(&v->xi, &v->yi);
    if (st == SP_OK && nd && m->tnb) st = mb_measure(m, d, v->xi, t + job->dt, 0, 0, 0, k + 1);
    if (st == SP_OK && close) {
      a = mb_base(m, v);
      a.t = t + job->dt;
      a.h1 = hh;
      a.sums_on = (nd || stop) && !m->tnb;
      a.tt = tn;
      a.stopchk = stop && !m->tnb;
      a.kflag = k + 1;
      a.check = 1;
      st = mb_pass(m, d, 1, &a, m->share ? v->yi : v->xi);
      if (m->share) mb_swap(&v->xi, &v->yi);
      if (st == SP_OK && m->tnb && (nd || stop)) st = mb_measure(m, d, v->xi, tn, 0, 0, stop, k + 1);
    }
    open = close;
  }
  return st;
}

/* Mode A: one launch of steps k0 .. k1 - 1, a record at k1 if asked. */
static int mb_small(mb_model *m, sp_gpu_dev *d, uint64_t k0, uint64_t k1, int record, int start) {
  mb_dev *v = (mb_dev *)d->state;
  sp_mb_kargs a = mb_base(m, v);
  a.kcur = k0;
  a.kend = k1;
  a.record = record;
  a.rec_j = v->nrec_done;
  a.start = start;
  return sp_gpu_launch(d->id, v->f_small, (unsigned)v->ns, v->threads, v->shmem, d->stream, &a,
                       "sp_mb_small_kernel");
}

/* ---- the engine ------------------------------------------------------------------------ */

/* The source chunks of mode B's passes over all pairs (mb.cu: the pair
 * passes without cell lists, the observables' pair kernel) for systems of
 * n elements: *nch chunks of *tpc tiles of MB_BLOCK sources each (the last
 * one fewer).  n alone decides them -- never the device, the systems a
 * launch holds or a slice -- since they fix the order of the pair sums
 * (mb.cu's top).  A system has tiles = ceil(n / 256) target blocks; its
 * pass takes about 1024 blocks: nch = min(tiles, max(1, floor(1024 /
 * tiles))), then rounded to whole tiles a chunk, tpc = ceil(tiles / nch),
 * nch = ceil(tiles / tpc).  So n = 1e4: 40 target blocks, 20 chunks of 2
 * tiles (800 blocks); n = 1e5: 391, 2 chunks of 196; one chunk (the passes
 * as before chunks, bit for bit) from n = 131,073 on, where a system has
 * more than 512 target blocks.  (The built-in lrmd's gravity2d pass at n =
 * 1e4 ran 40 x 26 blocks, 63 % of its warps active on an H100, where the
 * declared pass's 40 blocks kept 12.5 %: bench/s16-profile.sh.) */
void sp_gpu_mb_pair_chunks(uint64_t n, int *nch, int *tpc) {
  const uint64_t tiles = n > 0 ? (n + MB_BLOCK - 1) / MB_BLOCK : 1;
  uint64_t c = MB_CHUNK_BLOCKS / tiles, t;
  if (c < 1) c = 1;
  if (c > tiles) c = tiles;
  t = (tiles + c - 1) / c;
  *tpc = (int)t;
  *nch = (int)((tiles + t - 1) / t);
}

static int mb_setup(void *model, sp_gpu_dev *d) {
  mb_model *m = (mb_model *)model;
  const sp_mb_args *A = m->a;
  const sp_mb_job *job = &A->job;
  mb_dev *v = (mb_dev *)d->state;
  const uint64_t nsys = SP_MB_SYSTEMS(job), n = job->n, npad = m->npad;
  const uint64_t nx = (uint64_t)job->nx, ne = (uint64_t)job->ne, tn = job->nt > 0 ? (uint64_t)job->nt : 1;
  const int fixed = job->output != SP_MB_OUT_PASSAGE, single = job->single != 0;
  const uint64_t ng = npad / 4;
  const size_t rb = m->rb;
  uint64_t s, i;
  size_t bytes;
  void *h;
  int st;
  v->s0 = m->nslice > 1 ? 0 : (uint64_t)d->index * m->per_dev; /* slices: all the one system */
  v->ns = nsys > v->s0 ? nsys - v->s0 : 0;
  if (v->ns > m->per_dev) v->ns = m->per_dev;
  if (v->ns == 0) {
    d->idle = 1;
    return SP_OK;
  }
  v->used = 1;
  v->nkeep = job->output == SP_MB_OUT_TRAJECTORIES && job->keep > v->s0 ? job->keep - v->s0 : 0;
  if (v->nkeep > v->ns) v->nkeep = v->ns;
  /* the kernels of the plan and method */
  if (job->x0_cond == 2 &&
      (st = sp_gpu_function(d->id, m->key, "sp_mb_start_kernel", &v->f_start)))
    return st;
  if (job->hist_bins > 0 && fixed &&
      (st = sp_gpu_function(d->id, m->key, "sp_mb_hist_kernel", &v->f_hist)))
    return st;
  if (m->small) {
    if ((st = sp_gpu_function(d->id, m->key, "sp_mb_small_kernel", &v->f_small))) return st;
  } else {
    v->n_pass1 = job->method == SP_MB_EULER ? "sp_mb_euler_kernel"
                 : job->method == SP_MB_SRK2 ? "sp_mb_p1_kernel"
                                             : "sp_mb_split_kernel";
    v->n_pass2 = "sp_mb_p2_kernel";
    if ((st = sp_gpu_function(d->id, m->key, v->n_pass1, &v->f_pass1)) ||
        (job->method == SP_MB_SRK2 &&
         (st = sp_gpu_function(d->id, m->key, v->n_pass2, &v->f_pass2))) ||
        (st = sp_gpu_function(d->id, m->key, "sp_mb_measure_kernel", &v->f_measure)) ||
        (st = sp_gpu_function(d->id, m->key, "sp_mb_keep_kernel", &v->f_keep)) ||
        (m->nslice > 1 &&
         (st = sp_gpu_function(d->id, m->key, "sp_mb_combine_kernel", &v->f_combine))) ||
        (m->nslice > 1 && m->cells &&
         ((st = sp_gpu_function(d->id, m->key, "sp_mb_slice_pack_kernel", &v->f_pack)) ||
          (st = sp_gpu_function(d->id, m->key, "sp_mb_slice_unpack_kernel", &v->f_unpack)))))
      return st;
    if (job->posd > 0 && (m->cells || job->cuto || job->output == SP_MB_OUT_RDF) &&
        ((st = sp_gpu_function(d->id, m->key, "sp_mb_cell_zero_kernel", &v->f_czero)) ||
         (st = sp_gpu_function(d->id, m->key, "sp_mb_cell_count_kernel", &v->f_ccount)) ||
         (st = sp_gpu_function(d->id, m->key, "sp_mb_cell_part_kernel", &v->f_cpart)) ||
         (st = sp_gpu_function(d->id, m->key, "sp_mb_cell_scan_kernel", &v->f_cscan)) ||
         (st = sp_gpu_function(d->id, m->key, "sp_mb_cell_fill_kernel", &v->f_cfill)) ||
         (st = sp_gpu_function(d->id, m->key, "sp_mb_cell_sort_kernel", &v->f_csort)) ||
         (st = sp_gpu_function(d->id, m->key, "sp_mb_cell_gather_kernel", &v->f_cgather))))
      return st;
    if ((job->nqo > 0 && (st = sp_gpu_function(d->id, m->key, "sp_mb_obs_kernel", &v->f_obs))) ||
        (job->output == SP_MB_OUT_RDF &&
         (st = sp_gpu_function(d->id, m->key, "sp_mb_rdf_kernel", &v->f_rdf))))
      return st;
  }
  /* geometry: n alone decides it (the order of every sum) */
  if (m->small) {
    /* SP_MB_EPT elements a thread (mb.cu; the plan's bits) */
    const uint64_t ept = (job->gpu_plan & SP_MB_PLAN_EPT1) ? 1 : (job->gpu_plan & SP_MB_PLAN_EPT2) ? 2 : 4;
    v->threads = (unsigned)((npad / ept + 31) / 32 * 32);
    /* the states; with pair terms the element parameters and the pair
     * terms' values (at least one row: mb.cu's SP_MB_UN); g(r)'s bins */
    /* (mb.cu's mb_small_p4: the positions packed, with pair terms) */
    v->shmem = (unsigned)((nx + (job->nq > 0 || job->nqo > 0
                                     ? ne + (uint64_t)(job->nu > 0 ? job->nu : 1)
                                     : 0) +
                           (job->posd > 0 && (job->nqp > 0 || job->nqo > 0) ? 4 : 0)) * npad * rb +
                          (job->output == SP_MB_OUT_RDF ? (uint64_t)job->rdf_bins * 4 : 0));
    if (v->threads > MB_SMALL_MAX || v->shmem > 48 * 1024)
      return sp_fail(SP_ERR_INVALID, "internal error: n = %llu does not fit a thread block",
                     (unsigned long long)n);
    v->bps_g = v->bps_p = 1;
    v->gpt = 1;
    v->nch = 1;
    v->tpc = 1;
  } else {
    v->gpt = 1;
    while (2 * v->gpt <= MB_GPT_MAX && ng >= (uint64_t)MB_BLOCK * (uint64_t)(2 * v->gpt) * MB_BPS_MIN)
      v->gpt *= 2;
    v->bps_g = (int)((ng + (uint64_t)MB_BLOCK * v->gpt - 1) / ((uint64_t)MB_BLOCK * v->gpt));
    v->bps_p = (int)((n + MB_BLOCK - 1) / MB_BLOCK);
    /* the sources of the passes over all pairs in chunks (n alone; the
     * tuning option mb_pair_chunks = FALSE: one) */
    v->nch = 1;
    v->tpc = v->bps_p;
    if (!(job->gpu_plan & SP_MB_PLAN_ONECHUNK)) sp_gpu_mb_pair_chunks(n, &v->nch, &v->tpc);
    if ((uint64_t)(v->bps_g > v->bps_p * v->nch ? v->bps_g : v->bps_p * v->nch) * v->ns > 0x7fffffffu)
      return sp_fail(SP_ERR_INVALID, "too many systems for one launch on %s; run fewer a call "
                     "(`first_replica` chunks)", sp_gpu_label(d->id));
  }
  /* the slice's blocks and elements (the whole system without slices) */
  v->blk0 = 0;
  v->blk1 = (uint64_t)v->bps_g;
  v->pb0 = 0;
  v->pb1 = (uint64_t)v->bps_p;
  v->i0 = 0;
  v->i1 = n;
  if (m->nslice > 1) {
    const uint64_t span = 4 * (uint64_t)MB_BLOCK * (uint64_t)v->gpt; /* elements a block */
    v->blk0 = (uint64_t)v->bps_g * (uint64_t)d->index / (uint64_t)m->nslice;
    v->blk1 = (uint64_t)v->bps_g * (uint64_t)(d->index + 1) / (uint64_t)m->nslice;
    v->i0 = v->blk0 * span < n ? v->blk0 * span : n;
    v->i1 = v->blk1 * span < n ? v->blk1 * span : n;
    /* the pair kernels' blocks of the same elements (a thread an element:
     * span is a multiple of MB_BLOCK, and i1 < n is one of span) */
    v->pb0 = v->i0 / MB_BLOCK;
    v->pb1 = v->i1 > v->i0 ? (v->i1 + MB_BLOCK - 1) / MB_BLOCK : v->pb0;
  }
  /* buffers */
  v->nbuf = 1;
  if (!m->small && m->share) v->nbuf = 2;
  if (!m->small && m->share && !m->pairs && job->method == SP_MB_SRK2) v->nbuf = 3;
  v->xi = 0;
  v->yi = 1;
  v->zi = 2;
  bytes = (size_t)(v->ns * nx * npad) * rb;
  for (i = 0; i < (uint64_t)v->nbuf; i++)
    if ((st = mb_alloc0(d, bytes, "the states", &v->buf[i]))) return st;
  if (!m->small && m->pairs && job->method == SP_MB_SRK2 &&
      (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * (nx + (uint64_t)job->nb) * npad) * rb,
                             "the first-stage drifts", &v->aux)))
    return st;
  if (m->nslice > 1 && m->cells) { /* the exchange rows: the states, SRK2's first stage */
    const uint64_t rows = nx + (job->method == SP_MB_SRK2 ? nx + (uint64_t)job->nb : 0);
    v->xhalf = (size_t)(rows * npad) * rb;
    if ((st = sp_gpu_dev_alloc(d, 2 * v->xhalf, "the slices' exchange", &v->xch))) return st;
  }
  {
    const int bps = v->bps_g > v->bps_p ? v->bps_g : v->bps_p;
    const size_t nrec = fixed ? (size_t)job->nrec : 0;
    v->half = m->nslice > 1 ? (size_t)v->ns * (size_t)bps * tn * 8 : 0;
    if ((st = mb_alloc0(d, (size_t)v->ns * 2 * tn * 8, "the sums", &v->sums)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)v->ns * (size_t)bps * tn * 8 * (m->nslice > 1 ? 2 : 1),
                               "the partial sums", &v->partial)) ||
        (st = mb_alloc0(d, (size_t)v->ns * 4, "the block counters", &v->count)) ||
        (st = mb_alloc_ones(d, (size_t)v->ns * nrec * (size_t)job->no * 8, "the records",
                            &v->rec)) ||
        (st = mb_alloc_ones(d, (size_t)(v->nkeep * nrec * nx * n) * 8, "the kept states",
                            &v->traj)) ||
        (st = mb_alloc0(d, (size_t)v->ns * 4, "the events", &v->stopped)) ||
        (st = mb_alloc0(d, (size_t)v->ns * 4, "the events", &v->xbuf)) ||
        (st = mb_alloc0(d, (size_t)v->ns * 8, "the events", &v->kstop)) ||
        (st = mb_alloc_ones(d, (size_t)v->ns * 8, "the non-finite flags", &v->badk)) ||
        (st = mb_alloc_ones(d, (size_t)v->ns * 8, "the non-finite flags", &v->badwhat)) ||
        (st = mb_alloc0(d, 8, "the flags", &v->flags)))
      return st;
  }
  /* all pairs in source chunks: each target's sums of each chunk (AQN of
   * them: mb.cu's SP_MB_AQN), a counter per target block (zeroed once: the
   * last chunk block resets it) */
  if (!m->small && v->nch > 1 && (m->allpairs || (job->nqo > 0 && !job->cuto))) {
    const uint64_t nq = job->nq > 0 ? (uint64_t)job->nq : 1, no = job->nqo > 0 ? (uint64_t)job->nqo : 1;
    const uint64_t aqn = nq > no ? nq : no;
    const uint64_t tb = v->ns * (uint64_t)v->bps_p;
    if ((st = sp_gpu_dev_alloc(d, (size_t)(tb * (uint64_t)v->nch * aqn * MB_BLOCK) * 8,
                               "the pair sums' chunks", &v->ppart)) ||
        (st = mb_alloc0(d, (size_t)tb * 4, "the pair sums' counters", &v->pcount)))
      return st;
  }
  /* the graph (edges()), the cell lists (mode B), the observables' pair
   * sums, g(r)'s counts */
  if (job->ng > 0 && job->nnz > 0) {
    uint32_t *u = (uint32_t *)malloc((size_t)(n + 1 + (uint64_t)job->nnz) * 4);
    if (u == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    for (i = 0; i <= n; i++) u[i] = (uint32_t)A->rowptr[i];
    for (i = 0; i < (uint64_t)job->nnz; i++) u[n + 1 + i] = (uint32_t)A->col[i];
    st = mb_upload(d, u, (size_t)(n + 1) * 4, "the graph", &v->rowptr);
    if (st == SP_OK) st = mb_upload(d, u + n + 1, (size_t)job->nnz * 4, "the graph", &v->col);
    free(u);
    if (st) return st;
    if (!job->graph_unit) {
      h = malloc((size_t)job->nnz * rb);
      if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
      for (i = 0; i < (uint64_t)job->nnz; i++) {
        if (single) ((float *)h)[i] = (float)A->gw[i];
        else ((double *)h)[i] = A->gw[i];
      }
      st = mb_upload(d, h, (size_t)job->nnz * rb, "the graph's weights", &v->gw);
      free(h);
      if (st) return st;
    }
  }
  if (!m->small && job->posd > 0 && (m->cells || job->cuto || job->output == SP_MB_OUT_RDF)) {
    /* the most cells any of the device's conditions needs, for any cut-off */
    uint64_t c0 = (v->s0) / job->replicas, c1 = (v->s0 + v->ns - 1) / job->replicas, c;
    v->cmax = 1;
    for (c = c0; c <= c1; c++) {
      const double *p = A->par + c * (uint64_t)job->np;
      double L[3];
      int64_t nc[3];
      int k;
      for (k = 0; k < 3; k++) L[k] = k < job->posd ? p[job->box + k] : 1;
      if (m->cells) {
        const uint64_t t = sp_mb_cell_grid(L, (int)job->posd, p[job->rc], n, nc);
        if (t > v->cmax) v->cmax = t;
      }
      if (job->cuto) {
        const uint64_t t = sp_mb_cell_grid(L, (int)job->posd, p[job->rco], n, nc);
        if (t > v->cmax) v->cmax = t;
      }
      if (job->output == SP_MB_OUT_RDF) {
        const uint64_t t = sp_mb_cell_grid(L, (int)job->posd, job->rdf_rmax, n, nc);
        if (t > v->cmax) v->cmax = t;
      }
    }
    if ((st = sp_gpu_dev_alloc(d, (size_t)(v->ns * 3 * npad) * 4, "the cell lists", &v->cell)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * SP_MB_CGRID) * 8, "the cell lists", &v->cgrid)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * npad) * 4, "the cell lists", &v->perm)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * (v->cmax + 1)) * 4, "the cell lists",
                               &v->cstart)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * SP_MB_CPARTS(v->cmax)) * 4, "the cell lists",
                               &v->cpart)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * nx * npad) * rb, "the cell lists", &v->cx)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * 4 * npad) * rb, "the cell lists", &v->cpos)) ||
        (st = sp_gpu_dev_alloc(d, (size_t)(v->ns * (ne + (uint64_t)job->nu + 2) * npad) * rb,
                               "the cell lists", &v->cu)))
      return st;
  }
  if (job->nqo > 0 &&
      (st = mb_alloc0(d, (size_t)(v->ns * (uint64_t)job->nqo * npad) * rb,
                      "the observables' pair sums", &v->obs)))
    return st;
  if (job->output == SP_MB_OUT_RDF &&
      (st = mb_alloc0(d, (size_t)(v->ns * (uint64_t)job->rdf_bins) * 8, "g(r)'s counts", &v->rdf)))
    return st;
  if (job->hist_bins > 0 && fixed &&
      (st = mb_alloc0(d, (size_t)(v->ns * job->nrec * (uint64_t)job->hist_bins) * 8,
                      "the histograms", &v->hist)))
    return st;
  /* parameters, element parameters, starts (the working precision, rows of
   * npad) */
  if ((st = mb_upload(d, A->par, (size_t)job->ncond * (size_t)job->np * 8, "the parameters",
                      &v->par)))
    return st;
  {
    const uint64_t sets = ne == 0 ? 0 : job->epar_shared ? 1 : v->ns;
    bytes = (size_t)(sets * ne * npad) * rb;
    h = calloc(bytes > 0 ? bytes : 1, 1);
    if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    for (s = 0; s < sets; s++)
      for (i = 0; i < ne; i++) {
        const uint64_t g = job->epar_shared ? 0 : v->s0 + s;
        mb_put_row(h, (size_t)(s * ne + i), A->epar + (g * ne + i) * n, n, npad, single);
      }
    st = mb_upload(d, h, bytes, "the element parameters", &v->ep);
    free(h);
    if (st) return st;
  }
  if (job->x0_cond == 2) { /* the starts' laws: drawn here (sp_mb_start_kernel) */
    sp_mb_kargs a;
    uint64_t grid = (v->ns * n + MB_BLOCK - 1) / MB_BLOCK;
    if ((st = mb_upload(d, A->x0, (size_t)job->ncond * nx * 3 * 8, "the starts' laws", &v->laws)))
      return st;
    a = mb_base(m, v);
    if (grid > 65535) grid = 65535;
    if ((st = sp_gpu_launch(d->id, v->f_start, (unsigned)grid, MB_BLOCK, 0, d->stream, &a,
                            "sp_mb_start_kernel")))
      return st;
  } else if (job->x0_cond == SP_MB_X0_RECIPES) { /* drawn here from their recipes */
    /* (slices: every slice draws the whole system alike; the first says pmax) */
    if ((st = sp_gpu_mb_recipes(d, A, v->s0, v->ns, v->buf[0], npad, rb,
                                m->nslice > 1 && d->index > 0 ? NULL : m->out->pmax)))
      return st;
  } else { /* the starts: sp_mb_out_init made them in out->x */
    bytes = (size_t)(v->ns * nx * npad) * rb;
    h = malloc(bytes > 0 ? bytes : 1);
    if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    for (s = 0; s < v->ns; s++)
      for (i = 0; i < nx; i++)
        mb_put_row(h, (size_t)(s * nx + i), m->out->x + ((v->s0 + s) * nx + i) * n, n, npad,
                   single);
    st = sp_gpu_to_device(d->id, v->buf[0], h, bytes);
    free(h);
    if (st) return st;
  }
  /* the start: its sums, record 0 (fixed length), the event (passage) */
  v->k = 0;
  v->nrec_done = 0;
  if (m->nslice > 1) { /* slices: once all are set up, the start's sums on every slice */
    int k;
    m->sl[d->index] = v;
    m->sd[d->index] = d;
    if ((st = sp_gpu_dev_event(d, &v->ev_w))) return st;
    for (k = 0; k < d->index; k++) { /* direct access between distinct devices where allowed */
      int id = m->sd[k]->id, on;
      if (id == d->id) continue;
      if ((st = sp_gpu_enable_peer(d->id, id, &on)) || (st = sp_gpu_enable_peer(id, d->id, &on)))
        return st;
    }
    d->idle = 0;
    if (++m->nready < m->nslice) return SP_OK;
    d = m->sd[0];
    v = (mb_dev *)d->state;
    if ((st = sp_gpu_activate(d->id))) return st;
  }
  if (m->small) {
    st = mb_small(m, d, 0, 0, fixed, job->use_stop != 0);
  } else {
    st = mb_measure(m, d, v->xi, job->t0, 0, fixed, job->use_stop != 0, 0);
    if (st == SP_OK && fixed) st = mb_keep(m, d);
  }
  if (st == SP_OK && fixed) st = mb_hist(m, d);
  if (st) return st;
  if (fixed) v->nrec_done = 1;
  d->idle = v->k >= job->kmax && (!fixed || v->nrec_done >= job->nrec);
  if (m->nslice > 1) {
    int k;
    for (k = 1; k < m->nslice; k++) {
      ((mb_dev *)m->sl[k])->nrec_done = v->nrec_done;
      m->sd[k]->idle = d->idle;
    }
  }
  return SP_OK;
}

/* The first write of the host memory the final states go through (fresh
 * pages: the copy buffer and the device's part of R's vector), on the
 * package's threads while the device runs the last round (as the deleted
 * built-in lrmd engine did): at n = 5e7 the page faults alone took most of a call's
 * fixed cost when the copy and the conversion met them.  Only at the round
 * that reaches the end: earlier, a short round would leave the device idle
 * while the host touches (the chain's steady rate fell by a tenth when 16
 * steps were enough); there it is never later than the copy would meet
 * them.  A buffer not allocated here (a passage run that stopped early) is
 * allocated by mb_collect. */
static void mb_touch(mb_model *m, sp_gpu_dev *d) {
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  const size_t bytes = (size_t)(v->ns * (uint64_t)job->nx * m->npad) * m->rb;
  v->touched = 1;
  if (bytes == 0 || d->index < 0 || d->index >= SP_GPU_MAX_DEVICES || m->host[d->index] != NULL)
    return;
  m->host[d->index] = malloc(bytes);
  if (m->host[d->index] == NULL) return; /* mb_collect tries again and reports */
  if (m->nslice > 1) { /* a slice: its elements of each state row */
    uint64_t r;
    for (r = 0; r < v->ns * (uint64_t)job->nx; r++) {
      sp_threads_touch((char *)m->host[d->index] + (r * m->npad + v->i0) * m->rb,
                       (v->i1 - v->i0) * m->rb, sp_threads_get());
      sp_threads_touch(m->out->x + (v->s0 * (uint64_t)job->nx + r) * job->n + v->i0,
                       (v->i1 - v->i0) * sizeof(double), sp_threads_get());
    }
    return;
  }
  sp_threads_touch(m->host[d->index], bytes, sp_threads_get());
  sp_threads_touch(m->out->x + v->s0 * (uint64_t)job->nx * job->n,
                   v->ns * (uint64_t)job->nx * job->n * sizeof(double), sp_threads_get());
}

static int mb_launch(void *model, sp_gpu_dev *d, unsigned budget) {
  mb_model *m = (mb_model *)model;
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  const int fixed = job->output != SP_MB_OUT_PASSAGE;
  const uint64_t end = job->kmax - v->k < budget ? job->kmax : v->k + budget;
  int st = SP_OK;
  if (m->nslice > 1 && d->index != 0) { /* the first slice enqueued this round for all */
    const mb_dev *v0 = (const mb_dev *)m->sl[0];
    v->k = v0->k;
    v->nrec_done = v0->nrec_done;
    v->xi = v0->xi; /* the buffer ids: the first slice's passes swap them */
    v->yi = v0->yi;
    v->zi = v0->zi;
    if (!v->touched && v->k >= job->kmax) mb_touch(m, d);
    return SP_OK;
  }
  while (st == SP_OK && v->k < end) {
    uint64_t to = end;
    int record = 0;
    if (fixed && v->nrec_done < job->nrec) {
      const uint64_t kr = sp_mb_record_step(job, v->nrec_done);
      if (kr <= end) {
        to = kr;
        record = 1;
      }
    }
    if (m->small) {
      st = mb_small(m, d, v->k, to, record, 0);
      if (st == SP_OK && record) st = mb_hist(m, d);
    } else if (to > v->k) {
      if (job->method == SP_MB_EULER || job->method == SP_MB_SRK2) st = mb_steps_sde(m, d, v->k, to);
      else if (job->method == SP_MB_BAOAB) st = mb_steps_baoab(m, d, v->k, to);
      else st = mb_steps_split(m, d, v->k, to);
      if (st == SP_OK && record) {
        st = mb_measure(m, d, v->xi, job->t0 + (double)to * job->dt, 0, 1, 0, to);
        if (st == SP_OK) st = mb_keep(m, d);
        if (st == SP_OK) st = mb_hist(m, d);
      }
    }
    v->k = to;
    if (record) v->nrec_done++;
  }
  if (st == SP_OK && !v->touched && v->k >= job->kmax) mb_touch(m, d);
  return st;
}

static int mb_poll(void *model, sp_gpu_dev *d) {
  mb_model *m = (mb_model *)model;
  const sp_mb_job *job = mb_job(m);
  mb_dev *v = (mb_dev *)d->state;
  unsigned int flags[2];
  int st;
  if ((st = sp_gpu_to_host(d->id, flags, v->flags, sizeof flags))) return st;
  if (flags[1]) { /* a non-finite state: the lowest system */
    unsigned long long *bk = (unsigned long long *)malloc((size_t)v->ns * 16);
    uint64_t s;
    if (bk == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
    st = sp_gpu_to_host(d->id, bk, v->badk, (size_t)v->ns * 8);
    if (st == SP_OK) st = sp_gpu_to_host(d->id, bk + v->ns, v->badwhat, (size_t)v->ns * 8);
    for (s = 0; st == SP_OK && s < v->ns; s++) {
      const uint64_t g = v->s0 + s;
      if (bk[s] == MB_NONE) continue;
      /* the lowest system; of one system in slices, its first step, then its
       * least element and state there */
      if (g < m->bad_s || (g == m->bad_s && (bk[s] < m->bad_k ||
                                            (bk[s] == m->bad_k && bk[v->ns + s] < m->bad_what)))) {
        m->bad_s = g;
        m->bad_k = bk[s];
        m->bad_what = bk[v->ns + s];
      }
      break;
    }
    free(bk);
    if (st) return st;
  }
  if (job->output == SP_MB_OUT_PASSAGE) d->idle = v->k >= job->kmax || flags[0] >= v->ns;
  else d->idle = v->k >= job->kmax && v->nrec_done >= job->nrec;
  d->done = d->idle ? (double)job->kmax : (double)v->k;
  return SP_OK;
}

static int mb_check(void *model) {
  mb_model *m = (mb_model *)model;
  if (m->bad_s == MB_NONE) return SP_OK;
  return sp_mb_not_finite(m->a, m->bad_s, m->bad_k, m->bad_what);
}

/* A state buffer of the device into the final states of its systems
 * (those whose state is in it: mask NULL, all). */
static void mb_states_out(const mb_model *m, const mb_dev *v, const void *h, const int *which,
                          int b) {
  const sp_mb_job *job = mb_job(m);
  const uint64_t n = job->n, nx = (uint64_t)job->nx, npad = m->npad;
  const int64_t rows = (int64_t)(v->ns * nx);
  int64_t sr;
  /* rows of states over the host's threads: the final states of a large
   * system are hundreds of MB (the float-to-double conversion and, where
   * mb_touch did not run, the page faults: 0.2-0.3 s on one thread at n =
   * 5e7) */
  (void)npad;
#ifdef _OPENMP
#  pragma omp parallel for num_threads(sp_threads_get()) schedule(static)
#endif
  for (sr = 0; sr < rows * 16; sr++) {
    const uint64_t s = (uint64_t)(sr / 16) / nx, r = (uint64_t)(sr / 16) % nx, part = (uint64_t)(sr % 16);
    const uint64_t len = v->i1 - v->i0; /* the device's elements: all, or a slice's */
    const uint64_t i0 = v->i0 + len * part / 16, i1 = v->i0 + len * (part + 1) / 16;
    double *o = m->out->x + ((v->s0 + s) * nx + r) * n;
    const uint64_t at = (s * nx + r) * npad;
    uint64_t i;
    if (which != NULL && which[s] != b) continue;
    if (job->single)
      for (i = i0; i < i1; i++) o[i] = (double)((const float *)h)[at + i];
    else
      memcpy(o + i0, (const double *)h + at + i0, (size_t)(i1 - i0) * sizeof(double));
  }
}

/* State buffer b of the device into the host buffer h (its layout): the
 * whole of it, or a slice's elements of each row. */
static int mb_fetch(const mb_model *m, sp_gpu_dev *d, const mb_dev *v, void *h, int b) {
  const uint64_t rows = v->ns * (uint64_t)mb_job(m)->nx;
  uint64_t r;
  int st = SP_OK;
  if (m->nslice <= 1) return sp_gpu_to_host(d->id, h, v->buf[b], (size_t)(rows * m->npad) * m->rb);
  for (r = 0; r < rows && st == SP_OK; r++) {
    const size_t off = (size_t)(r * m->npad + v->i0) * m->rb;
    if (v->i1 > v->i0)
      st = sp_gpu_to_host(d->id, (char *)h + off, v->buf[b] + off, (size_t)(v->i1 - v->i0) * m->rb);
  }
  return st;
}

static int mb_collect(void *model, sp_gpu_dev *d, int interrupted) {
  mb_model *m = (mb_model *)model;
  const sp_mb_job *job = mb_job(m);
  sp_mb_out *out = m->out;
  mb_dev *v = (mb_dev *)d->state;
  const uint64_t nx = (uint64_t)job->nx, n = job->n;
  const size_t bytes = (size_t)(v->ns * nx * m->npad) * m->rb;
  int *which = NULL, st;
  void *h;
  uint64_t s;
  int own = 0;
  (void)interrupted; /* the states, records and steps are those of the last round */
  if (!v->used) return SP_OK;
  if ((st = sp_gpu_stream_sync(d->id, d->stream))) return st;
  h = d->index >= 0 && d->index < SP_GPU_MAX_DEVICES ? m->host[d->index] : NULL;
  if (h == NULL) {
    h = malloc(bytes > 0 ? bytes : 1);
    own = 1;
  }
  if (h == NULL) return sp_fail(SP_ERR_NOMEM, "out of host memory");
  if (job->output == SP_MB_OUT_PASSAGE) {
    int *stopped = (int *)malloc((size_t)v->ns * 2 * sizeof(int));
    unsigned long long *ks = (unsigned long long *)malloc((size_t)v->ns * 8);
    if (stopped == NULL || ks == NULL) {
      free(stopped);
      free(ks);
      if (own) free(h);
      return sp_fail(SP_ERR_NOMEM, "out of host memory");
    }
    which = stopped + v->ns;
    st = sp_gpu_to_host(d->id, stopped, v->stopped, (size_t)v->ns * sizeof(int));
    if (st == SP_OK) st = sp_gpu_to_host(d->id, which, v->xbuf, (size_t)v->ns * sizeof(int));
    if (st == SP_OK) st = sp_gpu_to_host(d->id, ks, v->kstop, (size_t)v->ns * 8);
    for (s = 0; st == SP_OK && s < v->ns; s++) {
      const uint64_t g = v->s0 + s;
      uint64_t k = v->k;
      if (!stopped[s]) which[s] = v->xi;
      if (m->nslice > 1 && d->index != 0) continue; /* the first slice's (all alike) */
      if (stopped[s]) {
        k = ks[s];
        out->status[g] = SP_MB_ESCAPED;
        out->value[g] = (double)k * job->dt;
      } else if (v->k >= job->kmax) {
        out->status[g] = SP_MB_CENSORED;
        out->value[g] = (double)job->kmax * job->dt;
      } else {
        out->status[g] = SP_MB_PARTIAL;
        out->value[g] = (double)v->k * job->dt;
      }
      out->steps[g] = (double)k;
      out->useful += k;
      if (out->status[g] != SP_MB_PARTIAL) out->finished++;
    }
    /* the states: from the buffer each system's state is in */
    {
      int b;
      for (b = 0; st == SP_OK && b < v->nbuf; b++) {
        int any = 0;
        for (s = 0; s < v->ns; s++) any |= which[s] == b;
        if (!any) continue;
        st = mb_fetch(m, d, v, h, b);
        if (st == SP_OK) mb_states_out(m, v, h, which, b);
      }
    }
    free(stopped);
    free(ks);
  } else {
    st = mb_fetch(m, d, v, h, v->xi);
    if (st == SP_OK) mb_states_out(m, v, h, NULL, 0);
    if (m->nslice > 1 && d->index != 0) { /* records and steps: the first slice's */
      if (own) free(h);
      return st;
    }
    if (st == SP_OK && job->no > 0)
      st = sp_gpu_to_host(d->id, out->rec + v->s0 * job->nrec * (uint64_t)job->no, v->rec,
                          (size_t)(v->ns * job->nrec * (uint64_t)job->no) * 8);
    if (st == SP_OK && job->output == SP_MB_OUT_RDF && out->rdf != NULL) {
      unsigned long long *c = (unsigned long long *)malloc((size_t)(v->ns * (uint64_t)job->rdf_bins) * 8);
      uint64_t k;
      if (c == NULL) st = sp_fail(SP_ERR_NOMEM, "out of host memory");
      if (st == SP_OK) st = sp_gpu_to_host(d->id, c, v->rdf, (size_t)(v->ns * (uint64_t)job->rdf_bins) * 8);
      for (k = 0; st == SP_OK && k < v->ns * (uint64_t)job->rdf_bins; k++)
        out->rdf[v->s0 * (uint64_t)job->rdf_bins + k] = (double)c[k];
      free(c);
    }
    if (st == SP_OK && job->hist_bins > 0 && out->hist != NULL) {
      const uint64_t nh = v->ns * job->nrec * (uint64_t)job->hist_bins;
      unsigned long long *c = (unsigned long long *)malloc((size_t)(nh > 0 ? nh : 1) * 8);
      uint64_t k;
      if (c == NULL) st = sp_fail(SP_ERR_NOMEM, "out of host memory");
      if (st == SP_OK) st = sp_gpu_to_host(d->id, c, v->hist, (size_t)nh * 8);
      for (k = 0; st == SP_OK && k < nh; k++)
        out->hist[v->s0 * job->nrec * (uint64_t)job->hist_bins + k] = (double)c[k];
      free(c);
    }
    if (st == SP_OK && v->nkeep > 0 && out->traj != NULL)
      st = sp_gpu_to_host(d->id, out->traj + v->s0 * job->nrec * nx * n, v->traj,
                          (size_t)(v->nkeep * job->nrec * nx * n) * 8);
    for (s = 0; s < v->ns; s++) out->steps[v->s0 + s] = (double)v->k;
    out->useful += v->k * v->ns;
    if (v->nrec_done < out->rec_done) out->rec_done = v->nrec_done;
  }
  if (own) free(h);
  return st;
}

int sp_gpu_mb(const char *key, const void *job_, void *out_, const int *devices, int ndev,
              const sp_hooks *hooks, sp_run_info *info) {
  const sp_mb_args *a = (const sp_mb_args *)job_;
  const sp_mb_job *job = &a->job;
  sp_mb_out *out = (sp_mb_out *)out_;
  const uint64_t nsys = SP_MB_SYSTEMS(job);
  mb_model m;
  sp_gpu_engine e;
  info->seconds = info->rounds = 0;
  info->interrupted = 0;
  if (nsys == 0) return SP_OK;
  if (ndev < 1) return sp_fail(SP_ERR_INVALID, "internal error: no device");
  if (job->method < SP_MB_EULER || job->method > SP_MB_BAOAB)
    return sp_fail(SP_ERR_INVALID, "internal error: many-body method");
  memset(&m, 0, sizeof m);
  m.key = key;
  m.a = a;
  m.out = out;
  m.npad = (job->n + 3) / 4 * 4;
  m.small = (job->gpu_plan & SP_MB_PLAN_SMALL) != 0;
  m.tnb = (job->gpu_plan & SP_MB_PLAN_TERMS_NB) != 0;
  m.pairs = job->nq > 0;
  m.cells = !m.small && job->cut && job->nqp > 0;
  m.allpairs = !m.small && !m.cells && job->nqp > 0;
  m.share = m.pairs || (job->gpu_plan & SP_MB_PLAN_LATTICE) != 0;
  m.halo = m.share ? (a->slice_halo > 0 ? a->slice_halo : job->n) : 0;
  m.wrap = a->slice_wrap != 0;
  /* one system, several devices: in slices (see the top) where R planned
   * them (sde_mb_gpu_slices(): mode B, no kept states); else the devices
   * share the systems */
  m.nslice = a->slices > 1 ? ndev : 1;
  if (m.nslice > 1 && ((uint64_t)ndev != a->slices || nsys != 1 || m.small ||
                       job->output == SP_MB_OUT_TRAJECTORIES || job->hist_bins > 0))
    return sp_fail(SP_ERR_INVALID, "internal error: %llu slices of %llu systems on %d devices",
                   (unsigned long long)a->slices, (unsigned long long)nsys, ndev);
  if (m.nslice > 1) {
    m.per_dev = 1;
  } else {
    if ((uint64_t)ndev > nsys) ndev = (int)nsys;
    m.per_dev = (nsys + (uint64_t)ndev - 1) / (uint64_t)ndev;
    ndev = (int)((nsys + m.per_dev - 1) / m.per_dev); /* devices that get systems */
  }
  m.rb = job->single ? sizeof(float) : sizeof(double);
  m.bad_s = MB_NONE;
  out->useful = 0;
  out->finished = 0;
  out->rec_done = job->output == SP_MB_OUT_PASSAGE ? 0 : job->nrec;
  memset(&e, 0, sizeof e);
  e.state_size = sizeof(mb_dev);
  e.total = (double)job->kmax * (double)ndev;
  e.budget0 = m.small ? 8 : 1;
  e.budget_max = 1u << 20;
  e.setup = mb_setup;
  e.launch = mb_launch;
  e.poll = mb_poll;
  e.check = mb_check;
  e.collect = mb_collect;
  {
    const int st = sp_gpu_run(&e, &m, devices, ndev, hooks, info);
    int k;
    for (k = 0; k < SP_GPU_MAX_DEVICES; k++) free(m.host[k]);
    return st;
  }
}
