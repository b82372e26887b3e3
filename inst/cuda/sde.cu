/* sde.cu: a user's SDE model on the GPU.  Compiled by NVRTC per model (its
 * generated header sde_model.h, found on the include path of the model's
 * cache folder) and precision (-DSP_REAL=float -DSP_REAL_SINGLE=1, or
 * double); the per-path loop is sde_engine.h's, the same as the CPU's.
 *
 * sp_sde_passage_kernel: persistent lanes (one thread each) take paths from
 *   a counter, advance them by `budget` steps a launch (rounded up to whole
 *   chunks of SP_SDE_CHUNK steps, ending at multiples of it), write the
 *   passage time (or the censoring at t_max) and take the next path, so no
 *   lane waits for a slow path; the state of running paths (and their run
 *   of coarse steps, row SP_SDE_NX of the lane states) is saved between
 *   launches; once no path is left to hand out, the host packs the running
 *   paths into the first lanes (sp_sde_compact_kernel) as escape.cu's
 *   engine does.  A non-finite (or stalled: sde_engine.h) path writes its
 *   step and status and flags itself in counters->bad (path << 8 | state;
 *   the lowest wins).
 * sp_sde_start_kernel, sp_sde_fixed_kernel: every path of the call, one
 *   thread each, advances from kcur to kend; at a record, each block (a tile
 *   of SP_SDE_TILE replicas of one condition) reduces its values to
 *   (n, mean, M2) per variable in a fixed order (the host combines the tiles
 *   in order), counts the histograms and writes the kept trajectories.
 * sp_sde_time_kernel, sp_sde_fixed_tab_kernel: for a model with time terms
 *   (SP_SDE_NT > 0: subexpressions of t and the parameters only, such as a
 *   drive a cos(omega t) + f, computed in double: sde_engine.h, "Time
 *   terms"), the first fills their table for the launch's steps kcur ..
 *   kend and every condition, a thread a row; the second is
 *   sp_sde_fixed_kernel reading them there, one uniform load a step (the
 *   block's paths are of one condition), instead of every path computing
 *   them in double at both stages of every step.  The same numbers.  The
 *   host takes it where the table fits (sp_gpu_sde.c). */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#ifndef SP_SDE_CHUNK
#  define SP_SDE_CHUNK 16 /* steps between a lane's checks for a new path (bench/RESULTS.md,
                            * issue 34 item 5, run 9: 16 beat 8 and 32) */
#endif

#ifndef SP_SDE_MINBLOCKS
#  define SP_SDE_MINBLOCKS 1 /* blocks an SM the passage kernel's registers allow (1: no cap) */
#endif

#include "sde_args.h"
#include "sde_prelude.h"
#include "sde_model.h"
#include "sde_engine.h"

/* The model's copy for the passage kernel's fast macro-steps (single
 * precision, a model not compiled out of line): the same functions, named
 * SP_LANE(name), whose sin and cos skip the test of their range, keeping
 * the largest |argument| in the slot p[SP_SDE_NP] past the parameters
 * instead (sde_prelude.h); a macro-step where it passed the range is
 * redone by the scalar copy (sp_sde_advance), as a flagged one is.  The
 * same numbers wherever both compute. */
#if defined(SP_REAL_SINGLE) && !defined(SP_SDE_OUTLINED)
#  define SP_SDE_GPU_COPY 1
#  define SP_PREC_LANE 1
#  include "sde_prelude.h"
#  include "sde_model.h"
#  include "sde_engine.h"
#  undef SP_PREC_LANE
/* A model with sin or cos (SP_SDE_TRIG) under the fast math gets a second
 * copy, named SP_BARE(name), whose sine and cosine are the bare hardware
 * ones (sde_prelude.h): the first copy's numbers while the arguments stay
 * within [-pi, pi] (the largest |argument| kept in the same slot), eight
 * instructions fewer a call.  A lane runs it until a macro-step's argument
 * passes pi, redoes that macro-step by sp_sde_advance (the scalar copy, as
 * a flagged macro-step) and keeps to the first copy for the rest of its
 * path (a new path, or the next launch, tries the bare copy again). */
#  if defined(SP_SDE_TRIG) && defined(SP_SDE_FAST_MATH)
#    define SP_SDE_GPU_BARE 1
#    define SP_PREC_LANE 1
#    define SP_PREC_BARE 1
#    include "sde_prelude.h"
#    include "sde_model.h"
#    include "sde_engine.h"
#    undef SP_PREC_BARE
#    undef SP_PREC_LANE
#  else
#    define SP_SDE_GPU_BARE 0
#  endif
#  include "sp_precision.h" /* the scalar copy's names again */
#  define SP_SDE_FAST(name) SP_LANE(name)
#  ifdef SP_SDE_GPU_TRIG_MAX
#    define SP_SDE_FAST_BIG(p) (!((p)[SP_SDE_NP] <= SP_SDE_GPU_TRIG_MAX))
#  else
#    define SP_SDE_FAST_BIG(p) 0
#  endif
#else
#  define SP_SDE_GPU_COPY 0
#  define SP_SDE_GPU_BARE 0
#  define SP_SDE_FAST(name) SP_PREC(name)
#  define SP_SDE_FAST_BIG(p) 0
#endif

#if SP_SDE_CHUNK % SP_SDE_M != 0
#  error "SP_SDE_CHUNK must be a multiple of the macro-step SP_SDE_M"
#endif

#define SP_SDE_PN (SP_SDE_NP > 0 ? SP_SDE_NP : 1)
#define SP_SDE_NVAR_C (SP_SDE_NX + SP_SDE_NO)

__device__ __forceinline__ void sp_sde_load_start(const sp_sde_kargs &a, uint64_t p,
                                                  SP_REAL *x) {
  const uint64_t c = p / a.job.n, r = p % a.job.n;
  for (int i = 0; i < SP_SDE_NX; i++) {
    const int iv = a.init_vec[i];
    x[i] = (SP_REAL)(iv >= SP_SDE_PER_PATH
                         ? a.init_vals[(uint64_t)(iv - SP_SDE_PER_PATH) * a.job.ncond * a.job.n + p]
                     : iv >= 0 ? a.init_vals[(uint64_t)iv * a.job.n + r]
                               : a.init[c * SP_SDE_NX + (uint64_t)i]);
  }
}

/* The path (over conditions x replicas: its stream and condition) of the
 * call's path q: a continuation's list (job.nrun > 0), else q itself. */
__device__ __forceinline__ uint64_t sp_sde_path_of(const sp_sde_kargs &a, uint64_t q) {
  return a.job.nrun > 0 ? (uint64_t)a.run_path[q] : q;
}

/* The call's path q of this device's path j (several devices: its blocks
 * of SP_SDE_DEV_BLOCK in turn; one device: q = j). */
__device__ __forceinline__ uint64_t sp_sde_global(const sp_sde_kargs &a, uint64_t j) {
  if (a.dev_n <= 1) return j;
  return ((j / SP_SDE_DEV_BLOCK) * a.dev_n + a.dev_i) * SP_SDE_DEV_BLOCK + j % SP_SDE_DEV_BLOCK;
}

/* The row of path q not stopped (job.hold): its step k, stop_t (NaN, or
 * the time of a stop past t_max), its states and run (SP_SDE_HS). */
__device__ __forceinline__ void sp_sde_hold(const sp_sde_kargs &a, uint64_t q, uint64_t k,
                                            double stop_t, const SP_REAL *x, unsigned run) {
  if (!a.job.hold) return;
  const unsigned long long i = atomicAdd(&a.counters->held, 1ull);
  double *row = a.held + i * (uint64_t)SP_SDE_HS(SP_SDE_NX);
  row[0] = (double)q;
  row[1] = (double)k;
  row[2] = stop_t;
  for (int j = 0; j < SP_SDE_NX; j++) row[3 + j] = (double)x[j];
  row[3 + SP_SDE_NX] = (double)run;
}

/* The step h and sqrt(dt) in the working precision. */
#ifdef SP_REAL_SINGLE
#  define SP_SDE_H(a) ((a).dt_f)
#  define SP_SDE_SDT(a) ((a).sdt_f)
#else
#  define SP_SDE_H(a) ((a).job.dt)
#  define SP_SDE_SDT(a) ((a).sdt)
#endif

/* The parameters of condition c: p in the working precision, pd in double
 * (read only by the model's subexpressions of t and the parameters, such as
 * cos(omega * t); in double precision pd is p: SP_SDE_PD_DECL). */
__device__ __forceinline__ void sp_sde_load_par(const sp_sde_kargs &a, uint64_t c, SP_REAL *p,
                                                double *pd) {
#pragma unroll
  for (int i = 0; i < SP_SDE_NP; i++) {
    const double v = a.par[c * SP_SDE_PN + (uint64_t)i];
    p[i] = (SP_REAL)v;
    pd[i] = v; /* the same store in double precision */
  }
}
#ifdef SP_REAL_SINGLE
#  define SP_SDE_PD_DECL(pd, p) double pd[SP_SDE_PN]
#else
#  define SP_SDE_PD_DECL(pd, p) double *const pd = (p)
#endif

__device__ __forceinline__ unsigned long long sp_sde_warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* A lane advances its path in chunks of SP_SDE_CHUNK steps that end at
 * multiples of SP_SDE_CHUNK (a multiple of the macro-step SP_SDE_M), and a
 * chunk costs the lane's budget the same whether the path ran through it or
 * stopped inside it: the lanes of a warp stay in step (every chunk two
 * whole macro-steps, one Philox draw each), as escape.cu's lanes do.  (A
 * lane charged only the steps it ran would, after a passage inside a chunk,
 * end the launch inside a macro-step, and from then on its chunks straddle
 * three macro-steps, which its warp runs for all its lanes.) */
extern "C" __global__ void __launch_bounds__(SP_SDE_BLOCK, SP_SDE_MINBLOCKS)
sp_sde_passage_kernel(const sp_sde_kargs a) {
  const uint64_t lid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const bool in = lid < a.nlanes; /* the other lanes of the last warp only count */
  long long pid = in ? a.pid[lid] : -2;
  uint64_t k = 0, stream = 0;
  unsigned run = 0;
#if SP_SDE_GPU_BARE
  bool wide = false; /* the path's sines have passed pi: the first copy */
#endif
  /* p[SP_SDE_NP]: the largest |argument| of a sine in the fast copy's
   * macro-steps (SP_SDE_FAST) */
  SP_REAL x[SP_SDE_NX], p[SP_SDE_PN + 1];
  SP_SDE_PD_DECL(pd, p);
  const int bridge = (int)a.job.bridge;
  unsigned long long useful = 0, done = 0, issued = 0;
  const unsigned int chunks = (a.budget + SP_SDE_CHUNK - 1) / SP_SDE_CHUNK;
  if (pid == -2 && in) pid = -1; /* more paths may be left */
  if (pid >= 0) {
    const uint64_t pp = sp_sde_path_of(a, sp_sde_global(a, (uint64_t)pid)), c = pp / a.job.n;
    for (int i = 0; i < SP_SDE_NX; i++) x[i] = (SP_REAL)a.x[(uint64_t)i * a.cap + lid];
    run = (unsigned)a.x[(uint64_t)SP_SDE_NX * a.cap + lid];
    k = a.k[lid];
    sp_sde_load_par(a, c, p, pd);
    stream = ((c + a.job.cond0) << 40) + a.job.replica0 + pp % a.job.n;
  }
  for (unsigned int it = 0; it < chunks && pid != -2; it++) {
    if (pid == -1) {
      const unsigned long long q = atomicAdd(a.next, 1ull);
      if (q >= a.total) {
        pid = -2;
        break;
      }
      pid = (long long)q;
      const uint64_t qg = sp_sde_global(a, q); /* the call's slot */
      const uint64_t pp = sp_sde_path_of(a, qg), c = pp / a.job.n;
      sp_sde_load_par(a, c, p, pd);
      stream = ((c + a.job.cond0) << 40) + a.job.replica0 + pp % a.job.n;
      if (a.job.nrun > 0) { /* a continuation: the path from its step and record */
        const double *r = a.run_x + qg * (uint64_t)SP_SDE_XS(SP_SDE_NX);
        for (int i = 0; i < SP_SDE_NX; i++) x[i] = (SP_REAL)r[i];
        run = (unsigned)r[SP_SDE_NX];
        k = (uint64_t)a.run_k[qg];
      } else {
        sp_sde_load_start(a, pp, x);
        k = 0;
        run = 0;
      }
#if SP_SDE_GPU_BARE
      wide = false;
#endif
    }
    issued += SP_SDE_CHUNK;
    /* the usual chunk (a path past its first step, the chunk ending
     * before kmax): its macro-steps without the per-step tests or the
     * bookkeeping of sp_sde_advance; the macro-step where the event holds
     * or the state turns non-finite, and the first and last chunks of a
     * path, by sp_sde_advance from the start of that macro-step (the same
     * steps, normals and numbers); so is a continued path's first chunk,
     * from a step inside a chunk to its end */
    if (k != 0 && k % SP_SDE_CHUNK == 0 && k + SP_SDE_CHUNK < a.job.kmax) {
      bool flagged = false;
      SP_REAL g0 = SP_PREC(sp_sde_gap0)(p, pd, 1, bridge, a.job.dt, k, x);
      p[SP_SDE_NP] = 0;
#pragma unroll
      for (int u = 0; u < SP_SDE_CHUNK / SP_SDE_M; u++) {
        SP_REAL xs[SP_SDE_NX], z[SP_SDE_ZN];
        const unsigned runs = run;
#pragma unroll
        for (int i = 0; i < SP_SDE_NX; i++) xs[i] = x[i];
        /* the seed's round keys from the argument (the same normals) */
        SP_PREC(sp_sde_normals_keyed)(a.keys, stream, k, z);
        int f;
#if SP_SDE_GPU_BARE
        /* a path whose sines stay within [-pi, pi] runs the bare copy; a
         * macro-step with an argument beyond is redone by sp_sde_advance
         * below, as a flagged one is, and the path keeps to the first copy
         * from then on (an argument past 8192 is past pi: the first copy's
         * test of 8192 is not needed here) */
        if (!wide)
          f = SP_BARE(sp_sde_macro_fast)(p, pd, SP_SDE_HEUN, 1, bridge, 0, SP_SDE_NO_TAB, k, a.job.dt,
                                         SP_SDE_H(a), SP_SDE_SDT(a), z, x, &run, &g0) |
              !(p[SP_SDE_NP] <= SP_SDE_GPU_BARE_MAX);
        else
#endif
        f = SP_SDE_FAST(sp_sde_macro_fast)(p, pd, SP_SDE_HEUN, 1, bridge, 0, SP_SDE_NO_TAB, k, a.job.dt,
                                           SP_SDE_H(a), SP_SDE_SDT(a), z, x, &run, &g0) |
            SP_SDE_FAST_BIG(p);
        if (f) {
#pragma unroll
          for (int i = 0; i < SP_SDE_NX; i++) x[i] = xs[i];
          run = runs;
#if SP_SDE_GPU_BARE
          wide = wide || !(p[SP_SDE_NP] <= SP_SDE_GPU_BARE_MAX);
#endif
          flagged = true;
          break;
        }
        k += SP_SDE_M;
      }
      if (!flagged) continue;
    }
    const uint64_t kc = k - k % SP_SDE_CHUNK + SP_SDE_CHUNK;
    const uint64_t kend = kc < a.job.kmax ? kc : a.job.kmax;
    SP_REAL frac = 1;
    int what = 0;
    const int st = SP_PREC(sp_sde_advance)(p, pd, a.job.dt, SP_SDE_H(a), SP_SDE_SDT(a), a.seed,
                                           stream, SP_SDE_HEUN, 1, bridge, 0, SP_SDE_NO_TAB, 0, x, &run,
                                           &k, kend, &frac, &what);
    if (st == SP_SDE_NONFINITE || st == SP_SDE_STALLED) {
      a.value[pid] = (double)k;
      a.status[pid] = st == SP_SDE_STALLED ? SP_SDE_STALL : SP_SDE_BAD;
      atomicMin(&a.counters->bad, ((unsigned long long)pid << 8) | (unsigned long long)what);
      pid = -1;
      break;
    }
    int fin = -1;
    double val = 0, stop_t = -1.0;
    if (st == SP_SDE_STOPPED) {
      const double t = k == 0 ? 0.0 : ((double)k - 1.0 + (double)frac) * a.job.dt;
      fin = t <= a.job.t_max ? SP_SDE_ESCAPED : SP_SDE_CENSORED;
      val = t <= a.job.t_max ? t : a.job.t_max;
      stop_t = t;
    } else if (k >= a.job.kmax) {
      fin = SP_SDE_CENSORED;
      val = a.job.t_max;
    }
    if (fin == SP_SDE_CENSORED) /* not stopped, or stopped past t_max (at stop_t) */
      sp_sde_hold(a, sp_sde_global(a, (uint64_t)pid), k, stop_t >= 0 ? stop_t : __longlong_as_double(0x7ff8000000000000ll),
                  x, run);
    if (fin >= 0) {
      a.value[pid] = val;
      a.status[pid] = fin;
      if (a.job.save_state)
        for (int i = 0; i < SP_SDE_NX; i++) a.state[(uint64_t)pid * SP_SDE_NX + i] = (double)x[i];
      useful += k;
      done++;
      pid = -1;
    }
  }
  if (in) {
    a.pid[lid] = pid;
    if (pid >= 0) {
      for (int i = 0; i < SP_SDE_NX; i++) a.x[(uint64_t)i * a.cap + lid] = (double)x[i];
      a.x[(uint64_t)SP_SDE_NX * a.cap + lid] = (double)run;
      a.k[lid] = k;
      int what = 0;
      if (!SP_PREC(sp_sde_finite)(x, &what))
        atomicMin(&a.counters->bad, ((unsigned long long)pid << 8) | (unsigned long long)what);
    }
  }
  /* the launch's counts, one atomic a warp (the grid is whole warps) */
  useful = sp_sde_warp_sum(useful);
  done = sp_sde_warp_sum(done);
  issued = sp_sde_warp_sum(issued);
  if ((threadIdx.x & 31) == 0) {
    if (useful) atomicAdd(&a.counters->useful, useful);
    if (done) atomicAdd(&a.counters->finished, done);
    if (issued) atomicAdd(&a.counters->issued, issued);
  }
}

/* Pack the lanes that hold a path into the front of the other buffers (the
 * order does not matter: a path's numbers do not depend on its lane). */
extern "C" __global__ void __launch_bounds__(SP_SDE_BLOCK)
sp_sde_compact_kernel(const sp_sde_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.nlanes || a.pid[i] < 0) return;
  const unsigned long long j = atomicAdd(a.count, 1ull);
  a.pid_to[j] = a.pid[i];
  a.k_to[j] = a.k[i];
  for (int v = 0; v <= SP_SDE_NX; v++) /* the states and the run of coarse steps */
    a.x_to[(uint64_t)v * a.cap + j] = a.x[(uint64_t)v * a.cap + i];
}

/* The start of every path of the call into the state array (nx x total). */
extern "C" __global__ void __launch_bounds__(SP_SDE_BLOCK)
sp_sde_start_kernel(const sp_sde_kargs a) {
  const uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  SP_REAL x[SP_SDE_NX];
  if (p >= a.total) return;
  sp_sde_load_start(a, p, x);
  for (int i = 0; i < SP_SDE_NX; i++) a.x[(uint64_t)i * a.total + p] = (double)x[i];
  a.x[(uint64_t)SP_SDE_NX * a.total + p] = 0; /* the run of coarse steps */
}

#define SP_SDE_WARPS (SP_SDE_TILE / 32)

/* The sums over the block's threads of v[0 .. SP_SDE_NVAR_C - 1], in a fixed
 * order (a warp's lanes by halving shuffles, then the warps in turn), into
 * the shared tot[]: one pass for all the variables, two barriers. */
__device__ __forceinline__ void sp_sde_block_sums(const double *v, double *sh, double *tot) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
#pragma unroll
  for (int q = 0; q < SP_SDE_NVAR_C; q++) {
    double s = v[q];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) sh[q * SP_SDE_WARPS + w] = s;
  }
  __syncthreads();
  for (int q = threadIdx.x; q < SP_SDE_NVAR_C; q += SP_SDE_TILE) {
    double s = 0;
    for (int i = 0; i < SP_SDE_WARPS; i++) s += sh[q * SP_SDE_WARPS + i];
    tot[q] = s;
  }
  __syncthreads();
}

/* A record's tile statistics reduced to one (n, mean, M2) per condition
 * and variable, on the device (block c * SP_SDE_NVAR_C + v): thread i
 * merges tiles i, i + SP_SDE_TILE, ... in order, then the threads'
 * statistics are merged in a fixed tree.  The host then copies a few
 * numbers a record instead of every tile's and combining them one by one
 * (some 2.5 ms a record at 2^24 replicas).  The order differs from the
 * CPU's sequential combination: rounding only. */
extern "C" __global__ void __launch_bounds__(SP_SDE_TILE)
sp_sde_tiles_kernel(const sp_sde_kargs a) {
  const uint64_t tpc = (a.job.n + SP_SDE_TILE - 1) / SP_SDE_TILE;
  const uint64_t c = blockIdx.x / SP_SDE_NVAR_C;
  const int v = (int)(blockIdx.x % SP_SDE_NVAR_C), i = threadIdx.x;
  __shared__ double sn[SP_SDE_TILE], sm[SP_SDE_TILE], s2[SP_SDE_TILE];
  double n = 0, mean = 0, m2 = 0;
  for (uint64_t t = (uint64_t)i; t < tpc; t += SP_SDE_TILE) {
    const double *s = a.tiles + ((c * tpc + t) * SP_SDE_NVAR_C + (uint64_t)v) * 3;
    sp_sde_merge(&n, &mean, &m2, s[0], s[1], s[2]);
  }
  sn[i] = n;
  sm[i] = mean;
  s2[i] = m2;
  for (int h = SP_SDE_TILE / 2; h > 0; h >>= 1) {
    __syncthreads();
    if (i < h) {
      n = sn[i];
      mean = sm[i];
      m2 = s2[i];
      sp_sde_merge(&n, &mean, &m2, sn[i + h], sm[i + h], s2[i + h]);
      sn[i] = n;
      sm[i] = mean;
      s2[i] = m2;
    }
  }
  if (i == 0) {
    double *o = a.red + (c * SP_SDE_NVAR_C + (uint64_t)v) * 3;
    o[0] = sn[0];
    o[1] = sm[0];
    o[2] = s2[0];
  }
}

/* The fixed-length kernels' body: use_tab (a constant of each kernel) 1
 * reads the time terms from the launch's table (sp_sde_time_kernel). */
__device__ __forceinline__ void sp_sde_fixed_body(const sp_sde_kargs &a, const int use_tab) {
  const uint64_t tpc = (a.job.n + SP_SDE_TILE - 1) / SP_SDE_TILE;
  const uint64_t c = blockIdx.x / tpc, r0 = (blockIdx.x % tpc) * SP_SDE_TILE;
  const uint64_t r = r0 + threadIdx.x;
  const bool in = r < a.job.n;
  const uint64_t p = c * a.job.n + r;
  SP_REAL x[SP_SDE_NX], par[SP_SDE_PN], vals[SP_SDE_NVAR_C];
  SP_SDE_PD_DECL(pd, par);
  /* the condition's rows of the table (steps kcur .. kend) */
  const SP_REAL *tab =
      use_tab ? (const SP_REAL *)a.tab + c * a.tab_rows * (uint64_t)SP_SDE_TN : SP_SDE_NO_TAB;
  sp_sde_load_par(a, c, par, pd);
  if (in) {
    for (int i = 0; i < SP_SDE_NX; i++) x[i] = (SP_REAL)a.x[(uint64_t)i * a.total + p];
    /* the host enqueues several records' launches between its reads: after
     * one that found a failure, the later ones leave the paths as they are
     * (the failure read is the first launch's, as when each was read) */
    if (a.kend > a.kcur && !(a.counters->bad_kcur < a.kcur)) {
      uint64_t k = a.kcur;
      unsigned run = (unsigned)a.x[(uint64_t)SP_SDE_NX * a.total + p];
      SP_REAL frac;
      int what = 0;
      const int st = SP_PREC(sp_sde_advance)(par, pd, a.job.dt, SP_SDE_H(a), SP_SDE_SDT(a),
                                             a.seed, ((c + a.job.cond0) << 40) + a.job.replica0 + r,
                                             SP_SDE_HEUN, 0, 0, use_tab, tab, a.kcur, x, &run,
                                             &k, a.kend, &frac, &what);
      if (st == SP_SDE_NONFINITE || st == SP_SDE_STALLED) {
        /* the step, and bit 63 for a stall */
        a.badk[p] = k | ((unsigned long long)(st == SP_SDE_STALLED) << 63);
        atomicMin(&a.counters->bad, ((unsigned long long)p << 8) | (unsigned long long)what);
        atomicMin(&a.counters->bad_kcur, (unsigned long long)a.kcur);
      }
      for (int i = 0; i < SP_SDE_NX; i++) a.x[(uint64_t)i * a.total + p] = (double)x[i];
      a.x[(uint64_t)SP_SDE_NX * a.total + p] = (double)run;
    }
  }
  if (!a.record) return; /* block-uniform */
  if (in) SP_PREC(sp_sde_values)(par, pd, use_tab, tab, a.kcur, a.job.dt, a.kend, x, vals);
  {
    /* per variable: the mean of the tile, then the sum of squared
     * deviations from it (two passes, as the CPU) */
    __shared__ double sh[SP_SDE_NVAR_C * SP_SDE_WARPS], sum[SP_SDE_NVAR_C], m2[SP_SDE_NVAR_C];
    double v[SP_SDE_NVAR_C];
    const double rn = (double)(a.job.n - r0 < SP_SDE_TILE ? a.job.n - r0 : SP_SDE_TILE);
#pragma unroll
    for (int q = 0; q < SP_SDE_NVAR_C; q++) v[q] = in ? (double)vals[q] : 0.0;
    sp_sde_block_sums(v, sh, sum);
#pragma unroll
    for (int q = 0; q < SP_SDE_NVAR_C; q++) {
      const double d = in ? v[q] - sum[q] / rn : 0.0;
      v[q] = d * d;
    }
    sp_sde_block_sums(v, sh, m2);
    for (int q = threadIdx.x; q < SP_SDE_NVAR_C; q += SP_SDE_TILE) {
      double *ts = a.tiles + ((uint64_t)blockIdx.x * SP_SDE_NVAR_C + (uint64_t)q) * 3;
      ts[0] = rn;
      ts[1] = sum[q] / rn;
      ts[2] = m2[q];
    }
  }
  if (!in) return;
  if (a.job.nhist > 0) {
    const long long cells = a.hist_off[a.job.nhist] + a.job.nhist;
    unsigned long long *hc = a.hist + (c * a.job.nrec + a.rec) * (uint64_t)cells;
    for (long long h = 0; h < a.job.nhist; h++) {
      const int hv = a.hist_var[h];
      double v = 0; /* vals[hv] by selects: vals stays in registers */
#pragma unroll
      for (int q = 0; q < SP_SDE_NVAR_C; q++)
        if (q == hv) v = (double)vals[q];
      const long long cell = sp_sde_cell(a.breaks + a.hist_off[h],
                                         a.hist_off[h + 1] - a.hist_off[h], v);
      atomicAdd(&hc[a.hist_off[h] + h + cell], 1ull);
    }
  }
  if (r < a.job.keep && a.traj_slot >= 0) { /* the record's slot (sp_sde_kargs) */
    double *tr = a.traj + ((c * a.job.keep + r) * a.job.ntraj + (uint64_t)a.traj_slot) *
                              SP_SDE_NVAR_C;
    for (int v = 0; v < SP_SDE_NVAR_C; v++) tr[v] = (double)vals[v];
  }
}

extern "C" __global__ void __launch_bounds__(SP_SDE_TILE)
sp_sde_fixed_kernel(const sp_sde_kargs a) {
  sp_sde_fixed_body(a, 0);
}

#if SP_SDE_NT > 0
extern "C" __global__ void __launch_bounds__(SP_SDE_TILE)
sp_sde_fixed_tab_kernel(const sp_sde_kargs a) {
  sp_sde_fixed_body(a, 1);
}

/* The time terms of the launch's steps kcur .. kend (tab_rows of them) of
 * every condition, a thread a row: t = k dt in double, as the steps form
 * it, and the parameters in double, as sp_sde_load_par reads them. */
extern "C" __global__ void __launch_bounds__(SP_SDE_BLOCK)
sp_sde_time_kernel(const sp_sde_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.job.ncond * a.tab_rows) return;
  const uint64_t c = i / a.tab_rows, k = a.kcur + i % a.tab_rows;
  double pd[SP_SDE_PN];
  SP_REAL tt[SP_SDE_TN];
  for (int j = 0; j < SP_SDE_NP; j++) pd[j] = a.par[c * SP_SDE_PN + (uint64_t)j];
  SP_PREC(sp_sde_time)((double)k * a.job.dt, pd, tt);
  SP_REAL *row = (SP_REAL *)a.tab + i * (uint64_t)SP_SDE_TN;
  for (int j = 0; j < SP_SDE_TN; j++) row[j] = tt[j];
}
#endif

/* The sizes this module was compiled for (states, parameters with the
 * derived ones, Wiener processes, observables), which the host compares
 * with the job before anything runs (a model object edited by hand must
 * not read or write past its arrays: R rebuilds models from their
 * equations, and this is the engine's own check). */
extern "C" __global__ void sp_sde_sizes_kernel(int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out[0] = SP_SDE_NX;
    out[1] = SP_SDE_NP;
    out[2] = SP_SDE_NW;
    out[3] = SP_SDE_NO;
    out[4] = SP_SDE_NT; /* time terms: sp_sde_time_kernel, sp_sde_fixed_tab_kernel */
  }
}
