/* sp_streams.h: the registry of Philox streams -- who draws which numbers.
 *
 * Every random number of the package is Philox4x32-10 under the 64-bit key
 * `seed` (philox.h).  The 128-bit counter is divided once, here, so that no
 * two engines, and no two uses within an engine, can draw the same numbers
 * (in the manner of HOOMD-blue's RNGIdentifiers.h):
 *
 *   counter = (block low 32, block high 24 | purpose << 24, stream low 32, stream high 32)
 *
 *   purpose  8 bits: what the numbers are for (the table below);
 *   stream  64 bits: whose numbers they are -- for replica engines the
 *                    condition and the replica, c 2^40 + r (0-based; up to
 *                    2^24 conditions of 2^40 replicas);
 *   block   56 bits: the position in that sequence (4 draws per block).
 *
 * Purpose 0 is the raw space of philox_uint32/uniform/normal(seed, stream,
 * offset), whose 64-bit offset addresses the whole (block, purpose) range;
 * the escape engine's integration steps draw from purpose 0 on purpose, so
 * that a path's normals are exactly philox_normal(k, seed, stream = c 2^40 + r)
 * (the tests replay paths that way).  A new engine adds its purposes to the
 * enum; the values are never reused or renumbered (results of a seed would
 * change). */
#ifndef SP_STREAMS_H
#define SP_STREAMS_H

#include "philox.h"

enum {
  SP_PURPOSE_RAW = 0,          /* philox_*() */
  SP_PURPOSE_ESCAPE_STEPS = 0, /* escape: one normal per step, draw k-1 for step k */
  SP_PURPOSE_ESCAPE_START = 1, /* escape: the thermal start of a path (block 0) */
  SP_PURPOSE_VMC_MOVE = 2,     /* he4 VMC: trial move m of a walker, blocks 2m, 2m + 1 */
  SP_PURPOSE_VMC_START = 3,    /* he4 VMC: the start lattice's vacancies, block t for site t */
  SP_PURPOSE_XORSAT_START = 4, /* 3-XORSAT: a run's random start, 32 clones a word */
  SP_PURPOSE_XORSAT_QG = 5,    /* 3-XORSAT: the p1 decisions of the quasi-greedy sweeps */
  SP_PURPOSE_DRIVEN_STEPS = 6, /* driven Brownian: one normal per step, draw k for step k + 1 */
  SP_PURPOSE_DRIVEN_START = 7, /* driven Brownian: the uniform start x(0) of a path (block 0) */
  SP_PURPOSE_KURAMOTO_STEPS = 8, /* many-body steps (SP_PURPOSE_MB_STEPS below; the name of the
                                    built-in Kuramoto engine's steps, deleted in issue 50) */
  SP_PURPOSE_KURAMOTO_START = 9, /* retired: the built-in Kuramoto engine's start phases
                                    (deleted in issue 50); not to be reused */
  SP_PURPOSE_XORSAT_QG_CLONES = 10, /* 3-XORSAT: per-clone p1 decisions, 4 blocks an update */
  SP_PURPOSE_LRMD_INIT = 11,   /* long-range MD: initial conditions, stream = coordinate
                                  (0 q0, 1 q1, 2 p0, 3 p1), block i/4 for particle i */
  SP_PURPOSE_SDE_STEPS = 12,   /* user SDE models (sde_engine.h): step k + 1 uses normals
                                  k NW .. k NW + NW - 1 (NW noise entries), normal d
                                  element d mod 4 of block d / 4 */
  SP_PURPOSE_SDE_INIT = 13,    /* user SDE models: random starts (many-body sde_run();
                                  sde_ams(): block j D + d, drawn state d of start j) */
  SP_PURPOSE_AMS_STEPS = 14,   /* AMS (washboard and user models): the normals of path P (0 the
                                  long trajectory, then particles and branches), normal d = k W
                                  + j of step k + 1 (W a step: 1 on the washboard) word d mod 4
                                  of block (P << 32) | d/4 (ams.h) */
  SP_PURPOSE_AMS_BRANCH = 15   /* AMS escapes: survivor picks (block b/4 for branch b) and
                                  thermal restarts (block 2^32 + j - 1) (ams.h) */
};

/* long-range MD: the starts of replicas 2, 3, ... (global replica r, 0-based, r >= 1) of
 * lrmd(..., replicas); replica 1 (r = 0) draws from SP_PURPOSE_LRMD_INIT as before
 * replicas existed, so its numbers stay those of one start.  Stream
 * sp_stream_replica(coordinate, r), block i/4 for particle i: see sp_philox_lrmd_init. */
enum { SP_PURPOSE_LRMD_INIT_REPLICAS = 16 };

/* many-body user models (mb_args.h), kuramoto() among them: purpose 13
 * (SP_PURPOSE_SDE_INIT) holds the random starts, draw d of element i block
 * i D + d (D draws an element); element parameters drawn at random likewise
 * in their own purpose; the steps' normals: step k, element i, entry w,
 * normal i NW + w of block k ceil(n NW / 4) + (i NW + w) / 4 of purpose 8
 * (the layout of the built-in Kuramoto engine's steps, deleted in issue 50) */
enum { SP_PURPOSE_MB_STEPS = SP_PURPOSE_KURAMOTO_STEPS, SP_PURPOSE_MB_EPAR = 21 };

/* user SDE models (sde_engine.h): the Brownian-bridge test of the passage
 * event in step k + 1 (from t_k) of a path, drawn only where the step ends
 * near the event's level: block k of the path's stream, word x the
 * uniform of the test, words (y, z) a normal (Box-Muller) and word w a
 * uniform for the crossing time inside the step. */
enum { SP_PURPOSE_SDE_BRIDGE = 17 };

/* he4 diffusion Monte Carlo (he4_dmc.h): generation g of the walker in
 * slot k of population q, stream sp_stream_replica(q, k); block
 * g (n + 1) + i holds the three normals of atom i's diffusion (Box-Muller
 * of (x, y) and of (z, w), the fourth unused), block g (n + 1) + n the
 * uniforms of the accept/reject test (x) and of the branching (y). */
enum { SP_PURPOSE_DMC_MOVE = 30 };

/* 3-XORSAT instances (xorsat_random(), drawn in R through the raw space of
 * philox_uint32() at offset 40 2^58): stream 0 the shuffle of the 3N
 * copies (two draws a copy), stream 1 the planted assignment, stream
 * t + 1 the repairs of round t.  Below 64, as the raw space reaches. */
enum { SP_PURPOSE_XORSAT_INSTANCE = 40 };

#define SP_PURPOSE_SHIFT 24
#define SP_REPLICA_BITS 40

/* Stream of replica r (0-based) of condition c (0-based). */
SP_FN uint64_t sp_stream_replica(uint64_t c, uint64_t r) {
  return (c << SP_REPLICA_BITS) | r;
}

/* Block `block` (< 2^56) of `purpose` in `stream`. */
SP_FN sp_u32x4 sp_philox_purpose_block(uint64_t seed, uint32_t purpose, uint64_t stream,
                                       uint64_t block) {
  return sp_philox_block(seed, stream, block | ((uint64_t)purpose << (32 + SP_PURPOSE_SHIFT)));
}

/* Block `block` of coordinate `coord` (0 q0, 1 q1, 2 p0, 3 p1) of the start of
 * replica r (global, 0-based) of lrmd(): replica 0, purpose SP_PURPOSE_LRMD_INIT
 * stream coord (the draws of a single start); replica r >= 1, purpose
 * SP_PURPOSE_LRMD_INIT_REPLICAS stream sp_stream_replica(coord, r). */
SP_FN sp_u32x4 sp_philox_lrmd_init(uint64_t seed, uint64_t r, uint32_t coord, uint64_t block) {
  if (r == 0) return sp_philox_purpose_block(seed, SP_PURPOSE_LRMD_INIT, coord, block);
  return sp_philox_purpose_block(seed, SP_PURPOSE_LRMD_INIT_REPLICAS,
                                 sp_stream_replica(coord, r), block);
}

#endif /* SP_STREAMS_H */
