/* xorsat_args.h: what the host hands the quasi-greedy 3-XORSAT kernel
 * (xorsat.cu), one layout for both compilers (sizes checked).
 *
 * The device's warps are `nslots` slots of one word (32 clones) each; the
 * slots form `ngroups` groups of `nwords` consecutive slots, and a group
 * holds one run at a time (its words side by side).  The host assigns runs
 * to groups between launches. */
#ifndef SP_XORSAT_ARGS_H
#define SP_XORSAT_ARGS_H

#include "sp_common.h"

/* Slot states. */
enum {
  SP_XS_FRESH = 0,   /* a new run's word: the kernel draws its start */
  SP_XS_ACTIVE = 1,  /* sweeping */
  SP_XS_SOLVED = 2,  /* a clone of this word reached E = -N at t_solved */
  SP_XS_STOPPED = 3, /* another word of the run solved earlier: this one cannot win */
  SP_XS_CUT = 4      /* reached the group's sweep limit */
};

/* A group between launches (device memory). */
typedef struct {
  int64_t run;    /* index of its run in this call, -1: idle */
  uint64_t grun;  /* its streams' run number (sp_xorsat_run_stream: condition and run) */
  uint64_t p1_thr; /* its condition's p1 2^32 (2^32: always) */
  uint64_t limit; /* sweeps after which the run is cut, 0: none */
  uint64_t best;  /* min over solved words of (t_solved << 16 | word); ~0: none */
} sp_xs_group;

SP_STATIC_ASSERT(sizeof(sp_xs_group) == 40, "sp_xs_group layout");

/* A group's best: sweep t and word packed as t << 16 | word (a run has at
 * most 2^16 words, SP_XORSAT_WORD_BITS), so that the least is the first
 * sweep, then the lowest word (the kernel offers, the host reads). */
SP_FN uint64_t sp_xs_best(uint64_t t, uint32_t word) { return (t << 16) | (uint64_t)word; }
SP_FN uint64_t sp_xs_best_sweep(uint64_t best) { return best >> 16; }
SP_FN uint32_t sp_xs_best_word(uint64_t best) { return (uint32_t)(best & 0xffffu); }

/* A slot (one word of a run) between launches (device memory). */
typedef struct {
  uint64_t t;        /* sweeps done */
  uint64_t t_snap;   /* sweeps of the snapshot (its state checked: not solved) */
  uint64_t t_solved; /* the first sweep with a clone in the ground state */
  uint32_t state;    /* SP_XS_* */
  uint32_t bit;      /* the first clone (bit) in the ground state */
} sp_xs_slot;

SP_STATIC_ASSERT(sizeof(sp_xs_slot) == 32, "sp_xs_slot layout");

typedef struct {
  uint64_t seed;
  uint64_t check_every; /* sweeps between ground-state checks */
  uint32_t n;           /* spins = equations (at most 2^16 - 1) */
  uint32_t nsets;       /* independent sets */
  uint32_t nwords;      /* words per run (slots per group) */
  uint32_t ngroups;
  uint32_t nslots;      /* ngroups nwords */
  uint32_t wpb;         /* warps (slots) per thread block */
  uint32_t budget;      /* sweeps per slot in this launch, at most */
  uint32_t indep;       /* 1: per-clone p1 decisions (the kernel's "indep" variant) */
  uint32_t calibrate;   /* 1: solutions do not end a run (timing runs, to the limit) */
  uint32_t pad_;
  SP_DPTR(const uint32_t) graph; /* n x 4: position k of the sweep order: spin | p0 << 16,
                                    p1 | p2 << 16, p3 | p4 << 16, p5 | jbits << 16; the
                                    partners as positions, the spin as its label */
  SP_DPTR(const uint32_t) eqt;   /* n x 2: equation c: i | j << 16, k | jneg << 16 (positions) */
  SP_DPTR(const int32_t) sets;   /* nsets + 1: the sets' first positions, then n */
  SP_DPTR(sp_xs_group) groups;   /* ngroups */
  SP_DPTR(sp_xs_slot) slots;     /* nslots */
  SP_DPTR(uint32_t) spins;       /* nslots x n: the words' state, in positions */
  SP_DPTR(uint32_t) snap;        /* nslots x n: the state at t_snap */
} sp_xorsat_kargs;

SP_STATIC_ASSERT(sizeof(sp_xorsat_kargs) == 112, "sp_xorsat_kargs layout");

/* The kernel's limits, for the host (sp_gpu_xorsat.c) and R
 * (xorsat_limits(), through sp_r_xorsat_limits):
 * SP_XS_WPB_MAX  warps (slots) of a thread block, at most: the kernel's
 *                __launch_bounds__ is 32 SP_XS_WPB_MAX threads; the host
 *                takes the most warps, halving from this, whose tables and
 *                spins fit in SP_XS_SHARED_MAX;
 * SP_XS_SHARED_MAX  bytes of shared memory of a block, at most (the
 *                dynamic shared memory a launch gets without opting in);
 * SP_XS_MAX_N    spins of the largest instance: a block of one warp keeps
 *                its tables and spins in SP_XS_SHARED_MAX (1,536 spins and
 *                their sets take 43,204 + 4 nsets bytes);
 * SP_XS_SET_MAX  spins of an independent set that the lanes of a warp
 *                update at once, one each (R's colouring fills the sets to
 *                this; a larger set would take two passes of the lanes). */
#define SP_XS_WPB_MAX 8
#define SP_XS_SHARED_MAX (48 * 1024)
#define SP_XS_MAX_N 1536
#define SP_XS_SET_MAX 32

/* Shared memory of a thread block of `wpb` warps: the tables, then each
 * warp's spins and the p1 decisions of a sweep (4 bits per Philox block). */
SP_FN uint32_t sp_xorsat_dec_words(uint32_t n) {
  return 4u * ((((n + 3u) >> 2) + 31u) >> 5);
}
SP_FN uint64_t sp_xorsat_shared_bytes(uint32_t n, uint32_t nsets, uint32_t wpb) {
  return 16ull * n + 8ull * n + 4ull * (nsets + 1u) +
         4ull * wpb * ((uint64_t)n + sp_xorsat_dec_words(n));
}

#endif /* SP_XORSAT_ARGS_H */
