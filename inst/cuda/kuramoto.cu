/* kuramoto.cu: the noisy Kuramoto model (paper 001, PROG2 and PROG3) on the
 * GPU.  The physics and the random numbers are those of kuramoto.h, as on
 * the CPU; many systems (conditions x replicas) run in every launch.
 *
 * Compiled per precision: SP_REAL=float with SP_REAL_SINGLE and SP_FAST_SIN
 * (the hardware sine for the pair terms), or SP_REAL=double.
 *
 * Mean field (PROG3), two fused reduce-and-update passes per step:
 *   pass 1: x -> F1 (from the sums S, C of x) -> xt; partial sums of sin xt,
 *           cos xt per block;
 *   pass 2: x -> F1 -> xt again (the normal is redrawn: Philox is cheaper
 *           than storing and reloading it), F2 from the sums of xt -> x',
 *           written; partial sums of sin x', cos x'.
 * Each pass reads the phases once (and omega once) and computes the sine and
 * cosine of each phase it meets once; the second also writes the phases, so
 * a step moves 3 phases + 2 frequencies per oscillator.  One thread handles
 * a group of four oscillators at a time (one Philox block, one vector load)
 * and a.gpt groups in all, SP_KUR_BLOCK apart (coalesced); with
 * SP_KUR_PREFETCH the next group's phases and frequencies are loaded before
 * the current one is computed, so that every thread keeps a load in flight
 * while it computes (a pass is bound by memory only if enough bytes are in
 * flight: the H100 needs some 3 MB, 20 kB per multiprocessor).  A thread adds
 * the sines and cosines of its oscillators in the working precision (at most
 * 4 gpt of them) and the block adds the threads' sums in double.  The block
 * of a system covers 4 SP_KUR_BLOCK gpt oscillators; gpt depends on n only
 * (sp_gpu_kuramoto.c), so the order of every sum, and so the result, does
 * not depend on the number of systems per launch, the chunks or the device.
 * A block's partial sums (in double) go to global memory; the last block of
 * a system to finish (a counter per system, the threadFenceReduction pattern
 * of the CUDA samples) adds them in block order and writes the system's sums,
 * and at a record step r and psi.
 *
 * Euler-Maruyama on the mean field is one such pass a step (the same code,
 * sp_kur_mf with euler true): x -> F (from the sums of x) -> x' = x + dt F +
 * dW, written in place, with the partial sums of sin x', cos x' -- 2 phases
 * + 1 frequency an oscillator-step (12 bytes in single precision).  With all
 * frequencies equal (a.omega 0: the _const kernels) no frequency is loaded:
 * 2 words.
 *
 * Variants (R/gpu.R): SP_KUR_PREFETCH (1: the next group loaded ahead; 0:
 * not), SP_KUR_MINBLOCKS (blocks per multiprocessor the registers are capped
 * for; 4 in single precision: 64 registers, half the threads of an SM; 3 in
 * double: 80 registers, as many as the kernel used before the cap, no spills).
 *
 * The engine makes its own start: sp_kur_start_kernel draws the uniform start
 * phases from the systems' streams (the CPU's numbers, kuramoto.h), and
 * sp_kur_omega_kernel the frequencies of a law (kuramoto_lorentz(),
 * kuramoto_normal()), so that nothing of size n crosses the bus but the
 * final phases.
 *
 * Pairs (PROG2): one thread per oscillator i, the phases of the system
 * loaded tile by tile into shared memory, G_i = sum_j sin(x_j - x_i) summed
 * directly (paper 001's UpdateRHS); the update of SRK2's stage is fused into
 * the same kernel (the predictor phases and F1 go to their own arrays, so
 * the second stage can overwrite x in place).  Dense matrix: the same tiles,
 * with sin x_j, cos x_j in shared memory and the split G_i = cos x_i (A s)_i -
 * sin x_i (A c)_i (A column-major: coalesced along i).  Sparse matrix: CSR,
 * one thread per row.  An Euler step (stage 3) is one such kernel writing
 * the new phases to xt; the host then swaps x and xt. */
#ifndef SP_REAL
#  define SP_REAL float
#  define SP_REAL_SINGLE 1
#endif
#define SP_KUR_WARPS (SP_KUR_BLOCK / 32)
#ifndef SP_KUR_PREFETCH
#  define SP_KUR_PREFETCH 1
#endif
#ifndef SP_KUR_MINBLOCKS
#  ifdef SP_REAL_SINGLE
#    define SP_KUR_MINBLOCKS 4
#  else
#    define SP_KUR_MINBLOCKS 3
#  endif
#endif

typedef SP_REAL sp_kuramoto_real; /* the arrays of kuramoto_args.h */

#include "kuramoto.h"
#include "sp_reduce.h"

typedef SP_REAL real;

/* g / m and g mod m, in 32 bits when both fit (a 64-bit division is a
 * subroutine of some hundred instructions). */
__device__ __forceinline__ void sp_kur_divmod(uint64_t g, uint64_t m, uint64_t *q, uint64_t *r) {
  if ((g | m) >> 32 == 0) {
    const uint32_t g32 = (uint32_t)g, m32 = (uint32_t)m;
    *q = g32 / m32;
    *r = g32 - (uint32_t)*q * m32;
  } else {
    *q = g / m;
    *r = g - *q * m;
  }
}

/* The phases of local system s are non-finite after step k: a.bad holds the
 * first such step and the lowest (global) system at it.  The launches of a
 * device run in step order, so a system that fails at a later step (a
 * non-finite phase stays so) leaves the flag alone. */
__device__ __forceinline__ void sp_kur_flag(const sp_kuramoto_kargs &a, uint64_t s, uint64_t k) {
  if (*(volatile unsigned long long *)a.bad >= k) {
    atomicMin(a.bad, (unsigned long long)k);
    atomicMin(a.bad + 1, (unsigned long long)(a.sys0 + s));
  }
}

/* Block b of local system s has summed (ps, pc): write its partial sums;
 * the last block of the system adds all of them in block order into
 * sums[slot], and at a record step writes r and psi of record kr.  The sums
 * of the phases (slot 0) after step k are non-finite when a phase is: the
 * system is flagged (sp_kur_flag). */
__device__ void sp_kur_finish(const sp_kuramoto_kargs &a, uint64_t s, int b, double ps,
                              double pc, int slot, int record, uint64_t kr, uint64_t k) {
  double v[2] = {ps, pc};
  sp_block_sum<2, SP_KUR_WARPS>(v);
  if (threadIdx.x == 0)
    reinterpret_cast<double2 *>(a.partial)[s * (uint64_t)a.bps + (uint64_t)b] = make_double2(v[0], v[1]);
  if (!sp_grid_last(a.count + s, (unsigned int)a.bps)) return;
  /* the blocks' partial sums of the system, in the last block */
  sp_grid_sum2<SP_KUR_BLOCK>(reinterpret_cast<const double2 *>(a.partial) + s * (uint64_t)a.bps,
                             a.bps, v);
  if (threadIdx.x == 0) {
    const double S = v[0], C = v[1];
    if (slot == 0 && !(isfinite(S) && isfinite(C))) sp_kur_flag(a, s, k);
    a.sums[s * SP_KUR_NSUMS + slot] = S;
    a.sums[s * SP_KUR_NSUMS + slot + 1] = C;
    if (record) {
      double *r = a.rec + 2 * (s * a.nrec + kr);
      sp_kur_order(S, C, (double)a.n, &r[0], &r[1]);
    }
  }
}

__device__ __forceinline__ void sp_kur_hist(const sp_kuramoto_kargs &a, uint64_t s, uint64_t kr,
                                            real x) {
  atomicAdd(a.hist + (s * a.nrec + kr) * (uint64_t)a.bins + sp_kur_bin((double)x, a.bins), 1u);
}

/* Four phases of group q (aligned: npad is a multiple of 4). */
__device__ __forceinline__ void sp_kur_load4(const real *p, real v[4]) {
#ifdef SP_REAL_SINGLE
  float4 t = *reinterpret_cast<const float4 *>(p);
  v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
#else
  double2 t0 = reinterpret_cast<const double2 *>(p)[0], t1 = reinterpret_cast<const double2 *>(p)[1];
  v[0] = t0.x; v[1] = t0.y; v[2] = t1.x; v[3] = t1.y;
#endif
}

__device__ __forceinline__ void sp_kur_store4(real *p, const real v[4]) {
#ifdef SP_REAL_SINGLE
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
#else
  reinterpret_cast<double2 *>(p)[0] = make_double2(v[0], v[1]);
  reinterpret_cast<double2 *>(p)[1] = make_double2(v[2], v[3]);
#endif
}

/* Four frequencies of group q (OMEGA: from the array a.omega), or w0 for
 * all (not OMEGA: all equal, no array, nothing loaded). */
template <bool OMEGA>
__device__ __forceinline__ void sp_kur_load_omega(const sp_kuramoto_kargs &a, uint32_t q, real w0,
                                                  real w[4]) {
  if (OMEGA) {
    sp_kur_load4(a.omega + 4 * (size_t)q, w);
  } else {
    w[0] = w[1] = w[2] = w[3] = w0;
  }
}

/* Mean field: SRK2's stage 1 or 2 (EULER false), or an Euler step (EULER
 * true), of step a.step (see the top).  OMEGA: the frequencies are an array
 * (a vector or a law), else all equal to a.omega0.  Both are template
 * arguments, one kernel entry each, chosen by the host: the hot loop of
 * each holds only its own loads, no test of a.omega per group (the test of
 * a run-time pointer in the loop cost the SRK2 kernel two registers, 62 ->
 * 64, and a compare, a branch and four moves a group). */
template <bool EULER, bool OMEGA>
__device__ __forceinline__ void sp_kur_mf(const sp_kuramoto_kargs &a) {
  const bool euler = EULER;
  const uint64_t s = blockIdx.x / (unsigned)a.bps;
  const uint32_t b = blockIdx.x % (unsigned)a.bps;
  const uint64_t g = a.sys0 + s;
  uint64_t cond, rep;
  sp_kur_divmod(g, a.nrep, &cond, &rep);
  const uint64_t stream = sp_kur_stream(cond, a.replica0 + rep);
  const sp_kuramoto_cond *cd = a.cond + cond; /* the system's condition, read once */
  const double sigma_d = cd->sigma;
  const real kn = (real)cd->kn, dt = (real)a.dt, hdt = (real)(0.5 * a.dt),
             ginv = (real)cd->ginv, sigma = (real)sigma_d;
  const double *sm = a.sums + s * SP_KUR_NSUMS;
  const real S0 = (real)sm[0], C0 = (real)sm[1], S1 = (real)sm[2], C1 = (real)sm[3];
  real *__restrict__ x = a.x + s * a.npad;
  const int stage2 = !euler && a.stage == 2, noisy = sigma_d > 0;
  const int write = euler || stage2; /* the new phases of the step */
  /* a step after the run's start: on the grid, a record of this run */
  const int record = write && (a.step + 1) % a.record_every == 0;
  const uint64_t kr = (a.step + 1) / a.record_every - a.rec0;
  const uint64_t kb = a.step * a.ng; /* Philox block of group 0 at this step */
  /* 32-bit positions within a system: n < 2^31, so 4 ng <= 2^31 */
  const uint32_t n = (uint32_t)a.n, ng = (uint32_t)a.ng, span = SP_KUR_BLOCK * (uint32_t)a.gpt;
  const uint32_t qe = ng - b * span < span ? ng : b * span + span;
  uint32_t q = b * span + threadIdx.x;
  real ls = 0, lc = 0; /* this thread's sums of sin, cos (at most 4 gpt terms) */
  const real w0 = OMEGA ? (real)0 : (real)a.omega0;
  real xc[4], wc[4];
  if (q < qe) {
    sp_kur_load4(x + 4 * (size_t)q, xc);
    sp_kur_load_omega<OMEGA>(a, q, w0, wc);
  }
  for (; q < qe; q += SP_KUR_BLOCK) {
    real xn[4], wn[4], z[4], x1[4];
#if SP_KUR_PREFETCH
    if (q + SP_KUR_BLOCK < qe) { /* the next group's loads in flight meanwhile */
      sp_kur_load4(x + 4 * (size_t)(q + SP_KUR_BLOCK), xn);
      sp_kur_load_omega<OMEGA>(a, q + SP_KUR_BLOCK, w0, wn);
    }
#endif
    if (noisy) SP_KUR(sp_kur_normals_block)(a.seed, stream, kb + q, z);
    else z[0] = z[1] = z[2] = z[3] = 0;
#pragma unroll
    for (int u = 0; u < 4; u++) {
      real s0, c0, st, ct;
      const real dW = sigma * z[u];
      SP_KUR_SINCOS(xc[u], &s0, &c0);
      const real F1 = SP_KUR(sp_kur_drift)(wc[u], ginv, kn, SP_KUR(sp_kur_mean_field)(s0, c0, S0, C0));
      if (euler) {
        x1[u] = SP_KUR(sp_kur_euler)(xc[u], dt, F1, dW);
        SP_KUR_SINCOS(x1[u], &st, &ct);
      } else {
        const real xt = SP_KUR(sp_kur_predict)(xc[u], dt, F1, dW);
        SP_KUR_SINCOS(xt, &st, &ct);
        if (!stage2) {
          x1[u] = xt;
        } else {
          const real F2 = SP_KUR(sp_kur_drift)(wc[u], ginv, kn, SP_KUR(sp_kur_mean_field)(st, ct, S1, C1));
          x1[u] = SP_KUR(sp_kur_correct)(xc[u], hdt, F1, F2, dW);
          SP_KUR_SINCOS(x1[u], &st, &ct);
        }
      }
      if (4 * q + u < n) { /* not the padding */
        ls += st;
        lc += ct;
      }
    }
    if (write) {
      sp_kur_store4(x + 4 * (size_t)q, x1);
      if (record && a.bins > 0)
        for (int u = 0; u < 4; u++)
          if (4 * q + u < n) sp_kur_hist(a, s, kr, x1[u]);
    }
#if SP_KUR_PREFETCH
#pragma unroll
    for (int u = 0; u < 4; u++) {
      xc[u] = xn[u];
      wc[u] = wn[u];
    }
#else
    if (q + SP_KUR_BLOCK < qe) {
      sp_kur_load4(x + 4 * (size_t)(q + SP_KUR_BLOCK), xc);
      sp_kur_load_omega<OMEGA>(a, q + SP_KUR_BLOCK, w0, wc);
    }
#endif
  }
  sp_kur_finish(a, s, (int)b, (double)ls, (double)lc, write ? 0 : 2, record, kr, a.step + 1);
}

/* The mean-field kernels: SRK2 or Euler, frequencies an array or one
 * number (_const: a.omega 0). */
#define SP_KUR_MF_ENTRY(name, euler, omega)                                  \
  extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK, SP_KUR_MINBLOCKS) \
      name(const sp_kuramoto_kargs a) {                                      \
    sp_kur_mf<euler, omega>(a);                                              \
  }
SP_KUR_MF_ENTRY(sp_kur_mf_kernel, false, true)
SP_KUR_MF_ENTRY(sp_kur_mf_const_kernel, false, false)
SP_KUR_MF_ENTRY(sp_kur_mf_euler_kernel, true, true)
SP_KUR_MF_ENTRY(sp_kur_mf_euler_const_kernel, true, false)
#undef SP_KUR_MF_ENTRY

/* The start phases of the local systems, drawn from their streams as on the
 * CPU (kuramoto.h: sp_kur_start4, reduced in single precision), the padding
 * 0: one group of four a thread, grid-stride. */
extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK) sp_kur_start_kernel(const sp_kuramoto_kargs a) {
  const uint64_t total = a.nsys * a.ng, stride = (uint64_t)gridDim.x * SP_KUR_BLOCK;
  for (uint64_t t = (uint64_t)blockIdx.x * SP_KUR_BLOCK + threadIdx.x; t < total; t += stride) {
    uint64_t s, q, cond, rep;
    double v[4];
    real x4[4];
    sp_kur_divmod(t, a.ng, &s, &q);
    sp_kur_divmod(a.sys0 + s, a.nrep, &cond, &rep);
    sp_kur_start4(a.seed, sp_kur_stream(cond, a.replica0 + rep), q, v);
#pragma unroll
    for (int u = 0; u < 4; u++) x4[u] = 4 * q + u < a.n ? SP_KUR(sp_kur_reduce)((real)v[u]) : (real)0;
    sp_kur_store4(a.x + s * a.npad + 4 * q, x4);
  }
}

/* The natural frequencies of a law (a.omega_law), the padding 0. */
extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK) sp_kur_omega_kernel(const sp_kuramoto_kargs a) {
  const uint64_t i = (uint64_t)blockIdx.x * SP_KUR_BLOCK + threadIdx.x;
  if (i >= a.npad) return;
  const_cast<real *>(a.omega)[i] =
      i < a.n ? (real)sp_kur_omega_law(a.omega_law, a.omega_centre, a.omega_scale, i, a.n) : (real)0;
}

/* The sums of the phases x (the start, and record steps of the couplings
 * other than the mean field): r and psi of the chain's step a.step when it is
 * one of the run's records (not the start of a continued run). */
extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK) sp_kur_measure_kernel(const sp_kuramoto_kargs a) {
  const uint64_t s = blockIdx.x / (unsigned)a.bps;
  const int b = (int)(blockIdx.x % (unsigned)a.bps);
  const real *x = a.x + s * a.npad;
  const int record = a.step % a.record_every == 0 && a.step / a.record_every >= a.rec0;
  const uint64_t kr = a.step / a.record_every - a.rec0;
  const uint32_t n = (uint32_t)a.n, ng = (uint32_t)a.ng, span = SP_KUR_BLOCK * (uint32_t)a.gpt;
  const uint32_t qe = ng - (uint32_t)b * span < span ? ng : (uint32_t)b * span + span;
  real ls = 0, lc = 0;
  for (uint32_t q = (uint32_t)b * span + threadIdx.x; q < qe; q += SP_KUR_BLOCK) {
    real v[4];
    sp_kur_load4(x + 4 * (size_t)q, v);
#pragma unroll
    for (int u = 0; u < 4; u++) {
      real sv, cv;
      SP_KUR_SINCOS(v[u], &sv, &cv);
      if (4 * q + u < n) {
        ls += sv;
        lc += cv;
        if (record && a.bins > 0) sp_kur_hist(a, s, kr, v[u]);
      }
    }
  }
  const double ps = (double)ls, pc = (double)lc;
  sp_kur_finish(a, s, b, ps, pc, 0, record, kr, a.step);
}

/* SRK2's stage (1, 2) or an Euler step (3) for oscillator i of local system
 * s from its coupling sum G (pairs and matrix kernels). */
__device__ __forceinline__ void sp_kur_update(const sp_kuramoto_kargs &a, uint64_t s, uint64_t i,
                                              real G) {
  const uint64_t at = s * a.npad + i;
  uint64_t cond, rep; /* (one division, before the condition's values are loaded) */
  sp_kur_divmod(a.sys0 + s, a.nrep, &cond, &rep);
  const double kn = a.cond[cond].kn, ginv = a.cond[cond].ginv, sigma = a.cond[cond].sigma;
  real dW = 0;
  if (sigma > 0) {
    real z[4];
    SP_KUR(sp_kur_normals)(a.seed, sp_kur_stream(cond, a.replica0 + rep), a.ng, a.step, i >> 2, z);
    const unsigned u = (unsigned)(i & 3); /* a select, not a local array indexed */
    dW = (real)sigma * (u == 0 ? z[0] : u == 1 ? z[1] : u == 2 ? z[2] : z[3]);
  }
  const real F = SP_KUR(sp_kur_drift)(a.omega != 0 ? a.omega[i] : (real)a.omega0,
                                      (real)ginv, (real)kn, G);
  if (a.stage == 1) {
    a.f1[at] = F;
    a.xt[at] = SP_KUR(sp_kur_predict)(a.x[at], (real)a.dt, F, dW);
  } else if (a.stage == 3) { /* Euler: the new phase to xt (x is read by others) */
    const real x = SP_KUR(sp_kur_euler)(a.x[at], (real)a.dt, F, dW);
    a.xt[at] = x;
    if (!isfinite(x)) sp_kur_flag(a, s, a.step + 1);
  } else {
    const real x = SP_KUR(sp_kur_correct)(a.x[at], (real)(0.5 * a.dt), a.f1[at], F, dW);
    a.x[at] = x;
    if (!isfinite(x)) sp_kur_flag(a, s, a.step + 1); /* the phase after step a.step + 1 */
  }
}

/* Pairs (PROG2): G_i = sum_j sin(x_j - x_i), tiles of SP_KUR_BLOCK phases in
 * shared memory.  Grid: nsys x ceil(npad / SP_KUR_BLOCK) blocks. */
extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK) sp_kur_pairs_kernel(const sp_kuramoto_kargs a) {
  __shared__ real sh[SP_KUR_BLOCK];
  const unsigned tps = gridDim.x / (unsigned)a.nsys;
  const uint64_t s = blockIdx.x / tps, i = (uint64_t)(blockIdx.x % tps) * SP_KUR_BLOCK + threadIdx.x;
  const real *xin = (a.stage == 2 ? a.xt : a.x) + s * a.npad;
  const real xi = xin[i < a.npad ? i : 0];
  double acc = 0;
  for (uint64_t j0 = 0; j0 < a.n; j0 += SP_KUR_BLOCK) {
    const int m = a.n - j0 < SP_KUR_BLOCK ? (int)(a.n - j0) : SP_KUR_BLOCK;
    if ((int)threadIdx.x < m) sh[threadIdx.x] = xin[j0 + threadIdx.x];
    __syncthreads();
    real t = 0;
    if (m == SP_KUR_BLOCK) {
#pragma unroll 16
      for (int j = 0; j < SP_KUR_BLOCK; j++) t += SP_KUR(sp_kur_pair)(xi, sh[j]);
    } else {
      for (int j = 0; j < m; j++) t += SP_KUR(sp_kur_pair)(xi, sh[j]);
    }
    acc += (double)t;
    __syncthreads();
  }
  if (i < a.n) sp_kur_update(a, s, i, (real)acc);
}

/* Dense A (column-major): G_i = cos x_i sum_j A_ij sin x_j - sin x_i sum_j A_ij cos x_j. */
extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK) sp_kur_dense_kernel(const sp_kuramoto_kargs a) {
  __shared__ real shs[SP_KUR_BLOCK], shc[SP_KUR_BLOCK];
  const unsigned tps = gridDim.x / (unsigned)a.nsys;
  const uint64_t s = blockIdx.x / tps, i = (uint64_t)(blockIdx.x % tps) * SP_KUR_BLOCK + threadIdx.x;
  const real *xin = (a.stage == 2 ? a.xt : a.x) + s * a.npad;
  const uint64_t ir = i < a.n ? i : a.n - 1; /* row read (the padding's is unused) */
  double as = 0, ac = 0;
  for (uint64_t j0 = 0; j0 < a.n; j0 += SP_KUR_BLOCK) {
    const int m = a.n - j0 < SP_KUR_BLOCK ? (int)(a.n - j0) : SP_KUR_BLOCK;
    if ((int)threadIdx.x < m) SP_KUR_SINCOS(xin[j0 + threadIdx.x], &shs[threadIdx.x], &shc[threadIdx.x]);
    __syncthreads();
    real ts = 0, tc = 0;
    const real *col = a.A + j0 * a.n + ir;
    for (int j = 0; j < m; j++) {
      const real v = col[(uint64_t)j * a.n];
      ts += v * shs[j];
      tc += v * shc[j];
    }
    as += (double)ts;
    ac += (double)tc;
    __syncthreads();
  }
  if (i < a.n) {
    real si, ci;
    SP_KUR_SINCOS(xin[i], &si, &ci);
    sp_kur_update(a, s, i, (real)((double)ci * as - (double)si * ac));
  }
}

/* Sparse A in CSR: one thread per row. */
extern "C" __global__ void __launch_bounds__(SP_KUR_BLOCK) sp_kur_sparse_kernel(const sp_kuramoto_kargs a) {
  const unsigned tps = gridDim.x / (unsigned)a.nsys;
  const uint64_t s = blockIdx.x / tps, i = (uint64_t)(blockIdx.x % tps) * SP_KUR_BLOCK + threadIdx.x;
  if (i >= a.n) return;
  const real *xin = (a.stage == 2 ? a.xt : a.x) + s * a.npad;
  double as = 0, ac = 0;
  for (int k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
    real sj, cj;
    SP_KUR_SINCOS(xin[a.col[k]], &sj, &cj);
    as += (double)(a.A[k] * sj);
    ac += (double)(a.A[k] * cj);
  }
  real si, ci;
  SP_KUR_SINCOS(xin[i], &si, &ci);
  sp_kur_update(a, s, i, (real)((double)ci * as - (double)si * ac));
}
