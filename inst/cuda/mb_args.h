/* mb_args.h: what the host, the compiled CPU object (mb_cpu.h) and the GPU
 * kernels (mb.cu) of a many-body model (sde_model() with mean(), sum(),
 * pairs() or lattice neighbours; sde_run(n = )) share.
 *
 * A run is `ncond` conditions x `replicas` systems of `n` elements; system s
 * = c replicas + r.  Every array of element values is stored state-major per
 * system: value v (of V per element) of element i of system s at
 * (s V + v) n + i, so that neighbouring elements are neighbouring words (the
 * GPU's loads coalesce).  The parameters of condition c are par[c np ..]
 * (the model's, then n, then the derived ones: sde_mb_header()); element
 * parameters epar: per system (ne x n each), or one set for all systems
 * (epar_shared); the starts x0 likewise, or per condition (x0_cond 1: nx
 * numbers; x0_cond 3: nx x n numbers, the same in each of its replicas),
 * or per condition and state a law (x0_cond 2: kind, a, b; the
 * engine draws them: sp_mb_out_init()) -- what R made of `init` and the
 * element parameters (the random draws come from the systems' Philox
 * streams, so both backends start from the same numbers).
 *
 * Time: step k of the chain (k0 + the steps of this call: a continuation goes
 * on counting, so its random numbers are those of one long run) is at
 * t = t0 + (k - k0) dt, formed in double.
 *
 * Random numbers (sp_streams.h): system (c, r) draws from stream c 2^40 + r
 * (r the global replica); step k uses, for element i and noise entry w, normal
 * d = i NW + w of the step: word d mod 4 of block k B + d / 4 of purpose
 * SP_PURPOSE_MB_STEPS, B = ceil(n NW / 4) (Box-Muller on words (0, 1) and
 * (2, 3)).  So a normal depends only on (seed, system, step, element,
 * entry): not on threads, devices, chunks or the backend. */
#ifndef SP_MB_ARGS_H
#define SP_MB_ARGS_H

#include "sp_common.h"
#if !SP_CUDA
#  include <math.h>
#endif

/* Methods */
#define SP_MB_EULER 0
#define SP_MB_SRK2 1
#define SP_MB_VERLET 2
#define SP_MB_YOSHIDA4 3
#define SP_MB_BAOAB 4

/* Outputs */
#define SP_MB_OUT_PASSAGE 0
#define SP_MB_OUT_RECORDS 1 /* observables per system at the record steps (also moments) */
#define SP_MB_OUT_TRAJECTORIES 2 /* the states of the first `keep` systems at the record steps,
                                    and their observables */
#define SP_MB_OUT_RDF 3          /* g(r): each system's pair counts by distance, summed over the
                                    record steps (rdf_bins bins of [0, rdf_rmax)) */

/* The GPU plan of a run (sp_mb_job's gpu_plan), bits: */
#define SP_MB_PLAN_SMALL 1    /* mode A: a system a thread block (else mode B) */
#define SP_MB_PLAN_TERMS_NB 2 /* a reduction term reads a lattice neighbour */
#define SP_MB_PLAN_LATTICE 4  /* a right-hand side reads a lattice neighbour */
#define SP_MB_PLAN_GPU 8      /* the run is on the GPU (which draws the starts of x0_cond 2) */
#define SP_MB_PLAN_EPT2 16    /* mode A: two elements a thread (mb.cu's SP_MB_EPT) */
#define SP_MB_PLAN_EPT1 32    /* mode A: one element a thread */
#define SP_MB_PLAN_ONECHUNK 64 /* mode B: the passes over all pairs in one source chunk
                                  (the tuning option mb_pair_chunks = FALSE) */

/* What an advance returns */
#define SP_MB_RUNNING 0
#define SP_MB_STOPPED 1
#define SP_MB_NONFINITE 2

/* Status of a system (passage) */
#define SP_MB_UNSTARTED (-1)
#define SP_MB_CENSORED 0
#define SP_MB_ESCAPED 1
#define SP_MB_PARTIAL 2

typedef struct {
  double dt, t0;
  uint64_t k0;           /* the chain's step at the start of this call */
  uint64_t kmax;         /* steps of this call */
  uint64_t n;            /* elements of a system */
  uint64_t replicas;     /* systems per condition in this call */
  uint64_t replica0;     /* 0-based global number of the call's first replica */
  uint64_t ncond;
  int64_t nx, ne, np, nw, nt, nd, nq, no; /* sizes (sde_mb_header()) */
  int64_t nb;            /* entries of the noise (nw for diagonal noise; a matrix: more) */
  int64_t nu;            /* the elements' values for the pair terms (mb_pair_pre) */
  int64_t method;        /* SP_MB_* */
  int64_t single;        /* 1: single precision */
  int64_t output;        /* SP_MB_OUT_* */
  uint64_t record_every; /* steps between records */
  uint64_t nrec;         /* records: steps 0, r, 2r, ... and kmax */
  uint64_t keep;         /* systems (of this call) whose states are recorded */
  int64_t use_stop;      /* passage: stop at the model's event */
  int64_t epar_shared;   /* 1: one set of element parameters for every system */
  int64_t x0_cond;       /* 1: the starts are nx numbers per condition; 2: nx laws
                            (kind, a, b) per condition, drawn by the engine; 3: nx x n
                            numbers per condition (sp_mb_out_init() copies them); 4: a
                            recipe of lrmd()'s a system, drawn by the engine
                            (src/core/sp_mb_recipe.h) */
  int64_t gpu_plan;      /* GPU only (R/sde-mb-run.R: sde_mb_gpu_plan(); the module is
                            compiled for it): SP_MB_PLAN_* bits */
  /* issue 49: particles in a box, graphs, pair observables, g(r) */
  int64_t nqp, ng, nqo;  /* pair terms of the dynamics (Q[0 .. nqp - 1]), edge terms (Q[nqp
                            ..]; nq = nqp + ng), pair terms of the observables (O[]) */
  int64_t posd;          /* positions: the box's dimension (0: the model has none) */
  int64_t px[3];         /* the position states */
  int64_t box;           /* the parameter of the box's first side (sides, then their
                            inverses: par[box + d], par[box + 3 + d]) */
  int64_t rc, rco;       /* the parameters of the largest cut-off of the dynamics' and the
                            observables' pair terms */
  int64_t cut, cuto;     /* 1: every pair term of the dynamics (observables) has a cut-off:
                            cell lists find the partners */
  int64_t nnz;           /* the graph's edges (0: no graph) */
  int64_t graph_unit;    /* 1: every edge's weight is 1 (no weight array) */
  int64_t rdf_bins;      /* output rdf: bins of [0, rdf_rmax) */
  double rdf_rmax;
  /* issue 50: a histogram of one state's values on [0, 2 pi) at every record
   * (records, trajectories): hist_bins bins (0: none) of state hist_state */
  int64_t hist_state, hist_bins;
} sp_mb_job;

/* What an advance keeps of a system for its next call (the CPU's Verlet
 * lists, mb_cpu.h): made by the model's object, which puts its own release
 * function first; the engine releases it at the end of the run. */
typedef struct sp_mb_keep_ {
  void (*release)(struct sp_mb_keep_ *);
} sp_mb_keep;

/* What an advance or an observation reads or adds to besides the job: the
 * graph of edges(), compressed rows of in-neighbours (row i: col[rowptr[i]
 * .. rowptr[i + 1] - 1], ascending, weights w or 1), the counts of g(r)
 * of the system being observed (rdf_bins doubles, added to), the
 * system's slot for what an advance keeps (NULL: nothing is kept), and the
 * engine's threads for the passes of this one system (issue 50: a call of
 * one system on several threads, sp_mb.c): team(fn, ctx, nth) runs fn(ctx,
 * me, nth) on nth threads at once (me 0 .. nth - 1; nth may come out fewer
 * than asked) and returns when every one has; team NULL or nth 1: the
 * system's passes run on the calling thread.  The vector object (mb_lanes.h)
 * splits the elements (targets) of a long pass among them, each element's
 * numbers its own and the sums in the elements' order: the same numbers on
 * any number of threads. */
typedef struct {
  const int32_t *rowptr, *col;
  const double *w;
  double *rdf;
  sp_mb_keep **keep;
  void (*team)(void (*fn)(void *, int, int), void *ctx, int nth);
  int nth;
} sp_mb_ext;

/* The cell grid of a box for a cut-off rc (cell lists: sp_mb_cells_* of
 * mb_cpu.h, the GPU's cell kernels of mb.cu): along each axis d < dim the
 * most cells whose side is at least rc (1 + 1e-6), at most 2 n + 8 cells
 * in all (a dilute box: the finest axis halved until they fit), and an axis
 * of fewer than 3 cells taken as one (its neighbours -1 and +1 would be the
 * same cell, or the cell itself).  Writes nc[3] (1 past dim); returns the
 * cells.  The same numbers on every backend (double). */
SP_FN uint64_t sp_mb_cell_grid(const double *L, int dim, double rc, uint64_t n, int64_t *nc) {
  uint64_t total;
  int d;
  for (d = 0; d < 3; d++) nc[d] = 1;
  for (d = 0; d < dim; d++) {
    const double f = rc > 0 ? floor(L[d] / (rc * (1 + 1e-6))) : 1;
    nc[d] = f < 3 ? 1 : f > 1048576 ? 1048576 : (int64_t)f;
  }
  for (;;) {
    int w = 0;
    total = (uint64_t)nc[0] * (uint64_t)nc[1] * (uint64_t)nc[2];
    if (total <= 2 * n + 8) break;
    for (d = 1; d < 3; d++)
      if (nc[d] > nc[w]) w = d;
    nc[w] /= 2;
    if (nc[w] < 3) nc[w] = 1;
  }
  return total;
}

/* The cell (along one axis of nc cells, side L) of a coordinate v in [0, L). */
SP_FN int64_t sp_mb_cell_of(double v, double L, int64_t nc) {
  int64_t c = (int64_t)(v * ((double)nc / L));
  return c < 0 ? 0 : c >= nc ? nc - 1 : c;
}

/* A start drawn for a periodic state (sde_model(periodic = ): the law's
 * kind + SP_MB_LAW_WRAP) wrapped into [-pi, pi]: v - 2 pi rint(v / 2 pi),
 * 2 pi in two parts, fused multiply-adds on both backends (the same double). */
#define SP_MB_LAW_WRAP 4
SP_FN double sp_mb_wrap_angle(double v) {
  const double k = rint(v * 0.15915494309189535);
  return fma(-k, 2.4492935982947064e-16, fma(-k, 6.2831853071795862, v));
}

/* The bin (0 .. bins - 1) of an angle x on [0, 2 pi) (a state's histogram,
 * job.hist_bins): x taken modulo 2 pi, in double (kuramoto()'s histograms,
 * binned as the deleted built-in Kuramoto engine binned them). */
SP_FN int64_t sp_mb_hist_bin(double x, int64_t bins) {
  const double two_pi = 6.283185307179586476925;
  const double u = (x - two_pi * floor(x / two_pi)) / two_pi;
  const int64_t b = (int64_t)(u * (double)bins);
  return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

/* The GPU's histogram kernel (mb.cu, sp_mb_hist_kernel): elements a block,
 * and the most bins counted in shared memory. */
#define SP_MB_HIST_SPAN 4096
#define SP_MB_HIST_SHARED_MAX 8192

/* Step of record j of a call. */
SP_FN uint64_t sp_mb_record_step(const sp_mb_job *job, uint64_t j) {
  uint64_t s = j * job->record_every;
  return s < job->kmax ? s : job->kmax;
}

/* The splitting methods' stages (kick coefficient d, then drift c, of the
 * step dt), DKD form: a stage kicks the momenta with the force of the
 * positions it starts from, then moves the positions with the new momenta.
 * Verlet: D(1/2) K(1) D(1/2); Yoshida's fourth order (w1 = 1 / (2 - 2^(1/3)),
 * w0 = 1 - 2 w1): D(w1/2) K(w1) D((w0 + w1)/2) K(w0) D((w0 + w1)/2) K(w1)
 * D(w1/2). */
#define SP_MB_YOSHIDA_W1 1.3512071919596576340476878089715
#define SP_MB_YOSHIDA_W0 (-1.7024143839193152680953756179429)
SP_FN int sp_mb_stages(int method, double *d, double *c) {
  if (method == SP_MB_VERLET) {
    d[0] = 0; c[0] = 0.5;
    d[1] = 1; c[1] = 0.5;
    return 2;
  }
  d[0] = 0;                c[0] = 0.5 * SP_MB_YOSHIDA_W1;
  d[1] = SP_MB_YOSHIDA_W1; c[1] = 0.5 * (SP_MB_YOSHIDA_W0 + SP_MB_YOSHIDA_W1);
  d[2] = SP_MB_YOSHIDA_W0; c[2] = 0.5 * (SP_MB_YOSHIDA_W0 + SP_MB_YOSHIDA_W1);
  d[3] = SP_MB_YOSHIDA_W1; c[3] = 0.5 * SP_MB_YOSHIDA_W1;
  return 4;
}

/* The compiled model's CPU entries (the shared object of mb_cpu.h).
 * advance: system (condition c, stream) from step *k (of this call) to kend
 * or its stop; x its states (nx x n, double), ep its element parameters
 * (ne x n), par its condition's parameters; work: sp_mb_work_size() doubles.
 * Returns SP_MB_RUNNING, SP_MB_STOPPED (*k the step after which the event
 * held) or SP_MB_NONFINITE (*k the step, *what = element << 8 | state).
 * observe: the observables of the state x at step k (into o[no]). */
typedef int (*sp_mb_advance_fn)(const sp_mb_job *job, const sp_mb_ext *ext, const double *par,
                                const double *ep, uint64_t seed, uint64_t stream, double *x,
                                double *work, uint64_t *k, uint64_t kend, uint64_t *what);
typedef void (*sp_mb_observe_fn)(const sp_mb_job *job, const sp_mb_ext *ext, const double *par,
                                 const double *ep, uint64_t k, const double *x, double *work,
                                 double *o);

/* Doubles of work an advance needs (both precisions fit): mb_cpu.h's rows,
 * at least one each of noise, pair sums and element parameters (its
 * SP_MB_WN, SP_MB_QN, SP_MB_EN), then the sums. */
SP_FN uint64_t sp_mb_work_size(const sp_mb_job *job) {
  const uint64_t n = job->n, nx = (uint64_t)job->nx;
  const uint64_t nw = job->nb > job->nw ? (uint64_t)job->nb : job->nw > 0 ? (uint64_t)job->nw : 1,
                 nq = job->nq > 0 ? (uint64_t)job->nq : 1,
                 ne = job->ne > 0 ? (uint64_t)job->ne : 1, nu = job->nu > 0 ? (uint64_t)job->nu : 1;
  const uint64_t no = job->nqo > 0 ? (uint64_t)job->nqo : 1;
  /* cell lists (mb_cpu.h): each element's cell and the permutation (2 n
   * 32-bit words), the cells' starts (at most 2 n + 9 words) */
  const uint64_t cells = job->posd > 0 ? (4 * n + 10) / 2 + 2 : 0;
  return n * (4 * nx + nw + nq + ne + nu + no) + cells + 2 * (uint64_t)job->nt +
         4 * (uint64_t)(job->np + 8) + 64;
}

/* ---- the GPU kernels' arguments (inst/cuda/mb.cu, src/gpu/sp_gpu_mb.c) ----------
 *
 * One struct for every kernel of mb.cu, copied at each launch.  The device
 * holds systems sys0 .. sys0 + nsys - 1 of the call; its arrays are indexed
 * by the local system s.  A state array holds, per system, nx rows of npad
 * = 4 ceil(n / 4) values in the working precision (sp_mb_real: SP_REAL in
 * the kernels), element i of state v of system s at (s nx + v) npad + i,
 * the padding 0; element parameters likewise (ne rows, one set for all
 * systems when job.epar_shared).  sums: per system two slots of nt doubles
 * (slot 0: the reduction terms of the state x, slot 1: of SRK2's
 * predictor), each at the time the next pass reads them. */
typedef struct {
  sp_mb_job job;
  uint64_t seed;
  SP_DPTR(const double) par;         /* ncond x np, the CPU's numbers */
  SP_DPTR(const sp_mb_real) ep;      /* element parameters (1 or nsys) x ne x npad */
  SP_DPTR(sp_mb_real) x;             /* the state a pass starts from */
  SP_DPTR(sp_mb_real) y;             /* SRK2's predictor, or the state a pass writes */
  SP_DPTR(sp_mb_real) z;             /* the state SRK2's corrector writes (lattices) */
  SP_DPTR(sp_mb_real) aux;           /* SRK2 with pairs: first-stage drift and noise,
                                        nsys x (nx + nw) x npad */
  SP_DPTR(double) sums;              /* nsys x 2 x nt */
  SP_DPTR(double) partial;           /* nsys x bps x nt: block partial sums */
  SP_DPTR(unsigned int) count;       /* nsys: blocks finished (last-block-done) */
  SP_DPTR(double) rec;               /* nsys x nrec x no, NaN until reached */
  SP_DPTR(double) traj;              /* nkeep x nrec x nx x n (doubles, the host's layout) */
  SP_DPTR(int) stopped;              /* nsys: 1 once the event held */
  SP_DPTR(int) xbuf;                 /* nsys: the buffer (x_id) its state is in then */
  SP_DPTR(unsigned long long) kstop; /* nsys: steps of the call at the event */
  SP_DPTR(unsigned long long) badk;  /* nsys: the first step with a non-finite state */
  SP_DPTR(unsigned long long) badwhat; /* nsys: element << 8 | state at that step */
  SP_DPTR(unsigned int) flags;       /* [0] systems stopped, [1] non-finite seen */
  SP_DPTR(const double) laws;        /* x0_cond 2: the starts' laws (job x0), ncond x nx x 3 */
  uint64_t sys0, nsys, npad, nkeep;
  uint64_t kcur, kend;    /* mode A: the launch makes steps kcur .. kend - 1 of the call */
  uint64_t kk;            /* mode B: the chain's step of the pass's normals (k0 + k) */
  uint64_t kflag;         /* steps of the call made once the pass's step is done */
  uint64_t rec_j;         /* the record written (record) */
  double t, t2, tt;       /* drift or force time; SRK2's second-stage time; the time
                             of the reduction terms the pass adds up */
  double h1, h2, c1, c2, c3; /* splitting pass: kicks by h1, h2, moves by c1, (O,) c2, c3 */
  double sdt;             /* sqrt(dt) */
  int32_t bps, gpt;       /* blocks a system; groups of four elements a thread */
  int32_t sums_on, wr;    /* 1: add up the terms of the new state into slot wr */
  int32_t record, stopchk; /* the last block writes record rec_j; checks the event */
  int32_t ostep, x_id;    /* BAOAB's O-step in this pass; the id of the buffer written */
  int32_t check, start;   /* flag non-finite states; mode A: check the event at kcur */
  uint64_t blk0;          /* mode B, one system in slices (several devices): the first
                             block (of the system's bps, group or pair kernels) of this
                             slice's launch */
  int32_t split;          /* 1: a slice's pass writes its blocks' partial sums only;
                             sp_mb_combine_kernel adds them up once every slice's are in */
  int32_t nch;            /* mode B, all pairs (the pair passes, the observables' pair
                             kernel): the sources in nch chunks of tpc tiles (1: one
                             chunk; a launch of nch x its target blocks, mb.cu) */
  /* issue 49 */
  SP_DPTR(const uint32_t) rowptr;    /* the graph: n + 1 row offsets, */
  SP_DPTR(const uint32_t) col;       /* the in-neighbours, */
  SP_DPTR(const sp_mb_real) gw;      /* their weights (0: all 1) */
  SP_DPTR(uint32_t) cell;            /* cell lists (mode B): nsys x 3 x npad, each element's
                                        cell, its rank, the elements by cells unsorted */
  SP_DPTR(uint32_t) perm;            /* nsys x npad: the elements cell by cell */
  SP_DPTR(uint32_t) cstart;          /* nsys x (cmax + 1): the cells' first slots */
  SP_DPTR(sp_mb_real) cx;            /* nsys x nx x npad: the states in the cells' order */
  SP_DPTR(sp_mb_real) cu;            /* nsys x (ne + nu) x npad: element parameters and the
                                        pair terms' values in that order */
  SP_DPTR(sp_mb_real) obs;           /* nsys x nqo x npad: the observables' pair sums */
  SP_DPTR(unsigned long long) rdf;   /* nsys x rdf_bins: g(r)'s counts */
  uint64_t cmax;                     /* cells of a system, at most (the cstart stride) */
  double crc;                        /* the cut-off the cell list is built for */
  int32_t obs_on, rdf_on;            /* a measure: with the observables' pair sums; g(r) */
  SP_DPTR(sp_mb_real) cpos;          /* nsys x npad x 4: the positions in the cells' order,
                                        packed (one vector load a partner) */
  SP_DPTR(uint32_t) cpart;           /* nsys x SP_MB_CPARTS(cmax): the cells' counts summed
                                        over chunks of SP_MB_CCHUNK (the scan's first part) */
  SP_DPTR(unsigned long long) hist;  /* nsys x nrec x hist_bins: the histograms' counts */
  SP_DPTR(double) cgrid;             /* nsys x SP_MB_CGRID: the last cell list's grid
                                        (mb.cu's mb_cg: nc / L, nc, cells) */
  /* issue 50: all pairs in source chunks (nch > 1) */
  SP_DPTR(double) ppart;             /* nsys x bps x nch x AQN x 256: each target's pair sums
                                        of each chunk (AQN: mb.cu's SP_MB_AQN, the larger of
                                        max(nq, 1) and max(nqo, 1)) */
  SP_DPTR(unsigned int) pcount;      /* nsys x bps: the chunk blocks of a target block
                                        finished (last-block-done) */
  int32_t tpc, pad2_;                /* tiles (of 256 sources) a chunk */
} sp_mb_kargs;

/* The cells' scan (mb.cu) in chunks of SP_MB_CCHUNK cells, a block each:
 * the chunks of a system of at most c cells. */
#define SP_MB_CCHUNK 2048
#define SP_MB_CPARTS(c) (((c) + SP_MB_CCHUNK) / SP_MB_CCHUNK)
/* doubles a system of the cell grid's record (kargs cgrid) */
#define SP_MB_CGRID 8

SP_STATIC_ASSERT(sizeof(sp_mb_job) == 368, "sp_mb_job layout");
SP_STATIC_ASSERT(sizeof(sp_mb_kargs) == 880, /* 368 + 8 + 39 x 8 + 12 x 4 + 12 x 8 + 8 + 8 + 2 x 4
                                                 + 2 x 8 + 2 x 4 */
                 "sp_mb_kargs layout");

#endif
