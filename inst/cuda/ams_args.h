/* ams_args.h: what the AMS engine's host code hands its CPU loop and its
 * kernels (adaptive multilevel splitting on the washboard of escape.h), one
 * definition for both compilers (static asserts check the layout). */
#ifndef SP_AMS_ARGS_H
#define SP_AMS_ARGS_H

#include "escape_args.h"

/* One condition: the washboard condition of escape.h (step, noise, bias,
 * threshold th of B, start at rest or thermal; kmax and vcens unused) and
 * the edge of the start region A = {phi <= phiA}, whose boundary is Sigma. */
typedef struct {
  sp_escape_cond esc;
  double phiA;
} sp_ams_cond;

SP_STATIC_ASSERT(sizeof(sp_ams_cond) == 128, "sp_ams_cond layout");

/* What a replica (one independent AMS estimate) reports.  Durations in time
 * units; counts as doubles. */
typedef struct {
  double p;          /* prod_q (1 - K_q / N) * N_B / N (0 when extinct) */
  double react;      /* mean duration, exit from A to B, of the N_B particles in B
                        at the end (0 when N_B = 0) */
  double n_B;        /* particles in B at the end */
  double t_start;    /* summed durations of the start segments: from the start
                        (and each restart) to the first exit from A */
  double n_start;
  double t_cycle;    /* summed durations of the failed cycles of the long
                        trajectory: exit, return to A, next exit */
  double n_cycle;
  double t_direct;   /* start segments that reached B before ever exiting A
                        (a thermal start outside A): their crossing times */
  double n_direct;
  double n_lt_react; /* excursions of the long trajectory that reached B (it
                        restarts from the start state after each) */
  double iterations; /* AMS iterations (levels) */
  double branches;   /* particles killed and branched */
  double steps;      /* integration steps: long trajectory, particles, replays */
  int status;        /* SP_AMS_* below */
  int pad_;
} sp_ams_result;

SP_STATIC_ASSERT(sizeof(sp_ams_result) == 112, "sp_ams_result layout");

enum {
  SP_AMS_UNFINISHED = 0, /* interrupted before it finished: no estimate */
  SP_AMS_DONE = 1,       /* the level passed the threshold: p > 0 */
  SP_AMS_EXTINCT = 2     /* every particle killed at one level: p = 0 */
};

/* How a piece of path ended (sp_ams_run_*). */
enum {
  SP_AMS_EV_NONE = 0,  /* budget spent */
  SP_AMS_EV_A = 1,     /* back in A */
  SP_AMS_EV_B = 2,     /* reached B (phi > th) */
  SP_AMS_EV_LEVEL = 3  /* score above the level (replay) */
};

#endif /* SP_AMS_ARGS_H */
