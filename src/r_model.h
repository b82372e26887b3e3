/* r_model.h: the generic .Call entry of every model (src/core/sp_model.h). */
#ifndef SP_R_MODEL_H
#define SP_R_MODEL_H

#include "r_util.h"

/* Run model `name` on R's named list `job` (R's sim_run()). */
SEXP sp_r_model_run(SEXP name, SEXP job, SEXP gpu_key, SEXP devices, SEXP progress);
SEXP sp_r_model_pick(SEXP values, SEXP from, SEXP stride, SEXP n);

/* The row table `field` of model `model` read from x (R_alloc'ed), its rows
 * in *n (for the glue of tests that call a model's helpers). */
void *sp_r_model_rows(const char *model, const char *field, SEXP x, R_xlen_t *n);

#endif
