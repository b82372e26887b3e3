/* bench/ams-emulation/check.c: every replica of the emulated GPU engine equals the CPU engine's (see run.sh). */
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
  for (int j = 0; j < 2; j++) {
    double g = 0.2 + 0.1 * j, V0 = 1, beta = 1, theta = 0.3, h = 0.05;
    c[j].esc.g0 = g; c[j].esc.V0 = V0; c[j].esc.beta = beta; c[j].esc.h = h; c[j].esc.sigma = sqrt(2*beta*theta*h);
    c[j].esc.phi0 = asin(g); c[j].esc.th = M_PI - asin(g); c[j].esc.start_table = -1; c[j].phiA = asin(g) + 0.4;
    c[j].esc.stream0 = (uint64_t)j << 40; c[j].score = argc > 4 ? atoi(argv[4]) : 0;
  }
  job.conds = c; job.ncond = 2; job.tables = NULL; job.ntables = 0; job.replicas = 5; job.replica0 = 3;
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
