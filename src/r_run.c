#include "r_run.h"

SEXP sp_r_run_info(const sp_run_info *info) {
  static const char *const names[] = {"seconds", "rounds", "interrupted", "setup", "collect"};
  double v[5];
  v[0] = info->seconds;
  v[1] = info->rounds;
  v[2] = info->interrupted;
  v[3] = info->setup;
  v[4] = info->collect;
  return sp_r_named_reals(names, v, 5);
}
