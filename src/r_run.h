/* r_run.h: what every engine's glue returns about its run. */
#ifndef SP_R_RUN_H
#define SP_R_RUN_H

#include "r_util.h"
#include "core/sp_run.h"

/* c(seconds =, rounds =, interrupted =) */
SEXP sp_r_run_info(const sp_run_info *info);

#endif
