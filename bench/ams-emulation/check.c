/* bench/ams-emulation/check.c: every replica of the emulated GPU engine equals the CPU engine's (see run.sh);
 * with -DSP_AMS_SDE for a user's SDE model (the cubic of cubic/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "core/sp_ams.h"
#include "core/sp_error.h"
#include "gpu/sp_gpu_ams.h"
extern int mock_heun, mock_single; extern long mock_launches;
int main(int argc, char **argv) {
  int single = atoi(argv[1]), ndev = atoi(argv[2]), heun = atoi(argv[3]);
  sp_ams_cond c[2]; sp_ams_job job; sp_run_info info; sp_hooks hooks = {0};
  memset(c, 0, sizeof c);
  memset(&job, 0, sizeof job);
#ifdef SP_AMS_SDE
  /* the cubic of bench/ams-emulation/cubic (parameters theta, sqrt(2 theta);
   * start 0); argument 4: 1 = B the stop event x > 1, 0 = B {x >= 0.9} */
  extern int sp_ams_entry_long_f(), sp_ams_entry_long_d(), sp_ams_entry_branch_f(),
      sp_ams_entry_branch_d();
  sp_ams_sde_cond sc[2];
  double tab[6];
  memset(sc, 0, sizeof sc);
  for (int j = 0; j < 2; j++) {
    double theta = 0.05 + 0.01 * j;
    tab[3 * j] = theta; tab[3 * j + 1] = sqrt(2 * theta); tab[3 * j + 2] = 0;
    sc[j].h = 0.01; sc[j].zA = 0.15; sc[j].zB = 0.9; sc[j].stream0 = (uint64_t)j << 40;
    sc[j].par0 = 3 * j; sc[j].init0 = 3 * j + 2; sc[j].use_stop = argc > 4 ? atoi(argv[4]) : 0;
  }
  job.sconds = sc; job.tables = tab; job.ntables = 6; job.nx = 1;
  job.entry_long = (void *)(uintptr_t)(single ? sp_ams_entry_long_f : sp_ams_entry_long_d);
  job.entry_branch = (void *)(uintptr_t)(single ? sp_ams_entry_branch_f : sp_ams_entry_branch_d);
#endif
  for (int j = 0; j < 2; j++) {
    double g = 0.2 + 0.1 * j, V0 = 1, beta = 1, theta = 0.3, h = 0.05;
    c[j].esc.g0 = g; c[j].esc.V0 = V0; c[j].esc.beta = beta; c[j].esc.h = h; c[j].esc.sigma = sqrt(2*beta*theta*h);
    c[j].esc.phi0 = asin(g); c[j].esc.th = M_PI - asin(g); c[j].esc.start_table = -1; c[j].phiA = asin(g) + 0.4;
    c[j].esc.stream0 = (uint64_t)j << 40; c[j].score = argc > 4 ? atoi(argv[4]) : 0;
  }
#ifdef SP_AMS_SDE
  job.ncond = 2; job.replicas = 5; job.replica0 = 3;
  sp_ams_prepare_sde(&job);
#else
  job.conds = c; job.ncond = 2; job.tables = NULL; job.ntables = 0; job.replicas = 5; job.replica0 = 3;
  sp_ams_prepare_washboard(&job);
#endif
  job.particles = 50; job.k = argc > 5 ? (uint64_t)atoi(argv[5]) : 3; job.seed = 42; job.heun = heun; job.single = single;
  mock_heun = heun; mock_single = single;
  sp_ams_result a[10], b[10];
  sp_ams_out oa = {a}, ob = {b};
  sp_ams_out_init(&job, a);
  sp_ams_out_init(&job, b);
  int st = single ? sp_ams_cpu_run_f(&job, &oa, 2, &hooks, &info)
                  : sp_ams_cpu_run_d(&job, &oa, 2, &hooks, &info);
  if (st) { printf("cpu fail %s\n", sp_last_error()); return 1; }
  int devs[3] = {0, 1, 2};
  st = sp_gpu_ams("key", &job, &ob, devs, ndev, &hooks, &info);
  if (st) { printf("gpu fail %s\n", sp_last_error()); return 1; }
  int same = 0;
  for (int i = 0; i < 10; i++) {
    int eq = memcmp(&a[i], &b[i], sizeof a[i]) == 0;
    same += eq;
    if (!eq || i < 2) printf("%d cpu p %.12g react %.9g nB %g it %g br %g steps %g ts %g tc %g st %d | gpu p %.12g react %.9g nB %g it %g br %g steps %g ts %g tc %g st %d\n", i,
      a[i].p, a[i].react, a[i].n_B, a[i].iterations, a[i].branches, a[i].steps, a[i].t_start, a[i].t_cycle, a[i].status,
      b[i].p, b[i].react, b[i].n_B, b[i].iterations, b[i].branches, b[i].steps, b[i].t_start, b[i].t_cycle, b[i].status);
  }
  printf("identical %d of 10 (launches %ld, rounds %g)\n", same, mock_launches, info.rounds);
  return same == 10 ? 0 : 2;
}
