/* xorsat.cu: the quasi-greedy 3-XORSAT solver (paper 003) on the GPU.
 *
 * Paper 003's kernel on a current GPU: one warp per word of 32 clones (a
 * "msc-replica"); the warp's lanes update the spins of one independent set
 * at a time (no two in one equation, so the parallel update is the
 * sequential one), with a __syncwarp between sets; the sweep order, the
 * adjacency lists (one 128-bit load each, as the paper's padded lists) and
 * the equations sit in shared memory once per thread block, each warp's
 * spins in its own shared array.  Many sweeps per launch.
 *
 * The rule and the random numbers are those of xorsat.h, as on the CPU: the
 * p1 decisions of a sweep are drawn by the lanes together (lane l computes
 * Philox blocks l, l + 32, ..., each lane's four results gathered with
 * ballots into bit masks), so a word's chain is the CPU's chain bit for bit
 * and a run's sweeps to solution are the CPU's.
 *
 * Storage: the spins of a word are kept in sweep order (position k holds
 * spin order[k]; the tables are written in positions), so the lanes of a
 * set touch consecutive words for their own spins (no bank conflicts
 * there); the sets hold at most 32 spins (one per lane), filled.
 *
 * A run's words (a group of slots) run side by side.  A word that finds a
 * clone in the ground state at a check replays the sweeps since its last
 * check from a snapshot, as the CPU does, and offers (t << 16 | word) to
 * its group's `best` (atomicMin); a word stops once it can no longer beat
 * `best` (the CPU's answer: the first sweep, then the lowest word).  With
 * `calibrate` the checks are made but never end a run (timing runs). */
#include "xorsat_args.h"
#include "xorsat.h"

#define SP_FULL 0xffffffffu
/* Compiled apart for per-clone p1 decisions (variant "indep"), so that the
 * shared-decision kernel keeps its registers (and its occupancy). */
#ifndef SP_XS_INDEP
#  define SP_XS_INDEP 0
#endif

/* OR over the warp. */
__device__ __forceinline__ uint32_t sp_xs_warp_or(uint32_t v) {
  for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(SP_FULL, v, o);
  return v;
}

/* Mask of the word's clones in the ground state (every equation satisfied). */
__device__ __forceinline__ uint32_t sp_xs_solved(const uint32_t *s, const uint2 *eqt,
                                                 uint32_t n, int lane) {
  uint32_t unsat = 0;
  for (uint32_t c = lane; c < n; c += 32) {
    const uint2 e = eqt[c];
    unsat |= s[e.x & 0xffffu] ^ s[e.x >> 16] ^ s[e.y & 0xffffu] ^ ((e.y >> 16) ? SP_FULL : 0u);
  }
  return ~sp_xs_warp_or(unsat);
}

/* Sweep t (0-based) of word `word` of the run of streams `run`, at p1 2^32 = p1_thr. */
__device__ __forceinline__ void sp_xs_sweep(const sp_xorsat_kargs &a, uint32_t *s, uint32_t *dec,
                                            const uint4 *graph, const int32_t *sets,
                                            uint64_t run, uint64_t p1_thr, uint32_t word,
                                            uint64_t t, int lane) {
  const uint32_t n = a.n, per_sweep = (n + 3u) >> 2, p16 = sp_xorsat_p16(p1_thr);
  /* the p1 decisions of the sweep: bit q & 31 of dec[4 (q >> 5) + e] is
   * update 4 q + e's (shared by the word's clones; per clone, each lane
   * draws its own update's mask below) */
  for (uint32_t r = 0; !SP_XS_INDEP && r < per_sweep; r += 32) {
    const uint32_t q = r + lane;
    sp_u32x4 x = {0, 0, 0, 0};
    if (q < per_sweep) x = sp_xorsat_draws(a.seed, run, word, t, n, q);
    const uint32_t m0 = __ballot_sync(SP_FULL, q < per_sweep && (uint64_t)x.x < p1_thr);
    const uint32_t m1 = __ballot_sync(SP_FULL, q < per_sweep && (uint64_t)x.y < p1_thr);
    const uint32_t m2 = __ballot_sync(SP_FULL, q < per_sweep && (uint64_t)x.z < p1_thr);
    const uint32_t m3 = __ballot_sync(SP_FULL, q < per_sweep && (uint64_t)x.w < p1_thr);
    if (lane == 0) {
      uint32_t *d = dec + 4 * (r >> 5);
      d[0] = m0;
      d[1] = m1;
      d[2] = m2;
      d[3] = m3;
    }
  }
  __syncwarp();
  for (uint32_t c = 0; c < a.nsets; c++) {
    const int32_t end = sets[c + 1];
    for (int32_t k = sets[c] + lane; k < end; k += 32) {
      const uint4 g = graph[k];
      const uint32_t jb = g.w >> 16, q = (uint32_t)k >> 2;
      const uint32_t si = s[k];
      const uint32_t p1 =
          SP_XS_INDEP ? sp_xorsat_indep_mask(a.seed, run, word, t, n, (uint32_t)k, p16)
                  : (((dec[4 * (q >> 5) + ((uint32_t)k & 3u)] >> (q & 31u)) & 1u) ? SP_FULL : 0u);
      const uint32_t u0 = si ^ s[g.x >> 16] ^ s[g.y & 0xffffu] ^ ((jb & 1u) ? SP_FULL : 0u);
      const uint32_t u1 = si ^ s[g.y >> 16] ^ s[g.z & 0xffffu] ^ ((jb & 2u) ? SP_FULL : 0u);
      const uint32_t u2 = si ^ s[g.z >> 16] ^ s[g.w & 0xffffu] ^ ((jb & 4u) ? SP_FULL : 0u);
      s[k] = si ^ sp_xorsat_flip(u0, u1, u2, p1);
    }
    __syncwarp();
  }
}

#ifndef SP_XS_MINBLOCKS
#  define SP_XS_MINBLOCKS 1
#endif
extern "C" __global__ void __launch_bounds__(32 * SP_XS_WPB_MAX, SP_XS_MINBLOCKS)
    sp_xorsat_kernel(const sp_xorsat_kargs a) {
  extern __shared__ uint4 sp_xs_smem[];
  const uint32_t n = a.n;
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  uint4 *graph = sp_xs_smem;
  uint2 *eqt = (uint2 *)(graph + n);
  int32_t *sets = (int32_t *)(eqt + n);
  uint32_t *s = (uint32_t *)(sets + a.nsets + 1) + (size_t)wib * (n + sp_xorsat_dec_words(n));
  uint32_t *dec = s + n;
  {
    const uint4 *G = (const uint4 *)a.graph;
    const uint2 *E = (const uint2 *)a.eqt;
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
      graph[k] = G[k];
      eqt[k] = E[k];
    }
    for (uint32_t k = threadIdx.x; k <= a.nsets; k += blockDim.x) sets[k] = a.sets[k];
  }
  __syncthreads();
  const uint32_t slot = blockIdx.x * a.wpb + (uint32_t)wib;
  if (slot >= a.nslots) return;
  const uint32_t g = slot / a.nwords, word = slot % a.nwords;
  sp_xs_group *gr = a.groups + g;
  const int64_t run = gr->run;
  if (run < 0) return;
  sp_xs_slot *st = a.slots + slot;
  uint32_t state = st->state;
  if (state >= SP_XS_SOLVED) return;
  /* the run's streams and its condition's p1, read once */
  const uint64_t grun = gr->grun, p1_thr = gr->p1_thr, limit = gr->limit;
  volatile unsigned long long *best = (volatile unsigned long long *)&gr->best;
  uint32_t *gs = a.spins + (size_t)slot * n, *gsnap = a.snap + (size_t)slot * n;
  uint64_t t = st->t, t_snap = st->t_snap, t_solved = 0;
  uint32_t bit = 0, sol;
  /* sweeps to the next check (the checks fall on multiples of check_every) */
  uint64_t to_check = a.check_every - t % a.check_every;
  if (state == SP_XS_FRESH) {
    for (uint32_t k = lane; k < n; k += 32)
      s[k] = sp_xorsat_start(a.seed, grun, word, graph[k].x & 0xffffu);
    t = t_snap = 0;
    state = SP_XS_ACTIVE;
    __syncwarp();
    if ((sol = sp_xs_solved(s, eqt, n, lane)) != 0 && !a.calibrate) {
      state = SP_XS_SOLVED;
      bit = __ffs(sol) - 1;
    } else {
      for (uint32_t i = lane; i < n; i += 32) gsnap[i] = s[i];
    }
  } else {
    for (uint32_t i = lane; i < n; i += 32) s[i] = gs[i];
    __syncwarp();
  }
  for (uint32_t b = 0; b < a.budget && state == SP_XS_ACTIVE; b++) {
    if (sp_xs_best(t_snap + 1u, word) > *best) {
      state = SP_XS_STOPPED; /* no solution of this word can come first */
      break;
    }
    if (limit > 0 && t >= limit) {
      state = SP_XS_CUT;
      break;
    }
    sp_xs_sweep(a, s, dec, graph, sets, grun, p1_thr, word, t, lane);
    t++;
    if (--to_check == 0 || (limit > 0 && t >= limit)) {
      if (to_check == 0) to_check = a.check_every;
      if (sp_xs_solved(s, eqt, n, lane) != 0 && !a.calibrate) {
        /* replay from the snapshot, sweep by sweep, to the first solution */
        const uint64_t t_end = t;
        __syncwarp();
        for (uint32_t i = lane; i < n; i += 32) s[i] = gsnap[i];
        __syncwarp();
        t = t_snap;
        do {
          sp_xs_sweep(a, s, dec, graph, sets, grun, p1_thr, word, t, lane);
          t++;
          sol = sp_xs_solved(s, eqt, n, lane);
        } while (sol == 0 && t < t_end);
        state = SP_XS_SOLVED;
        bit = __ffs(sol) - 1;
        break;
      }
      __syncwarp();
      for (uint32_t i = lane; i < n; i += 32) gsnap[i] = s[i];
      t_snap = t;
    }
  }
  if (state == SP_XS_SOLVED) {
    t_solved = t;
    if (lane == 0) atomicMin((unsigned long long *)&gr->best, sp_xs_best(t, word));
  }
  __syncwarp();
  for (uint32_t i = lane; i < n; i += 32) gs[i] = s[i];
  if (lane == 0) {
    st->t = t;
    st->t_snap = t_snap;
    st->t_solved = t_solved;
    st->state = state;
    st->bit = bit;
  }
}
