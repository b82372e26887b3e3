/* driven_args.h: what the driven Brownian engine's host code hands its CPU
 * loop and its kernel, one definition for both (copied to the device byte
 * for byte; the static asserts check that both compilers agree on the
 * layout).  The kernel defines sp_driven_real (float or double) before
 * including this; the host sees the real arrays as device pointers only. */
#ifndef SP_DRIVEN_ARGS_H
#define SP_DRIVEN_ARGS_H

#include "sp_common.h"

/* Threads of a block of sp_driven_kernel and sp_driven_init_kernel (one
 * thread a path): the kernels' __launch_bounds__ and the host's launches
 * (sp_gpu_driven.c). */
#define SP_DRV_BLOCK 128

/* One condition (a combination of the swept parameters), in double on the
 * host:  x'' + gamma x' = -V'(x) + a cos(omega t) + f + sqrt(2 gamma D0) xi(t),
 * V(x) = sin(2 pi x), step dt = (2 pi / omega) / steps_per_period. */
typedef struct {
  double a, omega, f, gamma, D0;
  double dt;        /* (2 pi / omega) / steps_per_period */
  double sigma;     /* sqrt(2 gamma D0 dt): the noise of one step on v */
  uint64_t stream0; /* Philox stream of replica 1 of this condition: c 2^40 */
} sp_driven_cond;

SP_STATIC_ASSERT(sizeof(sp_driven_cond) == 64, "sp_driven_cond layout");

/* A path's state where a run left it, to continue it
 * (driven_brownian(init = <a result>)): x = m + y (m whole periods), v and
 * the v^2 sum of the current period in the run's precision, the v^2 sum of
 * the finished periods after the transient and x at its end (NaN: not
 * reached).  The continued run starts at the previous run's step, so path
 * and sums go on as in one longer run. */
typedef struct {
  int64_t m;
  double y, v, s2, acc2, xtr;
} sp_driven_state;

SP_STATIC_ASSERT(sizeof(sp_driven_state) == 48, "sp_driven_state layout");

/* Arguments of sp_driven_kernel (by value).  Path i of the launch is path
 * path0 + i of the run, p = c n + r (condition c, replica r of this call);
 * the state arrays are indexed by i. */
typedef struct {
  SP_DPTR(const sp_driven_cond) conds;
  SP_DPTR(const sp_driven_real) drive; /* cos(2 pi j / spp), j = 0 .. spp */
  SP_DPTR(int32_t) m;                  /* position x = m + y: whole periods */
  SP_DPTR(sp_driven_real) x;           /*   and y in [-1/2, 1/2] (driven.h) */
  SP_DPTR(sp_driven_real) v;           /* velocity */
  SP_DPTR(sp_driven_real) s2;          /* sum of v^2 over the current period */
  SP_DPTR(double) acc2;                /* sum of v^2 over the finished periods after the transient */
  SP_DPTR(double) xtr;                 /* x at the end of the transient */
  SP_DPTR(double) keep_x;              /* kept trajectories (or 0): x and v of */
  SP_DPTR(double) keep_v;              /*   path (c, r < keep_m) at period q, [(c m + r)(periods + 1) + q] */
  uint64_t n;                          /* paths per condition */
  uint64_t replica0;                   /* first_replica - 1 */
  uint64_t seed;
  uint64_t path0, npaths;              /* this launch's paths */
  uint64_t k0;                         /* steps done before this launch */
  uint64_t ktr;                        /* steps of the transient (a whole number of periods) */
  uint64_t keep_m, periods;
  /* the coarse-grained density (or 0): paths of condition c with floor(x)
   * = lo + b at period q counted in dens[(c (periods + 1) + q)(bins + 2) + 1 + b],
   * b = 0 .. bins - 1; slot 0 counts floor(x) < lo, slot bins + 1 the rest */
  SP_DPTR(unsigned long long) dens;
  int64_t dens_lo;
  uint32_t spp;                        /* steps per drive period */
  uint32_t nsteps;                     /* steps of this launch */
  uint32_t heun;                       /* 1: srk2, 0: euler */
  uint32_t bins;                       /* bins of the density */
  SP_DPTR(unsigned long long) bad;     /* the lowest path whose state (x, v, the v^2
                                          sums) is non-finite at the end of a launch
                                          (atomicMin; all ones: none) */
} sp_driven_kargs;

SP_STATIC_ASSERT(sizeof(sp_driven_kargs) == 192, "sp_driven_kargs layout");

/* Arguments of sp_driven_init_kernel: the start of paths path0 + i, i <
 * npaths, drawn on the device (sp_driven_start() of the CPU engine: the
 * same numbers), into the state arrays of sp_driven_kargs. */
typedef struct {
  SP_DPTR(const sp_driven_cond) conds;
  SP_DPTR(const double) x0;            /* start positions (or 0: uniform on (0, 1)), */
  SP_DPTR(const double) v0;            /*   velocities (or 0: at rest); nx0, nv0 of */
  uint64_t nx0, nv0;                   /*   them, 1 or one per replica */
  SP_DPTR(int32_t) m;
  SP_DPTR(sp_driven_real) x;
  SP_DPTR(sp_driven_real) v;
  SP_DPTR(sp_driven_real) s2;
  SP_DPTR(double) acc2;
  SP_DPTR(double) xtr;
  uint64_t n, replica0, seed, path0, npaths, ktr;
} sp_driven_init_kargs;

SP_STATIC_ASSERT(sizeof(sp_driven_init_kargs) == 136, "sp_driven_init_kargs layout");

#endif /* SP_DRIVEN_ARGS_H */
