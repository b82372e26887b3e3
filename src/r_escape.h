/* r_escape.h: the escape engine's condition table from R (r_escape.c), also
 * for the test entry points. */
#ifndef SP_R_ESCAPE_H
#define SP_R_ESCAPE_H

#include "r_util.h"
#include "core/sp_escape.h"

/* conds: named list of double columns, the fields of sp_escape_cond. */
sp_escape_cond *sp_r_escape_conds(SEXP conds, int *ncond);

#endif
