/* lrmd.cu: long-range molecular dynamics (paper 004) on the GPU.  The
 * physics is that of lrmd.h, as on the CPU (one header for both): HMF,
 * ring and gravity2d under Yoshida's 4th-order step, positions and momenta
 * in double, pair terms in SP_REAL (float for "mixed", double).
 *
 * Compiled per precision: SP_REAL=float with SP_REAL_SINGLE ("mixed"), or
 * SP_REAL=double; SP_LRMD_GROUP (mixed only) is how many consecutive pair
 * terms are added in SP_REAL before their sum goes into the double
 * accumulator (1: every pair term added in double, paper 004's wording);
 * SP_LRMD_FTZ (mixed) takes the pair terms' reciprocal (square root) from
 * the hardware alone, without the subnormal handling (lrmd.h).
 *
 * Every kernel updates the particles of one slice [i0, i1) of the system
 * (the engine runs one slice per device, or several on one device).
 *
 * HMF: one fused pass per drift (sp_lrmd_hmf_kernel): the kick by d from
 * the magnetisation of the previous pass (slot kslot of every slice's sums,
 * added in slice order; the sine and cosine of the angle are computed again
 * rather than stored), the drift by c (and with `fuse` a second drift by c2:
 * the last drift of a step and the first of the next, two roundings as in
 * two passes, so fusing never changes a bit), the sine and cosine of the
 * new angle, a block reduction of (cos, sin) in double and the grid
 * reduction: the last block to finish (a counter, the threadFenceReduction
 * pattern of the CUDA samples) adds the blocks' partial sums in block order
 * into this slice's slot `slot`.  Systems side by side (lrmd()'s batches of replicas
 * and conditions, one device): sp_lrmd_hmf_systems_kernel, the same pass
 * with a.nblocks blocks a system packed along the grid, each system's
 * arrays, block sums, slots, counter and flag its own (lrmd_args.h), so
 * that every system gets the numbers of its run alone bit for bit; it is
 * compiled in a module of its own (SP_LRMD_SYSTEMS), and the record's
 * kernel takes the systems the same way.  Three passes a step when steps follow each
 * other inside a round (four across a record), no host round trip; each
 * reads and writes the angle and the momentum once: 96 bytes a
 * particle-step.
 *
 * Ring and gravity2d: a drift pass (sp_lrmd_drift_kernel: drift, then the
 * sine and cosine, or x and y, in the working precision, into w) and a tiled
 * all-pairs pass (sp_lrmd_pairs_kernel): one thread per target particle,
 * the sources loaded tile by tile into shared memory (paper 004, section
 * 3), pair terms in SP_REAL, sums in double.  When the slice has too few
 * targets to fill the device, the sources are cut into nsplit parts, each a
 * block of its own writing its force sums to fpart; sp_lrmd_kick_kernel adds
 * the parts in order and kicks.  Otherwise the kick is fused.  Systems side
 * by side: in the module compiled with SP_LRMD_SYSTEMS every ring and
 * gravity2d pass takes a.nblocks blocks a system (SP_LRMD_PASS), each
 * system with the tiles, parts, part sums and counters of its run alone,
 * so the same numbers bit for bit (the module of one system compiles to
 * the machine code it had before systems existed).
 *
 * Records (sp_lrmd_energy_kernel): per block, the kinetic energy, the
 * potential sum (all pairs for ring and gravity2d) and (sum cos, sum sin)
 * or the virial sum, in double; the host adds the blocks in slice and block
 * order.
 *
 * The state is checked where the kernels hold it anyway: after every drift
 * (the kick before it included) and at every record, each thread flags a
 * non-finite momentum or position of its particles (sp_lrmd_flag: the first
 * step and the first particle), which the host reads after each round. */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#define SP_LRMD_WARPS (SP_LRMD_BLOCK / 32)

typedef SP_REAL sp_lrmd_real; /* the arrays of lrmd_args.h */

#include "lrmd.h"
#include "sp_reduce.h"

typedef SP_REAL real;
#ifdef SP_REAL_SINGLE
typedef float2 real2;
#  ifndef SP_LRMD_GROUP
#    define SP_LRMD_GROUP 1
#  endif
#else
typedef double2 real2;
#  undef SP_LRMD_GROUP
#  define SP_LRMD_GROUP 1
#endif
static_assert(SP_LRMD_GROUP == 1 || SP_LRMD_GROUP % 2 == 0,
              "sp_lrmd_tile_sums loads the sources of a group two at a time");

/* Particle i's momentum (momentum = true) or position is non-finite after
 * a pass of step a.step: a.bad keeps the first such step and the least
 * 2 i + !momentum at it.  The passes of a slice run in step order and a
 * non-finite value stays so, so the passes of later steps leave it alone. */
__device__ __forceinline__ void sp_lrmd_flag_at(unsigned long long *bad, uint64_t step, uint64_t i,
                                                bool momentum) {
  if (*(volatile unsigned long long *)bad >= step) {
    atomicMin(bad, (unsigned long long)step);
    atomicMin(bad + 1, 2ull * i + (momentum ? 0ull : 1ull));
  }
}

__device__ __forceinline__ void sp_lrmd_flag(const sp_lrmd_kargs &a, uint64_t i, bool momentum) {
  sp_lrmd_flag_at(a.bad, a.step, i, momentum);
}

/* The arguments of block blockIdx.x of a launch over systems side by side
 * (lrmd_args.h: nbs blocks a system): those of its system's arrays, and in
 * *b its block within the system.  (The record's kernel in every module, and
 * the ring and gravity2d passes in the module of systems side by side,
 * through SP_LRMD_PASS and SP_LRMD_TARGETS; the HMF pass has a kernel for
 * systems of its own.)
 * The pair passes' part sums and part counters: nsplit x 2 x n doubles and
 * nbs / nsplit counters (one a tile of targets) a system. */
__device__ __forceinline__ sp_lrmd_kargs sp_lrmd_system(const sp_lrmd_kargs &a0, unsigned nbs,
                                                        unsigned *b) {
  sp_lrmd_kargs a = a0;
  const unsigned s = blockIdx.x / nbs;
  const uint64_t off = (uint64_t)s * a0.sys_stride;
  *b = blockIdx.x - s * nbs;
  a.q0 = a0.q0 + off;
  a.q1 = a0.q1 + off;
  a.p0 = a0.p0 + off;
  a.p1 = a0.p1 + off;
  a.w = a0.w + 2 * off;
  a.w2 = a0.w2 + 2 * off;
  a.partial = a0.partial + (uint64_t)s * a0.sys_partial;
  a.sums = a0.sums + (uint64_t)s * (uint64_t)(a0.nslice * SP_LRMD_SLOTS * 2);
  a.count = a0.count + s;
  a.bad = a0.bad + 2 * (uint64_t)s;
  a.fpart = a0.fpart + (uint64_t)s * (uint64_t)a0.nsplit * 2 * a0.n;
  a.tcount = a0.tcount + (uint64_t)s * (nbs / (unsigned)a0.nsplit);
  return a;
}

/* A ring or gravity2d pass's block: bx its block within its system's grid
 * and nbs the blocks of that grid (SP_LRMD_WHERE), a its system's
 * arguments from the kernel's a0 (SP_LRMD_PASS: both).  In the module of
 * systems side by side (SP_LRMD_SYSTEMS) a0.nblocks blocks a system, system
 * by system (sp_lrmd_system), each doing what block bx does in a launch of
 * its system alone; else one system: the arguments as they are and the
 * launch's own grid (the machine code of the module of one system is that
 * from before systems existed).  The pair passes take a0 and find the
 * system's arguments after the loop over the sources (SP_LRMD_TARGETS),
 * which reads only the system's w (SP_LRMD_SOURCES): the system's pointers
 * are not held in registers through the loop (the pair kernel of mixed_ftz
 * took 35 registers otherwise, 7 resident blocks an SM instead of 8; for
 * its fused kernel see SP_LRMD_PAIR_BOUNDS). */
#ifdef SP_LRMD_SYSTEMS
#  define SP_LRMD_WHERE(a0, bx, nbs) \
    const unsigned nbs = (unsigned)(a0).nblocks, bx = blockIdx.x % nbs
#  define SP_LRMD_PASS(a, a0, bx, nbs) \
    const unsigned nbs = (unsigned)(a0).nblocks; \
    unsigned bx; \
    const sp_lrmd_kargs a = sp_lrmd_system(a0, nbs, &bx)
#  define SP_LRMD_SOURCES(a0, nbs) sp_lrmd_sources(a0, nbs)
#  define SP_LRMD_TARGETS(a, a0, nbs) \
    unsigned bx_; \
    const sp_lrmd_kargs a = sp_lrmd_system(a0, nbs, &bx_)
#else
#  define SP_LRMD_WHERE(a0, bx, nbs) const unsigned nbs = gridDim.x, bx = blockIdx.x
#  define SP_LRMD_PASS(a, a0, bx, nbs) \
    SP_LRMD_WHERE(a0, bx, nbs); \
    const sp_lrmd_kargs &a = a0
#  define SP_LRMD_SOURCES(a0, nbs) (a0)
#  define SP_LRMD_TARGETS(a, a0, nbs) const sp_lrmd_kargs &a = a0
#endif

/* The pair kernels' bounds: in the module of systems side by side, the
 * resident blocks an SM of the default one-system kernels (NVRTC 13, sm_90:
 * 8 for mixed_ftz, at most 32 registers, with no spills; without the bound
 * its fused kernel takes 40 registers, 6 blocks), 6 for the other
 * single-precision variants (at most 40 registers: mixed spills at 32);
 * double's systems kernels take fewer registers than its one-system
 * kernels anyway. */
#if defined(SP_LRMD_SYSTEMS) && defined(SP_LRMD_FTZ) && !defined(SP_LRMD_PREFETCH)
#  define SP_LRMD_PAIR_BOUNDS __launch_bounds__(SP_LRMD_BLOCK, 8)
#elif defined(SP_LRMD_SYSTEMS) && defined(SP_REAL_SINGLE)
#  define SP_LRMD_PAIR_BOUNDS __launch_bounds__(SP_LRMD_BLOCK, 6)
#else
#  define SP_LRMD_PAIR_BOUNDS __launch_bounds__(SP_LRMD_BLOCK)
#endif

/* The arguments of a pair pass's loop over the sources in a launch over
 * systems side by side: those of the launch, w that of block blockIdx.x's
 * system. */
__device__ __forceinline__ sp_lrmd_kargs sp_lrmd_sources(const sp_lrmd_kargs &a0, unsigned nbs) {
  sp_lrmd_kargs a = a0;
  a.w = a0.w + 2 * (uint64_t)(blockIdx.x / nbs) * a0.sys_stride;
  return a;
}

/* HMF: [kick,] drift [, drift], sincos, block and grid reduction (see the
 * top).  A thread notes whether any of its particles is non-finite after the
 * pass (no branch in the loop) and, if so, flags the first of them after
 * it. */
template <bool SYSTEMS>
__device__ __forceinline__ void sp_lrmd_hmf_pass(const sp_lrmd_kargs &a) {
  double v[2] = {0, 0}, Mx = 0, My = 0;
  bool nonfinite = false;
  /* SYSTEMS, systems side by side (lrmd_args.h): this block's system and
   * its block there; the system's particles are off .. off + n - 1 of the
   * arrays (the loop's bounds move, not the pointers).  Else one system:
   * the block's own (sys 0). */
  const unsigned nbs = SYSTEMS ? (unsigned)a.nblocks : gridDim.x;
  const unsigned sys = SYSTEMS ? blockIdx.x / nbs : 0u, bx = blockIdx.x - sys * nbs;
  const uint64_t off = SYSTEMS ? (uint64_t)sys * a.sys_stride : 0;
#define SP_LRMD_SUMS (SYSTEMS ? a.sums + (uint64_t)sys * (uint64_t)(a.nslice * SP_LRMD_SLOTS * 2) : a.sums)
  const uint64_t stride = (uint64_t)nbs * SP_LRMD_BLOCK;
  if (a.kick) {
    double C = 0, S = 0;
    for (int k = 0; k < a.nslice; k++) {
      const double *m = SP_LRMD_SUMS + 2 * (k * SP_LRMD_SLOTS + a.kslot);
      C += m[0];
      S += m[1];
    }
    Mx = C / (double)a.n;
    My = S / (double)a.n;
  }
  for (uint64_t i = off + a.i0 + (uint64_t)bx * SP_LRMD_BLOCK + threadIdx.x; i < off + a.i1;
       i += stride) {
    double p = a.p0[i], q = a.q0[i];
    real s, c;
    if (a.kick) { /* sin, cos of the angle again: cheaper than storing them */
      SP_LR(sp_lrmd_prepare)(SP_LRMD_HMF, q, 0.0, &s, &c);
      p += a.d * sp_lrmd_hmf_force((double)s, (double)c, Mx, My);
      a.p0[i] = p;
    }
    q += a.c * p;
    if (a.fuse) q += a.c2 * p;
    a.q0[i] = q;
    nonfinite |= !isfinite(p) | !isfinite(q);
    SP_LR(sp_lrmd_prepare)(SP_LRMD_HMF, q, 0.0, &s, &c);
    v[0] += (double)c;
    v[1] += (double)s;
  }
  if (nonfinite)
    for (uint64_t i = off + a.i0 + (uint64_t)bx * SP_LRMD_BLOCK + threadIdx.x; i < off + a.i1;
         i += stride) {
      const bool pb = !isfinite(a.p0[i]);
      if (pb || !isfinite(a.q0[i])) {
        sp_lrmd_flag_at(a.bad + 2 * (uint64_t)sys, a.step, i - off, pb);
        break;
      }
    }
  sp_block_sum<2, SP_LRMD_WARPS>(v);
  double *const partial = SYSTEMS ? a.partial + (uint64_t)sys * a.sys_partial : a.partial;
  if (threadIdx.x == 0) {
    partial[2 * bx] = v[0];
    partial[2 * bx + 1] = v[1];
  }
  if (!sp_grid_last(a.count + sys, nbs)) return;
  /* the blocks' sums of the slice, in the last block */
  if (SYSTEMS) sp_grid_sum2<SP_LRMD_BLOCK>(reinterpret_cast<const double2 *>(partial), a.nblocks, v);
  else sp_grid_sum2<SP_LRMD_BLOCK>(reinterpret_cast<const double2 *>(partial), (int)gridDim.x, v);
  if (threadIdx.x == 0) {
    double *m = SP_LRMD_SUMS + 2 * (a.slice * SP_LRMD_SLOTS + a.slot);
    m[0] = v[0];
    m[1] = v[1];
  }
#undef SP_LRMD_SUMS
}

#ifndef SP_LRMD_SYSTEMS
/* One system (its slice). */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_hmf_kernel(const sp_lrmd_kargs a) {
  sp_lrmd_hmf_pass<false>(a);
}
#else
/* Systems side by side (lrmd_args.h: a.nblocks blocks a system), each
 * system's numbers bit for bit those of sp_lrmd_hmf_kernel alone (the same
 * code).  Compiled apart (SP_LRMD_SYSTEMS, the module of lrmd()'s batches):
 * beside sp_lrmd_hmf_kernel in one module it cost that kernel two registers
 * (the math library's slow paths no longer inlined), and with them a
 * quarter of its resident blocks. */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_hmf_systems_kernel(const sp_lrmd_kargs a) {
  sp_lrmd_hmf_pass<true>(a);
}
#endif

/* Ring, gravity2d: the drift of particle i by c (with `fuse`, then by c2:
 * two roundings, as two drift passes make), then what the pair pass reads,
 * into w[i]. */
__device__ __forceinline__ void sp_lrmd_drift1(const sp_lrmd_kargs &a, uint64_t i, int fuse,
                                               real2 *w) {
  const int two_d = a.model == SP_LRMD_GRAVITY2D;
  const double p0 = a.p0[i];
  double q0 = a.q0[i] + a.c * p0, q1 = 0, p1 = 0;
  real2 t;
  if (fuse) q0 = q0 + a.c2 * p0;
  a.q0[i] = q0;
  if (two_d) {
    p1 = a.p1[i];
    q1 = a.q1[i] + a.c * p1;
    if (fuse) q1 = q1 + a.c2 * p1;
    a.q1[i] = q1;
  }
  SP_LR(sp_lrmd_prepare)(a.model, q0, q1, &t.x, &t.y);
  w[i] = t;
  /* the state after the pass: the kick before this drift, and the drift */
  const bool pb = !isfinite(p0) || !isfinite(p1);
  if (pb || !isfinite(q0) || !isfinite(q1)) sp_lrmd_flag(a, i, pb);
}

/* Ring, gravity2d: drift by c, then what the pair pass reads, into w. */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_drift_kernel(const sp_lrmd_kargs a0) {
  SP_LRMD_PASS(a, a0, bx, nbs);
  const uint64_t stride = (uint64_t)nbs * SP_LRMD_BLOCK;
  real2 *w = reinterpret_cast<real2 *>(a.w);
  for (uint64_t i = a.i0 + (uint64_t)bx * SP_LRMD_BLOCK + threadIdx.x; i < a.i1; i += stride)
    sp_lrmd_drift1(a, i, 0, w);
}

/* One pair term of target (wi0, wi1) from source t: ENERGY 0, the force
 * (ring: one component); 1, the potential and virial terms. */
template <int ENERGY>
__device__ __forceinline__ void sp_lrmd_term(int model, real wi0, real wi1, real2 t, real eps,
                                             real eps2, real *x, real *y) {
  if (model == SP_LRMD_RING) {
    real f, v;
    SP_LR(sp_lrmd_ring_pair)(wi0, wi1, t.x, t.y, eps, &f, &v);
    *x = ENERGY ? v : f;
    *y = 0;
  } else if (ENERGY) {
    SP_LR(sp_lrmd_grav_energy)(wi0, wi1, t.x, t.y, eps2, x, y);
  } else {
    SP_LR(sp_lrmd_grav_pair)(wi0, wi1, t.x, t.y, eps2, x, y);
  }
}

/* Two consecutive sources of a shared tile, p 16-byte aligned: in single
 * precision one 128-bit load (the compiler makes two 64-bit loads of
 * p[0], p[1]: half an instruction a pair more). */
__device__ __forceinline__ void sp_lrmd_load2(const real2 *p, real2 s[2]) {
#ifdef SP_REAL_SINGLE
  const float4 q = *reinterpret_cast<const float4 *>(p);
  s[0] = make_float2(q.x, q.y);
  s[1] = make_float2(q.z, q.w);
#else
  s[0] = p[0];
  s[1] = p[1];
#endif
}

/* The terms of target (wi) with the m sources of a shared tile, added into
 * acc0, acc1: SP_LRMD_GROUP consecutive terms in SP_REAL, their sum in
 * double. */
template <int ENERGY, int MODEL>
__device__ __forceinline__ void sp_lrmd_tile_sums(const real2 *tile, int m, real2 wi, real eps,
                                                  real eps2, double &acc0, double &acc1) {
  int k = 0;
  if (SP_LRMD_GROUP > 1) {
    for (; k + SP_LRMD_GROUP <= m; k += SP_LRMD_GROUP) {
      real g0 = 0, g1 = 0;
#pragma unroll
      for (int u = 0; u < SP_LRMD_GROUP; u += 2) {
        real2 s[2];
        sp_lrmd_load2(tile + k + u, s);
#pragma unroll
        for (int h = 0; h < 2; h++) {
          real x, y;
          sp_lrmd_term<ENERGY>(MODEL, wi.x, wi.y, s[h], eps, eps2, &x, &y);
          g0 += x;
          if (MODEL != SP_LRMD_RING) g1 += y;
        }
      }
      acc0 += (double)g0;
      if (MODEL != SP_LRMD_RING) acc1 += (double)g1;
    }
  }
#pragma unroll 8
  for (; k < m; k++) {
    real x, y;
    sp_lrmd_term<ENERGY>(MODEL, wi.x, wi.y, tile[k], eps, eps2, &x, &y);
    acc0 += (double)x;
    if (MODEL != SP_LRMD_RING) acc1 += (double)y;
  }
}

/* Sums over the sources [j0, j1) for target i (valid or not: every thread
 * helps load the tiles): ENERGY 0, the force components; 1, the potential
 * and virial sums, tile by tile in source order.  With SP_LRMD_PREFETCH
 * (variant mixed_ftz_pf) the tiles are double-buffered: each thread loads
 * its source of the next tile before the terms of this one and stores it
 * after them, one barrier a tile instead of two and the load's latency
 * hidden behind the terms -- the same terms in the same order, so the
 * same numbers bit for bit. */
template <int ENERGY, int MODEL>
__device__ __forceinline__ void sp_lrmd_pair_sums(const sp_lrmd_kargs &a, uint64_t i, bool valid,
                                                  uint64_t j0, uint64_t j1, double *s0,
                                                  double *s1) {
  const real2 *w = reinterpret_cast<const real2 *>(a.w);
  real2 wi;
  if (valid) wi = w[i];
  else wi.x = wi.y = 0;
  const real eps = (real)a.eps, eps2 = (real)(a.eps * a.eps);
  double acc0 = 0, acc1 = 0;
#ifdef SP_LRMD_PREFETCH
  __shared__ __align__(16) real2 tile[2][SP_LRMD_BLOCK];
  int b = 0;
  __syncthreads(); /* the block's earlier use of the tiles (energy pass) */
  if (j0 + threadIdx.x < j1) tile[0][threadIdx.x] = w[j0 + threadIdx.x];
  __syncthreads();
  for (uint64_t t0 = j0; t0 < j1; t0 += SP_LRMD_BLOCK) {
    const uint64_t jn = t0 + SP_LRMD_BLOCK + threadIdx.x;
    const int m = j1 - t0 < SP_LRMD_BLOCK ? (int)(j1 - t0) : SP_LRMD_BLOCK;
    real2 next;
    if (jn < j1) next = w[jn];
    sp_lrmd_tile_sums<ENERGY, MODEL>(tile[b], m, wi, eps, eps2, acc0, acc1);
    /* tile[b ^ 1] was last read before the previous barrier */
    if (jn < j1) tile[b ^ 1][threadIdx.x] = next;
    __syncthreads();
    b ^= 1;
  }
#else
  __shared__ __align__(16) real2 tile[SP_LRMD_BLOCK];
  for (uint64_t t0 = j0; t0 < j1; t0 += SP_LRMD_BLOCK) {
    const uint64_t j = t0 + threadIdx.x;
    const int m = j1 - t0 < SP_LRMD_BLOCK ? (int)(j1 - t0) : SP_LRMD_BLOCK;
    __syncthreads();
    if (j < j1) tile[threadIdx.x] = w[j];
    __syncthreads();
    sp_lrmd_tile_sums<ENERGY, MODEL>(tile, m, wi, eps, eps2, acc0, acc1);
  }
#endif
  *s0 = acc0;
  *s1 = acc1;
}

/* Kick of particle i by d from its force sums. */
__device__ __forceinline__ void sp_lrmd_pair_kick(const sp_lrmd_kargs &a, uint64_t i, double f0,
                                                  double f1) {
  if (a.model == SP_LRMD_RING) {
    a.p0[i] += -a.d * sp_lrmd_ring_kappa((double)a.n) * f0;
  } else {
    const double s = -a.d / (double)a.n;
    a.p0[i] += s * f0;
    a.p1[i] += s * f1;
  }
}

/* A pair pass's block bx (grid of its system: nbs = nsplit parts x tiles of
 * targets): its part of the sources, its tile, the thread's target i, and
 * the force sums on i from the part. */
struct sp_lrmd_block {
  unsigned part, tile;
  uint64_t i;
  bool valid;
};

template <int MODEL>
__device__ __forceinline__ sp_lrmd_block sp_lrmd_block_forces(const sp_lrmd_kargs &a, unsigned bx,
                                                              unsigned nbs, double *f0,
                                                              double *f1) {
  sp_lrmd_block b;
  const unsigned tiles = nbs / (unsigned)a.nsplit;
  b.part = bx / tiles;
  b.tile = bx % tiles;
  b.i = a.i0 + (uint64_t)b.tile * SP_LRMD_BLOCK + threadIdx.x;
  b.valid = b.i < a.i1;
  const uint64_t j0 = (uint64_t)b.part * a.chunk;
  const uint64_t j1 = a.nsplit == 1 || j0 + a.chunk > a.n ? a.n : j0 + a.chunk;
  sp_lrmd_pair_sums<0, MODEL>(a, b.i, b.valid, j0, j1, f0, f1);
  return b;
}

/* Ring, gravity2d: forces on the targets of the slice from part bx /
 * tiles of the sources; with one part, the kick by d too.  Grid (a
 * system's): nsplit x ceil((i1 - i0) / SP_LRMD_BLOCK) blocks. */
template <int MODEL>
__device__ __forceinline__ void sp_lrmd_pairs(const sp_lrmd_kargs &a0, unsigned bx, unsigned nbs) {
  double f0, f1;
  const sp_lrmd_block b = sp_lrmd_block_forces<MODEL>(SP_LRMD_SOURCES(a0, nbs), bx, nbs, &f0, &f1);
  SP_LRMD_TARGETS(a, a0, nbs);
  const unsigned part = b.part;
  const uint64_t i = b.i;
  if (!b.valid) return;
  if (a.nsplit == 1) {
    sp_lrmd_pair_kick(a, i, f0, f1);
  } else {
    a.fpart[(2 * (uint64_t)part) * a.n + i] = f0;
    a.fpart[(2 * (uint64_t)part + 1) * a.n + i] = f1;
  }
}

extern "C" __global__ void SP_LRMD_PAIR_BOUNDS sp_lrmd_pairs_kernel(const sp_lrmd_kargs a0) {
  SP_LRMD_WHERE(a0, bx, nbs);
  if (a0.model == SP_LRMD_RING) sp_lrmd_pairs<SP_LRMD_RING>(a0, bx, nbs);
  else sp_lrmd_pairs<SP_LRMD_GRAVITY2D>(a0, bx, nbs);
}

/* The fused pair pass: forces on the targets from the sources' w, the kick
 * by d, the drift by c (and c2 with fuse) and the drifted particles' w2 --
 * one launch a force evaluation instead of three (drift, pairs, kick).  w2
 * is another buffer than w, since other blocks still read w.  With several
 * parts the last part to finish for a tile of targets (a counter per tile,
 * the threadFenceReduction pattern) adds the parts in order and goes on.
 * Every number is that of the separate passes. */
template <int MODEL>
__device__ __forceinline__ void sp_lrmd_pairs_fused(const sp_lrmd_kargs &a0, unsigned bx,
                                                    unsigned nbs) {
  double f0, f1;
  const sp_lrmd_block b = sp_lrmd_block_forces<MODEL>(SP_LRMD_SOURCES(a0, nbs), bx, nbs, &f0, &f1);
  SP_LRMD_TARGETS(a, a0, nbs);
  real2 *w2 = reinterpret_cast<real2 *>(a.w2);
  const unsigned part = b.part, tile = b.tile;
  const uint64_t i = b.i;
  const bool valid = b.valid;
  if (a.nsplit > 1) {
    if (valid) {
      a.fpart[(2 * (uint64_t)part) * a.n + i] = f0;
      a.fpart[(2 * (uint64_t)part + 1) * a.n + i] = f1;
    }
    /* every thread stored its part: a barrier, then one device-wide fence a
     * block (sp_grid_last) instead of one a thread, 256 MEMBAR.SC a block
     * less; the last part of the tile to arrive goes on */
    __syncthreads();
    if (!sp_grid_last(a.tcount + tile, (unsigned)a.nsplit) || !valid) return;
    {
      /* __ldcg: from L2, where the other multiprocessors' stores are (not
       * a stale L1 line), without volatile's system-wide strong loads */
      f0 = f1 = 0;
      for (int k = 0; k < a.nsplit; k++) {
        f0 += __ldcg(a.fpart + (2 * (uint64_t)k) * a.n + i);
        f1 += __ldcg(a.fpart + (2 * (uint64_t)k + 1) * a.n + i);
      }
    }
  }
  if (!valid) return;
  sp_lrmd_pair_kick(a, i, f0, f1);
  sp_lrmd_drift1(a, i, a.fuse, w2);
}

extern "C" __global__ void SP_LRMD_PAIR_BOUNDS sp_lrmd_pairs_fused_kernel(const sp_lrmd_kargs a0) {
  SP_LRMD_WHERE(a0, bx, nbs);
  if (a0.model == SP_LRMD_RING) sp_lrmd_pairs_fused<SP_LRMD_RING>(a0, bx, nbs);
  else sp_lrmd_pairs_fused<SP_LRMD_GRAVITY2D>(a0, bx, nbs);
}

/* Ring, gravity2d with nsplit > 1: the parts' force sums in part order, then
 * the kick by d. */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_kick_kernel(const sp_lrmd_kargs a0) {
  SP_LRMD_PASS(a, a0, bx, nbs);
  const uint64_t i = a.i0 + (uint64_t)bx * SP_LRMD_BLOCK + threadIdx.x;
  double f0 = 0, f1 = 0;
  (void)nbs; /* (one system: the launch's grid, unused) */
  if (i >= a.i1) return;
  for (int k = 0; k < a.nsplit; k++) {
    f0 += a.fpart[(2 * (uint64_t)k) * a.n + i];
    f1 += a.fpart[(2 * (uint64_t)k + 1) * a.n + i];
  }
  sp_lrmd_pair_kick(a, i, f0, f1);
}

/* A record's block sums of the particles [i0, i1): kinetic energy,
 * potential sum, then (sum cos, sum sin) (HMF, ring) or (virial sum, 0). */
extern "C" __global__ void __launch_bounds__(SP_LRMD_BLOCK) sp_lrmd_energy_kernel(const sp_lrmd_kargs a0) {
  unsigned bx; /* the block within its system (a0.nblocks a system) */
  const sp_lrmd_kargs a = sp_lrmd_system(a0, (unsigned)a0.nblocks, &bx);
  const uint64_t i = a.i0 + (uint64_t)bx * SP_LRMD_BLOCK + threadIdx.x;
  const bool valid = i < a.i1;
  double v[4] = {0, 0, 0, 0}, s0 = 0, s1 = 0;
  if (a.model == SP_LRMD_RING) sp_lrmd_pair_sums<1, SP_LRMD_RING>(a, i, valid, 0, a.n, &s0, &s1);
  else if (a.model == SP_LRMD_GRAVITY2D)
    sp_lrmd_pair_sums<1, SP_LRMD_GRAVITY2D>(a, i, valid, 0, a.n, &s0, &s1);
  if (valid) {
    const double p0 = a.p0[i], p1 = a.model == SP_LRMD_GRAVITY2D ? a.p1[i] : 0.0;
    const double q0 = a.q0[i], q1 = a.model == SP_LRMD_GRAVITY2D ? a.q1[i] : 0.0;
    /* the state of the record's step (the start's is checked here only) */
    const bool pb = !isfinite(p0) || !isfinite(p1);
    if (pb || !isfinite(q0) || !isfinite(q1)) sp_lrmd_flag(a, i, pb);
    v[0] = 0.5 * (p0 * p0 + p1 * p1);
    if (a.model == SP_LRMD_GRAVITY2D) {
      v[1] = s0;
      v[2] = s1;
    } else {
      real sn, cs;
      if (a.model == SP_LRMD_HMF) {
        SP_LR(sp_lrmd_prepare)(SP_LRMD_HMF, q0, 0.0, &sn, &cs);
      } else {
        const real2 t = reinterpret_cast<const real2 *>(a.w)[i];
        sn = t.x;
        cs = t.y;
      }
      v[1] = s0;
      v[2] = (double)cs;
      v[3] = (double)sn;
    }
  }
  sp_block_sum<4, SP_LRMD_WARPS>(v);
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; k++) a.partial[SP_LRMD_NSUMS * bx + k] = v[k];
}

/* ---- the starts the engine draws (lrmd_start.h) ------------------------------ */

#include "lrmd_start.h"

/* One pass of a start's draw (see lrmd_start.h and sp_lrmd_start.c, the
 * CPU's passes): a thread per Philox block of 4 particles, a block per tile
 * of SP_LRMD_START_TILE particles, whose sums go to partial. */
extern "C" __global__ void __launch_bounds__(SP_LRMD_START_THREADS)
    sp_lrmd_start_kernel(const sp_lrmd_start_kargs a) {
  const uint64_t blk = (uint64_t)blockIdx.x * SP_LRMD_START_THREADS + threadIdx.x;
  const uint64_t i0 = 4 * blk;
  double s[SP_LRMD_START_NSUMS];
  sp_lrmd_start_zero(s);
  if (a.pass == 0) {
    if (i0 < a.n) {
      double x[4], y[4], p[4];
      sp_lrmd_start_raw(a.kind, a.seed, a.replica, a.a, a.b, blk, a.cdf, a.grid, a.guide, x, y, p);
#pragma unroll
      for (int k = 0; k < 4; k++) {
        if (i0 + k < a.n) {
          a.q0[i0 + k] = x[k];
          a.p0[i0 + k] = p[k];
          if (a.kind == SP_LRMD_START_SHELL) a.q1[i0 + k] = y[k];
          sp_lrmd_start_add(a.kind, x[k], y[k], p[k], s);
        }
      }
    }
  } else {
    for (uint64_t i = i0; i < i0 + 4 && i < a.n; i++) {
      if (a.kind == SP_LRMD_START_SHELL) {
        a.q0[i] = a.q0[i] - a.shift0;
        a.q1[i] = a.q1[i] - a.shift1;
      } else if (a.kind != SP_LRMD_START_WATERBAG) {
        a.p0[i] = a.p0[i] - a.shift0;
      } else if (a.pass == 1) {
        const double w = a.p0[i] - a.shift0;
        s[0] += w * w;
      } else {
        a.p0[i] = (a.p0[i] - a.shift0) * a.scale;
      }
    }
    if (a.pass != 1 || a.kind != SP_LRMD_START_WATERBAG) return;
  }
  sp_lrmd_start_block_reduce(s);
  if (threadIdx.x == 0)
    for (int k = 0; k < SP_LRMD_START_NSUMS; k++)
      a.partial[SP_LRMD_START_NSUMS * blockIdx.x + k] = s[k];
}
